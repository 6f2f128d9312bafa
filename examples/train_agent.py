"""Train a small policy on Blue and Gray with REINFORCE, using only numpy, and plot it learning.

The agent plays ``super-light`` against the ``random`` player through the Gymnasium environment,
on a side drawn at random each game. Its policy is a linear softmax over the legal actions: each
action is described by its kind and by the observation planes around the points it moves from and
to (which pieces stand there and next to them, whether they lie on a captain's path ahead of it),
seen from the acting side, and the policy learns one weight per feature from the game results
alone (+1 win, -1 loss), with no knowledge of the game built in.

    pip install "bluegray[rl]"
    python examples/train_agent.py            # well under a minute on one CPU core
    python examples/train_agent.py --rules sackson --episodes 300 --output /tmp/sackson.png

It prints the share of games won against ``random`` before and after training (on separate
evaluation games, the same seeds both times) and writes the learning curve to
``docs/images/rl-learning.png``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import cairosvg
import gymnasium as gym
import numpy as np
import numpy.typing as npt

from bluegray.rl import ENV_ID, PLANES, decode_action

KINDS = ("captain move", "step forward", "step sideways", "step backward", "diagonal step", "jump")
LAYERS = ("own captain", "own soldier", "enemy soldier", "enemy captain")
CELLS = ("on", "ahead of", "behind", "right of", "left of")
FEATURES = (
    *KINDS,
    *(
        f"{layer} {cell} {end}"
        for end in ("origin", "target")
        for cell in CELLS
        for layer in LAYERS
    ),
    "origin on own path ahead of own captain",
    "origin on enemy path ahead of enemy captain",
    "target on own path ahead of own captain",
    "target on enemy path ahead of enemy captain",
    "target rank",
)
"""What the policy sees of each legal action: its kind, and the observation planes around the
point it moves from and the point it moves to, all from the acting side's point of view."""

_PLANE = {name: index for index, name in enumerate(PLANES)}
Vector = npt.NDArray[np.float64]


