"""What the input holds, kind by kind, through the CLI (issue 21).

- The demo cluster with and without each kind a verdict depends on: with it the plan is the
  demo's own; without it the plan claims nothing the input cannot show, lists the kind in
  `incomplete` and exits 5 when nothing else is wrong.
- Every real capture in tests/data/real through every planning command: a plan or a clean
  `error:`, never an internal error.
- Bad input: unknown kinds and objects without a kind are named in one warning; our own
  outputs (EvictionPlan, PlanVerification) given as input are refused.
- API-server defaults (`pkg/apis/core/v1/defaults.go`) and the plan time when the input records
  none.
- The README's kinds, its `kubectl get` recipe, the RBAC role and the krew caveats against the
  one table of kinds the live reader lists (`source/live.py` LISTS).
"""

from __future__ import annotations

import json
import re
import textwrap
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import pytest
import yaml

from conftest import FIXTURES, NOW, REPO, complete_kinds, node, pod, run_cli, snapshot_list

from kubectl_evict.source.files import DEMO_PATH
from kubectl_evict.source.freeze import KUBELET_KINDS
from kubectl_evict.source.live import LISTS, event_list
from kubectl_evict.timeutil import parse_time

DEMO = json.loads(Path(DEMO_PATH).read_text())


def _demo_without(tmp_path: Path, kinds: Sequence[str]) -> str:
    """The demo cluster with no object of `kinds`, and a SnapshotInfo that no longer lists them."""
    doc = json.loads(json.dumps(DEMO))
    doc["items"] = [i for i in doc["items"] if i["kind"] not in kinds]
    for i in doc["items"]:
        if i["kind"] == "SnapshotInfo":
            i["kinds"] = [k for k in i["kinds"] if k not in kinds]
    p = tmp_path / "without.json"
    p.write_text(json.dumps(doc))
    return str(p)


def _json(res: Any) -> Dict[str, Any]:
    assert res.returncode in (0, 3, 4, 5), res.stderr
    assert "Traceback" not in res.stderr
    return json.loads(res.stdout)


def _reasons(doc: Dict[str, Any]) -> List[str]:
    return [x["reason"] for key in ("actions", "blocked", "shortfall", "skipped") for x in doc[key]]


def _no_pdb_claim(full: dict, part: dict) -> None:
    assert any("no PodDisruptionBudget covers it" in r for r in _reasons(full))
    assert not any("no PodDisruptionBudget covers it" in r for r in _reasons(part))
    assert any("PodDisruptionBudgets are not in the input" in r for r in _reasons(part))


def _no_volume_claim(full: dict, part: dict) -> None:
    for r in _reasons(part):
        assert "persistentvolumeclaim" not in r.lower() or "not found" not in r
    assert {e["pod"] for e in part["shortfall"]} <= {e["pod"] for e in full["shortfall"]}


def _no_false_outage(full: dict, part: dict) -> None:
    """Without ReplicaSets the workloads are named by ReplicaSet, but every replica in the input
    is counted: the ready totals are the Deployments' own, and no new outage appears."""
    def totals(doc: dict) -> List[int]:
        return sorted(w["ready"] for w in doc["workloads"])
    assert totals(part) == totals(full)
    outages = lambda doc: sum(1 for w in doc["workloads"] if w["readyMin"] == 0 and w["ready"] > 0)  # noqa: E731
    assert outages(part) == outages(full)


def _no_kills_claimed(full: dict, part: dict) -> None:
    assert full["actions"] and not part["actions"]
    assert "no node is under pressure or over a local-storage limit" not in part.get("notes", [])


def _same_actions(full: dict, part: dict) -> None:
    assert [(a["type"], a.get("pod"), a.get("target")) for a in part["actions"]] == \
        [(a["type"], a.get("pod"), a.get("target")) for a in full["actions"]]


def _affected_reasons_say_so(full: dict, part: dict) -> None:
    """The contract: "the reasons of affected entries say 'not in the input' instead of asserting
    absence". The pods `incomplete` names keep their actions, whose reasons now say it; the
    complete input's plan has no such caveat."""
    named = {ref for e in part["incomplete"] for ref in re.findall(r"[a-z0-9-]+/[a-z0-9-]+", e["effect"])}
    assert named, part["incomplete"]
    affected = [a for a in part["actions"] if "%s/%s" % (a.get("namespace"), a.get("pod")) in named]
    assert affected and all("not in the input" in a["reason"] for a in affected), affected
    assert not any("not in the input" in r for r in _reasons(full))


