"""`pressure` against the kubelet eviction manager where the two used to disagree (issue 15).

Each table row names the upstream function (kubernetes v1.33, pkg/kubelet/eviction unless said
otherwise) whose behaviour it pins down; expected values come from reading that function, not
from this tool's output:

- local-storage limits (`localStorageEviction`): `emptyDirLimitEviction` (any medium),
  `podEphemeralStorageLimitEviction` through component-helpers `resourcehelper.PodLimits`
  (limits that are set are summed; init and sidecar containers as `aggregateContainerResourcesByFn`),
  `containerEphemeralStorageLimitEviction` (rootfs only when `!*m.dedicatedImageFs`);
- `synchronize`: `m.thresholdsMet = thresholds` after `thresholdsMetGracePeriod`, so only
  thresholds whose grace passed carry their minimum reclaim into the next cycle;
- the soft-eviction grace override in `synchronize` by Kubernetes version;
- ranking without stats (`exceedMemoryRequests` etc.: `cmpBool(!p1Found, !p2Found)`, then
  `priority`) and pressure that outlasts every possible kill (exit code 4, `threshold-persists`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import NOW, node, pod, run_cli  # noqa: E402

from kubectl_evict.eviction.manager import ManagerState, eviction_grace, synchronize  # noqa: E402
from kubectl_evict.eviction.thresholds import Observation, Threshold, ThresholdValue  # noqa: E402
from kubectl_evict.quantity import parse_quantity  # noqa: E402
from kubectl_evict.scheduling.resources import pod_limits  # noqa: E402
from kubectl_evict.source.freeze import freeze  # noqa: E402

MI = 2 ** 20
GI = 2 ** 30


# --- snapshot builders ----------------------------------------------------------------------------

def _container(name: str, limit: Optional[str], sidecar: bool = False) -> Dict[str, Any]:
    c: Dict[str, Any] = {"name": name, "image": "x", "resources": {"requests": {"memory": "64Mi"}}}
    if limit is not None:
        c["resources"]["limits"] = {"ephemeral-storage": limit}
    if sidecar:
        c["restartPolicy"] = "Always"
    return c


def _storage_pod(name: str, containers, init=(), volumes=None) -> Dict[str, Any]:
    p = pod(name, "n1", volumes=volumes)
    p["spec"]["containers"] = [_container(*c) for c in containers]
    if init:
        p["spec"]["initContainers"] = [_container(*c) for c in init]
    return p


_FS = {"capacityBytes": 100 * GI, "availableBytes": 80 * GI}
_IMAGE_FS = {"capacityBytes": 200 * GI, "availableBytes": 150 * GI}
LAYOUT_FS = {   # node.fs / runtime.imageFs / runtime.containerFs, as the kubelet's summary shows them
    "single": {"imageFs": _FS, "containerFs": _FS},
    "imagefs": {"imageFs": _IMAGE_FS, "containerFs": _IMAGE_FS},
    "split": {"imageFs": _IMAGE_FS, "containerFs": _FS},
}


def _summary(node_name: str, layout: str, pods: List[Dict[str, Any]]) -> Dict[str, Any]:
    s = {"node": {"nodeName": node_name, "memory": {"availableBytes": 6 * GI, "workingSetBytes": 2 * GI},
                  "systemContainers": [{"name": "pods", "memory": {"availableBytes": 6 * GI, "workingSetBytes": GI}}],
                  "fs": dict(_FS), "runtime": {k: dict(v) for k, v in LAYOUT_FS[layout].items()}},
         "pods": pods}
    return {"apiVersion": "evictplan/v1alpha1", "kind": "NodeStatsSummary", "metadata": {"name": node_name}, "summary": s}


def _pod_stats(name: str, *, ephemeral: Optional[int] = None, containers=(), volumes=(), ws: int = 10 * MI) -> Dict[str, Any]:
    ps: Dict[str, Any] = {"podRef": {"name": name, "namespace": "default", "uid": "uid-default-" + name},
                          "memory": {"workingSetBytes": ws},
                          "containers": [{"name": c, "memory": {"workingSetBytes": ws},
                                          "rootfs": {"usedBytes": root}, "logs": {"usedBytes": logs}}
                                         for c, root, logs in containers],
                          "volume": [{"name": v, "usedBytes": used} for v, used in volumes]}
    if ephemeral is not None:
        ps["ephemeral-storage"] = {"usedBytes": ephemeral}
    return ps


def _write(tmp_path: Path, *items: Dict[str, Any], server_version: Optional[str] = None) -> str:
    info: Dict[str, Any] = {"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
                            "takenAt": NOW, "context": "test", "server": "https://test.invalid:6443"}
    if server_version:
        info["serverVersion"] = server_version
    p = tmp_path / "cluster.json"
    p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [info, *items]}))
    return str(p)


def _plan(path: str, *args: str) -> Dict[str, Any]:
    """The command in-process (same parsing and rule as the CLI); the exit-code cases below
    run the real process."""
    from click.testing import CliRunner
    from kubectl_evict.cli import cli
    r = CliRunner().invoke(cli, ["-f", path, "-o", "json", "pressure", *args], standalone_mode=False)
    assert r.exception is None, r.exception
    return json.loads(r.output)


def _kills(doc: Dict[str, Any]) -> List[tuple]:
    return [(a["pod"], a["at"], a["gracePeriodSeconds"]) for a in doc["actions"] if a["type"] == "kill"]


# --- 1, 4, 5: localStorageEviction -------------------------------------------------------------

LOCAL = [
    # (id, upstream function, layout, containers, init containers, volumes, pod stats, expected kill message or None)
    ("one-of-two-containers-limited",
     "podEphemeralStorageLimitEviction / resourcehelper.PodLimits: c2 without a limit adds nothing",
     "single", [("c1", "1Gi"), ("c2", None)], [], None,
     dict(ephemeral=2 * GI, containers=[("c1", 10 * MI, 10 * MI), ("c2", 10 * MI, 10 * MI)]),
     "Pod ephemeral local storage usage exceeds the total limit of containers 1Gi."),
    ("both-limited-within-the-sum",
     "podEphemeralStorageLimitEviction / resourcehelper.PodLimits: 1Gi + 1Gi = 2Gi",
     "single", [("c1", "1Gi"), ("c2", "1Gi")], [], None,
     dict(ephemeral=1536 * MI, containers=[("c1", 10 * MI, 10 * MI), ("c2", 10 * MI, 10 * MI)]),
     None),
    ("init-container-limit-is-larger",
     "resourcehelper.PodLimits -> aggregateContainerResourcesByFn: max(containers 1Gi, init 3Gi)",
     "single", [("c1", "1Gi")], [("setup", "3Gi")], None,
     dict(ephemeral=2 * GI, containers=[("c1", 10 * MI, 10 * MI)]),
     None),
    ("init-container-limit-exceeded",
     "resourcehelper.PodLimits -> aggregateContainerResourcesByFn: max(containers 1Gi, init 3Gi)",
     "single", [("c1", "1Gi")], [("setup", "3Gi")], None,
     dict(ephemeral=3584 * MI, containers=[("c1", 10 * MI, 10 * MI)]),
     "Pod ephemeral local storage usage exceeds the total limit of containers 3Gi."),
    ("only-an-init-container-limited",
     "resourcehelper.PodLimits -> maxResourceList: a resource only init containers limit is still found",
     "single", [("c1", None)], [("setup", "1Gi")], None,
     dict(ephemeral=2 * GI, containers=[("c1", 10 * MI, 10 * MI)]),
     "Pod ephemeral local storage usage exceeds the total limit of containers 1Gi."),
    ("sidecar-adds-to-the-sum",
     "resourcehelper.PodLimits -> aggregateContainerResourcesByFn: restartable init containers add to the sum",
     "single", [("c1", "1Gi")], [("proxy", "1Gi", True)], None,
     dict(ephemeral=1536 * MI, containers=[("c1", 10 * MI, 10 * MI)]),
     None),
    ("sidecar-sum-exceeded",
     "resourcehelper.PodLimits -> aggregateContainerResourcesByFn: restartable init containers add to the sum",
     "single", [("c1", "1Gi")], [("proxy", "1Gi", True)], None,
     dict(ephemeral=2560 * MI, containers=[("c1", 10 * MI, 10 * MI)]),
     "Pod ephemeral local storage usage exceeds the total limit of containers 2Gi."),
    ("init-after-sidecar-counts-the-sidecar",
     "resourcehelper.PodLimits -> aggregateContainerResourcesByFn: init 512Mi runs beside sidecar 1Gi",
     "single", [("c1", None)], [("proxy", "1Gi", True), ("migrate", "512Mi")], None,
     dict(ephemeral=1600 * MI, containers=[("c1", 10 * MI, 10 * MI)]),
     "Pod ephemeral local storage usage exceeds the total limit of containers 1536Mi."),
    ("container-rootfs-counts-on-a-single-filesystem",
     "containerEphemeralStorageLimitEviction: logs + rootfs when !dedicatedImageFs",
     "single", [("c1", "1Gi"), ("c2", "10Gi")], [], None,
     dict(ephemeral=1100 * MI, containers=[("c1", 900 * MI, 200 * MI), ("c2", 0, 0)]),
     'Container c1 exceeded its local ephemeral storage limit "1Gi".'),
    ("container-rootfs-not-counted-with-a-dedicated-imagefs",
     "containerEphemeralStorageLimitEviction: logs only when dedicatedImageFs",
     "imagefs", [("c1", "1Gi"), ("c2", "10Gi")], [], None,
     dict(ephemeral=1100 * MI, containers=[("c1", 900 * MI, 200 * MI), ("c2", 0, 0)]),
     None),
    ("container-rootfs-not-counted-in-the-split-layout",
     "containerEphemeralStorageLimitEviction: the split layout has a dedicated imagefs too (HasDedicatedImageFs)",
     "split", [("c1", "1Gi"), ("c2", "10Gi")], [], None,
     dict(ephemeral=1100 * MI, containers=[("c1", 900 * MI, 200 * MI), ("c2", 0, 0)]),
     None),
    ("container-logs-count-in-the-split-layout",
     "containerEphemeralStorageLimitEviction: logs always count",
     "split", [("c1", "1Gi"), ("c2", "10Gi")], [], None,
     dict(ephemeral=1200 * MI, containers=[("c1", 0, 1200 * MI), ("c2", 0, 0)]),
     'Container c1 exceeded its local ephemeral storage limit "1Gi".'),
    ("memory-emptydir-over-its-size-limit",
     "emptyDirLimitEviction: no medium check, tmpfs usage against sizeLimit",
     "single", [("c1", None)], [], [{"name": "cache", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}}],
     dict(ephemeral=10 * MI, containers=[("c1", 0, 0)], volumes=[("cache", 100 * MI)]),
     'Usage of EmptyDir volume "cache" exceeds the limit "64Mi".'),
    ("memory-emptydir-within-its-size-limit",
     "emptyDirLimitEviction: used.Cmp(size) > 0 only",
     "single", [("c1", None)], [], [{"name": "cache", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}}],
     dict(ephemeral=10 * MI, containers=[("c1", 0, 0)], volumes=[("cache", 64 * MI)]),
     None),
    ("disk-emptydir-over-its-size-limit",
     "emptyDirLimitEviction",
     "single", [("c1", None)], [], [{"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}}],
     dict(ephemeral=1100 * MI, containers=[("c1", 0, 0)], volumes=[("scratch", 1100 * MI)]),
     'Usage of EmptyDir volume "scratch" exceeds the limit "1Gi".'),
]


@pytest.mark.parametrize("case", LOCAL, ids=[c[0] for c in LOCAL])
def test_local_storage_limit_eviction(tmp_path, case):
    _, upstream, layout, containers, init, volumes, stats, message = case
    items = [node("n1"), _storage_pod("worker", containers, init, volumes),
             _summary("n1", layout, [_pod_stats("worker", **stats)])]
    doc = _plan(_write(tmp_path, *items), "n1")
    kills = [a for a in doc["actions"] if a["type"] == "kill"]
    if message is None:
        assert kills == [], upstream
        return
    [kill] = kills
    # localStorageEviction evicts at once with immediateEvictionGracePeriodSeconds
    assert (kill["pod"], kill["at"], kill["gracePeriodSeconds"], kill["by"]) == ("worker", 0, 1, "kubelet"), upstream
    assert kill["reason"] == message, upstream


PODLIMITS = [
    # (upstream, containers, init containers, overhead, expected ephemeral-storage limit or None)
    ("resourcehelper.PodLimits: no container limits the resource", [("a", None)], [], {}, None),
    ("resourcehelper.PodLimits: addResourceList sums the set limits", [("a", "1Gi"), ("b", None), ("c", "2Gi")], [], {}, 3 * GI),
    ("resourcehelper.PodLimits: maxResourceList with a larger init container", [("a", "1Gi")], [("i", "2Gi")], {}, 2 * GI),
    ("resourcehelper.PodLimits: sidecar before init adds to both", [("a", "1Gi")], [("s", "1Gi", True), ("i", "2Gi")], {}, 3 * GI),
    ("resourcehelper.PodLimits: overhead added to a non-zero limit", [("a", "1Gi")], [], {"ephemeral-storage": "100Mi"}, 1124 * MI),
    ("resourcehelper.PodLimits: overhead not added without a limit", [("a", None)], [], {"ephemeral-storage": "100Mi"}, None),
]


@pytest.mark.parametrize("case", PODLIMITS, ids=[str(i) for i in range(len(PODLIMITS))])
def test_pod_limits(case):
    upstream, containers, init, overhead, want = case
    raw = _storage_pod("p", containers, init)
    if overhead:
        raw["spec"]["overhead"] = overhead
    [p] = freeze([("t", "0", raw)]).pods
    assert pod_limits(p.containers, p.init_containers, p.overhead).get("ephemeral-storage") == want, upstream


# --- 2: minimum reclaim carries over only thresholds whose grace passed ---------------------------------

def _t(value: str, grace: float = 0.0, reclaim: Optional[str] = None) -> Threshold:
    return Threshold("memory.available", ThresholdValue(parse_quantity(value), 0.0, value), grace,
                     ThresholdValue(parse_quantity(reclaim), 0.0, reclaim) if reclaim else None)


HARD, SOFT = _t("500Mi", 0, "500Mi"), _t("1Gi", 60, "500Mi")
SYNC = [
    # (id, upstream, [(t, available Mi, expected met, expected ready)])
    ("hard-reclaimed-while-soft-waits",
     "synchronize: m.thresholdsMet = thresholdsMetGracePeriod(...), so the waiting soft threshold is not carried",
     [(0, 400, {HARD, SOFT}, {HARD}), (10, 1100, set(), set())]),
    ("soft-past-its-grace-is-carried",
     "synchronize: thresholdsMet(m.thresholdsMet, observations, true) keeps a soft threshold within its minimum reclaim",
     [(0, 900, {SOFT}, set()), (60, 900, {SOFT}, {SOFT}), (70, 1100, {SOFT}, {SOFT}), (80, 1600, set(), set())]),
    ("hard-within-minimum-reclaim-is-carried",
     "synchronize: thresholdsMet(m.thresholdsMet, observations, true) with quantity + minReclaim > available",
     [(0, 400, {HARD, SOFT}, {HARD}), (10, 900, {HARD, SOFT}, {HARD}), (20, 1100, set(), set())]),
]


@pytest.mark.parametrize("case", SYNC, ids=[c[0] for c in SYNC])
def test_synchronize_min_reclaim_carry_over(case):
    _, upstream, steps = case
    state = ManagerState()
    for t, avail, met, ready in steps:
        cycle = synchronize(state, [HARD, SOFT], {"memory.available": Observation(avail * MI, 8 * GI)}, t, 300.0)
        state = cycle.state
        assert (set(cycle.met), set(cycle.ready)) == (met, ready), (upstream, t)
        assert set(state.last_met) == ready, upstream


def _memory_cluster(tmp_path: Path, available: int, usage, *extra, server_version=None, stats=True, tgps=None) -> str:
    items: List[Dict[str, Any]] = [node("n1", memory="8Gi"),
             node("n2", memory="8Gi")]   # where the ReplicaSet puts the evicted pods' replacements
    pods_stats = []
    for name, ws, prio in usage:
        p = pod(name, "n1", memory="256Mi", priority=prio)
        if tgps is not None:
            p["spec"]["terminationGracePeriodSeconds"] = tgps
        items.append(p)
        pods_stats.append(_pod_stats(name, ws=ws, containers=[("app", 0, 0)]))
    if stats:
        s = _summary("n1", "single", pods_stats)
        s["summary"]["node"]["memory"]["availableBytes"] = available
        s["summary"]["node"]["systemContainers"][0]["memory"]["availableBytes"] = available
        items.append(s)
    return _write(tmp_path, *items, *extra, server_version=server_version)


def test_issue_case_hard_and_soft_with_minimum_reclaim_kills_once(tmp_path):
    """synchronize: after the first kill (700Mi freed, 1.1Gi available) the hard threshold is
    past its minimum reclaim (500Mi + 500Mi) and the soft one (grace 60s not yet passed) was
    never in m.thresholdsMet: the kubelet stops after one pod."""
    path = _memory_cluster(tmp_path, 400 * MI, [("hog", 700 * MI, 0), ("mid", 400 * MI, 0), ("small", 300 * MI, 0)])
    doc = _plan(path, "n1", "--eviction-hard", "memory.available<500Mi", "--eviction-soft", "memory.available<1Gi",
                "--eviction-soft-grace-period", "memory.available=60s", "--eviction-minimum-reclaim", "memory.available=500Mi")
    assert _kills(doc) == [("hog", 0, 1)]
    assert doc["shortfall"] == []


def test_minimum_reclaim_bound_is_shown_when_pressure_persists(tmp_path):
    """thresholdsMet(enforceMinReclaim=true): 1.3Gi available is compared with 1Gi + 500Mi, and
    the shortfall's reason shows that bound rather than `1.3Gi < 1Gi`."""
    path = _memory_cluster(tmp_path, 300 * MI, [("a", 600 * MI, 0), ("b", 424 * MI, 0)])
    doc = _plan(path, "n1", "--eviction-hard", "memory.available<1Gi", "--eviction-minimum-reclaim", "memory.available=500Mi")
    assert [k[0] for k in _kills(doc)] == ["a", "b"]
    [short] = doc["shortfall"]
    assert short["code"] == "threshold-persists"
    assert "memory.available 1.3Gi < 1.5Gi (1Gi + minimum reclaim 500Mi) (hard)" in short["reason"]
    assert "1.3Gi < 1Gi " not in short["reason"]


