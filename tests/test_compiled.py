"""The numba-compiled core against the rules core and the plain search: the same moves, hashes
and game ends on random games, the conformance perft counts, the same evaluation, the same
scores where both searches are exact."""

from __future__ import annotations

import ast
import json
import os
import random
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pytest

from bluegray import Game, Position
from bluegray.bitboard import Board
from bluegray.engine import compiled_cache
from bluegray.engine import fastboard as fb
from bluegray.engine.evaluation import FEATURES, Evaluator, weights_for
from bluegray.engine.fasteval import EvaluationArrays, evaluate
from bluegray.engine.fastsearch import FRAMES
from bluegray.engine.search import Limits, Searcher
from bluegray.rules import PRESETS
from tests.paths import CONFORMANCE, SHARED_CONFORMANCE


def perft_vectors() -> list[dict[str, object]]:
    for folder in (SHARED_CONFORMANCE, CONFORMANCE):
        path = folder / "perft.jsonl"
        if path.exists():
            return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    raise AssertionError("no perft.jsonl among the conformance vectors")


def compiled_moves(board: Board) -> set[tuple[int, int, int]]:
    """The compiled generator's moves as (from, to, bitboard of the pieces taken)."""
    fast = fb.FastBoard(board, 1)
    out = np.zeros((fb.MAX_MOVES, fb.MOVE_WIDTH), np.int64)
    n = fb.generate_moves(fast.cells, fast.state, fast.rules.tables, out, fast.capture_stack)
    assert n >= 0
    moves = set()
    for row in out[:n]:
        taken = sum(1 << int(row[fb.MOVE_FIRST_TAKEN + k]) for k in range(int(row[fb.MOVE_TAKEN])))
        moves.add((int(row[fb.MOVE_FROM]), int(row[fb.MOVE_TO]), taken))
    return moves


def random_games(rules: str, games: int, seed: int) -> list[Game]:
    """Positions along random games (every position of each game, the last one included)."""
    rng = random.Random(seed)
    positions = []
    for _ in range(games):
        game = Game(rules)
        while not game.is_over() and game.ply < 160:
            positions.append(game.copy())
            game.push(rng.choice(game.legal_moves))
    return positions


@pytest.mark.parametrize("vector", perft_vectors(), ids=lambda vector: str(vector["position"]))
def test_the_compiled_generator_passes_every_perft_vector(vector: dict[str, object]) -> None:
    position = Position.parse(str(vector["position"]), str(vector["rules"]))
    depth = int(str(vector["depth"]))
    expected = int(str(vector["nodes"]))
    assert (fb.perft(position.board(), depth) if depth else 1) == expected


@pytest.mark.parametrize("rules", PRESETS)
def test_the_compiled_board_follows_the_rules_core(rules: str) -> None:
    for game in random_games(rules, 3, seed=len(rules)):
        board = game.board()
        python_moves = {(move[0], move[1], move[2]) for move in board.moves()}
        assert compiled_moves(board) == python_moves, str(game.position)
        if not board.moves():
            continue
        fast = fb.FastBoard(board, 2)
        out = np.zeros((fb.MAX_MOVES, fb.MOVE_WIDTH), np.int64)
        rule_arrays = fast.rules
        n = fb.generate_moves(fast.cells, fast.state, fast.rules.tables, out, fast.capture_stack)
        cells_before = fast.cells.copy()
        state_before = fast.state.copy()
        for row in out[:n]:
            fb.make(
                fast.cells, fast.state, fast.history, fast.undo, row, fb.ZOBRIST, fb.ZOBRIST_GRAY
            )
            taken = sum(
                1 << int(row[fb.MOVE_FIRST_TAKEN + k]) for k in range(int(row[fb.MOVE_TAKEN]))
            )
            raw = next(
                move
                for move in board.moves()
                if (move[0], move[1], move[2]) == (int(row[0]), int(row[1]), taken)
            )
            board.push(raw)
            length = fast.state[fb.HISTORY_LENGTH]
            assert int(fast.history[length - 1]) == board.hash
            assert int(fast.state[fb.COUNT]) == board.count
            code = fb.end_by_move(
                fast.state, fast.history, rule_arrays.switches, rule_arrays.advancement
            )
            assert code == board.end_by_move()
            board.pop()
            fb.unmake(fast.cells, fast.state, fast.undo, row)
            assert np.array_equal(fast.cells, cells_before)
            assert np.array_equal(fast.state, state_before)


