"""Run the sessions the documentation shows and write what the program prints into it.

    python scripts/make_doc_transcripts.py

Each transcript is the fenced block right after a marker line in a page of docs/,
``<!-- transcript: NAME (scripts/make_doc_transcripts.py) -->``. The sessions are chosen so
that the program always prints the same (the engine's replies are forced: one legal move), so
tests/test_docs.py can check that the pages show what the program prints now.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLUEGRAY = [sys.executable, "-m", "bluegray"]


@dataclass(frozen=True)
class Transcript:
    page: str
    """The page of docs/ that shows it."""
    name: str
    """Its marker's name."""


def _run(arguments: list[str], stdin: str) -> str:
    """What ``bluegray ARGUMENTS`` prints (stdout and stderr) when fed ``stdin``."""
    done = subprocess.run(
        [*BLUEGRAY, *arguments],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "COLUMNS": "100"},
    )
    return done.stdout + done.stderr


def plain_session() -> str:
    """docs/terminal.md: the plain line mode against level 1, near the end of a game where Gray
    has only its captain (so its reply is forced), with ``moves``, a move and a refused line."""
    position = "4c4/9/3C5/9/9/9/9/9/9 b 0 1"
    lines = ["moves", "d7-e7", "d7-e7"]
    arguments = ["play", "--plain", "--level", "1", "--position", position]
    typed = "".join(f"{line}\\n" for line in lines)  # as printf is given it: \n, not a newline
    command = (
        f"$ printf '{typed}' | bluegray play --plain --level 1 --position {shlex.quote(position)}"
    )
    return command + "\n" + _run(arguments, "".join(f"{line}\n" for line in lines))


#: docs/protocol.md's examples of errors: what a client sends, line by line.
PROTOCOL_ERRORS = [
    "fly away",
    "position rules nonsense",
    "position rules cooper startpos moves d2-d5",
    "go depth 3",
    "setoption name Level value 9",
    "go depth three",
]


def protocol_errors() -> str:
    """docs/protocol.md: each command after ``>``, then the engine's answers to it (read up to
    the ``readyok`` of an ``isready`` sent after each, which the transcript leaves out)."""
    stdin = "".join(f"{line}\nisready\n" for line in PROTOCOL_ERRORS) + "quit\n"
    answers = _run(["engine"], stdin).splitlines()
    lines = []
    for command in PROTOCOL_ERRORS:
        lines.append(f"> {command}")
        end = answers.index("readyok")
        lines.extend(answers[:end])
        answers = answers[end + 1 :]
    return "\n".join(lines) + "\n"


TRANSCRIPTS = {
    Transcript("terminal.md", "plain-session"): plain_session,
    Transcript("protocol.md", "protocol-errors"): protocol_errors,
}


def marker(name: str) -> str:
    return f"<!-- transcript: {name} (scripts/make_doc_transcripts.py) -->"


def block_pattern(name: str) -> re.Pattern[str]:
    """The marker, the fence's opening line, the transcript, the closing fence."""
    return re.compile(
        rf"({re.escape(marker(name))}\n```[a-z]*\n)(.*?)(^```$)", flags=re.DOTALL | re.MULTILINE
    )


def shown(transcript: Transcript) -> str:
    """The transcript as the page shows it now."""
    text = (DOCS / transcript.page).read_text(encoding="utf-8")
    match = block_pattern(transcript.name).search(text)
    if match is None:
        raise LookupError(f"docs/{transcript.page} has no transcript {transcript.name!r}")
    return match[2]


def main() -> None:
    for transcript, make in TRANSCRIPTS.items():
        path = DOCS / transcript.page
        text = path.read_text(encoding="utf-8")
        shown(transcript)  # the marker is there
        match = block_pattern(transcript.name).search(text)
        assert match is not None  # shown() found it
        text = text[: match.start(2)] + make() + text[match.end(2) :]
        path.write_text(text, encoding="utf-8")
        print(f"wrote the transcript {transcript.name} into {path}")


if __name__ == "__main__":
    main()
