"""The game service: every change to a game goes through here, one at a time per game.

A change is made on a copy of the game, committed to the database, and only then adopted and
broadcast; a change that is refused (an illegal move, a stale version) leaves nothing behind.
The service also keeps the clocks (a timer per running clock), starts AI moves, and on start-up
resumes what a stopped server left: running clocks, and AI players whose turn it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Final

from sqlalchemy import Connection, case, func, literal, select, update
from sqlalchemy.orm import Session

from bluegray.errors import BlueGrayError
from bluegray.game import Game
from bluegray.outcome import Outcome, Termination
from bluegray.pieces import Side
from bluegray.record import read_record
from bluegray.rules import RuleSet, Stalemate
from bluegray.web.ai import Engines, MoveJob
from bluegray.web.clocks import Clock
from bluegray.web.db import ConflictError, Database, upsert
from bluegray.web.errors import ApiError, from_library, not_found
from bluegray.web.live import (
    LiveGame,
    Played,
    Save,
    Seat,
    apply_save,
    change_save,
    claim_win_at,
    game_state,
    load_game,
    new_game_save,
    seats_view,
)
from bluegray.web.models import Base, GameRow, ListingRow, SeatRow
from bluegray.web.schemas import (
    Action,
    CreateGameRequest,
    GameEvent,
    GameList,
    GameState,
    GameSummary,
    Invite,
    MoveAck,
    OutcomeInfo,
    PresenceMessage,
    SeatGrant,
    StateMessage,
)
from bluegray.web.security import digest, new_game_id, new_invite_code, new_token
from bluegray.web.settings import Settings
from bluegray.web.ws import Hub

log = logging.getLogger("bluegray.web")

CACHE_LIMIT: Final = 2000
"""Games kept in memory; idle ones beyond this are dropped (they are all in the database)."""
HEARTBEAT_KEY: Final = "heartbeat_ms"
AI_RETRY_SECONDS: Final = 2.0


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Runtime:
    """A loaded game with what only a running server has: its lock, clock timer and AI task."""

    live: LiveGame
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    flag_timer: asyncio.TimerHandle | None = None
    ai_task: asyncio.Task[None] | None = None
    ai_version: int = -1
    used: float = field(default_factory=time.monotonic)

    @property
    def ai_thinking(self) -> bool:
        return self.ai_task is not None and not self.ai_task.done()


Change = Callable[[LiveGame], GameEvent | None]


class GameService:
    """The games of one server."""

    def __init__(self, db: Database, engines: Engines, settings: Settings) -> None:
        self.db = db
        self.engines = engines
        self.settings = settings
        self.started_ms = now_ms()
        self.hub = Hub(self.started_ms)
        self._games: dict[str, Runtime] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._heartbeat: asyncio.Task[None] | None = None
        self.abandon_ms = int(settings.abandon_seconds * 1000)

    # -- start and stop ----------------------------------------------------------------------

    async def start(self) -> None:
        """Credit running clocks with the time the server was down, then resume the games that
        wait for the server: running clocks get their timers, AI players whose turn it is move.
        """
        started = now_ms()
        resumed: list[str] = await self.db.write(lambda connection: _resume(connection, started))
        for game_id in resumed:
            try:
                runtime = await self._runtime(game_id)
            except ApiError:
                continue
            except BlueGrayError as error:
                log.error("cannot resume game %s: %s", game_id, error)
                continue
            self._schedule(runtime)
        self._heartbeat = asyncio.create_task(self._beat())

    async def stop(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._heartbeat
        for runtime in self._games.values():
            if runtime.flag_timer is not None:
                runtime.flag_timer.cancel()
            if runtime.ai_task is not None:
                runtime.ai_task.cancel()
        for task in list(self._tasks):
            task.cancel()
        await self.hub.close_all()
        with contextlib.suppress(Exception):
            await self.db.write(partial(_note_alive, stamp=now_ms()))

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.settings.heartbeat_seconds)
            try:
                await self.db.write(partial(_note_alive, stamp=now_ms()))
            except Exception as error:
                log.error("cannot note the heartbeat: %s", error)

    def _spawn(self, task: asyncio.Task[None]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- loading -----------------------------------------------------------------------------

    async def _runtime(self, game_id: str) -> Runtime:
        runtime = self._games.get(game_id)
        if runtime is not None:
            runtime.used = time.monotonic()
            return runtime
        live = await self.db.read(lambda session: load_game(session, game_id))
        if live is None:
            raise not_found(f"game {game_id!r}")
        runtime = self._games.get(game_id)  # loaded meanwhile by another request
        if runtime is None:
            runtime = self._games[game_id] = Runtime(live)
            self._evict()
        return runtime

    def _evict(self) -> None:
        if len(self._games) <= CACHE_LIMIT:
            return
        idle = sorted(
            (
                runtime
                for game_id, runtime in self._games.items()
                if not runtime.lock.locked()
                and not runtime.ai_thinking
                and runtime.flag_timer is None
                and not self.hub.has_connections(game_id)
            ),
            key=lambda runtime: runtime.used,
        )
        for runtime in idle[: len(self._games) - CACHE_LIMIT]:
            del self._games[runtime.live.id]
            if runtime.live.is_over():
                self.hub.forget(runtime.live.id)

    async def snapshot(self, game_id: str) -> LiveGame:
        """The game as it stands (a copy: the caller may do as it likes with it)."""
        return (await self._runtime(game_id)).live.copy()

    # -- views -------------------------------------------------------------------------------

    def _state(self, runtime: Runtime, now: int | None = None) -> GameState:
        live = runtime.live
        return game_state(
            live,
            self.hub.presence(live.id),
            now_ms() if now is None else now,
            abandon_ms=self.abandon_ms,
            ai_thinking=runtime.ai_thinking,
        )

    async def state(self, game_id: str) -> GameState:
        return self._state(await self._runtime(game_id))

    def state_message(self, runtime: Runtime, event: GameEvent | None = None) -> str:
        state = self._state(runtime)
        return StateMessage(version=state.version, event=event, game=state).model_dump_json()

    async def state_text(self, game_id: str) -> str:
        return self.state_message(await self._runtime(game_id))

    def presence_changed(self, game_id: str) -> None:
        runtime = self._games.get(game_id)
        if runtime is None:
            return
        live = runtime.live
        presence = self.hub.presence(game_id)
        message = PresenceMessage(
            version=live.version,
            seats=seats_view(live, presence),
            spectators=presence.spectators,
            claim_win_at_ms=claim_win_at(live, presence, self.abandon_ms),
        )
        self.hub.broadcast(game_id, message.model_dump_json())

    # -- seats -------------------------------------------------------------------------------

    async def authenticate(self, game_id: str, token: str | None) -> frozenset[Side]:
        """The sides a seat token plays in a game (none for ``None``: a spectator)."""
        runtime = await self._runtime(game_id)
        if token is None:
            return frozenset()
        hashed = digest(token)
        sides = frozenset(
            side
            for side, seat in runtime.live.seats.items()
            if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, hashed)
        )
        if not sides:
            raise ApiError(403, "forbidden", "that token does not hold a seat in this game")
        return sides

    # -- creating ----------------------------------------------------------------------------

    async def create(
        self, request: CreateGameRequest, browser: str
    ) -> tuple[GameState, SeatGrant, Invite | None]:
        rules = RuleSet.parse(request.rules)
        game = Game(rules, request.position)
        now = now_ms()
        color = request.color
        own = Side(secrets.choice(("blue", "gray")) if color == "random" else color)
        token = new_token()
        hashed = digest(token)
        seats: dict[Side, Seat]
        invite: Invite | None = None
        invite_hash = None
        opponent = request.opponent
        game_id = new_game_id()
        if opponent.type == "hotseat":
            seats = {side: Seat("human", hashed, browser, now) for side in (Side.BLUE, Side.GRAY)}
            grant = SeatGrant(token=token, side="both")
            role = "both"
        else:
            seats = {own: Seat("human", hashed, browser, now)}
            seats[own.other] = Seat("ai") if opponent.type == "ai" else Seat("human")
            grant = SeatGrant(token=token, side=own.value)
            role = own.value
            if opponent.type == "friend":
                code = new_invite_code()
                invite_hash = digest(code)
                invite = Invite(code=code, path=f"/game/{game_id}#join={code}")
        clock = None
        if request.clock is not None:
            clock = Clock.new(
                round(request.clock.minutes * 60_000), round(request.clock.increment_seconds * 1000)
            )
        live = LiveGame(
            id=game_id,
            mode=opponent.type,
            status="waiting" if opponent.type == "friend" else "active",
            game=game,
            version=1,
            created_ms=now,
            updated_ms=now,
            seats=seats,
            ai_level=opponent.level if opponent.type == "ai" else None,
            clock=clock,
            invite_hash=invite_hash,
        )
        live.sync_status()
        save = new_game_save(live, [(browser, role)])
        await self.db.write(lambda connection: apply_save(connection, save))
        runtime = self._games[game_id] = Runtime(live)
        self._evict()
        self._schedule(runtime)
        return self._state(runtime), grant, invite

    async def import_record(self, text: str, browser: str) -> GameState:
        try:
            record = await asyncio.to_thread(read_record, text)
        except BlueGrayError as error:
            raise from_library(error) from None
        game = record.game
        now = now_ms()
        live = LiveGame(
            id=new_game_id(),
            mode="imported",
            status="finished",
            game=game,
            version=1,
            created_ms=now,
            updated_ms=now,
            played=[Played(now) for _ in game.moves],
            record=text,
            tags=dict(record.header()),
        )
        save = new_game_save(live, [(browser, "viewer")])
        await self.db.write(lambda connection: apply_save(connection, save))
        runtime = self._games[live.id] = Runtime(live)
        self._evict()
        return self._state(runtime)

    async def join(self, game_id: str, code: str, browser: str) -> tuple[GameState, SeatGrant]:
        """Take the open seat of a friend's game with its invite code."""
        token = new_token()

        def change(live: LiveGame) -> GameEvent:
            if live.mode != "friend" or live.invite_hash is None:
                raise ApiError(409, "not_allowed", "this game has no open seat")
            if not secrets.compare_digest(digest(code), live.invite_hash):
                raise ApiError(403, "forbidden", "that invite code is not this game's")
            side = next(side for side, seat in live.seats.items() if seat.token_hash is None)
            live.seats[side] = Seat("human", digest(token), browser, now_ms())
            live.invite_hash = None
            if live.status == "waiting":
                live.status = "active"
            return GameEvent(kind="joined", side=side.value)

        runtime = await self._runtime(game_id)
        event = await self._change(runtime, change, seats_changed=True, listings_for=browser)
        assert event is not None and event.side is not None
        return self._state(runtime), SeatGrant(token=token, side=event.side)

    async def new_invite(self, game_id: str, sides: frozenset[Side]) -> Invite:
        code = new_invite_code()

        def change(live: LiveGame) -> GameEvent:
            if live.mode != "friend" or live.status != "waiting":
                raise ApiError(409, "not_allowed", "only a game waiting for a friend has an invite")
            live.invite_hash = digest(code)
            return GameEvent(kind="invite")

        if not sides:
            raise ApiError(401, "unauthorized", "only a player of this game can invite")
        await self._change(await self._runtime(game_id), change)
        return Invite(code=code, path=f"/game/{game_id}#join={code}")

    # -- changing ----------------------------------------------------------------------------

    async def _change(
        self,
        runtime: Runtime,
        change: Change,
        *,
        version: int | None = None,
        seats_changed: bool = False,
        listings_for: str | None = None,
        extra: Callable[[LiveGame], list[Save]] | None = None,
    ) -> GameEvent | None:
        """Apply ``change`` to a copy, commit it, adopt it, broadcast it. ``change`` raises
        ``ApiError`` to refuse; it returns the event to announce (``None``: nothing changed)."""
        async with runtime.lock:
            before = runtime.live
            if version is not None and version != before.version:
                raise ApiError(
                    409,
                    "stale_version",
                    f"the game is at version {before.version}, not {version}: "
                    "here is the current state",
                    {"version": before.version},
                )
            after = before.copy()
            try:
                event = change(after)
            except BlueGrayError as error:
                raise from_library(error) from None
            if event is None:
                return None
            now = now_ms()
            after.version = before.version + 1
            after.updated_ms = now
            after.sync_status()
            if after.is_over() and after.clock is not None and after.clock.running is not None:
                after.clock = after.clock.switched(None, now)
            if after.is_over():
                after.draw_offer = after.takeback_offer = None
            listings = []
            if listings_for is not None:
                side = next(
                    (s for s, seat in after.seats.items() if seat.browser_hash == listings_for),
                    None,
                )
                listings = [(listings_for, "viewer" if side is None else side.value)]
            saves = [change_save(before, after, seats_changed=seats_changed, listings=listings)]
            if extra is not None:
                saves.extend(extra(after))

            def write(connection: Connection) -> None:
                for save in saves:
                    apply_save(connection, save)

            try:
                await self.db.write(write)
            except ConflictError:
                self._games.pop(before.id, None)
                raise ApiError(
                    409, "conflict", "the game was changed elsewhere: reload it"
                ) from None
            runtime.live = after
            self._schedule(runtime)
            self.hub.broadcast(after.id, self.state_message(runtime, event))
            return event

    def _schedule(self, runtime: Runtime) -> None:
        """After a change: set the flag timer of the running clock, and start the AI if it is
        its turn."""
        live = runtime.live
        if runtime.flag_timer is not None:
            runtime.flag_timer.cancel()
            runtime.flag_timer = None
        loop = asyncio.get_running_loop()
        flag_at = None if live.clock is None or live.is_over() else live.clock.flag_at()
        if flag_at is not None:
            delay = max(0.0, (flag_at - now_ms()) / 1000) + 0.005
            runtime.flag_timer = loop.call_later(delay, self._on_flag, live.id)
        if (
            live.status == "active"
            and not live.is_over()
            and live.seats.get(live.game.turn, Seat("human")).kind == "ai"
            and live.ai_level is not None
            and not (runtime.ai_thinking and runtime.ai_version == live.version)
        ):
            runtime.ai_version = live.version
            runtime.ai_task = asyncio.create_task(self._ai_move(runtime, live.version))

    # -- clocks ------------------------------------------------------------------------------

    def _on_flag(self, game_id: str) -> None:
        runtime = self._games.get(game_id)
        if runtime is None:
            return
        runtime.flag_timer = None
        self._spawn(asyncio.create_task(self._flag(runtime)))

    async def _flag(self, runtime: Runtime) -> None:
        def change(live: LiveGame) -> GameEvent | None:
            clock = live.clock
            if live.is_over() or clock is None or clock.running is None:
                return None
            side = clock.running
            now = now_ms()
            if clock.left(side, now) > 0:
                return None
            _time_out(live, side, now)
            return GameEvent(kind="time", side=side.value)

        try:
            event = await self._change(runtime, change)
        except ApiError as error:
            log.warning("flag of game %s: %s", runtime.live.id, error.message)
            return
        if event is None and not runtime.live.is_over():
            self._schedule(runtime)

    # -- moves -------------------------------------------------------------------------------

    async def move(
        self, game_id: str, sides: frozenset[Side], text: str, version: int
    ) -> tuple[int, str]:
        """Play a move for a seat; once it is committed, the new version and the move."""
        runtime = await self._runtime(game_id)
        if not sides:
            raise ApiError(401, "unauthorized", "spectators cannot move: a seat token is needed")
        timed_out: list[Side] = []

        def change(live: LiveGame) -> GameEvent:
            _require_playing(live)
            turn = live.game.turn
            if turn not in sides:
                raise ApiError(
                    409, "not_your_turn", f"it is {turn.title}'s turn, and you play {_names(sides)}"
                )
            event = _play_in_time(live, text, now_ms())
            if event.kind == "time":
                timed_out.append(turn)
            return event

        event = await self._change(runtime, change, version=version)
        if timed_out:
            raise ApiError(409, "game_over", f"{timed_out[0].title}'s time ran out")
        assert event is not None and event.move is not None
        return runtime.live.version, event.move

    async def move_with_state(
        self, game_id: str, sides: frozenset[Side], text: str, version: int
    ) -> MoveAck:
        """``move``, answered with the state just after it."""
        runtime = await self._runtime(game_id)
        new_version, move = await self.move(game_id, sides, text, version)
        return MoveAck(version=new_version, move=move, game=self._state(runtime))

    async def _ai_move(self, runtime: Runtime, version: int) -> None:
        live = runtime.live
        clock = live.clock
        level = live.ai_level or 1
        seed = int.from_bytes(hashlib.sha256(f"{live.id}:{live.game.ply}".encode()).digest()[:4])
        job = MoveJob(
            rules=str(live.rules),
            start=str(live.game.start),
            moves=tuple(str(move) for move in live.game.moves),
            level=level,
            seed=seed,
            time_left_ms=None if clock is None else clock.left(live.game.turn, now_ms()),
        )
        try:
            text = await self.engines.choose(job)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.error("the AI of game %s failed: %r; trying again", live.id, error)
            await asyncio.sleep(AI_RETRY_SECONDS)
            if runtime.ai_task is asyncio.current_task():
                runtime.ai_task = None
                if runtime.live.version == version:
                    runtime.ai_version = -1
                    self._schedule(runtime)
            return

        def change(live: LiveGame) -> GameEvent | None:
            if live.version != version or live.is_over():
                return None  # a takeback, resignation or time-out came first
            return _play_in_time(live, text, now_ms())

        if runtime.ai_task is not asyncio.current_task():
            return  # the game changed meanwhile, and another task thinks about it now
        runtime.ai_task = None
        try:
            await self._change(runtime, change)
        except ApiError as error:
            log.error("the AI move %r of game %s was refused: %s", text, live.id, error.message)

    # -- actions -----------------------------------------------------------------------------

    async def act(
        self,
        game_id: str,
        sides: frozenset[Side],
        action: Action,
        side: Side | None = None,
        version: int | None = None,
    ) -> GameState:
        """An offer, an answer to one, a resignation, an abort, a claim or a rematch."""
        runtime = await self._runtime(game_id)
        if not sides:
            raise ApiError(401, "unauthorized", "spectators cannot act: a seat token is needed")
        if side is not None and side not in sides:
            raise ApiError(403, "forbidden", f"you do not play {side.title}")
        rematch: list[LiveGame] = []

        def change(live: LiveGame) -> GameEvent | None:
            actor = _actor(live, sides, side, action)
            handler = _ACTIONS[action]
            return handler(self, live, actor, rematch)

        def extra(after: LiveGame) -> list[Save]:
            return [_rematch_save(game) for game in rematch]

        await self._change(runtime, change, version=version, extra=extra)
        for game in rematch:
            new = self._games[game.id] = Runtime(game)
            self._schedule(new)
        return self._state(runtime)

    def _claimable_at(self, live: LiveGame) -> int | None:
        return claim_win_at(live, self.hub.presence(live.id), self.abandon_ms)

    # -- lists -------------------------------------------------------------------------------

    async def list_games(self, browser: str, limit: int, before_ms: int | None) -> GameList:
        def query(session: Session) -> list[tuple[GameRow, str]]:
            statement = (
                select(GameRow, ListingRow.role)
                .join(ListingRow, ListingRow.game_id == GameRow.id)
                .where(ListingRow.browser_hash == browser)
            )
            if before_ms is not None:
                statement = statement.where(ListingRow.created_ms < before_ms)
            statement = statement.order_by(
                ListingRow.created_ms.desc(), ListingRow.game_id.desc()
            ).limit(limit + 1)
            return [(row, role) for row, role in session.execute(statement).all()]

        rows = await self.db.read(query)
        games = [_summary(row, role) for row, role in rows[:limit]]
        more = len(rows) > limit
        return GameList(games=games, next_before_ms=games[-1].created_ms if more else None)

    async def count_games(self) -> int:
        def count(session: Session) -> int:
            return int(session.scalar(select(func.count()).select_from(GameRow)) or 0)

        return await self.db.read(count)


