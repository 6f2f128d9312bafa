"""A bot's games on a bluegray site: an engine (any program that speaks BGI, docs/protocol.md)
plays the games of a bot's account through the site's API, with the account's API token.

The bot learns of its games from the account's list (``GET /api/players/{name}/games``), which
the games it joined by an invite link, and those it opened for anyone to join, are on; each game
is played over its WebSocket (``hello`` with the token), one thread a game, with the engine's
moves computed one at a time. The challenges and seeks of a lobby will bring games the same way.

HTTP goes through the standard library; the WebSocket through ``websockets``, which the web extra
installs (this module loads only for ``bluegray bot``).
"""

from __future__ import annotations

import json
import random
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect

from bluegray.errors import BlueGrayError
from bluegray.game import Game
from bluegray.protocol import Go
from bluegray.protocol.client import Engine

Json = dict[str, Any]
PING_SECONDS: Final = 20.0
"""How often a game's socket pings the site (so that the bot counts as present)."""
TIMEOUT_SECONDS: Final = 20.0
CLOSE_RESTARTING: Final = 1012
"""The close code of a server process that stops (a deploy): another one takes the game."""
RECONNECT_SECONDS: Final = 1.0
"""The pause before opening a game's socket again (times the failures in a row, up to 10)."""
RECONNECT_TRIES: Final = 30
"""Failures in a row to open a game's socket before the bot leaves the game."""
RESENDS: Final = 10
"""The most times a request refused with 503 (the site's database or Redis out for a moment:
nothing was done) is sent again, after its ``Retry-After``."""
UNAVAILABLE: Final = frozenset({"store_unavailable", "service_unavailable"})
"""The error codes of a move the site could not store for a moment: it is sent again."""


class BotError(BlueGrayError):
    """The site refused the bot, or cannot be reached."""


