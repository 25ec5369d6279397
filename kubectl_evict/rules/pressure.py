"""`pressure`: the kubelet's node-pressure eviction, cycle by cycle.

Models the kubelet eviction manager of Kubernetes v1.30-v1.37, by each node's kubelet version (`pkg/kubelet/eviction`,
`eviction_manager.go` `synchronize`) and the node lifecycle controller's pressure taints
(`pkg/controller/nodelifecycle`, NoSchedule `node.kubernetes.io/{memory,disk,pid}-pressure`):

- settings per node, first found wins per field: command-line flags, `--kubelet-config FILE`,
  the node's NodeKubeletConfig, upstream defaults (evictionHard all-or-nothing);
- observations from the node's NodeStatsSummary, optionally overridden with `--signal`;
- from `now`, in 10 s housekeeping steps: thresholds met (strict `<`), minimum reclaim while
  still met, soft grace periods from first observation, pressure conditions and taints (kept
  for evictionPressureTransitionPeriod after the last observation), local-storage limit
  evictions (`localStorageEviction`: emptyDir sizeLimit of any medium, the pod's
  `resourcehelper.PodLimits`, container limits with rootfs only without a dedicated imagefs),
  then at most one `kill` per cycle from the ranking, subtracting the victim's usage before the
  next cycle, until every met threshold is cleared including minimum reclaim (carried over only
  for thresholds whose grace has passed);
- soft-eviction grace by the node's kubelet version (`versions.node_version`): capped by the pod's
  terminationGracePeriodSeconds from v1.32, evictionMaxPodGracePeriod alone before; a note says
  which rule and version the plan assumed;
- pressure that outlasts every evictable pod is a `threshold-persists` shortfall (exit code 4);
- each evicted pod's replacement (`rules.replacements`): the pod is Failed (reason Evicted,
  condition DisruptionTarget/TerminationByKubelet) at the end of its grace period and its owner's
  controller acts then (ReplicaSet `syncReplicaSet`/`FilterActivePods`, StatefulSet
  `processReplica`, Job `syncJob`/`matchPodFailurePolicy`, DaemonSet `podsShouldBeOnNode` with the
  eviction manager's Admit); kube-scheduler places it with the node tainted for its pressure
  conditions; one with nowhere to go is a `no-node-fits` shortfall (exit code 4);
- by the node's kubelet release (`versions.FEATURES`, `versions.node_version`; the cluster's
  version where the node's is unknown, every node at `--kubernetes-version`): the ranking reads
  pod-level requests from v1.34 (#132277) and QoS as the release computes it (#137150, v1.37);
  from v1.37 `memory.available` leaves out the node's hugepages (#138127: the v1.37 summary API
  does; another release's summary is shifted at `--kubernetes-version`) and sidecar containers'
  ephemeral-storage limits are enforced (#138462); before v1.31 (KubeletSeparateDiskGC off by
  default) a split image/container filesystem makes every synchronize fail, so nothing is evicted;
- each kill's reason is the kubelet's status message (`evictionMessage`), "Threshold quantity:
  <q>, available: <a>." included.

Node-level reclaim (image and container GC) cannot be sized from a stats summary; the plan
assumes it frees nothing and says so. Pure: (Snapshot, PressureSettings, now) -> Plan.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Set, Tuple

from pyrsistent import PClass, field, pmap

from kubectl_evict.errors import InputError, json_type
from kubectl_evict.eviction.observe import (LAYOUT_TEXT, SINGLE, SPLIT, PodUsage, disk_layout, fs_stats_to_measure,
                                            hugepage_aware, hugepage_bytes, node_reclaim, non_pod_memory, observations,
                                            pod_disk_usage,
                                            pod_usages, usage_for)
from kubectl_evict.eviction.manager import ManagerState, admits, caps_soft_grace, eviction_grace, synchronize
from kubectl_evict.eviction.oom import oom_order
from kubectl_evict.eviction.ranking import is_critical, rank
from kubectl_evict.eviction.thresholds import (ALLOCATABLE_MEMORY, DEFAULT_MAX_POD_GRACE_PERIOD, INT64_MAX,
                                               DEFAULT_PRESSURE_TRANSITION_PERIOD, MEMORY, MONITORING_INTERVAL, SIGNAL_CONDITION,
                                               SIGNAL_RESOURCE, Observation, Threshold, ThresholdError,
                                               default_eviction_hard, eviction_priority_order, parse_duration_go, parse_threshold_config,
                                               threshold_quantity, thresholds_met, update_containerfs_thresholds)
from kubectl_evict.kubeletconfig import kubelet_config_for, located
from kubectl_evict.model import Node, Pod, Snapshot, Taint
from kubectl_evict.plan import KUBELET, NODE_LIFECYCLE, Plan, PlanBuilder, counted_refs
from kubectl_evict.rules.replacements import KilledPod, replace_killed
from kubectl_evict.workloads import DEFAULT_STARTUP, attach
from kubectl_evict.quantity import format_bytes, format_go_binary, format_go_decimal, format_go_parsed, format_go_quantity
from kubectl_evict.scheduling.resources import pod_limits
from kubectl_evict.scheduling.tolerations import DISK_PRESSURE, MEMORY_PRESSURE, PID_PRESSURE
from kubectl_evict.timeutil import format_offset, format_seconds
from kubectl_evict.versions import ClusterVersion, cluster_version, feature_applies, node_version, parse_release

RULE = "pressure"
CONDITION_TAINT = {"MemoryPressure": MEMORY_PRESSURE, "DiskPressure": DISK_PRESSURE, "PIDPressure": PID_PRESSURE}
CONDITION_ORDER = ("MemoryPressure", "DiskPressure", "PIDPressure")
HARD_GRACE = 1                  # immediateEvictionGracePeriodSeconds
EPHEMERAL = "ephemeral-storage"
MAX_CYCLES = 5000               # safety net: a simulation never runs longer than this
MAX_HORIZON = 24 * 3600.0
EVICTION_FIELDS = ("evictionHard", "evictionSoft", "evictionSoftGracePeriod", "evictionMinimumReclaim",
                   "evictionMaxPodGracePeriod", "evictionPressureTransitionPeriod", "enforceNodeAllocatable",
                   "mergeDefaultEvictionSettings", "systemReserved", "kubeReserved")


class SignalOverride(NamedTuple):
    """`--signal NODE:SIGNAL=QUANTITY`: `quantity` in units, or `percent` of capacity."""
    node: str
    signal: str
    quantity: Optional[int]
    percent: Optional[float]
    text: str


class PressureSettings(PClass):
    nodes = field(type=tuple, initial=())                 # NODE args; empty = every node with stats
    flags = field(initial=pmap())                         # camelCase field -> value from command-line flags
    kubelet_config = field(initial=None)                  # dict from --kubelet-config, or None
    kubelet_config_source = field(type=str, initial="")
    signals = field(type=tuple, initial=())               # SignalOverride values
    ranking = field(type=str, initial="priority")
    oom = field(type=bool, initial=False)


class EvictionConfig(NamedTuple):
    thresholds: Tuple[Threshold, ...]
    max_pod_grace: int
    transition_period: float
    enforce_node_allocatable: Tuple[str, ...]
    reserved_memory: Optional[int]        # systemReserved + kubeReserved memory, None when neither set
    origin: str                           # where evictionHard came from, for the notes


# --- settings --------------------------------------------------------------------------------

def _plain(v: Any) -> Any:
    """Frozen (pyrsistent) or plain config values -> hashable plain values for caching."""
    if hasattr(v, "items"):
        return tuple(sorted((str(k), _plain(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)) or type(v).__name__ == "PVector":
        return tuple(_plain(x) for x in v)
    return v


def _layers(settings: PressureSettings, snapshot: Snapshot, node: str) -> List[Tuple[str, Mapping[str, Any]]]:
    layers: List[Tuple[str, Mapping[str, Any]]] = [("flags", settings.flags)]
    if settings.kubelet_config is not None:
        layers.append((settings.kubelet_config_source or "--kubelet-config", settings.kubelet_config))
    layers.append(("NodeKubeletConfig " + node, kubelet_config_for(snapshot, node)))
    return layers


def _pick(layers: Sequence[Tuple[str, Mapping[str, Any]]], key: str) -> Tuple[Any, str]:
    for origin, cfg in layers:
        v = cfg.get(key) if cfg is not None else None
        if v is not None:
            return v, origin
    return None, "defaults"


_FLAG_NAMES = {"evictionHard": "--eviction-hard", "evictionSoft": "--eviction-soft",
               "evictionSoftGracePeriod": "--eviction-soft-grace-period",
               "evictionMinimumReclaim": "--eviction-minimum-reclaim",
               "evictionMaxPodGracePeriod": "--eviction-max-pod-grace-period",
               "evictionPressureTransitionPeriod": "--eviction-pressure-transition-period"}


def _located(problem: str, key: str, origin: str) -> InputError:
    if origin == "flags":
        return InputError(problem, field=_FLAG_NAMES.get(key, key))
    if origin.startswith("NodeKubeletConfig "):
        return InputError(problem, obj=origin, field="kubeletconfig." + key)
    return InputError(problem, source=origin, field=key)


def _across_layers(problem: str, a: Tuple[str, str], b: Tuple[str, str]) -> InputError:
    """An error between two maps set in different layers (a soft threshold in the node's
    NodeKubeletConfig, its grace periods from a flag): each layer replaces a whole map, as kubelet
    flags override KubeletConfiguration fields. Named at the flag when one side is a flag (what
    the user just typed), with the layer the other map came from."""
    (key, origin), (other, other_origin) = (b, a) if b[1] == "flags" else (a, b)
    return _located("%s (%s from %s; %s replaces the whole %s map)"
                    % (problem, other, other_origin, "the flag" if origin == "flags" else "it", key), key, origin)


def _as_map(v: Any, key: str, origin: str) -> Dict[str, str]:
    """A KubeletConfiguration map[string]string: the kubelet refuses to decode a number or an
    object as a value (strict decoding of kubelet.config.k8s.io/v1beta1), so do we, at the
    signal's field, instead of reading `100` as "100" or an object as its Python spelling."""
    if v is None:
        return {}
    if not hasattr(v, "items"):
        raise _located("expected a map of signal to value", key, origin)
    for k, x in v.items():
        if not isinstance(x, str):
            raise _located("expected a string, found %s" % json_type(x), "%s.%s" % (key, k), origin)
    return {str(k): x for k, x in v.items()}


