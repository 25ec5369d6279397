"""The verify matcher, pure: a plan, the cluster after (frozen), its Events, the read time -> verdicts.

Expected values follow upstream behaviour: the ReplicaSet controller replaces a pod marked for
deletion with a new pod named `RS-xxxxx` (so the replacement's creationTimestamp bounds the
removal); a StatefulSet recreates the same name with a new uid; the kubelet's evictions leave the
pod in phase Failed and record `Evicted`; the taint-eviction controller records
`TaintManagerEviction` without a uid; the node lifecycle controller stamps NoExecute taints with
`timeAdded`; the kubelet records `NodeNotSchedulable` / `NodeSchedulable` on a (un)cordon.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import pytest

from conftest import NOW, node, pod
from kubectl_evict.apply.document import plan_from_document
from kubectl_evict.source.freeze import Freezer
from kubectl_evict.timeutil import format_time, parse_time
from kubectl_evict.verify.events import project
from kubectl_evict.verify.match import verify
from kubectl_evict.verify.model import AS_PLANNED, DIFFERS, PENDING, UNKNOWN, Verification, exit_code

T = parse_time(NOW)          # when the plan was made
RS = "web-5f7c9"


def ts(offset: float) -> str:
    return format_time(T + offset)


def owner(kind: str, name: str, owned_by: Optional[tuple] = None, replicas: int = 2) -> dict:
    md: Dict[str, Any] = {"name": name, "namespace": "default", "uid": "uid-%s" % name}
    if owned_by:
        md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owned_by[0], "name": owned_by[1],
                                  "uid": "uid-%s" % owned_by[1], "controller": True}]
    return {"apiVersion": "apps/v1", "kind": kind, "metadata": md,
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}}}


def member(name: str, node_name: str, *, kind: str = "ReplicaSet", of: str = RS, uid: Optional[str] = None,
           created: float = -86400, ready: bool = True, phase: str = "Running",
           deleted: Optional[float] = None) -> dict:
    p = pod(name, node_name, owner=None, labels={"app": "web"}, ready=ready, phase=phase)
    md = p["metadata"]
    md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": kind, "name": of, "uid": "uid-%s" % of,
                              "controller": True}]
    md["uid"] = uid or "uid-" + name
    md["creationTimestamp"] = ts(created)
    if deleted is not None:
        md["deletionTimestamp"] = ts(deleted)
    if not node_name:
        del p["spec"]["nodeName"]
        p["status"]["phase"] = "Pending"
    return p


BASE = [node("n1", unschedulable=True), node("n2"), node("n3"), node("n4"),
        owner("Deployment", "web"), owner("ReplicaSet", RS, owned_by=("Deployment", "web")),
        owner("StatefulSet", "db", replicas=1)]


def snapshot(*objs: dict, read: float = 600):
    info = {"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
            "takenAt": ts(read), "context": "test", "server": "https://test.invalid:6443"}
    f = Freezer()
    f.add(("test", "", o) for o in [info, *BASE, *objs])
    return f.build()


def evict(name: str, at: float = 0, target: Optional[str] = "n2", candidates: Optional[List[str]] = None,
          by: str = "user", typ: str = "evict", uid: Optional[str] = None) -> dict:
    d: Dict[str, Any] = {"type": typ, "namespace": "default", "pod": name, "uid": uid or "uid-" + name, "node": "n1",
                         "at": at, "gracePeriodSeconds": None, "target": target, "by": by, "rule": "drain",
                         "reason": "test"}
    if candidates:
        d["candidates"] = candidates
    return d


def plan(actions: List[dict], blocked: Optional[List[dict]] = None, shortfall: Optional[List[dict]] = None,
         workloads: Optional[List[dict]] = None, **more: Any):
    doc = {**more, "apiVersion": "evictplan/v1alpha1", "kind": "EvictionPlan", "command": "drain", "now": NOW,
           "actions": actions, "blocked": blocked or [], "shortfall": shortfall or [], "skipped": [],
           "workloads": workloads or [], "warnings": [],
           "cluster": {"context": "test", "server": "https://test.invalid:6443"}}
    return plan_from_document(doc, "plan.json", workloads=True)


def event(name: str, reason: str, note: str, at: float, *, uid: str = "", by: str = "", kind: str = "Pod") -> dict:
    reg = {"kind": kind, "name": name}
    if kind == "Pod":
        reg["namespace"] = "default"
    if uid:
        reg["uid"] = uid
    return {"metadata": {"name": "%s.%d" % (name, at), "namespace": "default"},
            "eventTime": ts(at).replace("Z", ".000000Z"), "reason": reason, "note": note,
            "reportingController": by, "regarding": reg, "type": "Normal"}


def run(p, snap, events=(), *, since: Optional[float] = None, read: float = 600) -> Verification:
    return verify(p, snap, project(events), read_at=T + read, since=None if since is None else T + since)


def only(v: Verification):
    assert len(v.checks) == 1, v.checks
    return v.checks[0]


# --- removals and replacements ------------------------------------------------------------------

@pytest.mark.parametrize("landed, target, candidates, status, text", [
    ("n2", "n2", None, AS_PLANNED, "replacement default/%s-new on n2, Ready" % RS),
    ("n3", "n2", ["n2", "n3"], AS_PLANNED, "replacement default/%s-new on n3, Ready" % RS),   # tied at the top
    ("n4", "n2", ["n2", "n3"], DIFFERS, "replacement default/%s-new on n4, Ready, not on n2 or n3" % RS),
])
def test_the_replacement_is_matched_through_its_owner_and_compared_with_target_and_candidates(
        landed, target, candidates, status, text):
    snap = snapshot(member(RS + "-new", landed, created=12))
    c = only(run(plan([evict(RS + "-old", target=target, candidates=candidates)]), snap))
    assert c.status == status
    assert text in c.observed
    assert ("removedAt", ts(12)) in c.facts     # gone by the time its replacement was created


def test_a_pod_still_running_is_pending_until_due_then_not_evicted():
    snap = snapshot(member(RS + "-old", "n1"))
    p = plan([evict(RS + "-old", at=30)])
    c = only(run(p, snap))               # nothing observed, no --since: the drain has not started
    assert c.status == PENDING and c.differences == ("not yet: still Running on n1 (planned +30s)",)
    c = only(run(p, snap, since=0, read=60))   # started at +0s; +30s plus 60s of slack not over
    assert c.status == PENDING
    c = only(run(p, snap, since=0, read=600))
    assert c.status == DIFFERS and c.differences == ("not evicted: still Running on n1",)


def test_an_eviction_much_later_than_planned_differs():
    snap = snapshot(member(RS + "-a", "n2", created=5), member(RS + "-b", "n2", created=300))
    p = plan([evict(RS + "-old1", at=0), evict(RS + "-old2", at=30)])
    v = run(p, snap)
    first, second = v.checks
    assert v.anchor == T + 5 and first.status == AS_PLANNED   # aligned on the first removal
    assert second.status == DIFFERS
    assert second.differences == ("evicted later: at +4m55s, planned +30s (4m25s later)",)


def test_paired_in_time_order_within_one_owner():
    snap = snapshot(member(RS + "-x", "n3", created=40), member(RS + "-y", "n2", created=10))
    p = plan([evict(RS + "-old1", at=0, target="n2"), evict(RS + "-old2", at=30, target="n3")],)
    v = run(p, snap, [event(RS + "-old2", "Killing", "Stopping container app", 35, uid="uid-%s-old2" % RS,
                            by="kubelet")])
    assert [dict(c.facts)["replacement"]["pod"] for c in v.checks] == [RS + "-y", RS + "-x"]
    assert [c.status for c in v.checks] == [AS_PLANNED, AS_PLANNED]


def test_removed_by_another_component_than_planned_differs():
    snap = snapshot(member(RS + "-old", "n1", phase="Failed", ready=False), member(RS + "-new", "n2", created=20))
    ev = event(RS + "-old", "Evicted", "The node was low on resource: memory.", 15, uid="uid-%s-old" % RS,
               by="kubelet")
    c = only(run(plan([evict(RS + "-old")]), snap, [ev]))
    assert c.status == DIFFERS
    assert c.differences == ("evicted by kubelet, not by user as planned",)
    assert any(e.reason == "Evicted" and e.by == "kubelet" for e in c.evidence)


def test_a_statefulset_replacement_keeps_the_name_with_a_new_uid():
    snap = snapshot(member("db-0", "n3", kind="StatefulSet", of="db", uid="uid-db-0-new", created=40))
    c = only(run(plan([evict("db-0", target="n3", uid="uid-db-0")]), snap))
    assert c.status == AS_PLANNED and dict(c.facts)["replacement"]["uid"] == "uid-db-0-new"


# (owner kind, the replacement's creation, status, differences), with no Event left (events.k8s.io
# keeps them an hour by default, --event-ttl): the replacement's creation is all that dates the
# eviction. A ReplicaSet replaces a pod as soon as it is marked for deletion; a StatefulSet recreates
# the name only once the old pod finished terminating, up to its grace period (120s here) after
# the eviction (pkg/controller/replicaset, pkg/controller/statefulset).
LATE_BY_REPLACEMENT = [
    ("StatefulSet", 121, AS_PLANNED, ()),
    ("StatefulSet", 421, DIFFERS, ("evicted later: at +5m1s, planned +0s (5m1s later)",)),
    ("ReplicaSet", 121, DIFFERS, ("evicted later: at +2m1s, planned +0s (2m1s later)",)),
]


@pytest.mark.parametrize("kind, created, status, diff", LATE_BY_REPLACEMENT, ids=["sts-grace", "sts-late", "rs-late"])
def test_a_statefulset_replacement_dates_the_eviction_up_to_the_grace_period(kind, created, status, diff):
    name, of = ("db-0", "db") if kind == "StatefulSet" else (RS + "-new", RS)
    new = member(name, "n2", kind=kind, of=of, uid="uid-new", created=created)
    new["spec"]["terminationGracePeriodSeconds"] = 120
    act = dict(evict("db-0" if kind == "StatefulSet" else RS + "-old", uid="uid-old"),
               owner={"kind": kind, "name": of, "uid": "uid-" + of})
    c = only(run(plan([act]), snapshot(new), since=0))
    assert (c.status, c.differences) == (status, diff)


# (when verify reads, status, the difference). A pod's name is unique while its object exists: the
# StatefulSet recreates db-0 only once the old pod finished terminating, at the latest at its
# deletionTimestamp (the end of its grace period, 600s here; pkg/controller/statefulset). Before
# then its missing replacement is pending, and so is the StatefulSet's ready count; long after,
# both differ.
STS_TERMINATING = [
    (150, PENDING, "no replacement yet: default/db-0 is still terminating (deletionTimestamp +10m (%s)), and the "
                   "StatefulSet recreates it only once it is gone" % ts(600)),
    (700, DIFFERS, "no replacement: StatefulSet default/db created no new pod: default/db-0 is still terminating "
                   "(deletionTimestamp +10m (%s)), and the StatefulSet recreates it only once it is gone" % ts(600)),
]


@pytest.mark.parametrize("read, status, diff", STS_TERMINATING, ids=["in-grace", "overdue"])
def test_a_statefulset_replacement_waits_for_the_old_pod_to_finish_terminating(read, status, diff):
    old = member("db-0", "n1", kind="StatefulSet", of="db", uid="uid-db-0", deleted=600)
    old["spec"]["terminationGracePeriodSeconds"] = 600
    act = dict(evict("db-0", target="n3", uid="uid-db-0"), owner={"kind": "StatefulSet", "name": "db", "uid": "uid-db"})
    killing = event("db-0", "Killing", "Stopping container db", 0, uid="uid-db-0", by="kubelet")
    wl = {"kind": "StatefulSet", "namespace": "default", "name": "db", "ready": 1, "readyMin": 0, "readyMinAt": 0,
          "readyAfter": 1}
    c, w = run(plan([act], workloads=[wl]), snapshot(old, read=read), [killing], since=0, read=read).checks
    assert (c.status, c.differences) == (status, (diff,))
    assert w.status == status


def test_a_terminating_pod_has_gone_and_its_replacement_is_matched():
    snap = snapshot(member(RS + "-old", "n1", deleted=40), member(RS + "-new", "n2", created=11))
    c = only(run(plan([evict(RS + "-old")]), snap))
    assert c.status == AS_PLANNED and dict(c.facts)["state"] == "terminating"


def test_a_replacement_without_an_owner_in_the_cluster_is_unknown():
    snap = snapshot()
    c = only(run(plan([evict("api-6d4b-zz9qk")]), snap))
    assert c.status == UNKNOWN
    assert c.differences[0].startswith("replacement not matched: no ReplicaSet, Job or ReplicationController named "
                                       "default/api-6d4b")


# A plan written before actions carried `owner`: the owner is told by the pod's name. A
# StatefulSet names its pods SET-ORDINAL (pkg/controller/statefulset stateful_set_utils.go
# getPodName), so db-0 gone and not recreated ten minutes on is the StatefulSet db's missing
# replacement, a difference; a name that is no StatefulSet's pod stays unmatched.
@pytest.mark.parametrize("name, status, diff", [
    ("db-0", DIFFERS, "no replacement: StatefulSet default/db created no new pod"),
    ("db-x", UNKNOWN, "replacement not matched: no ReplicaSet, Job or ReplicationController named default/db"),
    ("cache-0", UNKNOWN, "replacement not matched: no ReplicaSet, Job or ReplicationController named "
                         "default/cache and no StatefulSet pod default/cache-0"),
])
def test_an_old_plans_statefulset_pod_not_recreated_is_found_by_its_name(name, status, diff):
    p = plan([evict(name)], workloads=[])
    c = only(run(p, snapshot(), [event(name, "Killing", "Stopping container app", 5, uid="uid-" + name,
                                       by="kubelet")]))
    assert c.status == status
    assert c.differences[0].startswith(diff), c.differences


def test_a_pending_replacement_carries_the_schedulers_text_and_old_events_do_not_count():
    why = "0/4 nodes are available: 1 node(s) were unschedulable, 3 Insufficient cpu."
    snap = snapshot(member(RS + "-new", "", uid="uid-new", created=5))
    events = [event(RS + "-new", "FailedScheduling", "stale text from before the plan", -600, uid="uid-new"),
              event(RS + "-new", "FailedScheduling", why, 6, uid="uid-new", by="default-scheduler")]
    c = only(run(plan([evict(RS + "-old")]), snap, events))
    assert c.status == DIFFERS
    assert c.differences == ("replacement default/%s-new Pending, planned on n2: %s" % (RS, why),)
    assert [e.text for e in c.evidence if e.reason == "FailedScheduling"] == [why]


# --- blocked and shortfall ----------------------------------------------------------------------

def blocked(name: str, code: str = "pdb-budget") -> dict:
    return {"namespace": "default", "pod": name, "node": "n1", "code": code, "reason": "budget spent"}


def test_a_blocked_pod_still_there_is_as_planned_and_gone_after_all_differs():
    still = snapshot(member("db-0", "n1", kind="StatefulSet", of="db"))
    assert only(run(plan([], blocked=[blocked("db-0")]), still)).status == AS_PLANNED
    later = snapshot(member("db-0", "n2", kind="StatefulSet", of="db", uid="uid-db-0-new", created=400))
    c = only(run(plan([], blocked=[blocked("db-0")]), later))
    assert c.status == DIFFERS
    assert c.differences[0] == "removed after all %s" % ts(400)   # nothing of the plan aligns the clock
    assert "replacement default/db-0 on n2, Ready" in c.differences


def test_a_shortfall_replacement_still_pending_is_as_planned_and_one_that_landed_differs():
    why = "0/4 nodes are available: 4 Insufficient memory."
    entry = {"namespace": "default", "pod": RS + "-old", "node": "n1", "code": "no-node-fits", "reason": why}
    p = plan([evict(RS + "-old", target=None)], shortfall=[entry])
    pending = snapshot(member(RS + "-new", "", uid="uid-new", created=5))
    v = run(p, pending, [event(RS + "-new", "FailedScheduling", why, 6, uid="uid-new", by="default-scheduler")])
    assert [c.status for c in v.checks] == [AS_PLANNED, AS_PLANNED]
    assert why in v.checks[1].observed
    landed = snapshot(member(RS + "-new", "n4", uid="uid-new", created=5))
    v = run(p, landed)
    assert [c.status for c in v.checks] == [AS_PLANNED, DIFFERS]
    assert v.checks[1].differences == ("a replacement landed after all: default/%s-new on n4, Ready" % RS,)


# --- node edits -------------------------------------------------------------------------------

def taint(key: str, effect: str = "NoExecute", at: float = 50, value: str = "") -> dict:
    return {"type": "taint", "node": "n2", "key": key, "value": value, "effect": effect, "at": at,
            "by": "node-lifecycle-controller", "rule": "controller", "reason": "test"}


UNREACHABLE = "node.kubernetes.io/unreachable"


@pytest.mark.parametrize("taints, since, status, diff", [
    ([{"key": UNREACHABLE, "effect": "NoExecute", "timeAdded": ts(52)}], 0, AS_PLANNED, ()),
    ([{"key": UNREACHABLE, "effect": "NoExecute", "timeAdded": ts(200)}], 0, DIFFERS,
     ("added later: at +3m20s, planned +50s (2m30s later)",)),
    ([], 0, DIFFERS, ("not present",)),
    ([{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute", "timeAdded": ts(52)}], 0, DIFFERS,
     ("not present (the node has node.kubernetes.io/not-ready:NoExecute)",)),
    ([{"key": UNREACHABLE, "value": "x", "effect": "NoExecute"}], 0, DIFFERS,
     ("%s=x:NoExecute instead" % UNREACHABLE,)),
    ([], None, PENDING, ("not yet: not present (planned +50s)",)),
])
def test_taints_are_compared_with_the_node_and_their_time_added(taints, since, status, diff):
    n2 = node("n2", taints=taints)
    snap = snapshot(n2)
    c = only(run(plan([taint(UNREACHABLE)]), snap, since=since))
    assert (c.status, c.differences) == (status, diff)


# (planned taint key and time, the node's Ready now and since when, its taints, status, difference).
# The node lifecycle controller's taints follow Ready: False gives not-ready, Unknown unreachable
# (swapped atomically), True removes both (shared/spec/semantics.md C.3-C.4,
# pkg/controller/nodelifecycle). A taint absent because Ready changed after its time cannot be told
# from the cluster now (a graceful shutdown powers the node off: not-ready becomes unreachable; a
# failed node that came back loses both); one absent while Ready still calls for it differs.
READY_TAINTS = [
    (UNREACHABLE, 50, "True", 200, [], UNKNOWN,
     "not present now: node n2 is Ready=True since +3m20s (%s); the node lifecycle controller then removes it"
     % ts(200)),
    ("node.kubernetes.io/not-ready", 5, "Unknown", 80, [{"key": UNREACHABLE, "effect": "NoExecute", "timeAdded": ts(85)}],
     UNKNOWN, "not present now: node n2 is Ready=Unknown since +1m20s (%s); the node lifecycle controller then swaps "
     "it for %s:NoExecute" % (ts(80), UNREACHABLE)),
    (UNREACHABLE, 50, "Unknown", 45, [], DIFFERS, "not present"),       # Ready still calls for it
    (UNREACHABLE, 50, "True", 30, [], DIFFERS, "not present"),          # back before the taint was due
]


@pytest.mark.parametrize("key, at, ready, since, taints, status, diff", READY_TAINTS,
                         ids=["back", "swapped", "still-unknown", "back-before"])
def test_a_ready_taint_gone_with_a_later_ready_change_is_unknown(key, at, ready, since, taints, status, diff):
    n2 = node("n2", taints=taints, ready=ready)
    n2["status"]["conditions"][0]["lastTransitionTime"] = ts(since)
    c = only(run(plan([taint(key, at=at)]), snapshot(n2), since=0))
    assert (c.status, c.differences) == (status, (diff,))


# The out-of-service taint of a non-graceful shutdown (KEP-2268) is the operator's: once the pods
# moved and the node has recovered, the operator removes it by hand (kubernetes.io blog 2023-08-16,
# "Kubernetes 1.28: Non-Graceful Node Shutdown Moves to GA"). Gone with the node Ready again since
# after its time, the cluster cannot tell whether it was there: unknown, not a difference. Gone
# while the node is still down, or Ready since before the taint was due, it differs.
@pytest.mark.parametrize("ready, since, status, diff", [
    ("True", 300, UNKNOWN, "not present now: node n2 is Ready=True since +5m (%s); the out-of-service taint is "
                           "removed by hand once the node has recovered" % ts(300)),
    ("Unknown", -60, DIFFERS, "not present"),
    ("True", -600, DIFFERS, "not present"),
])
def test_an_out_of_service_taint_removed_once_the_node_recovered_is_unknown(ready, since, status, diff):
    n2 = node("n2", ready=ready)
    n2["status"]["conditions"][0]["lastTransitionTime"] = ts(since)
    oos = dict(taint("node.kubernetes.io/out-of-service", at=0, value="nodeshutdown"), by="user", rule="shutdown")
    c = only(run(plan([oos]), snapshot(n2), since=0))
    assert (c.status, c.differences) == (status, (diff,))


def test_a_cordon_seen_by_its_event_stays_as_planned_after_the_uncordon():
    cordon = {"type": "cordon", "node": "n2", "at": 0, "by": "user", "rule": "drain", "reason": "t"}
    p = plan([cordon])
    assert only(run(p, snapshot(node("n2", unschedulable=True)))).status == AS_PLANNED
    assert only(run(p, snapshot(), since=0)).differences == ("not cordoned (spec.unschedulable is false)",)
    events = [event("n2", "NodeNotSchedulable", "Node n2 status is now: NodeNotSchedulable", 2, kind="Node",
                    by="kubelet"),
              event("n2", "NodeSchedulable", "Node n2 status is now: NodeSchedulable", 900, kind="Node",
                    by="kubelet")]
    c = only(run(p, snapshot(), events, read=1000))
    assert c.status == AS_PLANNED and "uncordoned since +14m58s (%s)" % ts(900) in c.observed


def test_labels_are_compared_with_the_node():
    label = {"type": "label", "node": "n2", "key": "disk", "value": "ssd", "at": 0, "by": "user", "rule": "affinity",
             "reason": "t", "previous": None}
    assert only(run(plan([label]), snapshot(node("n2", labels={"disk": "ssd"})))).status == AS_PLANNED
    c = only(run(plan([label]), snapshot(node("n2", labels={"disk": "hdd"})), since=0))
    assert c.status == DIFFERS and c.differences == ("disk is 'hdd'",)


# --- workloads and the verdict ------------------------------------------------------------------

WEB = {"kind": "Deployment", "namespace": "default", "name": "web", "ready": 2, "readyMin": 1, "readyMinAt": 0,
       "readyAfter": 2}


@pytest.mark.parametrize("pods, read, status", [
    ([member(RS + "-a", "n2"), member(RS + "-b", "n3")], 600, AS_PLANNED),
    ([member(RS + "-a", "n2"), member(RS + "-b", "n3", ready=False)], 600, DIFFERS),
    ([member(RS + "-a", "n2"), member(RS + "-b", "n3", ready=False)], 60, PENDING),
    ([member(RS + "-a", "n2"), member(RS + "-b", "n3"), member(RS + "-c", "n4")], 600, DIFFERS),
])
def test_workloads_ready_now_against_ready_after(pods, read, status):
    c = only(run(plan([], workloads=[WEB]), snapshot(*pods, read=read), since=0, read=read))
    assert c.status == status


@pytest.mark.parametrize("since, read, status, diff", [
    # the plan expects one ready replica after (its other pod has nowhere to go); two are ready:
    # before anything of the plan happened, or before its end, that is not a difference yet
    (None, 600, PENDING, ("2 ready now, 1 planned once the plan has run",)),
    (0, 60, PENDING, ("2 ready now, 1 planned once the plan has run",)),
    (0, 600, DIFFERS, ("2 ready now, more than the 1 planned",)),
])
def test_more_ready_replicas_than_planned_differ_only_once_due(since, read, status, diff):
    short = dict(WEB, readyMin=1, readyAfter=1)
    pods = [member(RS + "-a", "n2"), member(RS + "-b", "n3")]
    c = only(run(plan([], workloads=[short]), snapshot(*pods, read=read), since=since, read=read))
    assert (c.status, c.differences) == (status, diff)


def test_a_workload_gone_from_the_cluster_is_unknown():
    gone = dict(WEB, name="api")
    assert only(run(plan([], workloads=[gone]), snapshot())).status == UNKNOWN


def test_exit_codes_follow_the_worst_status():
    snap = snapshot(member(RS + "-new", "n2", created=12), member(RS + "-stay", "n1"))
    ok = run(plan([evict(RS + "-old")]), snap)
    assert exit_code(ok) == 0
    pending = run(plan([evict(RS + "-old"), evict(RS + "-stay", at=3000, uid="uid-%s-stay" % RS)]), snap)
    assert [c.status for c in pending.checks] == [AS_PLANNED, PENDING] and exit_code(pending) == 4
    differs = run(plan([evict(RS + "-old", target="n3")]), snap)
    assert exit_code(differs) == 3


def test_core_v1_style_events_are_read_through_their_deprecated_fields():
    raw = {"metadata": {"name": "x", "namespace": "default"}, "reason": "TaintManagerEviction",
           "note": "Marking for deletion Pod default/p", "regarding": {"kind": "Pod", "namespace": "default",
                                                                       "name": "p"},
           "deprecatedSource": {"component": "taint-controller"}, "deprecatedFirstTimestamp": ts(10),
           "deprecatedLastTimestamp": ts(20), "deprecatedCount": 3, "eventTime": None}
    [ev] = project([raw, {"metadata": {}, "reason": "NoTime", "regarding": {"name": "q"}}, "junk"])
    assert (ev.by, ev.first, ev.last, ev.count, ev.uid) == ("taint-controller", T + 10, T + 20, 3, "")


def test_the_same_input_gives_the_same_verdicts():
    snap = snapshot(member(RS + "-new", "n4", created=12))
    p = plan([evict(RS + "-old")], workloads=[WEB])
    assert run(p, snap) == run(p, snap)


def test_a_pod_in_actions_and_in_shortfall_gets_one_replacement():
    entry = {"namespace": "default", "pod": RS + "-old", "node": "n1", "code": "no-node-fits", "reason": "x"}
    snap = snapshot(member(RS + "-a", "", uid="uid-a", created=5), member(RS + "-b", "n2", uid="uid-b", created=6))
    p = plan([evict(RS + "-old", target=None), evict(RS + "-other", at=10)], shortfall=[entry])
    v = run(p, snap)
    assert dict(v.checks[2].facts)["replacement"]["pod"] == RS + "-a"
    assert dict(v.checks[1].facts)["replacement"]["pod"] == RS + "-b"


def test_a_pressure_forecast_kill_the_kubelet_really_did():
    # the kubelet's eviction manager leaves the pod in phase Failed (reason Evicted) and records Evicted
    kill = evict(RS + "-old", at=10, typ="kill", by="kubelet", target="n2")
    snap = snapshot(member(RS + "-old", "n1", phase="Failed", ready=False), member(RS + "-new", "n2", created=14))
    ev = event(RS + "-old", "Evicted", "The node was low on resource: memory. Threshold quantity: 100Mi, "
               "available: 80Mi.", 12, uid="uid-%s-old" % RS, by="kubelet")
    c = only(run(plan([kill]), snap, [ev], since=0))
    assert c.status == AS_PLANNED
    assert dict(c.facts)["state"] == "finished" and dict(c.facts)["removedBy"] == "kubelet"
    assert dict(c.facts)["removedAfter"] == 12


# (the pod's Events after the plan's +0s, the replacement's creation, status, differences, removedBy).
# A graceful shutdown's kubelet stops the pod (phase Failed, reason Terminated; pkg/kubelet/nodeshutdown)
# and its ReplicaSet replaces it at once; minutes later the taint-eviction controller, which gives
# terminal pods no special treatment (pkg/controller/tainteviction), deletes the stopped pod's object
# with a TaintManagerEviction Event. That deletion is cleanup, not the kill: the kubelet's Killing and
# the replacement came first. A TaintManagerEviction that came first is the removal.
SHUTDOWN_KILL = [
    ([("Killing", "Stopping container app", 0, "kubelet"),
      ("TaintManagerEviction", "Marking for deletion Pod default/%s-old" % RS, 305, "taint-eviction-controller")],
     20, AS_PLANNED, (), None),
    ([("TaintManagerEviction", "Marking for deletion Pod default/%s-old" % RS, 2, "taint-eviction-controller")],
     3, DIFFERS, ("killed by taint-eviction-controller, not by kubelet as planned",), "taint-eviction-controller"),
]


@pytest.mark.parametrize("events, created, status, diff, removed_by", SHUTDOWN_KILL, ids=["cleanup-later", "first"])
def test_a_removal_event_after_the_pod_had_gone_does_not_name_its_remover(events, created, status, diff,
                                                                          removed_by):
    kill = dict(evict(RS + "-old", at=0, typ="kill", by="kubelet", target="n2"), gracePeriodSeconds=20)
    snap = snapshot(member(RS + "-new", "n2", created=created))
    evs = [event(RS + "-old", reason, note, t, by=by) for reason, note, t, by in events]
    c = only(run(plan([kill], command="shutdown"), snap, evs, read=600, since=0))
    assert (c.status, c.differences, dict(c.facts).get("removedBy")) == (status, diff, removed_by)
    assert any(e.reason == "TaintManagerEviction" for e in c.evidence)      # still shown as evidence


def down(name: str, since: float) -> dict:
    n = node(name, ready="Unknown")
    n["status"]["conditions"][0].update(reason="NodeStatusUnknown", message="Kubelet stopped posting node status.",
                                        lastTransitionTime=ts(since))
    return n


# (the node now, the pod now, its Events, the kill's status and what it says). A node shut down
# without graceful shutdown stops its containers with it and updates nothing: the pod object stays
# Running until the taint-eviction controller deletes it (the plan's own later `delete`), and the
# node turns Ready=Unknown after --node-monitor-grace-period (pkg/controller/nodelifecycle). The
# plan's reason says so ("the pod object stays Running until the controllers act"). A graceful
# shutdown or an eviction leaves the pod Failed (pkg/kubelet/nodeshutdown, pkg/kubelet/eviction).
TME = ("TaintManagerEviction", "Marking for deletion Pod default/%s-old" % RS, 350, "taint-eviction-controller")
KILL_ON_A_DOWN_NODE = [
    (down("n1", 50), dict(), [], AS_PLANNED,
     "stopped with node n1, down since +50s (%s) (Ready=Unknown): a node that is down updates none of its pods' "
     "objects" % ts(50)),
    (down("n1", 50), dict(deleted=380), [TME], AS_PLANNED,
     "stopped with node n1, down since +50s (%s) (Ready=Unknown): a node that is down updates none of its pods' "
     "objects" % ts(50)),
    (node("n1"), dict(), [], DIFFERS, "not killed: still Running on n1"),
    (down("n1", 50), dict(phase="Failed", ready=False), [], AS_PLANNED, "finished (Failed) (no event says when)"),
    # a graceful shutdown: the kubelet stopped it (Killing) before the node went down; the object
    # was deleted later: the pod object tells, as for any removal
    (down("n1", 80), None, [("Killing", "Stopping container app", 0, "kubelet"), TME], AS_PLANNED,
     "gone +0s (%s)" % ts(0)),
]


@pytest.mark.parametrize("n1, state, events, status, observed", KILL_ON_A_DOWN_NODE,
                         ids=["running", "deleted-later", "node-up", "failed", "stopped-before"])
def test_a_kill_on_a_node_that_went_down_is_told_by_the_node(n1, state, events, status, observed):
    kill = dict(evict(RS + "-old", at=0, typ="kill", by="kubelet", target=None), gracePeriodSeconds=0)
    delete = evict(RS + "-old", at=350, typ="delete", by="taint-eviction-controller", target="n2")
    f = Freezer()
    info = {"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
            "takenAt": ts(600), "context": "test", "server": "https://test.invalid:6443"}
    f.add(("test", "", o) for o in [info, n1, *BASE[1:]] + ([member(RS + "-old", "n1", **state)] if state is not None
                                                             else []))
    v = run(plan([kill, delete], command="shutdown"), f.build(), [event(RS + "-old", *e[:3], by=e[3]) for e in events],
            since=0)
    c = v.checks[0]
    assert (c.status, c.observed) == (status, observed)


def test_a_detach_is_done_once_the_volume_attachment_is_gone_or_elsewhere():
    detach = {"type": "detach", "volumeAttachment": "csi-1", "node": "n1", "at": 360,
              "by": "attach-detach-controller", "rule": "shutdown", "reason": "t"}
    va = {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": "csi-1"},
          "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "n1", "source": {"persistentVolumeName": "pv-1"}},
          "status": {"attached": True}}
    # gone from a read that lists every VolumeAttachment (a live read does): detached
    assert only(run(plan([detach]), _read(["Node", "Pod", "VolumeAttachment"]))).status == AS_PLANNED
    # none read because the role may not list them (a 403 leaves the kind out): not known
    c = only(run(plan([detach]), _read(["Node", "Pod"])))
    assert (c.status, c.observed) == (UNKNOWN, "VolumeAttachment csi-1 was not read (the read holds no "
                                               "VolumeAttachment: the role may not list them)")
    assert only(run(plan([detach]), snapshot(va), since=0, read=100)).status == PENDING
    c = only(run(plan([detach]), snapshot(va, read=1000), since=0, read=1000))
    assert (c.status, c.differences) == (DIFFERS, ("still attached to n1",))


def test_what_the_plans_input_lacked_is_said_next_to_the_verdicts():
    doc_plan = plan([evict(RS + "-old")])
    from kubectl_evict.plan import Incomplete
    from pyrsistent import pvector
    p = doc_plan.set(incomplete=pvector([Incomplete(kind="PodDisruptionBudget", effect="budgets not checked")]))
    v = run(p, snapshot(member(RS + "-new", "n2", created=12)))
    assert v.warnings == ("the plan was made without PodDisruptionBudget (budgets not checked): a difference may "
                          "come from what its input lacked",)


def test_a_cordon_much_later_than_the_start_differs():
    cordon = {"type": "cordon", "node": "n2", "at": 0, "by": "user", "rule": "drain", "reason": "t"}
    ev = event("n2", "NodeNotSchedulable", "Node n2 status is now: NodeNotSchedulable", 200, kind="Node", by="kubelet")
    c = only(run(plan([cordon]), snapshot(node("n2", unschedulable=True)), [ev], since=0))
    assert (c.status, c.differences) == (DIFFERS, ("cordoned later: at +3m20s, planned +0s (3m20s later)",))


# kubectl drain evicts only once its cordon succeeded (staging/src/k8s.io/kubectl/pkg/cmd/drain
# RunDrain), and a maintenance ends with an uncordon. With the NodeNotSchedulable Event expired
# (kube-apiserver --event-ttl, 1h by default), a node schedulable now whose drain evictions happened
# was cordoned and uncordoned since: unknown, not "not cordoned". A drain that never ran differs.
@pytest.mark.parametrize("old_pod_left, unschedulable, status, diff", [
    (False, False, UNKNOWN, "not cordoned now (spec.unschedulable is false), and no NodeNotSchedulable event is "
                            "left to tell: the evictions from n5 that follow the cordon happened, so it was "
                            "uncordoned since"),
    (True, False, DIFFERS, "not cordoned (spec.unschedulable is false)"),
    (False, True, AS_PLANNED, None),
])
def test_an_uncordon_after_the_drain_with_no_event_left_is_unknown(old_pod_left, unschedulable, status, diff):
    cordon = {"type": "cordon", "node": "n5", "at": 0, "by": "user", "rule": "drain", "reason": "t"}
    p = plan([cordon, dict(evict(RS + "-old"), node="n5")])
    objs = [node("n5", unschedulable=unschedulable), member(RS + "-new", "n2", created=10)]
    if old_pod_left:
        objs[1] = member(RS + "-old", "n5")
    c = run(p, snapshot(*objs), since=0).checks[0]
    assert c.status == status
    assert c.differences == ((diff,) if diff else ())


def test_a_pod_evicted_again_from_a_node_does_not_tell_that_node_was_drained():
    # db-0 went from n1 and its replacement runs on n5, the next node of a one-at-a-time drain:
    # the eviction again from n5 (no uid) has not happened, so n5's missing cordon still differs
    cordon = {"type": "cordon", "node": "n5", "at": 30, "by": "user", "rule": "drain", "reason": "t"}
    again = dict(evict("db-0", at=30, target="n3"), uid="", node="n5")
    p = plan([evict("db-0", target="n5"), cordon, again])
    snap = snapshot(node("n5"), member("db-0", "n5", kind="StatefulSet", of="db", uid="uid-db-0-new", created=5))
    c = run(p, snap, since=0).checks[1]
    assert (c.status, c.differences) == (DIFFERS, ("not cordoned (spec.unschedulable is false)",))


def test_a_node_replaced_under_the_same_name_is_unknown():
    label = {"type": "label", "node": "n2", "key": "disk", "value": "ssd", "at": 0, "by": "user", "rule": "affinity",
             "reason": "t", "previous": None, "uid": "uid-n2-before"}
    c = only(run(plan([label]), snapshot(node("n2", labels={"disk": "ssd"}))))
    assert c.status == UNKNOWN and c.differences == (
        "node n2 was replaced since the plan was made (uid uid-n2, planned uid-n2-before)",)


def test_the_owner_the_plan_recorded_matches_a_pod_whose_name_says_nothing():
    act = dict(evict("api-primary"), owner={"kind": "ReplicaSet", "name": RS, "uid": "uid-" + RS})
    c = only(run(plan([act]), snapshot(member(RS + "-new", "n2", created=12))))
    assert c.status == AS_PLANNED and dict(c.facts)["replacement"]["pod"] == RS + "-new"
    without = only(run(plan([evict("api-primary")]), snapshot(member(RS + "-new", "n2", created=12))))
    assert without.status == UNKNOWN


# --- the anchor: the plan's +0s without --since ----------------------------------------------------

NOT_SCHEDULABLE = "Node n1 status is now: NodeNotSchedulable"


@pytest.mark.parametrize("second_gone, statuses, second_diff", [
    # kubectl drain evicts every pod at once and retries the PDB refusals; the plan's second wave
    # (+2m) found its budget at once and went one second after the cordon: early is as planned,
    # and it must not drag +0s back so that the cordon and the first eviction look two minutes late
    (101, [AS_PLANNED, AS_PLANNED, AS_PLANNED], ()),
    (221, [AS_PLANNED, AS_PLANNED, AS_PLANNED], ()),          # on time, give or take a second
    (400, [AS_PLANNED, AS_PLANNED, DIFFERS], ("evicted later: at +5m, planned +2m (3m later)",)),
])
def test_the_plans_start_is_the_earliest_effect_seen_aligned_with_its_planned_time(second_gone, statuses,
                                                                                    second_diff):
    cordon = {"type": "cordon", "node": "n1", "at": 0, "by": "user", "rule": "drain", "reason": "t"}
    p = plan([cordon, evict(RS + "-old1", at=0, target="n2"), evict(RS + "-old2", at=120, target="n3")])
    snap = snapshot(member(RS + "-new1", "n2", created=100.5), member(RS + "-new2", "n3", created=second_gone))
    v = run(p, snap, [event("n1", "NodeNotSchedulable", NOT_SCHEDULABLE, 100, kind="Node", by="kubelet")])
    assert v.anchor == T + 100, v.anchor_source           # the cordon, seen first, planned at +0s
    assert [c.status for c in v.checks] == statuses
    assert v.checks[2].differences == second_diff


# The kubelet's `Killing` Event also stops one container it restarts at once; its note says so
# (pkg/kubelet/kuberuntime/kuberuntime_manager.go computePodActions: "Container C failed liveness
# probe, will be restarted", startup probe and "definition changed" alike; "Container is in
# \"unknown\" state, try killing it before restart"). The pod stays: such an Event half an hour
# before the drain neither dates the pod's removal nor starts the plan's clock. Only "Stopping
# container C" (killContainer's own note) is the pod going.
@pytest.mark.parametrize("note, anchor, statuses", [
    ("Container app failed liveness probe, will be restarted", 1800, [AS_PLANNED, AS_PLANNED]),
    ("Container app failed startup probe, will be restarted", 1800, [AS_PLANNED, AS_PLANNED]),
    ("Container app definition changed, will be restarted", 1800, [AS_PLANNED, AS_PLANNED]),
    ('Container is in "unknown" state, try killing it before restart', 1800, [AS_PLANNED, AS_PLANNED]),
    ("Stopping container app", 60, [AS_PLANNED, DIFFERS]),     # the pod itself went at +60s
])
def test_a_container_restart_is_not_the_pod_going(note, anchor, statuses):
    p = plan([evict(RS + "-old1", at=0, target="n2"), evict(RS + "-old2", at=0, target="n2")])
    snap = snapshot(member(RS + "-new1", "n2", created=1800), member(RS + "-new2", "n2", created=1801),
                    read=2000)
    v = run(p, snap, [event(RS + "-old1", "Killing", note, 60, uid="uid-%s-old1" % RS, by="kubelet"),
                      event(RS + "-old2", "Killing", "Stopping container app", 1800, uid="uid-%s-old2" % RS,
                            by="kubelet")], read=2000)
    assert v.anchor == T + anchor, v.anchor_source
    assert [c.status for c in v.checks] == statuses


# drain --one-at-a-time / upgrade evict a replacement again, named by the first pod with no uid
# (README, verify: "followed to its last node"). Midway, the StatefulSet's new db-0 runs on the
# node the second eviction takes it from: that eviction has not happened, pending until its time
# (+30s) plus the slack has passed, then "not evicted again" (DESIGN verify: pending = not happened
# yet, not yet due; differs = not evicted); once it went, the last replacement is compared with
# the last target.
@pytest.mark.parametrize("landed, created, read, second, diff", [
    ("n2", 5, 20, PENDING, "not yet: not evicted again: default/db-0 is still Running on n2 (planned +30s)"),
    ("n2", 5, 600, DIFFERS, "not evicted again: default/db-0 is still Running on n2"),
    ("n3", 40, 600, AS_PLANNED, None),
    ("n4", 40, 600, DIFFERS, "replacement default/db-0 on n4, Ready, not on n3"),
])
def test_a_pod_evicted_twice_is_followed_and_its_second_eviction_waits_its_turn(landed, created, read, second,
                                                                                 diff):
    again = dict(evict("db-0", at=30, target="n3"), uid="", node="n2")
    p = plan([evict("db-0", target="n2"), again])
    snap = snapshot(member("db-0", landed, kind="StatefulSet", of="db", uid="uid-db-0-new", created=created),
                    read=read)
    first, last = run(p, snap, since=0, read=read).checks
    assert first.status == AS_PLANNED
    assert last.status == second
    assert last.differences == ((diff,) if diff else ())


# --- who removed it ---------------------------------------------------------------------------------

TAINT_MARK = ("TaintManagerEviction", "Marking for deletion Pod default/%s-old" % RS, "taint-eviction-controller")
KUBELET_EVICTED = ("Evicted", "The node was low on resource: memory.", "kubelet")


@pytest.mark.parametrize("planned_by, seen, status, diff", [
    # non-graceful shutdown (KEP-2268): the taint-eviction controller marks the pods of the
    # out-of-service node for deletion (its Event), then pod GC's gcTerminating force-deletes them,
    # recording no Event of its own: the plan's `by: pod-gc` happened as planned
    ("pod-gc", TAINT_MARK, AS_PLANNED, ()),
    ("pod-gc", KUBELET_EVICTED, DIFFERS, ("deleted by kubelet, not by pod-gc as planned",)),
    ("taint-eviction-controller", TAINT_MARK, AS_PLANNED, ()),
    ("taint-eviction-controller", KUBELET_EVICTED, DIFFERS,
     ("deleted by kubelet, not by taint-eviction-controller as planned",)),
])
def test_the_component_seen_removing_a_pod_is_compared_with_the_one_planned(planned_by, seen, status, diff):
    act = dict(evict(RS + "-old", typ="delete", by=planned_by), gracePeriodSeconds=0, force=True)
    reason, note, by = seen
    snap = snapshot(member(RS + "-new", "n2", created=3))
    c = only(run(plan([act]), snap, [event(RS + "-old", reason, note, 2, by=by)], since=0))
    assert (c.status, c.differences) == (status, diff)


# --- replacements of one owner are interchangeable ----------------------------------------------------

@pytest.mark.parametrize("landed, statuses", [
    # kubectl drain evicts both at once; the ReplicaSet controller creates two new pods, for
    # neither in particular: one on each planned node is as planned, whichever came first
    ([("n3", 1.0), ("n2", 1.2)], [AS_PLANNED, AS_PLANNED]),
    ([("n2", 1.0), ("n3", 1.2)], [AS_PLANNED, AS_PLANNED]),
    # one of them elsewhere: one difference, not two
    ([("n4", 1.0), ("n2", 1.2)], [AS_PLANNED, DIFFERS]),
    ([("n3", 1.0), ("n3", 1.2)], [DIFFERS, AS_PLANNED]),
])
def test_replacements_of_one_owner_are_matched_to_the_planned_nodes_whichever_came_first(landed, statuses):
    p = plan([evict(RS + "-old1", at=0, target="n2"), evict(RS + "-old2", at=0, target="n3")])
    snap = snapshot(*[member("%s-new%d" % (RS, i), n, created=t) for i, (n, t) in enumerate(landed)])
    v = run(p, snap, since=0)
    assert [c.status for c in v.checks] == statuses
    assert sorted(dict(c.facts)["replacement"]["pod"] for c in v.checks) == [RS + "-new0", RS + "-new1"]


def test_the_taint_eviction_controller_s_random_node_order_does_not_make_placements_differ():
    # upstream taints the nodes of a zone in random order: the pod planned second went first, and
    # the first replacement took the node the plan gave the first replacement (the scheduler's
    # best node then), whichever pod it replaced
    p = plan([evict(RS + "-old1", at=22, target="n2", typ="delete", by="taint-eviction-controller"),
              evict(RS + "-old2", at=24, target="n3", typ="delete", by="taint-eviction-controller")])
    events = [event(RS + "-old2", *TAINT_MARK[:2], 23, by=TAINT_MARK[2]),
              event(RS + "-old1", *TAINT_MARK[:2], 25, by=TAINT_MARK[2])]
    snap = snapshot(member(RS + "-a", "n2", created=23.1), member(RS + "-b", "n3", created=25.1))
    v = run(p, snap, events, since=0)
    assert [c.status for c in v.checks] == [AS_PLANNED, AS_PLANNED]
    assert [dict(c.facts)["replacement"]["node"] for c in v.checks] == ["n2", "n3"]
    assert [dict(c.facts)["removedAt"] for c in v.checks] == [ts(25), ts(23)]   # each when it went


def test_a_shortfall_pod_gets_the_pending_replacement_whichever_was_created_first():
    entry = {"namespace": "default", "pod": RS + "-old", "node": "n1", "code": "no-node-fits", "reason": "x"}
    snap = snapshot(member(RS + "-b", "n2", uid="uid-b", created=5), member(RS + "-a", "", uid="uid-a", created=6))
    p = plan([evict(RS + "-old", target=None), evict(RS + "-other", target="n2")], shortfall=[entry])
    v = run(p, snap)
    assert [c.status for c in v.checks] == [AS_PLANNED, AS_PLANNED, AS_PLANNED]
    assert dict(v.checks[2].facts)["replacement"]["pod"] == RS + "-a"
    assert dict(v.checks[1].facts)["replacement"]["pod"] == RS + "-b"


# --- upgrade: nodes the plan adds ----------------------------------------------------------------

def joined(name: str, at: float) -> dict:
    n = node(name)
    n["metadata"]["creationTimestamp"] = ts(at)
    return n


SURGE = [{"node": "n1-surge-1", "batch": 1, "joins": 0.0, "like": "n1"}]


@pytest.mark.parametrize("nodes, landed, status, diff", [
    # the provider names the surge node itself (GKE, EKS, AKS, Cluster API): a node that joined
    # after the plan was made is the plan's `n1-surge-1`
    ([joined("gke-pool-1-7f3a", 20)], "gke-pool-1-7f3a", AS_PLANNED, ()),
    ([joined("gke-pool-1-7f3a", 20)], "n4", DIFFERS,
     ("replacement default/%s-new on n4, Ready, not on n1-surge-1 (a node that joins)" % RS,)),
    ([joined("gke-pool-1-7f3a", -3600)], "gke-pool-1-7f3a", DIFFERS,      # there before the plan: not new
     ("replacement default/%s-new on gke-pool-1-7f3a, Ready, not on n1-surge-1 (a node that joins)" % RS,)),
])
def test_a_replacement_on_a_node_that_joined_since_matches_the_plans_new_node(nodes, landed, status, diff):
    p = plan([evict(RS + "-old", target="n1-surge-1")], newNodes=SURGE)
    c = only(run(p, snapshot(*nodes, member(RS + "-new", landed, created=30)), since=0))
    assert (c.status, c.differences) == (status, diff)


def test_a_pod_already_terminating_when_the_plan_was_made_does_not_start_the_clock():
    # the plan was made while a pod on an unreachable node was stuck terminating (deleted four
    # minutes before): that is not the plan happening; the rest has not happened yet: pending
    stuck = member(RS + "-stuck", "n1", deleted=-230)
    p = plan([evict(RS + "-other", at=0, typ="kill", by="kubelet", target=None),
              evict(RS + "-stuck", at=20, typ="kill", by="kubelet", target=None)])
    v = run(p, snapshot(stuck, member(RS + "-other", "n1")))
    assert v.anchor is None
    assert [c.status for c in v.checks][0] == PENDING and exit_code(v) == 4


def pressed(name: str, status: str) -> dict:
    n = node(name)
    n["status"]["conditions"].append({"type": "MemoryPressure", "status": status, "reason": "KubeletHasInsufficientMemory",
                                      "message": "kubelet has insufficient memory available",
                                      "lastTransitionTime": ts(5)})
    return n


@pytest.mark.parametrize("status, since, expected, diff", [
    ("True", 0, AS_PLANNED, ()),
    ("False", 0, DIFFERS, ("no pressure condition is True now: the pressure cleared",)),
    # a forecast of pressure (`--signal`) that has not begun: nothing to compare yet
    ("False", None, PENDING, ("no pressure condition is True now: not yet under pressure",)),
])
def test_pressure_that_persists_is_compared_once_the_pressure_began(status, since, expected, diff):
    entry = {"namespace": "", "pod": "", "node": "n2", "code": "threshold-persists", "reason": "still met"}
    p = plan([evict(RS + "-old", at=10, typ="kill", by="kubelet", target=None)], shortfall=[entry])
    v = run(p, snapshot(pressed("n2", status), member(RS + "-old", "n1")), since=since)
    c = v.checks[1]
    assert (c.status, c.differences) == (expected, diff)


# --- what the read could not list -----------------------------------------------------------------

# A live read leaves out a kind its role may not list (403: a warning, and SnapshotInfo.kinds does
# not claim it). An object of that kind that is not found is then not known to be gone (DESIGN.md:
# a plan, and so its verification, never asserts the absence of what its input does not hold):
# still `unknown`, but said as "was not read", not "is no longer in the cluster".
def _read(kinds: List[str], *objs: dict):
    info = {"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
            "takenAt": ts(600), "context": "test", "server": "https://test.invalid:6443", "kinds": kinds}
    f = Freezer()
    f.add(("test", "", o) for o in [info, node("n1", unschedulable=True), node("n2"), *objs])
    return f.build()


@pytest.mark.parametrize("kinds, text", [
    (["Node", "Pod", "ReplicaSet", "Deployment"], "ReplicaSet default/%s is not in the cluster" % RS),
    (["Node", "Pod", "Deployment"], "ReplicaSet default/%s was not read (the read holds no ReplicaSet" % RS),
    (["Node", "Pod", "ReplicaSet"], "Rollout default/%s was not read (Rollout is not a kind verify reads)" % RS),
])
def test_an_owner_the_read_could_not_list_is_not_said_to_be_gone(kinds: List[str], text: str) -> None:
    kind = text.split(" ", 1)[0]
    act = dict(evict("api-primary"), owner={"kind": kind, "name": RS, "uid": "uid-" + RS})
    c = only(run(plan([act]), _read(kinds)))
    assert c.status == UNKNOWN
    assert any(text in d for d in c.differences), c.differences


# A Deployment's pods name its ReplicaSet as their controller, never the Deployment
# (pkg/controller/deployment creates the ReplicaSets, they create the pods): with the Deployment
# read but no ReplicaSet (a 403 on replicasets), its ready pods cannot be counted; "0 ready" is no fact.
@pytest.mark.parametrize("kinds, objs, text", [
    (["Node", "Pod", "ReplicaSet", "Deployment"], [], "Deployment default/web is no longer in the cluster"),
    (["Node", "Pod", "ReplicaSet"], [], "Deployment default/web was not read (the read holds no Deployment"),
    (["Node", "Pod", "Deployment"], [owner("Deployment", "web"), member(RS + "-a", "n2"), member(RS + "-b", "n2")],
     "Deployment default/web: ready replicas not counted: its pods belong to ReplicaSets, and ReplicaSet was not "
     "read (the read holds no ReplicaSet"),
])
def test_a_workload_the_read_could_not_list_is_not_said_to_be_gone(kinds: List[str], objs: List[dict],
                                                                   text: str) -> None:
    c = only(run(plan([], workloads=[WEB]), _read(kinds, *objs)))
    assert c.status == UNKNOWN
    assert c.differences[0].startswith(text), c.differences


# A pod the plan held back by its PDB that went after all: verify says what the budget is now
# (the PDB controller's status). With the PDBs read and none selecting the pod, that is a fact;
# with none read (a 403 on poddisruptionbudgets), "no PodDisruptionBudget covers its pods" is not.
@pytest.mark.parametrize("kinds, text", [
    (["Node", "Pod", "StatefulSet", "PodDisruptionBudget"], "no PodDisruptionBudget covers its pods now"),
    (["Node", "Pod", "StatefulSet"], "PodDisruptionBudgets were not read (the read holds none: the role may not "
                                     "list them)"),
])
def test_a_budget_the_read_could_not_list_is_not_said_to_be_absent(kinds: List[str], text: str) -> None:
    later = _read(kinds, owner("StatefulSet", "db", replicas=1),
                  member("db-0", "n2", kind="StatefulSet", of="db", uid="uid-db-0-new", created=400))
    c = only(run(plan([], blocked=[blocked("db-0")]), later))
    assert c.status == DIFFERS
    assert text in c.differences, c.differences


# --- a Deployment that rolled out during the drain ------------------------------------------------
# The Deployment controller gives every ReplicaSet it makes the Deployment as controller
# (pkg/controller/deployment/sync.go getNewReplicaSet: ControllerRef to the Deployment), and a
# rollout scales the NEW ReplicaSet up as the old ones go down (rolling.go rolloutRolling): the pod
# the drain evicted from the old ReplicaSet is replaced by a pod of the new one. Its creation was the
# rollout's doing, so it does not date the eviction (no removedAt from it).
NEW_RS = "web-8a1b2"
ROLLED = " (from ReplicaSet %s: Deployment web rolled out)" % NEW_RS


@pytest.mark.parametrize("owner_of_evicted, new_pods, status, text", [
    (RS, [(NEW_RS, "n2")], AS_PLANNED, "replacement default/%s-new on n2, Ready%s" % (NEW_RS, ROLLED)),
    (RS, [(NEW_RS, "n4")], DIFFERS, "replacement default/%s-new on n4, Ready, not on n2%s" % (NEW_RS, ROLLED)),
    (RS, [(RS, "n2")], AS_PLANNED, "replacement default/%s-new on n2, Ready" % RS),     # no rollout
    (RS, [], DIFFERS, "no replacement: ReplicaSet default/%s created no new pod, nor did any other ReplicaSet "
                      "of Deployment default/web" % RS),
    # the rollout made all three replicas anew: the one on the planned node is shown, whenever made
    (RS, [(NEW_RS + "-a", "n3"), (NEW_RS + "-b", "n4"), (NEW_RS + "-c", "n2")], AS_PLANNED,
     "replacement default/%s-c-new on n2, Ready%s" % (NEW_RS, ROLLED)),
    # a ReplicaSet no Deployment controls stands for itself: another ReplicaSet's pod is no replacement
    ("solo", [(NEW_RS, "n2")], DIFFERS, "no replacement: ReplicaSet default/solo created no new pod"),
])
def test_a_deployment_that_rolled_out_during_the_drain_replaces_through_its_new_replicaset(
        owner_of_evicted, new_pods, status, text):
    objs = [owner("ReplicaSet", NEW_RS, owned_by=("Deployment", "web")), owner("ReplicaSet", "solo")]
    objs += [member(rs + "-new", where, of=rs[:len(NEW_RS)] if rs.startswith(NEW_RS) else rs, created=12 + i)
             for i, (rs, where) in enumerate(new_pods)]
    act = dict(evict(owner_of_evicted + "-old"), owner={"kind": "ReplicaSet", "name": owner_of_evicted,
                                                        "uid": "uid-" + owner_of_evicted})
    c = only(run(plan([act]), snapshot(*objs), since=0))     # the drain began when planned
    assert c.status == status, c.observed
    assert text in c.observed
    if new_pods and new_pods[0][0] == NEW_RS and status == AS_PLANNED:
        assert "removedAt" not in dict(c.facts)
        assert dict(c.facts)["replacement"]["replicaSet"] == NEW_RS


# --- a replacement that landed as planned, then moved again ---------------------------------------
# A pod never changes node: a replacement that "moved" was removed (evicted again, descheduled) and
# its owner made another. What is left of the first is the scheduler's Scheduled Event,
# "Successfully assigned NS/NAME to NODE" (pkg/scheduler/schedule_one.go, after the binding): on
# the plan's node it says the plan's replacement landed as planned. The first pod is the owner's
# (RS-xxxxx; a StatefulSet's same name with another uid) and answers for one removed pod only.
def assigned(name: str, node_name: str, at: float, uid: str) -> dict:
    return event(name, "Scheduled", "Successfully assigned default/%s to %s" % (name, node_name), at, uid=uid,
                 by="default-scheduler")


MOVED = "since moved: now "
MOVED_AGAIN = [
    # (evicted pods, pods now, Scheduled events, expected statuses, expected text of the first)
    ([(RS + "-old", "n2")], [member(RS + "-new", "n4", created=300)],
     [assigned(RS + "-first", "n2", 13, "uid-first")], [AS_PLANNED],
     "replacement default/%s-first landed on n2 as planned (Scheduled +13s (%s)), %sdefault/%s-new on n4, Ready"
     % (RS, ts(13), MOVED, RS)),
    # landed on another node first: differs, as before
    ([(RS + "-old", "n2")], [member(RS + "-new", "n4", created=300)],
     [assigned(RS + "-first", "n3", 13, "uid-first")], [DIFFERS], "on n4, Ready, not on n2"),
    # the StatefulSet's same name: the first db-0 (another uid) landed on n2
    ([("db-0", "n2")], [member("db-0", "n4", kind="StatefulSet", of="db", uid="uid-db-now", created=300)],
     [assigned("db-0", "n2", 13, "uid-db-first")], [AS_PLANNED],
     "replacement default/db-0 landed on n2 as planned (Scheduled +13s (%s)), %sdefault/db-0 on n4, Ready"
     % (ts(13), MOVED)),
    # now Pending after the move
    ([(RS + "-old", "n2")], [member(RS + "-new", "", created=300)],
     [assigned(RS + "-first", "n2", 13, "uid-first")], [AS_PLANNED], "%sdefault/%s-new Pending" % (MOVED, RS)),
    # two pods went, one first landing left: it answers for one of them only
    ([(RS + "-old1", "n2"), (RS + "-old2", "n2")],
     [member(RS + "-new1", "n4", created=300), member(RS + "-new2", "n4", created=301)],
     [assigned(RS + "-first", "n2", 13, "uid-first")], [AS_PLANNED, DIFFERS], MOVED),
    # a pod of another owner scheduled to n2 says nothing about this one
    ([(RS + "-old", "n2")], [member(RS + "-new", "n4", created=300)],
     [assigned("other-5f7c9-first", "n2", 13, "uid-first")], [DIFFERS], "not on n2"),
]


@pytest.mark.parametrize("evicted, now, events, statuses, text", MOVED_AGAIN)
def test_a_replacement_that_landed_as_planned_and_moved_again_is_as_planned(evicted, now, events, statuses, text):
    acts = []
    for name, target in evicted:
        kind, of = ("StatefulSet", "db") if name == "db-0" else ("ReplicaSet", RS)
        acts.append(dict(evict(name, target=target), owner={"kind": kind, "name": of, "uid": "uid-" + of}))
    v = run(plan(acts), snapshot(*now), events, since=0)
    assert [c.status for c in v.checks] == statuses, [c.observed for c in v.checks]
    assert text in v.checks[0].observed
    if statuses[0] == AS_PLANNED:
        assert dict(v.checks[0].facts)["landedFirst"]["node"] == "n2"


# A replacement the plan creates later than the removal (`replacementAt`: an OrderedReady
# StatefulSet creates ordinal N only once every lower ordinal is Running and Ready again,
# stateful_set_control.go processReplica) is not due before that time plus the startup (30s).
@pytest.mark.parametrize("read, status", [(200, PENDING), (400, DIFFERS)])
def test_a_replacement_planned_later_is_not_due_before_its_creation(read, status):
    p = plan([dict(evict("db-1"), replacementAt=300)], workloads=[])
    c = only(run(p, snapshot(read=read), [event("db-1", "Killing", "Stopping container app", 5, uid="uid-db-1",
                                                 by="kubelet")], read=read))
    assert c.status == status, c.differences


# --- `--since` earlier than the plan's `now` -------------------------------------------------------
# A replacement exists only once its pod was marked for deletion: the ReplicaSet controller counts
# a pod with a deletionTimestamp as gone and creates a new one (pkg/controller/replicaset
# replica_set.go: manageReplicas over controller.FilterActivePods, which drops terminating pods).
# So a pod of the owner created before the plan was made was in the plan's own input, beside the
# pod the plan evicts: it cannot be that pod's replacement, whatever `--since` says. The one
# exception is a pod already marked for deletion when the plan was made (deletionTimestamp minus
# its grace period before `now`): its replacement was created from then on.
# (objects: (name, node, created, deleted) of the owner's pods now; --since; the eviction's `at`;
# status, text in `observed`, removedAt offset or None)
NO_NEW = "no replacement: ReplicaSet default/%s created no new pod" % RS
SINCE_BEFORE_PLAN = [
    # a pod created 100s before the plan (a scale-up the plan saw) is no replacement: nothing replaced the pod
    ([(RS + "-pre", "n2", -100, None)], -300, 300, DIFFERS, NO_NEW, None),
    # the real replacement, created at +12s, is matched and dates the removal (not the earlier pod);
    # planned at +5m from a start 5m before the plan: on time
    ([(RS + "-pre", "n3", -100, None), (RS + "-new", "n2", 12, None)], -300, 300, AS_PLANNED,
     "replacement default/%s-new on n2, Ready" % RS, 12),
    # the evicted pod was already terminating when the plan was made (deleted at -20s: deletionTimestamp
    # +10s minus its 30s grace): its replacement, created at -19s, is its replacement, with --since or not
    # (--since -30s: the drain began 10s before that deletion)
    ([(RS + "-old", "n1", -86400, 10), (RS + "-new", "n2", -19, None)], -30, 0, AS_PLANNED,
     "replacement default/%s-new on n2, Ready" % RS, -20),
    ([(RS + "-old", "n1", -86400, 10), (RS + "-new", "n2", -19, None)], None, 0, AS_PLANNED,
     "replacement default/%s-new on n2, Ready" % RS, -20),
    # ... but a pod created before it was marked for deletion is not
    ([(RS + "-old", "n1", -86400, 10), (RS + "-pre", "n2", -25, None)], -30, 0, DIFFERS, NO_NEW, -20),
]


@pytest.mark.parametrize("pods, since, at, status, text, removed", SINCE_BEFORE_PLAN)
def test_since_before_the_plan_takes_no_pod_the_plan_saw_for_a_replacement(pods, since, at, status, text, removed):
    objs = [member(name, on, created=created, deleted=deleted) for name, on, created, deleted in pods]
    c = only(run(plan([evict(RS + "-old", at=at)]), snapshot(*objs), since=since))
    assert c.status == status, c.observed
    assert text in c.observed
    assert dict(c.facts).get("removedAt") == (ts(removed) if removed is not None else None)


# --- a replacement that preempts: nominated, not yet bound ----------------------------------------
# When the replacement fits only by preempting, kube-scheduler deletes the victims (each with its
# own grace period), sets the preemptor's status.nominatedNodeName, and binds it there only once
# the victims are gone (scheduler.md S6.7-S6.8; framework/preemption prepareCandidate,
# schedule_one.go evaluateNominatedNode). Its FailedScheduling Event is that preempting cycle's. So a
# replacement Pending with nominatedNodeName on the planned node is on its way (pending), not a
# difference; nominated elsewhere, it will land elsewhere (differs); not nominated, the
# FailedScheduling text is the difference, as before.
FIT = "0/4 nodes are available: 1 node(s) were unschedulable, 3 Insufficient cpu."


@pytest.mark.parametrize("nominated, status, text", [
    ("n2", PENDING, "replacement default/%s-new Pending, nominated to n2 (preemption): it binds there once the "
                    "victims are gone" % RS),
    ("n3", DIFFERS, "replacement default/%s-new Pending, nominated to n3 (preemption), planned on n2" % RS),
    ("", DIFFERS, "replacement default/%s-new Pending, planned on n2: %s" % (RS, FIT)),
])
def test_a_preempting_replacement_nominated_to_its_node_is_pending(nominated, status, text):
    new = member(RS + "-new", "", created=2)
    if nominated:
        new["status"]["nominatedNodeName"] = nominated
    ev = event(RS + "-new", "FailedScheduling", FIT, 2, uid="uid-%s-new" % RS, by="default-scheduler")
    c = only(run(plan([evict(RS + "-old")]), snapshot(new, read=20), [ev], since=0, read=20))
    assert c.status == status, c.observed
    assert text in c.observed, c.observed
