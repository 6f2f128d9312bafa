"""Train a small policy/value network by self-play, in NumPy on the CPU, and match it against
bluegray's players.

Many games play at once in the vector environment (``bluegray.rl.BlueGrayVectorEnv``, both sides
agents); each side acts by the network's policy (``bluegray.rl.network_player``: one hidden
layer over the observation planes seen from the acting side, a softmax over the legal actions,
and a value). When a game ends, each of its actions is a training example: the policy learns
towards the actions that won (their advantage is the result minus the value's guess) and the
value towards the result. Gradients are written out by hand; Adam steps the weights.

    pip install ".[rl,fast]"      # in a clone of the repository
    python examples/self_play.py --minutes 5 --output /tmp/network.npz
    bluegray match network:/tmp/network.npz greedy --rules super-light --games 100

It prints the share of games won against ``random`` as it learns, saves the network, and plays
``--games`` games against ``random``, ``greedy`` and ``mcts`` (``--mcts``) with the match runner,
where the network plays as the player spec ``network:FILE``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode

from bluegray.engine.match import MatchSettings, run_match
from bluegray.rl import BlueGrayVectorEnv
from bluegray.rl.network_player import TURNED, Network, acting_view
from bluegray.rules import as_rules

Array = npt.NDArray[np.float64]


class Adam:
    """Adam's steps for a network's arrays."""

    def __init__(self, network: Network, rate: float) -> None:
        self.rate = rate
        self.moments = {name: np.zeros_like(a) for name, a in network.arrays().items()}
        self.squares = {name: np.zeros_like(a) for name, a in network.arrays().items()}
        self.steps = 0

    def step(self, network: Network, gradients: dict[str, Array]) -> None:
        self.steps += 1
        for name, array in network.arrays().items():
            gradient = gradients[name]
            self.moments[name] = 0.9 * self.moments[name] + 0.1 * gradient
            self.squares[name] = 0.999 * self.squares[name] + 0.001 * gradient**2
            moment = self.moments[name] / (1 - 0.9**self.steps)
            square = self.squares[name] / (1 - 0.999**self.steps)
            array -= self.rate * moment / (np.sqrt(square) + 1e-8)


def gradients(
    network: Network,
    inputs: Array,
    legal: npt.NDArray[np.bool_],
    actions: npt.NDArray[np.int64],
    results: Array,
    entropy: float = 0.01,
) -> tuple[dict[str, Array], float]:
    """The gradients of the loss (policy gradient with the value as baseline, the value's
    squared error, an entropy bonus) over a batch, and the value's mean squared error."""
    count = len(inputs)
    hidden, probabilities, values = network.forward(inputs, legal)
    advantages = results - values
    rows = np.arange(count)
    logits_gradient = probabilities * advantages[:, None]
    logits_gradient[rows, actions] -= advantages
    logs = np.log(np.where(probabilities > 0, probabilities, 1.0))
    spread = -(probabilities * logs).sum(axis=1, keepdims=True)
    logits_gradient += entropy * probabilities * (logs + spread)
    logits_gradient /= count
    value_gradient = (values - results) * (1 - values**2) / count
    hidden_gradient = logits_gradient @ network.policy.T + np.outer(value_gradient, network.value)
    hidden_gradient *= hidden > 0
    return {
        "hidden": inputs.T @ hidden_gradient,
        "hidden_bias": hidden_gradient.sum(axis=0),
        "policy": hidden.T @ logits_gradient,
        "policy_bias": logits_gradient.sum(axis=0),
        "value": hidden.T @ value_gradient,
        "value_bias": np.array([value_gradient.sum()]),
    }, float(((values - results) ** 2).mean())


