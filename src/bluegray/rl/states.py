"""Which action game the single-game environments step through: the compiled one
(``compiled_actions``) when numba is installed and ``BLUEGRAY_SEARCH`` is not ``python``, else
the rules core's (``actions.ActionGame``). Both answer alike."""

from __future__ import annotations

from bluegray.engine.search import search_choice
from bluegray.game import Game
from bluegray.position import Position
from bluegray.rl.actions import ActionGame
from bluegray.rules import RuleSet

try:
    from bluegray.rl.compiled_actions import CompiledActionGame
except ImportError:  # numba (the fast extra) is not installed: the plain action game serves
    COMPILED: type[ActionGame] | None = None
else:
    COMPILED = CompiledActionGame


def action_game(
    rules: RuleSet | str | None = None,
    position: Position | str | None = None,
    *,
    game: Game | None = None,
) -> ActionGame:
    """A new action game, on the compiled board when it can be."""
    kind = ActionGame if COMPILED is None or search_choice() == "python" else COMPILED
    return kind(rules, position, game=game)
