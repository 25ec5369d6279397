"""PersistentVolumeClaims, PersistentVolumes, StorageClasses, CSINodes, CSIDrivers and Namespaces:
read from files and live clusters, frozen with the fields kube-scheduler's volume plugins and
InterPodAffinity read, and kept by `snapshot --redact`."""

from __future__ import annotations

import json
import sys

import pytest

from conftest import REPO, node, pod, run_cli, snapshot_list
from kubectl_evict.source.freeze import freeze

sys.path.insert(0, str(REPO / "tests"))
from apiserver import ApiServer  # noqa: E402
from kubectl_evict.options import GlobalOptions  # noqa: E402
from kubectl_evict.source import live  # noqa: E402

GI = 1024 ** 3


def storage_objects() -> list:
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": {"name": "data-db-0", "namespace": "shop",
                        "annotations": {"pv.kubernetes.io/bind-completed": "yes",
                                        "kubectl.kubernetes.io/last-applied-configuration": "{}"}},
           "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "zonal", "volumeName": "pv-1",
                    "resources": {"requests": {"storage": "10Gi"}}},
           "status": {"phase": "Bound"}}
    pending = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
               "metadata": {"name": "scratch", "namespace": "shop",
                            "annotations": {"volume.kubernetes.io/selected-node": "n2"}},
               "spec": {"accessModes": ["ReadWriteOncePod"], "resources": {"requests": {"storage": "1Gi"}}}}
    pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv-1", "labels": {"tier": "ssd"}},
          "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "zonal",
                   "claimRef": {"namespace": "shop", "name": "data-db-0", "uid": "u1"},
                   "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"},
                   "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                       {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["z2"]}]}]}}},
          "status": {"phase": "Bound"}}
    sc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "zonal"},
          "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer",
          "allowedTopologies": [{"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["z1", "z2"]}]}]}
    csinode = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
               "metadata": {"name": "n1", "annotations": {"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/aws-ebs"}},
               "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": "i-1", "allocatable": {"count": 25}},
                                    {"name": "nolimit.example.com", "nodeID": "i-1"}]}}
    driver = {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "ebs.csi.aws.com"},
              "spec": {"storageCapacity": True}}
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop", "labels": {"team": "a"}}}
    return [pvc, pending, pv, sc, csinode, driver, ns]


def db_pod() -> dict:
    p = pod("db-0", "n1", ns="shop", owner=("StatefulSet", "db"), priority=1000,
            volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}}],
            affinity={"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": "topology.kubernetes.io/zone",
                 "namespaceSelector": {"matchLabels": {"team": "a"}}}]},
                "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 50, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "db"}},
                                                       "topologyKey": "kubernetes.io/hostname"}}]}})
    p["spec"]["topologySpreadConstraints"] = [
        {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "db"}}, "matchLabelKeys": ["controller-revision-hash"]}]
    p["spec"]["preemptionPolicy"] = "Never"
    p["status"]["startTime"] = "2026-11-21T10:00:00Z"
    p["status"]["nominatedNodeName"] = "n2"
    return p


def _check(snap) -> None:
    pvc = snap.pvcs[("shop", "data-db-0")]
    assert (pvc.volume_name, pvc.storage_class, pvc.request, pvc.bind_completed) == ("pv-1", "zonal", 10 * GI, True)
    pending = snap.pvcs[("shop", "scratch")]
    assert pending.storage_class is None and pending.selected_node == "n2"
    assert pending.access_modes == ("ReadWriteOncePod",) and not pending.bind_completed
    pv = snap.pvs["pv-1"]
    assert (pv.capacity, pv.csi_driver, pv.csi_handle, pv.claim_ref[:2]) == (10 * GI, "ebs.csi.aws.com", "vol-1", ("shop", "data-db-0"))
    assert pv.node_affinity.terms[0].match_expressions[0].values == ("z2",)
    sc = snap.storage_classes["zonal"]
    assert sc.binding_mode == "WaitForFirstConsumer" and sc.provisioner == "ebs.csi.aws.com"
    assert sc.allowed_topologies.terms[0].match_expressions[0].values == ("z1", "z2")
    csinode = snap.csi_nodes["n1"]
    assert dict(csinode.drivers) == {"ebs.csi.aws.com": 25, "nolimit.example.com": None}
    assert csinode.migrated_plugins == ("kubernetes.io/aws-ebs",)
    assert snap.csi_drivers["ebs.csi.aws.com"].storage_capacity
    assert dict(snap.namespaces["shop"].labels) == {"team": "a", "kubernetes.io/metadata.name": "shop"}   # SetDefaults_Namespace
    db = snap.pods_by_key[("shop", "db-0")]
    assert db.volumes[0].claim_name == "data-db-0"
    assert db.affinity_required[0].namespace_selector.match_labels == (("team", "a"),)
    assert db.anti_affinity_preferred[0].weight == 50
    c = db.spread_constraints[0]
    assert (c.max_skew, c.when_unsatisfiable, c.min_domains, c.node_affinity_policy, c.node_taints_policy,
            c.match_label_keys) == (1, "DoNotSchedule", 1, "Honor", "Ignore", ("controller-revision-hash",))
    assert db.preemption_policy == "Never" and db.nominated_node_name == "n2" and db.start_time is not None


