"""OrderedReady StatefulSets: when the replacement of an evicted, deleted or stopped ordinal is
created, in every rule that removes pods (drain, upgrade, controller, shutdown).

Upstream (`pkg/controller/statefulset/stateful_set_control.go`, v1.30-v1.37): `processReplica`
walks the ordinals lowest first and, in monotonic mode (podManagementPolicy OrderedReady, the
default), stops at the first one that is Terminating (`isTerminating`) or not Running and Ready
(`isRunningAndReady`); a missing ordinal is created (`!isCreated`) only when every lower one has
passed (and, with minReadySeconds, has been Ready that long: `isRunningAndAvailable`, since
v1.22). A Failed/Succeeded ordinal is deleted (grace 0) and created again in the next sync. A
pod keeps its name, so a Terminating one is created again only once its kubelet confirms the
deletion: never on a node whose kubelet is gone. Parallel (`allowsBurst`) does not wait.

Expected times: a deletionTimestamp is the deletion time plus the grace period (when the pod is
gone at the latest); a recreated pod is Running and Ready 30s after it is created (the plans'
startup, drain's --pod-startup default); the graceful shutdown below gives pods 20s (30s - 10s
for critical pods), after which the kubelet sets them Failed.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Optional, Tuple

import pytest

from conftest import node, pod, run_cli, snapshot_list

SOON = "2026-11-21T12:00:20Z"       # now + 20s
SOON30 = "2026-11-21T12:00:30Z"     # now + 30s
AGO = "2026-11-21T11:59:00Z"        # now - 60s


def _sts(policy: Optional[str] = None, min_ready: int = 0) -> dict:
    spec: Dict[str, Any] = {"replicas": 3, "selector": {"matchLabels": {"app": "db"}}, "serviceName": "db",
                            "template": {"metadata": {"labels": {"app": "db"}},
                                         "spec": {"containers": [{"name": "a", "image": "x"}]}}}
    if policy:
        spec["podManagementPolicy"] = policy
    if min_ready:
        spec["minReadySeconds"] = min_ready
    return {"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "db", "namespace": "default", "uid": "uid-db"}, "spec": spec}


def _db(n: int, on: str, terminating: Optional[str] = None, **kw: Any) -> dict:
    p = pod("db-%d" % n, on, owner=("StatefulSet", "db"), labels={"app": "db"}, **kw)
    if terminating:
        p["metadata"]["deletionTimestamp"] = terminating
    return p


def _nodes(unknown: str = "", taint: str = "") -> list:
    out = []
    for i in range(1, 5):
        name = "n%d" % i
        taints = [{"key": "maint", "value": "x", "effect": "NoExecute", "timeAdded": AGO}] if name == taint else []
        out.append(node(name, ready="Unknown" if name == unknown else "True", taints=taints))
    return out


def _pool() -> list:
    return [node("n%d" % i, labels={"pool": "a"}) for i in range(1, 5)]


_RDE = {"annotations": {"evictplan.io/node-affinity": "RequiredDuringExecution"},
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]}]}}}}


KUBELET = {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n2"},
           "kubeletconfig": {"shutdownGracePeriod": "30s", "shutdownGracePeriodCriticalPods": "10s"}}

# (command, objects, {pod: (has a target, replacementAt)}, shortfall (pod, code) pairs, exit code)
CASES = {
    # db-0 Terminating on a live node until +20s: recreated then, Ready at +50s; db-1 waits for it
    "drain-lower-terminating": (
        ["drain", "n2"], _nodes() + [_sts(), _db(0, "n1", SOON), _db(1, "n2"), _db(2, "n3")],
        {"db-1": (True, 50)}, [], 0),
    # db-0 Terminating on a node whose kubelet is gone: never recreated, so neither is db-1
    "drain-lower-stuck-terminating": (
        ["drain", "n2"], _nodes(unknown="n1") + [_sts(), _db(0, "n1", AGO), _db(1, "n2"), _db(2, "n3")],
        {"db-1": (False, None)}, [("db-1", "ordered-ready")], 4),
    # evicted together: db-0's replacement Ready at +30s, db-1's created then
    "drain-two-ordinals": (
        ["drain", "n1"], _nodes() + [_sts(), _db(0, "n1"), _db(1, "n1"), _db(2, "n3")],
        {"db-0": (True, None), "db-1": (True, 30)}, [], 0),
    # minReadySeconds 60: db-0's replacement Ready at +30s must stay Ready 60s more (isRunningAndAvailable)
    "drain-two-ordinals-min-ready": (
        ["drain", "n1"], _nodes() + [_sts(min_ready=60), _db(0, "n1"), _db(1, "n1"), _db(2, "n3")],
        {"db-0": (True, None), "db-1": (True, 90)}, [], 0),
    # db-0 already Terminating on the drained node: evicting it again does not shorten its grace; it
    # is created again once gone (+20s), Ready at +50s, when db-1 is created
    "drain-terminating-on-the-node": (
        ["drain", "n1"], _nodes() + [_sts(), _db(0, "n1", SOON), _db(1, "n1"), _db(2, "n3")],
        {"db-0": (True, 20), "db-1": (True, 50)}, [], 0),
    # a Failed db-0 is deleted and created again at once (Ready at +30s): db-1 waits for it
    "drain-lower-failed": (
        ["drain", "n1"], _nodes() + [_sts(), _db(0, "n2", phase="Failed", ready=False), _db(1, "n1"), _db(2, "n3")],
        {"db-1": (True, 30)}, [], 0),
    # a lower ordinal Running but not Ready, not on its way back: db-1 is never created
    "drain-lower-not-ready": (
        ["drain", "n2"], _nodes() + [_sts(), _db(0, "n1", ready=False), _db(1, "n2"), _db(2, "n3")],
        {"db-1": (False, None)}, [("db-1", "ordered-ready")], 4),
    # Parallel: no wait
    "drain-parallel": (
        ["drain", "n2"], _nodes() + [_sts("Parallel"), _db(0, "n1", SOON), _db(1, "n2"), _db(2, "n3")],
        {"db-1": (True, None)}, [], 0),
    "upgrade-two-ordinals": (
        ["upgrade", "n1", "--max-surge", "1", "--surge-like", "n4"],
        _nodes() + [_sts(), _db(0, "n1"), _db(1, "n1"), _db(2, "n3")],
        {"db-0": (True, None), "db-1": (True, 30)}, [], 0),
    # a user's NoExecute taint on a live node: both deleted at +0s, db-2 created once db-1 is Ready
    "controller-user-taint": (
        ["controller"], _nodes(taint="n2") + [_sts(), _db(0, "n1"), _db(1, "n2", tolerations=[]),
                                              _db(2, "n2", tolerations=[])],
        {"db-1": (True, None), "db-2": (True, 30)}, [], 0),
    "controller-user-taint-lower-not-ready": (
        ["controller"], _nodes(taint="n2") + [_sts(), _db(0, "n1", ready=False), _db(1, "n2", tolerations=[]),
                                              _db(2, "n2", tolerations=[])],
        {"db-1": (False, None), "db-2": (False, None)}, [("db-1", "ordered-ready"), ("db-2", "ordered-ready")], 4),
    # db-0 stays on the failed n1 (it tolerates unreachable forever): MarkPodsNotReady sets it Ready=False at
    # +50s and no kubelet sets it Ready again; db-1, deleted at +100s for a user's taint, is never recreated
    "controller-lower-on-a-failed-node": (
        ["controller", "--fail", "n1"],
        [node("n1"), node("n2", taints=[{"key": "maint", "value": "x", "effect": "NoExecute",
                                          "timeAdded": "2026-11-21T12:00:00Z"}]), node("n3"), node("n4"),
         _sts(), _db(0, "n1", tolerations=[{"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                                            "effect": "NoExecute"}]),
         _db(1, "n2", tolerations=[{"key": "maint", "operator": "Exists", "effect": "NoExecute",
                                    "tolerationSeconds": 100}]), _db(2, "n3")],
        {"db-1": (False, None)}, [("db-1", "ordered-ready")], 4),
    "shutdown-non-graceful-lower-terminating": (
        ["shutdown", "n2", "--non-graceful"], _nodes() + [_sts(), _db(0, "n1", SOON), _db(1, "n2"), _db(2, "n3")],
        {"db-1": (True, 50)}, [], 0),
    # graceful: db-1 Failed at +20s, created only at +50s
    "shutdown-graceful-lower-terminating": (
        ["shutdown", "n2"], _nodes() + [_sts(), KUBELET, _db(0, "n1", SOON), _db(1, "n2"), _db(2, "n3")],
        {"db-1": (True, 50)}, [], 0),
    # graceful, both on the node: db-0 created when Failed (+20s), Ready at +50s, then db-1
    "shutdown-graceful-two-ordinals": (
        ["shutdown", "n2"], _nodes() + [_sts(), KUBELET, _db(0, "n2"), _db(1, "n2"), _db(2, "n3")],
        {"db-0": (True, 20), "db-1": (True, 50)}, [], 0),
    # RequiredDuringExecution (the pod annotation): relabelling n2 evicts the db pods there
    "affinity-lower-not-ready": (
        ["affinity", "--unlabel", "n2:pool"], _pool() + [_sts(), _db(0, "n1", ready=False, **_RDE), _db(1, "n2", **_RDE),
                                                         _db(2, "n3", **_RDE)],
        {"db-1": (False, None)}, [("db-1", "ordered-ready")], 4),
    "affinity-two-ordinals": (
        ["affinity", "--unlabel", "n2:pool"], _pool() + [_sts(), _db(0, "n2", **_RDE), _db(1, "n2", **_RDE),
                                                         _db(2, "n3", **_RDE)],
        {"db-0": (True, None), "db-1": (True, 30)}, [], 0),
    # A returning ordinal between two the plan removes waits for the lower one, and the higher one
    # for it (processReplica walks every ordinal, whoever took it down). db-0 removed at 0: created
    # at once, Ready +30s. db-1 Terminating on a live node until +20s: created only at +30s, Ready
    # +60s. db-2 removed at 0: created at +60s (the plan said +50s: db-1 created when gone).
    "drain-returning-between-evicted": (
        ["drain", "n1"], _nodes() + [_sts(), _db(0, "n1"), _db(1, "n2", SOON), _db(2, "n1")],
        {"db-0": (True, None), "db-2": (True, 60)}, [], 0),
    "upgrade-returning-between-evicted": (
        ["upgrade", "n1", "--max-surge", "1", "--surge-like", "n4"],
        _nodes() + [_sts(), _db(0, "n1"), _db(1, "n2", SOON), _db(2, "n1")],
        {"db-0": (True, None), "db-2": (True, 60)}, [], 0),
    "controller-returning-between-deleted": (
        ["controller"], _nodes(taint="n2") + [_sts(), _db(0, "n2", tolerations=[]), _db(1, "n1", SOON),
                                              _db(2, "n2", tolerations=[])],
        {"db-0": (True, None), "db-2": (True, 60)}, [], 0),
    "affinity-returning-between-evicted": (
        ["affinity", "--unlabel", "n2:pool"], _pool() + [_sts(), _db(0, "n2", **_RDE), _db(1, "n1", SOON, **_RDE),
                                                         _db(2, "n2", **_RDE)],
        {"db-0": (True, None), "db-2": (True, 60)}, [], 0),
    # graceful shutdown (pods Failed at +20s): db-0 created at +20s, Ready +50s; db-1, Terminating on
    # a live node until +30s, created at +50s, Ready +80s; db-2 created at +80s (the plan said +60s)
    "shutdown-graceful-returning-between-kills": (
        ["shutdown", "n2"], _nodes() + [_sts(), KUBELET, _db(0, "n2"), _db(1, "n1", SOON30), _db(2, "n2")],
        {"db-0": (True, 20), "db-2": (True, 80)}, [], 0),
    # scaled down to 2 (3 with db-3): an ordinal at or above spec.replicas is condemned; the StatefulSet
    # controller only deletes it (processCondemned) and creates pods below spec.replicas only
    # (updateStatefulSet), so an evicted or stopped db-2 / db-3 gets no replacement
    "drain-condemned-ordinal": (
        ["drain", "n1"], _nodes() + [dict(_sts(), spec=dict(_sts()["spec"], replicas=2)), _db(0, "n3"), _db(1, "n3"),
                                     _db(2, "n1")],
        {"db-2": (False, None)}, [], 0),
    "shutdown-graceful-condemned-ordinal": (
        ["shutdown", "n2"], _nodes() + [_sts(), KUBELET, _db(0, "n1"), _db(1, "n1"), _db(2, "n3"), _db(3, "n2")],
        {"db-3": (False, None)}, [], 0),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_ordered_ready_replacements(case: str, tmp_path) -> None:
    args, items, want, short, code = CASES[case]
    f = tmp_path / "s.json"
    f.write_text(json.dumps(snapshot_list(*items)))
    r = run_cli("-f", str(f), "-o", "json", *args)
    assert r.returncode == code, r.stderr
    doc = json.loads(r.stdout)
    got: Dict[str, Tuple[bool, Optional[float]]] = {
        a["pod"]: (a.get("target") is not None, a.get("replacementAt"))
        for a in doc["actions"] if a["type"] in ("evict", "delete", "kill") and a["pod"] in want}
    assert got == want
    assert sorted((e["pod"], e["code"]) for e in doc["shortfall"]) == short


def test_shutdown_without_graceful_shutdown_says_a_terminating_pod_was_deleted_before(tmp_path) -> None:
    """db-1 was deleted a minute ago: the node goes down with it, its kubelet never confirms, so the
    StatefulSet never recreates it (waits-for-old-pod), and the shortfall says when it was deleted."""
    off = dict(KUBELET, kubeletconfig={"shutdownGracePeriod": "0s"})
    f = tmp_path / "s.json"
    f.write_text(json.dumps(snapshot_list(*_nodes(), _sts(), off, _db(0, "n1"), _db(1, "n2", AGO), _db(2, "n3"))))
    r = run_cli("-f", str(f), "-o", "json", "shutdown", "n2")
    assert r.returncode == 4, r.stderr
    (e,) = json.loads(r.stdout)["shortfall"]
    assert (e["pod"], e["code"]) == ("db-1", "waits-for-old-pod")
    assert e["reason"].startswith("already deleted since 2026-11-21T11:59:00Z (1m ago) but stays Terminating")


def test_an_assumed_ordered_ready_delay_is_said_in_incomplete(tmp_path) -> None:
    """Without the StatefulSet in the input its podManagementPolicy is assumed OrderedReady (the
    default): db-1 still waits for db-0's replacement, and the plan says the policy was not read."""
    from conftest import complete_kinds
    kinds = [k for k in complete_kinds() if k != "StatefulSet"]
    f = tmp_path / "s.json"
    f.write_text(json.dumps(snapshot_list(*_nodes(), _db(0, "n1"), _db(1, "n1"), _db(2, "n3"), kinds=kinds)))
    r = run_cli("-f", str(f), "-o", "json", "drain", "n1")
    assert r.returncode == 5, r.stderr
    doc = json.loads(r.stdout)
    assert {a["pod"]: a.get("replacementAt") for a in doc["actions"] if a["type"] == "evict"} == {"db-0": None, "db-1": 30}
    (inc,) = [i for i in doc["incomplete"] if i["kind"] == "StatefulSet"]
    assert "podManagementPolicy not checked: assumed OrderedReady" in inc["effect"] and "default/db-1" in inc["effect"]


