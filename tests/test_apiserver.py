"""The test API server behaves like upstream for the real kubectl and the kubernetes client."""

from __future__ import annotations

import http.client
import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import kubernetes
import pytest
import urllib3

sys.path.insert(0, str(Path(__file__).resolve().parent))
from apiserver import ApiServer  # noqa: E402

KUBECTL = shutil.which("kubectl")


def test_kubectl_and_openssl_are_on_path():
    """The real-client tests below need both; a machine without them must fail, not skip."""
    assert KUBECTL, "kubectl must be on PATH"
    assert shutil.which("openssl"), "openssl must be on PATH (TLS tests)"


# --------------------------------------------------------------------------------------------
# fixture cluster
# --------------------------------------------------------------------------------------------

def node(name, ready=True, **spec):
    return {"kind": "Node", "apiVersion": "v1",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "node-role.kubernetes.io/worker": ""},
                         "creationTimestamp": "2025-06-01T00:00:00Z"},
            "spec": spec,
            "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
                       "addresses": [{"type": "InternalIP", "address": f"10.0.0.{name[-1]}"}],
                       "nodeInfo": {"kubeletVersion": "v1.32.1", "kubeProxyVersion": "", "architecture": "amd64",
                                    "bootID": "b", "containerRuntimeVersion": "containerd://2.0.0",
                                    "kernelVersion": "6.1.0", "machineID": "m", "operatingSystem": "linux",
                                    "osImage": "Debian", "systemUUID": "s"},
                       "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}


def pod(ns, name, node_name, labels=None, phase="Running", ready=True, owner=None, deleting=False):
    md = {"name": name, "namespace": ns, "labels": labels or {}}
    if owner:
        md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner[0], "name": owner[1],
                                  "uid": f"uid-{owner[1]}", "controller": True}]
    if deleting:
        md["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {"kind": "Pod", "apiVersion": "v1", "metadata": md,
            "spec": {"nodeName": node_name, "containers": [{"name": "c", "image": "img"}]},
            "status": {"phase": phase,
                       "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
                       "containerStatuses": [{"name": "c", "image": "img", "imageID": "img@sha",
                                              "ready": ready, "restartCount": 0,
                                              "state": {"running": {}}}]}}


def pdb(ns, name, labels, allowed, healthy=2, desired=1, policy=None):
    spec = {"selector": {"matchLabels": labels}, "minAvailable": desired}
    if policy:
        spec["unhealthyPodEvictionPolicy"] = policy
    return {"kind": "PodDisruptionBudget", "apiVersion": "policy/v1",
            "metadata": {"name": name, "namespace": ns}, "spec": spec,
            "status": {"disruptionsAllowed": allowed, "currentHealthy": healthy,
                       "desiredHealthy": desired, "expectedPods": healthy}}


def cluster_objects():
    return [
        node("n1"), node("n2"), node("n3", ready=False),
        pod("default", "web-1", "n1", {"app": "web"}, owner=("ReplicaSet", "web")),
        pod("default", "web-2", "n2", {"app": "web"}, owner=("ReplicaSet", "web")),
        pod("default", "solo", "n1"),
        pod("default", "done", "n2", phase="Succeeded", ready=False),
        pod("kube-system", "ds-1", "n1", {"app": "ds"}, owner=("DaemonSet", "ds")),
        pod("db", "db-0", "n2", {"app": "db"}, owner=("StatefulSet", "db")),
        pod("db", "db-1", "n3", {"app": "db"}, owner=("StatefulSet", "db")),
        pod("db", "db-pending", "", {"app": "db"}, phase="Pending", ready=False),
        pod("db", "db-unready", "n3", {"app": "db"}, ready=False),
        pod("db", "db-going", "n3", {"app": "db"}, deleting=True),
        pod("two", "x", "n2", {"a": "1", "b": "1"}),
        pod("flaky", "always-1", "n3", {"app": "flaky"}, ready=False),
        pod("flaky", "healthy-budget-1", "n3", {"app": "hb"}, ready=False),
        pod("flaky", "spent-1", "n3", {"app": "spent"}, ready=False),
        {"kind": "DaemonSet", "apiVersion": "apps/v1", "metadata": {"name": "ds", "namespace": "kube-system"},
         "spec": {}},
        {"kind": "ReplicaSet", "apiVersion": "apps/v1", "metadata": {"name": "web", "namespace": "default"},
         "spec": {}},
        pdb("default", "web", {"app": "web"}, allowed=1),
        pdb("db", "db", {"app": "db"}, allowed=0, healthy=2, desired=2),
        pdb("two", "pa", {"a": "1"}, allowed=1),
        pdb("two", "pb", {"b": "1"}, allowed=1),
        pdb("flaky", "always", {"app": "flaky"}, allowed=0, healthy=0, desired=1, policy="AlwaysAllow"),
        pdb("flaky", "hb", {"app": "hb"}, allowed=0, healthy=2, desired=2, policy="IfHealthyBudget"),
        pdb("flaky", "spent", {"app": "spent"}, allowed=0, healthy=1, desired=2),
        {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n1"},
         "kubeletconfig": {"evictionHard": {"memory.available": "100Mi"}, "maxPods": 110}},
        {"apiVersion": "evictplan/v1alpha1", "kind": "NodeStatsSummary", "metadata": {"name": "n1"},
         "summary": {"node": {"nodeName": "n1", "memory": {"availableBytes": 123}}, "pods": []}},
    ]


