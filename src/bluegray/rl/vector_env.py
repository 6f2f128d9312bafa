"""A Gymnasium vector environment: N games of Blue and Gray stepped in lock-step on the compiled
board (``bluegray.engine.simulation``), with automatic reset, action masks and observations.

>>> from bluegray.rl.vector_env import BlueGrayVectorEnv
>>> envs = BlueGrayVectorEnv(4, rules="super-light", opponent="random")
>>> observations, infos = envs.reset(seed=0)
>>> observations.shape, infos["action_mask"].shape
((4, 19, 9, 9), (4, 973))
>>> actions = [int(np.flatnonzero(mask)[0]) for mask in infos["action_mask"]]
>>> observations, rewards, terminated, truncated, infos = envs.step(actions)
>>> rewards.shape, terminated.dtype
((4,), dtype('bool'))
"""

from __future__ import annotations

import contextlib
import itertools
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from bluegray.engine.encoding import NUM_ACTIONS, NUM_PLANES, OBSERVATION_SHAPE
from bluegray.engine.players import Player, player_from_spec
from bluegray.engine.simulation import (
    PLAYER_OPPONENT,
    PLIES,
    RANDOM_OPPONENT,
    RANDOM_SIDE,
    SELF_PLAY,
    TABLES,
    Finals,
    Seats,
    Simulation,
    StepOutput,
    answer,
    observe_all,
    step_envs,
)
from bluegray.errors import BlueGrayError
from bluegray.moves import Move
from bluegray.protocol import player as engine_player  # noqa: F401 - registers engine: players
from bluegray.rl import network_player  # noqa: F401 - registers network: players
from bluegray.rl.actions import ActionGame, IllegalActionError, action_text
from bluegray.rules import RuleSet, as_rules

Observation = npt.NDArray[Any]

SIDES: Final = {"blue": 0, "gray": 1, "random": RANDOM_SIDE}
SIDE_NAMES: Final = ("blue", "gray")


