"""Trustworthy plans (issue 12): who acts, forecasts that are never applied, blocked vs shortfall,
unreachable nodes in a drain, exit codes, and version-dependent defaults.

Expected behaviour follows upstream: kubectl drain waits for evicted pods to disappear
(`waitForDelete`, forever unless --timeout) and stops waiting for pods deleted more than
--skip-wait-for-delete-timeout seconds ago (`shouldSkipPod`); an unreachable node's kubelet never
confirms a deletion; a StatefulSet creates a pod's replacement (same name) only once the old pod
is gone; ReplicaSets do not count terminating pods as active, so their replacement starts at
once. Apply-side checks run against the test API server (tests/apiserver.py) and assert on what
the server recorded.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Dict, List

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from apiserver import ApiServer  # noqa: E402
from conftest import NOW, REPO, run_cli  # noqa: E402

DEMO = REPO / "kubectl_evict" / "demo" / "cluster.json"
DRAIN_FLAGS = ["--ignore-daemonsets", "--delete-emptydir-data", "--force"]


def plan_json(*args: str) -> Dict:
    res = run_cli("--demo", "-o", "json", *args)
    assert res.returncode in (0, 3, 4), res.stderr
    return json.loads(res.stdout)


# --- who acts, and exit codes per command -----------------------------------------------------------

# (command, exit code, forecast?, the actors of its actions)
COMMANDS = [
    (["drain", "worker-a1", *DRAIN_FLAGS], 3, False, {"user"}),                 # PDB budget + a shortfall
    (["drain", "worker-b2", *DRAIN_FLAGS], 0, False, {"user"}),
    (["drain", "worker-c2", *DRAIN_FLAGS], 3, False, {"user"}),                 # unreachable node
    (["drain", "worker-c2", *DRAIN_FLAGS, "--skip-wait-for-delete-timeout", "30"], 4, False, {"user"}),
    (["controller", "--fail", "worker-a1"], 4, True, {"node-lifecycle-controller", "taint-eviction-controller"}),
    (["pressure"], 0, True, {"kubelet", "node-lifecycle-controller"}),
    (["shutdown", "worker-a1"], 4, True, {"kubelet", "node-lifecycle-controller"}),   # spark-driver fits nowhere
    (["shutdown", "worker-c2", "--non-graceful"], 0, False, {"user", "pod-gc", "attach-detach-controller"}),
    (["affinity", "--taint", "worker-a2:k=v:NoExecute"], 0, False, {"user", "taint-eviction-controller"}),
    (["affinity", "--label", "worker-b1:disktype=hdd"], 0, False, {"user"}),
]


@pytest.mark.parametrize("args, code, forecast, actors", COMMANDS, ids=[" ".join(c[0][:3]) for c in COMMANDS])
def test_exit_codes_and_actors(args: List[str], code: int, forecast: bool, actors: set) -> None:
    res = run_cli("--demo", "-o", "json", *args)
    assert res.returncode == code, (res.stdout[-500:], res.stderr)
    doc = json.loads(res.stdout)
    assert {a["by"] for a in doc["actions"]} == actors
    assert doc["forecast"] is forecast
    # 3 if anything is blocked, else 4 for a shortfall, else 0
    assert code == (3 if doc["blocked"] else 4 if doc["shortfall"] else 0)
    seen: set = set()
    for section in ("blocked", "shortfall", "skipped"):
        for e in doc[section]:
            key = (e["namespace"], e["pod"], e["node"])
            assert key not in seen, "a pod is in at most one of blocked, shortfall and skipped"
            seen.add(key)
    table = run_cli("--demo", *args)
    assert table.returncode == code
    first = table.stdout.splitlines()[0]
    assert first.startswith("FORECAST (" if forecast else "PLAN (")


def test_label_plan_carries_the_label_and_its_precondition() -> None:
    doc = plan_json("affinity", "--label", "worker-b1:disktype=hdd")
    label = doc["actions"][0]
    assert {k: label[k] for k in ("type", "node", "key", "value", "previous", "by", "at")} == {
        "type": "label", "node": "worker-b1", "key": "disktype", "value": "hdd", "previous": "ssd", "by": "user",
        "at": 0}
    assert label["uid"]                                         # the node's uid: apply checks it
    evict = [a for a in doc["actions"] if a["type"] == "evict"]
    assert [a["by"] for a in evict] == ["user"]                 # RequiredDuringExecution: evictplan evicts it


def test_noexecute_taint_warns_about_budgets_it_bypasses() -> None:
    """drain --disable-eviction warns when plain deletes take more than a PDB allows; a NoExecute
    taint's deletions are plain deletes too."""
    doc = plan_json("affinity", "--taint", "worker-a1:k=v:NoExecute")
    assert any(w.startswith("PDB shop/payments allows 0 disruptions, but the taint-eviction controller deletes 1 "
                            "of its healthy pods") for w in doc["warnings"]), doc["warnings"]
    assert any(w.startswith("outage: Deployment shop/payments has 0 of 1 ready replicas from +0s")
               and "plain deletions bypass PDB shop/payments" in w for w in doc["warnings"])


