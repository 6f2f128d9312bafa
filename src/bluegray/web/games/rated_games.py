"""Which games may be rated: a game created as rated, and a seat taken in one.

Rules about the games, asked when a game is created or a seat is taken; they need nothing of
the ratings themselves (``ratings`` updates them when a rated game ends). How many rated games
two accounts may play together a day is ``rated_pairs``.
"""

from __future__ import annotations

from bluegray.game import Game
from bluegray.rules import RuleSet
from bluegray.web.games.live import LiveGame
from bluegray.web.games.players import Player
from bluegray.web.games.schemas import CreateGameRequest
from bluegray.web.platform.refusals import Conflict, Forbidden, Invalid


def check_rated(request: CreateGameRequest, rules: RuleSet, player: Player | None) -> None:
    """Refuse (422 ``cannot_be_rated``) a rated game that cannot be: only a game against a friend,
    created by an account, under a preset rule set from its start position, is rated."""

    def refuse(why: str) -> Invalid:
        return Invalid("cannot_be_rated", f"this game cannot be rated: {why}")

    if player is None:
        raise refuse("rated games are played between two accounts: log in first")
    if request.opponent.type != "friend":
        raise refuse("only a game between two people (against a friend) is rated")
    if rules.name is None:
        raise refuse("a custom rule set is never rated: choose a preset rule set")
    if request.position is not None and str(Game(rules, request.position).position) != str(
        Game(rules).position
    ):
        raise refuse("a game from a set-up position is never rated")


def check_rated_seat(live: LiveGame, player: Player | None) -> None:
    """Refuse a seat in a rated game to a player without an account, or to the account that
    holds the other seat."""
    if not live.rated:
        return
    if player is None:
        raise Forbidden("forbidden", "this game is rated: log in to an account to join it")
    if any(seat.played_by(player.id) for seat in live.seats.values()):
        raise Conflict("not_allowed", "a rated game is played by two different accounts")
