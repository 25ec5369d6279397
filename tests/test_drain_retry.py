"""When a pod a PDB holds back is evicted: at kubectl drain's 5 s retries.

Upstream facts:
- kubectl drain evicts every pod of a node at once and retries one the API server refuses with 429
  every 5 s ("will retry after 5s"; `staging/src/k8s.io/kubectl/pkg/drain/drain.go` evictPods,
  time.Sleep(5*time.Second); spec/semantics.md F6).
- The budget an eviction spent comes back once the pod's replacement is Ready (the disruption
  controller counts it healthy again; spec/semantics.md G5): `--pod-startup` after the eviction.
So a held pod goes at the first retry (node start + k * 5 s, k >= 1) at or after the earlier
replacement is Ready. Real v1.33 drain (`tests/data/real-drains/25.json`, replacements Ready about
1 s after binding): three pods of shop/web1 under one disruption evicted at ~1.1 s, 6.6 s and 11.6 s
(one 429 retry, then two), 5 s apart, not 1 s.
"""

from __future__ import annotations

from typing import List

import pytest

from kubectl_evict.rules.drain import DrainSettings, plan_drain, wave_spacing
from kubectl_evict.rules.drain_sequence import plan_drain_in_order
from kubectl_evict.rules.upgrade import UpgradeSettings, plan_upgrade
from test_drain_plan import NOW, deployment, node, pdb, pod, snapshot


def cluster(*extra: dict):
    # 3 replicas of web on n1 under maxUnavailable 1: one eviction per wave
    return snapshot(node("n1"), node("n2"), node("n3"), deployment("web", 3),
                    pod("web-1", "n1"), pod("web-2", "n1"), pod("web-3", "n1"),
                    pdb("web", "web", maxUnavailable=1,
                        status={"currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 3,
                                "disruptionsAllowed": 1}), *extra)


def evict_times(plan) -> List[float]:
    return sorted(a.at for a in plan.actions if a.type == "evict" and a.pod.startswith("web-"))


@pytest.mark.parametrize("startup,times,seconds", [
    # replacement Ready at +30s: kubectl's 6th retry (+30s) is the first after it; as before
    (30.0, [0, 30, 60], 90),
    # Ready at +1s: the pod refused at +0s goes at its first retry, +5s; the next at +10s
    # (real-drains 25: ~+1.1s, +6.6s, +11.6s); the drain ends when the last is Ready (+11s)
    (1.0, [0, 5, 10], 11),
    (5.0, [0, 5, 10], 15),
    # Ready at +7s: retries at +5s (still refused) and +10s
    (7.0, [0, 10, 20], 27),
    (0.5, [0, 5, 10], 10.5),
])
def test_held_pods_go_at_kubectls_5s_retries(startup, times, seconds):
    plan = plan_drain(cluster(), DrainSettings(nodes=("n1",), pod_startup=startup), NOW)
    assert evict_times(plan) == times
    info = plan.extra["nodes"][0]
    assert (info["waves"], info["seconds"]) == (3, seconds)
    assert not plan.blocked


@pytest.mark.parametrize("startup,spacing", [(30.0, 30.0), (1.0, 5.0), (5.0, 5.0), (5.5, 10.0), (0.1, 5.0),
                                             (45.0, 45.0), (46.0, 50.0)])
def test_wave_spacing_is_whole_retries(startup, spacing):
    assert wave_spacing(startup) == spacing


@pytest.mark.parametrize("startup,n2_start,times", [
    # n1's pod (no PDB) goes at +0s; n2's drain starts once its replacement is Ready (+startup),
    # and n2's held pods are retried every 5 s from there
    (30.0, 30, [30, 60, 90]),
    (1.0, 1, [1, 6, 11]),
    (7.0, 7, [7, 17, 27]),
])
def test_one_at_a_time_retries_from_each_nodes_start(startup, n2_start, times):
    objs = snapshot(node("n1"), node("n2"), node("n3"), node("n4"), deployment("web", 3), deployment("api", 1),
                    pod("api-1", "n1"), pod("web-1", "n2"), pod("web-2", "n2"), pod("web-3", "n2"),
                    pdb("web", "web", maxUnavailable=1, status={"currentHealthy": 3, "desiredHealthy": 2,
                                                                "expectedPods": 3, "disruptionsAllowed": 1}))
    plan = plan_drain_in_order(objs, DrainSettings(nodes=("n1", "n2"), pod_startup=startup), NOW)
    assert [a.at for a in plan.actions if a.type == "evict" and a.pod == "api-1"] == [0]
    assert evict_times(plan) == times
    starts = {n["node"]: n["startsAt"] for n in plan.extra["nodes"]}
    assert starts == {"n1": 0, "n2": n2_start}


@pytest.mark.parametrize("startup,times", [(30.0, [0, 30, 60]), (1.0, [0, 5, 10]), (7.0, [0, 10, 20])])
def test_upgrade_batch_retries_every_5s(startup, times):
    up = UpgradeSettings(drain=DrainSettings(nodes=("n1",), pod_startup=startup), surge_like="n1", max_surge=1)
    plan = plan_upgrade(cluster(), up, NOW)
    assert evict_times(plan) == times


@pytest.mark.parametrize("timeout,late", [
    # --pod-startup 1s: waves at +0s, +5s, +10s; kubectl's per-node --timeout counts from the start
    (12.0, []),
    (10.0, ["web-2"]),     # the third try (+10s) comes exactly when it runs out
    (4.0, ["web-1", "web-2"]),
])
def test_timeout_against_the_retry_ticks(timeout, late):
    plan = plan_drain(cluster(), DrainSettings(nodes=("n1",), pod_startup=1.0, timeout=timeout), NOW)
    assert sorted(e.pod for e in plan.blocked if e.code == "drain-timeout") == late


@pytest.mark.parametrize("seed", ["1", "8", "11", "25"])
def test_real_drains_evict_held_pods_at_the_retry_ticks(tmp_path, seed):
    """Real v1.33 drains (simulated kubelets: a replacement Ready about 1 s after binding, so
    --pod-startup 1s): each pod a budget held back was evicted after `retries_429` refusals, i.e.
    at its 5 s retry number `retries_429` (real +6.1 s .. +6.7 s and +11.6 s, from a first attempt
    at ~+1.1 s). Which pod of a PDB goes first is a race, so the times are compared as a multiset."""
    import json

    from conftest import REPO, run_cli
    case = json.loads((REPO / "tests" / "data" / "real-drains" / ("%s.json" % seed)).read_text())
    snap = tmp_path / "snapshot.json"
    snap.write_text(json.dumps(case["snapshot"]))
    res = run_cli("-f", str(snap), "-o", "json", *case["args"], "--pod-startup", "1s")
    plan = json.loads(res.stdout)
    ours = sorted(a["at"] for a in plan["actions"] if a["type"] == "evict" and a["at"] > 0)
    real = sorted(5 * p["retries_429"] for p in case["real"]["drained_pods"] if p["evicted"] and p.get("retries_429"))
    assert ours == real and real
