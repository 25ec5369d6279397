"""Taints and tolerations.

Models `k8s.io/api/core/v1/toleration.go` (`ToleratesTaint`), `pkg/apis/core/v1/helper`
(`GetMatchingTolerations`), the taint-eviction controller's `getMinTolerationTime` and
`processPodOnNode` replayed over a node's NoExecute taint history (`taint_eviction_schedule`,
`pkg/controller/tainteviction`, v1.30-v1.37: the one answer `controller` and `shutdown` share, where a
toleration with tolerationSeconds is never "forever"), the DefaultTolerationSeconds admission
plugin and the DaemonSet controller's implicit tolerations (`pkg/controller/daemon/util`).
"""

from __future__ import annotations

from typing import Iterable, List, NamedTuple, Optional, Sequence, Tuple

from kubectl_evict.model import Taint, Toleration
from kubectl_evict.scheduling.labels import parse_int64
from kubectl_evict.timeutil import format_offset, format_seconds

NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"
DISK_PRESSURE = "node.kubernetes.io/disk-pressure"
PID_PRESSURE = "node.kubernetes.io/pid-pressure"
NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"
OUT_OF_SERVICE = "node.kubernetes.io/out-of-service"

EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def taints_text(taints: Iterable[Taint]) -> str:
    """`key=value:Effect, ...` as kubectl prints taints."""
    return ", ".join(str(t) for t in taints)


def tolerates(tol: Toleration, taint: Taint, *, comparison_operators: bool = False) -> bool:
    """`Toleration.ToleratesTaint`.

    `comparison_operators` enables the Gt/Lt operators of the TaintTolerationComparisonOperators
    gate (newer than v1.33): an int64 comparison of the taint's value against the toleration's.
    """
    if tol.effect and tol.effect != taint.effect:
        return False
    if tol.key and tol.key != taint.key:
        return False
    op = tol.operator
    if op in ("", "Equal"):
        return tol.value == taint.value
    if op == "Exists":
        return True
    if comparison_operators and op in ("Gt", "Lt"):
        have, want = parse_int64(taint.value), parse_int64(tol.value)
        if have is None or want is None:
            return False
        return have > want if op == "Gt" else have < want
    return False


def first_tolerating(tolerations: Sequence[Toleration], taint: Taint) -> Optional[Toleration]:
    for t in tolerations:
        if tolerates(t, taint):
            return t
    return None


class TaintVerdict(NamedTuple):
    all_tolerated: bool
    used: Tuple[Toleration, ...]
    untolerated: Tuple[Taint, ...]


def matching_tolerations(taints: Iterable[Taint], tolerations: Sequence[Toleration]) -> TaintVerdict:
    """`GetMatchingTolerations`: the first toleration in spec order that tolerates each taint."""
    used: List[Toleration] = []
    missing: List[Taint] = []
    for taint in taints:
        t = first_tolerating(tolerations, taint)
        if t is None:
            missing.append(taint)
        else:
            used.append(t)
    return TaintVerdict(not missing, tuple(used), tuple(missing))


def min_toleration_seconds(used: Sequence[Toleration]) -> int:
    """`getMinTolerationTime`: 0 for none or any `<= 0`, -1 when no toleration sets seconds
    (tolerated forever), else the smallest `tolerationSeconds`."""
    if not used:
        return 0
    best = -1
    for t in used:
        if t.seconds is None:
            continue
        if t.seconds <= 0:
            return 0
        if best < 0 or t.seconds < best:
            best = t.seconds
    return best


class NoExecuteDecision(NamedTuple):
    """What the taint-eviction controller does with one pod on one node."""
    action: str                  # "none", "delete-now", "delete-after", "forever"
    seconds: int = 0             # for delete-after
    untolerated: Tuple[Taint, ...] = ()


