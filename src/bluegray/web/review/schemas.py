"""The Pydantic models of the reviews' HTTP API (docs/web.md, "Game review")."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

SideName = Literal["blue", "gray"]
ReviewStatus = Literal["pending", "done", "failed"]
VerdictName = Literal["inaccuracy", "mistake", "blunder"]


class ReviewedPosition(BaseModel):
    """The engine's analysis of the position after ``ply`` plies."""

    ply: int
    turn: SideName
    blue_expected: float = Field(description="Blue's expected score: 1 win, 0.5 even, 0 loss.")
    score: int = Field(description="Blue's advantage in the evaluation's Elo-like units.")
    best_move: str | None = Field(description="The engine's move here (null: the game is over).")
    pv: list[str] = Field(description="The engine's line from here.")
    depth: int
    nodes: int
    plies_to_end: int | None = Field(description="Plies to the end of a decided position.")
    engine: int = Field(description="The version of the engine that searched it.")


class ReviewedMove(BaseModel):
    """A move judged by the expected score it lost (docs/web.md: the thresholds)."""

    ply: int = Field(description="The move's ply: 1 for the first move.")
    move: str
    side: SideName
    loss: float = Field(description="The mover's expected score lost by the move, 0 to 1.")
    verdict: VerdictName | None
    accuracy: float = Field(description="The move's accuracy in per cent.")
    best_move: str | None = Field(description="The engine's move instead, when it differs.")
    line: list[str] = Field(description="The engine's line from the better move.")


class SideSummary(BaseModel):
    accuracy: float | None = Field(description="The mean of the side's moves' accuracies.")
    inaccuracies: int
    mistakes: int
    blunders: int


class Review(BaseModel):
    """A game's review: its progress while pending, and once positions are analysed, what
    they say."""

    game_id: str
    status: ReviewStatus
    positions: int = Field(description="Positions to analyse: the game's plies and one.")
    analysed: int = Field(description="Positions analysed so far.")
    nodes: int = Field(description="The nodes each position is searched to.")
    engines: list[int] = Field(description="The versions of the engine that searched.")
    requested_ms: int
    finished_ms: int | None
    failure: str | None
    evaluation: list[ReviewedPosition]
    moves: list[ReviewedMove] = Field(description="The moves both of whose positions are analysed.")
    blue: SideSummary
    gray: SideSummary
