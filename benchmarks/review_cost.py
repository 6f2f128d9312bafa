"""What a game review costs: the positions a second one engine process analyses for a review, and
the seconds a whole game takes, at the server's default node count and at others.

    python benchmarks/review_cost.py [--games 4] [--plies 60] [--nodes 20000 2000]

Each game is played by two seeded level-2 players (sackson and cooper in turn, up to ``--plies``
plies), then every position of it is analysed as the AI's workers analyse a review's position
(``engine_work.run_analysis`` on a review's jobs: the position searched to the nodes, and the
position after the engine's move too when the move played was another, as the review's runner
asks), with the compiled
kernel. The figures are per CPU second of this process, which a shared machine's other work does
not change much; a server's worker process runs one position at a time per engine slot.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("BLUEGRAY_SEARCH", "compiled")

from bluegray.engine.players import player_from_spec
from bluegray.engine.readiness import require_compiled
from bluegray.game import Game
from bluegray.web.ai.engine_work import run_analysis
from bluegray.web.ai.jobs import AnalysisJob

RULES = ("sackson", "cooper")


def play(rules: str, plies: int, seed: int) -> Game:
    game = Game(rules)
    players = [player_from_spec("level:2", seed=seed), player_from_spec("level:2", seed=seed + 1)]
    while game.ply < plies and game.outcome() is None:
        game.push(players[game.ply % 2].choose(game))
    return game


def review_cpu(game: Game, nodes: int) -> tuple[float, int]:
    """CPU seconds to analyse every position of ``game`` as a review does, and the positions."""
    moves = tuple(str(move) for move in game.moves)
    start = str(game.start)
    used = time.process_time()

    def job(played: tuple[str, ...]) -> AnalysisJob:
        return AnalysisJob(str(game.rules), start, played, 600.0, nodes=nodes, review=True)

    for ply in range(len(moves) + 1):
        best = run_analysis(job(moves[:ply])).best_move
        if ply < len(moves) and best not in (None, moves[ply]):
            run_analysis(job((*moves[:ply], str(best))))  # the position the engine's move makes
    return time.process_time() - used, len(moves) + 1


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=4, help="games reviewed (default 4)")
    parser.add_argument("--plies", type=int, default=60, help="the games' most plies (default 60)")
    parser.add_argument(
        "--nodes", type=int, nargs="+", default=[20_000, 2_000], help="node counts to measure"
    )
    args = parser.parse_args()
    require_compiled()
    games = [play(RULES[i % len(RULES)], args.plies, seed=i) for i in range(args.games)]
    print(f"{args.games} games of {statistics.fmean(g.ply for g in games):.0f} plies on average")
    for nodes in args.nodes:
        seconds, positions = 0.0, 0
        per_game = []
        for game in games:
            cpu, count = review_cpu(game, nodes)
            seconds += cpu
            positions += count
            per_game.append(cpu)
        print(
            f"{nodes:>7} nodes: {positions / seconds:6.1f} positions a CPU second; "
            f"{statistics.median(per_game):5.1f} CPU s a game (median), "
            f"{statistics.median(per_game) * 60 / args.plies:5.1f} s for 60 plies"
        )


if __name__ == "__main__":
    main()
