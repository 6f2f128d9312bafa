"""The numba-compiled core against the rules core and the plain search: the same moves, hashes
and game ends on random games, the conformance perft counts, the same evaluation, the same
scores where both searches are exact."""

from __future__ import annotations

import ast
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numba")  # the compiled engine: skipped without numba (in CI, a failure)

import numba
import numpy as np
from numba.core.options import DefaultOptions

from bluegray import Game, Position, bitboard
from bluegray.bitboard import Board
from bluegray.engine.compiled import board as fb
from bluegray.engine.compiled import cache, compiler
from bluegray.engine.compiled import moves as fm
from bluegray.engine.compiled.evaluation import compiled_evaluation, evaluate
from bluegray.engine.evaluation import FEATURES, Evaluator, linear_value, weights_for
from bluegray.engine.limits import Limits
from bluegray.engine.records import COUNT, HISTORY_LENGTH, MOVE_TAKEN, MOVE_WIDTH, UndoRecord
from bluegray.engine.search import Searcher
from bluegray.rules import PRESETS
from tests.paths import CONFORMANCE, SHARED_CONFORMANCE


def perft_vectors() -> list[dict[str, object]]:
    for folder in (SHARED_CONFORMANCE, CONFORMANCE):
        path = folder / "perft.jsonl"
        if path.exists():
            return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    raise AssertionError("no perft.jsonl among the conformance vectors")


def compiled_moves(board: Board) -> list[bitboard.RawMove]:
    """The compiled generator's moves as the rules core's raw moves, in its order."""
    return [record.raw() for record in fm.legal_moves(board)]


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
    assert (fm.perft(position.board(), depth) if depth else 1) == expected


@pytest.mark.parametrize("rules", PRESETS)
def test_the_compiled_board_follows_the_rules_core(rules: str) -> None:
    # The same moves in the same order (the kernels search the same tree only so), the same
    # hashes, counts and game ends after each, and every move taken back exactly.
    for game in random_games(rules, 3, seed=len(rules)):
        board = game.board()
        assert compiled_moves(board) == board.moves(), str(game.position)
        if not board.moves():
            continue
        fast = fb.compiled_board(board, 2)
        rules_arrays = fb.compiled_rules(board.tables)
        out = np.zeros((fm.MAX_MOVES, MOVE_WIDTH), np.int64)
        n = fm.generate_moves(fast.cells, fast.state, rules_arrays, out, fm.capture_stack())
        cells_before = fast.cells.copy()
        state_before = fast.state.copy()
        for row, raw in zip(out[:n], board.moves(), strict=True):
            fb.make(
                fast.cells, fast.state, fast.history, fast.undo, row, fb.ZOBRIST, fb.ZOBRIST_GRAY
            )
            undone = UndoRecord.from_row(fast.undo[0].tolist(), int(row[MOVE_TAKEN]))
            assert (undone.frm, undone.to, undone.previous_count) == (raw[0], raw[1], board.count)
            board.push(raw)
            length = fast.state[HISTORY_LENGTH]
            assert int(fast.history[length - 1]) == board.hash
            assert int(fast.state[COUNT]) == board.count
            code = fb.end_by_move(
                fast.state, fast.history, rules_arrays.switches, rules_arrays.advancement
            )
            assert code == board.end_by_move()
            board.pop()
            fb.unmake(fast.cells, fast.state, fast.undo, row)
            assert np.array_equal(fast.cells, cells_before)
            assert np.array_equal(fast.state, state_before)


@pytest.mark.parametrize("rules", PRESETS)
def test_the_evaluation_is_one_number_three_ways(rules: str) -> None:
    # The definition (the weights' dot product with the features), the fast Python evaluation
    # and the compiled one: exactly equal, with every feature given a weight so that a slip in
    # any of them shows.
    rng = random.Random(rules)
    weights = weights_for(PRESETS[rules])
    for name in FEATURES:
        weights[name] = weights[name] or rng.uniform(-40, 40)
    evaluator = Evaluator(PRESETS[rules], weights)
    scoring = compiled_evaluation(evaluator)
    checked = 0
    for game in random_games(rules, 2, seed=7):
        if game.is_over():
            continue
        board = game.board()
        fast = fb.compiled_board(board, 1)
        value = evaluator.evaluate(board)
        assert value == linear_value(evaluator.vector, board), str(game.position)
        compiled = evaluate(fast.cells, fast.state, fb.compiled_rules(board.tables), scoring)
        assert compiled == value, str(game.position)
        checked += 1
    assert checked > 20


