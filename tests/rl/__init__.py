"""Tests of ``bluegray.rl``: the action encoding, the Gymnasium, PettingZoo and OpenSpiel adapters,
the vector environment, the compiled action game and the network player."""
