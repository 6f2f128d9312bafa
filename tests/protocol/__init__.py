"""Tests of ``bluegray.protocol``: ``bluegray engine`` as a real process, the client and
``EnginePlayer``, the ``Hash`` option, a fresh engine's start."""
