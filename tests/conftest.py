"""Fixtures for every test: real PostgreSQL and Redis servers (started once per session, or once
per pytest-xdist worker, only when a test asks for them, and stopped at the end), nginx reverse
proxies and Caddy running the shipped ``deploy/Caddyfile``; see ``tests/servers.py``. The servers'
module (and with it the PostgreSQL driver and the Redis client) is loaded only when a test asks
for one, so the rules' tests need neither.

The lanes (docs/testing.md): every test is marked here, from what it uses, ``server`` (a real
server or process: PostgreSQL, Redis, a proxy, the app on a port, ``bluegray`` processes),
``browser`` (Chromium) or ``compiled`` (the numba-compiled engine); ``scripts/check --fast`` runs
the tests that are none of these, nor ``slow``. ``BLUEGRAY_TEST_STRICT=1`` (``scripts/check``
sets it) makes a test skipped for want of numba a failure.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import re
import types
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final

import pytest

from tests import slow_check

# Before any test module imports numba (many do, at collection, before the engine's compiler has
# set this itself: engine/compiled/compiler.py): numba decides at its first import whether to
# colour its messages with colorama, which swaps sys.stdout from a background compile and then
# puts back a stale stream, so that capsys lost a test's whole output (seen in
# tests/engine/test_analysis.py::test_the_analyse_command).
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")

if TYPE_CHECKING:
    from tests.servers import CaddyProxy, PostgresServer, RedisServer, ReverseProxy

SERVER_FIXTURES: Final = frozenset(
    {
        "postgres_server",
        "postgres_url",
        "redis_server",
        "redis_url",
        "make_proxy",
        "make_caddy",
        "make_server",
        "live_server",
        "processes",
    }
)
"""Fixtures that start a real server (or the app on a real port)."""
BROWSER_FIXTURES: Final = frozenset({"browser", "playwright_instance", "new_page"})
SPAWNING: Final = re.compile(
    r"\b(subprocess|Popen|sys\.executable|ServeProcess|WorkerProcess|Cluster|LocalCluster"
    r"|PostgresServer|RedisServer|ReverseProxy|CaddyProxy|MailSink|LiveServer|uvicorn"
    r"|Engine|ENGINE|ENGINE_SPEC|EnginePlayer|EngineSession)\b"
)
"""Names in a test's code (or a helper function or class of its module it uses) that start a
process or server (``Engine``: an engine process over the protocol; ``EngineSession``: the
protocol tests' own)."""
COMPILED_MODULES: Final = ("numba", "bluegray.engine.compiled")
"""What a test module imports when its tests run the numba-compiled engine."""
STRICT: Final = os.environ.get("BLUEGRAY_TEST_STRICT", "") not in ("", "0")
"""In CI (``scripts/check``): a test skipped for want of numba fails instead."""


def pytest_addoption(parser: pytest.Parser) -> None:
    slow_check.add_option(parser)


def pytest_configure(config: pytest.Config) -> None:
    slow_check.configure(config)


# -- the servers, loaded lazily ---------------------------------------------------------------


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server of the test session's own (of each xdist worker's own)."""
    from tests.servers import PostgresServer  # here: the driver, only when wanted

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
    """A Redis server of the test session's own (of each xdist worker's own)."""
    from tests.servers import RedisServer  # here: the client, only when wanted

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
    from tests.servers import ReverseProxy  # here: only when wanted

    with contextlib.ExitStack() as stack:

        def make(upstreams: Sequence[int], **options: float) -> ReverseProxy:
            return stack.enter_context(ReverseProxy(upstreams, **options))

        yield make


@pytest.fixture
def make_caddy() -> Iterator[Callable[..., CaddyProxy]]:
    """Start Caddy with the shipped ``deploy/Caddyfile`` over upstream ports
    (``make_caddy([port_a, port_b])``, ``host=`` the site's name), stopped at the end of the
    test."""
    from tests.servers import CaddyProxy  # here: only when wanted

    with contextlib.ExitStack() as stack:

        def make(upstreams: Sequence[int], **options: str) -> CaddyProxy:
            return stack.enter_context(CaddyProxy(upstreams, **options))

        yield make


# -- the lanes: markers from what each test uses ----------------------------------------------


def _spawns(function: Callable[..., Any], module: types.ModuleType | None) -> bool:
    """Whether ``function`` (or a function of ``module`` it names) starts a process or server."""
    try:
        source = inspect.getsource(function)
    except (OSError, TypeError):
        return False
    if SPAWNING.search(source):
        return True
    for name in getattr(function, "__code__", types.SimpleNamespace(co_names=())).co_names:
        helper = getattr(module, name, None)
        own = getattr(helper, "__module__", None) == getattr(module, "__name__", None)
        if (inspect.isfunction(helper) or inspect.isclass(helper)) and own:
            with contextlib.suppress(OSError, TypeError):
                if SPAWNING.search(inspect.getsource(helper)):
                    return True
    return False


def _uses_compiled(module: types.ModuleType | None) -> bool:
    """Whether a test module imports numba or the compiled engine."""
    for value in vars(module).values() if module is not None else ():
        name = value.__name__ if isinstance(value, types.ModuleType) else None
        name = name or getattr(value, "__module__", None)
        if isinstance(name, str) and name.startswith(COMPILED_MODULES):
            return True
    return False


def lanes_of(item: pytest.Item) -> set[str]:
    """The lane markers ``item`` gets: ``server``, ``browser``, ``compiled``."""
    lanes: set[str] = set()
    fixtures = set(getattr(item, "fixturenames", ()))
    callspec = getattr(item, "callspec", None)
    if fixtures & BROWSER_FIXTURES:
        lanes |= {"browser", "server"}
    if fixtures & SERVER_FIXTURES:
        lanes.add("server")
    if callspec is not None and callspec.params.get("database_url") == "postgresql":
        lanes.add("server")
    module = getattr(item, "module", None)
    function = getattr(item, "function", None)
    if function is not None and _spawns(function, module):
        lanes.add("server")
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    for name in fixtures:
        for definition in definitions.get(name, ()):
            fixture = definition.func
            home = getattr(fixture, "__module__", "") or ""
            if home.startswith("tests.") and _spawns(fixture, inspect.getmodule(fixture)):
                lanes.add("server")
    if _uses_compiled(module):
        lanes.add("compiled")
    return lanes


PHONE_WIDTH: Final = 600
"""A browser test's viewport narrower than this is a phone's."""


def database_of_browser_test(item: pytest.Item) -> str | None:
    """The one database a browser test runs on (``None``: it is not a browser test on a
    database). The pages never see the database: every API test runs on both, so a browser test
    runs each viewport once, the desktop on SQLite (the embedded default) and the phone on
    PostgreSQL, and a test without viewports on SQLite (unless it names its database itself)."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or "database_url" not in callspec.params:
        return None
    if item.get_closest_marker("browser") is None or any(
        "database_url" in str(marker.args[0]) for marker in item.iter_markers("parametrize")
    ):
        return None  # not a browser test, or one that names its database itself
    viewport = callspec.params.get("viewport")
    if isinstance(viewport, dict) and viewport.get("width", PHONE_WIDTH) < PHONE_WIDTH:
        return "postgresql"
    return "sqlite"


def _on_its_database(item: pytest.Item) -> bool:
    """Whether ``item`` runs on the database it is meant to (every test but a browser test's
    second database)."""
    database = database_of_browser_test(item)
    return database is None or item.callspec.params["database_url"] == database  # type: ignore[attr-defined]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for lane in sorted(lanes_of(item)):
            item.add_marker(lane)
    paired = [item for item in items if _on_its_database(item)]
    if len(paired) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if item not in paired])
        items[:] = paired


# -- in CI, no test skipped for want of numba -------------------------------------------------


def _numba_missing(report: pytest.CollectReport | pytest.TestReport) -> bool:
    return report.skipped and "numba" in str(report.longrepr)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    report = yield
    if STRICT and _numba_missing(report):
        report.outcome = "failed"
        report.longrepr = f"BLUEGRAY_TEST_STRICT: skipped for want of numba: {report.longrepr}"
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if STRICT and _numba_missing(report):
        report.outcome = "failed"
        report.longrepr = f"BLUEGRAY_TEST_STRICT: skipped for want of numba: {report.longrepr}"
    return report
