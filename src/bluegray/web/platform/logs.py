"""Log lines of the web processes and workers: the time (ISO 8601, in UTC, with its offset),
level, process, the game concerned and the request being answered (when there is one) and the
message; one JSON object a line when asked (``BLUEGRAY_LOG_JSON``, with python-json-logger), for
log collectors. ``bluegray serve`` and ``bluegray worker`` both log this way."""

from __future__ import annotations

import datetime
import logging
from contextvars import ContextVar
from typing import Any, Final

from pythonjsonlogger.json import JsonFormatter

game_id_var: ContextVar[str] = ContextVar("bluegray_game_id", default="-")
"""The game the current task works on (set when a game is loaded or changed)."""
request_id_var: ContextVar[str] = ContextVar("bluegray_request_id", default="-")
"""The request the current task answers (``X-Request-ID``: set by ``guard`` as it comes in)."""

PLAIN_FORMAT: Final = (
    "%(asctime)s %(levelname)s %(process_name)s game=%(game_id)s request=%(request_id)s %(message)s"
)
JSON_FORMAT: Final = (
    "%(asctime)s %(levelname)s %(name)s %(process_name)s %(game_id)s %(request_id)s %(message)s"
)


def log_time(record: logging.LogRecord) -> str:
    """When ``record`` was made: ``2026-03-01T14:05:09.123+00:00``."""
    moment = datetime.datetime.fromtimestamp(record.created, datetime.UTC)
    return moment.isoformat(timespec="milliseconds")


class PlainFormatter(logging.Formatter):
    """Plain text lines, their times in UTC with the offset said."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 - logging's name
        return log_time(record)


class JsonLineFormatter(JsonFormatter):
    """JSON lines, their times in UTC with the offset said."""

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802 - logging's name
        return log_time(record)


class GameContext(logging.Filter):
    """Adds the process's name, the current game's id and the current request's id to every
    record."""

    def __init__(self, process: str) -> None:
        super().__init__()
        self.process = process

    def filter(self, record: logging.LogRecord) -> bool:
        record.game_id = game_id_var.get()
        record.request_id = request_id_var.get()
        record.process_name = self.process
        return True


def log_config(process: str, *, level: str, json: bool, access_log: bool) -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for the app's, uvicorn's and the access loggers, and for
    what other libraries log (warnings and worse, through the root logger)."""
    formatter: dict[str, Any] = (
        {"()": f"{__name__}.JsonLineFormatter", "fmt": JSON_FORMAT}
        if json
        else {"()": f"{__name__}.PlainFormatter", "fmt": PLAIN_FORMAT}
    )
    handler = {
        "class": "logging.StreamHandler",
        "stream": "ext://sys.stderr",
        "formatter": "line",
        "filters": ["game"],
    }
    level = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"game": {"()": GameContext, "process": process}},
        "formatters": {"line": formatter},
        "handlers": {"line": handler},
        "root": {"handlers": ["line"], "level": "WARNING"},
        "loggers": {
            "bluegray": {"handlers": ["line"], "level": level, "propagate": False},
            "uvicorn": {"handlers": ["line"], "level": level, "propagate": False},
            "uvicorn.error": {"level": level},
            "uvicorn.access": {
                "handlers": ["line"],
                "level": level if access_log else "WARNING",
                "propagate": False,
            },
        },
    }
