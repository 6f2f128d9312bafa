"""``bluegray serve``: the web app on uvicorn, with a SQLite file by default (no other server)."""

from __future__ import annotations

import argparse
from typing import Any

from bluegray.cli.common import with_web_extra

HELP = "run the web app: play online, against the AI or hot-seat, in a browser"

DESCRIPTION = """\
Start the web app and print the address to open. Games are kept in a database: by default a
SQLite file in your data directory, or any SQLAlchemy URL, e.g.
postgresql://user:password@host/bluegray (PostgreSQL needs its driver: pip install
"bluegray[postgres]"). The schema is created or upgraded at start-up, once even when several
servers start together ('bluegray db upgrade' does only that); a stopped server resumes every
game where it stood.

The site answers only to the host names it knows (a page elsewhere cannot reach it by DNS
rebinding): the loopback names, and with --host 0.0.0.0 also this machine's name and
addresses. Name a public host with --allowed-host play.example.org (or
BLUEGRAY_ALLOWED_HOSTS).

Settings beyond these options (rate limits, sizes, AI workers, Redis for several processes, ...)
come from BLUEGRAY_* environment variables: see docs/web.md and docs/deploy.md.
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    parser.add_argument(
        "--database-url",
        metavar="URL",
        help="SQLAlchemy database URL (default: BLUEGRAY_DATABASE_URL, else a SQLite file in "
        "the user data directory)",
    )
    parser.add_argument(
        "--ai-workers",
        type=int,
        metavar="N",
        help="processes for AI moves and analysis (default: one per CPU)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=("critical", "error", "warning", "info", "debug"),
        help="how much the server logs (default: info)",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        metavar="NAME",
        help="a host name the site answers to (repeat for more; default: see above)",
    )
    parser.add_argument("--no-access-log", action="store_true", help="do not log every request")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    # The web extra (FastAPI, uvicorn, SQLAlchemy) loads for this command only.
    extra = with_web_extra("web_extra", "the web app needs")
    return int(extra.serve(args))
