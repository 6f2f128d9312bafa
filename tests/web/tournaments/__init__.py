"""Tests of ``bluegray.web.tournaments``: Swiss, arena, their standings and limits."""
