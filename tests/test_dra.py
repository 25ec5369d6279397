"""Dynamic Resource Allocation: the DynamicResources scheduler plugin (default profile from v1.34)
and the device taint eviction controller (v1.36+), from files and a live API server.

Upstream sources the expected values come from:
- `pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go` (v1.34): Filter
  `cannot allocate all claims` / `resourceclaim not available on the node`, PreFilter
  `request R: device class C does not exist`, PostFilter `still not schedulable` /
  `deallocation of ResourceClaim completed` / `no new claims to deallocate`; `statusUnschedulable`
  is UnschedulableAndUnresolvable, so preemption calls every such node not helpful.
- `pkg/scheduler/apis/config/v1/default_plugins.go`: DynamicResources joins the profile with the
  DynamicResourceAllocation gate, on by default from v1.34 (DRA GA).
- `pkg/controller/devicetainteviction/device_taint_eviction.go` (`claimEvictionTime`): eviction at
  the NoExecute taint's timeAdded plus the smallest tolerationSeconds of a NoExecute toleration
  in the allocation result; DRADeviceTaints on from v1.36.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
import yaml

from conftest import NOW, node, pod, run_cli, with_owners

sys.path.insert(0, str(Path(__file__).resolve().parent))
from apiserver import ApiServer  # noqa: E402

DRIVER = "gpu.example.com"
V1 = "resource.k8s.io/v1"


def info(version: Optional[str]) -> dict:
    d = {"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
         "takenAt": NOW, "context": "test", "server": "https://test.invalid:6443"}
    if version:
        d["serverVersion"] = version
    return d


def device_class(name: str = DRIVER, expression: str = 'device.driver == "%s"' % DRIVER) -> dict:
    return {"apiVersion": V1, "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expression}}]}}


def rslice(node_name: str, gpus: int, taints: Optional[Dict[int, list]] = None) -> dict:
    devices = []
    for i in range(gpus):
        d: Dict[str, Any] = {"name": "gpu-%d" % i, "attributes": {"model": {"string": "T4"}}}
        if taints and i in taints:
            d["taints"] = taints[i]
        devices.append(d)
    return {"apiVersion": V1, "kind": "ResourceSlice", "metadata": {"name": "%s-%s" % (node_name, DRIVER)},
            "spec": {"driver": DRIVER, "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
                     "nodeName": node_name, "devices": devices}}


def template(name: str = "one-gpu", count: int = 1, cls: str = DRIVER) -> dict:
    return {"apiVersion": V1, "kind": "ResourceClaimTemplate", "metadata": {"name": name, "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": [
                {"name": "gpu", "exactly": {"deviceClassName": cls, "allocationMode": "ExactCount", "count": count}}]}}}}


def claim(name: str, node_name: str, devices: List[str], reserved: List[str], *,
          tolerations: Optional[list] = None, owner: Optional[str] = None) -> dict:
    results = [{"request": "gpu", "driver": DRIVER, "pool": node_name, "device": d} for d in devices]
    if tolerations:
        for r in results:
            r["tolerations"] = tolerations
    meta: Dict[str, Any] = {"name": name, "namespace": "default", "uid": "uid-claim-" + name}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": owner,
                                    "uid": "uid-default-" + owner, "controller": True}]
    return {"apiVersion": V1, "kind": "ResourceClaim", "metadata": meta,
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": DRIVER}}],
                                 "config": [{"opaque": {"driver": DRIVER, "parameters": {"token": "hunter2"}}}]}},
            "status": {"allocation": {
                "devices": {"results": results},
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}},
                "reservedFor": [{"resource": "pods", "name": p, "uid": "uid-default-" + p} for p in reserved]}}


def gpu_pod(name: str, node_name: str, *, template_name: str = "", claim_name: str = "",
            generated: str = "", owner: tuple = ("ReplicaSet", "trainer")) -> dict:
    p = pod(name, node_name, owner=owner, labels={"app": "trainer"})
    entry = {"name": "gpu"}
    if template_name:
        entry["resourceClaimTemplateName"] = template_name
    else:
        entry["resourceClaimName"] = claim_name
    p["spec"]["resourceClaims"] = [entry]
    p["spec"]["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    if generated:
        p["status"]["resourceClaimStatuses"] = [{"name": "gpu", "resourceClaimName": generated}]
    return p


def write(tmp_path: Path, version: Optional[str], *items: dict, name: str = "c.json") -> str:
    f = tmp_path / name
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [info(version), *items]}))
    return str(f)


def plan(*args: str) -> dict:
    r = run_cli(*args, "-o", "json")
    assert r.returncode in (0, 3, 4, 5), r.stderr
    return json.loads(r.stdout)


def evict_of(doc: dict, name: str) -> dict:
    return next(a for a in doc["actions"] if a["type"] in ("evict", "delete") and a.get("pod") == name)


def trainer_cluster(gpus_elsewhere: int = 0) -> List[dict]:
    """n1 has 2 GPUs, trainer-1 uses gpu-0 through a claim generated from a template; n2 has
    `gpus_elsewhere` free GPUs, n3 none."""
    objs = [node("n1"), node("n2"), node("n3"), device_class(), template(), rslice("n1", 2),
            claim("trainer-1-gpu-x7k2p", "n1", ["gpu-0"], ["trainer-1"], owner="trainer-1"),
            gpu_pod("trainer-1", "n1", template_name="one-gpu", generated="trainer-1-gpu-x7k2p")]
    if gpus_elsewhere:
        objs.append(rslice("n2", gpus_elsewhere))
    return objs


# --- DynamicResources Filter / PostFilter, per version -----------------------------------------

NO_GPU_TEXT = ("0/3 nodes are available: 1 node(s) were unschedulable, 2 cannot allocate all claims. "
               "still not schedulable, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")


@pytest.mark.parametrize("version, target, reason", [
    # v1.33: DynamicResources is not in the default profile (gate beta, off): claims are not checked
    ("v1.33.4", "n2", None),
    # v1.34: GA; the template claim is created anew and needs a free GPU: only n1 had them
    ("v1.34.1", None, NO_GPU_TEXT),
    ("v1.37.0", None, NO_GPU_TEXT),
])
def test_template_claim_needs_devices_only_the_drained_node_has(tmp_path, version, target, reason):
    doc = plan("-f", write(tmp_path, version, *trainer_cluster()), "drain", "n1")
    ev = evict_of(doc, "trainer-1")
    assert ev["target"] == target
    short = [s for s in doc["shortfall"] if s["pod"] == "trainer-1"]
    if reason is None:
        assert not short
    else:
        assert short[0]["code"] == "no-node-fits" and short[0]["reason"].endswith(reason), short[0]["reason"]


# Before v1.34 the DynamicResourceAllocation gate is off by default (pkg/features/kube_features.go:
# alpha v1.30-v1.31, beta off v1.32-v1.33, GA on v1.34) and an API server with it off drops a pod's
# spec.resourceClaims (pkg/api/pod/util.go dropDisabledDynamicResourceAllocationFields): DRA in a
# pre-v1.34 input means the cluster switched the gate on, which the plan does not model. It says so.
DRA_IGNORED = ("Dynamic Resource Allocation in the input (%s) is ignored at Kubernetes %s: before v1.34 the "
               "DynamicResourceAllocation gate is off by default, and the plan models the default scheduler "
               "profile, without DynamicResources, so the devices of replacements with ResourceClaims are not "
               "checked (a cluster of that release has them only with the gate switched on)")


@pytest.mark.parametrize("version, objects, said", [
    ("v1.33.4", "all", "1 pod (default/trainer-1) with ResourceClaims, 1 ResourceClaim, 1 ResourceClaimTemplate, "
                       "1 DeviceClass, 1 ResourceSlice"),
    ("v1.32.1", "slices", "1 DeviceClass, 1 ResourceSlice"),      # a driver's objects, no claim yet
    ("v1.34.0", "all", None), ("v1.37.0", "all", None),           # DRA GA: the plan checks them
    ("v1.33.4", "none", None),                                     # nothing to ignore
])
def test_dra_before_v1_34_is_ignored_with_a_warning(tmp_path, version, objects, said):
    objs = {"all": trainer_cluster(), "slices": [node("n1"), node("n2"), node("n3"), device_class(), rslice("n1", 2),
                                                  pod("web-1", "n1")],
            "none": [node("n1"), node("n2"), pod("web-1", "n1")]}[objects]
    doc = plan("-f", write(tmp_path, version, *objs), "drain", "n1")
    got = [w for w in doc["warnings"] if w.startswith("Dynamic Resource Allocation")]
    assert got == ([] if said is None else [DRA_IGNORED % (said, version)])


def test_free_devices_elsewhere_are_taken_one_replacement_at_a_time(tmp_path):
    """n2 has one free GPU: the first replacement's new claim takes it, the second finds none
    (trainer-2, the node's last pod, is evicted first: kubectl starts its eviction last, Go runs it
    first)."""
    objs = trainer_cluster(gpus_elsewhere=1) + [
        claim("trainer-2-gpu-a1b2c", "n1", ["gpu-1"], ["trainer-2"], owner="trainer-2"),
        gpu_pod("trainer-2", "n1", template_name="one-gpu", generated="trainer-2-gpu-a1b2c")]
    doc = plan("-f", write(tmp_path, "v1.34.0", *objs), "drain", "n1")
    assert evict_of(doc, "trainer-2")["target"] == "n2"
    assert evict_of(doc, "trainer-1")["target"] is None
    (short,) = doc["shortfall"]
    assert short["pod"] == "trainer-1"
    assert "1 node(s) were unschedulable, 2 cannot allocate all claims." in short["reason"]


def test_a_template_asking_for_more_devices_than_any_node_has(tmp_path):
    objs = [o if o["kind"] != "ResourceClaimTemplate" else template(count=3) for o in trainer_cluster(gpus_elsewhere=2)]
    doc = plan("-f", write(tmp_path, "v1.35.0", *objs), "drain", "n1")
    assert evict_of(doc, "trainer-1")["target"] is None


def test_shared_claim_still_reserved_by_a_staying_pod_keeps_its_node(tmp_path):
    """A named claim allocated on n1 that a DaemonSet pod (left by --ignore-daemonsets) still
    reserves stays allocated there: every other node fails with the claim's node selector."""
    objs = [node("n1"), node("n2"), node("n3"), device_class(), rslice("n1", 1), rslice("n2", 1),
            claim("shared-gpu", "n1", ["gpu-0"], ["trainer-1", "monitor-n1"]),
            gpu_pod("trainer-1", "n1", claim_name="shared-gpu"),
            gpu_pod("monitor-n1", "n1", claim_name="shared-gpu", owner=("DaemonSet", "monitor"))]
    doc = plan("-f", write(tmp_path, "v1.34.0", *objs), "drain", "n1", "--ignore-daemonsets")
    assert evict_of(doc, "trainer-1")["target"] is None
    (short,) = doc["shortfall"]
    assert short["reason"].endswith(
        "0/3 nodes are available: 1 node(s) were unschedulable, 2 resourceclaim not available on the node. "
        "still not schedulable, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")


