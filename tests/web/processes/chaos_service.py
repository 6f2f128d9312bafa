"""The chaos test's service and its faults, for the test (``tests/web/processes/test_chaos.py``) and
for the benchmark under load (``benchmarks/web_load.py --chaos``): PostgreSQL, Redis, two ``bluegray
serve`` behind the shipped ``deploy/Caddyfile`` in Caddy and two ``bluegray worker``
(``running_service``), games played through the proxy by real clients
(``tests/web/processes/chaos.py``), and the faults in turn (``play_through_faults``), each measured
from the part's return: how long until every socket had its game's version of that moment, and every
AI game its reply. What went wrong is noted as a finding; a process that was killed is started
again, as its supervisor would.

The faults, in order: Redis restarted empty (down 5 s); Redis paused with SIGSTOP for 5 s;
PostgreSQL restarted (fast shutdown); a worker killed with SIGKILL in the middle of a level-8
search; a web process killed with SIGKILL; both web processes restarted one after the other with
SIGTERM (a rolling deploy); the proxy restarted; and a clock run out while its owner is gone.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import redis

from bluegray.web.ai.jobs import Priority
from bluegray.web.ai.redis_queue import GROUP, STREAMS
from tests.servers import CaddyProxy, PostgresServer, RedisServer
from tests.web.cluster import Node, service_env
from tests.web.processes.chaos import Json, Ledger, Player, retrying

HUMAN_GAMES = 10
AI_LEVELS = (1, 2, 3, 8)
CONVERGE_SECONDS = 5.0
"""Every socket has every stored version this long after the part that failed is back."""
AI_REPLY_SECONDS = 15.0
OUTAGE_SECONDS = 5.0
ABANDON_SECONDS = 4.0


@dataclass(frozen=True)
class FaultCost:
    """What one fault cost: from when its part was back (monotonic seconds), how long until every
    socket had its game's version of that moment, and until every waiting AI game had its reply."""

    fault: str
    returned: float
    sockets_seconds: float
    ai_seconds: float


@dataclass
class Table:
    """A game and the players at it (an AI game has one)."""

    game_id: str
    players: list[Player]
    tokens: dict[str, str]
    ai_side: str | None = None


