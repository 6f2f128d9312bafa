"""Tuning the evaluation by what the engine does with it, for ``tune_evaluation.py``'s ``spsa``
(weights moved towards those that win more games, by self-play or against another player) and
``tempo`` (the weight of having the move that cancels the search's odd-even swing).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import numpy as np

from bluegray.engine.evaluation import (
    DEFAULT_WEIGHTS,
    FEATURES,
    family,
    weights_for,
)
from bluegray.engine.stats import GameOutcome, points_for_a
from bluegray.rules import PRESETS
from evaluation_weights import WEIGHTS, parameters, read_weights, write_weights


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
    matrix, bounds = parameters()
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
        data = read_weights()
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
        write_weights(data)
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
        data = read_weights()
        data["families"].setdefault(key, {})["tempo"] = float(chosen)
        data.setdefault("fits", {}).setdefault(key, {})["tempo"] = (
            f"set to zero the search's odd-even swing: tune_evaluation.py tempo --rules "
            f"{args.rules} --positions {args.positions} --depth {args.depth} --seed {args.seed}"
        )
        write_weights(data)
        print(f"wrote {key}'s tempo to {WEIGHTS}")
