"""The node lifecycle controller as a pure timeline: node health, zone states, rate-limited
NoExecute tainting, and what the taint-eviction controller then does to each pod.

Models kube-controller-manager v1.30-v1.37 (`pkg/controller/nodelifecycle/node_lifecycle_controller.go`:
`tryUpdateNodeHealth`, `doNoScheduleTaintingPass`, `processTaintBaseEviction`,
`doNoExecuteTaintingPass`, `ComputeZoneState`, `setLimiterInZone`, `handleDisruption`;
`pkg/controller/nodelifecycle/scheduler/rate_limited_queue.go`: token bucket with burst 1 and
`SwapLimiter`), and `pkg/controller/tainteviction/taint_eviction.go` (`processPodOnNode`), with
the timing measured on a real v1.33 controller-manager (spec C10): a node that stops posting at
`t` turns Unknown at `t + grace`; up to v1.33 it is queued for the NoExecute taint one
`--node-monitor-period` later (`processTaintBaseEviction` decided on the Ready condition seen
before the pass updated it); from v1.34 (#120816, feature UnreachableTaintSamePass) in the same
pass that sets Ready=Unknown. Each zone's queue hands out one token per `1/rate` seconds; zone
states are recomputed in the pass that turns nodes Unknown. From v1.37 the controller re-reads
the node's Lease live before marking it unhealthy (#138698, KEP-5647): the snapshot's Lease is
taken as that live read, so the timing is unchanged and the reason says so.
The default `--node-monitor-grace-period` is 50s from v1.32, 40s before.

Everything here is a pure function of (snapshot, now, failures, settings). The `controller`
command and the `shutdown` command (a node posting NotReady, then going silent) share
`noexecute_timeline` and `pod_fates`.

Times in a `Timeline` are seconds after `now`.
"""

from __future__ import annotations

import math
import struct
from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from pyrsistent import PClass, field

from kubectl_evict.model import Condition, Node, Pod, Snapshot, Taint, Toleration
from kubectl_evict.plan import counted_refs
from kubectl_evict.timeutil import format_seconds
from kubectl_evict.versions import ClusterVersion, cluster_version
from kubectl_evict.scheduling.tolerations import (DISK_PRESSURE, MEMORY_PRESSURE, NETWORK_UNAVAILABLE, NOT_READY,
                                                  PID_PRESSURE, UNREACHABLE, UNSCHEDULABLE, default_toleration_seconds,
                                                  has_no_execute, taint_eviction_schedule)

# --- settings ----------------------------------------------------------------------------------

NORMAL = "Normal"
PARTIAL = "PartialDisruption"
FULL = "FullDisruption"

INF = math.inf


class ControllerSettings(PClass):
    """kube-controller-manager flags (upstream defaults) plus the planner's own knobs."""
    node_monitor_grace_period = field(initial=None)     # seconds; None: 50 (40 before v1.32)
    node_startup_grace_period = field(initial=60.0)
    node_monitor_period = field(initial=5.0)
    node_eviction_rate = field(initial=0.1)
    secondary_node_eviction_rate = field(initial=0.01)
    unhealthy_zone_threshold = field(initial=0.55)
    large_cluster_size_threshold = field(type=int, initial=50)
    pod_eviction_timeout = field(initial=300.0)          # --legacy-eviction only
    legacy_eviction = field(type=bool, initial=False)
    horizon = field(initial=900.0)
    default_not_ready_toleration_seconds = field(type=int, initial=300)
    default_unreachable_toleration_seconds = field(type=int, initial=300)


def monitor_grace(settings: ControllerSettings, version: ClusterVersion) -> float:
    """`--node-monitor-grace-period`: the flag, else 50s (v1.32+, PR #126287), else 40s for an
    older cluster (the version rule of kubectl_evict/versions.py)."""
    if settings.node_monitor_grace_period is not None:
        return float(settings.node_monitor_grace_period)
    return 50.0 if version.has("NodeMonitorGracePeriod50s") else 40.0


def taint_delay(status: str, period: float, same_pass: bool) -> float:
    """From a Ready change to the pass that acts on it with a NoExecute taint: one
    `--node-monitor-period`, except for Ready=Unknown from v1.34 (`same_pass`, #120816), which
    the pass that sets it also taints."""
    return 0.0 if same_pass and status == "Unknown" else period


# --- node health (tryUpdateNodeHealth) -----------------------------------------------------------

_UNKNOWN_TYPES = ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure")   # not NetworkUnavailable
STATUS_REPORT_FREQUENCY = 300.0   # kubelet nodeStatusReportFrequency default (5m)