def action_features(observation: npt.NDArray[np.float32], actions: list[int]) -> Vector:
    """One row of :data:`FEATURES` per legal action."""
    gray = bool(observation[_PLANE["gray-to-act"], 0, 0] > 0.5)
    own, enemy = ("gray", "blue") if gray else ("blue", "gray")
    forward = -1 if gray else 1  # Gray's forward is down the board: turn the view round
    flat = observation.reshape(len(PLANES), 81).astype(np.float64)
    own_captain, enemy_captain = flat[_PLANE[f"{own}-captain"]], flat[_PLANE[f"{enemy}-captain"]]
    layers = np.stack(
        [
            own_captain,
            flat[_PLANE[f"{own}-guards"]] + flat[_PLANE[f"{own}-privates"]],
            flat[_PLANE[f"{enemy}-guards"]] + flat[_PLANE[f"{enemy}-privates"]],
            enemy_captain,
        ]
    )
    own_path, enemy_path = flat[_PLANE[f"{own}-path"]], flat[_PLANE[f"{enemy}-path"]]
    captain = int(np.argmax(own_captain))
    own_reached = own_path[captain]
    enemy_reached = enemy_path[int(np.argmax(enemy_captain))]
    offsets = ((0, 0), (0, forward), (0, -forward), (forward, 0), (-forward, 0))
    rows = np.zeros((len(actions), len(FEATURES)))
    for row, index in enumerate(actions):
        action = decode_action(index)
        origin = captain if action.kind == "captain" else action.point
        target = action.target
        assert origin is not None
        if action.kind == "captain":
            rows[row, 0] = 1.0
        else:
            assert target is not None
            rise = (target // 9 - origin // 9) * forward
            across = target % 9 != origin % 9
            if action.kind == "jump":
                rows[row, 5] = 1.0
            elif rise and across:
                rows[row, 4] = 1.0
            else:
                rows[row, 1 + (rise <= 0) + (rise < 0)] = 1.0
        column = len(KINDS)
        for point in (origin, target):
            for df, dr in offsets:
                if point is not None and 0 <= point % 9 + df < 9 and 0 <= point // 9 + dr < 9:
                    rows[row, column : column + len(LAYERS)] = layers[:, point + dr * 9 + df]
                column += len(LAYERS)
        rows[row, column] = own_path[origin] > own_reached
        rows[row, column + 1] = enemy_path[origin] > enemy_reached
        if target is not None:
            rows[row, column + 2] = own_path[target] > own_reached
            rows[row, column + 3] = enemy_path[target] > enemy_reached
            rows[row, column + 4] = (8 - target // 9 if gray else target // 9) / 8
    return rows


class LinearPolicy:
    """A softmax over the legal actions of a linear score of their features."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.weights = np.zeros(len(FEATURES))
        self.rng = rng

    def probabilities(self, features: Vector) -> Vector:
        scores = features @ self.weights
        scores = np.exp(scores - scores.max())
        return np.asarray(scores / scores.sum(), dtype=np.float64)

    def act(
        self, observation: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]
    ) -> tuple[int, Vector]:
        """An action drawn from the policy, and the gradient of its log-probability."""
        actions = [int(a) for a in np.flatnonzero(mask)]
        features = action_features(observation, actions)
        probabilities = self.probabilities(features)
        choice = int(self.rng.choice(len(actions), p=probabilities))
        return actions[choice], features[choice] - probabilities @ features


def play(env: Any, policy: LinearPolicy, seed: int) -> tuple[float, list[Vector]]:
    """One game: the final reward and the log-probability gradients of the agent's actions."""
    observation, info = env.reset(seed=seed)
    gradients = []
    while True:
        action, gradient = policy.act(observation, info["action_mask"])
        gradients.append(gradient)
        observation, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return float(reward), gradients


def win_rate(env: Any, policy: LinearPolicy, games: int, first_seed: int) -> float:
    return sum(play(env, policy, first_seed + game)[0] > 0 for game in range(games)) / games


def train(
    episodes: int,
    block: int,
    evaluation_games: int,
    seed: int,
    rules: str = "super-light",
    opponent: str = "random",
) -> dict[str, Any]:
    env = gym.make(ENV_ID, rules=rules, opponent=opponent, agent_side="random")
    policy = LinearPolicy(np.random.default_rng(seed))
    started = time.perf_counter()
    before = win_rate(env, policy, evaluation_games, first_seed=1_000_000)
    curve: list[tuple[int, float]] = []
    wins = 0
    baseline = 0.0
    learning_rate = 0.02
    for episode in range(1, episodes + 1):
        reward, gradients = play(env, policy, seed=seed + episode)
        advantage = reward - baseline
        baseline += 0.02 * (reward - baseline)
        policy.weights += learning_rate * advantage * np.sum(gradients, axis=0)
        wins += reward > 0
        if episode % block == 0:
            curve.append((episode, wins / block))
            print(f"episodes {episode - block + 1}-{episode}: won {wins / block:.0%}", flush=True)
            wins = 0
    after = win_rate(env, policy, evaluation_games, first_seed=1_000_000)
    return {
        "before": before,
        "after": after,
        "curve": curve,
        "weights": dict(zip(FEATURES, policy.weights.round(2).tolist(), strict=True)),
        "seconds": time.perf_counter() - started,
    }


def plot_svg(
    curve: list[tuple[int, float]],
    before: float,
    after: float,
    block: int,
    rules: str = "super-light",
    opponent: str = "random",
) -> str:
    """The learning curve as a small SVG chart (no plotting library needed): the share of games
    won in each block of training episodes, starting from the untrained policy's evaluation."""
    width, height, left, right, top, bottom = 640, 400, 70, 24, 56, 60
    last = curve[-1][0] if curve else block
    inner_width, inner_height = width - left - right, height - top - bottom

    def x(episode: float) -> float:
        return left + inner_width * episode / last

    def y(rate: float) -> float:
        return top + inner_height * (1 - rate)

    tick = next(t for t in (10, 20, 25, 50, 100, 200, 250, 500, 1000, 10**9) if last / t <= 8)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'font-family="Helvetica, Arial, sans-serif" font-size="13">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="16">'
        f"REINFORCE with a linear policy: {rules}, against {opponent}</text>",
        f'<text x="{width / 2}" y="42" text-anchor="middle" fill="#1f4e9c">'
        f"games won in each block of {block} training episodes (episode 0: before training)"
        "</text>",
    ]
    for rate in (0, 0.25, 0.5, 0.75, 1):
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(rate)}" y2="{y(rate)}" '
            'stroke="#dddddd"/>'
        )
        parts.append(f'<text x="{left - 8}" y="{y(rate) + 4}" text-anchor="end">{rate:.0%}</text>')
    for episode in range(0, last + 1, tick):
        parts.append(
            f'<text x="{x(episode)}" y="{height - bottom + 20}" text-anchor="middle">'
            f"{episode}</text>"
        )
    middle = top + inner_height / 2
    parts += [
        f'<text x="{left + inner_width / 2}" y="{height - 16}" text-anchor="middle">'
        "training episodes</text>",
        f'<text x="20" y="{middle}" text-anchor="middle" '
        f'transform="rotate(-90 20 {middle})">games won</text>',
    ]
    for rate, color, label in ((before, "#8c8c8c", "before"), (after, "#e66100", "after")):
        parts.append(
            f'<line x1="{left}" x2="{width - right}" y1="{y(rate)}" y2="{y(rate)}" '
            f'stroke="{color}" stroke-dasharray="6 4" stroke-width="1.5"/>'
        )
        parts.append(
            f'<text x="{width - right - 4}" y="{y(rate) + 17}" text-anchor="end" '
            f'fill="{color}">evaluation {label} training: {rate:.1%}</text>'
        )
    points = [(0.0, before)] + [(episode - block / 2, rate) for episode, rate in curve]
    parts.append(
        '<polyline points="'
        + " ".join(f"{x(episode):.1f},{y(rate):.1f}" for episode, rate in points)
        + '" fill="none" stroke="#1f4e9c" stroke-width="2.5" stroke-linejoin="round"/>'
    )
    parts += [
        f'<line x1="{left}" x2="{left}" y1="{top}" y2="{height - bottom}" stroke="#333333"/>',
        f'<line x1="{left}" x2="{width - right}" y1="{height - bottom}" '
        f'y2="{height - bottom}" stroke="#333333"/>',
        "</svg>",
    ]
    return "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=400)
    parser.add_argument("--block", type=int, default=10, help="episodes per point of the curve")
    parser.add_argument("--evaluation-games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rules", default="super-light", help="a rule set (default super-light)")
    parser.add_argument("--opponent", default="random", help="a player spec (default random)")
    default_output = Path(__file__).resolve().parent.parent / "docs" / "images" / "rl-learning.png"
    parser.add_argument("--output", type=Path, default=default_output)
    args = parser.parse_args()
    result = train(
        args.episodes, args.block, args.evaluation_games, args.seed, args.rules, args.opponent
    )
    games = f"{args.evaluation_games} games against {args.opponent} in {args.rules}"
    print(f"won before training: {result['before']:.1%} of {games}")
    print(f"won after training:  {result['after']:.1%} of {games}")
    weights = sorted(result["weights"].items(), key=lambda item: -abs(item[1]))
    print(
        "largest learnt weights:", ", ".join(f"{name} {value:+.2f}" for name, value in weights[:6])
    )
    print(f"time: {result['seconds']:.0f} s")
    svg = plot_svg(
        result["curve"], result["before"], result["after"], args.block, args.rules, args.opponent
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    cairosvg.svg2png(bytestring=svg.encode("utf-8"), write_to=str(args.output))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