def test_a_capture_round_a_circle_either_way_is_two_moves_to_both_kernels() -> None:
    # a1xa3xc3xc1xa1 and a1xc1xc3xa3xa1 start, end and take alike; the compiled search once
    # told them apart only by those, so the weaker levels' root scores lost one of them.
    game = Game("sackson", "4c4/9/9/9/9/9/1g7/g1g6/Gg2C4 b 0 1")
    assert sorted(str(move) for move in game.legal_moves) == ["a1xa3xc3xc1xa1", "a1xc1xc3xa3xa1"]
    assert compiled_moves(game.board()) == game.board().moves()
    compiled = Searcher(game.rules, compiled=True)
    plain = Searcher(game.rules, compiled=False)
    for depth in (1, 2):
        fast = compiled.root_scores(game.board(), depth)
        slow = plain.root_scores(game.board(), depth)
        assert fast == slow
        assert sorted(str(move) for move, _ in fast) == sorted(map(str, game.legal_moves))
    assert compiled.search(game.board(), Limits(depth=3)).move in game.legal_moves


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
    # compile afresh, so every bluegray module the compiled modules import is in the digest
    # (the compiled functions read their constants, and compile some of their functions).
    package = Path(cache.__file__).resolve().parent.parent.parent
    compiled_modules = sorted((package / "engine" / "compiled").glob("*.py"))
    assert len(compiled_modules) >= 10
    for path in compiled_modules:
        name = path.relative_to(package).as_posix()
        assert name in cache.sources()
        for module in _bluegray_imports(path):
            file = module.removeprefix("bluegray.").replace(".", "/")
            assert f"{file}.py" in cache.sources() or f"{file}/__init__.py" in cache.sources(), (
                name,
                module,
            )
    assert vars(numba.config)["CACHE_DIR"] == str(cache.cache_folder())
    assert cache.cache_folder().name == f"bluegray-{cache.source_digest()}"


KEY_PROBE = """
import builtins, json, sys
from pathlib import Path

edges = {}
real_import = builtins.__import__


def recording_import(name, globals=None, locals=None, fromlist=(), level=0):
    module = real_import(name, globals, locals, fromlist, level)
    importer = (globals or {}).get("__name__", "")
    if level == 0 and importer.startswith("bluegray") and name.startswith("bluegray"):
        named = [f"{name}.{item}" for item in fromlist or ()]
        targets = [n for n in named if n in sys.modules] if named else [name]
        if named and len(targets) < len(named):
            targets.append(name)
        edges.setdefault(importer, set()).update(targets)
    return module


builtins.__import__ = recording_import
from bluegray.engine.compiled import cache

package = Path(cache.__file__).resolve().parent.parent.parent
roots = [f"bluegray.engine.compiled.{p.stem}" for p in (package / "engine" / "compiled").glob("*.py")]
for root in roots:
    __import__(root)
seen, waiting = set(), list(roots)
while waiting:
    name = waiting.pop()
    if name not in seen:
        seen.add(name)
        waiting += sorted(edges.get(name, ()))
files = {Path(sys.modules[n].__file__).resolve().relative_to(package).as_posix() for n in seen}
print(json.dumps([sorted(files - set(cache.sources())), sorted(set(cache.sources()) - files)]))
"""


def test_the_cache_key_is_what_the_compiled_code_imports_when_it_loads() -> None:
    # Watched as the modules load (every import statement they run, recorded by the importer)
    # rather than read from their sources: the key holds every module the compiled modules
    # import, directly or through each other, and nothing else.
    answer = subprocess.run(
        [sys.executable, "-c", KEY_PROBE], capture_output=True, text=True, timeout=300, check=True
    )
    missing, extra = json.loads(answer.stdout.strip().splitlines()[-1])
    assert missing == [], "imported by the compiled code but not in the cache key"
    assert extra == [], "in the cache key but never imported"


def test_a_module_the_compiled_code_starts_to_import_joins_the_key(tmp_path: Path) -> None:
    # The key is computed from the imports: a compiled module that starts to read the plain
    # rules' tables brings them (and what they import) into the key with no list to edit.
    source = tmp_path / "new_kernel.py"
    source.write_text("from bluegray.rule_tables import RuleTables\nfrom bluegray import steps\n")
    found = {path.name for path in cache.imported_files(source)}
    assert found == {"rule_tables.py", "steps.py"}
    source.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from bluegray import svg\n"
    )
    assert cache.imported_files(source) == set()


