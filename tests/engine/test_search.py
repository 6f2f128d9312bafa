"""The alpha-beta search: legal moves in every rule set, forced wins, limits, determinism."""

from __future__ import annotations

import random
import time

import pytest

from bluegray import Game, Move
from bluegray.engine.evaluation import (
    FEATURES,
    Evaluator,
    expected_score,
    features,
    linear_value,
    weights_for,
)
from bluegray.engine.search import (
    DECIDED,
    SEARCH_ENVIRONMENT,
    Iteration,
    Limits,
    Searcher,
    faded,
    mate_distance,
)
from bluegray.errors import BlueGrayError, GameOverError
from bluegray.rules import PRESETS


@pytest.fixture(autouse=True, params=["compiled", "python"])
def core(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test here runs on both searches: the compiled core and the plain Python one."""
    monkeypatch.setenv(SEARCH_ENVIRONMENT, request.param)
    return str(request.param)


def test_the_environment_chooses_the_search(core: str) -> None:
    assert Searcher(PRESETS["cooper"]).is_compiled == (core == "compiled")
    assert not Searcher(PRESETS["cooper"], compiled=False).is_compiled


def test_an_unknown_search_choice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SEARCH_ENVIRONMENT, "fastest")
    with pytest.raises(BlueGrayError, match="BLUEGRAY_SEARCH='fastest'"):
        Searcher(PRESETS["cooper"])


def search(rules: str, position: str, depth: int) -> tuple[Move, int]:
    game = Game(rules, position)
    result = Searcher(game.rules).search(game.board(), Limits(depth=depth))
    assert result.move in game.legal_moves
    return result.move, result.score


def random_game(rules: str, plies: int, seed: int) -> Game:
    game = Game(rules)
    rng = random.Random(seed)
    for _ in range(plies):
        if game.is_over():
            break
        game.push(rng.choice(game.legal_moves))
    return game


@pytest.mark.parametrize("rules", PRESETS)
def test_the_search_plays_legal_moves_in_every_rule_set(rules: str) -> None:
    searcher = Searcher(PRESETS[rules])
    for seed in range(3):
        game = random_game(rules, 10 + 9 * seed, seed)
        if game.is_over():
            continue
        board = game.board()
        before = (board.hash, board.history[:], board.ply)
        result = searcher.search(board, Limits(nodes=3000))
        assert result.move in game.legal_moves
        assert (board.hash, board.history, board.ply) == before  # the board is left unchanged
        assert result.pv[0] == result.move


def test_a_captain_three_moves_from_the_centre_wins() -> None:
    # Blue's captain on d7 (advancement 14), its own guard on e7 in the way; Gray is far away.
    move, score = search("sackson", "4c4/9/3CG4/9/9/9/9/9/g7g b 0 40", depth=8)
    assert score > DECIDED
    assert mate_distance(score) == 7  # guard aside, then e7, d6, e5: four Blue moves
    assert str(move) in {"e7-f7", "e7-e8", "e7-e6"}


def test_the_lead_rule_is_a_forced_win() -> None:
    # Cooper: Blue's captain on d2 (1) against 0; d3 and d4 are free: two steps give a lead of 3.
    move, score = search("cooper", "4c4/5g3/9/9/9/9/9/3C5/G8 b 0 10", depth=5)
    assert str(move) == "d2-d3"
    assert score > DECIDED


def test_a_multi_jump_that_wins_material_is_preferred() -> None:
    # Free choice between a1xa3xa5 (two pieces) and c1xc3 (one), with the linear evaluation
    # (its material weights are the point here): sackson's network judges this contrived ending
    # otherwise at three plies (it prefers the double capture from four plies on).
    game = Game("sackson", "4c4/9/9/9/9/g8/9/g1g6/G1G1C4 b 0 1")
    linear = Searcher(game.rules, evaluator=Evaluator(game.rules))
    assert str(linear.search(game.board(), Limits(depth=3)).move) == "a1xa3xa5"
    assert str(search("sackson", str(game.position), depth=4)[0]) == "a1xa3xa5"


def test_decided_scores_shrink_with_distance() -> None:
    _, score = search("sackson", "9/9/9/9/9/5c3/9/9/4C3G g 0 40", depth=4)
    assert mate_distance(score) == 1


def test_the_search_respects_a_time_limit() -> None:
    game = random_game("sackson", 20, 5)
    searcher = Searcher(game.rules)
    started = time.perf_counter()
    result = searcher.search(game.board(), Limits(time=0.3))
    elapsed = time.perf_counter() - started
    assert elapsed < 0.6
    assert result.depth >= 2
    assert result.move in game.legal_moves


def test_a_node_limit_makes_the_search_deterministic() -> None:
    game = random_game("cooper", 16, 8)
    first = Searcher(game.rules).search(game.board(), Limits(nodes=20_000))
    second = Searcher(game.rules).search(game.board(), Limits(nodes=20_000))
    assert (first.move, first.score, first.nodes, first.pv) == (
        second.move,
        second.score,
        second.nodes,
        second.pv,
    )


def test_iterations_are_reported_as_depth_grows() -> None:
    game = Game("classic")
    seen: list[Iteration] = []
    Searcher(game.rules).search(game.board(), Limits(depth=4), on_iteration=seen.append)
    assert [iteration.depth for iteration in seen] == [1, 2, 3, 4]
    assert all(iteration.pv for iteration in seen)
    assert seen[-1].nodes >= seen[0].nodes


def test_a_stop_request_ends_the_search() -> None:
    game = Game("sackson")
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 3

    result = Searcher(game.rules).search(game.board(), Limits(), should_stop=stop)
    assert result.move in game.legal_moves


def test_a_finished_position_cannot_be_searched() -> None:
    game = Game("sackson", "9/9/9/9/4c4/9/9/9/G3C4 b 0 18")
    with pytest.raises(GameOverError, match="finished position"):
        Searcher(game.rules).search(game.board(), Limits(depth=2))


def test_root_scores_list_every_move_best_first() -> None:
    game = Game("cooper")
    scored = Searcher(game.rules).root_scores(game.board(), 2)
    assert sorted(str(move) for move, _ in scored) == [str(m) for m in game.legal_moves]
    assert [score for _, score in scored] == sorted((score for _, score in scored), reverse=True)


def test_impasse_by_advancement_counts_as_a_win_under_sackson() -> None:
    # Gray is stalemated after any Blue waiting move? Blue to move, Gray has no soldiers and its
    # captain is blocked by a Blue guard on f8: Blue's captain is ahead, so the impasse is Blue's.
    move, score = search("sackson", "4c4/5G3/9/9/9/9/9/3C5/G8 b 0 30", depth=3)
    assert score > DECIDED
    assert str(move) != "f8-f7"  # keep the blocker


@pytest.mark.parametrize("rules", ["sackson", "super-light", "pow-classic"])
def test_the_fast_evaluation_equals_the_plain_one(rules: str) -> None:
    # Every weight non-zero, so that every feature of the fast version is checked.
    weights = {name: value or 7.0 for name, value in weights_for(PRESETS[rules]).items()}
    evaluator = Evaluator(PRESETS[rules], weights)
    for seed in range(4):
        game = random_game(rules, 60, seed)
        for position in game.positions():
            if position.is_finished():
                continue
            board = position.board()
            # The definition, summed in the features' order: exactly the fast evaluation.
            assert evaluator.evaluate(board) == linear_value(evaluator.vector, board)


@pytest.mark.parametrize("rules", PRESETS)
def test_the_evaluation_is_symmetric(rules: str) -> None:
    # Turned round, with the other side to move, a position is worth the same to the side to
    # move: the evaluation favours neither colour (self-play's colour figures rest on it).
    evaluator = Evaluator(PRESETS[rules])
    for seed in range(6):
        for plies in (10, 30, 60):
            position = random_game(rules, plies, seed).position
            if position.is_finished():
                continue
            assert evaluator.evaluate(position.board()) == evaluator.evaluate(
                position.rotated().board()
            )


def feature(rules: str, position: str, name: str) -> float:
    return features(Game(rules, position).board())[FEATURES.index(name)]


def test_the_siege_counts_soldiers_round_the_blocker() -> None:
    # Gray's guard on d2 stops Blue's captain; Blue has c2 and d3 round it, Gray nobody.
    assert feature("cooper", "4c4/9/9/9/9/9/3G5/2Gg5/4C4 b 0 10", "siege") == 2
    # A Gray defender on d1 takes one back; Gray's own captain has no blocker to siege.
    assert feature("cooper", "4c4/9/9/9/9/9/3G5/2Gg5/3gC4 b 0 10", "siege") == 1
    # Seen from Gray (to move), the same siege counts against it.
    assert feature("cooper", "4c4/9/9/9/9/9/3G5/2Gg5/3gC4 g 0 10", "siege") == -1
    # Blue's own soldier in the way is no siege.
    assert feature("cooper", "4c4/9/9/9/9/9/3G5/2GG5/4C4 b 0 10", "siege") == 0


def test_simplification_grows_as_the_board_empties() -> None:
    # Two soldiers up: with 4 of the 34 left the lead counts 2 * (1 - 4/34).
    value = feature("cooper", "4c4/9/9/9/6g2/9/9/1G1G1G3/4C4 b 0 10", "simplification")
    assert value == pytest.approx(2 * (1 - 4 / 34))
    assert feature("cooper", "4c4/9/9/9/6g2/9/9/1G1G1G3/4C4 g 0 10", "simplification") == (
        pytest.approx(-2 * (1 - 4 / 34))
    )
    # Level material: nothing to gain by trading.
    assert feature("cooper", "4c4/9/9/9/6g2/9/9/1G7/4C4 b 0 10", "simplification") == 0


def test_the_projected_lead_compares_where_the_captains_would_stop() -> None:
    # Gray's guard on d2 stops Blue's captain at once; Gray's road is open to the centre.
    assert feature("cooper", "4c4/9/9/9/9/9/3G5/2Gg5/4C4 b 0 10", "projected-lead") == -1
    assert feature("cooper", "4c4/9/9/9/9/9/3G5/2Gg5/4C4 g 0 10", "projected-lead") == 1
    # A Blue guard on f7 stops Gray's captain after one step: one step apart is no lead.
    assert feature("cooper", "4c4/9/5G3/9/9/9/3G5/2Gg5/4C4 b 0 10", "projected-lead") == 0


def test_expected_score_scale() -> None:
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(10 / 11)
    assert expected_score(-400) == pytest.approx(1 / 11)


def test_contempt_scores_a_draw_below_zero_for_the_side_that_searches() -> None:
    # Cooper's rules, one ply from the no-progress limit, and no move that makes progress: every
    # move ends the game in an impasse, which these rules score as a draw.
    game = Game("cooper", "ggggcgggg/9/9/9/9/9/9/3G5/G3C4 b 99 80")
    assert Searcher(game.rules).search(game.board(), Limits(depth=3)).score == 0
    disliking = Searcher(game.rules, contempt=40)
    assert disliking.search(game.board(), Limits(depth=3)).score == -40


def test_the_weaker_levels_root_scores_count_contempt_for_the_side_to_move() -> None:
    # The same dead position with either side to move: every quiet move ends in a drawn impasse,
    # which the side that chooses dislikes by the contempt, Gray as much as Blue.
    for position, quiet in (
        ("ggggcgggg/9/9/9/9/9/9/3G5/G3C4 b 99 80", "d2-d3"),
        ("g3c4/3g5/9/9/9/9/9/9/GGGGCGGGG g 99 80", "d8-d7"),
    ):
        game = Game("cooper", position)
        scores = dict(Searcher(game.rules, contempt=40).root_scores(game.board(), 1))
        assert scores[Move.parse(quiet)] == -40, position


def test_fade_shrinks_a_value_towards_a_draw_near_the_no_progress_limit() -> None:
    assert faded(300, 39, 100, 60) == 300  # 61 plies left: not yet
    assert faded(300, 40, 100, 60) == 300  # 60 left: the whole value still
    assert faded(300, 70, 100, 60) == 150
    assert faded(-300, 70, 100, 60) == -150
    assert faded(300, 100, 100, 60) == 0
    assert faded(300, 130, 100, 60) == 0  # a set-up position may start past the limit


def test_fade_lowers_a_static_lead_only_where_an_impasse_is_a_draw() -> None:
    # Blue is two steps ahead on its path and both captains are blocked; 30 plies are left
    # before the no-progress limit, and no capture can reset the count within three plies.
    placement = "g8/gg1g5/1Cg6/9/9/7c1/6GGG/9/9"
    cooper = Game("cooper", f"{placement} b 70 202")
    plain = Searcher(cooper.rules).search(cooper.board(), Limits(depth=3)).score
    fading = Searcher(cooper.rules, fade=60).search(cooper.board(), Limits(depth=3)).score
    assert plain > 0
    assert 0 < fading < plain
    # Under Sackson's rules an impasse is decided by advancement: fading would be wrong there.
    sackson = Game("sackson", f"{placement} b 70 202")
    assert Searcher(sackson.rules, fade=60).fade == 0
    limits = Limits(depth=3)
    with_fade = Searcher(sackson.rules, fade=60).search(sackson.board(), limits).score
    assert with_fade == Searcher(sackson.rules).search(sackson.board(), limits).score


# A game of `super` that the top level (Blue) drew against MCTS: its last move let MCTS repeat
# the position a third time, though the search rated the move well above a draw. Its table kept
# scores from the searches of earlier moves, made when that repetition was not yet one.
LET_MCTS_REPEAT = (
    "h2-h3 f8-f7 h3-i3 f7-f6 d2-d3 e9-f8 e1-d2 f8-f7 d3-c3 f6-f5 d2-d3 f7-f6 d3-d4 f6-g5 d4-c5 "
    "g5-h6 c5-b4 h6-h5 i3-h3 a8-a7 b4-b5 h5-i5 b5-a5 i5-h4 i2-i3 f5-f4 a5-b6 b8-b7 e2-e3 e8-e7 "
    "h1-h2 f4-g4 f2-f3 b9-b8 h3-g3 c8-c7 g3xg5 d8-d7 h2-h3 d9-d8 i1-i2 h8-h7 f1-f2 i8-i7 g2-g3 "
    "h7-g7 g1-g2 g7-h7 g5-f5 g8-g7 c3-b3 g7-g6 i2-h2 i7-i6 d1-e1 i6-i5 b3-b4 a9-a8 b4-b5 g6-g5 "
    "f5xh5 i5xg5 b5-a5 h7-i7 a2-a3 i7-i6 f3-f4 i6-i5 a5-a6 a7xa5 b6-a7 a5-b5 f2-f3 b5-c5 f4-g4 "
    "g5-f5 g4-f4 f5-g5 f4-g4 g5-f5 g4-f4 f5-g5"
)


def lets_the_opponent_draw(game: Game, move: Move) -> bool:
    """Whether the opponent can answer ``move`` by ending the game in a draw."""
    after = game.copy()
    after.push(move)
    for reply in after.legal_moves:
        after.push(reply)
        outcome = after.outcome()
        after.pop()
        if outcome is not None and outcome.winner is None:
            return True
    return False


@pytest.mark.slow
def test_scores_from_earlier_moves_do_not_hide_a_repetition(core: str) -> None:
    # One searcher for the whole game, as a player keeps it; each of Blue's last moves is
    # searched again. A move rated above a draw must not let the opponent draw at once.
    game = Game("super")
    searcher = Searcher(game.rules)
    nodes = 100_000 if core == "compiled" else 20_000
    for index, text in enumerate(LET_MCTS_REPEAT.split()[:-1]):
        if index % 2 == 0 and index >= 50:
            result = searcher.search(game.board(), Limits(nodes=nodes))
            if result.score > 0:
                assert not lets_the_opponent_draw(game, result.move), (index, str(result.move))
        game.push(text)
