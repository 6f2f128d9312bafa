"""Measure the engine's strength with the match runner and write docs/strength.md.

    python scripts/strength_report.py ladder --rules sackson          # the planned games
    python scripts/strength_report.py ladder --rules cooper --only level:7 --games 12 --seed 3
    python scripts/strength_report.py ladder --rules cooper --only level:7 --decide  # the SPRT
    python scripts/strength_report.py ladder --rules cooper --journal matches/  # stopped: goes on
    python scripts/strength_report.py versus --rules sackson cooper --time 1 --games 20
    python scripts/strength_report.py engines --rules sackson --time 0.2 --sprt 0,50 \
        --engine-3 "env BLUEGRAY_SEARCH=compiled E3/bin/python -m bluegray engine"
    python scripts/strength_report.py engines --rules sackson --time 1 --games 200 \
        --engine-3 "..." --journal matches/     # stopped, the same command goes on from there
    python scripts/strength_report.py engines --from MATCH.json   # record a match played already
    python scripts/strength_report.py render            # docs/strength.md from the results

``ladder`` plays each level against the one below it (and random against level 1, greedy against
levels 1 and 2), with each level's own time: the games planned for each match (``planned``)
that the current levels have not played yet, then the further seed of each step they leave
unseparated (``unplayed``), or with ``--games`` one seed of them; with
``--decide``, the deciding SPRT of each step that its planned games and further seed left
unseparated (``needs_decider``). ``versus`` plays the top level at ``--time`` seconds a move
against greedy and against MCTS given the same time. ``engines`` plays this version's ``bluegray
engine`` against an earlier engine's (``--engine-3``: the command that starts it, from an
install of the tag ``engine-3``), both as ``engine:`` players over the protocol, with an SPRT or a
fixed number of games; ``--from`` records a ``bluegray match --json --out`` file of such a match
instead. Every match's summary is kept in
docs/data/strength.json, so runs can be added to over several sessions; ``render`` turns them
into the report, chaining the ladder's Elo differences from level 1 (0). ``--records DIR`` also
keeps each match's games as a PGN file, to replay how they were won and drawn; ``--journal DIR``
keeps each match's games as they end, so that a match stopped (Ctrl-C, a kill, the end of a
working session) goes on from them when the same command runs again. A stopped match is never
recorded: the run ends there, with exit status 130. The results are
kept and merged by ``strength_results.py``; the page is written by ``strength_page.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from bluegray.cli.match import EXIT_INTERRUPTED, pace
from bluegray.engine import ENGINE_VERSION
from bluegray.engine.journal import MatchJournal, run_journaled
from bluegray.engine.levels import LEVELS, TOP_LEVEL
from bluegray.engine.limits import Limits
from bluegray.engine.match import MatchGame, MatchSettings, MatchSummary, run_match
from bluegray.engine.search import Searcher, warm_up
from bluegray.engine.stats import MatchStats
from bluegray.errors import BlueGrayError
from bluegray.protocol import player as engine_player  # noqa: F401 - registers engine: players
from bluegray.record import write_records
from bluegray.rules import PRESETS
from strength_page import render
from strength_results import (
    DECIDER_ELO,
    DECIDER_GAMES,
    levels_in,
    load,
    needs_decider,
    record,
    unplayed,
)

CLUSTER_HELP = (
    "play the games on the Ray cluster at this address (the head's HOST:PORT from 'ray start "
    "--head', or auto; the cluster extra, and bluegray on every node), with the same results "
    "as here; each match's result is saved as it finishes"
)

RECORDS_HELP = "also write each match's game records to DIR (one PGN file a match)"
JOURNAL_HELP = (
    "keep each match's games in DIR as they end (KIND-RULES-A-vs-B-seedN.jsonl): stopped, the "
    "same command goes on from them, over several sessions if need be"
)


def outcome_of(data: dict[str, Any]) -> dict[str, Any]:
    """What a match's ``--json`` summary says of its games, as the results file keeps it."""
    return {
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
    }


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
    journal: Path | None = None,
) -> dict[str, Any]:
    """Play one match and return its summary with what it measured; with ``records``, write
    its games there too (one PGN file a match), so that its draws and wins can be replayed.
    With ``sprt`` the match stops once that SPRT is decided (the summary keeps its verdict).
    With ``journal`` (a folder) its games are kept there as they end, and the same match played
    again goes on from them. A match stopped (Ctrl-C) is not recorded, and ends the run.
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
    name = re.sub(r"[^A-Za-z0-9.]+", "-", f"{kind}-{rules}-{a}-vs-{b}-seed{seed}")
    kept_as = f"{name}-sprt" if sprt is not None else name  # a decider is another match
    summary = whole(_run_journaled(settings, journal, kept_as), kept_as, journal)
    if records is not None:
        records.mkdir(parents=True, exist_ok=True)
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
        **outcome_of(data),
        **durations(data),
        "date": time.strftime("%Y-%m-%d"),
        "seed": seed,
        "search": search_core(rules),
        "engine": ENGINE_VERSION,
        "levels": {str(level): LEVELS[level].revision for level in levels_in(a, b)},
    }
    if sprt is not None:
        entry["games_planned"] = games
        entry["sprt"] = data["sprt"]
    print(
        f"{kind} {rules}: {a} vs {b}: {entry['wins']}-{entry['draws']}-{entry['losses']} "
        f"score {entry['score']:.3f} elo {entry['elo']} [{entry['elo_low']}, {entry['elo_high']}]"
        f" ({round(summary.seconds)} s)"
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


def ladder(args: argparse.Namespace) -> None:
    """Play the ladder's matches: with --games, one seed of each; without, each match's planned
    seeds (``planned``) that the current engine and levels have not played yet, and a step's
    further seed once its planned ones leave it unseparated (``unplayed``)."""
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
                        cluster=args.cluster, journal=args.journal,
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
                            journal=args.journal,
                        )
                    )
                continue
            # Twice: the planned seeds not played yet, then the further seed that they (or
            # the planned seeds recorded on an earlier run) call for, if any.
            for _ in range(2):
                for seed, games in unplayed(a, b, rules, load()):
                    record(
                        play(
                            "ladder", a, b, rules, games, None, seed, args.records,
                            cluster=args.cluster, journal=args.journal,
                        )
                    )  # fmt: skip


ENGINE_HERE = f"engine:{shlex.quote(sys.executable)} -m bluegray engine"
"""This version's engine as an ``engine:`` player (a process of its own over the protocol)."""


