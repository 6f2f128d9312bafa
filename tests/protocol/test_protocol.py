"""The engine protocol: ``bluegray engine`` run as a real process and spoken to line by line, the
client and ``EnginePlayer``, and the value types both ends share. Every read has a timeout, so a
hung engine fails a test instead of hanging it."""

from __future__ import annotations

import os
import queue
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

import pytest

from bluegray import Game, Move, Position, RuleSet
from bluegray.engine.limits import WIN, Limits
from bluegray.engine.match import MatchSettings, play_game, run_match
from bluegray.engine.players import InvalidPlayerError, RandomPlayer, player_from_spec
from bluegray.engine.search import SEARCH_ENVIRONMENT
from bluegray.engine.time_manager import Clock, MoveTime, allocate
from bluegray.pieces import Side
from bluegray.protocol import Go, Info, Limit, Option, PositionCommand, ProtocolError, Score
from bluegray.protocol.client import (
    Engine,
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
)
from bluegray.protocol.player import EnginePlayer
from bluegray.protocol.server import move_time, protocol_score

ENGINE = [sys.executable, "-m", "bluegray", "engine"]
ENGINE_SPEC = "engine:" + shlex.join(ENGINE)
TIMEOUT = 60.0
"""How long to wait for an engine's answer before failing: generous, since a loaded machine (the
suite's parallel workers) can take many seconds to start a Python process; a failure only comes
later, a pass as soon as the answer does."""
COMPILING = 300.0
"""How long the first search of a compiled engine may take: numba compiles its kernel when the
cache has none (after any change to its sources), some 20 seconds idle, minutes when busy."""
WIN_IN_ONE = "9/9/9/9/9/5c3/9/9/4C3G g 0 40"  # sackson: Gray's only move f4-e5 wins
BLUE_ON_CENTRE = "4c4/9/9/9/4C4/9/9/9/9 g 0 30"  # finished: Blue's captain stands on e5
CUSTOM = "captain=turbo soldiers=private army=light lead=3 capture=maximal stalemate=loss"


def _names_the_kernel(info: Info) -> bool:
    return info.string is not None and info.string.startswith("kernel ")


class Session:
    """``bluegray engine`` as a process, with a line reader that never waits forever."""

    def __init__(self, environment: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            ENGINE,
            env=environment,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.kernels: list[str] = []
        """The ``info string kernel ...`` messages of the searches so far."""
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read_all, daemon=True).start()

    def _read_all(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines: str) -> None:
        assert self.process.stdin is not None
        for line in lines:
            self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def read(self, timeout: float = TIMEOUT) -> str:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"the engine did not answer within {timeout} s")
        assert line is not None, "the engine closed its output"
        return line

    def until(self, last: str, timeout: float = TIMEOUT) -> list[str]:
        """Lines up to and including the first that starts with ``last``."""
        deadline = time.monotonic() + timeout
        lines = [self.read(max(0.01, deadline - time.monotonic()))]
        while not lines[-1].startswith(last):
            lines.append(self.read(max(0.01, deadline - time.monotonic())))
        return lines

    def ready(self) -> list[str]:
        """``isready``: the lines the engine sent before ``readyok``."""
        self.send("isready")
        return self.until("readyok")[:-1]

    def go(self, command: str, timeout: float = TIMEOUT) -> tuple[list[Info], str]:
        """The info lines of a search (but the one that names the kernel, kept in
        ``kernels``) and its ``bestmove`` word."""
        self.send(command)
        lines = self.until("bestmove", timeout)
        infos = [Info.parse(line) for line in lines[:-1]]
        self.kernels += [info.string or "" for info in infos if _names_the_kernel(info)]
        return [info for info in infos if not _names_the_kernel(info)], lines[-1].split()[1]

    def wait_for_the_compiled_kernel(self, limit: float = 120.0) -> None:
        """Search until the compiled kernel answers (it loads in the background after the
        engine starts), so that a timed test measures the engine as it plays once warm."""
        deadline = time.monotonic() + limit
        while not self.kernels or self.kernels[-1] != "kernel compiled":
            assert time.monotonic() < deadline, self.kernels[-1:]
            self.send("position rules cooper startpos")
            self.go("go depth 1")
            time.sleep(0.1)  # poll interval: until the compiled kernel answers, up to the limit

    def lines_within(self, seconds: float) -> list[str]:
        """Whatever the engine says in the next ``seconds``."""
        deadline = time.monotonic() + seconds
        lines = []
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            assert line is not None, "the engine closed its output"
            lines.append(line)
        return lines

    def quit(self) -> int:
        self.send("quit")
        return self.process.wait(TIMEOUT)

    def stderr(self) -> str:
        assert self.process.stderr is not None
        return self.process.stderr.read()


