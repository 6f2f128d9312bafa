"""Fuzz targets for every parser: positions, moves, rule sets, records, and the engine protocol in
both directions (the engine's reading of commands, the client's reading of replies).

Each target takes one generated input and checks that it ends in one of two ways: the library's
typed error (a ``BlueGrayError``), or a value that prints back to text that reads as the same
value (and, where the notation has one spelling, as the very same text). Any other exception, or
an input that takes longer than ``HANG_SECONDS``, is a failure.

The suite runs each target on a few hundred inputs (tests/test_fuzz.py); ``scripts/fuzz`` runs
them on a million each (docs/fuzzing.md). Both use Hypothesis: the inputs mix arbitrary text
with valid texts of the format (from random games) and mutations of them, so that the parsers'
deeper checks are reached, and a failure is shrunk to a small example that is printed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import cache
from types import FrameType
from typing import Any, cast

from hypothesis import HealthCheck, Phase, example, given, seed, settings
from hypothesis import strategies as st

from bluegray import Game, Move, Position, RuleSet
from bluegray.engine.search import warm_up
from bluegray.errors import BlueGrayError
from bluegray.pieces import Side
from bluegray.protocol import Go, Info, Option, PositionCommand, parse_bestmove, parse_integer
from bluegray.protocol.server import EngineServer
from bluegray.record import GameRecord, read_record, read_records, write_record
from bluegray.rules import PRESETS

HANG_SECONDS = 20.0
"""An input that takes longer than this is a hang (the watchdog interrupts it where Python code
runs). Generous: it catches hangs, it is no speed target."""
SLOW_SECONDS = 5.0
"""Hypothesis's deadline: an input that finishes but takes longer than this fails, so that
inputs far slower than their size explains are reported (a quadratic parser, say)."""
SEARCH_SECONDS = 30.0
"""How long the engine target waits for a search it has stopped to send its ``bestmove``."""


class HangError(Exception):
    """An input ran longer than ``HANG_SECONDS``."""


@contextlib.contextmanager
def hang_guard(seconds: float = HANG_SECONDS) -> Iterator[None]:
    """Raise ``HangError`` in the block after ``seconds`` (in the main thread; elsewhere, no guard)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise HangError(f"the input took more than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


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


# -- the targets ----------------------------------------------------------------------------------


def check_position(text: str, rules_text: str) -> None:
    rules = RuleSet.parse(rules_text)
    try:
        position = Position.parse(text, rules)
    except BlueGrayError:
        return
    assert str(position) == text, "a position has one spelling"
    assert Position.parse(str(position), rules) == position


def check_move(text: str) -> None:
    try:
        move = Move.parse(text)
    except BlueGrayError:
        return
    assert str(move) == text, "a move has one spelling"
    assert Move.parse(str(move)) == move


def check_rules(text: str) -> None:
    try:
        rules = RuleSet.parse(text)
    except BlueGrayError:
        return
    assert RuleSet.parse(str(rules)) == rules


def check_record(text: str) -> None:
    """Reading is strict about content and lenient about layout: what it reads is written in one
    spelling, which reads back as the same game and writes as the same text."""
    with contextlib.suppress(BlueGrayError):
        for _ in read_records(text):
            pass
    try:
        record = read_record(text)
    except BlueGrayError:
        return
    written = write_record(record)
    again = read_record(written)
    assert write_record(again) == written
    assert again.game.moves == record.game.moves
    assert again.game.start == record.game.start and again.game.rules == record.game.rules
    assert again.game.outcome() == record.game.outcome()


def check_go(line: str) -> None:
    try:
        go = Go.parse(line.split())
    except BlueGrayError:
        return
    assert Go.parse(str(go).split()[1:]) == go


def check_position_command(line: str) -> None:
    try:
        command = PositionCommand.parse(line.split())
    except BlueGrayError:
        return
    assert PositionCommand.parse(str(command).split()[1:]) == command
    with contextlib.suppress(BlueGrayError):
        command.game()


def check_reply(line: str) -> None:
    """What the client does with a line from an engine: each kind of reply it reads."""
    words = line.split()
    try:
        if words[:1] == ["info"]:
            info = Info.parse(line)
            assert Info.parse(str(info)) == info
        elif words[:1] == ["option"]:
            option = Option.parse(line)
            assert Option.parse(str(option)) == option
        elif words[:1] == ["bestmove"]:
            move = parse_bestmove(line)
            assert move is None or str(move) == words[1]
        elif words[:2] == ["id", "protocol"] and len(words) == 3:
            parse_integer(words[2], "id protocol", least=0)
        else:
            with contextlib.suppress(BlueGrayError):
                Info.parse(line)
            with contextlib.suppress(BlueGrayError):
                Option.parse(line)
            with contextlib.suppress(BlueGrayError):
                parse_bestmove(line)
    except BlueGrayError:
        return


class _Replies(io.StringIO):
    """The engine's output; ``bestmove`` lines are counted as they come."""

    def __init__(self) -> None:
        super().__init__()
        self.bestmoves = threading.Semaphore(0)

    def write(self, text: str) -> int:
        written = super().write(text)
        if text.startswith("bestmove"):
            self.bestmoves.release()
        return written


REPLY_WORDS = ("id", "option", "bgiok", "readyok", "info", "bestmove")


def check_engine(lines: list[str]) -> None:
    """The engine's reading of commands: any lines leave it answering in the protocol's
    grammar, never with an internal error, and every ``go`` gets its one ``bestmove`` once
    stopped (each line is followed by ``stop``, so no ``go`` is refused for a running
    ``go infinite``)."""
    replies = _Replies()
    server = EngineServer(replies)
    for line in lines:
        server.handle(line)
        server.handle("stop")
    for _ in range(sum(line.split()[:1] == ["go"] for line in lines)):
        assert replies.bestmoves.acquire(timeout=SEARCH_SECONDS), "a stopped search never ended"
    server.handle("quit")
    for reply in replies.getvalue().splitlines():
        assert reply.split()[:1][0] in REPLY_WORDS, f"not a reply: {reply!r}"
        assert "internal error" not in reply and "search failed" not in reply, reply
        if reply.startswith("info"):
            info = Info.parse(reply)
            assert Info.parse(str(info)) == info
        if reply.startswith("bestmove"):
            parse_bestmove(reply)


@dataclass(frozen=True)
class Target:
    """A parser to fuzz: its name, its check, and the strategy of its inputs."""

    name: str
    check: Callable[..., None]
    inputs: Callable[[], st.SearchStrategy[tuple[Any, ...]]]
    """Returns a strategy for the check's arguments (a tuple, unpacked into them)."""
    about: str
    prepare: Callable[[], None] = lambda: None
    """Run once before the inputs, outside their time bounds."""
    regressions: tuple[tuple[Any, ...], ...] = ()
    """Inputs that once failed (each fixed since): run first, every time."""


TARGETS: tuple[Target, ...] = (
    Target(
        "position",
        check_position,
        position_inputs,
        "Position.parse under a rule set; the text prints back unchanged",
        regressions=(
            ("4c4/9/9/9/9/9/9/9/4C4 b 0 " + "9" * 4301, "sackson"),  # int()'s digit limit
            ("4c4/9/9/9/9/9/9/9/4C4 b " + "9" * 30 + " 1", "cooper"),  # beyond the search
        ),
    ),
    Target(
        "move", check_move, lambda: st.tuples(move_texts()), "Move.parse; prints back unchanged"
    ),
    Target(
        "rules",
        check_rules,
        lambda: st.tuples(rule_texts()),
        "RuleSet.parse; reads back equal",
        regressions=(("sackson impasse-plies=" + "9" * 4301,), ("lead=" + "9" * 5000,)),
    ),
    Target(
        "record",
        check_record,
        lambda: st.tuples(record_texts()),
        "read_record and read_records; what is read writes and reads back the same",
        regressions=(
            ('[Rules "sackson impasse-plies=' + "9" * 4301 + '"]\n\n*\n',),
            ('[Position "4c4/9/9/9/9/9/9/9/4C4 b 0 ' + "9" * 5000 + '"]\n\n*\n',),
        ),
    ),
    Target(
        "go",
        check_go,
        lambda: st.tuples(go_words()),
        "the engine's reading of go; prints back equal",
        regressions=(("nodes " + "9" * 4301,), ("movetime 1 btime -" + "9" * 5000,)),
    ),
    Target(
        "position-command",
        check_position_command,
        lambda: st.tuples(command_lines().map(lambda line: line.removeprefix("position "))),
        "the engine's reading of position; prints back equal",
        regressions=(("rules sackson impasse-plies=" + "9" * 4301,),),
    ),
    Target(
        "engine",
        check_engine,
        lambda: st.tuples(st.lists(command_lines(), min_size=1, max_size=5)),
        "bluegray's engine fed command lines: answers in the grammar, never an internal error",
        warm_up,  # the compiled search's first load (or compilation) is no input's time
        regressions=(
            (["position rules cooper startpos", "go nodes 9223372036854775808"],),
            (["position rules sackson impasse-plies=" + "9" * 30, "go depth 1"],),
            (["position rules cooper fen 4c4/9/9/9/9/9/9/9/4C4 b 0 " + "9" * 30, "go"],),
            (["setoption name Seed value " + "9" * 4301],),
        ),
    ),
    Target(
        "reply",
        check_reply,
        lambda: st.tuples(reply_lines()),
        "the client's reading of info, option, bestmove and id lines; prints back equal",
        regressions=(
            ("info depth 1 string x",),  # printed back as "info string x"
            ("id protocol \u00b2",),  # a digit to str.isdigit, not to int()
            ("info nodes " + "9" * 4301,),
            ("option name X type spin min 0 max " + "9" * 5000,),
        ),
    ),
)
TARGETS_BY_NAME = {target.name: target for target in TARGETS}


def fuzz(target: Target, inputs: int, *, random_seed: int | None = None) -> None:
    """Run ``target`` on ``inputs`` generated inputs; raise the first failure (shrunk, with the
    falsifying example in the message)."""

    def run(arguments: tuple[Any, ...]) -> None:
        with hang_guard():
            target.check(*arguments)

    target.prepare()
    corpus()

    configured = settings(
        max_examples=inputs,
        deadline=timedelta(seconds=SLOW_SECONDS),
        database=None,
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )
    test = given(target.inputs())(run)
    for arguments in target.regressions:
        test = example(arguments)(test)
    test = cast(Callable[[], None], configured(test))
    if random_seed is not None:
        test = seed(random_seed)(test)
    test()


# -- scripts/fuzz -----------------------------------------------------------------------------------

DESCRIPTION = """\
Fuzz bluegray's parsers: each target is run on many generated inputs (arbitrary text, valid
texts of its format and mutations of them), and each input must end in the library's typed
error or a value that prints back as what was read; any other exception, or an input that runs
longer than 20 seconds, is a failure. A failure is shrunk to a small example, printed with the
exception, and the script goes on with the next target; it exits with 1 if any target failed.
"""

EPILOG = """\
targets:
{targets}

examples:
  scripts/fuzz                       every target, a million inputs each
  scripts/fuzz record --inputs 50000 one target, fewer inputs
  scripts/fuzz --seed 7 position     a repeatable run
"""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/fuzz",
        description=DESCRIPTION,
        epilog=EPILOG.format(
            targets="\n".join(f"  {target.name:<17} {target.about}" for target in TARGETS)
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "targets",
        nargs="*",
        metavar="TARGET",
        help="targets to run (default: all of them)",
    )
    parser.add_argument(
        "--inputs",
        type=int,
        default=1_000_000,
        metavar="N",
        help="inputs per target (default 1,000,000)",
    )
    parser.add_argument(
        "--chunk",
        type=int,
        default=5_000,
        metavar="N",
        help="inputs between progress lines (default 5,000)",
    )
    parser.add_argument("--seed", type=int, help="seed of the first chunk (default: random)")
    args = parser.parse_args(argv)
    unknown = [name for name in args.targets if name not in TARGETS_BY_NAME]
    if unknown:
        parser.error(f"unknown target {unknown[0]!r}; targets: {', '.join(TARGETS_BY_NAME)}")
    if args.inputs < 1 or args.chunk < 1:
        parser.error("--inputs and --chunk must be at least 1")
    chosen = [TARGETS_BY_NAME[name] for name in args.targets] or list(TARGETS)
    first_seed = args.seed if args.seed is not None else random.randrange(2**32)
    print(
        f"fuzzing {', '.join(t.name for t in chosen)}: {args.inputs:,} inputs each, seed {first_seed}"
    )
    print("building the corpus of valid texts...", flush=True)
    corpus()
    failed = []
    for target in chosen:
        done = 0
        started = time.perf_counter()
        chunk_seed = first_seed
        while done < args.inputs:
            count = min(args.chunk, args.inputs - done)
            try:
                fuzz(target, count, random_seed=chunk_seed)
            except Exception as error:  # a failure of the target: report it and go on
                print(f"{target.name}: FAILED after {done:,} inputs (seed {chunk_seed}):")
                print(f"  {type(error).__name__}: {error}", flush=True)
                failed.append(target.name)
                break
            done += count
            chunk_seed += 1
            rate = done / max(time.perf_counter() - started, 1e-9)
            print(
                f"{target.name}: {done:,}/{args.inputs:,} inputs, {rate:,.0f} a second, "
                "no failures",
                flush=True,
            )
    if failed:
        print(f"failed: {', '.join(failed)}")
        return 1
    print("no failures")
    return 0
