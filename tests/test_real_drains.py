"""Real drains on Kubernetes v1.33.3 (tests/data/real-drains, from shared/fixtures/real-drains):
the plan of the same drain on the same snapshot must put every replacement where the real
kube-scheduler put it (any node tied at its top score), and give the exact FailedScheduling
text where the real one stayed Pending, preemption part included.

Two of the eight drains (16, 20) are matched pod by pod. In the others some of what happened was
a race no plan can call: which pod a PodDisruptionBudget let go first among evictions sent at the
same moment, which eviction kubectl's goroutines sent first, and preemptions whose nominations were
taken over by other pods. There the plan is held to how many replacements it places where the real
scheduler did, the replacements of one workload paired freely (which new pod replaces which evicted
one is arbitrary: the fixture pairs them by name)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from conftest import REPO, run_cli
from kubectl_evict.model import OwnerRef, Pod
from kubectl_evict.rules.drain import KUBECTL_EVICTION_BURST, arrival_order

DRAINS = REPO / "tests" / "data" / "real-drains"


def _plan(tmp_path: Path, seed: str):
    case = json.loads((DRAINS / ("%s.json" % seed)).read_text())
    snap = tmp_path / "snapshot.json"
    snap.write_text(json.dumps(case["snapshot"]))
    res = run_cli("-f", str(snap), "-o", "json", *case["args"])
    assert res.returncode in (0, 3, 4), res.stderr
    plan = json.loads(res.stdout)
    evicts = {(a["namespace"], a["pod"]): a for a in plan["actions"] if a["type"] == "evict"}
    pending = {(e["namespace"], e["pod"]): e["reason"] for e in plan.get("shortfall", [])}
    return case, evicts, pending


def _matches(r: dict, target, reason) -> bool:
    """Does a planned replacement (target node, shortfall reason) match the real one `r`?"""
    if r["node"] is None:
        return target is None and reason is not None and reason.endswith(r["fit_message"])
    return target in (r["top"] or [r["node"]])


@pytest.mark.parametrize("seed", ["16", "20"])
def test_plan_matches_the_real_scheduler(tmp_path, seed):
    case, evicts, pending = _plan(tmp_path, seed)
    checked = 0
    for r in case["real"]["replacements"]:
        key = tuple(r["for"].split("/"))
        if r["node"] is None:
            assert key in pending and pending[key].endswith(r["fit_message"]), (r["for"], pending.get(key))
        else:
            assert evicts[key]["target"] in (r["top"] or [r["node"]]), (r["for"], evicts[key]["target"], r["top"])
        checked += 1
    assert checked == len(case["real"]["replacements"]) >= 4


# Pods kube-scheduler preempted for the replacements (real.preemptions: victim and node) are the
# plan's `delete` actions by the scheduler. In 11 the second preemption (node-b7, +6.68 s) spared
# web18-qqhwp: its PDB had lost web18-pljmm to the first preemption with no replacement landing,
# so it was PDB-violating and reprieved first (scheduler.md S6.3-4). 1, 6 and 25 are left out:
# their nominations were taken over by later, higher-priority pods.
@pytest.mark.parametrize("seed", ["3", "8", "11", "16", "20"])
def test_preemption_victims_are_the_real_ones(tmp_path, seed):
    case = json.loads((DRAINS / ("%s.json" % seed)).read_text())
    snap = tmp_path / "snapshot.json"
    snap.write_text(json.dumps(case["snapshot"]))
    res = run_cli("-f", str(snap), "-o", "json", *case["args"])
    plan = json.loads(res.stdout)
    ours = sorted(("%s/%s" % (a["namespace"], a["pod"]), a["node"]) for a in plan["actions"]
                  if a["type"] == "delete" and a["by"] == "scheduler")
    assert ours == sorted((p["victim"], p["node"]) for p in case["real"]["preemptions"])


# Every victim the plan names was preempted in the real drain (on that node), a replacement
# victim under the name of the pod it replaces (real.replacements pairs them). In 25 the real
# scheduler preempted one more web7 replacement that the plan placed elsewhere; in 6 the real
# preemptions followed nominations that other pods took over.
@pytest.mark.parametrize("seed", ["1", "3", "8", "11", "16", "20", "25"])
def test_planned_victims_were_preempted_in_the_real_drain(tmp_path, seed):
    case = json.loads((DRAINS / ("%s.json" % seed)).read_text())
    snap = tmp_path / "snapshot.json"
    snap.write_text(json.dumps(case["snapshot"]))
    plan = json.loads(run_cli("-f", str(snap), "-o", "json", *case["args"]).stdout)
    replaces = {r["pod"]: r["for"] for r in case["real"]["replacements"]}
    real = {(replaces.get(p["victim"], p["victim"]), p["node"]) for p in case["real"]["preemptions"]}
    ours = {("%s/%s" % (a["namespace"], a["pod"]), a["node"]) for a in plan["actions"]
            if a["type"] == "delete" and a["by"] == "scheduler"}
    assert ours <= real, ours - real


# (seed, replacements, how many the plan puts where the real scheduler did). The truth is the
# real cluster's; the counts are what the plan reaches since replacements arrive in kubectl's
# eviction order (`arrival_order`); with every wave taken by priority it reached 56 of 78
# (1: 9, 3: 8, 6: 1, 8: 7, 11: 9, 16: 4, 20: 4, 25: 14).
FIDELITY = [("1", 12, 9), ("3", 10, 8), ("6", 6, 3), ("8", 9, 7), ("11", 16, 15), ("16", 4, 4), ("20", 4, 4),
            ("25", 17, 14)]


@pytest.mark.parametrize("seed,total,matched", FIDELITY, ids=[f[0] for f in FIDELITY])
def test_replacements_land_where_the_real_scheduler_put_them(tmp_path, seed, total, matched):
    case, evicts, pending = _plan(tmp_path, seed)
    real, ours = defaultdict(list), defaultdict(list)
    for r in case["real"]["replacements"]:
        ns, name = r["for"].split("/")
        # a StatefulSet pod comes back under its own name; any other under a new one of its ReplicaSet
        workload = (ns, name) if r["pod"] == r["for"] else (ns, name.rsplit("-", 1)[0])
        real[workload].append(r)
        ours[workload].append((evicts.get((ns, name), {}).get("target"), pending.get((ns, name))))
    hits = 0
    for workload, replacements in real.items():
        planned = list(ours[workload])
        for r in replacements:
            i = next((i for i, (t, why) in enumerate(planned) if _matches(r, t, why)), None)
            if i is not None:
                hits += 1
                planned.pop(i)
    assert len(case["real"]["replacements"]) == total
    assert hits >= matched, (seed, hits)


def _pod(name: str, node: str = "src", priority: int = 0, kind: str = "ReplicaSet") -> Pod:
    ref = OwnerRef(kind, name.rsplit("-", 1)[0], "uid-" + name, "apps/v1", True)
    return Pod(namespace="default", name=name, node_name=node, priority=priority, controller=ref, owner_refs=(ref,))


# (id, pods in kubectl's order (name, node, priority, controller kind), the order their replacements arrive)
ARRIVALS = [
    ("last-started-runs-first", [("a-1", "src", 0, "ReplicaSet"), ("b-1", "src", 0, "ReplicaSet"),
                                 ("c-1", "src", 0, "ReplicaSet")], ["c-1", "a-1", "b-1"]),
    ("a-burst-is-taken-by-priority", [("a-1", "src", 0, "ReplicaSet"), ("b-1", "src", 100, "ReplicaSet"),
                                      ("c-1", "src", 10, "ReplicaSet")], ["b-1", "c-1", "a-1"]),
    ("after-the-burst-one-by-one",
     [("p-%d" % i, "src", 0, "ReplicaSet") for i in range(KUBECTL_EVICTION_BURST)]
     + [("q-1", "src", 1000, "ReplicaSet"), ("r-1", "src", 5, "ReplicaSet")],
     # r-1 (the node's last pod) is started first and joins the burst; q-1 comes after it,
     # whatever its priority
     ["r-1"] + ["p-%d" % i for i in range(KUBECTL_EVICTION_BURST - 1)] + ["p-%d" % (KUBECTL_EVICTION_BURST - 1),
                                                                         "q-1"]),
    ("statefulset-replacements-last", [("a-1", "src", 0, "ReplicaSet"), ("db-0", "src", 1000, "StatefulSet"),
                                       ("db-1", "src", 1000, "StatefulSet")], ["a-1", "db-0", "db-1"]),
    ("nodes-in-turn", [("a-1", "n1", 0, "ReplicaSet"), ("b-1", "n1", 0, "ReplicaSet"),
                       ("c-1", "n2", 100, "ReplicaSet"), ("d-1", "n2", 0, "ReplicaSet")], ["b-1", "a-1", "c-1", "d-1"]),
]


@pytest.mark.parametrize("case", ARRIVALS, ids=[a[0] for a in ARRIVALS])
def test_replacements_arrive_in_kubectls_eviction_order(case):
    _, pods, expected = case
    got = arrival_order([_pod(n, node, prio, kind) for n, node, prio, kind in pods])
    assert [p.name for p in got] == expected


# kube-scheduler preempts the pods that run on the node: in 25 the victims on node-a1 were
# shop/web7-569fdfc6d4-sdk4q and -bws56, replacements the ReplicaSet created during the drain
# (real.replacements: `for` the evicted -fknnp and -9m27t), new pods no snapshot holds. A planned
# victim that is a replacement placed earlier in the plan is named after the pod it replaces with
# no uid (README: "a second eviction names the pod it replaces (same pod, empty uid)"); a resident
# victim keeps its own uid.
@pytest.mark.parametrize("seed", ["1", "3", "6", "8", "11", "16", "20", "25"])
def test_a_preempted_replacement_has_no_uid_of_the_pod_it_replaces(tmp_path, seed):
    case = json.loads((DRAINS / ("%s.json" % seed)).read_text())
    snap = tmp_path / "snapshot.json"
    snap.write_text(json.dumps(case["snapshot"]))
    plan = json.loads(run_cli("-f", str(snap), "-o", "json", *case["args"]).stdout)
    where = {(p["metadata"]["namespace"], p["metadata"]["name"]): (p["metadata"]["uid"], p["spec"].get("nodeName"))
             for p in case["snapshot"]["items"] if p.get("kind") == "Pod"}
    replaced = 0
    for a in plan["actions"]:
        if a["type"] != "delete" or a["by"] != "scheduler":
            continue
        uid, node = where[(a["namespace"], a["pod"])]
        if node == a["node"]:
            assert a["uid"] == uid, a
        else:
            replaced += 1
            assert a.get("uid", "") == "", a
            assert a["reason"].startswith("the replacement of %s/%s, placed on node/%s earlier in this plan"
                                          % (a["namespace"], a["pod"], a["node"])), a["reason"]
    if seed == "25":
        real = {r["pod"]: r["for"] for r in case["real"]["replacements"]}
        assert "shop/web7-569fdfc6d4-sdk4q" in real and any(
            p["victim"] == "shop/web7-569fdfc6d4-sdk4q" and p["node"] == "node-a1" for p in case["real"]["preemptions"])
        assert replaced >= 1
        web7 = [w for w in plan["workloads"] if w["name"] == "web7"][0]
        # 6 Ready, 3 evicted from node-a8; the replacement preempted at +0s was never Ready (Ready
        # only --pod-startup after it lands): it takes no Ready pod away, and its own replacement
        # brings the count back
        assert (web7["ready"], web7["readyMin"], web7["readyAfter"]) == (6, 3, 6)