@pytest.fixture
def engine() -> Iterator[Session]:
    session = Session()
    yield session
    if session.process.poll() is None:
        session.process.kill()
    session.process.wait(TIMEOUT)


def errors(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("info string error ")]


# -- the engine process -------------------------------------------------------------------------


def test_handshake_names_the_engine_and_its_options(engine: Session) -> None:
    engine.send("bgi")
    lines = engine.until("bgiok")
    assert lines[0].startswith("id name bluegray ")
    assert "id protocol 1" in lines
    options = {
        option.name: option
        for option in (Option.parse(line) for line in lines if line.startswith("option"))
    }
    assert set(options) == {"Level", "Hash", "MoveOverhead", "Seed"}
    level = options["Level"]
    assert (level.type, level.default, level.min, level.max) == ("spin", "8", 1, 8)
    assert options["Hash"].type == "spin" and options["Hash"].min == 1
    assert engine.ready() == []
    assert engine.quit() == 0
    assert engine.stderr() == ""


def test_go_depth_reports_each_depth_and_a_legal_move(engine: Session) -> None:
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
    engine: Session, command: str, rules: str, start: str | None, moves: list[str]
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


def test_a_position_text_is_searched_from_its_own_setup(engine: Session) -> None:
    engine.send(f"position rules sackson fen {WIN_IN_ONE}")
    infos, best = engine.go("go depth 4")
    assert best == "f4-e5"
    assert infos[-1].score == Score("win", 1)


def test_movetime_is_kept(engine: Session) -> None:
    engine.wait_for_the_compiled_kernel()
    engine.send("position rules sackson startpos")
    engine.ready()
    started = time.monotonic()
    infos, best = engine.go("go movetime 200")
    elapsed = time.monotonic() - started
    assert Move.parse(best) in Game().legal_moves
    assert elapsed < 0.2 + 0.3  # what a loaded machine adds in replying
    assert all((info.time or 0) <= 200 for info in infos)


def test_clocks_give_a_share_of_the_remaining_time(engine: Session) -> None:
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


def test_the_engine_answers_within_its_clock_move_after_move(engine: Session) -> None:
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


def test_infinite_searches_until_stop_and_stays_responsive(engine: Session) -> None:
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


def test_commands_sent_during_a_search_wait_for_its_end(engine: Session) -> None:
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


def test_infinite_waits_for_stop_even_when_the_search_is_done(engine: Session) -> None:
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
    engine: Session, subtests: pytest.Subtests
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
def test_a_bad_go_still_gets_its_bestmove(engine: Session, command: str, message: str) -> None:
    engine.send("position rules sackson startpos")
    infos, best = engine.go(command)
    assert best == "(none)"
    assert len(infos) == 1 and (infos[0].error or "").startswith(message)
    _, best = engine.go("go depth 1")
    assert Move.parse(best) in Game().legal_moves


def test_go_before_any_position(engine: Session) -> None:
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
def test_a_finished_game_has_no_best_move(engine: Session, command: str, reason: str) -> None:
    engine.send(command)
    infos, best = engine.go("go depth 3")
    assert best == "(none)"
    assert len(infos) == 1 and (infos[0].string or "").startswith(f"game over: {reason}")


def test_level_and_hash_options_change_the_search(engine: Session) -> None:
    engine.send("setoption name level value 2", "setoption name HASH value 1")
    assert engine.ready() == []
    engine.send("position rules classic startpos")
    infos, best = engine.go("go")  # level 2 sees the reply, whatever the limits
    assert [info.depth for info in infos] == [2]
    assert Move.parse(best) in Game("classic").legal_moves


def test_quit_ends_a_search_at_once_and_says_nothing_more(engine: Session) -> None:
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
    engine = Session({**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)})
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
def test_the_end_of_the_input_answers_the_last_search_and_exits(engine: Session, go: str) -> None:
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


# -- the shared value types ---------------------------------------------------------------------


