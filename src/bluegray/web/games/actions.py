"""The actions on a game, as changes to a ``LiveGame``: playing a move, the three offers (draw,
takeback, rematch, each made, accepted or declined by one protocol), resigning, aborting and
claiming an abandoned game.

Each action changes the copy it is given and returns the event to announce, or raises a
refusal (``platform.refusals``: ``Conflict``, ``Forbidden``...) to refuse (then the copy is
thrown away). None of them reads the clock of the
machine or the database: the time and the seats' presence come in an ``ActionContext``, so that
any process can apply any action the same way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

from bluegray.game import Game
from bluegray.pieces import Side
from bluegray.web.games.live import LiveGame, Played
from bluegray.web.games.rated_pairs import limit_rated
from bluegray.web.games.schemas import Action, GameEvent
from bluegray.web.games.view import claim_win_at
from bluegray.web.platform.clocks import Clock, Correspondence
from bluegray.web.platform.refusals import Conflict
from bluegray.web.platform.security import new_game_id
from bluegray.web.realtime.presence import Presence


@dataclass
class ActionContext:
    now: int
    presence: Presence = field(default_factory=Presence)
    abandon_ms: int = 60_000
    new_games: list[LiveGame] = field(default_factory=list)
    """Games an action started (a rematch), to be stored with the change."""
    pair_limit_reached: bool = False
    """The two accounts have played their rated games together for the day: a rematch of a
    rated game is unrated (``rated_pairs``)."""


def names(sides: Iterable[Side]) -> str:
    return " and ".join(side.title for side in sorted(sides, key=lambda s: s.index))


def before_both_moved(live: LiveGame) -> bool:
    """Whether a game between two people stands before both sides have moved (the moves on the
    board now, take-backs included): ending it then aborts it, rated for nobody (as lichess
    does: resigning and draws wait for both sides' first moves, aborting is offered until
    then)."""
    return live.mode == "friend" and live.game.ply < 2


def require_playing(live: LiveGame) -> None:
    if live.status == "waiting":
        raise Conflict("not_started", "the game has not started: the friend has not joined")
    outcome = live.outcome()
    if live.is_over() or outcome is not None:
        words = "aborted" if live.status == "aborted" else (outcome.describe() if outcome else "")
        raise Conflict("game_over", f"the game is over ({words})")


# -- moves and time ---------------------------------------------------------------------------


def play(live: LiveGame, text: str, now: int) -> GameEvent:
    game = live.game
    mover = game.turn
    move = game.push(text.strip().lower())
    over = game.outcome() is not None
    clock_ms = None
    if live.clock is not None:
        live.clock = live.clock.after_move(mover, now, running_next=not over)
        clock_ms = live.clock.stored(mover)
    live.played.append(Played(now, clock_ms))
    if live.draw_offer is mover.other:
        live.draw_offer = None  # moving declines the opponent's offer
    live.takeback_offer = None
    return GameEvent(kind="move", side=mover.value, move=str(move))


def play_in_time(live: LiveGame, text: str, now: int) -> GameEvent:
    """Play the move, unless the mover's time has run out: then that ends the game (``flag``)."""
    if out_of_time(live, now) is live.game.turn:
        ended = flag(live, now)
        if ended is not None:
            return ended
    return play(live, text, now)


def out_of_time(live: LiveGame, now: int) -> Side | None:
    """The side whose time (its running clock, or its correspondence deadline) has run out at
    ``now``, if any."""
    if live.is_over():
        return None
    correspondence = live.correspondence
    if correspondence is not None:
        left = correspondence.left(now)
        return live.game.turn if left is not None and left <= 0 else None
    clock = live.clock
    if clock is None or clock.running is None:
        return None
    return clock.running if clock.left(clock.running, now) <= 0 else None


def time_out(live: LiveGame, side: Side, now: int) -> None:
    if live.clock is not None:
        live.clock = live.clock.switched(None, now)
    if live.correspondence is not None:
        live.correspondence = live.correspondence.stopped()
    live.game.time_out(side)


def flag(live: LiveGame, now: int) -> GameEvent | None:
    """The side to move loses on time if its time has run out (else nothing); in a
    correspondence game between two people whose side to move has not made its first move,
    the game is aborted instead (as a real-time one is by its first moves' timer)."""
    side = out_of_time(live, now)
    if side is None:
        return None
    if live.awaits_first_moves():
        return _abort_for_first_moves(live, now)
    time_out(live, side, now)
    return GameEvent(kind="time", side=side.value)


def take_back(live: LiveGame, requester: Side, now: int) -> None:
    """Undo moves until it is ``requester``'s turn before their last move (just the last move
    in a hot-seat game)."""
    game = live.game
    if live.mode == "hotseat":
        plies = 1
    else:
        plies = 1 if game.ply and live.mover_of(game.ply) is requester else 2
    if game.ply < plies:
        raise Conflict("not_allowed", "there is no move of yours to take back")
    for _ in range(plies):
        game.pop()
        live.played.pop()
    live.takeback_offer = None
    live.draw_offer = None
    if live.clock is not None:
        live.clock = live.clock.switched(game.turn if game.ply else None, now)


