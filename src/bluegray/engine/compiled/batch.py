"""The compiled simulation's loops over a batch: random playouts, one action in every game, the
vector environment's step, masks and observations for all games. Each is one call from Python
for the whole batch (``simulation`` is the public API; ``compiled.simulation`` holds what one game
does).
"""

from __future__ import annotations

from typing import Final, NamedTuple

import numpy as np

from bluegray.engine.compiled.board import ONGOING, CompiledRules
from bluegray.engine.compiled.compiler import compiled, use_source_keyed_cache
from bluegray.engine.compiled.simulation import (
    CONTINUES,
    DEPTH,
    END,
    ILLEGAL,
    LEGAL,
    PLIES,
    WINNER,
    ActionTables,
    Games,
    Work,
    _matches,
    apply_action,
    below,
    fill_mask,
    observe,
    play,
    play_random_move,
    regenerate,
    settle,
    uniform,
)
from bluegray.engine.move_lists import DIGEST_FACTOR, DIGEST_START
from bluegray.engine.records import COUNT, HISTORY_LENGTH, MOVE_WIDTH, TURN

use_source_keyed_cache()

# Who answers the agents' moves inside an environment.
SELF_PLAY: Final = 0
"""No opponent: both sides are agents."""
RANDOM_OPPONENT: Final = 1
"""Uniformly random moves, played inside the compiled step."""
PLAYER_OPPONENT: Final = 2
"""A Python player: the step leaves its moves to the caller (``pending``)."""

RANDOM_SIDE: Final = 2
"""An agent side drawn at each reset (0 Blue, 1 Gray otherwise)."""


class Trace(NamedTuple):
    """Trajectories being recorded: per game and ply, the move row, its index among the legal
    moves, their number and their digest (``moves_digest``), and the hash and no-progress count
    after it. Empty arrays record nothing."""

    moves: np.ndarray
    choices: np.ndarray
    legal: np.ndarray
    digests: np.ndarray
    hashes: np.ndarray
    counts: np.ndarray


@compiled()
def moves_digest(moves: np.ndarray, n: int) -> np.uint64:
    """A digest of the first ``n`` move rows, in order (each row's from, to, count and taken
    points, FNV-1a over the numbers): two generators' lists of a position compare by it."""
    h = DIGEST_START
    for j in range(n):
        for column in range(3 + moves[j, 2]):
            h = (h ^ np.uint64(moves[j, column])) * DIGEST_FACTOR
    return h


@compiled()
def settle_all(games: Games, rules: CompiledRules, work: Work, which: np.ndarray) -> None:
    """``settle`` the games listed in ``which`` (just set up)."""
    for k in range(which.shape[0]):
        settle(which[k], games, rules, work)


@compiled()
def random_playouts(
    games: Games,
    rules: CompiledRules,
    work: Work,
    active: np.ndarray,
    stop_at: np.ndarray,
    trace: Trace,
    recorded: np.ndarray,
) -> None:
    """Play each active game on with uniformly random moves until it ends, or until it has been
    played for ``stop_at[g]`` plies (its ``PLIES``), or until its row of ``trace`` is full when
    it records one (``recorded[g]`` counts the plies recorded in it). A capture in progress is
    finished by one of the captures that continue it."""
    recording = trace.moves.shape[1] > 0
    room = trace.moves.shape[1]
    move = work.move
    for g in range(games.cells.shape[0]):
        status = games.status[g]
        if not active[g] or status[END] != ONGOING:
            continue
        n = regenerate(g, games, rules, work)
        depth = status[DEPTH]
        if depth:
            kept = 0
            for j in range(n):
                if _matches(work.moves[j], games.landings[g], depth) >= 0:
                    for column in range(MOVE_WIDTH):
                        work.moves[kept, column] = work.moves[j, column]
                    kept += 1
            n = kept
            status[DEPTH] = 0
        t = recorded[g]
        while status[PLIES] < stop_at[g] and n > 0:
            if recording and t >= room:
                break
            choice = below(games.rng, g, n)
            for column in range(MOVE_WIDTH):
                move[column] = work.moves[choice, column]
            if recording:
                for column in range(MOVE_WIDTH):
                    trace.moves[g, t, column] = move[column]
                trace.choices[g, t] = choice
                trace.legal[g, t] = n
                trace.digests[g, t] = moves_digest(work.moves, n)
            n = play(g, move, games, rules, work)
            if recording:
                state = games.state[g]
                trace.hashes[g, t] = games.history[g, state[HISTORY_LENGTH] - 1]
                trace.counts[g, t] = state[COUNT]
                t += 1
        recorded[g] = t


