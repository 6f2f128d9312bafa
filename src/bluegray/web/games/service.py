"""The games as the routes ask for them: creating, joining, moving, acting on and reading them.

Every change goes through ``Games.change`` (committed at a known version, then published); the
actions themselves are in ``actions``; what the process does for the cluster unasked (its timers,
the AI's moves, its heartbeat) is ``duties``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from functools import partial
from typing import Protocol

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from bluegray.errors import BlueGrayError
from bluegray.game import Game
from bluegray.pieces import Side
from bluegray.record import read_record
from bluegray.rules import RuleSet
from bluegray.web.games import actions
from bluegray.web.games.idempotency import Keyed, new_salt, remember, remembered
from bluegray.web.games.live import LiveGame, Played, Seat
from bluegray.web.games.messages import StateMessage
from bluegray.web.games.outages import credit_store_outage
from bluegray.web.games.players import Player
from bluegray.web.games.queries import count_games, list_games
from bluegray.web.games.rated_games import check_rated, check_rated_seat
from bluegray.web.games.rated_pairs import (
    CappedPair,
    capped_pairs,
    limit_rated,
    pair_limit_reached,
    pair_of,
)
from bluegray.web.games.runtime import Games, Runtime
from bluegray.web.games.schemas import (
    Action,
    CreateGameRequest,
    GameEvent,
    GameList,
    GameState,
    Invite,
    MoveAck,
    SeatGrant,
)
from bluegray.web.games.store import Save, new_game_save
from bluegray.web.games.view import game_state
from bluegray.web.platform.clocks import Clock, Correspondence, now_ms
from bluegray.web.platform.db import ConflictError, Database
from bluegray.web.platform.metrics import Metrics
from bluegray.web.platform.refusals import (
    Conflict,
    Forbidden,
    Unauthorized,
    from_library,
    refused_while_down,
)
from bluegray.web.platform.security import digest, new_game_id, new_invite_code, new_token
from bluegray.web.platform.settings import Settings
from bluegray.web.realtime.bus import Bus
from bluegray.web.realtime.presence import Presence, PresenceBook
from bluegray.web.realtime.sockets import Hub
from bluegray.web.timers.uptime import Outage

log = logging.getLogger("bluegray.web")


class GameDuties(Protocol):
    """What the games ask of the process's duties (``duties.Duties``, built by the app)."""

    def expect_timers(self, live: LiveGame) -> None:
        """Arm the timers of a game just stored (its flag, its abort, the AI's move)."""

    async def store_outage(self) -> Outage | None:
        """Record how long the database was out, if it was, so that nobody loses on time."""


