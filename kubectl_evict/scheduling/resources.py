"""Pod resource requests as the scheduler counts them, and pod limits as the kubelet does.

Models `k8s.io/component-helpers/resource` `PodRequests` and `PodLimits` (v1.30-v1.37,
`aggregateContainerResourcesByFn`): the sum of regular containers, restartable (sidecar) init
containers added to the running total, each regular init container taking the max of itself plus
the sidecars started before it; then pod overhead added (to limits only where one is set and
non-zero). With pod-level resources (`spec.resources`) the pod-level requests replace these
(`Pod.requests`, set when freezing). The kubelet's eviction ranking uses the same effective
request (`GetResourceRequestQuantity`), so both read `Pod.requests`, except that kubelets before
v1.34 ranked by the containers' requests (#132277, `eviction/ranking.py`); its ephemeral-storage
limit eviction (`podEphemeralStorageLimitEviction`) reads `pod_limits`.
"""

from __future__ import annotations

from typing import Callable, Dict, Mapping, Sequence, Tuple

from kubectl_evict.model import Container, Pod


def _add(into: Dict[str, int], other: Mapping[str, int]) -> None:
    for k, v in other.items():
        into[k] = into.get(k, 0) + v


def _max(into: Dict[str, int], other: Mapping[str, int]) -> None:
    """maxResourceList: the larger value, and any resource `into` lacks."""
    for k, v in other.items():
        if k not in into or v > into[k]:
            into[k] = v


def _aggregate(containers: Sequence[Container], init_containers: Sequence[Container],
               of: Callable[[Container], Mapping[str, int]]) -> Dict[str, int]:
    """aggregateContainerResourcesByFn: a resource is in the result as soon as any container
    (regular, sidecar or init) names it."""
    out: Dict[str, int] = {}
    for c in containers:
        _add(out, of(c))
    restartable: Dict[str, int] = {}
    init_max: Dict[str, int] = {}
    for c in init_containers:
        if c.restart_policy == "Always":
            _add(out, of(c))
            _add(restartable, of(c))
            candidate = dict(restartable)
        else:
            candidate = dict(of(c))
            _add(candidate, restartable)
        _max(init_max, candidate)
    _max(out, init_max)
    return out


def pod_requests(containers: Sequence[Container], init_containers: Sequence[Container],
                 overhead: Mapping[str, int]) -> Dict[str, int]:
    """Effective requests of a pod, in integer units (millicores for cpu)."""
    reqs = _aggregate(containers, init_containers, lambda c: c.requests)
    _add(reqs, overhead)
    return reqs


def default_pod_level_requests(requests: Mapping[str, int], limits: Mapping[str, int],
                               containers: Sequence[Container], init_containers: Sequence[Container]) -> Dict[str, int]:
    """The API server's `defaultPodRequests` (pkg/apis/core/v1/defaults.go, PodLevelResources,
    on from v1.34): only when pod-level limits are set, a supported resource (cpu, memory) the
    pod-level requests lack takes the containers' effective request when any container asks for
    it, else the pod-level limit (hugepages too). A pod read from the API already carries these;
    a hand-written one gets them here, so its QoS and requests are the cluster's."""
    out = dict(requests)
    if not limits:
        return out
    for k, v in _aggregate(containers, init_containers, lambda c: c.requests).items():
        if k not in out and k in ("cpu", "memory"):
            out[k] = v
    for k, v in limits.items():
        if k not in out and (k in ("cpu", "memory") or k.startswith("hugepages-")):
            out[k] = v
    return out


def pod_limits(containers: Sequence[Container], init_containers: Sequence[Container],
               overhead: Mapping[str, int]) -> Dict[str, int]:
    """PodLimits: the limits that are set, summed (a container without a limit adds nothing, it
    does not make the pod unlimited), the larger of that and the init containers'; overhead is
    added to a limit only when that limit is non-zero. A resource no container limits is absent."""
    limits = _aggregate(containers, init_containers, lambda c: c.limits)
    for k, v in overhead.items():
        if limits.get(k):
            limits[k] += v
    return limits


# The scheduler's defaults for containers that request no cpu/memory, in its scores only
# (`schedutil.DefaultMilliCPURequest`, `DefaultMemoryRequest`).
DEFAULT_MILLI_CPU = 100
DEFAULT_MEMORY = 200 * 1024 * 1024


def non_zero_requests(pod: Pod) -> Tuple[int, int]:
    """(milli-cpu, memory) as the score sees them: `PodRequests` with `NonMissingContainerRequests`
    (each container, init containers included, that names no cpu/memory request counts the
    defaults; an explicit 0 stays 0), aggregated like the real requests (sidecars add, a regular
    init container counts with the sidecars started before it), pod-level requests replacing the
    container sums, then overhead (`framework/types.go` `calculateResource`)."""
    def with_defaults(c: Container) -> Mapping[str, int]:
        r = c.requests
        if "cpu" in r and "memory" in r:
            return r
        d = dict(r)
        d.setdefault("cpu", DEFAULT_MILLI_CPU)
        d.setdefault("memory", DEFAULT_MEMORY)
        return d
    reqs = _aggregate(pod.containers, pod.init_containers, with_defaults)
    if pod.pod_level is not None:
        reqs.update((r, q) for r, q in pod.pod_level.requests.items() if r in ("cpu", "memory"))
    return reqs.get("cpu", 0) + pod.overhead.get("cpu", 0), reqs.get("memory", 0) + pod.overhead.get("memory", 0)
