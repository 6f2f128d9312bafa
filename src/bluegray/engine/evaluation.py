"""The static evaluation: what a position is worth to the side to move, without searching.

The evaluation is linear in a set of features (``FEATURES``), each counted for the side to move
minus the same count for the opponent, or for the side to move alone. Its unit is the Elo point:
an evaluation ``v`` means the side to move is expected to score ``1 / (1 + 10 ** (-v / 400))``.
The weights are fitted to self-play results per rule set family (``weights.json``, produced by
``scripts/tune_evaluation.py``; see docs/evaluation.md).

The evaluation is defined once: the weights' dot product with ``features`` (the plain version,
also what tuning fits), summed in the features' order and truncated to an integer.
``Evaluator.evaluate`` computes the same number fast for the plain Python search, and
``compiled.evaluation.evaluate`` compiles it for the compiled one; the tests check all three equal,
exactly,
in every rule set (``tests/engine/test_compiled.py``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from importlib import resources
from typing import Final

from bluegray.bitboard import Board
from bluegray.engine.network import Network, corrected
from bluegray.points import PATH_LENGTH, SIZE
from bluegray.position import Position
from bluegray.rule_tables import RuleTables, rule_tables
from bluegray.rules import Captain, RuleSet, Soldiers, Start
from bluegray.steps import CENTER_BB, FULL, NOT_FILE_A, NOT_FILE_I, SOLDIER_SQUARES

NEAR: Final = 2
"""How many points ahead of a captain count as the near part of its path."""
RACE: Final = 2
"""The advancement difference is counted exactly up to this many steps either way."""
MIDDLE: Final = 5
END: Final = 11
"""Advancement counts linearly, with extra slopes from the ``MIDDLE`` and the ``END`` of the
path on (after b5 and after b7 on Blue's path): piecewise linear, three weights."""

FEATURES: Final = (
    "tempo",
    "advancement",
    "advancement-middle",
    "advancement-end",
    *(f"race{d:+d}" for d in range(-RACE, RACE + 1)),
    "own-blockers-near",
    "own-blockers-far",
    "enemy-blockers-near",
    "enemy-blockers-far",
    "free-run",
    "guards",
    "privates",
    "advanced-privates",
    "mobility",
    "threatened",
    "impasse-pressure",
    "siege",
    "simplification",
    "projected-lead",
)
"""The names of the features, in the order of the weight vectors."""

_INDEX: Final = {name: index for index, name in enumerate(FEATURES)}
ADVANCEMENT: Final = _INDEX["advancement"]
RACE_BASE: Final = _INDEX["race+0"]
OWN_NEAR: Final = _INDEX["own-blockers-near"]
OWN_FAR: Final = _INDEX["own-blockers-far"]
ENEMY_NEAR: Final = _INDEX["enemy-blockers-near"]
ENEMY_FAR: Final = _INDEX["enemy-blockers-far"]
FREE_RUN: Final = _INDEX["free-run"]
GUARDS: Final = _INDEX["guards"]
PRIVATES: Final = _INDEX["privates"]
ADVANCED_PRIVATES: Final = _INDEX["advanced-privates"]
MOBILITY: Final = _INDEX["mobility"]
THREATENED: Final = _INDEX["threatened"]
IMPASSE_PRESSURE: Final = _INDEX["impasse-pressure"]
SIEGE: Final = _INDEX["siege"]
SIMPLIFICATION: Final = _INDEX["simplification"]
PROJECTED_LEAD: Final = _INDEX["projected-lead"]

PROJECTED_MARGIN: Final = 3
"""How far one captain's projected stop (its advancement plus its free run) must be ahead of the
other's for the ``projected-lead`` feature: the usual lead rule's three steps."""

SIEGE_REACH: Final = 2
"""A soldier within this many orthogonal steps of a captain's blocker counts in the siege."""

ELO_PER_LOGIT: Final = 400 / math.log(10)
"""Converts a logit (natural log odds) into evaluation units."""


def expected_score(value: float) -> float:
    """The expected score (0 to 1) of the side to move for an evaluation ``value``."""
    return 1 / (1 + 10 ** (-value / 400))


def family(rules: RuleSet) -> str:
    """The name of the weight set for a rule set: the published preset that shares the settings
    that matter to the evaluation (captain, soldiers, army, start, lead, impasse rule)."""
    captain = "turbo" if rules.captain is Captain.TURBO else "standard"
    soldiers = "private" if rules.soldiers is Soldiers.PRIVATE else "guard"
    start = "pow" if rules.start is Start.POW else "home"
    lead = "lead" if rules.lead is not None else "nolead"
    return f"{captain}-{soldiers}-{rules.army.value}-{start}-{lead}-{rules.impasse.value}"


@lru_cache(maxsize=1)
def _weight_file() -> dict[str, dict[str, float]]:
    text = resources.files("bluegray.engine").joinpath("weights.json").read_text("utf-8")
    data: dict[str, dict[str, float]] = json.loads(text)["families"]
    return data


DEFAULT_WEIGHTS: Final = {
    "tempo": 10.0,
    "advancement": 35.0,
    "advancement-middle": 10.0,
    "advancement-end": 15.0,
    "race-2": -60.0,
    "race-1": -25.0,
    "race+0": 0.0,
    "race+1": 25.0,
    "race+2": 60.0,
    "own-blockers-near": -15.0,
    "own-blockers-far": -4.0,
    "enemy-blockers-near": -45.0,
    "enemy-blockers-far": -12.0,
    "free-run": 12.0,
    "guards": 22.0,
    "privates": 16.0,
    "advanced-privates": 4.0,
    "mobility": 1.0,
    "threatened": -12.0,
    "impasse-pressure": 40.0,
    "siege": 0.0,
    "simplification": 0.0,
    "projected-lead": 0.0,
}
"""Hand-set weights, used for rule set families that have no fitted weights."""


def weights_for(
    rules: RuleSet, families: dict[str, dict[str, float]] | None = None
) -> dict[str, float]:
    """The evaluation weights for a rule set: fitted ones for its family, else the defaults.

    ``families`` replaces the shipped table (``weights.json``'s ``families``), for example an
    older one, to measure the weights against each other."""
    table = _weight_file() if families is None else families
    fitted = table.get(family(rules))
    weights = dict(DEFAULT_WEIGHTS)
    if fitted:
        weights.update(fitted)
    return weights


class PathTables:
    """For each side and advancement: bitboards of the near and far rest of the captain's path,
    and the bits of the path from there on, for counting the free run."""

    __slots__ = ("far", "near", "run")

    def __init__(self, tables: RuleTables) -> None:
        self.near: list[list[int]] = []
        self.far: list[list[int]] = []
        self.run: list[list[tuple[int, ...]]] = []
        for side in (0, 1):
            path = tables.paths[side]
            bits = [1 << point for point in path]
            near_row, far_row, run_row = [], [], []
            for a in range(len(path)):
                ahead = bits[a + 1 :]
                near_row.append(sum(ahead[:NEAR]) & ~CENTER_BB)
                far_row.append(sum(ahead[NEAR:]) & ~CENTER_BB)
                run_row.append(tuple(ahead))
            self.near.append(near_row)
            self.far.append(far_row)
            self.run.append(run_row)


def _free_run(run: tuple[int, ...], occupied: int) -> tuple[int, int]:
    """How many empty points a path run starts with, and the bit of the first occupied one
    (the captain's blocker; 0 when the whole run is empty)."""
    for steps, bit in enumerate(run):
        if occupied & bit:
            return steps, bit
    return len(run), 0


@lru_cache(maxsize=1)
def siege_zones() -> dict[int, int]:
    """For each point's bit, the soldier points within ``SIEGE_REACH`` orthogonal steps of it
    (the point itself left out): where attackers and defenders of a blocker stand."""
    zones = {}
    for point in range(SIZE * SIZE):
        row, column = divmod(point, SIZE)
        zone = 0
        for other in range(SIZE * SIZE):
            r, c = divmod(other, SIZE)
            if 0 < abs(r - row) + abs(c - column) <= SIEGE_REACH:
                zone |= 1 << other
        zones[1 << point] = zone & SOLDIER_SQUARES
    return zones


def _siege(blocker: int, attackers: int, defenders: int) -> int:
    """The soldiers a side has round the enemy soldier that stops its captain (``blocker``),
    less the enemy's own there: local force to dislodge it by a capture or a forced one."""
    if not blocker & defenders:
        return 0
    zone = siege_zones()[blocker]
    return (zone & attackers).bit_count() - (zone & defenders).bit_count()


@lru_cache(maxsize=64)
def starting_soldiers(rules: RuleSet) -> int:
    """How many soldiers both sides have together at the start (§2)."""
    start = Position.start(rules)
    return sum((start.guards[side] | start.privates[side]).bit_count() for side in (0, 1))


def _simplification(mine: int, theirs: int, start: int) -> float:
    """The soldier lead scaled by the share of soldiers already off the board. With a positive
    weight the side ahead likes to trade (fewer blockers to hold its captain back); with a
    negative one, as SPSA chose for ``cooper``, it keeps its soldiers."""
    return (mine - theirs) * (1 - (mine + theirs) / start)


def _projected_lead(stop_difference: int) -> int:
    """+1 when the side to move's captain would stop (at its first obstacle) at least
    ``PROJECTED_MARGIN`` steps further along than the enemy's, -1 for the reverse, else 0: a
    blocker planted early in front of one captain while the other's road is open decides races
    that the linear free-run count values at no more than a soldier."""
    if stop_difference >= PROJECTED_MARGIN:
        return 1
    return -1 if stop_difference <= -PROJECTED_MARGIN else 0


def _threatened(mine: int, enemy: int, empty: int) -> int:
    """How many of ``mine`` an enemy soldier could jump (orthogonally) if it were its move."""
    # A piece is jumpable along a line when an enemy stands on one side and the other is empty.
    # Privates jump only forward or sideways; counting them as guards keeps this cheap and errs
    # towards caution.
    return (
        (mine & (enemy << SIZE) & (empty >> SIZE))
        | (mine & (enemy >> SIZE) & (empty << SIZE))
        | (mine & ((enemy & NOT_FILE_I) << 1) & ((empty & NOT_FILE_A) >> 1))
        | (mine & ((enemy & NOT_FILE_A) >> 1) & ((empty & NOT_FILE_I) << 1))
    ).bit_count()


_ADVANCED_HALF: Final = (FULL & ~((1 << (5 * SIZE)) - 1), (1 << (4 * SIZE)) - 1)
"""For each side, the ranks a private must reach to count as advanced (6-8 Blue, 2-4 Gray)."""


def _mobility(guards: int, privates: int, empty: int, side: int) -> int:
    """How many empty points some soldier of a side could step to along a rank or file."""
    soldiers = guards | privates
    forward_and_back = (
        (soldiers << SIZE) | (guards >> SIZE)
        if side == 0
        else (soldiers >> SIZE) | (guards << SIZE)
    )
    reach = forward_and_back | ((soldiers & NOT_FILE_I) << 1) | ((soldiers & NOT_FILE_A) >> 1)
    return (reach & empty).bit_count()


def features(board: Board) -> list[float]:
    """The feature vector of a position for the side to move (the plain version, for tuning)."""
    tables = board.tables
    paths = path_tables(tables.rules)
    side = board.turn
    values = [0.0] * len(FEATURES)
    values[0] = 1.0
    occupied = board.occupied()
    empty = SOLDIER_SQUARES & ~occupied
    advancement = [board.advancement(0), board.advancement(1)]
    stops = [0, 0]
    soldiers = [board.guards[0] | board.privates[0], board.guards[1] | board.privates[1]]
    for who, sign in ((side, 1.0), (side ^ 1, -1.0)):
        other = who ^ 1
        a = advancement[who]
        if a >= PATH_LENGTH:
            raise ValueError("a finished position (a captain on the centre) has no features")
        values[ADVANCEMENT] += sign * a
        values[ADVANCEMENT + 1] += sign * max(0, a - MIDDLE)
        values[ADVANCEMENT + 2] += sign * max(0, a - END)
        near, far = paths.near[who][a], paths.far[who][a]
        values[OWN_NEAR] += sign * (near & soldiers[who]).bit_count()
        values[OWN_FAR] += sign * (far & soldiers[who]).bit_count()
        values[ENEMY_NEAR] += sign * (near & soldiers[other]).bit_count()
        values[ENEMY_FAR] += sign * (far & soldiers[other]).bit_count()
        free_run, blocker = _free_run(paths.run[who][a], occupied)
        values[FREE_RUN] += sign * free_run
        stops[who] = a + free_run
        values[SIEGE] += sign * _siege(blocker, soldiers[who], soldiers[other])
        values[GUARDS] += sign * board.guards[who].bit_count()
        values[PRIVATES] += sign * board.privates[who].bit_count()
        values[ADVANCED_PRIVATES] += sign * (board.privates[who] & _ADVANCED_HALF[who]).bit_count()
        values[MOBILITY] += sign * _mobility(board.guards[who], board.privates[who], empty, who)
    difference = advancement[side] - advancement[side ^ 1]
    values[RACE_BASE + max(-RACE, min(RACE, difference))] = 1.0
    values[SIMPLIFICATION] = _simplification(
        soldiers[side].bit_count(), soldiers[side ^ 1].bit_count(), starting_soldiers(tables.rules)
    )
    values[THREATENED] = _threatened(soldiers[side], soldiers[side ^ 1], empty)
    values[PROJECTED_LEAD] = _projected_lead(stops[side] - stops[side ^ 1])
    if tables.impasse_by_advance and difference:
        pressure = min(1.0, board.count / tables.impasse_plies)
        values[IMPASSE_PRESSURE] = pressure if difference > 0 else -pressure
    return values


def advancement_values(weights: Sequence[float]) -> list[float]:
    """What each advancement of a captain (0 to ``PATH_LENGTH``) is worth under a weight vector:
    the three advancement features' sum for it (both evaluations read it from this table)."""
    return [
        weights[ADVANCEMENT] * a
        + weights[ADVANCEMENT + 1] * max(0, a - MIDDLE)
        + weights[ADVANCEMENT + 2] * max(0, a - END)
        for a in range(PATH_LENGTH + 1)
    ]


def linear_value(vector: Sequence[float], board: Board) -> int:
    """The evaluation by its definition: the weights' dot product with ``features``, summed in
    the features' order and truncated (what ``Evaluator.evaluate`` computes fast)."""
    total = 0.0
    for weight, value in zip(vector, features(board), strict=True):
        total += weight * value
    return int(total)


@lru_cache(maxsize=64)
def path_tables(rules: RuleSet) -> PathTables:
    return PathTables(rule_tables(rules))


class Evaluator:
    """The fast evaluation for one rule set and one weight vector.

    ``evaluate`` is built as a closure over the weights and tables, with every feature inlined:
    it is the engine's hottest function. ``features`` is its plain twin.
    """

    def __init__(
        self,
        rules: RuleSet,
        weights: dict[str, float] | None = None,
        *,
        network: Network | None = None,
    ) -> None:
        """``weights``: the linear evaluation's (else the family's, ``weights_for``);
        ``network``: engine 4's network, whose output is added to the linear sum as a correction
        (both kernels then use it; ``network_file.network_for`` finds a family's shipped
        one)."""
        self.rules = rules
        self.weights = weights_for(rules) if weights is None else weights
        missing = set(FEATURES) - set(self.weights)
        if missing:
            raise ValueError(f"evaluation weights miss the features {sorted(missing)}")
        self.vector = [float(self.weights[name]) for name in FEATURES]
        self.network = network
        """The network that corrects the linear evaluation, or ``None`` for the linear
        evaluation alone."""
        linear = _evaluation(self.vector, rule_tables(rules))
        self.evaluate: Callable[[Board], int] = linear
        if network is not None:
            correction = network.evaluate_board

            def evaluate(board: Board) -> int:
                """The linear evaluation plus the network's correction (``corrected``)."""
                return corrected(linear(board), correction(board))

            self.evaluate = evaluate


def _evaluation(w: list[float], tables: RuleTables) -> Callable[[Board], int]:
    """The evaluation function for a weight vector (see ``features`` for what it sums)."""
    paths = path_tables(tables.rules)
    near_paths, far_paths, runs = paths.near, paths.far, paths.run
    advancement_of = tables.advancement
    advancement_value = advancement_values(w)
    race_value = w[RACE_BASE - RACE : RACE_BASE + RACE + 1]
    tempo = w[0]
    own_near, own_far = w[OWN_NEAR], w[OWN_FAR]
    enemy_near, enemy_far = w[ENEMY_NEAR], w[ENEMY_FAR]
    free_run, guard_value, private_value = w[FREE_RUN], w[GUARDS], w[PRIVATES]
    advanced_value, mobility, threatened = w[ADVANCED_PRIVATES], w[MOBILITY], w[THREATENED]
    pressure_value = w[IMPASSE_PRESSURE] if tables.impasse_by_advance else 0.0
    plies = tables.impasse_plies
    siege_value = w[SIEGE]
    simplification_value = w[SIMPLIFICATION]
    projected_value = w[PROJECTED_LEAD]
    start_soldiers = starting_soldiers(tables.rules)
    zones = siege_zones()
    advanced_half = _ADVANCED_HALF
    soldier_squares, not_a, not_i = SOLDIER_SQUARES, NOT_FILE_A, NOT_FILE_I

    def evaluate(board: Board) -> int:
        """The value of the position for the side to move, in Elo-like units."""
        side = board.turn
        other = side ^ 1
        guards = board.guards
        privates = board.privates
        captains = board.captains
        my_guards = guards[side]
        their_guards = guards[other]
        my_privates = privates[side]
        their_privates = privates[other]
        mine = my_guards | my_privates
        theirs = their_guards | their_privates
        occupied = mine | theirs | (1 << captains[0]) | (1 << captains[1])
        empty = soldier_squares & ~occupied
        a_mine = advancement_of[side][captains[side]]
        a_theirs = advancement_of[other][captains[other]]
        near_mine = near_paths[side][a_mine]
        far_mine = far_paths[side][a_mine]
        near_theirs = near_paths[other][a_theirs]
        far_theirs = far_paths[other][a_theirs]
        difference = a_mine - a_theirs
        race = difference if -RACE <= difference <= RACE else (RACE if difference > 0 else -RACE)
        run_mine = 0
        blocker_mine = 0
        for bit in runs[side][a_mine]:
            if occupied & bit:
                blocker_mine = bit
                break
            run_mine += 1
        run_theirs = 0
        blocker_theirs = 0
        for bit in runs[other][a_theirs]:
            if occupied & bit:
                blocker_theirs = bit
                break
            run_theirs += 1
        # Soldiers of the side to move that the opponent could jump next (see _threatened).
        hanging = (
            (mine & (theirs << 9) & (empty >> 9))
            | (mine & (theirs >> 9) & (empty << 9))
            | (mine & ((theirs & not_i) << 1) & ((empty & not_a) >> 1))
            | (mine & ((theirs & not_a) >> 1) & ((empty & not_i) << 1))
        ).bit_count()
        value = (
            tempo
            + advancement_value[a_mine]
            - advancement_value[a_theirs]
            + race_value[race + RACE]
            + own_near * ((near_mine & mine).bit_count() - (near_theirs & theirs).bit_count())
            + own_far * ((far_mine & mine).bit_count() - (far_theirs & theirs).bit_count())
            + enemy_near * ((near_mine & theirs).bit_count() - (near_theirs & mine).bit_count())
            + enemy_far * ((far_mine & theirs).bit_count() - (far_theirs & mine).bit_count())
            + free_run * (run_mine - run_theirs)
            + guard_value * (my_guards.bit_count() - their_guards.bit_count())
            + threatened * hanging
        )
        if projected_value:
            stop_difference = a_mine + run_mine - a_theirs - run_theirs
            if stop_difference >= PROJECTED_MARGIN:
                value += projected_value
            elif stop_difference <= -PROJECTED_MARGIN:
                value -= projected_value
        if my_privates or their_privates:
            value += private_value * (
                my_privates.bit_count() - their_privates.bit_count()
            ) + advanced_value * (
                (my_privates & advanced_half[side]).bit_count()
                - (their_privates & advanced_half[other]).bit_count()
            )
        if mobility:
            # The empty points some soldier could step to: sideways and forward for all
            # soldiers, backward too for guards (one count per side: see _mobility).
            if side == 0:
                mine_reach = (mine << 9) | (my_guards >> 9)
                their_reach = (theirs >> 9) | (their_guards << 9)
            else:
                mine_reach = (mine >> 9) | (my_guards << 9)
                their_reach = (theirs << 9) | (their_guards >> 9)
            mine_reach |= ((mine & not_i) << 1) | ((mine & not_a) >> 1)
            their_reach |= ((theirs & not_i) << 1) | ((theirs & not_a) >> 1)
            value += mobility * (
                (mine_reach & empty).bit_count() - (their_reach & empty).bit_count()
            )
        if siege_value:
            # Force round the enemy soldier that stops each captain (see _siege).
            if blocker_mine & theirs:
                zone = zones[blocker_mine]
                value += siege_value * ((zone & mine).bit_count() - (zone & theirs).bit_count())
            if blocker_theirs & mine:
                zone = zones[blocker_theirs]
                value -= siege_value * ((zone & theirs).bit_count() - (zone & mine).bit_count())
        if simplification_value:
            count_mine = mine.bit_count()
            count_theirs = theirs.bit_count()
            value += simplification_value * (
                (count_mine - count_theirs) * (1 - (count_mine + count_theirs) / start_soldiers)
            )
        if difference and pressure_value and board.count:
            pressure = board.count / plies
            if pressure > 1.0:
                pressure = 1.0
            value += pressure_value * (pressure if difference > 0 else -pressure)
        return int(value)

    return evaluate
