"""Quick pairings: the popular settings the lobby offers as buttons, and how far from a
player's rating each pairs, a range that widens the longer the player waits (docs/community.md).
"""

from __future__ import annotations

import math
from typing import Final

from bluegray.web.games.schemas import ClockSettings
from bluegray.web.lobby.rows import SeekRow
from bluegray.web.lobby.schemas import QuickPairing
from bluegray.web.platform.settings import Settings

QUICK_PAIRINGS: Final = (
    QuickPairing(
        key="sackson-3+2",
        label="Sackson 3+2",
        rules="sackson",
        clock=ClockSettings(minutes=3, increment_seconds=2),
        rated=True,
    ),
    QuickPairing(
        key="sackson-5+3",
        label="Sackson 5+3",
        rules="sackson",
        clock=ClockSettings(minutes=5, increment_seconds=3),
        rated=True,
    ),
    QuickPairing(
        key="sackson-10+5",
        label="Sackson 10+5",
        rules="sackson",
        clock=ClockSettings(minutes=10, increment_seconds=5),
        rated=True,
    ),
    QuickPairing(
        key="cooper-5+3",
        label="Cooper 5+3",
        rules="cooper",
        clock=ClockSettings(minutes=5, increment_seconds=3),
        rated=True,
    ),
)
"""The popular settings the lobby offers as buttons."""
QUICK_BY_KEY: Final = {pairing.key: pairing for pairing in QUICK_PAIRINGS}


def quick_span(settings: Settings, waited_ms: int) -> float:
    """How far from a player's rating a quick pairing reaches once they have waited
    ``waited_ms``: ``quick_pairing_range``, widened by ``quick_pairing_widen_points`` every
    ``quick_pairing_widen_seconds``, and any rating (``inf``) after
    ``quick_pairing_any_after_seconds``."""
    if waited_ms >= settings.quick_pairing_any_after_seconds * 1000:
        return math.inf
    steps = int(max(0, waited_ms) // (settings.quick_pairing_widen_seconds * 1000))
    return settings.quick_pairing_range + steps * settings.quick_pairing_widen_points


def quick_match(
    settings: Settings, row: SeekRow, rating: float, provisional: bool, waited_ms: int, now: int
) -> bool:
    """Whether a player of ``rating`` who has waited ``waited_ms`` (0: just pressed) may be
    paired with the player waiting in ``row``: a provisional rating (either's) matches any,
    otherwise the two ratings are within the wider of their two ranges (lichess's pools
    widen the same way the longer a player waits)."""
    if row.provisional or provisional:
        return True
    span = max(quick_span(settings, now - row.created_ms), quick_span(settings, waited_ms))
    return abs(row.rating - rating) <= span
