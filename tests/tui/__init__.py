"""Tests of ``bluegray.tui``: the full-screen app of ``bluegray play`` and its plain mode
(``play --plain``) with the ``Session`` both share."""
