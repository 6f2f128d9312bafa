"""The game being played in the terminal: who plays which side, the engine's replies, undo,
hints, clocks, and saving and loading records.

The full-screen app and the plain line mode both drive one ``Session``, so the rules around the
game (what undo takes back, when the engine moves, when a clock runs out) live, and are tested,
in one place. The engine may think in another thread: ``engine_request`` snapshots the game,
``think`` runs anywhere, and ``apply`` plays the reply only if nothing changed meanwhile.
"""

from __future__ import annotations

import datetime
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bluegray.engine import time_manager
from bluegray.engine.analysis import HINT_SECONDS, hint
from bluegray.engine.levels import LEVELS, clock_limits
from bluegray.engine.limits import Limits
from bluegray.engine.players import Player, player_from_spec
from bluegray.engine.search import warm_up
from bluegray.errors import BlueGrayError
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.outcome import Outcome, Termination
from bluegray.pieces import Piece, Side
from bluegray.record import GameRecord, read_record, write_record
from bluegray.tui.clock import Clock, TimeControl

DEFAULT_LEVEL = 3
EVENT = "bluegray play"
_DECLARED_ENDINGS = {
    Termination.RESIGN: "by resignation",
    Termination.TIME: "on time",
    Termination.AGREEMENT: "by agreement",
}
"""How the endings outside the rules read in "the game ended ...": undo refuses them."""


class SessionError(BlueGrayError):
    """A request that does not fit the moment: a move on the engine's turn, nothing to undo,
    a file that cannot be read or written."""


@dataclass(frozen=True)
class Seats:
    """Who plays: a person as ``human`` against the engine at ``level``, or two people
    (hot seat) when ``level`` is ``None``."""

    level: int | None = DEFAULT_LEVEL
    human: Side = Side.BLUE

    def __post_init__(self) -> None:
        if self.level is not None and self.level not in LEVELS:
            raise SessionError(
                f"unknown level {self.level}: levels are {min(LEVELS)} to {max(LEVELS)}"
            )

    @property
    def hotseat(self) -> bool:
        return self.level is None

    def is_engine(self, side: Side) -> bool:
        """Whether the engine plays ``side``."""
        return self.level is not None and side is not self.human

    def label(self, side: Side) -> str:
        """The side and its player for the screen: ``Blue (you)``, ``Gray (level 3)``."""
        if self.level is None:
            return side.title
        if side is self.human:
            return f"{side.title} (you)"
        return f"{side.title} (level {self.level})"

    def player_name(self, side: Side) -> str:
        """The player as a record's Blue or Gray tag: the engine by level, a person unknown."""
        return f"bluegray level {self.level}" if self.is_engine(side) else "?"


@dataclass(frozen=True)
class EngineRequest:
    """What the engine needs to choose a reply, taken from the session at one moment."""

    version: int
    game: Game
    """A copy: the engine may read it in another thread while the session changes."""
    player: Player
    limits: Limits | None


@dataclass(frozen=True)
class MoveRow:
    """One line of the move list: the move number and the Blue and Gray moves (either may be
    missing at the start of a set-up position or at the end)."""

    number: int
    blue: Move | None
    gray: Move | None


