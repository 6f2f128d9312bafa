"""Glicko-2 ratings, as Mark Glickman's "Example of the Glicko-2 system" describes them: a rating,
its deviation and its volatility, updated after a rating period of games. Pure functions over
frozen values, with no database: the web stores a player's `Rating` and calls `rate_game`.

Glickman's worked example, a player rated 1500 (deviation 200, volatility 0.06) who beats a
player rated 1400 and loses to players rated 1550 and 1700 in one rating period:

>>> player = Rating(1500, 200, 0.06)
>>> games = [Game(Rating(1400, 30), 1), Game(Rating(1550, 100), 0), Game(Rating(1700, 300), 0)]
>>> after = rate(player, games, RatingSettings(tau=0.5))
>>> round(after.rating, 2), round(after.deviation, 2), round(after.volatility, 6)
(1464.05, 151.52, 0.059996)

(The paper prints 1464.06: it multiplies the rounded -0.2069 out, see `RatingUpdate`.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bluegray.errors import BlueGrayError

SCALE = 173.7178
"""The factor between the ratings people see and Glicko-2's own scale (400 / ln 10)."""

CENTRE = 1500.0
"""The rating that is 0 on Glicko-2's own scale."""

CONVERGENCE = 0.000001
"""Glickman's tolerance epsilon for the new volatility's iteration (step 5)."""

MOST_ITERATIONS = 200
"""A bound on step 5's iteration, which converges in a handful (Illinois' method)."""

SECONDS_A_DAY = 86_400.0


class RatingError(BlueGrayError):
    """A rating, game result or setting that Glicko-2 cannot take: the message names it."""


def _check(name: str, value: float, *, low: float = 0.0, strict: bool = True) -> None:
    if not math.isfinite(value) or value < low or (strict and value == low):
        bound = f"above {low:g}" if strict else f"at least {low:g}"
        raise RatingError(f"{name} must be a number {bound}, not {value!r}")


@dataclass(frozen=True)
class Rating:
    """A player's Glicko-2 rating as people see it: the rating, its deviation (the rating is
    within two deviations of the player's strength with 95% confidence) and its volatility (how
    erratic the player's results have been)."""

    rating: float = CENTRE
    deviation: float = 350.0
    volatility: float = 0.06

    def __post_init__(self) -> None:
        if not math.isfinite(self.rating):
            raise RatingError(f"a rating must be a finite number, not {self.rating!r}")
        _check("a rating deviation", self.deviation)
        _check("a volatility", self.volatility)

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% interval of the player's strength: two deviations either side."""
        return self.rating - 2 * self.deviation, self.rating + 2 * self.deviation


@dataclass(frozen=True)
class RatingSettings:
    """The rating system's constants. Glickman's defaults for a new player (1500, 350, 0.06) and
    for tau; the deviation's floor, the volatility's ceiling and the rating periods a day are
    lichess's, so that ratings keep moving for players who play a lot."""

    tau: float = 0.5
    """The system constant tau: how fast volatility may change (Glickman: 0.3 to 1.2)."""
    new_player: Rating = Rating()
    """The rating of a player who has not played a rated game."""
    provisional_deviation: float = 110.0
    """A rating whose deviation is above this is provisional (marked "?", as lichess does)."""
    minimum_deviation: float = 45.0
    """The deviation never falls below this, however many games are played."""
    maximum_deviation: float = 350.0
    """The deviation never grows above this, however long a player rests."""
    maximum_volatility: float = 0.1
    """The volatility never grows above this."""
    periods_per_day: float = 0.21436
    """Rating periods a day, for the growth of the deviation with time (`periods_between`)."""

    def __post_init__(self) -> None:
        _check("tau", self.tau)
        _check("the provisional deviation", self.provisional_deviation)
        _check("the minimum deviation", self.minimum_deviation)
        _check("the maximum deviation", self.maximum_deviation)
        _check("the maximum volatility", self.maximum_volatility)
        _check("the rating periods a day", self.periods_per_day)
        if self.minimum_deviation > self.maximum_deviation:
            raise RatingError(
                f"the minimum deviation {self.minimum_deviation:g} is above the maximum "
                f"{self.maximum_deviation:g}"
            )


DEFAULT_SETTINGS = RatingSettings()


@dataclass(frozen=True)
class Game:
    """A rated game from one player's side: the opponent's rating before the rating period, and
    the player's score (1 a win, 0.5 a draw, 0 a loss)."""

    opponent: Rating
    score: float

    def __post_init__(self) -> None:
        if not (math.isfinite(self.score) and 0.0 <= self.score <= 1.0):
            raise RatingError(f"a game's score must be between 0 and 1, not {self.score!r}")


