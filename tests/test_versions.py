"""Behaviour by Kubernetes release (v1.30-v1.37): the feature table, `--kubernetes-version`, and
one table test per behaviour that changed in v1.34-v1.37, each naming the upstream PR or file.
Expected values follow the upstream code and release notes (../shared/spec/upstream-1.34-1.37.md),
worked out by hand below."""

from __future__ import annotations

import json
from typing import Any, Dict, List

import pytest

from conftest import node, pod, run_cli, snapshot_list
from kubectl_evict.scheduling.placement import Placer
from kubectl_evict.scheduling.plugins.noderesources import balanced_allocation
from kubectl_evict.scheduling.qos import pod_qos
from kubectl_evict.source.freeze import freeze
from kubectl_evict.versions import FEATURES, cluster_version, feature_applies, parse_flag
from test_pressure_upstream import GI, MI, _plan, _pod_stats, _storage_pod, _summary, _write

# --- the table --------------------------------------------------------------------------------------

@pytest.mark.parametrize("feature, release, on", [
    # tainttoleration/taint_toleration.go: #134740 (v1.35), backported in #135023 (v1.34.2)
    ("UntoleratedTaintsText", (1, 33, 9), False), ("UntoleratedTaintsText", (1, 34, 1), False),
    ("UntoleratedTaintsText", (1, 34, 2), True), ("UntoleratedTaintsText", (1, 35, 0), True),
    # DynamicResources in the default profile from v1.34; #140222 drops the message in v1.37
    ("DRANoClaimsPostFilterText", (1, 33, 3), False), ("DRANoClaimsPostFilterText", (1, 34, 0), True),
    ("DRANoClaimsPostFilterText", (1, 36, 9), True), ("DRANoClaimsPostFilterText", (1, 37, 0), False),
    # website feature-gates/MaxUnavailableStatefulSet.md: on 1.35.0-1.35.3, off 1.35.4-1.36, on 1.37
    ("MaxUnavailableStatefulSet", (1, 34, 9), False), ("MaxUnavailableStatefulSet", (1, 35, 0), True),
    ("MaxUnavailableStatefulSet", (1, 35, 3), True), ("MaxUnavailableStatefulSet", (1, 35, 4), False),
    ("MaxUnavailableStatefulSet", (1, 36, 2), False), ("MaxUnavailableStatefulSet", (1, 37, 0), True),
    ("UnreachableTaintSamePass", (1, 33, 5), False), ("UnreachableTaintSamePass", (1, 34, 0), True),   # #120816
    ("LeaseLiveRecheck", (1, 36, 4), False), ("LeaseLiveRecheck", (1, 37, 0), True),                   # #138698
    ("BalancedAllocationDelta", (1, 35, 6), False), ("BalancedAllocationDelta", (1, 36, 0), True),     # #135573
    ("PodLevelResourcesEviction", (1, 33, 0), False), ("PodLevelResourcesEviction", (1, 34, 0), True),  # #132277
    ("EmptyPodResourcesIgnoredForQoS", (1, 36, 1), False), ("EmptyPodResourcesIgnoredForQoS", (1, 37, 0), True),  # #137150
    ("HugepageAwareEviction", (1, 36, 0), False), ("HugepageAwareEviction", (1, 37, 0), True),         # #138127
    ("SidecarEphemeralStorageLimits", (1, 36, 0), False), ("SidecarEphemeralStorageLimits", (1, 37, 1), True),  # #138462
    ("PreemptionPlacementText", (1, 36, 3), False), ("PreemptionPlacementText", (1, 37, 0), True),     # #140180
    ("NodeMonitorGracePeriod50s", (1, 31, 9), False), ("NodeMonitorGracePeriod50s", (1, 32, 0), True),
    # GetHostPorts counts sidecars' hostPorts: #132040 (v1.34), backport #133390 (CHANGELOG-1.33: v1.33.6)
    ("SidecarHostPorts", (1, 33, 5), False), ("SidecarHostPorts", (1, 33, 6), True), ("SidecarHostPorts", (1, 34, 0), True),
    # CHANGELOG-1.33 (v1.33.0-beta.0): #130260 and #129887, no backport to v1.32.x listed
    ("BalancedAllocationSkipsBestEffort", (1, 32, 9), False), ("BalancedAllocationSkipsBestEffort", (1, 33, 0), True),
    ("PVNodeAffinityText", (1, 32, 9), False), ("PVNodeAffinityText", (1, 33, 0), True),
])
def test_feature_table(feature, release, on):
    assert feature_applies(feature, release) is on


def test_the_readme_table_has_one_row_per_feature():
    """README's "Behaviour follows the cluster's version" table is the user's view of FEATURES:
    a behaviour added to the table in code without a row there goes unsaid."""
    from conftest import REPO
    text = (REPO / "README.md").read_text()
    table = text.split("| behaviour | releases | upstream |\n|---|---|---|\n", 1)[1].split("\n\n", 1)[0]
    assert len(table.strip().splitlines()) == len(FEATURES)


def test_every_feature_names_known_ranges_and_unknown_ones_are_refused():
    for name, ranges in FEATURES.items():
        assert ranges and all(hi is None or lo < hi for lo, hi in ranges), name
    with pytest.raises(KeyError, match="add it to versions.FEATURES"):
        feature_applies("NoSuchFeature", (1, 35, 0))


# --- --kubernetes-version -----------------------------------------------------------------------------

@pytest.mark.parametrize("text, canonical", [("v1.35", "v1.35"), ("1.34.2", "v1.34.2"), (" v1.37.0 ", "v1.37.0")])
def test_flag_values_are_canonical(text, canonical):
    assert parse_flag(text) == canonical


@pytest.mark.parametrize("bad", ["latest", "v1", "2.x", "v2.0", "v1.35-eks", "v1.35.1.2"])
def test_bad_flag_values_are_one_clean_error_naming_the_flag(bad):
    r = run_cli("--demo", "drain", "worker-a1", "--kubernetes-version", bad)
    assert r.returncode == 1, r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --kubernetes-version: "), r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("where", ["before", "after"])
def test_flag_overrides_server_version_and_says_so(where):
    args = ["drain", "worker-a1"]
    flag = ["--kubernetes-version", "v1.35.1"]
    r = run_cli("--demo", "-o", "json", *(flag + args if where == "before" else args + flag))
    doc = json.loads(r.stdout)
    assert doc["assumedVersion"] == {"version": "v1.35.1", "source": "--kubernetes-version"}
    table = run_cli("--demo", *(flag + args if where == "before" else args + flag)).stdout
    assert table.splitlines()[0].endswith("defaults of Kubernetes v1.35.1 (from --kubernetes-version)")


