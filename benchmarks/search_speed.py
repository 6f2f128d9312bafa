"""Nodes per second of the top level's search in middlegame positions, beside the rules core's
perft speed, measured in the same run.

    python benchmarks/search_speed.py [--seconds 2]

Each position is searched by both searches: the numba-compiled core (the default when numba is
installed, ``pip install ".[fast]"``) and the plain Python one. Nodes per CPU second (the
process's own CPU time) is the figure to compare on a shared machine: wall-clock nodes per second
drops when other jobs take the core.

The positions are written out below, one per main rule set, so every run searches the same
positions whatever the engine's weights: each was reached by two seeded level-3 players (18 to 20
plies) and has over twenty legal moves, so the search runs its whole time rather than stopping
on a forced reply.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bluegray import Position
from bluegray.engine.search import Limits, Searcher
from bluegray.perft import perft

MIDDLEGAMES = {
    "sackson": "gggg1gggg/1gggg1ggg/6g2/5c3/2g6/3C3G1/4G4/GGG2GGG1/GGGG1GGGG b 2 11",
    "cooper": "gggg1gggg/1gggg1ggg/6g2/9/g5cG1/3C5/2G6/GGG1GGGG1/GGGG1GGGG b 0 10",
    "super": "pppp1pppp/1p1pp1ppp/p1p6/6pc1/9/3C5/P3P1P1P/PPP1PPPP1/1PPP1P1PP b 0 11",
    "classic-turbo": "gggg1gggg/1g1g2ggg/1Cg1g4/9/6g2/1g7/2G1GGGc1/G1G4GG/GGGG1GGGG b 3 11",
    "pow-classic": "ggggCgggg/g1g1gg2g/3g1g3/1g5g1/G8/1G3G3/3G5/3GG1GGG/GGGGcGGGG b 18 10",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="search time per position")
    args = parser.parse_args()

    started = time.perf_counter()
    nodes = perft(Position.start("sackson"), 5)
    perft_rate = nodes / (time.perf_counter() - started)
    print(f"rules core: perft 5 (sackson start) {perft_rate:,.0f} nodes/s")

    cores = {"compiled": True, "python": False}
    cpu_rates: dict[str, list[float]] = {core: [] for core in cores}
    for rules, text in MIDDLEGAMES.items():
        position = Position.parse(text, rules)
        for core, compiled in cores.items():
            searcher = Searcher(position.rules, compiled=compiled)
            cpu_started = time.process_time()
            result = searcher.search(position.board(), Limits(time=args.seconds))
            cpu_rate = result.nodes / max(time.process_time() - cpu_started, 1e-9)
            cpu_rates[core].append(cpu_rate)
            print(
                f"search: {rules:<14} {core:<8} depth {result.depth:>2}  {result.nodes:>9,} "
                f"nodes  {result.nps:>9,} nodes/s  {cpu_rate:>9,.0f} per CPU second"
            )
    medians = {core: statistics.median(rates) for core, rates in cpu_rates.items()}
    ratios = [
        fast / slow for fast, slow in zip(cpu_rates["compiled"], cpu_rates["python"], strict=True)
    ]
    print(
        f"search: median {medians['compiled']:,.0f} nodes per CPU second compiled, "
        f"{medians['python']:,.0f} in Python; compiled/Python median ratio "
        f"{statistics.median(ratios):.1f} over {len(ratios)} positions"
    )


if __name__ == "__main__":
    main()
