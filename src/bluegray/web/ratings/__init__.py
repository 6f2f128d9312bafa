"""Ratings: Glicko-2, the update of a rated game's players, leaderboards and the daily cap of
rated games between two accounts."""
