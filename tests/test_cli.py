"""The command line as users and scripts see it: formats, determinism, exit codes, inputs."""

import json
import re

import pytest
import yaml

from conftest import NOW, REPO, node, pod, run_cli, snapshot_list, with_owners


def test_json_plan_matches_contract_shape():
    res = run_cli("--demo", "-o", "json", "affinity", "--taint", "worker-a2:maintenance=true:NoExecute")
    assert res.returncode in (0, 3), res.stderr
    doc = json.loads(res.stdout)
    assert list(doc)[:10] == ["apiVersion", "kind", "command", "now", "actions", "blocked", "shortfall", "skipped",
                              "workloads", "warnings"]
    assert doc["apiVersion"] == "evictplan/v1alpha1" and doc["kind"] == "EvictionPlan"
    assert doc["command"] == "affinity" and doc["now"] == "2026-11-21T12:00:00Z"
    deletes = [a for a in doc["actions"] if a["type"] == "delete"]
    assert deletes
    for a in deletes:
        assert set(["namespace", "pod", "uid", "node", "at", "gracePeriodSeconds", "force", "by", "rule", "reason"]) <= set(a)
        assert isinstance(a["at"], (int, float)) and a["rule"] == "affinity" and a["force"] is False
        assert a["by"] == "taint-eviction-controller"           # the controller deletes them, not apply
    [taint] = [a for a in doc["actions"] if a["type"] == "taint"]
    assert taint["by"] == "user"                                 # the operator's own change
    ats = [a["at"] for a in doc["actions"]]
    assert ats == sorted(ats)
    for e in doc["skipped"] + doc["blocked"] + doc["shortfall"]:
        assert set(e) == {"namespace", "pod", "node", "code", "reason"}
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", e["code"])


def test_yaml_equals_json():
    a = run_cli("--demo", "-o", "json", "affinity", "--unlabel", "worker-b1:disktype")
    b = run_cli("--demo", "-o", "yaml", "affinity", "--unlabel", "worker-b1:disktype")
    assert json.loads(a.stdout) == yaml.safe_load(b.stdout)


@pytest.mark.parametrize("fmt", ["table", "wide", "json", "yaml"])
def test_byte_identical_output(fmt):
    args = ["--demo", "-o", fmt, "affinity", "--label", "worker-b1:disktype=hdd", "--taint", "worker-a2:k=v:NoExecute"]
    first, second = run_cli(*args), run_cli(*args)
    assert first.stdout == second.stdout and first.stdout


# DESIGN "Command line": options may be given before or after COMMAND, for every command, and
# -f repeats; the exit code is the plan's (3 blocked, 4 shortfall) wherever they are written.
@pytest.mark.parametrize("command,code", [
    (("affinity", "--unlabel", "worker-b1:disktype"), 0),
    (("drain", "worker-a1"), 3),
    (("controller", "--fail", "worker-a1"), 4),
    (("pressure", "worker-b2"), 0),
    (("shutdown", "worker-a1"), 4),
    (("upgrade", "worker-a1"), 3),
])
def test_options_before_or_after_command(tmp_path, command, code):
    demo = json.loads((REPO / "kubectl_evict" / "demo" / "cluster.json").read_text())
    half = len(demo["items"]) // 2
    a, b = tmp_path / "a.json", tmp_path / "b.yaml"
    a.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": demo["items"][:half]}))
    b.write_text(yaml.safe_dump_all(demo["items"][half:]))
    runs = [run_cli("--demo", "-o", "json", "--now", NOW, *command),
            run_cli(*command, "--demo", "-o", "json", "--now", NOW),
            run_cli("-o", "json", *command, "--now", NOW, "--demo"),
            run_cli("-f", str(a), "-o", "json", *command, "--now", NOW, "-f", str(b)),
            run_cli(*command, "-f", str(a), "-f", str(b), "--now=" + NOW, "--output=json")]
    for res in runs:
        assert res.returncode == code, res.stderr
        assert res.stdout == runs[0].stdout and json.loads(res.stdout)["command"] == command[0]


