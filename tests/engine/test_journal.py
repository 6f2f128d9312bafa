"""A match's journal (``bluegray match --journal FILE``): games written as they finish, a match
that goes on where it stopped, a journal of another match refused, a line cut short by a kill
dropped, and a real ``bluegray match`` process killed and started again."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from bluegray.cli.main import main
from bluegray.engine import ENGINE_VERSION
from bluegray.engine import match as match_module
from bluegray.engine.journal import JournalError, MatchJournal, game_json, run_journaled
from bluegray.engine.match import MatchGame, MatchSettings, run_match
from bluegray.engine.stats import MatchStats
from tests.engine.test_match import settings as match_settings


def settings(**changes: Any) -> MatchSettings:
    """``test_match``'s match (greedy against random in cooper, 6 games), short and in this
    process."""
    return match_settings(**{"concurrency": 1, "max_plies": 60, **changes})


def lines(games: tuple[MatchGame, ...] | list[MatchGame]) -> list[dict[str, Any]]:
    """The games as the journal writes them, without the seconds each took."""
    return [{**game_json(game), "seconds": 0} for game in games]


def journaled(path: Path, match: MatchSettings, stop_after: int | None = None) -> Any:
    """Run ``match`` with its journal at ``path`` (Ctrl-C after ``stop_after`` new games)."""
    with MatchJournal(path, match) as journal:
        new: list[int] = []

        def finished(game: MatchGame, _stats: MatchStats) -> None:
            new.append(game.number)
            if stop_after is not None and len(new) == stop_after:
                raise KeyboardInterrupt

        return run_journaled(match, journal, finished), new


def test_a_stopped_match_goes_on_where_it_was_and_plays_the_games_a_whole_match_plays(
    tmp_path: Path,
) -> None:
    whole = run_match(settings())
    path = tmp_path / "match.jsonl"
    first, played = journaled(path, settings(), stop_after=2)
    assert first.interrupted and played == [1, 2]
    rest, played = journaled(path, settings())
    played_in_rest = played
    assert played == [3, 4, 5, 6]  # the journal's games were not played again
    assert not rest.interrupted and rest.stats == whole.stats
    assert lines(rest.games) == lines(whole.games)
    again, played = journaled(path, settings())
    assert played == [] and again.stats == whole.stats  # all done: nothing to play
    assert len(path.read_text().splitlines()) == 1 + 6
    # How long it took: the last run's own time says nothing of the runs before it (a 200-game
    # match at 1 s a move was once recorded as taking 24 minutes); the games' durations do.
    assert (whole.resumed, first.resumed, rest.resumed, again.resumed) == (0, 0, 2, 6)
    new = sum(game.result.seconds for game in rest.games if game.number in played_in_rest)
    assert again.games_seconds == pytest.approx(first.games_seconds + new, abs=0.01)
    assert again.to_json()["resumed"] == 6 and again.to_json()["games_seconds"] > new > 0


def test_a_journal_of_another_match_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    journaled(path, settings(), stop_after=1)
    before = path.read_bytes()
    with pytest.raises(JournalError, match=r"journal of another match: its seed is 5, this .* 6"):
        MatchJournal(path, settings(seed=6)).open()
    with pytest.raises(JournalError, match="its player_b is 'random', this match's 'greedy'"):
        MatchJournal(path, settings(player_b="greedy")).open()
    identity, *games = path.read_text().splitlines(keepends=True)
    older = json.dumps({**json.loads(identity), "engine": ENGINE_VERSION - 1}) + "\n"
    path.write_text(older + "".join(games))  # a journal of the engine before this one
    with pytest.raises(JournalError, match=f"its engine is {ENGINE_VERSION - 1}, this match's"):
        MatchJournal(path, settings()).open()
    path.write_bytes(before)
    assert path.read_bytes() == before
    # How many processes play the games is no part of the match: it may change.
    with MatchJournal(path, settings(concurrency=2)) as journal:
        assert list(journal.games) == [1]


def test_a_line_cut_short_by_a_kill_is_dropped_and_its_game_played_again(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    journaled(path, settings(), stop_after=3)
    text = path.read_text()
    path.write_text(text[: len(text) - 25])  # the kill came in the middle of game 3's line
    with MatchJournal(path, settings()) as journal:
        assert list(journal.games) == [1, 2]
    assert path.read_text() == text[: text.rindex("\n", 0, len(text) - 1) + 1]
    summary, played = journaled(path, settings())
    assert played == [3, 4, 5, 6] and len(summary.games) == 6


def one_game(directory: Path) -> tuple[Path, str, str]:
    """A journal of the match's first game: its path, its identity's line and the game's."""
    path = directory / "match.jsonl"
    journaled(path, settings(), stop_after=1)
    identity, game = path.read_text().splitlines()
    return path, identity, game


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda game: {**game, "number": 9}, "game number 9 is not one of the match's"),
        (lambda game: {**game, "number": 1, "a_blue": False}, "player A has the wrong side"),
        (lambda game: {**game, "blue": "level:8"}, "was not played by greedy and random"),
        (lambda game: {**game, "moves": ["a1-a9"]}, "not a game of this match"),
        (lambda game: {**game, "winner": "red"}, "not a game of this match"),
    ],
)
def test_a_game_that_is_not_one_of_the_match_is_an_error_naming_its_line(
    tmp_path: Path, change: Any, message: str
) -> None:
    path, identity, game = one_game(tmp_path)
    path.write_text(f"{identity}\n{json.dumps(change(json.loads(game)))}\n")
    with pytest.raises(JournalError, match=f"line 2 of the journal .*: .*{message}"):
        MatchJournal(path, settings()).open()