# -- the actions ------------------------------------------------------------------------------

ActionHandler = Callable[[GameService, LiveGame, Side, list[LiveGame]], GameEvent | None]


def _names(sides: Iterable[Side]) -> str:
    return " and ".join(side.title for side in sorted(sides, key=lambda s: s.index))


def _require_playing(live: LiveGame) -> None:
    if live.status == "waiting":
        raise ApiError(409, "not_started", "the game has not started: the friend has not joined")
    outcome = live.outcome()
    if live.is_over() or outcome is not None:
        words = "aborted" if live.status == "aborted" else (outcome.describe() if outcome else "")
        raise ApiError(409, "game_over", f"the game is over ({words})")


def _play(live: LiveGame, text: str, now: int) -> GameEvent:
    game = live.game
    mover = game.turn
    move = game.push(text.strip().lower())
    over = game.outcome() is not None
    clock_ms = None
    if live.clock is not None:
        live.clock = live.clock.after_move(mover, now, running_next=not over)
        clock_ms = live.clock.stored(mover)
    live.played.append(Played(now, clock_ms))
    if live.draw_offer is mover.other:
        live.draw_offer = None  # moving declines the opponent's offer
    live.takeback_offer = None
    return GameEvent(kind="move", side=mover.value, move=str(move))


def _play_in_time(live: LiveGame, text: str, now: int) -> GameEvent:
    """Play the move, unless the mover's time has run out: then that ends the game."""
    turn = live.game.turn
    clock = live.clock
    if clock is not None and clock.running is turn and clock.left(turn, now) <= 0:
        _time_out(live, turn, now)
        return GameEvent(kind="time", side=turn.value)
    return _play(live, text, now)


