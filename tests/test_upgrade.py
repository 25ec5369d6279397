"""`upgrade`: a node-pool upgrade batch by batch, per provider (real processes, table-driven).

Expected batch sizes, surge counts, timeouts and what follows a stalled drain come from the
providers' documentation (README, `upgrade`): GKE maxSurge 1 / maxUnavailable 0, PDBs respected for
1 hour then forced; EKS maxUnavailable 1, max(2 x zones, maxUnavailable) new nodes at once, old
nodes tainted first, 15 minutes then PodEvictionFailure unless forced; AKS maxSurge 10% rounded up,
30 minutes then the upgrade fails; Cluster API maxSurge 1 / maxUnavailable 0 (percentages: surge
up, unavailable down), no drain limit unless nodeDrainTimeout, then the Machine is deleted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import pytest

from conftest import REPO, node, pod, run_cli, with_owners


def pdb(name: str, labels: dict, *, min_available: Optional[int] = None, max_unavailable: Optional[int] = None,
        allowed: int = 0, healthy: int = 1, expected: int = 1) -> dict:
    spec: dict = {"selector": {"matchLabels": labels}}
    if min_available is not None:
        spec["minAvailable"] = min_available
    if max_unavailable is not None:
        spec["maxUnavailable"] = max_unavailable
    desired = min_available if min_available is not None else expected - (max_unavailable or 0)
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": "default", "generation": 1}, "spec": spec,
            "status": {"observedGeneration": 1, "disruptionsAllowed": allowed, "currentHealthy": healthy,
                       "desiredHealthy": desired, "expectedPods": expected}}


def info(kinds: tuple = ()) -> dict:
    return {"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
            "takenAt": "2026-11-21T12:00:00Z", "context": "test", "server": "https://test.invalid:6443",
            "kinds": ["Node", "Pod", "PodDisruptionBudget", "ReplicaSet", "Deployment"] + list(kinds)}


def write(tmp_path: Path, items: List[dict], kinds: tuple = ()) -> str:
    p = tmp_path / "cluster.json"
    doc = info(kinds)
    p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [doc] + with_owners(items, doc["kinds"])}))
    return str(p)


def pool_cluster(stall: bool = False) -> List[dict]:
    """Four pool nodes in two zones, one pod each; with `stall`, p1 also runs a single-replica
    Deployment's pod under a PDB that allows 0 disruptions."""
    items = [node("p%d" % i, labels={"pool": "a"}, zone="z%d" % (1 + i % 2)) for i in range(1, 5)]
    items.append(node("other", labels={"pool": "b"}, cpu="1", memory="1Gi"))
    items += [pod("web-%d" % i, "p%d" % i, owner=("ReplicaSet", "web"), labels={"app": "web"}) for i in range(1, 5)]
    if stall:
        items.append(pod("db-0", "p1", owner=("ReplicaSet", "db"), labels={"app": "db"}))
        items.append(pdb("db", {"app": "db"}, min_available=1, allowed=0, healthy=1, expected=1))
    return items


def upgrade(path: str, *args: str):
    res = run_cli("-f", path, "-o", "json", "upgrade", "-l", "pool=a", *args)
    assert res.returncode in (0, 3, 4, 5), res.stderr
    return res.returncode, json.loads(res.stdout)


def batches(plan: dict) -> List[List[str]]:
    out: dict = {}
    for n in plan["nodes"]:
        out.setdefault(n["batch"], []).append(n["node"])
    return [out[k] for k in sorted(out)]


def joins(plan: dict) -> List[int]:
    """New nodes joining per batch."""
    counts: dict = {}
    for n in plan["newNodes"]:
        counts[n["batch"]] = counts.get(n["batch"], 0) + 1
    return [counts.get(b, 0) for b in range(1, len(batches(plan)) + 1)]


@pytest.mark.parametrize("provider,args,expect_batches,expect_joins", [
    # GKE / generic: maxSurge 1, maxUnavailable 0: one node at a time, one new node before each
    ("generic", [], [["p1"], ["p2"], ["p3"], ["p4"]], [1, 1, 1, 1]),
    ("gke", [], [["p1"], ["p2"], ["p3"], ["p4"]], [1, 1, 1, 1]),
    # GKE's own example: maxSurge 2, maxUnavailable 1 upgrades 3 nodes at once
    ("gke", ["--max-surge", "2", "--max-unavailable", "1"], [["p1", "p2", "p3"], ["p4"]], [2, 2]),
    # EKS: maxUnavailable 1 at a time; max(2 x 2 zones, 1) = 4 new nodes launched in the scale-up phase
    ("eks", [], [["p1"], ["p2"], ["p3"], ["p4"]], [4, 0, 0, 0]),
    ("eks", ["--max-unavailable", "2"], [["p1", "p2"], ["p3", "p4"]], [4, 0]),
    # AKS: maxSurge 10% of 4 nodes rounds up to 1; 50% is 2
    ("aks", [], [["p1"], ["p2"], ["p3"], ["p4"]], [1, 1, 1, 1]),
    ("aks", ["--max-surge", "50%"], [["p1", "p2"], ["p3", "p4"]], [2, 2]),
    # Cluster API: maxUnavailable 50% of 4 rounds down to 2, no surge: new nodes replace removed ones
    ("capi", ["--max-surge", "0", "--max-unavailable", "50%"], [["p1", "p2"], ["p3", "p4"]], [0, 2]),
    ("capi", ["--max-surge", "0", "--max-unavailable", "30%"], [["p1"], ["p2"], ["p3"], ["p4"]], [0, 1, 1, 1]),
])
def test_batches_and_surge_per_provider(tmp_path, provider, args, expect_batches, expect_joins):
    code, plan = upgrade(write(tmp_path, pool_cluster()), "--provider", provider, *args)
    assert code == 0
    assert plan["command"] == "upgrade" and plan["kind"] == "EvictionPlan"
    assert batches(plan) == expect_batches
    assert joins(plan) == expect_joins
    assert all(isinstance(a.get("batch"), int) for a in plan["actions"])
    assert {n["outcome"] for n in plan["nodes"]} == {"upgraded"}
    assert plan["verdict"].startswith("finishes in ~") and ("in %d batches" % len(expect_batches)) in plan["verdict"]
    # every web pod is evicted from its own node in its node's batch; with surge, only there
    batch_of = {n["node"]: n["batch"] for n in plan["nodes"]}
    evicts = [a for a in plan["actions"] if a["type"] == "evict"]
    assert all(a["batch"] == batch_of[a["node"]] for a in evicts)
    firsts = {}
    for a in evicts:
        firsts.setdefault(a["pod"], a["node"])
    assert firsts == {"web-%d" % i: "p%d" % i for i in range(1, 5)}
    if expect_joins[0]:
        assert len(evicts) == 4 and plan["movedMoreThanOnce"] == []


def wide_pool(size: int, zones: int) -> List[dict]:
    """`size` empty pool nodes spread over `zones` zones: only the resolved settings matter."""
    return [node("p%02d" % i, labels={"pool": "a"}, zone="z%d" % (i % zones)) for i in range(size)]


GKE_API = "https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters.nodePools"
EKS_DOC = "https://docs.aws.amazon.com/eks/latest/userguide/managed-node-update-behavior.html"
AKS_API = "https://learn.microsoft.com/en-us/javascript/api/@azure/arm-containerservice/agentpoolupgradesettings"
CAPI_MD = "cluster-api api/v1beta1 machinedeployment_types.go MachineRollingUpdateDeployment"
CAPI_M = "cluster-api api/v1beta1 machine_types.go nodeDrainTimeout"


# One row per documented provider fact (README, `upgrade`, lists the same sources):
# (source, provider, args, pool size, zones, maxSurge, maxUnavailable, drain timeout, on timeout, batches)
PROVIDER_FACTS = [
    # GKE: one node at a time by default (surge 1 / unavailable 0); parallelism = maxSurge + maxUnavailable
    # (the API's own example: 5 nodes, maxSurge 2, maxUnavailable 1 -> 3 at once); PDBs respected 1 hour
    (GKE_API, "gke", [], 25, 3, 1, 0, 3600, "force", 25),
    (GKE_API, "gke", ["--max-surge", "2", "--max-unavailable", "1"], 5, 1, 2, 1, 3600, "force", 2),
    # newer node pools set the PDB timeout (NodeDrainConfig.pdbTimeoutDuration): --drain-timeout
    (GKE_API, "gke", ["--drain-timeout", "30m"], 4, 1, 1, 0, 1800, "force", 4),
    # EKS: maxUnavailable 1 by default; the scale-up phase adds the larger of up to twice the zones and
    # maxUnavailable (the page's example: 5 zones -> up to 10; maxUnavailable 20 -> 20); 15 minutes,
    # then PodEvictionFailure unless update-nodegroup-version --force
    (EKS_DOC, "eks", [], 25, 5, 10, 1, 900, "fail", 25),
    (EKS_DOC, "eks", ["--max-unavailable", "20"], 25, 5, 20, 20, 900, "fail", 2),
    (EKS_DOC, "eks", ["--force-upgrade"], 25, 5, 10, 1, 900, "force", 25),
    # EKS's minimal update strategy (terminate before create): no surge, a node replaces each removed one
    (EKS_DOC, "eks", ["--max-surge", "0"], 4, 2, 0, 1, 900, "fail", 4),
    # maxUnavailable has a quota of 100 nodes; a percentage updates "up to 100 nodes at once"
    # (EKS API UpdateConfig / AWS::EKS::Nodegroup UpdateConfig): 50% of 250 is 125, capped at 100
    (EKS_DOC, "eks", ["--max-unavailable", "50%"], 250, 3, 100, 100, 900, "fail", 3),
    (EKS_DOC, "eks", ["--max-unavailable", "100"], 250, 3, 100, 100, 900, "fail", 3),
    # AKS: maxSurge 10% (fractional nodes rounded up), maxUnavailable 0 (percentages rounded up too),
    # drainTimeoutInMinutes 30 then the upgrade fails (undrainableNodeBehavior Schedule); Cordon
    # quarantines the node and goes on
    (AKS_API, "aks", [], 25, 3, 3, 0, 1800, "fail", 9),
    (AKS_API, "aks", ["--max-surge", "0", "--max-unavailable", "10%"], 25, 3, 0, 3, 1800, "fail", 9),
    (AKS_API, "aks", ["--undrainable-node-behavior", "cordon"], 25, 3, 3, 0, 1800, "quarantine", 9),
    # Cluster API MachineDeployment: maxSurge 1 (percentage rounded up), maxUnavailable 0 (rounded
    # down); nodeDrainTimeout 0 = no limit; past a set one the Machine is deleted anyway
    (CAPI_MD, "capi", [], 25, 3, 1, 0, None, "force", 25),
    (CAPI_MD, "capi", ["--max-surge", "10%", "--max-unavailable", "10%"], 25, 3, 3, 2, None, "force", 5),
    (CAPI_M, "capi", ["--drain-timeout", "10m"], 4, 1, 1, 0, 600, "force", 4),
    # maxSurge 0 and a maxUnavailable percentage that rounds down to 0 (10% of 4): ResolveFenceposts
    # (cluster-api internal/controllers/machinedeployment/mdutil/util.go) sets maxUnavailable to 1
    (CAPI_MD, "capi", ["--max-surge", "0", "--max-unavailable", "10%"], 4, 1, 0, 1, None, "force", 4),
    (CAPI_MD, "capi", ["--max-surge", "0%", "--max-unavailable", "20%"], 4, 1, 0, 1, None, "force", 4),
    # generic: kubectl drain node after node, no limit unless --drain-timeout (kubectl drain --timeout)
    ("kubectl drain", "generic", [], 4, 1, 1, 0, None, "fail", 4),
]


