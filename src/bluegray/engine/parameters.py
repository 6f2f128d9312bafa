"""The search tree's parameters: how far the quiescence search goes and what the pruning and
reductions may cut, shared by both kernels (``plainsearch`` and ``compiled.search``) so that they
search the same tree. ``faded`` is compiled as it is by the compiled kernel."""

from __future__ import annotations

from typing import Final

QUIESCENCE_PLIES: Final = 16
"""How deep the quiescence search follows forced captures before it trusts the evaluation."""

FUTILITY_DEPTH: Final = 3
"""Reverse futility pruning: at a null-window node this close to the horizon whose side to move
has no capture, a static evaluation that beats beta by ``FUTILITY_MARGIN`` a ply is trusted
without searching the moves."""
FUTILITY_MARGIN: Final = 100
"""Evaluation units (Elo points) a remaining ply is taken to be able to change."""
LATE_MOVE_COUNT: Final = 6
"""Late move pruning: at a null-window node of depth ``d`` up to ``FUTILITY_DEPTH``, quiet moves
after the first ``LATE_MOVE_COUNT + d * d`` (in the search's order, which puts the hash move,
killers and the captain's step first) are not searched."""
REDUCED_FROM_INDEX: Final = 4
"""Late move reductions: quiet moves from this index on (in the search's order), at depth 3 or
more, are searched a ply shallower first (never a captain's move)."""
DEEP_REDUCTION_INDEX: Final = 10
"""Late quiet moves from this index on, at depth 5 or more, are reduced by two plies, not one."""
NULL_MOVE_REDUCTION: Final = 2
"""Null-move pruning: at a null-window node of depth 3 or more whose static evaluation already
beats beta, the side to move passes and the opponent's best reply is searched this many plies
shallower than a move would be; if the side still beats beta, the node is cut off."""
NULL_MOVE_SOLDIERS: Final = 4
"""Null-move pruning needs this many soldiers on the side to move: with fewer, having to move
may itself be the loss (zugzwang: the guard that holds a blockade must step aside)."""
NULL_MOVE_COUNT_MARGIN: Final = 8
"""Nor is it tried within this many plies of the no-progress limit, where a pass (which restarts
the count in the searched line) would hide the impasse."""

KILLER_BONUS: Final = 1 << 24
"""Move ordering of quiet moves: the first killer's bonus over the history score (the second
killer's is half of it)."""
CAPTAIN_BONUS: Final = 1 << 20
"""Move ordering of quiet moves: the captain's step comes after the killers, before the rest."""
NEAR_LIMIT_KEY: Final = 0x9E3779B97F4A7C15
"""Near the no-progress limit, the count times this is mixed into a position's table key."""


def counted_from(impasse_plies: int, fade: int) -> int:
    """The no-progress count from which it is part of a position's key: near the limit, and
    wherever the evaluation fades, the count changes what a position is worth."""
    return max(0, impasse_plies - max(24, fade))


def faded(value: int, count: int, impasse_plies: int, fade: int) -> int:
    """``value`` shrunk towards a draw over the last ``fade`` plies before the no-progress limit
    (integer arithmetic, compiled as it is by the compiled kernel); ``fade`` 0 never shrinks."""
    remaining = impasse_plies - count
    if fade <= 0 or remaining >= fade:
        return value
    return value * max(remaining, 0) // fade
