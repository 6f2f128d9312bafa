"""The time manager: how a clock is shared out among the moves (soft and hard times), when the
iterative deepening starts another depth, and a search that keeps to both times."""

from __future__ import annotations

import time

import pytest

from bluegray import Game, Move
from bluegray.engine.limits import Iteration, Limits
from bluegray.engine.player import InvalidPlayerError
from bluegray.engine.players import SearchPlayer, player_from_spec
from bluegray.engine.search import Searcher
from bluegray.engine.time_manager import (
    DEFAULT_OVERHEAD,
    GAME_PLIES,
    HARD_SHARE,
    LAST_ITERATION_START,
    MAX_EXTENSION,
    MIN_MOVE_SECONDS,
    Clock,
    InvalidClockError,
    MoveTime,
    TimeControl,
    allocate,
    expected_plies_left,
    extension,
    fixed_share,
    starts_next_depth,
)
from bluegray.rules import PRESETS, RuleSet

SACKSON = PRESETS["sackson"]


def test_more_time_on_the_clock_never_gives_a_move_less() -> None:
    previous = MoveTime(0.0, 0.0)
    for tenths in range(0, 6000, 7):
        move_time = allocate(Clock(tenths / 10), ply=40, rules=SACKSON)
        assert move_time.soft >= previous.soft and move_time.hard >= previous.hard
        previous = move_time
    assert previous.soft > 0.2  # ten minutes: a good share of a second a move


@pytest.mark.parametrize("increment", [0.0, 0.5, 3.0])
@pytest.mark.parametrize("moves_to_go", [None, 1, 2, 40])
def test_neither_time_exceeds_the_hard_limit_nor_the_safety_margin(
    increment: float, moves_to_go: int | None
) -> None:
    for remaining in (0.0, 0.04, 0.2, 1.0, 7.5, 60.0, 600.0):
        for ply in (0, 100, 400, 1000):
            clock = Clock(remaining, increment, moves_to_go)
            move_time = allocate(clock, ply=ply, rules=SACKSON)
            assert MIN_MOVE_SECONDS <= move_time.soft <= move_time.hard
            share = 1.0 if moves_to_go == 1 else HARD_SHARE
            margin = (remaining - DEFAULT_OVERHEAD) * share
            assert move_time.hard <= max(margin, MIN_MOVE_SECONDS) + 1e-12


def test_the_increment_is_spent() -> None:
    without = allocate(Clock(60.0), ply=50, rules=SACKSON)
    with_increment = allocate(Clock(60.0, 2.0), ply=50, rules=SACKSON)
    assert with_increment.soft == pytest.approx(without.soft + 2.0)
    # A clock that holds less than the increment can only spend what it holds.
    low = allocate(Clock(0.5, 2.0), ply=50, rules=SACKSON)
    assert low.hard <= (0.5 - DEFAULT_OVERHEAD) * HARD_SHARE


def test_moves_to_go_are_honoured() -> None:
    ten = allocate(Clock(10.0, moves_to_go=10), ply=0, rules=SACKSON)  # a margin for each
    assert ten.soft == pytest.approx((10.0 - 10 * DEFAULT_OVERHEAD) / 10)
    last = allocate(Clock(10.0, moves_to_go=1), ply=0, rules=SACKSON)
    assert last.hard == pytest.approx(10.0 - DEFAULT_OVERHEAD)  # all but the margin
    assert allocate(Clock(10.0, moves_to_go=40)).soft < ten.soft


@pytest.mark.parametrize("remaining", [-5.0, 0.0, 0.001, 0.03])
def test_a_move_gets_the_floor_however_short_the_clock(remaining: float) -> None:
    assert allocate(Clock(remaining), ply=10) == MoveTime(MIN_MOVE_SECONDS, MIN_MOVE_SECONDS)


