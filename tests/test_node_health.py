"""Port of spec/vectors/node_health.json: `tryUpdateNodeHealth` (which conditions the controller
writes when a node's grace runs out) and `doNoScheduleTaintingPass` (condition -> NoSchedule
taint), plus the Lease and version rules of spec C1/C2."""

import json

import pytest

from kubectl_evict.model import Node, Snapshot, SnapshotInfo
from kubectl_evict.versions import cluster_version
from kubectl_evict.rules.nodelifecycle import (ControllerSettings, condition_taint_keys, monitor_grace, observe_node,
                                               unknown_conditions)
from kubectl_evict.source.freeze import freeze
from kubectl_evict.timeutil import format_time, parse_time

from conftest import VECTORS  # noqa: E402  (copies of shared/spec/vectors)
ALL = json.loads((VECTORS / "node_health.json").read_text())["vectors"]
HEALTH = [v for v in ALL if "node" in v["input"]]
TAINTS = [v for v in ALL if "conditions" in v["input"]]


def _id(v):
    return v["source"].split(" ", 1)[-1][:90]


def test_vector_file_is_covered():
    assert len(HEALTH) + len(TAINTS) == len(ALL) == 8


def _node(raw):
    return freeze([("v.json", "", raw)]).nodes[raw["metadata"]["name"]]


@pytest.mark.parametrize("v", HEALTH, ids=_id)
def test_node_health_update(v):
    inp = v["input"]
    node = _node(inp["node"])
    now = parse_time(inp["now"])
    h = observe_node(node, None, now, grace=50.0, startup_grace=60.0)
    exp = v["expected"]["updatedConditions"]
    if exp is None:
        assert not h.flipped and h.status == h.posted_status
        return
    assert h.flipped and h.status == "Unknown"
    got = [{"type": c.type, "status": c.status, "reason": c.reason, "message": c.message,
            "lastHeartbeatTime": format_time(c.last_heartbeat), "lastTransitionTime": format_time(c.last_transition)}
           for c in unknown_conditions(node, now)]
    assert got == exp


@pytest.mark.parametrize("v", TAINTS, ids=_id)
def test_condition_taints(v):
    statuses = {c["type"]: c["status"] for c in v["input"]["conditions"]}
    keys = condition_taint_keys(statuses, v["input"]["spec.unschedulable"])
    assert ["%s:NoSchedule" % k for k in keys] == v["expected"]["noScheduleTaints"]


NODE = {"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "n1", "creationTimestamp": "2026-01-01T00:00:00Z"},
        "status": {"conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2026-11-21T11:57:15Z",
                                   "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}
NOW = parse_time("2026-11-21T12:00:00Z")


@pytest.mark.parametrize("lease, leases_known, healthy", [
    ("2026-11-21T11:59:55Z", True, True),    # C10: a renewed Lease keeps a node with a 165 s old heartbeat healthy
    (None, True, False),                     # other nodes have Leases, this one renews none: heartbeat only
    ("2026-11-21T11:58:00Z", True, False),   # Lease as stale as the grace allows: Unknown
    (None, False, True),                     # no Leases captured at all: a heartbeat within 5m is a quiet kubelet
], ids=["lease-renewed", "no-lease-for-this-node", "stale-lease", "snapshot-without-leases"])
def test_leases_count_as_heartbeats(lease, leases_known, healthy):
    h = observe_node(_node(NODE), parse_time(lease) if lease else None, NOW, grace=50.0, startup_grace=60.0,
                     leases_known=leases_known)
    assert (h.status == "True") == healthy


@pytest.mark.parametrize("version, flag, grace", [
    ("v1.33.2", None, 50.0), ("v1.32.0", None, 50.0), ("v1.31.4-eks-1234", None, 40.0), ("v1.28.7", None, 40.0),
    ("", None, 50.0), ("v1.28.7", 90.0, 90.0)])
def test_monitor_grace_default_follows_server_version(version, flag, grace):
    settings = ControllerSettings(node_monitor_grace_period=flag)
    assert monitor_grace(settings, cluster_version(Snapshot(info=SnapshotInfo(server_version=version)))) == grace


@pytest.mark.parametrize("server, kubelets, want", [
    # serverVersion wins: the control plane's version decides the controller's defaults
    ("v1.31.2", ["v1.33.0"], ("v1.31.2", "serverVersion", 40.0)),
    # no serverVersion: the newest kubelet (the control plane is at least as new as any kubelet)
    ("", ["v1.29.4", "v1.31.9+k3s1"], ("v1.31.9+k3s1", "kubeletVersion of node n2", 40.0)),
    ("", ["v1.32.1-eks-abc", "v1.31.0"], ("v1.32.1-eks-abc", "kubeletVersion of node n1", 50.0)),
    # nothing recorded: the newest behaviour modelled
    ("", ["", "garbage"], ("v1.37", "default", 50.0)),
])
def test_version_rule_for_defaults(server, kubelets, want):
    nodes = {"n%d" % (i + 1): Node(name="n%d" % (i + 1), kubelet_version=v) for i, v in enumerate(kubelets)}
    v = cluster_version(Snapshot(nodes=nodes, info=SnapshotInfo(server_version=server)))
    assert (v.text, v.source, monitor_grace(ControllerSettings(), v)) == want
