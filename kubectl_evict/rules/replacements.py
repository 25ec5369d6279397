"""Who replaces a pod the kubelet stopped on its own node, when, and where it lands.

The kubelet kills pods by itself in two cases: graceful node shutdown and node-pressure
eviction. Either way it sets the pod's phase to Failed once the grace period is over (reason
`Terminated` or `Evicted`) and adds the `DisruptionTarget` condition (reason
`TerminationByKubelet`); the pod object stays. No deletion is needed for the owner to act,
because every workload controller stops counting a Failed pod at once (upstream v1.30-1.33):

- ReplicaSet and ReplicationController (`pkg/controller/replicaset` `syncReplicaSet`, which
  counts `controller.FilterActivePods`: not Succeeded/Failed, not terminating) create the
  replacement when the pod turns Failed; the scheduler places it.
- Job (`pkg/controller/job` `syncJob`): `matchPodFailurePolicy` first (an `Ignore` rule, for
  example on the `DisruptionTarget` condition, does not count the failure, `FailJob` fails the
  Job, `FailIndex` fails the index); a counted failure beyond `backoffLimit` fails the Job
  (`BackoffLimitExceeded`); otherwise `manageJob` creates the replacement once the pod-failure
  backoff (`DefaultJobPodFailureBackOff` 10s, doubled per failure, at most 10m) has passed.
- StatefulSet (`stateful_set_control.go` `processReplica`): deletes the Failed pod (a terminal
  pod is deleted at once: the pod strategy's `CheckGracefulDelete` gives it grace 0) and
  creates it again under the same name, with the same claims, in the next sync; an
  OrderedReady set does that only while every lower ordinal is Running and Ready.
- DaemonSet (`daemon_controller.go` `podsShouldBeOnNode`): deletes the failed daemon pod
  (`failedPodsBackoff` paces repeats) and creates a new one on the same node only when
  `NodeShouldRunDaemonPod` says it should run there (the node's NoSchedule/NoExecute taints
  against the pod's tolerations plus the DaemonSet's own) and the kubelet admits it, which the
  calling rule decides (a node shutting down admits nothing; pressure by its conditions).
- Pods without a controller and static/mirror pods are not replaced.

Replacements are placed by the same scheduler model and the same `place` call drain uses,
against nodes as they are while the pods fail (the rule gives their taints). One that tolerates
those taints may be sent back to its stopped node, whose kubelet runs it only once its Admit
lets it in (never while the node shuts down: `rejected-by-kubelet`).

This module is also the one home of "what recreates this pod" for every rule: the owner lookup
(`find_owner`, `controller_owner`, `workload_of`: the pod's controller reference, a ReplicaSet
folded into its Deployment; a Job's pods are the Job's, whatever CronJob made the Job), what
the input lacks to answer (`owner_kinds_missing`: an `incomplete` entry, never a false outage),
whether a pod that goes away comes back elsewhere and, if not, why (`recreation`, for the pods
drain evicts and the controllers delete), and the StatefulSet's OrderedReady wait
(`ordered_ready_wait`). A controller whose kind the input does not hold is assumed to exist
with its defaults (a Job's backoffLimit 6, a StatefulSet's OrderedReady), and the plan says so
in `incomplete`.
"""

from __future__ import annotations

from typing import AbstractSet, Any, Callable, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Set, Tuple

from kubectl_evict.model import Owner, Pod, Snapshot, Taint
from kubectl_evict.plan import PlanBuilder
from kubectl_evict.rules.owners import (NOTHING_RECREATES, WORKLOAD_KINDS, absent_owner, controller_owner,  # noqa: F401
                                        find_owner, owner_absent)
from kubectl_evict.rules.scheduling import place
from kubectl_evict.scheduling.placement import Placement, Placer
from kubectl_evict.scheduling.statefulset import in_range, ordinal, queue_key
from kubectl_evict.scheduling.tolerations import untolerated_schedule_taints, with_daemonset_tolerations
from kubectl_evict.timeutil import format_offset, format_seconds

JOB_POD_FAILURE_BACKOFF = 10.0        # job_controller.go DefaultJobPodFailureBackOff
JOB_MAX_POD_FAILURE_BACKOFF = 600.0   # MaxJobPodFailureBackOff
# the DaemonSet controller's failedPodsBackoff (cmd/kube-controller-manager/app/apps.go
# startDaemonSetController: flowcontrol.NewBackOff(1*time.Second, 15*time.Minute))
DAEMON_FAILED_POD_BACKOFF = 1.0
DAEMON_MAX_FAILED_POD_BACKOFF = 900.0

# The pod conditions a pod the kubelet stopped carries (a podFailurePolicy onPodConditions rule
# may name any of them): the kubelet's DisruptionTarget, and the status of a stopped pod.
KILLED_POD_CONDITIONS = (("DisruptionTarget", "True"), ("Ready", "False"), ("ContainersReady", "False"),
                         ("PodScheduled", "True"), ("Initialized", "True"))

# When a node runs a given daemon pod again: (seconds after now or None for not within the plan, why).
Admission = Callable[[Pod, float], Tuple[Optional[float], str]]


class KilledPod(NamedTuple):
    """A `kill` the rule emitted: its position in the builder's actions, the pod, and when the
    owner's controller sees it as gone (the end of its grace period: phase Failed)."""
    index: int
    pod: Pod
    failed_at: float
    deleted_at: Optional[float] = None    # a taint-eviction DELETE before then (the pod turns inactive)


class Decision(NamedTuple):
    """The owner controller's answer for one stopped pod."""
    kind: str                  # "schedule" (the scheduler places it), "same-node", "none", "job-failed"
    at: Optional[float]        # when the replacement is created; None: not within the plan
    why: str


# --- who owns a pod ------------------------------------------------------------------------------

WorkloadKey = Tuple[str, str, str]          # (kind, namespace, name)


def workload_of(snapshot: Snapshot, pod: Pod) -> Optional[WorkloadKey]:
    """The workload a pod belongs to, as `kubectl rollout status` names it: (kind, namespace,
    name), a ReplicaSet folded into its Deployment; None for bare and static pods."""
    ref = pod.controller
    if ref is None or ref.kind not in WORKLOAD_KINDS:
        return None
    if ref.kind == "ReplicaSet":
        owner = controller_owner(snapshot, pod)
        if owner is not None and owner.controller is not None and owner.controller.kind == "Deployment":
            return ("Deployment", pod.namespace, owner.controller.name)
    return (ref.kind, pod.namespace, ref.name)


def workload_owner(snapshot: Snapshot, pod: Pod) -> Optional[Owner]:
    """The object of the pod's workload (a Deployment behind its ReplicaSet), None when the
    input does not have it."""
    key = workload_of(snapshot, pod)
    return snapshot.owners.get(key) if key is not None else None


def owner_kinds_missing(snapshot: Snapshot, pod: Pod) -> Tuple[str, ...]:
    """The owner kind `pod`'s workload is counted through that the input does not hold: its
    controller's kind. Not Deployment behind a ReplicaSet the input holds: every ReplicaSet names
    its Deployment (ownerReferences), so an input holding all ReplicaSets and pods counts the
    Deployment's ready replicas in full, and nothing the plan says reads the Deployment object
    (a budget's scale does: `disruption.scale_unknown` asks for it there)."""
    ref = pod.controller
    if ref is None or ref.kind not in WORKLOAD_KINDS:
        return ()
    if not snapshot.holds(ref.kind):
        return (ref.kind,)
    return ()


