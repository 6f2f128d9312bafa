"""The opening explorer's query at scale: ``--games`` synthetic games (100,000 by default) counted
into a fresh database, SQLite and then PostgreSQL, then ``--queries`` questions "the moves from
this position" at positions of every popularity, from the start (every game) to the 30th move
(a game or two), timed through the explorer's service as the API asks it (a read on the
database's reader threads, the answer built). Prints the fill's time and the queries' p50 and p95
by popularity. Target: p95 < 100 ms.

    python benchmarks/explorer_query.py                    # SQLite and PostgreSQL, 100k games
    python benchmarks/explorer_query.py --games 20000 --databases sqlite

The games are synthetic: walks of 30 moves in a tree of positions where each position has 12
moves and a game picks the i-th with a weight 1/(i+1)^1.5, so openings repeat as real ones do
(the start's moves are in every game, and the lines thin out to one game within ten moves or
so); their keys are digests of the line. The rules core would take minutes to play 3 million
moves; the query's cost depends on the rows stored and the moves of the position asked, not on
where they came from. They are counted by the explorer's own bulk path (``store.add_tally``, as
the fill), in batches. PostgreSQL is a cluster of its own (``tests.servers.PostgresServer``).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.servers

from tests.servers import PostgresServer

from bluegray.web.explorer.positions import MAX_PLIES, MoveTally, Tally
from bluegray.web.explorer.service import Explorer
from bluegray.web.explorer.store import add_tally
from bluegray.web.platform.db import Database

FILES = "abcdefghi"
MOVES_A_POSITION = 12
WEIGHTS = [1 / (index + 1) ** 1.5 for index in range(MOVES_A_POSITION)]
RULES = "sackson"


def _key(line: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(line, digest_size=8).digest(), "big", signed=True)


def _move(index: int) -> str:
    file = FILES[index % 9]
    return f"{file}{2 + index // 9}-{file}{3 + index // 9}"


def synthetic_games(games: int, seed: int) -> tuple[Tally, list[list[int]]]:
    """The tally of ``games`` synthetic games, and each game's position keys by ply."""
    rng = random.Random(seed)
    tally = Tally()
    lines: list[list[int]] = []
    indexes = range(MOVES_A_POSITION)
    for _ in range(games):
        line = b""
        keys = []
        score = rng.choice((1.0, 0.5, 0.0))
        rating = rng.gauss(1500, 200)
        for choice in rng.choices(indexes, WEIGHTS, k=MAX_PLIES):
            key = _key(line)
            keys.append(key)
            move = _move(choice)
            found = tally.moves.get((RULES, key, move))
            if found is None:
                found = tally.moves[(RULES, key, move)] = MoveTally()
            found.add(score, rating)
            line += bytes((choice,))
        lines.append(keys)
        tally.games += 1
    return tally, lines


def fill(db: Database, tally: Tally) -> float:
    started = time.perf_counter()
    db.run(lambda connection: add_tally(connection, "site", tally))
    return time.perf_counter() - started


def popularity_buckets(
    lines: list[list[int]], tally: Tally, queries: int, seed: int
) -> dict[str, list[int]]:
    """Positions to ask, by how many games passed through them."""
    games_at: dict[int, int] = {}
    for (_, key, _), counts in tally.moves.items():
        games_at[key] = games_at.get(key, 0) + counts.games
    bounds = [(10_000, "≥10,000 games"), (100, "100-9,999"), (2, "2-99"), (1, "1 game")]
    buckets: dict[str, list[int]] = {name: [] for _, name in bounds}
    rng = random.Random(seed)
    tries = 0
    while min(len(found) for found in buckets.values()) < queries and tries < queries * 400:
        tries += 1
        key = rng.choice(rng.choice(lines))
        for least, name in bounds:
            if games_at[key] >= least:
                if len(buckets[name]) < queries:
                    buckets[name].append(key)
                break
    return buckets


async def time_queries(db: Database, keys: list[int]) -> list[float]:
    explorer = Explorer(db)
    times = []
    for key in keys:
        started = time.perf_counter()
        answer = await explorer.moves_at(RULES, key, "-")
        times.append((time.perf_counter() - started) * 1000)
        assert answer.moves, key
    return times


def report(name: str, db: Database, buckets: dict[str, list[int]]) -> None:
    asyncio.run(time_queries(db, [keys[0] for keys in buckets.values() if keys]))  # warm up
    for bucket, keys in buckets.items():
        if not keys:
            continue
        times = sorted(asyncio.run(time_queries(db, keys)))
        p95 = times[max(0, round(0.95 * len(times)) - 1)]
        print(
            f"  {name:10} {bucket:14} {len(keys):5} queries: "
            f"p50 {statistics.median(times):6.2f} ms, p95 {p95:6.2f} ms, max {times[-1]:6.2f} ms"
        )


def run(name: str, url: str, tally: Tally, buckets: dict[str, list[int]]) -> None:
    db = Database(url)
    db.start()
    try:
        seconds = fill(db, tally)
        print(f"  {name:10} filled {len(tally.moves):,} rows in {seconds:.1f} s")
        report(name, db, buckets)
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200, help="per popularity (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--databases", nargs="+", choices=["sqlite", "postgresql"], default=["sqlite", "postgresql"]
    )
    args = parser.parse_args()
    started = time.perf_counter()
    tally, lines = synthetic_games(args.games, args.seed)
    positions = len({key for _, key, _ in tally.moves})
    print(
        f"{args.games:,} synthetic games: {len(tally.moves):,} (position, move) rows, "
        f"{positions:,} positions, made in {time.perf_counter() - started:.1f} s"
    )
    buckets = popularity_buckets(lines, tally, args.queries, args.seed)
    with tempfile.TemporaryDirectory() as directory:
        if "sqlite" in args.databases:
            run("SQLite", f"sqlite:///{Path(directory) / 'explorer.sqlite3'}", tally, buckets)
        if "postgresql" in args.databases:
            with PostgresServer() as postgres:
                run("PostgreSQL", postgres.url(postgres.new_database()), tally, buckets)


if __name__ == "__main__":
    main()
