"""Which Kubernetes release's behaviour a plan assumes.

Some defaults and behaviours changed between releases (the node lifecycle controller's
`--node-monitor-grace-period` went from 40s to 50s in v1.32; the kubelet's soft-eviction grace
became `min(evictionMaxPodGracePeriod, terminationGracePeriodSeconds)` in v1.32). The version
comes from `--kubernetes-version` (recorded in the snapshot as `SnapshotInfo.assumed_version`
so rules stay pure functions of the snapshot), else the snapshot: the API server's version
(`SnapshotInfo.serverVersion`, recorded by live reads), else the newest kubelet's
(`status.nodeInfo.kubeletVersion`: the control plane is at least as new as any kubelet, per the
version skew policy), else the newest behaviour this release of evictplan models (v1.37).
Releases v1.30 to v1.37 are modelled; older ones get v1.30's behaviour, newer ones v1.37's.

That version governs the control plane's behaviour (scheduler, controllers, API server). Each
kubelet runs its own release (the version skew policy lets kubelets lag the API server by up to
three minors), so the kubelet's behaviour on a node (eviction manager, shutdown manager) follows
that node's `kubeletVersion` (`node_version`); `--kubernetes-version` sets every component.

Rules ask by feature, not by comparing version strings: `version.has("UntoleratedTaintsText")`.
`FEATURES` is the one table that says from which release (patch included) to which a behaviour
applies, each with the upstream PR or file it comes from.
"""

from __future__ import annotations

import re
from typing import Dict, NamedTuple, Optional, Tuple

from kubectl_evict.model import Node, Snapshot
from kubectl_evict.plan import counted_refs

NEWEST = (1, 37)            # the newest release whose behaviour this version of evictplan models
OLDEST = (1, 30)            # the oldest one
_VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?")
# A whole version string as `kubectl version` prints the server's gitVersion: v1.33.3,
# v1.30.2-eks-1552ad0, v1.29.4+k3s1 (semver's pre-release and build parts).
_GIT_VERSION_RE = re.compile(r"^v?\d+\.\d+(?:\.\d+)?(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")