def test_without_any_version_the_newest_modelled_behaviour_applies(write_snapshot):
    path = write_snapshot(node("n1"), node("n2"), pod("web-1", "n1"))
    doc = json.loads(run_cli("-f", path, "-o", "json", "drain", "n1").stdout)
    assert doc["assumedVersion"] == {"version": "v1.37", "source": "default"}


@pytest.mark.parametrize("kubelets, newest, taint_text", [
    # the patch release counts: v1.34.2 (not v1.34.1) carries #135023's `untolerated taint(s)`
    (("v1.34.1", "v1.34.2"), ("v1.34.2", "n2"), "1 node(s) had untolerated taint(s)"),
    (("v1.34.2", "v1.34.1"), ("v1.34.2", "n1"), "1 node(s) had untolerated taint(s)"),
    (("v1.34.1", "v1.34.0"), ("v1.34.1", "n1"), "1 node(s) had untolerated taint {k: v}"),
    (("v1.33.9", "v1.34.0"), ("v1.34.0", "n2"), "1 node(s) had untolerated taint {k: v}"),
])
def test_the_newest_kubelet_by_patch_release_decides(write_snapshot, kubelets, newest, taint_text):
    """Without a serverVersion the newest kubeletVersion (patch included) is the cluster's version."""
    nodes = [node("n1"), node("n2", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}])]
    for n, v in zip(nodes, kubelets):
        n["status"]["nodeInfo"] = {"kubeletVersion": v}
    doc = json.loads(run_cli("-f", write_snapshot(*nodes, pod("web-1", "n1")), "-o", "json", "drain", "n1").stdout)
    assert doc["assumedVersion"] == {"version": newest[0], "source": "kubeletVersion of node %s" % newest[1]}
    assert taint_text in doc["shortfall"][0]["reason"]


# --- FitError text (kube-scheduler) --------------------------------------------------------------------

def _placer(items: List[Dict[str, Any]], version: str, **kw: Any) -> Any:
    snap = freeze([("t.json", "", d) for d in snapshot_list(*items, server_version=version)["items"]])
    return Placer(snap.nodes.values(), snap.pods_by_node, snapshot=snap, **kw), snap


def _unschedulable_cluster() -> List[Dict[str, Any]]:
    """n1 and n2 carry a NoSchedule taint the pod does not tolerate (UnschedulableAndUnresolvable:
    preemption is not helpful); n3 is full with a pod of the same priority (Insufficient cpu,
    no victims)."""
    return [node("n1", taints=[{"key": "k1", "value": "v1", "effect": "NoSchedule"}]),
            node("n2", taints=[{"key": "k2", "value": "v2", "effect": "NoSchedule"}]),
            node("n3"), pod("full", "n3", cpu="3"),
            pod("incoming", "", cpu="2", phase="Pending", ready=False)]


TAINTS_V133 = "1 node(s) had untolerated taint {k1: v1}, 1 node(s) had untolerated taint {k2: v2}"
PREEMPTION = "preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, " \
             "2 Preemption is not helpful for scheduling."


@pytest.mark.parametrize("version, text", [
    ("v1.33.4", "0/3 nodes are available: 1 Insufficient cpu, %s. %s" % (TAINTS_V133, PREEMPTION)),
    # v1.34.0/1: DynamicResources' PostFilter joins "no new claims to deallocate" before preemption
    ("v1.34.1", "0/3 nodes are available: 1 Insufficient cpu, %s. no new claims to deallocate, %s" % (TAINTS_V133, PREEMPTION)),
    # #135023 (v1.34.2) / #134740 (v1.35): one bucket for every untolerated taint
    ("v1.34.2", "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s). "
                "no new claims to deallocate, " + PREEMPTION),
    ("v1.36.0", "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s). "
                "no new claims to deallocate, " + PREEMPTION),
    # #140222 (v1.37): the no-op PostFilter message is gone
    ("v1.37.0", "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s). " + PREEMPTION),
])
def test_failed_scheduling_text_by_version(version, text):
    placer, snap = _placer(_unschedulable_cluster(), version)
    placed = placer.place(snap.pods_by_key[("default", "incoming")])
    assert (placed.node, placed.reason) == (None, text)


@pytest.mark.parametrize("version, event", [
    ("v1.36.2", ""),
    # #140180: DefaultPreemption's Success message reaches the event, with no trailing period
    ("v1.37.0", "0/1 nodes are available: 1 Insufficient cpu. preemption: found a potential placement for pod "
                "on node n1, preempting 1 victims"),
])
def test_preemption_that_finds_a_node_by_version(version, event):
    items = [node("n1"), pod("low", "n1", cpu="3", priority=0),
             pod("urgent", "", cpu="2", priority=1000, phase="Pending", ready=False)]
    placer, snap = _placer(items, version, preempt=True)
    placed = placer.place(snap.pods_by_key[("default", "urgent")])
    assert placed.node == "n1" and [v.name for v, _ in placed.preemptions] == ["low"]
    assert placed.event == event


# --- NodeResourcesBalancedAllocation (#135573, v1.36) ----------------------------------------------------

GIB8 = {"cpu": 4000, "memory": 8 * GI}


@pytest.mark.parametrize("used, pod_req, v135, v136", [
    # node balanced (0.5, 0.5: 100), the pod unbalances it (0.5, 0.625: std 0.0625 -> 93):
    # v1.36 50 + (50 + 93 - 100) // 2 = 71
    ({"cpu": 2000, "memory": 4 * GI}, {"memory": GI}, 93, 71),
    # node unbalanced (0.5, 0.25: 87), the pod evens it out to (0.5, 0.375: 93): 50 + (50 + 93 - 87) // 2 = 78
    ({"cpu": 2000, "memory": 2 * GI}, {"memory": GI}, 93, 78),
    # no change in balance scores 75 (empty node, pod as balanced as the node: 100 -> 100)
    ({"cpu": 0, "memory": 0}, {"cpu": 1000, "memory": 2 * GI}, 100, 75),
    # perfectly balanced -> as unbalanced as two fractions get (1, 0): 50 + (50 + 50 - 100) // 2 = 50
    ({"cpu": 0, "memory": 0}, {"cpu": 4000}, 50, 50),
])
def test_balanced_allocation_scores_the_change_from_v1_36(used, pod_req, v135, v136):
    with_pod = {r: used.get(r, 0) + pod_req.get(r, 0) for r in ("cpu", "memory")}
    assert balanced_allocation(GIB8, with_pod, pod_requests=pod_req) == v135
    assert balanced_allocation(GIB8, with_pod, pod_requests=pod_req, allocated=used) == v136