def test_the_expected_length_comes_from_the_rule_set_and_the_ply() -> None:
    length = GAME_PLIES["sackson"]
    assert expected_plies_left(0, SACKSON) == length
    assert expected_plies_left(length // 3, SACKSON) < length  # fewer plies to come...
    assert expected_plies_left(1000, SACKSON) > expected_plies_left(length, SACKSON)  # ...a tail
    short = PRESETS["super-light"]
    assert expected_plies_left(0, short) < expected_plies_left(0, SACKSON)
    assert allocate(Clock(60.0), rules=short).soft > allocate(Clock(60.0), rules=SACKSON).soft
    custom = RuleSet.parse("cooper impasse-plies=50")
    assert custom.name is None and expected_plies_left(0, custom) > 0


def test_a_game_on_the_clock_never_runs_it_out_even_at_the_length_cap() -> None:
    """Every move overrunning its soft time by half (a search that often stretches its time)
    plus half a margin outside the search, for 500 moves a side (the match runner's cap): the
    clock holds."""
    for name in PRESETS:
        left = 60.0
        for ply in range(0, 1000, 2):
            move_time = allocate(Clock(left), ply=ply, rules=PRESETS[name])
            left -= min(move_time.soft * 1.5, move_time.hard) + DEFAULT_OVERHEAD * 0.5
            assert left > 0, f"{name}: flagged at ply {ply}"


def _iteration(depth: int, score: int, move: str) -> Iteration:
    return Iteration(depth, score, 1000 * depth, 0.01 * depth, (Move.parse(move),))


def test_a_settled_search_does_not_stretch_its_time() -> None:
    settled = [_iteration(depth, 20, "e2-e3") for depth in range(1, 6)]
    assert extension(settled) == 1.0
    assert extension(settled[:1]) == 1.0


def test_a_changing_best_move_and_a_dropping_score_stretch_the_time() -> None:
    changed = [_iteration(1, 20, "e2-e3"), _iteration(2, 20, "e2-e3"), _iteration(3, 20, "d2-d3")]
    twice = [_iteration(1, 20, "e2-e3"), _iteration(2, 20, "d2-d3"), _iteration(3, 20, "e2-e3")]
    dropped = [_iteration(1, 20, "e2-e3"), _iteration(2, -40, "e2-e3")]
    assert 1.0 < extension(changed) < extension(twice) <= MAX_EXTENSION
    assert extension(dropped) > 1.0
    crisis = [
        _iteration(1, 300, "e2-e3"),
        _iteration(2, 200, "d2-d3"),
        _iteration(3, -400, "c2-c3"),
    ]
    assert extension(crisis) == MAX_EXTENSION
    risen = [_iteration(1, -40, "e2-e3"), _iteration(2, 20, "e2-e3")]
    assert extension(risen) == 1.0


def test_the_next_depth_starts_within_the_aim_stretched_never_past_the_hard_time() -> None:
    settled = [_iteration(1, 20, "e2-e3"), _iteration(2, 20, "e2-e3")]
    changed = [_iteration(1, 20, "e2-e3"), _iteration(2, 20, "d2-d3")]
    limits = Limits(time=3.0, aim=1.0)
    point = LAST_ITERATION_START * 1.0
    assert starts_next_depth(point - 0.01, limits, settled)
    assert not starts_next_depth(point + 0.01, limits, settled)
    assert starts_next_depth(point + 0.01, limits, changed)  # the best move changed: more time
    stretched = LAST_ITERATION_START * extension(changed)
    assert not starts_next_depth(stretched + 0.01, limits, changed)
    crisis = [
        _iteration(1, 300, "e2-e3"),
        _iteration(2, 200, "d2-d3"),
        _iteration(3, -400, "b2-b3"),
    ]
    tight = Limits(time=1.2, aim=1.0)  # the hard time caps the stretch
    assert not starts_next_depth(LAST_ITERATION_START * 1.2 + 0.01, tight, crisis)
    # A fixed time a move (no aim): the rule of old, 45% of it, whatever the iterations say.
    fixed = Limits(time=1.0)
    assert starts_next_depth(0.44, fixed, changed) and not starts_next_depth(0.46, fixed, changed)
    assert starts_next_depth(1e9, Limits(depth=4), changed)  # no time limit
    # A player's own share (level:N,start=SHARE, to measure the engine's 45%).
    own = Limits(time=1.0, start_share=0.3)
    assert starts_next_depth(0.29, own, changed) and not starts_next_depth(0.31, own, changed)


def test_a_level_measures_another_share_or_the_rule_before_the_time_manager(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    player = player_from_spec("level:8,start=0.3,timeman=off", seed=1)
    assert isinstance(player, SearchPlayer)
    assert player.limits(Limits(time=0.2)) == Limits(time=0.2, start_share=0.3)
    asked: list[Limits | None] = []

    def choose(game: Game, limits: Limits | None = None) -> Move:
        asked.append(limits)
        return game.legal_moves[0]

    monkeypatch.setattr(player, "choose", choose)
    player.choose_on_clock(Game("cooper"), Clock(60.0, 1.0), Clock(60.0, 1.0))
    assert asked == [Limits(time=2.0, aim=2.0)]  # a thirtieth of the time left
    plain = player_from_spec("level:8", seed=1)
    assert isinstance(plain, SearchPlayer) and plain.limits(Limits(time=0.2)) == Limits(time=0.2)
    # Without the time manager a move on a clock takes a thirtieth of the time left, whatever
    # the increment (engine 3's web AI), the same soft and hard: no search stretches it.
    clock = Clock(60.0, 1.0)
    assert fixed_share(clock) == MoveTime(2.0, 2.0)
    assert fixed_share(Clock(0.0)) == MoveTime(MIN_MOVE_SECONDS, MIN_MOVE_SECONDS)
    assert allocate(clock, ply=0, rules=RuleSet.parse("cooper")).soft != 2.0
    for spec, message in (
        ("level:8,start=0", "start must be a share of the move's time greater than 0"),
        ("level:8,start=1.5", "and at most 1"),
        ("level:8,start=x", "not 'x'"),
        ("level:8,timeman=maybe", "timeman must be 'on' or 'off'"),
    ):
        with pytest.raises(InvalidPlayerError, match=message):
            player_from_spec(spec, seed=1)


def test_a_search_aims_at_its_soft_time_and_stops_by_its_hard_time() -> None:
    game = Game("cooper")
    game.push_all(["d2-d3", "f8-f7"])
    searcher = Searcher(game.rules, compiled=False)
    started = time.perf_counter()
    result = searcher.search(game.board(), Limits(time=0.4, aim=0.02))
    elapsed = time.perf_counter() - started
    assert elapsed < 0.4 + 0.25  # the hard time, and what a loaded machine adds
    # It stopped near its aim, far from the hard time, unless the best move kept changing.
    if result.iterations and extension(result.iterations[:-1]) == 1.0:
        assert result.iterations[-1].seconds < 0.4
    hard = searcher.search(game.board(), Limits(time=0.15, aim=0.15))
    assert hard.seconds < 0.15 + 0.25


def test_time_controls_parse_minutes_and_increment() -> None:
    assert TimeControl.parse("1+0") == TimeControl(1.0, 0.0)
    assert TimeControl.parse(" 0.5+0.25 ").seconds == 30.0
    assert TimeControl.parse("3") == TimeControl(3.0)
    assert str(TimeControl.parse("3+2")) == "3+2"
    for bad in ("", "1+", "+1", "-1+0", "0+1", "a+b", "1+0+0"):
        with pytest.raises(InvalidClockError, match="invalid clock"):
            TimeControl.parse(bad)
