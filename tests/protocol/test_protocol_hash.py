"""The engine protocol's ``Hash`` option is bounded by the machine's memory: its ``option`` line
advertises half of it as the most, and a larger value is refused with an ``info string`` that
says why, changing nothing."""

from __future__ import annotations

import os

import pytest

from bluegray.protocol import Option
from bluegray.protocol.server import HASH_CEILING, hash_limit
from tests.protocol.engine_session import TIMEOUT, EngineSession


def half_the_memory_mb() -> int:
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2 // 2**20


def test_the_hash_limit_is_half_the_memory_within_the_ceiling() -> None:
    assert hash_limit(8 * 2**30) == 4096
    assert hash_limit(1024 * 2**30) == HASH_CEILING
    assert hash_limit(2**20) == 1  # a tiny machine still has a table
    assert hash_limit(None) == HASH_CEILING  # a platform that does not say


@pytest.mark.skipif(not hasattr(os, "sysconf"), reason="reads the memory with sysconf")
def test_a_hash_beyond_the_machines_memory_is_refused() -> None:
    most = min(half_the_memory_mb(), HASH_CEILING)
    engine = EngineSession()
    try:
        engine.send("bgi")
        lines = engine.until("bgiok")
        hashes = [Option.parse(line) for line in lines if line.startswith("option name Hash ")]
        assert [(option.min, option.max) for option in hashes] == [(1, most)]
        engine.send(f"setoption name Hash value {most + 1}")
        refused = engine.ready()
        assert len(refused) == 1 and refused[0].startswith("info string error setoption: Hash ")
        if most < HASH_CEILING:
            assert "more than half of this machine's memory" in refused[0]
        assert refused[0].endswith(f"at most {most} MB") or f"1 to {most}" in refused[0]
        engine.send("setoption name Hash value 2")  # within the bound: accepted
        assert engine.ready() == []
        assert engine.quit() == 0
    finally:
        if engine.process.poll() is None:
            engine.process.kill()
            engine.process.wait(TIMEOUT)
