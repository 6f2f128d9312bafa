"""The database: the engine, schema migrations at start-up, and the threads that keep blocking
database work off the event loop.

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
from pathlib import Path
from typing import Any, Final, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, Table, create_engine, event, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine.url import make_url
from sqlalchemy.orm import Session, sessionmaker

T = TypeVar("T")

MIGRATIONS: Final = Path(__file__).parent / "migrations"
BATCH: Final = 128
"""The most writes that share one transaction."""

log = logging.getLogger("bluegray.web")


class ConflictError(Exception):
    """A write found the game changed under it (another process wrote it): nothing was written."""


def make_engine(url: str, *, sqlite_synchronous: str = "FULL") -> Engine:
    """An engine for ``url``; SQLite files get WAL mode, a busy timeout and foreign keys."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True, pool_size=8, max_overflow=8)
    database = parsed.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})
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


def upgrade_schema(engine: Engine) -> None:
    """Bring the schema to the newest revision (creates it in an empty database)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


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

    def start(self) -> None:
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
