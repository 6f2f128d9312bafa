"""The RL environments: the action encoding against the rules, and the Gymnasium, PettingZoo and
OpenSpiel adapters against their ecosystems' own checkers."""

from __future__ import annotations

import doctest
import random
import runpy
import warnings
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
import pyspiel
import pytest
from gymnasium.utils.env_checker import check_env
from open_spiel.python.algorithms import mcts
from pettingzoo.test import api_test, seed_test

import bluegray.rl
from bluegray import PRESETS, Game, parse_point
from bluegray.rl import (
    CAPTAIN_ACTION,
    ENV_ID,
    FIRST_JUMP_ACTION,
    NUM_ACTIONS,
    OBSERVATION_SHAPE,
    PLANES,
    ActionGame,
    BlueGrayAECEnv,
    BlueGrayEnv,
    IllegalActionError,
    action_text,
    decode_action,
    jump_action,
    observe,
    step_action,
)
from bluegray.rl.openspiel_game import load_game, max_game_length
from tests.paths import REPOSITORY

CHECKED_RULES = ["sackson", "super-light-turbo", "pow-classic"]
CIRCLE = "4c4/9/9/9/9/9/1g7/g1g6/Gg2C4 b 0 1"
"""Sackson: Blue's only moves are the two circular captures from a1."""
SHORT_OR_LONG = "4c4/9/9/9/9/8g/9/g7g/G3C3G b 0 1"
"""Blue can take one piece from a1 or two from i1."""


def plane(observation: npt.NDArray[np.float32], name: str) -> npt.NDArray[np.float32]:
    return np.asarray(observation[PLANES.index(name)], dtype=np.float32)


def at(array: np.ndarray, point: str) -> float:
    return float(array.reshape(-1)[parse_point(point)])


def reachable_moves(state: ActionGame) -> dict[str, tuple[int, ...]]:
    """Every move reachable through the masks, by its text, with the actions that enter it."""
    found: dict[str, tuple[int, ...]] = {}

    def explore(current: ActionGame, taken: tuple[int, ...]) -> None:
        mask = current.action_mask()
        legal = current.legal_actions()
        assert list(np.flatnonzero(mask)) == legal
        assert legal, "a turn in progress always has a legal action"
        for action in legal:
            branch = current.copy()
            move = branch.apply(action)
            if move is None:
                assert branch.turn is current.turn
                explore(branch, (*taken, action))
            else:
                assert str(move) not in found
                found[str(move)] = (*taken, action)

    if not state.is_over():
        explore(state, ())
    return found


# -- the action encoding ---------------------------------------------------------------------


def test_action_layout() -> None:
    assert NUM_ACTIONS == 973
    assert CAPTAIN_ACTION == 972
    assert FIRST_JUMP_ACTION == 648
    d2, d3 = parse_point("d2"), parse_point("d3")
    assert step_action(d2, 0) == d2 * 8
    assert action_text(step_action(d2, 0)) == "d2-d3"
    assert decode_action(step_action(d2, 0)).target == d3
    assert action_text(step_action(parse_point("d4"), 7)) == "d4-c5"
    assert action_text(jump_action(parse_point("b2"), 1)) == "b2xd2"
    assert jump_action(parse_point("b2"), 1) == 648 + parse_point("b2") * 4 + 1
    assert action_text(CAPTAIN_ACTION) == "captain"
    off_board = decode_action(step_action(parse_point("a1"), 6))
    assert off_board.target is None and "off the board" in str(off_board)
    for index in range(NUM_ACTIONS):
        assert decode_action(index).index == index