def _time_out(live: LiveGame, side: Side, now: int) -> None:
    clock = live.clock
    assert clock is not None
    live.clock = clock.switched(None, now)
    live.game.time_out(side)


def _actor(live: LiveGame, sides: frozenset[Side], side: Side | None, action: Action) -> Side:
    """The side that acts: the token's own, or in hot-seat the one named, else the natural one
    (the side an offer was made to for an answer, else the side to move)."""
    if side is not None:
        return side
    if len(sides) == 1:
        return next(iter(sides))
    offer = {
        "accept_draw": live.draw_offer,
        "decline_draw": live.draw_offer,
        "accept_takeback": live.takeback_offer,
        "decline_takeback": live.takeback_offer,
        "accept_rematch": live.rematch_offer,
        "decline_rematch": live.rematch_offer,
    }.get(action)
    if offer is not None:
        return offer.other
    return live.game.turn


def _offer_draw(
    service: GameService, live: LiveGame, actor: Side, rematch: list[LiveGame]
) -> GameEvent:
    _require_playing(live)
    if live.mode == "ai":
        raise ApiError(409, "not_allowed", "the AI does not agree to draws: play on or resign")
    if live.mode == "hotseat" or live.draw_offer is actor.other:
        live.game.agree(None)
        return GameEvent(kind="agreed", side=actor.value)
    if live.draw_offer is actor:
        raise ApiError(409, "not_allowed", "you have already offered a draw")
    live.draw_offer = actor
    return GameEvent(kind="draw_offered", side=actor.value)