def test_named_claim_only_the_evicted_pod_held_is_deallocated_and_allocated_anew(tmp_path):
    """Once the evicted pod is gone nobody reserves the claim: DynamicResources' PostFilter
    deallocates it and the next attempt allocates a free GPU on n2."""
    objs = [node("n1"), node("n2"), node("n3"), device_class(), rslice("n1", 1), rslice("n2", 1),
            claim("own-gpu", "n1", ["gpu-0"], ["trainer-1"]), gpu_pod("trainer-1", "n1", claim_name="own-gpu")]
    doc = plan("-f", write(tmp_path, "v1.34.0", *objs), "drain", "n1")
    assert evict_of(doc, "trainer-1")["target"] == "n2"
    assert not doc["shortfall"]


def test_missing_device_class_is_a_prefilter_rejection(tmp_path):
    objs = [o for o in trainer_cluster(gpus_elsewhere=1) if o["kind"] != "DeviceClass"]
    # without any DeviceClass in the input the class is unknown, not missing: nothing asserted
    doc = plan("-f", write(tmp_path, "v1.34.0", *objs), "drain", "n1")
    assert not doc["shortfall"] and evict_of(doc, "trainer-1")["target"] == "n2"
    objs.append(device_class("nic.example.com", 'device.driver == "nic.example.com"'))
    doc = plan("-f", write(tmp_path, "v1.34.0", *objs), "drain", "n1")
    (short,) = doc["shortfall"]
    assert short["reason"].endswith(
        "0/3 nodes are available: request gpu: device class gpu.example.com does not exist. "
        # PreFilter stopped before recording the claims: PostFilter sees none
        "no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")


