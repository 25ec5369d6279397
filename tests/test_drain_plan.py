"""The drain plan: placement of replacements, PDB budgets drawn down across nodes, waves,
multi-node windows, --one-at-a-time, --disable-eviction, and the command line.

Expected targets and reasons follow kube-scheduler's Filter plugins (NodeUnschedulable,
TaintToleration, NodeAffinity, NodePorts, NodeResourcesFit, InterPodAffinity) and its FitError
text; budgets follow the disruption controller and the Eviction API (see test_pdb_eviction.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from conftest import snapshot_list
from kubectl_evict.rules.drain import DrainSettings, plan_drain
from kubectl_evict.rules.drain_sequence import plan_drain_in_order
from kubectl_evict.rules.drain_filters import FilterFlags
from kubectl_evict.source.freeze import freeze
from kubectl_evict.timeutil import parse_time

NOW = parse_time("2026-11-21T12:00:00Z")
REPO = Path(__file__).resolve().parents[1]


# -- builders -------------------------------------------------------------------------------------

def node(name: str, cpu: str = "4", memory: str = "8Gi", pods: int = 110, labels: Optional[dict] = None,
         taints: Optional[list] = None, ready: str = "True", unschedulable: bool = False, **extra: str) -> dict:
    alloc = {"cpu": cpu, "memory": memory, "pods": str(pods)}
    alloc.update(extra)
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": dict({"kubernetes.io/hostname": name}, **(labels or {}))},
            "spec": {"taints": taints or [], "unschedulable": unschedulable},
            "status": {"allocatable": alloc, "capacity": alloc, "conditions": [{"type": "Ready", "status": ready}]}}


def deployment(name: str, replicas: int, ns: str = "default") -> List[dict]:
    """A Deployment and its ReplicaSet `<name>-rs`."""
    return [{"apiVersion": "apps/v1", "kind": "Deployment",
             "metadata": {"name": name, "namespace": ns, "uid": "dep-" + name}, "spec": {"replicas": replicas}},
            {"apiVersion": "apps/v1", "kind": "ReplicaSet",
             "metadata": {"name": name + "-rs", "namespace": ns, "uid": "rs-" + name, "ownerReferences": [
                 {"apiVersion": "apps/v1", "kind": "Deployment", "name": name, "uid": "dep-" + name, "controller": True}]},
             "spec": {"replicas": replicas}}]


def pod(name: str, on: str, app: Optional[str] = None, cpu: str = "100m", memory: str = "128Mi", ns: str = "default",
        ready: bool = True, phase: str = "Running", spec: Optional[dict] = None, owner: Optional[str] = "auto",
        requests: Optional[dict] = None) -> dict:
    app = app or name.rsplit("-", 1)[0]
    meta: Dict[str, Any] = {"name": name, "namespace": ns, "uid": "uid-" + name, "labels": {"app": app}}
    if owner == "auto":
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": app + "-rs",
                                    "uid": "rs-" + app, "controller": True}]
    reqs = requests if requests is not None else {"cpu": cpu, "memory": memory}
    body = {"nodeName": on, "containers": [{"name": "c", "resources": {"requests": reqs}}]}
    body.update(spec or {})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body,
            "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def pdb(name: str, app: str, status: Optional[dict] = None, ns: str = "default", **spec: Any) -> dict:
    obj = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
           "metadata": {"name": name, "namespace": ns, "generation": 1},
           "spec": dict({"selector": {"matchLabels": {"app": app}}}, **spec)}
    if status is not None:
        obj["status"] = dict({"observedGeneration": 1}, **status)
    return obj


def snapshot(*objs: Any, version: str = "v1.33.3") -> Any:
    """The objects as a cluster of `version` (the expected FailedScheduling texts here are
    v1.33's; tests/test_versions.py has the other releases')."""
    flat: List[dict] = []
    for o in objs:
        flat.extend(o if isinstance(o, list) else [o])
    snap = freeze([("test", str(i), o) for i, o in enumerate(flat)])
    return snap.set(info=snap.info.set(server_version=version))


def drain(snap: Any, *nodes: str, **kw: Any) -> Any:
    flags = FilterFlags(**{k: kw.pop(k) for k in ("force", "ignore_daemonsets", "delete_emptydir_data") if k in kw})
    plan = plan_drain_in_order if kw.pop("one_at_a_time", False) else plan_drain
    return plan(snap, DrainSettings(nodes=nodes, filters=flags, **kw), NOW)


def evictions(plan: Any) -> Dict[str, tuple]:
    return {a.pod: (a.at, a.target) for a in plan.actions if a.type in ("evict", "delete")}


def blocked(plan: Any) -> Dict[str, str]:
    return {e.pod: e.reason for e in plan.blocked}


def shortfall(plan: Any) -> Dict[str, str]:
    """Pods that are evicted but whose replacement has nowhere to go: never also blocked."""
    assert not {e.pod for e in plan.shortfall} & {e.pod for e in plan.blocked}
    return {e.pod: e.reason for e in plan.shortfall}


# -- placement ------------------------------------------------------------------------------------

def test_capacity_is_deducted_as_pods_land() -> None:
    """Two 1-cpu nodes, three 600m pods: one per node, the third fits nowhere. kubectl starts the
    node's last pod's eviction first (Go runs the goroutine started last first), then the others in
    order: web-2, web-0, web-1 (`arrival_order`)."""
    snap = snapshot(node("src", cpu="8"), node("a", cpu="1"), node("b", cpu="1"), deployment("web", 3),
                    [pod("web-%d" % i, "src", cpu="600m") for i in range(3)])
    plan = drain(snap, "src")
    ev = evictions(plan)
    assert ev["web-2"] == (0, "a")      # equal free fraction: name decides
    assert ev["web-0"] == (0, "b")
    assert ev["web-1"] == (0, None)
    assert shortfall(plan) == {"web-1": "evicted, but its replacement has nowhere to go: 0/3 nodes are available: "
                                        "1 node(s) were unschedulable, 2 Insufficient cpu. preemption: "
                                        "0/3 nodes are available: 1 Preemption is not helpful for scheduling, "
                                        "2 No preemption victims found for incoming pod."}
    assert [e.code for e in plan.shortfall] == ["no-node-fits"] and not plan.blocked
    assert plan.notes[-1] == "node/src: can be drained, but 1 replacement stays Pending in 1 wave (~30s)"


def test_least_allocated_node_wins() -> None:
    snap = snapshot(node("src"), node("busy"), node("idle"), deployment("web", 1), deployment("x", 1),
                    pod("x-1", "busy", cpu="3"), pod("web-1", "src"))
    assert evictions(drain(snap, "src"))["web-1"] == (0, "idle")


@pytest.mark.parametrize("case,target_spec,pod_spec,expect_target,reason", [
    ("untolerated taint", {"taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]}, {}, None,
     "1 node(s) had untolerated taint {gpu: true}"),
    ("tolerated taint", {"taints": [{"key": "gpu", "value": "true", "effect": "NoSchedule"}]},
     {"tolerations": [{"key": "gpu", "operator": "Exists"}]}, "t", ""),
    ("PreferNoSchedule is only a score", {"taints": [{"key": "x", "effect": "PreferNoSchedule"}]}, {}, "t", ""),
    ("nodeSelector", {"labels": {"disk": "hdd"}}, {"nodeSelector": {"disk": "ssd"}}, None,
     "1 node(s) didn't match Pod's node affinity/selector"),
    ("nodeSelector matches", {"labels": {"disk": "ssd"}}, {"nodeSelector": {"disk": "ssd"}}, "t", ""),
    ("required node affinity", {"labels": {"zone": "b"}}, {"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}}}, None,
     "1 node(s) didn't match Pod's node affinity/selector"),
    ("not ready node", {"ready": "False"}, {}, None, "1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }"),
    ("cordoned node", {"unschedulable": True}, {}, None, "2 node(s) were unschedulable"),
    ("too many pods", {"pods": 0}, {}, None, "1 Too many pods"),
    ("extended resource missing", {}, {"containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "1"}}}]},
     None, "1 Insufficient nvidia.com/gpu"),
])
def test_scheduler_filters(case: str, target_spec: dict, pod_spec: dict, expect_target: Optional[str], reason: str) -> None:
    snap = snapshot(node("src"), node("t", **target_spec), deployment("web", 1), pod("web-1", "src", spec=pod_spec))
    plan = drain(snap, "src")
    assert evictions(plan)["web-1"] == (0, expect_target)
    if expect_target is None:
        assert reason in shortfall(plan)["web-1"]
        assert shortfall(plan)["web-1"].startswith("evicted, but its replacement has nowhere to go: 0/2 nodes are available: ")
    else:
        assert not plan.blocked


def test_extended_resources_are_counted() -> None:
    """Two GPU pods, one node with 1 GPU free: the second to arrive (ml-0; ml-1, the node's last
    pod, is evicted first) has nowhere to go."""
    gpu = {"nvidia.com/gpu": "1"}
    snap = snapshot(node("src", **{"nvidia.com/gpu": "4"}), node("g", **{"nvidia.com/gpu": "1"}), node("plain"),
                    deployment("ml", 2), [pod("ml-%d" % i, "src", requests=gpu) for i in range(2)])
    plan = drain(snap, "src")
    assert evictions(plan) == {"ml-1": (0, "g"), "ml-0": (0, None)}
    assert "2 Insufficient nvidia.com/gpu" in shortfall(plan)["ml-0"]   # g is full, plain has none
    assert "1 node(s) were unschedulable" in shortfall(plan)["ml-0"]


def test_effective_requests_include_init_containers_and_overhead() -> None:
    """An init container asking 3 cpu makes the pod need 3 cpu (max(init, sum of containers))."""
    spec = {"initContainers": [{"name": "init", "resources": {"requests": {"cpu": "3"}}}], "overhead": {"cpu": "500m"}}
    snap = snapshot(node("src"), node("small", cpu="3"), node("big", cpu="4", memory="1Gi"), deployment("web", 1),
                    pod("web-1", "src", spec=spec))
    assert evictions(drain(snap, "src"))["web-1"] == (0, "big")


def test_hostname_anti_affinity() -> None:
    """A replica with required anti-affinity on kubernetes.io/hostname avoids the node where its
    sibling runs, and so does the second evicted replica once the first (db-2, the node's last
    pod) has landed."""
    anti = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}]}}}
    snap = snapshot(node("src"), node("a"), node("b"), node("c", cpu="2"), deployment("db", 3),
                    pod("db-0", "a", spec=anti), pod("db-1", "src", spec=anti), pod("db-2", "src", spec=anti))
    plan = drain(snap, "src")
    ev = evictions(plan)
    assert ev["db-2"] == (0, "b")
    assert ev["db-1"] == (0, "c")
    snap = snapshot(node("src"), node("a"), deployment("db", 3), pod("db-0", "a", spec=anti), pod("db-1", "src", spec=anti))
    reason = shortfall(drain(snap, "src"))["db-1"]
    assert "1 node(s) didn't match pod anti-affinity rules" in reason


def test_host_ports() -> None:
    port = {"containers": [{"name": "c", "ports": [{"containerPort": 80, "hostPort": 80}]}]}
    snap = snapshot(node("src"), node("a"), node("b"), deployment("ingress", 2), deployment("lb", 1),
                    pod("lb-0", "a", spec=port), pod("ingress-0", "src", spec=port))
    assert evictions(drain(snap, "src"))["ingress-0"] == (0, "b")


def test_preferred_affinity_beats_free_capacity() -> None:
    pref = {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 10, "preference": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["gold"]}]}}]}}}
    snap = snapshot(node("src"), node("gold", labels={"tier": "gold"}), node("idle"), deployment("x", 1),
                    deployment("web", 1), pod("x-1", "gold", cpu="3"), pod("web-1", "src", spec=pref))
    assert evictions(drain(snap, "src"))["web-1"] == (0, "gold")


def test_pods_nobody_recreates_get_no_target_and_a_note() -> None:
    snap = snapshot(node("src"), node("a"), pod("bare", "src", owner=None),
                    {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "namespace": "default"}},
                    pod("job-x", "src", phase="Succeeded", ready=False, spec={},
                        owner=None) | {"metadata": {"name": "job-x", "namespace": "default", "ownerReferences": [
                            {"apiVersion": "batch/v1", "kind": "Job", "name": "job", "controller": True}]}})
    plan = drain(snap, "src", force=True)
    assert evictions(plan) == {"bare": (0, None), "job-x": (0, None)}
    assert not plan.blocked
    assert "default/bare: no replacement after eviction (no controller: nothing recreates it)" in plan.notes
    assert any(n.startswith("default/job-x: no replacement") for n in plan.notes)
    assert "deleting Pods that declare no controller: default/bare" in plan.warnings


# -- PDB budgets and waves ------------------------------------------------------------------------

def test_pdb_budget_makes_a_second_wave() -> None:
    """maxUnavailable 1 over 3 replicas, two on the node: one now (web-1: kubectl starts the node's
    last pod first), one after --pod-startup."""
    snap = snapshot(node("src"), node("a"), node("b"), deployment("web", 3), pdb("web", "web", maxUnavailable=1),
                    pod("web-0", "src"), pod("web-1", "src"), pod("web-2", "a"))
    plan = drain(snap, "src", pod_startup=45.0)
    ev = evictions(plan)
    assert ev["web-1"][0] == 0 and ev["web-0"][0] == 45
    assert ev["web-0"][1] and ev["web-1"][1]
    assert plan.notes[-1] == "node/src: can be drained in 2 waves (~1m30s)"
    assert not plan.blocked


def test_budget_is_shared_across_nodes() -> None:
    """One maintenance window: the PDB's single disruption is spent once for both nodes."""
    snap = snapshot(node("n1"), node("n2"), node("spare"), deployment("web", 3),
                    pdb("web", "web", status={"disruptionsAllowed": 1, "currentHealthy": 3, "desiredHealthy": 2,
                                              "expectedPods": 3}, maxUnavailable=1),
                    pod("web-0", "n1"), pod("web-1", "n2"), pod("web-2", "spare"))
    plan = drain(snap, "n1", "n2")
    ev = evictions(plan)
    assert ev == {"web-0": (0, "spare"), "web-1": (30, "spare")}
    assert [a.type for a in plan.actions[:2]] == ["cordon", "cordon"]
    assert plan.notes[-2:] == ["node/n1: can be drained in 1 wave (~30s)", "node/n2: can be drained in 2 waves (~1m)"]
    budgets = {b["name"]: b for b in plan.extra["budgets"]}
    assert budgets["web"]["source"] == "status" and budgets["web"]["spent"] == 2


