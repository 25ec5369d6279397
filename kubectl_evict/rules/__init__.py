"""The functional core: pure functions from (Snapshot, settings, now) to an immutable Plan.
No rule does I/O, reads the clock, the environment or a global."""
