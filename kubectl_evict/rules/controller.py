"""`controller`: what the control plane does, and when, if nodes or whole zones stop responding.

Models kube-controller-manager v1.30-v1.37 (the release differences live in `nodelifecycle.py`): the node lifecycle controller (node health from Ready
heartbeats and Leases, NoSchedule condition taints, zone states, per-zone rate-limited NoExecute
`not-ready`/`unreachable` taints, master disruption mode) and the taint-eviction controller
(plain DELETE at taint time + the smallest used tolerationSeconds; PDBs not consulted), with the
timing measured on a real controller-manager (spec C10). The taint-eviction controller acts on
every NoExecute taint, so the pods of nodes that already carry another one in the snapshot (a
user's `maint=x:NoExecute`, on a healthy node or a failing one) are planned too, from the taint's
`timeAdded` (`processPodOnNode`, `pkg/controller/tainteviction/taint_eviction.go`); not with
`--legacy-eviction`, which models the
pre-taint controller (v1.12 and earlier `monitorNodeStatus`): pods of a node down for
`--pod-eviction-timeout` are deleted, per-zone rate-limited, DaemonSet pods left alone.
The timeline itself lives in `rules/nodelifecycle.py`, shared with `shutdown`. From v1.36 the
device taint eviction controller's deletions (DRA devices with NoExecute taints, whatever the
nodes do) are part of the plan too (`rules/devicetainteviction.py`).
"""

from __future__ import annotations

from typing import AbstractSet, Dict, List, Optional, Sequence, Set, Tuple

from pyrsistent import PClass, field

from kubectl_evict.errors import InputError
from kubectl_evict.model import Pod, Snapshot
from kubectl_evict.workloads import DEFAULT_STARTUP, attach
from kubectl_evict.plan import DEVICE_TAINT_EVICTION, NODE_LIFECYCLE, TAINT_EVICTION, Plan, PlanBuilder, counted_refs, number
from kubectl_evict.rules.devicetainteviction import (CONDITION_REASON, device_taint_evictions,
                                                      has_noexecute_device_taints, unknown_kinds)
from kubectl_evict.rules.nodelifecycle import (FULL, PARTIAL, ControllerSettings, NodeFailure, PodFate, Timeline, lease_gap,
                                               ZoneTimeline, noexecute_timeline, pod_fates, pods_marked_not_ready_at,
                                               rate_text, status_at, tainted_nodes)
from kubectl_evict.rules.replacements import (absent_owner, chain_ordered_ready, job_after_deletion,
                                              no_replacement, ordered_ready_wait, recreation, replace_removed,
                                              unknown_job, waits_for_old_pod)
from kubectl_evict.scheduling.placement import Placer
from kubectl_evict.scheduling.tolerations import NOT_READY, UNREACHABLE
from kubectl_evict.scheduling.disruption import pdbs_for_pod
from kubectl_evict.timeutil import format_offset, format_seconds
from kubectl_evict.versions import ClusterVersion, cluster_version

RULE = "controller"


class ControllerPlanSettings(PClass):
    fail = field(type=tuple, initial=())          # node names, command-line order
    fail_zones = field(type=tuple, initial=())    # zone keys or zone label values
    controller = field(type=ControllerSettings, initial=ControllerSettings())


def zone_label(zone: str) -> str:
    return zone if zone else "<no zone labels>"


def resolve_failures(snapshot: Snapshot, fail: Sequence[str], fail_zones: Sequence[str]) -> Dict[str, NodeFailure]:
    """`--fail` / `--fail-zone` to node failures at `now`; unknown names are input errors."""
    out: Dict[str, NodeFailure] = {}
    for name in fail:
        snapshot.named_node(name, "--fail")
        out[name] = NodeFailure(0.0, "Unknown")
    for z in fail_zones:
        keys = [k for k in snapshot.nodes_by_zone if k == z or (k and k.rsplit("/", 1)[-1] == z)]
        if not keys:
            known = ", ".join(sorted(k for k in snapshot.nodes_by_zone if k)) or "none: no node has zone labels"
            raise InputError("unknown zone %r (zones in the snapshot: %s)" % (z, known), field="--fail-zone")
        for k in keys:
            for name in snapshot.nodes_by_zone[k]:
                out[name] = NodeFailure(0.0, "Unknown")
    return out