class Recreation(NamedTuple):
    """Whether a pod that is evicted or deleted comes back on another node (its controller
    creates a replacement the scheduler places), and if not, why (`why`, ending in
    `NOTHING_RECREATES`; reasons that already say what removes the pod append only that)."""
    elsewhere: bool
    why: str = ""


_RECREATED = Recreation(True)


def recreation(snapshot: Snapshot, pod: Pod) -> Recreation:
    """What recreates `pod` once it is evicted or deleted: nothing for a finished pod (its
    controller is done with it), a bare pod, a DaemonSet pod (its controller runs one per node,
    not elsewhere), a static pod (owned by its Node) or a pod whose controller is not in a
    cluster the input holds in full (`absent_owner`: the garbage collector deletes it);
    otherwise its ReplicaSet, ReplicationController, StatefulSet (same name) or Job creates a
    replacement the scheduler places (so does a controller of a kind not modelled, assumed to).
    A pod the kubelet stops stays, Failed: `owner_decision` answers for those."""
    if not pod.recreated_elsewhere:
        if pod.is_terminal:
            return Recreation(False, "it has finished (%s): %s" % (pod.phase, NOTHING_RECREATES))
        if pod.controller is None:
            return Recreation(False, "no controller: " + NOTHING_RECREATES)
        if not pod.controller_kind:    # upstream's own test objects name owners by uid alone
            return Recreation(False, "its controller reference names no kind: %s elsewhere" % NOTHING_RECREATES)
        return Recreation(False, "%s pod: %s elsewhere" % (pod.controller_kind, NOTHING_RECREATES))
    gone = absent_owner(snapshot, pod)
    if gone:
        return Recreation(False, gone)
    condemned = condemned_ordinal(snapshot, pod)
    if condemned:
        return Recreation(False, condemned)
    if pod.deletion_timestamp is not None and pod.controller_kind in _REPLACED_WHEN_TERMINATING:
        return Recreation(False, "its %s replaced it when its deletion began (a pod being deleted no longer counts "
                                 "as active): %s again" % (pod.controller_kind, NOTHING_RECREATES))
    return _RECREATED


def condemned_ordinal(snapshot: Snapshot, pod: Pod) -> str:
    """Why nothing recreates a StatefulSet pod whose ordinal is outside its set's range (`in_range`:
    at or above spec.replicas, counted from spec.ordinals.start; a scale-down under way):
    `updateStatefulSet` puts it with the condemned pods, which `processCondemned` only deletes,
    and it creates pods for the ordinals in the range only.
    "" for any other pod (and when the StatefulSet is not in the input)."""
    n = ordinal(pod) if pod.controller_kind == "StatefulSet" else None
    owner = controller_owner(snapshot, pod) if n is not None else None
    if owner is None or n is None or in_range(owner, n):
        return ""
    where = "not below spec.replicas %d" % owner.replicas if not owner.start_ordinal else \
        "outside spec.ordinals.start %d to %d (start + spec.replicas - 1)" % (
            owner.start_ordinal, owner.start_ordinal + owner.replicas - 1)
    return ("its ordinal %d is %s of StatefulSet %s/%s (scaled down): the StatefulSet controller only deletes "
            "it (processCondemned): %s" % (n, where, pod.namespace, owner.name, NOTHING_RECREATES))


def no_replacement(snapshot: Snapshot, pod: Pod) -> str:
    """The end of the reason of a removed pod nothing recreates: why, where that is more than
    `NOTHING_RECREATES` (it has finished; its owner is not in the cluster, `absent_owner`)."""
    if pod.is_terminal:
        return recreation(snapshot, pod).why
    return absent_owner(snapshot, pod) or condemned_ordinal(snapshot, pod) or NOTHING_RECREATES


#: Controllers that count only active pods (`controller_utils.go` IsPodActive: not Succeeded or
#: Failed, no deletionTimestamp) and so replace a pod as soon as its deletion begins: the
#: replacement of a pod that is already terminating exists already (it is in the input). A
#: StatefulSet waits for the old pod to be gone (same name); a Job depends on its
#: podReplacementPolicy.
_REPLACED_WHEN_TERMINATING = ("ReplicaSet", "ReplicationController")


def replace_removed(b: PlanBuilder, snapshot: Snapshot, placer: Optional[Placer], pod: Pod, at: float, rule: str,
                    gone: str, node: Optional[str] = None) -> Optional[Placement]:
    """Where the replacement of `pod`, deleted or evicted at `at`, lands: None when nothing
    recreates it (`recreation`; `placer` may then be None); otherwise kube-scheduler's placement,
    and where no node fits, a `no-node-fits` shortfall: `gone` (how and when the pod went, e.g.
    `deleted at +5m0s`), "but its replacement fits no node", and the scheduler's reason."""
    if not recreation(snapshot, pod).elsewhere:
        return None
    assert placer is not None
    placed = place(b, placer, pod, at, rule)
    if placed.node is None:
        b.shortfall(pod, "no-node-fits", "%s, but its replacement fits no node: %s" % (gone, placed.reason), node=node)
    return placed


def waits_for_old_pod(b: PlanBuilder, pod: Pod, at: float, node: str, deleted: str = "") -> None:
    """A StatefulSet pod deleted on a node whose kubelet is gone: it stays Terminating (nothing
    confirms its end), and the StatefulSet controller never runs two pods with one identity, so
    its replacement waits for a force delete or the out-of-service taint (`waits-for-old-pod`;
    `processReplica` creates a pod only once the old object is gone). `deleted` says when it was
    deleted where that is not the plan's `at` (a pod already Terminating in the input)."""
    b.shortfall(pod, "waits-for-old-pod", "%s but stays Terminating: the node is unreachable, so its kubelet "
                "never confirms, and the StatefulSet controller creates the replacement only once the old pod is gone "
                "(out-of-service taint or force delete needed)" % (deleted or "deleted at " + format_offset(at)),
                node=node)


# --- the StatefulSet's OrderedReady wait ------------------------------------------------------------


class OrderedWait(NamedTuple):
    """A lower ordinal that keeps an OrderedReady StatefulSet from recreating a pod, and whether
    OrderedReady is only assumed (the StatefulSet is not in the input: the default policy).
    `stuck`: the holder is Terminating on a node whose kubelet never confirms its deletion."""
    holder: Pod
    assumed: bool
    stuck: bool = False

    def text(self, pod: Pod) -> str:
        """`StatefulSet ns/db is OrderedReady: it recreates db-1 only once db-0 is Running and Ready`."""
        policy = "is OrderedReady" if not self.assumed else \
            "is not in the input, so assumed OrderedReady (the default podManagementPolicy)"
        text = "StatefulSet %s/%s %s: it recreates %s only once %s is Running and Ready" % (
            pod.namespace, pod.controller.name, policy, pod.name, self.holder.name)
        if self.stuck:
            text += (" (%s stays Terminating on node/%s, whose kubelet never confirms its deletion, so it is never "
                     "recreated)" % (self.holder.name, self.holder.node_name))
        return text

    @property
    def assumption(self) -> str:
        """Where OrderedReady is only assumed, a parenthesis that says so (else empty)."""
        return " (StatefulSet not in the input: OrderedReady assumed)" if self.assumed else ""


ASSUMED_ORDERED_READY = ("podManagementPolicy not checked: assumed OrderedReady (the default), so the replacement "
                         "waits for every lower ordinal to be Running and Ready")