@pytest.mark.parametrize("fact", PROVIDER_FACTS, ids=["%s%s" % (f[1], "".join(f[2])) for f in PROVIDER_FACTS])
def test_provider_defaults_are_the_documented_ones(tmp_path, fact):
    _source, provider, args, size, zones, surge, unavailable, timeout, on_timeout, count = fact
    code, plan = upgrade(write(tmp_path, wide_pool(size, zones)), "--provider", provider, *args)
    assert code == 0
    got = plan["upgrade"]
    assert (got["maxSurge"], got["maxUnavailable"], got["drainTimeout"], got["onTimeout"], got["batches"]) == (
        surge, unavailable, timeout, on_timeout, count)


@pytest.mark.parametrize("provider,after", [("eks", 60), ("gke", 0), ("aks", 0), ("capi", 0), ("generic", 0)])
def test_time_from_a_drained_node_to_its_removal(tmp_path, provider, after):
    """EKS cordons the drained node and waits 60 seconds before terminating it (E1); the others
    remove it once its replacements are Ready (one --pod-startup after the last eviction)."""
    code, plan = upgrade(write(tmp_path, pool_cluster()), "--provider", provider)
    first = plan["nodes"][0]
    assert code == 0 and first["end"] - first["start"] == 30 + after


@pytest.mark.parametrize("args,nodes,verdict", [
    # Schedule (the default): the upgrade fails at the first undrainable node
    ([], [("p1", "failed")] + [("p%d" % i, "not-reached") for i in (2, 3, 4)],
     "fails: batch 1 stalls 30m on PDB default/db then AKS fails the upgrade (undrainableNodeBehavior Schedule"),
    # Cordon: the node is quarantined, the others are upgraded, the upgrade ends Failed
    (["--undrainable-node-behavior", "cordon"], [("p1", "quarantined")] + [("p%d" % i, "upgraded") for i in (2, 3, 4)],
     "fails: AKS quarantines node/p1 (batch 1 stalls 30m on PDB default/db; undrainableNodeBehavior Cordon"),
    # a forced upgrade deletes the pods whatever the behaviour
    (["--undrainable-node-behavior", "cordon", "--force-upgrade"], [("p%d" % i, "upgraded") for i in (2, 3, 4)],
     "finishes in ~"),
])
def test_aks_undrainable_node_behavior(tmp_path, args, nodes, verdict):
    code, plan = upgrade(write(tmp_path, pool_cluster(stall=True)), "--provider", "aks", *args)
    assert plan["verdict"].startswith(verdict), plan["verdict"]
    got = [(n["node"], n["outcome"]) for n in plan["nodes"]]
    assert got[-len(nodes):] == nodes
    labels = [(a["node"], a["key"], a["value"], a["at"]) for a in plan["actions"] if a["type"] == "label"]
    if "cordon" in args and "--force-upgrade" not in args:
        assert code == 3 and [e["pod"] for e in plan["blocked"]] == ["db-0"]
        assert labels == [("p1", "kubernetes.azure.com/upgrade-status", "Quarantined", 1800)]
        assert plan["upgrade"]["upgraded"] == 3
        # the pod that held the node keeps running there: no action moves it
        assert [a for a in plan["actions"] if a.get("pod") == "db-0"] == []
    else:
        assert labels == []


@pytest.mark.parametrize("args,end", [
    # A2 (UndrainableNodeBehavior Cordon): "A surge node will be retained for each blocked node ...
    # If there are enough surge nodes to replace blocked nodes, then the upgrade operation and the
    # managed cluster will be in failed state. Otherwise, ... in canceled state."
    (["--max-surge", "1"], "the upgrade ends Failed after"),
    (["--max-surge", "0", "--max-unavailable", "1"], "the upgrade ends Canceled (1 node quarantined, max surge 0"),
])
def test_aks_cordon_ends_canceled_without_a_surge_node_to_keep(tmp_path, args, end):
    code, plan = upgrade(write(tmp_path, pool_cluster(stall=True)), "--provider", "aks",
                         "--undrainable-node-behavior", "cordon", *args)
    assert code == 3 and end in plan["verdict"], plan["verdict"]


def test_undrainable_node_behavior_is_aks_only(tmp_path):
    res = run_cli("-f", write(tmp_path, pool_cluster()), "upgrade", "-l", "pool=a", "--provider", "gke",
                  "--undrainable-node-behavior", "cordon")
    assert res.returncode == 2 and "--undrainable-node-behavior" in res.stderr and "--provider aks" in res.stderr


def test_eks_taints_every_old_node_first_so_nothing_moves_twice(tmp_path):
    code, plan = upgrade(write(tmp_path, pool_cluster()), "--provider", "eks")
    taints = [a for a in plan["actions"] if a["type"] == "taint"]
    assert sorted(a["node"] for a in taints) == ["p1", "p2", "p3", "p4"]
    assert all(a["key"] == "eks.amazonaws.com/nodegroup" and a["effect"] == "NoSchedule" and a["at"] == 0
               for a in taints)
    new = {n["node"] for n in plan["newNodes"]}
    assert all(a["target"] in new for a in plan["actions"] if a["type"] == "evict")
    assert plan["movedMoreThanOnce"] == []


@pytest.mark.parametrize("provider,args,code,outcome,at,words", [
    # generic and Cluster API wait forever on a drain that never finishes
    ("generic", [], 3, "stalled", None, "never finishes: batch 1 stalls on PDB default/db"),
    ("capi", [], 3, "stalled", None, "Cluster API waits forever"),
    # generic with a drain timeout gives up, as kubectl drain --timeout does
    ("generic", ["--drain-timeout", "10m"], 3, "failed", 600, "fails: batch 1 stalls 10m on PDB default/db"),
    # EKS: 15 minutes, then the update fails, unless forced
    ("eks", [], 3, "failed", 900, "stalls 15m on PDB default/db then EKS fails the update"),
    ("eks", ["--force-upgrade"], 0, "forced", 900, "EKS deletes the pods"),
    # AKS: 30 minutes, then the upgrade fails; --drain-timeout overrides drainTimeoutInMinutes
    ("aks", [], 3, "failed", 1800, "stalls 30m on PDB default/db then AKS fails the upgrade"),
    ("aks", ["--drain-timeout", "5m"], 3, "failed", 300, "stalls 5m"),
    # GKE: PDBs respected for 1 hour, then the pods go anyway
    ("gke", [], 0, "forced", 3600, "batch 1 stalls 1h on PDB default/db then GKE deletes the pods"),
    # Cluster API with nodeDrainTimeout: the Machine and its Node are deleted anyway at 20m
    # (cluster-api machine_deletions.md), and pod GC deletes db-0 40 s later (podgc gcOrphaned)
    ("capi", ["--drain-timeout", "20m"], 0, "forced", 1240, "the Machine is deleted and pod GC deletes its pods"),
])
def test_a_pdb_that_stalls_a_batch(tmp_path, provider, args, code, outcome, at, words):
    got, plan = upgrade(write(tmp_path, pool_cluster(stall=True)), "--provider", provider, *args)
    assert got == code
    assert words in plan["verdict"], plan["verdict"]
    first = plan["nodes"][0]
    assert first["node"] == "p1" and first["outcome"] == outcome
    later = {n["outcome"] for n in plan["nodes"][1:]}
    db = [a for a in plan["actions"] if a.get("pod") == "db-0"]
    if outcome == "forced":
        # the pod is deleted (no Eviction API) when the timeout runs out; the upgrade goes on
        assert [(a["type"], a["at"]) for a in db] == [("delete", at)]
        assert later == {"upgraded"} and not plan["blocked"]
    else:
        assert db == [] and [e["pod"] for e in plan["blocked"]] == ["db-0"]
        assert plan["blocked"][0]["code"] == "pdb-budget"
        assert later == {"not-reached"}
        assert first["end"] == at


def test_second_move_is_planned_with_its_budget(tmp_path):
    """No surge: p1's pods can only go to p2 (the rest of the cluster is full), so they are evicted
    again in p2's batch, where the PDB (maxUnavailable 1) lets one web pod go per wave."""
    items = [node("p1", labels={"pool": "a"}), node("p2", labels={"pool": "a"}),
             node("full", labels={"pool": "b"}, cpu="100m")]
    items += [pod("web-1", "p1", owner=("ReplicaSet", "web"), labels={"app": "web"}),
              pod("web-2", "p2", owner=("ReplicaSet", "web"), labels={"app": "web"}),
              pdb("web", {"app": "web"}, max_unavailable=1, allowed=1, healthy=2, expected=2)]
    code, plan = upgrade(write(tmp_path, items), "--provider", "capi", "--max-surge", "0", "--max-unavailable", "1")
    assert code == 0, plan["blocked"]
    evicts = [(a["pod"], a["node"], a["target"], a["batch"], a["at"]) for a in plan["actions"] if a["type"] == "evict"]
    first = [e for e in evicts if e[3] == 1]
    assert first == [("web-1", "p1", "p2", 1, 0)]
    second = sorted(e for e in evicts if e[3] == 2)
    assert [(e[0], e[1]) for e in second] == [("web-1", "p2"), ("web-2", "p2")]
    assert {e[2] for e in second} == {"p1-surge-1"}
    # one disruption allowed: the two pods of p2 go in two waves, 30s apart
    assert sorted(e[4] for e in second)[1] - sorted(e[4] for e in second)[0] == 30
    again = [a for a in plan["actions"] if a["type"] == "evict" and a["batch"] == 2 and a["pod"] == "web-1"][0]
    assert again["reason"].startswith("evicted again")
    assert plan["movedMoreThanOnce"] == [{"namespace": "default", "pod": "web-1", "times": 2, "nodes": ["p1", "p2"]}]
    table = run_cli("-f", write(tmp_path, items), "upgrade", "-l", "pool=a", "--provider", "capi",
                    "--max-surge", "0", "--max-unavailable", "1").stdout
    assert "moved more than once: 1 pod (default/web-1 x2)" in table and "cordon the whole pool first" in table