# --- an unreachable node in a drain --------------------------------------------------------------

def test_drain_of_an_unreachable_node_never_finishes() -> None:
    doc = plan_json("drain", "worker-c2", *DRAIN_FLAGS)
    blocked = {e["pod"].rsplit("-", 2)[0] if "-" in e["pod"] else e["pod"]: e for e in doc["blocked"]}
    assert {e["code"] for e in doc["blocked"]} == {"node-unreachable"}
    assert len(doc["blocked"]) == len([a for a in doc["actions"] if a["type"] == "evict"]) == 4
    evicts = {a["pod"]: a for a in doc["actions"] if a["type"] == "evict"}
    # the StatefulSet's replacement waits for the old pod; a ReplicaSet's starts at once, and for
    # the pods the taint-eviction controller is already deleting it exists already (a ReplicaSet
    # replaces a pod once its deletion begins: controller_utils.go IsPodActive; the demo holds
    # frontend's and catalog's), so their evictions place none
    assert evicts["postgres-2"]["target"] is None
    terminating = {p for p in evicts if p.startswith(("frontend-", "catalog-"))}
    assert len(terminating) == 2 and all(evicts[p]["target"] is None for p in terminating)
    assert all(a["target"] for p, a in evicts.items() if p != "postgres-2" and p not in terminating)
    assert "only once the old pod is gone" in [e for e in doc["blocked"] if e["pod"] == "postgres-2"][0]["reason"]
    assert blocked
    [verdict] = [n for n in doc["nodes"]]
    assert verdict["verdict"].startswith("node/worker-c2: will not finish: 4 pods stay Terminating; node/worker-c2 "
                                         "has been Ready=Unknown since 2026-11-21T11:50:52Z (9m8s ago)")
    assert "--skip-wait-for-delete-timeout N" in verdict["verdict"]
    assert "shutdown worker-c2 --non-graceful" in verdict["verdict"]


def test_skip_wait_lets_the_drain_finish_but_the_statefulset_runs_short() -> None:
    doc = plan_json("drain", "worker-c2", *DRAIN_FLAGS, "--skip-wait-for-delete-timeout", "30")
    assert doc["blocked"] == []
    assert [(e["pod"], e["code"]) for e in doc["shortfall"]] == [("postgres-2", "waits-for-old-pod")]
    # postgres-2 was deleted long ago: kubectl skips it, the drain finishes, the StatefulSet stays short
    assert doc["nodes"][0]["verdict"] == "node/worker-c2: can be drained, but 1 replacement stays Pending in 1 wave (~30s)"


# --- workloads ---------------------------------------------------------------------------------------

def test_workloads_count_ready_replicas_through_the_drain() -> None:
    doc = plan_json("drain", "worker-a1", *DRAIN_FLAGS)
    wl = {w["name"]: w for w in doc["workloads"]}
    # checkout: 3 replicas, 2 on worker-a1, PDB maxUnavailable 1: one at +0s, the next at +30s once the
    # first replacement is Ready (pod-startup 30s); the lowest point is 2 ready, and all 3 come back.
    assert {k: wl["checkout"][k] for k in ("kind", "ready", "readyMin", "readyAfter")} == {
        "kind": "Deployment", "ready": 3, "readyMin": 2, "readyAfter": 3}
    # spark-driver's only replica fits no other node: an outage that does not end
    assert (wl["spark-driver"]["ready"], wl["spark-driver"]["readyMin"], wl["spark-driver"]["readyAfter"]) == (1, 0, 0)
    assert any(w.startswith("outage: Deployment analytics/spark-driver has 0 of 1 ready replicas from +0s on")
               for w in doc["warnings"])
    assert "payments" not in wl                                  # blocked: nothing happens to it


# --- apply never acts out a forecast -------------------------------------------------------------------

@pytest.fixture
def live(tmp_path):
    with ApiServer(DEMO) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kubeconfig"))
        yield srv, kc, tmp_path


