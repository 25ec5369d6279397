"""The two JSON readers give the same snapshot and the same errors.

With msgspec (the wheel install) pod subtrees reach the freezer as raw JSON text and are projected
once per distinct text; without it (the pure-Python krew archive) every value is a plain dict or
list. Whatever the path, a user must get the same plan and the same one-line error.
"""

import copy
import glob
import json
import os

import pytest
import yaml

from conftest import node, pod, snapshot_list
from kubectl_evict.errors import InputError
from kubectl_evict.source import documents
from kubectl_evict.source.files import load_snapshot

HERE = os.path.dirname(os.path.abspath(__file__))
REAL = sorted(glob.glob(os.path.join(HERE, "data", "real", "*", "*.json")))


def _both(paths, monkeypatch):
    """(snapshot via msgspec, snapshot via the stdlib)."""
    assert documents.fastjson is not None, "these tests compare against the msgspec path"
    fast = load_snapshot(paths)
    with monkeypatch.context() as m:
        m.setattr(documents, "fastjson", None)
        slow = load_snapshot(paths)
    return fast, slow


def _error(paths, monkeypatch, stdlib):
    with monkeypatch.context() as m:
        if stdlib:
            m.setattr(documents, "fastjson", None)
        with pytest.raises(InputError) as e:
            load_snapshot(paths)
    return str(e.value)


def _template_pods():
    """Pods of one template (shared subtrees) plus every subtree shape the freezer reads."""
    base = pod("web-a", "n1", ns="shop", labels={"app": "web", "pod-template-hash": "abc"},
               tolerations=[{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                             "tolerationSeconds": 300}],
               node_selector={"pool": "general"},
               affinity={"nodeAffinity": {
                   "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                       {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1", "z2"]}]}]},
                   "preferredDuringSchedulingIgnoredDuringExecution": [
                       {"weight": 10, "preference": {"matchExpressions": [{"key": "ssd", "operator": "Exists"}]}}]},
                   "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                       {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}})
    base["spec"]["volumes"] = [
        {"name": "scratch", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}},
        {"name": "data", "persistentVolumeClaim": {"claimName": "data-web"}},
        {"name": "cfg", "configMap": {"name": "web"}, "secret": None},
        {"name": "kube-api-access-x1", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}},
        {"name": "host", "hostPath": {"path": "/var/log"}},
    ]
    base["spec"]["initContainers"] = [
        {"name": "sidecar", "restartPolicy": "Always", "resources": {"requests": {"cpu": "50m"}}},
        {"name": "migrate", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"memory": "1Gi"}}},
    ]
    base["spec"]["overhead"] = {"cpu": "10m"}
    base["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    base["spec"]["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                                                  "labelSelector": {"matchLabels": {"app": "web"}}}]
    base["status"]["startTime"] = "2026-11-20T10:00:00Z"
    twin = copy.deepcopy(base)
    twin["metadata"].update(name="web-b", uid="uid-web-b")
    twin["status"].update(startTime="2026-11-20T11:00:00Z", nominatedNodeName="n1")
    twin["spec"]["nodeName"] = "n2"
    twin["spec"]["volumes"][3]["name"] = "kube-api-access-x2"
    nulls = pod("nulls", "n2", ns="shop")
    for field in ("labels", "annotations", "ownerReferences"):
        nulls["metadata"][field] = None
    for field in ("tolerations", "nodeSelector", "affinity", "volumes", "overhead"):
        nulls["spec"][field] = None
    nulls["spec"]["containers"][0]["resources"] = None
    ds = pod("agent-x", "n1", ns="kube-system", owner=("DaemonSet", "agent"), node_selector={"pool": "general"},
             annotations={"evictplan.io/node-affinity": "RequiredDuringExecution", "note": "dropped"})
    ds["spec"]["hostNetwork"] = True
    level = pod("pod-level", "n2", ns="shop")
    level["spec"]["resources"] = {"requests": {"cpu": "2", "memory": "1Gi"}, "limits": {"cpu": "2", "memory": "1Gi"}}
    level["status"].pop("qosClass", None)   # computed: pod-level values replace the containers'
    return [base, twin, nulls, ds, level]


