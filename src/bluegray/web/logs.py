"""Log lines of the web processes and workers: time, level, process, the game concerned (when
there is one) and the message; one JSON object a line when asked (``BLUEGRAY_LOG_JSON``, with
python-json-logger), for log collectors."""

from __future__ import annotations

import logging
from contextvars import ContextVar
from typing import Any, Final

game_id_var: ContextVar[str] = ContextVar("bluegray_game_id", default="-")
"""The game the current task works on (set when a game is loaded or changed)."""

PLAIN_FORMAT: Final = "%(asctime)s %(levelname)s %(process_name)s game=%(game_id)s %(message)s"
JSON_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s %(process_name)s %(game_id)s %(message)s"


class GameContext(logging.Filter):
    """Adds the process's name and the current game's id to every record."""

    def __init__(self, process: str) -> None:
        super().__init__()
        self.process = process

    def filter(self, record: logging.LogRecord) -> bool:
        record.game_id = game_id_var.get()
        record.process_name = self.process
        return True


def log_config(process: str, *, level: str, json: bool, access_log: bool) -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for the app's, uvicorn's and the access loggers."""
    formatter: dict[str, Any] = (
        {"()": "pythonjsonlogger.json.JsonFormatter", "fmt": JSON_FORMAT}
        if json
        else {"format": PLAIN_FORMAT}
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
