"""PodTopologySpread (`pkg/scheduler/framework/plugins/podtopologyspread/{common.go, filtering.go,
scoring.go, plugin.go}`).

Filter uses the pod's `DoNotSchedule` constraints: per constraint, the pods in the pod's
namespace (not terminating) matching the selector (ANDed with `matchLabelKeys` values) are
counted per topology value over the nodes that carry every constraint key and pass the
nodeAffinityPolicy / nodeTaintsPolicy; `skew = count(node's domain) + self-match - global
minimum` must not exceed maxSkew (the minimum is 0 with fewer domains than minDomains). The
counts are `ClusterState` counters, updated as the plan moves pods.
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, NamedTuple, Optional, Sequence, Tuple

from kubectl_evict.model import LabelSelector, Node, Pod, SpreadConstraint, Taint
from kubectl_evict.scheduling.framework import (OK, PER_NODE, SKIPPED, ClusterState, DomainCounter, Plugin, Status,
                                                effective_taints, unresolvable, unschedulable)
from kubectl_evict.scheduling.labels import label_selector_matches
from kubectl_evict.scheduling.nodeaffinity import node_matches_pod
from kubectl_evict.scheduling.plugins.tainttoleration import first_untolerated
from kubectl_evict.scheduling.tolerations import UNSCHEDULABLE

MISSING_LABEL = "node(s) didn't match pod topology spread constraints (missing required label)"
SKEW = "node(s) didn't match pod topology spread constraints"


def constraint_selector(c: SpreadConstraint, pod: Pod) -> Optional[LabelSelector]:
    """`mergeLabelSetWithSelector`: matchLabelKeys present on the pod are ANDed in."""
    if c.selector is None or not c.match_label_keys:
        return c.selector
    extra = tuple((k, pod.labels[k]) for k in c.match_label_keys if k in pod.labels)
    if not extra:
        return c.selector
    return LabelSelector(tuple(sorted(set(c.selector.match_labels + extra))), c.selector.match_expressions)


class _Item(NamedTuple):
    constraint: SpreadConstraint
    selector: Optional[LabelSelector]
    counter: DomainCounter
    domains: FrozenSet[str]
    self_match: int


def node_passes_policies(cs: ClusterState, pod: Pod, c: SpreadConstraint, node: Node) -> bool:
    """`matchNodeInclusionPolicies`. A cordoned node (in the snapshot, or by the plan) carries
    node.kubernetes.io/unschedulable:NoSchedule, which the node lifecycle controller adds to every
    node with spec.unschedulable (semantics.md F2): under nodeTaintsPolicy Honor it is no domain
    unless the pod tolerates that taint."""
    if c.node_affinity_policy == "Honor" and not node_matches_pod(pod, node).match:
        return False
    if c.node_taints_policy == "Honor":
        taints = effective_taints(node)
        if node.unschedulable or node.name in cs.cordoned:
            taints += (_CORDON_TAINT,)
        if first_untolerated(taints, pod.tolerations) is not None:
            return False
    return True


_CORDON_TAINT = Taint(UNSCHEDULABLE, "", "NoSchedule")


def counted_items(cs: ClusterState, pod: Pod, constraints: Tuple[SpreadConstraint, ...],
                  require_all_keys: bool = True) -> List[_Item]:
    keys = tuple(sorted({c.topology_key for c in constraints}))
    items = []
    for c in constraints:
        sel = constraint_selector(c, pod)
        cache_key = ("pts", pod.namespace, sel, c.topology_key, keys if require_all_keys else (c.topology_key,),
                     c.node_affinity_policy, c.node_taints_policy,
                     (tuple(sorted(pod.node_selector.items())), pod.required_affinity)
                     if c.node_affinity_policy == "Honor" else None,
                     (pod.tolerations, cs.cordoned) if c.node_taints_policy == "Honor" else None)
        memo = cs.cache.get(cache_key)
        if memo is None:
            need = keys if require_all_keys else (c.topology_key,)
            nodes_key = ("pts-nodes",) + cache_key[4:]
            hit = cs.cache.get(nodes_key)
            if hit is None:    # shared by every selector with the same keys and policies
                ok = frozenset(n for n, node in cs.nodes.items()
                               if all(k in node.labels for k in need) and node_passes_policies(cs, pod, c, node))
                hit = cs.cache[nodes_key] = (ok, {})
            ok, by_key = hit
            domains = _domains(cs, ok, by_key, c.topology_key)
            ns = pod.namespace

            def match(p: Pod, sel: Optional[LabelSelector] = sel) -> bool:
                return p.deletion_timestamp is None and label_selector_matches(sel, p.labels)
            counter = cs.counter(cache_key, (c.topology_key,), match, ok.__contains__, frozenset((ns,)))
            memo = cs.cache[cache_key] = (counter, domains, cs.absent, ok, by_key)
        elif memo[2] is not cs.absent:    # nodes came or went since: the domains did (the counts follow by themselves)
            memo = cs.cache[cache_key] = (memo[0], _domains(cs, memo[3], memo[4], c.topology_key), cs.absent,
                                          memo[3], memo[4])
        counter, domains = memo[0], memo[1]
        items.append(_Item(c, sel, counter, domains, 1 if label_selector_matches(sel, pod.labels) else 0))
    return items


def _domains(cs: ClusterState, ok: FrozenSet[str], by_key: dict, key: str) -> FrozenSet[str]:
    """The values of `key` among the counted nodes `ok` that exist now: an absent node (removed,
    or not created yet) is not in kube-scheduler's snapshot, so its value is a domain only when
    another node carries it (`filtering.go` calPreFilterState lists the snapshot's nodes)."""
    absent = cs.absent
    hit = by_key.get(key)
    if hit is None:
        nodes = cs.nodes
        carriers: Dict[str, int] = {}       # value -> how many present nodes of `ok` carry it
        for n in ok:
            if n not in absent:
                v = nodes[n].labels[key]
                carriers[v] = carriers.get(v, 0) + 1
        hit = by_key[key] = (absent, frozenset(carriers), carriers)
    elif hit[0] is not absent:
        # only the current set is kept, updated by the nodes that went or came back since (an
        # upgrade removes a node per batch: a full pass over thousands of nodes each time adds up)
        before, domains, carriers = hit
        nodes = cs.nodes
        touched = set()
        for n in before.symmetric_difference(absent):
            if n in ok:
                v = nodes[n].labels[key]
                carriers[v] = carriers.get(v, 0) + (1 if n in before else -1)
                touched.add(v)
        if touched:
            dead = {v for v in touched if not carriers[v]}
            for v in dead:
                del carriers[v]
            domains = (domains - dead) | (touched - dead)
        hit = by_key[key] = (absent, domains, carriers)
    return hit[1]


def counts_any(items: List[_Item], pods: List[Pod], node_name: str) -> bool:
    """Is any of `pods` (on node `node_name`) counted by one of the constraints' domain counts?
    When none is, taking them off the node changes no count, so the constraints' verdict on the
    node stays what it is (preemption's dry run can be skipped)."""
    return any(item.counter.counts_pod(p, node_name) for item in items for p in pods)


def global_min(item: _Item) -> int:
    """The constraint's global minimum: the fewest matching pods in one of its domains (0 while
    there are fewer domains than minDomains). The counter keeps only domains that hold a
    matching pod, one entry each: with fewer entries than domains, some domain holds none, and
    the minimum is 0 without reading every domain (thousands with a hostname key)."""
    c = item.constraint
    n = len(item.domains)
    if n < c.min_domains or len(item.counter.counts) < n:
        return 0
    get = item.counter.get
    key = c.topology_key
    return min((get(key, v) for v in item.domains), default=0)


def hard_constraints(pod: Pod) -> Tuple[SpreadConstraint, ...]:
    """`pod`'s DoNotSchedule constraints: the ones the Filter checks."""
    return tuple(c for c in pod.spread_constraints if c.when_unsatisfiable == "DoNotSchedule")


def hard_minimums(cs: ClusterState, pod: Pod) -> Tuple[int, ...]:
    """The global minimum of each of `pod`'s DoNotSchedule constraints now. Between two moments,
    a node whose domain count made the Filter reject `pod` can pass only if one of these rose or
    the count it read fell (pods that counted left: `counted_on`)."""
    hard = hard_constraints(pod)
    return tuple(global_min(i) for i in counted_items(cs, pod, hard)) if hard else ()


def counted_on(cs: ClusterState, pod: Pod, names: Sequence[str]) -> bool:
    """Does a pod on one of the nodes `names` count in a domain of `pod`'s DoNotSchedule
    constraints (`counts_any`)?"""
    hard = hard_constraints(pod)
    if not hard:
        return False
    items = counted_items(cs, pod, hard)
    return any(counts_any(items, cs.residents[n], n) for n in names if n in cs.residents)


class PodTopologySpread(Plugin):
    name = "PodTopologySpread"

    def pre_filter(self, cs: ClusterState, pod: Pod) -> Tuple[Status, Any]:
        hard = hard_constraints(pod)
        if not hard:
            return SKIPPED, None
        return OK, [counted_items(cs, pod, hard), -1, ()]

    def filter(self, cs: ClusterState, pod: Pod, data: Any, node: Node) -> Optional[Status]:
        return _verdict(cs, data, node, _NONE)

    def class_status(self, cs: ClusterState, pod: Pod, data: Any, rep: Node, split: FrozenSet[str]) -> Optional[Status]:
        """With every constraint on a key that is not per node, the Filter reads only the node's
        values of those keys and the domain counts: the representative's status is the class's."""
        if any(item.constraint.topology_key in split for item in data[0]):
            return PER_NODE
        return self.filter(cs, pod, data, rep)

    def rejects_class(self, cs: ClusterState, pod: Pod, data: Any, rep: Node, split: FrozenSet[str]) -> bool:
        """A constraint on a key that is not per node (zone, region) reads only the node's value
        of that key and the domain counts: it fails every node of the class or none."""
        return _verdict(cs, data, rep, split) is not None


_NONE: FrozenSet[str] = frozenset()


def _verdict(cs: ClusterState, data: Any, node: Node, skip: FrozenSet[str]) -> Optional[Status]:
    """The Filter on `node`, leaving out the constraints on the keys in `skip` (none: the Filter
    itself; the per-node keys: what holds for the node's whole class)."""
    labels = node.labels
    for item, low in zip(data[0], _mins(cs, data)):
        key = item.constraint.topology_key
        if key in skip:
            continue
        value = labels.get(key)
        if value is None:
            return unresolvable(MISSING_LABEL)
        if item.counter.get(key, value) + item.self_match - low > item.constraint.max_skew:
            return unschedulable(SKEW)
    return None


def _mins(cs: ClusterState, data: Any) -> Tuple[int, ...]:
    """The constraints' global minimums, recomputed when the plan has moved pods since."""
    if data[1] != cs.version:
        data[1] = cs.version
        data[2] = tuple(global_min(i) for i in data[0])
    return data[2]
