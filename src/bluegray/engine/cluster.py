"""A match's games on a Ray cluster (the ``cluster`` extra: ``pip install "bluegray[cluster]"``).

Each game is a Ray task that needs one CPU, spread over the cluster's nodes, so a match uses every
CPU of every machine. A task carries specs and texts only (``games.GameTask``) and makes its
players where it runs, so the same seed and node limit give the same games as a local run. Every
node needs bluegray installed, with numba for the compiled kernel (each worker process gets it
ready before its first game).

Start a cluster with ``ray start --head`` on one machine and ``ray start --address HEAD:PORT`` on
the others, then give the head's address to ``bluegray match --cluster`` or to
``scripts/strength_report.py ... --cluster``.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Final, TypeVar

import ray

from bluegray.engine.games import GameTask, MatchGame, play_task, prepare_worker, searches_here
from bluegray.engine.player import PlayerKind, player_kinds
from bluegray.errors import BlueGrayError

CONNECT_SECONDS = 10.0
"""How long to try the cluster head's port before giving up."""
WAIT_SECONDS = 0.25
"""How often the driver wakes up while it waits for results (so that Ctrl-C is seen at once)."""

T = TypeVar("T")

_prepared = False
"""Whether this Ray worker process has been set up for a match's games (once per process)."""


class ClusterError(BlueGrayError):
    """A cluster that cannot be reached or used."""


def _play_on_node(task: GameTask, kinds: Sequence[PlayerKind]) -> MatchGame:
    """One game, in a Ray worker process: the first sets the process up."""
    global _prepared
    if not _prepared:
        prepare_worker(kinds, searching=searches_here([task]))
        _prepared = True
    game = play_task(task)
    return MatchGame(game.number, game.a_blue, game.result, ray.get_runtime_context().get_node_id())


def check_reachable(address: str) -> None:
    """Fail at once when nothing listens at a ``HOST:PORT`` address (Ray itself would retry for
    minutes); ``auto`` and other forms are left to Ray."""
    host, separator, port = address.rpartition(":")
    if not separator or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_SECONDS).close()
    except OSError as error:
        raise ClusterError(
            f"cannot reach the Ray cluster at {address!r}: {error.strerror or error}"
        ) from None


def connect(address: str) -> None:
    """Join the Ray cluster at ``address`` as its driver (``ClusterError`` when it cannot be
    reached); ``results_as_finished`` leaves it again."""
    check_reachable(address)
    try:
        ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
    except (ConnectionError, ValueError, RuntimeError) as error:
        raise ClusterError(f"cannot reach the Ray cluster at {address!r}: {error}") from None


def results_as_finished(pending: list[ray.ObjectRef[T]]) -> Iterator[T]:
    """The results of the tasks ``pending`` in the order they finish; when the caller stops
    early (or is interrupted), the tasks not yet finished are cancelled. Either way the driver
    leaves the cluster at the end."""
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1, timeout=WAIT_SECONDS)
            for reference in done:
                yield ray.get(reference)
    finally:
        for reference in pending:
            ray.cancel(reference, force=True)
        ray.shutdown()


def play_on_cluster(tasks: Sequence[GameTask], address: str) -> Iterator[MatchGame]:
    """Play ``tasks`` on the Ray cluster at ``address``: the games in the order they finish, each
    with the id of the node that played it; games not yet played are cancelled when the caller
    stops early."""
    connect(address)
    remote = ray.remote(num_cpus=1, scheduling_strategy="SPREAD", max_retries=0)(_play_on_node)
    kinds = player_kinds()
    return results_as_finished([remote.remote(task, kinds) for task in tasks])


STARTING_SECONDS = 180.0
"""How long a node of a ``LocalCluster`` may take to come up on a busy machine."""
LOCAL_NODE_ENVIRONMENT: Final = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_worker_niceness": "0"}
"""What a ``LocalCluster``'s nodes run with: no usage statistics sent, and Ray's workers (which
play the games) at the priority of the machine's other work. Ray starts them at niceness 15,
meant to leave a shared node's cores to its drivers; on a machine busy with anything else they
then get almost no CPU (the tests' two-node cluster took 180 s instead of 25 s beside two busy
cores), and a local cluster's games would not be the local pool's equals."""


class LocalCluster:
    """A Ray cluster of a head and ``workers`` more nodes on this machine (loopback), ``cpus``
    each, every node a ``ray start --block`` process of its own, stopped with ``close`` (or at
    the end of a ``with`` block): for trying the cluster path, tests and benchmarks. Its files
    (sockets, logs) live in ``folder``, which should have a short path."""

    def __init__(self, folder: Path, *, workers: int = 1, cpus: int = 1) -> None:
        self.folder = folder
        self._nodes: list[subprocess.Popen[bytes]] = []
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        self.address = f"127.0.0.1:{port}"
        try:
            head = ["--head", "--port", str(port), "--include-dashboard", "false"]
            self._start([*head, "--temp-dir", str(folder / "ray")], "head", cpus)
            for index in range(workers):
                self._start(["--address", self.address], f"worker{index + 1}", cpus)
        except BaseException:
            self.close()
            raise

    def _start(self, arguments: list[str], name: str, cpus: int) -> None:
        log = self.folder / f"{name}.log"
        with open(log, "wb") as output:
            node = subprocess.Popen(
                [str(Path(sys.executable).with_name("ray")), "start", "--block",
                 "--num-cpus", str(cpus), "--node-ip-address", "127.0.0.1",
                 "--object-store-memory", str(80 * 2**20), "--disable-usage-stats", *arguments],
                stdout=output,
                stderr=subprocess.STDOUT,
                env={**os.environ, **LOCAL_NODE_ENVIRONMENT},
            )  # fmt: skip
        self._nodes.append(node)
        deadline = time.monotonic() + STARTING_SECONDS
        while "block forever" not in log.read_text(errors="replace"):
            if node.poll() is not None or time.monotonic() > deadline:
                said = log.read_text(errors="replace").strip().splitlines()[-3:]
                raise ClusterError(f"the local cluster's {name} did not start: {' '.join(said)}")
            time.sleep(0.2)

    def close(self) -> None:
        """Stop every node (the worker nodes first), waiting for each to end."""
        for node in reversed(self._nodes):
            node.terminate()
            try:
                node.wait(60)
            except subprocess.TimeoutExpired:
                node.kill()
                node.wait()
        self._nodes.clear()

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _mine_on_node(job: object) -> object:
    """One puzzle job, in a Ray worker process (``puzzles.mine``)."""
    global _prepared
    from bluegray.engine.puzzles import Job, mine  # noqa: PLC0415 - only on a puzzle's node

    if not _prepared:
        prepare_worker([], searching=True)
        _prepared = True
    assert isinstance(job, Job)
    return mine(job)


def mine_on_cluster(jobs: Sequence[object], address: str) -> Iterator[object]:
    """The puzzle jobs ``jobs`` (``puzzles.Job``) mined on the Ray cluster at ``address``: their
    ``puzzles.Mined`` in the order they finish; jobs not yet done are cancelled when the caller
    stops early."""
    connect(address)
    remote = ray.remote(num_cpus=1, scheduling_strategy="SPREAD", max_retries=0)(_mine_on_node)
    return results_as_finished([remote.remote(job) for job in jobs])