Release = Tuple[int, int, int]
# name -> ranges of releases [first, last-exclusive) in which the behaviour applies (None: open).
# Patch-level boundaries matter: several fixes were backported to a patch release.
FEATURES: Dict[str, Tuple[Tuple[Release, Optional[Release]], ...]] = {
    # -- node lifecycle controller (pkg/controller/nodelifecycle/node_lifecycle_controller.go)
    # --node-monitor-grace-period default 40s -> 50s (#126287, v1.32)
    "NodeMonitorGracePeriod50s": (((1, 32, 0), None),),
    # unreachable:NoExecute added in the same pass that sets Ready=Unknown (#120816, v1.34);
    # before, processTaintBaseEviction read the previous condition: one monitor period later
    "UnreachableTaintSamePass": (((1, 34, 0), None),),
    # a live GET of the node's Lease before marking it unhealthy (#138698, KEP-5647, v1.37)
    "LeaseLiveRecheck": (((1, 37, 0), None),),
    # -- kube-scheduler
    # TaintToleration Filter says `node(s) had untolerated taint(s)` (#134740, v1.35; backport
    # #135023 in v1.34.2); before: `node(s) had untolerated taint {key: value}`
    "UntoleratedTaintsText": (((1, 34, 2), None),),
    # DynamicResources in the default profile (DRA GA, v1.34): its PostFilter answers
    # `no new claims to deallocate` for a pod without claims, joined before DefaultPreemption's
    # message (default_plugins.go applyFeatureGates; runtime/framework.go RunPostFilterPlugins);
    # v1.37 keeps that status but drops the message (#140222)
    "DRANoClaimsPostFilterText": (((1, 34, 0), (1, 37, 0)),),
    # DefaultPreemption's success status `found a potential placement for pod on node N,
    # preempting K victims` reaches the FailedScheduling event (#140180, v1.37)
    "PreemptionPlacementText": (((1, 37, 0), None),),
    # VolumeBinding's reason for a bound PV whose node affinity rejects the node reads
    # `node(s) didn't match PersistentVolume's node affinity` (#129887, CHANGELOG-1.33
    # v1.33.0-beta.0); before: `node(s) had volume node affinity conflict` (binder.go
    # ErrReasonNodeConflict)
    "PVNodeAffinityText": (((1, 33, 0), None),),
    # NodePorts and the scheduler's NodeInfo count the hostPorts of restartable (sidecar) init
    # containers too (`GetHostPorts`, #132040, v1.34; backport #133390 in v1.33.6); before, only
    # spec.containers' ports. Other init containers' ports are never counted.
    "SidecarHostPorts": (((1, 33, 6), None),),
    # NodeResourcesBalancedAllocation's PreScore skips a pod that requests none of its resources
    # (cpu, memory: "best effort"); before, it scored such a pod by the node's own balance
    # (#130260, CHANGELOG-1.33 v1.33.0-beta.0, fixing #129138)
    "BalancedAllocationSkipsBestEffort": (((1, 33, 0), None),),
    # NodeResourcesBalancedAllocation scores the change in balance the pod brings (#135573, v1.36)
    "BalancedAllocationDelta": (((1, 36, 0), None),),
    # -- pod-level resources (KEP-2837; beta and on from v1.34)
    # kubelet eviction ranking and usage-over-requests use pod-level requests (#132277, v1.34)
    "PodLevelResourcesEviction": (((1, 34, 0), None),),
    # empty pod.spec.resources ({}, {requests: {}}, {limits: {}}) no longer decides QoS (#137150, v1.37)
    "EmptyPodResourcesIgnoredForQoS": (((1, 37, 0), None),),
    # -- kubelet eviction manager
    # soft-eviction grace min(evictionMaxPodGracePeriod, terminationGracePeriodSeconds): the gate
    # AllowOverwriteTerminationGracePeriodSeconds turned default-off (#122890, v1.32)
    "SoftEvictionGraceCappedByPod": (((1, 32, 0), None),),
    # ... and a kubelet's featureGates may turn AllowOverwriteTerminationGracePeriodSeconds back on
    # (the old rule) from v1.32 until the gate is locked off in v1.35 (semantics.md A, fact on the
    # soft-threshold grace)
    "OverwriteGraceGateSettable": (((1, 32, 0), (1, 35, 0)),),
    # a Windows kubelet's default evictionHard is defaults_windows.go's (memory.available 500Mi;
    # #122922, "Add support for Windows memory-pressure eviction", milestone v1.31); before, the
    # `!linux` defaults_others.go (100Mi, no inode signals)
    "WindowsEvictionDefaults": (((1, 31, 0), None),),
    # KubeletSeparateDiskGC (pkg/features/kube_features.go: alpha off v1.29-v1.30, beta on from
    # v1.31): without it, an eviction manager that finds a split image/container filesystem fails
    # every synchronize ("KubeletSeparateDiskGC is turned off but we still have a split filesystem")
    "KubeletSeparateDiskGC": (((1, 31, 0), None),),
    # memory.available excludes hugepage-reserved memory (HugepageAwareEviction beta on, #138127, v1.37)
    "HugepageAwareEviction": (((1, 37, 0), None),),
    # per-container ephemeral-storage limits enforced for sidecars (restartable init
    # containers) too (#138462, v1.37)
    "SidecarEphemeralStorageLimits": (((1, 37, 0), None),),
    # -- StatefulSet controller: MaxUnavailableStatefulSet (website feature-gates page):
    # beta on in v1.35.0-v1.35.3, off again from v1.35.4 through v1.36, on in v1.37
    "MaxUnavailableStatefulSet": (((1, 35, 0), (1, 35, 4)), ((1, 37, 0), None)),
    # DRA GA (resource.k8s.io/v1): the DynamicResources plugin joins the default scheduler profile
    # (KEP-4381; pkg/features/kube_features.go: DynamicResourceAllocation beta off in v1.32-v1.33,
    # GA on in v1.34; pkg/scheduler/apis/config/v1/default_plugins.go applyFeatureGates).
    "DynamicResources": (((1, 34, 0), None),),
    # DRA device taints (KEP-5055; kube_features.go DRADeviceTaints: alpha off v1.33, beta on
    # v1.36, GA v1.37);
    # the device taint eviction controller (pkg/controller/devicetainteviction) deletes pods whose
    # allocated devices carry an untolerated NoExecute taint, and the allocator skips tainted devices.
    "DRADeviceTaints": (((1, 36, 0), None),),
    # -- kubelet node shutdown manager on Windows (nodeshutdown_manager_windows.go: a stub while
    # the gate is off): WindowsGracefulNodeShutdown alpha off in v1.32-v1.33, beta on from v1.34
    # (pkg/features/kube_features.go versioned specs, KEP-4802)
    "WindowsGracefulNodeShutdown": (((1, 34, 0), None),),
}


