"""Playing in the terminal: the full-screen Textual app and the plain line mode, both driving one
``Session`` (the game, the engine's replies, undo, clocks and records)."""
