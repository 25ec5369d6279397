"""Where would a replacement pod land? The scheduler's Filter step, then a deterministic pick.

Models kube-scheduler v1.33's default Filter plugins that matter for evicted pods:
NodeUnschedulable, TaintToleration (NoSchedule/NoExecute), NodeAffinity (nodeSelector and
required terms), NodeResourcesFit (cpu, memory, ephemeral-storage, pods, extended resources,
effective requests incl. init containers and overhead), NodePorts, and required pod
anti-affinity on `kubernetes.io/hostname`. Nodes that are not Ready are treated as carrying the
`not-ready`/`unreachable` NoSchedule taint the node lifecycle controller would put on them.

Among feasible nodes the pick is deterministic: highest preferred node-affinity score, then
least allocated (the scheduler's default scoring strategy), then node name. Upstream adds
randomness among equal scores; a plan must be reproducible, so we break ties by name.

Static checks (taints, affinity, readiness) depend only on the pod's template and the node, so
they are cached per template: placing thousands of pods of a few templates costs one static pass
per template, then only resource checks.
"""

from __future__ import annotations

from collections import Counter
from typing import Dict, Iterable, List, NamedTuple, Optional, Sequence, Set, Tuple

from kubectl_evict.model import Node, Pod, Taint
from kubectl_evict.scheduling.labels import label_selector_matches
from kubectl_evict.scheduling.nodeaffinity import node_matches_pod, preferred_score
from kubectl_evict.scheduling.tolerations import NOT_READY, UNREACHABLE, UNSCHEDULABLE, first_tolerating

HOSTNAME = "kubernetes.io/hostname"
_SCORED = ("cpu", "memory")


def effective_taints(node: Node) -> Tuple[Taint, ...]:
    """The node's taints plus those the node lifecycle controller derives from its state."""
    taints = list(node.taints)
    keys = {(t.key, t.effect) for t in taints}
    status = node.ready_status
    if status == "False" and (NOT_READY, "NoSchedule") not in keys:
        taints.append(Taint(NOT_READY, "", "NoSchedule"))
    elif status in ("Unknown", "") and node.conditions and (UNREACHABLE, "NoSchedule") not in keys:
        taints.append(Taint(UNREACHABLE, "", "NoSchedule"))
    return tuple(taints)


class Placement(NamedTuple):
    node: Optional[str]
    reason: str          # why nothing fits (scheduler-style), "" when placed


def _taint_message(t: Taint) -> str:
    return "node(s) had untolerated taint {%s: %s}" % (t.key, t.value)