# --- 3: soft-eviction grace by version ------------------------------------------------------------

def _with_kubelet_version(n: Dict[str, Any], version: str) -> Dict[str, Any]:
    n["status"]["nodeInfo"] = {"kubeletVersion": version}
    return n


GRACE = [
    # (id, upstream, serverVersion, node kubeletVersion, --eviction-max-pod-grace-period, pod tGPS,
    #  expected grace, expected text in the note)
    ("v1.33-takes-the-minimum",
     "synchronize (v1.32+): min(MaxPodGracePeriodSeconds, terminationGracePeriodSeconds), gate off by default",
     "v1.33.1", None, "60", 20, 20, "min(evictionMaxPodGracePeriod, terminationGracePeriodSeconds), the kubelet's rule "
     "from v1.32 (assumed Kubernetes v1.33.1 (from serverVersion))"),
    ("v1.32-takes-the-minimum",
     "synchronize (v1.32): AllowOverwriteTerminationGracePeriodSeconds default-off",
     "v1.32.0", None, "60", 20, 20, "from v1.32 (assumed Kubernetes v1.32.0 (from serverVersion))"),
    ("v1.31-takes-max-pod-grace",
     "synchronize (v1.31): gracePeriodOverride = m.config.MaxPodGracePeriodSeconds",
     "v1.31.4", None, "60", 20, 60, "evictionMaxPodGracePeriod as the grace period, the kubelet's rule before v1.32 "
     "(assumed Kubernetes v1.31.4 (from serverVersion))"),
    ("v1.30-kubelet-version-when-no-server-version",
     "synchronize (v1.30); versions.cluster_version falls back to the newest kubeletVersion",
     None, "v1.30.2", "60", 20, 60, "(assumed Kubernetes v1.30.2 (from kubeletVersion of node n1))"),
    ("v1.31-zero-max-grace-floored",
     "synchronize (v1.31) then pod_workers calculateEffectiveGracePeriod: an override of 0 is floored to 1 s",
     "v1.31.4", None, "0", 20, 1, "before v1.32"),
    ("no-version-newest-behaviour",
     "synchronize (v1.37) when the snapshot records no version",
     None, None, "60", 20, 20, "(assumed Kubernetes v1.37 (newest modelled; the snapshot records no version))"),
]


