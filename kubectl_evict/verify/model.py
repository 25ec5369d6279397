"""The values of a verification: projected Events, evidence, one verdict per plan entry.

Statuses (contract): `as-planned`; `differs` (with what happened instead); `pending` (not
happened yet, and not yet due); `unknown` (the cluster no longer shows enough to tell).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Tuple

AS_PLANNED = "as-planned"
DIFFERS = "differs"
PENDING = "pending"
UNKNOWN = "unknown"
STATUSES = (AS_PLANNED, DIFFERS, PENDING, UNKNOWN)
# When several findings speak about one entry, the worst decides: a difference outweighs
# something still to come, which outweighs what cannot be told.
_RANK = {AS_PLANNED: 0, UNKNOWN: 1, PENDING: 2, DIFFERS: 3}


def worst(statuses: Any) -> str:
    out = AS_PLANNED
    for s in statuses:
        if _RANK[s] > _RANK[out]:
            out = s
    return out


class Event(NamedTuple):
    """One events.k8s.io/v1 Event, reduced to what verify reads. Core/v1 events appear through the
    same API with `deprecated*` fields instead of `eventTime`/`reportingController`."""
    namespace: str
    kind: str               # regarding.kind
    name: str               # regarding.name
    uid: str                # regarding.uid; "" when the reporter sets none (the taint-eviction controller)
    reason: str
    note: str
    by: str                 # reportingController, else deprecatedSource.component
    type: str               # Normal | Warning
    first: float            # epoch seconds: eventTime / deprecatedFirstTimestamp
    last: float             # series.lastObservedTime / deprecatedLastTimestamp, else `first`
    count: int = 1

    @property
    def object(self) -> str:
        return "%s %s" % (self.kind, "%s/%s" % (self.namespace, self.name) if self.kind != "Node" else self.name)


class Evidence(NamedTuple):
    """What a verdict rests on: an Event, or a field of an object as the cluster shows it now."""
    time: Optional[float]
    object: str             # "Pod default/web-1", "Node n1"
    reason: str             # the Event's reason, or the field (`spec.nodeName`, `taint timeAdded`)
    by: str                 # who reported it ("" for object fields)
    text: str


class Check(NamedTuple):
    """The verdict on one entry of the plan."""
    ref: str                        # where in the plan: "actions[3]", "blocked[0]", "workloads[1]"
    section: str                    # actions | blocked | shortfall | workloads
    status: str                     # one of STATUSES
    planned: str                    # what the plan said, in words
    observed: str                   # what the cluster shows, in words
    differences: Tuple[str, ...]    # what happened instead (differs), or what is still to come (pending)
    evidence: Tuple[Evidence, ...]
    item: Any                       # the plan's Action / Entry / Workload
    facts: Tuple[Tuple[str, Any], ...] = ()   # structured observations for -o json


class Verification(NamedTuple):
    command: str                    # the plan's command
    plan_now: float
    plan_context: str
    plan_server: str
    verified_at: float              # when the cluster was read
    context: str                    # the cluster read
    server: str
    since: Optional[float]          # --since
    anchor: Optional[float]         # reality's time for the plan's +0s (None: nothing observed yet)
    anchor_source: str              # how the anchor was found, in words
    checks: Tuple[Check, ...]
    warnings: Tuple[str, ...] = ()

    def count(self, status: str) -> int:
        return sum(1 for c in self.checks if c.status == status)


def exit_code(v: Verification) -> int:
    """Contract: 3 something differs; 4 nothing differs but something is pending; else 0."""
    statuses = {c.status for c in v.checks}
    if DIFFERS in statuses:
        return 3
    if PENDING in statuses:
        return 4
    return 0