def _answer_draw(accept: bool) -> ActionHandler:
    def handler(
        service: GameService, live: LiveGame, actor: Side, rematch: list[LiveGame]
    ) -> GameEvent:
        _require_playing(live)
        if live.draw_offer is not actor.other:
            raise ApiError(409, "not_allowed", f"{actor.other.title} has not offered a draw")
        live.draw_offer = None
        if accept:
            live.game.agree(None)
            return GameEvent(kind="agreed", side=actor.value)
        return GameEvent(kind="draw_declined", side=actor.value)

    return handler


def _take_back(live: LiveGame, requester: Side, now: int) -> None:
    """Undo moves until it is ``requester``'s turn before their last move (just the last move
    in a hot-seat game)."""
    game = live.game
    if live.mode == "hotseat":
        plies = 1
    else:
        plies = 1 if game.ply and live.mover_of(game.ply) is requester else 2
    if game.ply < plies:
        raise ApiError(409, "not_allowed", "there is no move of yours to take back")
    for _ in range(plies):
        game.pop()
        live.played.pop()
    live.takeback_offer = None
    live.draw_offer = None
    if live.clock is not None:
        live.clock = live.clock.switched(game.turn if game.ply else None, now)


def _request_takeback(
    service: GameService, live: LiveGame, actor: Side, rematch: list[LiveGame]
) -> GameEvent:
    _require_playing(live)
    if live.mode in ("ai", "hotseat"):
        _take_back(live, actor, now_ms())
        return GameEvent(kind="takeback", side=actor.value)
    game = live.game
    if not any(live.mover_of(ply) is actor for ply in range(1, game.ply + 1)):
        raise ApiError(409, "not_allowed", "there is no move of yours to take back")
    if live.takeback_offer is actor.other:
        _take_back(live, actor.other, now_ms())
        return GameEvent(kind="takeback", side=actor.other.value)
    if live.takeback_offer is actor:
        raise ApiError(409, "not_allowed", "you have already asked to take back")
    live.takeback_offer = actor
    return GameEvent(kind="takeback_requested", side=actor.value)


