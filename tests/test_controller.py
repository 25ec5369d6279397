"""`controller`: the node lifecycle controller's timeline (spec C, D; timing of spec C10).

Expected times follow upstream with default flags on a v1.32/v1.33 server (the snapshots here say
v1.33 unless a test says otherwise): a node failing at now is Unknown with the
unreachable:NoSchedule taint at +50s, gets unreachable:NoExecute one monitor period later (+55s,
the first of its zone), further nodes of the zone 1/rate apart, and pods go at taint time + their
smallest tolerationSeconds (default 300 -> +355s). From v1.34 the NoExecute taint comes in the
pass that sets Ready=Unknown (#120816): +50s.
"""

import json

import pytest

from conftest import node, pod, run_cli, snapshot_list
from kubectl_evict.rules.controller import ControllerPlanSettings, plan_controller
from kubectl_evict.rules.nodelifecycle import ControllerSettings, NodeFailure, noexecute_timeline
from kubectl_evict.source.freeze import freeze

UNREACH = "node.kubernetes.io/unreachable"
DS = ("DaemonSet", "agent")


def _snap(items, server_version="v1.33", leases=None):
    docs = snapshot_list(*items)["items"]
    if server_version:
        docs[0] = dict(docs[0], serverVersion=server_version)
    for name, renew in (leases or {}).items():
        docs.append({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                     "metadata": {"name": name, "namespace": "kube-node-lease"}, "spec": {"renewTime": renew}})
    return freeze([("t.json", "", d) for d in docs])


def _plan(items, fail=(), zones=(), server_version="v1.33", leases=None, **ctl):
    snap = _snap(items, server_version, leases)
    settings = ControllerPlanSettings(fail=tuple(fail), fail_zones=tuple(zones), controller=ControllerSettings(**ctl))
    return plan_controller(snap, settings, snap.info.taken_at)


def _noexec(plan):
    return [(a.node, a.at) for a in plan.actions if a.type == "taint" and a.effect == "NoExecute"]


def _deletes(plan):
    return [(a.pod, a.at, a.target) for a in plan.actions if a.type == "delete"]


def zone(prefix, n, z, **kw):
    return [node("%s%d" % (prefix, i), zone=z, **kw) for i in range(1, n + 1)]


def test_one_node_down_in_a_healthy_zone():
    items = zone("n", 4, "z1") + [pod("web-1", "n1"), pod("agent-1", "n1", owner=DS, tolerations=[])]
    plan = _plan(items, fail=["n1"])
    assert [(a.type, a.node, a.key, a.effect, a.at) for a in plan.actions if a.type != "delete"] == [
        ("taint", "n1", UNREACH, "NoSchedule", 50), ("taint", "n1", UNREACH, "NoExecute", 55)]
    assert _deletes(plan) == [("web-1", 355, "n2")]
    delete = next(a for a in plan.actions if a.type == "delete")
    assert "300s" in delete.reason and "plain DELETE" in delete.reason
    assert [(e.pod, e.node) for e in plan.skipped] == [("agent-1", "n1")]
    assert "forever" in plan.skipped[0].reason
    assert not plan.blocked


def test_two_nodes_in_one_zone_are_tainted_ten_seconds_apart():
    plan = _plan(zone("n", 5, "z1"), fail=["n1", "n2"])
    assert _noexec(plan) == [("n1", 55), ("n2", 65)]


def test_small_zone_three_of_five_failing_together_gets_no_noexecute_taint():
    plan = _plan(zone("n", 5, "z1") + [pod("web-1", "n1")], fail=["n1", "n2", "n3"])
    assert _noexec(plan) == []
    assert _deletes(plan) == []
    assert [a.node for a in plan.actions if a.effect == "NoSchedule"] == ["n1", "n2", "n3"]
    assert any("Normal (0/5 down) → PartialDisruption at +50s (3/5 down); tainting stopped (zone has ≤50 nodes)" in n
               for n in plan.notes)


def test_one_node_failing_fifteen_seconds_earlier_alone_is_tainted():
    snap = _snap(zone("n", 5, "z1"))
    failing = {"n1": NodeFailure(0.0), "n2": NodeFailure(15.0), "n3": NodeFailure(15.0)}
    tl = noexecute_timeline(snap, snap.info.taken_at, failing, ControllerSettings())
    noexec = [(e.node, e.kind, e.at) for e in tl.events if e.effect == "NoExecute"]
    assert noexec == [("n1", "taint", 55)]          # and it keeps it after the zone turns partial
    (z,) = tl.zones
    assert [(s.at, s.state, s.rate) for s in z.states] == [(0, "Normal", 0.1), (65, "PartialDisruption", 0.0)]
    assert sorted(n for n, _ in z.stuck) == ["n2", "n3"]


