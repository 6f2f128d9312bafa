"""The chat of each game: who may write where, what each reader is shown, and the moderators'
work on it.

A game has two rooms: the players' (its players write; everyone reads) and the spectators'
(everyone else with an account writes; the players read it once the game is over). Free text is
for accounts only; the canned messages (``schemas.CANNED``) are for anyone in the game, players
without an account too. Nothing from an account a moderator muted, or a closed one, reaches
anyone; an account that muted another sees nothing of it; one that turned the chat off sees no
chat at all. These rules hold on reading the stored chat (``read``) and on delivering a new
message to the game's sockets, in every process (``heard``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import unicodedata
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection
from sqlalchemy.orm import Session

from bluegray.pieces import Side
from bluegray.web.accounts.chat_setting import chat_off, chat_off_among, store_chat_off
from bluegray.web.accounts.players import (
    Account,
    read_account,
    read_account_named,
    read_accounts,
)
from bluegray.web.chat import store
from bluegray.web.chat.rows import ChatMessageRow
from bluegray.web.chat.schemas import (
    CANNED,
    ChatLine,
    ChatLog,
    ChatMessage,
    ChatReport,
    ChatRequest,
    ChatSettings,
    Room,
)
from bluegray.web.games.live import side_name
from bluegray.web.games.service import GameService
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.rates import RateLimits
from bluegray.web.platform.refusals import (
    Conflict,
    Forbidden,
    Invalid,
    NotFound,
    Unauthorized,
    rate_limited,
)
from bluegray.web.platform.settings import Settings
from bluegray.web.realtime.bus import BusUnavailableError, News

log = logging.getLogger("bluegray.web")

REPORTS_SHOWN: Final = 200
"""The most reports the moderators' list shows at once (the newest)."""


@dataclass(frozen=True)
class Reader:
    """Who reads or writes a game's chat: an account (or none), and the sides it plays."""

    account: Account | None
    sides: frozenset[Side]

    @property
    def room(self) -> Room:
        return "players" if self.sides else "spectators"

    @property
    def side(self) -> str | None:
        return side_name(next(iter(self.sides))) if len(self.sides) == 1 else None


def plain_text(text: str) -> str:
    """A message's text as kept: control characters (line breaks too) as spaces, no spaces
    around it (422 when nothing is left)."""
    cleaned = "".join(" " if unicodedata.category(char) == "Cc" else char for char in text)
    cleaned = cleaned.strip()
    if not cleaned:
        raise Invalid("invalid_request", "a message needs some text")
    return cleaned


def line_of(row: ChatMessageRow) -> ChatLine:
    canned = row.canned if row.canned in CANNED else None
    return ChatLine(
        id=row.id,
        room="players" if row.room == "players" else "spectators",
        sent_ms=row.sent_ms,
        ply=row.ply,
        author=row.author_name,
        side=row.author_side if row.author_side in ("blue", "gray") else None,  # type: ignore[arg-type]
        text=CANNED[canned] if canned is not None else row.text or "",
        canned=canned,  # type: ignore[arg-type]
    )


def _silent(session: Session, authors: set[int]) -> set[int]:
    """Those of these authors whom nobody hears: muted by a moderator, or closed."""
    closed = {account.id for account in read_accounts(session, authors).values() if account.closed}
    return closed | store.silenced(session, authors)


