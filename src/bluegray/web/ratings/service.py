"""Rated games: the time class and rating pool of a game, the Glicko-2 update of both players'
ratings when a rated game ends, and the voiding of an account's rated results when a moderator
closes it (which games may be rated is the games' own rule: ``games.rated_games``).

A rating pool is a preset rule set and a time class (``sackson/real-time``); each account has at
most one rating per pool (``ratings``) and a history row per rated game (``rating_history``).
A rated game's end updates both ratings in the transaction that stores the end, at its version
(``Games.change`` calls ``rate_ended`` there): whichever process ends the game, the ratings
change exactly once, or not at all if the end is not stored. Each game is its own rating period
(``glicko.rate_game``), each player's deviation first grown by the time since their previous
rated game in the pool, as lichess does.

Voiding recomputes. Closing an account marks every rated game it played as voided, then plays
every pool it played in again from the start, in the order the games ended, leaving the voided
games out: every other player's rating (and each history row's before and after) is then what
it would be had those games never been rated, and later games are consistent with earlier ones.
Reverting only the voided games' changes would leave the opponents' later games computed from
ratings that no longer hold. The cost is one pass over the pool's history (rare: moderators
close accounts by hand).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import Connection, Row, delete, select, update

from bluegray.pieces import Side
from bluegray.rules import RuleSet
from bluegray.web.accounts.players import lock_accounts
from bluegray.web.accounts.schemas import RatingPreview, SidePreview
from bluegray.web.games.live import LiveGame
from bluegray.web.games.schemas import RatingChange, RatingResult
from bluegray.web.platform.clocks import TIME_CLASSES, TimeClass
from bluegray.web.platform.db import Database, upsert
from bluegray.web.platform.models import table_of
from bluegray.web.ratings.glicko import DEFAULT_SETTINGS, Rating, RatingSettings, is_provisional
from bluegray.web.ratings.glicko import periods_between as glicko_periods
from bluegray.web.ratings.glicko import rate_game as glicko_rate_game
from bluegray.web.ratings.rows import RatingHistoryRow, RatingRow

_RATINGS: Final = table_of(RatingRow)
_HISTORY: Final = table_of(RatingHistoryRow)


def pool_name(rules: RuleSet, time_class: str) -> str | None:
    """The rating pool of a game (``sackson/real-time``), or ``None``: a custom rule set has
    none."""
    name = rules.name
    return None if name is None else f"{name}/{time_class}"


def split_pool(pool: str) -> tuple[str, TimeClass] | None:
    """The rule set's name and time class of a pool's name (``None``: not a pool)."""
    rules, _, kind = pool.partition("/")
    for known in TIME_CLASSES:
        if kind == known and rules:
            return rules, known
    return None


# -- rating at the end of a game -------------------------------------------------------------------


@dataclass(frozen=True)
class Standing:
    """A player's rating in a pool as stored: the rating, when its last game ended and how many
    games it counts."""

    rating: Rating
    rated_ms: int | None
    games: int


NEW_STANDING: Final = Standing(DEFAULT_SETTINGS.new_player, None, 0)


def periods_since(standing: Standing, end_ms: int, settings: RatingSettings) -> float:
    """The rating periods since the player's previous rated game in the pool (one for a first
    game: its deviation is the new player's, the most there is)."""
    if standing.rated_ms is None:
        return 1.0
    return glicko_periods(_time(standing.rated_ms), _time(end_ms), settings)


def _time(ms: int) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC)


def rate_pair(
    blue: Standing, gray: Standing, blue_score: float, end_ms: int, settings: RatingSettings
) -> tuple[Rating, Rating]:
    """Blue's and Gray's ratings after a game that ended at ``end_ms`` with Blue's score."""
    return glicko_rate_game(
        blue.rating,
        gray.rating,
        blue_score,
        settings,
        player_periods=periods_since(blue, end_ms, settings),
        opponent_periods=periods_since(gray, end_ms, settings),
    )


def blue_score(live: LiveGame) -> float | None:
    """Blue's score in a finished game (``None``: not finished by a result)."""
    outcome = live.outcome()
    if live.status != "finished" or outcome is None:
        return None
    if outcome.winner is None:
        return 0.5
    return 1.0 if outcome.winner is Side.BLUE else 0.0


def _standings(connection: Connection, pool: str, ids: Iterable[int]) -> dict[int, Standing]:
    rows = connection.execute(
        select(_RATINGS).where(_RATINGS.c.pool == pool, _RATINGS.c.account_id.in_(list(ids)))
    )
    return {
        row.account_id: Standing(
            Rating(row.rating, row.deviation, row.volatility), row.rated_ms, row.games
        )
        for row in rows
    }


