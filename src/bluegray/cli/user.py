"""``bluegray user``: the web app's accounts, from the command line (moderators, closing an
account, a bot's account, what an account is, the pairs that play too many rated games
together)."""

from __future__ import annotations

import argparse
from typing import Any

from bluegray.cli.common import with_web_extra

HELP = "the web app's accounts: moderators, closing an account, bots (bluegray user --help)"

DESCRIPTION = """\
Manage the accounts of the web app's players in its database, while servers run or not: make a
player a moderator (moderators close accounts from the site too), close an account, mark a new
account as a bot's, or show what an account is.

Closing an account ends its sessions and API tokens at once, on every server: it cannot log in
or play again, and its games stay as they were, with its name. Names are matched without regard
to case. 'pairs' lists the pairs of accounts that reached the daily limit of rated games
together (BLUEGRAY_RATED_GAMES_PER_PAIR): their further games were played unrated.

The database is --database-url, else BLUEGRAY_DATABASE_URL, else the SQLite file in your data
directory that 'bluegray serve' uses by default.
"""

EPILOG = """\
examples:
  bluegray user moderator ada_l
  bluegray user moderator ada_l --off
  bluegray user close troll_99
  bluegray user bot my_bot
  bluegray user show ada_l --database-url postgresql://bg:secret@db/bluegray
  bluegray user pairs --days 30
"""

ACTIONS = {
    "moderator": "make a player a moderator (--off: no longer)",
    "close": "close an account: its sessions and tokens end, it cannot log in again",
    "bot": "mark an account that has not played yet as a bot's (it plays through the API only)",
    "show": "what an account is: since when, bot, moderator, open or closed, games, sessions",
    "pairs": "the pairs of accounts that reached the daily limit of rated games together",
}


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "user",
        help=HELP,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="user_command", metavar="COMMAND", required=True)
    for action, help_text in ACTIONS.items():
        command = commands.add_parser(action, help=help_text, description=help_text)
        if action == "pairs":
            command.add_argument(
                "--days", type=int, default=7, help="how many days back to look (default 7)"
            )
        else:
            command.add_argument("name", metavar="NAME", help="the account's name (any case)")
        if action == "moderator":
            command.add_argument(
                "--off", action="store_true", help="take the moderator's role away instead"
            )
        command.add_argument(
            "--database-url",
            metavar="URL",
            help="SQLAlchemy database URL (default: BLUEGRAY_DATABASE_URL, else the SQLite file "
            "in the user data directory)",
        )
        command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    extra = with_web_extra("web_extra", "accounts need")
    return int(extra.user(args))
