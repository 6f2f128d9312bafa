"""Engine 4's network inside both search kernels: the compiled accumulators (``compiled.network``) follow
the plain network's definition (``network``) through make and unmake, the compiled evaluation is
the plain one bit for bit (saturating parameters included), and with a network the plain and
the compiled kernels still search the same tree (as ``test_kernels.py`` checks without one)."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("numba")  # the compiled engine: skipped without numba (in CI, a failure)

from bluegray import Game, bitboard
from bluegray.bitboard import Board
from bluegray.engine.compiled.board import compiled_board, compiled_rules, make, unmake
from bluegray.engine.compiled.evaluation import compiled_evaluation
from bluegray.engine.compiled.frames import SEARCH_MOVES
from bluegray.engine.compiled.moves import capture_stack, generate_moves
from bluegray.engine.compiled.network import (
    CompiledNetwork,
    compiled_network,
    network_value,
    push_move,
    refresh,
)
from bluegray.engine.compiled.node import make_null, unmake_null
from bluegray.engine.evaluation import Evaluator, family
from bluegray.engine.limits import Limits
from bluegray.engine.network import (
    ACCUMULATOR_LIMIT,
    BIAS_LIMIT,
    INT8_LIMIT,
    Accumulators,
    Network,
    random_network,
)
from bluegray.engine.network_file import describe_evaluation, evaluator_for, network_for
from bluegray.engine.records import MADE, MOVE_WIDTH
from bluegray.engine.search import Searcher
from bluegray.position import Position
from bluegray.rules import PRESETS
from tests.engine.test_kernels import position_of, trace
from tests.engine.test_network import (
    WIDTHS,
    full_board,
    random_games,
    uniform_network,
    wild_network,
)
from tests.protocol.engine_session import EngineSession

NETWORK_WIDTHS = (32, 8, 8)
"""The shipped files' widths (``network_file.DEFAULT_WIDTHS``): the cost measured is the real
one."""


def search_network(rules: str) -> Network:
    """A random network of the shipped widths, for a rule set."""
    return random_network(random.Random(f"kernels {rules}"), widths=NETWORK_WIDTHS)


@pytest.mark.slow  # up to 10 s a rule set on the loaded machine: a random network's trees are big
@pytest.mark.parametrize("rules", PRESETS)
def test_with_a_network_both_kernels_search_the_same_tree_at_depths_one_to_six(
    rules: str,
) -> None:
    game = position_of(rules, 1)
    network = search_network(rules)
    evaluator = Evaluator(game.rules, network=network)
    plain = Searcher(game.rules, evaluator=evaluator, compiled=False)
    compiled = Searcher(game.rules, evaluator=evaluator, compiled=True)
    for depth in range(1, 7):
        plain.new_game()
        compiled.new_game()
        slow = plain.search(game.board(), Limits(depth=depth))
        fast = compiled.search(game.board(), Limits(depth=depth))
        assert (slow.kernel, fast.kernel) == ("python", "compiled")
        assert trace(slow) == trace(fast), (str(game.position), depth)


@pytest.mark.parametrize(("rules", "fade"), [("cooper", 60), ("super-turbo", 0)])
def test_with_a_network_both_kernels_agree_along_a_game_with_null_moves_and_node_limits(
    rules: str, fade: int
) -> None:
    # Deeper searches than above, so that null moves and the no-progress features come in.
    game = Game(rules)
    evaluator = Evaluator(game.rules, network=search_network(rules))
    plain = Searcher(game.rules, evaluator=evaluator, compiled=False, fade=fade)
    compiled = Searcher(game.rules, evaluator=evaluator, compiled=True, fade=fade)
    rng = random.Random(rules)
    for ply in range(8):
        limits = (Limits(depth=6), Limits(nodes=2500))[ply % 2]
        slow = plain.search(game.board(), limits)
        fast = compiled.search(game.board(), limits)
        assert trace(slow) == trace(fast), (str(game.position), limits)
        game.push(slow.move if ply % 2 == 0 else rng.choice(game.legal_moves))
        if game.is_over():
            break


def _stack_top(net: CompiledNetwork, state: np.ndarray) -> list[list[int]]:
    """The compiled accumulators of the current position, as lists."""
    return [[int(v) for v in row] for row in net.stack[state[MADE]]]


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_compiled_accumulators_equal_ones_from_scratch_after_random_make_and_unmake(
    name: str,
) -> None:
    rules = PRESETS[name]
    rng = random.Random(f"compiled accumulators {name}")
    network = random_network(rng, widths=NETWORK_WIDTHS)
    tables = bitboard.rule_tables(rules)
    arrays = compiled_rules(tables)
    scoring = compiled_evaluation(Evaluator(rules, network=network))
    net = scoring.network
    buffers = np.zeros((64, SEARCH_MOVES, MOVE_WIDTH), np.int64)
    work = capture_stack()
    for game in range(4):
        board = Position.start(rules).board()
        if game % 2:
            board.count = max(0, rules.impasse_plies - 40)  # the no-progress features change
        cells, state, history, undo = compiled_board(board, 64)
        refresh(cells, state, arrays.advancement, net)
        made: list[str] = []
        for _ in range(120):
            assert _stack_top(net, state) == Accumulators(network, board).values
            depth = len(made)
            unfinished = board.end() == bitboard.ONGOING
            if depth and (not unfinished or depth >= 60 or rng.random() < 0.35):
                kind = made.pop()
                board.pop()
                if kind == "null":
                    unmake_null(state, undo)
                else:
                    unmake(cells, state, undo, buffers[depth - 1][int(kind)])
                continue
            if not unfinished:
                break
            if rng.random() < 0.1:
                board.push_null()
                make_null(state, history, undo, arrays.zobrist_gray, scoring)
                made.append("null")
                continue
            moves = board.moves()
            n = generate_moves(cells, state, arrays, buffers[depth], work)
            assert n == len(moves)
            index = rng.randrange(n)
            board.push(moves[index])
            row = buffers[depth][index]
            make(cells, state, history, undo, row, arrays.zobrist, arrays.zobrist_gray)
            push_move(cells, state, undo, row, arrays.advancement, net)
            made.append(str(index))


def _compiled_value(network: Network, board: Board) -> int:
    net = compiled_network(network, board.tables.impasse_plies)
    cells, state, _, _ = compiled_board(board, 1)
    refresh(cells, state, compiled_rules(board.tables).advancement, net)
    return int(network_value(state, net))


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_compiled_evaluation_is_the_plain_one_bit_for_bit(name: str) -> None:
    rng = random.Random(f"compiled evaluation {name}")
    networks = [
        random_network(rng, WIDTHS),
        random_network(rng, widths=NETWORK_WIDTHS),
        random_network(rng, widths=(4,)),
        random_network(rng, widths=(16, 8, 4, 4)),
        wild_network(rng),
        wild_network(rng),
    ]
    boards = random_games(PRESETS[name], rng, games=2, plies=30)
    for network in networks:
        for board in boards:
            assert _compiled_value(network, board) == network.evaluate_board(board)


@pytest.mark.parametrize("sign", [1, -1])
def test_the_compiled_evaluation_saturates_as_the_plain_one(sign: int) -> None:
    # Every parameter at its bound: the accumulators at their most (the full board), every
    # activation clipped, the output clamped; and the biases alone, for the shifts' floors.
    networks = [
        uniform_network(
            sign * ACCUMULATOR_LIMIT, sign * ACCUMULATOR_LIMIT, sign * INT8_LIMIT, sign * BIAS_LIMIT
        ),
        uniform_network(sign * ACCUMULATOR_LIMIT, -sign * ACCUMULATOR_LIMIT, sign * INT8_LIMIT, 0),
        uniform_network(0, 0, 0, -sign),
        uniform_network(0, 0, 0, -sign * 65),
    ]
    for count in (0, PRESETS["sackson"].impasse_plies - 1):
        board = full_board(count)
        for network in networks:
            for turn in (0, 1):
                board.turn = turn
                assert _compiled_value(network, board) == network.evaluate_board(board)


def test_without_a_network_the_compiled_arrays_say_so_and_the_engine_names_its_evaluation() -> None:
    rules = PRESETS["super-light"]
    assert network_for(rules) is None
    evaluator = evaluator_for(rules)
    assert evaluator.network is None
    assert int(compiled_evaluation(evaluator).network.shape[0]) == 0
    assert describe_evaluation(rules, None) == (
        "linear evaluation: no network for this family (standard-private-light-home-lead-draw)"
    )
    network = search_network("super-light")
    assert describe_evaluation(rules, network) == (
        "network a network given for the family standard-private-light-home-lead-draw "
        "(format version 1, widths 32-8-8)"
    )
    assert describe_evaluation(rules, network, "runs/super-light.json") == (
        "network runs/super-light.json for the family standard-private-light-home-lead-draw "
        "(format version 1, widths 32-8-8)"
    )
    sackson = PRESETS["sackson"]
    assert describe_evaluation(sackson, None) == (
        "linear evaluation: its network (standard-guard-full-home-nolead-advance) is turned off"
    )
    assert describe_evaluation(sackson, network_for(sackson)) == (
        "network networks/standard-guard-full-home-nolead-advance.json "
        "(format version 1, widths 32-8-8)"
    )


def test_the_engine_names_each_presets_evaluation_in_its_handshake() -> None:
    session = EngineSession()
    session.send("bgi")
    lines = session.until("bgiok")
    assert session.quit() == 0
    said = [line for line in lines if line.startswith("info string evaluation ")]
    assert len(said) == len(PRESETS)
    for line, (name, rules) in zip(said, PRESETS.items(), strict=True):
        shipped = network_for(rules) is not None
        evaluation = f"network networks/{family(rules)}.json" if shipped else "linear evaluation"
        assert line.startswith(f"info string evaluation {name}: {evaluation}"), line
    assert sum("network networks/" in line for line in said) >= 1
