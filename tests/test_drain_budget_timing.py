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
