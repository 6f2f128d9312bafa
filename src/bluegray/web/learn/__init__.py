"""The Learn pages' content: the game's history, its rules in plain words, the families'
settings and the board diagrams."""
