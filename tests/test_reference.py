"""The library against the plain reference implementation of ``reference_rules``.

Seeded random games under every preset and some custom rule sets are played in both, and at
every ply the legal moves, the outcome and the position text must agree (STYLE.md: the bitboard
hot path is tested against the plain version).
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from bluegray import Game, Outcome, Position
from bluegray.perft import perft
from bluegray.points import CENTER
from bluegray.rules import PRESETS, RuleSet
from tests import reference_rules as ref
from tests.paths import CONFORMANCE

PLY_LIMIT = 400


CUSTOM_RULE_SETS = {
    text: RuleSet.parse(text)
    for text in (
        "sackson captain=turbo",
        "cooper capture=maximal army=light",
        "super stalemate=impasse impasse=advance lead=none",
        "sackson impasse-plies=12",
        "sackson army=light impasse-plies=20",
        "classic-light impasse-plies=12",
        "super-light impasse-plies=12 impasse=advance",
        "pow-classic-light impasse-plies=16 stalemate=impasse impasse=advance",
        "cooper soldiers=private",
        "sackson start=pow lead=2",
        "pow-super-light captain=standard capture=free lead=4",
        "classic-light-turbo stalemate=impasse impasse=advance impasse-plies=30",
    )
}

RULE_SETS: dict[str, RuleSet] = {**PRESETS, **CUSTOM_RULE_SETS}

GAMES_PER_RULE_SET = 10
POSITIONS_PER_RULE_SET = 50

EXPECTED_ENDINGS = {
    "sackson": {"center", "repetition", "stalemate"},
    "cooper": {"lead", "repetition"},
    "classic": {"lead", "stalemate"},
    "super stalemate=impasse impasse=advance lead=none": {"center", "stalemate"},
    "sackson impasse-plies=12": {"no-progress", "repetition"},
    "classic-light impasse-plies=12": {"no-progress", "repetition"},
    "pow-classic-light impasse-plies=16 stalemate=impasse impasse=advance": {"no-progress"},
}
"""Endings that the seeded games of some rule sets must reach, so that the comparison covers
them (the moves are chosen from sorted lists, so the games do not depend on the library)."""


def _summary(outcome: Outcome | None) -> tuple[str, str | None, bool] | None:
    if outcome is None:
        return None
    winner = None if outcome.winner is None else outcome.winner.value
    return outcome.termination.value, winner, outcome.impasse


def _reference_summary(outcome: ref.RefOutcome | None) -> tuple[str, str | None, bool] | None:
    if outcome is None:
        return None
    return outcome.reason, outcome.winner, outcome.impasse


def _assert_same(game: Game, model: ref.RefGame, where: str) -> list[str]:
    """Assert that the library and the reference agree now; return the legal moves."""
    text = str(game.position)
    assert text == str(model.position), f"{where}: positions differ"
    library_moves = [str(move) for move in game.legal_moves]
    reference_moves = model.legal_moves()
    assert library_moves == reference_moves, (
        f"{where}: legal moves differ in {text}\n"
        f"library only: {sorted(set(library_moves) - set(reference_moves))}\n"
        f"reference only: {sorted(set(reference_moves) - set(library_moves))}"
    )
    assert _summary(game.outcome()) == _reference_summary(model.outcome()), (
        f"{where}: outcomes differ in {text}"
    )
    return library_moves


def _choose(
    rng: random.Random, model: ref.RefGame, moves: list[str], shuffle: float, captain: float
) -> str:
    """A random move, sometimes taking back the mover's last step (to make repetitions happen)
    and sometimes preferring the captain (to make captains arrive)."""
    if len(model.moves) >= 2 and rng.random() < shuffle:
        last = model.moves[-2]
        if "-" in last:
            frm, to = last.split("-")
            back = f"{to}-{frm}"
            if back in moves:
                return back
    if rng.random() < captain:
        captains = [move for move in moves if model.position.placement[_start(move)] in "Cc"]
        if captains:
            return rng.choice(captains)
    return rng.choice(moves)


def _start(move: str) -> int:
    return ref.parse_point(move[:2])


def _check_from_position(rules: RuleSet, text: str, rng: random.Random, where: str) -> None:
    """A game set up from a position: rules 1, 2 and 5 at its start, the counters carried on,
    and a few moves in step with the reference; and perft from it."""
    game = Game(rules, text)
    model = ref.RefGame.new(rules, text)
    position = Position.parse(text, rules)
    assert _summary(position.outcome()) == _reference_summary(model.outcome()), where
    assert [str(m) for m in position.legal_moves()] == model.legal_moves(), where
    for ply in range(8):
        moves = _assert_same(game, model, f"{where}, set up, ply {ply}")
        if not moves:
            break
        move = rng.choice(moves)
        game.push(move)
        model.push(move)
    setup = ref.RefGame.new(rules, text)
    assert perft(position, 2) == ref.perft(setup, 2), f"{where}: perft 2 of {text}"


def _play(label: str, rules: RuleSet, seed: int) -> str | None:
    """Play one seeded random game in both implementations; return the reason it ended."""
    rng = random.Random(f"{label}/{seed}")
    shuffle = rng.choice((0.0, 0.0, 0.0, 0.3, 0.8))
    captain = rng.choice((0.0, 0.05, 0.2))
    game = Game(rules)
    model = ref.RefGame.new(rules)
    probe = rng.randrange(PLY_LIMIT // 2)
    for ply in range(PLY_LIMIT):
        where = f"{label} seed {seed} ply {ply} after {' '.join(model.moves)}"
        moves = _assert_same(game, model, where)
        if ply == probe:
            _check_from_position(rules, str(model.position), rng, where)
        if not moves:
            break
        move = _choose(rng, model, moves, shuffle, captain)
        game.push(move)
        model.push(move)
    outcome = model.outcome()
    if outcome is not None:
        _check_from_position(rules, str(model.position), rng, f"{label} seed {seed}, final")
    return None if outcome is None else outcome.reason


@pytest.mark.parametrize("label", list(RULE_SETS))
def test_random_games_match_reference(label: str) -> None:
    rules = RULE_SETS[label]
    endings = Counter(_play(label, rules, seed) for seed in range(GAMES_PER_RULE_SET))
    assert EXPECTED_ENDINGS.get(label, set()) <= set(endings), endings


def _random_position(rules: RuleSet, rng: random.Random) -> str:
    """A random valid position under ``rules``: captains anywhere on their paths (the centre
    included), soldiers scattered thickly enough for long and circular captures."""
    blue_path = ref.captain_path(rules, ref.BLUE)
    gray_path = ref.captain_path(rules, ref.GRAY)
    blue = rng.randrange(len(blue_path) if rng.random() < 0.05 else len(blue_path) - 1)
    gray = rng.randrange(len(gray_path) - 1)
    if rng.random() < 0.7:  # mostly close advancements, so that the lead rule seldom ends it
        gray = max(0, min(len(gray_path) - 2, blue + rng.randint(-2, 2)))
    placement = {blue_path[blue]: "C", gray_path[gray]: "c"}
    soldier = "P" if rules.soldiers.value == "private" else "G"
    density = rng.uniform(0.1, 0.6)
    for point in range(81):
        if point in placement or point == CENTER or rng.random() > density:
            continue
        side = rng.choice((ref.BLUE, ref.GRAY))
        letter = soldier if side == ref.BLUE else soldier.lower()
        promoted = soldier == "P" and rng.random() < 0.2
        if promoted or (letter in "Pp" and point // 9 == ref.far_rank(side)):
            letter = "G" if side == ref.BLUE else "g"
        placement[point] = letter
    turn = rng.choice((ref.BLUE, ref.GRAY))
    count = rng.choice((0, rng.randrange(rules.impasse_plies + 3)))
    return f"{ref.placement_text(placement)} {turn} {count} {rng.randrange(1, 200)}"


@pytest.mark.parametrize("label", list(RULE_SETS))
def test_random_positions_match_reference(label: str) -> None:
    rules = RULE_SETS[label]
    rng = random.Random(f"positions/{label}")
    for number in range(POSITIONS_PER_RULE_SET):
        text = _random_position(rules, rng)
        _check_from_position(rules, text, rng, f"{label} random position {number}: {text}")


def _vectors(name: str) -> list[dict[str, object]]:
    path = CONFORMANCE / name
    if not path.exists():
        pytest.skip(f"no conformance vectors at {path}")
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def test_reference_reproduces_position_vectors() -> None:
    for vector in _vectors("positions.jsonl"):
        rules = RuleSet.parse(str(vector["rules"]))
        assert ref.legal_moves(str(vector["position"]), rules) == vector["moves"], vector


@pytest.mark.slow
def test_reference_reproduces_game_vectors() -> None:
    for vector in _vectors("games.jsonl"):
        rules = RuleSet.parse(str(vector["rules"]))
        start = vector.get("start")
        model = ref.RefGame.new(rules, None if start is None else str(start))
        moves = vector["moves"]
        assert isinstance(moves, list)
        for move in moves:
            assert model.outcome() is None, vector
            model.push(str(move))
        outcome = model.outcome()
        assert outcome is not None, vector
        assert {"winner": outcome.winner, "reason": outcome.reason} == vector["result"], vector
        assert str(model.position) == vector["final"], vector


def test_reference_reproduces_small_perft_vectors() -> None:
    for vector in _vectors("perft.jsonl"):
        nodes = vector["nodes"]
        depth = vector["depth"]
        assert isinstance(nodes, int)
        assert isinstance(depth, int)
        if nodes > 5000:
            continue
        rules = RuleSet.parse(str(vector["rules"]))
        assert ref.perft(ref.RefGame.new(rules, str(vector["position"])), depth) == nodes, vector
