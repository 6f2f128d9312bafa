"""Email: sending one message, and the correspondence notices ("your move", "time is running
out")."""
