"""Data-driven port of graceful_shutdown.json (kubelet nodeshutdown manager + kubelet config
validation), checked both at the function level and through a whole `shutdown` plan."""

from __future__ import annotations

import json
from typing import Any, Dict, List

import pytest

from kubectl_evict.errors import InputError
from kubectl_evict.rules.shutdown import (Group, ShutdownConfig, ShutdownSettings, config_from_kubelet, effective_groups,
                                          grace_override, group_by_priority, logind_check, migrate_config,
                                          parse_by_priority, period_requested, plan_shutdown, shutdown_pod_status,
                                          validate)
from kubectl_evict.source.freeze import freeze
from kubectl_evict.timeutil import parse_duration, parse_time

from conftest import VECTORS
DATA = json.loads((VECTORS / "graceful_shutdown.json").read_text())["vectors"]
NOW = parse_time("2026-11-21T12:00:00Z")


def _cases(pred: Any) -> List[Any]:
    return [pytest.param(v, id=v["source"].split(" ", 1)[1]) for v in DATA if pred(v)]


def _groups(items: Any) -> List[Group]:
    return list(parse_by_priority(items, "vector"))


def _pod_name(p: Dict[str, Any]) -> str:
    return p["metadata"]["name"]


def test_every_vector_is_ported() -> None:
    kinds = [("shutdownGracePeriodByPodPriority" in v["expected"]) + 2 * ("groups" in v["expected"])
             + 4 * ("gracePeriodOverrideByPod" in v["expected"]) + 8 * ("validationError" in v["expected"])
             for v in DATA]
    assert all(k in (1, 2, 4, 8) for k in kinds) and len(DATA) == 19


@pytest.mark.parametrize("v", _cases(lambda v: "shutdownGracePeriodByPodPriority" in v["expected"]))
def test_migrate_config(v: Dict[str, Any]) -> None:
    got = migrate_config(parse_duration(v["input"]["shutdownGracePeriod"]),
                         parse_duration(v["input"]["shutdownGracePeriodCriticalPods"]))
    want = v["expected"]["shutdownGracePeriodByPodPriority"]
    assert (None if got is None else [{"priority": g.priority, "shutdownGracePeriodSeconds": g.seconds} for g in got]) == want


@pytest.mark.parametrize("v", _cases(lambda v: "groups" in v["expected"]))
def test_group_by_priority(v: Dict[str, Any]) -> None:
    groups = sorted(_groups(v["input"]["shutdownGracePeriodByPodPriority"]), key=lambda g: g.priority)
    pods = v["input"]["pods"]
    got = group_by_priority(groups, [p["spec"].get("priority") for p in pods])
    want = v["expected"]["groups"]
    assert [{"priority": g.priority, "shutdownGracePeriodSeconds": g.seconds, "pods": [_pod_name(pods[i]) for i in idx]}
            for g, idx in zip(groups, got)] == want


def _snapshot(pods: List[Dict[str, Any]], kubeletconfig: Dict[str, Any]) -> Any:
    docs = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
             "status": {"conditions": [{"type": "Ready", "status": "True"}],
                        "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}},
            {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n1"},
             "kubeletconfig": kubeletconfig}]
    for p in pods:
        p = json.loads(json.dumps(p))
        p["metadata"].setdefault("namespace", "default")
        p["spec"]["nodeName"] = "n1"
        p["spec"]["tolerations"] = [{"operator": "Exists"}]      # keep the controllers out of this test
        p.setdefault("status", {}).setdefault("phase", "Running")
        docs.append(p)
    return freeze([("vector", "", d) for d in docs])


@pytest.mark.parametrize("v", _cases(lambda v: "groups" in v["expected"]))
def test_group_by_priority_in_a_plan(v: Dict[str, Any]) -> None:
    """Groups run lowest priority first, one after the other; each pod starts with its group, and
    a group ends once its pods have stopped or its seconds have passed, whichever is first
    (nodeshutdown_manager.go killPods: wg.Wait against groupTerminationWaitDuration; a pod
    stops at the latest after min(its terminationGracePeriodSeconds, API default 30, the
    group's seconds), floored at 1s by the pod worker)."""
    snap = _snapshot(v["input"]["pods"], {"shutdownGracePeriodByPodPriority": v["input"]["shutdownGracePeriodByPodPriority"]})
    plan = plan_shutdown(snap, ShutdownSettings(nodes=("n1",)), NOW)
    kills = {a.pod: a.at for a in plan.actions if a.type == "kill"}
    start = 0
    for g in v["expected"]["groups"]:
        for name in g["pods"]:
            assert kills[name] == start, name
        if g["pods"]:
            secs = g["shutdownGracePeriodSeconds"]
            tgps = {_pod_name(p): p["spec"].get("terminationGracePeriodSeconds", 30) for p in v["input"]["pods"]}
            start += min(secs, max(max(min(tgps[name], secs), 1) for name in g["pods"]))


