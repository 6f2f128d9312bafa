"""Start-up on a new database: ``bluegray db upgrade``, and several servers (or upgrades)
starting at once, which must create the schema once and all come up."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import Final

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, text

from bluegray.cli.main import main
from bluegray.web.explorer.book import shipped_books
from bluegray.web.platform.db import MIGRATIONS
from bluegray.web.platform.db import database_url as parse_url
from tests.servers import free_port
from tests.web.conftest import Json, ServeProcess


def _head() -> str:
    """The newest revision of the schema."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


HEAD = _head()
BOOKS_AT_START: Final = {
    "BLUEGRAY_AI_PROCESSES": "false",
    "BLUEGRAY_EXPLORER_BOOKS_AT_START": "true",  # as `bluegray serve` does on a fresh install
}


def _revisions(url: str) -> list[str]:
    engine = create_engine(parse_url(url))
    try:
        with engine.connect() as connection:
            rows = connection.execute(text("SELECT version_num FROM alembic_version"))
            return [revision for (revision,) in rows]
    finally:
        engine.dispose()


def test_db_upgrade_creates_the_schema_then_finds_it_up_to_date(
    database_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    shown = parse_url(database_url).render_as_string(hide_password=True)
    assert main(["db", "upgrade", "--database-url", database_url]) == 0
    books = ", ".join(shipped_books())
    assert capsys.readouterr().out == (
        f"bluegray: created the schema (revision {HEAD}) in {shown}\n"
        f"bluegray: the explorer loaded the books of {books}\n"
    )
    assert _revisions(database_url) == [HEAD]
    monkeypatch.setenv("BLUEGRAY_DATABASE_URL", database_url)  # the setting, without the option
    assert main(["db", "upgrade"]) == 0
    assert capsys.readouterr().out == f"bluegray: {shown} is up to date (revision {HEAD})\n"


def test_db_upgrade_reports_a_database_it_cannot_use_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    nobody = f"postgresql://bg:secret@127.0.0.1:{free_port()}/bluegray"
    assert main(["db", "upgrade", "--database-url", nobody]) == 2
    error = capsys.readouterr().err
    assert error.startswith("bluegray: error: cannot use the database") and error.count("\n") == 1


def test_db_upgrade_help_says_what_it_does_and_where() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "bluegray", "db", "upgrade", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for words in ("BLUEGRAY_DATABASE_URL", "bluegray serve", "several machines", "advisory lock"):
        assert words in shown


UPGRADES = 3
SERVERS = 3


def test_processes_starting_together_on_a_new_database_all_come_up(
    database_url: str, processes: list[ServeProcess]
) -> None:
    """Servers and upgrades started at the same moment on an empty database: the schema is
    made once (without the lock, one of them died on a table or key that another had just
    created), and every server serves the same games."""
    command = [sys.executable, "-m", "bluegray", "db", "upgrade", "--database-url", database_url]
    upgrades = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for _ in range(UPGRADES)
    ]
    for _ in range(SERVERS):
        processes.append(ServeProcess(free_port(), database_url, **BOOKS_AT_START))
    outputs = [upgrade.communicate(timeout=120)[0] for upgrade in upgrades]
    assert [upgrade.returncode for upgrade in upgrades] == [0] * UPGRADES, outputs
    for server in processes:
        server.wait_ready()
    assert _revisions(database_url) == [HEAD]
    engine = create_engine(parse_url(database_url))
    assert "games" in inspect(engine).get_table_names()
    engine.dispose()
    first, *others = processes
    created: Json = first.post("/api/games", {"opponent": {"type": "hotseat"}}).json()
    for server in others:
        assert server.get(f"/api/games/{created['game']['id']}")["id"] == created["game"]["id"]


def test_a_server_stopped_as_it_loads_the_books_stops_at_once_and_the_next_one_loads_them(
    database_url: str, processes: list[ServeProcess]
) -> None:
    # Before, a SIGTERM waited for every book to load: more than 20 s on a busy host.
    first = ServeProcess(free_port(), database_url, **BOOKS_AT_START)
    processes.append(first)
    first.wait_ready()
    os.kill(first.process.pid, signal.SIGTERM)
    assert first.process.wait(timeout=20) in (0, -signal.SIGTERM)
    second = ServeProcess(free_port(), database_url, **BOOKS_AT_START)
    processes.append(second)
    second.wait_ready()
    deadline = time.monotonic() + 120
    waiting = shipped_books()
    while waiting:
        assert time.monotonic() < deadline, f"no books of {waiting} within 120 s"
        time.sleep(0.2)  # poll interval: until the second server has loaded every book
        waiting = [
            rules for rules in waiting if second.get(f"/api/explorer?rules={rules}")["book"] is None
        ]
