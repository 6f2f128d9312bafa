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
import importlib
import io
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import timedelta
from types import FrameType
from typing import Any, cast

from hypothesis import HealthCheck, Phase, example, given, seed, settings
from hypothesis import strategies as st

from bluegray import Move, Position, RuleSet
from bluegray.engine.search import warm_up
from bluegray.errors import BlueGrayError
from bluegray.protocol import Go, Info, Option, PositionCommand, parse_bestmove, parse_integer
from bluegray.protocol.server import EngineServer
from bluegray.record import read_record, read_records, write_record
from tests.fuzz_inputs import (
    command_lines,
    corpus,
    go_words,
    move_texts,
    position_inputs,
    record_texts,
    reply_lines,
    rule_texts,
)

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


def ready_engine() -> None:
    """Start the compiled search's loading before the engine target's inputs. NumPy, which that
    loading imports in a thread of its own, is imported here first: Hypothesis looks NumPy up in
    ``sys.modules`` while it generates inputs, and once found it half imported by that thread
    (``AttributeError: partially initialized module 'numpy'``), about one run in four."""
    with contextlib.suppress(ImportError):
        importlib.import_module("numpy")
    warm_up()


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
        ready_engine,  # the compiled search's loading is no input's time
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
