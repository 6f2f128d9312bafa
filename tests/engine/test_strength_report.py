"""The strength report shows the engine as shipped: the current engine's results, a compiled
search's result replacing the Python search's of the same match; earlier engines' results apart;
seeds of one match adding up."""

from __future__ import annotations

import argparse
import dataclasses
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bluegray.engine import ENGINE_VERSION
from bluegray.engine.journal import MatchJournal, run_journaled
from bluegray.engine.limits import Limits
from bluegray.engine.match import MatchGame, MatchSettings, run_match
from bluegray.engine.stats import MatchStats
from bluegray.rules import PRESETS
from tests.paths import SCRIPTS, run_script


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    return run_script("strength_results.py")


@pytest.fixture(scope="module")
def page() -> dict[str, Any]:
    return run_script("strength_page.py")


def result(
    rules: str,
    search: str | None,
    wins: int,
    draws: int,
    seed: int = 1,
    engine: int | None = ENGINE_VERSION,
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "kind": "versus",
        "a": "level:8",
        "b": "mcts",
        "rules": rules,
        "time": 1.0,
        "games": 10,
        "wins": wins,
        "draws": draws,
        "losses": 10 - wins - draws,
        "score": (wins + draws / 2) / 10,
        "elo": 0.0,
        "elo_low": -100.0,
        "elo_high": 100.0,
        "reasons": {"lead": wins, "repetition": draws},
        "average_plies": 100.0,
        "seed": seed,
    }
    if search is not None:
        entry["search"] = search
    if engine is not None:
        entry["engine"] = engine
    return entry


def test_a_compiled_result_replaces_the_python_one_of_the_same_match(
    results: dict[str, Any],
) -> None:
    old = result("cooper", None, 3, 7)  # before the search column existed: the Python search
    new = result("cooper", "compiled", 6, 4)
    alone = result("super", "python", 5, 5)
    current, earlier = results["superseded"]([old, new, alone])
    assert current == [new, alone]
    assert earlier == []


def test_earlier_engines_results_are_kept_apart(
    results: dict[str, Any], page: dict[str, Any]
) -> None:
    now = results["ENGINE_VERSION"]
    first_python = result("cooper", "python", 3, 7, engine=None)  # before engines were numbered
    first = result("cooper", "compiled", 5, 5, engine=1)
    first_only = result("super", "python", 7, 3, engine=1)
    second = result("cooper", "compiled", 8, 2, engine=now)
    current, earlier = results["superseded"]([first_python, first, first_only, second])
    assert current == [second]
    assert earlier == [first, first_only]
    (verdict, _blank) = page["_verdicts"]([first, second])
    assert verdict == "- Against `mcts`: 1 of 1 rule sets reach 75%."


def test_the_page_shows_the_latest_measured_engine_until_the_current_one_is(
    results: dict[str, Any],
) -> None:
    now = results["ENGINE_VERSION"]
    before = result("cooper", "compiled", 8, 2, engine=now - 1)
    older = result("super", "compiled", 6, 4, engine=now - 2)
    assert results["shown_engine"]([before, older]) == now - 1
    current, earlier = results["superseded"]([before, older], now - 1)
    assert (current, earlier) == ([before], [older])
    measured = result("cooper", "compiled", 7, 3, engine=now)
    assert results["shown_engine"]([before, older, measured]) == now


def test_seeds_of_one_match_add_up(results: dict[str, Any]) -> None:
    first = result("cooper", "compiled", 6, 4, seed=1)
    second = result("cooper", "compiled", 2, 8, seed=2)
    (merged,) = results["merged"]([first, second])
    assert (merged["games"], merged["wins"], merged["draws"], merged["losses"]) == (20, 8, 12, 0)
    assert merged["score"] == pytest.approx(0.7)
    assert merged["parts"] == [(1, 10), (2, 10)]
    assert merged["reasons"] == {"lead": 8, "repetition": 12}


