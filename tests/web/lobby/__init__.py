"""Tests of ``bluegray.web.lobby``: seeks, challenges and quick pairings."""
