"""``bluegray engine``: run the engine behind the BGI protocol on stdin and stdout, for GUIs,
match runners and other programs (docs/protocol.md)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bluegray.protocol.server import serve

HELP = "run the engine as a BGI protocol server on stdin/stdout (for GUIs and match runners)"

DESCRIPTION = """\
Speak BGI, the Blue and Gray Interface, on stdin and stdout: a line-based text protocol
modelled on UCI, specified in docs/protocol.md. A session starts with 'bgi' (the engine answers
with its name, its options and 'bgiok'), sets up a position with 'position rules <rule set>
[startpos | fen <position>] [moves ...]', and asks for a move with 'go'; the engine reports
'info' lines as it searches and ends with 'bestmove'. 'quit' (or the end of the input) ends it.
"""

EPILOG = """\
example session (> is what the client sends):
  > bgi
  id name bluegray ...
  ...
  bgiok
  > position rules cooper startpos moves d2-d3
  > go depth 3
  info depth 1 seldepth 1 score cp -10 nodes 22 nps 126991 time 0 pv a8-a7
  ...
  info depth 3 seldepth 3 score cp -10 nodes 650 nps 306243 time 2 pv e8-e7 d3-e3 f8-e8
  bestmove e8-e7
  > quit

Other programs play it with the player spec 'engine:bluegray engine' (bluegray match).
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "engine",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    return serve(sys.stdin, sys.stdout)
