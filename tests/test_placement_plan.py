"""Placement in whole plans, as kube-scheduler v1.33 decides it: volume topology, topology
spread, inter-pod anti-affinity on the zone key, CSI attach limits, and preemption with its
cascade. Expected targets and texts are worked out from the upstream plugins (see
shared/spec/scheduler.md), not copied from the code's output."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import pytest

from test_drain_plan import deployment, drain, evictions, node, pdb, pod, shortfall, snapshot

ZONE = "topology.kubernetes.io/zone"


def zonal(name: str, zone: str, **kw: Any) -> dict:
    n = node(name, labels={ZONE: zone, "pool": "general"}, **kw)
    return n


def spread(app: str, max_skew: int = 1) -> dict:
    return {"topologySpreadConstraints": [{"maxSkew": max_skew, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
                                           "labelSelector": {"matchLabels": {"app": app}}}]}


def statefulset(name: str, replicas: int, ns: str = "default", policy: Optional[str] = None) -> dict:
    spec: Dict[str, Any] = {"replicas": replicas, "selector": {"matchLabels": {"app": name}}}
    if policy:
        spec["podManagementPolicy"] = policy
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": name, "namespace": ns, "uid": "sts-" + name},
            "spec": spec}


def sts_pod(name: str, on: str, claim: str, cpu: str = "100m", ns: str = "default", **kw: Any) -> dict:
    app = name.rsplit("-", 1)[0]
    p = pod(name, on, app=app, cpu=cpu, ns=ns, owner=None, **kw)
    p["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "StatefulSet", "name": app,
                                         "uid": "sts-" + app, "controller": True}]
    p["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]
    return p


def zonal_volume(claim: str, zone: str, ns: str = "default", driver: Optional[str] = None) -> List[dict]:
    pv: Dict[str, Any] = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-" + claim},
                          "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                                   "storageClassName": "zonal",
                                   "claimRef": {"namespace": ns, "name": claim},
                                   "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                                       {"key": ZONE, "operator": "In", "values": [zone]}]}]}}},
                          "status": {"phase": "Bound"}}
    if driver:
        pv["spec"]["csi"] = {"driver": driver, "volumeHandle": "vol-" + claim}
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": {"name": claim, "namespace": ns, "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
           "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "zonal", "volumeName": "pv-" + claim,
                    "resources": {"requests": {"storage": "1Gi"}}},
           "status": {"phase": "Bound"}}
    return [pv, pvc]


STORAGE_CLASS = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "zonal"},
                 "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer"}


def test_spread_deployment_redistributes_across_zones():
    """maxSkew 1 over zones a, b, c with 2/1/1 pods (a1 holds both zone-a pods). Draining a1:
    zone a counts 0 once both are evicted, so the first replacement must go to zone a (a2)
    (b or c would make skew 2 - 0 + ... ), and the second too: after the first, a=1, b=1, c=1."""
    snap = snapshot(zonal("a1", "a"), zonal("a2", "a"), zonal("b1", "b"), zonal("c1", "c"), deployment("web", 4),
                    pod("web-0", "a1", spec=spread("web")), pod("web-1", "a1", spec=spread("web")),
                    pod("web-2", "b1", spec=spread("web")), pod("web-3", "c1", spec=spread("web")))
    plan = drain(snap, "a1")
    ev = evictions(plan)
    assert ev["web-0"][1] == "a2"
    assert ev["web-1"][1] in ("a2", "b1", "c1")     # a=1, b=1, c=1: any zone keeps skew <= 1
    assert not plan.shortfall


def test_spread_constraint_leaves_a_replacement_pending_with_the_scheduler_text():
    """Zone a's only other node is tainted: the replacement can only go to b or c, where skew
    would be 1 + 1 - 0 = 2 > 1 (zone a still a domain: the cordoned node counts)."""
    taint = [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]
    snap = snapshot(zonal("a1", "a"), zonal("a2", "a", taints=taint), zonal("b1", "b"), zonal("c1", "c"),
                    deployment("web", 3), pod("web-0", "a1", spec=spread("web")),
                    pod("web-1", "b1", spec=spread("web")), pod("web-2", "c1", spec=spread("web")))
    plan = drain(snap, "a1")
    assert shortfall(plan) == {"web-0": (
        "evicted, but its replacement has nowhere to go: 0/4 nodes are available: 1 node(s) had untolerated taint "
        "{dedicated: infra}, 1 node(s) were unschedulable, 2 node(s) didn't match pod topology spread constraints. "
        "preemption: 0/4 nodes are available: 2 No preemption victims found for incoming pod, "
        "2 Preemption is not helpful for scheduling.")}


def test_spread_blocked_replacement_tries_preemption_node_by_node():
    """As above, with lower-priority pods on b1 and c1. Removing them frees room but changes no
    zone's count unless they match the constraint's selector: on c1 the victim is a `web` pod of
    lower priority (counted), so the dry run finds c1 a candidate (zone c drops to 0); on b1 it
    is a `batch` pod (not counted): the spread verdict stays, so that node reports the spread
    reason in the preemption text (the dry run's own result, DefaultPreemption)."""
    taint = [{"key": "dedicated", "value": "infra", "effect": "NoSchedule"}]
    snap = snapshot(zonal("a1", "a"), zonal("a2", "a", taints=taint), zonal("b1", "b"), zonal("c1", "c"),
                    deployment("web", 3),
                    _prio(pod("web-0", "a1", spec=spread("web")), 100), _prio(pod("web-1", "b1", spec=spread("web")), 100),
                    _prio(pod("web-2", "c1", spec=spread("web")), 0), _prio(pod("batch-0", "b1", owner=None), 0))
    plan = drain(snap, "a1")
    ev = evictions(plan)
    assert ev["web-0"][1] == "c1"
    victims = [(a.pod, a.node) for a in plan.actions if a.type == "delete" and a.by == "scheduler"]
    assert victims == [("web-2", "c1")]

    # without the counted victim: every dry run fails, b1 and c1 with the spread reason
    snap = snapshot(zonal("a1", "a"), zonal("a2", "a", taints=taint), zonal("b1", "b"), zonal("c1", "c"),
                    deployment("web", 3),
                    _prio(pod("web-0", "a1", spec=spread("web")), 100), _prio(pod("web-1", "b1", spec=spread("web")), 100),
                    _prio(pod("web-2", "c1", spec=spread("web")), 100), _prio(pod("batch-0", "b1", owner=None), 0),
                    _prio(pod("batch-1", "c1", owner=None), 0))
    plan = drain(snap, "a1")
    assert shortfall(plan)["web-0"].endswith(
        "preemption: 0/4 nodes are available: 2 Preemption is not helpful for scheduling, "
        "2 node(s) didn't match pod topology spread constraints.")


def test_statefulset_pod_follows_its_zonal_volume():
    """db-0's PV lives in zone b: its replacement (same name, same claim) can only go to b1,
    even though a2 is emptier."""
    snap = snapshot(zonal("b2", "b"), zonal("a2", "a"), zonal("b1", "b"), statefulset("db", 1), STORAGE_CLASS,
                    sts_pod("db-0", "b2", "data-db-0"), *zonal_volume("data-db-0", "b"))
    plan = drain(snap, "b2")
    assert evictions(plan)["db-0"][1] == "b1"


def _ephemeral(p: dict, claim: str, zone: str) -> List[dict]:
    """`p` mounts a generic ephemeral volume `scratch`, whose claim `<pod>-scratch` (owned by the
    pod, as the ephemeral volume controller creates it) is bound to a PV in `zone`."""
    p["spec"]["volumes"] = [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {
        "accessModes": ["ReadWriteOnce"], "storageClassName": "zonal", "resources": {"requests": {"storage": "1Gi"}}}}}}]
    pv, pvc = zonal_volume(claim, zone)
    pvc["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": p["metadata"]["name"],
                                           "uid": p["metadata"]["uid"], "controller": True}]
    return [p, pv, pvc]


