"""A game in the database: the rows of a ``LiveGame`` (its game, seats, moves and the browsers'
listings), the change to write as a ``Save`` prepared on the event loop, and reading it back.

Every change is written at a known version: ``apply_save`` updates the game only if it is still
at the version the change was made from, so of two processes changing a game at once exactly one
wins, wherever each change was made (the other gets ``ConflictError`` and nothing is written).
A change also replaces the game's timers (``deadlines``) in the same transaction, so a clock flag
or an AI move is due exactly when the game that needs it is stored.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Final, Literal

from sqlalchemy import Connection, Update, bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from bluegray.game import Game
from bluegray.outcome import Outcome, Termination
from bluegray.pieces import Side
from bluegray.record import read_record
from bluegray.web.games.live import LiveGame, Played, Seat, side_name
from bluegray.web.games.rows import GameRow, ListingRow, MoveRow, SeatRow
from bluegray.web.platform.clocks import Clock, Correspondence
from bluegray.web.platform.db import ConflictError
from bluegray.web.platform.models import table_of
from bluegray.web.timers.deadlines import add_timers, drop_timers

GAME_TIMERS: Final = ("flag", "ai", "abort", "mail-turn", "mail-time")
"""The kinds of timer a game's own state sets (a clock's flag or a correspondence deadline, the
AI's move, the abort of a game whose first moves never come, and in a correspondence game the
notices of the account to move: its turn, its time running out)."""


def _side_or_none(text: str | None) -> Side | None:
    return None if text is None else Side(text)


def game_values(live: LiveGame) -> dict[str, Any]:
    """The ``games`` row of a game, as column values."""
    game = live.game
    outcome = game.outcome()
    clock = live.clock
    correspondence = live.correspondence
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
        "corr_days": None if correspondence is None else correspondence.days,
        "corr_deadline_ms": None if correspondence is None else correspondence.deadline_ms,
        "corr_ply": None if correspondence is None else correspondence.ply,
        "termination": None if outcome is None else outcome.termination.value,
        "winner": None if outcome is None or outcome.winner is None else outcome.winner.value,
        "result": None if outcome is None else outcome.result,
        "end_reason": live.end_reason,
        "draw_offer": side_name(live.draw_offer),
        "takeback_offer": side_name(live.takeback_offer),
        "rematch_offer": side_name(live.rematch_offer),
        "rematch_id": live.rematch_id,
        "parent_id": live.parent_id,
        "invite_hash": live.invite_hash,
        "record": live.record,
        "last_event": live.last_event,
        "rated": live.rated,
        "time_class": live.time_class(),
        "rating_result": live.rating_result,
        "unrated_reason": live.unrated_reason,
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
            "address_hash": seat.address_hash,
            "account_id": seat.account_id,
            "account_name": seat.account_name,
            "account_bot": seat.account_bot,
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
    timers: list[dict[str, Any]]
    """The game's timers once it is stored (they replace all it had)."""
    replace_timers: bool = True
    """Whether the game had or has timers (a change between two states with none writes no
    timer rows)."""


TimerKind = Literal["flag", "ai", "abort", "mail-turn", "mail-time"]

GameValues = Any
"""A game's row: a ``GameRow``, or the same values as attributes (a change's published rows)."""


def timer_values(live: LiveGame, first_move_ms: int | None = None) -> list[dict[str, Any]]:
    """The timers a game needs: the side to move's flag (its running clock's, or its
    correspondence deadline), the AI's move when it is the AI's turn (due at once: whichever
    process claims it first starts the job), in a game between two people whose side to move
    has not made its first move its abort ``first_move_ms`` after that side could first move
    (a correspondence game's deadline aborts it then: ``actions.flag``), and a correspondence
    game's notices."""
    timers: list[dict[str, Any]] = []
    flag_at = live.deadline_ms()
    if flag_at is not None:
        timers.append(_timer("flag", live, flag_at))
    if live.ai_to_move():
        timers.append(_timer("ai", live, live.updated_ms))
    abort_at = live.abort_at(first_move_ms)
    if abort_at is not None:
        timers.append(_timer("abort", live, abort_at))
    correspondence = live.correspondence
    seat = live.seats.get(live.game.turn)
    warning_at = None if correspondence is None else correspondence.warning_at()
    if (
        correspondence is not None
        and correspondence.deadline_ms is not None
        and warning_at is not None
        and not live.is_over()
        and seat is not None
        and seat.account_id is not None
    ):
        started = correspondence.deadline_ms - correspondence.allowance_ms
        timers.append(_timer("mail-turn", live, started))
        timers.append(_timer("mail-time", live, warning_at))
    return timers


