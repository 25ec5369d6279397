"""PDB arithmetic and the Eviction API's decision, ported from shared/spec/vectors/pdb_eviction.json
(derived from pkg/controller/disruption/disruption.go and pkg/registry/core/pod/storage/eviction.go)."""

from __future__ import annotations

import json
from typing import Any, List, Optional

import pytest

from kubectl_evict.model import Pod
from kubectl_evict.scheduling.disruption import (MULTIPLE_PDBS, compute_budget, eviction_decision, pdbs_for_pod,
                                                 scaled_value)
from kubectl_evict.source.freeze import freeze
from kubectl_evict.timeutil import parse_time

from conftest import VECTORS  # noqa: E402  (copies of shared/spec/vectors)
DATA = json.loads((VECTORS / "pdb_eviction.json").read_text())["vectors"]
NOW = parse_time("2026-11-21T12:00:00Z")

ARITHMETIC = [v for v in DATA if "selectedPods" in v["input"]]
EVICTION = [v for v in DATA if "pod" in v["input"]]


def _snapshot(objs: List[dict]) -> Any:
    return freeze([("test", str(i), o) for i, o in enumerate(objs)])


def _pods(total: int, ready: int, owner: Optional[dict]) -> List[dict]:
    pods = []
    for i in range(total):
        meta = {"name": "a-%d" % i, "namespace": "default", "labels": {"app": "a"}}
        if owner is not None:
            meta["ownerReferences"] = [owner]
        pods.append({"kind": "Pod", "metadata": meta, "spec": {"nodeName": "n"},
                     "status": {"phase": "Running",
                                "conditions": [{"type": "Ready", "status": "True" if i < ready else "False"}]}})
    return pods


def test_every_vector_is_ported() -> None:
    assert len(ARITHMETIC) + len(EVICTION) == len(DATA)


@pytest.mark.parametrize("vector", ARITHMETIC, ids=[json.dumps(v["input"]["pdb"]["spec"])[:60] + " %d/%d" % (
    v["input"]["selectedPods"], v["input"]["readyNotTerminatingPods"]) for v in ARITHMETIC])
def test_disruption_controller_arithmetic(vector: dict) -> None:
    """expectedPods, desiredHealthy, currentHealthy, disruptionsAllowed from spec + pods."""
    inp, want = vector["input"], vector["expected"]
    scale = inp["controllerScaleSum"]
    objs = [inp["pdb"]]
    owner = None
    if scale is not None:
        # pods -> ReplicaSet -> Deployment(spec.replicas = the scale sum)
        owner = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "a-rs", "uid": "rs-1", "controller": True}
        objs += [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "a", "namespace": "default",
                                                                            "uid": "dep-1"}, "spec": {"replicas": scale}},
                 {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
                     "name": "a-rs", "namespace": "default", "uid": "rs-1", "ownerReferences": [
                         {"apiVersion": "apps/v1", "kind": "Deployment", "name": "a", "uid": "dep-1", "controller": True}]},
                  "spec": {"replicas": scale}}]
    snap = _snapshot(objs + _pods(inp["selectedPods"], inp["readyNotTerminatingPods"], owner))
    budget = compute_budget(snap, snap.pdbs[("default", "pdb")], NOW)
    assert (budget.expected_pods, budget.desired_healthy, budget.current_healthy, budget.disruptions_allowed) == (
        want["expectedPods"], want["desiredHealthy"], want["currentHealthy"], want["disruptionsAllowed"])


def _pod(spec: dict) -> Pod:
    return Pod(namespace="default", name="p", labels={"app": "a"}, phase=spec.get("phase", "Running"),
               ready=spec.get("ready", False), deletion_timestamp=NOW - 5 if spec.get("deletionTimestamp") else None)


def _pdb_obj(name: str, status: dict, policy: Optional[str]) -> dict:
    spec: dict = {"selector": {"matchLabels": {"app": "a"}}, "maxUnavailable": 1}
    if policy:
        spec["unhealthyPodEvictionPolicy"] = policy
    gen = status.get("generation", 1)
    st = {k: v for k, v in status.items() if k != "generation"}
    st.setdefault("observedGeneration", gen)
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": "default", "generation": gen}, "spec": spec, "status": st}


@pytest.mark.parametrize("vector", EVICTION, ids=[json.dumps(v["input"]["pod"]) + " " + json.dumps(v["input"]["pdbStatus"])[:50]
                                                  for v in EVICTION])
