"""`controller`: NoExecute taints the snapshot already holds that are not the node lifecycle
controller's own (a user's `maint=x:NoExecute`), on healthy nodes and on failing ones.

Upstream: the taint-eviction controller (`pkg/controller/tainteviction/taint_eviction.go`,
`processPodOnNode`; semantics.md D.3-D.5) takes every NoExecute taint of a node, whoever added it:
a taint the pod does not tolerate deletes it at once; otherwise the deletion is due at start +
`getMinTolerationTime` of the used tolerations (any `<= 0`: at once; none with seconds: never,
"tolerate forever"); a deletion already scheduled is kept when the taints change
(`startTime.Add(minTolerationTime).Before(triggerTime)`: return). The start is when the controller
saw the taint, estimated by its `timeAdded` (D.4), `now` when it has none. The deletion is a plain
DELETE, PDBs not consulted (D.5). A node failing at `now` gets `unreachable:NoExecute` at +55s on a
v1.33 server (C.10), whose default 300s toleration (D.6) alone would delete at +355s.

Snapshot time (conftest NOW) is 2026-11-21T12:00:00Z; "ago" below is before that.
"""

import json

import pytest

from conftest import node, pod, run_cli, snapshot_list
from kubectl_evict.rules.controller import ControllerPlanSettings, plan_controller
from kubectl_evict.rules.nodelifecycle import ControllerSettings
from kubectl_evict.source.freeze import freeze

MAINT = "maint"
DEFAULTS = [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]
AGO = {10: "2026-11-21T11:59:50Z", 100: "2026-11-21T11:58:20Z", 1000: "2026-11-21T11:43:20Z"}


def _maint(ago=100):
    t = {"key": MAINT, "value": "x", "effect": "NoExecute"}
    if ago is not None:
        t["timeAdded"] = AGO[ago]
    return t


def _tols(seconds="none"):
    """The admission defaults plus a `maint` toleration: "none" (no such toleration), None
    (without tolerationSeconds: forever) or a number of seconds."""
    if seconds == "none":
        return list(DEFAULTS)
    t = {"key": MAINT, "operator": "Exists", "effect": "NoExecute"}
    if seconds is not None:
        t["tolerationSeconds"] = seconds
    return DEFAULTS + [t]


def _plan(items, fail=(), zones=(), **ctl):
    docs = snapshot_list(*items, server_version="v1.33")["items"]
    snap = freeze([("t.json", "", d) for d in docs])
    settings = ControllerPlanSettings(fail=tuple(fail), fail_zones=tuple(zones), controller=ControllerSettings(**ctl))
    return plan_controller(snap, settings, snap.info.taken_at)


def _deletes(plan):
    return [(a.pod, a.node, a.at) for a in plan.actions if a.type == "delete"]


def _cluster(taint, tolerations, *, fail_node_taint=None, extra=()):
    """n1 carries `taint` (healthy), n2/n3 are clean, f1 (fails in some cases) carries
    `fail_node_taint`; web-1 runs on n1, db-1 on f1."""
    return [node("n1", taints=[taint] if taint else []), node("n2"), node("n3"),
            node("f1", taints=[fail_node_taint] if fail_node_taint else []),
            pod("web-1", "n1", tolerations=tolerations), pod("db-1", "f1", tolerations=tolerations), *extra]