def test_a_statefulset_pod_already_terminating_comes_back_in_ready_after(tmp_path) -> None:
    """A ReplicaSet replaced a terminating pod already (FilterActivePods); a StatefulSet creates
    the same name only once the old pod is gone, so its replacement counts in readyAfter: db-0
    (Terminating, not counted now), db-1 and db-2 -> 2 ready now, 3 after."""
    f = tmp_path / "s.json"
    f.write_text(json.dumps(snapshot_list(*_nodes(), _sts(), _db(0, "n1", SOON), _db(1, "n1"), _db(2, "n3"))))
    r = run_cli("-f", str(f), "-o", "json", "drain", "n1")
    assert r.returncode == 0, r.stderr
    (w,) = json.loads(r.stdout)["workloads"]
    assert (w["ready"], w["readyAfter"]) == (2, 3)


# (drained node, objects, ready count (at, ready) steps from now: the first is (0, ready now)). db-0
# (or db-2) is down now and the plan does not act on it: the StatefulSet controller creates it again
# once the old pod is gone (a finished pod at once), ordinals in order under OrderedReady
# (processReplica), Ready 30 s (the plan's startup) later.
RETURNING = {
    # db-0 Terminating on n1 (live) until +20s: created +20s, Ready +50s. db-1 evicted at 0, created
    # once db-0 is Ready (+50s), Ready +80s. 2 now (db-1, db-2) -> 1 at 0 -> 2 at +50s -> 3 at +80s
    "terminating-lower": ("n2", [_sts(), _db(0, "n1", SOON), _db(1, "n2"), _db(2, "n3")],
                          [(0, 2), (0, 1), (50, 2), (80, 3)]),
    # a Failed db-0 on n2 is deleted and created at once, Ready +30s; db-1 created then, Ready +60s
    "failed-lower": ("n1", [_sts(), _db(0, "n2", phase="Failed", ready=False), _db(1, "n1"), _db(2, "n3")],
                     [(0, 2), (0, 1), (30, 2), (60, 3)]),
    # minReadySeconds 60 delays db-1's creation (db-0 available at +90s), not db-0's Ready (+30s)
    "failed-lower-min-ready": ("n1", [_sts(min_ready=60), _db(0, "n2", phase="Failed", ready=False),
                                      _db(1, "n1"), _db(2, "n3")],
                               [(0, 2), (0, 1), (30, 2), (120, 3)]),
    # Parallel: db-1 created at once (Ready +30s), db-0 once gone (+20s, Ready +50s)
    "parallel": ("n2", [_sts("Parallel"), _db(0, "n1", SOON), _db(1, "n2"), _db(2, "n3")],
                 [(0, 2), (0, 1), (30, 2), (50, 3)]),
    # on a node whose kubelet is gone nothing confirms the deletion: db-0 never comes back, nor db-1
    "stuck-terminating": ("n2", [_sts(), _db(0, "n1", AGO), _db(1, "n2"), _db(2, "n3")],
                          [(0, 2), (0, 1)]),
    # db-1 evicted at 0: created at once (db-0 Ready), Ready +30s. db-2 Terminating on n2 until +20s
    # waits for it (processReplica: every lower ordinal Running and Ready, whoever removed it):
    # created +30s, Ready +60s (the plan said +50s)
    "terminating-above-evicted": ("n1", [_sts(), _db(0, "n3"), _db(1, "n1"), _db(2, "n2", SOON)],
                                  [(0, 2), (0, 1), (30, 2), (60, 3)]),
    # db-0, db-1 evicted at 0: db-0 Ready +30s, db-1 created then, Ready +60s; a Failed db-2 on n2
    # (deleted at once) is created +60s, Ready +90s (the plan said +30s)
    "failed-above-two-evicted": ("n1", [_sts(), _db(0, "n1"), _db(1, "n1"), _db(2, "n2", phase="Failed", ready=False)],
                                 [(0, 2), (0, 0), (30, 1), (60, 2), (90, 3)]),
    # db-0's replacement fits no node (it selects the drained n1): db-0 is never Running and Ready
    # again, so the Failed db-1 on n2 is never created again either (the plan counted it at +30s)
    "failed-above-one-never-back": ("n1", [_sts(), _db(0, "n1", node_selector={"kubernetes.io/hostname": "n1"}),
                                           _db(1, "n2", phase="Failed", ready=False), _db(2, "n3")],
                                    [(0, 2), (0, 1)]),
    # Parallel (allowsBurst): each ordinal is created once gone, whatever the others do. The Failed
    # db-1 is created at once, Ready +30s (the plan waited for db-0: +80s); db-0 Terminating until
    # +20s, Ready +50s; db-2 evicted at 0, Ready +30s
    "parallel-two-returning": ("n1", [_sts("Parallel"), _db(0, "n2", SOON), _db(1, "n2", phase="Failed", ready=False),
                                      _db(2, "n1")],
                               [(0, 1), (0, 0), (30, 2), (50, 3)]),
    # db-0 Running but not Ready, not on its way back: the Failed db-1 is deleted but never created
    # again (processReplica stops at db-0), and db-2 is never created either (ordered-ready)
    "failed-above-one-not-ready": ("n1", [_sts(), _db(0, "n3", ready=False), _db(1, "n2", phase="Failed", ready=False),
                                          _db(2, "n1")],
                                   [(0, 1), (0, 0)]),
    # scaled down to 2: db-2 evicted is condemned, never created again: 3 ready now, 2 after
    "condemned-evicted": ("n1", [dict(_sts(), spec=dict(_sts()["spec"], replicas=2)), _db(0, "n3"), _db(1, "n3"),
                                 _db(2, "n1")],
                          [(0, 3), (0, 2)]),
    # scaled down to 2: db-2 Terminating is condemned (ordinal >= spec.replicas), never created again
    "condemned": ("n2", [dict(_sts(), spec=dict(_sts()["spec"], replicas=2)), _db(0, "n1"), _db(1, "n2"),
                         _db(2, "n3", SOON)],
                  [(0, 2), (0, 1), (30, 2)]),
}


