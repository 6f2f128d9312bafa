"""Game records: the written format, reading it back byte for byte, and every reading error."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bluegray import Game, Position, Side, Termination
from bluegray.errors import InvalidRecordError
from bluegray.outcome import Outcome
from bluegray.record import (
    GAME_TAGS,
    GameRecord,
    read_record,
    read_records,
    write_record,
    write_records,
)
from bluegray.rules import PRESETS, RuleSet
from tests.paths import CONFORMANCE, SHARED_CONFORMANCE

CAPTURE_START = "4c4/9/9/9/9/9/1g7/g1g6/Gg2C4 b 0 1"
CENTER_START = "4c4/9/9/3C5/9/9/9/9/9 b 0 1"
"""Blue's captain one step from the centre: ``1. d6-e5`` wins."""
GRAY_START = "ggggcgggg/ggggggggg/9/9/9/9/3G5/GGG1GGGGG/GGGGCGGGG g 1 7"


def round_trip(record: GameRecord) -> GameRecord:
    """Write a record, read it back, and check that writing that reproduces the text."""
    text = write_record(record)
    again = read_record(text)
    assert write_record(again) == text
    return again


def played(rules: str, moves: list[str], start: str | None = None) -> Game:
    game = Game(rules, start)
    game.push_all(moves)
    return game


# -- writing ----------------------------------------------------------------------------------


def test_write_short_game() -> None:
    game = played("cooper", ["d2-d3", "f8-f7", "e1-d2"])
    record = GameRecord.from_game(
        game, Event="Club night", Date="2024.03.??", Blue="Ann", Gray="Bo", Round="2"
    )
    assert write_record(record) == (
        '[Event "Club night"]\n'
        '[Site "?"]\n'
        '[Date "2024.03.??"]\n'
        '[Blue "Ann"]\n'
        '[Gray "Bo"]\n'
        '[Result "*"]\n'
        '[Rules "cooper"]\n'
        '[Round "2"]\n'
        "\n"
        "1. d2-d3 f8-f7 2. e1-d2 *\n"
    )
    assert str(record) == write_record(record)
    again = round_trip(record)
    assert again.tags == record.tags
    assert again.game.moves == game.moves


def test_roster_order_and_unknowns() -> None:
    record = GameRecord(Game(), {"Zeta": "z", "Gray": "G", "Alpha": "a", "Event": "E"})
    assert list(record.header()) == [*GAME_ROSTER, "Zeta", "Alpha"]
    assert record.header()["Site"] == "?"
    assert record.header()["Date"] == "????.??.??"
    assert write_record(record).endswith("\n\n*\n")


GAME_ROSTER = ["Event", "Site", "Date", "Blue", "Gray", "Result", "Rules"]


def test_game_tags_come_from_the_game() -> None:
    game = played("sackson", ["d2-d3"])
    game.resign()
    record = GameRecord(game, {"Result": "*", "Rules": "cooper", "Position": "x", "Note": "n"})
    header = record.header()
    assert header["Result"] == "1-0"
    assert header["Rules"] == "sackson"
    assert header["Termination"] == "resign"
    assert "Position" not in header
    assert list(header)[-2:] == ["Termination", "Note"]


def test_from_game_refuses_contradicting_game_tags() -> None:
    game = played("sackson", ["d2-d3"])
    with pytest.raises(InvalidRecordError, match=r"Result '1-0' contradicts the game.*'\*'"):
        GameRecord.from_game(game, Result="1-0")
    assert GameRecord.from_game(game, Result="*", Rules="sackson").tags["Result"] == "*"


def test_tag_values_are_escaped() -> None:
    value = 'a "quoted" \\ back\\slash ] [ {not a comment}'
    record = GameRecord.from_game(Game(), Event=value)
    text = write_record(record)
    assert '[Event "a \\"quoted\\" \\\\ back\\\\slash ] [ {not a comment}"]' in text
    assert round_trip(record).tags["Event"] == value


@pytest.mark.parametrize(
    ("tags", "fragment"),
    [
        ({"Event": "two\nlines"}, "'two\\nlines' of tag Event"),
        ({"bad name": "x"}, "invalid tag name 'bad name'"),
        ({"1st": "x"}, "invalid tag name '1st'"),
        ({"Date": "2024-01-01"}, "invalid Date '2024-01-01'"),
        ({"Date": "2024.13.??"}, "invalid Date '2024.13.??': the month"),
        ({"Date": "2023.02.29"}, "invalid Date '2023.02.29': there is no such day"),
    ],
)
def test_unwritable_tags(tags: dict[str, str], fragment: str) -> None:
    record = GameRecord(Game(), tags)
    with pytest.raises(InvalidRecordError) as info:
        write_record(record)
    assert fragment in str(info.value)


