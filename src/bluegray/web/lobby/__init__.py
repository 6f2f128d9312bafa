"""The lobby: seeks, challenges to a named player and quick pairings, their rows, their sockets
and their API's shapes."""