class GameService:
    """The games as this process serves them to its routes."""

    def __init__(
        self,
        settings: Settings,
        db: Database,
        bus: Bus,
        presence: PresenceBook,
        process: str,
        *,
        on_end: Callable[[Connection, LiveGame], None],
    ) -> None:
        """``on_end`` writes what a game's end changes elsewhere (``endings.record_end``). The
        process's duties (``take_duties``) are built by the app beside this service, from its
        games, hub and metrics."""
        self.settings = settings
        self.db = db
        self.bus = bus
        self.presence = presence
        self.process = process
        self.abandon_ms = round(settings.abandon_seconds * 1000)
        self.games = Games(
            db,
            bus,
            presence,
            process,
            abandon_ms=self.abandon_ms,
            shared=settings.scaled,
            on_end=on_end,
            first_move_ms=round(settings.first_move_seconds * 1000),
        )
        self.hub = Hub(bus, presence, self.games.current)
        self.metrics = Metrics(self.hub.connection_count)
        self.games.idle = lambda game_id: not self.hub.has_connections(game_id)
        self.games.watched = self.hub.has_connections
        self.games.held = self.hub.sides_held
        self._duties: GameDuties | None = None

    def take_duties(self, duties: GameDuties) -> None:
        """The process's part in the cluster's work (``duties.Duties``: its timers, the AI's
        moves, its heartbeat), which a stored game tells of its deadlines."""
        self._duties = duties
        self.games.on_stored = duties.expect_timers

    @property
    def duties(self) -> GameDuties:
        if self._duties is None:
            raise RuntimeError("the game service was started without its duties (take_duties)")
        return self._duties

    # -- reading -------------------------------------------------------------------------------

    async def runtime(self, game_id: str) -> Runtime:
        return await self.games.get(game_id)

    async def snapshot(self, game_id: str) -> LiveGame:
        """The game as it stands (a copy: the caller may do as it likes with it)."""
        return (await self.games.get(game_id)).live.copy()

    async def capped_pairs(self, since_ms: int) -> list[CappedPair]:
        """The pairs of accounts whose rated games together reached the daily limit since
        ``since_ms`` (``rated_pairs.capped_pairs``), for the moderators."""
        return await self.db.read(lambda session: capped_pairs(session.connection(), since_ms))

    async def state(self, game_id: str) -> GameState:
        return await self._state_of((await self.games.get(game_id)).live)

    async def state_text(self, game_id: str) -> tuple[int, str]:
        """The game's version and its state message (for a socket that has just come)."""
        with refused_while_down():
            live = (await self.games.get(game_id)).live
            try:
                return live.version, await self.games.state_message(live)
            except (RedisConnectionError, RedisTimeoutError) as error:
                game = self._state_without_presence(live, error)
                message = StateMessage(version=live.version, event=None, game=game)
                return live.version, message.model_dump_json()

    async def stored_state(self, live: LiveGame) -> GameState:
        """The state of a game just stored, for the answer to the request that stored it (the
        change stands: the answer says so even while Redis cannot be reached)."""
        return await self._state_of(live, stored_note=False)

    async def _state_of(self, live: LiveGame, *, stored_note: bool = True) -> GameState:
        """The game as clients see it; while Redis (who is connected) cannot be reached, as if
        nobody were: a game is read and played without Redis."""
        try:
            return await self.games.state(live, stored_note=stored_note)
        except (RedisConnectionError, RedisTimeoutError) as error:
            return self._state_without_presence(live, error)

    def _state_without_presence(self, live: LiveGame, error: Exception) -> GameState:
        log.warning("game %s shown without its presence: Redis fails: %r", live.id, error)
        return game_state(live, Presence(), now_ms(), abandon_ms=self.abandon_ms)

    async def list_games(
        self,
        browser: str,
        limit: int,
        before_ms: int | None,
        before_id: str | None = None,
        account_id: int | None = None,
    ) -> GameList:
        return await list_games(self.db, browser, limit, before_ms, before_id, account_id)

    async def count_games(self) -> int:
        return await count_games(self.db)

    async def authenticate(self, game_id: str, token: str | None) -> frozenset[Side]:
        """The sides a seat token plays in a game (none for ``None``: a spectator). A token
        this process's copy does not know is checked against the stored game (its seat may
        have been taken on another process)."""
        runtime = await self.games.get(game_id, fresh=False)
        if token is None:
            return frozenset()
        hashed = digest(token)
        sides = _sides_of(runtime.live, hashed)
        if not sides and self.games.shared:
            sides = _sides_of((await self.games.get(game_id)).live, hashed)
        if not sides:
            raise Forbidden("forbidden", "that token does not hold a seat in this game")
        return sides

    async def account_sides(self, game_id: str, account: Player) -> frozenset[Side]:
        """The sides an account plays in a game (none: it plays no side), checked against the
        stored game when this process's copy has none (taken on another process)."""
        runtime = await self.games.get(game_id, fresh=False)
        sides = _account_sides(runtime.live, account.id)
        if not sides and self.games.shared:
            sides = _account_sides((await self.games.get(game_id)).live, account.id)
        return sides

    # -- creating and joining ------------------------------------------------------------------

    async def create(
        self,
        request: CreateGameRequest,
        browser: str,
        address: str | None = None,
        player: Player | None = None,
        idempotency_key: str | None = None,
    ) -> tuple[GameState, SeatGrant, Invite | None]:
        """A new game; ``player``, the account that plays the creator's seat (or both in
        hot-seat), if any. With an ``idempotency_key``, the same request sent again within a day
        answers the same game (see ``idempotency``)."""
        keyed = None
        if idempotency_key is not None:
            keyed = Keyed.of(idempotency_key, browser, player, request.model_dump_json())
            again = await self._created_before(keyed)
            if again is not None:
                return again
        rules = RuleSet.parse(request.rules)
        game = Game(rules, request.position)
        if request.rated:
            check_rated(request, rules, player)
        now = now_ms()
        color = request.color
        own = Side(secrets.choice(("blue", "gray")) if color == "random" else color)
        salt = new_salt()
        token, code = (new_token(), new_invite_code()) if keyed is None else keyed.secrets(salt)
        hashed = digest(token)
        address_hash = None if address is None else digest(address)
        seats: dict[Side, Seat]
        invite: Invite | None = None
        invite_hash = None
        opponent = request.opponent
        game_id = new_game_id()
        if opponent.type == "hotseat":
            seats = {
                side: _human(hashed, browser, now, address_hash, player)
                for side in (Side.BLUE, Side.GRAY)
            }
            grant = SeatGrant(token=token, side="both")
            role = "both"
        else:
            seats = {own: _human(hashed, browser, now, address_hash, player)}
            seats[own.other] = Seat("ai") if opponent.type == "ai" else Seat("human")
            grant = SeatGrant(token=token, side=own.value)
            role = own.value
            if opponent.type == "friend":
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
            correspondence=None
            if request.correspondence is None
            else Correspondence(request.correspondence.days),
            invite_hash=invite_hash,
            rated=request.rated,
        )
        live.sync_status()
        live.sync_deadline(now)
        also = None
        if keyed is not None:
            also = partial(remember, keyed=keyed, game_id=game_id, salt=salt, now=now)
        try:
            await self.games.add(live, [(browser, role)], also)
        except (ConflictError, IntegrityError):
            # The same key at the same time: the first request's game is the answer.
            again = None if keyed is None else await self._created_before(keyed)
            if again is None:
                raise
            return again
        return await self.stored_state(live), grant, invite

    async def _created_before(
        self, keyed: Keyed
    ) -> tuple[GameState, SeatGrant, Invite | None] | None:
        """The answer to the request that first came with this key (``None``: none came)."""
        found = await self.db.read(lambda session: remembered(session, keyed, now_ms()))
        if found is None:
            return None
        token, code = keyed.secrets(found.salt)
        live = (await self.games.get(found.game_id)).live
        sides = _sides_of(live, digest(token))
        side = "both" if len(sides) == 2 else next(iter(sides)).value
        invite = None
        if live.invite_hash is not None and secrets.compare_digest(live.invite_hash, digest(code)):
            invite = Invite(code=code, path=f"/game/{live.id}#join={code}")
        grant = SeatGrant(token=token, side=side)  # type: ignore[arg-type]
        return await self.stored_state(live), grant, invite

    async def start_between(
        self,
        players: dict[Side, Player],
        rules: RuleSet,
        clock: Clock | None,
        *,
        correspondence: Correspondence | None = None,
        rated: bool,
        also: Callable[[Connection], None] | None = None,
    ) -> LiveGame:
        """A game between two accounts that starts at once (a seek, a challenge or a quick
        pairing taken): each seat is its account's (played with its session or API token);
        ``also`` is done in the game's transaction (taking the seek), and may refuse it."""
        live = self.new_between(players, rules, clock, correspondence=correspondence, rated=rated)
        await self.limit_rated(live)
        await self.games.add(live, [], also)
        return live

    async def pair_limit_reached(self, pair: tuple[int | None, int | None] | None) -> bool:
        """Whether two accounts have played their rated games together for the day
        (``rated_pairs``); never for a seat without an account."""
        if pair is None:
            return False
        first, second = pair
        if first is None or second is None or first == second:
            return False
        most = self.settings.rated_games_per_pair
        now = now_ms()
        return await self.db.read(
            lambda session: pair_limit_reached(session.connection(), first, second, now, most)
        )

    async def limit_rated(self, live: LiveGame) -> None:
        """A new rated game between two accounts that have played their rated games together
        for the day is played unrated, and says why."""
        if live.rated:
            limit_rated(live, await self.pair_limit_reached(pair_of(live)))

    def new_between(
        self,
        players: dict[Side, Player],
        rules: RuleSet,
        clock: Clock | None,
        *,
        correspondence: Correspondence | None = None,
        rated: bool,
    ) -> LiveGame:
        """A game between two accounts, not yet stored (see ``start_between``)."""
        now = now_ms()
        seats = {
            side: Seat(
                "human", digest(new_token()), None, now, None, player.id, player.name, player.bot
            )
            for side, player in players.items()
        }
        live = LiveGame(
            id=new_game_id(),
            mode="friend",
            status="active",
            game=Game(rules),
            version=1,
            created_ms=now,
            updated_ms=now,
            seats=seats,
            clock=clock,
            correspondence=correspondence,
            rated=rated,
        )
        live.sync_deadline(now)
        return live

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
        await self.games.add(live, [(browser, "viewer")])
        return await self.stored_state(live)

    async def join(
        self,
        game_id: str,
        code: str,
        browser: str,
        address: str | None = None,
        player: Player | None = None,
    ) -> tuple[GameState, SeatGrant]:
        """Take the open seat of a friend's game with its invite code (``player``: the account
        that plays it, if any)."""
        token = new_token()
        address_hash = None if address is None else digest(address)
        before = await self.snapshot(game_id)
        creator = next(
            (seat.account_id for seat in before.seats.values() if seat.token_hash is not None),
            None,
        )
        reached = before.rated and await self.pair_limit_reached(
            (creator, None if player is None else player.id)
        )

        def change(live: LiveGame) -> GameEvent:
            if live.mode != "friend" or live.invite_hash is None:
                raise Conflict("not_allowed", "this game has no open seat")
            if not secrets.compare_digest(digest(code), live.invite_hash):
                raise Forbidden("forbidden", "that invite code is not this game's")
            check_rated_seat(live, player)
            side = next(side for side, seat in live.seats.items() if seat.token_hash is None)
            live.seats[side] = _human(digest(token), browser, now_ms(), address_hash, player)
            limit_rated(live, reached)
            live.invite_hash = None
            if live.status == "waiting":
                live.status = "active"
            return GameEvent(kind="joined", side=side.value)

        stored = await self.games.change(game_id, change, seats_changed=True, listings_for=browser)
        assert stored is not None and stored.event.side is not None
        state = await self.stored_state(stored.live)
        return state, SeatGrant(token=token, side=stored.event.side)

    async def new_invite(self, game_id: str, sides: frozenset[Side]) -> Invite:
        code = new_invite_code()

        def change(live: LiveGame) -> GameEvent:
            if live.mode != "friend" or live.status != "waiting":
                raise Conflict("not_allowed", "only a game waiting for a friend has an invite")
            live.invite_hash = digest(code)
            return GameEvent(kind="invite")

        if not sides:
            raise Unauthorized("unauthorized", "only a player of this game can invite")
        await self.games.change(game_id, change)
        return Invite(code=code, path=f"/game/{game_id}#join={code}")

    # -- playing -------------------------------------------------------------------------------

    async def move(
        self, game_id: str, sides: frozenset[Side], text: str, version: int
    ) -> tuple[LiveGame, str]:
        """Play a move for a seat; once it is committed, the game just after it and the move."""
        if not sides:
            raise Unauthorized("unauthorized", "spectators cannot move: a seat token is needed")
        started = time.perf_counter()
        timed_out: list[GameEvent] = []
        outage = None
        with refused_while_down():
            deadline = (await self.games.get(game_id, fresh=False)).live.deadline_ms()
            if deadline is not None and deadline <= now_ms():  # late: was the database out?
                outage = await self.duties.store_outage()

        def change(live: LiveGame) -> GameEvent:
            actions.require_playing(live)
            turn = live.game.turn
            if turn not in sides:
                raise Conflict(
                    "not_your_turn",
                    f"it is {turn.title}'s turn, and you play {actions.names(sides)}",
                )
            credit_store_outage(live, outage)  # a move sent again after the database's outage
            event = actions.play_in_time(live, text, now_ms())
            if event.kind in ("time", "aborted"):
                timed_out.append(event)
            return event

        with refused_while_down():  # nothing was stored: the same move may be sent again
            stored = await self.games.change(game_id, change, version=version)
        self.metrics.move_seconds.observe(time.perf_counter() - started)
        self.metrics.moves.labels("human").inc()
        if timed_out:
            ended = timed_out[0]
            message = f"{Side(ended.side).title}'s time ran out"
            if ended.kind == "aborted":
                message += " before its first move: the game is aborted"
            raise Conflict("game_over", message)
        assert stored is not None and stored.event.move is not None
        return stored.live, stored.event.move

    async def move_with_state(
        self, game_id: str, sides: frozenset[Side], text: str, version: int
    ) -> MoveAck:
        """``move``, answered with the state just after it."""
        live, move = await self.move(game_id, sides, text, version)
        state = await self.stored_state(live)
        return MoveAck(version=state.version, move=move, game=state)

    async def act(
        self,
        game_id: str,
        sides: frozenset[Side],
        action: Action,
        side: Side | None = None,
        version: int | None = None,
    ) -> GameState:
        """An offer, an answer to one, a resignation, an abort, a claim or a rematch."""
        if not sides:
            raise Unauthorized("unauthorized", "spectators cannot act: a seat token is needed")
        if side is not None and side not in sides:
            raise Forbidden("forbidden", f"you do not play {side.title}")
        context = actions.ActionContext(now=now_ms(), abandon_ms=self.abandon_ms)
        if action == "claim_win":  # the one action that depends on who is connected
            context.presence = await self.games.claim_presence(game_id)
        if action in ("offer_rematch", "accept_rematch"):
            before = await self.snapshot(game_id)
            if before.rated or before.unrated_reason is not None:
                context.pair_limit_reached = await self.pair_limit_reached(pair_of(before))

        def change(live: LiveGame) -> GameEvent | None:
            context.now = now_ms()
            context.new_games.clear()
            actor = actions.actor(live, sides, side, action)
            return actions.ACTIONS[action](live, actor, context)

        def extra(after: LiveGame) -> list[Save]:
            return [
                new_game_save(game, _rematch_listings(game), self.games.first_move_ms)
                for game in context.new_games
            ]

        def adopt(after: LiveGame) -> None:
            for game in context.new_games:
                self.duties.expect_timers(game)

        with refused_while_down():
            stored = await self.games.change(
                game_id, change, version=version, extra=extra, after_store=adopt
            )
        if stored is None:
            with refused_while_down():
                return await self.state(game_id)
        return await self.stored_state(stored.live)


def _sides_of(live: LiveGame, token_hash: str) -> frozenset[Side]:
    return frozenset(
        side
        for side, seat in live.seats.items()
        if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, token_hash)
    )


def _human(
    token_hash: str, browser: str, now: int, address_hash: str | None, player: Player | None
) -> Seat:
    """A person's seat, held by a token, and by an account when one plays it."""
    if player is None:
        return Seat("human", token_hash, browser, now, address_hash)
    return Seat("human", token_hash, browser, now, address_hash, player.id, player.name, player.bot)


def _account_sides(live: LiveGame, account_id: int) -> frozenset[Side]:
    return frozenset(side for side, seat in live.seats.items() if seat.played_by(account_id))


def _rematch_listings(new: LiveGame) -> list[tuple[str, str]]:
    return [
        (seat.browser_hash, "both" if new.mode == "hotseat" else side.value)
        for side, seat in new.seats.items()
        if seat.browser_hash is not None
    ]
