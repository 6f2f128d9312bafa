"""The engine's compiled twin (numba): each module here compiles the plain module of the same
name beside it — ``board`` the rules core's board, ``moves`` its move generation,
``evaluation``, ``network``, ``search`` (with ``node``, ``ordering``, ``table`` and ``frames``),
``mcts`` and ``simulation`` (the self-play loops, with ``batch`` for the RL environments) — and
the tests prove each equal to its plain twin. ``compiler`` is how they are compiled, ``cache``
where numba keeps them (named after a digest of these sources and every module they import).

Only the engine's ``readiness``, ``precompile`` and ``simulation`` modules import this package's
kernels (an import-linter contract): everything else reaches them through those. Importing the
package itself loads nothing (``cache`` is read before numba is, to know whether the kernels are
compiled already).
"""