ALL_PODS = sorted(f"{p['metadata']['namespace']}/{p['metadata']['name']}"
                  for p in cluster_objects() if p["kind"] == "Pod")


@pytest.fixture
def snapshot(tmp_path):
    p = tmp_path / "cluster.json"
    p.write_text(json.dumps({"kind": "List", "apiVersion": "v1", "items": cluster_objects()}))
    return p


@pytest.fixture
def srv(snapshot):
    with ApiServer(snapshot) as s:
        yield s


@pytest.fixture
def kubeconfig(srv, tmp_path):
    return srv.write_kubeconfig(tmp_path / "kubeconfig")


def call(srv, method, path, body=None, token=None, ctype="application/json", timeout=10):
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=timeout)
    headers = {"Content-Type": ctype, "Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    conn.request(method, path, body=data, headers=headers)
    resp = conn.getresponse()
    raw = resp.read()
    conn.close()
    try:
        return resp.status, json.loads(raw)
    except json.JSONDecodeError:
        return resp.status, raw.decode()


def kubectl(kubeconfig, *args, timeout=60):
    return subprocess.run([KUBECTL, "--kubeconfig", str(kubeconfig), *args], capture_output=True,
                          text=True, timeout=timeout)


def eviction(name, ns, **delete_options):
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": ns}}
    if delete_options:
        body["deleteOptions"] = delete_options
    return body


def client_for(srv, tmp_path, token=None):
    path = srv.write_kubeconfig(tmp_path / f"kc-{token}", token=token)
    return kubernetes.config.new_client_from_config(config_file=str(path))


# --------------------------------------------------------------------------------------------
# snapshot loading
# --------------------------------------------------------------------------------------------

def test_loads_typed_lists_and_multidoc_yaml_and_assigns_identity(tmp_path):
    (tmp_path / "nodes.json").write_text(json.dumps(
        {"kind": "NodeList", "apiVersion": "v1", "items": [{"metadata": {"name": "a"}}]}))
    (tmp_path / "more.yaml").write_text(
        "kind: Pod\napiVersion: v1\nmetadata: {name: p, namespace: ns}\nspec: {nodeName: a}\n---\n"
        "kind: ConfigMap\napiVersion: v1\nmetadata: {name: ignored}\n")
    with ApiServer(tmp_path) as s:
        n = s.state.get("Node", "a")
        p = s.state.get("pods", "p", "ns")
        assert n["kind"] == "Node" and n["metadata"]["uid"] and n["metadata"]["resourceVersion"].isdigit()
        assert p["spec"]["nodeName"] == "a"
        assert s.state.names("namespaces") == ["ns"]  # derived from the pods
        assert call(s, "GET", "/api/v1/configmaps")[0] == 404


# --------------------------------------------------------------------------------------------
# discovery
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path,check", [
    ("/version", lambda b: b["major"] == "1" and b["gitVersion"].startswith("v1.")),
    ("/api", lambda b: b["versions"] == ["v1"]),
    ("/apis", lambda b: {"apps", "batch", "policy", "scheduling.k8s.io", "storage.k8s.io",
                         "coordination.k8s.io"} <= {g["name"] for g in b["groups"]}),
    ("/api/v1", lambda b: {"name": "pods/eviction", "singularName": "", "namespaced": True,
                           "group": "policy", "version": "v1", "kind": "Eviction", "verbs": ["create"]}
     in b["resources"]),
    ("/api/v1", lambda b: {"nodes/proxy", "nodes/status", "pods", "nodes", "namespaces",
                           "replicationcontrollers"} <= {r["name"] for r in b["resources"]}),
    ("/apis/policy/v1", lambda b: [r["name"] for r in b["resources"]] ==
     ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
    ("/apis/apps/v1", lambda b: {"daemonsets", "replicasets", "statefulsets", "deployments"}
     <= {r["name"] for r in b["resources"]}),
    ("/apis/coordination.k8s.io/v1", lambda b: b["resources"][0]["kind"] == "Lease"),
])
def test_discovery(srv, path, check):
    code, body = call(srv, "GET", path)
    assert code == 200 and check(body), body


# --------------------------------------------------------------------------------------------
# real kubectl
# --------------------------------------------------------------------------------------------

