"""Bad input is one clean `error:` line naming the file, the object and the field (DESIGN.md,
"Snapshot input (contract)"): wrong types in kubelet stats summaries, a SnapshotInfo
serverVersion that is no Kubernetes version, values the API server refuses, and error messages
that speak JSON (null, number, a list), never Python (`NoneType`, `int`, `dict`).

Each table row is a case a user could write; the CLI runs for real (`run_cli`)."""

import json
import re

import pytest

from conftest import node, pod, run_cli, snapshot_list


def one_error(res, *needles: str) -> str:
    """Exit 1, exactly one stderr line starting `error:`, no traceback, nothing planned."""
    assert res.returncode == 1, (res.returncode, res.stdout[:500], res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "internal error" not in lines[0] and "Traceback" not in res.stderr
    assert res.stdout == ""
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


# --- B7: errors name JSON types -------------------------------------------------------------------

# "found NoneType", "not list": a Python type name where a JSON one belongs
_PY_NAME = re.compile(r"(?:found|not) (?:NoneType|int|float|str|bool|dict|list|tuple)\b")

JSON_TYPE_CASES = [
    # (id, file text, fragments of the error line)
    ("null-list-item", json.dumps({"apiVersion": "v1", "kind": "List", "items": [node("n1"), None]}),
     ["items[1]", "list item is not an object (found null)"]),
    ("number-list-item", json.dumps({"apiVersion": "v1", "kind": "NodeList", "items": [7]}),
     ["items[0]", "(found number 7)"]),
    ("top-level-number", "[" + json.dumps(node("n1")) + ", 3]",
     ["[1]", "found number 3"]),
    ("quantity-is-a-list", json.dumps(snapshot_list(node("n1", extra_alloc={"cpu": ["4"]}))),
     ["Node n1", "status.capacity.cpu", "not a list"]),
    ("quantity-is-an-object", json.dumps(snapshot_list(node("n1", extra_alloc={"memory": {"v": 1}}))),
     ["Node n1", "status.capacity.memory", "not an object"]),
]


@pytest.mark.parametrize("text, needles", [c[1:] for c in JSON_TYPE_CASES], ids=[c[0] for c in JSON_TYPE_CASES])
def test_errors_name_json_types_not_python_ones(tmp_path, text, needles):
    p = tmp_path / "in.json"
    p.write_text(text)
    line = one_error(run_cli("-f", str(p), "drain", "n1", "--force"), str(p), *needles)
    assert not _PY_NAME.search(line), line


# --- B5: SnapshotInfo.serverVersion is a Kubernetes version ---------------------------------------

BAD_SERVER_VERSIONS = ["banana", "latest", "v1", "1.x", "v1.33.3 (eks)", "v1.33.3-", "vv1.33"]
GOOD_SERVER_VERSIONS = ["v1.33.3", "v1.30.2-eks-1552ad0", "v1.29.4+k3s1", "v1.31.0-gke.1234+abc", "1.35"]


@pytest.mark.parametrize("version", BAD_SERVER_VERSIONS)
def test_server_version_that_is_no_version_is_refused(tmp_path, version):
    """Our own document: a typo there must not silently hand the choice to the kubelets' version."""
    p = tmp_path / "c.json"
    p.write_text(json.dumps(snapshot_list(node("n1"), pod("p", "n1"), server_version=version)))
    one_error(run_cli("-f", str(p), "drain", "n1", "--force"), str(p), "SnapshotInfo snapshot", "serverVersion",
              repr(version), "not a Kubernetes version")


@pytest.mark.parametrize("version", GOOD_SERVER_VERSIONS + [""])
def test_server_versions_kubectl_prints_are_read(tmp_path, version):
    """What `kubectl version` prints for real distributions (EKS, k3s, GKE), and an empty
    serverVersion (unknown: a live read whose /version said nothing)."""
    info = snapshot_list(node("n1"), node("n2"), pod("p", "n1"))
    info["items"][0]["serverVersion"] = version
    p = tmp_path / "c.json"
    p.write_text(json.dumps(info))
    res = run_cli("-f", str(p), "drain", "n1", "--force")
    assert res.returncode == 0 and "error" not in res.stderr, res.stderr


# --- B2: wrong types in NodeStatsSummary documents ------------------------------------------------

_MI = 1024 * 1024


def _summary(**node_fields) -> dict:
    """n1's /stats/summary under memory pressure (50Mi available against the default
    evictionHard memory.available<100Mi), so the kubelet ranks pod p by its working set."""
    node_stats = {"nodeName": "n1",
                  "memory": {"time": "2026-11-21T11:59:50Z", "availableBytes": 50 * _MI, "workingSetBytes": 15000 * _MI},
                  "fs": {"availableBytes": 50 * 2 ** 30, "capacityBytes": 100 * 2 ** 30,
                         "inodesFree": 5_000_000, "inodes": 6_000_000},
                  "systemContainers": [{"name": "pods", "memory": {"availableBytes": 900 * _MI,
                                                                   "workingSetBytes": 14000 * _MI}}],
                  "rlimit": {"maxpid": 4_000_000, "curproc": 1000}}
    node_stats.update(node_fields)
    return {"node": node_stats,
            "pods": [{"podRef": {"name": "p", "namespace": "default", "uid": "uid-default-p"},
                      "memory": {"workingSetBytes": 300 * _MI},
                      "containers": [{"name": "app", "memory": {"workingSetBytes": 300 * _MI}}]}]}


def _with(path: str, value):
    """The summary with the value at `path` (dotted, [i] for list items) replaced."""
    s = _summary()
    keys = [int(k) if k.isdigit() else k for k in path.replace("[", ".").replace("]", "").split(".")]
    d = s
    for k in keys[:-1]:
        d = d[k]
    d[keys[-1]] = value
    return s


def _stats_doc(summary: dict) -> dict:
    return {"apiVersion": "evictplan/v1alpha1", "kind": "NodeStatsSummary", "metadata": {"name": "n1"},
            "summary": summary}


SUMMARY_CASES = [
    # (field path in the summary, bad value, fragment of the problem)
    ("node.memory.availableBytes", "lots", "expected a whole number, found string 'lots'"),
    ("node.memory.workingSetBytes", [1], "expected a whole number, found a list"),
    ("node.memory.availableBytes", -5, "must not be negative"),
    ("node.memory.availableBytes", 2 ** 64, "out of range (uint64)"),
    ("node.memory.availableBytes", 1.5, "expected a whole number, found number 1.5"),
    ("node.memory.availableBytes", True, "found boolean true"),
    ("node", [], "expected an object, found a list"),
    ("node.memory", "x", "expected an object, found string 'x'"),
    ("node.fs.capacityBytes", "100Gi", "expected a whole number, found string '100Gi'"),
    ("node.fs.inodesFree", -1, "must not be negative"),
    ("node.systemContainers", {"name": "pods"}, "expected a list, found an object"),
    ("node.systemContainers[0]", "pods", "expected an object, found string 'pods'"),
    ("node.systemContainers[0].name", 7, "expected a string, found number 7"),
    ("node.systemContainers[0].memory.availableBytes", "x", "expected a whole number"),
    ("node.rlimit.maxpid", "4M", "expected a whole number"),
    ("node.runtime", [], "expected an object, found a list"),
    ("pods", "x", "expected a list, found string 'x'"),
    ("pods[0]", 3, "expected an object, found number 3"),
    ("pods[0].podRef", "x", "expected an object, found string 'x'"),
    ("pods[0].podRef.uid", 12, "expected a string, found number 12"),
    ("pods[0].memory.workingSetBytes", "300Mi", "expected a whole number, found string '300Mi'"),
    ("pods[0].containers", {"name": "app"}, "expected a list, found an object"),
    ("pods[0].containers[0].name", ["app"], "expected a string, found a list"),
]


@pytest.mark.parametrize("path, value, problem", SUMMARY_CASES,
                         ids=["%s=%s" % (c[0], json.dumps(c[1])) for c in SUMMARY_CASES])
@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_wrong_types_in_a_stats_summary_are_clean_errors(tmp_path, path, value, problem, fmt):
    """A present value of the wrong type is broken input, not an unmeasured stat: the file, the
    summary and the field path. (JSON takes the fast decoder, YAML the parsed-dict path.)"""
    p = tmp_path / ("s." + fmt)
    p.write_text(json.dumps(snapshot_list(node("n1"), pod("p", "n1"), _stats_doc(_with(path, value)))))
    one_error(run_cli("-f", str(p), "pressure", "n1"), str(p), "NodeStatsSummary n1: summary.%s: " % path, problem)


def test_wrong_type_in_a_raw_stats_summary_names_its_field(tmp_path):
    """A bare /stats/summary response (no NodeStatsSummary wrapper, as support bundles hold it)."""
    raw = _with("node.memory.availableBytes", "lots")
    p = tmp_path / "raw.json"
    p.write_text(json.dumps(snapshot_list(node("n1"), pod("p", "n1"), raw)))
    one_error(run_cli("-f", str(p), "pressure", "n1"), str(p), "NodeStatsSummary n1: node.memory.availableBytes: ",
              "expected a whole number")


@pytest.mark.parametrize("path, value", [("node.memory.availableBytes", None), ("node.memory", None),
                                         ("node.fs", {}), ("node.rlimit", {"maxpid": None, "curproc": 7}),
                                         ("node.systemContainers", None), ("pods[0].podRef.uid", None),
                                         ("pods[0].containers[0]", None), ("node.memory.availableBytes", 1e9)])
def test_absent_stats_stay_unobserved(tmp_path, path, value):
    """The kubelet omits what it cannot measure (the Summary API's fields are pointers): absent
    or null is "not observed", never an error; a whole number written as 1e9 is a number."""
    p = tmp_path / "s.json"
    p.write_text(json.dumps(snapshot_list(node("n1"), pod("p", "n1"), _stats_doc(_with(path, value)))))
    res = run_cli("-f", str(p), "pressure", "n1")
    assert res.returncode != 1 and "error" not in res.stderr and "Traceback" not in res.stderr, res.stderr


# --- B6: values the API server refuses ------------------------------------------------------------

def _pdb(**spec) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "b", "namespace": "default"},
            "spec": dict({"selector": {"matchLabels": {"app": "p"}}}, **spec)}