def test_demo_upgrades_one_pool():
    res = run_cli("--demo", "-o", "json", "upgrade", "-l", "disktype=ssd", "--ignore-daemonsets",
                  "--delete-emptydir-data", "--force", "--provider", "gke")
    assert res.returncode == 0, res.stderr
    plan = json.loads(res.stdout)
    assert [n["node"] for n in plan["nodes"]] == ["worker-a1", "worker-a2", "worker-b1", "worker-c1"]
    assert all(n["outcome"] in ("upgraded", "forced") for n in plan["nodes"])
    assert all("batch" in a for a in plan["actions"])
    assert {n["node"] for n in plan["newNodes"]} == {"worker-a1-surge-%d" % i for i in range(1, 5)}
    # a replacement that landed on a later batch's node is evicted (or deleted) again there
    moved = plan["movedMoreThanOnce"]
    assert moved and all(m["times"] >= 2 for m in moved)
    lows = {(w["namespace"], w["name"]): w["readyMin"] for w in plan["workloads"]}
    assert lows[("shop", "frontend")] < 10
    table = run_cli("--demo", "upgrade", "-l", "disktype=ssd", "--ignore-daemonsets", "--delete-emptydir-data",
                    "--force", "--provider", "gke").stdout
    assert table.splitlines()[3].startswith("VERDICT: OK (exit 0): finishes in ~")
    assert "batch 1 (+0s to " in table
    timeline = run_cli("--demo", "-o", "timeline", "upgrade", "-l", "disktype=ssd", "--ignore-daemonsets",
                       "--delete-emptydir-data", "--force").stdout
    for name in ("worker-a1",):
        assert "node/" + name in timeline


REAL = REPO / "tests" / "data" / "real"
CAPTURES = sorted(p.name for p in REAL.iterdir() if p.is_dir())
WITH_NODES = [c for c in CAPTURES if any(f.name.startswith("node") for f in (REAL / c).iterdir())]


@pytest.mark.parametrize("capture", CAPTURES)
@pytest.mark.parametrize("provider", ["gke", "eks"])
def test_every_real_capture_upgrades_without_an_error(capture, provider):
    res = run_cli("-f", str(REAL / capture), "-o", "json", "upgrade", "-l", "kubernetes.io/hostname",
                  "--ignore-daemonsets", "--delete-emptydir-data", "--force", "--provider", provider)
    if capture not in WITH_NODES:      # pods or kubelet data only: no pool to upgrade, said cleanly
        assert res.returncode == 1 and res.stderr.startswith("error: ") and "Traceback" not in res.stderr
        assert len(res.stderr.strip().splitlines()) == 1
        return
    assert res.returncode in (0, 3, 4, 5), res.stderr
    plan = json.loads(res.stdout)
    assert plan["nodes"] and all("batch" in a for a in plan["actions"])


@pytest.mark.parametrize("args,code,words", [
    (["nope"], 1, 'node "nope" not found'),
    # a bad value is bad input (exit 1, as --grace-period abc); a flag that does not exist or a
    # choice not offered is a usage error (exit 2)
    (["-l", "pool=a", "--max-surge", "abc"], 1, "error: --max-surge: 'abc'"),
    (["-l", "pool=a", "--max-unavailable", "150%"], 1, "error: --max-unavailable: '150%': a percentage of the pool is at most 100%"),
    (["-l", "pool=a", "--max-surge", "0", "--max-unavailable", "0"], 1, "both 0"),
    # explicit zeros are refused by Cluster API too (as a Deployment's validation refuses 0 / 0%)
    (["-l", "pool=a", "--provider", "capi", "--max-surge", "0%", "--max-unavailable", "0"], 1, "both 0"),
    (["-l", "pool=a", "--surge-like", "ghost"], 1, "--surge-like"),
    # EKS updateConfig: "The maximum number is 100" (a quota of 100 nodes, E1)
    (["-l", "pool=a", "--provider", "eks", "--max-unavailable", "101"], 1, "at most 100 nodes"),
    (["-l", "pool=a", "--surge-label", "no-equals"], 1, "--surge-label"),
    # the kubelet sets kubernetes.io/hostname to each node's own name (well-known label)
    (["-l", "pool=a", "--surge-label", "kubernetes.io/hostname=same"], 1,
     "error: --surge-label: 'kubernetes.io/hostname=same': kubernetes.io/hostname is each node's own"),
    (["-l", "pool=a", "--apply"], 2, "carried out by the provider"),
    (["-l", "pool=a", "--provider", "openstack"], 2, "--provider"),
    (["-l", "pool=a", "--drain-timeout", "soon"], 1, "--drain-timeout"),
    # a flag that would change nothing is refused, not ignored: GKE and Cluster API force a drain
    # past its timeout by themselves, generic gives up
    (["-l", "pool=a", "--provider", "gke", "--force-upgrade"], 1, "error: --force-upgrade: only EKS"),
    (["-l", "pool=a", "--force-upgrade"], 1, "generic already fails a drain past its timeout"),
])
def test_cli_errors(tmp_path, args, code, words):
    res = run_cli("-f", write(tmp_path, pool_cluster()), "upgrade", *args)
    assert res.returncode == code, (res.returncode, res.stderr)
    assert res.stderr.startswith("error: ") and words in res.stderr and "Traceback" not in res.stderr
    assert res.stdout == ""


def test_surge_labels_and_template(tmp_path):
    """New nodes copy --surge-like with its hostname and the --surge-label labels; a pod that needs
    the new label can only land on them."""
    items = pool_cluster()
    items.append(pod("needs-new", "p1", owner=("ReplicaSet", "n"), node_selector={"generation": "2"},
                     labels={"app": "n"}))
    code, plan = upgrade(write(tmp_path, items), "--surge-like", "p2", "--surge-label", "generation=2")
    assert code == 0
    assert plan["newNodes"][0]["node"] == "p2-surge-1" and plan["newNodes"][0]["like"] == "p2"
    target = [a["target"] for a in plan["actions"] if a.get("pod") == "needs-new"]
    assert target == ["p2-surge-1"]


def test_apply_refuses_an_upgrade_plan(tmp_path):
    res = run_cli("-f", write(tmp_path, pool_cluster()), "-o", "json", "upgrade", "-l", "pool=a")
    plan = tmp_path / "plan.json"
    plan.write_text(res.stdout)
    got = run_cli("apply", str(plan), "--yes", env={"KUBECONFIG": str(tmp_path / "none")})
    assert got.returncode == 1 and "node-pool upgrade" in got.stderr and got.stderr.startswith("error: ")


@pytest.mark.parametrize("provider,args,ready,code,words", [
    ("eks", [], "Unknown", 3, "stalls 15m on unreachable node/p1 then EKS fails the update"),
    ("gke", [], "Unknown", 0, "batch 1 stalls 1h on unreachable node/p1 then GKE deletes the pods"),
    ("generic", [], "Unknown", 3, "never finishes: batch 1 stalls on unreachable node/p1"),
    # Cluster API waits on a NotReady (Ready=False) node's pods like kubectl drain: only Unknown
    # is "unreachable" to it (util/noderefutil IsNodeUnreachable)
    ("capi", [], "False", 3, "never finishes: batch 1 stalls on unreachable node/p1"),
])
def test_an_unreachable_node_stalls_its_batch(tmp_path, provider, args, ready, code, words):
    """The Eviction API accepts, but no kubelet confirms the deletion: the drain never finishes."""
    items = pool_cluster()
    items[0] = node("p1", labels={"pool": "a"}, zone="z2", ready=ready)
    got, plan = upgrade(write(tmp_path, items), "--provider", provider, *args)
    assert got == code and words in plan["verdict"], plan["verdict"]


@pytest.mark.parametrize("provider,args", [("gke", []), ("eks", ["--force-upgrade"]), ("aks", ["--force-upgrade"])])
def test_a_forced_unreachable_pod_is_replaced_once(tmp_path, provider, args):
    """web-1 on the unreachable p1 is evicted at +0s: it gets a deletionTimestamp and its
    ReplicaSet replaces it at once (a terminating pod is not active: kubernetes
    `pkg/controller/controller_utils.go` IsPodActive). When the provider's timeout runs out the
    node goes and the object with it, but nothing is created again: one replacement, on the node
    the eviction placed it, and web-1 moved once (before: a second replacement, and web-1 listed
    as moved twice, from p1 and p1)."""
    items = pool_cluster()
    items[0] = node("p1", labels={"pool": "a"}, zone="z2", ready="Unknown")
    code, plan = upgrade(write(tmp_path, items), "--provider", provider, *args)
    assert code == 0, plan["verdict"]
    web1 = [(a["type"], a["target"]) for a in plan["actions"] if a.get("pod") == "web-1"]
    assert [t for t, _ in web1] == ["evict", "delete"] and web1[0][1] == web1[1][1] is not None
    assert plan["movedMoreThanOnce"] == []
    targets = [a["target"] for a in plan["actions"] if a["type"] == "evict"]
    assert len(targets) == len(set(targets)) == 4     # one new node each: none took two replacements


@pytest.mark.parametrize("args", [[], ["--drain-timeout", "10m"]])
def test_cluster_api_does_not_wait_on_an_unreachable_nodes_pods(tmp_path, args):
    """cluster-api `internal/controllers/machine/machine_controller.go` drainNode: when the Node's
    Ready condition is Unknown ("Kubelet is unreachable, pods will never disappear") the drainer
    gets GracePeriodSeconds 1 and SkipWaitForDeleteTimeoutSeconds 1: web-1 is still evicted through
    the Eviction API, with a 1 s grace period, and the drain completes instead of stalling (with no
    nodeDrainTimeout: forever) or running into the timeout."""
    items = pool_cluster()
    items[0] = node("p1", labels={"pool": "a"}, zone="z2", ready="Unknown")
    got, plan = upgrade(write(tmp_path, items), "--provider", "capi", *args)
    assert got == 0, plan["verdict"]
    assert plan["blocked"] == [] and {n["outcome"] for n in plan["nodes"]} == {"upgraded"}
    evicts = {a["pod"]: a for a in plan["actions"] if a["type"] == "evict"}
    assert evicts["web-1"]["gracePeriodSeconds"] == 1 and evicts["web-1"]["at"] == 0
    assert [evicts["web-%d" % i]["gracePeriodSeconds"] for i in (2, 3, 4)] == [None, None, None]
    assert not [a for a in plan["actions"] if a["type"] == "delete"]