@dataclass
class Chaos:
    directory: Path
    env: dict[str, str]
    postgres: PostgresServer
    redis: RedisServer
    proxy: CaddyProxy
    web: dict[str, Node]
    workers: dict[str, Node]
    worker_processes: int = 1
    """Engine processes per worker."""
    ledger: Ledger = field(default_factory=Ledger)
    stop: threading.Event = field(default_factory=threading.Event)
    tables: list[Table] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)
    costs: list[FaultCost] = field(default_factory=list)
    """What each fault cost, in order."""
    http: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=10))

    # -- games ---------------------------------------------------------------------------------

    def post(self, path: str, body: Json, token: str | None = None) -> Json:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        answer = retrying(
            lambda: self.http.post(f"{self.proxy.url}{path}", json=body, headers=headers)
        )
        assert answer.status_code in (200, 201), answer.text
        result: Json = answer.json()
        return result

    def stored(self, game_id: str) -> Json:
        answer = retrying(lambda: self.http.get(f"{self.proxy.url}/api/games/{game_id}"))
        assert answer.status_code == 200, answer.text
        result: Json = answer.json()
        return result

    def seat_players(self, table: Table, seed: int, *, plays: set[str]) -> None:
        for side, token in table.tokens.items():
            player = Player(
                self.proxy.ws_url,
                table.game_id,
                token,
                side,
                self.ledger,
                self.stop,
                plays=side in plays,
                seed=seed,
            )
            table.players.append(player)
            player.start()

    def friend_game(self, seed: int, clock: Json | None = None) -> Table:
        body: Json = {"rules": "sackson", "opponent": {"type": "friend"}, "color": "blue"}
        if clock is not None:
            body["clock"] = clock
        created = self.post("/api/games", body)
        game_id = created["game"]["id"]
        joined = self.post(f"/api/games/{game_id}/join", {"invite": created["invite"]["code"]})
        tokens = {"blue": created["seat"]["token"], "gray": joined["seat"]["token"]}
        table = Table(game_id, [], tokens)
        self.seat_players(table, seed, plays={"blue", "gray"})
        self.tables.append(table)
        return table

    def ai_game(self, level: int, seed: int) -> Table:
        created = self.post(
            "/api/games",
            {"rules": "sackson", "opponent": {"type": "ai", "level": level}, "color": "blue"},
        )
        table = Table(created["game"]["id"], [], {"blue": created["seat"]["token"]}, "gray")
        self.seat_players(table, seed, plays={"blue"})
        self.tables.append(table)
        return table

    def replace_ended(self) -> None:
        """A game that ended is replaced by a new one of the same kind (the load stays)."""
        for index, table in enumerate(list(self.tables)):
            if table.players and all(player.over.is_set() for player in table.players):
                self.tables.remove(table)
                if table.ai_side is None:
                    self.friend_game(seed=1000 + index)
                else:
                    self.ai_game(level=1, seed=1000 + index)

    # -- what a fault cost ---------------------------------------------------------------------

    def note(self, finding: str) -> None:
        print("FINDING:", finding, flush=True)
        self.findings.append(finding)

    def snapshot(self) -> dict[str, int]:
        """Each game's stored version now (read when a part has just returned: every socket of
        the game must have it within 5 s)."""
        return {table.game_id: self.stored(table.game_id)["version"] for table in self.tables}

    def converged(self, fault: str, returned: float, versions: dict[str, int]) -> float:
        """Wait until every socket has the version its game had when the part returned
        (``versions``); how long after ``returned`` that took. A socket that took longer than
        allowed is a finding."""
        targets = [
            (table, player, versions[table.game_id])
            for table in list(self.tables)
            if table.game_id in versions
            for player in table.players
            if not player.over.is_set()
        ]
        deadline = returned + CONVERGE_SECONDS + 10
        while time.monotonic() < deadline and any(
            self.ledger.latest(table.game_id, player.seat) < version and not player.over.is_set()
            for table, player, version in targets
        ):
            time.sleep(0.05)  # polling the players' ledger
        longest = 0.0
        for table, player, version in targets:
            if player.over.is_set():
                continue
            with self.ledger.lock:
                seen = dict(self.ledger.seen.get((table.game_id, player.seat), {}))
            at = min((t for v, t in seen.items() if v >= version), default=None)
            lag = float("inf") if at is None else max(0.0, at - returned)
            longest = max(longest, lag)
            if lag > CONVERGE_SECONDS:
                self.note(
                    f"{fault}: the {player.seat} socket of {table.game_id} reached version "
                    f"{version} {lag:.1f} s after the part returned"
                )
        return longest

    def ai_answers(self, fault: str, returned: float) -> float:
        """Every AI game waiting for its move gets it within 15 s of the part's return."""
        humans = {
            table.game_id: table.players[0] for table in self.tables if table.ai_side is not None
        }
        answered: dict[str, float] = {}
        deadline = returned + AI_REPLY_SECONDS + 10
        while time.monotonic() < deadline and len(answered) < len(humans):
            for game_id, human in humans.items():
                state = human.state
                waiting = state and state["status"] == "active" and state["turn"] == "gray"
                if game_id not in answered and (human.over.is_set() or not waiting):
                    answered[game_id] = time.monotonic() - returned
            time.sleep(0.05)  # polling the players' states
        for game_id, human in humans.items():
            waited = answered.get(game_id, float("inf"))
            if waited > AI_REPLY_SECONDS:
                state = human.state
                seen = {key: state.get(key) for key in ("version", "turn", "status", "ai_status")}
                self.note(
                    f"{fault}: the AI of {game_id} answered {waited:.1f} s late (its player's "
                    f"socket on {human.process or 'no process'} has {seen}; stored: "
                    f"{ {k: self.stored(game_id).get(k) for k in seen} }; AI jobs pending: "
                    f"{self.pending_jobs()})"
                )
        return max((answered.get(game_id, float("inf")) for game_id in humans), default=0.0)

    def pending_jobs(self) -> str:
        """The AI's jobs given to engine slots and not yet finished, by slot and idle time (where
        a job a game waits for sits)."""
        client = self.redis.client()
        try:
            found = []
            for priority in Priority:
                stream = STREAMS[priority]
                with contextlib.suppress(redis.RedisError):  # no such stream yet
                    items: list[dict[str, Any]] = client.xpending_range(stream, GROUP, "-", "+", 20)
                    for item in items:
                        consumer = item["consumer"].decode()
                        idle = int(item["time_since_delivered"]) / 1000
                        found.append(f"{priority.name.lower()} {consumer} idle {idle:.1f} s")
            return ", ".join(found) or "none"
        except redis.RedisError as error:
            return f"unknown ({error!r})"
        finally:
            client.close()

    def ready(self, node: Node) -> bool:
        with contextlib.suppress(httpx.TransportError):
            return self.http.get(f"{node.url}/api/ready", timeout=5).status_code == 200
        return False

    def after(self, fault: str, returned: float, versions: dict[str, int] | None = None) -> None:
        """What the fault cost, from ``returned`` (when the part was back): every socket has
        its game's version of that moment (``versions``: read now if not given) within 5 s,
        every AI game its reply within 15 s. Ended games are then replaced."""
        lag = self.converged(fault, returned, self.snapshot() if versions is None else versions)
        ai = self.ai_answers(fault, returned)
        self.costs.append(FaultCost(fault, returned, lag, ai))
        self.replace_ended()
        print(f"{fault}: sockets converged {lag:.2f} s, AI answered {ai:.2f} s after", flush=True)

    def evidence(self) -> list[str]:
        """What the processes logged of the games the findings name (for a failure's report)."""
        named = {table.game_id for table in self.tables if table.game_id in str(self.findings)}
        named |= {game_id for game_id in self.ledger.finished if game_id in str(self.findings)}
        lines = []
        for node in [*self.web.values(), *self.workers.values()]:
            for line in node.output().splitlines():
                if any(game_id in line for game_id in named) or "Traceback" in line:
                    lines.append(f"{node.name}: {line}")
        return lines[-60:]

    # -- processes -----------------------------------------------------------------------------

    def restart_web(self, name: str, stop_signal: int) -> None:
        node = self.web[name]
        node.kill(stop_signal)
        node.stop()
        again = Node.serve(name, self.env, self.directory, port=node.port)
        self.web[name] = again
        again.wait_ready()

    def restart_worker(self, name: str) -> None:
        self.workers[name].stop()
        self.workers[name] = Node.worker(
            name, self.env, self.directory, processes=self.worker_processes
        )


