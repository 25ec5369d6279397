"""Scheduler corners the real-cluster fixtures rarely reach (shared/spec/scheduler.md S1-S6 and
the kube-scheduler section of upstream-1.34-1.37.md). Expected values are worked out from the
upstream plugins' source, not copied from the code's output."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from test_drain_plan import deployment, drain, evictions, node, pod, snapshot

from kubectl_evict.scheduling.resources import non_zero_requests

MI = 1024 * 1024


def _pod(spec: Dict[str, Any]) -> Any:
    snap = snapshot(node("a"), deployment("web", 1), pod("web-1", "a", spec=spec))
    return next(p for p in snap.pods if p.name == "web-1")


def _c(name: str, cpu: str = "", memory: str = "", sidecar: bool = False) -> dict:
    req = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    c: Dict[str, Any] = {"name": name, "resources": {"requests": req}}
    if sidecar:
        c["restartPolicy"] = "Always"
    return c


# `framework/types.go` calculateResource: PodRequests with NonMissingContainerRequests
# {cpu: 100m, memory: 200Mi}, aggregated as the real requests are (component-helpers resource
# AggregateContainerRequests: sidecars add to the sum; a regular init container counts with the
# sidecars started before it; the result is max(sum, init max)), pod-level requests replacing
# the sums, overhead added.
@pytest.mark.parametrize("case,spec,cpu,memory", [
    ("no requests: both defaults", {"containers": [_c("c")]}, 100, 200 * MI),
    ("explicit 0 stays 0", {"containers": [_c("c", cpu="0", memory="0")]}, 0, 0),
    ("init before sidecar: max(sum, init alone)",
     {"containers": [_c("c", "100m", "100Mi")],
      "initContainers": [_c("i", "150m", "100Mi"), _c("s", "100m", "100Mi", sidecar=True)]}, 200, 200 * MI),
    ("sidecar before init: init plus the sidecar started before it",
     {"containers": [_c("c", "100m", "100Mi")],
      "initContainers": [_c("s", "100m", "100Mi", sidecar=True), _c("i", "150m", "150Mi")]}, 250, 250 * MI),
    ("pod-level requests replace the container sums",
     {"resources": {"requests": {"cpu": "2", "memory": "1Gi"}}, "containers": [_c("c")]}, 2000, 1024 * MI),
    ("pod-level cpu only: memory from the containers' defaults",
     {"resources": {"requests": {"cpu": "2"}}, "containers": [_c("c"), _c("d")]}, 2000, 400 * MI),
    ("overhead added", {"containers": [_c("c")], "overhead": {"cpu": "50m", "memory": "10Mi"}}, 150, 210 * MI),
])
def test_score_non_zero_requests(case: str, spec: dict, cpu: int, memory: int) -> None:
    assert non_zero_requests(_pod(spec)) == (cpu, memory), case


def test_least_allocated_reads_pod_level_requests_of_residents() -> None:
    """a runs a pod asking 3 cpu / 1Gi at pod level (containers ask nothing), b one asking 2.5
    cpu / 1Gi in its container. LeastAllocated sees a at 3.1 cpu (not 2 x 100m of defaults):
    a scores (22 + 85) / 2 + balanced 68 = 121, b (35 + 85) / 2 + 74 = 134, so b."""
    big = {"resources": {"requests": {"cpu": "3", "memory": "1Gi"}}, "containers": [{"name": "c"}]}
    snap = snapshot(node("src"), node("a"), node("b"), deployment("web", 1), deployment("x", 1), deployment("y", 1),
                    pod("x-1", "a", spec=big), pod("y-1", "b", cpu="2500m", memory="1Gi"), pod("web-1", "src"))
    assert evictions(drain(snap, "src"))["web-1"] == (0, "b")


def _placer(*objs: Any, version: str = "v1.33.3") -> Any:
    from kubectl_evict.scheduling.placement import Placer
    snap = snapshot(*objs, version=version)
    return Placer(snap.nodes.values(), snap.pods_by_node, snapshot=snap), snap


def _aff(*terms: tuple, anti: bool = False, ns_selector: Any = None) -> dict:
    """Preferred pod (anti-)affinity terms (weight, app) on the hostname key."""
    out = []
    for weight, app in terms:
        term: Dict[str, Any] = {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}
        if ns_selector is not None:
            term["namespaceSelector"] = ns_selector
        out.append({"weight": weight, "podAffinityTerm": term})
    return {"affinity": {"podAntiAffinity" if anti else "podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": out}}}


# InterPodAffinity's Score (`interpodaffinity/scoring.go`): the preferred weights of the incoming
# pod's terms summed per node over matching pods (anti-affinity subtracts), then NormalizeScore
# `int64(float64(MaxNodeScore) * (float64(score-min) / float64(max-min)))` (0 everywhere when all
# are equal); weight 2.
@pytest.mark.parametrize("case,spec,ns_labels,want", [
    ("weights summed per node; 100 * (29/100) truncates to 28 in float64",
     _aff((29, "a"), (71, "b")), {}, {"x": 0, "y": 2 * 28, "z": 2 * 100}),
    ("anti-affinity subtracts: the node without matching pods scores highest",
     _aff((29, "a"), (71, "b"), anti=True), {}, {"x": 2 * 100, "y": 2 * 71, "z": 0}),
    ("namespaceSelector picks the namespaces by label",
     _aff((50, "a"), ns_selector={"matchLabels": {"team": "red"}}), {"other": {"team": "red"}},
     {"x": 2 * 100, "y": 0, "z": 0}),
    ("namespaceSelector {} means every namespace: one matching pod per node, all equal",
     _aff((50, "a"), ns_selector={}), {}, {"x": 0, "y": 0, "z": 0}),
    ("no namespaceSelector: the pod's own namespace",
     _aff((50, "a")), {}, {"x": 0, "y": 2 * 100, "z": 2 * 100}),
])
def test_inter_pod_affinity_score(case: str, spec: dict, ns_labels: dict, want: dict) -> None:
    from kubectl_evict.scheduling.scoring import scores
    nss = [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n, "labels": lab}}
           for n, lab in dict({"default": {}, "other": {}}, **ns_labels).items()]
    placer, snap = _placer(node("x"), node("y"), node("z"), deployment("web", 1), *nss,
                           pod("a-1", "y"), pod("a-2", "z"), pod("b-1", "z"), pod("a-3", "x", ns="other"),
                           pod("web-1", "x", spec=spec))
    incoming = next(p for p in snap.pods if p.name == "web-1")
    got = scores(placer, incoming, ["x", "y", "z"])
    assert {n: got[n]["InterPodAffinity"] for n in "xyz"} == want, case


# NodeResourcesBalancedAllocation's PreScore (`balanced_allocation.go`, #129138) skips a pod whose
# real requests of the plugin's resources (cpu, memory) are all 0, whatever else it requests; the
# plugin then adds nothing. x runs 2 cpu / 1Gi of 4 cpu / 8Gi: with a 1 cpu / 1Gi pod the fractions
# are 0.75 and 0.25, std 0.25, score 75.
@pytest.mark.parametrize("case,requests,want", [
    ("ephemeral-storage only: skipped", {"ephemeral-storage": "1Gi"}, 0),
    ("extended resource only: skipped", {"example.com/dongle": "1"}, 0),
    ("no requests: skipped", {}, 0),
    ("cpu and memory: scored", {"cpu": "1", "memory": "1Gi"}, 75),
])
def test_balanced_allocation_skips_pods_without_cpu_or_memory_requests(case: str, requests: dict, want: int) -> None:
    from kubectl_evict.scheduling.scoring import scores
    placer, snap = _placer(node("x", **{"example.com/dongle": "4"}), node("y", **{"example.com/dongle": "4"}),
                           deployment("web", 1), deployment("busy", 1), pod("busy-1", "x", cpu="2", memory="1Gi"),
                           pod("web-1", "y", requests=requests))
    incoming = next(p for p in snap.pods if p.name == "web-1")
    assert scores(placer, incoming, ["x", "y"])["x"]["NodeResourcesBalancedAllocation"] == want, case


def test_default_spread_counts_candidates_without_the_zone_as_one_domain() -> None:
    """PodTopologySpread's Score with the system default constraints (hostname maxSkew 3, zone
    maxSkew 5, from the ReplicaSet's selector): `initPreScoreState` counts a candidate without
    the zone label as the zone domain "" (only the pod's own constraints ignore such nodes), so
    with a (z1), b (z2) and c (no zone) the zone weight is ln(3 + 2), not ln(2 + 2). Three
    matching pods on a: a = 3 ln5 + 2 + 3 ln5 + 4 = 15.66 -> 16, b = 2 + 4 = 6, c = 2 (no zone
    term); normalised 100 (max + min - s) / max: a 12, b 75, c 100; weight 2."""
    from kubectl_evict.scheduling.scoring import scores
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": "web-rs", "namespace": "default", "uid": "rs-web"},
          "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "web"}}}}
    placer, snap = _placer(node("src", labels={"topology.kubernetes.io/zone": "z9"}),
                           node("a", labels={"topology.kubernetes.io/zone": "z1"}),
                           node("b", labels={"topology.kubernetes.io/zone": "z2"}), node("c"), rs,
                           [pod("web-%d" % i, "a") for i in range(3)], pod("web-9", "src"))
    incoming = next(p for p in snap.pods if p.name == "web-9")
    got = scores(placer, incoming, ["a", "b", "c"])
    assert {n: got[n]["PodTopologySpread"] for n in "abc"} == {"a": 24, "b": 150, "c": 200}


def _pin(*terms: tuple) -> dict:
    """Required node affinity terms of `metadata.name In` matchFields (one tuple of names per
    requirement, one tuple of requirements per term)."""
    return {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": list(v)} for v in term]}
        for term in terms]}}}}


# NodeAffinity's PreFilter (`node_affinity.go`) narrows the nodes to the `metadata.name In` values
# of the required terms; `findNodesThatFitPod` filters only those and gives every other node
# (the cordoned one too) `node(s) didn't satisfy plugin(s) [NodeAffinity]` (UnschedulableAndUnresolvable:
# preemption does not help there); conflicting names reject the pod in PreFilter. Seen on real
# clusters: "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't satisfy plugin(s)
# [NodeAffinity]. preemption: 0/4 nodes are available: 1 No preemption victims found for incoming
# pod, 3 Preemption is not helpful for scheduling."
@pytest.mark.parametrize("case,spec,target,text", [
    ("pinned to a full node", _pin((("x",),)), None,
     "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
     "preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, "
     "3 Preemption is not helpful for scheduling."),
    ("pinned to a node that does not exist", _pin((("gone",),)), None,
     "0/4 nodes are available: 4 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
     "preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."),
    ("one term naming two nodes that cannot both be it", _pin((("x",), ("y",))), None,
     "0/4 nodes are available: pod affinity terms conflict. "
     "preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."),
    ("two terms: either node", _pin((("x",),), (("y",),)), "y", ""),
    ("the drained node or y", _pin((("src",),), (("y",),)), "y", ""),
    ("only the drained node: cordoned, the others not filtered", _pin((("src",),)), None,
     "0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) didn't satisfy plugin(s) [NodeAffinity]. "
     "preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."),
])
def test_node_affinity_prefilter_node_names(case: str, spec: dict, target: Any, text: str) -> None:
    snap = snapshot(node("src"), node("x", cpu="1"), node("y"), node("z"), deployment("web", 1),
                    pod("web-1", "src", cpu="2", spec=spec))
    plan = drain(snap, "src")
    assert evictions(plan)["web-1"] == (0, target), case
    assert [e.reason for e in plan.shortfall] == (
        ["evicted, but its replacement has nowhere to go: " + text] if text else []), case


@pytest.mark.parametrize("version,reason", [
    ("v1.33.3", "1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }"),
    ("v1.35.0", "1 node(s) had untolerated taint(s)"),
])
def test_a_failed_node_is_tainted_not_cordoned_in_the_fit_error(write_snapshot: Any, version: str, reason: str) -> None:
    """`controller --fail a`: a silent node is not cordoned; the node lifecycle controller taints
    it node.kubernetes.io/unreachable (NoSchedule and NoExecute), and TaintToleration is what keeps
    the replacements off it (their default tolerations cover only NoExecute, for 300 s)."""
    import json
    from conftest import node as cnode, pod as cpod, run_cli
    path = write_snapshot(cnode("a"), cnode("b", cpu="1"), cpod("web-1", "a", cpu="2"), server_version=version)
    out = run_cli("-f", path, "--now", "2026-11-21T12:00:00Z", "-o", "json", "controller", "--fail", "a")
    plan = json.loads(out.stdout)
    [short] = plan["shortfall"]
    assert "0/2 nodes are available: 1 Insufficient cpu, %s." % reason in short["reason"]


@pytest.mark.parametrize("ready", ["Unknown", "True"])
def test_a_powered_off_node_is_tainted_not_cordoned_in_the_fit_error(write_snapshot: Any, ready: str) -> None:
    """`shutdown a --non-graceful`: the powered-off node is unreachable (its NoSchedule taint
    comes first, then your out-of-service NoExecute one), not cordoned: v1.33's FitError names
    the unreachable taint."""
    import json
    from conftest import node as cnode, pod as cpod, run_cli
    path = write_snapshot(cnode("a", ready=ready), cnode("b", cpu="1"), cpod("web-1", "a", cpu="2"),
                          server_version="v1.33.3")
    out = run_cli("-f", path, "--now", "2026-11-21T12:00:00Z", "-o", "json", "shutdown", "a", "--non-graceful")
    [short] = json.loads(out.stdout)["shortfall"]
    assert "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint " \
           "{node.kubernetes.io/unreachable: }." in short["reason"]


_PNS = [{"key": "spot", "value": "yes", "effect": "PreferNoSchedule"}]


# Which node the default score plugins pick (weights: TaintToleration 3, LeastAllocated 1,
# BalancedAllocation 1): x and y are 4 cpu / 8Gi, y runs a pod asking 1 cpu / 1Gi; the pod asks
# 100m / 128Mi.
@pytest.mark.parametrize("case,x_taints,x_pods,pod_spec,want", [
    # x: TaintToleration 0 (its one PreferNoSchedule taint is the most), y 100 x 3 = 300 > any resource gap
    ("an untolerated PreferNoSchedule taint loses to a busier node", _PNS, 0, {}, "y"),
    ("a PreferNoSchedule toleration makes it count no more", _PNS, 0,
     {"tolerations": [{"key": "spot", "operator": "Exists", "effect": "PreferNoSchedule"}]}, "x"),
    ("a toleration with an empty effect covers it too", _PNS, 0,
     {"tolerations": [{"key": "spot", "operator": "Exists"}]}, "x"),
    ("a NoSchedule toleration does not (countIntolerableTaintsPreferNoSchedule)", _PNS, 0,
     {"tolerations": [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}]}, "y"),
    # 20 pods asking nothing count 20 x (100m, 200Mi) for LeastAllocated (not for BalancedAllocation):
    # x (47 + 49) / 2 + 99 = 147 < y (72 + 85) / 2 + 93 = 171 (without the defaults x would score 196)
    ("pods asking nothing count 100m / 200Mi each in LeastAllocated", [], 20, {}, "y"),
])
def test_default_scores_pick(case: str, x_taints: list, x_pods: int, pod_spec: dict, want: str) -> None:
    snap = snapshot(node("src"), node("x", taints=x_taints), node("y"), deployment("web", 1), deployment("busy", 1),
                    deployment("idle", x_pods), pod("busy-1", "y", cpu="1", memory="1Gi"),
                    [pod("idle-%d" % i, "x", requests={}) for i in range(x_pods)], pod("web-1", "src", spec=pod_spec))
    assert evictions(drain(snap, "src"))["web-1"] == (0, want), case


def _labelled(name: str, on: str, spec: dict, **labels: str) -> dict:
    p = pod(name, on, spec=spec)
    p["metadata"]["labels"].update(labels)
    return p


def _anti_hostname(**keys: list) -> dict:
    term = dict({"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}, **keys)
    return {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}}


# The API server folds a pod (anti-)affinity term's matchLabelKeys / mismatchLabelKeys into its
# labelSelector at creation, from the pod's own labels: `key In (value)` / `key NotIn (value)`
# (scheduler.md S0.2; `pkg/registry/core/pod/strategy.go`, MatchLabelKeysInPodAffinity GA in
# v1.33). web-0 (on src) has hostname anti-affinity against app=web; x runs web-1, y runs web-2.
@pytest.mark.parametrize("case,keys,own,x_labels,y_labels,want", [
    # without the keys every web pod counts: x and y both fail own anti-affinity
    ("no keys: every app=web pod counts", {}, {"pod-template-hash": "h2"},
     {"pod-template-hash": "h1"}, {"pod-template-hash": "h2"}, None),
    # pod-template-hash In (h2): the old ReplicaSet's pod on x is not counted
    ("matchLabelKeys: only pods of its own ReplicaSet count", {"matchLabelKeys": ["pod-template-hash"]},
     {"pod-template-hash": "h2"}, {"pod-template-hash": "h1"}, {"pod-template-hash": "h2"}, "x"),
    # tenant NotIn (t1): only the other tenant's pod (on x) counts
    ("mismatchLabelKeys: only other tenants' pods count", {"mismatchLabelKeys": ["tenant"]},
     {"tenant": "t1"}, {"tenant": "t2"}, {"tenant": "t1"}, "y"),
    # a key the pod lacks is ignored (no requirement added)
    ("a key the pod lacks adds nothing", {"matchLabelKeys": ["pod-template-hash"]}, {},
     {"pod-template-hash": "h1"}, {"pod-template-hash": "h2"}, None),
])
def test_affinity_match_label_keys_are_folded(case: str, keys: dict, own: dict, x_labels: dict, y_labels: dict,
                                              want: Any) -> None:
    spec = _anti_hostname(**keys)
    snap = snapshot(node("src"), node("x"), node("y"), deployment("web", 3), _labelled("web-0", "src", spec, **own),
                    _labelled("web-1", "x", spec, **x_labels), _labelled("web-2", "y", spec, **y_labels))
    assert evictions(drain(snap, "src"))["web-0"] == (0, want), case


def test_a_stored_pods_folded_selector_is_not_folded_twice() -> None:
    """A pod read back from the API server already carries the folded requirement: reading it
    keeps the selector as stored (one `pod-template-hash In (h2)`), so it matches as before."""
    term = {"labelSelector": {"matchLabels": {"app": "web"}, "matchExpressions": [
        {"key": "pod-template-hash", "operator": "In", "values": ["h2"]}]},
        "topologyKey": "kubernetes.io/hostname", "matchLabelKeys": ["pod-template-hash"]}
    spec = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}}
    snap = snapshot(node("a"), deployment("web", 1), _labelled("web-0", "a", spec, **{"pod-template-hash": "h2"}))
    [t] = snap.pods[0].anti_affinity_required
    assert [(r.key, r.operator, r.values) for r in t.selector.match_expressions] == [
        ("pod-template-hash", "In", ("h2",))]


def _spread(key: str, policy: str) -> dict:
    return {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
                                           "labelSelector": {"matchLabels": {"app": "web"}},
                                           "nodeTaintsPolicy": policy}]}


_TOLERATE_CORDON = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}]
ZONE_KEY = "topology.kubernetes.io/zone"


# A cordoned node carries node.kubernetes.io/unschedulable:NoSchedule (the node lifecycle
# controller adds it to every node with spec.unschedulable: semantics.md F2), and under
# nodeTaintsPolicy Honor a node with a taint the pod does not tolerate is no domain, so its
# (terminating, uncounted) pods do not pull the global minimum to 0 (scheduler.md S2.4, S2.6;
# `podtopologyspread/common.go` matchNodeInclusionPolicies). web-0 is on src, which is drained.
@pytest.mark.parametrize("case,key,policy,others,tolerations,want", [
    # one zone per node: src's zone keeps 0 under Ignore -> min 0 -> skew 2 on x and y
    ("zone, Ignore: the drained node's empty zone sets the minimum", ZONE_KEY, "Ignore", {}, [], None),
    ("zone, Honor: the cordoned node is no domain", ZONE_KEY, "Honor", {}, [], "x"),
    # per-node spread, one replica a node: the classic drain that leaves the pod Pending
    ("hostname, Ignore", "kubernetes.io/hostname", "Ignore", {}, [], None),
    ("hostname, Honor", "kubernetes.io/hostname", "Honor", {}, [], "x"),
    # tolerating the cordon taint, src is a domain (count 0) and NodeUnschedulable lets it back there
    ("Honor, tolerating the cordon taint", ZONE_KEY, "Honor", {}, _TOLERATE_CORDON, "src"),
    # z, cordoned in the snapshot (its own zone d, no web pod), is no domain under Honor either
    ("Honor, a node cordoned before the drain", ZONE_KEY, "Honor", {"z": "d"}, [], "x"),
    ("Ignore, a node cordoned before the drain", ZONE_KEY, "Ignore", {"z": "d"}, [], None),
])
def test_spread_honor_leaves_cordoned_nodes_out(case: str, key: str, policy: str, others: dict, tolerations: list,
                                                want: Any) -> None:
    spec = dict(_spread(key, policy), tolerations=tolerations)
    zones = dict({"src": "a", "x": "b", "y": "c"}, **others)
    nodes = [node(n, labels={ZONE_KEY: z}, unschedulable=n in others) for n, z in zones.items()]
    snap = snapshot(*nodes, deployment("web", 3), pod("web-0", "src", spec=spec), pod("web-1", "x", spec=spec),
                    pod("web-2", "y", spec=spec))
    assert evictions(drain(snap, "src"))["web-0"] == (0, want), case


def test_preferred_terms_fold_match_label_keys_too() -> None:
    """The fold covers preferred terms as well (strategy.go applies it to every pod (anti-)affinity
    term). web-0 prefers hosts without web pods of its own ReplicaSet (weight 100): x runs an
    old-ReplicaSet pod and a busy one, y a pod of its own ReplicaSet. Folded, only y is penalised:
    InterPodAffinity gives x 100 x 2 = 200 against y's 0, more than y's resource lead; unfolded
    both would be penalised alike and the less loaded y would win."""
    term = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname",
            "matchLabelKeys": ["pod-template-hash"]}
    spec = {"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "podAffinityTerm": term}]}}}
    snap = snapshot(node("src"), node("x"), node("y"), deployment("web", 3), deployment("big", 1),
                    _labelled("web-0", "src", spec, **{"pod-template-hash": "h2"}),
                    _labelled("web-1", "x", spec, **{"pod-template-hash": "h1"}),
                    _labelled("web-2", "y", spec, **{"pod-template-hash": "h2"}), pod("big-0", "x", cpu="1", memory="1Gi"))
    assert evictions(drain(snap, "src"))["web-0"] == (0, "x")


# kube-scheduler's cache holds pods by uid (pkg/scheduler/backend/cache/cache.go: podStates keyed
# by UID): a replacement is a pod of its own, and the evicted pod it replaces leaving (its
# termination done) takes nothing else away. The model keys pods by namespace/name, which a
# replacement shares with the pod it replaces. Here a-1's replacement lands on x while a-1 is still
# terminating; c-1's replacement then fits nowhere, after which the model counts the terminating
# pods as gone; b-1's replacement, placed last (priority 100 > 50 > 0: the burst is taken by
# priority), must still see a-1's replacement on x (required pod affinity: lands there; required
# anti-affinity: x is out, "didn't match pod anti-affinity rules").
@pytest.mark.parametrize("term,target", [
    ("podAffinity", "x"),
    ("podAntiAffinity", None),
])
def test_a_replacement_stays_visible_once_the_pod_it_replaces_is_gone(term, target):
    spec = {"affinity": {term: {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "a"}}, "topologyKey": "kubernetes.io/hostname"}]}}, "priority": 0}
    snap = snapshot(node("src"), node("x", cpu="2"), deployment("a", 1), deployment("b", 1), deployment("c", 1),
                    pod("a-1", "src", spec={"priority": 100}), pod("c-1", "src", cpu="64", spec={"priority": 50}),
                    pod("b-1", "src", spec=spec))
    plan = drain(snap, "src")
    ev = evictions(plan)
    assert ev["a-1"][1] == "x" and ev["c-1"][1] is None
    assert ev["b-1"][1] == target
    if target is None:
        why = [e.reason for e in plan.shortfall if e.pod == "b-1"][0]
        assert "1 node(s) didn't match pod anti-affinity rules" in why


# kube-scheduler's activeQ pops the highest priority first, then the pod queued first
# (pkg/scheduler/framework/plugins/queuesort/priority_sort.go Less: p1 > p2 || (p1 == p2 &&
# pInfo1.Timestamp.Before(pInfo2.Timestamp))). A preemption victim's replacement is created when
# the victim is deleted, so it queues behind the replacements of the drain's burst already
# waiting with a priority at least its own. Here h-1's replacement (priority 1000, pinned to x)
# preempts v-1 (100) on x; m-1's replacement (500, queued since the burst) is placed before v-1's
# and takes y; v-1's replacement then fits nowhere and has no lower-priority pod to preempt. Placed
# at once instead, v-1's replacement would take y and be preempted by m-1's (a second delete that
# upstream never makes).
@pytest.mark.parametrize("m_priority,m_target,v_target,deletes", [
    (500, "y", None, [("v-1", "x")]),
    # m-1 below v-1: v-1's replacement goes first and takes y; m-1's cannot preempt it (50 < 100)
    (50, None, "y", [("v-1", "x")]),
])
def test_a_victims_replacement_queues_behind_the_burst(m_priority, m_target, v_target, deletes):
    snap = snapshot(node("src"), node("x", cpu="1"), node("y", cpu="1"),
                    deployment("v", 1), deployment("h", 1), deployment("m", 1),
                    pod("v-1", "x", cpu="800m", spec={"priority": 100}),
                    pod("h-1", "src", cpu="800m", spec={"priority": 1000, "nodeSelector": {"kubernetes.io/hostname": "x"}}),
                    pod("m-1", "src", cpu="800m", spec={"priority": m_priority}))
    plan = drain(snap, "src")
    ev = evictions(plan)
    assert ev["h-1"][1] == "x" and ev["m-1"][1] == m_target
    assert [(a.pod, a.node) for a in plan.actions if a.type == "delete"] == deletes
    victim = [a for a in plan.actions if a.type == "delete"][0]
    assert victim.target == v_target


# kubectl drain evicts the pods its list finds on the node (a field selector on spec.nodeName,
# spec/semantics.md F3). A pod kube-scheduler preempted (a plain DELETE, scheduler.md S6.7) is no
# longer on its node when that node's turn comes, and its replacement is wherever the scheduler
# bound it: on a node drained later, that drain evicts it (no uid: a pod the plan cannot name).
@pytest.mark.parametrize("where,order,evicts", [
    # r-1 runs on n2; h-1's replacement (pinned to n2) preempts it at +0s; r-1's replacement
    # lands on n3: n2's drain does not evict r-1, n3's does
    ("resident", ("n1", "n2", "n3"), [("h-1", "n1", 0), ("h-1", "n2", 30), ("r-1", "n3", 60)]),
    # r-1 runs on n0: its replacement lands on n2 (+0s), is preempted there by h-1's (+30s), and
    # its own replacement lands on n3: n2's drain does not evict it, n3's does
    ("replacement", ("n0", "n1", "n2", "n3"),
     [("r-1", "n0", 0), ("h-1", "n1", 30), ("h-1", "n2", 60), ("r-1", "n3", 90)]),
])
def test_a_preempted_pod_is_evicted_where_its_replacement_went(where, order, evicts):
    nodes = [node(n, cpu="4" if n == "n0" else "1") for n in order]
    snap = snapshot(*nodes, deployment("r", 1), deployment("h", 1),
                    pod("r-1", "n2" if where == "resident" else "n0", cpu="800m", spec={"priority": 0}),
                    pod("h-1", "n1", cpu="800m",
                        spec={"priority": 1000, "nodeSelector": {"kubernetes.io/hostname": "n2"}}))
    plan = drain(snap, *order, one_at_a_time=True)
    assert [(a.pod, a.node, a.at) for a in plan.actions if a.type == "evict"] == evicts
    deletes = [a for a in plan.actions if a.type == "delete"]
    assert [(a.pod, a.node, a.by, a.target) for a in deletes] == [("r-1", "n2", "scheduler", "n3")]
    last = [a for a in plan.actions if a.type == "evict"][-1]
    assert last.uid == "" and "kube-scheduler preempted it on node/n2" in last.reason