@pytest.mark.parametrize("other_claims", [False, True])
def test_missing_named_claim(tmp_path, other_claims):
    objs = [node("n1"), node("n2"), device_class(), rslice("n2", 1), gpu_pod("trainer-1", "n1", claim_name="gone")]
    if not other_claims:    # no ResourceClaim in the input at all: unknown, so not checked
        doc = plan("-f", write(tmp_path, "v1.34.0", *objs), "drain", "n1")
        assert not doc["shortfall"] and evict_of(doc, "trainer-1")["target"] == "n2"
        return
    objs.append(claim("other", "n2", ["gpu-0"], []))
    doc = plan("-f", write(tmp_path, "v1.34.0", *objs), "drain", "n1")
    assert 'could not find ResourceClaim "default/gone"' in doc["shortfall"][0]["reason"]
    assert "no new claims to deallocate, preemption:" in doc["shortfall"][0]["reason"]


def test_pod_claims_without_any_dra_objects_in_the_input_assert_nothing(tmp_path):
    objs = [node("n1"), node("n2"), gpu_pod("trainer-1", "n1", template_name="one-gpu")]
    r = run_cli("-f", write(tmp_path, "v1.34.0", *objs), "drain", "n1", "-o", "json")
    doc = json.loads(r.stdout)
    assert evict_of(doc, "trainer-1")["target"] == "n2" and not doc["shortfall"]
    # the verdict depends on the kinds the input lacks: listed (with PDBs), exit code 5
    dra = ["ResourceClaimTemplate", "DeviceClass", "ResourceSlice"]
    # (PDBs and the pod's ReplicaSet are not in the input either)
    assert [e["kind"] for e in doc["incomplete"] if e["kind"] not in ("PodDisruptionBudget", "ReplicaSet")] == dra
    assert all("ResourceClaims" in e["effect"] for e in doc["incomplete"] if e["kind"] in dra)
    # the pod whose target was found without those checks says so (DESIGN.md `incomplete`: "the
    # reasons of affected entries say 'not in the input'"), and the entries name it
    assert evict_of(doc, "trainer-1")["reason"].endswith(
        "(not in the input: DeviceClass, ResourceClaimTemplate, ResourceSlice; see incomplete)")
    assert all(e["effect"].endswith("for 1 pod (default/trainer-1)") for e in doc["incomplete"] if e["kind"] in dra)
    assert r.returncode == 5
    # before v1.34 the claims do not matter to the scheduler: no DRA kind is missing
    r = run_cli("-f", write(tmp_path, "v1.33.0", *objs, name="old.json"), "drain", "n1", "-o", "json")
    assert [e["kind"] for e in json.loads(r.stdout)["incomplete"]] == ["PodDisruptionBudget", "ReplicaSet"]