def test_blocked_when_the_replacement_cannot_land() -> None:
    """The first eviction (big-2, the node's last pod: kubectl starts it first) spends the budget;
    its replacement has nowhere to go, so the budget never comes back and the other pods are
    blocked, naming the PDB and that pod."""
    snap = snapshot(node("src", cpu="16"), node("small", cpu="1"), deployment("big", 3),
                    pdb("big", "big", maxUnavailable=1), pod("big-0", "src", cpu="2"), pod("big-1", "src", cpu="2"),
                    pod("big-2", "src", cpu="2"))
    plan = drain(snap, "src")
    assert evictions(plan) == {"big-2": (0, None)}
    reasons = blocked(plan)
    assert reasons["big-0"] == (
        "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget big needs 2 healthy "
        "pods and has 2 currently (PDB default/big): budget spent and never given back: the replacement of "
        "default/big-2 (evicted at +0s) has nowhere to go")
    assert reasons["big-1"] == reasons["big-0"]


def test_single_replica_under_zero_budget() -> None:
    snap = snapshot(node("src"), node("a"), deployment("pay", 1), pdb("pay", "pay", minAvailable=1), pod("pay-0", "src"))
    plan = drain(snap, "src")
    assert evictions(plan) == {}
    assert blocked(plan)["pay-0"] == (
        "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget pay needs 1 healthy "
        "pods and has 1 currently (PDB default/pay): single-replica Deployment default/pay under a PDB that allows 0 "
        "disruptions: scale it to 2 replicas (or relax the PDB) before draining")
    assert plan.notes[-1] == "node/src: will not finish: 1 pod is held by its PodDisruptionBudget"


