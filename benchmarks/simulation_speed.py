"""Simulation speed: random playouts and environment steps per second, beside OpenSpiel's C++
checkers as the yardstick, measured in one run on one core.

    taskset -c 1 python benchmarks/simulation_speed.py

Prints, as the median of ``--runs`` runs of about ``--seconds`` each:

- uniformly random complete ``sackson`` games from the start (playouts and plies a second)
  through ``bluegray.engine.simulation`` in batches of 1, 64 and 1,024 games, through the
  public ``Game`` (``legal_moves``, ``push``), and OpenSpiel's C++ ``checkers`` driven from
  Python through ``pyspiel`` (``legal_actions``, ``apply_action``);
- environment steps a second, masks and observations included: the vector environment
  (64, 1,024 and 4,096 games; self-play and against ``random``, with the point codes or the
  planes as the observation) and the single-game Gymnasium, PettingZoo and OpenSpiel
  environments.

OpenSpiel (``pip install open_spiel``, in the ``rl`` extra) is optional: without it the rows
that need it are left out.

Only the environments' own calls are timed (``reset`` and ``step``), not the choice of the
actions (a random legal action, chosen outside the clock). The clock is the thread's CPU time
(``--clock cpu``, the default): on a shared machine the wall-clock rate (``--clock wall``) drops
whenever another process takes the core.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from bluegray import Game
from bluegray.engine.simulation import Simulation
from bluegray.rl import BlueGrayAECEnv, BlueGrayEnv, BlueGrayVectorEnv

try:
    import pyspiel

    from bluegray.rl.openspiel_game import load_game
except ImportError:  # OpenSpiel is optional: its rows are left out
    pyspiel = None

RULES = "sackson"
BATCHES = (1, 64, 1024)
VECTOR_BATCHES = (64, 1024, 4096)

clock: Callable[[], float] = time.thread_time
"""What the measurements are timed by (``--clock``)."""


def median_rates(
    measure: Callable[[float], tuple[float, ...]], runs: int, seconds: float
) -> list[float]:
    """The medians over ``runs`` runs of each rate ``measure(seconds)`` returns."""
    results = [measure(seconds) for _ in range(runs)]
    return [statistics.median(column) for column in zip(*results, strict=True)]


def simulation_playouts(batch: int) -> Callable[[float], tuple[float, float]]:
    simulation = Simulation(RULES, batch, seed=1)
    simulation.play_random()  # compiles (or loads) the kernels

    def measure(seconds: float) -> tuple[float, float]:
        games = plies = 0
        elapsed = 0.0
        while elapsed < seconds:
            simulation.reset()
            started = clock()
            result = simulation.play_random()
            elapsed += clock() - started
            games += batch
            plies += int(result.plies.sum())
        return games / elapsed, plies / elapsed

    return measure


def game_playouts(seconds: float) -> tuple[float, float]:
    rng = random.Random(1)
    games = plies = 0
    started = clock()
    while clock() - started < seconds:
        game = Game(RULES)
        while True:
            moves = game.legal_moves
            if not moves:
                break
            game.push(rng.choice(moves))
            plies += 1
        games += 1
    elapsed = clock() - started
    return games / elapsed, plies / elapsed


def openspiel_checkers(seconds: float) -> tuple[float, float]:
    game = pyspiel.load_game("checkers")
    rng = random.Random(1)
    games = plies = 0
    started = clock()
    while clock() - started < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
        games += 1
    elapsed = clock() - started
    return games / elapsed, plies / elapsed


class RandomChoices:
    """Random legal actions for many masks at once, cheaply: the legal action with the highest
    of a row of random priorities (from a fixed table, a different row each step)."""

    def __init__(self, seed: int) -> None:
        self.table = np.random.default_rng(seed).integers(1, 127, (97, 973), dtype=np.int8)
        self.step = 0

    def __call__(self, masks: np.ndarray) -> np.ndarray:
        self.step += 1
        return np.asarray((masks * self.table[self.step % 97]).argmax(axis=1))


def vector_steps(
    size: int, opponent: str | None, observation: Literal["board", "planes"]
) -> Callable[[float], tuple[float]]:
    envs = BlueGrayVectorEnv(size, RULES, opponent=opponent, observation=observation, copy=False)
    choose = RandomChoices(0)

    def measure(seconds: float) -> tuple[float]:
        started = clock()
        _, infos = envs.reset(seed=0)
        elapsed = clock() - started
        steps = 0
        while elapsed < seconds:
            actions = choose(infos["action_mask"])
            started = clock()
            _, _, _, _, infos = envs.step(actions)
            elapsed += clock() - started
            steps += size
        return (steps / elapsed,)

    measure(0.1)
    return measure


def gymnasium_steps(seconds: float) -> tuple[float]:
    env = BlueGrayEnv(RULES, opponent="random")
    rng = np.random.default_rng(0)
    steps = 0
    elapsed = 0.0
    episode = 0
    while elapsed < seconds:
        started = clock()
        _, info = env.reset(seed=episode)
        elapsed += clock() - started
        episode += 1
        terminated = False
        while not terminated and elapsed < seconds:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            started = clock()
            _, _, terminated, _, info = env.step(action)
            elapsed += clock() - started
            steps += 1
    return (steps / elapsed,)


def pettingzoo_steps(seconds: float) -> tuple[float]:
    env = BlueGrayAECEnv(RULES)
    rng = np.random.default_rng(0)
    steps = 0
    elapsed = 0.0
    while elapsed < seconds:
        started = clock()
        env.reset(seed=0)
        observation, *_ = env.last()
        elapsed += clock() - started
        while not env.terminations[env.agent_selection] and elapsed < seconds:
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            started = clock()
            env.step(action)
            observation, *_ = env.last()
            elapsed += clock() - started
            steps += 1
    return (steps / elapsed,)


def openspiel_steps(seconds: float) -> tuple[float]:
    game: Any = load_game(RULES)
    rng = random.Random(0)
    steps = 0
    elapsed = 0.0
    while elapsed < seconds:
        started = clock()
        state = game.new_initial_state()
        elapsed += clock() - started
        while not state.is_terminal() and elapsed < seconds:
            started = clock()
            legal = state.legal_actions()
            state.observation_tensor()
            elapsed += clock() - started
            action = rng.choice(legal)
            started = clock()
            state.apply_action(action)
            elapsed += clock() - started
            steps += 1
    return (steps / elapsed,)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each measurement (median)")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds a run (default 2)")
    parser.add_argument(
        "--clock",
        choices=("cpu", "wall"),
        default="cpu",
        help="time by the thread's CPU time (default) or by the wall clock",
    )
    args = parser.parse_args()
    runs, seconds = args.runs, args.seconds
    global clock
    clock = time.thread_time if args.clock == "cpu" else time.perf_counter
    print(
        f"random complete {RULES} games from the start "
        f"(medians of {runs} runs of {seconds:g} s, {args.clock} time)"
    )
    print(f"{'through':<44} {'playouts/s':>12} {'plies/s':>12}")
    rows: dict[str, list[float]] = {}
    for batch in BATCHES:
        name = f"bluegray.engine.simulation, batch {batch:,}"
        rows[name] = median_rates(simulation_playouts(batch), runs, seconds)
        print(f"{name:<44} {rows[name][0]:>12,.0f} {rows[name][1]:>12,.0f}", flush=True)
    name = "Game (legal_moves, push)"
    rows[name] = median_rates(game_playouts, runs, seconds)
    print(f"{name:<44} {rows[name][0]:>12,.1f} {rows[name][1]:>12,.0f}", flush=True)
    checkers: list[float] | None = None
    if pyspiel is None:
        print("OpenSpiel checkers: not measured (pyspiel is not installed)")
    else:
        name = "OpenSpiel checkers (C++, from Python)"
        checkers = median_rates(openspiel_checkers, runs, seconds)
        print(f"{name:<44} {checkers[0]:>12,.0f} {checkers[1]:>12,.0f}", flush=True)
    print()
    print(f"environment steps a second, masks and observations included ({RULES})")
    steps: dict[str, float] = {}
    for opponent in (None, "random"):
        against = "self-play" if opponent is None else f"against {opponent}"
        observations: tuple[Literal["board", "planes"], ...] = ("board", "planes")
        for observation in observations:
            for size in VECTOR_BATCHES:
                name = f"vector env x{size:,}, {against}, {observation}"
                measure = vector_steps(size, opponent, observation)
                steps[name] = median_rates(measure, runs, seconds)[0]
                print(f"{name:<52} {steps[name]:>12,.0f}", flush=True)
    singles: list[tuple[str, Callable[[float], tuple[float]]]] = [
        ("Gymnasium BlueGrayEnv, against random", gymnasium_steps),
        ("PettingZoo BlueGrayAECEnv", pettingzoo_steps),
    ]
    if pyspiel is not None:
        singles.append(("OpenSpiel python_bluegray", openspiel_steps))
    for name, measure in singles:
        steps[name] = median_rates(measure, runs, seconds)[0]
        print(f"{name:<52} {steps[name]:>12,.0f}", flush=True)
    print()
    best = max(rows[f"bluegray.engine.simulation, batch {batch:,}"][1] for batch in BATCHES)
    if checkers is not None:
        print(f"random plies / OpenSpiel checkers' plies: {best / checkers[1]:.2f} (target >= 2)")
    masks = max(v for k, v in steps.items() if k.endswith("board"))
    planes = max(v for k, v in steps.items() if k.endswith("planes"))
    print(f"vector env steps/s with masks: {masks:,.0f} (target >= 1,000,000)")
    print(f"vector env steps/s with masks and planes: {planes:,.0f} (target >= 250,000)")


if __name__ == "__main__":
    main()