def kubelet_gone(snapshot: Snapshot, node: str, down: AbstractSet[str] = frozenset()) -> bool:
    """Does nothing confirm the deletion of a pod on `node`? A node the rule takes down (`down`),
    or one whose kubelet has stopped posting status (Ready=Unknown)."""
    if node in down:
        return True
    n = snapshot.nodes.get(node)
    return n is not None and n.ready_status == "Unknown"


def _comes_back(other: Pod) -> bool:
    """Is a pod that is not Running and Ready now on its way back by itself? A finished pod is
    deleted by the StatefulSet controller (grace 0: the pod strategy's CheckGracefulDelete) and
    created again; a terminating one is created again once its kubelet has confirmed the
    deletion (`processReplica`: `isFailed`/`isSucceeded`, `isCreated`)."""
    return other.is_terminal or other.deletion_timestamp is not None


def ordered_ready_wait(b: PlanBuilder, snapshot: Snapshot, pod: Pod, pending: AbstractSet[Tuple[str, str]],
                       leaving: AbstractSet[Tuple[str, str]] = frozenset(),
                       down: AbstractSet[str] = frozenset()) -> Optional[OrderedWait]:
    """`processReplica`'s monotonic check: the lower-ordinal pod of the same OrderedReady
    StatefulSet that keeps `pod`'s replacement from ever being created: one whose own replacement
    stays Pending in this plan (`pending`); one the plan does not replace (`leaving`) that is
    Terminating on a node whose kubelet never confirms it (`kubelet_gone`, `down`: the nodes the
    rule takes down); or one that is not Running and Ready now and not on its way back (a
    finished pod, or one terminating on a live node, is recreated by itself: `ordered_ready_creation`
    says how long that delays `pod`). A StatefulSet the input does not have is assumed
    OrderedReady, and where that decides, `b` lists StatefulSet in `incomplete` for the pod."""
    if pod.controller_kind != "StatefulSet" or absent_owner(snapshot, pod):
        return None
    owner = controller_owner(snapshot, pod)
    if owner is not None and owner.pod_management_policy not in ("", "OrderedReady"):
        return None
    mine = ordinal(pod)
    if mine is None:
        return None
    for other in snapshot.pods_by_owner.get(pod.controller.uid, ()):
        n = ordinal(other)
        if n is None or n >= mine:
            continue
        stuck = other.key not in leaving and other.deletion_timestamp is not None and not other.is_terminal \
            and kubelet_gone(snapshot, other.node_name, down)
        if other.key in pending or stuck or (other.key not in leaving and not _comes_back(other)
                                             and not (other.phase == "Running" and other.ready)):
            if owner is None:
                b.incomplete_for("StatefulSet", ASSUMED_ORDERED_READY, pod.ref)
            return OrderedWait(other, owner is None, stuck)
    return None


#: When each ordinal of a StatefulSet is down: set uid -> ordinal -> (down from, Running and Ready
#: again), seconds after now.
DownTimes = Dict[str, Dict[int, Tuple[float, float]]]


def available_after(snapshot: Snapshot, pod: Pod) -> float:
    """How long a Ready ordinal must stay Ready before the next one is created: its StatefulSet's
    minReadySeconds (`processReplica` waits for `isRunningAndAvailable` too, in monotonic mode);
    0 without the StatefulSet in the input (the default)."""
    owner = controller_owner(snapshot, pod)
    return float(owner.min_ready_seconds) if owner is not None else 0.0


def ordered_ready(snapshot: Snapshot, pod: Pod) -> bool:
    """Does `pod`'s StatefulSet create its ordinals one by one (podManagementPolicy OrderedReady,
    the default, also assumed when the StatefulSet is not in the input)? Parallel (`allowsBurst`)
    does not wait: `runForAll` runs `processReplica` for every ordinal (`slowStartBatch`)."""
    owner = controller_owner(snapshot, pod)
    return owner is None or owner.pod_management_policy in ("", "OrderedReady")


#: The plan's own removals of a StatefulSet's ordinals: ordinal -> (removed at, Running and Ready
#: again plus minReadySeconds, or `NEVER`), the latest removal of each ordinal (`removal_spans`).
Removals = Mapping[int, Tuple[float, float]]

NEVER = float("inf")


def _returning_pods(snapshot: Snapshot, now: float, uid: str,
                    exclude: AbstractSet[Tuple[str, str]]) -> List[Tuple[int, float, Pod]]:
    """The pods of StatefulSet `uid` that are down now and come back by themselves (not in
    `exclude`, the pods the plan removes), lowest ordinal first, with when the old pod is gone: a
    finished pod at once (deleted with grace 0, `processReplica`: `isFailed`/`isSucceeded`); a pod
    Terminating on a node whose kubelet is alive at its deletionTimestamp (a pod stuck
    Terminating is `ordered_ready_wait`'s). Not an ordinal outside the set's range (`in_range`):
    `updateStatefulSet` puts it with the condemned pods, which `processCondemned` deletes and
    nothing creates again."""
    pods = snapshot.pods_by_owner.get(uid, ())
    owner = controller_owner(snapshot, pods[0]) if pods else None
    out: List[Tuple[int, float, Pod]] = []
    for p in pods:
        n = ordinal(p)
        if n is None or p.key in exclude or (owner is not None and not in_range(owner, n)):
            continue
        if p.is_terminal:
            out.append((n, 0.0, p))
        elif p.deletion_timestamp is not None and not kubelet_gone(snapshot, p.node_name):
            out.append((n, max(0.0, float(p.deletion_timestamp) - now), p))
    out.sort(key=lambda t: t[:2])
    return out


def _blocking_now(snapshot: Snapshot, uid: str, exclude: AbstractSet[Tuple[str, str]]) -> Dict[int, Tuple[float, float]]:
    """The ordinals of StatefulSet `uid` (not in `exclude`, the pods the plan removes) that are not
    Running and Ready now and not on their way back: not Ready (or Pending), or Terminating on a node
    whose kubelet never confirms the deletion: down from now on, `NEVER` Ready again in the plan,
    as `ordered_ready_wait` takes them for the pods the plan removes."""
    out: Dict[int, Tuple[float, float]] = {}
    for p in snapshot.pods_by_owner.get(uid, ()):
        n = ordinal(p)
        if n is None or p.key in exclude or p.is_terminal:
            continue
        if (kubelet_gone(snapshot, p.node_name) if p.deletion_timestamp is not None
                else not (p.phase == "Running" and p.ready)):
            out[n] = (0.0, NEVER)
    return out


def _release(snapshot: Snapshot, startup: float, back: Sequence[Tuple[int, float, Pod]], start: int, below: float,
             down: Dict[int, Tuple[float, float]]) -> int:
    """The returning ordinals `back[start:]` below ordinal `below`, in order, into `down` (one
    StatefulSet's `DownTimes`, which holds every lower ordinal the plan removes): each is created
    once its old pod is gone and, under OrderedReady, no lower ordinal is down
    (`ordered_ready_creation`'s wait, whoever took the lower one down), and is down from now until
    Ready `startup` later (plus minReadySeconds: `available_after`). Returns where it stopped.
    Lower ordinals never depend on higher ones, so walking up the ordinals once settles them all."""
    i = start
    ordered = bool(back) and ordered_ready(snapshot, back[0][2])
    while i < len(back) and back[i][0] < below:
        n, gone, p = back[i]
        created = _wait_out(gone, {m: span for m, span in down.items() if m < n})[0] if ordered else gone
        down[n] = (0.0, created + startup + available_after(snapshot, p))
        i += 1
    return i