def test_kubectl_get_nodes_and_pods(srv, kubeconfig):
    r = kubectl(kubeconfig, "get", "nodes")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert lines[1].split()[:3] == ["n1", "Ready", "worker"]
    assert lines[3].split()[:2] == ["n3", "NotReady"]
    r = kubectl(kubeconfig, "get", "pods", "-A")
    assert r.returncode == 0, r.stderr
    rows = [line.split() for line in r.stdout.splitlines()[1:]]
    assert sorted(f"{c[0]}/{c[1]}" for c in rows) == ALL_PODS
    r = kubectl(kubeconfig, "get", "pods", "-n", "db", "--field-selector", "spec.nodeName=n3")
    assert [line.split()[0] for line in r.stdout.splitlines()[1:]] == ["db-1", "db-going", "db-unready"]
    assert "Terminating" in r.stdout


def test_kubectl_get_json_in_chunks(srv, kubeconfig):
    r = kubectl(kubeconfig, "get", "pods", "-A", "-o", "json", "--chunk-size=2")
    assert r.returncode == 0, r.stderr
    items = json.loads(r.stdout)["items"]
    assert sorted(f"{i['metadata']['namespace']}/{i['metadata']['name']}" for i in items) == ALL_PODS
    lists = [p for m, p in srv.requests if m == "GET" and p.startswith("/api/v1/pods?")]
    assert len(lists) == (len(ALL_PODS) + 1) // 2
    assert all("limit=2" in p for p in lists) and all("continue=" in p for p in lists[1:])