def _writes(srv: ApiServer) -> List:
    return [(m, p) for m, p in srv.requests if m != "GET"]


@pytest.mark.parametrize("args", [
    ["controller", "--fail", "worker-a1"],
    ["pressure"],
    ["shutdown", "worker-a1"],
], ids=["controller", "pressure", "graceful-shutdown"])
def test_forecasts_are_never_applied(live, args: List[str]) -> None:
    srv, kc, tmp = live
    made = run_cli("--kubeconfig", kc, "--now", NOW, "-o", "json", *args)
    assert made.returncode in (0, 4), made.stderr
    plan = tmp / "plan.json"
    plan.write_text(made.stdout)
    before = len(srv.requests)
    res = run_cli("--kubeconfig", kc, "apply", str(plan), "--yes")
    assert res.returncode == 1
    assert res.stderr.strip() == ("error: this plan is a forecast of what Kubernetes does by itself (%s); there is "
                                  "nothing to apply" % args[0])
    assert len(srv.requests) == before                           # not a single request
    # the same with --apply on the planning command: printed, then refused, nothing written
    res = run_cli("--kubeconfig", kc, "--now", NOW, *args, "--apply", "--yes")
    assert res.returncode == 1 and "is a forecast" in res.stderr
    assert _writes(srv) == []


# An operator's command whose plan holds no action (the node is already cordoned and nothing on it
# can go; no node violates its affinity) has nothing to do: it is no forecast of what Kubernetes does
# by itself, though apply, as for a forecast, has nothing to send (exit 1, no request).
NO_ACTION = [
    (["drain", "worker-c3", "--ignore-daemonsets"], 3),   # already cordoned; the bare pod is refused
    (["affinity"], 0),
]


@pytest.mark.parametrize("args, code", NO_ACTION, ids=["drain-cordoned", "affinity-unchanged"])
def test_an_operators_plan_without_actions_is_no_forecast(live, args: List[str], code: int) -> None:
    srv, kc, tmp = live
    table = run_cli("--kubeconfig", kc, "--now", NOW, *args)
    assert table.returncode == code, table.stderr
    assert table.stdout.splitlines()[0].startswith("PLAN (%s): no action; apply has nothing to send" % args[0])
    md = run_cli("--kubeconfig", kc, "--now", NOW, "-o", "markdown", *args)
    assert "Plan of `%s`" % args[0] in md.stdout and "It holds no action: apply has nothing to send." in md.stdout
    made = run_cli("--kubeconfig", kc, "--now", NOW, "-o", "json", *args)
    doc = json.loads(made.stdout)
    assert doc["actions"] == [] and doc["forecast"] is True       # the contract: no action by the user
    plan = tmp / "plan.json"
    plan.write_text(made.stdout)
    before = len(srv.requests)
    res = run_cli("--kubeconfig", kc, "apply", str(plan), "--yes")
    assert (res.returncode, res.stderr.strip()) == (
        1, "error: this %s plan holds no action: there is nothing to apply" % args[0])
    assert len(srv.requests) == before
    res = run_cli("--kubeconfig", kc, "--now", NOW, *args, "--apply", "--yes")
    assert res.returncode == 1 and "holds no action" in res.stderr and _writes(srv) == []


def test_taint_plan_applies_the_taint_but_not_the_controllers_deletions(live) -> None:
    srv, kc, tmp = live
    made = run_cli("--kubeconfig", kc, "--now", NOW, "-o", "json", "affinity", "--taint", "worker-a2:k=v:NoExecute")
    plan = tmp / "plan.json"
    plan.write_text(made.stdout)
    assert sum(1 for a in json.loads(made.stdout)["actions"] if a["type"] == "delete") > 0
    res = run_cli("--kubeconfig", kc, "-o", "json", "apply", str(plan), "--yes")
    assert res.returncode == 0, res.stderr
    assert _writes(srv) == [("PATCH", "/api/v1/nodes/worker-a2")]
    taints = srv.state.get("nodes", "worker-a2")["spec"]["taints"]
    assert any(t["key"] == "k" and t["effect"] == "NoExecute" for t in taints)
    outcomes = {r["outcome"] for r in json.loads(res.stdout)["results"][1:]}
    assert outcomes == {"cluster's job"}


