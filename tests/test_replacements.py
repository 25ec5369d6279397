"""Who replaces a pod the kubelet stops, when, and where: owner kinds x (graceful shutdown,
node-pressure eviction).

In both cases the kubelet sets the pod Failed at the end of its grace period (reason Terminated or
Evicted, condition DisruptionTarget/TerminationByKubelet) and the owner's controller acts then,
without waiting for the pod object to be deleted. Each case names the upstream function whose
behaviour it states; the expected numbers come from those functions, not from our output:

- shutdown: shutdownGracePeriod 30s / critical 10s -> the non-critical phase gives 20s, so a pod
  with terminationGracePeriodSeconds 30 is killed at +0s and Failed at +20s;
- pressure: memory.available 100Mi < 500Mi (hard) -> the kubelet kills the one pod at +0s with
  the 1s hard-eviction grace, Failed at +1s; MemoryPressure stays until +5m10s.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

import pytest
from pyrsistent import pmap

from conftest import node, pod, run_cli
from kubectl_evict.model import Pod
from kubectl_evict.render import plan_document
from kubectl_evict.rules.pressure import PressureSettings, plan_pressure
from kubectl_evict.rules.replacements import (KILLED_POD_CONDITIONS, daemon_decision, job_backoff,
                                              match_pod_failure_policy)
from kubectl_evict.rules.shutdown import ShutdownSettings, plan_shutdown
from kubectl_evict.source.freeze import freeze
from kubectl_evict.timeutil import parse_time

NOW = parse_time("2026-11-21T12:00:00Z")
MI = 1024 * 1024
SHUTDOWN_FAILED_AT = 20       # killed at +0s with 20s (the non-critical phase)
PRESSURE_FAILED_AT = 1        # killed at +0s with the 1s hard-eviction grace


def owner(kind: str, name: str, **spec: Any) -> Dict[str, Any]:
    api = "batch/v1" if kind == "Job" else "v1" if kind == "ReplicationController" else "apps/v1"
    status = spec.pop("status", {})
    body: Dict[str, Any] = {"replicas": 1} if kind in ("ReplicaSet", "StatefulSet", "ReplicationController") else {}
    body.update(spec)
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": "default", "uid": "uid-" + name},
            "spec": body, "status": status}


def stats(node_name: str, available: int, victim: str) -> Dict[str, Any]:
    s = {"node": {"nodeName": node_name, "memory": {"availableBytes": available, "workingSetBytes": 6 * 1024 * MI},
                  "systemContainers": [{"name": "pods", "memory": {"availableBytes": available,
                                                                   "workingSetBytes": 1024 * MI}}]},
         "pods": [{"podRef": {"name": victim, "namespace": "default", "uid": "uid-default-" + victim},
                   "memory": {"workingSetBytes": 1024 * MI},
                   "containers": [{"name": "app", "memory": {"workingSetBytes": 1024 * MI}}]}]}
    return {"apiVersion": "evictplan/v1alpha1", "kind": "NodeStatsSummary", "metadata": {"name": node_name},
            "summary": s}


KUBELET = {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n1"},
           "kubeletconfig": {"shutdownGracePeriod": "30s", "shutdownGracePeriodCriticalPods": "10s"}}


def victim(kind: Optional[str], name: str = "victim", **kw: Any) -> Dict[str, Any]:
    p = pod(name, "n1", owner=(kind, "w") if kind else None, **kw)
    p["spec"]["terminationGracePeriodSeconds"] = 30
    return p


def plan_for(mode: str, *docs: Dict[str, Any], spare: bool = True, victim_name: str = "victim") -> Any:
    items = [node("n1"), KUBELET, *docs]
    if spare:
        items.append(node("n2"))
    if mode == "shutdown":
        return plan_shutdown(freeze([("t", "", d) for d in items]), ShutdownSettings(nodes=("n1",)), NOW)
    items.append(stats("n1", 100 * MI, victim_name))
    settings = PressureSettings(nodes=("n1",), flags=pmap({"evictionHard": {"memory.available": "500Mi"}}))
    return plan_pressure(freeze([("t", "", d) for d in items]), settings, NOW)


def kill_of(plan: Any, name: str = "victim") -> Dict[str, Any]:
    doc = plan_document(plan)
    [k] = [a for a in doc["actions"] if a["type"] == "kill" and a["pod"] == name]
    return k


def shortfall_codes(plan: Any) -> List[Tuple[str, str]]:
    return [(e.pod, e.code) for e in plan.shortfall]


FAILED_AT = {"shutdown": SHUTDOWN_FAILED_AT, "pressure": PRESSURE_FAILED_AT}

# (id, upstream function, owner objects, victim kind, victim kwargs,
#  expected per mode: (target, replacement created this long after the pod is Failed or None, shortfall code or None))
CASES = [
    ("replicaset", "replicaset.syncReplicaSet / controller.FilterActivePods: a Failed pod is not active",
     [owner("ReplicaSet", "w")], "ReplicaSet", {},
     {"shutdown": ("n2", 0, None), "pressure": ("n2", 0, None)}),
    ("replicationcontroller", "replication controller = replicaset.syncReplicaSet over RCs (FilterActivePods)",
     [owner("ReplicationController", "w")], "ReplicationController", {},
     {"shutdown": ("n2", 0, None), "pressure": ("n2", 0, None)}),
    ("statefulset", "stateful_set_control.go processReplica: delete the Failed pod, recreate it (same name)",
     [owner("StatefulSet", "w")], "StatefulSet", {},
     {"shutdown": ("n2", 0, None), "pressure": ("n2", 0, None)}),
    ("job-counted", "job_controller.go syncJob/manageJob: counted failure, DefaultJobPodFailureBackOff 10s",
     [owner("Job", "w", backoffLimit=6)], "Job", {},
     {"shutdown": ("n2", 10, None), "pressure": ("n2", 10, None)}),
    ("job-backoff-limit", "job_controller.go syncJob: failed 1 > backoffLimit 0 -> BackoffLimitExceeded",
     [owner("Job", "w", backoffLimit=0)], "Job", {},
     {"shutdown": (None, None, "job-failed"), "pressure": (None, None, "job-failed")}),
    ("job-already-failed", "job_controller.go syncJob: status.failed 2 + 1 > backoffLimit 2",
     [owner("Job", "w", backoffLimit=2, status={"failed": 2})], "Job", {},
     {"shutdown": (None, None, "job-failed"), "pressure": (None, None, "job-failed")}),
    ("job-ignore-disruption", "pod_failure_policy.go matchPodFailurePolicy: Ignore on DisruptionTarget, not counted "
     "against backoffLimit 0; job_controller.go syncJob: newBackoffRecord takes every new failed pod, so manageJob "
     "still waits DefaultJobPodFailureBackOff 10s",
     [owner("Job", "w", backoffLimit=0, podFailurePolicy={"rules": [
         {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]})], "Job", {},
     {"shutdown": ("n2", 10, None), "pressure": ("n2", 10, None)}),
    ("job-failjob-disruption", "pod_failure_policy.go matchPodFailurePolicy: FailJob on DisruptionTarget",
     [owner("Job", "w", podFailurePolicy={"rules": [
         {"action": "FailJob", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]})], "Job", {},
     {"shutdown": (None, None, "job-failed"), "pressure": (None, None, "job-failed")}),
    ("job-exit-code-rule-skipped", "matchPodFailurePolicy: an onExitCodes rule cannot be matched before the kill; "
     "the next rule (Ignore) decides",
     [owner("Job", "w", backoffLimit=0, podFailurePolicy={"rules": [
         {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}},
         {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]})], "Job", {},
     {"shutdown": ("n2", 10, None), "pressure": ("n2", 10, None)}),
    ("job-per-index-default-backoff-limit", "defaults.go SetDefaults_Job: backoffLimit MaxInt32 with "
     "backoffLimitPerIndex, so status.failed 10 fails nothing; indexed_job_utils.go isIndexFailed: the index's "
     "failure count (annotation absent: 0) < backoffLimitPerIndex 1; getRemainingTimePerIndex: 10s",
     [owner("Job", "w", completionMode="Indexed", completions=3, backoffLimitPerIndex=1, status={"failed": 10})],
     "Job", {}, {"shutdown": ("n2", 10, None), "pressure": ("n2", 10, None)}),
    ("job-per-index-limit-reached", "indexed_job_utils.go isIndexFailed: batch.kubernetes.io/job-index-failure-count "
     "2 >= backoffLimitPerIndex 2: the index fails, nothing replaces the pod",
     [owner("Job", "w", completionMode="Indexed", completions=3, backoffLimitPerIndex=2)],
     "Job", {"annotations": {"batch.kubernetes.io/job-index-failure-count": "2"}},
     {"shutdown": (None, None, "job-failed"), "pressure": (None, None, "job-failed")}),
    ("job-per-index-backoff", "backoff_utils.go getRemainingTimePerIndex: index failures 1 + ignored 1 + 1 = 3 -> "
     "10s doubled twice = 40s; count 1 < backoffLimitPerIndex 3",
     [owner("Job", "w", completionMode="Indexed", completions=3, backoffLimitPerIndex=3)],
     "Job", {"annotations": {"batch.kubernetes.io/job-index-failure-count": "1",
                             "batch.kubernetes.io/job-index-ignored-failure-count": "1"}},
     {"shutdown": ("n2", 40, None), "pressure": ("n2", 40, None)}),
    ("job-per-index-backoff-limit-still-applies", "job_controller.go syncJob: exceedsBackoffLimit = failed 1 > "
     "backoffLimit 0, set explicitly, whatever backoffLimitPerIndex says",
     [owner("Job", "w", completionMode="Indexed", completions=3, backoffLimitPerIndex=1, backoffLimit=0)],
     "Job", {}, {"shutdown": (None, None, "job-failed"), "pressure": (None, None, "job-failed")}),
    ("daemonset", "daemon_controller.go podsShouldBeOnNode: failed daemon pod deleted, recreated on its node "
     "only when it should run there and the kubelet admits it",
     [owner("DaemonSet", "w")], "DaemonSet", {},
     # shutdown: the node shuts down (rejects new pods, then is off); pressure: MemoryPressure alone
     # admits a Burstable daemon pod (eviction manager Admit), and DaemonSet pods tolerate its taint
     {"shutdown": (None, None, None), "pressure": ("n1", 0, None)}),
    ("bare-pod", "no controller: nothing recreates it",
     [], None, {},
     {"shutdown": (None, None, None), "pressure": (None, None, None)}),
] + [
    # the input holds the owner's kind (another object of it appears) and not the owner: it does not
    # exist, so the garbage collector deletes the pod and nothing recreates it, whatever the kind
    (kind.lower() + "-not-in-the-cluster", "garbagecollector.go attemptToDeleteItem: classifyReferences finds no "
     "solid owner (the owner is not found: dangling), so the pod is deleted; no controller is left to replace it",
     [owner(kind, "other")], kind, {}, {"shutdown": (None, None, None), "pressure": (None, None, None)})
    for kind in ("ReplicaSet", "ReplicationController", "StatefulSet", "Job", "DaemonSet")
]


@pytest.mark.parametrize("mode", ["shutdown", "pressure"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_owner_kinds(case: tuple, mode: str) -> None:
    _id, upstream, owners, kind, kw, expected = case
    plan = plan_for(mode, *owners, victim(kind, **kw))
    target, delay, code = expected[mode]
    k = kill_of(plan)
    assert k["at"] == 0 and k["gracePeriodSeconds"] == FAILED_AT[mode], upstream
    assert k["target"] == target, upstream
    if delay is None:
        assert "replacementAt" not in k, upstream
    else:
        assert k["replacementAt"] == FAILED_AT[mode] + delay, upstream
    assert shortfall_codes(plan) == ([("victim", code)] if code else []), upstream


EXIT_CODES_UNREAD = ("podFailurePolicy rule 0 on exit codes was not matched: a killed container's exit code is not "
                     "known before the kill (often 143 after SIGTERM, 137 after SIGKILL), and may decide instead")


# matchPodFailurePolicy takes the first rule that matches, in order; an onExitCodes rule before
# the one the plan matched (or before none) reads the container's exit code, which the plan cannot
# know: the replacement's reason says so. One after the matched rule never decides.
@pytest.mark.parametrize("rules,said", [
    ([{"action": "FailJob", "onExitCodes": {"operator": "NotIn", "values": [0]}},
      {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}], True),
    ([{"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}], True),
    ([{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
      {"action": "FailJob", "onExitCodes": {"operator": "NotIn", "values": [0]}}], False),
    ([{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}], False),
])
@pytest.mark.parametrize("mode", ["shutdown", "pressure"])
def test_exit_code_rules_before_the_match_are_named(rules: list, said: bool, mode: str) -> None:
    plan = plan_for(mode, owner("Job", "w", backoffLimit=6, podFailurePolicy={"rules": rules}), victim("Job"))
    [rep] = [r for r in plan_document(plan)["replacements"] if r["pod"] == "victim"]
    assert (EXIT_CODES_UNREAD in rep["reason"]) is said, rep["reason"]


@pytest.mark.parametrize("mode", ["shutdown", "pressure"])
def test_replacement_with_nowhere_to_go_is_a_fit_error_shortfall(mode: str) -> None:
    """The only other node is full: the FitError names the stopped node's taint (not-ready for a
    shutdown, memory-pressure for pressure) and the other node's lack of cpu; exit code 4."""
    full = node("n2", cpu="50m")
    v133 = {"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
            "takenAt": "2026-11-21T12:00:00Z", "serverVersion": "v1.33.3"}
    plan = plan_for(mode, owner("ReplicaSet", "w"), victim("ReplicaSet"), full, v133, spare=False)
    [entry] = plan.shortfall
    assert entry.code == "no-node-fits"
    taint = "node.kubernetes.io/not-ready" if mode == "shutdown" else "node.kubernetes.io/memory-pressure"
    assert "has nowhere to go: 0/2 nodes are available: " in entry.reason
    assert "1 node(s) had untolerated taint {%s: }" % taint in entry.reason       # v1.33's text names it
    assert "1 Insufficient cpu" in entry.reason
    assert kill_of(plan)["target"] is None
    from kubectl_evict.plan import exit_code
    assert exit_code(plan) == 4


