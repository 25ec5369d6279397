"""`drain`: cordon nodes, evict their pods through the Eviction API, and say where each lands.

Models kubectl drain (kubectl v1.30-v1.37, whose filters, messages and flag defaults have not
changed since v1.33; `staging/src/k8s.io/kubectl/pkg/drain` and `pkg/cmd/drain`): cordon first, the pod filters and their messages (`drain_filters.py`), one
node's filter error aborts that node before anything is evicted, `--disable-eviction` sends
plain DELETEs that bypass PDBs, `--grace-period` (-1: the pod's own). Each eviction is decided
as the API server's eviction subresource decides it (`pkg/registry/core/pod/storage/eviction.go`)
against budgets computed as the disruption controller computes them
(`pkg/controller/disruption`), via `scheduling/disruption.py`. Where kubectl retries a 429
every 5 s until the budget recovers, the plan puts the pod in a later wave: a budget spent on a
pod comes back once the pod's replacement is Ready, `--pod-startup` after it is created (at the
eviction; an OrderedReady StatefulSet's at its `replacementAt`, `credit_statefulsets`), if it has
a node to land on (kube-scheduler's Filter step, `scheduling/placement.py`), and never otherwise,
and the held pod goes at kubectl's first retry after that (`wave_spacing`). The replacements
of a wave are placed in the order they reach the scheduler (`arrival_order`: kubectl's concurrent,
throttled evictions, the node's last pod first).

Budgets are drawn down across every pod of every node in the plan. Several nodes form one
maintenance window (all cordoned at once, none a target); draining them in the order given, each
once the previous node's replacements are ready (`one_at_a_time`), is `rules/drain_sequence.py`,
built on this module's `DrainRun`.
"""

from __future__ import annotations

import math
from typing import AbstractSet, Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from pyrsistent import PClass, field

from kubectl_evict.errors import InputError
from kubectl_evict.model import LabelSelector, Pod, PodDisruptionBudget, Snapshot
from kubectl_evict.plan import USER, Plan, PlanBuilder
from kubectl_evict.rules.drain_filters import (DRAIN_LABEL, ERROR, SKIP, WARNING, FilterFlags, aggregate, drain_filter,
                                               error_text, warning_text)
from kubectl_evict.scheduling.disruption import (VIOLATES_BUDGET, BudgetState, Eviction, effective_budget,
                                                 ledger_decision, pdbs_for_pod, selected_pods, status_is_current,
                                                 unknown_budget_text)
from kubectl_evict.scheduling.labels import label_selector_matches
from kubectl_evict.scheduling.placement import Placer
from kubectl_evict.scheduling.plugins.interpodaffinity import AFFINITY
from kubectl_evict.scheduling.plugins.podtopologyspread import SKEW
from kubectl_evict.scheduling.plugins.nodeunschedulable import tolerates_unschedulable
from kubectl_evict.rules.replacements import (available_after, chain_ordered_ready, ordered_ready_wait, recreation,
                                              removal_spans, returning_ordinals, workload_of, workload_owner)
from kubectl_evict.rules.scheduling import Queued, place, place_queued
from kubectl_evict.scheduling.statefulset import ordinal, queue_key
from kubectl_evict.timeutil import format_offset, format_seconds, format_time
from kubectl_evict.workloads import attach

RULE = "drain"

# The drain's own reasons for not finishing, as the plan's stable codes.
_BLOCK_CODES = {"pdb": "pdb-budget", "multiple-pdbs": "pdb-multiple", "filters": "drain-filter",
                "aborted": "drain-filter", "unreachable": "node-unreachable", "timeout": "drain-timeout"}


# client-go throttles kubectl at 5 requests a second with a burst of 10 (rest.Config defaults);
# drain's own requests before its first eviction (the node, the cordon, the pod list, each
# DaemonSet pod's DaemonSet) take a few of those: about the first 8 evictions go out at once.
KUBECTL_EVICTION_BURST = 8

# kubectl drain retries an eviction the API server refused with 429 every 5 s, counted from that
# pod's own first attempt (`staging/src/k8s.io/kubectl/pkg/drain/drain.go` evictPods:
# "will retry after 5s", time.Sleep(5*time.Second); spec/semantics.md F6).
KUBECTL_RETRY_SECONDS = 5.0


def wave_spacing(pod_startup: float) -> float:
    """Seconds between the PDB waves of one node's drain.

    kubectl tries every pod of the node when its drain starts and retries a refused one every
    5 s; the budget an evicted pod spent comes back once its replacement is Ready, `pod_startup`
    after the eviction. So a held pod goes at the first retry at or after that: the waves are the
    smallest whole number of retries (at least one) that covers `pod_startup`, measured from the
    node's start. Waves `pod_startup` apart would have kubectl evict between its retries."""
    retries = max(1, math.ceil(pod_startup / KUBECTL_RETRY_SECONDS - 1e-9))
    return retries * KUBECTL_RETRY_SECONDS


def arrival_order(pods: Sequence[Pod], together: Optional[Set[Tuple[str, str]]] = None) -> List[Pod]:
    """The order in which the replacements of `pods` (one node's pods, or several nodes' in the
    order given, each node's in kubectl's order: namespace, then name), evicted in the same wave,
    reach kube-scheduler.

    kubectl drain starts one goroutine per pod of a node and Go runs the last one started first,
    then the others in order; client-go lets the first KUBECTL_EVICTION_BURST evictions out
    together and the rest one every 200 ms. The replacements of a burst wait in the scheduler's
    queue together and are taken by priority (PrioritySort), then creation; each later one
    arrives alone and is placed before the next comes: eviction order, whatever its priority.
    StatefulSet replacements come last, created only once their old pod is gone (`queue_key`).
    Measured against eight real v1.33 drains (`tests/data/real-drains`): 64 of 78 replacements
    on the real node (or its tie), against 56 when the whole wave was taken by priority.
    `together`, when given, gets the keys of the pods whose replacements wait in the queue
    together (each node's burst)."""
    by_node: Dict[str, List[Pod]] = {}
    for pod in pods:
        by_node.setdefault(pod.node_name, []).append(pod)
    keyed = []
    # kubectl drains the nodes in turn (each once the previous node's pods are gone), each node
    # with its own burst
    for n, node_pods in enumerate(by_node.values()):
        started = node_pods[-1:] + node_pods[:-1]
        for i, pod in enumerate(started):
            if pod.controller_kind == "StatefulSet":
                key: tuple = (1,) + queue_key(pod, len(keyed))
            elif i < KUBECTL_EVICTION_BURST:
                key = (0, n, -1, -pod.priority, len(keyed))
                if together is not None:
                    together.add(pod.key)
            else:
                key = (0, n, i, 0, len(keyed))
            keyed.append((key, pod))
    keyed.sort(key=lambda t: t[0])
    return [pod for _, pod in keyed]


