"""Train a small policy on Blue and Gray with REINFORCE, using only numpy, and plot it learning.

The agent plays ``super-light`` against the ``random`` player in the batched environment
(``bluegray.rl.BlueGrayVectorEnv``: many games at once on the compiled board), on a side drawn at
random each game. Its policy is a linear softmax over the legal actions: each action is described
by its kind and by the observation planes around the points it moves from and to (which pieces
stand there and next to them, whether they lie on a captain's path ahead of it), seen from the
acting side, and the policy learns one weight per feature from the game results alone (+1 win,
-1 loss), with no knowledge of the game built in. The features of every legal action of every
game are computed at once, with numpy.

    pip install ".[rl,fast]"                  # in a clone of the repository
    python examples/train_agent.py            # a few seconds on one CPU core
    python examples/train_agent.py --rules sackson --episodes 300 --output /tmp/sackson.png

It prints the share of games won against ``random`` before and after training (on separate
evaluation games, the same seeds both times), the training time, and writes the learning curve
to ``docs/images/rl-learning.png``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import cairosvg
import numpy as np
import numpy.typing as npt

from bluegray.rl import PLANES, BlueGrayVectorEnv
from bluegray.rl.actions import CAPTAIN_ACTION, FIRST_JUMP_ACTION, decode_action

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
ORIGIN = np.array([decode_action(a).point if a != CAPTAIN_ACTION else -1 for a in range(973)])
TARGET = np.array(
    [-1 if (t := decode_action(a).target) is None else t for a in range(973)], dtype=np.int64
)


Indices = npt.NDArray[np.intp]


def action_features(planes: npt.NDArray[np.float32], games: Indices, actions: Indices) -> Vector:
    """One row of :data:`FEATURES` per legal action: ``actions[k]`` in game ``games[k]``."""
    flat = planes.reshape(len(planes), len(PLANES), 81).astype(np.float64)
    gray = flat[:, _PLANE["gray-to-act"], 0] > 0.5
    forward = np.where(gray, -1, 1)

    def own(blue: str, gray_name: str) -> Vector:
        return np.where(gray[:, None], flat[:, _PLANE[gray_name]], flat[:, _PLANE[blue]])

    own_captain = own("blue-captain", "gray-captain")
    enemy_captain = own("gray-captain", "blue-captain")
    layers = np.stack(
        [
            own_captain,
            own("blue-guards", "gray-guards") + own("blue-privates", "gray-privates"),
            own("gray-guards", "blue-guards") + own("gray-privates", "blue-privates"),
            enemy_captain,
        ],
        axis=1,
    )
    own_path, enemy_path = own("blue-path", "gray-path"), own("gray-path", "blue-path")
    rows = np.arange(len(planes))
    captain = own_captain.argmax(axis=1)
    own_reached = own_path[rows, captain]
    enemy_reached = enemy_path[rows, enemy_captain.argmax(axis=1)]
    g = games
    f = forward[g]
    is_captain = actions == CAPTAIN_ACTION
    origin = np.where(is_captain, captain[g], ORIGIN[actions])
    target = TARGET[actions]
    has_target = target >= 0
    out = np.zeros((len(actions), len(FEATURES)))
    out[:, 0] = is_captain
    jump = (actions >= FIRST_JUMP_ACTION) & ~is_captain
    step = ~is_captain & ~jump
    rise = (target // 9 - origin // 9) * f
    across = target % 9 != origin % 9
    out[:, 5] = jump
    out[:, 4] = step & (rise != 0) & across
    straight = step & ~((rise != 0) & across)
    kind = 1 + (rise <= 0) + (rise < 0)
    for column in (1, 2, 3):
        out[:, column] = straight & (kind == column)
    column = len(KINDS)
    for point, valid in ((origin, np.ones(len(actions), bool)), (target, has_target)):
        for df_sign, dr_sign in ((0, 0), (0, 1), (0, -1), (1, 0), (-1, 0)):
            df, dr = df_sign * f, dr_sign * f
            file, rank = point % 9 + df, point // 9 + dr
            inside = valid & (file >= 0) & (file < 9) & (rank >= 0) & (rank < 9)
            index = np.where(inside, rank * 9 + file, 0)
            out[:, column : column + len(LAYERS)] = layers[g, :, index] * inside[:, None]
            column += len(LAYERS)
    out[:, column] = own_path[g, origin] > own_reached[g]
    out[:, column + 1] = enemy_path[g, origin] > enemy_reached[g]
    safe = np.where(has_target, target, 0)
    out[:, column + 2] = has_target & (own_path[g, safe] > own_reached[g])
    out[:, column + 3] = has_target & (enemy_path[g, safe] > enemy_reached[g])
    out[:, column + 4] = np.where(has_target, np.where(gray[g], 8 - safe // 9, safe // 9) / 8, 0)
    return out


class LinearPolicy:
    """A softmax over each game's legal actions of a linear score of their features."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.weights = np.zeros(len(FEATURES))
        self.rng = rng

    def act(
        self, planes: npt.NDArray[np.float32], masks: npt.NDArray[np.int8]
    ) -> tuple[npt.NDArray[np.int64], Vector]:
        """An action per game drawn from the policy, and the gradients of their
        log-probabilities (one row per game)."""
        games, actions = np.nonzero(masks)
        features = action_features(planes, games, actions)
        scores = features @ self.weights
        starts = np.flatnonzero(np.r_[True, games[1:] != games[:-1]])
        present = games[starts]
        scores = np.exp(
            scores
            - np.repeat(np.maximum.reduceat(scores, starts), np.diff(np.r_[starts, len(games)]))
        )
        totals = np.add.reduceat(scores, starts)
        probabilities = scores / np.repeat(totals, np.diff(np.r_[starts, len(games)]))
        cumulative = np.cumsum(probabilities)
        before = np.r_[0.0, cumulative][starts]
        draws = before + self.rng.random(len(starts)) * (
            cumulative[np.r_[starts[1:], len(games)] - 1] - before
        )
        ends = np.r_[starts[1:], len(games)] - 1
        chosen = np.minimum(np.searchsorted(cumulative, draws, side="right"), ends)
        expected = np.add.reduceat(probabilities[:, None] * features, starts)
        chosen_actions = np.zeros(len(masks), np.int64)
        gradients = np.zeros((len(masks), len(FEATURES)))
        chosen_actions[present] = actions[chosen]
        gradients[present] = features[chosen] - expected
        return chosen_actions, gradients