def test_balanced_allocation_follows_the_snapshot_version():
    from kubectl_evict.scheduling.scoring import resource_scores
    items = [node("n1", cpu="4", memory="8Gi"), pod("a", "n1", cpu="2", memory="4Gi"),
             node("n2", cpu="4", memory="8Gi"), pod("b", "n2", cpu="2", memory="2Gi"),
             pod("incoming", "", cpu=None, memory="1Gi", phase="Pending", ready=False)]
    for version, want in (("v1.35.0", {"n1": 93, "n2": 93}), ("v1.36.0", {"n1": 71, "n2": 78})):
        placer, snap = _placer(items, version)
        _, balanced = resource_scores(placer, snap.pods_by_key[("default", "incoming")], ["n1", "n2"])
        assert balanced == want, version


@pytest.mark.parametrize("version, target, candidates", [
    # before #130260 BalancedAllocation scores a pod with no cpu/memory request by the node's own
    # balance: n-b (cpu 2/4, memory 8/16Gi: std 0, 100) beats n-a (3/4 and 4/16Gi: std 0.25, 75);
    # LeastAllocated ties them at 47 (non-zero defaults 100m/200Mi: (47 + 48) // 2 and (22 + 73) // 2)
    ("v1.30.4", "n-b", []), ("v1.32.5", "n-b", []),
    # #130260 (CHANGELOG-1.33, v1.33.0-beta.0): its PreScore skips the pod; the tie goes by name
    ("v1.33.0", "n-a", ["n-a", "n-b"]), ("v1.36.0", "n-a", ["n-a", "n-b"]),
])
def test_balanced_allocation_scores_best_effort_pods_only_before_v1_33(write_snapshot, version, target, candidates):
    path = write_snapshot(node("n0"), node("n-a"), node("n-b"),
                          pod("fill-a", "n-a", cpu="3", memory="4Gi", owner=None),
                          pod("fill-b", "n-b", cpu="2", memory="8Gi", owner=None),
                          pod("be-1", "n0", cpu=None, memory=None), server_version=version)
    doc = json.loads(run_cli("-f", path, "-o", "json", "drain", "n0").stdout)
    [evict] = [a for a in doc["actions"] if a["type"] == "evict"]
    assert (evict["target"], evict.get("candidates", [])) == (target, candidates)


@pytest.mark.parametrize("version, reason", [
    # volumebinding/binder.go ErrReasonNodeConflict before #129887
    ("v1.30.9", "1 node(s) had volume node affinity conflict"),
    ("v1.32.4", "1 node(s) had volume node affinity conflict"),
    # #129887 (CHANGELOG-1.33, v1.33.0-beta.0); the real v1.33 drains in tests/data/real-drains say it too
    ("v1.33.0", "1 node(s) didn't match PersistentVolume's node affinity"),
    ("v1.37.0", "1 node(s) didn't match PersistentVolume's node affinity"),
])
def test_volume_node_affinity_text_by_version(version, reason):
    """db-0's bound volume is in zone a; a1 is drained, b1 is in zone b: VolumeBinding rejects b1."""
    from test_drain_plan import drain, shortfall, snapshot
    from test_placement_plan import STORAGE_CLASS, statefulset, sts_pod, zonal, zonal_volume
    snap = snapshot(zonal("a1", "a"), zonal("b1", "b"), STORAGE_CLASS, sts_pod("db-0", "a1", "data-db-0"),
                    *zonal_volume("data-db-0", "a"), statefulset("db", 1), version=version)
    text = shortfall(drain(snap, "a1"))["db-0"]
    assert "0/2 nodes are available: %s, 1 node(s) were unschedulable." % reason in text, text


# --- pod-level resources: QoS (#137150) and the eviction ranking (#132277) ---------------------------------

def _pod_with_pod_level(name: str, resources: Any, memory: str = "128Mi") -> Dict[str, Any]:
    p = pod(name, "n1", cpu="100m", memory=memory)
    p["spec"]["containers"][0]["resources"]["limits"] = {"cpu": "100m", "memory": memory}
    p["spec"]["resources"] = resources
    return p


@pytest.mark.parametrize("resources, v136, v137", [
    ({}, "BestEffort", "Guaranteed"),                       # empty pod-level resources decided QoS before v1.37
    ({"requests": {}}, "BestEffort", "Guaranteed"),
    ({"limits": {}}, "BestEffort", "Guaranteed"),
    ({"requests": {"memory": "1Gi"}}, "Burstable", "Burstable"),   # set pod-level values decide in both
])
def test_qos_of_empty_pod_level_resources_by_version(resources, v136, v137):
    for version, want in (("v1.36.0", v136), ("v1.37.0", v137)):
        snap = freeze([("t", "", d) for d in snapshot_list(node("n1"), _pod_with_pod_level("p", resources),
                                                           server_version=version)["items"]])
        assert pod_qos(snap.pods_by_key[("default", "p")], cluster_version(snap)) == want, version


# pkg/apis/core/v1/defaults.go defaultPodRequests (PodLevelResources, on from v1.34): the API server
# fills pod-level requests from the containers' effective requests, else from the pod-level limits,
# whenever pod-level limits are set; QoS and the pod's requests follow. (pod-level resources,
# container requests, QoS, effective cpu millicores and memory bytes)
@pytest.mark.parametrize("resources, container, qos, requests", [
    ({"limits": {"cpu": "1", "memory": "1Gi"}}, None, "Guaranteed", (1000, 1 << 30)),        # from the limits
    ({"limits": {"cpu": "1", "memory": "1Gi"}}, {"cpu": "200m"}, "Burstable", (200, 1 << 30)),  # cpu from the container
    ({"limits": {"memory": "1Gi"}}, None, "Burstable", (0, 1 << 30)),                        # no cpu limit: not Guaranteed
    ({"requests": {"cpu": "1"}}, {"memory": "64Mi"}, "Burstable", (1000, 64 << 20)),         # no limits: nothing defaulted
])
def test_pod_level_requests_are_defaulted_as_the_api_server_does(resources, container, qos, requests):
    p = pod("p", "n1", cpu=None, memory=None)
    p["spec"]["containers"][0]["resources"] = {"requests": container} if container else {}
    p["spec"]["resources"] = resources
    snap = freeze([("t", "", d) for d in snapshot_list(node("n1"), p, server_version="v1.34.0")["items"]])
    frozen = snap.pods_by_key[("default", "p")]
    assert pod_qos(frozen, cluster_version(snap)) == qos
    assert (frozen.requests.get("cpu", 0), frozen.requests.get("memory", 0)) == requests