def test_snapshotinfo_kinds_make_an_absent_claim_a_fact(tmp_path):
    """A live read lists every DRA kind it read (SnapshotInfo.kinds), even when the cluster has
    none: a named claim that is not there is then missing, not unknown."""
    objs = [node("n1"), node("n2"), gpu_pod("trainer-1", "n1", claim_name="gone")]
    f = tmp_path / "k.json"
    si = info("v1.34.0")
    si["kinds"] = ["Node", "Pod", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "ResourceSlice"]
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [si, *objs]}))
    doc = plan("-f", str(f), "drain", "n1")
    assert 'could not find ResourceClaim "default/gone"' in doc["shortfall"][0]["reason"]
    assert "ResourceClaim" not in [e["kind"] for e in doc["incomplete"]]


def test_yaml_and_json_inputs_give_the_same_plan(tmp_path):
    """The fast JSON loader keeps only its schema's fields: the DRA fields must be in it."""
    objs = [info("v1.34.0"), *trainer_cluster(gpus_elsewhere=1)]
    j = tmp_path / "c.json"
    j.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    y = tmp_path / "c.yaml"
    y.write_text(yaml.safe_dump_all(objs))
    a, b = plan("-f", str(j), "drain", "n1"), plan("-f", str(y), "drain", "n1")
    assert a["actions"] == b["actions"] and evict_of(a, "trainer-1")["target"] == "n2"


