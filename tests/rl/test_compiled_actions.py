"""The compiled action game against the plain one: the same legal actions, masks, planes, moves,
outcomes and errors at every step; and the environments step through it when numba is there."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from bluegray import PRESETS, Game
from bluegray.rl import ActionGame, BlueGrayAECEnv, BlueGrayEnv, IllegalActionError, observe
from bluegray.rl.compiled_actions import CompiledActionGame
from bluegray.rl.openspiel_game import load_game
from bluegray.rl.states import action_game

CIRCLE = "4c4/9/9/9/9/9/1g7/g1g6/Gg2C4 b 0 1"


def same_state(plain: ActionGame, fast: ActionGame) -> None:
    assert fast.legal_actions() == plain.legal_actions()
    assert np.array_equal(fast.action_mask(), plain.action_mask())
    assert np.array_equal(observe(fast), observe(plain))
    assert (fast.turn, fast.capture, fast.outcome()) == (plain.turn, plain.capture, plain.outcome())
    for side in (plain.turn, plain.turn.other):
        assert fast.reward(side) == plain.reward(side)


@pytest.mark.parametrize("rules", PRESETS)
def test_the_compiled_action_game_answers_as_the_plain_one(rules: str) -> None:
    rng = random.Random(rules)
    for _ in range(3):
        plain, fast = ActionGame(rules), CompiledActionGame(rules)
        while not plain.is_over():
            same_state(plain, fast)
            wrong = rng.randrange(-2, 975)
            assert fast.is_legal(wrong) == plain.is_legal(wrong)
            if not plain.is_legal(wrong):
                with pytest.raises(IllegalActionError) as expected:
                    plain.apply(wrong)
                with pytest.raises(IllegalActionError) as got:
                    fast.apply(wrong)
                assert str(got.value) == str(expected.value)
            action = rng.choice(plain.legal_actions())
            assert fast.apply(action) == plain.apply(action)
            if plain.game.ply % 37 == 0 and not plain.capture:
                move = rng.choice(plain.game.legal_moves)  # a whole move, as an opponent plays
                assert fast.actions_of(move) == plain.actions_of(move)
                assert fast.push(move) == plain.push(move)
        same_state(plain, fast)
        assert str(fast.game.position) == str(plain.game.position)
        assert fast.game.moves == plain.game.moves
        with pytest.raises(IllegalActionError) as expected:
            plain.apply(0)
        with pytest.raises(IllegalActionError) as got:
            fast.apply(0)
        assert str(got.value) == str(expected.value)


def test_copies_and_direct_changes_during_a_capture() -> None:
    plain, fast = ActionGame("sackson", CIRCLE), CompiledActionGame("sackson", CIRCLE)
    first = plain.legal_actions()[0]
    plain.apply(first)
    fast.apply(first)
    same_state(plain, fast)
    for clone in (fast.copy(), copy.deepcopy(fast)):
        assert clone.capture == fast.capture and clone.legal_actions() == fast.legal_actions()
        clone.apply(clone.legal_actions()[0])
        assert clone.capture != fast.capture  # the copy went on alone
    with pytest.raises(IllegalActionError, match="during the capture in progress a1xa3"):
        fast.push("c1-c2")
    # Changing the game directly drops the capture, as the plain action game does.
    for state in (plain, fast):
        state.game.push(state.game.legal_moves[0])
    same_state(plain, fast)
    for state in (plain, fast):
        state.game.pop()
    same_state(plain, fast)


def test_a_game_with_history_is_carried_over() -> None:
    game = Game("cooper")
    game.push_all(["d2-d3", "f8-f7", "d3-d2", "f7-f8", "d2-d3", "f8-f7", "d3-d2"])
    plain, fast = ActionGame(game=game.copy()), CompiledActionGame(game=game.copy())
    same_state(plain, fast)
    action = plain.actions_of("f7-f8")[0]
    plain.apply(action)
    fast.apply(action)
    same_state(plain, fast)
    outcome = fast.outcome()
    assert outcome is not None and outcome.termination.value == "repetition"


def test_the_environments_step_through_the_compiled_board(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    env = BlueGrayEnv("super-light")
    env.reset(seed=0)
    assert isinstance(env.state, CompiledActionGame)
    aec = BlueGrayAECEnv("super-light")
    aec.reset()
    assert isinstance(aec.game, CompiledActionGame)
    assert isinstance(load_game("super-light").new_initial_state().actions, CompiledActionGame)
    monkeypatch.setenv("BLUEGRAY_SEARCH", "python")
    assert type(action_game("super-light")) is ActionGame
