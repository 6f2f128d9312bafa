"""The starter set: the puzzles shipped in the package (``starter/*.jsonl``, made by ``bluegray
puzzles generate``), read and checked with the rules core, and their first ratings."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from importlib import resources
from types import MappingProxyType
from typing import Final

from bluegray.errors import BlueGrayError
from bluegray.game import Game
from bluegray.rules import as_rules
from bluegray.web.puzzles.schemas import THEMES

FIRST_DEVIATION: Final = 200.0
FIRST_VOLATILITY: Final = 0.06


def first_rating(solver_moves: int, margin: float) -> float:
    """A new puzzle's rating: more moves to find and a narrower margin make it harder (1100 for
    a one-move puzzle whose move alone wins outright, up to about 1950)."""
    return 1100.0 + 250.0 * (solver_moves - 1) + 350.0 * (1.0 - min(max(margin, 0.3), 1.0))


def puzzle_values(data: dict[str, object]) -> dict[str, object]:
    """A puzzle row's values from a line of a puzzle file, checked (``ValueError`` if wrong)."""
    try:
        rules = as_rules(str(data["rules"]))
        game = Game(rules, str(data["position"]))
        solution = [str(move) for move in data["solution"]]  # type: ignore[attr-defined]
        game.push_all(solution)
        themes = [str(theme) for theme in data.get("themes", [])]  # type: ignore[attr-defined]
        margin = float(data.get("margin", 0.3))  # type: ignore[arg-type]
    except (KeyError, TypeError, BlueGrayError) as error:
        raise ValueError(f"not a puzzle: {error}") from None
    if len(solution) % 2 == 0 or set(themes) - set(THEMES):
        raise ValueError("not a puzzle: an even solution or an unknown theme")
    position = str(game.start)
    placement, side = position.split()[:2]
    return {
        "key": f"{rules} {placement} {side}",
        "rules": str(rules),
        "position": position,
        "solution": " ".join(solution),
        "themes": "," + "".join(f"{theme}," for theme in themes),
        "rating": first_rating((len(solution) + 1) // 2, margin),
        "deviation": FIRST_DEVIATION,
        "volatility": FIRST_VOLATILITY,
        "attempts": 0,
        "source": str(data.get("source", ""))[:20],
    }


@functools.cache
def starter_puzzles() -> tuple[Mapping[str, object], ...]:
    """The rows' values of every shipped puzzle, read and checked once a process (each web
    process's start looks them up; a test run starts hundreds of apps)."""
    folder = resources.files("bluegray.web.puzzles") / "starter"
    values = []
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        if not entry.name.endswith(".jsonl"):
            continue
        for line in entry.read_text().splitlines():
            if line.strip():
                values.append(puzzle_values(json.loads(line)))
    return tuple(MappingProxyType(row) for row in values)