# --- device taints -------------------------------------------------------------------------------

BROKEN = {"key": "gpu.example.com/unhealthy", "value": "ecc", "effect": "NoExecute", "timeAdded": "2026-11-21T11:58:00Z"}


@pytest.mark.parametrize("version, tolerations, at", [
    ("v1.35.2", None, None),              # DRADeviceTaints off before v1.36: nothing happens
    ("v1.36.0", None, 0),                 # tainted 2 minutes ago: due now
    ("v1.37.1", None, 0),
    # tolerationSeconds 600 from timeAdded 11:58 -> 12:08, i.e. +480s
    ("v1.36.0", [{"key": "gpu.example.com/unhealthy", "operator": "Exists", "effect": "NoExecute",
                  "tolerationSeconds": 600}], 480),
    # tolerated forever
    ("v1.36.0", [{"operator": "Exists", "effect": "NoExecute"}], None),
    # a toleration without effect NoExecute does not count for the controller
    ("v1.36.0", [{"operator": "Exists"}], 0),
])
def test_device_taint_eviction(tmp_path, version, tolerations, at):
    objs = [node("n1"), node("n2"), device_class(), rslice("n1", 2, taints={0: [BROKEN]}),
            claim("trainer-1-gpu-x7k2p", "n1", ["gpu-0"], ["trainer-1"], tolerations=tolerations, owner="trainer-1"),
            gpu_pod("trainer-1", "n1", template_name="one-gpu", generated="trainer-1-gpu-x7k2p"), template(),
            claim("trainer-2-gpu-q9w8e", "n1", ["gpu-1"], ["trainer-2"], owner="trainer-2"),
            gpu_pod("trainer-2", "n1", template_name="one-gpu", generated="trainer-2-gpu-q9w8e")]
    doc = plan("-f", write(tmp_path, version, *objs), "controller")
    deletes = [a for a in doc["actions"] if a["type"] == "delete"]
    if at is None:
        assert not deletes
        return
    (d,) = deletes          # trainer-2's device is not tainted
    assert d["pod"] == "trainer-1" and d["at"] == at and d["by"] == "device-taint-eviction-controller"
    assert "gpu.example.com/n1/gpu-0: gpu.example.com/unhealthy=ecc:NoExecute" in d["reason"]
    assert "DeletionByDeviceTaintManager" in d["reason"]
    # the replacement's new claim skips the tainted device (the allocator honours device taints)
    # and takes none on n1 (gpu-1 is held by trainer-2), and n2 has no GPUs
    assert d["target"] is None
    assert doc["shortfall"][0]["pod"] == "trainer-1"


@pytest.mark.parametrize("horizon, deletes, warning", [
    ("15m", [480], None),
    # issue 4: --horizon cuts the timeline; actions after it are omitted with a warning saying how many
    ("300s", [], "1 action after the 5m horizon is omitted (raise --horizon to see them)"),
])
def test_device_taint_deletion_after_the_horizon_is_counted(tmp_path, horizon, deletes, warning):
    tolerations = [{"key": "gpu.example.com/unhealthy", "operator": "Exists", "effect": "NoExecute",
                    "tolerationSeconds": 600}]
    objs = [node("n1"), node("n2"), device_class(), rslice("n1", 2, taints={0: [BROKEN]}),
            claim("trainer-1-gpu-x7k2p", "n1", ["gpu-0"], ["trainer-1"], tolerations=tolerations, owner="trainer-1"),
            gpu_pod("trainer-1", "n1", template_name="one-gpu", generated="trainer-1-gpu-x7k2p"), template()]
    doc = plan("-f", write(tmp_path, "v1.36.0", *objs), "controller", "--horizon", horizon)
    assert [a["at"] for a in doc["actions"] if a["type"] == "delete"] == deletes
    assert [w for w in doc["warnings"] if "horizon" in w] == ([warning] if warning else [])