def _owners():
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "rs", "namespace": "shop", "uid": "uid-rs",
                       "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                                            "uid": "uid-web", "controller": True}]},
          "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"},
                                               "matchExpressions": [{"key": "tier", "operator": "NotIn",
                                                                     "values": ["db"]}]}}}
    rc = {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "old", "namespace": "shop"},
          "spec": {"replicas": 1, "selector": {"app": "old"}}}
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "shop"},
           "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
           "status": {"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2}}
    return [rs, rc, pdb]


def test_template_pods_and_owners_load_the_same_either_way(tmp_path, monkeypatch):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(snapshot_list(node("n1"), node("n2"), *_template_pods(), *_owners())))
    fast, slow = _both([str(f)], monkeypatch)
    assert fast == slow
    web_a, web_b = fast.pods_by_key[("shop", "web-a")], fast.pods_by_key[("shop", "web-b")]
    assert [(v.name, v.kind) for v in web_a.volumes] == [
        ("scratch", "emptyDir"), ("data", "persistentVolumeClaim"), ("cfg", "configMap"),
        ("kube-api-access-x1", "projected"), ("host", "hostPath")]
    assert web_a.volumes[0].size_limit == 64 * 1024 ** 2 and web_a.volumes[1].claim_name == "data-web"
    # one template: the second pod shares the first one's records, only its own fields differ
    assert web_b.tolerations is web_a.tolerations and web_b.containers is web_a.containers
    assert web_b.volumes[3].name == "kube-api-access-x2"
    assert web_b.spread_constraints is web_a.spread_constraints and web_a.spread_constraints[0].max_skew == 1
    assert (web_a.start_time, web_a.nominated_node_name) == (1795168800.0, "")
    assert (web_b.start_time, web_b.nominated_node_name) == (1795172400.0, "n1")
    # upstream PodRequests: the plain init container runs beside the sidecar started before it
    # (1000m + 50m) and that beats the regular containers (100m + 50m); then the overhead (10m)
    assert web_a.requests["cpu"] == 1000 + 50 + 10
    agent = fast.pods_by_key[("kube-system", "agent-x")]
    assert agent.required_during_execution is not None and dict(agent.annotations) == {
        "evictplan.io/node-affinity": "RequiredDuringExecution"}
    assert {t.key for t in agent.tolerations} >= {"node.kubernetes.io/unreachable", "node.kubernetes.io/network-unavailable"}
    assert fast.pods_by_key[("shop", "pod-level")].qos == "Guaranteed"
    assert fast.owners[("ReplicaSet", "shop", "rs")].controller.name == "web"


def test_typed_lists_without_item_kinds_load_the_same(tmp_path, monkeypatch):
    pods = _template_pods()
    for p in pods:
        del p["kind"]
    (tmp_path / "pods.json").write_text(json.dumps({"apiVersion": "v1", "kind": "PodList", "items": pods}))
    (tmp_path / "nodes.json").write_text(json.dumps(snapshot_list(node("n1"), node("n2"))))
    fast, slow = _both([str(tmp_path)], monkeypatch)
    assert fast == slow and len(fast.pods) == len(pods)


def test_a_volume_source_the_fast_schema_does_not_list_takes_the_stdlib_path(tmp_path, monkeypatch):
    p = pod("future", "n1")
    p["spec"]["volumes"] = [{"name": "v", "quantumDisk": {"id": "q"}}]
    f = tmp_path / "s.json"
    f.write_text(json.dumps(snapshot_list(node("n1"), p)))
    fast, slow = _both([str(f)], monkeypatch)
    assert fast == slow
    assert [(v.name, v.kind) for v in fast.pods[0].volumes] == [("v", "quantumDisk")]


@pytest.mark.parametrize("path", REAL, ids=lambda p: os.path.relpath(p, os.path.join(HERE, "data", "real")))
def test_real_files_load_the_same_either_way(path, monkeypatch):
    """Each file alone: the same snapshot, or (a kubelet /configz alone names no node) the same error."""
    try:
        fast, slow = _both([path], monkeypatch)
    except InputError:
        assert _error([path], monkeypatch, stdlib=False) == _error([path], monkeypatch, stdlib=True)
        return
    assert fast == slow


def _bad(mutate):
    good = _template_pods()
    mutate(good[1])   # the second pod of the template: its subtree differs from the cached one
    return snapshot_list(node("n1"), node("n2"), *good)