class _Returning:
    """The ordinals of some StatefulSets that are down now and come back by themselves
    (`_returning_pods`, not the pods in `exclude`), released into a plan's `DownTimes` as a walk
    up the ordinals reaches them (`below`): each then waits for the lower ordinals put there so
    far, and the higher ones wait for it."""

    def __init__(self, snapshot: Snapshot, now: float, startup: float, uids: Iterable[str],
                 exclude: AbstractSet[Tuple[str, str]]) -> None:
        self.snapshot, self.startup = snapshot, startup
        self.pods = {uid: _returning_pods(snapshot, now, uid, exclude) for uid in uids}
        self.done = dict.fromkeys(self.pods, 0)      # uid -> how many of its pods are released

    def below(self, uid: str, n: int, down: DownTimes) -> None:
        """Release StatefulSet `uid`'s returning ordinals below `n` into `down` (`_release`)."""
        if uid in self.pods:
            self.done[uid] = _release(self.snapshot, self.startup, self.pods[uid], self.done[uid], n,
                                      down.setdefault(uid, {}))


def returning_ordinals(snapshot: Snapshot, now: float, startup: float, uid: str,
                       exclude: AbstractSet[Tuple[str, str]] = frozenset(),
                       removals: Optional[Removals] = None) -> Dict[int, Tuple[float, float]]:
    """The ordinals of StatefulSet `uid` that are down now and come back by themselves
    (`_returning_pods`; not in `exclude`, the pods the plan removes): ordinal -> (0, Running and
    Ready again, plus minReadySeconds: `available_after`). Under OrderedReady each is created
    only once every lower ordinal is Running and Ready (`processReplica`, monotonic), whoever took
    the lower one down: the plan's own `removals` (`removal_spans`) too, the times
    `chain_ordered_ready` gives them; one that waits for a lower ordinal that never comes back
    (`NEVER`: one the plan removes for good, or one not Running and Ready now and not on its way
    back, `_blocking_now`) is left out."""
    back = _returning_pods(snapshot, now, uid, exclude)
    if not back:
        return {}
    down = _blocking_now(snapshot, uid, exclude)
    down.update(removals or {})
    _release(snapshot, startup, back, 0, NEVER, down)
    return {n: down[n] for n, _, _ in back if down[n][1] < NEVER}


def removal_spans(snapshot: Snapshot, actions: Iterable[Any], startup: float,
                  never: AbstractSet[Tuple[str, str]] = frozenset()) -> Dict[str, Dict[int, Tuple[float, float]]]:
    """StatefulSet uid -> `Removals`: when the plan's pod actions (evict, delete, kill) take each
    ordinal down, and when its replacement is Running and Ready again: `startup` after it is
    created (`replaced_at`, else the action's `at`), plus minReadySeconds; `NEVER` when no action
    on the pod gives it a target or it is in `never` (a shortfall: it never runs). A pod with two
    actions (the kubelet's kill, then a DELETE) goes, and is replaced, once; the latest removal of
    an ordinal counts (a replacement removed again: empty uid), as in `chain_ordered_ready`. Not a
    finished pod the plan gives no replacement (`recreation`): `chain_ordered_ready` reads only
    removals with a target, and the times of both must agree."""
    gone: Dict[Tuple[Tuple[str, str], str], List[Any]] = {}     # (pod, action uid) -> [from, Ready again, pod]
    for a in actions:
        if a.type not in ("evict", "delete", "kill"):
            continue
        pod = snapshot.pods_by_key.get((a.namespace, a.pod))
        if pod is None or pod.controller_kind != "StatefulSet" or ordinal(pod) is None \
                or (pod.is_terminal and a.target is None):
            continue
        at = float(a.at)
        if a.target is None or pod.key in never:
            ready = NEVER
        else:
            ready = float(a.replaced_at if a.replaced_at is not None else a.at) + startup + available_after(snapshot, pod)
        g = gone.get((pod.key, a.uid))
        if g is None:
            gone[(pod.key, a.uid)] = [at, ready, pod]
        else:
            g[0], g[1] = min(g[0], at), min(g[1], ready)
    out: Dict[str, Dict[int, Tuple[float, float]]] = {}
    for at, ready, pod in gone.values():
        spans = out.setdefault(pod.controller.uid, {})
        n = ordinal(pod)
        if n not in spans or at >= spans[n][0]:
            spans[n] = (at, ready)
    return out


def _wait_out(at: float, lower: Mapping[int, Tuple[float, float]]) -> Tuple[float, Optional[int]]:
    """The first time from `at` at which no ordinal of `lower` is down ((from, Ready again) spans),
    and the ordinal waited for last (None: no wait)."""
    last = None
    while True:
        waits = [(ready, n) for n, (frm, ready) in lower.items() if frm <= at < ready]
        if not waits:
            return at, last
        at, last = max(waits)


def ordered_ready_creation(snapshot: Snapshot, pod: Pod, at: float, sts_down: DownTimes
                            ) -> Tuple[float, Optional[str]]:
    """When an OrderedReady StatefulSet creates `pod`'s replacement, asked at `at`: not while a
    lower ordinal is down (`sts_down`: removed earlier in the plan, or down now and on its way
    back, `returning_ordinals`), only once it is Running and Ready again (`processReplica`
    returns at the first replica that is terminating or not Running and Ready, in monotonic
    mode). (time, the lower pod waited for last, or None when nothing delays it.)"""
    if pod.controller_kind != "StatefulSet" or not ordered_ready(snapshot, pod):
        return at, None
    mine = ordinal(pod)
    if mine is None:
        return at, None
    lower = {n: span for n, span in sts_down.get(pod.controller.uid, {}).items() if n < mine}
    at, last = _wait_out(at, lower)
    if last is None:
        return at, None
    return at, "%s/%s-%d" % (pod.namespace, pod.controller.name, last)


def _ready_again(snapshot: Snapshot, pod: Pod, lower: str, at: float) -> str:
    """`db-0's replacement is Running and Ready (for minReadySeconds 10s), at +1m0s (processReplica)`:
    what an OrderedReady StatefulSet waits for before it creates `pod`'s replacement at `at`."""
    mrs = available_after(snapshot, pod)
    return "%s's replacement is Running and Ready%s, at %s (processReplica)" % (
        lower, " for minReadySeconds %ds" % mrs if mrs else "", format_offset(at))


# --- the controllers' answers ---------------------------------------------------------------------


def match_pod_failure_policy(owner: Owner, conditions: Sequence[Tuple[str, str]] = KILLED_POD_CONDITIONS
                             ) -> Tuple[Optional[int], str]:
    """`matchPodFailurePolicy` for a pod the kubelet stopped: (index of the first rule that
    matches, its action), or (None, "Count") when none does. `onExitCodes` rules are not
    matched: the exit codes of a killed container are unknown before the kill."""
    have = set(conditions)
    for i, rule in enumerate(owner.pod_failure_rules):
        if rule.on_exit_codes:
            continue
        if any((t, s or "True") in have for t, s in rule.on_conditions):
            return i, rule.action
    return None, "Count"


def unmatched_exit_code_rules(owner: Optional[Owner]) -> str:
    """What the plan says of the podFailurePolicy rules on exit codes that come before the rule
    it matched (or that it skipped, with none matched): one of them may decide instead, since a
    killed container exits with whatever its process returns ("" when there are none)."""
    if owner is None:
        return ""
    idx, _ = match_pod_failure_policy(owner)
    unread = [i for i, r in enumerate(owner.pod_failure_rules[:idx]) if r.on_exit_codes]
    if not unread:
        return ""
    return ("podFailurePolicy %s on exit codes %s not matched: a killed container's exit code is not known "
            "before the kill (often 143 after SIGTERM, 137 after SIGKILL), and may decide instead"
            % ("rules " + ", ".join(map(str, unread)) if len(unread) > 1 else "rule %d" % unread[0],
               "were" if len(unread) > 1 else "was"))


