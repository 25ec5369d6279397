"""`apply` against the test API server: what ends up in the cluster, refusals, confirmation.

Every test runs the real CLI in a subprocess against `tests/apiserver.py` and then asserts on the
server's state: what the plan names is done, nothing else is touched, and a stale plan, a plan
for another cluster or an unconfirmed run changes nothing. Expected behaviour follows upstream:
an Eviction is refused with 429 while the PDB allows no disruption, DELETE and Eviction honour
`preconditions.uid` (409 "Precondition failed" for a replacement), `dryRun=All` persists nothing.
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from apiserver import ApiServer  # noqa: E402
from conftest import NOW, REPO, node, pod, run_cli  # noqa: E402

# --------------------------------------------------------------------------------------------
# a small cluster and plans for it (shared with test_apply_faults.py)
# --------------------------------------------------------------------------------------------


def pdb(name: str, labels: dict, allowed: int, healthy: int = 2, desired: int = 1) -> dict:
    return {"kind": "PodDisruptionBudget", "apiVersion": "policy/v1",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": {"matchLabels": labels}, "minAvailable": desired},
            "status": {"disruptionsAllowed": allowed, "currentHealthy": healthy, "desiredHealthy": desired,
                       "expectedPods": healthy}}


def cluster() -> List[dict]:
    return [
        node("n1", taints=[{"key": "keep", "value": "1", "effect": "NoSchedule"}]),
        node("n2", taints=[{"key": "old", "value": "x", "effect": "NoExecute"},
                           {"key": "keep", "value": "2", "effect": "NoSchedule"}]),
        node("n3"),
        pod("web-1", "n1", labels={"app": "web"}), pod("web-2", "n1", labels={"app": "web"}),
        pod("web-3", "n2", labels={"app": "web"}),
        pod("solo", "n1", owner=None), pod("db-0", "n1", labels={"app": "db"}),
        pod("batch-1", "n1"), pod("other", "n2"), pod("quiet", "n3"),
        pdb("web", {"app": "web"}, allowed=2, healthy=3),
        pdb("db", {"app": "db"}, allowed=0, healthy=1, desired=1),
    ]


def uid(name: str, ns: str = "default") -> str:
    return "uid-%s-%s" % (ns, name)


def cordon(n: str, at: float = 0) -> dict:
    return {"type": "cordon", "node": n, "at": at, "by": "user", "rule": "drain", "reason": "test"}


def taint(n: str, key: str, value: str, effect: str, at: float = 0, remove: bool = False) -> dict:
    d: Dict[str, Any] = {"type": "untaint" if remove else "taint", "node": n, "key": key}
    if value or not remove:
        d["value"] = value
    d.update(effect=effect, at=at, by="user", rule="controller", reason="test")
    return d


def podact(typ: str, name: str, n: str, at: float = 0, grace: Optional[int] = None, force: bool = False,
           ns: str = "default", by: str = "user") -> dict:
    d: Dict[str, Any] = {"type": typ, "namespace": ns, "pod": name, "uid": uid(name, ns), "node": n, "at": at,
                         "gracePeriodSeconds": grace}
    if typ == "evict":
        d["target"] = None
    if typ == "delete":
        d["force"] = force
    d.update(by=by, rule="drain", reason="test")
    return d


def detach(va: str, n: str) -> dict:
    return {"type": "detach", "volumeAttachment": va, "node": n, "at": 0, "by": "attach-detach-controller",
            "rule": "shutdown", "reason": "test"}


def plan_doc(actions: List[dict], server: Optional[str], context: str = "test") -> dict:
    doc: Dict[str, Any] = {"apiVersion": "evictplan/v1alpha1", "kind": "EvictionPlan", "command": "drain",
                           "now": NOW, "actions": actions, "blocked": [], "skipped": [], "warnings": []}
    if server is not None:
        doc["cluster"] = {"context": context, "server": server}
    return doc


FULL_PLAN = [
    cordon("n1"),
    taint("n1", "maint", "true", "NoSchedule"),
    podact("evict", "web-1", "n1"),
    podact("evict", "solo", "n1", grace=5),
    podact("kill", "web-2", "n1", grace=10),
    podact("delete", "batch-1", "n1", grace=0, force=True),
    taint("n2", "old", "", "NoExecute", remove=True),
    detach("csi-abc", "n1"),
]
NAMED_PODS = {"default/web-1", "default/solo", "default/web-2", "default/batch-1"}


class Env:
    """A running test server, its kubeconfig and helpers to write plans and run the CLI."""

    def __init__(self, srv: ApiServer, tmp: Path, token: Optional[str] = None) -> None:
        self.srv, self.tmp = srv, tmp
        self.kubeconfig = str(srv.write_kubeconfig(tmp / "kubeconfig", token=token))

    def plan(self, actions: List[dict], name: str = "plan.json", server: Any = "self", fmt: str = "json") -> str:
        doc = plan_doc(actions, self.srv.url if server == "self" else server)
        p = self.tmp / name
        if fmt == "yaml":
            import yaml
            p.write_text(yaml.safe_dump(doc, sort_keys=False))
        else:
            p.write_text(json.dumps(doc, indent=2))
        return str(p)

    def args(self, *args: str) -> List[str]:
        return ["--kubeconfig", self.kubeconfig, *args]

    def apply(self, plan: str, *args: str) -> subprocess.CompletedProcess:
        return run_cli(*self.args("apply", plan, "--yes", *args))

    def popen(self, *args: str) -> subprocess.Popen:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(REPO)
        env.pop("EVICTPLAN_DEBUG", None)
        return subprocess.Popen([sys.executable, "-m", "kubectl_evict", *self.args(*args)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, cwd=str(REPO), env=env)

    def writes(self) -> List[Tuple[str, str]]:
        return [(m, p) for m, p in self.srv.requests if m != "GET"]

    def pods(self) -> Dict[str, dict]:
        return {"%s/%s" % (p["metadata"]["namespace"], p["metadata"]["name"]): p
                for p in self.srv.state.list("pods")}

    def state(self) -> Dict[str, Any]:
        return {kind: {json.dumps(o["metadata"].get("namespace", "")) + o["metadata"]["name"]: o
                       for o in self.srv.state.list(kind)}
                for kind in ("nodes", "pods", "poddisruptionbudgets")}

    def wait_for_request(self, method: str, fragment: str, timeout: float = 10.0) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(m == method and fragment in p for m, p in self.srv.requests):
                return
            time.sleep(0.02)
        raise AssertionError("no %s %s request seen: %s" % (method, fragment, self.srv.requests))


def report(res: subprocess.CompletedProcess) -> Dict[str, Any]:
    doc = json.loads(res.stdout)
    assert doc["kind"] == "ApplyReport", doc
    return doc


def outcomes(doc: Dict[str, Any]) -> List[str]:
    return [r["outcome"] for r in doc["results"]]


@pytest.fixture
def env(tmp_path):
    with ApiServer(cluster()) as srv:
        yield Env(srv, tmp_path)


# --------------------------------------------------------------------------------------------
# doing it
# --------------------------------------------------------------------------------------------

def test_full_plan_is_carried_out_and_nothing_else_is_touched(env):
    before = env.state()
    res = env.apply(env.plan(FULL_PLAN), "-o", "json")
    assert res.returncode == 0, res.stderr
    doc = report(res)
    assert outcomes(doc) == ["done"] * 7 + ["cluster's job"]
    assert doc["summary"]["done"] == 7 and doc["summary"]["failed"] == 0 and doc["dryRun"] is False
    n1 = env.srv.state.get("nodes", "n1")
    assert n1["spec"]["unschedulable"] is True
    assert [(t["key"], t.get("value"), t["effect"]) for t in n1["spec"]["taints"]] == \
        [("keep", "1", "NoSchedule"), ("maint", "true", "NoSchedule")]
    # untaint removed exactly that taint, the node's other taint stays
    assert env.srv.state.get("nodes", "n2")["spec"]["taints"] == [{"key": "keep", "value": "2", "effect": "NoSchedule"}]
    pods = env.pods()
    assert not NAMED_PODS & set(pods)
    for key, obj in before["pods"].items():
        name = "%s/%s" % (obj["metadata"]["namespace"], obj["metadata"]["name"])
        if name not in NAMED_PODS:
            assert pods[name] == obj  # same resourceVersion: untouched
    assert env.srv.state.get("nodes", "n3") == before["nodes"]['""n3']
    # the eviction went through the Eviction API (PDB budget spent once), the others as DELETEs
    assert env.srv.state.get("pdb", "web")["status"]["disruptionsAllowed"] == 1
    assert sorted(env.writes()) == sorted([
        ("PATCH", "/api/v1/nodes/n1"), ("PATCH", "/api/v1/nodes/n1"),
        ("POST", "/api/v1/namespaces/default/pods/web-1/eviction"),
        ("POST", "/api/v1/namespaces/default/pods/solo/eviction"),
        ("DELETE", "/api/v1/namespaces/default/pods/web-2"),
        ("DELETE", "/api/v1/namespaces/default/pods/batch-1"),
        ("PATCH", "/api/v1/nodes/n2")])
    assert "apply: [3/8] evict pod default/web-1 on n1: done" in res.stderr


def test_second_run_repeats_nothing_with_or_without_the_journal(env):
    plan = env.plan(FULL_PLAN)
    assert env.apply(plan).returncode == 0
    env.srv.clear_requests()
    res = env.apply(plan, "-o", "json")
    assert res.returncode == 0, res.stderr
    assert outcomes(report(res)) == ["already done"] * 7 + ["cluster's job"]
    assert env.srv.requests == []  # the journal knew: not even a read
    # without the journal, the cluster's state says the same; nodes are only read, pods 404
    os.remove(plan + ".applied")
    env.srv.clear_requests()
    res = env.apply(plan, "-o", "json")
    assert res.returncode == 0, res.stderr
    doc = report(res)
    assert outcomes(doc) == ["already done"] * 7 + ["cluster's job"]
    reasons = [r.get("outcomeReason") for r in doc["results"]]
    assert reasons[0] == "the node is already cordoned" and reasons[2] == "the pod no longer exists"
    assert all(m != "PATCH" for m, _ in env.writes())


def test_server_dry_run_changes_nothing(env):
    before = env.state()
    res = env.apply(env.plan(FULL_PLAN), "--dry-run=server", "-o", "json")
    assert res.returncode == 0, res.stderr
    doc = report(res)
    assert doc["dryRun"] is True and outcomes(doc)[:7] == ["done"] * 7
    assert env.state() == before
    writes = env.writes()
    assert len(writes) == 7 and all("dryRun=All" in p for _, p in writes)
    assert not os.path.exists(env.tmp / "plan.json.applied")


def test_yaml_plan_and_table_report(env):
    res = env.apply(env.plan(FULL_PLAN[:3], name="plan.yaml", fmt="yaml"))
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].split() == ["#", "ACTION", "NODE", "OBJECT", "RESULT", "DETAIL"]
    assert lines[-1] == "Applied to test: 3 done, 0 failed"
    assert env.srv.state.get("pods", "web-1") is None


def test_pdb_blocked_eviction_is_reported_blocked_exit_3(env):
    res = env.apply(env.plan([cordon("n1"), podact("evict", "db-0", "n1")]), "--timeout", "1s", "-o", "json")
    assert res.returncode == 3, res.stderr
    r = report(res)["results"][1]
    assert r["outcome"] == "blocked" and r["httpStatus"] == 429
    assert "violate the pod's disruption budget" in r["message"] and "needs 1 healthy pods" in r["message"]
    assert r["attempts"] >= 2
    assert env.srv.state.get("pods", "db-0") is not None


# --------------------------------------------------------------------------------------------
# refusing: nothing done
# --------------------------------------------------------------------------------------------

def _replace_pod(env, name, node_name="n1", new_uid="uid-new"):
    obj = env.srv.state.get("pods", name)
    obj["metadata"]["uid"] = new_uid
    obj["spec"]["nodeName"] = node_name
    env.srv.state.put(obj)


@pytest.mark.parametrize("change,expect", [
    (lambda e: _replace_pod(e, "web-1"), "pod default/web-1 was replaced since the plan was made "
                                         "(planned uid uid-default-web-1, now uid-new)"),
    (lambda e: _replace_pod(e, "web-1", node_name="n3", new_uid=uid("web-1")), "pod default/web-1 is now on n3, "
                                                                                 "not on n1 as planned"),
    (lambda e: e.srv.state.delete("nodes", "n2"), "node n2 no longer exists"),
], ids=["pod-replaced", "pod-moved", "node-gone"])
def test_stale_plan_is_refused_with_nothing_done(env, change, expect):
    plan = env.plan(FULL_PLAN)
    change(env)
    before = env.state()
    res = env.apply(plan)
    assert res.returncode == 1
    assert res.stderr.startswith("error: the plan is stale, nothing was done: ") and expect in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    assert env.writes() == [] and env.state() == before


@pytest.mark.parametrize("bad", [
    taint("n2", "bad key!", "v", "NoSchedule"),
    taint("n2", "maint", "not a value", "NoSchedule"),
    {"type": "label", "node": "n2", "key": "pool", "value": "x" * 64, "by": "user", "at": 0},
    {"type": "unlabel", "node": "n2", "key": "a/b/c", "by": "user", "at": 0},
], ids=["taint-key", "taint-value", "label-value", "unlabel-key"])
def test_plan_with_a_key_the_api_server_rejects_sends_nothing(env, bad):
    """A hand-edited plan whose later action the API server would refuse (422) must not be
    half-applied: one `error:` line naming the field, no request written, the cluster unchanged."""
    plan = env.plan([cordon("n1"), podact("evict", "web-1", "n1"), bad])
    before = env.state()
    res = env.apply(plan)
    assert res.returncode == 1
    assert res.stderr.startswith("error: %s: actions[2]." % plan) and len(res.stderr.strip().splitlines()) == 1
    assert env.writes() == [] and env.state() == before


ENTRY = {"namespace": "default", "pod": "quiet", "node": "n3", "reason": "test"}


@pytest.mark.parametrize("key,code,expected", [
    (None, "", 0),
    ("shortfall", "no-node-fits", 0),     # it finishes; the replacement's lack of room is the plan's news
    ("incomplete", "", 0),
    ("blocked", "pdb-budget", 3),         # the plan said the operation does not finish
], ids=["clean", "shortfall", "incomplete", "blocked"])
def test_exit_code_of_applying_follows_the_one_rule(env, key, code, expected):
    """README 'What it does': apply's codes are 1 failed, 130 interrupted, else 3 when the plan has
    blocked pods or an action was blocked/skipped/not run, else 0. `apply --help` says the same."""
    doc = plan_doc([cordon("n1")], env.srv.url)
    if key == "incomplete":
        doc["incomplete"] = [{"kind": "PodDisruptionBudget", "effect": "budgets not checked"}]
    elif key:
        doc[key] = [dict(ENTRY, code=code)]
    plan = env.tmp / "plan.json"
    plan.write_text(json.dumps(doc))
    res = env.apply(str(plan))
    assert res.returncode == expected, res.stderr
    assert env.srv.state.get("nodes", "n1")["spec"]["unschedulable"] is True
    helptext = " ".join(run_cli("apply", "--help").stdout.split())
    assert "else 4" not in helptext and "else 3 when the plan is BLOCKED" in helptext


def test_force_stale_skips_the_replaced_pod_and_does_the_rest(env):
    plan = env.plan(FULL_PLAN)
    _replace_pod(env, "web-1")
    res = env.apply(plan, "--force-stale", "-o", "json")
    assert res.returncode == 3, res.stderr
    doc = report(res)
    assert outcomes(doc)[2] == "skipped" and "was replaced" in doc["results"][2]["outcomeReason"]
    assert outcomes(doc)[:2] + outcomes(doc)[3:7] == ["done"] * 6
    assert env.srv.state.get("pods", "web-1")["metadata"]["uid"] == "uid-new"   # the replacement lives
    assert not any("web-1" in p for _, p in env.writes())


def test_plan_from_another_cluster_is_refused(env):
    server = "https://prod.example.com:6443"
    before = env.state()
    res = env.apply(env.plan(FULL_PLAN, server=server))
    assert res.returncode == 1
    assert res.stderr.startswith("error: the plan is stale, nothing was done: the plan came from another cluster: "
                                 "it was made for server %s (context test), the current context test uses server %s (make a new plan)"
                                 % (server, env.srv.url))
    assert env.writes() == [] and env.state() == before


def test_plan_without_cluster_record_is_applied_with_a_note(env):
    res = env.apply(env.plan([cordon("n1")], server=None))
    assert res.returncode == 0, res.stderr
    assert "does not record which cluster it was made for" in res.stderr


def test_refuses_without_terminal_or_yes(env):
    res = run_cli(*env.args("apply", env.plan(FULL_PLAN)), input="y\n")
    assert res.returncode == 1
    assert res.stderr.strip() == ("error: refusing to apply 7 actions to cluster test without confirmation: "
                                  "stdin is not a terminal (use --yes)")
    assert env.writes() == []


@pytest.mark.parametrize("answer,code,done", [("y\n", 0, True), ("\n", 1, False)])
def test_confirmation_on_a_terminal(env, answer, code, done):
    plan = env.plan(FULL_PLAN[:3])
    master, slave = pty.openpty()
    envv = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "kubectl_evict", *env.args("apply", plan)], stdin=slave,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(REPO), env=envv)
    os.close(slave)
    seen = b""
    try:
        end = time.monotonic() + 30
        while b"[y/N]" not in seen and time.monotonic() < end:  # the prompt, then the answer
            ready, _, _ = select.select([proc.stderr], [], [], 1.0)
            if ready:
                chunk = os.read(proc.stderr.fileno(), 4096)
                if not chunk:
                    break
                seen += chunk
        assert env.writes() == []  # nothing before the answer
        os.write(master, answer.encode())
        out_b, err_b = proc.communicate(timeout=30)
    finally:
        os.close(master)
    err = (seen + err_b).decode()
    assert proc.returncode == code, err
    assert "Apply 3 actions to cluster test? [y/N]" in err
    assert "Cluster: context test, server %s" % env.srv.url in err
    assert (env.srv.state.get("pods", "web-1") is None) == done
    if not done:
        assert err.rstrip().endswith("error: not confirmed: nothing was done") and env.writes() == []


# --------------------------------------------------------------------------------------------
# credentials, permissions, --apply on a planning command
# --------------------------------------------------------------------------------------------

def test_forbidden_is_a_failure_and_tokens_never_appear(tmp_path):
    token = "s3cr3t-t0ken-value"
    with ApiServer(cluster(), tokens={token: "readonly"}) as srv:
        e = Env(srv, tmp_path, token=token)
        res = e.apply(e.plan(FULL_PLAN[:3]), "-o", "yaml")
        assert res.returncode == 1
        assert token not in res.stdout and token not in res.stderr
        import yaml
        doc = yaml.safe_load(res.stdout)
        first = doc["results"][0]
        assert first["outcome"] == "failed" and first["httpStatus"] == 403
        assert 'cannot patch resource "nodes"' in first["message"]
        assert srv.state.get("pods", "web-1") is not None


def test_apply_flag_on_drain_plans_then_executes(env):
    res = run_cli(*env.args("-o", "json", "drain", "n1", "--ignore-daemonsets", "--force", "--apply", "--yes",
                            "--timeout", "1s"))
    decoder = json.JSONDecoder()
    plan, end = decoder.raw_decode(res.stdout)
    rep, _ = decoder.raw_decode(res.stdout[end:].lstrip())
    assert plan["kind"] == "EvictionPlan" and rep["kind"] == "ApplyReport"
    assert plan["cluster"]["server"] == env.srv.url
    assert [a["type"] for a in rep["results"]] == [a["type"] for a in plan["actions"]]
    by_pod = {r.get("pod"): r["outcome"] for r in rep["results"]}
    assert by_pod[None] == "done" and by_pod["web-1"] == by_pod["solo"] == "done"
    # db's PDB allows no disruption: the plan says blocked, apply does not touch it, exit 3
    assert "db-0" not in by_pod and [b["pod"] for b in plan["blocked"]] == ["db-0"]
    assert rep["summary"]["failed"] == 0
    assert res.returncode == 3, res.stderr
    assert env.srv.state.get("nodes", "n1")["spec"]["unschedulable"] is True
    assert env.srv.state.get("pods", "db-0") is not None and env.srv.state.get("pods", "other") is not None


def test_drain_plan_file_round_trip(env):
    res = run_cli(*env.args("-o", "yaml", "drain", "n1", "--ignore-daemonsets", "--force", "--pod-selector",
                            "app=web"))
    assert res.returncode == 0, res.stderr
    plan = env.tmp / "drain.yaml"
    plan.write_text(res.stdout)
    out = env.apply(str(plan), "--timeout", "1s", "-o", "json")
    assert out.returncode == 0, out.stderr
    assert outcomes(report(out)) == ["done", "done", "done"]
    assert env.srv.state.get("pods", "web-1") is None and env.srv.state.get("pods", "web-2") is None
    assert env.srv.state.get("pods", "web-3") is not None and env.srv.state.get("pods", "solo") is not None


def test_apply_of_a_blocked_plan_exits_3_like_drain_apply(env):
    """One rule (README "Exit codes"): applying a BLOCKED plan does what it can, reports no failure,
    and still exits 3, whether through `apply PLAN_FILE` or `drain --apply`."""
    res = run_cli(*env.args("-o", "json", "drain", "n1", "--ignore-daemonsets", "--force"))
    assert res.returncode == 3, res.stderr
    plan_file = env.tmp / "blocked.json"
    plan_file.write_text(res.stdout)
    assert [b["pod"] for b in json.loads(res.stdout)["blocked"]] == ["db-0"]
    applied = env.apply(str(plan_file), "-o", "json", "--timeout", "1s")
    rep = report(applied)
    assert rep["summary"]["failed"] == 0 and rep["summary"]["done"] >= 1
    assert applied.returncode == 3, applied.stderr
    assert env.srv.state.get("nodes", "n1")["spec"]["unschedulable"] is True
