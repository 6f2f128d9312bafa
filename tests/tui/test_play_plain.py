"""``bluegray play --plain`` driven through a pipe as a script would, and the ``Session`` that it
shares with the full-screen app (undo, stale engine replies, clocks)."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bluegray import Game, Side
from bluegray.record import read_record
from bluegray.tui.clock import Clock, InvalidClockError, TimeControl, format_time
from bluegray.tui.session import Seats, Session, SessionError

NEAR_END = "4c4/9/3C5/9/9/9/9/9/8g b 0 1"
"""Blue's captain three steps from the centre (d7, e7, d6, e5); Gray far away on e9 and i1."""

TIMEOUT = 30


def play(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bluegray", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def lines_with(output: str, keyword: str) -> list[str]:
    prefix = f"{keyword}: "
    return [line[len(prefix) :] for line in output.splitlines() if line.startswith(prefix)]


def assert_protocol(output: str) -> None:
    """Every line is a board line (starting with a space) or 'keyword: text'."""
    for line in output.splitlines():
        keyword, colon, _ = line.partition(":")
        assert line.startswith(" ") or (colon and keyword.isalpha()), line


class Player:
    """A running ``bluegray play --plain`` with its output read line by line."""

    def __init__(self, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bluegray", "play", "--plain", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def until(self, *keywords: str) -> list[str]:
        """The lines up to and including the first that starts with one of the keywords."""
        got = []
        while True:
            line = self.lines.get(timeout=TIMEOUT)
            assert line is not None, f"output ended early after {self.seen[-5:]}"
            got.append(line)
            self.seen.append(line)
            if line.startswith(tuple(f"{keyword}:" for keyword in keywords)):
                return got

    def close(self) -> tuple[int, str]:
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=TIMEOUT)
        assert self.process.stderr is not None
        return code, self.process.stderr.read()


# -- whole games through a pipe -----------------------------------------------------------------


def test_hotseat_game_to_the_end() -> None:
    moves = ["d7-e7", "i1-i2", "e7-d6", "i2-i1", "d6-e5"]
    result = play("--hotseat", "--position", NEAR_END, stdin="\n".join(moves) + "\n")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert_protocol(result.stdout)
    assert lines_with(result.stdout, "players") == ["blue: you, gray: you (hot seat)"]
    sides = ["blue", "gray"] * 3
    assert lines_with(result.stdout, "move") == [
        f"{side} {move}" for side, move in zip(sides, moves, strict=False)
    ]
    assert lines_with(result.stdout, "turn") == ["blue", "gray", "blue", "gray", "blue"]
    assert lines_with(result.stdout, "result") == ["1-0 Blue wins: captain reached the centre"]
    assert lines_with(result.stdout, "ai") == []
    # The last board shows Blue's captain on the centre.
    assert " 5 + + + . C . + + + 5" in result.stdout


def test_against_level_1_answering_from_the_output() -> None:
    player = Player("--level", "1", "--position", NEAR_END)
    mirror = Game("sackson", NEAR_END)
    player.until("turn")
    for _ in range(5):
        player.send("moves")
        (line,) = player.until("moves")
        legal = line.removeprefix("moves: ").split()
        assert legal == [str(move) for move in mirror.legal_moves]
        player.send(legal[0])
        reply = player.until("turn", "result")
        assert reply[0] == f"move: blue {legal[0]}"
        mirror.push(legal[0])
        if reply[-1].startswith("result:"):
            break
        ai = [line for line in reply if line.startswith("ai: ")]
        assert len(ai) == 1
        side, move = ai[0].removeprefix("ai: ").split()
        assert side == "gray"
        mirror.push(move)  # the engine's move is legal in our copy of the game
        position = next(line for line in reply if line.startswith("position: "))
        assert position == f"position: {mirror.position}"
    assert player.seen[-1] == "result: 1-0 Blue wins: captain reached the centre"
    assert mirror.outcome() is not None
    code, errors = player.close()
    assert code == 0
    assert errors == ""


def test_the_engine_moves_first_when_you_play_gray() -> None:
    result = play("--level", "1", "--colour", "gray", stdin="")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    ai = [index for index, line in enumerate(lines) if line.startswith("ai: blue ")]
    turn = [index for index, line in enumerate(lines) if line.startswith("turn: ")]
    assert len(ai) == 1
    assert turn and ai[0] < turn[0]
    assert lines[turn[0]] == "turn: gray"
    assert Game().is_legal(lines[ai[0]].split()[-1])


# -- bad input, undo, hint, save and load ----------------------------------------------------------


def test_illegal_input_is_one_error_line_and_the_game_goes_on() -> None:
    script = ["e1-e9", "nonsense", "d7-d9x", "save", "d7-e7"]
    result = play("--hotseat", "--position", NEAR_END, stdin="\n".join(script) + "\n")
    assert result.returncode == 0
    assert "Traceback" not in result.stderr
    errors = lines_with(result.stdout, "error")
    assert len(errors) == 4
    assert errors[0].startswith("illegal move 'e1-e9'")
    assert errors[1].startswith("unknown command 'nonsense'")
    assert errors[2].startswith("invalid move 'd7-d9x'")
    assert errors[3] == "save needs a file name: save FILE"
    assert lines_with(result.stdout, "move") == ["blue d7-e7"]
    assert lines_with(result.stdout, "turn") == ["blue", "gray"]


def test_undo_takes_back_your_move_and_the_engine_reply() -> None:
    result = play("--level", "1", stdin="d2-d3\nundo\nundo\n")
    assert result.returncode == 0
    (ai,) = lines_with(result.stdout, "ai")
    assert lines_with(result.stdout, "undo") == [f"d2-d3 {ai.split()[-1]}"]
    assert lines_with(result.stdout, "error") == ["there is no move of yours to take back"]
    positions = lines_with(result.stdout, "position")
    assert positions[0] == positions[-1] == str(Game().position)
    assert len(positions) == 3


def test_a_resignation_ends_the_game_and_undo_cannot_take_it_back() -> None:
    result = play("--level", "1", stdin="d2-d3\nresign\nundo\n")
    assert result.returncode == 0
    assert lines_with(result.stdout, "result") == ["0-1 Gray wins: resignation"]
    assert lines_with(result.stdout, "error") == ["the game ended by resignation: start a new game"]
    assert lines_with(result.stdout, "undo") == []


def test_hint_and_moves() -> None:
    result = play("--hotseat", "--rules", "cooper", stdin="moves\nhint\n")
    assert result.returncode == 0
    (moves,) = lines_with(result.stdout, "moves")
    (hint,) = lines_with(result.stdout, "hint")
    assert moves.split() == [str(move) for move in Game("cooper").legal_moves]
    assert hint in moves.split()


def test_save_then_load(tmp_path: Path) -> None:
    record_file = tmp_path / "game.txt"
    moves = ["d7-e7", "i1-i2"]
    script = [*moves, f"save {record_file}", "resign", f"save {tmp_path / 'missing' / 'x.txt'}"]
    result = play("--hotseat", "--position", NEAR_END, stdin="\n".join(script) + "\n")
    assert result.returncode == 0
    assert lines_with(result.stdout, "saved") == [str(record_file)]
    (error,) = lines_with(result.stdout, "error")
    assert error.startswith("cannot write ")
    assert lines_with(result.stdout, "result") == ["0-1 Gray wins: resignation"]
    record = read_record(record_file.read_text(encoding="utf-8"))
    assert [str(move) for move in record.game.moves] == moves
    assert str(record.game.start) == NEAR_END
    assert record.tags["Event"] == "bluegray play"

    loaded = play("--hotseat", "--load", str(record_file), stdin="e7-d6\n")
    assert loaded.returncode == 0
    positions = lines_with(loaded.stdout, "position")
    assert positions[0] == str(record.game.position)
    assert lines_with(loaded.stdout, "move") == ["blue e7-d6"]

    again = play("--hotseat", stdin=f"load {record_file}\nload {tmp_path / 'none.txt'}\n")
    assert lines_with(again.stdout, "loaded") == [str(record_file)]
    assert lines_with(again.stdout, "position")[-1] == str(record.game.position)
    (error,) = lines_with(again.stdout, "error")
    assert error.startswith("cannot read ") and "none.txt" in error


def test_a_clock_that_runs_out_ends_the_game() -> None:
    player = Player("--hotseat", "--clock", "0.002")  # 0.12 seconds each
    first = player.until("turn")
    assert any(line.startswith("clock: blue 0:00.") for line in first)
    assert any(line.endswith("gray 0:00.1") for line in first)
    time.sleep(0.3)  # Blue's 0.12 s run out in the real process (the scenario)
    player.send("d2-d3")
    lines = player.until("result")
    assert lines[0].startswith("error: illegal move 'd2-d3': the game is over")
    assert lines[-1] == "result: 0-1 Gray wins: time ran out"
    code, _ = player.close()
    assert code == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--level", "9"], "--level must be one of 1-8, not '9'"),
        (["--level", "\u00b2"], "--level must be one of 1-8, not '\u00b2'"),
        (["--clock", "five"], "invalid clock 'five': expected MINUTES[+INCREMENT]"),
        (["--colour", "red"], "--colour must be blue or gray, not 'red'"),
        (["--hotseat", "--level", "2"], "--level and --hotseat do not go together"),
        (["--rules", "chess"], "chess"),
        (["--load", "/nonexistent/game.txt"], "cannot read /nonexistent/game.txt"),
        (["--position", "9/9 b 0 1"], "invalid position"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = play("--plain", *args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("bluegray: error: ")
    assert message in lines[0]


def test_help_documents_the_protocol() -> None:
    result = play("--help")
    assert result.returncode == 0
    for keyword in ("move:", "ai:", "error:", "result:", "turn:", "--hotseat", "--clock"):
        assert keyword in result.stdout


# -- the session both modes share ----------------------------------------------------------------


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_session_drops_an_engine_reply_made_stale_by_undo() -> None:
    session = Session(Game(), Seats(1, Side.BLUE), seed=1)
    session.play("d2-d3")
    request = session.engine_request()
    assert request is not None
    reply = session.think(request)
    session.undo()
    assert session.apply(request, reply) is False
    assert session.game.moves == []
    with pytest.raises(SessionError, match="no move of yours"):
        session.undo()


def test_session_undo_after_a_resignation_is_refused_and_changes_nothing() -> None:
    session = Session(Game(), Seats(None))
    session.play("d2-d3")
    outcome = session.resign()
    with pytest.raises(SessionError, match="ended by resignation: start a new game"):
        session.undo()
    assert session.outcome() == outcome and len(session.game.moves) == 1


def test_session_refuses_a_move_on_the_engine_turn() -> None:
    session = Session(Game(), Seats(1, Side.GRAY), seed=1)
    assert session.engine_to_move()
    with pytest.raises(SessionError, match="wait for the engine"):
        session.play("d2-d3")
    move = session.engine_move()
    assert move is not None
    assert session.game.moves == [move]
    assert not session.engine_to_move()


def test_session_clock_charges_the_mover_and_adds_the_increment() -> None:
    fake = FakeTime()
    session = Session(Game(), Seats(None), TimeControl(1, 5), now=fake)
    clock = session.clock
    assert clock is not None
    fake.now += 10
    session.play("d2-d3")
    assert clock.remaining(Side.BLUE) == pytest.approx(55.0)
    assert clock.running is Side.GRAY
    fake.now += 61
    outcome = session.outcome()
    assert outcome is not None and outcome.describe() == "Blue wins: time ran out"
    with pytest.raises(SessionError, match="ended on time"):
        session.undo()


def test_session_records_captures_and_numbers_moves() -> None:
    game = Game("sackson", "4c4/9/9/9/9/9/1g7/1G7/4C4 b 0 7")
    session = Session(game, Seats(None))
    session.play("b2xb4")
    assert session.captured(Side.GRAY)[0].symbol == "g"
    assert session.captured(Side.BLUE) == []
    rows = session.move_rows()
    assert [(row.number, str(row.blue), row.gray) for row in rows] == [(7, "b2xb4", None)]


def test_time_controls_parse_and_read() -> None:
    assert TimeControl.parse("3+2") == TimeControl(3, 2)
    assert str(TimeControl.parse("5")) == "5+0"
    with pytest.raises(InvalidClockError):
        TimeControl.parse("0")
    assert format_time(65) == "1:05"
    assert format_time(9.37) == "0:09.3"
    fake = FakeTime()
    clock = Clock(TimeControl(1), now=fake)
    clock.start(Side.GRAY)
    fake.now += 59
    assert clock.flagged() is None
    fake.now += 1
    assert clock.flagged() is Side.GRAY
    assert clock.remaining(Side.BLUE) == 60