@pytest.mark.parametrize("case", GRACE, ids=[c[0] for c in GRACE])
def test_soft_eviction_grace_follows_the_cluster_version(tmp_path, case):
    _, upstream, server, kubelet, max_grace, tgps, want, note = case
    path = _memory_cluster(tmp_path, 300 * MI, [("hog", 900 * MI, 0), ("calm", 10 * MI, 0)],
                           server_version=server, tgps=tgps)
    if kubelet:
        doc = json.loads(Path(path).read_text())
        _with_kubelet_version(doc["items"][1], kubelet)
        Path(path).write_text(json.dumps(doc))
    doc = _plan(path, "n1", "--eviction-soft", "memory.available<500Mi", "--eviction-soft-grace-period",
                "memory.available=30s", "--eviction-max-pod-grace-period", max_grace)
    assert _kills(doc) == [("hog", 30, want)], upstream
    assert any(note in n for n in doc["notes"]), (upstream, doc["notes"])


# semantics.md A (soft-threshold grace): from v1.32 the kubelet takes min(evictionMaxPodGracePeriod,
# terminationGracePeriodSeconds) unless the gate AllowOverwriteTerminationGracePeriodSeconds is on
# (default off from v1.32, locked off in v1.35): a kubelet configuration that turns it on keeps
# evictionMaxPodGracePeriod alone. (kubelet version, featureGates, expected grace, text in the note)
OVERWRITE_GATE = [
    ("v1.33.2", {"AllowOverwriteTerminationGracePeriodSeconds": True}, 60,
     "evictionMaxPodGracePeriod as the grace period, as the kubelet's featureGates "
     "AllowOverwriteTerminationGracePeriodSeconds=true in NodeKubeletConfig n1 sets"),
    ("v1.33.2", {"AllowOverwriteTerminationGracePeriodSeconds": False}, 20, "the kubelet's rule from v1.32"),
    ("v1.33.2", {}, 20, "the kubelet's rule from v1.32"),
    ("v1.35.1", {"AllowOverwriteTerminationGracePeriodSeconds": True}, 20, "the kubelet's rule from v1.32"),
]


