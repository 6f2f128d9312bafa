"""The network player and the self-play example: the acting side's view, legal play through the
player registry and the match runner, and the training's hand-written gradients."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

from bluegray import Game
from bluegray.engine.match import MatchSettings, run_match
from bluegray.engine.players import InvalidPlayerError, player_from_spec
from bluegray.rl import ActionGame, observe
from bluegray.rl.actions import decode_action
from bluegray.rl.network_player import TURNED, Network, NetworkPlayer, acting_view
from bluegray.rules import as_rules
from tests.paths import REPOSITORY


def test_turned_actions() -> None:
    assert np.array_equal(TURNED[TURNED], np.arange(973))
    for action in (96, 247, 689, 972):
        a, b = decode_action(action), decode_action(int(TURNED[action]))
        assert a.kind == b.kind
        if a.point is not None and b.point is not None:
            assert b.point == 80 - a.point
            assert (a.target is None) == (b.target is None)
            if a.target is not None and b.target is not None:
                assert b.target == 80 - a.target


def turned_round(text: str) -> str:
    """A position turned half round with the sides swapped (Blue's pieces become Gray's)."""
    placement, turn, rest = text.split(" ", 2)
    ranks = [rank[::-1].swapcase() for rank in reversed(placement.split("/"))]
    return "/".join(ranks) + " " + {"b": "g", "g": "b"}[turn] + " " + rest


def test_the_view_of_gray_is_blues_turned_round() -> None:
    # After d2-d3 Gray acts; turned round, the same position has Blue to act after f8-f7 of a
    # Gray who moved first. Both acting sides see the same inputs and legal actions.
    game = Game("cooper")
    game.push("d2-d3")
    gray = ActionGame(game=game)
    blue = ActionGame("cooper", turned_round(str(game.position)))
    planes = np.stack([observe(blue), observe(gray)])
    masks = np.stack([blue.action_mask(), gray.action_mask()])
    inputs, legal, turned = acting_view(planes, masks)
    assert turned.tolist() == [False, True]
    assert np.array_equal(legal[0], legal[1]) and legal[0].sum() > 10
    gray_to_act = 8 * 81
    same = np.ones(inputs.shape[1], bool)
    same[gray_to_act : gray_to_act + 81] = False  # who is to act is still said
    assert np.array_equal(inputs[0, same], inputs[1, same])


def test_network_probabilities_and_files(tmp_path: Path) -> None:
    network = Network.new(16, np.random.default_rng(0))
    state = ActionGame("super-light")
    inputs, legal, _ = acting_view(observe(state)[None], state.action_mask()[None])
    hidden, probabilities, values = network.forward(inputs, legal)
    assert hidden.shape == (1, 16) and values.shape == (1,) and -1 <= values[0] <= 1
    assert probabilities.sum() == pytest.approx(1.0)
    assert (probabilities[~legal] == 0).all() and (probabilities[legal] > 0).all()
    network.save(tmp_path / "n.npz")
    again = Network.load(tmp_path / "n.npz")
    assert np.array_equal(again.forward(inputs, legal)[1], probabilities)


def test_the_player_plays_legal_games_through_the_registry(tmp_path: Path) -> None:
    Network.new(8, np.random.default_rng(1)).save(tmp_path / "n.npz")
    player = player_from_spec(f"network:{tmp_path / 'n.npz'},temperature=1", seed=3)
    assert isinstance(player, NetworkPlayer)
    opponent = player_from_spec("random", seed=4)
    for rules in ("super-light", "sackson"):
        game = Game(rules)
        while not game.is_over() and game.ply < 300:
            mover = player if game.ply % 2 == 0 else opponent
            game.push(mover.choose(game))  # push checks that the move is legal
    summary = run_match(
        MatchSettings(f"network:{tmp_path / 'n.npz'}", "random", as_rules("super-light"), 2)
    )
    assert summary.stats.games == 2


def test_bad_network_specs(tmp_path: Path) -> None:
    with pytest.raises(InvalidPlayerError, match="name the network's file"):
        player_from_spec("network")
    with pytest.raises(InvalidPlayerError, match="cannot read the network"):
        player_from_spec(f"network:{tmp_path / 'missing.npz'}")
    Network.new(4, np.random.default_rng(0)).save(tmp_path / "n.npz")
    with pytest.raises(InvalidPlayerError, match="temperature"):
        player_from_spec(f"network:{tmp_path / 'n.npz'},temperature=hot")
    with pytest.raises(InvalidPlayerError, match="unknown options depth"):
        player_from_spec(f"network:{tmp_path / 'n.npz'},depth=2")


def test_the_self_play_gradients_are_the_losss() -> None:
    # Finite differences of the loss the example's gradients differentiate.
    example = runpy.run_path(str(REPOSITORY / "examples" / "self_play.py"))
    rng = np.random.default_rng(0)
    network = Network.new(6, rng)
    network.policy_bias += rng.normal(0, 0.5, 973)
    inputs = rng.random((3, 19 * 81))
    legal = rng.random((3, 973)) < 0.02
    legal[:, 5] = True
    actions = np.array([5, 5, 5])
    results = np.array([1.0, -1.0, 0.0])

    fixed = results - network.forward(inputs, legal)[2]  # the advantages, held fixed

    def loss(net: Network) -> float:
        _, probabilities, values = net.forward(inputs, legal)
        picked = probabilities[np.arange(3), actions]
        logs = np.log(np.where(probabilities > 0, probabilities, 1.0))
        spread = -(probabilities * logs).sum(axis=1)
        terms = -fixed * np.log(picked) + 0.5 * (values - results) ** 2 - 0.01 * spread
        return float(terms.mean())

    gradients, _ = example["gradients"](network, inputs, legal, actions, results)
    for name, index in (("policy_bias", 5), ("value_bias", 0), ("hidden", (7, 2)), ("value", 3)):
        array = network.arrays()[name]
        before = array[index]
        array[index] = before + 1e-6
        up = loss(network)
        array[index] = before - 1e-6
        down = loss(network)
        array[index] = before
        assert gradients[name][index] == pytest.approx((up - down) / 2e-6, rel=1e-3, abs=1e-7)


@pytest.mark.slow
def test_self_play_trains_a_little() -> None:
    example = runpy.run_path(str(REPOSITORY / "examples" / "self_play.py"))
    network, result = example["train"](3.0, games=16, width=16, batch=256, report=1000)
    assert result["games"] > 0 and result["updates"] > 0
    assert isinstance(network, Network)