def start_rematch(live: LiveGame, actor: Side, context: ActionContext) -> GameEvent:
    """The same game again with the colours swapped; each player keeps their token."""
    now = context.now
    clock = live.clock
    seats = {
        side.other: dataclasses.replace(seat, joined_ms=now) for side, seat in live.seats.items()
    }
    new = LiveGame(
        id=new_game_id(),
        mode=live.mode,
        status="active",
        game=Game(live.rules, live.game.start),
        version=1,
        created_ms=now,
        updated_ms=now,
        seats=seats,
        ai_level=live.ai_level,
        clock=None if clock is None else Clock.new(clock.initial_ms, clock.increment_ms),
        correspondence=None
        if live.correspondence is None
        else Correspondence(live.correspondence.days),
        parent_id=live.id,
        rated=live.rated or live.unrated_reason is not None,
    )
    limit_rated(new, context.pair_limit_reached)
    new.sync_status()
    new.sync_deadline(now)
    live.rematch_id = new.id
    live.rematch_offer = None
    context.new_games.append(new)
    return GameEvent(kind="rematch", side=actor.value, game_id=new.id)


# -- offers -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Offer:
    """One kind of offer. ``check`` refuses an offer or answer that cannot be made now;
    ``at_once`` says when no answer is needed (hot-seat, the AI); ``agree`` carries it out.
    Both sides offering is agreeing."""

    name: str
    field: str
    offered: str
    """The event of an offer made."""
    already: str
    asked: str
    """How an offer is said: "has offered a draw"."""
    check: Callable[[LiveGame, Side], None]
    answerable: Callable[[LiveGame], None]
    """Refuses an answer when the game is past answering (for draws and takebacks: over)."""
    at_once: Callable[[LiveGame], bool]
    agree: Callable[[LiveGame, Side, Side, ActionContext], GameEvent]
    """(game, the side that offered, the side that agrees, context)."""

    def holder(self, live: LiveGame) -> Side | None:
        side: Side | None = getattr(live, self.field)
        return side

    def make(self, live: LiveGame, actor: Side, context: ActionContext) -> GameEvent:
        self.check(live, actor)
        holder = self.holder(live)
        if self.at_once(live):
            return self.agree(live, actor, actor, context)
        if holder is actor.other:
            setattr(live, self.field, None)
            return self.agree(live, actor.other, actor, context)
        if holder is actor:
            raise Conflict("not_allowed", self.already)
        setattr(live, self.field, actor)
        return GameEvent(kind=self.offered, side=actor.value)

    def answer(
        self, live: LiveGame, actor: Side, context: ActionContext, *, accept: bool
    ) -> GameEvent:
        self.answerable(live)
        if self.holder(live) is not actor.other:
            raise Conflict("not_allowed", f"{actor.other.title} {self.asked}")
        setattr(live, self.field, None)
        if accept:
            return self.agree(live, actor.other, actor, context)
        return GameEvent(kind=f"{self.name}_declined", side=actor.value)


def _check_draw(live: LiveGame, actor: Side) -> None:
    require_playing(live)
    if live.mode == "ai":
        raise Conflict("not_allowed", "the AI does not agree to draws: play on or resign")
    if before_both_moved(live):
        raise Conflict(
            "not_allowed",
            "a draw can be offered once both sides have moved: until then, abort the game",
        )


def _check_takeback(live: LiveGame, actor: Side) -> None:
    require_playing(live)
    if live.mode in ("ai", "hotseat"):
        return
    if not any(live.mover_of(ply) is actor for ply in range(1, live.game.ply + 1)):
        raise Conflict("not_allowed", "there is no move of yours to take back")


def _check_rematch(live: LiveGame, actor: Side) -> None:
    if not live.is_over():
        raise Conflict("not_allowed", "a rematch can be offered when the game is over")
    if live.mode == "imported" or live.rematch_id is not None:
        raise Conflict("not_allowed", "this game has no rematch to offer")


def _agree_draw(live: LiveGame, offerer: Side, actor: Side, context: ActionContext) -> GameEvent:
    if before_both_moved(live):
        return abort(live, actor, context)  # taken back to before both had moved
    live.game.agree(None)
    return GameEvent(kind="agreed", side=actor.value)


def _agree_takeback(
    live: LiveGame, offerer: Side, actor: Side, context: ActionContext
) -> GameEvent:
    take_back(live, offerer, context.now)
    return GameEvent(kind="takeback", side=offerer.value)


def _agree_rematch(live: LiveGame, offerer: Side, actor: Side, context: ActionContext) -> GameEvent:
    return start_rematch(live, actor, context)


