"""Load test of the web service: many online games at once over WebSockets, and AI games.

Starts the service, then from a separate process drives ``--games`` concurrent games between two
WebSocket clients each, every client moving once a second on its turn (a finished game is
replaced by a new one, so the load holds), and ``--ai-games`` games against the AI at levels 6-8
in turn, whose human moves a second after each AI reply, plus a level-1 game that measures how
quickly a short AI job is answered under that load. It measures each human move's round trip,
from sending it to the acknowledgement that it is stored, and each AI reply by level; at the end
it re-reads every game to check that no acknowledged move was lost.

    python benchmarks/web_load.py                      # embedded: SQLite, one process
    python benchmarks/web_load.py --servers 2          # scaled: PostgreSQL, Redis, 2 processes
    python benchmarks/web_load.py --servers 2 --ai-games 40
    python benchmarks/web_load.py --chaos --games 40   # the chaos test's faults under load
    python benchmarks/web_load.py --games 0 --ai-games 2 --reviews 10   # AI replies, reviews queued

With ``--servers N`` (or ``--scaled``) the benchmark starts its own PostgreSQL and Redis, N
``bluegray serve`` processes behind nginx (round robin) and ``--workers`` ``bluegray worker``
processes, as docs/deploy.md describes. The per-client rate limits are off (every client here
has the same address).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bluegray.game import Game as Played
from bluegray.game_record import GameRecord, write_record

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.servers import PostgresServer, RedisServer, ReverseProxy, free_port
from web_chaos import run_chaos

ACK_TIMEOUT = 10.0
AI_LEVELS = (6, 7, 8)
AI_TIMEOUT = 120.0


@dataclass
class Tally:
    round_trips: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    acked: dict[str, dict[int, str]] = field(default_factory=dict)
    """Each game's acknowledged moves by the version each one made (the two clients of a game
    hear their acknowledgements independently, so only the versions give the order)."""
    finished: int = 0
    ai_replies: dict[int, list[float]] = field(default_factory=dict)
    """Seconds from a human move's acknowledgement to the AI's reply, by level."""
    ai_busy: int = 0


class Player:
    """One side of one game: moves once a second when it is its turn."""

    def __init__(self, game: Game, side: str, token: str, interval: float) -> None:
        self.game = game
        self.side = side
        self.token = token
        self.interval = interval
        self.next_move = time.monotonic() + random.random() * interval

    async def play(self, url: str, tally: Tally, stop: asyncio.Event) -> None:
        async with connect(url, max_size=2**22, open_timeout=30) as ws:
            await ws.send(json.dumps({"type": "hello", "token": self.token}))
            state: dict[str, Any] = {}
            while not stop.is_set():
                message = await self._receive(ws, stop)
                if message is None:
                    return
                kind = message["type"]
                if kind == "error":
                    tally.errors.append(f"{self.game.id} {self.side}: {message['message']}")
                    continue
                if kind != "state":
                    continue
                state = message["game"]
                if state["outcome"] is not None or state["status"] != "active":
                    self.game.over.set()
                    return
                if state["turn"] == self.side and state["version"] > self.game.moved_version:
                    await self._move(ws, state, tally, stop)

    async def _receive(self, ws: ClientConnection, stop: asyncio.Event) -> dict[str, Any] | None:
        receiving = asyncio.ensure_future(ws.recv())
        stopping = asyncio.ensure_future(stop.wait())
        overing = asyncio.ensure_future(self.game.over.wait())
        done, _ = await asyncio.wait(
            {receiving, stopping, overing}, return_when=asyncio.FIRST_COMPLETED
        )
        for task in (receiving, stopping, overing):
            if task not in done:
                task.cancel()
        if receiving not in done:
            return None
        message: dict[str, Any] = json.loads(receiving.result())
        return message

    async def _move(
        self, ws: ClientConnection, state: dict[str, Any], tally: Tally, stop: asyncio.Event
    ) -> None:
        delay = self.next_move - time.monotonic()
        if delay > 0:
            try:
                await asyncio.wait_for(stop.wait(), delay)
                return
            except TimeoutError:
                pass
        text = random.choice(state["legal_moves"])
        version = state["version"]
        self.game.moved_version = version
        sent = time.perf_counter()
        self.next_move = time.monotonic() + self.interval
        await ws.send(json.dumps({"type": "move", "move": text, "version": version, "ref": "m"}))
        deadline = sent + ACK_TIMEOUT
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                tally.errors.append(f"{self.game.id} {self.side}: no ack for {text}")
                return
            raw = await asyncio.wait_for(ws.recv(), remaining)
            message = json.loads(raw)
            if message["type"] == "state":
                if message["game"]["outcome"] is not None:
                    self.game.over.set()
            elif message["type"] == "ack" and message["ref"] == "m":
                tally.round_trips.append(time.perf_counter() - sent)
                tally.acked.setdefault(self.game.id, {})[message["version"]] = text
                return
            elif message["type"] == "error":
                tally.errors.append(f"{self.game.id} {self.side}: {message['message']}")
                return


@dataclass
class Game:
    id: str
    over: asyncio.Event = field(default_factory=asyncio.Event)
    moved_version: int = 0


async def new_game(client: httpx.AsyncClient) -> tuple[Game, str, str]:
    created = (
        await client.post("/api/games", json={"opponent": {"type": "friend"}, "color": "blue"})
    ).json()
    game_id = created["game"]["id"]
    joined = (
        await client.post(f"/api/games/{game_id}/join", json={"invite": created["invite"]["code"]})
    ).json()
    return Game(game_id), created["seat"]["token"], joined["seat"]["token"]


async def slot(
    base: str, client: httpx.AsyncClient, tally: Tally, stop: asyncio.Event, interval: float
) -> None:
    """One of the concurrent games: play it, and when it ends start another."""
    ws_base = base.replace("http://", "ws://")
    while not stop.is_set():
        try:
            game, blue, gray = await new_game(client)
        except (httpx.HTTPError, KeyError) as error:
            tally.errors.append(f"creating a game: {error!r}")
            await asyncio.sleep(1)
            continue
        tally.acked.setdefault(game.id, {})
        url = f"{ws_base}/ws/games/{game.id}"
        players = [Player(game, "blue", blue, interval), Player(game, "gray", gray, interval)]
        results = await asyncio.gather(
            *(player.play(url, tally, stop) for player in players), return_exceptions=True
        )
        for result in results:
            if isinstance(result, ConnectionClosed | OSError | TimeoutError):
                tally.errors.append(f"{game.id}: {result!r}")
            elif isinstance(result, BaseException):
                raise result
        if game.over.is_set():
            tally.finished += 1


async def ai_slot(
    base: str,
    client: httpx.AsyncClient,
    level: int,
    tally: Tally,
    stop: asyncio.Event,
    interval: float,
) -> None:
    """A game against the AI at ``level`` (the AI plays Blue and moves first), replaced when it
    ends: the human moves ``interval`` seconds after each reply."""
    ws_base = base.replace("http://", "ws://")
    while not stop.is_set():
        body = {"rules": "sackson", "opponent": {"type": "ai", "level": level}, "color": "gray"}
        try:
            created = (await client.post("/api/games", json=body)).json()
        except httpx.HTTPError as error:
            tally.errors.append(f"creating an AI game: {error!r}")
            await asyncio.sleep(1)
            continue
        game_id, token = created["game"]["id"], created["seat"]["token"]
        waiting_since = time.perf_counter()
        try:
            async with connect(f"{ws_base}/ws/games/{game_id}", open_timeout=30) as ws:
                await ws.send(json.dumps({"type": "hello", "token": token}))
                while not stop.is_set():
                    raw = await asyncio.wait_for(ws.recv(), AI_TIMEOUT)
                    message = json.loads(raw)
                    if message["type"] == "ai" and message["status"] == "busy":
                        tally.ai_busy += 1
                    if message["type"] != "state":
                        continue
                    state = message["game"]
                    if state["outcome"] is not None or state["status"] != "active":
                        tally.finished += 1
                        break
                    if state["turn"] != "gray" or state["ai_thinking"]:
                        continue
                    if state["ply"]:
                        replies = tally.ai_replies.setdefault(level, [])
                        replies.append(time.perf_counter() - waiting_since)
                    try:
                        await asyncio.wait_for(stop.wait(), interval)
                        return
                    except TimeoutError:
                        pass
                    move = random.choice(state["legal_moves"])
                    await ws.send(
                        json.dumps({"type": "move", "move": move, "version": state["version"]})
                    )
                    waiting_since = time.perf_counter()
        except (ConnectionClosed, OSError, TimeoutError) as error:
            tally.errors.append(f"AI game {game_id}: {error!r}")


def random_record(seed: int, plies: int = 60) -> str:
    """A finished game's record: random legal moves from the start, to its end or ``plies``."""
    chooser = random.Random(seed)
    game = Played("sackson")
    while game.ply < plies and game.outcome() is None:
        game.push(chooser.choice(game.legal_moves))
    return write_record(GameRecord.from_game(game))