class NodeHealth(NamedTuple):
    """The controller's view of one node at `now` (after its monitor pass at `now`)."""
    status: str                  # Ready status after the pass: True, False, Unknown, "" (never posted)
    posted_status: str           # Ready status as the snapshot holds it
    probe: Optional[float]       # epoch seconds of the last heartbeat / Lease renewal it counts
    grace: float                 # the grace period that applies to it
    flipped: bool                # this pass turns it Unknown (heartbeat older than grace)
    lenient: bool                # judged by nodeStatusReportFrequency because no Lease is known


def observe_node(node: Node, lease_renew: Optional[float], now: float, grace: float, startup_grace: float,
                 leases_known: bool = True, report_frequency: float = STATUS_REPORT_FREQUENCY) -> NodeHealth:
    """`tryUpdateNodeHealth` for a node seen for the first time at `now`.

    The probe time is the later of the Ready heartbeat (node creation when it never posted) and
    the Lease renewal. Past `probe + grace` the controller writes Unknown. When the snapshot holds
    no Leases at all (`leases_known` false) a healthy kubelet's heartbeat can be up to
    `nodeStatusReportFrequency` (5m) old, so that bound is used instead of the grace period:
    otherwise every quiet node of a lease-less snapshot would look dead.
    """
    ready = node.conditions.get("Ready")
    if ready is None:
        probe = node.creation_timestamp
        g = startup_grace
        posted = ""
    else:
        probe = ready.last_heartbeat
        g = grace
        posted = ready.status
    if lease_renew is not None and (probe is None or lease_renew > probe):
        probe = lease_renew
    lenient = not leases_known and lease_renew is None and ready is not None
    limit = max(g, report_frequency) if lenient else g
    expired = probe is not None and now > probe + limit
    if expired and posted != "Unknown":
        return NodeHealth("Unknown", posted, probe, g, True, lenient)
    return NodeHealth(posted, posted, probe, g, False, lenient)


def unknown_conditions(node: Node, now: float) -> Tuple[Condition, ...]:
    """The conditions the controller writes when a node's grace runs out: Ready and the pressure
    conditions go Unknown (`NodeStatusUnknown`), missing ones are added (`NodeStatusNeverUpdated`,
    heartbeat = creation time); conditions already Unknown are left alone."""
    out = []
    for ctype in _UNKNOWN_TYPES:
        c = node.conditions.get(ctype)
        if c is None:
            out.append(Condition(ctype, "Unknown", "NodeStatusNeverUpdated", "Kubelet never posted node status.",
                                 node.creation_timestamp, now))
        elif c.status != "Unknown":
            out.append(Condition(ctype, "Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.",
                                 c.last_heartbeat, now))
        else:
            out.append(c)
    return tuple(out)


# --- NoSchedule taints (doNoScheduleTaintingPass) -------------------------------------------------

_CONDITION_TAINTS = (
    ("Ready", "False", NOT_READY),
    ("Ready", "Unknown", UNREACHABLE),
    ("MemoryPressure", "True", MEMORY_PRESSURE),
    ("DiskPressure", "True", DISK_PRESSURE),
    ("PIDPressure", "True", PID_PRESSURE),
    ("NetworkUnavailable", "True", NETWORK_UNAVAILABLE),
)
CONDITION_TAINT_KEYS = frozenset(k for _, _, k in _CONDITION_TAINTS) | {UNSCHEDULABLE}


def condition_taint_keys(statuses: Mapping[str, str], unschedulable: bool) -> Tuple[str, ...]:
    """The NoSchedule taint keys a node's conditions (type -> status) and `spec.unschedulable`
    call for, in a fixed order."""
    keys = [key for ctype, status, key in _CONDITION_TAINTS if statuses.get(ctype) == status]
    if unschedulable:
        keys.append(UNSCHEDULABLE)
    return tuple(keys)


def _statuses(node: Node) -> Dict[str, str]:
    return {t: c.status for t, c in node.conditions.items()}


# --- zones (ComputeZoneState, setLimiterInZone) --------------------------------------------------

def _f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def compute_zone_state(ready: int, not_ready: int, threshold: float) -> Tuple[int, str]:
    """`ComputeZoneState`: (not-ready count, state). The ratio test is done in float32."""
    if ready == 0 and not_ready > 0:
        return not_ready, FULL
    if not_ready > 2 and _f32(_f32(float(not_ready)) / _f32(float(not_ready + ready))) >= _f32(threshold):
        return not_ready, PARTIAL
    return not_ready, NORMAL


def zone_rate(state: str, zone_size: int, settings: ControllerSettings) -> float:
    """`setLimiterInZone`: the zone's NoExecute tainting rate (nodes per second). Partial
    disruption uses the secondary rate only for zones larger than the threshold (the flag says
    cluster, the code passes the zone size), else 0."""
    if state == PARTIAL:
        return float(settings.secondary_node_eviction_rate) if zone_size > settings.large_cluster_size_threshold else 0.0
    return float(settings.node_eviction_rate)


