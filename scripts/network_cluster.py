"""Self-play shards on a Ray cluster (``train_network.py generate --cluster ADDRESS``; the
``cluster`` extra).

Each shard is a Ray task that needs one CPU, spread over the cluster's nodes, as the match
runner's games are (``bluegray.engine.cluster``). The task plays the shard where it runs and
sends its rows back; the machine that started the run writes the shard, so the run's folder
lives on one machine only. This module's and ``network_data``'s code travel with the task
(pickled by value): every node needs bluegray installed (with numba), not these scripts.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence

import ray

import network_data
from bluegray.engine.cluster import connect, results_as_finished
from bluegray.engine.search import warm_up
from bluegray.rules import RuleSet


def _play_shard(
    index: int, rules: str, positions: int, nodes: int, seed: int, kernel: str
) -> tuple[int, list[list[object]]]:
    """One shard, in a Ray worker process."""
    if kernel != "python":
        warm_up(wait=True)
    rows = network_data.shard_rows(index, RuleSet.parse(rules), positions, nodes, seed, kernel)
    return index, rows


def shards_on_cluster(
    indices: Sequence[int],
    rules: RuleSet,
    positions: int,
    nodes: int,
    seed: int,
    kernel: str,
    address: str,
) -> Iterator[tuple[int, list[list[object]]]]:
    """Play the shards ``indices`` on the cluster at ``address``: each shard's index and rows,
    in the order they finish; shards not yet played are cancelled when the caller stops."""
    connect(address)
    for module in (network_data, sys.modules[__name__]):
        ray.cloudpickle.register_pickle_by_value(module)  # type: ignore[no-untyped-call]
    remote = ray.remote(num_cpus=1, scheduling_strategy="SPREAD", max_retries=1)(_play_shard)
    text = str(rules)
    return results_as_finished(
        [remote.remote(i, text, positions, nodes, seed, kernel) for i in indices]
    )
