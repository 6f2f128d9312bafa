"""Tests of ``bluegray.engine``: the searches and their kernels (plain and compiled), the network,
MCTS, the players, matches and their clocks, the statistics, the Ray cluster and the engine's
scripts (tuning, training, the strength report, the self-play statistics)."""