# --- the timeline ---------------------------------------------------------------------------------

class NodeFailure(NamedTuple):
    """What happens to a node during the plan (times in seconds after now).

    `status` "Unknown": the kubelet stops posting at `at` (Unknown at `at + grace`).
    `status` "False": the kubelet posts Ready=False at `at` (for example a node shutting down)
    and keeps posting unless `silent_at` says when it stops (Unknown at `silent_at + grace`).
    """
    at: float = 0.0
    status: str = "Unknown"
    silent_at: Optional[float] = None


class ZoneState(NamedTuple):
    at: float
    state: str
    down: int          # counted nodes not Ready
    rate: float        # NoExecute taints (legacy: pod evictions) per second; 0 = stopped


class ZoneTimeline(NamedTuple):
    zone: str
    size: int                                    # nodes counted (not labelled exclude-disruption)
    states: Tuple[ZoneState, ...]                # [0]: as the snapshot stands; then each change
    dequeued: Tuple[Tuple[str, float], ...]      # (node, at) taken off the zone's queue, in order
    stuck: Tuple[Tuple[str, float], ...]         # (node, queued at) never taken off (rate 0)


class NodeEvent(NamedTuple):
    """One node-level change the controller makes: a taint added or removed."""
    at: float
    node: str
    kind: str          # "taint" or "untaint"
    key: str
    effect: str
    reason: str


class NodeTimeline(NamedTuple):
    name: str
    zone: str
    statuses: Tuple[Tuple[float, str], ...]                   # (at, Ready status); [0] as posted
    noexecute: Tuple[Tuple[float, Tuple[Taint, ...]], ...]    # NoExecute taint sets; [0] at 0
    down_at: Optional[float]                                  # first time not Ready (0: already)
    queued_at: Optional[float]                                # entered the zone's queue
    dequeued_at: Optional[float]                              # tainted (legacy: pods deleted) at
    health: NodeHealth


class Timeline(NamedTuple):
    """`noexecute_timeline`'s result; every time is seconds after `now`, no horizon applied."""
    grace: float
    legacy: bool
    events: Tuple[NodeEvent, ...]                 # in time order
    nodes: Mapping[str, NodeTimeline]             # nodes that are or go down, or carry NoExecute taints
    zones: Tuple[ZoneTimeline, ...]
    master_disruption_at: Optional[float]         # every zone fully disrupted from then on
    lenient_nodes: Tuple[str, ...]                # no Lease known; heartbeat older than grace


def lease_gap(tl: Timeline) -> str:
    """What a timeline judged without Leases leaves unchecked (`incomplete` Lease, "" when
    nothing): the nodes whose health, and so the zone states and rate limits every tainting
    depends on, came from Ready heartbeats alone. One text for every rule that builds a timeline."""
    if not tl.lenient_nodes:
        return ""
    return ("node health read from Ready heartbeats only: %s with a heartbeat older than %s judged without its "
            "Lease (healthy if posted within 5m, as a kubelet posts status only every 5m; Unknown after that)"
            % (counted_refs("node", list(tl.lenient_nodes)), format_seconds(tl.grace)))


def status_at(statuses: Sequence[Tuple[float, str]], t: float) -> str:
    """A node's Ready status at `t` from its `NodeTimeline.statuses`."""
    cur = statuses[0][1]
    for at, s in statuses:
        if at > t:
            break
        cur = s
    return cur


def pods_marked_not_ready_at(node: NodeTimeline) -> Optional[float]:
    """When the controller marks the node's pods not Ready (`MarkPodsNotReady`): in the pass
    that turns a Ready=True node Unknown (`monitorNodeHealth`: the observed condition was True,
    the current one is not). A kubelet that posts Ready=False itself gets no such call."""
    prev = node.statuses[0][1]
    for at, s in node.statuses[1:]:
        if prev == "True" and s == "Unknown":
            return at
        prev = s
    return None


def _noexec_key(status: str) -> str:
    return NOT_READY if status == "False" else UNREACHABLE


def _fmt(t: float) -> str:
    from kubectl_evict.timeutil import format_offset
    return format_offset(t)


def _dur(t: float) -> str:
    from kubectl_evict.timeutil import format_seconds
    return format_seconds(t)


def rate_text(rate: float) -> str:
    if rate <= 0:
        return "stopped"
    return "%s node%s/s" % (("%.4f" % rate).rstrip("0").rstrip("."), "" if rate == 1 else "s")


