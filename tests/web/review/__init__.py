"""Tests of the game review (``bluegray.web.review``)."""
