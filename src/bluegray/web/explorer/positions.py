"""What the explorer counts of a game: the key of each position it passed through in its opening,
with the move played from it, and how the game ended. Pure: no storage.

A position's key is a 64-bit digest of its placement and side to move (the part of its text
that ``games.fair_play.board_and_turn`` matches), not of the moves that led to it, so
transpositions merge; the no-progress count and the move number are left out as well.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from bluegray.game import Game
from bluegray.position import Position
from bluegray.rules import PRESETS, RuleSet
from bluegray.web.games.fair_play import board_and_turn

MAX_PLIES: Final = 30
"""The explorer counts the positions before each of a game's first 30 moves: an opening
explorer; later positions rarely repeat from game to game."""

SOURCES: Final = ("site", "book")
"""The site's rated games between people, and the shipped book of engine games."""


def position_key(position: Position) -> int:
    """The key of ``position``: a signed 64-bit digest of its placement and side to move."""
    digest = hashlib.blake2b(board_and_turn(position).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def preset_name(rules: RuleSet) -> str | None:
    """The preset name of ``rules`` (``None``: a custom rule set, never counted)."""
    name = rules.name
    return name if name in PRESETS else None


@dataclass(frozen=True)
class CountedGame:
    """A game as the explorer counts it: the rule set, the moves from its start, Blue's score
    and the players' average rating before it (``None``: unrated, as the book's games)."""

    rules: str
    moves: Sequence[str]
    blue_score: float
    average_rating: float | None = None


def opening_steps(rules: RuleSet, moves: Iterable[str]) -> list[tuple[int, str]]:
    """Each position of the game's first ``MAX_PLIES`` moves (from the rule set's start), keyed,
    with the move played from it; a repeated pair once. ``BlueGrayError`` on an illegal move."""
    game = Game(rules)
    steps: list[tuple[int, str]] = []
    seen: set[tuple[int, str]] = set()
    for ply, text in enumerate(moves):
        if ply >= MAX_PLIES:
            break
        key = position_key(game.position)
        game.push(text)
        step = (key, str(game.moves[-1]))
        if step not in seen:
            seen.add(step)
            steps.append(step)
    return steps


@dataclass(slots=True)
class MoveTally:
    """The counts of one move from one position, as stored (``rows.ExplorerMoveRow``)."""

    games: int = 0
    blue_wins: int = 0
    draws: int = 0
    gray_wins: int = 0
    rated_games: int = 0
    rating_sum: int = 0

    def add(self, blue_score: float, average_rating: float | None) -> None:
        self.games += 1
        if blue_score == 1.0:
            self.blue_wins += 1
        elif blue_score == 0.0:
            self.gray_wins += 1
        else:
            self.draws += 1
        if average_rating is not None:
            self.rated_games += 1
            self.rating_sum += round(average_rating)


@dataclass
class Tally:
    """The counts of many games of one source, by rule set, position and move: what one
    transaction adds to the explorer."""

    moves: dict[tuple[str, int, str], MoveTally] = field(default_factory=dict)
    games: int = 0

    def add(self, game: CountedGame) -> None:
        """Add ``game``'s opening. ``BlueGrayError`` on an illegal move (nothing added)."""
        steps = opening_steps(PRESETS[game.rules], game.moves)
        for key, move in steps:
            found = self.moves.get((game.rules, key, move))
            if found is None:
                found = self.moves[(game.rules, key, move)] = MoveTally()
            found.add(game.blue_score, game.average_rating)
        self.games += 1