def test_the_verdict_counts_the_compiled_result_where_there_is_one(
    page: dict[str, Any],
) -> None:
    rows = [result("cooper", "python", 10, 0), result("cooper", "compiled", 4, 6)]
    (verdict, _blank) = page["_verdicts"](rows)
    assert verdict == "- Against `mcts`: 0 of 1 rule sets reach 75%; below it: `cooper` (70%)."


def ladder_step(rules: str, a: str, b: str, elo_low: float | None) -> dict[str, Any]:
    return {
        **result(rules, "compiled", 6, 4),
        "kind": "ladder",
        "a": a,
        "b": b,
        "time": None,
        "elo_low": elo_low,
    }


def test_the_ladder_overview_marks_only_the_steps_the_games_separate(
    page: dict[str, Any],
) -> None:
    rows = [
        ladder_step("cooper", "level:2", "level:1", 12.0),
        ladder_step("sackson", "level:2", "level:1", -30.0),
        ladder_step("sackson", "level:3", "level:2", None),
    ]
    lines = page["_ladder_overview"](rows)
    header = next(line for line in lines if line.startswith("| step |"))
    assert header == "| step | `sackson` | `cooper` |"  # the report's order, not the alphabet's
    first = next(line for line in lines if line.startswith("| `level:2`"))
    assert first == "| `level:2` vs `level:1` | 80% (10) ≈ | 80% (10) ✓ |"
    second = next(line for line in lines if line.startswith("| `level:3`"))
    assert second == "| `level:3` vs `level:2` | 80% (10) ≈ | - |"
    assert "In 1 of the 3 steps measured the higher level is clearly stronger" in " ".join(lines)


def test_a_ladder_table_lists_the_baselines_then_the_levels_from_the_bottom_up(
    page: dict[str, Any],
) -> None:
    played = [("level:7", "level:6"), ("level:2", "level:1"), ("level:10", "level:9")]
    played += [("level:2", "greedy"), ("level:1", "greedy"), ("level:1", "random")]
    entries = [{"a": a, "b": b} for a, b in played]
    ordered = [(e["a"], e["b"]) for e in sorted(entries, key=page["_ladder_order"])]
    assert ordered == [
        ("level:1", "random"),
        ("level:1", "greedy"),
        ("level:2", "greedy"),
        ("level:2", "level:1"),
        ("level:7", "level:6"),
        ("level:10", "level:9"),
    ]