@pytest.mark.parametrize("case", sorted(RETURNING))
def test_a_statefulset_pod_down_now_and_not_acted_on_comes_back_in_the_counts(case: str) -> None:
    from kubectl_evict.rules.drain import DrainSettings, plan_drain
    from kubectl_evict.source.freeze import freeze
    from kubectl_evict.timeutil import parse_time
    from conftest import NOW
    drained, objs, steps = RETURNING[case]
    doc = snapshot_list(*(_nodes(unknown="n1" if case == "stuck-terminating" else "") + objs))
    snap = freeze([("test", str(i), o) for i, o in enumerate(doc["items"])])
    plan = plan_drain(snap, DrainSettings(nodes=(drained,)), parse_time(NOW))
    (w,) = plan.workloads
    low = min(r for _, r in steps)
    assert (w.ready, w.ready_min, w.ready_min_at, w.ready_after) == (steps[0][1], low, 0, steps[-1][1])
    assert [(float(a), r) for a, r in w.levels] == [(float(a), r) for a, r in steps[1:]]


def _pdb(name: str, selector: dict, **spec: Any) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": "default", "generation": 1}, "spec": dict(spec, selector=selector)}


def _named(*names: str) -> dict:
    return {"matchExpressions": [{"key": "statefulset.kubernetes.io/pod-name", "operator": "In", "values": list(names)}]}


