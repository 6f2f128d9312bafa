"""The numbers of the learning interface: the 973 actions and the 19 observation planes.

They are defined here, below the RL environments, because the compiled simulation
(``simulation``) computes action masks and observation planes itself; ``bluegray.rl``
re-exports every name and documents what they mean (``docs/rl.md``).

- ``point * 8 + d`` (0-647): a soldier on ``point`` steps in step direction ``d``
  (``STEP_DIRECTIONS``: N, NE, E, SE, S, SW, W, NW; north is up a rank, east is up a file);
- ``648 + point * 4 + d`` (648-971): a soldier on ``point`` jumps in jump direction ``d``
  (``JUMP_DIRECTIONS``: N, E, S, W), over the enemy next to it, to the point beyond;
- ``972``: the captain's move (its one step, or its turbo slide).
"""

from __future__ import annotations

from typing import Final

from bluegray.points import SIZE, Point

STEP_DIRECTIONS: Final = (
    ("N", 0, 1),
    ("NE", 1, 1),
    ("E", 1, 0),
    ("SE", 1, -1),
    ("S", 0, -1),
    ("SW", -1, -1),
    ("W", -1, 0),
    ("NW", -1, 1),
)
"""The eight step directions ``(name, file change, rank change)``, in action order."""

JUMP_DIRECTIONS: Final = (("N", 0, 1), ("E", 1, 0), ("S", 0, -1), ("W", -1, 0))
"""The four jump directions ``(name, file change, rank change)``, in action order."""

NUM_STEP_ACTIONS: Final = 81 * len(STEP_DIRECTIONS)
"""648 step actions, from 0."""
FIRST_JUMP_ACTION: Final = NUM_STEP_ACTIONS
"""648: the first jump action."""
NUM_JUMP_ACTIONS: Final = 81 * len(JUMP_DIRECTIONS)
"""324 jump actions, from 648."""
CAPTAIN_ACTION: Final = FIRST_JUMP_ACTION + NUM_JUMP_ACTIONS
"""972: the captain's move."""
NUM_ACTIONS: Final = CAPTAIN_ACTION + 1
"""973 actions in all."""


def step_action(point: Point, direction: int) -> int:
    """The action of a soldier on ``point`` stepping in step direction ``direction`` (0-7)."""
    return point * len(STEP_DIRECTIONS) + direction


def jump_action(point: Point, direction: int) -> int:
    """The action of a soldier on ``point`` jumping in jump direction ``direction`` (0-3)."""
    return FIRST_JUMP_ACTION + point * len(JUMP_DIRECTIONS) + direction


def offset(point: Point, df: int, dr: int) -> Point | None:
    """The point ``df`` files and ``dr`` ranks from ``point``, or ``None`` off the board."""
    file, rank = point % SIZE + df, point // SIZE + dr
    if 0 <= file < SIZE and 0 <= rank < SIZE:
        return rank * SIZE + file
    return None


PLANES: Final = (
    "blue-captain",
    "blue-guards",
    "blue-privates",
    "gray-captain",
    "gray-guards",
    "gray-privates",
    "blue-path",
    "gray-path",
    "gray-to-act",
    "no-progress",
    "repetition",
    "blue-advancement",
    "gray-advancement",
    "capturing-piece",
    "turbo-captains",
    "maximal-capture",
    "lead-rule",
    "stalemate-loses",
    "impasse-by-advance",
)
"""The names of the observation planes, in order."""

NUM_PLANES: Final = len(PLANES)
OBSERVATION_SHAPE: Final = (NUM_PLANES, SIZE, SIZE)
PLANE: Final = {name: index for index, name in enumerate(PLANES)}
"""Each plane's index by name."""
