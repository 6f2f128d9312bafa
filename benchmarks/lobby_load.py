"""Load test of the lobby: many people on the lobby page and a steady stream of seeks, on the
scaled setup (PostgreSQL, Redis and two ``bluegray serve`` processes, started here).

``--clients`` lobby sockets (half on each process, as visitors without accounts) watch the
seeks; ``--seekers`` accounts post ``--seeks-per-minute`` seeks between them, each on a random
process, and as many taker accounts, each listening on a lobby socket of the *other* process,
accept every seek the moment they see it. It measures, per seek:

- seek to game: from posting the seek to both players having heard ``game_started`` on their
  account sockets (the fan-out to the taker, its accept, the game stored, both told);
- fan-out: from posting it to its arrival at the slowest of the watching lobby sockets.

The watching sockets are driven by a process of their own, so that their load does not delay
the players' (the seekers, the takers and their account sockets).

    python benchmarks/lobby_load.py                           # 1,000 clients, 200 seeks a minute
    python benchmarks/lobby_load.py --clients 200 --seeks-per-minute 60 --seconds 30

The per-client rate limits are off (every client here has the same address). docs/benchmarks.md
has the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from tests.servers import PostgresServer, RedisServer, free_port
from web_load import _cpu_seconds, _stop, start_server

PASSWORD = "correct horse battery"


@dataclass
class Tally:
    posted: dict[str, float] = field(default_factory=dict)
    """Each seek's id and when its POST was sent (the wall clock)."""
    told: dict[str, list[float]] = field(default_factory=dict)
    """Each game's ``game_started`` arrivals (both players')."""
    game_of_seek: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


async def account(client: httpx.AsyncClient, name: str) -> str:
    """Sign up ``name``; its API token."""
    csrf = (await client.get("/api/account")).json()["csrf_token"]
    answer = await client.post(
        "/api/account/signup",
        json={"name": name, "password": PASSWORD},
        headers={"X-CSRF-Token": csrf},
    )
    answer.raise_for_status()
    csrf = (await client.get("/api/account")).json()["csrf_token"]
    made = await client.post(
        "/api/account/tokens", json={"description": "load"}, headers={"X-CSRF-Token": csrf}
    )
    made.raise_for_status()
    token: str = made.json()["token"]
    return token


def ws(base: str, path: str) -> str:
    return base.replace("http", "ws", 1) + path


async def watcher(url: str, seen: dict[str, list[float]], stop: asyncio.Event) -> int:
    """A visitor on the lobby page: notes when each seek reaches it (the wall clock, which the
    driver's process shares). Whether it connected."""
    try:
        async with connect(url, open_timeout=120, max_queue=None) as socket:
            ready = asyncio.ensure_future(stop.wait())
            try:
                while not stop.is_set():
                    receiving = asyncio.ensure_future(socket.recv())
                    done, _ = await asyncio.wait({receiving, ready}, return_when="FIRST_COMPLETED")
                    if receiving not in done:
                        receiving.cancel()
                        break
                    text = receiving.result()
                    if isinstance(text, str) and text.startswith('{"type":"seek","seek":{"id":"'):
                        seek_id = text[29 : text.index('"', 29)]
                        seen.setdefault(seek_id, []).append(time.time())
            finally:
                ready.cancel()
            return 1
    except (ConnectionClosed, OSError):
        return 0


async def watch(bases: list[str], clients: int, seconds: float) -> dict[str, Any]:
    """The watching process: ``clients`` lobby sockets, half on each process; says ``ready``
    on a line of its own once they are open, then watches for ``seconds``."""
    seen: dict[str, list[float]] = {}
    stop = asyncio.Event()
    tasks = []
    for index in range(clients):
        tasks.append(asyncio.create_task(watcher(ws(bases[index % 2], "/ws/lobby"), seen, stop)))
        if index % 50 == 49:
            await asyncio.sleep(0.05)  # do not open them all in the same instant
    await asyncio.sleep(2.0)
    print("ready", flush=True)
    await asyncio.sleep(seconds)
    stop.set()
    connected = sum(await asyncio.gather(*tasks))
    return {
        "connected": connected,
        "last_seen": {seek_id: max(times) for seek_id, times in seen.items()},
        "count": {seek_id: len(times) for seek_id, times in seen.items()},
        "cpu_seconds": _cpu_seconds(),
    }