def _dbn(n: int, on: str, terminating: Optional[str] = None, **kw: Any) -> dict:
    """`_db` with the pod-name label the StatefulSet controller sets (a PDB may select one ordinal)."""
    p = _db(n, on, terminating, **kw)
    p["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"] = "db-%d" % n
    return p


def _sts4(replicas: int = 4) -> dict:
    return dict(_sts(), spec=dict(_sts()["spec"], replicas=replicas))


# drain n1 with PDBs: (objects, {pod: (evicted at, replacementAt)}, blocked (pod, code) pairs). The
# disruption controller counts a pod healthy once Ready (countHealthyPods); kubectl retries a refused
# eviction every 5 s, so a held pod goes at the first 30 s wave (--pod-startup) after that.
BUDGETS = {
    # PDB "high" (minAvailable 1) selects db-2, db-3: 1 healthy (db-3; db-2 Terminating on n2 until
    # +20s), so db-3 is held. db-0, db-1 (no PDB) evicted at 0: db-0 Ready +30s, db-1 created then,
    # Ready +60s; db-2 created +60s (every lower ordinal Running and Ready), Ready +90s: 2 healthy,
    # db-3 evicted at +90s (the plan said +60s, counting db-2 Ready at +50s); its replacement is
    # created then (db-2 Ready at +90s).
    "held-until-a-returning-ordinal-waits-for-evicted-ones": (
        [_sts4(), _dbn(0, "n1"), _dbn(1, "n1"), _dbn(2, "n2", SOON), _dbn(3, "n1"),
         _pdb("high", _named("db-2", "db-3"), minAvailable=1)],
        {"db-0": (0, None), "db-1": (0, 30), "db-3": (90, None)}, []),
    # scaled down to 2: db-2 (Terminating) is condemned and never created again (processCondemned),
    # so the budget (minAvailable 2, 2 healthy) never allows an eviction: both held (the plan
    # counted db-2 healthy again at +50s and evicted db-0 at +60s, db-1 at +90s)
    "condemned-ordinal-gives-no-budget-back": (
        [_sts4(2), _dbn(0, "n1"), _dbn(1, "n1"), _dbn(2, "n2", SOON), _pdb("all", {"matchLabels": {"app": "db"}},
                                                                             minAvailable=2)],
        {}, [("db-0", "pdb-budget"), ("db-1", "pdb-budget")]),
}


