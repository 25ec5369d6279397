"""InterPodAffinity (`pkg/scheduler/framework/plugins/interpodaffinity/{filtering.go, scoring.go,
plugin.go}`, `pkg/scheduler/framework/types.go` AffinityTerm).

Filter, in upstream's order: the pod's required affinity (every term's key on the node, and
a pod matching all terms in the node's domains, or the first-pod-of-its-group exception),
its required anti-affinity (no matching pod in the node's domain of each term), and existing
pods' required anti-affinity against this pod (symmetric). Terms work on any topology key;
namespaces come from `namespaces` plus `namespaceSelector` over Namespace labels. Matching
pods are counted per (key, value) by `ClusterState` counters, updated as the plan moves pods.
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from kubectl_evict.model import Node, Pod, PodAffinityTerm
from kubectl_evict.scheduling.framework import (OK, PER_NODE, SKIPPED, ClusterState, DomainCounter, Plugin, Status,
                                                unresolvable, unschedulable)
from kubectl_evict.scheduling.labels import label_selector_matches, label_value_errors

AFFINITY = "node(s) didn't match pod affinity rules"
ANTI_AFFINITY = "node(s) didn't match pod anti-affinity rules"
EXISTING_ANTI_AFFINITY = "node(s) didn't satisfy existing pods anti-affinity rules"


def term_namespaces(cs: ClusterState, term: PodAffinityTerm, owner_ns: str) -> Optional[FrozenSet[str]]:
    """The namespaces a term covers (None: all). Both fields unset: the owning pod's namespace."""
    sel = term.namespace_selector
    if sel is None:
        return frozenset(term.namespaces or (owner_ns,))
    if not sel.match_labels and not sel.match_expressions:
        return None
    names = set(term.namespaces)
    names.update(n for n, ns in cs.namespaces.items() if label_selector_matches(sel, ns.labels))
    return frozenset(names)


def existing_term_matches(cs: ClusterState, term: PodAffinityTerm, owner_ns: str, pod: Pod) -> bool:
    """`AffinityTerm.Matches` for an existing pod's term against the incoming pod."""
    sel = term.namespace_selector
    if sel is None:
        ns_ok = pod.namespace in (term.namespaces or (owner_ns,))
    else:
        ns_ok = pod.namespace in term.namespaces or label_selector_matches(sel, cs.namespace_labels(pod.namespace))
    return ns_ok and label_selector_matches(term.selector, pod.labels)


def _matcher(terms: Tuple[Tuple[PodAffinityTerm, Optional[FrozenSet[str]]], ...]):
    def match(p: Pod) -> bool:
        for term, nss in terms:
            if nss is not None and p.namespace not in nss:
                return False
            if not label_selector_matches(term.selector, p.labels):
                return False
        return True
    return match


def _all_ns(resolved: Tuple[Tuple[PodAffinityTerm, Optional[FrozenSet[str]]], ...]) -> Optional[FrozenSet[str]]:
    """Namespaces a pod must be in to match every term (None: any)."""
    sets = [n for _, n in resolved if n is not None]
    return frozenset.intersection(*sets) if sets else None


class State:
    __slots__ = ("affinity", "affinity_keys", "self_affine", "anti", "forbidden")

    def __init__(self) -> None:
        self.affinity: Optional[DomainCounter] = None
        self.affinity_keys: Tuple[str, ...] = ()
        self.self_affine = False
        self.anti: List[DomainCounter] = []
        self.forbidden: Dict[str, Set[str]] = {}


def affinity_counter(cs: ClusterState, pod: Pod, terms: Tuple[PodAffinityTerm, ...]) -> DomainCounter:
    resolved = tuple((t, term_namespaces(cs, t, pod.namespace)) for t in terms)
    keys = tuple(t.topology_key for t in terms)
    return cs.counter(("ipa", resolved, keys), keys, _matcher(resolved), lambda n: True, _all_ns(resolved))


def parse_error(pod: Pod) -> str:
    """`framework.NewPodInfo`'s error for a required term whose selector values are not valid
    label values (`labels.NewRequirement`), as PreFilter reports it."""
    for what, terms in (("requiredAffinityTerms", pod.affinity_required),
                        ("requiredAntiAffinityTerms", pod.anti_affinity_required)):
        for t in terms:
            if t.selector is None:
                continue
            for req in t.selector.match_expressions:
                if req.operator not in ("In", "NotIn"):
                    continue
                for i, v in enumerate(req.values):
                    errs = label_value_errors(v)
                    if errs:
                        return "parsing pod: %s: values[%d][%s]: Invalid value: \"%s\": %s" % (
                            what, i, req.key, v, "; ".join(errs))
    return ""