def job_backoff(failures: int) -> float:
    """`getRemainingTimeForFailuresCount` right after the last failure: 10s doubled per
    failure after the last success, at most 10m."""
    if failures <= 0:
        return 0.0
    delay = JOB_POD_FAILURE_BACKOFF
    for _ in range(1, failures):
        delay *= 2
        if delay >= JOB_MAX_POD_FAILURE_BACKOFF:
            return JOB_MAX_POD_FAILURE_BACKOFF
    return delay


INDEX_FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count"
INDEX_IGNORED_FAILURE_COUNT = "batch.kubernetes.io/job-index-ignored-failure-count"


def index_failure_counts(pod: Optional[Pod]) -> Tuple[int, int]:
    """(counted, ignored) earlier failures of the pod's completion index, from the annotations
    the Job controller sets on each pod it creates (`parseIndexFailureCountAnnotation`: 0 when
    absent, not an integer, negative or beyond int32)."""
    if pod is None:
        return 0, 0

    def read(key: str) -> int:
        v = pod.annotations.get(key, "")
        try:
            n = int(v)
        except ValueError:
            return 0
        return n if 0 <= n <= 2 ** 31 - 1 else 0
    return read(INDEX_FAILURE_COUNT), read(INDEX_IGNORED_FAILURE_COUNT)


def job_decision(owner: Optional[Owner], failed_at: float, counted: int, known_absent: bool = False,
                 pod: Optional[Pod] = None, failures: Optional[int] = None) -> Tuple[Decision, bool]:
    """`syncJob` for one more Failed pod of a Job: (decision, is the failure counted).

    `counted`: failures of this Job already counted earlier in the plan (they add to
    `status.failed` and to the pod-failure backoff). `owner` None: the Job is not in the input;
    `known_absent`: the input holds every Job, so it does not exist. With
    `backoffLimitPerIndex` the index's own failures (`pod`'s annotations) decide instead
    (`isIndexFailed`: an index whose earlier counted failures reach the limit fails and is not
    retried; the replacement waits the per-index backoff, `getRemainingTimePerIndex`).
    `failures`: every failure of the Job earlier in the plan, ignored ones included (default
    `counted`): the pod-failure backoff counts them all (`newBackoffRecord` takes every new
    failed pod; only `status.failed` leaves out those a podFailurePolicy Ignores)."""
    failures = counted if failures is None else failures
    if owner is None and known_absent:
        return Decision("none", None, "its Job does not exist: " + NOTHING_RECREATES), False
    if owner is None:
        return Decision("schedule", failed_at + job_backoff(failures + 1),
                        "Job controller: the Job is not in the input: assumed to replace it after the pod-failure "
                        "backoff (backoffLimit 6, no podFailurePolicy)"), True
    idx, action = match_pod_failure_policy(owner)
    rule = "podFailurePolicy rule %d (%s) matches its DisruptionTarget condition" % (idx, action) \
        if idx is not None else ""
    per_index = owner.backoff_limit_per_index
    index_failed, index_ignored = index_failure_counts(pod)
    if action == "Ignore" and per_index is not None:
        delay = job_backoff(index_failed + index_ignored + 1)
        return Decision("schedule", failed_at + delay, "Job controller: %s: the failure is not counted; the index's "
                        "replacement is created after the per-index backoff of %s (getRemainingTimePerIndex)"
                        % (rule, format_seconds(delay))), False
    if action == "Ignore":
        delay = job_backoff(failures + 1)
        return Decision("schedule", failed_at + delay, "Job controller: %s: the failure is not counted against "
                        "backoffLimit, but the replacement still waits the pod-failure backoff of %s (newBackoffRecord "
                        "counts every failed pod; manageJob)" % (rule, format_seconds(delay))), False
    if action == "FailJob":
        return Decision("job-failed", None, "Job controller: %s: Job %s/%s fails (reason PodFailurePolicy) and "
                        "nothing replaces the pod" % (rule, owner.namespace, owner.name)), True
    if action == "FailIndex":
        return Decision("job-failed", None, "Job controller: %s: its index fails and is not retried"
                        % rule), True
    failed = owner.failed + counted + 1
    if failed > owner.backoff_limit:
        return Decision("job-failed", None, "Job controller: %d failed pod%s > backoffLimit %d: Job %s/%s fails "
                        "(reason BackoffLimitExceeded) and nothing replaces the pod"
                        % (failed, "" if failed == 1 else "s", owner.backoff_limit, owner.namespace, owner.name)), True
    head = rule + ": counted" if rule else "no podFailurePolicy rule matches: counted"
    if per_index is not None:
        if index_failed >= per_index:
            return Decision("job-failed", None, "Job controller: %s; its index had already failed %d time%s, "
                            "reaching backoffLimitPerIndex %d: the index fails and is not retried (isIndexFailed)"
                            % (head, index_failed, "" if index_failed == 1 else "s", per_index)), True
        delay = job_backoff(index_failed + index_ignored + 1)
        return Decision("schedule", failed_at + delay, "Job controller: %s (failure %d of its index, "
                        "backoffLimitPerIndex %d); the replacement is created after the per-index backoff of %s "
                        "(getRemainingTimePerIndex)" % (head, index_failed + 1, per_index, format_seconds(delay))), True
    delay = job_backoff(failures + 1)
    return Decision("schedule", failed_at + delay, "Job controller: %s (%d of backoffLimit %d); the replacement is "
                    "created after the pod-failure backoff of %s (manageJob)"
                    % (head, failed, owner.backoff_limit, format_seconds(delay))), True


def daemon_blocking_taint(pod: Pod, taints: Sequence[Taint]) -> Optional[Taint]:
    """`NodeShouldRunDaemonPod`'s taint check: the first NoSchedule/NoExecute taint the daemon pod
    (its tolerations plus those the DaemonSet controller adds) does not tolerate, None if it may run."""
    tols = with_daemonset_tolerations(pod.tolerations, pod.host_network)
    bad = untolerated_schedule_taints(taints, tols)
    return bad[0] if bad else None


def daemon_retry_at(failed_at: float, admitted_at: float) -> float:
    """When the daemon pod the kubelet admits again at `admitted_at` is created: the DaemonSet
    controller deletes each Failed daemon pod of a node (and creates the next) only once
    `failedPodsBackoff` has passed since the last deletion (`podsShouldBeOnNode`,
    `IsInBackOffSinceUpdate`): 1s, doubled per deletion, at most 15m, from the first at
    `failed_at`; every copy before `admitted_at` is rejected and Failed again."""
    t, step = failed_at, DAEMON_FAILED_POD_BACKOFF
    while t < admitted_at:
        t += step
        step = min(step * 2, DAEMON_MAX_FAILED_POD_BACKOFF)
    return t


