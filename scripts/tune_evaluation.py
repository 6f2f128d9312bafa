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
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

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
from bluegray.engine.stats import GameOutcome, points_for_a
from bluegray.outcome import winner_from_result
from bluegray.pieces import Side
from bluegray.record import read_records
from bluegray.rules import PRESETS

REPOSITORY = Path(__file__).resolve().parents[1]
DATA = REPOSITORY / "data" / "selfplay"
WEIGHTS = REPOSITORY / "src" / "bluegray" / "engine" / "weights.json"
SELFPLAY_EVENT = "bluegray self-play, engine {engine}"
"""The self-play records' Event tag: which engine played them, for scripts/game_statistics.py."""
SKIP_PLIES = 8
"""Positions this early come from the random opening book, not from play: not used."""

Matrix = npt.NDArray[np.float64]


def _read_weights() -> dict[str, Any]:
    """The shipped weights file (``families`` and ``fits``), to update and write back."""
    data: dict[str, Any] = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    return data


def _write_weights(data: dict[str, Any]) -> None:
    WEIGHTS.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


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


def _parameters() -> tuple[Matrix, list[tuple[float | None, float | None]]]:
    """The weights as a linear map of parameters with bounds: what the rules say about each
    feature's sign, so that the fit cannot turn a confounded correlation into a rule.

    Advancement is fitted as three slopes (0-5, 5-11, 11-17), each at least 0: a captain never
    loses by moving forward. The race values grow with the lead (``race+0`` is 0: the tempo
    already counts it). Enemy blockers and threatened soldiers count against, material,
    privates' progress, free run, mobility and the impasse pressure for; the tempo and one's
    own blockers (in the way, but also keeping enemies out) may go either way.
    """
    index = {name: i for i, name in enumerate(FEATURES)}
    columns: list[dict[int, float]] = []
    bounds: list[tuple[float | None, float | None]] = []

    def parameter(weights: dict[str, float], low: float | None, high: float | None) -> None:
        columns.append({index[name]: value for name, value in weights.items()})
        bounds.append((low, high))

    parameter({"tempo": 1}, None, None)
    parameter({"advancement": 1, "advancement-middle": -1}, 0, None)
    parameter({"advancement-middle": 1, "advancement-end": -1}, 0, None)
    parameter({"advancement-end": 1}, 0, None)
    parameter({"race+1": 1, "race+2": 1}, 0, None)
    parameter({"race+2": 1}, 0, None)
    parameter({"race-1": -1, "race-2": -1}, 0, None)
    parameter({"race-2": -1}, 0, None)
    for name in ("own-blockers-near", "own-blockers-far"):
        parameter({name: 1}, None, None)
    for name in ("enemy-blockers-near", "enemy-blockers-far", "threatened"):
        parameter({name: 1}, None, 0)
    for name in ("free-run", "guards", "privates", "advanced-privates", "mobility"):
        parameter({name: 1}, 0, None)
    parameter({"impasse-pressure": 1}, 0, None)
    parameter({"siege": 1}, None, None)
    parameter({"simplification": 1}, None, None)
    parameter({"projected-lead": 1}, 0, None)
    matrix = np.zeros((len(FEATURES), len(columns)))
    for j, column in enumerate(columns):
        for i, value in column.items():
            matrix[i, j] = value
    return matrix, bounds


def fit_logistic(x: Matrix, y: Matrix, l2: float, prior: Matrix) -> Matrix:
    """Weights (in logits) minimising cross-entropy plus ``l2 * |w - prior|^2`` within the
    bounds of ``_parameters``: with little evidence the weights stay near the hand-set prior."""
    from scipy.optimize import minimize

    matrix, bounds = _parameters()
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
        by_family.setdefault(family(PRESETS[path.name.split(".")[0]]), []).append(path)
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
        data = _read_weights()
        data["families"].update(fitted)
        data.setdefault("fits", {}).update(report)
        _write_weights(data)
        print(f"wrote {len(fitted)} families to {WEIGHTS}")


def _play_pair(task: tuple[str, dict[str, float], dict[str, float], tuple[str, ...], int]) -> float:
    """Two games between two weight sets from one opening, each side once: the first set's
    points (0 to 2)."""
    from bluegray.engine.match import play_game
    from bluegray.engine.players import SearchPlayer
    from bluegray.engine.search import Limits

    rules, plus, minus, opening, nodes = task
    points = 0.0
    for plus_is_blue in (True, False):
        first = SearchPlayer(8, weights=plus)
        second = SearchPlayer(8, weights=minus)
        blue, gray = (first, second) if plus_is_blue else (second, first)
        result = play_game(blue, gray, rules, opening, Limits(nodes=nodes))
        points += points_for_a(GameOutcome(plus_is_blue, result.winner, result.reason))
    return points


OpponentTask = tuple[str, dict[str, float], dict[str, float], tuple[str, ...], int, str, int, int]