BAD = [
    (lambda p: p["spec"]["tolerations"][0].update(effect="Sometimes"),
     ["Pod shop/web-b", "spec.tolerations[0].effect", "unknown taint effect"]),
    (lambda p: p["spec"]["tolerations"][0].update(operator="Within"),
     ["Pod shop/web-b", "spec.tolerations[0].operator", 'Unsupported value: "Within"']),
    (lambda p: p.update(kind={"a": "b"}), ["items[4]", "kind", "expected a string, found an object"]),
    (lambda p: p["metadata"]["labels"].update(app=5), ["Pod shop/web-b", "metadata.labels.app", "must be a string"]),
    (lambda p: p["spec"]["containers"][0]["resources"]["requests"].update(cpu="lots"),
     ["Pod shop/web-b", "spec.containers[0].resources.requests.cpu", "lots"]),
    (lambda p: p["spec"]["volumes"][0]["emptyDir"].update(sizeLimit="big"),
     ["Pod shop/web-b", "spec.volumes[0].emptyDir.sizeLimit", "big"]),
    (lambda p: p["spec"]["affinity"]["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"][0].update(
        weight="heavy"), ["Pod shop/web-b", "preferredDuringSchedulingIgnoredDuringExecution[0].weight", "integer"]),
    (lambda p: p["metadata"].update(ownerReferences=[{"kind": "ReplicaSet", "name": 7}]),
     ["Pod shop/web-b", "metadata.ownerReferences[0].name", "expected a string"]),
    (lambda p: p["spec"].update(nodeName=["n1"]), ["Pod shop/web-b", "spec.nodeName", "expected a string"]),
    (lambda p: p["status"].update(conditions=[5]), ["Pod shop/web-b", "status.conditions[0]", "expected an object"]),
    (lambda p: p["metadata"].update(creationTimestamp="2026-11-20T24:00:00Z"),
     ["Pod shop/web-b", "metadata.creationTimestamp", "2026-11-20T24:00:00Z"]),
    (lambda p: p["metadata"].update(creationTimestamp="2023-02-29T10:00:00Z"),
     ["Pod shop/web-b", "metadata.creationTimestamp", "2023-02-29"]),
    # the same template but for one scalar that compares equal to the first pod's (True == 1):
    # the per-template memo must not take it for the first pod's valid value
    (lambda p: p["spec"].update(priority=True), ["Pod shop/web-b", "spec.priority", "boolean true"]),
    (lambda p: p["spec"].update(hostNetwork=0), ["Pod shop/web-b", "spec.hostNetwork", "true or false"]),
    (lambda p: p["spec"].update(terminationGracePeriodSeconds="30"),
     ["Pod shop/web-b", "spec.terminationGracePeriodSeconds", "expected an integer"]),
    (lambda p: p["spec"].update(terminationGracePeriodSeconds=-1),
     ["Pod shop/web-b", "spec.terminationGracePeriodSeconds"]),
    (lambda p: p["spec"].update(preemptionPolicy=1), ["Pod shop/web-b", "spec.preemptionPolicy", "expected a string"]),
    (lambda p: p["status"].update(conditions="Ready"), ["Pod shop/web-b", "status.conditions", "expected a list"]),
    # the hour of the first pod's startTime (10:00) is known; its minutes and seconds are not
    (lambda p: p["status"].update(startTime="2026-11-20T10:60:00Z"),
     ["Pod shop/web-b", "status.startTime", "2026-11-20T10:60:00Z"]),
    (lambda p: p["status"].update(startTime="2026-11-20T10:0a:00Z"),
     ["Pod shop/web-b", "status.startTime", "2026-11-20T10:0a:00Z"]),
]


def test_timestamps_read_the_same_either_way(tmp_path, monkeypatch):
    stamps = ["2026-11-20T18:34:01Z", "2024-02-29T23:59:59Z", "2026-11-20t18:34:01Z", "2026-11-20T18:34:01.25Z",
              "2026-11-20T18:34:01+02:00", "1970-01-01T00:00:00Z", "2026-11-20T18:00:00Z", "2026-11-20T18:59:59Z"]
    pods = []
    for i, ts in enumerate(stamps):
        p = pod("p%d" % i, "n1")
        p["metadata"]["creationTimestamp"] = ts
        pods.append(p)
    f = tmp_path / "s.json"
    f.write_text(json.dumps(snapshot_list(node("n1"), *pods)))
    fast, slow = _both([str(f)], monkeypatch)
    assert fast == slow
    assert [p.creation_timestamp for p in fast.pods] == [
        1795199641.0, 1709251199.0, 1795199641.0, 1795199641.25, 1795199641.0 - 7200, 0.0,
        1795197600.0, 1795201199.0]