# (id, items, --fail, expected deletions (pod, node, at), expected skipped (pod, code), reason has)
CASES = [
    # (a) healthy node, taint added 100s ago, tolerated 600s: timeAdded + 600 = +500s (D.4)
    ("tolerated-600s-added-100s-ago", _cluster(_maint(100), _tols(600)), (),
     [("web-1", "n1", 500)], [], "tolerates NoExecute taint maint=x:NoExecute for 600s (taint added 1m40s ago)"),
    # (b) not tolerated: deleted at once (D.4 "Any taint not tolerated → delete now")
    ("not-tolerated", _cluster(_maint(100), _tols("none")), (),
     [("web-1", "n1", 0)], [], "does not tolerate NoExecute taint maint=x:NoExecute (in the snapshot: deletion is due now)"),
    # (c) tolerated without seconds: getMinTolerationTime -1, tolerate forever (D.4)
    ("tolerated-forever", _cluster(_maint(100), _tols(None)), (),
     [], [("web-1", "tolerates-forever")], "tolerates NoExecute taint maint=x:NoExecute forever"),
    # tolerationSeconds <= 0: getMinTolerationTime 0, at once (D.4)
    ("tolerated-0s", _cluster(_maint(100), _tols(0)), (),
     [("web-1", "n1", 0)], [], "for 0s"),
    # already overdue in the snapshot (added 1000s ago, 600s): due now
    ("overdue", _cluster(_maint(1000), _tols(600)), (),
     [("web-1", "n1", 0)], [], "taint added 16m40s ago"),
    # no timeAdded: counted from now (the controller's start is when it sees the taint, D.4)
    ("no-timeAdded-counts-from-now", _cluster(_maint(None), _tols(600)), (),
     [("web-1", "n1", 600)], [], "(taint has no timeAdded: counted from now)"),
    # (d) failing node with a user taint tolerated 200s, added 10s ago: scheduled for +190s; the
    # unreachable taint at +55s (min 200 over both) keeps that deletion: +190s, not +355s
    ("failing-node-shorter-user-toleration-wins", _cluster(None, _tols(200), fail_node_taint=_maint(10)), ("f1",),
     [("db-1", "f1", 190)], [], "tolerates NoExecute taint maint=x:NoExecute for 200s (taint added 10s ago)"),
    # ... and a longer one (600s from -10s: +590s) is kept too: -10 + 300 is before +55 + 300, so
    # processPodOnNode returns and the work scheduled first stays (not moved to +355s)
    ("failing-node-first-scheduled-deletion-kept", _cluster(None, _tols(600), fail_node_taint=_maint(10)), ("f1",),
     [("db-1", "f1", 590)], [], "for 600s (taint added 10s ago)"),
    # a failing node whose user taint the pod does not tolerate: deleted at once, before any unreachable taint
    ("failing-node-untolerated-user-taint", _cluster(None, _tols("none"), fail_node_taint=_maint(10)), ("f1",),
     [("db-1", "f1", 0)], [], "does not tolerate NoExecute taint maint=x:NoExecute"),
    # a failing node whose user taint is tolerated forever: the unreachable taint decides (+55 + 300)
    ("failing-node-user-taint-forever", _cluster(None, _tols(None), fail_node_taint=_maint(10)), ("f1",),
     [("db-1", "f1", 355)], [], "for 300s"),
]


