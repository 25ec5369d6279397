"""`shutdown` plans: the kubelet's phases, the node side, disabled shutdown, settings
precedence, NotReady StatefulSet pods and the non-graceful out-of-service plan.

Expected numbers come from upstream semantics (spec sections B, C, D), not from our output."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import pytest

from kubectl_evict.errors import InputError
from kubectl_evict.render import plan_document, to_json
from kubectl_evict.rules.shutdown import Group, ShutdownConfig, ShutdownSettings, plan_shutdown
from kubectl_evict.source.freeze import freeze
from kubectl_evict.timeutil import parse_time

NOW = parse_time("2026-11-21T12:00:00Z")
DEFAULT_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
]


def node(name: str, ready: str = "True", zone: str = "z1", taints: Optional[list] = None) -> Dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"topology.kubernetes.io/zone": zone}},
            "spec": {"taints": taints or []},
            "status": {"conditions": [{"type": "Ready", "status": ready,
                                       "lastTransitionTime": "2026-11-21T11:50:00Z"}],
                       "allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}}


def pod(name: str, on: str, priority: int = 0, tgps: int = 30, owner: Optional[str] = None, ns: str = "app",
        tolerations: Optional[list] = None, phase: str = "Running", deleting: Optional[str] = None) -> Dict[str, Any]:
    meta: Dict[str, Any] = {"name": name, "namespace": ns, "uid": "uid-" + name}
    if owner:
        kind, oname = owner.split("/")
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": kind, "name": oname, "uid": "uid-" + oname,
                                    "controller": True}]
    if deleting:
        meta["deletionTimestamp"] = deleting
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": on, "priority": priority, "terminationGracePeriodSeconds": tgps,
                     "tolerations": DEFAULT_TOLERATIONS if tolerations is None else tolerations,
                     "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]},
            "status": {"phase": phase}}


def kubelet(name: str, **cfg: Any) -> Dict[str, Any]:
    return {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": name},
            "kubeletconfig": cfg}


def snap(*docs: Dict[str, Any]) -> Any:
    """The objects as a v1.33 cluster (the expected timings here are v1.33's)."""
    s = freeze([("test", "", d) for d in docs])
    return s.set(info=s.info.set(server_version="v1.33.2"))


def kills(plan: Any) -> Dict[str, tuple]:
    return {a.pod: (a.at, a.grace_period_seconds) for a in plan.actions if a.type == "kill"}


def taints(plan: Any) -> List[tuple]:
    return [(a.node, a.key, a.effect, a.at) for a in plan.actions if a.type == "taint"]


# --- the two-phase example: 30s total, 10s for critical pods ----------------------------------------

TWO_PHASE = snap(
    node("n1"), kubelet("n1", shutdownGracePeriod="30s", shutdownGracePeriodCriticalPods="10s"),
    pod("web", "n1", tgps=30), pod("quick", "n1", tgps=2), pod("slow", "n1", tgps=1000),
    pod("dns", "n1", priority=2000000000, tgps=30), pod("cni", "n1", priority=2000001000, tgps=5),
    pod("done", "n1", phase="Succeeded"),
)


def test_two_phase_regular_pods_first_then_critical() -> None:
    plan = plan_shutdown(TWO_PHASE, ShutdownSettings(nodes=("n1",)), NOW)
    assert kills(plan) == {"web": (0, 20), "quick": (0, 2), "slow": (0, 20), "dns": (20, 10), "cni": (20, 5)}
    assert [e.pod for e in plan.skipped] == ["done"]          # terminal pods are not active pods


@pytest.mark.parametrize("pod_name,asks,gets", [("web", 30, 20), ("slow", 1000, 20), ("dns", 30, 10)])
def test_warning_names_both_numbers(pod_name: str, asks: int, gets: int) -> None:
    plan = plan_shutdown(TWO_PHASE, ShutdownSettings(nodes=("n1",)), NOW)
    w = [w for w in plan.warnings if "app/%s " % pod_name in w]
    assert len(w) == 1 and "%ds" % asks in w[0] and "gives %ds" % gets in w[0]


def test_pods_within_their_phase_get_no_warning() -> None:
    plan = plan_shutdown(TWO_PHASE, ShutdownSettings(nodes=("n1",)), NOW)
    assert not [w for w in plan.warnings if "app/quick " in w or "app/cni " in w]


def test_summary_and_json_report() -> None:
    plan = plan_shutdown(TWO_PHASE, ShutdownSettings(nodes=("n1",)), NOW)
    assert any("takes up to 30s in 2 phases" in n for n in plan.notes)
    rep = plan_document(plan)["shutdown"][0]
    assert rep["totalSeconds"] == 30 and rep["periodRequestedSeconds"] == 30
    assert [(p["priority"], p["start"]) for p in rep["phases"]] == [(0, 0), (2000000000, 20)]


# --- shutdownGracePeriodByPodPriority ----------------------------------------------------------------

BY_PRIORITY = [{"priority": 100000, "shutdownGracePeriodSeconds": 10},
               {"priority": 10000, "shutdownGracePeriodSeconds": 180},
               {"priority": 1000, "shutdownGracePeriodSeconds": 120},
               {"priority": 0, "shutdownGracePeriodSeconds": 60}]
BANDS = snap(
    node("n1"), kubelet("n1", shutdownGracePeriodByPodPriority=BY_PRIORITY),
    pod("low", "n1", priority=0, tgps=90), pod("below", "n1", priority=-5, tgps=30),
    pod("mid", "n1", priority=5000, tgps=300), pod("top", "n1", priority=2000000000, tgps=30),
    pod("edge", "n1", priority=100000, tgps=3),
)


def test_by_priority_bands_skip_the_empty_one() -> None:
    plan = plan_shutdown(BANDS, ShutdownSettings(nodes=("n1",), inhibit_delay_max=600), NOW)
    # 0-band 0..60s, 1000-band 60..180s, 10000-band empty (no wait), 100000-band from 180s
    assert kills(plan) == {"low": (0, 60), "below": (0, 30), "mid": (60, 120), "top": (180, 10), "edge": (180, 3)}
    rep = plan_document(plan)["shutdown"][0]
    assert rep["totalSeconds"] == 190
    assert rep["periodRequestedSeconds"] == 370          # empty groups still count for logind
    assert [p["start"] for p in rep["phases"]] == [0, 60, None, 180]


# The kubelet accepts repeated priorities (validation has no uniqueness check). groupByPriority
# (nodeshutdown_manager_linux.go) takes sort.Search's first entry whose priority >= the pod's and
# steps back one only when that entry's priority is higher: a pod of exactly the repeated priority
# goes to the run's first entry, one between it and the next priority to the run's last entry, and
# the entries in between get nothing. (entries as (priority, seconds), pod -> (start, grace), phase texts)
REPEATED = [
    ([(100, 10), (100, 20)], {"p50": (0, 10), "p100": (0, 10), "p150": (10, 20)},
     ["priority <= 100", "priority > 100"]),
    ([(0, 5), (100, 10), (100, 20), (100, 40), (200, 7)],
     {"p50": (0, 5), "p100": (5, 10), "p150": (15, 40), "p250": (55, 7)},
     ["priority < 100", "priority 100", "no priority (an earlier entry has the same priority 100)",
      "priority 101..199", "priority >= 200"]),
]


@pytest.mark.parametrize("entries, want, texts", REPEATED)
def test_repeated_priorities_follow_group_by_priority(entries: list, want: Dict[str, tuple], texts: List[str]) -> None:
    from kubectl_evict.rules.shutdown import _priority_text
    cfg = [{"priority": p, "shutdownGracePeriodSeconds": s} for p, s in entries]
    pods = [pod(name, "n1", priority=int(name[1:]), tgps=60) for name in want]
    plan = plan_shutdown(snap(node("n1"), kubelet("n1", shutdownGracePeriodByPodPriority=cfg), *pods),
                         ShutdownSettings(nodes=("n1",), inhibit_delay_max=600), NOW)
    assert kills(plan) == want
    groups = [Group(p, s) for p, s in entries]
    assert [_priority_text(groups, i) for i in range(len(groups))] == texts


# killPods (pkg/kubelet/nodeshutdown/nodeshutdown_manager.go) waits in a group until every pod of it
# has been killed (killPodNow blocks until the pod worker is done, at the latest at the end of the
# pod's grace, floored at 1s) or the group's seconds have passed, whichever comes first
# (`select { case <-doneCh: ... case <-timer.C(): ... }`): the next group then starts at once.
# (kubelet config, pods as (name, priority, terminationGracePeriodSeconds),
#  pod -> (kill at, grace), totalSeconds, periodRequestedSeconds)
PHASE_ENDS = [
    # phase 1 (20s) holds one pod with 2s: phase 2 starts at +2s, not +20s
    ({"shutdownGracePeriod": "30s", "shutdownGracePeriodCriticalPods": "10s"},
     [("web", 0, 2), ("dns", 2000000000, 30)], {"web": (0, 2), "dns": (2, 10)}, 12, 30),
    # a 0s grace is floored at 1s by the pod worker: phase 2 starts at +1s
    ({"shutdownGracePeriod": "30s", "shutdownGracePeriodCriticalPods": "10s"},
     [("web", 0, 0), ("dns", 2000000000, 30)], {"web": (0, 0), "dns": (1, 10)}, 11, 30),
    # total = critical: the regular group has 0s, its timer fires at once, so phase 2 starts at +0s
    ({"shutdownGracePeriod": "5s", "shutdownGracePeriodCriticalPods": "5s"},
     [("web", 0, 30), ("dns", 2000000000, 30)], {"web": (0, 0), "dns": (0, 5)}, 5, 5),
    # the longest pod of the group decides (60s, capped by the group's 60s); the 1000 band then
    # ends with its 10s pod
    ({"shutdownGracePeriodByPodPriority": [{"priority": 0, "shutdownGracePeriodSeconds": 60},
                                           {"priority": 1000, "shutdownGracePeriodSeconds": 120},
                                           {"priority": 5000, "shutdownGracePeriodSeconds": 30}]},
     [("a", 0, 90), ("b", 0, 5), ("c", 1000, 10), ("d", 5000, 30)],
     {"a": (0, 60), "b": (0, 5), "c": (60, 10), "d": (70, 30)}, 100, 210),
]


@pytest.mark.parametrize("cfg,pods,want,total,requested", PHASE_ENDS)
def test_a_phase_ends_when_its_pods_have_stopped(cfg: Dict[str, Any], pods: List[tuple], want: Dict[str, tuple],
                                                 total: int, requested: int) -> None:
    s = snap(node("n1"), kubelet("n1", **cfg), *[pod(n, "n1", priority=pr, tgps=t) for n, pr, t in pods])
    plan = plan_shutdown(s, ShutdownSettings(nodes=("n1",), inhibit_delay_max=600), NOW)
    assert kills(plan) == want
    rep = plan_document(plan)["shutdown"][0]
    assert rep["totalSeconds"] == total and rep["periodRequestedSeconds"] == requested


def test_logind_warning_when_inhibit_delay_is_shorter() -> None:
    plan = plan_shutdown(BANDS, ShutdownSettings(nodes=("n1",)), NOW)      # default 30s
    w = [w for w in plan.warnings if "InhibitDelayMaxSec" in w]
    assert len(w) == 1 and "30s" in w[0] and "6m10s" in w[0]
    assert not [w for w in plan_shutdown(BANDS, ShutdownSettings(nodes=("n1",), inhibit_delay_max=370), NOW).warnings
                if "InhibitDelayMaxSec" in w]


# --- the node side -----------------------------------------------------------------------------------


def test_not_ready_taints_and_taint_manager_order() -> None:
    """NotReady at 0: NoSchedule at once, NoExecute one monitor period later; a pod whose phase
    starts after its 300s toleration ran out is deleted by the controller first."""
    s = snap(node("n1"), node("n2"), node("n3"), kubelet("n1", shutdownGracePeriodByPodPriority=BY_PRIORITY),
             # each band has a pod that asks for at least the band's seconds, so every band runs its whole
             # period (killPods moves on when its pods have stopped or its seconds have passed)
             pod("early", "n1", priority=0, tgps=60), pod("late", "n1", priority=100000, tgps=10),
             pod("b1000", "n1", priority=1000, tgps=120), pod("b10000", "n1", priority=10000, tgps=200),
             pod("forever", "n1", tolerations=[{"operator": "Exists"}]),
             # (a pod with no toleration at all gets DefaultTolerationSeconds' 300s, as the controller rule
             # assumes: this one tolerates not-ready for 0s and goes as soon as the NoExecute taint comes)
             pod("raw", "n1", tolerations=[{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                                            "effect": "NoExecute", "tolerationSeconds": 0}]))
    plan = plan_shutdown(s, ShutdownSettings(nodes=("n1",), inhibit_delay_max=600), NOW)
    assert taints(plan) == [("n1", "node.kubernetes.io/not-ready", "NoSchedule", 0),
                            ("n1", "node.kubernetes.io/not-ready", "NoExecute", 5)]
    deletes = {a.pod: a.at for a in plan.actions if a.type == "delete"}
    # every band has pods: "late" (100000 band) starts at 60+120+180 = 360s > 5+300; "b10000" is
    # killed at 180s with 180s of grace, still stopping at 305s
    assert deletes == {"late": 305, "b10000": 305, "raw": 5}
    assert kills(plan)["late"] == (360, 10)
    assert all(a.rule == "controller" for a in plan.actions if a.type in ("taint", "delete"))


def test_a_pod_killed_and_deleted_goes_once_in_its_workload() -> None:
    """A pod the taint-eviction controller deletes while the kubelet still stops it has two
    actions (kill, delete) but is one replica: the ReplicaSet keeps its pod on n2 throughout."""
    t10 = [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10},
           DEFAULT_TOLERATIONS[1]]
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web", "namespace": "app", "uid": "uid-web"},
          "spec": {"replicas": 2, "selector": {"matchLabels": {"a": "web"}}}}
    pods = [pod("web-1", "n1", owner="ReplicaSet/web", tgps=60, tolerations=t10),
            pod("web-2", "n2", owner="ReplicaSet/web", tolerations=t10)]
    for p in pods:
        p["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    s = snap(node("n1"), node("n2"), kubelet("n1", shutdownGracePeriod="90s", shutdownGracePeriodCriticalPods="10s"),
             rs, *pods)
    plan = plan_shutdown(s, ShutdownSettings(nodes=("n1",), inhibit_delay_max=600), NOW)
    assert [(a.type, a.at) for a in plan.actions if a.pod == "web-1"] == [("kill", 0), ("delete", 15)]
    (wl,) = plan.workloads
    assert (wl.ready, wl.ready_min, wl.ready_after) == (2, 1, 2)
    assert not any(w.startswith("outage") for w in plan.warnings)


