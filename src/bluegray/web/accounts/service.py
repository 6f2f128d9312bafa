"""The account service: signing up, logging in, changing a password, claiming the games a browser
played before it had an account, marking a bot, and what moderators do (closing an account).

Every limit that guards an account is here: new accounts and logins per client address, and
failed logins per name and per address (brute force), which slow further tries down (growing
waits, never a lock), all counted by the site's ``RateLimits`` (in Redis when scaled out, so
they hold across processes). A browser that has logged in to an account before (its signed
device cookie, ``security.device_cookie``) is not slowed by failures from elsewhere. A failed
login says the same thing whether the name exists or not, and takes as long: an unknown name's
password is checked against a dummy hash (``passwords``).

The database work that needs no running server (``set_moderator``,
``close_account``, ``make_bot``) is plain functions on a connection, which ``bluegray user``
calls too.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import partial
from typing import Final

from sqlalchemy import Connection, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from bluegray.web.accounts.api_tokens import ApiTokens, end_tokens
from bluegray.web.accounts.passwords import MAX_LENGTH, MIN_LENGTH, Hashing, is_common, needs_rehash
from bluegray.web.accounts.players import (
    Account,
    account_of_row,
    check_new_name,
    find_account,
    is_name,
    name_key,
)
from bluegray.web.accounts.rows import AccountRow, ApiTokenRow, SessionRow
from bluegray.web.accounts.sessions import Sessions, end_sessions
from bluegray.web.games.live import LiveGame
from bluegray.web.games.player_games import games_played, unclaimed_games
from bluegray.web.games.runtime import Games
from bluegray.web.games.schemas import GameEvent
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.db import Database
from bluegray.web.platform.models import table_of
from bluegray.web.platform.rates import RateLimits
from bluegray.web.platform.refusals import (
    Conflict,
    Forbidden,
    Invalid,
    Refusal,
    Unauthorized,
    rate_limited,
)
from bluegray.web.platform.security import device_cookie, device_knows
from bluegray.web.platform.settings import Settings

log = logging.getLogger("bluegray.web")

LOGIN_FAILED: Final = "wrong name or password"
"""What every failed login says, whether the name exists or not."""
CLAIM_LIMIT: Final = 1000
"""The most games one claim adds to an account (the browser's newest)."""

_ACCOUNTS: Final = table_of(AccountRow)

ClosingStep = Callable[[Connection, int, int], None]
"""Something more to do, in the same transaction, when an account is closed:
``step(connection, account_id, now_ms)``."""


def check_password(password: str, name: str) -> None:
    """A password someone may choose (422 ``invalid_password`` saying why not): long enough
    without the spaces around it, not the name, and not one of the most common passwords."""
    if not MIN_LENGTH <= len(password.strip()) <= len(password) <= MAX_LENGTH:
        raise Invalid(
            "invalid_password",
            f"a password is {MIN_LENGTH} to {MAX_LENGTH} characters long, not counting the "
            "spaces around it",
        )
    if password.strip().lower() == name.lower():
        raise Invalid("invalid_password", "the password cannot be the name")
    if is_common(password):
        raise Invalid(
            "invalid_password",
            "that password is one of the most common ones, the first an attacker tries: "
            "choose another (a few unrelated words make a good one)",
        )


# -- the database, for the service and the command line ------------------------------------------


def name_taken(connection: Connection, name: str) -> bool:
    found = connection.execute(select(_ACCOUNTS.c.id).where(_ACCOUNTS.c.name_key == name_key(name)))
    return found.first() is not None


def set_moderator(connection: Connection, account_id: int, moderator: bool) -> None:
    connection.execute(
        update(_ACCOUNTS).where(_ACCOUNTS.c.id == account_id).values(moderator=moderator)
    )


def close_account(
    connection: Connection, account_id: int, now: int, steps: Sequence[ClosingStep]
) -> None:
    """Close an account: it cannot log in again, its sessions and API tokens end at once on
    every process, and ``steps`` run (``endings.CLOSING_STEPS``; all in one transaction). Its
    games stay as they were, with its name."""
    connection.execute(
        update(_ACCOUNTS)
        .where(_ACCOUNTS.c.id == account_id, _ACCOUNTS.c.closed_ms.is_(None))
        .values(closed_ms=now)
    )
    end_sessions(connection, account_id)
    end_tokens(connection, account_id)
    for step in steps:
        step(connection, account_id, now)


def access_counts(session: Session, account_id: int, now: int) -> tuple[int, int]:
    """How many sessions (not expired at ``now``) and API tokens the account holds."""
    sessions = session.scalar(
        select(func.count())
        .select_from(SessionRow)
        .where(SessionRow.account_id == account_id, SessionRow.expires_ms > now)
    )
    tokens = session.scalar(
        select(func.count()).select_from(ApiTokenRow).where(ApiTokenRow.account_id == account_id)
    )
    return int(sessions or 0), int(tokens or 0)


def make_bot(connection: Connection, account_id: int) -> bool:
    """Mark an account as a bot's, if it has played no game yet (as lichess does: a bot never
    played as a person). Whether it was marked."""
    if games_played(connection, account_id):
        return False
    connection.execute(update(_ACCOUNTS).where(_ACCOUNTS.c.id == account_id).values(bot=True))
    return True


# -- the service ---------------------------------------------------------------------------------


class Accounts:
    """The accounts as this process serves them."""

    def __init__(
        self,
        db: Database,
        rates: RateLimits,
        settings: Settings,
        games: Games,
        *,
        closing_steps: Sequence[ClosingStep],
    ) -> None:
        """``closing_steps`` run when an account is closed (``endings.CLOSING_STEPS``)."""
        self.db = db
        self.closing_steps = closing_steps
        self.rates = rates
        self.settings = settings
        self.games = games
        self.sessions = Sessions(db)
        self.tokens = ApiTokens(db)
        self.hashing = Hashing()

    async def sign_up(self, name: str, password: str, address: str) -> Account:
        """A new account (409 ``name_taken`` when the name is someone's, in any case)."""
        check_new_name(name)
        check_password(password, name)
        if self.settings.rate_limits:
            wait = await self.rates.take(self.rates.signing_up, address)
            if wait:
                raise rate_limited(wait, "too many new accounts from your address")
        hashed = await self.hashing.hash(password)
        now = now_ms()

        def write(connection: Connection) -> int | None:
            if name_taken(connection, name):
                return None
            result = connection.execute(
                insert(_ACCOUNTS).values(
                    name=name,
                    name_key=name_key(name),
                    password_hash=hashed,
                    created_ms=now,
                    password_changed_ms=now,
                    bot=False,
                    moderator=False,
                    closed_ms=None,
                )
            )
            key = result.inserted_primary_key
            return None if key is None else int(key[0])

        try:
            account_id = await self.db.write(write)
        except IntegrityError:  # taken on another process at the same moment
            account_id = None
        if account_id is None:
            raise Conflict("name_taken", f"the name {name} is taken: choose another")
        return Account(id=account_id, name=name, created_ms=now)

    async def log_in(
        self, name: str, password: str, address: str, device: str | None = None
    ) -> Account:
        """The account whose name and password these are; 401 ``login_failed`` with the same
        words and after the same work for an unknown name, a wrong password and a closed
        account; 429 with the seconds to wait while failures slow the name or the address down.

        A browser that has logged in to the account before (its ``device`` cookie) is never
        slowed by failures from elsewhere: its own failures slow only itself."""
        key = name_key(name)
        rates, settings = self.rates, self.settings
        if settings.rate_limits:
            wait = await rates.take(rates.logging_in, address)
            if wait:
                raise rate_limited(wait, "too many logins from your address")
            wait = await rates.slowed("address", address)
            if wait:
                raise rate_limited(wait, "too many failed logins from your address")
        row = None
        if is_name(name):  # anything else is nobody's (and is not looked up)
            row = await self.db.read(lambda session: find_account(session, name))
        known = row is not None and device_knows(device, row.id, row.password_hash)
        slowed = f"{key}/{device}" if known else key
        wait = await rates.slowed("name", slowed)
        if wait:
            raise rate_limited(wait, "too many failed logins to this name")
        stored = None if row is None or row.closed_ms is not None else row.password_hash
        if not await self.hashing.verify(stored, password) or row is None:
            await self._failed("name", slowed, settings.login_failures_per_name)
            if settings.rate_limits:
                await self._failed("address", address, settings.login_failures_per_address)
            raise Unauthorized("login_failed", LOGIN_FAILED)
        # What this browser failed is forgotten (not the failures elsewhere, if it is known).
        await rates.forget_failures("name", slowed)
        if needs_rehash(row.password_hash):  # made with older parameters: today's from now on
            await self._store_password(row.id, await self.hashing.hash(password), keep_date=True)
        return account_of_row(row)

    async def _failed(self, kind: str, key: str, free: int) -> None:
        settings = self.settings
        await self.rates.slow_down(
            kind, key, free, settings.login_failure_seconds, settings.login_slowdown_max_seconds
        )

    async def remember_device(self, account: Account, device: str | None) -> str:
        """The device cookie of a browser that has just logged in to the account."""
        row = await self.db.read(lambda session: session.get(AccountRow, account.id))
        assert row is not None  # just logged in
        return device_cookie(device, row.id, row.password_hash)

    async def change_password(self, account: Account, current: str, new: str) -> None:
        """A new password, if ``current`` is the password now (failures slow this down as
        failed logins do, for the account's sessions alone). The caller ends the account's other
        sessions."""
        key = f"password/{account.id}"
        wait = await self.rates.slowed("name", key)
        if wait:
            raise rate_limited(wait, "too many failed logins to this name")
        row = await self.db.read(lambda session: session.get(AccountRow, account.id))
        if row is None or not await self.hashing.verify(row.password_hash, current):
            await self._failed("name", key, self.settings.login_failures_per_name)
            raise Forbidden("wrong_password", "the current password is not that")
        check_password(new, account.name)
        await self._store_password(account.id, await self.hashing.hash(new))

    async def _store_password(
        self, account_id: int, hashed: str, *, keep_date: bool = False
    ) -> None:
        values: dict[str, object] = {"password_hash": hashed}
        if not keep_date:
            values["password_changed_ms"] = now_ms()
        await self.db.write(
            lambda connection: connection.execute(
                update(_ACCOUNTS).where(_ACCOUNTS.c.id == account_id).values(values)
            )
        )

    async def by_name(self, name: str) -> Account | None:
        """The account of a name (closed ones too), in any case."""
        if not is_name(name):
            return None
        row = await self.db.read(lambda session: find_account(session, name))
        return None if row is None else account_of_row(row)

    async def make_bot(self, account: Account) -> Account:
        """Mark the account as a bot's (409 once it has played a game)."""
        if account.bot:
            return account
        if not await self.db.write(lambda connection: make_bot(connection, account.id)):
            raise Conflict(
                "not_allowed",
                "an account that has played games cannot become a bot: make a new one",
            )
        return Account(
            id=account.id,
            name=account.name,
            created_ms=account.created_ms,
            bot=True,
            moderator=account.moderator,
        )

    async def close(self, account: Account) -> None:
        await self.db.write(
            lambda connection: close_account(connection, account.id, now_ms(), self.closing_steps)
        )

    # -- the games a browser played before -----------------------------------------------------

    async def unclaimed(self, browser: str) -> list[str]:
        """The games this browser played that no account holds yet, newest first."""

        return await self.db.read(partial(unclaimed_games, browser=browser, limit=CLAIM_LIMIT))

    async def claim_games(self, account: Account, browser: str) -> int:
        """Give the account the seats this browser took without one (at most ``CLAIM_LIMIT``
        games): each game changes as any change does (a new version, with the event
        ``claimed``), so every process and socket sees its player's name. How many games."""
        if account.bot:
            raise Conflict("not_allowed", "a bot's account plays through the API only")
        claimed = 0
        for game_id in await self.unclaimed(browser):

            def change(live: LiveGame) -> GameEvent | None:
                sides = [
                    side
                    for side, seat in live.seats.items()
                    if seat.browser_hash == browser
                    and seat.kind == "human"
                    and seat.account_id is None
                ]
                for side in sides:
                    seat = live.seats[side]
                    seat.account_id, seat.account_name = account.id, account.name
                if not sides:
                    return None
                return GameEvent(kind="claimed", side=sides[0].value if len(sides) == 1 else None)

            try:
                if await self.games.change(game_id, change, seats_changed=True) is not None:
                    claimed += 1
            except Refusal as error:  # gone, or changed meanwhile: the others still count
                log.warning("cannot claim game %s: %s", game_id, error.message)
        return claimed
