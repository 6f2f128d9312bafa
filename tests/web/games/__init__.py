"""Tests of ``bluegray.web.games``: the games' HTTP API, correspondence, first moves, fair play."""