@pytest.mark.parametrize("case", sorted(BUDGETS))
def test_a_budget_waits_for_returning_ordinals_in_ordinal_order(case: str, tmp_path) -> None:
    items, want, blocked = BUDGETS[case]
    f = tmp_path / "s.json"
    f.write_text(json.dumps(snapshot_list(*(_nodes() + items))))
    r = run_cli("-f", str(f), "-o", "json", "drain", "n1")
    doc = json.loads(r.stdout)
    assert {a["pod"]: (a["at"], a.get("replacementAt")) for a in doc["actions"] if a["type"] == "evict"} == want
    assert sorted((e["pod"], e["code"]) for e in doc["blocked"]) == blocked


# controller --fail n1 with db-0 on n1 (default 300 s tolerations) and db-1 Terminating on the live
# n2: (db-1 gone at, readyMin, readyMinAt, readyAfter). n1's Ready turns Unknown after
# --node-monitor-grace-period (50 s since v1.32) and MarkPodsNotReady sets db-0 Ready=False then; it
# is deleted at +350 s and stays Terminating (the kubelet is gone), never Running and Ready again.
FAILED_LOWER = {
    # gone at +60 s, after db-0 is not Ready: never created again (processReplica stops at db-0);
    # 2 ready now (db-0, db-2) -> 1 at +50 s, and 1 after (the plan counted db-1 back)
    "gone-after-the-lower-is-marked": ("2026-11-21T12:01:00Z", 1, 50, 1),
    # gone at +20 s, while db-0 is still Ready: created then, Ready at +50 s, as db-0 is marked
    "gone-before-the-lower-is-marked": (SOON, 2, 0, 2),
}