@pytest.mark.parametrize("kind,topologies,expect", [
    # The ephemeral volume controller creates the replacement's own claim from the template
    # (ephemeral.VolumeClaimName: `<new pod>-<volume>`; the old claim goes with the old pod), so
    # VolumeBinding provisions a new volume where the pod lands (WaitForFirstConsumer), not in the
    # old volume's zone.
    ("ephemeral", None, "b1"),
    ("sts-ephemeral", None, "b1"),          # same name, new uid: a new claim all the same
    # ... within the StorageClass's allowedTopologies (checkVolumeProvisions)
    ("ephemeral", ["a"], None),
    # a persistentVolumeClaim stays the old pod's: its volume is in zone a
    ("claim", None, None),
])
def test_a_generic_ephemeral_volume_comes_back_as_a_new_claim(kind, topologies, expect):
    sc = dict(STORAGE_CLASS)
    if topologies:
        sc["allowedTopologies"] = [{"matchLabelExpressions": [{"key": ZONE, "values": topologies}]}]
    if kind == "claim":
        objs = [sts_pod("db-0", "a1", "data-db-0"), *zonal_volume("data-db-0", "a"), statefulset("db", 1)]
    elif kind == "sts-ephemeral":
        objs = [*_ephemeral(sts_pod("db-0", "a1", "x"), "db-0-scratch", "a"), statefulset("db", 1)]
    else:
        objs = [*_ephemeral(pod("db-0", "a1", app="db"), "db-0-scratch", "a"), deployment("db", 1)]
    snap = snapshot(zonal("a1", "a"), zonal("b1", "b"), sc, *objs)
    plan = drain(snap, "a1")
    assert evictions(plan)["db-0"] == (0, expect)
    if expect is None:
        why = {None: "1 node(s) didn't match PersistentVolume's node affinity",
               "a": "1 node(s) didn't find available persistent volumes to bind"}
        assert why[topologies[0] if topologies else None] in shortfall(plan)["db-0"]