@pytest.fixture
def level_six_revision(results: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> int:
    """Level 6's settings changed once more: its new revision number. (The script shares the
    engine's table of levels, so changing that one changes the script's.)"""
    levels = results["LEVELS"]
    revision: int = levels[6].revision + 1
    monkeypatch.setitem(levels, 6, dataclasses.replace(levels[6], revision=revision))
    return revision


def test_a_revised_levels_earlier_results_are_kept_apart(
    results: dict[str, Any], page: dict[str, Any], level_six_revision: int
) -> None:
    new, old = level_six_revision, level_six_revision - 1
    unrecorded = ladder_step("cooper", "level:7", "level:6", -50.0)  # before revisions: 1
    first = {**ladder_step("cooper", "level:6", "level:5", 40.0), "levels": {"6": old, "5": 1}}
    second = {**ladder_step("cooper", "level:7", "level:6", 20.0), "levels": {"7": 1, "6": new}}
    untouched = ladder_step("cooper", "level:8", "level:7", 30.0)
    current, earlier = results["superseded"]([unrecorded, first, second, untouched])
    assert current == [second, untouched]
    assert earlier == [first, unrecorded]
    lines = page["_revised_levels"]([first, second])
    assert lines[0] == "## Other revisions of the levels"
    assert f"| `cooper` | `level:6` (rev. {old}) vs `level:5` (rev. 1) | 10 | 6-4-0 |" in "".join(
        lines
    )
    assert "level:7` (rev." not in "".join(lines)  # the current revisions' match is not there


def test_seeds_add_up_only_within_one_revision(
    results: dict[str, Any], level_six_revision: int
) -> None:
    before = {**ladder_step("cooper", "level:7", "level:6", -50.0), "seed": 1}
    after = {**before, "levels": {"7": 1, "6": level_six_revision}}
    again = {**after, "seed": 2}
    merged = results["merged"]([before, after, again])
    assert sorted(entry["games"] for entry in merged) == [10, 20]


def test_each_level_that_played_has_its_revision_one_if_unrecorded(results: dict[str, Any]) -> None:
    entry = {**ladder_step("cooper", "level:3", "level:2", 1.0), "levels": {"3": 4}}
    assert results["revisions"](entry) == ((3, 4), (2, 1))
    assert results["levels_in"]("level:8,time=1", "mcts", "level:3") == [8, 3]


def test_the_plan_gives_more_games_where_steps_are_narrow_or_mostly_drawn(
    results: dict[str, Any],
) -> None:
    planned = results["planned"]
    assert planned("level:3", "level:2", "sackson") == (2, 24)
    assert planned("level:5", "level:4", "super") == (2, 12)
    assert planned("level:7", "level:6", "sackson") == (1, 12)
    assert planned("level:7", "level:6", "super") == (1, 12)  # privates: most games decided
    for rules in ("cooper", "classic-turbo", "pow-classic"):
        assert planned("level:7", "level:6", rules) == (2, 12)
    assert planned("level:2", "greedy", "cooper") == (2, 24)
    assert planned("level:1", "random", "cooper") == (1, 24)


def test_the_ladder_plays_only_the_planned_seeds_the_current_levels_have_not(
    results: dict[str, Any], level_six_revision: int
) -> None:
    unplayed = results["unplayed"]
    current = {"levels": {"7": 1, "6": level_six_revision}}
    first = {**ladder_step("cooper", "level:7", "level:6", 20.0), **current, "seed": 1}
    older = {**ladder_step("cooper", "level:7", "level:6", 20.0), "seed": 2}  # revision 1
    elsewhere = {**first, "rules": "sackson", "seed": 2}
    assert unplayed("level:7", "level:6", "cooper", [first, older, elsewhere]) == [(2, 12)]
    assert unplayed("level:7", "level:6", "cooper", [first, {**first, "seed": 2}]) == []
    assert unplayed("level:8", "level:7", "sackson", []) == [(1, 12)]


def step_seed(seed: int, wins: int, draws: int, losses: int) -> dict[str, Any]:
    """One seed of `cooper`'s level 7 against level 6, by the levels as they are."""
    games = wins + draws + losses
    return {
        **ladder_step("cooper", "level:7", "level:6", None),
        "seed": seed,
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "score": (wins + draws / 2) / games,
    }


def decider(verdict: str, games: int = 40) -> dict[str, Any]:
    """A deciding SPRT of `cooper`'s level 7 against level 6 that ended with ``verdict``."""
    sprt = {"elo0": 0.0, "elo1": 50.0, "alpha": 0.05, "beta": 0.05, "llr": 3.0}
    return {
        **step_seed(4, games // 2, games // 4, games // 4),
        "games_planned": 144,
        "sprt": {**sprt, "lower": -2.94, "upper": 2.94, "verdict": verdict},
    }


def test_a_step_its_planned_games_leave_unseparated_is_due_one_further_seed(
    results: dict[str, Any],
) -> None:
    unplayed = results["unplayed"]
    planned = [step_seed(1, 3, 6, 3), step_seed(2, 4, 6, 2)]
    assert unplayed("level:7", "level:6", "cooper", planned[:1]) == [(2, 12)]  # planned first
    assert unplayed("level:7", "level:6", "cooper", planned) == [(3, 12)]
    assert unplayed("level:7", "level:6", "cooper", [*planned, step_seed(3, 4, 7, 1)]) == []
    clear = [step_seed(1, 10, 2, 0), step_seed(2, 10, 2, 0)]
    assert unplayed("level:7", "level:6", "cooper", clear) == []
    baseline = {**step_seed(1, 3, 1, 20), "a": "level:1", "b": "greedy"}
    assert unplayed("level:1", "greedy", "cooper", [baseline]) == []  # a baseline, not a step


def test_a_step_its_further_seed_leaves_unseparated_is_due_a_deciding_sprt(
    results: dict[str, Any],
) -> None:
    needs_decider = results["needs_decider"]
    planned = [step_seed(1, 3, 6, 3), step_seed(2, 4, 6, 2)]
    further = step_seed(3, 4, 7, 1)
    assert needs_decider("level:7", "level:6", "cooper", planned) is None  # further seed first
    assert needs_decider("level:7", "level:6", "cooper", [*planned, further]) == 4
    played = [*planned, further, decider("H1 accepted")]
    assert needs_decider("level:7", "level:6", "cooper", played) is None
    clear = [step_seed(1, 10, 2, 0), step_seed(2, 10, 2, 0), step_seed(3, 9, 3, 0)]
    assert needs_decider("level:7", "level:6", "cooper", clear) is None


def test_a_deciding_sprt_is_kept_apart_from_the_planned_games(
    results: dict[str, Any], page: dict[str, Any]
) -> None:
    planned = [step_seed(1, 3, 6, 3), step_seed(2, 4, 6, 2)]
    sprt = decider("H1 accepted")
    fixed, kept = sorted(results["merged"]([*planned, sprt]), key=page["_ladder_order"])
    assert (fixed["games"], kept) == (24, sprt)
    assert page["command"](sprt) == (
        "bluegray match level:7 level:6 --rules cooper --games 144 --sprt 0,50 --seed 4"
    )
    assert page["_step_name"](sprt) == "`level:7` vs `level:6` (SPRT)"
    assert "H1 accepted after 40 games" in page["_notes"](sprt)


@pytest.mark.parametrize(
    ("verdict", "mark", "clear"), [("H1 accepted", "✓", 1), ("H0 accepted", "≈", 0)]
)
def test_the_overview_counts_a_step_its_deciding_sprt_found_stronger(
    page: dict[str, Any], verdict: str, mark: str, clear: int
) -> None:
    fixed = {**step_seed(1, 3, 6, 3), "elo_low": -60.0}
    lines = page["_ladder_overview"]([fixed, decider(verdict)])
    row = next(line for line in lines if line.startswith("| `level:7`"))
    assert row == f"| `level:7` vs `level:6` | 50% (12) ≈, SPRT {mark} (40) |"
    assert f"In {clear} of the 1 steps measured" in " ".join(lines)


def test_a_further_seed_is_noted_with_why_it_was_played(
    results: dict[str, Any], page: dict[str, Any]
) -> None:
    planned = [step_seed(1, 3, 6, 3), step_seed(2, 4, 6, 2)]
    (step,) = results["merged"](planned)
    assert page["_notes"](step) == ""
    (step,) = results["merged"]([*planned, step_seed(3, 4, 7, 1)])
    assert page["_notes"](step) == (
        "seed 3 was played because the 24 planned games (seeds 1-2) left the step unseparated"
        " (≈), and counts whatever it gave."
    )
    told = {**step_seed(3, 4, 7, 1), "note": "seed 3 was played because of the weather."}
    (step,) = results["merged"]([*planned, told])
    assert page["_notes"](step) == "seed 3 was played because of the weather."
    text = page["page"]([step])
    assert "- `level:7` vs `level:6`: seed 3 was played because of the weather." in text


def test_the_earlier_engines_table_names_each_engine_in_the_reports_order(
    page: dict[str, Any],
) -> None:
    now = result("cooper", "compiled", 8, 2, engine=ENGINE_VERSION)
    first = result("cooper", "compiled", 5, 5, engine=1)
    second = result("super", "compiled", 6, 4, engine=2)
    sackson = result("sackson", "compiled", 9, 1, engine=2)
    text = page["page"]([now, first, second, sackson])
    assert "Earlier engines (1: bluegray 0.1.0's; 2: the pruning, 2026-11-25), the" in text
    earlier = text[text.index("Earlier engines") :]
    rows = [line.split(" | ")[0] for line in earlier.splitlines() if line.startswith("| `")]
    assert rows == ["| `sackson`", "| `cooper`", "| `super`"]  # as MAIN_RULE_SETS orders them
    assert set(page["ENGINES"]) >= set(range(1, ENGINE_VERSION + 1))


def test_a_match_between_engines_is_recorded_and_shown_apart_from_the_tables(
    page: dict[str, Any],
) -> None:
    report = run_script("strength_report.py")
    played = run_match(
        MatchSettings(
            "random",
            "random",
            PRESETS["cooper"],
            games=4,
            max_plies=40,
            sprt=(0, 50),
            limits=Limits(time=0.2),
        )
    ).to_json()
    entry = report["engine_entry"](played, "cooper", (f"engine {ENGINE_VERSION}", "engine 3"))
    assert entry["kind"] == "engines" and entry["sprt"]["verdict"] == played["sprt"]["verdict"]
    assert entry["wins"] + entry["draws"] + entry["losses"] == entry["games"] == 4
    earlier = result("sackson", "compiled", 5, 5, engine=ENGINE_VERSION - 1)
    text = page["page"]([earlier, entry])
    # The tables still show the latest engine measured against greedy and MCTS ...
    assert f"**Engine {ENGINE_VERSION} has not been measured yet**" in text
    # ... and the engines' match has a section of its own, with its SPRT and its command.
    section = text.split(f"## Engine {ENGINE_VERSION} against earlier engines")[1].split("\n## ")[0]
    row = next(line for line in section.splitlines() if line.startswith("| `cooper`"))
    assert f"| engine {ENGINE_VERSION} | engine 3 |" in row
    assert f"{entry['wins']}-{entry['draws']}-{entry['losses']}" in row
    assert f"0,50: {played['sprt']['verdict']}" in row
    assert (
        "engines --engine-3" in section and "--time 0.2 --sprt 0,50 --games 4 --seed 0" in section
    )


def test_the_engines_command_knows_its_engine_players() -> None:
    # The `engines` command plays `engine:` players, which the protocol's module registers: the
    # script did not import it, so every match it played itself failed ("unknown player"). In a
    # process of its own: another test may have registered them in this one.
    check = (
        "import runpy, sys; sys.path.insert(0, sys.argv[1]); "
        "names = runpy.run_path(sys.argv[1] + '/strength_report.py'); "
        "from bluegray.engine.player import find_player; "
        "print(find_player(names['ENGINE_HERE']).name)"
    )
    shown = subprocess.run(
        [sys.executable, "-c", check, str(SCRIPTS)], capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0 and shown.stdout == "engine\n", shown.stderr[-2000:]


def test_the_engines_command_refuses_another_match_s_journal_in_one_line(tmp_path: Path) -> None:
    journal = tmp_path / "engines-sackson-1s.jsonl"
    journal.write_text("the notes of another day\n")
    command = [
        *(sys.executable, str(SCRIPTS / "strength_report.py"), "engines", "--engine-3", "x"),
        *("--rules", "sackson", "--time", "1", "--games", "2", "--journal", str(tmp_path)),
    ]
    refused = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2, refused.stderr[-2000:]
    assert (
        refused.stderr
        == f"strength_report.py: line 1 of {journal} is not JSON: is it a match's journal?\n"
    )
    assert journal.read_text() == "the notes of another day\n"  # left as it was


def test_a_match_stopped_with_ctrl_c_is_not_recorded_and_ends_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A stopped match was recorded as if played whole: its seed counted as played, so the
    # ladder never played the rest of it, and the run went on to the next match.
    whole = run_script("strength_report.py")["whole"]
    match = MatchSettings(
        player_a="greedy", player_b="random", rules=PRESETS["cooper"], games=6, concurrency=1,
        max_plies=60,
    )  # fmt: skip
    path = tmp_path / "ladder-cooper-greedy-vs-random-seed1.jsonl"
    with MatchJournal(path, match) as journal:

        def stop_after_two(game: MatchGame, stats: MatchStats) -> None:
            if stats.games == 2:
                raise KeyboardInterrupt  # what Ctrl-C raises

        stopped = run_journaled(match, journal, stop_after_two)
    assert stopped.interrupted and len(stopped.games) == 2
    with pytest.raises(SystemExit) as ended:
        whole(stopped, path.stem, tmp_path)
    assert ended.value.code == 130
    assert capsys.readouterr().err == (
        f"strength_report.py: {path.stem} stopped after 2 of 6 games, not recorded; its games "
        f"are in {path}: the same command goes on from them\n"
    )
    with MatchJournal(path, match) as journal:
        finished = run_journaled(match, journal)
    assert whole(finished, path.stem, tmp_path) is finished  # a whole match goes on to be recorded


def test_a_match_gone_on_from_its_journal_keeps_its_games_durations_not_its_last_runs_time() -> (
    None
):
    durations = run_script("strength_report.py")["durations"]
    whole = {"seconds": 100.4, "resumed": 0, "games_seconds": 190.6}
    assert durations(whole) == {"games_seconds": 191, "seconds": 100}
    # Its last run took 24 minutes of a match that took hours: that is not the match's time.
    assert durations({**whole, "seconds": 1442.0, "resumed": 173}) == {"games_seconds": 191}
    assert durations({"seconds": 562.2}) == {"seconds": 562}  # an older match's summary


def test_one_ladder_run_plays_the_planned_seeds_then_the_further_seed_they_call_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The run played the planned seeds only: the further seed its help promises waited for the
    # same command to be run a second time.
    ladder = run_script("strength_report.py")["ladder"]
    kept: list[dict[str, Any]] = []
    played: list[tuple[str, int, int]] = []

    def play(kind: str, a: str, b: str, rules: str, games: int, *rest: Any, **_: Any) -> Any:
        seed = rest[1]
        played.append((a, seed, games))
        return {**step_seed(seed, 4, 6, 2), "rules": rules}  # unseparated whatever its seed

    monkeypatch.setitem(ladder.__globals__, "play", play)
    monkeypatch.setitem(ladder.__globals__, "load", lambda: list(kept))
    monkeypatch.setitem(ladder.__globals__, "record", kept.append)
    options = argparse.Namespace(
        rules=["cooper"], only=["level:7"], games=None, seed=1, decide=False, records=None,
        cluster=None, journal=None,
    )  # fmt: skip
    ladder(options)
    assert played == [("level:7", 1, 12), ("level:7", 2, 12), ("level:7", 3, 12)]
    ladder(options)  # run again: nothing left to play without --decide
    assert len(played) == 3


def test_once_measured_the_page_still_says_what_the_engine_changed(page: dict[str, Any]) -> None:
    engines = result("cooper", None, 3, 1) | {
        "kind": "engines",
        "a": f"engine {ENGINE_VERSION}",
        "b": "engine 3",
        "time": 0.2,
        "seed": 0,
    }
    changes = page["ENGINE_CHANGES"][ENGINE_VERSION]
    earlier = result("sackson", "compiled", 5, 5, engine=ENGINE_VERSION - 1)
    unmeasured = page["page"]([earlier, engines])
    assert f"**Engine {ENGINE_VERSION} has not been measured yet**" in unmeasured
    assert page["UNMEASURED"] in unmeasured
    measured = page["page"]([earlier, result("sackson", "compiled", 5, 5), engines])
    assert "has not been measured yet" not in measured and page["UNMEASURED"] not in measured
    section = measured.split(f"## Engine {ENGINE_VERSION} against earlier engines")[1]
    assert section.split("\n## ")[0].count(changes) == 1


def test_recording_a_match_again_keeps_its_note_while_its_result_stands(
    results: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The functions' own globals (run_path hands back a copy of them).
    monkeypatch.setitem(results["record"].__globals__, "RESULTS", tmp_path / "strength.json")
    noted = result("super", "compiled", 16, 0) | {"note": "the losses, looked into"}
    results["record"](noted)
    # The same games recorded again (a run that reads its journal) keep the note ...
    results["record"](result("super", "compiled", 16, 0))
    assert [entry.get("note") for entry in results["load"]()] == ["the losses, looked into"]
    # ... another result of the match replaces it, and the note that spoke of the old one.
    results["record"](result("super", "compiled", 17, 0))
    (entry,) = results["load"]()
    assert entry["wins"] == 17 and "note" not in entry
