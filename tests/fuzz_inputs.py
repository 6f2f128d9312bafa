"""The fuzz targets' inputs (tests/fuzzing.py): valid samples of each format from random games
(``corpus``), and Hypothesis strategies that mix arbitrary text with those samples and mutations
of them, so that the parsers' deeper checks are reached."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from hypothesis import strategies as st

from bluegray import Game, RuleSet
from bluegray.pieces import Side
from bluegray.protocol import PositionCommand
from bluegray.record import GameRecord, write_record
from bluegray.rules import PRESETS

# -- valid samples of each format, from random games --------------------------------------------


@dataclass(frozen=True)
class Corpus:
    """Valid texts of each format, for the strategies to use whole and to mutate."""

    rules: tuple[str, ...]
    positions: tuple[tuple[str, str], ...]
    """(position text, rule-set text)."""
    moves: tuple[str, ...]
    records: tuple[str, ...]
    commands: tuple[str, ...]
    replies: tuple[str, ...]


@cache
def corpus() -> Corpus:
    """Made once per process, from seeded random games of every preset and a few custom sets."""
    rng = random.Random(20240601)
    rule_sets = [
        *PRESETS.values(),
        RuleSet.parse("cooper impasse-plies=12"),
        RuleSet.parse("captain=turbo soldiers=private army=light lead=3 capture=maximal"),
        RuleSet.parse("super-light lead=none stalemate=impasse impasse-plies=1000"),
    ]
    positions, moves, records, commands, infos = [], [], [], [], []
    for index in range(60):
        rules = rule_sets[index % len(rule_sets)]
        game = Game(rules)
        for _ in range(rng.randrange(0, 90)):
            legal = game.legal_moves
            if not legal:
                break
            game.push(rng.choice(legal))
        moves += [str(move) for move in game.moves[-6:]]
        positions.append((str(game.position), str(rules)))
        first = rng.randrange(game.ply + 1)
        tail = Game(rules, game.positions()[first])
        tail.push_all(game.moves[first:])
        if tail.outcome() is None and rng.random() < 0.3:
            tail.resign(rng.choice([Side.BLUE, Side.GRAY]))
        record = GameRecord.from_game(tail, Event="Fuzz", Blue='A "quoted" \\ name')
        for ply in rng.sample(range(tail.ply + 1), min(3, tail.ply + 1)):
            record.comments[ply] = rng.choice(["good", "a  long\tcomment", "x" * 90, "2. d2-d3"])
        records.append(write_record(record))
        commands.append(str(PositionCommand.from_game(game)))
        infos.append(
            f"info depth {index % 9 + 1} seldepth {index % 13 + 1} score cp {rng.randrange(-900, 900)} "
            f"nodes {rng.randrange(10**7)} nps 500000 time {index * 7} pv "
            + " ".join(str(move) for move in game.moves[-5:])
        )
    commands += [
        "bgi",
        "isready",
        "newgame",
        "stop",
        "go depth 2",
        "go nodes 300",
        "go movetime 20 depth 3",
        "go btime 1000 gtime 1000 binc 10 ginc 10 movestogo 5",
        "go infinite",
        "setoption name Level value 3",
        "setoption name Seed value 7",
        "setoption name MoveOverhead value 0",
        "setoption name Hash value 1",
    ]
    replies = (
        *infos,
        "id name bluegray 0.1.0",
        "id protocol 1",
        "bgiok",
        "readyok",
        "option name Level type spin default 8 min 1 max 8",
        "option name Skill Level type combo default Very Hard var Easy var Very Hard",
        "info depth 3 seldepth 5 score cp -12 nodes 812 nps 40000 time 20 pv d2-d3 f8-f7",
        "info depth 1 score win 3 string mate soon",
        "info string error go: no position",
        "bestmove d2-d3",
        "bestmove (none)",
    )
    return Corpus(
        tuple(str(rules) for rules in rule_sets),
        tuple(positions),
        tuple(dict.fromkeys(moves)),
        tuple(records),
        tuple(commands),
        replies,
    )


# -- strategies -----------------------------------------------------------------------------------

ODD_CHARACTERS = '\u00b2\u0661\uff11\u2028\x1c\xa0\t\r\n\x00\ufeff{}[]"\\-x/½*'
"""Characters that parsers meet rarely and handle easily wrongly: digits of other scripts
(``int()`` reads some of them), whitespace that ``str.split`` splits on, control characters."""


def numbers() -> st.SearchStrategy[str]:
    """Number-like words: small, at the bounds, huge, signed, zero-padded, of other digits."""
    return st.one_of(
        st.integers(min_value=-3, max_value=2000).map(str),
        st.sampled_from(
            [
                "999999999",
                "1000000000",
                "9223372036854775807",
                "9223372036854775808",
                "-9223372036854775808",
                "9" * 30,
                "9" * 4301,
                "9" * 5000,
                "00",
                "01",
                "-0",
                "+1",
                "1e3",
                "\u00b2",
                "\u0661",
                "\uff11",
            ]
        ),
        st.text(alphabet="0123456789-", min_size=1, max_size=25),
    )


def oddities() -> st.SearchStrategy[str]:
    return st.text(
        alphabet=st.one_of(st.sampled_from(ODD_CHARACTERS), st.characters()), max_size=12
    )


@st.composite
def mutated(draw: st.DrawFn, texts: st.SearchStrategy[str]) -> str:
    """A text with a few edits: characters deleted, replaced or inserted, words swapped,
    repeated or replaced by numbers."""
    text = draw(texts)
    for _ in range(draw(st.integers(min_value=0, max_value=4))):
        kind = draw(st.sampled_from(["delete", "replace", "insert", "word"]))
        at = draw(st.integers(min_value=0, max_value=len(text)))
        if kind == "delete":
            text = text[:at] + text[at + draw(st.integers(min_value=1, max_value=4)) :]
        elif kind == "replace":
            text = text[:at] + draw(oddities()) + text[at + 1 :]
        elif kind == "insert":
            text = text[:at] + draw(st.one_of(oddities(), numbers())) + text[at:]
        else:
            words = text.split(" ")
            index = draw(st.integers(min_value=0, max_value=len(words) - 1))
            action = draw(st.sampled_from(["repeat", "number", "drop", "swap"]))
            if action == "repeat":
                words.insert(index, words[index])
            elif action == "number":
                words[index] = draw(numbers())
            elif action == "drop" and len(words) > 1:
                del words[index]
            elif action == "swap":
                other = draw(st.integers(min_value=0, max_value=len(words) - 1))
                words[index], words[other] = words[other], words[index]
            text = " ".join(words)
    return text


@st.composite
def reworded(draw: st.DrawFn, texts: st.SearchStrategy[str]) -> str:
    """A text with one or two of its words (split at spaces) replaced by a number-like word or
    odd characters: a valid text with one bad field reaches the check of that field."""
    words = draw(texts).split(" ")
    for _ in range(draw(st.integers(min_value=1, max_value=2))):
        index = draw(st.integers(min_value=0, max_value=len(words) - 1))
        words[index] = draw(st.one_of(numbers(), oddities(), st.just("")))
    return " ".join(words)


def texts(valid: Callable[[Corpus], Sequence[str]], *extra: st.SearchStrategy[str]) -> Any:
    """Arbitrary text, valid texts of the format, and variations of them: the valid texts and
    their variations weigh most, since they are what reaches the parsers' deeper checks."""
    samples = st.deferred(lambda: st.sampled_from(valid(corpus())))
    return st.one_of(
        samples,
        mutated(samples),
        reworded(samples),
        mutated(samples),
        reworded(samples),
        *extra,
        st.text(max_size=60),
    )


