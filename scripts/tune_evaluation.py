"""Fit the evaluation's weights to self-play results (Texel-style logistic tuning).

    pip install -e ".[tune]"
    python scripts/tune_evaluation.py generate --games 400 --nodes 3000   # self-play records
    python scripts/tune_evaluation.py fit --write                           # weights.json

``generate`` plays self-play matches of the engine against itself (the match runner, from a book
of balanced random openings) for one representative rule set of each evaluation family and
writes the records to ``data/selfplay/``. ``fit`` replays every record, takes each quiet
position (the side to move has no capture, the game goes on), and fits the weights so that
``1 / (1 + 10 ** (-evaluation / 400))`` predicts the game's result for the side to move: a
logistic regression on the features of ``bluegray.engine.evaluation``, with a little L2
regularisation, solved by Newton's method. It reports the log-loss of the old and new weights
on games held out of the fit, and with ``--write`` stores the new weights in
``src/bluegray/engine/weights.json``. ``spsa`` tunes one family's weights by playing games
between perturbed weight sets (what the shipped weights come from), or with ``--opponent`` by
playing both sets against another player, and ``tempo`` measures how
far search scores swing between odd and even depths and the weight of having the move that
would cancel the swing (a diagnostic; ``--write`` stores that weight). See docs/evaluation.md.
``spsa`` and ``tempo`` live in ``tune_by_play.py``, the weights file and their bounded
parameters in ``evaluation_weights.py``.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from bluegray.engine import ENGINE_VERSION
from bluegray.engine.evaluation import (
    DEFAULT_WEIGHTS,
    ELO_PER_LOGIT,
    FEATURES,
    family,
    features,
    weights_for,
)
from bluegray.engine.match import DEFAULT_MAX_PLIES
from bluegray.outcome import winner_from_result
from bluegray.pieces import Side
from bluegray.record import read_records
from bluegray.rules import PRESETS
from evaluation_weights import REPOSITORY, WEIGHTS, Matrix, parameters, read_weights, write_weights
from tune_by_play import spsa, tempo

DATA = REPOSITORY / "data" / "selfplay"
SELFPLAY_EVENT = "bluegray self-play, engine {engine}"
"""The self-play records' Event tag: which engine played them, for scripts/game_statistics.py."""

SKIP_PLIES = 8
"""Positions this early come from the random opening book, not from play: not used."""


def representatives() -> dict[str, str]:
    """One published rule set for each evaluation family (the first in the presets' order)."""
    chosen: dict[str, str] = {}
    for name, rules in PRESETS.items():
        chosen.setdefault(family(rules), name)
    return chosen


def generate(args: argparse.Namespace) -> None:
    from bluegray.engine.match import MatchSettings, run_match
    from bluegray.record import write_records

    DATA.mkdir(parents=True, exist_ok=True)
    player = f"level:8,nodes={args.nodes}"
    opponent = f"level:8,nodes={args.opponent_nodes or args.nodes}"
    for name in args.rules or representatives().values():
        out = DATA / (f"{name}.{args.suffix}.pgn" if args.suffix else f"{name}.pgn")
        print(f"{name}: {args.games} games of {player} against {opponent} -> {out}", flush=True)
        settings = MatchSettings(
            player_a=player,
            player_b=opponent,
            rules=PRESETS[name],
            games=args.games,
            concurrency=args.concurrency or os.cpu_count() or 1,
            seed=args.seed,
            event=SELFPLAY_EVENT.format(engine=ENGINE_VERSION),
        )
        summary = run_match(settings)
        out.write_text(write_records(summary.records()), encoding="utf-8")
        print(
            f"  {summary.stats.games} games, {summary.stats.average_plies:.0f} plies on average, "
            f"{summary.seconds:.0f} s",
            flush=True,
        )


def positions(path: Path) -> tuple[list[list[float]], list[float], list[int]]:
    """Features, result for the side to move, and game number of every quiet position."""
    rows: list[list[float]] = []
    labels: list[float] = []
    games: list[int] = []
    for number, record in enumerate(read_records(path.read_text(encoding="utf-8"))):
        token = record.tags.get("Result", "*")
        if token == "*":
            continue
        winner = winner_from_result(token)
        game = record.game
        replay = type(game)(game.rules, game.start)
        for ply, move in enumerate(game.moves):
            board = replay.board()
            if ply >= SKIP_PLIES and not board.has_capture() and not replay.is_over():
                rows.append(features(board))
                if winner is None:
                    labels.append(0.5)
                else:
                    labels.append(1.0 if (winner is Side.BLUE) == (board.turn == 0) else 0.0)
                games.append(number)
            replay.push(move)
    return rows, labels, games


