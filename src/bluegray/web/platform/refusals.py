"""Why the app refuses a request, as plain exceptions the domains raise: a code for programs
(``not_your_turn``), a sentence for people, and the kind of refusal (the class). They know
nothing of HTTP: ``errors.HTTP_STATUS`` maps each kind to its status code, in that one place,
and the sockets map them to their close codes and error messages.

The kinds: ``Unauthorized`` (who asks is not known), ``Forbidden`` (known, and not allowed),
``NotFound``, ``Conflict`` (the request is fine, the state of things refuses it: a game over, a
seek taken), ``Invalid`` (the request itself is wrong), ``TooMany`` (a rate limit: try again in
``retry_after`` seconds) and ``Unavailable`` (a store cannot be reached right now: nothing
changed, and the same request may be sent again).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, Final

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from bluegray.errors import (
    BlueGrayError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidRecordError,
    InvalidRulesError,
    UnknownRulesError,
)


class Refusal(Exception):  # noqa: N818 - a refusal is an answer, not the program's error
    """A request the app refuses, and why."""

    def __init__(
        self,
        code: str,
        message: str,
        details: dict[str, Any] | None = None,
        *,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        """What went wrong, for programs (``not_your_turn``)."""
        self.message = message
        """What went wrong, for people."""
        self.details = details
        """More, for programs (a rate limit's ``retry_after``)."""
        self.retry_after = retry_after
        """In how many seconds the same request may succeed, when it may."""

    def body(self) -> dict[str, Any]:
        """The refusal as the API's error body (``{"error": {"code", "message"}}``)."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.details is not None:
            error["details"] = self.details
        return {"error": error}


class Unauthorized(Refusal):
    """Who asks is not known (no session, token or seat token, or a wrong one)."""


class Forbidden(Refusal):
    """Who asks is known and may not do this."""


class NotFound(Refusal):
    """What the request names does not exist (or is not shown to who asks)."""


class Conflict(Refusal):
    """The request is well formed; the state of things refuses it (a game over, a seek gone)."""


class Invalid(Refusal):
    """The request itself is wrong (a bad move, a bad position, a value out of range)."""


class TooMany(Refusal):
    """Too many requests of a kind: try again in ``retry_after`` seconds."""


class Unavailable(Refusal):
    """A part the request needs cannot be reached right now; nothing was changed."""


def not_found(what: str) -> NotFound:
    return NotFound("not_found", f"{what} not found")


def rate_limited(wait: float, what: str) -> TooMany:
    """``what`` (too many of something), and when to try again, ``wait`` seconds from now
    rounded up."""
    seconds = max(1, round(wait + 0.5))
    return TooMany(
        "rate_limited",
        f"{what}: try again in {seconds} s",
        {"retry_after": seconds},
        retry_after=seconds,
    )


RETRY_AFTER_SECONDS: Final = 1
"""How soon a client may try again a request refused because the database or Redis could not
be reached."""


def _store_down(error: BaseException) -> bool:
    """Whether ``error`` means the database cannot be reached right now (not that the request
    was wrong): a refused or lost connection, a restart, no connection free in time."""
    if isinstance(error, OperationalError | InterfaceError | DisconnectionError | PoolTimeoutError):
        return True
    return isinstance(error, DBAPIError) and error.connection_invalidated


def unavailable(error: BaseException) -> Unavailable | None:
    """The refusal for an error that means the database (``store_unavailable``) or Redis
    (``service_unavailable``) cannot be reached right now; ``None`` for any other error."""
    if _store_down(error):
        code, what = "store_unavailable", "the game store cannot be reached"
    elif isinstance(error, RedisConnectionError | RedisTimeoutError):
        code, what = "service_unavailable", "a part of the service cannot be reached"
    else:
        return None
    seconds = RETRY_AFTER_SECONDS
    return Unavailable(
        code,
        f"{what} right now: try again in {seconds} s",
        {"retry_after": seconds},
        retry_after=seconds,
    )


@contextlib.contextmanager
def refused_while_down() -> Iterator[None]:
    """Raise the ``Unavailable`` of ``unavailable`` for an outage met inside (HTTP has a
    handler for them; a socket's messages, and any caller that answers refusals itself, need
    this)."""
    try:
        yield
    except Exception as error:
        refusal = unavailable(error)
        if refusal is None:
            raise
        raise refusal from error


def from_library(error: BlueGrayError) -> Refusal:
    """The refusal for a library error: its message names the bad text and why."""
    message = str(error)
    if isinstance(error, GameOverError):
        return Conflict("game_over", message)
    if isinstance(error, IllegalMoveError):
        return Invalid("illegal_move", message)
    if isinstance(error, InvalidMoveError):
        return Invalid("invalid_move", message)
    if isinstance(error, InvalidPositionError):
        return Invalid("invalid_position", message)
    if isinstance(error, UnknownRulesError | InvalidRulesError):
        return Invalid("invalid_rules", message)
    if isinstance(error, InvalidRecordError):
        return Invalid("invalid_record", message)
    return Invalid("invalid_input", message)