def _noschedule_events(events: List[NodeEvent], node: str, before: Sequence[str], after: Sequence[str],
                       at: float, why: str) -> None:
    for key in after:
        if key not in before:
            events.append(NodeEvent(at, node, "taint", key, "NoSchedule", why + "; the NoSchedule taint mirrors the condition"))
    for key in before:
        if key not in after:
            events.append(NodeEvent(at, node, "untaint", key, "NoSchedule", why + "; the condition no longer calls for this taint"))


def _reconcile(events: List[NodeEvent], node: Node, statuses: Mapping[str, str]) -> None:
    """At 0: condition taints the node lacks are added, stale ones removed."""
    have = tuple(t.key for t in node.taints if t.effect == "NoSchedule" and t.key in CONDITION_TAINT_KEYS)
    want = condition_taint_keys(statuses, node.unschedulable)
    if set(have) != set(want):
        shown = ", ".join("%s=%s" % (k, statuses[k]) for k in ("Ready", "MemoryPressure", "DiskPressure", "PIDPressure",
                                                                "NetworkUnavailable") if k in statuses)
        if node.unschedulable:
            shown += (", " if shown else "") + "spec.unschedulable"
        _noschedule_events(events, node.name, have, want, 0.0, "node has " + (shown or "no conditions"))


def _node_statuses(node: Node, h: NodeHealth, f: Optional[NodeFailure], startup_grace: float, now: float,
                   lease_recheck: bool = False) -> Tuple[List[Tuple[float, str]], Dict[Tuple[float, str], str]]:
    """The node's Ready status over time and why each change happens."""
    statuses = [(0.0, h.posted_status)]
    why: Dict[Tuple[float, str], str] = {}
    if h.flipped:
        statuses.append((0.0, "Unknown"))
        age = _dur(round(now - h.probe)) if h.probe is not None else "?"
        why[(0.0, "Unknown")] = "last heartbeat or Lease renewal %s ago, past the %s grace period" % (
            age, _dur(max(h.grace, STATUS_REPORT_FREQUENCY) if h.lenient else h.grace))
    cur = statuses[-1][1]
    if f is not None and cur != "Unknown":
        has_ready = node.conditions.get("Ready") is not None
        g = h.grace if has_ready else startup_grace
        if f.status == "False" and cur != "False":
            t = max(0.0, f.at)
            statuses.append((t, "False"))
            why[(t, "False")] = "kubelet posts Ready=False"
        silent = f.silent_at if f.status == "False" else f.at
        if silent is not None:
            t = max(0.0, silent) + g
            lease_seen = h.probe is not None and node.creation_timestamp is not None and h.probe > node.creation_timestamp
            if not has_ready and not lease_seen and h.probe is not None:
                # never posted and no Lease: the probe is the node's creation (tryUpdateNodeHealth)
                t = max(0.0, min(silent, h.probe - now) + g)
            statuses.append((t, "Unknown"))
            why[(t, "Unknown")] = ("no node status or Lease renewal for %s (node-monitor-grace-period)" % _dur(g)) if has_ready \
                else "never posted status (node-startup-grace-period %s)" % _dur(g)
            if lease_recheck and has_ready:
                why[(t, "Unknown")] += "; the controller's live re-read of the Lease finds no renewal either (v1.37+)"
    statuses.sort(key=lambda s: s[0])
    return statuses, why


def _legacy_queue_time(node: Node, h: NodeHealth, statuses: Sequence[Tuple[float, str]], f: Optional[NodeFailure],
                       now: float, settings: ControllerSettings, period: float) -> Optional[float]:
    """Pre-taint controller: a NotReady node's pods are queued for deletion once
    `readyTransition + podEvictionTimeout` has passed, an Unknown node's once
    `probe + podEvictionTimeout` has (the `monitorNodeStatus` of v1.12 and earlier)."""
    timeout = float(settings.pod_eviction_timeout)
    cands = []
    for at, s in statuses:
        if s == "False":
            if at == 0.0 and h.posted_status == "False" and node.conditions["Ready"].last_transition is not None:
                cands.append(max(0.0, node.conditions["Ready"].last_transition - now + timeout))
            else:
                cands.append(at + timeout)
        elif s in ("Unknown", ""):
            if f is not None and at > 0:
                silent = f.silent_at if f.status == "False" else f.at
                probe = max(0.0, silent if silent is not None else at)
            else:
                probe = (h.probe - now) if h.probe is not None else 0.0
            cands.append(max(at + (period if at > 0 or h.flipped else 0.0), probe + timeout, 0.0))
    return min(cands) if cands else None