class DrainSettings(PClass):
    nodes = field(type=tuple, initial=())                 # node names, in the order given
    filters = field(type=FilterFlags, initial=FilterFlags())
    disable_eviction = field(type=bool, initial=False)
    grace_period = field(type=int, initial=-1)            # -1: the pod's own terminationGracePeriodSeconds
    pod_selector = field(initial=None)                    # LabelSelector or None
    pod_startup = field(initial=30.0)                     # seconds until a replacement is Ready
    one_at_a_time = field(type=bool, initial=False)
    timeout = field(initial=None)                         # kubectl drain --timeout, seconds per node; None/0: none


def resolve_nodes(snapshot: Snapshot, names: Sequence[str], selector: Optional[LabelSelector],
                  selector_text: str = "") -> Tuple[str, ...]:
    """The nodes to drain: the names given (each must exist), or those `-l` selects, by name."""
    if selector is not None:
        picked = tuple(n for n in sorted(snapshot.nodes) if label_selector_matches(selector, snapshot.nodes[n].labels))
        if not picked:
            raise InputError("no nodes match selector %r" % selector_text, field="--selector")
        return picked
    out: List[str] = []
    for name in names:
        if name not in snapshot.nodes:
            raise InputError('node "%s" not found in the snapshot%s' % (name, snapshot.no_nodes_hint()))
        if name not in out:
            out.append(name)
    return tuple(out)


def _plural(n: int, one: str, many: str) -> str:
    return "%d %s" % (n, one if n == 1 else many)


def helped_by_pod_add(fit_error: str) -> bool:
    """Can a pod added to the cluster let a replacement that failed with `fit_error` in? Only when
    InterPodAffinity (a pod its required affinity needs) or PodTopologySpread (a count that raises
    the minimum) rejected nodes: kube-scheduler requeues a Pending pod on a Pod add only for those
    plugins' hints (`interpodaffinity/plugin.go`, `podtopologyspread/plugin.go`
    isSchedulableAfterPodChange); resources, ports, volumes and taints only get worse."""
    return AFFINITY in fit_error or SKEW in fit_error