@pytest.mark.parametrize("items, fail, deletes, skipped, says", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_noexecute_taints_in_the_snapshot(items, fail, deletes, skipped, says):
    plan = _plan(items, fail=fail)
    assert _deletes(plan) == deletes
    assert [(e.pod, e.code) for e in plan.skipped] == skipped
    texts = [a.reason for a in plan.actions if a.type == "delete"] + [e.reason for e in plan.skipped]
    assert any(says in t for t in texts), texts


def test_deletion_has_the_failure_driven_shape():
    """by taint-eviction-controller, plain DELETE with the pod's own grace, and a replacement
    target: not n1, whose taint the pod does not tolerate (the scheduler's TaintToleration filter;
    a pod tolerating it for a while could land there again: that filter ignores tolerationSeconds)."""
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
           "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}
    plan = _plan(_cluster(_maint(100), _tols("none"), extra=[pdb]))
    (d,) = [a for a in plan.actions if a.type == "delete"]
    assert (d.by, d.rule, d.grace_period_seconds, d.target) == ("taint-eviction-controller", "controller", None, "n2")
    assert "taint-eviction controller deletes it (plain DELETE: PodDisruptionBudget default/web is not consulted)" in d.reason
    assert not plan.blocked and not plan.shortfall


def test_deletion_after_the_horizon_is_counted_as_omitted():
    # (e) tolerated 2000s from 100s ago: +1900s, after the default 15m horizon
    plan = _plan(_cluster(_maint(100), _tols(2000)))
    assert _deletes(plan) == []
    assert "1 action after the 15m horizon is omitted (raise --horizon to see them)" in plan.warnings
    plan = _plan(_cluster(_maint(100), _tols(2000)), horizon=2000)
    assert _deletes(plan) == [("web-1", "n1", 1900)]
    assert not any("horizon" in w for w in plan.warnings)


def test_a_zone_that_stops_tainting_does_not_stop_user_taint_deletions():
    """3 of 5 nodes of a small zone failing together: no unreachable:NoExecute at all (C.7, C.10),
    but the user taint on f1 still deletes its pod (the taint-eviction controller is not limited)."""
    items = [node("f1", taints=[_maint(10)]), node("f2"), node("f3"), node("n4"), node("n5"),
             pod("db-1", "f1", tolerations=_tols(200))]
    plan = _plan(items, fail=["f1", "f2", "f3"])
    assert [a for a in plan.actions if a.type == "taint" and a.effect == "NoExecute"] == []
    assert _deletes(plan) == [("db-1", "f1", 190)]


def test_master_disruption_mode_does_not_stop_user_taint_deletions():
    """Every zone down: the controller's NoExecute taints stop (C.8), the user's taint still
    deletes (the taint-eviction controller keeps running), and the warning says so."""
    items = [node("f1", taints=[_maint(10)]), node("f2"), pod("db-1", "f1", tolerations=_tols(200)),
             pod("web-1", "f2")]
    plan = _plan(items, fail=["f1", "f2"])
    assert _deletes(plan) == [("db-1", "f1", 190)]
    (w,) = [w for w in plan.warnings if "master disruption mode" in w]
    assert "the taint-eviction controller still deletes pods for the other NoExecute taints on 1 node (f1)" in w


def test_terminating_pod_on_a_healthy_tainted_node():
    """Already deleted: the DELETE changes nothing, and a healthy node's kubelet finishes it."""
    p = pod("web-1", "n1", tolerations=_tols("none"))
    p["metadata"]["deletionTimestamp"] = "2026-11-21T11:59:00Z"
    plan = _plan([node("n1", taints=[_maint(100)]), node("n2"), p])
    assert _deletes(plan) == []
    (s,) = plan.skipped
    assert s.code == "already-terminating" and "its kubelet finishes terminating it" in s.reason


def test_nodes_without_noexecute_taints_plan_nothing():
    plan = _plan([node("n1", taints=[{"key": MAINT, "value": "x", "effect": "NoSchedule"}]), node("n2"),
                  pod("web-1", "n1", tolerations=_tols("none"))])
    assert _deletes(plan) == [] and not plan.skipped


@pytest.mark.parametrize("cpu, code", [("4", 0), ("100m", 4)])
def test_cli_exit_codes(write_snapshot, cpu, code):
    """0 when the replacement lands; 4 (shortfall) when it fits nowhere: n1 is tainted, n2 too small."""
    path = write_snapshot(node("n1", taints=[_maint(100)]), node("n2", cpu=cpu),
                          pod("web-1", "n1", tolerations=_tols("none"), cpu="500m"), server_version="v1.33")
    r = run_cli("-f", path, "-o", "json", "controller")
    assert r.returncode == code, r.stderr
    doc = json.loads(r.stdout)
    (d,) = [a for a in doc["actions"] if a["type"] == "delete"]
    assert (d["pod"], d["at"], d["by"], d["target"]) == ("web-1", 0, "taint-eviction-controller",
                                                         "n2" if code == 0 else None)
    assert [s["code"] for s in doc["shortfall"]] == ([] if code == 0 else ["no-node-fits"])