def test_eviction_api_decision(vector: dict) -> None:
    inp, want = vector["input"], vector["expected"]
    pod = _pod(inp["pod"])
    policy = inp["unhealthyPodEvictionPolicy"]
    if inp["pdbStatus"] == "two matching PDBs":
        snap = _snapshot([_pdb_obj("pdb", {"disruptionsAllowed": 1}, policy), _pdb_obj("pdb2", {"disruptionsAllowed": 1}, policy)])
    else:
        snap = _snapshot([_pdb_obj("pdb", inp["pdbStatus"], policy)])
    decision = eviction_decision(pod, pdbs_for_pod(snap, pod))
    result = want["result"]
    if result == "deleted":
        assert decision.allowed
        if "pdbChecked" in want:
            assert decision.pdb_checked == want["pdbChecked"]
        if "pdbDecremented" in want:
            assert decision.spends_budget == want["pdbDecremented"]
        if "pdbStatusUpdate" in want:
            assert decision.spends_budget
    else:
        assert decision.code == int(result.split()[0])
        assert not decision.spends_budget
        if "message" in want:
            assert decision.message == want["message"]
        if "cause" in want:
            assert decision.cause == want["cause"]


@pytest.mark.parametrize("value,total,want", [(1, 10, 1), ("25%", 4, 1), ("10%", 5, 1), ("50%", 3, 2), ("0%", 9, 0),
                                              ("100%", 7, 7), ("33%", 10, 4)])
def test_percentages_round_up(value: object, total: int, want: int) -> None:
    """intstr.GetScaledValueFromIntOrPercent(roundUp=true): ceil(percent x total)."""
    assert scaled_value(value, total) == want


@pytest.mark.parametrize("selector,matches", [
    ({"matchLabels": {"app": "a"}}, True),
    ({"matchLabels": {"app": "b"}}, False),
    ({}, False),                      # empty selector: matches nothing for the Eviction API
    (None, False),                    # no selector
])
def test_pdb_matching(selector: Optional[dict], matches: bool) -> None:
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "x", "namespace": "default"},
           "spec": {"minAvailable": 1}}
    if selector is not None:
        pdb["spec"]["selector"] = selector
    other_ns = dict(pdb, metadata={"name": "y", "namespace": "other"}, spec={"selector": {"matchLabels": {"app": "a"}}})
    snap = _snapshot([pdb, other_ns])
    got = pdbs_for_pod(snap, _pod({}))
    assert [p.name for p in got] == (["x"] if matches else [])


@pytest.mark.parametrize("expr,field", [
    ({"key": "app", "operator": "In", "values": []}, "spec.selector.matchExpressions[0].values"),
    ({"key": "app", "operator": "Within", "values": ["a"]}, "spec.selector.matchExpressions[0].operator"),
])
def test_invalid_pdb_selector_is_refused_as_the_api_server_would(expr: dict, field: str) -> None:
    """ValidateLabelSelector runs on every PDB the API server stores: a selector it refuses cannot
    be in a real cluster, so it is an input error rather than a PDB that silently covers no pod."""
    from kubectl_evict.errors import InputError
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "x", "namespace": "default"},
           "spec": {"minAvailable": 1, "selector": {"matchExpressions": [expr]}}}
    with pytest.raises(InputError) as e:
        _snapshot([pdb])
    assert "PodDisruptionBudget default/x" in str(e.value) and field in str(e.value)


def test_two_pdbs_message() -> None:
    assert MULTIPLE_PDBS == "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."


def _info(*kinds: str) -> dict:
    """A SnapshotInfo saying the input holds every object of `kinds`."""
    return {"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
            "takenAt": "2026-11-21T12:00:00Z", "kinds": ["Pod", "PodDisruptionBudget"] + list(kinds)}


PERCENT_PDB = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pdb", "namespace": "default"},
               "spec": {"selector": {"matchLabels": {"app": "a"}}, "maxUnavailable": "50%"}}


def test_missing_controller_fails_safe() -> None:
    """A percentage budget over pods whose controller is gone (the input holds every
    StatefulSet): the controller's failSafe holds disruptionsAllowed at 0 and says why."""
    owner = {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "gone", "uid": "u", "controller": True}
    snap = _snapshot([_info("StatefulSet"), PERCENT_PDB] + _pods(3, 3, owner))
    budget = compute_budget(snap, snap.pdbs[("default", "pdb")], NOW)
    assert budget.disruptions_allowed == 0
    assert budget.problem == 'found no controllers for pod "a-0"'


