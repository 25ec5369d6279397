"""`shutdown`: what happens to a node's pods when the node is shut down, gracefully or not.

Models (upstream Kubernetes v1.30-v1.37; no change to shutdown found since v1.33):
- the kubelet's graceful node shutdown manager (`pkg/kubelet/nodeshutdown`, gates
  GracefulNodeShutdown and GracefulNodeShutdownBasedOnPodPriority on): `migrateConfig`,
  `groupByPriority`, the per-group kill with `gracePeriodOverride` (a group ends once its pods
  have stopped or its seconds have passed: `killPods`), `periodRequested` and the
  logind `InhibitDelayMaxSec` check, and the kubelet config validation of the three fields
  (`pkg/kubelet/apis/config/validation`);
- the node side of a shutdown: the kubelet reports Ready=False ("node is shutting down"), the
  node lifecycle controller adds `not-ready:NoSchedule` at once and `not-ready:NoExecute`
  through its per-zone rate-limited queue, and the taint-eviction controller deletes pods whose
  tolerationSeconds run out (kube-controller-manager, `pkg/controller/nodelifecycle`,
  `pkg/controller/tainteviction`);
- what replaces each pod the kubelet stops (`rules.replacements`): it is Failed (reason
  Terminated, condition DisruptionTarget/TerminationByKubelet) at the end of its grace period, and
  its owner acts then: the ReplicaSet/ReplicationController (`syncReplicaSet`,
  `controller.FilterActivePods`), StatefulSet (`processReplica`), Job (`syncJob`,
  `matchPodFailurePolicy`) and DaemonSet (`podsShouldBeOnNode`) controllers, the scheduler placing
  the replacement with the node NotReady and tainted not-ready:NoSchedule, while the nodeshutdown
  manager's Admit turns away new daemon pods;
- non-graceful shutdown (KEP-2268, NodeOutOfServiceVolumeDetach, GA in 1.28): the
  `node.kubernetes.io/out-of-service` taint, pod GC's forced deletion of terminating pods
  (`pkg/controller/podgc` `gcTerminating`) and the attach/detach controller's immediate detach
  (`pkg/controller/volume/attachdetach/reconciler`), including the 6-minute
  `maxWaitForUnmountDuration` force detach and `--disable-force-detach-on-timeout`; which pods
  the taint-eviction controller deletes, and when, is the controller rule's own answer
  (`scheduling.tolerations.taint_eviction_schedule`): a toleration with tolerationSeconds is never
  "forever".

Pure: `plan_shutdown(snapshot, settings, now) -> Plan`; the helpers below are the kubelet's own
functions, exposed so they can be checked against upstream's test tables.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Set, Tuple

from pyrsistent import PClass, field, pvector

from kubectl_evict.errors import InputError, ValueParseError, json_type
from kubectl_evict.kubeletconfig import located
from kubectl_evict.model import SYSTEM_CRITICAL_PRIORITY, Node, Pod, Snapshot, Taint
from kubectl_evict.rules.nodelifecycle import (ControllerSettings, NodeFailure, effective_tolerations, lease_gap,
                                               noexecute_timeline)
from kubectl_evict.plan import (ATTACH_DETACH, KUBELET, NODE_LIFECYCLE, POD_GC, TAINT_EVICTION, USER, Plan,
                                PlanBuilder)
from kubectl_evict.workloads import DEFAULT_STARTUP, attach
from kubectl_evict.rules.replacements import (NOTHING_RECREATES, KilledPod, absent_owner, chain_ordered_ready,
                                              job_after_deletion,
                                              job_failed_pod, ordered_ready_wait, replace_killed, replace_removed,
                                              replaces_only_failed, unknown_job, waits_for_old_pod)
from kubectl_evict.scheduling.framework import claim_names, effective_taints
from kubectl_evict.scheduling.placement import Placer
from kubectl_evict.scheduling.tolerations import NOT_READY, OUT_OF_SERVICE, UNREACHABLE, taint_eviction_schedule
from kubectl_evict.timeutil import format_go_duration, format_offset, format_seconds, format_time, parse_duration
from kubectl_evict.versions import cluster_version, feature_applies, node_version

RULE = "shutdown"
CONTROLLER = "controller"

DEFAULT_PRIORITY = 0                   # scheduling.DefaultPriorityWhenNoDefaultClassExists
INT32 = (-2 ** 31, 2 ** 31 - 1)
WINDOWS_GATE = "WindowsGracefulNodeShutdown"

SHUTDOWN_MESSAGE = "Pod was terminated in response to imminent node shutdown."
OUT_OF_SERVICE_VALUE = "nodeshutdown"
MAX_WAIT_FOR_UNMOUNT = 360             # attach/detach controller's maxWaitForUnmountDuration (6m)
POD_GC_PERIOD = 20                     # pod GC controller's gcCheckPeriod


# --- configuration -----------------------------------------------------------------------------


class Group(NamedTuple):
    """One `shutdownGracePeriodByPodPriority` entry."""
    priority: int
    seconds: int


class ShutdownConfig(NamedTuple):
    """The three kubelet fields as one source gives them. `None` = the source does not set it.

    Durations are seconds (floats: validation must see sub-second values); `by_priority` keeps
    the order written.
    """
    grace: Optional[float] = None
    critical: Optional[float] = None
    by_priority: Optional[Tuple[Group, ...]] = None
    source: str = ""
    windows_gate: Optional[bool] = None      # featureGates.WindowsGracefulNodeShutdown, None: not set


def _duration_field(raw: Mapping[str, Any], key: str, source: str) -> Optional[float]:
    v = raw.get(key)
    if v is None:
        return None
    try:
        return parse_duration(v)
    except ValueParseError as e:
        raise InputError(str(e), source=source, field=key) from None


def _int_field(v: Any, source: str, path: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise InputError("expected an integer, found %s" % json_type(v), source=source, field=path)
    return v


def parse_by_priority(items: Any, source: str, path: str = "shutdownGracePeriodByPodPriority") -> Tuple[Group, ...]:
    """`[{priority, shutdownGracePeriodSeconds}, ...]` (the KubeletConfiguration JSON field names)."""
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Sequence):
        raise InputError("expected a list of {priority, shutdownGracePeriodSeconds}", source=source, field=path)
    out = []
    for i, item in enumerate(items):
        p = "%s[%d]" % (path, i)
        if not isinstance(item, Mapping):
            raise InputError("expected an object with priority and shutdownGracePeriodSeconds", source=source, field=p)
        prio = _int_field(item.get("priority", 0), source, p + ".priority")
        secs = _int_field(item.get("shutdownGracePeriodSeconds", 0), source, p + ".shutdownGracePeriodSeconds")
        if not INT32[0] <= prio <= INT32[1]:
            raise InputError("priority %d is out of the int32 range" % prio, source=source, field=p + ".priority")
        if secs < 0:
            raise InputError("shutdownGracePeriodSeconds %d must not be negative" % secs, source=source,
                             field=p + ".shutdownGracePeriodSeconds")
        if secs > (1 << 63) - 1:   # an int64 in KubeletConfiguration: more does not decode
            raise InputError("shutdownGracePeriodSeconds %d is out of the int64 range" % secs, source=source,
                             field=p + ".shutdownGracePeriodSeconds")
        out.append(Group(prio, secs))
    return tuple(out)


def config_from_kubelet(raw: Mapping[str, Any], source: str) -> ShutdownConfig:
    """The shutdown fields of a kubeletconfig mapping (file, configz or NodeKubeletConfig)."""
    bp = raw.get("shutdownGracePeriodByPodPriority")
    gates = raw.get("featureGates")
    gate = gates.get(WINDOWS_GATE) if isinstance(gates, Mapping) else None
    if gate is not None and not isinstance(gate, bool):
        raise InputError("expected true or false, found %s" % json_type(gate), source=source,
                         field="featureGates." + WINDOWS_GATE)
    return ShutdownConfig(grace=_duration_field(raw, "shutdownGracePeriod", source),
                          critical=_duration_field(raw, "shutdownGracePeriodCriticalPods", source),
                          by_priority=parse_by_priority(bp, source) if bp is not None else None,
                          source=source, windows_gate=gate)


def _metav1_duration(seconds: float) -> str:
    """A `metav1.Duration` as the kubelet's `%v` prints it: the struct in braces (`{20s}`), as
    upstream's validation tests expect."""
    return "{%s}" % format_go_duration(seconds)


