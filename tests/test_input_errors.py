"""Bad input: one `error:` line naming file, object and field; exit 1; never a traceback."""

import json

import pytest

from conftest import node, pod, run_cli, snapshot_list

_POD_BAD_CPU = pod("web-1", "n1", ns="shop", cpu="lots")
_NODE_BAD_LABEL = node("n1")
_NODE_BAD_LABEL["metadata"]["labels"]["rack"] = 5
_NODE_BAD_TAINT = node("n1", taints=[{"key": "a", "effect": "Sometimes"}])
_POD_NO_NAME = pod("x", "n1")
del _POD_NO_NAME["metadata"]["name"]
_POD_BAD_TYPE = pod("web-2", "n1")
_POD_BAD_TYPE["spec"]["containers"] = {"name": "app"}
_POD_BAD_TGPS = pod("web-3", "n1")
_POD_BAD_TGPS["spec"]["terminationGracePeriodSeconds"] = "thirty"
_PDB_BAD = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p", "namespace": "shop"},
            "spec": {"minAvailable": "half"}}
_NODE_BAD_ALLOC = node("n2", memory="1.5.5Gi")

CASES = [
    # (file name, file content, expected fragments of the one error line)
    ("a.json", json.dumps(snapshot_list(_POD_BAD_CPU)),
     ["a.json", "Pod shop/web-1", "spec.containers[0].resources.requests.cpu", "invalid quantity", "lots"]),
    ("b.json", json.dumps(snapshot_list(_NODE_BAD_LABEL)),
     ["b.json", "Node n1", "metadata.labels.rack", "must be a string"]),
    ("c.json", json.dumps(snapshot_list(_NODE_BAD_TAINT)),
     ["c.json", "Node n1", "spec.taints[0].effect", "unknown taint effect", "Sometimes"]),
    ("d.json", json.dumps(snapshot_list(_POD_NO_NAME)), ["d.json", "Pod", "metadata.name", "without a name"]),
    ("e.json", json.dumps(snapshot_list(_POD_BAD_TYPE)), ["e.json", "Pod default/web-2", "spec.containers", "expected a list"]),
    ("f.json", json.dumps(snapshot_list(_POD_BAD_TGPS)),
     ["f.json", "Pod default/web-3", "spec.terminationGracePeriodSeconds", "expected an integer"]),
    ("g.json", json.dumps(snapshot_list(_PDB_BAD)),
     ["g.json", "PodDisruptionBudget shop/p", "spec.minAvailable", "percentage"]),
    ("h.json", json.dumps(snapshot_list(_NODE_BAD_ALLOC)), ["h.json", "Node n2", "status.capacity.memory", "1.5.5Gi"]),
    ("i.json", '{"apiVersion": "v1", "kind": "List", "items": [1, 2]}', ["i.json", "items[0]", "not an object"]),
    ("j.json", '{"kind": "List", "items": [', ["j.json", "invalid JSON"]),
    ("k.yaml", "kind: Pod\nmetadata: [1, 2]\n", ["k.yaml", "Pod", "metadata", "expected an object"]),
    ("l.yaml", "a: [\n", ["l.yaml", "invalid YAML", "line"]),
    ("m.json", '"just a string"', ["m.json", "expected a Kubernetes object"]),
    ("n.json", '{"kind": 5, "metadata": {"name": "x"}}', ["n.json", "kind", "expected a string"]),
]