def test_a_forced_drain_leaves_daemonset_pods_to_their_node(tmp_path):
    """Without --ignore-daemonsets kubectl's filters abort the node; when GKE forces it after an
    hour, the DaemonSet pod is not deleted one by one (it goes with the node) but the others are."""
    items = pool_cluster()
    items.append(pod("agent-p1", "p1", owner=("DaemonSet", "agent"), labels={"app": "agent"}))
    code, plan = upgrade(write(tmp_path, items), "--provider", "gke")
    assert code == 0
    deletes = [(a["pod"], a["at"]) for a in plan["actions"] if a["type"] == "delete"]
    assert deletes == [("web-1", 3600)]
    assert [(e["pod"], e["code"]) for e in plan["skipped"]] == [("agent-p1", "daemonset")]
    assert "stalls 1h on drain filters on node/p1" in plan["verdict"]


def test_without_pdbs_in_the_input_the_upgrade_says_so(tmp_path):
    """As drain does (issue 21): evictions whose budgets the input cannot show make the plan
    incomplete, exit 5 when nothing is blocked or short."""
    items = pool_cluster()
    p = tmp_path / "nopdb.json"
    head = dict(info(), kinds=["Node", "Pod", "ReplicaSet", "Deployment"])
    p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [head] + items}))
    res = run_cli("-f", str(p), "-o", "json", "upgrade", "-l", "pool=a", "--provider", "gke")
    assert res.returncode == 5, res.stderr
    plan = json.loads(res.stdout)
    assert [e["kind"] for e in plan["incomplete"]] == ["PodDisruptionBudget"]


def waves_cluster() -> List[dict]:
    """Three pool nodes with one web pod each under a PDB that allows one disruption at a time:
    a batch of all three drains them in three PDB waves, 30 s (--pod-startup) apart."""
    items = [node("p%d" % i, labels={"pool": "a"}) for i in range(1, 4)]
    items += [pod("web-%d" % i, "p%d" % i, owner=("ReplicaSet", "web"), labels={"app": "web"}) for i in range(1, 4)]
    items.append(pdb("web", {"app": "web"}, max_unavailable=1, allowed=1, healthy=3, expected=3))
    return items


@pytest.mark.parametrize("provider,timeout,evicted,deleted", [
    # GKE respects PDBs until its timeout, then removes what is left: the third wave (+60s) never
    # comes, web-3 is deleted at the timeout (no Eviction API, PDB not consulted)
    ("gke", "45s", [("web-1", 0), ("web-2", 30)], [("web-3", 45)]),
    ("gke", "20s", [("web-1", 0)], [("web-2", 20), ("web-3", 20)]),
    # every wave within the timeout: nothing is forced
    ("gke", "2m", [("web-1", 0), ("web-2", 30), ("web-3", 60)], []),
])
def test_pdb_waves_past_a_forcing_timeout_are_deleted_at_the_timeout(tmp_path, provider, timeout, evicted, deleted):
    got, plan = upgrade(write(tmp_path, waves_cluster()), "--provider", provider, "--max-surge", "3",
                        "--drain-timeout", timeout)
    assert got == 0, plan["verdict"]
    pods = [(a["type"], a["pod"], a["at"]) for a in plan["actions"] if a.get("pod")]
    assert [(p, at) for t, p, at in pods if t == "evict"] == evicted
    assert [(p, at) for t, p, at in pods if t == "delete"] == deleted
    outcome = "forced" if deleted else "upgraded"
    assert {n["outcome"] for n in plan["nodes"]} == {outcome}
    # the batch ends once the last replacement (evicted or deleted) is Ready, 30 s later
    last = max(at for _, _, at in pods)
    assert {n["end"] for n in plan["nodes"]} == {last + 30}


@pytest.mark.parametrize("provider,args,outcome", [
    # EKS (E1): pods that do not leave within the timeout fail the update: the drain stops there
    ("eks", ["--max-unavailable", "3"], "failed"),
    # AKS (A1, A2): past drainTimeoutInMinutes the upgrade fails (Schedule) or the node is
    # quarantined, "cordoned" with the pods it still runs (Cordon)
    ("aks", ["--max-surge", "3"], "failed"),
    ("aks", ["--max-surge", "3", "--undrainable-node-behavior", "cordon"], "quarantined"),
    # kubectl drain --timeout: "global timeout reached", kubectl gives up on the node
    ("generic", ["--max-surge", "3"], "failed"),
])
def test_pdb_waves_past_a_failing_timeout_are_never_evicted(tmp_path, provider, args, outcome):
    """The third PDB wave (web-3, +60s) comes after the 45 s timeout: a provider that gives up at
    the timeout never evicts web-3 (before: its eviction was planned at +60s, after the upgrade had
    failed or the node was quarantined with its pods, and counted in the workload's lowest point)."""
    code, plan = upgrade(write(tmp_path, waves_cluster()), "--provider", provider, "--drain-timeout", "45s", *args)
    assert code == 3, plan["verdict"]
    assert [(a["pod"], a["at"]) for a in plan["actions"] if a["type"] in ("evict", "delete")] == [
        ("web-1", 0), ("web-2", 30)]
    assert [(e["pod"], e["code"]) for e in plan["blocked"]] == [("web-3", "drain-timeout")]
    assert [n["outcome"] for n in plan["nodes"] if n["node"] == "p3"] == [outcome]
    assert all(a["at"] <= 45 for a in plan["actions"])


@pytest.mark.parametrize("provider,args,late", [
    # no surge: each removed node is replaced after it is gone, the last ones too (EKS's minimal
    # strategy, Cluster API maxSurge 0): the pool ends with one new node per old node
    ("generic", ["--max-surge", "0", "--max-unavailable", "1"], 1),
    ("capi", ["--max-surge", "0", "--max-unavailable", "2"], 2),
    ("eks", ["--max-surge", "0"], 1),
    # with surge the last batch's new nodes joined at its start: none is left to join
    ("gke", [], 0),
])
def test_the_pool_ends_with_one_new_node_per_old_node(tmp_path, provider, args, late):
    got, plan = upgrade(write(tmp_path, pool_cluster()), "--provider", provider, *args)
    assert got == 0, plan["verdict"]
    assert len(plan["newNodes"]) == 4
    end = max(n["end"] for n in plan["nodes"])
    assert [n["joins"] for n in plan["newNodes"]].count(end) == late


def full_pool(size: int, with_pdb: bool) -> List[dict]:
    """`size` pool nodes (4 cpu) each running one 3-cpu pod of one ReplicaSet and nothing else in
    the cluster: with no surge, a replacement fits nowhere until a new node joins."""
    items = [node("p%d" % i, labels={"pool": "a"}) for i in range(1, size + 1)]
    items += [pod("big-%d" % i, "p%d" % i, owner=("ReplicaSet", "big"), labels={"app": "big"}, cpu="3")
              for i in range(1, size + 1)]
    if with_pdb:
        items.append(pdb("big", {"app": "big"}, max_unavailable=1, allowed=1, healthy=size, expected=size))
    return items


@pytest.mark.parametrize("provider,args,startup", [
    ("capi", ["--max-surge", "0", "--max-unavailable", "1"], 0),
    ("generic", ["--max-surge", "0", "--max-unavailable", "1"], 0),
    ("eks", ["--max-surge", "0"], 0),
    ("capi", ["--max-surge", "0", "--max-unavailable", "1", "--node-startup", "2m"], 120),
])
def test_a_pending_replacement_lands_when_a_new_node_joins(tmp_path, provider, args, startup):
    """kube-scheduler retries its unschedulable pods when a node is added (and when the node's
    not-ready taint goes): `pkg/scheduler/eventhandlers.go` addNodeToCache / updateNodeInCache ->
    SchedulingQueue.MoveAllToActiveOrBackoffQueue. With no surge, each removed node's replacement
    joins after it is gone (README, `upgrade`), so the Pending replacement of the pod evicted
    from node k lands on the k-th new node once it is Ready: nothing is short (exit 0)."""
    code, plan = upgrade(write(tmp_path, full_pool(3, False)), "--provider", provider, *args)
    assert code == 0, (plan["verdict"], plan["shortfall"])
    assert plan["shortfall"] == []
    joins = {n["node"]: n["joins"] for n in plan["newNodes"]}
    evicts = [a for a in plan["actions"] if a["type"] == "evict"]
    assert [(a["pod"], a["target"]) for a in evicts] == [("big-%d" % i, "p1-surge-%d" % i) for i in (1, 2, 3)]
    assert [a["replacementAt"] for a in evicts] == [joins["p1-surge-%d" % i] + startup for i in (1, 2, 3)]
    assert all("stays Pending until node/p1-surge-" in a["reason"] for a in evicts)
    assert [(w["name"], w["readyAfter"]) for w in plan["workloads"]] == [("big", 3)]


def test_a_budget_spent_on_a_pending_replacement_comes_back_once_it_lands(tmp_path):
    """PDB maxUnavailable 1 over two pods: big-1's eviction spends the one disruption and its
    replacement is Pending until p1-surge-1 joins (Ready at +30s, Ready pod at +1m). The
    disruption controller then counts it healthy again, so big-2's eviction, retried every 5 s by
    the drain (kubectl drain, 429), goes through in the next wave (+1m) instead of holding the
    upgrade forever."""
    code, plan = upgrade(write(tmp_path, full_pool(2, True)), "--provider", "capi", "--max-surge", "0",
                         "--max-unavailable", "1")
    assert code == 0, plan["verdict"]
    assert plan["blocked"] == [] and plan["shortfall"] == []
    evicts = [(a["pod"], a["at"], a["target"]) for a in plan["actions"] if a["type"] == "evict"]
    assert evicts == [("big-1", 0, "p1-surge-1"), ("big-2", 60, "p1-surge-2")]
    assert [n["outcome"] for n in plan["nodes"]] == ["upgraded", "upgraded"]


@pytest.mark.parametrize("taint", [
    # cloud-provider api/well_known_taints.go
    "node.cloudprovider.kubernetes.io/shutdown", "node.cloudprovider.kubernetes.io/uninitialized",
    # cluster-autoscaler utils/taints/taints.go
    "ToBeDeletedByClusterAutoscaler", "DeletionCandidateOfClusterAutoscaler",
    # Karpenter v1 / v1beta1
    "karpenter.sh/disrupted", "karpenter.sh/disruption",
    # node.kubernetes.io/: the cordon's and the conditions' (kubelet / node lifecycle controller)
    "node.kubernetes.io/unschedulable", "node.kubernetes.io/not-ready",
])
def test_new_nodes_do_not_copy_the_templates_own_state_taints(tmp_path, taint):
    """The template (--surge-like) carries a taint some component put on that one node for its
    state, and the pool's own taint (dedicated=x:NoSchedule). A node newly created for the pool
    gets the pool's taint only: the pods that tolerate it land on the new nodes."""
    tol = [{"key": "dedicated", "operator": "Equal", "value": "x", "effect": "NoSchedule"}]
    pool_taint = {"key": "dedicated", "value": "x", "effect": "NoSchedule"}
    items = [node("p1", labels={"pool": "a"}, taints=[pool_taint, {"key": taint, "effect": "NoSchedule"}]),
             node("p2", labels={"pool": "a"}, taints=[pool_taint])]
    items += [pod("web-%d" % i, "p%d" % i, owner=("ReplicaSet", "web"), labels={"app": "web"}, tolerations=tol)
              for i in (1, 2)]
    code, plan = upgrade(write(tmp_path, items), "--surge-like", "p1")
    assert code == 0, (plan["verdict"], plan["shortfall"])
    assert [(a["pod"], a["target"]) for a in plan["actions"] if a["type"] == "evict"] == [
        ("web-1", "p1-surge-1"), ("web-2", "p1-surge-2")]
    # the pool's taint stays: a pod that does not tolerate it fits no new node
    items.append(pod("plain", "p2", owner=("ReplicaSet", "plain"), labels={"app": "plain"}))
    code, plan = upgrade(write(tmp_path, items), "--surge-like", "p1")
    assert code == 4 and [e["pod"] for e in plan["shortfall"]] == ["plain"]


