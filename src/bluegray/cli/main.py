"""``bluegray``: the entry point that parses the command line and runs a subcommand."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bluegray import __version__
from bluegray.cli import (
    analyse,
    bot,
    conformance,
    db,
    engine,
    explorer,
    match,
    perft,
    play,
    puzzles,
    serve,
    show,
    user,
    worker,
)
from bluegray.cli.common import EXIT_BAD_INPUT, CommandError, print_error
from bluegray.errors import BlueGrayError

DESCRIPTION = """\
Blue and Gray (Busch & Jaeger, 1903): the rules, notation and records of every published rule
set, and the tools around them.

A position is written in one line (docs/rules-reference.md §6): the placement from rank 9 down
to rank 1, the side to move (b or g), the no-progress count and the move number, e.g.
  ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 1
A move is written from-to (d2-d3, or e1-d4 for a turbo slide), and a capture lists its start and
every landing point joined by x (b2xb4xd4).
"""

EPILOG = """\
examples:
  bluegray show --rules cooper --moves "d2-d3 f8-f7"
  bluegray show --rules super --svg board.svg
  bluegray perft 5
  bluegray conformance conformance/*.jsonl

Run 'bluegray COMMAND --help' for the options of each command.
"""

COMMANDS = (
    show,
    analyse,
    perft,
    conformance,
    match,
    engine,
    play,
    puzzles,
    serve,
    worker,
    db,
    user,
    bot,
    explorer,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bluegray",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"bluegray {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.run(args)
    except (BlueGrayError, CommandError) as error:
        print_error(str(error))
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print_error("interrupted")
        return 130
    return result


if __name__ == "__main__":
    sys.exit(main())
