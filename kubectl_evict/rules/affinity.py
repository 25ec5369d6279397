"""`affinity`: what happens to running pods when nodes are relabeled or retainted.

Models, for the nodes an edit changes (or, with no edits, for every node):
- the taint-eviction controller (kube-controller-manager v1.30-v1.37, unchanged, `pkg/controller/tainteviction`):
  a new NoExecute taint deletes non-tolerating pods at once and tolerating ones after the
  smallest used `tolerationSeconds`; a plain DELETE, PDBs not consulted;
- the DaemonSet controller (`pkg/controller/daemon`): a DaemonSet pod whose node no longer
  matches the DaemonSet's node selector/affinity is deleted;
- node affinity (`component-helpers/scheduling/corev1/nodeaffinity`): `IgnoredDuringExecution`
  violators keep running (listed as skipped) unless `--enforce-ignored-during-execution`, which
  evicts them as the descheduler's RemovePodsViolatingNodeAffinity does (only when another node
  fits);
- `requiredDuringSchedulingRequiredDuringExecution` from the original node-affinity design
  (also the pod annotation `evictplan.io/node-affinity: RequiredDuringExecution`, KEP-4328's
  intent): violators are evicted at once through the Eviction API.
"""

from __future__ import annotations

from typing import Optional

from pyrsistent import PClass, field

from kubectl_evict.model import Node, Pod, Snapshot
from kubectl_evict.workloads import attach
from kubectl_evict.plan import DAEMONSET_CONTROLLER, TAINT_EVICTION, USER, Plan, PlanBuilder
from kubectl_evict.scheduling.disruption import effective_budget, pdbs_for_pod
from kubectl_evict.rules.whatif import apply_edits
from kubectl_evict.scheduling.nodeaffinity import node_matches_pod, node_selector_matches
from kubectl_evict.rules.replacements import NOTHING_RECREATES, recreation, replace_removed
from kubectl_evict.rules.scheduling import place
from kubectl_evict.scheduling.placement import Placer
from kubectl_evict.scheduling.tolerations import (default_toleration_seconds, no_execute_decision, taint_eviction_schedule,
                                                  taints_text)
from kubectl_evict.timeutil import format_offset

RULE = "affinity"


class AffinitySettings(PClass):
    edits = field(type=tuple, initial=())            # NodeEdit values, in command-line order
    enforce_ignored_during_execution = field(type=bool, initial=False)