class DrainRun:
    """The local accumulator behind `plan_drain` (never escapes it), and the building block
    `rules/upgrade.py` drives batch by batch: cordon and filters (`filter_node`), evictions in PDB
    waves with placement (`run`), budgets shared across every call."""

    #: Retry, at the end of each wave, the replacements of that wave that fit nowhere when they
    #: arrived (`retry_unplaced`). An upgrade keeps its own queue of Pending replacements, tried
    #: again as new nodes join (`UpgradeRun.retry_pending`).
    RETRY_IN_WAVE = True

    def __init__(self, snapshot: Snapshot, settings: DrainSettings, now: float, command: str = "drain",
                 excluded: Optional[Sequence[str]] = None) -> None:
        self.s = snapshot
        self.cfg = settings
        self.now = now
        self.b = PlanBuilder(command, now)
        self.budgets: Dict[Tuple[str, str], BudgetState] = {}
        plain = excluded is None and not settings.one_at_a_time
        if excluded is None:
            excluded = () if settings.one_at_a_time else settings.nodes
        # Nodes this plan cordoned and that stay in the cluster: out of the candidates for every
        # replacement except one that tolerates node.kubernetes.io/unschedulable:NoSchedule, which
        # NodeUnschedulable lets back onto them (`land`). drain --one-at-a-time adds each node at
        # its turn; an upgrade removes its drained nodes, so it has none.
        self.cordoned: List[str] = list(settings.nodes) if plain else []
        self.placer = Placer(snapshot.nodes.values(), snapshot.pods_by_node, excluded=excluded, snapshot=snapshot,
                             preempt=True)
        self.placer.pdb_view = self.pdbs_now
        self.offset = 0.0        # seconds added to every wave's time (upgrade: the batch's start)
        self.node_stats: Dict[str, dict] = {n: {"evicted": 0, "blocked": {}, "waves": set(), "skipped": 0,
                                                "start": 0, "start_at": 0.0, "short": 0}
                                            for n in settings.nodes}
        self.sts_pending: Set[Tuple[str, str]] = set()     # StatefulSet pods whose replacement stays Pending
        self.ordered_ready: Set[Tuple[str, str]] = set()   # ... because a lower ordinal's does
        self.candidates: Dict[Tuple[str, str], Tuple[str, ...]] = {}   # nodes tied with the target
        self.leaving = frozenset(p.key for n in settings.nodes for p in snapshot.pods_on(n))
        self.wave = 0                  # the wave of the eviction being planned (preemption victims' budgets)
        self.victims: List[Tuple[Pod, Optional[str], str, float, int]] = []    # preempted this wave
        # preemption victims of this wave whose replacements wait in kube-scheduler's queue; None:
        # not queueing (a victim's replacement is placed at once)
        self.queued: Optional[List[Queued]] = None
        # replacements of this wave that fit nowhere yet: pod key -> (pod, at, budget, spent)
        self.unplaced: Dict[Tuple[str, str], Tuple[Pod, float, Optional[BudgetState], bool]] = {}
        self.unchecked_budgets = 0     # evictions of pods whose PDBs the input does not hold
        self.unchecked_daemonsets = 0  # DaemonSet pods whose DaemonSet's existence the input cannot tell
        # upgrade: when the provider gives up on the drain (plan time); the pods whose PDB wave would
        # come at or after it are never evicted, and go to `cut_off` with when they would have been
        self.deadline: Optional[float] = None
        self.cut_off: List[Tuple[Pod, float]] = []
        # StatefulSet pods evicted this wave whose budget comes back once their replacement is
        # Ready: (budget, pod, wave, evicted at, spent, index of the evict action)
        self.sts_credits: List[Tuple[BudgetState, Pod, int, float, bool, int]] = []
        # `chain_so_far`'s incremental read of the actions: how many it has read, the pods they
        # remove, and (index, StatefulSet uid) of those that remove a StatefulSet's pod
        self.seen = 0
        self.removed_keys: Set[Tuple[str, str]] = set()
        self.sts_rows: List[Tuple[int, str]] = []
        self.shorts_seen = 0           # ... and how many shortfalls, and the pods they name
        self.short_keys: Set[Tuple[str, str]] = set()
        # StatefulSet uid -> [budget, pod, wave of its gain or None] of the pods under a PDB that
        # are down now and come back by themselves (`seed_returning`, `update_returning`)
        self.returning: Dict[str, List[List[Any]]] = {}
        self.returning_rows = 0        # how many of `sts_rows` `update_returning` has read

    # -- helpers --------------------------------------------------------------------------------

    @property
    def spacing(self) -> float:
        """Seconds between two PDB waves of a node's drain (`wave_spacing`)."""
        return wave_spacing(float(self.cfg.pod_startup))

    def at(self, wave: int) -> float:
        """When wave `wave` happens: waves are kubectl's retries apart (`spacing`), from `offset`."""
        return self.offset + wave * self.spacing

    def pods_of(self, name: str) -> Sequence[Pod]:
        """The pods on node `name` when its drain starts (upgrade adds replacements that landed there)."""
        return self.s.pods_on(name)

    def node_settings(self, name: str) -> DrainSettings:
        """The drain settings for node `name`: the user's flags here; upgrade overrides them where
        the provider's drainer changes them for one node (Cluster API on an unreachable node)."""
        return self.cfg

    def block(self, pod: Pod, reason: str, kind: str) -> None:
        self.b.block(pod, _BLOCK_CODES[kind], reason)
        cats = self.node_stats[pod.node_name]["blocked"]
        cats[kind] = cats.get(kind, 0) + 1

    def short(self, pod: Pod, code: str, reason: str) -> None:
        self.b.shortfall(pod, code, reason)
        self.node_stats[pod.node_name]["short"] += 1

    def unreachable(self, name: str) -> bool:
        """Ready Unknown/False: the kubelet does not confirm deletions, so evicted pods stay Terminating.

        Unknown: the kubelet stopped posting status. False is the kubelet's own NotReady: with a
        runtime error in its message (`pkg/kubelet/runtime.go` runtimeErrors: "container runtime is
        down", "PLEG is not healthy: ...") its syncLoop skips every pod sync (`pkg/kubelet/kubelet.go`)
        and nothing confirms either; for its other causes (network plugin, storage, shutdown) the
        kubelet keeps syncing pods, and whether the runtime can stop them is the runtime's: kept
        as not confirming (`replacements.kubelet_gone` counts Unknown only; see
        `tests/test_drain_node_ready.py`)."""
        return self.s.nodes[name].ready_status in ("Unknown", "False")

    def stays_terminating(self, pod: Pod) -> bool:
        """Does `pod`, once evicted (or deleted), stay Terminating? On a node whose kubelet does
        not confirm deletions (`unreachable`), unless the drain asks for grace period 0: kubectl
        drain sends --grace-period as is (`staging/src/k8s.io/kubectl/pkg/drain/drain.go`
        makeDeleteOptions), and a pod deleted with grace period 0 is removed from the API at once
        (DeleteOptions.gracePeriodSeconds: "zero means delete immediately"; spec F1), as a force
        delete is, without its kubelet."""
        return self.unreachable(pod.node_name) and self.node_settings(pod.node_name).grace_period != 0

    def pdbs_now(self, namespace: str) -> Tuple[PodDisruptionBudget, ...]:
        """The PDBs of `namespace` as kube-scheduler's lister holds them when a replacement
        preempts (`filterPodsWithPDBViolation` reads `status.disruptionsAllowed`): a budget this
        plan has drawn down, or whose healthy pods it lost (a preemption victim whose replacement
        never lands), as it stands in the current wave; any other as the snapshot holds it."""
        out = []
        for pdb in self.s.pdbs_by_namespace.get(namespace, ()):
            st = self.budgets.get((pdb.namespace, pdb.name))
            if st is not None and not st.budget.unknown:
                st.at_wave(self.wave)
                pdb = st.as_pdb()
            out.append(pdb)
        return tuple(out)

    def budget(self, pdb: PodDisruptionBudget) -> BudgetState:
        key = (pdb.namespace, pdb.name)
        st = self.budgets.get(key)
        if st is None:
            budget = effective_budget(self.s, pdb, self.now)
            st = self.budgets[key] = BudgetState(pdb, budget)
            if budget.unknown:
                pass    # said per eviction (`incomplete`)
            elif not status_is_current(pdb):
                why = ("has no status yet" if not pdb.has_status else
                       "status is stale (observedGeneration %d < generation %d)" % (pdb.observed_generation, pdb.generation))
                self.b.warn("PDB %s %s: the Eviction API answers 429 until the disruption controller catches up; "
                            "planned with the budget it will compute: %d allowed (%d healthy, %d desired, %d expected)"
                            % (pdb.ref, why, budget.disruptions_allowed, budget.current_healthy,
                               budget.desired_healthy, budget.expected_pods))
            if budget.problem:
                self.b.warn("PDB %s: %s, so the disruption controller holds it at 0 disruptions allowed"
                            % (pdb.ref, budget.problem))
            elif budget.unmanaged and budget.source == "computed":
                self.b.warn("PDB %s selects pods with no controller (%s): the disruption controller cannot count "
                            "them toward expected pods" % (pdb.ref, ", ".join(budget.unmanaged)))
            if not budget.unknown:
                self.seed_returning(st)
        return st

    def seed_returning(self, state: BudgetState) -> None:
        """The StatefulSet pods under `state`'s PDB, off the drained nodes, that are down now and
        come back by themselves (Terminating on a node whose kubelet is alive, or finished:
        `returning_ordinals`, the times the plan's OrderedReady chain uses): the disruption
        controller counts each as healthy again once it is Ready (`countHealthyPods`), so each
        raises currentHealthy then (`gains`), and a pod the budget holds is evicted at kubectl's
        first retry after that instead of never. Under OrderedReady one also waits for the lower
        ordinals the drain evicts: `update_returning` moves its gain as those evictions come."""
        down: Dict[str, List[Pod]] = {}
        for p in selected_pods(self.s, state.pdb):
            if p.controller_kind == "StatefulSet" and p.key not in self.leaving \
                    and (p.is_terminal or p.deletion_timestamp is not None):
                down.setdefault(p.controller.uid, []).append(p)
        for uid, pods in down.items():
            back = self.returning_times(uid)
            for p in pods:
                w = self.returning_wave(back, p)
                if w is not None:
                    state.gain(w)
                self.returning.setdefault(uid, []).append([state, p, w])

    def returning_times(self, uid: str) -> Dict[int, Tuple[float, float]]:
        """`returning_ordinals` of StatefulSet `uid`, after the lower ordinals the plan has removed
        so far (`removal_spans` of its actions, chained first: `chain_so_far`)."""
        self.chain_so_far({uid})
        startup = float(self.cfg.pod_startup)
        rows = [self.b.actions[i] for i, u in self.sts_rows if u == uid]
        removals = removal_spans(self.s, rows, startup, self.short_keys).get(uid) if rows else None
        return returning_ordinals(self.s, self.now, startup, uid, exclude=self.leaving, removals=removals)

    def returning_wave(self, back: Mapping[int, Tuple[float, float]], pod: Pod) -> Optional[int]:
        """The wave from which the disruption controller counts returning `pod` healthy (Ready,
        without minReadySeconds), None if it never comes back."""
        n = ordinal(pod)
        if n not in back:
            return None
        return self.wave_at(back[n][1] - available_after(self.s, pod), 0)

    def update_returning(self, wave: int) -> None:
        """Move the `gains` of the returning pods (`seed_returning`) of the StatefulSets whose
        pods the drain removed since: an OrderedReady StatefulSet creates a returning ordinal only
        once every lower one is Running and Ready again (`processReplica`). An eviction at `wave`
        only delays a pod created at or after it, Ready a wave later at least: a gain already
        counted (at or before `wave`) is never one that moves."""
        if not self.returning:
            return
        self.read_actions()
        uids = {u for _, u in self.sts_rows[self.returning_rows:] if u in self.returning}
        self.returning_rows = len(self.sts_rows)
        for uid in sorted(uids):
            back = self.returning_times(uid)
            for entry in self.returning[uid]:
                state, pod, old = entry
                new = self.returning_wave(back, pod)
                if new == old or (old is not None and old <= wave):
                    continue
                if old is not None:
                    state.gain(old, -1)
                if new is not None:
                    state.gain(new)
                entry[2] = new

    def workload(self, pod: Pod) -> str:
        """`Deployment ns/name` (through its ReplicaSet), `StatefulSet ns/name`, ..."""
        ref = pod.controller
        if ref is None:
            return "Pod %s" % pod.ref
        key = workload_of(self.s, pod) or (ref.kind, pod.namespace, ref.name)
        return "%s %s/%s" % key

    def replicas(self, pod: Pod) -> Optional[int]:
        owner = workload_owner(self.s, pod)
        return owner.replicas if owner is not None else None

    # -- per node: cordon and filters -------------------------------------------------------------

    def filter_node(self, name: str, at: float) -> List[Pod]:
        """Cordon `name` and run kubectl's filters over its pods; the pods to evict (none when a
        filter error aborts the node)."""
        node = self.s.nodes[name]
        stats = self.node_stats[name]
        if node.unschedulable:
            self.b.note("node/%s already cordoned" % name)
            stats["cordon"] = "already cordoned"
        else:
            self.b.action("cordon", by=USER, node=name, at=at, rule=RULE,
                          reason="kubectl drain cordons first (spec.unschedulable=true; the node gets the "
                                 "node.kubernetes.io/unschedulable:NoSchedule taint)")
            stats["cordon"] = "cordon"
        errors: List[Tuple[str, Pod]] = []
        warnings: List[Tuple[str, Pod]] = []
        deletable: List[Pod] = []
        flags = self.node_settings(name).filters
        for pod in self.pods_of(name):
            if self.cfg.pod_selector is not None and not label_selector_matches(self.cfg.pod_selector, pod.labels):
                self.b.skip(pod, "not-selected", "not selected by --pod-selector: kubectl drain leaves it running")
                stats["skipped"] += 1
                continue
            res = drain_filter(self.s, pod, flags, self.now)
            if (flags.ignore_daemonsets or flags.force) and pod.controller_kind == "DaemonSet" \
                    and not pod.is_terminal and not self.s.holds("DaemonSet"):
                # kubectl GETs the DaemonSet: gone, the pod fails the drain (or --force deletes it)
                self.unchecked_daemonsets += 1
            if res.reason == ERROR:
                errors.append((res.message, pod))
            elif res.reason == WARNING:
                warnings.append((res.message, pod))
            if res.delete:
                deletable.append(pod)
            elif res.reason == SKIP:
                stats["skipped"] += 1
                if pod.is_mirror:
                    self.b.skip(pod, "mirror-pod", "mirror pod (a static pod the kubelet runs): kubectl drain skips it")
                elif res.message == DRAIN_LABEL:
                    self.b.skip(pod, "drain-label", "labelled %s=%s: Cluster API's drain leaves it; it goes with "
                                "its node" % flags.skip_label)
                elif pod.controller_kind == "StatefulSet" and self.unreachable(name):
                    self.short(pod, "waits-for-old-pod", "terminating for more than %ds: kubectl drain skips it "
                               "(--skip-wait-for-delete-timeout), but it stays Terminating on the unreachable node, "
                               "and the StatefulSet creates its replacement (same name) only once it is gone"
                               % flags.skip_wait_for_delete_timeout)
                else:
                    self.b.skip(pod, "already-terminating", "terminating for more than %ds "
                                "(--skip-wait-for-delete-timeout): kubectl drain skips it"
                                % flags.skip_wait_for_delete_timeout)
            elif res.reason == WARNING:
                stats["skipped"] += 1
                self.b.skip(pod, "daemonset" if pod.controller_kind == "DaemonSet" else "drain-filter", res.message)
        if errors:
            groups = aggregate(errors)
            texts = [error_text(msg, refs) for msg, refs in groups]
            for msg, pod in errors:
                self.block(pod, error_text(msg, [pod.ref]), "filters")
            for pod in deletable:
                self.block(pod, "not evicted: kubectl drain stops at node/%s's filter errors before evicting "
                                "anything" % name, "aborted")
            err = texts[0] if len(texts) == 1 else "[%s]" % ", ".join(texts)
            self.b.warn('unable to drain node "%s" due to error: %s, continuing command...' % (name, err))
            stats["error"] = err
            return []
        for msg, refs in aggregate(warnings):
            self.b.warn(warning_text(msg, refs))
        return deletable

    # -- evictions --------------------------------------------------------------------------------

    def land(self, pod: Pod, at: float) -> Tuple[Optional[str], str]:
        """Place the replacement of `pod`: (target, problem). Problem "" when placed or when
        nothing recreates the pod."""
        if not recreation(self.s, pod).elsewhere:
            return None, ""
        wait = ordered_ready_wait(self.b, self.s, pod, self.sts_pending, self.leaving)
        if wait is not None:
            self.sts_pending.add(pod.key)
            self.ordered_ready.add(pod.key)
            return None, "%s, and %s" % (wait.text(pod), "its replacement stays Pending"
                                         if wait.holder.key in self.sts_pending else "it is not")
        back = self.cordoned if self.cordoned and tolerates_unschedulable(pod.tolerations) else ()
        if back:
            self.placer.include(back)
        placed = place(self.b, self.placer, pod, at, RULE, on_victim=lambda v, t, why: self.victim(v, t, why, at),
                       queue=self.queued.append if self.queued is not None else None)
        if back:
            self.placer.exclude(back)
            if placed.node in back:
                self.b.warn("%s: its replacement may land back on node/%s, which this drain cordoned: it tolerates "
                            "node.kubernetes.io/unschedulable:NoSchedule, so kube-scheduler's NodeUnschedulable "
                            "filter lets it there, and kubectl drain does not evict it again" % (pod.ref, placed.node))
        self.candidates[pod.key] = placed.candidates
        if placed.node is None:
            if pod.controller_kind == "StatefulSet":
                self.sts_pending.add(pod.key)
            return None, placed.reason
        return placed.node, ""

    def victim(self, pod: Pod, target: Optional[str], why_not: str, at: float) -> None:
        """A pod kube-scheduler preempts (for a replacement of this drain) is gone from its
        PodDisruptionBudget's healthy pods. The wave's evictions reach the API server before
        the scheduler has placed their replacements, so the loss counts from the wave's end
        (`settle_victims`): for the pods a budget holds back, and for later waves."""
        self.victims.append((pod, target, why_not, at, self.wave))

    def place_queued(self, before: Optional[Pod], last: bool = False) -> None:
        """Place the replacements of this wave's preemption victims that kube-scheduler takes
        before `before`'s: its activeQ pops the highest priority first, then the pod queued first
        (`pkg/scheduler/framework/plugins/queuesort/priority_sort.go` Less). A victim's replacement
        is created when the victim is deleted, after the replacements already waiting with it
        (`before` one of them: only a higher-priority replacement goes first), before any that
        arrives later (`before` None). A StatefulSet's comes only once the victim is gone (its own
        grace period), after the wave's other replacements (`last`)."""
        while self.queued:
            ready = [(i, q) for i, q in enumerate(self.queued)
                     if (last or q.victim.controller_kind != "StatefulSet")
                     and (before is None or q.victim.priority > before.priority)]
            if not ready:
                return
            i, q = min(ready, key=lambda t: (-t[1].victim.priority, t[0]))
            del self.queued[i]
            place_queued(self.b, self.placer, q, RULE, on_victim=lambda v, t, why: self.victim(v, t, why, q.at),
                         queue=self.queued.append)

    def settle_victims(self) -> None:
        for pod, target, why_not, at, wave in self.victims:
            pdbs = pdbs_for_pod(self.s, pod)
            if len(pdbs) == 1:
                state = self.budget(pdbs[0])
                if not state.budget.unknown:
                    state.preempted(pod, wave, at, target is not None, why_not)
        self.victims = []

    def remove(self, pod: Pod, wave: int, reason: str, state: Optional[BudgetState], spent: bool = True) -> None:
        """Evict (or delete) `pod` in `wave`, place its replacement, account for the budget: `state`
        is the PDB whose budget the eviction `spent`, or (not spent) whose currentHealthy the Ready
        replacement of a pod that was not healthy raises."""
        at = self.at(wave)
        self.wave = wave
        stuck = self.stays_terminating(pod)
        if stuck and pod.controller_kind == "StatefulSet":
            target, problem = None, ""      # its replacement waits for the old pod to be gone
        else:
            target, problem = self.land(pod, at)
        stats = self.node_stats[pod.node_name]
        stats["evicted"] += 1
        stats["waves"].add(wave)
        stats.setdefault("evictions", []).append((pod, at))
        recreated = recreation(self.s, pod)
        if not recreated.elsewhere:
            reason += "; " + recreated.why
            self.b.note("%s: no replacement after %s (%s)" % (
                pod.ref, "deletion" if self.cfg.disable_eviction else "eviction", recreated.why))
        elif problem and pod.key in self.ordered_ready:
            reason += "; its replacement is never created"     # a lower ordinal's never runs: nothing to place
        elif problem:
            reason += "; its replacement fits no node"
        if self.unreachable(pod.node_name) and not stuck:
            reason += ("; --grace-period 0: the API server removes the pod at once, though no kubelet confirms it "
                       "(its containers may still run on node/%s)" % pod.node_name)
        cfg = self.node_settings(pod.node_name)
        grace = None if cfg.grace_period < 0 else cfg.grace_period
        common = dict(namespace=pod.namespace, pod=pod.name, uid=pod.uid, node=pod.node_name, at=at,
                      grace_period_seconds=grace, target=target, candidates=self.candidates.pop(pod.key, ()),
                      rule=RULE, reason=reason)
        if self.cfg.disable_eviction:
            self.b.action("delete", by=USER, force=grace == 0, **common)
        else:
            self.b.action("evict", by=USER, **common)
        index = len(self.b.actions) - 1
        skip_wait = cfg.filters.skip_wait_for_delete_timeout
        if stuck and skip_wait <= 0:
            self.block(pod, self.unreachable_reason(pod, target), "unreachable")
        elif stuck and pod.controller_kind == "StatefulSet" and recreated.elsewhere:
            self.short(pod, "waits-for-old-pod", "evicted, but it stays Terminating on the unreachable node, and the "
                       "StatefulSet creates its replacement (same name) only once it is gone; kubectl drain stops "
                       "waiting after --skip-wait-for-delete-timeout=%ds" % skip_wait)
        elif problem and pod.key in self.ordered_ready:
            self.short(pod, "ordered-ready", "evicted, but its replacement is never created: %s" % problem)
        elif problem:
            self.short(pod, "no-node-fits", "evicted, but its replacement has nowhere to go: %s" % problem)
            if pod.controller_kind != "StatefulSet" and helped_by_pod_add(problem):
                # (a StatefulSet's order decides what follows it)
                self.unplaced[pod.key] = (pod, at, state, spent)
        if state is not None and target is not None and pod.controller_kind == "StatefulSet":
            # an OrderedReady StatefulSet may create its replacement later than the eviction: the
            # budget comes back once that one is Ready (`credit_statefulsets`, after the wave)
            self.sts_credits.append((state, pod, wave, at, spent, index))
        elif state is not None:
            state.replaced(pod, wave, at, spent, target is not None, "has nowhere to go" if problem else "is never created")

    def credit_statefulsets(self) -> None:
        """Give back the budget of the StatefulSet pods evicted so far once their replacements are
        Ready. The disruption controller counts a pod healthy only when it is Ready
        (`pkg/controller/disruption/disruption.go` countHealthyPods), and an OrderedReady
        StatefulSet creates ordinal N only once every lower ordinal is Running and Ready
        (`processReplica`): the replacement is created at the action's `replacementAt`
        (`chain_statefulsets`, the same times the plan reports) and Ready `--pod-startup`
        later; the budget comes back at kubectl's first retry (`wave_at`) after that."""
        if not self.sts_credits:
            return
        self.chain_so_far({pod.controller.uid for _, pod, _, _, _, _ in self.sts_credits})
        startup = float(self.cfg.pod_startup)
        for state, pod, wave, at, spent, i in self.sts_credits:
            a = self.b.actions[i]
            created = float(a.replaced_at) if a.replaced_at is not None else at
            state.replaced(pod, wave, at, spent, True, "", ready_wave=self.wave_at(created + startup, wave + 1))
        self.sts_credits = []

    def read_actions(self) -> None:
        """Read the actions (and shortfalls) added since the last call, each once (`seen`), so a
        plan of many waves or batches stays linear: the pods they remove, and (index, uid) of
        those that remove a StatefulSet's pod."""
        actions = self.b.actions
        for i in range(self.seen, len(actions)):
            a = actions[i]
            if a.type in ("evict", "delete", "kill"):
                self.removed_keys.add((a.namespace, a.pod))
                pod = self.s.pods_by_key.get((a.namespace, a.pod))
                if a.type != "kill" and pod is not None and pod.controller_kind == "StatefulSet":
                    self.sts_rows.append((i, pod.controller.uid))
        self.seen = len(actions)
        shorts = self.b.shortfalls
        for e in shorts[self.shorts_seen:]:
            if e.pod:
                self.short_keys.add((e.namespace, e.pod))
        self.shorts_seen = len(shorts)

    def chain_so_far(self, uids: AbstractSet[str]) -> None:
        """`chain_statefulsets` for the StatefulSets `uids` only, over the actions so far
        (`read_actions`)."""
        self.read_actions()
        chain_ordered_ready(self.b, self.s, [i for i, uid in self.sts_rows if uid in uids],
                            float(self.cfg.pod_startup), self.removed_keys)

    def actions_reordered(self) -> None:
        """The plan's actions were taken out and put back in another order (upgrade's forced
        deletions): `chain_so_far` reads them all again, since the positions it kept are stale."""
        self.seen = 0
        self.removed_keys = set()
        self.sts_rows = []
        self.shorts_seen = 0
        self.returning_rows = 0

    def ready_by_node(self, first: int = 0) -> Dict[str, float]:
        """When the last replacement of the pods each node's drain evicted (the actions from
        `first` on) is Ready: `--pod-startup` after it is created, at the eviction or, for an
        OrderedReady StatefulSet, at its `replacementAt` (settled first: `chain_so_far`)."""
        actions = self.b.actions
        uids: Set[str] = set()
        for a in actions[first:]:
            if a.type in ("evict", "delete") and a.by == USER and a.target is not None:
                pod = self.s.pods_by_key.get((a.namespace, a.pod))
                if pod is not None and pod.controller_kind == "StatefulSet":
                    uids.add(pod.controller.uid)
        if uids:
            self.chain_so_far(uids)
        startup = float(self.cfg.pod_startup)
        out: Dict[str, float] = {}
        for a in self.b.actions[first:]:
            if a.type in ("evict", "delete") and a.by == USER and a.target is not None:
                ready = float(a.replaced_at if a.replaced_at is not None else a.at) + startup
                if ready > out.get(a.node, -1.0):
                    out[a.node] = ready
        return out

    def wave_at(self, t: float, first: int) -> int:
        """The first wave, `first` or later, that comes at or after `t` seconds (`at`)."""
        return max(first, int(math.ceil((t - self.offset) / self.spacing - 1e-9)))

    def retry_unplaced(self, wave: int) -> None:
        """The wave's replacements that fit nowhere when they arrived, tried again once the rest of
        the wave has landed, as kube-scheduler does: a Pending pod goes back to the active queue
        when a pod it may now fit next to is added (a pod its required affinity needs, a new
        domain count for its topology spread), in queue order (priority, then creation)
        (`pkg/scheduler/backend/queue/scheduling_queue.go`: queueing hints). Only those
        InterPodAffinity or PodTopologySpread rejected (`helped_by_pod_add`): no other Filter
        passes because a pod was added. Until nothing more lands."""
        cs = self.placer.cs
        tried: Dict[Tuple[str, str], int] = {}    # pod key -> the cluster state it last failed in
        landed = True
        while landed and self.unplaced:
            landed = False
            queue = sorted(enumerate(self.unplaced.values()), key=lambda t: (-t[1][0].priority, t[0]))
            for _, (pod, at, state, spent) in queue:
                if tried.get(pod.key) == cs.version:
                    continue     # nothing moved since it last failed
                if not self.placer.fits_any(pod, self.placer.names):
                    tried[pod.key] = cs.version
                    continue
                target, _ = self.land(pod, at)
                candidates = self.candidates.pop(pod.key, ())
                if target is None:
                    continue
                landed = True
                del self.unplaced[pod.key]
                self.landed_on_retry(pod, at, target, candidates)
                if state is not None:
                    if spent:
                        state.landed_later(pod, at, wave + 1)
                    elif not pod.ready:
                        state.gain(wave + 1)

    def landed_on_retry(self, pod: Pod, at: float, target: str, candidates: tuple) -> None:
        """Record that the replacement of `pod` (evicted at `at`) lands on `target` after all:
        its action gets the target, its `no-node-fits` shortfall goes."""
        for i, a in enumerate(self.b.actions):
            if a.type in ("evict", "delete") and a.target is None and a.uid == pod.uid and a.pod == pod.name \
                    and a.namespace == pod.namespace and a.at == at:
                reason = a.reason.replace("; its replacement fits no node", "")
                self.b.actions[i] = a.set(target=target, candidates=candidates, reason=(
                    "%s; its replacement is Pending at first, and kube-scheduler places it on node/%s when it "
                    "retries it, once other replacements of the wave have landed" % (reason, target)))
                break
        before = len(self.b.shortfalls)
        self.b.shortfalls = [e for e in self.b.shortfalls if not (
            e.code == "no-node-fits" and e.namespace == pod.namespace and e.pod == pod.name and e.uid == pod.uid)]
        if len(self.b.shortfalls) < before:
            self.node_stats[pod.node_name]["short"] -= 1

    def unreachable_reason(self, pod: Pod, target: Optional[str]) -> str:
        node = self.s.nodes[pod.node_name]
        ready = node.conditions.get("Ready")
        text = ("node/%s is Ready=%s: the Eviction API accepts the eviction, but no kubelet confirms the deletion, "
                "so the pod stays Terminating and kubectl drain waits for it until --timeout (default: forever)"
                % (node.name, ready.status if ready is not None else "?"))
        if pod.controller_kind == "StatefulSet":
            text += "; the StatefulSet creates its replacement (same name) only once the old pod is gone"
        elif target is not None:
            text += "; its replacement is created at once and lands on node/%s" % target
        return text

    def unreachable_verdict(self, name: str) -> str:
        """Since when the node is unreachable, and the two ways out."""
        ready = self.s.nodes[name].conditions.get("Ready")
        since = ""
        if ready is not None and ready.last_transition is not None:
            since = " since %s (%s ago)" % (format_time(ready.last_transition),
                                           format_seconds(max(0, round(self.now - ready.last_transition))))
        return ("node/%s has been Ready=%s%s; ways out: --skip-wait-for-delete-timeout N (kubectl stops waiting "
                "for pods deleted more than N seconds ago), or, once the node is powered off, "
                "'kubectl evictplan shutdown %s --non-graceful' (the out-of-service taint lets pod GC remove them)"
                % (name, ready.status if ready is not None else "Unknown", since, name))

    def budget_block_reason(self, pod: Pod, state: BudgetState, text: str) -> str:
        pdb = state.pdb
        reason = "%s (PDB %s)" % (text, pdb.ref)
        if state.lost:
            reason += ": budget spent and never given back: %s" % "; ".join(state.lost.values())
        elif state.spent == 0 and state.budget.disruptions_allowed == 0:
            replicas = self.replicas(pod)
            if replicas == 1 or (replicas is None and state.budget.expected_pods == 1):
                reason += ": single-replica %s under a PDB that allows 0 disruptions: scale it to 2 replicas " \
                          "(or relax the PDB) before draining" % self.workload(pod)
            else:
                reason += ": the PDB allows 0 disruptions now (%d healthy, %d desired)" % (
                    state.budget.current_healthy, state.budget.desired_healthy)
                sick = [p.ref for p in selected_pods(self.s, pdb)
                        if not p.ready or p.deletion_timestamp is not None]
                if sick:
                    reason += "; not healthy: %s%s" % (", ".join(sick[:3]), " and %d more" % (len(sick) - 3)
                                                       if len(sick) > 3 else "")
        return reason

    def run(self, pods: Sequence[Pod], start_wave: int) -> int:
        """Evict `pods` starting in `start_wave`; returns the last wave used (start_wave - 1 if none)."""
        last = start_wave - 1
        pending = list(pods)
        wave = start_wave
        pdb_cache: Dict[Tuple[str, str], Tuple[PodDisruptionBudget, ...]] = {}
        while pending:
            deferred: List[Pod] = []
            held: List[Tuple[Pod, BudgetState, Eviction]] = []
            decided: List[Tuple[Pod, str, Optional[BudgetState], bool]] = []
            # kubectl evicts concurrently, throttled; the replacements reach the scheduler in
            # `arrival_order`. Pods a budget held back retry together every 5 s: the scheduler's
            # queue takes their replacements by priority (StatefulSet ones once their old pod is gone).
            together: Set[Tuple[str, str]] = set()     # replacements waiting in the queue together
            if wave == start_wave:
                pending = arrival_order(pending, together)
            else:
                together = {p.key for p in pending}     # retried together at kubectl's next 5 s tick
                pending = [p for _, p in sorted(((queue_key(p, i), p) for i, p in enumerate(pending)),
                                                key=lambda t: t[0])]
            self.placer.terminate(pending)      # evicted together: terminating while replacements land
            removed: Set[Tuple[str, str]] = set()
            for pod in pending:
                if self.cfg.disable_eviction:
                    self.remove(pod, wave, "--disable-eviction: plain DELETE, PodDisruptionBudgets bypassed", None)
                    removed.add(pod.key)
                    last = wave
                    continue
                pdbs = pdb_cache.get(pod.key)
                if pdbs is None:
                    pdbs = pdb_cache[pod.key] = pdbs_for_pod(self.s, pod)
                state = self.budget(pdbs[0]) if len(pdbs) == 1 else None
                decision = ledger_decision(pod, pdbs, state, wave)
                unknown = state.budget.unknown if state is not None else ""
                if unknown:
                    state = None
                if decision.allowed:
                    if not decision.pdb_checked:
                        if pod.phase in ("Pending", "Succeeded", "Failed"):
                            reason = "%s: the Eviction API deletes it without a PDB check" % pod.phase
                        elif pod.deletion_timestamp is not None:
                            reason = "already terminating: the Eviction API deletes it without a PDB check"
                        elif unknown:
                            reason = "evict (%s)" % unknown_budget_text(pdbs[0], unknown)
                            self.b.incomplete_for(unknown, "budgets of PodDisruptionBudgets not computed (the "
                                                  "disruption controller counts the controllers' spec.replicas)",
                                                  pod.ref)
                        elif self.s.holds("PodDisruptionBudget"):
                            reason = "evict (no PodDisruptionBudget covers it)"
                        else:
                            reason = "evict (PodDisruptionBudgets are not in the input: not checked)"
                            self.unchecked_budgets += 1
                    elif not decision.spends_budget:
                        policy = state.pdb.unhealthy_pod_eviction_policy
                        reason = "not Ready: evicted without spending PDB %s's budget (%s)" % (
                            state.pdb.ref, "unhealthyPodEvictionPolicy AlwaysAllow" if policy == "AlwaysAllow" else
                            "currentHealthy %d >= desiredHealthy %d" % (state.healthy, state.budget.desired_healthy))
                    else:
                        reason = "PDB %s allows it (disruptionsAllowed %d -> %d)" % (
                            state.pdb.ref, state.allowed, state.allowed - 1)
                        if wave > start_wave:
                            reason = "wave %d, once earlier evicted pods under the PDB have Ready replacements: %s" % (
                                wave - start_wave + 1, reason)
                        state.spend()
                    # a pod the controller did not count as healthy (not Ready, Pending, or a
                    # StatefulSet's Terminating pod, created again once gone) raises currentHealthy
                    # once its replacement is Ready
                    gains = state is not None and not decision.spends_budget and not pod.is_terminal and (
                        (not pod.ready and pod.deletion_timestamp is None)
                        or (pod.deletion_timestamp is not None and pod.controller_kind == "StatefulSet"))
                    decided.append((pod, reason, state if decision.spends_budget or gains else None,
                                    decision.spends_budget))
                    removed.add(pod.key)
                    last = wave
                    continue
                if decision.code == 429 and decision.message == VIOLATES_BUDGET and state is not None:
                    held.append((pod, state, decision))    # kubectl retries it every 5 s
                    continue
                if decision.code == 500:
                    self.block(pod, "%s (PDBs: %s)" % (decision.message, ", ".join(p.ref for p in pdbs)), "multiple-pdbs")
                else:
                    self.block(pod, "%s (PDB %s)" % (decision.text, decision.pdb), "pdb")
            # The wave's evictions all reach the API server (each spending its PDB's budget)
            # before kube-scheduler works through their replacements: a replacement that preempts
            # reads the budgets the whole wave has spent (`pdbs_now`). Placement comes after.
            self.queued = []
            for pod, reason, st, spent in decided:
                self.place_queued(pod if pod.key in together else None)
                self.remove(pod, wave, reason, st, spent=spent)
            self.place_queued(None, last=True)
            self.queued = None
            self.credit_statefulsets()
            self.update_returning(wave)
            if self.RETRY_IN_WAVE:
                self.retry_unplaced(wave)
            self.unplaced.clear()
            self.settle_victims()
            # A held pod waits for budget that comes back later, whichever pod of the wave gives it
            # (a not-Ready pod evicted after it raises currentHealthy once its replacement is Ready).
            for pod, state, decision in held:
                if state.pending_after(wave) is not None:
                    deferred.append(pod)
                else:
                    self.block(pod, self.budget_block_reason(pod, state, decision.text), "pdb")
            self.placer.restore(p for p in pending if p.key not in removed)
            if not deferred:
                break
            nxt = [self.budget(pdb_cache[p.key][0]).pending_after(wave) for p in deferred]
            wave = min(w for w in nxt if w is not None)
            if self.deadline is not None and self.at(wave) >= self.deadline:
                self.cut_off.extend((p, self.at(w if w is not None else wave)) for p, w in zip(deferred, nxt))
                break
            pending = deferred
        return last

    # -- the whole plan -----------------------------------------------------------------------------

    def plan(self) -> Plan:
        cfg = self.cfg
        batch: List[Pod] = []
        for name in cfg.nodes:
            batch.extend(self.filter_node(name, 0))
        self.run(batch, 0)
        self.chain_statefulsets()
        self.inputs_missing()
        self.verdicts()
        self.b.extra["budgets"] = self.budgets_extra()
        return attach(self.s, self.b.build(), float(cfg.pod_startup))

    def chain_statefulsets(self) -> None:
        """kubectl drain evicts a node's pods together, but an OrderedReady StatefulSet creates
        ordinal N again only once every lower ordinal is Running and Ready (`processReplica`):
        the replacements of its evicted pods come one after the other, later than the evictions
        (`chain_ordered_ready`, which also waits for lower ordinals that are down now)."""
        chain_ordered_ready(self.b, self.s, [i for i, a in enumerate(self.b.actions)
                                             if a.type in ("evict", "delete") and a.target],
                            float(self.cfg.pod_startup))

    def inputs_missing(self) -> None:
        """The plan's `incomplete` entries for what the drains could not check."""
        if self.unchecked_daemonsets:
            self.b.incomplete("DaemonSet", "not checked for %s whether its DaemonSet still exists (kubectl drain "
                              "fails on a pod whose DaemonSet is gone; with --force it evicts the pod)"
                              % _plural(self.unchecked_daemonsets, "pod", "pods"))
        if self.unchecked_budgets:
            self.b.incomplete("PodDisruptionBudget", "budgets not checked for %s; a budget may refuse or delay "
                              "them (429) and hold the drain" % _plural(self.unchecked_budgets, "eviction", "evictions"))

    def budgets_extra(self) -> List[dict]:
        """The plan's `budgets`: every PDB the drain consulted, as computed and as spent."""
        return [{"namespace": st.pdb.namespace, "name": st.pdb.name, "source": st.budget.source,
                 "expectedPods": st.budget.expected_pods, "desiredHealthy": st.budget.desired_healthy,
                 "currentHealthy": st.budget.current_healthy, "disruptionsAllowed": st.budget.disruptions_allowed,
                 "spent": st.spent}
                for _, st in sorted(self.budgets.items())]

    def verdicts(self) -> None:
        cfg = self.cfg
        nodes = []
        ready_at = self.ready_by_node()
        words = {"unreachable": ("pod stays Terminating", "pods stay Terminating"),
                 "pdb": ("pod is held by its PodDisruptionBudget", "pods are held by their PodDisruptionBudgets"),
                 "multiple-pdbs": ("pod is covered by more than one PodDisruptionBudget",
                                   "pods are covered by more than one PodDisruptionBudget"),
                 "filters": ("pod fails kubectl's drain filters", "pods fail kubectl's drain filters"),
                 "aborted": ("other pod is not evicted", "other pods are not evicted"),
                 "timeout": ("pod would be evicted only after --timeout", "pods would be evicted only after --timeout")}
        for name in cfg.nodes:
            st = self.node_stats[name]
            start = st["start"]
            self.timeout_blocks(name, st)
            waves = sorted(st["waves"])
            blocked = sum(st["blocked"].values())
            info = {"node": name, "cordon": st.get("cordon", ""), "drainable": blocked == 0,
                    "evicted": st["evicted"], "blocked": blocked, "skipped": st["skipped"]}
            short = st["short"]
            info["shortfall"] = short
            if blocked:
                parts = [_plural(st["blocked"][k], *words[k]) for k in words if st["blocked"].get(k)]
                text = "node/%s: will not finish: %s" % (name, ", ".join(parts))
                if st["blocked"].get("unreachable"):
                    text += "; " + self.unreachable_verdict(name)
                if cfg.timeout and any(st["blocked"].get(k) for k in ("pdb", "unreachable", "timeout")):
                    text += "; " + self.timeout_verdict(name, st)   # kubectl retries these until --timeout
            elif not waves and not self.s.holds("Pod"):
                text = "node/%s: pods are not in the input: what it runs, and so what a drain evicts, is unknown" % name
            elif not waves:
                text = "node/%s: can be drained: nothing to evict" % name
            else:
                n = waves[-1] - start + 1
                # the last wave's replacements are Ready --pod-startup after its evictions, an
                # OrderedReady StatefulSet's once created (`ready_by_node`)
                secs = max((n - 1) * self.spacing + cfg.pod_startup, ready_at.get(name, 0.0) - st["start_at"])
                text = "node/%s: can be drained in %s (~%s)" % (name, _plural(n, "wave", "waves"), format_seconds(secs))
                if short:
                    text = "node/%s: can be drained, but %s in %s (~%s)" % (
                        name, _plural(short, "replacement stays Pending", "replacements stay Pending"),
                        _plural(n, "wave", "waves"), format_seconds(secs))
                info.update(waves=n, seconds=secs)
                if cfg.timeout:
                    text += ", every eviction within --timeout %s" % _go_duration(cfg.timeout)
            if cfg.timeout:
                info["timeout"] = cfg.timeout
            if cfg.one_at_a_time:
                text += " (starts at %s)" % format_offset(st["start_at"])
                info["startsAt"] = st["start_at"]
            if st.get("error"):
                info["error"] = st["error"]
            info["verdict"] = text
            nodes.append(info)
            self.b.note(text)
        self.b.extra["nodes"] = nodes

    # -- kubectl drain --timeout ------------------------------------------------------------------

    def timeout_blocks(self, name: str, st: dict) -> None:
        """Pods planned for eviction at or after --timeout from the start of their node's drain:
        kubectl's per-node global timeout (drain.Helper.Timeout) runs out before it evicts them."""
        limit = self.cfg.timeout
        if not limit:
            return
        begin = st["start_at"]
        for pod, at in st.get("evictions", ()):
            if at - begin >= limit:
                self.block(pod, "planned for %s, but kubectl drain --timeout %s runs out at %s: kubectl gives up on "
                           "node/%s before evicting it" % (format_offset(at), _go_duration(limit),
                                                            format_offset(begin + limit), name), "timeout")

    def timeout_verdict(self, name: str, st: dict) -> str:
        """What kubectl drain does when --timeout runs out on this node."""
        limit = _go_duration(self.cfg.timeout)
        first = min((p for p, at in st.get("evictions", ())
                     if at - st["start_at"] >= self.cfg.timeout), key=lambda p: p.key, default=None)
        pod = ('pods/"%s" -n "%s"' % (first.name, first.namespace)) if first is not None else "pods"
        return ("kubectl drain --timeout %s gives up on it: 'error: unable to drain node \"%s\" due to error: error "
                "when evicting %s: global timeout reached: %s, continuing command...'; the node stays cordoned, "
                "kubectl drains the next node and exits 1" % (limit, name, pod, limit))


def _go_duration(seconds: float) -> str:
    """Go's time.Duration.String() for whole seconds, as kubectl prints --timeout (`1m0s`, `1h0m0s`)."""
    s = int(seconds)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    if h:
        return "%dh%dm%ds" % (h, m, sec)
    if m:
        return "%dm%ds" % (m, sec)
    return "%ds" % sec


def plan_drain(snapshot: Snapshot, settings: DrainSettings, now: float) -> Plan:
    """Plan `kubectl drain NODE...` as one maintenance window: cordons, evictions in waves with
    targets, blocked pods. Node after node (`one_at_a_time`) is `rules/drain_sequence.py`'s."""
    if settings.one_at_a_time:
        raise ValueError("one_at_a_time: plan it with rules.drain_sequence.plan_drain_in_order")
    return DrainRun(snapshot, settings, now).plan()