def test_large_zone_uses_the_secondary_rate():
    plan = _plan(zone("n", 60, "z1"), fail=["n%d" % i for i in range(1, 41)], horizon=400)
    assert _noexec(plan) == [("n1", 55), ("n10", 155), ("n11", 255), ("n12", 355)]
    assert any("→ PartialDisruption at +50s (40/60 down); tainting at 0.01 nodes/s" in n for n in plan.notes)
    assert any("actions after the 6m40s horizon are omitted" in w for w in plan.warnings)


@pytest.mark.parametrize("nodes, failing, flags, says", [
    # setLimiterInZone (semantics.md C.7): a partially disrupted zone of at most
    # --large-cluster-size-threshold nodes stops tainting ...
    (5, 3, {}, "tainting stopped (zone has ≤50 nodes)"),
    # ... a larger one uses --secondary-node-eviction-rate, which may itself be 0
    (60, 40, {"secondary_node_eviction_rate": 0.0}, "tainting stopped (--secondary-node-eviction-rate is 0)"),
    # a fully disrupted zone uses --node-eviction-rate (C.7)
    (3, 3, {"node_eviction_rate": 0.0}, "tainting stopped (--node-eviction-rate is 0)"),
])
def test_zone_note_says_why_tainting_stopped(nodes, failing, flags, says):
    items = zone("n", nodes, "z1") + [node("m1", zone="z2")]
    plan = _plan(items, fail=["n%d" % i for i in range(1, failing + 1)], **flags)
    (note,) = [n for n in plan.notes if n.startswith("zone z1 ")]
    assert says in note and "≤50 nodes" not in note.replace(says, "")


def test_every_zone_down_evicts_nothing_and_removes_existing_taints():
    tainted = node("b1", zone="z2", ready="Unknown",
                   taints=[{"key": UNREACH, "effect": "NoExecute", "timeAdded": "2026-11-21T11:59:00Z"}])
    items = zone("a", 2, "z1") + [tainted, node("b2", zone="z2")] + [pod("web-1", "a1"), pod("web-2", "b1")]
    plan = _plan(items, fail=["a1", "a2", "b2"])
    assert _noexec(plan) == []
    assert _deletes(plan) == []
    assert [(a.node, a.at) for a in plan.actions if a.type == "untaint" and a.effect == "NoExecute"] == [("b1", 50)]
    assert any("fully disrupted" in w and "nothing evicted" in w for w in plan.warnings)
    assert any(e.pod == "web-2" and "cancelled" in e.reason for e in plan.skipped)


@pytest.mark.parametrize("seconds, at", [(0, 55), (-10, 55), (600, 655), (None, None)])
def test_toleration_seconds(seconds, at):
    tol = {"key": UNREACH, "operator": "Exists", "effect": "NoExecute"}
    if seconds is not None:
        tol["tolerationSeconds"] = seconds
    plan = _plan(zone("n", 3, "z1") + [pod("web-1", "n1", tolerations=[tol])], fail=["n1"])
    assert _deletes(plan) == ([("web-1", at, "n2")] if at is not None else [])
    assert [e.pod for e in plan.skipped] == ([] if at is not None else ["web-1"])


def test_pod_without_tolerations_gets_the_admission_defaults():
    plan = _plan(zone("n", 3, "z1") + [pod("web-1", "n1", tolerations=[])], fail=["n1"])
    assert _deletes(plan) == [("web-1", 355, "n2")]
    assert "default toleration added at admission" in plan.actions[-1].reason


def test_untolerated_noexecute_taint_deletes_at_taint_time():
    # A NoExecute toleration with the unreachable key stops the admission default (operator and
    # value are not looked at) but does not tolerate the taint (Equal "x" vs ""): deleted at once.
    tol = [{"key": UNREACH, "operator": "Equal", "value": "x", "effect": "NoExecute", "tolerationSeconds": 300}]
    plan = _plan(zone("n", 3, "z1") + [pod("web-1", "n1", tolerations=tol)], fail=["n1"])
    assert _deletes(plan) == [("web-1", 55, "n2")]
    assert "does not tolerate" in plan.actions[-1].reason


def test_node_already_past_its_grace_is_unknown_now_and_tainted_after_one_period():
    stale = node("n1", zone="z1")
    stale["status"]["conditions"][0]["lastHeartbeatTime"] = "2026-11-21T11:58:00Z"
    items = [stale] + zone("m", 3, "z1")
    plan = _plan(items, leases={"n1": "2026-11-21T11:58:00Z", "m1": "2026-11-21T11:59:58Z",
                                "m2": "2026-11-21T11:59:58Z", "m3": "2026-11-21T11:59:58Z"})
    assert [(a.node, a.key, a.effect, a.at) for a in plan.actions if a.type == "taint"] == [
        ("n1", UNREACH, "NoSchedule", 0), ("n1", UNREACH, "NoExecute", 5)]