def test_blocked_reason_names_the_unhealthy_pods() -> None:
    """A budget at 0 because a sibling is down: the reason says which pod is to blame."""
    snap = snapshot(node("src"), node("a"), deployment("db", 3), pdb("db", "db", minAvailable=2),
                    pod("db-0", "src"), pod("db-1", "a"), pod("db-2", "a", ready=False))
    assert blocked(drain(snap, "src"))["db-0"].endswith(
        "the PDB allows 0 disruptions now (2 healthy, 2 desired); not healthy: default/db-2")


def test_pod_covered_by_two_pdbs() -> None:
    snap = snapshot(node("src"), node("a"), deployment("web", 3), pdb("web", "web", maxUnavailable=1),
                    pdb("web-canary", "web", maxUnavailable=1), pod("web-0", "src"), pod("web-1", "a"))
    plan = drain(snap, "src")
    assert blocked(plan)["web-0"] == ("This pod has more than one PodDisruptionBudget, which the eviction subresource "
                                      "does not support. (PDBs: default/web, default/web-canary)")


@pytest.mark.parametrize("policy,healthy,evicted", [
    ("AlwaysAllow", 1, True),          # unready pods always go, budget untouched
    ("", 2, True),                     # IfHealthyBudget: currentHealthy 2 >= desired 2
    ("", 1, False),                    # IfHealthyBudget: 1 < 2 -> normal check -> 429
])
def test_unready_pods_and_unhealthy_pod_eviction_policy(policy: str, healthy: int, evicted: bool) -> None:
    spec: Dict[str, Any] = {"minAvailable": 2}
    if policy:
        spec["unhealthyPodEvictionPolicy"] = policy
    pods = [pod("web-0", "src", ready=False)] + [pod("web-%d" % i, "a") for i in range(1, healthy + 1)]
    snap = snapshot(node("src"), node("a"), deployment("web", 3), pdb("web", "web", **spec), pods)
    plan = drain(snap, "src")
    assert ("web-0" in evictions(plan)) == evicted
    assert ("web-0" in blocked(plan)) == (not evicted)
    if evicted:
        assert next(a.reason for a in plan.actions if a.pod == "web-0").startswith("not Ready: evicted without spending")