DRAW: Final = Offer(
    "draw",
    "draw_offer",
    "draw_offered",
    "you have already offered a draw",
    "has not offered a draw",
    _check_draw,
    require_playing,
    lambda live: live.mode == "hotseat",
    _agree_draw,
)
TAKEBACK: Final = Offer(
    "takeback",
    "takeback_offer",
    "takeback_requested",
    "you have already asked to take back",
    "has not asked to take back",
    _check_takeback,
    require_playing,
    lambda live: live.mode in ("ai", "hotseat"),
    _agree_takeback,
)
REMATCH: Final = Offer(
    "rematch",
    "rematch_offer",
    "rematch_offered",
    "you have already offered a rematch",
    "has not offered a rematch",
    _check_rematch,
    lambda live: None,
    lambda live: live.mode != "friend",
    _agree_rematch,
)
OFFERS: Final = {offer.field: offer for offer in (DRAW, TAKEBACK, REMATCH)}


# -- the other actions ------------------------------------------------------------------------


def resign(live: LiveGame, actor: Side, context: ActionContext) -> GameEvent:
    """Resign; before both sides have moved, abort instead (a loss for nobody, unrated)."""
    require_playing(live)
    if before_both_moved(live):
        return abort(live, actor, context)
    live.game.resign(actor)
    return GameEvent(kind="resigned", side=actor.value)


def abort(live: LiveGame, actor: Side, context: ActionContext) -> GameEvent:
    if live.is_over() or live.outcome() is not None:
        raise Conflict("game_over", "the game is already over")
    if live.game.ply >= 2:
        raise Conflict("not_allowed", "a game can be aborted only before both sides have moved")
    live.status = "aborted"
    if live.clock is not None:
        live.clock = live.clock.switched(None, context.now)
    live.invite_hash = None
    live.draw_offer = live.takeback_offer = None
    return GameEvent(kind="aborted", side=actor.value)


def abort_unstarted(live: LiveGame, now: int, first_move_ms: int | None) -> GameEvent | None:
    """A game between two people whose side to move has not made its first move within
    ``first_move_ms`` of when it could ends as aborted (else nothing changes): unrated, and a
    loss for nobody. (A correspondence game's first moves end at its deadline: ``flag``.)"""
    abort_at = live.abort_at(first_move_ms)
    if abort_at is None or now < abort_at:
        return None
    return _abort_for_first_moves(live, now)


def _abort_for_first_moves(live: LiveGame, now: int) -> GameEvent:
    late = live.game.turn
    live.status = "aborted"
    live.end_reason = "no_first_move"
    if live.clock is not None:
        live.clock = live.clock.switched(None, now)
    live.draw_offer = live.takeback_offer = None
    return GameEvent(kind="aborted", side=late.value)


def claim_win(live: LiveGame, actor: Side, context: ActionContext) -> GameEvent:
    require_playing(live)
    at = claim_win_at(live, context.presence, context.abandon_ms)
    if at is None or live.game.turn is not actor.other:
        raise Conflict(
            "not_allowed", "you can claim the win only while your opponent is away on a move"
        )
    wait = at - context.now
    if wait > 0:
        raise Conflict(
            "not_allowed",
            f"{actor.other.title} has been away too briefly: you can claim in "
            f"{(wait + 999) // 1000} s",
            {"claim_win_at_ms": at},
        )
    if before_both_moved(live):
        return _abort_for_first_moves(live, context.now)
    live.game.resign(actor.other)
    live.end_reason = "abandoned"
    return GameEvent(kind="abandoned", side=actor.other.value)


Handler = Callable[[LiveGame, Side, ActionContext], GameEvent]


def _offering(offer: Offer) -> Handler:
    return offer.make


def _answering(offer: Offer, accept: bool) -> Handler:
    def handler(live: LiveGame, actor: Side, context: ActionContext) -> GameEvent:
        return offer.answer(live, actor, context, accept=accept)

    return handler


ACTIONS: Final[dict[Action, Handler]] = {
    "offer_draw": _offering(DRAW),
    "accept_draw": _answering(DRAW, True),
    "decline_draw": _answering(DRAW, False),
    "request_takeback": _offering(TAKEBACK),
    "accept_takeback": _answering(TAKEBACK, True),
    "decline_takeback": _answering(TAKEBACK, False),
    "resign": resign,
    "abort": abort,
    "claim_win": claim_win,
    "offer_rematch": _offering(REMATCH),
    "accept_rematch": _answering(REMATCH, True),
    "decline_rematch": _answering(REMATCH, False),
}

_ANSWERS: Final[dict[Action, Offer]] = {
    "accept_draw": DRAW,
    "decline_draw": DRAW,
    "accept_takeback": TAKEBACK,
    "decline_takeback": TAKEBACK,
    "accept_rematch": REMATCH,
    "decline_rematch": REMATCH,
}


def actor(live: LiveGame, sides: frozenset[Side], side: Side | None, action: Action) -> Side:
    """The side that acts: the token's own, or in hot-seat the one named, else the natural one
    (the side an offer was made to for an answer, else the side to move)."""
    if side is not None:
        return side
    if len(sides) == 1:
        return next(iter(sides))
    offer = _ANSWERS.get(action)
    holder = None if offer is None else offer.holder(live)
    if holder is not None:
        return holder.other
    return live.game.turn
