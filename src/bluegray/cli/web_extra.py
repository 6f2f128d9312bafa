"""The parts of the commands that need the web extra: ``bluegray serve`` (the web app on uvicorn),
``bluegray db upgrade``, ``bluegray worker``, ``bluegray user`` and ``bluegray explorer fill``. Each
command loads this module only when it runs (``serve``, ``db``, ``worker``, ``user``,
``explorer``), so that every other command starts without the web extra."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import errno
import logging.config
import socket

import uvicorn
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from bluegray.cli.common import EXIT_OK, console, fail
from bluegray.web.accounts.players import find_account
from bluegray.web.accounts.service import (
    access_counts,
    close_account,
    make_bot,
    set_moderator,
)
from bluegray.web.app import create_app
from bluegray.web.endings import CLOSING_STEPS
from bluegray.web.explorer.service import Filled, fill
from bluegray.web.games.player_games import games_played
from bluegray.web.games.rated_pairs import DAY_MS, capped_pairs
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.db import database_url, make_engine, shown, upgrade_schema
from bluegray.web.platform.logs import log_config
from bluegray.web.platform.settings import InvalidSettingError, Settings, process_name
from bluegray.web.platform.slow_clients import slow_client_protocol
from bluegray.web.worker import supervise, worker_slots


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


def serve(args: argparse.Namespace) -> int:
    """``bluegray serve``: serve the web app as its options say."""
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
        timeout_keep_alive=settings.keep_alive_seconds,
        # uvicorn's h11 protocol with deadlines for slow headers and bodies (it has none), and
        # a cap on the connections served at once (503 past it).
        http=slow_client_protocol(settings),
        limit_concurrency=settings.max_connections,
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


def _database_of(args: argparse.Namespace) -> str:
    """The database of a command: ``--database-url``, else ``BLUEGRAY_DATABASE_URL``, else the
    default SQLite file."""
    try:
        settings = Settings.from_env()
    except InvalidSettingError as error:
        fail(str(error))
    if args.database_url:
        settings = settings.with_changes(database_url=args.database_url)
    return settings.resolved_database_url


def upgrade(args: argparse.Namespace) -> int:
    """``bluegray db upgrade``: create or upgrade the schema."""
    url = _database_of(args)
    where = shown(database_url(url))
    engine = make_engine(url)
    try:
        upgrade = upgrade_schema(engine)
        # The stored games are counted once, by the upgrade that creates the explorer's tables
        # (revision 0012); the books are loaded whenever a release ships new ones.
        filled = fill(engine, games=upgrade.before is not None and upgrade.before < "0012")
    finally:
        engine.dispose()
    if upgrade.before is None:
        console.print(f"bluegray: created the schema (revision {upgrade.after}) in {where}")
    elif upgrade.changed:
        console.print(
            f"bluegray: upgraded {where} from revision {upgrade.before} to {upgrade.after}"
        )
    else:
        console.print(f"bluegray: {where} is up to date (revision {upgrade.after})")
    _print_filled(filled)
    return EXIT_OK


def _print_filled(filled: Filled) -> None:
    if filled.books:
        console.print(f"bluegray: the explorer loaded the books of {', '.join(filled.books)}")
    if filled.games:
        console.print(f"bluegray: the explorer counted {filled.games} more games")


def explorer_fill(args: argparse.Namespace) -> int:
    """``bluegray explorer fill``: the shipped books and the stored games not counted yet."""
    url = _database_of(args)
    engine = make_engine(url)
    try:
        upgrade_schema(engine)
        filled = fill(engine)
    finally:
        engine.dispose()
    _print_filled(filled)
    if not filled.books and not filled.games:
        console.print(f"bluegray: the explorer of {shown(database_url(url))} is up to date")
    return EXIT_OK


def work(args: argparse.Namespace) -> int:
    """``bluegray worker``: compute the AI's jobs from Redis."""
    if args.processes is not None and not 1 <= args.processes <= 1024:
        fail(f"--processes must be 1 to 1024, not {args.processes}")
    changes: dict[str, object] = {}
    for option in ("redis_url", "database_url", "process_name"):
        value = getattr(args, "name" if option == "process_name" else option)
        if value:
            changes[option] = value
    if args.processes:
        changes["ai_workers"] = args.processes
    if args.metrics_port is not None:
        changes["worker_metrics_port"] = args.metrics_port
    try:
        settings = Settings.from_env().with_changes(**changes)
    except InvalidSettingError as error:
        fail(str(error))
    if not settings.redis_url:
        fail("the worker needs Redis: set BLUEGRAY_REDIS_URL or --redis-url")
    if not settings.database_url:
        fail("the worker needs the web service's database: set BLUEGRAY_DATABASE_URL")
    name = process_name(settings)
    logging.config.dictConfig(
        log_config(name, level=args.log_level, json=settings.log_json, access_log=False)
    )
    count = worker_slots(settings)
    console.print(f"bluegray worker {name}: {count} engine processes", highlight=False)
    try:
        asyncio.run(supervise(settings, name, count))
    except KeyboardInterrupt:
        return EXIT_OK
    except OSError as error:
        fail(f"cannot reach Redis at {settings.redis_url}: {error}")
    return EXIT_OK


