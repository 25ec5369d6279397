"""kubectl drain's pod filters and its error/warning aggregation.

Models `staging/src/k8s.io/kubectl/pkg/drain/filters.go` and `drain.go` (kubectl v1.30-v1.37, unchanged since v1.33):
the filters run in the order skipDeleted, daemonSet, mirrorPod, localStorage, unreplicated;
evaluation stops at the first filter that returns delete=false, and the pod's status is that of
the LAST filter evaluated (so the local-storage warning, and the orphaned-DaemonSet warning under
`--force`, are overwritten by the unreplicated filter's Okay). Errors are grouped by message:
`cannot delete <msg>: ns/p1, ns/p2`; warnings print as `<msg>: ns/p1, ...`.
"""

from __future__ import annotations

from typing import Dict, List, NamedTuple, Sequence, Tuple

from pyrsistent import PClass, field

from kubectl_evict.model import Pod, Snapshot
from kubectl_evict.rules.replacements import owner_absent

OKAY, SKIP, WARNING, ERROR = "Okay", "Skip", "Warning", "Error"

DAEMONSET_ERROR = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
DAEMONSET_WARNING = "ignoring DaemonSet-managed Pods"
LOCAL_STORAGE_ERROR = "Pods with local storage (use --delete-emptydir-data to override)"
LOCAL_STORAGE_WARNING = "deleting Pods with local storage"
UNMANAGED_ERROR = "cannot delete Pods that declare no controller (use --force to override)"
UNMANAGED_WARNING = "deleting Pods that declare no controller"
DRAIN_LABEL = "drain-label"   # the message of a Skip for FilterFlags.skip_label


class FilterFlags(PClass):
    """The kubectl drain flags the filters read."""
    force = field(type=bool, initial=False)
    ignore_daemonsets = field(type=bool, initial=False)
    delete_emptydir_data = field(type=bool, initial=False)
    skip_wait_for_delete_timeout = field(type=int, initial=0)   # seconds; 0 = off
    # (key, value): a pod labelled so is left on the node (Cluster API's drainLabelFilter,
    # `cluster.x-k8s.io/drain: skip`); (): no such filter (kubectl drain has none)
    skip_label = field(type=tuple, initial=())


class FilterResult(NamedTuple):
    delete: bool
    reason: str      # Okay, Skip, Warning, Error
    message: str = ""


def _daemonset_known(snapshot: Snapshot, pod: Pod) -> bool:
    """Does the pod's DaemonSet exist? kubectl GETs it by name in the pod's namespace.

    An input that does not hold the DaemonSet kind (only nodes and pods were exported) cannot
    answer, so it is assumed to exist rather than failing every DaemonSet pod.
    """
    return not owner_absent(snapshot, pod)


def drain_filter(snapshot: Snapshot, pod: Pod, flags: FilterFlags, now: float) -> FilterResult:
    """The status kubectl drain gives one pod (`makeFilters` + `GetPodsForDeletion`)."""
    # 1. skipDeletedFilter: int(seconds since deletionTimestamp) > N
    if flags.skip_wait_for_delete_timeout > 0 and pod.deletion_timestamp is not None and \
            int(now - pod.deletion_timestamp) > flags.skip_wait_for_delete_timeout:
        return FilterResult(False, SKIP)
    # 2. daemonSetFilter (only controllerRef.kind is compared; finished pods are Okay)
    if pod.controller is not None and pod.controller.kind == "DaemonSet" and not pod.is_terminal:
        if not _daemonset_known(snapshot, pod):
            if not flags.force:
                return FilterResult(False, ERROR, 'daemonsets.apps "%s" not found' % pod.controller.name)
            # Warning(delete=true): overwritten below by the unreplicated filter's Okay.
        elif not flags.ignore_daemonsets:
            return FilterResult(False, ERROR, DAEMONSET_ERROR)
        else:
            return FilterResult(False, WARNING, DAEMONSET_WARNING)
    # 3. mirrorPodFilter
    if pod.is_mirror:
        return FilterResult(False, SKIP)
    # Cluster API only: its drainLabelFilter runs after these (phase 2), on pods they let through;
    # with its flags (every one on) the two below let every pod through
    if flags.skip_label and pod.labels.get(flags.skip_label[0]) == flags.skip_label[1]:
        return FilterResult(False, SKIP, DRAIN_LABEL)
    # 4. localStorageFilter: emptyDir volumes only, any medium; its Warning is overwritten below
    if any(v.kind == "emptyDir" for v in pod.volumes) and not pod.is_terminal and not flags.delete_emptydir_data:
        return FilterResult(False, ERROR, LOCAL_STORAGE_ERROR)
    # 5. unreplicatedFilter: the last filter evaluated, so its status is the pod's
    if pod.is_terminal or pod.controller is not None:
        return FilterResult(True, OKAY)
    if flags.force:
        return FilterResult(True, WARNING, UNMANAGED_WARNING)
    return FilterResult(False, ERROR, UNMANAGED_ERROR)


def aggregate(messages: Sequence[Tuple[str, Pod]]) -> List[Tuple[str, List[str]]]:
    """Group (message, pod) pairs by message, keeping first-seen order: [(msg, ["ns/p", ...])]."""
    groups: Dict[str, List[str]] = {}
    for msg, pod in messages:
        groups.setdefault(msg, []).append(pod.ref)
    return list(groups.items())


def error_text(msg: str, refs: Sequence[str]) -> str:
    """One error group as kubectl prints it: messages that do not already start with
    "cannot delete" get that prefix."""
    head = msg if msg.lower().startswith("cannot delete") else "cannot delete " + msg
    return "%s: %s" % (head, ", ".join(refs))


def warning_text(msg: str, refs: Sequence[str]) -> str:
    """One warning group, without kubectl's `Warning: ` prefix (the renderer adds it)."""
    return "%s: %s" % (msg, ", ".join(refs))
