"""The database: the engine, schema migrations at start-up, and the threads that keep blocking
database work off the event loop.

A URL names any database SQLAlchemy knows; ``postgresql://`` (and ``postgres://``) use psycopg 3,
the ``postgres`` extra's driver. A bad URL, a missing driver or a database that cannot be reached
is a ``DatabaseError`` saying which, in one line.

Migrations run once even when several processes start together on a new database: the upgrade
holds a lock of the database (PostgreSQL: an advisory lock; SQLite: the file's write lock, taken
at once with ``BEGIN IMMEDIATE``), so the others wait, then find the schema up to date.

Writes go through one writer thread that commits them in groups: every write waiting when a
transaction starts shares its commit (one fsync for many moves), and each caller hears only
after the commit. A write that fails is retried alone, so it never takes others down with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.util import CommandError as AlembicError
from sqlalchemy import URL, Connection, Engine, Table, create_engine, event, text, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine.url import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from bluegray.errors import BlueGrayError

T = TypeVar("T")

MIGRATIONS: Final = Path(__file__).parent.parent / "migrations"
BATCH: Final = 128
"""The most writes that share one transaction."""
MIGRATION_LOCK: Final = int.from_bytes(b"bluegray", "big")
"""The PostgreSQL advisory lock held while the schema is upgraded."""
CONNECT_SECONDS: Final = 10
"""How long a connection to a database server may take (unless the URL says otherwise)."""
DRIVERS: Final = {"postgresql": "postgresql+psycopg", "postgres": "postgresql+psycopg"}
"""The driver a URL without one gets."""
EXTRAS: Final = {"psycopg": "postgres"}
"""The extra of bluegray that installs a driver."""

log = logging.getLogger("bluegray.web")


class ConflictError(Exception):
    """A write found the game changed under it (another process wrote it): nothing was written."""


class DatabaseError(BlueGrayError):
    """The database cannot be used: a bad URL, a missing driver, a server that cannot be
    reached, or a schema that cannot be upgraded."""


def database_url(text: str) -> URL:
    """The SQLAlchemy URL of ``text``, with psycopg 3 as PostgreSQL's driver when none is named.

    >>> shown(database_url("postgresql://bg:secret@db/bluegray"))
    'postgresql+psycopg://bg:***@db/bluegray'
    """
    try:
        url = make_url(text)
    except ArgumentError:
        raise DatabaseError(
            "invalid database URL: expected DIALECT[+DRIVER]://USER:PASSWORD@HOST/DATABASE "
            "(e.g. postgresql://bg:secret@localhost/bluegray) or sqlite:///PATH"
        ) from None
    return url.set(drivername=DRIVERS.get(url.drivername, url.drivername))


def shown(url: URL) -> str:
    """The URL to print: without its password."""
    return url.render_as_string(hide_password=True)


def _create(url: URL, **options: Any) -> Engine:
    try:
        return create_engine(url, **options)
    except NoSuchModuleError:
        raise DatabaseError(
            f"unknown database {url.drivername!r} in the URL {shown(url)} "
            "(e.g. postgresql:// or sqlite://)"
        ) from None
    except ImportError as error:
        module = (error.name or str(error)).split(".")[0]
        extra = EXTRAS.get(module)
        install = f': pip install "bluegray[{extra}]"' if extra else ""
        raise DatabaseError(
            f"the database driver {module} for {url.get_backend_name()} is not installed{install}"
        ) from None


def make_engine(url: str, *, sqlite_synchronous: str = "FULL") -> Engine:
    """An engine for ``url``; SQLite files get WAL mode, a busy timeout and foreign keys."""
    parsed = database_url(url)
    if parsed.get_backend_name() != "sqlite":
        connect_args: dict[str, Any] = {}
        if parsed.get_backend_name() == "postgresql" and "connect_timeout" not in parsed.query:
            connect_args["connect_timeout"] = CONNECT_SECONDS
        return _create(
            parsed, pool_pre_ping=True, pool_size=8, max_overflow=8, connect_args=connect_args
        )
    database = parsed.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = _create(parsed, connect_args={"check_same_thread": False, "timeout": 30})
    synchronous = sqlite_synchronous.upper()
    if synchronous not in ("OFF", "NORMAL", "FULL", "EXTRA"):
        raise ValueError(f"invalid sqlite_synchronous {sqlite_synchronous!r}")

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    return engine


@dataclass(frozen=True)
class Upgrade:
    """What an upgrade did: the schema's revision before and after (``None``: no schema)."""

    before: str | None
    after: str | None

    @property
    def changed(self) -> bool:
        return self.before != self.after


