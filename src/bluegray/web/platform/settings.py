"""The web app's settings: where the database (and, when scaled out, Redis) is, and the limits
that keep a public server safe.

Every setting has a default fit for the internet and is read from a ``BLUEGRAY_<NAME>``
environment variable by pydantic-settings (``BLUEGRAY_AI_WORKERS=2``; lists as JSON or
comma-separated: ``BLUEGRAY_ALLOWED_HOSTS=play.example.org,www.example.org``); docs/web.md and
docs/deploy.md list them, and ``bluegray serve`` options override them.

Two ways to run come from the same settings: with ``redis_url`` empty the app is one process with
an in-process event bus and AI pool (the embedded default, on SQLite unless ``database_url`` says
otherwise); with ``redis_url`` set, any number of web processes share the database and Redis,
and ``bluegray worker`` processes compute the AI's moves.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from platformdirs import user_data_dir
from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from bluegray.errors import BlueGrayError

DATABASE_FILE: Final = "bluegray.sqlite3"
ENV_PREFIX: Final = "BLUEGRAY_"
LOOPBACK_HOSTS: Final = ("127.0.0.1", "localhost", "::1", "[::1]")


def default_database_url() -> str:
    """A SQLite file in the user's data directory (the directory is made if needed)."""
    directory = Path(user_data_dir("bluegray"))
    directory.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{directory / DATABASE_FILE}"


class InvalidSettingError(BlueGrayError):
    """A setting (a ``BLUEGRAY_*`` environment variable or option) with a value it cannot take."""