def daemon_decision(pod: Pod, failed_at: float, taints: Sequence[Taint], admission: Admission) -> Decision:
    """`podsShouldBeOnNode` for a failed daemon pod: deleted, and created again on its node once
    the node should run it and the kubelet admits it."""
    head = "DaemonSet controller deletes the failed daemon pod"
    bad = daemon_blocking_taint(pod, taints)
    if bad is not None:
        return Decision("none", None, "%s; it creates none on node/%s while the node has %s, which the daemon pod "
                        "does not tolerate (NodeShouldRunDaemonPod)" % (head, pod.node_name, bad))
    at, why = admission(pod, failed_at)
    if at is None:
        return Decision("none", None, "%s and creates it again on node/%s, but %s" % (head, pod.node_name, why))
    if at > failed_at:
        retry = daemon_retry_at(failed_at, at)
        return Decision("same-node", retry, "%s; %s, until %s: each new copy is rejected (Failed) and deleted after "
                        "failedPodsBackoff (1s, doubled each time, at most 15m), so the copy that runs there is "
                        "created at %s" % (head, why, format_offset(at), format_offset(retry)))
    return Decision("same-node", at, "%s and creates a new one on node/%s at once" % (head, pod.node_name))


def job_failed_pod(snapshot: Snapshot, pod: Pod, failed_at: float, job_counted: Dict[str, int]) -> Decision:
    """The Job controller's answer for one more failed pod of a Job (`job_decision`), counting it
    in `job_counted`: per Job uid the failures counted against backoffLimit, and under
    `uid + "\\x00failures"` every failure (the pod-failure backoff's count). Calls must come in
    the order the pods fail."""
    gone = absent_owner(snapshot, pod)
    if gone:
        return Decision("none", None, gone)
    uid = pod.controller.uid
    every = uid + "\x00failures"
    owner = controller_owner(snapshot, pod)
    decision, counted = job_decision(owner, failed_at, job_counted.get(uid, 0),
                                     owner_absent(snapshot, pod), pod, job_counted.get(every, 0))
    unread = unmatched_exit_code_rules(owner)
    if unread:
        decision = decision._replace(why=decision.why + "; " + unread)
    if counted:
        job_counted[uid] = job_counted.get(uid, 0) + 1
    job_counted[every] = job_counted.get(every, 0) + 1
    return decision


ASSUMED_JOB_AFTER_DELETION = ("podReplacementPolicy, backoffLimit and podFailurePolicy not checked: assumed "
                              "TerminatingOrFailed with backoffLimit 6 (replaced when deleted)")


def unknown_job(b: PlanBuilder, snapshot: Snapshot, pod: Pod) -> None:
    """A deleted Job pod whose Job the input does not hold: its replacement is assumed (`job_decision`
    with no owner), and the plan says so in `incomplete` for the pod."""
    if pod.controller_kind == "Job" and not snapshot.holds("Job") and controller_owner(snapshot, pod) is None:
        b.incomplete_for("Job", ASSUMED_JOB_AFTER_DELETION, pod.ref)


def job_after_deletion(snapshot: Snapshot, pod: Pod, deleted_at: float, node_status: str,
                       not_ready_at: Optional[float], counted: Dict[str, int]) -> Decision:
    """The Job controller's answer for a Job pod the taint-eviction controller deletes (`controller`,
    and `shutdown` of a node without graceful shutdown); `counted` as for `job_failed_pod`.

    `podReplacementPolicy: TerminatingOrFailed` (the default without a podFailurePolicy) counts the
    terminating pod as failed at once (`isPodFailed`): backoffLimit applies, and the replacement
    waits out the pod-failure backoff counted from the pod's finish time (its Ready=False
    transition, else the deletion). `Failed` (forced by a podFailurePolicy) waits until the pod is
    Failed: never, while the node is unreachable (only the out-of-service taint or a force delete
    ends it); a live kubelet fails it after its grace period."""
    owner = controller_owner(snapshot, pod)
    policy = owner.pod_replacement_policy if owner is not None else "TerminatingOrFailed"
    if policy == "Failed":
        if node_status in ("Unknown", ""):
            return Decision("none", None, "Job %s/%s has podReplacementPolicy Failed: its controller creates the "
                            "replacement only once the pod is Failed, which the unreachable node's kubelet never "
                            "reports (out-of-service taint or force delete needed)" % (pod.namespace, pod.controller.name))
        finished = deleted_at + pod.termination_grace_period
    else:
        finished = min(deleted_at, not_ready_at) if not_ready_at is not None else deleted_at
    decision = job_failed_pod(snapshot, pod, finished, counted)
    if decision.kind == "schedule" and decision.at is not None:
        return decision._replace(at=max(decision.at, deleted_at))
    return decision


def replaces_only_failed(snapshot: Snapshot, pod: Pod) -> bool:
    """Does the pod's Job wait for a terminating pod to be Failed before replacing it
    (`onlyReplaceFailedPods`: podReplacementPolicy Failed, the default with a podFailurePolicy)?
    Otherwise a pod being deleted already counts as failed (`isPodFailed`). False for other owners
    and for a Job the input does not hold (the default TerminatingOrFailed)."""
    if pod.controller_kind != "Job":
        return False
    owner = controller_owner(snapshot, pod)
    return owner is not None and owner.pod_replacement_policy == "Failed"


def owner_decision(snapshot: Snapshot, pod: Pod, failed_at: float, taints: Sequence[Taint], admission: Admission,
                   job_counted: Dict[str, int], deleted_at: Optional[float] = None) -> Decision:
    """What the pod's controller does once the kubelet has set the pod Failed (or, for the
    ReplicaSet controller, once the pod is deleted, if that comes first: `deleted_at`).
    `job_counted`: the Job failures earlier in the plan (`job_failed_pod`)."""
    kind = pod.controller_kind
    gone = absent_owner(snapshot, pod)
    if gone:
        return Decision("none", None, gone)
    if kind in ("ReplicaSet", "ReplicationController") and deleted_at is not None and deleted_at < failed_at:
        return Decision("schedule", deleted_at, "%s controller counts only active pods (FilterActivePods): it "
                        "creates the replacement when the pod is deleted at %s, before it is Failed"
                        % (kind, format_offset(deleted_at)))
    if pod.deletion_timestamp is not None and kind in ("ReplicaSet", "ReplicationController", "Job") \
            and not replaces_only_failed(snapshot, pod):
        return Decision("none", None, "already terminating: its %s controller created its replacement when its "
                        "deletion started (FilterActivePods)" % kind)
    if kind in ("ReplicaSet", "ReplicationController"):
        return Decision("schedule", failed_at, "%s controller counts only active pods (FilterActivePods): it creates "
                        "the replacement when the pod is Failed" % kind)
    if kind == "StatefulSet":
        condemned = condemned_ordinal(snapshot, pod)
        if condemned:
            return Decision("none", None, condemned)
        return Decision("schedule", failed_at, "StatefulSet controller deletes the Failed pod and creates it again "
                        "under the same name, with the same claims (processReplica)")
    if kind == "Job":
        if deleted_at is not None and deleted_at < failed_at and not replaces_only_failed(snapshot, pod):
            # isPodFailed: with podReplacementPolicy TerminatingOrFailed a pod being deleted counts
            # as failed already, so the Job acts at the deletion, not when the kubelet fails it
            d = job_failed_pod(snapshot, pod, deleted_at, job_counted)
            return d._replace(why="deleted at %s, before it is Failed: a terminating pod counts as failed "
                                  "(isPodFailed, podReplacementPolicy TerminatingOrFailed); %s"
                                  % (format_offset(deleted_at), d.why))
        return job_failed_pod(snapshot, pod, failed_at, job_counted)
    if kind == "DaemonSet":
        return daemon_decision(pod, failed_at, taints, admission)
    if kind == "Node":
        return Decision("none", None, "static pod: only the kubelet's manifest runs it again")
    if not kind:
        return Decision("none", None, recreation(snapshot, pod).why)
    return Decision("none", None, "owned by a %s, whose controller is not modelled: whether it is replaced is "
                    "not known" % kind)