def _max_pod_grace(v: Any, origin: str) -> int:
    """evictionMaxPodGracePeriod: an int32 of seconds in KubeletConfiguration (a string, a
    fraction or a number past int32 does not decode). A negative value decodes and the pod worker
    floors the grace at 1 s (`eviction_grace`), so it is read, not refused."""
    if v is None:
        return DEFAULT_MAX_POD_GRACE_PERIOD
    if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not v.is_integer()):
        raise _located("expected an integer number of seconds, found %s" % json_type(v),
                       "evictionMaxPodGracePeriod", origin)
    if not -2 ** 31 <= v <= 2 ** 31 - 1:
        raise _located("%d is out of the int32 range of seconds" % v, "evictionMaxPodGracePeriod", origin)
    return int(v)


def _memory_of(v: Any, key: str, origin: str) -> Optional[int]:
    if v is None or not hasattr(v, "get") or v.get("memory") is None:
        return None
    from kubectl_evict.quantity import parse_units
    raw = v.get("memory")
    if not isinstance(raw, (str, int)) or isinstance(raw, bool):
        raise _located("expected a quantity, found %s" % json_type(raw), key + ".memory", origin)
    try:
        units = parse_units("memory", raw)
    except ValueError as e:
        raise _located(str(e), key + ".memory", origin) from None
    # the kubelet refuses a negative reservation (parseResourceList, cmd/kubelet/app/server.go);
    # one beyond int64 fits no node's memory
    if units < 0:
        raise _located("resource quantity for \"memory\" cannot be negative: %s" % raw, key + ".memory", origin)
    if units > INT64_MAX:
        raise _located("%s is too large: the value does not fit the int64 Kubernetes compares" % raw,
                       key + ".memory", origin)
    return units



def resolve_config(settings: PressureSettings, snapshot: Snapshot, node: str,
                   cache: Optional[Dict[Any, EvictionConfig]] = None) -> EvictionConfig:
    """The node's eviction settings: first found per field among flags, --kubelet-config, the
    node's NodeKubeletConfig, then upstream defaults (evictionHard is all-or-nothing). A bad
    value in the NodeKubeletConfig is an error naming its file, object and field."""
    try:
        return _resolve_config(settings, snapshot, node, cache)
    except InputError as e:
        raise located(snapshot, node, e) from None


