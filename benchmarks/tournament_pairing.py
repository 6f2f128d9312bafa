"""How long the tournaments' pairings take: a Swiss round (the FIDE Dutch system) for fields of
several sizes, and an arena's pairing of the players waiting at one moment.

    python benchmarks/tournament_pairing.py
    python benchmarks/tournament_pairing.py --swiss 16 50 100 --rounds 7 --arena 10 50 200

Each Swiss tournament is played through with random results (a fixed seed); it prints the
median and the longest pairing of its rounds. The arena figure is the median of several
pairings of that many waiting players with random ranks, ratings and last opponents.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from datetime import UTC, datetime, timedelta

from bluegray.web.tournaments.arena import ArenaSettings, WaitingPlayer, pair_waiting
from bluegray.web.tournaments.results import Result
from bluegray.web.tournaments.swiss import (
    NoPairingError,
    SwissGame,
    SwissPlayer,
    SwissRound,
    SwissSettings,
    pair_round,
)


def swiss_times(players: int, rounds: int, seed: int) -> list[float]:
    """Seconds taken by each round's pairing of a random tournament."""
    rng = random.Random(seed)
    field = [SwissPlayer(f"p{i}", rng.randint(1000, 2400)) for i in range(players)]
    settings = SwissSettings(rounds=rounds)
    history: list[SwissRound] = []
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        try:
            pairing = pair_round(field, history, settings)
        except NoPairingError:
            break
        times.append(time.perf_counter() - start)
        games = tuple(SwissGame(b.blue, b.gray, rng.choice(list(Result))) for b in pairing.boards)
        history.append(SwissRound(games, pairing.bye))
    return times


def arena_time(waiting: int, runs: int, seed: int) -> float:
    """The median seconds of pairing ``waiting`` players."""
    rng = random.Random(seed)
    now = datetime(2026, 1, 1, 12, tzinfo=UTC)
    settings = ArenaSettings(now - timedelta(minutes=10), now + timedelta(hours=1))
    times = []
    for _ in range(runs):
        ranks = rng.sample(range(1, 3 * waiting + 1), waiting)
        names = [f"p{i}" for i in range(waiting)]
        players = [
            WaitingPlayer(
                name,
                rank,
                rng.randint(1000, 2400),
                now - timedelta(seconds=rng.randint(0, 30)),
                last_opponent=rng.choice(names),
            )
            for name, rank in zip(names, ranks, strict=True)
        ]
        start = time.perf_counter()
        pair_waiting(players, now, settings)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--swiss", type=int, nargs="*", default=[16, 50, 100], metavar="PLAYERS")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--arena", type=int, nargs="*", default=[10, 50, 200], metavar="WAITING")
    parser.add_argument("--runs", type=int, default=5, help="arena pairings to time per size")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for players in args.swiss:
        times = swiss_times(players, args.rounds, args.seed)
        print(
            f"Swiss, {players} players: {len(times)} rounds paired, median "
            f"{statistics.median(times):.3f} s, longest {max(times):.3f} s a round"
        )
    for waiting in args.arena:
        print(f"arena, {waiting} waiting: {arena_time(waiting, args.runs, args.seed):.4f} s")


if __name__ == "__main__":
    main()