def log_loss(x: Matrix, y: Matrix, w: Matrix) -> float:
    """Mean cross-entropy of the predictions ``sigmoid(x @ w)`` against results ``y``."""
    p = 1 / (1 + np.exp(-np.clip(x @ w, -50, 50)))
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def fit_logistic(x: Matrix, y: Matrix, l2: float, prior: Matrix) -> Matrix:
    """Weights (in logits) minimising cross-entropy plus ``l2 * |w - prior|^2`` within the
    bounds of ``parameters``: with little evidence the weights stay near the hand-set prior."""
    from scipy.optimize import minimize

    matrix, bounds = parameters()
    xm = x @ matrix
    n = len(y)

    def objective(theta: Matrix) -> tuple[float, Matrix]:
        z = np.clip(xm @ theta, -50, 50)
        p = 1 / (1 + np.exp(-z))
        w = matrix @ theta
        loss = float(np.mean(np.logaddexp(0, z) - y * z)) + l2 * float(np.sum((w - prior) ** 2))
        gradient = xm.T @ (p - y) / n + 2 * l2 * matrix.T @ (w - prior)
        return loss, gradient

    start, *_ = np.linalg.lstsq(matrix, prior, rcond=None)
    start = np.array([np.clip(v, lo, hi) for v, (lo, hi) in zip(start, bounds, strict=True)])
    result = minimize(objective, start, jac=True, method="L-BFGS-B", bounds=bounds)
    weights: Matrix = matrix @ result.x
    return weights


def fit_scale(x: Matrix, y: Matrix, w: Matrix) -> float:
    """The factor ``s`` minimising the cross-entropy of ``sigmoid(s * x @ w)``, by Newton's
    method on one variable."""
    z = x @ w
    s = 1.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-s * z))
        gradient = float(np.mean((p - y) * z))
        curvature = float(np.mean(p * (1 - p) * z * z)) + 1e-12
        s -= gradient / curvature
        s = max(s, 0.0)
        if abs(gradient / curvature) < 1e-9:
            break
    return s


