"""The plain line mode of ``bluegray play``: one command a line in, keyword lines out, so that a
script can play through a pipe.

Every line printed starts with a keyword and a colon (``move:``, ``ai:``, ``error:``,
``result:`` ...), except the lines of the board picture, which start with a space.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TextIO

from bluegray.diagram import diagram_text
from bluegray.errors import BlueGrayError
from bluegray.pieces import Side
from bluegray.tui.clock import format_time
from bluegray.tui.commands import COMMAND_HELP, Command, parse_command
from bluegray.tui.session import Session

PROTOCOL = """\
plain mode (--plain, or whenever stdin or stdout is not a terminal):
  input: one command a line: a move in notation (d2-d3, b2xb4xd4), or
    moves | undo | hint | save FILE | load FILE | new | resign | flip | board | help | quit;
    blank lines and lines starting with # are ignored; the end of input ends the session.
  output: the board picture, whose lines start with a space, and lines 'KEYWORD: text':
    rules:       the rule set and its description
    players:     who plays each side
    position:    the position in notation
    advancement: blue N gray N (out of 17)
    soldiers:    blue N gray N (soldiers left)
    clock:       blue M:SS gray M:SS (with --clock)
    turn:        blue|gray, when a move is awaited
    move:        SIDE MOVE, a move you played
    ai:          SIDE MOVE, the engine's move
    moves:       the legal moves, separated by spaces
    hint:        the engine's suggestion
    undo:        the moves taken back
    saved: / loaded: / new:  what was done
    result:      TOKEN DESCRIPTION, e.g. '0-1 Gray wins: captain reached the centre'
    error:       why a line was refused (the game goes on)
    help:        a line of help
  the exit code is 0 at the end of input or after quit."""


class PlainGame:
    """Plays a session through text streams; errors are reported as lines, never raised."""

    def __init__(self, session: Session, out: TextIO, *, flipped: bool = False) -> None:
        self.session = session
        self.out = out
        self.flipped = flipped
        self._shown = -1

    def say(self, keyword: str, text: str = "") -> None:
        self.out.write(f"{keyword}: {text}".rstrip() + "\n")
        self.out.flush()

    def run(self, lines: Iterable[str], prompt: bool = False) -> int:
        """Read commands until the end of input or ``quit``; the exit code."""
        session = self.session
        rules = session.game.rules
        self.say("rules", f"{rules} ({rules.description})")
        self.say("players", self._players())
        self._engine_replies()
        self.show()
        if prompt:
            self._prompt()
        for line in lines:
            text = line.strip()
            if text and not text.startswith("#"):
                try:
                    if not self.handle(text):
                        break
                except (BlueGrayError, ValueError, OSError) as error:
                    self.say("error", str(error))
                except Exception as error:  # a bug: still one line, and the game goes on
                    self.say("error", f"internal error: {type(error).__name__}: {error}")
                if session.version != self._shown:
                    self.show()
            if prompt:
                self._prompt()
        return 0

    def handle(self, text: str) -> bool:
        """Carry out one line; ``False`` to stop."""
        session = self.session
        command = parse_command(text)
        if command is None:
            side = session.game.turn
            move = session.play(text)
            self.say("move", f"{side.value} {move}")
            self._engine_replies()
            return True
        return self._command(command)

    def _command(self, command: Command) -> bool:
        session = self.session
        name = command.name
        if name == "quit":
            return False
        if name == "moves":
            self.say("moves", " ".join(str(move) for move in session.game.legal_moves))
        elif name == "hint":
            outcome = session.outcome()
            if outcome is not None:
                self.say("error", f"the game is over ({outcome.describe()}): no hint")
            else:
                self.say("hint", str(session.hint()))
        elif name == "undo":
            taken = session.undo()
            self.say("undo", " ".join(str(move) for move in taken))
            self._engine_replies()
        elif name == "save":
            self.say("saved", str(session.save(command.argument)))
        elif name == "load":
            session.load(command.argument)
            self.say("loaded", command.argument)
            self._engine_replies()
        elif name == "new":
            session.new_game()
            self.say("new", str(session.game.rules))
            self._engine_replies()
        elif name == "resign":
            session.resign()
        elif name == "flip":
            self.flipped = not self.flipped
            self.show()
        elif name == "board":
            self.show()
        elif name == "help":
            for usage, text in COMMAND_HELP:
                self.say("help", f"{usage}: {text}")
            self.say("help", "a move: from-to (d2-d3) or a capture's landing points (b2xb4xd4)")
        return True

    def show(self) -> None:
        """The board and the state of the game."""
        session = self.session
        position = session.game.position
        outcome = session.outcome()
        self.out.write(diagram_text(position, flipped=self.flipped) + "\n")
        self.say("position", str(position))
        self.say(
            "advancement",
            f"blue {position.advancement(Side.BLUE)} gray {position.advancement(Side.GRAY)}",
        )
        soldiers = [position.soldiers(side).bit_count() for side in (Side.BLUE, Side.GRAY)]
        self.say("soldiers", f"blue {soldiers[0]} gray {soldiers[1]}")
        clock = session.clock
        if clock is not None:
            blue, gray = (format_time(clock.remaining(side)) for side in (Side.BLUE, Side.GRAY))
            self.say("clock", f"blue {blue} gray {gray}")
        if outcome is None:
            self.say("turn", session.game.turn.value)
        else:
            self.say("result", f"{outcome.result} {outcome.describe()}")
        self._shown = session.version

    def _engine_replies(self) -> None:
        session = self.session
        while session.engine_to_move():
            side = session.game.turn
            move = session.engine_move()
            if move is None:
                break
            self.say("ai", f"{side.value} {move}")

    def _players(self) -> str:
        seats = self.session.seats
        if seats.hotseat:
            return "blue: you, gray: you (hot seat)"
        names = {
            side: f"engine level {seats.level}" if seats.is_engine(side) else "you"
            for side in (Side.BLUE, Side.GRAY)
        }
        return f"blue: {names[Side.BLUE]}, gray: {names[Side.GRAY]}"

    def _prompt(self) -> None:
        self.out.write("> ")
        self.out.flush()


def run_plain(session: Session, source: TextIO, out: TextIO, *, flipped: bool = False) -> int:
    """Play ``session`` reading commands from ``source``; a prompt only for a person at a
    terminal."""
    game = PlainGame(session, out, flipped=flipped)
    return game.run(source, prompt=source.isatty())
