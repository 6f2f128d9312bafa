"""The statistics of a match between two players A and B: points, Elo difference with a 95%
interval, and the sequential probability ratio test (SPRT). Pure functions of the game results.

Points: a win is 1, a draw 1/2, a loss 0. With Sackson scoring ("in playing a series of games,
it is my practice to count a game won in this manner as half a game", docs/rules-reference.md §4)
a game won by an impasse is half a win: the winner scores 3/4 and the loser 1/4. The two scores
still add up to 1, so the score stays an expected score and converts to Elo like any other; the
winner's margin over the loser is 1/2, half that of a full win.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from bluegray.pieces import Side

Z95: Final = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution."""

SPRT_ALPHA: Final = 0.05
SPRT_BETA: Final = 0.05
REGULARIZATION: Final = 1e-3
"""A pseudo-count given to a win, a draw or a loss never seen, as Fishtest does: without it a
run of wins alone would make every lower expected score infinitely unlikely."""

H1_ACCEPTED: Final = "H1 accepted"
H0_ACCEPTED: Final = "H0 accepted"
INCONCLUSIVE: Final = "inconclusive"


@dataclass(frozen=True)
class GameOutcome:
    """One finished game as the statistics see it: who had Blue, who won, and how."""

    a_blue: bool
    """Whether player A played Blue."""
    winner: Side | None
    reason: str
    """The termination (``center``, ``lead``, ...) or ``max-plies`` for an adjudicated draw."""
    impasse: bool = False
    plies: int = 0

    @property
    def a_won(self) -> bool:
        return self.winner is not None and (self.winner is Side.BLUE) == self.a_blue

    @property
    def b_won(self) -> bool:
        return self.winner is not None and not self.a_won


def points_for_a(game: GameOutcome, *, sackson_scoring: bool = False) -> float:
    """Player A's points for one game: 1, 1/2 or 0, or 3/4 and 1/4 for a game won by an impasse
    under Sackson scoring."""
    if game.winner is None:
        return 0.5
    win = 0.75 if sackson_scoring and game.impasse else 1.0
    return win if game.a_won else 1.0 - win


@dataclass(frozen=True)
class Tally:
    """Wins, draws and losses from one player's point of view."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def mirrored(self) -> Tally:
        """The same games from the opponent's point of view."""
        return Tally(self.losses, self.draws, self.wins)

    def __str__(self) -> str:
        return f"+{self.wins} ={self.draws} -{self.losses}"


def tally(games: Sequence[GameOutcome]) -> Tally:
    """Player A's wins, draws and losses in ``games``."""
    wins = sum(game.a_won for game in games)
    losses = sum(game.b_won for game in games)
    return Tally(wins, len(games) - wins - losses, losses)


def elo_from_score(score: float) -> float:
    """The logistic Elo difference that makes ``score`` (0 to 1) the expected score; infinite
    at 0 and 1."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: no -0.0 at 50%


def score_from_elo(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger (logistic)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference and its 95% interval; infinite where the score is 0% or 100%."""

    elo: float
    low: float
    high: float


def elo_estimate(points: Sequence[float], z: float = Z95) -> EloEstimate:
    """The Elo difference for per-game ``points`` (each 0 to 1), with an interval from the
    normal approximation: mean score ± z standard errors, the standard error being the
    per-game score's standard deviation over √n, each bound converted to Elo (as cutechess
    does). Bounds past 0% or 100% are infinite.

    When every game scored the same (all wins, all losses, all draws) the sample shows no
    spread, and the interval would collapse to a point; then the Wilson score interval is used,
    which is finite on the side the games point away from.
    """
    n = len(points)
    if n == 0:
        return EloEstimate(0.0, -math.inf, math.inf)
    mean = sum(points) / n
    variance = sum((x - mean) ** 2 for x in points) / n
    if variance > 1e-12:
        margin = z * math.sqrt(variance / n)
        low, high = mean - margin, mean + margin
    else:
        low, high = _wilson(mean, n, z)
    return EloEstimate(elo_from_score(mean), elo_from_score(low), elo_from_score(high))


def _wilson(p: float, n: int, z: float) -> tuple[float, float]:
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    margin = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low = 0.0 if p <= 0.0 else max(0.0, centre - margin)  # exact at the ends: no rounding
    high = 1.0 if p >= 1.0 else min(1.0, centre + margin)
    return low, high


# -- SPRT -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SprtResult:
    """The SPRT of H0 "A is ``elo0`` stronger" against H1 "A is ``elo1`` stronger"."""

    elo0: float
    elo1: float
    llr: float
    lower: float
    upper: float
    alpha: float = SPRT_ALPHA
    beta: float = SPRT_BETA

    @property
    def verdict(self) -> str:
        if self.llr >= self.upper:
            return H1_ACCEPTED
        if self.llr <= self.lower:
            return H0_ACCEPTED
        return INCONCLUSIVE

    @property
    def decided(self) -> bool:
        return self.verdict != INCONCLUSIVE


