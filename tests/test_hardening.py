"""Hostile and edge inputs through the console script (issue 22): each ends in one `error:` line
naming the file and the field, or is accepted the way kubectl accepts it; live reads stop on
Ctrl-C at once and never page forever."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, node, pod, run_cli, snapshot_list

sys.path.insert(0, str(Path(__file__).resolve().parent))
from apiserver import ApiServer  # noqa: E402
from kubectl_evict.source import yamltext  # noqa: E402


def one_error(res, *needles: str) -> str:
    """Exit 1, exactly one stderr line starting `error:`, no traceback; returns the line."""
    assert res.returncode == 1, (res.returncode, res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "internal error" not in lines[0] and "Traceback" not in res.stderr
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def _list_text(*items: dict) -> str:
    return json.dumps(snapshot_list(*items))


# --- malformed files: one clean line naming file and field ---------------------------------------

def test_object_nested_50000_deep_names_file_and_field(tmp_path):
    n = node("n1")
    text = _list_text(n).replace('"kubernetes.io/hostname": "n1"',
                                 '"a": ' + '{"x":' * 50000 + '1' + '}' * 50000)
    p = tmp_path / "deep.json"
    p.write_text(text)
    one_error(run_cli("-f", str(p), "drain", "n1"), str(p), "items[1].metadata.labels.a", "nested too deeply")


def test_array_nested_200000_deep_names_file_and_field(tmp_path):
    text = _list_text(node("n1")).replace('"kubernetes.io/hostname": "n1"', '"a": ' + '[' * 200000 + ']' * 200000)
    p = tmp_path / "deep.json"
    p.write_text(text)
    one_error(run_cli("-f", str(p), "drain", "n1"), str(p), "metadata.labels.a[0]", "nested too deeply")


def test_yaml_nested_50000_deep_is_refused_not_a_crash(tmp_path):
    p = tmp_path / "deep.yaml"
    p.write_text("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n    a: "
                 + "{x: " * 50000 + "1" + "}" * 50000 + "\n")
    one_error(run_cli("-f", str(p), "drain", "n1"), str(p), "line 6", "metadata.labels.a.x", "nested more than")


@pytest.mark.parametrize("where", ["label value", "object name"])
def test_raw_e9_byte_in_json_names_the_file(tmp_path, where):
    text = _list_text(node("n1")).encode()
    if where == "label value":   # a subtree the fast reader keeps as raw text, decoded later
        text = text.replace(b'"kubernetes.io/hostname": "n1"', b'"kubernetes.io/hostname": "n\xe9"')
        needles = (str(tmp_path / "bad.json"), "Node n1", "metadata.labels", "not UTF-8 text (byte 0xe9)")
    else:
        text = text.replace(b'"name": "n1"', b'"name": "n\xe9"')
        needles = (str(tmp_path / "bad.json"), "not UTF-8 text (byte 0xe9")
    p = tmp_path / "bad.json"
    p.write_bytes(text)
    one_error(run_cli("-f", str(p), "drain", "n1"), *needles)


def test_number_out_of_range_names_object_and_field(tmp_path):
    text = _list_text(node("n1"), pod("web-1", "n1")).replace('"cpu": "100m"', '"cpu": 1e400')
    p = tmp_path / "big.json"
    p.write_text(text)
    one_error(run_cli("-f", str(p), "drain", "n1"), str(p), "Pod default/web-1", "spec.containers[0].resources",
              "number out of range")


def test_yaml_integer_keys_become_strings_as_kubectl_reads_them(tmp_path):
    # sigs.k8s.io/yaml (YAMLToJSON) turns int keys into their decimal text: `nodeSelector: {1: a}`
    # selects the node labelled "1": "a", so the evicted pod has a place to go
    p = tmp_path / "cluster.yaml"
    p.write_text("""\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {1: a}},
   status: {allocatable: {cpu: '4', memory: 16Gi, pods: '110'}, conditions: [{type: Ready, status: 'True'}]}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {1: a, true: x}},
   status: {allocatable: {cpu: '4', memory: 16Gi, pods: '110'}, conditions: [{type: Ready, status: 'True'}]}}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: default, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u, controller: true}]}
  spec:
    nodeName: n1
    nodeSelector: {1: a}
    containers: [{name: c, image: x}]
  status: {phase: Running}