def has_no_execute(taints: Iterable[Taint]) -> bool:
    """Does any of `taints` have the NoExecute effect (the only ones the taint-eviction controller acts on)?"""
    for t in taints:
        if t.effect == "NoExecute":
            return True
    return False


def no_execute_decision(taints: Iterable[Taint], tolerations: Sequence[Toleration]) -> NoExecuteDecision:
    """`processPodOnNode` over the node's NoExecute taints."""
    noexec = [t for t in taints if t.effect == "NoExecute"]
    if not noexec:
        return NoExecuteDecision("none")
    verdict = matching_tolerations(noexec, tolerations)
    if not verdict.all_tolerated:
        return NoExecuteDecision("delete-now", 0, verdict.untolerated)
    secs = min_toleration_seconds(verdict.used)
    if secs < 0:
        return NoExecuteDecision("forever")
    if secs == 0:
        return NoExecuteDecision("delete-now")
    return NoExecuteDecision("delete-after", secs)


def taint_eviction_schedule(tolerations: Sequence[Toleration], original: Sequence[Toleration],
                            history: Sequence[Tuple[float, Tuple[Taint, ...]]], now: float
                            ) -> Tuple[str, Optional[float], str]:
    """`processPodOnNode` replayed over a node's NoExecute taint history.

    Returns (kind, at, why): "delete" at a time, "forever" (tolerated without seconds while the
    controller's taints were on), "cancelled" (a scheduled deletion was cancelled because the
    taints went away), or "none". A scheduled deletion is kept when later taint changes come
    (`startTime + min < now + min`); not tolerating a taint deletes at once; the taints in the
    snapshot are assumed to have been seen when added (`timeAdded`, else `now`: the controller
    counts from when it observes the taint, semantics.md D.4, and a taint without `timeAdded` is
    known to be there only from the snapshot on; the reason says so, as the deletion may then
    come earlier).
    """
    if not history:
        return "none", None, ""
    t0 = history[0][0]
    history = _as_added(history, now) + list(history[1:])
    sched: Optional[Tuple[float, float, str]] = None   # (created, fires, why)
    forever = ""
    cancelled = ""
    for i, (t, taints) in enumerate(history):
        if sched is not None and sched[1] <= t and i > 0:
            return "delete", max(t0, sched[1]), sched[2]
        d = no_execute_decision(taints, tolerations)
        noexec = [x for x in taints if x.effect == "NoExecute"]
        if d.action == "none":
            if sched is not None:
                cancelled = "deletion planned for %s cancelled at %s: NoExecute taints removed" % (format_offset(sched[1]), format_offset(t))
            sched = None
            continue
        if d.action == "delete-now":
            if d.untolerated:
                why = "does not tolerate NoExecute taint %s" % taints_text(d.untolerated)
            else:
                why = "tolerates NoExecute taint %s for 0s" % taints_text(noexec)
            if i == 0 or t < t0:
                why += " (in the snapshot: deletion is due now)"
            return "delete", max(t0, t), why
        if d.action == "forever":
            if sched is not None:
                cancelled = ""
            sched = None
            forever = "tolerates NoExecute taint %s forever (no tolerationSeconds)" % taints_text(noexec)
            continue
        secs = d.seconds
        used = [tol for tol in tolerations if tol.seconds == secs and tol.effect in ("", "NoExecute")]
        added = bool(used) and all(u not in original for u in used)
        why = "tolerates NoExecute taint %s for %ds%s" % (taints_text(noexec), secs,
                                                          " (default toleration added at admission)" if added else "")
        if i == 0:
            starts = [x.time_added - now for x in noexec if x.time_added is not None]
            created = min(starts) if starts else 0.0
            sched = (created, created + secs,
                     why + (" (taint added %s ago)" % format_seconds(round(-created)) if created < 0 else
                            " (taint has no timeAdded: counted from now)" if not starts else ""))
        elif sched is None or sched[0] == t:
            sched = (t, t + secs, why)
        # else: the earlier scheduled deletion is kept as it is
    if sched is not None:
        return "delete", max(t0, sched[1]), sched[2]
    if cancelled:
        return "cancelled", None, cancelled
    if forever:
        return "forever", None, forever
    return "none", None, ""


