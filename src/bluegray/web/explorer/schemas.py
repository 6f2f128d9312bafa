"""The explorer's HTTP answers: the moves from a position, with each source's counts."""

from __future__ import annotations

from pydantic import BaseModel, Field


class SourceCounts(BaseModel):
    """The games of one source that played a move (or passed through a position)."""

    games: int = Field(description="How many games.")
    blue_wins: int
    draws: int
    gray_wins: int
    blue_score: float = Field(description="Blue's share of the points: 1 all won, 0 all lost.")
    average_rating: int | None = Field(
        description="The players' average rating before their games (None: unrated games, as "
        "the book's)."
    )


class ExplorerMove(BaseModel):
    """A move played from the position, in the site's games and in the book's."""

    move: str = Field(examples=["c2-c3"])
    site: SourceCounts | None = Field(description="In the site's rated games between people.")
    book: SourceCounts | None = Field(description="In the shipped book of engine games.")


class ExplorerAnswer(BaseModel):
    """The moves played from a position under a preset rule set, most played first."""

    rules: str = Field(examples=["sackson"])
    position: str = Field(description="The position's placement and side to move (its key).")
    site: SourceCounts | None = Field(description="Every site game through the position.")
    book: SourceCounts | None = Field(description="Every book game through the position.")
    moves: list[ExplorerMove]
