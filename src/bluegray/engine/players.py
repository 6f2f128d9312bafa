"""The engine's players: the levels of the alpha-beta search, MCTS, greedy and random, registered
by name (``player``), and ``player_from_spec``, which makes the player a spec names (``level:5``,
``mcts:time=1``, ``greedy``, ``random``, or a kind an interface registered, such as
``engine:COMMAND``).
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
from collections.abc import Callable
from pathlib import Path
from typing import Final

from bluegray import bitboard
from bluegray.engine.evaluation import DEFAULT_WEIGHTS, FEATURES, Evaluator, family, weights_for
from bluegray.engine.kernel import TABLE_ENTRIES
from bluegray.engine.levels import LEVELS, level_config
from bluegray.engine.limits import DECIDED, Limits, SearchResult
from bluegray.engine.mcts_player import mcts_player_from_options
from bluegray.engine.network_file import (
    NetworkChoice,
    NetworkFileError,
    choose_network,
    evaluator_for,
)
from bluegray.engine.player import (
    InvalidPlayerError,
    Player,
    PlayerKind,
    PlayerSpec,
    find_player,
    legal_moves,
    parse_spec,
    register_player,
    spec_help,
    spec_seconds,
    spec_whole,
)
from bluegray.engine.search import Searcher
from bluegray.engine.time_manager import Clock, allocate, fixed_share
from bluegray.game import Game
from bluegray.moves import Move
from bluegray.position import move_from_raw
from bluegray.rules import MAX_IMPASSE_PLIES, RuleSet

__all__ = [
    "GreedyPlayer",
    "InvalidPlayerError",
    "Player",
    "PlayerSpec",
    "RandomPlayer",
    "SearchPlayer",
    "parse_spec",
    "player_from_spec",
    "spec_help",
    "spec_seconds",
    "spec_whole",
    "weights_from_file",
]


class RandomPlayer(Player):
    """Plays a uniformly random legal move: the floor of every strength scale."""

    def __init__(self, seed: int = 0) -> None:
        self.spec = "random"
        self._random = random.Random(seed)

    def choose(self, game: Game, limits: Limits | None = None) -> Move:
        return self._random.choice(legal_moves(game))

    def pick(self, count: int) -> int:
        """The index of the move ``choose`` would play among ``count`` legal moves (in the
        order of ``Game.legal_moves``): the same draw, for a caller that has the moves."""
        return self._random.randrange(count)


class GreedyPlayer(Player):
    """Looks one move ahead: takes a win if there is one, else the move after which the static
    evaluation is best (ties broken at random)."""

    def __init__(self, seed: int = 0) -> None:
        self.spec = "greedy"
        self._random = random.Random(seed)
        self._evaluators: dict[RuleSet, Evaluator] = {}

    def choose(self, game: Game, limits: Limits | None = None) -> Move:
        legal_moves(game)
        evaluator = self._evaluators.get(game.rules)
        if evaluator is None:
            evaluator = self._evaluators[game.rules] = evaluator_for(game.rules)
        board = game.board()
        mover = board.turn
        best: list[Move] = []
        best_score = float("-inf")
        for raw in board.moves():
            board.push(raw)
            code = board.end_by_move()
            if code:
                winner = board.winner(code)
                score = 0.0 if winner is None else (1e9 if winner == mover else -1e9)
            elif board.count_moves() == 0:
                winner = board.winner(bitboard.STALEMATE)
                score = 0.0 if winner is None else (1e9 if winner == mover else -1e9)
            else:
                score = -evaluator.evaluate(board)
            board.pop()
            if score > best_score:
                best, best_score = [move_from_raw(raw)], score
            elif score == best_score:
                best.append(move_from_raw(raw))
        return self._random.choice(best)


class SearchPlayer(Player):
    """A level of the alpha-beta engine (see ``levels``)."""

    def __init__(
        self,
        level: int,
        *,
        seed: int = 0,
        time: float | None = None,
        nodes: int | None = None,
        depth: int | None = None,
        hash_entries: int = TABLE_ENTRIES,
        weights: dict[str, float] | None = None,
        weight_table: dict[str, dict[str, float]] | None = None,
        contempt: int | None = None,
        fade: int | None = None,
        network: NetworkChoice = "shipped",
        start_share: float | None = None,
        time_manager: bool = True,
    ) -> None:
        self.config = level_config(level)
        self.level = level
        self.spec = f"level:{level}"
        self._random = random.Random(seed)
        self._override = Limits(depth=depth, nodes=nodes, time=time)
        self._hash_entries = hash_entries
        self._weights = weights
        """Evaluation weights instead of the fitted ones (for tuning and measuring them); a
        partial set takes the rest from the rule set's weights."""
        self._weight_table = weight_table
        """A table of weights by family (``weights.json``'s ``families``) instead of the
        shipped one, for example an older one."""
        self._network = network
        """``shipped``: the family's shipped network, if any; ``None``: the linear evaluation; or
        a network and the family it was trained for, to measure it before it ships."""
        self._start_share = start_share
        """The share of a move's time past which no new depth starts (``None``: the engine's)."""
        self._time_manager = time_manager
        """On a clock, the time manager's times; ``False``: the rule before it (a thirtieth of
        the time left), to measure what it brings."""
        self._contempt = self.config.contempt if contempt is None else contempt
        self._fade = fade or 0
        self._searcher: Searcher | None = None
        self.last_result: SearchResult | None = None

    def new_game(self, rules: RuleSet) -> None:
        if self._searcher is not None and self._searcher.rules == rules:
            self._searcher.new_game()
        else:
            self._searcher = Searcher(
                rules,
                evaluator=self._evaluator_for(rules),
                hash_entries=self._hash_entries,
                contempt=self._contempt,
                fade=self._fade,
            )

    def _evaluator_for(self, rules: RuleSet) -> Evaluator:
        """The family's network when it ships one and no weights were given (they are for
        measuring the linear evaluation), else the linear evaluation with the weights."""
        if self._network == "shipped":
            if self._weights is None and self._weight_table is None:
                return evaluator_for(rules)
            return Evaluator(rules, self._weights_for(rules))
        if self._network is None:
            return Evaluator(rules, self._weights_for(rules))
        network, trained_for = self._network
        if trained_for != family(rules):
            raise InvalidPlayerError(
                f"invalid player {self.spec!r}: its network was trained for the family "
                f"{trained_for!r}, not {rules}'s ({family(rules)})"
            )
        return Evaluator(rules, self._weights_for(rules), network=network)

    def _weights_for(self, rules: RuleSet) -> dict[str, float]:
        weights = weights_for(rules, self._weight_table)
        if self._weights:
            weights.update(self._weights)
        return weights

    def searcher(self, rules: RuleSet) -> Searcher:
        if self._searcher is None or self._searcher.rules != rules:
            self.new_game(rules)
        assert self._searcher is not None
        return self._searcher

    def limits(self, limits: Limits | None) -> Limits:
        """What this move's search may use: the level's own limits, replaced by the player's
        options, then by ``limits`` (a match's); a weaker level's fixed depth always holds."""
        chosen = self.config.limits
        for item in (self._override, limits):
            if item is not None and (item.depth or item.nodes or item.time):
                chosen = item
        if self.config.fixed_depth:
            return Limits(depth=self.config.limits.depth)
        if self._start_share is not None:
            return dataclasses.replace(chosen, start_share=self._start_share)
        return chosen

    def choose(
        self,
        game: Game,
        limits: Limits | None = None,
        *,
        on_iteration: Callable[..., None] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> Move:
        """The level's move; ``should_stop`` lets an interface cancel a long search (the best
        move found so far is played)."""
        legal_moves(game)
        searcher = self.searcher(game.rules)
        if self.config.mistake_rate > 0:
            return self._choose_with_mistakes(game, searcher)
        result = searcher.search(
            game.board(), self.limits(limits), on_iteration=on_iteration, should_stop=should_stop
        )
        self.last_result = result
        return result.move

    def choose_on_clock(self, game: Game, own: Clock, other: Clock) -> Move:
        """The level's move on a clock, which takes the place of its own time a move (as a
        match's ``--time`` does): the time manager's soft time to aim at, stretched when the
        search needs it, up to the hard time. A weaker level keeps its fixed depth."""
        if not self._time_manager:
            return self.choose(game, fixed_share(own).limits())
        return self.choose(game, allocate(own, ply=game.ply, rules=game.rules).limits())

    def _choose_with_mistakes(self, game: Game, searcher: Searcher) -> Move:
        """The weaker levels: score every move at the level's depth; play the best, or now and
        then one of the next few that costs at most the margin — never miss a win."""
        config = self.config
        scored = searcher.root_scores(game.board(), config.limits.depth or 1)
        best_move, best = scored[0]
        if best > DECIDED or self._random.random() >= config.mistake_rate:
            return best_move
        others = [
            move
            for move, score in scored[1 : config.candidates]
            if score >= best - config.margin and score > -DECIDED
        ]
        return self._random.choice(others) if others else best_move


MAX_CONTEMPT: Final = 10_000
"""The largest ``contempt``: a tenth of a win's score, far beyond any use."""


def player_from_spec(spec: str, *, seed: int | None = None) -> Player:
    """The player a spec names, e.g. ``level:5``; ``seed`` makes its random choices repeatable
    (without one, every player makes its own, so the weaker levels do not repeat their slips
    from game to game)."""
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
    return find_player(spec).make(spec, seed)


def _random_player(spec: str, seed: int) -> Player:
    _no_options(spec, parse_spec(spec).options)
    return RandomPlayer(seed)


def _greedy_player(spec: str, seed: int) -> Player:
    _no_options(spec, parse_spec(spec).options)
    return GreedyPlayer(seed)


def _mcts_player(spec: str, seed: int) -> Player:
    mcts = mcts_player_from_options(spec, parse_spec(spec).options, seed=seed)
    mcts.spec = spec.strip()
    return mcts


def _level_player(spec: str, seed: int) -> Player:
    options = dict(parse_spec(spec).options)
    level_text = options.pop("", None) or options.pop("level", None) or ""
    if level_text not in {str(level) for level in LEVELS}:
        raise InvalidPlayerError(
            f"invalid player {spec!r}: the level must be one of {min(LEVELS)}-{max(LEVELS)}"
        )
    time = options.pop("time", None)
    nodes = options.pop("nodes", None)
    depth = options.pop("depth", None)
    weights = options.pop("weights", "fitted")
    contempt = options.pop("contempt", None)
    fade = options.pop("fade", None)
    network = _network_option(spec, options.pop("network", "shipped"))
    start = options.pop("start", None)
    time_manager = options.pop("timeman", "on")
    if time_manager not in ("on", "off"):
        raise InvalidPlayerError(
            f"invalid player {spec!r}: timeman must be 'on' or 'off', not {time_manager!r}"
        )
    chosen_weights: dict[str, float] | None = None
    weight_table: dict[str, dict[str, float]] | None = None
    if weights == "default":
        chosen_weights = dict(DEFAULT_WEIGHTS)
    elif weights != "fitted":
        chosen_weights, weight_table = weights_from_file(spec, weights)
    _no_options(spec, options)
    player = SearchPlayer(
        int(level_text),
        seed=seed,
        time=None if time is None else spec_seconds(spec, "time", time),
        nodes=None if nodes is None else spec_whole(spec, "nodes", nodes, least=1),
        depth=None if depth is None else spec_whole(spec, "depth", depth, least=1),
        weights=chosen_weights,
        weight_table=weight_table,
        contempt=None
        if contempt is None
        else spec_whole(spec, "contempt", contempt, least=0, most=MAX_CONTEMPT),
        fade=None
        if fade is None
        else spec_whole(spec, "fade", fade, least=0, most=MAX_IMPASSE_PLIES),
        network=network,
        start_share=None if start is None else _share_option(spec, start),
        time_manager=time_manager == "on",
    )
    player.spec = spec.strip()
    return player


def _share_option(spec: str, value: str) -> float:
    """A level's ``start=`` option: a share of a move's time, more than 0 and at most 1."""
    try:
        share = float(value)
    except ValueError:
        share = math.nan
    if not 0 < share <= 1:
        raise InvalidPlayerError(
            f"invalid player {spec!r}: start must be a share of the move's time greater than 0 "
            f"and at most 1 (0.45 is the engine's), not {value!r}"
        )
    return share


def _network_option(spec: str, value: str) -> NetworkChoice:
    """A level's ``network=`` option: ``shipped`` (the default: the family's shipped network,
    if it has one), ``none`` (the linear evaluation) or a network file to measure."""
    try:
        return choose_network(value)
    except NetworkFileError as error:
        raise InvalidPlayerError(f"invalid player {spec!r}: {error}") from None


for _kind in (
    PlayerKind(
        "level",
        _level_player,
        "level:N (1-8, e.g. level:5 or level:8,time=2; options time, nodes, depth, contempt, "
        "fade, weights=default|FILE.json, network=shipped|none|FILE.json, start=SHARE, "
        "timeman=on|off)",
    ),
    PlayerKind("mcts", _mcts_player, "mcts (mcts:time=1 or mcts:iterations=2000)"),
    PlayerKind("greedy", _greedy_player, "greedy (one move ahead)", searches=False),
    PlayerKind("random", _random_player, "random", searches=False),
):
    register_player(_kind)


def weights_from_file(
    spec: str, path: str
) -> tuple[dict[str, float] | None, dict[str, dict[str, float]] | None]:
    """The weights a ``weights=FILE`` option names: a JSON object of feature weights (the rest
    taken from the rule set's own), or a whole table like ``weights.json`` (its ``families``
    replace the shipped ones: an older table plays as the engine that shipped it)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise InvalidPlayerError(
            f"invalid player {spec!r}: cannot read the weights file {path!r}: {error.strerror}"
        ) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InvalidPlayerError(
            f"invalid player {spec!r}: the weights file {path!r} is not JSON ({error})"
        ) from None
    if isinstance(data, dict) and isinstance(data.get("families"), dict):
        table = {
            name: _feature_weights(spec, path, weights)
            for name, weights in data["families"].items()
        }
        return None, table
    return _feature_weights(spec, path, data), None


def _feature_weights(spec: str, path: str, data: object) -> dict[str, float]:
    if not isinstance(data, dict):
        raise InvalidPlayerError(
            f"invalid player {spec!r}: the weights file {path!r} must hold a JSON object of "
            "feature weights or a 'families' table"
        )
    unknown = sorted(set(data) - set(FEATURES))
    if unknown:
        raise InvalidPlayerError(
            f"invalid player {spec!r}: the weights file {path!r} names unknown features "
            f"{', '.join(unknown)}"
        )
    weights = {}
    for name, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidPlayerError(
                f"invalid player {spec!r}: the weight of {name} in {path!r} must be a number"
            )
        weights[name] = float(value)
    return weights


def _no_options(spec: str, options: dict[str, str]) -> None:
    if options:
        raise InvalidPlayerError(
            f"invalid player {spec!r}: unknown options {', '.join(sorted(options))}"
        )