def _as_added(history: Sequence[Tuple[float, Tuple[Taint, ...]]], now: float
              ) -> List[Tuple[float, Tuple[Taint, ...]]]:
    """The first entry of a taint history (the snapshot's taints) as the controller saw them
    come: when its NoExecute taints were added at different times (`timeAdded`), one step per
    time (seconds after `now`, before the entry's own time) with the taints added by then, so a
    deletion scheduled for the first taints is kept when later ones come (`processPodOnNode`)
    instead of all of them counting from the earliest. The last step is the entry itself."""
    t0, taints = history[0]
    times = sorted({x.time_added - now for x in taints
                    if x.effect == "NoExecute" and x.time_added is not None and x.time_added - now < t0})
    if len(times) < 2:
        return [history[0]]
    steps = [(p, tuple(x for x in taints if x.effect != "NoExecute"
                       or (x.time_added is not None and x.time_added - now <= p)))
             for p in times[:-1]]
    return steps + [(times[-1], taints)]


def untolerated_schedule_taints(taints: Iterable[Taint], tolerations: Sequence[Toleration]) -> Tuple[Taint, ...]:
    """The NoSchedule/NoExecute taints that keep a pod off a node (the scheduler's TaintToleration
    filter; PreferNoSchedule is only a score)."""
    return tuple(t for t in taints if t.effect in ("NoSchedule", "NoExecute") and first_tolerating(tolerations, t) is None)


def default_toleration_seconds(tolerations: Sequence[Toleration], not_ready_seconds: int = 300,
                               unreachable_seconds: int = 300) -> Tuple[Toleration, ...]:
    """The DefaultTolerationSeconds admission plugin: add `not-ready` and `unreachable` NoExecute
    tolerations unless one with that key (or empty key) and NoExecute (or empty) effect exists."""
    out = list(tolerations)

    def has(key: str) -> bool:
        return any((t.key in ("", key)) and t.effect in ("", "NoExecute") for t in tolerations)

    if not has(NOT_READY):
        out.append(Toleration(NOT_READY, "Exists", "", "NoExecute", not_ready_seconds))
    if not has(UNREACHABLE):
        out.append(Toleration(UNREACHABLE, "Exists", "", "NoExecute", unreachable_seconds))
    return tuple(out)


_DAEMONSET_TOLERATIONS = (
    Toleration(NOT_READY, "Exists", "", "NoExecute"),
    Toleration(UNREACHABLE, "Exists", "", "NoExecute"),
    Toleration(DISK_PRESSURE, "Exists", "", "NoSchedule"),
    Toleration(MEMORY_PRESSURE, "Exists", "", "NoSchedule"),
    Toleration(PID_PRESSURE, "Exists", "", "NoSchedule"),
    Toleration(UNSCHEDULABLE, "Exists", "", "NoSchedule"),
)


def with_daemonset_tolerations(tolerations: Sequence[Toleration], host_network: bool) -> Tuple[Toleration, ...]:
    """`AddOrUpdateDaemonPodTolerations`: the tolerations the DaemonSet controller puts on its
    pods. One equal in key, operator, value and effect is replaced (its seconds dropped), as
    `AddOrUpdateTolerationInPodSpec` does; the others are appended."""
    extra = list(_DAEMONSET_TOLERATIONS)
    if host_network:
        extra.append(Toleration(NETWORK_UNAVAILABLE, "Exists", "", "NoSchedule"))
    out = list(tolerations)
    for e in extra:
        for i, t in enumerate(out):
            if (t.key, t.operator or "Equal", t.value, t.effect) == (e.key, e.operator, e.value, e.effect):
                out[i] = e
                break
        else:
            out.append(e)
    return tuple(out)
