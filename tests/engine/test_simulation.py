"""The public simulation API against the plain library: random games through both compared ply
by ply in all fourteen rule sets, and the action masks and observation planes against
``bluegray.rl``'s ``ActionGame`` and ``observe``."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

pytest.importorskip("numba")  # the compiled engine: skipped without numba (in CI, a failure)

from bluegray import PRESETS, Game, Move, Position, bitboard
from bluegray.engine import readiness
from bluegray.engine.compiled import mcts as compiled_mcts
from bluegray.engine.compiled import search as compiled_search
from bluegray.engine.encoding import NUM_ACTIONS
from bluegray.engine.openings import opening_book
from bluegray.engine.records import MoveRecord
from bluegray.engine.simulation import (
    Simulation,
    SimulationError,
    action_masks,
    moves_digest,
    notation_order,
    notation_ranks,
    observations,
    random_playouts,
    random_walk,
)
from bluegray.position import move_from_raw
from bluegray.rl import ActionGame, IllegalActionError, observe

GAMES_PER_RULE_SET = int(os.environ.get("BLUEGRAY_DIFFERENTIAL_GAMES", "250"))
"""Random games per rule set in the differential test (14 rule sets: 3,500 games, about
700,000 plies, by default; set the variable for a longer run)."""


def sparse_start(rules: str) -> str:
    """The rule set's start with only two soldiers a side left: random play there repeats
    positions and runs out the no-progress count, which full boards seldom do."""
    text = str(Position.start(rules))
    placement, rest = text.split(" ", 1)
    kept = {"blue": 0, "gray": 0}
    ranks = []
    for rank in placement.split("/"):
        cells: list[str] = []
        for char in rank:
            if char.isdigit():
                cells.extend("1" * int(char))
            elif char in "cC":
                cells.append(char)
            else:
                side = "blue" if char.isupper() else "gray"
                kept[side] += 1
                cells.append(char if kept[side] in (3, 9) else "1")
        compact, run = "", 0
        for cell in cells:
            if cell == "1":
                run += 1
                continue
            compact += (str(run) if run else "") + cell
            run = 0
        ranks.append(compact + (str(run) if run else ""))
    return "/".join(ranks) + " " + rest


def replay_and_compare(rules: str, start: str | None, games: int, seed: int) -> int:
    """Random games through the simulation, replayed on the rules core's board: the same legal
    moves in the same order (their number and digest), the chosen move at its index, the hash
    and count after every ply, no end before the last ply and the same end after it. The plies
    compared."""
    batch = Simulation(rules, games, start=start, seed=seed)
    result = batch.play_random(trajectories=True)
    trace = result.trajectories
    assert trace is not None
    plies = 0
    for game in range(games):
        board = (Position.start(rules) if start is None else Position.parse(start, rules)).board()
        length = int(trace.lengths[game])
        assert length == result.plies[game]
        played = trace.records(game)
        for t in range(length):
            moves = board.moves()
            assert len(moves) == trace.legal[game, t], (rules, game, t)
            records = [MoveRecord.from_raw(raw) for raw in moves]
            assert moves_digest(records) == int(trace.digests[game, t]), (rules, game, t)
            assert moves[trace.choices[game, t]] == played[t].raw(), (rules, game, t)
            board.push(moves[trace.choices[game, t]])
            assert board.hash == int(trace.hashes[game, t]), (rules, game, t)
            assert board.count == trace.counts[game, t], (rules, game, t)
            if t < length - 1:
                assert board.end_by_move() == bitboard.ONGOING, (rules, game, t)
        code = board.end()
        assert code == result.ends[game] != bitboard.ONGOING, (rules, game)
        winner = board.winner(code)
        assert result.winners[game] == (-1 if winner is None else winner), (rules, game)
        plies += length
    return plies


@pytest.mark.slow
@pytest.mark.parametrize("rules", [*PRESETS, "cooper impasse-plies=30", "sackson lead=4"])
def test_random_games_follow_the_rules_core(rules: str) -> None:
    # Most games from the start; a fifth from a sparse start, where repetitions and the
    # no-progress rule end them.
    sparse = max(1, GAMES_PER_RULE_SET // 5)
    plies = replay_and_compare(rules, None, GAMES_PER_RULE_SET - sparse, seed=len(rules))
    plies += replay_and_compare(rules, sparse_start(rules.split()[0]), sparse, seed=7)
    assert plies > GAMES_PER_RULE_SET * 20


def test_sparse_games_end_by_every_impasse() -> None:
    rules = "cooper impasse-plies=30"
    ends = random_playouts(sparse_start("cooper"), 300, rules=rules, seed=1).ends
    assert {bitboard.REPETITION, bitboard.NO_PROGRESS} <= set(ends.tolist())


@pytest.mark.parametrize("rules", ["sackson", "super-light-turbo", "pow-classic", "classic"])
def test_outcomes_equal_the_games(rules: str) -> None:
    # The public Game, replaying the moves, ends the same way (Outcome, termination and winner).
    batch = Simulation(rules, 6, seed=2)
    result = batch.play_random(trajectories=True)
    assert result.trajectories is not None
    for index in range(6):
        game = Game(rules)
        game.push_all(result.trajectories.game_moves(index))
        assert game.outcome() == result.outcome(index, game.rules) == batch.outcome(index)
        assert game.outcome() is not None


def test_a_game_with_history_keeps_its_repetitions() -> None:
    # Blue and Gray shuffle a guard there and back twice: the eighth ply makes the start stand
    # for the third time. A batch loaded after seven plies (with the game's history) ends the
    # game by repetition on the eighth, as the game does.
    game = Game("cooper", sparse_start("cooper"))
    shuffle = ["c2-c3", "a8-a7", "c3-c2", "a7-a8"] * 2
    game.push_all(shuffle[:7])
    batch = Simulation("cooper", start=[game], seed=0)
    assert batch.hash(0) == game.board().hash and batch.count(0) == game.board().count
    assert [r.raw() for r in batch.legal_moves(0)] == game.board().moves()
    assert batch.outcome(0) is None
    batch.push(0, game.push(shuffle[7]))
    outcome = game.outcome()
    assert outcome is not None and outcome.termination.value == "repetition"
    assert batch.outcome(0) == outcome
    assert batch.legal_moves(0) == []


def with_count(position: str, count: int) -> str:
    """``position`` with its no-progress count set to ``count``."""
    placement, turn, _, number = position.split()
    return f"{placement} {turn} {count} {number}"


def test_a_start_with_a_high_no_progress_count_widens_the_history() -> None:
    # The history has room for the rule set's no-progress limit and a few plies; a start set up
    # with a higher count (here above the largest limit a rule set may have) widens it, when the
    # batch is made and when it is given new starts, and the games follow the rules core.
    high = with_count(sparse_start("cooper"), 1500)
    assert replay_and_compare("cooper", high, 40, seed=3) > 40
    fresh = Simulation("cooper", 40, start=high, seed=3)
    assert fresh.games.history.shape[1] >= 1503 and fresh.count(0) == 1500
    batch = Simulation("cooper", 40, seed=3)
    assert batch.games.history.shape[1] == Position.start("cooper").rules.impasse_plies + 3
    batch.set_starts(high)
    assert batch.games.history.shape[1] >= 1503 and batch.starts.history.shape[1] >= 1503
    assert batch.count(0) == 1500
    a = batch.play_random(trajectories=True)
    b = fresh.play_random(trajectories=True)
    assert a.trajectories is not None and b.trajectories is not None
    assert np.array_equal(a.plies, b.plies) and np.array_equal(a.ends, b.ends)
    assert np.array_equal(a.trajectories.moves, b.trajectories.moves)
    batch.reset()
    assert batch.count(0) == 1500 and batch.plies.tolist() == [0] * 40


def test_playouts_are_repeatable_and_seeded() -> None:
    a = random_playouts(None, 32, rules="super-light", seed=5, trajectories=True)
    b = random_playouts(None, 32, rules="super-light", seed=5, trajectories=True)
    c = random_playouts(None, 32, rules="super-light", seed=6)
    assert a.trajectories is not None and b.trajectories is not None
    assert np.array_equal(a.plies, b.plies) and np.array_equal(a.winners, b.winners)
    assert np.array_equal(a.trajectories.moves, b.trajectories.moves)
    assert not np.array_equal(a.plies, c.plies)


def test_max_plies_stops_games_and_play_goes_on() -> None:
    batch = Simulation("sackson", 4, seed=1)
    first = batch.play_random(10, trajectories=True)
    assert first.plies.tolist() == [10] * 4 and (first.ends == 0).all()
    assert first.trajectories is not None and first.trajectories.lengths.tolist() == [10] * 4
    rest = batch.play_random()
    assert (rest.plies > 10).all() and (rest.ends > 0).all()
    batch.reset()
    assert batch.plies.tolist() == [0] * 4 and (batch.ends == 0).all()
    assert batch.hash(0) == Position.start("sackson").board().hash


def walk_actions(rules: str, seed: int, plies: int) -> None:
    """Random actions through an ActionGame and a one-game simulation together: the same masks,
    planes, results and illegal actions at every step, captures in progress included."""
    rng = random.Random(seed)
    state = ActionGame(rules)
    batch = Simulation(rules, 1, seed=seed)
    masks = batch.action_masks()
    for _ in range(plies):
        assert np.array_equal(masks[0], state.action_mask())
        assert np.array_equal(batch.observations()[0], observe(state))
        if state.is_over():
            assert batch.outcome(0) == state.outcome()
            return
        legal = state.legal_actions()
        wrong = rng.randrange(NUM_ACTIONS)
        if wrong not in legal:
            before = batch.observations()
            assert batch.apply([wrong]).tolist() == [-1]
            assert np.array_equal(batch.observations(), before)
            with pytest.raises(IllegalActionError):
                state.apply(wrong)
        action = rng.choice(legal)
        move = state.apply(action)
        result = batch.apply([action], masks)
        assert result.tolist() == [0 if move is None else 1]
        if move is not None:
            assert batch.hash(0) == state.game.board().hash


@pytest.mark.parametrize("rules", PRESETS)
def test_masks_and_planes_equal_the_action_game(rules: str) -> None:
    for seed in range(3):
        walk_actions(rules, seed, 400)


def test_masks_and_planes_of_captures_in_progress() -> None:
    circle = "4c4/9/9/9/9/9/1g7/g1g6/Gg2C4 b 0 1"
    state = ActionGame("sackson", circle)
    batch = Simulation("sackson", start=[circle], seed=0)
    while not state.is_over() and state.turn.index == 0:
        assert np.array_equal(batch.action_masks()[0], state.action_mask())
        assert np.array_equal(batch.observations()[0], observe(state))
        action = state.legal_actions()[-1]
        state.apply(action)
        batch.apply([action])
    assert batch.hash(0) == state.game.board().hash


def test_batch_masks_and_observations_of_positions() -> None:
    games = [Game("cooper")]
    games.append(games[0].copy())
    games[1].push("d2-d3")
    masks = action_masks(games, "cooper")
    planes = observations(games, "cooper")
    for index, game in enumerate(games):
        assert np.array_equal(masks[index], ActionGame(game=game).action_mask())
        assert np.array_equal(planes[index], observe(ActionGame(game=game)))


def test_policy_playouts_follow_the_policy() -> None:
    # A policy that always wants the highest legal action: the games are those an ActionGame
    # plays taking its highest legal action.
    def highest(planes: np.ndarray, masks: np.ndarray) -> np.ndarray:
        weights = np.zeros(masks.shape)
        weights[np.arange(len(masks)), masks.shape[1] - 1 - np.argmax(masks[:, ::-1], 1)] = 1
        return weights

    batch = Simulation("super-light-turbo", 3, seed=0)
    result = batch.play_policy(highest)
    state = ActionGame("super-light-turbo")
    while not state.is_over():
        state.apply(max(state.legal_actions()))
    assert (result.plies == state.game.ply).all()
    assert batch.outcome(0) == state.outcome() and batch.hash(2) == state.game.board().hash


def test_policy_without_weight_plays_uniformly_and_bad_shapes_are_refused() -> None:
    batch = Simulation("super-light", 8, seed=3)
    result = batch.play_policy(lambda planes, masks: np.zeros(masks.shape))
    assert (result.ends > 0).all()
    assert len(set(result.plies.tolist())) > 1
    batch.reset()
    with pytest.raises(SimulationError, match=r"\(8, 973\)"):
        batch.play_policy(lambda planes, masks: np.zeros(5))
    part = Simulation("super-light", 2, seed=3).play_policy(
        lambda planes, masks: masks.astype(float), max_actions=3
    )
    assert part.plies.max() <= 3


def test_bad_simulations_are_refused() -> None:
    with pytest.raises(SimulationError, match="at least one game"):
        Simulation("sackson", start=[])
    with pytest.raises(SimulationError, match="3 starts for 2 games"):
        Simulation("sackson", 2, start=[None, None, None])
    with pytest.raises(SimulationError, match="a game of cooper"):
        Simulation("sackson", start=[Game("cooper")])
    batch = Simulation("sackson", 1, seed=0)
    with pytest.raises(SimulationError, match="not a legal move"):
        batch.push(0, Move.parse("e5-e6"))
    batch.push(0, Game("sackson").legal_moves[0])
    assert batch.plies.tolist() == [1]


@pytest.mark.parametrize("rules", ["sackson", "super-light-turbo", "pow-classic"])
def test_notation_order_is_the_games_order(rules: str) -> None:
    rng = random.Random(len(rules))
    for _ in range(30):
        game = Game(rules)
        while not game.is_over() and rng.random() > 0.02:
            game.push(rng.choice(game.legal_moves))
        batch = Simulation(rules, start=[game], seed=0)
        records = sorted(batch.legal_moves(0), key=notation_order)
        assert [move_from_raw(record.raw()) for record in records] == game.legal_moves
        rows = batch.legal_rows(0)
        ranked = [MoveRecord.from_row(row) for row in rows[notation_ranks(rows)].tolist()]
        assert ranked == records


@pytest.mark.parametrize("rules", ["cooper", "sackson", "super-light"])
def test_random_walks_draw_what_the_game_walk_draws(rules: str) -> None:
    for seed in range(20):
        plies = 4 + seed % 5
        expected = Game(rules)
        rng = random.Random(seed)
        for _ in range(plies):
            if not expected.legal_moves:
                break
            expected.push(rng.choice(expected.legal_moves))
        walked = random_walk(expected.rules, random.Random(seed), plies)
        if expected.is_over() or expected.ply < plies:
            assert walked is None
        else:
            assert walked == expected.moves


def test_the_opening_book_is_the_same_with_the_compiled_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = opening_book("cooper", 10, seed=4)
    parts = readiness.CompiledParts(
        compiled_search.CompiledKernel, compiled_mcts.CompiledMctsBoard, random_walk
    )
    monkeypatch.setattr(readiness, "compiled_parts", lambda: parts)
    assert opening_book("cooper", 10, seed=4) == plain
