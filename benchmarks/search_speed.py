"""Nodes per second of the top level's search in middlegame positions, beside the rules core's
perft speed, measured in the same run.

    python benchmarks/search_speed.py [--seconds 2]

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
    for rules in RULE_SETS:
        game = middlegame(rules)
        searcher = Searcher(game.rules)
        result = searcher.search(game.board(), Limits(time=args.seconds))
        rates.append(result.nps)
        print(
            f"search: {rules:<14} depth {result.depth:>2}  {result.nodes:>9,} nodes  "
            f"{result.nps:>9,} nodes/s  {game.position}"
        )
    print(f"search: median {statistics.median(rates):,.0f} nodes/s over {len(rates)} positions")


if __name__ == "__main__":
    main()