@pytest.mark.parametrize("provider,args", [
    ("generic", []),
    # the upgrade fails in batch 1: the nodes never reached still get their row
    ("eks", []),
])
def test_timeline_has_one_row_per_node(tmp_path, provider, args):
    """Issue 26: `-o timeline` has one row per node, old and new (README: old nodes until they are
    removed, new ones from when they join). p1 is already cordoned and runs no pod, so no action
    names it; it is still upgraded (removed)."""
    items = pool_cluster(stall=provider == "eks")
    items[0] = node("p1", labels={"pool": "a"}, zone="z2", unschedulable=True)
    items = [i for i in items if not (i["kind"] == "Pod" and i["spec"]["nodeName"] == "p1" and provider != "eks")]
    path = write(tmp_path, items)
    _, plan = upgrade(path, "--provider", provider, *args)
    res = run_cli("-f", path, "-o", "timeline", "upgrade", "-l", "pool=a", "--provider", provider, *args)
    rows = [line.split()[0] for line in res.stdout.splitlines() if line.startswith("node/")]
    want = [n["node"] for n in plan["nodes"]] + [n["node"] for n in plan["newNodes"]]
    assert sorted(rows) == sorted("node/" + n for n in want), res.stdout


@pytest.mark.parametrize("startup,verdict", [
    # batches end at +30s, +60s, +1m30s (each removal 30 s after its eviction); p1-surge-3 joins
    # once p3 is gone (+1m30s) and big-3's Pending replacement is Ready 30 s (--pod-startup) later
    ("0s", "finishes in ~2m in 3 batches"),
    # with a 2 m boot: batches end at +30s, +3m, +5m30s; p1-surge-3 Ready at +7m30s, big-3 at +8m
    ("2m", "finishes in ~8m in 3 batches"),
])
def test_the_upgrade_finishes_when_the_last_new_node_and_its_pods_are_ready(tmp_path, startup, verdict):
    """With no surge left the last removed node's replacement joins after the last batch (README,
    `upgrade`): the rollout is not done until that node is Ready (Cluster API: the MachineSet's new
    Machine available, C1) and the replacement Pending for it runs there; before, the verdict's
    time stopped at the last node's removal (+1m30s, +5m30s)."""
    code, plan = upgrade(write(tmp_path, full_pool(3, False)), "--provider", "capi", "--max-surge", "0",
                         "--max-unavailable", "1", "--node-startup", startup)
    assert code == 0 and plan["verdict"].startswith(verdict), plan["verdict"]


def _capi_filter_cluster() -> List[dict]:
    items = pool_cluster()
    items += [pod("agent-x", "p1", owner=("DaemonSet", "agent"), labels={"app": "agent"}),
              pod("scratch-1", "p1", owner=("ReplicaSet", "scratch"), labels={"app": "scratch"},
                  volumes=[{"name": "tmp", "emptyDir": {}}]),
              pod("debug", "p1", owner=None, labels={"run": "debug"}),
              pod("keep-1", "p1", owner=("ReplicaSet", "keep"), labels={"app": "keep", "cluster.x-k8s.io/drain": "skip"})]
    return items


# Cluster API's drainer (cluster-api internal/controllers/machine/drain/filters.go): DaemonSet pods
# are skipped with "ignoring DaemonSet-managed Pod", pods with emptyDir or without a controller are
# drained with a warning (never an error), and pods labelled cluster.x-k8s.io/drain=skip are left
# (drainLabelFilter). kubectl drain without flags refuses the first three (semantics.md F).
CAPI_FILTERS = [
    # provider, pod, what happens to it on p1
    ("capi", "agent-x", "skipped:daemonset"),
    ("capi", "scratch-1", "evicted"),
    ("capi", "debug", "evicted"),
    ("capi", "keep-1", "skipped:drain-label"),
    ("generic", "agent-x", "blocked:drain-filter"),
    ("generic", "scratch-1", "blocked:drain-filter"),
    ("generic", "debug", "blocked:drain-filter"),
    ("generic", "keep-1", "blocked:drain-filter"),   # not evicted: kubectl stops at the node's errors
]


@pytest.mark.parametrize("provider,name,fate", CAPI_FILTERS)
def test_cluster_api_drains_past_kubectls_filters(tmp_path, provider, name, fate):
    code, plan = upgrade(write(tmp_path, _capi_filter_cluster()), "--provider", provider)
    evicted = {a["pod"] for a in plan["actions"] if a["type"] == "evict"}
    skipped = {s["pod"]: s["code"] for s in plan["skipped"]}
    blocked = {b["pod"]: b["code"] for b in plan["blocked"]}
    seen = ("evicted" if name in evicted else "skipped:" + skipped[name] if name in skipped
            else "blocked:" + blocked[name] if name in blocked else "nothing")
    assert seen == fate
    if provider == "capi":
        assert [n["outcome"] for n in plan["nodes"]] == ["upgraded"] * 4
    else:
        assert plan["nodes"][0]["outcome"] == "stalled" and code == 3


# kube-controller-manager's pod GC (kubernetes `pkg/controller/podgc/gc_controller.go` gcOrphaned):
# a pod whose spec.nodeName names a node that no longer exists is queued for quarantineTime (40 s),
# then marked Failed and deleted with grace 0 (no Eviction API). The upgrade removes every drained
# node, so what its drains leave there is deleted by pod GC, 40 s after the node's removal (a pass
# every gcCheckPeriod, 20 s: 40 s to 80 s; the plan says the earliest), and replaced by its controller.
def _left_behind_cluster() -> List[dict]:
    items = pool_cluster()
    items.append(pod("cache-1", "p1", owner=("ReplicaSet", "cache"), labels={"app": "cache"}))
    items.append(pod("keep-1", "p1", owner=("ReplicaSet", "keep"),
                     labels={"app": "keep", "cluster.x-k8s.io/drain": "skip"}))
    items.append(pod("agent-p1", "p1", owner=("DaemonSet", "agent"), labels={"app": "agent"}))
    items.append({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default",
                                                                            "uid": "uid-agent"}, "spec": {}})
    return items


@pytest.mark.parametrize("provider,args,left", [
    # kubectl drain --pod-selector leaves the pods it does not select (semantics: kubectl drain)
    ("generic", ["--pod-selector", "app=web"], {"cache-1": "not-selected", "keep-1": "not-selected"}),
    ("gke", ["--pod-selector", "app in (web,keep)"], {"cache-1": "not-selected"}),
    # EKS removes a drained node 60 s after its drain (E1): pod GC counts from the removal
    ("eks", ["--pod-selector", "app=web"], {"cache-1": "not-selected", "keep-1": "not-selected"}),
    # Cluster API's drain leaves pods labelled cluster.x-k8s.io/drain=skip (C4)
    ("capi", [], {"keep-1": "drain-label"}),
])
def test_pod_gc_deletes_what_the_drain_left_on_a_removed_node(tmp_path, provider, args, left):
    code, plan = upgrade(write(tmp_path, _left_behind_cluster(), ("DaemonSet",)), "--provider", provider,
                         "--ignore-daemonsets", *args)
    assert code == 0, plan["verdict"]
    removed = {n["node"]: (n["end"], n["batch"]) for n in plan["nodes"]}
    gc = {a["pod"]: a for a in plan["actions"] if a["by"] == "pod-gc"}
    assert set(gc) == set(left)                    # DaemonSet pods go with their node: no action
    new_nodes = {n["node"] for n in plan["newNodes"]}
    for name, a in gc.items():
        end, batch = removed[a["node"]]
        assert (a["type"], a["force"], a["gracePeriodSeconds"]) == ("delete", True, 0)
        assert a["at"] == end + 40 and a["batch"] == batch
        assert a["target"] in new_nodes            # its ReplicaSet's replacement lands on a new node
    skipped = {e["pod"]: e["code"] for e in plan["skipped"]}
    assert {k: skipped[k] for k in left} == left   # the drain did leave them, but they do not stay
    reasons = {e["pod"]: e["reason"] for e in plan["skipped"]}
    assert all("pod GC deletes it at" in reasons[k] and "running" not in reasons[k] for k in left), reasons
    assert skipped["agent-p1"] in ("daemonset", "not-selected")
    assert all(w["readyAfter"] == w["ready"] for w in plan["workloads"])


def test_pod_gc_lets_a_statefulset_pod_on_an_unreachable_node_be_recreated(tmp_path):
    """Cluster API drains an unreachable node (Ready Unknown) without waiting for its pods (C3):
    db-0 is evicted but stays Terminating, and its StatefulSet creates db-0 again only once it is
    gone. The Machine's Node is removed, pod GC deletes db-0 40 s later (gcOrphaned, grace 0), and
    the StatefulSet's db-0 then lands on a new node: no waits-for-old-pod shortfall, exit 0."""
    items = pool_cluster()
    items[0] = node("p1", labels={"pool": "a"}, zone="z2", ready="Unknown")
    items.append(pod("db-0", "p1", owner=("StatefulSet", "db"), labels={"app": "db"}))
    code, plan = upgrade(write(tmp_path, items, ("StatefulSet",)), "--provider", "capi")
    assert code == 0, (plan["verdict"], plan["shortfall"], plan["incomplete"])
    assert plan["shortfall"] == [] and plan["blocked"] == []
    db = [a for a in plan["actions"] if a.get("pod") == "db-0"]
    assert [(a["type"], a["by"]) for a in db] == [("evict", "user"), ("delete", "pod-gc")]
    p1 = [n for n in plan["nodes"] if n["node"] == "p1"][0]
    assert db[1]["at"] == p1["end"] + 40 and db[1]["force"] is True and db[1]["gracePeriodSeconds"] == 0
    assert db[0]["target"] == db[1]["target"] in {n["node"] for n in plan["newNodes"]}
    sts = [w for w in plan["workloads"] if w["kind"] == "StatefulSet"][0]
    assert (sts["readyMin"], sts["readyAfter"]) == (0, 1)


