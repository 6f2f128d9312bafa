"""Alembic migrations of the web app's database (every domain's tables as one schema:
``schema``); the app upgrades to the newest at start-up."""
