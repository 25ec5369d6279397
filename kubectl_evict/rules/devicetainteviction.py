"""Which pods the device taint eviction controller deletes, and when
(`pkg/controller/devicetainteviction/device_taint_eviction.go`, kube-controller-manager v1.36+:
gate DRADeviceTaints, beta and on in v1.36, GA in v1.37; off before v1.36, where nothing happens).

For every allocated ResourceClaim (`claimEvictionTime`): each NoExecute taint on a device of its
allocation (the taints of the ResourceSlice device) counts unless a toleration copied into the
allocation result (`status.allocation.devices.results[].tolerations`) with effect NoExecute
tolerates it forever; a tolerating toleration with `tolerationSeconds` delays that taint by the
smallest such seconds (negative counts as 0). The claim's eviction time is the earliest
`timeAdded` (+ delay) over its taints, and every pod using the claim is deleted then (a plain
DELETE with the pod's own grace period: PDBs are not consulted; the pod gets the DisruptionTarget
condition `DeletionByDeviceTaintManager`). DeviceTaintRules are not read (README).
"""

from __future__ import annotations

from typing import Dict, List, NamedTuple, Optional, Tuple

from kubectl_evict.model import Pod, ResourceClaim, Snapshot, Taint
from kubectl_evict.scheduling.plugins.dynamicresources import pod_claims
from kubectl_evict.scheduling.tolerations import tolerates
from kubectl_evict.versions import cluster_version

CONDITION_REASON = "DeletionByDeviceTaintManager"


class DeviceEviction(NamedTuple):
    pod: Pod
    at: float                 # seconds after `now` (0: already due)
    claim: ResourceClaim
    taints: Tuple[str, ...]   # `driver/pool/device: key=value:NoExecute`, sorted


def claim_eviction_time(claim: ResourceClaim, device_taints: Dict[Tuple[str, str, str], Tuple[Taint, ...]],
                        now: float) -> Tuple[Optional[float], Tuple[str, ...]]:
    """`claimEvictionTime`: (epoch seconds, the taints that cause it) or (None, ())."""
    when: Optional[float] = None
    why: List[str] = []
    for dev in claim.devices:
        for taint in device_taints.get((dev.driver, dev.pool, dev.device), ()):
            if taint.effect != "NoExecute":
                continue
            seconds: Optional[int] = None
            forever = False
            for tol in dev.tolerations:
                if tol.effect == "NoExecute" and tolerates(tol, taint):
                    if tol.seconds is None:
                        forever = True
                        break
                    s = max(0, tol.seconds)
                    seconds = s if seconds is None else min(seconds, s)
            if forever:
                continue
            t = (taint.time_added if taint.time_added is not None else now) + (seconds or 0)
            why.append("%s/%s/%s: %s" % (dev.driver, dev.pool, dev.device, taint))
            when = t if when is None else min(when, t)
    return when, tuple(sorted(why))


def unknown_kinds(snapshot: Snapshot) -> Tuple[str, ...]:
    """The kinds device taint evictions depend on that the input does not hold (only when it has
    pods with ResourceClaims on a v1.36+ cluster)."""
    if not cluster_version(snapshot).has("DRADeviceTaints") or not any(p.resource_claims for p in snapshot.pods):
        return ()
    return tuple(k for k in ("ResourceClaim", "ResourceSlice") if not snapshot.holds(k))


def has_noexecute_device_taints(snapshot: Snapshot) -> bool:
    """Does a device of the input carry a NoExecute taint the controller acts on (v1.36+)? Only
    then can a pod be deleted for its devices."""
    return bool(snapshot.resource_slices) and cluster_version(snapshot).has("DRADeviceTaints") and any(
        t.effect == "NoExecute" for s in snapshot.resource_slices for d in s.devices for t in d.taints)


def device_taint_evictions(snapshot: Snapshot, now: float) -> List[DeviceEviction]:
    """Every running pod whose allocated claims carry an untolerated NoExecute device taint, by
    time then pod (empty before v1.36)."""
    if not snapshot.resource_slices or not cluster_version(snapshot).has("DRADeviceTaints"):
        return []
    taints: Dict[Tuple[str, str, str], Tuple[Taint, ...]] = {}
    for s in snapshot.resource_slices:
        for d in s.devices:
            if any(t.effect == "NoExecute" for t in d.taints):
                taints[(s.driver, s.pool, d.name)] = d.taints
    if not taints:
        return []
    out: List[DeviceEviction] = []
    cache: Dict[Tuple[str, str], Tuple[Optional[float], Tuple[str, ...]]] = {}
    for pod in snapshot.pods:
        if not pod.resource_claims or not pod.node_name or pod.is_terminal or pod.deletion_timestamp is not None:
            continue
        best: Optional[DeviceEviction] = None
        for claim in pod_claims(snapshot, pod):
            if not claim.allocated:
                continue
            key = (claim.namespace, claim.name)
            hit = cache.get(key)
            if hit is None:
                hit = cache[key] = claim_eviction_time(claim, taints, now)
            when, why = hit
            if when is not None and (best is None or max(0.0, when - now) < best.at):
                best = DeviceEviction(pod, max(0.0, when - now), claim, why)
        if best is not None:
            out.append(best)
    out.sort(key=lambda e: (e.at, e.pod.namespace, e.pod.name))
    return out
