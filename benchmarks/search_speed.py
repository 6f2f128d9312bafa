"""Nodes per second of the top level's search in middlegame positions, beside the rules core's
perft speed, measured in the same run.

    python benchmarks/search_speed.py [--seconds 2]

Nodes per CPU second (the process's own CPU time) is the figure to compare on a shared machine:
wall-clock nodes per second drops when other jobs take the core.

The positions come from short games between two seeded level-3 players (20 plies), one for each
main rule set, so every run searches the same positions.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bluegray import Game, Position
from bluegray.engine.players import SearchPlayer
from bluegray.engine.search import Limits, Searcher
from bluegray.perft import perft

RULE_SETS = ("sackson", "cooper", "super", "classic-turbo", "pow-classic")


def middlegame(rules: str, plies: int = 20, seed: int = 7) -> Game:
    """A reproducible middlegame: ``plies`` moves of two seeded level-3 players."""
    game = Game(rules)
    players = [SearchPlayer(3, seed=seed), SearchPlayer(3, seed=seed + 1)]
    for ply in range(plies):
        if game.is_over():
            break
        game.push(players[ply % 2].choose(game))
    return game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="search time per position")
    args = parser.parse_args()

    started = time.perf_counter()
    nodes = perft(Position.start("sackson"), 5)
    perft_rate = nodes / (time.perf_counter() - started)
    print(f"rules core: perft 5 (sackson start) {perft_rate:,.0f} nodes/s")

    rates = []
    cpu_rates = []
    for rules in RULE_SETS:
        game = middlegame(rules)
        searcher = Searcher(game.rules)
        cpu_started = time.process_time()
        result = searcher.search(game.board(), Limits(time=args.seconds))
        cpu_rate = result.nodes / max(time.process_time() - cpu_started, 1e-9)
        rates.append(result.nps)
        cpu_rates.append(cpu_rate)
        print(
            f"search: {rules:<14} depth {result.depth:>2}  {result.nodes:>9,} nodes  "
            f"{result.nps:>9,} nodes/s  {cpu_rate:>9,.0f} per CPU second  {game.position}"
        )
    print(
        f"search: median {statistics.median(rates):,.0f} nodes/s "
        f"({statistics.median(cpu_rates):,.0f} per CPU second) over {len(rates)} positions"
    )


if __name__ == "__main__":
    main()
