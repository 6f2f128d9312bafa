"""Reading a bad record: each mistake a clear error naming its game and line, numbers out of
bounds in tags refused, and reading time in proportion to the text, however it is shaped."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bluegray import Game, Side, Termination
from bluegray.errors import InvalidRecordError
from bluegray.outcome import Outcome
from bluegray.record import (
    GameRecord,
    read_record,
    read_records,
    write_record,
    write_records,
)


def _one_move() -> Game:
    game = Game("sackson")
    game.push("d2-d3")
    return game


# -- reading errors ---------------------------------------------------------------------------

CENTER_TAGS = '[Position "4c4/9/9/3C5/9/9/9/9/9 b 0 1"]\n'  # 1. d6-e5 wins

ERRORS = [
    # result tokens
    ("1. d2-d3 2-0", "game 1, line 1: unknown result token '2-0'"),
    ("1. d2-d3 1/2", "unknown result token '1/2'"),
    ('[Result "won"]\n*', "line 1: unknown result 'won' in the Result tag"),
    ('[Result "1-0"]\n\n1. d2-d3 *', "line 3: result token '*' differs from the Result tag '1-0'"),
    ("1. d2-d3\n\n", "line 1: the game has no result token"),
    ("1. d2-d3 * 1. e2-e3", "game 2, line 1: the game has no result token"),
    # tags
    ('[Event "x]\n*', "malformed tag line '[Event \"x]': the value has no closing"),
    ("[Event x]\n*", "malformed tag line '[Event x]': expected a space and a \"quoted value\""),
    ('[Event "x"\n*', "malformed tag line '[Event \"x\"': expected ']'"),
    ('["x"]\n*', 'malformed tag line \'["x"]\': expected [Name "value"]'),
    ('[Event "a\\nb"]\n*', "malformed tag line '[Event \"a\\\\nb\"]': unknown escape '\\n'"),
    ('[Event "a"]\n[Event "b"]\n*', 'line 2: tag [Event "b"] given twice (first on line 1)'),
    ('[Date "yesterday"]\n*', "line 1: invalid Date 'yesterday'"),
    ('1. d2-d3\n[Event "x"]\n*', 'line 2: tag [Event "x"] after the move text'),
    ("1-0 {late}", "game 2, line 1: a comment after the result token of game 1"),
    ('* {late}\n[Event "x"] *', "game 2, line 1: a comment after the result token of game 1"),
    ("1. d2-d3 } *", "'}' without a '{' before it, in '1. d2-d3 } *'"),
    ("1. d2-d3 {open *", "unterminated comment '{open *'"),
    # rule sets and positions
    ('[Rules "chess"]\n*', "line 1: Rules tag 'chess': unknown rule set 'chess'"),
    ('[Rules "cooper lead=x"]\n*', "Rules tag 'cooper lead=x': invalid value 'x'"),
    ('[Position "9/9 b 0 1"]\n*', "Position tag '9/9 b 0 1' under sackson: invalid position"),
    (
        '[Rules "pow-classic"]\n[Position "ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 1"]\n*',
        "line 2: Position tag 'ggggcgggg/ggggggggg/9/9/9/9/9/GGGGGGGGG/GGGGCGGGG b 0 1' under "
        "pow-classic: invalid position",
    ),
    # move numbers and moves
    ("2. d2-d3 *", "move number '2.' does not match the position: Blue is to move, so the number"),
    ("1... d2-d3 *", "move number '1...' does not match the position"),
    ("1. d2-d3 2. f8-f7 *", "move number '2.' does not match the position: Gray is to move"),
    ("01. d2-d3 *", "move number '01.' does not match"),
    ("1. 1. d2-d3 *", "move number '1.' is not followed by a move"),
    ("1. d2-d3 1... *", "move number '1...' is not followed by a move"),
    ("1. d2-d3 e5 *", "move 1... 'e5' is not move text: invalid move 'e5'"),
    ("1. d2-d3 $1 *", "move 1... '$1' is not move text"),
    (
        "1. d2-d3 f8-f7\n2. d3-d5 *",
        "line 2: move 2. 'd3-d5' is illegal: illegal move 'd3-d5' in ",
    ),
    ("1. d2-d3 d3-d4 *", "move 1... 'd3-d4' is illegal: illegal move 'd3-d4' in"),
    (
        CENTER_TAGS + "1. d6-e5 e9-f8 1-0",
        "move 1... 'e9-f8' comes after the end of the game (Blue wins: captain reached",
    ),
    # results and terminations that contradict the moves
    (CENTER_TAGS + "1. d6-e5 *", "result '*' contradicts the moves: the game is over by the rules"),
    (CENTER_TAGS + "1. d6-e5 0-1", "result '0-1' contradicts the moves"),
    (
        CENTER_TAGS + '[Termination "lead"]\n1. d6-e5 1-0',
        "line 2: Termination 'lead' contradicts the moves: the game ended by 'center'",
    ),
    (
        CENTER_TAGS + '[Termination "resign"]\n1. d6-e5 1-0',
        "Termination 'resign' contradicts the moves",
    ),
    ('[Termination "center"]\n1. d2-d3 1-0', "Termination 'center' contradicts the moves: the"),
    ('[Termination "resign"]\n1. d2-d3 1/2-1/2', "Termination 'resign' with the draw 1/2-1/2"),
    ('[Termination "time"]\n1. d2-d3 *', "Termination 'time' for an unfinished game"),
    ('[Termination "bored"]\n*', "unknown termination 'bored' in the Termination tag"),
]


@pytest.mark.parametrize(("text", "fragment"), ERRORS)
def test_reading_errors(text: str, fragment: str) -> None:
    with pytest.raises(InvalidRecordError) as info:
        list(read_records(text))
    assert fragment in str(info.value)
    assert str(info.value).startswith("game ")


def test_read_record_wants_exactly_one_game() -> None:
    with pytest.raises(InvalidRecordError, match="no game record"):
        read_record("  \n")
    with pytest.raises(InvalidRecordError, match="more than one game record"):
        read_record("* *")


def test_errors_name_the_game_and_line() -> None:
    good = write_record(GameRecord.from_game(_one_move()))
    text = good + "\n" + good.replace("d2-d3", "d2-d5")
    records = read_records(text)
    assert next(records).game.moves == _one_move().moves
    with pytest.raises(InvalidRecordError, match=r"^game 2, line 19: move 1\. 'd2-d5' is illegal"):
        next(records)


def test_docs_example_round_trips() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "records.md").read_text("utf-8")
    example = doc.split("## Example", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    records = list(read_records(example))
    assert len(records) == 2
    assert write_records(records) == example
    assert records[0].game.outcome() == Outcome(Termination.LEAD, Side.BLUE)
    assert records[1].game.outcome() == Outcome(Termination.RESIGN, Side.BLUE)


# -- reading costs time in proportion to the text ------------------------------------------------


def test_comments_are_joined_once_so_reading_them_is_linear(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Joining each comment to those before it as it came made n comments cost n² characters
    (16,000 comments took 14 s). Counted, not timed: every comment is tidied once."""
    import bluegray.game_record as game_record_module
    import bluegray.record_reader as record_module

    tidied: list[int] = []
    tidy = game_record_module.normal_comment

    def counting(text: str) -> str:
        tidied.append(len(text))
        return tidy(text)

    monkeypatch.setattr(record_module, "normal_comment", counting)
    text = "{a}" * 2000 + " 1. d2-d3 " + "{b}" * 2000 + " *"
    record = read_record(text)
    assert record.comments == {0: " ".join("a" * 2000), 1: " ".join("b" * 2000)}
    assert sum(tidied) <= 2 * len(text)