def _zone_states(members: Sequence[str], runs: Mapping[str, dict], settings: ControllerSettings,
                 master_at: Optional[float]) -> List[ZoneState]:
    """A zone's state as the snapshot stands, then at each change (computed in the pass that
    turns nodes Unknown), ending in master disruption mode (rate 0) if every zone goes down."""
    size = len(members)
    thr = float(settings.unhealthy_zone_threshold)
    if size == 0:
        return [ZoneState(0.0, NORMAL, 0, float(settings.node_eviction_rate))]
    pre = sum(1 for n in members if n in runs and runs[n]["health"].posted_status != "True")
    _, st = compute_zone_state(size - pre, pre, thr)
    out = [ZoneState(0.0, st, pre, zone_rate(st, size, settings))]
    downs = sorted(runs[n]["down_at"] for n in members if n in runs and runs[n]["down_at"] is not None)
    for t in sorted(set(downs)):
        if master_at is not None and t > master_at:
            break
        down = sum(1 for d in downs if d <= t)
        _, st = compute_zone_state(size - down, down, thr)
        if st == out[-1].state:
            out[-1] = out[-1]._replace(down=down) if t == 0.0 and len(out) == 1 else out[-1]
            continue
        out.append(ZoneState(t, st, down, zone_rate(st, size, settings)))
    if master_at is not None:
        last = out[-1]
        if last.at == master_at and len(out) > 1:
            out[-1] = last._replace(rate=0.0)
        else:
            down = sum(1 for d in downs if d <= master_at)
            out.append(ZoneState(master_at, FULL, down, 0.0))
    return out


def _drain_queue(entries: Sequence[Tuple[float, str]], states: Sequence[ZoneState],
                 last_taken: Optional[float]) -> Tuple[List[Tuple[str, float]], List[Tuple[str, float]]]:
    """`RateLimitedTimedQueue.Try` under a token bucket of burst 1 whose rate follows the zone
    state (`SwapLimiter`: a new limiter starts full if the old one had a token at the swap, else
    drained; rate 0 never hands out a token). Rate changes at an instant apply before taints at
    that instant (the monitor pass computes states; the 100 ms tainting pass runs after it).
    `last_taken`: when the zone's last controller NoExecute taint was added (seconds, <= 0)."""
    rate = states[0].rate
    if rate > 0:
        t_next = max(0.0, last_taken + 1.0 / rate) if last_taken is not None else 0.0
    else:
        t_next = INF
    changes = [(s.at, s.rate) for s in states[1:]]
    ci = 0
    queue = sorted(entries, key=lambda e: e[0])     # stable: entries come in queue order
    qi = 0
    done: List[Tuple[str, float]] = []
    while qi < len(queue):
        q, name = queue[qi]
        cand = max(q, t_next) if rate > 0 else INF
        nxt = changes[ci][0] if ci < len(changes) else INF
        if nxt <= cand and nxt < INF:
            at, new = changes[ci]
            ci += 1
            if new == rate:
                continue
            if new <= 0:
                t_next = INF
            else:
                had_token = rate > 0 and t_next <= at
                t_next = at if had_token else at + 1.0 / new
            rate = new
            continue
        if cand == INF:
            break
        done.append((name, cand))
        t_next = cand + 1.0 / rate
        qi += 1
    return done, [(n, q) for q, n in queue[qi:]]