def test_kubectl_cordon_and_taint_patch_the_node(srv, kubeconfig):
    assert kubectl(kubeconfig, "cordon", "n2").returncode == 0
    r = kubectl(kubeconfig, "taint", "nodes", "n2", "k=v:NoSchedule")
    assert r.returncode == 0, r.stderr
    n2 = srv.state.get("nodes", "n2")
    assert n2["spec"] == {"unschedulable": True, "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]}
    assert kubectl(kubeconfig, "taint", "nodes", "n2", "k=v:NoSchedule-").returncode == 0
    assert kubectl(kubeconfig, "uncordon", "n2").returncode == 0
    assert srv.state.get("nodes", "n2")["spec"] == {}
    assert "SchedulingDisabled" not in kubectl(kubeconfig, "get", "nodes").stdout


def test_kubectl_drain_evicts_through_the_eviction_api(srv, kubeconfig):
    r = kubectl(kubeconfig, "drain", "n1", "--ignore-daemonsets", "--delete-emptydir-data", "--force",
                "--timeout=20s")
    assert r.returncode == 0, r.stderr
    assert "node/n1 drained" in r.stdout
    assert srv.state.get("nodes", "n1")["spec"]["unschedulable"] is True
    assert srv.state.get("pods", "web-1", "default") is None
    assert srv.state.get("pods", "solo", "default") is None
    assert srv.state.get("pods", "ds-1", "kube-system") is not None  # DaemonSet pod ignored
    assert srv.state.get("pdb", "web", "default")["status"]["disruptionsAllowed"] == 0
    posts = sorted(p for m, p in srv.requests if m == "POST")
    assert posts == ["/api/v1/namespaces/default/pods/solo/eviction",
                     "/api/v1/namespaces/default/pods/web-1/eviction"]
    assert any("fieldSelector=spec.nodeName=n1" in p for m, p in srv.requests if m == "GET")


def test_kubectl_drain_reports_pdb_block(srv, kubeconfig):
    r = kubectl(kubeconfig, "drain", "n2", "--ignore-daemonsets", "--force", "--pod-selector=app=db",
                "--timeout=2s")
    assert r.returncode != 0
    assert "Cannot evict pod as it would violate the pod's disruption budget." in r.stderr
    assert srv.state.get("pods", "db-0", "db") is not None


# --------------------------------------------------------------------------------------------
# lists, pagination, selectors
# --------------------------------------------------------------------------------------------

def test_python_client_paginates_raw_and_model(srv, tmp_path):
    v1 = kubernetes.client.CoreV1Api(client_for(srv, tmp_path))
    names, token, pages = [], None, 0
    while True:
        kw = {"_continue": token} if token else {}
        resp = v1.list_pod_for_all_namespaces(limit=2, _preload_content=False, **kw)
        body = json.loads(resp.data)
        assert body["kind"] == "PodList" and all("kind" not in i for i in body["items"])
        names += [f"{i['metadata']['namespace']}/{i['metadata']['name']}" for i in body["items"]]
        pages += 1
        token = body["metadata"].get("continue")
        if pages == 1:
            assert body["metadata"]["remainingItemCount"] == len(ALL_PODS) - 2
        if not token:
            break
    assert names == ALL_PODS and pages == (len(ALL_PODS) + 1) // 2

    models, token = [], None
    while True:
        lst = v1.list_pod_for_all_namespaces(limit=3, _continue=token)
        models += [f"{p.metadata.namespace}/{p.metadata.name}" for p in lst.items]
        token = lst.metadata._continue
        if not token:
            break
    assert models == ALL_PODS


def test_continued_pages_are_a_consistent_snapshot(srv):
    code, first = call(srv, "GET", "/api/v1/namespaces/db/pods?limit=2")
    assert [i["metadata"]["name"] for i in first["items"]] == ["db-0", "db-1"]
    srv.state.delete("pods", "db-pending", "db")
    tok = quote(first["metadata"]["continue"])
    code, rest = call(srv, "GET", f"/api/v1/namespaces/db/pods?limit=10&continue={tok}")
    assert code == 200 and rest["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    assert [i["metadata"]["name"] for i in rest["items"]] == ["db-going", "db-pending", "db-unready"]
    code, fresh = call(srv, "GET", "/api/v1/namespaces/db/pods")
    assert "db-pending" not in [i["metadata"]["name"] for i in fresh["items"]]


def test_expired_continue_token_is_410_gone(srv, tmp_path):
    code, first = call(srv, "GET", "/api/v1/pods?limit=2")
    srv.expire_continue_tokens()
    tok = first["metadata"]["continue"]
    code, body = call(srv, "GET", f"/api/v1/pods?limit=2&continue={quote(tok)}")
    assert code == 410 and body["reason"] == "Expired" and body["kind"] == "Status"
    assert "too old to display a consistent list" in body["message"]
    code, resumed = call(srv, "GET", f"/api/v1/pods?limit=100&continue={quote(body['metadata']['continue'])}")
    assert code == 200 and len(resumed["items"]) == len(ALL_PODS) - 2
    v1 = kubernetes.client.CoreV1Api(client_for(srv, tmp_path))
    with pytest.raises(kubernetes.client.ApiException) as e:
        v1.list_pod_for_all_namespaces(limit=2, _continue=tok)
    assert e.value.status == 410
    code, body = call(srv, "GET", "/api/v1/pods?limit=2&continue=garbage")
    assert code == 400


@pytest.mark.parametrize("query,expected", [
    ("fieldSelector=spec.nodeName=n1", ["default/solo", "default/web-1", "kube-system/ds-1"]),
    ("fieldSelector=spec.nodeName%3Dn1,metadata.name!=solo", ["default/web-1", "kube-system/ds-1"]),
    ("fieldSelector=metadata.name=x", ["two/x"]),
    ("fieldSelector=spec.nodeName=,status.phase!=Succeeded", ["db/db-pending"]),
    ("fieldSelector=status.phase!=Running,status.phase!=Pending", ["default/done"]),
    ("fieldSelector=metadata.namespace=kube-system", ["kube-system/ds-1"]),
    ("labelSelector=app=web", ["default/web-1", "default/web-2"]),
    ("labelSelector=app%20in%20(web,ds)", ["default/web-1", "default/web-2", "kube-system/ds-1"]),
    ("labelSelector=app,app!=db,app notin (flaky,hb,spent)",
     ["default/web-1", "default/web-2", "kube-system/ds-1"]),
    ("labelSelector=!app,a", ["two/x"]),
    ("labelSelector=app=db&fieldSelector=spec.nodeName=n3", ["db/db-1", "db/db-going", "db/db-unready"]),
])
def test_list_selectors(srv, query, expected):
    code, body = call(srv, "GET", f"/api/v1/pods?{query.replace(' ', '%20')}")
    assert code == 200, body
    assert [f"{i['metadata']['namespace']}/{i['metadata']['name']}" for i in body["items"]] == expected


def test_selector_pagination_and_errors(srv):
    code, body = call(srv, "GET", "/api/v1/pods?fieldSelector=spec.nodeName=n3&limit=2")
    assert len(body["items"]) == 2 and "remainingItemCount" not in body["metadata"]
    code, rest = call(srv, "GET", f"/api/v1/pods?fieldSelector=spec.nodeName=n3&limit=10"
                                  f"&continue={quote(body['metadata']['continue'])}")
    assert len(body["items"]) + len(rest["items"]) == 6
    code, body = call(srv, "GET", "/api/v1/pods?fieldSelector=spec.bogus=1")
    assert (code, body["reason"], body["message"]) == (400, "BadRequest", "field label not supported: spec.bogus")
    code, body = call(srv, "GET", "/api/v1/nodes?fieldSelector=spec.unschedulable=false")
    assert [i["metadata"]["name"] for i in body["items"]] == ["n1", "n2", "n3"]


@pytest.mark.parametrize("path,kind,count", [
    ("/apis/apps/v1/daemonsets", "DaemonSetList", 1),
    ("/apis/apps/v1/namespaces/default/replicasets", "ReplicaSetList", 1),
    ("/apis/policy/v1/poddisruptionbudgets", "PodDisruptionBudgetList", 7),
    ("/apis/policy/v1/namespaces/flaky/poddisruptionbudgets", "PodDisruptionBudgetList", 3),
    ("/apis/scheduling.k8s.io/v1/priorityclasses", "PriorityClassList", 0),
    ("/apis/batch/v1/jobs", "JobList", 0),
    ("/apis/storage.k8s.io/v1/volumeattachments", "VolumeAttachmentList", 0),
    ("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", "LeaseList", 0),
    ("/api/v1/replicationcontrollers", "ReplicationControllerList", 0),
    ("/api/v1/namespaces", "NamespaceList", 5),
])
def test_lists_of_every_kind(srv, path, kind, count):
    code, body = call(srv, "GET", path)
    assert code == 200 and body["kind"] == kind and len(body["items"]) == count
    assert body["metadata"]["resourceVersion"].isdigit()


def test_get_and_not_found(srv):
    code, body = call(srv, "GET", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/web")
    assert code == 200 and body["kind"] == "PodDisruptionBudget" and body["apiVersion"] == "policy/v1"
    code, body = call(srv, "GET", "/apis/policy/v1/namespaces/default/poddisruptionbudgets/nope")
    assert code == 404 and body["message"] == 'poddisruptionbudgets.policy "nope" not found'
    assert body["details"] == {"name": "nope", "group": "policy", "kind": "poddisruptionbudgets"}
    code, body = call(srv, "GET", "/api/v1/namespaces/default/pods/nope")
    assert (code, body["reason"], body["message"]) == (404, "NotFound", 'pods "nope" not found')


# --------------------------------------------------------------------------------------------
# eviction
# --------------------------------------------------------------------------------------------

TOO_MANY = "Cannot evict pod as it would violate the pod's disruption budget."


@pytest.mark.parametrize("ns,name,opts,query,code,gone,pdb_after", [
    # healthy pod, budget 1: evicted, budget spent
    ("default", "web-1", {}, "", 201, True, ("default", "web", 0)),
    # budget 0: 429, nothing changes
    ("db", "db-0", {}, "", 429, False, ("db", "db", 0)),
    # Pending / Succeeded / deleting pods skip the PDB check
    ("db", "db-pending", {}, "", 201, True, ("db", "db", 0)),
    ("db", "db-going", {}, "", 201, True, ("db", "db", 0)),
    ("default", "done", {}, "", 201, True, None),
    # unready + AlwaysAllow: evicted without spending budget
    ("flaky", "always-1", {}, "", 201, True, ("flaky", "always", 0)),
    # unready + IfHealthyBudget with currentHealthy >= desiredHealthy > 0
    ("flaky", "healthy-budget-1", {}, "", 201, True, ("flaky", "hb", 0)),
    # unready but the application is already disrupted: the budget decides (429)
    ("flaky", "spent-1", {}, "", 429, False, ("flaky", "spent", 0)),
    # two PDBs: 500
    ("two", "x", {}, "", 500, False, ("two", "pa", 1)),
    # no PDB
    ("default", "solo", {}, "", 201, True, None),
    # dry run changes nothing
    ("default", "web-1", {}, "?dryRun=All", 201, False, ("default", "web", 1)),
    ("default", "web-1", {"dryRun": ["All"]}, "", 201, False, ("default", "web", 1)),
    # preconditions
    ("default", "solo", {"preconditions": {"uid": "wrong"}}, "", 409, False, None),
    ("default", "solo", {"preconditions": {"resourceVersion": "1"}}, "", 409, False, None),
    ("db", "db-pending", {"preconditions": {"uid": "wrong"}}, "", 409, False, None),
    ("default", "nope", {}, "", 404, True, None),
])
def test_eviction(srv, ns, name, opts, query, code, gone, pdb_after):
    got, body = call(srv, "POST", f"/api/v1/namespaces/{ns}/pods/{name}/eviction{query}",
                     eviction(name, ns, **opts))
    assert got == code, body
    assert body["kind"] == "Status"
    assert (srv.state.get("pods", name, ns) is None) == gone
    if pdb_after:
        assert srv.state.get("pdb", pdb_after[1], pdb_after[0])["status"]["disruptionsAllowed"] == pdb_after[2]
    if code == 201:
        assert body["status"] == "Success"
    if code == 429:
        assert body["reason"] == "TooManyRequests" and body["message"] == TOO_MANY
        assert body["details"]["causes"][0]["reason"] == "DisruptionBudget"
    if code == 500:
        assert body["message"] == ("This pod has more than one PodDisruptionBudget, which the eviction "
                                   "subresource does not support.")
    if code == 409:
        assert body["reason"] == "Conflict" and "Precondition failed" in body["message"]


def test_eviction_429_names_the_budget(srv):
    code, body = call(srv, "POST", "/api/v1/namespaces/db/pods/db-0/eviction", eviction("db-0", "db"))
    assert body["details"]["causes"] == [{"reason": "DisruptionBudget",
                                          "message": "The disruption budget db needs 2 healthy pods and has 2 currently"}]


def test_second_eviction_hits_the_spent_budget_and_pdb_records_it(srv, tmp_path):
    policy = kubernetes.client.PolicyV1Api(client_for(srv, tmp_path))
    core = kubernetes.client.CoreV1Api(policy.api_client)
    uid = srv.state.get("pods", "web-1", "default")["metadata"]["uid"]
    body = kubernetes.client.V1Eviction(
        metadata=kubernetes.client.V1ObjectMeta(name="web-1", namespace="default"),
        delete_options=kubernetes.client.V1DeleteOptions(preconditions=kubernetes.client.V1Preconditions(uid=uid)))
    core.create_namespaced_pod_eviction("web-1", "default", body)
    status = policy.read_namespaced_pod_disruption_budget("web", "default").status
    assert status.disruptions_allowed == 0 and "web-1" in status.disrupted_pods
    with pytest.raises(kubernetes.client.ApiException) as e:
        core.create_namespaced_pod_eviction("web-2", "default", kubernetes.client.V1Eviction(
            metadata=kubernetes.client.V1ObjectMeta(name="web-2", namespace="default")))
    assert e.value.status == 429 and TOO_MANY in e.value.body


def test_eviction_rejects_mismatched_body(srv):
    code, body = call(srv, "POST", "/api/v1/namespaces/default/pods/solo/eviction", eviction("web-1", "default"))
    assert code == 400 and body["message"] == "name in URL does not match name in Eviction object"


# --------------------------------------------------------------------------------------------
# delete and patch
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path,body,code,gone", [
    ("/api/v1/namespaces/default/pods/solo", {"gracePeriodSeconds": 5}, 200, True),
    ("/api/v1/namespaces/default/pods/solo?gracePeriodSeconds=0", None, 200, True),
    ("/api/v1/namespaces/default/pods/solo", {"preconditions": {"uid": "other"}}, 409, False),
    ("/api/v1/namespaces/default/pods/solo?dryRun=All", None, 200, False),
    ("/api/v1/namespaces/default/pods/nope", None, 404, False),
])
def test_pod_delete(srv, path, body, code, gone):
    got, resp = call(srv, "DELETE", path, body)
    assert got == code, resp
    assert (srv.state.get("pods", "solo", "default") is None) == gone
    if code == 200:
        assert resp["metadata"]["deletionTimestamp"]
        if body:
            assert resp["metadata"]["deletionGracePeriodSeconds"] == 5


@pytest.mark.parametrize("ctype,patch,spec", [
    ("application/strategic-merge-patch+json", {"spec": {"unschedulable": True}}, {"unschedulable": True}),
    ("application/merge-patch+json", {"spec": {"taints": [{"key": "a", "effect": "NoExecute"}]}},
     {"taints": [{"key": "a", "effect": "NoExecute"}]}),
    ("application/json-patch+json", [{"op": "add", "path": "/spec/unschedulable", "value": True},
                                     {"op": "add", "path": "/spec/taints", "value": []},
                                     {"op": "add", "path": "/spec/taints/-", "value": {"key": "b", "effect": "NoSchedule"}}],
     {"unschedulable": True, "taints": [{"key": "b", "effect": "NoSchedule"}]}),
])
def test_node_patch_kinds(srv, ctype, patch, spec):
    rv = srv.state.get("nodes", "n1")["metadata"]["resourceVersion"]
    code, body = call(srv, "PATCH", "/api/v1/nodes/n1", patch, ctype=ctype)
    assert code == 200, body
    assert body["spec"] == spec and srv.state.get("nodes", "n1")["spec"] == spec
    assert int(body["metadata"]["resourceVersion"]) > int(rv)
    assert body["status"]["conditions"][0]["type"] == "Ready"  # status untouched


def test_node_patch_conflicts_and_validation(srv):
    rv = srv.state.get("nodes", "n1")["metadata"]["resourceVersion"]
    code, body = call(srv, "PATCH", "/api/v1/nodes/n1",
                      {"metadata": {"resourceVersion": "1"}, "spec": {"unschedulable": True}},
                      ctype="application/strategic-merge-patch+json")
    assert code == 409 and body["reason"] == "Conflict"
    assert body["message"] == ('Operation cannot be fulfilled on nodes "n1": the object has been modified; '
                               'please apply your changes to the latest version and try again')
    code, body = call(srv, "PATCH", "/api/v1/nodes/n1",
                      {"metadata": {"resourceVersion": rv}, "spec": {"unschedulable": True}},
                      ctype="application/merge-patch+json")
    assert code == 200
    code, body = call(srv, "PATCH", "/api/v1/nodes/n1", {"spec": {"taints": [{"key": "k", "effect": "Bogus"}]}},
                      ctype="application/merge-patch+json")
    assert code == 422 and body["reason"] == "Invalid"
    code, body = call(srv, "PATCH", "/api/v1/nodes/n1", [{"op": "test", "path": "/spec/unschedulable", "value": False}],
                      ctype="application/json-patch+json")
    assert code == 422
    code, body = call(srv, "PATCH", "/api/v1/nodes/nope", {"spec": {}}, ctype="application/merge-patch+json")
    assert code == 404
    assert srv.state.get("nodes", "n1")["spec"] == {"unschedulable": True}


def test_python_client_patch_node(srv, tmp_path):
    v1 = kubernetes.client.CoreV1Api(client_for(srv, tmp_path))
    node = v1.patch_node("n2", {"spec": {"taints": [{"key": "x", "value": "y", "effect": "NoSchedule"}]}})
    assert node.spec.taints[0].key == "x"
    assert srv.state.get("nodes", "n2")["spec"]["taints"] == [{"key": "x", "value": "y", "effect": "NoSchedule"}]


# --------------------------------------------------------------------------------------------
# nodes/proxy
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path,code,check", [
    ("/api/v1/nodes/n1/proxy/configz", 200, lambda b: b["kubeletconfig"]["maxPods"] == 110),
    ("/api/v1/nodes/n1/proxy/stats/summary", 200, lambda b: b["node"]["memory"]["availableBytes"] == 123),
    ("/api/v1/nodes/n1/proxy/pods", 200, lambda b: len(b["items"]) == 3),
    ("/api/v1/nodes/n2/proxy/configz", 503,
     lambda b: b["reason"] == "ServiceUnavailable" and "error trying to reach service" in b["message"]),
    ("/api/v1/nodes/n2/proxy/stats/summary", 503, lambda b: b["reason"] == "ServiceUnavailable"),
    ("/api/v1/nodes/nope/proxy/configz", 404, lambda b: b["message"] == 'nodes "nope" not found'),
])
def test_node_proxy(srv, path, code, check):
    got, body = call(srv, "GET", path)
    assert got == code and check(body), body