@pytest.mark.parametrize("case", sorted(FAILED_LOWER))
def test_a_returning_ordinal_waits_for_a_lower_one_on_a_failed_node(case: str, tmp_path) -> None:
    gone, low, low_at, after = FAILED_LOWER[case]
    f = tmp_path / "s.json"
    f.write_text(json.dumps(snapshot_list(*_nodes(), _sts(), _db(0, "n1"), _db(1, "n2", gone), _db(2, "n3"))))
    r = run_cli("-f", str(f), "-o", "json", "controller", "--fail", "n1")
    (w,) = json.loads(r.stdout)["workloads"]
    assert (w["ready"], w["readyMin"], w["readyMinAt"], w["readyAfter"]) == (2, low, low_at, after)


def test_a_returning_ordinal_counts_toward_a_budget_only_once_ready_after_the_lower_evicted_ones(tmp_path) -> None:
    """minReadySeconds 40 (a lower ordinal must be Ready 40 s before the next is created), drain n1 n2,
    PDB minAvailable 1 over db-0..db-4 (5 pods, 2 healthy: db-2, db-4). db-0 (Terminating on n1 until
    +70 s) evicted at 0: created again +70 s, Ready +100 s, available +140 s. db-1, Terminating on the
    live n3 until +70 s, is created only at +140 s (processReplica: db-0 available), Ready +170 s.
    db-2 (spends the one disruption) and db-3 (Terminating) evicted at 0; db-4 held until db-0's
    replacement is Ready (+100 s): wave 5 (+120 s), when 2 pods are healthy (db-0's replacement and
    db-4; db-1 is not back yet): disruptionsAllowed 1 -> 0. db-2 created +210 s (db-1 available), db-3
    +280 s, db-4 +350 s."""
    items = [dict(_sts(min_ready=40), spec=dict(_sts(min_ready=40)["spec"], replicas=5)),
             _dbn(0, "n1", "2026-11-21T12:01:10Z"), _dbn(1, "n3", "2026-11-21T12:01:10Z"), _dbn(2, "n1"),
             _dbn(3, "n2", SOON), _dbn(4, "n2"), _pdb("some", {"matchLabels": {"app": "db"}}, minAvailable=1)]
    f = tmp_path / "s.json"
    f.write_text(json.dumps(snapshot_list(*(_nodes() + items))))
    r = run_cli("-f", str(f), "-o", "json", "drain", "n1", "n2")
    assert r.returncode == 0, r.stderr
    evicts = {a["pod"]: a for a in json.loads(r.stdout)["actions"] if a["type"] == "evict"}
    assert {p: (a["at"], a.get("replacementAt")) for p, a in evicts.items()} == {
        "db-0": (0, 70), "db-2": (0, 210), "db-3": (0, 280), "db-4": (120, 350)}
    assert "(disruptionsAllowed 1 -> 0)" in evicts["db-4"]["reason"]


