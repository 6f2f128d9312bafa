"""The explorer's service: which games count, a game's end counted in the transaction that
stores it, the fill from the games already stored and the shipped books, and the moves from a
position as the API shows them.

Counted: a finished rated game between two people (two accounts, neither a bot's), under a
preset rule set, whose end changed both ratings. Not counted: an aborted game, an unrated one,
a game against the AI, an imported record, a hot-seat game. Each counted game adds its first
``MAX_PLIES`` moves once: the game's id is marked in the transaction that adds them, so a game's
end stored by a web process or a worker, or found again by the fill, adds nothing twice.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Connection, Engine, Row
from sqlalchemy.orm import Session

from bluegray.errors import BlueGrayError
from bluegray.game import Game
from bluegray.pieces import Side
from bluegray.rules import PRESETS, RuleSet
from bluegray.web.explorer import store
from bluegray.web.explorer.book import Book, read_book, shipped_books, shipped_path
from bluegray.web.explorer.positions import (
    MAX_PLIES,
    CountedGame,
    MoveTally,
    Tally,
    position_key,
    preset_name,
)
from bluegray.web.explorer.schemas import ExplorerAnswer, ExplorerMove, SourceCounts
from bluegray.web.games.ended_games import EndedGame, finished_rated_games
from bluegray.web.games.fair_play import board_and_turn
from bluegray.web.games.live import LiveGame
from bluegray.web.platform.clocks import now_ms
from bluegray.web.platform.db import Database, hold_lock
from bluegray.web.platform.refusals import Invalid

log = logging.getLogger("bluegray.web")

FILL_PAGE: Final = 500
"""Games counted per transaction by the fill."""


# -- which games count ---------------------------------------------------------------------------


def _people(accounts: Sequence[tuple[str, int | None, bool]]) -> bool:
    """Whether the seats (kind, account, bot) are two different people's accounts."""
    ids = {account for kind, account, bot in accounts if kind == "human" and not bot}
    return len(accounts) == 2 and None not in ids and len(ids) == 2


def _average_rating(rating_result: str | None) -> float | None:
    """The players' average rating before the game, from its rating result (``None``: the game
    changed no rating, so it is not counted)."""
    if rating_result is None:
        return None
    try:
        body = json.loads(rating_result)
        return (float(body["blue"]["rating"]) + float(body["gray"]["rating"])) / 2
    except (ValueError, KeyError, TypeError):
        return None


def counted_live(live: LiveGame) -> CountedGame | None:
    """What the explorer counts of a game that has just ended (``None``: nothing)."""
    rules = preset_name(live.rules)
    outcome = live.outcome()
    if (
        rules is None
        or not live.rated
        or live.mode != "friend"
        or live.status != "finished"
        or outcome is None
        or str(live.game.start) != str(Game(live.rules).start)
    ):
        return None
    seats = [(seat.kind, seat.account_id, seat.account_bot) for seat in live.seats.values()]
    rating = _average_rating(live.rating_result)
    if not _people(seats) or rating is None:
        return None
    score = 0.5 if outcome.winner is None else float(outcome.winner is Side.BLUE)
    return CountedGame(rules, [str(move) for move in live.game.moves[:MAX_PLIES]], score, rating)


def counted_ended(ended: EndedGame) -> CountedGame | None:
    """What the explorer counts of a stored finished rated game (``None``: nothing); the same
    games as ``counted_live``."""
    try:
        rules = RuleSet.parse(ended.rules)
    except BlueGrayError:
        return None
    name = preset_name(rules)
    seats = [(seat.kind, seat.account_id, seat.account_bot) for seat in ended.seats.values()]
    rating = _average_rating(ended.rating_result)
    if (
        name is None
        or ended.mode != "friend"
        or ended.start != str(Game(rules).start)
        or not _people(seats)
        or rating is None
    ):
        return None
    score = 0.5 if ended.winner is None else float(ended.winner == Side.BLUE.value)
    return CountedGame(name, ended.moves, score, rating)