class ClusterVersion(NamedTuple):
    major: int
    minor: int
    text: str                # as found, e.g. "v1.33.3"
    source: str              # "serverVersion", "kubeletVersion of node NAME", "--kubernetes-version" or "default"
    patch: int = 0

    def at_least(self, major: int, minor: int, patch: int = 0) -> bool:
        return (self.major, self.minor, self.patch) >= (major, minor, patch)

    @property
    def release(self) -> Release:
        return (self.major, self.minor, self.patch)

    def has(self, feature: str) -> bool:
        """Whether `feature` (a key of FEATURES) applies to this release."""
        return feature_applies(feature, self.release)

    def describe(self) -> str:
        """For the table header: `v1.31.2 (from the nodes' kubeletVersion)`."""
        if self.source == "default":
            return "v%d.%d (newest modelled; the snapshot records no version)" % (self.major, self.minor)
        return "%s (from %s)" % (self.text, self.source)


def feature_applies(feature: str, release: Release) -> bool:
    try:
        ranges = FEATURES[feature]
    except KeyError:
        raise KeyError("unknown feature %r: add it to versions.FEATURES" % feature) from None
    return any(lo <= release and (hi is None or release < hi) for lo, hi in ranges)


def parse_release(text: str) -> Optional[Release]:
    """`v1.34.2` -> (1, 34, 2); `1.35` -> (1, 35, 0); None when it is not a version."""
    m = _VERSION_RE.match(text.strip()) if text else None
    if not m:
        return None
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))


def is_version(text: str) -> bool:
    """Is `text` a whole Kubernetes version (vMAJOR.MINOR[.PATCH][-suffix][+build])? Our own
    documents (SnapshotInfo.serverVersion) must hold one: a typo there would otherwise fall
    back to the kubelets' version without a word. Kubelet versions stay lenient (prefix match)."""
    return bool(_GIT_VERSION_RE.match(text))


OVERRIDE = "--kubernetes-version"
_FLAG_RE = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?$")


def parse_flag(text: str) -> str:
    """`--kubernetes-version` value -> canonical `vX.Y[.Z]`; ValueError with the reason."""
    m = _FLAG_RE.match(text.strip())
    if not m:
        raise ValueError("%r is not a Kubernetes version: use vMAJOR.MINOR[.PATCH], e.g. v1.35 or v1.34.2" % text)
    if int(m.group(1)) != 1:
        raise ValueError("%r: only Kubernetes 1.x exists" % text)
    return "v" + ".".join(g for g in m.groups() if g is not None)


def outside_modelled(version: ClusterVersion) -> Optional[str]:
    """A warning when `version` is outside the releases modelled (None inside them)."""
    if version.source == "default" or OLDEST <= (version.major, version.minor) <= NEWEST:
        return None
    edge = NEWEST if (version.major, version.minor) > NEWEST else OLDEST
    return ("Kubernetes %s (from %s) is outside the releases modelled (v%d.%d to v%d.%d): the plan shows "
            "v%d.%d's behaviour" % (version.text, version.source, OLDEST[0], OLDEST[1], NEWEST[0], NEWEST[1],
                                     edge[0], edge[1]))