@pytest.mark.parametrize("kubelet, gates, want, note", OVERWRITE_GATE)
def test_soft_eviction_grace_follows_the_overwrite_gate(tmp_path, kubelet, gates, want, note):
    kc = {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n1"},
          "kubeletconfig": {"featureGates": gates}}
    path = _memory_cluster(tmp_path, 300 * MI, [("hog", 900 * MI, 0), ("calm", 10 * MI, 0)], kc,
                           server_version=kubelet, tgps=20)
    doc = json.loads(Path(path).read_text())
    _with_kubelet_version(doc["items"][1], kubelet)
    Path(path).write_text(json.dumps(doc))
    doc = _plan(path, "n1", "--eviction-soft", "memory.available<500Mi", "--eviction-soft-grace-period",
                "memory.available=30s", "--eviction-max-pod-grace-period", "60")
    assert _kills(doc) == [("hog", 30, want)]
    assert any(note in n for n in doc["notes"]), doc["notes"]


def test_hard_eviction_grace_does_not_depend_on_the_version():
    """synchronize: immediateEvictionGracePeriodSeconds for a hard threshold in every version."""
    [p] = freeze([("t", "0", pod("p", "n1"))]).pods
    assert eviction_grace(HARD, 60, p, True) == eviction_grace(HARD, 60, p, False) == 1