def fit(args: argparse.Namespace) -> None:
    files = sorted(DATA.glob("*.pgn")) if not args.files else [Path(f) for f in args.files]
    if not files:
        sys.exit(f"no self-play records in {DATA}: run '{sys.argv[0]} generate' first")
    fitted: dict[str, dict[str, float]] = {}
    report: dict[str, dict[str, Any]] = {}
    by_family: dict[str, list[Path]] = {}
    for path in files:
        name = path.name.split(".")[0]
        if not path.is_file():
            sys.exit(f"{path}: no such file")
        if name not in PRESETS:
            sys.exit(
                f"{path}: the file's name does not say its rule set (RULES.pgn or "
                "RULES.SUFFIX.pgn, as 'generate' writes them)"
            )
        by_family.setdefault(family(PRESETS[name]), []).append(path)
    for key, paths in sorted(by_family.items()):
        name = paths[0].name.split(".")[0]
        rules = PRESETS[name]
        started = time.perf_counter()
        rows: list[list[float]] = []
        labels: list[float] = []
        games: list[int] = []
        for path in paths:
            more_rows, more_labels, more_games = positions(path)
            offset = max(games, default=-1) + 1
            rows += more_rows
            labels += more_labels
            games += [offset + number for number in more_games]
        if len(rows) < 1000:
            print(f"{name}: only {len(rows)} positions, skipped")
            continue
        x = np.array(rows, dtype=np.float64)
        y = np.array(labels, dtype=np.float64)
        game_ids = np.array(games)
        # Hold out one game in five (whole games, so that positions of a game stay together).
        rng = random.Random(args.seed)
        held = {g for g in set(games) if rng.random() < 0.2}
        test = np.isin(game_ids, list(held))
        train = ~test
        old = np.array([weights_for(rules)[f] for f in FEATURES]) / ELO_PER_LOGIT
        default = np.array([DEFAULT_WEIGHTS[f] for f in FEATURES]) / ELO_PER_LOGIT
        decisive = y != 0.5
        # The direction of the weights comes from the decisive games: what the winners had.
        # (Drawn games, most of the games in some rule sets, pull every weight towards zero:
        # a flat evaluation predicts a draw well and plays badly.) How strongly the weights are
        # held to the hand-set prior is chosen by the held-out loss on decisive games.
        candidates = {
            l2: fit_logistic(x[train & decisive], y[train & decisive], l2, default)
            for l2 in args.l2
        }
        chosen = min(
            candidates,
            key=lambda l2: log_loss(x[test & decisive], y[test & decisive], candidates[l2]),
        )
        # Then one scale factor, fitted on all games, draws included, keeps the expected score
        # honest.
        scale = fit_scale(x[train], y[train], candidates[chosen])
        losses = {
            "default": log_loss(x[test], y[test], default),
            "current": log_loss(x[test], y[test], old),
            "fitted": log_loss(x[test], y[test], scale * candidates[chosen]),
            "constant": log_loss(x[test], y[test], np.zeros(len(FEATURES))),
        }
        # The final weights use every game.
        direction = fit_logistic(x[decisive], y[decisive], chosen, default)
        w = fit_scale(x, y, direction) * direction
        weights = {f: round(float(v) * ELO_PER_LOGIT, 2) for f, v in zip(FEATURES, w, strict=True)}
        fitted[key] = weights
        report[key] = {
            "records": [path.name for path in paths],
            "games": len(set(games)),
            "positions": len(rows),
            "held_out_log_loss": {k: round(v, 4) for k, v in losses.items()},
            "l2": chosen,
            "decisive_games": len(set(game_ids[decisive].tolist())),
        }
        print(
            f"{name} ({key}): {len(set(games))} games, {len(rows)} positions; held-out log-loss "
            + ", ".join(f"{k} {v:.4f}" for k, v in losses.items())
            + f"; l2 {chosen:g} ({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
    if args.write:
        data = read_weights()
        data["families"].update(fitted)
        data.setdefault("fits", {}).update(report)
        write_weights(data)
        print(f"wrote {len(fitted)} families to {WEIGHTS}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    gen = commands.add_parser("generate", help="play self-play games and write their records")
    gen.add_argument("--games", type=int, default=400, help="games per rule set (default 400)")
    gen.add_argument("--nodes", type=int, default=3000, help="search nodes per move")
    gen.add_argument("--concurrency", type=int, default=None, help="parallel games")
    gen.add_argument("--seed", type=int, default=1, help="match seed")
    gen.add_argument("--rules", nargs="*", help="rule sets (default: one per family)")
    gen.add_argument(
        "--opponent-nodes",
        type=int,
        help="nodes per move of the other player (a weaker one makes more decisive games)",
    )
    gen.add_argument("--suffix", default="", help="written as data/selfplay/RULES.SUFFIX.pgn")
    gen.set_defaults(run=generate)
    fitter = commands.add_parser("fit", help="fit weights to the self-play records")
    fitter.add_argument("files", nargs="*", help="record files (default: data/selfplay/*.pgn)")
    fitter.add_argument(
        "--l2",
        type=float,
        nargs="+",
        default=[1e-4, 1e-3, 1e-2, 1e-1],
        help="strengths of the pull towards the hand-set weights to try (the best on "
        "held-out games is used)",
    )
    fitter.add_argument("--seed", type=int, default=1, help="seed of the held-out split")
    fitter.add_argument("--write", action="store_true", help="store the weights in weights.json")
    fitter.set_defaults(run=fit)
    tuner = commands.add_parser("spsa", help="tune one family's weights by self-play (SPSA)")
    tuner.add_argument("--rules", required=True, help="a published rule set of the family")
    tuner.add_argument("--pairs", type=int, default=400, help="game pairs to play")
    tuner.add_argument("--nodes", type=int, default=1000, help="search nodes per move")
    tuner.add_argument("--gain", type=float, default=1.0, help="step size")
    tuner.add_argument("--min-step", type=float, default=4.0, help="smallest perturbation")
    tuner.add_argument("--start", choices=["default", "fitted"], default="default")
    tuner.add_argument("--concurrency", type=int, default=None, help="parallel pairs")
    tuner.add_argument("--seed", type=int, default=1)
    tuner.add_argument(
        "--opponent",
        help="tune against this player instead of by self-play: each pair plays both weight "
        "sets against it, each colour once (e.g. mcts:iterations=300; a fixed budget makes it "
        "play alike wherever the two sets do)",
    )
    tuner.add_argument(
        "--max-plies",
        type=int,
        default=DEFAULT_MAX_PLIES,
        help=f"with --opponent: games still going after this many plies are drawn "
        f"(default {DEFAULT_MAX_PLIES})",
    )
    tuner.add_argument("--out", type=Path, help="also write the weights to this JSON file")
    tuner.add_argument("--write", action="store_true", help="store the weights in weights.json")
    tuner.set_defaults(run=spsa)
    swing = commands.add_parser(
        "tempo", help="measure the odd-even swing of search scores and the tempo that cancels it"
    )
    swing.add_argument("--rules", required=True, help="a published rule set of the family")
    swing.add_argument("--positions", type=int, default=100, help="middlegame positions")
    swing.add_argument("--depth", type=int, default=8, help="search depth")
    swing.add_argument("--nodes", type=int, default=2000, help="nodes a move of the games")
    swing.add_argument("--step", type=float, default=40.0, help="the second tempo tried, above")
    swing.add_argument("--seed", type=int, default=1, help="opening book seed")
    swing.add_argument("--write", action="store_true", help="store tempo in weights.json")
    swing.set_defaults(run=tempo)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