def test_nodes_of_one_zone_are_tainted_at_the_eviction_rate() -> None:
    s = snap(*[node("n%d" % i) for i in range(1, 6)], node("m1", zone="z2"),
             *[kubelet(n, shutdownGracePeriod="20s") for n in ("n1", "n2", "m1")])
    plan = plan_shutdown(s, ShutdownSettings(nodes=("n2", "n1", "m1")), NOW)
    noexec = {n: at for n, _, eff, at in taints(plan) if eff == "NoExecute"}
    assert noexec == {"n1": 5, "n2": 15, "m1": 5}


def test_small_zone_in_partial_disruption_gets_no_noexecute_taint() -> None:
    s = snap(*[node("n%d" % i) for i in range(1, 6)], node("m1", zone="z2"),
             *[kubelet("n%d" % i, shutdownGracePeriod="20s") for i in range(1, 4)])
    plan = plan_shutdown(s, ShutdownSettings(nodes=("n1", "n2", "n3")), NOW)   # 3 of 5 >= 0.55
    assert [t for t in taints(plan) if t[2] == "NoExecute"] == []
    assert any("PartialDisruption" in n for n in plan.notes)


def test_disabled_shutdown_kills_everything_at_zero() -> None:
    s = snap(node("n1"), node("n2"), kubelet("n1", shutdownGracePeriod="0s", shutdownGracePeriodCriticalPods="0s"),
             pod("a", "n1", tgps=60), pod("b", "n1", priority=2000000000))
    plan = plan_shutdown(s, ShutdownSettings(nodes=("n1",)), NOW)
    assert kills(plan) == {"a": (0, 0), "b": (0, 0)}
    assert any("disabled" in w and "without grace" in w for w in plan.warnings)
    # the kubelet dies with the node: Unknown after the 50s monitor grace, NoExecute a period later
    assert taints(plan) == [("n1", "node.kubernetes.io/unreachable", "NoSchedule", 50),
                            ("n1", "node.kubernetes.io/unreachable", "NoExecute", 55)]