def _store_standing(connection: Connection, account_id: int, pool: str, standing: Standing) -> None:
    assert standing.rated_ms is not None
    upsert(
        connection,
        _RATINGS,
        {
            "account_id": account_id,
            "pool": pool,
            "rating": standing.rating.rating,
            "deviation": standing.rating.deviation,
            "volatility": standing.rating.volatility,
            "games": standing.games,
            "rated_ms": standing.rated_ms,
        },
    )


def _history_values(
    game_id: str,
    account_id: int,
    pool: str,
    side: Side,
    score: float,
    end_ms: int,
    before: Rating,
    after: Rating,
) -> dict[str, object]:
    return {
        "game_id": game_id,
        "account_id": account_id,
        "pool": pool,
        "side": side.value,
        "score": score,
        "ended_ms": end_ms,
        "rating_before": before.rating,
        "deviation_before": before.deviation,
        "volatility_before": before.volatility,
        "rating_after": after.rating,
        "deviation_after": after.deviation,
        "volatility_after": after.volatility,
        "voided": False,
    }


def rate_ended(
    connection: Connection, live: LiveGame, settings: RatingSettings = DEFAULT_SETTINGS
) -> None:
    """If ``live`` is a rated game that has just finished, update both players' ratings and
    write their history (in the caller's transaction, the one that stores the end), and set
    ``live.rating_result``. An aborted game, one not rated, or one with a closed account,
    changes nothing."""
    score = blue_score(live)
    pool = pool_name(live.rules, live.time_class())
    if not live.rated or score is None or pool is None or live.game.ply < 2:
        return  # a game that ends before both sides have moved is never rated
    blue_id = live.seats[Side.BLUE].account_id
    gray_id = live.seats[Side.GRAY].account_id
    if blue_id is None or gray_id is None or blue_id == gray_id:
        return  # refused when the seats were taken; never rated otherwise
    end_ms = live.updated_ms
    if lock_accounts(connection, (blue_id, gray_id)):
        return  # a player's account was closed during the game: its results are void
    known = _standings(connection, pool, (blue_id, gray_id))
    blue = known.get(blue_id, NEW_STANDING)
    gray = known.get(gray_id, NEW_STANDING)
    blue_after, gray_after = rate_pair(blue, gray, score, end_ms, settings)
    rows = []
    for account_id, side, before, after, side_score in (
        (blue_id, Side.BLUE, blue, blue_after, score),
        (gray_id, Side.GRAY, gray, gray_after, 1.0 - score),
    ):
        _store_standing(connection, account_id, pool, Standing(after, end_ms, before.games + 1))
        rows.append(
            _history_values(
                live.id, account_id, pool, side, side_score, end_ms, before.rating, after
            )
        )
    connection.execute(_HISTORY.insert(), rows)
    result = RatingResult(
        pool=pool,
        blue=_change(blue.rating, blue_after, settings),
        gray=_change(gray.rating, gray_after, settings),
    )
    live.rating_result = result.model_dump_json()


def _change(before: Rating, after: Rating, settings: RatingSettings) -> RatingChange:
    return RatingChange(
        rating=round(before.rating, 2),
        deviation=round(before.deviation, 2),
        provisional=is_provisional(before, settings),
        change=round(after.rating - before.rating, 2),
    )


# -- the preview before a game ends --------------------------------------------------------------


def preview_standings(
    pool: str, blue: Standing, gray: Standing, now_ms: int, settings: RatingSettings
) -> RatingPreview:
    """What a game ending now would do to each rating, for each result: ``rate_pair``, the
    function that rates the game at its end, run for a Blue win, a draw and a Blue loss."""
    after = {score: rate_pair(blue, gray, score, now_ms, settings) for score in (1.0, 0.5, 0.0)}

    def side(standing: Standing, index: int, win: float, loss: float) -> SidePreview:
        before = standing.rating.rating

        def change(score: float) -> float:
            return round(after[score][index].rating - before, 2)

        return SidePreview(
            rating=round(before, 2),
            deviation=round(standing.rating.deviation, 2),
            provisional=is_provisional(standing.rating, settings),
            win=change(win),
            draw=change(0.5),
            loss=change(loss),
        )

    return RatingPreview(pool=pool, blue=side(blue, 0, 1.0, 0.0), gray=side(gray, 1, 0.0, 1.0))