def _answer_takeback(accept: bool) -> ActionHandler:
    def handler(
        service: GameService, live: LiveGame, actor: Side, rematch: list[LiveGame]
    ) -> GameEvent:
        _require_playing(live)
        requester = live.takeback_offer
        if requester is not actor.other:
            raise ApiError(409, "not_allowed", f"{actor.other.title} has not asked to take back")
        if accept:
            _take_back(live, requester, now_ms())
            return GameEvent(kind="takeback", side=requester.value)
        live.takeback_offer = None
        return GameEvent(kind="takeback_declined", side=actor.value)

    return handler


def _resign(
    service: GameService, live: LiveGame, actor: Side, rematch: list[LiveGame]
) -> GameEvent:
    _require_playing(live)
    live.game.resign(actor)
    return GameEvent(kind="resigned", side=actor.value)


def _abort(service: GameService, live: LiveGame, actor: Side, rematch: list[LiveGame]) -> GameEvent:
    if live.is_over() or live.outcome() is not None:
        raise ApiError(409, "game_over", "the game is already over")
    if live.game.ply >= 2:
        raise ApiError(
            409, "not_allowed", "a game can be aborted only before both sides have moved"
        )
    live.status = "aborted"
    if live.clock is not None:
        live.clock = live.clock.switched(None, now_ms())
    live.invite_hash = None
    return GameEvent(kind="aborted", side=actor.value)