def test_disabled_shutdown_replacements_come_with_the_taint_eviction_deletions() -> None:
    """Without graceful shutdown no pod is ever Failed: the pods stay Running until the
    taint-eviction controller deletes them (55s + 300s), then stay Terminating on the down node.
    A ReplicaSet (FilterActivePods) and a Job replace theirs at the deletion; a StatefulSet waits
    for the old pod (the answer `controller --fail` gives for the same node)."""
    s = snap(node("n1"), node("n2"), kubelet("n1", shutdownGracePeriod="0s"),
             pod("web-1", "n1", owner="ReplicaSet/web"), pod("db-0", "n1", owner="StatefulSet/db"),
             pod("job-1", "n1", owner="Job/j"), pod("bare", "n1"))
    plan = plan_shutdown(s, ShutdownSettings(nodes=("n1",)), NOW)
    deletes = {a.pod: (a.at, a.target) for a in plan.actions if a.type == "delete"}
    assert deletes == {"web-1": (355, "n2"), "job-1": (355, "n2"), "db-0": (355, None), "bare": (355, None)}
    assert [(e.pod, e.code) for e in plan.shortfall] == [("db-0", "waits-for-old-pod")]


@pytest.mark.parametrize("kubelet_version,gates,graceful,assumed", [
    ("v1.33.4", None, False, ""),        # WindowsGracefulNodeShutdown alpha, off: the manager is a stub
    ("v1.34.1", None, True, ""),         # beta, on by default
    ("v1.33.4", {"WindowsGracefulNodeShutdown": True}, True, ""),
    ("v1.35.0", {"WindowsGracefulNodeShutdown": False}, False, ""),
    # --kubernetes-version sets every kubelet's release (versions.node_version)
    ("v1.33.4", None, True, "v1.34.0"),
    ("v1.34.1", None, False, "v1.33.4"),
])
def test_windows_nodes_shut_down_gracefully_only_with_the_gate(kubelet_version: str, gates: Optional[dict],
                                                                 graceful: bool, assumed: str) -> None:
    """nodeshutdown_manager_windows.go returns a stub while WindowsGracefulNodeShutdown is off,
    whatever the grace periods; the gate is on by default from v1.34 (kube_features.go)."""
    w = node("w1")
    w["metadata"]["labels"]["kubernetes.io/os"] = "windows"
    w["status"]["nodeInfo"] = {"kubeletVersion": kubelet_version}
    cfg = dict(shutdownGracePeriod="30s", shutdownGracePeriodCriticalPods="10s")
    if gates is not None:
        cfg["featureGates"] = gates
    s = snap(w, node("n2"), kubelet("w1", **cfg), pod("a", "w1", tgps=30))
    plan = plan_shutdown(s.set(info=s.info.set(assumed_version=assumed)), ShutdownSettings(nodes=("w1",)), NOW)
    assert kills(plan) == ({"a": (0, 20)} if graceful else {"a": (0, 0)})


