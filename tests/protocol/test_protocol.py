"""The engine protocol's server: ``bluegray engine`` run as a real process and spoken to line by
line (``engine_session.EngineSession``): the handshake, positions, searches and their limits, clocks,
``stop`` and ``quit``, and malformed commands answered without changing anything."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Final

import pytest

from bluegray import Game, Move, Position, RuleSet
from bluegray.pieces import Side
from bluegray.protocol import Go, Option, PositionCommand, Score
from bluegray.protocol.server import move_time
from tests.protocol.engine_session import (
    BLUE_ON_CENTRE,
    CUSTOM,
    TIMEOUT,
    WIN_IN_ONE,
    EngineSession,
    errors,
)

# -- the engine process -------------------------------------------------------------------------


def test_handshake_names_the_engine_and_its_options(engine: EngineSession) -> None:
    engine.send("bgi")
    lines = engine.until("bgiok")
    assert lines[0].startswith("id name bluegray ")
    assert "id protocol 1" in lines
    options = {
        option.name: option
        for option in (Option.parse(line) for line in lines if line.startswith("option"))
    }
    assert set(options) == {"Level", "Hash", "MoveOverhead", "Seed", "EvalFile"}
    assert (options["EvalFile"].type, options["EvalFile"].default) == ("string", "shipped")
    level = options["Level"]
    assert (level.type, level.default, level.min, level.max) == ("spin", "8", 1, 8)
    assert options["Hash"].type == "spin" and options["Hash"].min == 1
    assert engine.ready() == []
    assert engine.quit() == 0
    assert engine.stderr() == ""


def test_go_depth_reports_each_depth_and_a_legal_move(engine: EngineSession) -> None:
    engine.send("position rules cooper startpos")
    infos, best = engine.go("go depth 3")
    assert [info.depth for info in infos] == [1, 2, 3]
    for info in infos:
        assert info.score is not None and info.score.kind == "cp"
        assert info.nodes is not None and info.nodes > 0
        assert info.nps is not None and info.time is not None and info.seldepth is not None
        assert info.pv and info.pv[0] in Game("cooper").legal_moves
    assert [info.nodes for info in infos] == sorted(info.nodes or 0 for info in infos)
    assert Move.parse(best) in Game("cooper").legal_moves
    assert infos[-1].pv[0] == Move.parse(best)


@pytest.mark.parametrize(
    ("command", "rules", "start", "moves"),
    [
        ("position rules cooper startpos moves d2-d3", "cooper", None, ["d2-d3"]),
        ("position rules super-light moves e2-e3 e8-e7", "super-light", None, ["e2-e3", "e8-e7"]),
        (
            "position rules pow-classic fen " + str(Position.start("pow-classic")),
            "pow-classic",
            str(Position.start("pow-classic")),
            [],
        ),
        (f"position rules {CUSTOM} startpos moves a2-a3", CUSTOM, None, ["a2-a3"]),
        (
            f"position rules {CUSTOM} fen 4c4/9/ppp1ppppp/9/9/9/PPPPP1PPP/9/4C4 b 0 5 moves a3-a4",
            CUSTOM,
            "4c4/9/ppp1ppppp/9/9/9/PPPPP1PPP/9/4C4 b 0 5",
            ["a3-a4"],
        ),
        (
            "position   rules  cooper  impasse-plies=50   moves d2-d3",
            "cooper impasse-plies=50",
            None,
            ["d2-d3"],
        ),
    ],
)
def test_position_sets_up_the_rules_start_and_moves(
    engine: EngineSession, command: str, rules: str, start: str | None, moves: list[str]
) -> None:
    game = Game(rules, start)
    game.push_all(moves)
    engine.send(command)
    assert engine.ready() == []
    infos, best = engine.go("go depth 2")
    assert infos and Move.parse(best) in game.legal_moves
    # The move is the side to move's: it would not be legal before the last move.
    if moves:
        game.pop()
        assert Move.parse(best) not in game.legal_moves


def test_a_position_text_is_searched_from_its_own_setup(engine: EngineSession) -> None:
    engine.send(f"position rules sackson fen {WIN_IN_ONE}")
    infos, best = engine.go("go depth 4")
    assert best == "f4-e5"
    assert infos[-1].score == Score("win", 1)


@pytest.mark.compiled_kernel
def test_movetime_is_kept(engine: EngineSession) -> None:
    engine.wait_for_the_compiled_kernel()
    engine.send("position rules sackson startpos")
    engine.ready()
    started = time.monotonic()
    infos, best = engine.go("go movetime 200")
    elapsed = time.monotonic() - started
    assert Move.parse(best) in Game().legal_moves
    assert elapsed < 0.2 + 0.3  # what a loaded machine adds in replying
    assert all((info.time or 0) <= 200 for info in infos)


@pytest.mark.compiled_kernel
def test_clocks_give_a_share_of_the_remaining_time(engine: EngineSession) -> None:
    engine.wait_for_the_compiled_kernel()
    engine.send("position rules cooper startpos moves d2-d3")
    assert engine.ready() == []
    go = Go(btime=600_000, gtime=3_000, binc=0, ginc=0)
    allowed = move_time(go, Side.GRAY, 50, ply=1, rules=RuleSet.parse("cooper"))
    assert allowed is not None and allowed.hard < 0.1  # Gray's clock, not Blue's
    started = time.monotonic()
    _, best = engine.go(str(go))
    assert time.monotonic() - started < allowed.hard + 0.3  # what a loaded machine adds
    game = Game("cooper")
    game.push("d2-d3")
    assert Move.parse(best) in game.legal_moves


@pytest.mark.compiled_kernel
def test_the_engine_answers_within_its_clock_move_after_move(engine: EngineSession) -> None:
    """A short game on a clock, the engine playing both sides through ``go btime gtime binc
    ginc``: each answer comes within the hard time the time manager gave it, and within what
    is left on the mover's clock."""
    engine.wait_for_the_compiled_kernel()
    game = Game("sackson")
    left = {Side.BLUE: 2.0, Side.GRAY: 2.0}
    increment = 0.05
    for _ in range(12):
        engine.send(str(PositionCommand.from_game(game)))
        engine.ready()
        go = Go(
            btime=round(left[Side.BLUE] * 1000),
            gtime=round(left[Side.GRAY] * 1000),
            binc=round(increment * 1000),
            ginc=round(increment * 1000),
        )
        allowed = move_time(go, game.turn, 50, ply=game.ply, rules=game.rules)
        assert allowed is not None
        started = time.monotonic()
        _, best = engine.go(str(go))
        spent = time.monotonic() - started
        assert spent < allowed.hard + 0.3  # what a loaded machine adds in replying
        left[game.turn] -= spent
        assert left[game.turn] > 0, "the engine lost on time"
        left[game.turn] += increment
        game.push(Move.parse(best))
        if game.outcome() is not None:
            break