@pytest.mark.parametrize("policy,web2_ready,expect", [
    # minAvailable 2, healthy 2 (web-1, web-2): the not-Ready web-0 goes without spending
    # (IfHealthyBudget); once its replacement is Ready the controller counts 3 healthy,
    # disruptionsAllowed 1, and kubectl's 5-second retry of web-1 (429 until then) goes through
    ("", True, {"web-0": 0, "web-1": 30}),
    # healthy 1 (web-1) < desired 2 with AlwaysAllow: web-0 goes; its replacement brings healthy to
    # 2 = desired, so disruptionsAllowed stays 0 and web-1 is held for good
    ("AlwaysAllow", False, {"web-0": 0}),
    # the same without AlwaysAllow: 1 < 2, so web-0 meets the normal check too (429)
    ("", False, {}),
])
def test_ready_replacement_of_an_unready_pod_raises_current_healthy(policy: str, web2_ready: bool,
                                                                   expect: Dict[str, int]) -> None:
    """semantics.md G.3 and G.5: an unready pod evicted without spending the budget is replaced by
    a Ready pod, which raises currentHealthy (and so disruptionsAllowed) for the pods kubectl retries."""
    spec: Dict[str, Any] = {"minAvailable": 2}
    if policy:
        spec["unhealthyPodEvictionPolicy"] = policy
    snap = snapshot(node("src"), node("a"), node("b"), deployment("web", 3), pdb("web", "web", **spec),
                    pod("web-0", "src", ready=False), pod("web-1", "src"), pod("web-2", "a", ready=web2_ready))
    plan = drain(snap, "src")
    assert {p: at for p, (at, _) in evictions(plan).items()} == expect
    assert set(blocked(plan)) == {"web-0", "web-1"} - set(expect)
    assert [e.code for e in plan.blocked] == ["pdb-budget"] * len(plan.blocked)


def test_pod_selector_lists_only_the_selected_pods() -> None:
    """semantics.md F.1/F.3: kubectl drain lists the node's pods with --pod-selector as the label
    selector, so pods it does not select are never filtered: an unmanaged pod left out does not
    fail the drain (it would without --force), and stays running."""
    from kubectl_evict.scheduling.labels import parse_selector_string
    snap = snapshot(node("src"), node("a"), deployment("web", 1), deployment("db", 1),
                    pod("web-0", "src"), pod("db-0", "src"), pod("debug", "src", owner=None))
    plan = drain(snap, "src", pod_selector=parse_selector_string("app=web"))
    assert evictions(plan) == {"web-0": (0, "a")}
    assert not plan.blocked
    assert {e.pod: e.code for e in plan.skipped} == {"db-0": "not-selected", "debug": "not-selected"}


