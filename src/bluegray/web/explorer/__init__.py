"""The opening explorer: the moves played from a position in the site's rated games and in the
shipped book of engine games, with their counts, scores and average rating."""