def test_renewed_lease_keeps_a_node_with_an_old_heartbeat_healthy():
    quiet = node("n1", zone="z1")
    quiet["status"]["conditions"][0]["lastHeartbeatTime"] = "2026-11-21T11:57:15Z"
    plan = _plan([quiet] + zone("m", 2, "z1"), leases={"n1": "2026-11-21T11:59:55Z"})
    assert plan.actions == []


def test_older_servers_use_the_forty_second_grace():
    plan = _plan(zone("n", 3, "z1"), fail=["n1"], server_version="v1.31.4")
    assert [a.at for a in plan.actions if a.type == "taint"] == [40, 45]


@pytest.mark.parametrize("version, noexecute, deleted", [
    # v1.33: processTaintBaseEviction decides on the Ready condition seen before the pass set
    # Unknown, so the NoExecute taint comes one --node-monitor-period (5s) later
    ("v1.33.4", 55, 355),
    # #120816 (v1.34): the same pass that sets Ready=Unknown adds unreachable:NoExecute
    ("v1.34.0", 50, 350), ("v1.35.2", 50, 350), ("v1.37.0", 50, 350),
])
def test_unreachable_noexecute_taint_timing_by_version(version, noexecute, deleted):
    plan = _plan(zone("n", 3, "z1") + [pod("web-1", "n1")], fail=["n1"], server_version=version)
    assert [(a.effect, a.at) for a in plan.actions if a.type == "taint"] == [("NoSchedule", 50), ("NoExecute", noexecute)]
    assert [(p, at) for p, at, _ in _deletes(plan)] == [("web-1", deleted)]


def test_second_node_of_a_zone_still_waits_for_the_rate_limiter_on_v1_34():
    """#120816 moves when a node enters its zone's queue, not the queue: 1/rate (10s) apart."""
    plan = _plan(zone("n", 4, "z1"), fail=["n1", "n2"], server_version="v1.34.1")
    assert _noexec(plan) == [("n1", 50), ("n2", 60)]


@pytest.mark.parametrize("version, says", [("v1.36.3", False), ("v1.37.0", True)])
def test_lease_is_re_read_live_before_unknown_from_v1_37(version, says):
    """#138698 (KEP-5647, v1.37): the controller GETs the Lease before marking the node unhealthy;
    the snapshot's Lease stands for that read, so the timing is the same and the reason says it."""
    plan = _plan(zone("n", 3, "z1"), fail=["n1"], server_version=version)
    noschedule = next(a for a in plan.actions if a.type == "taint" and a.effect == "NoSchedule")
    assert noschedule.at == 50
    assert ("live re-read of the Lease" in noschedule.reason) == says


def test_horizon_cuts_the_timeline_and_says_how_much():
    plan = _plan(zone("n", 3, "z1") + [pod("web-1", "n1"), pod("web-2", "n1")], fail=["n1"], horizon=300)
    assert _deletes(plan) == []
    assert "2 actions after the 5m horizon are omitted (raise --horizon to see them)" in plan.warnings


def test_excluded_nodes_are_tainted_but_not_counted():
    excluded = zone("x", 2, "z1", labels={"node.kubernetes.io/exclude-disruption": "true"})
    plan = _plan(zone("n", 3, "z1") + excluded, fail=["n1", "n2", "x1", "x2"])
    # Counted: 2 of 3 down -> Normal, so all four get tainted, 10 s apart.
    assert _noexec(plan) == [("n1", 55), ("n2", 65), ("x1", 75), ("x2", 85)]


@pytest.mark.parametrize("version, taints, deleted", [
    ("v1.33", [("x2", 55), ("x3", 65)], [("web-1", 355, None)]),
    ("v1.35", [("x2", 50), ("x3", 60)], [("web-1", 350, None)]),
])
def test_master_disruption_removes_only_the_taints_nodes_have_when_it_starts(version, taints, deleted):
    """Entering master disruption mode removes the not-ready/unreachable NoExecute taints the
    nodes have at that pass (semantics.md C.8, `handleDisruption` -> `markNodeAsReachable`).
    Excluded nodes are not counted in any zone (C.5, `isNodeExcludedFromDisruptionChecks`), so a
    zone made only of them has no zone state that stops its queue: its nodes are tainted at the
    normal rate after the mode starts and keep the taint; no untaint comes before the taint."""
    ex = {"node.kubernetes.io/exclude-disruption": ""}
    items = zone("n", 3, "z1") + zone("x", 3, "z9", labels=ex)[1:] + [pod("web-1", "x2")]
    plan = _plan(items, fail=["n1", "n2", "n3", "x2", "x3"], server_version=version)
    assert _noexec(plan) == taints
    assert [(a.node, a.at) for a in plan.actions if a.type == "untaint"] == []
    assert _deletes(plan) == deleted
    (warning,) = [w for w in plan.warnings if "master disruption mode" in w]
    assert "except on 2 nodes (x2, x3)" in warning