def make_envs(games: int, rules: str, opponent: str) -> BlueGrayVectorEnv:
    return BlueGrayVectorEnv(games, rules, opponent=opponent, agent_side="random", copy=False)


def win_rate(envs: BlueGrayVectorEnv, policy: LinearPolicy, seed: int) -> float:
    """The share of games won, one game in each environment."""
    planes, infos = envs.reset(seed=seed)
    results = np.full(envs.num_envs, np.nan)
    while np.isnan(results).any():
        actions, _ = policy.act(planes, infos["action_mask"])
        planes, rewards, terminated, _, infos = envs.step(actions)
        ended = terminated & np.isnan(results)
        results[ended] = rewards[ended]
    return float((results > 0).mean())


def train(
    episodes: int,
    block: int,
    evaluation_games: int,
    seed: int,
    rules: str = "super-light",
    opponent: str = "random",
    games: int = 32,
) -> dict[str, Any]:
    """REINFORCE over ``games`` games at once: each game's gradients are summed over its
    episode and applied when it ends, with a running baseline, in the order the episodes end."""
    policy = LinearPolicy(np.random.default_rng(seed))
    evaluation = make_envs(evaluation_games, rules, opponent)
    before = win_rate(evaluation, policy, seed=1_000_000)
    envs = make_envs(games, rules, opponent)
    started = time.perf_counter()
    planes, infos = envs.reset(seed=seed)
    sums = np.zeros((games, len(FEATURES)))
    curve: list[tuple[int, float]] = []
    finished = wins = 0
    baseline = 0.0
    learning_rate = 0.02
    while finished < episodes:
        actions, gradients = policy.act(planes, infos["action_mask"])
        sums += gradients
        planes, rewards, terminated, _, infos = envs.step(actions)
        for g in np.flatnonzero(terminated).tolist():
            reward = float(rewards[g])
            policy.weights += learning_rate * (reward - baseline) * sums[g]
            baseline += 0.02 * (reward - baseline)
            sums[g] = 0.0
            finished += 1
            wins += reward > 0
            if finished % block == 0:
                curve.append((finished, wins / block))
                wins = 0
            if finished == episodes:
                break
        # A game that ended is started again at the next step, whose action is ignored.
        sums[terminated] = 0.0
    seconds = time.perf_counter() - started
    after = win_rate(evaluation, policy, seed=1_000_000)
    return {
        "before": before,
        "after": after,
        "curve": curve,
        "weights": dict(zip(FEATURES, policy.weights.round(2).tolist(), strict=True)),
        "seconds": seconds,
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
    parser.add_argument("--games", type=int, default=32, help="games played at once")
    parser.add_argument("--block", type=int, default=10, help="episodes per point of the curve")
    parser.add_argument("--evaluation-games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rules", default="super-light", help="a rule set (default super-light)")
    parser.add_argument("--opponent", default="random", help="a player spec (default random)")
    default_output = Path(__file__).resolve().parent.parent / "docs" / "images" / "rl-learning.png"
    parser.add_argument("--output", type=Path, default=default_output)
    args = parser.parse_args()
    result = train(
        args.episodes,
        args.block,
        args.evaluation_games,
        args.seed,
        args.rules,
        args.opponent,
        args.games,
    )
    games = f"{args.evaluation_games} games against {args.opponent} in {args.rules}"
    print(f"won before training: {result['before']:.1%} of {games}")
    print(f"won after training:  {result['after']:.1%} of {games}")
    weights = sorted(result["weights"].items(), key=lambda item: -abs(item[1]))
    print(
        "largest learnt weights:", ", ".join(f"{name} {value:+.2f}" for name, value in weights[:6])
    )
    print(f"training time: {result['seconds']:.2f} s")
    svg = plot_svg(
        result["curve"], result["before"], result["after"], args.block, args.rules, args.opponent
    )
    args.output.parent.mkdir(parents=True, exist_ok=True)
    cairosvg.svg2png(bytestring=svg.encode("utf-8"), write_to=str(args.output))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
