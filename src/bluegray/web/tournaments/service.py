"""The tournaments as this process serves them: create, join, withdraw, read; and the timer that
runs each one (kind ``tournament``, its subject the tournament's id).

One timer per tournament does everything that is not a player's request: it starts the
tournament at ``starts_at``, pairs (an arena: the free players, every ``ARENA_TICK_MS`` until
its end; a Swiss: each round once the previous round's games have all ended), and finishes it
with its final table. Each of these is decided on the tournament as read at a version and
written only at that version (``_commit``), with the games it starts in the same transaction:
a timer fired twice, or on two processes at once, changes the tournament once. A game's end
is recorded by ``ending.tournament_ended`` in the game's own end transaction.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Final

from sqlalchemy import ColumnElement, Connection, insert, update

from bluegray.errors import BlueGrayError
from bluegray.pieces import Side
from bluegray.rules import RuleSet
from bluegray.web.accounts.players import Account, read_accounts
from bluegray.web.games.live import LiveGame
from bluegray.web.games.rated_pairs import DAY_MS
from bluegray.web.games.service import GameService
from bluegray.web.lobby.hub import ACCOUNT_PREFIX, TOURNAMENT_PREFIX
from bluegray.web.lobby.schemas import GameStartedMessage, StartedGame
from bluegray.web.platform.clocks import Clock, now_ms, time_class
from bluegray.web.platform.db import ConflictError
from bluegray.web.platform.models import table_of
from bluegray.web.platform.refusals import (
    Conflict,
    Invalid,
    Refusal,
    TooMany,
    from_library,
    not_found,
)
from bluegray.web.platform.security import new_game_id
from bluegray.web.ratings.glicko import DEFAULT_SETTINGS, Rating
from bluegray.web.ratings.leaderboards import rating_in
from bluegray.web.ratings.service import pool_name
from bluegray.web.realtime.bus import News
from bluegray.web.timers.deadlines import DONE, Due, Timers, Verdict
from bluegray.web.tournaments import arena, swiss
from bluegray.web.tournaments.ending import TIMER_KIND, set_timer
from bluegray.web.tournaments.rows import (
    TournamentByeRow,
    TournamentGameRow,
    TournamentPlayerRow,
    TournamentRow,
)
from bluegray.web.tournaments.schemas import (
    CreateTournamentRequest,
    Standings,
    TournamentGames,
    TournamentInfo,
    TournamentList,
    TournamentMessage,
)
from bluegray.web.tournaments.tables import (
    Snapshot,
    created_by,
    event_of_game,
    list_rows,
    moment,
    read_snapshot,
)

log = logging.getLogger("bluegray.web")

ARENA_TICK_MS: Final = 2000
"""How often a running arena pairs its free players."""
SWISS_CHECK_MS: Final = 30_000
"""How often a running Swiss looks at its round anyway (a game's end makes it look at once)."""
CHANNEL_PREFIX: Final = TOURNAMENT_PREFIX
"""The bus's cluster channel of a tournament's news (``tournament:<id>``)."""

_TOURNAMENTS: Final = table_of(TournamentRow)
_PLAYERS: Final = table_of(TournamentPlayerRow)
_GAMES: Final = table_of(TournamentGameRow)
_BYES: Final = table_of(TournamentByeRow)

Pairs = list[tuple[int, int, int | None, int | None]]
"""Games to start: Blue's account, Gray's, the round and the board (``None``: an arena)."""


class Tournaments:
    """The tournaments of the site."""

    def __init__(self, service: GameService, timers: Timers) -> None:
        """``timers``: the process's (``duties.Duties.timers``), which start the tournaments
        and end their rounds."""
        self.service = service
        self.db = service.db
        self.timers = timers
        timers.on(TIMER_KIND, self.due)

    # -- reading -------------------------------------------------------------------------------

    async def snapshot(self, tournament_id: str) -> Snapshot:
        found = await self.db.read(lambda session: read_snapshot(session, tournament_id))
        if found is None:
            raise not_found(f"tournament {tournament_id!r}")
        return found

    async def all(self, offset: int = 0, limit: int = 100) -> TournamentList:
        """A page of the tournaments (``tables.list_rows``)."""
        rows, total = await self.db.read(lambda session: list_rows(session, offset, limit))
        after = offset + len(rows)
        return TournamentList(
            tournaments=[snapshot.info() for snapshot in rows],
            total=total,
            offset=offset,
            next_offset=after if rows and after < total else None,
        )

    async def info(self, tournament_id: str) -> TournamentInfo:
        return (await self.snapshot(tournament_id)).info()

    async def event_of_game(self, game_id: str) -> tuple[str, int | None] | None:
        """The tournament a game was played in, as its record names it
        (``tables.event_of_game``: its name and the game's round); ``None`` for a game of no
        tournament."""
        return await self.db.read(lambda session: event_of_game(session, game_id))

    async def standings(self, tournament_id: str) -> Standings:
        snapshot = await self.snapshot(tournament_id)
        return await asyncio.to_thread(snapshot.standings)

    async def games(self, tournament_id: str) -> TournamentGames:
        return TournamentGames(games=(await self.snapshot(tournament_id)).game_views())

    # -- players' requests ---------------------------------------------------------------------

    async def create(self, account: Account, request: CreateTournamentRequest) -> TournamentInfo:
        try:
            rules = RuleSet.parse(request.rules)
        except BlueGrayError as error:
            raise from_library(error) from None
        if rules.name is None:
            raise Invalid("invalid_tournament", "a tournament is played under a preset rule set")
        if request.kind == "arena" and request.minutes is None:
            raise Invalid("invalid_tournament", "an arena needs its length: minutes")
        if request.kind == "swiss" and request.rounds is None:
            raise Invalid("invalid_tournament", "a Swiss needs its number of rounds: rounds")
        now = now_ms()
        tournament_id = new_game_id()
        starts = now + round(request.starts_in_seconds * 1000)
        values = {
            "id": tournament_id,
            "kind": request.kind,
            "name": request.name.strip() or "Tournament",
            "creator_id": account.id,
            "creator_name": account.name,
            "rules": rules.name,
            "clock_initial_ms": round(request.clock.minutes * 60_000),
            "clock_increment_ms": round(request.clock.increment_seconds * 1000),
            "rated": request.rated,
            "starts_at_ms": starts,
            "minutes": request.minutes if request.kind == "arena" else None,
            "rounds": request.rounds if request.kind == "swiss" else None,
            "round": 0,
            "status": "created",
            "version": 1,
            "created_ms": now,
        }

        settings = self.service.settings
        most_open, most_a_day = settings.open_tournaments_per_account, settings.tournaments_per_day

        def write(connection: Connection) -> Refusal | None:
            """Create it, or the refusal (returned, not raised: nothing is written then)."""
            unfinished, today = created_by(connection, account.id, now - DAY_MS)
            if unfinished >= most_open:
                return Conflict(
                    "too_many_tournaments",
                    f"you have {unfinished} tournaments that have not finished, the most one "
                    "account may have: create another once one has finished",
                )
            if today >= most_a_day:
                return TooMany(
                    "too_many_tournaments",
                    f"you have created {today} tournaments today, the most one account may "
                    "create in a day: try again tomorrow",
                )
            connection.execute(insert(_TOURNAMENTS).values(values))
            set_timer(connection, tournament_id, starts)
            return None

        refused = await self.db.write(write)
        if refused is not None:
            raise refused
        self.timers.expect([starts])
        return await self.info(tournament_id)

    async def join(self, account: Account, tournament_id: str) -> Standings:
        return await self._retried(self._join, account, tournament_id)

    async def withdraw(self, account: Account, tournament_id: str) -> Standings:
        """Leave: no new game (a game being played is played to its end)."""
        return await self._retried(self._withdraw, account, tournament_id)

    async def _retried(
        self,
        request: Callable[[Account, str], Awaitable[Standings]],
        account: Account,
        tournament_id: str,
    ) -> Standings:
        """A player's request, decided again on the tournament as it then is if the tournament
        changed meanwhile (a pairing, a game's end), a few times before it is refused."""
        for _ in range(4):
            try:
                return await request(account, tournament_id)
            except ConflictError:
                continue
        raise Conflict("stale_version", "the tournament is changing fast: try again")

    async def _join(self, account: Account, tournament_id: str) -> Standings:
        snapshot = await self.snapshot(tournament_id)
        row = snapshot.row
        if row.status == "finished":
            raise Conflict("tournament_over", "this tournament has finished")
        if row.kind == "swiss" and row.status == "running":
            raise Conflict("not_allowed", "a Swiss is joined before it starts")
        rating = await self._rating(account.id, snapshot)
        now = now_ms()
        mine = next((p for p in snapshot.players if p.account_id == account.id), None)
        if mine is not None and not mine.withdrawn:
            raise Conflict("already_joined", "you are already in this tournament")
        waiting = now if row.status == "running" else row.starts_at_ms

        def write(connection: Connection) -> None:
            _bump(connection, tournament_id, row.version)
            if mine is None:
                connection.execute(
                    insert(_PLAYERS).values(
                        tournament_id=tournament_id,
                        account_id=account.id,
                        name=account.name,
                        rating=round(rating.rating),
                        joined_ms=now,
                        withdrawn=False,
                        waiting_ms=waiting,
                    )
                )
            else:
                connection.execute(
                    update(_PLAYERS)
                    .where(*_player(tournament_id, account.id))
                    .values(
                        withdrawn=False, waiting_ms=waiting if _free(snapshot, account.id) else None
                    )
                )
            if row.status == "running":
                set_timer(connection, tournament_id, now)

        await self._write(write)
        self.timers.expect([now])
        return await self._announce(tournament_id)

    async def _withdraw(self, account: Account, tournament_id: str) -> Standings:
        snapshot = await self.snapshot(tournament_id)
        mine = next((p for p in snapshot.players if p.account_id == account.id), None)
        if mine is None or mine.withdrawn:
            raise Conflict("not_joined", "you are not in this tournament")
        if snapshot.row.status == "finished":
            raise Conflict("tournament_over", "this tournament has finished")

        def write(connection: Connection) -> None:
            _bump(connection, tournament_id, snapshot.row.version)
            connection.execute(
                update(_PLAYERS)
                .where(*_player(tournament_id, account.id))
                .values(withdrawn=True, waiting_ms=None)
            )

        await self._write(write)
        return await self._announce(tournament_id)

    async def _write(self, work: Callable[[Connection], None]) -> None:
        await self.db.write(work)

    async def _rating(self, account_id: int, snapshot: Snapshot) -> Rating:
        row = snapshot.row
        pool = pool_name(RuleSet.parse(row.rules), time_class(row.clock_initial_ms, None))
        now = now_ms()

        if pool is None:
            return DEFAULT_SETTINGS.new_player
        return await self.db.read(lambda session: rating_in(session, account_id, pool, now))

    # -- the timer -----------------------------------------------------------------------------

    async def due(self, due: Due) -> Verdict:
        """The tournament's timer: start, pair, finish, as its state asks; when to look again."""
        snapshot = await self.db.read(lambda session: read_snapshot(session, due.subject))
        if snapshot is None or snapshot.row.status == "finished":
            return DONE
        now = now_ms()
        row = snapshot.row
        if row.status == "created" and now < row.starts_at_ms:
            return Verdict(again_at_ms=row.starts_at_ms)
        try:
            if row.kind == "arena":
                again = await self._arena(snapshot, now)
            else:
                again = await self._swiss(snapshot, now)
        except ConflictError:
            again = now_ms()  # changed meanwhile (a game ended, a player joined): look again
        await self._announce(row.id)
        return DONE if again is None else Verdict(again_at_ms=again)

    async def _arena(self, snapshot: Snapshot, now: int) -> int | None:
        row = snapshot.row
        ends = row.ends_at_ms or row.starts_at_ms + (row.minutes or 0) * 60_000
        if now >= ends and not snapshot.unfinished():
            await self._finish(snapshot, now, None)
            return None
        settings = arena.ArenaSettings(
            moment(row.starts_at_ms),
            moment(ends),
            closes_before_end=timedelta(
                seconds=min(30, row.clock_initial_ms / 2000 + row.clock_increment_ms / 1000 * 20)
            ),
        )
        ids = {p.name: p.account_id for p in snapshot.players}
        waiting = {
            p.name: moment(p.waiting_ms)
            for p in snapshot.players
            if p.waiting_ms is not None and not p.withdrawn
        }
        games = snapshot.arena_games()
        table = arena.standings(snapshot.arena_players(), games)
        free = arena.waiting_players(waiting, table, games)
        pairs: Pairs = [
            (ids[pair.blue], ids[pair.gray], None, None)
            for pair in arena.pair_waiting(free, moment(now), settings)
        ]
        started = row.status == "created"
        if pairs or started:
            await self._start_games(snapshot, pairs, now, extra={"ends_at_ms": ends})
        return min(now + ARENA_TICK_MS, ends) if now < ends else now + ARENA_TICK_MS

    async def _swiss(self, snapshot: Snapshot, now: int) -> int | None:
        row = snapshot.row
        if snapshot.unfinished():
            return now + SWISS_CHECK_MS
        if row.round >= (row.rounds or 0):
            await self._finish(snapshot, now, None)
            return None
        ids = {p.name: p.account_id for p in snapshot.players}
        try:
            pairing = await asyncio.to_thread(
                swiss.pair_round,
                snapshot.swiss_players(),
                snapshot.swiss_rounds(),
                snapshot.swiss_settings(),
                snapshot.withdrawn(),
            )
        except swiss.NoPairingError as error:
            await self._finish(snapshot, now, str(error))
            return None
        pairs: Pairs = [
            (ids[board.blue], ids[board.gray], pairing.number, board.number)
            for board in pairing.boards
        ]
        bye = None if pairing.bye is None else ids[pairing.bye]
        await self._start_games(snapshot, pairs, now, extra={"round": pairing.number}, bye=bye)
        return now + SWISS_CHECK_MS

    async def _start_games(
        self,
        snapshot: Snapshot,
        pairs: Pairs,
        now: int,
        *,
        extra: dict[str, object],
        bye: int | None = None,
    ) -> None:
        """Start the games of ``pairs`` (and the tournament, if it was waiting for its start),
        at the version read, in one transaction."""
        row = snapshot.row
        accounts = await self._accounts([a for pair in pairs for a in pair[:2]])
        rules = RuleSet.parse(row.rules)
        lives: list[tuple[LiveGame, tuple[int, int, int | None, int | None]]] = []
        for pair in pairs:
            blue, gray = accounts[pair[0]], accounts[pair[1]]
            clock = Clock.new(row.clock_initial_ms, row.clock_increment_ms)
            live = self.service.new_between(
                {Side.BLUE: blue, Side.GRAY: gray}, rules, clock, rated=row.rated
            )
            await self.service.limit_rated(live)
            lives.append((live, pair))
        seq = len(snapshot.games)

        def also(connection: Connection) -> None:
            _bump(connection, row.id, row.version, status="running", **extra)
            for number, (live, (blue_id, gray_id, round_, board)) in enumerate(lives, seq + 1):
                connection.execute(
                    insert(_GAMES).values(
                        game_id=live.id,
                        tournament_id=row.id,
                        seq=number,
                        round=round_,
                        board=board,
                        blue_id=blue_id,
                        gray_id=gray_id,
                        started_ms=now,
                    )
                )
                connection.execute(
                    update(_PLAYERS)
                    .where(_PLAYERS.c.tournament_id == row.id)
                    .where(_PLAYERS.c.account_id.in_((blue_id, gray_id)))
                    .values(waiting_ms=None)
                )
            if bye is not None:
                connection.execute(
                    insert(_BYES).values(tournament_id=row.id, round=extra["round"], account_id=bye)
                )

        await self.service.games.add_many([live for live, _ in lives], also)
        for live, _ in lives:
            for side in (Side.BLUE, Side.GRAY):
                seat, other = live.seats[side], live.seats[side.other]
                started = StartedGame.told(
                    live.id,
                    side,
                    other.account_name or "",
                    rated=live.rated,
                    unrated_reason=live.unrated_reason,
                    tournament=row.id,
                )
                text = GameStartedMessage(game=started).model_dump_json()
                await self._publish(f"{ACCOUNT_PREFIX}{seat.account_id}", text)

    async def _finish(self, snapshot: Snapshot, now: int, note: str | None) -> None:
        row = snapshot.row

        def write(connection: Connection) -> None:
            _bump(connection, row.id, row.version, status="finished", finished_ms=now, note=note)
            connection.execute(
                update(_PLAYERS).where(_PLAYERS.c.tournament_id == row.id).values(waiting_ms=None)
            )

        await self.db.write(write)

    async def _accounts(self, ids: list[int]) -> dict[int, Account]:
        return await self.db.read(lambda session: read_accounts(session, ids))

    # -- news ----------------------------------------------------------------------------------

    async def _publish(self, to: str, text: str) -> None:
        try:
            await self.service.bus.publish(News("cluster", to, 0, self.service.process, text))
        except Exception as error:  # stored all the same: a reload shows it
            log.error("cannot publish tournament news: %r", error)

    async def _announce(self, tournament_id: str) -> Standings:
        standings = await self.standings(tournament_id)
        text = TournamentMessage(standings=standings).model_dump_json()
        await self._publish(f"{CHANNEL_PREFIX}{tournament_id}", text)
        return standings


def _player(tournament_id: str, account_id: int) -> tuple[ColumnElement[bool], ...]:
    return (_PLAYERS.c.tournament_id == tournament_id, _PLAYERS.c.account_id == account_id)


def _free(snapshot: Snapshot, account_id: int) -> bool:
    """Whether the player has no game being played."""
    return all(account_id not in (g.blue_id, g.gray_id) for g in snapshot.unfinished())


def _bump(connection: Connection, tournament_id: str, version: int, **values: object) -> None:
    """Raise the tournament's version from ``version`` (with ``values``), or refuse: it changed
    since it was read."""
    result = connection.execute(
        update(_TOURNAMENTS)
        .where(_TOURNAMENTS.c.id == tournament_id, _TOURNAMENTS.c.version == version)
        .values(version=version + 1, **values)
    )
    if result.rowcount != 1:
        raise ConflictError(f"tournament {tournament_id} is no longer at version {version}")
