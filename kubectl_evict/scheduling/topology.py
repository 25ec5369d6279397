"""Zone keys, as `k8s.io/component-helpers/node/topology.GetZoneKey` computes them (v1.30-v1.37, unchanged)."""

from __future__ import annotations

from typing import Mapping


def zone_key(labels: Mapping[str, str]) -> str:
    """Beta failure-domain labels first, then topology labels.

    Upstream joins region and zone with ":\\x00:"; label values cannot contain "/", so
    "region/zone" groups nodes identically and prints cleanly. No labels: "" (one zone).
    """
    region = _first_present(labels, "failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region")
    zone = _first_present(labels, "failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone")
    if not region and not zone:
        return ""
    return "%s/%s" % (region, zone) if region else zone


def _first_present(labels: Mapping[str, str], beta: str, ga: str) -> str:
    """The beta label when the node has it, even empty (upstream tests presence: `zone, ok :=
    labels[beta]`), else the GA one."""
    return labels[beta] if beta in labels else labels.get(ga, "")
