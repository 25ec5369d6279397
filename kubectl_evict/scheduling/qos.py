"""Pod QoS class.

Models `pkg/apis/core/v1/helper/qos/qos.go` (v1.30-v1.37): `GetPodQOS` trusts `status.qosClass`;
`ComputePodQOS` looks only at cpu and memory, treats zero quantities as unset, and includes init
containers. With pod-level resources (`spec.resources`, KEP-2837: alpha v1.32-v1.33, beta and
on from v1.34; an API server with the gate off drops the field, so a snapshot holding it comes
from a cluster that has it on) the pod-level values decide instead of the containers'. Up to
v1.36 any non-nil `spec.resources` decides, even `{}`, which makes such a pod BestEffort; from
v1.37 only pod-level resources with a cpu or memory request or limit do (#137150, feature
EmptyPodResourcesIgnoredForQoS). `status.qosClass` is set once at creation, so the difference
shows only for pods whose status the input lacks.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Tuple

from kubectl_evict.model import Container, Pod

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


def pod_qos_by_release(containers: Sequence[Container], pod_level: Optional[Container]) -> Tuple[str, str]:
    """(QoS from v1.37, QoS in v1.34-v1.36 when it differs, else "") for a pod without
    status.qosClass; `pod_level` is spec.resources (None: unset)."""
    if pod_level is None:
        return compute_qos(containers), ""
    set_ = any(pod_level.requests.get(r) or pod_level.limits.get(r) for r in _QOS_RESOURCES)
    new = compute_qos((pod_level,) if set_ else containers)
    old = compute_qos((pod_level,))
    return new, ("" if old == new else old)


def pod_qos(pod: Pod, version: Any) -> str:
    """The pod's QoS class on a cluster of `version` (a versions.ClusterVersion)."""
    if pod.qos_v136 and not version.has("EmptyPodResourcesIgnoredForQoS"):
        return pod.qos_v136
    return pod.qos
