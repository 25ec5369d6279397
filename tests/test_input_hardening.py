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
