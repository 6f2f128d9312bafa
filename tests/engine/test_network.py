"""Engine 4's network (``bluegray.engine.network``): the incrementally updated first layer equals
one computed from scratch, the integer widths hold at extreme inputs, the evaluation is colour
symmetric, and the file reads back what was written."""

from __future__ import annotations

import json
import random
from importlib import resources
from pathlib import Path

import pytest

from bluegray import Game, bitboard
from bluegray.bitboard import Board
from bluegray.engine.evaluation import Evaluator, family
from bluegray.engine.network import (
    ACCUMULATOR_LIMIT,
    ACTIVATION_MAX,
    BIAS_LIMIT,
    COUNT_BASE,
    EVAL_LIMIT,
    FEATURE_COUNT,
    INT8_LIMIT,
    INT16_LIMIT,
    MAX_ACTIVE,
    NO_PROGRESS_MARKS,
    OUTPUT_MULTIPLIER,
    OUTPUT_SHIFT,
    Accumulators,
    Layer,
    Network,
    NetworkError,
    active_features,
    corrected,
    evaluate,
    move_delta,
    random_network,
)
from bluegray.engine.network_file import (
    FloatNetwork,
    NetworkFileError,
    float_value,
    network_for,
    network_json,
    parse_network,
    quantise,
    read_network,
    write_network,
)
from bluegray.engine.player import InvalidPlayerError
from bluegray.engine.players import SearchPlayer, player_from_spec
from bluegray.position import Position
from bluegray.rules import PRESETS, RuleSet
from bluegray.steps import SOLDIER_SQUARES

WIDTHS = (8, 4, 4)


def uniform_network(weight: int, bias: int, hidden_weight: int, hidden_bias: int) -> Network:
    """A network whose every parameter of a kind is the same number."""
    width, *hidden = WIDTHS
    layers = []
    inputs = 2 * width
    for outputs in hidden:
        layers.append(Layer(((hidden_weight,) * inputs,) * outputs, (hidden_bias,) * outputs))
        inputs = outputs
    return Network(
        accumulator=((weight,) * width,) * FEATURE_COUNT,
        accumulator_biases=(bias,) * width,
        hidden=tuple(layers),
        output=Layer(((hidden_weight,) * inputs,), (hidden_bias,)),
    )


def scratch(network: Network, board: Board) -> list[list[int]]:
    """The first layer's sums from scratch, one number at a time (no packing)."""
    sums = []
    for perspective in (0, 1):
        row = list(network.accumulator_biases)
        for feature in active_features(board, perspective):
            row = [t + w for t, w in zip(row, network.accumulator[feature], strict=True)]
        sums.append(row)
    assert Accumulators(network, board).values == sums
    return sums


def random_games(rules: RuleSet, rng: random.Random, games: int, plies: int) -> list[Board]:
    """Positions from random games of ``rules`` (some with the no-progress count near its
    limit, so that its features change)."""
    found = []
    for game in range(games):
        board = Position.start(rules).board()
        if game % 2:
            board.count = max(0, rules.impasse_plies - 40)
        for _ in range(plies):
            if board.end() != bitboard.ONGOING:
                break
            found.append(board.copy())
            board.push(rng.choice(board.moves()))
    return found


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_updated_first_layer_equals_one_from_scratch_after_make_and_unmake(name: str) -> None:
    rules = PRESETS[name]
    rng = random.Random(name)
    network = random_network(rng, WIDTHS)
    for game in range(4):
        board = Position.start(rules).board()
        if game % 2:
            board.count = max(0, rules.impasse_plies - 40)
        accumulators = Accumulators(network, board)
        for _ in range(120):
            if board.ply and (board.end() != bitboard.ONGOING or rng.random() < 0.3):
                board.pop()
                accumulators.pop()
            else:
                move = rng.choice(board.moves())
                delta = move_delta(board, move)
                before = [set(active_features(board, p)) for p in (0, 1)]
                board.push(move)
                accumulators.push(delta, board.count)
                for p in (0, 1):
                    after = set(active_features(board, p))
                    # The delta names exactly the piece and race features the move changes.
                    changed = {f for f in before[p] ^ after if f < COUNT_BASE}
                    assert changed == set(delta.added[p]) | set(delta.removed[p])
            assert accumulators.count == board.count
            assert accumulators.values == scratch(network, board)
        while board.ply:
            board.pop()
            accumulators.pop()
        assert accumulators.values == scratch(network, board)