# --- placing them -------------------------------------------------------------------------------------


def replace_killed(b: PlanBuilder, snapshot: Snapshot, rule: str, kills: Sequence[KilledPod],
                   node_taints: Mapping[str, Tuple[Taint, ...]], admission: Admission, startup: float,
                   lifted: Optional[Mapping[str, Tuple[float, Tuple[str, ...]]]] = None) -> None:
    """Give every kill its replacement: the owner controller's answer, and for those the
    scheduler places, the node (`target`, `candidates`) or the FitError (`no-node-fits`).

    Replacements are placed in the order their controllers create them (then kube-scheduler's
    queue order); the stopped pods hold no room any more. `node_taints`: the taints of the nodes
    whose pods are stopped, as they are while the pods fail (shutdown: not-ready; pressure: the
    condition's taint). A replacement that tolerates those taints may be scheduled back onto its
    stopped node: the kubelet there runs it only once `admission` says so (a node shutting down
    never does: `rejected-by-kubelet`). `startup`: seconds from creation to Ready, for an
    OrderedReady StatefulSet, whose next ordinal is created only once the lower one is Ready.
    `lifted`: node -> (when, keys) of the rule's NoSchedule taints the node lifecycle controller
    removes later in the plan (pressure: once the condition clears); a replacement that fits
    nowhere but would fit its own node without them is still a `no-node-fits` shortfall (it is
    Pending until then), and its reason says when it lands back (`_lands_back`)."""
    if not kills:
        return
    stopped_nodes = frozenset(k.pod.node_name for k in kills)
    # when each ordinal of the sets is down: the kills, as they are placed, and the ones down now
    # and on their way back, each released before the first kill above it (`_release`: it waits
    # for the lower kills placed by then)
    returning = _Returning(snapshot, b.now, startup,
                           {k.pod.controller.uid for k in kills if k.pod.controller_kind == "StatefulSet"},
                           frozenset(k.pod.key for k in kills))
    sts_down: DownTimes = {}
    nodes = [_with(n, taints=node_taints[n.name]) if n.name in node_taints else n for n in snapshot.nodes.values()]
    placer = Placer(nodes, snapshot.pods_by_node, leaving=[k.pod for k in kills], snapshot=snapshot, preempt=True)
    job_counted: Dict[str, int] = {}
    decided: List[Tuple[KilledPod, Decision]] = []
    # Job failures counted in time order (a pod deleted before it is Failed counts from its deletion)
    for k in sorted(kills, key=lambda k: min(k.failed_at, k.deleted_at if k.deleted_at is not None else k.failed_at)):
        taints = node_taints.get(k.pod.node_name, snapshot.nodes[k.pod.node_name].taints)
        decided.append((k, owner_decision(snapshot, k.pod, k.failed_at, taints, admission, job_counted,
                                          k.deleted_at)))
    order = sorted(range(len(decided)), key=lambda i: (decided[i][1].at if decided[i][1].at is not None else 0.0,
                                                        queue_key(decided[i][0].pod, i)))
    unknown_jobs = sum(1 for k in kills if k.pod.controller_kind == "Job" and not snapshot.holds("Job")
                       and controller_owner(snapshot, k.pod) is None)
    if unknown_jobs:
        b.incomplete("Job", "backoffLimit and podFailurePolicy not checked for %d stopped Job pod%s: assumed "
                     "backoffLimit 6 and no podFailurePolicy (replaced after the pod-failure backoff)"
                     % (unknown_jobs, "" if unknown_jobs == 1 else "s"))
    pending: Set[Tuple[str, str]] = set()
    leaving = frozenset(k.pod.key for k in kills)
    records: List[Dict[str, object]] = []
    tally: Dict[str, Dict[str, int]] = {}
    for i in order:
        k, d = decided[i]
        pod = k.pod
        target: Optional[str] = None
        candidates: Tuple[str, ...] = ()
        why = d.why
        outcome = "not-replaced"
        if d.kind == "schedule":
            wait = ordered_ready_wait(b, snapshot, pod, pending, leaving, stopped_nodes)
            if wait is not None:
                pending.add(pod.key)
                outcome = "never-created"
                why += "; but " + wait.text(pod)
                b.shortfall(pod, "ordered-ready", "stopped by the kubelet, but its replacement is never created: "
                            "%s is not Running and Ready%s" % (wait.holder.ref, wait.assumption))
            else:
                n = ordinal(pod) if pod.controller_kind == "StatefulSet" else None
                if n is not None:
                    returning.below(pod.controller.uid, n, sts_down)
                created, lower = ordered_ready_creation(snapshot, pod, d.at, sts_down)
                if lower is not None and controller_owner(snapshot, pod) is None:
                    b.incomplete_for("StatefulSet", ASSUMED_ORDERED_READY, pod.ref)
                if lower is not None:
                    d = d._replace(at=created)
                    why += "; OrderedReady: it is created only once " + _ready_again(snapshot, pod, lower, created)
                placed = place(b, placer, pod, d.at, rule)
                target, candidates = placed.node, placed.candidates
                if target is None:
                    pending.add(pod.key)
                    outcome = "fits-nowhere"
                    why += "; it fits no node"
                    landing = _lands_back(snapshot, placer, pod, lifted)
                    why += landing
                    b.shortfall(pod, "no-node-fits", "stopped by the kubelet; its replacement (created at %s) has "
                                "nowhere to go: %s%s" % (format_offset(d.at), placed.reason, landing))
                elif target in stopped_nodes:
                    # the kubelet asked is the target's (another stopped node's, when it is not the pod's own)
                    runs_at, refused = admission(pod if target == pod.node_name else _with(pod, node_name=target),
                                                 d.at)
                    if (runs_at is None or runs_at > d.at) and any(c not in stopped_nodes for c in candidates):
                        # tied at the top score with a node that runs it: the scheduler picks among
                        # the tied nodes at random, so a copy the stopped node's kubelet turns away
                        # is soon placed on the other one (a kubelet that admits it now, such as
                        # MemoryPressure alone for a pod that is not BestEffort, keeps it)
                        other = next(c for c in candidates if c not in stopped_nodes)
                        placer.remove(pod, target)
                        placer.commit(pod, other)
                        outcome = "placed"
                        why += ("; the scheduler places it on %s (tied with %s, whose kubelet turns away a copy "
                                "sent there)" % (other, target))
                        target = other
                    elif runs_at is None:
                        pending.add(pod.key)
                        outcome = "rejected"
                        back = "back to" if target == pod.node_name else "to"
                        why += "; the scheduler sends it %s %s, whose taints it tolerates, but %s" % (
                            back, target, refused)
                        b.shortfall(pod, "rejected-by-kubelet", "stopped by the kubelet; its replacement (created at "
                                    "%s) is scheduled %s node/%s, whose taints it tolerates, but %s; each new "
                                    "copy fails there and its controller creates another"
                                    % (format_offset(d.at), "back onto" if target == pod.node_name else "onto",
                                       target, refused))
                    else:
                        outcome = "placed"
                        why += "; the scheduler places it %s %s" % ("back on" if target == pod.node_name else "on",
                                                                   target)
                        if runs_at > d.at:
                            why += (", where %s: each copy fails (reason Evicted) and its controller creates another "
                                    "until it is admitted at %s" % (refused, format_offset(runs_at)))
                            d = d._replace(at=runs_at)
                else:
                    outcome = "placed"
                    why += "; the scheduler places it on %s" % target
                if outcome == "placed" and pod.controller_kind == "StatefulSet" and ordinal(pod) is not None:
                    sts_down.setdefault(pod.controller.uid, {})[ordinal(pod)] = (
                        float(b.actions[k.index].at), float(d.at) + startup + available_after(snapshot, pod))
        elif d.kind == "same-node":
            target = pod.node_name
            placer.commit(pod, target)
            outcome = "same-node"
        elif d.kind == "job-failed":
            outcome = "job-failed"
            b.shortfall(pod, "job-failed", "stopped by the kubelet: " + d.why)
        elif pod.controller_kind == "DaemonSet":
            outcome = "daemon-later"
        elif pod.deletion_timestamp is not None and pod.controller_kind:
            outcome = "already-replaced"
        b.actions[k.index] = _with(b.actions[k.index], target=target, has_target=True, candidates=candidates,
                                   replaced_at=d.at if target is not None and outcome != "rejected" else None)
        counts = tally.setdefault(pod.node_name, {})
        counts[outcome] = counts.get(outcome, 0) + 1
        records.append({"namespace": pod.namespace, "pod": pod.name, "node": pod.node_name,
                        "controller": pod.controller_kind or "", "failedAt": k.failed_at,
                        "createdAt": d.at if outcome in ("placed", "fits-nowhere", "same-node", "rejected") else None,
                        "target": target, "outcome": outcome, "reason": why})
    for node in sorted(tally):
        b.note("node/%s: replacements: %s" % (node, _tally_text(tally[node])))
    b.extra["replacements"] = sorted(records, key=lambda r: (r["failedAt"], r["namespace"], r["pod"]))


