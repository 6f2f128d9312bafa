"""Perft: counting the move sequences of a given length, to test and time the move generator."""

from __future__ import annotations

from bluegray import bitboard
from bluegray.moves import Move
from bluegray.position import Position, move_from_raw


def perft(position: Position, depth: int, *, bulk: bool = True) -> int:
    """The number of sequences of exactly ``depth`` legal moves from ``position``.

    A finished game has no moves; the history before the position is empty
    (docs/rules-reference.md §7). With ``bulk`` (the default) the last ply is counted without
    being played; without it every move is played and taken back, which is slower and times
    make/unmake too.
    """
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, not {depth}")
    if depth == 0:
        return 1
    board = position.board()
    if board.end_at_start() != bitboard.ONGOING:
        return 0
    return _perft(board, depth) if bulk else _perft_every_move(board, depth)


def divide(position: Position, depth: int) -> dict[Move, int]:
    """For each legal move, the perft of ``depth - 1`` after it (the numbers add up to perft)."""
    if depth < 1:
        raise ValueError(f"perft divide needs a depth >= 1, not {depth}")
    board = position.board()
    if board.end_at_start() != bitboard.ONGOING:
        return {}
    result = {}
    for raw in board.moves():
        board.push(raw)
        if depth == 1:
            nodes = 1
        elif board.end_by_move() != bitboard.ONGOING:
            nodes = 0
        else:
            nodes = _perft(board, depth - 1)
        board.pop()
        result[move_from_raw(raw)] = nodes
    return dict(sorted(result.items(), key=lambda item: str(item[0])))


def _perft(board: bitboard.Board, depth: int) -> int:
    """Perft of an unfinished board; the last ply is counted in bulk, without playing it."""
    if depth == 1:
        return board.count_moves()
    moves = board.moves()
    push = board.push
    pop = board.pop
    ended = board.end_by_move
    total = 0
    if depth == 2:
        count = board.count_moves
        for move in moves:
            push(move)
            if not ended():
                total += count()
            pop()
    else:
        for move in moves:
            push(move)
            if not ended():
                total += _perft(board, depth - 1)
            pop()
    return total


def _perft_every_move(board: bitboard.Board, depth: int) -> int:
    """Perft of an unfinished board that plays every move, the last ply included."""
    total = 0
    for move in board.moves():
        if depth == 1:
            board.push(move)
            total += 1
        else:
            board.push(move)
            if not board.end_by_move():
                total += _perft_every_move(board, depth - 1)
        board.pop()
    return total