@pytest.mark.parametrize("rules", PRESETS)
def test_the_compiled_evaluation_equals_the_plain_one(rules: str) -> None:
    rng = random.Random(rules)
    weights = weights_for(PRESETS[rules])
    # Every feature counts, so that a slip in any of them shows.
    for name in FEATURES:
        weights[name] = weights[name] or rng.uniform(-40, 40)
    evaluator = Evaluator(PRESETS[rules], weights)
    arrays = EvaluationArrays(evaluator)
    checked = 0
    for game in random_games(rules, 2, seed=7):
        if game.is_over():
            continue
        board = game.board()
        fast = fb.FastBoard(board, 1)
        value = evaluate(
            fast.cells,
            fast.state,
            arrays.weights,
            fast.rules.paths,
            fast.rules.advancement,
            arrays.advancement_value,
            arrays.extras,
            arrays.zone_points,
            arrays.zone_sizes,
        )
        # The same sum in a different order may round the other way.
        assert abs(value - evaluator.evaluate(board)) <= 1, str(game.position)
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("rules", ["sackson", "cooper", "super", "classic-turbo", "pow-classic"])
def test_both_searches_agree_where_both_are_exact(rules: str) -> None:
    # Below depth 3 neither search reduces a move, so both give the minimax value.
    compiled = Searcher(PRESETS[rules], compiled=True)
    plain = Searcher(PRESETS[rules], compiled=False)
    for game in random_games(rules, 1, seed=3)[::6]:
        if game.is_over():
            continue
        for depth in (1, 2):
            compiled.new_game()
            plain.new_game()
            fast = compiled.search(game.board(), Limits(depth=depth))
            slow = plain.search(game.board(), Limits(depth=depth))
            assert abs(fast.score - slow.score) <= 1, (str(game.position), depth)


@pytest.mark.parametrize("rules", ["cooper", "super"])
def test_both_searches_give_the_weaker_levels_the_same_root_scores(rules: str) -> None:
    # The weaker levels choose among every root move's exact score; the compiled search gives
    # the same scores in the same order (equal scores ranked in the rules core's move order).
    compiled = Searcher(PRESETS[rules], compiled=True, contempt=30)
    plain = Searcher(PRESETS[rules], compiled=False, contempt=30)
    for game in random_games(rules, 1, seed=5)[::9]:
        if game.is_over():
            continue
        for depth in (1, 2):
            compiled.new_game()
            plain.new_game()
            fast = compiled.root_scores(game.board(), depth)
            slow = plain.root_scores(game.board(), depth)
            assert [move for move, _ in fast] == [move for move, _ in slow], str(game.position)
            assert all(abs(a - b) <= 1 for (_, a), (_, b) in zip(fast, slow, strict=True))


def test_a_capture_round_a_circle_either_way_is_two_moves_to_the_compiled_search() -> None:
    # a1xa3xc3xc1xa1 and a1xc1xc3xa3xa1 start, end and take alike; the compiled search told
    # them apart only by those, so the weaker levels' root scores lost one of them (a KeyError
    # seen in a level 2 game in sackson).
    game = Game("sackson", "4c4/9/9/9/9/9/1g7/g1g6/Gg2C4 b 0 1")
    assert sorted(str(move) for move in game.legal_moves) == ["a1xa3xc3xc1xa1", "a1xc1xc3xa3xa1"]
    compiled = Searcher(game.rules, compiled=True)
    plain = Searcher(game.rules, compiled=False)
    for depth in (1, 2):
        fast = compiled.root_scores(game.board(), depth)
        slow = plain.root_scores(game.board(), depth)
        assert [move for move, _ in fast] == [move for move, _ in slow] == game.legal_moves
    assert compiled.search(game.board(), Limits(depth=3)).move in game.legal_moves


def test_both_searches_fade_alike() -> None:
    # Near the no-progress limit (``fade``) both searches shrink the evaluation the same way.
    rules = PRESETS["cooper"]
    compiled = Searcher(rules, compiled=True, fade=60)
    plain = Searcher(rules, compiled=False, fade=60)
    checked = 0
    for game in random_games("cooper", 1, seed=4)[::6]:
        if game.is_over():
            continue
        position = game.position
        text = str(position).split()
        text[2] = "75"  # 25 plies left: the evaluation counts 25/60 of itself
        board = Game("cooper", " ".join(text)).board()
        for depth in (1, 2):
            compiled.new_game()
            plain.new_game()
            fast = compiled.search(board, Limits(depth=depth))
            slow = plain.search(board, Limits(depth=depth))
            assert abs(fast.score - slow.score) <= 1, (" ".join(text), depth)
            checked += 1
    assert checked >= 6