async def account_socket(url: str, token: str, tally: Tally, stop: asyncio.Event) -> None:
    """An account's socket: notes when each game it is told of started."""
    headers = {"Authorization": f"Bearer {token}"}
    async with connect(url, open_timeout=60, additional_headers=headers) as socket:
        while not stop.is_set():
            try:
                text = await asyncio.wait_for(socket.recv(), 0.5)
            except TimeoutError:
                continue
            message = json.loads(text)
            if message["type"] == "game_started":
                game_id = message["game"]["game_id"]
                tally.told.setdefault(game_id, []).append(time.time())


async def taker(
    lobby_url: str, base: str, token: str, tally: Tally, stop: asyncio.Event, turn: list[int]
) -> None:
    """A player on the lobby page who accepts seeks the moment they appear (the takers share
    them out in turn: ``turn`` says whose the next one is)."""
    index = turn[0]
    turn[0] += 1
    count = turn[1]
    headers = {"Authorization": f"Bearer {token}"}
    async with (
        connect(lobby_url, open_timeout=60) as socket,
        httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as client,
    ):
        while not stop.is_set():
            try:
                text = await asyncio.wait_for(socket.recv(), 0.5)
            except TimeoutError:
                continue
            message = json.loads(text)
            if message["type"] != "seek" or hash(message["seek"]["id"]) % count != index:
                continue
            answer = await client.post(f"/api/seeks/{message['seek']['id']}/accept")
            if answer.status_code != 200:
                tally.errors.append(f"accept: {answer.status_code} {answer.text[:200]}")
                continue
            tally.game_of_seek[message["seek"]["id"]] = answer.json()["game_id"]


