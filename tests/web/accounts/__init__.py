"""Tests of ``bluegray.web.accounts``: accounts, sessions, security, "your turn"."""