def noexecute_timeline(snapshot: Snapshot, now: float, failing: Mapping[str, NodeFailure],
                       settings: ControllerSettings) -> Timeline:
    """Plan the node lifecycle controller from the snapshot at `now` (epoch seconds).

    `failing` maps node names to `NodeFailure`s (what-if); every other node keeps its current
    state (a healthy kubelet keeps posting). Nodes the snapshot already shows unhealthy are taken
    as they are. Returns the node-level events (NoSchedule condition taints, the zone-rate-limited
    NoExecute taints and their swaps, their removal in master disruption mode) with no horizon
    applied, the zones' states, and per-node NoExecute taint histories for `pod_fates`.
    With `settings.legacy_eviction` the zone queues hand out pod deletions instead of taints.
    """
    version = cluster_version(snapshot)
    grace = monitor_grace(settings, version)
    same_pass = version.has("UnreachableTaintSamePass")
    lease_recheck = version.has("LeaseLiveRecheck")
    startup = float(settings.node_startup_grace_period)
    period = float(settings.node_monitor_period)
    legacy = bool(settings.legacy_eviction)
    leases_known = bool(snapshot.leases) or snapshot.holds("Lease")
    events: List[NodeEvent] = []
    runs: Dict[str, dict] = {}
    lenient: List[str] = []

    for name in sorted(snapshot.nodes):
        node = snapshot.nodes[name]
        f = failing.get(name)
        h = observe_node(node, snapshot.leases.get(name), now, grace, startup, leases_known)
        if h.lenient and h.probe is not None and now > h.probe + h.grace:   # the Lease would decide
            lenient.append(name)
        ctl = tuple(t for t in node.taints if t.effect == "NoExecute" and t.key in (NOT_READY, UNREACHABLE))
        cond = _statuses(node)
        _reconcile(events, node, cond)
        if f is None and h.status == "True" and not ctl and not has_no_execute(node.taints):
            continue      # a healthy node with another NoExecute taint (`maint:NoExecute`) stays: its pods go too
        statuses, why = _node_statuses(node, h, f, startup, now, lease_recheck)
        prev = h.posted_status
        for at, s in statuses[1:]:
            if s == prev:
                continue
            new = dict(cond)
            new["Ready"] = s
            if s == "Unknown":
                for ctype in ("MemoryPressure", "DiskPressure", "PIDPressure"):
                    new[ctype] = "Unknown"
            text = "Ready %s → %s: %s" % (prev or "(never posted)", s, why.get((at, s), "status changes"))
            _noschedule_events(events, name, condition_taint_keys(cond, node.unschedulable),
                               condition_taint_keys(new, node.unschedulable), at, text)
            cond, prev = new, s
        down_at = next((at for at, s in statuses if s != "True"), None)
        runs[name] = dict(node=node, health=h, statuses=tuple(statuses), down_at=down_at, ctl=ctl, failure=f)

    # Zones and master disruption mode.
    members: Dict[str, List[str]] = {}
    for name in sorted(snapshot.nodes):
        node = snapshot.nodes[name]
        members.setdefault(node.zone, [])
        if not node.excluded_from_disruption:
            members[node.zone].append(name)
    counted = {z: m for z, m in members.items() if m}
    master_at: Optional[float] = None
    if counted:
        last_down = []
        for m in counted.values():
            ds = [runs[n]["down_at"] if n in runs and runs[n]["down_at"] is not None else INF for n in m]
            last_down.append(max(ds))
        if all(d < INF for d in last_down):
            master_at = max(last_down)

    # Who enters each zone's queue, and when.
    queued: Dict[str, List[Tuple[float, str]]] = {}
    queued_at: Dict[str, float] = {}
    entered: Dict[str, float] = {}         # when it entered the queue, also before now: the queue's order
    for name, r in runs.items():
        if r["down_at"] is None:
            continue
        node, h, statuses = r["node"], r["health"], r["statuses"]
        if legacy:
            q = _legacy_queue_time(node, h, statuses, r["failure"], now, settings, period)
        elif r["ctl"]:
            q = None                       # already tainted: only swaps and removal apply
        else:
            acting = [(at, s) for at, s in statuses if s in ("False", "Unknown")]
            if not acting:
                q = None                   # never posted, still within its startup grace
            elif acting[0][0] == 0.0 and not h.flipped and h.posted_status in ("False", "Unknown"):
                lt = node.conditions["Ready"].last_transition
                entered[name] = lt + taint_delay(acting[0][1], period, same_pass) - now if lt is not None else 0.0
                q = max(0.0, entered[name])
            elif h.posted_status == "":
                # never posted: the Ready condition the pass observed is the fake Unknown made from the
                # creation time, so the pass that writes Unknown also queues it, in every release
                q = acting[0][0]
            else:
                q = acting[0][0] + taint_delay(acting[0][1], period, same_pass)
        if q is not None:
            queued.setdefault(node.zone, []).append((q, name))
            queued_at[name] = q

    zones: List[ZoneTimeline] = []
    dequeued: Dict[str, float] = {}
    for z in sorted(members, key=lambda k: (k == "", k)):
        states = _zone_states(members[z], runs, settings, master_at)
        last = None
        if not legacy:
            added = [t.time_added for n in snapshot.nodes_by_zone.get(z, ()) for t in snapshot.nodes[n].taints
                     if t.effect == "NoExecute" and t.key in (NOT_READY, UNREACHABLE) and t.time_added is not None]
            last = (max(added) - now) if added else None
        entries = sorted(queued.get(z, ()), key=lambda e: (entered.get(e[1], e[0]), e[1]))
        done, stuck = _drain_queue(entries, states, last if last is None or last <= 0 else 0.0)
        dequeued.update(done)
        zones.append(ZoneTimeline(z, len(members[z]), tuple(states), tuple(done), tuple(stuck)))
    zone_by_key = {zt.zone: zt for zt in zones}

    nodes: Dict[str, NodeTimeline] = {}
    for name in sorted(runs):
        r = runs[name]
        node, statuses = r["node"], r["statuses"]
        hist = _noexecute_history(events, r, dequeued.get(name), queued_at.get(name), zone_by_key[node.zone],
                                  master_at, period, legacy, now, same_pass)
        nodes[name] = NodeTimeline(name, node.zone, statuses, hist, r["down_at"], queued_at.get(name),
                                   dequeued.get(name), r["health"])
    events.sort(key=lambda e: e.at)
    return Timeline(grace, legacy, tuple(events), nodes, tuple(zones), master_at, tuple(lenient))