def _pdb_text(snapshot: Snapshot, pod: Pod) -> str:
    pdbs = pdbs_for_pod(snapshot, pod)
    if not pdbs:
        return "plain DELETE"
    return "plain DELETE: PodDisruptionBudget %s is not consulted" % ", ".join(p.ref for p in pdbs)


def _zone_note(zt: ZoneTimeline, tl: Timeline, horizon: float, threshold: int) -> str:
    """`zone-b (6 nodes): Normal (0/6 down) → PartialDisruption at +50s (4/6 down); tainting
    stopped (zone has ≤50 nodes); ...`"""
    what = "tainting" if not tl.legacy else "pod deletion"
    parts = []
    for i, s in enumerate(zt.states):
        if i == 0:
            head = "zone %s (%d node%s): %s (%d/%d down)" % (zone_label(zt.zone), zt.size, "" if zt.size == 1 else "s",
                                                             s.state, s.down, zt.size)
        else:
            head = "→ %s at %s (%d/%d down)" % (s.state, format_offset(s.at), s.down, zt.size)
        if tl.master_disruption_at is not None and s.at == tl.master_disruption_at and s.rate <= 0 and s.state == FULL:
            head += "; every zone is down: no %s" % ("NoExecute taints" if not tl.legacy else "pod deletions")
        elif s.rate <= 0 and s.state == PARTIAL and zt.size <= threshold:
            head += "; %s stopped (zone has ≤%d nodes)" % (what, threshold)
        elif s.rate <= 0 and (i > 0 or s.state != "Normal"):
            head += "; %s stopped (--%s is 0)" % (what, "secondary-node-eviction-rate" if s.state == PARTIAL
                                                  else "node-eviction-rate")
        elif i > 0 or s.state != "Normal":
            head += "; %s at %s" % (what, rate_text(s.rate))
        parts.append(head)
    text = " ".join(parts)
    if zt.dequeued:
        inside = [t for _, t in zt.dequeued if t <= horizon]
        verb = "NoExecute-tainted" if not tl.legacy else "emptied"
        if len(inside) == 1:
            text += "; 1 node %s at %s" % (verb, format_offset(inside[0]))
        elif inside:
            text += "; %d nodes %s from %s to %s" % (len(inside), verb, format_offset(inside[0]), format_offset(inside[-1]))
        if len(inside) < len(zt.dequeued):
            text += " (%d more after the horizon)" % (len(zt.dequeued) - len(inside))
    if zt.stuck:
        text += "; %d node%s queued but never %s" % (len(zt.stuck), "" if len(zt.stuck) == 1 else "s",
                                                     "tainted" if not tl.legacy else "emptied")
    return text


def _pods_gap(b: PlanBuilder, snapshot: Snapshot, tl: Timeline, horizon: float) -> None:
    """Without Pods, the plan's verdict depends on them only where a pod can go: on the nodes
    that carry or get a NoExecute taint within the horizon (the taint-eviction controller acts on
    nothing else, `processPodOnNode`; pre-taint eviction: the nodes it empties) and, from v1.36,
    wherever a device has a NoExecute taint. Elsewhere no pod is touched, whatever runs there."""
    nodes = sorted(n for n, nt in tl.nodes.items()
                   if (nt.dequeued_at is not None and nt.dequeued_at <= horizon if tl.legacy
                       else any(ts and at <= horizon for at, ts in nt.noexecute)))
    if nodes:
        b.incomplete("Pod", "which pods run on %s, and so what the %s deletes, is unknown" % (
            counted_refs("node", nodes), "node lifecycle controller" if tl.legacy else "taint-eviction controller"))
    elif has_noexecute_device_taints(snapshot):
        b.incomplete("Pod", "which pods use the devices with NoExecute taints, and so what the device taint eviction "
                     "controller deletes, is unknown")


def _version_text(v: ClusterVersion) -> str:
    return v.text if v.source != "default" else "%s, the newest modelled: the snapshot records no version" % v.text


