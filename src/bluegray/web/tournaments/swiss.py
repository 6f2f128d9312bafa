"""Swiss tournaments: each round paired by the FIDE Dutch system from the tournament's history.

The pairing itself is caissify-pairings' Dutch engine (FIDE C.04.3, checked by its authors
against the FIDE-endorsed bbpPairings): score groups, the top half of a group against its bottom
half, floaters moved to the next group, no repeated opponent, sides balanced and never the
same side three times running, the bye to the lowest-ranked player without one (a second bye
only where nothing else avoids a rematch). This module gives it what it needs, derived from the
history as plain values (points, sides, floats, byes, opponents), and turns its answer into
boards of a Blue and a Gray player. A round that cannot be paired under those rules is a
`NoPairingError` naming who cannot be paired; the web then ends the tournament there, as lichess
does.

Blue moves first, so Blue takes the place of chess's White.
"""

from __future__ import annotations

import enum
import math
import warnings
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from caissify_pairings import MissingFloatHistoryWarning, generate_pairings

from bluegray.pieces import Side
from bluegray.web.tournaments.results import Result, TournamentError


class SwissError(TournamentError):
    """Bad Swiss input: an unknown player, a player twice in a round, a game with no result..."""


class NoPairingError(SwissError):
    """The next round cannot be paired without breaking the pairing rules."""


@dataclass(frozen=True)
class SwissPlayer:
    """A player of the tournament: the name that stands for them in the games, and their rating
    when they joined (it orders the starting list, and stays as it was for the whole event)."""

    name: str
    rating: int


@dataclass(frozen=True)
class SwissGame:
    """A game of a round. ``result`` is ``None`` while it is played. A ``forfeit`` is a game
    that was never played (the loser never moved): the result counts, but the two did not meet,
    played no side and may be paired again."""

    blue: str
    gray: str
    result: Result | None = None
    forfeit: bool = False

    def __post_init__(self) -> None:
        if self.blue == self.gray:
            raise SwissError(f"{self.blue!r} cannot play themselves")
        if self.forfeit and self.result in (None, Result.DRAW):
            raise SwissError(f"the forfeit {self.blue!r} - {self.gray!r} needs a winner")


@dataclass(frozen=True)
class SwissRound:
    """A round as it was paired: its games and the player given the bye (if any). Players of the
    tournament in neither were absent from the round, and score nothing for it."""

    games: tuple[SwissGame, ...]
    bye: str | None = None


@dataclass(frozen=True)
class SwissSettings:
    """A Swiss tournament's settings."""

    rounds: int
    """How many rounds the tournament has."""
    bye_points: float = 1.0
    """What the bye scores (1, or 0.5, or 0)."""
    top_seed_side: Side = Side.BLUE
    """The top seed's side in round 1 (drawn by lot when the tournament is made); the sides
    alternate down the boards from there."""

    def __post_init__(self) -> None:
        if self.rounds < 1:
            raise SwissError(f"a Swiss tournament needs at least one round, not {self.rounds}")
        if not (math.isfinite(self.bye_points) and 0 <= self.bye_points <= 1):
            raise SwissError(f"a bye scores between 0 and 1 points, not {self.bye_points!r}")


@dataclass(frozen=True)
class Board:
    """A game to play in the round being paired: its board number (1 is the top board)."""

    number: int
    blue: str
    gray: str


@dataclass(frozen=True)
class RoundPairing:
    """The pairing of the next round: its number, its boards, top board first, and the player
    given the bye (when the number of players present is odd)."""

    number: int
    boards: tuple[Board, ...]
    bye: str | None = None

    def as_round(self) -> SwissRound:
        """The round as the history records it before any game ends."""
        return SwissRound(tuple(SwissGame(b.blue, b.gray) for b in self.boards), self.bye)


class FloatDirection(enum.Enum):
    """Where a round took a player: down to meet a lower score (or the bye), up to meet a
    higher one, or neither (the Dutch system keeps a player from floating the same way twice
    running)."""

    DOWN = "down"
    UP = "up"
    NONE = "none"