def _resolve_config(settings: PressureSettings, snapshot: Snapshot, node: str,
                    cache: Optional[Dict[Any, EvictionConfig]]) -> EvictionConfig:
    layers = _layers(settings, snapshot, node)
    picked = {k: _pick(layers, k) for k in EVICTION_FIELDS}
    n = snapshot.node(node)
    os_label = n.labels.get("kubernetes.io/os", "") if n is not None else ""
    # the Windows table is the node's own kubelet's (only Windows nodes pay for the version lookup)
    windows_defaults = os_label != "windows" or n is None or \
        node_version(cluster_version(snapshot), n).has("WindowsEvictionDefaults")
    key = tuple((k, _plain(v), o if o == "flags" or not o.startswith("NodeKubeletConfig") else "node")
                for k, (v, o) in sorted(picked.items())) + (("os", os_label == "windows", windows_defaults),)
    if cache is not None:
        hit = cache.get(key)
        if hit is not None:
            return hit
    maps: Dict[str, Dict[str, str]] = {}
    for k in ("evictionHard", "evictionSoft", "evictionSoftGracePeriod", "evictionMinimumReclaim"):
        v, o = picked[k]
        maps[k] = _as_map(v, k, o)
    hard_v, hard_origin = picked["evictionHard"]
    merge = bool(picked["mergeDefaultEvictionSettings"][0])
    if hard_v is None:
        maps["evictionHard"] = default_eviction_hard(os_label, windows_defaults)
        origin = "upstream defaults"
    else:
        if merge:
            maps["evictionHard"] = dict(default_eviction_hard(os_label, windows_defaults), **maps["evictionHard"])
        origin = "--eviction-hard" if hard_origin == "flags" else \
            "the node's NodeKubeletConfig" if hard_origin.startswith("NodeKubeletConfig ") else hard_origin
    ena_v, ena_o = picked["enforceNodeAllocatable"]
    if ena_v is not None and (not isinstance(ena_v, (list, tuple)) or not all(isinstance(x, str) for x in ena_v)):
        raise _located("expected a list of strings, found %s" % json_type(ena_v), "enforceNodeAllocatable", ena_o)
    enforce = tuple(ena_v) if ena_v is not None else ("pods",)
    try:
        thresholds = parse_threshold_config(enforce, maps["evictionHard"], maps["evictionSoft"],
                                            maps["evictionSoftGracePeriod"], maps["evictionMinimumReclaim"])
    except ThresholdError as e:
        o = picked[e.key][1] if e.key in picked else "flags"
        if e.key == "evictionHard" and hard_v is None:
            o = "defaults"
        paired = picked.get(e.paired)
        if paired is not None and paired[0] is not None and paired[1] != o:
            raise _across_layers(str(e), (e.key, o), (e.paired, paired[1])) from None
        raise _located(str(e), e.key, o) from None
    max_grace = _max_pod_grace(*picked["evictionMaxPodGracePeriod"])
    tp_v, tp_o = picked["evictionPressureTransitionPeriod"]
    if tp_v is None:
        period = DEFAULT_PRESSURE_TRANSITION_PERIOD
    else:
        try:
            period = parse_duration_go(str(tp_v))
        except ThresholdError as e:
            raise _located(str(e), "evictionPressureTransitionPeriod", tp_o) from None
    sr = _memory_of(*picked["systemReserved"][:1], "systemReserved", picked["systemReserved"][1])
    kr = _memory_of(*picked["kubeReserved"][:1], "kubeReserved", picked["kubeReserved"][1])
    reserved = None if sr is None and kr is None else (sr or 0) + (kr or 0)
    cfg = EvictionConfig(thresholds, max_grace, period, enforce, reserved, origin)
    if cache is not None:
        cache[key] = cfg
    return cfg


# --- --signal overrides ----------------------------------------------------------------------

def _capacity_for(signal: str, node: Node, base: Optional[Observation]) -> Optional[int]:
    if base is not None and base.capacity is not None:
        return base.capacity
    if signal == MEMORY:
        return node.capacity.get("memory")
    if signal == ALLOCATABLE_MEMORY:
        return node.allocatable.get("memory")
    if SIGNAL_RESOURCE[signal] == "ephemeral-storage":
        return node.capacity.get("ephemeral-storage")
    return None


def apply_overrides(obs: Dict[str, Observation], node: Node, overrides: Iterable[SignalOverride]) -> Dict[str, Observation]:
    out = dict(obs)
    for o in overrides:
        base = out.get(o.signal)
        cap = _capacity_for(o.signal, node, base)
        if o.percent is not None:
            if cap is None:
                raise InputError("%s: no capacity known for %s on node %s, give an absolute quantity"
                                 % (o.text, o.signal, node.name), field="--signal")
            avail = int(cap * o.percent / 100)
        else:
            avail = o.quantity
        out[o.signal] = Observation(avail, cap if cap is not None else avail, None)
    return out


# --- messages ----------------------------------------------------------------------------------

def _fmt_amount(signal: str, n: float) -> str:
    if SIGNAL_RESOURCE[signal] in ("memory", "ephemeral-storage"):
        return format_bytes(int(n))
    return "%d" % n


def threshold_met_text(th: Threshold, o: Observation) -> str:
    """helpers.go `getThresholdMetInfo` + `thresholdMetMessageFmt`: the reclaimed threshold's
    quantity (`GetThresholdQuantity`: the configured Quantity as Go prints it, or a percentage
    of capacity as a BinarySI quantity) and the signal's observed available (BinarySI for
    memory and bytes, DecimalSI for inodes and PIDs, as `makeSignalObservations` builds them)."""
    if th.value.quantity is not None:
        quantity = format_go_parsed(th.value.text)
    else:
        quantity = format_go_binary(int(threshold_quantity(th.value, o.capacity)))
    fmt = format_go_decimal if SIGNAL_RESOURCE[th.signal] in ("inodes", "pids") else format_go_binary
    return "Threshold quantity: %s, available: %s. " % (quantity, fmt(int(o.available)))


def eviction_message(resource: str, pod: Pod, u: Optional[PodUsage], th: Optional[Threshold] = None,
                     o: Optional[Observation] = None) -> str:
    """helpers.go evictionMessage. Every modelled release (v1.30-v1.37) has the "Threshold
    quantity: <q>, available: <a>. " part after the first sentence: upstream's
    TestMemoryPressure_VerifyPodStatus / TestPIDPressure_VerifyPodStatus /
    TestDiskPressureNodeFs_VerifyPodStatus expect it, and a v1.30 kubelet logs it
    (kubernetes/kubernetes#123904, March 2024). It needs the threshold and its observation
    (`th`, `o`); without them the sentence is left out, as the kubelet does when the signal
    has no observation."""
    msg = "The node was low on resource: %s. " % resource
    if th is not None and o is not None:
        msg += threshold_met_text(th, o)
    if u is None:
        return msg
    containers = {c.name: c for c in pod.containers + pod.init_containers}
    for cs in u.containers:
        c = containers.get(cs.name)
        if c is None:
            continue
        req = c.requests.get(resource, 0)
        use: Optional[int] = None
        if resource == "ephemeral-storage":
            if cs.rootfs_bytes is not None and cs.logs_bytes is not None:
                use = cs.rootfs_bytes + cs.logs_bytes
        elif resource == "memory":
            use = cs.working_set
        if use is not None and use > req:
            msg += "Container %s was using %s, request is %s, has larger consumption of %s. " % (
                c.name, format_go_binary(use), format_go_quantity(req), resource)
    return msg


# --- local storage limits (eviction_manager.go localStorageEviction) ------------------------------

