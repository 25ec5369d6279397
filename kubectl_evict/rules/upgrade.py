"""`upgrade`: a node-pool upgrade, batch by batch, as managed node pools and Cluster API roll nodes.

Models the rolling replacement of a node pool by
- GKE surge upgrades (`NodePool.UpgradeSettings`: maxSurge 1 / maxUnavailable 0 by default,
  maxSurge + maxUnavailable nodes upgraded at once; PodDisruptionBudgets respected for up to one
  hour, then the remaining pods are removed anyway),
- EKS managed node group updates (setup / scale up / upgrade / scale down phases: maxUnavailable 1 by
  default; the scale-up phase launches max(2 x Availability Zones, maxUnavailable) new nodes and
  keeps every old node from new pods (planned as the `eks.amazonaws.com/nodegroup=unschedulable:
  NoSchedule` taint); a node whose pods do not leave within 15 minutes fails the update with
  PodEvictionFailure unless it was forced; the minimal strategy is maxSurge 0),
- AKS rolling node-pool upgrades (maxSurge default 10% of the pool, rounded up; maxUnavailable 0,
  rounded up; drainTimeoutInMinutes 30: past it the upgrade fails with undrainableNodeBehavior
  Schedule, the default; with Cordon the node is quarantined and the rest upgraded),
- Cluster API MachineDeployment RollingUpdate (maxSurge 1 rounded up, maxUnavailable 0 rounded down;
  the Machine controller drains without a time limit unless nodeDrainTimeout is set, after which it
  deletes the Machine anyway; an unreachable node's terminating pods are not waited for),
- `generic`: kubectl drain node after node, waiting forever (with --drain-timeout: giving up, as
  `kubectl drain --timeout` does).
The facts and their sources (one per fact: G1-G5, E1, A1-A3, C1-C5) are in the README's `upgrade`
section (provider documentation as read in 2026-11); `tests/test_upgrade.py::PROVIDER_FACTS` pins
them. Each batch's drain is `rules/drain.py`'s, so it models the kubectl, Eviction API and
kube-scheduler releases that module names, chosen by the cluster's version as there.

Every batch is a drain with kubectl drain's semantics, done by `rules/drain.DrainRun` (filters,
Eviction API decisions, PDB waves, kube-scheduler placement through one `Placer` kept for the whole
upgrade): new nodes join (copies of the template node, no pods), up to the batch size of old nodes
are cordoned and drained, and removed. A replacement may land on a new node, on an old node of a
later batch (it is then evicted again in that batch, spending its PDB's budget again), or nowhere
yet: a Pending replacement is tried again when new nodes join (`retry_pending`).
What the drains leave on a removed node (--pod-selector, Cluster API's drain-skip label, a
StatefulSet pod Terminating on an unreachable node) is force-deleted by pod GC 40 s after the
node goes (`pod_gc`: kubernetes `pkg/controller/podgc/gc_controller.go` gcOrphaned), a forecast
`by: pod-gc`, and replaced; a replacement Pending on its required pod anti-affinity is tried again
when a deleted pod matches it (`retry_affinity`).
Times: waves are as many of kubectl's 5 s retries apart as cover `--pod-startup`
(`drain.wave_spacing`), new nodes are Ready `--node-startup` after they are created, and a batch
ends when its last replacements are Ready (`--pod-startup` after its last evictions).
"""

from __future__ import annotations

import math
from typing import Dict, List, NamedTuple, Optional, Sequence, Set, Tuple

from pyrsistent import PClass, field

from kubectl_evict.errors import InputError
from kubectl_evict.model import EMPTY_MAP, Condition, Node, Pod, Snapshot
from kubectl_evict.plan import KUBELET, POD_GC, USER, Entry, Plan
from kubectl_evict.rules.drain import DrainRun, DrainSettings
from kubectl_evict.rules.replacements import chain_ordered_ready, recreation
from kubectl_evict.rules.shutdown import (POD_GC_PERIOD, ShutdownSettings, effective_groups, grace_override,
                                          group_by_priority, group_wait, resolve_config, windows_shutdown_off)
from kubectl_evict.scheduling.disruption import pdbs_for_pod
from kubectl_evict.scheduling.plugins import interpodaffinity as ipa
from kubectl_evict.scheduling.plugins import podtopologyspread as pts
from kubectl_evict.timeutil import format_offset, format_seconds
from kubectl_evict.workloads import attach

RULE = "upgrade"
# InterPodAffinity's Filter messages: the pod's affinity, its anti-affinity, existing pods' anti-affinity
_IPA_REJECTS = (ipa.AFFINITY, ipa.ANTI_AFFINITY, ipa.EXISTING_ANTI_AFFINITY)
_KILLED = "the kubelet's graceful shutdown has killed {pods} (Failed at {at})"
HOSTNAME = "kubernetes.io/hostname"
EKS_TAINT = "eks.amazonaws.com/nodegroup"
AKS_QUARANTINE = "kubernetes.azure.com/upgrade-status"
EKS_MAX_UNAVAILABLE = 100     # updateConfig's quota (E1)
# Cluster API's drain of an unreachable node (Ready Unknown): grace period and skip-wait, seconds (C3)
CAPI_UNREACHABLE_SECONDS = 1
CAPI_DRAIN_LABEL = ("cluster.x-k8s.io/drain", "skip")   # PodDrainLabel: the drain leaves such a pod
# kube-controller-manager's pod GC (`pkg/controller/podgc/gc_controller.go` gcOrphaned): each pass
# (every gcCheckPeriod, 20 s) queues the nodes its pods name that the node informer no longer has,
# for quarantineTime (40 s); a pass after that GETs the node and, when it is NotFound, marks each
# pod bound to it Failed (DisruptionTarget, reason DeletionByPodGC) and deletes it with grace 0. So a
# removed node's pods are force-deleted 40 s to 80 s after the node goes: the plan says 40 s.
POD_GC_QUARANTINE = 40
# What the drain leaves on a node that the upgrade then removes, for pod GC: pods the drain did
# not select (--pod-selector) or that Cluster API's drain skips (cluster.x-k8s.io/drain=skip), and
# StatefulSet pods that stay Terminating on an unreachable node (their replacement, same name,
# waits for them to be gone). DaemonSet and mirror pods go with their node too, and nothing
# replaces them elsewhere: they stay `skipped` without an action.
GC_SKIPPED = ("not-selected", "drain-label")
GC_SHORT = ("waits-for-old-pod",)
# Taints a component puts on one existing node for its state, which a node newly created from
# the pool's template does not carry: cloud-provider `api/well_known_taints.go` (uninitialized,
# removed once the cloud controller has initialized the node; shutdown), cluster-autoscaler
# `utils/taints/taints.go` (a node it is about to delete, or may delete), Karpenter (v1
# `karpenter.sh/disrupted`, v1beta1 `karpenter.sh/disruption`). The node.kubernetes.io/ ones
# (conditions, unschedulable, out-of-service) and EKS's upgrade taint go by prefix and key below.
NODE_STATE_TAINTS = frozenset({
    "node.cloudprovider.kubernetes.io/uninitialized", "node.cloudprovider.kubernetes.io/shutdown",
    "ToBeDeletedByClusterAutoscaler", "DeletionCandidateOfClusterAutoscaler",
    "karpenter.sh/disrupted", "karpenter.sh/disruption"})


class Provider(NamedTuple):
    """How one kind of node pool rolls its nodes."""
    name: str
    title: str                        # as the verdict names it
    max_surge: Optional[str]          # default ("1", "10%"); None: EKS's max(2 x zones, maxUnavailable)
    max_unavailable: str
    drain_timeout: Optional[float]    # seconds the provider waits on one node's drain; None: forever
    on_timeout: str                   # "force": remove the pods anyway; "fail": the upgrade fails
    unavailable_rounds_down: bool     # a maxUnavailable percentage (Cluster API rounds it down)
    taints_pool_first: bool           # EKS taints every old node NoSchedule before draining any
    timeout_name: str                 # the provider's own name for the timeout
    after_drain: float = 0.0          # seconds between a node's last eviction and its removal
    os_shutdown: bool = False         # deleting the VM shuts its OS down (the kubelet's graceful shutdown runs)


PROVIDERS: Dict[str, Provider] = {
    "generic": Provider("generic", "the upgrade", "1", "0", None, "fail", False, False, "--drain-timeout"),
    "gke": Provider("gke", "GKE", "1", "0", 3600.0, "force", False, False, "the PDB timeout", os_shutdown=True),
    "eks": Provider("eks", "EKS", None, "1", 900.0, "fail", False, True, "the drain timeout", 60.0, os_shutdown=True),
    "aks": Provider("aks", "AKS", "10%", "0", 1800.0, "fail", False, False, "drainTimeoutInMinutes"),
    "capi": Provider("capi", "Cluster API", "1", "0", None, "force", True, False, "nodeDrainTimeout"),
}


def parse_count(flag: str, text: str) -> Tuple[int, bool]:
    """`N` or `N%` (as maxSurge / maxUnavailable take them): (value, is_percent)."""
    t = text.strip()
    pct = t.endswith("%")
    num = t[:-1] if pct else t
    if not num.isdigit():
        raise InputError("%r: a whole number of nodes or a percentage of the pool (5, 10%%)" % text, field=flag)
    value = int(num)
    if pct and value > 100:
        raise InputError("%r: a percentage of the pool is at most 100%%" % text, field=flag)
    return value, pct


def resolve_count(flag: str, text: str, pool: int, round_down: bool = False) -> int:
    """A count flag against a pool of `pool` nodes: percentages round up (down with `round_down`)."""
    value, pct = parse_count(flag, text)
    if not pct:
        return value
    exact = value * pool / 100.0
    return int(math.floor(exact)) if round_down else int(math.ceil(exact))


