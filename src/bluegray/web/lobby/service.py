"""The lobby: seeks (open challenges) that everyone on the lobby page sees appear and vanish in
real time, challenges to a named player (who hears of them wherever they are on the site), and
quick pairings; taking any of them starts a game between the two accounts at once.

Seeks are rows (``seeks``): any process lists them, and any process takes one (``take_seek``,
in the transaction that stores the game, so exactly one taker wins). Every change is news on
the bus's cluster channel: ``lobby`` news for every lobby socket, ``account:<id>`` news for
one account's sockets (``/ws/account``, on every page), on whichever processes they are. A seek
posted with a lobby socket goes when that socket closes; any seek goes after its time, or
when the process it was posted on dies (each process sweeps every ``lobby_sweep_seconds``).

Seeks are for accounts only: a game from the lobby is played by its two accounts, with their
sessions (or API tokens), like the games of ``GameService.start_between``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Row

from bluegray.errors import BlueGrayError
from bluegray.pieces import Side
from bluegray.rules import RuleSet
from bluegray.web.accounts.players import (
    Account,
    read_account,
    read_account_named,
)
from bluegray.web.accounts.schemas import SeekPreview
from bluegray.web.games.schemas import ClockSettings, CorrespondenceSettings
from bluegray.web.games.service import GameService
from bluegray.web.lobby.hub import ACCOUNT_PREFIX, LOBBY, LobbyHub
from bluegray.web.lobby.quick_pairings import QUICK_BY_KEY, QUICK_PAIRINGS, quick_match, quick_span
from bluegray.web.lobby.rows import SeekRow
from bluegray.web.lobby.schemas import (
    ChallengeList,
    ChallengeRequest,
    GameStartedMessage,
    GoneReason,
    QuickPairingList,
    QuickPairingResult,
    SeekGoneMessage,
    SeekInfo,
    SeekList,
    SeekMessage,
    SeekRequest,
    StartedGame,
)
from bluegray.web.lobby.seeks import (
    SeekGoneError,
    TooManySeeksError,
    by_connection,
    by_id,
    challenges_of,
    expired_or_orphaned,
    game_from_taken_seek,
    in_range,
    insert_seek,
    open_seeks,
    read_seek,
    remove_seeks,
    seek_info,
    seek_preview,
    take_seek,
    waiting_in_quick_pairings,
    waiting_quick,
)
from bluegray.web.platform.clocks import Clock, Correspondence, now_ms, time_class
from bluegray.web.platform.rates import RateLimits
from bluegray.web.platform.refusals import (
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    Refusal,
    from_library,
    rate_limited,
)
from bluegray.web.platform.security import new_game_id
from bluegray.web.platform.settings import Settings
from bluegray.web.ratings.glicko import DEFAULT_SETTINGS, Rating, is_provisional
from bluegray.web.ratings.leaderboards import rating_in
from bluegray.web.ratings.service import pool_name
from bluegray.web.realtime.bus import News

log = logging.getLogger("bluegray.web")


@dataclass(frozen=True)
class _Terms:
    """What a seek or a challenge asks for, checked."""

    rules: RuleSet
    clock: ClockSettings | None
    days: int | None
    """Correspondence days per move (``None``: a clock, or no time limit)."""
    rated: bool
    color: str
    time_class: str
    pool: str | None


class Lobby:
    """The lobby as this process serves it."""

    def __init__(self, settings: Settings, service: GameService, rates: RateLimits) -> None:
        self.settings = settings
        self.service = service
        self.db = service.db
        self.bus = service.bus
        self.process = service.process
        self.rates = rates
        self.hub = LobbyHub()
        self._sweeper: asyncio.Task[None] | None = None

    # -- running -------------------------------------------------------------------------------

    async def seek_preview(self, seek_id: str, account_id: int) -> SeekPreview:
        """What accepting a rated seek or challenge would do to both ratings
        (``seeks.seek_preview``; 404: no such rated seek by another player)."""
        now = now_ms()
        return await self.db.read(lambda session: seek_preview(session, seek_id, account_id, now))

    async def start(self) -> None:
        """Sweep at once (a seek left by a process that stopped, this one's last run included,
        goes now), then every ``lobby_sweep_seconds``."""
        with contextlib.suppress(Exception):
            await self.sweep()
        self._sweeper = asyncio.create_task(self._sweep_loop(), name="bluegray-lobby")

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        await self.hub.close_all()

    def heard(self, news: News) -> None:
        self.hub.deliver(news)

    async def _sweep_loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.lobby_sweep_seconds)
            try:
                await self.sweep()
            except Exception as error:
                log.error("cannot sweep the lobby: %r", error)

    async def sweep(self) -> None:
        """Clear the seeks past their time, and those whose process has died."""
        now = now_ms()
        live = await self.service.presence.live_processes(now)  # embedded: this one alone
        condition = expired_or_orphaned(now, live)
        gone = await self.db.write(lambda connection: remove_seeks(connection, condition))
        for row in gone:
            await self._announce_gone(row, "expired" if row.expires_ms <= now else "left")
        await self._pair_waiting()

    async def left(self, connection_id: str) -> None:
        """A lobby socket closed: the seeks posted with it go."""
        gone = await self.db.write(
            lambda connection: remove_seeks(connection, by_connection(connection_id))
        )
        for row in gone:
            await self._announce_gone(row, "left")

    # -- news ----------------------------------------------------------------------------------

    async def _publish(self, to: str, text: str) -> None:
        try:
            await self.bus.publish(News("cluster", to, 0, self.process, text))
        except Exception as error:  # stored all the same: a reload shows it
            log.error("cannot publish lobby news: %r", error)

    async def _announce_new(self, info: SeekInfo, row_target: int | None, owner: int) -> None:
        if row_target is None:
            await self._publish(LOBBY, SeekMessage(type="seek", seek=info).model_dump_json())
            return
        text = SeekMessage(type="challenge", seek=info).model_dump_json()
        for account_id in (row_target, owner):
            await self._publish(f"{ACCOUNT_PREFIX}{account_id}", text)

    async def _announce_gone(self, row: SeekRow | Row[Any], reason: GoneReason) -> None:
        """A seek is gone (``row``: as read, or as a ``RETURNING`` row of its deletion)."""
        if row.target_id is None:
            message = SeekGoneMessage(type="seek_gone", id=row.id, reason=reason)
            await self._publish(LOBBY, message.model_dump_json())
            return
        message = SeekGoneMessage(type="challenge_gone", id=row.id, reason=reason)
        for account_id in (row.target_id, row.account_id):
            await self._publish(f"{ACCOUNT_PREFIX}{account_id}", message.model_dump_json())

    # -- reading -------------------------------------------------------------------------------

    async def seeks(self) -> SeekList:
        now = now_ms()
        return SeekList(seeks=await self.db.read(lambda session: open_seeks(session, now)))

    async def challenges(self, account: Account) -> ChallengeList:
        now = now_ms()
        incoming, outgoing = await self.db.read(
            lambda session: challenges_of(session, account.id, now)
        )
        return ChallengeList(incoming=incoming, outgoing=outgoing)

    def quick_pairings(self) -> QuickPairingList:
        settings = self.settings
        return QuickPairingList(
            pairings=list(QUICK_PAIRINGS),
            rating_range=settings.quick_pairing_range,
            widen_points=settings.quick_pairing_widen_points,
            widen_seconds=settings.quick_pairing_widen_seconds,
            any_after_seconds=settings.quick_pairing_any_after_seconds,
        )

    async def rating(self, account_id: int, pool: str | None) -> Rating:
        """The account's rating in a pool as shown now (a new player's if it has none)."""
        if pool is None:
            return DEFAULT_SETTINGS.new_player
        now = now_ms()

        return await self.db.read(lambda session: rating_in(session, account_id, pool, now))

    # -- posting -------------------------------------------------------------------------------

    def _terms(
        self,
        rules_text: str,
        clock: ClockSettings | None,
        correspondence: CorrespondenceSettings | None,
        rated: bool,
        color: str,
        kind: str,
    ) -> _Terms:
        try:
            rules = RuleSet.parse(rules_text)
        except BlueGrayError as error:
            raise from_library(error) from None
        days = None if correspondence is None else correspondence.days
        what = time_class(clock, days)
        pool = pool_name(rules, what)
        if rated and pool is None:
            raise Invalid(
                "cannot_be_rated",
                f"this {kind} cannot be rated: a custom rule set is never rated",
            )
        return _Terms(rules, clock, days, rated, color, what, pool)

    def _asked(self, request: SeekRequest | ChallengeRequest, kind: str) -> _Terms:
        return self._terms(
            request.rules,
            request.clock,
            request.correspondence,
            request.rated,
            request.color,
            kind,
        )

    async def _limit(self, account: Account, challenge: bool) -> None:
        if not self.settings.rate_limits:
            return
        item = self.rates.challenging if challenge else self.rates.seeking
        wait = await self.rates.take(item, f"account:{account.id}")
        if wait:
            raise rate_limited(wait, "too many challenges" if challenge else "too many seeks")

    async def _store(
        self,
        account: Account,
        terms: _Terms,
        *,
        rating_min: int | None = None,
        rating_max: int | None = None,
        target: Account | None = None,
        quick: str | None = None,
        connection: str | None = None,
    ) -> SeekRow:
        rating = await self.rating(account.id, terms.pool)
        now = now_ms()
        lifetime = self.settings.challenge_seconds if target else self.settings.seek_seconds
        clock = terms.clock
        row = SeekRow(
            id=new_game_id(),
            account_id=account.id,
            account_name=account.name,
            bot=account.bot,
            rating=rating.rating,
            provisional=is_provisional(rating),
            rules=str(terms.rules),
            time_class=terms.time_class,
            clock_initial_ms=None if clock is None else round(clock.minutes * 60_000),
            clock_increment_ms=None if clock is None else round(clock.increment_seconds * 1000),
            corr_days=terms.days,
            rated=terms.rated,
            color=terms.color,
            rating_min=rating_min,
            rating_max=rating_max,
            target_id=None if target is None else target.id,
            target_name=None if target is None else target.name,
            quick=quick,
            connection=connection,
            process=self.process,
            created_ms=now,
            expires_ms=now + round(lifetime * 1000),
        )
        values = {column.name: getattr(row, column.name) for column in SeekRow.__table__.columns}
        most = self.settings.max_seeks
        try:
            await self.db.write(lambda c: insert_seek(c, values, most, now))
        except TooManySeeksError:
            raise Conflict(
                "too_many_seeks",
                f"you have {most} open seeks and challenges: cancel one, or wait for an answer",
            ) from None
        await self._announce_new(seek_info(row), row.target_id, account.id)
        return row

    async def post(self, account: Account, request: SeekRequest) -> SeekInfo:
        await self._limit(account, challenge=False)
        terms = self._asked(request, "seek")
        low, high = request.rating_min, request.rating_max
        if low is not None and high is not None and low > high:
            raise Invalid("invalid_range", f"the rating range {low}-{high} is empty")
        row = await self._store(
            account, terms, rating_min=low, rating_max=high, connection=request.connection
        )
        return seek_info(row)

    async def challenge(self, account: Account, request: ChallengeRequest) -> SeekInfo:
        target = await self._account(request.to)
        if target is None or target.closed:
            raise NotFound("not_found", "no player of that name")
        if target.id == account.id:
            raise Conflict("not_allowed", "you cannot challenge yourself")
        await self._limit(account, challenge=True)
        terms = self._asked(request, "challenge")
        return seek_info(await self._store(account, terms, target=target))

    async def cancel(self, account: Account, seek_id: str) -> None:
        """The owner withdraws a seek or a challenge."""
        row = await self.db.read(lambda session: read_seek(session, seek_id, now_ms()))
        if row is None:
            raise NotFound("not_found", "no such seek (taken, cancelled or expired)")
        if row.account_id != account.id:
            raise Forbidden("forbidden", "only its player can cancel a seek")
        gone = await self.db.write(lambda connection: remove_seeks(connection, by_id(seek_id)))
        for removed in gone:
            await self._announce_gone(removed, "cancelled")

    async def decline(self, account: Account, seek_id: str) -> None:
        row = await self.db.read(lambda session: read_seek(session, seek_id, now_ms()))
        if row is None or row.target_id != account.id:
            raise NotFound("not_found", "no such challenge to you")
        gone = await self.db.write(lambda connection: remove_seeks(connection, by_id(seek_id)))
        for removed in gone:
            await self._announce_gone(removed, "declined")

    # -- taking --------------------------------------------------------------------------------

    async def accept(self, account: Account, seek_id: str) -> StartedGame:
        """Take a seek, or a challenge sent to this account: the game starts for both."""
        row = await self.db.read(lambda session: read_seek(session, seek_id, now_ms()))
        if row is None:
            raise NotFound("not_found", "no such seek (taken, cancelled or expired)")
        if row.account_id == account.id:
            raise Conflict("not_allowed", "this is your own seek")
        if row.target_id is not None and row.target_id != account.id:
            raise NotFound("not_found", "no such challenge to you")
        if row.target_id is None:
            pool = pool_name(RuleSet.parse(row.rules), row.time_class)
            rating = await self.rating(account.id, pool)
            now = now_ms()
            if row.quick is not None:
                allowed = quick_match(
                    self.settings, row, rating.rating, is_provisional(rating), 0, now
                )
                span = quick_span(self.settings, now - row.created_ms)
                low, high = (
                    (None, None)
                    if row.provisional or math.isinf(span)
                    else (max(0, round(row.rating - span)), round(row.rating + span))
                )
            else:
                allowed = in_range(row, rating.rating)
                low, high = row.rating_min, row.rating_max
            if not allowed:
                raise Conflict(
                    "out_of_range",
                    f"your rating {rating.rating:.0f} is outside this seek's range "
                    f"{low or 0}-{high or '∞'}",
                )
        return await self._start(row, account)

    async def _start(
        self, row: SeekRow, taker: Account, withdraw: SeekRow | None = None
    ) -> StartedGame:
        owner = await self._account_by_id(row.account_id)
        if owner is None or owner.closed:
            raise NotFound("not_found", "the seek's player is no longer here")
        own = Side(row.color if row.color != "random" else secrets.choice(("blue", "gray")))
        rules = RuleSet.parse(row.rules)
        clock = None
        if row.clock_initial_ms is not None:
            clock = Clock.new(row.clock_initial_ms, row.clock_increment_ms or 0)
        correspondence = None if row.corr_days is None else Correspondence(row.corr_days)

        # The taker's own quick seek goes in the same transaction. The two are taken in the
        # order of their ids: two players each taking the other's seek at once then wait for
        # each other's row in the same order (one finds its seek gone) instead of deadlocking.
        taken = sorted({row.id} | ({withdraw.id} if withdraw is not None else set()))

        def also(connection: Connection) -> None:
            for seek_id in taken:
                take_seek(connection, seek_id)

        try:
            live = await self.service.start_between(
                {own: owner, own.other: taker},
                rules,
                clock,
                correspondence=correspondence,
                rated=row.rated,
                also=also,
            )
        except SeekGoneError:
            raise Conflict(
                "seek_gone", "someone else took this seek first (or it was withdrawn)"
            ) from None
        await self._announce_gone(row, "accepted")
        if withdraw is not None:
            await self._announce_gone(withdraw, "cancelled")
        for player, side, opponent in ((owner, own, taker), (taker, own.other, owner)):
            started = StartedGame.told(
                live.id,
                side,
                opponent.name,
                rated=live.rated,
                unrated_reason=live.unrated_reason,
            )
            message = GameStartedMessage(game=started)
            await self._publish(f"{ACCOUNT_PREFIX}{player.id}", message.model_dump_json())
        return StartedGame.told(
            live.id,
            own.other,
            owner.name,
            rated=live.rated,
            unrated_reason=live.unrated_reason,
        )

    async def quick(self, account: Account, key: str, connection: str | None) -> QuickPairingResult:
        """Pair with someone waiting in this quick pairing within the rating range, or wait in
        it. Having stored its seek, a press looks again: of two players pressing at once (on
        two processes, whatever their clocks) at least one sees the other's stored seek, and if
        both do, only one of them takes it."""
        pairing = QUICK_BY_KEY.get(key)
        if pairing is None:
            raise NotFound("not_found", f"no quick pairing {key!r}: " + ", ".join(QUICK_BY_KEY))
        await self._limit(account, challenge=False)
        terms = self._terms(pairing.rules, pairing.clock, None, pairing.rated, "random", "seek")
        rating = await self.rating(account.id, terms.pool)
        span = self.settings.quick_pairing_range
        started = await self._pair_quick(account, key, rating)
        if started is not None:
            return QuickPairingResult(game=started, seek=None)
        anyone = is_provisional(rating)  # the range the seek shows at first
        row = await self._store(
            account,
            terms,
            rating_min=None if anyone else max(0, round(rating.rating - span)),
            rating_max=None if anyone else round(rating.rating + span),
            quick=key,
            connection=connection,
        )
        started = await self._pair_quick(account, key, rating, row) or await self._taken(row)
        if started is not None:
            return QuickPairingResult(game=started, seek=None)
        return QuickPairingResult(game=None, seek=seek_info(row))

    async def _taken(self, seek: SeekRow) -> StartedGame | None:
        """The game that took the player's own quick seek while the press was looking (another
        press or a sweep paired it), as the player's ``StartedGame``; ``None``: it waits."""
        now = now_ms()
        found = await self.db.read(lambda session: game_from_taken_seek(session, seek, now))
        if found is None:
            return None
        return StartedGame.told(
            found.game_id,
            Side(found.side),
            found.opponent,
            rated=found.rated,
            unrated_reason=found.unrated_reason,
        )

    async def _pair_quick(
        self,
        account: Account,
        key: str,
        rating: Rating,
        mine: SeekRow | None = None,
    ) -> StartedGame | None:
        now = now_ms()
        waiting = await self.db.read(lambda session: waiting_quick(session, key, account.id, now))
        for row in waiting:
            if not quick_match(self.settings, row, rating.rating, is_provisional(rating), 0, now):
                continue
            try:
                return await self._start(row, account, mine)
            except Refusal as error:
                if error.code != "seek_gone":
                    raise
        return None

    async def _pair_waiting(self) -> None:
        """Pair the players already waiting in the same quick pairing whose ranges have widened
        to meet (a sweep's work: nobody presses again while waiting). Each pair's two seeks are
        taken in one transaction, so of two processes sweeping at once only one pairs them."""
        now = now_ms()
        waiting = await self.db.read(lambda session: waiting_in_quick_pairings(session, now))
        done: set[str] = set()
        for index, first in enumerate(waiting):
            for second in waiting[index + 1 :]:
                if first.id in done:
                    break
                if (
                    second.id in done
                    or second.quick != first.quick
                    or second.account_id == first.account_id
                ):
                    continue
                waited = now - second.created_ms
                if not quick_match(
                    self.settings, first, second.rating, bool(second.provisional), waited, now
                ):
                    continue
                done |= {first.id, second.id}
                taker = await self._account_by_id(second.account_id)
                if taker is None or taker.closed:
                    continue
                try:
                    await self._start(first, taker, second)
                except Refusal as error:  # one of them was taken meanwhile: the next sweep
                    log.info("quick pairing %s: %s", first.quick, error.message)

    # -- accounts ------------------------------------------------------------------------------

    async def _account(self, name: str) -> Account | None:
        return await self.db.read(lambda session: read_account_named(session, name))

    async def _account_by_id(self, account_id: int) -> Account | None:
        return await self.db.read(lambda session: read_account(session, account_id))