@pytest.mark.parametrize("rules", list(PRESETS))
def test_masks_reach_exactly_the_legal_moves(rules: str) -> None:
    """Property: in random positions of every preset, the complete action sequences the masks
    allow are exactly the legal moves, and each is the move's documented encoding."""
    multi_jumps = 0
    for seed in range(8):
        rng = random.Random(f"{rules}-{seed}")
        game = Game(rules)
        while not game.is_over() and game.ply < 200:
            state = ActionGame(game=game.copy())
            reachable = reachable_moves(state)
            legal = game.legal_moves
            assert set(reachable) == {str(move) for move in legal}
            for move in legal:
                assert state.actions_of(move) == reachable[str(move)]
                multi_jumps += len(move.points) > 2
            game.push(rng.choice(legal))
        if game.is_over():
            assert reachable_moves(ActionGame(game=game)) == {}
            assert ActionGame(game=game).legal_actions() == []
    assert multi_jumps > 0, "the random positions should include multi-jump captures"


def test_circular_captures_one_jump_per_action() -> None:
    game = Game("sackson", CIRCLE)
    assert [str(move) for move in game.legal_moves] == ["a1xa3xc3xc1xa1", "a1xc1xc3xa3xa1"]
    state = ActionGame(game=game)
    assert set(reachable_moves(state)) == {"a1xa3xc3xc1xa1", "a1xc1xc3xa3xa1"}
    assert [action_text(a) for a in state.legal_actions()] == ["a1xa3", "a1xc1"]
    before = observe(state)
    assert state.apply(jump_action(parse_point("a1"), 0)) is None
    assert list(state.capture) == [parse_point("a1"), parse_point("a3")]
    assert [action_text(a) for a in state.legal_actions()] == ["a3xc3"]
    during = observe(state)
    assert at(plane(during, "capturing-piece"), "a3") == 1.0
    assert at(plane(during, "blue-guards"), "a3") == 1.0
    assert at(plane(during, "blue-guards"), "a1") == 0.0
    assert at(plane(during, "gray-guards"), "a2") == 0.0  # jumped, so gone
    assert at(plane(before, "gray-guards"), "a2") == 1.0
    with pytest.raises(IllegalActionError, match="during the capture a1xa3"):
        state.apply(jump_action(parse_point("a3"), 2))
    assert state.apply(jump_action(parse_point("a3"), 1)) is None
    assert state.apply(jump_action(parse_point("c3"), 2)) is None
    move = state.apply(jump_action(parse_point("c1"), 3))
    assert str(move) == "a1xa3xc3xc1xa1"
    assert list(state.capture) == []
    assert str(game.position).startswith("4c4/9/9/9/9/9/9/9/G3C4 g")


def test_changing_the_game_directly_drops_the_capture() -> None:
    state = ActionGame("sackson", CIRCLE)
    state.apply(jump_action(parse_point("a1"), 0))
    state.game.push("a1xc1xc3xa3xa1")
    assert list(state.capture) == []
    assert state.turn.value == "gray"
    expected = sorted({state.actions_of(move)[0] for move in state.game.legal_moves})
    assert state.legal_actions() == expected
    state.game.pop()
    assert [action_text(a) for a in state.legal_actions()] == ["a1xa3", "a1xc1"]


def test_maximal_capture_masks_only_the_longest() -> None:
    free = ActionGame("cooper", SHORT_OR_LONG)
    assert set(reachable_moves(free)) == {"a1xa3", "i1xi3xi5"}
    maximal = ActionGame("classic", SHORT_OR_LONG)
    assert set(reachable_moves(maximal)) == {"i1xi3xi5"}
    assert [action_text(a) for a in maximal.legal_actions()] == ["i1xi3"]
    with pytest.raises(IllegalActionError, match=r"legal actions: .*i1xi3"):
        maximal.apply(jump_action(parse_point("a1"), 0))


def test_illegal_actions_raise_and_change_nothing() -> None:
    state = ActionGame("super-light")
    legal = set(state.legal_actions())
    before = str(state.game.position)
    for action in range(NUM_ACTIONS):
        if action in legal:
            continue
        with pytest.raises(IllegalActionError, match=f"illegal action {action} "):
            state.apply(action)
    for bad in (-1, NUM_ACTIONS, 2.0, True, "12"):
        with pytest.raises(IllegalActionError, match="invalid action"):
            state.apply(bad)  # type: ignore[arg-type]
    assert str(state.game.position) == before
    assert set(state.legal_actions()) == legal


