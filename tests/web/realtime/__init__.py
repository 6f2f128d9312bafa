"""Tests of ``bluegray.web.realtime``: the sockets, their limits, healing after Redis fails."""
