"""The protocol tests' fixture: an engine process, killed at the end of the test if still
running."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.protocol.engine_session import TIMEOUT, EngineSession


@pytest.fixture
def engine() -> Iterator[EngineSession]:
    session = EngineSession()
    yield session
    if session.process.poll() is None:
        session.process.kill()
    session.process.wait(TIMEOUT)
