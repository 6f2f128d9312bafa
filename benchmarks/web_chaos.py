"""The chaos mode of the web load test (``python benchmarks/web_load.py --chaos``): the scaled
service — PostgreSQL, Redis, two ``bluegray serve`` behind the shipped ``deploy/Caddyfile`` in
Caddy, two ``bluegray worker`` — under a load of games while each of its parts fails in turn,
exactly as the chaos test does it (``tests/web/processes/chaos_service.py``), with more games. It
reports the moves acknowledged and lost (lost must be 0), what each fault cost (how long after the
part was back every socket had its game's version, and every waiting AI game its reply: the longest
stall), and the moves' round trips (sent to acknowledged) before the first fault and after the last,
as p50 and p99.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.web.processes.chaos_service import AI_LEVELS, Chaos, play_through_faults, running_service

WARM_UP_SECONDS = 20.0
"""How long the games run before the first fault (the second half of it is the "before")."""


def _percentiles(seconds: list[float]) -> str:
    if len(seconds) < 2:
        return "too few moves"
    cuts = statistics.quantiles(seconds, n=100)
    return f"p50 {cuts[49] * 1000:.0f} ms, p99 {cuts[98] * 1000:.0f} ms ({len(seconds)} moves)"


def _tree(pid: int) -> list[int]:
    """A process and its descendants (Linux)."""
    found = [pid]
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        found += _tree(int(child))
    return found


def _resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def stack_memory(chaos: Chaos) -> dict[str, float]:
    """The resident memory (MB) of each part of the running stack, each with its children (the
    workers' engine processes, PostgreSQL's backends): summed, so pages shared between processes
    count once a process (an upper bound)."""
    parts = {
        "PostgreSQL": chaos.postgres.process,
        "Redis": chaos.redis.process,
        "Caddy": chaos.proxy.process,
        **{f"web {name}": node.process for name, node in chaos.web.items()},
        **{f"worker {name}": node.process for name, node in chaos.workers.items()},
    }
    memory = {}
    for name, process in parts.items():
        if process is not None and process.poll() is None:
            memory[name] = sum(_resident_mb(pid) for pid in _tree(process.pid))
    return memory


def run_chaos(games: int, worker_processes: int) -> int:
    """Run the faults under ``games`` games between people (and the chaos test's AI games), with
    ``worker_processes`` engine processes per worker; print the report; 0 if nothing was lost
    and no finding was made, else 1."""
    started = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="bluegray-chaos-") as directory,
        running_service(Path(directory), worker_processes) as chaos,
    ):
        checked = play_through_faults(
            chaos, human_games=games, ai_levels=AI_LEVELS, warm_up=WARM_UP_SECONDS
        )
        # Before: the warm-up, once every game has begun; after: from the last fault's end on.
        first = chaos.costs[0].returned if chaos.costs else float("inf")
        last = chaos.costs[-1].returned if chaos.costs else 0.0
        with chaos.ledger.lock:
            trips = list(chaos.ledger.round_trips)
        lost = [finding for finding in chaos.findings if finding.startswith("lost:")]
        print(f"games between people: {games}; AI games at levels {AI_LEVELS}")
        print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"acknowledged moves checked: {checked}; lost: {len(lost)}")
        print(f"{'fault':<22} {'sockets (s)':>12} {'AI (s)':>8}")
        for cost in chaos.costs:
            print(f"{cost.fault:<22} {cost.sockets_seconds:>12.2f} {cost.ai_seconds:>8.2f}")
        before = [seconds for at, seconds in trips if first - WARM_UP_SECONDS / 2 < at < first]
        after = [seconds for at, seconds in trips if at > last]
        print("round trips before the faults:", _percentiles(before))
        print("round trips after the faults: ", _percentiles(after))
        memory = stack_memory(chaos)
        print(f"resident memory (MB, {worker_processes} engine processes a worker):")
        for name, megabytes in memory.items():
            print(f"  {name:<12} {megabytes:>7.0f}")
        print(f"  {'in all':<12} {sum(memory.values()):>7.0f}")
        for finding in chaos.findings:
            print("finding:", finding)
        print(f"took {time.monotonic() - started:.0f} s")
        return 0 if not chaos.findings else 1
