"""The Pydantic models of the games' HTTP API: what it receives and sends (the game socket's
messages are ``messages``', the shapes every domain shares ``platform.schemas``'). They are the
contract a front-end is written (or generated) against; docs/web.md shows each with an
example."""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import BaseModel, Field, model_validator

from bluegray.engine.levels import LOWEST_LEVEL, TOP_LEVEL
from bluegray.web.platform.schemas import Request

SideName = Literal["blue", "gray"]
SeatSide = Literal["blue", "gray", "both"]
Mode = Literal["ai", "hotseat", "friend", "imported"]
Status = Literal["waiting", "active", "finished", "aborted"]
AiStatus = Literal["thinking", "busy", "unavailable"]
"""What holds up the AI's move: it is thinking (or its job waits its turn in the queue); too
many jobs wait, so it will try again shortly; or no AI worker is running."""
Action = Literal[
    "offer_draw",
    "accept_draw",
    "decline_draw",
    "request_takeback",
    "accept_takeback",
    "decline_takeback",
    "resign",
    "abort",
    "claim_win",
    "offer_rematch",
    "accept_rematch",
    "decline_rematch",
]

MOVE_TEXT_LIMIT = 400
RULES_TEXT_LIMIT = 300
POSITION_TEXT_LIMIT = 200
RECORD_TEXT_LIMIT = 200_000


# -- rules ------------------------------------------------------------------------------------


class RulesInfo(BaseModel):
    name: str | None = Field(description="The preset's name, or null for a custom rule set.")
    text: str = Field(description="The rule set as text: a name or key=value settings.")
    description: str
    settings: dict[str, str]
    start: str = Field(description="The rule set's start position (§6 notation).")


class LevelInfo(BaseModel):
    level: int
    description: str
    seconds: float | None = Field(description="Thinking time per move (null: a fixed depth).")


class RulesList(BaseModel):
    presets: list[RulesInfo]
    levels: list[LevelInfo]


class ParseRulesRequest(Request):
    text: str = Field(max_length=RULES_TEXT_LIMIT, examples=["cooper impasse-plies=50"])


# -- creating and joining games ----------------------------------------------------------------


class AiOpponent(Request):
    type: Literal["ai"]
    level: int = Field(ge=LOWEST_LEVEL, le=TOP_LEVEL, examples=[3])


class HotseatOpponent(Request):
    type: Literal["hotseat"]


class FriendOpponent(Request):
    type: Literal["friend"]


ChosenOpponent = Annotated[
    AiOpponent | HotseatOpponent | FriendOpponent, Field(discriminator="type")
]
"""Whom a new game is against, as asked (``Opponent``: whom an account's game was against)."""


MIN_CLOCK_MINUTES = 0.25
"""The shortest clock: 15 seconds a side (shorter ones are lost on time before a move)."""


class ClockSettings(Request):
    minutes: float = Field(ge=MIN_CLOCK_MINUTES, le=180, examples=[5])
    increment_seconds: float = Field(default=0, ge=0, le=60, examples=[3])


DaysPerMove = Literal[1, 2, 3, 5, 7, 14]


class CorrespondenceSettings(Request):
    """Days per move: each move must come within this many days of the turn's start (the
    opponent's move), the whole allowance every turn."""

    days: DaysPerMove = Field(examples=[3])


class TimeControlRequest(Request):
    """A request that sets a time control: a real-time clock or correspondence days per move,
    not both (neither: no time limit). A new game, a seek and a challenge share it."""

    clock: ClockSettings | None = Field(default=None, description="A real-time clock (null: none).")
    correspondence: CorrespondenceSettings | None = Field(
        default=None,
        description="Correspondence days per move instead of a real-time clock (null: none).",
    )

    @model_validator(mode="after")
    def _one_time_control(self) -> Self:
        if self.clock is not None and self.correspondence is not None:
            raise ValueError(
                "a game has a real-time clock or correspondence days per move, not both"
            )
        return self


class CreateGameRequest(TimeControlRequest):
    rules: str = Field(default="sackson", max_length=RULES_TEXT_LIMIT, examples=["cooper"])
    position: str | None = Field(
        default=None,
        max_length=POSITION_TEXT_LIMIT,
        description="Start from this position instead of the rule set's start.",
    )
    opponent: ChosenOpponent
    color: Literal["blue", "gray", "random"] = "random"
    rated: bool = Field(
        default=False,
        description="Whether the game counts for both players' ratings: only a game against a "
        "friend, created and joined by two accounts, under a preset rule set from its start "
        "(a custom rule set or a set-up position is never rated: 422 cannot_be_rated).",
    )


class JoinRequest(Request):
    invite: str = Field(min_length=1, max_length=100)


class SeatGrant(BaseModel):
    """The secret that lets its holder play a side. Keep it: it is shown only once."""

    token: str
    side: SeatSide


class Invite(BaseModel):
    code: str
    path: str = Field(description="The link to send the friend (the code is in the fragment).")


# -- the state of a game ----------------------------------------------------------------------


