"""Games: creating, joining and playing them (the service and its actions), the games a process
holds (runtime), their rows in the database, how they look to clients, which games may be rated
(the daily cap per pair), the AI's moves in them, and the API's shapes."""
