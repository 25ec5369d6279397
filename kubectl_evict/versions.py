"""Which Kubernetes release's defaults a plan assumes.

Some defaults changed between releases (the node lifecycle controller's
`--node-monitor-grace-period` went from 40s to 50s in v1.32; the kubelet's soft-eviction grace
became `min(evictionMaxPodGracePeriod, terminationGracePeriodSeconds)` in v1.32). The version
comes from the snapshot: the API server's version (`SnapshotInfo.serverVersion`, recorded by
live reads), else the newest kubelet's (`status.nodeInfo.kubeletVersion`: the control plane is
at least as new as any kubelet, per the version skew policy), else the newest behaviour this
release of evictplan knows.
"""

from __future__ import annotations

import re
from typing import NamedTuple, Optional, Tuple

from kubectl_evict.model import Snapshot

NEWEST = (1, 33)            # the release whose behaviour this version of evictplan models
_VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)")


class ClusterVersion(NamedTuple):
    major: int
    minor: int
    text: str                # as found, e.g. "v1.33.3"
    source: str              # "serverVersion", "kubeletVersion of node NAME" or "default"

    def at_least(self, major: int, minor: int) -> bool:
        return (self.major, self.minor) >= (major, minor)

    def describe(self) -> str:
        """For the table header: `v1.31.2 (from the nodes' kubeletVersion)`."""
        if self.source == "default":
            return "v%d.%d (newest modelled; the snapshot records no version)" % (self.major, self.minor)
        return "%s (from %s)" % (self.text, self.source)


def parse_version(text: str) -> Optional[Tuple[int, int]]:
    m = _VERSION_RE.match(text.strip()) if text else None
    return (int(m.group(1)), int(m.group(2))) if m else None


def cluster_version(snapshot: Snapshot) -> ClusterVersion:
    """The version whose defaults apply to this snapshot (see the module docstring)."""
    server = parse_version(snapshot.info.server_version)
    if server is not None:
        return ClusterVersion(server[0], server[1], snapshot.info.server_version, "serverVersion")
    best: Optional[Tuple[Tuple[int, int], str, str]] = None
    for name in sorted(snapshot.nodes):
        text = snapshot.nodes[name].kubelet_version
        v = parse_version(text)
        if v is not None and (best is None or v > best[0]):
            best = (v, text, name)
    if best is not None:
        return ClusterVersion(best[0][0], best[0][1], best[1], "kubeletVersion of node %s" % best[2])
    return ClusterVersion(NEWEST[0], NEWEST[1], "v%d.%d" % NEWEST, "default")
