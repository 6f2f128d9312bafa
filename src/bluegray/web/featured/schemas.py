"""What ``GET /api/featured`` and the home page's socket (``/ws/featured``) say of the featured
game."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class FeaturedPlayer(BaseModel):
    """An account playing the featured game, with its rating in the game's pool."""

    name: str
    bot: bool
    rating: int = Field(description="Its rating in the game's pool, rounded.")


class FeaturedGame(BaseModel):
    """The best game on now: the rated real-time game between two accounts with the highest
    average rating (of two, the most recently started)."""

    game_id: str
    rules: str = Field(description="The preset rule set's name.")
    perf: str = Field(description="The rating pool, e.g. ``sackson/real-time``.")
    started_ms: int = Field(description="When its last seat was taken.")
    average: float = Field(description="The two players' average rating (to a tenth).")
    blue: FeaturedPlayer
    gray: FeaturedPlayer


class FeaturedMessage(BaseModel):
    """The featured game (``null``: none qualifies, the panel is hidden): first on
    ``/ws/featured``, then whenever it changes. The game's own messages (``state``,
    ``presence``, ``ai``: as on ``/ws/games/{id}``) follow it."""

    type: Literal["featured"] = "featured"
    game: FeaturedGame | None


class FeaturedPong(BaseModel):
    type: Literal["pong"] = "pong"
    server_time_ms: int
