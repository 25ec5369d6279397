"""Real node failures on Kubernetes v1.33.3 (tests/data/real-controller, from
shared/fixtures/real-controller): nodes of a generated cluster stopped posting status under a real
kube-controller-manager. The plan of the same failure on the snapshot taken just before must taint
the same nodes NoExecute and delete the same pods, each within the capture's tolerance
(`real.tolerance_s`: the heartbeat, the controller's monitor period and its pass timing).

Upstream taints the nodes of one zone in random order (8 parallel workers), so the k-th NoExecute
taint of a zone is compared with the k-th planned one, as the fixture's README says. Only what the
capture observed is compared: events up to `real.horizon_s`."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from conftest import REPO, run_cli

CAPTURES = REPO / "tests" / "data" / "real-controller"


def _plan(tmp_path: Path, name: str):
    case = json.loads((CAPTURES / ("%s.json" % name)).read_text())
    snap = tmp_path / "snapshot.json"
    snap.write_text(json.dumps(case["snapshot"]))
    res = run_cli("-f", str(snap), *case["args"])
    assert res.returncode in (0, 3, 4, 5), res.stderr
    return case["real"], json.loads(res.stdout)


@pytest.mark.parametrize("name,pattern", [
    ("0", "one node of a zone fails: tainted at the primary rate"),
    ("3", "a small zone in partial disruption: nothing tainted"),
    ("5", "every zone down: nothing tainted, nothing deleted"),
    ("7", "nodes failing one after another: staggered taints"),
    # shutdown --non-graceful takes no controller flags: the plan's unreachable taints come at the
    # default rate (0.1/s), the capture's at 1/s, within its 22 s tolerance (a pod GC pass)
    ("ng-1", "out-of-service added by hand, then the controller's unreachable taints"),
])
def test_noexecute_taints_come_when_the_real_controller_added_them(tmp_path, name, pattern):
    real, plan = _plan(tmp_path, name)
    horizon, tol = real["horizon_s"], real["tolerance_s"]
    zone = {n: v["zone"] for n, v in real["nodes"].items()}
    planned, seen = defaultdict(list), defaultdict(list)
    for a in plan["actions"]:
        if a["type"] == "taint" and a["effect"] == "NoExecute" and a["at"] <= horizon:
            planned[(zone[a["node"]], a["key"])].append(a["at"])
    for n, v in real["nodes"].items():
        for t, kind, key, effect in v["taints"]:
            if kind == "add" and effect == "NoExecute" and t <= horizon:
                seen[(v["zone"], key)].append(t)
    assert set(planned) == set(seen), pattern
    for k in seen:
        want, got = sorted(seen[k]), sorted(planned[k])
        assert len(got) == len(want), (k, got, want)
        assert all(abs(g - w) <= tol for g, w in zip(got, want)), (k, got, want)


@pytest.mark.parametrize("name", ["0", "3", "5", "7", "ng-1"])
def test_the_pods_the_real_controllers_deleted_are_the_planned_deletions(tmp_path, name):
    """Every pod a controller (taint-eviction, pod GC) deleted within the capture is a planned
    deletion about then; every pod it left stays undeleted in the plan up to that horizon. Times
    count from the pod's node's first NoExecute taint in each world, since which node of a zone
    is tainted k-th is upstream's random draw (checked above by rank)."""
    real, plan = _plan(tmp_path, name)
    horizon, tol = real["horizon_s"], real["tolerance_s"]
    planned, plan_taint = {}, {}
    for a in plan["actions"]:
        if a["type"] == "delete":
            planned.setdefault("%s/%s" % (a["namespace"], a["pod"]), a["at"])
        elif a["type"] == "taint" and a["effect"] == "NoExecute":
            plan_taint.setdefault(a["node"], a["at"])
    real_taint = {n: min((t for t, kind, _, effect in v["taints"] if kind == "add" and effect == "NoExecute"),
                         default=None) for n, v in real["nodes"].items()}
    checked = 0
    for p in real["pods"]:
        at = p["deleted_at"]
        if at is not None and at <= horizon:
            assert p["pod"] in planned, (p["pod"], at, p["deleted_by"])
            got, want = planned[p["pod"]], at
            if plan_taint.get(p["node"]) is not None and real_taint.get(p["node"]) is not None:
                got, want = got - plan_taint[p["node"]], want - real_taint[p["node"]]
            assert abs(got - want) <= tol, (p["pod"], planned[p["pod"]], at)
            checked += 1
        elif at is None:
            assert planned.get(p["pod"], horizon + tol + 1) > horizon + tol, (p["pod"], planned.get(p["pod"]))
    assert checked >= (0 if name in ("3", "5") else 2)
