"""Tests of ``bluegray.web.ratings``: Glicko-2, rated games and their integrity."""
