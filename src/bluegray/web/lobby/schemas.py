"""What the lobby's API and sockets say: seeks (open challenges), challenges to a named player,
quick pairings, the game they start, and the messages of ``/ws/lobby`` and ``/ws/account``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from bluegray.pieces import Side
from bluegray.web.games.rated_pairs import explain
from bluegray.web.games.schemas import (
    RULES_TEXT_LIMIT,
    ClockSettings,
    CorrespondenceSettings,
    SideName,
    TimeControlRequest,
    TurnGame,
)
from bluegray.web.platform.schemas import Request

Color = Literal["blue", "gray", "random"]


class SeekRequest(TimeControlRequest):
    """An open challenge: anyone whose rating is in the range may accept it. Its game has the
    clock, or the correspondence days per move, it asks for."""

    rules: str = Field(default="sackson", max_length=RULES_TEXT_LIMIT, examples=["sackson"])
    rated: bool = Field(default=False, description="Rated: only under a preset rule set.")
    color: Color = Field(default="random", description="The side the seeker plays.")
    rating_min: int | None = Field(default=None, ge=0, le=4000)
    rating_max: int | None = Field(default=None, ge=0, le=4000)
    connection: str | None = Field(
        default=None,
        max_length=32,
        description="The lobby socket's id (its welcome): the seek goes when that socket "
        "closes. Without one, it stays until it expires or is cancelled.",
    )


class ChallengeRequest(TimeControlRequest):
    """A challenge to one named player, who sees it wherever they are on the site."""

    to: str = Field(min_length=1, max_length=20, examples=["ada_l"])
    rules: str = Field(default="sackson", max_length=RULES_TEXT_LIMIT)
    rated: bool = False
    color: Color = "random"


class QuickPairingRequest(Request):
    pairing: str = Field(max_length=32, examples=["sackson-5+3"])
    connection: str | None = Field(default=None, max_length=32)


class SeekInfo(BaseModel):
    id: str
    player: str = Field(description="Who posted it.")
    bot: bool
    rating: float = Field(description="The player's rating in the seek's pool when posted.")
    provisional: bool
    rules: str
    time_class: Literal["real-time", "correspondence"]
    clock: ClockSettings | None
    correspondence: CorrespondenceSettings | None = Field(
        default=None, description="Correspondence days per move (null: none)."
    )
    rated: bool
    color: Color
    rating_min: int | None
    rating_max: int | None
    to: str | None = Field(default=None, description="A challenge's player (null: a seek).")
    quick: str | None = Field(default=None, description="The quick pairing it waits in.")
    created_ms: int
    expires_ms: int


class SeekList(BaseModel):
    seeks: list[SeekInfo]


class ChallengeList(BaseModel):
    incoming: list[SeekInfo]
    outgoing: list[SeekInfo]


class StartedGame(BaseModel):
    """A game a seek, a challenge or a quick pairing started: both players are told, each
    plays it with their account (its session or API token)."""

    game_id: str
    path: str = Field(examples=["/game/mT2T4IADb3CE"])
    side: SideName = Field(description="The side of the player told.")
    opponent: str
    rated: bool
    unrated_reason: str | None = Field(
        default=None,
        description="Why a game asked for as rated is played unrated (the two accounts have "
        "played as many rated games together today as may be rated), in words for players.",
    )
    tournament: str | None = Field(
        default=None, description="The tournament whose game it is (its id), if any."
    )

    @classmethod
    def told(
        cls,
        game_id: str,
        side: Side,
        opponent: str,
        *,
        rated: bool,
        unrated_reason: str | None,
        tournament: str | None = None,
    ) -> StartedGame:
        """The game as the player of ``side`` is told of it: its page, and why a game asked for
        as rated is not (``unrated_reason``, the code the game keeps, in words)."""
        return cls(
            game_id=game_id,
            path=f"/game/{game_id}",
            side=side.value,
            opponent=opponent,
            rated=rated,
            unrated_reason=explain(unrated_reason),
            tournament=tournament,
        )


class QuickPairing(BaseModel):
    key: str = Field(examples=["sackson-5+3"])
    label: str = Field(examples=["Sackson 5+3 rated"])
    rules: str
    clock: ClockSettings
    rated: bool


class QuickPairingList(BaseModel):
    pairings: list[QuickPairing]
    rating_range: int = Field(
        description="How far apart two paired ratings may be at first (a provisional rating "
        "matches any)."
    )
    widen_points: int = Field(description="The range widens by this much ...")
    widen_seconds: float = Field(description="... every this many seconds of waiting.")
    any_after_seconds: float = Field(description="After this long, any rating matches.")


class QuickPairingResult(BaseModel):
    """Either the game started at once (someone was waiting), or the seek that waits."""

    game: StartedGame | None
    seek: SeekInfo | None


# -- the sockets' messages -------------------------------------------------------------------------


class LobbyWelcome(BaseModel):
    type: Literal["welcome"] = "welcome"
    connection: str = Field(description="Pass it with the seeks this socket's page posts.")
    account: str | None
    process: str


class SeeksMessage(BaseModel):
    """Every open seek, once, after the welcome."""

    type: Literal["seeks"] = "seeks"
    seeks: list[SeekInfo]


class SeekMessage(BaseModel):
    """A new seek (lobby), or a challenge sent to this account or by it (account)."""

    type: Literal["seek", "challenge"]
    seek: SeekInfo


GoneReason = Literal["accepted", "cancelled", "declined", "expired", "left"]


class SeekGoneMessage(BaseModel):
    type: Literal["seek_gone", "challenge_gone"]
    id: str
    reason: GoneReason


class GameStartedMessage(BaseModel):
    type: Literal["game_started"] = "game_started"
    game: StartedGame


class PendingMessage(BaseModel):
    """An account socket's first news: what waits for the account now (a page shows it however
    long ago it came)."""

    type: Literal["pending"] = "pending"
    challenges: list[SeekInfo] = Field(description="Challenges to the account, not yet answered.")
    turns: list[TurnGame] = Field(description="Games waiting for its move, the most urgent first.")


class TurnsMessage(BaseModel):
    """The games waiting for the account's move, sent again whenever the list changes (looked at
    every ``account_turn_seconds``)."""

    type: Literal["turns"] = "turns"
    games: list[TurnGame]


class LobbyPong(BaseModel):
    type: Literal["pong"] = "pong"
    server_time_ms: int


LobbyMessage = Annotated[
    LobbyWelcome
    | SeeksMessage
    | SeekMessage
    | SeekGoneMessage
    | GameStartedMessage
    | PendingMessage
    | TurnsMessage
    | LobbyPong,
    Field(discriminator="type"),
]
