"""`apply` under faults, against the test API server: 429 storms, PDB refusals, 500s, slow answers,
connection resets, lost answers, 409 conflicts, a pod replaced mid-run, and Ctrl-C.

After each run the server's state must show: no pod outside the plan touched, no pod evicted
twice (the PDB budget spent once per evicted pod), every planned action done or reported with
its reason, and a second run finishing the rest. Most runs call `apply_plan` in-process (the
same code the CLI runs, through the real `kubernetes` client and real HTTP) to keep the file
fast; Ctrl-C needs a real process and a real SIGINT.
"""

from __future__ import annotations

import io
import json
import signal
import threading
import time
from typing import Any, Callable, Dict, List, Tuple

import pytest

from apiserver import ApiServer
from test_apply_live import Env, cluster, cordon, podact, taint

from kubectl_evict.apply.document import read_plan_file
from kubectl_evict.apply.executor import ApplySettings, apply_plan
from kubectl_evict.apply.journal import journal_path
from kubectl_evict.options import GlobalOptions


@pytest.fixture
def env(tmp_path):
    with ApiServer(cluster()) as srv:
        yield Env(srv, tmp_path)


def run(env: Env, plan: str, **settings: Any) -> Tuple[int, Dict[str, Any], str]:
    """apply_plan in-process: (exit code, JSON report, stderr)."""
    settings.setdefault("timeout", 2.0)
    p, digest = read_plan_file(plan)
    out, err = io.StringIO(), io.StringIO()
    code = apply_plan(p, source=plan, opts=GlobalOptions(kubeconfig=env.kubeconfig),
                      settings=ApplySettings(assume_yes=True, **settings), fmt="json",
                      journal_path=journal_path(plan), digest=digest, stdout=out, stderr=err)
    return code, json.loads(out.getvalue()), err.getvalue()


def results(doc: Dict[str, Any]) -> List[Tuple[str, str]]:
    return [(r.get("pod") or r["type"], r["outcome"]) for r in doc["results"]]


def posts(env: Env, pod_name: str) -> int:
    return sum(1 for m, p in env.srv.requests if m == "POST" and p.startswith(
        "/api/v1/namespaces/default/pods/%s/eviction" % pod_name))


def untouched_except(env: Env, before: Dict[str, Any], named: set) -> None:
    """Every pod the plan does not name is exactly as it was (same resourceVersion)."""
    now = env.pods()
    for obj in before["pods"].values():
        key = "%s/%s" % (obj["metadata"]["namespace"], obj["metadata"]["name"])
        if key not in named:
            assert now.get(key) == obj, key


def web_budget(env: Env) -> int:
    return env.srv.state.get("pdb", "web")["status"]["disruptionsAllowed"]


def when_requested(env: Env, method: str, fragment: str, then: Callable[[], None]) -> threading.Thread:
    """In the background: as soon as METHOD ...FRAGMENT reaches the server, run THEN (while a
    fault's delay holds that request)."""
    def watch() -> None:
        env.wait_for_request(method, fragment)
        then()
    t = threading.Thread(target=watch, daemon=True)
    t.start()
    return t


# --------------------------------------------------------------------------------------------

def test_429_storm_with_retry_after_is_waited_out(env):
    f = env.srv.faults.add(method="POST", path_regex=r"/pods/web-1/eviction$", status=429, retry_after=1, times=2)
    code, doc, err = run(env, env.plan([podact("evict", "web-1", "n1")]), timeout=10.0)
    assert code == 0 and results(doc) == [("web-1", "done")]
    assert f.hits == 2 and posts(env, "web-1") == 3 and doc["results"][0]["attempts"] == 3
    assert "HTTP 429: injected fault: HTTP 429 (retrying in 1s)" in err
    assert web_budget(env) == 1  # evicted exactly once


def test_pdb_refusal_is_blocked_then_a_second_run_finishes_without_repeating(env):
    before = env.state()
    plan = env.plan([cordon("n1"), podact("evict", "web-1", "n1"), podact("evict", "db-0", "n1"),
                     podact("evict", "solo", "n1")])
    code, doc, err = run(env, plan, timeout=1.0)
    assert code == 3
    assert results(doc) == [("cordon", "done"), ("web-1", "done"), ("db-0", "blocked"), ("solo", "done")]
    blocked = doc["results"][2]
    assert blocked["httpStatus"] == 429 and "The disruption budget db needs 1 healthy pods" in blocked["message"]
    assert env.srv.state.get("pods", "db-0") is not None
    untouched_except(env, before, {"default/web-1", "default/db-0", "default/solo"})
    # the budget frees up (a replacement became Ready): the second run does only what is left
    pdb = env.srv.state.get("pdb", "db")
    pdb["status"]["disruptionsAllowed"] = 1
    env.srv.state.put(pdb)
    env.srv.clear_requests()
    code, doc, _ = run(env, plan)
    assert code == 0
    assert results(doc) == [("cordon", "already done"), ("web-1", "already done"), ("db-0", "done"),
                            ("solo", "already done")]
    assert env.writes() == [("POST", "/api/v1/namespaces/default/pods/db-0/eviction")]
    assert web_budget(env) == 1


