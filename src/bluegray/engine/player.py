"""What a player is, the spec strings that name players, and the registry that finds a kind of
player by its name (as python-chess finds a variant by name).

A spec is ``NAME`` or ``NAME:OPTIONS``: the options are comma-separated ``key=value`` pairs, and
a bare first value is the main option (a level's number: ``level:8,time=2``). The engine's own
players (``players``: ``level``, ``mcts``, ``greedy``, ``random``) are registered by
``players``; an interface registers its own kinds (the engine protocol's client registers
``engine``), so nothing here imports upwards.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from bluegray.engine.limits import Limits
from bluegray.engine.time_manager import Clock, allocate
from bluegray.errors import BlueGrayError, GameOverError, InvalidNumberError, quoted
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.numerals import MAX_INT64, parse_number
from bluegray.rules import RuleSet

MAX_MOVE_SECONDS: Final = 86_400.0
"""The most seconds a move may be given (a day): a longer time means nothing at the board, and
the engine protocol's ``movetime`` and the platform's timers hold it easily."""


class InvalidPlayerError(BlueGrayError):
    """A player spec that names no player or has bad options."""


class Player(ABC):
    """Something that chooses moves. ``choose`` never changes the game it is given."""

    spec: str = ""

    def new_game(self, rules: RuleSet) -> None:  # noqa: B027 - optional hook
        """Called before each game, so a player can reset what it learnt."""

    @abstractmethod
    def choose(self, game: Game, limits: Limits | None = None) -> Move:
        """The move to play in ``game`` (which must not be over), within ``limits`` if given."""

    def choose_on_clock(self, game: Game, own: Clock, other: Clock) -> Move:
        """The move to play on a clock: ``own`` is the side to move's, ``other`` the opponent's.
        By default, ``choose`` within the time manager's soft time for the move; a player that
        can use more (a search that stretches its time, an engine that reads clocks) says so."""
        move_time = allocate(own, ply=game.ply, rules=game.rules)
        return self.choose(game, Limits(time=move_time.soft))

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release what the player holds (processes, files)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"


def legal_moves(game: Game) -> list[Move]:
    """The game's legal moves; raises ``GameOverError`` when there are none to choose from."""
    moves = game.legal_moves
    if not moves:
        raise GameOverError("the game is over: there is no move to choose")
    return moves


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed spec: the player's name and its options."""

    name: str
    options: dict[str, str]


def parse_spec(spec: str) -> PlayerSpec:
    """A spec's name and its ``key=value`` options (a bare first value under the key ``""``)."""
    name, _, rest = spec.strip().partition(":")
    options: dict[str, str] = {}
    for index, word in enumerate(part for part in rest.split(",") if part):
        key, sep, value = word.partition("=")
        if not sep:
            if index:
                raise InvalidPlayerError(
                    f"invalid player {spec!r}: expected key=value, got {word!r}"
                )
            key, value = "", word
        options[key.strip()] = value.strip()
    return PlayerSpec(name.strip(), options)


def spec_whole(spec: str, key: str, text: str, *, least: int, most: int = MAX_INT64) -> int:
    """A whole-number option of a player spec, from ``least`` to ``most``."""
    try:
        return parse_number(text, least=least, most=most)
    except InvalidNumberError as error:
        raise InvalidPlayerError(f"invalid player {quoted(spec)}: {key} {error}") from None


def spec_seconds(spec: str, key: str, text: str) -> float:
    """A time option of a player spec: seconds, more than 0 and at most a day."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= MAX_MOVE_SECONDS:
        raise InvalidPlayerError(
            f"invalid player {quoted(spec)}: {key} must be a number of seconds greater than 0 "
            f"and at most {MAX_MOVE_SECONDS:g}, not {quoted(text)}"
        )
    return seconds


def spec_name(spec: str) -> str:
    """The name a spec starts with (``level`` in ``level:5``)."""
    return spec.strip().partition(":")[0].strip()


PlayerFactory = Callable[[str, int], Player]
"""Makes the player of a whole spec (its own kind's) with a seed for its random choices."""


@dataclass(frozen=True)
class PlayerKind:
    """A kind of player in the registry: its name (what specs start with), what makes one from
    a spec, a line of help on its spec, and whether its players search with the engine's
    kernels (``searches``: a match's worker process then loads the compiled kernel before its
    first game; one whose players do not, such as ``engine:`` players in processes of their
    own, spares that second of CPU)."""

    name: str
    make: PlayerFactory
    help: str
    searches: bool = True


_KINDS: dict[str, PlayerKind] = {}


def register_player(kind: PlayerKind) -> None:
    """Add a kind of player to the registry (again: replace it)."""
    _KINDS[kind.name] = kind


def register_players(kinds: Iterable[PlayerKind]) -> None:
    """Add several kinds (a worker process takes over its parent's registry so)."""
    for kind in kinds:
        register_player(kind)


def player_kinds() -> tuple[PlayerKind, ...]:
    """Every registered kind of player, in the order they were registered."""
    return tuple(_KINDS.values())


def spec_help() -> str:
    """Every registered kind's help, for error messages and ``--help``."""
    return ", ".join(kind.help for kind in _KINDS.values())


def find_player(spec: str) -> PlayerKind:
    """The registered kind of player a spec names."""
    kind = _KINDS.get(spec_name(spec))
    if kind is None:
        raise InvalidPlayerError(f"unknown player {spec!r}; players are: {spec_help()}")
    return kind
