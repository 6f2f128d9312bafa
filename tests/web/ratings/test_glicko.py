"""Glicko-2 ratings: Glickman's worked example ("Example of the Glicko-2 system") step by step
to its printed precision, and the properties the site relies on."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bluegray.errors import BlueGrayError
from bluegray.web.ratings.glicko import (
    DEFAULT_SETTINGS,
    SCALE,
    Game,
    GameTerms,
    Rating,
    RatingError,
    RatingSettings,
    expected_score,
    improvement,
    is_provisional,
    new_mu,
    new_phi,
    new_volatility,
    periods_between,
    pre_period_phi,
    rate,
    rate_game,
    rating_changes,
    update,
    variance,
    with_inactivity,
)

# The example: a player rated 1500 (RD 200, volatility 0.06) beats a player rated 1400 (RD 30)
# and loses to players rated 1550 (RD 100) and 1700 (RD 300), with tau 0.5.
PLAYER = Rating(1500, 200, 0.06)
GAMES = [Game(Rating(1400, 30), 1), Game(Rating(1550, 100), 0), Game(Rating(1700, 300), 0)]
PAPER = RatingSettings(tau=0.5)

# What the paper prints, step by step.
PRINTED_MU, PRINTED_PHI = 0.0, 1.1513
PRINTED_OPPONENT_MU = (-0.5756, 0.2878, 1.1513)
PRINTED_OPPONENT_PHI = (0.1727, 0.5756, 1.7269)
PRINTED_G = (0.9955, 0.9531, 0.7242)
PRINTED_E = (0.639, 0.432, 0.303)
PRINTED_V = 1.7785
PRINTED_DELTA = -0.4834
PRINTED_SIGMA = 0.05999
PRINTED_PHI_STAR = 1.152862
PRINTED_NEW_PHI = 0.8722
PRINTED_NEW_MU = -0.2069
PRINTED_RATING = 1464.06
PRINTED_DEVIATION = 151.52


def test_the_paper_s_example_computed_exactly_from_its_inputs() -> None:
    steps = update(PLAYER, GAMES, PAPER)
    # Steps 2 and 3: the scale, g and E agree with every printed digit.
    assert round(steps.mu, 4) == PRINTED_MU and round(steps.phi, 4) == PRINTED_PHI
    assert tuple(round(t.opponent_mu, 4) for t in steps.games) == PRINTED_OPPONENT_MU
    assert tuple(round(t.opponent_phi, 4) for t in steps.games) == PRINTED_OPPONENT_PHI
    assert tuple(round(t.g, 4) for t in steps.games) == PRINTED_G
    assert tuple(round(t.expected, 3) for t in steps.games) == PRINTED_E
    # v and Delta: the paper computes them from its rounded g and E (see the next test), so the
    # exact values differ from the printed ones by what that rounding carries, < 0.0006.
    assert steps.variance == pytest.approx(PRINTED_V, abs=0.0006)
    assert steps.improvement == pytest.approx(PRINTED_DELTA, abs=0.0006)
    # The new volatility, 0.0599960: the paper's five printed decimals, 0.05999.
    assert math.floor(steps.volatility * 1e5) / 1e5 == PRINTED_SIGMA
    assert steps.pre_period_phi == pytest.approx(PRINTED_PHI_STAR, abs=1e-5)
    assert round(steps.new_phi, 4) == PRINTED_NEW_PHI
    assert round(steps.new_mu, 4) == PRINTED_NEW_MU
    assert round(steps.after.deviation, 2) == PRINTED_DEVIATION
    # Step 8: the paper multiplies its rounded mu' out (1464.06); unrounded it is 1464.0507.
    assert round(1500 + SCALE * round(steps.new_mu, 4), 2) == PRINTED_RATING
    assert steps.after.rating == pytest.approx(1464.0507, abs=1e-4)
    assert steps.after.volatility == steps.volatility
    assert rate(PLAYER, GAMES, PAPER) == steps.after


def test_each_step_given_the_paper_s_printed_inputs_gives_its_printed_output() -> None:
    """The paper's chain as printed: each step fed the values the paper prints before it (g and
    E come from the exact scale, as the first test checks)."""
    terms = [
        GameTerms(mu_j, phi_j, g_j, e_j, game.score)
        for mu_j, phi_j, g_j, e_j, game in zip(
            PRINTED_OPPONENT_MU, PRINTED_OPPONENT_PHI, PRINTED_G, PRINTED_E, GAMES, strict=True
        )
    ]
    assert round(variance(terms), 4) == PRINTED_V
    assert round(improvement(terms, PRINTED_V), 4) == PRINTED_DELTA
    sigma = new_volatility(0.06, PRINTED_PHI, PRINTED_V, PRINTED_DELTA, 0.5)
    assert math.floor(sigma * 1e5) / 1e5 == PRINTED_SIGMA
    assert round(pre_period_phi(PRINTED_PHI, PRINTED_SIGMA), 6) == PRINTED_PHI_STAR
    assert round(new_phi(PRINTED_PHI_STAR, PRINTED_V), 4) == PRINTED_NEW_PHI
    assert round(1500 + SCALE * PRINTED_NEW_MU, 2) == PRINTED_RATING
    assert round(SCALE * PRINTED_NEW_PHI, 2) == PRINTED_DEVIATION
    # mu' from the exact terms (the paper's own sum carries more digits than its g and E).
    exact = update(PLAYER, GAMES, PAPER)
    assert round(new_mu(0.0, PRINTED_NEW_PHI, exact.games), 4) == PRINTED_NEW_MU


def test_a_player_who_does_not_play_keeps_the_rating_and_grows_the_deviation() -> None:
    player = Rating(1700, 80, 0.06)
    after = rate(player, [], DEFAULT_SETTINGS, periods=1.0)
    assert after.rating == 1700 and after.volatility == 0.06
    assert after.deviation == pytest.approx(math.sqrt(80**2 + (0.06 * SCALE) ** 2))
    assert with_inactivity(player, 0.0) == player
    assert with_inactivity(player, 10.0).deviation > with_inactivity(player, 1.0).deviation
    # Never above the maximum, however long the rest.
    assert with_inactivity(player, 1e9).deviation == DEFAULT_SETTINGS.maximum_deviation


def test_rating_periods_follow_the_clock() -> None:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    assert periods_between(start, start + timedelta(days=1)) == pytest.approx(0.21436)
    assert periods_between(start, start + timedelta(days=100)) == pytest.approx(21.436)
    assert periods_between(start, start - timedelta(days=1)) == 0.0
    # A year away: a settled rating is provisional again.
    settled = Rating(1600, 60, 0.06)
    away = with_inactivity(settled, periods_between(start, start + timedelta(days=365)))
    assert not is_provisional(settled) and is_provisional(away)


def test_a_new_player_is_provisional_until_the_deviation_falls_to_110() -> None:
    assert is_provisional(DEFAULT_SETTINGS.new_player)
    assert is_provisional(Rating(1500, 110.5))
    assert not is_provisional(Rating(1500, 110))
    player, opponent = DEFAULT_SETTINGS.new_player, Rating(1500, 60, 0.06)
    games = 0
    while is_provisional(player):
        player, _ = rate_game(player, opponent, 0.5, player_periods=0.0)
        games += 1
    assert 5 <= games <= 20


def test_expected_scores_of_a_game_add_up_to_one() -> None:
    a, b = Rating(1700, 60), Rating(1500, 200)
    assert expected_score(a, b) + expected_score(b, a) == pytest.approx(1.0)
    assert expected_score(a, a) == pytest.approx(0.5)
    assert expected_score(a, b) > 0.5
    # Uncertainty pulls the expectation towards a half.
    assert expected_score(Rating(1700, 300), b) < expected_score(a, b)


def test_the_preview_shows_what_each_result_would_change() -> None:
    player, opponent = Rating(1500, 80, 0.06), Rating(1650, 80, 0.06)
    changes = rating_changes(player, opponent, periods=0.0)
    assert changes.win > changes.draw > 0 > changes.loss
    # The favourite risks more than it can win.
    favourite = rating_changes(opponent, player, periods=0.0)
    assert favourite.win < -favourite.loss
    after, _ = rate_game(player, opponent, 1.0, player_periods=0.0)
    assert after.rating - player.rating == pytest.approx(changes.win)


def test_a_game_between_equally_certain_players_moves_them_equally_and_oppositely() -> None:
    a, b = Rating(1520, 90, 0.06), Rating(1480, 90, 0.06)
    new_a, new_b = rate_game(a, b, 0.0)
    assert new_a.rating - a.rating == pytest.approx(-(new_b.rating - b.rating))
    assert new_a.deviation == pytest.approx(new_b.deviation)


def test_the_deviation_never_falls_below_the_floor() -> None:
    player, opponent = Rating(1500, 50, 0.06), Rating(1500, 50, 0.06)
    for _ in range(200):
        player, _ = rate_game(player, opponent, 0.5, player_periods=0.0)
    assert player.deviation == DEFAULT_SETTINGS.minimum_deviation


def test_far_apart_ratings_give_finite_results() -> None:
    after, other = rate_game(Rating(300, 50), Rating(9000, 50), 1.0)
    assert all(math.isfinite(x) for x in (after.rating, after.deviation, other.rating))
    assert after.rating > 300 and other.rating < 9000


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: Rating(1500, -3), "deviation"),
        (lambda: Rating(math.nan), "rating"),
        (lambda: Rating(1500, 200, 0), "volatility"),
        (lambda: Game(Rating(), 1.5), "score"),
        (lambda: RatingSettings(tau=0), "tau"),
        (lambda: RatingSettings(minimum_deviation=400), "minimum deviation"),
        (lambda: update(Rating(), []), "at least one game"),
        (lambda: with_inactivity(Rating(), -1), "periods"),
    ],
)
def test_bad_input_is_a_clear_error(make: object, words: str) -> None:
    with pytest.raises(RatingError, match=words) as caught:
        make()  # type: ignore[operator]
    assert isinstance(caught.value, BlueGrayError) and isinstance(caught.value, ValueError)


ratings = st.builds(
    Rating,
    st.floats(500, 2800),
    st.floats(30, 350),
    st.floats(0.03, 0.09),
)
scores = st.sampled_from([0.0, 0.5, 1.0])


@given(ratings, ratings, scores)
def test_a_rating_moves_towards_the_result(player: Rating, opponent: Rating, score: float) -> None:
    steps = update(player, [Game(opponent, score)], periods=0.0)
    change = steps.new_mu - steps.mu  # on Glicko-2's scale, where no rounding blurs a zero
    surprise = score - steps.games[0].expected
    assert change == surprise == 0 or math.copysign(1, change) == math.copysign(1, surprise)
    if score == 1.0:
        assert change > 0
    if score == 0.0:
        assert change < 0


@given(ratings, ratings, scores, st.floats(0, 10))
def test_a_game_narrows_the_deviation(
    player: Rating, opponent: Rating, score: float, periods: float
) -> None:
    steps = update(player, [Game(opponent, score)], periods=periods)
    after = steps.after
    # Narrower than it was grown to for the period, and with no time passing narrower than
    # before (down to the floor).
    assert after.deviation <= max(steps.pre_period_phi * SCALE, DEFAULT_SETTINGS.minimum_deviation)
    no_time = rate(player, [Game(opponent, score)], periods=0.0)
    assert no_time.deviation < player.deviation or (
        no_time.deviation == DEFAULT_SETTINGS.minimum_deviation
    )
    assert 0 < after.volatility <= DEFAULT_SETTINGS.maximum_volatility


@given(ratings, ratings)
def test_a_win_is_worth_more_than_a_draw_and_a_draw_more_than_a_loss(
    player: Rating, opponent: Rating
) -> None:
    changes = rating_changes(player, opponent)
    assert changes.win > changes.draw > changes.loss
    assert expected_score(player, opponent) + expected_score(opponent, player) == pytest.approx(1)
