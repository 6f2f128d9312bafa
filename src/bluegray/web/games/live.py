"""A game as the server holds it: the ``Game`` with its seats, clock and offers. The service
changes a copy and keeps it once the change is committed; ``store`` reads and writes it, ``view``
shows it to clients."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Literal

from bluegray.game import Game
from bluegray.moves import Move
from bluegray.outcome import Outcome
from bluegray.pieces import Side
from bluegray.rules import RuleSet
from bluegray.web.games.schemas import Mode, SideCounts, Status
from bluegray.web.platform.clocks import Clock, Correspondence, TimeClass, time_class

SeatKind = Literal["human", "ai"]


@dataclass
class Seat:
    kind: SeatKind
    token_hash: str | None = None
    browser_hash: str | None = None
    joined_ms: int | None = None
    address_hash: str | None = None
    """The address the seat was taken from (hashed): AI work is bounded per address."""
    account_id: int | None = None
    """The account that plays it (``None``: a player without an account, or the AI)."""
    account_name: str | None = None
    account_bot: bool = False

    def played_by(self, account_id: int) -> bool:
        return self.account_id is not None and self.account_id == account_id


@dataclass
class Played:
    """When a move was played and the mover's time left after it."""

    at_ms: int
    clock_ms: int | None = None


@dataclass(frozen=True)
class Derived:
    """What a client sees of the position, computed once per version (the server shows each
    version to every client, and stores it)."""

    key: tuple[int, int, str]
    position: str
    start: str
    moves: list[str]
    last: Move | None
    """The last move (the object): a later version that still holds it extends ``moves``."""
    legal_moves: list[str]
    advancement: SideCounts
    captures: SideCounts


