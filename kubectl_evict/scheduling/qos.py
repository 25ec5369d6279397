"""Pod QoS class.

Models `pkg/apis/core/v1/helper/qos/qos.go` (v1.30-1.33): `GetPodQOS` trusts `status.qosClass`;
`ComputePodQOS` looks only at cpu and memory, treats zero quantities as unset, and includes init
containers.
"""

from __future__ import annotations

from typing import Sequence

from kubectl_evict.model import Container

_QOS_RESOURCES = ("cpu", "memory")


def compute_qos(containers: Sequence[Container]) -> str:
    """`ComputePodQOS` over regular and init containers (pass both)."""
    requests = {}
    limits = {}
    guaranteed = True
    for c in containers:
        for r in _QOS_RESOURCES:
            q = c.requests.get(r, 0)
            if q:
                requests[r] = requests.get(r, 0) + q
        has = 0
        for r in _QOS_RESOURCES:
            q = c.limits.get(r, 0)
            if q:
                has += 1
                limits[r] = limits.get(r, 0) + q
        if has != len(_QOS_RESOURCES):
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and set(requests) == set(limits) and all(requests[r] == limits[r] for r in requests):
        return "Guaranteed"
    return "Burstable"