def full_board(count: int) -> Board:
    """Every soldier point filled (Blue's guards on ranks 1-4 and the left of rank 5, Gray's on
    the rest), the captains on their starts: the most features a perspective can have."""
    rules = PRESETS["sackson"]
    captains = (4, 76)  # e1, e9
    soldiers = SOLDIER_SQUARES & ~(1 << captains[0]) & ~(1 << captains[1])
    low = soldiers & ((1 << 40) - 1)
    return Board(rules, (low, soldiers & ~low), (0, 0), captains, 0, count, 1)


def test_the_accumulator_cannot_wrap_even_with_every_point_filled() -> None:
    board = full_board(count=PRESETS["sackson"].impasse_plies - 1)
    active = active_features(board, 0)
    assert len(active) == 80 + 1 + len(NO_PROGRESS_MARKS) <= MAX_ACTIVE
    for sign in (1, -1):
        limit = sign * ACCUMULATOR_LIMIT
        values = scratch(uniform_network(limit, limit, 0, 0), board)
        assert values == [[limit * (1 + len(active))] * WIDTHS[0]] * 2
        assert abs(limit * (1 + MAX_ACTIVE)) <= INT16_LIMIT


def test_weights_beyond_their_widths_are_refused() -> None:
    with pytest.raises(NetworkError, match="accumulator weight"):
        uniform_network(ACCUMULATOR_LIMIT + 1, 0, 0, 0)
    with pytest.raises(NetworkError, match="accumulator bias"):
        uniform_network(0, -ACCUMULATOR_LIMIT - 1, 0, 0)
    with pytest.raises(NetworkError, match="weight of layer 1"):
        uniform_network(0, 0, INT8_LIMIT + 1, 0)
    with pytest.raises(NetworkError, match="bias of layer 1"):
        uniform_network(0, 0, 0, BIAS_LIMIT + 1)


@pytest.mark.parametrize("sign", [1, -1])
def test_extreme_parameters_saturate_every_layer_as_specified(sign: int) -> None:
    board = full_board(count=0)
    network = uniform_network(
        sign * ACCUMULATOR_LIMIT, sign * ACCUMULATOR_LIMIT, sign * INT8_LIMIT, sign * BIAS_LIMIT
    )
    accumulators = Accumulators(network, board)
    # Clipped to 0..127 at every layer, then the output's sum, scaled, clamped to the limit.
    hidden = WIDTHS[1:]
    activation = ACTIVATION_MAX if sign > 0 else 0
    total = sign * BIAS_LIMIT + sign * INT8_LIMIT * activation * hidden[-1]
    expected = max(-EVAL_LIMIT, min(EVAL_LIMIT, (total * OUTPUT_MULTIPLIER) >> OUTPUT_SHIFT))
    assert expected == sign * EVAL_LIMIT
    assert evaluate(network, accumulators, 0) == expected == evaluate(network, accumulators, 1)


def test_shifts_round_towards_minus_infinity() -> None:
    board = full_board(count=0)
    # All zero but the biases: a hidden sum of -1 shifts to -1 and clips to 0; the output's
    # -1 times the multiplier shifts to -1, not 0 (an arithmetic shift, as numba's).
    network = uniform_network(0, 0, 0, 0)
    network = Network(
        network.accumulator,
        network.accumulator_biases,
        tuple(Layer(layer.weights, (-1,) * len(layer.biases)) for layer in network.hidden),
        Layer(network.output.weights, (-1,)),
    )
    assert network.evaluate_board(board) == -1
    network = Network(
        network.accumulator,
        network.accumulator_biases,
        network.hidden,
        Layer(network.output.weights, (1,)),
    )
    assert network.evaluate_board(board) == 0


def rotated(bitboard_: int) -> int:
    """A bitboard turned 180° about e5."""
    return sum(1 << (80 - point) for point in bitboard.bits(bitboard_))