class Chat:
    """The games' chat as this process serves it."""

    def __init__(self, settings: Settings, service: GameService, rates: RateLimits) -> None:
        self.settings = settings
        self.service = service
        self.db = service.db
        self.rates = rates
        self.chatting = rates.chatting
        self._news: asyncio.Queue[News] = asyncio.Queue()
        self._delivering: asyncio.Task[None] | None = None

    # -- writing ---------------------------------------------------------------------------------

    async def send(self, game_id: str, reader: Reader, request: ChatRequest) -> ChatLine:
        """Write in the game's chat: in the players' room for a player, else the spectators'.
        401 for free text without an account, 403 for a muted account or one with the chat
        off, 409 once the game holds ``chat_messages_per_game``, 429 past the rate."""
        account = reader.account
        if account is None and not reader.sides:
            raise Unauthorized("unauthorized", "log in to chat (or play in the game)")
        if request.text is not None and account is None:
            raise Unauthorized(
                "unauthorized",
                "log in to write in the chat: without an account, send a quick one",
            )
        text = None if request.text is None else plain_text(request.text)
        if account is not None:
            await self._check_may_write(account)
        if self.settings.rate_limits:
            key = f"a{account.id}" if account is not None else f"g{game_id}/{reader.side}"
            wait = await self.rates.take(self.chatting, key)
            if wait:
                raise rate_limited(wait, "too many chat messages: slow down")
        live = await self.service.snapshot(game_id)
        most = self.settings.chat_messages_per_game
        values: dict[str, object] = {
            "game_id": game_id,
            "sent_ms": now_ms(),
            "ply": live.game.ply,
            "room": reader.room,
            "after_end": live.is_over(),
            "author_id": None if account is None else account.id,
            "author_name": None if account is None else account.name,
            "author_side": reader.side,
            "text": text,
            "canned": request.canned,
        }

        def write(connection: Connection) -> int | None:
            if store.message_count(connection, game_id) >= most:
                return None
            return store.add_message(connection, values)

        message_id = await self.db.write(write)
        if message_id is None:
            raise Conflict("chat_full", f"a game's chat holds at most {most} messages")
        row = ChatMessageRow(id=message_id, **values)
        line = line_of(row)
        news = News(
            "chat",
            game_id,
            message_id,
            self.service.process,
            ChatMessage(line=line).model_dump_json(),
        )
        try:
            await self.service.bus.publish(news)
        except BusUnavailableError as error:  # stored: the others see it when they read the chat
            log.warning("cannot publish a chat message of game %s: %r", game_id, error)
        return line

    async def _check_may_write(self, account: Account) -> None:
        def query(session: Session) -> tuple[bool, bool]:
            return bool(store.silenced(session, [account.id])), chat_off(session, account.id)

        muted, off = await self.db.read(query)
        if muted:
            raise Forbidden("chat_muted", "a moderator muted this account: it cannot chat")
        if off:
            raise Forbidden("chat_off", "the chat is off for this account: turn it on to write")

    # -- reading ---------------------------------------------------------------------------------

    async def read(self, game_id: str, reader: Reader) -> ChatLog:
        """The game's chat as ``reader`` is shown it, oldest first."""
        live = await self.service.snapshot(game_id)
        spectators_shown = not reader.sides or live.is_over()
        account = reader.account
        may_write = account is not None or bool(reader.sides)
        limit = self.settings.chat_messages_per_game

        def query(session: Session) -> tuple[bool, list[ChatMessageRow]]:
            if account is not None and chat_off(session, account.id):
                return True, []
            rows = store.game_messages(session, game_id, limit)
            authors = {row.author_id for row in rows if row.author_id is not None}
            hidden = _silent(session, authors)
            if account is not None:
                hidden |= store.muted_by(session, account.id)
            shown = [
                row
                for row in rows
                if row.author_id not in hidden and (row.room == "players" or spectators_shown)
            ]
            return False, shown

        off, rows = await self.db.read(query)
        return ChatLog(
            game_id=game_id,
            room=reader.room if may_write else None,
            chat_off=off,
            spectators_shown=spectators_shown,
            canned=dict(CANNED),
            messages=[line_of(row) for row in rows],
        )

    # -- delivering ------------------------------------------------------------------------------

    def start(self) -> None:
        self._delivering = asyncio.create_task(self._deliver_all(), name="bluegray-chat")

    async def stop(self) -> None:
        if self._delivering is not None:
            self._delivering.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._delivering

    def heard(self, news: News) -> None:
        """A new message (from this process or another): delivered to this process's sockets on
        its game, in the order heard, each to those who may see it."""
        if self.service.hub.has_connections(news.game_id):
            self._news.put_nowait(news)

    async def _deliver_all(self) -> None:
        while True:
            news = await self._news.get()
            try:
                await self._deliver(news)
            except Exception as error:  # the reader reads it with the chat again
                log.warning("cannot deliver a chat message of game %s: %r", news.game_id, error)

    async def _deliver(self, news: News) -> None:
        connections = [c for c in self.service.hub.connections(news.game_id) if not c.closed]
        if not connections:
            return
        readers = {c.account_id for c in connections if c.account_id is not None}

        def query(session: Session) -> tuple[ChatMessageRow | None, set[int]]:
            row = store.read_message(session, news.version)
            if row is None:
                return None, set()
            author = row.author_id
            if author is not None and _silent(session, {author}):
                return None, set()
            deaf = chat_off_among(session, readers)
            if author is not None:
                deaf |= store.muters_of(session, author, readers)
            return row, deaf

        row, deaf = await self.db.read(query)
        if row is None:
            return
        for connection in connections:
            if connection.account_id is not None and connection.account_id in deaf:
                continue
            if row.room == "spectators" and connection.sides and not row.after_end:
                continue
            connection.send(news.text)

    # -- an account's settings ---------------------------------------------------------------------

    async def settings_of(self, account: Account) -> ChatSettings:
        def query(session: Session) -> ChatSettings:
            muted = read_accounts(session, store.muted_by(session, account.id))
            return ChatSettings(
                chat_off=chat_off(session, account.id),
                muted=sorted((other.name for other in muted.values()), key=str.lower),
            )

        return await self.db.read(query)

    async def set_chat_off(self, account: Account, off: bool) -> ChatSettings:
        await self.db.write(lambda connection: store_chat_off(connection, account.id, off))
        return await self.settings_of(account)

    async def _named(self, name: str) -> Account:
        found = await self.db.read(lambda session: read_account_named(session, name))
        if found is None:
            raise NotFound("not_found", "no player of that name")
        return found

    async def mute(self, account: Account, name: str, muted: bool) -> ChatSettings:
        """Mute (or unmute) an account for this one alone."""
        other = await self._named(name)
        if other.id == account.id:
            raise Invalid("invalid_request", "you cannot mute yourself")
        now = now_ms()
        if muted:
            await self.db.write(lambda c: store.store_mute(c, account.id, other.id, now))
        else:
            await self.db.write(lambda c: store.drop_mute(c, account.id, other.id))
        return await self.settings_of(account)

    # -- reports and the moderators --------------------------------------------------------------

    async def report(self, game_id: str, message_id: int, reader: Reader) -> int:
        """Report a message the reader can see to the moderators (once: again, the same report)."""
        account = reader.account
        if account is None:
            raise Unauthorized("unauthorized", "log in to report a message")
        shown = await self.read(game_id, reader)
        if all(line.id != message_id for line in shown.messages):
            raise NotFound("not_found", "no such message in this game's chat")
        now = now_ms()
        return await self.db.write(lambda c: store.add_report(c, message_id, account.id, now))

    async def silence(self, moderator: Account, name: str, muted: bool) -> Account:
        """A moderator's mute (or its end): nothing the account writes reaches anyone."""
        check_moderator(moderator)
        other = await self._named(name)
        now = now_ms()
        if muted:
            await self.db.write(lambda c: store.store_silence(c, other.id, moderator.id, now))
        else:
            await self.db.write(lambda c: store.drop_silence(c, other.id))
        return other

    async def reports(self, moderator: Account, state: str | None) -> list[ChatReport]:
        check_moderator(moderator)

        def query(session: Session) -> list[ChatReport]:
            found = store.reports_in(session, state, REPORTS_SHOWN)
            ids = {report.reporter_id for report, _ in found}
            authors = {row.author_id for _, row in found if row.author_id is not None}
            accounts = read_accounts(session, ids | authors)
            muted = store.silenced(session, authors)
            return [
                ChatReport(
                    id=report.id,
                    state=report.state,  # type: ignore[arg-type]
                    created_ms=report.created_ms,
                    reporter=accounts[report.reporter_id].name
                    if report.reporter_id in accounts
                    else "",
                    game_id=row.game_id,
                    message=line_of(row),
                    author_muted=row.author_id in muted,
                    author_closed=row.author_id in accounts and accounts[row.author_id].closed,
                )
                for report, row in found
            ]

        return await self.db.read(query)

    async def report_author(self, moderator: Account, report_id: int) -> Account:
        """The account that wrote the reported message (409 for a player without one)."""
        check_moderator(moderator)

        def query(session: Session) -> Account | bool | None:
            report = store.read_report(session, report_id)
            if report is None:
                return False
            row = store.read_message(session, report.message_id)
            if row is None or row.author_id is None:
                return None
            return read_account(session, row.author_id)

        found = await self.db.read(query)
        if found is False:
            raise NotFound("not_found", "no such report")
        if not isinstance(found, Account):
            raise Conflict("not_allowed", "its author has no account: there is nothing to act on")
        return found

    async def decide(self, moderator: Account, report_id: int, action: str) -> str:
        """Close a report: ``dismiss`` (nothing wrong), or ``mute`` its author (the report is
        then ``acted``; ``close`` is the accounts' closing, done by the caller first)."""
        check_moderator(moderator)
        if action == "mute":
            author = await self.report_author(moderator, report_id)
            await self.silence(moderator, author.name, True)
        state = "dismissed" if action == "dismiss" else "acted"
        now = now_ms()

        def write(connection: Connection) -> bool:
            return store.decide_report(connection, report_id, state, now)

        if not await self.db.write(write):
            raise NotFound("not_found", "no such report")
        return state


def check_moderator(account: Account) -> None:
    if not account.moderator:
        raise Forbidden("forbidden", "only a moderator can do this")
