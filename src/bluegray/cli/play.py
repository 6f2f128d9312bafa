"""``bluegray play``: play a game in the terminal, full-screen or line by line through a pipe."""

from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path
from typing import Any

from bluegray.cli.common import EXIT_FAILED, EXIT_OK, add_game_options, fail, game_from
from bluegray.engine.levels import LEVELS
from bluegray.game import Game
from bluegray.pieces import Side
from bluegray.tui.clock import TimeControl
from bluegray.tui.plain import PROTOCOL, run_plain
from bluegray.tui.session import DEFAULT_LEVEL, Seats, Session, read_record_file

HELP = "play a game in the terminal, against the engine or two at one keyboard"

DESCRIPTION = f"""\
Play Blue and Gray in the terminal: a full-screen board with move entry and completion, undo,
hints, saving and loading, against the engine (levels 1-8, default {DEFAULT_LEVEL}) or with two
people at one keyboard (--hotseat). Type moves in notation: d2-d3, or b2xb4xd4 for a capture.
In the full-screen app press F1 for help. docs/terminal.md tells more.

levels:
""" + "\n".join(f"  {level}  {config.description}" for level, config in LEVELS.items())

EPILOG = f"""\
{PROTOCOL}

examples:
  bluegray play
  bluegray play --rules cooper --level 5 --colour gray --clock 5+3
  bluegray play --hotseat --load game.txt
  printf 'd2-d3\\nmoves\\n' | bluegray play --plain --level 1
"""

COLOURS = {"blue": Side.BLUE, "gray": Side.GRAY, "grey": Side.GRAY}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "play",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_game_options(parser)
    parser.add_argument(
        "--level",
        "-l",
        metavar="N",
        help=f"the engine's level, {min(LEVELS)}-{max(LEVELS)} (default {DEFAULT_LEVEL})",
    )
    parser.add_argument(
        "--hotseat", action="store_true", help="two people at one keyboard, no engine"
    )
    parser.add_argument(
        "--colour",
        "--color",
        "-c",
        metavar="SIDE",
        default="blue",
        help="the side you play against the engine: blue (moves first) or gray",
    )
    parser.add_argument(
        "--load", metavar="FILE", type=Path, help="continue a saved game (its rules and moves)"
    )
    parser.add_argument(
        "--clock",
        metavar="MINUTES[+INCREMENT]",
        help="play with clocks: minutes each, and seconds added a move (e.g. 5 or 3+2)",
    )
    parser.add_argument(
        "--plain",
        action="store_true",
        help="the plain line mode described below (the default when not at a terminal)",
    )
    parser.set_defaults(run=run)


def seats_from(args: argparse.Namespace) -> Seats:
    """Who plays, from --level, --hotseat and --colour."""
    colour = COLOURS.get(args.colour.strip().lower())
    if colour is None:
        fail(f"--colour must be blue or gray, not {args.colour!r}")
    if args.hotseat:
        if args.level is not None:
            fail("--level and --hotseat do not go together: hot seat has no engine")
        if args.colour != "blue":
            fail("--colour chooses your side against the engine; with --hotseat you play both")
        return Seats(None)
    if args.level is None:
        return Seats(DEFAULT_LEVEL, colour)
    text = args.level.strip()
    if text not in {str(level) for level in LEVELS}:
        fail(f"--level must be one of {min(LEVELS)}-{max(LEVELS)}, not {args.level!r}")
    return Seats(int(text), colour)


def start_game(args: argparse.Namespace) -> Game:
    """The game the options set up: a loaded record, or the rules' start or --position."""
    if args.load is None:
        return game_from(args)
    if args.position is not None or args.moves or args.rules is not None:
        fail(
            "--load continues a recorded game under its own rules: it does not go with "
            "--rules, --position or --moves"
        )
    return read_record_file(args.load).game


def run(args: argparse.Namespace) -> int:
    seats = seats_from(args)
    control = None if args.clock is None else TimeControl.parse(args.clock)
    session = Session(start_game(args), seats, control)
    flipped = not seats.hotseat and seats.human is Side.GRAY
    if args.plain or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return _run_plain(session, flipped)
    # Textual (seconds to load) loads only for the full screen, not for the line mode.
    from bluegray.tui.app import PlayApp  # noqa: PLC0415 - Textual, for the full screen only

    PlayApp(session, flipped=flipped).run()
    return EXIT_OK


def _run_plain(session: Session, flipped: bool) -> int:
    """The line mode on stdin and stdout: undecodable input is replaced rather than fatal, and a
    reader that goes away ends the session quietly."""
    for stream in (sys.stdin, sys.stdout):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="replace")
    try:
        return run_plain(session, sys.stdin, sys.stdout, flipped=flipped)
    except BrokenPipeError:
        # Python would complain again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
