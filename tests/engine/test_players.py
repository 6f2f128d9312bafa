"""Players and levels: specs, legal moves everywhere, reproducibility, limits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bluegray import Game
from bluegray.engine.evaluation import DEFAULT_WEIGHTS, weights_for
from bluegray.engine.levels import LEVELS, level_config
from bluegray.engine.limits import Limits
from bluegray.engine.players import (
    GreedyPlayer,
    InvalidPlayerError,
    Player,
    RandomPlayer,
    SearchPlayer,
    parse_spec,
    player_from_spec,
)
from bluegray.errors import BlueGrayError
from bluegray.rules import PRESETS

WIN_IN_ONE = "9/9/9/9/9/5c3/9/9/4C3G g 0 40"  # Gray plays f4-e5


def play(players: tuple[Player, Player], rules: str, plies: int) -> Game:
    game = Game(rules)
    for player in players:
        player.new_game(game.rules)
    for ply in range(plies):
        if game.is_over():
            break
        move = players[ply % 2].choose(game, Limits(nodes=400))
        assert move in game.legal_moves
        game.push(move)
    return game


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        ("random", RandomPlayer),
        ("greedy", GreedyPlayer),
        ("level:1", SearchPlayer),
        ("level:8,time=2", SearchPlayer),
        (" level:5 ", SearchPlayer),
    ],
)
def test_specs(spec: str, kind: type[Player]) -> None:
    player = player_from_spec(spec)
    assert isinstance(player, kind)
    assert player.spec == spec.strip()


def test_spec_options() -> None:
    assert parse_spec("level:8,time=2,nodes=5").options == {"": "8", "time": "2", "nodes": "5"}
    player = player_from_spec("level:7,nodes=1234")
    assert isinstance(player, SearchPlayer)
    assert player.limits(None) == Limits(nodes=1234)
    assert player.limits(Limits(time=0.5)) == Limits(time=0.5)
    weak = player_from_spec("level:3,time=5")
    assert isinstance(weak, SearchPlayer)
    assert weak.limits(Limits(time=9)) == Limits(depth=3)  # a weak level keeps its depth


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("level:9", "the level must be one of 1-8"),
        ("level", "the level must be one of 1-8"),
        ("level:x", "the level must be one of 1-8"),
        ("level:5,speed=3", "unknown options speed"),
        ("level:5,time=-1", "time must be a number of seconds greater than 0"),
        ("level:5,time=soon", "time must be a number"),
        ("level:5,time=86401", "at most 86400, not '86401'"),
        ("level:5,time=1e400", "time must be a number"),
        ("level:\u00b2", "the level must be one of 1-8"),
        ("level:" + "9" * 5000, "the level must be one of 1-8"),
        ("level:8,nodes=9223372036854775808", "nodes must be at most 9223372036854775807"),
        pytest.param("level:8,nodes=" + "9" * 5000, "nodes must be at most", id="5000-digit nodes"),
        ("level:8,contempt=\u00b2", "contempt must be a whole number"),
        ("level:8,contempt=10001", "contempt must be at most 10000"),
        ("level:8,fade=1001", "fade must be at most 1000"),
        ("level:5,3", "expected key=value"),
        ("greedy:3", "unknown options"),
        ("chess", "unknown player 'chess'"),
        ("", "unknown player ''"),
    ],
)
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(InvalidPlayerError) as raised:
        player_from_spec(spec)
    assert message in str(raised.value)
    assert isinstance(raised.value, ValueError)


@pytest.mark.parametrize("rules", ["sackson", "super-light-turbo", "pow-super", "classic"])
@pytest.mark.parametrize("spec", ["random", "greedy", "level:1", "level:4", "level:7"])
def test_every_player_plays_legal_moves(rules: str, spec: str) -> None:
    play((player_from_spec(spec, seed=1), player_from_spec("random", seed=2)), rules, 24)


@pytest.mark.parametrize("spec", ["greedy", "level:1", "level:2", "level:5", "level:8"])
def test_nobody_misses_a_win_on_the_board(spec: str) -> None:
    for seed in range(5):
        game = Game("sackson", WIN_IN_ONE)
        assert str(player_from_spec(spec, seed=seed).choose(game, Limits(nodes=500))) == "f4-e5"


def test_a_seed_makes_a_player_reproducible() -> None:
    first = play(
        (player_from_spec("level:2", seed=5), player_from_spec("level:1", seed=6)), "cooper", 30
    )
    second = play(
        (player_from_spec("level:2", seed=5), player_from_spec("level:1", seed=6)), "cooper", 30
    )
    assert first.moves == second.moves


def test_players_refuse_a_finished_game() -> None:
    game = Game("sackson", "9/9/9/9/4c4/9/9/9/G3C4 b 0 18")
    for spec in ("random", "greedy", "level:2", "level:6"):
        with pytest.raises(ValueError, match="over"):
            player_from_spec(spec).choose(game)


def test_levels() -> None:
    assert sorted(LEVELS) == list(range(1, 9))
    assert all(config.description for config in LEVELS.values())
    rates = [LEVELS[level].mistake_rate for level in sorted(LEVELS)]
    assert rates[:5] == sorted(rates[:5], reverse=True) and rates[4] > 0 == max(rates[5:])
    # The levels that slip search to a fixed depth, one ply more a level; the others for a time,
    # longer at each level.
    assert [LEVELS[level].limits.depth for level in range(1, 6)] == [1, 2, 3, 4, 5]
    assert all(LEVELS[level].fixed_depth == (level <= 5) for level in LEVELS)
    times = [LEVELS[level].limits.time or 0.0 for level in (6, 7, 8)]
    assert 0 < times[0] < times[1] < times[2]
    with pytest.raises(BlueGrayError, match="unknown level 0"):
        level_config(0)


def test_a_search_player_keeps_its_table_within_a_game_only() -> None:
    player = SearchPlayer(6)
    player.new_game(PRESETS["cooper"])
    game = Game("cooper")
    player.choose(game, Limits(nodes=2000))
    searcher = player.searcher(game.rules)
    assert searcher.stored_positions
    player.new_game(PRESETS["cooper"])
    assert not searcher.stored_positions
    assert player.searcher(PRESETS["super"]).rules == PRESETS["super"]


def test_contempt_is_an_option_and_applies_only_where_an_impasse_is_a_draw() -> None:
    player = player_from_spec("level:8,nodes=200,contempt=25", seed=1)
    assert isinstance(player, SearchPlayer)
    assert player.searcher(PRESETS["cooper"]).contempt == 25
    assert player.searcher(PRESETS["sackson"]).contempt == 0  # an impasse is decided there
    with pytest.raises(InvalidPlayerError, match="contempt must be a whole number"):
        player_from_spec("level:8,contempt=-3")


def test_weights_from_a_file_of_features(tmp_path: Path) -> None:
    path = tmp_path / "siege.json"
    path.write_text(json.dumps({"siege": 33, "guards": 12.5}), encoding="utf-8")
    player = player_from_spec(f"level:8,nodes=200,weights={path}", seed=1)
    assert isinstance(player, SearchPlayer)
    weights = player.searcher(PRESETS["cooper"]).evaluator.weights
    # The file's features replace the rule set's own; the others stay as shipped.
    assert weights == {**weights_for(PRESETS["cooper"]), "siege": 33.0, "guards": 12.5}


def test_weights_from_an_older_table(tmp_path: Path) -> None:
    # A table like weights.json plays as the engine that shipped it: its families' weights over
    # the hand-set ones, and the hand-set ones for a family it does not have.
    path = tmp_path / "weights.json"
    family = "standard-guard-full-home-lead-draw"
    path.write_text(json.dumps({"families": {family: {"tempo": 3}}}), encoding="utf-8")
    player = player_from_spec(f"level:8,weights={path}", seed=1)
    assert isinstance(player, SearchPlayer)
    assert player.searcher(PRESETS["cooper"]).evaluator.weights == {
        **DEFAULT_WEIGHTS,
        "tempo": 3.0,
    }
    assert player.searcher(PRESETS["sackson"]).evaluator.weights == DEFAULT_WEIGHTS


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "cannot read the weights file"),
        ("{not json", "is not JSON"),
        ("[1, 2]", "must hold a JSON object"),
        ('{"sieges": 3}', "unknown features sieges"),
        ('{"siege": "high"}', "the weight of siege"),
        ('{"families": {"x": {"tempo": true}}}', "the weight of tempo"),
    ],
)
def test_bad_weights_files(tmp_path: Path, text: str | None, message: str) -> None:
    path = tmp_path / "weights.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidPlayerError, match=message):
        player_from_spec(f"level:8,weights={path}")


def test_fade_is_an_option_and_applies_only_where_an_impasse_is_a_draw() -> None:
    player = player_from_spec("level:8,nodes=200,fade=50", seed=1)
    assert isinstance(player, SearchPlayer)
    assert player.searcher(PRESETS["cooper"]).fade == 50
    assert player.searcher(PRESETS["sackson"]).fade == 0
    with pytest.raises(InvalidPlayerError, match="fade must be a whole number"):
        player_from_spec("level:8,fade=soon")