def _claim_win(
    service: GameService, live: LiveGame, actor: Side, rematch: list[LiveGame]
) -> GameEvent:
    _require_playing(live)
    at = service._claimable_at(live)
    if at is None or live.game.turn is not actor.other:
        raise ApiError(
            409, "not_allowed", "you can claim the win only while your opponent is away on a move"
        )
    wait = at - now_ms()
    if wait > 0:
        raise ApiError(
            409,
            "not_allowed",
            f"{actor.other.title} has been away too briefly: you can claim in "
            f"{(wait + 999) // 1000} s",
            {"claim_win_at_ms": at},
        )
    live.game.resign(actor.other)
    live.end_reason = "abandoned"
    return GameEvent(kind="abandoned", side=actor.other.value)


def _offer_rematch(
    service: GameService, live: LiveGame, actor: Side, rematch: list[LiveGame]
) -> GameEvent:
    if not live.is_over():
        raise ApiError(409, "not_allowed", "a rematch can be offered when the game is over")
    if live.mode == "imported" or live.rematch_id is not None:
        raise ApiError(409, "not_allowed", "this game has no rematch to offer")
    if live.mode != "friend" or live.rematch_offer is actor.other:
        return _start_rematch(live, actor, rematch)
    if live.rematch_offer is actor:
        raise ApiError(409, "not_allowed", "you have already offered a rematch")
    live.rematch_offer = actor
    return GameEvent(kind="rematch_offered", side=actor.value)