def test_statefulset_pinned_by_zonal_volume_is_a_shortfall_when_its_zone_is_full():
    snap = snapshot(zonal("b2", "b"), zonal("a2", "a"), zonal("b1", "b", cpu="1"), statefulset("db", 1), STORAGE_CLASS,
                    pod("big-0", "b1", cpu="900m"),
                    sts_pod("db-0", "b2", "data-db-0", cpu="500m"), *zonal_volume("data-db-0", "b"))
    plan = drain(snap, "b2")
    assert evictions(plan)["db-0"][1] is None
    assert [e.code for e in plan.shortfall] == ["no-node-fits"]
    assert shortfall(plan)["db-0"] == (
        "evicted, but its replacement has nowhere to go: 0/3 nodes are available: 1 Insufficient cpu, "
        "1 node(s) didn't match PersistentVolume's node affinity, 1 node(s) were unschedulable. preemption: "
        "0/3 nodes are available: 1 No preemption victims found for incoming pod, "
        "2 Preemption is not helpful for scheduling.")


def test_ordered_ready_statefulset_creates_no_higher_ordinal_after_a_pending_one():
    """db-0 and db-1 both live on b2; db-0's replacement cannot run (its zone is full), so the
    OrderedReady StatefulSet never creates db-1 again."""
    snap = snapshot(zonal("b2", "b"), zonal("a2", "a"), zonal("b1", "b", cpu="1"), statefulset("db", 2), STORAGE_CLASS,
                    pod("big-0", "b1", cpu="900m"),
                    sts_pod("db-0", "b2", "data-db-0", cpu="500m"), *zonal_volume("data-db-0", "b"),
                    sts_pod("db-1", "b2", "data-db-1", cpu="100m"), *zonal_volume("data-db-1", "a"))
    plan = drain(snap, "b2")
    codes = {e.pod: e.code for e in plan.shortfall}
    assert codes == {"db-0": "no-node-fits", "db-1": "ordered-ready"}
    assert "only once db-0 is Running and Ready" in shortfall(plan)["db-1"]


def test_parallel_statefulset_recreates_every_ordinal():
    snap = snapshot(zonal("b2", "b"), zonal("a2", "a"), zonal("b1", "b", cpu="1"),
                    statefulset("db", 2, policy="Parallel"), STORAGE_CLASS, pod("big-0", "b1", cpu="900m"),
                    sts_pod("db-0", "b2", "data-db-0", cpu="500m"), *zonal_volume("data-db-0", "b"),
                    sts_pod("db-1", "b2", "data-db-1", cpu="100m"), *zonal_volume("data-db-1", "a"))
    plan = drain(snap, "b2")
    assert evictions(plan)["db-1"][1] == "a2"
    assert {e.pod: e.code for e in plan.shortfall} == {"db-0": "no-node-fits"}


def test_zonal_anti_affinity():
    """Required anti-affinity on the zone: one replica per zone. The replica on a1 cannot move
    to b or c (taken), only to a2; with a2 gone it stays Pending."""
    anti = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": ZONE}]}}}
    objs = [zonal("a1", "a"), zonal("b1", "b"), zonal("c1", "c"), deployment("cache", 3),
            pod("cache-0", "a1", spec=anti), pod("cache-1", "b1", spec=anti), pod("cache-2", "c1", spec=anti)]
    plan = drain(snapshot(zonal("a2", "a"), *objs), "a1")
    assert evictions(plan)["cache-0"][1] == "a2"
    plan = drain(snapshot(*objs), "a1")
    assert shortfall(plan)["cache-0"] == (
        "evicted, but its replacement has nowhere to go: 0/3 nodes are available: 1 node(s) were unschedulable, "
        "2 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are available: "
        "2 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.".replace(
            "2 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling",
            "1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod"))


