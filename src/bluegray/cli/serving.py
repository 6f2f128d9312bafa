"""``bluegray serve``'s server: the web app on uvicorn. It imports the web extra, so the command
loads this module only when it runs (``serve``)."""

from __future__ import annotations

import argparse
import errno
import socket

import uvicorn
from sqlalchemy.engine.url import make_url

from bluegray.cli.common import EXIT_OK, console, fail
from bluegray.web.app import create_app
from bluegray.web.settings import InvalidSettingError, Settings


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
    """Serve the web app as ``bluegray serve``'s options say."""
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
    try:
        url = make_url(settings.resolved_database_url)
    except Exception as error:
        fail(f"invalid --database-url: {error}")
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
        f"bluegray: serving on http://{shown_host}:{port}/ "
        f"(database: {url.render_as_string(hide_password=True)})",
        highlight=False,
    )
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn stops gracefully, then raises the signal again
        return EXIT_OK
    if not server.started:
        fail("the server did not start (see the log above)")
    return EXIT_OK