def engine_entry(data: dict[str, Any], rules: str, names: tuple[str, str]) -> dict[str, Any]:
    """What ``docs/data/strength.json`` keeps of a match between two engines (``names``: what
    the page calls A and B), from the match's ``--json`` summary."""
    settings = data["settings"]
    entry: dict[str, Any] = {
        "kind": "engines",
        "a": names[0],
        "b": names[1],
        "players": data["players"],
        "rules": rules,
        "time": settings["time"],
        **outcome_of(data),
        **durations(data),
        "date": time.strftime("%Y-%m-%d"),
        "seed": settings["seed"],
        "concurrency": settings["concurrency"],
        "engine": ENGINE_VERSION,
    }
    if data["sprt"] is not None:
        entry["games_planned"] = data["games_planned"]
        entry["sprt"] = data["sprt"]
    return entry


def engines(args: argparse.Namespace) -> None:
    names = (f"engine {ENGINE_VERSION}", args.name)
    if args.from_files:
        for path in args.from_files:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            rules = str(data["rules"])
            record(engine_entry(data, rules, names))
            print(f"recorded {path}: {rules}, {data['games']} games", flush=True)
        return
    if args.engine_3 is None:
        raise SystemExit("strength_report.py engines: give --engine-3 COMMAND or --from FILE")
    for rules in args.rules:
        settings = MatchSettings(
            player_a=ENGINE_HERE,
            player_b=f"engine:{args.engine_3}",
            rules=PRESETS[rules],
            games=args.games,
            limits=Limits(time=args.time),
            concurrency=args.concurrency,
            seed=args.seed,
            sprt=args.sprt,
        )
        name = f"engines-{rules}-{args.time:g}s"
        data = whole(_run_journaled(settings, args.journal, name), name, args.journal).to_json()
        entry = engine_entry(data, rules, names)
        record(entry)
        verdict = "" if args.sprt is None else f"; SPRT {data['sprt']['verdict']}"
        print(
            f"engines {rules}: {entry['wins']}-{entry['draws']}-{entry['losses']} elo "
            f"{entry['elo']} [{entry['elo_low']}, {entry['elo_high']}]{verdict}",
            flush=True,
        )


def durations(data: dict[str, Any]) -> dict[str, int]:
    """How long a match took, from its ``--json`` summary: ``games_seconds``, its games' own
    durations added up over every run of it, and ``seconds``, its wall time, when it was played
    in one run (a match gone on from a journal took longer than its last run)."""
    kept = {"games_seconds": round(data["games_seconds"])} if "games_seconds" in data else {}
    if not data.get("resumed"):
        kept["seconds"] = round(data["seconds"])
    return kept


def whole(summary: MatchSummary, name: str, journal: Path | None) -> MatchSummary:
    """The summary of a match played to its end. A match stopped before it (Ctrl-C) is not
    recorded, which would count its seed as played, and the run ends there (exit status 130)."""
    if not summary.interrupted:
        return summary
    kept = (
        f"its games are in {journal / f'{name}.jsonl'}: the same command goes on from them"
        if journal is not None
        else "its games are lost (--journal DIR keeps them)"
    )
    print(
        f"strength_report.py: {name} stopped after {len(summary.games)} of "
        f"{summary.settings.games} games, not recorded; {kept}",
        file=sys.stderr,
        flush=True,
    )
    raise SystemExit(EXIT_INTERRUPTED)


