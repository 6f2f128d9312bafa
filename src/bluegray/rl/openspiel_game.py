"""Blue and Gray as an OpenSpiel game, ``python_bluegray``, so OpenSpiel's algorithms run on it.

Importing this module registers the game with ``pyspiel``:

>>> import pyspiel
>>> from bluegray.rl import openspiel_game
>>> game = pyspiel.load_game("python_bluegray", {"rules": "super-light"})
>>> state = game.new_initial_state()
>>> state.current_player(), len(state.legal_actions()), game.num_distinct_actions()
(0, 9, 973)

Actions are those of ``bluegray.rl.actions``: a capture is one action per jump, and the player
to act stays the same until its last jump. Player 0 is Blue, player 1 Gray; the returns are +1,
-1 or 0 at the end. ``max_game_length`` is a true bound (see :func:`max_game_length`).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from bluegray import bitboard
from bluegray.pieces import Side
from bluegray.points import PATH_LENGTH
from bluegray.position import Position
from bluegray.rl.actions import NUM_ACTIONS, IllegalActionError, action_text
from bluegray.rl.observation import OBSERVATION_SHAPE, observe
from bluegray.rl.render import status_text
from bluegray.rl.states import action_game
from bluegray.rules import RuleSet, as_rules

SHORT_NAME: Final = "python_bluegray"

GAME_TYPE: Final = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Python Blue and Gray",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"rules": "sackson", "position": ""},
)
"""The game type: ``rules`` is a preset name or settings text, ``position`` a start position
(empty for the rule set's start)."""


def max_game_length(rules: RuleSet | str | None, position: Position | str | None = None) -> int:
    """A bound on the number of actions in any game from ``position`` (default: the start).

    Between two *progress* plies (a capture, a captain's move, a private's forward step) at most
    ``impasse_plies`` plies pass before the no-progress rule ends the game, and progress is
    finite: each capture takes a soldier, each captain has at most 17 moves, each private a
    forward step per rank to its far rank. With ``E`` progress plies at most and ``S`` soldiers,
    a game has at most ``E + (E + 1) * impasse_plies`` plies, and its captures at most ``S``
    jump actions beyond their first.
    """
    rules = as_rules(rules)
    if position is None:
        start = Position.start(rules)
    elif isinstance(position, str):
        start = Position.parse(position, rules)
    else:
        start = position
    soldiers = sum(start.soldiers(side).bit_count() for side in (Side.BLUE, Side.GRAY))
    captain_moves = sum(PATH_LENGTH - start.advancement(side) for side in (Side.BLUE, Side.GRAY))
    forward_steps = sum(8 - point // 9 for point in bitboard.bits(start.privates[0]))
    forward_steps += sum(point // 9 for point in bitboard.bits(start.privates[1]))
    progress = soldiers + captain_moves + forward_steps
    return progress + (progress + 1) * rules.impasse_plies + soldiers


class BlueGrayGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game; made by ``pyspiel.load_game("python_bluegray", {"rules": ...})``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.rules = as_rules(str(params.get("rules", "sackson")))
        position_text = str(params.get("position", ""))
        self.start = (
            Position.parse(position_text, self.rules)
            if position_text
            else Position.start(self.rules)
        )
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_game_length(self.rules, self.start),
        )
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self) -> BlueGrayState:
        return BlueGrayState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> Any:
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return BoardObserver(params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class BlueGrayState(pyspiel.State):  # type: ignore[misc]
    """A state of the game: an :class:`ActionGame` (a ``Game`` and any capture in progress)."""

    def __init__(self, game: BlueGrayGame) -> None:
        super().__init__(game)
        self.actions = action_game(game.rules, game.start)

    def current_player(self) -> int:
        if self.actions.is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        return self.actions.turn.index

    def _legal_actions(self, player: int) -> list[int]:
        if self.actions.is_over() or player != self.actions.turn.index:
            return []
        return self.actions.legal_actions()

    def _apply_action(self, action: int) -> None:
        # An illegal action raises IllegalActionError (a ValueError) and changes nothing.
        self.actions.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return action_text(action)

    def is_terminal(self) -> bool:
        return self.actions.is_over()

    def returns(self) -> list[float]:
        return [self.actions.reward(Side.BLUE), self.actions.reward(Side.GRAY)]

    def __str__(self) -> str:
        return f"{self.actions.game.position}\n{status_text(self.actions)}"


class BoardObserver:
    """The observation tensor (the planes of ``bluegray.rl.observation``) and a text view."""

    def __init__(self, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        self.tensor = np.zeros(int(np.prod(OBSERVATION_SHAPE)), np.float32)
        self.dict = {"observation": self.tensor.reshape(OBSERVATION_SHAPE)}

    def set_from(self, state: BlueGrayState, player: int) -> None:
        observe(state.actions, self.dict["observation"])

    def string_from(self, state: BlueGrayState, player: int) -> str:
        return str(state)


def register() -> None:
    """Register ``python_bluegray`` with ``pyspiel`` (done when this module is imported)."""
    if SHORT_NAME not in pyspiel.registered_names():
        pyspiel.register_game(GAME_TYPE, BlueGrayGame)


def load_game(rules: RuleSet | str = "sackson", position: str = "") -> Any:
    """``pyspiel.load_game`` for Blue and Gray under ``rules`` (a preset name or settings)."""
    return pyspiel.load_game(SHORT_NAME, {"rules": str(as_rules(rules)), "position": position})


register()

__all__ = [
    "GAME_TYPE",
    "SHORT_NAME",
    "BlueGrayGame",
    "BlueGrayState",
    "IllegalActionError",
    "load_game",
    "max_game_length",
    "register",
]
