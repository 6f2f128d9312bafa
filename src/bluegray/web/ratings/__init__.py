"""Ratings: Glicko-2, their tables (``rows``), the update of a rated game's players when it
ends, and the leaderboards."""
