"""The reviews' service: asking for a game's review (finished games only, a few a day per
account and per address, no position on the board of a rated game being played) and reading it
back; the process's runners (``runner``) drive the pending ones."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Final

from bluegray.web.games.fair_play import any_in_rated_play
from bluegray.web.games.live import LiveGame
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.db import Database
from bluegray.web.platform.refusals import Conflict, NotFound, TooMany
from bluegray.web.platform.settings import Settings
from bluegray.web.review import store
from bluegray.web.review.schemas import Review
from bluegray.web.review.view import comments, review

DAY_MS: Final = 86_400_000

NOT_ENDED: Final = "a game is reviewed once it has ended"
NO_MOVES: Final = "the game has no moves to review"
IN_RATED_PLAY: Final = (
    "a position of this record is on the board of a rated game being played: it can be reviewed "
    "once that game ends"
)

Snapshot = Callable[[str], Awaitable[LiveGame]]
"""The games' own reading of a game (``GameService.snapshot``)."""


def address_digest(address: str) -> str:
    return hashlib.sha256(address.encode()).hexdigest()


class Reviews:
    """Asking for reviews and reading them; ``on_request`` wakes this process's runners."""

    def __init__(self, settings: Settings, db: Database, snapshot: Snapshot) -> None:
        self.settings = settings
        self.db = db
        self.snapshot = snapshot
        self.on_request: Callable[[], None] = lambda: None

    async def request(self, game_id: str, account_id: int | None, address: str) -> Review:
        """Ask for the game's review (the one asked for already, if any): 409 for a game not
        ended or without moves, an import with a position in rated play; 429 past the day's
        limit."""
        live = await self.snapshot(game_id)
        if live.status != "finished":
            raise Conflict("not_ended", NOT_ENDED)
        if not live.game.moves:
            raise Conflict("no_moves", NO_MOVES)
        existing = await self.db.read(lambda session: store.read_review(session, game_id))
        if existing is not None and existing.review.status != "failed":
            return review(existing, _moves(live))
        if live.mode == "imported":
            positions = live.game.positions()
            if await any_in_rated_play(self.db, positions):
                raise Conflict("not_allowed", IN_RATED_PLAY)
        digest = address_digest(address)
        await self._within_limits(account_id, digest)
        await self.db.write(
            partial(
                store.add_review,
                game_id=game_id,
                positions=len(live.game.moves) + 1,
                nodes=self.settings.review_nodes,
                now_ms=now_ms(),
                account_id=account_id,
                address_hash=digest,
            )
        )
        self.on_request()
        return await self.view(game_id, live)

    async def _within_limits(self, account_id: int | None, address_hash: str) -> None:
        most = self.settings.reviews_per_day
        since = now_ms() - DAY_MS
        asked = await self.db.read(
            lambda session: store.asked_since(session, account_id, address_hash, since)
        )
        if asked.by_account >= most or asked.by_address >= most:
            who = "this account" if asked.by_account >= most else "this address"
            raise TooMany(
                "review_limit",
                f"{who} has asked for {most} reviews in the last 24 hours, the most a day",
                {"reviews_per_day": most},
            )

    async def view(self, game_id: str, live: LiveGame | None = None) -> Review:
        """The game's review as far as it is analysed (404 if none was asked for)."""
        live = live or await self.snapshot(game_id)
        stored = await self.db.read(lambda session: store.read_review(session, game_id))
        if stored is None:
            raise NotFound("no_review", "no review of this game was asked for")
        return review(stored, _moves(live))

    async def comments(self, game_id: str, live: LiveGame) -> dict[int, str]:
        """The game's finished review as comments of its record (none without one)."""
        stored = await self.db.read(lambda session: store.read_review(session, game_id))
        if stored is None or stored.review.status != "done":
            return {}
        return comments(review(stored, _moves(live)))


def _moves(live: LiveGame) -> list[str]:
    return [str(move) for move in live.game.moves]