# --- 6: a what-if on a node without stats --------------------------------------------------------

def test_signal_on_a_node_without_stats_warns_once_and_is_a_shortfall(tmp_path):
    """rankMemoryPressure: exceedMemoryRequests and memory compare cmpBool(!found) only, so with
    no stats at all priority alone orders the pods; nothing frees memory, so after the last
    evictable pod the threshold is still met (`threshold-persists`, exit code 4)."""
    path = _memory_cluster(tmp_path, 0, [("gold", 0, 1000), ("bronze", 0, 10), ("silver", 0, 100), ("tin", 0, 10)],
                           stats=False)
    r = run_cli("-f", path, "-o", "json", "pressure", "n1", "--signal", "n1:memory.available=300Mi",
                "--eviction-hard", "memory.available<500Mi")
    assert r.returncode == 4, r.stderr
    doc = json.loads(r.stdout)
    assert [k[0] for k in _kills(doc)] == ["bronze", "tin", "silver", "gold"]
    assert all(a["by"] == "kubelet" for a in doc["actions"] if a["type"] == "kill")
    no_stats = [w for w in doc["warnings"] if "no NodeStatsSummary" in w]
    assert len(no_stats) == 1
    assert no_stats[0].startswith("node/n1: no NodeStatsSummary in the snapshot") and "priority alone" in no_stats[0]
    assert doc["warnings"].index(no_stats[0]) == 0          # up front
    assert not any("has no stats in the summary" in w for w in doc["warnings"])
    [short] = doc["shortfall"]
    assert (short["node"], short["code"]) == ("n1", "threshold-persists")
    assert "memory.available 300Mi < 500Mi (hard)" in short["reason"]