@compiled()
def fill_masks(
    games: Games, rules: CompiledRules, tables: ActionTables, work: Work, masks: np.ndarray
) -> None:
    """Every game's legal actions into its row of ``masks`` (all 0 once a game is over)."""
    for g in range(games.cells.shape[0]):
        n = regenerate(g, games, rules, work)
        fill_mask(g, n, games, tables, work, masks[g])


@compiled()
def observe_all(
    games: Games,
    rules: CompiledRules,
    work: Work,
    planes: np.ndarray,
    board: np.ndarray,
    want: np.ndarray,
) -> None:
    """The observation planes (``planes``, rows of 19 x 81; none when it has no rows) and the
    point codes (``board``; none when it has no rows) of the games where ``want`` is set."""
    for g in range(games.cells.shape[0]):
        if not want[g]:
            continue
        if planes.shape[0]:
            observe(g, games, rules, planes[g], board[g] if board.shape[0] else work.no_board)
        elif board.shape[0]:
            _codes(g, games, board[g])


@compiled()
def _codes(g: int, games: Games, board: np.ndarray) -> None:
    """The point codes of game ``g`` with its capture in progress applied."""
    cells = games.cells[g]
    for p in range(81):
        board[p] = cells[p]
    depth = games.status[g, DEPTH]
    if depth:
        landings = games.landings[g]
        board[landings[0]] = 0
        board[landings[depth]] = cells[landings[0]]
        for k in range(depth):
            board[(landings[k] + landings[k + 1]) // 2] = 0


@compiled()
def policy_actions(
    games: Games,
    probabilities: np.ndarray,
    masks: np.ndarray,
    active: np.ndarray,
    actions: np.ndarray,
) -> None:
    """An action for each active unfinished game, drawn from its row of ``probabilities``
    restricted to its mask (renormalised; uniformly among the legal actions when the policy
    gives them no weight); -1 for the others."""
    width = masks.shape[1]
    for g in range(games.cells.shape[0]):
        actions[g] = -1
        if not active[g] or games.status[g, END] != ONGOING:
            continue
        total = 0.0
        legal = 0
        for a in range(width):
            if masks[g, a]:
                legal += 1
                p = probabilities[g, a]
                if p > 0.0:
                    total += p
        if legal == 0:
            continue
        if not total > 0.0 or total == np.inf:
            pick = below(games.rng, g, legal)
            for a in range(width):
                if masks[g, a]:
                    if pick == 0:
                        actions[g] = a
                        break
                    pick -= 1
            continue
        threshold = uniform(games.rng, g) * total
        last = -1
        for a in range(width):
            if masks[g, a]:
                p = probabilities[g, a]
                if p > 0.0:
                    last = a
                    threshold -= p
                    if threshold < 0.0:
                        break
        actions[g] = last


@compiled()
def apply_actions(
    games: Games,
    rules: CompiledRules,
    tables: ActionTables,
    work: Work,
    actions: np.ndarray,
    results: np.ndarray,
    masks: np.ndarray,
) -> None:
    """Take ``actions[g]`` in every game where it is not negative (``results[g]``: ``MOVED``,
    ``CONTINUES`` or ``ILLEGAL``; 2 where no action was given) and refresh its mask row."""
    for g in range(games.cells.shape[0]):
        if actions[g] < 0:
            results[g] = 2
            continue
        results[g] = apply_action(g, actions[g], games, rules, tables, work)
        if results[g] == ILLEGAL:
            continue
        n = games.status[g, LEGAL] if results[g] != CONTINUES else regenerate(g, games, rules, work)
        if masks.shape[0]:
            fill_mask(g, n, games, tables, work, masks[g])


@compiled()
def reset_game(g: int, games: Games, starts: Games) -> None:
    """Set game ``g`` back to its start (``starts``' row), keeping its random generator."""
    for p in range(81):
        games.cells[g, p] = starts.cells[g, p]
    for k in range(games.state.shape[1]):
        games.state[g, k] = starts.state[g, k]
    for k in range(starts.state[g, HISTORY_LENGTH]):
        games.history[g, k] = starts.history[g, k]
    for k in range(games.status.shape[1]):
        games.status[g, k] = starts.status[g, k]


class Seats(NamedTuple):
    """Who plays in each environment: the agent's side (``sides``, -1 both in self-play), how it
    is chosen (``choice``: 0, 1 or ``RANDOM_SIDE``), and the opponent's kind."""

    sides: np.ndarray
    choice: int
    opponent: int


class StepOutput(NamedTuple):
    """What a step returns per environment (written by ``step_envs``)."""

    rewards: np.ndarray
    terminated: np.ndarray
    illegal: np.ndarray
    pending: np.ndarray
    """A Python opponent is to move (``PLAYER_OPPONENT``)."""
    restarted: np.ndarray
    """The game was set back to its start in this step."""
    winners: np.ndarray
    """How the game ended (0 Blue, 1 Gray, -1 a draw) where it ended in this step."""


@compiled()
def start_env(
    g: int,
    games: Games,
    starts: Games,
    rules: CompiledRules,
    tables: ActionTables,
    work: Work,
    seats: Seats,
    output: StepOutput,
    masks: np.ndarray,
) -> None:
    """Set environment ``g`` to its start, draw the agent's side if it is drawn, and let a
    random opponent move first when it is Blue's opponent."""
    reset_game(g, games, starts)
    n = settle(g, games, rules, work)
    output.restarted[g] = True
    if seats.opponent == SELF_PLAY:
        seats.sides[g] = -1
    else:
        if seats.choice == RANDOM_SIDE:
            seats.sides[g] = below(games.rng, g, 2)
        if games.status[g, END] == ONGOING and games.state[g, TURN] != seats.sides[g]:
            if seats.opponent == RANDOM_OPPONENT:
                n = play_random_move(g, n, games, rules, work)
            else:
                output.pending[g] = True
                return
    if masks.shape[0]:
        fill_mask(g, n, games, tables, work, masks[g])


class Finals(NamedTuple):
    """Same-step autoreset (``same_step``), and where the final observations of the games that
    end go: planes or point codes (arrays without rows: none)."""

    same_step: bool
    planes: np.ndarray
    board: np.ndarray


@compiled()
def _finish(
    g: int,
    agent: int,
    games: Games,
    starts: Games,
    rules: CompiledRules,
    tables: ActionTables,
    work: Work,
    seats: Seats,
    output: StepOutput,
    masks: np.ndarray,
    finals: Finals,
    needs_reset: np.ndarray,
) -> None:
    """Environment ``g`` has just ended (its ``output`` row says how): start it again now
    (same-step autoreset, its final observation kept in ``finals``) or at its next step."""
    if finals.same_step:
        if finals.planes.shape[0]:
            observe(g, games, rules, finals.planes[g], work.no_board)
        elif finals.board.shape[0]:
            _codes(g, games, finals.board[g])
        start_env(g, games, starts, rules, tables, work, seats, output, masks)
    else:
        needs_reset[g] = True
        if masks.shape[0]:
            fill_mask(g, 0, games, tables, work, masks[g])


@compiled()
def _settled(
    g: int,
    n: int,
    agent: int,
    games: Games,
    starts: Games,
    rules: CompiledRules,
    tables: ActionTables,
    work: Work,
    seats: Seats,
    output: StepOutput,
    masks: np.ndarray,
    finals: Finals,
    needs_reset: np.ndarray,
) -> None:
    """After the last move of a step in environment ``g`` (``n`` moves now): its mask, or its
    end and reward for ``agent``."""
    status = games.status[g]
    if status[END] == ONGOING:
        if masks.shape[0]:
            fill_mask(g, n, games, tables, work, masks[g])
        return
    output.terminated[g] = True
    output.winners[g] = status[WINNER]
    if status[WINNER] >= 0:
        output.rewards[g] = 1.0 if status[WINNER] == agent else -1.0
    _finish(g, agent, games, starts, rules, tables, work, seats, output, masks, finals, needs_reset)


@compiled()
def step_envs(
    games: Games,
    starts: Games,
    rules: CompiledRules,
    tables: ActionTables,
    work: Work,
    seats: Seats,
    actions: np.ndarray,
    lose_illegal: bool,
    needs_reset: np.ndarray,
    output: StepOutput,
    masks: np.ndarray,
    finals: Finals,
) -> None:
    """One step of every environment: an environment that ended in the previous step starts
    again (next-step autoreset; its action is ignored), the others take their action and, when
    the opponent is random, its reply (a Python opponent's is left ``pending``)."""
    for g in range(games.cells.shape[0]):
        output.rewards[g] = 0.0
        output.terminated[g] = False
        output.illegal[g] = False
        output.pending[g] = False
        output.restarted[g] = False
        output.winners[g] = -1
        if needs_reset[g]:
            needs_reset[g] = False
            start_env(g, games, starts, rules, tables, work, seats, output, masks)
            continue
        actor = games.state[g, TURN]
        agent = actor if seats.opponent == SELF_PLAY else seats.sides[g]
        result = apply_action(g, actions[g], games, rules, tables, work)
        if result == ILLEGAL:
            if lose_illegal:
                output.illegal[g] = True
                output.rewards[g] = -1.0
                output.terminated[g] = True
                output.winners[g] = actor ^ 1
                _finish(
                    g,
                    agent,
                    games,
                    starts,
                    rules,
                    tables,
                    work,
                    seats,
                    output,
                    masks,
                    finals,
                    needs_reset,
                )
            continue
        if result == CONTINUES:
            n = regenerate(g, games, rules, work)
            if masks.shape[0]:
                fill_mask(g, n, games, tables, work, masks[g])
            continue
        n = games.status[g, LEGAL]
        if games.status[g, END] == ONGOING and seats.opponent != SELF_PLAY:
            if seats.opponent == RANDOM_OPPONENT:
                n = play_random_move(g, n, games, rules, work)
            else:
                output.pending[g] = True
                continue
        _settled(
            g,
            n,
            agent,
            games,
            starts,
            rules,
            tables,
            work,
            seats,
            output,
            masks,
            finals,
            needs_reset,
        )


@compiled()
def answer(
    g: int,
    move: np.ndarray,
    games: Games,
    starts: Games,
    rules: CompiledRules,
    tables: ActionTables,
    work: Work,
    seats: Seats,
    output: StepOutput,
    masks: np.ndarray,
    finals: Finals,
    needs_reset: np.ndarray,
) -> None:
    """A Python opponent's move (legal) in environment ``g``, where it was ``pending``."""
    output.pending[g] = False
    n = play(g, move, games, rules, work)
    _settled(
        g,
        n,
        seats.sides[g],
        games,
        starts,
        rules,
        tables,
        work,
        seats,
        output,
        masks,
        finals,
        needs_reset,
    )