def _section(out: str, first_header: str) -> list:
    """The lines of the table whose header line starts with `first_header`."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:1] == [first_header])
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].strip()), len(lines))
    return lines[start:end]


def test_table_sections_and_summary():
    res = run_cli("--demo", "affinity", "--taint", "worker-a2:maintenance=true:NoExecute", "--unlabel", "worker-b1:disktype")
    out = res.stdout
    kind, where = out.splitlines()[:2]
    # the taint, the label removal and the RequiredDuringExecution eviction evictplan adds
    assert kind.startswith("PLAN (affinity): 3 actions by you (what apply carries out), ")
    assert "forecasts of what Kubernetes then does by itself" in kind
    assert where == "cluster: context demo (https://demo.evictplan.invalid:6443); now: 2026-11-21T12:00:00Z"
    # verdict first, then the actions, with where each pod lands
    assert out.index("VERDICT: ") < out.index("\nAT ")
    assert _section(out, "AT")[0].split() == ["AT", "ACTION", "OBJECT", "NODE", "TARGET", "REASON"]
    assert "\nSKIPPED\n" in out
    last = out.rstrip().splitlines()[-1]
    assert last.startswith("1 taint, 1 label removal, 1 eviction, ") and "deletions on 2 nodes" in last
    assert last.endswith("skipped")


def test_wide_adds_by_rule_grace_candidates_and_never_cuts():
    res = run_cli("--demo", "-o", "wide", "affinity", "--unlabel", "worker-b1:disktype", env={"COLUMNS": "80"})
    assert _section(res.stdout, "AT")[0].split() == ["AT", "ACTION", "OBJECT", "NODE", "TARGET", "BY", "RULE", "GRACE",
                                                     "CANDIDATES", "REASON"]
    assert "\u2026" not in res.stdout


def test_stdin_and_directory_inputs(tmp_path):
    items = snapshot_list(node("n1"), node("n2"), pod("web-1", "n1"))
    text = json.dumps(items)
    via_stdin = run_cli("-f", "-", "-o", "json", "affinity", "--taint", "n1:k=v:NoExecute", input=text)
    d = tmp_path / "snap"
    d.mkdir()
    # the ReplicaSet web-1 names is in the cluster (a.json holds every kind)
    (d / "a.json").write_text(json.dumps(snapshot_list(node("n1"), node("n2"), *with_owners([pod("web-1", "n1")])[1:])))
    (d / "b.yaml").write_text(yaml.safe_dump_all([pod("web-1", "n1")]))
    (d / "notes.txt").write_text("ignored")
    via_dir = run_cli("-f", str(d), "-o", "json", "affinity", "--taint", "n1:k=v:NoExecute")
    assert via_stdin.returncode == 0 and via_dir.returncode == 0, via_dir.stderr
    a, b = json.loads(via_stdin.stdout), json.loads(via_dir.stdout)
    assert a["actions"] == b["actions"]
    taint, act = a["actions"]
    assert (taint["type"], taint["node"], taint["key"], taint["value"], taint["effect"]) == ("taint", "n1", "k", "v", "NoExecute")
    assert (act["type"], act["pod"], act["at"], act["target"]) == ("delete", "web-1", 0, "n2")


# A directory stands for its own *.json, *.yaml and *.yml files, as `kubectl -f DIR` without -R
# reads it (cli-runtime ExpandPathsToFileVisitors skips every subdirectory, whatever its name).
@pytest.mark.parametrize("subdir", ["nested", "more.json", "old.yaml"])
def test_a_directory_does_not_read_its_subdirectories(tmp_path, subdir):
    d = tmp_path / "snap"
    (d / subdir).mkdir(parents=True)
    (d / "a.json").write_text(json.dumps(snapshot_list(node("n1"), node("n2"))))
    (d / subdir / "b.json").write_text(json.dumps(node("n3")))
    res = run_cli("-f", str(d), "--now", NOW, "-o", "json", "drain", "n3")
    assert res.returncode == 1 and res.stderr == 'error: node "n3" not found in the snapshot\n', res.stderr


def test_kubectl_get_output_loads_as_is(tmp_path):
    """What `kubectl get nodes,pods -A -o yaml` prints: a v1 List with metadata.resourceVersion."""
    doc = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
           "items": [node("n1"), node("n2"), pod("web-1", "n1")]}
    p = tmp_path / "k.yaml"
    p.write_text(yaml.safe_dump(doc))
    res = run_cli("-f", str(p), "--now", NOW, "-o", "json", "affinity", "--taint", "n1:k=v:NoExecute")
    # nodes and pods only: the pod's ReplicaSet is not in the input, so its readiness total is unknown (exit 5)
    assert res.returncode == 5 and json.loads(res.stdout)["actions"][1]["pod"] == "web-1"
    assert [e["kind"] for e in json.loads(res.stdout)["incomplete"]] == ["ReplicaSet"]


def test_multi_document_yaml_and_typed_list_without_item_kinds(tmp_path):
    raw_node = node("n1")
    raw_pod = pod("web-1", "n1")
    del raw_pod["kind"]
    typed = {"kind": "PodList", "apiVersion": "v1", "items": [raw_pod]}
    p = tmp_path / "m.yaml"
    p.write_text(yaml.safe_dump_all([raw_node, node("n2"), typed]))
    res = run_cli("-f", str(p), "-o", "json", "affinity", "--taint", "n1:k=v:NoExecute")
    assert res.returncode == 5, res.stderr      # no ReplicaSet in the input (see above)
    assert json.loads(res.stdout)["actions"][1]["pod"] == "web-1"


# kubectl reads a JSON file as a stream of values (cli-runtime StreamVisitor with
# YAMLOrJSONDecoder: `kubectl get pods -o json | jq -c '.items[]'` prints one object per line,
# and `kubectl apply -f` takes it); `null`s in it are skipped. Each object, or a List, counts.
@pytest.mark.parametrize("sep", ["\n", "", "\n\n  null\n"])
@pytest.mark.parametrize("stdin", [False, True])
def test_a_json_stream_reads_as_kubectl_reads_it(tmp_path, sep, stdin):
    objs = snapshot_list(node("n1"), node("n2"), pod("web-1", "n1"))["items"]   # SnapshotInfo, n1, n2, web-1
    text = sep.join(json.dumps(o) for o in objs[:2]) + sep + json.dumps({"apiVersion": "v1", "kind": "List",
                                                                       "items": objs[2:]})
    whole = run_cli("-f", "-", "--now", NOW, "-o", "json", "affinity", "--taint", "n1:k=v:NoExecute",
                    input=json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    p = tmp_path / "stream.json"
    p.write_text(text)
    args = ("--now", NOW, "-o", "json", "affinity", "--taint", "n1:k=v:NoExecute")
    res = run_cli("-f", "-", *args, input=text) if stdin else run_cli("-f", str(p), *args)
    assert res.returncode == whole.returncode == 0, res.stderr
    assert json.loads(res.stdout)["actions"] == json.loads(whole.stdout)["actions"]


@pytest.mark.parametrize("text,problem", [
    ('{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}\n{"kind": "Pod",', "line 2"),
    ('{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}\n{"kind": NaN}', "NaN"),
    ('{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}} x', "line 1 column 66"),
])
def test_a_broken_json_stream_is_one_error_line(tmp_path, text, problem):
    p = tmp_path / "stream.json"
    p.write_text(text)
    res = run_cli("-f", str(p), "drain", "n1")
    assert res.returncode == 1 and res.stderr.count("\n") == 1, res.stderr
    assert res.stderr.startswith("error: %s: invalid JSON" % p) and problem in res.stderr, res.stderr


def test_version():
    res = run_cli("--version")
    assert res.returncode == 0 and res.stdout.startswith("kubectl-evictplan ") and "Python 3." in res.stdout
    assert run_cli("version").stdout == res.stdout


def test_help_has_no_traceback_and_lists_commands():
    res = run_cli("--help")
    assert res.returncode == 0 and "affinity" in res.stdout and "Commands:" in res.stdout


# A plan's `now` is RFC 3339 (`date-fullyear` is four digits), in UTC, whatever offset --now was
# given in, so that `apply` and `verify` read it back.
@pytest.mark.parametrize("given,now", [
    ("2026-11-21T13:30:00+01:30", "2026-11-21T12:00:00Z"),
    ("2026-11-21T12:00:00.25Z", "2026-11-21T12:00:00.25Z"),
    ("0999-12-31T23:59:59Z", "0999-12-31T23:59:59Z"),
    ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"),
])
def test_now_is_printed_as_rfc3339_utc(tmp_path, given, now):
    res = run_cli("--demo", "--now", given, "-o", "json", "affinity")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["now"] == now
    plan = tmp_path / "plan.json"
    plan.write_text(res.stdout)
    again = run_cli("apply", str(plan), "--dry-run=server")
    assert again.stderr.startswith("error: this ") and "nothing to apply" in again.stderr, again.stderr  # read back
