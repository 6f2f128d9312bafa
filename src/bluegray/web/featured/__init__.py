"""The best game on now: the home page's featured game, chosen from the database and shown live."""
