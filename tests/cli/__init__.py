"""Tests of ``bluegray.cli``: the command line's conformance, perft and show, their output, errors
and exit codes."""