def _groups_for(cs: ClusterState, groups: Dict[Tuple[str, Any], Any], pod: Pod) -> List[Tuple[str, PodAffinityTerm, Any]]:
    """The existing pods' anti-affinity groups that can match `pod` by namespace: a term without
    a namespace selector only matches pods of its namespaces (its own when none are listed), so
    only those terms and the ones with a namespace selector need their label selector checked."""
    idx = cs.cache.get("ipa-index")
    if idx is None or idx[0] != len(groups):
        by_ns: Dict[str, List[Tuple[str, PodAffinityTerm, Any]]] = {}
        other: List[Tuple[str, PodAffinityTerm, Any]] = []
        for (ns, term), counter in groups.items():
            if term.namespace_selector is None:
                for n in (term.namespaces or (ns,)):
                    by_ns.setdefault(n, []).append((ns, term, counter))
            else:
                other.append((ns, term, counter))
        idx = cs.cache["ipa-index"] = (len(groups), by_ns, other)
    return idx[1].get(pod.namespace, []) + idx[2]


def _groups_select_namespaces(cs: ClusterState) -> bool:
    """Has a running pod's required anti-affinity term a namespaceSelector? Remembered per
    number of groups: groups are only ever added, and this is asked for every pod placed."""
    groups = cs.anti_affinity_groups()
    memo = cs.cache.get("ipa-ns-selector")
    if memo is None or memo[0] != len(groups):
        memo = cs.cache["ipa-ns-selector"] = (len(groups), any(term.namespace_selector is not None
                                                              for _, term in groups))
    return memo[1]


def _selects_namespaces(term: PodAffinityTerm) -> bool:
    """Does the term's namespaceSelector read Namespace labels? (`{}` selects every namespace.)"""
    sel = term.namespace_selector
    return sel is not None and bool(sel.match_labels or sel.match_expressions)


def score_needs_namespaces(cs: ClusterState, pod: Pod) -> bool:
    """Would InterPodAffinity's Score read Namespace labels the input does not hold? The pod's
    preferred terms, or an existing pod's term (required affinity, preferred affinity and
    anti-affinity: `processExistingPod`) with a namespaceSelector: without the Namespaces such a
    term matches nothing, and the node picked among those that fit is not known."""
    if cs.snapshot is None or cs.snapshot.holds("Namespace"):
        return False
    if any(_selects_namespaces(wt.term) for wt in pod.affinity_preferred + pod.anti_affinity_preferred):
        return True
    _, with_selector = scoring_groups_for(cs, pod)
    return any(counter.counts and _selects_namespaces(term) and label_selector_matches(term.selector, pod.labels)
               for (_ns, _kind, term, _w), counter in with_selector)


ScoringGroup = Tuple[Tuple[str, str, PodAffinityTerm, int], DomainCounter]


def scoring_groups_for(cs: ClusterState, pod: Pod) -> Tuple[List[ScoringGroup], List[ScoringGroup]]:
    """The existing pods' scoring term groups (`ClusterState.scoring_term_groups`) that can match
    `pod` by namespace, as (those without a namespace selector that cover its namespace, those
    with one), each group once. A term without a namespace selector only matches pods of its
    namespaces (its own when none are listed: `existing_term_matches`), so a pod's Score need not
    look at the thousands of other namespaces' groups. Indexed once per number of groups (groups
    are only ever added)."""
    groups = cs.scoring_term_groups()
    idx = cs.cache.get("ipa-score-index")
    if idx is None or idx[0] != len(groups):
        by_ns: Dict[str, List[ScoringGroup]] = {}
        other: List[ScoringGroup] = []
        for gkey, counter in groups.items():
            term = gkey[2]
            if term.namespace_selector is None:
                for n in dict.fromkeys(term.namespaces or (gkey[0],)):
                    by_ns.setdefault(n, []).append((gkey, counter))
            else:
                other.append((gkey, counter))
        idx = cs.cache["ipa-score-index"] = (len(groups), by_ns, other)
    return idx[1].get(pod.namespace, []), idx[2]


