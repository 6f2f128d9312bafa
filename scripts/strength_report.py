"""Measure the engine's strength with the match runner and write docs/strength.md.

    python scripts/strength_report.py ladder --rules sackson          # the planned games
    python scripts/strength_report.py ladder --rules cooper --only level:7 --games 12 --seed 3
    python scripts/strength_report.py ladder --rules cooper --only level:7 --decide  # the SPRT
    python scripts/strength_report.py versus --rules sackson cooper --time 1 --games 20
    python scripts/strength_report.py render            # docs/strength.md from the results

``ladder`` plays each level against the one below it (and random against level 1, greedy against
levels 1 and 2), with each level's own time: the games planned for each match (``planned``)
that the current levels have not played yet, or with ``--games`` one seed of them; with
``--decide``, the deciding SPRT of each step that its planned games and further seed left
unseparated (``needs_decider``). ``versus`` plays the top level at ``--time`` seconds a move
against greedy and against MCTS given the same time. Every match's summary is kept in
docs/data/strength.json, so runs can be added to over several sessions; ``render`` turns them
into the report, chaining the ladder's Elo differences from level 1 (0). ``--records DIR`` also
keeps each match's games as a PGN file, to replay how they were won and drawn.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import math
import os
import re
import time
from pathlib import Path
from typing import Any, Final

from bluegray.engine import ENGINE_VERSION
from bluegray.engine.levels import LEVELS, TOP_LEVEL
from bluegray.engine.limits import Limits
from bluegray.engine.match import MatchSettings, run_match
from bluegray.engine.players import parse_spec
from bluegray.engine.search import Searcher, warm_up
from bluegray.engine.stats import H1_ACCEPTED, elo_estimate
from bluegray.record import write_records
from bluegray.rules import PRESETS, Impasse, RuleSet, Soldiers

REPOSITORY = Path(__file__).resolve().parents[1]
RESULTS = REPOSITORY / "docs" / "data" / "strength.json"
REPORT = REPOSITORY / "docs" / "strength.md"


def _span(levels: list[int]) -> str:
    """A run of levels as the report names it: ``1-6``."""
    return f"{min(levels)}-{max(levels)}"


FIXED_DEPTH: Final = _span([n for n in LEVELS if LEVELS[n].fixed_depth])
"""The levels that search to a fixed depth and now and then slip."""
TIMED: Final = _span([n for n in LEVELS if LEVELS[n].limits.time is not None])
"""The levels that search for a time a move."""
CLUSTER_HELP = (
    "play the games on the Ray cluster at this address (the head's HOST:PORT from 'ray start "
    "--head', or auto; the cluster extra, and bluegray on every node), with the same results "
    "as here; each match's result is saved as it finishes"
)
RECORDS_HELP = "also write each match's game records to DIR (one PGN file a match)"


def draws_dominate(rules: RuleSet) -> bool:
    """Whether neighbouring levels draw most of their games: guards on both sides (a guard on a
    captain's path holds it) and an impasse that is a draw (`cooper`, `classic-turbo`,
    `pow-classic`)."""
    return rules.soldiers is Soldiers.GUARD and rules.impasse is Impasse.DRAW


def planned(a: str, b: str, rules: str) -> tuple[int, int]:
    """How many seeds a ladder match is planned at, and games a seed (PLAN_TEXT says it in
    words): more where a step is narrow or most games are drawn."""
    level = _level_of(a) or 0
    if b in ("random", "greedy"):
        return (2 if level == 2 else 1), 24
    if level <= 4:
        return 2, 24
    if level == 5 or draws_dominate(PRESETS[rules]):
        return 2, 12
    return 1, 12


PLAN_TEXT: Final = (
    "48 for levels 2-4, 24 for level 5, and 12 for levels 6-8 (24 in those three rule sets)"
)
"""The ladder's plan (``planned``) in the report's words."""

DECIDER_ELO: Final = (0.0, 50.0)
"""The SPRT that decides a step its planned games and further seed leave unseparated: H0 "the
higher level is no stronger" against H1 "it is 50 Elo stronger" (alpha = beta = 0.05)."""
DECIDER_GAMES: Final = 144
"""The most games the deciding SPRT plays: a step it has not decided by then stays unseparated."""


def load() -> list[dict[str, Any]]:
    if RESULTS.exists():
        data: list[dict[str, Any]] = json.loads(RESULTS.read_text(encoding="utf-8"))
        return data
    return []


def save(results: list[dict[str, Any]]) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


