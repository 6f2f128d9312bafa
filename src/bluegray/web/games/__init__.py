"""Games: creating, joining and playing them (the service and its actions), the games a process
holds (runtime), their rows in the database, how they look to clients, and the API's shapes."""