def test_legacy_eviction_deletes_pods_after_the_pod_eviction_timeout():
    items = zone("n", 3, "z1") + [pod("web-1", "n1"), pod("agent-1", "n1", owner=DS, tolerations=[])]
    plan = _plan(items, fail=["n1"], legacy_eviction=True)
    assert _noexec(plan) == []
    assert _deletes(plan) == [("web-1", 300, "n2")]
    assert [e.pod for e in plan.skipped] == ["agent-1"]


def test_pdb_is_not_consulted_and_said_so():
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
           "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}
    plan = _plan(zone("n", 2, "z1") + [pod("web-1", "n1"), pdb], fail=["n1"])
    assert "PodDisruptionBudget default/web is not consulted" in plan.actions[-1].reason


def test_replacement_with_nowhere_to_go_is_a_shortfall():
    items = zone("n", 2, "z1", cpu="1") + [pod("big-1", "n1", cpu="800m"), pod("big-2", "n2", cpu="800m")]
    plan = _plan(items, fail=["n1"])
    assert _deletes(plan) == [("big-1", 355, None)]          # the deletion happens ...
    assert not plan.blocked                                 # ... so nothing is blocked, but it runs short
    assert [(e.pod, e.code) for e in plan.shortfall] == [("big-1", "no-node-fits")]
    assert "Insufficient cpu" in plan.shortfall[0].reason


@pytest.mark.parametrize("case, taints", [
    # a node Ready again: Ready True removes the not-ready/unreachable taints (semantics.md C.3, C.4)
    ("recovered node", [{"key": UNREACH, "effect": "NoSchedule"},
                        {"key": UNREACH, "effect": "NoExecute", "timeAdded": "2026-11-21T11:58:00Z"}]),
    # a condition taint whose condition no longer holds is removed (C.3: stale NoSchedule taints)
    ("stale memory-pressure taint", [{"key": "node.kubernetes.io/memory-pressure", "effect": "NoSchedule"}]),
])
def test_replacements_land_on_nodes_the_controller_untaints_at_once(case, taints):
    """The only node with room carries condition taints the controller removes at +0s; the
    replacement deleted at +355s is scheduled against the nodes as they are then, so it lands
    there instead of fitting no node."""
    items = [node("n1", zone="z1"), node("big", zone="z1", taints=taints)] + zone("s", 2, "z1", cpu="100m") + [
        pod("web-1", "n1", cpu="1")]
    plan = _plan(items, fail=["n1"])
    assert ("big", 0) in [(a.node, a.at) for a in plan.actions if a.type == "untaint"], case
    assert _deletes(plan) == [("web-1", 355, "big")], case
    assert not plan.shortfall, case


def test_same_input_gives_the_same_plan():
    items = zone("n", 6, "z1") + zone("m", 3, "z2") + [pod("web-%d" % i, "n%d" % (i % 6 + 1)) for i in range(12)]
    a = _plan(items, zones=["z1"])
    b = _plan(items, zones=["z1"])
    assert a == b


# --- the CLI ------------------------------------------------------------------------------------

@pytest.fixture
def cluster(write_snapshot):
    return write_snapshot(*(zone("n", 4, "z1") + zone("m", 2, "z2") + [pod("web-1", "n1")]), server_version="v1.33")


def test_cli_table_shows_timeline_and_zone_states(cluster):
    r = run_cli("-f", cluster, "controller", "--fail-zone", "z1")
    assert r.returncode == 0, r.stderr
    assert "+55s" in r.stdout and "NoExecute" in r.stdout
    assert "zone z1 (4 nodes): Normal (0/4 down) → FullDisruption at +50s (4/4 down); tainting at 0.1 nodes/s" in r.stdout
    assert "4 nodes NoExecute-tainted from +55s to +1m25s" in r.stdout