def sample(probabilities: Array, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """An action per row, drawn from its probabilities."""
    cumulative = probabilities.cumsum(axis=1)
    draws = rng.random(len(probabilities)) * cumulative[:, -1]
    chosen = (cumulative < draws[:, None]).sum(axis=1)
    return np.asarray(np.minimum(chosen, probabilities.shape[1] - 1), dtype=np.int64)


def win_rate_against_random(network: Network, rules: str, games: int, seed: int) -> float:
    """The share of ``games`` games (one per environment) the network's policy wins against
    the random player, on a side drawn at random."""
    envs = BlueGrayVectorEnv(games, rules, opponent="random", agent_side="random", copy=False)
    planes, infos = envs.reset(seed=seed)
    rng = np.random.default_rng(seed)
    results = np.full(games, np.nan)
    while np.isnan(results).any():
        inputs, legal, gray = acting_view(planes, infos["action_mask"])
        _, probabilities, _ = network.forward(inputs, legal)
        chosen = sample(probabilities, rng)
        actions = np.where(gray, TURNED[chosen], chosen)
        planes, rewards, terminated, _, infos = envs.step(actions)
        ended = terminated & np.isnan(results)
        results[ended] = rewards[ended]
    return float((results > 0).mean())


def train(
    seconds: float,
    rules: str = "super-light",
    games: int = 128,
    width: int = 128,
    batch: int = 4096,
    seed: int = 0,
    rate: float = 1e-3,
    report: float = 30.0,
) -> tuple[Network, dict[str, Any]]:
    """Self-play for about ``seconds`` seconds; the network and what happened."""
    rng = np.random.default_rng(seed)
    network = Network.new(width, rng)
    adam = Adam(network, rate)
    envs = BlueGrayVectorEnv(
        games, rules, opponent=None, autoreset_mode=AutoresetMode.SAME_STEP, copy=False
    )
    planes, infos = envs.reset(seed=seed)
    episodes: list[list[tuple[Array, npt.NDArray[np.bool_], int, int]]] = [[] for _ in range(games)]
    pool: list[tuple[Array, npt.NDArray[np.bool_], int, float]] = []
    started = time.perf_counter()
    next_report = report
    history = []
    finished = updates = 0
    error = 0.0
    while time.perf_counter() - started < seconds:
        inputs, legal, gray = acting_view(planes, infos["action_mask"])
        _, probabilities, _ = network.forward(inputs, legal)
        chosen = sample(probabilities, rng)
        sides = gray.astype(int)
        for g in range(games):
            episodes[g].append((inputs[g].astype(np.float32), legal[g], int(chosen[g]), sides[g]))
        planes, _, terminated, _, infos = envs.step(np.where(gray, TURNED[chosen], chosen))
        for g in np.flatnonzero(terminated).tolist():
            winner = int(infos["winner"][g])
            for example, mask, action, side in episodes[g]:
                pool.append(
                    (example, mask, action, 0.0 if winner < 0 else 1.0 - 2.0 * (winner != side))
                )
            episodes[g] = []
            finished += 1
        if len(pool) >= batch:
            order = rng.permutation(len(pool))
            for start in range(0, len(pool) - batch // 4 + 1, batch // 4):
                part = [pool[i] for i in order[start : start + batch // 4]]
                grads, error = gradients(
                    network,
                    np.array([p[0] for p in part], np.float64),
                    np.array([p[1] for p in part]),
                    np.array([p[2] for p in part], np.int64),
                    np.array([p[3] for p in part]),
                )
                adam.step(network, grads)
                updates += 1
            pool = []
        elapsed = time.perf_counter() - started
        if elapsed >= next_report:
            next_report += report
            rate_now = win_rate_against_random(network, rules, 200, seed=10_000)
            history.append((round(elapsed), finished, rate_now, error))
            print(
                f"{elapsed:6.0f} s: {finished:7,} self-play games, {updates:5,} updates, "
                f"value error {error:.3f}, wins {rate_now:.0%} of 200 against random",
                flush=True,
            )
    return network, {"games": finished, "updates": updates, "history": history}


def score_against(path: Path, opponent: str, rules: str, games: int, seed: int) -> str:
    """A match of the network (``network:FILE``) against ``opponent``, as the match runner
    reports it in one line."""
    summary = run_match(
        MatchSettings(f"network:{path}", opponent, as_rules(rules), games, seed=seed)
    )
    stats = summary.stats
    tally = stats.a
    return (
        f"network against {opponent}: {tally.wins}-{tally.draws}-{tally.losses} "
        f"(won-drawn-lost, score {stats.score:.1%}) over {games} games"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="self-play time")
    parser.add_argument("--rules", default="super-light")
    parser.add_argument("--games", type=int, default=100, help="games of each match")
    parser.add_argument("--width", type=int, default=128, help="hidden units")
    parser.add_argument("--mcts", default="mcts:iterations=200", help="the MCTS opponent")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--output", type=Path, default=Path("network.npz"))
    args = parser.parse_args()
    network, result = train(args.minutes * 60, args.rules, width=args.width, seed=args.seed)
    network.save(args.output)
    print(
        f"{result['games']:,} self-play games, {result['updates']:,} updates; wrote {args.output}"
    )
    for opponent in ("random", "greedy", args.mcts):
        print(score_against(args.output, opponent, args.rules, args.games, args.seed), flush=True)


if __name__ == "__main__":
    main()
