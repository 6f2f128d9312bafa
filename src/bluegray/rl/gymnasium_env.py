"""A Gymnasium single-agent environment: the agent plays one side against one of our players.

>>> import gymnasium as gym
>>> import bluegray.rl
>>> env = gym.make("bluegray/BlueGray-v0", rules="super-light", opponent="random")
>>> observation, info = env.reset(seed=0)
>>> observation.shape, int(info["action_mask"].sum())
((19, 9, 9), 9)
"""

from __future__ import annotations

from typing import Any, Literal, SupportsFloat, SupportsIndex

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from bluegray.engine.players import Player, RandomPlayer, player_from_spec
from bluegray.errors import BlueGrayError
from bluegray.pieces import Side
from bluegray.position import Position
from bluegray.protocol import player as engine_player  # noqa: F401 - registers engine: players
from bluegray.rl import network_player  # noqa: F401 - registers network: players
from bluegray.rl.actions import NUM_ACTIONS, IllegalActionError, action_text
from bluegray.rl.observation import OBSERVATION_SHAPE, observe
from bluegray.rl.render import render_ansi, render_rgb
from bluegray.rl.states import action_game
from bluegray.rules import RuleSet, as_rules

Observation = npt.NDArray[np.float32]


class BlueGrayEnv(gym.Env[Observation, np.int64]):
    """Blue and Gray against an opponent player, one action per step (see ``docs/rl.md``).

    - ``rules``: a preset name, settings text or ``RuleSet``;
    - ``opponent``: a player spec (``random``, ``greedy``, ``level:N``, ``mcts`` ...) or a
      ``Player``; a spec's player is made again at each reset, seeded from the environment;
    - ``agent_side``: ``blue``, ``gray``, or ``random`` (drawn at each reset);
    - ``illegal_action``: ``lose`` (an action outside the mask ends the episode as a loss,
      reward -1, ``info["illegal_action"]`` set) or ``raise`` (``IllegalActionError``);
    - ``render_mode``: ``ansi`` (text) or ``rgb_array`` (``render_size`` pixels square).

    The observation is the ``(19, 9, 9)`` float32 planes of ``bluegray.rl.observation``; the
    action mask is ``info["action_mask"]`` (int8, 973 values) and :meth:`action_masks` (bool).
    ``reset(options={"position": text})`` starts from a position instead of the start.
    The reward is 0 until the end, then +1 for a win, -1 for a loss and 0 for a draw.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}  # noqa: RUF012

    def __init__(
        self,
        rules: RuleSet | str | None = "sackson",
        opponent: str | Player = "random",
        agent_side: Literal["blue", "gray", "random"] = "blue",
        *,
        illegal_action: Literal["lose", "raise"] = "lose",
        render_mode: str | None = None,
        render_size: int = 360,
    ) -> None:
        self.rules = as_rules(rules)
        if isinstance(opponent, str):
            player_from_spec(opponent)  # reject a bad spec now, not at the first reset
        self.opponent_spec = opponent
        if agent_side not in ("blue", "gray", "random"):
            raise ValueError(f"invalid agent_side {agent_side!r}: expected blue, gray or random")
        self.agent_side_choice = agent_side
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"invalid illegal_action {illegal_action!r}: expected lose or raise")
        self.illegal_action = illegal_action
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"invalid render_mode {render_mode!r}: expected ansi or rgb_array")
        self.render_mode = render_mode
        self.render_size = render_size
        self.observation_space = spaces.Box(0.0, 1.0, OBSERVATION_SHAPE, dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.state = action_game(self.rules)
        self.agent_side = Side.BLUE
        self.opponent: Player | None = None
        self._finished = False

    # -- the episode -------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        position: Position | str | None = None
        if options and options.get("position") is not None:
            position = options["position"]
        self.state = action_game(self.rules, position)
        if self.agent_side_choice == "random":
            self.agent_side = (Side.BLUE, Side.GRAY)[int(self.np_random.integers(2))]
        else:
            self.agent_side = Side(self.agent_side_choice)
        if isinstance(self.opponent_spec, str):
            opponent_seed = int(self.np_random.integers(2**31 - 1))
            self.opponent = player_from_spec(self.opponent_spec, seed=opponent_seed)
        else:
            self.opponent = self.opponent_spec
        self.opponent.new_game(self.rules)
        self._finished = False
        self._play_opponent()
        if self.state.is_over():
            raise BlueGrayError(
                "the game is over before the agent's first action "
                f"({self.state.game.position}): start from an unfinished position"
            )
        return observe(self.state), self._info()

    def step(
        self, action: np.int64 | int
    ) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        if self._finished:
            raise BlueGrayError("the episode is over: call reset() before step()")
        try:
            self.state.apply(action)
        except IllegalActionError:
            if self.illegal_action == "raise":
                raise
            self._finished = True
            info = self._info()
            info["illegal_action"] = True
            return observe(self.state), -1.0, True, False, info
        self._play_opponent()
        self._finished = self.state.is_over()
        return (
            observe(self.state),
            self.state.reward(self.agent_side),
            self._finished,
            False,
            self._info(),
        )

    def _play_opponent(self) -> None:
        assert self.opponent is not None
        while not self.state.is_over() and self.state.turn is not self.agent_side:
            if isinstance(self.opponent, RandomPlayer):  # the same move, without a Game's list
                self.state.push_choice(self.opponent.pick)
            else:
                self.state.push(self.opponent.choose(self.state.game))

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "action_mask": self.state.action_mask(),
            "agent_side": self.agent_side.value,
            "capture": list(self.state.capture),
        }
        outcome = self.state.outcome()
        if outcome is not None:
            info["outcome"] = outcome.describe()
            info["winner"] = None if outcome.winner is None else outcome.winner.value
        return info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions as booleans (the method sb3-contrib's ``MaskablePPO`` calls)."""
        return self.state.action_mask().astype(bool)

    def action_text(self, action: SupportsIndex) -> str:
        """A name for an action: ``d2-d3``, ``b2xb4`` (one jump) or ``captain``."""
        return action_text(action)

    # -- pictures ----------------------------------------------------------------------------

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        if self.render_mode == "ansi":
            return render_ansi(self.state)
        if self.render_mode == "rgb_array":
            return render_rgb(self.state, self.render_size)
        return None

    def close(self) -> None:
        if self.opponent is not None and self.opponent is not self.opponent_spec:
            self.opponent.close()
        self.opponent = None