def hold_lock(connection: Connection, key: int) -> None:
    """Begin the transaction of ``connection`` holding the database's lock ``key`` until it
    ends: a process asking for the same lock waits (PostgreSQL: the advisory lock ``key``;
    SQLite: the file's write lock, whatever the key). Call it before anything else on the
    connection."""
    dialect = connection.dialect.name
    if dialect == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})
    elif dialect == "sqlite":
        # The write lock now, before anything is read: a deferred transaction would read the
        # old schema, then fail to write once another process has changed it.
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def upgrade_schema(engine: Engine) -> Upgrade:
    """Bring the schema to the newest revision (creates it in an empty database), in one
    transaction that holds the database's lock for migrations, so that processes starting
    together on a new database upgrade it once. ``DatabaseError`` if the database cannot be
    reached or upgraded."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    try:
        with engine.connect() as connection:
            hold_lock(connection, MIGRATION_LOCK)
            before = MigrationContext.configure(connection).get_current_revision()
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
            after = MigrationContext.configure(connection).get_current_revision()
            connection.commit()
    except (SQLAlchemyError, AlembicError) as error:
        cause = getattr(error, "orig", None) or error
        reason = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
        raise DatabaseError(f"cannot use the database {shown(engine.url)}: {reason}") from error
    return Upgrade(before, after)


def upsert(connection: Connection, table: Table, values: Mapping[str, Any]) -> None:
    """Insert a row into ``table``, or update the row that has its primary key: one statement,
    so that two processes doing it at once both succeed (on PostgreSQL, an update that finds no
    row followed by an insert fails when another transaction inserted the row meanwhile)."""
    key = [column.name for column in table.primary_key.columns]
    changed = {name: value for name, value in values.items() if name not in key}
    dialect = connection.dialect.name
    if dialect in ("postgresql", "sqlite"):
        insert = postgresql_insert if dialect == "postgresql" else sqlite_insert
        statement = insert(table).values(dict(values))
        excluded = statement.excluded
        connection.execute(
            statement.on_conflict_do_update(
                index_elements=key, set_={name: excluded[name] for name in changed}
            )
        )
        return
    where = [table.c[name] == values[name] for name in key]
    if connection.execute(update(table).where(*where).values(changed)).rowcount == 0:
        connection.execute(table.insert().values(dict(values)))


class _Job:
    __slots__ = ("future", "loop", "work")

    def __init__(
        self,
        work: Callable[[Connection], Any],
        loop: asyncio.AbstractEventLoop,
        future: asyncio.Future[Any],
    ) -> None:
        self.work = work
        self.loop = loop
        self.future = future


def _resolve(future: asyncio.Future[Any], value: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


class Database:
    """The engine with a writer thread (group commit) and a few reader threads."""

    def __init__(self, url: str, *, sqlite_synchronous: str = "FULL") -> None:
        self.engine = make_engine(url, sqlite_synchronous=sqlite_synchronous)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._writer = threading.Thread(target=self._write_loop, name="bluegray-db-writer")
        self._readers = ThreadPoolExecutor(4, thread_name_prefix="bluegray-db-reader")
        self._started = False

    def start(self, *, migrate: bool = True) -> None:
        """Start the writer; first bring the schema up to date unless ``migrate`` is false (a
        worker leaves that to the web processes)."""
        if migrate:
            upgrade_schema(self.engine)
        self._writer.start()
        self._started = True

    def close(self) -> None:
        if self._started:
            self._jobs.put(None)
            self._writer.join(timeout=30)
            self._started = False
        self._readers.shutdown(wait=True)
        self.engine.dispose()

    async def write(self, work: Callable[[Connection], T]) -> T:
        """Run ``work`` in a transaction on the writer thread; return once it is committed.

        Writes get a Core connection, not an ORM session: a session costs several times as
        much per transaction, and the writer is on every move's path."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._jobs.put(_Job(work, loop, future))
        return await future

    async def read(self, work: Callable[[Session], T]) -> T:
        """Run ``work`` with a session on a reader thread."""

        def run() -> T:
            with self.sessions() as session:
                return work(session)

        return await asyncio.get_running_loop().run_in_executor(self._readers, run)

    def run(self, work: Callable[[Connection], T]) -> T:
        """Run ``work`` in a transaction here and now (tests and tools, off the event loop)."""
        with self.engine.begin() as connection:
            return work(connection)

    # -- the writer thread -----------------------------------------------------------------

    def _write_loop(self) -> None:
        stopping = False
        while not stopping:
            first = self._jobs.get()
            if first is None:
                break
            batch = [first]
            while len(batch) < BATCH:
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    stopping = True
                    break
                batch.append(job)
            self._commit(batch)

    def _commit(self, batch: list[_Job]) -> None:
        try:
            with self.engine.begin() as connection:
                results = [job.work(connection) for job in batch]
        except BaseException as error:
            if len(batch) == 1:
                self._settle(batch[0], None, error)
            else:
                for job in batch:  # one of them failed: give each its own transaction
                    self._commit([job])
            return
        for job, result in zip(batch, results, strict=True):
            self._settle(job, result, None)

    @staticmethod
    def _settle(job: _Job, value: Any, error: BaseException | None) -> None:
        if error is not None and not isinstance(error, ConflictError):
            log.error("database write failed", exc_info=error)
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody is waiting any more
            job.loop.call_soon_threadsafe(_resolve, job.future, value, error)
