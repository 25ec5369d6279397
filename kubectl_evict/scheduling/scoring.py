"""Score: kube-scheduler's default score plugins (v1.30-v1.37), normalised, weighted and summed
(`pkg/scheduler/framework/runtime/framework.go` RunScorePlugins, `schedule_one.go` selectHost).
NodeResourcesBalancedAllocation scores the balance with the pod up to v1.35 and the change in
balance from v1.36 (#135573, feature BalancedAllocationDelta). DynamicResources' score (v1.35+)
is neutral for pods without claims and is left out.

Weights (`apis/config/v1/default_plugins.go`): TaintToleration 3, NodeAffinity 2,
NodeResourcesFit 1 (LeastAllocated), PodTopologySpread 2, InterPodAffinity 2,
NodeResourcesBalancedAllocation 1, ImageLocality 1 (node images are not read: 0 everywhere,
as on nodes that report none). Upstream breaks ties at random; the plan takes the first by
name and reports every tied node.

PodTopologySpread's default constraints (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway)
select pods with the selector of the pod's ReplicaSet / StatefulSet / ReplicationController
(Services are not read: README divergences).
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

from kubectl_evict.model import LabelSelector, Pod, SpreadConstraint
from kubectl_evict.scheduling.labels import label_selector_matches
from kubectl_evict.scheduling.plugins import nodeaffinity as na_plugin
from kubectl_evict.scheduling.plugins import tainttoleration
from kubectl_evict.scheduling.plugins.interpodaffinity import (affinity_counter, existing_term_matches,
                                                               score_needs_namespaces, scoring_groups_for)
from kubectl_evict.scheduling.plugins.noderesources import (DEFAULT_RESOURCES, balanced_allocation, least_allocated,
                                                            non_zero_requests)
from kubectl_evict.scheduling.plugins.podtopologyspread import counted_items

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
MAX = 100
WEIGHTS = {"TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1, "PodTopologySpread": 2,
           "InterPodAffinity": 2, "NodeResourcesBalancedAllocation": 1, "ImageLocality": 1}
HARD_POD_AFFINITY_WEIGHT = 1


def taint_scores(placer: Any, pod: Pod, names: Sequence[str]) -> Dict[str, int]:
    counts = {n: tainttoleration.prefer_no_schedule_count(placer.class_taints(n), pod.tolerations) for n in names}
    top = max(counts.values(), default=0)
    return {n: MAX if top == 0 else MAX - MAX * c // top for n, c in counts.items()}


def _affinity_scores(placer: Any, pod: Pod, names: Sequence[str]) -> Dict[str, int]:
    if not pod.preferred_affinity:
        return {n: 0 for n in names}
    raw = {n: na_plugin.preferred_score(pod.preferred_affinity, placer.nodes[n])[0] for n in names}
    top = max(raw.values(), default=0)
    return {n: (s * MAX // top if top else 0) for n, s in raw.items()}


def resource_scores(placer: Any, pod: Pod, names: Sequence[str],
                    least_resources: Sequence[Tuple[str, int]] = DEFAULT_RESOURCES,
                    balanced_resources: Sequence[Tuple[str, int]] = DEFAULT_RESOURCES
                    ) -> Tuple[Dict[str, int], Optional[Dict[str, int]]]:
    """(LeastAllocated, BalancedAllocation or None when its PreScore skips), unweighted.
    LeastAllocated sees cpu/memory with the non-zero defaults; BalancedAllocation real requests."""
    cs = placer.cs
    pcpu, pmem = cs.pod_nonzero(pod)
    real = dict(cs.items(pod))
    least: Dict[str, int] = {}
    # PreScore skips a pod that requests none of the plugin's resources (cpu, memory): one asking
    # only ephemeral-storage or a GPU is "best effort" there (#130260, v1.33; before, such a pod
    # was scored by the node's own balance)
    skip = placer.release.has("BalancedAllocationSkipsBestEffort") and \
        not any(real.get(r, 0) > 0 for r, _ in balanced_resources)
    balanced: Optional[Dict[str, int]] = None if skip else {}
    delta = placer.release.has("BalancedAllocationDelta")
    for n in names:
        alloc = cs.alloc[n]
        ncpu, nmem = cs.node_nonzero(n)
        used = {r: alloc.get(r, 0) - cs.free[n].get(r, 0) for r in set(alloc) | set(cs.free[n])}
        with_pod = {r: used.get(r, 0) + real.get(r, 0) for r in set(used) | set(real)}
        nz = dict(with_pod, cpu=ncpu + pcpu, memory=nmem + pmem)
        least[n] = least_allocated(alloc, nz, least_resources, real)
        if balanced is not None:
            balanced[n] = balanced_allocation(alloc, with_pod, balanced_resources, real, used if delta else None)
    return least, balanced


# the controllers whose selector `helper.DefaultSelector` merges into the default constraints'
# selector (pkg/scheduler/framework/plugins/helper/spread.go; Services too, not read here)
DEFAULT_SELECTOR_KINDS = ("ReplicaSet", "StatefulSet", "ReplicationController")
# the name `Placer.unchecked` records for PodTopologySpread's Score with the default constraints
SCORE_WITHOUT_CONTROLLER = "PodTopologySpread Score"


def default_selector(placer: Any, pod: Pod) -> Optional[LabelSelector]:
    """`helper.DefaultSelector`, from the controllers the plan knows (not Services). A pod whose
    controller is of a kind the input does not hold is recorded in `placer.unchecked`: its
    selector, and so where the default constraints spread the pod, is not known."""
    snap = placer.snapshot
    if snap is None or pod.controller is None:
        return None
    owner = snap.owners_by_uid.get(pod.controller.uid)
    if owner is None and pod.controller.kind in DEFAULT_SELECTOR_KINDS and not snap.holds(pod.controller.kind):
        plugins = placer.unchecked.setdefault(pod.key, {}).setdefault(pod.controller.kind, [])
        if SCORE_WITHOUT_CONTROLLER not in plugins:
            plugins.append(SCORE_WITHOUT_CONTROLLER)
    if owner is None or owner.kind not in DEFAULT_SELECTOR_KINDS:
        return None
    sel = owner.selector
    if sel is None or (not sel.match_labels and not sel.match_expressions):
        return None
    return sel


def spread_scores(placer: Any, pod: Pod, names: Sequence[str]) -> Dict[str, int]:
    """PodTopologySpread's Score (`scoring.go`): per constraint `count * ln(domains + 2) +
    maxSkew - 1`, summed and rounded, then `100 * (max + min - score) / max`."""
    cs = placer.cs
    if pod.spread_constraints:
        cons = tuple(c for c in pod.spread_constraints if c.when_unsatisfiable == "ScheduleAnyway")
        system = False
    else:
        sel = default_selector(placer, pod)
        cons = (SpreadConstraint(3, HOSTNAME, "ScheduleAnyway", sel), SpreadConstraint(5, ZONE, "ScheduleAnyway", sel)) \
            if sel is not None else ()
        system = True
    if not cons:
        return {n: 0 for n in names}
    items = counted_items(cs, pod, cons, require_all_keys=not system)
    ignored = set()
    if not system:
        ignored = {n for n in names if any(c.topology_key not in placer.nodes[n].labels for c in cons)}
    sizes = []
    for c in cons:
        if c.topology_key == HOSTNAME:
            sizes.append(len(names) - len(ignored))
        else:
            # a candidate without the key (only with the system defaults: otherwise it is
            # ignored) is the domain "" here (`initPreScoreState`), though it scores no count
            sizes.append(len({placer.nodes[n].labels.get(c.topology_key, "") for n in names if n not in ignored}))
    raw: Dict[str, int] = {}
    for n in names:
        if n in ignored:
            continue
        score = 0.0
        labels = placer.nodes[n].labels
        for size, item in zip(sizes, items):
            key = item.constraint.topology_key
            if key not in labels:
                continue
            score += item.counter.get(key, labels[key]) * math.log(size + 2) + (item.constraint.max_skew - 1)
        raw[n] = int(round(score))
    lo = min(raw.values(), default=0)
    hi = max(raw.values(), default=0)
    out = {}
    for n in names:
        if n in ignored:
            out[n] = 0
        elif hi == 0:
            out[n] = MAX
        else:
            out[n] = MAX * (hi + lo - raw[n]) // hi
    return out


# the name `Placer.unchecked` records for InterPodAffinity's Score (its Filter is "InterPodAffinity")
SCORE_WITHOUT_NAMESPACES = "InterPodAffinity Score"


def _interpod_scores(placer: Any, pod: Pod, names: Sequence[str]) -> Dict[str, int]:
    """InterPodAffinity's Score (`scoring.go`): weights summed per topology domain, min-max normalised."""
    cs = placer.cs
    if score_needs_namespaces(cs, pod):   # said per pod, as the Filter plugins' unknown kinds are
        plugins = placer.unchecked.setdefault(pod.key, {}).setdefault("Namespace", [])
        if SCORE_WITHOUT_NAMESPACES not in plugins:
            plugins.append(SCORE_WITHOUT_NAMESPACES)
    topo: Dict[Tuple[str, str], int] = {}

    def add(counter: Any, w: int) -> None:
        for kv, n in counter.counts.items():
            topo[kv] = topo.get(kv, 0) + w * n
    for wt in pod.affinity_preferred:
        add(affinity_counter(cs, pod, (wt.term,)), wt.weight)
    for wt in pod.anti_affinity_preferred:
        add(affinity_counter(cs, pod, (wt.term,)), -wt.weight)
    for groups in scoring_groups_for(cs, pod):     # only those that can match the pod's namespace
        for (ns, kind, term, weight), counter in groups:
            if counter.counts and existing_term_matches(cs, term, ns, pod):
                add(counter, -weight if kind == "anti" else weight * (HARD_POD_AFFINITY_WEIGHT if kind == "hard" else 1))
    if not topo:
        return {n: 0 for n in names}
    raw = {}
    for n in names:
        labels = placer.nodes[n].labels
        raw[n] = sum(w for (k, v), w in topo.items() if labels.get(k) == v)
    lo, hi = min(raw.values()), max(raw.values())
    # float64(MaxNodeScore) * (float64(score-min) / float64(max-min)), in that order: 100 * 29/100
    # is 28 there (0.29 is just below 29/100 as a float), not 29
    return {n: int(MAX * ((s - lo) / (hi - lo))) if hi > lo else 0 for n, s in raw.items()}


def scores(placer: Any, pod: Pod, names: Sequence[str]) -> Dict[str, Dict[str, int]]:
    """Weighted score per plugin per node (as the real scheduler's `plugin_scores`)."""
    least, balanced = resource_scores(placer, pod, names)
    if balanced is None:
        balanced = {n: 0 for n in names}
    parts = {"TaintToleration": taint_scores(placer, pod, names),
             "NodeAffinity": _affinity_scores(placer, pod, names),
             "NodeResourcesFit": least, "NodeResourcesBalancedAllocation": balanced,
             "PodTopologySpread": spread_scores(placer, pod, names),
             "InterPodAffinity": _interpod_scores(placer, pod, names)}
    return {n: {p: WEIGHTS[p] * s[n] for p, s in parts.items()} for n in names}


def pick(placer: Any, pod: Pod, feasible: Sequence[str]) -> Tuple[Optional[str], Tuple[str, ...]]:
    """(chosen node, nodes tied at the top score when more than one). One feasible node is
    chosen without scoring, as upstream does."""
    if len(feasible) == 1:
        return feasible[0], ()
    table = scores(placer, pod, feasible)
    totals = {n: sum(s.values()) for n, s in table.items()}
    top = max(totals.values())
    tied = tuple(sorted(n for n, t in totals.items() if t == top))
    return tied[0], (tied if len(tied) > 1 else ())
