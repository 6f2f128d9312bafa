"""``bluegray conformance``: check conformance vector files (docs/rules-reference.md §7)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.text import Text

from bluegray.cli.common import EXIT_FAILED, EXIT_OK, console
from bluegray.conformance import VectorResult, check_file

HELP = "check conformance vector files (perft, legal moves, whole games)"

DESCRIPTION = """\
Check JSON Lines files of conformance vectors in the format of docs/rules-reference.md §7. Each
line is one vector, of one of three kinds told by its keys:
  perft      {"rules", "position", "depth", "nodes"}
  positions  {"rules", "position", "moves"}            every legal move, sorted
  games      {"rules", "start"?, "moves", "result", "final"}
Prints one line per file, every failure, and a final line 'N passed, M failed'; exits 1 if
any vector failed or could not be read.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "conformance",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="JSON Lines files")
    parser.add_argument("--verbose", "-v", action="store_true", help="print every vector")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    passed = failed = 0
    for path in args.files:
        try:
            results = check_file(path)
        except OSError as error:
            results = [VectorResult(str(path), 0, None, f"cannot read file: {error.strerror}")]
        except UnicodeDecodeError as error:
            results = [VectorResult(str(path), 0, None, f"cannot read file: {error}")]
        ok = sum(result.passed for result in results)
        bad = len(results) - ok
        passed += ok
        failed += bad
        status = "[green]ok[/]" if not bad else "[bold red]FAILED[/]"
        console.print(f"{path}: {status} ({ok} passed, {bad} failed)")
        for result in results:
            if args.verbose or not result.passed:
                console.print(Text(f"  {result}"), soft_wrap=True)
    console.print(f"{passed} passed, {failed} failed")
    return EXIT_FAILED if failed else EXIT_OK