# --- bad input -------------------------------------------------------------------------------------

@pytest.mark.parametrize("obj, where, field, problem", [
    (dict(rslice("n1", 1, taints={0: [{"key": "k", "effect": "Sometimes"}]})), "ResourceSlice n1-gpu.example.com",
     "spec.devices[0].taints[0].effect", "unknown device taint effect"),
    ({**template(), "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
        "deviceClassName": DRIVER, "count": "two"}}]}}}}, "ResourceClaimTemplate default/one-gpu",
     "spec.spec.devices.requests[0].exactly.count", "expected an integer"),
    ({**template(), "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
        "deviceClassName": DRIVER, "allocationMode": "Some"}}]}}}}, "ResourceClaimTemplate default/one-gpu",
     "spec.spec.devices.requests[0].exactly.allocationMode", "expected ExactCount or All"),
    ({**claim("c", "n1", ["gpu-0"], []), "status": {"allocation": {"devices": {"results": "gpu-0"}}}},
     "ResourceClaim default/c", "status.allocation.devices.results", "expected a list"),
    ({**device_class(), "spec": {"selectors": [{"cel": {"expression": 7}}]}}, "DeviceClass gpu.example.com",
     "spec.selectors[0].cel.expression", "expected a string"),
    ({**gpu_pod("p", "n1", claim_name="c"), "spec": {**gpu_pod("p", "n1", claim_name="c")["spec"], "resourceClaims": [
        {"name": "gpu", "resourceClaimName": "c", "resourceClaimTemplateName": "t"}]}}, "Pod default/p",
     "spec.resourceClaims[0]", "exactly one of resourceClaimName and resourceClaimTemplateName"),
])
@pytest.mark.parametrize("ext", ["json", "yaml"])
def test_malformed_dra_objects_are_one_clean_error(tmp_path, obj, where, field, problem, ext):
    items = [info("v1.34.0"), node("n1"), obj]
    f = tmp_path / ("bad." + ext)
    f.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}) if ext == "json"
                 else yaml.safe_dump_all(items))
    r = run_cli("-f", str(f), "drain", "n1")
    assert r.returncode == 1, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in r.stderr
    for needle in (where, field, problem):
        assert needle in lines[0], (needle, lines[0])


# --- live ------------------------------------------------------------------------------------------