@pytest.mark.parametrize("times,code,outcome,attempts", [
    (2, 0, "done", 3),          # transient: retried with backoff
    (None, 1, "failed", 4),     # persistent: 3 retries, then failed with the status and message
])
def test_500s(env, times, code, outcome, attempts):
    env.srv.faults.add(method="DELETE", path_regex=r"/pods/batch-1$", status=500, times=times)
    plan = env.plan([podact("delete", "batch-1", "n1", grace=0, force=True), podact("kill", "web-2", "n1", grace=3)])
    got, doc, _ = run(env, plan)
    assert got == code
    r = doc["results"][0]
    assert (r["outcome"], r["attempts"]) == (outcome, attempts)
    assert doc["results"][1]["outcome"] == "done"
    if outcome == "failed":
        assert r["httpStatus"] == 500 and r["message"] == "injected fault: HTTP 500"
        assert env.srv.state.get("pods", "batch-1") is not None
        env.srv.faults.clear()
        env.srv.clear_requests()
        again, doc, _ = run(env, plan)
        assert again == 0 and results(doc) == [("batch-1", "done"), ("web-2", "already done")]
        assert env.writes() == [("DELETE", "/api/v1/namespaces/default/pods/batch-1")]
    assert env.srv.state.get("pods", "batch-1") is None


def test_slow_answer_past_the_timeout_fails_and_the_rerun_does_not_evict_twice(env):
    env.srv.faults.add(method="POST", path_regex=r"/pods/web-1/eviction$", delay=2.0)
    plan = env.plan([podact("evict", "web-1", "n1"), podact("evict", "web-3", "n2")])
    t0 = time.monotonic()
    code, doc, _ = run(env, plan, timeout=1.0)
    assert time.monotonic() - t0 < 2.0 + 1.5  # gave up at the deadline, went on with the rest
    assert code == 1
    r = doc["results"][0]
    assert r["outcome"] == "failed" and "timed out" in r["message"] and "re-run apply" in r["outcomeReason"]
    assert doc["results"][1]["outcome"] == "done"
    # the server still carries out the slow request; the re-run finds the pod gone
    end = time.monotonic() + 5
    while env.srv.state.get("pods", "web-1") is not None and time.monotonic() < end:
        time.sleep(0.05)
    code, doc, _ = run(env, plan)
    assert code == 0 and results(doc) == [("web-1", "already done"), ("web-3", "already done")]
    assert web_budget(env) == 0  # 2 allowed, two pods evicted, each once


def test_connection_reset_and_lost_answers_are_retried_safely(env):
    before = env.state()
    reset = env.srv.faults.add(method="POST", path_regex=r"/pods/web-1/eviction$", reset=True)
    cut = env.srv.faults.add(method="POST", path_regex=r"/pods/solo/eviction$", partial=0.5)
    plan = env.plan([podact("evict", "web-1", "n1"), podact("evict", "solo", "n1")])
    code, doc, err = run(env, plan)
    assert code == 0, doc
    assert results(doc) == [("web-1", "done"), ("solo", "done")]
    assert reset.hits == 1 and cut.hits == 1 and posts(env, "web-1") == 2 and posts(env, "solo") == 2
    # solo was evicted by the first request (its answer was cut off): the retry's 404 says so
    assert "answer was lost" in doc["results"][1]["outcomeReason"]
    assert web_budget(env) == 1
    untouched_except(env, before, {"default/web-1", "default/solo"})