def tainted_nodes(snapshot: Snapshot, timeline: Timeline, names: Sequence[str]) -> List[Node]:
    """The snapshot's nodes as kube-scheduler sees them once the timeline's taints are on: the
    nodes `names` carry every taint the timeline adds (and lack those it removes), so a
    replacement is kept off a down node by TaintToleration, and its FitError names the taint
    (`untolerated taint {node.kubernetes.io/unreachable: }`), as upstream's does."""
    wanted = set(names)
    taints: Dict[str, List[Taint]] = {n: list(snapshot.nodes[n].taints) for n in wanted if n in snapshot.nodes}
    for e in timeline.events:
        ts = taints.get(e.node)
        if ts is None:
            continue
        if e.kind == "taint":
            if not any(t.key == e.key and t.effect == e.effect for t in ts):
                ts.append(Taint(e.key, "", e.effect))
        else:
            ts[:] = [t for t in ts if not (t.key == e.key and t.effect == e.effect)]
    return [n.set(taints=tuple(taints[n.name])) if n.name in taints else n for n in snapshot.nodes.values()]


def zone_state_at(zone: ZoneTimeline, t: float) -> ZoneState:
    cur = zone.states[0]
    for s in zone.states:
        if s.at > t:
            break
        cur = s
    return cur


def _noexecute_history(events: List[NodeEvent], r: dict, tainted_at: Optional[float], queued_at: Optional[float],
                       zone: ZoneTimeline, master_at: Optional[float], period: float,
                       legacy: bool, now: float, same_pass: bool = False) -> Tuple[Tuple[float, Tuple[Taint, ...]], ...]:
    """The node's NoExecute taints over time (and the events that change them). Entry 0 is the
    snapshot's own set; taints carry absolute `timeAdded` times."""
    node: Node = r["node"]
    statuses = r["statuses"]
    name = node.name
    cur: List[Taint] = [t for t in node.taints if t.effect == "NoExecute"]
    hist: List[Tuple[float, Tuple[Taint, ...]]] = [(0.0, tuple(cur))]
    if legacy:
        return tuple(hist)

    def change(at: float) -> None:
        if hist[-1][0] == at and len(hist) > 1:
            hist[-1] = (at, tuple(cur))
        else:
            hist.append((at, tuple(cur)))

    since: Optional[float] = None
    if r["ctl"]:
        s0 = status_at(statuses, 0.0)
        if s0 == "True":
            for t in r["ctl"]:
                cur.remove(t)
                events.append(NodeEvent(0.0, name, "untaint", t.key, "NoExecute", "node is Ready: the controller removes its NoExecute taint"))
            change(0.0)
        else:
            want = _noexec_key(s0)
            for t in r["ctl"]:
                if t.key != want:
                    cur.remove(t)
                    events.append(NodeEvent(0.0, name, "untaint", t.key, "NoExecute", "Ready is %s: taints swapped at once" % s0))
            if not any(t.key == want for t in cur):
                cur.append(Taint(want, "", "NoExecute", now))
                events.append(NodeEvent(0.0, name, "taint", want, "NoExecute", "Ready is %s: taints swapped at once" % s0))
            change(0.0)
            since = 0.0
    if tainted_at is not None:
        s = status_at(statuses, tainted_at)
        key = _noexec_key(s)
        st = zone_state_at(zone, tainted_at)
        first = zone.dequeued and zone.dequeued[0][0] == name
        cur.append(Taint(key, "", "NoExecute", now + tainted_at))
        change(tainted_at)
        events.append(NodeEvent(tainted_at, name, "taint", key, "NoExecute",
                                "Ready is %s; queued at %s, zone %s is %s: rate-limited to %s%s" % (
                                    s, _fmt(queued_at if queued_at is not None else tainted_at), zone.zone or "<none>",
                                    st.state, rate_text(st.rate),
                                    " (first of the zone)" if first else "")))
        since = tainted_at
    if since is not None:
        last = status_at(statuses, since)
        for at, s in statuses:
            if at <= since or s == last or s == "True":
                continue
            when = at + taint_delay(s, period, same_pass)
            if master_at is not None and when >= master_at:
                break
            old, new = _noexec_key(last), _noexec_key(s)
            if old != new:
                cur[:] = [x for x in cur if not (x.key == old and x.effect == "NoExecute")]
                cur.append(Taint(new, "", "NoExecute", now + when))
                change(when)
                text = "Ready %s → %s: the controller swaps the NoExecute taints at once" % (last, s)
                events.append(NodeEvent(when, name, "untaint", old, "NoExecute", text))
                events.append(NodeEvent(when, name, "taint", new, "NoExecute", text))
            last = s
    if master_at is not None:
        # entering master disruption mode removes the taints nodes have then; a node of a zone
        # that only excluded nodes make up (never counted, so never stopped) may be tainted later
        # and keeps that taint
        later = tainted_at if tainted_at is not None and tainted_at >= master_at else None
        gone = [x for x in cur if x.key in (NOT_READY, UNREACHABLE)
                and not (later is not None and x.time_added == now + later)]
        if gone:
            cur[:] = [x for x in cur if x not in gone]
            change(max(master_at, hist[-1][0]))
            for x in gone:
                events.append(NodeEvent(max(master_at, 0.0), name, "untaint", x.key, "NoExecute",
                                        "every zone is fully disrupted: the controller assumes its own network failed "
                                        "(master disruption mode) and removes NoExecute not-ready/unreachable taints"))
    return tuple(hist)