""")
    res = run_cli("-f", str(p), "-o", "json", "drain", "n1")
    assert res.returncode in (0, 5), res.stderr   # 5: the file holds no ReplicaSet (incomplete input)
    landed = [a for a in json.loads(res.stdout)["actions"] if a.get("target") == "default/web-1"
              or "web-1" in json.dumps(a)]
    assert landed and "n2" in json.dumps(landed), landed


def test_yaml_null_or_mapping_key_is_refused_with_its_line(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n    ~: a\n")
    one_error(run_cli("-f", str(p), "drain", "n1"), str(p), "line 6", "unsupported map key: null")


def test_yaml_keys_convert_like_sigs_k8s_yaml():
    docs = yamltext.load_all(b"{1: a, 2.5: b, true: c, '3': d, 0x10: e}\n", "t.yaml")
    assert docs == [{"1": "a", "2.5": "b", "true": "c", "3": "d", "16": "e"}]


def test_unquoted_yaml_timestamps_are_accepted_as_strings(tmp_path):
    p = tmp_path / "hand.yaml"
    p.write_text("""\
apiVersion: v1
kind: Node
metadata:
  name: n1
  creationTimestamp: 2026-11-21T10:00:00Z
status:
  allocatable: {cpu: '4', memory: 16Gi, pods: '110'}
  conditions:
  - type: Ready
    status: 'True'
    lastHeartbeatTime: 2026-11-21T11:59:00.5Z
    lastTransitionTime: 2026-01-01T02:00:00+02:00