def test_live_read_lists_the_dra_kinds_and_plans_like_the_file(tmp_path):
    objs = trainer_cluster(gpus_elsewhere=1)
    f = write(tmp_path, None, *objs)
    with ApiServer(with_owners(objs)) as srv:     # the cluster has the pods' controllers, as the file has
        kc = str(srv.write_kubeconfig(tmp_path / "kc"))
        snap = run_cli("--kubeconfig", kc, "snapshot", "--no-kubelet")
        red = run_cli("--kubeconfig", kc, "snapshot", "--no-kubelet", "--redact")
        live_plan = plan("--kubeconfig", kc, "--now", NOW, "drain", "n1")
        paths = [p for m, p in srv.requests]
    assert snap.returncode == 0 and red.returncode == 0, snap.stderr + red.stderr
    kinds = [i["kind"] for i in json.loads(snap.stdout)["items"]]
    for kind in ("ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "ResourceSlice"):
        assert kind in kinds
    assert any(p.startswith("/apis/resource.k8s.io/v1/resourceslices") for p in paths)
    # --redact drops the opaque driver parameters, keeps what placement reads
    assert "hunter2" in snap.stdout and "hunter2" not in red.stdout
    assert '"nodeSelector"' in red.stdout and '"gpu-0"' in red.stdout
    # live planning: the file's plan (server version from the test server)
    assert evict_of(live_plan, "trainer-1")["target"] == evict_of(
        plan("-f", write(tmp_path, live_plan_version(snap.stdout), *objs, name="v.json"), "drain", "n1"),
        "trainer-1")["target"]


def live_plan_version(snapshot_json: str) -> str:
    return json.loads(snapshot_json)["items"][0]["serverVersion"]


def test_a_server_without_resource_k8s_io_v1_has_no_dra_objects(tmp_path):
    """Before v1.34 the group version is not served (404): the read goes on without DRA."""
    with ApiServer(trainer_cluster()) as srv:
        srv.faults.add("GET", r"^/apis/resource\.k8s\.io/", status=404, times=None)
        kc = str(srv.write_kubeconfig(tmp_path / "kc"))
        r = run_cli("--kubeconfig", kc, "snapshot", "--no-kubelet")
    assert r.returncode == 0, r.stderr
    kinds = {i["kind"] for i in json.loads(r.stdout)["items"]}
    assert "Pod" in kinds and not kinds & {"ResourceClaim", "ResourceSlice", "DeviceClass", "ResourceClaimTemplate"}


# --- DeviceClass driver pins (the one CEL form read) -------------------------------------------------

@pytest.mark.parametrize("exprs, drivers", [
    (['device.driver == "gpu.example.com"'], ("gpu.example.com",)),
    (["device.driver == 'nic.example.com' && device.attributes['nic.example.com'].rdma"], ("nic.example.com",)),
    (['device.attributes["gpu.example.com"].model == "T4"', 'device.driver == "gpu.example.com"'], ("gpu.example.com",)),
    # a disjunction pins nothing: any device may match
    (['device.driver == "a.example.com" || device.driver == "b.example.com"'], ()),
    (["device.capacity['x'].memory.compareTo(quantity('1Gi')) >= 0"], ()),
    ([], ()),
])
def test_device_class_driver_pin(exprs, drivers):
    from kubectl_evict.source.freeze_dra import class_drivers
    assert class_drivers(exprs) == drivers


@pytest.mark.parametrize("feature, release, on", [
    # default_plugins.go: DynamicResources in the default profile once DynamicResourceAllocation is GA (v1.34)
    ("DynamicResources", (1, 33, 9), False), ("DynamicResources", (1, 34, 0), True), ("DynamicResources", (1, 37, 0), True),
    # DRADeviceTaints: alpha (off) v1.33-v1.35, beta on v1.36, GA v1.37
    ("DRADeviceTaints", (1, 35, 9), False), ("DRADeviceTaints", (1, 36, 0), True), ("DRADeviceTaints", (1, 37, 2), True),
])
def test_feature_table(feature, release, on):
    from kubectl_evict.versions import feature_applies
    assert feature_applies(feature, release) is on


def test_v1beta1_shapes_read_like_v1(tmp_path):
    """v1beta1 (v1.32/v1.33 servers, older snapshots) has the request's fields inline and the
    device's under `basic`: same plan as the v1 objects."""
    def beta(o: dict) -> dict:
        o = json.loads(json.dumps(o))
        o["apiVersion"] = "resource.k8s.io/v1beta1"
        if o["kind"] == "ResourceClaimTemplate":
            for r in o["spec"]["spec"]["devices"]["requests"]:
                r.update(r.pop("exactly"))
        if o["kind"] == "ResourceSlice":
            o["spec"]["devices"] = [{"name": d["name"], "basic": {k: v for k, v in d.items() if k != "name"}}
                                    for d in o["spec"]["devices"]]
        return o
    objs = trainer_cluster(gpus_elsewhere=1) + [
        claim("trainer-2-gpu-a1b2c", "n1", ["gpu-1"], ["trainer-2"], owner="trainer-2"),
        gpu_pod("trainer-2", "n1", template_name="one-gpu", generated="trainer-2-gpu-a1b2c")]
    a = plan("-f", write(tmp_path, "v1.34.0", *objs), "drain", "n1")
    b = plan("-f", write(tmp_path, "v1.34.0", *[beta(o) if o["apiVersion"].startswith("resource") else o
                                               for o in objs], name="beta.json"), "drain", "n1")
    assert a["actions"] == b["actions"] and a["shortfall"] == b["shortfall"]
    assert [evict_of(b, p)["target"] for p in ("trainer-2", "trainer-1")] == ["n2", None]


def test_postfilter_deallocates_only_claims_a_filter_found_pinned_elsewhere(tmp_path):
    """`unavailableClaims` is filled by DynamicResources' Filter: when every other node already
    fails NodeResourcesFit, its Filter never runs there and PostFilter deallocates nothing."""
    big = gpu_pod("trainer-1", "n1", claim_name="own-gpu")
    big["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "3"
    objs = [node("n1"), node("n2", cpu="2"), node("n3", cpu="2"), device_class(), rslice("n1", 1), rslice("n2", 1),
            claim("own-gpu", "n1", ["gpu-0"], ["trainer-1"]), big]
    doc = plan("-f", write(tmp_path, "v1.34.0", *objs), "drain", "n1")
    (short,) = doc["shortfall"]
    assert short["reason"].endswith(
        "0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient cpu. still not schedulable, "
        "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, "
        "2 No preemption victims found for incoming pod."), short["reason"]


def test_per_device_node_selection_and_all_nodes_slices(tmp_path):
    """A slice with `perDeviceNodeSelection` names each device's node; an `allNodes` slice's
    devices are reachable from every node (and taken once for all)."""
    per_device = {"apiVersion": V1, "kind": "ResourceSlice", "metadata": {"name": "fabric"},
                  "spec": {"driver": DRIVER, "pool": {"name": "fabric", "generation": 1, "resourceSliceCount": 1},
                           "perDeviceNodeSelection": True,
                           "devices": [{"name": "gpu-x", "nodeName": "n3"}]}}
    objs = trainer_cluster() + [per_device]
    doc = plan("-f", write(tmp_path, "v1.34.0", *objs), "drain", "n1")
    assert evict_of(doc, "trainer-1")["target"] == "n3"
    shared = {"apiVersion": V1, "kind": "ResourceSlice", "metadata": {"name": "network"},
              "spec": {"driver": DRIVER, "pool": {"name": "network", "generation": 1, "resourceSliceCount": 1},
                       "allNodes": True, "devices": [{"name": "gpu-net"}]}}
    objs = trainer_cluster() + [shared,
                                claim("trainer-2-gpu-a1b2c", "n1", ["gpu-1"], ["trainer-2"], owner="trainer-2"),
                                gpu_pod("trainer-2", "n1", template_name="one-gpu", generated="trainer-2-gpu-a1b2c")]
    doc = plan("-f", write(tmp_path, "v1.34.0", *objs, name="all.json"), "drain", "n1")
    targets = [evict_of(doc, p)["target"] for p in ("trainer-1", "trainer-2")]
    assert targets.count(None) == 1 and set(targets) - {None} <= {"n2", "n3"}


def test_controller_lists_missing_dra_kinds_for_device_taints(tmp_path):
    objs = [node("n1"), node("n2"), gpu_pod("trainer-1", "n1", claim_name="c")]
    r = run_cli("-f", write(tmp_path, "v1.36.0", *objs), "controller", "-o", "json")
    kinds = [e["kind"] for e in json.loads(r.stdout)["incomplete"]]
    assert "ResourceClaim" in kinds and "ResourceSlice" in kinds and r.returncode == 5
    r = run_cli("-f", write(tmp_path, "v1.35.0", *objs, name="old.json"), "controller", "-o", "json")
    kinds = [e["kind"] for e in json.loads(r.stdout)["incomplete"]]
    assert "ResourceClaim" not in kinds and "ResourceSlice" not in kinds


@pytest.mark.parametrize("n2_held, target", [(False, "n2"), (True, None)])
def test_allocation_mode_all_needs_every_matching_device_free(tmp_path, n2_held, target):
    """structured allocator: an `All` request takes every matching device of the node and fails
    when one of them is allocated to another claim."""
    all_tmpl = template()
    all_tmpl["spec"]["spec"]["devices"]["requests"][0]["exactly"] = {"deviceClassName": DRIVER, "allocationMode": "All"}
    objs = [o if o["kind"] != "ResourceClaimTemplate" else all_tmpl for o in trainer_cluster(gpus_elsewhere=2)]
    if n2_held:
        objs.append(claim("other", "n2", ["gpu-1"], ["x"]))
    doc = plan("-f", write(tmp_path, "v1.34.0", *objs), "drain", "n1")
    assert evict_of(doc, "trainer-1")["target"] == target