def _stuck_terminating_statefulset_pods(b: PlanBuilder, snapshot: Snapshot, tl: Timeline, now: float
                                        ) -> AbstractSet[Tuple[str, str]]:
    """StatefulSet pods already Terminating on a node whose kubelet is gone (it ends Unknown):
    nothing confirms their deletion, so they stay, and the StatefulSet controller creates a pod
    again only once the old object is gone (`processReplica`: `isCreated`, then `isTerminating`
    waits): a `waits-for-old-pod` shortfall, whatever NoExecute taint follows (a DELETE changes
    nothing for a pod being deleted). Their keys, which the rest of the plan leaves alone."""
    out: Set[Tuple[str, str]] = set()
    for name in sorted(tl.nodes):
        nt = tl.nodes[name]
        if status_at(nt.statuses, float("inf")) not in ("Unknown", ""):
            continue
        for p in snapshot.pods_on(name):
            if p.deletion_timestamp is None or p.controller_kind != "StatefulSet" or p.is_terminal \
                    or absent_owner(snapshot, p):   # no StatefulSet left to wait: nothing recreates it
                continue
            ago = now - p.deletion_timestamp
            when = "%s ago" % format_seconds(round(ago)) if ago >= 0 else "at %s" % format_offset(-ago)
            waits_for_old_pod(b, p, 0.0, name, deleted="already deleted %s" % when)
            out.add(p.key)
    return out


def plan_controller(snapshot: Snapshot, settings: ControllerPlanSettings, now: float) -> Plan:
    """Plan the node lifecycle and taint-eviction controllers from the snapshot at `now`, with
    the `--fail`/`--fail-zone` nodes going silent at `now`."""
    ctl = settings.controller
    failing = resolve_failures(snapshot, settings.fail, settings.fail_zones)
    tl = noexecute_timeline(snapshot, now, failing, ctl)
    return _plan(snapshot, ctl, settings.fail, tl, now)