# spec.ordinals.start (StatefulSetStartOrdinal, GA in v1.31): the set keeps ordinals start to
# start + replicas - 1 (`getStartOrdinal`, `getEndOrdinal`, `podInOrdinalRange` in
# pkg/controller/statefulset/stateful_set_utils.go); a pod outside is condemned, deleted by
# `processCondemned` and never created again. Drain n1 (Parallel: no ordinal waits for another),
# start 5, replicas 3: db-5, db-6, db-7 are the set's; db-4 (below start) and db-8 (past the end)
# are condemned. (start, {pod: replaced?})
START_ORDINAL = [
    (5, {"db-4": False, "db-5": True, "db-6": True, "db-7": True, "db-8": False}),
    # no spec.ordinals: 0 to 2 are the set's, every pod here is condemned
    (None, {"db-4": False, "db-5": False, "db-6": False, "db-7": False, "db-8": False}),
]


@pytest.mark.parametrize("start, replaced", START_ORDINAL)
def test_spec_ordinals_start_decides_which_ordinals_come_back(tmp_path, start: Optional[int],
                                                              replaced: Dict[str, bool]) -> None:
    sts = _sts("Parallel")
    if start is not None:
        sts["spec"]["ordinals"] = {"start": start}
    objs = _nodes() + [sts] + [_db(n, "n1") for n in range(4, 9)]
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(snapshot_list(*objs)))
    r = run_cli("-f", str(path), "-o", "json", "drain", "n1", "--pod-startup", "30s")
    assert r.returncode in (0, 4), r.stderr
    doc = json.loads(r.stdout)
    got = {a["pod"]: a.get("target") is not None for a in doc["actions"] if a["type"] == "evict"}
    assert got == replaced, doc["actions"]


@pytest.mark.parametrize("ordinals, message", [
    ({"start": -1}, "spec.ordinals.start"),
    ({"start": "5"}, "spec.ordinals.start"),
    (5, "spec.ordinals"),
])
def test_a_bad_spec_ordinals_is_a_located_error(tmp_path, ordinals: Any, message: str) -> None:
    sts = _sts()
    sts["spec"]["ordinals"] = ordinals
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(snapshot_list(*(_nodes() + [sts, _db(0, "n1")]))))
    r = run_cli("-f", str(path), "drain", "n1")
    assert r.returncode == 1 and r.stderr.startswith("error:") and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
