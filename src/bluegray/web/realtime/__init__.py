"""Real time across processes: the event bus, presence (who is connected, which processes live)
and this process' sockets on games."""