def test_kubectl_get_raw_configz(srv, kubeconfig):
    r = kubectl(kubeconfig, "get", "--raw", "/api/v1/nodes/n1/proxy/configz")
    assert r.returncode == 0 and json.loads(r.stdout)["kubeletconfig"]["evictionHard"]


# --------------------------------------------------------------------------------------------
# auth
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("token,method,path,body,code", [
    (None, "GET", "/api/v1/nodes", None, 401),
    ("wrong", "GET", "/api/v1/nodes", None, 401),
    (None, "GET", "/api", None, 401),
    (None, "GET", "/version", None, 200),
    ("admin", "GET", "/api/v1/nodes", None, 200),
    ("ro", "GET", "/api/v1/pods", None, 200),
    ("ro", "GET", "/api/v1/nodes/n1/proxy/configz", None, 200),
    ("ro", "POST", "/api/v1/namespaces/default/pods/solo/eviction", eviction("solo", "default"), 403),
    ("ro", "DELETE", "/api/v1/namespaces/default/pods/solo", None, 403),
    ("noproxy", "GET", "/api/v1/nodes/n1/proxy/configz", None, 403),
    ("noproxy", "GET", "/api/v1/nodes/n1/proxy/stats/summary", None, 403),
    ("noproxy", "POST", "/api/v1/namespaces/default/pods/solo/eviction", eviction("solo", "default"), 201),
])
def test_auth(snapshot, token, method, path, body, code):
    with ApiServer(snapshot, tokens={"admin": "admin", "ro": "readonly", "noproxy": "noproxy"}) as s:
        got, resp = call(s, method, path, body, token=token)
        assert got == code, resp
        if code == 401:
            assert resp["reason"] == "Unauthorized"
        if code == 403:
            assert resp["reason"] == "Forbidden" and "is forbidden: User" in resp["message"]