def test_table_output_shows_the_shortfall_of_a_persisting_threshold(tmp_path):
    """The same what-if in the default table: the exit code and the text both tell it."""
    path = _memory_cluster(tmp_path, 0, [("only", 0, 0)], stats=False)
    r = run_cli("-f", path, "pressure", "n1", "--signal", "n1:memory.available=300Mi",
                "--eviction-hard", "memory.available<500Mi")
    assert r.returncode == 4, r.stderr
    assert "threshold-persists" in r.stdout and "Traceback" not in r.stdout + r.stderr
    # the summary counts the node that stays under pressure as such, not as a pod's replacement
    last = r.stdout.strip().splitlines()[-1]
    assert "1 node stays under pressure" in last and "replacement" not in last, last


# --- the next cycle after a kill -----------------------------------------------------------------

# eviction_manager.go Start: synchronize -> evictPod -> killPodFunc (kubelet killPodNow) blocks
# until the pod worker has killed the pod (up to 1.5 x the grace), then waitForPodsCleanup (<= 30 s)
# and the next synchronize. With the plan's worst case (every pod uses its whole grace), the next
# victim is killed no earlier than the previous kill's grace later, and never sooner than the
# next housekeeping tick. (id, server version, --eviction-max-pod-grace-period, pod tGPS, kills)
NEXT_CYCLE = [
    ("hard-1s-next-tick", "v1.33.1", None, 30, [("hog", 0, 1), ("mid", 10, 1)]),
    ("soft-20s", "v1.33.1", "60", 20, [("hog", 30, 20), ("mid", 50, 20)]),
    ("soft-60s-longer-than-cleanup-wait", "v1.31.4", "60", 20, [("hog", 30, 60), ("mid", 90, 60)]),
    ("soft-120s", "v1.33.1", "300", 120, [("hog", 30, 120), ("mid", 150, 120)]),
]


