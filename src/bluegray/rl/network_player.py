"""A small policy/value network in NumPy, and a player that plays by it (``network:FILE``).

The network reads the observation planes of ``bluegray.rl`` seen from the side to act (for Gray
the board is turned half round and the two sides' planes swapped, so one network plays both
sides), through one hidden layer, into a score for each of the 973 actions (the policy, a
softmax over the legal ones) and a value in [-1, 1] (the acting side's expected result).
``examples/self_play.py`` trains one by self-play; the player registers itself as the
``network`` kind, so a trained file plays matches:

    bluegray match network:weights.npz greedy --rules super-light --games 100

A move of several jumps is chosen one jump at a time, as the environments play it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from bluegray.engine.encoding import (
    CAPTAIN_ACTION,
    FIRST_JUMP_ACTION,
    JUMP_DIRECTIONS,
    NUM_ACTIONS,
    NUM_PLANES,
    PLANE,
    STEP_DIRECTIONS,
)
from bluegray.engine.limits import Limits
from bluegray.engine.player import (
    InvalidPlayerError,
    Player,
    PlayerKind,
    parse_spec,
    register_player,
)
from bluegray.errors import GameOverError
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.rl.actions import ActionGame
from bluegray.rl.observation import observe

Array = npt.NDArray[np.float64]
INPUTS: Final = NUM_PLANES * 81


def _turned_actions() -> npt.NDArray[np.int64]:
    """Each action as the other side sees it: the point turned half round (``80 - point``) and
    the direction reversed. Turning twice gives the action back."""
    turned = np.arange(NUM_ACTIONS)
    steps, jumps = len(STEP_DIRECTIONS), len(JUMP_DIRECTIONS)
    for action in range(FIRST_JUMP_ACTION):
        point, direction = divmod(action, steps)
        turned[action] = (80 - point) * steps + (direction + steps // 2) % steps
    for action in range(FIRST_JUMP_ACTION, CAPTAIN_ACTION):
        point, direction = divmod(action - FIRST_JUMP_ACTION, jumps)
        turned[action] = FIRST_JUMP_ACTION + (80 - point) * jumps + (direction + jumps // 2) % jumps
    return turned


TURNED: Final = _turned_actions()
"""``TURNED[action]``: the action seen from the other side (an involution)."""
_SWAPPED: Final = np.arange(NUM_PLANES)
for _blue, _gray in (
    ("blue-captain", "gray-captain"),
    ("blue-guards", "gray-guards"),
    ("blue-privates", "gray-privates"),
    ("blue-path", "gray-path"),
    ("blue-advancement", "gray-advancement"),
):
    _SWAPPED[PLANE[_blue]], _SWAPPED[PLANE[_gray]] = PLANE[_gray], PLANE[_blue]


def acting_view(
    planes: npt.NDArray[np.float32], masks: npt.NDArray[np.int8]
) -> tuple[Array, npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """The network's inputs ``(N, 1539)`` and legal actions ``(N, 973)`` seen from each game's
    acting side, and which games were turned (Gray to act)."""
    gray = planes[:, PLANE["gray-to-act"], 0, 0] > 0.5
    seen = planes.astype(np.float64)
    turned = seen[gray][:, _SWAPPED, ::-1, ::-1]
    seen[gray] = turned
    legal = masks.astype(bool)
    legal[gray] = legal[gray][:, TURNED]
    return seen.reshape(len(planes), INPUTS), legal, gray


@dataclass
class Network:
    """A policy/value network with one hidden layer of ReLU units."""

    hidden: Array
    hidden_bias: Array
    policy: Array
    policy_bias: Array
    value: Array
    value_bias: Array

    @classmethod
    def new(cls, width: int, rng: np.random.Generator) -> Network:
        """Random weights (He's scaling) for a hidden layer of ``width`` units."""
        return cls(
            rng.normal(0.0, np.sqrt(2.0 / INPUTS), (INPUTS, width)),
            np.zeros(width),
            rng.normal(0.0, np.sqrt(1.0 / width), (width, NUM_ACTIONS)) * 0.1,
            np.zeros(NUM_ACTIONS),
            rng.normal(0.0, np.sqrt(1.0 / width), width) * 0.1,
            np.zeros(1),
        )

    def arrays(self) -> dict[str, Array]:
        return {
            "hidden": self.hidden,
            "hidden_bias": self.hidden_bias,
            "policy": self.policy,
            "policy_bias": self.policy_bias,
            "value": self.value,
            "value_bias": self.value_bias,
        }

    def save(self, path: Path | str) -> None:
        np.savez(
            path,
            hidden=self.hidden,
            hidden_bias=self.hidden_bias,
            policy=self.policy,
            policy_bias=self.policy_bias,
            value=self.value,
            value_bias=self.value_bias,
        )

    @classmethod
    def load(cls, path: Path | str) -> Network:
        with np.load(path) as data:
            return cls(**{name: np.asarray(data[name], np.float64) for name in data.files})

    def forward(self, inputs: Array, legal: npt.NDArray[np.bool_]) -> tuple[Array, Array, Array]:
        """The hidden layer, the policy (probabilities over the legal actions; over all of
        them in a game with none) and the values."""
        hidden = np.maximum(inputs @ self.hidden + self.hidden_bias, 0.0)
        logits = hidden @ self.policy + self.policy_bias
        legal = legal | ~legal.any(axis=1, keepdims=True)
        logits = np.where(legal, logits, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        weights = np.exp(logits)
        probabilities = weights / weights.sum(axis=1, keepdims=True)
        values = np.tanh(hidden @ self.value + self.value_bias[0])
        return hidden, probabilities, values


class NetworkPlayer(Player):
    """Plays the legal action the network likes best (or draws one, with ``temperature``)."""

    def __init__(self, network: Network, *, seed: int = 0, temperature: float = 0.0) -> None:
        self.network = network
        self.temperature = temperature
        self._random = random.Random(seed)

    def choose(self, game: Game, limits: Limits | None = None) -> Move:
        outcome = game.outcome()
        if outcome is not None:
            raise GameOverError(f"the game is over ({outcome.describe()}): no move to choose")
        state = ActionGame(game=game.copy())
        while True:
            planes = observe(state)[None]
            inputs, legal, gray = acting_view(planes, state.action_mask()[None])
            _, probabilities, _ = self.network.forward(inputs, legal)
            row = probabilities[0]
            if self.temperature > 0:
                weights = row ** (1.0 / self.temperature)
                choice = self._random.choices(range(NUM_ACTIONS), weights=weights.tolist())[0]
            else:
                choice = int(np.argmax(row))
            action = int(TURNED[choice]) if gray[0] else choice
            move = state.apply(action)
            if move is not None:
                return move


def network_player(spec: str, seed: int) -> Player:
    """The player of ``network:FILE`` (``network:file=FILE,temperature=T``)."""
    options = dict(parse_spec(spec).options)
    path = options.pop("", None) or options.pop("file", None)
    temperature_text = options.pop("temperature", "0")
    if options:
        raise InvalidPlayerError(
            f"invalid player {spec!r}: unknown options {', '.join(sorted(options))}"
        )
    if not path:
        raise InvalidPlayerError(f"invalid player {spec!r}: name the network's file (network:FILE)")
    try:
        temperature = float(temperature_text)
    except ValueError:
        temperature = -1.0
    if not 0.0 <= temperature <= 10.0:
        raise InvalidPlayerError(
            f"invalid player {spec!r}: temperature must be a number from 0 to 10"
        )
    try:
        network = Network.load(path)
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise InvalidPlayerError(
            f"invalid player {spec!r}: cannot read the network {path!r} ({error})"
        ) from None
    player = NetworkPlayer(network, seed=seed, temperature=temperature)
    player.spec = spec.strip()
    return player


register_player(
    PlayerKind(
        "network",
        network_player,
        "network:FILE.npz (a policy/value network trained by examples/self_play.py)",
    )
)