def test_unwritable_comments() -> None:
    game = played("sackson", ["d2-d3"])
    with pytest.raises(InvalidRecordError, match=r"comment 'late' stands after ply 2"):
        write_record(GameRecord(game, comments={2: "late"}))
    with pytest.raises(InvalidRecordError, match=r"invalid comment 'a}b'"):
        write_record(GameRecord(game, comments={1: "a}b"}))


def test_custom_rule_sets() -> None:
    rules = RuleSet.parse("cooper impasse-plies=50")
    record = GameRecord.from_game(played(str(rules), ["d2-d3", "f8-f7"]))
    assert record.tags["Rules"] == str(rules)
    assert str(rules).startswith("captain=standard ")
    again = round_trip(record)
    assert again.game.rules == rules
    custom = RuleSet.parse(
        "captain=turbo soldiers=private army=light start=pow lead=2 capture=free "
        "stalemate=impasse impasse=advance impasse-plies=7"
    )
    game = Game(custom)
    for _ in range(6):
        game.push(game.legal_moves[0])
    again = round_trip(GameRecord.from_game(game))
    assert again.game.rules == custom
    assert again.game.moves == game.moves
    assert "Position" not in again.tags


def test_non_start_position_with_a_circular_capture() -> None:
    game = played("sackson", ["a1xa3xc3xc1xa1"], CAPTURE_START)
    text = write_record(GameRecord.from_game(game))
    assert f'[Position "{CAPTURE_START}"]\n' in text
    assert text.endswith("\n\n1. a1xa3xc3xc1xa1 *\n")
    again = round_trip(GameRecord.from_game(game))
    assert again.game.start == Position.parse(CAPTURE_START)
    assert [str(move) for move in again.game.moves] == ["a1xa3xc3xc1xa1"]


def test_gray_to_move_start() -> None:
    game = played("sackson", ["f8-f7", "e2-e3", "e8-e7"], GRAY_START)
    record = GameRecord.from_game(game)
    assert record.movetext() == "7... f8-f7 8. e2-e3 e8-e7 *"
    again = round_trip(record)
    assert again.game.start == game.start and again.game.moves == game.moves


def test_comments_and_renumbering() -> None:
    game = played("sackson", ["d2-d3", "f8-f7", "e2-e3", "e8-e7"])
    record = GameRecord.from_game(game)
    record.comments = {0: "opening", 1: "quiet", 2: "and\n  again", 4: "last"}
    assert record.movetext() == (
        "{opening} 1. d2-d3 {quiet} 1... f8-f7 {and again} 2. e2-e3 e8-e7 {last} *"
    )
    again = round_trip(record)
    assert again.comments == {0: "opening", 1: "quiet", 2: "and again", 4: "last"}
    assert GameRecord.from_game(Game(), Event="x").movetext() == "*"
    empty = GameRecord(played("sackson", ["d2-d3"]), comments={1: ""})
    assert empty.movetext() == "1. d2-d3 {} *"
    assert round_trip(empty).comments == {1: ""}


def test_wrapping_breaks_only_at_spaces() -> None:
    rng = random.Random(7)
    game = Game("sackson")
    for _ in range(120):
        if game.is_over():
            break
        game.push(rng.choice(game.legal_moves))
    record = GameRecord.from_game(game)
    record.comments = {3: "word " * 40, 10: "x" * 100}
    text = record.movetext()
    lines = text.split("\n")
    assert len(lines) > 5
    assert all(len(line) <= 79 or " " not in line for line in lines)
    assert "{" + "x" * 100 + "}" in lines
    assert " ".join(lines) == " ".join(text.split())
    round_trip(record)