@dataclass(frozen=True)
class GameTerms:
    """One game's terms in Glickman's steps 2 and 3, on Glicko-2's scale."""

    opponent_mu: float
    opponent_phi: float
    g: float
    """g(phi_j): how much the opponent's uncertainty weakens what the game tells."""
    expected: float
    """E(mu, mu_j, phi_j): the player's expected score in this game."""
    score: float


@dataclass(frozen=True)
class RatingUpdate:
    """Every quantity of Glickman's eight steps for one player and one rating period, in the
    paper's names, on Glicko-2's scale, and the rating that results (``after``: the new rating
    is ``CENTRE + SCALE * new_mu`` unrounded, where the paper prints the product of its rounded
    mu')."""

    before: Rating
    mu: float
    phi: float
    games: tuple[GameTerms, ...]
    variance: float
    """v: the estimated variance of the rating from the games' outcomes alone."""
    improvement: float
    """Delta: the estimated improvement, from the outcomes against what was expected."""
    volatility: float
    """sigma': the new volatility."""
    pre_period_phi: float
    """phi*: the deviation grown by the rating periods since the last update (step 6)."""
    new_phi: float
    new_mu: float
    after: Rating


def _mu(rating: float) -> float:
    return (rating - CENTRE) / SCALE


def g(phi: float) -> float:
    """Step 3's g(phi): how much an opponent's uncertainty phi weakens what a game tells."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _logistic(x: float) -> float:
    # Written both ways so that exp never overflows for a large difference of ratings.
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def expected(mu: float, opponent_mu: float, opponent_phi: float) -> float:
    """Step 3's E(mu, mu_j, phi_j): the expected score against an opponent, on Glicko-2's scale."""
    return _logistic(g(opponent_phi) * (mu - opponent_mu))


def variance(games: Sequence[GameTerms]) -> float:
    """Step 3's v: the estimated variance of the rating from the games' outcomes alone
    (infinite when the games tell nothing, against opponents thousands of points away)."""
    information = sum(t.g * t.g * t.expected * (1.0 - t.expected) for t in games)
    return 1.0 / information if information > 0 else math.inf


def surprise(games: Sequence[GameTerms]) -> float:
    """The sum of g(phi_j)(s_j - E_j): the games' scores against what was expected, weighed
    (steps 4 and 7)."""
    return sum(t.g * (t.score - t.expected) for t in games)


def improvement(games: Sequence[GameTerms], v: float) -> float:
    """Step 4's Delta: the estimated improvement in rating, v times the weighed surprise."""
    return v * surprise(games) if math.isfinite(v) else 0.0


def new_volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5's sigma': the root of Glickman's f by the Illinois algorithm, to within epsilon."""
    if not math.isfinite(v):
        return sigma
    a = math.log(sigma * sigma)
    phi2 = phi * phi
    delta2 = delta * delta

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (tau * tau)

    low = a
    if delta2 > phi2 + v:
        high = math.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    for _ in range(MOST_ITERATIONS):
        if abs(high - low) <= CONVERGENCE:
            return math.exp(low / 2.0)
        c = low + (low - high) * f_low / (f_high - f_low)
        f_c = f(c)
        if f_c * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = c, f_c
    raise RatingError(f"the new volatility did not converge (from volatility {sigma!r})")


def pre_period_phi(phi: float, sigma: float, periods: float = 1.0) -> float:
    """Step 6's phi*: the deviation grown by ``periods`` rating periods at volatility sigma."""
    return math.sqrt(phi * phi + periods * sigma * sigma)


def new_phi(phi_star: float, v: float) -> float:
    """Step 7's phi': the pre-period deviation narrowed by what the games told."""
    return 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)


def new_mu(mu: float, phi: float, games: Sequence[GameTerms]) -> float:
    """Step 7's mu': the rating moved by the new deviation squared times the weighed surprise."""
    return mu + phi * phi * surprise(games)


