"""NodeResourcesFit and NodeResourcesBalancedAllocation
(`pkg/scheduler/framework/plugins/noderesources/{fit.go, least_allocated.go,
balanced_allocation.go, resource_allocation.go}`, v1.30-v1.37).

The Filter counts the pods nominated to the node that are at least as important as the pod as
if they ran there (`RunFilterPluginsWithNominatedPods`; `framework.nominated_pods`).

Filter: the pod count, then every requested resource against allocatable minus what the
node's pods request (a resource the node does not list has 0). Score: LeastAllocated over cpu
and memory with the scheduler's non-zero defaults (100m / 200Mi for a container that requests
none), and BalancedAllocation over the real requests."""

from __future__ import annotations

from typing import Any, List, Mapping, Optional, Sequence, Tuple

from kubectl_evict.model import Node, Pod
from kubectl_evict.scheduling.framework import OK, ClusterState, Plugin, Status, unschedulable
from kubectl_evict.scheduling.resources import DEFAULT_MEMORY, DEFAULT_MILLI_CPU, non_zero_requests  # noqa: F401

TOO_MANY_PODS = "Too many pods"


def insufficient(cs: ClusterState, pod: Pod, name: str, first_only: bool = False) -> List[str]:
    """`fitsRequest`: every reason, in upstream's order (pods, cpu, memory, ephemeral, scalar)."""
    out: List[str] = []
    alloc = cs.alloc[name]
    held = cs.nominated_room(name, pod) if cs.nominated else None
    if "pods" in alloc and cs.count[name] + 1 + (held[1] if held else 0) > alloc["pods"]:
        out.append(TOO_MANY_PODS)
        if first_only:
            return out
    free = cs.free[name]
    if held:
        free = {r: free.get(r, 0) - held[0].get(r, 0) for r in set(free) | set(held[0])}
    for r, q in fit_order(cs, pod):
        if r not in alloc or q > free.get(r, 0):
            out.append("Insufficient %s" % r)
            if first_only:
                return out
    return out


def insufficient_freed(cs: ClusterState, pod: Pod, name: str, gone: int, freed: Mapping[str, int]) -> List[str]:
    """`insufficient` as if `gone` pods requesting `freed` together had left the node."""
    alloc = cs.alloc[name]
    free = cs.free[name]
    out: List[str] = []
    if "pods" in alloc and cs.count[name] - gone + 1 > alloc["pods"]:
        out.append(TOO_MANY_PODS)
    for r, q in fit_order(cs, pod):
        if r not in alloc or q > free.get(r, 0) + freed.get(r, 0):
            out.append("Insufficient %s" % r)
    return out


_FIT_ORDER = {"cpu": 0, "memory": 1, "ephemeral-storage": 2}


def fit_order(cs: ClusterState, pod: Pod) -> Tuple[Tuple[str, int], ...]:
    """The pod's non-zero requests other than `pods`, in the order `fitsRequest` checks them
    (cpu, memory, ephemeral-storage, then scalar resources by name), remembered per requests:
    every node's FitError reasons are asked for each pod that fits nowhere."""
    items = cs.items(pod)
    key = ("fit-order", items)
    hit = cs.cache.get(key)
    if hit is None:
        hit = cs.cache[key] = tuple(rq for rq in sorted(items, key=lambda rq: (_FIT_ORDER.get(rq[0], 3), rq[0]))
                                    if rq[0] != "pods")
    return hit


class NodeResourcesFit(Plugin):
    name = "NodeResourcesFit"

    def pre_filter(self, cs: ClusterState, pod: Pod) -> Tuple[Status, Any]:
        return OK, None

    def filter(self, cs: ClusterState, pod: Pod, data: Any, node: Node) -> Optional[Status]:
        why = insufficient(cs, pod, node.name)
        return unschedulable(*why) if why else None


DEFAULT_RESOURCES = (("cpu", 1), ("memory", 1))


def _counted(resources: Sequence[Tuple[str, int]], alloc: Mapping[str, int], pod_requests: Mapping[str, int]):
    """`calculateResourceAllocatableRequest`: a resource the node lacks is skipped, and an
    extended resource counts only when the pod requests it."""
    for r, w in resources:
        if alloc.get(r, 0) == 0:
            continue
        if r not in ("cpu", "memory", "ephemeral-storage") and pod_requests.get(r, 0) == 0:
            continue
        yield r, w


def least_allocated(alloc: Mapping[str, int], requested: Mapping[str, int],
                    resources: Sequence[Tuple[str, int]] = DEFAULT_RESOURCES,
                    pod_requests: Mapping[str, int] = {}) -> int:
    """`leastResourceScorer`: `sum((alloc - req) * 100 // alloc * w) // sum(w)`, 0 for an
    over-committed resource."""
    total = weights = 0
    for r, w in _counted(resources, alloc, pod_requests):
        a = alloc[r]
        req = requested.get(r, 0)
        total += (0 if req > a else (a - req) * 100 // a) * w
        weights += w
    return total // weights if weights else 0


def balanced_allocation(alloc: Mapping[str, int], requested: Mapping[str, int],
                        resources: Sequence[Tuple[str, int]] = DEFAULT_RESOURCES,
                        pod_requests: Mapping[str, int] = {},
                        allocated: Optional[Mapping[str, int]] = None) -> int:
    """`balancedResourceScorer`. Up to v1.35: `(1 - std) * 100` over the requested fractions
    (capped at 1) with the pod placed. From v1.36 (#135573, `allocated`: the node's requests
    without the pod) it scores the change in balance: `50 + (50 + with - without) / 2` (integer
    division), so no change scores 75, balanced -> fully unbalanced 50, the reverse 100."""
    with_pod = _balance(alloc, requested, resources, pod_requests)
    if allocated is None:
        return with_pod
    without = _balance(alloc, allocated, resources, pod_requests)
    return MAX_NODE_SCORE // 2 + (MAX_NODE_SCORE // 2 + with_pod - without) // 2


MAX_NODE_SCORE = 100


def _balance(alloc: Mapping[str, int], requested: Mapping[str, int], resources: Sequence[Tuple[str, int]],
             pod_requests: Mapping[str, int]) -> int:
    """The pre-v1.36 score of one state: `(1 - std) * 100` over the requested fractions."""
    fractions = [min(1.0, requested.get(r, 0) / alloc[r]) for r, _ in _counted(resources, alloc, pod_requests)]
    if len(fractions) == 2:
        std = abs(fractions[0] - fractions[1]) / 2
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        std = (sum((f - mean) ** 2 for f in fractions) / len(fractions)) ** 0.5
    else:
        std = 0.0
    return int((1 - std) * 100)
