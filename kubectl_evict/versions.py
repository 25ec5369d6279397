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
from typing import Dict, List, NamedTuple, Optional, Tuple

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
    # GA on in v1.34, locked on from v1.35; pkg/scheduler/apis/config/v1/default_plugins.go
    # applyFeatureGates). A v1.34 cluster may turn it off, which a snapshot cannot show.
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


# What the behaviours that change at a patch release are, for the warning on a patch-less
# --kubernetes-version (`unpatched_flag`); every such feature of FEATURES needs one (test_versions).
PATCH_FEATURE_TEXT: Dict[str, str] = {
    "SidecarHostPorts": "NodePorts counts the hostPorts of sidecar containers",
    "UntoleratedTaintsText": "FailedScheduling says `node(s) had untolerated taint(s)`",
    "MaxUnavailableStatefulSet": "StatefulSet rollingUpdate.maxUnavailable is honoured",
}


def patch_boundaries(major: int, minor: int) -> Tuple[Tuple[str, int, bool], ...]:
    """The behaviours of FEATURES that change at a patch release of `major.minor`, as
    (feature, patch, on from that patch), by patch then name."""
    out = set()
    for name, ranges in FEATURES.items():
        for lo, hi in ranges:
            for edge, on in ((lo, True), (hi, False)):
                if edge is not None and edge[:2] == (major, minor) and edge[2] > 0:
                    out.add((name, edge[2], on))
    return tuple(sorted(out, key=lambda b: (b[1], b[0])))


def unpatched_flag(version: ClusterVersion) -> Optional[str]:
    """A warning when `--kubernetes-version` names a minor without its patch (`v1.34`) and a
    behaviour of that minor changes at a patch release (None otherwise): the plan takes vX.Y.0,
    which decides those behaviours without the user having chosen."""
    m = _FLAG_RE.match(version.text.strip())
    if version.source != OVERRIDE or m is None or m.group(3) is not None:
        return None
    edges = patch_boundaries(version.major, version.minor)
    if not edges:
        return None
    mm = "v%d.%d" % (version.major, version.minor)
    said = ", ".join("%s (%s: %s in %s.0, %s from %s.%d)" % (name, PATCH_FEATURE_TEXT.get(name, name), "off" if on
                                                          else "on", mm, "on" if on else "off", mm, patch)
                     for name, patch, on in edges)
    return ("--kubernetes-version %s is planned as %s.0, and %s within %s: %s; give the patch release to plan "
            "another (e.g. --kubernetes-version %s.%d)" % (version.text, mm, "behaviours change" if len(edges) > 1
                                                          else "a behaviour changes", mm, said, mm, edges[0][1]))


SKEW_SHOWN = 5      # nodes named per version-skew warning


def kubelet_skew(snapshot: Snapshot, version: ClusterVersion) -> Tuple[str, ...]:
    """Warnings naming nodes whose kubelet the plan cannot vouch for (empty when there are none):
    a kubelet newer than the API server, or older than it by more than the version skew policy
    allows (kubernetes/website content/en/releases/version-skew-policy.md: "kubelet must not be
    newer than kube-apiserver" and "may be up to three minor versions older than kube-apiserver
    (kubelet < 1.25 may only be up to two minor versions older)"; minors only, patches never
    matter), and a kubelet outside the releases modelled (planned with the nearest one's kubelet
    behaviour; the cluster's own version already has `outside_modelled`). With
    `--kubernetes-version` every component is that release, so no node's own version counts;
    without any version there is no API server to compare with."""
    if version.source in (OVERRIDE, "default"):
        return ()
    api = (version.major, version.minor)
    against = "the API server (%s)" % (version.text if version.source == "serverVersion" else
                                       # the newest kubelet's: the API server is at least that new
                                       "at least %s, the %s" % (version.text, version.source.replace(
                                           "kubeletVersion of node", "kubelet of node")))
    newer, older, outside = [], [], []
    # a cluster itself outside the releases modelled has `outside_modelled`: its kubelets on the
    # same side are not named again
    cluster_side = _nearest(api) if _nearest(api) != api else None
    for name in sorted(snapshot.nodes):
        text = snapshot.nodes[name].kubelet_version
        own = parse_release(text)
        if own is None:
            continue                     # unreadable_kubelets names these
        ref = "%s: %s" % (name, text)
        if own[:2] > api:
            newer.append(ref)
        elif api[0] == own[0] and api[1] - own[1] > (3 if own[1] >= 25 else 2):
            older.append(ref)
        if not OLDEST <= own[:2] <= NEWEST and _nearest(own[:2]) != cluster_side:
            outside.append(ref)
    def kubelets(refs: List[str]) -> str:
        return "the kubelet%s of %s %s" % ("" if len(refs) == 1 else "s", counted_refs("node", refs, SKEW_SHOWN),
                                          "is" if len(refs) == 1 else "are")
    out = []
    if newer:
        out.append("%s newer than %s: the version skew policy does not allow a kubelet newer than kube-apiserver; "
                   "each is planned with its own release's kubelet behaviour" % (kubelets(newer), against))
    if older:
        out.append("%s more than 3 minor releases older than %s: outside the version skew policy (a kubelet may "
                   "be up to 3 minors older than kube-apiserver; 2 before v1.25)" % (kubelets(older), against))
    if outside:
        out.append("%s outside the releases modelled (v%d.%d to v%d.%d): each is planned with the nearest modelled "
                   "release's kubelet behaviour" % (kubelets(outside), OLDEST[0], OLDEST[1], NEWEST[0], NEWEST[1]))
    return tuple(out)


def _nearest(minor: Tuple[int, int]) -> Tuple[int, int]:
    """The modelled release whose behaviour `minor` gets."""
    return min(max(minor, OLDEST), NEWEST)


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


def dra_ignored(snapshot: Snapshot, version: ClusterVersion) -> Optional[str]:
    """A warning when the input holds DRA objects or pods with `spec.resourceClaims` but the
    release planned runs no DynamicResources (None otherwise). Before v1.34 the gate
    DynamicResourceAllocation is off by default (alpha v1.30-v1.31, beta v1.32-v1.33:
    pkg/features/kube_features.go, website feature-gates/dynamic-resource-allocation.md) and
    resource.k8s.io/v1 does not exist; an API server with the gate off drops a pod's
    `resourceClaims` (pkg/api/pod/util.go dropDisabledDynamicResourceAllocationFields). So such
    objects mean the cluster switched DRA on, which the plan (default gates) does not model:
    their devices go unchecked, and saying so beats ignoring them silently."""
    if version.has("DynamicResources"):
        return None
    pods = sorted(p.ref for p in snapshot.pods if p.resource_claims)
    kinds = [(len(snapshot.resource_claims), "ResourceClaim"), (len(snapshot.claim_templates), "ResourceClaimTemplate"),
             (len(snapshot.device_classes), "DeviceClass"), (len(snapshot.resource_slices), "ResourceSlice")]
    held = ["%d %s%s" % (n, kind, "" if n == 1 else "s") for n, kind in kinds if n]
    if not pods and not held:
        return None
    what = ([counted_refs("pod", pods) + " with ResourceClaims"] if pods else []) + held
    return ("Dynamic Resource Allocation in the input (%s) is ignored at Kubernetes %s: before v1.34 the "
            "DynamicResourceAllocation gate is off by default, and the plan models the default scheduler profile, "
            "without DynamicResources, so the devices of replacements with ResourceClaims are not checked (a "
            "cluster of that release has them only with the gate switched on)" % (", ".join(what), version.text))


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
