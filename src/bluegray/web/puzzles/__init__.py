"""Puzzles: positions with one clearly winning move, solved by clicking, with a puzzle rating."""
