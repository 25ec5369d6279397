"""Freezing: projection of what rules need, indexes, immutability, duplicates, real captures."""

import json

import pytest
from pyrsistent import PClass

from conftest import FIXTURES, node, pod, snapshot_list
from kubectl_evict.model import Taint
from kubectl_evict.source.files import load_snapshot
from kubectl_evict.source.freeze import freeze


def _freeze(*items):
    return freeze([("test.json", "", i) for i in snapshot_list(*items)["items"]])


def test_indexes_built_once():
    snap = _freeze(node("n1"), node("n2", zone="z2"), pod("a-1", "n1"), pod("a-2", "n2"), pod("b-1", "n1", ns="other"),
                   {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "a", "namespace": "default"},
                    "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "a"}}}})
    assert [p.ref for p in snap.pods_on("n1")] == ["default/a-1", "other/b-1"]
    assert [p.ref for p in snap.pods_by_owner["uid-rs"]] == ["default/a-1", "default/a-2", "other/b-1"]
    assert [p.name for p in snap.pdbs_by_namespace["default"]] == ["a"]
    assert dict(snap.nodes_by_zone) == {"z1": ("n1",), "z2": ("n2",)}
    assert snap.info.context == "test"


def test_snapshot_cannot_be_mutated_and_edits_share_structure():
    snap = _freeze(node("n1"), node("n2"), pod("a-1", "n1"))
    n1 = snap.node("n1")
    with pytest.raises(AttributeError):
        n1.unschedulable = True
    with pytest.raises(TypeError):
        n1.labels["x"] = "y"
    changed = n1.set(taints=n1.taints + (Taint("k", "v", "NoExecute"),))
    snap2 = snap.with_node(changed)
    assert snap.node("n1").taints == ()                       # the old value is untouched
    assert snap2.node("n1").taints[0].key == "k"
    assert snap2.node("n2") is snap.node("n2")                # untouched nodes are shared
    assert snap2.pods is snap.pods and snap2.pods_by_node is snap.pods_by_node
    assert isinstance(snap2, PClass)


def test_relabel_moves_node_between_zones():
    snap = _freeze(node("n1", zone="z1"), node("n2", zone="z1"))
    from kubectl_evict.rules.whatif import apply_edits, parse_label
    snap2, changed = apply_edits(snap, [parse_label("n1:topology.kubernetes.io/zone=z9")], 0.0)
    assert changed == ["n1"]
    assert dict(snap2.nodes_by_zone) == {"z1": ("n2",), "z9": ("n1",)}
    assert dict(snap.nodes_by_zone) == {"z1": ("n1", "n2")}


@pytest.mark.parametrize("labels,zone", [
    ({}, ""),
    ({"topology.kubernetes.io/region": "r", "topology.kubernetes.io/zone": "a"}, "r/a"),
    ({"failure-domain.beta.kubernetes.io/zone": "beta", "topology.kubernetes.io/zone": "ga"}, "beta"),  # beta first
    ({"topology.kubernetes.io/zone": "a"}, "a"),
    # a beta label present but empty still wins (GetZoneKey tests presence, not value)
    ({"failure-domain.beta.kubernetes.io/zone": "", "topology.kubernetes.io/zone": "ga"}, ""),
    ({"failure-domain.beta.kubernetes.io/zone": "", "topology.kubernetes.io/zone": "ga",
      "topology.kubernetes.io/region": "r"}, "r/"),
])
def test_zone_key(labels, zone):
    assert _freeze(node("n1", zone=None, labels=labels)).node("n1").zone == zone


def test_priority_resolution():
    pcs = [{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000},
           {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "dflt"}, "value": 7,
            "globalDefault": True}]
    p_spec = pod("a", "n1", priority=5)
    p_spec["spec"]["priorityClassName"] = "high"          # spec.priority wins (admission resolved it)
    p_class = pod("b", "n1")
    p_class["spec"]["priorityClassName"] = "high"
    p_default = pod("c", "n1")
    snap = _freeze(*pcs, p_spec, p_class, p_default)
    assert [p.priority for p in snap.pods] == [5, 1000, 7]
    assert _freeze(pod("d", "n1")).pods[0].priority == 0


def test_daemonset_pods_carry_implicit_tolerations():
    ds = pod("agent-x", "n1", owner=("DaemonSet", "agent"), tolerations=[])
    snap = _freeze(ds)
    keys = {(t.key, t.effect, t.seconds) for t in snap.pods[0].tolerations}
    assert ("node.kubernetes.io/unreachable", "NoExecute", None) in keys
    assert ("node.kubernetes.io/unschedulable", "NoSchedule", None) in keys


def test_effective_requests_include_init_and_overhead():
    p = pod("a", "n1", cpu="100m", memory="100Mi")
    p["spec"]["initContainers"] = [{"name": "init", "resources": {"requests": {"cpu": "500m"}}}]
    p["spec"]["overhead"] = {"cpu": "10m", "memory": "1Mi"}
    got = _freeze(p).pods[0].requests
    assert got["cpu"] == 510 and got["memory"] == 101 * 2 ** 20


def test_later_duplicate_wins_with_warning(tmp_path):
    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    a.write_text(json.dumps(snapshot_list(node("n1", cpu="4"))))
    b.write_text(json.dumps(node("n1", cpu="8")))
    snap = load_snapshot([str(a), str(b)])
    assert snap.node("n1").allocatable["cpu"] == 8000
    assert any("Node n1 appears more than once" in w and "the later one wins" in w for w in snap.warnings)


def test_annotations_kept_only_when_rules_read_them():
    p = pod("a", "n1", annotations={"kubernetes.io/config.mirror": "x", "kubectl.kubernetes.io/last-applied-configuration": "{}" * 1000})
    got = _freeze(p).pods[0]
    assert got.is_mirror and "kubectl.kubernetes.io/last-applied-configuration" not in got.annotations


REAL = sorted(p for p in FIXTURES.glob("*/*") if "configz" not in p.name and p.suffix in (".json", ".yaml"))


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name[:60])
def test_real_captures_load(path):
    snap = load_snapshot([str(path)])
    assert len(snap.nodes) + len(snap.pods) + len(snap.pdbs) + len(snap.stats) > 0
    for p in snap.pods:
        assert p.qos in ("Guaranteed", "Burstable", "BestEffort")


def test_real_kind_cluster_indexes_mirror_pods():
    snap = load_snapshot([str(FIXTURES / "kind-1.33")])
    assert len(snap.nodes) == 2
    mirrors = [p for p in snap.pods if p.is_mirror]
    assert len(mirrors) == 4 and all(p.controller_kind == "Node" for p in mirrors)
    cp = [n for n in snap.nodes.values() if any(t.key == "node-role.kubernetes.io/control-plane" for t in n.taints)]
    assert len(cp) == 1


def test_openshift_percentage_string_pdb_loads():
    snap = load_snapshot([str(FIXTURES / "openshift-4.7" / "pdb-openshift-router-default-policyv1beta1-from-insights-operator.json")])
    (pdb,) = snap.pdbs.values()
    assert pdb.max_unavailable == "50%"