@pytest.mark.parametrize("field,good,bad,problem", [
    ("priority", 1, True, "expected an integer, found boolean true"),
    ("hostNetwork", False, 0, "expected true or false, found number 0"),
    ("hostNetwork", True, 1, "expected true or false, found number 1"),
])
def test_a_value_equal_to_a_valid_one_of_another_type_is_still_refused(tmp_path, monkeypatch, field, good, bad,
                                                                         problem):
    """Pods of one template are projected once; a field whose value compares equal to the first
    pod's (Python's True == 1) but has the wrong JSON type is still an error, as for any pod."""
    pods = _template_pods()[:2]
    pods[0]["spec"][field] = good
    pods[1]["spec"][field] = bad
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(snapshot_list(node("n1"), node("n2"), *pods)))
    for stdlib in (False, True):
        msg = _error([str(f)], monkeypatch, stdlib=stdlib)
        assert "Pod shop/web-b" in msg and "spec." + field in msg and problem in msg, msg


@pytest.mark.parametrize("mutate,fragments", BAD)
def test_errors_name_the_same_file_object_and_field_either_way(tmp_path, monkeypatch, mutate, fragments):
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(_bad(mutate)))
    fast = _error([str(f)], monkeypatch, stdlib=False)
    slow = _error([str(f)], monkeypatch, stdlib=True)
    assert fast == slow
    for frag in ["bad.json"] + fragments:
        assert frag in fast


def test_a_large_file_is_parsed_from_a_memory_map_with_the_same_result(tmp_path, monkeypatch):
    """Files of 1 MiB and more are parsed in place (mmap); the snapshot is the one read() gives,
    on the msgspec path and on the stdlib path."""
    from kubectl_evict.source import files
    objs = [node("n%d" % i) for i in range(20)] + _template_pods() * 1 + [
        pod("p%04d" % i, "n%d" % (i % 20), labels={"app": "a%d" % (i % 7)}) for i in range(2500)]
    f = tmp_path / "big.json"
    f.write_text(json.dumps(snapshot_list(*objs)))
    assert f.stat().st_size > files._MAP_MIN_BYTES
    assert files._mapped(str(f)) is not None
    mapped_fast, mapped_slow = _both([str(f)], monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(files, "_mapped", lambda path: None)
        read_fast, read_slow = _both([str(f)], monkeypatch)
    assert mapped_fast == read_fast == mapped_slow == read_slow
    assert len(mapped_fast.pods) == 2505


def test_json_after_a_long_run_of_blank_space_is_still_json(tmp_path):
    f = tmp_path / "padded.json"
    f.write_text(" \n" * 5000 + json.dumps(snapshot_list(node("n1"), pod("p", "n1"))))
    snap = load_snapshot([str(f)])
    assert [p.name for p in snap.pods] == ["p"]


def test_kubelet_documents_and_nested_lists_load_the_same_either_way(tmp_path, monkeypatch):
    """What the fast reader hands over as bytes (kubelet configs and stats summaries) and what it
    must decode in full (kinds the freezer takes as plain values); a List inside the List is
    unwrapped by both readers, as kubectl's FlattenListVisitor does."""
    summary = {"node": {"nodeName": "n1", "memory": {"availableBytes": 10, "workingSetBytes": 5}},
               "pods": [{"podRef": {"name": "p", "namespace": "default", "uid": "uid-p"},
                         "memory": {"workingSetBytes": 3}}]}
    docs = [
        node("n1"), pod("p", "n1"),
        {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n1"},
         "kubeletconfig": {"evictionHard": {"memory.available": "100Mi"}}},
        {"apiVersion": "evictplan/v1alpha1", "kind": "NodeStatsSummary", "metadata": {"name": "n1"}, "summary": summary},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high",
                                                                                     "labels": {"a": "b"}},
         "value": 1000},
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default", "labels": {"team": "x"}}},
        {"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "nested"},
             "value": 5}]},
    ]
    f = tmp_path / "kubelet.json"
    f.write_text(json.dumps(snapshot_list(*docs)))
    fast, slow = _both([str(f)], monkeypatch)
    assert fast == slow
    assert fast.stats["n1"]["node"]["memory"]["availableBytes"] == 10
    assert fast.kubelet_configs["n1"]["evictionHard"] == {"memory.available": "100Mi"}
    assert fast.priority_classes["high"].value == 1000 and fast.priority_classes["nested"].value == 5
    assert fast.namespaces["default"].labels == {"team": "x", "kubernetes.io/metadata.name": "default"}   # SetDefaults_Namespace


