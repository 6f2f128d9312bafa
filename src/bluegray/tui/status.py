"""The panel beside the board: whose move it is, both captains' advancement, the clocks, the
captured pieces and, at the end, the outcome in words."""

from __future__ import annotations

from rich.text import Text

from bluegray.pieces import Side
from bluegray.tui.board import ROLE_STYLES
from bluegray.tui.clock import format_time
from bluegray.tui.session import Session

PATH_STEPS = 17
"""The steps of a captain's path from its start to the centre."""
SHOWN_CAPTURES = 9
"""Captured pieces listed by letter; more are counted (the panel is 30 characters wide)."""


def status_text(session: Session, *, thinking: bool = False) -> Text:
    """The state of the game in a few short lines (under 30 characters wide)."""
    game = session.game
    position = game.position
    seats = session.seats
    text = Text()
    outcome = session.outcome()
    if outcome is not None:
        verdict = outcome.describe().partition(":")[0]  # the reason is under the moves
        text.append(f"Game over: {verdict} {outcome.result}", style="bold reverse")
    elif thinking:
        text.append(f"{seats.label(game.turn)} is thinking…", style="bold")
    else:
        text.append(f"{seats.label(game.turn)} to move", style="bold")
    for side in (Side.BLUE, Side.GRAY):
        text.append("\n")
        steps = position.advancement(side)
        marker = "▶" if outcome is None and side is game.turn else " "
        text.append(f"{marker}{side.title:<5}", style="bold" if marker != " " else "")
        text.append("█" * steps, style=ROLE_STYLES[f"{side.value}-path"])
        text.append("░" * (PATH_STEPS - steps), style="dim")
        text.append(f" {steps:>2}/{PATH_STEPS}")
    clock = session.clock
    if clock is not None:
        text.append("\nClock ")
        for side in (Side.BLUE, Side.GRAY):
            reading = format_time(clock.remaining(side))
            running = clock.running is side
            text.append(f" {side.title} {reading}", style="bold reverse" if running else "")
    for side in (Side.BLUE, Side.GRAY):
        taken = session.captured(side.other)
        text.append(f"\n{side.title} took ")
        if taken:
            shown = taken[:SHOWN_CAPTURES]
            text.append(" ".join(piece.symbol for piece in shown), ROLE_STYLES[side.other.value])
            if len(taken) > len(shown):
                text.append(f" +{len(taken) - len(shown)}")
        else:
            text.append("nothing", style="dim")
    return text