async def drive(args: argparse.Namespace, bases: list[str]) -> dict[str, Any]:
    tally = Tally()
    stop = asyncio.Event()
    clients = [httpx.AsyncClient(base_url=base, timeout=60) for base in bases]
    seekers = [await account(clients[0], f"seeker{i}") for i in range(args.seekers)]
    takers = [await account(clients[1], f"taker{i}") for i in range(args.seekers)]
    for client in clients:
        await client.aclose()
    watching = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--watch",
        *bases,
        "--clients",
        str(args.clients),
        "--seconds",
        str(args.seconds + 15),
        stdout=asyncio.subprocess.PIPE,
    )
    assert watching.stdout is not None
    line = await asyncio.wait_for(watching.stdout.readline(), 300)
    if line.strip() != b"ready":
        raise SystemExit(f"the watchers did not start: {line!r}")
    tasks = []
    for index, token in enumerate(seekers + takers):
        url = ws(bases[index % 2], "/ws/account")
        tasks.append(asyncio.create_task(account_socket(url, token, tally, stop)))
    turn = [0, len(takers)]
    for index, token in enumerate(takers):
        base = bases[index % 2]
        tasks.append(
            asyncio.create_task(taker(ws(base, "/ws/lobby"), base, token, tally, stop, turn))
        )
    await asyncio.sleep(1.0)
    posters = [
        httpx.AsyncClient(
            base_url=random.choice(bases), headers={"Authorization": f"Bearer {t}"}, timeout=30
        )
        for t in seekers
    ]
    interval = 60.0 / args.seeks_per_minute
    started = time.monotonic()
    count = 0

    async def post(client: httpx.AsyncClient) -> None:
        sent = time.time()
        answer = await client.post("/api/seeks", json={"rules": "sackson", "rated": True})
        if answer.status_code != 201:
            tally.errors.append(f"seek: {answer.status_code} {answer.text[:200]}")
            return
        tally.posted[answer.json()["id"]] = sent

    posting = []
    while time.monotonic() - started < args.seconds:
        posting.append(asyncio.create_task(post(posters[count % len(posters)])))
        count += 1
        await asyncio.sleep(max(0.0, started + count * interval - time.monotonic()))
    await asyncio.gather(*posting)
    await asyncio.sleep(5.0)  # let the last games start
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    for client in posters:
        await client.aclose()
    to_game = []
    for seek_id, sent in tally.posted.items():
        game_id = tally.game_of_seek.get(seek_id)
        told = tally.told.get(game_id or "", [])
        if len(told) >= 2:
            to_game.append(max(told) - sent)
    output, _ = await watching.communicate()
    watched = json.loads(output.decode().strip().splitlines()[-1])
    last_seen, count = watched["last_seen"], watched["count"]
    fan_out = [last_seen[s] - sent for s, sent in tally.posted.items() if s in last_seen]
    complete = sum(1 for s in tally.posted if count.get(s, 0) >= watched["connected"])

    def percentile(values: list[float], share: float) -> float:
        if not values:
            return 0.0
        ordered = sorted(values)
        return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000, 1)

    return {
        "lobby_clients": watched["connected"],
        "seeks_posted": len(tally.posted),
        "games_started": len(to_game),
        "seeks_seen_by_every_client": complete,
        "seek_to_game_p50_ms": percentile(to_game, 0.5),
        "seek_to_game_p99_ms": percentile(to_game, 0.99),
        "seek_to_game_mean_ms": round(statistics.fmean(to_game) * 1000, 1) if to_game else 0,
        "fan_out_p50_ms": percentile(fan_out, 0.5),
        "fan_out_p99_ms": percentile(fan_out, 0.99),
        "errors": len(tally.errors),
        "first_errors": tally.errors[:3],
        "driver_cpu_seconds": round(_cpu_seconds(), 1),
        "watchers_cpu_seconds": round(watched["cpu_seconds"], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=1000, help="lobby sockets (default 1000)")
    parser.add_argument(
        "--seeks-per-minute", type=float, default=200, help="seeks posted a minute (default 200)"
    )
    parser.add_argument("--seekers", type=int, default=10, help="seeking accounts (default 10)")
    parser.add_argument("--seconds", type=float, default=60, help="how long to post (default 60)")
    parser.add_argument("--drive", nargs=2, metavar="URL", help=argparse.SUPPRESS)
    parser.add_argument("--watch", nargs=2, metavar="URL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.watch:  # the watching process: the lobby sockets of people who only look
        print(json.dumps(asyncio.run(watch(list(args.watch), args.clients, args.seconds))))
        return
    if args.drive:  # the client process: drive the lobby and print the figures as JSON
        print(json.dumps(asyncio.run(drive(args, list(args.drive)))))
        return
    with contextlib.ExitStack() as stack:
        postgres = stack.enter_context(PostgresServer())
        redis_server = stack.enter_context(RedisServer())
        env = {
            "BLUEGRAY_DATABASE_URL": postgres.url(postgres.new_database()),
            "BLUEGRAY_REDIS_URL": redis_server.url,
            "BLUEGRAY_WS_CONNECTIONS_PER_CLIENT": "100000",
        }
        processes: list[subprocess.Popen[bytes]] = []
        stack.callback(_stop, processes)
        ports = [free_port(), free_port()]
        for index, port in enumerate(ports):
            processes.append(start_server(port, env, f"web-{index + 1}"))
        bases = [f"http://127.0.0.1:{port}" for port in ports]
        command = [sys.executable, __file__, "--drive", *bases]
        command += ["--clients", str(args.clients), "--seconds", str(args.seconds)]
        command += ["--seeks-per-minute", str(args.seeks_per_minute)]
        command += ["--seekers", str(args.seekers)]
        driver = subprocess.run(command, capture_output=True, text=True, check=False)
        server_cpu = sum(_cpu_seconds(process.pid) for process in processes)
    if driver.returncode != 0:
        raise SystemExit(f"the driver failed:\n{driver.stderr[-3000:]}")
    result = json.loads(driver.stdout.strip().splitlines()[-1])
    result = {"setup": "scaled (PostgreSQL, Redis), 2 web processes"} | result
    result["web_cpu_seconds"] = round(server_cpu, 1)
    width = max(len(key) for key in result)
    for key, value in result.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
