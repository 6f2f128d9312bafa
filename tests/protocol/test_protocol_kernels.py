"""A fresh install's engine answers at once while its compiled kernel compiles, and both kernels
say the same through the engine."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from bluegray import Game, Move
from bluegray.engine.search import SEARCH_ENVIRONMENT
from tests.protocol.engine_session import COMPILING, TIMEOUT, EngineSession, processes_running

# -- ready at once, and the same search with either kernel ----------------------------------------


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process table from /proc")
def test_a_fresh_install_answers_at_once_while_the_compiled_kernel_compiles(
    tmp_path: Path,
) -> None:
    # No numba cache anywhere: the engine answers readyok at once, a level-3 move comes from the
    # plain kernel (the compiled one is compiling in another process meanwhile), a timed level
    # answers within its time (and a second's grace), and quit ends the compiling process too.
    cache = tmp_path / "numba"
    environment = {
        **os.environ,
        "NUMBA_CACHE_DIR": str(cache),
        "HOME": str(tmp_path / "home"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    environment.pop(SEARCH_ENVIRONMENT, None)
    session = EngineSession(environment)
    try:
        started = time.monotonic()
        session.send("bgi")
        session.until("bgiok")
        session.send("setoption name Level value 3", "position rules cooper startpos moves d2-d3")
        assert session.ready() == []
        infos, best = session.go("go")
        assert time.monotonic() - started < 10  # at once, however loaded the machine
        game = Game("cooper")
        game.push("d2-d3")
        assert Move.parse(best) in game.legal_moves
        assert [info.depth for info in infos] == [3]
        assert session.kernels == ["kernel python: the compiled kernel is still compiling"]
        assert processes_running("bluegray.engine.precompile", cache)
        session.send("setoption name Level value 7")  # 0.3 seconds a move
        moved = time.monotonic()
        _, best = session.go("go")
        assert time.monotonic() - moved < 0.3 + 1.0
        assert session.kernels[-1] == "kernel python: the compiled kernel is still compiling"
        assert session.quit() == 0
    finally:
        if session.process.poll() is None:
            session.process.kill()
            session.process.wait(TIMEOUT)
    assert processes_running("bluegray.engine.precompile", cache) == []


def search_lines(kernel: str, rules: str, moves: str, depths: range) -> list[list[str]]:
    """What ``bluegray engine`` says at ``go depth N`` for each depth, and at levels 2 and 5,
    searched by ``kernel``: its info lines without time and speed (which vary), and the
    bestmove."""
    session = EngineSession({**os.environ, SEARCH_ENVIRONMENT: kernel})
    said = []
    try:
        for depth in depths:
            session.send("newgame", f"position rules {rules} startpos moves {moves}")
            session.send(f"go depth {depth}")
            lines = session.until("bestmove", COMPILING)
            assert lines[-2].startswith(f"info string kernel {kernel}")
            said.append([_without_time(line) for line in lines if "info string" not in line])
        for level in (2, 5):  # the weaker levels score every root move, and may slip (seeded)
            session.send(f"setoption name Level value {level}")
            session.send("newgame", f"position rules {rules} startpos moves {moves}", "go")
            lines = session.until("bestmove", COMPILING)
            said.append([_without_time(line) for line in lines if "info string" not in line])
        assert session.quit() == 0
    finally:
        if session.process.poll() is None:
            session.process.kill()
    return said


def _without_time(line: str) -> str:
    words = line.split()
    for key in ("time", "nps"):
        if key in words[:-1] and not line.startswith("bestmove"):
            index = words.index(key)
            words[index + 1] = "*"
    return " ".join(words)


@pytest.mark.parametrize(
    ("rules", "moves"), [("sackson", "d2-d3 f8-f7 e1-d2"), ("classic-turbo", "e2-e3 c8-c7")]
)
def test_both_kernels_say_the_same_through_the_engine(rules: str, moves: str) -> None:
    plain = search_lines("python", rules, moves, range(1, 6))
    compiled = search_lines("compiled", rules, moves, range(1, 6))
    assert plain == compiled
    # Each depth's line, then bestmove; a weaker level's one line, then bestmove.
    assert [len(lines) for lines in plain] == [2, 3, 4, 5, 6, 2, 2]