def test_conflicting_taint_write_is_merged_not_lost(env):
    env.srv.faults.add(method="PATCH", path_regex=r"^/api/v1/nodes/n1$", delay=0.8)

    def concurrent_writer() -> None:  # the node controller adds a taint meanwhile
        n1 = env.srv.state.get("nodes", "n1")
        n1["spec"]["taints"].append({"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"})
        env.srv.state.put(n1)

    t = when_requested(env, "PATCH", "/api/v1/nodes/n1", concurrent_writer)
    code, doc, err = run(env, env.plan([taint("n1", "maint", "true", "NoExecute")]))
    t.join(5)
    assert code == 0 and results(doc) == [("taint", "done")]
    assert "409 Conflict" in err and doc["results"][0]["attempts"] == 4  # GET, PATCH(409), GET, PATCH
    taints = env.srv.state.get("nodes", "n1")["spec"]["taints"]
    assert [(x["key"], x["effect"]) for x in taints] == [
        ("keep", "NoSchedule"), ("node.kubernetes.io/unreachable", "NoExecute"), ("maint", "NoExecute")]
    assert taints[2]["value"] == "true" and taints[2]["timeAdded"].endswith("Z")


def test_injected_409s_on_node_patches_are_retried(env):
    f = env.srv.faults.add(method="PATCH", path_regex=r"^/api/v1/nodes/n2$", status=409, times=2)
    code, doc, _ = run(env, env.plan([taint("n2", "old", "", "NoExecute", remove=True)]))
    assert code == 0 and f.hits == 2 and doc["results"][0]["outcome"] == "done"
    assert env.srv.state.get("nodes", "n2")["spec"]["taints"] == [{"key": "keep", "value": "2", "effect": "NoSchedule"}]


@pytest.mark.parametrize("typ", ["evict", "delete"])
def test_pod_replaced_mid_run_is_skipped_and_the_replacement_untouched(env, typ):
    path = "/pods/web-1/eviction" if typ == "evict" else "/pods/web-1"
    env.srv.faults.add(method="POST" if typ == "evict" else "DELETE", path_regex=path + "$", delay=0.8)

    def replace() -> None:  # a controller recreated web-1 under a new uid
        new = env.srv.state.get("pods", "web-1")
        new["metadata"]["uid"] = "uid-replacement"
        env.srv.state.put(new)

    t = when_requested(env, "POST" if typ == "evict" else "DELETE", path, replace)
    code, doc, _ = run(env, env.plan([podact(typ, "web-1", "n1"), podact("evict", "solo", "n1")]))
    t.join(5)
    assert code == 3
    r = doc["results"][0]
    assert r["outcome"] == "skipped" and r["httpStatus"] == 409 and "Precondition failed: UID" in r["message"]
    assert "the replacement is not touched" in r["outcomeReason"]
    assert env.srv.state.get("pods", "web-1")["metadata"]["uid"] == "uid-replacement"
    assert doc["results"][1]["outcome"] == "done"


def test_ctrl_c_stops_before_the_next_action_and_a_rerun_finishes(env):
    before = env.state()
    plan = env.plan([cordon("n1"), podact("evict", "web-1", "n1"), podact("evict", "solo", "n1"),
                     podact("kill", "web-2", "n1", grace=1), podact("delete", "batch-1", "n1", force=True, grace=0),
                     taint("n1", "maint", "true", "NoSchedule")])
    env.srv.faults.add(method="POST", path_regex=r"/pods/solo/eviction$", delay=1.0)
    proc = env.popen("apply", plan, "--yes", "-o", "json")
    env.wait_for_request("POST", "/pods/solo/eviction")  # the 3rd action is in flight
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    doc = json.loads(out)
    assert doc["interrupted"] is True
    assert results(doc) == [("cordon", "done"), ("web-1", "done"), ("solo", "done"), ("web-2", "not run"),
                            ("batch-1", "not run"), ("taint", "not run")]
    assert doc["results"][3]["outcomeReason"] == "interrupted before this action"
    assert "interrupted: finishing the request in flight" in err and "Traceback" not in err
    assert env.srv.state.get("pods", "web-2") is not None and env.srv.state.get("pods", "batch-1") is not None
    untouched_except(env, before, {"default/web-1", "default/solo"})
    # the second run does the rest, and only the rest
    env.srv.clear_requests()
    code, doc, _ = run(env, plan)
    assert code == 0
    assert results(doc) == [("cordon", "already done"), ("web-1", "already done"), ("solo", "already done"),
                            ("web-2", "done"), ("batch-1", "done"), ("taint", "done")]
    assert sorted(env.writes()) == [("DELETE", "/api/v1/namespaces/default/pods/batch-1"),
                                    ("DELETE", "/api/v1/namespaces/default/pods/web-2"),
                                    ("PATCH", "/api/v1/nodes/n1")]
    assert web_budget(env) == 1
    untouched_except(env, before, {"default/web-1", "default/solo", "default/web-2", "default/batch-1"})


def label(n: str, key: str, value: str, previous: Any) -> Dict[str, Any]:
    return {"type": "label", "node": n, "key": key, "value": value, "previous": previous, "uid": "uid-" + n, "at": 0,
            "by": "user", "rule": "affinity", "reason": "test"}


