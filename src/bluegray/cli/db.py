"""``bluegray db``: the web app's database, apart from the server (``bluegray db upgrade``)."""

from __future__ import annotations

import argparse
from typing import Any

from bluegray.cli.common import with_web_extra

HELP = "the web app's database: create or upgrade its schema (bluegray db upgrade)"

DESCRIPTION = """\
The web app keeps its games in a database whose schema is versioned: each bluegray release
carries the migrations (Alembic revisions) that bring an older schema to its own. bluegray serve
applies them when it starts; these commands do it apart from the server.
"""

UPGRADE_HELP = "create the schema in an empty database, or bring it to this version's revision"

UPGRADE_DESCRIPTION = """\
Create the web app's tables in an empty database, or upgrade an older schema to this version's
newest revision, then exit. 'bluegray serve' does the same when it starts; run this command
first when you deploy several servers or upgrade bluegray, so that the servers start on a
schema that is ready (then the servers' database user needs no right to change the schema).

It is safe to run while servers run, and from several machines at once: the upgrade holds a
lock of the database (PostgreSQL: an advisory lock; SQLite: the file's write lock) until it has
committed, so it happens once and the others find the schema up to date.

The database is --database-url, else BLUEGRAY_DATABASE_URL, else the SQLite file in your data
directory that 'bluegray serve' uses by default.
"""

UPGRADE_EPILOG = """\
examples:
  bluegray db upgrade
  bluegray db upgrade --database-url postgresql://bg:secret@db.example.org/bluegray
  BLUEGRAY_DATABASE_URL=postgresql://bg:secret@db/bluegray bluegray db upgrade
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "db",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="db_command", metavar="COMMAND", required=True)
    upgrade = commands.add_parser(
        "upgrade",
        help=UPGRADE_HELP,
        description=UPGRADE_DESCRIPTION,
        epilog=UPGRADE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    upgrade.add_argument(
        "--database-url",
        metavar="URL",
        help="SQLAlchemy database URL (default: BLUEGRAY_DATABASE_URL, else the SQLite file in "
        "the user data directory)",
    )
    upgrade.set_defaults(run=run_upgrade)


def run_upgrade(args: argparse.Namespace) -> int:
    extra = with_web_extra("web_extra", "the database needs")
    return int(extra.upgrade(args))