# -- counting ------------------------------------------------------------------------------------


def _tally(games: Sequence[CountedGame]) -> Tally:
    tally = Tally()
    for game in games:
        try:
            tally.add(game)
        except BlueGrayError:
            continue  # a stored game the rules core no longer reads: left out
    return tally


def explorer_ended(connection: Connection, live: LiveGame) -> None:
    """The end-hook: add a game that has just ended, if it counts, in the storing transaction
    (after the ratings' hook, whose rating result it reads)."""
    counted = counted_live(live)
    if counted is None or not store.mark_counted(connection, [live.id], live.updated_ms):
        return
    store.add_tally(connection, "site", _tally([counted]))


def fill_site(engine: Engine, on_page: Callable[[int], None] | None = None) -> int:
    """Count the stored games that count and are not counted yet, a page per transaction;
    how many were added. Run twice, it adds nothing the second time."""
    after = ""
    added = 0
    while True:
        with Session(engine) as session:
            page = finished_rated_games(session, after, FILL_PAGE, MAX_PLIES)
        if not page:
            return added
        after = page[-1].id
        counted = {game.id: game for game in page if counted_ended(game) is not None}
        with engine.begin() as connection:
            fresh = store.mark_counted(connection, list(counted), now_ms())
            games = [counted_ended(counted[game_id]) for game_id in sorted(fresh)]
            store.add_tally(connection, "site", _tally([g for g in games if g is not None]))
        added += len(fresh)
        if on_page is not None:
            on_page(added)


BOOKS_LOCK: Final = int.from_bytes(b"bg-books", "big")
"""The database's lock held while a book is loaded: processes loading the shipped books at
once (servers and upgrades starting together) load each once, one after the other."""


class BookLoadStoppedError(BlueGrayError):
    """A book's load given up midway, as its process stops (nothing of it was written)."""


def _loaded(engine: Engine, book: Book) -> bool:
    with engine.connect() as connection:
        return store.book_digest(connection, book.rules) == book.digest


def _go_on(book: Book, stop: threading.Event | None) -> None:
    if stop is not None and stop.is_set():
        raise BookLoadStoppedError(f"the book of {book.rules} was not loaded: stopped")


def load_book(
    engine: Engine, book: Book, *, again: bool = False, stop: threading.Event | None = None
) -> bool:
    """Load ``book`` into the ``book`` source in the place of its rule set's book, unless the
    same file is loaded already (``again``: even so); whether it was loaded. Holds the books'
    lock while it counts the book's games and writes them, so a process loading the same file
    meanwhile waits, then finds it loaded without counting them again (on SQLite, whose lock is
    the file's write lock, other writers wait for the count too: about a CPU second, once a
    book file). ``stop`` set: ``BookLoadStoppedError`` before the count and between two batches
    of rows, with nothing written."""
    if not again and _loaded(engine, book):
        return False
    with engine.connect() as connection:
        hold_lock(connection, BOOKS_LOCK)
        if not again and store.book_digest(connection, book.rules) == book.digest:
            connection.rollback()
            return False
        _go_on(book, stop)
        tally = _tally(book.games)
        go_on = functools.partial(_go_on, book, stop)  # when stopped, the close rolls back
        store.replace_book(connection, book.rules, book.digest, tally, now_ms(), go_on)
        connection.commit()
    return True


def load_shipped_books(engine: Engine, stop: threading.Event | None = None) -> list[str]:
    """Load every shipped book not loaded yet (or changed since); the rule sets loaded.
    ``stop``: as ``load_book``."""
    return [
        rules
        for rules in shipped_books()
        if load_book(engine, read_book(shipped_path(rules)), stop=stop)
    ]