async def ask_reviews(client: httpx.AsyncClient, count: int) -> list[str]:
    """The ids of ``count`` imported games whose reviews were asked for."""
    ids = []
    for seed in range(count):
        imported = await client.post("/api/records", json={"text": random_record(seed)})
        game_id = imported.json()["id"]
        asked = await client.post(f"/api/games/{game_id}/review")
        if asked.status_code != 202:
            raise SystemExit(f"the review was refused: {asked.status_code} {asked.text}")
        ids.append(game_id)
    return ids


async def reviews_analysed(client: httpx.AsyncClient, ids: list[str]) -> int:
    total = 0
    for game_id in ids:
        total += (await client.get(f"/api/games/{game_id}/review")).json()["analysed"]
    return total


async def drive(
    base: str, games: int, seconds: float, interval: float, ai_games: int, reviews: int = 0
) -> dict[str, Any]:
    tally = Tally()
    stop = asyncio.Event()
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as client:
        reviewed = await ask_reviews(client, reviews)
        started = time.perf_counter()
        tasks = [
            asyncio.create_task(slot(base, client, tally, stop, interval)) for _ in range(games)
        ]
        if ai_games:
            levels = [AI_LEVELS[i % len(AI_LEVELS)] for i in range(ai_games)] + [1]
            tasks += [
                asyncio.create_task(ai_slot(base, client, level, tally, stop, interval))
                for level in levels
            ]
        await asyncio.sleep(seconds)
        stop.set()
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - started
        analysed = await reviews_analysed(client, reviewed)
        lost = 0
        for game_id, by_version in tally.acked.items():
            stored = (await client.get(f"/api/games/{game_id}")).json()["moves"]
            moves = [by_version[version] for version in sorted(by_version)]
            if stored != moves:
                lost += 1
                tally.errors.append(f"{game_id}: stored {len(stored)} moves, acked {len(moves)}")
    trips = sorted(tally.round_trips)

    def percentile(share: float, values: list[float] = trips) -> float:
        return values[min(len(values) - 1, int(share * len(values)))] * 1000 if values else 0.0

    ai: dict[str, Any] = {}
    for level, replies in sorted(tally.ai_replies.items()):
        replies.sort()
        ai[f"ai_level_{level}_replies"] = len(replies)
        ai[f"ai_level_{level}_p50_ms"] = round(percentile(0.50, replies), 1)
        ai[f"ai_level_{level}_p99_ms"] = round(percentile(0.99, replies), 1)
    if ai_games:
        ai["ai_busy_answers"] = tally.ai_busy
    if reviews:
        ai["reviews_asked"] = reviews
        ai["review_positions_analysed"] = analysed
        ai["review_positions_per_second"] = round(analysed / elapsed, 2)
    return {
        "games": games,
        "seconds": round(elapsed, 1),
        "games_played": len(tally.acked),
        "games_finished": tally.finished,
        "moves": len(trips),
        "moves_per_second": round(len(trips) / elapsed, 1),
        "errors": len(tally.errors),
        "error_samples": tally.errors[:5],
        "p50_ms": round(percentile(0.50), 1),
        "p90_ms": round(percentile(0.90), 1),
        "p99_ms": round(percentile(0.99), 1),
        "max_ms": round(trips[-1] * 1000, 1) if trips else 0.0,
        "mean_ms": round(statistics.fmean(trips) * 1000, 1) if trips else 0.0,
        "lost_games": lost,
        "driver_cpu_seconds": round(_cpu_seconds(), 1),
    } | ai


