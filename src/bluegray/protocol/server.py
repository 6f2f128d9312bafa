"""The engine side of the protocol: read commands, answer them, search in a background thread.

The search runs in its own thread so that the command reader stays free: ``isready`` and
``stop`` are answered during a search, and ``quit`` ends one. Every malformed command is
answered with an ``info string error ...`` line and changes nothing else; the engine never
exits on bad input.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from typing import Final, TextIO

from bluegray import __version__
from bluegray.engine import readiness
from bluegray.engine.evaluation import family
from bluegray.engine.kernel import SLOT_BYTES, TABLE_ENTRIES, slots_within
from bluegray.engine.levels import LEVELS, TOP_LEVEL
from bluegray.engine.limits import Iteration, Limits, mate_distance
from bluegray.engine.network_file import (
    NetworkChoice,
    NetworkFileError,
    choose_network,
    describe_evaluation,
    network_for,
)
from bluegray.engine.players import SearchPlayer
from bluegray.engine.search import SEARCH_ENVIRONMENT, Searcher, search_choice, warm_up
from bluegray.engine.time_manager import Clock, MoveTime, allocate
from bluegray.errors import BlueGrayError, quoted
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.pieces import Side
from bluegray.protocol import (
    ERROR_PREFIX,
    NO_MOVE,
    PROTOCOL_VERSION,
    Go,
    Info,
    Option,
    PositionCommand,
    ProtocolError,
    Score,
    parse_integer,
)
from bluegray.rules import PRESETS, RuleSet

ENGINE_NAME: Final = f"bluegray {__version__}"
ENGINE_AUTHOR: Final = "The bluegray developers"

READY_WAIT: Final = 8.0
"""The longest ``isready`` waits for the compiled kernel to load from the cache (a second or two;
more on a loaded machine): less than the ten seconds a client gives ``readyok`` (the client's
``DEFAULT_TIMEOUT``), so that a slow load means a first move of the plain kernel, not a lost
game."""

HASH_CEILING: Final = 65536
"""The largest ``Hash`` in megabytes on any machine."""
HASH_DEFAULT: Final = TABLE_ENTRIES * SLOT_BYTES // 2**20
"""16 MB: the table a level plays with in the match runner and the web, so that a level over
the protocol plays as it does there."""


def physical_memory() -> int | None:
    """This machine's memory in bytes, or ``None`` where the platform does not say."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows), or no such name
        return None