def test_a_deletion_scheduled_for_an_existing_noexecute_taint_is_kept() -> None:
    """The node carries a NoExecute taint the pod tolerates for 600s (added 100s ago: deletion
    scheduled for +500s). The unreachable taint at +55s (300s) does not move it earlier:
    processPodOnNode keeps a scheduled deletion when createdAt + min < now + min."""
    maint = {"key": "maint", "effect": "NoExecute", "timeAdded": "2026-11-21T11:58:20Z"}
    tols = DEFAULT_TOLERATIONS + [{"key": "maint", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 600}]
    s = snap(node("n1", taints=[maint]), node("n2"), kubelet("n1", shutdownGracePeriod="0s"),
             pod("web-1", "n1", owner="ReplicaSet/web", tolerations=tols))
    plan = plan_shutdown(s, ShutdownSettings(nodes=("n1",)), NOW)
    assert [(a.pod, a.at) for a in plan.actions if a.type == "delete"] == [("web-1", 500)]


def test_no_kubelet_config_means_upstream_default_disabled() -> None:
    plan = plan_shutdown(snap(node("n1"), pod("a", "n1")), ShutdownSettings(nodes=("n1",)), NOW)
    assert kills(plan) == {"a": (0, 0)}


# --- settings precedence ---------------------------------------------------------------------------