def validation_errors(cfg: ShutdownConfig) -> List[str]:
    """`ValidateKubeletConfiguration`'s checks of the shutdown fields, with its exact messages."""
    grace = cfg.grace or 0.0
    critical = cfg.critical or 0.0
    errs = []
    if critical > grace:
        errs.append("invalid configuration: shutdownGracePeriodCriticalPods %s must be <= shutdownGracePeriod %s"
                    % (_metav1_duration(critical), _metav1_duration(grace)))
    if grace < 0 or 0 < grace < 1:
        errs.append("invalid configuration: shutdownGracePeriod %s must be either zero or otherwise >= 1 sec"
                    % _metav1_duration(grace))
    if critical < 0 or 0 < critical < 1:
        errs.append("invalid configuration: shutdownGracePeriodCriticalPods %s must be either zero or otherwise >= 1 sec"
                    % _metav1_duration(critical))
    if cfg.by_priority and (grace > 0 or critical > 0):
        errs.append("invalid configuration: Cannot specify both shutdownGracePeriodByPodPriority and "
                    "shutdownGracePeriod at the same time")
    return errs


def validate(cfg: ShutdownConfig) -> None:
    """Raise the kubelet's validation error (an aggregate prints as `[a, b]`, as Go's does)."""
    errs = validation_errors(cfg)
    if errs:
        raise InputError(errs[0] if len(errs) == 1 else "[%s]" % ", ".join(errs), source=cfg.source or None)


def merge_config(flags: ShutdownConfig, base: ShutdownConfig) -> ShutdownConfig:
    """Flags over a kubelet configuration, field by field.

    Giving one form on the command line (`--by-priority`, or `--grace-period` /
    `--critical-grace-period`) drops the other form of the configuration underneath; giving
    both forms on the command line is left for validation to refuse, as the kubelet does.
    """
    durations = flags.grace is not None or flags.critical is not None
    if flags.by_priority is None and not durations:
        return base
    if durations and flags.by_priority is None:
        return ShutdownConfig(grace=flags.grace if flags.grace is not None else base.grace,
                              critical=flags.critical if flags.critical is not None else base.critical,
                              by_priority=None, source=flags.source + " over " + base.source,
                              windows_gate=base.windows_gate)
    return ShutdownConfig(grace=flags.grace, critical=flags.critical, by_priority=flags.by_priority,
                          source=flags.source, windows_gate=base.windows_gate)