def test_kubectl_readonly_token_cannot_cordon(snapshot, tmp_path):
    # kubectl sends credentials only over TLS
    with ApiServer(snapshot, tokens={"ro": "readonly"}, tls=True) as s:
        kc = s.write_kubeconfig(tmp_path / "kc", token="ro")
        assert kubectl(kc, "get", "nodes").returncode == 0
        r = kubectl(kc, "cordon", "n1")
        # (kubectl cordon prints the error but exits 0, as it does against a real cluster)
        assert 'nodes "n1" is forbidden' in r.stderr and 'cannot patch resource "nodes"' in r.stderr
        assert "unschedulable" not in s.state.get("nodes", "n1")["spec"]
        r = kubectl(s.write_kubeconfig(tmp_path / "bad", token="wrong"), "get", "nodes")
        assert r.returncode != 0 and "Unauthorized" in r.stderr + r.stdout


# --------------------------------------------------------------------------------------------
# TLS
# --------------------------------------------------------------------------------------------

def test_https_with_kubectl_and_client(snapshot, tmp_path):
    with ApiServer(snapshot, tokens={"t": "admin"}, tls=True) as s:
        assert s.url.startswith("https://127.0.0.1:")
        if KUBECTL:
            r = kubectl(s.write_kubeconfig(tmp_path / "kc", token="t"), "get", "nodes", "-o", "name")
            assert r.stdout.split() == ["node/n1", "node/n2", "node/n3"], r.stderr
            r = kubectl(s.write_kubeconfig(tmp_path / "kci", token="t", insecure=True), "get", "ns", "-o", "name")
            assert "namespace/db" in r.stdout.split(), r.stderr
        v1 = kubernetes.client.CoreV1Api(client_for(s, tmp_path, token="t"))
        assert [n.metadata.name for n in v1.list_node().items] == ["n1", "n2", "n3"]


