"""Accounts: signing up and logging in, sessions, passwords, API tokens, who a request comes
from, public profiles and the "your turn" list."""
