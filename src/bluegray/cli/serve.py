"""``bluegray serve``: the web app on uvicorn, with a SQLite file by default (no other server)."""

from __future__ import annotations

import argparse
import errno
import socket
from typing import Any

from bluegray.cli.common import EXIT_OK, console, fail

HELP = "run the web app: play online, against the AI or hot-seat, in a browser"

DESCRIPTION = """\
Start the web app and print the address to open. Games are kept in a database: by default a
SQLite file in your data directory, or any SQLAlchemy URL, e.g.
postgresql://user:password@host/bluegray (PostgreSQL needs its driver: pip install
"bluegray[postgres]"). The schema is created or upgraded at start-up, once even when several
servers start together ('bluegray db upgrade' does only that); a stopped server resumes every
game where it stood.

Settings beyond these options (rate limits, sizes, AI workers, ...) come from BLUEGRAY_*
environment variables: see docs/web.md.
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
    parser.add_argument("--no-access-log", action="store_true", help="do not log every request")
    parser.set_defaults(run=run)


def _listen(host: str, port: int) -> socket.socket:
    """Bind the port here, so that a busy port is a one-line error and not a traceback."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        reason = "the port is in use" if error.errno == errno.EADDRINUSE else error.strerror
        fail(f"cannot listen on {host}:{port}: {reason}")
    sock.set_inheritable(True)
    return sock


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from bluegray.web.app import create_app
        from bluegray.web.db import database_url, make_engine, shown, upgrade_schema
        from bluegray.web.settings import InvalidSettingError, Settings
    except ImportError as error:
        fail(f'the web app needs the web extra: pip install "bluegray[web]" ({error.name} missing)')
    if not 0 <= args.port <= 65535:
        fail(f"--port must be 0 to 65535, not {args.port}")
    if args.ai_workers is not None and args.ai_workers < 1:
        fail(f"--ai-workers must be at least 1, not {args.ai_workers}")
    try:
        settings = Settings.from_env()
    except InvalidSettingError as error:
        fail(str(error))
    changes: dict[str, object] = {}
    if args.database_url:
        changes["database_url"] = args.database_url
    if args.ai_workers:
        changes["ai_workers"] = args.ai_workers
    settings = settings.with_changes(**changes)
    url = database_url(settings.resolved_database_url)
    # The schema now, so that a database that cannot be used is one line, not a traceback in
    # the server's log (the app's start-up then finds it up to date).
    engine = make_engine(settings.resolved_database_url)
    try:
        upgrade_schema(engine)
    finally:
        engine.dispose()
    sock = _listen(args.host, args.port)
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        log_level=args.log_level,
        access_log=not args.no_access_log,
        ws_max_size=settings.max_ws_frame_bytes,
        ws_per_message_deflate=False,
        server_header=False,
        timeout_graceful_shutdown=5,
    )
    server = uvicorn.Server(config)
    port = sock.getsockname()[1]
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    if args.host in ("0.0.0.0", "::"):
        shown_host = "localhost"
    console.print(
        f"bluegray: serving on http://{shown_host}:{port}/ (database: {shown(url)})",
        highlight=False,
    )
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn stops gracefully, then raises the signal again
        return EXIT_OK
    if not server.started:
        fail("the server did not start (see the log above)")
    return EXIT_OK
