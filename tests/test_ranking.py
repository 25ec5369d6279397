"""Eviction ranking, QoS and OOM scores, ported from pod_ranking.json and qos.json
(helpers_test.go TestOrderedBy*, eviction_manager_test.go first victims; qos.go)."""

from __future__ import annotations

import json

import pytest

from kubectl_evict.eviction.observe import pod_usages
from kubectl_evict.eviction.oom import oom_score_adj
from kubectl_evict.eviction.ranking import rank, request_for_ranking
from kubectl_evict.eviction.thresholds import eviction_priority_order, parse_threshold_config
from kubectl_evict.scheduling.qos import compute_qos
from kubectl_evict.source.freeze import freeze

from conftest import VECTORS  # noqa: E402  (copies of shared/spec/vectors)


def _vectors(name):
    return json.loads((VECTORS / name).read_text())["vectors"]


def _pods(raw):
    snap = freeze(("vector", str(i), p) for i, p in enumerate(raw))
    return list(snap.pods)


def _summary(pod_stats):
    return {"node": {}, "pods": pod_stats}


# The comparator chain a vector names -> (signal, layout) for our ranking (full chains only).
RANKED = [v for v in _vectors("pod_ranking.json") if "pods" in v["input"]]
CHAIN_SIGNAL = {("exceedMemoryRequests", "priority", "memory"): "memory.available",
                ("priority", "process"): "pid.available"}


def _key_for(v):
    rb = tuple(v["input"]["rankBy"])
    if rb in CHAIN_SIGNAL:
        return CHAIN_SIGNAL[rb]
    if rb == ("exceedDiskRequests", "priority", "disk"):
        return "nodefs.available" if v["input"]["diskResource"] == "ephemeral-storage" else "nodefs.inodesFree"
    return None


FULL = [v for v in RANKED if _key_for(v)]
PARTIAL = [v for v in RANKED if not _key_for(v)]


@pytest.mark.parametrize("v", FULL, ids=[v["source"].split(" ", 1)[-1][:70] for v in FULL])
def test_kubelet_ranking_matches_upstream(v):
    pods = _pods(v["input"]["pods"])
    usages = pod_usages(_summary(v["input"]["podStats"]))
    order = [p.name for p in rank(pods, _key_for(v), "single", usages)]
    e = v["expected"]
    if "evictionOrder" in e:
        assert order == e["evictionOrder"]
    else:
        assert order[0] == e["firstEvicted"]
        if "fullOrderDerived" in e:
            assert order == e["fullOrderDerived"]


def _partial_order(v, pods, usages):
    """Single-comparator upstream tests: check the chain's dominant key holds pairwise."""
    rb = tuple(v["input"]["rankBy"])
    res = v["input"].get("diskResource")
    from kubectl_evict.eviction.observe import pod_disk_usage, usage_for
    measure = tuple(v["input"].get("fsStatsToMeasure", ()))
    def use(p):
        u = usage_for(usages, p)
        if res is None:
            return u.working_set
        d, i = pod_disk_usage(u, p, measure)
        return d if res == "ephemeral-storage" else i
    if rb == ("exceedMemoryRequests",):
        return sorted(pods, key=lambda p: (use(p) <= request_for_ranking(p, "memory"), p.name))
    if rb == ("exceedDiskRequests",):
        return sorted(pods, key=lambda p: (use(p) <= request_for_ranking(p, res), p.name))
    if rb == ("priority",):
        return sorted(pods, key=lambda p: p.priority)
    if rb == ("memory",):
        return sorted(pods, key=lambda p: request_for_ranking(p, "memory") - use(p))
    if rb == ("disk",):
        return sorted(pods, key=lambda p: request_for_ranking(p, "ephemeral-storage") - use(p))
    if rb == ("priority", "disk"):
        return sorted(pods, key=lambda p: (p.priority, request_for_ranking(p, "ephemeral-storage") - use(p)))
    raise AssertionError(rb)


@pytest.mark.parametrize("v", [v for v in PARTIAL], ids=[v["source"].split(" ", 1)[-1][:70] for v in PARTIAL])
def test_single_comparators_match_upstream(v):
    """The building blocks of the chain (usage vs request, priority, usage minus request)."""
    pods = _pods(v["input"]["pods"])
    usages = pod_usages(_summary(v["input"]["podStats"]))
    assert [p.name for p in _partial_order(v, pods, usages)] == v["expected"]["evictionOrder"]


SIGNAL_ORDER = [v for v in _vectors("pod_ranking.json") if "thresholdSignals" in v["input"]]


@pytest.mark.parametrize("v", SIGNAL_ORDER, ids=[v["source"].split("/")[-1] for v in SIGNAL_ORDER])
def test_memory_signals_are_reclaimed_first(v):
    sigs = v["input"]["thresholdSignals"]
    ths = parse_threshold_config([], {s: "1Gi" if "pid" not in s else "100" for s in sigs}, {}, {}, {})
    order = [t.signal for t in eviction_priority_order(sorted(ths, key=lambda t: sigs.index(t.signal)))]
    want = v["expected"]["sortedSignals"]
    assert order[:1] == want[:1] and sorted(order) == sorted(want)