@pytest.mark.parametrize("owner,kinds,unknown", [
    # the finders read listers of these kinds: an input without them cannot say "not found"
    (("apps/v1", "StatefulSet"), (), "StatefulSet"),
    (("apps/v1", "ReplicaSet"), (), "ReplicaSet"),
    (("v1", "ReplicationController"), (), "ReplicationController"),
    # any other kind goes to the generic scale-subresource finder, which asks the API server
    (("argoproj.io/v1alpha1", "Rollout"), ("StatefulSet", "ReplicaSet", "Deployment"), "Rollout"),
])
def test_controller_kind_not_in_the_input_leaves_the_budget_unknown(owner: tuple, kinds: tuple, unknown: str) -> None:
    """DESIGN.md: a plan never asserts the absence of an object whose kind its input does not
    hold; so no failSafe ("found no controllers") is assumed, the budget is unknown."""
    ref = {"apiVersion": owner[0], "kind": owner[1], "name": "x", "uid": "u", "controller": True}
    snap = _snapshot([_info(*kinds), PERCENT_PDB] + _pods(2, 2, ref))
    budget = compute_budget(snap, snap.pdbs[("default", "pdb")], NOW)
    assert (budget.source, budget.unknown, budget.problem) == ("unknown", unknown, "")


@pytest.mark.parametrize("kind,api_version,error", [
    ("DaemonSet", "apps/v1", "daemonsets.apps does not implement the scale subresource"),
    ("Job", "batch/v1", "jobs.batch does not implement the scale subresource"),
])
def test_controllers_without_scale_fail_with_the_generic_finders_error(kind: str, api_version: str, error: str) -> None:
    """getScaleController: no finder knows these kinds and their resource has no scale
    subresource, so the sync fails with that error (failSafe: 0 allowed)."""
    ref = {"apiVersion": api_version, "kind": kind, "name": "x", "uid": "u", "controller": True}
    snap = _snapshot([_info(kind), PERCENT_PDB] + _pods(2, 2, ref))
    budget = compute_budget(snap, snap.pdbs[("default", "pdb")], NOW)
    assert (budget.disruptions_allowed, budget.problem) == (0, error)


def test_replicaset_whose_deployment_is_gone_counts_its_own_scale() -> None:
    """getPodReplicaSet skips a ReplicaSet controlled by a Deployment, getPodDeployment finds no
    Deployment, and the generic scale finder reads the ReplicaSet's scale: expectedPods 4."""
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {
        "name": "a-rs", "namespace": "default", "uid": "rs-1", "ownerReferences": [
            {"apiVersion": "apps/v1", "kind": "Deployment", "name": "a", "uid": "dep-1", "controller": True}]},
        "spec": {"replicas": 4}}
    ref = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "a-rs", "uid": "rs-1", "controller": True}
    snap = _snapshot([_info("ReplicaSet", "Deployment"), PERCENT_PDB, rs] + _pods(4, 4, ref))
    budget = compute_budget(snap, snap.pdbs[("default", "pdb")], NOW)
    assert (budget.expected_pods, budget.desired_healthy, budget.disruptions_allowed, budget.problem) == (4, 2, 2, "")


def test_unmanaged_pods_with_percentage() -> None:
    """Observed on v1.28: maxUnavailable over pods with no controller gives expectedPods 0 and
    disruptionsAllowed 0 (UnmanagedPods event), with integer minAvailable they count."""
    spec = {"selector": {"matchLabels": {"app": "a"}}, "maxUnavailable": 1}
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pdb", "namespace": "default"},
           "spec": spec}
    snap = _snapshot([pdb] + _pods(2, 2, None))
    budget = compute_budget(snap, snap.pdbs[("default", "pdb")], NOW)
    assert (budget.expected_pods, budget.disruptions_allowed, budget.unmanaged) == (0, 0, ("a-0", "a-1"))
    pdb["spec"] = {"selector": {"matchLabels": {"app": "a"}}, "minAvailable": 1}
    snap = _snapshot([pdb] + _pods(2, 2, None))
    budget = compute_budget(snap, snap.pdbs[("default", "pdb")], NOW)
    assert (budget.expected_pods, budget.desired_healthy, budget.disruptions_allowed) == (2, 1, 1)


def test_disrupted_pods_do_not_count_for_two_minutes() -> None:
    """countHealthyPods skips pods in status.disruptedPods whose entry is under 2 minutes old."""
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "pdb", "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": "a"}}, "minAvailable": 1},
           "status": {"disruptedPods": {"a-0": "2026-11-21T11:59:00Z", "a-1": "2026-11-21T11:57:00Z"}}}
    snap = _snapshot([pdb] + _pods(3, 3, None))
    budget = compute_budget(snap, snap.pdbs[("default", "pdb")], NOW)
    assert (budget.current_healthy, budget.disruptions_allowed) == (2, 1)
