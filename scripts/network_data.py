"""Self-play positions for engine 4's network, in shards (``train_network.py generate``).

A shard is one file of ``positions`` quiet positions from self-play games of one rule set: each
game starts from a random opening walked by the batched simulation (``simulation.random_walk``,
the compiled board), then the engine plays both sides with a fixed-node search
(``search.Searcher``, the engine of ``tune_evaluation.py generate``'s games), and every quiet
position it searches (the side to move has no capture) is kept with the search's score, the
linear evaluation's value and, once the game is over, its result for the side to move.

Shard ``i`` of a run is made from seed ``seed + i`` alone, so shards can be made in any order,
in parallel, or again. A shard is written to a temporary name and renamed when complete: a run
stopped at any moment leaves only finished shards, which a restart does not make again.
"""

from __future__ import annotations

import gzip
import json
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from bluegray.engine.evaluation import Evaluator
from bluegray.engine.limits import Limits
from bluegray.engine.network import active_features
from bluegray.engine.search import Searcher
from bluegray.engine.simulation import random_walk
from bluegray.game import Game
from bluegray.pieces import Side
from bluegray.rules import RuleSet

OPENING_PLIES: Final = (4, 12)
"""A game's random opening is this many plies (the least and most)."""
MAX_PLIES: Final = 400
"""Self-play games longer than this stop and count as drawn."""
RANDOM_MOVE_RATE: Final = 0.05
"""How often a self-play move is a random legal one instead of the search's: variety."""


@dataclass(frozen=True)
class Sample:
    """One quiet position: its features from the side to move's perspective and the other's,
    the search's score and the linear evaluation for the side to move, and the game's result
    for it (1 won, 0.5 drawn, 0 lost)."""

    own: list[int]
    other: list[int]
    score: int
    linear: int
    result: float

    def row(self) -> list[object]:
        return [self.own, self.other, self.score, self.linear, self.result]


def shard_path(run: Path, index: int) -> Path:
    return run / "shards" / f"shard-{index:05d}.jsonl.gz"


def finished_shards(run: Path) -> list[int]:
    """The indices of the shards a run has finished."""
    folder = run / "shards"
    if not folder.is_dir():
        return []
    return sorted(
        int(path.name.split("-")[1].split(".")[0]) for path in folder.glob("shard-*.jsonl.gz")
    )


def self_play_game(
    rules: RuleSet, searcher: Searcher, evaluator: Evaluator, rng: random.Random, nodes: int
) -> list[Sample]:
    """The quiet positions of one self-play game from a random opening."""
    opening = random_walk(rules, rng, rng.randint(*OPENING_PLIES))
    if opening is None:
        return []
    game = Game(rules)
    game.push_all(opening)
    searcher.new_game()
    kept: list[tuple[list[int], list[int], int, int, int]] = []
    while not game.is_over() and game.ply < MAX_PLIES:
        board = game.board()
        found = searcher.search(board, Limits(nodes=nodes))
        if not board.has_capture():
            side = board.turn
            kept.append(
                (
                    active_features(board, side),
                    active_features(board, side ^ 1),
                    found.score,
                    evaluator.evaluate(board),
                    side,
                )
            )
        move = found.move
        if rng.random() < RANDOM_MOVE_RATE:
            move = rng.choice(game.legal_moves)
        game.push(move)
    outcome = game.outcome()
    winner = None if outcome is None else outcome.winner
    samples = []
    for own, other, score, linear, side in kept:
        won = winner is not None and (winner is Side.BLUE) == (side == 0)
        result = 0.5 if winner is None else float(won)
        samples.append(Sample(own, other, score, linear, result))
    return samples


def shard_rows(
    index: int, rules: RuleSet, positions: int, nodes: int, seed: int, kernel: str
) -> list[list[object]]:
    """Play self-play games until shard ``index`` has ``positions`` positions: its rows (what
    a cluster's node sends back)."""
    rng = random.Random(seed + index)
    compiled = {"auto": None, "python": False, "compiled": True}[kernel]
    searcher = Searcher(rules, compiled=compiled, hash_entries=1 << 16)
    evaluator = searcher.evaluator
    samples: list[Sample] = []
    while len(samples) < positions:
        samples.extend(self_play_game(rules, searcher, evaluator, rng, nodes))
    return [sample.row() for sample in samples[:positions]]


def write_shard(run: Path, index: int, rows: list[list[object]]) -> None:
    """Write shard ``index`` complete or not at all (a temporary name, then renamed)."""
    path = shard_path(run, index)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    with gzip.open(partial, "wt", encoding="utf-8") as stream:
        for row in rows:
            stream.write(json.dumps(row, separators=(",", ":")) + "\n")
    os.replace(partial, path)


def make_shard(
    run: Path, index: int, rules: RuleSet, positions: int, nodes: int, seed: int, kernel: str
) -> int:
    """Play shard ``index`` here and write it; its number of positions."""
    rows = shard_rows(index, rules, positions, nodes, seed, kernel)
    write_shard(run, index, rows)
    return len(rows)


def read_shard(path: Path) -> Iterator[Sample]:
    """The positions of a finished shard."""
    with gzip.open(path, "rt", encoding="utf-8") as stream:
        for line in stream:
            own, other, score, linear, result = json.loads(line)
            yield Sample(own, other, score, linear, result)
