"""Alembic migrations of the web app's database; the app upgrades to the newest at start-up."""
