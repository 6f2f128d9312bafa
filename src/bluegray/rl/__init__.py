"""Reinforcement-learning environments for Blue and Gray (``pip install bluegray[rl]``).

- :class:`BlueGrayEnv`: a Gymnasium single-agent environment against one of our players
  (``gymnasium.make("bluegray/BlueGray-v0")`` once this package is imported);
- :class:`BlueGrayVectorEnv`: a Gymnasium vector environment, N games in lock-step on the
  compiled board (``gymnasium.make_vec("bluegray/BlueGray-v0", num_envs=N,
  vectorization_mode="vector_entry_point")``);
- :class:`BlueGrayAECEnv`: a PettingZoo AEC environment for two agents;
- ``python_bluegray``: an OpenSpiel game (:func:`load_openspiel_game`);
- the fixed action encoding (:mod:`bluegray.rl.actions`) and the observation planes
  (:mod:`bluegray.rl.observation`) they share. See ``docs/rl.md``.

The environments' own modules import Gymnasium, PettingZoo and OpenSpiel; this package imports
each only when a name that needs it is first used, so ``import bluegray`` never needs them.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

from bluegray.rl.actions import (
    CAPTAIN_ACTION,
    FIRST_JUMP_ACTION,
    JUMP_DIRECTIONS,
    NUM_ACTIONS,
    STEP_DIRECTIONS,
    Action,
    ActionGame,
    IllegalActionError,
    action_text,
    decode_action,
    jump_action,
    move_actions,
    step_action,
)
from bluegray.rl.observation import NUM_PLANES, OBSERVATION_SHAPE, PLANES, observe

try:  # registered below, so that gymnasium.make finds the environment by its id
    import gymnasium
except ImportError:  # pragma: no cover - the rl extra installs it
    _gymnasium: ModuleType | None = None
else:
    _gymnasium = gymnasium

if TYPE_CHECKING:
    from bluegray.rl.gymnasium_env import BlueGrayEnv
    from bluegray.rl.openspiel_game import BlueGrayGame, max_game_length
    from bluegray.rl.openspiel_game import load_game as load_openspiel_game
    from bluegray.rl.pettingzoo_env import BlueGrayAECEnv
    from bluegray.rl.pettingzoo_env import env as aec_env
    from bluegray.rl.render import render_ansi, render_rgb
    from bluegray.rl.vector_env import BlueGrayVectorEnv

ENV_ID = "bluegray/BlueGray-v0"
"""The Gymnasium id of :class:`BlueGrayEnv`."""

_LAZY = {
    "BlueGrayEnv": ("bluegray.rl.gymnasium_env", "BlueGrayEnv"),
    "BlueGrayVectorEnv": ("bluegray.rl.vector_env", "BlueGrayVectorEnv"),
    "BlueGrayAECEnv": ("bluegray.rl.pettingzoo_env", "BlueGrayAECEnv"),
    "aec_env": ("bluegray.rl.pettingzoo_env", "env"),
    "BlueGrayGame": ("bluegray.rl.openspiel_game", "BlueGrayGame"),
    "load_openspiel_game": ("bluegray.rl.openspiel_game", "load_game"),
    "max_game_length": ("bluegray.rl.openspiel_game", "max_game_length"),
    "render_ansi": ("bluegray.rl.render", "render_ansi"),
    "render_rgb": ("bluegray.rl.render", "render_rgb"),
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module, attribute = _LAZY[name]
        return getattr(importlib.import_module(module), attribute)
    raise AttributeError(f"module 'bluegray.rl' has no attribute {name!r}")


def _register_gymnasium() -> None:
    """Let ``gymnasium.make(ENV_ID)`` find the environment without importing it first."""
    if _gymnasium is None:  # pragma: no cover - the rl extra installs it
        return
    if ENV_ID not in _gymnasium.registry:
        _gymnasium.register(
            id=ENV_ID,
            entry_point="bluegray.rl.gymnasium_env:BlueGrayEnv",
            vector_entry_point="bluegray.rl.vector_env:BlueGrayVectorEnv",
        )


_register_gymnasium()

__all__ = [
    "CAPTAIN_ACTION",
    "ENV_ID",
    "FIRST_JUMP_ACTION",
    "JUMP_DIRECTIONS",
    "NUM_ACTIONS",
    "NUM_PLANES",
    "OBSERVATION_SHAPE",
    "PLANES",
    "STEP_DIRECTIONS",
    "Action",
    "ActionGame",
    "BlueGrayAECEnv",
    "BlueGrayEnv",
    "BlueGrayGame",
    "BlueGrayVectorEnv",
    "IllegalActionError",
    "action_text",
    "aec_env",
    "decode_action",
    "jump_action",
    "load_openspiel_game",
    "max_game_length",
    "move_actions",
    "observe",
    "render_ansi",
    "render_rgb",
    "step_action",
]