def test_pods_without_stats_rank_first_and_critical_pods_rank_but_are_flagged():
    pods = _pods([
        {"kind": "Pod", "metadata": {"name": "measured", "uid": "a"}, "spec": {"priority": -5, "containers": [{"name": "c"}]}},
        {"kind": "Pod", "metadata": {"name": "unmeasured", "uid": "b"}, "spec": {"priority": 100, "containers": [{"name": "c"}]}},
    ])
    usages = pod_usages(_summary([{"podRef": {"name": "measured", "namespace": "default", "uid": "a"},
                                   "memory": {"workingSetBytes": 10 ** 9}}]))
    assert [p.name for p in rank(pods, "memory.available", "single", usages)] == ["unmeasured", "measured"]


def test_qos_ranking_puts_best_effort_before_burstable_whatever_the_priority():
    raw = [
        {"kind": "Pod", "metadata": {"name": "guaranteed", "uid": "g"}, "spec": {"priority": -10, "containers": [
            {"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}}]}},
        {"kind": "Pod", "metadata": {"name": "burstable", "uid": "u"}, "spec": {"priority": -10, "containers": [
            {"name": "c", "resources": {"requests": {"memory": "100Mi"}}}]}},
        {"kind": "Pod", "metadata": {"name": "besteffort", "uid": "e"}, "spec": {"priority": 1000, "containers": [{"name": "c"}]}},
    ]
    stats = [{"podRef": {"name": n, "namespace": "default", "uid": u}, "memory": {"workingSetBytes": 500 * 2 ** 20}}
             for n, u in (("guaranteed", "g"), ("burstable", "u"), ("besteffort", "e"))]
    pods, usages = _pods(raw), pod_usages(_summary(stats))
    assert [p.name for p in rank(pods, "memory.available", "single", usages, "qos")] == ["besteffort", "burstable", "guaranteed"]
    # the current ranking looks at usage over request and priority instead
    assert [p.name for p in rank(pods, "memory.available", "single", usages)] == ["burstable", "besteffort", "guaranteed"]


QOS = _vectors("qos.json")


@pytest.mark.parametrize("v", QOS, ids=[str(i) for i in range(len(QOS))])
def test_qos_class(v):
    spec = v["input"]["pod"]["spec"]
    pod = _pods([v["input"]["pod"]])[0]
    if "resources" in spec:
        # pod-level resources need the PodLevelResources gate (alpha in 1.32, off in 1.30-1.33):
        # without it the container resources decide, all empty here.
        assert compute_qos(pod.containers + pod.init_containers) == "BestEffort"
        return
    assert pod.qos == v["expected"]["qosClass"]


GI = 2 ** 30


@pytest.mark.parametrize("requests, limits, capacity, priority_class, expected", [
    ({"cpu": "1", "memory": "1Gi"}, {"cpu": "1", "memory": "1Gi"}, 16 * GI, "", -997),
    ({}, {}, 16 * GI, "", 1000),
    ({"memory": "4Gi"}, {}, 16 * GI, "", 750),         # 1000 - 1000*4/16
    ({"memory": "1Mi"}, {}, 16 * GI, "", 999),         # 1000 - 0 would tie BestEffort: 999
    ({"memory": "16Gi"}, {}, 16 * GI, "", 3),          # clamped to 1000 + (-997)
    ({"memory": "1Gi"}, {}, 16 * GI, "system-node-critical", -997),
])
def test_oom_score_adj(requests, limits, capacity, priority_class, expected):
    spec = {"containers": [{"name": "c", "resources": {"requests": requests, "limits": limits}}]}
    meta = {"name": "p", "uid": "p"}
    if priority_class:
        spec.update(priorityClassName=priority_class, priority=2000001000)
    pod = _pods([{"kind": "Pod", "metadata": meta, "spec": spec}])[0]
    assert oom_score_adj(pod, pod.containers[0], capacity) == expected


# kubelettypes.IsCriticalPod (pkg/kubelet/types/pod_update.go): static (config.source not "api"),
# mirror, or spec.priority >= SystemCriticalPriority; the Priority admission plugin resolves the two
# built-in classes (scheduling.SystemPriorityClasses) even when the input lists no PriorityClass.
# (metadata annotations, spec fields, critical)
CRITICAL = [
    ({}, {}, False),
    ({"kubernetes.io/config.source": "file"}, {}, True),
    ({"kubernetes.io/config.source": "api"}, {}, False),
    ({"kubernetes.io/config.mirror": "abc", "kubernetes.io/config.source": "file"}, {}, True),
    ({}, {"priority": 2000000000}, True),
    ({}, {"priority": 1999999999}, False),
    ({}, {"priorityClassName": "system-cluster-critical"}, True),
    ({}, {"priorityClassName": "system-node-critical"}, True),
    ({}, {"priorityClassName": "system-node-critical", "priority": 10}, False),   # spec.priority is what counts
]


@pytest.mark.parametrize("annotations, spec, critical", CRITICAL)
def test_critical_pods(annotations, spec, critical):
    from kubectl_evict.eviction.ranking import is_critical
    [p] = _pods([{"kind": "Pod", "metadata": {"name": "p", "namespace": "d", "uid": "u", "annotations": annotations},
                  "spec": dict(spec, containers=[{"name": "c"}])}])
    assert is_critical(p) is critical
