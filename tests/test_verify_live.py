"""`verify` against the test API server: plan for real, carry it out (the real `apply`, or the
after-state built the way the controllers leave it), then ask whether it went as planned.

Expected behaviour follows upstream: the ReplicaSet controller replaces a pod with a new pod
named `RS-xxxxx` once the old one is marked for deletion; a StatefulSet recreates the same name
with a new uid; the scheduler reports `Scheduled` / `FailedScheduling` Events on the pod; the node
lifecycle controller adds `node.kubernetes.io/unreachable:NoExecute` with `timeAdded`, and the
taint-eviction controller deletes pods whose tolerationSeconds ran out, recording
`TaintManagerEviction` ("Marking for deletion Pod NS/NAME", no uid in its reference).
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from apiserver import ApiServer  # noqa: E402
from conftest import node, pod, run_cli  # noqa: E402

from kubectl_evict.timeutil import format_time, parse_time  # noqa: E402

HASH = "7d9f8c6b5"


def owner(kind: str, name: str, *, ns: str = "default", replicas: int = 2, owned_by: Optional[tuple] = None,
          api: str = "apps/v1", labels: Optional[dict] = None) -> dict:
    md: Dict[str, Any] = {"name": name, "namespace": ns, "uid": "uid-%s-%s" % (kind.lower(), name)}
    if owned_by:
        md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owned_by[0], "name": owned_by[1],
                                  "uid": "uid-%s-%s" % (owned_by[0].lower(), owned_by[1]), "controller": True}]
    return {"apiVersion": api, "kind": kind, "metadata": md,
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels or {"app": name}}},
            "status": {"replicas": replicas, "readyReplicas": replicas}}


def owned(name: str, node_name: str, kind: str, owner_name: str, *, uid: Optional[str] = None,
          created: Optional[float] = None, labels: Optional[dict] = None, ready: bool = True) -> dict:
    p = pod(name, node_name, owner=None, labels=labels or {"app": owner_name.split("-")[0]}, ready=ready)
    p["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": kind, "name": owner_name,
                                         "uid": "uid-%s-%s" % (kind.lower(), owner_name), "controller": True}]
    if uid:
        p["metadata"]["uid"] = uid
    if created is not None:
        p["metadata"]["creationTimestamp"] = format_time(created)
    if not node_name:
        del p["spec"]["nodeName"]
        p["status"] = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                           "reason": "Unschedulable"}]}
    return p


def event(ns: str, kind: str, name: str, reason: str, note: str, t: float, *, uid: str = "", by: str = "",
          typ: str = "Normal") -> dict:
    reg = {"kind": kind, "name": name, "apiVersion": "v1"}
    if ns and kind != "Node":
        reg["namespace"] = ns
    if uid:
        reg["uid"] = uid
    stamp = format_time(t)
    return {"kind": "Event", "apiVersion": "events.k8s.io/v1",
            "metadata": {"name": "%s.%s.%d" % (name, reason.lower(), int(t * 1000)), "namespace": ns or "default",
                         "creationTimestamp": stamp},
            "eventTime": stamp.replace("Z", ".000000Z") if "." not in stamp else stamp,
            "reportingController": by, "reportingInstance": by + "-test", "action": reason, "reason": reason,
            "regarding": reg, "note": note, "type": typ}


def pdb(name: str, labels: dict, allowed: int, healthy: int, desired: int) -> dict:
    return {"kind": "PodDisruptionBudget", "apiVersion": "policy/v1",
            "metadata": {"name": name, "namespace": "default", "uid": "uid-pdb-" + name},
            "spec": {"selector": {"matchLabels": labels}, "minAvailable": desired},
            "status": {"disruptionsAllowed": allowed, "currentHealthy": healthy, "desiredHealthy": desired,
                       "expectedPods": healthy, "observedGeneration": 1}}


RS = "web-" + HASH


def cluster(db_budget: int = 1) -> List[dict]:
    """n1 is drained. web (Deployment, 2 replicas) and db (StatefulSet) run there. n4 is tainted
    for a team when the plan is made, so no replacement is planned there."""
    nodes = [node("n1"), node("n2", cpu="8"), node("n3", cpu="2"),
             node("n4", cpu="16", taints=[{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}])]
    for n in nodes:   # kubelets that post now: healthy nodes whatever the clock says
        n["status"]["conditions"][0]["lastHeartbeatTime"] = format_time(int(time.time()))
    return nodes + [
        owner("Deployment", "web"), owner("ReplicaSet", RS, owned_by=("Deployment", "web"), labels={"app": "web"}),
        owner("StatefulSet", "db", replicas=1),
        owned(RS + "-aaaaa", "n1", "ReplicaSet", RS, labels={"app": "web"}),
        owned(RS + "-bbbbb", "n2", "ReplicaSet", RS, labels={"app": "web"}),
        owned("db-0", "n1", "StatefulSet", "db", labels={"app": "db"}),
        pdb("db", {"app": "db"}, allowed=db_budget, healthy=1, desired=0 if db_budget else 1),
    ]


class Env:
    def __init__(self, srv: ApiServer, tmp: Path) -> None:
        self.srv, self.tmp = srv, tmp
        self.kubeconfig = str(srv.write_kubeconfig(tmp / "kubeconfig"))

    def cli(self, *args: str):
        return run_cli("--kubeconfig", self.kubeconfig, *args)

    def plan(self, *args: str) -> Dict[str, Any]:
        res = self.cli("-o", "json", *args)
        assert res.returncode in (0, 3, 4), res.stderr
        (self.tmp / "plan.json").write_text(res.stdout)
        return json.loads(res.stdout)

    def verify(self, *args: str, fmt: str = "json"):
        return self.cli("verify", str(self.tmp / "plan.json"), "-o", fmt, *args)

    def put(self, *objs: dict) -> None:
        for o in objs:
            self.srv.state.put(o)


def entries(doc: Dict[str, Any], status: Optional[str] = None) -> List[Dict[str, Any]]:
    return [e for e in doc["entries"] if status is None or e["status"] == status]


def evict_of(plan: Dict[str, Any], name: str) -> Dict[str, Any]:
    return next(a for a in plan["actions"] if a["type"] == "evict" and a["pod"] == name)


@pytest.fixture
def env(tmp_path):
    with ApiServer(cluster()) as srv:
        yield Env(srv, tmp_path)


def carry_out(env: Env, plan: Dict[str, Any], web_node: Optional[str] = None, db_node: Optional[str] = None,
              web_pending: str = "") -> float:
    """Apply the plan for real, then do what the controllers and the scheduler would: a new web pod
    from the ReplicaSet, db-0 again with a new uid, each with its Scheduled (or FailedScheduling) Event."""
    res = env.cli("apply", str(env.tmp / "plan.json"), "--yes")
    assert res.returncode == 0, res.stdout + res.stderr
    t = time.time()
    web_to = web_node or evict_of(plan, RS + "-aaaaa")["target"]
    db_to = db_node or evict_of(plan, "db-0")["target"]
    if web_pending:
        new_web = owned(RS + "-ccccc", "", "ReplicaSet", RS, uid="uid-web-new", created=t, labels={"app": "web"})
        env.put(new_web, event("default", "Pod", RS + "-ccccc", "FailedScheduling", web_pending, t + 1,
                               uid="uid-web-new", by="default-scheduler", typ="Warning"))
    else:
        env.put(owned(RS + "-ccccc", web_to, "ReplicaSet", RS, uid="uid-web-new", created=t, labels={"app": "web"}),
                event("default", "Pod", RS + "-ccccc", "Scheduled",
                      "Successfully assigned default/%s-ccccc to %s" % (RS, web_to), t + 1, uid="uid-web-new",
                      by="default-scheduler"))
    env.put(owned("db-0", db_to, "StatefulSet", "db", uid="uid-db-new", created=t + 2, labels={"app": "db"}),
            event("default", "Pod", "db-0", "Scheduled", "Successfully assigned default/db-0 to %s" % db_to, t + 3,
                  uid="uid-db-new", by="default-scheduler"))
    return t


def test_a_drain_carried_out_as_planned(env):
    plan = env.plan("drain", "n1")
    assert {a["pod"] for a in plan["actions"] if a["type"] == "evict"} == {RS + "-aaaaa", "db-0"}
    assert evict_of(plan, "db-0")["owner"] == {"kind": "StatefulSet", "name": "db", "uid": "uid-statefulset-db"}
    carry_out(env, plan)
    res = env.verify()
    assert res.returncode == 0, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    assert doc["apiVersion"] == "evictplan/v1alpha1" and doc["kind"] == "PlanVerification"
    n = len(plan["actions"]) + len(plan["blocked"]) + len(plan["shortfall"]) + len(plan["workloads"])
    assert doc["summary"] == {"total": n, "as-planned": n, "differs": 0, "pending": 0, "unknown": 0}
    web = next(e for e in doc["entries"] if e["plan"].get("pod") == RS + "-aaaaa")
    assert web["facts"]["replacement"]["pod"] == RS + "-ccccc"
    assert web["facts"]["replacement"]["node"] == evict_of(plan, RS + "-aaaaa")["target"]
    db = next(e for e in doc["entries"] if e["plan"].get("pod") == "db-0")
    assert db["facts"]["replacement"]["uid"] == "uid-db-new"      # the StatefulSet's same name, new uid
    cordon = next(e for e in doc["entries"] if e["plan"]["type"] == "cordon" if "type" in e["plan"])
    assert cordon["status"] == "as-planned"
    as_yaml = env.verify(fmt="yaml")
    import yaml
    assert yaml.safe_load(as_yaml.stdout) == doc | {"verifiedAt": yaml.safe_load(as_yaml.stdout)["verifiedAt"]}
    table = env.verify(fmt="table")
    assert table.returncode == 0
    assert table.stdout.splitlines()[0] == "as planned: %d of %d" % (n, n)     # the verdict first


def test_a_replacement_on_another_node_differs(env):
    plan = env.plan("drain", "n1")
    web = evict_of(plan, RS + "-aaaaa")
    assert web["target"] != "n4" and "n4" not in web.get("candidates", [])
    node4 = env.srv.state.get("nodes", "n4")
    node4["spec"]["taints"] = []          # the team gave n4 back after the plan was made
    env.put(node4)
    carry_out(env, plan, web_node="n4")
    res = env.verify()
    assert res.returncode == 3, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    [diff] = entries(doc, "differs")
    assert diff["plan"]["pod"] == RS + "-aaaaa"
    assert "n4" in diff["differences"][0] and web["target"] in diff["differences"][0]
    assert any(ev["reason"] == "Scheduled" and "to n4" in ev["text"] for ev in diff["evidence"])
    as_yaml = env.verify(fmt="yaml")
    import yaml
    assert yaml.safe_load(as_yaml.stdout) == doc | {"verifiedAt": yaml.safe_load(as_yaml.stdout)["verifiedAt"]}
    table = env.verify(fmt="table").stdout
    assert "differs: 1" in table and "DIFFERS (1)" in table and "Successfully assigned default/%s-ccccc to n4" % RS \
        in table


def test_a_replacement_still_pending_with_its_failed_scheduling_text(env):
    plan = env.plan("drain", "n1")
    why = "0/4 nodes are available: 1 node(s) were unschedulable, 3 Insufficient memory."
    carry_out(env, plan, web_pending=why)
    res = env.verify()
    assert res.returncode == 3, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    diff = next(e for e in entries(doc, "differs") if e["plan"].get("pod") == RS + "-aaaaa")
    assert why in diff["differences"][0] and "Pending" in diff["differences"][0]
    assert diff["facts"]["replacement"]["pending"] == why
    # the Deployment has 1 ready pod where the plan expected 2: not yet due right after the drain
    # (a replacement gets 30s to start, then 60s of slack), a difference ten minutes later
    wl = next(e for e in doc["entries"] if e["section"] == "workloads" and e["plan"]["name"] == "web")
    assert wl["status"] == "pending" and wl["facts"]["readyNow"] == 1
    later = json.loads(env.verify("--now", format_time(time.time() + 600)).stdout)
    wl = next(e for e in later["entries"] if e["section"] == "workloads" and e["plan"]["name"] == "web")
    assert wl["status"] == "differs" and wl["differences"] == ["1 ready now, 2 planned"]
    md = env.verify(fmt="markdown").stdout
    assert md.startswith("### evictplan verify: differs") and why in md


def test_a_blocked_pod_evicted_later(tmp_path):
    with ApiServer(cluster(db_budget=0)) as srv:
        env = Env(srv, tmp_path)
        plan = env.plan("drain", "n1", "--timeout", "10s")
        assert [(b["pod"], b["code"]) for b in plan["blocked"]] == [("db-0", "pdb-budget")]
        # later the budget allowed it: db-0 went and came back on n2 with a new uid
        t = time.time()
        env.srv.state.delete("pods", "db-0", "default")
        env.put(pdb("db", {"app": "db"}, allowed=1, healthy=1, desired=0),
                owned("db-0", "n2", "StatefulSet", "db", uid="uid-db-new", created=t + 5, labels={"app": "db"}),
                event("default", "Pod", "db-0", "Killing", "Stopping container app", t, uid="uid-default-db-0",
                      by="kubelet"))
        res = env.verify()
        assert res.returncode == 3, res.stdout + res.stderr
        doc = json.loads(res.stdout)
        blocked = next(e for e in doc["entries"] if e["section"] == "blocked")
        assert blocked["status"] == "differs"
        text = " ".join(blocked["differences"])
        assert "removed after all" in text and "PDB default/db now allows 1 disruption" in text
        assert "default/db-0 on n2" in text


def test_a_controller_forecast_after_the_node_really_failed(env):
    plan = env.plan("controller", "--fail", "n1")
    assert plan["forecast"] is True
    taints = [a for a in plan["actions"] if a["type"] == "taint"]
    noexec = next(a for a in taints if a["effect"] == "NoExecute")
    deletes = {a["pod"]: a for a in plan["actions"] if a["type"] == "delete"}
    assert noexec["key"] == "node.kubernetes.io/unreachable" and set(deletes) == {RS + "-aaaaa", "db-0"}
    assert [(e["pod"], e["code"]) for e in plan["shortfall"]] == [("db-0", "waits-for-old-pod")]
    # an hour ago the node really failed (t0): the node lifecycle controller tainted it, the
    # taint-eviction controller deleted its pods when their tolerationSeconds ran out; web came
    # back on the planned node, db-0 stays Terminating on the unreachable node, as forecast
    t0 = float(int(time.time()) - 3600)
    n1 = env.srv.state.get("nodes", "n1")
    n1["spec"]["taints"] = [{"key": a["key"], "effect": a["effect"]} for a in taints if a["effect"] == "NoSchedule"]
    n1["spec"]["taints"].append({"key": noexec["key"], "effect": "NoExecute",
                                 "timeAdded": format_time(t0 + noexec["at"] + 1)})
    n1["status"]["conditions"] = [{"type": "Ready", "status": "Unknown", "reason": "NodeStatusUnknown",
                                   "lastHeartbeatTime": format_time(t0), "lastTransitionTime": format_time(t0 + 50)}]
    env.put(n1)
    for name, a in deletes.items():
        env.put(event("default", "Pod", name, "TaintManagerEviction", "Marking for deletion Pod default/" + name,
                      t0 + a["at"] + 1, by="taint-eviction-controller"))
    env.srv.state.delete("pods", RS + "-aaaaa", "default")
    db = env.srv.state.get("pods", "db-0", "default")
    db["metadata"]["deletionTimestamp"] = format_time(t0 + deletes["db-0"]["at"] + 31)
    env.put(db, owned(RS + "-ccccc", deletes[RS + "-aaaaa"]["target"], "ReplicaSet", RS, uid="uid-web-new",
                      created=t0 + deletes[RS + "-aaaaa"]["at"] + 2, labels={"app": "web"}))
    res = env.verify("--since", format_time(t0))
    assert res.returncode == 0, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    pods = [e for e in doc["entries"] if e["section"] == "actions" and e["plan"]["type"] == "delete"]
    assert {e["facts"]["removedBy"] for e in pods} == {"taint-eviction-controller"}
    assert {e["facts"]["state"] for e in pods} == {"gone", "terminating"}
    t_entry = next(e for e in doc["entries"] if e["plan"].get("effect") == "NoExecute")
    assert t_entry["facts"]["timeAdded"] == format_time(t0 + noexec["at"] + 1)
    short = next(e for e in doc["entries"] if e["section"] == "shortfall")
    assert short["status"] == "as-planned"
    # told that the failure began five minutes earlier, the taint and the deletions came late
    late = env.verify("--since", format_time(t0 - 300))
    assert late.returncode == 3
    doc = json.loads(late.stdout)
    t_late = next(e for e in doc["entries"] if e["plan"].get("effect") == "NoExecute")
    assert t_late["status"] == "differs"
    assert t_late["differences"] == ["added later: at +5m56s, planned +55s (5m1s later)"]
    # judged as of two minutes after the failure, the deletions (planned at +5m55s) were not due:
    # seen early is fine, the verdicts do not depend on the clock of the read for what happened
    early = env.verify("--since", format_time(t0), "--now", format_time(t0 + 120))
    assert early.returncode == 0, early.stdout


def test_a_plan_from_another_cluster_is_refused(env):
    plan = env.plan("drain", "n1")
    plan["cluster"]["server"] = "https://prod.example:6443"
    (env.tmp / "plan.json").write_text(json.dumps(plan))
    env.srv.requests.clear()
    res = env.verify()
    assert res.returncode == 1
    assert res.stderr.startswith("error: the plan came from another cluster: it was made for server "
                                 "https://prod.example:6443")
    assert res.stdout == ""
    assert not any("/pods" in p for _m, p in env.srv.requests), env.srv.requests   # refused before reading


@pytest.mark.parametrize("body, problem", [
    ("", "empty file"),
    ("{not json", "invalid JSON"),
    ('{"apiVersion": "evictplan/v1alpha1", "kind": "EvictionPlan", "actions": [], "workloads": [{"kind": 3}]}',
     "workloads[0].kind: must be a string"),
    ('{"apiVersion": "v1", "kind": "List", "items": []}', "not an EvictionPlan"),
    ('{"apiVersion": "evictplan/v1alpha1", "kind": "EvictionPlan", "actions": [], "newNodes": [{"node": 3}]}',
     "newNodes: must be a list of {node, batch, joins} entries"),
    ('{"apiVersion": "evictplan/v1alpha1", "kind": "EvictionPlan", "command": "drain", "actions": []}',
     "now: required field is missing: verify compares the cluster with the plan as of when it was made"),
])
def test_a_bad_plan_file_is_a_clean_error(env, body, problem):
    p = env.tmp / "bad.json"
    p.write_text(body)
    res = env.cli("verify", str(p))
    assert res.returncode == 1
    assert res.stderr.startswith("error: %s" % p) and problem in res.stderr and "Traceback" not in res.stderr


def test_verify_needs_only_read_access_and_reads_events(tmp_path):
    with ApiServer(cluster(), tokens={"ro": "readonly"}) as srv:
        env = Env(srv, tmp_path)
        env.kubeconfig = str(srv.write_kubeconfig(tmp_path / "kubeconfig", token="ro"))
        env.plan("drain", "n1")
        srv.requests.clear()
        res = env.verify()
        assert res.returncode == 4, res.stdout + res.stderr     # nothing done yet: pending
        assert all(m == "GET" for m, _p in srv.requests)
        assert any(p.startswith("/apis/events.k8s.io/v1/namespaces/default/events") for _m, p in srv.requests)
        doc = json.loads(res.stdout)
        assert doc["summary"]["pending"] > 0 and doc["summary"]["differs"] == 0


def test_events_that_cannot_be_listed_are_a_warning(tmp_path):
    role = lambda verb, res: verb in ("get", "list") and res != "events"  # noqa: E731
    with ApiServer(cluster(), tokens={"t": role}) as srv:
        env = Env(srv, tmp_path)
        env.kubeconfig = str(srv.write_kubeconfig(tmp_path / "kubeconfig", token="t"))
        env.plan("drain", "n1")
        res = env.verify()
        assert res.returncode == 4, res.stderr
        doc = json.loads(res.stdout)
        assert any("403" in w and "events" in w for w in doc["warnings"])


def test_verify_flags_that_do_not_apply(env):
    env.plan("drain", "n1")
    plan = str(env.tmp / "plan.json")
    for args, flag in ((("--yes",), "--yes"), (("--demo",), "--demo"), (("--since", "yesterday"), "--since"),
                       (("--now", "3pm"), "--now")):
        res = env.cli("verify", plan, *args)
        assert res.returncode == 1 and res.stderr.startswith("error: %s" % flag), (args, res.stderr)
    res = env.cli("-o", "timeline", "verify", plan)       # a global -o before the command
    assert res.returncode == 1 and res.stderr.startswith("error: -o: verify prints table, wide, json, yaml or markdown")
    res = env.cli("verify", plan, "-o", "timeline")       # verify's own -o offers no timeline
    assert res.returncode == 2 and "'timeline' is not one of" in res.stderr


def test_verify_through_the_kubectl_binary(env, tmp_path):
    import os
    import shutil
    import subprocess
    kubectl = shutil.which("kubectl")
    assert kubectl, "the kubectl binary must be on PATH"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(Path(sys.executable).parent / "kubectl-evictplan", bin_dir / "kubectl-evictplan")
    plan = env.plan("drain", "n1")
    carry_out(env, plan)
    res = subprocess.run([kubectl, "evictplan", "verify", str(env.tmp / "plan.json"), "--kubeconfig", env.kubeconfig],
                         capture_output=True, text=True, timeout=120,
                         env={"PATH": "%s:%s" % (bin_dir, os.path.dirname(kubectl)), "HOME": str(tmp_path)})
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("as planned: 5 of 5\n")


def test_right_after_planning_a_drain_with_a_shortfall_everything_is_pending(tmp_path):
    # every other node is tainted: web's replacement has nowhere to go, so the plan expects one
    # ready web pod after the drain where two are ready now; nothing has been done yet: exit 4
    objs = cluster()
    for n in objs[1:4]:
        n["spec"]["taints"] = [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]
    with ApiServer(objs) as srv:
        env = Env(srv, tmp_path)
        plan = env.plan("drain", "n1")
        web = next(w for w in plan["workloads"] if w["name"] == "web")
        assert (web["ready"], web["readyAfter"]) == (2, 1)
        res = env.verify()
        assert res.returncode == 4, res.stdout + res.stderr
        doc = json.loads(res.stdout)
        assert doc["summary"]["differs"] == 0
        wl = next(e for e in doc["entries"] if e["section"] == "workloads" and e["plan"]["name"] == "web")
        assert wl["status"] == "pending" and wl["facts"]["readyNow"] == 2


def test_a_non_graceful_shutdown_as_upstream_carries_it_out(tmp_path):
    # KEP-2268: the operator adds the out-of-service taint (apply does); the node lifecycle
    # controller adds unreachable:NoExecute to the Unknown node (semantics.md C4; the real v1.33
    # capture tests/data/real-controller/ng-1.json shows it 1-2 s after out-of-service); the
    # taint-eviction controller marks the pods for deletion (TaintManagerEviction, no uid), pod GC
    # force-deletes them (no Event of its own); web comes back on its planned node, db-0 (same
    # name, new uid) too
    objs = cluster()
    objs[0]["status"]["conditions"][0].update(status="Unknown", reason="NodeStatusUnknown")
    with ApiServer(objs) as srv:
        env = Env(srv, tmp_path)
        plan = env.plan("shutdown", "n1", "--non-graceful")
        deletes = {a["pod"]: a for a in plan["actions"] if a["type"] == "delete"}
        assert {a["by"] for a in deletes.values()} == {"pod-gc"} and set(deletes) == {RS + "-aaaaa", "db-0"}
        res = env.cli("apply", str(env.tmp / "plan.json"), "--yes")
        assert res.returncode == 0, res.stdout + res.stderr
        t = time.time()
        n1 = env.srv.state.get("Node", "n1")
        assert {"node.kubernetes.io/unreachable"} <= {a["key"] for a in plan["actions"]
                                                       if a["type"] == "taint" and a["by"] == "node-lifecycle-controller"}
        n1["spec"]["taints"].append({"key": "node.kubernetes.io/unreachable", "effect": "NoExecute",
                                     "timeAdded": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))})
        env.put(n1)
        for name in deletes:
            env.put(event("default", "Pod", name, "TaintManagerEviction", "Marking for deletion Pod default/" + name,
                          t, by="taint-eviction-controller"))
            env.srv.state.delete("pods", name, "default")
        web_to, db_to = deletes[RS + "-aaaaa"]["target"], deletes["db-0"]["target"]
        env.put(owned(RS + "-ccccc", web_to, "ReplicaSet", RS, uid="uid-web-new", created=t + 1, labels={"app": "web"}),
                owned("db-0", db_to, "StatefulSet", "db", uid="uid-db-new", created=t + 2, labels={"app": "db"}))
        res = env.verify()
        assert res.returncode == 0, res.stdout + res.stderr
        doc = json.loads(res.stdout)
        pods = [e for e in doc["entries"] if e["section"] == "actions" and e["plan"]["type"] == "delete"]
        assert [e["status"] for e in pods] == ["as-planned", "as-planned"]
        assert {e["facts"]["removedBy"] for e in pods} == {"taint-eviction-controller"}


def test_a_one_at_a_time_drain_that_moves_a_pod_twice(env):
    # drain n1 then n2: db-0 (StatefulSet) lands on n2 and is evicted again from there. The plan
    # names the second eviction by the first pod's name with no uid (the replacement did not exist
    # yet): apply refuses it before sending anything; verify reads it and follows the pod to its
    # last node. The StatefulSet recreates db-0 under its name each time; the one on n2 is gone.
    plan = env.plan("drain", "n1", "n2", "--one-at-a-time")
    db = [(a["uid"], a["node"], a["target"]) for a in plan["actions"] if a.get("pod") == "db-0"]
    assert db == [("uid-default-db-0", "n1", "n2"), ("", "n2", "n3")]
    env.srv.requests.clear()
    res = env.cli("apply", str(env.tmp / "plan.json"), "--yes")
    assert res.returncode == 1 and res.stderr.startswith("error: actions[") and "no uid to name it" in res.stderr
    assert env.srv.requests == []
    t = time.time()
    for n in ("n1", "n2"):
        obj = env.srv.state.get("nodes", n)
        obj["spec"]["unschedulable"] = True
        env.put(obj)
    targets = {a["pod"]: a["target"] for a in plan["actions"] if a["type"] == "evict" and a["uid"]}
    for name in (RS + "-aaaaa", RS + "-bbbbb", "db-0"):
        env.srv.state.delete("pods", name, "default")
    env.put(owned(RS + "-ccccc", targets[RS + "-aaaaa"], "ReplicaSet", RS, uid="uid-c", created=t, labels={"app": "web"}),
            owned(RS + "-ddddd", targets[RS + "-bbbbb"], "ReplicaSet", RS, uid="uid-d", created=t + 30,
                  labels={"app": "web"}),
            owned("db-0", "n3", "StatefulSet", "db", uid="uid-db-3", created=t + 32, labels={"app": "db"}),
            event("default", "Pod", "db-0", "Killing", "Stopping container app", t, uid="uid-default-db-0",
                  by="kubelet"))
    res = env.verify("--since", format_time(t))
    assert res.returncode == 0, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    first, again = [e for e in doc["entries"] if e.get("pod") == "db-0"]
    assert first["status"] == again["status"] == "as-planned"
    assert first["observed"].endswith("its replacement is evicted again by %s" % again["ref"])
    assert again["facts"]["replacement"]["uid"] == "uid-db-3"


# What is due is judged by the API server's clock: every kube-apiserver answer carries a `Date`
# header (Go's net/http adds it; RFC 9110 6.6.1: an origin server with a clock sends it), and the
# cluster's times (creationTimestamp, Events, taint timeAdded) are stamped by the cluster's clocks.
# A laptop 10 minutes ahead would call a cordon planned 30s ago 9.5 minutes late. Cases:
# (server clock - local clock, the server sends Date, --since as seconds before the SERVER's now,
#  expected exit code, a clock note expected).  The plan is not carried out: a cordon at +0s is
# pending until +0s + 60s has passed (SLACK), and differs ("not cordoned") after that.
CLOCK_CASES = [
    (-600, True, 30, 4, True),     # laptop 10m ahead: by the server's clock +30s, not due yet: pending
    (-600, True, 120, 3, True),    # by the server's clock +2m: due, and not cordoned: differs
    (600, True, 30, 4, True),      # laptop 10m behind: the same +30s by the server's clock
    (2, True, 30, 4, False),       # within 5s: the server's clock, no note
    (0, False, 30, 4, False),      # no Date (a proxy stripped it): the local clock, no note
    (0, False, 120, 3, False),
]


@pytest.mark.parametrize("offset,date,ago,code,note", CLOCK_CASES)
def test_what_is_due_is_judged_by_the_api_servers_clock(tmp_path, offset, date, ago, code, note):
    with ApiServer(cluster()) as srv:
        env = Env(srv, tmp_path)
        env.plan("drain", "n1")
        srv.clock_offset, srv.send_date = offset, date
        server_now = time.time() + (offset if date else 0)
        res = env.verify("--since", format_time(server_now - ago))
        assert res.returncode == code, res.stdout + res.stderr
        doc = json.loads(res.stdout)
        assert abs(parse_time(doc["verifiedAt"]) - server_now) < 5
        said = [w for w in doc["warnings"] if w.startswith("the local clock is")]
        assert bool(said) == note, doc["warnings"]
        if note:
            assert re.match(r"the local clock is (9m59s|10m|10m1s) %s" % ("ahead of" if offset < 0 else "behind"),
                            said[0]), said
            table = env.verify("--since", format_time(server_now - ago), fmt="table")
            assert "judged by the API server's clock" in table.stdout + table.stderr


# --since is when the operation began: later than the time of the read (or than --now) it cannot
# be, and every entry would read pending. One `error:` line naming the flag and both times.
def test_since_later_than_the_read_is_an_error(tmp_path):
    with ApiServer(cluster()) as srv:
        env = Env(srv, tmp_path)
        env.plan("drain", "n1")
        srv.clock_offset = -600          # the laptop is 10m ahead: "now" by its clock is the future
        local_now = time.time()
        res = env.verify("--since", format_time(local_now - 60))
        assert res.returncode == 1, res.stdout + res.stderr
        [line] = res.stderr.splitlines()
        assert line.startswith("error: --since: %s is later than the time of the read, "
                               % format_time(local_now - 60)), line
        assert "by the API server's clock" in line
        t = local_now - 3600
        res = env.verify("--since", format_time(t + 60), "--now", format_time(t))
        assert res.returncode == 1 and res.stderr == "error: --since: %s is later than --now %s: the operation " \
            "cannot have begun after the time its outcome is judged at\n" % (format_time(t + 60), format_time(t))
