"""``bluegray analyse``: the engine's view of a position, deepening as it thinks."""

from __future__ import annotations

import argparse
from typing import Any

from rich.text import Text

from bluegray.cli.common import EXIT_OK, add_game_options, console, fail, game_from, render_diagram
from bluegray.engine.analysis import DEFAULT_ANALYSIS_SECONDS, Analysis, analyse
from bluegray.engine.limits import Limits

HELP = "analyse a position: evaluation, best move and principal variation"

DESCRIPTION = f"""\
Search a position and print what the engine finds as it looks deeper: one line per depth with
the evaluation, the nodes searched and the principal variation (the best line for both sides),
then the best move.

The evaluation is from Blue's point of view: positive means Blue is better. Its unit is the Elo
point, so it converts to an expected score: +200 means Blue is expected to score about 0.76,
+400 about 0.91 (Gray the rest). A decided position says who wins and in how many plies.

Defaults: {DEFAULT_ANALYSIS_SECONDS:g} seconds of thinking; --depth or --nodes instead stop
there.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "analyse",
        aliases=["analyze"],
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_game_options(parser)
    parser.add_argument("--time", "-t", type=float, metavar="SECONDS", help="thinking time")
    parser.add_argument("--depth", "-d", type=int, help="search this many plies deep")
    parser.add_argument("--nodes", "-n", type=int, help="search this many positions")
    parser.add_argument("--quiet", "-q", action="store_true", help="print only the final result")
    parser.set_defaults(run=run)


def _line(analysis: Analysis) -> Text:
    pv = " ".join(str(move) for move in analysis.pv)
    if analysis.plies_to_end is not None and analysis.winning_side is not None:
        score = f"{analysis.winning_side.title} in {analysis.plies_to_end}"
    else:
        score = f"{analysis.score:+d} ({analysis.blue_expected:.2f})"
    rate = int(analysis.nodes / analysis.seconds) if analysis.seconds > 0 else 0
    return Text(f"{analysis.depth:>5}  {score:>16}  {analysis.nodes:>10,}  {rate:>8,}  {pv}")


def run(args: argparse.Namespace) -> int:
    for name in ("time", "depth", "nodes"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            fail(f"--{name} must be positive, not {value}")
    game = game_from(args)
    console.print(f"rules: {game.rules}")
    console.print(render_diagram(game.position))
    console.print(Text(f"position: {game.position}"))
    if args.time is None and args.depth is None and args.nodes is None:
        limits = Limits(time=DEFAULT_ANALYSIS_SECONDS)
    else:
        limits = Limits(depth=args.depth, nodes=args.nodes, time=args.time)
    if not game.is_over() and not args.quiet:
        console.print(f"{'depth':>5}  {'eval (Blue)':>16}  {'nodes':>10}  {'nodes/s':>8}  line")
    result = analyse(game, limits, on_update=None if args.quiet else _print_line)
    if result.outcome is not None:
        console.print(result.describe())
        return EXIT_OK
    console.print(f"best move: {result.best_move}")
    console.print(f"evaluation: {result.describe()}")
    console.print(Text(f"line: {' '.join(str(move) for move in result.pv)}"))
    return EXIT_OK


def _print_line(analysis: Analysis) -> None:
    console.print(_line(analysis))