def local_storage_violation(pod: Pod, u: PodUsage, layout: str, sidecars: bool = False) -> Optional[str]:
    """The kubelet's local-storage-limit message for `pod`, or None when within limits: the
    first of `emptyDirLimitEviction`, `podEphemeralStorageLimitEviction` and
    `containerEphemeralStorageLimitEviction` that fires. `sidecars` (v1.37, #138462, feature
    SidecarEphemeralStorageLimits): the per-container check covers restartable init containers
    too; before, only regular containers."""
    # emptyDirLimitEviction: every emptyDir with a positive sizeLimit, whatever its medium
    # (a memory-backed one counts its tmpfs usage against sizeLimit too)
    for v in pod.volumes:
        if v.kind == "emptyDir" and v.size_limit and v.size_limit > 0:
            used = u.volumes.get(v.name)
            if used is not None and used[0] > v.size_limit:
                return 'Usage of EmptyDir volume "%s" exceeds the limit "%s". ' % (v.name, format_go_quantity(v.size_limit))
    # podEphemeralStorageLimitEviction: resourcehelper.PodLimits, so the pod has a limit as soon
    # as any container (regular, sidecar or init) sets one; no usage reported counts as 0
    total = pod_limits(pod.containers, pod.init_containers, pod.overhead).get(EPHEMERAL)
    if total is not None and (u.ephemeral or 0) > total:
        return "Pod ephemeral local storage usage exceeds the total limit of containers %s. " % format_go_quantity(total)
    # containerEphemeralStorageLimitEviction: regular containers with a non-zero limit, in the
    # summary's container order; rootfs counts only without a dedicated image filesystem
    # (`!*m.dedicatedImageFs`: the single-filesystem layout, not the imagefs or split ones)
    checked = pod.containers + tuple(c for c in pod.init_containers if c.restart_policy == "Always") \
        if sidecars else pod.containers
    limits = {c.name: c.limits.get(EPHEMERAL) for c in checked if c.limits.get(EPHEMERAL)}
    for cs in u.containers:
        lim = limits.get(cs.name)
        if lim is None:
            continue
        used = (cs.logs_bytes or 0) + ((cs.rootfs_bytes or 0) if layout == SINGLE else 0)
        if used > lim:
            return 'Container %s exceeded its local ephemeral storage limit "%s". ' % (cs.name, format_go_quantity(lim))
    return None


def hugepages_unadjusted(node: Node, version: ClusterVersion) -> int:
    """How the node's stats summary differs from what the kubelet of `version` (the node's
    release, `versions.node_version`) would report about hugepages: 1 when it lacks the v1.37
    adjustment that release applies, -1 when it carries one that release does not, 0 when they
    agree. They differ only when `--kubernetes-version` plans another kubelet than the one that
    wrote the summary: a kubelet before v1.37 reports memory.available with the hugepage
    reservation in it, a v1.37 one without (#138127; a kubelet of unknown version is taken to be
    the cluster's own, whose summary needs nothing)."""
    kubelet = parse_release(node.kubelet_version)
    if kubelet is None:
        return 0
    return int(version.has("HugepageAwareEviction")) - int(feature_applies("HugepageAwareEviction", kubelet))


def _has_local_limits(pod: Pod) -> bool:
    """Could `local_storage_violation` ever fire for this pod? (cheap pre-filter: plain loops,
    it runs for every pod of every node)"""
    for v in pod.volumes:
        if v.kind == "emptyDir" and v.size_limit:
            return True
    for c in pod.containers:
        if c.limits.get(EPHEMERAL) is not None:
            return True
    for c in pod.init_containers:
        if c.limits.get(EPHEMERAL) is not None:
            return True
    return False


# --- the simulation -----------------------------------------------------------------------------

class NodeResult(NamedTuple):
    node: str
    kills: int
    cleared_at: Optional[float]       # when every threshold (incl. min reclaim) stopped being met
    exhausted: bool                   # ranked pods ran out before the signal cleared
    conditions: Tuple[str, ...]       # pressure conditions set during the plan
    soft_kills: int = 0               # kills for a soft threshold (their grace depends on the version)
    pods_unknown: bool = False        # still met, but the input holds no pods: what the kubelet evicts is unknown


def _free(obs: Dict[str, Observation], pod: Pod, u: Optional[PodUsage], layout: str) -> None:
    """Give the victim's usage back to every signal it counted against."""
    if u is None:
        return
    for sig, o in list(obs.items()):
        res = SIGNAL_RESOURCE[sig]
        if res == "memory":
            freed = u.working_set
        elif res == "pids":
            freed = u.processes
        else:
            disk, inodes = pod_disk_usage(u, pod, fs_stats_to_measure(sig, layout))
            freed = disk if res == "ephemeral-storage" else inodes
        if freed:
            obs[sig] = o._replace(available=o.available + freed)


def _describe(t: Threshold, obs: Mapping[str, Observation]) -> str:
    """`memory.available 300Mi < 500Mi (hard)`; a threshold met only through its minimum reclaim
    (thresholdsMet with enforceMinReclaim) shows that bound: `1.3Gi < 1.5Gi (1Gi + minimum
    reclaim 500Mi)`."""
    o = obs[t.signal]
    q = threshold_quantity(t.value, o.capacity)
    pct = "" if t.value.quantity is not None else " (%s)" % t.value.text
    if t.min_reclaim is not None and o.available >= q:
        r = threshold_quantity(t.min_reclaim, o.capacity)
        s = "%s %s < %s (%s%s + minimum reclaim %s)" % (
            t.signal, _fmt_amount(t.signal, o.available), _fmt_amount(t.signal, q + r), _fmt_amount(t.signal, q), pct,
            t.min_reclaim.text)
    else:
        s = "%s %s < %s%s" % (t.signal, _fmt_amount(t.signal, o.available), _fmt_amount(t.signal, q), pct)
    return s + (" (hard)" if t.hard else " (soft, grace %s)" % format_seconds(t.grace))


def _grid(x: float) -> float:
    """Round up to the next housekeeping tick."""
    return math.ceil(x / MONITORING_INTERVAL - 1e-9) * MONITORING_INTERVAL


