"""The parts under the app: clocks, the schema migrations, group commit, settings, the rate
limiter, and the ``serve`` command's errors."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import logging
import logging.config
import random
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, insert, inspect, select, text
from sqlalchemy.exc import IntegrityError

from bluegray.cli.main import main
from bluegray.game import Game
from bluegray.pieces import Side
from bluegray.web.games.live import LiveGame, Played
from bluegray.web.migrations.schema import schema
from bluegray.web.platform.clocks import Clock
from bluegray.web.platform.db import ConflictError, Database
from bluegray.web.platform.logs import game_id_var, log_config
from bluegray.web.platform.models import ServerStateRow
from bluegray.web.platform.rates import RateLimits
from bluegray.web.platform.security import digest, matches, new_token
from bluegray.web.platform.settings import InvalidSettingError, Settings
from bluegray.web.timers.uptime import HEARTBEAT_KEY, note_alive
from tests.paths import REPOSITORY
from tests.servers import PostgresServer, free_port

# -- clocks -----------------------------------------------------------------------------------


def test_a_clock_charges_the_mover_and_adds_the_increment() -> None:
    clock = Clock.new(60_000, 2_000)
    assert clock.running is None and clock.flag_at() is None
    clock = clock.after_move(Side.BLUE, 1_000, running_next=True)  # the first move is free
    assert (clock.blue_ms, clock.gray_ms, clock.running, clock.since_ms) == (
        60_000,
        60_000,
        Side.GRAY,
        1_000,
    )
    assert clock.left(Side.GRAY, 6_000) == 55_000 and clock.flag_at() == 61_000
    clock = clock.after_move(Side.GRAY, 6_000, running_next=True)
    assert clock.gray_ms == 57_000 and clock.running is Side.BLUE
    stopped = clock.switched(None, 10_000)
    assert stopped.blue_ms == 56_000 and stopped.running is None
    assert clock.shifted(500).flag_at() == 6_000 + 500 + 60_000


# -- the database -----------------------------------------------------------------------------


def test_the_migrations_build_exactly_the_models_schema(database_url: str) -> None:
    database = Database(database_url)
    database.start()
    try:
        with database.engine.connect() as connection:
            context = MigrationContext.configure(connection)
            assert compare_metadata(context, schema()) == []
            assert context.get_current_revision() == "0013"
            if connection.dialect.name == "sqlite":
                mode = connection.execute(text("PRAGMA journal_mode")).scalar()
                assert mode == "wal"
        tables = set(inspect(database.engine).get_table_names())
        assert {"games", "seats", "moves", "listings", "server_state"} <= tables
    finally:
        database.close()
    again = Database(database_url)
    again.start()  # upgrading an up-to-date database changes nothing
    again.close()


def test_the_whole_schema_gathers_every_domains_tables_in_a_fresh_process() -> None:
    # Each domain keeps its tables in its own rows.py; migrations/schema.py alone gathers them
    # for Alembic (the `alembic` command loads nothing else). Checked in a fresh interpreter: in
    # this one the app's modules have put every table on the metadata already.
    web = REPOSITORY / "src" / "bluegray" / "web"
    rows_modules = sorted(f"bluegray.web.{path.parent.name}.rows" for path in web.glob("*/rows.py"))
    program = (
        "import json, sys\n"
        "from bluegray.web.migrations.schema import DOMAIN_ROWS, schema\n"
        "print(json.dumps(sorted(module.__name__ for module in DOMAIN_ROWS)))\n"
        "print(json.dumps(sorted(schema().tables)))\n"
        "print(json.dumps(sorted(name for name, module in sys.modules.items()"
        " if name.startswith('bluegray.web.') and not hasattr(module, '__path__'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=60
    )
    gathered, tables, loaded = (json.loads(line) for line in done.stdout.splitlines())
    assert gathered == rows_modules
    assert tables == sorted(
        {
            "accounts", "api_tokens", "chat_messages", "chat_mutes", "chat_reports",
            "chat_silences", "deadlines", "explorer_books", "explorer_games", "explorer_moves",
            "games", "idempotency_keys", "listings", "moves", "puzzle_attempts", "puzzle_ratings",
            "puzzles", "rating_history", "ratings", "review_positions", "reviews", "seats", "seeks",
            "server_state", "sessions", "tournament_byes", "tournament_games", "tournament_players",
            "tournaments",
        }
    )  # fmt: skip
    # The rows import nothing of their domains (but their packages) and of the platform but Base.
    assert [name for name in loaded if not name.endswith(".rows")] == [
        "bluegray.web.migrations.schema",
        "bluegray.web.platform.models",
    ]


def test_writes_share_commits_and_a_failing_one_fails_alone(database_url: str) -> None:
    database = Database(database_url)
    database.start()

    def put(key: str) -> Callable[[Connection], str | None]:
        def work(connection: Connection) -> str | None:
            connection.execute(insert(ServerStateRow).values(key=key, value=key))
            return key

        return work

    def conflict(connection: Connection) -> str | None:
        raise ConflictError("changed")

    async def run() -> list[str | BaseException | None]:
        jobs = [database.write(put(f"k{i}")) for i in range(20)]
        jobs.insert(7, database.write(conflict))
        jobs.insert(12, database.write(put("k3")))  # a key already written: the database refuses
        return list(await asyncio.gather(*jobs, return_exceptions=True))

    try:
        results = asyncio.run(run())
        assert isinstance(results[7], ConflictError)
        assert isinstance(results[12], IntegrityError)
        others = [r for i, r in enumerate(results) if i not in (7, 12)]
        assert others == [f"k{i}" for i in range(20)]
        keys = database.run(lambda c: set(c.execute(select(ServerStateRow.key)).scalars()))
        assert keys == {f"k{i}" for i in range(20)}
    finally:
        database.close()


def test_servers_starting_together_on_an_empty_database_both_note_they_are_alive(
    database_url: str,
) -> None:
    """The first server to start inserts the heartbeat row; a second one that looked for the
    row before the first committed must update it, not fail on its key (PostgreSQL)."""
    database = Database(database_url)
    database.start()
    try:
        errors: list[BaseException] = []

        def second() -> None:
            try:
                with database.engine.begin() as connection:
                    note_alive(connection, stamp=2)
            except BaseException as error:
                errors.append(error)

        with database.engine.connect() as connection, connection.begin():
            note_alive(connection, stamp=1)
            thread = threading.Thread(target=second)
            thread.start()
            time.sleep(0.5)  # the second writer waits for this transaction
        thread.join(30)
        assert not thread.is_alive() and errors == []
        stored = database.run(
            lambda c: c.execute(
                select(ServerStateRow.value).where(ServerStateRow.key == HEARTBEAT_KEY)
            ).scalar()
        )
        assert stored == "2"
    finally:
        database.close()


# -- security and settings --------------------------------------------------------------------


def test_tokens_are_stored_as_digests_and_checked_in_constant_time() -> None:
    token = new_token()
    stored = digest(token)
    assert token not in stored and len(stored) == 64
    assert matches(token, stored) and not matches(token + "x", stored)
    assert not matches(token, None)


def test_a_rate_limit_allows_a_burst_then_refuses_with_the_wait() -> None:
    rates = RateLimits(Settings(http_rate=2, http_burst=3), shared=False)

    async def takes() -> list[float]:
        return [await rates.take(rates.requests, "a") for _ in range(4)] + [
            await rates.take(rates.requests, "b")  # another client has its own count
        ]

    first, second, third, fourth, other = asyncio.run(takes())
    assert first == second == third == 0.0 and other == 0.0
    assert 0 < fourth <= 2.0  # a burst of 3 in any 2 seconds


def test_settings_come_from_the_environment() -> None:
    settings = Settings.from_env(
        {"BLUEGRAY_AI_WORKERS": "3", "BLUEGRAY_RATE_LIMITS": "off", "BLUEGRAY_HTTP_RATE": "2.5"}
    )
    assert settings.ai_workers == 3 and settings.rate_limits is False
    assert settings.http_rate == 2.5
    with pytest.raises(InvalidSettingError, match="BLUEGRAY_AI_WORKERS"):
        Settings.from_env({"BLUEGRAY_AI_WORKERS": "many"})


# -- the serve command ------------------------------------------------------------------------


def test_serve_reports_a_busy_port_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--port", str(port), "--database-url", "sqlite://"]) == 2
    error = capsys.readouterr().err.strip()
    assert error == f"bluegray: error: cannot listen on 127.0.0.1:{port}: the port is in use"


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("bluegray: error: "), error
    return error.strip()


def test_serve_reports_a_bad_database_url_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "0", "--database-url", "not a url"]) == 2
    assert "invalid database URL" in _one_error_line(capsys)
    assert main(["serve", "--port", "0", "--database-url", "nosuch://host/db"]) == 2
    assert "unknown database 'nosuch'" in _one_error_line(capsys)


def test_serve_reports_a_missing_driver_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg fails as if not installed
    url = "postgresql://bg:secret@127.0.0.1:5432/bluegray"
    assert main(["serve", "--port", "0", "--database-url", url]) == 2
    assert _one_error_line(capsys) == (
        "bluegray: error: the database driver psycopg for postgresql is not installed: "
        'pip install "bluegray[postgres]"'
    )


def test_serve_reports_a_database_it_cannot_reach_in_one_line(
    capsys: pytest.CaptureFixture[str], postgres_server: PostgresServer
) -> None:
    nobody = f"postgresql://bg:secret@127.0.0.1:{free_port()}/bluegray"
    assert main(["serve", "--port", "0", "--database-url", nobody]) == 2
    error = _one_error_line(capsys)
    assert "cannot use the database postgresql+psycopg://bg:***@127.0.0.1:" in error
    assert "refused" in error and "secret" not in error
    wrong = postgres_server.url("postgres").replace(postgres_server.password, "wrong")
    assert main(["serve", "--port", "0", "--database-url", wrong]) == 2
    error = _one_error_line(capsys)
    assert "password authentication failed" in error and "wrong" not in error


@pytest.mark.parametrize("scheme", ["postgresql://", "postgres://"])
def test_a_postgresql_url_without_a_driver_uses_psycopg(postgres_url: str, scheme: str) -> None:
    database = Database(postgres_url.replace("postgresql+psycopg://", scheme))
    database.start()
    try:
        assert database.engine.driver == "psycopg"
        assert "games" in inspect(database.engine).get_table_names()
    finally:
        database.close()


# -- what clients see, computed incrementally -------------------------------------------------


def test_the_incremental_view_of_a_game_equals_the_full_one() -> None:
    rng = random.Random(7)
    live = LiveGame(
        id="g",
        mode="hotseat",
        status="active",
        game=Game("super-light"),
        version=1,
        created_ms=0,
        updated_ms=0,
    )
    for step in range(150):
        draft = live.copy()
        if draft.game.ply and rng.random() < 0.15:
            draft.game.pop()
            draft.played.pop()
        elif draft.game.legal_moves:
            draft.game.push(rng.choice(draft.game.legal_moves))
            draft.played.append(Played(step))
        else:
            break
        draft.version += 1
        draft.sync_status()
        fresh = dataclasses.replace(draft.copy(), _derived=None)
        assert draft.derived() == dataclasses.replace(fresh.derived(), last=draft.derived().last)
        assert draft.derived().moves == [str(move) for move in draft.game.moves]
        live = draft


def test_every_setting_is_in_the_docs_table() -> None:
    text = (REPOSITORY / "docs" / "web.md").read_text()
    documented = set(re.findall(r"`(?:BLUEGRAY)?_([A-Z][A-Z_]+)`", text))
    missing = [name for name in Settings.model_fields if name.upper() not in documented]
    assert missing == []


def test_log_lines_name_the_process_and_the_game_and_can_be_json() -> None:
    stream = io.StringIO()
    for json_lines in (False, True):
        config = log_config("web-9", level="info", json=json_lines, access_log=True)
        config["handlers"]["line"]["stream"] = stream
        logging.config.dictConfig(config)
        token = game_id_var.set("g123")
        try:
            logging.getLogger("bluegray.web").info("a move")
        finally:
            game_id_var.reset(token)
    plain, as_json = stream.getvalue().splitlines()
    assert plain.endswith("INFO web-9 game=g123 request=- a move")
    record = json.loads(as_json)
    assert record["game_id"] == "g123" and record["process_name"] == "web-9"
    assert record["message"] == "a move" and record["levelname"] == "INFO"