def _workload(kind: str, **spec) -> dict:
    api = "batch/v1" if kind == "Job" else "v1" if kind == "ReplicationController" else "apps/v1"
    return {"apiVersion": api, "kind": kind, "metadata": {"name": "w", "namespace": "default", "uid": "uid-w"},
            "spec": dict({"selector": {"matchLabels": {"app": "p"}}} if kind != "ReplicationController"
                         else {"selector": {"app": "p"}}, **spec)}


def _owned_pod(**ref) -> dict:
    p = pod("p", "n1")
    p["metadata"]["ownerReferences"] = [dict({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs",
                                              "uid": "uid-rs", "controller": True}, **ref)]
    return p


# Each refused upstream (owner references without a kind are not: the scheduler's own test tables
# build PVCs owned by a pod with only its uid, and the plan must read those tables): policy ValidatePodDisruptionBudgetSpec (ValidatePositiveIntOrPercent, IsNotMoreThan100Percent, not both set),
# apps ValidateDeploymentSpec/ReplicaSetSpec/StatefulSetSpec and core ReplicationControllerSpec
# (ValidateNonnegativeField replicas), batch ValidateJobSpec (parallelism).
REFUSED = [
    ("pdb-maxUnavailable-negative", _pdb(maxUnavailable=-1), "PodDisruptionBudget default/b", "spec.maxUnavailable",
     "must be greater than or equal to 0"),
    ("pdb-minAvailable-negative", _pdb(minAvailable=-1), "PodDisruptionBudget default/b", "spec.minAvailable",
     "must be greater than or equal to 0"),
    ("pdb-minAvailable-over-100%", _pdb(minAvailable="150%"), "PodDisruptionBudget default/b", "spec.minAvailable",
     "must not be greater than 100%"),
    ("pdb-both-set", _pdb(minAvailable=1, maxUnavailable=1), "PodDisruptionBudget default/b", "spec",
     "minAvailable and maxUnavailable cannot be both set"),
    ("deployment-replicas-negative", _workload("Deployment", replicas=-2), "Deployment default/w", "spec.replicas",
     "must be greater than or equal to 0"),
    ("replicaset-replicas-negative", _workload("ReplicaSet", replicas=-1), "ReplicaSet default/w", "spec.replicas",
     "must be greater than or equal to 0"),
    ("statefulset-replicas-negative", _workload("StatefulSet", replicas=-3), "StatefulSet default/w", "spec.replicas",
     "must be greater than or equal to 0"),
    ("rc-replicas-negative", _workload("ReplicationController", replicas=-1), "ReplicationController default/w",
     "spec.replicas", "must be greater than or equal to 0"),
    ("job-parallelism-negative", _workload("Job", parallelism=-1), "Job default/w", "spec.parallelism",
     "must be greater than or equal to 0"),
]