def play(
    kind: str,
    a: str,
    b: str,
    rules: str,
    games: int,
    seconds: float | None,
    seed: int,
    records: Path | None = None,
    sprt: tuple[float, float] | None = None,
    cluster: str | None = None,
) -> dict[str, Any]:
    """Play one match and return its summary with what it measured; with ``records``, write
    its games there too (one PGN file a match), so that its draws and wins can be replayed.
    With ``sprt`` the match stops once that SPRT is decided (the summary keeps its verdict).
    With ``cluster`` (a Ray cluster's address) its games are played there, with the same
    results as here."""
    settings = MatchSettings(
        player_a=a,
        player_b=b,
        rules=PRESETS[rules],
        games=games,
        limits=None if seconds is None else Limits(time=seconds),
        concurrency=os.cpu_count() or 1,
        seed=seed,
        sprt=sprt,
        cluster=cluster,
    )
    started = time.perf_counter()
    summary = run_match(settings)
    if records is not None:
        records.mkdir(parents=True, exist_ok=True)
        name = re.sub(r"[^A-Za-z0-9.]+", "-", f"{kind}-{rules}-{a}-vs-{b}-seed{seed}")
        path = records / f"{name}.pgn"
        path.write_text(write_records(summary.records()), encoding="utf-8")
        print(f"wrote {len(summary.games)} game records to {path}", flush=True)
    data = summary.to_json()
    entry = {
        "kind": kind,
        "a": a,
        "b": b,
        "rules": rules,
        "time": seconds,
        "games": data["games"],
        "score": data["score"],
        "elo": data["elo"],
        "elo_low": data["elo_low"],
        "elo_high": data["elo_high"],
        "wins": data["a"]["wins"],
        "draws": data["a"]["draws"],
        "losses": data["a"]["losses"],
        "reasons": data["reasons"],
        "average_plies": data["average_plies"],
        "seconds": round(time.perf_counter() - started),
        "date": time.strftime("%Y-%m-%d"),
        "seed": seed,
        "search": search_core(rules),
        "engine": ENGINE_VERSION,
        "levels": {str(level): LEVELS[level].revision for level in _levels_in(a, b)},
    }
    if sprt is not None:
        entry["games_planned"] = games
        entry["sprt"] = data["sprt"]
    print(
        f"{kind} {rules}: {a} vs {b}: {entry['wins']}-{entry['draws']}-{entry['losses']} "
        f"score {entry['score']:.3f} elo {entry['elo']} [{entry['elo_low']}, {entry['elo_high']}]"
        f" ({entry['seconds']} s)"
        + (
            ""
            if sprt is None
            else f"; SPRT {data['sprt']['verdict']}, LLR {data['sprt']['llr']:.2f}"
        ),
        flush=True,
    )
    return entry


def search_core(rules: str) -> str:
    """Which kernel the engine players of this run use: ``compiled`` (numba) or ``python`` (the
    match's workers wait for the compiled kernel when numba is installed, as this does)."""
    warm_up(wait=True)
    return "compiled" if Searcher(PRESETS[rules], hash_entries=1024).is_compiled else "python"


