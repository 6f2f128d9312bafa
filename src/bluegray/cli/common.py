"""What the subcommands share: the console, the game options (--rules, --position, --moves), and
turning bad input into a one-line error and an exit code."""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType
from typing import NoReturn

from rich.console import Console
from rich.text import Text

from bluegray.diagram import diagram_cells
from bluegray.game import Game
from bluegray.position import Position
from bluegray.rules import PRESETS, SACKSON, RuleSet

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2

console = Console(highlight=False, soft_wrap=True)
error_console = Console(stderr=True, highlight=False, soft_wrap=True)

_ROLE_STYLES = {
    "blue": "bold bright_white on blue",
    "gray": "bold black on bright_white",
    "blue-path": "blue",
    "gray-path": "bright_black",
    "center": "bold red",
    "empty": "dim",
    "label": "cyan",
    "space": "",
}


class CommandError(Exception):
    """Bad input to a command: printed as one line, exit code 2."""


def fail(message: str) -> NoReturn:
    raise CommandError(message)


def with_web_extra(module: str, needing: str) -> ModuleType:
    """``bluegray.cli.MODULE``, whose commands need the web extra (SQLAlchemy, Alembic, uvicorn,
    the WebSocket client), loaded when such a command runs, so that every other command starts
    without the extra. When it is missing: one line saying that ``needing`` needs it, and how to
    install it."""
    try:
        return importlib.import_module(f"bluegray.cli.{module}")
    except ImportError as error:
        fail(f'{needing} the web extra: pip install "bluegray[web]" ({error.name} missing)')


def add_game_options(parser: argparse.ArgumentParser, *, moves: bool = True) -> None:
    """The options that pick a rule set, a starting position and moves played from it."""
    parser.add_argument(
        "--rules",
        "-r",
        default=None,
        metavar="NAME",
        help="rule set: one of "
        + ", ".join(PRESETS)
        + "; or settings like 'cooper impasse-plies=50' (default: sackson)",
    )
    parser.add_argument(
        "--position",
        "-p",
        metavar="TEXT",
        help="start from this position (§6 notation, e.g. "
        "'ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 1'); default: the rule set's start",
    )
    if moves:
        parser.add_argument(
            "--moves",
            "-m",
            metavar="MOVES",
            default="",
            help="moves to play first, separated by spaces or commas, e.g. 'd2-d3 f8-f7'",
        )


def rules_from(args: argparse.Namespace) -> RuleSet:
    """The --rules option's rule set (Sackson's when it was not given)."""
    return SACKSON if args.rules is None else RuleSet.parse(args.rules)


def game_from(args: argparse.Namespace) -> Game:
    """The game the options describe, with ``--moves`` already played."""
    rules = rules_from(args)
    game = Game(rules, args.position)
    game.push_all(split_moves(getattr(args, "moves", "") or ""))
    return game


def split_moves(text: str) -> list[str]:
    """Move texts separated by spaces or commas; move numbers like ``1.`` are ignored."""
    words = text.replace(",", " ").split()
    return [word for word in words if not word.rstrip(".").isdigit()]


def render_diagram(position: Position, *, flipped: bool = False) -> Text:
    """The position's picture, coloured for the terminal."""
    text = Text()
    for index, row in enumerate(diagram_cells(position, flipped=flipped)):
        if index:
            text.append("\n")
        for cell in row:
            text.append(cell.text, style=_ROLE_STYLES.get(cell.role, ""))
    return text


def print_error(message: str) -> None:
    error_console.print(Text(f"bluegray: error: {message}"), soft_wrap=True)


def exit_with_error(message: str) -> NoReturn:
    print_error(message)
    sys.exit(EXIT_BAD_INPUT)
