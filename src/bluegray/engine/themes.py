"""The themes of a puzzle: what its winning move does, each found by a detector of its own.

A detector looks at the puzzle's position and its line: the solution (the winning move, the
opponent's best reply, the next winning move...) followed by the engine's principal variation
after it, played out on a ``Game`` until the line or the game ends. A puzzle may have several
themes, or none ("untagged").

- ``capture-chain``: the winning move is a capture of two or more soldiers in one move, and the
  side to move is still ahead in soldiers after the opponent's reply.
- ``race``: the line ends with the side to move's captain on the centre.
- ``captains-run``: the winning move is a move of the captain (a step or a turbo slide).
- ``lead``: the rule set has a lead rule and the line ends with the side to move winning by it.
- ``impasse``: the line ends in an impasse (repetition, no progress, or a side with no move
  where a blockade is an impasse) that the side to move does not lose: it wins it by its
  captain's advancement, or saves the draw.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from bluegray.game import Game
from bluegray.moves import Move
from bluegray.outcome import Outcome, Termination
from bluegray.pieces import Side
from bluegray.position import Position

CAPTURE_CHAIN: Final = "capture-chain"
RACE: Final = "race"
CAPTAINS_RUN: Final = "captains-run"
LEAD: Final = "lead"
IMPASSE: Final = "impasse"

THEMES: Final = (CAPTURE_CHAIN, RACE, CAPTAINS_RUN, LEAD, IMPASSE)
"""Every theme, in the order they are listed."""

Detector = Callable[[Position, Sequence[Move]], bool]


def _soldiers(position: Position, side: Side) -> int:
    return position.soldiers(side).bit_count()


def _lead_in_soldiers(position: Position, side: Side) -> int:
    return _soldiers(position, side) - _soldiers(position, side.other)


def _end_of_line(position: Position, line: Sequence[Move]) -> Outcome | None:
    """How the game ends when ``line`` is played from ``position`` (``None``: it goes on)."""
    game = Game(position.rules, position)
    for move in line:
        if game.outcome() is not None or not game.is_legal(move):
            break
        game.push(move)
    return game.outcome()


def is_capture_chain(position: Position, line: Sequence[Move]) -> bool:
    """The winning move takes two or more soldiers, and after the opponent's reply the side to
    move has gained soldiers on balance."""
    if not line or len(line[0].captured_points) < 2:
        return False
    mover = position.turn
    after = position.push(line[0])
    if len(line) > 1 and after.outcome() is None and line[1] in after.legal_moves():
        after = after.push(line[1])
    return _lead_in_soldiers(after, mover) > _lead_in_soldiers(position, mover)


def is_race(position: Position, line: Sequence[Move]) -> bool:
    """The line ends with the side to move's captain on the centre."""
    outcome = _end_of_line(position, line)
    return (
        outcome is not None
        and outcome.termination is Termination.CENTER
        and outcome.winner is position.turn
    )


def is_captains_run(position: Position, line: Sequence[Move]) -> bool:
    """The winning move is the side to move's captain moving along its path."""
    return bool(line) and line[0].from_point == position.captain(position.turn)


def is_lead(position: Position, line: Sequence[Move]) -> bool:
    """The rule set has a lead rule, and the line ends with the side to move winning by it."""
    if position.rules.lead is None:
        return False
    outcome = _end_of_line(position, line)
    return (
        outcome is not None
        and outcome.termination is Termination.LEAD
        and outcome.winner is position.turn
    )


def is_impasse(position: Position, line: Sequence[Move]) -> bool:
    """The line ends in an impasse that the side to move wins or draws."""
    outcome = _end_of_line(position, line)
    return (
        outcome is not None
        and outcome.impasse
        and (outcome.winner is None or outcome.winner is position.turn)
    )


DETECTORS: Final[dict[str, Detector]] = {
    CAPTURE_CHAIN: is_capture_chain,
    RACE: is_race,
    CAPTAINS_RUN: is_captains_run,
    LEAD: is_lead,
    IMPASSE: is_impasse,
}


def themes_of(position: Position, line: Sequence[Move]) -> tuple[str, ...]:
    """Every theme whose detector holds for the puzzle, in the order of ``THEMES``."""
    return tuple(name for name in THEMES if DETECTORS[name](position, line))