def _plan(snapshot: Snapshot, ctl: ControllerSettings,
          named: Sequence[str], tl: Timeline, now: float) -> Plan:
    b = PlanBuilder(RULE, now)
    horizon = float(ctl.horizon)
    omitted = 0

    for name in sorted(set(named)):
        nt = tl.nodes.get(name)
        if nt is not None and (nt.health.posted_status == "Unknown" or nt.health.flipped):
            b.note("node/%s is already unreachable (Ready=Unknown at +0s); --fail changes nothing for it" % name)

    for e in tl.events:
        if e.at > horizon:
            omitted += 1
            continue
        b.action(e.kind, by=NODE_LIFECYCLE, node=e.node, key=e.key, value="", effect=e.effect, at=e.at, rule=RULE,
                 reason=e.reason)

    fates = pod_fates(snapshot, tl, ctl, now)
    down = [n for n, nt in tl.nodes.items() if nt.down_at is not None]
    stuck_old = _stuck_terminating_statefulset_pods(b, snapshot, tl, now)
    deletions: List[PodFate] = []
    later: Dict[Tuple[str, str], float] = {}       # deletions after the horizon
    for f in fates:
        if stuck_old and f.pod.key in stuck_old:     # Pod.key builds a tuple: tens of thousands of fates
            continue
        if f.kind == "delete" and f.pod.deletion_timestamp is not None:
            ago = now - f.pod.deletion_timestamp
            when = "%s ago" % format_seconds(round(ago)) if ago >= 0 else "at %s" % format_offset(-ago)
            if tl.nodes[f.node].down_at is None:
                # a healthy node (a user's NoExecute taint): its kubelet finishes the deletion itself
                b.skip(f.pod, "already-terminating", "already deleted %s (Terminating): its kubelet finishes "
                       "terminating it; the taint-eviction controller's DELETE changes nothing" % when, node=f.node)
                continue
            b.skip(f.pod, "already-terminating", "already deleted %s (Terminating): the kubelet of a down node cannot confirm it; "
                   "only pod GC with an out-of-service taint or a force delete removes it" % when, node=f.node)
            continue
        if f.kind == "delete":
            if f.at is not None and f.at > horizon:
                omitted += 1
                later[(f.pod.namespace, f.pod.name)] = f.at
                continue
            deletions.append(f)
        elif f.kind in ("forever", "legacy-skip"):
            nt = tl.nodes[f.node]
            relevant = nt.dequeued_at if nt.dequeued_at is not None else (0.0 if nt.noexecute[0][1] else None)
            if relevant is None or relevant > horizon:
                continue
            b.skip(f.pod, "tolerates-forever" if f.kind == "forever" else "daemonset", f.reason, node=f.node)
        elif f.kind == "cancelled":
            b.skip(f.pod, "eviction-cancelled", f.reason, node=f.node)

    order = {n: i for i, n in enumerate(sorted(snapshot.nodes))}
    deletions.sort(key=lambda f: (f.at, order.get(f.node, 0), f.pod.namespace, f.pod.name))
    by_node = dict(later)
    by_node.update({(f.pod.namespace, f.pod.name): f.at for f in deletions})
    device = [e for e in device_taint_evictions(snapshot, now)
              if by_node.get((e.pod.namespace, e.pod.name), e.at + 1) > e.at]
    # one count per pod after the horizon: its first deletion, node or device taint
    omitted += sum(1 for e in device if e.at > horizon) - sum(1 for e in device if (e.pod.namespace, e.pod.name) in later)
    device = [e for e in device if e.at <= horizon]
    gone = {(e.pod.namespace, e.pod.name) for e in device}
    deletions = [f for f in deletions if (f.pod.namespace, f.pod.name) not in gone]
    placer: Optional[Placer] = None
    if any(recreation(snapshot, f.pod).elsewhere for f in deletions) or \
            any(recreation(snapshot, e.pod).elsewhere for e in device):
        # the down nodes are not cordoned: their taints keep replacements off (and name them in a FitError);
        # taints the controller removes at +0s (a node Ready again, a condition that no longer calls for
        # its taint) no longer keep them off
        touched = sorted(set(down) | {e.node for e in tl.events})
        placer = Placer(tainted_nodes(snapshot, tl, touched), snapshot.pods_by_node, snapshot=snapshot, preempt=True,
                        leaving=[f.pod for f in deletions] + [e.pod for e in device])
    for kind in unknown_kinds(snapshot):
        b.incomplete(kind, "device taint evictions (v1.36+) not checked for pods with ResourceClaims")
    for e in device:
        p = e.pod
        reason = ("its ResourceClaim %s uses a device with an untolerated NoExecute taint (%s): the device taint "
                  "eviction controller deletes it (plain DELETE, PodDisruptionBudgets not consulted; DisruptionTarget "
                  "reason %s)" % (e.claim.ref, "; ".join(e.taints), CONDITION_REASON))
        target = None
        candidates: tuple = ()
        placed = replace_removed(b, snapshot, placer, p, e.at, RULE, "deleted at %s (device taint)" % format_offset(e.at),
                                 node=p.node_name)
        if placed is not None:
            target, candidates = placed.node, placed.candidates
        else:
            reason += "; " + no_replacement(snapshot, p)
        b.action("delete", by=DEVICE_TAINT_EVICTION, namespace=p.namespace, pod=p.name, uid=p.uid, node=p.node_name,
                 at=e.at, grace_period_seconds=None, target=target, candidates=candidates, rule=RULE, reason=reason)
    not_ready: Dict[Tuple[str, str], float] = {}
    for name, nt in tl.nodes.items():
        at = pods_marked_not_ready_at(nt)
        if at is not None and at <= horizon:
            for p in snapshot.pods_on(name):
                not_ready[(p.namespace, p.name)] = at
    job_counted: Dict[str, int] = {}
    # OrderedReady StatefulSets: ordinals whose replacement never comes, the pods this plan deletes,
    # and the nodes whose kubelet never confirms a deletion
    sts_pending: Set[Tuple[str, str]] = set()
    leaving = frozenset(f.pod.key for f in deletions) | frozenset(e.pod.key for e in device)
    silent = frozenset(n for n, nt in tl.nodes.items() if status_at(nt.statuses, float("inf")) in ("Unknown", ""))
    # StatefulSet pods of those nodes are not Ready from the node lifecycle controller's
    # MarkPodsNotReady on, and never again (no kubelet runs their probes): from then on a higher
    # ordinal deleted elsewhere is never recreated either
    unready_for_good: List[Tuple[float, Tuple[str, str]]] = []
    for name in sorted(silent):
        marked = pods_marked_not_ready_at(tl.nodes[name])
        if marked is not None:
            unready_for_good.extend((marked, q.key) for q in snapshot.pods_on(name) if q.controller_kind == "StatefulSet")
    unready_for_good.sort(reverse=True)     # earliest last: popped as the deletions reach their time
    who = "node lifecycle controller (pre-taint eviction)" if tl.legacy else "taint-eviction controller"
    deleter = NODE_LIFECYCLE if tl.legacy else TAINT_EVICTION
    for f in deletions:
        p = f.pod
        reason = "%s; %s deletes it (%s)" % (f.reason, who, _pdb_text(snapshot, p))
        # a pod whose owner is not in the cluster: nothing recreates it, nothing waits
        ownerless = absent_owner(snapshot, p)
        stuck = p.controller_kind == "StatefulSet" and not p.is_terminal and not ownerless and status_at(tl.nodes[f.node].statuses, f.at) in ("Unknown", "")
        if stuck:
            sts_pending.add(p.key)
            waits_for_old_pod(b, p, f.at, f.node)
            b.action("delete", by=deleter, namespace=p.namespace, pod=p.name, uid=p.uid, node=f.node, at=f.at,
                     grace_period_seconds=None, target=None, rule=RULE,
                     reason=reason + "; StatefulSet replacement waits for the old pod to be gone")
            continue
        replaced_at = None
        if p.controller_kind == "Job" and not p.is_terminal and not ownerless:
            unknown_job(b, snapshot, p)
            job = job_after_deletion(snapshot, p, f.at, status_at(tl.nodes[f.node].statuses, f.at),
                                   not_ready.get((p.namespace, p.name)), job_counted)
            if job.kind != "schedule":
                code = "job-failed" if job.kind == "job-failed" else "waits-for-old-pod"
                b.shortfall(p, code, "deleted at %s: %s" % (format_offset(f.at), job.why), node=f.node)
                b.action("delete", by=deleter, namespace=p.namespace, pod=p.name, uid=p.uid, node=f.node, at=f.at,
                         grace_period_seconds=None, target=None, rule=RULE, reason=reason + "; " + job.why)
                continue
            if job.at is not None and job.at > f.at:
                replaced_at = job.at
        wait = None
        if p.controller_kind == "StatefulSet" and not p.is_terminal and not ownerless:
            # (deletions come in time order: those marked by now join the ordinals that never come back)
            while unready_for_good and unready_for_good[-1][0] <= f.at:
                sts_pending.add(unready_for_good.pop()[1])
            wait = ordered_ready_wait(b, snapshot, p, sts_pending, leaving, silent)
        if wait is not None:
            # processReplica (monotonic): not while a lower ordinal is not Running and Ready
            sts_pending.add(p.key)
            b.shortfall(p, "ordered-ready", "deleted at %s, but its replacement is never created: %s is not Running "
                        "and Ready%s" % (format_offset(f.at), wait.holder.ref, wait.assumption), node=f.node)
            b.action("delete", by=deleter, namespace=p.namespace, pod=p.name, uid=p.uid, node=f.node, at=f.at,
                     grace_period_seconds=None, target=None, rule=RULE, reason=reason + "; but " + wait.text(p))
            continue
        placed = replace_removed(b, snapshot, placer, p, f.at if replaced_at is None else replaced_at, RULE,
                                 "deleted at %s" % format_offset(f.at), node=f.node)
        if placed is not None and placed.node is None and p.controller_kind == "StatefulSet":
            sts_pending.add(p.key)
        if placed is None:
            b.action("delete", by=deleter, namespace=p.namespace, pod=p.name, uid=p.uid, node=f.node, at=f.at,
                     grace_period_seconds=None, rule=RULE,
                     reason=reason + "; " + no_replacement(snapshot, p))
        else:
            b.action("delete", by=deleter, namespace=p.namespace, pod=p.name, uid=p.uid, node=f.node, at=f.at,
                     grace_period_seconds=None, target=placed.node, candidates=placed.candidates, rule=RULE,
                     replaced_at=replaced_at,
                     reason=reason + ("" if placed.node else "; its replacement fits no node")
                     + ("; Job controller: replacement created at %s (pod-failure backoff)" % format_offset(replaced_at)
                        if replaced_at is not None else ""))

    # an OrderedReady StatefulSet creates the ordinals one by one, each once the lower ones are Ready
    chain_ordered_ready(b, snapshot, [i for i, a in enumerate(b.actions) if a.type == "delete" and a.target],
                        DEFAULT_STARTUP)

    # Notes: settings, zones.
    b.note("node-monitor-grace-period %s%s, node-monitor-period %s, node-eviction-rate %s, secondary %s, "
           "unhealthy-zone-threshold %g, large-cluster-size-threshold %d%s" % (
               format_seconds(tl.grace),
               "" if ctl.node_monitor_grace_period is not None else
               " (default for %s)" % _version_text(cluster_version(snapshot)),
               format_seconds(float(ctl.node_monitor_period)), rate_text(float(ctl.node_eviction_rate)),
               rate_text(float(ctl.secondary_node_eviction_rate)), float(ctl.unhealthy_zone_threshold),
               ctl.large_cluster_size_threshold,
               "; legacy eviction: pod-eviction-timeout %s" % format_seconds(float(ctl.pod_eviction_timeout))
               if tl.legacy else ""))
    for zt in tl.zones:
        if zt.size == 0 and not zt.dequeued and not zt.stuck:
            continue
        b.note(_zone_note(zt, tl, horizon, ctl.large_cluster_size_threshold))

    if tl.master_disruption_at is not None:
        # nodes of a zone made only of excluded nodes: no zone state stops their tainting
        late = sorted({e.node for e in tl.events if e.kind == "taint" and e.effect == "NoExecute"
                       and e.at >= tl.master_disruption_at})
        # master disruption mode stops the node lifecycle controller, not the taint-eviction controller
        others = sorted({f.node for f in deletions if any(t.key not in (NOT_READY, UNREACHABLE)
                                                          for _, ts in tl.nodes[f.node].noexecute for t in ts)})
        b.warn("every zone is fully disrupted from %s: the control plane assumes its own network failed "
               "(master disruption mode): %s" % (
                   format_offset(tl.master_disruption_at),
                   "no pods are deleted" if tl.legacy else
                   "no NoExecute taints, existing ones removed, nothing evicted" if not late else
                   "no NoExecute taints, existing ones removed, nothing evicted, except on %s in zones of "
                   "node.kubernetes.io/exclude-disruption nodes only, which no zone state stops"
                   % counted_refs("node", late))
               + ("" if tl.legacy or not others else
                  "; the taint-eviction controller still deletes pods for the other NoExecute taints on %s"
                  % counted_refs("node", others)))
    gap = lease_gap(tl)
    if gap:
        b.incomplete("Lease", gap)
    if not snapshot.holds("Pod"):
        _pods_gap(b, snapshot, tl, horizon)
    if omitted:
        b.warn("%d action%s after the %s horizon %s omitted (raise --horizon to see them)"
               % (omitted, "" if omitted == 1 else "s", format_seconds(horizon), "is" if omitted == 1 else "are"))
    b.extra["zones"] = [
        {"zone": zt.zone, "nodes": zt.size,
         "states": [{"at": number(s.at), "state": s.state, "down": s.down, "rate": s.rate} for s in zt.states],
         "queuedNeverTainted": [n for n, _ in zt.stuck]}
        for zt in tl.zones if zt.size or zt.dequeued or zt.stuck]
    if tl.master_disruption_at is not None:
        b.extra["masterDisruptionAt"] = number(tl.master_disruption_at)
    return attach(snapshot, b.build(), not_ready=not_ready)