class InterPodAffinity(Plugin):
    name = "InterPodAffinity"

    def unknown_kinds(self, cs: ClusterState, pod: Pod) -> Tuple[str, ...]:
        """Namespace, when a required term of the pod (or of a running pod's anti-affinity) has
        a namespaceSelector and the input holds no Namespaces to match it against."""
        if cs.snapshot is None or cs.snapshot.holds("Namespace"):
            return ()
        terms = pod.affinity_required + pod.anti_affinity_required
        if any(t.namespace_selector is not None for t in terms) or _groups_select_namespaces(cs):
            return ("Namespace",)
        return ()

    def pre_filter(self, cs: ClusterState, pod: Pod) -> Tuple[Status, Any]:
        bad = parse_error(pod)
        if bad:
            return unresolvable(bad), None
        st = State()
        groups = cs.anti_affinity_groups()
        key = ("ipa-groups", pod.namespace, pod.labels)
        memo = cs.cache.get(key)
        if memo is None or memo[0] != len(groups):      # groups only ever get added
            memo = cs.cache[key] = (len(groups), [(term, counter) for ns, term, counter in _groups_for(cs, groups, pod)
                                                   if existing_term_matches(cs, term, ns, pod)])
        for term, counter in memo[1]:
            if counter.counts:
                st.forbidden.setdefault(term.topology_key, set()).update(v for (_, v) in counter.counts)
        if not pod.affinity_required and not pod.anti_affinity_required and not st.forbidden:
            return SKIPPED, None
        if pod.affinity_required:
            st.affinity = affinity_counter(cs, pod, pod.affinity_required)
            st.affinity_keys = tuple(t.topology_key for t in pod.affinity_required)
            st.self_affine = all(existing_term_matches(cs, t, pod.namespace, pod) for t in pod.affinity_required)
        for t in pod.anti_affinity_required:
            st.anti.append(affinity_counter(cs, pod, (t,)))
        return OK, st

    def filter(self, cs: ClusterState, pod: Pod, st: Any, node: Node) -> Optional[Status]:
        return _verdict(st, node, _NONE)

    def class_status(self, cs: ClusterState, pod: Pod, st: Any, rep: Node, split: FrozenSet[str]) -> Optional[Status]:
        """With no term on a per-node key (the pod's affinity and anti-affinity, the running
        pods' anti-affinity against it), the Filter reads only the node's values of zone-like
        keys and the domain counts: the representative's status is the class's."""
        if any(k in split for k in st.affinity_keys) or any(c.keys[0] in split for c in st.anti) or \
                any(k in split for k in st.forbidden):
            return PER_NODE
        return self.filter(cs, pod, st, rep)

    def rejects_class(self, cs: ClusterState, pod: Pod, st: Any, rep: Node, split: FrozenSet[str]) -> bool:
        """Each part of the Filter whose topology keys are not per node reads only the node's
        values of those keys and the domain counts: the same verdict for the whole class."""
        return _verdict(st, rep, split) is not None


_NONE: FrozenSet[str] = frozenset()


def _verdict(st: State, node: Node, skip: FrozenSet[str]) -> Optional[Status]:
    """The Filter on `node`, leaving out the parts whose topology keys are in `skip` (none: the
    Filter itself; the per-node keys: what holds for the node's whole class). The pod's required
    affinity is one part (its terms must all hold); each anti-affinity term is its own."""
    labels = node.labels
    if st.affinity is not None and not (skip and any(k in skip for k in st.affinity_keys)):
        exist = True
        for key in st.affinity_keys:
            v = labels.get(key)
            if v is None:
                return unresolvable(AFFINITY)
            if st.affinity.get(key, v) <= 0:
                exist = False
        if not exist and not (not st.affinity.counts and st.self_affine):
            return unresolvable(AFFINITY)
    for counter in st.anti:
        key = counter.keys[0]
        if key in skip:
            continue
        v = labels.get(key)
        if v is not None and counter.get(key, v) > 0:
            return unschedulable(ANTI_AFFINITY)
    for key, values in st.forbidden.items():
        if key in skip:
            continue
        v = labels.get(key)
        if v is not None and v in values:
            return unschedulable(EXISTING_ANTI_AFFINITY)
    return None


def anti_affinity_stays(st: State, gone: Sequence[Pod], node: Node) -> bool:
    """With `gone` taken off `node`, does the Filter still fail there on the pod's own required
    anti-affinity (a matching pod left in the node's domain of a term) while its required
    affinity part still passes (none of `gone` counted by it)? Preemption's dry run on a node
    that failed with ANTI_AFFINITY then fails with it again, so it can be skipped."""
    name = node.name
    if st.affinity is not None and any(st.affinity.counts_pod(p, name) for p in gone):
        return False
    labels = node.labels
    for counter in st.anti:
        key = counter.keys[0]
        v = labels.get(key)
        if v is None:
            continue
        left = counter.get(key, v) - sum(1 for p in gone if counter.counts_pod(p, name))
        if left > 0:
            return True
    return False
