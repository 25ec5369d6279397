"""`affinity`: what happens to running pods when nodes are relabeled or retainted.

Models, for the nodes an edit changes (or, with no edits, for every node):
- the taint-eviction controller (kube-controller-manager v1.33, `pkg/controller/tainteviction`):
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
from kubectl_evict.plan import Plan, PlanBuilder
from kubectl_evict.rules.whatif import apply_edits
from kubectl_evict.scheduling.nodeaffinity import node_matches_pod, node_selector_matches
from kubectl_evict.scheduling.placement import Placer
from kubectl_evict.scheduling.tolerations import no_execute_decision, taints_text

RULE = "affinity"


class AffinitySettings(PClass):
    edits = field(type=tuple, initial=())            # NodeEdit values, in command-line order
    enforce_ignored_during_execution = field(type=bool, initial=False)



def _scheduled_deletion(pod: Pod, node: Node, now: float) -> Optional[float]:
    """When the taint-eviction controller deletes `pod` on `node` (seconds after now), or None."""
    d = no_execute_decision(node.taints, pod.tolerations)
    if d.action == "delete-now":
        return 0.0
    if d.action == "delete-after":
        # A deletion scheduled for older taints keeps its earlier time.
        started = max((t.time_added for t in node.taints if t.effect == "NoExecute" and t.time_added is not None),
                      default=now)
        return max(0.0, started + d.seconds - now)
    return None


def plan_affinity(snapshot: Snapshot, settings: AffinitySettings, now: float) -> Plan:
    """Plan the consequences of the node edits in `settings` for the running pods."""
    b = PlanBuilder("affinity", now)
    before = snapshot
    after, changed = apply_edits(snapshot, settings.edits, now)
    nodes = changed if settings.edits else sorted(after.nodes)
    for e in settings.edits:
        if e.op in ("taint", "untaint"):
            # The taint itself is part of the plan: `apply` adds (or removes) it.
            kw = {"value": e.value} if e.op == "taint" else {}
            b.action(e.op, node=e.node, key=e.key, effect=e.effect, at=0, rule=RULE,
                     reason="what-if taint requested with --taint", **kw)
        else:
            b.note("node/%s: %s %s%s" % (e.node, "label" if e.op == "label" else "remove label", e.key,
                                         "=" + e.value if e.op == "label" else ""))
    decisions = []
    for name in nodes:
        old, new = before.node(name), after.node(name)
        for pod in after.pods_on(name):
            if pod.is_terminal:
                continue
            decisions.append((pod, old, new))
    placer = Placer(after.nodes.values(), after.pods_by_node, snapshot=after)
    for pod, old, new in decisions:
        _decide(b, placer, pod, old, new, now, settings)
    return b.build()


def _decide(b: PlanBuilder, placer: Placer, pod: Pod, old: Node, new: Node, now: float,
            settings: AffinitySettings) -> None:
    # 1. NoExecute taints: the taint-eviction controller.
    was = _scheduled_deletion(pod, old, now) if old is not None else None
    will = _scheduled_deletion(pod, new, now)
    if will is not None and (was is None or will < was):
        d = no_execute_decision(new.taints, pod.tolerations)
        if d.action == "delete-now" and d.untolerated:
            why = "does not tolerate NoExecute taint %s" % taints_text(d.untolerated)
        elif will == 0:
            why = "tolerates NoExecute taints for 0s"
        else:
            why = "tolerates NoExecute taints for %ds" % d.seconds
        _delete(b, placer, pod, new.name, will, "taint-eviction controller deletes it: %s (plain DELETE, PDBs not consulted)" % why)
        return
    if was is None and will is None and any(t.effect == "NoExecute" for t in new.taints) and \
            no_execute_decision(new.taints, pod.tolerations).action == "forever" and \
            any(t.effect == "NoExecute" and t.time_added == now for t in new.taints):
        b.skip(pod, "tolerates NoExecute taint %s forever" % taints_text(t for t in new.taints if t.effect == "NoExecute"))
    # 2. Node affinity against the new labels.
    if pod.is_mirror:
        return
    if pod.controller_kind == "DaemonSet":
        # The DaemonSet's own selector is the pod's (the controller pins pods with matchFields).
        if not node_matches_pod(pod, new).match and node_matches_pod(pod, old).match:
            _delete(b, placer, pod, new.name, 0, "DaemonSet controller deletes it: node no longer matches the DaemonSet's node selector/affinity")
        return
    rde = pod.required_during_execution
    if rde is not None and not node_selector_matches(rde, new.labels, new.name).match:
        _evict(b, placer, pod, new.name, "node no longer matches requiredDuringSchedulingRequiredDuringExecution node affinity")
        return
    res = node_matches_pod(pod, new)
    if res.match:
        return
    already = not node_matches_pod(pod, old).match
    what = "the pod's nodeSelector/required node affinity (IgnoredDuringExecution)"
    state = "does not match" if already else "no longer matches"
    if settings.enforce_ignored_during_execution:
        _evict(b, placer, pod, new.name, "node %s %s; evicted as the descheduler's RemovePodsViolatingNodeAffinity would" % (state, what),
               need_target=True)
    else:
        b.skip(pod, "node %s %s: Kubernetes leaves it running" % (state, what))


def _delete(b: PlanBuilder, placer: Placer, pod: Pod, node: str, at: float, reason: str) -> None:
    target = None
    if pod.recreated_elsewhere:
        target = placer.place(pod).node
        b.action("delete", namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=at,
                 grace_period_seconds=None, target=target, rule=RULE,
                 reason=reason + ("" if target else "; its replacement fits no node"))
    else:
        b.action("delete", namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=at,
                 grace_period_seconds=None, rule=RULE, reason=reason + "; nothing recreates it")


def _evict(b: PlanBuilder, placer: Placer, pod: Pod, node: str, reason: str, need_target: bool = False) -> None:
    if pod.recreated_elsewhere:
        placed = placer.place(pod)
        if placed.node is None:
            if need_target:
                b.block(pod, reason.split(";")[0] + "; not evicted: no other node fits (%s)" % placed.reason)
                return
            b.block(pod, "evicted, but its replacement fits no node: %s" % placed.reason)
        b.action("evict", namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=0,
                 grace_period_seconds=None, target=placed.node, rule=RULE, reason=reason)
    else:
        b.action("evict", namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=node, at=0,
                 grace_period_seconds=None, target=None, rule=RULE, reason=reason + "; nothing recreates it")
