"""What the StatefulSet controller does with an evicted pod (`pkg/controller/statefulset/
stateful_set_control.go`, v1.30-v1.37): the replacement has the same name and the same claims,
and is created only once the old pod is gone; with `podManagementPolicy: OrderedReady` (the
default) ordinal N is (re)created only while every lower ordinal is Running and Ready
(`monotonic`: `rules/replacements.py` `ordered_ready_wait`, with the rest of "what recreates this
pod").

A rolling update in progress takes pods down by itself: one at a time, or up to
`rollingUpdate.maxUnavailable` where MaxUnavailableStatefulSet is on
(`updateStatefulSetAfterInvariantEstablished`: v1.35.0-v1.35.3 and v1.37+; off in v1.35.4-v1.36
and before v1.35, where the field is ignored). `rollout_warning` says so for the sets a plan touches."""

from __future__ import annotations

from typing import Any, Optional

from kubectl_evict.model import Owner, Pod
from kubectl_evict.scheduling.disruption import scaled_value


def ordinal(pod: Pod) -> Optional[int]:
    """`getOrdinal`: the number after the last dash of `<set>-<n>`, None when there is none."""
    head, _, tail = pod.name.rpartition("-")
    return int(tail) if head and tail.isdigit() else None


def in_range(owner: Owner, n: int) -> bool:
    """`podInOrdinalRange`: is ordinal `n` one the set keeps, from `spec.ordinals.start` (default
    0) to start + spec.replicas - 1 (`getStartOrdinal`, `getEndOrdinal`)? A pod outside is
    condemned (a scale-down under way): `processCondemned` deletes it and nothing creates it
    again. True when the set's replicas are not known."""
    if owner.replicas is None:
        return True
    return owner.start_ordinal <= n < owner.start_ordinal + owner.replicas


def queue_key(pod: Pod, index: int) -> tuple:
    """kube-scheduler's queue order for replacements created in the same wave: higher priority
    first, then earlier creation. StatefulSet replacements are created only once the old pod
    is gone (a grace period later), so after the others (a set's own pods in ordinal order)."""
    sts = pod.controller_kind == "StatefulSet"
    return (sts, -pod.priority, (ordinal(pod) or 0) if sts else 0, index)


def down_at_once(owner: Owner, version: Any) -> int:
    """How many pods a rollout of `owner` may have unavailable at once on a cluster of `version`:
    rollingUpdate.maxUnavailable (default 1, a percentage of spec.replicas rounded down, at least 1)
    where MaxUnavailableStatefulSet is on, else 1."""
    if not version.has("MaxUnavailableStatefulSet") or owner.max_unavailable is None:
        return 1
    value = owner.max_unavailable
    if isinstance(value, str) and value.endswith("%"):
        return max(1, int(value[:-1]) * (owner.replicas or 0) // 100)
    return max(1, scaled_value(value, owner.replicas or 0))


def rollout_warning(owner: Owner, version: Any) -> Optional[str]:
    """A warning for a StatefulSet the plan touches that is rolling out (None otherwise)."""
    if owner.kind != "StatefulSet" or not owner.rolling_out:
        return None
    n = down_at_once(owner, version)
    if version.has("MaxUnavailableStatefulSet"):
        why = "rollingUpdate.maxUnavailable %s, MaxUnavailableStatefulSet on in %s" % (
            owner.max_unavailable if owner.max_unavailable is not None else "unset (1)", version.text)
    else:
        why = "MaxUnavailableStatefulSet off in %s%s" % (
            version.text, ": rollingUpdate.maxUnavailable %s is ignored" % owner.max_unavailable
            if owner.max_unavailable is not None else "")
    return ("%s is rolling out (currentRevision != updateRevision): its controller takes down up to %d pod%s "
            "at once by itself (%s), on top of this plan" % (owner.ref, n, "" if n == 1 else "s", why))
