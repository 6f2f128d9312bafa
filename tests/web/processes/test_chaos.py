"""The chaos test: the scaled service — PostgreSQL, Redis, two ``bluegray serve`` behind the
shipped proxy, two ``bluegray worker`` — plays games while each of its parts fails in turn and
comes back, and heals by itself: every acknowledged move stays stored and reaches every socket of
its game within 5 s of the part's return, the AI answers within 15 s, no flag or abandonment is
granted wrongly, and no process is restarted by hand (a process that was killed is started again,
as its supervisor would). The service and the faults are ``tests/web/processes/chaos_service.py``'s.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import compose_health_uris, proxy_health_uri
from tests.web.cluster import HEALTH_URI
from tests.web.processes.chaos_service import Chaos, play_through_faults, running_service


@pytest.fixture
def chaos(tmp_path: Path) -> Iterator[Chaos]:
    with running_service(tmp_path) as service:
        yield service


def test_the_chaos_test_checks_health_as_the_shipped_proxy_and_compose_file_do() -> None:
    """The processes are deemed up by exactly the URI the shipped files' health checks ask for."""
    assert proxy_health_uri() == HEALTH_URI
    uris = compose_health_uris()
    assert uris and set(uris.values()) == {HEALTH_URI}, uris


@pytest.mark.slow
def test_the_service_heals_itself_whatever_part_fails(chaos: Chaos) -> None:
    acknowledged = play_through_faults(chaos)
    assert not chaos.ledger.errors, chaos.ledger.errors
    assert acknowledged > 100, f"only {acknowledged} moves were acknowledged"
    assert not chaos.findings, "\n".join([*chaos.findings, *chaos.evidence()])