def test_the_same_game_twice_or_a_file_that_is_no_journal_is_refused(tmp_path: Path) -> None:
    path, identity, game = one_game(tmp_path)
    path.write_text(f"{identity}\n{game}\n{game}\n")
    with pytest.raises(JournalError, match=r"line 3 .*: game 1 again"):
        MatchJournal(path, settings()).open()
    path.write_text('{"games": 6}\n')
    with pytest.raises(JournalError, match="is not a match's journal"):
        MatchJournal(path, settings()).open()
    path.write_text('[Event "a record"]\n')
    with pytest.raises(JournalError, match=r"line 1 of .* is not JSON"):
        MatchJournal(path, settings()).open()


def test_a_match_decided_by_its_journal_plays_nothing_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lopsided = settings(games=40, sprt=(-400.0, 0.0))
    path = tmp_path / "match.jsonl"
    first, _ = journaled(path, lopsided)
    assert first.stopped_early

    def no_more(*_: object) -> None:
        raise AssertionError("a game was played")

    monkeypatch.setattr(match_module, "_play_all", no_more)
    again, played = journaled(path, lopsided)
    assert played == [] and again.stopped_early and again.stats == first.stats


def test_the_command_refuses_another_match_s_journal_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "match.jsonl"
    args = ["match", "greedy", "random", "--games", "2", "--max-plies", "30", "--json"]
    assert main([*args, "--journal", str(path)]) == 0
    capsys.readouterr()
    assert main([*args, "--journal", str(path), "--seed", "1"]) == 2
    error = capsys.readouterr().err
    assert "journal of another match: its seed is 0, this match's 1" in error
    assert error.count("\n") == 1
    for unusable in (tmp_path, tmp_path / "missing" / "match.jsonl"):
        assert main([*args, "--journal", str(unusable)]) == 2
        error = capsys.readouterr().err
        assert "the journal" in error and error.count("\n") == 1, error


def test_a_journal_that_cannot_take_a_game_stops_the_match_in_one_line(tmp_path: Path) -> None:
    """The disk fills up as a game is written (here the file size limit is reached): the match
    stops with one line and exit status 2, and the journal goes on from its last whole line."""
    path = tmp_path / "match.jsonl"
    command = [
        *(sys.executable, "-m", "bluegray", "match", "greedy", "random", "--rules", "cooper"),
        *("--games", "2", "--max-plies", "30", "--json", "--journal", str(path)),
    ]
    subprocess.run(command, capture_output=True, timeout=120, check=True)
    identity = path.read_text().splitlines()[0] + "\n"
    path.unlink()

    def small_files() -> None:  # in the child: a file may not outgrow the identity by much
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails rather than kills
        resource.setrlimit(resource.RLIMIT_FSIZE, (len(identity) + 5, len(identity) + 5))

    full = subprocess.run(
        command, capture_output=True, text=True, timeout=120, preexec_fn=small_files
    )
    assert full.returncode == 2, full.stderr
    assert full.stderr.count("\n") == 1, full.stderr
    assert f"cannot write the journal {path}: File too large" in full.stderr
    assert path.read_text().startswith(identity)
    again = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(again.stdout)["games"] == 2
    assert len(path.read_text().splitlines()) == 3  # the line cut short was dropped


def test_a_killed_match_process_goes_on_from_its_journal(tmp_path: Path) -> None:
    path = tmp_path / "match.jsonl"
    command = [
        sys.executable,
        "-m",
        "bluegray",
        "match",
        "level:1",
        "random",
        "--rules",
        "cooper",
        "--games",
        "16",
        "--max-plies",
        "80",
        "--concurrency",
        "2",
        "--json",
        "--journal",
        str(path),
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, start_new_session=True)
    deadline = time.monotonic() + 120
    while not path.exists() or len(path.read_text().splitlines()) < 1 + 4:
        assert process.poll() is None, "the match ended before it was killed"
        assert time.monotonic() < deadline, "no four games within 120 s"
        time.sleep(0.05)  # poll interval: until four games are in the journal
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    before = path.read_text()
    kept = before[: before.rindex("\n") + 1].splitlines()[1:]  # whole lines: the games kept
    again = subprocess.run(command, capture_output=True, text=True, timeout=600, check=True)
    summary = json.loads(again.stdout)
    assert summary["games"] == 16
    after = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    assert sorted(game["number"] for game in after) == list(range(1, 17))
    assert [json.loads(line) for line in kept] == after[: len(kept)]  # left as they were
    assert f"{len(kept)} of the 16 games read from the journal" in again.stderr
