"""NodeAffinity (`pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go`): Filter on
`nodeSelector` AND the required terms; Score sums matching preferred weights, normalised to
0..100 over the feasible nodes. The matching itself lives in `scheduling/nodeaffinity.py`.

Its PreFilter narrows the nodes to those named by `matchFields` `metadata.name In` in every
required term (`prefilter_node_names`): the framework never filters the others and counts them
under `PREFILTER_OUT` (`schedule_one.go` findNodesThatFitPod, SetAbsentNodesStatus), whatever
else they are (cordoned, tainted); names that conflict reject the pod (`CONFLICT`)."""

from __future__ import annotations

from kubectl_evict.scheduling.nodeaffinity import node_matches_pod, prefilter_node_names, preferred_score  # noqa: F401

MESSAGE = "node(s) didn't match Pod's node affinity/selector"
CONFLICT = "pod affinity terms conflict"
PREFILTER_OUT = "node(s) didn't satisfy plugin(s) [NodeAffinity]"
