"""Which Kubernetes release's behaviour a plan assumes.

Some defaults and behaviours changed between releases (the node lifecycle controller's
`--node-monitor-grace-period` went from 40s to 50s in v1.32; the kubelet's soft-eviction grace
became `min(evictionMaxPodGracePeriod, terminationGracePeriodSeconds)` in v1.32). The version
comes from the snapshot: the API server's version (`SnapshotInfo.serverVersion`, recorded by
live reads), else the newest kubelet's (`status.nodeInfo.kubeletVersion`: the control plane is
at least as new as any kubelet, per the version skew policy), else the newest behaviour this
release of evictplan knows.

Rules ask by feature, not by comparing version strings: `version.has("UntoleratedTaintsText")`.
`FEATURES` is the one table that says from which release (patch included) to which a behaviour
applies, each with the upstream PR or file it comes from.
"""

from __future__ import annotations

import re
from typing import Dict, NamedTuple, Optional, Tuple

from kubectl_evict.model import Snapshot

NEWEST = (1, 33)            # the release whose behaviour this version of evictplan models
_VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?")

Release = Tuple[int, int, int]
# name -> ranges of releases [first, last-exclusive) in which the behaviour applies (None: open).
# Patch-level boundaries matter: several fixes were backported to a patch release.
FEATURES: Dict[str, Tuple[Tuple[Release, Optional[Release]], ...]] = {
    # DRA GA (resource.k8s.io/v1): the DynamicResources plugin joins the default scheduler profile
    # (KEP-4381; pkg/features/kube_features.go: DynamicResourceAllocation beta off in v1.32-v1.33,
    # GA on in v1.34; pkg/scheduler/apis/config/v1/default_plugins.go applyFeatureGates).
    "DynamicResources": (((1, 34, 0), None),),
    # DRA device taints (KEP-5055; kube_features.go DRADeviceTaints: alpha off v1.33, beta on
    # v1.36, GA v1.37);
    # the device taint eviction controller (pkg/controller/devicetainteviction) deletes pods whose
    # allocated devices carry an untolerated NoExecute taint, and the allocator skips tainted devices.
    "DRADeviceTaints": (((1, 36, 0), None),),
}


class ClusterVersion(NamedTuple):
    major: int
    minor: int
    text: str                # as found, e.g. "v1.33.3"
    source: str              # "serverVersion", "kubeletVersion of node NAME" or "default"
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


def parse_version(text: str) -> Optional[Tuple[int, int]]:
    r = parse_release(text)
    return (r[0], r[1]) if r else None


def cluster_version(snapshot: Snapshot) -> ClusterVersion:
    """The version whose defaults apply to this snapshot (see the module docstring)."""
    server = parse_release(snapshot.info.server_version)
    if server is not None:
        return ClusterVersion(server[0], server[1], snapshot.info.server_version, "serverVersion", server[2])
    best: Optional[Tuple[Release, str, str]] = None
    for name in sorted(snapshot.nodes):
        text = snapshot.nodes[name].kubelet_version
        v = parse_release(text)
        if v is not None and (best is None or v[:2] > best[0][:2]):
            best = (v, text, name)
    if best is not None:
        return ClusterVersion(best[0][0], best[0][1], best[1], "kubeletVersion of node %s" % best[2], best[0][2])
    return ClusterVersion(NEWEST[0], NEWEST[1], "v%d.%d" % NEWEST, "default")