@dataclass(frozen=True)
class SwissRecord:
    """What a player did so far, as the pairing and the standings read it."""

    player: SwissPlayer
    seed: int
    """The player's place in the starting list (1: the highest rating)."""
    points: float = 0.0
    sides: tuple[Side, ...] = ()
    """The sides of the games played over the board, in order."""
    floats: tuple[FloatDirection, ...] = ()
    """Where each round the player took part in took them."""
    byes: int = 0
    forfeit_wins: int = 0
    forfeit_losses: int = 0
    games: tuple[tuple[str, float], ...] = field(default=())
    """The games played over the board and finished: (opponent, the player's score)."""


def seeding(players: Sequence[SwissPlayer]) -> tuple[SwissPlayer, ...]:
    """The starting list: highest rating first, equal ratings by name."""
    names = [p.name for p in players]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise SwissError(f"{twice[0]!r} is in the tournament twice")
    return tuple(sorted(players, key=lambda p: (-p.rating, p.name.casefold(), p.name)))


def records(
    players: Sequence[SwissPlayer],
    rounds: Sequence[SwissRound],
    settings: SwissSettings,
    *,
    unfinished: bool = False,
) -> dict[str, SwissRecord]:
    """Every player's record after ``rounds``, by name, in starting order. A game with no
    result is a `SwissError` unless ``unfinished`` (the live standings), where it counts
    nothing yet."""
    seeded = seeding(players)
    tally = {p.name: _Tally(p, seed) for seed, p in enumerate(seeded, start=1)}
    for number, played in enumerate(rounds, start=1):
        before = {name: t.points for name, t in tally.items()}
        seen: set[str] = set()
        for name in [n for game in played.games for n in (game.blue, game.gray)] + (
            [played.bye] if played.bye is not None else []
        ):
            if name not in tally:
                raise SwissError(f"round {number} names {name!r}, who is not in the tournament")
            if name in seen:
                raise SwissError(f"round {number} names {name!r} twice")
            seen.add(name)
        for game in played.games:
            if game.result is None:
                if unfinished:
                    continue
                raise SwissError(
                    f"round {number}'s game {game.blue!r} - {game.gray!r} has no result yet"
                )
            blue, gray = tally[game.blue], tally[game.gray]
            blue.points += game.result.points(Side.BLUE)
            gray.points += game.result.points(Side.GRAY)
            if game.forfeit:
                winner, loser = (blue, gray) if game.result is Result.BLUE_WINS else (gray, blue)
                winner.forfeit_wins += 1
                loser.forfeit_losses += 1
                winner.floats.append(FloatDirection.DOWN)
                loser.floats.append(FloatDirection.NONE)
                continue
            for me, other, side in ((blue, gray, Side.BLUE), (gray, blue, Side.GRAY)):
                me.sides.append(side)
                me.games.append((other.player.name, game.result.points(side)))
                mine, theirs = before[me.player.name], before[other.player.name]
                me.floats.append(
                    FloatDirection.DOWN
                    if mine > theirs
                    else FloatDirection.UP
                    if mine < theirs
                    else FloatDirection.NONE
                )
        if played.bye is not None:
            lucky = tally[played.bye]
            lucky.points += settings.bye_points
            lucky.byes += 1
            lucky.floats.append(FloatDirection.DOWN)
    return {name: t.record() for name, t in tally.items()}


@dataclass
class _Tally:
    player: SwissPlayer
    seed: int
    points: float = 0.0
    sides: list[Side] = field(default_factory=list)
    floats: list[FloatDirection] = field(default_factory=list)
    byes: int = 0
    forfeit_wins: int = 0
    forfeit_losses: int = 0
    games: list[tuple[str, float]] = field(default_factory=list)

    def record(self) -> SwissRecord:
        return SwissRecord(
            self.player,
            self.seed,
            self.points,
            tuple(self.sides),
            tuple(self.floats),
            self.byes,
            self.forfeit_wins,
            self.forfeit_losses,
            tuple(self.games),
        )