@dataclass
class LiveGame:
    """One game's whole state; the service changes a copy and keeps it once it is committed."""

    id: str
    mode: Mode
    status: Status
    game: Game
    version: int
    created_ms: int
    updated_ms: int
    seats: dict[Side, Seat] = field(default_factory=dict)
    ai_level: int | None = None
    clock: Clock | None = None
    correspondence: Correspondence | None = None
    played: list[Played] = field(default_factory=list)
    draw_offer: Side | None = None
    takeback_offer: Side | None = None
    rematch_offer: Side | None = None
    rematch_id: str | None = None
    parent_id: str | None = None
    invite_hash: str | None = None
    end_reason: str | None = None
    record: str | None = None
    tags: dict[str, str] | None = None
    last_event: str | None = None
    """The event of the change that made this version (JSON), so that a process that re-reads
    the game can still say what happened last."""
    rated: bool = False
    """Whether the game counts for both accounts' ratings."""
    rating_result: str | None = None
    """What the end of a rated game did to each side's rating (``RatingResult`` as JSON), written
    in the transaction that ends it."""
    unrated_reason: str | None = None
    """Why a game asked for as rated is played unrated (``rated_pairs.PAIR_LIMIT``)."""
    _derived: Derived | None = field(default=None, repr=False, compare=False)

    def copy(self) -> LiveGame:
        return dataclasses.replace(
            self,
            game=self.game.copy(),
            seats={side: dataclasses.replace(seat) for side, seat in self.seats.items()},
            played=list(self.played),
        )

    def derived(self) -> Derived:
        """The position as clients see it (cached while the game stays at this version)."""
        game = self.game
        key = (self.version, game.ply, self.status)
        previous = self._derived
        if previous is not None and previous.key == key:
            return previous
        moves = game.moves
        position = game.position
        board = position.board()
        known = 0 if previous is None else len(previous.moves)
        if (
            previous is not None
            and known <= len(moves)
            and (not known or moves[known - 1] is previous.last)
        ):
            # The same game with moves added (the usual case): extend what is known.
            texts = previous.moves + [str(move) for move in moves[known:]]
            taken = [previous.captures.blue, previous.captures.gray]
            for ply in range(known + 1, len(moves) + 1):
                move = moves[ply - 1]
                if move.capture:
                    taken[self.mover_of(ply).index] += len(move.points) - 1
            counts = SideCounts(blue=taken[0], gray=taken[1])
        else:
            texts = [str(move) for move in moves]
            counts = captures(self)
        derived = self._derived = Derived(
            key=key,
            position=str(position),
            start=previous.start if previous is not None else str(game.start),
            moves=texts,
            last=moves[-1] if moves else None,
            legal_moves=[] if self.is_over() else [str(move) for move in game.legal_moves],
            advancement=SideCounts(blue=board.advancement(0), gray=board.advancement(1)),
            captures=counts,
        )
        return derived

    @property
    def rules(self) -> RuleSet:
        return self.game.rules

    def ai_side(self) -> Side | None:
        for side, seat in self.seats.items():
            if seat.kind == "ai":
                return side
        return None

    def ai_to_move(self) -> bool:
        """Whether the game waits for the AI's move."""
        seat = self.seats.get(self.game.turn)
        return (
            self.status == "active"
            and not self.is_over()
            and seat is not None
            and seat.kind == "ai"
            and self.ai_level is not None
        )

    def is_over(self) -> bool:
        return self.status in ("finished", "aborted")

    def mover_of(self, ply: int) -> Side:
        """The side that made move number ``ply`` (1 the first)."""
        first = self.game.start.turn
        return first if ply % 2 == 1 else first.other

    def outcome(self) -> Outcome | None:
        return self.game.outcome()

    def turn_started_ms(self) -> int:
        """When the side to move could first move: the last move, or the game's start (when its
        last seat was taken)."""
        if self.played:
            return self.played[-1].at_ms
        joined = [seat.joined_ms for seat in self.seats.values() if seat.joined_ms is not None]
        return max([self.created_ms, *joined])

    def sync_status(self) -> None:
        """A game the rules (or a declaration) have ended is finished."""
        if self.status in ("active", "waiting") and self.game.outcome() is not None:
            self.status = "finished"

    def time_class(self) -> TimeClass:
        correspondence = self.correspondence
        return time_class(self.clock, None if correspondence is None else correspondence.days)

    def sync_deadline(self, now_ms: int) -> None:
        """A correspondence game's deadline after a change at ``now_ms``: a new turn of a
        person (a move, a takeback, the game's start) gets the full allowance from now; the
        AI's turn, a game not yet started and a game over have none; any other change keeps
        the deadline as it was."""
        correspondence = self.correspondence
        if correspondence is None:
            return
        seat = self.seats.get(self.game.turn)
        if self.status != "active" or self.is_over() or seat is None or seat.kind == "ai":
            if correspondence.deadline_ms is not None:
                self.correspondence = correspondence.stopped()
        elif not correspondence.running_for(self.game.ply):
            self.correspondence = correspondence.started(self.game.ply, now_ms)

    def awaits_first_moves(self) -> bool:
        """A game between two people whose side to move has not made its first move yet."""
        return (
            self.mode == "friend"
            and self.status == "active"
            and not self.is_over()
            and self.outcome() is None
            and self.game.ply < 2
        )

    def abort_at(self, first_move_ms: int | None) -> int | None:
        """When a real-time game between two people is aborted because its side to move has not
        made its first move: ``first_move_ms`` after that side could first move. ``None``: both
        sides have moved, or it is not such a game, or ``first_move_ms`` is ``None`` (no
        aborts). (A correspondence game has its days per move for its first moves: running out
        of them aborts it, by its deadline's timer, instead of losing it on time.)"""
        if first_move_ms is None or self.correspondence is not None:
            return None
        if not self.awaits_first_moves():
            return None
        return self.turn_started_ms() + first_move_ms

    def deadline_ms(self) -> int | None:
        """When the side to move runs out of time: its correspondence deadline, or its
        clock's flag (``None``: no time runs)."""
        if self.is_over():
            return None
        if self.correspondence is not None:
            return self.correspondence.deadline_ms
        return None if self.clock is None else self.clock.flag_at()


def captures(live: LiveGame, plies: int | None = None) -> SideCounts:
    """How many enemy pieces each side took in the first ``plies`` moves (default: all)."""
    counts = {Side.BLUE: 0, Side.GRAY: 0}
    for ply, move in enumerate(live.game.moves[:plies], start=1):
        if move.capture:
            counts[live.mover_of(ply)] += len(move.points) - 1
    return SideCounts(blue=counts[Side.BLUE], gray=counts[Side.GRAY])


def side_name(side: Side | None) -> Literal["blue", "gray"] | None:
    return None if side is None else side.value