def _day(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%d")


def _rated_pairs(engine: Engine, days: int) -> int:
    """``bluegray user pairs``: the pairs that reached the daily limit of rated games."""
    with engine.connect() as connection:
        pairs = capped_pairs(connection, now_ms() - days * DAY_MS)
    if not pairs:
        console.print(f"bluegray: no pair reached the daily limit of rated games in {days} days")
    for pair in pairs:
        console.print(
            f"{pair.first} and {pair.second}: {pair.rated} rated, {pair.unrated} made unrated "
            f"by the limit, the last on {_day(pair.last_ms)}"
        )
    return EXIT_OK


def user(args: argparse.Namespace) -> int:
    """``bluegray user ACTION NAME``: moderators, closing, bots, and what an account is."""
    engine = make_engine(_database_of(args))
    try:
        upgrade_schema(engine)
        if args.user_command == "pairs":
            return _rated_pairs(engine, args.days)
        with Session(engine) as session, session.begin():
            row = find_account(session, args.name)
            if row is None:
                fail(f"no account is called {args.name}")
            connection = session.connection()
            name = row.name
            if args.user_command == "moderator":
                set_moderator(connection, row.id, not args.off)
                done = "no longer a moderator" if args.off else "a moderator now"
                console.print(f"bluegray: {name} is {done}")
            elif args.user_command == "close":
                if row.closed_ms is not None:
                    console.print(f"bluegray: {name}'s account was already closed")
                else:
                    close_account(connection, row.id, now_ms(), CLOSING_STEPS)
                    console.print(
                        f"bluegray: closed {name}'s account (its sessions and API tokens ended)"
                    )
            elif args.user_command == "bot":
                if row.bot:
                    console.print(f"bluegray: {name}'s account is a bot's already")
                elif not make_bot(connection, row.id):
                    fail(f"{name} has played games: only a new account can become a bot's")
                else:
                    console.print(f"bluegray: {name}'s account is a bot's now")
            else:
                sessions, tokens = access_counts(session, row.id, now_ms())
                state = "open" if row.closed_ms is None else f"closed on {_day(row.closed_ms)}"
                console.print(
                    f"{name}: account {row.id} since {_day(row.created_ms)}, "
                    f"{'a bot' if row.bot else 'a person'}, "
                    f"{'a moderator' if row.moderator else 'not a moderator'}, {state}; "
                    f"{games_played(session, row.id)} games, {sessions} sessions, "
                    f"{tokens} API tokens"
                )
    finally:
        engine.dispose()
    return EXIT_OK