def simulate_node(b: PlanBuilder, snapshot: Snapshot, node: Node, cfg: EvictionConfig,
                  obs: Dict[str, Observation], summary: Optional[Mapping[str, Any]],
                  settings: PressureSettings, layout: str, advice: "Advice",
                  cap_soft_grace: bool = True, version: Optional[ClusterVersion] = None) -> Optional[NodeResult]:
    """Run the node's eviction manager cycle by cycle from `now`; None when nothing is met,
    no pod has a local-storage limit and no pressure condition or taint is set.
    `cap_soft_grace`: the v1.32+ soft grace rule (`manager.caps_soft_grace`); `version` decides
    the ranking's requests and QoS, sidecar limits and admission (None: the newest modelled)."""
    sidecars = version is None or version.has("SidecarEphemeralStorageLimits")
    thresholds, ignored = update_containerfs_thresholds(cfg.thresholds, layout)
    pods = [p for p in snapshot.pods_on(node.name) if not p.is_terminal]
    met0 = thresholds_met(thresholds, obs, False)
    limited = [p for p in pods if _has_local_limits(p)]
    limited_ids = {id(p) for p in limited}
    existing = {c for c in CONDITION_ORDER if (node.conditions.get(c) is not None and node.conditions[c].status == "True")}
    tainted = {c for c, k in CONDITION_TAINT.items() if any(t.key == k and t.effect == "NoSchedule" for t in node.taints)}
    if not met0 and not limited and not existing and not tainted:
        return None
    usages = pod_usages(summary) if summary is not None else {}
    name = node.name
    if summary is None:
        # A what-if (--signal) on a node the snapshot has no stats summary for: upstream ranks
        # pods without stats first (cmpBool(!found)), so every pod ties there and priority alone
        # orders them. Said once here rather than once per kill.
        b.warn("node/%s: no NodeStatsSummary in the snapshot: only the --signal values (%s) are observed and every "
               "pod's usage is unknown, so the kubelet's order is by priority alone and the plan assumes no kill "
               "frees anything" % (name, ", ".join(sorted(obs)) or "none"))
    for msg in ignored:
        b.warn("node/%s: kubelet ignores configured containerfs thresholds (\"%s\"); they follow %s" %
               (name, msg, "imagefs" if layout == "imagefs" else "nodefs"))

    alive: List[Pod] = list(pods)
    state = ManagerState({}, (), {c: 0.0 for c in existing})
    cond_on: Set[str] = set(existing)
    set_during: List[str] = []
    kills = 0
    soft_kills = 0
    exhausted = False
    pods_unknown = False
    cleared_at: Optional[float] = None
    reclaim_warned = False
    skipped_critical: Set[Tuple[str, str]] = set()
    t = 0.0
    for _ in range(MAX_CYCLES):
        if t > MAX_HORIZON:
            b.warn("node/%s: simulation stopped after %s without the node leaving pressure" % (name, format_seconds(MAX_HORIZON)))
            break
        cycle = synchronize(state, thresholds, obs, t, cfg.transition_period)
        state = cycle.state
        met = list(cycle.met)
        active_conds = set(cycle.conditions)
        for c in CONDITION_ORDER:
            if c in active_conds and c not in cond_on:
                why = "; ".join(_describe(th, obs) for th in met if SIGNAL_CONDITION[th.signal] == c)
                if c not in tainted:
                    b.action("taint", by=NODE_LIFECYCLE, node=name, key=CONDITION_TAINT[c], value="", effect="NoSchedule", at=t, rule=RULE,
                             reason="kubelet sets %s=True (%s); the node lifecycle controller taints the node" % (c, why))
                    tainted.add(c)
                cond_on.add(c)
                set_during.append(c)
            elif c in cond_on and c not in active_conds:
                if c in tainted:
                    b.action("untaint", by=NODE_LIFECYCLE, node=name, key=CONDITION_TAINT[c], effect="NoSchedule", at=t, rule=RULE,
                             reason="%s=False: not observed for evictionPressureTransitionPeriod (%s)"
                                    % (c, format_seconds(cfg.transition_period)))
                    tainted.discard(c)
                cond_on.discard(c)
        # local-storage limits first: any number of pods, 1 s grace, then this cycle is done
        evicted_local = False
        if summary is not None:
            for p in [p for p in alive if id(p) in limited_ids]:
                u = usage_for(usages, p)
                if u is None or is_critical(p):
                    continue
                why = local_storage_violation(p, u, layout, sidecars)
                if why:
                    b.action("kill", by=KUBELET, namespace=p.namespace, pod=p.name, uid=p.uid, node=name, at=t,
                             grace_period_seconds=HARD_GRACE, rule=RULE, reason=why.rstrip())
                    alive.remove(p)
                    _free(obs, p, u, layout)
                    advice.gone(p)
                    kills += 1
                    evicted_local = True
        if evicted_local:
            t += MONITORING_INTERVAL
            continue
        if not met:
            if cleared_at is None:
                cleared_at = t
            if not cond_on:
                break
            # nothing changes until the conditions expire: jump there
            t = max(t + MONITORING_INTERVAL,
                    _grid(max(state.condition_last_observed[c] for c in cond_on) + cfg.transition_period))
            continue
        cleared_at = None
        ready = list(cycle.ready)
        if not ready:
            t = max(t + MONITORING_INTERVAL, _grid(min(state.first_observed[th] + th.grace for th in met)))
            continue
        th = eviction_priority_order(ready)[0]
        resource = SIGNAL_RESOURCE[th.signal]
        reclaims = node_reclaim(th.signal, layout)
        if reclaims and not reclaim_warned:
            reclaim_warned = True
            b.warn("node/%s: under %s the kubelet first deletes %s; the stats summary "
                   "does not say how much that frees, so this plan assumes nothing (evictions may stop earlier)"
                   % (name, th.signal, reclaims))
        victim: Optional[Pod] = None
        for p in rank(alive, th.signal, layout, usages, settings.ranking, version):
            if is_critical(p):
                if p.key not in skipped_critical:
                    skipped_critical.add(p.key)
                    b.skip(p, "critical-pod", "critical pod (%s): the eviction manager never evicts it" % (
                        "static" if p.is_static else "mirror" if p.is_mirror else "priority %d" % p.priority))
                continue
            victim = p
            break
        if victim is None:
            if not snapshot.holds("Pod"):
                # no pod known is not no pod there: the kubelet evicts pods the input does not
                # show, so whether the pressure outlasts them is unknown (no shortfall asserted)
                pods_unknown = True
                b.incomplete_for("Pod", "which pods the kubelet evicts under a threshold still met, and so whether "
                                 "the node leaves pressure, not known", name, noun="node")
                break
            exhausted = True
            b.node_shortfall(name, "threshold-persists", "no evictable pods left and %s is still met: the node stays "
                             "under pressure" % _describe(th, obs))
            break
        u = usage_for(usages, victim)
        grace = eviction_grace(th, cfg.max_pod_grace, victim, cap_soft_grace)
        b.action("kill", by=KUBELET, namespace=victim.namespace, pod=victim.name, uid=victim.uid, node=name, at=t,
                 grace_period_seconds=grace, rule=RULE,
                 reason=eviction_message(resource, victim, u, th, obs.get(th.signal)).rstrip())
        if u is None and summary is not None:
            b.warn("node/%s: pod %s has no stats in the summary (ranked first, as the kubelet does); "
                   "the plan assumes evicting it frees nothing" % (name, victim.ref))
        alive.remove(victim)
        _free(obs, victim, u, layout)
        advice.gone(victim)
        kills += 1
        if not th.hard:
            soft_kills += 1
        # evictPod blocks until the pod is killed (killPodNow waits for the pod worker, up to
        # 1.5 x the grace), and only then does waitForPodsCleanup's 30 s start: the next cycle
        # comes after the victim's whole grace period, however long (the plan's worst case, as
        # its replacement is created at the end of that grace)
        t += max(MONITORING_INTERVAL, _grid(grace))
    res = NodeResult(name, kills, cleared_at, exhausted, tuple(c for c in CONDITION_ORDER if c in set_during or c in existing),
                     soft_kills, pods_unknown)
    _admission_warning(b, snapshot, node, res, advice, version)
    return res


def _admission_warning(b: PlanBuilder, snapshot: Snapshot, node: Node, res: NodeResult, advice: "Advice",
                       version: Optional[ClusterVersion] = None) -> None:
    """eviction_manager.go Admit: which pods the node turns away while the conditions hold."""
    conds = res.conditions
    if not conds:
        return
    candidates = [p for p in snapshot.pods_on(node.name) if p.phase == "Pending"] + \
        [p for p in advice.killed_on(node.name) if p.controller_kind == "DaemonSet"]
    memory_only = conds == ("MemoryPressure",)
    rejected = [p.ref for p in candidates if not admits(p, conds, version)]
    rule = ("new BestEffort pods that do not tolerate %s:NoSchedule" % MEMORY_PRESSURE) if memory_only else \
        "every new non-critical pod"
    text = "node/%s: while %s the kubelet rejects %s (reason Evicted, \"The node had condition: [%s]. \")" % (
        node.name, " and ".join("%s=True" % c for c in conds), rule, " ".join(conds))   # Go's %v of a slice
    if rejected:
        text += "; would reject: " + ", ".join(sorted(set(rejected)))
    b.warn(text)


