"""A Swiss tournament's standings: points, then the tie-breaks Buchholz and Sonneborn-Berger.

Both tie-breaks count only games played over the board: a bye or a forfeit adds its points to
the player's score but nothing to anyone's tie-breaks, so a point nobody had to earn at the
board never lifts anyone. Players level on points and both tie-breaks share their place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from bluegray.web.tournaments.swiss import (
    SwissPlayer,
    SwissRecord,
    SwissRound,
    SwissSettings,
    records,
)


@dataclass(frozen=True)
class SwissStanding:
    """One line of the table."""

    place: int
    """The place, shared by players level on points and both tie-breaks (1 is the top)."""
    name: str
    points: float
    buchholz: float
    """The sum of the points of the opponents the player met over the board."""
    sonneborn_berger: float
    """The points of the opponents the player beat, and half the points of those drawn."""
    wins: int
    draws: int
    losses: int
    byes: int
    forfeit_wins: int
    forfeit_losses: int
    seed: int
    """The player's place in the starting list."""


def buchholz(record: SwissRecord, points: dict[str, float]) -> float:
    """The sum of the points of the opponents ``record``'s player met over the board."""
    return sum(points[opponent] for opponent, _ in record.games)


def sonneborn_berger(record: SwissRecord, points: dict[str, float]) -> float:
    """The points of the opponents beaten, plus half the points of the opponents drawn."""
    return sum(score * points[opponent] for opponent, score in record.games)


def standings(
    players: Sequence[SwissPlayer], rounds: Sequence[SwissRound], settings: SwissSettings
) -> tuple[SwissStanding, ...]:
    """The table after ``rounds``: games still being played count nothing yet, so it is the
    live table during a round and the final one at the end. Ordered by points, Buchholz,
    Sonneborn-Berger, then the starting list."""
    done = records(players, rounds, settings, unfinished=True)
    points = {name: record.points for name, record in done.items()}
    lines = []
    for name, record in done.items():
        scores = [score for _, score in record.games]
        lines.append(
            SwissStanding(
                place=0,
                name=name,
                points=record.points,
                buchholz=buchholz(record, points),
                sonneborn_berger=sonneborn_berger(record, points),
                wins=scores.count(1.0),
                draws=scores.count(0.5),
                losses=scores.count(0.0),
                byes=record.byes,
                forfeit_wins=record.forfeit_wins,
                forfeit_losses=record.forfeit_losses,
                seed=record.seed,
            )
        )

    def level(line: SwissStanding) -> tuple[float, float, float]:
        return (-line.points, -line.buchholz, -line.sonneborn_berger)

    lines.sort(key=lambda line: (level(line), line.seed))
    table: list[SwissStanding] = []
    for index, line in enumerate(lines):
        shared = index > 0 and level(lines[index - 1]) == level(line)
        place = table[-1].place if shared else index + 1
        table.append(replace(line, place=place))
    return tuple(table)
