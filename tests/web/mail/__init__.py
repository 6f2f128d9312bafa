"""Tests of ``bluegray.web.mail``: notices by email."""