# --------------------------------------------------------------------------------------------
# faults
# --------------------------------------------------------------------------------------------

def test_fault_status_twice_then_real_answer(srv):
    f = srv.faults.add(method="POST", path_regex=r".*/eviction$", status=429, times=2, retry_after=1)
    path = "/api/v1/namespaces/default/pods/solo/eviction"
    got = [call(srv, "POST", path, eviction("solo", "default")) for _ in range(3)]
    assert [c for c, _ in got] == [429, 429, 201]
    assert got[0][1]["reason"] == "TooManyRequests" and got[0][1]["details"]["retryAfterSeconds"] == 1
    assert f.hits == 2 and srv.state.get("pods", "solo", "default") is None


def test_fault_only_matching_requests(srv):
    srv.faults.add(method="GET", path_regex=r"^/api/v1/nodes$", status=503, times=None)
    assert call(srv, "GET", "/api/v1/nodes")[0] == 503
    assert call(srv, "GET", "/api/v1/nodes")[0] == 503
    assert call(srv, "GET", "/api/v1/nodes/n1")[0] == 200
    assert call(srv, "GET", "/api/v1/pods")[0] == 200


def test_fault_delay_times_out_the_client(srv):
    srv.faults.add(path_regex=r"/pods$", delay=1.0)
    t0 = time.monotonic()
    with pytest.raises(socket.timeout):
        call(srv, "GET", "/api/v1/pods", timeout=0.3)
    assert time.monotonic() - t0 < 0.9
    assert call(srv, "GET", "/api/v1/pods")[0] == 200


