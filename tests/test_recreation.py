"""What recreates a pod, answered in one place (`rules/replacements.py`) for every rule.

- The owner lookup: an owner reference names its controller by uid, else by kind, namespace
  and name; a ReplicaSet counts as its Deployment (`kubectl rollout status`); what the input
  lacks to resolve it is named (an `incomplete` entry, never a false outage).
- A pod that goes away (drain's evictions, the controllers' deletions) comes back elsewhere
  unless it has finished, has no controller, or belongs to a DaemonSet or its Node; every rule
  says "nothing recreates it" for the same pods.
- StatefulSet `podManagementPolicy` (`stateful_set_control.go` `processReplica`, v1.30-v1.37):
  OrderedReady, the default, recreates ordinal N only while every lower ordinal is Running and
  Ready; Parallel does not wait. A StatefulSet missing from the input is assumed OrderedReady,
  and where that assumption decides a replacement, the plan says so (`incomplete`, the reason).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from conftest import NOW, complete_kinds, node as cnode, pod as cpod, run_cli, snapshot_list, with_owners
from test_drain_plan import drain, node, pod, snapshot
from test_replacements import kill_of, plan_for, victim

from kubectl_evict.rules.affinity import AffinitySettings, plan_affinity
from kubectl_evict.rules.controller import ControllerPlanSettings, plan_controller
from kubectl_evict.rules.replacements import (NOTHING_RECREATES, find_owner, owner_kinds_missing, recreation,
                                              workload_of)
from kubectl_evict.rules.whatif import parse_taint
from kubectl_evict.source.freeze import freeze
from kubectl_evict.timeutil import parse_time

POLICY_ASSUMED = "podManagementPolicy not checked: assumed OrderedReady"


def sts(name: str = "db", policy: Optional[str] = None) -> Dict[str, Any]:
    spec: Dict[str, Any] = {"replicas": 2, "selector": {"matchLabels": {"app": name}}}
    if policy:
        spec["podManagementPolicy"] = policy
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name, "namespace": "default",
                                                                          "uid": "sts-" + name}, "spec": spec}


def sts_pod(name: str, on: str, ready: bool = True) -> Dict[str, Any]:
    p = pod(name, on, owner=None, ready=ready)
    p["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db",
                                         "uid": "sts-db", "controller": True}]
    return p


def info(*kinds: str) -> Dict[str, Any]:
    return {"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
            "takenAt": "2026-11-21T12:00:00Z", "serverVersion": "v1.33.3", "kinds": list(kinds)}


def policy_effects(plan: Any) -> List[str]:
    return [e.effect for e in plan.incomplete if e.kind == "StatefulSet" and POLICY_ASSUMED in e.effect]


# --- StatefulSet podManagementPolicy ----------------------------------------------------------------

# (id, the StatefulSet as the input has it, is ordinal 0 Ready, the input's SnapshotInfo kinds or
#  None (the kinds that appear), expected: ordinal 1's replacement waits (ordered-ready), the plan
#  names the OrderedReady assumption)
POLICY_CASES = [
    ("ordered-ready", sts(), False, None, True, False),
    ("parallel", sts(policy="Parallel"), False, None, False, False),
    ("missing-kind-not-held", None, False, None, True, True),
    ("missing-but-lower-ordinal-ready", None, True, None, False, False),
]


@pytest.mark.parametrize("case", POLICY_CASES, ids=[c[0] for c in POLICY_CASES])
def test_drain_statefulset_policy(case: tuple) -> None:
    """drain n1: db-1 is evicted from n1; db-0 runs on n2. processReplica recreates db-1 only
    while db-0 is Running and Ready, unless the set is Parallel."""
    _id, owner_obj, zero_ready, kinds, waits, assumed = case
    objs = [node("n1"), node("n2"), sts_pod("db-0", "n2", ready=zero_ready), sts_pod("db-1", "n1")]
    if owner_obj is not None:
        objs.append(owner_obj)
    if kinds is not None:
        objs.append(info(*kinds))
    plan = drain(snapshot(*objs), "n1")
    [evict] = [a for a in plan.actions if a.type == "evict"]
    codes = {e.pod: e.code for e in plan.shortfall}
    if waits:
        assert codes == {"db-1": "ordered-ready"} and evict.target is None
        reason = plan.shortfall[0].reason
        assert "only once db-0 is Running and Ready" in reason
        assert ("assumed OrderedReady" in reason) is assumed
        assert ("StatefulSet default/db is OrderedReady" in reason) is not assumed
    else:
        assert codes == {} and evict.target == "n2"
    effects = policy_effects(plan)
    assert bool(effects) is assumed
    if assumed:
        assert "1 pod (default/db-1)" in effects[0]


@pytest.mark.parametrize("case", POLICY_CASES, ids=[c[0] for c in POLICY_CASES])
def test_shutdown_statefulset_policy(case: tuple) -> None:
    """Graceful shutdown of n1: the kubelet stops db-1 (Failed at +20s); the StatefulSet
    controller deletes it and creates it again under the same name, OrderedReady only while
    db-0 (on n2) is Running and Ready."""
    _id, owner_obj, zero_ready, kinds, waits, assumed = case
    docs: List[Dict[str, Any]] = [cpod("db-0", "n2", owner=("StatefulSet", "db"), ready=zero_ready),
                                  victim("StatefulSet", name="db-1")]
    docs[1]["metadata"]["ownerReferences"][0]["name"] = "db"
    docs[0]["metadata"]["ownerReferences"][0]["uid"] = docs[1]["metadata"]["ownerReferences"][0]["uid"] = "sts-db"
    if owner_obj is not None:
        docs.append(owner_obj)
    if kinds is not None:
        docs.append(info(*kinds, "NodeKubeletConfig"))
    plan = plan_for("shutdown", *docs)
    codes = [(e.pod, e.code) for e in plan.shortfall]
    if waits:
        assert codes == [("db-1", "ordered-ready")] and kill_of(plan, "db-1")["target"] is None
        assert ("OrderedReady assumed" in plan.shortfall[0].reason) is assumed
        [rec] = plan.extra["replacements"]
        assert ("assumed OrderedReady" in rec["reason"]) is assumed
    else:
        assert codes == [] and kill_of(plan, "db-1")["target"] == "n2"
    assert bool(policy_effects(plan)) is assumed


def test_cli_names_the_assumed_policy(tmp_path: Path) -> None:
    """Through the CLI: the StatefulSet is not in the input: the plan lists StatefulSet in
    `incomplete`, warns, and still exits 4 (the shortfall wins over the incomplete input)."""
    items = [cnode("n1"), cnode("n2"), cpod("db-0", "n2", owner=("StatefulSet", "db"), ready=False),
             cpod("db-1", "n1", owner=("StatefulSet", "db"))]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(snapshot_list(*items, kinds=[k for k in complete_kinds() if k != "StatefulSet"])))
    res = run_cli("-f", str(path), "--now", NOW, "-o", "json", "drain", "n1")
    assert res.returncode == 4, res.stdout[-2000:]
    doc = json.loads(res.stdout)
    [entry] = [e for e in doc["incomplete"] if e["kind"] == "StatefulSet"]
    assert POLICY_ASSUMED in entry["effect"]
    assert any(w.startswith("incomplete input: no StatefulSet in the input: ") and POLICY_ASSUMED in w
               for w in doc["warnings"])
    table = run_cli("-f", str(path), "--now", NOW, "drain", "n1")
    assert "assumed OrderedReady" in table.stdout


# --- the owner lookup ---------------------------------------------------------------------------------

def _snap(*objs: Dict[str, Any]) -> Any:
    return freeze([("t", str(i), o) for i, o in enumerate(objs)])


RS = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
      "metadata": {"name": "web-5d8", "namespace": "default", "uid": "uid-rs",
                   "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "uid": "uid-dep",
                                        "controller": True}]},
      "spec": {"replicas": 2}}
DEPLOY = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default",
                                                                        "uid": "uid-dep"}, "spec": {"replicas": 2}}


def _rs_pod(uid: str = "uid-rs", name: str = "web-5d8") -> Dict[str, Any]:
    p = cpod("web-5d8-x", "n1", owner=("ReplicaSet", name))
    p["metadata"]["ownerReferences"][0]["uid"] = uid
    return p


# (id, objects besides the pod, the pod, expected workload, expected missing owner kinds)
LOOKUP_CASES = [
    ("replicaset-folds-into-deployment", [RS, DEPLOY], _rs_pod(), ("Deployment", "default", "web"), ()),
    ("by-name-without-uid", [RS, DEPLOY], _rs_pod(uid=""), ("Deployment", "default", "web"), ()),
    # every ReplicaSet is in the input and names its Deployment: its ready replicas are counted in
    # full (DESIGN.md: a missing kind that cannot change the plan is no gap)
    ("deployment-kind-not-held", [RS], _rs_pod(), ("Deployment", "default", "web"), ()),
    ("replicaset-kind-not-held", [], _rs_pod(), ("ReplicaSet", "default", "web-5d8"), ("ReplicaSet",)),
    ("statefulset", [sts()], sts_pod("db-0", "n1"), ("StatefulSet", "default", "db"), ()),
    ("job-of-a-cronjob", [], cpod("nightly-1-x", "n1", owner=("Job", "nightly-1")), ("Job", "default", "nightly-1"),
     ("Job",)),
    ("bare-pod", [], cpod("debug", "n1", owner=None), None, ()),
    ("static-pod", [], cpod("etcd-n1", "n1", owner=("Node", "n1")), None, ()),
]


@pytest.mark.parametrize("case", LOOKUP_CASES, ids=[c[0] for c in LOOKUP_CASES])
def test_owner_lookup(case: tuple) -> None:
    _id, objs, pod_doc, workload, missing = case
    snap = _snap(cnode("n1"), *objs, pod_doc)
    p = snap.pods[0]
    assert workload_of(snap, p) == workload
    assert owner_kinds_missing(snap, p) == missing


def test_find_owner_checks_the_kind_of_a_uid_match() -> None:
    snap = _snap(RS, DEPLOY)
    assert find_owner(snap, "ReplicaSet", "default", "other", "uid-rs").name == "web-5d8"      # by uid
    assert find_owner(snap, "Deployment", "default", "web", "uid-rs").name == "web"            # uid of another kind
    assert find_owner(snap, "ReplicaSet", "default", "gone", "uid-none") is None


# --- "nothing recreates it", the same pods in every rule ---------------------------------------------

# (id, pod, comes back elsewhere, drain's why)
RECREATION_CASES = [
    ("replicaset", cpod("web-1", "n1"), True, ""),
    ("statefulset", cpod("db-0", "n1", owner=("StatefulSet", "db")), True, ""),
    ("job", cpod("batch-1", "n1", owner=("Job", "batch")), True, ""),
    ("bare", cpod("debug", "n1", owner=None), False, "no controller: " + NOTHING_RECREATES),
    ("daemonset", cpod("agent-1", "n1", owner=("DaemonSet", "agent")), False,
     "DaemonSet pod: nothing recreates it elsewhere"),
    ("finished", cpod("job-done", "n1", owner=("Job", "batch"), phase="Succeeded"), False,
     "it has finished (Succeeded): " + NOTHING_RECREATES),
    # a controller reference without a kind (upstream's test objects name owners by uid alone)
    ("owner-without-kind", cpod("orphan", "n1", owner=("", "rs")), False,
     "its controller reference names no kind: nothing recreates it elsewhere"),
]


@pytest.mark.parametrize("case", RECREATION_CASES, ids=[c[0] for c in RECREATION_CASES])
def test_recreation(case: tuple) -> None:
    _id, pod_doc, elsewhere, why = case
    p = _snap(cnode("n1"), pod_doc).pods[0]
    r = recreation(_snap(cnode("n1"), pod_doc), p)
    assert (r.elsewhere, r.why) == (elsewhere, why)


def test_every_rule_says_nothing_recreates_a_bare_pod() -> None:
    """A bare pod removed by drain (evicted), the taint-eviction controller (node down) and an
    affinity NoExecute taint (deleted): no target, and every reason says nothing recreates it;
    a ReplicaSet pod next to it lands on n2 in all three."""
    items = snapshot_list(cnode("n1"), cnode("n2"), cpod("debug", "n1", owner=None, tolerations=[]),
                          cpod("web-1", "n1", tolerations=[]))["items"]
    snap = freeze([("t", str(i), o) for i, o in enumerate(items)])
    plans = {
        "drain": drain(snap, "n1", force=True),
        "controller": plan_controller(snap, ControllerPlanSettings(fail=("n1",)), snap.info.taken_at),
        "affinity": plan_affinity(snap, AffinitySettings(edits=(parse_taint("n1:maint=true:NoExecute"),)),
                                  snap.info.taken_at),
    }
    for rule, plan in plans.items():
        acts = {a.pod: a for a in plan.actions if a.type in ("evict", "delete")}
        assert acts["debug"].target is None and NOTHING_RECREATES in acts["debug"].reason, rule
        assert acts["web-1"].target == "n2", rule
    assert "default/debug: no replacement after eviction (no controller: nothing recreates it)" in \
        plans["drain"].notes


# --- an owner the input holds the kind of, that is not there ------------------------------------------
# Upstream: the garbage collector (`pkg/controller/garbagecollector/garbagecollector.go`
# attemptToDeleteItem) deletes a pod none of whose owners exists (classifyReferences: an owner
# that is not found is dangling), and nothing recreates it: the controller that would is gone.
# The input holds the kind (SnapshotInfo.kinds, or an object of the kind appears in it); only then
# is the owner known not to exist. A ReplicaSet whose Deployment is not there goes the same way.

GC = "the garbage collector deletes it and " + NOTHING_RECREATES

_RS_OF_GONE_DEPLOYMENT = {
    "apiVersion": "apps/v1", "kind": "ReplicaSet",
    "metadata": {"name": "web-5d8", "namespace": "default", "uid": "uid-web-5d8",
                 "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                                      "uid": "uid-dep", "controller": True}]},
    "spec": {"replicas": 1}}

# (id, pod owner (kind, name), extra objects, SnapshotInfo kinds (None: every kind; "": no SnapshotInfo,
#  the kinds that appear), replaced elsewhere, text the reason ends with)
ABSENT_OWNER_CASES = [
    ("replicaset", ("ReplicaSet", "rs"), [], None, False,
     "its ReplicaSet default/rs is not in the cluster: " + GC),
    ("statefulset", ("StatefulSet", "db"), [], None, False,
     "its StatefulSet default/db is not in the cluster: " + GC),
    ("job", ("Job", "batch"), [], None, False, "its Job default/batch is not in the cluster: " + GC),
    ("replicationcontroller", ("ReplicationController", "rc"), [], None, False,
     "its ReplicationController default/rc is not in the cluster: " + GC),
    # no SnapshotInfo: the kind is held because another ReplicaSet appears in the input
    ("kind-appears", ("ReplicaSet", "rs"), [_RS_OF_GONE_DEPLOYMENT], "", False,
     "its ReplicaSet default/rs is not in the cluster: " + GC),
    # no SnapshotInfo and no ReplicaSet at all: the input says nothing of it, assumed to exist
    ("kind-not-held", ("ReplicaSet", "rs"), [], "", True, ""),
    ("deployment-gone", ("ReplicaSet", "web-5d8"), [_RS_OF_GONE_DEPLOYMENT], None, False,
     "its ReplicaSet default/web-5d8 belongs to Deployment default/web, which is not in the cluster: the garbage "
     "collector deletes the ReplicaSet and then its pods, and " + NOTHING_RECREATES),
    ("deployment-kind-not-held", ("ReplicaSet", "web-5d8"), [_RS_OF_GONE_DEPLOYMENT], "", True, ""),
    # isDangling: an object of the owner's name whose uid is not the reference's is not the owner
    ("uid-mismatch", ("ReplicaSet", "rs"), [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
        "name": "rs", "namespace": "default", "uid": "uid-new"}, "spec": {"replicas": 1}}], None, False,
     "its ReplicaSet default/rs is not in the cluster (ReplicaSet default/rs there is another object: uid uid-new, "
     "not uid-rs): " + GC),
]


def _absent_owner_snapshot(owner: tuple, extra: List[Dict[str, Any]], kinds: Any) -> Any:
    p = cpod("web-1", "n1", owner=owner, tolerations=[])
    p["metadata"]["ownerReferences"][0]["uid"] = "uid-" + owner[1]
    items = snapshot_list(cnode("n1"), cnode("n2"), p, *extra, kinds=kinds or None, owners=False)["items"]
    if kinds == "":
        items = items[1:]
    return freeze([("t", str(i), o) for i, o in enumerate(items)])


@pytest.mark.parametrize("case", ABSENT_OWNER_CASES, ids=[c[0] for c in ABSENT_OWNER_CASES])
def test_a_pod_whose_owner_is_not_in_the_cluster_is_not_replaced(case: tuple) -> None:
    """drain (evict), the taint-eviction controller (n1 fails) and an affinity NoExecute taint
    (delete): no target, no shortfall, and the reason says why, in every rule."""
    _id, owner, extra, kinds, replaced, why = case
    snap = _absent_owner_snapshot(owner, extra, kinds)
    now = parse_time(NOW)
    plans = {
        "drain": drain(snap, "n1", force=True),
        "controller": plan_controller(snap, ControllerPlanSettings(fail=("n1",)), now),
        "affinity": plan_affinity(snap, AffinitySettings(edits=(parse_taint("n1:maint=true:NoExecute"),)), now),
    }
    for rule, plan in plans.items():
        [act] = [a for a in plan.actions if a.type in ("evict", "delete") and a.pod == "web-1"]
        assert act.target == ("n2" if replaced else None), rule
        assert [e.code for e in plan.shortfall] == [], rule
        if why:
            assert act.reason.endswith(why), (rule, act.reason)
    r = recreation(snap, snap.pods_by_key[("default", "web-1")])
    assert (r.elsewhere, r.why) == (replaced, why)


def test_a_preemption_victim_whose_owner_is_not_in_the_cluster_is_not_replaced() -> None:
    """drain n1: hi-1 (priority 1000) fits only on n2 by preempting lo-1, whose ReplicaSet the
    input (every kind held) does not have: the scheduler deletes lo-1, and nothing replaces it
    (garbagecollector.go attemptToDeleteItem), where a victim with an owner would be placed again."""
    hi = cpod("hi-1", "n1", owner=("ReplicaSet", "hi"), cpu="3", priority=1000)
    lo = cpod("lo-1", "n2", owner=("ReplicaSet", "gone"), cpu="3", priority=0)
    items = snapshot_list(*with_owners([cnode("n1"), cnode("n2"), cnode("n3", cpu="2"), hi]), lo,
                          owners=False)["items"]
    plan = drain(freeze([("t", str(i), o) for i, o in enumerate(items)]), "n1")
    [victim_delete] = [a for a in plan.actions if a.type == "delete" and a.pod == "lo-1"]
    assert victim_delete.by == "scheduler" and victim_delete.target is None
    assert victim_delete.reason.endswith("its ReplicaSet default/gone is not in the cluster: " + GC)
    assert [a.target for a in plan.actions if a.type == "evict"] == ["n2"] and list(plan.shortfall) == []