def test_statefulset_replacement_keeps_its_name_and_waits_for_lower_ordinals() -> None:
    """stateful_set_control.go: an OrderedReady set recreates ordinal 1 only while ordinal 0 is
    Running and Ready (processReplica's monotonic check); ordinal 0 here is not Ready."""
    sts = owner("StatefulSet", "w", replicas=2)
    zero = pod("w-0", "n2", owner=("StatefulSet", "w"), ready=False)
    one = victim("StatefulSet", name="w-1")
    plan = plan_for("shutdown", sts, zero, one)
    assert shortfall_codes(plan) == [("w-1", "ordered-ready")]
    parallel = owner("StatefulSet", "w", replicas=2, podManagementPolicy="Parallel")
    plan = plan_for("shutdown", parallel, zero, one)
    assert kill_of(plan, "w-1")["target"] == "n2" and not plan.shortfall
    [rec] = plan.extra["replacements"]
    assert "same name" in rec["reason"]


def test_workloads_dip_and_recover_when_the_pod_is_failed() -> None:
    """`workloads`: the ready count drops when the kubelet starts stopping the pod and comes back
    30s (pod startup) after the replacement is created when the pod is Failed, not never."""
    plan = plan_for("shutdown", owner("ReplicaSet", "w"), victim("ReplicaSet"))
    [w] = plan.workloads
    assert (w.kind, w.ready, w.ready_min, w.ready_min_at, w.ready_after) == ("ReplicaSet", 1, 0, 0, 1)
    assert any("from +0s until +50s" in x for x in plan.warnings)


