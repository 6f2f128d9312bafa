"""Alembic's environment: runs the migrations on the connection the app hands over (or, from the
``alembic`` command line, on the configured URL)."""

from __future__ import annotations

from alembic import context
from alembic.config import Config
from sqlalchemy import Connection, create_engine

from bluegray.web.migrations.schema import schema


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=schema(),
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations(config: Config) -> None:
    if context.is_offline_mode():
        context.configure(url=config.get_main_option("sqlalchemy.url"), literal_binds=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url")
    if url is None:
        raise RuntimeError("no database: set sqlalchemy.url or pass a connection")
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            _run(connection)
    finally:
        engine.dispose()


# Alembic runs this module with its context set up; imported any other way (by a doctest
# collector, say) it has nothing to do.
_config: Config | None = getattr(context, "config", None)
if _config is not None:
    run_migrations(_config)