def test_cli_json(cluster):
    r = run_cli("-f", cluster, "-o", "json", "controller", "--fail", "n1")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["command"] == "controller"
    taint = next(a for a in doc["actions"] if a["type"] == "taint" and a["effect"] == "NoExecute")
    assert taint == {"type": "taint", "node": "n1", "key": UNREACH, "value": "", "effect": "NoExecute", "at": 55,
                     "by": "node-lifecycle-controller", "rule": "controller", "reason": taint["reason"]}
    delete = next(a for a in doc["actions"] if a["type"] == "delete")
    # Every other node is empty: equal scores, so the tie goes by name.
    assert (delete["pod"], delete["at"], delete["target"], delete["force"]) == ("web-1", 355, "m1", False)
    assert delete["by"] == "taint-eviction-controller"


def test_cli_exit_code_four_when_a_replacement_has_nowhere_to_go(write_snapshot):
    path = write_snapshot(node("n1", cpu="1"), node("n2", cpu="1"), pod("big-1", "n1", cpu="800m"),
                          pod("big-2", "n2", cpu="800m"))
    r = run_cli("-f", path, "controller", "--fail", "n1")
    assert r.returncode == 4, r.stderr
    assert "SHORTFALL" in r.stdout and "BLOCKED" not in r.stdout
    assert "1 replacement without a node; 0 blocked" in r.stdout


@pytest.mark.parametrize("args, flag", [
    (["--fail", "nope"], "--fail: unknown node 'nope'"),
    (["--fail-zone", "z9"], "--fail-zone: unknown zone 'z9' (zones in the snapshot: z1, z2)"),
    (["--horizon", "soon"], "--horizon"),
    (["--horizon", "0s"], "--horizon: must be positive"),
    (["--node-monitor-grace-period", "-5s"], "--node-monitor-grace-period"),
    (["--node-eviction-rate", "fast"], "--node-eviction-rate: expected a number"),
    (["--secondary-node-eviction-rate", "-1"], "--secondary-node-eviction-rate"),
    (["--unhealthy-zone-threshold", "1.5"], "--unhealthy-zone-threshold: must be between 0 and 1"),
    (["--large-cluster-size-threshold", "lots"], "--large-cluster-size-threshold: expected a whole number"),
    (["--pod-eviction-timeout", "5m"], "--pod-eviction-timeout: only applies with --legacy-eviction"),
])
def test_cli_bad_flags(cluster, args, flag):
    r = run_cli("-f", cluster, "controller", *args)
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and flag in lines[0], r.stderr
    assert "Traceback" not in r.stderr


def test_cli_demo_zone_failure():
    r = run_cli("--demo", "controller", "--fail-zone", "eu-west-1b")
    assert r.returncode == 4, r.stderr          # two replacements find no node
    assert "zone eu-west-1/eu-west-1b (4 nodes): Normal (0/4 down) → FullDisruption at +50s (4/4 down)" in r.stdout


def test_shared_timeline_for_a_node_posting_not_ready_then_going_silent():
    """What `shutdown` reuses: the kubelet posts Ready=False at +0s (not-ready:NoSchedule at once,
    not-ready:NoExecute one period later), stops at +30s (Unknown at +80s: the taints are swapped
    at once one period later, and a pod's deletion stays scheduled from the first taint)."""
    snap = _snap(zone("n", 3, "z1") + [pod("web-1", "n1")])
    tl = noexecute_timeline(snap, snap.info.taken_at, {"n1": NodeFailure(0.0, "False", silent_at=30.0)},
                            ControllerSettings())
    assert [(e.at, e.kind, e.key.rsplit("/", 1)[-1], e.effect) for e in tl.events] == [
        (0, "taint", "not-ready", "NoSchedule"), (5, "taint", "not-ready", "NoExecute"),
        (80, "taint", "unreachable", "NoSchedule"), (80, "untaint", "not-ready", "NoSchedule"),
        (85, "untaint", "not-ready", "NoExecute"), (85, "taint", "unreachable", "NoExecute")]
    plan = _plan(zone("n", 3, "z1") + [pod("web-1", "n1")], fail=[], horizon=900)
    assert plan.actions == []          # nothing fails without --fail
    from kubectl_evict.rules.nodelifecycle import pod_fates
    (fate,) = pod_fates(snap, tl, ControllerSettings(), snap.info.taken_at)
    assert (fate.pod.name, fate.kind, fate.at) == ("web-1", "delete", 305)


# MarkPodsNotReady (spec C2; monitorNodeHealth): in the pass that turns a Ready=True node Unknown
# the controller sets Ready=False on every pod of the node, so a workload loses those ready
# replicas then, not when the taint-eviction controller deletes the pods minutes later.

def _workloads(plan):
    return [(w.kind, w.name, w.ready, w.ready_min, w.ready_min_at, w.ready_after) for w in plan.workloads]