def record(entry: dict[str, Any]) -> None:
    """Keep a match's result, replacing an earlier one of the same pairing and settings (under a
    lock, so that several runs at once can share the results file)."""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with open(RESULTS.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        results = [
            old
            for old in load()
            if (*_key(old), old.get("seed", 1)) != (*_key(entry), entry.get("seed", 1))
        ]
        results.append(entry)
        save(results)


def ladder(args: argparse.Namespace) -> None:
    """Play the ladder's matches: with --games, one seed of each; without, each match's planned
    seeds (``planned``) that the current engine and levels have not played yet."""
    pairs = [("level:1", "random"), ("level:1", "greedy"), ("level:2", "greedy")]
    pairs += [(f"level:{n + 1}", f"level:{n}") for n in range(1, TOP_LEVEL)]
    for rules in args.rules:
        for a, b in pairs:
            if args.only and a not in args.only:
                continue
            if args.games is not None:
                record(
                    play(
                        "ladder", a, b, rules, args.games, None, args.seed, args.records,
                        cluster=args.cluster,
                    )
                )  # fmt: skip
                continue
            if args.decide:
                seed = needs_decider(a, b, rules, load())
                if seed is not None:
                    record(
                        play(
                            "ladder",
                            a,
                            b,
                            rules,
                            DECIDER_GAMES,
                            None,
                            seed,
                            args.records,
                            sprt=DECIDER_ELO,
                            cluster=args.cluster,
                        )
                    )
                continue
            for seed, games in unplayed(a, b, rules, load()):
                record(
                    play(
                        "ladder", a, b, rules, games, None, seed, args.records, cluster=args.cluster
                    )
                )


def unplayed(a: str, b: str, rules: str, results: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """The planned seeds of a ladder match (and their games) that the current engine and levels
    have not played."""
    seeds, games = planned(a, b, rules)
    played = {
        entry.get("seed", 1)
        for entry in results
        if (entry["kind"], entry["a"], entry["b"], entry["rules"]) == ("ladder", a, b, rules)
        and _is_current(entry)
    }
    return [(seed, games) for seed in range(1, seeds + 1) if seed not in played]


def needs_decider(a: str, b: str, rules: str, results: list[dict[str, Any]]) -> int | None:
    """The seed of a ladder step's deciding SPRT if the step is due one (None if not): its
    planned seeds and the one further seed were played by the current engine and levels and
    left it unseparated, and no deciding SPRT has been played. The SPRT's games are new ones,
    from the seed after the further seed."""
    further = planned(a, b, rules)[0] + 1
    step = [
        entry
        for entry in results
        if (entry["kind"], entry["a"], entry["b"], entry["rules"]) == ("ladder", a, b, rules)
        and _is_current(entry)
    ]
    if any(_is_decider(entry) for entry in step):
        return None
    fixed = merged(step)
    if len(fixed) != 1 or not {seed for seed, _ in fixed[0].get("parts", [])} >= set(
        range(1, further + 1)
    ):
        return None
    return None if _separated(fixed[0]) else further + 1


def versus(args: argparse.Namespace) -> None:
    top = f"level:{TOP_LEVEL}"
    for rules in args.rules:
        for opponent in args.opponents:
            record(
                play(
                    "versus", top, opponent, rules, args.games, args.time, args.seed,
                    args.records, cluster=args.cluster,
                )
            )  # fmt: skip


def command(entry: dict[str, Any]) -> str:
    """The match runner's command lines that play a recorded match again (one per seed)."""
    limit = "" if entry["time"] is None else f" --time {entry['time']:g}"
    if _is_decider(entry):
        elo0, elo1 = entry["sprt"]["elo0"], entry["sprt"]["elo1"]
        limit += f" --sprt {elo0:g},{elo1:g}"
        parts = [(entry.get("seed", 1), entry["games_planned"])]
    else:
        parts = entry.get("parts", [(entry.get("seed", 1), entry["games"])])
    return "\n    ".join(
        f"bluegray match {entry['a']} {entry['b']} --rules {entry['rules']} "
        f"--games {games}{limit} --seed {seed}"
        for seed, games in parts
    )


def _elo(value: float | None) -> str:
    if value is None or math.isinf(value):
        return "∞" if value is None or value > 0 else "-∞"
    return f"{value:+.0f}"


def _pairing(entry: dict[str, Any]) -> tuple[Any, ...]:
    """What a match measured, whichever search played it: its players, rules and time, the
    engine and the revisions of its levels."""
    return (
        entry["kind"],
        entry["a"],
        entry["b"],
        entry["rules"],
        entry["time"],
        _engine(entry),
        _revisions(entry),
        _is_decider(entry),
    )


def _is_decider(entry: dict[str, Any]) -> bool:
    """Whether a match is a step's deciding SPRT, kept apart from its fixed-length seeds (an
    SPRT stops when the games favour one side, so its score is no estimate to add to theirs)."""
    return entry.get("sprt") is not None


def _decided_stronger(entry: dict[str, Any]) -> bool:
    """Whether a deciding SPRT accepted H1: the higher level is stronger."""
    return bool(entry["sprt"]["verdict"] == H1_ACCEPTED)


def _separated(entry: dict[str, Any]) -> bool:
    """Whether a fixed-length match shows A stronger: its Elo interval lies above 0."""
    return entry["elo_low"] is not None and entry["elo_low"] > 0


def _decider_note(entry: dict[str, Any]) -> str:
    """What a deciding SPRT did, in the report's words."""
    sprt = entry["sprt"]
    return (
        f"the deciding SPRT (H0 {sprt['elo0']:g} Elo against H1 {sprt['elo1']:+g}, alpha = "
        f"beta = {sprt['alpha']:g}, at most {entry['games_planned']} new games from seed "
        f"{entry.get('seed', 1)}): {sprt['verdict']} after {entry['games']} games (log-likelihood "
        f"ratio {sprt['llr']:.2f}, bounds {sprt['lower']:.2f} and {sprt['upper']:.2f}). An SPRT "
        "stops when its games favour one side, so its score is no estimate of the step: the "
        "ratings below chain the planned games only."
    )


def _match_name(entry: dict[str, Any], a: str, b: str) -> str:
    """A ladder match as its table names it, the deciding SPRT marked."""
    return f"{a} vs {b}" + (" (SPRT)" if _is_decider(entry) else "")


def _step_name(entry: dict[str, Any]) -> str:
    """A ladder match as its rule set's table names it: `level:7` vs `level:6`."""
    return _match_name(entry, f"`{entry['a']}`", f"`{entry['b']}`")


def _key(entry: dict[str, Any]) -> tuple[Any, ...]:
    """A match's pairing and search: matches with one key are seeds of one measurement."""
    return (*_pairing(entry), _search(entry))


def _search(entry: dict[str, Any]) -> str:
    # Results from before the compiled search core were all the Python search's.
    return str(entry.get("search", "python"))


def _engine(entry: dict[str, Any]) -> int:
    # Results from before engine versions were recorded were all the first engine's.
    return int(entry.get("engine", 1))


def _levels_in(*specs: str) -> list[int]:
    """The levels among the players of a match (none for greedy, MCTS or random)."""
    return [level for level in map(_level_of, specs) if level is not None]


def _revisions(entry: dict[str, Any]) -> tuple[tuple[int, int], ...]:
    """``(level, revision)`` for each level that played. Results from before the revisions were
    recorded were all played by each level's first revision."""
    recorded = entry.get("levels", {})
    return tuple(
        (level, int(recorded.get(str(level), 1))) for level in _levels_in(entry["a"], entry["b"])
    )


def _is_current(entry: dict[str, Any], engine: int = ENGINE_VERSION) -> bool:
    """Whether the engine as shipped played this match: the current engine (or ``engine``, the
    one the page shows), and each level as it is now (a level whose settings changed has a new
    revision)."""
    return _engine(entry) == engine and all(
        level in LEVELS and LEVELS[level].revision == revision
        for level, revision in _revisions(entry)
    )


def merged(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per pairing and settings: matches played with different seeds (more openings)
    add up, and the score and Elo interval are computed from all their games."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for entry in results:
        groups.setdefault(_key(entry), []).append(entry)
    combined = []
    for entries in groups.values():
        if len(entries) == 1:
            combined.append(entries[0])
            continue
        wins = sum(e["wins"] for e in entries)
        draws = sum(e["draws"] for e in entries)
        losses = sum(e["losses"] for e in entries)
        games = wins + draws + losses
        estimate = elo_estimate([1.0] * wins + [0.5] * draws + [0.0] * losses)
        reasons: dict[str, int] = {}
        for e in entries:
            for reason, count in e["reasons"].items():
                reasons[reason] = reasons.get(reason, 0) + count
        combined.append(
            {
                **entries[0],
                "note": _sentences([e["note"] for e in entries if e.get("note")]),
                "games": games,
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "score": (wins + draws / 2) / games,
                "elo": estimate.elo,
                "elo_low": estimate.low,
                "elo_high": estimate.high,
                "reasons": reasons,
                "average_plies": sum(e["average_plies"] * e["games"] for e in entries) / games,
                "parts": [(e.get("seed", 1), e["games"]) for e in entries],
            }
        )
    return combined


ENGINE_NOTES: Final = {
    3: (
        "Engine 3 (2026-11-26) searches the same tree with either kernel, the compiled and the"
        " plain one: the compiled search lists moves in the rules core's order and its node"
        " limit counts as the plain one's, so it breaks ties between equally ordered moves"
        " differently from engine 2, and a fixed-depth level plays another move in about 3% of"
        " positions (3 of 90 sampled at depths 3-5). The ladder and the top level against greedy"
        " and MCTS are to be measured again (`ladder --cluster`, `versus --cluster`)."
    ),
}
"""What each engine changed, for the page while it has not been measured."""


def render(args: argparse.Namespace) -> None:
    results = merged(load())
    shown = shown_engine(results)
    lines = [
        "# Strength",
        "",
        "Measured with the match runner (`bluegray match`) on a shared 2-core machine; every match",
        "alternates colours over pairs of games from a book of balanced random openings. Elo",
        "differences come with 95% intervals. Reproduce any line with the command under its",
        "table, or all of them with `python scripts/strength_report.py ladder|versus` (results",
        "are kept in `docs/data/strength.json`; `render` rewrites this page from them). Matches",
        "limited by time ran while other jobs used the same cores, so each side searched less",
        "than its nominal time would give on an idle machine (both sides alike). The search",
        "column says which search the engine ran on: `compiled` (the numba core, five to",
        "eight times as many positions a second when these matches were played) or `python`",
        "(the plain search, before the compiled core existed or without numba). The matches",
        "recorded up to 2026-11-26 were played before the compiled search became about twice",
        "as fast that day ([benchmarks](benchmarks.md)), searching the same positions in the",
        "same order: the levels that search for a time now see about twice as many positions",
        "a move as they did in these games. The engine column says which engine played: the",
        f"tables show the current one ({ENGINE_VERSION}: `bluegray.engine.ENGINE_VERSION`, one",
        "more whenever a change to the search, the evaluation or the levels makes earlier",
        "results stale) and list earlier engines' results against greedy and MCTS apart.",
        "",
    ]
    if shown != ENGINE_VERSION:
        lines += [
            f"**Engine {ENGINE_VERSION} has not been measured yet**: the tables below are",
            f"engine {shown}'s, the latest measured. {ENGINE_NOTES.get(ENGINE_VERSION, '')}",
            "",
        ]
    versus_rows = [r for r in results if r["kind"] == "versus"]
    if versus_rows:
        lines += [
            "## The top level against greedy and MCTS",
            "",
            f"Level {TOP_LEVEL} (the strongest) at the given seconds per move against the one-ply",
            "greedy player and against the MCTS player given the same time per move. The",
            "targets: at least 95% against greedy and 75% against MCTS. In the rule sets with",
            "guards on both sides and impasses drawn (`cooper`, `classic`, the turbo `classic`",
            "games) strong play draws most games ([70-85% of self-play",
            "games](game-statistics.md)): a weaker player that keeps a guard on the captain's",
            "path can hold a draw by repetition or no progress, so scores there stay nearer 50%",
            "than the players' strengths alone would give.",
            "",
            *_verdicts(versus_rows, shown),
            VERSUS_HEADER,
            VERSUS_RULE,
        ]
        current, earlier = superseded(versus_rows, shown)
        lines += [_versus_row(r) for r in current]
        noted = [r for r in current if r.get("note")]
        if noted:
            lines += ["", *(f"- `{r['rules']}` against `{r['b']}`: {r['note']}" for r in noted)]
        lines += ["", "Commands:", ""]
        lines += [f"    {command(r)}" for r in current]
        if earlier:
            lines += [
                "",
                "Earlier engines (1: bluegray 0.1.0's), the Python search's results only where",
                "that engine did not play the match with the compiled search:",
                "",
                VERSUS_HEADER,
                VERSUS_RULE,
                *(_versus_row(r) for r in earlier),
            ]
            noted = [r for r in earlier if r.get("note")]
            lines += ["", *(f"- `{r['rules']}` against `{r['b']}`: {r['note']}" for r in noted)]
        lines.append("")
    ladders = [r for r in results if r["kind"] == "ladder"]
    current_ids = {id(r) for r in superseded(ladders, shown)[0]}
    # The ladders show the current engine only, the baselines first, then up the levels.
    ladder_rows = sorted((r for r in ladders if id(r) in current_ids), key=_ladder_order)
    lines += _ladder_overview(ladder_rows, shown)
    for rules in sorted({r["rules"] for r in ladder_rows}, key=_rules_order):
        rows = [r for r in ladder_rows if r["rules"] == rules]
        lines += [
            f"## The level ladder: `{rules}`",
            "",
            "Each level against the one below it, each with its own search limits (levels "
            f"{FIXED_DEPTH}",
            f"a fixed depth with occasional mistakes, {TIMED} a time per move).",
            "",
            "| match | search | games | W-D-L | score | Elo difference (95% interval) |",
            "|---|---|---|---|---|---|",
        ]
        for r in rows:
            lines.append(f"| {_step_name(r)} | {_search(r)} | " + _outcome_cells(r))
        noted = [r for r in rows if r.get("note") or _is_decider(r)]
        if noted:
            lines += ["", *(f"- {_step_name(r)}: {_notes(r)}" for r in noted)]
        lines += ["", "Commands:", ""]
        lines += [f"    {command(r)}" for r in rows]
        chain = _chain([r for r in rows if not _is_decider(r)])
        if chain:
            lines += [
                "",
                "Ratings chained along the ladder from level 1 = 0 (each step's interval adds",
                "up, so the top of the ladder is the least certain; after a step won without",
                "a loss or a draw the ratings are lower bounds, from the low end of its",
                "interval):",
                "",
                "| player | Elo | description |",
                "|---|---|---|",
            ]
            for name, elo, at_least in chain:
                level = _level_of(name)
                text = LEVELS[level].description if level else name
                rating = f"at least {elo:+.0f}" if at_least else f"{elo:+.0f}"
                lines.append(f"| `{name}` | {rating} | {text} |")
        lines.append("")
    lines += _revised_levels(ladders, shown)
    REPORT.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {REPORT}")


def _revised_levels(ladders: list[dict[str, Any]], engine: int = ENGINE_VERSION) -> list[str]:
    """The current engine's ladder matches played by another revision of a level than the
    current one (an earlier one, or one tried and not kept): kept, so that what a change to a
    level did can be read against the levels as they are."""
    rows = sorted(
        (r for r in superseded(ladders, engine)[1] if _engine(r) == engine),
        key=lambda r: (_rules_order(r["rules"]), _ladder_order(r)),
    )
    if not rows:
        return []
    lines = [
        "## Other revisions of the levels",
        "",
        f"Engine {engine}'s ladder matches played by a level with other settings than",
        "it has now: earlier ones, or ones tried and not kept (`LevelConfig.revision` in",
        "`bluegray.engine.levels`; the revision of each level that played is in brackets, and",
        "[the engine's page](engine.md#levels) says what each revision was). The ladders above",
        "do not count them.",
        "",
        "| rule set | match | games | W-D-L | score | Elo difference (95% interval) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        revision = {f"level:{level}": f" (rev. {rev})" for level, rev in _revisions(r)}
        a, b = (f"`{spec}`{revision.get(spec, '')}" for spec in (r["a"], r["b"]))
        lines.append(f"| `{r['rules']}` | {_match_name(r, a, b)} | " + _outcome_cells(r))
    notes = dict.fromkeys(_notes(r) for r in rows if r.get("note") or _is_decider(r))  # once each
    if notes:
        lines += ["", *(f"- {note}" for note in notes)]
    return [*lines, ""]


MAIN_RULE_SETS: Final = ("sackson", "cooper", "super", "classic-turbo", "pow-classic")
"""The rule sets the report covers, in the order it shows them."""


def _drawn_rule_sets() -> str:
    """The main rule sets where draws dominate, as the report names them."""
    return ", ".join(f"`{name}`" for name in MAIN_RULE_SETS if draws_dominate(PRESETS[name]))


def _rules_order(rules: str) -> tuple[int, str]:
    known = MAIN_RULE_SETS.index(rules) if rules in MAIN_RULE_SETS else len(MAIN_RULE_SETS)
    return known, rules


def _ladder_overview(rows: list[dict[str, Any]], engine: int = ENGINE_VERSION) -> list[str]:
    """One table of every step of the ladder in every rule set: the higher level's score, and
    whether the games played show it stronger (the Elo interval's low end above 0)."""
    current, _ = superseded(rows, engine)
    found = {(r["rules"], r["a"], r["b"]): r for r in current if not _is_decider(r)}
    deciders = {(r["rules"], r["a"], r["b"]): r for r in current if _is_decider(r)}
    rule_sets = sorted({r["rules"] for r in current}, key=_rules_order)
    steps = [(f"level:{n + 1}", f"level:{n}") for n in range(1, TOP_LEVEL)]
    if not rule_sets:
        return []
    lines = [
        "## The level ladder at a glance",
        "",
        "Each level against the one below it, in each rule set: the higher level's score,",
        "✓ where it is clearly stronger (the 95% interval of the Elo difference lies above 0),",
        "≈ where the games played do not yet separate the two. Levels "
        f"{FIXED_DEPTH} search to a fixed",
        f"depth and now and then slip; levels {TIMED} search for a time a move. Where guards "
        "stand on",
        f"both sides and an impasse is a draw ({_drawn_rule_sets()}), many",
        "games between neighbouring levels are drawn, by the no-progress rule or repetition: the",
        "weaker level keeps a guard in the captain's path and the stronger cannot break through,",
        "so the scores there stay nearer 50% and need more games to separate. Games planned",
        f"for each step: {PLAN_TEXT}.",
        "Where a step's planned games left it ≈, one further seed was played and counted",
        "whatever it gave (the notes under each rule set's ladder say which). Where that",
        'still left it ≈, an SPRT over new games decides it: H0 "no stronger" '
        f"({DECIDER_ELO[0]:g} Elo) against",
        f'H1 "{DECIDER_ELO[1]:g} Elo stronger", alpha = beta = 0.05, at most {DECIDER_GAMES} '
        'games; "SPRT ✓" where it',
        "accepted H1, with the games it took in brackets.",
        "",
        "| step | " + " | ".join(f"`{rules}`" for rules in rule_sets) + " |",
        "|---|" + "---|" * len(rule_sets),
    ]
    clear = measured = 0
    for a, b in steps:
        cells = []
        for rules in rule_sets:
            r = found.get((rules, a, b))
            if r is None:
                cells.append("-")
                continue
            measured += 1
            cell = f"{100 * r['score']:.0f}% ({r['games']}) {'✓' if _separated(r) else '≈'}"
            decider = deciders.get((rules, a, b))
            if decider is not None:
                mark = "✓" if _decided_stronger(decider) else "≈"
                cell += f", SPRT {mark} ({decider['games']})"
            clear += _separated(r) or (decider is not None and _decided_stronger(decider))
            cells.append(cell)
        lines.append(f"| `{a}` vs `{b}` | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"In {clear} of the {measured} steps measured the higher level is clearly stronger",
        "(games played in brackets); the tables below give each match's wins, draws and losses",
        "and the commands to play it again.",
        "",
    ]
    return lines


VERSUS_HEADER: Final = (
    "| rule set | player | opponent | engine | search | s/move | games | W-D-L | score "
    "| Elo (95% interval) |"
)
VERSUS_RULE: Final = "|---|---|---|---|---|---|---|---|---|---|"


def _versus_row(r: dict[str, Any]) -> str:
    return (
        f"| `{r['rules']}` | `{r['a']}` | `{r['b']}` | {_engine(r)} | {_search(r)} | "
        f"{r['time']:g} | " + _outcome_cells(r)
    )


def _outcome_cells(r: dict[str, Any]) -> str:
    """A match's last cells in every table: games, W-D-L, score and Elo with its interval."""
    return (
        f"{r['games']} | {r['wins']}-{r['draws']}-{r['losses']} | {100 * r['score']:.1f}% | "
        f"{_elo(r['elo'])} ({_elo(r['elo_low'])} to {_elo(r['elo_high'])}) |"
    )


def superseded(
    rows: list[dict[str, Any]], engine: int = ENGINE_VERSION
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Split results into the current engine's (``ENGINE_VERSION``, or ``engine``: the one the
    page shows; its levels' current revisions) and the others, each sorted by opponent, rule set
    and player. Where one engine played a match with both searches, only the compiled search's
    result is kept (the engine as shipped runs it)."""
    compiled = {_pairing(r) for r in rows if _search(r) == "compiled"}
    kept = sorted(
        (r for r in rows if not (_search(r) == "python" and _pairing(r) in compiled)),
        key=lambda r: (r["b"], r["rules"], r["a"], -_engine(r)),
    )
    return (
        [r for r in kept if _is_current(r, engine)],
        [r for r in kept if not _is_current(r, engine)],
    )


def shown_engine(results: list[dict[str, Any]]) -> int:
    """The engine the page's tables show: the current one once it has any result, else the
    latest earlier one that has (until the current engine is measured, its predecessor's
    results are the best there is, marked as such)."""
    engines = {_engine(r) for r in results if _engine(r) <= ENGINE_VERSION}
    return ENGINE_VERSION if ENGINE_VERSION in engines or not engines else max(engines)


TARGETS: Final = {"greedy": 0.95, "mcts": 0.75}
"""The score the top level should reach against each opponent."""


def _verdicts(rows: list[dict[str, Any]], engine: int = ENGINE_VERSION) -> list[str]:
    """One line per opponent: how many rule sets reach the target score (by the current
    results: the shown engine's, the compiled search's where a rule set has one)."""
    lines = []
    current, _ = superseded(rows, engine)
    for opponent, target in TARGETS.items():
        latest: dict[str, dict[str, Any]] = {}
        # One row per rule set: the compiled search's result where there is one.
        for r in current:
            if r["b"] != opponent or r["a"] != f"level:{TOP_LEVEL}":
                continue
            if r["rules"] not in latest or _search(r) == "compiled":
                latest[r["rules"]] = r
        mine = list(latest.values())
        if not mine:
            continue
        reached = [r["rules"] for r in mine if r["score"] >= target]
        missed = [f"`{r['rules']}` ({100 * r['score']:.0f}%)" for r in mine if r["score"] < target]
        text = f"- Against `{opponent}`: {len(reached)} of {len(mine)} rule sets reach {target:.0%}"
        lines.append(text + (f"; below it: {', '.join(missed)}." if missed else "."))
    return [*lines, ""] if lines else []


def _level_of(spec: str) -> int | None:
    """The level a player spec plays at (``level:7,time=1`` → 7), None for other players."""
    parsed = parse_spec(spec)
    return int(parsed.options[""]) if parsed.name == "level" else None


def _ladder_order(entry: dict[str, Any]) -> tuple[bool, int, bool, str, bool]:
    """Where a ladder match stands in its table: the matches against ``random`` and ``greedy``
    first, then each level against the one below, from the bottom up (a step's deciding SPRT
    after its planned games)."""
    level = _level_of(entry["a"]) or 0
    return (
        entry["b"].startswith("level:"),
        level,
        entry["b"] != "random",
        entry["b"],
        _is_decider(entry),
    )


def _notes(entry: dict[str, Any]) -> str:
    """A match's notes: a deciding SPRT's own account, then any note kept with its result."""
    notes = [_decider_note(entry)] if _is_decider(entry) else []
    notes += [entry["note"]] if entry.get("note") else []
    return _sentences(notes)


def _sentences(notes: list[str]) -> str:
    """Notes joined as sentences: each after the first starts with a capital."""
    return " ".join(notes[:1] + [note[:1].upper() + note[1:] for note in notes[1:]])


def _chain(rows: list[dict[str, Any]]) -> list[tuple[str, float, bool]]:
    """Ratings from level 1 = 0 up the ladder: ``(player, Elo, at least)``. A step won without
    a loss or draw has an infinite difference, so it adds the lower end of its interval and
    the ratings from there on are lower bounds."""
    step = {r["b"]: (r["a"], r["elo"], r["elo_low"]) for r in rows if r["b"].startswith("level:")}
    chain = [("level:1", 0.0, False)]
    current = "level:1"
    while current in step:
        nxt, diff, low = step[current]
        bound = chain[-1][2]
        if diff is None or math.isinf(diff):
            if low is None or math.isinf(low):
                break
            diff, bound = low, True
        chain.append((nxt, chain[-1][1] + diff, bound))
        current = nxt
    return chain if len(chain) > 1 else []


def main() -> None:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    lad = commands.add_parser("ladder", help="each level against the one below")
    lad.add_argument("--rules", nargs="+", default=["sackson"])
    lad.add_argument(
        "--games",
        type=int,
        help="play one seed of this many games a match (default: the planned seeds not played)",
    )
    lad.add_argument("--seed", type=int, default=1, help="the seed of --games (default 1)")
    lad.add_argument("--only", nargs="*", help="only the matches of these players (as A)")
    lad.add_argument(
        "--decide",
        action="store_true",
        help=(
            "play the deciding SPRT of each step its planned games and further seed left "
            f"unseparated (H0 {DECIDER_ELO[0]:g} Elo against H1 {DECIDER_ELO[1]:+g}, at most "
            f"{DECIDER_GAMES} games)"
        ),
    )
    lad.add_argument("--records", type=Path, metavar="DIR", help=RECORDS_HELP)
    lad.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)
    lad.set_defaults(run=ladder)
    ver = commands.add_parser("versus", help="the top level against greedy and MCTS")
    ver.add_argument(
        "--rules", nargs="+", default=["sackson", "cooper", "super", "classic-turbo", "pow-classic"]
    )
    ver.add_argument("--opponents", nargs="+", default=["greedy", "mcts"])
    ver.add_argument("--time", type=float, default=1.0, help="seconds per move for both")
    ver.add_argument("--games", type=int, default=20)
    ver.add_argument("--seed", type=int, default=1)
    ver.add_argument("--records", type=Path, metavar="DIR", help=RECORDS_HELP)
    ver.add_argument("--cluster", metavar="ADDRESS", help=CLUSTER_HELP)
    ver.set_defaults(run=versus)
    ren = commands.add_parser("render", help="write docs/strength.md from the results")
    ren.set_defaults(run=render)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