class Session:
    """One game in the terminal, with its players, clocks and file."""

    def __init__(
        self,
        game: Game,
        seats: Seats | None = None,
        control: TimeControl | None = None,
        *,
        now: Callable[[], float] = time.monotonic,
        seed: int | None = None,
    ) -> None:
        self._game = game
        self.seats = seats or Seats()
        self.clock = None if control is None else Clock(control, now)
        self.version = 0
        """Increases with every change of the game, so a late engine reply can be told stale."""
        self._seed = random.randrange(1 << 31) if seed is None else seed
        self._player: Player | None = None
        self._player_level: int | None = None
        self._lock = threading.Lock()
        self._captured: tuple[int, dict[Side, list[Piece]]] | None = None
        self._reset_clock()
        if self.seats.level is not None:
            warm_up()  # the compiled kernel gets ready in the background; the plain one plays now

    # -- state ---------------------------------------------------------------------------------

    @property
    def game(self) -> Game:
        return self._game

    def outcome(self) -> Outcome | None:
        """How the game ended (a clock that ran out included), or ``None`` while it goes on."""
        self.check_time()
        return self._game.outcome()

    def engine_to_move(self) -> bool:
        """Whether the engine should play now."""
        return self.outcome() is None and self.seats.is_engine(self._game.turn)

    def mover(self, ply: int) -> Side:
        """The side that made the game's move number ``ply`` (counting from 0)."""
        start = self._game.start.turn
        return start if ply % 2 == 0 else start.other

    def move_rows(self) -> list[MoveRow]:
        """The moves as numbered lines, as game records number them."""
        rows: list[MoveRow] = []
        number = self._game.start.number
        for ply, move in enumerate(self._game.moves):
            if self.mover(ply) is Side.BLUE:
                rows.append(MoveRow(number, move, None))
            else:
                if rows and rows[-1].gray is None and rows[-1].number == number:
                    rows[-1] = MoveRow(number, rows[-1].blue, move)
                else:
                    rows.append(MoveRow(number, None, move))
                number += 1
        return rows

    def captured(self, side: Side) -> list[Piece]:
        """The pieces of ``side`` captured so far, in the order they fell."""
        if self._captured is None or self._captured[0] != self.version:
            lost: dict[Side, list[Piece]] = {Side.BLUE: [], Side.GRAY: []}
            moves = self._game.moves
            if any(move.capture for move in moves):
                for position, move in zip(self._game.positions(), moves, strict=False):
                    for point in move.captured_points:
                        piece = position.piece_at(point)
                        if piece is not None:
                            lost[piece.side].append(piece)
            self._captured = (self.version, lost)
        return self._captured[1][side]

    # -- moves ---------------------------------------------------------------------------------

    def play(self, text: str) -> Move:
        """Play a person's move given in §6 notation; the library's error if it is not legal."""
        if self.engine_to_move():
            raise SessionError(
                f"it is {self.seats.label(self._game.turn)}'s move: wait for the engine's reply"
            )
        side = self._game.turn
        move = self._game.push(text.strip())
        self._moved(side)
        return move

    def engine_request(self) -> EngineRequest | None:
        """A snapshot for the engine to think about, or ``None`` if it is not its turn."""
        if not self.engine_to_move():
            return None
        level = self.seats.level
        assert level is not None
        if self._player is None or self._player_level != level:
            self._player = player_from_spec(f"level:{level}", seed=self._seed)
            self._player_level = level
        return EngineRequest(self.version, self._game.copy(), self._player, self._limits(level))

    def think(self, request: EngineRequest) -> Move:
        """The engine's reply to a request; safe to call from a worker thread (one search at a
        time: a player keeps tables between moves)."""
        with self._lock:
            return request.player.choose(request.game, request.limits)

    def apply(self, request: EngineRequest, move: Move) -> bool:
        """Play the engine's reply, unless the game changed since the request (an undo, a new
        game, a clock that ran out): then it is dropped and ``False`` returned."""
        if request.version != self.version or self.outcome() is not None:
            return False
        side = self._game.turn
        self._game.push(move)
        self._moved(side)
        return True

    def engine_move(self) -> Move | None:
        """Let the engine play now, in this thread, if it is its turn."""
        request = self.engine_request()
        if request is None:
            return None
        move = self.think(request)
        return move if self.apply(request, move) else None

    def hint(self, game: Game | None = None, seconds: float = HINT_SECONDS) -> Move:
        """The engine's suggestion for the side to move (in ``game``, a snapshot, if given)."""
        return hint(game if game is not None else self._game.copy(), seconds)

    def undo(self) -> list[Move]:
        """Take back the person's last move and the engine's replies to it (in hot seat, the
        last move); return the moves taken back, in the order they were played.

        A game that a resignation or the clock ended stays ended: those are decisions outside
        the moves, which taking moves back would quietly undo. A game the rules ended may be
        taken back, to try the move again."""
        outcome = self._game.outcome()
        if outcome is not None and not outcome.termination.by_rules:
            how = _DECLARED_ENDINGS.get(outcome.termination, "")
            raise SessionError(f"the game ended {how}: start a new game")
        moves = self._game.moves
        if self.seats.hotseat:
            count = min(1, len(moves))
        else:
            own = [ply for ply in range(len(moves)) if self.mover(ply) is self.seats.human]
            count = len(moves) - own[-1] if own else 0
        if count == 0:
            raise SessionError("there is no move of yours to take back")
        taken = [self._game.pop() for _ in range(count)]
        self._changed()
        if self.clock is not None:
            self.clock.start(self._game.turn)
        return taken[::-1]

    def resign(self) -> Outcome:
        """The person resigns (in hot seat, the side to move)."""
        side = self._game.turn if self.seats.hotseat else self.seats.human
        self.check_time()
        outcome = self._game.resign(side)
        self._changed()
        return outcome

    # -- games and files -----------------------------------------------------------------------

    def new_game(self, seats: Seats | None = None) -> None:
        """Start again from where this game started, under the same rules (and new seats)."""
        if seats is not None:
            self.seats = seats
        self._game = Game(self._game.rules, self._game.start)
        self._changed()
        self._reset_clock()

    def record(self) -> GameRecord:
        """The game as a record, with the players and the date."""
        tags = {
            "Event": EVENT,
            "Date": datetime.date.today().strftime("%Y.%m.%d"),
            "Blue": self.seats.player_name(Side.BLUE),
            "Gray": self.seats.player_name(Side.GRAY),
        }
        if self.clock is not None:
            control = self.clock.control
            tags["TimeControl"] = f"{control.minutes * 60:g}+{control.increment:g}"
        return GameRecord.from_game(self._game, **tags)

    def save(self, path: str | Path) -> Path:
        """Write the game record to ``path``."""
        path = Path(path).expanduser()
        text = write_record(self.record())
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as error:
            raise SessionError(f"cannot write {path}: {error.strerror or error}") from None
        return path

    def load(self, path: str | Path) -> GameRecord:
        """Continue the game recorded in ``path`` (its rules, start and moves)."""
        path = Path(path).expanduser()
        record = read_record_file(path)
        self._game = record.game
        self._changed()
        self._reset_clock()
        return record

    # -- clocks --------------------------------------------------------------------------------

    def check_time(self) -> Outcome | None:
        """End the game if the running clock has run out; the ending, if it did."""
        clock = self.clock
        if clock is None:
            return None
        side = clock.flagged()
        if side is None or self._game.outcome() is not None:
            return None
        outcome = self._game.time_out(side)
        clock.stop()
        self.version += 1
        return outcome

    def _limits(self, level: int) -> Limits | None:
        """A time-limited level's thinking time, cut down so that it does not lose on time."""
        clock = self.clock
        if clock is None:
            return None
        own = time_manager.Clock(clock.remaining(self._game.turn), clock.control.increment)
        return clock_limits(
            level, time_manager.allocate(own, ply=self._game.ply, rules=self._game.rules)
        )

    def _reset_clock(self) -> None:
        if self.clock is not None:
            over = self._game.outcome() is not None
            self.clock.reset(None if over else self._game.turn)

    def _moved(self, side: Side) -> None:
        self._changed()
        if self.clock is not None:
            if self._game.outcome() is None:
                self.clock.press(side)
            else:
                self.clock.stop()

    def _changed(self) -> None:
        self.version += 1
        if self.clock is not None and self._game.outcome() is not None:
            self.clock.stop()


def read_record_file(path: Path) -> GameRecord:
    """The one game record in a file, with a one-line error for a file that cannot be read."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise SessionError(f"cannot read {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise SessionError(f"cannot read {path}: it is not UTF-8 text") from None
    return read_record(text)