DRAIN_A1 = ["drain", "worker-a1", "--ignore-daemonsets", "--delete-emptydir-data", "--force"]

# (kinds left out, command, the kind `incomplete` must list, the exit code without them, check)
KIND_CASES = [
    (["PodDisruptionBudget"], ["drain", "worker-b1", "--ignore-daemonsets", "--delete-emptydir-data"],
     "PodDisruptionBudget", 5, _no_pdb_claim),
    (["PersistentVolumeClaim"], ["shutdown", "worker-c2", "--non-graceful"], "PersistentVolumeClaim", 5,
     _no_volume_claim),
    (["PersistentVolume"], ["shutdown", "worker-c2", "--non-graceful"], "PersistentVolume", 5, _no_volume_claim),
    (["StorageClass", "CSINode"], ["shutdown", "worker-c2", "--non-graceful"], "CSINode", 5, _no_volume_claim),
    (["ReplicaSet", "Deployment"], DRAIN_A1, "ReplicaSet", 3, _no_false_outage),
    (["StatefulSet"], ["shutdown", "worker-c2", "--non-graceful"], "StatefulSet", 5, _same_actions),
    (["PersistentVolumeClaim", "PersistentVolume", "StorageClass"],
     ["drain", "worker-c4", "--ignore-daemonsets", "--delete-emptydir-data", "--force"], "PersistentVolumeClaim", 3,
     _affected_reasons_say_so),
    (["Lease"], ["controller", "--fail", "worker-a1"], "Lease", 4, _same_actions),
    (["NodeStatsSummary"], ["pressure"], "NodeStatsSummary", 5, _no_kills_claimed),
    # (exit 4, not 5: without graceful shutdown spark-driver, deleted at +5m55s, fits no node, as in
    # `controller --fail worker-a1`; a shortfall wins over incomplete)
    (["NodeKubeletConfig"], ["shutdown", "worker-a1"], "NodeKubeletConfig", 4, None),
]


@pytest.mark.parametrize("drop,args,kind,code,check", KIND_CASES, ids=["-".join(c[0]) for c in KIND_CASES])
def test_demo_with_and_without_a_kind(tmp_path: Path, drop: List[str], args: List[str], kind: str, code: int,
                                      check: Any) -> None:
    full_res = run_cli("--demo", "-o", "json", *args)
    full = _json(full_res)
    assert full["incomplete"] == [], "the demo is a complete cluster"
    part_res = run_cli("-f", _demo_without(tmp_path, drop), "-o", "json", *args)
    part = _json(part_res)
    assert part_res.returncode == code, part_res.stdout[-2000:]
    entry = next(e for e in part["incomplete"] if e["kind"] == kind)
    assert entry["effect"]
    assert any(w.startswith("incomplete input: no %s in the input: " % kind) for w in part["warnings"])
    if check is not None:
        check(full, part)
    table = run_cli("-f", _demo_without(tmp_path, drop), *args)
    verdict = next(line for line in table.stdout.splitlines() if line.startswith("VERDICT: "))
    assert "not checked: the input holds no" in verdict and kind in verdict


@pytest.mark.parametrize("drop", [False, True])
def test_non_graceful_shutdown_claims_no_volume_attachments_it_cannot_see(tmp_path: Path, drop: bool) -> None:
    """worker-c4 has VolumeAttachments: with them the plan lists their detaches; without the kind
    it lists none and says `null` (not `[]`: that would assert the node has none) and why."""
    args = ["shutdown", "worker-c4", "--non-graceful"]
    res = run_cli("-f", _demo_without(tmp_path, ["VolumeAttachment"]), "-o", "json", *args) if drop else \
        run_cli("--demo", "-o", "json", *args)
    doc = _json(res)
    detaches = [a for a in doc["actions"] if a["type"] == "detach"]
    report = doc["shutdown"][0]
    note = "node/worker-c4: VolumeAttachments are not in the input"
    if drop:
        assert detaches == [] and report["volumeAttachments"] is None
        assert any(n.startswith(note) for n in doc["notes"]), doc["notes"]
    else:
        assert detaches and report["volumeAttachments"] == [a["volumeAttachment"] for a in detaches]
        assert not any(n.startswith(note) for n in doc["notes"])