class SideCounts(BaseModel):
    blue: int
    gray: int


class ClockState(BaseModel):
    initial_ms: int
    increment_ms: int
    blue_ms: int = Field(description="Blue's time left at server_time_ms.")
    gray_ms: int
    running: SideName | None = Field(description="Whose time is going down.")
    server_time_ms: int = Field(description="The server's clock (ms since the epoch).")


class CorrespondenceState(BaseModel):
    """A correspondence game's time: the side to move must move before its deadline."""

    days_per_move: int = Field(examples=[3])
    running: SideName | None = Field(
        description="Whose deadline runs: the side to move (null: nobody's, e.g. on the AI's "
        "turn, before the friend has joined, or after the end)."
    )
    blue_deadline_ms: int | None = Field(
        description="When Blue runs out of time, in server time (ms since the epoch); null "
        "unless Blue is to move."
    )
    gray_deadline_ms: int | None
    server_time_ms: int = Field(description="The server's clock (ms since the epoch).")


class OutcomeInfo(BaseModel):
    winner: SideName | None
    reason: str = Field(
        description="center, lead, repetition, no-progress, stalemate, resign, agreement, time "
        "or abandoned"
    )
    result: str = Field(examples=["1-0"])
    description: str = Field(examples=["Blue wins: captain reached the centre"])


class Offers(BaseModel):
    draw: SideName | None = None
    takeback: SideName | None = None
    rematch: SideName | None = None


class SeatAccount(BaseModel):
    """The account that plays a seat."""

    name: str = Field(examples=["ada_l"])
    bot: bool = Field(default=False, description="A bot's account.")


class SeatState(BaseModel):
    player: Literal["human", "ai", "open"]
    level: int | None = None
    connected: bool
    away_since_ms: int | None = Field(
        default=None, description="Since when a human seat has had no connection."
    )
    account: SeatAccount | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The account that plays the seat; absent for a player without one.",
    )


class Seats(BaseModel):
    blue: SeatState
    gray: SeatState


class LastMove(BaseModel):
    text: str
    side: SideName
    points: list[str]
    captured: list[str]


class RatingChange(BaseModel):
    """One side's rating before a rated game, and what its end changed it by."""

    rating: float = Field(description="The rating before the game.")
    deviation: float = Field(description="Its deviation before the game.")
    provisional: bool = Field(description="Whether it was provisional (shown with a '?').")
    change: float = Field(description="The change the game made (rating points).")


class RatingResult(BaseModel):
    """What the end of a rated game did to both ratings."""

    pool: str = Field(examples=["sackson/real-time"], description="The rating: rules/time class.")
    blue: RatingChange
    gray: RatingChange


class GameState(BaseModel):
    """Everything a client shows about a game."""

    id: str
    version: int
    mode: Mode
    status: Status
    created_ms: int
    rules: RulesInfo
    start: str
    moves: list[str]
    ply: int
    position: str
    turn: SideName
    legal_moves: list[str] = Field(
        description="Every legal move as text; a capture lists every landing point (b2xb4xd4)."
    )
    last_move: LastMove | None
    captures: SideCounts = Field(description="How many enemy pieces each side has captured.")
    advancement: SideCounts = Field(description="How far each captain has come (0-17).")
    clock: ClockState | None
    correspondence: CorrespondenceState | None = Field(
        default=None, description="A correspondence game's days per move and deadline."
    )
    time_class: Literal["real-time", "correspondence"] = Field(
        default="correspondence",
        description="real-time (a clock) or correspondence (days per move, or no time limit).",
    )
    outcome: OutcomeInfo | None
    offers: Offers
    seats: Seats
    spectators: int
    ai_thinking: bool = Field(description="Whether the game waits for the AI's move.")
    ai_status: AiStatus | None = Field(
        default=None,
        description="While the game waits for the AI: thinking, busy (too much work queued: it "
        "tries again shortly) or unavailable (no AI worker is running).",
    )
    claim_win_at_ms: int | None = Field(
        description="When the side not to move may claim the win because the side to move "
        "has been away (null: no claim is coming)."
    )
    rematch_id: str | None
    parent_id: str | None
    tags: dict[str, str] | None = Field(default=None, description="The tags of an imported record.")
    rated: bool = Field(default=False, description="Whether the game counts for the ratings.")
    unrated_reason: str | None = Field(
        default=None,
        description="Why a game asked for as rated is played unrated (its two accounts have "
        "played as many rated games together today as may be rated), in words for players.",
    )
    ratings: RatingResult | None = Field(
        default=None,
        description="Once a rated game has ended: each side's rating before it and the change.",
    )


class CreatedGame(BaseModel):
    game: GameState
    seat: SeatGrant | None
    invite: Invite | None


class JoinedGame(BaseModel):
    game: GameState
    seat: SeatGrant


class MoveRequest(Request):
    move: str = Field(min_length=1, max_length=MOVE_TEXT_LIMIT, examples=["d2-d3"])
    version: int = Field(ge=0, description="The version the move was chosen in.")


