"""``bluegray perft``: count move sequences depth by depth and time the move generator."""

from __future__ import annotations

import argparse
import time
from typing import Any

from bluegray.cli.common import EXIT_OK, add_game_options, console, fail, game_from
from bluegray.perft import divide, perft

HELP = "count the move sequences of each length from a position (tests the move generator)"

DESCRIPTION = """\
Perft counts the sequences of exactly N legal moves from a position, for N = 1 .. DEPTH, and
prints how fast they were counted. A finished game has no moves. Compare the counts with the
conformance vectors (docs/rules-reference.md §7) to check a move generator; --divide splits
the count at DEPTH by first move, to find where two generators disagree.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "perft",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("depth", type=int, metavar="DEPTH", help="the longest sequence to count")
    add_game_options(parser)
    parser.add_argument(
        "--divide", action="store_true", help="print the count at DEPTH for each first move"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.depth < 1:
        fail(f"perft depth must be at least 1, not {args.depth}")
    game = game_from(args)
    position = game.position
    console.print(f"rules: {game.rules}")
    console.print(f"position: {position}")
    if args.divide:
        started = time.perf_counter()
        counts = divide(position, args.depth)
        elapsed = time.perf_counter() - started
        for move, nodes in counts.items():
            console.print(f"{move!s:<24} {nodes:>12,}")
        total = sum(counts.values())
        console.print(f"{'total':<24} {total:>12,}   {_rate(total, elapsed)}")
        return EXIT_OK
    console.print(f"{'depth':>5} {'nodes':>14} {'seconds':>9} {'nodes/s':>12}")
    for depth in range(1, args.depth + 1):
        started = time.perf_counter()
        nodes = perft(position, depth)
        elapsed = time.perf_counter() - started
        console.print(f"{depth:>5} {nodes:>14,} {elapsed:>9.3f} {_rate(nodes, elapsed):>12}")
    return EXIT_OK


def _rate(nodes: int, seconds: float) -> str:
    if seconds <= 0:
        return "-"
    return f"{nodes / seconds:,.0f}"