def update(
    player: Rating,
    games: Sequence[Game],
    settings: RatingSettings = DEFAULT_SETTINGS,
    periods: float = 1.0,
) -> RatingUpdate:
    """Glickman's steps for ``player`` after a rating period of ``games`` (at least one), with
    every intermediate quantity. ``periods`` is the number of rating periods since the player's
    last update (1 in the paper; a fraction when every game is its own period, as on the site:
    see `periods_between`). The settings' bounds apply to the result: the volatility's ceiling,
    the deviation's floor and ceiling."""
    if not games:
        raise RatingError("a rating period to rate needs at least one game")
    _check("the rating periods", periods, strict=False)
    mu, phi = _mu(player.rating), player.deviation / SCALE
    terms = tuple(
        GameTerms(
            opponent_mu=_mu(game.opponent.rating),
            opponent_phi=game.opponent.deviation / SCALE,
            g=g(game.opponent.deviation / SCALE),
            expected=expected(mu, _mu(game.opponent.rating), game.opponent.deviation / SCALE),
            score=game.score,
        )
        for game in games
    )
    v = variance(terms)
    delta = improvement(terms, v)
    sigma = min(
        new_volatility(player.volatility, phi, v, delta, settings.tau), settings.maximum_volatility
    )
    phi_star = min(pre_period_phi(phi, sigma, periods), settings.maximum_deviation / SCALE)
    phi_after = new_phi(phi_star, v)
    mu_after = new_mu(mu, phi_after, terms)
    deviation = min(max(phi_after * SCALE, settings.minimum_deviation), settings.maximum_deviation)
    return RatingUpdate(
        before=player,
        mu=mu,
        phi=phi,
        games=terms,
        variance=v,
        improvement=delta,
        volatility=sigma,
        pre_period_phi=phi_star,
        new_phi=phi_after,
        new_mu=mu_after,
        after=Rating(CENTRE + SCALE * mu_after, deviation, sigma),
    )


def rate(
    player: Rating,
    games: Sequence[Game],
    settings: RatingSettings = DEFAULT_SETTINGS,
    periods: float = 1.0,
) -> Rating:
    """``player``'s rating after a rating period of ``games``; with no games, only the deviation
    grows (`with_inactivity`)."""
    if not games:
        return with_inactivity(player, periods, settings)
    return update(player, games, settings, periods).after


def rate_game(
    player: Rating,
    opponent: Rating,
    score: float,
    settings: RatingSettings = DEFAULT_SETTINGS,
    *,
    player_periods: float = 1.0,
    opponent_periods: float = 1.0,
) -> tuple[Rating, Rating]:
    """Both players' ratings after one game that is its own rating period (as on lichess):
    ``score`` is the player's (1, 0.5 or 0), each side rated against the other's rating before
    the game. The periods are each player's rating periods since their previous rated game."""
    return (
        rate(player, [Game(opponent, score)], settings, player_periods),
        rate(opponent, [Game(player, 1.0 - score)], settings, opponent_periods),
    )


def with_inactivity(
    player: Rating, periods: float, settings: RatingSettings = DEFAULT_SETTINGS
) -> Rating:
    """``player`` after ``periods`` rating periods without a game (Glickman's step 6 for a
    player who does not compete): the same rating and volatility, a wider deviation, up to the
    maximum."""
    _check("the rating periods", periods, strict=False)
    grown = pre_period_phi(player.deviation / SCALE, player.volatility, periods) * SCALE
    deviation = max(player.deviation, min(grown, settings.maximum_deviation))
    return Rating(player.rating, deviation, player.volatility)


def periods_between(
    start: datetime, end: datetime, settings: RatingSettings = DEFAULT_SETTINGS
) -> float:
    """The rating periods from ``start`` (say a player's last rated game) to ``end`` (never
    negative; both aware or both naive)."""
    seconds = (end - start).total_seconds()
    return max(seconds, 0.0) / SECONDS_A_DAY * settings.periods_per_day


def expected_score(player: Rating, opponent: Rating) -> float:
    """The player's expected score against ``opponent`` (a win counting 1, a draw 0.5), both
    ratings' uncertainty counted as Glickman's prediction of a game's outcome counts them: the
    two expected scores of a game add up to 1."""
    phi = math.hypot(player.deviation, opponent.deviation) / SCALE
    return _logistic(g(phi) * (_mu(player.rating) - _mu(opponent.rating)))


@dataclass(frozen=True)
class RatingChanges:
    """What one game would change a player's rating by, for each result (rating points)."""

    win: float
    draw: float
    loss: float


def rating_changes(
    player: Rating,
    opponent: Rating,
    settings: RatingSettings = DEFAULT_SETTINGS,
    periods: float = 1.0,
) -> RatingChanges:
    """``player``'s rating change if they win, draw or lose against ``opponent`` as rated now
    (``periods`` since the player's previous rated game). The web's preview before a rated game
    is not this but ``ratings.preview_standings``, which runs the function that rates the game."""

    def change(score: float) -> float:
        return rate(player, [Game(opponent, score)], settings, periods).rating - player.rating

    return RatingChanges(win=change(1.0), draw=change(0.5), loss=change(0.0))


def is_provisional(rating: Rating, settings: RatingSettings = DEFAULT_SETTINGS) -> bool:
    """Whether the rating is still provisional: its deviation is above the settings' threshold
    (a new player's rating is; a dozen games against established players settle it)."""
    return rating.deviation > settings.provisional_deviation
