"""kubectl drain's filters, ported from shared/spec/vectors/drain_filters.json.

The TestDrain vectors run the whole drain rule over a one-node snapshot; the derived vectors
check one pod's filter result. Expected values come from the vector file (upstream's TestDrain
table and filters.go), never from this tool's output.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List

import pytest

from kubectl_evict.render import render
from kubectl_evict.rules.drain import DrainSettings, plan_drain
from kubectl_evict.rules.drain_filters import FilterFlags, drain_filter, error_text
from kubectl_evict.source.freeze import freeze
from kubectl_evict.timeutil import parse_time

from conftest import VECTORS  # noqa: E402  (copies of shared/spec/vectors)
DATA = json.loads((VECTORS / "drain_filters.json").read_text())["vectors"]
NOW = parse_time("2026-11-21T12:00:00Z")

_KINDS = {"replicationcontrollers": ("v1", "ReplicationController"), "daemonsets": ("apps/v1", "DaemonSet"),
          "jobs": ("batch/v1", "Job"), "replicasets": ("apps/v1", "ReplicaSet")}


def _controllers(existing: Dict[str, List[str]]) -> List[dict]:
    out = []
    for plural, refs in existing.items():
        api, kind = _KINDS[plural]
        for ref in refs:
            ns, name = ref.split("/")
            out.append({"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": ns}, "spec": {}})
    return out


def _snapshot(objs: List[dict]) -> Any:
    # the vector lists every pod of its cluster (none, for an empty node): the input holds Pods
    info = {"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
            "kinds": ["Pod"]}
    return freeze([("vector", str(i), o) for i, o in enumerate([info] + objs)])


def _settings(args: List[str]) -> DrainSettings:
    """The vector's kubectl command line, mapped onto the rule's settings."""
    nodes = tuple(a for a in args if not a.startswith("--"))
    flags = {a.split("=")[0] for a in args if a.startswith("--") and not a.endswith("=false")}
    return DrainSettings(nodes=nodes, filters=FilterFlags(
        force="--force" in flags, ignore_daemonsets="--ignore-daemonsets" in flags,
        delete_emptydir_data="--delete-emptydir-data" in flags))


DRAIN_CASES = [v for v in DATA if "args" in v["input"] and "apiFailure" not in v["input"]]
FILTER_CASES = [v for v in DATA if "pod" in v["input"]]


def _id(v: dict) -> str:
    return v["source"].split("TestDrain/")[-1] if "TestDrain/" in v["source"] else v["note"][:60]


def test_every_vector_is_ported() -> None:
    """Only the one vector about an API server failing mid-drain has no static equivalent."""
    api_failures = [v for v in DATA if "apiFailure" in v["input"]]
    assert len(api_failures) == 1
    assert len(DRAIN_CASES) + len(FILTER_CASES) + len(api_failures) == len(DATA)


@pytest.mark.parametrize("vector", DRAIN_CASES, ids=[_id(v) for v in DRAIN_CASES])
def test_drain_vector(vector: dict) -> None:
    inp, exp = vector["input"], vector["expected"]
    # A second, empty node gives replacements somewhere to land: the vectors are about the
    # filters, and on a one-node cluster every replacement would (rightly) be blocked.
    spare = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "spare"}, "spec": {}}
    snap = _snapshot([inp["node"], spare] + inp["pods"] + _controllers(inp["existingControllers"]))
    plan = plan_drain(snap, _settings(inp["args"]), NOW)
    kinds = [a.type for a in plan.actions]
    assert ("cordon" in kinds) == exp["nodeCordoned"]
    evicted = {a.pod for a in plan.actions if a.type == "evict"}
    assert bool(evicted) == exp["podDeletedOrEvicted"]
    assert bool(plan.blocked) == exp["fatal"]
    table = render(plan, "table")
    if "errorDerived" in exp:
        assert [e.reason for e in plan.blocked] == [exp["errorDerived"]]
        assert exp["errorDerived"] in table
    for key in ("warning", "warningDerived"):
        if key in exp:
            assert exp[key] in table.splitlines()
    if exp.get("outputContains") == "node/node drained":
        assert "node/node: can be drained" in table


@pytest.mark.parametrize("vector", FILTER_CASES, ids=[_id(v) for v in FILTER_CASES])
def test_filter_vector(vector: dict) -> None:
    inp, want = vector["input"], vector["expected"]["filterResult"]
    snap = _snapshot([inp["pod"]] + _controllers(inp["existingControllers"]))
    pod = snap.pods[0]
    f = inp["flags"]
    flags = FilterFlags(force=f.get("force", False), ignore_daemonsets=f.get("ignoreDaemonSets", False),
                        delete_emptydir_data=f.get("deleteEmptyDirData", False),
                        skip_wait_for_delete_timeout=f.get("skipWaitForDeleteTimeoutSeconds", 0))
    got = drain_filter(snap, pod, flags, NOW)
    assert (got.delete, got.reason, got.message) == (want["delete"], want["reason"], want["message"])


@pytest.mark.parametrize("msg,refs,want", [
    ("DaemonSet-managed Pods (use --ignore-daemonsets to ignore)", ["default/bar"],
     "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): default/bar"),
    ('daemonsets.apps "missing-ds" not found', ["default/bar"], 'cannot delete daemonsets.apps "missing-ds" not found: default/bar'),
    ("cannot delete Pods that declare no controller (use --force to override)", ["a/x", "b/y"],
     "cannot delete Pods that declare no controller (use --force to override): a/x, b/y"),
])
def test_error_aggregation(msg: str, refs: List[str], want: str) -> None:
    """filters.go: messages not starting with "cannot delete" get the prefix; pods are listed."""
    assert error_text(msg, refs) == want


def test_filter_error_stops_the_whole_node() -> None:
    """One DaemonSet pod without --ignore-daemonsets: kubectl evicts nothing on that node, but the
    node is still cordoned and another node in the same command is drained."""
    node = lambda n: {"kind": "Node", "metadata": {"name": n}, "spec": {}}  # noqa: E731
    ds = {"kind": "Pod", "metadata": {"name": "agent-x", "namespace": "kube-system", "ownerReferences": [
        {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "controller": True}]},
        "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}}
    app = lambda name, n: {"kind": "Pod", "metadata": {"name": name, "namespace": "default", "ownerReferences": [  # noqa: E731
        {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "controller": True}]},
        "spec": {"nodeName": n}, "status": {"phase": "Running"}}
    snap = _snapshot([node("n1"), node("n2"), ds, app("web-1", "n1"), app("web-2", "n2"),
                      {"kind": "DaemonSet", "apiVersion": "apps/v1", "metadata": {"name": "agent", "namespace": "kube-system"}},
                      {"kind": "ReplicaSet", "apiVersion": "apps/v1", "metadata": {"name": "rs", "namespace": "default"}}])
    plan = plan_drain(snap, DrainSettings(nodes=("n1", "n2")), NOW)
    assert [(a.type, a.node, a.pod) for a in plan.actions] == [
        ("cordon", "n1", ""), ("cordon", "n2", ""), ("evict", "n2", "web-2")]
    reasons = {e.pod: e.reason for e in plan.blocked}
    assert reasons["agent-x"] == \
        "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): kube-system/agent-x"
    assert "web-1" in reasons
    assert any(w.startswith('unable to drain node "n1" due to error: cannot delete DaemonSet-managed Pods')
               for w in plan.warnings)