def test_label_is_applied_with_preconditions(live) -> None:
    srv, kc, tmp = live
    made = run_cli("--kubeconfig", kc, "--now", NOW, "-o", "json", "affinity", "--label", "worker-b1:disktype=hdd")
    plan = tmp / "plan.json"
    plan.write_text(made.stdout)
    res = run_cli("--kubeconfig", kc, "-o", "json", "apply", str(plan), "--yes")
    assert res.returncode == 0, res.stderr
    assert srv.state.get("nodes", "worker-b1")["metadata"]["labels"]["disktype"] == "hdd"
    assert [r["outcome"] for r in json.loads(res.stdout)["results"]] == ["done", "done"]   # label, then evict

    # someone changes the label after the plan was made: apply refuses to overwrite it
    made = run_cli("--kubeconfig", kc, "--now", NOW, "-o", "json", "affinity", "--label", "worker-b2:tier=gold")
    plan.write_text(made.stdout)
    node = srv.state.get("nodes", "worker-b2")
    node["metadata"]["labels"]["tier"] = "silver"
    node.setdefault("kind", "Node")
    srv.state.put(node)
    res = run_cli("--kubeconfig", kc, "-o", "json", "apply", str(plan), "--yes")
    assert res.returncode != 0
    [result] = json.loads(res.stdout)["results"]
    assert result["outcome"] == "failed"
    assert "label tier changed since the plan was made (planned not set, now 'silver')" in result["outcomeReason"]
    assert srv.state.get("nodes", "worker-b2")["metadata"]["labels"]["tier"] == "silver"


# (edits, the taint action's previous value, its reason). `kubectl taint` refuses to replace a
# taint of the same key and effect without --overwrite; the plan says what it replaces, and apply
# replaces only the value the plan saw.
TAINT_EDITS = [
    (["--taint", "worker-a2:k=v:NoExecute"], None, "taint requested with --taint"),
    (["--taint", "gpu-1:nvidia.com/gpu=false:NoSchedule"], "true",
     "taint requested with --taint (replaces nvidia.com/gpu=true:NoSchedule)"),
    (["--taint", "gpu-1:nvidia.com/gpu=true:NoSchedule"], "true", "taint requested with --taint"),
    (["--taint", "gpu-1:nvidia.com/gpu:NoExecute"], None, "taint requested with --taint"),   # another effect
    (["--taint", "gpu-1:nvidia.com/gpu:NoSchedule-"], "true", "taint removal requested with --untaint"),
]


@pytest.mark.parametrize("edits, previous, reason", TAINT_EDITS, ids=[" ".join(e[0][1::2]) for e in TAINT_EDITS])
def test_taint_plan_carries_the_value_it_replaces(edits: List[str], previous, reason: str) -> None:
    doc = plan_json("affinity", *edits)
    taint = [a for a in doc["actions"] if a["type"] in ("taint", "untaint") and a["by"] == "user"][-1]
    assert taint["previous"] == previous and taint["reason"] == reason
    assert taint["uid"]                                          # the node's uid: apply checks it


def _put_taints(srv: ApiServer, node_name: str, taints: List[dict]) -> None:
    node = srv.state.get("nodes", node_name)
    node["spec"]["taints"] = taints
    node.setdefault("kind", "Node")
    srv.state.put(node)


GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}


# (what the node's gpu taint is when apply runs, outcome, the taints the node ends with)
TAINT_APPLY = [
    ([GPU_TAINT], "done", [{"key": "nvidia.com/gpu", "value": "false", "effect": "NoSchedule"}]),
    ([dict(GPU_TAINT, value="maybe")], "failed", [dict(GPU_TAINT, value="maybe")]),   # changed since the plan
    ([], "failed", []),                                                               # removed since the plan
    ([dict(GPU_TAINT, value="false")], "already done", [dict(GPU_TAINT, value="false")]),
]


