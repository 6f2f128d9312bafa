"""The tournaments' API shapes: what a client asks (create), and what it reads (a tournament,
its table, its games)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from bluegray.web.games.schemas import ClockSettings
from bluegray.web.platform.schemas import Request
from bluegray.web.platform.texts import OneLine

TournamentKind = Literal["arena", "swiss"]
TournamentStatus = Literal["created", "running", "finished"]


class CreateTournamentRequest(Request):
    """A new tournament. An arena runs for ``minutes``; a Swiss plays ``rounds`` rounds (about
    half as many rounds as players at most, or a round may not be pairable)."""

    kind: TournamentKind
    name: OneLine = Field(
        min_length=1,
        max_length=60,
        description="One line of printable characters.",
        examples=["Sunday arena"],
    )
    rules: str = Field(default="sackson", description="A preset rule set's name.")
    clock: ClockSettings
    rated: bool = True
    starts_in_seconds: float = Field(default=60, ge=0, le=30 * 86_400)
    minutes: int | None = Field(default=None, ge=1, le=720, description="An arena's length.")
    rounds: int | None = Field(default=None, ge=1, le=20, description="A Swiss's rounds.")


class TournamentInfo(BaseModel):
    id: str
    kind: TournamentKind
    name: str
    creator: str
    rules: str
    clock: ClockSettings
    rated: bool
    starts_at_ms: int
    minutes: int | None
    rounds: int | None
    ends_at_ms: int | None = Field(description="When an arena stops pairing (once started).")
    round: int = Field(description="A Swiss's rounds paired so far.")
    status: TournamentStatus
    players: int
    finished_ms: int | None
    note: str | None = Field(description="Why it ended before its last round, if it did.")
    path: str


class TournamentList(BaseModel):
    """One page of the tournaments: those to come and running (soonest first), then the
    finished (latest first)."""

    tournaments: list[TournamentInfo]
    total: int = Field(description="How many tournaments there are in all.")
    offset: int = Field(description="Where this page starts in the whole list.")
    next_offset: int | None = Field(
        description="The offset of the next page (null: this is the last)."
    )


class StandingLine(BaseModel):
    """A line of the table: an arena's (score with streaks: a win 2, a draw 1, doubled on a
    streak) or a Swiss's (points, Buchholz, Sonneborn-Berger)."""

    place: int
    name: str
    score: float
    games: int
    wins: int
    draws: int
    losses: int
    rating: int
    withdrawn: bool
    on_fire: bool = Field(default=False, description="An arena's player on a streak.")
    performance: int | None = None
    buchholz: float | None = None
    sonneborn_berger: float | None = None
    byes: int = 0


class TournamentGame(BaseModel):
    game_id: str
    path: str
    round: int | None
    board: int | None
    blue: str
    gray: str
    result: str | None = Field(description="1-0, 0-1, 1/2-1/2; null while played.")
    forfeit: bool


class Standings(BaseModel):
    tournament: TournamentInfo
    standings: list[StandingLine]
    byes: dict[int, str] = Field(default_factory=dict, description="A Swiss's byes by round.")


class TournamentGames(BaseModel):
    games: list[TournamentGame]


class TournamentMessage(BaseModel):
    """News of a tournament (on its channel): its table changed."""

    type: Literal["tournament"] = "tournament"
    standings: Standings