def test_captain_action() -> None:
    state = ActionGame("super-light-turbo", "4c4/ppppppppp/9/9/9/9/9/PPP1PPPPP/4C4 b 0 1")
    assert CAPTAIN_ACTION in state.legal_actions()
    move = state.apply(CAPTAIN_ACTION)
    assert str(move) == "e1-b7"  # the turbo slide up to Gray's privates: one action


# -- observations --------------------------------------------------------------------------


def test_observation_planes() -> None:
    state = ActionGame("cooper")
    start = observe(state)
    assert start.shape == OBSERVATION_SHAPE == (19, 9, 9)
    assert start.dtype == np.float32
    assert start.min() >= 0.0 and start.max() <= 1.0
    assert at(plane(start, "blue-captain"), "e1") == 1.0
    assert at(plane(start, "gray-captain"), "e9") == 1.0
    assert plane(start, "blue-guards").sum() == 17
    assert plane(start, "gray-privates").sum() == 0
    assert at(plane(start, "blue-path"), "e1") == pytest.approx(1 / 18)
    assert at(plane(start, "blue-path"), "e5") == 1.0
    assert at(plane(start, "gray-path"), "f8") == pytest.approx(2 / 18)
    assert plane(start, "gray-to-act").max() == 0.0
    assert plane(start, "no-progress").max() == 0.0
    assert plane(start, "lead-rule").max() == pytest.approx(3 / 17)
    assert plane(start, "stalemate-loses").min() == 1.0
    assert plane(start, "impasse-by-advance").max() == 0.0
    state.game.push("d2-d3")
    after = observe(state)
    assert not np.array_equal(start, after)
    assert plane(after, "gray-to-act").min() == 1.0
    assert plane(after, "no-progress").max() == pytest.approx(1 / 100)
    assert at(plane(after, "blue-guards"), "d3") == 1.0
    assert at(plane(after, "blue-guards"), "d2") == 0.0
    for text in ("f8-f7", "d3-d2", "f7-f8"):
        state.game.push(text)
    assert plane(observe(state), "repetition").max() == 0.5


def test_pow_paths_and_privates() -> None:
    observation = observe(ActionGame("pow-super-light"))
    assert at(plane(observation, "blue-captain"), "e9") == 1.0
    assert at(plane(observation, "blue-path"), "e9") == pytest.approx(1 / 18)
    assert plane(observation, "blue-privates").sum() == 9
    assert plane(observation, "turbo-captains").min() == 1.0
    assert plane(observation, "maximal-capture").min() == 1.0


# -- Gymnasium -------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", CHECKED_RULES)
def test_gymnasium_check_env(rules: str) -> None:
    for side in ("blue", "gray"):
        env = gym.make(ENV_ID, rules=rules, opponent="greedy", agent_side=side, render_mode="ansi")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env.unwrapped)
        env.close()