def _timer(kind: TimerKind, live: LiveGame, due_ms: int) -> dict[str, Any]:
    return {
        "kind": kind,
        "subject": live.id,
        "due_ms": due_ms,
        "version": live.version,
        "holder": None,
        "held_until_ms": None,
        "note": None,
    }


def listing_values(live: LiveGame, listings: list[tuple[str, str]]) -> list[dict[str, Any]]:
    seen: dict[str, str] = {}
    for browser, role in listings:
        seen.setdefault(browser, role)
    return [
        {"browser_hash": browser, "game_id": live.id, "role": role, "created_ms": live.created_ms}
        for browser, role in seen.items()
    ]


def new_game_save(
    live: LiveGame, listings: list[tuple[str, str]], first_move_ms: int | None = None
) -> Save:
    return Save(
        game_id=live.id,
        expected_version=None,
        game={"id": live.id, "created_ms": live.created_ms} | game_values(live),
        seats=_seat_values(live),
        delete_moves_after=None,
        moves=_move_values(live, 1),
        listings=listing_values(live, listings),
        timers=timer_values(live, first_move_ms),
    )


def change_save(
    before: LiveGame,
    after: LiveGame,
    *,
    seats_changed: bool = False,
    listings: list[tuple[str, str]] | None = None,
    first_move_ms: int | None = None,
) -> Save:
    old, new = before.game.moves, after.game.moves
    common = 0
    for a, b in zip(old, new, strict=False):
        if a is not b and a != b:  # a copy shares the moves it kept: most are the same object
            break
        common += 1
    timers = timer_values(after, first_move_ms)
    return Save(
        game_id=after.id,
        expected_version=before.version,
        game=game_values(after),
        seats=_seat_values(after) if seats_changed else None,
        delete_moves_after=common if common < len(old) else None,
        moves=_move_values(after, common + 1),
        listings=listing_values(after, listings or []),
        timers=timers,
        replace_timers=bool(timers or timer_values(before, first_move_ms)),
    )


_GAMES: Final = table_of(GameRow)
_SEATS: Final = table_of(SeatRow)
_MOVES: Final = table_of(MoveRow)
_LISTINGS: Final = table_of(ListingRow)
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
    if save.expected_version is not None and save.replace_timers:
        drop_timers(connection, save.game_id, GAME_TIMERS)
    if save.timers:
        add_timers(connection, save.timers)
    for listing in save.listings:
        exists = connection.execute(
            select(_LISTINGS.c.game_id).where(
                _LISTINGS.c.browser_hash == listing["browser_hash"],
                _LISTINGS.c.game_id == listing["game_id"],
            )
        ).first()
        if exists is None:
            connection.execute(insert(_LISTINGS), [listing])


def load_game(session: Session, game_id: str, base: LiveGame | None = None) -> LiveGame | None:
    """The stored game; with ``base`` (an older copy of it) only the moves that differ from the
    copy's are played again, not the whole game."""
    row = session.get(GameRow, game_id)
    if row is None:
        return None
    seats = {
        Side(seat.side): Seat(
            seat.kind,  # type: ignore[arg-type]
            seat.token_hash,
            seat.browser_hash,
            seat.joined_ms,
            seat.address_hash,
            seat.account_id,
            seat.account_name,
            bool(seat.account_bot),
        )
        for seat in session.scalars(select(SeatRow).where(SeatRow.game_id == game_id))
    }
    moves = list(
        session.scalars(select(MoveRow).where(MoveRow.game_id == game_id).order_by(MoveRow.ply))
    )
    return live_from_rows(row, seats, moves, base)