def test_status_qos_class_wins_in_every_version():
    p = _pod_with_pod_level("p", {})
    p["status"]["qosClass"] = "BestEffort"       # set at creation by a v1.36 API server, immutable
    snap = freeze([("t", "", d) for d in snapshot_list(node("n1"), p, server_version="v1.37.0")["items"]])
    assert pod_qos(snap.pods_by_key[("default", "p")], cluster_version(snap)) == "BestEffort"


@pytest.mark.parametrize("version, first", [
    # v1.33: the containers' 128Mi: both pods use more than they request; then the larger
    # usage-minus-request goes first: big (512Mi - 128Mi) before small (300Mi - 128Mi)
    ("v1.33.2", "big"),
    # #132277 (v1.34): big's pod-level 1Gi request covers its 512Mi: only small exceeds its request
    ("v1.34.0", "small"),
])
def test_eviction_ranking_reads_pod_level_requests_from_v1_34(tmp_path, version, first):
    big = pod("big", "n1", memory="128Mi")
    big["spec"]["resources"] = {"requests": {"memory": "1Gi"}}
    items = [node("n1", memory="8Gi"), big, pod("small", "n1", memory="128Mi")]
    s = _summary("n1", "single", [_pod_stats("big", ws=512 * MI, containers=[("app", 0, 0)]),
                                  _pod_stats("small", ws=300 * MI, containers=[("app", 0, 0)])])
    s["summary"]["node"]["memory"]["availableBytes"] = 300 * MI
    doc = _plan(_write(tmp_path, *items, s, server_version=version), "n1", "--eviction-hard", "memory.available<500Mi")
    assert [a["pod"] for a in doc["actions"] if a["type"] == "kill"][:1] == [first]


# --- kubelet eviction manager: hugepages (#138127) and sidecar limits (#138462) ---------------------------

SHIFTED = "node/n1: memory.available leaves out the node's 1Gi of hugepages, as the v1.37.0 kubelet does " \
          "(HugepageAwareEviction, v1.37, #138127); the stats summary, from kubelet v1.36.1, counts them as available"
UNSHIFTED = "node/n1: memory.available counts the node's 1Gi of hugepages as available, as the v1.36.0 kubelet " \
            "does (HugepageAwareEviction, v1.37, #138127); the stats summary, from kubelet v1.37.0, leaves them out"


@pytest.mark.parametrize("version, flag, kubelet, available, killed, note", [
    ("v1.36.1", None, "v1.36.1", 1200, False, None),    # 1.2Gi available (hugepages counted as available) > 500Mi
    # --kubernetes-version v1.37 on an older kubelet's summary: 1.2Gi - 1Gi < 500Mi, and the plan says why
    ("v1.36.1", "v1.37.0", "v1.36.1", 1200, True, SHIFTED),
    ("v1.37.0", None, "v1.37.0", 1200, False, None),    # a v1.37 kubelet's summary is already adjusted: not twice
    ("v1.37.0", None, "v1.37.0", 300, True, None),      # ... and is taken as it is: 300Mi < 500Mi
    # --kubernetes-version v1.36 on a v1.37 kubelet's summary: the reservation counts again, 300Mi + 1Gi
    ("v1.37.0", "v1.36.0", "v1.37.0", 300, False, UNSHIFTED),
    # a v1.36 kubelet under a v1.37 API server runs v1.36's eviction manager (not hugepage-aware)
    ("v1.37.0", None, "v1.36.1", 1200, False, None),
])
def test_hugepage_aware_memory_available(tmp_path, version, flag, kubelet, available, killed, note):
    n = node("n1", memory="8Gi", extra_alloc={"hugepages-2Mi": "1Gi"})
    n["status"]["nodeInfo"] = {"kubeletVersion": kubelet}
    s = _summary("n1", "single", [_pod_stats("web", ws=200 * MI, containers=[("app", 0, 0)])])
    s["summary"]["node"]["memory"]["availableBytes"] = available * MI
    doc = _plan(_write(tmp_path, n, pod("web", "n1"), s, server_version=version), "n1",
                "--eviction-hard", "memory.available<500Mi", *(["--kubernetes-version", flag] if flag else []))
    assert bool([a for a in doc["actions"] if a["type"] == "kill"]) is killed
    assert [n for n in doc.get("notes", []) if "hugepages" in n] == ([note] if note else [])


@pytest.mark.parametrize("version, message", [
    ("v1.36.0", None),                  # containerEphemeralStorageLimitEviction: regular containers only
    ("v1.37.0", 'Container sidecar exceeded its local ephemeral storage limit "1Gi".'),
])
def test_sidecar_ephemeral_storage_limit_from_v1_37(tmp_path, version, message):
    worker = _storage_pod("worker", [("app", "10Gi")], init=[("sidecar", "1Gi", True)])
    stats = _pod_stats("worker", ephemeral=2 * GI, containers=[("app", 0, 0), ("sidecar", 0, 2 * GI)])
    doc = _plan(_write(tmp_path, node("n1"), worker, _summary("n1", "single", [stats]), server_version=version), "n1")
    kills = [a["reason"] for a in doc["actions"] if a["type"] == "kill"]
    assert kills == ([message] if message else [])


# --- mixed versions: the kubelet's behaviour follows each node's kubelet -------------------------------------
# The version skew policy lets kubelets lag the API server; each runs its own release's eviction manager
# (pkg/kubelet/eviction). The expected values are each release's, from the rows above: #138462 (sidecar
# limits, v1.37), #132277 (pod-level requests in the ranking, v1.34), #122890 (soft grace capped by the pod's
# terminationGracePeriodSeconds, v1.32). --kubernetes-version sets every component's release.

