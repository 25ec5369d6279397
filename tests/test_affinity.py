"""`affinity`: consequences of relabeling / retainting nodes for running pods.

Expected outcomes follow upstream: the taint-eviction controller (delete at once when a NoExecute
taint is not tolerated, after the smallest tolerationSeconds otherwise, never when tolerated
without seconds), IgnoredDuringExecution (nothing happens to running pods), the descheduler's
RemovePodsViolatingNodeAffinity (evict only when another node fits) and the node-affinity
design's RequiredDuringExecution (evict).
"""

import json

import pytest

from conftest import NOW, node, pod, run_cli, snapshot_list
from kubectl_evict.rules.affinity import AffinitySettings, plan_affinity
from kubectl_evict.rules.whatif import parse_label, parse_taint, parse_unlabel
from kubectl_evict.source.freeze import freeze
from kubectl_evict.timeutil import format_time, parse_time

SSD_REQUIRED = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "disktype", "operator": "In", "values": ["ssd"]}]}]}}}
SSD_REQUIRED_EXEC = {"nodeAffinity": {"requiredDuringSchedulingRequiredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "disktype", "operator": "In", "values": ["ssd"]}]}]}}}


def _plan(items, edits, enforce=False):
    snap = freeze([("t.json", "", i) for i in snapshot_list(*items)["items"]])
    settings = AffinitySettings(edits=tuple(edits), enforce_ignored_during_execution=enforce)
    return plan_affinity(snap, settings, snap.info.taken_at)


def _actions(plan):
    return [(a.type, a.pod, a.at, a.target) for a in plan.actions if a.type not in ("taint", "untaint", "label", "unlabel")]


CLUSTER = [node("n1", labels={"disktype": "ssd"}), node("n2", labels={"disktype": "ssd"}), node("n3")]

CASES = [
    ("untolerated NoExecute taint deletes at once, replacement placed elsewhere",
     [pod("web-1", "n1")], [parse_taint("n1:maint=true:NoExecute")], False,
     [("delete", "web-1", 0, "n2")], [], []),
    ("tolerationSeconds delays the deletion",
     [pod("web-1", "n1", tolerations=[{"key": "maint", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}])],
     [parse_taint("n1:maint=true:NoExecute")], False, [("delete", "web-1", 60, "n2")], [], []),
    ("tolerationSeconds 0 or negative means now",
     [pod("web-1", "n1", tolerations=[{"key": "maint", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": -5}])],
     [parse_taint("n1:maint=true:NoExecute")], False, [("delete", "web-1", 0, "n2")], [], []),
    ("tolerated forever is skipped",
     [pod("web-1", "n1", tolerations=[{"operator": "Exists"}])], [parse_taint("n1:maint=true:NoExecute")], False,
     [], [], ["web-1"]),
    ("NoSchedule taints leave running pods alone",
     [pod("web-1", "n1")], [parse_taint("n1:maint=true:NoSchedule")], False, [], [], []),
    ("DaemonSet pods do not tolerate a custom NoExecute taint and are not recreated elsewhere",
     [pod("agent-x", "n1", owner=("DaemonSet", "agent"), tolerations=[])], [parse_taint("n1:maint=true:NoExecute")], False,
     [("delete", "agent-x", 0, None)], [], []),
    ("IgnoredDuringExecution: relabeled node keeps the pod running",
     [pod("db-1", "n1", affinity=SSD_REQUIRED)], [parse_unlabel("n1:disktype")], False, [], [], ["db-1"]),
    ("--enforce-ignored-during-execution evicts when another node fits",
     [pod("db-1", "n1", affinity=SSD_REQUIRED)], [parse_unlabel("n1:disktype")], True,
     [("evict", "db-1", 0, "n2")], [], []),
    ("--enforce-ignored-during-execution leaves it when no other node fits",
     [pod("db-1", "n1", affinity=SSD_REQUIRED)], [parse_unlabel("n1:disktype"), parse_unlabel("n2:disktype")], True,
     [], ["db-1"], []),
    # RemovePodsViolatingNodeAffinity's filter requires PodHasNodeAffinity(pod, required...):
    # a pod held by its nodeSelector alone is not a candidate (descheduler node_affinity.go)
    ("--enforce-ignored-during-execution leaves a pod with only a nodeSelector",
     [pod("db-1", "n1", node_selector={"disktype": "ssd"})], [parse_unlabel("n1:disktype")], True, [], [], ["db-1"]),
    # the descheduler's DefaultEvictor at its defaults leaves bare, local-storage and
    # system-critical pods, unless annotated descheduler.alpha.kubernetes.io/evict
    ("--enforce-ignored-during-execution leaves a bare pod",
     [pod("db-1", "n1", owner=None, affinity=SSD_REQUIRED)], [parse_unlabel("n1:disktype")], True, [], [], ["db-1"]),
    ("--enforce-ignored-during-execution leaves a pod with an emptyDir",
     [pod("db-1", "n1", affinity=SSD_REQUIRED, volumes=[{"name": "tmp", "emptyDir": {}}])],
     [parse_unlabel("n1:disktype")], True, [], [], ["db-1"]),
    ("--enforce-ignored-during-execution leaves a system-critical pod",
     [pod("db-1", "n1", affinity=SSD_REQUIRED, priority=2000000000)], [parse_unlabel("n1:disktype")], True, [], [], ["db-1"]),
    ("--enforce-ignored-during-execution leaves a terminating pod",
     [dict(pod("db-1", "n1", affinity=SSD_REQUIRED), metadata=dict(pod("db-1", "n1")["metadata"],
                                                                    deletionTimestamp="2026-11-21T11:59:50Z"))],
     [parse_unlabel("n1:disktype")], True, [], [], ["db-1"]),
    ("the descheduler's evict annotation lifts those protections",
     [pod("db-1", "n1", owner=None, affinity=SSD_REQUIRED, annotations={"descheduler.alpha.kubernetes.io/evict": ""})],
     [parse_unlabel("n1:disktype")], True, [("evict", "db-1", 0, None)], [], []),
    ("RequiredDuringExecution field evicts through the Eviction API",
     [pod("db-1", "n1", affinity=SSD_REQUIRED_EXEC)], [parse_label("n1:disktype=hdd")], False,
     [("evict", "db-1", 0, "n2")], [], []),
    ("RequiredDuringExecution field is required at scheduling too: no node with disktype=ssd is left",
     [pod("db-1", "n1", affinity=SSD_REQUIRED_EXEC)], [parse_label("n1:disktype=hdd"), parse_unlabel("n2:disktype")],
     False, [("evict", "db-1", 0, None)], [], []),
    ("annotation upgrades IgnoredDuringExecution terms",
     [pod("db-1", "n1", affinity=SSD_REQUIRED, annotations={"evictplan.io/node-affinity": "RequiredDuringExecution"})],
     [parse_label("n1:disktype=hdd")], False, [("evict", "db-1", 0, "n2")], [], []),
    ("annotation also enforces nodeSelector",
     [pod("db-1", "n1", node_selector={"disktype": "ssd"}, annotations={"evictplan.io/node-affinity": "RequiredDuringExecution"})],
     [parse_unlabel("n1:disktype")], False, [("evict", "db-1", 0, "n2")], [], []),
    ("pods on other nodes are untouched",
     [pod("web-1", "n2"), pod("web-2", "n3")], [parse_taint("n1:maint=true:NoExecute")], False, [], [], []),
    ("completed pods are not running and are ignored",
     [pod("job-1", "n1", owner=("Job", "nightly"), phase="Succeeded")], [parse_taint("n1:maint=true:NoExecute")], False,
     [], [], []),
    ("unmanaged pods are deleted with no target",
     [pod("debug", "n1", owner=None)], [parse_taint("n1:maint=true:NoExecute")], False, [("delete", "debug", 0, None)], [], []),
]


@pytest.mark.parametrize("title,pods,edits,enforce,actions,blocked,skipped", CASES, ids=[c[0] for c in CASES])
def test_affinity_cases(title, pods, edits, enforce, actions, blocked, skipped):
    plan = _plan(CLUSTER + pods, edits, enforce)
    assert _actions(plan) == actions
    assert [e.pod for e in plan.blocked] == blocked
    assert [e.pod for e in plan.skipped] == skipped


def _pdb(name, **spec):
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": "default"},
            "spec": dict({"selector": {"matchLabels": {"app": "db"}}}, **spec)}


@pytest.mark.parametrize("title,pods,pdbs,enforce,actions,blocked", [
    # minAvailable 1 over the one pod: disruptionsAllowed 0, the Eviction API answers 429 and
    # nothing gives budget back
    ("a budget at 0 refuses the eviction", ["db-1"], [_pdb("db", minAvailable=1)], False, [], [("db-1", "pdb-budget")]),
    ("--enforce-ignored-during-execution evicts through the same API", ["db-1"], [_pdb("db", minAvailable=1)], True,
     [], [("db-1", "pdb-budget")]),
    # minAvailable 2 of 3: one disruption at a time, given back when the replacement is Ready
    ("a budget of 1 lets the pods go one wave apart", ["db-1", "db-2", "db-3"], [_pdb("db", minAvailable=2)], False,
     [("evict", "db-1", 0, "n2"), ("evict", "db-2", 30, "n2"), ("evict", "db-3", 60, "n2")], []),
    ("two PDBs: HTTP 500", ["db-1"], [_pdb("db", minAvailable=0), _pdb("db-too", maxUnavailable=1)], False,
     [], [("db-1", "pdb-multiple")]),
])
def test_evictions_respect_pod_disruption_budgets(title, pods, pdbs, enforce, actions, blocked):
    """RequiredDuringExecution and --enforce-ignored-during-execution evict through the Eviction API
    (semantics.md E.9, G.4): PDBs apply, budgets drawn down across the plan's evictions."""
    affinity = SSD_REQUIRED if enforce else SSD_REQUIRED_EXEC
    plan = _plan(CLUSTER + [pod(name, "n1", labels={"app": "db"}, affinity=affinity) for name in pods] + pdbs,
                 [parse_label("n1:disktype=hdd")], enforce)
    assert _actions(plan) == actions
    assert [(e.pod, e.code) for e in plan.blocked] == blocked
    assert all("not evicted: " in e.reason for e in plan.blocked)


def test_requested_taint_is_the_first_action_so_apply_adds_it():
    plan = _plan(CLUSTER + [pod("web-1", "n1")], [parse_taint("n1:maint=true:NoExecute"), parse_taint("n2:old:NoSchedule-")])
    first, second = plan.actions[0], plan.actions[1]
    assert (first.type, first.node, first.key, first.value, first.effect, first.at) == ("taint", "n1", "maint", "true", "NoExecute", 0)
    assert (second.type, second.node, second.key, second.effect) == ("untaint", "n2", "old", "NoSchedule")
    assert plan.actions[2].type == "delete"


def test_targets_account_for_capacity_already_placed():
    small = [node("n1"), node("n2", cpu="1"), node("n3", cpu="1")]
    pods = [pod("big-%d" % i, "n1", cpu="600m") for i in range(3)]
    plan = _plan(small + pods, [parse_taint("n1:maint=true:NoExecute")])
    targets = [a.target for a in plan.actions if a.type == "delete"]
    assert targets[:2] == ["n2", "n3"] and targets[2] is None      # n2 and n3 each fit one 600m pod
    assert "fits no node" in plan.actions[3].reason


def test_target_respects_taints_and_selectors():
    nodes = [node("n1"), node("gpu", taints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}]),
             node("cordoned", unschedulable=True), node("sick", ready="False"), node("ok")]
    plan = _plan(nodes + [pod("web-1", "n1")], [parse_taint("n1:maint=true:NoExecute")])
    assert plan.actions[1].target == "ok"


def test_no_edits_reports_current_violations():
    plan = _plan([node("n1"), pod("db-1", "n1", affinity=SSD_REQUIRED)], [])
    assert [e.reason for e in plan.skipped] == [
        "node does not match the pod's nodeSelector/required node affinity (IgnoredDuringExecution): "
        "Kubernetes leaves it running"]


def test_original_snapshot_is_not_changed_by_what_if():
    snap = freeze([("t.json", "", i) for i in snapshot_list(*CLUSTER, pod("web-1", "n1"))["items"]])
    before = snap.node("n1")
    plan_affinity(snap, AffinitySettings(edits=(parse_taint("n1:maint=true:NoExecute"),)), 0.0)
    assert snap.node("n1") is before and before.taints == ()


def test_demo_unlabel_evicts_required_during_execution_pod():
    res = run_cli("--demo", "-o", "json", "affinity", "--unlabel", "worker-b1:disktype")
    doc = json.loads(res.stdout)
    evicts = [a for a in doc["actions"] if a["type"] == "evict"]
    assert [a["pod"].split("-")[0] for a in evicts] == ["ledger"]
    assert evicts[0]["target"] is not None and evicts[0]["target"] != "worker-b1"
    assert any(s["pod"].startswith("search-") for s in doc["skipped"])


@pytest.mark.parametrize("tolerations,actions", [
    # the deletion scheduled for `maint` (300s from 100s ago: +200s) is kept when `other` (30s)
    # comes: processPodOnNode keeps a scheduled deletion when createdAt + min < now + min
    ([{"key": "maint", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
      {"key": "other", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}], []),
    # `maint` tolerated forever: nothing was scheduled, `other` schedules it 30s from now
    ([{"key": "maint", "operator": "Exists", "effect": "NoExecute"},
      {"key": "other", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}],
     [("delete", "web-1", 30, "n2")]),
    # a taint it does not tolerate deletes it at once, whatever was scheduled
    ([{"key": "maint", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
     [("delete", "web-1", 0, "n2")]),
], ids=["earlier-schedule-kept", "first-taint-forever", "untolerated-at-once"])
def test_added_noexecute_taint_keeps_an_earlier_scheduled_deletion(tolerations, actions):
    """semantics.md D.4: the taint-eviction controller's queued deletion is not moved earlier by
    a later NoExecute taint the pod tolerates for less time."""
    added = format_time(parse_time(NOW) - 100)
    nodes = [node("n1", taints=[{"key": "maint", "effect": "NoExecute", "timeAdded": added}]), node("n2")]
    plan = _plan(nodes + [pod("web-1", "n1", tolerations=tolerations)], [parse_taint("n1:other=x:NoExecute")])
    assert _actions(plan) == actions


def _daemonset(name, node_selector=None):
    spec = {"containers": [{"name": "c", "image": "x"}]}
    if node_selector:
        spec["nodeSelector"] = node_selector
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "default", "uid": "uid-" + name},
            "spec": {"selector": {"matchLabels": {"app": name}}, "template": {"metadata": {"labels": {"app": name}}, "spec": spec}}}


@pytest.mark.parametrize("title,on,edits,actions", [
    # NodeShouldRunDaemonPod (pkg/controller/daemon/daemon_controller.go): a node the template's
    # nodeSelector does not match gives shouldContinueRunning false, and podsShouldBeOnNode deletes
    # the pod whatever put it there
    ("relabel: node no longer matches", "n1", [parse_unlabel("n1:disktype")], [("delete", "agent-x", 0, None)]),
    ("no edits: a pod on a node the template does not match now", "n3", [], [("delete", "agent-x", 0, None)]),
    ("no edits: a pod on a matching node stays", "n1", [], []),
    # an untolerated NoSchedule taint: shouldRun false but shouldContinueRunning true
    ("NoSchedule taint leaves it", "n1", [parse_taint("n1:maint=true:NoSchedule")], []),
])
def test_daemonset_controller_deletes_pods_on_nodes_its_template_does_not_match(title, on, edits, actions):
    plan = _plan(CLUSTER + [_daemonset("agent", {"disktype": "ssd"}),
                            pod("agent-x", on, owner=("DaemonSet", "agent"), labels={"app": "agent"})], edits)
    assert _actions(plan) == actions
    assert all(a.by == "daemonset-controller" for a in plan.actions if a.type == "delete")


_TOLERATES_60S = [{"key": "maint", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}]


@pytest.mark.parametrize("title,affinity,more_edits,enforce,pdbs,actions", [
    # the plan's own eviction (RequiredDuringExecution, the descheduler) is at once; the
    # taint-eviction controller would delete the pod only 60s later (semantics.md D.4)
    ("RequiredDuringExecution evicts before the tolerated taint deletes", SSD_REQUIRED_EXEC, [], False, [],
     [("evict", "db-1", 0, "n2")]),
    ("--enforce-ignored-during-execution evicts before the tolerated taint deletes", SSD_REQUIRED, [], True, [],
     [("evict", "db-1", 0, "n2")]),
    # the Eviction API refuses (429, nothing gives budget back): the controller's plain DELETE at 60s
    ("a refused eviction leaves the controller's deletion", SSD_REQUIRED_EXEC, [], False, [_pdb("db", minAvailable=1)],
     [("delete", "db-1", 60, "n2")]),
    # the descheduler does not evict when no other node fits: the controller still deletes at 60s
    ("no node for the descheduler: the controller's deletion", SSD_REQUIRED, [parse_unlabel("n2:disktype")], True, [],
     [("delete", "db-1", 60, None)]),
])
def test_affinity_eviction_before_a_later_taint_deletion(title, affinity, more_edits, enforce, pdbs, actions):
    plan = _plan(CLUSTER + [pod("db-1", "n1", labels={"app": "db"}, affinity=affinity, tolerations=_TOLERATES_60S)] + pdbs,
                 [parse_unlabel("n1:disktype"), parse_taint("n1:maint=true:NoExecute")] + more_edits, enforce)
    assert _actions(plan) == actions
    assert plan.blocked == () or list(plan.blocked) == []


@pytest.mark.parametrize("args,expected", [
    # the same edit twice is one edit: the node gets the label or taint once, so one action
    (["--label", "n1:a=b", "--label", "n1:a=b"], [("label", "n1", None)]),
    (["--taint", "n1:k=v:NoSchedule", "--taint", "n1:k=v:NoSchedule"], [("taint", "n1", None)]),
    # one key with two effects is two taints (a taint is identified by key and effect)
    (["--taint", "n1:k=v:NoSchedule", "--taint", "n1:k=v:PreferNoSchedule"], [("taint", "n1", None), ("taint", "n1", None)]),
])
def test_repeated_edit_is_made_once(write_snapshot, args, expected):
    res = run_cli("-f", write_snapshot(*CLUSTER), "-o", "json", "affinity", *args)
    assert res.returncode == 0, res.stderr
    assert [(a["type"], a["node"], a.get("previous")) for a in json.loads(res.stdout)["actions"]] == expected


@pytest.mark.parametrize("title,n2_pods,blocked", [
    # n2 (the other ssd node, 4 cpu) has room: the descheduler evicts
    ("room on n2", 3, []),
    # n2 full of lower-priority pods: kube-scheduler could preempt them, but the descheduler's
    # PodFitsAnyNode (NodeFit: requests against the pods already there) never preempts, so it
    # does not evict (descheduler pkg/descheduler/node/node.go)
    ("room only by preemption", 4, ["db-1"]),
])
def test_enforce_needs_room_without_preemption(title, n2_pods, blocked):
    high = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000}
    db = pod("db-1", "n1", affinity=SSD_REQUIRED, cpu="1", priority=1000)
    db["spec"]["priorityClassName"] = "high"
    fill = [pod("low-%d" % i, "n2", cpu="1", owner=("ReplicaSet", "low")) for i in range(n2_pods)]
    plan = _plan(CLUSTER + [high, db] + fill, [parse_unlabel("n1:disktype")], enforce=True)
    assert [e.pod for e in plan.blocked] == blocked
    assert [a.pod for a in plan.actions if a.type in ("evict", "delete")] == ([] if blocked else ["db-1"])


def test_mirror_pod_deleted_by_the_taint_is_recreated_by_the_kubelet():
    """The taint-eviction controller deletes a mirror pod like any other (semantics.md D.5: no
    special treatment); the kubelet's SyncPod recreates the mirror of the static pod it keeps
    running (pkg/kubelet/kubelet.go: `mirrorPod == nil || deleted` -> CreateMirrorPod)."""
    mirror = pod("etcd-n1", "n1", owner=("Node", "n1"), annotations={"kubernetes.io/config.mirror": "x"})
    plan = _plan(CLUSTER + [mirror], [parse_taint("n1:maint=true:NoExecute")])
    assert _actions(plan) == [("delete", "etcd-n1", 0, None)]
    assert plan.actions[1].reason.endswith("the kubelet keeps its static pod running and recreates the mirror pod")
    assert "nothing recreates it" not in plan.actions[1].reason


def test_no_edit_check_leaves_daemonset_pods_whose_daemonset_is_not_in_the_input():
    """Without edits and without the DaemonSet, its template is unknown (its pods carry only their
    node's name): nothing is claimed, and the input is not called incomplete for a check not made."""
    plan = _plan(CLUSTER + [pod("agent-x", "n3", owner=("DaemonSet", "agent"), node_selector={"disktype": "ssd"})], [])
    assert _actions(plan) == [] and list(plan.incomplete) == []
