"""The engine: evaluation, search, players and levels, analysis, and the match runner.

It builds on the rules core (``bluegray.bitboard`` is its move generator) and knows nothing of
the interfaces.
"""

ENGINE_VERSION = 4
"""Which engine this is, for measurements of its strength: one more whenever a change to the
search or the evaluation's features makes strength measured before it stale (docs/strength.md
shows the current engine's results, and keeps earlier ones apart; a change to one level's
settings counts as a new revision of that level, ``LevelConfig.revision``). 1: the engine of
bluegray 0.1.0; 2: null-move, reverse futility and late move pruning, levels 1-5 one to five
plies; 3: one search over two equal kernels; 4: the linear evaluation corrected by a network
where a family ships one (``networks/<family>.json``: ``sackson``'s, ``cooper``'s,
``super``'s and ``pow-classic``'s)."""
