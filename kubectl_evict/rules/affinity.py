"""`affinity`: what happens to running pods when nodes are relabeled or retainted.

Models, for the nodes an edit changes (or, with no edits, for every node):
- the taint-eviction controller (kube-controller-manager v1.30-v1.37, unchanged, `pkg/controller/tainteviction`):
  a new NoExecute taint deletes non-tolerating pods at once and tolerating ones after the
  smallest used `tolerationSeconds`; a plain DELETE, PDBs not consulted;
- the DaemonSet controller (`pkg/controller/daemon`): a DaemonSet pod whose node no longer
  matches the DaemonSet's node selector/affinity is deleted;
- node affinity (`component-helpers/scheduling/corev1/nodeaffinity`): `IgnoredDuringExecution`
  violators keep running (listed as skipped) unless `--enforce-ignored-during-execution`, which
  evicts them as the descheduler's RemovePodsViolatingNodeAffinity does (only pods with required
  node affinity, only when another node fits without preemption, and not the pods its
  DefaultEvictor protects at its defaults: bare, local-storage, terminating, system-critical);
- `requiredDuringSchedulingRequiredDuringExecution` from the original node-affinity design
  (also the pod annotation `evictplan.io/node-affinity: RequiredDuringExecution`, KEP-4328's
  intent): violators are evicted at once through the Eviction API.
Both evictions go through the Eviction API (`pkg/registry/core/pod/storage/eviction.go`), so PDBs
apply as they do for drain (`scheduling/disruption.py`): a budget refuses (429) what it does not
allow; the pod goes in a later wave once an earlier eviction's replacement is Ready, or is blocked.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from pyrsistent import PClass, field

from kubectl_evict.model import SYSTEM_CRITICAL_PRIORITY, Node, Pod, Snapshot
from kubectl_evict.workloads import DEFAULT_STARTUP, attach
from kubectl_evict.plan import DAEMONSET_CONTROLLER, TAINT_EVICTION, USER, Plan, PlanBuilder, counted_refs
from kubectl_evict.scheduling.disruption import (VIOLATES_BUDGET, BudgetState, Eviction, effective_budget,
                                                 ledger_decision, pdbs_for_pod, unknown_budget_text)
from kubectl_evict.rules.whatif import apply_edits
from kubectl_evict.scheduling.nodeaffinity import node_matches_pod, node_selector_matches
from kubectl_evict.rules.replacements import (OrderedWait, chain_ordered_ready, controller_owner,
                                              no_replacement, ordered_ready_wait, recreation, replace_removed)
from kubectl_evict.rules.scheduling import place
from kubectl_evict.scheduling.statefulset import ordinal
from kubectl_evict.scheduling.placement import Placer
from kubectl_evict.scheduling.tolerations import (default_toleration_seconds, has_no_execute, no_execute_decision,
                                                  taint_eviction_schedule, taints_text)
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


def _scheduled_deletion(pod: Pod, old: Node, new: Node, now: float) -> Tuple[Optional[float], str]:
    """When the taint-eviction controller deletes `pod` (seconds after now) once `old`'s taints
    become `new`'s, and why; (None, "") when it does not. The controller's own replay over the
    pod's tolerations as admitted (DefaultTolerationSeconds): a deletion already scheduled for
    `old`'s NoExecute taints keeps its time whatever the new taints' tolerationSeconds
    (`processPodOnNode`: `startTime + min < now + min`); only a taint the pod does not tolerate
    deletes it at once."""
    if not has_no_execute(old.taints) and (old is new or not has_no_execute(new.taints)):
        return None, ""   # the controller acts on NoExecute taints only (most nodes have none)
    history = [(0.0, old.taints)] if old is new else [(0.0, old.taints), (0.0, new.taints)]
    kind, at, why = taint_eviction_schedule(default_toleration_seconds(pod.tolerations), pod.tolerations,
                                            history, now)
    return (at, why) if kind == "delete" else (None, "")


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
    evictions = _Evictions(b, placing, now)
    for pod, old, new in decisions:
        _decide(b, placing, evictions, pod, old, new, now, settings)
    evictions.finish()
    # an OrderedReady StatefulSet creates the ordinals it lost one by one, each once the lower ones are Ready
    chain_ordered_ready(b, after, [i for i, a in enumerate(b.actions) if a.type in ("evict", "delete") and a.target],
                        DEFAULT_STARTUP)
    _warn_bypassed_budgets(b, before, now)
    if not snapshot.holds("Pod"):
        _pods_gap(b, settings, sorted(after.nodes))
    return attach(snapshot, b.build())


def _pods_gap(b: PlanBuilder, settings: AffinitySettings, every: List[str]) -> None:
    """Without Pods, the verdict depends on them only on the nodes where an edit can make a
    running pod go: a label edit (node affinity, a DaemonSet's node selector) or a new NoExecute
    taint (the taint-eviction controller); with no edit, every node is checked as it is. A
    NoSchedule or PreferNoSchedule taint, and a taint removal, move no running pod: the
    taint-eviction controller acts on NoExecute taints only (`processPodOnNode`) and a DaemonSet
    pod keeps running unless a NoExecute taint says otherwise (`NodeShouldRunDaemonPod`:
    shouldContinueRunning)."""
    nodes = every if not settings.edits else sorted({
        e.node for e in settings.edits if e.op in ("label", "unlabel") or (e.op == "taint" and e.effect == "NoExecute")})
    if nodes:
        b.incomplete("Pod", "which pods run on %s, and so what the %s, is unknown" % (
            counted_refs("node", nodes), "edits evict or delete" if settings.edits else "plan evicts or deletes"))


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
        budget = effective_budget(snapshot, pdb, now)
        if not budget.unknown and len(healthy) > budget.disruptions_allowed:
            allowed = budget.disruptions_allowed
            b.warn("PDB %s allows %d disruption%s, but the taint-eviction controller deletes %d of its healthy pods "
                   "(plain DELETE, the budget is not consulted): %s" % (
                       ref, allowed, "" if allowed == 1 else "s", len(healthy), ", ".join(p.ref for p in healthy)))


def _decide(b: PlanBuilder, placing: _Placing, evictions: _Evictions, pod: Pod, old: Node, new: Node, now: float,
            settings: AffinitySettings) -> None:
    # 1. NoExecute taints: the taint-eviction controller.
    # `old is new`: a node no edit touches (every node, with no edits) is asked once.
    will, why = _scheduled_deletion(pod, old, new, now)
    was = will if old is new else _scheduled_deletion(pod, old, old, now)[0]
    taint_deletion: Optional[Tuple[float, str]] = None
    if will is not None and (was is None or will < was):
        taint_deletion = (will, "taint-eviction controller deletes it: %s (plain DELETE, PDBs not consulted)" % why)
        if will <= 0 or pod.is_mirror or pod.controller_kind == "DaemonSet" or not _evicted_for_affinity(pod, new, settings):
            _delete(b, placing, pod, new.name, will, taint_deletion[1], TAINT_EVICTION)
            return
        # the eviction below comes first; the controller's deletion is what happens if it cannot
    if taint_deletion is None and was is None and will is None and has_no_execute(new.taints) and \
            no_execute_decision(new.taints, default_toleration_seconds(pod.tolerations)).action == "forever" and \
            any(t.effect == "NoExecute" and t.time_added == now for t in new.taints):
        b.skip(pod, "tolerates-forever", "tolerates NoExecute taint %s forever" % taints_text(t for t in new.taints if t.effect == "NoExecute"))
    # 2. Node affinity against the new labels.
    if pod.is_mirror:
        return
    if pod.controller_kind == "DaemonSet":
        # NodeShouldRunDaemonPod: shouldContinueRunning is false once the node does not match the
        # template, and podsShouldBeOnNode deletes the pod then, however it came to be there (an
        # edit, or a template changed before the snapshot: the no-edit check of every node).
        # Without edits only a DaemonSet in the input is asked: its pods carry only their node's
        # name, and a plan of no edits does not claim what it cannot check.
        if (old.labels != new.labels if old is not new else _owner_in_input(placing.snapshot, pod)) \
                and not _daemon_fits(b, placing.snapshot, pod, new):
            state = "no longer matches" if old is not new and _daemon_fits(b, placing.snapshot, pod, old) \
                else "does not match"
            _delete(b, placing, pod, new.name, 0, "DaemonSet controller deletes it: node %s the DaemonSet's "
                    "node selector/affinity" % state, DAEMONSET_CONTROLLER)
        return
    rde = pod.required_during_execution
    if rde is not None and not node_selector_matches(rde, new.labels, new.name).match:
        evictions.add(pod, new.name, "node no longer matches requiredDuringSchedulingRequiredDuringExecution node affinity",
                      fallback=taint_deletion)
        return
    res = node_matches_pod(pod, new)
    if res.match:
        return
    already = old is new or not node_matches_pod(pod, old).match
    what = "the pod's nodeSelector/required node affinity (IgnoredDuringExecution)"
    state = "does not match" if already else "no longer matches"
    protected = _descheduler_protection(pod) if settings.enforce_ignored_during_execution else ""
    if settings.enforce_ignored_during_execution and pod.required_affinity is None:
        # RemovePodsViolatingNodeAffinity's filter starts with PodHasNodeAffinity(pod,
        # requiredDuringSchedulingIgnoredDuringExecution): a pod held only by its nodeSelector
        # is never its candidate (descheduler node_affinity.go, utils/predicates.go).
        b.skip(pod, "stays-running", "node %s the pod's nodeSelector (IgnoredDuringExecution): the descheduler's "
               "RemovePodsViolatingNodeAffinity evicts only pods with required node affinity, so it keeps running"
               % state)
    elif protected:
        b.skip(pod, "stays-running", "node %s %s: the descheduler's DefaultEvictor leaves it (%s)" % (state, what, protected))
    elif settings.enforce_ignored_during_execution:
        evictions.add(pod, new.name, "node %s %s; evicted as the descheduler's RemovePodsViolatingNodeAffinity would"
                      % (state, what), need_target=True, fallback=taint_deletion)
    else:
        b.skip(pod, "stays-running", "node %s %s: Kubernetes leaves it running" % (state, what))


def _evicted_for_affinity(pod: Pod, node: Node, settings: AffinitySettings) -> bool:
    """Whether the plan evicts `pod` at once for its node affinity on `node` (RequiredDuringExecution,
    or `--enforce-ignored-during-execution` for a pod the descheduler would take), before the
    taint-eviction controller's later deletion."""
    rde = pod.required_during_execution
    if rde is not None:
        return not node_selector_matches(rde, node.labels, node.name).match
    return settings.enforce_ignored_during_execution and pod.required_affinity is not None and \
        not node_matches_pod(pod, node).match and not _descheduler_protection(pod)


def _owner_in_input(snapshot: Snapshot, pod: Pod) -> bool:
    """Is the DaemonSet that owns `pod` in the input (its template's node affinity known)?"""
    ds = controller_owner(snapshot, pod)
    return ds is not None and ds.kind == "DaemonSet"


def _daemon_fits(b: PlanBuilder, snapshot: Snapshot, pod: Pod, node: Node) -> bool:
    """`NodeShouldRunDaemonPod`'s node affinity check: the DaemonSet's pod template's nodeSelector
    and required node affinity (daemon_controller.go NewPod + predicates). Its pods do not carry
    the template's affinity terms: the controller replaces them with their node's name
    (daemonset_util.go ReplaceDaemonSetPodNodeNameNodeAffinity); only the nodeSelector is theirs
    too. Without the DaemonSet in the input, the pod's nodeSelector is all that is known."""
    ds = controller_owner(snapshot, pod)
    if ds is not None and ds.kind == "DaemonSet" and ds.template_node_selector is not None:
        if any(node.labels.get(k) != v for k, v in ds.template_node_selector.items()):
            return False
        return ds.template_affinity is None or node_selector_matches(ds.template_affinity, node.labels, node.name).match
    if ds is None and not snapshot.holds("DaemonSet"):
        b.incomplete_for("DaemonSet", "the DaemonSet's node affinity (its pods carry only their node's name) not "
                         "checked against the edited labels; its nodeSelector (the pod's too) was", pod.ref)
    return node_matches_pod(pod, node).match


#: The pod annotation that lifts the descheduler's DefaultEvictor protections.
DESCHEDULER_EVICT = "descheduler.alpha.kubernetes.io/evict"


def _descheduler_protection(pod: Pod) -> str:
    """Why the descheduler's DefaultEvictor, at its defaults (sigs.k8s.io/descheduler
    `pkg/framework/plugins/defaultevictor`: evictLocalStoragePods, evictSystemCriticalPods and
    evictFailedBarePods false), will not evict `pod`; "" when it will. DaemonSet and mirror pods
    never reach it here; a terminating pod fails its IsPodTerminating check."""
    if DESCHEDULER_EVICT in pod.annotations:
        return ""
    if pod.deletion_timestamp is not None:
        return "pod is terminating"
    if not pod.owner_refs:
        return "pod does not have any ownerRefs"
    if pod.priority >= SYSTEM_CRITICAL_PRIORITY:
        return "pod has system critical priority"
    if any(v.kind in ("emptyDir", "hostPath") for v in pod.volumes):
        return "pod has local storage and descheduler is not configured with evictLocalStoragePods"
    return ""


def _ordered_wait(b: PlanBuilder, snapshot: Snapshot, pod: Pod) -> Optional[OrderedWait]:
    """`ordered_ready_wait` for a StatefulSet pod this plan removes now: the lower ordinals removed
    earlier in the plan are on their way back, unless their replacement never comes (a shortfall)."""
    if pod.controller_kind != "StatefulSet" or ordinal(pod) is None or pod.controller is None:
        return None
    mine = ordinal(pod)
    lower = [o for o in snapshot.pods_by_owner.get(pod.controller.uid, ()) if (ordinal(o) is not None
                                                                              and ordinal(o) < mine)]
    pending = {(e.namespace, e.pod) for e in b.shortfalls if e.code in ("no-node-fits", "ordered-ready")}
    if all(o.phase == "Running" and o.ready and o.deletion_timestamp is None and o.key not in pending for o in lower):
        return None     # (no scan of the plan's actions for the common case)
    leaving = {(a.namespace, a.pod) for a in b.actions if a.type in ("evict", "delete", "kill")}
    return ordered_ready_wait(b, snapshot, pod, pending, leaving)


def _delete(b: PlanBuilder, placing: _Placing, pod: Pod, node: str, at: float, reason: str, by: str) -> None:
    if pod.is_mirror:
        # Deleting a mirror pod stops nothing: the kubelet's SyncPod recreates the mirror of the
        # static pod it keeps running (`mirrorPod == nil || deleted` -> CreateMirrorPod).
        b.action("delete", by=by, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=at,
                 grace_period_seconds=None, rule=RULE, reason=reason + "; a mirror pod: the kubelet keeps its static "
                 "pod running and recreates the mirror pod")
        return
    if pod.controller_kind == "DaemonSet":
        # The DaemonSet controller only creates a pod where the node matches: no replacement here.
        b.action("delete", by=by, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=at,
                 grace_period_seconds=None, rule=RULE, reason=reason)
        return
    recreated = recreation(placing.snapshot, pod).elsewhere
    wait = _ordered_wait(b, placing.snapshot, pod) if recreated else None
    if wait is not None:
        b.shortfall(pod, "ordered-ready", "deleted at %s, but its replacement is never created: %s is not Running "
                    "and Ready%s" % (format_offset(at), wait.holder.ref, wait.assumption), node=node)
        b.action("delete", by=by, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=at,
                 grace_period_seconds=None, target=None, rule=RULE, reason=reason + "; but " + wait.text(pod))
        return
    placed = replace_removed(b, placing.snapshot, placing.placer() if recreated else None, pod, at, RULE,
                             "deleted at %s" % format_offset(at), node=node)
    if placed is not None:
        b.action("delete", by=by, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=at,
                 grace_period_seconds=None, target=placed.node, candidates=placed.candidates, rule=RULE,
                 reason=reason + ("" if placed.node else "; its replacement fits no node"))
    else:
        b.action("delete", by=by, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=at,
                 grace_period_seconds=None, rule=RULE, reason=reason + "; " + no_replacement(placing.snapshot, pod))


#: An eviction to try: pod, node, reason, whether another node must fit, and the taint-eviction
#: controller's later deletion (at, reason) should the eviction not come first.
_Item = Tuple[Pod, str, str, bool, Optional[Tuple[float, str]]]


class _Evictions:
    """The evictions the plan adds (RequiredDuringExecution, `--enforce-ignored-during-execution`),
    answered as the Eviction API answers drain's (`eviction.go`, `scheduling/disruption.py`): budgets
    drawn down across all of them; one a budget refuses (429) goes once an earlier eviction's
    replacement is Ready (`apply` retries 429 as kubectl does), and is blocked when nothing gives
    budget back."""

    def __init__(self, b: PlanBuilder, placing: _Placing, now: float) -> None:
        self.b = b
        self.placing = placing
        self.now = now
        self.budgets: Dict[Tuple[str, str], BudgetState] = {}
        self.held: List[Tuple[_Item, BudgetState, Eviction]] = []

    def add(self, pod: Pod, node: str, reason: str, need_target: bool = False,
            fallback: Optional[Tuple[float, str]] = None) -> None:
        """Evict `pod` now, if the Eviction API lets it go. `fallback`: the taint-eviction
        controller's later deletion (when, why), which happens instead when the eviction is refused
        or would come no earlier."""
        self._try((pod, node, reason, need_target, fallback), 0)

    def _fall_back(self, item: _Item) -> bool:
        """The taint-eviction controller deletes the pod the eviction did not take in time."""
        pod, node, _, _, fallback = item
        if fallback is None:
            return False
        _delete(self.b, self.placing, pod, node, fallback[0], fallback[1], TAINT_EVICTION)
        return True

    def _try(self, item: _Item, wave: int) -> None:
        pod, node, reason, need_target, fallback = item
        if fallback is not None and wave * DEFAULT_STARTUP >= fallback[0]:
            self._fall_back(item)
            return
        b, snapshot = self.b, self.placing.snapshot
        pdbs = pdbs_for_pod(snapshot, pod)
        state = None
        if len(pdbs) == 1:
            key = (pdbs[0].namespace, pdbs[0].name)
            state = self.budgets.get(key)
            if state is None:
                state = self.budgets[key] = BudgetState(pdbs[0], effective_budget(snapshot, pdbs[0], self.now))
        decision = ledger_decision(pod, pdbs, state, wave)
        if state is not None and state.budget.unknown:
            if not decision.pdb_checked and pod.phase == "Running" and pod.deletion_timestamp is None:
                b.incomplete_for(state.budget.unknown, "budgets of PodDisruptionBudgets not computed (the disruption "
                                 "controller counts the controllers' spec.replicas)", pod.ref)
                reason += "; %s" % unknown_budget_text(state.pdb, state.budget.unknown)
            state = None
        if decision.allowed:
            if wave:
                reason = "%s; evicted in wave %d, once earlier evicted pods under PDB %s have Ready replacements" % (
                    reason, wave + 1, state.pdb.ref)
            landed = _evict(b, self.placing, pod, node, reason, wave * DEFAULT_STARTUP, need_target,
                            fallback is not None)
            if landed is None and self._fall_back(item):
                return
            if landed is not None and state is not None and (decision.spends_budget or not pod.ready):
                if decision.spends_budget:
                    state.spend()
                state.replaced(pod, wave, wave * DEFAULT_STARTUP, decision.spends_budget, landed,
                               "has nowhere to go" if recreation(snapshot, pod).elsewhere else "is never created")
        elif decision.code == 429 and decision.message == VIOLATES_BUDGET and state is not None:
            self.held.append((item, state, decision))
        elif self._fall_back(item):
            return
        elif decision.code == 500:
            b.block(pod, "pdb-multiple", "%s; not evicted: %s (PDBs: %s)" % (
                reason.split(";")[0], decision.message, ", ".join(p.ref for p in pdbs)))
        else:
            b.block(pod, "pdb-budget", "%s; not evicted: %s (PDB %s)" % (
                reason.split(";")[0], decision.text, state.pdb.ref if state is not None else decision.pdb))

    def finish(self) -> None:
        """Retry what the budgets held, wave after wave, until nothing gives budget back."""
        wave = 0
        while self.held:
            held, self.held = self.held, []
            retry = []
            for item, state, decision in held:
                if state.pending_after(wave) is not None:
                    retry.append(item)
                elif not self._fall_back(item):
                    why = ": budget spent and never given back: %s" % "; ".join(state.lost.values()) if state.lost else ""
                    self.b.block(item[0], "pdb-budget", "%s; not evicted: %s (PDB %s)%s" % (
                        item[2].split(";")[0], decision.text, state.pdb.ref, why))
            if not retry:
                break
            wave = min(w for w in (st.pending_after(wave) for _, st, _ in held) if w is not None)
            for item in retry:
                self._try(item, wave)


def _evict(b: PlanBuilder, placing: _Placing, pod: Pod, node: str, reason: str, at: float,
           need_target: bool = False, quiet: bool = False) -> Optional[bool]:
    """The `evict` action of a pod the Eviction API lets go at `at`: whether its replacement lands
    (None: not evicted, `need_target` and no other node fits; blocked unless `quiet`, when the
    caller has another fate for it)."""
    if not placing.snapshot.holds("PodDisruptionBudget"):
        b.incomplete_for("PodDisruptionBudget", "budgets not checked (the Eviction API refuses an eviction a "
                         "PodDisruptionBudget does not allow)", pod.ref)
    if need_target and not placing.placer().fits_any(pod, [n for n in placing.snapshot.nodes if n != node]):
        # the descheduler's PodFitsAnyNode (NodeFit: selector and affinity, taints, requests
        # against the pods already there, unschedulable) never preempts: room the scheduler
        # would only make by preempting does not count (descheduler pkg/descheduler/node/node.go)
        if quiet:
            return None
        b.block(pod, "nowhere-to-move", reason.split(";")[0] + "; not evicted: no other node fits it without "
                "preemption (the descheduler's PodFitsAnyNode)")
        return None
    recreated = recreation(placing.snapshot, pod).elsewhere
    wait = _ordered_wait(b, placing.snapshot, pod) if recreated else None
    if wait is not None:
        b.shortfall(pod, "ordered-ready", "evicted, but its replacement is never created: %s is not Running and "
                    "Ready%s" % (wait.holder.ref, wait.assumption))
        b.action("evict", by=USER, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=at,
                 grace_period_seconds=None, target=None, rule=RULE, reason=reason + "; but " + wait.text(pod))
        return False
    if recreated:
        placed = place(b, placing.placer(), pod, at, RULE)
        if placed.node is None:
            if need_target:
                if quiet:
                    return None
                b.block(pod, "nowhere-to-move", reason.split(";")[0] + "; not evicted: no other node fits (%s)"
                        % placed.reason)
                return None
            b.shortfall(pod, "no-node-fits", "evicted, but its replacement fits no node: %s" % placed.reason)
        b.action("evict", by=USER, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=at,
                 grace_period_seconds=None, target=placed.node, candidates=placed.candidates, rule=RULE,
                 reason=reason)
        return placed.node is not None
    b.action("evict", by=USER, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=at,
             grace_period_seconds=None, target=None, rule=RULE,
             reason=reason + "; " + no_replacement(placing.snapshot, pod))
    return False
