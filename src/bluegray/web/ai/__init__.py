"""The AI's work: jobs (moves and analyses) as values, their queues (embedded pool or Redis), the
engine at work on them, and the CPUs a process may use."""