def test_a_tag_line_is_looked_up_only_for_an_error_message(monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding the line around every tag read a long line once per tag on it."""
    import bluegray.record_reader as record_module

    looked_up: list[int] = []
    line_at = record_module._line_at

    def counting(text: str, i: int) -> str:
        looked_up.append(i)
        return line_at(text, i)

    monkeypatch.setattr(record_module, "_line_at", counting)
    record = read_record("".join(f'[T{i} "x"]' for i in range(1000)) + " *")
    assert len(record.tags) == 1000 and looked_up == []
    with pytest.raises(InvalidRecordError, match="malformed tag line"):
        read_record('[T "x"] [U x] *')
    assert looked_up


def _seconds_to_read(text: str) -> float:
    """The least of five readings' times: the least is the one least disturbed by other work."""
    times = []
    for _ in range(5):
        started = time.perf_counter()
        with contextlib.suppress(InvalidRecordError):
            read_record(text)
        times.append(time.perf_counter() - started)
    return min(times)


@pytest.mark.parametrize(
    "shape",
    [
        pytest.param(lambda n: "{a}" * n + " *", id="comments"),
        pytest.param(
            lambda n: "".join(f'[T{i} "x"]' for i in range(n)) + " *", id="tags on a line"
        ),
        pytest.param(lambda n: "-" * (8 * n) + "a *", id="a long word that is no move"),
        pytest.param(lambda n: "1-" * (4 * n) + " *", id="a long word like a result"),
        pytest.param(lambda n: "{" + "a" * (8 * n), id="an unterminated comment"),
    ],
)
def test_reading_time_grows_in_proportion_to_the_text(shape: Callable[[int], str]) -> None:
    """Eight times the text may take at most 24 times as long: linear reading takes about 8,
    quadratic 64. A ratio measured in one run, not a speed target, with room for noise."""
    small, large = shape(2000), shape(16000)
    _seconds_to_read(small)  # warm up
    ratio = _seconds_to_read(large) / max(_seconds_to_read(small), 1e-6)
    assert ratio < 24, f"8 times the text took {ratio:.0f} times as long"


@pytest.mark.parametrize(
    ("tag", "message"),
    [
        pytest.param(
            '[Rules "sackson impasse-plies=' + "9" * 5000 + '"]',
            "Rules tag 'sackson impasse-plies=",
            id="5000-digit impasse-plies",
        ),
        ('[Rules "cooper lead=' + "9" * 30 + '"]', "expected none or a whole number from 1 to 17"),
        pytest.param(
            '[Position "4c4/9/9/9/9/9/9/9/4C4 b ' + "9" * 5000 + ' 1"]',
            "no-progress count",
            id="5000-digit count",
        ),
        ('[Position "4c4/9/9/9/9/9/9/9/4C4 b 0 ' + "9" * 30 + '"]', "from 1 to 999999999"),
    ],
)
def test_numbers_out_of_bounds_in_tags_are_record_errors(tag: str, message: str) -> None:
    with pytest.raises(InvalidRecordError, match="game 1, line 1: ") as raised:
        read_record(tag + "\n\n*\n")
    assert message in str(raised.value) and len(str(raised.value)) < 1000