# --- configuration advice ---------------------------------------------------------------------

class Advice:
    """Collects configuration advice across nodes and prints it once, aggregated."""

    def __init__(self) -> None:
        self.killed: Dict[str, List[Pod]] = {}
        self.soft_not_above: Dict[Tuple[str, str, str], List[str]] = {}
        self.reserve: List[str] = []
        self.overgrown: List[str] = []
        self.guaranteed_only: List[str] = []
        self.besteffort_ds: Dict[str, List[str]] = {}
        self.no_observation: Dict[Tuple[str, ...], List[str]] = {}
        self.no_stats: List[str] = []

    def gone(self, pod: Pod) -> None:
        self.killed.setdefault(pod.node_name, []).append(pod)

    def killed_on(self, node: str) -> List[Pod]:
        return self.killed.get(node, [])

    def check_config(self, node: str, cfg: EvictionConfig, obs: Mapping[str, Observation]) -> None:
        hards = {t.signal: t for t in cfg.thresholds if t.hard}
        for t in cfg.thresholds:
            h = hards.get(t.signal)
            if t.hard or h is None:
                continue
            o = obs.get(t.signal)
            if t.value.quantity is not None and h.value.quantity is not None:
                bad = t.value.quantity <= h.value.quantity
            elif t.value.quantity is None and h.value.quantity is None:
                bad = t.value.percentage <= h.value.percentage
            elif o is not None:
                bad = threshold_quantity(t.value, o.capacity) <= threshold_quantity(h.value, o.capacity)
            else:
                bad = False
            if bad:
                self.soft_not_above.setdefault((t.signal, t.value.text, h.value.text), []).append(node)

    def check_node(self, node: Node, cfg: EvictionConfig, obs: Mapping[str, Observation],
                   summary: Optional[Mapping[str, Any]], pods: Sequence[Pod]) -> None:
        cap, alloc = node.capacity.get("memory"), node.allocatable.get("memory")
        hard = next((t for t in cfg.thresholds if t.signal == MEMORY and t.hard), None)
        if cap and alloc is not None and hard is not None:
            hard_q = int(threshold_quantity(hard.value, obs[MEMORY].capacity if MEMORY in obs else cap))
            gap = cap - alloc
            reserved = cfg.reserved_memory or 0
            system = non_pod_memory(summary) if summary is not None else None
            if gap < reserved + hard_q:
                self.reserve.append("%s (%s + %s > %s)" % (node.name, format_bytes(reserved), format_bytes(hard_q),
                                                          format_bytes(gap)))
            elif system is not None and system > gap - hard_q:
                self.overgrown.append("%s (%s > %s)" % (node.name, format_bytes(system), format_bytes(max(0, gap - hard_q))))
        running = [p for p in pods if not p.is_terminal]
        if running and all(p.qos == "Guaranteed" for p in running):
            self.guaranteed_only.append(node.name)
        for p in running:
            if p.controller_kind == "DaemonSet" and p.qos == "BestEffort" and not is_critical(p):
                self.besteffort_ds.setdefault("%s/%s" % (p.namespace, p.controller.name), []).append(node.name)

    def flush(self, b: PlanBuilder) -> None:
        for (sig, soft, hard), nodes in sorted(self.soft_not_above.items()):
            b.warn("soft threshold %s<%s is not above the hard threshold %s<%s on %s: the soft threshold can never "
                   "act before the hard one" % (sig, soft, sig, hard, _nodes_text(nodes)))
        if self.reserve:
            b.warn("system-reserved + kube-reserved + the hard memory.available threshold exceed capacity - allocatable on "
                   "%d node%s: %s%s; the scheduler can fill these nodes with requests straight into eviction"
                   % (len(self.reserve), "" if len(self.reserve) == 1 else "s", ", ".join(self.reserve[:8]),
                      " (+%d more)" % (len(self.reserve) - 8) if len(self.reserve) > 8 else ""))
        if self.overgrown:
            b.warn("memory outside the pods cgroup (OS, kubelet, runtime) exceeds what capacity - allocatable reserves for it on "
                   "%d node%s: %s%s; pods using their requests push these nodes into eviction"
                   % (len(self.overgrown), "" if len(self.overgrown) == 1 else "s", ", ".join(self.overgrown[:8]),
                      " (+%d more)" % (len(self.overgrown) - 8) if len(self.overgrown) > 8 else ""))
        if self.guaranteed_only:
            b.warn("%s run only Guaranteed pods: memory pressure there still evicts one of them (ranking ignores QoS); "
                   "it means system daemons outgrew system-reserved" % _nodes_text(self.guaranteed_only))
        for ds, nodes in sorted(self.besteffort_ds.items()):
            b.warn("DaemonSet %s has BestEffort pods (%s): they rank among the first evicted and come straight back; "
                   "give them memory requests" % (ds, _nodes_text(nodes)))
        for sigs, nodes in sorted(self.no_observation.items()):
            b.warn("no observation for %s on %s: those thresholds are never met there" % (", ".join(sigs), _nodes_text(nodes)))
        if self.no_stats:
            b.warn("no NodeStatsSummary for %s: nothing to evaluate there (add one, or use --signal)" % _nodes_text(self.no_stats))


def _nodes_text(nodes: Sequence[str], limit: int = 8) -> str:
    nodes = sorted(set(nodes))
    if len(nodes) == 1:
        return "node " + nodes[0]
    head = ", ".join(nodes[:limit])
    return "nodes %s%s" % (head, " (+%d more)" % (len(nodes) - limit) if len(nodes) > limit else "")


# --- entry point --------------------------------------------------------------------------------