@pytest.mark.parametrize("v", _cases(lambda v: "gracePeriodOverrideByPod" in v["expected"]))
def test_grace_override_and_logind(v: Dict[str, Any]) -> None:
    inp, exp = v["input"], v["expected"]
    cfg = ShutdownConfig(grace=parse_duration(inp["shutdownGracePeriod"]),
                         critical=parse_duration(inp["shutdownGracePeriodCriticalPods"]))
    groups = effective_groups(cfg)
    assert groups is not None
    if "logindInhibitDelayMaxSec" in inp:
        did, err = logind_check(period_requested(groups), parse_duration(inp["logindInhibitDelayMaxSec"]),
                                parse_duration(inp["logindInhibitDelayAfterOverride"]))
        assert did == exp["didOverrideInhibitDelay"]
        if exp["startError"] is None:
            assert err is None
        else:
            assert err is not None and exp["startError"] in err
    if exp["gracePeriodOverrideByPod"] is None:
        return
    pods = inp["pods"]
    grouped = group_by_priority(groups, [p["spec"].get("priority") for p in pods])
    got = {}
    for g, idx in zip(groups, grouped):
        for i in idx:
            got[_pod_name(pods[i])] = grace_override(g.seconds, pods[i]["spec"].get("terminationGracePeriodSeconds"))
    assert got == exp["gracePeriodOverrideByPod"]


@pytest.mark.parametrize("v", _cases(lambda v: v["expected"].get("gracePeriodOverrideByPod")))
def test_grace_override_in_a_plan(v: Dict[str, Any]) -> None:
    """The same numbers as the kill actions' gracePeriodSeconds. The kubelet does not stop pods
    that are already terminal, so those are skipped rather than killed."""
    inp, exp = v["input"], v["expected"]
    snap = _snapshot(inp["pods"], {"shutdownGracePeriod": inp["shutdownGracePeriod"],
                                   "shutdownGracePeriodCriticalPods": inp["shutdownGracePeriodCriticalPods"]})
    inhibit = parse_duration(inp.get("logindInhibitDelayMaxSec", "1h"))
    plan = plan_shutdown(snap, ShutdownSettings(nodes=("n1",), inhibit_delay_max=inhibit), NOW)
    kills = {a.pod: a.grace_period_seconds for a in plan.actions if a.type == "kill"}
    terminal = {_pod_name(p) for p in inp["pods"] if p.get("status", {}).get("phase") in ("Succeeded", "Failed")}
    assert kills == {k: g for k, g in exp["gracePeriodOverrideByPod"].items() if k not in terminal}
    assert {e.pod for e in plan.skipped} == terminal
    assert any("InhibitDelayMaxSec" in w for w in plan.warnings) == exp.get("didOverrideInhibitDelay", False)


@pytest.mark.parametrize("v", _cases(lambda v: "podStatuses" in v["expected"]))
def test_pod_status_after_shutdown(v: Dict[str, Any]) -> None:
    phases = {_pod_name(p): p["status"]["phase"] for p in v["input"]["pods"]}
    assert {n: shutdown_pod_status(ph) for n, ph in phases.items()} == v["expected"]["podStatuses"]


@pytest.mark.parametrize("v", _cases(lambda v: "validationError" in v["expected"]))
def test_validation(v: Dict[str, Any]) -> None:
    want = v["expected"]["validationError"]
    cfg = config_from_kubelet(v["input"]["kubeletConfiguration"], "kubelet.yaml")
    with pytest.raises(InputError) as e:
        validate(cfg)
    msg = e.value.problem
    if "wording abbreviated" in want:
        # upstream's exact text for critical > total (validation.go; a metav1.Duration prints in
        # braces: validation_test.go expects "shutdownGracePeriodCriticalPods {2s} must be <=
        # shutdownGracePeriod {1s}")
        assert msg == "invalid configuration: shutdownGracePeriodCriticalPods {20s} must be <= shutdownGracePeriod {10s}"
    else:
        assert msg == want.split(" (")[0].replace(" 500ms ", " {500ms} ")
    assert str(e.value).startswith("kubelet.yaml: ")


@pytest.mark.parametrize("v", _cases(lambda v: v["expected"].get("startError")))
def test_logind_start_error_is_in_the_warning(v: Dict[str, Any]) -> None:
    """When logind keeps a shorter InhibitDelayMaxSec, the plan quotes the kubelet's start error."""
    inp = v["input"]
    snap = _snapshot(inp["pods"], {"shutdownGracePeriod": inp["shutdownGracePeriod"],
                                   "shutdownGracePeriodCriticalPods": inp["shutdownGracePeriodCriticalPods"]})
    plan = plan_shutdown(snap, ShutdownSettings(nodes=("n1",), inhibit_delay_max=parse_duration(inp["logindInhibitDelayMaxSec"])), NOW)
    assert any(v["expected"]["startError"] in w for w in plan.warnings)