def test_infinite_searches_until_stop_and_stays_responsive(engine: EngineSession) -> None:
    engine.send("position rules sackson startpos")
    assert engine.ready() == []  # the engine is up, however loaded the machine
    engine.send("go infinite")
    said = engine.until("info depth") + engine.lines_within(0.3)
    assert all(line.startswith("info depth") for line in said)
    started = time.monotonic()
    assert all(line.startswith("info depth") for line in engine.ready())  # answered at once
    assert time.monotonic() - started < 1.0
    # Commands that must wait for the end of a search that only stop ends are refused.
    engine.send("position rules cooper startpos", "go depth 1", "setoption name Level value 3")
    busy = [line for line in engine.ready() if not line.startswith("info depth")]
    assert len(busy) == 3
    assert all("'go infinite' is running; send 'stop' first" in line for line in busy)
    started = time.monotonic()
    engine.send("stop", "position rules cooper startpos moves d2-d3", "go depth 1")
    lines = engine.until("bestmove", timeout=2.0)
    assert time.monotonic() - started < 1.0
    assert Move.parse(lines[-1].split()[1]) in Game().legal_moves
    # What follows stop waits for the search to end, and is not refused.
    lines = engine.until("bestmove")
    assert errors(lines) == []
    game = Game("cooper")
    game.push("d2-d3")
    assert Move.parse(lines[-1].split()[1]) in game.legal_moves
    assert engine.lines_within(0.2) == []  # exactly one bestmove each
    assert engine.quit() == 0