def plan_pressure(snapshot: Snapshot, settings: PressureSettings, now: float) -> Plan:
    """Plan the kubelet's node-pressure evictions on the selected nodes from `now` on."""
    b = PlanBuilder("pressure", now)
    for n in settings.nodes:
        snapshot.named_node(n, "NODE")
    overrides: Dict[str, List[SignalOverride]] = {}
    for o in settings.signals:
        if snapshot.node(o.node) is None:
            raise InputError("unknown node %r in %r (not in the snapshot)" % (o.node, o.text), field="--signal")
        overrides.setdefault(o.node, []).append(o)
    if settings.nodes:
        names = list(settings.nodes)
    else:
        # every node is asked about: one whose kubelet gave no summary (unreachable when the
        # snapshot was taken) is named in the no-stats warning rather than passed over
        names = sorted(set(snapshot.nodes) | set(overrides))
    if not snapshot.holds("NodeStatsSummary"):
        # nodes whose usage the input does not show: nothing can be said about their pressure
        for name in (settings.nodes or sorted(snapshot.nodes)):
            if name not in snapshot.stats and name not in overrides:
                b.incomplete_for("NodeStatsSummary", "eviction signals not evaluated (no usage observed; "
                                 "--signal NODE:SIGNAL=QUANTITY gives one)", name, noun="node")
    config_held = snapshot.holds("NodeKubeletConfig") or settings.kubelet_config is not None \
        or settings.flags.get("evictionHard") is not None
    version = cluster_version(snapshot)
    # node -> (its kubelet's release, whether it caps soft grace by the pod's, why if not the
    # release's rule), for the soft-grace note
    soft_rules: Dict[str, Tuple[ClusterVersion, bool, str]] = {}
    own: Dict[str, List[str]] = {}                 # kubelet version -> nodes whose release is not the cluster's
    cache: Dict[Any, EvictionConfig] = {}
    advice = Advice()
    results: List[NodeResult] = []
    oom: Dict[str, Any] = {}
    evaluated = 0                                  # nodes whose signals were observed
    for name in names:
        node = snapshot.node(name)
        if node is None:
            continue
        cfg = resolve_config(settings, snapshot, name, cache)   # a bad configuration is an error even so
        summary = snapshot.stats.get(name)
        if summary is None and name not in overrides:
            if snapshot.holds("NodeStatsSummary"):   # else `incomplete` says it
                advice.no_stats.append(name)
            continue
        evaluated += 1
        if not config_held and name not in snapshot.kubelet_configs:
            b.incomplete_for("NodeKubeletConfig", "eviction thresholds taken from upstream defaults (the kubelet's "
                             "own configuration was not read; --kubelet-config or --eviction-hard give it)",
                             name, noun="node")
        obs = observations(summary) if summary is not None else {}
        layout = disk_layout(summary) if summary is not None else "single"
        kubelet = node_version(version, node)    # the eviction manager is the node's own kubelet's
        if kubelet is not version:
            own.setdefault(kubelet.text, []).append(name)
        shift = hugepages_unadjusted(node, kubelet) if summary is not None else 0
        if shift:   # -1: the reservation back into memory.available, as a kubelet before v1.37 counts it
            obs = hugepage_aware(obs, shift * hugepage_bytes(node.capacity))
            if MEMORY in obs:   # the value planned is not the summary's: say why
                b.note("node/%s: memory.available %s the node's %s of hugepages%s, as the %s kubelet does "
                       "(HugepageAwareEviction, v1.37, #138127); the stats summary, from kubelet %s, %s"
                       % (name, "leaves out" if shift > 0 else "counts", format_bytes(hugepage_bytes(node.capacity)),
                          "" if shift > 0 else " as available", kubelet.text, node.kubelet_version,
                          "counts them as available" if shift > 0 else "leaves them out"))
        if name in overrides:
            obs = apply_overrides(obs, node, overrides[name])
        thresholds, _ = update_containerfs_thresholds(cfg.thresholds, layout)
        gate_off = ""
        if summary is not None and layout == SPLIT:
            gate, why = _separate_disk_gc(settings, snapshot, name, kubelet)
            gate_off = "" if gate else why
        missing = tuple(sorted({t.signal for t in thresholds if t.signal not in obs}))
        if missing and summary is not None and not gate_off:   # without a summary the no-stats warning says it
            advice.no_observation.setdefault(missing, []).append(name)
        advice.check_config(name, cfg, obs)
        advice.check_node(node, cfg, obs, summary, snapshot.pods_on(name))
        before = dict(obs)
        if gate_off:
            _split_without_gate(b, node, gate_off, thresholds, obs)
            res = None
        else:
            cap, cap_why = _soft_grace_rule(settings, snapshot, name, kubelet)
            res = simulate_node(b, snapshot, node, cfg, obs, summary, settings, layout, advice, cap, kubelet)
        if res is not None and res.soft_kills:
            soft_rules[name] = (kubelet, cap, cap_why)
        if res is not None and (res.kills or res.conditions):
            results.append(res)
            if res.conditions or thresholds_met(thresholds, before, False):
                _node_note(b, node, cfg, before, thresholds, res,
                           LAYOUT_TEXT.get(layout, layout) if summary is not None else "no stats summary")
        if settings.oom and (name in settings.nodes or (res is not None and "MemoryPressure" in res.conditions)):
            # the kubelet uses the machine's memory capacity (cadvisor), i.e. the node's capacity
            cap = node.capacity.get("memory") or (obs[MEMORY].capacity if MEMORY in obs else 0) or 0
            order = oom_order([p for p in snapshot.pods_on(name) if not p.is_terminal],
                              pod_usages(summary) if summary is not None else {}, cap)
            oom[name] = [{"namespace": e.namespace, "pod": e.pod, "container": e.container, "oomScoreAdj": e.adj,
                          "workingSetBytes": e.working_set, "estimatedScore": e.score} for e in order]
            # the whole list, in the order of the value the kernel compares (oom_badness: oom_score_adj
            # plus the container's share of memory in thousandths), and that value
            b.note("node/%s: if memory runs out before the kubelet acts, the kernel OOM killer takes%s"
                   % (name, " (score = oom_score_adj + working set in thousandths of memory):" if order
                      else " nothing (no containers)"))
            for i, e in enumerate(order, 1):
                b.note("  %d. %s/%s/%s score %d (adj %d + %d)" % (i, e.namespace, e.pod, e.container, e.score, e.adj,
                                                                 e.score - e.adj))
    _replacements(b, snapshot, results)
    advice.flush(b)
    for text, names_ in sorted(own.items()):
        b.note("kubelet %s on %s: planned with that release's eviction manager, not the control plane's %s"
               % (text, counted_refs("node", names_, 5), version.describe()))
    _soft_grace_notes(b, soft_rules)
    b.extra["pressure"] = [{"node": r.node, "kills": r.kills, "conditions": list(r.conditions),
                            "clearedAt": r.cleared_at, "exhausted": r.exhausted} for r in results]
    if settings.oom:
        b.extra["oom"] = oom
    if not results and not b.warnings and not b.has_incomplete and evaluated:
        # only about nodes it looked at: with none (no Node objects, no summaries) it says nothing
        b.note("no node is under pressure or over a local-storage limit")
    return attach(snapshot, b.build())


SEPARATE_DISK_GC = "KubeletSeparateDiskGC"


def _separate_disk_gc(settings: PressureSettings, snapshot: Snapshot, node: str,
                      kubelet: ClusterVersion) -> Tuple[bool, str]:
    """Whether the node's kubelet runs with the KubeletSeparateDiskGC gate, and why: its
    configuration's `featureGates` when one sets it, else the release's default (on from v1.31)."""
    for origin, cfg in _layers(settings, snapshot, node)[1:]:
        gates = cfg.get("featureGates") if cfg is not None else None
        if isinstance(gates, Mapping) and isinstance(gates.get(SEPARATE_DISK_GC), bool):
            on = bool(gates[SEPARATE_DISK_GC])
            return on, "featureGates %s=%s in %s" % (SEPARATE_DISK_GC, str(on).lower(), origin)
    on = kubelet.has(SEPARATE_DISK_GC)
    return on, "kubelet %s: the %s gate is alpha and off before v1.31" % (kubelet.text, SEPARATE_DISK_GC)


