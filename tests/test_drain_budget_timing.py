"""When a PodDisruptionBudget's budget comes back during a drain: once the evicted pod's
replacement is Ready, not at a fixed time after the eviction.

Upstream facts the expected values come from:
- the disruption controller counts a pod toward currentHealthy only when it is Ready (and not
  terminating), and disruptionsAllowed = currentHealthy - desiredHealthy
  (`pkg/controller/disruption/disruption.go` countHealthyPods / updatePdbStatus; spec G5);
- the Eviction API refuses (429) while disruptionsAllowed is 0, and kubectl drain retries every
  5 s from the pod's first attempt (`staging/src/k8s.io/kubectl/pkg/drain/drain.go` evictPods;
  spec F6), so a held pod goes at the first retry at or after the budget comes back;
- an OrderedReady StatefulSet creates ordinal N only once every lower ordinal is Running and
  Ready (`pkg/controller/statefulset/stateful_set_control.go` processReplica, monotonic); a
  Parallel one (and a ReplicaSet) creates the replacement at once;
- a replacement is Ready --pod-startup (default 30 s) after it is created (the plan's assumption,
  README "drain").

Worked example, the first case: 4 OrderedReady replicas db-0..db-3 on n1, PDB maxUnavailable 2
(expected 4, desired 2, allowed 2). At 0 s db-0 and db-1 are evicted (allowed 0). db-0's
replacement is created at once, Ready at 30 s; db-1's only then, Ready at 60 s. At 30 s
currentHealthy is 3 (db-0', db-2, db-3): one disruption, db-2 goes; at 60 s db-1' is Ready:
currentHealthy 3 (db-0', db-1', db-3), db-3 goes. Ready replicas never drop below 2.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import pytest

from conftest import NOW as NOW_TEXT, node, pod, snapshot_list
from kubectl_evict.rules.drain import DrainSettings, plan_drain
from kubectl_evict.rules.drain_sequence import plan_drain_in_order
from kubectl_evict.source.freeze import freeze
from kubectl_evict.timeutil import parse_time

NOW = parse_time(NOW_TEXT)


def _sts(replicas: int, policy: Optional[str] = None) -> dict:
    spec: Dict[str, Any] = {"replicas": replicas, "selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
                            "template": {"metadata": {"labels": {"app": "db"}},
                                         "spec": {"containers": [{"name": "a", "image": "x"}]}}}
    if policy:
        spec["podManagementPolicy"] = policy
    return {"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": "default", "uid": "uid-db"}, "spec": spec}


def _pdb(app: str, max_unavailable: int) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": app, "namespace": "default", "generation": 1},
            "spec": {"selector": {"matchLabels": {"app": app}}, "maxUnavailable": max_unavailable}}


def _statefulset(n: int, policy: Optional[str] = None) -> list:
    return [_sts(n, policy), _pdb("db", 2)] + [
        pod("db-%d" % i, "n1", owner=("StatefulSet", "db"), labels={"app": "db"}) for i in range(n)]


def _deployment(n: int) -> list:
    return [_pdb("web", 2)] + [pod("web-%d" % i, "n1", owner=("ReplicaSet", "web-rs"), labels={"app": "web"})
                               for i in range(n)]


def _plan(items: list, **settings: Any) -> Any:
    doc = snapshot_list(node("n1"), node("n2"), node("n3"), *items)
    snap = freeze([("test", str(i), o) for i, o in enumerate(doc["items"])])
    return plan_drain(snap, DrainSettings(nodes=("n1",), **settings), NOW)


# Which pods a budget lets through first depends on the order kubectl's concurrent evictions reach
# the API server; the times do not: the cases give the eviction times, in order.
# case: (objects, drain settings, eviction times, blocked codes, ready replicas at the lowest point)
CASES = {
    # the worked example above: before, the budget came back for both at 30 s and db-3 went then,
    # leaving 1 Ready replica under a PDB that wants 2
    "ordered-ready": (_statefulset(4), {}, [0, 0, 30, 60], [], 2),
    # --pod-startup 10s (kubectl's retries every 5 s: waves 10 s apart): db-0' Ready at 10 s, db-1'
    # created then, Ready at 20 s
    "ordered-ready-startup-10s": (_statefulset(4), {"pod_startup": 10.0},
                                  [0, 0, 10, 20], [], 2),
    # kubectl drain --timeout 50s: db-3 becomes evictable only at 60 s, after kubectl gave up
    "ordered-ready-timeout": (_statefulset(4), {"timeout": 50.0},
                              [0, 0, 30, 60], ["drain-timeout"], 2),
    # Parallel: both replacements are created at the evictions and Ready at 30 s: allowed 2 again
    "parallel": (_statefulset(4, "Parallel"), {}, [0, 0, 30, 30], [], 2),
    # a Deployment's replacements are created at once (the budget's timing as before)
    "deployment": (_deployment(4), {}, [0, 0, 30, 30], [], 2),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_budget_comes_back_when_the_replacement_is_ready(case: str) -> None:
    items, settings, want_at, want_blocked, ready_min = CASES[case]
    plan = _plan(items, **settings)
    assert sorted(a.at for a in plan.actions if a.type == "evict") == want_at
    assert sorted(e.code for e in plan.blocked) == want_blocked
    (w,) = plan.workloads
    assert w.ready_min == ready_min


# -- when a node's replacements are Ready: the verdict, and --one-at-a-time's next node -------------

def _sequence_plan() -> Any:
    """db-0..db-3 (OrderedReady, no PDB) on n1; n2 (room for nothing else) runs web-0."""
    doc = snapshot_list(node("n1"), node("n2", cpu="100m"), node("n3"), node("n4"), _sts(4),
                        *[pod("db-%d" % i, "n1", owner=("StatefulSet", "db"), labels={"app": "db"}) for i in range(4)],
                        pod("web-0", "n2", cpu="50m"))
    snap = freeze([("test", str(i), o) for i, o in enumerate(doc["items"])])
    return plan_drain_in_order(snap, DrainSettings(nodes=("n1", "n2"), one_at_a_time=True), NOW)


def test_one_at_a_time_waits_for_the_ordered_ready_replacements() -> None:
    """All four ordinals are evicted at 0 s; processReplica creates db-1 once db-0' is Ready (30 s),
    db-2 at 60 s, db-3 at 90 s, Ready at 120 s: only then are n1's replacements Ready and n2's
    turn comes (README: each node "cordoned in its turn once the previous node's replacements are
    Ready"). Before, the sequence placed them all at once and started n2 at 30 s."""
    plan = _sequence_plan()
    got = [(a.type, a.pod or a.node, a.at, a.replaced_at) for a in plan.actions]
    assert got == [("cordon", "n1", 0, None), ("evict", "db-0", 0, None), ("evict", "db-1", 0, 30),
                   ("evict", "db-2", 0, 60), ("evict", "db-3", 0, 90),
                   ("cordon", "n2", 120, None), ("evict", "web-0", 120, None)]


@pytest.mark.parametrize("case, items, verdict", [
    # the worked example: db-3 evicted at 60 s, created at 90 s, Ready at 120 s
    ("ordered-ready", _statefulset(4), "node/n1: can be drained in 3 waves (~2m)"),
    # no PDB: every ordinal at 0 s, the last created at 90 s
    ("ordered-ready-no-pdb", _statefulset(4)[:1] + _statefulset(4)[2:], "node/n1: can be drained in 1 wave (~2m)"),
    ("parallel", _statefulset(4, "Parallel"), "node/n1: can be drained in 2 waves (~1m)"),
    ("deployment", _deployment(4), "node/n1: can be drained in 2 waves (~1m)"),
])
def test_the_verdict_counts_until_the_last_replacement_is_ready(case: str, items: list, verdict: str) -> None:
    plan = _plan(items)
    assert [n["verdict"] for n in plan.extra["nodes"]] == [verdict]


# -- a StatefulSet pod that is Terminating now comes back by itself, and counts again once Ready -----

IN_30S = "2026-11-21T12:00:30Z"       # now + 30s: the Terminating pod is gone then at the latest


def _returning(on: str) -> list:
    """db-0 Terminating on `on` (its kubelet alive) until +30s; db-1, db-2 Ready on n1; PDB
    maxUnavailable 1: expected 3, desired 2, currentHealthy 2 (db-0 is terminating), allowed 0."""
    db0 = pod("db-0", on, owner=("StatefulSet", "db"), labels={"app": "db"})
    db0["metadata"]["deletionTimestamp"] = IN_30S
    pdb = _pdb("db", 1)
    return [_sts(3), pdb, db0] + [pod("db-%d" % i, "n1", owner=("StatefulSet", "db"), labels={"app": "db"})
                                  for i in (1, 2)]


@pytest.mark.parametrize("on", ["n1", "n2"])
def test_a_terminating_statefulset_pod_gives_budget_back_once_it_is_ready_again(on: str) -> None:
    """db-0 is gone at +30s and created again (processReplica: same name, once the old pod is
    gone), Ready at +60s: currentHealthy 3, one disruption, so kubectl's retry at +60s evicts
    db-1 (or db-2); its replacement is Ready at +90s, and the other goes then. Before, both were
    blocked (pdb-budget, 'allows 0 disruptions now'): the budget the returning pod brings back was
    not counted. On n1 the drain evicts db-0 too (already terminating: no PDB check, at +0s)."""
    plan = _plan(_returning(on))
    times = sorted(a.at for a in plan.actions if a.type == "evict" and a.pod != "db-0")
    assert times == [60, 90]
    assert [e.code for e in plan.blocked] == []
    assert [a.at for a in plan.actions if a.pod == "db-0"] == ([0] if on == "n1" else [])


IN_60S = "2026-11-21T12:01:00Z"


@pytest.mark.parametrize("policy, times", [("Parallel", [90, 120]), ("OrderedReady", [120, 150])])
def test_returning_pods_come_back_in_their_statefulsets_order(policy: str, times: list) -> None:
    """db-0 Terminating on n2 until +60s, db-1 until +30s; db-2, db-3 on n1; PDB maxUnavailable 1
    over 4: desired 3, currentHealthy 2, allowed 0. Parallel (`allowsBurst`): each is created once
    gone: db-1' Ready at +60s, db-0' at +90s (healthy 4: db-2 goes at +90s, its replacement at
    once, Ready at +120s: db-3 goes then). OrderedReady (processReplica, monotonic): db-1 only once
    db-0' is Ready (+90s), Ready at +120s, so db-2 at +120s, and its replacement waits for db-1',
    Ready at +150s: db-3 then."""
    db = [pod("db-%d" % i, "n2" if i < 2 else "n1", owner=("StatefulSet", "db"), labels={"app": "db"})
          for i in range(4)]
    db[0]["metadata"]["deletionTimestamp"] = IN_60S
    db[1]["metadata"]["deletionTimestamp"] = IN_30S
    plan = _plan([_sts(4, policy), _pdb("db", 1)] + db)
    assert sorted(a.at for a in plan.actions if a.type == "evict") == times
    assert [e.code for e in plan.blocked] == []
