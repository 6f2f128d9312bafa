"""The puzzles' shapes: a puzzle as shown, an attempt's moves and the answer, a puzzle rating."""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import BaseModel, Field

from bluegray.web.platform.schemas import Request

MOST_SOLVER_MOVES: Final = 3
"""The most moves of the solver a puzzle asks for (the generator's ``MOST_MOVES``)."""
THEMES: Final = ("capture-chain", "race", "captains-run", "lead", "impasse")
"""The themes, as the generator's detectors name them (``bluegray.engine.themes``)."""
Theme = Literal["capture-chain", "race", "captains-run", "lead", "impasse"]
MoveText = Annotated[str, Field(min_length=1, max_length=60)]
"""A move's text (the longest capture of the board is far shorter)."""


class PuzzleRatingView(BaseModel):
    """A solver's puzzle rating (Glicko-2)."""

    rating: int
    deviation: int
    attempts: int = Field(description="Puzzles rated: first attempts.")
    provisional: bool


class PuzzleView(BaseModel):
    """A puzzle to solve: the position (its side to move solves), never the solution."""

    id: int
    rules: str
    position: str
    side: Literal["blue", "gray"] = Field(description="The solver's side: the side to move.")
    themes: list[Theme]
    rating: int
    moves: int = Field(description="How many moves of the solver the solution has.")
    tried: bool = Field(description="Whether this solver has tried it (a new try is not rated).")
    date: str | None = Field(default=None, description="The daily puzzle's UTC day.")


class AttemptRequest(Request):
    """The solver's moves so far in this try, in order: one more each time."""

    moves: list[MoveText] = Field(min_length=1, max_length=MOST_SOLVER_MOVES)


class AttemptAnswer(BaseModel):
    """Whether the try goes on (with the opponent's reply), is solved or failed."""

    result: Literal["continue", "solved", "failed"]
    reply: str | None = Field(description="The opponent's reply, when the try goes on.")
    solution: list[str] | None = Field(description="The whole solution, once the try is over.")
    rated: bool = Field(description="Whether this try was rated: only a solver's first is.")
    change: float | None = Field(description="The rating's change, when rated.")
    rating: PuzzleRatingView | None = Field(description="The solver's rating, once over.")
