"""What the StatefulSet controller does with an evicted pod (`pkg/controller/statefulset/
stateful_set_control.go`, v1.33): the replacement has the same name and the same claims, and
is created only once the old pod is gone; with `podManagementPolicy: OrderedReady` (the default)
ordinal N is (re)created only while every lower ordinal is Running and Ready (`monotonic`)."""

from __future__ import annotations

from typing import AbstractSet, Optional, Tuple

from kubectl_evict.model import Pod, Snapshot


def ordinal(pod: Pod) -> Optional[int]:
    """`getOrdinal`: the number after the last dash of `<set>-<n>`, None when there is none."""
    head, _, tail = pod.name.rpartition("-")
    return int(tail) if head and tail.isdigit() else None


def is_ordered_ready(snapshot: Snapshot, pod: Pod) -> bool:
    if pod.controller_kind != "StatefulSet":
        return False
    owner = snapshot.owners.get(("StatefulSet", pod.namespace, pod.controller.name))
    return owner is None or owner.pod_management_policy in ("", "OrderedReady")


def lower_ordinal_holding(snapshot: Snapshot, pod: Pod, pending: AbstractSet[Tuple[str, str]],
                          leaving: AbstractSet[Tuple[str, str]] = frozenset()) -> Optional[Pod]:
    """The lower-ordinal pod of the same OrderedReady StatefulSet that keeps `pod`'s replacement
    from being created: one whose own replacement stays Pending in this plan (`pending`), or
    one that is not Running and Ready now and is not itself being replaced (`leaving`)."""
    if not is_ordered_ready(snapshot, pod):
        return None
    mine = ordinal(pod)
    if mine is None:
        return None
    for other in snapshot.pods_by_owner.get(pod.controller.uid, ()):
        n = ordinal(other)
        if n is None or n >= mine:
            continue
        if other.key in pending:
            return other
        if other.key not in leaving and not (other.phase == "Running" and other.ready):
            return other
    return None


def queue_key(pod: Pod, index: int) -> tuple:
    """kube-scheduler's queue order for replacements created in the same wave: higher priority
    first, then earlier creation. StatefulSet replacements are created only once the old pod
    is gone (a grace period later), so after the others (a set's own pods in ordinal order)."""
    sts = pod.controller_kind == "StatefulSet"
    return (sts, -pod.priority, (ordinal(pod) or 0) if sts else 0, index)
