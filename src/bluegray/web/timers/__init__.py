"""Timers as data: due rows every process claims (a clock's flag, the AI's move, a notice),
their table (``rows``), and the service's heartbeat."""