def rule_texts() -> Any:
    words = st.sampled_from(
        [
            *PRESETS,
            "captain=turbo",
            "soldiers=private",
            "army=light",
            "start=pow",
            "lead=none",
            "capture=maximal",
            "stalemate=loss",
            "impasse=draw",
            "lead=",
            "impasse-plies=",
            "=",
            ",",
        ]
    )
    phrases = st.lists(
        st.one_of(words, numbers(), words.flatmap(lambda w: numbers().map(w.__add__)))
    )
    return texts(lambda c: c.rules, phrases.map(" ".join))


def position_texts() -> Any:
    placements = st.lists(
        st.text(alphabet="CGPcgp123456789", max_size=10), min_size=1, max_size=10
    ).map("/".join)
    fields = st.tuples(placements, st.sampled_from(["b", "g", "w", ""]), numbers(), numbers())
    built = fields.map(" ".join)
    return texts(lambda c: [text for text, _ in c.positions], built)


def position_inputs() -> Any:
    """A position text and the rule-set text it is read under: mostly a position of the corpus
    (or a variation of it) under its own rule set, so that the checks after the syntax count."""

    def around(pair: tuple[str, str]) -> Any:
        text = st.just(pair[0])
        return st.tuples(st.one_of(text, mutated(text), reworded(text)), st.just(pair[1]))

    own = st.deferred(lambda: st.sampled_from(corpus().positions)).flatmap(around)
    any_rules = st.deferred(lambda: st.sampled_from(corpus().rules))
    return st.one_of(own, own, st.tuples(position_texts(), any_rules))