class UpgradeSettings(PClass):
    drain = field(type=DrainSettings, mandatory=True)   # nodes: the pool, in upgrade order
    provider = field(type=str, initial="generic")
    max_surge = field(type=int, initial=1)
    max_unavailable = field(type=int, initial=0)
    surge_like = field(type=str, initial="")
    surge_labels = field(type=tuple, initial=())        # ((key, value), ...)
    drain_timeout = field(initial=None)                 # seconds; None: the drain is waited on forever
    on_timeout = field(type=str, initial="fail")        # "force" | "fail" | "quarantine" (AKS Cordon)
    node_startup = field(initial=0.0)                   # seconds for a new node to be Ready
    taints_pool_first = field(type=bool, initial=False)


def resolve_settings(snapshot: Snapshot, drain: DrainSettings, provider: str = "generic",
                     max_surge: Optional[str] = None, max_unavailable: Optional[str] = None,
                     surge_like: str = "", surge_labels: Sequence[Tuple[str, str]] = (),
                     drain_timeout: Optional[float] = None, force: bool = False,
                     node_startup: float = 0.0, undrainable: str = "schedule") -> UpgradeSettings:
    """The provider's defaults, overridden by the flags given, against the pool `drain.nodes`.
    `undrainable` is AKS's undrainableNodeBehavior: "schedule" (the default: the upgrade fails) or
    "cordon" (the node is quarantined and the upgrade goes on)."""
    prov = PROVIDERS[provider]
    pool = len(drain.nodes)
    mu_text = max_unavailable if max_unavailable is not None else prov.max_unavailable
    mu = resolve_count("--max-unavailable", mu_text, pool, round_down=prov.unavailable_rounds_down)
    if provider == "eks":
        # UpdateConfig: maxUnavailable "The maximum number is 100"; maxUnavailablePercentage: "This
        # percentage of nodes are updated in parallel, up to 100 nodes at once" (E1: a quota of 100)
        if not parse_count("--max-unavailable", mu_text)[1] and mu > EKS_MAX_UNAVAILABLE:
            raise InputError("%s: EKS upgrades at most %d nodes at a time (updateConfig maxUnavailable)"
                             % (mu_text, EKS_MAX_UNAVAILABLE), field="--max-unavailable")
        mu = min(mu, EKS_MAX_UNAVAILABLE)
    if max_surge is not None:
        ms = resolve_count("--max-surge", max_surge, pool)
    elif prov.max_surge is None:      # EKS: up to twice the zones, or maxUnavailable if larger
        zones = {snapshot.nodes[n].zone for n in drain.nodes}
        ms = max(2 * len(zones), mu)
    else:
        ms = resolve_count("--max-surge", prov.max_surge, pool)
    if prov.unavailable_rounds_down and ms == 0 and mu == 0 and parse_count("--max-unavailable", mu_text)[0] > 0:
        # Cluster API's ResolveFenceposts (internal/controllers/machinedeployment/mdutil/util.go): a
        # maxUnavailable percentage that rounds down to 0 with maxSurge 0 proceeds one node at a time
        # (only explicit zeros for both are refused, as for a Deployment)
        mu = 1
    if provider != "eks" and ms + mu == 0:
        raise InputError("--max-surge and --max-unavailable are both 0: no node could ever be upgraded",
                         field="--max-surge")
    if provider == "eks" and mu == 0:
        raise InputError("EKS upgrades maxUnavailable nodes at a time: it must be at least 1", field="--max-unavailable")
    if surge_like:
        if surge_like not in snapshot.nodes:
            raise InputError('node "%s" not found in the snapshot' % surge_like, field="--surge-like")
    else:
        surge_like = sorted(drain.nodes)[0]
    timeout = drain_timeout if drain_timeout is not None else prov.drain_timeout
    if drain_timeout == 0:
        timeout = None               # 0: no limit, as nodeDrainTimeout and kubectl drain --timeout say
    on_timeout = prov.on_timeout
    if undrainable == "cordon":
        if provider != "aks":
            raise InputError("cordon: undrainableNodeBehavior is AKS's (--provider aks)",
                             field="--undrainable-node-behavior")
        on_timeout = "quarantine"
    if force or (provider == "capi"):
        on_timeout = "force"
    if provider == "capi":
        # Cluster API's drainer (internal/controllers/machine/drain/filters.go) skips DaemonSet and
        # static pods and evicts every other pod, with local storage or without a controller too
        # (warnings, never errors); it leaves pods labelled cluster.x-k8s.io/drain=skip
        drain = drain.set(filters=drain.filters.set(force=True, ignore_daemonsets=True, delete_emptydir_data=True,
                                                    skip_label=CAPI_DRAIN_LABEL))
    return UpgradeSettings(drain=drain, provider=provider, max_surge=ms, max_unavailable=mu, surge_like=surge_like,
                           surge_labels=tuple(surge_labels), drain_timeout=timeout, on_timeout=on_timeout,
                           node_startup=float(node_startup), taints_pool_first=prov.taints_pool_first)


def new_node(template: Node, name: str, labels: Sequence[Tuple[str, str]]) -> Node:
    """A node created like `template`: its labels (hostname its own, `labels` applied), its
    allocatable, its own taints (the pool's) but none of the node.kubernetes.io/ condition taints
    and none of the taints other components put on that one node for its state
    (`NODE_STATE_TAINTS`), Ready, schedulable."""
    lab = dict(template.labels)
    if HOSTNAME in lab:
        lab[HOSTNAME] = name
    lab.update(labels)
    taints = tuple(t for t in template.taints
                   if not t.key.startswith("node.kubernetes.io/") and t.key != EKS_TAINT
                   and t.key not in NODE_STATE_TAINTS)
    ready = Condition(type="Ready", status="True", reason="KubeletReady")
    return template.set(name=name, uid="", labels=type(EMPTY_MAP)(lab), taints=taints, unschedulable=False,
                        conditions=type(EMPTY_MAP)({"Ready": ready}), creation_timestamp=None)


class _Batch:
    __slots__ = ("number", "nodes", "joined", "after", "start", "drain_start", "end", "outcome", "stall", "waves",
                 "evicted", "forced", "blockers", "quarantined")

    def __init__(self, number: int, nodes: Sequence[str]) -> None:
        self.number = number
        self.nodes = tuple(nodes)
        self.joined: List[str] = []
        self.after: List[str] = []          # new nodes that join once the batch's nodes are removed
        self.start: Optional[float] = None
        self.drain_start: Optional[float] = None
        self.end: Optional[float] = None
        self.outcome = "not-reached"        # upgraded | forced | failed | stalled | quarantined | not-reached
        self.stall = ""                     # what holds the drain
        self.waves = 0
        self.evicted = 0
        self.forced = 0
        self.blockers: List[str] = []
        self.quarantined: List[str] = []    # AKS undrainableNodeBehavior Cordon: the nodes left cordoned