def test_file_snapshot_reads_storage_and_namespaces(tmp_path):
    from kubectl_evict.source.files import load_snapshot
    path = tmp_path / "c.json"
    path.write_text(json.dumps(snapshot_list(node("n1"), node("n2"), db_pod(), *storage_objects())))
    _check(load_snapshot([str(path)]))                                        # msgspec fast path
    _check(freeze([("c.json", "", o) for o in [node("n1"), node("n2"), db_pod(), *storage_objects()]]))   # stdlib path


def test_preemption_policy_comes_from_the_priority_class():
    pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "batch"},
          "value": 10, "preemptionPolicy": "Never"}
    p = pod("a", "n1")
    p["spec"]["priorityClassName"] = "batch"
    snap = freeze([("c.json", "", o) for o in (pc, p, pod("b", "n1"))])
    assert snap.pods_by_key[("default", "a")].preemption_policy == "Never"
    assert snap.pods_by_key[("default", "b")].preemption_policy == ""


@pytest.mark.parametrize("obj,field,problem", [
    ({"kind": "PersistentVolumeClaim", "metadata": {"name": "c", "namespace": "x"},
      "spec": {"resources": {"requests": {"storage": "ten gigs"}}}}, "spec.resources.requests.storage", ""),
    ({"kind": "PersistentVolume", "metadata": {"name": "v"}, "spec": {"accessModes": "ReadWriteOnce"}},
     "spec.accessModes", "expected a list"),
    ({"kind": "CSINode", "metadata": {"name": "n1"},
      "spec": {"drivers": [{"name": "d", "allocatable": {"count": "many"}}]}}, "spec.drivers[0].allocatable.count", ""),
    ({"kind": "Pod", "metadata": {"name": "p", "namespace": "x"},
      "spec": {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Sometimes"}]}},
     "spec.topologySpreadConstraints[0].whenUnsatisfiable", "DoNotSchedule or ScheduleAnyway"),
])
def test_bad_storage_fields_are_one_error_line(write_snapshot, obj, field, problem):
    res = run_cli("-f", write_snapshot(node("n1"), obj), "drain", "n1")
    assert res.returncode == 1 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and field in lines[0] and problem in lines[0], res.stderr


def test_live_read_and_redacted_snapshot_keep_what_placement_needs(tmp_path):
    objs = [node("n1"), node("n2"), db_pod(), *storage_objects()]
    with ApiServer(objs) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc"))
        snap = live.load_live(GlobalOptions(kubeconfig=kc), kubelet=False)
        red = run_cli("--kubeconfig", kc, "snapshot", "--redact", "--no-kubelet")
    _check(snap)
    assert red.returncode == 0, red.stderr
    doc = json.loads(red.stdout)
    pvc = next(i for i in doc["items"] if i["kind"] == "PersistentVolumeClaim" and i["metadata"]["name"] == "data-db-0")
    assert pvc["metadata"]["annotations"] == {"pv.kubernetes.io/bind-completed": "yes"}
    path = tmp_path / "red.json"
    path.write_text(red.stdout)
    from kubectl_evict.source.files import load_snapshot
    _check(load_snapshot([str(path)]))
