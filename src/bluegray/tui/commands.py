"""The words a player types besides moves (``undo``, ``save FILE`` ...), shared by the plain line
mode and the full-screen app's entry line, so both understand the same commands."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from bluegray.tui.session import SessionError

COMMAND_HELP: Final = (
    ("moves", "list the legal moves"),
    ("undo", "take back your last move and the engine's reply (hot seat: the last move)"),
    ("hint", "the engine's suggestion for the side to move"),
    ("save FILE", "write the game record to FILE"),
    ("load FILE", "continue the game recorded in FILE"),
    ("new", "start a new game from the same position"),
    ("resign", "resign the game"),
    ("flip", "turn the board round"),
    ("board", "show the board again"),
    ("help", "this list"),
    ("quit", "leave"),
)
"""Each command as it is typed, and what it does, for the help texts."""

COMMANDS: Final = frozenset(usage.split()[0] for usage, _ in COMMAND_HELP)

NEEDS_FILE: Final = frozenset({"save", "load"})

_MOVE_LIKE = re.compile(r"[a-i][1-9]", re.IGNORECASE)


@dataclass(frozen=True)
class Command:
    """A typed command: its name and the rest of the line (a file name, or empty)."""

    name: str
    argument: str = ""


def parse_command(text: str) -> Command | None:
    """The command a line holds, or ``None`` if it is a move (left to the game to judge);
    ``SessionError`` for a word that is neither."""
    word, _, rest = text.strip().partition(" ")
    name = word.lower()
    if name in ("exit", "q"):
        name = "quit"
    if name in ("?", "h"):
        name = "help"
    if name in COMMANDS:
        argument = rest.strip()
        if name in NEEDS_FILE and not argument:
            raise SessionError(f"{name} needs a file name: {name} FILE")
        if name not in NEEDS_FILE and argument:
            raise SessionError(f"{name} takes no argument, not {argument!r}")
        return Command(name, argument)
    if _MOVE_LIKE.match(word):
        return None
    raise SessionError(
        f"unknown command {word!r}: type a move like d2-d3, or help for the commands"
    )