class MoveAck(BaseModel):
    version: int
    move: str
    game: GameState


class ActionRequest(Request):
    action: Action
    side: SideName | None = Field(
        default=None, description="Which side acts (only needed in hot-seat games)."
    )
    version: int | None = Field(default=None, ge=0)


class GameSummary(BaseModel):
    id: str
    created_ms: int
    mode: Mode
    status: Status
    rules: str
    role: str = Field(description="blue, gray, both (hot-seat) or viewer (an imported record).")
    opponent: str
    ply: int
    turn: SideName
    version: int
    outcome: OutcomeInfo | None


class GameList(BaseModel):
    games: list[GameSummary]
    next_before_ms: int | None = Field(
        description="Pass as before_ms for the next (older) page; null at the end."
    )
    next_before_id: str | None = Field(
        description="Pass as before_id with before_ms (games created in the same millisecond)."
    )


class PositionInfo(BaseModel):
    ply: int
    move: str | None
    position: str
    turn: SideName
    advancement: SideCounts
    captures: SideCounts
    clock_ms: int | None = Field(description="The mover's time left after this move.")


class Replay(BaseModel):
    id: str
    rules: RulesInfo
    positions: list[PositionInfo]
    outcome: OutcomeInfo | None


# -- records ----------------------------------------------------------------------------------


class ImportRecordRequest(Request):
    text: str = Field(min_length=1, max_length=RECORD_TEXT_LIMIT)


# -- analysis ---------------------------------------------------------------------------------


class AnalysisRequest(Request):
    rules: str = Field(default="sackson", max_length=RULES_TEXT_LIMIT)
    position: str | None = Field(default=None, max_length=POSITION_TEXT_LIMIT)
    moves: list[Annotated[str, Field(max_length=MOVE_TEXT_LIMIT)]] = Field(
        default_factory=list, max_length=2000
    )
    seconds: float = Field(default=1.0, gt=0, le=60)


class AnalysisResult(BaseModel):
    position: str
    turn: SideName
    best_move: str | None
    score: int = Field(description="Blue's advantage in Elo-like units.")
    blue_expected: float = Field(description="Blue's expected score: 1 win, 0.5 even, 0 loss.")
    pv: list[str]
    depth: int
    nodes: int
    seconds: float
    plies_to_end: int | None
    winning_side: SideName | None
    outcome: OutcomeInfo | None
    description: str


# -- events ----------------------------------------------------------------------------------


class GameEvent(BaseModel):
    """What just happened, so a client can animate or announce it."""

    kind: str = Field(
        examples=["move"],
        description="created, joined, move, draw_offered, draw_declined, takeback_requested, "
        "takeback_declined, takeback, resigned, aborted, time, abandoned, agreed, "
        "rematch_offered, rematch_declined, rematch, invite, claimed (an account took the "
        "seat its browser played)",
    )
    side: SideName | None = None
    move: str | None = None
    game_id: str | None = Field(default=None, description="The new game (rematch).")
    worker: str | None = Field(
        default=None,
        description="The process that computed the AI's move (``embedded``: the "
        "server's own pool).",
    )


# -- an account's games: its profile's list and counts, its "your turn" list ---------------------


class GameCounts(BaseModel):
    games: int = Field(description="Finished games.")
    wins: int
    draws: int
    losses: int
    abandoned: int = Field(description="Losses by leaving the game (counted in losses too).")


class Opponent(BaseModel):
    kind: Literal["account", "anonymous", "ai", "self", "open"] = Field(
        description="account (a named player), anonymous (a player without an account), ai, "
        "self (a hot-seat game) or open (nobody has joined)."
    )
    name: str | None = None
    bot: bool = False
    level: int | None = Field(default=None, description="The AI's level.")


class PlayerGame(BaseModel):
    id: str
    created_ms: int
    mode: Mode
    status: Status
    rules: str
    side: SideName | Literal["both"] = Field(description="The side(s) the player played.")
    opponent: Opponent
    result: Literal["win", "draw", "loss"] | None = Field(
        description="For the player (null: not finished, aborted, or a hot-seat game)."
    )
    outcome: OutcomeInfo | None
    ply: int


class PlayerGames(BaseModel):
    games: list[PlayerGame]
    next_before_ms: int | None
    next_before_id: str | None


class TurnGame(BaseModel):
    """A game waiting for the account's move."""

    id: str
    mode: Literal["ai", "friend"]
    rules: str
    side: SideName
    opponent: Opponent
    ply: int
    time_class: Literal["real-time", "correspondence"]
    days_per_move: int | None = Field(description="A correspondence game's days per move.")
    deadline_ms: int | None = Field(
        description="When the account's time for this move runs out, in server time (ms since "
        "the epoch); null: no time limit."
    )
    path: str = Field(examples=["/game/mT2T4IADb3CE"])


class YourTurn(BaseModel):
    """The account's games where it is its move, the most urgent first (the nearest deadline;
    games without a time limit last, the longest waiting first)."""

    games: list[TurnGame]
    server_time_ms: int