@pytest.mark.parametrize("case", NEXT_CYCLE, ids=[c[0] for c in NEXT_CYCLE])
def test_next_kill_waits_for_the_previous_pods_grace(tmp_path, case):
    _, server, max_grace, tgps, kills = case
    path = _memory_cluster(tmp_path, 100 * MI, [("hog", 900 * MI, 0), ("mid", 800 * MI, 0), ("calm", 10 * MI, 0)],
                           server_version=server, tgps=tgps)
    if max_grace is None:
        args = ["--eviction-hard", "memory.available<1Gi,allocatableMemory.available<1Mi",
                "--eviction-minimum-reclaim", "memory.available=700Mi"]
    else:
        args = ["--eviction-hard", "memory.available<1Mi", "--eviction-soft", "memory.available<1Gi",
                "--eviction-soft-grace-period", "memory.available=30s", "--eviction-minimum-reclaim",
                "memory.available=700Mi", "--eviction-max-pod-grace-period", max_grace]
    doc = _plan(path, "n1", *args)
    assert _kills(doc) == kills
    # the second victim's replacement comes when it is Failed, after its own grace
    assert [r["failedAt"] for r in doc["replacements"]] == [float(at + g) for _, at, g in kills]


# helpers.go buildSignalToNodeReclaimFuncs: what the kubelet deletes before it evicts a pod, by
# layout (withImageFs, splitContainerImageFs) and signal; "" when there is no reclaim function, so
# the plan has nothing to warn about. (layout, signal, what is deleted)
NODE_RECLAIM = [
    ("single", "nodefs.available", "dead containers and unused images"),
    ("single", "imagefs.inodesFree", "dead containers and unused images"),
    ("imagefs", "nodefs.available", ""),
    ("imagefs", "nodefs.inodesFree", ""),
    ("imagefs", "imagefs.available", "dead containers and unused images"),
    ("imagefs", "containerfs.available", "dead containers and unused images"),
    ("split", "imagefs.available", "unused images"),
    ("split", "nodefs.available", "dead containers"),
    ("split", "containerfs.inodesFree", "dead containers"),
    ("single", "memory.available", ""),
    ("single", "pid.available", ""),
]


@pytest.mark.parametrize("layout, signal, deleted", NODE_RECLAIM)
def test_node_level_reclaim_by_layout(layout, signal, deleted):
    from kubectl_evict.eviction.observe import node_reclaim
    assert node_reclaim(signal, layout) == deleted


def test_nodefs_pressure_with_a_dedicated_imagefs_warns_of_no_garbage_collection(tmp_path):
    """A dedicated imagefs: nodefs pressure has no reclaim function, the plan's kills are exact."""
    items = [node("n1"), node("n2"), _storage_pod("worker", [("c1", None)])]
    s = _summary("n1", "imagefs", [_pod_stats("worker", containers=[("c1", 0, 50 * GI)])])
    s["summary"]["node"]["fs"]["availableBytes"] = 1 * GI
    doc = _plan(_write(tmp_path, *items, s), "n1", "--eviction-hard", "nodefs.available<2Gi")
    assert [k[0] for k in _kills(doc)] == ["worker"]
    assert not any("the kubelet first deletes" in w for w in doc["warnings"])


# pkg/kubelet/eviction/defaults_{linux,windows,others}.go: without evictionHard the kubelet uses its
# platform's defaults; a Windows kubelet from v1.31 (#122922, "Add support for Windows memory-pressure
# eviction", milestone v1.31) evicts below 500Mi, a Linux one below 100Mi, and a v1.30 Windows kubelet
# had the `!linux` defaults_others.go table (100Mi). The node's own kubelet version decides.
# (node OS label, its kubeletVersion, memory.available, kills expected)
PLATFORM_DEFAULTS = [
    ("linux", None, 300 * MI, 0),
    ("windows", None, 300 * MI, 1),
    ("windows", None, 600 * MI, 0),
    ("linux", None, 50 * MI, 1),
    ("windows", "v1.31.0", 300 * MI, 1),
    ("windows", "v1.30.9", 300 * MI, 0),
    ("windows", "v1.30.9", 50 * MI, 1),
]