@pytest.mark.parametrize("name,content,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_snapshot_is_one_clean_error(tmp_path, name, content, fragments):
    p = tmp_path / name
    p.write_text(content)
    res = run_cli("-f", str(p), "affinity", cwd=tmp_path)
    assert res.returncode == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("error: ")
    for frag in fragments:
        assert frag in lines[0]
    assert "Traceback" not in res.stderr
    assert res.stdout == ""


def _kubelet_config(cfg):
    return {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n1"},
            "kubeletconfig": cfg}


# A NodeKubeletConfig is read only when a command needs it, long after loading; its errors still
# name the file, the object and the field (DESIGN.md "Snapshot input"), on every reading path.
KUBELET_CONFIG_CASES = [
    # (command, kubeletconfig, expected field, expected problem)
    ("pressure", {"evictionHard": {"memory.available": "lots"}}, "kubeletconfig.evictionHard", "quantities must"),
    ("pressure", {"evictionHard": ["memory.available<1Gi"]}, "kubeletconfig.evictionHard", "expected a map"),
    ("pressure", {"evictionMaxPodGracePeriod": "abc"}, "kubeletconfig.evictionMaxPodGracePeriod", "integer"),
    ("pressure", {"systemReserved": {"memory": "lots"}}, "kubeletconfig.systemReserved.memory", "invalid quantity"),
    ("shutdown", {"shutdownGracePeriod": "abc"}, "kubeletconfig.shutdownGracePeriod", "invalid duration"),
    ("shutdown", {"shutdownGracePeriodByPodPriority": [{"priority": "x", "shutdownGracePeriodSeconds": 10}]},
     "kubeletconfig.shutdownGracePeriodByPodPriority[0].priority", "expected an integer"),
    ("shutdown", {"shutdownGracePeriod": "10s", "shutdownGracePeriodCriticalPods": "20s"},
     "kubeletconfig", "shutdownGracePeriodCriticalPods {20s} must be <= shutdownGracePeriod {10s}"),
]


@pytest.mark.parametrize("ext", ["json", "yaml"])
@pytest.mark.parametrize("command,cfg,field,problem", KUBELET_CONFIG_CASES,
                         ids=["%s-%s" % (c[0], c[2]) for c in KUBELET_CONFIG_CASES])
def test_bad_node_kubelet_config_names_file_object_and_field(tmp_path, ext, command, cfg, field, problem):
    import yaml
    doc = snapshot_list(node("n1"), pod("web-1", "n1"), _kubelet_config(cfg))
    p = tmp_path / ("cluster." + ext)
    p.write_text(json.dumps(doc) if ext == "json" else yaml.safe_dump(doc))
    res = run_cli("-f", str(p), command, "n1", cwd=tmp_path)
    assert res.returncode == 1, res.stdout
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert lines[0].startswith("error: %s: NodeKubeletConfig n1: %s: " % (p, field)), lines[0]
    assert problem in lines[0]
    assert res.stdout == ""


def test_missing_file(tmp_path):
    res = run_cli("-f", str(tmp_path / "nope.json"), "affinity")
    assert res.returncode == 1 and res.stderr.startswith("error: ") and "nope.json: no such file" in res.stderr


FLAG_CASES = [
    (["--label", "nope:a=b"], "unknown node 'nope'"),
    (["--label", "worker-a1"], "expected NODE:KEY=VALUE"),
    (["--label", "worker-a1:bad key=v"], "invalid key"),
    (["--taint", "worker-a1:a=b:Sometimes"], "unknown taint effect 'Sometimes'"),
    (["--taint", "worker-a1:NoExecute"], "expected NODE:KEY[=VALUE]:EFFECT"),
    (["--unlabel", "ghost:disktype"], "unknown node 'ghost'"),
]


@pytest.mark.parametrize("args,fragment", FLAG_CASES, ids=[" ".join(a) for a, _ in FLAG_CASES])
def test_bad_flag_values(args, fragment):
    res = run_cli("--demo", "affinity", *args)
    assert res.returncode == 1
    assert res.stderr.startswith("error: ") and fragment in res.stderr and len(res.stderr.splitlines()) == 1
    assert res.stdout == ""


@pytest.mark.parametrize("args", [["affinity", "--bogus"], ["nosuchcommand"], ["-o", "xml", "affinity"],
                                  ["--now", "yesterday", "--demo", "affinity"]])
def test_usage_errors(args):
    res = run_cli(*args)
    if "--now" in args:
        assert res.returncode == 1 and "error: --now: invalid RFC3339 timestamp" in res.stderr
    else:
        assert res.returncode == 2
        assert res.stderr.startswith("error: ")
    assert "Traceback" not in res.stderr
