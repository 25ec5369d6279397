"""A plan never claims more than its input shows (DESIGN.md: SnapshotInfo.kinds, `incomplete`,
exit code 5).

The same cluster is planned with and without a kind: with it (or with a SnapshotInfo that says
the source read that kind in full, as `snapshot` and live reads do) the plan is today's; without
it, the plan asserts nothing about the missing objects, lists the kind in `incomplete`, warns,
says so in the verdict line of every human view, and exits 5 when nothing else is wrong.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, List, Optional, Tuple

import pytest
import yaml

from conftest import NOW, complete_kinds, node, pod, run_cli, snapshot_list, with_owners

sys.path.insert(0, str(Path(__file__).resolve().parent))
from apiserver import ApiServer  # noqa: E402

from kubectl_evict.plan import Entry, Incomplete, Plan, exit_code  # noqa: E402

PDB = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
       "metadata": {"name": "web", "namespace": "default", "generation": 1},
       "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
       "status": {"observedGeneration": 1, "disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1,
                  "expectedPods": 2}}


def _cluster() -> List[dict]:
    """Two nodes; two replicas of web (one on each node) and one api pod on n1."""
    return [node("n1"), node("n2"), node("n3"),
            pod("web-1", "n1", labels={"app": "web"}), pod("web-2", "n2", labels={"app": "web"}),
            pod("api-1", "n1", owner=("ReplicaSet", "api"))]


def _write(tmp_path: Path, items: List[dict], *, kinds: Optional[List[str]] = None, info: bool = True,
           without: tuple = (), name: str = "cluster.json", owners: bool = True) -> str:
    """The cluster as a snapshot file: complete (its SnapshotInfo holds every kind) unless
    `kinds` names the kinds held, `without` leaves kinds out, or `info` is False (then it holds
    only the kinds that appear in it)."""
    if without:
        kinds = [k for k in complete_kinds() if k not in without]
        items = [i for i in items if i.get("kind") not in without]
    doc = snapshot_list(*items, kinds=kinds, owners=owners)
    if not info:
        doc["items"] = doc["items"][1:]
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return str(p)


def _plan(path: str, *args: str, fmt: str = "json") -> Any:
    res = run_cli("-f", path, "--now", NOW, "-o", fmt, *args)
    assert res.returncode in (0, 3, 4, 5), res.stderr
    return res


def _drain(path: str, *extra: str, fmt: str = "json") -> Any:
    return _plan(path, "drain", "n1", "--ignore-daemonsets", *extra, fmt=fmt)


# --- the exit code -------------------------------------------------------------------------------

@pytest.mark.parametrize("blocked,short,incomplete,code", [
    (False, False, False, 0),
    (False, False, True, 5),
    (False, True, True, 4),     # 4 wins over 5
    (True, False, True, 3),     # 3 wins over 5
    (True, True, True, 3),
    (False, True, False, 4),
])
def test_exit_code_precedence(blocked: bool, short: bool, incomplete: bool, code: int) -> None:
    e = Entry(code="pdb-budget", namespace="ns", pod="p", node="n1", reason="r")
    plan = Plan(command="drain", blocked=[e] if blocked else [], shortfall=[e] if short else [],
                incomplete=[Incomplete(kind="PodDisruptionBudget", effect="x")] if incomplete else [])
    assert exit_code(plan) == code


# --- PodDisruptionBudgets ------------------------------------------------------------------------

def test_without_pdbs_the_drain_claims_no_budget_and_exits_5(tmp_path: Path) -> None:
    without = _write(tmp_path, _cluster() + [PDB], without=("PodDisruptionBudget",))
    res = _drain(without)
    assert res.returncode == 5, res.stderr
    doc = json.loads(res.stdout)
    assert [e["kind"] for e in doc["incomplete"]] == ["PodDisruptionBudget"]
    assert "budgets not checked for 2 evictions" in doc["incomplete"][0]["effect"]
    reasons = [a["reason"] for a in doc["actions"] if a["type"] == "evict"]
    assert len(reasons) == 2
    assert all("not in the input" in r and "no PodDisruptionBudget covers it" not in r for r in reasons)
    assert any(w.startswith("incomplete input: no PodDisruptionBudget in the input") for w in doc["warnings"])


@pytest.mark.parametrize("how", ["pdb object", "snapshotinfo kinds"])
def test_with_pdbs_or_a_complete_snapshot_the_plan_is_unchanged(tmp_path: Path, how: str) -> None:
    """A PDB in the input, or a SnapshotInfo listing PodDisruptionBudget (the cluster has none):
    budgets are checked, nothing is incomplete, exit 0."""
    if how == "pdb object":
        # the SnapshotInfo leaves PodDisruptionBudget out, but one appears: the file holds the kind
        path = _write(tmp_path, _cluster() + [PDB],
                      kinds=[k for k in complete_kinds() if k != "PodDisruptionBudget"])
    else:
        path = _write(tmp_path, _cluster())
    res = _drain(path)
    assert res.returncode == 0, res.stdout
    doc = json.loads(res.stdout)
    assert doc["incomplete"] == []
    by_pod = {a["pod"]: a["reason"] for a in doc["actions"] if a["type"] == "evict"}
    if how == "pdb object":
        assert by_pod["web-1"].startswith("PDB default/web allows it")
    else:
        assert by_pod["web-1"] == "evict (no PodDisruptionBudget covers it)"
    assert not any("incomplete input" in w for w in doc["warnings"])


def test_disable_eviction_needs_no_pdbs(tmp_path: Path) -> None:
    """--disable-eviction sends plain DELETEs: budgets do not apply, so nothing is missing."""
    res = _drain(_write(tmp_path, _cluster(), without=("PodDisruptionBudget",)), "--disable-eviction")
    assert res.returncode == 0, res.stdout
    assert json.loads(res.stdout)["incomplete"] == []


def test_blocked_wins_over_incomplete_through_the_cli(tmp_path: Path) -> None:
    """A bare pod on n2 blocks its drain (no --force); n1's evictions go unchecked: exit 3, and
    the kind is still listed."""
    items = _cluster() + [pod("bare", "n2", owner=None)]
    res = _plan(_write(tmp_path, items, info=False), "drain", "n1", "n2", "--ignore-daemonsets")
    assert res.returncode == 3
    doc = json.loads(res.stdout)
    assert "PodDisruptionBudget" in [e["kind"] for e in doc["incomplete"]]


@pytest.mark.parametrize("fmt,line", [
    ("table", "VERDICT: INCOMPLETE (exit 5): "),
    ("wide", "VERDICT: INCOMPLETE (exit 5): "),
    ("markdown", "**INCOMPLETE (exit 5):** "),
    ("timeline", "VERDICT: INCOMPLETE (exit 5): "),
])
def test_every_view_says_so_in_the_verdict(tmp_path: Path, fmt: str, line: str) -> None:
    res = _drain(_write(tmp_path, _cluster(), without=("PodDisruptionBudget",)), fmt=fmt)
    assert res.returncode == 5
    verdict = next(x for x in res.stdout.splitlines() if x.startswith(line))
    assert "not checked: the input holds no PodDisruptionBudget" in verdict


def test_yaml_lists_incomplete(tmp_path: Path) -> None:
    import yaml
    res = _drain(_write(tmp_path, _cluster(), without=("PodDisruptionBudget",)), fmt="yaml")
    doc = yaml.safe_load(res.stdout)
    assert doc["incomplete"][0]["kind"] == "PodDisruptionBudget" and doc["incomplete"][0]["effect"]


# --- SnapshotInfo.kinds ------------------------------------------------------------------------

@pytest.mark.parametrize("kinds,problem", [
    ("PodDisruptionBudget", "expected a list"),
    ([1], "kinds[0]"),
    ([""], "kinds[0]"),
])
def test_malformed_kinds_are_a_clean_error(tmp_path: Path, kinds: Any, problem: str) -> None:
    doc = snapshot_list(*_cluster())
    doc["items"][0]["kinds"] = kinds
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc))
    res = run_cli("-f", str(p), "drain", "n1")
    assert res.returncode == 1
    assert res.stderr.startswith("error: ") and "SnapshotInfo" in res.stderr and problem in res.stderr
    assert "Traceback" not in res.stderr


def test_snapshot_records_every_kind_listed_even_when_the_cluster_has_none(tmp_path: Path) -> None:
    """`snapshot` writes SnapshotInfo.kinds: every kind it listed (the cluster has no PDB,
    PVC, StorageClass...), and the kubelet documents unless --no-kubelet. Planning from that
    file checks budgets (there are none) and is complete: exit 0."""
    with ApiServer(with_owners(_cluster())) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc"))
        plain = run_cli("--kubeconfig", kc, "snapshot", "--no-kubelet")
        kub = run_cli("--kubeconfig", kc, "snapshot")
        live = run_cli("--kubeconfig", kc, "--now", NOW, "-o", "json", "drain", "n1", "--ignore-daemonsets")
    assert plain.returncode == 0 and kub.returncode == 0, plain.stderr + kub.stderr
    every = complete_kinds()
    info = json.loads(plain.stdout)["items"][0]
    assert info["kind"] == "SnapshotInfo"
    assert info["kinds"] == [k for k in every if k not in ("NodeKubeletConfig", "NodeStatsSummary")]
    assert json.loads(kub.stdout)["items"][0]["kinds"] == every
    snap = tmp_path / "snap.json"
    snap.write_text(plain.stdout)
    res = _drain(str(snap))
    assert res.returncode == 0, res.stdout
    doc = json.loads(res.stdout)
    assert doc["incomplete"] == []
    assert {a["reason"] for a in doc["actions"] if a["type"] == "evict"} == {"evict (no PodDisruptionBudget covers it)"}
    assert live.returncode == 0 and json.loads(live.stdout)["incomplete"] == []


def test_kinds_add_up_across_files(tmp_path: Path) -> None:
    """Nodes and pods in one file, an empty PDB list in another: the PDB kind is held."""
    a = _write(tmp_path, _cluster(), without=("PodDisruptionBudget",), name="a.json")
    b = tmp_path / "b.json"
    b.write_text(json.dumps({"apiVersion": "policy/v1", "kind": "PodDisruptionBudgetList", "items": [PDB]}))
    res = run_cli("-f", a, "-f", str(b), "--now", NOW, "-o", "json", "drain", "n1", "--ignore-daemonsets")
    assert res.returncode == 0, res.stdout


# A typed list names its items' kind even when it has none: what a raw list endpoint answers on a
# cluster without PodDisruptionBudgets (`kubectl get --raw /apis/policy/v1/poddisruptionbudgets`),
# or a support bundle's file of them. Its source listed the kind and found none: the kind is held
# (and the file is no "no Kubernetes objects found" error). A `v1 List` names no kind: an empty
# one (what `kubectl get pdb -A -o json` prints on a cluster without PDBs) says nothing about any
# kind, so the plan reads it with a warning that says so, and still asks for the kind.
@pytest.mark.parametrize("doc,fmt,code,incomplete", [
    ({"apiVersion": "policy/v1", "kind": "PodDisruptionBudgetList", "metadata": {"resourceVersion": "7"},
      "items": []}, "json", 0, []),
    ({"apiVersion": "policy/v1", "kind": "PodDisruptionBudgetList", "items": []}, "yaml", 0, []),
    ({"apiVersion": "policy/v1", "kind": "PodDisruptionBudgetList", "items": None}, "json", 0, []),
    ({"apiVersion": "v1", "kind": "ConfigMapList", "items": []}, "json", 5, ["PodDisruptionBudget"]),
    ({"apiVersion": "v1", "kind": "List", "items": []}, "json", 5, ["PodDisruptionBudget"]),
    ({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": []}, "yaml", 5,
     ["PodDisruptionBudget"]),
])
def test_an_empty_typed_list_holds_its_kind(tmp_path: Path, doc: dict, fmt: str, code: int,
                                            incomplete: List[str]) -> None:
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "rs", "namespace": "default", "uid": "uid-rs"},
          "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}}}, "status": {"replicas": 1, "readyReplicas": 1}}
    cluster = tmp_path / "cluster.json"
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                   "items": [node("n1"), node("n2"), pod("web-1", "n1"), rs]}))
    listed = tmp_path / ("listed." + fmt)
    listed.write_text(json.dumps(doc) if fmt == "json" else yaml.safe_dump(doc))
    res = run_cli("-f", str(cluster), "-f", str(listed), "--now", NOW, "-o", "json", "drain", "n1")
    assert res.returncode == code, res.stdout + res.stderr
    plan = json.loads(res.stdout)
    assert [e["kind"] for e in plan["incomplete"]] == incomplete
    said = any(w.startswith("%s: an empty List, which names no kind" % listed) for w in plan["warnings"])
    assert said == (doc["kind"] == "List")


@pytest.mark.parametrize("files,message", [
    (["empty.json"], "error: {d}/empty.json: no Kubernetes objects found (only empty Lists)\n"),
    (["empty.json", "empty.yaml"],
     "error: {d}/empty.json, {d}/empty.yaml: no Kubernetes objects found (only empty Lists)\n"),
    (["dir"], "error: {d}/dir: no Kubernetes objects found in any of its files (only empty Lists)\n"),
])
def test_only_empty_lists_is_still_nothing_found(tmp_path: Path, files: List[str], message: str) -> None:
    """Empty Lists alone hold no cluster to plan: the "nothing found" error, saying why."""
    empty = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": []}
    (tmp_path / "empty.json").write_text(json.dumps(empty))
    (tmp_path / "empty.yaml").write_text(yaml.safe_dump(empty))
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "pdb.json").write_text(json.dumps(empty))
    args = [a for f in files for a in ("-f", str(tmp_path / f))]
    res = run_cli(*args, "--now", NOW, "drain", "n1")
    assert (res.returncode, res.stderr) == (1, message.format(d=tmp_path))


# --- DaemonSets ----------------------------------------------------------------------------------

def _ds_pod() -> dict:
    return pod("agent-x", "n1", ns="kube-system", owner=("DaemonSet", "agent"), labels={"app": "agent"})


# kubectl drain GETs a DaemonSet pod's DaemonSet (filters.go daemonSetFilter): gone, the pod
# fails the drain (daemonsets.apps "agent" not found), or --force evicts it. An input without the
# DaemonSet kind cannot tell, so such a drain is incomplete; with the kind it is a fact.
@pytest.mark.parametrize("held,extra,code,incomplete", [
    (True, (), 3, []),                              # held, the DaemonSet absent: the drain fails
    (False, (), 5, ["DaemonSet"]),                  # not held: skipped as kubectl would, but unchecked
    (False, ("--force",), 5, ["DaemonSet"]),
    (True, ("--force",), 0, []),                    # held and absent: --force evicts the orphan
])
def test_daemonset_pods_need_the_daemonset_kind(tmp_path: Path, held: bool, extra: tuple, code: int,
                                                incomplete: List[str]) -> None:
    items = _cluster() + [PDB, _ds_pod()]
    path = _write(tmp_path, items, without=() if held else ("DaemonSet",))
    res = _drain(path, *extra)
    assert res.returncode == code, res.stdout
    doc = json.loads(res.stdout)
    assert [e["kind"] for e in doc["incomplete"]] == incomplete
    if incomplete:
        assert "1 pod whether its DaemonSet still exists" in doc["incomplete"][0]["effect"]


# --- the owning workloads ------------------------------------------------------------------------

_DEP_RS = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
           "metadata": {"name": "web-5d8", "namespace": "default", "uid": "uid-web-5d8",
                        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                                             "uid": "uid-dep-web", "controller": True}]},
           "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}},
           "status": {"replicas": 2, "readyReplicas": 2}}
_DEP = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default",
                                                                     "uid": "uid-dep-web"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}}}


# Every ReplicaSet names its Deployment in ownerReferences (the deployment controller sets it,
# pkg/controller/deployment/sync.go getNewReplicaSet), so an input holding every ReplicaSet and
# pod counts a Deployment's ready replicas in full (`kubectl rollout status` reads the same pods'
# ReplicaSets): without the Deployment kind nothing in this plan changes (DESIGN.md: `incomplete`
# lists only kinds the verdict depends on). Without the ReplicaSet kind the pods of the workload
# are counted from the input and the total is unknown.
@pytest.mark.parametrize("without,code,incomplete,workload", [
    ((), 0, [], ["Deployment", "web", 2, 1, 2]),
    (("Deployment",), 0, [], ["Deployment", "web", 2, 1, 2]),
    (("ReplicaSet",), 5, ["ReplicaSet"], ["ReplicaSet", "web-5d8", 2, 1, 2]),
    (("ReplicaSet", "Deployment"), 5, ["ReplicaSet"], ["ReplicaSet", "web-5d8", 2, 1, 2]),
])
def test_a_deployment_is_counted_through_its_replicasets(tmp_path: Path, without: tuple, code: int,
                                                        incomplete: List[str], workload: list) -> None:
    items = [node("n1"), node("n2"), _DEP_RS, _DEP,
             pod("web-5d8-a", "n1", owner=("ReplicaSet", "web-5d8"), labels={"app": "web"}),
             pod("web-5d8-b", "n2", owner=("ReplicaSet", "web-5d8"), labels={"app": "web"})]
    res = _plan(_write(tmp_path, items, without=without), "drain", "n1")
    assert res.returncode == code, res.stdout
    doc = json.loads(res.stdout)
    assert [e["kind"] for e in doc["incomplete"]] == incomplete
    assert [[w["kind"], w["name"], w["ready"], w["readyMin"], w["readyAfter"]] for w in doc["workloads"]] == [workload]


# PodTopologySpread's Score with the system default constraints (hostname maxSkew 3, zone maxSkew
# 5, ScheduleAnyway: podtopologyspread/plugin.go systemDefaultConstraints) selects the pods to
# spread by the selector of the pod's ReplicaSet, StatefulSet or ReplicationController, looked up
# by the controllerRef's name (helper/spread.go DefaultSelector). Without that kind in the input
# the selector is unknown, so which of the fitting nodes the replacement goes to is not known; a
# pod with its own constraints, or with one feasible node (schedule_one.go: chosen without
# scoring), does not read it.
@pytest.mark.parametrize("owner,without,constraints,nodes,incomplete", [
    (("ReplicaSet", "web"), (), False, 3, {}),
    (("ReplicaSet", "web"), ("ReplicaSet",), False, 3, {"ReplicaSet": True}),
    (("StatefulSet", "web"), ("StatefulSet",), False, 3, {"StatefulSet": True}),
    (("ReplicaSet", "web"), ("ReplicaSet",), True, 3, {"ReplicaSet": False}),
    (("ReplicaSet", "web"), ("ReplicaSet",), False, 2, {"ReplicaSet": False}),
])
def test_default_spreading_needs_the_pods_controller(tmp_path: Path, owner: tuple, without: tuple,
                                                     constraints: bool, nodes: int, incomplete: dict) -> None:
    web = [pod("web-%d" % i, "n%d" % i, owner=owner, labels={"app": "web"}) for i in (1, 2)]
    if constraints:
        for p in web:
            p["spec"]["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname",
                                                       "whenUnsatisfiable": "ScheduleAnyway",
                                                       "labelSelector": {"matchLabels": {"app": "web"}}}]
    ctrl = {"apiVersion": "apps/v1", "kind": owner[0],
            "metadata": {"name": owner[1], "namespace": "default", "uid": "uid-" + owner[1]},
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}},
            "status": {"replicas": 2, "readyReplicas": 2}}
    items = [node("n%d" % i) for i in range(1, nodes + 1)] + web + [ctrl]
    res = _plan(_write(tmp_path, items, without=without), "drain", "n1")
    assert res.returncode == (5 if incomplete else 0), res.stdout
    doc = json.loads(res.stdout)
    effects = {e["kind"]: e["effect"] for e in doc["incomplete"]}
    assert sorted(effects) == sorted(incomplete)
    for kind, scored in incomplete.items():
        assert ("PodTopologySpread's score" in effects[kind]) == scored, effects[kind]
    evict = [a for a in doc["actions"] if a["type"] == "evict"]
    assert len(evict) == 1 and evict[0]["target"] is not None
    # the pod's reason says so only where its target was picked without the score (the ready
    # counts are the workload's, said in `incomplete` alone)
    scored = [k for k, v in incomplete.items() if v]
    assert evict[0]["reason"].endswith("(not in the input: %s; see incomplete)" % ", ".join(scored)) \
        if scored else "not in the input" not in evict[0]["reason"]


# A finished pod (Succeeded or Failed) counts no ready replica and its controller never replaces
# it (controller_utils.go IsPodActive; the Job controller has already counted it): whatever its
# Job says, the plan's counts for it stay 0. A CronJob's finished pods on a drained node therefore
# need no Job in the input; a running Job pod does (its replacement follows the Job's spec).
@pytest.mark.parametrize("args", [("drain", "n1", "--ignore-daemonsets"), ("controller", "--fail", "n1"),
                                  ("shutdown", "n1", "--non-graceful")])
@pytest.mark.parametrize("phase,ready,without,code,incomplete", [
    ("Succeeded", False, ("Job",), 0, []),
    ("Failed", False, ("Job",), 0, []),
    ("Running", True, ("Job",), 5, ["Job"]),
    ("Running", True, (), 0, []),
])
def test_finished_pods_need_no_owner(tmp_path: Path, args: tuple, phase: str, ready: bool, without: tuple,
                                     code: int, incomplete: List[str]) -> None:
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "report-29707813", "namespace": "default", "uid": "uid-report-29707813"},
           "spec": {"parallelism": 1, "completions": 1, "backoffLimit": 6,
                    "selector": {"matchLabels": {"job-name": "report-29707813"}}}}
    items = [node("n1"), node("n2"), job,
             pod("report-29707813-x", "n1", owner=("Job", "report-29707813"), phase=phase, ready=ready,
                 labels={"job-name": "report-29707813"})]
    res = _plan(_write(tmp_path, items, without=without), *args)
    assert res.returncode == code, res.stdout
    assert [e["kind"] for e in json.loads(res.stdout)["incomplete"]] == incomplete


# --- kubelet documents a live read could not read -------------------------------------------------

def _kubelet_docs(name: str) -> List[dict]:
    """What the kubelet of `name` answers: a configz with graceful shutdown on, a quiet summary."""
    gib = 1 << 30
    return [{"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": name},
             "kubeletconfig": {"shutdownGracePeriod": "30s", "shutdownGracePeriodCriticalPods": "10s"}},
            {"apiVersion": "evictplan/v1alpha1", "kind": "NodeStatsSummary", "metadata": {"name": name},
             "summary": {"node": {"nodeName": name, "memory": {"availableBytes": 12 * gib, "workingSetBytes": 4 * gib}},
                         "pods": []}}]


# Without `get nodes/proxy` (readonly-noproxy) no kubelet answers: the read did not read the
# kubelet kinds at all, so SnapshotInfo.kinds must not claim them, and plans that need them say
# so in `incomplete` (exit 5), live and from the snapshot alike, as with --no-kubelet. A role
# that may read them holds them: the same plans are complete.
@pytest.mark.parametrize("role,kubelet_kinds,args,code,incomplete", [
    ("readonly", True, ("pressure",), 0, []),
    ("readonly", True, ("shutdown", "n1"), 0, []),
    ("readonly-noproxy", False, ("pressure",), 5, ["NodeStatsSummary"]),
    ("readonly-noproxy", False, ("shutdown", "n1"), 5, ["NodeKubeletConfig"]),
])
def test_kubelet_kinds_the_server_forbids_are_not_held(tmp_path: Path, role: str, kubelet_kinds: bool,
                                                     args: tuple, code: int, incomplete: List[str]) -> None:
    cluster = _cluster() + [d for n in ("n1", "n2", "n3") for d in _kubelet_docs(n)]
    with ApiServer(cluster, tokens={"tok": role}) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc", token="tok"))
        snap = run_cli("--kubeconfig", kc, "snapshot")
        live = run_cli("--kubeconfig", kc, "--now", NOW, "-o", "json", *args)
    assert snap.returncode == 0, snap.stderr
    kinds = json.loads(snap.stdout)["items"][0]["kinds"]
    want = [k for k in complete_kinds() if kubelet_kinds or k not in ("NodeKubeletConfig", "NodeStatsSummary")]
    assert kinds == want
    path = tmp_path / "snap.json"
    path.write_text(snap.stdout)
    planned = _plan(str(path), *args)
    for res in (planned, live):
        assert res.returncode == code, res.stdout + res.stderr
        assert [e["kind"] for e in json.loads(res.stdout)["incomplete"]] == incomplete
    assert planned.stdout == live.stdout


# --- PodDisruptionBudgets whose budget the input cannot compute ----------------------------------

# A PDB with no status (or a stale one) is planned with the budget the disruption controller
# computes; a percentage or maxUnavailable needs the pods' controllers' spec.replicas. Without
# the controller's kind the budget is unknown: the eviction is not checked against it (exit 5),
# instead of assuming the controller is gone ("found no controllers": 0 allowed, exit 3).
@pytest.mark.parametrize("held,code,incomplete,blocked", [
    (True, 3, [], ["web-1"]),                  # every ReplicaSet held, web's absent: failSafe, 0 allowed
    (False, 5, ["ReplicaSet"], []),            # not held: unknown, not checked
])
def test_a_budget_that_needs_controllers_not_in_the_input(tmp_path: Path, held: bool, code: int,
                                                           incomplete: List[str], blocked: List[str]) -> None:
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"maxUnavailable": "50%", "selector": {"matchLabels": {"app": "web"}}}}
    # held: every ReplicaSet is in the input, and web's is not (owners=False)
    path = _write(tmp_path, _cluster()[:5] + [pdb], without=() if held else ("ReplicaSet",), owners=False)
    res = _drain(path)
    assert res.returncode == code, res.stdout
    doc = json.loads(res.stdout)
    assert [e["kind"] for e in doc["incomplete"]] == incomplete
    assert [e["pod"] for e in doc["blocked"]] == blocked
    if incomplete:
        assert "budgets of PodDisruptionBudgets not computed" in doc["incomplete"][0]["effect"]


def test_an_outage_under_an_unknown_budget_is_not_said_to_be_allowed(tmp_path: Path) -> None:
    """web's only pod goes (0 ready until its replacement is): the warning says the PDB was not
    checked, not that the PDB allows it."""
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"maxUnavailable": "50%", "selector": {"matchLabels": {"app": "web"}}}}
    path = _write(tmp_path, _cluster()[:4] + [pdb], without=("ReplicaSet",))
    doc = json.loads(_drain(path).stdout)
    [outage] = [w for w in doc["warnings"] if w.startswith("outage: ")]
    assert outage.endswith("(PDB default/web not checked: its budget needs objects not in the input)")


# --- pods the input does not show ------------------------------------------------------------------

# The eviction manager evicts from the node's active pods, one per cycle, walking the ranked list
# (eviction_manager.go `synchronize`; spec/semantics.md A4.29): "no evictable pods left, the node
# stays under pressure" (threshold-persists, exit 4) is a fact only when the input holds every Pod.
# Without them, which pods go and whether the pressure clears is unknown (DESIGN.md: a plan never
# asserts the absence of an object whose kind its input does not hold).
@pytest.mark.parametrize("without,code,shortfall,incomplete", [
    ((), 4, ["threshold-persists"], []),          # every Pod held, none on n1: nothing to evict
    (("Pod",), 5, [], ["Pod"]),                    # no Pod in the input: not known
])
def test_pressure_on_a_node_whose_pods_are_not_in_the_input(tmp_path: Path, without: tuple, code: int,
                                                            shortfall: List[str], incomplete: List[str]) -> None:
    path = _write(tmp_path, [node("n1"), node("n2")], without=without)
    res = _plan(path, "pressure", "n1", "--signal", "n1:memory.available=10Mi")
    assert res.returncode == code, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    assert [e["code"] for e in doc["shortfall"]] == shortfall
    assert [e["kind"] for e in doc["incomplete"]] == incomplete
    if incomplete:
        assert "whether the node leaves pressure, not known for 1 node (n1)" in doc["incomplete"][0]["effect"]
        table = _plan(path, "pressure", "n1", "--signal", "n1:memory.available=10Mi", fmt="table").stdout
        assert "nothing evictable is left" not in table and "pods are not in the input" in table


# Graceful shutdown skips a priority group with no pods, without waiting (`processShutdownEvent`;
# spec/semantics.md B.6: worst case = the sum of the non-empty groups). Which groups are empty is
# known only when the input holds every Pod; otherwise every group may run its whole period.
KUBELET_SHUTDOWN = {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n1"},
                    "kubeletconfig": {"shutdownGracePeriod": "30s", "shutdownGracePeriodCriticalPods": "10s"}}


@pytest.mark.parametrize("without,code,total,lines", [
    ((), 0, 0, ["skipped  priority < 2000000000 (20s): no pods, no wait"]),
    (("Pod",), 5, 30, ["unknown  priority < 2000000000: +0s..+20s (20s) if it has pods: pods are not in the input",
                       "unknown  priority >= 2000000000: +20s..+30s (10s) if it has pods: pods are not in the input"]),
])
def test_shutdown_phases_of_a_node_whose_pods_are_not_in_the_input(tmp_path: Path, without: tuple, code: int,
                                                                   total: int, lines: List[str]) -> None:
    path = _write(tmp_path, [node("n1"), node("n2"), KUBELET_SHUTDOWN], without=without)
    res = _plan(path, "shutdown", "n1")
    assert res.returncode == code, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    [report] = doc["shutdown"]
    assert report["totalSeconds"] == total
    table = _plan(path, "shutdown", "n1", fmt="table").stdout
    for line in lines:
        assert line in table
    if without:
        assert "no pods" not in table


# kube-scheduler's preemption reads PodDisruptionBudgets: pods whose deletion would violate one are
# reprieved first, and the node with the fewest violations wins (DefaultPreemption,
# `SelectVictimsOnNode` / `pickOneNodeForPreemption`; spec/scheduler.md "Preemption" 3.4, 4 and
# 5.1). n1 fails; hi's replacement fits only by preempting lowa-1 (on na, under a PDB with no
# budget) or lowb-1 (on nb, under none): upstream picks nb. Without PDBs in the input the choice is
# a guess, and the plan says so (the preemptor's and the victim's actions, and `incomplete`).
def _preemption_cluster() -> List[dict]:
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
           "metadata": {"name": "lowa", "namespace": "default", "generation": 1},
           "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "lowa"}}},
           "status": {"observedGeneration": 1, "disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1,
                      "expectedPods": 1}}
    return [node("n1", cpu="1"), node("na", cpu="1"), node("nb", cpu="1"),
            pod("hi-1", "n1", owner=("ReplicaSet", "hi"), cpu="800m", priority=1000, labels={"app": "hi"}),
            pod("lowa-1", "na", owner=("ReplicaSet", "lowa"), cpu="500m", priority=0, labels={"app": "lowa"}),
            pod("lowb-1", "nb", owner=("ReplicaSet", "lowb"), cpu="500m", priority=0, labels={"app": "lowb"}), pdb]


@pytest.mark.parametrize("without,code,victim_node,incomplete", [
    ((), 0, "nb", []),
    (("PodDisruptionBudget",), 5, None, ["PodDisruptionBudget"]),
])
def test_preemption_without_pdbs_is_not_presented_as_known(tmp_path: Path, without: tuple, code: int,
                                                            victim_node: Optional[str], incomplete: List[str]) -> None:
    path = _write(tmp_path, _preemption_cluster(), without=without)
    res = _plan(path, "controller", "--fail", "n1")
    assert res.returncode == code, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    victims = [a for a in doc["actions"] if a["by"] == "scheduler"]
    assert len(victims) == 1
    assert [e["kind"] for e in doc["incomplete"]] == incomplete
    if victim_node:
        assert victims[0]["node"] == victim_node
    else:
        effect = doc["incomplete"][0]["effect"]
        assert effect.startswith("preemption victims and their node chosen without budgets") and "default/hi-1" in effect
        hi = [a for a in doc["actions"] if a.get("pod") == "hi-1"]
        assert all("not in the input: PodDisruptionBudget" in a["reason"] for a in hi + victims)


# The node lifecycle controller refreshes a node's probe time when its Ready heartbeat changes or
# its Lease renews (spec/semantics.md C line "The probe timestamp is refreshed ..."; a kubelet posts
# status only every 5m when nothing changes). n2's heartbeat is 3m old: only its Lease says it is
# healthy. Graceful shutdown builds the controller's own timeline (zone states, rate limits) for
# n1's taints, so it depends on n2's Lease exactly as `controller` does, and says so the same way.
def _lease(name: str, renewed: str) -> dict:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "namespace": "kube-node-lease"},
            "spec": {"holderIdentity": name, "leaseDurationSeconds": 40, "renewTime": renewed}}


@pytest.mark.parametrize("args", [("controller", "--fail", "n1"), ("shutdown", "n1")])
@pytest.mark.parametrize("without,incomplete", [((), []), (("Lease",), ["Lease"])])
def test_node_health_without_leases_is_said_by_every_command_that_times_taints(
        tmp_path: Path, args: tuple, without: tuple, incomplete: List[str]) -> None:
    stale = node("n2")
    stale["status"]["conditions"][0]["lastHeartbeatTime"] = "2026-11-21T11:57:00Z"
    path = _write(tmp_path, [node("n1"), stale, node("n3"), _lease("n1", "2026-11-21T11:59:55Z"),
                             _lease("n2", "2026-11-21T11:59:55Z"), _lease("n3", "2026-11-21T11:59:55Z")],
                  without=without)
    res = _plan(path, *args)
    doc = json.loads(res.stdout)
    assert [e["kind"] for e in doc["incomplete"]] == incomplete
    assert res.returncode == (5 if incomplete else 0), res.stdout
    if incomplete:
        assert doc["incomplete"][0]["effect"].startswith("node health read from Ready heartbeats only: 1 node (n2)")


# NodeVolumeLimits counts a node's VolumeAttachments too, even those no pod uses
# (`getNodeVolumeAttachmentInfo`; spec/scheduler.md NodeVolumeLimits 8): n2's CSINode allows one
# EBS volume and one is attached there, so db-1's replacement exceeds it ("node(s) exceed max
# volume count") and fits no node. Without VolumeAttachments in the input "fits on n2" is not
# known: the filter counts the pods' volumes only (a lower bound: a node they fill is still
# rejected, tests/test_placement_plan.py test_csi_attach_limit) and the plan says so (exit 5, not 0).
def _pv(name: str, claim: str, handle: str) -> dict:
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "storageClassName": "ebs",
                     "claimRef": {"namespace": "default", "name": claim, "uid": "uid-" + claim},
                     "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": handle}},
            "status": {"phase": "Bound"}}


def _attached_volume_cluster(limit: Optional[int]) -> List[dict]:
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "data", "namespace": "default", "uid": "uid-data",
                          "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
             "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "ebs", "volumeName": "pv-data",
                      "resources": {"requests": {"storage": "1Gi"}}}, "status": {"phase": "Bound"}}
    driver = {"name": "ebs.csi.aws.com", "nodeID": "i-2"}
    if limit is not None:
        driver["allocatable"] = {"count": limit}
    csinode = {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "n2"},
               "spec": {"drivers": [driver]}}
    va = {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": "csi-other"},
          "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "n2", "source": {"persistentVolumeName": "pv-other"}},
          "status": {"attached": True}}
    db = pod("db-1", "n1", owner=("ReplicaSet", "db"), volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}])
    return [node("n1"), node("n2"), db, claim, _pv("pv-data", "data", "vol-1"), _pv("pv-other", "gone", "vol-9"),
            csinode, va]


def _one_eviction(path: str, code: int, target: Optional[str], incomplete: List[str]) -> Tuple[dict, dict]:
    """Drain the input's one pod: the exit code, its eviction's target and the kinds listed
    incomplete; the plan and the eviction."""
    res = _drain(path)
    assert res.returncode == code, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    [evict] = [a for a in doc["actions"] if a["type"] == "evict"]
    assert evict["target"] == target
    assert [e["kind"] for e in doc["incomplete"]] == incomplete
    return doc, evict


# Which claims NodeVolumeLimits counts (spec/scheduler.md NodeVolumeLimits 8, csi.go
# getCSIDriverInfo): a bound PV's `csi` source, or an in-tree source a CSINode lists as migrated.
# A claim bound to a PV in the input with neither (NFS, hostPath) counts on no node whatever the
# CSINodes say: without CSINodes nothing is unknown. A CSI or in-tree PV, or a claim whose PV the
# input does not show, may count: the plugin is skipped and the plan says so.
@pytest.mark.parametrize("source,without,code,incomplete", [
    ({"nfs": {"server": "10.0.0.1", "path": "/data"}}, ("CSINode",), 0, []),
    ({"hostPath": {"path": "/data"}}, ("CSINode",), 0, []),
    ({"csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1"}}, ("CSINode",), 5, ["CSINode"]),
    ({"awsElasticBlockStore": {"volumeID": "vol-1"}}, ("CSINode",), 5, ["CSINode"]),
    ({"nfs": {"server": "10.0.0.1", "path": "/data"}}, ("CSINode", "PersistentVolume"), 5,
     ["PersistentVolume", "CSINode"]),
])
def test_volume_limits_need_csinodes_only_for_volumes_a_driver_counts(tmp_path: Path, source: dict, without: tuple,
                                                                     code: int, incomplete: List[str]) -> None:
    items = [i for i in _attached_volume_cluster(None) if i["kind"] not in ("CSINode", "VolumeAttachment")]
    for i in items:
        if i["kind"] == "PersistentVolume" and i["metadata"]["name"] == "pv-data":
            del i["spec"]["csi"]
            i["spec"].update(source)
    _one_eviction(_write(tmp_path, items, without=without), code, "n2", incomplete)


@pytest.mark.parametrize("limit,without,code,target,incomplete", [
    (1, (), 4, None, []),                                         # 1 attached + 1 new > 1
    (1, ("VolumeAttachment",), 5, "n2", ["VolumeAttachment"]),    # the attached one is not known
    (None, ("VolumeAttachment",), 0, "n2", []),                   # no count on any CSINode: no limit to exceed
])
def test_volume_limits_without_volume_attachments(tmp_path: Path, limit: Optional[int], without: tuple, code: int,
                                                  target: Optional[str], incomplete: List[str]) -> None:
    path = _write(tmp_path, _attached_volume_cluster(limit), without=without)
    doc, evict = _one_eviction(path, code, target, incomplete)
    if code == 4:
        assert "node(s) exceed max volume count" in doc["shortfall"][0]["reason"]
    if incomplete:
        assert doc["incomplete"][0]["effect"].startswith("NodeVolumeLimits counted only the pods' volumes")
        assert "not in the input: VolumeAttachment" in evict["reason"]


# The DaemonSet controller keeps a daemon pod on a node only while the node matches the
# DaemonSet's pod template: its nodeSelector and required node affinity (daemon_controller.go
# NodeShouldRunDaemonPod: NewPod(ds) + predicates). The pods themselves do not carry the
# template's affinity terms: the controller replaces them with a matchFields term on their node's
# name (daemonset_util.go ReplaceDaemonSetPodNodeNameNodeAffinity). Relabeling n1 so that it no
# longer matches the template's affinity deletes the pod; without the DaemonSet in the input the
# plan cannot know, and says so.
def _daemon_cluster() -> List[dict]:
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "monitoring", "operator": "NotIn", "values": ["off"]}]}]}}}
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "exporter", "namespace": "default",
                                                                   "uid": "uid-exporter"},
          "spec": {"selector": {"matchLabels": {"app": "exporter"}},
                   "template": {"metadata": {"labels": {"app": "exporter"}},
                                "spec": {"affinity": affinity, "containers": [{"name": "c", "image": "x"}]}}}}
    pinned = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}}}
    daemon = pod("exporter-x1", "n1", owner=("DaemonSet", "exporter"), labels={"app": "exporter"}, affinity=pinned)
    return [node("n1"), node("n2"), daemon, ds]


@pytest.mark.parametrize("label,without,code,deleted,incomplete", [
    ("monitoring=off", (), 0, ["exporter-x1"], []),                       # no longer matches the template
    ("monitoring=on", (), 0, [], []),                                     # still matches
    ("monitoring=off", ("DaemonSet",), 5, [], ["DaemonSet"]),            # the template is not in the input
])
def test_relabel_under_a_daemonset_template_affinity(tmp_path: Path, label: str, without: tuple, code: int,
                                                      deleted: List[str], incomplete: List[str]) -> None:
    path = _write(tmp_path, _daemon_cluster(), without=without)
    res = _plan(path, "affinity", "--label", "n1:" + label)
    assert res.returncode == code, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    assert [a["pod"] for a in doc["actions"] if a["type"] == "delete"] == deleted
    assert all(a["by"] == "daemonset-controller" for a in doc["actions"] if a["type"] == "delete")
    assert [e["kind"] for e in doc["incomplete"]] == incomplete
    if incomplete:
        assert doc["incomplete"][0]["effect"].startswith("the DaemonSet's node affinity")


# A StatefulSet (OrderedReady, assumed when it is not in the input) recreates web-1 only once
# web-0 is Running and Ready (stateful_set_control.go; spec/semantics.md StatefulSet): with web-0's
# replacement fitting no node, web-1's is never created, and its eviction says that, not that it
# "fits no node" (the kind-1.33 capture's redis-replicas-1/-2 read that way before).
def test_an_ordered_ready_replacement_is_never_created_not_unplaceable(tmp_path: Path) -> None:
    sts = [pod("web-%d" % i, "n1", owner=("StatefulSet", "web"), labels={"app": "web"}) for i in (0, 1)]
    taint = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
    path = _write(tmp_path, [node("n1"), node("n2", taints=taint)] + sts, without=("StatefulSet",))
    doc = json.loads(_drain(path).stdout)
    reasons = {a["pod"]: a["reason"] for a in doc["actions"] if a["type"] == "evict"}
    codes = {e["pod"]: e["code"] for e in doc["shortfall"]}
    assert codes == {"web-0": "no-node-fits", "web-1": "ordered-ready"}
    assert reasons["web-0"].endswith("; its replacement fits no node")
    assert "; its replacement is never created" in reasons["web-1"] and "fits no node" not in reasons["web-1"]
    assert "StatefulSet" in [e["kind"] for e in doc["incomplete"]]


# An upgrade drains each old node with kubectl drain's semantics: how many pods a batch evicts is
# a count of the pods the input shows, known only when it holds every Pod (DESIGN.md).
@pytest.mark.parametrize("without,code,text", [
    ((), 0, "drains node/n1: 0 evictions"),
    (("Pod",), 5, "drains node/n1: pods not in the input"),
])
def test_upgrade_batches_of_nodes_whose_pods_are_not_in_the_input(tmp_path: Path, without: tuple, code: int,
                                                                   text: str) -> None:
    path = _write(tmp_path, [node("n1"), node("n2")], without=without)
    res = _plan(path, "upgrade", "n1", fmt="table")
    assert res.returncode == code, res.stdout + res.stderr
    assert text in res.stdout


# A Job pod the taint-eviction controller deletes, then pod GC force-deletes (non-graceful
# shutdown), or deletes on a node that went down without graceful shutdown: the Job controller
# counts it failed (`isPodFailed`: a terminating pod, under podReplacementPolicy
# TerminatingOrFailed; gc_controller.go markFailedAndDeletePod) and replaces it only within
# backoffLimit (spec/semantics.md, replacements). j's backoffLimit 0 fails the Job; without the Job
# in the input the replacement is assumed, and `incomplete` says so for the pod, as `controller`
# does for the same deletion.
def _job_cluster() -> List[dict]:
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "default", "uid": "uid-j"},
           "spec": {"completions": 1, "parallelism": 1, "backoffLimit": 0,
                    "template": {"spec": {"containers": [{"name": "c", "image": "x"}]}}}, "status": {"active": 1}}
    return [node("n1"), node("n2"), pod("j-1", "n1", owner=("Job", "j"), labels={"app": "j"}), job]


@pytest.mark.parametrize("args", [("controller", "--fail", "n1"), ("shutdown", "n1", "--non-graceful"),
                                  ("shutdown", "n1")])
@pytest.mark.parametrize("without,code,target", [
    (("NodeKubeletConfig",), 4, None),               # backoffLimit 0: the Job fails (job-failed)
    (("NodeKubeletConfig", "Job"), 5, "n2"),         # not in the input: replacement assumed, said so
])
def test_a_deleted_job_pod_without_its_job_says_the_replacement_is_assumed(
        tmp_path: Path, args: tuple, without: tuple, code: int, target: Optional[str]) -> None:
    res = _plan(_write(tmp_path, _job_cluster(), without=without), *args)
    assert res.returncode == code, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    [delete] = [a for a in doc["actions"] if a["type"] == "delete" and a["pod"] == "j-1"]
    assert delete["target"] == target
    effects = {e["kind"]: e["effect"] for e in doc["incomplete"]}
    if target is None:
        assert "Job" not in effects and [e["code"] for e in doc["shortfall"]] == ["job-failed"]
    else:
        assert effects["Job"].startswith("podReplacementPolicy, backoffLimit and podFailurePolicy not checked: "
                                         "assumed TerminatingOrFailed with backoffLimit 6 (replaced when deleted) "
                                         "for 1 pod (default/j-1)")
        assert "not in the input" in delete["reason"]


# InterPodAffinity's Score weighs the incoming pod's preferred terms and the existing pods' terms
# (`scoring.go` processExistingPod) over the namespaces they cover; a namespaceSelector selects
# them by Namespace labels (`AffinityTerm.Matches`; spec/scheduler.md InterPodAffinity). x-1 (on
# n2, namespace "other", team=a) repels w-1's replacement: upstream picks n3. Without Namespaces
# the term matches nothing, n2 and n3 tie: the pick is not known, and the plan says so (exit 5).
def _ns(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": {"team": "a"}}}


def _preferred(app: str) -> dict:
    return {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": {
        "labelSelector": {"matchLabels": {"app": app}}, "namespaceSelector": {"matchLabels": {"team": "a"}},
        "topologyKey": "kubernetes.io/hostname"}}]}}


@pytest.mark.parametrize("whose", ["incoming", "existing"])
@pytest.mark.parametrize("without,code,target,incomplete", [
    ((), 0, "n3", []),
    (("Namespace",), 5, "n2", ["Namespace"]),
])
def test_preferred_terms_with_a_namespace_selector_need_the_namespaces(
        tmp_path: Path, whose: str, without: tuple, code: int, target: str, incomplete: List[str]) -> None:
    w = pod("w-1", "n1", labels={"app": "w"}, affinity=_preferred("x") if whose == "incoming" else None)
    x = pod("x-1", "n2", ns="other", labels={"app": "x"}, affinity=_preferred("w") if whose == "existing" else None)
    y = pod("y-1", "n3", ns="other", labels={"app": "y"})        # n2 and n3 equally full
    path = _write(tmp_path, [node("n1"), node("n2"), node("n3"), _ns("default"), _ns("other"), w, x, y],
                  without=without)
    doc, evict = _one_eviction(path, code, target, incomplete)
    if incomplete:
        assert doc["incomplete"][0]["effect"].startswith("InterPodAffinity's score: preferred pod (anti-)affinity "
                                                         "terms with a namespaceSelector were not weighed")
        assert "not in the input: Namespace" in evict["reason"]


# Without the node's kubelet configuration, flags settle only what they give: --grace-period alone
# leaves shutdownGracePeriodCriticalPods at its upstream default, 0s (KubeletConfiguration
# defaults; spec/semantics.md B), so the plan has one phase of 30s, and `incomplete` says that the
# critical pods' period was defaulted, not that graceful shutdown is off.
@pytest.mark.parametrize("flags,effect", [
    ((), "shutdownGracePeriod and shutdownGracePeriodByPodPriority taken from upstream defaults (graceful shutdown off)"),
    (("--grace-period", "30s"), "shutdownGracePeriodCriticalPods taken from the upstream default (0s: no phase for "
                                "critical pods)"),
    (("--critical-grace-period", "0s"), "shutdownGracePeriod taken from the upstream default (0s)"),
])
def test_shutdown_flags_that_settle_part_of_the_configuration(tmp_path: Path, flags: tuple, effect: str) -> None:
    path = _write(tmp_path, [node("n1"), node("n2"), pod("w-1", "n1")], without=("NodeKubeletConfig",))
    res = _plan(path, "shutdown", "n1", *flags)
    assert res.returncode == 5, res.stdout + res.stderr
    [entry] = json.loads(res.stdout)["incomplete"]
    assert entry["kind"] == "NodeKubeletConfig" and entry["effect"].startswith(effect + " as the kubelet's configuration")


# SnapshotInfo.kinds holds kind names (DESIGN.md: "kinds": ["Node", "Pod", "PodDisruptionBudget", ...]).
# A resource or short name written by hand after the README recipe (`pdb`, `replicasets`) names no
# kind: it claims nothing (the plan still lists the kind in `incomplete`), and one warning says so
# with the kind meant, as for objects of a kind in the wrong case.
@pytest.mark.parametrize("listed,code,incomplete,warning", [
    (["PodDisruptionBudget", "ReplicaSet"], 0, [], None),
    (["pdb", "ReplicaSets"], 5, ["PodDisruptionBudget", "ReplicaSet"],
     "SnapshotInfo.kinds names kinds the planner does not read, so they claim nothing: pdb (PodDisruptionBudget?), "
     "ReplicaSets (ReplicaSet?); kinds are singular, case-sensitive kind names"),
    (["poddisruptionbudgets", "ReplicaSet"], 5, ["PodDisruptionBudget"],
     "SnapshotInfo.kinds names a kind the planner does not read, so it claims nothing: poddisruptionbudgets "
     "(PodDisruptionBudget?); kinds are singular, case-sensitive kind names"),
])
def test_kind_names_in_snapshot_info_that_name_no_kind(tmp_path: Path, listed: List[str], code: int,
                                                       incomplete: List[str], warning: Optional[str]) -> None:
    path = _write(tmp_path, [node("n1"), node("n2"), pod("web-1", "n1", owner=("ReplicaSet", "web"))],
                  kinds=["Node", "Pod"] + listed)
    res = _drain(path)
    assert res.returncode == code, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    assert [e["kind"] for e in doc["incomplete"]] == incomplete
    said = [w for w in doc["warnings"] if "SnapshotInfo.kinds" in w]
    assert said == ([] if warning is None else ["%s: %s" % (path, warning)])


# --- Pod listed only where a pod could change the verdict --------------------------------------------
# DESIGN.md: `incomplete` has "one entry per kind the input lacks that this plan's verdict depends
# on". The taint-eviction controller acts on a node's NoExecute taints only
# (`pkg/controller/tainteviction/taint_eviction.go`, spec/semantics.md: "over the node's NoExecute
# taints only"), and a DaemonSet pod is deleted only when its node stops matching the DaemonSet
# (`pkg/controller/daemon/daemon_controller.go` NodeShouldRunDaemonPod: shouldContinueRunning
# ignores NoSchedule taints). So a plan that puts no NoExecute taint on any node (controller with
# every node Ready, an affinity NoSchedule taint or a taint removal) touches no pod, whatever runs
# where: the input without Pods is complete for it (exit 0); where a node fails, is NotReady, or an
# edit can move pods, the pods are needed (exit 5), named per node.
@pytest.mark.parametrize("ready,args,code,pod_gap", [
    ("True", ("controller",), 0, None),
    ("True", ("controller", "--fail", "n1"), 5, "1 node (n1)"),
    ("True", ("controller", "--fail", "n1", "--horizon", "10s"), 0, None),    # the taint comes at +50s
    ("Unknown", ("controller",), 5, "1 node (n1)"),
    ("True", ("affinity", "--taint", "n1:k=v:NoSchedule"), 0, None),
    ("True", ("affinity", "--taint", "n1:k=v:PreferNoSchedule"), 0, None),
    ("True", ("affinity", "--taint", "n1:k=v:NoExecute"), 5, "1 node (n1)"),
    ("True", ("affinity", "--taint", "n1:k=v:NoSchedule", "--label", "n2:disk=ssd"), 5, "1 node (n2)"),
    ("True", ("affinity", "--unlabel", "n1:zone"), 5, "1 node (n1)"),
    ("True", ("affinity",), 5, "2 nodes (n1, n2)"),
    ("True", ("drain", "n1"), 5, None),          # drain always evicts what runs on the node: the blanket entry
])
def test_pods_are_listed_only_where_they_change_the_verdict(tmp_path: Path, ready: str, args: tuple, code: int,
                                                           pod_gap: Optional[str]) -> None:
    path = _write(tmp_path, [node("n1", ready=ready), node("n2")], info=False)
    res = _plan(path, *args)
    assert res.returncode == code, res.stdout
    doc = json.loads(res.stdout)
    pods = [e["effect"] for e in doc["incomplete"] if e["kind"] == "Pod"]
    if code == 0:
        assert doc["incomplete"] == [] and pods == []
    elif pod_gap is not None:
        assert len(pods) == 1 and pods[0].startswith("which pods run on %s, " % pod_gap), pods
    else:
        assert len(pods) == 1