def test_job_backoff_doubles_per_failure() -> None:
    """getRemainingTimeForFailuresCount: 10s, 20s, 40s, ... capped at 10m."""
    assert [job_backoff(n) for n in (0, 1, 2, 3, 6, 7, 20)] == [0, 10, 20, 40, 320, 600, 600]


def test_pod_failure_policy_matches_the_conditions_of_a_killed_pod() -> None:
    """The kubelet's DisruptionTarget (True) and Ready=False both match onPodConditions patterns;
    status defaults to True; rules apply in order."""
    doc = owner("Job", "j", podFailurePolicy={"rules": [
        {"action": "Count", "onPodConditions": [{"type": "ConfigIssue"}]},
        {"action": "FailJob", "onPodConditions": [{"type": "Ready", "status": "False"}]},
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]})
    job = freeze([("t", "", doc)]).owners[("Job", "default", "j")]
    assert ("DisruptionTarget", "True") in KILLED_POD_CONDITIONS
    assert match_pod_failure_policy(job) == (1, "FailJob")
    assert match_pod_failure_policy(job.set(pod_failure_rules=job.pod_failure_rules[2:])) == (0, "Ignore")
    assert match_pod_failure_policy(job.set(pod_failure_rules=())) == (None, "Count")


def test_daemon_pod_comes_back_once_the_kubelet_admits_it() -> None:
    """podsShouldBeOnNode + the kubelet's Admit: a DiskPressure node rejects every non-critical pod
    until the condition clears (+300s); each rejected copy is deleted, and the next created, only
    after failedPodsBackoff (apps.go: NewBackOff(1s, 15m)): copies at +5, +6, +8, +12, +20, +36,
    +68, +132, +260, then +516, the first after +300; a taint the daemon pod does not tolerate
    keeps it off altogether."""
    from kubectl_evict.model import Taint
    p = Pod(namespace="d", name="ds-x", node_name="n1")
    later = daemon_decision(p, 5.0, (), lambda pod, at: (300.0, "DiskPressure=True"))
    assert (later.kind, later.at) == ("same-node", 516.0)
    from kubectl_evict.rules.replacements import daemon_retry_at
    # past 512s the step stays at the 15m cap: 1+2+...+512 = 1023, then +900
    assert [daemon_retry_at(0.0, t) for t in (0.0, 1.0, 2.0, 1023.0, 1024.0, 1924.0)] == [0, 1, 3, 1023, 1923, 1923 + 900]
    never = daemon_decision(p, 5.0, (Taint("dedicated", "db", "NoSchedule"),), lambda pod, at: (at, ""))
    assert (never.kind, never.at) == ("none", None) and "dedicated=db:NoSchedule" in never.why
    tolerated = daemon_decision(p, 5.0, (Taint("node.kubernetes.io/disk-pressure", "", "NoSchedule"),),
                                lambda pod, at: (at, ""))
    assert (tolerated.kind, tolerated.at) == ("same-node", 5.0)


