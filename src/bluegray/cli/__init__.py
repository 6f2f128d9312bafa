"""The ``bluegray`` command line: one module per subcommand, registered in ``main``."""
