"""Tournaments, Swiss and arena: the service, their tables (``rows``), a tournament read from
them (``tables``) and its games' results written (``ending``), and the algorithms (Swiss
pairings and standings, arena pairings and scores: pure functions over explicit values, with
no database or web dependency)."""
