"""Pod resource requests as the scheduler counts them.

Models `k8s.io/component-helpers/resource` `PodRequests` (v1.33): the sum of regular containers,
restartable (sidecar) init containers added to the running total, each regular init container
taking the max of itself plus the sidecars started before it; then pod overhead added. The
kubelet's eviction ranking uses the same effective request (`GetResourceRequestQuantity`), so both
read `Pod.requests`.
"""

from __future__ import annotations

from typing import Dict, Mapping, Sequence

from kubectl_evict.model import Container


def _add(into: Dict[str, int], other: Mapping[str, int]) -> None:
    for k, v in other.items():
        into[k] = into.get(k, 0) + v


def _max(into: Dict[str, int], other: Mapping[str, int]) -> None:
    for k, v in other.items():
        if v > into.get(k, 0):
            into[k] = v


def pod_requests(containers: Sequence[Container], init_containers: Sequence[Container],
                 overhead: Mapping[str, int]) -> Dict[str, int]:
    """Effective requests of a pod, in integer units (millicores for cpu)."""
    reqs: Dict[str, int] = {}
    for c in containers:
        _add(reqs, c.requests)
    restartable: Dict[str, int] = {}
    init_max: Dict[str, int] = {}
    for c in init_containers:
        if c.restart_policy == "Always":
            _add(reqs, c.requests)
            _add(restartable, c.requests)
            candidate = dict(restartable)
        else:
            candidate = dict(c.requests)
            _add(candidate, restartable)
        _max(init_max, candidate)
    _max(reqs, init_max)
    _add(reqs, overhead)
    return reqs
