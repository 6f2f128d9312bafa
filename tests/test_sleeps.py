"""Every sleep left in the tests says why it is there (issue 40): a fixed wait before an assertion
is a guess that fails on a slow machine and wastes time on a fast one, so the tests wait on an
event or poll with a deadline, and the sleeps that remain (a poll interval, an outage's length, a
client slow on purpose, a window in which something must not happen) carry a comment on their
line or on the line just above."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

from tests.paths import REPOSITORY

TESTS = REPOSITORY / "tests"
SLEEP = "sleep" + "("
THIS_FILE = Path(__file__).resolve()


def uncommented_sleeps(path: Path) -> list[int]:
    """The lines of ``path`` that call a sleep (``time.sleep(``, ``asyncio.sleep(``, a bare
    ``sleep(``, or one in a program written out as a string for a child process) with no comment
    on that line or on a comment line just above it. In a program written as a string, a ``#``
    in that program counts too. This file's own strings are its patterns and samples, not code."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    commented = {token.start[0] for token in tokens if token.type == tokenize.COMMENT}
    commented_above = {line + 1 for line in commented if lines[line - 1].lstrip().startswith("#")}
    sleeping: set[int] = set()
    for index, token in enumerate(tokens):
        if token.type == tokenize.NAME and token.string == "sleep":
            called = index + 1 < len(tokens) and tokens[index + 1].string == "("
            defined = index > 0 and tokens[index - 1].string == "def"
            if called and not defined:
                sleeping.add(token.start[0])
        elif token.type == tokenize.STRING and SLEEP in token.string and path != THIS_FILE:
            program = token.string.split("\n")
            for offset, text in enumerate(program):
                above = program[offset - 1].lstrip() if offset else ""
                if SLEEP in text and "#" not in text and not above.startswith("#"):
                    sleeping.add(token.start[0] + offset)
    return sorted(sleeping - commented - commented_above)


def test_every_sleep_in_the_tests_says_why() -> None:
    found = [
        f"{path.relative_to(REPOSITORY)}:{line}"
        for path in sorted(TESTS.rglob("*.py"))
        for line in uncommented_sleeps(path)
    ]
    assert not found, (
        f"{len(found)} sleep(s) in tests/ without a comment saying why (wait on an event or poll "
        "with a deadline instead, or say what the sleep stands for):\n" + "\n".join(found)
    )


def test_the_scan_sees_a_bare_sleep_and_accepts_a_commented_one(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import time\n"
        "time.sleep(0.1)\n"
        "time.sleep(0.1)  # poll interval\n"
        "# an outage of a second\n"
        "time.sleep(1)\n"
        'CHILD = "import time; time.sleep(30)"\n'
        'NOTE = "# not a comment"; time.sleep(2)\n'
        "def sleep(seconds: float) -> None: ...\n"
        'HANG = "import time; time.sleep(30)  # the child hangs"\n',
        encoding="utf-8",
    )
    assert uncommented_sleeps(sample) == [2, 6, 7]
