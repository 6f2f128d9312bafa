"""Accounts: signing up and logging in, sessions, passwords, API tokens, who a request comes
from, their tables (``rows``) and the reads other domains ask of them, the notices an account
wants, and the shapes of public profiles (the games on them, and an account's "your turn" list,
are the games' own: ``games.player_games``, ``games.turns``)."""
