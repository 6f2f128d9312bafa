"""A game as the server holds it: the ``Game`` with its seats, clock and offers, how it is read
from and written to the database, and how it looks to clients (``GameState``)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from sqlalchemy import Connection, Update, bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from bluegray.game import Game
from bluegray.moves import Move
from bluegray.outcome import Outcome, Termination
from bluegray.pieces import Side
from bluegray.points import point_name
from bluegray.position import Position
from bluegray.record import read_record
from bluegray.rules import RuleSet
from bluegray.web.clocks import Clock
from bluegray.web.db import ConflictError
from bluegray.web.models import Base, GameRow, MoveRow, SeatRow
from bluegray.web.schemas import (
    ClockState,
    GameState,
    LastMove,
    Mode,
    Offers,
    OutcomeInfo,
    RulesInfo,
    Seats,
    SeatState,
    SideCounts,
    Status,
)

SeatKind = Literal["human", "ai"]


@dataclass
class Seat:
    kind: SeatKind
    token_hash: str | None = None
    browser_hash: str | None = None
    joined_ms: int | None = None


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

    def is_over(self) -> bool:
        return self.status in ("finished", "aborted")

    def mover_of(self, ply: int) -> Side:
        """The side that made move number ``ply`` (1 the first)."""
        first = self.game.start.turn
        return first if ply % 2 == 1 else first.other

    def outcome(self) -> Outcome | None:
        return self.game.outcome()

    def sync_status(self) -> None:
        """A game the rules (or a declaration) have ended is finished."""
        if self.status in ("active", "waiting") and self.game.outcome() is not None:
            self.status = "finished"


# -- views ------------------------------------------------------------------------------------


def rules_info(rules: RuleSet) -> RulesInfo:
    return RulesInfo(
        name=rules.name,
        text=str(rules),
        description=rules.description,
        settings=rules.settings(),
        start=str(Position.start(rules)),
    )


_RULES_INFO: dict[RuleSet, RulesInfo] = {}


def cached_rules_info(rules: RuleSet) -> RulesInfo:
    info = _RULES_INFO.get(rules)
    if info is None:
        if len(_RULES_INFO) > 1000:
            _RULES_INFO.clear()
        info = _RULES_INFO[rules] = rules_info(rules)
    return info


def outcome_info(live: LiveGame) -> OutcomeInfo | None:
    outcome = live.outcome()
    if outcome is None:
        return None
    if live.end_reason == "abandoned" and outcome.winner is not None:
        loser = outcome.winner.other
        return OutcomeInfo(
            winner=outcome.winner.value,
            reason="abandoned",
            result=outcome.result,
            description=f"{outcome.winner.title} wins: {loser.title} left the game",
        )
    return OutcomeInfo(
        winner=None if outcome.winner is None else outcome.winner.value,
        reason=outcome.termination.value,
        result=outcome.result,
        description=outcome.describe(),
    )


def captures(live: LiveGame, plies: int | None = None) -> SideCounts:
    """How many enemy pieces each side took in the first ``plies`` moves (default: all)."""
    counts = {Side.BLUE: 0, Side.GRAY: 0}
    for ply, move in enumerate(live.game.moves[:plies], start=1):
        if move.capture:
            counts[live.mover_of(ply)] += len(move.points) - 1
    return SideCounts(blue=counts[Side.BLUE], gray=counts[Side.GRAY])


def clock_state(clock: Clock | None, now_ms: int) -> ClockState | None:
    if clock is None:
        return None
    return ClockState(
        initial_ms=clock.initial_ms,
        increment_ms=clock.increment_ms,
        blue_ms=max(0, clock.left(Side.BLUE, now_ms)),
        gray_ms=max(0, clock.left(Side.GRAY, now_ms)),
        running=None if clock.running is None else clock.running.value,
        server_time_ms=now_ms,
    )


@dataclass(frozen=True)
class Presence:
    """Who is connected to a game right now (kept by the WebSocket hub)."""

    connected: frozenset[Side] = frozenset()
    away_since_ms: tuple[int, int] = (0, 0)
    spectators: int = 0


def seat_state(live: LiveGame, side: Side, presence: Presence) -> SeatState:
    seat = live.seats.get(side)
    if seat is None or (seat.kind == "human" and seat.token_hash is None):
        return SeatState(player="open", connected=False)
    if seat.kind == "ai":
        return SeatState(player="ai", level=live.ai_level, connected=True)
    connected = side in presence.connected
    return SeatState(
        player="human",
        connected=connected,
        away_since_ms=None if connected else presence.away_since_ms[side.index],
    )


def claim_win_at(live: LiveGame, presence: Presence, abandon_ms: int) -> int | None:
    """When the side not to move may claim the win: only in games between two browsers, on a
    turn whose player has no connection."""
    if live.mode != "friend" or live.status != "active" or live.game.ply == 0:
        return None
    turn = live.game.turn
    if turn in presence.connected:
        return None
    return presence.away_since_ms[turn.index] + abandon_ms


def game_state(
    live: LiveGame, presence: Presence, now_ms: int, *, abandon_ms: int, ai_thinking: bool
) -> GameState:
    game = live.game
    derived = live.derived()
    last = game.last_move
    return GameState(
        id=live.id,
        version=live.version,
        mode=live.mode,
        status=live.status,
        created_ms=live.created_ms,
        rules=cached_rules_info(game.rules),
        start=derived.start,
        moves=derived.moves,
        ply=game.ply,
        position=derived.position,
        turn=game.turn.value,
        legal_moves=derived.legal_moves,
        last_move=None
        if last is None
        else LastMove(
            text=str(last),
            side=live.mover_of(game.ply).value,
            points=[point_name(point) for point in last.points],
            captured=[point_name(point) for point in last.captured_points],
        ),
        captures=derived.captures,
        advancement=derived.advancement,
        clock=clock_state(live.clock, now_ms),
        outcome=outcome_info(live),
        offers=Offers(
            draw=_side(live.draw_offer),
            takeback=_side(live.takeback_offer),
            rematch=_side(live.rematch_offer),
        ),
        seats=seats_view(live, presence),
        spectators=presence.spectators,
        ai_thinking=ai_thinking,
        claim_win_at_ms=claim_win_at(live, presence, abandon_ms),
        rematch_id=live.rematch_id,
        parent_id=live.parent_id,
        tags=live.tags,
    )


def seats_view(live: LiveGame, presence: Presence) -> Seats:
    return Seats(
        blue=seat_state(live, Side.BLUE, presence), gray=seat_state(live, Side.GRAY, presence)
    )


def _side(side: Side | None) -> Literal["blue", "gray"] | None:
    return None if side is None else side.value


# -- the database -----------------------------------------------------------------------------


def _side_or_none(text: str | None) -> Side | None:
    return None if text is None else Side(text)


def game_values(live: LiveGame) -> dict[str, Any]:
    """The ``games`` row of a game, as column values."""
    game = live.game
    outcome = game.outcome()
    clock = live.clock
    derived = live.derived()
    return {
        "mode": live.mode,
        "status": live.status,
        "version": live.version,
        "updated_ms": live.updated_ms,
        "rules": str(game.rules),
        "start": derived.start,
        "position": derived.position,
        "ply": game.ply,
        "turn": game.turn.value,
        "ai_level": live.ai_level,
        "clock_initial_ms": None if clock is None else clock.initial_ms,
        "clock_increment_ms": None if clock is None else clock.increment_ms,
        "blue_ms": None if clock is None else clock.blue_ms,
        "gray_ms": None if clock is None else clock.gray_ms,
        "clock_since_ms": None if clock is None or clock.running is None else clock.since_ms,
        "termination": None if outcome is None else outcome.termination.value,
        "winner": None if outcome is None or outcome.winner is None else outcome.winner.value,
        "result": None if outcome is None else outcome.result,
        "end_reason": live.end_reason,
        "draw_offer": _side(live.draw_offer),
        "takeback_offer": _side(live.takeback_offer),
        "rematch_offer": _side(live.rematch_offer),
        "rematch_id": live.rematch_id,
        "parent_id": live.parent_id,
        "invite_hash": live.invite_hash,
        "record": live.record,
    }


def _seat_values(live: LiveGame) -> list[dict[str, Any]]:
    return [
        {
            "game_id": live.id,
            "side": side.value,
            "kind": seat.kind,
            "token_hash": seat.token_hash,
            "browser_hash": seat.browser_hash,
            "joined_ms": seat.joined_ms,
        }
        for side, seat in live.seats.items()
    ]


def _move_values(live: LiveGame, first_ply: int) -> list[dict[str, Any]]:
    moves = live.game.moves
    return [
        {
            "game_id": live.id,
            "ply": ply,
            "text": str(moves[ply - 1]),
            "side": live.mover_of(ply).value,
            "clock_ms": live.played[ply - 1].clock_ms,
            "played_ms": live.played[ply - 1].at_ms,
        }
        for ply in range(first_ply, len(moves) + 1)
    ]


@dataclass(frozen=True)
class Save:
    """A change to write, prepared on the event loop so the writer thread only runs SQL."""

    game_id: str
    expected_version: int | None
    """``None``: a new game to insert."""
    game: dict[str, Any]
    seats: list[dict[str, Any]] | None
    """Every seat (all rewritten), or ``None`` when the seats did not change."""
    delete_moves_after: int | None
    moves: list[dict[str, Any]]
    listings: list[dict[str, Any]]


def listing_values(live: LiveGame, listings: list[tuple[str, str]]) -> list[dict[str, Any]]:
    seen: dict[str, str] = {}
    for browser, role in listings:
        seen.setdefault(browser, role)
    return [
        {"browser_hash": browser, "game_id": live.id, "role": role, "created_ms": live.created_ms}
        for browser, role in seen.items()
    ]


def new_game_save(live: LiveGame, listings: list[tuple[str, str]]) -> Save:
    return Save(
        game_id=live.id,
        expected_version=None,
        game={"id": live.id, "created_ms": live.created_ms} | game_values(live),
        seats=_seat_values(live),
        delete_moves_after=None,
        moves=_move_values(live, 1),
        listings=listing_values(live, listings),
    )


def change_save(
    before: LiveGame,
    after: LiveGame,
    *,
    seats_changed: bool = False,
    listings: list[tuple[str, str]] | None = None,
) -> Save:
    old, new = before.game.moves, after.game.moves
    common = 0
    for a, b in zip(old, new, strict=False):
        if a != b:
            break
        common += 1
    return Save(
        game_id=after.id,
        expected_version=before.version,
        game=game_values(after),
        seats=_seat_values(after) if seats_changed else None,
        delete_moves_after=common if common < len(old) else None,
        moves=_move_values(after, common + 1),
        listings=listing_values(after, listings or []),
    )


_GAMES: Final = Base.metadata.tables["games"]
_SEATS: Final = Base.metadata.tables["seats"]
_MOVES: Final = Base.metadata.tables["moves"]
_LISTINGS: Final = Base.metadata.tables["listings"]
_UPDATES: dict[tuple[str, ...], Update] = {}


def _update_game(columns: tuple[str, ...]) -> Update:
    """The compiled-once statement that updates these columns of a game at a known version."""
    statement = _UPDATES.get(columns)
    if statement is None:
        statement = _UPDATES[columns] = (
            update(_GAMES)
            .where(_GAMES.c.id == bindparam("w_id"), _GAMES.c.version == bindparam("w_version"))
            .values({name: bindparam("v_" + name) for name in columns})
        )
    return statement


def apply_save(connection: Connection, save: Save) -> None:
    """Run a prepared change; ``ConflictError`` if the stored game is no longer the one the
    change was made from (another process changed it): then nothing is written."""
    if save.expected_version is None:
        connection.execute(insert(_GAMES), [save.game])
    else:
        columns = tuple(save.game)
        values = {"v_" + name: value for name, value in save.game.items()}
        values["w_id"] = save.game_id
        values["w_version"] = save.expected_version
        result = connection.execute(_update_game(columns), values)
        if result.rowcount != 1:
            raise ConflictError(f"game {save.game_id} changed under us")
    if save.delete_moves_after is not None:
        connection.execute(
            delete(_MOVES).where(
                _MOVES.c.game_id == save.game_id, _MOVES.c.ply > save.delete_moves_after
            )
        )
    if save.moves:
        connection.execute(insert(_MOVES), save.moves)
    if save.seats is not None:
        if save.expected_version is not None:
            connection.execute(delete(_SEATS).where(_SEATS.c.game_id == save.game_id))
        if save.seats:
            connection.execute(insert(_SEATS), save.seats)
    for listing in save.listings:
        exists = connection.execute(
            select(_LISTINGS.c.game_id).where(
                _LISTINGS.c.browser_hash == listing["browser_hash"],
                _LISTINGS.c.game_id == listing["game_id"],
            )
        ).first()
        if exists is None:
            connection.execute(insert(_LISTINGS), [listing])


def load_game(session: Session, game_id: str) -> LiveGame | None:
    row = session.get(GameRow, game_id)
    if row is None:
        return None
    seats = {
        Side(seat.side): Seat(seat.kind, seat.token_hash, seat.browser_hash, seat.joined_ms)  # type: ignore[arg-type]
        for seat in session.scalars(select(SeatRow).where(SeatRow.game_id == game_id))
    }
    moves = list(
        session.scalars(select(MoveRow).where(MoveRow.game_id == game_id).order_by(MoveRow.ply))
    )
    return live_from_rows(row, seats, moves)


def live_from_rows(row: GameRow, seats: dict[Side, Seat], moves: list[MoveRow]) -> LiveGame:
    tags = None
    if row.record is not None:
        record = read_record(row.record)
        game = record.game
        tags = dict(record.header())
    else:
        game = Game(row.rules, row.start)
        for move in moves:
            game.push(move.text)
        if row.termination is not None and not Termination(row.termination).by_rules:
            game.declare(Outcome(Termination(row.termination), _side_or_none(row.winner)))
    clock = None
    if row.clock_initial_ms is not None:
        running = Side(row.turn) if row.clock_since_ms is not None else None
        clock = Clock(
            row.clock_initial_ms,
            row.clock_increment_ms or 0,
            row.blue_ms or 0,
            row.gray_ms or 0,
            running,
            row.clock_since_ms,
        )
    return LiveGame(
        id=row.id,
        mode=row.mode,  # type: ignore[arg-type]
        status=row.status,  # type: ignore[arg-type]
        game=game,
        version=row.version,
        created_ms=row.created_ms,
        updated_ms=row.updated_ms,
        seats=seats,
        ai_level=row.ai_level,
        clock=clock,
        played=[Played(move.played_ms, move.clock_ms) for move in moves]
        if row.record is None
        else [Played(row.created_ms) for _ in game.moves],
        draw_offer=_side_or_none(row.draw_offer),
        takeback_offer=_side_or_none(row.takeback_offer),
        rematch_offer=_side_or_none(row.rematch_offer),
        rematch_id=row.rematch_id,
        parent_id=row.parent_id,
        invite_hash=row.invite_hash,
        end_reason=row.end_reason,
        record=row.record,
        tags=tags,
    )
