"""What the move generator needs from a rule set, precomputed once a rule set: each side's path,
the next point and the advancement of every point, and the rule switches.
"""

from __future__ import annotations

import functools

from bluegray.points import BLUE_PATH, CENTER, GRAY_PATH, Point
from bluegray.rules import Captain, Capture, Impasse, RuleSet, Stalemate, Start


class RuleTables:
    """What the generator needs from a rule set, precomputed: paths, advancement, switches."""

    __slots__ = (
        "advancement",
        "impasse_by_advance",
        "impasse_plies",
        "lead",
        "maximal",
        "next_point",
        "paths",
        "rules",
        "stalemate_loses",
        "turbo",
    )

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        own = (BLUE_PATH, GRAY_PATH)
        self.paths: tuple[tuple[Point, ...], tuple[Point, ...]] = (
            own if rules.start is Start.HOME else (GRAY_PATH, BLUE_PATH)
        )
        self.next_point: tuple[tuple[int, ...], ...] = tuple(
            tuple(
                path[path.index(point) + 1] if point in path and point != CENTER else -1
                for point in range(81)
            )
            for path in self.paths
        )
        self.advancement: tuple[tuple[int, ...], ...] = tuple(
            tuple(path.index(point) if point in path else -1 for point in range(81))
            for path in self.paths
        )
        self.turbo = rules.captain is Captain.TURBO
        self.maximal = rules.capture is Capture.MAXIMAL
        self.lead = rules.lead
        self.impasse_plies = rules.impasse_plies
        self.stalemate_loses = rules.stalemate is Stalemate.LOSS
        self.impasse_by_advance = rules.impasse is Impasse.ADVANCE


@functools.lru_cache(maxsize=64)
def rule_tables(rules: RuleSet) -> RuleTables:
    """The tables for a rule set, built once per rule set."""
    return RuleTables(rules)
