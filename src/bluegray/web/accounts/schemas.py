"""The Pydantic models of the accounts' API: signing up and logging in, the account's own settings
and tokens, and players' public profiles. docs/web.md ("Accounts") shows each with an example."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, EmailStr, Field

from bluegray.web.games.schemas import GameCounts, PlayerGame
from bluegray.web.platform.schemas import Request
from bluegray.web.platform.texts import OneLine

NAME_TEXT_LIMIT = 100
"""How long a name may be in a request (a longer one is refused with the rules for names)."""
PASSWORD_TEXT_LIMIT = 1024


class SignUpRequest(Request):
    name: str = Field(
        min_length=1,
        max_length=NAME_TEXT_LIMIT,
        description="3-20 ASCII letters, digits, - and _; unique without regard to case.",
        examples=["ada_l"],
    )
    password: str = Field(
        min_length=1, max_length=PASSWORD_TEXT_LIMIT, description="8 to 256 characters."
    )
    claim_games: bool = Field(
        default=False,
        description="Add the games this browser played without an account to the new one.",
    )


class LogInRequest(Request):
    name: str = Field(min_length=1, max_length=NAME_TEXT_LIMIT, examples=["ada_l"])
    password: str = Field(min_length=1, max_length=PASSWORD_TEXT_LIMIT)
    claim_games: bool = Field(
        default=False,
        description="Add the games this browser played without an account to this one.",
    )


class ChangePasswordRequest(Request):
    current_password: str = Field(min_length=1, max_length=PASSWORD_TEXT_LIMIT)
    new_password: str = Field(min_length=1, max_length=PASSWORD_TEXT_LIMIT)


class AccountInfo(BaseModel):
    name: str = Field(examples=["ada_l"])
    created_ms: int
    bot: bool = Field(description="A bot's account: plays through the API with a token.")
    moderator: bool
    profile: str = Field(description="The public profile page.", examples=["/player/ada_l"])


class AccountState(BaseModel):
    """Who the request comes from, and the CSRF token its cookie goes with."""

    account: AccountInfo | None = Field(description="null: not logged in.")
    csrf_token: str | None = Field(
        description="Send it as X-CSRF-Token with every POST and DELETE that a cookie "
        "authorises (null: the request carried no cookie, so it needs none)."
    )
    unclaimed_games: int = Field(
        description="Games this browser played without an account that a logged-in account "
        "may claim (POST /api/account/claim)."
    )


class ClaimedGames(BaseModel):
    claimed: int = Field(description="How many games were added to the account.")


class TokenRequest(Request):
    description: OneLine = Field(
        min_length=1,
        max_length=100,
        description="What the token is for (one line of printable characters).",
        examples=["my bot"],
    )


class TokenInfo(BaseModel):
    id: int
    description: str
    created_ms: int
    last_used_ms: int | None = Field(description="When it was last used (to the minute).")


class NewToken(BaseModel):
    """A new API token. Keep it: it is shown only once."""

    token: str = Field(examples=["bgp_3q0c6LwE8mJ1w3Yb0N2w1o7y0kqv6Jq5s1c2r0Xh4Qw"])
    info: TokenInfo


class TokenList(BaseModel):
    tokens: list[TokenInfo]


# -- profiles --------------------------------------------------------------------------------------


class RatingPoint(BaseModel):
    at_ms: int = Field(description="When the rated game ended.")
    rating: float = Field(description="The rating after it.")
    change: float = Field(description="What the game changed the rating by.")
    game_id: str


class RatingInfo(BaseModel):
    """One of a player's ratings: a preset rule set and a time class (Glicko-2)."""

    perf: str = Field(examples=["sackson/real-time"], description="The rating's pool.")
    rules: str = Field(examples=["sackson"])
    time_class: Literal["real-time", "correspondence"]
    rating: float
    deviation: float = Field(description="Grown since the last rated game.")
    provisional: bool = Field(description="The deviation is still high: shown with a '?'.")
    games: int = Field(description="Rated games counted (voided ones not).")
    history: list[RatingPoint] = Field(description="The rating after each game, oldest first.")


class LeaderboardEntry(BaseModel):
    rank: int
    name: str
    bot: bool
    rating: float
    deviation: float
    games: int


class Leaderboard(BaseModel):
    """The established ratings of a pool (open accounts, not provisional), best first."""

    pool: str = Field(examples=["sackson/real-time"])
    rules: str
    time_class: Literal["real-time", "correspondence"]
    total: int = Field(description="How many players the whole leaderboard has.")
    offset: int
    entries: list[LeaderboardEntry]
    next_offset: int | None = Field(description="Pass as offset for the next page (null: none).")


class PlayerProfile(BaseModel):
    """A player's public profile."""

    name: str
    created_ms: int
    bot: bool
    closed: bool = Field(description="Closed by a moderator: it plays no more.")
    against_people: GameCounts = Field(description="Finished games against other players.")
    against_ai: GameCounts
    ratings: list[RatingInfo] = Field(
        default_factory=list,
        description="One per rule set and time class the player has played rated games in, "
        "with its history; the most played first.",
    )
    recent_games: list[PlayerGame] = Field(description="The newest games first.")
    next_before_ms: int | None = Field(
        description="Pass as before_ms to /api/players/{name}/games for older games."
    )
    next_before_id: str | None = Field(description="Pass as before_id with before_ms.")


class NotificationRequest(Request):
    """Where the account's notices go, and which it wants (both need an address)."""

    email: EmailStr | None = Field(
        default=None,
        max_length=254,
        description="The account's email address (optional; never shown to anyone else).",
        examples=["ada@example.org"],
    )
    turn: bool = Field(
        default=False, description="Email when it becomes your move in a correspondence game."
    )
    time: bool = Field(
        default=False, description="Email when your time to move in one is running out."
    )


class NotificationSettings(BaseModel):
    email: str | None
    turn: bool
    time: bool
    mail_enabled: bool = Field(
        description="Whether this site sends email at all (its operator set up a mail server)."
    )


class RatedPair(BaseModel):
    """Two accounts whose games together were played unrated for the daily limit."""

    first: str
    second: str
    rated_games: int = Field(description="Rated games they started together in the period.")
    unrated_games: int = Field(
        description="Games asked for as rated that the daily limit made unrated."
    )
    last_ms: int = Field(description="When the latest of those games started.")


class RatedPairList(BaseModel):
    """For moderators: the pairs of accounts that reached the daily limit of rated games
    together (``BLUEGRAY_RATED_GAMES_PER_PAIR``), the most capped games first."""

    since_ms: int
    per_day: int = Field(description="The rated games two accounts may play together a day.")
    pairs: list[RatedPair]


class SidePreview(BaseModel):
    """One side's rating before a rated game and what a win, a draw or a loss would change it by
    (computed as the game's end computes it)."""

    rating: float = Field(description="The rating now (before the game).")
    deviation: float
    provisional: bool = Field(description="Whether it is provisional (shown with a '?').")
    win: float = Field(description="The change a win would make (rating points).")
    draw: float
    loss: float


class RatingPreview(BaseModel):
    """What a rated game between two accounts would do to each rating, whatever its result."""

    pool: str = Field(examples=["sackson/real-time"])
    blue: SidePreview
    gray: SidePreview


class SeekPreview(BaseModel):
    """What a rated seek or challenge would do to the rating of the player who accepts it
    (``you``) and to its poster's (``them``), whatever the game's result."""

    pool: str = Field(examples=["sackson/real-time"])
    you: SidePreview
    them: SidePreview