def test_fault_connection_reset(srv, tmp_path):
    srv.faults.add(path_regex=r"/nodes$", reset=True)
    with pytest.raises((ConnectionError, http.client.RemoteDisconnected)):
        call(srv, "GET", "/api/v1/nodes")
    srv.faults.add(path_regex=r"/nodes$", reset=True)
    v1 = kubernetes.client.CoreV1Api(client_for(srv, tmp_path))
    v1.api_client.rest_client.pool_manager.connection_pool_kw["retries"] = False
    with pytest.raises(urllib3.exceptions.HTTPError):
        v1.list_node(_request_timeout=5)
    assert len(v1.list_node().items) == 3


def test_fault_close_mid_list(srv, tmp_path):
    f = srv.faults.add(method="GET", path_regex=r"^/api/v1/pods$", query_regex=r"continue=", partial=0.3,
                       times=None)
    v1 = kubernetes.client.CoreV1Api(client_for(srv, tmp_path))
    first = v1.list_pod_for_all_namespaces(limit=4)
    with pytest.raises(urllib3.exceptions.HTTPError):  # urllib3 retried, every attempt broke
        v1.list_pod_for_all_namespaces(limit=4, _continue=first.metadata._continue)
    assert f.hits >= 2
    srv.faults.clear()
    again = v1.list_pod_for_all_namespaces(limit=4, _continue=first.metadata._continue)
    assert len(again.items) == 4


def test_kubectl_sees_a_broken_list(srv, kubeconfig):
    srv.faults.add(method="GET", path_regex=r"^/api/v1/pods$", partial=True, skip=1, times=None)
    r = kubectl(kubeconfig, "get", "pods", "-A", "-o", "name", "--chunk-size=3")
    assert r.returncode != 0 and r.stderr


# --------------------------------------------------------------------------------------------
# standalone and scale
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("latency_ms", [0, 1000])
def test_standalone_prints_url_and_serves(snapshot, latency_ms):
    """`--latency MS` (bench_live.py's model of a real API server's time per page) delays every
    API answer by MS, and only those."""
    proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("apiserver.py")), str(snapshot),
                             "--port", "0", "--latency", str(latency_ms)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        conn = http.client.HTTPConnection(url[len("http://"):], timeout=5)
        for path in ("/api/v1/nodes", "/apis/apps/v1/daemonsets"):
            t0 = time.monotonic()
            conn.request("GET", path)
            assert "items" in json.loads(conn.getresponse().read())
            took = time.monotonic() - t0
            assert took >= latency_ms / 1000.0, (path, took)
        conn.request("GET", "/api/v1/nodes")
        assert len(json.loads(conn.getresponse().read())["items"]) == 3
        if latency_ms:   # not an API path: answered at once
            t0 = time.monotonic()
            conn.request("GET", "/version")
            conn.getresponse().read()
            assert time.monotonic() - t0 < latency_ms / 1000.0
    finally:
        proc.terminate()
        proc.wait(5)


def test_many_pods_page_quickly():
    n = 20_000
    objs = [node("n1")] + [pod(f"ns{i % 50}", f"p{i:06d}", "n1") for i in range(n)]
    t0 = time.monotonic()
    with ApiServer(objs) as s:
        seen, token = 0, ""
        while True:
            code, body = call(s, "GET", f"/api/v1/pods?limit=5000&continue={quote(token)}")
            seen += len(body["items"])
            token = body["metadata"].get("continue", "")
            if not token:
                break
        code, body = call(s, "GET", "/api/v1/pods?fieldSelector=metadata.name=p000042")
        assert [i["metadata"]["name"] for i in body["items"]] == ["p000042"]
    assert seen == n
    assert time.monotonic() - t0 < 10
