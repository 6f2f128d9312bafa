"""Games: creating, joining and playing them (the service and its actions), the games a process
holds (runtime), their tables (``rows``) and storage, how they look to clients, which games may
be rated (and the daily cap per pair), the clocks after an outage, an account's games (its
profile's list, its "your turn" list), the AI's moves in them, and the API's shapes."""