def _answer_rematch(accept: bool) -> ActionHandler:
    def handler(
        service: GameService, live: LiveGame, actor: Side, rematch: list[LiveGame]
    ) -> GameEvent:
        if live.rematch_offer is not actor.other or live.rematch_id is not None:
            raise ApiError(409, "not_allowed", f"{actor.other.title} has not offered a rematch")
        if accept:
            return _start_rematch(live, actor, rematch)
        live.rematch_offer = None
        return GameEvent(kind="rematch_declined", side=actor.value)

    return handler


def _start_rematch(live: LiveGame, actor: Side, rematch: list[LiveGame]) -> GameEvent:
    """The same game again with the colours swapped; each player keeps their token."""
    now = now_ms()
    clock = live.clock
    seats = {
        side.other: Seat(seat.kind, seat.token_hash, seat.browser_hash, now)
        for side, seat in live.seats.items()
    }
    new = LiveGame(
        id=new_game_id(),
        mode=live.mode,
        status="active",
        game=Game(live.rules, live.game.start),
        version=1,
        created_ms=now,
        updated_ms=now,
        seats=seats,
        ai_level=live.ai_level,
        clock=None if clock is None else Clock.new(clock.initial_ms, clock.increment_ms),
        parent_id=live.id,
    )
    new.sync_status()
    live.rematch_id = new.id
    live.rematch_offer = None
    rematch.append(new)
    return GameEvent(kind="rematch", side=actor.value, game_id=new.id)