class _Placing:
    """kube-scheduler's view of the cluster after the edits, built when the first pod needs a
    node: most edits move nothing (the answer to "is this relabel safe?"), and then indexing
    every node and pod (0.7 s at 150,000 pods) would be wasted. Built from the same snapshot
    either way, so the plan does not depend on when."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self._placer: Optional[Placer] = None

    def placer(self) -> Placer:
        if self._placer is None:
            self._placer = Placer(self.snapshot.nodes.values(), self.snapshot.pods_by_node, snapshot=self.snapshot,
                                  preempt=True)
        return self._placer


def _scheduled_deletion(pod: Pod, node: Node, now: float, before: Optional[Node] = None) -> Optional[float]:
    """When the taint-eviction controller deletes `pod` on `node` (seconds after now), or None:
    the controller's own replay (`taint_eviction_schedule`) over the pod's tolerations as
    admitted (DefaultTolerationSeconds), the taints of `before` (the node as the snapshot has it)
    first, so a deletion scheduled for them keeps its earlier time when the edits add taints."""
    history = [(0.0, before.taints)] if before is not None else []
    history.append((0.0, node.taints))
    kind, at, _ = taint_eviction_schedule(default_toleration_seconds(pod.tolerations), pod.tolerations, history, now)
    return at if kind == "delete" else None


def plan_affinity(snapshot: Snapshot, settings: AffinitySettings, now: float) -> Plan:
    """Plan the consequences of the node edits in `settings` for the running pods."""
    b = PlanBuilder("affinity", now)
    before = snapshot
    after, changed = apply_edits(snapshot, settings.edits, now)
    nodes = changed if settings.edits else sorted(after.nodes)
    # The edits themselves are the operator's part of the plan: `apply` makes them, and only them.
    current = {}
    for e in settings.edits:
        if e.op in ("taint", "untaint"):
            # what the node has of this key and effect (two edits of one never meet: they contradict)
            kw = {"value": e.value} if e.op == "taint" else {}
            node = before.node(e.node)
            had = node.taint(e.key, e.effect)
            b.action(e.op, by=USER, node=e.node, key=e.key, effect=e.effect, at=0, rule=RULE, uid=node.uid,
                     previous=had.value if had is not None else None, previous_seen=True,
                     reason="%s requested with --%s%s" % (
                         "taint" if e.op == "taint" else "taint removal", e.op,
                         " (replaces %s)" % (had,) if e.op == "taint" and had is not None and had.value != e.value
                         else ""), **kw)
        else:
            labels = current.setdefault(e.node, before.node(e.node).labels)
            previous = labels.get(e.key)
            b.action(e.op, by=USER, node=e.node, key=e.key, value=e.value if e.op == "label" else "", at=0,
                     rule=RULE, previous=previous, uid=before.node(e.node).uid,
                     reason="label change requested with --%s (now %s)" % (
                         e.op, "%s=%s" % (e.key, previous) if previous is not None else "not set"))
            current[e.node] = labels.set(e.key, e.value) if e.op == "label" else labels.discard(e.key)
    decisions = []
    for name in nodes:
        old, new = before.node(name), after.node(name)
        for pod in after.pods_on(name):
            if pod.is_terminal:
                continue
            decisions.append((pod, old, new))
    placing = _Placing(after)
    for pod, old, new in decisions:
        _decide(b, placing, pod, old, new, now, settings)
    _warn_bypassed_budgets(b, before, now)
    return attach(snapshot, b.build())


def _warn_bypassed_budgets(b: PlanBuilder, snapshot: Snapshot, now: float) -> None:
    """Taint-based and DaemonSet deletions are plain DELETEs: say where they take more than a
    PodDisruptionBudget allows (as `drain --disable-eviction` does)."""
    deleted: dict = {}
    for a in b.actions:
        if a.type == "delete":
            pod = snapshot.pods_by_key.get((a.namespace, a.pod))
            if pod is not None:
                for pdb in pdbs_for_pod(snapshot, pod):
                    deleted.setdefault(pdb.ref, (pdb, []))[1].append(pod)
    for ref in sorted(deleted):
        pdb, pods = deleted[ref]
        healthy = [p for p in pods if p.ready and p.deletion_timestamp is None]
        allowed = effective_budget(snapshot, pdb, now).disruptions_allowed
        if len(healthy) > allowed:
            b.warn("PDB %s allows %d disruption%s, but the taint-eviction controller deletes %d of its healthy pods "
                   "(plain DELETE, the budget is not consulted): %s" % (
                       ref, allowed, "" if allowed == 1 else "s", len(healthy), ", ".join(p.ref for p in healthy)))


def _decide(b: PlanBuilder, placing: _Placing, pod: Pod, old: Node, new: Node, now: float,
            settings: AffinitySettings) -> None:
    # 1. NoExecute taints: the taint-eviction controller.
    # `old is new`: a node no edit touches (every node, with no edits) is asked once.
    will = _scheduled_deletion(pod, new, now, None if old is new else old)
    was = will if old is new else _scheduled_deletion(pod, old, now) if old is not None else None
    if will is not None and (was is None or will < was):
        d = no_execute_decision(new.taints, default_toleration_seconds(pod.tolerations))
        if d.action == "delete-now" and d.untolerated:
            why = "does not tolerate NoExecute taint %s" % taints_text(d.untolerated)
        elif will == 0:
            why = "tolerates NoExecute taints for 0s"
        else:
            why = "tolerates NoExecute taints for %ds" % d.seconds
        _delete(b, placing, pod, new.name, will, "taint-eviction controller deletes it: %s (plain DELETE, PDBs not consulted)" % why,
                TAINT_EVICTION)
        return
    if was is None and will is None and any(t.effect == "NoExecute" for t in new.taints) and \
            no_execute_decision(new.taints, default_toleration_seconds(pod.tolerations)).action == "forever" and \
            any(t.effect == "NoExecute" and t.time_added == now for t in new.taints):
        b.skip(pod, "tolerates-forever", "tolerates NoExecute taint %s forever" % taints_text(t for t in new.taints if t.effect == "NoExecute"))
    # 2. Node affinity against the new labels.
    if pod.is_mirror:
        return
    if pod.controller_kind == "DaemonSet":
        # The DaemonSet's own selector is the pod's (the controller pins pods with matchFields).
        if old is not new and not node_matches_pod(pod, new).match and node_matches_pod(pod, old).match:
            _delete(b, placing, pod, new.name, 0, "DaemonSet controller deletes it: node no longer matches the DaemonSet's "
                    "node selector/affinity", DAEMONSET_CONTROLLER)
        return
    rde = pod.required_during_execution
    if rde is not None and not node_selector_matches(rde, new.labels, new.name).match:
        _evict(b, placing, pod, new.name, "node no longer matches requiredDuringSchedulingRequiredDuringExecution node affinity")
        return
    res = node_matches_pod(pod, new)
    if res.match:
        return
    already = old is new or not node_matches_pod(pod, old).match
    what = "the pod's nodeSelector/required node affinity (IgnoredDuringExecution)"
    state = "does not match" if already else "no longer matches"
    if settings.enforce_ignored_during_execution:
        _evict(b, placing, pod, new.name, "node %s %s; evicted as the descheduler's RemovePodsViolatingNodeAffinity would" % (state, what),
               need_target=True)
    else:
        b.skip(pod, "stays-running", "node %s %s: Kubernetes leaves it running" % (state, what))


def _delete(b: PlanBuilder, placing: _Placing, pod: Pod, node: str, at: float, reason: str, by: str) -> None:
    if pod.controller_kind == "DaemonSet":
        # The DaemonSet controller only creates a pod where the node matches: no replacement here.
        b.action("delete", by=by, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=at,
                 grace_period_seconds=None, rule=RULE, reason=reason)
        return
    placed = replace_removed(b, placing.placer() if recreation(pod).elsewhere else None, pod, at, RULE,
                             "deleted at %s" % format_offset(at), node=node)
    if placed is not None:
        b.action("delete", by=by, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=at,
                 grace_period_seconds=None, target=placed.node, candidates=placed.candidates, rule=RULE,
                 reason=reason + ("" if placed.node else "; its replacement fits no node"))
    else:
        b.action("delete", by=by, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=at,
                 grace_period_seconds=None, rule=RULE, reason=reason + "; " + NOTHING_RECREATES)


def _evict(b: PlanBuilder, placing: _Placing, pod: Pod, node: str, reason: str, need_target: bool = False) -> None:
    if not placing.snapshot.holds("PodDisruptionBudget"):
        b.incomplete_for("PodDisruptionBudget", "budgets not checked (the Eviction API refuses an eviction a "
                         "PodDisruptionBudget does not allow)", pod.ref)
    if recreation(pod).elsewhere:
        placed = place(b, placing.placer(), pod, 0, RULE)
        if placed.node is None:
            if need_target:
                b.block(pod, "nowhere-to-move", reason.split(";")[0] + "; not evicted: no other node fits (%s)"
                        % placed.reason)
                return
            b.shortfall(pod, "no-node-fits", "evicted, but its replacement fits no node: %s" % placed.reason)
        b.action("evict", by=USER, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=0,
                 grace_period_seconds=None, target=placed.node, candidates=placed.candidates, rule=RULE,
                 reason=reason)
    else:
        b.action("evict", by=USER, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=0,
                 grace_period_seconds=None, target=None, rule=RULE, reason=reason + "; " + NOTHING_RECREATES)