ORDERED_READY_MARK = "; OrderedReady: the StatefulSet creates it only once "


def chain_ordered_ready(b: PlanBuilder, snapshot: Snapshot, indexes: Sequence[int], startup: float,
                        removed: Optional[AbstractSet[Tuple[str, str]]] = None) -> None:
    """For pod removals already placed (`b.actions[i]` with a `target`), delay the replacements
    of an OrderedReady StatefulSet so that ordinal N is created only while no lower ordinal is
    down: removed earlier in the plan and not Ready again, or down now and on its way back
    (`returning_ordinals`: finished, or Terminating on a live node; those in turn wait for the
    lower ordinals the plan removes), whatever order the rule placed them in
    (`ordered_ready_creation`): sets `replaced_at` and says why. Ordinals are taken lowest
    first, as `processReplica` walks them; calling it again changes nothing.
    `removed`: the keys of the pods the plan's actions remove, when the caller keeps them (else
    read from the actions)."""
    rows = []
    for i in indexes:
        a = b.actions[i]
        pod = snapshot.pods_by_key.get((a.namespace, a.pod))
        if pod is None or not a.target or pod.controller_kind != "StatefulSet" or ordinal(pod) is None:
            continue
        rows.append((pod.controller.uid, ordinal(pod), float(a.at), i, pod))
    if not rows:
        return
    if removed is None:
        removed = {(a.namespace, a.pod) for a in b.actions if a.type in ("evict", "delete", "kill")}
    # the ordinals down now that come back by themselves join the walk up the ordinals: each
    # waits for the lower ordinals the plan removes, and the higher ones wait for it (`_release`)
    returning = _Returning(snapshot, b.now, startup, {r[0] for r in rows}, removed)
    sts_down: DownTimes = {}
    for uid, n, removed_at, i, pod in sorted(rows, key=lambda r: r[:3]):
        returning.below(uid, n, sts_down)
        a = b.actions[i]
        asked = float(a.replaced_at if a.replaced_at is not None else a.at)
        if pod.deletion_timestamp is not None and a.replaced_at is None and not kubelet_gone(snapshot, pod.node_name):
            # already Terminating: removing it again does not shorten its grace period, and the
            # StatefulSet creates the same name only once the old pod is gone (its deletionTimestamp)
            gone = float(pod.deletion_timestamp) - b.now
            if gone > asked:
                asked = gone
                a = b.actions[i] = _with(a, replaced_at=gone, reason=a.reason + "; already Terminating: the "
                                         "StatefulSet creates it again once the old pod is gone, at %s"
                                         % format_offset(gone))
        at, lower = ordered_ready_creation(snapshot, pod, asked, sts_down)
        if lower is not None and controller_owner(snapshot, pod) is None:
            b.incomplete_for("StatefulSet", ASSUMED_ORDERED_READY, pod.ref)
        if lower is not None and ORDERED_READY_MARK not in a.reason:
            b.actions[i] = _with(a, replaced_at=at,
                                 reason=a.reason + ORDERED_READY_MARK + _ready_again(snapshot, pod, lower, at))
        elif lower is not None:
            b.actions[i] = _with(a, replaced_at=at)
        sts_down.setdefault(uid, {})[n] = (removed_at, at + startup + available_after(snapshot, pod))


def _lands_back(snapshot: Snapshot, placer: Placer, pod: Pod,
                lifted: Optional[Mapping[str, Tuple[float, Tuple[str, ...]]]]) -> str:
    """"; once node/N's T taint is removed at +X, it lands back on N ..." when the replacement of
    `pod`, which fits nowhere now, would fit its own node without the taints `lifted` there (else
    ""). A taint change requeues the pods TaintToleration rejected (tainttoleration.go
    EventsToRegister), and the kubelet admits them with no pressure condition left."""
    lift = lifted.get(pod.node_name) if lifted else None
    node = snapshot.nodes.get(pod.node_name)
    if lift is None or node is None:
        return ""
    at, keys = lift
    untainted = _with(node, taints=tuple(t for t in node.taints if not (t.key in keys and t.effect == "NoSchedule")))
    if not placer.fits_on(pod, untainted):
        return ""
    return "; once node/%s's %s taint%s removed at %s, it lands back on %s if the pressure does not return" % (
        node.name, ", ".join(keys), " is" if len(keys) == 1 else "s are", format_offset(at), node.name)


def _with(record: Any, **changes: Any) -> Any:
    """`record.set(**changes)` without PClass's per-field checks (thousands of kills a plan)."""
    values = {f: getattr(record, f) for f in type(record)._pclass_fields}
    values.update(changes)
    return type(record).trusted(**values)


_OUTCOMES = (("placed", "placed by the scheduler once the pod is Failed", "placed by the scheduler once the pods are Failed"),
             ("same-node", "daemon pod back on its node", "daemon pods back on their node"),
             ("fits-nowhere", "fits no node", "fit no node"),
             ("rejected", "sent back to its stopped node, whose kubelet rejects it",
              "sent back to their stopped node, whose kubelet rejects them"),
             ("never-created", "never created (OrderedReady)", "never created (OrderedReady)"),
             ("job-failed", "Job fails instead", "Jobs fail instead"),
             ("daemon-later", "daemon pod back only once its node can run it again",
              "daemon pods back only once their node can run them again"),
             ("already-replaced", "pod already replaced (it was terminating)",
              "pods already replaced (they were terminating)"),
             ("not-replaced", "pod nothing replaces", "pods nothing replaces"))


def _tally_text(counts: Mapping[str, int]) -> str:
    parts = []
    for key, one, many in _OUTCOMES:
        n = counts.get(key, 0)
        if n:
            parts.append("%d %s" % (n, one if n == 1 else many))
    return ", ".join(parts)
