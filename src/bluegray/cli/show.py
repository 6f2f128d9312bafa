"""``bluegray show``: a position as text (and as SVG), with its legal moves and the outcome."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.text import Text

from bluegray.cli.common import EXIT_OK, add_game_options, console, fail, game_from, render_diagram
from bluegray.pieces import Side
from bluegray.svg import board_svg

HELP = "print a position, its legal moves and the outcome if the game is over"

DESCRIPTION = """\
Print a position as a picture and in notation, with the side to move, both captains'
advancement, the legal moves, and the outcome if the game is over. The position is the rule
set's start, or --position, after the --moves given.

In the picture, upper case is Blue and lower case Gray: C captain, G guard, P private.
'+' marks an empty point of a captain's path and '*' the centre e5.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "show",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_game_options(parser)
    parser.add_argument("--svg", metavar="FILE", type=Path, help="also write the board as SVG")
    parser.add_argument("--flip", action="store_true", help="show the board from Gray's side")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    game = game_from(args)
    position = game.position
    console.print(f"rules: {game.rules}")
    console.print(render_diagram(position, flipped=args.flip))
    console.print(Text(f"position: {position}"))
    blue, gray = position.advancement(Side.BLUE), position.advancement(Side.GRAY)
    console.print(f"advancement: Blue {blue}/17, Gray {gray}/17")
    outcome = game.outcome()
    if outcome is None:
        moves = game.legal_moves
        console.print(f"{game.turn.title} to move; {len(moves)} legal moves:")
        console.print(Text(" ".join(str(move) for move in moves)), soft_wrap=False)
    else:
        console.print(f"game over: {outcome.describe()} ({outcome.result})")
    if args.svg is not None:
        svg = board_svg(position, last_move=game.last_move, flipped=args.flip)
        try:
            args.svg.write_text(svg, encoding="utf-8")
        except OSError as error:
            fail(f"cannot write {args.svg}: {error.strerror}")
        console.print(f"wrote {args.svg}")
    return EXIT_OK
