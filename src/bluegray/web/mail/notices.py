"""Telling players by email that a correspondence game waits for them: "your move" when a turn
begins, and "your time is running out" a day before the deadline (a quarter of the allowance
before it in games of fewer than four days a move), to the accounts that stored an address and
asked for them.

A notice is a durable timer of the game (``mail-turn``, ``mail-time``: ``store.timer_values``),
written in the same transaction as the move that makes it due, so that no process's death loses
it: whichever process is alive claims it and sends the mail (``deadlines``). A mail the server
does not take is tried again every ``smtp_retry_seconds`` until it goes or no longer matters
(the player has moved, the game is over, the deadline has passed); a process that dies while
sending leaves its claim to run out, and another process sends it (at least once: rarely twice).
Nothing here runs in a request.
"""

from __future__ import annotations

import datetime
import logging
from typing import Final

from bluegray.web.accounts.notifications import notice_address
from bluegray.web.games.live import LiveGame
from bluegray.web.games.runtime import Games
from bluegray.web.mail.sending import MailError, compose, send
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.db import Database
from bluegray.web.platform.settings import Settings
from bluegray.web.timers.deadlines import DONE, Due, Verdict

log = logging.getLogger("bluegray.web")

NOTICE_KINDS: Final = {"mail-turn": "turn", "mail-time": "time"}


def _moment(ms: int) -> str:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _opponent(live: LiveGame) -> str:
    seat = live.seats.get(live.game.turn.other)
    if seat is None or seat.kind == "ai":
        return f"the AI (level {live.ai_level})"
    return seat.account_name or "a player without an account"


def message_text(live: LiveGame, notice: str, name: str, site: str) -> tuple[str, str]:
    """The subject and text of a notice about ``live`` to the account ``name``."""
    correspondence = live.correspondence
    assert correspondence is not None and correspondence.deadline_ms is not None
    side = live.game.turn
    opponent = _opponent(live)
    days = correspondence.days
    if notice == "turn":
        subject = f"Your move against {opponent}"
        opening = f"It is your move ({side.title}) in your game against {opponent}"
    else:
        subject = f"Your time is running out against {opponent}"
        opening = f"Your time to move ({side.title}) is running out in your game against {opponent}"
    text = (
        f"Hello {name},\n\n"
        f"{opening} ({live.rules.name or 'custom rules'}, {days} day{'s' if days != 1 else ''} "
        f"per move).\nMove by {_moment(correspondence.deadline_ms)}, or you lose on time:\n\n"
        f"{site}/game/{live.id}\n\n"
        f"You get these emails because you asked for them; change that on {site}/account\n"
    )
    return subject, text


class Notices:
    """This process's part in sending the notices: the handler of their timers."""

    def __init__(self, settings: Settings, db: Database, games: Games) -> None:
        self.settings = settings
        self.db = db
        self.games = games
        self.sent = 0

    async def due(self, due: Due) -> Verdict:
        """Send the notice of a timer, if it still matters and its account wants it."""
        notice = NOTICE_KINDS[due.kind]
        if not self.settings.mail_enabled:
            return DONE
        live = (await self.games.get(due.subject)).live
        correspondence = live.correspondence
        seat = live.seats.get(live.game.turn)
        if (
            live.version != due.version
            or live.is_over()
            or correspondence is None
            or correspondence.deadline_ms is None
            or seat is None
            or seat.account_id is None
        ):
            return DONE  # the game moved on: its own timers say what is due now
        account_id = seat.account_id
        if notice == "turn" and live.game.turn in (await self.games.presence_of(live.id)).connected:
            return DONE  # the player is at the game: they see it is their move
        found = await self.db.read(lambda session: notice_address(session, account_id, notice))
        if found is None:
            return DONE
        name, address = found
        subject, text = message_text(live, notice, name, self.settings.public_url)
        try:
            await send(self.settings, compose(self.settings, address, subject, text))
        except MailError as error:
            again = now_ms() + round(self.settings.smtp_retry_seconds * 1000)
            log.warning("the %s notice of game %s: %s", notice, live.id, error.args[0])
            return DONE if again >= correspondence.deadline_ms else Verdict(again_at_ms=again)
        self.sent += 1
        log.info("game %s: the %s notice went to account %d", live.id, notice, account_id)
        return DONE