@pytest.mark.parametrize(
    ("ending", "result", "termination"),
    [
        (lambda game: game.resign(), "0-1", "resign"),
        (lambda game: game.resign(Side.GRAY), "1-0", "resign"),
        (lambda game: game.agree(), "1/2-1/2", "agreement"),
        (lambda game: game.agree(Side.BLUE), "1-0", "agreement"),
        (lambda game: game.time_out(), "0-1", "time"),
        (lambda game: game.time_out(Side.GRAY), "1-0", "time"),
    ],
)
def test_endings_outside_the_rules(ending: Any, result: str, termination: str) -> None:
    game = played("cooper", ["d2-d3", "f8-f7"])
    ending(game)
    record = GameRecord.from_game(game)
    text = write_record(record)
    assert f'[Result "{result}"]\n' in text
    assert f'[Termination "{termination}"]\n' in text
    assert text.endswith(f"1. d2-d3 f8-f7 {result}\n")
    again = round_trip(record)
    assert again.game.outcome() == game.outcome()


def test_ending_at_the_start() -> None:
    game = Game("sackson")
    game.resign()
    record = GameRecord.from_game(game)
    assert record.movetext() == "0-1"
    assert round_trip(record).game.outcome() == Outcome(Termination.RESIGN, Side.GRAY)


def test_finished_start_position() -> None:
    # Gray cannot move: under cooper that loses at once.
    game = Game("cooper", "9/9/5c3/5G3/9/9/9/9/4C4 g 0 1")
    record = GameRecord.from_game(game)
    assert record.header()["Termination"] == "stalemate"
    assert record.movetext() == "1-0"
    assert round_trip(record).game.outcome() == game.outcome()


def test_center_game() -> None:
    game = played("sackson", ["d6-e5"], CENTER_START)
    record = GameRecord.from_game(game)
    assert record.movetext() == "1. d6-e5 1-0"
    assert record.header()["Termination"] == "center"
    assert round_trip(record).game.outcome() == Outcome(Termination.CENTER, Side.BLUE)


# -- reading ----------------------------------------------------------------------------------


def test_reading_tolerates_whitespace_and_missing_numbers() -> None:
    text = write_record(GameRecord.from_game(played("sackson", ["d2-d3", "f8-f7", "e2-e3"])))
    messy = (
        '\ufeff  [Event   "?"]  [Site "?"]\r\n\r\n[ Date "????.??.??" ]\r\n'
        '[Blue "?"]\n[Gray "?"]\n[Result "*"]\n[Rules "sackson"]'
        "1.d2-d3\r\n\r\n   1...f8-f7\t e2-e3\n\n\n*   \n\n"
    )
    record = read_record(messy)
    assert write_record(record) == text
    assert write_record(read_record("d2-d3 f8-f7 e2-e3 *")) == text


def test_missing_rules_tag_means_sackson() -> None:
    record = read_record('[Event "x"]\n\n1. d2-d3 *')
    assert record.game.rules == PRESETS["sackson"]
    assert "Rules" not in record.tags
    assert record.header()["Rules"] == "sackson"


def test_rules_given_as_settings() -> None:
    record = read_record('[Rules "cooper impasse-plies=50"]\n*')
    assert record.game.rules == RuleSet.parse("cooper impasse-plies=50")


def test_decisive_result_without_termination_is_an_agreement() -> None:
    record = read_record("1. d2-d3 f8-f7 0-1")
    assert record.game.outcome() == Outcome(Termination.AGREEMENT, Side.GRAY)
    assert "Termination" not in record.tags
    assert record.header()["Termination"] == "agreement"
    drawn = read_record("1. d2-d3 1/2-1/2")
    assert drawn.game.outcome() == Outcome(Termination.AGREEMENT, None)


def test_termination_tag_names_the_ending() -> None:
    record = read_record('[Result "1-0"]\n[Termination "time"]\n1. d2-d3 f8-f7 1-0')
    assert record.game.outcome() == Outcome(Termination.TIME, Side.BLUE)
    record = read_record('[Termination "resign"]\n1. d2-d3 0-1')
    assert record.game.outcome() == Outcome(Termination.RESIGN, Side.GRAY)


def test_comments_are_read() -> None:
    record = read_record("{a\n b} 1. d2-d3 {c} {d} 1... f8-f7 {} {e}\n*")
    assert record.comments == {0: "a b", 1: "c d", 2: "e"}


def test_read_from_a_file_object() -> None:
    text = write_records(
        [GameRecord.from_game(Game()), GameRecord.from_game(played("cooper", ["d2-d3"]))]
    )
    records = list(read_records(io.StringIO(text)))
    assert len(records) == 2
    assert read_record(io.StringIO(write_record(records[1]))).game.moves == records[1].game.moves


