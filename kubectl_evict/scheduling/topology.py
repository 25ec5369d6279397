"""Zone keys, as `k8s.io/component-helpers/node/topology.GetZoneKey` computes them (v1.30-v1.37, unchanged)."""

from __future__ import annotations

from typing import Mapping


def zone_key(labels: Mapping[str, str]) -> str:
    """Beta failure-domain labels first, then topology labels.

    Upstream joins region and zone with ":\\x00:"; label values cannot contain "/", so
    "region/zone" groups nodes identically and prints cleanly. No labels: "" (one zone).
    """
    region = labels.get("failure-domain.beta.kubernetes.io/region") or labels.get("topology.kubernetes.io/region") or ""
    zone = labels.get("failure-domain.beta.kubernetes.io/zone") or labels.get("topology.kubernetes.io/zone") or ""
    if not region and not zone:
        return ""
    return "%s/%s" % (region, zone) if region else zone