@pytest.mark.parametrize("version, unknown_at", [("v1.31", 40), ("v1.33", 50), ("v1.35", 50)])
def test_pods_of_a_node_turned_unknown_stop_counting_as_ready_in_that_pass(version, unknown_at):
    plan = _plan(zone("n", 4, "z1") + [pod("web-1", "n1"), pod("web-2", "n2")], fail=["n1"],
                 server_version=version)
    # deleted at taint + 300s, replacement Ready 30s later: the lowest point is at Unknown time
    assert _workloads(plan) == [("ReplicaSet", "rs", 2, 1, unknown_at, 2)]


def test_pods_never_deleted_still_lose_readiness():
    """3 of 5 nodes of a small zone: PartialDisruption, no NoExecute taint ever, nothing deleted;
    the pods stay bound and not Ready, and nothing replaces them: an outage from +50s."""
    items = zone("a", 5, "z1") + [pod("web-%d" % i, "a%d" % i) for i in (1, 2, 3)]
    plan = _plan(items, fail=["a1", "a2", "a3"])
    assert not [a for a in plan.actions if a.type == "delete"]
    assert _workloads(plan) == [("ReplicaSet", "rs", 3, 0, 50, 0)]
    assert any(w.startswith("outage: ReplicaSet default/rs has 0 of 3 ready replicas from +50s on") for w in plan.warnings)


def test_pods_tolerating_forever_lose_readiness_too():
    items = zone("n", 4, "z1") + [pod("agent-1", "n1", owner=DS, tolerations=[]), pod("agent-2", "n2", owner=DS, tolerations=[])]
    plan = _plan(items, fail=["n1"])
    assert [(e.pod, e.code) for e in plan.skipped] == [("agent-1", "tolerates-forever")]
    assert _workloads(plan) == [("DaemonSet", "agent", 2, 1, 50, 1)]


def test_a_kubelet_posting_not_ready_itself_gets_no_mark_from_the_controller():
    from kubectl_evict.rules.nodelifecycle import pods_marked_not_ready_at
    snap = _snap(zone("n", 3, "z1"))
    tl = noexecute_timeline(snap, snap.info.taken_at, {"n1": NodeFailure(0.0, "False", silent_at=30.0),
                                                       "n2": NodeFailure(0.0, "Unknown")}, ControllerSettings())
    assert pods_marked_not_ready_at(tl.nodes["n1"]) is None     # observed Ready was False, not True
    assert pods_marked_not_ready_at(tl.nodes["n2"]) == 50


# A node that never posted status (spec C2; tryUpdateNodeHealth/processTaintBaseEviction): its
# grace is node-startup-grace-period counted from creationTimestamp (the probe, unless a Lease is
# renewed), and the Ready condition the pass observes is the fake Unknown made from the creation
# time, so the pass that writes Unknown also queues the NoExecute taint, in every release.

def _never_posted(name, created):
    n = node(name, zone="z1")
    n["metadata"]["creationTimestamp"] = created
    n["status"]["conditions"] = []
    return n


@pytest.mark.parametrize("version", ["v1.33", "v1.35"])
def test_never_posted_node_failing_goes_unknown_at_creation_plus_startup_grace(version):
    items = zone("n", 3, "z1") + [_never_posted("new", "2026-11-21T11:59:30Z"), pod("web-1", "new")]
    plan = _plan(items, fail=["new"], server_version=version)
    assert [(a.type, a.node, a.effect, a.at) for a in plan.actions if a.type == "taint"] == [
        ("taint", "new", "NoSchedule", 30), ("taint", "new", "NoExecute", 30)]
    assert _deletes(plan) == [("web-1", 330, "n1")]


def test_never_posted_node_with_a_renewed_lease_gets_the_startup_grace_from_the_renewal():
    items = zone("n", 3, "z1") + [_never_posted("new", "2026-11-21T11:59:30Z")]
    plan = _plan(items, fail=["new"], leases={"new": "2026-11-21T12:00:00.000000Z"})
    assert [(a.node, a.effect, a.at) for a in plan.actions if a.type == "taint"] == [
        ("new", "NoSchedule", 60), ("new", "NoExecute", 60)]


def test_never_posted_node_past_its_startup_grace_is_tainted_now_even_before_v1_34():
    items = zone("n", 3, "z1") + [_never_posted("old", "2026-11-21T11:00:00Z")]
    plan = _plan(items)
    assert [(a.node, a.effect, a.at) for a in plan.actions if a.type == "taint"] == [
        ("old", "NoSchedule", 0), ("old", "NoExecute", 0)]