def _run_journaled(settings: MatchSettings, directory: Path | None, name: str) -> MatchSummary:
    """The match, with its journal in ``directory`` (``NAME.jsonl``) when one is given: run
    again, it goes on where it stopped."""
    if directory is None:
        return run_match(settings)
    directory.mkdir(parents=True, exist_ok=True)
    with MatchJournal(directory / f"{name}.jsonl", settings) as journal:
        before = len(journal.games)
        if before:
            print(f"{name}: {before} games read from its journal", flush=True)
        started = time.monotonic()

        def finished(_game: MatchGame, stats: MatchStats) -> None:
            so_far = pace(settings, stats.games, stats.games - before, time.monotonic() - started)
            print(
                f"{name}: {stats.games} of {settings.games} games, A {stats.a}; {so_far}",
                flush=True,
            )

        return run_journaled(settings, journal, finished)


def _bounds(text: str) -> tuple[float, float]:
    elo0, _, elo1 = text.partition(",")
    return float(elo0), float(elo1)


def versus(args: argparse.Namespace) -> None:
    top = f"level:{TOP_LEVEL}"
    for rules in args.rules:
        for opponent in args.opponents:
            record(
                play(
                    "versus", top, opponent, rules, args.games, args.time, args.seed,
                    args.records, cluster=args.cluster, journal=args.journal,
                )
            )  # fmt: skip


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
        help=(
            "play one seed of this many games a match (default: the planned seeds not played, "
            "then a further seed where they leave a step unseparated)"
        ),
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
    lad.add_argument("--journal", type=Path, metavar="DIR", help=JOURNAL_HELP)
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
    ver.add_argument("--journal", type=Path, metavar="DIR", help=JOURNAL_HELP)
    ver.set_defaults(run=versus)
    eng = commands.add_parser(
        "engines",
        help="this engine against an earlier one, both over the protocol",
        description=(
            "Play this engine (bluegray engine, as an engine: player) against an earlier one\n"
            "started by --engine-3, in each rule set, and record the result for the page; or\n"
            "record matches played already (--from)."
        ),
        epilog=(
            "examples:\n"
            '  strength_report.py engines --engine-3 "env BLUEGRAY_SEARCH=compiled '
            'E3/bin/python -m bluegray engine" --rules super --sprt 0,50 --concurrency 2\n'
            '  bluegray match "engine:bluegray engine;EvalFile=net.json" "engine:..." '
            "--rules super --time 0.2 --sprt=0,50 --json > super.json\n"
            "  strength_report.py engines --from super.json\n"
            "A match played with a network file (EvalFile) is recorded as this engine's: ship "
            "that file before rendering the page."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    eng.add_argument(
        "--engine-3", metavar="COMMAND", help="the command that starts the earlier engine"
    )
    eng.add_argument(
        "--name", default="engine 3", help="what the page calls it (default: engine 3)"
    )
    eng.add_argument(
        "--rules",
        nargs="+",
        default=["sackson", "cooper", "super", "classic-turbo", "pow-classic"],
        help="one match in each (default: the five main rule sets)",
    )
    eng.add_argument(
        "--time", type=float, default=0.2, help="seconds per move for both (default 0.2)"
    )
    eng.add_argument(
        "--games", type=int, default=2000, help="at most this many games (default 2000)"
    )
    eng.add_argument(
        "--sprt", type=_bounds, metavar="ELO0,ELO1", help="stop once the SPRT decides, e.g. 0,50"
    )
    eng.add_argument("--seed", type=int, default=1, help="the openings' seed (default 1)")
    eng.add_argument("--concurrency", type=int, default=1, help="games at once (default 1)")
    eng.add_argument(
        "--journal", type=Path, metavar="DIR",
        help="keep each match's journal in DIR (engines-RULES-TIMEs.jsonl): the same command "
        "run again goes on where a stopped match was, over several sessions if need be",
    )  # fmt: skip
    eng.add_argument(
        "--from", dest="from_files", nargs="+", metavar="FILE",
        help="record these files instead of playing: each the JSON 'bluegray match --json' printed",
    )  # fmt: skip
    eng.set_defaults(run=engines)
    ren = commands.add_parser("render", help="write docs/strength.md from the results")
    ren.set_defaults(run=lambda _args: render())
    args = parser.parse_args()
    try:
        args.run(args)
    except BlueGrayError as error:  # a journal of another match, an unknown player...
        print(f"strength_report.py: {error}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