def rating_preview(
    connection: Connection,
    pool: str,
    blue_id: int,
    gray_id: int,
    now_ms: int,
    settings: RatingSettings = DEFAULT_SETTINGS,
) -> RatingPreview:
    """The preview of a rated game in ``pool`` between two accounts, from their ratings now."""
    known = _standings(connection, pool, (blue_id, gray_id))
    return preview_standings(
        pool,
        known.get(blue_id, NEW_STANDING),
        known.get(gray_id, NEW_STANDING),
        now_ms,
        settings,
    )


async def read_game_preview(db: Database, live: LiveGame, now_ms: int) -> RatingPreview | None:
    """``game_preview`` read from the database ``db``: what each result of the rated game
    ``live`` would change each rating by; ``None`` for a game not rated between two accounts."""
    return await db.read(lambda session: game_preview(session.connection(), live, now_ms))


def game_preview(connection: Connection, live: LiveGame, now_ms: int) -> RatingPreview | None:
    """The preview of a rated game (``None``: not rated, or a seat without an account)."""
    pool = pool_name(live.rules, live.time_class())
    blue_id = live.seats[Side.BLUE].account_id
    gray_id = live.seats[Side.GRAY].account_id
    if not live.rated or pool is None or blue_id is None or gray_id is None:
        return None
    return rating_preview(connection, pool, blue_id, gray_id, now_ms)


# -- voiding an account's results ------------------------------------------------------------------


def void_rated_results(connection: Connection, account_id: int, now: int) -> None:
    """A closing step (``endings.CLOSING_STEPS``): every rated game the account played no
    longer counts, and every pool it played in is computed again without them."""
    pools = connection.execute(
        select(_HISTORY.c.pool)
        .where(_HISTORY.c.account_id == account_id, _HISTORY.c.voided.is_(False))
        .distinct()
    ).scalars()
    for pool in sorted(pools):
        games = select(_HISTORY.c.game_id).where(
            _HISTORY.c.account_id == account_id, _HISTORY.c.pool == pool
        )
        connection.execute(
            update(_HISTORY).where(_HISTORY.c.game_id.in_(games)).values(voided=True)
        )
        recompute_pool(connection, pool)
    connection.execute(delete(_RATINGS).where(_RATINGS.c.account_id == account_id))


def recompute_pool(
    connection: Connection, pool: str, settings: RatingSettings = DEFAULT_SETTINGS
) -> None:
    """Play a pool's rated games again from the start, in the order they ended, without the
    voided ones: every history row's before and after, and every rating, as they would be."""
    players = connection.execute(
        select(_HISTORY.c.account_id).where(_HISTORY.c.pool == pool).distinct()
    ).scalars()
    lock_accounts(connection, players)
    rows = connection.execute(
        select(_HISTORY)
        .where(_HISTORY.c.pool == pool)
        .order_by(_HISTORY.c.ended_ms, _HISTORY.c.game_id, _HISTORY.c.side)
    ).all()
    everyone = {row.account_id for row in rows}
    games: dict[str, list[Row[Any]]] = {}
    for row in rows:
        games.setdefault(row.game_id, []).append(row)
    standings: dict[int, Standing] = {}
    for game_id, pair in games.items():
        blue_row, gray_row = _blue_gray(pair)
        if blue_row is None or gray_row is None or blue_row.voided or gray_row.voided:
            continue
        end_ms = blue_row.ended_ms
        blue = standings.get(blue_row.account_id, NEW_STANDING)
        gray = standings.get(gray_row.account_id, NEW_STANDING)
        blue_after, gray_after = rate_pair(blue, gray, blue_row.score, end_ms, settings)
        for row, before, after in ((blue_row, blue, blue_after), (gray_row, gray, gray_after)):
            standings[row.account_id] = Standing(after, end_ms, before.games + 1)
            connection.execute(
                update(_HISTORY)
                .where(_HISTORY.c.game_id == game_id, _HISTORY.c.account_id == row.account_id)
                .values(
                    rating_before=before.rating.rating,
                    deviation_before=before.rating.deviation,
                    volatility_before=before.rating.volatility,
                    rating_after=after.rating,
                    deviation_after=after.deviation,
                    volatility_after=after.volatility,
                )
            )
    for account_id, standing in standings.items():
        _store_standing(connection, account_id, pool, standing)
    gone = everyone - set(standings)
    if gone:
        connection.execute(
            delete(_RATINGS).where(_RATINGS.c.pool == pool, _RATINGS.c.account_id.in_(gone))
        )


def _blue_gray(pair: list[Row[Any]]) -> tuple[Row[Any] | None, Row[Any] | None]:
    blue = next((row for row in pair if row.side == "blue"), None)
    gray = next((row for row in pair if row.side == "gray"), None)
    return blue, gray