def _rematch_save(new: LiveGame) -> Save:
    listings = [
        (seat.browser_hash, "both" if new.mode == "hotseat" else side.value)
        for side, seat in new.seats.items()
        if seat.browser_hash is not None
    ]
    return new_game_save(new, listings)


_ACTIONS: Final[dict[str, ActionHandler]] = {
    "offer_draw": _offer_draw,
    "accept_draw": _answer_draw(True),
    "decline_draw": _answer_draw(False),
    "request_takeback": _request_takeback,
    "accept_takeback": _answer_takeback(True),
    "decline_takeback": _answer_takeback(False),
    "resign": _resign,
    "abort": _abort,
    "claim_win": _claim_win,
    "offer_rematch": _offer_rematch,
    "accept_rematch": _answer_rematch(True),
    "decline_rematch": _answer_rematch(False),
}


# -- start-up and summaries -------------------------------------------------------------------


_SERVER_STATE: Final = Base.metadata.tables["server_state"]


def _note_alive(connection: Connection, *, stamp: int) -> None:
    upsert(connection, _SERVER_STATE, {"key": HEARTBEAT_KEY, "value": str(stamp)})


def _resume(connection: Connection, started: int) -> list[str]:
    """Credit running clocks with the time the server was down; the games to resume.

    The server was last known alive at the heartbeat: a clock is charged up to then, and runs
    again from now (a clock started after the heartbeat is charged nothing for the gap).
    """
    table = _SERVER_STATE
    alive_text = connection.execute(
        select(table.c.value).where(table.c.key == HEARTBEAT_KEY)
    ).scalar()
    if alive_text is not None:
        alive = int(alive_text)
        since = GameRow.clock_since_ms
        connection.execute(
            update(GameRow)
            .where(GameRow.status == "active", since.is_not(None), since < started)
            .values(
                clock_since_ms=case(
                    (since < alive, since + (started - alive)), else_=literal(started)
                )
            )
        )
    _note_alive(connection, stamp=started)
    ai_to_move = (
        select(SeatRow.game_id)
        .where(SeatRow.game_id == GameRow.id, SeatRow.kind == "ai", SeatRow.side == GameRow.turn)
        .exists()
    )
    rows = connection.execute(
        select(GameRow.id).where(
            GameRow.status == "active", GameRow.clock_since_ms.is_not(None) | ai_to_move
        )
    )
    return [game_id for (game_id,) in rows]


def _summary(row: GameRow, role: str) -> GameSummary:
    outcome = None
    if row.result is not None and row.termination is not None:
        termination = Termination(row.termination)
        winner = None if row.winner is None else Side(row.winner)
        impasse = termination in (Termination.REPETITION, Termination.NO_PROGRESS) or (
            termination is Termination.STALEMATE
            and RuleSet.parse(row.rules).stalemate is Stalemate.IMPASSE
        )
        described = Outcome(termination, winner, impasse)
        abandoned = row.end_reason == "abandoned" and winner is not None
        outcome = OutcomeInfo(
            winner=row.winner,  # type: ignore[arg-type]
            reason="abandoned" if abandoned else termination.value,
            result=row.result,
            description=f"{winner.title} wins: {winner.other.title} left the game"
            if abandoned and winner is not None
            else described.describe(),
        )
    opponent = {
        "ai": f"AI level {row.ai_level}",
        "hotseat": "hot-seat",
        "friend": "friend",
        "imported": "imported record",
    }.get(row.mode, row.mode)
    return GameSummary(
        id=row.id,
        created_ms=row.created_ms,
        mode=row.mode,  # type: ignore[arg-type]
        status=row.status,  # type: ignore[arg-type]
        rules=row.rules,
        role=role,
        opponent=opponent,
        ply=row.ply,
        turn=row.turn,  # type: ignore[arg-type]
        version=row.version,
        outcome=outcome,
    )
