"""Accounts: signing up and logging in, sessions, passwords, API tokens, who a request comes
from, and the shapes of public profiles (the games on them, and an account's "your turn" list,
are the games' own: ``games.player_games``, ``games.turns``)."""