def test_commands_sent_during_a_search_wait_for_its_end(engine: EngineSession) -> None:
    engine.send(
        "position rules cooper startpos",
        "go depth 4",
        "position rules cooper startpos moves d2-d3",
        "setoption name Level value 1",
        "go nodes 500",
    )
    lines = engine.until("bestmove")
    lines += engine.until("bestmove")
    assert errors(lines) == []
    first, second = (line.split()[1] for line in lines if line.startswith("bestmove"))
    game = Game("cooper")
    assert Move.parse(first) in game.legal_moves
    game.push("d2-d3")
    assert Move.parse(second) in game.legal_moves
    assert [line.split()[2] for line in lines if line.startswith("info depth")][-1] == "1"


def test_infinite_waits_for_stop_even_when_the_search_is_done(engine: EngineSession) -> None:
    engine.send(f"position rules sackson fen {WIN_IN_ONE}")
    assert engine.ready() == []
    engine.send("go infinite")
    said = engine.until("info depth") + engine.lines_within(0.5)
    assert not any(line.startswith("bestmove") for line in said)
    engine.send("stop")
    assert engine.until("bestmove")[-1] == "bestmove f4-e5"


MALFORMED: Final[list[tuple[str, str]]] = [
    ("fly away", "unknown command 'fly'"),
    ("position startpos", "expected 'rules <rule set>' first"),
    ("position rules", "'rules' needs a rule set"),
    ("position rules nonsense", "unknown rule set 'nonsense'"),
    ("position rules captain=rocket", "invalid value 'rocket' for rule-set setting 'captain'"),
    ("position rules cooper fen 9/9 b 0 1", "invalid position"),
    ("position rules cooper fen ggggcgggg/ggggggggg b 0", "needs the four fields"),
    ("position rules cooper startpos moves d2-d5", "illegal move 'd2-d5'"),
    ("position rules cooper moves d2-d3 d3", "invalid move"),
    ("position rules cooper startpos sideways", "expected 'startpos', 'fen' or 'moves'"),
    ("setoption name Level value 9", "Level must be 1 to 8, not 9"),
    ("setoption name Level value high", "must be a whole number, not 'high'"),
    ("setoption name Colour value blue", "unknown option 'Colour'"),
    ("setoption name Hash", "needs 'value <number>'"),
    ("setoption Hash 16", "expected 'setoption name <name> value <value>'"),
    ("setoption name Seed value " + "9" * 5000, "not a number of 5,000 digits"),
    ("position rules sackson impasse-plies=" + "9" * 30, "from 1 to 1000"),
    ("position rules cooper fen 4c4/9/9/9/9/9/9/9/4C4 b 0 " + "9" * 5000, "move number"),
]
"""Malformed commands and the error each is answered with."""


def test_malformed_commands_are_answered_and_change_nothing(
    engine: EngineSession, subtests: pytest.Subtests
) -> None:
    # One engine answers them all, one after another (each from a position set afresh): an
    # engine process costs more than a second of a core to start.
    for command, message in MALFORMED:
        with subtests.test(command=command[:60]):
            engine.send("position rules cooper startpos moves d2-d3")
            assert engine.ready() == []
            engine.send(command)
            reply = engine.ready()
            assert len(reply) == 1 and reply[0].startswith("info string error ")
            assert message in reply[0]
            if not command.startswith("position"):
                # Any other rejected command leaves the engine as it was, its position too.
                _, best = engine.go("go depth 1")
                game = Game("cooper")
                game.push("d2-d3")
                assert Move.parse(best) in game.legal_moves
            else:
                # A rejected position leaves none, so that no stale position is searched.
                infos, best = engine.go("go depth 1")
                assert best == "(none)"
                assert [info.error for info in infos if info.error] == [
                    "go: no position; send 'position rules <rule set> ...' first"
                ]
    assert engine.quit() == 0
    assert engine.stderr() == ""


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("go depth x", "go depth must be a whole number, not 'x'"),
        ("go depth 0", "go depth must be at least 1, not 0"),
        ("go movetime -5", "go movetime must be at least 1, not -5"),
        ("go nodes", "go: 'nodes' needs a number"),
        ("go depth 2 depth 3", "go: 'depth' given twice"),
        ("go quickly", "go: unknown parameter 'quickly'"),
        ("go nodes 9223372036854775808", "go nodes must be at most 9223372036854775807, not"),
        pytest.param(
            "go movetime " + "9" * 5000,
            "go movetime must be at most 9223372036854775807",
            id="5000-digit movetime",
        ),
        ("go btime -" + "9" * 30, "go btime must be at least -9223372036854775807"),
    ],
)
def test_a_bad_go_still_gets_its_bestmove(
    engine: EngineSession, command: str, message: str
) -> None:
    engine.send("position rules sackson startpos")
    infos, best = engine.go(command)
    assert best == "(none)"
    assert len(infos) == 1 and (infos[0].error or "").startswith(message)
    _, best = engine.go("go depth 1")
    assert Move.parse(best) in Game().legal_moves