def _kubelet(n: Dict[str, Any], version: str) -> Dict[str, Any]:
    n["status"]["nodeInfo"] = {"kubeletVersion": version}
    return n


@pytest.mark.parametrize("server, kubelet, flag, killed", [
    ("v1.37.0", "v1.37.0", None, True),
    ("v1.37.0", "v1.36.1", None, False),          # the v1.36 kubelet checks regular containers only
    ("v1.37.0", "", None, True),                  # no kubelet version: the cluster's
    ("v1.36.1", "v1.36.1", "v1.37.0", True),      # --kubernetes-version: every kubelet at v1.37
])
def test_sidecar_limits_follow_the_nodes_kubelet(tmp_path, server, kubelet, flag, killed):
    worker = _storage_pod("worker", [("app", "10Gi")], init=[("sidecar", "1Gi", True)])
    stats = _pod_stats("worker", ephemeral=2 * GI, containers=[("app", 0, 0), ("sidecar", 0, 2 * GI)])
    n = _kubelet(node("n1"), kubelet) if kubelet else node("n1")
    doc = _plan(_write(tmp_path, n, worker, _summary("n1", "single", [stats]), server_version=server), "n1",
                *(["--kubernetes-version", flag] if flag else []))
    assert bool([a for a in doc["actions"] if a["type"] == "kill"]) is killed


@pytest.mark.parametrize("server, kubelet, first", [
    ("v1.34.0", "v1.33.2", "big"),       # a v1.33 kubelet ranks by the containers' 128Mi (no #132277)
    ("v1.34.0", "v1.34.0", "small"),
])
def test_ranking_follows_the_nodes_kubelet(tmp_path, server, kubelet, first):
    big = pod("big", "n1", memory="128Mi")
    big["spec"]["resources"] = {"requests": {"memory": "1Gi"}}
    items = [_kubelet(node("n1", memory="8Gi"), kubelet), big, pod("small", "n1", memory="128Mi")]
    s = _summary("n1", "single", [_pod_stats("big", ws=512 * MI, containers=[("app", 0, 0)]),
                                  _pod_stats("small", ws=300 * MI, containers=[("app", 0, 0)])])
    s["summary"]["node"]["memory"]["availableBytes"] = 300 * MI
    doc = _plan(_write(tmp_path, *items, s, server_version=server), "n1", "--eviction-hard", "memory.available<500Mi")
    assert [a["pod"] for a in doc["actions"] if a["type"] == "kill"][:1] == [first]


def test_soft_grace_follows_each_nodes_kubelet_and_the_note_says_so(tmp_path):
    """n1's v1.31 kubelet gives evictionMaxPodGracePeriod (60 s); n2's v1.32 one caps it by the pod's 10 s."""
    items: List[Dict[str, Any]] = []
    stats = []
    for name, kubelet in (("n1", "v1.31.4"), ("n2", "v1.32.0")):
        p = pod("web-" + name, name)
        p["spec"]["terminationGracePeriodSeconds"] = 10
        s = _summary(name, "single", [_pod_stats("web-" + name, ws=200 * MI, containers=[("app", 0, 0)])])
        s["summary"]["node"]["memory"]["availableBytes"] = 300 * MI
        items += [_kubelet(node(name), kubelet), p]
        stats.append(s)
    doc = _plan(_write(tmp_path, *items, *stats, server_version="v1.32.0"), "--eviction-soft", "memory.available<500Mi",
                "--eviction-soft-grace-period", "memory.available=30s", "--eviction-max-pod-grace-period", "60")
    assert {a["pod"]: a["gracePeriodSeconds"] for a in doc["actions"] if a["type"] == "kill"} == \
        {"web-n1": 60, "web-n2": 10}
    assert [n for n in doc["notes"] if n.startswith("kubelet ")] == [
        "kubelet v1.31.4 on 1 node (n1): planned with that release's eviction manager, not the control plane's "
        "v1.32.0 (from serverVersion)"]
    notes = [n for n in doc["notes"] if "soft-threshold kills" in n]
    assert notes == [
        "on node/n1: soft-threshold kills use evictionMaxPodGracePeriod as the grace period, the kubelet's rule "
        "before v1.32 (assumed Kubernetes v1.31.4 (from kubeletVersion of node n1))",
        "on node/n2: soft-threshold kills use min(evictionMaxPodGracePeriod, terminationGracePeriodSeconds), the "
        "kubelet's rule from v1.32 (assumed Kubernetes v1.32.0 (from serverVersion))"]


# --- the demo ----------------------------------------------------------------------------------------------

DRAIN = ["drain", "worker-a1", "--ignore-daemonsets", "--delete-emptydir-data", "--force"]


def test_demo_plans_the_same_at_v1_33_as_from_its_server_version():
    """The demo records serverVersion v1.33.2: asking for v1.33.2 changes only the header. (A bare
    `v1.33` is v1.33.0, and adds a warning: SidecarHostPorts changes at v1.33.6.)"""
    for fmt in ("wide", "json"):
        own = run_cli("--demo", "-o", fmt, *DRAIN, env={"COLUMNS": "160"}).stdout
        asked = run_cli("--demo", "-o", fmt, "--kubernetes-version", "v1.33.2", *DRAIN, env={"COLUMNS": "160"}).stdout
        if fmt == "json":
            a, b = json.loads(own), json.loads(asked)
            assert b.pop("assumedVersion") == {"version": "v1.33.2", "source": "--kubernetes-version"}
            a.pop("assumedVersion")
            assert a == b
        else:
            assert own.splitlines()[1:] == asked.splitlines()[1:]


@pytest.mark.parametrize("version, present, absent", [
    ("v1.33", ["untolerated taint {"], ["untolerated taint(s)", "no new claims to deallocate"]),
    ("v1.35", ["untolerated taint(s). no new claims to deallocate, preemption: 0/12"], ["untolerated taint {"]),
    ("v1.37", ["untolerated taint(s). preemption: 0/12"], ["untolerated taint {", "no new claims to deallocate"]),
])
def test_demo_shows_each_versions_scheduler_texts(version, present, absent):
    out = run_cli("--demo", "-o", "json", "--kubernetes-version", version, *DRAIN).stdout
    for text in present:
        assert text in out, (version, text)
    for text in absent:
        assert text not in out, (version, text)


