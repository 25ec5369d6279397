"""Container `oom_score_adj` and the order the kernel OOM killer would pick.

Models `pkg/kubelet/qos/policy.go` `GetContainerOOMScoreAdjust` (v1.30-v1.37, unchanged): node-critical and
Guaranteed pods -997, BestEffort 1000, Burstable `1000 - 1000*request/capacity` clamped to
[1000-997, 999]. The kernel's badness is roughly `adj + 1000 * rss / total memory` (mm/oom_kill.c
`oom_badness`); the working set stands in for RSS. This is what happens when memory runs out
faster than the kubelet's 10 s eviction loop notices.
"""

from __future__ import annotations

from typing import List, Mapping, NamedTuple, Optional, Sequence

from kubectl_evict.eviction.observe import PodUsage, usage_for
from kubectl_evict.eviction.ranking import is_critical
from kubectl_evict.model import Container, Pod

GUARANTEED_OOM_SCORE_ADJ = -997
BESTEFFORT_OOM_SCORE_ADJ = 1000
SYSTEM_NODE_CRITICAL = "system-node-critical"


def oom_score_adj(pod: Pod, container: Container, memory_capacity: int) -> int:
    if is_critical(pod) and pod.priority_class_name == SYSTEM_NODE_CRITICAL:
        return GUARANTEED_OOM_SCORE_ADJ
    if pod.qos == "Guaranteed":
        return GUARANTEED_OOM_SCORE_ADJ
    if pod.qos == "BestEffort":
        return BESTEFFORT_OOM_SCORE_ADJ
    request = container.requests.get("memory", 0)
    adj = 1000 - (1000 * request) // memory_capacity if memory_capacity > 0 else 1000
    if adj < 1000 + GUARANTEED_OOM_SCORE_ADJ:
        return 1000 + GUARANTEED_OOM_SCORE_ADJ
    if adj == BESTEFFORT_OOM_SCORE_ADJ:
        return adj - 1
    return adj


class OOMEntry(NamedTuple):
    namespace: str
    pod: str
    container: str
    adj: int
    working_set: Optional[int]
    score: int          # estimated badness, -1000..2000


def oom_order(pods: Sequence[Pod], usages: Mapping[str, PodUsage], memory_capacity: int) -> List[OOMEntry]:
    """Every running container, highest estimated badness first (the kernel's first victim)."""
    out = []
    for pod in pods:
        u = usage_for(usages, pod)
        ws_by_name = {c.name: c.working_set for c in u.containers} if u is not None else {}
        for c in pod.containers:
            adj = oom_score_adj(pod, c, memory_capacity)
            ws = ws_by_name.get(c.name)
            share = (1000 * ws) // memory_capacity if ws and memory_capacity > 0 else 0
            out.append(OOMEntry(pod.namespace, pod.name, c.name, adj, ws, adj + share))
    out.sort(key=lambda e: (-e.score, -e.adj, e.namespace, e.pod, e.container))
    return out