def test_nodes_already_queued_are_tainted_in_the_order_they_entered_the_queue():
    """RateLimitedTimedQueue is ordered by when a node was added (its ProcessAt), not by name: in
    a large zone tainting at the secondary rate, the backlog the snapshot shows goes out oldest
    first (v1.33: queued one monitor period after the Ready transition)."""
    down = []
    for i in range(34):     # 34/60 down: PartialDisruption, 60 > 50 nodes: 0.01 nodes/s
        n = node("d%02d" % i, zone="z1", ready="Unknown")
        n["status"]["conditions"][0].update(lastHeartbeatTime="2026-11-21T11:40:00Z",
                                            lastTransitionTime="2026-11-21T11:5%d:%02dZ" % (8 - i // 30, 59 - i % 30))
        down.append(n)
    down[0]["spec"]["taints"] = [{"key": UNREACH, "effect": "NoExecute", "timeAdded": "2026-11-21T11:59:10Z"}]
    plan = _plan(zone("h", 26, "z1") + down, horizon=300)
    # last taint 50s ago at 0.01/s: the next at +50s, then every 100s; d33 went Unknown first
    assert _noexec(plan) == [("d33", 50), ("d32", 150), ("d31", 250)]


# Job pods the taint-eviction controller deletes (job_controller.go isPodFailed/onlyReplaceFailedPods,
# backoff_utils.go getFinishedTime): with podReplacementPolicy TerminatingOrFailed (the default
# without a podFailurePolicy) the terminating pod counts as failed at once, so backoffLimit applies;
# with Failed (forced by a podFailurePolicy) the replacement waits for phase Failed, which the
# kubelet of an unreachable node never reports.

def _job(name, failed=0, backoff_limit=6, **spec):
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "default", "uid": "uid-" + name},
            "spec": dict({"backoffLimit": backoff_limit, "template": {"spec": {"restartPolicy": "Never",
                                                                                "containers": [{"name": "c", "image": "x"}]}}},
                         **spec),
            "status": {"active": 1, "failed": failed}}


DISRUPTION_IGNORED = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}


@pytest.mark.parametrize("job, code", [
    (_job("etl"), None),                                                   # replaced at the deletion
    (_job("etl", failed=6, backoff_limit=6), "job-failed"),               # 7 > backoffLimit 6
    (_job("etl", podFailurePolicy=DISRUPTION_IGNORED), "waits-for-old-pod"),
    (_job("etl", podReplacementPolicy="Failed"), "waits-for-old-pod"),
])
def test_job_pod_deleted_on_an_unreachable_node(job, code):
    plan = _plan(zone("n", 3, "z1") + [job, pod("etl-x", "n1", owner=("Job", "etl"))], fail=["n1"])
    (delete,) = [a for a in plan.actions if a.type == "delete"]
    assert delete.at == 355
    assert [(e.pod, e.code) for e in plan.shortfall] == ([] if code is None else [("etl-x", code)])
    assert (delete.target is None) == (code is not None)


def test_job_replacement_waits_out_the_pod_failure_backoff_from_the_pods_ready_false_time():
    """tolerationSeconds 0: deleted at +55s (v1.33); the pod turned Ready=False at +50s (its finish
    time), so the first failure's 10s backoff ends at +60s; the second pod's 20s at +70s."""
    tol = [{"key": UNREACH, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 0}]
    items = zone("n", 3, "z1") + [_job("etl"), pod("etl-a", "n1", owner=("Job", "etl"), tolerations=tol),
                                   pod("etl-b", "n1", owner=("Job", "etl"), tolerations=tol)]
    plan = _plan(items, fail=["n1"])
    assert [(a.pod, a.at, a.replaced_at) for a in plan.actions if a.type == "delete"] == [
        ("etl-a", 55, 60), ("etl-b", 55, 70)]


def test_job_not_in_the_input_is_assumed_terminating_or_failed_and_said_so():
    items = zone("n", 3, "z1") + [pod("etl-x", "n1", owner=("Job", "etl"))]
    snap_kinds = [k for k in __import__("conftest").complete_kinds() if k != "Job"]
    docs = snapshot_list(*items, kinds=snap_kinds)["items"]
    docs[0] = dict(docs[0], serverVersion="v1.33")
    snap = freeze([("t.json", "", d) for d in docs])
    plan = plan_controller(snap, ControllerPlanSettings(fail=("n1",)), snap.info.taken_at)
    assert [(a.pod, a.target) for a in plan.actions if a.type == "delete"] == [("etl-x", "n2")]
    (job,) = [i for i in plan.incomplete if i.kind == "Job"]
    assert "podReplacementPolicy" in job.effect and "default/etl-x" in job.effect