def test_demo_controller_taints_without_the_extra_period_from_v1_34():
    def noexec(version: str) -> List[Any]:
        doc = json.loads(run_cli("--demo", "-o", "json", "--kubernetes-version", version, "controller",
                                 "--fail", "worker-b1").stdout)
        return [a["at"] for a in doc["actions"] if a["type"] == "taint" and a["effect"] == "NoExecute"]
    assert noexec("v1.33") == [55] and noexec("v1.37") == [50]


@pytest.mark.parametrize("version, at, queued", [
    # semantics.md C10 (v1.28-v1.33): the unreachable:NoExecute taint is queued one monitor pass
    # after the pass that sets Ready=Unknown (grace 50s + period 5s)
    ("v1.33", 55, "queued one --node-monitor-period after Ready left True"),
    # #120816 (v1.34): processTaintBaseEviction reads the condition the same pass set
    ("v1.34", 50, "queued in the monitor pass that sets Ready=Unknown"),
    ("v1.37", 50, "queued in the monitor pass that sets Ready=Unknown"),
])
def test_shutdown_without_graceful_shutdown_says_when_the_unreachable_taint_is_queued(version, at, queued):
    """worker-b1 has no graceful shutdown: its kubelet goes silent, and the reason of the NoExecute
    taint must tell the release's timing, not v1.33's whatever the time says."""
    doc = json.loads(run_cli("--demo", "-o", "json", "--kubernetes-version", version, "shutdown", "worker-b1").stdout)
    [taint] = [a for a in doc["actions"] if a["type"] == "taint" and a["effect"] == "NoExecute"]
    assert (taint["key"], taint["at"]) == ("node.kubernetes.io/unreachable", at)
    assert taint["reason"].startswith("node lifecycle controller: " + queued), taint["reason"]


# --- StatefulSet rollouts: MaxUnavailableStatefulSet ------------------------------------------------------

def _sts_cluster(max_unavailable: Any, current: str = "web-1", update: str = "web-2") -> List[Dict[str, Any]]:
    sts = {"apiVersion": "apps/v1", "kind": "StatefulSet",
           "metadata": {"name": "web", "namespace": "default", "uid": "uid-web"},
           "spec": {"replicas": 5, "selector": {"matchLabels": {"app": "web"}},
                    "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": max_unavailable}}},
           "status": {"currentRevision": current, "updateRevision": update}}
    return [node("n1"), node("n2"), sts] + [pod("web-%d" % i, "n1" if i < 2 else "n2", owner=("StatefulSet", "web"),
                                                labels={"app": "web"}) for i in range(5)]


@pytest.mark.parametrize("version, max_unavailable, text", [
    # stateful_set_control.go: updateStatefulSetAfterInvariantEstablished only with the gate on
    ("v1.34.3", 3, "up to 1 pod at once by itself (MaxUnavailableStatefulSet off in v1.34.3: "
                   "rollingUpdate.maxUnavailable 3 is ignored)"),
    ("v1.35.2", 3, "up to 3 pods at once by itself (rollingUpdate.maxUnavailable 3, MaxUnavailableStatefulSet on in v1.35.2)"),
    ("v1.35.4", 3, "up to 1 pod at once by itself (MaxUnavailableStatefulSet off in v1.35.4"),
    ("v1.36.0", 3, "up to 1 pod at once"),
    ("v1.37.0", 3, "up to 3 pods at once"),
    # getStatefulSetMaxUnavailable: a percentage of replicas rounded down (50% of 5: 2)
    ("v1.37.0", "50%", "up to 2 pods at once"),
])
def test_statefulset_rollout_warning_by_version(write_snapshot, version, max_unavailable, text):
    path = write_snapshot(*_sts_cluster(max_unavailable), server_version=version)
    doc = json.loads(run_cli("-f", path, "-o", "json", "drain", "n1").stdout)
    [w] = [w for w in doc["warnings"] if "rolling out" in w]
    assert w.startswith("StatefulSet default/web is rolling out (currentRevision != updateRevision): ") and text in w, w


def test_no_rollout_warning_when_the_statefulset_is_at_its_revision(write_snapshot):
    path = write_snapshot(*_sts_cluster(3, current="web-2", update="web-2"), server_version="v1.37.0")
    doc = json.loads(run_cli("-f", path, "-o", "json", "drain", "n1").stdout)
    assert not [w for w in doc["warnings"] if "rolling out" in w]


# --- nominated pods (the scheduler's nominator; KEP-5278 in v1.35) ---------------------------------------

def _nominated(name: str, node_name: str, cpu: str, priority: int, bound: str = "") -> Dict[str, Any]:
    p = pod(name, bound, cpu=cpu, priority=priority, phase="Running" if bound else "Pending", ready=bool(bound))
    p["status"]["nominatedNodeName"] = node_name
    return p


@pytest.mark.parametrize("version", ["v1.33.3", "v1.35.0", "v1.37.0"])
@pytest.mark.parametrize("priority, target", [
    # addGENominatedPods: a pod nominated to n1 with priority >= the incoming pod's holds its 3 cpu
    (0, "n2"), (100, "n2"),
    # ... and one of lower priority does not (the incoming pod may take the room)
    (1000, "n1"),
])
def test_unbound_nominated_pods_hold_room_on_their_node(version, priority, target):
    items = [node("n1"), node("n2"), pod("busy", "n2", cpu="1"), _nominated("waiting", "n1", "3", 100),
             pod("incoming", "", cpu="2", priority=priority, phase="Pending", ready=False)]
    placer, snap = _placer(items, version)
    assert placer.place(snap.pods_by_key[("default", "incoming")]).node == target


def test_a_bound_pods_leftover_nomination_holds_nothing():
    """Real v1.33 captures show Running pods still carrying nominatedNodeName (cleared on bind
    only from v1.35, #135103): it is no nomination."""
    items = [node("n1"), _nominated("done", "n1", "100m", 100, bound="n1"),
             pod("incoming", "", cpu="3", phase="Pending", ready=False)]
    placer, snap = _placer(items, "v1.33.3")
    assert placer.place(snap.pods_by_key[("default", "incoming")]).node == "n1"


def test_nominated_room_shows_in_the_scheduler_text():
    items = [node("n1"), _nominated("waiting", "n1", "3", 100),
             pod("incoming", "", cpu="2", phase="Pending", ready=False)]
    placer, snap = _placer(items, "v1.33.3")
    assert placer.place(snap.pods_by_key[("default", "incoming")]).reason == (
        "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: "
        "1 No preemption victims found for incoming pod.")