def colour_mirror(board: Board) -> Board:
    """The same position with the colours exchanged: turned 180°, Blue's pieces Gray's, the
    other side to move (the rules are symmetric so: every rule set's paths, privates' forward
    and the far ranks turn into each other)."""
    return Board(
        board.rules,
        (rotated(board.guards[1]), rotated(board.guards[0])),
        (rotated(board.privates[1]), rotated(board.privates[0])),
        (80 - board.captains[1], 80 - board.captains[0]),
        board.turn ^ 1,
        board.count,
        board.number,
    )


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_position_and_its_colour_mirror_score_alike_for_the_side_to_move(name: str) -> None:
    rules = PRESETS[name]
    rng = random.Random(f"mirror {name}")
    network = random_network(rng, WIDTHS)
    scores = set()
    for board in random_games(rules, rng, games=2, plies=60):
        mirror = colour_mirror(board)
        assert mirror.count_moves() == board.count_moves()
        assert mirror.advancement(0) == board.advancement(1)
        score = network.evaluate_board(board)
        assert network.evaluate_board(mirror) == score
        # From Blue's point of view the two are opposite.
        blue = score if board.turn == 0 else -score
        assert (-score if mirror.turn == 1 else score) == -blue
        scores.add(score)
    assert len(scores) > 10  # the network tells positions apart


def random_float_network(rng: random.Random) -> FloatNetwork:
    width, *hidden = WIDTHS
    layers = []
    inputs = 2 * width
    for outputs in hidden:
        layers.append(
            (
                [[rng.uniform(-1, 1) for _ in range(inputs)] for _ in range(outputs)],
                [rng.uniform(0, 0.5) for _ in range(outputs)],
            )
        )
        inputs = outputs
    return FloatNetwork(
        accumulator=[[rng.uniform(-0.3, 0.3) for _ in range(width)] for _ in range(FEATURE_COUNT)],
        accumulator_biases=[rng.uniform(0, 0.6) for _ in range(width)],
        hidden=layers,
        output=([[rng.uniform(-1.5, 1.5) for _ in range(inputs)]], [rng.uniform(-0.5, 0.5)]),
    )


def test_the_quantised_network_follows_the_float_one() -> None:
    rng = random.Random(5)
    floats = random_float_network(rng)
    network = quantise(floats)
    errors = [
        abs(network.evaluate_board(board) - float_value(floats, board))
        for board in random_games(PRESETS["cooper"], rng, games=2, plies=50)
    ]
    spread = max(
        abs(float_value(floats, board)) for board in random_games(PRESETS["cooper"], rng, 1, 50)
    )
    assert spread > 50
    assert max(errors) < 25, max(errors)


def test_a_network_file_reads_back_what_was_written(tmp_path: Path) -> None:
    network = random_network(random.Random(3), WIDTHS)
    path = tmp_path / "net.json"
    write_network(path, network, "some-family", {"positions": 3})
    assert read_network(path) == (network, "some-family")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda text: text.replace('"bluegray-network"', '"other"'), "not a network file"),
        (lambda text: text.replace('"version":1', '"version":2'), "version 2"),
        (lambda text: text.replace('"biases":[', '"biases":[99999,', 1), "accumulator bias"),
        (lambda text: text[:-10], "JSON"),
    ],
)
def test_a_broken_network_file_is_refused_clearly(change: object, message: str) -> None:
    text = network_json(random_network(random.Random(4), WIDTHS), "f")
    assert callable(change)
    with pytest.raises(NetworkFileError, match=message):
        parse_network(change(text))


def test_the_families_that_beat_engine_3_ship_a_network_trained_for_them() -> None:
    # Engine 4: sackson's family, cooper's (which classic shares), super's and pow-classic's
    # play with their networks (each passed its SPRT against engine 3 at 0.2 s a move, docs/strength.md); every
    # other family keeps the linear evaluation until one of its own passes.
    shipping = {name for name, rules in PRESETS.items() if network_for(rules) is not None}
    assert shipping == {"sackson", "cooper", "classic", "super", "pow-classic"}
    text = (
        resources.files("bluegray.engine")
        .joinpath("networks", f"{family(PRESETS['sackson'])}.json")
        .read_text("utf-8")
    )
    network, family_name = parse_network(text)
    assert family_name == family(PRESETS["sackson"])
    assert network.widths == network_for(PRESETS["sackson"]).widths  # type: ignore[union-attr]
    training = json.loads(text)["training"]
    assert training["rules"] == "sackson" and training["mix"] == 1.0


