"""The scheduler model's shortcuts give the scheduler's answers (kube-scheduler v1.33 semantics).

On clusters of 100 nodes and more the placer checks spread, inter-pod affinity and volume
topology on zone-like keys once per node class (`Plugin.rejects_class`), keeps static verdicts
per class across the batches of an upgrade, and preemption skips dry runs whose outcome is known
(`interpodaffinity.anti_affinity_stays`). A FitError's per-node statuses are asked once per class
for the Filters whose status is the class's (`Plugin.class_status`), node by node for the others. Expected nodes and texts come from the upstream Filter
semantics: the nodes of the right zone, the least allocated first, and the FitError histogram
over every node. The randomized tests compare with the node-by-node evaluation, which is what
kube-scheduler itself does."""

from __future__ import annotations

import random
from typing import Any, Dict, List, Tuple

from kubectl_evict.model import Taint
from kubectl_evict.scheduling.framework import UNSCHEDULABLE
from kubectl_evict.scheduling.placement import Placer
from kubectl_evict.scheduling.plugins import FILTERS
from kubectl_evict.scheduling.plugins.defaultpreemption import select_victims
from kubectl_evict.scheduling.plugins.interpodaffinity import ANTI_AFFINITY, InterPodAffinity, anti_affinity_stays

from test_drain_plan import node, pod, snapshot
from test_placement_plan import STORAGE_CLASS, zonal_volume

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
ZONES = ("a", "b", "c")


