"""A match's journal: each game written to a file as it finishes, so that a long match stopped at
any moment (Ctrl-C, a kill, a reboot) goes on where it was when it is started again with the same
file and the same settings. The games in the file are not played again, and the report, the
records and the SPRT count them with the new ones.

A match's games are decided by its settings alone (each game's opening and seeds come from the
match seed and the game's number: ``match``), so the games left are the ones the journal lacks.
The file is JSON lines: first the match's identity (the settings that decide which games are
played and how), then one line a game, in the order they finished. A journal of another match
(other players, rules, limits, seed, ..., or another ``ENGINE_VERSION``, whose book walks and
searches draw the openings) is refused; how many processes play the games (``concurrency``,
``cluster``) may change between runs. A kill in the middle of writing a line
leaves it cut short: that last line is dropped (its game is played again)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Final

from bluegray.engine import ENGINE_VERSION
from bluegray.engine.match import (
    GameResult,
    MatchGame,
    MatchSettings,
    MatchSummary,
    Progress,
    run_match,
)
from bluegray.engine.stats import MatchStats
from bluegray.errors import BlueGrayError
from bluegray.moves import Move
from bluegray.pieces import Side

JOURNAL_FORMAT: Final = "bluegray match journal 1"


class JournalError(BlueGrayError):
    """A journal that cannot be read or written, or that belongs to another match."""


def match_identity(settings: MatchSettings) -> dict[str, Any]:
    """What decides a match's games, as the journal's first line holds it."""
    limits = settings.limits
    return {
        "format": JOURNAL_FORMAT,
        "engine": ENGINE_VERSION,  # the openings' book walks and searches with this engine
        "player_a": settings.player_a,
        "player_b": settings.player_b,
        "rules": str(settings.rules),
        "games": settings.games,
        "time": None if limits is None else limits.time,
        "nodes": None if limits is None else limits.nodes,
        "depth": None if limits is None else limits.depth,
        "clock": None if settings.clock is None else str(settings.clock),
        "seed": settings.seed,
        "opening_plies": list(settings.opening_plies),
        "max_plies": settings.max_plies,
        "sackson_scoring": settings.sackson_scoring,
        "sprt": None if settings.sprt is None else list(settings.sprt),
        "event": settings.event,
    }


def game_json(game: MatchGame) -> dict[str, Any]:
    """One game as a journal's line holds it."""
    result = game.result
    return {
        "number": game.number,
        "a_blue": game.a_blue,
        "blue": result.blue,
        "gray": result.gray,
        "opening": [str(move) for move in result.opening],
        "moves": [str(move) for move in result.moves],
        "winner": None if result.winner is None else result.winner.value,
        "reason": result.reason,
        "impasse": result.impasse,
        "seconds": result.seconds,
        "node": game.node,
    }


def game_from_json(data: Any, settings: MatchSettings) -> MatchGame:
    """A game of ``settings``'s match read back from its line; ``JournalError`` if it is not
    one (a game the match does not have, moves the rules do not allow)."""
    try:
        number, a_blue = data["number"], data["a_blue"]
        if not isinstance(number, int) or not 1 <= number <= settings.games:
            raise JournalError(f"game number {number!r} is not one of the match's")
        if a_blue != (number % 2 == 1):
            raise JournalError(f"game {number}: player A has the wrong side")
        a, b = settings.player_a, settings.player_b
        blue, gray = (a, b) if a_blue else (b, a)
        if (data["blue"], data["gray"]) != (blue, gray):
            raise JournalError(f"game {number} was not played by {blue} and {gray}")
        winner = data["winner"]
        result = GameResult(
            blue=blue,
            gray=gray,
            rules=settings.rules,
            opening=tuple(Move.parse(move) for move in data["opening"]),
            moves=tuple(Move.parse(move) for move in data["moves"]),
            winner=None if winner is None else Side(winner),
            reason=str(data["reason"]),
            impasse=bool(data["impasse"]),
            seconds=float(data["seconds"]),
        )
        result.game()  # the moves replayed: an illegal one is an error here, not in the records
        return MatchGame(number, a_blue, result, str(data.get("node", "")))
    except JournalError:
        raise
    except (KeyError, TypeError, ValueError, BlueGrayError) as error:
        raise JournalError(f"not a game of this match ({type(error).__name__}: {error})") from None


