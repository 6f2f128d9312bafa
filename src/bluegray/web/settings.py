"""The web app's settings: where the database is, and the limits that keep a public server safe.

Every setting has a default fit for the internet; ``Settings.from_env`` reads overrides from
``BLUEGRAY_*`` environment variables (docs/web.md lists them), and ``bluegray serve`` options
override those.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from platformdirs import user_data_dir

from bluegray.errors import BlueGrayError

DATABASE_FILE: Final = "bluegray.sqlite3"


def default_database_url() -> str:
    """A SQLite file in the user's data directory (the directory is made if needed)."""
    directory = Path(user_data_dir("bluegray"))
    directory.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{directory / DATABASE_FILE}"


class InvalidSettingError(BlueGrayError):
    """A ``BLUEGRAY_*`` environment variable with a value the setting cannot take."""


@dataclass(frozen=True)
class Settings:
    """What the app needs to know to run. Times are in seconds, sizes in bytes, rates per second."""

    database_url: str = ""
    """Any SQLAlchemy URL; empty: a SQLite file in the user's data directory."""
    sqlite_synchronous: str = "FULL"
    """SQLite's ``synchronous`` pragma: FULL makes every acknowledged move survive a power cut."""

    max_body_bytes: int = 256 * 1024
    """The largest HTTP request body (a record import is the largest legitimate one)."""
    max_ws_message_bytes: int = 4096
    """The largest WebSocket message the app reads; a larger one is answered with an error."""
    max_ws_frame_bytes: int = 65536
    """The largest WebSocket frame the server accepts at all (larger ones close the socket)."""

    rate_limits: bool = True
    """Whether the per-client rate limits below apply."""
    http_rate: float = 20.0
    http_burst: int = 100
    create_rate: float = 0.5
    """New games and imports per second per client."""
    create_burst: int = 20
    analysis_rate: float = 0.5
    analysis_burst: int = 5
    ws_rate: float = 10.0
    """WebSocket messages per second per connection."""
    ws_burst: int = 40
    ws_connections_per_client: int = 64

    ai_workers: int = 0
    """Processes that run AI moves and analyses; 0: one per CPU."""
    ai_processes: bool = True
    """Run the engine in worker processes (False: threads, for tests and tiny hosts)."""
    max_analysis_seconds: float = 5.0
    hello_timeout: float = 10.0
    """How long a new WebSocket may take to send its ``hello``."""
    abandon_seconds: float = 60.0
    """How long a player may stay disconnected on their turn before the opponent may claim."""
    heartbeat_seconds: float = 2.0
    """How often the server notes that it is alive, so a restart can credit clocks for downtime."""

    secure_cookies: bool = False
    """Mark cookies Secure and send HSTS: set it when the site is served over HTTPS."""
    site: str = "bluegray"
    """The Site tag of downloaded records."""

    def with_changes(self, **changes: object) -> Settings:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    @property
    def resolved_database_url(self) -> str:
        return self.database_url or default_database_url()

    @property
    def engine_workers(self) -> int:
        return self.ai_workers or max(1, os.cpu_count() or 1)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The defaults, with ``BLUEGRAY_<NAME>`` variables applied (``BLUEGRAY_AI_WORKERS=2``)."""
        environ = os.environ if environ is None else environ
        changes: dict[str, object] = {}
        for field in dataclasses.fields(cls):
            name = "BLUEGRAY_" + field.name.upper()
            if name in environ:
                changes[field.name] = _convert(name, environ[name], field.type)
        return cls().with_changes(**changes)


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _convert(name: str, text: str, kind: object) -> object:
    value = text.strip()
    if kind in ("bool", bool):
        if value.lower() in _TRUE:
            return True
        if value.lower() in _FALSE:
            return False
        raise InvalidSettingError(f"{name}={text!r}: expected true or false")
    if kind in ("int", int, "float", float):
        convert = int if kind in ("int", int) else float
        try:
            number = convert(value)
        except ValueError:
            raise InvalidSettingError(f"{name}={text!r}: expected a number") from None
        if number < 0:
            raise InvalidSettingError(f"{name}={text!r}: expected a number >= 0")
        return number
    return value
