"""Pictures of an environment's state: ANSI text for terminals and RGB arrays for videos.

The RGB array is the project's SVG picture (:func:`bluegray.svg.board_svg`) rasterised by
``cairosvg`` (which needs the system's cairo library, ``libcairo2`` on Debian).
"""

from __future__ import annotations

import io

import numpy as np
import numpy.typing as npt

from bluegray.diagram import diagram_text
from bluegray.errors import BlueGrayError
from bluegray.points import point_name
from bluegray.rl.actions import ActionGame
from bluegray.svg import board_svg

try:
    import cairosvg
    from PIL import Image
except (ImportError, OSError) as error:  # cairosvg loads the system's cairo library (libcairo2)
    cairosvg = None
    _MISSING = str(error)


class RenderError(BlueGrayError):
    """A picture that cannot be made here (the RGB renderer's libraries are missing)."""


def status_text(state: ActionGame) -> str:
    """One line: who is to act (and the capture in progress), or how the game ended."""
    outcome = state.outcome()
    if outcome is not None:
        return outcome.describe()
    text = f"{state.turn.title} to move"
    if state.capture:
        text += ", capturing: " + "x".join(point_name(point) for point in state.capture)
    return text


def render_ansi(state: ActionGame) -> str:
    """The position as a text diagram, with the last move and the status line."""
    game = state.game
    lines = [diagram_text(game.position)]
    if game.last_move is not None:
        lines.append(f"last move: {game.last_move}")
    lines.append(status_text(state))
    return "\n".join(lines) + "\n"


def svg_to_rgb(svg: str) -> npt.NDArray[np.uint8]:
    """An SVG picture rasterised at its own size, as a ``(height, width, 3)`` uint8 array."""
    if cairosvg is None:
        raise RenderError(
            f"RGB rendering needs cairosvg and the system's cairo library: {_MISSING}"
        )
    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"))
    with Image.open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()


def board_picture(state: ActionGame, size: int = 360) -> str:
    """The SVG picture of the state: the last move drawn, the capture in progress highlighted."""
    game = state.game
    return board_svg(game.position, size=size, last_move=game.last_move, highlights=state.capture)


def render_rgb(state: ActionGame, size: int = 360) -> npt.NDArray[np.uint8]:
    """The position as a ``(size, size, 3)`` uint8 RGB array."""
    return svg_to_rgb(board_picture(state, size))
