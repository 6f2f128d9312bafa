"""``bluegray serve``: the web app on uvicorn, with a SQLite file by default (no other server)."""

from __future__ import annotations

import argparse
import contextlib
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


def _default_hosts(host: str) -> list[str]:
    """The host names to answer to when none are named: the loopback names, and when listening
    on every address, this machine's name and addresses too (so that a LAN can reach it)."""
    names = ["127.0.0.1", "localhost", "::1", "[::1]"]
    if host in ("0.0.0.0", "::", ""):
        machine = socket.gethostname()
        names.append(machine)
        with contextlib.suppress(OSError):
            names.extend(str(info[4][0]) for info in socket.getaddrinfo(machine, None))
    elif host not in names:
        names.append(f"[{host}]" if ":" in host else host)
    return list(dict.fromkeys(name.lower() for name in names))


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from bluegray.web.app import create_app
        from bluegray.web.db import database_url, make_engine, shown, upgrade_schema
        from bluegray.web.logs import log_config
        from bluegray.web.settings import InvalidSettingError, Settings, process_name
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
    hosts = args.allowed_host or settings.allowed_hosts or _default_hosts(args.host)
    changes["allowed_hosts"] = hosts
    try:
        settings = settings.with_changes(**changes)
    except InvalidSettingError as error:
        fail(str(error))
    name = process_name(settings)
    settings = settings.with_changes(process_name=name)
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
        log_config=log_config(
            name, level=args.log_level, json=settings.log_json, access_log=not args.no_access_log
        ),
        access_log=not args.no_access_log,
        proxy_headers=False,  # the app applies BLUEGRAY_TRUSTED_PROXIES itself
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
    mode = "with Redis: AI moves by 'bluegray worker'" if settings.scaled else "embedded"
    console.print(
        f"bluegray: serving on http://{shown_host}:{port}/ "
        f"(database: {shown(url)}; {mode}; process {name}; hosts: {', '.join(hosts)})",
        highlight=False,
    )
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn stops gracefully, then raises the signal again
        return EXIT_OK
    if not server.started:
        fail("the server did not start (see the log above)")
    return EXIT_OK