@pytest.mark.parametrize("flags,file_cfg,want", [
    (ShutdownConfig(source="flags"), None, {"web": (0, 20), "dns": (20, 10)}),                       # snapshot
    # the 40s phase ends when web (30s) has stopped: killPods waits for its pods or its seconds, whichever is first
    (ShutdownConfig(source="flags"), ShutdownConfig(grace=60.0, critical=20.0, source="f"), {"web": (0, 30), "dns": (30, 20)}),
    (ShutdownConfig(grace=50.0, source="--grace-period"), None, {"web": (0, 30), "dns": (30, 10)}),   # critical kept
    (ShutdownConfig(by_priority=(Group(0, 5), Group(1000, 7)), source="--by-priority"), None, {"web": (0, 5), "dns": (5, 7)}),
])
def test_flags_then_file_then_snapshot(flags: ShutdownConfig, file_cfg: Optional[ShutdownConfig], want: Dict[str, tuple]) -> None:
    s = snap(node("n1"), kubelet("n1", shutdownGracePeriod="30s", shutdownGracePeriodCriticalPods="10s"),
             pod("web", "n1", tgps=30), pod("dns", "n1", priority=2000000000, tgps=30))
    plan = plan_shutdown(s, ShutdownSettings(nodes=("n1",), flags=flags, kubelet_config=file_cfg), NOW)
    assert kills(plan) == want