class ShippedBooks:
    """The shipped engine books, loaded by a web process as it starts (``explorer_books_at_start``),
    so that a fresh install's explorer has them: in a thread beside the serving, a few CPU seconds
    the first time, nothing after (a book loaded already is known by its digest). A process that
    stops meanwhile gives up the book it is loading (the next start loads it)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._stop = threading.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._stop.clear()
        self._task = asyncio.create_task(self._load(), name="bluegray-explorer-books")

    async def _load(self) -> None:
        try:
            loaded = await asyncio.to_thread(load_shipped_books, self.db.engine, self._stop)
        except BookLoadStoppedError as stopped:
            log.info("%s", stopped)
            return
        except Exception as error:  # the database out, or full
            log.warning("the explorer's books were not loaded here: %r", error)
            return
        if loaded:
            log.info("the explorer loaded the books of %s", ", ".join(loaded))

    async def stop(self) -> None:
        """Give up a load under way, and wait for its thread (a batch of rows at most)."""
        self._stop.set()
        if self._task is not None:
            await self._task


@dataclass(frozen=True)
class Filled:
    games: int
    books: list[str]


def fill(engine: Engine, *, games: bool = True) -> Filled:
    """What ``bluegray explorer fill`` does: the shipped books, then (``games``) the stored games
    not counted yet. ``bluegray db upgrade`` counts the games only when it has just created the
    explorer's tables: later games are counted as they end."""
    books = load_shipped_books(engine)
    return Filled(fill_site(engine) if games else 0, books)


# -- the moves from a position -------------------------------------------------------------------


def _counts(row: Any) -> SourceCounts | None:
    """A row's (or a sum's) counts as shown (``None``: no games)."""
    if row is None:
        return None
    return SourceCounts(
        games=row.games,
        blue_wins=row.blue_wins,
        draws=row.draws,
        gray_wins=row.gray_wins,
        blue_score=(row.blue_wins + row.draws / 2) / row.games,
        average_rating=round(row.rating_sum / row.rated_games) if row.rated_games else None,
    )


def _total(rows: Sequence[Row[Any]]) -> SourceCounts | None:
    total = MoveTally()  # the rows' counts summed
    for row in rows:
        for name in ("games", "blue_wins", "draws", "gray_wins", "rated_games", "rating_sum"):
            setattr(total, name, getattr(total, name) + getattr(row, name))
    return _counts(total) if total.games else None


def answer(rules: str, position: str, rows: Sequence[Row[Any]]) -> ExplorerAnswer:
    """The API's answer from the rows of a position."""
    by_move: dict[str, dict[str, Row[Any]]] = {}
    for row in rows:
        by_move.setdefault(row.move, {})[row.source] = row
    moves = [
        ExplorerMove(move=move, site=_counts(found.get("site")), book=_counts(found.get("book")))
        for move, found in by_move.items()
    ]
    moves.sort(
        key=lambda item: (
            -(item.site.games if item.site else 0),
            -(item.book.games if item.book else 0),
            item.move,
        )
    )
    return ExplorerAnswer(
        rules=rules,
        position=position,
        site=_total([row for row in rows if row.source == "site"]),
        book=_total([row for row in rows if row.source == "book"]),
        moves=moves,
    )


def parse_query(rules: str, position: str | None) -> tuple[str, Game]:
    """The preset rule set and the position the query names (default: the rule set's start);
    ``Invalid`` (422) for another rule set or a position it does not allow."""
    if rules not in PRESETS:
        raise Invalid(
            "invalid_rules",
            f"the explorer knows the preset rule sets only ({', '.join(PRESETS)}), not {rules!r}",
        )
    try:
        game = Game(PRESETS[rules], position)
    except BlueGrayError as error:
        raise Invalid("invalid_position", str(error)) from None
    return rules, game


class Explorer:
    """The moves from a position, read on the database's reader threads."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def moves(self, rules: str, game: Game) -> ExplorerAnswer:
        """Every source's moves from ``game``'s position under the preset ``rules``."""
        return await self.moves_at(
            rules, position_key(game.position), board_and_turn(game.position)
        )

    async def moves_at(self, rules: str, key: int, position: str) -> ExplorerAnswer:
        """Every source's moves from the position of ``key`` (whose text is ``position``)."""
        rows = await self.db.read(lambda session: store.moves_from(session, rules, key))
        return answer(rules, position, rows)