@pytest.mark.parametrize("phase,deleting", [("Pending", False), ("Succeeded", False), ("Running", True)])
def test_pods_the_api_lets_through_do_not_spend_budget(phase: str, deleting: bool) -> None:
    p = pod("web-0", "src", phase=phase, ready=phase == "Running")
    if deleting:
        p["metadata"]["deletionTimestamp"] = "2026-11-21T11:59:50Z"
    snap = snapshot(node("src"), node("a"), deployment("web", 3),
                    pdb("web", "web", status={"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1,
                                              "expectedPods": 3}, maxUnavailable=1),
                    p, pod("web-1", "src"), pod("web-2", "a"))
    ev = evictions(drain(snap, "src"))
    assert ev["web-0"][0] == 0 and ev["web-1"][0] == 0    # web-1 still finds the one disruption


# A pod already being deleted is no longer active (`pkg/controller/controller_utils.go`
# IsPodActive: no deletionTimestamp), so a ReplicaSet or ReplicationController created its
# replacement when the deletion began: evicting it again creates none, and the plan places none.
# A StatefulSet recreates the pod (same name) only once it is gone: that one is placed.
@pytest.mark.parametrize("kind,target", [("ReplicaSet", None), ("ReplicationController", None),
                                         ("StatefulSet", "a")])
def test_an_already_terminating_pod_is_not_replaced_again(kind: str, target: Optional[str]) -> None:
    p = pod("web-0", "src")
    p["metadata"]["deletionTimestamp"] = "2026-11-21T11:59:50Z"
    p["metadata"]["ownerReferences"][0].update(kind=kind, apiVersion="v1" if kind == "ReplicationController" else "apps/v1")
    plan = drain(snapshot(node("src"), node("a"), p), "src")
    assert evictions(plan) == {"web-0": (0, target)}
    assert not plan.shortfall and not plan.blocked


# kube-scheduler's preemption deletes victims directly (no Eviction API: scheduler.md S6.7), yet
# the disruption controller counts a deleted pod as unhealthy all the same (semantics.md G5:
# currentHealthy counts Ready pods without a deletionTimestamp), so the victim's budget drops.
# PDB fa: 4 replicas, maxUnavailable 1 (desired 3, allowed 1). web-0 (priority 1000) fits only
# by preempting a fa pod; fa-0 takes the one disruption in the first wave. With the victim's
# replacement landing (room on x), fa-1 goes once both replacements are Ready; with no room
# anywhere, currentHealthy stays 3 = desired and fa-1's eviction is refused for good. (x has
# room for a fa pod, not for web-0's memory.)
@pytest.mark.parametrize("case,extra,fa1", [
    ("the victim's replacement lands: fa-1 goes in wave 2", [node("x", cpu="1", memory="1Gi")], 30),
    ("the victim's replacement fits nowhere: fa-1 is held", [], None),
])
def test_a_preemption_victim_takes_its_budget_down(case: str, extra: list, fa1: Any) -> None:
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "hi"}, "value": 1000}
    web = pod("web-0", "src", cpu="500m", memory="2Gi", spec={"priorityClassName": "hi", "priority": 1000})
    full = [node("a", cpu="1"), node("b", cpu="1")]
    snap = snapshot(node("src"), *full, *extra, pc, deployment("web", 1), deployment("fa", 4), web,
                    pod("fa-0", "src", cpu="100m"), pod("fa-1", "src", cpu="100m"),
                    pod("fa-2", "a", cpu="800m"), pod("fa-3", "b", cpu="800m"),
                    pdb("fa", "fa", maxUnavailable=1, status={"disruptionsAllowed": 1, "currentHealthy": 4,
                                                              "desiredHealthy": 3, "expectedPods": 4}))
    plan = drain(snap, "src")
    assert [a.pod for a in plan.actions if a.type == "delete"] == ["fa-2"], case
    if fa1 is None:
        assert "fa-1" not in evictions(plan) and "fa-1" in blocked(plan), case
        assert "the replacement of default/fa-2 (preempted at +0s) has nowhere to go" in blocked(plan)["fa-1"]
    else:
        assert evictions(plan)["fa-1"][0] == fa1 and not plan.blocked, case


def _started(p: dict, at: str) -> dict:
    p["status"]["startTime"] = at
    return p