@pytest.mark.parametrize("version, shown", [("v1.28", "v1.30"), ("v1.39.1", "v1.37")])
def test_a_release_outside_the_modelled_ones_is_planned_with_the_nearest_and_says_so(version, shown):
    doc = json.loads(run_cli("--demo", "-o", "json", "--kubernetes-version", version, *DRAIN).stdout)
    assert ("Kubernetes %s (from --kubernetes-version) is outside the releases modelled (v1.30 to v1.37): "
            "the plan shows %s's behaviour" % (version, shown)) in doc["warnings"]
    inside = json.loads(run_cli("--demo", "-o", "json", "--kubernetes-version", "v1.35", *DRAIN).stdout)
    assert not [w for w in inside["warnings"] if "outside the releases modelled" in w]


@pytest.mark.parametrize("kubelets, server, warning, source", [
    # no version reads: the newest modelled behaviour, and the plan says which kubelets it could not read
    (("v1.x", "garbage"), "", "status.nodeInfo.kubeletVersion of 2 nodes (n1: 'v1.x', "
     "n2: 'garbage') is not a Kubernetes version: planned as v1.37 (newest modelled; the snapshot records no version)",
     "default"),
    # one reads: it decides (the newest kubelet); the other node still gets a word
    (("v1.x", "v1.34.0"), "", "status.nodeInfo.kubeletVersion of 1 node (n1: 'v1.x') is not a Kubernetes version: "
     "planned as v1.34.0 (from kubeletVersion of node n2)", "kubeletVersion of node n2"),
    (("v1.34.0", "v1.35.1"), "", None, "kubeletVersion of node n2"),
    (("v1.x", ""), "v1.36.2", "status.nodeInfo.kubeletVersion of 1 node (n1: 'v1.x') is not a Kubernetes version: "
     "planned as v1.36.2 (from serverVersion)", "serverVersion"),
])
def test_unreadable_kubelet_versions_are_named(write_snapshot, kubelets, server, warning, source):
    nodes = [node("n1"), node("n2")]
    for n, v in zip(nodes, kubelets):
        if v:
            n["status"]["nodeInfo"] = {"kubeletVersion": v}
    doc = json.loads(run_cli("-f", write_snapshot(*nodes, pod("web-1", "n1"), server_version=server), "-o", "json",
                             "drain", "n1").stdout)
    assert doc["assumedVersion"]["source"] == source
    assert [w for w in doc["warnings"] if "kubeletVersion" in w] == ([warning] if warning else [])


# TaintTolerationComparisonOperators (v1.35 alpha, off through v1.37, #134665): an API server with
# the gate off refuses Gt/Lt tolerations, so a snapshot that holds them says the gate is on, which
# the plan does not model: it names those pods instead of passing over them.
@pytest.mark.parametrize("operators, warned", [
    (("Gt",), ["default/a-1"]),
    (("Lt", "Gt"), ["default/a-1", "default/b-1"]),
    (("Exists",), []),
])
def test_gt_lt_tolerations_are_named(write_snapshot, operators, warned):
    pods = [pod("%s-1" % name, "n2", tolerations=[{"key": "gen", "operator": op, "value": "3",
                                                     "effect": "NoSchedule"} if op != "Exists" else
                                                    {"key": "gen", "operator": "Exists"}])
            for name, op in zip("ab", operators)]
    doc = json.loads(run_cli("-f", write_snapshot(node("n1"), node("n2"), pod("web-1", "n1"), *pods,
                                                  server_version="v1.35.0"), "-o", "json", "drain", "n1").stdout)
    got = [w for w in doc["warnings"] if "Gt/Lt" in w]
    if not warned:
        assert got == []
    else:
        assert got == ["Gt/Lt tolerations on %d pod%s (%s): the cluster runs with the alpha gate "
                       "TaintTolerationComparisonOperators on; the plan models it off, so these tolerations "
                       "tolerate no taint here and such a pod may fit where the plan says it does not"
                       % (len(warned), "" if len(warned) == 1 else "s", ", ".join(warned))]


# --- NodePorts: which containers' hostPorts a pod holds (kube-scheduler GetHostPorts) ---------------------

def _ports_cluster(kind: str, holder: str) -> List[Dict[str, Any]]:
    """`web-1` on n1 is drained; n2 is the only other node and `hp` there holds host port 8081.
    `kind` says which container of `holder` ("web" or "resident") declares the port: "main", a
    "sidecar" init container (restartPolicy Always) or a plain "init" container; the other pod
    declares it in its main container."""
    def spec_ports(p: Dict[str, Any], which: str) -> Dict[str, Any]:
        port = [{"containerPort": 8081, "hostPort": 8081}]
        if which == "main":
            p["spec"]["containers"][0]["ports"] = port
        else:
            init = {"name": "side", "image": "x", "ports": port}
            if which == "sidecar":
                init["restartPolicy"] = "Always"
            p["spec"]["initContainers"] = [init]
        return p
    web, resident = pod("web-1", "n1"), pod("hp", "n2", owner=None)
    spec_ports(web, kind if holder == "web" else "main")
    spec_ports(resident, kind if holder == "resident" else "main")
    return [node("n1"), node("n2"), web, resident]


@pytest.mark.parametrize("kind, holder, version, target", [
    # before #132040 only spec.containers' ports count: a sidecar's port conflicts with nothing
    ("sidecar", "web", "v1.33.5", "n2"), ("sidecar", "resident", "v1.33.5", "n2"),
    # from v1.34 (v1.33.6 by backport) a restartable init container's hostPort is held like a container's
    ("sidecar", "web", "v1.33.6", None), ("sidecar", "web", "v1.34.0", None), ("sidecar", "resident", "v1.34.0", None),
    ("sidecar", "web", "v1.37.0", None),
    # a plain init container has exited before the pod runs: its port is never counted
    ("init", "web", "v1.33.5", "n2"), ("init", "web", "v1.34.0", "n2"), ("init", "resident", "v1.37.0", "n2"),
    ("main", "web", "v1.33.5", None), ("main", "web", "v1.37.0", None),
])
def test_node_ports_count_sidecar_host_ports_from_v1_34(write_snapshot, kind, holder, version, target):
    path = write_snapshot(*_ports_cluster(kind, holder), server_version=version)
    r = run_cli("-f", path, "-o", "json", "drain", "n1")
    plan = json.loads(r.stdout)
    [evict] = [a for a in plan["actions"] if a["type"] == "evict"]
    assert evict.get("target") == target, r.stdout