class UpgradeRun(DrainRun):
    """The drain, driven batch by batch over a snapshot that also holds the new nodes."""

    # A replacement that fits nowhere is retried once the rest of its wave has landed (a pod its
    # required pod affinity needs may land meanwhile: InterPodAffinity requeues on that Pod add),
    # as drain does; those still Pending are retried as new nodes join (`retry_pending`)
    RETRY_IN_WAVE = True

    def __init__(self, snapshot: Snapshot, settings: UpgradeSettings, now: float, command: str = "upgrade",
                 surge: bool = True) -> None:
        """`surge` False: no node joins and none is excluded up front (drain --one-at-a-time)."""
        self.up = settings
        pool = settings.drain.nodes
        self.pool = pool
        self.new_names: List[str] = []
        extended = snapshot
        if surge:
            template = snapshot.nodes[settings.surge_like]
            self.new_names = ["%s-surge-%d" % (settings.surge_like, i + 1) for i in range(len(pool))]
            taken = set(snapshot.nodes)
            for i, name in enumerate(self.new_names):
                n = i + 1
                while name in taken:
                    name = "%s-surge-%d-%d" % (settings.surge_like, i + 1, n)
                    n += 1
                self.new_names[i] = name
            for name in self.new_names:
                extended = extended.with_node(new_node(template, name, settings.surge_labels))
        excluded = list(self.new_names) + (list(pool) if settings.taints_pool_first else [])
        super().__init__(extended, settings.drain, now, command=command, excluded=excluded)
        self.placer.vanish(self.new_names)     # not created yet: the scheduler does not see them
        self.drained_stay = not surge     # drain --one-at-a-time: drained nodes stay, cordoned
        self.waiting: Set[str] = set(pool)                       # old nodes not drained yet
        self.arrivals: Dict[str, List[Tuple[Pod, Pod]]] = {}     # node -> (placed object, its pod there)
        self.batch_of: Dict[str, int] = {}
        self.evictions: Dict[Tuple[str, str], List[str]] = {}    # pod -> nodes it was evicted from
        # replacements that fit no node when their pod went, in the order they reached the
        # scheduler: pod key -> (the pod, when it was removed); retried when new nodes join
        self.pending: Dict[Tuple[str, str], Tuple[Pod, float]] = {}
        # the pending pods PodTopologySpread rejected -> their constraints' global minimums then
        self.spread_waits: Dict[Tuple[str, str], Tuple[int, ...]] = {}
        # the pending pods with required anti-affinity terms that InterPodAffinity rejected (on some
        # node): a deleted pod matching all those terms requeues them (`retry_affinity`)
        self.affinity_waits: Dict[Tuple[str, str], Pod] = {}
        # (namespace, pod, node, uid) -> (target, candidates, when it lands); a pod leaves a node once
        # ... and what it waited for ("" : its target to join)
        self.landed_later: Dict[Tuple[str, str, str, str], Tuple[str, tuple, float, str]] = {}
        self.collected: Dict[int, Tuple[int, float]] = {}        # batch -> (pods pod GC deletes, when)
        self.collected_pods: Set[Tuple[Tuple[str, str], str]] = set()   # (pod key, node) pod GC deleted it on
        # removed nodes whose VM's deletion runs the kubelet's graceful shutdown: node -> (pod key ->
        # (kill at, grace, Failed at, phase), how long the shutdown takes); `vm_shutdown`
        self.shutdowns: Dict[str, Tuple[Dict[Tuple[str, str], Tuple[float, int, float, str]], float]] = {}
        self.killed: Dict[int, Tuple[int, float, float]] = {}    # batch -> (pods killed, from, until)
        self.preempted_on: Dict[Tuple[str, str], str] = {}       # pod -> the old node its replacement was preempted on
        self.preempted: Set[Tuple[Tuple[str, str], str, str]] = set()    # (key, uid, node) of preemption victims

    # -- DrainRun's hooks ------------------------------------------------------------------------

    def node_settings(self, name: str) -> DrainSettings:
        """Cluster API's Machine controller drains a node whose Ready condition is Unknown with a
        grace period of 1 s and stops waiting for pods deleted more than 1 s ago
        (`internal/controllers/machine/machine_controller.go` drainNode: IsNodeUnreachable ->
        GracePeriodSeconds 1, SkipWaitForDeleteTimeoutSeconds 1; "Kubelet is unreachable, pods
        will never disappear"), so its evictions still go through the Eviction API (PDBs apply)
        but its drain does not wait on pods that never finish terminating."""
        if self.up.provider == "capi" and self.s.nodes[name].ready_status == "Unknown":
            return self.cfg.set(grace_period=CAPI_UNREACHABLE_SECONDS, filters=self.cfg.filters.set(
                skip_wait_for_delete_timeout=CAPI_UNREACHABLE_SECONDS))
        return self.cfg

    def pods_of(self, name: str) -> Sequence[Pod]:
        """The node's own pods (but those kube-scheduler preempted since) plus the replacements
        that landed on it in earlier batches."""
        own = [p for p in self.s.pods_on(name) if (p.key, p.uid, p.node_name) not in self.preempted]
        return own + [pod for _, pod in self.arrivals.get(name, ())]

    def land(self, pod: Pod, at: float) -> Tuple[Optional[str], str]:
        target, problem = super().land(pod, at)
        if target is None and problem and pod.key not in self.ordered_ready:
            self.pending.setdefault(pod.key, (pod, at))
            if pts.SKEW in problem:     # PodTopologySpread rejected nodes: `retry_spread` asks again
                self.spread_waits[pod.key] = pts.hard_minimums(self.placer.cs, pod)
            if pod.anti_affinity_required and any(m in problem for m in _IPA_REJECTS):
                self.affinity_waits[pod.key] = pod      # InterPodAffinity rejected nodes: `retry_affinity`
        if target is not None and target in self.waiting:
            copy = pod.set(node_name=target, uid="", phase="Running", ready=True, deletion_timestamp=None,
                           nominated_node_name="")
            self.arrivals.setdefault(target, []).append((pod, copy))
        return target, problem

    def landed_on_retry(self, pod: Pod, at: float, target: str, candidates: tuple) -> None:
        self.pending.pop(pod.key, None)
        super().landed_on_retry(pod, at, target, candidates)

    def victim(self, pod: Pod, target: Optional[str], why_not: str, at: float) -> None:
        """A pod kube-scheduler preempts leaves its node: if that is an old node not drained yet
        (its own pod, or a replacement that landed there), that node's drain no longer finds it
        there; if its own replacement lands on such a node (`target`), that node's drain evicts it
        again, as for any replacement (`land`)."""
        super().victim(pod, target, why_not, at)
        self.preempted.add((pod.key, pod.uid, pod.node_name))
        if pod.node_name in self.waiting and any(p is pod for p in self.s.pods_on(pod.node_name)):
            self.preempted_on[pod.key] = pod.node_name     # one of that node's own pods
        for name, entries in self.arrivals.items():
            kept = [(placed, copy) for placed, copy in entries if placed is not pod]
            if len(kept) < len(entries):
                entries[:] = kept
                self.preempted_on[pod.key] = name
        if target is not None and target in self.waiting:
            copy = pod.set(node_name=target, uid="", phase="Running", ready=True, deletion_timestamp=None,
                           nominated_node_name="")
            self.arrivals.setdefault(target, []).append((pod, copy))

    def remove(self, pod: Pod, wave: int, reason: str, state, spent: bool = True) -> None:
        path = self.evictions.setdefault(pod.key, [])
        gone = self.preempted_on.pop(pod.key, None) if not pod.uid else None
        if path:
            how = "pod GC deleted it on" if (pod.key, path[-1]) in self.collected_pods else "the eviction from"
            where = self.earlier(path[-1])
            if gone is not None:
                how, where = "kube-scheduler preempted it on", "node/%s" % gone
            reason = "evicted again: its replacement landed here after %s %s; %s" % (how, where, reason)
        elif gone is not None:
            reason = "its replacement landed here after kube-scheduler preempted it on node/%s; %s" % (gone, reason)
        path.append(pod.node_name)
        super().remove(pod, wave, reason, state, spent)

    def earlier(self, node: str) -> str:
        """The earlier drain a second eviction follows, as its reason names it."""
        return "node/%s (batch %d)" % (node, self.batch_of.get(node, 0))

    # -- batches -----------------------------------------------------------------------------------

    def drain_batch(self, nodes: Sequence[str], drain_start: float, wave: int) -> int:
        """Cordon and drain `nodes` from `drain_start` (wave `wave`): their pods and the replacements
        that landed on them earlier. Returns the last wave used (wave - 1 if none)."""
        self._swap_arrivals(nodes)
        self.placer.exclude(nodes)
        if self.drained_stay:
            self.cordoned.extend(nodes)
        self.offset = drain_start - wave * self.spacing
        pods: List[Pod] = []
        for name in nodes:
            self.node_stats[name]["start"] = wave
            self.node_stats[name]["start_at"] = drain_start
            if self.node_settings(name) is not self.cfg:
                self.b.note("node/%s is unreachable (Ready=Unknown): Cluster API drains it with a grace period of "
                            "%ds and stops waiting for pods deleted more than %ds ago (PDBs still apply to the "
                            "evictions)" % (name, CAPI_UNREACHABLE_SECONDS, CAPI_UNREACHABLE_SECONDS))
            pods.extend(self.filter_node(name, drain_start))
        for name in nodes:
            self.waiting.discard(name)    # a replacement let back onto it is not evicted again
        return self.run(pods, wave)

    def retry_pending(self, joined: Sequence[str], ready_at: float, wave: int, leaving: Sequence[str] = (),
                      only: Optional[Set[Tuple[str, str]]] = None, until: str = "") -> None:
        """New nodes `joined` are Ready at `ready_at`: kube-scheduler moves every unschedulable pod
        back to its active queue on a node's Add (and on its update once the not-ready taint is
        gone: `pkg/scheduler/eventhandlers.go`, addNodeToCache / updateNodeInCache ->
        MoveAllToActiveOrBackoffQueue), so the replacements that fit nowhere so far are tried again,
        in queue order (higher priority first, then the earlier created), once `leaving` (the
        batch about to drain) is cordoned. One that lands is no longer a shortfall: its action gets
        the node as `target` and `replacementAt` (when it lands), and the PDB budget its eviction
        spent comes back once it is Ready (wave `wave` + 1, the first wave after the batch's drain
        starts). `only`: the keys of the pending pods to try (None: all); `until`: what they waited
        for, in words ("": their node to join)."""
        if not self.pending or not joined:
            return
        self.placer.exclude(leaving)
        queue = sorted(enumerate(self.pending.values()), key=lambda t: (-t[1][0].priority, t[1][1], t[0]))
        for _, (pod, removed_at) in queue:
            if only is not None and pod.key not in only:
                continue
            if not self.placer.fits_any(pod, joined):
                continue          # only the new nodes changed: it still fits nowhere
            self.sts_pending.discard(pod.key)
            target, _ = self.land(pod, ready_at)
            candidates = self.candidates.pop(pod.key, ())
            if target is None:
                continue
            del self.pending[pod.key]
            self.landed_later[(pod.namespace, pod.name, pod.node_name, pod.uid)] = (target, candidates, ready_at,
                                                                                    until)
            if pod.node_name in self.node_stats:
                self.node_stats[pod.node_name]["short"] -= 1
            pdbs = pdbs_for_pod(self.s, pod)
            state = self.budgets.get((pdbs[0].namespace, pdbs[0].name)) if len(pdbs) == 1 else None
            if state is not None:
                state.landed_later(pod, removed_at, wave + 1)

    def retry_spread(self, at: float, wave: int, gone: Sequence[str]) -> None:
        """Nodes were removed at `at`: their topology domains are gone (the scheduler's snapshot
        lists existing nodes only), which can lower no skew but can raise the global minimum, so
        a replacement Pending on its spread constraints may fit now. kube-scheduler requeues the
        pods PodTopologySpread rejected on a Node delete (podtopologyspread/plugin.go
        EventsToRegister: Node Add|Delete|UpdateNodeLabel). Those are tried again, on every
        candidate node (`retry_pending`), and land at `at`."""
        # Only the pods PodTopologySpread rejected (its events requeue no other: the QueueingHint
        # runs for the plugins that rejected the pod), and of those only the ones for which the
        # removal changed what the Filter reads: a global minimum rose (a domain went) or a domain
        # lost counted pods. Otherwise every node rejects it as before, and a try reads them all.
        cs = self.placer.cs
        spread = set()
        for k, (pod, _) in self.pending.items():
            before = self.spread_waits.get(k)
            if before is None:
                continue
            now = pts.hard_minimums(cs, pod)
            self.spread_waits[k] = now
            if any(n > b for n, b in zip(now, before)) or pts.counted_on(cs, pod, gone):
                spread.add(k)
        if spread:
            until = "%s %s removed at %s (its topology domains no longer count)" % (
                ", ".join("node/" + n for n in gone), "is" if len(gone) == 1 else "are", format_offset(at))
            candidates = [n for n in self.placer.names if n not in self.placer.excluded]
            self.retry_pending(candidates, at, wave, only=spread, until=until)

    def retry_affinity(self, deleted: Sequence[Tuple[float, Pod]], wave: int, leaving: Sequence[str] = (),
                       how: str = "pod GC deletes {pods} at {at}") -> None:
        """Pods are deleted (`deleted`: when each goes, and the pod): the pods still bound to
        removed nodes (pod GC, `pod_gc`; or the kubelet's shutdown kills), or a batch's evicted
        pods once it is done. A removed node's pods already count for no pod (anti-)affinity (the
        scheduler's snapshot lists existing nodes only), but InterPodAffinity does not requeue on a
        Node delete: its events are Pod Add | UpdatePodLabel | Delete and Node Add | UpdateNodeLabel
        | UpdateNodeTaint, and on a Pod delete its QueueingHint queues a rejected pod only when the
        deleted pod matches all of that pod's required anti-affinity terms (`interpodaffinity/
        plugin.go` EventsToRegister, isSchedulableAfterPodChange, podMatchesAllAffinityTerms). So
        the Pending replacements InterPodAffinity rejected are tried again, on every candidate
        node, at the first such deletion, in time order; the others wait for another event. `how`
        says what the pods waited for ({pods}, {at}, {is_are})."""
        waits = self.affinity_waits
        if not waits or not deleted:
            return
        cs = self.placer.cs
        deleted = sorted(deleted, key=lambda t: t[0])
        first: Dict[float, Tuple[Set[Tuple[str, str]], List[str]]] = {}
        # the hint reads only the pod's namespace and anti terms: one test per such pair
        hits: Dict[tuple, Optional[Tuple[float, Pod]]] = {}
        for k in list(waits):
            if k not in self.pending:
                del waits[k]             # landed since
                continue
            pod = waits[k]
            sig = (pod.namespace, pod.anti_affinity_required)
            if sig not in hits:
                hits[sig] = next(((at, gone) for at, gone in deleted if all(
                    ipa.existing_term_matches(cs, t, pod.namespace, gone) for t in pod.anti_affinity_required)), None)
            hit = hits[sig]
            if hit is not None:
                keys, names = first.setdefault(hit[0], (set(), []))
                keys.add(k)
                names.append("%s/%s" % (hit[1].namespace, hit[1].name))
        for at in sorted(first):
            keys, names = first[at]
            shown = sorted(set(names))
            until = how.format(pods=", ".join(shown[:3]) + (" and %d more" % (len(shown) - 3) if len(shown) > 3
                                                            else ""), at=format_offset(at),
                               is_are="is" if len(shown) == 1 else "are") + \
                " (matching its required pod anti-affinity)"
            self.placer.exclude(leaving)
            candidates = [n for n in self.placer.names if n not in self.placer.excluded]
            self.retry_pending(candidates, at, wave, only=keys, until=until)

    def record_landed_later(self) -> None:
        """The plan's record of the Pending replacements that landed when new nodes joined (one
        pass over the actions and the shortfalls, at the end)."""
        if not self.landed_later:
            return
        done = self.landed_later
        for i, a in enumerate(self.b.actions):
            if a.type not in ("evict", "delete") or a.target is not None:
                continue
            hit = done.get((a.namespace, a.pod, a.node, a.uid))
            if hit is None:
                continue
            target, candidates, ready_at, until = hit
            reason = a.reason.replace("; its replacement fits no node", "")
            if until:
                reason = "%s; its replacement stays Pending until %s, then lands on node/%s" % (reason, until, target)
            else:
                reason = "%s; its replacement stays Pending until node/%s joins and is Ready at %s, then lands " \
                         "there" % (reason, target, format_offset(ready_at))
            self.b.actions[i] = a.set(target=target, candidates=candidates, replaced_at=ready_at, reason=reason)
        keys = {k[:3] for k in done}
        self.b.shortfalls = [e for e in self.b.shortfalls
                             if not (e.code == "no-node-fits" and (e.namespace, e.pod, e.node) in keys)]

    def batches(self) -> List[_Batch]:
        up = self.up
        size = up.max_unavailable if up.provider == "eks" else up.max_surge + up.max_unavailable
        size = max(1, size)
        out = []
        for i in range(0, len(self.pool), size):
            out.append(_Batch(len(out) + 1, self.pool[i:i + size]))
        for b in out:
            for n in b.nodes:
                self.batch_of[n] = b.number
        return out

    def plan(self) -> Plan:
        up = self.up
        ps = float(self.cfg.pod_startup)
        batches = self.batches()
        joined = 0
        removed = 0
        t = 0.0
        wave = 0
        stopped: Optional[_Batch] = None
        # pod GC's work: (nodes removed, when, by which batch), done at the first batch whose drain
        # starts once pod GC deletes their pods (a quick batch may come and go in between)
        due: List[Tuple[Sequence[str], float, int, float]] = []    # ... and when the first replacement is due
        if up.taints_pool_first and batches:
            self.b.batch = 1
            for name in self.pool:
                self.b.action("taint", by=USER, node=name, key=EKS_TAINT, value="unschedulable", effect="NoSchedule",
                              at=0, rule=RULE, reason="EKS scale-up phase: every node without the new launch template's "
                              "labels is tainted so that no pod is scheduled onto a node about to be upgraded")
        for batch in batches:
            self.b.batch = batch.number
            batch.start = t
            # new nodes: up to (old nodes removed so far) + maxSurge, never more than the pool had
            want = max(joined, min(len(self.pool), removed + up.max_surge))
            new = self.new_names[joined:want]
            joined = want
            batch.joined = list(new)
            self.placer.settle()               # what earlier batches evicted is gone
            if new:
                self.placer.include(new)
            drain_start = t + (up.node_startup if new else 0.0)
            batch.drain_start = drain_start
            self.offset = drain_start - wave * self.spacing
            self.retry_pending(new, drain_start, wave, batch.nodes)
            while due and due[0][3] <= drain_start:
                self.pod_gc(*due.pop(0)[:3], wave=wave, leaving=batch.nodes)
            first_block = len(self.b.blocked)
            limit = up.drain_timeout
            # a provider that fails the upgrade (or quarantines the node) at its timeout stops the
            # drain there: the PDB waves after it never come (a forcing one deletes those pods, below)
            self.deadline = drain_start + limit if limit is not None and up.on_timeout != "force" else None
            del self.cut_off[:]
            first_action = len(self.b.actions)
            last = self.drain_batch(batch.nodes, drain_start, wave)
            batch.evicted = sum(self.node_stats[n]["evicted"] for n in batch.nodes)
            batch.waves = last - wave + 1 if last >= wave else 0
            end = drain_start
            if last >= wave:
                # the batch ends once its last replacements are Ready: --pod-startup after the last
                # wave, an OrderedReady StatefulSet's once created (`ready_by_node`: processReplica
                # creates ordinal N only when every lower one is Running and Ready)
                ready = self.ready_by_node(first_action)
                end = max([self.at(last) + ps] + [ready[n] for n in batch.nodes if n in ready])
            held = [e for e in self.b.blocked[first_block:] if e.node in batch.nodes]
            late = list(self.cut_off)
            if limit is not None:
                late += [(p, at) for n in batch.nodes for p, at in self.node_stats[n].get("evictions", ())
                         if at - drain_start >= limit]
            if held or late:
                batch.blockers = self._blockers(held, late)
                batch.stall = ", ".join(batch.blockers)
                if limit is None:
                    batch.outcome = "stalled"
                    stopped = batch
                elif up.on_timeout in ("fail", "quarantine"):
                    batch.end = drain_start + limit
                    for p, at in late:
                        self.block(p, "planned for %s, but %s gives up on node/%s at %s (%s)" % (
                            format_offset(at), self._who(), p.node_name, format_offset(drain_start + limit),
                            self._timeout_text()), "timeout")
                    if up.on_timeout == "fail":
                        batch.outcome = "failed"
                        stopped = batch
                    else:
                        end = self._quarantine(batch, held, late, drain_start + limit)
                else:
                    batch.outcome = "forced"
                    force_at = drain_start + limit
                    # Cluster API deletes the Machine and its Node at the timeout; pod GC deletes
                    # the pods left on it once the node is gone (the next batch need not wait)
                    gc = up.provider == "capi"
                    gone_at = force_at + POD_GC_QUARANTINE if gc else force_at
                    if gc:
                        self.placer.vanish(batch.nodes)     # gone before pod GC deletes their pods
                    del_end, batch.forced = self._force(held, gone_at)
                    if late:
                        # the provider does not wait for the later PDB waves: those pods are deleted
                        # at the timeout too, and the batch ends when the waves before it are done
                        batch.forced += self._force_late(late, gone_at)
                        batch.evicted -= len(late)
                        on_time = {at for n in batch.nodes for p, at in self.node_stats[n].get("evictions", ())
                                   if at - drain_start < limit}
                        batch.waves = len(on_time)
                        end = max([at + ps for at in on_time] + [force_at if gc else del_end])
                    else:
                        end = max(end, force_at if gc else del_end)
                    if gc and batch.forced:
                        self.collected[batch.number] = (batch.forced, gone_at)
            if stopped is not None:
                break
            if batch.outcome == "not-reached":
                batch.outcome = "upgraded"
            end += PROVIDERS[up.provider].after_drain    # EKS: cordoned, then 60 s before termination
            batch.end = end
            removed += len(batch.nodes)
            wave = max(wave, last + 1)
            if self.affinity_waits:
                # the pods this batch evicted are gone by its end (kubectl drain waits for them): a
                # Pending pod whose anti-affinity one of them matched is requeued on its delete (a
                # budget it spent comes back from the next batch's waves, as at pod GC)
                self.placer.settle()
                self.retry_affinity([(min(at, end), p) for n in batch.nodes
                                     for p, at in self.node_stats[n].get("evictions", ())], wave,
                                    how="{pods} {is_are} evicted at {at} and gone")
            t = end
            if not self.drained_stay:
                gone = [n for n in batch.nodes if n not in batch.quarantined]
                self.placer.vanish(gone)     # removed at `end`: out of the scheduler's snapshot
                self.retry_spread(end, wave, gone)
                first = end + POD_GC_QUARANTINE
                for name in gone:
                    sched = self.vm_shutdown(name, end)
                    if sched is not None:
                        self.shutdowns[name] = sched
                        first = min([first] + [k[2] for k in sched[0].values()])
                due.append((gone, end, batch.number, first))
        self.b.batch = None
        self.finish = batches[-1].end if batches else 0.0
        if stopped is None and batches and joined < len(self.pool):
            # no surge left for the last removals (max surge 0, EKS's minimal strategy): their
            # replacements join once they are gone, so the pool ends with one new node per old one;
            # the upgrade is done once they are Ready (a MachineDeployment's rollout once its new
            # Machines are available) and the replacements waiting for them are Ready too
            batches[-1].after = self.new_names[joined:len(self.pool)]
            self.placer.settle()
            self.placer.include(batches[-1].after)
            self.b.batch = batches[-1].number
            ready_at = (batches[-1].end or 0.0) + up.node_startup
            before = len(self.landed_later)
            self.retry_pending(batches[-1].after, ready_at, wave)
            self.finish = ready_at + (ps if len(self.landed_later) > before else 0.0)
            self.b.batch = None
        for job in due:
            self.pod_gc(*job[:3], wave=wave)
        self.chain_statefulsets()
        self.record_landed_later()
        self.inputs_missing()
        self._report(batches, stopped)
        self.b.extra["budgets"] = self.budgets_extra()
        return attach(self.s, self.b.build(), ps)

    def vm_shutdown(self, name: str, at: float) -> Optional[Tuple[Dict[Tuple[str, str], Tuple[float, int, float, str]],
                                                                 float]]:
        """The kubelet's graceful node shutdown on node `name`, whose VM the provider deletes at `at`:
        for each pod still running there, (kill at, grace, Failed at, phase), and the shutdown's
        length; None when none runs. GKE and EKS delete the VM with a guest OS shutdown (Compute
        Engine "When stopping or deleting an instance, Compute Engine allows a short time for the
        guest OS to fully shut down", compute/docs/instances/graceful-shutdown-overview; EC2's
        default terminate is a "normal instance shutdown with attempted graceful OS shutdown",
        AWSEC2/latest/UserGuide/instance-terminate-methods), which the kubelet's shutdown manager
        sees through its systemd inhibitor lock. With shutdownGracePeriod (or ByPodPriority) set in
        the node's kubelet configuration it then kills the pods group by group, lowest priority
        first (`pkg/kubelet/nodeshutdown` killPods: the shutdown rule's `effective_groups`,
        `group_by_priority`, `grace_override`, `group_wait`); each ends Failed (reason Terminated),
        and its controller replaces it then. Whether AKS's and Cluster API's infrastructure shut the
        OS down is not documented where we could read it: a note says so."""
        node = self.s.nodes.get(name)
        if node is None or node.ready_status != "True" or name not in self.s.kubelet_configs:
            return None         # no kubelet left to act, or its configuration is not in the input
        cfg = resolve_config(self.s, ShutdownSettings(nodes=(name,)), name)
        groups = effective_groups(cfg)
        if groups is None or windows_shutdown_off(self.s, node, cfg):
            return None
        left: List[Pod] = []
        for e in self.b.skipped:
            if e.node == name and e.pod and e.code != "completed":
                pod = self._pod(e.namespace, e.pod, e.node)
                if pod is not None and not pod.is_terminal and all(p.key != pod.key for p in left):
                    left.append(pod)
        if not left:
            return None
        if not PROVIDERS[self.up.provider].os_shutdown:
            self.b.note("node/%s's kubelet has graceful node shutdown configured (%s) and %s still runs there when "
                        "the upgrade removes it: whether %s shuts the VM's OS down (so that the kubelet kills %s "
                        "by priority before pod GC) is not planned" % (
                            name, cfg.source, _plural(len(left), "pod", "pods"), PROVIDERS[self.up.provider].title,
                            "it" if len(left) == 1 else "them"))
            return None
        left.sort(key=lambda p: (p.namespace, p.name))
        out: Dict[Tuple[str, str], Tuple[float, int, float, str]] = {}
        t = 0.0
        n = 0
        for g, idxs in zip(groups, group_by_priority(groups, [p.priority for p in left])):
            if not idxs:
                continue        # a group with no pods takes no time
            n += 1
            graces = []
            for j in idxs:
                grace = grace_override(g.seconds, left[j].termination_grace_period)
                graces.append(grace)
                # the pod worker gives a 0 grace at least 1 s: Failed then at the latest
                out[left[j].key] = (at + t, grace, at + t + max(grace, 1),
                                    "phase %d, %ds" % (n, g.seconds))
            t += group_wait(g.seconds, graces)
        return out, t

    def pod_gc(self, removed: Sequence[str], removed_at: float, number: int, wave: int,
               leaving: Sequence[str] = ()) -> None:
        """Nodes `removed` (by batch `number`) are gone at `removed_at`: kube-controller-manager's pod
        GC force-deletes the pods still bound to them (`GC_SKIPPED`, `GC_SHORT`) `POD_GC_QUARANTINE`
        seconds later, a forecast (`by: pod-gc`), not something the operator does. Their controllers
        then replace them: a StatefulSet, whose pod kept its name while it stayed Terminating, creates
        it at last. The replacements are placed before the drain of the first batch (`leaving`,
        cordoned by then) that starts at or after the deletion, with the nodes drained before it
        out of reach, as they are by then.
        A deleted pod that was Ready leaves its PodDisruptionBudget's healthy pods (a plain DELETE,
        as a preemption victim's) from that batch's first wave (`wave`) until its replacement is
        Ready a wave later (`BudgetState.preempted`); an
        evicted StatefulSet pod gives back the disruption it spent once its replacement lands
        (`BudgetState.landed_later`)."""
        gone = set(removed)
        if not gone:
            return
        # the VMs' graceful shutdowns (`vm_shutdown`): what their kubelets kill, and when pod GC
        # then deletes the Failed pods (the Node object goes once its VM is off)
        kills: Dict[Tuple[str, str, str], Tuple[float, int, float, str]] = {}
        gc_at: Dict[str, float] = {}
        for name in removed:
            sched, total = self.shutdowns.get(name, ({}, 0.0))
            kills.update({key + (name,): k for key, k in sched.items()})
            gc_at[name] = removed_at + total + POD_GC_QUARANTINE
        if kills:
            self._kill_with_node(gone, kills, removed_at, number)

        def left(e: Entry) -> bool:
            if e.node not in gone or not e.pod:
                return False
            pod = self._pod(e.namespace, e.pod, e.node)
            # a DaemonSet's or a static pod goes with its node, replaced on each node by its own
            return pod is not None and pod.controller_kind != "DaemonSet" and not pod.is_mirror

        skipped = [e for e in self.b.skipped if e.code in GC_SKIPPED and left(e)]
        short = [e for e in self.b.shortfalls if e.code in GC_SHORT and left(e)]
        at = removed_at + POD_GC_QUARANTINE
        if self.affinity_waits:
            # every pod still bound to a removed node goes (DaemonSet and static pods too): pod GC's
            # deletions come before the replacements they make room for are created
            self.retry_affinity(self._left_on(gone.difference(self.shutdowns), skipped + short, at), wave, leaving)
        if not skipped and not short:
            if self.affinity_waits and kills:
                self.retry_affinity(self._killed_pods(kills), wave, leaving, _KILLED)
            return
        ps = float(self.cfg.pod_startup)
        # the drain did leave the skipped ones (they stay `skipped`, saying what follows); a
        # StatefulSet pod's replacement no longer waits forever
        ids = {id(e) for e in skipped}

        def after(e: Entry) -> str:
            kill = kills.get((e.namespace, e.pod, e.node))
            if kill is None:
                return "; the upgrade removes node/%s at %s, and pod GC deletes it at %s" % (
                    e.node, format_offset(removed_at), format_offset(at))
            return ("; the upgrade deletes node/%s's VM at %s, whose kubelet's graceful shutdown kills it at %s, and "
                    "pod GC deletes the Failed pod at %s" % (e.node, format_offset(removed_at), format_offset(kill[0]),
                                                             format_offset(gc_at[e.node])))
        self.b.skipped = [e.set(reason=e.reason.replace(" leaves it running", " leaves it") + after(e))
                          if id(e) in ids else e for e in self.b.skipped]
        ids = {id(e) for e in short}
        self.b.shortfalls = [e for e in self.b.shortfalls if id(e) not in ids]
        self.placer.exclude(leaving)
        # a node whose VM shuts down is still there, cordoned, until the VM is off: the kubelet's
        # kills end before then, so their replacements see it (`node(s) were unschedulable`)
        shutting = [n for n in removed if n in self.shutdowns]
        if shutting:
            self.placer.include(shutting)
            self.placer.exclude(shutting)
        saved, self.b.batch, self.wave = self.b.batch, number, wave
        wanted = {(e.namespace, e.pod, e.node) for e in short}
        evicted_at = {(a.namespace, a.pod, a.node, a.uid): a for a in (self.b.actions if wanted else ())
                      if a.type == "evict" and (a.namespace, a.pod, a.node) in wanted}
        rows: List[Tuple[int, Optional[int]]] = []     # (pod GC's delete, the pod's eviction) of StatefulSet pods
        def gc_text(node: str, gone_at: float, how: str) -> str:
            return ("node/%s is removed at %s%s and pod GC force-deletes the pods bound to a node that no longer "
                    "exists once its %ds quarantine is over (a pass every %ds: %ds to %ds after the removal; grace 0, "
                    "no Eviction API, PodDisruptionBudget not consulted)" % (
                        node, format_offset(gone_at), (" (%s)" % how) if how else "", POD_GC_QUARANTINE,
                        POD_GC_PERIOD, POD_GC_QUARANTINE, POD_GC_QUARANTINE + 2 * POD_GC_PERIOD))

        def killed(e: Entry) -> Optional[Tuple[float, int, float, str]]:
            return kills.get((e.namespace, e.pod, e.node)) if e.code in GC_SKIPPED else None

        # replacements come in the order their pods go: Failed at the end of their kill, or
        # deleted by pod GC (then by priority, as kube-scheduler's queue takes them)
        for e in sorted(skipped + short, key=lambda e: ((killed(e) or (0, 0, at))[2], -self._priority(e),
                                                         e.namespace, e.pod)):
            pod = self._pod(e.namespace, e.pod, e.node)
            if pod is None:
                continue
            kill = killed(e)
            goes = kill[2] if kill is not None else at      # when its controller replaces it
            how = ("killed by the kubelet at %s (Failed at %s)" % (format_offset(kill[0]), format_offset(kill[2]))
                   if kill is not None else "deleted by pod GC at %s" % format_offset(at))
            shorts = len(self.b.shortfalls)
            evict = evicted_at.get((pod.namespace, pod.name, pod.node_name, pod.uid))
            j = self.b.actions.index(evict) if evict is not None else None
            if e.code == "not-selected":
                why = "kubectl drain left it (not selected by --pod-selector)"
            elif e.code == "drain-label":
                why = "Cluster API's drain left it (labelled %s=%s)" % CAPI_DRAIN_LABEL
            elif evict is not None:
                why = "evicted at %s, it stayed Terminating on the unreachable node" % format_offset(evict.at)
            else:
                why = "it stayed Terminating on the unreachable node"
            gc_reason = gc_text(e.node, removed_at, "")
            if kill is not None:
                reason = ("%s; %s deletes node/%s's VM at %s with an OS shutdown, and the kubelet's graceful node "
                          "shutdown kills it (%s: grace %ds%s); it ends Failed (reason Terminated) at %s, when its "
                          "controller replaces it" % (
                              why, PROVIDERS[self.up.provider].title, e.node, format_offset(removed_at), kill[3],
                              kill[1], " (asks for %ds)" % pod.termination_grace_period
                              if kill[1] < pod.termination_grace_period else "", format_offset(kill[2])))
            else:
                reason = "%s; %s" % (why, gc_reason)
            self.placer.terminate([pod])
            target, problem = self.land(pod, goes)
            candidates = self.candidates.pop(pod.key, ())
            rec = recreation(self.s, pod)
            if not rec.elsewhere:
                reason += "; " + rec.why
            elif problem and pod.key in self.ordered_ready:
                reason += "; its replacement is never created"
                self.short(pod, "ordered-ready", "%s, but its replacement is never created: %s" % (how, problem))
            elif problem:
                reason += "; its replacement fits no node"
                self.short(pod, "no-node-fits", "%s, but its replacement has nowhere to go: %s" % (how, problem))
            elif pod.controller_kind == "StatefulSet":
                reason += "; the StatefulSet then creates it again (same name) on node/%s" % target
            if len(self.b.shortfalls) > shorts and e.code in GC_SKIPPED:
                # a pod is in at most one of blocked, shortfall and skipped: it goes after all
                self.b.skipped = [x for x in self.b.skipped if (x.namespace, x.pod, x.node, x.code) !=
                                  (e.namespace, e.pod, e.node, e.code)]
            if e.code in GC_SKIPPED:
                self.evictions.setdefault(pod.key, []).append(pod.node_name)
                self.collected_pods.add((pod.key, pod.node_name))
            elif evict is not None and j is not None and target is not None:
                # the eviction's replacement, created once pod GC has deleted the old pod
                self.b.actions[j] = evict.set(
                    target=target, candidates=candidates, replaced_at=at,
                    reason="%s; it stays Terminating on the unreachable node until pod GC deletes it at %s (node/%s "
                           "is removed at %s), then the StatefulSet creates it again on node/%s" % (
                               evict.reason, format_offset(at), e.node, format_offset(removed_at), target))
            if kill is not None:
                self.b.action("kill", by=KUBELET, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=e.node,
                              at=kill[0], grace_period_seconds=kill[1], target=target, candidates=candidates,
                              replaced_at=kill[2] if target is not None else None, rule=RULE, reason=reason)
                placed = len(self.b.actions) - 1
                self.b.action("delete", by=POD_GC, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=e.node,
                              at=gc_at[e.node], grace_period_seconds=0, force=True, rule=RULE,
                              reason="the Failed pod the kubelet killed at %s (its controller replaced it when it "
                                     "failed): %s" % (format_offset(kill[0]), gc_text(
                                         e.node, gc_at[e.node] - POD_GC_QUARANTINE,
                                         "once its VM is off and its Node object is deleted")))
            else:
                self.b.action("delete", by=POD_GC, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=e.node,
                              at=at, grace_period_seconds=0, force=True, target=target, candidates=candidates,
                              rule=RULE, reason=reason)
                placed = len(self.b.actions) - 1
            if target is not None and pod.controller_kind == "StatefulSet":
                rows.append((placed, j))
            when = gc_at[e.node] if kill is not None else at
            self.collected[number] = (self.collected.get(number, (0, when))[0] + 1, when)
            pdbs = pdbs_for_pod(self.s, pod)
            state = self.budget(pdbs[0]) if len(pdbs) == 1 else None
            if state is None or state.budget.unknown or not rec.elsewhere:
                continue
            if evict is not None:
                if target is not None:
                    state.landed_later(pod, float(evict.at), wave + 1)
            else:
                state.preempted(pod, wave, kill[0] if kill is not None else at, target is not None,
                                "has nowhere to go" if problem else "is never created",
                                how="killed by the kubelet" if kill is not None else "deleted by pod GC")
        # an OrderedReady StatefulSet creates the ordinals pod GC freed one by one, each once the
        # lower one is Running and Ready (processReplica); the eviction says when, too
        if shutting:
            self.placer.vanish(shutting)      # the VMs are off and their Node objects deleted
            if self.affinity_waits and kills:
                # a killed pod ends Failed, which the scheduler's informer drops (a Pod delete to it)
                self.retry_affinity(self._killed_pods(kills), wave, leaving, _KILLED)
        chain_ordered_ready(self.b, self.s, [i for i, _ in rows], ps)
        for i, j in rows:
            later = self.b.actions[i].replaced_at
            if later is not None and j is not None:
                self.b.actions[j] = self.b.actions[j].set(replaced_at=later)
        self.b.batch = saved

    def _kill_with_node(self, gone: Set[str], kills: Dict[Tuple[str, str, str], Tuple[float, int, float, str]],
                        removed_at: float, number: int) -> None:
        """The graceful shutdown's kills of the DaemonSet and static pods on the nodes `gone` (batch
        `number`): nothing replaces them elsewhere (their controller runs one per node, the kubelet
        its static pods; the plan starts no DaemonSet pod on a new node), so they stay `skipped`
        without an action, their reason saying when the kubelet kills them. The other pods' kills
        come with their replacements (`pod_gc`). Records the batch's kills for its line."""
        told = {}
        for (namespace, name, node), kill in kills.items():
            pod = self._pod(namespace, name, node)
            if pod is not None and node in gone and (pod.controller_kind == "DaemonSet" or pod.is_mirror):
                told[(namespace, name, node)] = "; %s deletes node/%s's VM at %s and its kubelet's graceful shutdown " \
                    "kills it at %s (%s: grace %ds)" % (PROVIDERS[self.up.provider].title, node,
                                                        format_offset(removed_at), format_offset(kill[0]), kill[3],
                                                        kill[1])
        if told:
            # every batch passes here and `skipped` grows with the batches: test the node first
            # (every key of `told` is on a node in `gone`), build a key only for those
            skipped = list(self.b.skipped)
            for i, e in enumerate(skipped):
                if e.node in gone:
                    extra = told.get((e.namespace, e.pod, e.node))
                    if extra is not None:
                        skipped[i] = e.set(reason=e.reason + extra)
            self.b.skipped = skipped
        count, first, last = self.killed.get(number, (0, float("inf"), 0.0))
        self.killed[number] = (count + len(kills), min([first] + [k[0] for k in kills.values()]),
                               max([last] + [k[2] for k in kills.values()]))

    def _left_on(self, nodes: Set[str], entries: Sequence[Entry], at: float) -> List[Tuple[float, Pod]]:
        """The pods still bound to `nodes` that pod GC deletes at `at`, for `retry_affinity`: the
        ones the drains left (`entries`, on any removed node) and the DaemonSet and static pods,
        which go with their node (terminal pods aside: the scheduler does not see them)."""
        out = [(at, p) for p in (self._pod(e.namespace, e.pod, e.node) for e in entries if e.node in nodes)
               if p is not None]
        for name in nodes:
            out.extend((at, p) for p in self.s.pods_on(name)
                       if (p.controller_kind == "DaemonSet" or p.is_mirror) and not p.is_terminal)
        return out

    def _killed_pods(self, kills: Dict[Tuple[str, str, str], Tuple[float, int, float, str]]) -> List[Tuple[float, Pod]]:
        """The pods the VMs' graceful shutdowns kill, each at the end of its kill (Failed then)."""
        out = []
        for (namespace, name, node), kill in kills.items():
            pod = self._pod(namespace, name, node)
            if pod is not None:
                out.append((kill[2], pod))
        return out

    def _priority(self, e: Entry) -> int:
        pod = self._pod(e.namespace, e.pod, e.node)
        return pod.priority if pod is not None else 0

    def _quarantine(self, batch: _Batch, held: Sequence, late: Sequence, at: float) -> float:
        """AKS undrainableNodeBehavior Cordon: the nodes that did not drain stay cordoned, labelled
        Quarantined, with the pods that held them (a surge node is kept in each one's place), and
        the upgrade goes on. Returns when the batch ends."""
        batch.outcome = "quarantined"
        stuck = {e.node for e in held} | {p.node_name for p, _ in late}
        batch.quarantined = [n for n in batch.nodes if n in stuck]
        for name in batch.quarantined:
            self.b.action("label", by=USER, node=name, key=AKS_QUARANTINE, value="Quarantined", at=at, rule=RULE,
                          reason="AKS undrainableNodeBehavior Cordon: drainTimeoutInMinutes ran out, so the node "
                                 "stays cordoned with its pods, is not upgraded, and a surge node is kept in its place")
        return at

    def _swap_arrivals(self, nodes: Sequence[str]) -> None:
        """The replacements on the nodes about to drain become their own records there, so the
        drain evicts them (and the scheduler model frees their room) like any resident pod."""
        for name in nodes:
            for placed, copy in self.arrivals.get(name, ()):
                self.placer.swap(placed, copy, name)

    def _who(self) -> str:
        return PROVIDERS[self.up.provider].title

    def _timeout_text(self) -> str:
        prov = PROVIDERS[self.up.provider]
        return "%s (%s)" % (prov.timeout_name, format_seconds(self.up.drain_timeout or 0))

    def _blockers(self, held: Sequence, late: Sequence) -> List[str]:
        """What holds the batch: PDBs by name, else the blocked pods' codes."""
        out: List[str] = []
        filtered = [e.node for e in held if e.code == "drain-filter"]
        for e in held:
            what = e.code
            if e.code == "drain-filter":
                what = "drain filters on %s" % ", ".join("node/%s" % n for n in sorted(set(filtered)))
            elif e.code == "pdb-budget":
                pod = self._pod(e.namespace, e.pod, e.node)
                pdbs = pdbs_for_pod(self.s, pod) if pod is not None else ()
                what = "PDB %s" % pdbs[0].ref if pdbs else "a PDB"
            elif e.code == "node-unreachable":
                what = "unreachable node/%s" % e.node
            elif e.code == "pdb-multiple":
                what = "%s/%s (several PDBs)" % (e.namespace, e.pod)
            if what not in out:
                out.append(what)
        if late and "PDB waves past the drain timeout" not in out:
            out.append("PDB waves past the drain timeout")
        return out

    def _pod(self, namespace: str, name: str, node: str) -> Optional[Pod]:
        for _, copy in self.arrivals.get(node, ()):
            if copy.namespace == namespace and copy.name == name:
                return copy
        return self.s.pods_by_key.get((namespace, name))

    def _force_how(self) -> str:
        """Why a pod is deleted when the provider's drain timeout runs out."""
        prov = PROVIDERS[self.up.provider]
        if self.up.provider == "capi":
            # cluster-api docs/book/src/tasks/automated-machine-management/machine_deletions.md: drain
            # is skipped once nodeDrainTimeout has expired, then the Machine's infrastructure and its
            # Node are deleted; the pods still bound to the Node are pod GC's (gcOrphaned)
            return ("nodeDrainTimeout %s runs out: the Machine controller stops draining and deletes the Machine "
                    "and its Node, and pod GC force-deletes the pods bound to the gone node %ds later (gcOrphaned; "
                    "grace 0, no Eviction API, PodDisruptionBudget not consulted)" % (
                        format_seconds(self.up.drain_timeout or 0), POD_GC_QUARANTINE))
        return ("%s deletes it once %s runs out (%s after the drain started): no Eviction API, its "
                "PodDisruptionBudget is not consulted" % (prov.title, prov.timeout_name,
                                                          format_seconds(self.up.drain_timeout or 0)))

    def _force_late(self, late: Sequence[Tuple[Pod, float]], at: float) -> int:
        """The pods whose PDB wave comes at or after the timeout are not evicted then: the provider
        deletes them at `at` with the pods that held the drain. Their eviction actions become
        deletions at `at` (the replacement's node is the one the drain planned). Returns how many."""
        keys = {(p.namespace, p.name, p.node_name) for p, _ in late}
        kept = []
        moved = []
        for a in self.b.actions:
            if a.type == "evict" and a.batch == self.b.batch and (a.namespace, a.pod, a.node) in keys:
                moved.append(a)
            else:
                kept.append(a)
        self.b.actions[:] = kept
        if moved:
            self.actions_reordered()
        by, grace = self._forcer()
        for a in moved:
            self.b.action("delete", by=by, namespace=a.namespace, pod=a.pod, uid=a.uid, node=a.node, at=at,
                          grace_period_seconds=grace, target=a.target, force=grace == 0, rule=RULE,
                          reason=self._force_how() + "; its PDB wave would have come only at %s" % format_offset(a.at))
        return len(moved)

    def _force(self, held: Sequence, at: float) -> Tuple[float, int]:
        """The provider removes the pods that held the drain once its timeout runs out: plain
        deletions (no Eviction API, PDBs not consulted). Returns when their replacements are Ready
        and how many pods were deleted."""
        prov = PROVIDERS[self.up.provider]
        keys = {(e.namespace, e.pod) for e in held}
        self.b.blocked = [e for e in self.b.blocked if (e.namespace, e.pod) not in keys]
        how = self._force_how()
        deleted = 0
        for e in held:
            pod = self._pod(e.namespace, e.pod, e.node)
            if pod is None:
                continue
            if pod.controller_kind == "DaemonSet" or pod.is_mirror:
                # not deleted one by one: it goes with its node (a DaemonSet starts one on each new node)
                self.b.skip(pod, "daemonset" if pod.controller_kind == "DaemonSet" else "mirror-pod",
                            "goes with node/%s when %s removes it%s" % (
                                pod.node_name, prov.title, "; the DaemonSet controller starts its pod on each new "
                                "node" if pod.controller_kind == "DaemonSet" else ""))
                continue
            reason = how
            evicted = e.code == "node-unreachable"   # the Eviction API accepted it; it stays Terminating
            if evicted and pod.controller_kind != "StatefulSet":
                # its controller replaced it when it was evicted (a terminating pod no longer
                # counts): the node's removal deletes the object, nothing is created again
                target, problem = self._evicted_target(pod), ""
                reason += "; it was evicted at the drain's start and stays Terminating on the unreachable node, " \
                          "whose removal deletes it: its replacement was created then"
            elif pod.controller_kind == "StatefulSet" and self.unreachable(pod.node_name):
                # no kubelet confirms the deletion: the pod stays Terminating, and the StatefulSet
                # creates it again only once pod GC has removed it from the gone node (`pod_gc`)
                target, problem = None, ""
                reason += "; it stays Terminating on the unreachable node"
                self.short(pod, "waits-for-old-pod", "deleted at %s, but it stays Terminating on the unreachable node, "
                           "and the StatefulSet creates its replacement (same name) only once it is gone"
                           % format_offset(at))
            else:
                # a StatefulSet creates the same-named pod only once the old one is gone
                self.placer.terminate([pod])
                target, problem = self.land(pod, at)
            if not evicted:
                self.evictions.setdefault(pod.key, []).append(pod.node_name)
            if problem:
                reason += "; its replacement fits no node"
                self.short(pod, "no-node-fits", "deleted, but its replacement has nowhere to go: %s" % problem)
            by, grace = self._forcer()
            self.b.action("delete", by=by, namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=pod.node_name,
                          at=at, grace_period_seconds=grace, target=target, force=grace == 0, rule=RULE, reason=reason)
            deleted += 1
        return at + float(self.cfg.pod_startup), deleted

    def _forcer(self) -> Tuple[str, Optional[int]]:
        """Who deletes the pods a drain timeout leaves, and with what grace period: the provider
        (planned as the operator's, with the pod's own grace), or for Cluster API, which deletes
        the Node instead, pod GC (grace 0)."""
        return (POD_GC, 0) if self.up.provider == "capi" else (USER, None)

    def _evicted_target(self, pod: Pod) -> Optional[str]:
        """Where the replacement of `pod`, evicted earlier in this batch, was placed."""
        for a in self.b.actions:
            if a.type == "evict" and a.batch == self.b.batch and (a.namespace, a.pod, a.node, a.uid) == (
                    pod.namespace, pod.name, pod.node_name, pod.uid):
                return a.target
        return None

    # -- the report --------------------------------------------------------------------------------

    def _report(self, batches: List[_Batch], stopped: Optional[_Batch]) -> None:
        up = self.up
        prov = PROVIDERS[up.provider]
        done = [b for b in batches if b.outcome in ("upgraded", "forced", "quarantined")]
        upgraded = sum(len(b.nodes) - len(b.quarantined) for b in done)
        total = len(self.pool)
        n = len(batches)
        forced = [b for b in batches if b.outcome == "forced"]
        quarantined = [b for b in batches if b.outcome == "quarantined"]
        if stopped is None and quarantined:
            names = [x for b in quarantined for x in b.quarantined]
            b = quarantined[0]
            # A2: a surge node is retained for each blocked node; "if there are enough surge nodes to
            # replace blocked nodes" the upgrade ends failed, "otherwise" canceled
            state = "Failed" if len(names) <= up.max_surge else "Canceled (%s, max surge %d: too few surge nodes to " \
                "replace them)" % (_plural(len(names), "node quarantined", "nodes quarantined"), up.max_surge)
            text = ("fails: AKS quarantines %s (batch %d stalls %s on %s; undrainableNodeBehavior Cordon: cordoned, "
                    "labelled %s=Quarantined, not upgraded) and upgrades the rest; the upgrade ends %s after ~%s "
                    "(%d of %d nodes upgraded)" % (
                        ", ".join("node/%s" % x for x in names[:5]) + (", ..." if len(names) > 5 else ""), b.number,
                        format_seconds(up.drain_timeout or 0), b.stall, AKS_QUARANTINE, state,
                        format_seconds(self.finish or 0), upgraded, total))
        elif stopped is None:
            end = self.finish
            text = "finishes in ~%s in %s" % (format_seconds(end or 0), _plural(n, "batch", "batches"))
            if forced:
                b = forced[0]
                text += "; batch %d stalls %s on %s then %s" % (
                    b.number, format_seconds(up.drain_timeout or 0), b.stall,
                    "the Machine is deleted and pod GC deletes its pods" if up.provider == "capi" else
                    "%s deletes the pods (PDBs bypassed)" % prov.title)
                if len(forced) > 1:
                    rest = [str(x.number) for x in forced[1:]]
                    text += "; so do %s (%s%s)" % (_plural(len(forced) - 1, "more batch", "more batches"),
                                                   ", ".join(rest[:5]), ", ..." if len(rest) > 5 else "")
        elif stopped.outcome == "stalled":
            # the wording: "batch 3 stalls 15m on PDB shop/db then EKS fails the update"
            text = ("never finishes: batch %d stalls on %s and %s waits forever (batch %d of %d; %d of %d nodes "
                    "upgraded)" % (stopped.number, stopped.stall, "the upgrade" if up.provider == "generic"
                                   else prov.title, stopped.number, n, upgraded, total))
            if up.provider in ("capi", "generic"):
                text += "; --drain-timeout %s" % ("bounds the wait" if up.provider == "generic"
                                                   else "(nodeDrainTimeout) makes it delete the Machine anyway")
        else:
            failure = {"eks": "EKS fails the update (PodEvictionFailure)",
                       "aks": "AKS fails the upgrade (undrainableNodeBehavior Schedule: the node is made "
                              "schedulable again, not upgraded)",
                       "generic": "the upgrade gives up (as kubectl drain --timeout does)",
                       "gke": "GKE fails the upgrade"}.get(up.provider, "%s fails the upgrade" % prov.title)
            text = "fails: batch %d stalls %s on %s then %s (batch %d of %d; %d of %d nodes upgraded)" % (
                stopped.number, format_seconds(up.drain_timeout or 0), stopped.stall, failure, stopped.number, n,
                upgraded, total)
            if up.provider == "eks":
                text += "; update-nodegroup-version --force deletes the pods instead (--force-upgrade plans that)"
        self.b.extra["verdict"] = text
        settings = ("%s: %s, batches of %d (max surge %d, max unavailable %d), new nodes like node/%s%s; "
                    "drain timeout %s, then %s" % (
                        up.provider, _plural(total, "node", "nodes"),
                        up.max_unavailable if up.provider == "eks" else up.max_surge + up.max_unavailable,
                        up.max_surge, up.max_unavailable, up.surge_like,
                        (" labelled " + ",".join("%s=%s" % kv for kv in up.surge_labels)) if up.surge_labels else "",
                        format_seconds(up.drain_timeout) if up.drain_timeout is not None else "none (waits forever)",
                        {"force": "force", "quarantine": "quarantine the node (undrainableNodeBehavior Cordon) and go "
                         "on"}.get(up.on_timeout, "fail")))
        if up.taints_pool_first:
            settings += "; every old node is tainted %s=unschedulable:NoSchedule first, so no pod lands on " \
                        "one" % EKS_TAINT
        drain_notes = list(self.b.notes)      # what the drains said (already cordoned, no replacement)
        del self.b.notes[:]
        self.b.note(settings)
        for b in batches:
            self.b.note(self._batch_line(b))
        self.moved_more_than_once("their replacements landed on old nodes of later batches; to avoid it, cordon "
                                  "the whole pool first (kubectl cordon -l SELECTOR) or raise --max-surge so new "
                                  "nodes take them")
        self.b.notes.extend(drain_notes)
        nodes = []
        for b in batches:
            for name in b.nodes:
                st = self.node_stats[name]
                nodes.append({"node": name, "batch": b.number, "start": b.drain_start, "end": b.end,
                              "outcome": "quarantined" if name in b.quarantined else
                              "upgraded" if b.outcome == "quarantined" else b.outcome, "evicted": st["evicted"],
                              "blocked": sum(st["blocked"].values())})
        self.b.extra["nodes"] = nodes
        # a node that joins after the last batch (in place of its removed nodes) belongs to no batch
        self.b.extra["newNodes"] = [{"node": name, "batch": number, "joins": at, "like": up.surge_like}
                                    for b in batches
                                    for names, number, at in ((b.joined, b.number, b.start), (b.after, None, b.end))
                                    for name in names]
        self.b.extra["upgrade"] = {"provider": up.provider, "maxSurge": up.max_surge,
                                   "maxUnavailable": up.max_unavailable, "drainTimeout": up.drain_timeout,
                                   "onTimeout": up.on_timeout, "batches": len(batches), "upgraded": upgraded}

    def moved_more_than_once(self, why: str) -> None:
        """The plan's `movedMoreThanOnce` and its line: pods evicted again where their replacement
        landed, how many times, from which nodes; `why` says why and how to avoid it."""
        moved = sorted((k, v) for k, v in self.evictions.items() if len(v) > 1)
        self.b.extra["movedMoreThanOnce"] = [
            {"namespace": k[0], "pod": k[1], "times": len(v), "nodes": list(v)} for k, v in moved]
        if moved:
            names = ", ".join("%s/%s x%d" % (k[0], k[1], len(v)) for k, v in moved[:5])
            more = " and %d more" % (len(moved) - 5) if len(moved) > 5 else ""
            self.b.note("moved more than once: %s (%s%s): %s" % (_plural(len(moved), "pod", "pods"), names, more, why))

    def _batch_line(self, b: _Batch) -> str:
        nodes = ", ".join("node/%s" % n for n in b.nodes)
        if b.outcome == "not-reached":
            return "batch %d: %s: not reached" % (b.number, nodes)
        head = "batch %d (%s to %s): " % (b.number, format_offset(b.start or 0),
                                       format_offset(b.end) if b.end is not None else "never")
        parts = []
        if b.joined:
            parts.append("%s join%s" % (", ".join(b.joined), "s" if len(b.joined) == 1 else ""))
        drained = "drains %s: %s" % (nodes, _plural(b.evicted, "eviction", "evictions") if self.s.holds("Pod")
                                     else "pods not in the input")
        if b.waves:
            drained += " in %s" % _plural(b.waves, "wave", "waves")
        parts.append(drained)
        if b.outcome == "upgraded":
            parts.append("removed at %s" % format_offset(b.end or 0))
        elif b.outcome == "forced" and self.up.provider == "capi":
            parts.append("stalls on %s; the Machine is deleted, removed at %s" % (b.stall, format_offset(b.end or 0)))
        elif b.outcome == "forced":
            parts.append("stalls on %s; %s removed at %s" % (
                b.stall, _plural(b.forced, "pod", "pods") + " forcibly deleted,", format_offset(b.end or 0)))
        elif b.outcome == "failed":
            parts.append("stalls on %s; the upgrade fails at %s" % (b.stall, format_offset(b.end or 0)))
        elif b.outcome == "quarantined":
            parts.append("stalls on %s; %s quarantined at %s (left cordoned with its pods)%s" % (
                b.stall, ", ".join("node/%s" % x for x in b.quarantined), format_offset(b.end or 0),
                "; the others removed" if len(b.quarantined) < len(b.nodes) else ""))
        else:
            parts.append("stalls on %s forever" % b.stall)
        if b.number in self.killed:
            count, first, last = self.killed[b.number]
            parts.append("its kubelet's graceful shutdown kills %s left on %s from %s to %s" % (
                _plural(count, "pod", "pods"), "it" if len(b.nodes) == 1 else "them", format_offset(first),
                format_offset(last)))
        if b.number in self.collected:
            count, at = self.collected[b.number]
            parts.append("pod GC deletes %s left on %s at %s" % (
                _plural(count, "pod", "pods"), "it" if len(b.nodes) == 1 else "them", format_offset(at)))
        if b.after:
            parts.append("then %s join%s in %s place" % (", ".join(b.after), "s" if len(b.after) == 1 else "",
                                                        "its" if len(b.after) == 1 else "their"))
        return head + "; ".join(parts)


def _plural(n: int, one: str, many: str) -> str:
    return "%d %s" % (n, one if n == 1 else many)


def plan_upgrade(snapshot: Snapshot, settings: UpgradeSettings, now: float) -> Plan:
    """Plan the rolling upgrade of the pool `settings.drain.nodes`, batch by batch."""
    return UpgradeRun(snapshot, settings, now).plan()