def _cpu_seconds(pid: int | None = None) -> float:
    """CPU time (user + system) of this process, or of another one from /proc."""
    if pid is None:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime + usage.ru_stime
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(port: int, env: dict[str, str], name: str) -> subprocess.Popen[bytes]:
    # Every client here has the same address and browser: no per-client limit applies.
    environment = {
        **os.environ,
        **env,
        "BLUEGRAY_RATE_LIMITS": "off",
        "BLUEGRAY_AI_QUEUE_PER_CLIENT": "100000",
        "BLUEGRAY_PROCESS_NAME": name,
    }
    command = [sys.executable, "-m", "bluegray", "serve", "--port", str(port)]
    command += ["--no-access-log", "--log-level", "warning"]
    process = subprocess.Popen(command, env=environment, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                return process
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the server did not start")


def wait_ready(base: str) -> None:
    """Until the service says it is ready (its AI workers have loaded the engine)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{base}/api/ready", timeout=5).status_code == 200:
                return
        time.sleep(0.5)
    raise SystemExit("the service did not get ready (see /api/ready)")


def start_worker(env: dict[str, str], name: str, processes: int) -> subprocess.Popen[bytes]:
    environment = {**os.environ, **env, "BLUEGRAY_PROCESS_NAME": name}
    command = [sys.executable, "-m", "bluegray", "worker", "--processes", str(processes)]
    command += ["--log-level", "warning"]
    return subprocess.Popen(command, env=environment, start_new_session=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=200, help="concurrent games (default 200)")
    parser.add_argument("--seconds", type=float, default=60, help="how long to run (default 60)")
    parser.add_argument(
        "--interval", type=float, default=1.0, help="seconds between a client's moves (default 1)"
    )
    parser.add_argument(
        "--servers", type=int, default=1, help="web processes (2 or more: scaled, behind nginx)"
    )
    parser.add_argument(
        "--scaled", action="store_true", help="PostgreSQL and Redis even with one web process"
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="bluegray worker processes when scaled (default 1)"
    )
    parser.add_argument(
        "--worker-processes",
        type=int,
        default=2,
        help="engine processes per worker (default 2: one of them kept for quick jobs)",
    )
    parser.add_argument(
        "--ai-games", type=int, default=0, help="AI games at levels 6-8 at once (default 0)"
    )
    parser.add_argument(
        "--database-url", help="embedded: default a SQLite file in a temporary directory"
    )
    parser.add_argument(
        "--chaos",
        action="store_true",
        help="the scaled service behind the shipped Caddyfile, each of its parts failing in turn "
        "under --games games between people, two workers of --worker-processes engine "
        "processes (benchmarks/web_chaos.py)",
    )
    parser.add_argument(
        "--reviews",
        type=int,
        default=0,
        help="computer reviews asked for before the games start, all driven at once (default 0)",
    )
    parser.add_argument("--drive", metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.chaos:
        raise SystemExit(run_chaos(args.games, args.worker_processes))
    if args.drive:  # the client process: drive the games and print the figures as JSON
        result = asyncio.run(
            drive(args.drive, args.games, args.seconds, args.interval, args.ai_games, args.reviews)
        )
        print(json.dumps(result))
        return
    scaled = args.scaled or args.servers > 1
    with contextlib.ExitStack() as stack:
        directory = stack.enter_context(tempfile.TemporaryDirectory())
        env: dict[str, str] = {}
        if args.reviews:  # every review driven at once, all asked from this one address
            env["BLUEGRAY_REVIEW_RUNNERS"] = str(args.reviews)
            env["BLUEGRAY_REVIEWS_PER_DAY"] = str(max(10, args.reviews))
        if scaled:
            postgres = stack.enter_context(PostgresServer())
            redis_server = stack.enter_context(RedisServer())
            env["BLUEGRAY_DATABASE_URL"] = postgres.url(postgres.new_database())
            env["BLUEGRAY_REDIS_URL"] = redis_server.url
        else:
            env["BLUEGRAY_DATABASE_URL"] = (
                args.database_url or f"sqlite:///{Path(directory) / 'load.sqlite3'}"
            )
        processes: list[subprocess.Popen[bytes]] = []
        stack.callback(_stop, processes)
        ports = []
        for index in range(args.servers):
            ports.append(free_port())
            processes.append(start_server(ports[-1], env, f"web-{index + 1}"))
        if scaled:
            for index in range(args.workers):
                processes.append(start_worker(env, f"worker-{index + 1}", args.worker_processes))
        base = f"http://127.0.0.1:{ports[0]}"
        if args.servers > 1:
            base = stack.enter_context(ReverseProxy(ports)).url
        wait_ready(base)
        driver = subprocess.run(
            [
                sys.executable,
                __file__,
                "--drive",
                base,
                "--games",
                str(args.games),
                "--seconds",
                str(args.seconds),
                "--interval",
                str(args.interval),
                "--ai-games",
                str(args.ai_games),
                "--reviews",
                str(args.reviews),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        server_cpu = sum(_cpu_seconds(process.pid) for process in processes[: args.servers])
    if driver.returncode != 0:
        raise SystemExit(f"the driver failed:\n{driver.stderr}")
    result = json.loads(driver.stdout.strip().splitlines()[-1])
    setup = "embedded (SQLite)" if not scaled else "scaled (PostgreSQL, Redis)"
    result = {"setup": setup, "web_processes": args.servers} | result
    result["web_cpu_seconds"] = round(server_cpu, 1)
    if result["moves"]:
        result["web_cpu_ms_per_move"] = round(server_cpu * 1000 / result["moves"], 2)
    width = max(len(key) for key in result)
    for key, value in result.items():
        print(f"{key:<{width}}  {value}")
    ok = result["errors"] == 0 and result["lost_games"] == 0 and result["p99_ms"] < 100
    print("target (no errors, nothing lost, p99 < 100 ms):", "met" if ok else "NOT met")


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