def test_go_commands_round_trip() -> None:
    for text in (
        "go",
        "go depth 3",
        "go movetime 250",
        "go btime -20 gtime 900 binc 10 ginc 10 movestogo 5",
        "go nodes 500 infinite",
    ):
        assert str(Go.parse(text.split()[1:])) == text
    assert Go.from_limit(Limit(time=0.25)) == Go(movetime=250)
    assert Go.from_limit(Limit(depth=4, nodes=90)) == Go(depth=4, nodes=90)
    assert Go.from_limit(None) == Go()


def test_info_and_option_lines_round_trip() -> None:
    line = "info depth 3 seldepth 5 score loss 4 nodes 812 nps 40000 time 20 pv d2-d3 f8-f7"
    info = Info.parse(line)
    assert str(info) == line and info.score == Score("loss", 4)
    assert Info.parse("info depth 2 currmove d2-d3 nodes 7").nodes == 7  # unknown keys skipped
    assert Info.parse("info string error  two  spaces").error == " two  spaces"
    assert Info.parse("info depth 4 string deep  thought").string == "deep  thought"
    assert Info.parse("info string").string == ""
    with pytest.raises(ProtocolError, match="info 'nodes' without its value"):
        Info.parse("info nodes")
    option = Option.parse(
        "option name Skill Level type combo default Very Hard var Easy var Very Hard"
    )
    assert (option.name, option.default, option.vars) == (
        "Skill Level",
        "Very Hard",
        ("Easy", "Very Hard"),
    )
    assert Option.parse(str(option)) == option


@pytest.mark.parametrize(
    "line",
    [
        "info depth 1 string x",
        "info depth 3 score cp -7 pv d2-d3 f8-f7 string two  spaces kept",
        "info nodes 9223372036854775807 string",
        "info pv d2-d3",
    ],
)
def test_info_lines_print_back_as_they_were_read(line: str) -> None:
    info = Info.parse(line)
    assert str(info) == line and Info.parse(str(info)) == info


@pytest.mark.parametrize(
    "read",
    [
        lambda: Go.parse(["nodes", "9223372036854775808"]),
        lambda: Go.parse(["depth", "9" * 5000]),
        lambda: Info.parse("info nodes " + "9" * 5000),
        lambda: Info.parse("info time 9223372036854775808"),
        lambda: Info.parse("info score cp -" + "9" * 5000),
        lambda: Option.parse("option name X type spin default 1 min 0 max " + "9" * 5000),
        lambda: PositionCommand.parse(["rules", "sackson", "impasse-plies=" + "9" * 5000]),
        lambda: PositionCommand.parse(
            ["rules", "cooper", "fen", "4c4/9/9/9/9/9/9/9/4C4", "b", "9" * 5000, "1"]
        ),
    ],
)
def test_numbers_beyond_their_bounds_are_protocol_errors(read: Callable[[], object]) -> None:
    """Every number of the protocol fits a signed 64-bit integer (the rules' numbers less):
    a larger one, or one too long for Python to convert, is the protocol's own error."""
    with pytest.raises(ProtocolError, match=r"must be|expected"):
        read()


def test_position_commands_round_trip() -> None:
    game = Game(CUSTOM, "4c4/ppppppppp/9/9/9/9/P8/1PPPPPPPP/4C4 g 0 1")
    game.push_all(["a8-a7", "b2-b3"])
    command = PositionCommand.from_game(game)
    text = str(command)
    assert text.startswith(f"position rules {game.rules} fen ")
    assert PositionCommand.parse(text.split()[1:]) == command
    assert command.game().position == game.position
    assert str(PositionCommand.from_game(Game("cooper"))) == "position rules cooper startpos"


def test_scores_say_who_wins_in_how_many_plies() -> None:
    assert protocol_score(35) == Score("cp", 35)
    assert protocol_score(WIN - 3) == Score("win", 3)
    assert protocol_score(-(WIN - 4)) == Score("loss", 4)
    assert Score("cp", 0).expected == 0.5 and Score("win", 3).expected == 1.0