def migrate_config(grace: float, critical: float) -> Optional[Tuple[Group, ...]]:
    """`migrateConfig`: the two-duration form as two priority groups; None = shutdown disabled."""
    g_ns = int(round(grace * 1e9))
    c_ns = int(round(critical * 1e9))
    if g_ns == 0:
        return None
    default_ns = g_ns - c_ns
    if default_ns < 0:
        return None
    critical_ns = g_ns - default_ns
    if critical_ns < 0:
        return None
    return (Group(DEFAULT_PRIORITY, default_ns // 10 ** 9), Group(SYSTEM_CRITICAL_PRIORITY, critical_ns // 10 ** 9))


def windows_shutdown_off(snapshot: Snapshot, node: Node, cfg: ShutdownConfig) -> str:
    """Why a Windows node's kubelet has no shutdown manager ("" when it has one): before v1.34
    the WindowsGracefulNodeShutdown gate is off by default, and the Windows manager is then a
    stub whatever the grace periods say (nodeshutdown_manager_windows.go `NewManager`). The
    node's own kubelet version decides, else the cluster's; `--kubernetes-version` sets every
    node's (`versions.node_version`)."""
    if node.labels.get("kubernetes.io/os") != "windows":
        return ""
    if cfg.windows_gate is not None:
        return "" if cfg.windows_gate else "its kubelet runs with featureGates %s=false" % WINDOWS_GATE
    release = node_version(cluster_version(snapshot), node).release
    if feature_applies(WINDOWS_GATE, release):
        return ""
    return ("Windows node with kubelet v%d.%d.%d: the %s feature gate is off by default before v1.34, so the "
            "kubelet has no shutdown manager" % (release + (WINDOWS_GATE,)))


def effective_groups(cfg: ShutdownConfig) -> Optional[Tuple[Group, ...]]:
    """The groups the kubelet runs, lowest priority first; None when shutdown is immediate."""
    groups = cfg.by_priority
    if not groups:
        groups = migrate_config(cfg.grace or 0.0, cfg.critical or 0.0)
    if not groups:
        return None
    return tuple(sorted(groups, key=lambda g: g.priority))


def group_index(groups: Sequence[Group], priority: Optional[int]) -> int:
    """`groupByPriority` for one pod: the highest group whose priority <= the pod's (nil = 0),
    clamped to the lowest and highest groups."""
    prio = priority or 0
    index = next((i for i, g in enumerate(groups) if g.priority >= prio), len(groups))
    if index == len(groups):
        return len(groups) - 1
    if index > 0 and groups[index].priority > prio:
        return index - 1
    return index


def group_by_priority(groups: Sequence[Group], priorities: Sequence[Optional[int]]) -> List[List[int]]:
    """Indexes of the pods in each group, input order kept inside a group."""
    out: List[List[int]] = [[] for _ in groups]
    for i, prio in enumerate(priorities):
        out[group_index(groups, prio)].append(i)
    return out


def grace_override(group_seconds: int, termination_grace: Optional[int]) -> int:
    """The kill's grace: the group's seconds, or the pod's own when that is not longer."""
    if termination_grace is not None and termination_grace <= group_seconds:
        return termination_grace
    return group_seconds


def group_wait(group_seconds: int, graces: Sequence[int]) -> int:
    """How long `killPods` stays in a non-empty group: until every pod of it has been killed
    (each `killPodFunc` returns once its pod has stopped, at the latest at the end of its grace,
    which the pod worker floors at 1 s) and their volumes are unmounted, or until the group's
    seconds have passed, whichever comes first; then it moves to the next group
    (`nodeshutdown_manager.go` `killPods`: `wg.Wait` against `groupTerminationWaitDuration`). So
    a group whose pods all ask for less than its seconds ends early (the plan's worst case: each
    pod uses its whole grace)."""
    if not graces:
        return 0
    return min(group_seconds, max(max(g, 1) for g in graces))


def period_requested(groups: Sequence[Group]) -> int:
    """`periodRequested`: the sum of every group's seconds, empty groups included."""
    return sum(g.seconds for g in groups)


def logind_check(requested: float, current: float, after_override: Optional[float] = None) -> Tuple[bool, Optional[str]]:
    """The shutdown manager's start-up check of logind's InhibitDelayMaxSec.

    Returns (did the kubelet write an override, the start error or None). `after_override` is
    the value logind reports after the kubelet's override and reload (None: unknown, assume it
    took effect).
    """
    if requested <= current:
        return False, None
    updated = requested if after_override is None else after_override
    if requested > updated:
        return True, ("node shutdown manager was unable to update logind InhibitDelayMaxSec to %s (ShutdownGracePeriod), "
                      "current value of InhibitDelayMaxSec (%s) is less than requested ShutdownGracePeriod"
                      % (format_go_duration(requested), format_go_duration(updated)))
    return True, None


def shutdown_pod_status(phase: str) -> Dict[str, Any]:
    """The status the kubelet gives a pod it kills for a shutdown."""
    return {"phase": "Succeeded" if phase == "Succeeded" else "Failed", "reason": "Terminated",
            "message": SHUTDOWN_MESSAGE,
            "conditions": [{"type": "DisruptionTarget", "status": "True", "reason": "TerminationByKubelet",
                            "message": SHUTDOWN_MESSAGE}]}


# --- settings ----------------------------------------------------------------------------------


class ShutdownSettings(PClass):
    nodes = field(type=tuple, initial=())
    flags = field(initial=ShutdownConfig(source="flags"))      # ShutdownConfig from the command line
    kubelet_config = field(initial=None)                        # ShutdownConfig from --kubelet-config
    non_graceful = field(type=bool, initial=False)
    inhibit_delay_max = field(initial=30.0)                     # logind InhibitDelayMaxSec (seconds)
    disable_force_detach_on_timeout = field(type=bool, initial=False)
    controller = field(initial=ControllerSettings())            # the node lifecycle controller's flags


def resolve_config(snapshot: Snapshot, settings: ShutdownSettings, node: str) -> ShutdownConfig:
    """Flags, then --kubelet-config, then the node's NodeKubeletConfig, then upstream defaults. A
    bad value in the NodeKubeletConfig is an error naming its file, object and field."""
    try:
        return _resolve_config(snapshot, settings, node)
    except InputError as e:
        raise located(snapshot, node, e) from None


def _resolve_config(snapshot: Snapshot, settings: ShutdownSettings, node: str) -> ShutdownConfig:
    base = settings.kubelet_config
    if base is None:
        raw = snapshot.kubelet_configs.get(node)
        if raw is not None:
            base = config_from_kubelet(raw, "NodeKubeletConfig " + node)
        else:
            base = ShutdownConfig(source="upstream defaults (no kubelet configuration for %s in the snapshot)" % node)
    flags = settings.flags
    if flags.by_priority is None and (flags.grace is None or flags.critical is None):
        validate(base)      # the flags leave part of it in force
    cfg = merge_config(flags, base)
    validate(cfg)
    return cfg


def _defaulted(settings: ShutdownSettings) -> str:
    """Which shutdown settings `config_unknown` leaves to upstream's defaults: all of them
    (graceful shutdown off), or, with one of --grace-period / --critical-grace-period, the other."""
    flags = settings.flags
    if flags.grace is not None:
        return "shutdownGracePeriodCriticalPods taken from the upstream default (0s: no phase for critical pods)"
    if flags.critical is not None:
        return "shutdownGracePeriod taken from the upstream default (0s)"
    return "shutdownGracePeriod and shutdownGracePeriodByPodPriority taken from upstream defaults (graceful shutdown off)"


def config_unknown(snapshot: Snapshot, settings: ShutdownSettings, node: str) -> bool:
    """Does the node's shutdown configuration rest on defaults only because the input lacks the
    node's kubelet configuration (no flags or --kubelet-config settle it either)?"""
    flags = settings.flags
    settled = flags.by_priority is not None or (flags.grace is not None and flags.critical is not None)
    return not settled and settings.kubelet_config is None and node not in snapshot.kubelet_configs \
        and not snapshot.holds("NodeKubeletConfig")


# --- the node side: node lifecycle controller (simple case) ------------------------------------


class NodeSide(NamedTuple):
    no_schedule_at: Optional[float]
    no_execute_at: Optional[float]
    key: str                 # not-ready or unreachable
    why_not: str = ""        # when no_execute_at is None
    grace: float = 50.0      # --node-monitor-grace-period in force (40s before v1.32)
    same_pass: bool = False  # the NoExecute taint is queued in the pass that sets Ready=Unknown (v1.34+)


def node_lifecycle_timeline(snapshot: Snapshot, failing: Mapping[str, Tuple[str, float]],
                            settings: ShutdownSettings, now: float,
                            b: Optional[PlanBuilder] = None) -> Dict[str, NodeSide]:
    """When the node lifecycle controller taints nodes that stop being Ready.

    `failing`: node -> (key, seconds after now when Ready leaves True); key `not-ready` (the
    kubelet reports Ready=False: NoSchedule at once) or `unreachable` (the kubelet stops
    posting: Unknown after --node-monitor-grace-period). The timeline itself, zone states and
    rate limits included, is the controller rule's (`rules.nodelifecycle.noexecute_timeline`).
    With `b`, the other nodes judged without their Lease go into `incomplete` as the controller
    rule says it: the zone states, and so these taints, rest on that judgement.
    """
    cs = settings.controller
    failures = {name: NodeFailure(at=start, status="False" if key == "not-ready" else "Unknown")
                for name, (key, start) in failing.items()}
    tl = noexecute_timeline(snapshot, now, failures, cs)
    gap = lease_gap(tl) if b is not None else ""
    if gap:
        b.incomplete("Lease", gap)
    zones = {z.zone: z for z in tl.zones}
    # #120816 (v1.34): processTaintBaseEviction reads the condition the pass just set, so an
    # unreachable node is queued in that pass; Ready=False still waits one monitor period
    same_pass = cluster_version(snapshot).has("UnreachableTaintSamePass")
    out: Dict[str, NodeSide] = {}
    for name, (key, start) in failing.items():
        full_key = NOT_READY if key == "not-ready" else UNREACHABLE
        no_schedule = next((e.at for e in tl.events if e.node == name and e.kind == "taint"
                            and e.effect == "NoSchedule" and e.key == full_key), None)
        nt = tl.nodes.get(name)
        no_execute = nt.dequeued_at if nt is not None else None
        why = ""
        if no_execute is None:
            zone = snapshot.nodes[name].zone
            zt = zones.get(zone)
            if tl.master_disruption_at is not None:
                why = ("every zone is fully disrupted: the controller enters master disruption mode and "
                       "adds no NoExecute taints")
            elif zt is not None and zt.states and zt.states[-1].state == "PartialDisruption":
                why = ("zone %s is in PartialDisruption with %d nodes (not more than --large-cluster-size-threshold "
                       "%d): the controller stops NoExecute tainting there"
                       % (zone or '""', zt.size, cs.large_cluster_size_threshold))
            else:
                why = "the controller's zone queue does not reach it"
        out[name] = NodeSide(no_schedule, no_execute, key, why, tl.grace, same_pass and key == "unreachable")
    return out


# --- the plan ----------------------------------------------------------------------------------


def _report(reports: List[Dict[str, Any]]) -> Any:
    """The per-node summary for -o json/yaml, as an immutable vector of plain dicts.

    Not `freeze()`d on purpose: a PMap iterates in hash order, which changes with
    PYTHONHASHSEED, and the renderer's `thaw` would then print keys in a different order on
    every run. Plain dicts keep the order written; nothing mutates them after the plan is built.
    """
    return pvector(reports)


def _taint_deletion(pod: Pod, existing: Sequence[Taint], added: Optional[Taint], start: float, now: float,
                    cs: ControllerSettings) -> Tuple[Optional[float], str]:
    """When (seconds after `now`) the taint-eviction controller deletes `pod` on a node with the
    NoExecute taints `existing` (each seen when added), to which `added` comes at `start`, and
    why (None: tolerated forever or no NoExecute taint). The controller rule's own answer
    (`taint_eviction_schedule`, which keeps a deletion scheduled for the existing taints when it
    fires earlier), over the pod's tolerations as admitted."""
    tols = effective_tolerations(pod, cs)
    history = [(0.0, tuple(existing))]
    if added is not None:
        history.append((start, tuple(existing) + (added,)))
    kind, at, why = taint_eviction_schedule(tols, pod.tolerations, history, now)
    return (at, why) if kind == "delete" else (None, why)


def _priority_text(groups: Sequence[Group], i: int) -> str:
    """The pod priorities `group_index` sends to group `i` (sorted groups). Entries may repeat a
    priority: the first of a run then takes exactly that priority (and, first overall, every
    lower one), the last of the run the priorities above it, and any between them none."""
    g = groups[i]
    n = len(groups)
    if n == 1:
        return "all priorities"
    first = i == 0 or groups[i - 1].priority < g.priority
    last = i == n - 1 or groups[i + 1].priority > g.priority
    if first and last:
        if i == 0:
            return "priority < %d" % groups[1].priority
        if i == n - 1:
            return "priority >= %d" % g.priority
        return "priority %d..%d" % (g.priority, groups[i + 1].priority - 1)
    if first:
        return "priority <= %d" % g.priority if i == 0 else "priority %d" % g.priority
    if last:
        if i == n - 1:
            return "priority > %d" % g.priority
        return "priority %d..%d" % (g.priority + 1, groups[i + 1].priority - 1) \
            if groups[i + 1].priority - 1 > g.priority + 1 else "priority %d" % (g.priority + 1)
    return "no priority (an earlier entry has the same priority %d)" % g.priority


def plan_shutdown(snapshot: Snapshot, settings: ShutdownSettings, now: float) -> Plan:
    """Plan a graceful (kubelet) or non-graceful (out-of-service taint) shutdown of the nodes."""
    b = PlanBuilder("shutdown", now)
    for name in settings.nodes:
        snapshot.named_node(name, "NODE")
    nodes = list(dict.fromkeys(settings.nodes))
    if settings.non_graceful:
        _plan_non_graceful(b, snapshot, settings, nodes, now)
    else:
        _plan_graceful(b, snapshot, settings, nodes, now)
    return attach(snapshot, b.build())


def _since(t: Optional[float], now: float) -> str:
    if t is None:
        return ""
    return " since %s (%s ago)" % (format_time(t), format_seconds(max(0.0, now - t)))


def _plan_graceful(b: PlanBuilder, snapshot: Snapshot, settings: ShutdownSettings, nodes: List[str], now: float) -> None:
    reports = []
    failing: Dict[str, Tuple[str, float]] = {}
    per_node = {}
    kills: List[KilledPod] = []
    for name in nodes:
        node = snapshot.nodes[name]
        cfg = resolve_config(snapshot, settings, name)
        if config_unknown(snapshot, settings, name):
            b.incomplete_for("NodeKubeletConfig", _defaulted(settings) + " as the kubelet's configuration was not "
                             "read (--kubelet-config, or --grace-period with --critical-grace-period, give it)",
                             name, noun="node")
        groups = effective_groups(cfg)
        off = windows_shutdown_off(snapshot, node, cfg) if groups is not None else ""
        if off:
            groups = None
        per_node[name] = (cfg, groups, off)
        if node.ready_status == "True":
            failing[name] = ("not-ready", 0.0) if groups else ("unreachable", 0.0)
    sides = node_lifecycle_timeline(snapshot, failing, settings, now, b)
    placer: Optional[Placer] = None
    job_counted: Dict[str, int] = {}     # Job failures of pods deleted on nodes without graceful shutdown
    if any(per_node[name][1] is None for name in nodes):
        # where the pods deleted on nodes without graceful shutdown are replaced: off every
        # node that shuts down
        placer = Placer(snapshot.nodes.values(), snapshot.pods_by_node, excluded=nodes, snapshot=snapshot, preempt=True,
                        leaving=[p for name in nodes for p in snapshot.pods_on(name)])
    for name in nodes:
        node = snapshot.nodes[name]
        cfg, groups, off = per_node[name]
        reports.append(_graceful_node(b, snapshot, settings, node, cfg, groups, sides.get(name), now, kills, placer,
                                      off, job_counted))
    taints = {name: snapshot.nodes[name].taints + (Taint(NOT_READY, "", "NoSchedule"),)
              for name in nodes if per_node[name][1] is not None
              and not any(t.key == NOT_READY and t.effect == "NoSchedule" for t in snapshot.nodes[name].taints)}
    replace_killed(b, snapshot, RULE, kills, taints, _shutting_down, DEFAULT_STARTUP)
    b.extra["shutdown"] = _report(reports)


def _shutting_down(pod: Pod, at: float) -> Tuple[Optional[float], str]:
    """The kubelet of a node that shuts down admits no new pod (the shutdown manager's Admit:
    phase Failed, reason NodeShutdown), and the node is off afterwards: a pod sent there (a
    daemon pod, or a replacement that tolerates the not-ready taint) runs there only when it is
    back."""
    return None, ("node/%s is shutting down: its kubelet rejects new pods (reason NodeShutdown, \"Pod was rejected "
                  "as the node is shutting down.\") and the node is off afterwards; a pod runs there again only once "
                  "the node is back" % pod.node_name)


def _graceful_node(b: PlanBuilder, snapshot: Snapshot, settings: ShutdownSettings, node: Node,
                   cfg: ShutdownConfig, groups: Optional[Tuple[Group, ...]], side: Optional[NodeSide],
                   now: float, kills: List[KilledPod], placer: Optional[Placer] = None,
                   off: str = "", job_counted: Optional[Dict[str, int]] = None) -> Dict[str, Any]:
    """One node's graceful shutdown: its kills (appended to `kills` for their replacements), the
    phases, and the node lifecycle and taint-eviction controllers' side. `off`: why the kubelet
    has no shutdown manager although grace periods are configured (Windows before v1.34)."""
    name = node.name
    pods = []
    for pod in snapshot.pods_on(name):
        if pod.is_terminal:
            b.skip(pod, "completed", "already %s: the kubelet only stops active pods" % pod.phase)
        else:
            pods.append(pod)
    report: Dict[str, Any] = {"node": name, "mode": "graceful", "configSource": cfg.source}
    if node.ready_status != "True":
        cond = node.condition("Ready")
        b.warn("node/%s is already NotReady (Ready=%s%s): if it is already down, no graceful shutdown will happen; "
               "see --non-graceful" % (name, node.ready_status or "missing",
                                       _since(cond.last_transition if cond else None, now)))
        _explain_stuck_statefulsets(b, snapshot, settings, node, now)
    kill_end: Dict[Tuple[str, str], Tuple[float, float]] = {}
    if groups is None:
        why = off or ("%s: shutdownGracePeriod=%s, no shutdownGracePeriodByPodPriority"
                      % (cfg.source, format_go_duration(cfg.grace or 0.0)))
        b.warn("graceful node shutdown is disabled on node/%s (%s): when it shuts down, its %s are killed "
               "without grace (no preStop hooks, terminationGracePeriodSeconds ignored)"
               % (name, why, "%d pods" % len(pods) if snapshot.holds("Pod") else "pods (not in the input)"))
        for pod in pods:
            b.action("kill", by=KUBELET, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=name, at=0,
                     grace_period_seconds=0, rule=RULE,
                     reason="graceful shutdown disabled: the OS stops the containers with the node; the pod object "
                            "stays Running until the controllers act")
        report.update(enabled=False, totalSeconds=0, periodRequestedSeconds=0, phases=[])
        b.note("node/%s: graceful shutdown disabled (%s): every pod stops at +0s without grace"
               % (name, off or cfg.source))
    else:
        grouped = group_by_priority(groups, [p.priority for p in pods])
        t = 0
        phases = []
        lines = []
        n_phase = 0
        for i, (g, idxs) in enumerate(zip(groups, grouped)):
            band = _priority_text(groups, i)
            if not idxs and not snapshot.holds("Pod"):
                # a phase is skipped only when it has no pods; the input does not say, so it may
                # take its whole period (the worst case counts it)
                phases.append({"priority": g.priority, "shutdownGracePeriodSeconds": g.seconds, "start": t,
                               "pods": None})
                lines.append("  unknown  %s: +%s..+%s (%ds) if it has pods: pods are not in the input"
                             % (band, format_seconds(t), format_seconds(t + g.seconds), g.seconds))
                t += g.seconds
                continue
            if not idxs:
                phases.append({"priority": g.priority, "shutdownGracePeriodSeconds": g.seconds, "start": None,
                               "pods": []})
                lines.append("  skipped  %s (%ss): no pods, no wait" % (band, g.seconds))
                continue
            n_phase += 1
            graces = []
            for j in idxs:
                pod = pods[j]
                grace = grace_override(g.seconds, pod.termination_grace_period)
                graces.append(grace)
                if pod.termination_grace_period > g.seconds:
                    b.warn("pod %s on node/%s asks for %ds (terminationGracePeriodSeconds) but its shutdown phase "
                           "(%s) gives %ds: it is killed after %ds"
                           % (pod.ref, name, pod.termination_grace_period, band, g.seconds, g.seconds))
                why = "graceful shutdown phase %d (%s, %ds): grace %ds" % (n_phase, band, g.seconds, grace)
                if grace < pod.termination_grace_period:
                    why += " (asks for %ds)" % pod.termination_grace_period
                if grace == 0:
                    why += " (the pod worker still gives it at least 1s)"
                why += "; ends %s/Terminated" % shutdown_pod_status(pod.phase)["phase"]
                b.action("kill", by=KUBELET, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=name, at=t,
                         grace_period_seconds=grace, rule=RULE, reason=why)
                # the pod worker floors a 0 override at 1s (spec B7): the pod is Failed 1s on at the latest
                kills.append(KilledPod(len(b.actions) - 1, pod, float(t + max(grace, 1))))
                kill_end[pod.key] = (t, t + max(grace, 1))
            wait = group_wait(g.seconds, graces)
            phases.append({"priority": g.priority, "shutdownGracePeriodSeconds": g.seconds, "start": t,
                           "end": t + wait, "pods": [pods[j].ref for j in idxs]})
            early = "" if wait == g.seconds else "; its pods stop within %ds, then the next phase starts" % wait
            lines.append("  phase %d  %s: +%s..+%s (%ds%s), %d pod%s"
                         % (n_phase, band, format_seconds(t), format_seconds(t + wait), g.seconds, early, len(idxs),
                            "" if len(idxs) == 1 else "s"))
            t += wait
        requested = period_requested(groups)
        report.update(enabled=True, totalSeconds=t, periodRequestedSeconds=requested, phases=phases,
                      podStatus=shutdown_pod_status("Running"))
        phase_count = "%d phase%s" % (n_phase, "" if n_phase == 1 else "s") if snapshot.holds("Pod") else \
            "up to %d phases (pods are not in the input)" % len(groups)
        b.note("node/%s: graceful shutdown takes up to %s in %s (%s; logind must allow %s)"
               % (name, format_seconds(t), phase_count, cfg.source, format_seconds(requested)))
        for line in lines:
            b.note(line)
        did, _ = logind_check(requested, settings.inhibit_delay_max)
        if did:
            _, err = logind_check(requested, settings.inhibit_delay_max, settings.inhibit_delay_max)
            b.warn("logind InhibitDelayMaxSec (%s) is shorter than the %s node/%s requests: the kubelet writes "
                   "/etc/systemd/logind.conf.d/99-kubelet.conf and reloads logind; if that does not take effect it "
                   "logs \"%s\" and the node shuts down without waiting for its pods"
                   % (format_go_duration(settings.inhibit_delay_max), format_go_duration(requested), name, err))
        report["inhibitDelayMaxSeconds"] = settings.inhibit_delay_max
    if side is not None:
        _node_side(b, settings, node, side, pods, kill_end, groups is None, report, now, placer, snapshot,
                   job_counted if job_counted is not None else {})
        if side.no_execute_at is not None:
            _deleted_before_failed(kills, node, side, settings.controller, now)
    return report


def _deleted_before_failed(kills: List[KilledPod], node: Node, side: NodeSide, cs: ControllerSettings,
                           now: float) -> None:
    """Mark the node's kills whose pod the taint-eviction controller deletes before the kubelet
    has stopped it: a ReplicaSet replaces such a pod from the deletion on."""
    key = NOT_READY if side.key == "not-ready" else UNREACHABLE
    existing = tuple(t for t in node.taints if t.effect == "NoExecute")
    for i, k in enumerate(kills):
        if k.pod.node_name != node.name:
            continue
        at, _ = _taint_deletion(k.pod, existing, Taint(key, "", "NoExecute"), side.no_execute_at, now, cs)
        if at is not None and at < k.failed_at:
            kills[i] = k._replace(deleted_at=at)


def _node_side(b: PlanBuilder, settings: ShutdownSettings, node: Node, side: NodeSide, pods: Sequence[Pod],
               kill_end: Mapping[Tuple[str, str], Tuple[float, float]], disabled: bool, report: Dict[str, Any],
               now: float, placer: Optional[Placer] = None, snapshot: Optional[Snapshot] = None,
               job_counted: Optional[Dict[str, int]] = None) -> None:
    """The controller's taints and the taint-eviction controller's deletions. With graceful
    shutdown disabled the pods are never Failed: a deleted pod stays Terminating on the down
    node, so its ReplicaSet, ReplicationController or Job replaces it at the deletion (placed
    by `placer`) and a StatefulSet's waits for the old pod, as in `controller`."""
    name = node.name
    key = NOT_READY if side.key == "not-ready" else UNREACHABLE
    if side.key == "not-ready":
        first = "the kubelet reports Ready=False (\"node is shutting down\")"
    else:
        first = ("the kubelet stops with the node and posts no more status: Ready=Unknown after "
                 "--node-monitor-grace-period %s" % format_seconds(side.grace))
    if side.no_schedule_at is not None and not any(t.key == key and t.effect == "NoSchedule" for t in node.taints):
        b.action("taint", by=NODE_LIFECYCLE, node=name, key=key, value="", effect="NoSchedule", at=side.no_schedule_at,
                 rule=CONTROLLER,
                 reason="node lifecycle controller: %s; no new pods are scheduled here" % first)
    report["noScheduleTaintAt"] = side.no_schedule_at
    report["noExecuteTaintAt"] = side.no_execute_at
    if side.no_execute_at is None:
        b.note("node/%s: no %s:NoExecute taint: %s" % (name, key, side.why_not))
        return
    queued = "queued in the monitor pass that sets Ready=Unknown (v1.34+)" if side.same_pass else \
        "queued one --node-monitor-period after Ready left True"
    b.action("taint", by=NODE_LIFECYCLE, node=name, key=key, value="", effect="NoExecute", at=side.no_execute_at,
             rule=CONTROLLER,
             reason="node lifecycle controller: %s; nodes of one zone are tainted %s apart (--node-eviction-rate %s)"
                    % (queued, format_seconds(1.0 / settings.controller.node_eviction_rate),
                       settings.controller.node_eviction_rate))
    existing = tuple(t for t in node.taints if t.effect == "NoExecute")
    stopped = 0
    for pod in pods:
        at, why = _taint_deletion(pod, existing, Taint(key, "", "NoExecute"), side.no_execute_at, now,
                                  settings.controller)
        if at is None:
            continue
        start, end = kill_end.get(pod.key, (None, None))
        if not disabled and end is not None and at >= end:
            if pod.controller_kind not in ("StatefulSet", "DaemonSet"):   # those controllers delete them at once
                stopped += 1
            continue
        kw: Dict[str, Any] = {}
        if disabled:
            tail = "plain DELETE; it stays Terminating: the node is down, its kubelet never confirms"
            gone = absent_owner(snapshot, pod) if snapshot is not None else ""
            if gone:
                tail += "; " + gone
                kw["target"] = None
            elif pod.deletion_timestamp is not None and pod.controller_kind != "StatefulSet" \
                    and not replaces_only_failed(snapshot, pod):
                tail += "; already terminating, so its replacement already exists"
            elif pod.controller_kind == "StatefulSet":
                # a pod already Terminating was deleted before: the controller's DELETE changes nothing
                waits_for_old_pod(b, pod, at, name, deleted="" if pod.deletion_timestamp is None else
                                  "already deleted%s" % _since(pod.deletion_timestamp, now))
                tail += "; StatefulSet replacement waits for the old pod to be gone"
                kw["target"] = None
            elif pod.controller_kind == "Job" and snapshot is not None:
                # the node is down (Unknown): MarkPodsNotReady set the pod Ready=False then
                unknown_job(b, snapshot, pod)
                job = job_after_deletion(snapshot, pod, at, "Unknown", side.no_schedule_at, job_counted)
                tail += "; " + job.why
                if job.kind != "schedule" or job.at is None:
                    b.shortfall(pod, "job-failed" if job.kind == "job-failed" else "waits-for-old-pod",
                                "deleted at %s: %s" % (format_offset(at), job.why), node=name)
                    kw["target"] = None
                else:
                    placed = replace_removed(b, snapshot, placer, pod, job.at, RULE, "deleted at %s" % format_offset(at),
                                             node=name)
                    if placed is not None:
                        kw.update(target=placed.node, candidates=placed.candidates,
                                  replaced_at=job.at if job.at > at else None)
            else:
                placed = replace_removed(b, snapshot, placer, pod, at, RULE, "deleted at %s" % format_offset(at),
                                         node=name)
                if placed is None:
                    tail += "; " + NOTHING_RECREATES
                else:
                    tail += "; its controller replaces it now" + ("" if placed.node else ", but the replacement fits no node")
                    kw.update(target=placed.node, candidates=placed.candidates)
        elif start is not None and at < start:
            tail = "before its shutdown phase starts at +%s: deleted out of priority order" % format_seconds(start)
        else:
            tail = "the kubelet is still stopping it"
        b.action("delete", by=TAINT_EVICTION, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=name, at=at,
                 grace_period_seconds=None, rule=CONTROLLER,
                 reason="taint-eviction controller: %s; %s" % (why, tail), **kw)
    if stopped:
        b.note("node/%s: %d Failed pod object%s (stopped by the kubelet) %s deleted later by the taint-eviction "
               "controller when tolerationSeconds run out: clean-up of the objects only; no replacement waits for it "
               "(controllers replace a pod when it is Failed)"
               % (name, stopped, "" if stopped == 1 else "s", "is" if stopped == 1 else "are"))


def _explain_stuck_statefulsets(b: PlanBuilder, snapshot: Snapshot, settings: ShutdownSettings, node: Node,
                                now: float) -> None:
    """Why StatefulSet pods on a NotReady node do not come back by themselves."""
    name = node.name
    sts = [p for p in snapshot.pods_on(name) if p.controller_kind == "StatefulSet" and not p.is_terminal]
    if not sts:
        return
    noexec = tuple(t for t in node.taints if t.effect == "NoExecute")
    for pod in sts:
        if pod.deletion_timestamp is not None:
            state = "is Terminating%s" % _since(pod.deletion_timestamp, now)
        else:
            at, _ = _taint_deletion(pod, noexec, None, 0.0, now, settings.controller)
            if at is None:
                state = "is not deleted by the taint-eviction controller yet"
            else:
                state = "is marked for deletion at %s" % format_time(now + at)
        b.note("node/%s: StatefulSet pod %s %s; it stays Terminating until the node comes back or the "
               "%s taint is added (--non-graceful), and its replacement cannot start before: a StatefulSet never "
               "runs two pods with one identity" % (name, pod.ref, state, OUT_OF_SERVICE))
    if settings.disable_force_detach_on_timeout:
        b.note("node/%s: its volumes stay attached: with --disable-force-detach-on-timeout the attach/detach "
               "controller never force-detaches them; only the %s taint does" % (name, OUT_OF_SERVICE))
    else:
        b.note("node/%s: its volumes stay attached while the pod objects exist; once a pod is gone (force-deleted), "
               "the attach/detach controller force-detaches its volumes %s later (maxWaitForUnmountDuration, the node "
               "being unhealthy), unless kube-controller-manager runs with --disable-force-detach-on-timeout"
               % (name, format_seconds(MAX_WAIT_FOR_UNMOUNT)))


def _powered_off(snapshot: Snapshot, names: Sequence[str], oos: Taint) -> List[Node]:
    """The nodes as kube-scheduler sees them once `names` are off and carry the out-of-service
    taint: not cordoned, but tainted unreachable (NoSchedule) by the node lifecycle controller
    once their kubelets fall silent, then out-of-service (NoExecute) by you, so a replacement's
    FitError names the taint (`framework.effective_taints` adds the lifecycle taint a NotReady or
    Unknown node lacks)."""
    off = set(names)
    out = []
    for node in snapshot.nodes.values():
        if node.name in off:
            taints = effective_taints(node)
            if node.ready_status == "True":
                taints += (Taint(UNREACHABLE, "", "NoSchedule"),)
            if not any((t.key, t.effect) == (oos.key, oos.effect) for t in taints):
                taints += (oos,)
            node = node.set(taints=taints)
        out.append(node)
    return out


def _volume_users(snapshot: Snapshot, node: str) -> Dict[str, List[Pod]]:
    """PersistentVolume name -> the active pods on `node` that use it through a claim: the
    attach/detach controller keeps a volume in its desired state while such a pod exists, and
    detaches it (at once on an out-of-service node) only once they are gone. Empty when the
    input lacks the claims (then every attachment is taken as unused)."""
    out: Dict[str, List[Pod]] = {}
    for pod in snapshot.pods_on(node):
        if pod.is_terminal:
            continue
        for claim, _ in claim_names(pod):
            pvc = snapshot.pvcs.get((pod.namespace, claim))
            if pvc is not None and pvc.volume_name:
                out.setdefault(pvc.volume_name, []).append(pod)
    return out


def _plan_non_graceful(b: PlanBuilder, snapshot: Snapshot, settings: ShutdownSettings, nodes: List[str],
                       now: float) -> None:
    b.warn("add the %s taint only once the node is really powered off: pods are force-deleted and their volumes "
           "detached while a still-running node may keep writing to them (data corruption)" % OUT_OF_SERVICE)
    leaving = [p for n in nodes for p in snapshot.pods_on(n)]
    oos = Taint(OUT_OF_SERVICE, OUT_OF_SERVICE_VALUE, "NoExecute")
    placer = Placer(_powered_off(snapshot, nodes, oos), snapshot.pods_by_node, leaving=leaving, snapshot=snapshot,
                    preempt=True)
    reports = []
    placed_rows: List[int] = []     # the force deletions whose replacement the scheduler places
    job_counted: Dict[str, int] = {}
    sts_pending: Set[Tuple[str, str]] = set()      # StatefulSet pods whose replacement never runs
    leaving_keys = frozenset(p.key for p in leaving)
    # The node lifecycle controller keeps working on a node the snapshot shows NotReady: it adds
    # `unreachable:NoExecute` (Ready Unknown) or `not-ready:NoExecute` (Ready False) through its
    # zone queue whatever other taints the node has (semantics.md C4), and the taint-eviction
    # controller then deletes a pod at the smallest tolerationSeconds over all the node's NoExecute
    # taints (D4): tolerating out-of-service forever does not keep a pod with the default 300 s
    # unreachable toleration (real v1.33: tests/data/real-controller/ng-1.json, the unreachable
    # taint lands 1-2 s after out-of-service). The timeline is the controller rule's.
    timeline = noexecute_timeline(snapshot, now, {}, settings.controller)
    # the force deletions, placed in time order once every node's are known (a replacement
    # created later finds the earlier ones in place): (at, n, node, pod, why)
    todo: List[Tuple[float, int, str, Pod, str]] = []
    per_node: Dict[str, Tuple[List[str], Dict[Tuple[str, str], Optional[float]], List[str]]] = {}
    for name in nodes:
        node = snapshot.nodes[name]
        if node.ready_status == "True":
            b.warn("node/%s is Ready in the snapshot: it is running. Do not add the out-of-service taint to it "
                   "(pod GC only force-deletes pods on NotReady nodes; the taint-eviction controller still deletes "
                   "them)" % name)
        had = node.taint(oos.key, oos.effect)
        b.action("taint", by=USER, node=name, key=OUT_OF_SERVICE, value=OUT_OF_SERVICE_VALUE, effect="NoExecute", at=0,
                 rule=RULE, reason="non-graceful node shutdown (KEP-2268): you add it once the node is powered off",
                 uid=node.uid, previous_seen=True, previous=had.value if had is not None else None)
        deleted: List[str] = []
        gone_at: Dict[Tuple[str, str], Optional[float]] = {}   # pod -> deleted at (None: stays)
        sts_targets: List[str] = []
        per_node[name] = (deleted, gone_at, sts_targets)
        # the controller's history of the node's NoExecute taints: those of the snapshot (each seen
        # when added), then the out-of-service taint added now; a deletion scheduled for the
        # first ones is kept when it fires earlier (`processPodOnNode`)
        noexec = tuple(t for t in node.taints if t.effect == "NoExecute")
        history = [(0.0, noexec)]
        nt = timeline.nodes.get(name)
        later = nt.noexecute if nt is not None else ((0.0, noexec),)
        for at, taints in later:
            if not any(t.key == oos.key and t.effect == oos.effect for t in taints):
                taints = tuple(taints) + (oos,)
            history.append((max(0.0, at), tuple(taints)))
        for e in timeline.events:
            if e.node == name and e.effect == "NoExecute":
                b.action(e.kind, by=NODE_LIFECYCLE, node=name, key=e.key, value="", effect="NoExecute", at=e.at,
                         rule=CONTROLLER, reason="node lifecycle controller: %s" % e.reason)
        for pod in snapshot.pods_on(name):
            if pod.deletion_timestamp is not None:
                at = 0.0
                why = ("pod GC force-deletes it: it is Terminating%s on a NotReady node with the out-of-service taint"
                       % _since(pod.deletion_timestamp, now))
            else:
                # the controller rule's answer over every NoExecute taint the node then has: a toleration
                # with tolerationSeconds is never "forever", whatever taints it matches
                tols = effective_tolerations(pod, settings.controller)
                kind, when, reason = taint_eviction_schedule(tols, pod.tolerations, history, now)
                if kind != "delete" or when is None:
                    b.skip(pod, "tolerates-forever", "%s: stays bound to the powered-off node" % reason)
                    gone_at[pod.key] = None
                    continue
                at = max(0.0, when)
                if pod.is_terminal:
                    # a finished pod's DELETE takes no grace (the pod strategy's CheckGracefulDelete):
                    # it is gone at once, pod GC has nothing to force
                    b.action("delete", by=TAINT_EVICTION, namespace=pod.namespace, pod=pod.name, uid=pod.uid,
                             node=name, at=at, grace_period_seconds=None, rule=RULE,
                             reason="taint-eviction controller deletes it (%s); it has finished (%s), so the API "
                                    "server removes it at once; %s" % (reason, pod.phase, NOTHING_RECREATES))
                    deleted.append(pod.ref)
                    continue
                why = ("taint-eviction controller deletes it (%s), then pod GC force-deletes it within %ds (a "
                       "terminating pod on a NotReady node with the out-of-service taint)" % (reason, POD_GC_PERIOD))
            todo.append((at, len(todo), name, pod, why))
            deleted.append(pod.ref)
            gone_at[pod.key] = at
    for at, _, name, pod, why in sorted(todo, key=lambda t: (t[0], t[1])):
        deleted, gone_at, sts_targets = per_node[name]
        kw: Dict[str, Any] = {}
        # a terminating pod's ReplicaSet or Job created its replacement when its deletion started
        # (a Job with podReplacementPolicy Failed waits for the pod to be Failed: pod GC marks it so
        # before the force delete, gc_controller.go markFailedAndDeletePod)
        replaced = pod.deletion_timestamp is not None and pod.controller_kind != "StatefulSet" \
            and not replaces_only_failed(snapshot, pod)
        placed = None
        gone = absent_owner(snapshot, pod)
        wait = None if replaced or gone else ordered_ready_wait(b, snapshot, pod, sts_pending, leaving_keys,
                                                                frozenset(nodes))
        if replaced and not gone:
            pass
        elif gone:
            why += "; " + gone
        elif pod.controller_kind == "Job":
            # the Job counts the pod failed (terminating, or marked Failed by pod GC before its force
            # delete: gc_controller.go markFailedAndDeletePod): backoffLimit, podFailurePolicy and
            # the pod-failure backoff apply, as for a pod the kubelet stops
            unknown_job(b, snapshot, pod)
            job = job_failed_pod(snapshot, pod, at, job_counted)
            why += "; " + job.why
            if job.kind == "job-failed":
                b.shortfall(pod, "job-failed", "force-deleted: " + job.why)
                kw["target"] = None
            elif job.kind == "schedule" and job.at is not None:
                placed = replace_removed(b, snapshot, placer, pod, job.at, RULE, "force-deleted")
                if placed is not None and job.at > at:
                    kw["replaced_at"] = job.at
        elif wait is not None:
            # processReplica (monotonic): not while a lower ordinal is not Running and Ready
            sts_pending.add(pod.key)
            why += "; but " + wait.text(pod)
            b.shortfall(pod, "ordered-ready", "force-deleted, but its replacement is never created: %s is not "
                        "Running and Ready%s" % (wait.holder.ref, wait.assumption))
            kw["target"] = None
        else:
            placed = replace_removed(b, snapshot, placer, pod, at, RULE, "force-deleted")
            if placed is not None and not placed.node and pod.controller_kind == "StatefulSet":
                sts_pending.add(pod.key)
        if placed is not None:
            kw["target"] = placed.node
            kw["candidates"] = placed.candidates
            if pod.controller_kind == "StatefulSet":
                if placed.node:
                    why += "; StatefulSet starts it again on %s" % placed.node
                    sts_targets.append("%s -> %s" % (pod.ref, placed.node))
                else:
                    why += "; StatefulSet cannot start it elsewhere"
                    sts_targets.append("%s -> nowhere" % pod.ref)
        elif pod.controller_kind == "DaemonSet":
            why += "; the DaemonSet does not recreate it here (it does not tolerate the taint)"
        b.action("delete", by=POD_GC, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=name, at=at,
                 grace_period_seconds=0, force=True, rule=RULE, reason=why, **kw)
        if placed is not None and placed.node:
            placed_rows.append(len(b.actions) - 1)
    for name in nodes:
        deleted, gone_at, sts_targets = per_node[name]
        vas = [va for va in snapshot.volume_attachments if va.node_name == name]
        users = _volume_users(snapshot, name)
        for va in sorted(vas, key=lambda v: v.name):
            using = users.get(va.pv_name, []) if va.pv_name else []
            staying = [p.ref for p in using if gone_at.get(p.key) is None]
            if staying:
                b.note("node/%s: %s stays attached: %s, which uses it, stays on the node"
                       % (name, va.name, ", ".join(staying)))
                continue
            at = max((gone_at[p.key] or 0.0 for p in using), default=0.0)
            after = (" once %s, which uses it, is deleted" % ", ".join(p.ref for p in using)) if at > 0 else " at once"
            b.action("detach", by=ATTACH_DETACH, volume_attachment=va.name, node=name, at=at, rule=RULE,
                     reason="attach/detach controller detaches %s (%s)%s: the node has the out-of-service taint, no %s "
                            "wait for unmount" % (va.pv_name or "the volume", va.attacher or "?", after,
                                                  format_seconds(MAX_WAIT_FOR_UNMOUNT)))
        held = snapshot.holds("VolumeAttachment")
        if not held:
            b.note("node/%s: VolumeAttachments are not in the input: which volumes the attach/detach controller "
                   "detaches at once is not shown" % name)
        if sts_targets:
            b.note("node/%s: StatefulSet pods that can start elsewhere once deleted: %s"
                   % (name, ", ".join(sts_targets)))
        b.note("node/%s: when it is back and healthy, remove the taint: kubectl taint nodes %s %s=%s:NoExecute-"
               % (name, name, OUT_OF_SERVICE, OUT_OF_SERVICE_VALUE))
        reports.append({"node": name, "mode": "non-graceful", "deletedPods": deleted,
                        # None, not []: without the kind the plan does not claim the node has none
                        "volumeAttachments": [va.name for va in sorted(vas, key=lambda v: v.name)] if held else None})
    chain_ordered_ready(b, snapshot, placed_rows, DEFAULT_STARTUP)
    b.extra["shutdown"] = _report(reports)
