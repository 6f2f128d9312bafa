"""Match statistics: points and Sackson scoring, the Elo interval, and the SPRT, against values
worked out by hand."""

from __future__ import annotations

import math

import pytest

from bluegray.engine.stats import (
    H0_ACCEPTED,
    H1_ACCEPTED,
    INCONCLUSIVE,
    Z95,
    GameOutcome,
    Tally,
    elo_estimate,
    elo_from_score,
    log_likelihood_ratio,
    points_for_a,
    score_from_elo,
    sprt,
    sprt_bounds,
    summarize,
)
from bluegray.pieces import Side

BLUE, GRAY = Side.BLUE, Side.GRAY


def test_elo_from_score() -> None:
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_from_score(0.25) == pytest.approx(-400 * math.log10(3))
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.0) == -math.inf
    assert score_from_elo(elo_from_score(0.6)) == pytest.approx(0.6)


def test_elo_interval_for_60_percent_over_100_games() -> None:
    # 60 wins, 40 losses: mean 0.6, per-game variance 0.6 * 0.4 = 0.24, standard error
    # sqrt(0.24 / 100) = 0.0489898; the 95% bounds are 0.6 -+ 1.96 * 0.0489898.
    estimate = elo_estimate([1.0] * 60 + [0.0] * 40)
    assert estimate.elo == pytest.approx(400 * math.log10(0.6 / 0.4))  # 70.44
    margin = Z95 * math.sqrt(0.24 / 100)
    assert estimate.low == pytest.approx(400 * math.log10((0.6 - margin) / (0.4 + margin)))
    assert estimate.high == pytest.approx(400 * math.log10((0.6 + margin) / (0.4 - margin)))
    assert estimate.elo == pytest.approx(70.44, abs=0.01)
    assert estimate.low == pytest.approx(2.77, abs=0.01)
    assert estimate.high == pytest.approx(143.91, abs=0.01)


def test_draws_narrow_the_interval() -> None:
    # 20 wins, 60 draws, 20 losses: variance (20 * 0.25 + 20 * 0.25) / 100 = 0.1.
    estimate = elo_estimate([1.0] * 20 + [0.5] * 60 + [0.0] * 20)
    margin = Z95 * math.sqrt(0.1 / 100)
    assert estimate.elo == 0.0
    assert estimate.high == pytest.approx(elo_from_score(0.5 + margin))
    assert estimate.low == pytest.approx(-estimate.high)
    wide = elo_estimate([1.0] * 50 + [0.0] * 50)
    assert wide.high > estimate.high


def test_a_clean_sweep_has_one_finite_bound() -> None:
    n = 100
    sweep = elo_estimate([1.0] * n)
    assert sweep.elo == math.inf and sweep.high == math.inf
    # Wilson's lower bound at p = 1 is n / (n + z²).
    assert sweep.low == pytest.approx(elo_from_score(n / (n + Z95**2)))
    assert 500 < sweep.low < 600
    shutout = elo_estimate([0.0] * n)
    assert shutout.elo == -math.inf and shutout.low == -math.inf
    assert shutout.high == pytest.approx(-sweep.low)


def test_all_draws_and_no_games() -> None:
    draws = elo_estimate([0.5] * 10)
    assert draws.elo == 0.0 and draws.low < 0 < draws.high and math.isfinite(draws.high)
    empty = elo_estimate([])
    assert (empty.elo, empty.low, empty.high) == (0.0, -math.inf, math.inf)


def test_interval_bounds_past_100_percent_are_infinite() -> None:
    estimate = elo_estimate([1.0] * 9 + [0.0])
    assert math.isfinite(estimate.elo) and math.isfinite(estimate.low)
    assert estimate.high == math.inf


# -- SPRT -----------------------------------------------------------------------------------------


def test_sprt_bounds() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert upper == pytest.approx(math.log(19))
    assert lower == pytest.approx(-math.log(19))


def test_llr_of_wins_and_losses_is_the_binomial_one() -> None:
    # With no draws the distribution on {0, 1} with mean s is fixed: the LLR is binomial
    # (up to the tiny pseudo-count of draws).
    s0, s1 = score_from_elo(0), score_from_elo(10)
    wins, losses = 60, 40
    expected = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    points = [1.0] * wins + [0.0] * losses
    assert log_likelihood_ratio(points, s0, s1) == pytest.approx(expected, rel=1e-3)
    assert log_likelihood_ratio(points, s1, s0) == pytest.approx(-expected, rel=1e-3)