def test_go_before_any_position(engine: EngineSession) -> None:
    infos, best = engine.go("go depth 1")
    assert best == "(none)"
    assert infos[0].error is not None and "no position" in infos[0].error


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        (f"position rules sackson fen {BLUE_ON_CENTRE}", "Blue wins: captain reached the centre"),
        (f"position rules sackson fen {WIN_IN_ONE} moves f4-e5", "Gray wins: captain reached"),
    ],
)
def test_a_finished_game_has_no_best_move(engine: EngineSession, command: str, reason: str) -> None:
    engine.send(command)
    infos, best = engine.go("go depth 3")
    assert best == "(none)"
    assert len(infos) == 1 and (infos[0].string or "").startswith(f"game over: {reason}")


def test_level_and_hash_options_change_the_search(engine: EngineSession) -> None:
    engine.send("setoption name level value 2", "setoption name HASH value 1")
    assert engine.ready() == []
    engine.send("position rules classic startpos")
    infos, best = engine.go("go")  # level 2 sees the reply, whatever the limits
    assert [info.depth for info in infos] == [2]
    assert Move.parse(best) in Game("classic").legal_moves


def test_quit_ends_a_search_at_once_and_says_nothing_more(engine: EngineSession) -> None:
    engine.send("position rules sackson startpos")
    assert engine.ready() == []
    engine.send("go infinite")
    assert engine.until("info depth")
    started = time.monotonic()
    assert engine.quit() == 0
    assert time.monotonic() - started < 2.0
    assert not any(line and line.startswith("bestmove") for line in iter(engine.lines.get, None))


def test_quit_does_not_wait_for_the_compiled_core_to_load(tmp_path: Path) -> None:
    """A search that has just begun is still loading the compiled core (seconds under load, and
    a first run compiles it: fifteen seconds and more) and cannot see ``stop`` until it has;
    ``quit`` must not wait for it. An empty numba cache makes the load a compile, so a quit that
    waited would take far longer than the bound, which only catches such a hang."""
    engine = EngineSession({**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
    try:
        engine.send("bgi")
        engine.until("bgiok")  # started: what follows is the quit's time, not the start's
        engine.send("position rules cooper startpos", "go depth 2")
        time.sleep(0.5)  # the search thread is under way
        started = time.monotonic()
        engine.send("quit")
        try:
            code = engine.process.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            code = None
        waited = time.monotonic() - started
    finally:
        engine.process.kill()
        engine.process.wait(TIMEOUT)
    assert code == 0 and waited < 2.0, f"the engine took {waited:.1f} s to exit after quit"


@pytest.mark.parametrize("go", ["go depth 3", "go infinite"])
def test_the_end_of_the_input_answers_the_last_search_and_exits(
    engine: EngineSession, go: str
) -> None:
    engine.send("position rules classic-light startpos", go)
    assert engine.process.stdin is not None
    engine.process.stdin.close()
    lines = engine.until("bestmove")
    assert Move.parse(lines[-1].split()[1]) in Game("classic-light").legal_moves
    if go == "go depth 3":
        depths = [line.split()[2] for line in lines[:-1] if line.startswith("info depth")]
        assert depths == ["1", "2", "3"]
        assert lines[-2].startswith("info string kernel ")
    assert engine.process.wait(TIMEOUT) == 0
