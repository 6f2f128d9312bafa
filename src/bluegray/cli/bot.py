"""``bluegray bot``: play a bot's account's games on a bluegray site with an engine."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from typing import Any

from bluegray.cli.common import fail, with_web_extra

DAYS_PER_MOVE = (1, 2, 3, 5, 7, 14)

DEFAULT_ENGINE = shlex.join([sys.executable, "-m", "bluegray", "engine"])
"""The engine of the installation running the bot (by its own Python: ``bluegray`` need not be
on the PATH, as in a virtualenv run without activating it)."""
"""The days per move a correspondence game may have: the site's ``web.clocks.DAYS_PER_MOVE``,
repeated because the command line does not import the web app (its own layer, an extra); a test
keeps the two equal."""

HELP = "play a bot account's games on a bluegray site with an engine (its API token)"

DESCRIPTION = """\
Play the games of a bot's account on a bluegray site (bluegray serve) with an engine: any
program that speaks BGI (docs/protocol.md), by default this installation's own engine.
The bot acts with the account's API token (made on the site's account page; the account must be
a bot's: 'Make this a bot's account' there, or 'bluegray user bot NAME' on the server).

It plays every game of the account that is waiting or going on, and new ones as they come: the
games it joins by an invite link (--join), those it opens for anyone to join (--open, which
prints the link to send), and the lobby's: with --seek it keeps an open challenge of its own in
the lobby while it has no game going on, and with --accept-seeks it accepts other players' open
challenges (those under the --accept-seeks rule sets, or any) while it has none. Each game is
played over its WebSocket, so the bot counts as present; the engine thinks --movetime per move,
or by the game's clock. Ctrl-C stops it.
"""

EPILOG = """\
examples:
  bluegray bot --token bgp_... --join "http://127.0.0.1:8000/game/mT2T4IADb3CE#join=VoqwfnSc"
  bluegray bot --token bgp_... --open cooper --clock 5+3 --engine "bluegray engine"
  BLUEGRAY_BOT_TOKEN=bgp_... bluegray bot --server https://play.example.org --games 10
  bluegray bot --token bgp_... --seek sackson --clock 5+3 --rated --accept-seeks sackson,cooper
  bluegray bot --token bgp_... --seek cooper --days 3 --rated
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "bot",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--token",
        metavar="TOKEN",
        default=os.environ.get("BLUEGRAY_BOT_TOKEN"),
        help="the bot account's API token, bgp_... (default: BLUEGRAY_BOT_TOKEN)",
    )
    parser.add_argument(
        "--server",
        metavar="URL",
        default="http://127.0.0.1:8000",
        help="the site (default: http://127.0.0.1:8000)",
    )
    parser.add_argument(
        "--engine",
        metavar="COMMAND",
        default=DEFAULT_ENGINE,
        help="the engine's command line (default: this installation's own engine, "
        "'python -m bluegray engine' with the Python running the bot)",
    )
    parser.add_argument(
        "--movetime",
        type=int,
        default=1000,
        metavar="MS",
        help="milliseconds the engine thinks a move in a game without a clock (default: 1000)",
    )
    parser.add_argument(
        "--join",
        action="append",
        default=[],
        metavar="LINK",
        help="take the open seat of a game by its invite link (.../game/ID#join=CODE); repeat "
        "it for more",
    )
    parser.add_argument(
        "--open",
        metavar="RULES",
        help="open a game with these rules (a preset or settings) that anyone with the "
        "printed link may join",
    )
    parser.add_argument(
        "--clock",
        metavar="MINUTES+SECONDS",
        help="the clock of the game --open opens, or of the --seek challenge, e.g. 5+3 "
        "(default: none)",
    )
    parser.add_argument(
        "--days",
        type=int,
        choices=DAYS_PER_MOVE,
        metavar="N",
        help="a correspondence game instead of a clock, for --open and --seek: N days per move, "
        "one of " + ", ".join(map(str, DAYS_PER_MOVE)) + " (default: none)",
    )
    parser.add_argument(
        "--seek",
        metavar="RULES",
        help="keep an open challenge in the lobby with these rules (and --clock or --days, "
        "--rated) "
        "while no game is going on",
    )
    parser.add_argument(
        "--rated",
        action="store_true",
        help="the --seek challenge is rated (a preset rule set)",
    )
    parser.add_argument(
        "--accept-seeks",
        nargs="?",
        const="",
        default=None,
        metavar="RULES,...",
        help="accept other players' open challenges in the lobby while no game is going on: "
        "those under these rule sets (comma-separated), or any",
    )
    parser.add_argument(
        "--games",
        type=int,
        metavar="N",
        help="stop once N games are over (default: play until Ctrl-C)",
    )
    parser.add_argument(
        "--poll",
        type=float,
        default=2.0,
        metavar="SECONDS",
        help="how often to look for new games (default: 2)",
    )
    parser.set_defaults(run=run)


def clock_of(text: str | None) -> tuple[float, float] | None:
    """``5+3`` as (minutes, seconds of increment)."""
    if text is None:
        return None
    minutes, _, increment = text.partition("+")
    try:
        clock = (float(minutes), float(increment or 0))
    except ValueError:
        fail(f"--clock must be MINUTES+SECONDS, e.g. 5+3, not {text!r}")
    if not (clock[0] > 0 and clock[1] >= 0):
        fail(f"--clock must be MINUTES+SECONDS, e.g. 5+3, not {text!r}")
    return clock


def run(args: argparse.Namespace) -> int:
    if not args.token:
        fail("a bot needs its account's API token: --token bgp_... or BLUEGRAY_BOT_TOKEN")
    if args.movetime < 1:
        fail(f"--movetime must be at least 1, not {args.movetime}")
    if args.games is not None and args.games < 1:
        fail(f"--games must be at least 1, not {args.games}")
    if not args.poll > 0:
        fail(f"--poll must be more than 0, not {args.poll}")
    if args.rated and not args.seek:
        fail("--rated is for the challenge --seek posts: give --seek RULES too")
    if args.days is not None and args.clock is not None:
        fail("a game has a clock or days per move, not both: give --clock or --days")
    clock = clock_of(args.clock)
    extra = with_web_extra("bot_games", "the bot needs")
    return int(extra.run_bot(args, clock))