def _names(value: Any) -> Any:
    """A list setting from the environment: JSON (``["a", "b"]``) or comma-separated text."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            return text  # pydantic reads it as JSON
        return [part.strip() for part in text.split(",") if part.strip()]
    return value


Names = Annotated[list[str], NoDecode]


class Settings(BaseSettings):
    """What the app needs to know to run. Times are in seconds, sizes in bytes, rates per second."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, frozen=True, extra="forbid", validate_default=True
    )

    # -- where things are ----------------------------------------------------------------------

    database_url: str = ""
    """Any SQLAlchemy URL; empty: a SQLite file in the user's data directory."""
    sqlite_synchronous: str = Field(default="FULL", pattern=r"(?i)^(OFF|NORMAL|FULL|EXTRA)$")
    """SQLite's ``synchronous`` pragma: FULL makes every acknowledged move survive a power cut."""
    redis_url: str = ""
    """Redis (``redis://host:6379/0``): set it to run several web processes and AI workers.
    Empty: one process, with its event bus and AI pool inside it."""
    process_name: str = Field(default="", max_length=64, pattern=r"^[A-Za-z0-9_.:-]*$")
    """This process's name in logs, the ``X-Bluegray-Process`` header and the WebSocket
    welcome; empty: the host name, the process id and a random suffix."""

    # -- who may call ----------------------------------------------------------------------------

    allowed_hosts: Names = Field(default_factory=list)
    """The host names this site answers to (the ``Host`` header); anything else is refused, so
    that a page elsewhere cannot reach a player's server by DNS rebinding. Empty: the loopback
    names (``bluegray serve --host`` adds the address it listens on)."""
    trusted_proxies: Names = Field(default_factory=lambda: ["127.0.0.1", "::1"])
    """Addresses (or networks, ``10.0.0.0/8``) of reverse proxies whose ``X-Forwarded-For`` and
    ``X-Forwarded-Proto`` are believed, so that rate limits see the real clients behind them
    (``*``: any; default: a proxy on this machine)."""

    # -- sizes -----------------------------------------------------------------------------------

    max_body_bytes: int = Field(default=256 * 1024, ge=1)
    """The largest HTTP request body (a record import is the largest legitimate one)."""
    max_ws_message_bytes: int = Field(default=4096, ge=1)
    """The largest WebSocket message the app reads; a larger one is answered with an error."""
    max_ws_frame_bytes: int = Field(default=65536, ge=1)
    """The largest WebSocket frame the server accepts at all (larger ones close the socket)."""

    # -- rate limits -----------------------------------------------------------------------------

    rate_limits: bool = True
    """Whether the per-client rate limits below apply (kept in Redis when it is set, so that
    they hold across processes)."""
    http_rate: float = Field(default=20.0, gt=0)
    """Requests per second per client, on average ..."""
    http_burst: int = Field(default=100, ge=1)
    """... and at most this many at once."""
    create_rate: float = Field(default=0.5, gt=0)
    """New games and imports per second per client."""
    create_burst: int = Field(default=20, ge=1)
    analysis_rate: float = Field(default=0.5, gt=0)
    analysis_burst: int = Field(default=5, ge=1)
    ws_rate: float = Field(default=10.0, gt=0)
    """WebSocket messages per second per connection."""
    ws_burst: int = Field(default=40, ge=1)
    ws_connections_per_client: int = Field(default=64, ge=1)
    """Open WebSockets per client address, all kinds together (games, lobby, account,
    tournaments), counted across the web processes (in Redis when it is set); one more is
    refused at its handshake (429)."""
    ws_connections_per_process: int = Field(default=10_000, ge=1)
    """Open WebSockets in one web process, from everyone; one more is closed at once with code
    1013 (try again later). This holds with ``rate_limits`` off too."""
    signup_rate: float = Field(default=0.002, gt=0)
    """New accounts per second per client address (about 7 an hour) ..."""
    signup_burst: int = Field(default=5, ge=1)
    login_rate: float = Field(default=0.2, gt=0)
    """Logins per second per client address, good or bad."""
    login_burst: int = Field(default=20, ge=1)
    login_failures_per_name: int = Field(default=10, ge=1)
    """Failed logins to one name within ``login_failure_seconds``, from anywhere, before each
    further try on that name waits (1 s, then twice as long after each failure, up to
    ``login_slowdown_max_seconds``), except from a browser that has logged in to the account
    before (this holds even with ``rate_limits`` off: it does not count by address)."""
    login_failures_per_address: int = Field(default=30, ge=1)
    """Failed logins from one client address within ``login_failure_seconds``, before its
    logins wait as above."""
    login_failure_seconds: float = Field(default=900.0, gt=0, le=86_400)
    login_slowdown_max_seconds: float = Field(default=900.0, gt=0, le=86_400)
    """The longest wait between tries that failed logins make."""
    seek_rate: float = Field(default=0.2, gt=0)
    """Seeks and quick pairings posted per second per account (12 a minute) ..."""
    seek_burst: int = Field(default=10, ge=1)
    challenge_rate: float = Field(default=0.05, gt=0)
    """Challenges sent per second per account (3 a minute) ..."""
    challenge_burst: int = Field(default=5, ge=1)
    chat_rate: float = Field(default=0.5, gt=0)
    """Chat messages per second per account (per seat without one) ..."""
    chat_burst: int = Field(default=5, ge=1)
    chat_messages_per_game: int = Field(default=500, ge=1, le=100_000)
    """The most messages a game's chat holds (both rooms together)."""

    # -- the lobby -------------------------------------------------------------------------------

    seek_seconds: float = Field(default=1800.0, gt=0, le=7 * 86_400)
    """How long a seek stays in the lobby (it goes sooner when its owner's lobby socket
    closes)."""
    challenge_seconds: float = Field(default=600.0, gt=0, le=7 * 86_400)
    """How long a challenge to a named player waits for an answer."""
    lobby_sweep_seconds: float = Field(default=2.0, gt=0, le=600)
    """How often each process clears seeks that have expired or whose process has died."""
    quick_pairing_range: int = Field(default=300, ge=0, le=3000)
    """A quick pairing pairs two players whose ratings are at most this far apart, at first
    (a provisional rating matches any)."""
    quick_pairing_widen_points: int = Field(default=100, ge=0, le=3000)
    """How much the range of a player waiting in a quick pairing widens ..."""
    quick_pairing_widen_seconds: float = Field(default=10.0, gt=0, le=3600)
    """... every this many seconds of waiting."""
    quick_pairing_any_after_seconds: float = Field(default=60.0, gt=0, le=86_400)
    """After waiting this long in a quick pairing, a player is paired with any rating."""
    account_turn_seconds: float = Field(default=4.0, gt=0, le=600)
    """How often an account's socket looks again at the games waiting for its move (every page
    of the account shows a new one within this time, whichever process made the move)."""
    featured_seconds: float = Field(default=1.0, gt=0, le=2)
    """How often each process chooses the home page's featured game again (it shows the next
    one within this time, and a moment, of the last one's end)."""
    max_seeks: int = Field(default=10, ge=1, le=100)
    """Open seeks and challenges one account may have at once."""
    rated_games_per_pair: int = Field(default=10, ge=0, le=1000)
    """Rated games two accounts may start together within a day (24 hours); later games
    between them are played unrated, and both are told before the game starts."""
    open_tournaments_per_account: int = Field(default=3, ge=1, le=1000)
    """Tournaments one account may have created that have not finished yet ..."""
    tournaments_per_day: int = Field(default=10, ge=1, le=1000)
    """... and that it may create within a day (24 hours)."""
    first_move_seconds: float = Field(default=60.0, gt=0, le=30 * 86_400)
    """A game between two people where a side has not made its first move this long after it
    could ends as aborted (unrated, no loss)."""

    # -- the AI ----------------------------------------------------------------------------------

    ai_workers: int = Field(default=0, ge=0, le=1024)
    """Processes for AI moves and analyses, in the web process (embedded) or in each
    ``bluegray worker`` (``--processes``); 0: one per CPU this process may use (affinity and
    cgroup quota), and at most 2 in a worker (each engine process holds ~250 MB)."""
    worker_metrics_port: int = Field(default=0, ge=0, le=65535)
    """The port on which each ``bluegray worker`` answers Prometheus at ``/metrics``
    (``--metrics-port``); 0 (the default): no metrics served."""
    worker_metrics_host: str = Field(default="127.0.0.1", max_length=255)
    """The address a worker's metrics listen on (``0.0.0.0`` for a scraper on another host or
    container)."""
    ai_processes: bool = True
    """Run the embedded AI in worker processes (False: threads, for tests and tiny hosts)."""
    ai_queue_limit: int = Field(default=200, ge=1)
    """AI jobs waiting or running at once, in all; beyond it the AI answers that it is busy."""
    ai_queue_per_client: int = Field(default=8, ge=1)
    """AI jobs waiting or running at once for one browser, and for one address."""
    ai_unavailable_seconds: float = Field(default=3.0, gt=0, le=3600)
    """How long an AI job may wait with no worker alive before its game says that the AI is
    not available."""
    max_analysis_seconds: float = Field(default=5.0, gt=0, le=60)
    ai_job_overrun_seconds: float = Field(default=60.0, gt=0, le=3600)
    """How long an engine process may stay on a job past the job's own thinking time. A worker's
    slot stuck that long (its process frozen, or waiting on a database that never answers) loses
    the job to another slot, as its worker stops keeping the job (by its heartbeat); the embedded
    pool is killed and started again, and the job run there again."""

    explorer_books_at_start: bool = True
    """Load the shipped engine books into the opening explorer when a web process starts (in a
    thread: some 7 CPU seconds the first time, nothing once they are loaded)."""

    # -- game reviews ----------------------------------------------------------------------------

    review_nodes: int = Field(default=20_000, ge=1, le=10_000_000)
    """Nodes each position of a game review is searched to (the same answer on any machine)."""
    review_seconds: float = Field(default=30.0, gt=0, le=600)
    """The most one position of a review may be searched, whatever its nodes."""
    reviews_per_day: int = Field(default=10, ge=0, le=10_000)
    """Reviews one account may request in any 24 hours, and one address (0: none)."""
    review_runners: int = Field(default=1, ge=0, le=64)
    """Reviews this process drives at once, a position at a time (0: none; another process
    drives them)."""
    review_poll_seconds: float = Field(default=2.0, gt=0, le=60)
    """How often a process looks for a review that no live process drives."""
    review_lease_seconds: float = Field(default=60.0, gt=0, le=3600)
    """How long a review stays with the process driving it without news from it; then another
    process takes it up from its last stored position."""

    # -- timing ----------------------------------------------------------------------------------

    hello_timeout: float = Field(default=10.0, gt=0, le=600)
    """How long a new WebSocket may take to send its ``hello``."""
    abandon_seconds: float = Field(default=60.0, gt=0, le=86_400)
    """How long a player may stay away on their own turn before the opponent may claim."""
    heartbeat_seconds: float = Field(default=2.0, gt=0, le=60)
    """How often each process notes that it is alive: the cluster's heartbeat (for crediting
    clocks when the whole service was down) and its presence in Redis."""
    time_offset_seconds: float = Field(default=0.0, ge=0, le=10 * 365 * 86_400)
    """Run this process's clock ahead by this much: for tests that move real server processes
    forward in time. Leave it at 0."""
    deadline_poll_seconds: float = Field(default=0.5, gt=0, le=10)
    """How often each process looks for due timers (clock flags, AI moves) that no live
    process holds."""
    keep_alive_seconds: int = Field(default=75, ge=1, le=3600)
    """How long a web process keeps an idle HTTP connection open for the next request. Above
    the reverse proxy's own idle timeout (deploy/Caddyfile: 60 s), so that the proxy always
    closes an idle connection first and never sends a request on one the server is closing."""
    header_timeout_seconds: float = Field(default=10.0, gt=0, le=3600)
    """How long a client may take to send a request's headers (from its connection, or from the
    first byte of a later request on it) before the connection is dropped."""
    body_min_bytes_per_second: int = Field(default=1000, ge=1)
    """The slowest a request's body may come, once ``header_timeout_seconds`` has passed again
    since its headers, before the connection is dropped."""
    max_connections: int = Field(default=12_000, ge=1)
    """Connections one web process serves at once (WebSockets included); past it, a new
    request is answered 503."""

    # -- email -----------------------------------------------------------------------------------

    smtp_host: str = Field(default="", max_length=255)
    """The mail server that sends players' notifications ("your turn", "time running out");
    empty (the default): no email is sent."""
    smtp_port: int = Field(default=587, ge=1, le=65535)
    smtp_security: Literal["starttls", "ssl", "none"] = "starttls"
    """``starttls`` (port 587: plain, then STARTTLS, required), ``ssl`` (port 465: TLS from
    the start) or ``none`` (a relay on this machine or a test's sink only)."""
    smtp_user: str = Field(default="", max_length=255)
    """The login at the mail server (empty: send without logging in)."""
    smtp_password: str = Field(default="", max_length=1000, repr=False)
    smtp_from: str = Field(default="", max_length=255)
    """The From address of the notifications, e.g. ``Blue and Gray <noreply@example.org>``."""
    smtp_timeout_seconds: float = Field(default=20.0, gt=0, le=300)
    smtp_retry_seconds: float = Field(default=60.0, gt=0, le=86_400)
    """How soon a notification the mail server did not take is tried again (until the game
    has moved on: a "your turn" mail for a move already made is not sent)."""
    public_url: str = Field(default="", max_length=300, pattern=r"^(https?://[^\s/]+)?$")
    """The site's address as players reach it (``https://bluegray.example.org``), for the
    links in emails; needed with ``smtp_host``."""

    # -- the site --------------------------------------------------------------------------------

    secure_cookies: bool = False
    """Mark cookies Secure and send HSTS: set it when the site is served over HTTPS."""
    site: str = Field(default="bluegray", max_length=100)
    """The Site tag of downloaded records."""
    log_json: bool = False
    """Log one JSON object per line (for log collectors) instead of plain text."""

    @model_validator(mode="after")
    def _mail_complete(self) -> Settings:
        if self.smtp_host and not (self.smtp_from and self.public_url):
            raise ValueError(
                "BLUEGRAY_SMTP_HOST needs BLUEGRAY_SMTP_FROM and BLUEGRAY_PUBLIC_URL (the "
                "sender, and the site's address for the links in the mails)"
            )
        return self

    @property
    def mail_enabled(self) -> bool:
        return bool(self.smtp_host)

    @field_validator("allowed_hosts", "trusted_proxies", mode="before")
    @classmethod
    def _split_names(cls, value: Any) -> Any:
        return _names(value)

    def with_changes(self, **changes: object) -> Settings:
        """These settings with some changed (validated like the environment's)."""
        values = self.model_dump() | changes
        try:
            return type(self).model_validate(values)
        except ValidationError as error:
            raise InvalidSettingError(describe(error)) from None

    @property
    def resolved_database_url(self) -> str:
        return self.database_url or default_database_url()

    @property
    def scaled(self) -> bool:
        """Whether the app runs scaled out: events, presence, rate limits and the AI on Redis."""
        return bool(self.redis_url)

    @property
    def hosts(self) -> list[str]:
        """The host names accepted in ``Host`` (the loopback names when none are set)."""
        return self.allowed_hosts or list(LOOPBACK_HOSTS)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """The defaults with ``BLUEGRAY_<NAME>`` variables applied (from the process's
        environment, and ``environ`` over it); ``InvalidSettingError`` (one line, naming the
        variable) for a value a setting cannot take."""
        given: dict[str, Any] = {
            name[len(ENV_PREFIX) :].lower(): value
            for name, value in (environ or {}).items()
            if name.startswith(ENV_PREFIX)
        }
        try:
            return cls(**given)
        except ValidationError as error:
            raise InvalidSettingError(describe(error)) from None


def describe(error: ValidationError) -> str:
    """A validation error as one line naming the ``BLUEGRAY_*`` variable."""
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item.get("loc", ()))
        name = ENV_PREFIX + where.upper() if where else "settings"
        value = item.get("input")
        shown = f"={value!r}" if isinstance(value, str | int | float | bool) else ""
        problems.append(f"{name}{shown}: {item.get('msg', 'invalid')}")
    return "; ".join(problems) or "invalid settings"


def process_name(settings: Settings) -> str:
    """A name for a new app or worker: the setting, or the host, the process id and four random
    hex digits (unique in a cluster, and what an operator can find the process by)."""
    return settings.process_name or f"{socket.gethostname()}-{os.getpid()}-{os.urandom(2).hex()}"