def test_csi_attach_limit():
    """b1's CSINode allows 1 EBS volume and already has one attached: the StatefulSet pod with an
    EBS volume in zone b must go to b3."""
    csinode = lambda name, count: {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": name},
                                   "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": name,
                                                         "allocatable": {"count": count}}]}}
    snap = snapshot(zonal("b2", "b"), zonal("b1", "b", cpu="8"), zonal("b3", "b", cpu="2"), statefulset("db", 1),
                    statefulset("other", 1), STORAGE_CLASS, csinode("b1", 1), csinode("b3", 1),
                    sts_pod("other-0", "b1", "data-other-0"), *zonal_volume("data-other-0", "b", driver="ebs.csi.aws.com"),
                    sts_pod("db-0", "b2", "data-db-0"), *zonal_volume("data-db-0", "b", driver="ebs.csi.aws.com"))
    plan = drain(snap, "b2")
    assert evictions(plan)["db-0"][1] == "b3"       # b1 has more room, but no attach slot left


def _prio(p: dict, value: int) -> dict:
    p["spec"]["priority"] = value
    return p


def test_preemption_cascade_with_a_pdb():
    """critical-0 (priority 1000, 3 cpu) fits nowhere once src is drained. Candidates: n2 (remove
    low-0, priority 50: 4 cpu free; low-0's PDB allows 0 disruptions, so 1 violation); n3 (even
    empty, 2 cpu < 3); n1 holds only a higher-priority pod. The scheduler deletes low-0 anyway
    (PDBs only rank nodes). low-0's replacement (2 cpu) then fits nowhere and preempts
    scratch-0 (priority 0) on n3; scratch-0's replacement has nothing lower to preempt."""
    snap = snapshot(node("src", cpu="8"), node("n1", cpu="4"), node("n2", cpu="4"), node("n3", cpu="2"),
                    deployment("critical", 1), deployment("batch", 1), deployment("low", 1), deployment("scratch", 1),
                    _prio(pod("critical-0", "src", cpu="3"), 1000),
                    _prio(pod("batch-0", "n1", cpu="3"), 2000), _prio(pod("low-0", "n2", cpu="2"), 50),
                    _prio(pod("scratch-0", "n3", cpu="2"), 0),
                    pdb("low", "low", status={"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1,
                                              "expectedPods": 1}, minAvailable=1))
    plan = drain(snap, "src")
    ev = evictions(plan)
    assert ev["critical-0"][1] == "n2"
    by_pod = {a.pod: a for a in plan.actions if a.type == "delete"}
    low, scratch = by_pod["low-0"], by_pod["scratch-0"]
    assert (low.by, low.node, low.target) == ("scheduler", "n2", "n3")
    assert "default/critical-0" in low.reason and "violates 1 PodDisruptionBudget" in low.reason
    assert (scratch.by, scratch.node, scratch.target) == ("scheduler", "n3", None)
    assert "default/low-0" in scratch.reason and "PodDisruptionBudget" not in scratch.reason
    assert shortfall(plan)["scratch-0"] == (
        "preempted, and its replacement has nowhere to go: 0/4 nodes are available: 3 Insufficient cpu, "
        "1 node(s) were unschedulable. preemption: 0/4 nodes are available: 3 No preemption victims found for "
        "incoming pod, 1 Preemption is not helpful for scheduling.".replace(
            "3 Insufficient cpu, 1 node(s) were unschedulable", "1 node(s) were unschedulable, 3 Insufficient cpu")
        .replace("3 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling",
                 "1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod"))
    assert "batch-0" not in by_pod


def test_preemption_never_policy_says_so():
    snap = snapshot(node("src", cpu="8"), node("n1", cpu="2"), deployment("critical", 1), deployment("low", 1),
                    _prio(pod("critical-0", "src", cpu="2", spec={"preemptionPolicy": "Never"}), 1000),
                    _prio(pod("low-0", "n1", cpu="1"), 0))
    plan = drain(snap, "src")
    assert shortfall(plan)["critical-0"].endswith(
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable. "
        "preemption: not eligible due to preemptionPolicy=Never.")


def test_tied_nodes_are_candidates():
    snap = snapshot(node("src"), node("n1"), node("n2"), deployment("web", 1), pod("web-0", "src"))
    plan = drain(snap, "src")
    act = next(a for a in plan.actions if a.pod == "web-0")
    assert act.target == "n1" and act.candidates == ("n1", "n2")
