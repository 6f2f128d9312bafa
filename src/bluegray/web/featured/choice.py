"""Which game is featured: among the rated real-time games being played between two accounts
(``games.rated_now``), the one whose players' average rating is the highest; of two with the
same average, the most recently started; of two started at the same millisecond, the one whose
id sorts last. Read from the database with a total order, so every process chooses the same.

A player's rating is its stored rating in the game's pool now (a new player's if it has none):
a rating changes only when a rated game ends, so this is the rating it started the game with,
unless it has finished another rated game in the same pool since.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from bluegray.web.featured.schemas import FeaturedGame, FeaturedPlayer
from bluegray.web.games.rated_now import RatedGameNow, SeatedAccount, rated_games_now
from bluegray.web.platform.clocks import REAL_TIME
from bluegray.web.platform.db import Database
from bluegray.web.ratings.leaderboards import ratings_in_pools

Ratings = dict[tuple[int, str], float]
"""Each account's rating by ``(account id, pool)``."""


def pool_of(game: RatedGameNow) -> str:
    return f"{game.rules}/{REAL_TIME}"


def choose(games: list[RatedGameNow], ratings: Ratings) -> FeaturedGame | None:
    """The featured game among ``games`` (``None``: there are none)."""

    def average(game: RatedGameNow) -> float:
        pool = pool_of(game)
        return (ratings[game.blue.id, pool] + ratings[game.gray.id, pool]) / 2

    if not games:
        return None
    best = max(games, key=lambda game: (average(game), game.started_ms, game.id))
    pool = pool_of(best)

    def player(account: SeatedAccount) -> FeaturedPlayer:
        rating = round(ratings[account.id, pool])
        return FeaturedPlayer(name=account.name, bot=account.bot, rating=rating)

    return FeaturedGame(
        game_id=best.id,
        rules=best.rules,
        perf=pool,
        started_ms=best.started_ms,
        average=round(average(best), 1),
        blue=player(best.blue),
        gray=player(best.gray),
    )


def featured_in(session: Session) -> FeaturedGame | None:
    """The featured game as the database has it now."""
    games = rated_games_now(session)
    wanted = [(account.id, pool_of(game)) for game in games for account in (game.blue, game.gray)]
    return choose(games, ratings_in_pools(session, wanted))


async def featured_game(db: Database) -> FeaturedGame | None:
    return await db.read(featured_in)