# (the node edit that does not happen, the fault behind it, its outcome, whether the other node's
# pod is held too, the reason). kubectl drain cordons every node first and evicts nothing if a
# cordon failed: RunDrain returns on RunCordonOrUncordon's error
# (staging/src/k8s.io/kubectl/pkg/cmd/drain/drain.go). An affinity plan evicts because of the label
# or taint it sets: without it, that node's evictions have no reason.
HELD = [
    (cordon("n1"), dict(method="PATCH", path_regex=r"/nodes/n1$", status=403, times=None), "failed", True,
     "the cordon of node n1 failed; kubectl drain evicts nothing when it could not cordon every node"),
    (taint("n1", "maint", "true", "NoSchedule"), dict(method="PATCH", path_regex=r"/nodes/n1$", status=500, times=None),
     "failed", False, "taint node n1 maint=true:NoSchedule failed; the plan removes this pod because of that change"),
    # the label's value is no longer the one the plan saw (no fault: the precondition fails)
    (label("n1", "disk", "hdd", previous="ssd"), None, "failed", False,
     "label node n1 disk=hdd failed; the plan removes this pod because of that change"),
]


@pytest.mark.parametrize("edit, fault, outcome, all_held, why", HELD, ids=["cordon", "taint", "label"])
def test_pods_of_a_node_whose_edit_did_not_happen_are_not_run(env, edit, fault, outcome, all_held, why):
    before = env.state()
    if fault:
        env.srv.faults.add(**fault)
    plan = env.plan([edit, podact("evict", "web-1", "n1"), podact("kill", "other", "n2", grace=3)])
    code, doc, _ = run(env, plan)
    assert code == 1
    assert results(doc) == [(edit["type"], outcome), ("web-1", "not run"), ("other", "not run" if all_held else "done")]
    assert doc["results"][1]["outcomeReason"] == why
    assert posts(env, "web-1") == 0 and env.srv.state.get("pods", "web-1") is not None
    untouched_except(env, before, set() if all_held else {"default/other"})
    if fault:   # the fault is gone: a second run does the edit, then the pods it held back
        env.srv.faults.clear()
        code, doc, _ = run(env, plan)
        assert code == 0 and results(doc) == [(edit["type"], "done"), ("web-1", "done"),
                                              ("other", "done" if all_held else "already done")]


def _terminate_namespace(env: Env, ns: str = "default") -> None:
    o = env.srv.state.get("namespaces", ns)
    o["metadata"]["deletionTimestamp"] = "2026-11-21T12:00:00Z"
    o["status"] = {"phase": "Terminating"}
    env.srv.state.put(o)


# (the pod when apply runs, outcome, evictions sent, reason). An eviction in a namespace being
# deleted is refused by the NamespaceLifecycle admission plugin (403, cause NamespaceTerminating);
# kubectl drain retries it every 5s unless the pod is already deleting, and counts a 404 as success
# (shared/spec/semantics.md F.6, staging/src/k8s.io/kubectl/pkg/drain/drain.go).
NS_TERMINATING = [
    ("deleting", "done", 1, "its namespace is being deleted and the pod with it (deletionTimestamp "
                            "2026-11-21T12:00:30Z): kubectl drain counts it evicted"),
    ("gone", "already done", 1, "the pod no longer exists"),
    ("running", "failed", None, ""),     # nothing deletes it before --timeout: the refusal is the answer
]


@pytest.mark.parametrize("state, outcome, posted, reason", NS_TERMINATING, ids=[c[0] for c in NS_TERMINATING])
def test_eviction_in_a_namespace_being_deleted(env, state, outcome, posted, reason):
    if state == "deleting":
        p = env.srv.state.get("pods", "web-1")
        p["metadata"]["deletionTimestamp"] = "2026-11-21T12:00:30Z"
        env.srv.state.put(p)
    elif state == "gone":
        env.srv.state.delete("pods", "web-1", "default")
    _terminate_namespace(env)
    code, doc, err = run(env, env.plan([podact("evict", "web-1", "n1")]), timeout=1.0)
    r = doc["results"][0]
    assert r["outcome"] == outcome, r
    if posted is not None:
        assert posted == posts(env, "web-1") and r["outcomeReason"] == reason and code == 0
    else:
        assert code == 1 and r["httpStatus"] == 403
        assert r["message"].startswith('pods "web-1" is forbidden: unable to create new content in namespace default '
                                       'because it is being terminated')
        assert "until the pod is deleting)" in err and posts(env, "web-1") == 2    # retried at the deadline
