"""Nodes per second of the top level's search in middlegame positions with either kernel, beside
the rules core's perft speed, measured in the same run; and how soon ``bluegray engine`` answers
its first moves on a fresh install.

    python benchmarks/search_speed.py [--seconds 2] [--skip-first-answers] [--match-games 12]
        [--network random|FILE]

Each position is searched by both kernels: the numba-compiled one (the default when numba is
installed, ``pip install ".[fast]"``) and the plain Python one. With ``--network``, each is
searched again by both kernels evaluating with engine 4's network instead of the linear
evaluation: a network file (``network_file.write_network``), or ``random`` for random
parameters of the shipped widths (the cost of a network does not depend on its values, but the
tree it searches does). Nodes per CPU second (the
process's own CPU time) is the figure to compare on a shared machine: wall-clock nodes per second
drops when other jobs take the core.

The first answers: ``bluegray engine`` started with empty numba and cache folders (a fresh
install: the compiled kernel compiles in the background, the plain one answers), then with this
machine's cache (warm: the compiled kernel loads in the background), then once more after
waiting for the compiled kernel (ready), asked for a move at levels 3, 5 and 7 in turn: the
seconds each move took, the seconds from the engine's start, and which kernel answered.

The match runner's games per hour: the same match (``level:8,nodes=2000`` against ``level:5`` in
``cooper``, ``--match-games`` games, seed 1) played by the local process pool (one worker a CPU)
and on a local Ray cluster of two nodes of one CPU each (``cluster.LocalCluster``), checking that
both played the same games.

The positions are written out below, one per main rule set, so every run searches the same
positions whatever the engine's weights: each was reached by two seeded level-3 players (18 to 20
plies) and has over twenty legal moves, so the search runs its whole time rather than stopping
on a forced reply.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from bluegray import Position
from bluegray.engine.cluster import LocalCluster
from bluegray.engine.evaluation import Evaluator
from bluegray.engine.limits import Limits
from bluegray.engine.match import MatchSettings, default_concurrency, run_match
from bluegray.engine.network import Network, random_network
from bluegray.engine.network_file import DEFAULT_WIDTHS, read_network
from bluegray.engine.search import Searcher
from bluegray.perft import perft
from bluegray.rules import PRESETS

MIDDLEGAMES = {
    "sackson": "gggg1gggg/1gggg1ggg/6g2/5c3/2g6/3C3G1/4G4/GGG2GGG1/GGGG1GGGG b 2 11",
    "cooper": "gggg1gggg/1gggg1ggg/6g2/9/g5cG1/3C5/2G6/GGG1GGGG1/GGGG1GGGG b 0 10",
    "super": "pppp1pppp/1p1pp1ppp/p1p6/6pc1/9/3C5/P3P1P1P/PPP1PPPP1/1PPP1P1PP b 0 11",
    "classic-turbo": "gggg1gggg/1g1g2ggg/1Cg1g4/9/6g2/1g7/2G1GGGc1/G1G4GG/GGGG1GGGG b 3 11",
    "pow-classic": "ggggCgggg/g1g1gg2g/3g1g3/1g5g1/G8/1G3G3/3G5/3GG1GGG/GGGGcGGGG b 18 10",
}


FIRST_LEVELS = (3, 5, 7)
READY_WAIT = 120.0
"""How long the warm round waits for the compiled kernel to be loaded (or compiled)."""


def search_speeds(seconds: float, network: Network | None) -> None:
    """Each middlegame searched by both kernels for ``seconds``, with the linear evaluation and
    (when given) with ``network``; the medians of nodes per CPU second."""
    cores = {"compiled": True, "python": False}  # the two kernels
    evaluations: dict[str, Network | None] = {"linear": None}
    if network is not None:
        evaluations["network"] = network
    cpu_rates: dict[tuple[str, str], list[float]] = {}
    for rules, text in MIDDLEGAMES.items():
        position = Position.parse(text, rules)
        for evaluation, chosen in evaluations.items():
            evaluator = Evaluator(position.rules, network=chosen)
            for core, compiled in cores.items():
                searcher = Searcher(position.rules, evaluator=evaluator, compiled=compiled)
                cpu_started = time.process_time()
                result = searcher.search(position.board(), Limits(time=seconds))
                cpu_rate = result.nodes / max(time.process_time() - cpu_started, 1e-9)
                cpu_rates.setdefault((core, evaluation), []).append(cpu_rate)
                print(
                    f"search: {rules:<14} {core:<8} {evaluation:<7} depth {result.depth:>2}  "
                    f"{result.nodes:>9,} nodes  {result.nps:>9,} nodes/s  "
                    f"{cpu_rate:>9,.0f} per CPU second"
                )
    for evaluation in evaluations:
        compiled_rates = cpu_rates["compiled", evaluation]
        python_rates = cpu_rates["python", evaluation]
        ratios = [fast / slow for fast, slow in zip(compiled_rates, python_rates, strict=True)]
        print(
            f"search ({evaluation}): median {statistics.median(compiled_rates):,.0f} nodes per "
            f"CPU second compiled, {statistics.median(python_rates):,.0f} in Python; "
            f"compiled/Python median ratio {statistics.median(ratios):.1f} over "
            f"{len(ratios)} positions"
        )


def first_answers(
    environment: dict[str, str], *, once_ready: bool
) -> list[tuple[int, float, float, str]]:
    """Start ``bluegray engine`` in ``environment`` and ask it for a move at each of
    ``FIRST_LEVELS`` in turn (``once_ready``: after waiting for the compiled kernel): each level,
    the seconds from the engine's start to its ``bestmove``, the seconds from the ``go``, and
    the ``info string kernel`` message."""
    started = time.perf_counter()
    engine = subprocess.Popen(
        [sys.executable, "-m", "bluegray", "engine"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
        env=environment,
    )
    assert engine.stdin is not None and engine.stdout is not None
    stdin, stdout = engine.stdin, engine.stdout

    def move(level: int) -> tuple[float, str]:
        stdin.write(f"setoption name Level value {level}\n")
        stdin.write("position rules cooper startpos moves d2-d3 f8-f7\ngo\n")
        stdin.flush()
        asked = time.perf_counter()
        kernel = ""
        for line in stdout:
            if line.startswith("info string kernel"):
                kernel = line.split(None, 3)[3].strip()
            if line.startswith("bestmove"):
                break
        return time.perf_counter() - asked, kernel

    answers = []
    try:
        stdin.write("bgi\n")
        if once_ready:
            deadline = time.perf_counter() + READY_WAIT
            while move(1)[1] != "compiled" and time.perf_counter() < deadline:
                time.sleep(0.2)
        for level in FIRST_LEVELS:
            seconds, kernel = move(level)
            answers.append((level, time.perf_counter() - started, seconds, kernel))
        stdin.write("quit\n")
        stdin.flush()
        engine.wait(30)
    finally:
        if engine.poll() is None:
            engine.kill()
    return answers


def print_first_answers() -> None:
    with tempfile.TemporaryDirectory() as empty:
        cold = {
            **os.environ,
            "NUMBA_CACHE_DIR": os.path.join(empty, "numba"),
            "HOME": os.path.join(empty, "home"),
            "XDG_CACHE_HOME": os.path.join(empty, "cache"),
        }
        cold.pop("BLUEGRAY_SEARCH", None)
        rounds = (
            ("fresh install", cold, False),
            ("warm cache", dict(os.environ), False),
            ("warm, ready", dict(os.environ), True),
        )
        for name, environment, once_ready in rounds:
            for level, since_start, seconds, kernel in first_answers(
                environment, once_ready=once_ready
            ):
                print(
                    f"first answers: {name:<13} level {level}  {seconds:5.2f} s for the move, "
                    f"{since_start:5.2f} s after the engine started  ({kernel})"
                )


def games_per_hour(games: int) -> None:
    settings = MatchSettings(
        "level:8,nodes=2000",
        "level:5",
        PRESETS["cooper"],
        games=games,
        concurrency=default_concurrency(games),
        seed=1,
    )
    started = time.perf_counter()
    local = run_match(settings)
    local_seconds = time.perf_counter() - started
    with (
        tempfile.TemporaryDirectory(prefix="bgray-", dir="/tmp") as folder,
        LocalCluster(Path(folder), workers=1, cpus=1) as cluster,
    ):
        started = time.perf_counter()
        remote = run_match(replace(settings, cluster=cluster.address))
        remote_seconds = time.perf_counter() - started
    same = [game.result.moves for game in local.games] == [
        game.result.moves for game in remote.games
    ]
    nodes = len({game.node for game in remote.games})
    print(
        f"match: {games} games locally ({settings.concurrency} worker processes) in "
        f"{local_seconds:.1f} s, {3600 * games / local_seconds:,.0f} games an hour"
    )
    print(
        f"match: the same {games} games on a local two-node Ray cluster (1 CPU a node, "
        f"{nodes} nodes played) in {remote_seconds:.1f} s, "
        f"{3600 * games / remote_seconds:,.0f} games an hour; same games: {same}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="search time per position")
    parser.add_argument(
        "--match-games",
        type=int,
        default=12,
        metavar="N",
        help="games of the match timed locally and on a local cluster (0: skip it)",
    )
    parser.add_argument(
        "--skip-first-answers",
        action="store_true",
        help="do not time the engine's first answers on a fresh install",
    )
    parser.add_argument(
        "--network",
        metavar="random|FILE",
        help="also search with engine 4's network: random parameters, or a network file",
    )
    args = parser.parse_args()

    started = time.perf_counter()
    nodes = perft(Position.start("sackson"), 5)
    perft_rate = nodes / (time.perf_counter() - started)
    print(f"rules core: perft 5 (sackson start) {perft_rate:,.0f} nodes/s")

    network = None
    if args.network == "random":
        network = random_network(random.Random(1), DEFAULT_WIDTHS)
    elif args.network:
        network = read_network(Path(args.network))[0]
    search_speeds(args.seconds, network)
    if not args.skip_first_answers:
        print_first_answers()
    if args.match_games:
        games_per_hour(args.match_games)


if __name__ == "__main__":
    main()