def test_finished_pods_are_deleted_too_and_not_replaced():
    """The taint-eviction controller lists every pod bound to the node, whatever its phase (spec
    D5): a Succeeded Job pod goes at taint + 300s like the others; nothing replaces it and the
    Job does not count it as a failure."""
    items = zone("n", 3, "z1") + [_job("etl"), pod("etl-done", "n1", owner=("Job", "etl"), phase="Succeeded", ready=False),
                                   pod("web-1", "n1")]
    plan = _plan(items, fail=["n1"])
    assert [(a.pod, a.at, a.target) for a in plan.actions if a.type == "delete"] == [
        ("etl-done", 355, None), ("web-1", 355, "n2")]
    assert not plan.shortfall and not plan.skipped
    done = next(a for a in plan.actions if a.pod == "etl-done")
    assert "finished (Succeeded)" in done.reason


# A pod already Terminating (deletionTimestamp set) on a node whose kubelet goes silent: nothing
# confirms its deletion, so the object stays. A ReplicaSet counts only active pods and replaced it
# when the deletion began (controller_utils.go FilterActivePods): skipped. A StatefulSet creates a
# pod again only once the old object is gone (stateful_set_control.go processReplica: isCreated,
# then isTerminating waits): `waits-for-old-pod`, exit 4, whatever NoExecute taint follows
# (none at all in a small zone in PartialDisruption; a toleration without tolerationSeconds).
FOREVER = [{"key": UNREACH, "operator": "Exists", "effect": "NoExecute"}]


def _terminating(p, at="2026-11-21T11:59:00Z"):
    p["metadata"]["deletionTimestamp"] = at
    return p


@pytest.mark.parametrize("items, fail, expect", [
    (zone("n", 3, "z1") + [_terminating(pod("db-0", "n1", owner=("StatefulSet", "db")))], ["n1"],
     ("shortfall", "waits-for-old-pod")),
    (zone("n", 3, "z1") + [_terminating(pod("db-0", "n1", owner=("StatefulSet", "db"), tolerations=FOREVER))], ["n1"],
     ("shortfall", "waits-for-old-pod")),
    (zone("n", 5, "z1") + [_terminating(pod("db-0", "n1", owner=("StatefulSet", "db")))], ["n1", "n2", "n3"],
     ("shortfall", "waits-for-old-pod")),
    (zone("n", 3, "z1") + [_terminating(pod("web-1", "n1"))], ["n1"], ("skipped", "already-terminating")),
    # the node stays healthy: its kubelet finishes the deletion and the StatefulSet recreates the pod
    (zone("n", 3, "z1") + [_terminating(pod("db-0", "n1", owner=("StatefulSet", "db")))], ["n2"], None),
])
def test_pod_already_terminating_on_a_failing_node(items, fail, expect):
    plan = _plan(items, fail=fail)
    assert _deletes(plan) == []
    got = [("shortfall", e.code) for e in plan.shortfall] + [("skipped", e.code) for e in plan.skipped]
    assert got == ([] if expect is None else [expect])
    if expect and expect[0] == "shortfall":
        assert plan.shortfall[0].reason.startswith("already deleted 1m ago but stays Terminating")


def test_cli_exits_4_for_a_statefulset_pod_already_terminating_on_the_failed_node(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(snapshot_list(*zone("n", 3, "z1"),
                                          _terminating(pod("db-0", "n1", owner=("StatefulSet", "db"))))))
    r = run_cli("-f", str(f), "-o", "json", "controller", "--fail", "n1")
    assert r.returncode == 4, r.stderr
    assert [(e["pod"], e["code"]) for e in json.loads(r.stdout)["shortfall"]] == [("db-0", "waits-for-old-pod")]


def test_pod_already_terminating_whose_statefulset_is_gone_waits_for_nothing():
    """The same Terminating db-0 on a failing node, but its StatefulSet is not in a cluster whose
    StatefulSets the input holds in full: the garbage collector deletes the pod
    (garbagecollector.go attemptToDeleteItem) and no StatefulSet recreates it, so nothing waits
    for the old pod."""
    items = zone("n", 3, "z1") + [_terminating(pod("db-0", "n1", owner=("StatefulSet", "db")))]
    docs = snapshot_list(*items, owners=False)["items"]
    docs[0] = dict(docs[0], serverVersion="v1.33")
    snap = freeze([("t.json", "", d) for d in docs])
    plan = plan_controller(snap, ControllerPlanSettings(fail=("n1",), controller=ControllerSettings()),
                           snap.info.taken_at)
    assert [e.code for e in plan.shortfall] == []