""")
    res = run_cli("-f", str(p), "--now", "2026-11-21T12:00:00Z", "drain", "n1")
    assert res.returncode == 5, res.stderr     # planned; 5: a node alone, its pods are not in the input
    assert "datetime" not in res.stderr
    # as sigs.k8s.io/yaml (go-yaml v2 into interface{}) keeps them: the text as written
    assert yamltext.load_all(b"a: 2026-11-21 11:59:00.5\nb: 2026-01-01\nc: 2026-11-21T10:00:00+02:00\n", "t") == \
        [{"a": "2026-11-21 11:59:00.5", "b": "2026-01-01", "c": "2026-11-21T10:00:00+02:00"}]


def test_out_of_memory_says_so_and_names_the_file(tmp_path):
    p = tmp_path / "huge.yaml"
    with open(p, "w") as f:
        f.write("apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n    a: ")
        f.write("x" * 80_000_000)
        f.write("\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("EVICTPLAN_DEBUG", None)
    res = subprocess.run(["sh", "-c", 'ulimit -v 200000; exec "$0" -m kubectl_evict -f "$1" drain n1',
                          sys.executable, str(p)], capture_output=True, text=True, env=env, timeout=120)
    one_error(res, str(p), "out of memory", "76 MB")


def test_yaml_list_streams_the_same_objects_as_json(tmp_path):
    """The streamed, pruned YAML path freezes to the same plan as the JSON path."""
    import yaml
    items = [node("n1"), node("n2"), pod("web-1", "n1"), pod("web-2", "n2")]
    data = snapshot_list(*items)
    (tmp_path / "c.json").write_text(json.dumps(data))
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(data))
    a = run_cli("-f", str(tmp_path / "c.json"), "-o", "json", "drain", "n1")
    b = run_cli("-f", str(tmp_path / "c.yaml"), "-o", "json", "drain", "n1")
    assert a.returncode == b.returncode and a.returncode in (0, 5), (a.stderr, b.stderr)
    assert a.stdout.replace("c.json", "c.yaml") == b.stdout


# --- live: credentials, server URL ---------------------------------------------------------------

def _exec_kubeconfig(path: Path, server: str, command: str) -> Path:
    cfg = {"apiVersion": "v1", "kind": "Config",
           "clusters": [{"name": "c", "cluster": {"server": server}}],
           "users": [{"name": "u", "user": {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                                                     "command": command, "interactiveMode": "Never"}}}],
           "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}], "current-context": "c"}
    path.write_text(json.dumps(cfg))
    return path


@pytest.mark.parametrize("plugin, said", [
    ("#!/bin/sh\necho 'oidc: refresh token expired; log in again' >&2\nexit 1\n", "oidc: refresh token expired"),
    (None, "No such file or directory"),
    ("#!/bin/sh\necho 'this is not an ExecCredential'\n", "failed to decode process output"),
])
def test_failing_exec_credential_plugin_is_reported_once(tmp_path, plugin, said):
    script = tmp_path / "cred.sh"
    if plugin is not None:
        script.write_text(plugin)
        script.chmod(0o755)
    with ApiServer([node("n1")], tokens={"good": "admin"}) as srv:
        kc = _exec_kubeconfig(tmp_path / "kc", srv.url, str(script))
        res = run_cli("--kubeconfig", str(kc), "drain", "n1")
        line = one_error(res, "getting credentials from exec plugin %s" % script, said)
        assert "401" not in line and "ERROR:root" not in res.stderr and "urllib3" not in res.stderr
        assert srv.requests == []   # nothing sent without credentials


@pytest.mark.parametrize("how", ["kubeconfig", "flag"])
def test_server_without_scheme_is_refused_as_kubectl_does(tmp_path, how):
    if how == "kubeconfig":
        kc = _exec_kubeconfig(tmp_path / "kc", "htp//oops", "true")
        cfg = json.loads(kc.read_text())
        cfg["users"][0]["user"] = {"token": "t"}
        kc.write_text(json.dumps(cfg))
        res = run_cli("--kubeconfig", str(kc), "drain", "n1")
        field = "cluster.server"
    else:
        res = run_cli("--server", "htp//oops", "drain", "n1", env={"KUBECONFIG": str(tmp_path / "none")})
        field = "--server"
    one_error(res, field, 'host must be a URL or a host:port pair: "htp//oops"')
    assert "FutureWarning" not in res.stderr


# --- live: Ctrl-C, a continue token answered forever ----------------------------------------------

def test_ctrl_c_during_a_live_read_stops_at_once_with_130(tmp_path):
    with ApiServer([node("n1"), pod("web-1", "n1")]) as srv:
        srv.faults.add("GET", r"^/api/v1/pods", delay=30, times=None)
        kc = srv.write_kubeconfig(tmp_path / "kc")
        env = dict(os.environ, PYTHONPATH=str(REPO))
        proc = subprocess.Popen([sys.executable, "-m", "kubectl_evict", "--kubeconfig", str(kc), "drain", "n1"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            deadline = time.time() + 60
            while not any(p.startswith("/api/v1/pods") for _, p in list(srv.requests)):
                assert time.time() < deadline, "the pods list was never requested"
                time.sleep(0.1)
            time.sleep(0.3)
            sent = time.time()
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=20)
            took = time.time() - sent
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 130, (proc.returncode, err)
        assert took < 5, "waited %.1fs for the request in flight" % took
        assert err.strip().splitlines()[-1] == "error: interrupted"
        assert "Traceback" not in err


def test_a_continue_token_answered_forever_fails_clearly(tmp_path):
    pods = [pod("web-%d" % i, "n1") for i in range(600)]   # more than one page of 500
    with ApiServer([node("n1"), *pods]) as srv:
        srv.stuck_continue.add("pods")
        kc = srv.write_kubeconfig(tmp_path / "kc")
        res = run_cli("--kubeconfig", str(kc), "drain", "n1")
        one_error(res, "listing pods", "continue token it had already given", "page forever")
        assert sum(1 for _, p in srv.requests if p.startswith("/api/v1/pods")) == 2


def test_unreachable_kubelets_fold_into_one_warning(tmp_path):
    """The demo has no kubelet data for most nodes: the proxy answers 503 for each (with the node's
    own address). Like the 403 case, that is one warning naming the nodes, not one per node."""
    from kubectl_evict.source.files import DEMO_PATH
    with ApiServer(DEMO_PATH) as srv:
        kc = srv.write_kubeconfig(tmp_path / "kc")
        res = run_cli("--kubeconfig", str(kc), "pressure")
        assert res.returncode in (0, 3, 4), res.stderr
        warnings = [line for line in res.stderr.splitlines() if line.startswith("warning: ")]
        unreachable = [w for w in warnings if "not read (503" in w]
        assert len(unreachable) == 1, res.stderr
        assert "nodes)" in unreachable[0] and "connection refused" in unreachable[0]
        assert "defaults for them" in unreachable[0]


# --- what the tables show -------------------------------------------------------------------------

def test_many_blocked_reasons_wrap_whole_at_60_columns(tmp_path, write_snapshot):
    names = ["standalone-batch-runner-with-a-long-name-%02d" % i for i in range(12)]
    path = write_snapshot(node("n1"), node("n2"), *[pod(n, "n1", owner=None) for n in names])
    res = run_cli("-f", path, "drain", "n1", env={"COLUMNS": "60"})
    assert res.returncode == 3, res.stderr
    blocked = res.stdout.split("\nBLOCKED\n", 1)[1].split("\n\n", 1)[0]
    assert "\u2026" not in blocked and "..." not in blocked
    for n in names:   # never cut, and each fix hint whole (its words wrapped onto more lines)
        assert "default/%s  n1" % n in blocked
    assert " ".join(blocked.split()).count("(use --force to override)") == 12
    for line in blocked.splitlines():
        assert len(line) <= 60 or not line.startswith(" "), line


def test_names_and_states_are_never_cut_at_60_columns():
    res = run_cli("--demo", "-o", "table", "drain", "worker-a1", "--ignore-daemonsets", "--delete-emptydir-data",
                  "--force", env={"COLUMNS": "60"})
    doc = run_cli("--demo", "-o", "json", "drain", "worker-a1", "--ignore-daemonsets", "--delete-emptydir-data",
                  "--force")
    assert res.returncode == doc.returncode == 3
    assert "Deployment analytics/spark-driver" in res.stdout and " OUTAGE" in res.stdout
    assert "OUTA\u2026" not in res.stdout
    for a in json.loads(doc.stdout)["actions"]:
        if a.get("pod"):
            assert "%s/%s" % (a["namespace"], a["pod"]) in res.stdout


def test_c_locale_prints_ascii():
    res = run_cli("--demo", "drain", "worker-a1", "--ignore-daemonsets", "--delete-emptydir-data", "--force",
                  env={"LC_ALL": "C", "COLUMNS": "80", "PYTHONIOENCODING": None})
    assert res.returncode == 3
    assert res.stdout.isascii(), [c for c in res.stdout if not c.isascii()][:5]
    assert "..." in res.stdout   # the reasons are still cut, with three dots


# --- help says what the product does --------------------------------------------------------------

@pytest.mark.parametrize("command", ["affinity", "apply", "completion", "controller", "drain", "pressure",
                                     "shutdown", "snapshot"])
def test_help_examples_are_safe_to_paste_into_a_shell(command):
    """An example with an unquoted `<` (memory.available<500Mi) is a redirect in bash."""
    import shlex
    res = run_cli(command, "--help")
    assert res.returncode == 0, res.stderr
    lines = [line.strip() for line in res.stdout.splitlines()]
    for i, line in enumerate(lines):
        if not line.startswith(("kubectl evictplan", "source <(")):
            continue
        while line.endswith("\\") and i + 1 < len(lines):   # an example continued on the next line
            i += 1
            line = line[:-1] + " " + lines[i]
        lexer = shlex.shlex(line.split("  #", 1)[0], posix=True, punctuation_chars=True)
        tokens = list(lexer)
        assert "<" not in tokens, line


def test_drain_help_shows_timeout_with_its_planning_meaning():
    res = run_cli("drain", "--help")
    text = " ".join(res.stdout.split())
    assert "--timeout DURATION" in text and "changes the plan (drain-timeout)" in text
    assert "--dry-run none|client|server" in text


def test_options_describes_both_meanings_of_timeout():
    text = " ".join(run_cli("options").stdout.split())
    assert "apply: how long each action may retry" in text
    assert "drain: kubectl drain's --timeout, a plan parameter" in text


def test_yaml_anchors_and_merge_keys_read_as_go_yaml_does():
    docs = yamltext.load_all(b"base: &b {a: 1, c: 0}\nx:\n  <<: *b\n  c: 2\ny: *b\n", "t.yaml")
    assert docs == [{"base": {"a": 1, "c": 0}, "x": {"a": 1, "c": 2}, "y": {"a": 1, "c": 0}}]


@pytest.mark.parametrize("kind, needle", [("NodeKubeletConfig", "not UTF-8 text"),
                                          ("NodeStatsSummary", "not UTF-8 text")])
def test_bad_kubelet_documents_are_named_when_a_rule_reads_them(tmp_path, kind, needle):
    """Kubelet documents stay undecoded until a rule reads them (speed); what is wrong in them is
    still one line naming the file, the document and the field."""
    n = node("n1")
    cfg = {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n1"},
           "kubeletconfig": {"evictionHard": {"memory.available": "100Mi"}, "x": "XX"}}
    summ = {"apiVersion": "evictplan/v1alpha1", "kind": "NodeStatsSummary", "metadata": {"name": "n1"},
            "summary": {"node": {"nodeName": "n1", "memory": {"availableBytes": 1}, "x": "XX"}, "pods": []}}
    text = json.dumps(snapshot_list(n, cfg if kind == "NodeKubeletConfig" else summ)).encode()
    text = text.replace(b'"XX"', b'"\xe9"')
    p = tmp_path / "kubelet.json"
    p.write_bytes(text)
    field = "kubeletconfig" if kind == "NodeKubeletConfig" else "summary"
    one_error(run_cli("-f", str(p), "pressure", "n1"), str(p), "%s n1" % kind, field, needle)


def test_out_of_range_stats_number_is_a_clean_error(tmp_path):
    """A kubelet stat no uint64 holds (here 1e400) is bad input, as a string there is: one line
    naming the file, the summary and the field, no internal error."""
    summ = {"apiVersion": "evictplan/v1alpha1", "kind": "NodeStatsSummary", "metadata": {"name": "n1"},
            "summary": {"node": {"nodeName": "n1", "memory": {"availableBytes": "BIG"}}, "pods": []}}
    p = tmp_path / "stats.json"
    p.write_bytes(json.dumps(snapshot_list(node("n1"), summ)).encode().replace(b'"BIG"', b"1e400"))
    one_error(run_cli("-f", str(p), "pressure", "n1"), str(p), "NodeStatsSummary n1",
              "summary.node.memory.availableBytes", "out of range")


# A full disk is the user's to fix, not a bug of ours: `snapshot > cluster.json` or a plan
# redirected to a full filesystem says why it could not write, in one line (exit 1).
@pytest.mark.parametrize("args", [("--demo", "drain", "worker-a1"), ("--demo", "-o", "json", "controller")])
def test_output_to_a_full_disk_says_so(args):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("EVICTPLAN_DEBUG", None)
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "kubectl_evict", *args], stdout=full, stderr=subprocess.PIPE,
                              text=True, env=env, timeout=120)
    res = subprocess.CompletedProcess(proc.args, proc.returncode, "", proc.stderr)
    one_error(res, "cannot write the output: No space left on device")
