"""The engine protocol's ``Hash`` option: its megabytes are what the compiled kernel's table
takes, 16 by default (the table a level plays with in the match runner and the web), and it is
bounded by the machine's memory: its ``option`` line advertises half of it as the most, and a
larger value is refused with an ``info string`` that says why, changing nothing."""

from __future__ import annotations

import io
import os

import pytest

from bluegray.engine.compiled.search import CompiledKernel
from bluegray.engine.kernel import SLOT_BYTES, table_slots
from bluegray.engine.levels import TOP_LEVEL
from bluegray.engine.network_file import evaluator_for
from bluegray.engine.players import SearchPlayer
from bluegray.protocol import Option
from bluegray.protocol.server import HASH_CEILING, EngineServer, hash_limit
from bluegray.rules import rules_by_name
from tests.protocol.engine_session import TIMEOUT, EngineSession

SACKSON = rules_by_name("sackson")


def table_entries(*commands: str) -> int:
    """The entries of the table the engine searches with after ``commands``."""
    server = EngineServer(io.StringIO())
    for command in commands:
        server.handle(command)
    return server.player().searcher(SACKSON).hash_entries


def test_a_level_over_the_protocol_has_the_table_it_has_in_a_match_by_default() -> None:
    # Engine 4's Hash of 64 MB gave 262,144 entries, a quarter of the in-process level's.
    assert table_entries() == SearchPlayer(TOP_LEVEL).searcher(SACKSON).hash_entries


@pytest.mark.parametrize("megabytes", [1, 16, 64, 100, 1000])
def test_hash_holds_as_many_compiled_slots_as_fit_in_its_megabytes(megabytes: int) -> None:
    slots = table_slots(table_entries(f"setoption name Hash value {megabytes}"))
    assert slots & (slots - 1) == 0  # a power of two
    assert slots * SLOT_BYTES <= megabytes * 2**20 < 2 * slots * SLOT_BYTES


def test_a_compiled_slot_takes_the_bytes_hash_counts() -> None:
    kernel = CompiledKernel(evaluator_for(SACKSON), 1 << 12)
    table = kernel._arrays.tt_keys.nbytes + kernel._arrays.tt_data.nbytes
    assert table == (1 << 12) * SLOT_BYTES


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
