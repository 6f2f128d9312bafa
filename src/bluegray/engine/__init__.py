"""The engine: evaluation, search, players and levels, analysis, and the match runner.

It builds on the rules core (``bluegray.bitboard`` is its move generator) and knows nothing of
the interfaces.
"""