class NodeByNode:
    """A Filter plugin as it is, minus the per-class checks: every node is tried, and every
    node's status comes from its own Filter call."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        if name in ("rejects_class", "class_status"):
            raise AttributeError(name)
        return getattr(self.inner, name)


REFERENCE = tuple(NodeByNode(p) for p in FILTERS)


def cluster(n: int, busy: Dict[str, int], extra: List[Any] = (), incoming: List[dict] = ()) -> Any:
    """`n` nodes over zones a/b/c (4 CPUs each), `busy[node]` CPUs taken by filler pods."""
    objs: List[Any] = [STORAGE_CLASS]
    for i in range(n):
        name = "n%03d" % i
        objs.append(node(name, labels={ZONE: ZONES[i % 3], "pool": "general"}))
        if busy.get(name):
            objs.append(pod("filler-%s" % name, name, app="filler", cpu="%dm" % (busy[name] * 1000)))
    objs.extend(extra)
    objs.extend(incoming)
    return snapshot(*objs)


def unbound(p: dict) -> dict:
    p["spec"].pop("nodeName", None)
    p["status"] = {"phase": "Pending"}
    return p


def placer(snap: Any, filters: Any = FILTERS, preempt: bool = False) -> Placer:
    return Placer(snap.nodes.values(), snap.pods_by_node, snapshot=snap, filters=filters, preempt=preempt)


def test_zonal_volume_pod_goes_to_the_least_allocated_node_of_its_zone_on_a_large_cluster():
    # 150 nodes: VolumeBinding rejects zones a and b (the PV's node affinity), so the pod lands on
    # the emptiest node of zone c, though emptier nodes exist elsewhere.
    busy = {"n%03d" % i: 2 for i in range(150)}
    busy["n000"] = 0                      # zone a, empty
    busy["n001"] = 0                      # zone b, empty
    busy["n005"] = 1                      # zone c, the least allocated there
    p = unbound(pod("db-0", "", app="db", owner=None))
    p["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}}]
    snap = cluster(150, busy, zonal_volume("data-db-0", "c"), [p])
    placed = placer(snap).place(snap.pods_by_key[("default", "db-0")])
    assert placed.node == "n005"


def test_zone_spread_sends_the_pod_to_the_emptiest_zone_on_a_large_cluster():
    # maxSkew 1 on the zone: web runs twice in a and b, once in c, so only zone c passes.
    busy = {"n%03d" % i: 1 for i in range(120)}
    running = [pod("web-%d" % i, on, app="web") for i, on in enumerate(("n000", "n003", "n001", "n004", "n002"))]
    p = unbound(pod("web-new", "", app="web", spec={"topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "web"}}}]}))
    busy["n000"] = 0                      # zone a: emptiest node of the cluster, but its zone is full
    snap = cluster(120, busy, running, [p])
    placed = placer(snap).place(snap.pods_by_key[("default", "web-new")])
    # zone c's nodes other than n002 (which runs web-4) are equally allocated: the name decides
    assert placed.node == "n005"


def _random_workload(rng: random.Random, i: int) -> Tuple[dict, List[dict]]:
    """An incoming pod with a random mix of zone spread, zone or hostname anti-affinity, zone
    affinity and a zonal volume."""
    app = "app%d" % rng.randrange(4)
    spec: Dict[str, Any] = {}
    extra: List[dict] = []
    r = rng.random()
    if r < 0.3:
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": rng.choice((ZONE, HOST)),
                                              "whenUnsatisfiable": "DoNotSchedule",
                                              "labelSelector": {"matchLabels": {"app": app}}}]
    elif r < 0.55:
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": rng.choice((ZONE, HOST)), "labelSelector": {"matchLabels": {"app": app}}}]}}
    elif r < 0.7:
        spec["affinity"] = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": ZONE, "labelSelector": {"matchLabels": {"app": "app%d" % rng.randrange(4)}}}]}}
    elif r < 0.9:
        claim = "data-%d" % i
        spec["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]
        extra = zonal_volume(claim, rng.choice(ZONES))
    p = unbound(pod("in-%03d" % i, "", app=app, cpu="%dm" % rng.choice((500, 1000, 1500)), spec=spec))
    return p, extra


def test_class_checks_place_every_pod_where_node_by_node_filters_do():
    for seed in range(3):
        rng = random.Random(seed)
        n = 108
        busy = {"n%03d" % i: rng.choice((0, 1, 2, 3, 3, 4)) for i in range(n)}
        running = [pod("run-%03d" % i, "n%03d" % rng.randrange(n), app="app%d" % rng.randrange(4), cpu="10m")
                   for i in range(60)]
        incoming, extra = [], []
        for i in range(40):
            p, e = _random_workload(rng, i)
            incoming.append(p)
            extra.extend(e)
        snap = cluster(n, busy, running + extra, incoming)
        pods = [snap.pods_by_key[("default", p["metadata"]["name"])] for p in incoming]
        fast, slow = placer(snap), placer(snap, REFERENCE)
        got = [tuple(fast.place(p)[:2]) for p in pods]
        want = [tuple(slow.place(p)[:2]) for p in pods]
        assert got == want
        assert sum(1 for g in got if g[0] is None) < len(got)       # most land somewhere


def test_preemption_names_the_anti_affinity_of_every_node_it_cannot_help():
    # Every node runs a `cache` pod of the same priority as the incoming pod, whose required
    # anti-affinity (hostname) forbids sharing a node with it, plus a lower-priority pod.
    # Preemption may only remove lower-priority pods, so no node is a candidate: each node's dry
    # run fails on the anti-affinity, and the FitError says so for all 100 nodes.
    objs: List[Any] = []
    for i in range(100):
        name = "n%03d" % i
        objs.append(node(name, labels={ZONE: ZONES[i % 3]}))
        objs.append(pod("cache-%03d" % i, name, app="cache"))
        low = pod("batch-%03d" % i, name, app="batch")
        low["spec"]["priority"] = -10
        objs.append(low)
    p = unbound(pod("cache-new", "", app="cache", spec={"affinity": {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": HOST, "labelSelector": {"matchLabels": {"app": "cache"}}}]}}}))
    snap = snapshot(*objs, p)
    placed = placer(snap, preempt=True).place(snap.pods_by_key[("default", "cache-new")])
    assert placed.node is None
    assert placed.reason == ("0/100 nodes are available: 100 node(s) didn't match pod anti-affinity rules. "
                             "preemption: 0/100 nodes are available: 100 node(s) didn't match pod anti-affinity "
                             "rules.")


def test_anti_affinity_shortcut_agrees_with_the_dry_run():
    # On random clusters: wherever the shortcut says the dry run fails on the anti-affinity,
    # preemption's dry run (victims removed, filters run again) fails with exactly that reason.
    checked = 0
    for seed in range(4):
        rng = random.Random(100 + seed)
        objs: List[Any] = []
        for i in range(30):
            name = "n%03d" % i
            objs.append(node(name, labels={ZONE: ZONES[i % 3]}))
            for j in range(rng.randrange(4)):
                p = pod("p-%03d-%d" % (i, j), name, app=rng.choice(("cache", "web", "batch")))
                p["spec"]["priority"] = rng.choice((-10, 0, 10))
                objs.append(p)
        key = rng.choice((HOST, ZONE))
        incoming = unbound(pod("cache-new", "", app="cache", spec={"priority": 5, "affinity": {
            "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"topologyKey": key, "labelSelector": {"matchLabels": {"app": "cache"}}}]}}}))
        snap = snapshot(*objs, incoming)
        pl = placer(snap, preempt=True)
        me = snap.pods_by_key[("default", "cache-new")]
        cyc = pl.cycle(me)
        st = next(data for plugin, data in cyc.active if plugin.name == InterPodAffinity.name)
        for name in pl.names:
            status = pl.node_status(me, cyc, name)
            lower = [p for p in pl.residents(name) if p.priority < me.priority]
            if status is None or status.reasons != (ANTI_AFFINITY,) or not lower:
                continue
            stays = anti_affinity_stays(st, lower, pl.nodes[name])
            cand, fail = select_victims(pl, me, name, lower)
            if stays:
                checked += 1
                assert cand is None and fail is not None and fail.code == UNSCHEDULABLE
                assert fail.reasons == (ANTI_AFFINITY,)
    assert checked > 0


EBS = "ebs.csi.aws.com"


def csinode(name: str, count: int) -> dict:
    return {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": name},
            "spec": {"drivers": [{"name": EBS, "nodeID": name, "allocatable": {"count": count}}]}}


def with_claim(p: dict, claim: str) -> dict:
    p["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]
    return p


def test_fit_error_counts_an_earlier_filter_before_the_class_verdict():
    # 120 nodes over zones a/b/c; zone c is full. The pod's EBS volume lives in zone c, so
    # VolumeBinding fails every node of a and b alike - but Filters run in order, and on n000
    # (zone a) NodeVolumeLimits comes first: its one attach slot is taken. Upstream counts each
    # node once, under its first failing Filter.
    busy = {"n%03d" % i: 4 for i in range(2, 120, 3)}                  # zone c: no cpu left
    on_n000 = with_claim(pod("old-0", "n000", app="old", owner=None), "data-old-0")
    p = with_claim(unbound(pod("db-0", "", app="db", owner=None, cpu="1")), "data-db-0")
    snap = cluster(120, busy, [csinode("n000", 1), on_n000, *zonal_volume("data-old-0", "a", driver=EBS),
                               *zonal_volume("data-db-0", "c", driver=EBS)], [p])
    placed = placer(snap).place(snap.pods_by_key[("default", "db-0")])
    assert placed.node is None
    assert placed.reason.startswith(
        "0/120 nodes are available: 1 node(s) exceed max volume count, 40 Insufficient cpu, "
        "79 node(s) didn't match PersistentVolume's node affinity. ")


def _diagnosis(pl: Placer, p: Any) -> Tuple[Dict[str, int], Dict[str, Any]]:
    entries, why = pl._static_feasible(p)
    cyc = pl.cycle(p)
    if cyc.rejected is not None:
        return {}, {}
    hist, statuses = pl.diagnose(p, entries, why, cyc)
    return dict(hist), statuses


def test_class_diagnoses_give_the_node_by_node_fit_errors():
    # Random clusters where most incoming pods fit nowhere: full nodes, attach limits, zonal
    # volumes, zone and hostname spread, anti-affinity, affinity, and a few tainted and cordoned
    # nodes. Before each placement, the per-node statuses and the FitError histogram asked once
    # per class must be exactly those of every node's own Filter calls; then both place the pod
    # (the same node, or the same FitError text) and go on from the same state.
    shortcuts = compared = 0
    for seed in range(4):
        rng = random.Random(1000 + seed)
        n = 105
        busy = {"n%03d" % i: rng.choice((2, 3, 3, 4, 4)) for i in range(n)}
        objs: List[Any] = []
        for i in range(n):
            name = "n%03d" % i
            if rng.random() < 0.3:
                objs.append(csinode(name, rng.choice((1, 2))))
            if rng.random() < 0.4:
                claim = "vol-%s" % name
                objs.append(with_claim(pod("att-" + name, name, app="att", owner=None, cpu="10m"), claim))
                objs.extend(zonal_volume(claim, ZONES[i % 3], driver=EBS))
        objs += [pod("run-%03d" % i, "n%03d" % rng.randrange(n), app="app%d" % rng.randrange(4), cpu="10m")
                 for i in range(60)]
        incoming: List[dict] = []
        for i in range(30):
            p, extra = _random_workload(rng, i)
            p["spec"]["containers"][0]["resources"]["requests"]["cpu"] = rng.choice(("500m", "1", "2"))
            if extra:
                extra[0]["spec"]["csi"] = {"driver": EBS, "volumeHandle": "vol-in-%d" % i}
            incoming.append(p)
            objs.extend(extra)
        snap = cluster(n, busy, objs, incoming)
        nodes = list(snap.nodes.values())
        tainted = {n.name for n in rng.sample(nodes, 3)}
        cordoned = {n.name for n in rng.sample(nodes, 3)}
        snap = snap.set(nodes=snap.nodes.update({
            k: v.set(unschedulable=True) if k in cordoned else
            v.set(taints=(Taint("dedicated", "infra", "NoSchedule"),)) if k in tainted else v
            for k, v in snap.nodes.items()}))
        pods = [snap.pods_by_key[("default", p["metadata"]["name"])] for p in incoming]
        fast, slow = placer(snap), placer(snap, REFERENCE)
        fast.exclude(sorted(snap.nodes)[:5])
        slow.exclude(sorted(snap.nodes)[:5])
        for p in pods:
            cyc = fast.cycle(p)
            shortcuts += sum(1 for c in fast.classes if fast._class_filters(p, c, cyc)[1] is not None)
            assert _diagnosis(fast, p) == _diagnosis(slow, p)
            got, want = fast.place(p), slow.place(p)
            assert got == want
            compared += got.node is None
    assert compared >= 20 and shortcuts > 0
