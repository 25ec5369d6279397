"""events.k8s.io/v1 Events as `Event` records, and the indexes verify looks them up by.

Which reporter writes what (kubernetes v1.27-v1.35, pkg/controller/tainteviction,
pkg/kubelet/eviction, pkg/scheduler, pkg/kubelet/kuberuntime):
- taint-eviction controller: reason `TaintManagerEviction`, note "Marking for deletion Pod NS/NAME"
  (or "Cancelling deletion of Pod NS/NAME"); its object reference carries no uid. Reporter
  `taint-eviction-controller` since v1.29, `taint-controller`/`node-controller` before.
- kubelet eviction manager: reason `Evicted` ("The node was low on resource: memory. ...").
- scheduler: `Scheduled` ("Successfully assigned NS/NAME to NODE"), `FailedScheduling`
  ("0/12 nodes are available: ..."), `Preempted` on the victim.
- kubelet: `Killing` ("Stopping container app") when it stops a pod's containers, for whatever reason;
  `NodeNotSchedulable` / `NodeSchedulable` on the Node when it sees a cordon / uncordon.
Events of cluster-scoped objects (Nodes) are recorded in the `default` namespace.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from kubectl_evict.errors import ValueParseError
from kubectl_evict.plan import KUBELET, POD_GC, SCHEDULER, TAINT_EVICTION
from kubectl_evict.timeutil import parse_time
from kubectl_evict.verify.model import Event

# Event reasons that say a pod was removed, and by whom (None: removed, the reason does not say who).
REMOVAL_REASONS: Dict[str, Optional[str]] = {
    "TaintManagerEviction": TAINT_EVICTION,
    "Evicted": KUBELET,
    "Preempted": SCHEDULER,
    "Preempting": KUBELET,          # the kubelet's critical-pod admission preempting a pod
    "Killing": None,
}
# Components whose removal Events are part of a removal the plan gives to another component. Pod
# GC records no Event; its gcTerminating force-deletes only pods already terminating on a NotReady
# node with the out-of-service taint, which the taint-eviction controller marked for deletion first
# (pkg/controller/podgc/gc_controller.go gcTerminating, on by default since v1.26; KEP-2268).
ALSO_SEEN: Dict[str, Tuple[str, ...]] = {POD_GC: (TAINT_EVICTION,)}
_ASSIGNED = re.compile(r"^Successfully assigned (\S+) to (\S+)$")   # the scheduler's Scheduled note
CANCELLED = "Cancelling deletion"   # TaintManagerEviction's note when a scheduled deletion is cancelled
# The kubelet's `Killing` also stops a single container it restarts at once, with a note that says so
# (pkg/kubelet/kuberuntime/kuberuntime_manager.go computePodActions): "Container C failed liveness
# probe, will be restarted" (startup probe, "definition changed" alike), "Container is in "unknown"
# state, try killing it before restart". The pod stays; only "Stopping container C" is the pod going.
CONTAINER_RESTART = (", will be restarted", "before restart")


def container_restart(ev: Event) -> bool:
    """Is `ev` the kubelet restarting one container of a pod that stays (not the pod going)?"""
    return ev.reason == "Killing" and any(s in ev.note for s in CONTAINER_RESTART)


def _time(v: Any) -> Optional[float]:
    if not isinstance(v, str) or not v:
        return None
    try:
        return parse_time(v)
    except ValueParseError:
        return None


def project(raw: Iterable[Any]) -> Tuple[Event, ...]:
    """Events from raw events.k8s.io/v1 objects; what cannot be placed in time or names no object
    is dropped (an Event is evidence, never input that could fail the verification)."""
    out: List[Event] = []
    for e in raw:
        if not isinstance(e, dict):
            continue
        reg = e.get("regarding") or e.get("involvedObject") or {}
        md = e.get("metadata") or {}
        if not isinstance(reg, dict) or not isinstance(md, dict):
            continue
        series = e.get("series") if isinstance(e.get("series"), dict) else {}
        first = (_time(e.get("eventTime")) or _time(e.get("deprecatedFirstTimestamp"))
                 or _time(e.get("firstTimestamp")) or _time(md.get("creationTimestamp")))
        if first is None or not reg.get("name"):
            continue
        last = (_time(series.get("lastObservedTime")) or _time(e.get("deprecatedLastTimestamp"))
                or _time(e.get("lastTimestamp")) or first)
        src = e.get("deprecatedSource") or e.get("source") or {}
        by = e.get("reportingController") or (src.get("component") if isinstance(src, dict) else "") or ""
        count = series.get("count") or e.get("deprecatedCount") or e.get("count") or 1
        out.append(Event(namespace=str(reg.get("namespace") or md.get("namespace") or ""),
                         kind=str(reg.get("kind") or ""), name=str(reg.get("name")), uid=str(reg.get("uid") or ""),
                         reason=str(e.get("reason") or ""), note=str(e.get("note") or e.get("message") or ""),
                         by=str(by), type=str(e.get("type") or ""), first=first, last=max(first, last),
                         count=int(count) if isinstance(count, int) else 1))
    out.sort(key=lambda ev: (ev.first, ev.namespace, ev.name, ev.reason))
    return tuple(out)


class EventIndex:
    """Events by the pod or node they regard, from `start` on (older ones are not this plan's)."""

    def __init__(self, events: Iterable[Event], start: float) -> None:
        self.pods: Dict[Tuple[str, str], List[Event]] = {}
        self.nodes: Dict[str, List[Event]] = {}
        for ev in events:
            if ev.last < start:
                continue
            if ev.kind == "Pod":
                self.pods.setdefault((ev.namespace, ev.name), []).append(ev)
            elif ev.kind == "Node":
                self.nodes.setdefault(ev.name, []).append(ev)

    def pod(self, namespace: str, name: str, uid: str = "", reasons: Optional[Iterable[str]] = None) -> List[Event]:
        """Events of a pod: those naming its uid, and those naming no uid at all."""
        wanted = set(reasons) if reasons is not None else None
        return [ev for ev in self.pods.get((namespace, name), ())
                if (not uid or not ev.uid or ev.uid == uid) and (wanted is None or ev.reason in wanted)]

    def scheduled(self, namespace: str, names: Callable[[str], bool]) -> List[Tuple[Event, str]]:
        """The `Scheduled` Events of the pods of `namespace` whose name `names` accepts, each with
        the node it names: the scheduler's "Successfully assigned NS/NAME to NODE"
        (pkg/scheduler/schedule_one.go, after the binding). In time order."""
        out: List[Tuple[Event, str]] = []
        for (ns, name), evs in self.pods.items():
            if ns != namespace or not names(name):
                continue
            for ev in evs:
                if ev.reason == "Scheduled":
                    hit = _ASSIGNED.match(ev.note)
                    if hit is not None and hit.group(1) == "%s/%s" % (ns, name):
                        out.append((ev, hit.group(2)))
        out.sort(key=lambda x: (x[0].first, x[0].name))
        return out

    def node(self, name: str, reasons: Iterable[str]) -> List[Event]:
        wanted = set(reasons)
        return [ev for ev in self.nodes.get(name, ()) if ev.reason in wanted]
