"""The chat's shapes: what a client sends, a message as shown (over HTTP and on the game's
socket), the account's chat settings, and the moderators' list of reports."""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, Field, model_validator

from bluegray.web.platform.schemas import Request

TEXT_LIMIT: Final = 140
"""The most characters a message may hold."""
CANNED: Final = {
    "hello": "Hello!",
    "good_luck": "Good luck!",
    "have_fun": "Have fun!",
    "well_played": "Well played!",
    "thanks": "Thank you!",
    "good_game": "Good game!",
}
"""The canned quick messages, by key: anyone who may chat in a game may send them, players
without an account too."""

Room = Literal["players", "spectators"]
CannedKey = Literal["hello", "good_luck", "have_fun", "well_played", "thanks", "good_game"]


class ChatRequest(Request):
    """A message: free text (from an account) or a canned message's key; exactly one."""

    text: str | None = Field(
        default=None,
        min_length=1,
        max_length=TEXT_LIMIT,
        description="Shown as plain text.",
    )
    canned: CannedKey | None = None

    @model_validator(mode="after")
    def _one(self) -> ChatRequest:
        if (self.text is None) == (self.canned is None):
            raise ValueError("send either text or canned")
        return self


class ChatLine(BaseModel):
    """A message as shown."""

    id: int
    room: Room
    sent_ms: int
    ply: int
    author: str | None = Field(description="The author's account name (null: no account).")
    side: Literal["blue", "gray"] | None = Field(description="The side its author plays.")
    text: str = Field(description="Plain text (never markup; links are not links).")
    canned: CannedKey | None = None


class ChatLog(BaseModel):
    """A game's chat as the caller may see it, oldest first."""

    game_id: str
    room: Room | None = Field(description="Where the caller writes (null: it may not write).")
    chat_off: bool = Field(description="The caller turned the chat off: nothing is shown.")
    spectators_shown: bool = Field(
        description="Whether the spectators' room is shown (to players: once the game is over)."
    )
    canned: dict[str, str]
    messages: list[ChatLine]


class ChatMessage(BaseModel):
    """A new message, on the game's socket (to those who may see it)."""

    type: Literal["chat"] = "chat"
    line: ChatLine


class ChatSettings(BaseModel):
    chat_off: bool
    muted: list[str] = Field(description="The accounts this one muted for itself.")


class ChatSettingsRequest(Request):
    chat_off: bool


class ReportAnswer(BaseModel):
    id: int
    state: Literal["open", "dismissed", "acted"]


class ChatReport(BaseModel):
    id: int
    state: Literal["open", "dismissed", "acted"]
    created_ms: int
    reporter: str
    game_id: str
    message: ChatLine
    author_muted: bool = Field(description="Whether a moderator muted the author.")
    author_closed: bool


class ChatReportList(BaseModel):
    reports: list[ChatReport]


class ReportDecision(Request):
    """``dismiss`` the report, ``mute`` its author (everywhere) or ``close`` its account."""

    action: Literal["dismiss", "mute", "close"]
