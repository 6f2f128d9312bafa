"""The static evaluation compiled with numba: ``evaluation``'s sum (the weights' dot product with
``evaluation.features``), read from ``compiled.board``'s piece codes instead of bitboards. The tests
check it equal to ``evaluation.Evaluator.evaluate``, exactly, in every rule set.

An evaluator with engine 4's network carries it here too (``CompiledEvaluation.network``): the
search evaluates with ``compiled.network.network_value`` then (``compiled.node.static_value``)."""

from __future__ import annotations

from typing import Final, NamedTuple

import numpy as np

from bluegray.bitboard import bits, rule_tables
from bluegray.engine import evaluation
from bluegray.engine.compiled.board import CAPTAIN, GUARD, CompiledRules
from bluegray.engine.compiled.compiler import compiled, use_source_keyed_cache
from bluegray.engine.compiled.network import CompiledNetwork, compiled_network
from bluegray.engine.evaluation import (
    ADVANCED_PRIVATES,
    ENEMY_FAR,
    ENEMY_NEAR,
    FREE_RUN,
    GUARDS,
    IMPASSE_PRESSURE,
    MOBILITY,
    NEAR,
    OWN_FAR,
    OWN_NEAR,
    PRIVATES,
    PROJECTED_LEAD,
    PROJECTED_MARGIN,
    RACE,
    RACE_BASE,
    SIEGE,
    SIMPLIFICATION,
    THREATENED,
    Evaluator,
    advancement_values,
)
from bluegray.engine.records import CAPTAIN_POINT, COUNT, TURN
from bluegray.points import CENTER, PATH_LENGTH, SIZE

use_source_keyed_cache()

TEMPO: Final = 0
# The extra numbers ``evaluate`` reads from ``CompiledEvaluation.extras``.
PRESSURE_WEIGHT: Final = 0
IMPASSE_PLIES: Final = 1
START_SOLDIERS: Final = 2


class CompiledEvaluation(NamedTuple):
    """What the compiled evaluation needs for one evaluator besides the rule set's paths and
    advancement (``compiled.board.CompiledRules``): its weights, the value of each advancement, a
    few
    numbers (``extras``: ``PRESSURE_WEIGHT``, ...) and the siege zone of every point."""

    weights: np.ndarray
    advancement_value: np.ndarray
    extras: np.ndarray
    zone_points: np.ndarray
    zone_sizes: np.ndarray
    network: CompiledNetwork
    """Engine 4's network when the evaluator has one (``compiled.network``; empty arrays when not):
    the search then evaluates with it instead of the linear sum."""


def compiled_evaluation(evaluator: Evaluator) -> CompiledEvaluation:
    """The evaluator's weights and tables as arrays."""
    tables = rule_tables(evaluator.rules)
    w = evaluator.vector
    extras = [
        w[IMPASSE_PRESSURE] if tables.impasse_by_advance else 0.0,
        tables.impasse_plies,
        evaluation.starting_soldiers(evaluator.rules),
    ]
    zones = evaluation.siege_zones()
    zone_points = np.full((81, 16), -1, np.int64)
    zone_sizes = np.zeros(81, np.int64)
    for point in range(81):
        members = bits(zones[1 << point])
        zone_sizes[point] = len(members)
        zone_points[point, : len(members)] = members
    return CompiledEvaluation(
        weights=np.array(w, dtype=np.float64),
        advancement_value=np.array(advancement_values(w), dtype=np.float64),
        extras=np.array(extras, dtype=np.float64),
        zone_points=zone_points,
        zone_sizes=zone_sizes,
        network=compiled_network(evaluator.network, tables.impasse_plies),
    )


@compiled(inline=True)
def _is_soldier(code: int, side: int) -> bool:
    return code != 0 and code >> 2 == side and code & 3 != CAPTAIN


@compiled(inline=True)
def _is_empty(cells: np.ndarray, point: int) -> bool:
    return point != CENTER and cells[point] == 0


@compiled()
def _path_counts(
    cells: np.ndarray,
    who: int,
    a: int,
    paths: np.ndarray,
    zone_points: np.ndarray,
    zone_sizes: np.ndarray,
) -> tuple[int, int, int, int, int, int]:
    """Along the rest of a side's captain's path (advancement ``a``): its own and the enemy's
    soldiers near and far, the free run, and the siege round the blocker."""
    enemy = who ^ 1
    near_own = near_enemy = far_own = far_enemy = run = siege = 0
    blocked = False
    for k in range(a + 1, PATH_LENGTH + 1):
        point = paths[who, k]
        code = cells[point]
        if not blocked:
            if code == 0:
                run += 1
            else:
                blocked = True
                if _is_soldier(code, enemy):
                    for z in range(zone_sizes[point]):
                        held = cells[zone_points[point, z]]
                        if _is_soldier(held, who):
                            siege += 1
                        elif _is_soldier(held, enemy):
                            siege -= 1
        if point == CENTER or code == 0:
            continue
        if k <= a + NEAR:
            if _is_soldier(code, who):
                near_own += 1
            elif _is_soldier(code, enemy):
                near_enemy += 1
        elif _is_soldier(code, who):
            far_own += 1
        elif _is_soldier(code, enemy):
            far_enemy += 1
    return near_own, near_enemy, far_own, far_enemy, run, siege


@compiled(inline=True)
def evaluate(
    cells: np.ndarray, state: np.ndarray, rules: CompiledRules, scoring: CompiledEvaluation
) -> int:
    """The value of the position for the side to move (see ``evaluation.features``)."""
    # The call passes the linear evaluation's arrays alone: each array passed costs time.
    return linear_value(
        cells,
        state,
        rules.paths,
        rules.advancement,
        scoring.weights,
        scoring.advancement_value,
        scoring.extras,
        scoring.zone_points,
        scoring.zone_sizes,
    )