def move_texts() -> Any:
    points = st.tuples(
        st.sampled_from("abcdefghijAI"), st.sampled_from(["1", "5", "9", "0", "10", ""])
    ).map("".join)
    built = st.tuples(st.lists(points, min_size=1, max_size=6), st.sampled_from("-x")).map(
        lambda pair: pair[1].join(pair[0])
    )
    return texts(lambda c: c.moves, built)


def record_texts() -> Any:
    tokens = st.one_of(
        st.sampled_from(["1.", "1...", "2.", "*", "1-0", "0-1", "1/2-1/2", "{", "}", "[", "]"]),
        st.sampled_from(['[Rules "cooper"]', '[Position "4c4/9/9/9/9/9/9/9/4C4 b 0 1"]']),
        st.sampled_from(['[Result "*"]', '[Termination "resign"]', '[Date "2023.02.29"]']),
        numbers().map(lambda n: f'[Rules "sackson impasse-plies={n}"]'),
        numbers().map(lambda n: f'[Position "4c4/9/9/9/9/9/9/9/4C4 b {n} 1"]'),
        st.sampled_from(["d2-d3", "f8-f7", "e1-d2", "b2xb4", "\n", "\r\n", "\n\n"]),
        oddities(),
    )
    built = st.lists(tokens, max_size=30).map(" ".join)
    return texts(lambda c: c.records, built)


def command_lines() -> Any:
    words = st.sampled_from(
        [
            "position",
            "rules",
            "startpos",
            "fen",
            "moves",
            "go",
            "depth",
            "nodes",
            "movetime",
            "btime",
            "gtime",
            "binc",
            "ginc",
            "movestogo",
            "infinite",
            "setoption",
            "name",
            "value",
            "Level",
            "Hash",
            "Seed",
            "MoveOverhead",
            "EvalFile",
            "cooper",
            "sackson",
            "d2-d3",
        ]
    )
    built = st.lists(st.one_of(words, numbers(), oddities()), max_size=12).map(" ".join)
    return texts(lambda c: c.commands, built)


def go_words() -> Any:
    """The words after ``go``: parameters with number-like values, ``infinite`` among them."""
    parameter = st.sampled_from(
        ["depth", "nodes", "movetime", "btime", "gtime", "binc", "ginc", "movestogo"]
    )
    pair = st.one_of(st.tuples(parameter, numbers()).map(" ".join), st.just("infinite"))
    built = st.lists(pair, max_size=5).map(" ".join)
    return texts(
        lambda c: [line.removeprefix("go").strip() for line in c.commands if line.startswith("go")],
        built,
    )


def reply_lines() -> Any:
    words = st.sampled_from(
        [
            "info",
            "depth",
            "seldepth",
            "score",
            "cp",
            "win",
            "loss",
            "nodes",
            "nps",
            "time",
            "pv",
            "string",
            "currmove",
            "bestmove",
            "(none)",
            "option",
            "name",
            "type",
            "spin",
            "combo",
            "default",
            "min",
            "max",
            "var",
            "id",
            "protocol",
            "d2-d3",
        ]
    )
    built = st.lists(st.one_of(words, numbers(), oddities()), max_size=14).map(" ".join)
    return texts(lambda c: c.replies, built)