def test_non_graceful_toleration_with_seconds_is_not_forever(write_snapshot) -> None:
    """taint-eviction controller (processPodOnNode / getMinTolerationTime): a toleration matching
    every NoExecute taint with tolerationSeconds 12 deletes the pod 12s after the out-of-service
    taint; only a toleration without seconds keeps it. The controller rule gives the same answer."""
    tol = [{"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 12}]
    forever = [{"operator": "Exists", "effect": "NoExecute"}]
    path = write_snapshot(node("n1", ready="Unknown"), node("n2"), pod("twelve", "n1", tolerations=tol),
                          pod("forever", "n1", tolerations=forever))
    r = run_cli("-f", path, "-o", "json", "shutdown", "n1", "--non-graceful")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    deletes = {a["pod"]: a["at"] for a in doc["actions"] if a["type"] == "delete"}
    assert deletes == {"twelve": 12}
    assert [(s["pod"], s["code"]) for s in doc["skipped"]] == [("forever", "tolerates-forever")]
    r = run_cli("-f", path, "-o", "json", "controller", "--fail", "n1")
    doc = json.loads(r.stdout)
    assert not any(s["pod"] == "twelve" and s["code"] == "tolerates-forever" for s in doc["skipped"])
    assert any(s["pod"] == "forever" and s["code"] == "tolerates-forever" for s in doc["skipped"])


def test_malformed_pod_failure_policy_is_a_clean_error(write_snapshot) -> None:
    bad = owner("Job", "w", podFailurePolicy={"rules": [{"action": "Retry"}]})
    path = write_snapshot(node("n1"), bad)
    r = run_cli("-f", path, "shutdown", "n1")
    assert r.returncode == 1
    assert r.stderr.startswith("error:") and "spec.podFailurePolicy.rules[0].action" in r.stderr
    assert "Traceback" not in r.stderr


def test_unknown_pod_replacement_policy_is_a_clean_error(write_snapshot) -> None:
    path = write_snapshot(node("n1"), owner("Job", "w", podReplacementPolicy="Sometimes"))
    r = run_cli("-f", path, "controller", "--fail", "n1")
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1
    assert r.stderr.startswith("error:") and "Job default/w: spec.podReplacementPolicy" in r.stderr


def test_demo_shutdown_tells_one_story() -> None:
    """`--demo shutdown worker-a1`: the ReplicaSet pods come back 30s after they are Failed at
    +20s, spark-driver's replacement fits nowhere, so the verdict, the table and the exit code all
    say SHORTFALL (4); the taint-eviction controller's later deletions are named clean-up."""
    r = run_cli("--demo", "shutdown", "worker-a1", env={"COLUMNS": "200"})
    assert r.returncode == 4, r.stderr
    out = r.stdout
    assert "VERDICT: SHORTFALL (exit 4)" in out
    rows = {line.split()[1]: line.split()[2:] for line in out.splitlines() if line.startswith("Deployment ")}
    assert rows["shop/payments"] == ["1", "0", "at", "+0s", "1", "OUTAGE"]       # READY LOWEST AFTER STATE
    assert rows["shop/checkout"] == ["3", "1", "at", "+0s", "3"]
    doc = json.loads(run_cli("--demo", "-o", "json", "shutdown", "worker-a1").stdout)
    wl = {(w["kind"], w["name"]): w for w in doc["workloads"]}
    assert wl[("Deployment", "payments")]["readyAfter"] == 1
    assert wl[("Deployment", "spark-driver")]["readyAfter"] == 0
    assert [(e["pod"], e["code"]) for e in doc["shortfall"]] == [("spark-driver-m8fdfxfbnr-4qp8d", "no-node-fits")]
    kills = {a["pod"]: a for a in doc["actions"] if a["type"] == "kill"}
    assert kills["payments-kkdxzxxzvf-pcr65"]["replacementAt"] == 20
    assert kills["debug-shell"]["target"] is None and "replacementAt" not in kills["debug-shell"]
    assert any("clean-up of the objects only" in n for n in doc["notes"])
    assert "outage: Deployment shop/payments has 0 of 1 ready replicas from +0s until +50s" in " ".join(doc["warnings"])


# A pod already terminating (deletionTimestamp) when the kubelet stops it: (owner objects, victim
# kind, outcome, replacementAt or None)
ALREADY_TERMINATING = [
    # FilterActivePods drops a pod with a deletionTimestamp: its ReplicaSet replaced it already,
    # so the kubelet's kill adds no second replacement
    ([owner("ReplicaSet", "w")], "ReplicaSet", "already-replaced", None),
    # job_controller.go isPodFailed: TerminatingOrFailed counts it failed at its deletion: replaced already
    ([owner("Job", "w", backoffLimit=6)], "Job", "already-replaced", None),
    # onlyReplaceFailedPods (podReplacementPolicy Failed): not before it is Failed (+20s), then the
    # 10s DefaultJobPodFailureBackOff
    ([owner("Job", "w", backoffLimit=6, podReplacementPolicy="Failed")], "Job", "placed", 30),
]


@pytest.mark.parametrize("owners,kind,outcome,replaced_at", ALREADY_TERMINATING,
                         ids=["replicaset", "job", "job-replace-failed"])
def test_a_pod_already_terminating_when_stopped(owners: list, kind: str, outcome: str,
                                                replaced_at: Optional[int]) -> None:
    p = victim(kind)
    p["metadata"]["deletionTimestamp"] = "2026-11-21T11:59:00Z"
    plan = plan_for("shutdown", *owners, p)
    k = kill_of(plan)
    assert k.get("replacementAt") == replaced_at and not plan.shortfall
    assert k["target"] == (None if replaced_at is None else "n2")
    [rec] = plan.extra["replacements"]
    assert rec["outcome"] == outcome


def test_a_job_not_in_the_input_is_named_incomplete() -> None:
    """A Job pod whose Job the input does not hold: the plan assumes the defaults (backoffLimit 6,
    no policy: replaced after 10s) and says which kind it did not check; when the input lists
    every Job (SnapshotInfo.kinds) and it is not there, nothing recreates the pod."""
    plan = plan_for("shutdown", victim("Job"))
    assert kill_of(plan)["replacementAt"] == SHUTDOWN_FAILED_AT + 10
    assert [e.kind for e in plan.incomplete] == ["Job"]
    info = {"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
            "takenAt": "2026-11-21T12:00:00Z", "kinds": ["Node", "Pod", "Job"]}
    plan = plan_for("shutdown", victim("Job"), info)
    assert kill_of(plan)["target"] is None and not plan.incomplete


# A pod that tolerates not-ready for 0s is deleted by the taint-eviction controller when the
# NoExecute taint comes (+5s), before its 20s kill ends (Failed at +20s). What its owner does then:
# (owner objects, victim kind, replacementAt)
DELETED_BEFORE_FAILED = [
    # FilterActivePods also drops a pod with a deletionTimestamp: the ReplicaSet replaces it at +5s
    ([owner("ReplicaSet", "w")], "ReplicaSet", 5),
    # job_controller.go isPodFailed: with podReplacementPolicy TerminatingOrFailed (the default
    # without a podFailurePolicy) a pod being deleted counts as failed: DefaultJobPodFailureBackOff
    # 10s after the deletion, +15s
    ([owner("Job", "w", backoffLimit=6)], "Job", 15),
    # podReplacementPolicy Failed: only once the pod is Failed (+20s), then the 10s backoff
    ([owner("Job", "w", backoffLimit=6, podReplacementPolicy="Failed")], "Job", 30),
    # stateful_set_control.go: the same name only once the old pod is gone; the kubelet, still
    # running, ends it at +20s
    ([owner("StatefulSet", "w")], "StatefulSet", 20),
]


@pytest.mark.parametrize("owners,kind,replaced_at", DELETED_BEFORE_FAILED,
                         ids=["replicaset", "job", "job-replace-failed", "statefulset"])
def test_a_pod_deleted_before_it_is_failed(owners: list, kind: str, replaced_at: int) -> None:
    p = victim(kind, tolerations=[{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                                   "effect": "NoExecute", "tolerationSeconds": 0}])
    plan = plan_for("shutdown", *owners, p)
    k = kill_of(plan)
    assert (k["target"], k["replacementAt"]) == ("n2", replaced_at)


@pytest.mark.parametrize("mode", ["shutdown", "pressure"])
def test_statefulset_replacement_keeps_its_claim_and_zone(mode: str) -> None:
    """processReplica recreates the pod under the same name with the same claim, so the scheduler's
    VolumeZone filter keeps it in its volume's zone: of two free nodes, the one in zone z2."""
    from test_placement_plan import zonal_volume
    sts = owner("StatefulSet", "w")
    p = victim("StatefulSet", name="w-0", volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": "data-w-0"}}])
    n1 = node("n1", zone="z2")
    plan_items = [sts, p, node("n2", zone="z1"), node("n3", zone="z2"), *zonal_volume("data-w-0", "z2")]
    items = [n1, KUBELET, *plan_items]
    if mode == "shutdown":
        plan = plan_shutdown(freeze([("t", "", d) for d in items]), ShutdownSettings(nodes=("n1",)), NOW)
    else:
        items.append(stats("n1", 100 * MI, "w-0"))
        plan = plan_pressure(freeze([("t", "", d) for d in items]),
                             PressureSettings(nodes=("n1",), flags=pmap({"evictionHard": {"memory.available": "500Mi"}})),
                             NOW)
    assert kill_of(plan, "w-0")["target"] == "n3"


# --- a replacement the scheduler sends back to the node whose kubelet stopped its pod --------------

TOLERATE_ALL = [{"operator": "Exists"}]      # an empty key with Exists tolerates every taint (toleration.go)


def test_replacement_sent_back_to_a_shutting_down_node_is_rejected() -> None:
    """The replacement tolerates not-ready:NoSchedule, and the other node is full, so the scheduler
    binds it to the node that shuts down; the shutdown manager's Admit rejects every new pod there
    (semantics B9: reason NodeShutdown, "Pod was rejected as the node is shutting down.") and the
    node is off afterwards: the replacement never starts, a shortfall (exit 4), and the workload
    does not come back."""
    from kubectl_evict.plan import exit_code
    plan = plan_for("shutdown", owner("ReplicaSet", "w"), victim("ReplicaSet", tolerations=TOLERATE_ALL),
                    node("n2", cpu="50m"), spare=False)
    assert shortfall_codes(plan) == [("victim", "rejected-by-kubelet")]
    assert "Pod was rejected as the node is shutting down." in plan.shortfall[0].reason
    k = kill_of(plan)
    assert k["target"] == "n1" and "replacementAt" not in k
    [w] = plan.workloads
    assert (w.ready, w.ready_min, w.ready_after) == (1, 0, 0)
    assert exit_code(plan) == 4


def test_replacement_sent_back_to_a_disk_pressure_node_runs_once_the_condition_clears(write_snapshot) -> None:
    """Pressure: the replacement tolerates disk-pressure:NoSchedule and the other node is full, so
    it is scheduled back onto the pressured node; the eviction manager's Admit rejects every
    non-critical pod while DiskPressure is True (semantics A41), which lasts
    evictionPressureTransitionPeriod (5m) after the threshold was last met (A23): the kill at +0s
    frees the disk, so the condition clears, and the replacement runs, at +5m."""
    tol = [{"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"}]
    gi = 1024 ** 3
    summary = {"node": {"nodeName": "n1", "fs": {"availableBytes": gi, "capacityBytes": 100 * gi,
                                                 "inodesFree": 10 ** 6, "inodes": 10 ** 7}},
               "pods": [{"podRef": {"name": "victim", "namespace": "default", "uid": "uid-default-victim"},
                         "containers": [{"name": "app", "rootfs": {"usedBytes": 20 * gi}, "logs": {"usedBytes": 0}}]}]}
    items = [node("n1"), node("n2", cpu="50m"), owner("ReplicaSet", "w"), victim("ReplicaSet", tolerations=tol),
             {"apiVersion": "evictplan/v1alpha1", "kind": "NodeStatsSummary", "metadata": {"name": "n1"},
              "summary": summary}]
    r = run_cli("-f", write_snapshot(*items), "-o", "json", "pressure", "n1", "--eviction-hard", "nodefs.available<10%")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    [k] = [a for a in doc["actions"] if a["type"] == "kill"]
    assert (k["at"], k["target"], k["replacementAt"]) == (0, "n1", 300)
    assert [w["readyAfter"] for w in doc["workloads"]] == [1]


def test_replacement_sent_to_another_pressured_node_asks_that_nodes_kubelet(write_snapshot) -> None:
    """Pressure on two nodes: n1 under MemoryPressure evicts a tolerate-all Burstable pod, n2 under
    DiskPressure that outlasts the plan; n3 is full, and n2 (bigger) scores best. The replacement
    is bound to n2, whose eviction manager Admit rejects every non-critical pod while DiskPressure
    is True (semantics A41), not to be judged by n1's Admit (MemoryPressure alone admits it): a
    rejected-by-kubelet shortfall naming node/n2."""
    gi = 1024 ** 3
    disk = stats("n2", 8 * gi, "other")
    disk["summary"]["node"]["fs"] = {"availableBytes": gi, "capacityBytes": 100 * gi, "inodesFree": 10 ** 6,
                                     "inodes": 10 ** 7}
    disk["summary"]["pods"][0]["containers"][0]["rootfs"] = {"usedBytes": gi}
    kubelet_n2 = {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n2"},
                  "kubeletconfig": {"evictionHard": {"nodefs.available": "10%"}}}
    kubelet_n1 = {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n1"},
                  "kubeletconfig": {"evictionHard": {"memory.available": "500Mi"}}}
    items = [node("n1"), node("n2", cpu="64", memory="256Gi"), node("n3", cpu="50m"), kubelet_n1, kubelet_n2,
             owner("ReplicaSet", "w"), owner("ReplicaSet", "o"), victim("ReplicaSet", tolerations=TOLERATE_ALL),
             pod("other", "n2", owner=("ReplicaSet", "o")), stats("n1", 100 * MI, "victim"), disk]
    r = run_cli("-f", write_snapshot(*items), "-o", "json", "pressure", "n1", "n2")
    doc = json.loads(r.stdout)
    [rec] = [x for x in doc["replacements"] if x["pod"] == "victim"]
    assert (rec["target"], rec["outcome"]) == ("n2", "rejected"), rec
    [entry] = [e for e in doc["shortfall"] if e["pod"] == "victim"]
    assert entry["code"] == "rejected-by-kubelet" and "node/n2 has DiskPressure=True" in entry["reason"], entry


# --- an OrderedReady StatefulSet recreates its ordinals one by one ------------------------------------

def test_ordered_ready_statefulset_recreates_the_next_ordinal_once_the_lower_one_is_ready() -> None:
    """stateful_set_control.go processReplica, monotonic (OrderedReady): both pods are Failed at
    +20s; w-0 is recreated then, and w-1 only once w-0 is Running and Ready (the plan's 30s pod
    startup: +50s); Parallel recreates both at once."""
    sts = owner("StatefulSet", "w", replicas=2)
    pods = [victim("StatefulSet", name="w-0"), victim("StatefulSet", name="w-1")]
    plan = plan_for("shutdown", sts, *pods)
    assert [kill_of(plan, n)["replacementAt"] for n in ("w-0", "w-1")] == [20, 50]
    [w] = plan.workloads
    assert (w.ready_min, w.ready_after, w.levels[-1]) == (0, 2, (80.0, 2))
    plan = plan_for("shutdown", owner("StatefulSet", "w", replicas=2, podManagementPolicy="Parallel"), *pods)
    assert [kill_of(plan, n)["replacementAt"] for n in ("w-0", "w-1")] == [20, 20]


def test_a_zero_second_kill_is_failed_one_second_later() -> None:
    """Spec B7: a 0 grace override is passed to the pod worker, which floors it at 1s (A31), so a
    pod with terminationGracePeriodSeconds 0 killed at +0s is Failed, and replaced, at +1s."""
    p = victim("ReplicaSet")
    p["spec"]["terminationGracePeriodSeconds"] = 0
    plan = plan_for("shutdown", owner("ReplicaSet", "w"), p)
    k = kill_of(plan)
    assert (k["at"], k["gracePeriodSeconds"], k["target"], k["replacementAt"]) == (0, 0, "n2", 1)


def test_non_graceful_ordered_ready_statefulset_recreates_ordinals_in_order(write_snapshot) -> None:
    """shutdown --non-graceful: both pods of an OrderedReady StatefulSet are force-deleted at +0s;
    processReplica creates w-0 first and w-1 only once w-0 is Running and Ready (the plan's 30s pod
    startup), whatever order the nodes are listed in. The real v1.33.3 capture
    fixtures/real-controller/ng-1.json shows the same: data/db-t30-2 was created only after
    db-t30-0's replacement had started."""
    everything = [{"key": "node.kubernetes.io/out-of-service", "operator": "Exists", "effect": "NoExecute",
                   "tolerationSeconds": 0}]
    items = [node("n1", ready="Unknown"), node("n2", ready="Unknown"), node("n3"),
             owner("StatefulSet", "w", replicas=2),
             pod("w-1", "n1", owner=("StatefulSet", "w"), tolerations=everything),
             pod("w-0", "n2", owner=("StatefulSet", "w"), tolerations=everything)]
    r = run_cli("-f", write_snapshot(*items), "-o", "json", "shutdown", "n1", "n2", "--non-graceful")
    assert r.returncode == 0, r.stderr
    deletes = {a["pod"]: a for a in json.loads(r.stdout)["actions"] if a["type"] == "delete"}
    assert (deletes["w-0"]["at"], deletes["w-0"]["target"], deletes["w-0"].get("replacementAt")) == (0, "n3", None)
    assert (deletes["w-1"]["at"], deletes["w-1"]["target"], deletes["w-1"]["replacementAt"]) == (0, "n3", 30)


def test_replacement_tied_between_the_stopped_node_and_another_lands_on_the_other() -> None:
    """A tolerate-all replacement scores the same on the emptied stopped node and on an identical
    empty node: kube-scheduler picks among tied nodes at random (selectHost), and a copy the
    shutting-down kubelet rejects (spec B9) is soon scheduled again, so it ends on the other node."""
    plan = plan_for("shutdown", owner("ReplicaSet", "w"), victim("ReplicaSet", tolerations=TOLERATE_ALL, cpu=None,
                                                                 memory=None))
    k = kill_of(plan)
    assert set(k.get("candidates", ())) >= {"n1", "n2"}, k
    assert (k["target"], k["replacementAt"]) == ("n2", SHUTDOWN_FAILED_AT) and not plan.shortfall


# A tolerate-all replacement tied between the emptied pressured node and an identical empty one:
# under MemoryPressure alone the eviction manager's Admit lets in every pod that is not BestEffort,
# and a BestEffort one that tolerates node.kubernetes.io/memory-pressure:NoSchedule (semantics A41,
# eviction_manager.go Admit), so whichever tied node kube-scheduler picks (selectHost, at random)
# runs it at once: the plan keeps the scheduler model's pick and never says that kubelet turns it away.
@pytest.mark.parametrize("requests", [{"cpu": "100m", "memory": "128Mi"}, {"cpu": None, "memory": None}],
                         ids=["burstable", "besteffort"])
def test_replacement_tied_with_a_memory_pressure_node_that_admits_it_stays_where_scheduled(requests: dict) -> None:
    plan = plan_for("pressure", owner("ReplicaSet", "w"), victim("ReplicaSet", tolerations=TOLERATE_ALL, **requests))
    k = kill_of(plan)
    assert set(k.get("candidates", ())) >= {"n1", "n2"}, k
    assert k["target"] in ("n1", "n2") and k["replacementAt"] == PRESSURE_FAILED_AT and not plan.shortfall
    [rec] = plan_document(plan)["replacements"]
    assert rec["outcome"] == "placed" and "turns away" not in rec["reason"], rec["reason"]


@pytest.mark.parametrize("job, expected", [
    # job_controller.go syncJob: failed 1 > backoffLimit 0 -> BackoffLimitExceeded, nothing replaces it
    ({"backoffLimit": 0}, (None, None, "job-failed")),
    # counted (1 of 6); manageJob waits DefaultJobPodFailureBackOff 10s after the failure at +0s
    ({}, ("n2", 10, None)),
    # podFailurePolicy Ignore on DisruptionTarget (the taint-eviction controller's, reason
    # DeletionByTaintManager): not counted, but newBackoffRecord still counts it: 10s
    ({"backoffLimit": 0, "podFailurePolicy": {"rules": [{"action": "Ignore",
                                                          "onPodConditions": [{"type": "DisruptionTarget"}]}]}},
     ("n2", 10, None)),
], ids=["backoff-limit-0", "default", "ignore-disruption"])
def test_non_graceful_job_pod_follows_the_job_controller(write_snapshot, job: Dict[str, Any], expected: tuple) -> None:
    """shutdown --non-graceful: the taint-eviction controller deletes the Job pod at +0s and pod GC
    marks it Failed before force-deleting it (gc_controller.go markFailedAndDeletePod), so the Job
    controller counts a failure as for a pod the kubelet stops; `controller --fail` gives the same
    answer for its deletions."""
    tol = [{"key": "node.kubernetes.io/out-of-service", "operator": "Exists", "effect": "NoExecute",
            "tolerationSeconds": 0}]
    items = [node("n1", ready="Unknown"), node("n2"), owner("Job", "w", **job), pod("w-abc", "n1", owner=("Job", "w"),
                                                                                   tolerations=tol)]
    r = run_cli("-f", write_snapshot(*items), "-o", "json", "shutdown", "n1", "--non-graceful")
    assert r.returncode in (0, 4), r.stderr
    doc = json.loads(r.stdout)
    [d] = [a for a in doc["actions"] if a["type"] == "delete"]
    target, delay, code = expected
    assert (d["at"], d["target"], d.get("replacementAt")) == (0, target, delay)
    assert [(e["pod"], e["code"]) for e in doc["shortfall"]] == ([("w-abc", code)] if code else [])


@pytest.mark.parametrize("policy,replaced_at", [("TerminatingOrFailed", None), ("Failed", 10)])
def test_non_graceful_terminating_job_pod_with_replace_failed_policy(write_snapshot, policy: str,
                                                                     replaced_at: Optional[int]) -> None:
    """shutdown --non-graceful: a Job pod already Terminating on the down node. TerminatingOrFailed
    counted it failed at its deletion (isPodFailed): its replacement exists already. Failed
    (onlyReplaceFailedPods) waits until pod GC marks it Failed and force-deletes it at +0s
    (gc_controller.go markFailedAndDeletePod), then DefaultJobPodFailureBackOff 10s."""
    p = pod("w-abc", "n1", owner=("Job", "w"))
    p["metadata"]["deletionTimestamp"] = "2026-11-21T11:59:00Z"
    items = [node("n1", ready="Unknown"), node("n2"), owner("Job", "w", backoffLimit=6, podReplacementPolicy=policy), p]
    r = run_cli("-f", write_snapshot(*items), "-o", "json", "shutdown", "n1", "--non-graceful")
    assert r.returncode == 0, r.stderr
    [d] = [a for a in json.loads(r.stdout)["actions"] if a["type"] == "delete"]
    assert d["at"] == 0 and d.get("replacementAt") == replaced_at
    assert d.get("target") == (None if replaced_at is None else "n2")


def test_non_graceful_statefulset_waits_for_a_lower_ordinal_that_is_not_ready(write_snapshot) -> None:
    """stateful_set_control.go processReplica (OrderedReady, monotonic): w-1, force-deleted from the
    out-of-service node, is not created again while w-0 (on a healthy node) is not Running and
    Ready: an ordered-ready shortfall, as for a pod the kubelet stops; Parallel recreates it."""
    items = [node("n1", ready="Unknown"), node("n2"), owner("StatefulSet", "w", replicas=2),
             pod("w-0", "n2", owner=("StatefulSet", "w"), ready=False), pod("w-1", "n1", owner=("StatefulSet", "w"))]
    r = run_cli("-f", write_snapshot(*items), "-o", "json", "shutdown", "n1", "--non-graceful")
    doc = json.loads(r.stdout)
    assert r.returncode == 4, r.stderr
    [d] = [a for a in doc["actions"] if a["type"] == "delete"]
    assert d["target"] is None
    assert [(e["pod"], e["code"]) for e in doc["shortfall"]] == [("w-1", "ordered-ready")]
    items[2] = owner("StatefulSet", "w", replicas=2, podManagementPolicy="Parallel")
    doc = json.loads(run_cli("-f", write_snapshot(*items), "-o", "json", "shutdown", "n1", "--non-graceful").stdout)
    assert [a["target"] for a in doc["actions"] if a["type"] == "delete"] == ["n2"] and not doc["shortfall"]


def test_shutdown_without_graceful_shutdown_applies_the_job_rules_to_deleted_job_pods(write_snapshot) -> None:
    """A node whose kubelet has no graceful shutdown: its pods stay Running in the API until the
    taint-eviction controller deletes them (unreachable, +50s grace + 300s tolerations). For a Job
    pod the Job controller's rules apply as in `controller --fail` (job_controller.go syncJob,
    isPodFailed: a terminating pod counts as failed under podReplacementPolicy TerminatingOrFailed):
    backoffLimit 0 fails the Job; a podFailurePolicy forces podReplacementPolicy Failed, which
    waits for a Failed phase the dead kubelet never reports."""
    kc = {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n1"},
          "kubeletconfig": {}}
    policy = {"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
    items = [node("n1"), node("n2"), kc, owner("Job", "j", backoffLimit=0), owner("Job", "k"),
             owner("Job", "f", podFailurePolicy=policy),
             pod("j-abc", "n1", owner=("Job", "j")), pod("k-abc", "n1", owner=("Job", "k")),
             pod("f-abc", "n1", owner=("Job", "f"))]
    doc = json.loads(run_cli("-f", write_snapshot(*items), "-o", "json", "shutdown", "n1").stdout)
    deletes = {a["pod"]: a for a in doc["actions"] if a["type"] == "delete"}
    assert {p: (a["at"], a["target"]) for p, a in deletes.items()} == {
        "j-abc": (350, None), "k-abc": (350, "n2"), "f-abc": (350, None)}
    assert sorted((e["pod"], e["code"]) for e in doc["shortfall"]) == [("f-abc", "waits-for-old-pod"),
                                                                       ("j-abc", "job-failed")]


# A pod already Terminating on a node without graceful shutdown: the node goes down, its kubelet
# never confirms the deletion, so the pod object stays. (owner objects, pod kind, shortfall code)
TERMINATING_ON_A_DEAD_NODE = [
    # FilterActivePods: the ReplicaSet replaced it when its deletion began
    ([owner("ReplicaSet", "w")], "ReplicaSet", None),
    # isPodFailed (TerminatingOrFailed): counted failed, and replaced, at its deletion
    ([owner("Job", "w", backoffLimit=6)], "Job", None),
    # onlyReplaceFailedPods: waits for a Failed phase the dead kubelet never reports
    ([owner("Job", "w", backoffLimit=6, podReplacementPolicy="Failed")], "Job", "waits-for-old-pod"),
    # stateful_set_control.go: the same name only once the old pod object is gone
    ([owner("StatefulSet", "w")], "StatefulSet", "waits-for-old-pod"),
]


@pytest.mark.parametrize("owners,kind,code", TERMINATING_ON_A_DEAD_NODE,
                         ids=["replicaset", "job", "job-replace-failed", "statefulset"])
def test_a_terminating_pod_on_a_node_without_graceful_shutdown(write_snapshot, owners: list, kind: str,
                                                               code: Optional[str]) -> None:
    kc = {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n1"},
          "kubeletconfig": {}}
    p = pod("w-0", "n1", owner=(kind, "w"))
    p["metadata"]["deletionTimestamp"] = "2026-11-21T11:59:00Z"
    doc = json.loads(run_cli("-f", write_snapshot(node("n1"), node("n2"), kc, *owners, p), "-o", "json",
                             "shutdown", "n1").stdout)
    assert [(e["pod"], e["code"]) for e in doc["shortfall"]] == ([("w-0", code)] if code else [])
    [d] = [a for a in doc["actions"] if a["type"] == "delete"]
    assert ("already terminating" in d["reason"]) is (code is None), d["reason"]


# A pressure replacement that fits nowhere while its node carries the pressure condition's
# NoSchedule taint stays a `no-node-fits` shortfall (exit 4: it is Pending until then), but once
# the node lifecycle controller removes the taint, kube-scheduler retries it (a
# node taint change requeues pods TaintToleration rejected: tainttoleration.go EventsToRegister) and
# the kubelet admits it (no pressure condition left): it lands back on n1, which the kill freed. The
# plan says so, and when. Where it would not fit n1 even untainted (its request exceeds n1's cpu),
# nothing is said. When: memory.available is met at the +0s observation only (the kill's usage is
# gone by the +10s one), and MemoryPressure stays while now - lastObserved < 5m
# (evictionPressureTransitionPeriod; semantics.md 23, nodeConditionsObservedSince): False at the
# +5m0s synchronize, when the plan untaints n1.
# (victim's cpu request; text expected in the shortfall reason, or None)
BACK_ON_N1 = "once node/n1's node.kubernetes.io/memory-pressure taint is removed at +5m, it lands back on n1 " \
             "if the pressure does not return"


@pytest.mark.parametrize("cpu, back", [("100m", BACK_ON_N1), ("5", None)])
def test_a_pressure_replacement_with_nowhere_to_go_lands_back_once_the_taint_goes(cpu: str,
                                                                                   back: Optional[str]) -> None:
    full = node("n2", cpu="50m")
    plan = plan_for("pressure", owner("ReplicaSet", "w"), victim("ReplicaSet", cpu=cpu), full, spare=False)
    [entry] = plan.shortfall
    assert entry.code == "no-node-fits"
    [untaint] = [a for a in plan.actions if a.type == "untaint" and a.node == "n1"]
    assert untaint.at == 300
    if back is None:
        assert "lands back" not in entry.reason
    else:
        assert back in entry.reason
        [rep] = [r for r in plan_document(plan)["replacements"] if r["pod"] == "victim"]
        assert back in rep["reason"]
    from kubectl_evict.plan import exit_code
    assert exit_code(plan) == 4


@pytest.mark.parametrize("mode", ["shutdown", "pressure"])
def test_a_replacement_with_nowhere_to_go_does_not_stop_the_next_pods_replacement(mode: str) -> None:
    """Two pods stopped on n1: `big` (priority 1000, placed first) fits no node; `web-1` (a
    ReplicaSet pod whose name ends like a StatefulSet ordinal) lands on n2. The first outcome must
    not leak into the second: the plan used to stop with an internal error here (a 150,000-pod
    pressure plan did). Upstream each replacement is its own scheduling cycle."""
    big = victim("ReplicaSet", "big", cpu="64")
    big["spec"]["priority"] = 1000
    small = victim("ReplicaSet", "web-1", cpu="10m")
    plan = plan_for(mode, owner("ReplicaSet", "w", replicas=2), big, small,
                    stats("n1", 100 * MI, "big") if mode == "pressure" else node("n3", cpu="50m"))
    outcome = {r["pod"]: (r["outcome"], r.get("target")) for r in plan_document(plan)["replacements"]}
    assert outcome.get("big", ("fits-nowhere", None))[0] == "fits-nowhere"
    assert outcome["web-1"][1] == "n2", outcome