def test_a_pod_gc_deletion_counts_against_the_budget_when_it_happens(tmp_path):
    """cache-1 (not selected) is left on p1, removed at +30s; pod GC deletes it at +1m10s, a plain
    DELETE that no budget stops. Batch 2 drains p2 from +30s: cache-3 goes in its first wave
    (PDB minAvailable 2 of 3 allows 1), cache-2 at +1m once cache-3's replacement is Ready, before
    pod GC's deletion; the lowest point, 1 ready, comes with it (kubernetes
    `pkg/controller/disruption`: currentHealthy counts Ready pods, whoever deleted one)."""
    items = [node("p%d" % i, labels={"pool": "a"}, zone="z1") for i in (1, 2)]
    items += [pod("web-1", "p1", owner=("ReplicaSet", "web"), labels={"app": "web", "sel": "yes"}),
              pod("cache-1", "p1", owner=("ReplicaSet", "cache"), labels={"app": "cache"}),
              pod("cache-2", "p2", owner=("ReplicaSet", "cache"), labels={"app": "cache", "sel": "yes"}),
              pod("cache-3", "p2", owner=("ReplicaSet", "cache"), labels={"app": "cache", "sel": "yes"}),
              pdb("cache", {"app": "cache"}, min_available=2, allowed=1, healthy=3, expected=3)]
    code, plan = upgrade(write(tmp_path, items), "--pod-selector", "sel=yes")
    assert code == 0, plan["verdict"]
    got = [(a["type"], a["pod"], a["at"]) for a in plan["actions"] if a["type"] != "cordon"]
    assert got == [("evict", "web-1", 0), ("evict", "cache-3", 30), ("evict", "cache-2", 60),
                   ("delete", "cache-1", 70)]
    cache = [w for w in plan["workloads"] if w["name"] == "cache"][0]
    assert (cache["readyMin"], cache["readyMinAt"], cache["readyAfter"]) == (1, 70, 3)


def test_drain_one_at_a_time_keeps_its_nodes_so_pod_gc_has_nothing_to_do(tmp_path):
    """drain --one-at-a-time runs the upgrade's batches without removing the nodes: what
    --pod-selector leaves keeps running there."""
    res = run_cli("-f", write(tmp_path, _left_behind_cluster(), ("DaemonSet",)), "-o", "json", "drain", "p1", "p2",
                  "--one-at-a-time", "--ignore-daemonsets", "--pod-selector", "app=web")
    plan = json.loads(res.stdout)
    assert not [a for a in plan["actions"] if a["by"] == "pod-gc"]
    assert {e["pod"] for e in plan["skipped"] if e["code"] == "not-selected"} == {"cache-1", "keep-1", "agent-p1"}


def test_cluster_api_leaves_a_timed_out_drains_pods_to_pod_gc(tmp_path):
    """Cluster API skips the drain once nodeDrainTimeout has expired and deletes the Machine's
    infrastructure and Node (cluster-api `docs/book/src/tasks/automated-machine-management/
    machine_deletions.md`); it deletes no pod itself. web-3, whose PDB wave would come at +60s, is
    still bound to the gone node and is force-deleted by pod GC 40 s after the timeout (kubernetes
    `pkg/controller/podgc/gc_controller.go` gcOrphaned: quarantineTime 40 s, grace 0)."""
    got, plan = upgrade(write(tmp_path, waves_cluster()), "--provider", "capi", "--max-surge", "3",
                        "--drain-timeout", "45s")
    assert got == 0, plan["verdict"]
    pods = [(a["type"], a["by"], a["pod"], a["at"], a["gracePeriodSeconds"]) for a in plan["actions"] if a.get("pod")]
    assert pods == [("evict", "user", "web-1", 0, None), ("evict", "user", "web-2", 30, None),
                    ("delete", "pod-gc", "web-3", 85, 0)]
    assert {n["outcome"] for n in plan["nodes"]} == {"forced"}
    assert "then the Machine is deleted and pod GC deletes its pods" in plan["verdict"]


@pytest.mark.parametrize("provider,args", [("gke", []), ("eks", ["--force-upgrade"]), ("aks", ["--force-upgrade"]),
                                           ("capi", [])])
def test_a_statefulset_pod_on_an_unreachable_node_comes_back_after_pod_gc(tmp_path, provider, args):
    """db-0 on the unreachable p1 is evicted at +0s and stays Terminating: no kubelet confirms its
    deletion, whether the provider deletes it again at its timeout or not. The StatefulSet creates
    db-0 again only once the old one is gone (kubernetes `stateful_set_control.go`: one pod per
    identity), which is when pod GC deletes it, 40 s after p1 is removed (`podgc` gcOrphaned)."""
    items = pool_cluster()
    items[0] = node("p1", labels={"pool": "a"}, zone="z2", ready="Unknown")
    items.append(pod("db-0", "p1", owner=("StatefulSet", "db"), labels={"app": "db"}))
    code, plan = upgrade(write(tmp_path, items, ("StatefulSet",)), "--provider", provider, *args)
    assert code == 0, (plan["verdict"], plan["shortfall"])
    removed = [n["end"] for n in plan["nodes"] if n["node"] == "p1"][0]
    gc = [a for a in plan["actions"] if a.get("pod") == "db-0" and a["by"] == "pod-gc"]
    assert [(a["type"], a["at"], a["force"]) for a in gc] == [("delete", removed + 40, True)]
    evict = [a for a in plan["actions"] if a.get("pod") == "db-0" and a["type"] == "evict"][0]
    assert evict["target"] == gc[0]["target"] is not None and evict["replacementAt"] == removed + 40
    assert plan["shortfall"] == [] and plan["movedMoreThanOnce"] == []


def test_pod_gc_frees_ordered_ready_ordinals_one_by_one(tmp_path):
    """db-0 and db-1 stay Terminating on the unreachable p1 until pod GC deletes both at p1's
    removal + 40 s. An OrderedReady StatefulSet then creates db-0, and db-1 only once db-0 is
    Running and Ready (kubernetes `stateful_set_control.go` processReplica, monotonic), 30 s
    (--pod-startup) later."""
    items = pool_cluster()
    items[0] = node("p1", labels={"pool": "a"}, zone="z2", ready="Unknown")
    items += [pod("db-%d" % i, "p1", owner=("StatefulSet", "db"), labels={"app": "db"}) for i in (0, 1)]
    items.append({"apiVersion": "apps/v1", "kind": "StatefulSet",
                  "metadata": {"name": "db", "namespace": "default", "uid": "uid-db"},
                  "spec": {"replicas": 2, "podManagementPolicy": "OrderedReady",
                           "selector": {"matchLabels": {"app": "db"}}},
                  "status": {"replicas": 2, "readyReplicas": 2}})
    code, plan = upgrade(write(tmp_path, items, ("StatefulSet",)), "--provider", "capi")
    assert code == 0, (plan["verdict"], plan["shortfall"])
    gone = [n["end"] for n in plan["nodes"] if n["node"] == "p1"][0] + 40
    created = {a["pod"]: a.get("replacementAt") or a["at"] for a in plan["actions"] if a["type"] == "evict"
               and a["pod"].startswith("db-")}
    assert created == {"db-0": gone, "db-1": gone + 30}
    db = [w for w in plan["workloads"] if w["name"] == "db"][0]
    assert (db["readyMin"], db["readyAfter"]) == (0, 2)


_NOWHERE = {"disk": "none"}     # a nodeSelector no node matches: the replacement is never placed
_PIN_P2 = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["p2"]}]}]}}}


def _fit_error(n: int, reasons: str) -> str:
    """`FitError.Error()` (`pkg/scheduler/framework/types.go`, spec scheduler.md S1.10) for a pod
    preemption cannot help (every node UnschedulableAndUnresolvable)."""
    return ("0/%d nodes are available: %s. preemption: 0/%d nodes are available: %d Preemption is not helpful "
            "for scheduling." % (n, reasons, n, n))


@pytest.mark.parametrize("provider,on,selector,affinity,expect", [
    # pool p1-p3 (generic: batches of 1, one surge node more per batch) and node/other. Batch 1:
    # p1, p2, p3, other and p1-surge-1 exist (p1-surge-2/-3 are not created yet): 5 nodes, p1 cordoned
    ("generic", "p1", _NOWHERE, None, _fit_error(5, "1 node(s) were unschedulable, 4 node(s) didn't match "
                                                    "Pod's node affinity/selector")),
    # batch 2: p1 is gone, p1-surge-2 has joined: still 5 nodes, only p2 cordoned
    ("generic", "p2", _NOWHERE, None, _fit_error(5, "1 node(s) were unschedulable, 4 node(s) didn't match "
                                                    "Pod's node affinity/selector")),
    ("generic", "p3", _NOWHERE, None, _fit_error(5, "1 node(s) were unschedulable, 4 node(s) didn't match "
                                                    "Pod's node affinity/selector")),
    # NodeAffinity's PreFilter pins the pod to p2 (cordoned): every other node that exists is
    # `didn't satisfy plugin(s) [NodeAffinity]`, p1 (removed) and p1-surge-3 (not created) are not
    ("generic", "p2", None, _PIN_P2, _fit_error(5, "1 node(s) were unschedulable, 4 node(s) didn't satisfy "
                                                   "plugin(s) [NodeAffinity]")),
    # EKS (E1): max(2 x 1 zone, 1) = 2 new nodes, every old node marked unschedulable first. Batch 2:
    # p1 is gone, p1-surge-1..3 joined: p2, p3 unschedulable, other and 3 new nodes do not match
    ("eks", "p2", _NOWHERE, None, _fit_error(6, "2 node(s) were unschedulable, 4 node(s) didn't match "
                                                "Pod's node affinity/selector")),
])
def test_failed_scheduling_counts_only_the_nodes_that_exist(tmp_path, provider, on, selector, affinity, expect):
    """kube-scheduler's FitError counts the nodes of its snapshot (`pkg/scheduler/schedule_one.go`:
    `NumAllNodes: len(allNodes)`, from `nodeInfoSnapshot.NodeInfos().List()`), which holds the nodes
    that exist: a deleted node is a ghost "skipped from snapshots" (`pkg/scheduler/backend/cache/
    cache.go` RemoveNode) and a surge node not created yet was never added. So neither is part of N
    or a `node(s) were unschedulable`."""
    items = [node("p%d" % i, labels={"pool": "a"}) for i in (1, 2, 3)] + [node("other", labels={"pool": "b"})]
    items += [pod("web-%d" % i, "p%d" % i, owner=("ReplicaSet", "web"), labels={"app": "web"}) for i in (1, 2, 3)]
    items.append(pod("odd-1", on, owner=("ReplicaSet", "odd"), node_selector=selector, affinity=affinity))
    code, plan = upgrade(write(tmp_path, items), "--provider", provider, "--force-upgrade" if provider == "eks"
                         else "--max-surge=1")
    assert code == 4, plan["verdict"]
    assert [(e["pod"], e["node"], e["reason"].split("nowhere to go: ")[1]) for e in plan["shortfall"]] == [
        ("odd-1", on, expect)]