# --- pods (taint-eviction controller; legacy pod deletion) -----------------------------------------

class PodFate(NamedTuple):
    pod: Pod
    node: str
    at: Optional[float]     # deleted at (seconds after now); None: not deleted
    kind: str               # "delete", "forever", "cancelled", "legacy-skip"
    reason: str


def effective_tolerations(pod: Pod, settings: ControllerSettings,
                          cache: Optional[Dict[tuple, Tuple[Toleration, ...]]] = None) -> Tuple[Toleration, ...]:
    """The pod's tolerations as stored by the API server: the DefaultTolerationSeconds admission
    plugin adds not-ready/unreachable NoExecute tolerations (300s) to pods that lack them, so a
    hand-written snapshot pod behaves as it would in a cluster. `cache`: a caller's memo."""
    if cache is None:
        cache = {}
    _cache = cache
    key = (pod.tolerations, settings.default_not_ready_toleration_seconds, settings.default_unreachable_toleration_seconds)
    hit = _cache.get(key)
    if hit is None:
        hit = default_toleration_seconds(pod.tolerations, settings.default_not_ready_toleration_seconds,
                                         settings.default_unreachable_toleration_seconds)
        _cache[key] = hit
    return hit



def pod_fates(snapshot: Snapshot, timeline: Timeline, settings: ControllerSettings, now: float) -> List[PodFate]:
    """What happens to each running pod on the nodes of the timeline, in node order.

    Taint-based (default): the taint-eviction controller over each node's NoExecute history,
    finished (Succeeded/Failed) pods included, as upstream lists every pod bound to the node.
    Every NoExecute taint counts, not only the node lifecycle controller's: `processPodOnNode`
    (`pkg/controller/tainteviction/taint_eviction.go`) takes all of a node's NoExecute taints, so
    a user's `maint=x:NoExecute` already on a healthy node deletes the pods that do not tolerate
    it, or tolerate it for a while, whatever nodes fail; on a failing node it combines with the
    controller's taints (smallest tolerationSeconds, a deletion already scheduled kept). Nodes
    without any NoExecute taint are left out. Legacy: every pod of a dequeued node is deleted
    then, except DaemonSet pods.
    """
    out: List[PodFate] = []
    cache: Dict[tuple, Tuple[str, Optional[float], str]] = {}
    tol_cache: Dict[tuple, Tuple[Toleration, ...]] = {}
    for name in sorted(timeline.nodes):
        nt = timeline.nodes[name]
        pods = snapshot.pods_on(name)
        if not pods:
            continue
        if timeline.legacy:
            if nt.dequeued_at is None:
                continue
            for p in pods:
                if p.is_terminal:
                    continue
                if p.controller_kind == "DaemonSet":
                    out.append(PodFate(p, name, None, "legacy-skip", "DaemonSet pods are left alone by the pre-taint controller"))
                else:
                    out.append(PodFate(p, name, nt.dequeued_at, "delete",
                                       "node is %s: its pods are deleted %s after it went down (pod-eviction-timeout), "
                                       "rate-limited per zone" % (status_at(nt.statuses, nt.dequeued_at),
                                                                  _dur(float(settings.pod_eviction_timeout)))))
            continue
        if not any(ts for _, ts in nt.noexecute):
            continue
        hist = nt.noexecute
        for p in pods:      # finished pods too: the taint-eviction controller does not look at the phase
            tols = effective_tolerations(p, settings, tol_cache)
            key = (tols, p.tolerations, hist)
            res = cache.get(key)
            if res is None:
                res = taint_eviction_schedule(tols, p.tolerations, hist, now)
                cache[key] = res
            kind, at, why = res
            if kind == "none":
                continue
            out.append(PodFate(p, name, at, kind, why))
    return out