# --- --kubernetes-version without a patch ----------------------------------------------------------
# FEATURES' patch-level boundaries, each from its upstream source: SidecarHostPorts from v1.33.6
# (#133390, CHANGELOG-1.33), UntoleratedTaintsText from v1.34.2 (#135023), MaxUnavailableStatefulSet
# off from v1.35.4 (website feature-gates/MaxUnavailableStatefulSet.md). `v1.34` means v1.34.0.
@pytest.mark.parametrize("flag, said", [
    ("v1.33", "SidecarHostPorts (NodePorts counts the hostPorts of sidecar containers: off in v1.33.0, on from "
              "v1.33.6); give the patch release to plan another (e.g. --kubernetes-version v1.33.6)"),
    ("v1.34", "UntoleratedTaintsText (FailedScheduling says `node(s) had untolerated taint(s)`: off in v1.34.0, on "
              "from v1.34.2); give the patch release to plan another (e.g. --kubernetes-version v1.34.2)"),
    ("1.35", "MaxUnavailableStatefulSet (StatefulSet rollingUpdate.maxUnavailable is honoured: on in v1.35.0, off "
             "from v1.35.4); give the patch release to plan another (e.g. --kubernetes-version v1.35.4)"),
    # no patch-level boundary in the minor, or the patch is given: nothing to say
    ("v1.32", None), ("v1.36", None), ("v1.37", None), ("v1.34.0", None), ("v1.34.1", None), ("v1.35.4", None),
])
def test_a_flag_without_a_patch_says_what_the_dot_zero_decides(flag, said):
    doc = json.loads(run_cli("--demo", "-o", "json", "--kubernetes-version", flag, *DRAIN).stdout)
    got = [w for w in doc["warnings"] if w.startswith("--kubernetes-version")]
    mm = "v" + flag.lstrip("v")
    assert got == ([] if said is None else
                   ["--kubernetes-version %s is planned as %s.0, and a behaviour changes within %s: %s"
                    % (mm, mm, mm, said)])


def test_every_patch_level_boundary_says_what_it_changes():
    """A feature that starts or stops at a patch release (not .0) is named by the patch-less flag's
    warning, with what it changes."""
    from kubectl_evict.versions import PATCH_FEATURE_TEXT
    at_patch = {name for name, ranges in FEATURES.items() for lo, hi in ranges
                for edge in (lo, hi) if edge is not None and edge[2] > 0}
    assert at_patch == set(PATCH_FEATURE_TEXT)


# --- version skew (kubernetes/website content/en/releases/version-skew-policy.md: "kubelet must not
# be newer than kube-apiserver"; "kubelet may be up to three minor versions older than kube-apiserver
# (kubelet < 1.25 may only be up to two minor versions older)"; minors only) -------------------------
NEWER = ("newer than the API server (%s): the version skew policy does not allow a kubelet newer than "
         "kube-apiserver; each is planned with its own release's kubelet behaviour")
OLDER = ("more than 3 minor releases older than the API server (%s): outside the version skew policy (a kubelet "
         "may be up to 3 minors older than kube-apiserver; 2 before v1.25)")
OUTSIDE = ("outside the releases modelled (v1.30 to v1.37): each is planned with the nearest modelled release's "
           "kubelet behaviour")


@pytest.mark.parametrize("server, kubelets, flag, warnings", [
    # same minor, any patch: supported
    ("v1.33.2", ("v1.33.9", "v1.33.0"), None, []),
    ("v1.33.2", ("v1.34.0", "v1.33.9"), None, ["the kubelet of 1 node (n1: v1.34.0) is " + NEWER % "v1.33.2"]),
    # n-3 is supported, n-4 is not (and v1.29 is older than the releases modelled)
    ("v1.33.2", ("v1.30.1", "v1.29.11"), None, ["the kubelet of 1 node (n2: v1.29.11) is " + OLDER % "v1.33.2",
                                                "the kubelet of 1 node (n2: v1.29.11) is " + OUTSIDE]),
    ("v1.37.0", ("v1.38.0", "v1.37.1"), None, ["the kubelet of 1 node (n1: v1.38.0) is " + NEWER % "v1.37.0",
                                               "the kubelet of 1 node (n1: v1.38.0) is " + OUTSIDE]),
    # n-3 from v1.25 on, only n-2 before (both kubelets get v1.30's behaviour, as the cluster does, which
    # `outside_modelled` already says)
    ("v1.31.0", ("v1.31.0", "v1.28.4"), None, ["the kubelet of 1 node (n2: v1.28.4) is " + OUTSIDE]),
    ("v1.27.3", ("v1.24.0", "v1.25.0"), None, ["the kubelet of 1 node (n1: v1.24.0) is " + OLDER % "v1.27.3"]),
    # no serverVersion: the API server is at least the newest kubelet
    ("", ("v1.34.0", "v1.30.0"), None,
     ["the kubelet of 1 node (n2: v1.30.0) is " + OLDER % "at least v1.34.0, the kubelet of node n1"]),
    ("", ("v1.34.0", "v1.31.0"), None, []),
    # --kubernetes-version sets every component's release: no node's own version counts
    ("v1.33.2", ("v1.34.0", "v1.29.0"), "v1.33.2", []),
    # at most 5 named, and the count
    ("v1.33.2", ("v1.34.0", "v1.34.0", "v1.34.1", "v1.35.0", "v1.34.0", "v1.34.2"), None,
     ["the kubelets of 6 nodes (n1: v1.34.0, n2: v1.34.0, n3: v1.34.1, n4: v1.35.0, n5: v1.34.0 and 1 more) are "
      + NEWER % "v1.33.2"]),
])
def test_kubelets_outside_the_version_skew_policy_are_named(write_snapshot, server, kubelets, flag, warnings):
    nodes = [node("n%d" % (i + 1)) for i in range(len(kubelets))]
    for n, v in zip(nodes, kubelets):
        n["status"]["nodeInfo"] = {"kubeletVersion": v}
    args = ["--kubernetes-version", flag] if flag else []
    doc = json.loads(run_cli("-f", write_snapshot(*nodes, pod("web-1", "n1"), server_version=server), "-o", "json",
                             *args, "drain", "n1").stdout)
    assert [w for w in doc["warnings"] if w.startswith("the kubelet")] == warnings