@contextlib.contextmanager
def running_service(directory: Path, worker_processes: int = 1) -> Iterator[Chaos]:
    """The service started in ``directory`` (its processes' logs), stopped at the end; each
    worker with ``worker_processes`` engine processes."""
    with contextlib.ExitStack() as stack:
        postgres = stack.enter_context(PostgresServer())
        cache = stack.enter_context(RedisServer())
        database = postgres.url(postgres.new_database())
        env = service_env(
            database,
            cache.url,
            ai_unavailable_seconds=2,
            abandon_seconds=ABANDON_SECONDS,
        )
        web: dict[str, Node] = {}
        workers: dict[str, Node] = {}

        def stop_all() -> None:
            for node in [*web.values(), *workers.values()]:
                node.stop()

        stack.callback(stop_all)
        web["A"] = Node.serve("A", env, directory)
        web["A"].wait_ready()  # the first process brings the empty database's schema up
        web["B"] = Node.serve("B", env, directory)
        web["B"].wait_ready()
        for name in ("W1", "W2"):
            workers[name] = Node.worker(name, env, directory, processes=worker_processes)
        # The shipped deploy/Caddyfile, unchanged: its address and upstreams from the environment.
        proxy = stack.enter_context(CaddyProxy([web["A"].port, web["B"].port]))
        service = Chaos(directory, env, postgres, cache, proxy, web, workers, worker_processes)
        try:
            yield service
        finally:
            service.stop.set()
            for table in service.tables:
                for player in table.players:
                    player.join(timeout=5)
            service.http.close()


