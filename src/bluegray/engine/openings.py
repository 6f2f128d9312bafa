"""A book of balanced random openings, so that the games of a match between deterministic
players are not all the same game.

An opening is a few random legal plies from the rule set's start, kept only if the game is not
over and a shallow search finds neither side clearly ahead. Each opening is played twice in a
match, once with each player as Blue, which cancels what imbalance remains.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from bluegray.engine import readiness
from bluegray.engine.limits import Limits
from bluegray.engine.search import Searcher
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.pieces import Side
from bluegray.rules import RuleSet, as_rules

DEFAULT_PLIES: Final = (4, 8)
"""The shortest and longest openings, in plies."""
DEFAULT_MARGIN: Final = 100
"""The largest shallow-search score (evaluation units, about Elo) a balanced opening may have:
100 means the side ahead is expected to score at most about 64%."""
DEFAULT_DEPTH: Final = 2
TRIES_PER_OPENING: Final = 50
"""How many random walks to try per opening wanted before the book settles for fewer."""


@dataclass(frozen=True)
class Opening:
    """A book opening: its moves from the start, and the shallow score for Blue."""

    moves: tuple[Move, ...]
    score: int = 0
    """The shallow search's score from Blue's point of view."""

    def game(self, rules: RuleSet | str | None = None) -> Game:
        """A game under ``rules`` with the opening played."""
        game = Game(rules)
        game.push_all(self.moves)
        return game

    def __str__(self) -> str:
        return " ".join(str(move) for move in self.moves)


def opening_book(
    rules: RuleSet | str | None,
    count: int,
    *,
    seed: int = 0,
    plies: tuple[int, int] = DEFAULT_PLIES,
    margin: int = DEFAULT_MARGIN,
    depth: int = DEFAULT_DEPTH,
) -> list[Opening]:
    """``count`` distinct balanced openings of ``plies[0]`` to ``plies[1]`` plies, the same
    for the same arguments; a longer book begins with the shorter one.

    When the rule set has fewer distinct balanced openings of that length than asked for (short
    openings have few), the ones found are repeated in order; with no plies at all every opening
    is the start itself.
    """
    rules = as_rules(rules)
    shortest, longest = plies
    if not 0 <= shortest <= longest:
        raise ValueError(f"invalid opening length {shortest}-{longest}: expected 0 <= min <= max")
    if count <= 0:
        return []
    if longest == 0:
        return [Opening(())] * count
    rng = random.Random(f"bluegray openings {seed}")
    searcher = Searcher(rules, hash_entries=1 << 16)
    book: list[Opening] = []
    seen: set[str] = set()
    for _ in range(count * TRIES_PER_OPENING):
        if len(book) == count:
            break
        game = _random_walk(rules, rng, rng.randint(shortest, longest))
        if game is None:
            continue
        key = str(game.position).rsplit(" ", 2)[0]  # placement and side to move
        if key in seen:
            continue
        seen.add(key)
        score = _blue_score(searcher, game, depth)
        if abs(score) <= margin:
            book.append(Opening(tuple(game.moves), score))
    if not book:
        return [Opening(())] * count
    return [book[index % len(book)] for index in range(count)]


def _random_walk(rules: RuleSet, rng: random.Random, plies: int) -> Game | None:
    """A game of ``plies`` uniformly random moves, or ``None`` if it ended on the way: walked
    on the compiled board once it is ready (``readiness``), else on a ``Game``, drawing the same
    moves either way."""
    parts = readiness.compiled_parts()
    if parts is not None:
        moves = parts.random_walk(rules, rng, plies)
        if moves is None:
            return None
        walked = Game(rules)
        walked.push_all(moves)
        return walked
    game = Game(rules)
    for _ in range(plies):
        moves = game.legal_moves
        if not moves:
            return None
        game.push(rng.choice(moves))
    return None if game.outcome() is not None else game


def _blue_score(searcher: Searcher, game: Game, depth: int) -> int:
    searcher.new_game()  # the score must not depend on the openings tried before
    score = searcher.search(game.board(), Limits(depth=depth)).score
    return score if game.turn is Side.BLUE else -score