@pytest.mark.parametrize("now_taints, outcome, after", TAINT_APPLY, ids=["as-planned", "changed", "removed", "already"])
def test_taint_replaces_only_the_value_the_plan_saw(live, now_taints, outcome, after) -> None:
    srv, kc, tmp = live
    made = run_cli("--kubeconfig", kc, "--now", NOW, "-o", "json", "affinity", "--taint",
                   "gpu-1:nvidia.com/gpu=false:NoSchedule")
    assert made.returncode in (0, 4), made.stderr
    plan = tmp / "plan.json"
    plan.write_text(made.stdout)
    _put_taints(srv, "gpu-1", now_taints)
    before = _writes(srv)
    res = run_cli("--kubeconfig", kc, "-o", "json", "apply", str(plan), "--yes")
    result = json.loads(res.stdout)["results"][0]
    assert result["outcome"] == outcome, result
    assert (srv.state.get("nodes", "gpu-1")["spec"].get("taints") or []) == after
    if outcome == "failed":
        assert res.returncode == 1
        assert result["outcomeReason"] == (
            "taint nvidia.com/gpu:NoSchedule changed since the plan was made (planned value 'true', now %s): make a "
            "new plan" % ("value 'maybe'" if now_taints else "no such taint"))
        assert _writes(srv)[len(before):] == []                   # nothing written
    # a plan made before taint actions carried `previous` replaces whatever is there, as it did
    if outcome != "already done":
        doc = json.loads(made.stdout)
        for a in doc["actions"]:
            a.pop("previous", None)
        plan.write_text(json.dumps(doc))
        _put_taints(srv, "gpu-1", now_taints)
        res = run_cli("--kubeconfig", kc, "-o", "json", "apply", str(plan), "--yes")
        assert json.loads(res.stdout)["results"][0]["outcome"] == "done", res.stdout
        assert [t for t in srv.state.get("nodes", "gpu-1")["spec"]["taints"] if t["key"] == "nvidia.com/gpu"] == [
            {"key": "nvidia.com/gpu", "value": "false", "effect": "NoSchedule"}]


def test_taint_on_a_replaced_node_is_refused(live) -> None:
    srv, kc, tmp = live
    made = run_cli("--kubeconfig", kc, "--now", NOW, "-o", "json", "affinity", "--taint", "worker-a2:k=v:NoSchedule")
    plan = tmp / "plan.json"
    plan.write_text(made.stdout)
    node = srv.state.get("nodes", "worker-a2")
    node["metadata"]["uid"] = "a-new-node"
    node.setdefault("kind", "Node")
    srv.state.put(node)
    res = run_cli("--kubeconfig", kc, "-o", "json", "apply", str(plan), "--yes")
    [result] = json.loads(res.stdout)["results"]
    assert result["outcome"] == "failed"
    assert result["outcomeReason"] == ("the node was replaced since the plan was made (planned uid "
                                       "7c92eaba-93e2-5c5e-aac2-09158d9620f0, now a-new-node)")
    assert not srv.state.get("nodes", "worker-a2")["spec"].get("taints")


def test_out_of_service_taint_only_on_a_node_that_is_down(live) -> None:
    srv, kc, _ = live
    res = run_cli("--kubeconfig", kc, "--now", NOW, "shutdown", "worker-a1", "--non-graceful", "--apply", "--yes")
    assert res.returncode == 1
    assert "node worker-a1 is Ready=True" in res.stderr and "power it off first" in res.stderr
    assert _writes(srv) == []
    res = run_cli("--kubeconfig", kc, "--now", NOW, "shutdown", "worker-c2", "--non-graceful", "--apply", "--yes")
    assert res.returncode == 0, res.stderr
    assert _writes(srv) == [("PATCH", "/api/v1/nodes/worker-c2")]   # the taint; pod GC does the rest
    assert any(t["key"] == "node.kubernetes.io/out-of-service" for t in srv.state.get("nodes", "worker-c2")["spec"]["taints"])


# --- defaults follow the cluster's version ---------------------------------------------------------------

@pytest.mark.parametrize("capture, node, grace, version", [
    ("openshift-4.7", "worker-0.imeixner20210707.lab.upshift.rdu2.redhat.com", "40s", "v1.20.0+2817867"),
    ("kind-1.33", "troubleshoot-test-worker", "50s", "v1.33.1"),
])
def test_monitor_grace_default_from_a_real_capture(capture: str, node: str, grace: str, version: str) -> None:
    res = run_cli("-f", str(REPO / "tests" / "data" / "real" / capture), "-o", "json", "controller", "--fail", node)
    assert res.returncode in (0, 4), res.stderr
    doc = json.loads(res.stdout)
    assert doc["assumedVersion"]["version"] == version
    assert doc["assumedVersion"]["source"].startswith("kubeletVersion of node ")
    assert any(n.startswith("node-monitor-grace-period %s (default for %s)" % (grace, version)) for n in doc["notes"])
    noexec = [a for a in doc["actions"] if a["type"] == "taint" and a["effect"] == "NoExecute"]
    # tainted one --node-monitor-period after the grace period runs out
    assert noexec and noexec[0]["at"] == int(grace[:-1]) + 5


def test_readme_lists_every_code() -> None:
    from kubectl_evict.plan import CODES
    readme = (REPO / "README.md").read_text()
    for code, meaning in CODES.items():
        assert "| `%s` | %s |" % (code, meaning) in readme, code