def test_namespace_selector_without_namespaces(tmp_path: Path) -> None:
    """A replacement whose required anti-affinity selects pods by namespace labels: with the
    Namespaces it avoids the node of the matching pod; without them the term is not evaluated
    and the plan says so instead of placing it as if no namespace matched."""
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname",
         "namespaceSelector": {"matchLabels": {"team": "data"}}}]}}
    items = [node("n1"), node("n2"), node("n3", cpu="8"),
             pod("web-1", "n1", labels={"app": "web"}, affinity=anti),
             pod("db-1", "n3", ns="data", labels={"app": "db"}, owner=("ReplicaSet", "db")),
             {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "data", "labels": {"team": "data"}}},
             {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}]
    with_ns = tmp_path / "with.json"
    with_ns.write_text(json.dumps(snapshot_list(*items)))
    without = tmp_path / "without.json"
    without.write_text(json.dumps(snapshot_list(*[i for i in items if i["kind"] != "Namespace"],
                                                kinds=[k for k in complete_kinds() if k != "Namespace"])))
    full = _json(run_cli("-f", str(with_ns), "--now", NOW, "-o", "json", "drain", "n1"))
    assert full["incomplete"] == [] and full["actions"][1]["target"] == "n2"   # n3 runs the data/db pod
    res = run_cli("-f", str(without), "--now", NOW, "-o", "json", "drain", "n1")
    part = _json(res)
    assert res.returncode == 5
    assert [e["kind"] for e in part["incomplete"]] == ["Namespace"]
    assert "InterPodAffinity skipped" in part["incomplete"][0]["effect"]


# --- real captures ------------------------------------------------------------------------------

def _captures() -> List[Path]:
    return sorted(p for p in FIXTURES.iterdir() if p.is_dir())


def _first_node(path: Path) -> Optional[str]:
    for f in sorted(path.iterdir()):
        if "node" in f.name and f.suffix in (".json", ".yaml"):
            doc = yaml.safe_load(f.read_text())
            items = doc.get("items", [doc]) if isinstance(doc, dict) else doc
            for i in items:
                name = (i.get("metadata") or {}).get("name")
                if name and ("nodeInfo" in (i.get("status") or {}) or i.get("kind") == "Node"):
                    return name
    return None


def _inputs(path: Path) -> tuple:
    """(`-f` arguments, `--kubelet-config` arguments) for a capture: a raw /configz names no node,
    so it goes with --kubelet-config (pressure, shutdown)."""
    files: List[str] = []
    kubelet: List[str] = []
    for f in sorted(f for f in path.iterdir() if f.suffix in (".json", ".yaml")):
        if f.name.startswith("configz"):
            kubelet += ["--kubelet-config", str(f)]
        else:
            files += ["-f", str(f)]
    return files, kubelet


COMMANDS = ["drain", "controller", "pressure", "shutdown", "shutdown-non-graceful", "affinity"]


@pytest.mark.parametrize("capture", _captures(), ids=lambda p: p.name)
def test_every_real_capture_through_every_command(capture: Path) -> None:
    n = _first_node(capture) or "no-such-node"
    files, kubelet = _inputs(capture)
    assert files, "capture %s has no snapshot file" % capture.name
    args = {"drain": ["drain", n, "--ignore-daemonsets", "--delete-emptydir-data", "--force"],
            "controller": ["controller", "--fail", n],
            "pressure": ["pressure"] + kubelet,
            "shutdown": ["shutdown", n] + kubelet,
            "shutdown-non-graceful": ["shutdown", n, "--non-graceful"],
            "affinity": ["affinity", "--taint", "%s:k=v:NoExecute" % n]}
    for cmd in COMMANDS:
        res = run_cli(*files, "-o", "json", *args[cmd])
        assert "Traceback" not in res.stderr and "internal error" not in res.stderr.lower(), (cmd, res.stderr)
        if res.returncode == 1:
            assert res.stderr.startswith("error: ") and len(res.stderr.splitlines()) == 1, (cmd, res.stderr)
            assert "not found" in res.stderr or "unknown node" in res.stderr, (cmd, res.stderr)
            continue
        doc = _json(res)
        assert parse_time(doc["now"]) > 0, "never planned at the epoch"
        for r in _reasons(doc):
            assert "no PodDisruptionBudget covers it" not in r or "PodDisruptionBudget" not in \
                [e["kind"] for e in doc["incomplete"]], (cmd, r)
            assert not re.search(r'persistentvolumeclaims? "[^"]+" not found', r), (cmd, r)