def hash_limit(memory: int | None) -> int:
    """The largest ``Hash`` in megabytes on a machine with ``memory`` bytes: half of it (the
    table must leave the rest of the machine room), at most ``HASH_CEILING``, at least 1."""
    if memory is None or memory <= 0:
        return HASH_CEILING
    return max(1, min(HASH_CEILING, memory // 2 // 2**20))


MEMORY: Final = physical_memory()
HASH_MAX: Final = hash_limit(MEMORY)

OPTIONS: Final = (
    Option("Level", "spin", str(TOP_LEVEL), min(LEVELS), max(LEVELS)),
    Option("Hash", "spin", str(min(HASH_DEFAULT, HASH_MAX)), 1, HASH_MAX),
    Option("MoveOverhead", "spin", "50", 0, 10000),
    Option("Seed", "spin", "0", 0, 2**63 - 1),
    Option("EvalFile", "string", "shipped"),
)
"""The options of the handshake: the playing level (engine/levels.py), the transposition table
in megabytes (up to half the machine's memory), the milliseconds kept back from the clock for the
time a move takes to travel, the seed of the weaker levels' random slips, and the evaluation
(``shipped``: each family's shipped network, or the linear sum where it has none; ``none``: the
linear sum; or a network file, for its own family, to measure a network before it ships)."""

COMMANDS: Final = ("bgi", "isready", "setoption", "newgame", "position", "go", "stop", "quit")


def move_time(
    go: Go, side: Side, overhead_ms: int, *, ply: int = 0, rules: RuleSet | None = None
) -> MoveTime | None:
    """How long a move ``ply`` plies into a game of ``rules`` may take under ``go``'s
    ``movetime`` and clocks (``None``: no time limit). With ``side``'s clock, the time manager's
    soft and hard times (``time_manager.allocate``: the remaining time over the moves to go,
    or the moves the game is expected to last, plus the increment; ``overhead_ms`` kept back),
    each at most ``movetime`` when that is given too; with ``movetime`` alone, that time."""
    seconds = None if go.movetime is None else go.movetime / 1000
    remaining = go.btime if side is Side.BLUE else go.gtime
    if remaining is None:
        return None if seconds is None else MoveTime(seconds, seconds)
    increment = (go.binc if side is Side.BLUE else go.ginc) or 0
    clock = Clock(remaining / 1000, increment / 1000, go.movestogo)
    return allocate(clock, ply=ply, rules=rules, overhead=overhead_ms / 1000).capped(seconds)


def protocol_score(score: int) -> Score:
    """The protocol's score for a search's score: ``win N`` / ``loss N`` for a game decided in
    ``N`` plies, else ``cp``."""
    plies = mate_distance(score)
    if plies is None:
        return Score("cp", score)
    return Score("win" if score > 0 else "loss", plies)


def kernel_reason() -> str:
    """Why the plain kernel searched: the environment chose it, or the compiled one is not
    ready (still compiling or loading, not installed, failed)."""
    if search_choice() == "python":
        return f"{SEARCH_ENVIRONMENT}=python"
    return readiness.describe()


class EngineServer:
    """One engine session: feed it command lines with ``handle`` (or ``run``); it writes its
    replies to ``output``, a line at a time, flushed."""

    def __init__(self, output: TextIO) -> None:
        self._output = output
        self._lock = threading.Lock()
        """Guards the output and ``_busy``: a search's last line and the end of the search
        are one step, so a client that has read ``bestmove`` finds the engine idle."""
        self._values = {
            option.name.lower(): int(option.default or 0)
            for option in OPTIONS
            if option.type == "spin"
        }
        self._network: NetworkChoice = "shipped"
        """``EvalFile``: the evaluation the options ask for."""
        self._network_source = ""
        self._player: SearchPlayer | None = None
        self._game: Game | None = None
        self._busy = False
        self._infinite = False
        """Whether the running search ends only on ``stop``."""
        self._quitting = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._handlers: dict[str, Callable[[list[str]], None]] = {
            "bgi": self._bgi,
            "isready": self._isready,
            "setoption": self._setoption,
            "newgame": self._newgame,
            "position": self._position,
            "go": self._go,
            "stop": self._stop_search,
            "quit": self._quit,
        }

    # -- the loop -----------------------------------------------------------------------------

    def run(self, lines: Iterable[str]) -> int:
        """Handle lines until ``quit`` or the end of the input; the exit code (0)."""
        for line in lines:
            if not self.handle(line):
                break
        else:
            self._finish_search()  # at the end of the input, the last search still answers
        self._quit([])
        return 0

    def handle(self, line: str) -> bool:
        """Answer one command line; ``False`` once the engine has quit."""
        words = line.split()
        if not words:
            return not self._quitting
        handler = self._handlers.get(words[0])
        try:
            if handler is None:
                raise ProtocolError(
                    f"unknown command {quoted(words[0])}; commands are: {', '.join(COMMANDS)}"
                )
            handler(words[1:])
        except BlueGrayError as error:
            self.send_error(str(error))
        except Exception as error:  # a bug must not take the engine down with it
            self.send_error(f"internal error: {type(error).__name__}: {error}")
        return not self._quitting

    def send(self, line: str) -> None:
        with self._lock:
            self._write(line)

    def send_error(self, message: str) -> None:
        self.send(f"info string {ERROR_PREFIX}{' '.join(message.split())}")

    def _write(self, line: str) -> None:
        if self._quitting:
            return  # after quit the engine says nothing more
        try:
            self._output.write(line + "\n")
            self._output.flush()
        except (OSError, ValueError):
            self._quitting = True  # the client has gone: nobody is left to answer
            self._stop.set()

    # -- commands -----------------------------------------------------------------------------

    def _bgi(self, words: list[str]) -> None:
        lines = [f"id name {ENGINE_NAME}", f"id author {ENGINE_AUTHOR}"]
        lines.append(f"id protocol {PROTOCOL_VERSION}")
        lines += [str(option) for option in OPTIONS]
        # Which evaluation each preset plays with: its family's network, or the linear sum.
        lines += [
            f"info string evaluation {name}: {describe_evaluation(rules, network_for(rules))}"
            for name, rules in PRESETS.items()
        ]
        lines.append("bgiok")
        with self._lock:
            for line in lines:
                self._write(line)

    def _isready(self, words: list[str]) -> None:
        # The engine's initialisation comes before readyok, as the engine protocols have it: a
        # compiled kernel in the cache is loaded first, so that it plays the first move. A first
        # compile (a minute) is not waited for: the plain kernel plays meanwhile. During a
        # search readyok comes at once.
        warm_up()
        with self._lock:
            busy = self._busy
        if not busy:
            readiness.wait_while_loading(READY_WAIT)
        self.send("readyok")

    def _setoption(self, words: list[str]) -> None:
        if not words or words[0] != "name":
            raise ProtocolError("setoption: expected 'setoption name <name> value <value>'")
        split = words.index("value") if "value" in words else len(words)
        name = " ".join(words[1:split])
        option = next((item for item in OPTIONS if item.name.lower() == name.lower()), None)
        if option is None:
            known = ", ".join(item.name for item in OPTIONS)
            raise ProtocolError(f"setoption: unknown option {quoted(name)}; options are: {known}")
        if split >= len(words) - 1:
            wanted = "<file>" if option.type == "string" else "<number>"
            raise ProtocolError(f"setoption: option {option.name!r} needs 'value {wanted}'")
        if option.name == "EvalFile":
            self._set_eval_file(" ".join(words[split + 1 :]))
            return
        value = parse_integer(" ".join(words[split + 1 :]), f"option {option.name}")
        assert option.min is not None and option.max is not None
        if option.name == "Hash" and MEMORY and option.max < value and option.max < HASH_CEILING:
            raise ProtocolError(
                f"setoption: Hash {value} MB is more than half of this machine's memory "
                f"({MEMORY / 2**30:.1f} GB): at most {option.max} MB"
            )
        if not option.min <= value <= option.max:
            raise ProtocolError(
                f"setoption: {option.name} must be {option.min} to {option.max}, not {value}"
            )
        self._require_idle("setoption")
        self._values[option.name.lower()] = value
        if option.name != "MoveOverhead":
            self._player = None

    def _set_eval_file(self, value: str) -> None:
        """``EvalFile``: read the network before anything changes, so that a file that cannot
        be read leaves the engine as it was; name what the engine evaluates with now."""
        try:
            network = choose_network(value)
        except NetworkFileError as error:
            raise ProtocolError(f"setoption: EvalFile: {error}") from None
        self._require_idle("setoption")
        self._network, self._network_source, self._player = network, value, None
        if network == "shipped":
            self.send("info string evaluation: each family's shipped network, if it has one")
        elif network is None:
            self.send("info string evaluation: the linear evaluation in every family")
        else:
            widths = "-".join(map(str, network[0].widths))
            self.send(
                f"info string evaluation: network {value} for the family {network[1]} "
                f"(widths {widths}); positions of other families are refused"
            )

    def _check_network_family(self, rules: RuleSet) -> None:
        """A network from ``EvalFile`` evaluates positions of its own family only."""
        if isinstance(self._network, tuple) and self._network[1] != family(rules):
            raise ProtocolError(
                f"go: EvalFile {self._network_source} was trained for the family "
                f"{self._network[1]}, not {rules}'s ({family(rules)}); set EvalFile to "
                "'shipped' to play it"
            )

    def _newgame(self, words: list[str]) -> None:
        self._require_idle("newgame")
        self._player = None  # fresh tables, and the weaker levels' slips replay from the seed
        self._game = None

    def _position(self, words: list[str]) -> None:
        self._require_idle("position")
        self._game = None  # a rejected position leaves none, so no later go searches a stale one
        self._game = PositionCommand.parse(words).game()

    def _go(self, words: list[str]) -> None:
        self._require_idle("go")  # refused: no bestmove, the running search sends its own
        try:
            go = Go.parse(words)
            if self._game is None:
                raise ProtocolError("go: no position; send 'position rules <rule set> ...' first")
            self._check_network_family(self._game.rules)
        except BlueGrayError as error:
            self.send_error(str(error))
            self.send(f"bestmove {NO_MOVE}")
            return
        outcome = self._game.outcome()
        if outcome is not None:
            self.send(f"info string game over: {outcome.describe()}")
            self.send(f"bestmove {NO_MOVE}")
            return
        self._stop.clear()
        with self._lock:
            self._busy, self._infinite = True, go.infinite
        self._thread = threading.Thread(
            target=self._search, args=(self._game.copy(), go), name="search", daemon=True
        )
        self._thread.start()

    def _stop_search(self, words: list[str]) -> None:
        self._stop.set()  # idle: nothing to stop, and a stop racing a finished search is fine

    def _quit(self, words: list[str]) -> None:
        # The search is told to stop but not waited for: one that has just begun may still be
        # loading (or, on a first run, compiling) the compiled core, seconds in which it cannot
        # see the stop flag. It is a daemon thread and may write nothing more, so the process
        # exits without it.
        with self._lock:
            self._quitting = True
        self._stop.set()

    def _finish_search(self) -> None:
        """Wait for the running search's ``bestmove``, stopping it if only ``stop`` would."""
        if self._thread is not None:
            if self._infinite:
                self._stop.set()
            self._thread.join()

    def _require_idle(self, command: str) -> None:
        """Let a running search end first; one that only ``stop`` ends, and no ``stop`` yet,
        makes it an error (the ``stop`` could never be read while this command waits)."""
        with self._lock:
            busy, infinite = self._busy, self._infinite
        if not busy:
            return
        if infinite and not self._stop.is_set():
            raise ProtocolError(f"{command}: 'go infinite' is running; send 'stop' first")
        assert self._thread is not None
        self._thread.join()

    # -- the search ---------------------------------------------------------------------------

    def _search(self, game: Game, go: Go) -> None:
        """The search thread: search, report, and end with exactly one ``bestmove``."""
        move: Move | None = None
        try:
            move = self._think(game, go)
        except Exception as error:
            self.send_error(f"search failed: {type(error).__name__}: {error}")
        if go.infinite:
            self._stop.wait()
        with self._lock:
            self._busy = False
            self._write(f"bestmove {move or NO_MOVE}")

    def _think(self, game: Game, go: Go) -> Move:
        player = self.player()
        if player.config.mistake_rate > 0:
            return self._think_with_slips(player, game)
        timed = None
        if not go.infinite:
            overhead = self._values["moveoverhead"]
            timed = move_time(go, game.turn, overhead, ply=game.ply, rules=game.rules)
        requested = (
            Limits(depth=go.depth, nodes=go.nodes)
            if timed is None
            else timed.limits(go.depth, go.nodes)
        )
        # go infinite with no depth or nodes searches until stop, not to the level's own limit.
        limits = requested if go.infinite else player.limits(requested)
        searcher = player.searcher(game.rules)
        result = searcher.search(
            game.board(), limits, on_iteration=self._report, should_stop=self._stop.is_set
        )
        self._say_kernel(searcher)
        return result.move

    def _think_with_slips(self, player: SearchPlayer, game: Game) -> Move:
        """The weaker levels score every move at their fixed depth and may slip: they search
        too briefly to stop, and make one report."""
        searcher = player.searcher(game.rules)
        started = time.perf_counter()
        move = player.choose(game)
        seconds = time.perf_counter() - started
        info = Info(
            depth=player.config.limits.depth,
            nodes=searcher.nodes,
            nps=int(searcher.nodes / seconds) if seconds > 0 else 0,
            time=int(seconds * 1000),
            pv=(move,),
        )
        self.send(str(info))
        self._say_kernel(searcher)
        return move

    def _say_kernel(self, searcher: Searcher) -> None:
        """Which kernel searched, and why the plain one did when it did."""
        if searcher.kernel_name == "compiled":
            self.send("info string kernel compiled")
        else:
            self.send(f"info string kernel python: {kernel_reason()}")

    def _report(self, iteration: Iteration) -> None:
        info = Info(
            depth=iteration.depth,
            # The searcher counts seldepth in its quiescence search only; table hits can leave
            # it short of the depth, which no reader expects.
            seldepth=max(iteration.seldepth, iteration.depth),
            score=protocol_score(iteration.score),
            nodes=iteration.nodes,
            nps=iteration.nps,
            time=int(iteration.seconds * 1000),
            pv=iteration.pv,
        )
        self.send(str(info))

    def player(self) -> SearchPlayer:
        """The engine as the options configure it (made again when they change)."""
        if self._player is None:
            self._player = SearchPlayer(
                self._values["level"],
                seed=self._values["seed"],
                hash_entries=slots_within(self._values["hash"]),
                network=self._network,
            )
        return self._player


def serve(input_stream: TextIO, output: TextIO) -> int:
    """Run an engine session on two text streams (stdin and stdout); the exit code. The compiled
    kernel starts getting ready at once, in the background, while the client says hello."""
    warm_up()
    server = EngineServer(output)
    return server.run(iter(input_stream.readline, ""))
