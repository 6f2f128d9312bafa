"""The tournaments' algorithms: Swiss pairings and standings, arena pairings and scores. Pure
functions over explicit values (who plays, what they scored, the time), with no database or web
dependency: the web keeps the tournament's games and calls them."""
