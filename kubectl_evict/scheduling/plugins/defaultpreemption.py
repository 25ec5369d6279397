"""DefaultPreemption, the PostFilter (`pkg/scheduler/framework/plugins/defaultpreemption/
default_preemption.go`, `pkg/scheduler/framework/preemption/preemption.go`,
`pkg/scheduler/util/utils.go`).

For a pod that fits nowhere: only nodes whose Filter status was Unschedulable are tried. On
each, every lower-priority pod is removed and the Filters run again; if the pod then fits,
victims are chosen by reprieving pods in importance order (priority, then earlier start),
PDB-violating ones first. The node is picked by fewest PDB violations, then the lowest top
victim priority, the smallest priority sum, the fewest victims, the latest start among the top
victims, then name (upstream: map order). PDBs only rank nodes: preemption deletes pods
directly, it never asks the Eviction API. The failed PostFilter message is a FitError over all
nodes prefixed `preemption: `.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from kubectl_evict.model import Pod
from kubectl_evict.scheduling.framework import (NEVER, NO_VICTIMS, NOT_HELPFUL, UNSCHEDULABLE, Status,
                                                claim_names, host_ports, preemption_message)
from kubectl_evict.scheduling.labels import label_selector_matches
from kubectl_evict.scheduling.plugins.noderesources import insufficient_freed
from kubectl_evict.scheduling.plugins.interpodaffinity import ANTI_AFFINITY, InterPodAffinity, anti_affinity_stays
from kubectl_evict.scheduling.plugins.podtopologyspread import SKEW, PodTopologySpread, counts_any

MIN_CANDIDATE_NODES_PERCENTAGE = 10
MIN_CANDIDATE_NODES_ABSOLUTE = 100
MAX_DRY_RUNS = 300       # per preemption attempt; further nodes keep their Filter reasons
_FAR_FUTURE = float("inf")


class Preemption(NamedTuple):
    node: Optional[str]
    victims: Tuple[Tuple[Pod, str], ...]
    message: str                 # the failed PostFilter message, "" when a node was found
    pdb_violations: int = 0


class Candidate(NamedTuple):
    node: str
    victims: Tuple[Pod, ...]     # in importance order
    pdb_violations: int


def importance_key(p: Pod) -> Tuple[int, float]:
    """`MoreImportantPod`: higher priority first, then the earlier start (none counts as now)."""
    return (-p.priority, p.start_time if p.start_time is not None else _FAR_FUTURE)


def split_by_pdb(snapshot: Any, pods: Sequence[Pod],
                 pdbs_in: Optional[Callable[[str], Sequence[Any]]] = None) -> Tuple[List[Pod], List[Pod]]:
    """`filterPodsWithPDBViolation`: (violating, non-violating), each keeping the input order.

    The PDBs are read as the scheduler's lister holds them at that moment (`pdbs_in`, by
    namespace: a plan that has spent budgets or lost healthy pods says what their status is
    now); without it, as the snapshot holds them."""
    allowed: Dict[Tuple[str, str], int] = {}
    violating, fine = [], []
    if pdbs_in is None and snapshot is not None:
        pdbs_in = lambda ns: snapshot.pdbs_by_namespace.get(ns, ())    # noqa: E731
    by_ns: Dict[str, Sequence[Any]] = {}
    for p in pods:
        bad = False
        if pdbs_in is not None and p.labels:
            if p.namespace not in by_ns:
                by_ns[p.namespace] = pdbs_in(p.namespace)
            for pdb in by_ns[p.namespace]:
                sel = pdb.selector
                if sel is None or (not sel.match_labels and not sel.match_expressions):
                    continue
                if not label_selector_matches(sel, p.labels) or p.name in pdb.disrupted_pods:
                    continue
                key = (pdb.namespace, pdb.name)
                allowed[key] = allowed.get(key, pdb.disruptions_allowed) - 1
                if allowed[key] < 0:
                    bad = True
        (violating if bad else fine).append(p)
    return violating, fine


def select_victims(placer: Any, pod: Pod, name: str, lower: List[Pod]) -> Tuple[Optional[Candidate], Optional[Status]]:
    """`SelectVictimsOnNode` as a dry run: the state is restored before returning."""
    cs = placer.cs
    lower = sorted(lower, key=importance_key)
    out = {id(p): p for p in lower}           # removed from the node right now
    for p in lower:
        cs.remove(p, name)
    items = cs.items(pod)
    victims: List[Pod] = []
    violations = 0
    try:
        cyc = placer.cycle(pod)
        if cyc.rejected is not None:
            return None, cyc.rejected
        if not placer._fits(pod, items, name, cyc):
            return None, placer.node_status(pod, cyc, name) or Status(UNSCHEDULABLE, ())
        violating, fine = split_by_pdb(placer.snapshot, lower, placer.pdb_view)
        # Reprieving a pod changes only this node. The cycle's PreFilter state depends on it only
        # through spread and inter-pod counts (the incoming pod's terms, or a reprieved pod's
        # required anti-affinity) and claims in use (ReadWriteOncePod): otherwise the filters read
        # the node's state as it is, and the cycle is computed once (upstream updates it with
        # each plugin's AddPod).
        recompute = cyc.domains or any(p.anti_affinity_required or claim_names(p) for p in lower)
        for group, is_violating in ((violating, True), (fine, False)):
            for p in group:
                cs.add(p, name)
                del out[id(p)]
                if recompute:
                    cyc = placer.cycle(pod)
                if cyc.rejected is not None or not placer._fits(pod, items, name, cyc):
                    cs.remove(p, name)
                    out[id(p)] = p
                    victims.append(p)
                    if is_violating:
                        violations += 1
        victims.sort(key=importance_key)
        return Candidate(name, tuple(victims), violations), None
    finally:
        for p in out.values():                # a dry run: put back what is still out
            cs.add(p, name)


def pick_node(candidates: Sequence[Candidate]) -> Candidate:
    """`pickOneNodeForPreemption`."""
    for c in candidates:
        if not c.victims:
            return c

    def top_start(c: Candidate) -> float:
        top = c.victims[0].priority
        starts = [v.start_time if v.start_time is not None else _FAR_FUTURE for v in c.victims if v.priority == top]
        return min(starts)
    return min(candidates, key=lambda c: (c.pdb_violations, c.victims[0].priority,
                                          sum(v.priority + 2 ** 31 for v in c.victims), len(c.victims),
                                          -top_start(c), c.node))


def preempt(placer: Any, pod: Pod, statuses: Dict[str, Status]) -> Preemption:
    """DefaultPreemption's PostFilter for `pod` after every node failed Filter with `statuses`
    (nodes absent from `statuses` failed a static, unresolvable filter)."""
    total = placer.present()        # the nodes that exist (FitError's N)
    if pod.preemption_policy == "Never":
        return Preemption(None, (), "preemption: " + NEVER)
    why: Counter = Counter()
    found: List[Candidate] = []
    # Upstream collects max(100, 10% of the nodes) candidates, starting at a random node; which
    # ones it finds is chance. The plan takes the first 100 by name, bounding the dry runs.
    limit = min(total, MIN_CANDIDATE_NODES_ABSOLUTE)
    dry_runs = 0
    no_ports = not host_ports(pod, placer.cs.sidecar_ports)
    active = placer.cycle(pod).active
    spread = next((data[0] for plugin, data in active if plugin.name == PodTopologySpread.name), None)
    ipa = next((data for plugin, data in active if plugin.name == InterPodAffinity.name), None)
    for name in placer.names:
        if name in placer.absent:
            continue
        st = statuses.get(name)
        if st is None or st.code != UNSCHEDULABLE:
            why[NOT_HELPFUL] += 1
            continue
        if len(found) >= limit:
            continue
        if dry_runs >= MAX_DRY_RUNS:
            for msg in st.reasons:
                why[msg] += 1
            continue
        low = placer.cs.min_priority(name)
        if low is None or low >= pod.priority:
            why[NO_VICTIMS] += 1
            continue
        lower, freed = placer.cs.lower_priority(name, pod.priority)
        if no_ports and placer._check_resources:
            # Without host ports, NodePorts passes once the victims are gone and NodeResourcesFit
            # is the next filter: when the room is still short, its reasons are the node's.
            short = insufficient_freed(placer.cs, pod, name, len(lower), freed)
            if short:
                for msg in short:
                    why[msg] += 1
                continue
        dry_runs += 1
        if spread is not None and st.reasons == (SKEW,) and not counts_any(spread, lower, name):
            # The filters before PodTopologySpread passed and still pass with fewer pods; no
            # victim is counted by the constraints, so their verdict is the same: the dry run
            # would fail with this very reason.
            why[SKEW] += 1
            continue
        if ipa is not None and st.reasons == (ANTI_AFFINITY,) and \
                anti_affinity_stays(ipa, lower, placer.nodes[name]):
            # Every filter before InterPodAffinity passed, and passes with fewer pods (fewer
            # requests, ports, volumes; the node's spread domain only loses pods); the pod's
            # affinity terms count none of the victims, and a pod its anti-affinity matches is
            # left in the node's domain: the dry run would fail with this very reason.
            why[ANTI_AFFINITY] += 1
            continue
        cand, fail = select_victims(placer, pod, name, lower)
        if cand is None:
            for msg in (fail.reasons if fail is not None else ()):
                why[msg] += 1
            continue
        found.append(cand)
    if not found:
        return Preemption(None, (), preemption_message(total, why))
    best = pick_node(found)
    return Preemption(best.node, tuple((v, best.node) for v in best.victims), "", best.pdb_violations)
