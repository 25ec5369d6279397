"""`verify`: after the fact, compare a plan with what the cluster really did (the functional core).

`events.py` projects events.k8s.io/v1 Events into records, `match.py` matches every plan entry to
what the cluster shows now (pure: the plan, a frozen Snapshot, the events, the read time and
`--since` in; a `Verification` out), `model.py` holds the values. Reading the cluster is
`source/live.py`'s job, printing `render/verification.py`'s.
"""