class Placer:
    """Tracks free capacity as pods are placed; one per plan (it is a local accumulator)."""

    def __init__(self, nodes: Iterable[Node], pods_by_node: Dict[str, Sequence[Pod]],
                 excluded: Iterable[str] = (), leaving: Iterable[Pod] = ()) -> None:
        self.nodes: Dict[str, Node] = {n.name: n for n in nodes}
        self.names = sorted(self.nodes)
        self.excluded: Set[str] = set(excluded)
        gone = {(p.namespace, p.name) for p in leaving}
        self.free: Dict[str, Dict[str, int]] = {}
        self.count: Dict[str, int] = {}
        self.ports: Dict[str, Set[Tuple[int, str, str]]] = {}
        self.residents: Dict[str, List[Pod]] = {}
        self.taints: Dict[str, Tuple[Taint, ...]] = {}
        for name in self.names:
            node = self.nodes[name]
            free = dict(node.allocatable)
            ports: Set[Tuple[int, str, str]] = set()
            residents = []
            for p in pods_by_node.get(name, ()):
                if p.is_terminal or (p.namespace, p.name) in gone:
                    continue
                residents.append(p)
                for r, q in p.requests.items():
                    free[r] = free.get(r, 0) - q
                for c in p.containers + p.init_containers:
                    for hp in c.host_ports:
                        ports.add((hp.host_port, hp.protocol, hp.host_ip))
            self.free[name] = free
            self.count[name] = len(residents)
            self.ports[name] = ports
            self.residents[name] = residents
            self.taints[name] = effective_taints(node)
        self._static: Dict[tuple, Tuple[List[str], Counter]] = {}

    def exclude(self, names: Iterable[str]) -> None:
        self.excluded.update(names)
        self._static.clear()

    # -- filters ------------------------------------------------------------------------------

    def _static_feasible(self, pod: Pod) -> Tuple[List[str], Counter]:
        key = (pod.tolerations, tuple(sorted(pod.node_selector.items())), pod.required_affinity)
        hit = self._static.get(key)
        if hit is not None:
            return hit
        ok: List[str] = []
        why: Counter = Counter()
        unsched_tolerated = first_tolerating(pod.tolerations, Taint(UNSCHEDULABLE, "", "NoSchedule")) is not None
        for name in self.names:
            node = self.nodes[name]
            if name in self.excluded or (node.unschedulable and not unsched_tolerated):
                why["node(s) were unschedulable"] += 1
                continue
            bad = next((t for t in self.taints[name] if t.effect in ("NoSchedule", "NoExecute")
                        and first_tolerating(pod.tolerations, t) is None), None)
            if bad is not None:
                why[_taint_message(bad)] += 1
                continue
            if not node_matches_pod(pod, node).match:
                why["node(s) didn't match Pod's node affinity/selector"] += 1
                continue
            ok.append(name)
        self._static[key] = (ok, why)
        return ok, why

    def _dynamic_failure(self, pod: Pod, name: str) -> Optional[str]:
        free = self.free[name]
        alloc = self.nodes[name].allocatable
        if "pods" in alloc and self.count[name] + 1 > alloc["pods"]:
            return "Too many pods"
        for r, q in sorted(pod.requests.items()):
            if q <= 0:
                continue
            if r not in alloc and r not in ("cpu", "memory", "ephemeral-storage"):
                return "Insufficient %s" % r
            if r in alloc and q > free.get(r, 0):
                return "Insufficient %s" % r
        used = self.ports[name]
        for c in pod.containers + pod.init_containers:
            for hp in c.host_ports:
                for (port, proto, ip) in used:
                    if port == hp.host_port and proto == hp.protocol and (
                            ip in ("", "0.0.0.0") or hp.host_ip in ("", "0.0.0.0") or ip == hp.host_ip):
                        return "node(s) didn't have free ports for the requested pod ports"
        for term in pod.anti_affinity_required:
            if term.topology_key != HOSTNAME:
                continue
            namespaces = term.namespaces or (pod.namespace,)
            for other in self.residents[name]:
                if other.namespace in namespaces and label_selector_matches(term.selector, other.labels):
                    return "node(s) didn't match pod anti-affinity rules"
        return None

    def _score(self, pod: Pod, name: str) -> Tuple[int, float]:
        node = self.nodes[name]
        pref, _ = preferred_score(pod.preferred_affinity, node) if pod.preferred_affinity else (0, ())
        alloc = node.allocatable
        parts = []
        for r in _SCORED:
            a = alloc.get(r, 0)
            if a > 0:
                parts.append((self.free[name].get(r, 0) - pod.requests.get(r, 0)) / a)
        least = sum(parts) / len(parts) if parts else 0.0
        return pref, least

    # -- API ----------------------------------------------------------------------------------

    def place(self, pod: Pod) -> Placement:
        """Find the node the scheduler would pick for a replacement of `pod`; reserve it."""
        feasible, why = self._static_feasible(pod)
        why = Counter(why)
        best = None
        best_key = None
        for name in feasible:
            fail = self._dynamic_failure(pod, name)
            if fail is not None:
                why[fail] += 1
                continue
            pref, least = self._score(pod, name)
            key = (-pref, -least, name)
            if best_key is None or key < best_key:
                best, best_key = name, key
        if best is None:
            total = len(self.names)
            detail = ", ".join("%d %s" % (n, msg) for msg, n in sorted(why.items()))
            return Placement(None, "0/%d nodes are available%s" % (total, ": " + detail if detail else ""))
        self.commit(pod, best)
        return Placement(best, "")

    def commit(self, pod: Pod, name: str) -> None:
        free = self.free[name]
        for r, q in pod.requests.items():
            free[r] = free.get(r, 0) - q
        self.count[name] += 1
        for c in pod.containers + pod.init_containers:
            for hp in c.host_ports:
                self.ports[name].add((hp.host_port, hp.protocol, hp.host_ip))
        self.residents[name].append(pod)