# Preemption ranks victims by the PDBs' status as the scheduler's lister holds it at that moment
# (scheduler.md S6.3-4: `filterPodsWithPDBViolation` decrements a working copy of
# status.disruptionsAllowed; violating pods are reprieved first), not as it was before the drain.
# Real v1.33 drain (tests/data/real-drains/11.json): web18's PDB allowed 1, a first preemption
# deleted web18-pljmm whose replacement never landed (currentHealthy 1 = desired 1: allowed 0,
# semantics.md G5); the later preemption on node-b7 then reprieved web18-qqhwp and deleted the
# older, non-PDB web8-gs8sn. Here: wave 0, a-0 (priority 1000, only t1) preempts db-1, whose
# replacement fits nowhere (db allows 1 in the snapshot, 0 after that); wave 1 (PDB b holds b-0
# until b-1's replacement is Ready on r), b-0 needs t2: db-2 is violating now and is reprieved
# first, so x-0 goes, although it started earlier (with the snapshot's status both are
# non-violating and the younger db-2 would go).
@pytest.mark.parametrize("case,db_allowed,victims", [
    ("db's budget lost in wave 0: x-0 goes in wave 1", 1, [("db-1", "t1", 0), ("x-0", "t2", 30)]),
    ("db already at 0 in the snapshot: the same", 0, [("db-1", "t1", 0), ("x-0", "t2", 30)]),
])
def test_preemption_reads_the_budgets_as_the_drain_left_them(case: str, db_allowed: int, victims: list) -> None:
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "hi"}, "value": 1000}
    hi = {"priorityClassName": "hi", "priority": 1000}
    db_spec = {"nodeSelector": {"pool": "db"}}
    snap = snapshot(
        node("src"), node("t1", cpu="1", labels={"pool": "db"}), node("t2", cpu="2", labels={"pool": "db"}),
        node("r", cpu="1"), pc, deployment("a", 1), deployment("b", 2), deployment("db", 2), deployment("x", 1),
        pod("a-0", "src", cpu="1", spec=dict(hi, nodeSelector={"kubernetes.io/hostname": "t1"})),
        pod("b-0", "src", cpu="1", spec=hi), pod("b-1", "src", cpu="1", spec=hi),
        _started(pod("db-1", "t1", cpu="1", spec=db_spec), "2026-11-21T10:00:00Z"),
        _started(pod("db-2", "t2", cpu="1", spec=db_spec), "2026-11-21T11:00:00Z"),
        _started(pod("x-0", "t2", cpu="1"), "2026-11-21T09:00:00Z"),
        pdb("b", "b", maxUnavailable=1, status={"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1,
                                                "expectedPods": 2}),
        pdb("db", "db", maxUnavailable=1, status={"disruptionsAllowed": db_allowed, "currentHealthy": 1 + db_allowed,
                                                  "desiredHealthy": 1, "expectedPods": 2}))
    plan = drain(snap, "src")
    assert [(a.pod, a.node, a.at) for a in plan.actions if a.type == "delete"] == victims, case
    assert evictions(plan)["b-0"] == (30, "t2"), case


# kubectl evicts a node's pods in parallel (semantics.md F6) and the Eviction API decrements
# disruptionsAllowed on each (G4.5) before the controllers have created the replacements, so a
# replacement's preemption reads the budgets the whole burst has spent (scheduler.md S6.4), not
# those left when its own pod was evicted. a-0 (priority 1000, only t) and db-0 go together; db
# allows 1 and db-0 spends it, so on t db-1 is PDB-violating and is reprieved first: x-0 goes,
# though it started earlier. (Real v1.33 drain tests/data/real-drains/25.json: web9's replacement
# spared shop/db17-4, whose PDB the drain had spent, and preempted db6-5 and web7 replacements.)
def test_preemption_sees_the_budget_the_whole_burst_spent() -> None:
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "hi"}, "value": 1000}
    snap = snapshot(
        node("src"), node("t", cpu="2"), node("r", cpu="1"), pc, deployment("a", 1), deployment("db", 2),
        deployment("x", 1),
        pod("a-0", "src", cpu="1", spec={"priorityClassName": "hi", "priority": 1000,
                                         "nodeSelector": {"kubernetes.io/hostname": "t"}}),
        pod("db-0", "src", cpu="1"),
        _started(pod("db-1", "t", cpu="1"), "2026-11-21T11:00:00Z"),
        _started(pod("x-0", "t", cpu="1"), "2026-11-21T09:00:00Z"),
        pdb("db", "db", maxUnavailable=1, status={"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1,
                                                  "expectedPods": 2}))
    plan = drain(snap, "src")
    assert [(a.pod, a.node, a.at) for a in plan.actions if a.type == "delete"] == [("x-0", "t", 0)]
    assert evictions(plan)["a-0"] == (0, "t")


_NEEDS_CACHE = {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
    {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "kubernetes.io/hostname"}]}}}


# A replacement that fits nowhere when it arrives stays in kube-scheduler's queue and is tried
# again when a pod it may now fit next to is added (queueing hints; at the latest after 5 minutes
# in the unschedulable queue: pkg/scheduler/backend/queue/scheduling_queue.go). web-* need a cache
# pod on their node (scheduler.md S3.5.1); kubectl evicts the node's last pod first (web-1), so
# web's replacements arrive before cache's and land next to it on the retry. PDB web allows 1:
# web-1's budget comes back once its replacement is Ready, so web-0 goes in the second wave.
@pytest.mark.parametrize("case,with_cache,one_at_a_time,want", [
    ("the cache's replacement lands: web's follow it", True, False,
     {"cache-0": (0, "x"), "web-1": (0, "x"), "web-0": (30, "x")}),
    ("the same, one node at a time", True, True, {"cache-0": (0, "x"), "web-1": (0, "x"), "web-0": (30, "x")}),
    ("no cache anywhere: the retry changes nothing", False, False, {"web-1": (0, None)}),
])
def test_a_pending_replacement_is_retried_after_the_wave(case: str, with_cache: bool, one_at_a_time: bool,
                                                         want: dict) -> None:
    objs = [node("src"), node("x"), deployment("web", 2), deployment("cache", 1),
            pod("web-0", "src", spec=_NEEDS_CACHE), pod("web-1", "src", spec=_NEEDS_CACHE),
            pdb("web", "web", maxUnavailable=1, status={"disruptionsAllowed": 1, "currentHealthy": 2,
                                                        "desiredHealthy": 1, "expectedPods": 2})]
    if with_cache:
        objs.append(pod("cache-0", "src"))
    plan = drain(snapshot(*objs), "src", one_at_a_time=one_at_a_time)
    assert evictions(plan) == want, case
    if with_cache:
        assert not plan.shortfall and not plan.blocked, case
    else:
        assert set(shortfall(plan)) == {"web-1"} and set(blocked(plan)) == {"web-0"}, case