def test_stale_cache_folders_of_other_sources_are_removed_and_nothing_else(tmp_path: Path) -> None:
    current = tmp_path / "bluegray-current"
    stale = tmp_path / "bluegray-old"
    recent = tmp_path / "bluegray-other-version-in-use"
    unrelated = tmp_path / "someone-elses"
    for folder in (current, stale, recent, unrelated):
        (folder / "index").mkdir(parents=True)
    long_ago = time.time() - (cache.STALE_AFTER_DAYS + 1) * 86400
    for folder in (current, stale, unrelated):
        os.utime(folder, (long_ago, long_ago))
    removed = cache.prune_stale_folders(current)
    assert removed == [stale]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (current, recent, unrelated)
    )


def test_using_the_cache_marks_its_folder_as_recent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(numba.config, "CACHE_DIR", vars(numba.config)["CACHE_DIR"])
    folder = cache.cache_folder()
    folder.mkdir()
    os.utime(folder, (0, 0))
    compiler.use_source_keyed_cache()
    assert folder.stat().st_mtime > time.time() - 60


def _bluegray_imports(path: Path) -> list[str]:
    """The package's modules a source file imports (``from bluegray import bitboard`` names
    ``bluegray.bitboard``)."""
    modules = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bluegray"):
            if node.module in ("bluegray", "bluegray.engine", "bluegray.engine.compiled"):
                modules += [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                modules.append(str(node.module))
    return modules


def test_the_compiled_functions_leave_numbas_runtime_out_where_numba_allows() -> None:
    # This numba lists the option, so the engine is compiled without reference counting; a
    # numba that dropped it would compile the same functions with the runtime, not fail.
    assert compiler.without_runtime(DefaultOptions) == {"_nrt": False}

    class WithoutTheOption:
        nopython = True

    assert compiler.without_runtime(WithoutTheOption) == {}
    dispatcher: Any = fm.generate  # typed as the function it compiles
    assert dispatcher.targetoptions.get("_nrt") is False


STREAM_PROBE = """
import sys

import ray  # noqa: F401 - ray puts its own colorama on sys.path, as the full suite's collection does

import colorama  # noqa: F401 - importable now: numba would colour its messages with it

from bluegray.engine.compiled import compiler  # noqa: F401 - loads numba as the engine does
from numba.core.errors import TypingError


class Stream:
    touched = False
    closed = False

    def isatty(self):
        Stream.touched = True
        return False

    def write(self, text):
        return len(text)

    def flush(self):
        pass


real, sys.stdout = sys.stdout, Stream()
TypingError("an error met while typing, as numba meets many while it compiles")
touched, sys.stdout = sys.stdout.touched, real
print("touched" if touched else "untouched")
"""


def test_compiling_never_touches_the_process_s_output_streams() -> None:
    # numba colours its error messages with colorama where colorama can be imported (ray brings
    # its own): each error it makes while typing, even one it catches, wraps sys.stdout and puts
    # back the stream it found. Compiling in the background thread (readiness), that put back
    # a stream the main thread had replaced meanwhile: pytest's capsys lost a test's output
    # (the intermittent empty output of tests/cli/test_cli.py::test_show and test_help_teaches).
    pytest.importorskip("ray")
    result = subprocess.run(
        [sys.executable, "-c", STREAM_PROBE], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "untouched"


def test_the_cache_folder_holds_when_numba_was_imported_first() -> None:
    """numba re-reads its settings from the environment at a compile when a ``NUMBA_*`` variable
    changed since it was imported, which resets a cache folder set in code: importing numba
    before the engine (as the suite's numba-only modules do) must not send the engine's
    compiled code to numba's default cache."""
    script = (
        "import numba, json\n"
        "from bluegray.engine.compiled import cache, evaluation  # noqa: F401\n"
        "numba.njit(cache=False)(lambda x: x + 1)(1)  # a compile: numba checks its environment\n"
        "print(json.dumps([numba.config.CACHE_DIR, str(cache.cache_folder())]))\n"
    )
    # As a fresh process finds it: no NUMBA_ variable the engine sets (this process has them).
    env = {name: value for name, value in os.environ.items() if not name.startswith("NUMBA_")}
    answer = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
        env=env,
    )
    used, wanted = json.loads(answer.stdout.strip().splitlines()[-1])
    assert used == wanted