@compiled()
def linear_value(
    cells: np.ndarray,
    state: np.ndarray,
    paths: np.ndarray,
    advancement: np.ndarray,
    weights: np.ndarray,
    advancement_value: np.ndarray,
    extras: np.ndarray,
    zone_points: np.ndarray,
    zone_sizes: np.ndarray,
) -> int:
    """``evaluate`` on the arrays it reads."""
    side = state[TURN]
    other = side ^ 1
    guards_blue = guards_gray = privates_blue = privates_gray = 0
    advanced_blue = advanced_gray = reach_blue = reach_gray = 0
    hanging = 0
    for point in range(81):
        code = cells[point]
        rank = point // SIZE
        file = point - rank * SIZE
        if code == 0:
            if point == CENTER:
                continue
            below = cells[point - SIZE] if rank > 0 else 0
            above = cells[point + SIZE] if rank < 8 else 0
            left = cells[point - 1] if file > 0 else 0
            right = cells[point + 1] if file < 8 else 0
            # Blue steps up (forward) and its guards down; Gray the other way round.
            if (
                _is_soldier(below, 0)
                or above == GUARD
                or _is_soldier(left, 0)
                or _is_soldier(right, 0)
            ):
                reach_blue += 1
            if (
                _is_soldier(above, 1)
                or below == 4 + GUARD
                or _is_soldier(left, 1)
                or _is_soldier(right, 1)
            ):
                reach_gray += 1
            continue
        owner = code >> 2
        kind = code & 3
        if kind == CAPTAIN:
            continue
        if kind == GUARD:
            if owner:
                guards_gray += 1
            else:
                guards_blue += 1
        elif owner:
            privates_gray += 1
            if rank <= 3:
                advanced_gray += 1
        else:
            privates_blue += 1
            if rank >= 5:
                advanced_blue += 1
        if owner == side:
            # Could an enemy soldier jump this one (orthogonally) if it were its move?
            vertical = 0 < rank < 8 and (
                (_is_soldier(cells[point - SIZE], other) and _is_empty(cells, point + SIZE))
                or (_is_soldier(cells[point + SIZE], other) and _is_empty(cells, point - SIZE))
            )
            sideways = 0 < file < 8 and (
                (_is_soldier(cells[point - 1], other) and _is_empty(cells, point + 1))
                or (_is_soldier(cells[point + 1], other) and _is_empty(cells, point - 1))
            )
            if vertical or sideways:
                hanging += 1
    a_mine = advancement[side, state[CAPTAIN_POINT + side]]
    a_theirs = advancement[other, state[CAPTAIN_POINT + other]]
    near_own, near_enemy, far_own, far_enemy, run, siege = _path_counts(
        cells, side, a_mine, paths, zone_points, zone_sizes
    )
    (
        their_near_own,
        their_near_enemy,
        their_far_own,
        their_far_enemy,
        their_run,
        their_siege,
    ) = _path_counts(cells, other, a_theirs, paths, zone_points, zone_sizes)
    if side:
        my_guards, their_guards = guards_gray, guards_blue
        my_privates, their_privates = privates_gray, privates_blue
        my_advanced, their_advanced = advanced_gray, advanced_blue
        my_reach, their_reach = reach_gray, reach_blue
    else:
        my_guards, their_guards = guards_blue, guards_gray
        my_privates, their_privates = privates_blue, privates_gray
        my_advanced, their_advanced = advanced_blue, advanced_gray
        my_reach, their_reach = reach_blue, reach_gray
    difference = a_mine - a_theirs
    race = difference
    if race > RACE:
        race = RACE
    elif race < -RACE:
        race = -RACE
    value = (
        weights[TEMPO]
        + advancement_value[a_mine]
        - advancement_value[a_theirs]
        + weights[RACE_BASE + race]
        + weights[OWN_NEAR] * (near_own - their_near_own)
        + weights[OWN_FAR] * (far_own - their_far_own)
        + weights[ENEMY_NEAR] * (near_enemy - their_near_enemy)
        + weights[ENEMY_FAR] * (far_enemy - their_far_enemy)
        + weights[FREE_RUN] * (run - their_run)
        + weights[GUARDS] * (my_guards - their_guards)
        + weights[THREATENED] * hanging
    )
    if weights[PROJECTED_LEAD]:
        stop_difference = a_mine + run - a_theirs - their_run
        if stop_difference >= PROJECTED_MARGIN:
            value += weights[PROJECTED_LEAD]
        elif stop_difference <= -PROJECTED_MARGIN:
            value -= weights[PROJECTED_LEAD]
    if my_privates or their_privates:
        value += weights[PRIVATES] * (my_privates - their_privates) + weights[ADVANCED_PRIVATES] * (
            my_advanced - their_advanced
        )
    if weights[MOBILITY]:
        value += weights[MOBILITY] * (my_reach - their_reach)
    if weights[SIEGE]:
        value += weights[SIEGE] * siege
        value -= weights[SIEGE] * their_siege
    if weights[SIMPLIFICATION]:
        mine = my_guards + my_privates
        theirs = their_guards + their_privates
        value += weights[SIMPLIFICATION] * (
            (mine - theirs) * (1 - (mine + theirs) / extras[START_SOLDIERS])
        )
    count = state[COUNT]
    if difference and extras[PRESSURE_WEIGHT] and count:
        pressure = count / extras[IMPASSE_PLIES]
        if pressure > 1.0:
            pressure = 1.0
        value += extras[PRESSURE_WEIGHT] * (pressure if difference > 0 else -pressure)
    return int(value)


__all__ = ["CompiledEvaluation", "compiled_evaluation", "evaluate"]
