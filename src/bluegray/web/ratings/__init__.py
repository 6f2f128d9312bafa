"""Ratings: Glicko-2, the update of a rated game's players when it ends, and the leaderboards."""