def _engine_player(record: SwissRecord) -> dict[str, Any]:
    return {
        "id": record.seed,
        "name": record.player.name,
        "score": record.points,
        "rating": record.player.rating,
        "starting_number": record.seed,
        "color_hist": ["white" if side is Side.BLUE else "black" for side in record.sides],
        "float_history": [f.value for f in record.floats],
        "bye_count": record.byes,
        "forfeit_win_count": record.forfeit_wins,
    }


def _met(rounds: Sequence[SwissRound], seeds: Mapping[str, int]) -> set[tuple[int, int]]:
    pairs = set()
    for played in rounds:
        for game in played.games:
            if not game.forfeit:
                a, b = seeds[game.blue], seeds[game.gray]
                pairs.add((min(a, b), max(a, b)))
    return pairs


def _names(names: Collection[str]) -> str:
    quoted = [repr(n) for n in sorted(names)]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def pair_round(
    players: Sequence[SwissPlayer],
    rounds: Sequence[SwissRound],
    settings: SwissSettings,
    absent: Collection[str] = frozenset(),
) -> RoundPairing:
    """The pairing of the round after ``rounds`` (every game of which has a result) for the
    ``players`` of the tournament, less the ``absent`` ones (withdrawn, or away this round).

    Raises `NoPairingError` when the round cannot be paired: fewer than two players present, or
    no pairing avoids a repeated opponent, a second bye and the sides rule."""
    number = len(rounds) + 1
    if number > settings.rounds:
        raise SwissError(f"all {settings.rounds} rounds have been played")
    done = records(players, rounds, settings)
    strangers = set(absent) - done.keys()
    if strangers:
        verb = "is" if len(strangers) == 1 else "are"
        raise SwissError(f"{_names(strangers)} {verb} not in the tournament")
    present = [r for r in done.values() if r.player.name not in absent]
    if len(present) < 2:
        raise NoPairingError(
            f"round {number} needs at least two players present, and {len(present)} is"
        )
    seeds = {name: r.seed for name, r in done.items()}
    by_seed = {r.seed: r.player.name for r in done.values()}
    met = _met(rounds, seeds)
    with warnings.catch_warnings():
        # The float history is derived here for every round, so the engine's warning about a
        # caller who forgot it can only be a false alarm (everyone present was absent before).
        warnings.simplefilter("ignore", MissingFloatHistoryWarning)
        rows = generate_pairings(
            system="dutch",
            players=[_engine_player(r) for r in present],
            previous_pairings=met,
            round_number=number,
            total_rounds=settings.rounds,
            bye_value=settings.bye_points,
            initial_color="white" if settings.top_seed_side is Side.BLUE else "black",
        )
    boards: list[tuple[int, str, str]] = []
    byes: list[str] = []
    for row in rows:
        if row.get("black_id") is None:
            byes.append(by_seed[row["white_id"]])
        else:
            boards.append((int(row["table"]), by_seed[row["white_id"]], by_seed[row["black_id"]]))
    if len(byes) > len(present) % 2:
        raise NoPairingError(
            f"round {number} cannot be paired: {_names(byes)} can meet no one they have not "
            "met without a second bye or a side three times running (or twice more often "
            "than the other)"
        )
    _check_pairing(number, present, boards, byes, met, seeds)
    boards.sort()
    return RoundPairing(
        number,
        tuple(Board(i, blue, gray) for i, (_, blue, gray) in enumerate(boards, start=1)),
        byes[0] if byes else None,
    )


def _check_pairing(
    number: int,
    present: Sequence[SwissRecord],
    boards: Sequence[tuple[int, str, str]],
    byes: Sequence[str],
    met: set[tuple[int, int]],
    seeds: Mapping[str, int],
) -> None:
    """The engine's answer, checked against the rules no pairing may break."""
    paired = [name for _, blue, gray in boards for name in (blue, gray)] + list(byes)
    if sorted(paired) != sorted(r.player.name for r in present):
        raise NoPairingError(f"round {number}'s pairing does not seat every player once")
    for _, blue, gray in boards:
        a, b = seeds[blue], seeds[gray]
        if (min(a, b), max(a, b)) in met:
            raise NoPairingError(f"round {number} would pair {blue!r} and {gray!r} again")