class MatchJournal:
    """The journal of one match at ``path``: ``open()`` reads the games already played (in
    ``games``, by number) and makes the file ready for more, ``write(game)`` adds one. A
    context manager."""

    def __init__(self, path: Path, settings: MatchSettings) -> None:
        self.path = path
        self.settings = settings
        self.games: dict[int, MatchGame] = {}
        self._file: IO[str] | None = None

    def open(self) -> MatchJournal:
        identity = match_identity(self.settings)
        try:
            text = self.path.read_text(encoding="utf-8") if self.path.exists() else ""
        except (OSError, UnicodeDecodeError) as error:
            raise JournalError(f"cannot read the journal {self.path}: {error}") from None
        complete, _, _cut = text.rpartition("\n")  # a last line without its end: cut short
        lines = complete.split("\n") if complete else []
        if lines:
            self._check_identity(self._parse(lines[0], 1), identity)
        for number, line in enumerate(lines[1:], start=2):
            try:
                game = game_from_json(self._parse(line, number), self.settings)
            except JournalError as error:
                raise JournalError(f"line {number} of the journal {self.path}: {error}") from None
            if game.number in self.games:
                raise JournalError(
                    f"line {number} of the journal {self.path}: game {game.number} again"
                )
            self.games[game.number] = game
        kept = (complete + "\n") if complete else ""
        try:
            if len(kept) != len(text) or not lines:
                # Drop a line cut short by a kill (or start a new journal with its identity).
                if not lines:
                    kept = json.dumps(identity) + "\n"
                self.path.write_text(kept, encoding="utf-8")
            self._file = self.path.open("a", encoding="utf-8")
        except OSError as error:
            raise JournalError(f"cannot write the journal {self.path}: {error.strerror}") from None
        return self

    def _parse(self, line: str, number: int) -> Any:
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            raise JournalError(
                f"line {number} of {self.path} is not JSON: is it a match's journal?"
            ) from None

    def _check_identity(self, found: Any, identity: dict[str, Any]) -> None:
        if not isinstance(found, dict) or found.get("format") != JOURNAL_FORMAT:
            raise JournalError(f"{self.path} is not a match's journal")
        for key, value in identity.items():
            if found.get(key) != value:
                raise JournalError(
                    f"{self.path} is the journal of another match: its {key} is "
                    f"{found.get(key)!r}, this match's {value!r}"
                )

    def write(self, game: MatchGame) -> None:
        """Add ``game``, written through to the file before this returns (``JournalError`` if
        it cannot be: a full disk)."""
        if self._file is None:
            raise JournalError("the journal is not open")
        try:
            self._file.write(json.dumps(game_json(game)) + "\n")
            self._file.flush()
        except OSError as error:
            file, self._file = self._file, None
            with contextlib.suppress(OSError):  # it would try to write the line again
                file.close()
            raise JournalError(f"cannot write the journal {self.path}: {error.strerror}") from None
        self.games[game.number] = game

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> MatchJournal:
        return self.open()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def run_journaled(
    settings: MatchSettings, journal: MatchJournal, progress: Progress | None = None
) -> MatchSummary:
    """Play the match from where its (open) journal left it: the journal's games are not played
    again, and each new game is written to it as it finishes, before ``progress`` hears of it."""

    def finished(game: MatchGame, stats: MatchStats) -> None:
        journal.write(game)
        if progress is not None:
            progress(game, stats)

    return run_match(settings, finished, done=dict(journal.games))
