"""Tests of ``bluegray.web.ai``: AI games, jobs and queues, a web process without the search."""