def taker_of_long_job(redis_url: str, seconds: float) -> str | None:
    """The worker that holds a level-8 job, once one does."""
    queue = redis.Redis.from_url(redis_url)
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with contextlib.suppress(redis.RedisError):
                for item in queue.xpending_range("bg:jobs:long", "engines", "-", "+", 10):
                    consumer = item["consumer"]
                    name = consumer.decode() if isinstance(consumer, bytes) else str(consumer)
                    return name.split("/")[0]
            time.sleep(0.05)  # polling the queue
        return None
    finally:
        queue.close()


def play_through_faults(
    chaos: Chaos,
    human_games: int = HUMAN_GAMES,
    ai_levels: tuple[int, ...] = AI_LEVELS,
    warm_up: float = 3.0,
) -> int:
    """Start the games, let them run ``warm_up`` seconds, then make each fault in turn and note
    what it cost; at the end check that every acknowledged move is stored and no game ended
    wrongly. How many acknowledged moves were checked."""
    began = time.monotonic()
    for seed in range(human_games):
        chaos.friend_game(seed)
    for index, level in enumerate(ai_levels):
        chaos.ai_game(level, seed=100 + index)
    time.sleep(warm_up)  # the games get going before the first fault
    chaos.after("start", time.monotonic())

    # Redis restarted empty, down 5 s; a player who never left stays connected.
    target = next(table for table in chaos.tables if table.ai_side is None)
    mover = next(p for p in target.players if p.state.get("turn") == p.seat)
    mover.paused.set()  # it keeps its socket open but stops moving: away, never
    chaos.redis.halt()
    outage = time.monotonic() + OUTAGE_SECONDS
    not_ready = False
    while time.monotonic() < outage:
        not_ready = not_ready or not chaos.ready(chaos.web["A"])
        time.sleep(0.25)  # the outage itself
    if not not_ready:
        chaos.note("redis restart: /api/ready said ready while Redis was down")
    chaos.redis.resume_serving()
    returned = time.monotonic()
    versions = chaos.snapshot()
    while not all(chaos.ready(node) for node in chaos.web.values()):
        if time.monotonic() > returned + CONVERGE_SECONDS:
            chaos.note("redis restart: /api/ready not ready 5 s after Redis returned")
            break
        time.sleep(0.1)  # polling readiness
    chaos.after("redis restart", returned, versions)
    # Long enough since the restart for a wrong abandonment claim to be granted.
    time.sleep(max(0.0, returned + ABANDON_SECONDS + 1 - time.monotonic()))
    other = "gray" if mover.seat == "blue" else "blue"
    claim = chaos.http.post(
        f"{chaos.proxy.url}/api/games/{target.game_id}/actions",
        json={"action": "claim_win"},
        headers={"Authorization": f"Bearer {target.tokens[other]}"},
    )
    if claim.status_code == 200 and claim.json()["status"] == "finished":
        chaos.note("redis restart: an abandonment claim against a connected player was granted")
    mover.paused.clear()

    # Redis paused with SIGSTOP for 5 s: nothing waits longer than the pause plus 2 s.
    chaos.redis.freeze()
    started = time.monotonic()
    slowest = 0.0
    try:
        while time.monotonic() - started < OUTAGE_SECONDS:
            asked = time.monotonic()
            with contextlib.suppress(httpx.TransportError):
                chaos.http.get(f"{chaos.proxy.url}/api/games/{target.game_id}", timeout=10)
            slowest = max(slowest, time.monotonic() - asked)
            time.sleep(0.25)  # the pause itself
    finally:
        chaos.redis.thaw()
    if slowest > OUTAGE_SECONDS + 2:
        chaos.note(f"redis pause: a game read waited {slowest:.1f} s")
    chaos.after("redis pause", time.monotonic())

    # PostgreSQL restarted with a fast shutdown.
    chaos.postgres.restart()
    chaos.after("postgresql restart", time.monotonic())

    # A worker killed in the middle of a level-8 search; its supervisor starts it again.
    taker = taker_of_long_job(chaos.redis.url, 60)
    if taker is None:
        chaos.note("worker kill: no worker took a level-8 job within 60 s")
    else:
        chaos.workers[taker].kill()
        killed = time.monotonic()
        chaos.restart_worker(taker)
        chaos.after("worker kill", killed)

    # A web process killed with SIGKILL; its supervisor starts it again on its port.
    chaos.restart_web("A", signal.SIGKILL)
    chaos.after("web process kill", time.monotonic())

    # A rolling deploy: each web process in turn stopped with SIGTERM and started again.
    for name in ("A", "B"):
        chaos.restart_web(name, signal.SIGTERM)
        chaos.after(f"rolling deploy of {name}", time.monotonic())

    # The proxy restarted: every client reconnects by itself within 5 s of its return.
    chaos.proxy.restart(down_seconds=1)
    returned = time.monotonic()
    chaos.after("proxy restart", returned)

    # A clock runs out while its owner is gone: the flag falls once.
    clocked = chaos.friend_game(seed=500, clock={"minutes": 0.25})
    gray = clocked.players[1]
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not (
        gray.state.get("turn") == "gray" and len(gray.state.get("moves", ())) >= 3
    ):
        time.sleep(0.05)  # until both have moved (no first-move abort) and gray's clock runs
    gray.paused.set()
    gray.over.set()  # gray's owner is gone: its socket closes and does not come back
    flag = time.monotonic() + 15 + 10  # the clock, and the time a flag may take to fall
    while "time" not in str(chaos.stored(clocked.game_id).get("outcome")):
        if time.monotonic() > flag:
            chaos.note("clock: the flag of a player who left did not fall")
            break
        time.sleep(0.2)  # polling the stored game
    else:
        fallen = chaos.stored(clocked.game_id)
        time.sleep(2)  # a second fall, if any, would come by now
        if chaos.stored(clocked.game_id)["version"] != fallen["version"]:
            chaos.note("clock: the game changed again after its flag fell")

    # Every acknowledged move is stored.
    chaos.stop.set()
    with chaos.ledger.lock:
        acknowledged = list(chaos.ledger.acknowledged)
    final: dict[str, list[str]] = {}
    for ack in acknowledged:
        if ack.game_id not in final:
            final[ack.game_id] = chaos.stored(ack.game_id)["moves"]
        stored = tuple(final[ack.game_id][: len(ack.moves)])
        if stored != ack.moves:
            chaos.note(f"lost: {ack.game_id} version {ack.version} acknowledged {ack.moves[-1]}")
    wrong = [
        state["id"]
        for state in chaos.ledger.finished.values()
        if (state.get("outcome") or {}).get("reason") in ("abandoned", "time")
        and state["id"] != clocked.game_id
    ]
    if wrong:
        chaos.note(f"games ended by abandonment or time that should not have: {wrong}")
    print(
        f"chaos: {len(acknowledged)} acknowledged moves checked, "
        f"{len(chaos.ledger.refusals)} refusals, {time.monotonic() - began:.0f} s",
        flush=True,
    )
    return len(acknowledged)