def defined_value(network: Network, board: Board) -> int:
    """The evaluation as docs/evaluation.md defines it, one number at a time, with no packing:
    what ``Network.evaluate`` must equal."""
    sums = scratch(network, board)
    assert all(-INT16_LIMIT <= t <= INT16_LIMIT for row in sums for t in row)
    inputs = [min(ACTIVATION_MAX, max(0, v)) for v in sums[board.turn] + sums[board.turn ^ 1]]
    for layer in network.hidden:
        inputs = [
            min(
                ACTIVATION_MAX,
                max(0, (b + sum(w * x for w, x in zip(row, inputs, strict=True))) // 64),
            )
            for row, b in zip(layer.weights, layer.biases, strict=True)
        ]
    total = network.output.biases[0] + sum(
        w * x for w, x in zip(network.output.weights[0], inputs, strict=True)
    )
    assert -(2**31) <= total < 2**31
    return max(-EVAL_LIMIT, min(EVAL_LIMIT, (total * network.output_multiplier) // 2**OUTPUT_SHIFT))


def wild_network(rng: random.Random) -> Network:
    """Random parameters anywhere within the widths: many sums saturate, some go negative."""
    width, *hidden = WIDTHS
    layers = []
    inputs = 2 * width
    for outputs in hidden:
        weights = tuple(
            tuple(rng.randint(-INT8_LIMIT, INT8_LIMIT) for _ in range(inputs))
            for _ in range(outputs)
        )
        layers.append(
            Layer(
                weights,
                tuple(
                    rng.randint(-BIAS_LIMIT, BIAS_LIMIT) // rng.choice([1, 64, 4096])
                    for _ in range(outputs)
                ),
            )
        )
        inputs = outputs
    limit = ACCUMULATOR_LIMIT
    return Network(
        accumulator=tuple(
            tuple(rng.randint(-limit, limit) for _ in range(width)) for _ in range(FEATURE_COUNT)
        ),
        accumulator_biases=tuple(rng.randint(-limit, limit) for _ in range(width)),
        hidden=tuple(layers),
        output=Layer(
            (tuple(rng.randint(-INT8_LIMIT, INT8_LIMIT) for _ in range(inputs)),),
            (rng.randint(-BIAS_LIMIT, BIAS_LIMIT),),
        ),
    )


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_evaluation_is_its_definition(name: str) -> None:
    rng = random.Random(f"definition {name}")
    networks = [random_network(rng, WIDTHS), wild_network(rng), wild_network(rng)]
    boards = random_games(PRESETS[name], rng, games=2, plies=40)
    boards.append(full_board(count=90))
    for network in networks:
        for board in boards:
            assert network.evaluate_board(board) == defined_value(network, board)


def test_a_level_plays_with_a_network_file_or_the_linear_evaluation(tmp_path: Path) -> None:
    """``network=FILE`` measures a network before it ships, ``network=none`` plays the linear
    evaluation; a file of another family, or no network file, is refused clearly."""
    network = random_network(random.Random(3), WIDTHS)
    path = tmp_path / "candidate.json"
    write_network(path, network, family(PRESETS["sackson"]))
    game = Game("sackson")
    player = player_from_spec(f"level:2,network={path}", seed=1)
    assert player.choose(game) in game.legal_moves
    assert isinstance(player, SearchPlayer)
    assert player.searcher(game.rules).evaluator.network == network
    linear = player_from_spec("level:2,network=none", seed=1)
    assert isinstance(linear, SearchPlayer)
    assert linear.searcher(game.rules).evaluator.network is None
    with pytest.raises(InvalidPlayerError, match="trained for the family"):
        player.choose(Game("cooper"))
    (tmp_path / "broken.json").write_text("{}", encoding="utf-8")
    for spec, message in (
        (f"level:2,network={tmp_path / 'missing.json'}", "cannot read the network file"),
        (f"level:2,network={tmp_path / 'broken.json'}", "not a network file"),
    ):
        with pytest.raises(InvalidPlayerError, match=message):
            player_from_spec(spec)


@pytest.mark.parametrize("name", ["sackson", "cooper", "super-turbo"])
def test_engine_4s_evaluation_is_the_linear_one_corrected_by_the_network(name: str) -> None:
    """The network's output is added to the linear evaluation (clamped), so a network whose
    output is always zero plays exactly as engine 3."""
    rules = PRESETS[name]
    network = random_network(random.Random(11), WIDTHS)
    linear = Evaluator(rules)
    engine_4 = Evaluator(rules, network=network)
    silent = Evaluator(rules, network=uniform_network(0, 0, 0, 0))
    for board in random_games(rules, random.Random(12), 4, 30):
        expected = corrected(linear.evaluate(board), network.evaluate_board(board))
        assert engine_4.evaluate(board) == expected
        assert silent.evaluate(board) == linear.evaluate(board)
    assert corrected(29_000, 5_000) == EVAL_LIMIT and corrected(-29_000, -5_000) == -EVAL_LIMIT