def _split_without_gate(b: PlanBuilder, node: Node, why: str, thresholds: Sequence[Threshold],
                        obs: Mapping[str, Observation]) -> None:
    """eviction_manager.go synchronize: with a split image/container filesystem and the
    KubeletSeparateDiskGC gate off, every cycle returns "KubeletSeparateDiskGC is turned off but
    we still have a split filesystem" before it sets a condition or evicts a pod (upstream
    vector TestDiskPressureNodeFs_VerifyPodStatus/...feature off; error; container fs). Nothing
    is killed, and a threshold met now never clears."""
    b.warn("node/%s: a split image/container filesystem without %s (%s): the eviction manager fails every "
           "cycle (\"KubeletSeparateDiskGC is turned off but we still have a split filesystem\"), so it sets no "
           "pressure condition and evicts no pod" % (node.name, SEPARATE_DISK_GC, why))
    met = thresholds_met(thresholds, obs, False)
    if met:
        b.node_shortfall(node.name, "threshold-persists", "%s is met but the kubelet's eviction manager fails every "
                         "cycle (%s off on a split image/container filesystem): nothing reclaims it"
                         % ("; ".join(_describe(t, obs) for t in met), SEPARATE_DISK_GC))


OVERWRITE_GRACE_GATE = "AllowOverwriteTerminationGracePeriodSeconds"


def _soft_grace_rule(settings: PressureSettings, snapshot: Snapshot, node: str,
                     kubelet: ClusterVersion) -> Tuple[bool, str]:
    """Whether the node's kubelet caps a soft eviction's grace by the pod's own
    (`manager.caps_soft_grace`: its release's rule) and, when its configuration decides
    otherwise, why: from v1.32 until the gate is locked off in v1.35, `featureGates`
    AllowOverwriteTerminationGracePeriodSeconds=true brings back evictionMaxPodGracePeriod alone."""
    cap = caps_soft_grace(kubelet)
    if cap and kubelet.has("OverwriteGraceGateSettable"):
        for origin, cfg in _layers(settings, snapshot, node)[1:]:
            gates = cfg.get("featureGates") if cfg is not None else None
            if isinstance(gates, Mapping) and isinstance(gates.get(OVERWRITE_GRACE_GATE), bool):
                if gates[OVERWRITE_GRACE_GATE]:
                    return False, "featureGates %s=true in %s" % (OVERWRITE_GRACE_GATE, origin)
                break
    return cap, ""


def _soft_grace_notes(b: PlanBuilder, soft_rules: Mapping[str, Tuple[ClusterVersion, bool, str]]) -> None:
    """Which soft-grace rule the kills assumed (`_soft_grace_rule`): one note when every node
    with a soft kill runs the same release and rule, else one per (release, rule) with its nodes
    (each kubelet applies its own)."""
    by_rule: Dict[Tuple[ClusterVersion, bool, str], List[str]] = {}
    for name in sorted(soft_rules):
        by_rule.setdefault(soft_rules[name], []).append(name)
    for (v, cap, why), names in by_rule.items():
        b.note("%ssoft-threshold kills use %s, %s (assumed Kubernetes %s)" % (
            "" if len(by_rule) == 1 else "on %s: " % ", ".join("node/" + n for n in names),
            "min(evictionMaxPodGracePeriod, terminationGracePeriodSeconds)" if cap
            else "evictionMaxPodGracePeriod as the grace period",
            "as the kubelet's %s sets" % why if why else
            "the kubelet's rule %s" % ("from v1.32" if cap else "before v1.32"),
            v.describe()))


def _replacements(b: PlanBuilder, snapshot: Snapshot, results: Sequence[NodeResult]) -> None:
    """Each evicted pod's replacement: the kubelet sets the pod Failed at the end of its grace
    period and its controller acts then (`rules.replacements`). The pressured node carries its
    conditions' NoSchedule taints meanwhile; a daemon pod comes back on it once the kubelet admits
    it (eviction manager Admit), at once under MemoryPressure alone, else when the conditions clear."""
    by_node = {r.node: r for r in results}
    kills = []
    for i, a in enumerate(b.actions):
        if a.type == "kill" and a.rule == RULE:
            pod = snapshot.pods_by_key.get((a.namespace, a.pod))
            if pod is not None:
                kills.append(KilledPod(i, pod, float(a.at) + float(a.grace_period_seconds or 0)))
    cleared: Dict[str, float] = {}
    lifted_keys: Dict[str, List[str]] = {}
    for a in b.actions:
        if a.type == "untaint" and a.rule == RULE:
            cleared[a.node] = max(cleared.get(a.node, 0.0), float(a.at))
            lifted_keys.setdefault(a.node, []).append(a.key)
    taints = {}
    for name, r in by_node.items():
        node = snapshot.nodes[name]
        have = {(t.key, t.effect) for t in node.taints}
        extra = tuple(Taint(CONDITION_TAINT[c], "", "NoSchedule") for c in r.conditions
                      if (CONDITION_TAINT[c], "NoSchedule") not in have)
        taints[name] = node.taints + extra

    def admission(pod: Pod, at: float) -> Tuple[Optional[float], str]:
        r = by_node.get(pod.node_name)
        conds = r.conditions if r is not None else ()
        if admits(pod, conds):
            return at, ""
        held = " and ".join("%s=True" % c for c in conds)
        if r is None or r.exhausted or pod.node_name not in cleared:
            return None, ("the kubelet rejects it while node/%s has %s (eviction manager Admit), which outlasts the "
                          "plan" % (pod.node_name, held))
        return max(at, cleared[pod.node_name]), ("the kubelet rejects it while node/%s has %s (eviction manager "
                                                 "Admit)" % (pod.node_name, held))

    # the pressure taints the node lifecycle controller removes once the conditions clear
    lifted = {n: (cleared[n], tuple(keys)) for n, keys in lifted_keys.items()}
    replace_killed(b, snapshot, RULE, kills, taints, admission, DEFAULT_STARTUP, lifted)


def _node_note(b: PlanBuilder, node: Node, cfg: EvictionConfig, obs: Mapping[str, Observation],
               thresholds: Sequence[Threshold], res: NodeResult, layout_text: str) -> None:
    met = thresholds_met(thresholds, obs, False)
    parts = []
    for t in met:
        s = _describe(t, obs)
        if t.min_reclaim is not None:
            o = obs[t.signal]
            stop = threshold_quantity(t.value, o.capacity) + threshold_quantity(t.min_reclaim, o.capacity)
            s += ", min reclaim %s: evicts until >= %s%s" % (t.min_reclaim.text, _fmt_amount(t.signal, stop),
                                                            "" if t.hard else " once its grace has passed")
        parts.append(s)
    head = "node/%s: %s" % (node.name, "; ".join(parts) if parts else "no threshold met now")
    head += " [thresholds from %s; %s]" % (cfg.origin, layout_text)
    b.note(head)
    n = "%d kill%s" % (res.kills, "" if res.kills == 1 else "s")
    if res.exhausted:
        tail = n + ", then nothing evictable is left: pressure persists"
    elif res.pods_unknown:
        tail = "pods are not in the input: which ones the kubelet evicts, and whether the pressure clears, is unknown"
    elif met and res.cleared_at is not None:
        tail = n + "; every threshold (with minimum reclaim) clears at %s" % format_offset(res.cleared_at)
    else:
        tail = n
    if res.conditions:
        tail += "; conditions: %s" % ", ".join(res.conditions)
    b.note("node/%s: %s" % (node.name, tail))
