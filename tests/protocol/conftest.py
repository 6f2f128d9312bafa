"""The protocol tests' fixtures: an engine process, killed at the end of the test if still
running; and the plain kernel for every engine a test starts, unless it is marked
``compiled_kernel``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bluegray.engine.search import SEARCH_ENVIRONMENT
from tests.protocol.engine_session import TIMEOUT, EngineSession


@pytest.fixture
def engine() -> Iterator[EngineSession]:
    session = EngineSession()
    yield session
    if session.process.poll() is None:
        session.process.kill()
    session.process.wait(TIMEOUT)


@pytest.fixture(autouse=True)
def plain_kernel_engines(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Engines started here search with the plain kernel: the protocol does not depend on the
    kernel (the two are proven equal, tests/engine/test_kernels.py), and loading the compiled one costs
    each engine process a CPU second. Tests that time an engine, or that test how it chooses its
    kernel, are marked ``compiled_kernel`` or set the environment themselves."""
    if request.node.get_closest_marker("compiled_kernel") is None:
        monkeypatch.setenv(SEARCH_ENVIRONMENT, "python")