@pytest.mark.parametrize("flags,message", [
    (ShutdownConfig(critical=40.0, source="--critical-grace-period"),
     "invalid configuration: shutdownGracePeriodCriticalPods {40s} must be <= shutdownGracePeriod {30s}"),
    (ShutdownConfig(grace=0.5, critical=0.0, source="--grace-period"),
     "invalid configuration: shutdownGracePeriod {500ms} must be either zero or otherwise >= 1 sec"),
    (ShutdownConfig(grace=30.0, by_priority=(Group(0, 10),), source="--grace-period/--by-priority"),
     "invalid configuration: Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time"),
])
def test_invalid_settings_are_the_kubelets_errors(flags: ShutdownConfig, message: str) -> None:
    s = snap(node("n1"), kubelet("n1", shutdownGracePeriod="30s", shutdownGracePeriodCriticalPods="10s"), pod("a", "n1"))
    with pytest.raises(InputError) as e:
        plan_shutdown(s, ShutdownSettings(nodes=("n1",), flags=flags), NOW)
    assert e.value.problem == message


def test_invalid_snapshot_config_names_the_object() -> None:
    # file ("test": the helper's source label), object and field, as every input error
    s = snap(node("n1"), kubelet("n1", shutdownGracePeriod="1s", shutdownGracePeriodCriticalPods="100s"))
    with pytest.raises(InputError, match="^test: NodeKubeletConfig n1: kubeletconfig: invalid configuration"):
        plan_shutdown(s, ShutdownSettings(nodes=("n1",)), NOW)


def test_unknown_node() -> None:
    with pytest.raises(InputError, match="unknown node 'nope'"):
        plan_shutdown(snap(node("n1")), ShutdownSettings(nodes=("nope",)), NOW)


# --- a node that is already NotReady ------------------------------------------------------------------

