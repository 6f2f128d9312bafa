"""Perft speed of the rules core against python-chess's perft on chess, measured in one run.

    pip install -e ".[bench]" && python benchmarks/perft_speed.py

Both perfts count the last ply in bulk (python-chess's examples/perft/perft.py does the same with
``len(board.legal_moves)``). Prints the median nodes per second of several runs and their ratio.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import statistics
import time
from collections.abc import Callable
from types import ModuleType

from bluegray import Position
from bluegray.perft import perft

SACKSON_PERFT_5 = 547_925


def chess_perft(board: object, depth: int, bulk: bool = True) -> int:
    """python-chess's perft loop; with ``bulk`` the last ply is counted, not played."""
    if depth == 0:
        return 1
    if depth == 1 and bulk:
        return board.legal_moves.count()  # type: ignore[attr-defined, no-any-return]
    total = 0
    for move in board.legal_moves:  # type: ignore[attr-defined]
        board.push(move)  # type: ignore[attr-defined]
        total += chess_perft(board, depth - 1, bulk)
        board.pop()  # type: ignore[attr-defined]
    return total


def load_python_chess() -> ModuleType | None:
    """python-chess, if it is installed (it is an optional extra: ``.[bench]``)."""
    try:
        return importlib.import_module("chess")
    except ImportError:
        return None


def measure(count: Callable[[], int], runs: int) -> tuple[int, float]:
    """The node count and the median nodes per second over ``runs`` runs."""
    rates = []
    nodes = 0
    for _ in range(runs):
        started = time.perf_counter()
        nodes = count()
        rates.append(nodes / (time.perf_counter() - started))
    return nodes, statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=5, help="bluegray perft depth (default 5)")
    parser.add_argument("--chess-depth", type=int, default=4, help="chess perft depth (default 4)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each, median taken")
    args = parser.parse_args()

    chess = load_python_chess()
    if chess is None:
        print("python-chess is not installed: pip install -e '.[bench]' to compare with it")
    start = Position.start("sackson")
    for bulk, how in ((True, "last ply counted in bulk"), (False, "every move played")):
        print(f"-- {how}")
        nodes, ours = measure(functools.partial(perft, start, args.depth, bulk=bulk), args.runs)
        if args.depth == 5:
            assert nodes == SACKSON_PERFT_5, nodes
        print(f"bluegray perft {args.depth} (sackson start): {nodes:,} nodes, {ours:,.0f} nodes/s")
        if chess is None:
            continue
        board = chess.Board()
        count = functools.partial(chess_perft, board, args.chess_depth, bulk)
        chess_nodes, theirs = measure(count, args.runs)
        print(
            f"python-chess {chess.__version__} perft {args.chess_depth} (chess start): "
            f"{chess_nodes:,} nodes, {theirs:,.0f} nodes/s"
        )
        print(f"ratio bluegray / python-chess: {ours / theirs:.2f}")


if __name__ == "__main__":
    main()