def _game_from(row: GameValues, texts: list[str], base: LiveGame | None) -> Game:
    """The game of the rows: ``base``'s game taken back to where the stored moves part from it
    and played on from there (a copy), or, without a usable base, played from the start."""
    if (
        base is not None
        and str(base.rules) == row.rules
        and base.derived().start == row.start
        and base.game.outcome() is None
    ):
        known = base.derived().moves
        common = 0
        for old, new in zip(known, texts, strict=False):
            if old != new:
                break
            common += 1
        game = base.game.copy()
        for _ in range(game.ply - common):
            game.pop()
    else:
        game = Game(row.rules, row.start)
        common = 0
    for text in texts[common:]:
        game.push(text)
    if row.termination is not None and not Termination(row.termination).by_rules:
        game.declare(Outcome(Termination(row.termination), _side_or_none(row.winner)))
    return game


def live_from_rows(
    row: GameValues, seats: dict[Side, Seat], moves: list[MoveRow], base: LiveGame | None = None
) -> LiveGame:
    """The game of its stored rows (``base``: an older copy of it, to play only what differs)."""
    texts = [move.text for move in moves]
    played = [Played(move.played_ms, move.clock_ms) for move in moves]
    return live_from_values(row, seats, texts, played, base)


def live_from_values(
    row: GameValues,
    seats: dict[Side, Seat],
    texts: list[str],
    played: list[Played],
    base: LiveGame | None = None,
) -> LiveGame:
    tags = None
    if row.record is not None:
        record = read_record(row.record)
        game = record.game
        tags = dict(record.header())
    else:
        game = _game_from(row, texts, base)
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
    correspondence = None
    if row.corr_days is not None:
        correspondence = Correspondence(row.corr_days, row.corr_deadline_ms, row.corr_ply)
    return LiveGame(
        id=row.id,
        mode=row.mode,
        status=row.status,
        game=game,
        version=row.version,
        created_ms=row.created_ms,
        updated_ms=row.updated_ms,
        seats=seats,
        ai_level=row.ai_level,
        clock=clock,
        correspondence=correspondence,
        played=played if row.record is None else [Played(row.created_ms) for _ in game.moves],
        draw_offer=_side_or_none(row.draw_offer),
        takeback_offer=_side_or_none(row.takeback_offer),
        rematch_offer=_side_or_none(row.rematch_offer),
        rematch_id=row.rematch_id,
        parent_id=row.parent_id,
        invite_hash=row.invite_hash,
        end_reason=row.end_reason,
        record=row.record,
        tags=tags,
        last_event=row.last_event,
        rated=bool(row.rated),
        rating_result=row.rating_result,
        unrated_reason=row.unrated_reason,
    )


# -- a change as other processes apply it --------------------------------------------------------


def save_text(save: Save) -> str:
    """A change as written, as text: what the process that made it publishes, so that a process
    holding the game at the version before applies the very rows the database got, instead of
    reading the game again."""
    return json.dumps(dataclasses.asdict(save), separators=(",", ":"))


def live_after(base: LiveGame, text: str) -> LiveGame:
    """The game once the change ``text`` (from ``save_text``) is applied to ``base``, the game
    at the version the change was made from: what reading the stored game would give."""
    save = json.loads(text)
    if save["expected_version"] != base.version or base.record is not None:
        raise ValueError("the change was not made from this version")
    row = SimpleNamespace(**save["game"], id=base.id, created_ms=base.created_ms)
    if save["seats"] is None:
        seats = {side: dataclasses.replace(seat) for side, seat in base.seats.items()}
    else:
        seats = {
            Side(seat["side"]): Seat(
                seat["kind"],
                seat["token_hash"],
                seat["browser_hash"],
                seat["joined_ms"],
                seat["address_hash"],
                seat["account_id"],
                seat["account_name"],
                seat["account_bot"],
            )
            for seat in save["seats"]
        }
    kept = len(base.played) if save["delete_moves_after"] is None else save["delete_moves_after"]
    texts = base.derived().moves[:kept] + [move["text"] for move in save["moves"]]
    played = base.played[:kept] + [
        Played(move["played_ms"], move["clock_ms"]) for move in save["moves"]
    ]
    return live_from_values(row, seats, texts, played, base)
