"""An engine process as a player: ``EnginePlayer`` asks a program that speaks the protocol for its
moves, and the kind ``engine`` in the engine's registry of players makes one from a spec
(``engine:COMMAND[;NAME=VALUE...]``), so ``bluegray match`` and everything else that takes a
player spec can run any engine. Importing this module registers the kind.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Final

from bluegray.engine.limits import Limits
from bluegray.engine.player import InvalidPlayerError, Player, PlayerKind, register_player
from bluegray.engine.time_manager import Clock
from bluegray.errors import GameOverError
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.pieces import Side
from bluegray.protocol import Go, Limit
from bluegray.protocol.client import DEFAULT_TIMEOUT, Engine, EngineError, GoResult
from bluegray.rules import RuleSet

__all__ = ["SPEC_PREFIX", "EnginePlayer", "engine_player_from_spec"]

SPEC_PREFIX: Final = "engine:"


class EnginePlayer(Player):
    """A ``Player`` that asks an engine process for its moves: ``engine:COMMAND`` specs.

    Each ``choose`` sends the whole game (its start and every move since) and the match's
    limits as ``go depth``/``nodes``/``movetime`` (a bare ``go``, the engine's own choice, when
    there are none), or on a clock (``choose_on_clock``) both clocks as ``go btime gtime binc
    ginc``, and checks that the move it gets back is legal.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        options: Mapping[str, object] | None = None,
        seed: int | None = None,
        timeout: float | None = None,
        start_timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.engine = Engine(command, timeout=start_timeout)
        self.spec = SPEC_PREFIX + (command if isinstance(command, str) else shlex.join(command))
        self.timeout = timeout
        """Seconds a move may take at most (``None``: a time-limited move its time plus the
        engine timeout, any other as long as it needs)."""
        self.last_result: GoResult | None = None
        try:
            options = dict(options or {})
            seed_option = self.engine.option("Seed")
            seed_given = any(name.lower() == "seed" for name in options)
            if seed is not None and seed_option is not None and not seed_given:
                limit = seed_option.max
                options["Seed"] = seed % (limit + 1) if limit is not None else seed
            for name, value in options.items():
                self.engine.set_option(name, value)
        except BaseException:
            self.engine.close()
            raise

    def new_game(self, rules: RuleSet) -> None:
        self.engine.new_game()

    def choose(self, game: Game, limits: Limits | None = None) -> Move:
        limit = None if limits is None else Limit(limits.depth, limits.nodes, limits.time)
        return self._go(game, Go.from_limit(limit))

    def choose_on_clock(self, game: Game, own: Clock, other: Clock) -> Move:
        """The engine's move on the clocks, sent as ``go btime gtime binc ginc`` (and
        ``movestogo``), in milliseconds: the engine divides its time itself."""
        blue, gray = (own, other) if game.turn is Side.BLUE else (other, own)
        go = Go(
            btime=_milliseconds(blue.remaining),
            gtime=_milliseconds(gray.remaining),
            binc=_milliseconds(blue.increment),
            ginc=_milliseconds(gray.increment),
            movestogo=own.moves_to_go,
        )
        return self._go(game, go)

    def _go(self, game: Game, go: Go) -> Move:
        """Send the game and ``go``; the engine's move, checked."""
        outcome = game.outcome()
        if outcome is not None:
            raise GameOverError(f"the game is over ({outcome.describe()}): no move to choose")
        self.engine.position(game)
        result = self.engine.go(go, timeout=self.timeout)
        self.last_result = result
        if result.move is None:
            said = "; ".join(result.strings) or "no reason given"
            raise EngineError(f"engine {self.engine.name!r} gave no move: {said}")
        if not game.is_legal(result.move):
            raise EngineError(
                f"engine {self.engine.name!r} played the illegal move {str(result.move)!r} "
                f"in {game.position}"
            )
        return result.move

    def close(self) -> None:
        self.engine.close()


def _milliseconds(seconds: float) -> int:
    """A clock's seconds as the protocol's whole milliseconds (never below 0)."""
    return max(0, round(seconds * 1000))


def engine_player_from_spec(spec: str, seed: int = 0) -> EnginePlayer:
    """The player of an ``engine:COMMAND[;NAME=VALUE...]`` spec: ``COMMAND`` is split like a
    shell's words (no shell runs it); each ``NAME=VALUE`` sets the engine's option ``NAME``,
    except ``timeout=SECONDS``, the most a move may take."""
    text = spec.strip()
    if not text.startswith(SPEC_PREFIX):
        raise InvalidPlayerError(f"invalid player {spec!r}: expected {SPEC_PREFIX}COMMAND")
    command, *pairs = text[len(SPEC_PREFIX) :].split(";")
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise InvalidPlayerError(f"invalid player {spec!r}: {error}") from None
    if not argv:
        raise InvalidPlayerError(f"invalid player {spec!r}: no engine command after 'engine:'")
    options: dict[str, str] = {}
    timeout = None
    for pair in pairs:
        name, sep, value = (part.strip() for part in pair.partition("="))
        if not sep or not name:
            raise InvalidPlayerError(f"invalid player {spec!r}: expected NAME=VALUE, not {pair!r}")
        if name.lower() == "timeout":
            try:
                timeout = float(value)
            except ValueError:
                timeout = -1.0
            if not 0 < timeout < float("inf"):
                raise InvalidPlayerError(
                    f"invalid player {spec!r}: timeout must be a positive number of seconds"
                )
        else:
            options[name] = value
    player = EnginePlayer(command, options=options, seed=seed, timeout=timeout)
    player.spec = text
    return player


register_player(
    PlayerKind(
        "engine",
        engine_player_from_spec,
        "engine:COMMAND[;OPTION=VALUE...] (a program speaking the BGI protocol, "
        "docs/protocol.md, e.g. 'engine:bluegray engine;level=5'; timeout=SECONDS caps each move)",
        searches=False,  # its engine searches in a process of its own
    )
)