def _play_against(task: OpponentTask) -> tuple[float, float]:
    """Four games from one opening: each weight set against the opponent with each colour.
    The opponent is rebuilt with one seed for all four, so with a fixed budget (``mcts``'s
    iterations) it plays the same moves wherever the two weight sets do: the games differ only
    where the weights make them differ. Returns 1 plus half the difference of the two sets'
    points (0 to 2, like ``_play_pair``), and the two sets' mean score against the opponent."""
    from bluegray.engine.match import play_game
    from bluegray.engine.players import SearchPlayer, player_from_spec

    rules, plus, minus, opening, nodes, opponent, seed, max_plies = task
    difference = total = 0.0
    for weights, sign in ((plus, 1.0), (minus, -1.0)):
        for tuned_is_blue in (True, False):
            tuned = SearchPlayer(8, weights=weights, nodes=nodes)
            other = player_from_spec(opponent, seed=seed)
            blue, gray = (tuned, other) if tuned_is_blue else (other, tuned)
            result = play_game(blue, gray, rules, opening, None, max_plies=max_plies)
            points = points_for_a(GameOutcome(tuned_is_blue, result.winner, result.reason))
            difference += sign * points
            total += points
    return 1.0 + difference / 2, total / 4


def spsa(args: argparse.Namespace) -> None:
    """Tune the weights by playing: SPSA (simultaneous perturbation stochastic approximation).

    Each step plays game pairs between the weights nudged one way and the other along a random
    ±1 direction, and moves the weights towards the side that scored better. Unlike the
    logistic fit, it optimises what matters — results of games the weights themselves play —
    so a feature that merely correlates with winning cannot mislead it.
    """
    import multiprocessing

    from bluegray.engine.openings import opening_book

    rules = PRESETS[args.rules]
    key = family(rules)
    matrix, bounds = _parameters()
    start = weights_for(rules) if args.start == "fitted" else dict(DEFAULT_WEIGHTS)
    prior = np.array([start[f] for f in FEATURES])
    theta, *_ = np.linalg.lstsq(matrix, prior, rcond=None)
    low = np.array([-np.inf if lo is None else lo for lo, _ in bounds])
    high = np.array([np.inf if hi is None else hi for _, hi in bounds])
    theta = np.clip(theta, low, high)
    scale = np.maximum(args.min_step, 0.25 * np.abs(theta))
    workers = args.concurrency or os.cpu_count() or 1
    book = opening_book(rules, args.pairs, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    print(
        f"{args.rules} ({key}): {args.pairs} pairs at {args.nodes} nodes a move, {workers} at once"
    )
    if args.opponent:
        print(f"  each pair: both weight sets against {args.opponent}, each colour once")
    started = time.perf_counter()
    total = against = 0.0
    differing = 0
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        for step in range(0, args.pairs, workers):
            k = step // workers + 1
            c = scale / k**0.101
            gain = args.gain / (args.pairs // workers / 10 + k) ** 0.602
            deltas = [rng.choice([-1.0, 1.0], size=len(theta)) for _ in range(workers)]
            tasks: list[Any] = []
            for index, delta in enumerate(deltas):
                opening = tuple(str(m) for m in book[(step + index) % len(book)].moves)
                plus = np.clip(theta + c * delta, low, high)
                minus = np.clip(theta - c * delta, low, high)
                task: tuple[Any, ...] = (
                    args.rules,
                    dict(zip(FEATURES, (matrix @ plus).tolist(), strict=True)),
                    dict(zip(FEATURES, (matrix @ minus).tolist(), strict=True)),
                    opening,
                    args.nodes,
                )
                if args.opponent:
                    task += (args.opponent, args.seed * 100_003 + step + index, args.max_plies)
                tasks.append(task)
            if args.opponent:
                played = pool.map(_play_against, tasks)
                results = [signal for signal, _ in played]
                against += sum(score for _, score in played)
                differing += sum(signal != 1.0 for signal in results)
            else:
                results = pool.map(_play_pair, tasks)
            update = np.zeros_like(theta)
            for delta, points in zip(deltas, results, strict=True):
                update += (points - 1.0) * delta * c
                total += points - 1.0
            theta = np.clip(theta + gain * update / len(deltas), low, high)
            if k % 10 == 0:
                elapsed = time.perf_counter() - started
                done = step + workers
                versus = (
                    f", score against the opponent {against / done:.3f}"
                    f", results differ in {differing / done:.0%}"
                    if args.opponent
                    else ""
                )
                print(
                    f"  pairs {done}: mean (plus - minus) {total / done:+.3f}{versus}"
                    f", {elapsed:.0f} s",
                    flush=True,
                )
    weights = {f: round(float(v), 2) for f, v in zip(FEATURES, matrix @ theta, strict=True)}
    for name in FEATURES:
        print(f"  {name:<22} {start[name]:>8.1f} -> {weights[name]:>8.1f}")
    if args.out:
        args.out.write_text(json.dumps(weights, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out} (play it as level:8,weights={args.out})")
    if args.write:
        data = _read_weights()
        data["families"][key] = weights
        fit = {
            "method": "spsa",
            "rules": args.rules,
            "pairs": args.pairs,
            "nodes": args.nodes,
            "start": args.start,
            "seed": args.seed,
        }
        if args.opponent:
            fit.update(opponent=args.opponent, max_plies=args.max_plies)
        data.setdefault("fits", {})[key] = fit
        _write_weights(data)
        print(f"wrote {key} to {WEIGHTS}")


def _sample_boards(rules_name: str, count: int, nodes: int, seed: int) -> list[Any]:
    """Middlegame positions of ``rules_name``: every eighth position from ply 8 to 64 of
    self-play games (``nodes`` a move) from the opening book, ``count`` of them."""
    from bluegray.engine.openings import opening_book
    from bluegray.engine.players import SearchPlayer
    from bluegray.engine.search import Limits

    rules = PRESETS[rules_name]
    boards: list[Any] = []
    limits = Limits(nodes=nodes)
    for opening in opening_book(rules, count, seed=seed):
        game = opening.game(rules)
        player = SearchPlayer(8)
        player.new_game(rules)
        while game.outcome() is None and game.ply <= 64 and len(boards) < count:
            if game.ply >= 8 and game.ply % 8 == 0:
                boards.append(game.position.board())
            game.push(player.choose(game, limits))
        if len(boards) >= count:
            break
    return boards


def parity_bias(rules_name: str, weights: dict[str, float], boards: list[Any], depth: int) -> float:
    """How much higher the search scores a position at odd depths than at the even depths either
    side (the root's side made the last move of an odd-depth line), averaged over ``boards``
    and depths 2 to ``depth - 1``: 0 when the evaluation's ``tempo`` gives having the move
    its worth."""
    from bluegray.engine.evaluation import Evaluator
    from bluegray.engine.search import Limits, Searcher

    rules = PRESETS[rules_name]
    searcher = Searcher(rules, evaluator=Evaluator(rules, weights), hash_entries=1 << 18)
    differences = []
    for board in boards:
        searcher.new_game()  # each position searched from scratch
        result = searcher.search(board, Limits(depth=depth))
        scores = [iteration.score for iteration in result.iterations]
        if len(scores) < depth:
            continue  # decided early: a won line has no parity
        for d in range(2, depth):
            sign = 1 if d % 2 else -1
            differences.append(sign * (scores[d - 1] - (scores[d - 2] + scores[d]) / 2))
    if not differences:
        sys.exit(
            f"no position was searched to depth {depth} without being decided: nothing to measure"
        )
    return float(np.mean(differences))


def tempo(args: argparse.Namespace) -> None:
    """Find the ``tempo`` at which the search's scores do not swing between odd and even depths.

    In a race game the side that moved last has just stepped its captain on, so an evaluation
    that undervalues having the move scores every odd-depth line (the root's side moved last)
    higher than the even ones. The swing disturbs everything that compares lines of different
    depths (late-move reductions, the transposition table, quiescence). This measures the mean
    swing at two tempo values, takes the value where the line through them crosses zero, and
    measures it there.
    """
    rules = PRESETS[args.rules]
    key = family(rules)
    weights = weights_for(rules)
    started = time.perf_counter()
    boards = _sample_boards(args.rules, args.positions, args.nodes, args.seed)
    print(f"{args.rules} ({key}): {len(boards)} positions, searched to depth {args.depth}")

    def measure(value: float) -> float:
        bias = parity_bias(args.rules, {**weights, "tempo": value}, boards, args.depth)
        elapsed = time.perf_counter() - started
        print(f"  tempo {value:7.1f}: odd-minus-even swing {bias:+7.1f}  ({elapsed:.0f} s)")
        return bias

    low = weights["tempo"]
    high = low + args.step
    low_bias, high_bias = measure(low), measure(high)
    if low_bias == high_bias:
        sys.exit("the swing does not change with tempo: nothing to fit")
    chosen = round(low + (high - low) * low_bias / (low_bias - high_bias))
    measure(chosen)
    print(f"  tempo {low:.1f} -> {chosen:.1f}")
    if args.write:
        data = _read_weights()
        data["families"].setdefault(key, {})["tempo"] = float(chosen)
        data.setdefault("fits", {}).setdefault(key, {})["tempo"] = (
            f"set to zero the search's odd-even swing: tune_evaluation.py tempo --rules "
            f"{args.rules} --positions {args.positions} --depth {args.depth} --seed {args.seed}"
        )
        _write_weights(data)
        print(f"wrote {key}'s tempo to {WEIGHTS}")


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