def test_go_with_clocks_asks_the_time_manager_for_the_movers_clock() -> None:
    cooper = RuleSet.parse("cooper")
    blue = move_time(Go(btime=30000, gtime=3000, binc=1000), Side.BLUE, 50, ply=10, rules=cooper)
    assert blue == allocate(Clock(30.0, 1.0), ply=10, rules=cooper, overhead=0.05)
    gray = move_time(Go(btime=30000, gtime=3000, binc=1000), Side.GRAY, 50, ply=10, rules=cooper)
    assert gray == allocate(Clock(3.0, 0.0), ply=10, rules=cooper, overhead=0.05)
    last = move_time(Go(btime=600, movestogo=1), Side.BLUE, 50)
    assert last is not None  # the last move before the control: all but the margin
    assert last.soft == pytest.approx(0.55) and last.hard == pytest.approx(0.55)
    assert move_time(Go(btime=-10), Side.BLUE, 50) == MoveTime(0.01, 0.01)  # the floor
    both = move_time(Go(movetime=100, btime=60000), Side.BLUE, 50)
    assert both is not None and both.hard == pytest.approx(0.1) and both.soft <= 0.1
    assert move_time(Go(movetime=300, gtime=3000), Side.BLUE, 50) == MoveTime(0.3, 0.3)
    assert move_time(Go(depth=5), Side.BLUE, 50) is None


# -- the client ---------------------------------------------------------------------------------


def test_engine_client_reports_rejected_commands() -> None:
    with Engine(ENGINE) as client:
        assert client.name.startswith("bluegray") and client.protocol == 1
        assert client.option("level") is not None
        client.position(Game("cooper"))
        with pytest.raises(EngineError, match="illegal move 'd2-d5'"):
            client.position(PositionCommand(RuleSet.parse("cooper"), None, (Move.parse("d2-d5"),)))
        with pytest.raises(EngineError, match="Level must be 1 to 8"):
            client.set_option("Level", 0)
        with pytest.raises(EngineError, match="has no option 'Colour'"):
            client.set_option("Colour", "blue")
        client.position(Game("cooper"))
        result = client.go(Go(infinite=True), stop_after=0.2)
        assert result.move in Game("cooper").legal_moves and result.last is not None
        assert client.close() == 0


def test_engine_player_plays_legal_moves() -> None:
    player = player_from_spec(ENGINE_SPEC + ";level=5;timeout=20", seed=3)
    assert isinstance(player, EnginePlayer)
    assert player.spec == ENGINE_SPEC + ";level=5;timeout=20"
    opponent = RandomPlayer(1)
    try:
        game = Game("super")
        player.new_game(game.rules)
        for ply in range(8):
            mover = player if ply % 2 == 0 else opponent
            move = mover.choose(game, Limits(depth=2))
            assert move in game.legal_moves
            game.push(move)
        assert player.last_result is not None and player.last_result.last is not None
        assert player.last_result.last.depth == 5  # level 5 searches five plies, whatever asked
    finally:
        player.close()
    assert player.engine.returncode == 0


def test_a_match_between_two_engine_processes() -> None:
    spec_a = ENGINE_SPEC + ";level=8"
    spec_b = ENGINE_SPEC + ";level=4"
    settings = MatchSettings(
        player_a=spec_a,
        player_b=spec_b,
        rules=RuleSet.parse("cooper"),
        games=2,
        limits=Limits(nodes=300),
        max_plies=60,
    )
    summary = run_match(settings)
    assert summary.stats.games == 2
    first, second = (match_game.result for match_game in summary.games)
    assert (first.blue, first.gray) == (spec_a, spec_b)
    assert (second.blue, second.gray) == (spec_b, spec_a)
    for result in (first, second):
        assert result.plies > len(result.opening)
        result.game()  # replays every move: all legal


def test_play_game_with_engine_players_from_a_position_with_history() -> None:
    blue = EnginePlayer(ENGINE, options={"Level": 6})
    gray = EnginePlayer(ENGINE, options={"Level": 3})
    try:
        result = play_game(blue, gray, "classic-light", ["e2-e3"], Limits(depth=1), max_plies=12)
    finally:
        blue.close()
        gray.close()
    assert result.opening == (Move.parse("e2-e3"),)
    assert (result.blue, result.gray) == ("engine:" + shlex.join(ENGINE),) * 2
    assert 1 < result.plies <= 12
    assert result.game().moves == list(result.moves)  # every move replays: all legal


FAKE_HANDSHAKE = "id name fake\noption name Threads type spin default 1 min 1 max 4"

FAKE_ENGINE = """
import sys
for line in sys.stdin:
    word = line.split()[0] if line.split() else ""
    if word == "bgi":
        print({handshake!r}, "bgiok", sep="\\n", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "go":
        {on_go}
"""


def fake_engine(tmp_path: Path, on_go: str, handshake: str = FAKE_HANDSHAKE) -> list[str]:
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE_ENGINE.format(on_go=on_go, handshake=handshake), encoding="utf-8")
    return [sys.executable, str(script)]


