"""A PettingZoo AEC environment: Blue (``blue_0``) and Gray (``gray_0``), one action per step.

>>> from bluegray.rl.pettingzoo_env import BlueGrayAECEnv
>>> env = BlueGrayAECEnv(rules="super-light")
>>> env.reset(seed=0)
>>> observation, reward, terminated, truncated, info = env.last()
>>> env.agent_selection, observation["observation"].shape, int(observation["action_mask"].sum())
('blue_0', (19, 9, 9), 9)
"""

from __future__ import annotations

from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from bluegray.pieces import Side
from bluegray.position import Position
from bluegray.rl.actions import NUM_ACTIONS, IllegalActionError
from bluegray.rl.observation import OBSERVATION_SHAPE, observe
from bluegray.rl.render import render_ansi, render_rgb
from bluegray.rl.states import action_game
from bluegray.rules import RuleSet, as_rules

AGENTS: Final = ("blue_0", "gray_0")
"""The agents' names: Blue's first, as Blue moves first."""

_SIDE_OF: Final = {"blue_0": Side.BLUE, "gray_0": Side.GRAY}

Observation = dict[str, npt.NDArray[Any]]


def agent_of(side: Side) -> str:
    """The agent that plays ``side``."""
    return AGENTS[side.index]


class BlueGrayAECEnv(AECEnv):  # type: ignore[misc]
    """Blue and Gray for two agents (see ``docs/rl.md``).

    Each observation is a dict: ``observation``, the ``(19, 9, 9)`` float32 planes of
    ``bluegray.rl.observation`` (the same for both agents: the game has no hidden information),
    and ``action_mask``, 973 int8 values, all 0 for the agent not acting. During a capture the
    same agent acts again, one jump per step. At the end both agents get +1 for a win, -1 for a
    loss and 0 for a draw. ``illegal_action="lose"`` (the default) makes an action outside the
    mask lose the game (offender -1, opponent +1, ``infos[agent]["illegal_action"]``);
    ``"raise"`` raises ``IllegalActionError`` instead. ``reset(options={"position": text})``
    starts from a position.
    """

    metadata: dict[str, Any] = {  # noqa: RUF012
        "render_modes": ["ansi", "rgb_array"],
        "name": "bluegray_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        rules: RuleSet | str | None = "sackson",
        *,
        illegal_action: Literal["lose", "raise"] = "lose",
        render_mode: str | None = None,
        render_size: int = 360,
    ) -> None:
        super().__init__()
        self.rules = as_rules(rules)
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"invalid illegal_action {illegal_action!r}: expected lose or raise")
        self.illegal_action = illegal_action
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"invalid render_mode {render_mode!r}: expected ansi or rgb_array")
        self.render_mode = render_mode
        self.render_size = render_size
        self.possible_agents = list(AGENTS)
        board = spaces.Box(0.0, 1.0, OBSERVATION_SHAPE, dtype=np.float32)
        mask = spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8)
        self.observation_spaces = {
            agent: spaces.Dict({"observation": board, "action_mask": mask}) for agent in AGENTS
        }
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in AGENTS}
        self.game = action_game(self.rules)
        self._start_game(None)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def _start_game(self, position: Position | str | None) -> None:
        self.game = action_game(self.rules, position)
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = agent_of(self.game.turn)
        if self.game.is_over():
            self._finish(illegal=None)
            self._accumulate_rewards()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # The game has no chance: the seed only seeds the spaces, for sampling.
        if seed is not None:
            for index, agent in enumerate(AGENTS):
                self.action_spaces[agent].seed(seed + index)
                self.observation_spaces[agent].seed(seed + index)
        position = None if not options else options.get("position")
        self._start_game(position)

    def observe(self, agent: str) -> Observation:
        mask = (
            self.game.action_mask()
            if agent == self.agent_selection and not self.terminations.get(agent, True)
            else np.zeros(NUM_ACTIONS, dtype=np.int8)
        )
        return {"observation": observe(self.game), "action_mask": mask}

    def state(self) -> npt.NDArray[np.float32]:
        """The observation planes (both agents see the whole game)."""
        return observe(self.game)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        try:
            if action is None:
                raise IllegalActionError(f"{agent} must act: None is no action")
            self.game.apply(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._finish(illegal=agent)
        else:
            if self.game.is_over():
                self._finish(illegal=None)
            else:
                self.agent_selection = agent_of(self.game.turn)
        self._accumulate_rewards()

    def _finish(self, illegal: str | None) -> None:
        outcome = self.game.outcome()
        for agent in self.agents:
            if illegal is not None:
                self.rewards[agent] = -1.0 if agent == illegal else 1.0
                self.infos[agent] = {"illegal_action": agent == illegal}
            else:
                assert outcome is not None
                self.rewards[agent] = self.game.reward(_SIDE_OF[agent])
                winner = None if outcome.winner is None else outcome.winner.value
                self.infos[agent] = {"outcome": outcome.describe(), "winner": winner}
        self.terminations = dict.fromkeys(self.agents, True)
        # Both agents see the end: the one who did not make the last move goes first.
        mover = self.agent_selection
        self.agent_selection = next((a for a in self.agents if a != mover), mover)

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        if self.render_mode == "ansi":
            return render_ansi(self.game)
        if self.render_mode == "rgb_array":
            return render_rgb(self.game, self.render_size)
        return None

    def close(self) -> None:
        """Nothing to release."""


def env(**kwargs: Any) -> Any:
    """The environment in PettingZoo's usual wrapper, which enforces reset before step."""
    return wrappers.OrderEnforcingWrapper(BlueGrayAECEnv(**kwargs))
