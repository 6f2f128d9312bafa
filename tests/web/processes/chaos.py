"""The chaos test's players and its ledger: clients that play games through the proxy as the web
client does — one socket per seat, reconnecting by itself whenever it drops, resending nothing it
saw acknowledged — and a record of every acknowledged move and of when each socket first saw
each version of its game, from which the test reads what the faults cost.

Each player is a thread with a socket of its own (``websockets``' blocking client); everything
they note goes through one lock. The players move at a steady pace so that every fault happens
while games are being played; a game that ends is replaced by a new one between the same
players, so the load stays the same until the end.
"""

from __future__ import annotations

import contextlib
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus
from websockets.sync.client import ClientConnection, connect

Json = dict[str, Any]

RECONNECT_SECONDS = 0.2
"""How long a player waits before reconnecting a dropped socket (the web client's first step)."""
RESEND_SECONDS = 5.0
"""A move not acknowledged within this is decided again from the state the socket has (a move
carries its version, so sending it again can never play it twice)."""


@dataclass
class Acknowledged:
    """A move the server acknowledged: the moves of the game just after it."""

    game_id: str
    version: int
    moves: tuple[str, ...]
    at: float


@dataclass
class Ledger:
    """What every player saw and was told, kept under one lock."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    acknowledged: list[Acknowledged] = field(default_factory=list)
    seen: dict[tuple[str, str], dict[int, float]] = field(default_factory=dict)
    """(game, seat) → version → when that socket first had it (monotonic seconds)."""
    errors: list[str] = field(default_factory=list)
    """Errors that no fault excuses (an internal error, a state that went backwards)."""
    refusals: list[tuple[float, str]] = field(default_factory=list)
    """Errors a fault may cause (the store unavailable, try again): when, and which."""
    connects: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    """(game, seat) → when each of its sockets got its first state."""
    finished: dict[str, Json] = field(default_factory=dict)
    """Games that ended, by id: their final state as the first socket saw it."""
    round_trips: list[tuple[float, float]] = field(default_factory=list)
    """Each acknowledged move: when its acknowledgement came, and the seconds since it was sent."""

    def saw(self, game_id: str, seat: str, version: int) -> None:
        now = time.monotonic()
        with self.lock:
            versions = self.seen.setdefault((game_id, seat), {})
            versions.setdefault(version, now)

    def latest(self, game_id: str, seat: str) -> int:
        with self.lock:
            return max(self.seen.get((game_id, seat), {0: 0.0}), default=0)

    def connected(self, game_id: str, seat: str) -> None:
        with self.lock:
            self.connects.setdefault((game_id, seat), []).append(time.monotonic())

    def wrong(self, what: str) -> None:
        with self.lock:
            self.errors.append(what)

    def refused(self, code: str) -> None:
        with self.lock:
            self.refusals.append((time.monotonic(), code))


EXCUSED = frozenset(
    {"stale_version", "conflict", "store_unavailable", "unavailable", "not_your_turn"}
)
"""Error codes a player may meet while parts fail: its move raced another change, or the store was
down (it decides again from the state it receives)."""


class Player(threading.Thread):
    """One seat of one game, played from a socket through the proxy until ``stop`` is set or the
    game ends. ``plays`` says whether this seat makes moves (an AI game's human does, a spectator
    does not); ``pace`` is the time between a state that gives it the move and its move."""

    def __init__(
        self,
        ws_url: str,
        game_id: str,
        token: str | None,
        seat: str,
        ledger: Ledger,
        stop: threading.Event,
        *,
        plays: bool = True,
        pace: float = 0.4,
        seed: int = 0,
    ) -> None:
        super().__init__(name=f"player-{game_id}-{seat}", daemon=True)
        self.url = f"{ws_url}/ws/games/{game_id}"
        self.game_id = game_id
        self.token = token
        self.seat = seat
        self.ledger = ledger
        self.stop = stop
        self.plays = plays
        self.pace = pace
        self.random = random.Random(seed)
        self.state: Json = {}
        self.over = threading.Event()
        self.paused = threading.Event()
        """Set: the player keeps its socket but makes no move (its owner stepped away)."""
        self.process = ""
        """The web process its current socket is on."""
        self._sent: tuple[str, int, float, tuple[str, ...]] | None = None
        self._refs = 0

    def run(self) -> None:
        while not self.stop.is_set() and not self.over.is_set():
            try:
                with connect(self.url, open_timeout=5, close_timeout=1, max_size=2**22) as socket:
                    self._session(socket)
            except (ConnectionClosed, InvalidHandshake, InvalidStatus, OSError, TimeoutError):
                pass
            if not self.stop.is_set() and not self.over.is_set():
                # the web client's back-off before reconnecting; the stop event ends it early
                self.stop.wait(RECONNECT_SECONDS)

    def _session(self, socket: ClientConnection) -> None:
        hello: Json = {"type": "hello"}
        if self.token is not None:
            hello["token"] = self.token
        socket.send(json.dumps(hello))
        self._sent = None
        first_state = True
        while not self.stop.is_set():
            try:
                message: Json = json.loads(socket.recv(timeout=0.1))
            except TimeoutError:
                self._maybe_move(socket)
                continue
            kind = message.get("type")
            if kind == "welcome":
                self.process = str(message.get("process", ""))
            elif kind == "state":
                if first_state:
                    self.ledger.connected(self.game_id, self.seat)
                    first_state = False
                self._state(message["game"])
                if self.over.is_set():
                    return
            elif kind == "ack":
                self._ack(message)
            elif kind == "error":
                code = str(message.get("code"))
                if code in EXCUSED:
                    self.ledger.refused(code)
                else:
                    self.ledger.wrong(f"{self.game_id}/{self.seat}: error {message}")
                self._sent = None
            self._maybe_move(socket)

    def _state(self, game: Json) -> None:
        version = int(game["version"])
        if self.state and version < int(self.state["version"]):
            return  # an older state after a newer one: the client keeps the newer
        self.state = game
        self.ledger.saw(self.game_id, self.seat, version)
        if game["status"] in ("finished", "aborted"):
            with self.ledger.lock:
                self.ledger.finished.setdefault(self.game_id, game)
            self.over.set()

    def _ack(self, message: Json) -> None:
        sent = self._sent
        if sent is None or message.get("ref") != sent[0]:
            return
        self._sent = None
        now = time.monotonic()
        with self.ledger.lock:
            self.ledger.acknowledged.append(
                Acknowledged(self.game_id, int(message["version"]), sent[3], now)
            )
            self.ledger.round_trips.append((now, now - sent[2]))

    def _maybe_move(self, socket: ClientConnection) -> None:
        state = self.state
        if not (self.plays and state) or self.paused.is_set():
            return
        if state["status"] != "active" or state["turn"] != self.seat or state.get("ai_thinking"):
            return
        if not state["legal_moves"]:
            return
        now = time.monotonic()
        if self._sent is not None:
            if now - self._sent[2] < RESEND_SECONDS:
                return
            self._sent = None  # never acknowledged: decide again from what the socket has
        seen = self.ledger.seen.get((self.game_id, self.seat), {}).get(int(state["version"]), now)
        if now - seen < self.pace:
            return
        move = self.random.choice(state["legal_moves"])
        self._refs += 1
        ref = f"{self.seat}-{self._refs}"
        moves = (*state["moves"], move)
        self._sent = (ref, int(state["version"]), now, moves)
        socket.send(
            json.dumps({"type": "move", "move": move, "version": state["version"], "ref": ref})
        )


def retrying(call: Callable[[], httpx.Response], seconds: float = 30) -> httpx.Response:
    """``call`` until it answers something other than a server error or a dropped connection
    (as a client that honours Retry-After would), for at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        answer: httpx.Response | None = None
        with contextlib.suppress(httpx.TransportError):
            answer = call()
            if answer.status_code < 500:
                return answer
        if time.monotonic() > deadline:
            if answer is not None:
                return answer
            raise AssertionError(f"no answer within {seconds:g} s")
        wait = 0.2
        if answer is not None and answer.headers.get("retry-after", "").isdigit():
            wait = min(1.0, float(answer.headers["retry-after"]))
        time.sleep(wait)  # the client's back-off between tries