def test_drain_still_counts_its_cordoned_nodes(tmp_path):
    """drain's nodes stay in the cluster, cordoned: 4 nodes, 1 unschedulable (the same FitError)."""
    items = [node("p%d" % i, labels={"pool": "a"}) for i in (1, 2, 3)] + [node("other", labels={"pool": "b"})]
    items.append(pod("odd-1", "p2", owner=("ReplicaSet", "odd"), node_selector=_NOWHERE))
    res = run_cli("-f", write(tmp_path, items), "-o", "json", "drain", "p2")
    plan = json.loads(res.stdout)
    assert [e["reason"].split("nowhere to go: ")[1] for e in plan["shortfall"]] == [
        _fit_error(4, "1 node(s) were unschedulable, 3 node(s) didn't match Pod's node affinity/selector")]


def _shutdown_cluster(kubelet: Optional[dict]) -> List[dict]:
    """p1 runs web-1 (drained), keep-1 (a ReplicaSet pod --pod-selector leaves, grace 30 s) and a
    system-node-critical DaemonSet pod; p1's kubelet has `kubelet` as its configuration."""
    items = [node("p1", labels={"pool": "a"}), node("p2", labels={"pool": "a"}), node("other", labels={"pool": "b"})]
    items += [pod("web-1", "p1", owner=("ReplicaSet", "web"), labels={"app": "web"}),
              pod("keep-1", "p1", owner=("ReplicaSet", "keep"), labels={"tier": "keep"}),
              pod("ds-p1", "p1", owner=("DaemonSet", "ds"), labels={"ds": "x"}, priority=2000001000)]
    if kubelet is not None:
        items.append({"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "p1"},
                      "kubeletconfig": kubelet})
    return items


_GRACEFUL = {"shutdownGracePeriod": "30s", "shutdownGracePeriodCriticalPods": "10s"}


@pytest.mark.parametrize("provider,args,kubelet,removed,kill,gc", [
    # spec semantics.md B3/B5-B7 (nodeshutdown migrateConfig, groupByPriority, killPods): 30s / 10s
    # critical is [{0: 20s}, {2000000000: 10s}]; keep-1 (priority 0, asks 30s) is killed first with
    # grace 20 and is Failed 20s later, when its ReplicaSet replaces it; the DaemonSet pod
    # (system-node-critical) goes in the second phase, 10s: the shutdown takes 30s. GKE deletes the
    # VM with a guest OS shutdown (Compute Engine graceful-shutdown-overview); pod GC deletes the
    # Failed pod 40s after the Node object is gone (once the VM is off).
    ("gke", [], _GRACEFUL, 30, (30, 20, 50), 30 + 30 + 40),
    # EKS: the default terminate is an attempted graceful OS shutdown (EC2 instance-terminate-methods);
    # the node is terminated 60 s after its drain (E1)
    ("eks", [], _GRACEFUL, 90, (90, 20, 110), 90 + 30 + 40),
    # shutdownGracePeriodByPodPriority (B5): keep-1 in the 0 group (5 s), the DaemonSet pod in 2000000000's (3 s)
    ("gke", [], {"shutdownGracePeriodByPodPriority": [{"priority": 0, "shutdownGracePeriodSeconds": 5},
                                                      {"priority": 2000000000, "shutdownGracePeriodSeconds": 3}]},
     30, (30, 5, 35), 30 + 8 + 40),
    # no kubelet configuration for p1: upstream defaults (shutdownGracePeriod 0: disabled, B2)
    ("gke", [], None, 30, None, 30 + 40),
    ("gke", [], {"shutdownGracePeriod": "0s"}, 30, None, 30 + 40),
    # AKS and Cluster API: an OS shutdown on VM deletion is not documented where we read; pod GC only
    ("aks", [], _GRACEFUL, 30, None, 30 + 40),
    ("capi", [], _GRACEFUL, 30, None, 30 + 40),
])
def test_a_deleted_vms_graceful_shutdown_kills_what_the_drain_left(tmp_path, provider, args, kubelet, removed,
                                                                  kill, gc):
    items = _shutdown_cluster(kubelet)
    code, plan = upgrade(write(tmp_path, items, ("DaemonSet", "NodeKubeletConfig")), "--provider", provider,
                         "--pod-selector", "app=web", "--ignore-daemonsets", *args)
    assert code == 0, (plan["verdict"], plan["shortfall"], plan["blocked"])
    assert [n["end"] for n in plan["nodes"] if n["node"] == "p1"] == [removed]
    keep = [a for a in plan["actions"] if a.get("pod") == "keep-1"]
    if kill is None:
        assert [(a["type"], a["by"], a["at"]) for a in keep] == [("delete", "pod-gc", gc)]
        assert keep[0]["target"] is not None
    else:
        assert [(a["type"], a["by"], a["at"], a["gracePeriodSeconds"], a.get("replacementAt")) for a in keep] == [
            ("kill", "kubelet", kill[0], kill[1], kill[2]), ("delete", "pod-gc", gc, 0, None)]
        # the replacement comes with the kill (Failed: no longer active for its ReplicaSet), not with pod GC
        assert keep[0]["target"] is not None and "target" not in keep[1]
        ds = [e for e in plan["skipped"] if e["pod"] == "ds-p1"]
        assert len(ds) == 1 and "graceful shutdown kills it at" in ds[0]["reason"]
    # a DaemonSet pod goes with its node: no action (the plan starts none on a new node)
    assert [a for a in plan["actions"] if a.get("pod") == "ds-p1"] == []
    keep_wl = [w for w in plan["workloads"] if w["name"] == "keep"][0]
    assert (keep_wl["readyMin"], keep_wl["readyMinAt"], keep_wl["readyAfter"]) == (
        0, kill[0] if kill else gc, 1)


def test_a_killed_pods_replacement_sees_the_shutting_down_nodes(tmp_path):
    """p1 and p2 go in one batch (max surge 2). p1's VM shuts down for 30s (shutdownGracePeriod
    30s, spec semantics.md B3/B6: odd-1 gets 30s), so its Node object, cordoned, is still in the
    scheduler's snapshot when odd-1 is Failed at +30s; p2 has no pod, and a group with no pods is
    skipped with no wait (B6): it is gone. The replacement (nodeSelector disk=none) sees 3 nodes,
    p1 unschedulable (NodeUnschedulable, the first Filter), the two new nodes not matching. No
    replacement lands, so the kill has no replacementAt."""
    items = [node("p1", labels={"pool": "a"}), node("p2", labels={"pool": "a"})]
    items += [pod("odd-1", "p1", owner=("ReplicaSet", "odd"), labels={"tier": "keep"}, node_selector=_NOWHERE)]
    items += [{"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": n},
               "kubeletconfig": {"shutdownGracePeriod": "30s"}} for n in ("p1", "p2")]
    code, plan = upgrade(write(tmp_path, items, ("NodeKubeletConfig",)), "--provider", "gke", "--max-surge", "2",
                         "--pod-selector", "app=web")
    assert code == 4, plan["verdict"]
    kill = [a for a in plan["actions"] if a["type"] == "kill"]
    assert [(a["pod"], a["at"], a["gracePeriodSeconds"], a.get("replacementAt")) for a in kill] == [
        ("odd-1", 0, 30, None)]
    assert [e["reason"].split("nowhere to go: ")[1] for e in plan["shortfall"]] == [_fit_error(
        3, "1 node(s) were unschedulable, 2 node(s) didn't match Pod's node affinity/selector")]


def _zone_spread(p: dict) -> dict:
    p["spec"]["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                               "whenUnsatisfiable": "DoNotSchedule",
                                               "labelSelector": {"matchLabels": {"app": "web"}}}]
    return p


def test_a_removed_nodes_zone_stops_counting_and_its_pending_pod_lands(tmp_path):
    """web spreads over zones (maxSkew 1, DoNotSchedule); o1 (z3) is the pool, new nodes copy x (z1).
    When o1 is drained it still exists (cordoned): domains z1 = 1 (x), z2 = 1 (y), z3 = 0 (web-3 is
    terminating, not counted): min 0, skew 1 + 1 - 0 = 2 > 1 on x, x-surge-1 and y; o1 is
    unschedulable: web-3's replacement is Pending. Once o1 is removed, z3 is no domain (the
    scheduler's snapshot lists existing nodes only, podtopologyspread/filtering.go
    calPreFilterState): min 1, skew 1 on every node, and the Node delete requeues the pod
    (podtopologyspread/plugin.go EventsToRegister: Node Add|Delete|UpdateNodeLabel). It lands on
    the emptiest node, x-surge-1 (LeastAllocated 98 against x's 96, BalancedAllocation 99 against
    98), when o1 is removed: nothing is short."""
    items = [node("x", labels={"pool": "b"}, zone="z1"), node("y", labels={"pool": "b"}, zone="z2"),
             node("o1", labels={"pool": "a"}, zone="z3")]
    items += [_zone_spread(pod("web-%d" % i, n, owner=("ReplicaSet", "web"), labels={"app": "web"}))
              for i, n in ((1, "x"), (2, "y"), (3, "o1"))]
    code, plan = upgrade(write(tmp_path, items), "--provider", "generic", "--surge-like", "x")
    [evict] = [a for a in plan["actions"] if a["type"] == "evict"]
    [o1] = plan["nodes"]
    assert (evict["pod"], evict["target"], evict["replacementAt"]) == ("web-3", "x-surge-1", o1["end"]), \
        (evict["reason"], plan["shortfall"])
    assert plan["shortfall"] == [] and code == 0
    # the batch ends (and o1 is removed) once its one wave's replacements would be Ready: +0s + the
    # 30s --pod-startup (README, upgrade: "A batch starts once the previous one's replacements are Ready")
    assert o1["end"] == 30
    assert "its replacement stays Pending until node/o1 is removed at +30s (its topology domains no longer count), " \
           "then lands on node/x-surge-1" in evict["reason"], evict["reason"]


def _sts_pool(policy: str, layout: dict) -> List[dict]:
    """Pool nodes p1, p2 (room for every pod) and StatefulSet db (`policy`) whose ordinals run on
    the nodes `layout` gives (ordinal -> node)."""
    items = [node("p%d" % i, labels={"pool": "a"}, zone="z1") for i in (1, 2)]
    items += [pod("db-%d" % n, on, owner=("StatefulSet", "db"), labels={"app": "db"})
              for n, on in sorted(layout.items())]
    items.append({"apiVersion": "apps/v1", "kind": "StatefulSet",
                  "metadata": {"name": "db", "namespace": "default", "uid": "uid-db"},
                  "spec": {"replicas": len(layout), "podManagementPolicy": policy,
                           "selector": {"matchLabels": {"app": "db"}}},
                  "status": {"replicas": len(layout), "readyReplicas": len(layout)}})
    return items