def move_row(move: Move) -> npt.NDArray[np.int64]:
    """A move as a move row of ``records``: from, to, how many it takes, the points taken."""
    row = np.zeros(21, np.int64)
    points = move.points
    row[0], row[1] = points[0], points[-1]
    if move.capture:
        taken = [(a + b) // 2 for a, b in itertools.pairwise(points)]
        row[2] = len(taken)
        row[3 : 3 + len(taken)] = taken
    return row


class BlueGrayVectorEnv(VectorEnv):
    """``num_envs`` games of Blue and Gray in lock-step (see ``docs/rl.md``, "Vector
    environment").

    - ``rules``: a preset name, settings text or ``RuleSet``;
    - ``opponent``: a player spec (``random``, ``greedy``, ``level:N``, ``mcts`` ...), a
      ``Player``, or ``None`` for self-play (both sides are agents: each step is an action of
      the side to act, and its reward is that side's); ``random`` plays inside the compiled
      step, any other player in Python between the steps;
    - ``agent_side``: ``blue``, ``gray`` or ``random`` (drawn at each episode's start);
    - ``observation``: ``planes`` (the ``(19, 9, 9)`` float32 planes of ``bluegray.rl``) or
      ``board`` (the 81 point codes, int8: ``side * 4 + kind``, kinds 1 guard, 2 private,
      3 captain, 0 empty; the capture in progress shown as in the planes);
    - ``autoreset_mode``: ``next-step`` (Gymnasium's default: a game that ended is started
      again at the next step, whose action is ignored) or ``same-step`` (started again at
      once; its final observation is ``info["final_obs"]``);
    - ``illegal_action``: ``lose`` (an action outside the mask ends that game as a loss,
      reward -1, ``info["illegal_action"]``) or ``raise`` (``IllegalActionError``, nothing
      changed);
    - ``copy``: return fresh arrays (the default) or the environment's own buffers, which the
      next step overwrites (faster).

    The masks are ``info["action_mask"]`` (int8, ``(num_envs, 973)``) and
    :meth:`action_masks` (bool). Rewards are 0 until a game ends, then +1, -1 or 0.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int,
        rules: RuleSet | str | None = "sackson",
        opponent: str | Player | None = "random",
        agent_side: Literal["blue", "gray", "random"] = "blue",
        *,
        observation: Literal["planes", "board"] = "planes",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        illegal_action: Literal["lose", "raise"] = "lose",
        copy: bool = True,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs}")
        if agent_side not in SIDES:
            raise ValueError(f"invalid agent_side {agent_side!r}: expected blue, gray or random")
        if observation not in ("planes", "board"):
            raise ValueError(f"invalid observation {observation!r}: expected planes or board")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"invalid illegal_action {illegal_action!r}: expected lose or raise")
        mode = AutoresetMode(autoreset_mode)
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError(f"invalid autoreset_mode {mode.value!r}: next-step or same-step")
        self.metadata = {"autoreset_mode": mode}
        self.num_envs = num_envs
        self.rules = as_rules(rules)
        if isinstance(opponent, str):
            player_from_spec(opponent)  # reject a bad spec now, not at the first reset
        self.opponent_spec = opponent
        kind = (
            SELF_PLAY
            if opponent is None
            else RANDOM_OPPONENT
            if isinstance(opponent, str) and opponent.strip() == "random"
            else PLAYER_OPPONENT
        )
        self.agent_side_choice = agent_side
        self.observation_kind = observation
        self.illegal_action = illegal_action
        self.copy = copy
        self.simulation = Simulation(self.rules, num_envs, seed=None)
        self.seats = Seats(np.zeros(num_envs, np.int64), SIDES[agent_side], kind)
        if kind != SELF_PLAY and agent_side != "random":
            self.seats.sides[:] = SIDES[agent_side]
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.action_space = batch_space(self.single_action_space, num_envs)
        if observation == "planes":
            self.single_observation_space: spaces.Box = spaces.Box(
                0.0, 1.0, OBSERVATION_SHAPE, dtype=np.float32
            )
        else:
            self.single_observation_space = spaces.Box(0, 7, (81,), dtype=np.int8)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self._planes = np.zeros(
            (num_envs if observation == "planes" else 0, NUM_PLANES, 81), np.float32
        )
        self._board = np.zeros((num_envs if observation == "board" else 0, 81), np.int8)
        self._masks = np.zeros((num_envs, NUM_ACTIONS), np.int8)
        same = mode is AutoresetMode.SAME_STEP
        self._finals = Finals(
            same,
            np.zeros(
                (num_envs if same and observation == "planes" else 0, NUM_PLANES, 81), np.float32
            ),
            np.zeros((num_envs if same and observation == "board" else 0, 81), np.int8),
        )
        self._output = StepOutput(
            np.zeros(num_envs, np.float64),
            np.zeros(num_envs, np.bool_),
            np.zeros(num_envs, np.bool_),
            np.zeros(num_envs, np.bool_),
            np.zeros(num_envs, np.bool_),
            np.zeros(num_envs, np.int64),
        )
        self._needs_reset = np.ones(num_envs, np.bool_)
        self._all = np.ones(num_envs, np.bool_)
        self._no_actions = np.zeros(num_envs, np.int64)
        self._truncated = np.zeros(num_envs, np.bool_)
        self._opponents: list[Player] = []
        self._mirrors: list[ActionGame] = []
        self._started = False
        self._position: str | None = None

    # -- the episodes ----------------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Start every game again (from ``options["position"]`` if given, else the rule set's
        start). ``seed`` seeds the games' generators (drawn sides, random opponents) and the
        opponents made from a spec: the same seed and actions give the same episodes."""
        super().reset(seed=seed)
        if seed is not None or not self._started:
            self.simulation.seed(seed)
        if options and options.get("position") is not None:
            self._position = str(options["position"])
            self.simulation.set_starts(self._position)
        if self.seats.opponent == PLAYER_OPPONENT:
            self._make_opponents()
        self._started = True
        self._needs_reset[:] = True
        self._step(self._no_actions)
        return self._observations(), self._infos()

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        Observation,
        npt.NDArray[np.float64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        if not self._started:
            raise BlueGrayError("call reset() before step()")
        chosen = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        acting = ~self._needs_reset
        if self.illegal_action == "raise":
            self._check(chosen, acting)
        if self.seats.opponent == PLAYER_OPPONENT:
            for g in np.flatnonzero(acting).tolist():
                with contextlib.suppress(IllegalActionError):  # then the game ends as a loss
                    self._mirrors[g].apply(int(chosen[g]))
        self._step(chosen)
        output = self._output
        infos = self._infos()
        if self.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP and output.terminated.any():
            infos["final_obs"] = self._final_observations(output.terminated)
            infos["_final_obs"] = output.terminated.copy()
        rewards = output.rewards.copy() if self.copy else output.rewards
        terminated = output.terminated.copy() if self.copy else output.terminated
        return self._observations(), rewards, terminated, self._truncated.copy(), infos

    def _check(self, actions: npt.NDArray[np.int64], acting: npt.NDArray[np.bool_]) -> None:
        out_of_range = (actions < 0) | (actions >= NUM_ACTIONS)
        legal = np.zeros(self.num_envs, np.bool_)
        inside = ~out_of_range
        legal[inside] = self._masks[np.flatnonzero(inside), actions[inside]] == 1
        wrong = np.flatnonzero(acting & ~legal)
        if wrong.size:
            g = int(wrong[0])
            action = int(actions[g])
            text = action_text(action) if 0 <= action < NUM_ACTIONS else "not an action"
            legal_text = ", ".join(str(a) for a in np.flatnonzero(self._masks[g]))
            raise IllegalActionError(
                f"illegal action {action} ({text}) in environment {g}; legal actions: {legal_text}"
            )

    def _step(self, actions: npt.NDArray[np.int64]) -> None:
        simulation = self.simulation
        step_envs(
            simulation.games,
            simulation.starts,
            simulation.compiled_rules,
            TABLES,
            simulation.work,
            self.seats,
            actions,
            self.illegal_action == "lose",
            self._needs_reset,
            self._output,
            self._masks,
            self._finals,
        )
        if self.seats.opponent == PLAYER_OPPONENT:
            self._play_opponents()

    def _make_opponents(self) -> None:
        for player in self._opponents:
            if player is not self.opponent_spec:
                player.close()
        spec = self.opponent_spec
        if isinstance(spec, str):
            seeds = self.np_random.integers(2**31 - 1, size=self.num_envs).tolist()
            self._opponents = [player_from_spec(spec, seed=int(seed)) for seed in seeds]
        else:
            assert spec is not None
            self._opponents = [spec] * self.num_envs
        self._mirrors = [ActionGame(self.rules, self._position) for _ in range(self.num_envs)]
        for player in self._opponents:
            player.new_game(self.rules)

    def _play_opponents(self) -> None:
        """Play the Python opponents' moves where they are to move, keeping a ``Game`` of each
        environment for them to see (with its history)."""
        simulation = self.simulation
        output = self._output
        while True:
            pending = np.flatnonzero(output.pending).tolist()
            if not pending:
                break
            for g in pending:
                self._refresh_mirror(g)
                mirror = self._mirrors[g]
                move = self._opponents[g].choose(mirror.game)
                mirror.push(move)
                answer(
                    g,
                    move_row(move),
                    simulation.games,
                    simulation.starts,
                    simulation.compiled_rules,
                    TABLES,
                    simulation.work,
                    self.seats,
                    output,
                    self._masks,
                    self._finals,
                    self._needs_reset,
                )
        for g in np.flatnonzero(output.restarted).tolist():
            self._refresh_mirror(g)

    def _refresh_mirror(self, g: int) -> None:
        """A new game for the opponent of environment ``g`` when its game has just started."""
        mirror = self._mirrors[g]
        if self.simulation.games.status[g, PLIES] == 0 and (mirror.game.ply or mirror.capture):
            self._mirrors[g] = ActionGame(self.rules, self._position)
            self._opponents[g].new_game(self.rules)

    # -- what the agents see ---------------------------------------------------------------------

    def _observations(self) -> Observation:
        simulation = self.simulation
        observe_all(
            simulation.games,
            simulation.compiled_rules,
            simulation.work,
            self._planes,
            self._board,
            self._all,
        )
        if self.observation_kind == "planes":
            planes = self._planes.reshape(self.num_envs, *OBSERVATION_SHAPE)
            return planes.copy() if self.copy else planes
        return self._board.copy() if self.copy else self._board

    def _final_observations(self, ended: npt.NDArray[np.bool_]) -> npt.NDArray[np.object_]:
        finals = np.full(self.num_envs, None, dtype=object)
        source = (
            self._finals.planes.reshape(-1, *OBSERVATION_SHAPE)
            if self.observation_kind == "planes"
            else self._finals.board
        )
        for g in np.flatnonzero(ended).tolist():
            finals[g] = source[g].copy()
        return finals

    def _infos(self) -> dict[str, Any]:
        output = self._output
        masks = self._masks.copy() if self.copy else self._masks
        infos: dict[str, Any] = {
            "action_mask": masks,
            "_action_mask": self._all,
            "agent_side": self.seats.sides.copy(),
            "_agent_side": self._all,
        }
        if output.terminated.any():
            infos["winner"] = output.winners.copy()
            infos["_winner"] = output.terminated.copy()
        if output.illegal.any():
            infos["illegal_action"] = output.illegal.copy()
            infos["_illegal_action"] = output.illegal.copy()
        return infos

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of every environment as booleans, ``(num_envs, 973)``."""
        return self._masks.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        for player in self._opponents:
            if player is not self.opponent_spec:
                player.close()
        self._opponents = []