def sprt_bounds(alpha: float = SPRT_ALPHA, beta: float = SPRT_BETA) -> tuple[float, float]:
    """Wald's bounds on the log-likelihood ratio: accept H0 below the first, H1 above the
    second."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def sprt(
    points: Sequence[float],
    elo0: float,
    elo1: float,
    *,
    alpha: float = SPRT_ALPHA,
    beta: float = SPRT_BETA,
) -> SprtResult:
    """The generalized SPRT (Fishtest's ``LLR_logistic``): the log-likelihood ratio of the
    per-game score distributions closest to the observed one (maximum likelihood) whose means
    are the expected scores of ``elo1`` and of ``elo0`` logistic Elo.

    Unlike the normal approximation it stays sensible for lopsided results: ten wins in ten
    games are not proof that A is better by more than ``elo1``."""
    lower, upper = sprt_bounds(alpha, beta)
    llr = log_likelihood_ratio(points, score_from_elo(elo0), score_from_elo(elo1))
    return SprtResult(elo0, elo1, llr, lower, upper, alpha, beta)


def log_likelihood_ratio(points: Sequence[float], s0: float, s1: float) -> float:
    """The LLR of mean score ``s1`` against ``s0`` for the observed per-game ``points``."""
    if not points:
        return 0.0
    counts: dict[float, float] = {value: float(count) for value, count in Counter(points).items()}
    for value in (0.0, 0.5, 1.0):
        counts.setdefault(value, REGULARIZATION)
    total = sum(counts.values())
    pdf = [(value, count / total) for value, count in sorted(counts.items())]
    p0 = _closest_with_mean(pdf, s0)
    p1 = _closest_with_mean(pdf, s1)
    per_game = sum(
        p * (math.log(q1) - math.log(q0)) for (_, p), q0, q1 in zip(pdf, p0, p1, strict=True)
    )
    return len(points) * per_game


def _closest_with_mean(pdf: list[tuple[float, float]], s: float) -> list[float]:
    """The distribution on the same values with mean ``s`` that maximizes the likelihood of
    ``pdf``: p_i / (1 + θ (a_i - s)), θ the root of Σ p_i (a_i - s) / (1 + θ (a_i - s))."""
    values = [value for value, _ in pdf]
    low = -1.0 / (max(values) - s)
    high = 1.0 / (s - min(values))

    def slope(theta: float) -> float:
        return sum(p * (a - s) / (1 + theta * (a - s)) for a, p in pdf)

    for _ in range(200):  # the slope falls from +inf to -inf between the bounds
        middle = (low + high) / 2
        if slope(middle) > 0:
            low = middle
        else:
            high = middle
    theta = (low + high) / 2
    return [p / (1 + theta * (a - s)) for a, p in pdf]


# -- the summary ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchStats:
    """Everything a match report states, from player A's point of view."""

    games: int
    a: Tally
    a_as_blue: Tally
    a_as_gray: Tally
    points: float
    """Player A's points (B has ``games - points``)."""
    elo: EloEstimate
    reasons: dict[str, int]
    average_plies: float
    impasse_wins_a: int
    impasse_wins_b: int
    sackson_scoring: bool
    sprt: SprtResult | None = None
    blue: Tally = field(default_factory=Tally)
    """The results from Blue's point of view, whoever played it: the first-move advantage."""

    @property
    def b(self) -> Tally:
        return self.a.mirrored()

    @property
    def score(self) -> float:
        """A's points per game, 0 to 1 (1/2 before any game)."""
        return self.points / self.games if self.games else 0.5


def summarize(
    games: Sequence[GameOutcome],
    *,
    sackson_scoring: bool = False,
    sprt_elo: tuple[float, float] | None = None,
) -> MatchStats:
    """The statistics of ``games``; with ``sprt_elo`` = (elo0, elo1) the SPRT as well."""
    points = [points_for_a(game, sackson_scoring=sackson_scoring) for game in games]
    blue_games = [game for game in games if game.a_blue]
    gray_games = [game for game in games if not game.a_blue]
    as_blue, as_gray = tally(blue_games), tally(gray_games)
    reasons = Counter(game.reason for game in games)
    plies = sum(game.plies for game in games)
    return MatchStats(
        games=len(games),
        a=tally(games),
        a_as_blue=as_blue,
        a_as_gray=as_gray,
        points=sum(points),
        elo=elo_estimate(points),
        reasons=dict(sorted(reasons.items(), key=lambda item: (-item[1], item[0]))),
        average_plies=plies / len(games) if games else 0.0,
        impasse_wins_a=sum(game.impasse and game.a_won for game in games),
        impasse_wins_b=sum(game.impasse and game.b_won for game in games),
        sackson_scoring=sackson_scoring,
        sprt=None if sprt_elo is None else sprt(points, *sprt_elo),
        blue=Tally(
            as_blue.wins + as_gray.losses,
            as_blue.draws + as_gray.draws,
            as_blue.losses + as_gray.wins,
        ),
    )
