"""``bluegray puzzles generate``: mine puzzles from self-play and from game records."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bluegray.cli.common import EXIT_OK, fail
from bluegray.engine.puzzles import (
    CLEAR_MARGIN,
    UNTAGGED_SHARE,
    VERIFY_FACTOR,
    Collection,
    Job,
    Mined,
    PuzzleError,
    mine,
    read_puzzles,
    record_jobs,
    write_puzzle,
)
from bluegray.engine.themes import THEMES
from bluegray.errors import BlueGrayError
from bluegray.rules import as_rules

HELP = "make puzzles: positions where exactly one move wins clearly"

DESCRIPTION = f"""\
Mine puzzles for one rule set from engine self-play games (searchers that now and then slip)
and, with --games-from, from a file of game records (the web app's finished games come as
records from /api/games/ID/record and /api/tournaments/ID/records; put them in one file).

Each candidate position is searched move by move: every legal move is played and the position
after it searched to --nodes, which gives each move an expected score (1 a win, 0.5 even, 0 a
loss). A position is a puzzle when the best move's expected score exceeds the second best's by
at least {CLEAR_MARGIN} ("clearly"), and still does, with the same move, when every move is
searched again with {VERIFY_FACTOR} times the nodes. The solution goes on (the opponent's best
reply, the next winning move) while the position keeps a single clearly winning move.

Puzzles are kept once per position, tagged by theme ({", ".join(THEMES)}); at most
{UNTAGGED_SHARE:.0%} of --count may have no theme. The puzzles are written as JSON Lines to
--out (standard output by default); an existing --out file is extended, its positions not
repeated. Progress goes to standard error.
"""

EPILOG = """\
examples:
  bluegray puzzles generate --rules cooper --count 50 --nodes 300 --out cooper.jsonl
  bluegray puzzles generate --rules sackson --count 20 --nodes 500 --games-from games.txt
  bluegray puzzles generate --rules super --count 500 --nodes 300 --cluster 10.0.0.5:6379
"""

MOST_JOBS = 1_000_000
"""The most self-play games one run starts."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("puzzles", help=HELP, description=HELP)
    commands = parser.add_subparsers(dest="puzzles_command", metavar="COMMAND", required=True)
    generate = commands.add_parser(
        "generate",
        help="mine puzzles from self-play and game records",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    generate.add_argument("--rules", "-r", required=True, help="the rule set (e.g. cooper)")
    generate.add_argument(
        "--count", "-c", type=int, required=True, metavar="N", help="stop after N new puzzles"
    )
    generate.add_argument(
        "--nodes",
        "-n",
        type=int,
        default=300,
        metavar="N",
        help=f"nodes searched after each move of a candidate (the verification searches "
        f"{VERIFY_FACTOR}x as many; default %(default)s)",
    )
    generate.add_argument(
        "--games-from",
        type=Path,
        metavar="FILE",
        help="mine the games of this records file first (its games of --rules only)",
    )
    generate.add_argument(
        "--games",
        type=int,
        metavar="N",
        help="play at most N self-play games (default: as many as --count needs; 0: none)",
    )
    generate.add_argument("--seed", type=int, default=0, help="the first self-play game's seed")
    generate.add_argument("--out", "-o", type=Path, metavar="FILE", help="the puzzle file")
    generate.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="mine the games on a Ray cluster, one game a CPU (the head's HOST:PORT from 'ray "
        "start --head', or auto; needs the cluster extra, and bluegray on every node)",
    )
    generate.set_defaults(run=run_generate)


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def run_generate(args: argparse.Namespace) -> int:
    try:
        rules = as_rules(args.rules)
    except BlueGrayError as error:
        fail(str(error))
    if not 1 <= args.count <= 100_000:
        fail(f"--count must be 1 to 100000, not {args.count}")
    if not 10 <= args.nodes <= 10_000_000:
        fail(f"--nodes must be 10 to 10000000, not {args.nodes}")
    if args.games is not None and not 0 <= args.games <= MOST_JOBS:
        fail(f"--games must be 0 to {MOST_JOBS}, not {args.games}")
    if args.cluster is not None and not args.cluster.strip():
        fail("--cluster needs the cluster's address (HOST:PORT, or auto)")
    known = []
    if args.out is not None and args.out.exists():
        try:
            known = read_puzzles(args.out.read_text().splitlines())
        except PuzzleError as error:
            fail(f"{args.out}: {error}")
    jobs: list[Job] = []
    if args.games_from is not None:
        try:
            text = args.games_from.read_text()
        except OSError as error:
            fail(f"cannot read {args.games_from}: {error.strerror}")
        jobs = record_jobs(text, args.nodes, str(rules))
    games = MOST_JOBS if args.games is None else args.games
    self_play = (Job(str(rules), args.nodes, seed=args.seed + n) for n in range(games))
    collection = Collection(args.count, known)
    started = time.perf_counter()
    positions = 0
    output = None if args.out is None else args.out.open("a")
    try:
        for number, mined in enumerate(_mined(jobs, self_play, args.cluster), 1):
            positions += mined.positions
            for puzzle in mined.puzzles:
                if collection.add(puzzle):
                    line = write_puzzle(puzzle)
                    if output is None:
                        print(line, flush=True)
                    else:
                        output.write(line + "\n")
                        output.flush()
            elapsed = time.perf_counter() - started
            _progress(
                f"games {number}, positions {positions} ({positions / elapsed:.1f}/s), puzzles "
                f"{len(collection.puzzles)}/{args.count}, {elapsed:.0f} s"
            )
            if collection.full:
                break
    finally:
        if output is not None:
            output.close()
    elapsed = time.perf_counter() - started
    found = len(collection.puzzles)
    _progress(
        f"done: {found} puzzles ({collection.untagged} untagged) from {positions} positions in "
        f"{elapsed:.0f} s: {positions / max(elapsed, 1e-9):.1f} positions/s, "
        f"{found * 3600 / max(elapsed, 1e-9):.0f} puzzles/hour; {collection.duplicates} "
        f"duplicates and {collection.untagged_dropped} untagged beyond the share left out"
    )
    return EXIT_OK


def _mined(records: list[Job], self_play: Iterator[Job], cluster: str | None) -> Iterator[Mined]:
    if cluster is None:
        # Each game with a searcher of its own, as on a cluster: the same puzzles either way.
        for job in records:
            yield mine(job)
        for job in self_play:
            yield mine(job)
        return
    from bluegray.engine.cluster import mine_on_cluster  # noqa: PLC0415 - Ray, on a cluster only

    batch = 256
    for start in range(0, len(records), batch):
        for result in mine_on_cluster(records[start : start + batch], cluster.strip()):
            assert isinstance(result, Mined)
            yield result
    while True:
        jobs = [job for _, job in zip(range(batch), self_play, strict=False)]
        if not jobs:
            return
        for result in mine_on_cluster(jobs, cluster.strip()):
            assert isinstance(result, Mined)
            yield result