def test_kind_capture_drain_says_what_it_does_not_know() -> None:
    """The issue's example: StatefulSet pods with claims the capture holds no PVC for."""
    d = FIXTURES / "kind-1.33"
    res = run_cli(*sum((["-f", str(f)] for f in sorted(d.iterdir())), []), "-o", "json", "drain",
                  "troubleshoot-test-worker", "--ignore-daemonsets", "--delete-emptydir-data", "--force")
    doc = _json(res)
    kinds = [e["kind"] for e in doc["incomplete"]]
    for k in ("PodDisruptionBudget", "PersistentVolumeClaim", "StatefulSet"):
        assert k in kinds
    assert not any("not found" in r for r in _reasons(doc))


def test_nodes_only_says_pods_are_not_in_the_input() -> None:
    res = run_cli("-f", str(FIXTURES / "digitalocean"), "-o", "json", "drain", "smallnode-3i74t")
    doc = _json(res)
    assert res.returncode == 5 and "Pod" in [e["kind"] for e in doc["incomplete"]]
    assert not any("nothing to evict" in n for n in doc["notes"])
    assert "pods are not in the input" in doc["nodes"][0]["verdict"]


# --- bad input -----------------------------------------------------------------------------------

def test_ignored_objects_are_named_in_one_warning(tmp_path: Path) -> None:
    items = [node("n1"), node("n2"), pod("web-1", "n1"),
             dict(pod("lower-1", "n1"), kind="pod"),
             {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "default"}},
             {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}},
             {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d", "namespace": "default"}},
             {"metadata": {"name": "pdb-without-kind", "namespace": "default"},
              "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}}]
    p = tmp_path / "c.json"
    p.write_text(json.dumps(snapshot_list(*items)))
    doc = _json(run_cli("-f", str(p), "--now", NOW, "-o", "json", "drain", "n1"))
    ignored = [w for w in doc["warnings"] if w.startswith("ignored: ")]
    assert len(ignored) == 1
    w = ignored[0]
    assert "4 objects of kinds the planner does not read" in w
    assert "2 ConfigMap" in w and "1 Service" in w and "1 pod (kinds are case-sensitive: Pod?)" in w
    assert "1 object without a kind" in w and "items[8]" in w
    assert [a["pod"] for a in doc["actions"] if a["type"] == "evict"] == ["web-1"]


# An EvictionPlan is read by apply and verify; a PlanVerification is verify's report, which no
# command reads (verify reads the plan it checked).
@pytest.mark.parametrize("kind,said", [
    ("EvictionPlan", "this is an EvictionPlan (a plan printed with -o json/yaml), not a snapshot: "
                     "`kubectl evictplan apply FILE` and `kubectl evictplan verify FILE` read it"),
    ("PlanVerification", "this is a PlanVerification (the output of verify -o json/yaml), not a snapshot: it is "
                         "a report that no command reads (verify reads the plan it checked)")])
def test_our_own_outputs_are_refused_as_input(tmp_path: Path, kind: str, said: str) -> None:
    if kind == "EvictionPlan":
        made = run_cli("--demo", "-o", "json", "drain", "worker-b1", "--ignore-daemonsets")
        text = made.stdout
    else:
        text = json.dumps({"apiVersion": "evictplan/v1alpha1", "kind": kind, "summary": {}, "entries": []})
    p = tmp_path / "doc.json"
    p.write_text(text)
    res = run_cli("-f", str(p), "drain", "worker-b1")
    assert res.returncode == 1 and res.stdout == ""
    assert res.stderr == "error: %s: %s\n" % (p, said)


# --- API-server defaults and the plan time -------------------------------------------------------

def _one(tmp_path: Path, items: List[dict], *args: str, now: Optional[str] = NOW) -> Dict[str, Any]:
    p = tmp_path / "d.json"
    p.write_text(json.dumps(snapshot_list(*items)))
    return _json(run_cli("-f", str(p), *(["--now", now] if now else []), "-o", "json", *args))


@pytest.mark.parametrize("case,edit,fits", [
    # SetDefaults_NodeStatus: no allocatable -> allocatable = capacity (the pod fits on n2)
    ("allocatable-from-capacity", lambda n2, p: n2["status"].pop("allocatable"), True),
    ("allocatable-given", lambda n2, p: n2["status"].update(allocatable={"cpu": "100m", "memory": "1Gi",
                                                                          "pods": "110"}), False),
    # SetDefaults_Pod: limits without requests request the limits (3 cpu do not fit 2)
    ("requests-from-limits", lambda n2, p: p["spec"]["containers"][0].update(
        resources={"limits": {"cpu": "3"}}), False),
    ("requests-below-limits", lambda n2, p: p["spec"]["containers"][0].update(
        resources={"requests": {"cpu": "1"}, "limits": {"cpu": "3"}}), True),
])
def test_api_server_defaults(tmp_path: Path, case: str, edit: Any, fits: bool) -> None:
    n2 = node("n2", cpu="2")
    p = pod("web-1", "n1", cpu="1")
    edit(n2, p)
    doc = _one(tmp_path, [node("n1"), n2, p], "drain", "n1")
    target = doc["actions"][1]["target"]
    assert (target == "n2") is fits, doc["actions"]


def test_host_network_ports_default_to_container_ports(tmp_path: Path) -> None:
    """hostNetwork: the containerPort is the hostPort, so two such pods never share a node."""
    def hn(name: str, where: str) -> dict:
        p = pod(name, where)
        p["spec"]["hostNetwork"] = True
        p["spec"]["containers"][0]["ports"] = [{"containerPort": 9100}]
        return p
    doc = _one(tmp_path, [node("n1"), node("n2"), hn("exporter-1", "n1"), hn("exporter-2", "n2")], "drain", "n1")
    assert doc["actions"][1]["target"] is None
    assert "didn't have free ports" in doc["shortfall"][0]["reason"]


def test_a_volume_without_a_source_is_an_empty_dir(tmp_path: Path) -> None:
    p = pod("web-1", "n1", volumes=[{"name": "scratch"}])
    doc = _one(tmp_path, [node("n1"), node("n2"), p], "drain", "n1")
    assert doc["blocked"] and "local storage" in doc["blocked"][0]["reason"]   # kubectl's emptyDir filter


def test_no_time_in_the_input_plans_now_and_says_so(tmp_path: Path) -> None:
    n1 = node("n1")
    n1["status"]["conditions"][0].pop("lastHeartbeatTime")
    n1["status"]["conditions"][0].pop("lastTransitionTime")
    doc = {"apiVersion": "v1", "kind": "List", "items": [n1, node("n2"), pod("web-1", "n1")]}
    for c in doc["items"][1]["status"]["conditions"]:
        c.pop("lastHeartbeatTime")
        c.pop("lastTransitionTime")
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    before = time.time()
    res = run_cli("-f", str(p), "-o", "json", "drain", "n1")
    plan = _json(res)
    assert before - 5 <= parse_time(plan["now"]) <= time.time() + 5
    assert any("planned at the current time" in w for w in plan["warnings"])
    explicit = _json(run_cli("-f", str(p), "--now", NOW, "-o", "json", "drain", "n1"))
    assert explicit["now"] == NOW and not any("current time" in w for w in explicit["warnings"])


# --- README, RBAC and krew against the code -------------------------------------------------------

README = (REPO / "README.md").read_text()
OWN_KINDS = list(KUBELET_KINDS) + ["SnapshotInfo"]


def _group_and_plural(resource: str) -> tuple:
    plural, _, group = resource.partition(".")
    return group, plural


def test_readme_kinds_read_is_the_code() -> None:
    m = re.search(r"Kinds read: (.*?)\.\n- ", README, re.S)
    assert m, "README lost its 'Kinds read:' list"
    names = [n for n in re.findall(r"`?([A-Z][A-Za-z]+)`?", m.group(1)) if n != "DRA"]
    assert set(names) == {s.kind for s in LISTS} | set(OWN_KINDS)


def test_readme_recipe_lists_every_kind() -> None:
    block = README[README.index("With `kubectl` alone:"):]
    block = block[:block.index("```", block.index("```") + 3)]
    listed = re.sub(r"\\\n\s*", "", re.search(r"kubectl get (\S+(?:\\\n\s*\S+)*) -A -o json", block).group(1))
    plurals = set(listed.split(","))
    for spec in LISTS:
        group, plural = _group_and_plural(spec.resource)
        if spec.namespace:
            assert "kubectl get %s -n %s" % (plural, spec.namespace) in block
        else:
            assert plural in plurals, plural
    info = yaml.safe_load(_readme_info())
    assert info["kind"] == "SnapshotInfo" and set(info["kinds"]) == {s.kind for s in LISTS}


def _readme_info() -> str:
    """The SnapshotInfo document of the README's recipe (its heredoc, unindented)."""
    start = "cat > info.yaml <<'EOF'\n"
    block = README[README.index(start) + len(start):]
    return textwrap.dedent(block[:block.index("  EOF")])


def _rules(doc: dict) -> Dict[tuple, set]:
    out: Dict[tuple, set] = {}
    for r in doc["rules"]:
        for g in r["apiGroups"]:
            for res in r["resources"]:
                out.setdefault((g, res), set()).update(r["verbs"])
    return out


def test_rbac_role_grants_every_kind_read() -> None:
    deploy = yaml.safe_load((REPO / "deploy" / "rbac-readonly.yaml").read_text())
    readme_yaml = README[README.index("```yaml\napiVersion: rbac.authorization.k8s.io/v1"):]
    readme_yaml = readme_yaml[len("```yaml\n"):readme_yaml.index("```", 8)]
    readme_role = yaml.safe_load(readme_yaml)
    assert _rules(readme_role) == _rules(deploy), "README's ClusterRole and deploy/rbac-readonly.yaml differ"
    rules = _rules(deploy)
    # every kind a plan reads, the kubelets through nodes/proxy, and the Events `verify` reads
    wanted = {_group_and_plural(s.resource) for s in LISTS} | {("", "nodes/proxy"),
                                                               _group_and_plural(event_list("default").resource)}
    for group, plural in wanted:
        verbs = rules.get((group, plural), set())
        assert ({"get"} if plural == "nodes/proxy" else {"get", "list"}) <= verbs, (group, plural)
    assert set(rules) == wanted, "the role grants more than the code reads"


def test_krew_caveats_name_every_resource() -> None:
    caveats = " ".join(yaml.safe_load((REPO / "krew" / "evictplan.yaml").read_text())["spec"]["caveats"].split())
    for spec in LISTS:
        assert spec.resource in caveats, spec.resource
    assert "nodes/proxy" in caveats


def test_the_recipe_gives_the_snapshot_plan(tmp_path: Path) -> None:
    """The README's recipe on the demo cluster (kubectl's output: no SnapshotInfo, the node Leases
    in a file of their own, the SnapshotInfo listing every kind) plans exactly what the complete
    demo plans."""
    items = [i for i in DEMO["items"] if i["kind"] not in ("SnapshotInfo", "Lease")]
    (tmp_path / "cluster.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    leases = [i for i in DEMO["items"] if i["kind"] == "Lease"]
    (tmp_path / "leases.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": leases}))
    (tmp_path / "info.yaml").write_text(_readme_info())
    files = ["-f", str(tmp_path / "cluster.json"), "-f", str(tmp_path / "leases.json"), "-f", str(tmp_path / "info.yaml")]
    for args in (DRAIN_A1, ["controller", "--fail", "worker-a1"], ["affinity", "--taint", "worker-a2:k=v:NoExecute"]):
        mine = _json(run_cli(*files, "--now", NOW, "-o", "json", *args))
        demo = _json(run_cli("--demo", "--now", NOW, "-o", "json", *args))
        for d in (mine, demo):
            d.pop("cluster", None)
            d.pop("assumedVersion", None)
        assert mine["incomplete"] == []
        assert mine["actions"] == demo["actions"] and mine["blocked"] == demo["blocked"], args
