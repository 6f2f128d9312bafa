"""The two kernels search the same tree: the plain Python one and the compiled one give the same
best move, score, node count, selective depth and principal variation at every depth, for a
fixed depth or node limit, in every rule set (the way perft pins the move generators)."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")  # the compiled engine: skipped without numba (in CI, a failure)

from bluegray import Game
from bluegray.engine import readiness
from bluegray.engine.compiled.frames import FRAMES
from bluegray.engine.compiled.search import CompiledKernel
from bluegray.engine.kernel import Kernel
from bluegray.engine.limits import Limits, SearchResult
from bluegray.engine.plainsearch import PlainKernel
from bluegray.engine.records import MOVE_WIDTH
from bluegray.engine.search import Searcher
from bluegray.rules import PRESETS


def position_of(rules: str, seed: int) -> Game:
    """A position some random plies into a game (never a finished one)."""
    rng = random.Random(f"{rules} {seed}")
    game = Game(rules)
    for _ in range(rng.randrange(8, 30)):
        moves = game.legal_moves
        game.push(rng.choice(moves))
        if game.is_over():
            game.pop()
            break
    return game


def trace(result: SearchResult) -> list[tuple[object, ...]]:
    """What must be equal: every iteration's depth, score, nodes, seldepth and line, and the
    result's move, score, nodes and line."""
    steps: list[tuple[object, ...]] = [
        (step.depth, step.score, step.nodes, step.seldepth, step.pv) for step in result.iterations
    ]
    return [*steps, (result.move, result.score, result.nodes, result.pv)]


@pytest.mark.parametrize("rules", PRESETS)
def test_both_kernels_search_the_same_tree_at_depths_one_to_six(rules: str) -> None:
    game = position_of(rules, 1)
    plain = Searcher(game.rules, compiled=False)
    compiled = Searcher(game.rules, compiled=True)
    assert not plain.is_compiled and compiled.is_compiled
    for depth in range(1, 7):
        plain.new_game()
        compiled.new_game()
        slow = plain.search(game.board(), Limits(depth=depth))
        fast = compiled.search(game.board(), Limits(depth=depth))
        assert (slow.kernel, fast.kernel) == ("python", "compiled")
        assert [step.depth for step in fast.iterations] == list(range(1, depth + 1))
        assert trace(slow) == trace(fast), (str(game.position), depth)


@pytest.mark.parametrize(
    ("rules", "contempt", "fade"), [("cooper", 30, 60), ("sackson", 0, 0), ("classic-turbo", 0, 0)]
)
def test_both_kernels_agree_along_a_game_with_node_limits_and_root_scores(
    rules: str, contempt: int, fade: int
) -> None:
    # One searcher a kernel for the whole game, as a player keeps it: the table and the history
    # carry from move to move, and node limits stop the search in mid-iteration. A game that
    # ends early is followed by another (each searcher told of the new game, as a player is),
    # so that fourteen positions are searched whatever the evaluation makes of them.
    game = Game(rules)
    plain = Searcher(game.rules, compiled=False, contempt=contempt, fade=fade)
    compiled = Searcher(game.rules, compiled=True, contempt=contempt, fade=fade)
    rng = random.Random(rules)
    for ply in range(14):
        limits = (Limits(depth=5), Limits(nodes=3000), Limits(nodes=777))[ply % 3]
        slow = plain.search(game.board(), limits)
        fast = compiled.search(game.board(), limits)
        assert trace(slow) == trace(fast), (str(game.position), limits)
        assert plain.root_scores(game.board(), 3) == compiled.root_scores(game.board(), 3)
        assert plain.nodes == compiled.nodes
        game.push(slow.move if ply % 2 == 0 else rng.choice(game.legal_moves))
        if game.is_over():
            game = Game(rules)
            plain.new_game()
            compiled.new_game()


def test_a_searcher_that_changes_kernel_in_mid_game_plays_on_as_if_it_had_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The compiled kernel becomes ready after three moves: the searcher hands its table and
    # history over, and goes on exactly as one that searched compiled from the start.
    readiness.require_compiled()
    game = Game("super")
    always = Searcher(game.rules, compiled=True)
    ready: list[type[Kernel] | None] = [None]
    monkeypatch.setattr(readiness, "compiled_kernel", lambda: ready[0])
    changing = Searcher(game.rules)
    for ply in range(8):
        if ply == 3:
            ready[0] = CompiledKernel
        expected = always.search(game.board(), Limits(depth=4))
        result = changing.search(game.board(), Limits(depth=4))
        assert result.kernel == ("python" if ply < 3 else "compiled")
        assert trace(result) == trace(expected), ply
        game.push(result.move)
    assert changing.stored_positions == always.stored_positions


def test_a_position_too_big_for_the_compiled_buffers_is_searched_by_the_plain_kernel() -> None:
    game = position_of("cooper", 2)
    searcher = Searcher(game.rules, compiled=True)
    kernel = searcher._use(CompiledKernel)
    assert isinstance(kernel, CompiledKernel)
    small = np.zeros((FRAMES, 4, MOVE_WIDTH), np.int64)  # room for four moves a position
    kernel._arrays = kernel._arrays._replace(buffers=small)
    result = searcher.search(game.board(), Limits(depth=3))
    plain = Searcher(game.rules, compiled=False).search(game.board(), Limits(depth=3))
    assert result.kernel == "python"
    assert trace(result) == trace(plain)
    assert isinstance(searcher._kernel, PlainKernel)