def unreadable_kubelets(snapshot: Snapshot, version: ClusterVersion) -> Optional[str]:
    """A warning naming nodes whose `kubeletVersion` is set but is not a version (None when every
    one reads): they cannot decide the cluster's version nor their own kubelet's behaviour, so
    `version` (the plan's) stands in for them, and a typo there would otherwise pass unsaid."""
    bad = [(name, snapshot.nodes[name].kubelet_version) for name in sorted(snapshot.nodes)
           if snapshot.nodes[name].kubelet_version and parse_release(snapshot.nodes[name].kubelet_version) is None]
    if not bad:
        return None
    return ("status.nodeInfo.kubeletVersion of %s is not a Kubernetes version: planned as %s"
            % (counted_refs("node", ["%s: %r" % b for b in bad]), version.describe()))


def comparison_tolerations(snapshot: Snapshot) -> Optional[str]:
    """A warning naming pods with `Gt`/`Lt` tolerations (None when there are none): an API server
    with TaintTolerationComparisonOperators off (its default through v1.37, #134665) refuses
    them, so the cluster turned the gate on, while the plan reads them as tolerating nothing."""
    bad = []
    seen: Dict[int, bool] = {}          # pods of a template share one tolerations tuple
    for pod in snapshot.pods:
        tols = pod.tolerations
        hit = seen.get(id(tols))
        if hit is None:
            hit = seen[id(tols)] = any(t.operator in ("Gt", "Lt") for t in tols)
        if hit:
            bad.append(pod.ref)
    if not bad:
        return None
    return ("Gt/Lt tolerations on %s: the cluster runs with the alpha gate TaintTolerationComparisonOperators "
            "on; the plan models it off, so these tolerations tolerate no taint here and such a pod may fit where "
            "the plan says it does not" % counted_refs("pod", sorted(bad)))


def parse_version(text: str) -> Optional[Tuple[int, int]]:
    r = parse_release(text)
    return (r[0], r[1]) if r else None


def cluster_version(snapshot: Snapshot) -> ClusterVersion:
    """The version whose defaults apply to this snapshot (see the module docstring)."""
    assumed = parse_release(snapshot.info.assumed_version)
    if assumed is not None:
        return ClusterVersion(assumed[0], assumed[1], snapshot.info.assumed_version, OVERRIDE, assumed[2])
    server = parse_release(snapshot.info.server_version)
    if server is not None:
        return ClusterVersion(server[0], server[1], snapshot.info.server_version, "serverVersion", server[2])
    best: Optional[Tuple[Release, str, str]] = None
    for name in sorted(snapshot.nodes):
        text = snapshot.nodes[name].kubelet_version
        v = parse_release(text)
        if v is not None and (best is None or v > best[0]):
            best = (v, text, name)
    if best is not None:
        return ClusterVersion(best[0][0], best[0][1], best[1], "kubeletVersion of node %s" % best[2], best[0][2])
    return ClusterVersion(NEWEST[0], NEWEST[1], "v%d.%d" % NEWEST, "default")


def node_version(cluster: ClusterVersion, node: Node) -> ClusterVersion:
    """The release whose kubelet behaviour applies on `node`, given the plan's `cluster` version
    (`cluster_version`): the node's own `status.nodeInfo.kubeletVersion`, since a kubelet runs its
    own release's code whatever the control plane's (a v1.36 kubelet under a v1.37 API server
    keeps v1.36's eviction manager); `cluster` itself when `--kubernetes-version` set it (every
    component at that release), when the node's version is unknown or unparsable, or when it is
    the same release (so a plan that names the cluster's version keeps naming it)."""
    if cluster.source == OVERRIDE:
        return cluster
    own = parse_release(node.kubelet_version)
    if own is None or own == cluster.release:
        return cluster
    return ClusterVersion(own[0], own[1], node.kubelet_version, "kubeletVersion of node %s" % node.name, own[2])
