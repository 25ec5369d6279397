"""NodeAffinity (`pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go`): Filter on
`nodeSelector` AND the required terms; Score sums matching preferred weights, normalised to
0..100 over the feasible nodes. The matching itself lives in `scheduling/nodeaffinity.py`."""

from __future__ import annotations

from kubectl_evict.scheduling.nodeaffinity import node_matches_pod, preferred_score  # noqa: F401

MESSAGE = "node(s) didn't match Pod's node affinity/selector"
