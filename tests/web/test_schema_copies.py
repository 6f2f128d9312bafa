"""The copies of a migrated database the web tests start their apps on
(``tests/web/schema_copies.py``): a copy is at the newest revision, and a database a test has
touched is left as it is."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from sqlalchemy import text

from bluegray.web.platform.db import make_engine
from tests.web.processes.test_start import HEAD
from tests.web.schema_copies import SchemaTemplates

if TYPE_CHECKING:
    from tests.servers import PostgresServer


def _revision_and_tables(url: str) -> tuple[str | None, set[str]]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            tables = set(engine.dialect.get_table_names(connection))
            revision = None
            if "alembic_version" in tables:
                revision = connection.execute(
                    text("SELECT version_num FROM alembic_version")
                ).scalar()
            return revision, tables
    finally:
        engine.dispose()


def _postgres(request: pytest.FixtureRequest, url: str) -> PostgresServer | None:
    """The worker's PostgreSQL server where ``url`` is one of its databases."""
    if not url.startswith("postgresql"):
        return None
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server


def test_an_untouched_database_becomes_a_copy_at_the_newest_revision(
    database_url: str, schema_templates: SchemaTemplates, request: pytest.FixtureRequest
) -> None:
    postgres = _postgres(request, database_url)
    assert schema_templates.copy_into(database_url, postgres)
    revision, tables = _revision_and_tables(database_url)
    assert revision == HEAD and {"games", "accounts"} <= tables
    assert not schema_templates.copy_into(database_url, postgres)


def test_a_database_a_test_has_touched_is_left_as_it_is(
    database_url: str, schema_templates: SchemaTemplates, request: pytest.FixtureRequest
) -> None:
    engine = make_engine(database_url)
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE mine (x INTEGER)"))
    engine.dispose()
    assert not schema_templates.copy_into(database_url, _postgres(request, database_url))
    assert _revision_and_tables(database_url) == (None, {"mine"})