def test_a_live_pod_page_decodes_and_projects_like_the_generic_schema(monkeypatch):
    """Live pod pages are decoded with the pod's fields only (fastjson.POD_FIELDS); every pod
    shape the freezer reads must come out, and project, exactly as the generic schema gives it."""
    from kubectl_evict.source import fastjson
    from kubectl_evict.source.freeze import Freezer

    dra = pod("gpu-a", "n1", ns="ml")
    dra["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "gpu-tpl"}]
    dra["status"]["resourceClaimStatuses"] = [{"name": "gpu", "resourceClaimName": "gpu-a-gpu-x1"}]
    dra["spec"].update(priority=100, priorityClassName="high", terminationGracePeriodSeconds=5,
                       preemptionPolicy="Never", schedulerName="other")
    dra["spec"]["taints"] = "a node's field: skipped for a pod either way"
    pods = _template_pods() + [dra]
    for p in pods:
        p.pop("kind"), p.pop("apiVersion")
    page = json.dumps({"metadata": {"resourceVersion": "7", "continue": "c", "remainingItemCount": 3},
                       "items": pods}).encode()

    def plain(v):   # raw subtrees as their bytes, volume structs as dicts
        if isinstance(v, fastjson.Raw):
            return ("raw", bytes(v))
        if isinstance(v, dict):
            return {k: plain(x) for k, x in v.items()}
        if isinstance(v, list):
            return [plain(x) for x in v]
        return v

    def read():
        meta, items = fastjson.loads_page(page, "Pod", "v1")
        freezer = Freezer()
        freezer.add_page("Pod", "live", items)
        return meta, plain(items), freezer.build()

    meta, narrow, snap = read()
    with monkeypatch.context() as m:
        m.delitem(fastjson._PAGE_DECODERS, "Pod")
        generic_meta, generic, generic_snap = read()
    assert meta == generic_meta == {"resourceVersion": "7", "continue": "c", "remainingItemCount": 3}
    assert [{k: v for k, v in p["spec"].items() if k != "taints"} for p in generic] == [p["spec"] for p in narrow]
    assert [{k: v for k, v in p.items() if k != "spec"} for p in generic] == [
        {k: v for k, v in p.items() if k != "spec"} for p in narrow]
    assert snap == generic_snap and len(snap.pods) == len(pods)
    gpu = snap.pods_by_key[("ml", "gpu-a")]
    assert (gpu.priority, gpu.termination_grace_period, gpu.preemption_policy) == (100, 5, "Never")
    assert gpu.resource_claims[0].generated == "gpu-a-gpu-x1"


@pytest.mark.parametrize("shape", ["list-in-list", "typed-lists-in-list", "list-in-list-in-list"])
def test_a_list_inside_a_list_reads_as_its_items(tmp_path, monkeypatch, shape):
    """kubectl flattens nested lists (cli-runtime resource/visitor.go, FlattenListVisitor): the
    nodes and pods of a List held in a List are read, on both JSON paths and from YAML, and the
    snapshot is the flat file's."""
    nodes, pods = [node("n1"), node("n2")], _template_pods()
    flat = tmp_path / "flat.json"
    flat.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": nodes + pods}))
    if shape == "list-in-list":
        nested = {"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "List",
                                                                 "items": nodes + pods}]}
    elif shape == "typed-lists-in-list":   # typed lists' items name no kind (raw list endpoints)
        strip = [{k: v for k, v in o.items() if k != "kind"} for o in nodes + pods]
        nested = {"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "NodeList", "items": strip[:2]},
            {"apiVersion": "v1", "kind": "PodList", "items": strip[2:]}]}
    else:
        nested = {"apiVersion": "v1", "kind": "List", "items": [{"kind": "List", "items": [
            {"kind": "List", "items": nodes}, {"kind": "List", "items": pods}]}]}
    f = tmp_path / "nested.json"
    f.write_text(json.dumps(nested))
    y = tmp_path / "nested.yaml"
    y.write_text(yaml.safe_dump(nested))
    fast, slow = _both([str(f)], monkeypatch)
    expected = load_snapshot([str(flat)])
    assert fast.nodes == slow.nodes == expected.nodes and fast.pods == slow.pods == expected.pods
    from_yaml = load_snapshot([str(y)])
    assert from_yaml.nodes == expected.nodes and from_yaml.pods == expected.pods