@pytest.mark.parametrize("os_label, kubelet, available, kills", PLATFORM_DEFAULTS)
def test_default_hard_thresholds_follow_the_nodes_platform(tmp_path, os_label, kubelet, available, kills):
    path = _memory_cluster(tmp_path, available, [("hog", 900 * MI, 0)])
    doc = json.loads(Path(path).read_text())
    doc["items"][1]["metadata"]["labels"]["kubernetes.io/os"] = os_label
    if kubelet:
        doc["items"][1]["status"]["nodeInfo"] = {"kubeletVersion": kubelet}
    Path(path).write_text(json.dumps(doc))
    assert len(_kills(_plan(path, "n1"))) == kills


# eviction_manager.go synchronize (vector eviction_manager_scenarios.json "TestDiskPressureNodeFs_
# VerifyPodStatus/eviction due to container disk pressure; feature off; error; container fs"): a
# split image/container filesystem with KubeletSeparateDiskGC off makes every cycle fail before any
# condition or eviction. The gate is alpha (off) in v1.29-v1.30 and beta (on) from v1.31
# (pkg/features/kube_features.go); the kubelet's own featureGates override the default.
# (kubelet version, featureGates of its configuration, layout, pods killed, the node stays short)
SEPARATE_DISK_GC = [
    ("v1.30.4", None, "split", [], True),
    ("v1.30.4", {"KubeletSeparateDiskGC": True}, "split", ["worker"], False),
    ("v1.30.4", None, "imagefs", ["worker"], False),
    ("v1.31.0", None, "split", ["worker"], False),
    ("v1.33.2", {"KubeletSeparateDiskGC": False}, "split", [], True),
]


@pytest.mark.parametrize("version, gates, layout, killed, short", SEPARATE_DISK_GC)
def test_split_filesystem_needs_kubelet_separate_disk_gc(tmp_path, version, gates, layout, killed, short):
    n1 = node("n1")
    n1["status"]["nodeInfo"] = {"kubeletVersion": version}
    items = [n1, node("n2"), _storage_pod("worker", [("c1", None)])]
    s = _summary("n1", layout, [_pod_stats("worker", containers=[("c1", 40 * GI, 50 * GI)])])
    s["summary"]["node"]["fs"]["availableBytes"] = 1 * GI
    # the filesystem that runs short: nodefs, which the split layout's containerFs is
    s["summary"]["node"]["runtime"]["imageFs" if layout == "imagefs" else "containerFs"]["availableBytes"] = 1 * GI
    cfg = {"evictionHard": {"nodefs.available": "2Gi", "imagefs.available": "2Gi"}}
    if gates:
        cfg["featureGates"] = gates
    kc = {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n1"},
          "kubeletconfig": cfg}
    doc = _plan(_write(tmp_path, *items, s, kc), "n1")
    assert [k[0] for k in _kills(doc)] == killed
    failing = [w for w in doc["warnings"] if "KubeletSeparateDiskGC is turned off but we still have a split filesystem" in w]
    assert bool(failing) == short
    if short:
        assert not any(a["type"] == "taint" for a in doc["actions"])      # no DiskPressure condition either
        assert [(e["node"], e["code"]) for e in doc["shortfall"]] == [("n1", "threshold-persists")]


def test_no_node_evaluated_claims_no_absence_of_pressure(tmp_path):
    """A kubelet capture (pods and a stats summary, no Node objects, as tests/data/real/eks-windows
    is): no node's signals were observed, so the plan says nothing about pressure (issue 21: never
    assert what the input does not show) and the verdict is incomplete (exit 5)."""
    items = [_storage_pod("worker", [("c1", None)]), _summary("n1", "single", [_pod_stats("worker")])]
    info = {"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
            "takenAt": NOW, "kinds": ["Pod", "NodeStatsSummary"]}
    p = tmp_path / "capture.json"
    p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [info, *items]}))
    r = run_cli("-f", str(p), "-o", "json", "pressure")
    assert r.returncode == 5, r.stderr
    doc = json.loads(r.stdout)
    assert not doc["actions"]
    assert not any("no node is under pressure" in n for n in doc.get("notes", []))