def test_stale_status_is_recomputed_with_a_warning() -> None:
    stale = pdb("web", "web", status={"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0,
                                      "observedGeneration": 1}, maxUnavailable=1)
    stale["metadata"]["generation"] = 2
    snap = snapshot(node("src"), node("a"), deployment("web", 2), stale, pod("web-0", "src"), pod("web-1", "a"))
    plan = drain(snap, "src")
    assert evictions(plan)["web-0"] == (0, "a")
    assert any("status is stale (observedGeneration 1 < generation 2)" in w for w in plan.warnings)


# -- several nodes, sequences, --disable-eviction ---------------------------------------------------

def test_window_nodes_are_never_targets() -> None:
    snap = snapshot(node("n1"), node("n2", cpu="64"), node("small", cpu="1"), deployment("web", 1), pod("web-0", "n1", cpu="2"))
    plan = drain(snap, "n1", "n2")
    assert evictions(plan) == {"web-0": (0, None)}
    assert "2 node(s) were unschedulable" in shortfall(plan)["web-0"]


UNSCHED = "node.kubernetes.io/unschedulable"


@pytest.mark.parametrize("tolerations,one_at_a_time,expect", [
    # NodeUnschedulable (node_unschedulable.go) lets a pod onto a cordoned node when it tolerates
    # {node.kubernetes.io/unschedulable, NoSchedule}; the drained node, whose pods are leaving, is the
    # least allocated, so the replacement goes back there (kubectl drain lists pods once).
    ([{"operator": "Exists"}], False, "src"),
    ([{"key": UNSCHED, "operator": "Exists", "effect": "NoSchedule"}], False, "src"),
    ([{"key": UNSCHED, "operator": "Exists"}], True, "src"),
    ([{"key": UNSCHED, "operator": "Exists", "effect": "NoExecute"}], False, "busy"),   # effect differs
    ([{"key": "other", "operator": "Exists"}], False, "busy"),
    (None, False, "busy"),
])
def test_a_replacement_tolerating_the_cordon_may_land_back_on_the_drained_node(
        tolerations: Optional[list], one_at_a_time: bool, expect: str) -> None:
    spec = {"tolerations": tolerations} if tolerations else {}
    snap = snapshot(node("src"), node("busy"), deployment("web", 1), deployment("x", 1),
                    pod("x-1", "busy", cpu="3"), pod("web-1", "src", spec=spec))
    plan = drain(snap, "src", one_at_a_time=one_at_a_time)
    assert evictions(plan)["web-1"] == (0, expect)
    back = [w for w in plan.warnings if "land back" in w]
    assert back == ([] if expect != "src" else [
        "default/web-1: its replacement may land back on node/src, which this drain cordoned: it tolerates "
        "node.kubernetes.io/unschedulable:NoSchedule, so kube-scheduler's NodeUnschedulable filter lets it there, "
        "and kubectl drain does not evict it again"])
    assert not plan.shortfall


def test_one_at_a_time_sequences_nodes_and_plans_second_evictions() -> None:
    """n1's pods land on n2 (not yet drained, the emptiest node); n2 starts once n1's replacements
    are ready, and evicts them again in its turn, spending the PDB's budget again."""
    snap = snapshot(node("n1"), node("n2", cpu="64"), node("small", cpu="1"), deployment("web", 3), deployment("api", 1),
                    pdb("web", "web", maxUnavailable=1), pod("web-0", "n1"), pod("web-1", "n1"), pod("web-2", "small"),
                    pod("api-0", "n2", cpu="2"))
    plan = drain(snap, "n1", "n2", one_at_a_time=True)
    got = [(a.type, a.node, a.pod, a.at, a.target) for a in plan.actions]
    # each node's last pod is evicted first (kubectl starts its goroutine last; Go runs it first)
    assert got == [("cordon", "n1", "", 0, None), ("evict", "n1", "web-1", 0, "n2"), ("evict", "n1", "web-0", 30, "n2"),
                   ("cordon", "n2", "", 60, None), ("evict", "n2", "web-0", 60, "small"),
                   ("evict", "n2", "api-0", 60, None),     # small is too small
                   ("evict", "n2", "web-1", 90, "small")]
    again = [a for a in plan.actions if a.node == "n2" and a.pod.startswith("web")]
    assert all(a.uid == "" and a.reason.startswith("evicted again: its replacement landed here after the eviction "
                                                   "from node/n1; ") for a in again)
    assert "wave 2" in again[1].reason          # the budget is spent again: one at a time
    assert plan.extra["movedMoreThanOnce"] == [
        {"namespace": "default", "pod": "web-0", "times": 2, "nodes": ["n1", "n2"]},
        {"namespace": "default", "pod": "web-1", "times": 2, "nodes": ["n1", "n2"]}]
    assert not any("move twice" in w for w in plan.warnings)
    assert plan.notes[-2] == "node/n2: can be drained, but 1 replacement stays Pending in 2 waves (~1m) (starts at +1m)"
    assert plan.notes[-1].startswith("moved more than once: 2 pods (default/web-0 x2, default/web-1 x2): their "
                                     "replacements landed on nodes drained later; to avoid it, cordon all the nodes first")


def test_plan_drain_refuses_one_at_a_time() -> None:
    """One home for draining in order: plan_drain never plans it half (without second evictions)."""
    with pytest.raises(ValueError):
        plan_drain(snapshot(node("n1")), DrainSettings(nodes=("n1",), one_at_a_time=True), NOW)


