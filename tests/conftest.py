"""Fixtures for every test: real PostgreSQL and Redis servers (started once per session, only
when a test asks for them, and stopped at the end), nginx reverse proxies and Caddy running the
shipped ``deploy/Caddyfile``; see ``tests/servers.py``."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence

import pytest

from tests.servers import CaddyProxy, PostgresServer, RedisServer, ReverseProxy


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server of the test session's own."""
    with PostgresServer() as server:
        yield server


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """The SQLAlchemy URL of a new, empty PostgreSQL database, dropped after the test."""
    name = postgres_server.new_database()
    try:
        yield postgres_server.url(name)
    finally:
        postgres_server.drop_database(name)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A Redis server of the test session's own."""
    with RedisServer() as server:
        yield server


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The URL of the session's Redis server, emptied for this test."""
    redis_server.flush()
    return redis_server.url


@pytest.fixture
def make_proxy() -> Iterator[Callable[..., ReverseProxy]]:
    """Start an nginx reverse proxy over upstream ports (``make_proxy([port_a, port_b])``),
    stopped at the end of the test."""
    with contextlib.ExitStack() as stack:

        def make(upstreams: Sequence[int], **options: float) -> ReverseProxy:
            return stack.enter_context(ReverseProxy(upstreams, **options))

        yield make


@pytest.fixture
def make_caddy() -> Iterator[Callable[..., CaddyProxy]]:
    """Start Caddy with the shipped ``deploy/Caddyfile`` over upstream ports
    (``make_caddy([port_a, port_b])``, ``host=`` the site's name), stopped at the end of the
    test."""
    with contextlib.ExitStack() as stack:

        def make(upstreams: Sequence[int], **options: str) -> CaddyProxy:
            return stack.enter_context(CaddyProxy(upstreams, **options))

        yield make