def test_lopsided_result_accepts_h1() -> None:
    result = sprt([1.0] * 30 + [0.5] * 5 + [0.0] * 5, 0, 50)
    assert result.llr > result.upper
    assert result.verdict == H1_ACCEPTED and result.decided


def test_even_result_accepts_h0() -> None:
    result = sprt([1.0] * 150 + [0.5] * 100 + [0.0] * 150, 0, 50)
    assert result.llr < result.lower
    assert result.verdict == H0_ACCEPTED


def test_a_short_run_of_wins_is_not_proof() -> None:
    # Ten wins are about as likely at 50% as at 51.4% (ln(0.514 / 0.5) per game): the
    # pseudo-counts keep the LLR near the binomial 0.28 instead of infinite.
    result = sprt([1.0] * 10, 0, 10)
    assert result.llr == pytest.approx(10 * math.log(score_from_elo(10) / 0.5), rel=0.05)
    assert result.verdict == INCONCLUSIVE
    assert sprt([], 0, 10).llr == 0.0


# -- points and the summary -----------------------------------------------------------------------


def outcome(
    a_blue: bool, winner: Side | None, reason: str, impasse: bool = False, plies: int = 10
) -> GameOutcome:
    return GameOutcome(a_blue, winner, reason, impasse, plies)


def test_points_and_sackson_scoring() -> None:
    centre_win = outcome(True, BLUE, "center")
    impasse_win = outcome(True, BLUE, "no-progress", impasse=True)
    impasse_loss = outcome(False, BLUE, "stalemate", impasse=True)
    impasse_draw = outcome(False, None, "repetition", impasse=True)
    plain_loss = outcome(False, BLUE, "lead")
    for game, plain, sackson in (
        (centre_win, 1.0, 1.0),
        (impasse_win, 1.0, 0.75),
        (impasse_loss, 0.0, 0.25),
        (impasse_draw, 0.5, 0.5),
        (plain_loss, 0.0, 0.0),
    ):
        assert points_for_a(game) == plain
        assert points_for_a(game, sackson_scoring=True) == sackson


def test_summary_counts() -> None:
    games = [
        outcome(True, BLUE, "center", plies=40),  # A wins as Blue
        outcome(False, BLUE, "lead", plies=20),  # A loses as Gray
        outcome(True, None, "repetition", impasse=True, plies=60),  # draw
        outcome(False, GRAY, "no-progress", impasse=True, plies=120),  # A wins by impasse
        outcome(True, GRAY, "stalemate", impasse=True, plies=80),  # A loses by impasse
        outcome(False, None, "max-plies", plies=600),
    ]
    stats = summarize(games)
    assert stats.games == 6
    assert stats.a == Tally(2, 2, 2) and stats.b == Tally(2, 2, 2)
    assert stats.a_as_blue == Tally(1, 1, 1)
    assert stats.a_as_gray == Tally(1, 1, 1)
    assert stats.blue == Tally(2, 2, 2)
    assert stats.points == 3.0 and stats.score == 0.5
    assert stats.impasse_wins_a == 1 and stats.impasse_wins_b == 1
    assert sum(stats.reasons.values()) == 6
    assert stats.average_plies == pytest.approx(920 / 6)
    assert stats.sprt is None
    assert summarize(games, sprt_elo=(0, 10)).sprt is not None


def test_sackson_scoring_changes_only_impasse_wins() -> None:
    games = [
        outcome(True, BLUE, "center"),
        outcome(False, GRAY, "no-progress", impasse=True),  # A wins by impasse: 1 or 3/4
        outcome(True, None, "repetition", impasse=True),
        outcome(False, BLUE, "lead"),
    ]
    plain = summarize(games)
    sackson = summarize(games, sackson_scoring=True)
    assert plain.a == sackson.a  # wins, draws and losses are the same games
    assert plain.points == 2.5
    assert sackson.points == 2.25
    assert sackson.elo.elo < plain.elo.elo
    without_impasse_wins = [game for game in games if not (game.impasse and game.winner)]
    assert (
        summarize(without_impasse_wins).points
        == summarize(without_impasse_wins, sackson_scoring=True).points
    )


def test_summary_of_no_games() -> None:
    stats = summarize([])
    assert stats.games == 0 and stats.score == 0.5 and stats.average_plies == 0.0