def masked_random_episode(
    env: BlueGrayEnv, seed: int
) -> tuple[list[np.ndarray], float, dict[str, Any]]:
    rng = np.random.default_rng(seed)
    observation, info = env.reset(seed=seed)
    observations = [observation]
    reward: float = 0.0
    terminated = False
    while not terminated:
        mask = info["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
        assert np.array_equal(mask.astype(bool), env.action_masks())
        action = int(rng.choice(np.flatnonzero(mask)))
        observation, step_reward, terminated, truncated, info = env.step(action)
        assert not truncated
        observations.append(observation)
        reward = float(step_reward)
    return observations, reward, info


def test_gymnasium_episode_and_seeding() -> None:
    def make() -> BlueGrayEnv:
        return BlueGrayEnv("super-light-turbo", opponent="random", agent_side="random")

    first, reward, info = masked_random_episode(make(), seed=7)
    again, reward_again, _ = masked_random_episode(make(), seed=7)
    assert len(first) == len(again)
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert reward == reward_again
    assert reward in (-1.0, 0.0, 1.0)
    expected = (
        0.0 if info["winner"] is None else (1.0 if info["winner"] == info["agent_side"] else -1.0)
    )
    assert reward == expected
    others = [masked_random_episode(make(), seed=seed)[0] for seed in (8, 9, 10)]
    assert any(
        len(other) != len(first) or not np.array_equal(other[-1], first[-1]) for other in others
    )


def test_gymnasium_agent_as_gray_and_capture_in_progress() -> None:
    env = BlueGrayEnv("sackson", opponent="random", agent_side="gray")
    env.reset(seed=1)
    assert env.state.game.ply == 1 and env.state.turn.value == "gray"
    env = BlueGrayEnv("sackson", opponent="random", agent_side="blue")
    observation, info = env.reset(seed=0, options={"position": CIRCLE})
    assert [action_text(a) for a in np.flatnonzero(info["action_mask"])] == ["a1xa3", "a1xc1"]
    observation, reward, terminated, _, info = env.step(jump_action(parse_point("a1"), 1))
    assert (reward, terminated) == (0.0, False)
    assert env.state.game.ply == 0  # the opponent waits for the capture to finish
    assert at(plane(observation, "capturing-piece"), "c1") == 1.0
    assert [action_text(a) for a in np.flatnonzero(info["action_mask"])] == ["c1xc3"]


def test_gymnasium_illegal_actions() -> None:
    env = BlueGrayEnv("super-light", opponent="random")
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(CAPTAIN_ACTION)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    strict = BlueGrayEnv("super-light", opponent="random", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="illegal action 972 \\(captain\\)"):
        strict.step(CAPTAIN_ACTION)
    with pytest.raises(ValueError, match="unknown player"):
        BlueGrayEnv("super-light", opponent="nobody")


def test_gymnasium_render() -> None:
    env = BlueGrayEnv("super-light", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "P P P P P P P P P" in text and "Blue to move" in text
    env = BlueGrayEnv("super-light", render_mode="rgb_array", render_size=120)
    env.reset(seed=0)
    image = env.render()
    assert isinstance(image, np.ndarray)
    assert image.shape == (120, 120, 3) and image.dtype == np.uint8
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 10
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    later = env.render()
    assert isinstance(later, np.ndarray) and not np.array_equal(later, image)


# -- PettingZoo ------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", CHECKED_RULES)
def test_pettingzoo_api_and_seed(rules: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # The Dict observation (planes and mask) draws PettingZoo's advice to use a Box.
        warnings.filterwarnings("ignore", message="Observation (space for each agent|is not)")
        api_test(BlueGrayAECEnv(rules=rules, render_mode="ansi"), num_cycles=300)
        api_test(bluegray.rl.aec_env(rules=rules), num_cycles=50)
        seed_test(lambda: BlueGrayAECEnv(rules=rules), num_cycles=200)


def test_pettingzoo_full_game() -> None:
    env = BlueGrayAECEnv(rules="super-light-turbo")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    totals = {"blue_0": 0.0, "gray_0": 0.0}
    for agent in env.agent_iter(10_000):
        observation, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        assert observation["action_mask"].sum() > 0
        other = "gray_0" if agent == "blue_0" else "blue_0"
        assert env.observe(other)["action_mask"].sum() == 0
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert env.agents == []
    assert sorted(totals.values()) == [-1.0, 1.0] or totals == {"blue_0": 0.0, "gray_0": 0.0}
    assert env.game.is_over()


def test_pettingzoo_capture_keeps_the_agent_and_illegal_actions() -> None:
    env = BlueGrayAECEnv(rules="sackson")
    env.reset(options={"position": CIRCLE})
    env.step(jump_action(parse_point("a1"), 0))
    assert env.agent_selection == "blue_0"
    mask = env.observe("blue_0")["action_mask"]
    assert [action_text(a) for a in np.flatnonzero(mask)] == ["a3xc3"]
    env.step(CAPTAIN_ACTION)  # illegal: Blue forfeits
    assert env.terminations == {"blue_0": True, "gray_0": True}
    assert env.rewards == {"blue_0": -1.0, "gray_0": 1.0}
    assert env.infos["blue_0"]["illegal_action"] is True
    strict = BlueGrayAECEnv(rules="sackson", illegal_action="raise")
    strict.reset()
    with pytest.raises(IllegalActionError):
        strict.step(CAPTAIN_ACTION)


def test_pettingzoo_render_rgb() -> None:
    env = BlueGrayAECEnv(rules="pow-classic", render_mode="rgb_array", render_size=90)
    env.reset()
    image = env.render()
    assert isinstance(image, np.ndarray) and image.shape == (90, 90, 3)
    assert image.dtype == np.uint8


# -- OpenSpiel -------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", CHECKED_RULES)
def test_openspiel_random_sim_test(rules: str) -> None:
    game = pyspiel.load_game("python_bluegray", {"rules": rules})
    assert game.max_game_length() == max_game_length(rules)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("rules", ["super-light-turbo", "sackson"])
def test_openspiel_random_games_are_zero_sum(rules: str) -> None:
    game = load_game(rules)
    rng = random.Random(rules)
    for _ in range(3):
        state = game.new_initial_state()
        actions = 0
        while not state.is_terminal():
            player = state.current_player()
            assert player in (0, 1)
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
        assert actions <= game.max_game_length()
        returns = state.returns()
        assert sum(returns) == 0.0 and set(returns) <= {-1.0, 0.0, 1.0}
        assert state.current_player() == pyspiel.PlayerId.TERMINAL


def test_openspiel_max_game_length_bound() -> None:
    # 68 progress plies at most (34 captures, 34 captain moves), 100 plies between them.
    assert max_game_length("sackson") == 68 + 69 * 100 + 34
    # Super: 254 forward private steps more.
    assert max_game_length("super") == 322 + 323 * 100 + 34
    assert max_game_length("cooper impasse-plies=10") == 68 + 69 * 10 + 34


def test_openspiel_capture_and_errors() -> None:
    game = load_game("sackson", CIRCLE)
    state = game.new_initial_state()
    assert [state.action_to_string(0, a) for a in state.legal_actions()] == ["a1xa3", "a1xc1"]
    state.apply_action(jump_action(parse_point("a1"), 0))
    assert state.current_player() == 0  # still Blue, mid-capture
    clone = state.clone()
    with pytest.raises(Exception, match="illegal action"):
        state.apply_action(CAPTAIN_ACTION)
    jumps = 0
    while clone.current_player() == 0:
        (action,) = clone.legal_actions()
        clone.apply_action(action)
        jumps += 1
    assert jumps == 3
    assert "G3C4 g" in str(clone)
    observation = np.array(clone.observation_tensor(1)).reshape(OBSERVATION_SHAPE)
    assert plane(observation, "gray-to-act").min() == 1.0


def test_openspiel_mcts_bot_plays() -> None:
    game = load_game("super-light-turbo")
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(
        game,
        uct_c=2.0,
        max_simulations=20,
        evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
        random_state=rng,
    )
    state = game.new_initial_state()
    action = bot.step(state)
    assert action in state.legal_actions()


# -- the documentation -----------------------------------------------------------------------


def test_rl_docs_examples_run() -> None:
    results = doctest.testfile(str(REPOSITORY / "docs" / "rl.md"), module_relative=False)
    assert results.attempted > 20
    assert results.failed == 0


def test_training_example_learns() -> None:
    example = runpy.run_path(str(REPOSITORY / "examples" / "train_agent.py"))
    result = example["train"](episodes=60, block=20, evaluation_games=60, seed=0)
    assert [episode for episode, _ in result["curve"]] == [20, 40, 60]
    assert result["after"] >= result["before"] + 0.25
    svg = example["plot_svg"](result["curve"], result["before"], result["after"], 20)
    assert svg.count("<polyline") == 1 and "after training" in svg