@pytest.mark.parametrize("policy,layout,args,ends,created,verdict", [
    # batches [p1], [p2]: db-0 and db-1 evicted at 0; db-0 created at once, Ready at 30; db-1
    # created only once db-0 is Running and Ready (30), Ready at 60: p1's batch ends at 60, not 30.
    # p2's drain starts at 60, db-2 created at once (db-1 Ready at 60), Ready at 90
    ("OrderedReady", {0: "p1", 1: "p1", 2: "p2"}, [], {"p1": (0, 60), "p2": (60, 90)},
     {"db-0": 0, "db-1": 30, "db-2": 60}, "finishes in ~1m30s in 2 batches"),
    # one batch [p1, p2] (max surge 2): db-0 on p1 and db-1 on p2 evicted at 0; db-1 created at 30
    ("OrderedReady", {0: "p1", 1: "p2"}, ["--max-surge", "2"], {"p1": (0, 60), "p2": (0, 60)},
     {"db-0": 0, "db-1": 30}, "finishes in ~1m in 1 batch"),
    # Parallel: every missing ordinal created at once: each batch ends 30 s after its eviction
    ("Parallel", {0: "p1", 1: "p1", 2: "p2"}, [], {"p1": (0, 30), "p2": (30, 60)},
     {"db-0": 0, "db-1": 0, "db-2": 30}, "finishes in ~1m in 2 batches"),
])
def test_a_batch_ends_when_its_ordered_ready_replacements_are_ready(tmp_path, policy, layout, args, ends, created,
                                                                    verdict):
    """README `upgrade`: a batch starts once the previous one's replacements are Ready
    (--pod-startup 30s). An OrderedReady StatefulSet creates a missing ordinal only once every
    lower one is Running and Ready (kubernetes `pkg/controller/statefulset/stateful_set_control.go`
    processReplica, monotonic), so a batch whose drain evicts two ordinals ends when the later one's
    replacement is Ready, not 30 s after the eviction. Times worked by hand from those two facts."""
    code, plan = upgrade(write(tmp_path, _sts_pool(policy, layout), ("StatefulSet",)), "--provider", "generic",
                         "--pod-startup", "30s", *args)
    assert code == 0, (plan["verdict"], plan["shortfall"])
    assert {n["node"]: (n["start"], n["end"]) for n in plan["nodes"]} == ends
    assert {a["pod"]: a.get("replacementAt", a["at"]) for a in plan["actions"] if a["type"] == "evict"} == created
    assert plan["verdict"].startswith(verdict), plan["verdict"]


def _anti_zone(p: dict, *terms: dict) -> dict:
    p["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": t}, "topologyKey": "topology.kubernetes.io/zone"} for t in terms]}}
    return p


def _anti_cluster(terms: tuple, left: dict, kubelet: bool = False) -> List[dict]:
    """Pool node o1 and node x (the template), both in zone z1. o1 runs solo-1, whose required
    anti-affinity (zone) has `terms`, and `left`, a pod the drain leaves there."""
    items = [node("x", labels={"pool": "b"}, zone="z1"), node("o1", labels={"pool": "a"}, zone="z1")]
    items.append(_anti_zone(pod("solo-1", "o1", owner=("ReplicaSet", "solo"), labels={"app": "solo"}), *terms))
    items.append(left)
    items.append({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "default",
                                                                            "uid": "uid-agent"}, "spec": {}})
    if kubelet:
        items.append({"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "o1"},
                      "kubeletconfig": _GRACEFUL})
    return items


_CACHE = pod("cache-1", "o1", owner=("ReplicaSet", "cache"), labels={"app": "cache"})
_AGENT = pod("agent-o1", "o1", owner=("DaemonSet", "agent"), labels={"app": "agent"})


@pytest.mark.parametrize("terms,left,args,kubelet,lands,code,short", [
    # --pod-selector leaves cache-1 on o1. solo-1 is evicted at +0s; cache-1 (o1, cordoned but there)
    # is in z1, so every z1 node (x, x-surge-1) fails solo's anti-affinity: Pending. o1 goes at +30s
    # (one wave + the 30s --pod-startup): its pods count no more (cache.go RemoveNode), but
    # InterPodAffinity registers no Node delete, so nothing requeues solo then. Pod GC deletes
    # cache-1 at +30s + 40s = +70s (gcOrphaned); cache-1 matches solo's one anti term, so the Pod
    # delete requeues it (plugin.go isSchedulableAfterPodChange) and it lands at +70s, ahead of
    # cache-1's replacement, which the ReplicaSet creates after that delete: solo (now in z1) has
    # anti-affinity against it, so that one fits no node ("existing pods anti-affinity"): exit 4.
    (({"app": "cache"},), _CACHE, ["--pod-selector", "app=solo"], False, 70, 4, ["cache-1"]),
    # the same with a DaemonSet pod left by --ignore-daemonsets: pod GC deletes it too (gcOrphaned
    # deletes every pod bound to a missing node), nothing replaces it elsewhere: exit 0
    (({"app": "agent"},), _AGENT, ["--ignore-daemonsets"], False, 70, 0, []),
    # two anti terms, cache-1 matches only one: podMatchesAllAffinityTerms is false, QueueSkip:
    # pod GC's delete does not requeue solo
    (({"app": "cache"}, {"tier": "db"}), _CACHE, ["--pod-selector", "app=solo"], False, None, 4, ["solo-1"]),
    # GKE deletes o1's VM at +30s with an OS shutdown; its kubelet (shutdownGracePeriod 30s, critical
    # 10s) kills agent-o1 (priority 0) in the first phase, grace 20s: Failed at +50s. The scheduler's
    # informer drops terminal pods, so that is the Pod delete that requeues solo
    (({"app": "agent"},), _AGENT, ["--ignore-daemonsets", "--provider", "gke"], True, 50, 0, []),
])
def test_a_pod_anti_affinity_block_lifts_when_the_removed_nodes_pods_are_deleted(tmp_path, terms, left, args, kubelet,
                                                                                 lands, code, short):
    items = _anti_cluster(terms, json.loads(json.dumps(left)), kubelet)
    got, plan = upgrade(write(tmp_path, items, ("DaemonSet", "NodeKubeletConfig")), "--surge-like", "x", *args)
    [evict] = [a for a in plan["actions"] if a["type"] == "evict"]
    assert evict["pod"] == "solo-1" and evict["at"] == 0
    [o1] = plan["nodes"]
    assert o1["end"] == 30
    if lands is None:
        assert evict["target"] is None and "matching its required pod anti-affinity" not in evict["reason"]
    else:
        assert (evict["target"] in ("x", "x-surge-1"), evict.get("replacementAt")) == (True, lands), evict["reason"]
        assert "matching its required pod anti-affinity" in evict["reason"], evict["reason"]
    assert sorted(e["pod"] for e in plan["shortfall"]) == short
    if short == ["cache-1"]:
        assert "didn't satisfy existing pods anti-affinity rules" in plan["shortfall"][0]["reason"]
    assert got == code


@pytest.mark.parametrize("key", ["kubernetes.io/hostname", "topology.kubernetes.io/zone"])
def test_a_replacement_needing_a_pod_evicted_with_it_lands_once_that_one_has(tmp_path, key):
    """o1 runs cache-1 and web-1, whose required pod affinity (`key`) needs an app=cache pod. The
    drain evicts both at +0s; web-1's replacement reaches the scheduler first (kubectl's order):
    the only cache pod is on o1, cordoned, so every node fails its affinity and it is Pending.
    cache-1's replacement lands on x or x-surge-1; that Pod add matches all of web's affinity terms,
    so InterPodAffinity requeues web (interpodaffinity/plugin.go isSchedulableAfterPodChange) and it
    lands in the same domain: the node itself for hostname. Nothing is short: exit 0."""
    aff = {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": key}]}}
    items = [node("x", labels={"pool": "b"}, zone="z1"), node("o1", labels={"pool": "a"}, zone="z1"),
             pod("cache-1", "o1", owner=("ReplicaSet", "cache"), labels={"app": "cache"}),
             pod("web-1", "o1", owner=("ReplicaSet", "web"), labels={"app": "web"}, affinity=aff)]
    code, plan = upgrade(write(tmp_path, items), "--surge-like", "x")
    targets = {a["pod"]: a["target"] for a in plan["actions"] if a["type"] == "evict"}
    assert set(targets) == {"cache-1", "web-1"} and targets["cache-1"] in ("x", "x-surge-1")
    if key == "kubernetes.io/hostname":
        assert targets["web-1"] == targets["cache-1"]
    else:
        assert targets["web-1"] in ("x", "x-surge-1")
    assert (code, plan["shortfall"]) == (0, [])


@pytest.mark.parametrize("job_node,code,lands,short", [
    # solo-1 (o1) has required anti-affinity (zone) against app=job; job-1 is a bare pod (no
    # controller: --force evicts it, nothing recreates it) on o2, batch 2, in z1 like every node.
    # Batch 1 evicts solo at +0s: x, x-surge-1 and o2 fail its anti-affinity (job-1 in z1), o1 is
    # cordoned: Pending. Batch 2 (+30s) evicts job-1 at +30s; its Pod delete matches solo's one anti
    # term, so InterPodAffinity requeues solo (plugin.go isSchedulableAfterPodChange) and it lands.
    ("o2", 0, 30, []),
    # job-1 on x (not in the pool) stays: nothing deletes it, solo stays Pending
    ("x", 4, None, ["solo-1"]),
])
def test_a_pod_anti_affinity_block_lifts_when_a_later_batch_evicts_the_pod(tmp_path, job_node, code, lands, short):
    items = [node("x", labels={"pool": "b"}, zone="z1"), node("o1", labels={"pool": "a"}, zone="z1"),
             node("o2", labels={"pool": "a"}, zone="z1"),
             _anti_zone(pod("solo-1", "o1", owner=("ReplicaSet", "solo"), labels={"app": "solo"}), {"app": "job"}),
             pod("job-1", job_node, owner=None, labels={"app": "job"})]
    got, plan = upgrade(write(tmp_path, items), "--surge-like", "x", "--force")
    [evict] = [a for a in plan["actions"] if a["type"] == "evict" and a["pod"] == "solo-1"]
    assert (evict["at"], evict.get("replacementAt")) == (0, lands), evict["reason"]
    if lands is not None:
        assert evict["target"] in ("x", "x-surge-1", "x-surge-2")
        assert "until default/job-1 is evicted at +30s and gone" in evict["reason"], evict["reason"]
    assert [e["pod"] for e in plan["shortfall"]] == short
    assert got == code
