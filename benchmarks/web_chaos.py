"""The chaos mode of the web load test (``python benchmarks/web_load.py --chaos``): the scaled
service — PostgreSQL, Redis, two ``bluegray serve`` behind the shipped ``deploy/Caddyfile`` in
Caddy, two ``bluegray worker`` — under a load of games while each of its parts fails in turn,
exactly as the chaos test does it (``tests/web/chaos_service.py``), with more games. It reports
the moves acknowledged and lost (lost must be 0), what each fault cost (how long after the part
was back every socket had its game's version, and every waiting AI game its reply: the longest
stall), and the moves' round trips (sent to acknowledged) before the first fault and after the
last, as p50 and p99.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.web.chaos_service import AI_LEVELS, play_through_faults, running_service

WARM_UP_SECONDS = 20.0
"""How long the games run before the first fault (the second half of it is the "before")."""


def _percentiles(seconds: list[float]) -> str:
    if len(seconds) < 2:
        return "too few moves"
    cuts = statistics.quantiles(seconds, n=100)
    return f"p50 {cuts[49] * 1000:.0f} ms, p99 {cuts[98] * 1000:.0f} ms ({len(seconds)} moves)"


def run_chaos(games: int) -> int:
    """Run the faults under ``games`` games between people (and the chaos test's AI games);
    print the report; 0 if nothing was lost and no finding was made, else 1."""
    started = time.monotonic()
    with (
        tempfile.TemporaryDirectory(prefix="bluegray-chaos-") as directory,
        running_service(Path(directory)) as chaos,
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
        for finding in chaos.findings:
            print("finding:", finding)
        print(f"took {time.monotonic() - started:.0f} s")
        return 0 if not chaos.findings else 1
