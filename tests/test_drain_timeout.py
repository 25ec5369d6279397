"""kubectl drain --timeout in the plan.

kubectl (staging/src/k8s.io/kubectl/pkg/drain, cmd/drain): each node's evictions run under one
context with the global timeout (`drain.Helper.Timeout`; 0 means infinite). A pod whose 429
retries are still going when it runs out fails with `error when evicting pods/"P" -n "NS": global
timeout reached: <Go duration>`; RunDrain prints `error: unable to drain node "N" due to error:
..., continuing command...`, leaves the node cordoned, drains the next node, lists the pending
nodes and exits 1. The plan models this per node, from the start of that node's drain: a pod whose
eviction is planned at or after the timeout is blocked (`drain-timeout`).
"""

from __future__ import annotations

import pytest

from kubectl_evict.rules.drain import DrainSettings, plan_drain
from kubectl_evict.rules.drain_sequence import plan_drain_in_order
from test_drain_plan import NOW, deployment, node, pdb, pod, snapshot


def cluster():
    # 3 replicas of web on n1 under maxUnavailable 1: evicted in waves at +0s, +30s and +60s (web-3
    # first: kubectl starts the node's last pod's eviction first, then web-1, web-2)
    return snapshot(node("n1"), node("n2"), node("n3"), deployment("web", 3),
                    pod("web-1", "n1"), pod("web-2", "n1"), pod("web-3", "n1"),
                    pdb("web", "web", maxUnavailable=1,
                        status={"currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 3,
                                "disruptionsAllowed": 1}))


@pytest.mark.parametrize("timeout,late", [
    (None, []),                              # no --timeout: kubectl waits as long as it takes
    (0.0, []),                               # --timeout 0: infinite, as in kubectl
    (90.0, []),                              # every eviction (+0s, +30s, +60s) starts in time
    (60.0, ["web-2"]),                       # the third wave would start exactly when it runs out
    (45.0, ["web-2"]),
    (20.0, ["web-1", "web-2"]),
])
def test_pods_planned_after_the_timeout_are_blocked(timeout, late):
    plan = plan_drain(cluster(), DrainSettings(nodes=("n1",), pod_startup=30.0, timeout=timeout), NOW)
    assert sorted((e.pod, e.code, e.node) for e in plan.blocked) == [(p, "drain-timeout", "n1") for p in late]
    verdict = [n for n in plan.notes if n.startswith("node/n1")][0]
    if late:
        assert "will not finish" in verdict and "global timeout reached" in verdict
        assert 'unable to drain node "n1"' in verdict and "exits 1" in verdict
    elif timeout:
        assert "every eviction within --timeout" in verdict


def test_go_duration_text_as_kubectl_prints_it():
    plan = plan_drain(cluster(), DrainSettings(nodes=("n1",), pod_startup=30.0, timeout=45.0), NOW)
    assert "global timeout reached: 45s," in " ".join(plan.notes)
    plan = plan_drain(cluster(), DrainSettings(nodes=("n1",), pod_startup=3000.0, timeout=3600.0), NOW)
    assert "--timeout 1h0m0s" in " ".join(e.reason for e in plan.blocked)


def test_timeout_counts_from_each_nodes_own_start_with_one_at_a_time():
    objs = snapshot(node("n1"), node("n2"), node("n3"), node("n4"), deployment("web", 3), deployment("api", 2),
                    pod("web-1", "n1"), pod("web-2", "n1"), pod("web-3", "n1"),
                    pod("api-1", "n2"), pod("api-2", "n2"),
                    pdb("web", "web", maxUnavailable=1, status={"currentHealthy": 3, "desiredHealthy": 2,
                                                                "expectedPods": 3, "disruptionsAllowed": 1}))
    plan = plan_drain_in_order(objs, DrainSettings(nodes=("n1", "n2"), pod_startup=30.0, timeout=45.0), NOW)
    # n1: waves at +0s/+30s/+60s -> web-2 late; n2 starts at +90s and evicts both at once: in time
    assert [(e.pod, e.node) for e in plan.blocked] == [("web-2", "n1")]


def test_pdb_blocked_node_says_kubectl_gives_up_at_the_timeout():
    objs = snapshot(node("n1"), node("n2"), deployment("solo", 1), pod("solo-1", "n1"),
                    pdb("solo", "solo", minAvailable=1, status={"currentHealthy": 1, "desiredHealthy": 1,
                                                                "expectedPods": 1, "disruptionsAllowed": 0}))
    with_timeout = plan_drain(objs, DrainSettings(nodes=("n1",), timeout=300.0), NOW)
    verdict = [n for n in with_timeout.notes if n.startswith("node/n1")][0]
    assert "--timeout 5m0s gives up on it" in verdict
    without = plan_drain(objs, DrainSettings(nodes=("n1",)), NOW)
    assert "gives up" not in " ".join(without.notes)
    assert [e.code for e in with_timeout.blocked] == [e.code for e in without.blocked] == ["pdb-budget"]
