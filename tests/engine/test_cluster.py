"""Matches on a Ray cluster: a real local cluster of two nodes, a head and a worker node started as
separate processes (``ray start --block``) on loopback with one CPU each, and stopped for real at
the end. A match played there gives the same games as a local run of the same seed and node
limit, and its games ran on both nodes."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import ray

from bluegray.engine.cluster import LocalCluster, connect
from bluegray.engine.match import MatchSettings, MatchSummary, run_match
from bluegray.errors import BlueGrayError
from bluegray.rules import PRESETS
from tests.paths import run_script

# One Ray cluster at a time, started once for the module (its fixture), on one xdist worker.
pytestmark = pytest.mark.xdist_group("ray")


def processes_in(folder: Path) -> list[int]:
    """The processes whose command line names ``folder`` (the nodes' own, and what they run)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if str(folder).encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """The address of a running two-node cluster (its processes ended afterwards)."""
    folder = Path(tempfile.mkdtemp(prefix="bgray-", dir="/tmp"))  # short: Ray keeps sockets here
    try:
        with LocalCluster(folder, workers=1, cpus=1) as local:
            yield local.address
        deadline = time.monotonic() + 30
        while processes_in(folder) and time.monotonic() < deadline:
            time.sleep(0.5)  # poll interval: until the cluster's processes are gone, up to 30 s
        assert processes_in(folder) == [], "the cluster's processes outlived it"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def games_of(summary: MatchSummary) -> list[tuple[object, ...]]:
    """What a match played, game by game (not how long it took, nor where)."""
    return [
        (game.number, game.a_blue, game.result.moves, game.result.winner, game.result.reason)
        for game in summary.games
    ]


@pytest.mark.slow
def test_a_match_on_a_two_node_cluster_plays_the_local_games_on_both_nodes(cluster: str) -> None:
    settings = MatchSettings(
        "level:8,nodes=300", "greedy", PRESETS["cooper"], games=6, seed=3, max_plies=40
    )
    local = run_match(settings)
    remote = run_match(replace(settings, cluster=cluster))
    assert games_of(remote) == games_of(local)
    assert len(remote.games) == 6
    assert {game.node for game in local.games} == {""}
    assert len({game.node for game in remote.games}) == 2  # both nodes played


def test_the_local_clusters_games_play_at_the_priority_of_local_ones(cluster: str) -> None:
    # Ray starts its workers at niceness 15: beside busy cores they got almost no CPU.
    connect(cluster)

    def niceness() -> int:
        return os.nice(0)

    try:
        remote = ray.remote(num_cpus=1)(niceness)
        assert ray.get(remote.remote(), timeout=120) == os.nice(0)
    finally:
        ray.shutdown()


@pytest.mark.slow
def test_bluegray_match_and_the_strength_report_play_on_the_cluster(cluster: str) -> None:
    command = [sys.executable, "-m", "bluegray", "match", "level:2", "random", "--rules",
               "sackson", "--games", "4", "--seed", "5", "--max-plies", "30", "--json"]  # fmt: skip
    local = json.loads(subprocess.run(command, capture_output=True, check=True).stdout)
    remote = json.loads(
        subprocess.run([*command, "--cluster", cluster], capture_output=True, check=True).stdout
    )
    assert remote["settings"]["cluster"] == cluster
    for key in ("games", "a", "b", "reasons", "average_plies"):
        assert remote[key] == local[key], key
    script = run_script("strength_report.py")
    here = script["play"]("ladder", "level:1", "random", "cooper", 2, None, 1)
    there = script["play"]("ladder", "level:1", "random", "cooper", 2, None, 1, cluster=cluster)
    for key in ("games", "wins", "draws", "losses", "reasons", "average_plies", "search"):
        assert there[key] == here[key], key


@pytest.mark.slow
def test_an_unreachable_cluster_is_a_clear_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    address = f"127.0.0.1:{port}"
    settings = MatchSettings("random", "random", PRESETS["cooper"], games=2, cluster=address)
    with pytest.raises(BlueGrayError, match="cannot reach the Ray cluster"):
        run_match(settings)


@pytest.mark.slow
def test_training_shards_played_on_the_cluster_are_the_local_ones(
    cluster: str, tmp_path: Path
) -> None:
    script = run_script("train_network.py")
    settings = ["--rules", "cooper", "--positions", "30", "--nodes", "40", "--kernel", "python"]
    run = tmp_path / "run"
    script["main"](
        ["generate", "--run", str(run), "--shards", "2", "--cluster", cluster, *settings]
    )
    import network_data  # on the path since run_script

    assert network_data.finished_shards(run) == [0, 1]
    for index in (0, 1):
        played = [
            sample.row() for sample in network_data.read_shard(network_data.shard_path(run, index))
        ]
        assert played == network_data.shard_rows(index, PRESETS["cooper"], 30, 40, 1, "python")


@pytest.mark.slow
def test_bluegray_puzzles_generate_mines_the_local_puzzles_on_the_cluster(cluster: str) -> None:
    command = [sys.executable, "-m", "bluegray", "puzzles", "generate", "--rules", "super",
               "--count", "1000", "--nodes", "100", "--games", "3", "--seed", "2"]  # fmt: skip
    local = subprocess.run(command, capture_output=True, check=True, text=True)
    remote = subprocess.run(
        [*command, "--cluster", cluster], capture_output=True, check=True, text=True
    )
    found = sorted(local.stdout.splitlines())
    assert found, local.stderr
    assert sorted(remote.stdout.splitlines()) == found
    assert "games 3," in remote.stderr
