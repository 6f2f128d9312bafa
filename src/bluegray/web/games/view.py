"""How a game looks to clients: the ``GameState`` every HTTP answer and WebSocket state message
carries, with the seats' presence and the time from which a player may claim an abandoned
game."""

from __future__ import annotations

from bluegray.pieces import Side
from bluegray.points import point_name
from bluegray.position import Position
from bluegray.rules import RuleSet
from bluegray.web.games.live import LiveGame, side_name
from bluegray.web.games.rated_pairs import explain
from bluegray.web.games.schemas import (
    AiStatus,
    ClockState,
    CorrespondenceState,
    GameState,
    LastMove,
    Offers,
    OutcomeInfo,
    RatingResult,
    RulesInfo,
    SeatAccount,
    Seats,
    SeatState,
)
from bluegray.web.platform.clocks import Clock, Correspondence
from bluegray.web.realtime.presence import Presence


def rules_info(rules: RuleSet) -> RulesInfo:
    return RulesInfo(
        name=rules.name,
        text=str(rules),
        description=rules.description,
        settings=rules.settings(),
        start=str(Position.start(rules)),
    )


_RULES_INFO: dict[RuleSet, RulesInfo] = {}


def cached_rules_info(rules: RuleSet) -> RulesInfo:
    info = _RULES_INFO.get(rules)
    if info is None:
        if len(_RULES_INFO) > 1000:
            _RULES_INFO.clear()
        info = _RULES_INFO[rules] = rules_info(rules)
    return info


def outcome_info(live: LiveGame) -> OutcomeInfo | None:
    outcome = live.outcome()
    if outcome is None:
        return None
    if live.end_reason == "abandoned" and outcome.winner is not None:
        loser = outcome.winner.other
        return OutcomeInfo(
            winner=outcome.winner.value,
            reason="abandoned",
            result=outcome.result,
            description=f"{outcome.winner.title} wins: {loser.title} left the game",
        )
    return OutcomeInfo(
        winner=None if outcome.winner is None else outcome.winner.value,
        reason=outcome.termination.value,
        result=outcome.result,
        description=outcome.describe(),
    )


def clock_state(clock: Clock | None, now_ms: int) -> ClockState | None:
    if clock is None:
        return None
    return ClockState(
        initial_ms=clock.initial_ms,
        increment_ms=clock.increment_ms,
        blue_ms=max(0, clock.left(Side.BLUE, now_ms)),
        gray_ms=max(0, clock.left(Side.GRAY, now_ms)),
        running=None if clock.running is None else clock.running.value,
        server_time_ms=now_ms,
    )


def correspondence_state(
    correspondence: Correspondence | None, turn: Side, now_ms: int
) -> CorrespondenceState | None:
    if correspondence is None:
        return None
    deadline = correspondence.deadline_ms
    return CorrespondenceState(
        days_per_move=correspondence.days,
        running=None if deadline is None else turn.value,
        blue_deadline_ms=deadline if turn is Side.BLUE else None,
        gray_deadline_ms=deadline if turn is Side.GRAY else None,
        server_time_ms=now_ms,
    )


def seat_state(live: LiveGame, side: Side, presence: Presence) -> SeatState:
    seat = live.seats.get(side)
    if seat is None or (seat.kind == "human" and seat.token_hash is None):
        return SeatState(player="open", connected=False)
    if seat.kind == "ai":
        return SeatState(player="ai", level=live.ai_level, connected=True)
    connected = side in presence.connected
    return SeatState(
        player="human",
        connected=connected,
        away_since_ms=None if connected else away_since(live, side, presence),
        account=None
        if seat.account_name is None
        else SeatAccount(name=seat.account_name, bot=seat.account_bot),
    )


def away_since(live: LiveGame, side: Side, presence: Presence) -> int:
    """Since when a seat with no socket anywhere has been away: since it was last seen, or
    since it joined, whichever is later."""
    seat = live.seats.get(side)
    joined = live.created_ms if seat is None or seat.joined_ms is None else seat.joined_ms
    seen = presence.seen(side)
    return joined if seen is None else max(joined, seen)


def claim_win_at(live: LiveGame, presence: Presence, abandon_ms: int) -> int | None:
    """When the side not to move may claim the win: only in games between two browsers, on a
    turn whose player has no socket anywhere, counted from when that player was last seen (or
    joined) but never from before their turn began. Nobody may claim while presence is not
    certain (Redis lost it, or cannot be read)."""
    if live.mode != "friend" or live.status != "active" or live.game.ply == 0:
        return None
    if not presence.certain:
        return None
    turn = live.game.turn
    if turn in presence.connected:
        return None
    return max(away_since(live, turn, presence), live.turn_started_ms()) + abandon_ms


def game_state(
    live: LiveGame,
    presence: Presence,
    now_ms: int,
    *,
    abandon_ms: int,
    ai_status: AiStatus | None = None,
) -> GameState:
    """The game as clients see it; ``ai_status`` says what holds up the AI's move, when it is
    the AI's turn ("thinking" unless said otherwise)."""
    game = live.game
    derived = live.derived()
    last = game.last_move
    return GameState(
        id=live.id,
        version=live.version,
        mode=live.mode,
        status=live.status,
        created_ms=live.created_ms,
        rules=cached_rules_info(game.rules),
        start=derived.start,
        moves=derived.moves,
        ply=game.ply,
        position=derived.position,
        turn=game.turn.value,
        legal_moves=derived.legal_moves,
        last_move=None
        if last is None
        else LastMove(
            text=str(last),
            side=live.mover_of(game.ply).value,
            points=[point_name(point) for point in last.points],
            captured=[point_name(point) for point in last.captured_points],
        ),
        captures=derived.captures,
        advancement=derived.advancement,
        clock=clock_state(live.clock, now_ms),
        correspondence=correspondence_state(live.correspondence, game.turn, now_ms),
        time_class=live.time_class(),
        outcome=outcome_info(live),
        offers=Offers(
            draw=side_name(live.draw_offer),
            takeback=side_name(live.takeback_offer),
            rematch=side_name(live.rematch_offer),
        ),
        seats=seats_view(live, presence),
        spectators=presence.spectators,
        ai_thinking=live.ai_to_move(),
        ai_status=(ai_status or "thinking") if live.ai_to_move() else None,
        claim_win_at_ms=claim_win_at(live, presence, abandon_ms),
        rematch_id=live.rematch_id,
        parent_id=live.parent_id,
        tags=live.tags,
        rated=live.rated,
        unrated_reason=explain(live.unrated_reason),
        ratings=None
        if live.rating_result is None
        else RatingResult.model_validate_json(live.rating_result),
    )


def seats_view(live: LiveGame, presence: Presence) -> Seats:
    return Seats(
        blue=seat_state(live, Side.BLUE, presence), gray=seat_state(live, Side.GRAY, presence)
    )