@pytest.mark.parametrize("obj, label, field, problem", [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_values_the_api_server_refuses_are_refused(tmp_path, obj, label, field, problem):
    items = [node("n1"), node("n2"), obj] + ([] if obj["kind"] == "Pod" else [pod("p", "n1")])
    p = tmp_path / "c.json"
    p.write_text(json.dumps(snapshot_list(*items)))
    one_error(run_cli("-f", str(p), "drain", "n1", "--force"), str(p), "%s: %s: " % (label, field), problem)


ACCEPTED = [("pdb-0", _pdb(maxUnavailable=0)), ("pdb-100%", _pdb(minAvailable="100%")),
            ("pdb-0%", _pdb(maxUnavailable="0%")), ("deployment-0-replicas", _workload("Deployment", replicas=0)),
            ("owner-without-controller-flag", _owned_pod(controller=None)),
            # tolerations ValidateTolerations accepts: match-all, negative seconds (0: evict at once),
            # Gt/Lt (TaintTolerationComparisonOperators, v1.35 alpha), no operator (Equal)
            ("toleration-match-all", pod("p", "n1", tolerations=[{"operator": "Exists"}])),
            ("toleration-negative-seconds", pod("p", "n1", tolerations=[
                {"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": -5}])),
            ("toleration-gt", pod("p", "n1", tolerations=[{"key": "a", "operator": "Gt", "value": "5"}])),
            ("toleration-no-operator", pod("p", "n1", tolerations=[{"key": "a", "value": "b", "effect": ""}]))]


@pytest.mark.parametrize("obj", [c[1] for c in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_edge_values_the_api_server_accepts_are_read(tmp_path, obj):
    items = [node("n1"), node("n2"), obj] + ([] if obj["kind"] == "Pod" else [pod("p", "n1")])
    p = tmp_path / "c.json"
    p.write_text(json.dumps(snapshot_list(*items)))
    res = run_cli("-f", str(p), "drain", "n1", "--force")
    assert res.returncode != 1 and "error" not in res.stderr, res.stderr