def test_an_engine_that_dies_mid_game_is_a_clear_error(tmp_path: Path) -> None:
    command = fake_engine(tmp_path, 'print("out of cheese", file=sys.stderr); sys.exit(7)')
    player = EnginePlayer(command, options={"threads": 2})  # another engine's option, any case
    try:
        with pytest.raises(EngineTerminatedError, match=r"exited with code 7.*out of cheese"):
            player.choose(Game(), Limits(depth=1))
    finally:
        player.close()


def test_an_engine_that_plays_an_illegal_move_is_caught(tmp_path: Path) -> None:
    player = EnginePlayer(fake_engine(tmp_path, 'print("bestmove e1-e5", flush=True)'))
    try:
        with pytest.raises(EngineError, match="illegal move 'e1-e5'"):
            player.choose(Game(), None)
    finally:
        player.close()


def test_an_engine_that_does_not_answer_times_out(tmp_path: Path) -> None:
    player = EnginePlayer(fake_engine(tmp_path, "pass"), timeout=0.3)
    try:
        started = time.monotonic()
        with pytest.raises(EngineTimeoutError, match="did not answer 'go depth 1' in time"):
            player.choose(Game(), Limits(depth=1))
        assert time.monotonic() - started < 2.0
    finally:
        player.close()
    with pytest.raises(EngineTimeoutError, match="did not answer 'bgi'"):
        # the engine that never answers 'bgi' (the fault)
        Engine([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.3)


@pytest.mark.parametrize("protocol", ["\u00b2", "9" * 5000], ids=["superscript", "5000 digits"])
def test_the_client_reads_numbers_it_cannot_use_as_no_number(tmp_path: Path, protocol: str) -> None:
    """A protocol version of a superscript digit or of 5,000 digits is no version, and an info
    line with a number too long to convert is skipped: the game goes on."""
    replies = f"info nodes {'9' * 5000}\ninfo depth 1 string x\nbestmove d2-d3"
    command = fake_engine(
        tmp_path, f"print({replies!r}, flush=True)", f"id name odd\nid protocol {protocol}"
    )
    with Engine(command) as client:
        assert client.name == "odd" and client.protocol is None
        result = client.go(Go(depth=1))
        assert result.move == Move.parse("d2-d3")
        assert result.infos == (Info(depth=1, string="x"),)


def test_the_client_waits_out_a_move_time_of_any_length() -> None:
    """A ``movetime`` of 2**63 - 1 ms is longer than one wait of the platform's clock may be."""
    with Engine(ENGINE) as client:
        client.position(Game("cooper"))
        result = client.go(Go(depth=1, movetime=2**63 - 1))
        assert result.move in Game("cooper").legal_moves


def test_an_engine_that_cannot_start_is_a_clear_error() -> None:
    with pytest.raises(EngineError, match="cannot start engine 'no-such-engine-here'"):
        player_from_spec("engine:no-such-engine-here")
    with pytest.raises(EngineTerminatedError, match="exited with code 3"):
        Engine([sys.executable, "-c", "import sys; sys.exit(3)"])


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("engine:", "no engine command"),
        ("engine:  ;level=3", "no engine command"),
        (ENGINE_SPEC + ";level", "expected NAME=VALUE"),
        (ENGINE_SPEC + ";timeout=soon", "timeout must be a positive number"),
        ("engine:'unclosed", "No closing quotation"),
    ],
)
def test_bad_engine_specs(spec: str, message: str) -> None:
    with pytest.raises(InvalidPlayerError, match=message):
        player_from_spec(spec)


def test_an_engine_spec_with_an_option_the_engine_rejects() -> None:
    with pytest.raises(EngineError, match="Level must be 1 to 8, not 9"):
        player_from_spec(ENGINE_SPEC + ";level=9")


# -- ready at once, and the same search with either kernel ----------------------------------------


def processes_running(module: str, cache: Path) -> list[int]:
    """The processes of ``python -m module`` whose numba cache is ``cache`` (this machine's, read
    from /proc): the compiling process an engine started, if it still runs."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            environment = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue  # gone meanwhile, or another user's
        if module.encode() in command and f"NUMBA_CACHE_DIR={cache}".encode() in environment:
            found.append(int(entry.name))
    return found


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
    session = Session(environment)
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
    session = Session({**os.environ, SEARCH_ENVIRONMENT: kernel})
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