def _error_text(body: bytes, status: int) -> str:
    try:
        return str(json.loads(body)["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return f"the site answered {status}"


def retry_after(value: object) -> float:
    """The seconds to wait before sending again (a ``Retry-After`` header or an error message's
    ``retry_after``), spread a little so that every client does not come back at once."""
    try:
        seconds = float(str(value))
    except ValueError:
        seconds = 1.0
    return min(max(seconds, 1.0), 30.0) * random.uniform(1.0, 1.25)


def time_control(clock: tuple[float, float] | None, days: int | None) -> Json:
    """A new game's or a seek's time control in the API's words: a clock (minutes, seconds of
    increment), correspondence days per move, or neither (no time limit)."""
    if clock is not None:
        return {"clock": {"minutes": clock[0], "increment_seconds": clock[1]}}
    if days is not None:
        return {"correspondence": {"days": days}}
    return {}


class Site:
    """The site's HTTP API, as the account of a token."""

    def __init__(self, server: str, token: str) -> None:
        self.server = server.rstrip("/")
        self.token = token

    def request(
        self, method: str, path: str, body: Json | None = None, *, key: str | None = None
    ) -> Json:
        """The answer's JSON. A GET, or a request with an idempotency ``key``, refused with 503
        is sent again after its ``Retry-After`` (a few times)."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if key is not None:
            headers["Idempotency-Key"] = key
        request = urllib.request.Request(
            self.server + path, data=data, headers=headers, method=method
        )
        for tries in range(RESENDS + 1):
            try:
                with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:
                    payload = answer.read()
                break
            except urllib.error.HTTPError as error:
                resendable = method == "GET" or key is not None
                if error.code != 503 or not resendable or tries == RESENDS:
                    raise BotError(_error_text(error.read(), error.code)) from None
                time.sleep(retry_after(error.headers.get("Retry-After", 1)))
            except (urllib.error.URLError, OSError) as error:
                reason = getattr(error, "reason", error)
                raise BotError(f"cannot reach {self.server}: {reason}") from None
        result: Json = json.loads(payload) if payload else {}
        return result

    def account(self) -> Json:
        """The token's account (``BotError`` for a token the site does not know)."""
        account: Json | None = self.request("GET", "/api/account")["account"]
        if account is None:
            raise BotError("the site knows no account for that token")
        return account

    def join(self, link: str) -> str:
        """Take the open seat of a game by its invite link (``.../game/ID#join=CODE``)."""
        parts = urlsplit(link)
        game_id = parts.path.rstrip("/").rsplit("/", 1)[-1]
        code = parts.fragment.removeprefix("join=")
        if "/game/" not in parts.path or not parts.fragment.startswith("join=") or not code:
            raise BotError(f"not an invite link: {link} (expected .../game/ID#join=CODE)")
        self.request("POST", f"/api/games/{game_id}/join", {"invite": code})
        return game_id

    def open_game(
        self, rules: str, clock: tuple[float, float] | None, days: int | None
    ) -> tuple[str, str]:
        """A game between people that anyone with its link may join: its id and the link."""
        body: Json = {"rules": rules, "opponent": {"type": "friend"}, "color": "random"}
        body.update(time_control(clock, days))
        created = self.request("POST", "/api/games", body, key=str(uuid.uuid4()))
        return created["game"]["id"], self.server + created["invite"]["path"]

    def post_seek(
        self, rules: str, clock: tuple[float, float] | None, days: int | None, rated: bool
    ) -> str:
        """Post an open challenge in the lobby; its id."""
        body: Json = {"rules": rules, "rated": rated, "color": "random"}
        body.update(time_control(clock, days))
        seek_id: str = self.request("POST", "/api/seeks", body)["id"]
        return seek_id

    def open_seeks(self) -> list[Json]:
        seeks: list[Json] = self.request("GET", "/api/seeks")["seeks"]
        return seeks

    def accept_seek(self, seek_id: str) -> str | None:
        """Accept an open challenge: the game's id (``None``: someone was quicker, or the
        bot's rating is outside its range)."""
        try:
            game_id: str = self.request("POST", f"/api/seeks/{seek_id}/accept")["game_id"]
        except BotError:
            return None
        return game_id

    def games_to_play(self, name: str) -> list[str]:
        """The account's games that are waiting for an opponent or going on."""
        games = self.request("GET", f"/api/players/{name}/games?limit=100")["games"]
        return [game["id"] for game in games if game["status"] in ("waiting", "active")]


@dataclass
class Thinker:
    """The engine, one search at a time for every game."""

    engine: Engine
    movetime_ms: int
    lock: threading.Lock = field(default_factory=threading.Lock)

    def move(self, state: Json) -> str:
        game = Game(state["rules"]["text"], state["start"])
        for text in state["moves"]:
            game.push(text)
        clock = state["clock"]
        if clock is None:
            go = Go(movetime=self.movetime_ms)
        else:
            increment = clock["increment_ms"]
            go = Go(btime=clock["blue_ms"], gtime=clock["gray_ms"], binc=increment, ginc=increment)
        with self.lock:
            self.engine.position(game)
            result = self.engine.go(go)
        if result.move is None:
            raise BotError("the engine found no move")
        return str(result.move)


def play_game(
    server: str,
    token: str,
    game_id: str,
    thinker: Thinker,
    say: Callable[[str], None],
    stopping: threading.Event,
) -> Json | None:
    """Play one game over its WebSocket until it is over (its last state) or ``stopping``. A
    socket that closes is opened again: at once when the server is restarting (code 1012),
    after a short pause otherwise; the bot leaves the game only when the site refuses it or
    cannot be reached for a while."""
    url = server.replace("http", "ws", 1).rstrip("/") + f"/ws/games/{game_id}"
    failures = 0
    welcomed: list[bool] = []
    while not stopping.is_set():
        was_welcomed = len(welcomed)
        pause = RECONNECT_SECONDS
        try:
            return _play_connected(url, token, game_id, thinker, say, stopping, welcomed)
        except ConnectionClosed as closed:
            code = None if closed.rcvd is None else closed.rcvd.code
            if code is not None and 4400 <= code < 4500:  # refused: a wrong token, no game
                return None
            if code == CLOSE_RESTARTING:
                pause = 0.0
        except (OSError, InvalidHandshake) as error:
            if not welcomed or failures >= RECONNECT_TRIES:
                raise BotError(f"cannot reach {server}: {error}") from error
        failures = 0 if len(welcomed) > was_welcomed else failures + 1
        if failures > RECONNECT_TRIES:
            return None
        say(f"game {game_id}: the connection closed; reconnecting")
        stopping.wait(pause * min(failures, 10))
    return None


def _play_connected(
    url: str,
    token: str,
    game_id: str,
    thinker: Thinker,
    say: Callable[[str], None],
    stopping: threading.Event,
    welcomed: list[bool],
) -> Json | None:
    """One socket of ``play_game``: its game's last state, or ``None`` once ``stopping``
    (``ConnectionClosed`` if it closes first; ``welcomed`` gets an item when it is welcome)."""
    with connect(url, open_timeout=TIMEOUT_SECONDS, max_size=2**22) as socket:
        socket.send(json.dumps({"type": "hello", "token": token}))
        side = None
        played_at = -1  # a move sent but lost with the last socket is sent again on this one
        pinged = time.monotonic()
        sent: Json | None = None  # the last move sent
        resend: tuple[float, Json] | None = None  # a move to send again, and when
        while not stopping.is_set():
            if time.monotonic() - pinged > PING_SECONDS:
                socket.send(json.dumps({"type": "ping"}))
                pinged = time.monotonic()
            if resend is not None and time.monotonic() >= resend[0]:
                socket.send(json.dumps(resend[1]))  # same version: it cannot be played twice
                resend = None
            try:
                message: Json = json.loads(socket.recv(timeout=1.0))
            except TimeoutError:
                continue
            kind = message["type"]
            if kind == "welcome":
                side = message["side"]
                welcomed.append(True)
                say(f"game {game_id}: playing {side}")
            elif kind == "error" and message.get("code") in UNAVAILABLE and sent is not None:
                say(f"game {game_id}: {message['message']}: sending the move again")
                resend = time.monotonic() + retry_after(message.get("retry_after") or 1), sent
            elif kind == "error":
                say(f"game {game_id}: {message['message']}")
            elif kind == "state":
                state: Json = message["game"]
                if state["status"] in ("finished", "aborted"):
                    return state
                mine = side == "both" or state["turn"] == side
                if state["status"] == "active" and mine and state["version"] > played_at:
                    played_at = state["version"]
                    move = thinker.move(state)
                    sent = {"type": "move", "move": move, "version": state["version"]}
                    resend = None
                    socket.send(json.dumps(sent))
    return None


def describe_end(state: Json | None) -> str:
    if state is None:
        return "left (the connection closed)"
    outcome = state["outcome"]
    if outcome is None:
        return "aborted"
    return f"over: {outcome['result']}, {outcome['description']}"


def use_the_lobby(
    site: Site,
    args: Any,
    name: str,
    clock: tuple[float, float] | None,
    say: Callable[[str], None],
) -> None:
    """With no game going on: accept a matching open challenge (--accept-seeks), else keep one
    of the bot's own in the lobby (--seek), unless a game has started since the caller looked
    (its seek was just accepted)."""
    seeks = site.open_seeks() if args.seek or args.accept_seeks is not None else []
    if args.accept_seeks is not None:
        wanted = {rules.strip() for rules in args.accept_seeks.split(",") if rules.strip()}
        for seek in seeks:
            if seek["player"].lower() == name.lower() or seek["quick"]:
                continue
            if wanted and seek["rules"] not in wanted:
                continue
            game_id = site.accept_seek(seek["id"])
            if game_id is not None:
                say(f"accepted {seek['player']}'s challenge: game {game_id}")
                return
    if args.seek and not any(seek["player"].lower() == name.lower() for seek in seeks):
        # Its seek may have gone because someone accepted it since the loop last read its
        # games: the game was stored before the seek went, so it is found now.
        if site.games_to_play(name):
            return
        seek_id = site.post_seek(args.seek, clock, args.days, args.rated)
        say(f"posted a challenge in the lobby: {seek_id}")


def wants_another_game(
    playing: dict[str, threading.Thread],
    finished: list[str],
    games: int | None,
    lock: threading.Lock,
) -> bool:
    """Whether the bot should look for a game in the lobby now: none of its games is being
    played, and it has played fewer than ``games`` (``None``: no limit). Whether a game is
    still played is asked first: a game's thread notes its end before it stops, so a game that
    ended meanwhile is counted (asked the other way round, the last game could end between the
    two questions and the bot post a seek on its way out)."""
    if any(thread.is_alive() for thread in playing.values()):
        return False
    with lock:
        return games is None or len(finished) < games


def run_bot(args: Any, clock: tuple[float, float] | None) -> int:
    """``bluegray bot``: join and open what the options say, then play every game of the
    account until ``--games`` are over (or Ctrl-C)."""
    site = Site(args.server, args.token)
    account = site.account()
    name = account["name"]
    if not account["bot"]:
        raise BotError(
            f"{name} is not a bot's account: make it one first (its account page, or "
            f"'bluegray user bot {name}' on the server)"
        )
    lock = threading.Lock()

    def say(line: str) -> None:
        with lock:
            print(f"bluegray bot {name}: {line}", flush=True)

    for link in args.join:
        say(f"joined game {site.join(link)}")
    if args.open:
        game_id, link = site.open_game(args.open, clock, args.days)
        say(f"opened game {game_id}: send {link}")
    stopping = threading.Event()
    finished: list[str] = []
    playing: dict[str, threading.Thread] = {}
    with Engine(args.engine) as engine:
        thinker = Thinker(engine, args.movetime)

        def play(game_id: str) -> None:
            try:
                end = play_game(site.server, site.token, game_id, thinker, say, stopping)
            except (BlueGrayError, OSError) as error:
                say(f"game {game_id}: stopped: {error}")
                end = None
            if not stopping.is_set():
                say(f"game {game_id}: {describe_end(end)}")
            with lock:
                finished.append(game_id)

        say(f"playing on {site.server} with {args.engine!r}")
        try:
            while args.games is None or len(finished) < args.games:
                for game_id in site.games_to_play(name):
                    if game_id not in playing:
                        thread = threading.Thread(target=play, args=(game_id,), daemon=True)
                        playing[game_id] = thread
                        thread.start()
                if wants_another_game(playing, finished, args.games, lock):
                    use_the_lobby(site, args, name, clock, say)
                time.sleep(args.poll)
        finally:
            stopping.set()
            for thread in playing.values():
                thread.join(timeout=5)
    return 0