def test_a_position_too_big_for_the_compiled_buffers_is_searched_in_python() -> None:
    game = Game("cooper")
    searcher = Searcher(game.rules, compiled=True)
    compiled = searcher._compiled
    assert compiled is not None
    compiled.buffers = np.zeros((FRAMES, 4, fb.MOVE_WIDTH), np.int64)  # room for 4 moves
    assert compiled.search(game.board(), Limits(depth=2)) is None
    result = searcher.search(game.board(), Limits(depth=2))
    plain = Searcher(game.rules, compiled=False).search(game.board(), Limits(depth=2))
    assert (result.move, result.score) == (plain.move, plain.score)


def test_the_compiled_search_reports_a_principal_variation_of_legal_moves() -> None:
    game = Game("sackson")
    for text in ("d2-d3", "f8-f7", "e1-d2"):
        game.push(text)
    result = Searcher(game.rules, compiled=True).search(game.board(), Limits(depth=6))
    assert result.pv[0] == result.move
    line = game.copy()
    for move in result.pv:
        assert move in line.legal_moves
        line.push(move)


def test_the_compiled_cache_is_keyed_by_every_source_the_compiled_code_reads() -> None:
    # numba checks only each function's own file; a change to an imported module must still
    # compile afresh, so every bluegray module the compiled modules import is in the digest.
    package = Path(compiled_cache.__file__).resolve().parent.parent
    for name in ("engine/fastboard.py", "engine/fasteval.py", "engine/fastsearch.py"):
        assert name in compiled_cache.SOURCES
        for module in _bluegray_imports(package / name):
            if module != "bluegray.engine.compiled_cache":
                path = module.removeprefix("bluegray.").replace(".", "/") + ".py"
                assert path in compiled_cache.SOURCES, (name, module)
    assert vars(numba.config)["CACHE_DIR"] == str(compiled_cache.cache_folder())
    assert compiled_cache.cache_folder().name == f"bluegray-{compiled_cache.source_digest()}"


def test_stale_cache_folders_of_other_sources_are_removed_and_nothing_else(tmp_path: Path) -> None:
    current = tmp_path / "bluegray-current"
    stale = tmp_path / "bluegray-old"
    recent = tmp_path / "bluegray-other-version-in-use"
    unrelated = tmp_path / "someone-elses"
    for folder in (current, stale, recent, unrelated):
        (folder / "index").mkdir(parents=True)
    long_ago = time.time() - (compiled_cache.STALE_AFTER_DAYS + 1) * 86400
    for folder in (current, stale, unrelated):
        os.utime(folder, (long_ago, long_ago))
    removed = compiled_cache.prune_stale_folders(current)
    assert removed == [stale]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (current, recent, unrelated)
    )


def test_using_the_cache_marks_its_folder_as_recent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba.config, "CACHE_DIR", vars(numba.config)["CACHE_DIR"])
    folder = compiled_cache.cache_folder()
    folder.mkdir()
    os.utime(folder, (0, 0))
    compiled_cache.use_source_keyed_cache()
    assert folder.stat().st_mtime > time.time() - 60


def _bluegray_imports(path: Path) -> list[str]:
    """The package's modules a source file imports (``from bluegray import bitboard`` names
    ``bluegray.bitboard``)."""
    modules = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bluegray"):
            if node.module in ("bluegray", "bluegray.engine"):
                modules += [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                modules.append(str(node.module))
    return modules


def test_the_compiled_functions_leave_numbas_runtime_out_where_numba_allows() -> None:
    # This numba lists the option, so the engine is compiled without reference counting; a
    # numba that dropped it would compile the same functions with the runtime, not fail.
    from numba.core.options import DefaultOptions

    assert compiled_cache.without_runtime(DefaultOptions) == {"_nrt": False}

    class WithoutTheOption:
        nopython = True

    assert compiled_cache.without_runtime(WithoutTheOption) == {}
    dispatcher: Any = fb.generate  # typed as the function it compiles
    assert dispatcher.targetoptions.get("_nrt") is False
