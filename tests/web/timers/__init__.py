"""Tests of ``bluegray.web.timers``: timers claimed once, the heartbeat, clocks credited for an outage."""