def test_already_cordoned_node() -> None:
    snap = snapshot(node("src", unschedulable=True), node("a"), deployment("web", 1), pod("web-0", "src"))
    plan = drain(snap, "src")
    assert [a.type for a in plan.actions] == ["evict"]
    assert "node/src already cordoned" in plan.notes


def test_disable_eviction_deletes_and_warns_about_lost_workloads() -> None:
    snap = snapshot(node("src"), node("a"), deployment("pay", 1), pdb("pay", "pay", minAvailable=1), pod("pay-0", "src"))
    plan = drain(snap, "src", disable_eviction=True, grace_period=10)
    [act] = [a for a in plan.actions if a.pod]
    assert (act.type, act.grace_period_seconds, act.target, act.force) == ("delete", 10, "a", False)
    assert not plan.blocked
    assert ("outage: Deployment default/pay has 0 of 1 ready replicas from +0s until +30s (plain deletions bypass "
            "PDB default/pay)") in plan.warnings
    [wl] = plan.workloads
    assert (wl.ref, wl.ready, wl.ready_min, wl.ready_min_at, wl.ready_after) == ("Deployment default/pay", 1, 0, 0, 1)


def test_multi_node_drain_warns_when_a_workload_loses_all_ready_replicas() -> None:
    snap = snapshot(node("n1"), node("n2"), node("spare"), deployment("web", 2), pod("web-0", "n1"), pod("web-1", "n2"))
    plan = drain(snap, "n1", "n2")
    assert "outage: Deployment default/web has 0 of 2 ready replicas from +0s until +30s" in plan.warnings
    [wl] = plan.workloads
    assert (wl.ready, wl.ready_min, wl.ready_min_at, wl.ready_after) == (2, 0, 0, 2)


def test_plans_are_deterministic() -> None:
    from kubectl_evict.render import render
    snap = snapshot(node("n1"), node("n2"), node("a"), node("b"), deployment("web", 4), pdb("web", "web", maxUnavailable=1),
                    [pod("web-%d" % i, "n%d" % (1 + i % 2)) for i in range(4)])
    outs = {render(drain(snap, "n1", "n2"), "json") for _ in range(3)}
    assert len(outs) == 1


# -- command line ---------------------------------------------------------------------------------

def cli(*args: str, stdin: Optional[str] = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kubectl_evict", *args], cwd=REPO, input=stdin,
                          capture_output=True, text=True, timeout=60)


def test_demo_drain_shows_wave_blocked_and_skipped_daemonset() -> None:
    r = cli("--demo", "drain", "worker-a1", "--ignore-daemonsets", "--delete-emptydir-data", "--force", "-o", "json")
    assert r.returncode == 3, r.stderr
    doc = json.loads(r.stdout)
    ats = sorted({a["at"] for a in doc["actions"] if a["type"] == "evict"})
    assert ats == [0, 30]
    assert any("disruption budget" in b["reason"] for b in doc["blocked"])
    assert any("nowhere to go" in b["reason"] and b["code"] == "no-node-fits" for b in doc["shortfall"])
    assert {b["code"] for b in doc["blocked"]} <= {"pdb-budget", "pdb-multiple", "drain-filter", "node-unreachable"}
    assert any(s["reason"] == "ignoring DaemonSet-managed Pods" for s in doc["skipped"])
    assert doc["nodes"][0]["node"] == "worker-a1" and not doc["nodes"][0]["drainable"]


def test_cli_exit_zero_when_the_drain_can_complete(tmp_path: Path) -> None:
    f = tmp_path / "c.json"
    # a complete snapshot: its SnapshotInfo says the cluster has no PodDisruptionBudget
    f.write_text(json.dumps(snapshot_list(node("src"), node("a"), *deployment("web", 1), pod("web-0", "src"))))
    r = cli("-f", str(f), "drain", "src")
    assert r.returncode == 0, r.stderr
    assert "node/src: can be drained in 1 wave (~30s)" in r.stdout
    r = cli("-f", str(f), "drain", "-l", "kubernetes.io/hostname=src", "-o", "json")
    assert r.returncode == 0 and json.loads(r.stdout)["actions"][1]["target"] == "a"


@pytest.mark.parametrize("args,code,message", [
    (["drain", "nope"], 1, 'error: node "nope" not found in the snapshot'),
    (["drain", "worker-a1", "--grace-period", "soon"], 1, "error: --grace-period: 'soon' is not an integer"),
    (["drain", "worker-a1", "--grace-period", "-2"], 1, "error: --grace-period: '-2' must be -1 or more"),
    (["drain", "worker-a1", "--pod-startup", "5x"], 1, "error: --pod-startup: invalid duration '5x'"),
    (["drain", "worker-a1", "--skip-wait-for-delete-timeout", "1.5"], 1,
     "error: --skip-wait-for-delete-timeout: '1.5' is not an integer"),
    (["drain", "worker-a1", "--pod-selector", "app in (a"], 1, "error: --pod-selector: invalid label selector"),
    (["drain", "-l", "no-such-label=1"], 1, "error: --selector: no nodes match selector 'no-such-label=1'"),
    (["drain", "worker-a1", "-l", "a=b"], 2, "error: cannot specify both a node name and a --selector option"),
    (["drain"], 2, "error: give at least one NODE or --selector"),
])
def test_cli_bad_input(args: List[str], code: int, message: str) -> None:
    r = cli("--demo", *args)
    assert r.returncode == code
    assert r.stderr.startswith(message), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