DEAD = [node("dead", ready="Unknown", taints=[
            {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule", "timeAdded": "2026-11-21T11:50:00Z"},
            {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2026-11-21T11:50:05Z"}]),
        node("n2"), node("n3", zone="z2"),
        pod("db-0", "dead", owner="StatefulSet/db", ns="data", tgps=120, deleting="2026-11-21T11:55:05Z"),
        pod("api-1", "dead", owner="ReplicaSet/api"),
        pod("agent-1", "dead", owner="DaemonSet/agent", tolerations=[
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"}]),
        pod("any-1", "dead", tolerations=[{"operator": "Exists"}]),
        {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": "csi-a"},
         "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "dead", "source": {"persistentVolumeName": "pv-a"}},
         "status": {"attached": True}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": "csi-b"},
         "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "dead", "source": {"persistentVolumeName": "pv-b"}},
         "status": {"attached": True}},
        {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": "csi-other"},
         "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "n2", "source": {"persistentVolumeName": "pv-c"}},
         "status": {"attached": True}}]


@pytest.mark.parametrize("disable,phrase", [(False, "force-detaches its volumes 6m later"),
                                            (True, "never force-detaches")])
def test_notready_statefulset_pods_stay_terminating(disable: bool, phrase: str) -> None:
    plan = plan_shutdown(snap(*DEAD), ShutdownSettings(nodes=("dead",), disable_force_detach_on_timeout=disable), NOW)
    notes = "\n".join(plan.notes)
    assert "data/db-0 is Terminating since 2026-11-21T11:55:05Z" in notes
    assert "stays Terminating until the node comes back or the node.kubernetes.io/out-of-service taint is added" in notes
    assert phrase in notes
    assert any("already NotReady (Ready=Unknown" in w for w in plan.warnings)
    assert [t for t in taints(plan)] == []        # the controller has tainted it already


# --- non-graceful ---------------------------------------------------------------------------------


def test_non_graceful_plan_with_volume_attachments() -> None:
    plan = plan_shutdown(snap(*DEAD), ShutdownSettings(nodes=("dead",), non_graceful=True), NOW)
    doc = plan_document(plan)
    acts = doc["actions"]
    assert acts[0] == {"type": "taint", "node": "dead", "key": "node.kubernetes.io/out-of-service",
                       "value": "nodeshutdown", "effect": "NoExecute", "at": 0, "by": "user", "rule": "shutdown",
                       "previous": None,   # the node had no out-of-service taint: apply adds it only while so
                       "reason": acts[0]["reason"]}
    deletes = {a["pod"]: a for a in acts if a["type"] == "delete"}
    assert set(deletes) == {"db-0", "api-1", "agent-1"}          # any-1 tolerates every taint
    assert all(a["force"] and a["gracePeriodSeconds"] == 0 and a["at"] == 0 for a in deletes.values())
    assert {a["by"] for a in deletes.values()} == {"pod-gc"}      # forecasts: apply never sends them
    assert deletes["db-0"]["target"] in ("n2", "n3")             # the StatefulSet pod starts elsewhere
    assert deletes["api-1"]["target"] in ("n2", "n3")
    assert "target" not in deletes["agent-1"]
    assert sorted(a["volumeAttachment"] for a in acts if a["type"] == "detach") == ["csi-a", "csi-b"]
    assert {a["by"] for a in acts if a["type"] == "detach"} == {"attach-detach-controller"}
    assert [s["pod"] for s in doc["skipped"]] == ["any-1"]
    assert any("only once the node is really powered off" in w for w in doc["warnings"])
    assert any("data/db-0 -> " in n for n in doc["notes"])
    assert doc["blocked"] == []


def test_out_of_service_taint_comes_after_the_snapshots_taints() -> None:
    """The taint-eviction controller saw the unreachable taint when it was added (60s ago) and
    scheduled each pod's deletion then; the out-of-service taint comes now. A scheduled deletion
    is kept when `createdAt + min < now + min` (processPodOnNode), so a pod that tolerates
    out-of-service for 60s still goes at the unreachable schedule (+240s), not at once."""
    oos = {"key": "node.kubernetes.io/out-of-service", "operator": "Exists", "effect": "NoExecute"}
    s = snap(node("dead", ready="Unknown", taints=[
                 {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2026-11-21T11:59:00Z"}]),
             node("n2"),
             pod("oos60", "dead", tolerations=[dict(oos, tolerationSeconds=60)] + DEFAULT_TOLERATIONS),
             pod("oos600", "dead", tolerations=[dict(oos, tolerationSeconds=600)] + DEFAULT_TOLERATIONS),
             pod("plain", "dead"))
    plan = plan_shutdown(s, ShutdownSettings(nodes=("dead",), non_graceful=True), NOW)
    deletes = {a.pod: a for a in plan.actions if a.type == "delete"}
    assert {p: a.at for p, a in deletes.items()} == {"oos60": 240, "oos600": 240, "plain": 0}
    assert "in the snapshot" not in deletes["plain"].reason     # the out-of-service taint is not in it


def test_out_of_service_detach_waits_for_the_pods_using_the_volume() -> None:
    """The attach/detach controller detaches a volume only when no pod on the node uses it any
    more (desired state of world); the out-of-service taint only skips the 6-minute unmount wait.
    A volume whose pod is deleted at +240s is detached then; one whose pod tolerates every taint
    stays attached; one no pod uses goes at once."""
    def claim(p: Dict[str, Any], name: str) -> Dict[str, Any]:
        p["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": name}}]
        return p

    def pvc(name: str, pv: str) -> Dict[str, Any]:
        return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "app"},
                "spec": {"volumeName": pv}, "status": {"phase": "Bound"}}

    def va(name: str, pv: str) -> Dict[str, Any]:
        return {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": name},
                "spec": {"attacher": "ebs.csi.aws.com", "nodeName": "dead", "source": {"persistentVolumeName": pv}},
                "status": {"attached": True}}

    oos60 = [{"key": "node.kubernetes.io/out-of-service", "operator": "Exists", "effect": "NoExecute",
              "tolerationSeconds": 60}] + DEFAULT_TOLERATIONS
    s = snap(node("dead", ready="Unknown", taints=[
                 {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": "2026-11-21T11:59:00Z"}]),
             node("n2"),
             claim(pod("late", "dead", tolerations=oos60), "c-late"),
             claim(pod("keep", "dead", tolerations=[{"operator": "Exists"}]), "c-keep"),
             pvc("c-late", "pv-a"), pvc("c-keep", "pv-b"), va("csi-a", "pv-a"), va("csi-b", "pv-b"), va("csi-c", "pv-c"))
    plan = plan_shutdown(s, ShutdownSettings(nodes=("dead",), non_graceful=True), NOW)
    assert {a.volume_attachment: a.at for a in plan.actions if a.type == "detach"} == {"csi-a": 240, "csi-c": 0}
    assert any("csi-b stays attached: app/keep" in n for n in plan.notes)


def test_out_of_service_finished_pods_are_deleted_by_the_taint_eviction_controller() -> None:
    """A Failed or Succeeded pod's DELETE takes no grace (CheckGracefulDelete): the
    taint-eviction controller's plain DELETE removes it, pod GC never force-deletes it."""
    s = snap(node("dead", ready="False"), node("n2"),
             pod("failed", "dead", owner="ReplicaSet/web", phase="Failed"), pod("run", "dead", owner="ReplicaSet/web"))
    plan = plan_shutdown(s, ShutdownSettings(nodes=("dead",), non_graceful=True), NOW)
    deletes = {a.pod: (a.by, a.force, a.target) for a in plan.actions if a.type == "delete"}
    assert deletes == {"failed": ("taint-eviction-controller", False, None), "run": ("pod-gc", True, "n2")}


def test_non_graceful_statefulset_pod_that_fits_nowhere_is_a_shortfall() -> None:
    docs = [d for d in DEAD if d["metadata"]["name"] not in ("n2", "n3")]
    plan = plan_shutdown(snap(*docs), ShutdownSettings(nodes=("dead",), non_graceful=True), NOW)
    assert not plan.blocked
    assert {(e.pod, e.code) for e in plan.shortfall} == {("db-0", "no-node-fits"), ("api-1", "no-node-fits")}
    assert all("0/1 nodes are available" in e.reason for e in plan.shortfall)


def test_non_graceful_on_a_ready_node_warns() -> None:
    plan = plan_shutdown(snap(node("n1"), node("n2"), pod("a", "n1")), ShutdownSettings(nodes=("n1",), non_graceful=True), NOW)
    assert any("n1 is Ready in the snapshot" in w for w in plan.warnings)


def test_same_input_same_bytes() -> None:
    a = to_json(plan_document(plan_shutdown(snap(*DEAD), ShutdownSettings(nodes=("dead",), non_graceful=True), NOW)))
    b = to_json(plan_document(plan_shutdown(snap(*DEAD), ShutdownSettings(nodes=("dead",), non_graceful=True), NOW)))
    assert a == b


# The node lifecycle controller keeps tainting a NotReady node whatever other taints it has: a
# node that turned Unknown at `now` gets unreachable:NoExecute one --node-monitor-period later in
# v1.33 (semantics.md C4, C10: +5 s with the defaults), and the taint-eviction controller deletes
# a pod at the smallest tolerationSeconds over the node's NoExecute taints (D4). So a pod that
# tolerates out-of-service forever but unreachable for the default 300 s (D6) goes at +305, then
# pod GC force-deletes it; only a pod tolerating both forever stays. Real v1.33:
# tests/data/real-controller/ng-1.json, where unreachable:NoExecute came 1-2 s after out-of-service.
_OOS = {"key": "node.kubernetes.io/out-of-service", "operator": "Exists", "effect": "NoExecute"}


@pytest.mark.parametrize("name,tolerations,want", [
    ("oos-forever", [_OOS] + DEFAULT_TOLERATIONS, 305),
    ("oos-20s", [dict(_OOS, tolerationSeconds=20)] + DEFAULT_TOLERATIONS, 20),
    ("plain", None, 0),
    ("everything-forever", [{"operator": "Exists"}], None),
])
def test_non_graceful_pods_also_meet_the_controllers_unreachable_taint(name: str, tolerations: Optional[list],
                                                                       want: Optional[int]) -> None:
    gone = node("gone", ready="Unknown", taints=[
        {"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule", "timeAdded": "2026-11-21T12:00:00Z"}])
    gone["status"]["conditions"][0]["lastTransitionTime"] = "2026-11-21T12:00:00Z"
    s = snap(gone, node("n2"), node("n3"), pod(name, "gone", owner="ReplicaSet/web", tolerations=tolerations))
    plan = plan_shutdown(s, ShutdownSettings(nodes=("gone",), non_graceful=True), NOW)
    assert ("gone", "node.kubernetes.io/unreachable", "NoExecute", 5) in taints(plan)
    assert [a.by for a in plan.actions if a.type == "taint" and a.key.endswith("unreachable")] == \
        ["node-lifecycle-controller"]
    deletes = {a.pod: a.at for a in plan.actions if a.type == "delete"}
    if want is None:
        assert name not in deletes and [e.code for e in plan.skipped] == ["tolerates-forever"]
    else:
        assert deletes == {name: want} and not plan.skipped
