"""The vector environment: Gymnasium's vector-environment contract (batched spaces, autoreset,
seeding, determinism), and every step against the single-game state it must equal."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import bluegray.rl
from bluegray import Side
from bluegray.rl import (
    CAPTAIN_ACTION,
    ENV_ID,
    NUM_ACTIONS,
    OBSERVATION_SHAPE,
    ActionGame,
    BlueGrayEnv,
    BlueGrayVectorEnv,
    IllegalActionError,
    observe,
)
from bluegray.rules import as_rules

N = 8


def random_actions(infos: dict[str, Any], rng: np.random.Generator) -> np.ndarray:
    """A random legal action per environment (0 where there is none: an autoreset step)."""
    actions = np.zeros(len(infos["action_mask"]), np.int64)
    for g, mask in enumerate(infos["action_mask"]):
        legal = np.flatnonzero(mask)
        if legal.size:
            actions[g] = rng.choice(legal)
    return actions


def test_batched_spaces() -> None:
    envs = BlueGrayVectorEnv(N, "super-light", opponent="random")
    assert envs.num_envs == N
    assert envs.single_action_space == gym.spaces.Discrete(NUM_ACTIONS)
    assert envs.action_space == gym.spaces.MultiDiscrete([NUM_ACTIONS] * N)
    assert envs.single_observation_space.shape == OBSERVATION_SHAPE
    assert envs.observation_space.shape == (N, *OBSERVATION_SHAPE)
    observations, infos = envs.reset(seed=0)
    assert observations in envs.observation_space
    assert infos["action_mask"].shape == (N, NUM_ACTIONS) and infos["action_mask"].dtype == np.int8
    assert np.array_equal(envs.action_masks(), infos["action_mask"].astype(bool))
    rng = np.random.default_rng(0)
    for _ in range(20):
        observations, rewards, terminated, truncated, infos = envs.step(random_actions(infos, rng))
        assert observations in envs.observation_space
        assert rewards.shape == terminated.shape == truncated.shape == (N,)
        assert terminated.dtype == truncated.dtype == np.bool_ and not truncated.any()
    board = BlueGrayVectorEnv(N, "super-light", observation="board")
    codes, _ = board.reset(seed=0)
    assert board.observation_space.shape == (N, 81) and codes in board.observation_space
    assert sorted(set(codes[0].tolist())) == [0, 2, 3, 6, 7]  # privates and captains


def test_made_by_gymnasium_make_vec() -> None:
    envs = gym.make_vec(ENV_ID, num_envs=3, vectorization_mode="vector_entry_point", rules="cooper")
    assert isinstance(envs, BlueGrayVectorEnv) and envs.rules == as_rules("cooper")
    assert envs.reset(seed=1)[0].shape == (3, *OBSERVATION_SHAPE)


def play_steps(envs: BlueGrayVectorEnv, seed: int, steps: int) -> list[tuple[Any, ...]]:
    rng = np.random.default_rng(seed)
    observations, infos = envs.reset(seed=seed)
    record: list[tuple[Any, ...]] = [(observations.copy(), infos["action_mask"].copy())]
    for _ in range(steps):
        observations, rewards, terminated, _, infos = envs.step(random_actions(infos, rng))
        record.append((observations, rewards, terminated, infos["action_mask"]))
    return record


@pytest.mark.parametrize("opponent", ["random", "greedy", None])
def test_same_seed_same_episodes(opponent: str | None) -> None:
    def make() -> BlueGrayVectorEnv:
        return BlueGrayVectorEnv(4, "super-light-turbo", opponent=opponent, agent_side="random")

    first = play_steps(make(), 3, 60)
    again = play_steps(make(), 3, 60)
    for a, b in zip(first, again, strict=True):
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    other = play_steps(make(), 4, 60)
    assert any(not np.array_equal(a[0], b[0]) for a, b in zip(first, other, strict=True))


def test_next_step_autoreset() -> None:
    envs = BlueGrayVectorEnv(N, "super-light-turbo", opponent="random", illegal_action="raise")
    start, infos = envs.reset(seed=5)
    rng = np.random.default_rng(5)
    ended = np.zeros(N, bool)
    for _ in range(400):
        actions = random_actions(infos, rng)
        if ended.any():
            actions[ended] = CAPTAIN_ACTION + 1  # ignored: not even an action
        observations, rewards, terminated, _, infos = envs.step(actions)
        assert not (rewards[ended] != 0).any() and not terminated[ended].any()
        assert np.array_equal(observations[ended], start[ended])
        assert (infos["action_mask"][terminated] == 0).all()
        if terminated.any():
            assert set(rewards[terminated].tolist()) <= {-1.0, 0.0, 1.0}
            assert (infos["_winner"] == terminated).all()
        if ended.any() and terminated.any():
            break
        ended = terminated.copy()
    else:
        raise AssertionError("no game ended and started again")


def test_same_step_autoreset() -> None:
    envs = BlueGrayVectorEnv(
        N, "super-light-turbo", opponent=None, autoreset_mode=AutoresetMode.SAME_STEP
    )
    assert envs.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    start, infos = envs.reset(seed=2)
    rng = np.random.default_rng(2)
    finished = 0
    while finished < 3:
        observations, _, terminated, _, infos = envs.step(random_actions(infos, rng))
        for g in np.flatnonzero(terminated):
            finished += 1
            assert infos["_final_obs"][g] and infos["final_obs"][g].shape == OBSERVATION_SHAPE
            assert not np.array_equal(infos["final_obs"][g], start[g])
            assert np.array_equal(observations[g], start[g])
            assert infos["action_mask"][g].sum() > 0


def test_self_play_steps_equal_the_action_game() -> None:
    # Both sides are agents: each step is one action of the side to act, its reward that side's.
    envs = BlueGrayVectorEnv(2, "super-light-turbo", opponent=None)
    observations, infos = envs.reset(seed=1)
    states = [ActionGame("super-light-turbo") for _ in range(2)]
    rng = np.random.default_rng(1)
    for _ in range(300):
        for g, state in enumerate(states):
            assert np.array_equal(observations[g], observe(state))
            assert np.array_equal(infos["action_mask"][g], state.action_mask())
        actions = random_actions(infos, rng)
        movers = [state.turn for state in states]
        observations, rewards, terminated, _, infos = envs.step(actions)
        for g, state in enumerate(states):
            state.apply(int(actions[g]))
            assert terminated[g] == state.is_over()
            assert rewards[g] == state.reward(movers[g])
            if state.is_over():
                states[g] = ActionGame("super-light-turbo")
                observations[g] = observe(states[g])  # next step starts it again
        if terminated.any():
            envs.step(np.zeros(2, np.int64))  # the autoreset step of the ended game...
            return  # (the other game's action 0 is illegal: its game ends as a loss)
    raise AssertionError("no game ended in 300 steps")


def test_a_player_opponent_plays_as_in_the_single_environment() -> None:
    # One environment against greedy, seeded alike, plays the same episode as BlueGrayEnv.
    single = BlueGrayEnv("super-light", opponent="greedy", agent_side="gray")
    vector = BlueGrayVectorEnv(1, "super-light", opponent="greedy", agent_side="gray")
    observation, info = single.reset(seed=11)
    observations, infos = vector.reset(seed=11)
    rng = np.random.default_rng(11)
    terminated = False
    while not terminated:
        assert np.array_equal(observations[0], observation)
        assert np.array_equal(infos["action_mask"][0], info["action_mask"])
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        observation, reward, terminated, _, info = single.step(action)
        observations, rewards, terminateds, _, infos = vector.step([action])
        assert (rewards[0], terminateds[0]) == (reward, terminated)
    assert infos["winner"][0] == (-1 if info["winner"] is None else Side(info["winner"]).index)


def test_illegal_actions_lose_or_raise() -> None:
    envs = BlueGrayVectorEnv(2, "super-light", opponent="random")
    _, infos = envs.reset(seed=0)
    legal = int(np.flatnonzero(infos["action_mask"][1])[0])
    _, rewards, terminated, _, infos = envs.step([CAPTAIN_ACTION, legal])
    assert rewards[0] == -1.0 and terminated.tolist() == [True, False]
    assert infos["illegal_action"].tolist() == [True, False]
    strict = BlueGrayVectorEnv(2, "super-light", opponent="random", illegal_action="raise")
    observations, infos = strict.reset(seed=0)
    with pytest.raises(
        IllegalActionError, match="illegal action 972 \\(captain\\) in environment 0"
    ):
        strict.step([CAPTAIN_ACTION, legal])
    with pytest.raises(IllegalActionError, match="illegal action 5000"):
        strict.step([legal, 5000])
    assert np.array_equal(strict.step([legal, legal])[0][1], envs.step([legal, legal])[0][1])
    assert np.array_equal(observations[0], strict.reset(seed=0)[0][0])


def test_agent_sides_and_start_positions() -> None:
    gray = BlueGrayVectorEnv(N, "sackson", opponent="random", agent_side="gray")
    observations, infos = gray.reset(seed=0)
    assert (observations[:, 8] == 1.0).all() and (infos["agent_side"] == 1).all()
    drawn = BlueGrayVectorEnv(32, "sackson", opponent="random", agent_side="random")
    _, infos = drawn.reset(seed=0)
    assert set(infos["agent_side"].tolist()) == {0, 1}
    circle = "4c4/9/9/9/9/9/1g7/g1g6/Gg2C4 b 0 1"
    _, infos = gray.reset(seed=0, options={"position": circle})
    assert gray.simulation.plies.tolist() == [1] * N  # Blue's opponent took one of its captures
    assert (gray.simulation.turns == 1).all()
    state = ActionGame("sackson", circle)
    blue = BlueGrayVectorEnv(2, "sackson", opponent="random")
    _, infos = blue.reset(seed=0, options={"position": circle})
    assert np.array_equal(infos["action_mask"][0], state.action_mask())


def test_copies_and_buffers() -> None:
    copied = BlueGrayVectorEnv(2, "super-light")
    first, _ = copied.reset(seed=0)
    assert copied.reset(seed=0)[0] is not first
    shared = BlueGrayVectorEnv(2, "super-light", copy=False)
    first, infos = shared.reset(seed=0)
    second, *_, infos = shared.step(random_actions(infos, np.random.default_rng(0)))
    assert np.shares_memory(second, first)


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        BlueGrayVectorEnv(0)
    with pytest.raises(ValueError, match="agent_side"):
        BlueGrayVectorEnv(2, agent_side="green")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="observation"):
        BlueGrayVectorEnv(2, observation="pixels")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown player"):
        BlueGrayVectorEnv(2, opponent="nobody")
    with pytest.raises(bluegray.BlueGrayError, match="reset"):
        BlueGrayVectorEnv(2).step([0, 0])