def test_multi_game_file_round_trip() -> None:
    games = [
        played("cooper", ["d2-d3", "f8-f7"]),
        played("sackson", ["a1xa3xc3xc1xa1"], CAPTURE_START),
        played("sackson", ["f8-f7"], GRAY_START),
        played("sackson", ["d6-e5"], CENTER_START),
    ]
    records = [GameRecord.from_game(game, Event=f"game {n}") for n, game in enumerate(games)]
    records[0].comments = {1: "hello"}
    text = write_records(records)
    assert "\n\n[Event" in text and "\n\n\n" not in text
    again = list(read_records(text))
    assert [r.tags["Event"] for r in again] == [f"game {n}" for n in range(4)]
    assert [r.game.moves for r in again] == [game.moves for game in games]
    assert write_records(again) == text
    assert write_records([]) == ""
    assert list(read_records("")) == []
    assert list(read_records(" \n\n ")) == []


def _conformance_games() -> list[Any]:
    path = CONFORMANCE / "games.jsonl"
    if not path.exists():
        path = SHARED_CONFORMANCE / "games.jsonl"
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [
        pytest.param(json.loads(line), id=f"games.jsonl:{number}")
        for number, line in enumerate(lines, start=1)
        if line.strip()
    ]


CONFORMANCE_GAMES = _conformance_games()


@pytest.mark.parametrize("vector", CONFORMANCE_GAMES)
def test_conformance_game_round_trip(vector: dict[str, Any]) -> None:
    game = played(vector["rules"], vector["moves"], vector.get("start"))
    record = GameRecord.from_game(game, Event="conformance")
    again = round_trip(record)
    outcome = again.game.outcome()
    assert outcome is not None
    assert outcome.termination.value == vector["result"]["reason"]
    assert (outcome.winner and outcome.winner.value) == vector["result"]["winner"]
    assert str(again.game.position) == vector["final"]
    assert again.tags == record.header()


def test_conformance_games_as_one_file() -> None:
    records = []
    for param in CONFORMANCE_GAMES:
        vector = param.values[0]
        records.append(
            GameRecord.from_game(played(vector["rules"], vector["moves"], vector.get("start")))
        )
    text = write_records(records)
    again = list(read_records(text))
    assert len(again) == len(records)
    assert write_records(again) == text


# -- the property: any game we write reads back the same ----------------------------------------

TAG_NAMES = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,8}", fullmatch=True).filter(
    lambda name: name not in (*GAME_TAGS, "Date")
)
TAG_VALUES = st.text(st.characters(exclude_categories=["Cc", "Cs"]), max_size=30)
COMMENTS = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="}"))


@settings(max_examples=60, deadline=None)
@given(
    rules=st.sampled_from(sorted(PRESETS)),
    seed=st.integers(0, 2**32),
    plies=st.integers(0, 60),
    ending=st.sampled_from(["none", "resign", "agree", "draw", "time"]),
    tags=st.dictionaries(TAG_NAMES, TAG_VALUES, max_size=5),
    comments=st.lists(COMMENTS, max_size=4),
)
def test_random_games_round_trip(
    rules: str,
    seed: int,
    plies: int,
    ending: str,
    tags: dict[str, str],
    comments: list[str],
) -> None:
    rng = random.Random(seed)
    game = Game(rules)
    for _ in range(plies):
        if game.is_over():
            break
        game.push(rng.choice(game.legal_moves))
    if not game.is_over():
        side = rng.choice([Side.BLUE, Side.GRAY])
        if ending == "resign":
            game.resign(side)
        elif ending == "agree":
            game.agree(side)
        elif ending == "draw":
            game.agree()
        elif ending == "time":
            game.time_out(side)
    record = GameRecord.from_game(game, **tags)
    record.comments = {rng.randint(0, game.ply): text for text in comments}
    text = write_record(record)
    again = read_record(text)
    assert again.game.rules == game.rules
    assert again.game.start == game.start
    assert again.game.moves == game.moves
    assert again.game.outcome() == game.outcome()
    assert again.tags == record.tags == record.header()
    assert again.comments == {ply: " ".join(text.split()) for ply, text in record.comments.items()}
    assert write_record(again) == text
    assert all(len(line) <= 79 or " " not in line for line in record.movetext().split("\n"))
