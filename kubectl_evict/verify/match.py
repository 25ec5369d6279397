"""Match every entry of a plan to what the cluster did: pure, (plan, snapshot, events, times) -> Verification.

What is compared, and against what upstream behaviour:

* Pod removals (`evict` / `delete` / `kill`): the planned pod (by uid) is gone, terminating, or
  finished (the kubelet's evictions leave the pod object in phase Failed). When and by whom come
  from Events (`events.REMOVAL_REASONS`) and from the replacement's creationTimestamp: the
  ReplicaSet, Job and ReplicationController controllers create a replacement as soon as a pod is
  marked for deletion (kube-controller-manager's replica_set.go counts terminating pods as gone),
  so that time bounds the removal.
* Replacements are matched to removed pods through their owner: the removed pod's own controller
  while the cluster still shows it; else the `owner` the plan recorded for the action; else the
  StatefulSet pod of the same name with a new uid; else the ReplicaSet / Job /
  ReplicationController whose name the pod's generated name starts with (those controllers name
  pods `OWNER-xxxxx`, `GenerateName`; plans written before `owner` existed), or the StatefulSet
  SET of a pod named SET-ORDINAL that was not recreated. The n-th pod of an owner that went
  was gone by the creation of the n-th pod that owner created after the plan was made (not
  merely after an earlier `--since`: `_Matcher.window`); which new pod is
  shown as whose replacement prefers the nodes the plan names (`_placed`).
* A replacement on the plan's `target`, or on one of its `candidates` (tied at the top score), is
  as planned; on another node it differs; still unscheduled, the scheduler's latest
  FailedScheduling text is the evidence.
* Times: the plan's `at` are offsets. Reality's +0s (the anchor) is `--since` when given, else the
  earliest observed effect aligned with its `at` (a drain applied an hour after it was
  planned is not an hour late). An effect more than `slack` seconds after its planned time
  differs ("later"); one not seen yet is `pending` until its time plus `slack` has passed, and
  `pending` throughout while nothing of the plan has been observed and no `--since` is given.
* Node edits (cordon, taint, label and their removals) are compared with the node now; taints
  added by the node lifecycle controller carry `timeAdded`, compared with `at`.
* `blocked` pods should still be there; `shortfall` replacements should still be Pending;
  `workloads` should have `readyAfter` ready replicas.
"""

from __future__ import annotations

from typing import AbstractSet, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from kubectl_evict.model import Condition, Node, Owner, Pod, Snapshot, VolumeAttachment
from kubectl_evict.plan import KUBELET, NODE_LIFECYCLE, POD_ACTIONS, USER, Action, Entry, Plan, Workload
from kubectl_evict.scheduling.disruption import pdbs_for_pod
from kubectl_evict.scheduling.tolerations import NOT_READY, OUT_OF_SERVICE, UNREACHABLE
from kubectl_evict.timeutil import format_offset, format_seconds, format_time
from kubectl_evict.verify.events import ALSO_SEEN, CANCELLED, REMOVAL_REASONS, EventIndex, container_restart
from kubectl_evict.verify.model import (AS_PLANNED, DIFFERS, PENDING, UNKNOWN, Check, Event, Evidence,
                                        Verification, worst)
from kubectl_evict.rules.replacements import WORKLOAD_KINDS, find_owner, workload_of
from kubectl_evict.workloads import DEFAULT_STARTUP, ready_now, replicasets_by_deployment

SLACK = 60.0        # seconds an effect may come after its planned time and still be as planned
# An Event naming a remover more than this after the pod was seen to go found it already gone:
# object times are whole seconds and each component stamps Events with its own clock.
REMOVER_TOLERANCE = 5.0
# A replacement created up to this much before its pod's removal as estimated from whole-second
# object times (deletionTimestamp minus the grace period) was still created for it.
CREATED_TOLERANCE = 1.0
GENERATED = ("ReplicaSet", "Job", "ReplicationController")   # controllers that name pods OWNER-xxxxx
PRESSURE_CONDITIONS = ("MemoryPressure", "DiskPressure", "PIDPressure")
MAX_EVIDENCE = 6    # per entry: the latest few events of each kind are enough to tell the story

PodKey = Tuple[str, str]


class _Fate:
    """What became of one pod the plan names."""

    def __init__(self, key: PodKey, pod: Optional[Pod], state: str) -> None:
        self.key = key
        self.pod = pod                  # the planned pod while the cluster still shows it
        self.state = state              # running | terminating | finished | gone
        self.removed_at: Optional[float] = None
        self.settle = 0.0               # seconds the removal may precede removed_at (see _bound)
        self.grace: Optional[float] = None   # the plan's grace period for the pod (None: its own)
        self.removers: List[Tuple[float, str]] = []   # (Event time, component) of Events naming a remover
        self.evidence: List[Evidence] = []
        self.owner: Optional[Owner] = None
        self.owner_missing = ""         # why no owner could be found
        self.replacement: Optional[Pod] = None
        self.seen_at: Optional[float] = None    # removed_at as the pod's own evidence says (before _bound)
        self.first_landing: Optional[Tuple[Event, str]] = None   # see _Matcher.landed_before

    @property
    def went(self) -> bool:
        return self.state != "running"

    @property
    def by(self) -> Optional[str]:
        """The component an Event names as the pod's remover: the first that acted by the time the
        pod was seen to go. One that came later found it gone already: the taint-eviction
        controller also deletes pods the kubelet stopped (phase Failed: terminal pods get no special
        treatment, pkg/controller/tainteviction), minutes after a graceful shutdown killed them."""
        for t, actor in self.removers:
            if self.removed_at is None or t <= self.removed_at + REMOVER_TOLERANCE:
                return actor
        return None


class _Matcher:
    def __init__(self, plan: Plan, snapshot: Snapshot, events: Sequence[Event], read_at: float,
                 since: Optional[float], slack: float) -> None:
        self.plan = plan
        self.snapshot = snapshot
        self.read_at = read_at
        self.since = since
        self.slack = slack
        self.start = since if since is not None else plan.now
        self.events = EventIndex(events, self.start)
        # the pods an owner created from here on can be replacements: not one the plan's own input
        # held (created before its `now`), whatever `--since` says (see `window`)
        self.fresh_from = max(self.start, plan.now)
        self.planned_uids = {a.uid for a in plan.actions if a.type in POD_ACTIONS and a.uid}
        self.fates: Dict[PodKey, _Fate] = {}
        self.anchor: Optional[float] = since
        self.anchor_source = "--since" if since is not None else ""
        self._first: Optional[Tuple[float, float]] = None    # (seen, at) of the effect the anchor rests on
        self._vas: Optional[Dict[str, VolumeAttachment]] = None
        self._last_at: Optional[Dict[str, float]] = None
        self.new_nodes = frozenset(str(n["node"]) for n in plan.extra.get("newNodes", ()))
        self.chained: AbstractSet[PodKey] = frozenset()   # pods whose replacement the plan evicts again
        self._rs_of: Optional[Dict[Tuple[str, str, str], List[str]]] = None   # Deployment -> its ReplicaSets' uids
        self.claimed: set = set()       # (name, uid) of gone replacements already told as some pod's first landing

    def lands(self, node_name: str, want: Tuple[str, ...]) -> bool:
        """Is a pod on `node_name` where the plan wants it (`want`: target and candidates)? The
        nodes `upgrade` adds carry names it made up; the provider names them itself, so any node
        that joined after the plan was made stands for them."""
        if node_name in want:
            return True
        if not self.new_nodes.intersection(want):
            return False
        n = self.snapshot.nodes.get(node_name)
        return n is not None and n.creation_timestamp is not None and n.creation_timestamp > self.plan.now

    def last_removal_at(self, node: str) -> float:
        """The `at` of the plan's last pod removal on `node` (0: none)."""
        if self._last_at is None:
            self._last_at = {}
            for a in self.plan.actions:
                if a.type in POD_ACTIONS:
                    self._last_at[a.node] = max(self._last_at.get(a.node, 0.0), float(a.at))
        return self._last_at.get(node, 0.0)

    def volume_attachment(self, name: str) -> Optional[VolumeAttachment]:
        if self._vas is None:
            self._vas = {v.name: v for v in self.snapshot.volume_attachments}
        return self._vas.get(name)

    # -- pods -------------------------------------------------------------------------------------
    def fate(self, namespace: str, name: str, uid: str, grace: Optional[float] = None,
             owner: Optional[Tuple[str, str, str]] = None) -> _Fate:
        key = (namespace, name)
        f = self.fates.get(key)
        if f is not None:
            return f
        pod = self.snapshot.pods_by_key.get(key)
        if pod is not None and uid:
            same = pod.uid == uid
        elif pod is not None:   # an entry without uid: the pod that existed when the plan was made
            same = pod.creation_timestamp is None or pod.creation_timestamp <= self.plan.now
        else:
            same = False
        if same:
            assert pod is not None
            if pod.deletion_timestamp is not None:
                f = _Fate(key, pod, "terminating")
            elif pod.is_terminal:
                f = _Fate(key, pod, "finished")
            else:
                f = _Fate(key, pod, "running")
        else:
            f = _Fate(key, None, "gone")
        times: List[float] = []
        for ev in self.events.pod(namespace, name, uid, REMOVAL_REASONS):
            if ev.reason == "TaintManagerEviction" and ev.note.startswith(CANCELLED):
                f.evidence.append(_ev(ev))
                continue
            if (f.state == "running" and ev.reason == "Killing") or container_restart(ev):
                continue    # a container restart, not the pod going
            times.append(ev.first)
            f.evidence.append(_ev(ev))
            actor = REMOVAL_REASONS[ev.reason]
            if actor is not None:
                f.removers.append((ev.first, actor))
        if f.pod is not None and f.state == "terminating":
            g = grace if grace is not None else f.pod.termination_grace_period
            t = f.pod.deletion_timestamp - (g or 0)
            times.append(t)
            f.evidence.append(Evidence(f.pod.deletion_timestamp, "Pod " + _ref(namespace, name),
                                       "metadata.deletionTimestamp", "", "terminating (deleted at about %s)"
                                       % format_time(t)))
        if f.pod is not None and f.state == "finished":
            f.evidence.append(Evidence(None, "Pod " + _ref(namespace, name), "status.phase", "",
                                       "phase %s on %s" % (f.pod.phase, f.pod.node_name or "no node")))
        self._owner(f, namespace, name, pod if not same else None, owner)
        f.grace = grace
        if times:
            f.removed_at = f.seen_at = min(times)
        self.fates[key] = f
        return f

    def _owner(self, f: _Fate, namespace: str, name: str, other: Optional[Pod],
               recorded: Optional[Tuple[str, str, str]]) -> None:
        """The controller that would recreate the pod (see the module docstring)."""
        ref = (f.pod.controller.kind, f.pod.controller.name, f.pod.controller.uid) \
            if f.pod is not None and f.pod.controller is not None else recorded
        if ref is None and other is not None and other.controller is not None:
            ref = (other.controller.kind, other.controller.name, other.controller.uid)   # same name, new uid
        if ref is not None:
            kind, owner_name, uid = ref
            f.owner = find_owner(self.snapshot, kind, namespace, owner_name, uid)
            if f.owner is None:
                f.owner_missing = "its %s %s %s" % (kind, _ref(namespace, owner_name), _absent(self.snapshot, kind))
            return
        if f.pod is not None:
            f.owner_missing = "it has no controller"
            return
        prefix, _, suffix = name.rpartition("-")
        # a StatefulSet names its pods SET-ORDINAL (pkg/controller/statefulset stateful_set_utils.go
        # getPodName): one whose pod is gone and not recreated yet is found by the name too
        kinds = GENERATED + (("StatefulSet",) if suffix.isdigit() else ())
        for kind in kinds:
            owner = self.snapshot.owners.get((kind, namespace, prefix)) if prefix else None
            if owner is not None:
                f.owner = owner
                return
        f.owner_missing = "no ReplicaSet, Job or ReplicationController named %s and no StatefulSet pod %s" % (
            _ref(namespace, prefix or name), _ref(namespace, name))
        unread = [k for k in kinds if not self.snapshot.holds(k)]
        if unread:
            f.owner_missing += " among what was read (not read: %s)" % ", ".join(unread)

    def pair_replacements(self, order: Sequence[Tuple[PodKey, float]],
                          wants: Dict[PodKey, Tuple[str, ...]]) -> None:
        """Pair removed pods with the pods their owner created after the start. In time order (by
        when they were seen to go, else by their planned `at`) for when each went: the k-th new
        pod exists only once k pods were marked for deletion. Which new pod is shown as whose
        replacement: see `_placed` (`wants`: the nodes the plan puts each pod's replacement on,
        () for a replacement planned to stay Pending)."""
        by_owner: Dict[str, List[_Fate]] = {}
        seen = set()
        for key, at in sorted(order, key=lambda kv: kv[1]):
            f = self.fates[key]
            if not f.went or f.owner is None or key in seen:
                continue
            seen.add(key)
            same_name = self.snapshot.pods_by_key.get(key)
            if f.owner.kind == "StatefulSet":
                if same_name is not None and same_name is not f.pod and self._is_new(same_name, self.window(f)):
                    f.replacement = same_name
                    if key not in self.chained:
                        _bound(f, same_name, gone=True)
                continue
            by_owner.setdefault(self.replaced_through(f.owner), []).append(f)
        for group, fates in by_owner.items():
            if all(f.removed_at is not None for f in fates):   # else the plan's order (`order` is by `at`)
                fates.sort(key=lambda f: f.removed_at)
            fresh: List[Pod] = []
            per_owner: Dict[str, List[_Fate]] = {}
            for f in fates:
                per_owner.setdefault(f.owner.uid if f.owner is not None else "", []).append(f)
            for uid, mine in per_owner.items():
                own = self._new_pods((uid,), mine)[:len(mine)]
                fresh += own
                for f, p in zip(mine, own):
                    if f.key not in self.chained:   # its first replacement is gone: a later one dates nothing
                        _bound(f, p)
            if len(fresh) < len(fates):
                # a Deployment that rolled out: its other ReplicaSets' new pods, created by the
                # rollout for none of the pods in particular (they date no removal)
                fresh += self._new_pods(tuple(u for u in self.owner_uids(group) if u not in per_owner))
            fresh.sort(key=lambda p: (p.creation_timestamp, p.name))
            for f, p in _placed(fates, fresh, wants, self.lands, self.new_nodes).items():
                f.replacement = p
        # a replacement now elsewhere (or Pending) after an earlier one landed as planned and moved
        # on: the pod now there replaced that earlier one, so only the earlier one dates the removal
        done = set()
        for key, _ in sorted(order, key=lambda kv: kv[1]):
            f = self.fates[key]
            r, want = f.replacement, wants.get(key)
            if key in done or r is None or not want or key in self.chained or f.owner is None:
                continue
            done.add(key)
            if r.node_name and self.lands(r.node_name, want):
                continue
            first = self.landed_before(f, want, r)
            if first is not None:
                f.first_landing = first
                t = first[0].first
                f.removed_at = t if f.seen_at is None or t < f.seen_at else f.seen_at
                f.settle = float(f.grace if f.grace is not None else r.termination_grace_period) \
                    if f.owner.kind == "StatefulSet" and f.removed_at == t else 0.0

    def replaced_through(self, owner: Owner) -> Tuple[str, str, str]:
        """Whose new pods replace a pod of `owner`: a ReplicaSet a Deployment controls counts for
        its Deployment, since a rollout during the drain creates the replacements from a NEW
        ReplicaSet (pkg/controller/deployment: getNewReplicaSet gives each ReplicaSet the
        Deployment as controller, and rolloutRolling scales the new one up as the old ones go
        down); any other owner stands for itself. ("Deployment", namespace, name) or ("uid", UID, "")."""
        ref = owner.controller
        if owner.kind == "ReplicaSet" and ref is not None and ref.kind == "Deployment":
            return ("Deployment", owner.namespace, ref.name)
        return ("uid", owner.uid, "")

    def owner_uids(self, group: Tuple[str, str, str]) -> Tuple[str, ...]:
        """The owners whose pods count for `group` (see replaced_through)."""
        if group[0] == "uid":
            return (group[1],)
        if self._rs_of is None:
            self._rs_of = replicasets_by_deployment(self.snapshot)
        return tuple(self._rs_of.get(group, ()))

    def owner_names(self, owner: Owner) -> Tuple[str, ...]:
        """The names of the owners whose pods replace a pod of `owner` (a Deployment's ReplicaSets)."""
        names = [owner.name]
        for uid in self.owner_uids(self.replaced_through(owner)):
            o = self.snapshot.owners_by_uid.get(uid)
            if o is not None:
                names.append(o.name)
        return tuple(dict.fromkeys(names))

    def landed_before(self, f: _Fate, want: Tuple[str, ...], current: Pod) -> Optional[Tuple[Event, str]]:
        """An earlier replacement of `f`'s pod that the scheduler put where the plan wants it and
        that is gone since (moved again: evicted, descheduled), told by what is left of it, its
        `Scheduled` Event ("Successfully assigned NS/NAME to NODE", pkg/scheduler/schedule_one.go).
        Its pod is the owner's (a generated name `OWNER-xxxxx`; a StatefulSet's same name with
        another uid). Each such pod answers for one removed pod only. (Event, node) or None."""
        if f.owner is None or not want:
            return None
        namespace, own = f.key
        if f.owner.kind == "StatefulSet":
            def accept(name: str) -> bool:
                return name == own
        elif f.owner.kind in GENERATED:
            prefixes = tuple(n + "-" for n in self.owner_names(f.owner))

            def accept(name: str) -> bool:
                return name.startswith(prefixes)
        else:
            return None
        for ev, node in self.events.scheduled(namespace, accept):
            ident = (ev.name, ev.uid)
            if ident in self.claimed or ev.uid in self.planned_uids or not self.lands(node, want) or \
                    ev.first < self.window(f):
                continue
            still = self.snapshot.pods_by_key.get((namespace, ev.name))
            if still is not None and (not ev.uid or still.uid == ev.uid):
                continue        # a pod still there (this replacement, or another's): not one that moved on
            self.claimed.add(ident)
            return ev, node
        return None

    def window(self, f: _Fate) -> float:
        """From when a pod created by `f`'s owner can be `f`'s pod's replacement. The ReplicaSet,
        Job and RC controllers create one once the pod is marked for deletion (replica_set.go
        manageReplicas counts only active pods: controller.FilterActivePods drops terminating
        ones), a StatefulSet later still. So a pod created before the plan was made was in the
        plan's own input beside the pod it would replace: not its replacement, even with a
        `--since` earlier than the plan's `now`. Except for a pod already marked for deletion
        when the plan was made: its replacement was created from then on (not before `--since`)."""
        if f.seen_at is not None and f.seen_at < self.plan.now:
            lo = f.seen_at - CREATED_TOLERANCE
            return lo if self.since is None else max(self.since, lo)
        return self.fresh_from

    def _new_pods(self, uids: Sequence[str], fates: Sequence[_Fate] = ()) -> List[Pod]:
        """The pods of the owners `uids` created since the start (not the plan's own), oldest
        first: those created since the plan was made, and for each of `fates` that was already
        going then, the first one created in its `window` before that."""
        pods = sorted((p for uid in uids for p in self.snapshot.pods_by_owner.get(uid, ())
                       if p.uid not in self.planned_uids and p.creation_timestamp is not None),
                      key=lambda p: (p.creation_timestamp, p.name))
        out = [p for p in pods if p.creation_timestamp >= self.fresh_from]
        early = sorted(w for w in (self.window(f) for f in fates) if w < self.fresh_from)
        if early:
            before = [p for p in pods if p.creation_timestamp < self.fresh_from]
            taken = set()
            for lo in early:
                i = next((i for i, p in enumerate(before) if i not in taken and p.creation_timestamp >= lo), None)
                if i is not None:
                    taken.add(i)
            out = [before[i] for i in sorted(taken)] + out
        return out

    def _is_new(self, pod: Pod, since: Optional[float] = None) -> bool:
        """Was `pod` created since the plan was made (or since `since`, a `window`)?"""
        lo = self.fresh_from if since is None else since
        return pod.creation_timestamp is not None and pod.creation_timestamp >= lo

    # -- the anchor ------------------------------------------------------------------------------
    def align(self, at: float, observed: Optional[float], what: str) -> None:
        """Offer an observed effect for the anchor: the one seen first wins (at the same moment,
        the one planned first). Not the earliest `observed - at`: an effect that came earlier
        than planned (a PDB wave whose budget was free at once) would drag +0s back and make
        everything else look late. Nor anything seen before the plan was made (a pod already
        terminating then): that is not the plan happening."""
        if observed is None or self.since is not None or observed < self.start:
            return
        key = (observed, float(at))
        if self._first is None or key < self._first:
            self._first = key
            self.anchor = observed - float(at)
            self.anchor_source = "aligned on %s, seen at %s" % (what, format_time(observed))

    def due(self, at: float) -> bool:
        """Should an effect planned at `at` have been seen by the time of the read?"""
        return self.anchor is not None and self.read_at >= self.anchor + float(at) + self.slack

    def late(self, at: float, observed: Optional[float]) -> Optional[str]:
        if observed is None or self.anchor is None:
            return None
        offset = observed - self.anchor
        if offset > float(at) + self.slack:
            return "at %s, planned %s (%s later)" % (format_offset(offset), format_offset(at),
                                                    format_seconds(offset - float(at)))
        return None

    def when(self, t: Optional[float]) -> str:
        if t is None:
            return "time not known"
        if self.anchor is None:
            return format_time(t)
        return "%s (%s)" % (format_offset(t - self.anchor), format_time(t))


def _placed(fates: Sequence[_Fate], fresh: Sequence[Pod], wants: Dict[PodKey, Tuple[str, ...]],
            lands: Callable[[str, Tuple[str, ...]], bool], new_nodes: AbstractSet[str]) -> Dict[_Fate, Pod]:
    """The new pods of one owner, shown as replacements. The ReplicaSet, Job and RC controllers
    create new pods for a count, for no pod in particular, and the order in which the pods went is
    not the plan's to keep (kubectl drain evicts all at once; the taint-eviction controller works
    its nodes in random order): each removed pod gets a new pod on a node its plan entry names (or
    a Pending one, where the plan says none lands) while there is one, the rest in time order.
    Linear in the pods: new pods are indexed by node ("" for Pending), each list in time order."""
    by_node: Dict[str, List[int]] = {}
    for i, p in enumerate(fresh):
        by_node.setdefault(p.node_name or "", []).append(i)
    heads = {n: 0 for n in by_node}
    # nodes that stand for a wanted name without being it (upgrade's surge nodes): few
    stand_ins: Dict[Tuple[str, ...], List[str]] = {}
    taken = [False] * len(fresh)
    out: Dict[_Fate, Pod] = {}

    def head(n: str) -> Optional[int]:
        """The earliest new pod on `n` not yet taken."""
        idx = by_node.get(n)
        if idx is None:
            return None
        k = heads[n]
        while k < len(idx) and taken[idx[k]]:
            k += 1
        heads[n] = k
        return idx[k] if k < len(idx) else None

    for f in fates:
        want = wants.get(f.key)
        if want is None:
            continue
        nodes: Sequence[str] = want or ("",)
        if want:
            if want not in stand_ins:
                stand_ins[want] = [n for n in by_node if n and n not in want and lands(n, want)] \
                    if new_nodes.intersection(want) else []
            nodes = tuple(want) + tuple(stand_ins[want])
        best = min((i for i in (head(n) for n in nodes) if i is not None), default=None)
        if best is not None:
            taken[best] = True
            out[f] = fresh[best]
    rest = (i for i in range(len(fresh)) if not taken[i])
    for f in fates:
        if f not in out:
            i = next(rest, None)
            if i is None:
                break
            out[f] = fresh[i]
    return out


def _bound(f: _Fate, replacement: Pod, gone: bool = False) -> None:
    """A replacement exists only once its pod was marked for deletion (ReplicaSet, Job, RC) or
    fully gone (`gone`: StatefulSet): the pod was removed by the replacement's creation. A
    StatefulSet recreates the name only after the old pod finished terminating, up to its grace
    period after the eviction (pkg/controller/statefulset): that much earlier it may have gone
    (`settle`), and a removal is late only if it was late even then."""
    t = replacement.creation_timestamp
    if t is not None and (f.removed_at is None or t < f.removed_at):
        f.removed_at = t
        f.settle = float(f.grace if f.grace is not None else replacement.termination_grace_period) if gone else 0.0


def _node_name(m: _Matcher, name: str) -> str:
    return name + " (a node that joins)" if name in m.new_nodes else name


def _ref(namespace: str, name: str) -> str:
    return "%s/%s" % (namespace, name)


def _ev(ev: Event) -> Evidence:
    text = ev.note + (" (x%d)" % ev.count if ev.count > 1 else "")
    return Evidence(ev.first, ev.object, ev.reason, ev.by, text)


def _pod_line(p: Pod) -> str:
    if p.node_name:
        state = "Ready" if p.ready else "not Ready (%s)" % (p.phase or "no phase")
        return "%s on %s, %s" % (p.ref, p.node_name, state)
    return "%s Pending, not scheduled" % p.ref


# --- the entries ------------------------------------------------------------------------------

def _planned_pod(a: Action) -> str:
    parts = ["%s at %s by %s" % (a.type, format_offset(a.at), a.by)]
    if a.has_target or a.type == "evict":
        also = [c for c in a.candidates if c != a.target]
        if a.target is None:
            parts.append("no replacement lands")
        else:
            parts.append("replacement on %s%s" % (a.target, " (or %s)" % ", ".join(also) if also else ""))
    return "; ".join(parts)


def _scheduling(m: _Matcher, p: Pod) -> Tuple[str, List[Evidence]]:
    """Why a pod is unscheduled, in the scheduler's words (its latest FailedScheduling event)."""
    evs = m.events.pod(p.namespace, p.name, p.uid, ("FailedScheduling",))
    if evs:
        last = max(evs, key=lambda e: e.last)
        return last.note, [_ev(last)]
    return "", []


def _replacement_findings(m: _Matcher, a: Action, f: _Fate, shortfall: bool
                          ) -> Tuple[List[Tuple[str, str]], List[Evidence], Dict[str, object]]:
    """(status, text) findings about the replacement of a removed pod, its evidence and facts."""
    out: List[Tuple[str, str]] = []
    evidence: List[Evidence] = []
    facts: Dict[str, object] = {}
    r = f.replacement
    if f.owner is None:
        out.append((UNKNOWN, "replacement not matched: %s" % (f.owner_missing or "no owner")))
        return out, evidence, facts
    # the plan's time for the replacement's creation: later than the removal where its controller
    # waits (an OrderedReady StatefulSet's lower ordinals, a Job's backoff, a kill's grace period)
    created = float(a.replaced_at) if a.replaced_at is not None else float(a.at)
    if r is None:
        at = created + DEFAULT_STARTUP
        waits = ""
        if f.owner.kind == "StatefulSet" and f.pod is not None and f.pod.deletion_timestamp is not None:
            # the same name cannot be created while the old pod object exists: the StatefulSet
            # recreates it once the pod finished terminating (its grace period ends at deletionTimestamp)
            waits = ": %s is still terminating (deletionTimestamp %s), and the StatefulSet recreates it only " \
                    "once it is gone" % (f.pod.ref, m.when(f.pod.deletion_timestamp))
            if m.anchor is not None:
                at = max(at, f.pod.deletion_timestamp - m.anchor)
        if shortfall:
            out.append((AS_PLANNED, "no replacement running (%s %s)" % (f.owner.kind, _ref(f.owner.namespace,
                                                                                            f.owner.name))))
        elif m.due(at):
            nor = ""
            if m.replaced_through(f.owner)[0] == "Deployment" and f.owner.controller is not None:
                nor = ", nor did any other ReplicaSet of Deployment %s" % _ref(f.owner.namespace,
                                                                              f.owner.controller.name)
            out.append((DIFFERS, "no replacement: %s %s created no new pod%s%s" % (
                f.owner.kind, _ref(f.owner.namespace, f.owner.name), nor, waits)))
        else:
            out.append((PENDING, "no replacement yet%s" % waits))
        return out, evidence, facts
    facts["replacement"] = {"namespace": r.namespace, "pod": r.name, "uid": r.uid, "node": r.node_name or None,
                            "phase": r.phase, "ready": r.ready,
                            "created": format_time(r.creation_timestamp) if r.creation_timestamp else None}
    rolled = ""
    if r.controller is not None and f.owner.controller is not None and r.controller.uid != f.owner.uid:
        # a pod of another ReplicaSet of the same Deployment: it rolled out meanwhile
        rolled = " (from ReplicaSet %s: Deployment %s rolled out)" % (r.controller.name, f.owner.controller.name)
        facts["replacement"]["replicaSet"] = r.controller.name  # type: ignore[index]
    if r.node_name:
        scheduled = m.events.pod(r.namespace, r.name, r.uid, ("Scheduled",))
        evidence.extend(_ev(e) for e in scheduled[-1:])
        if not scheduled:
            evidence.append(Evidence(r.creation_timestamp, "Pod " + r.ref, "spec.nodeName", "",
                                     "created %s, on %s" % (m.when(r.creation_timestamp), r.node_name)))
        if shortfall:
            out.append((DIFFERS, "a replacement landed after all: %s" % _pod_line(r)))
        elif m.lands(r.node_name, (a.target,) + tuple(a.candidates)):
            joined = "" if r.node_name == a.target or r.node_name in a.candidates else \
                " (joined since: the plan's %s)" % a.target
            out.append((AS_PLANNED, "replacement %s%s%s" % (_pod_line(r), joined, rolled)))
        elif _landed_first(m, a, f, r, out, evidence, facts):
            pass
        else:
            also = [c for c in a.candidates if c != a.target]
            out.append((DIFFERS, "replacement %s, not on %s%s%s" % (
                _pod_line(r), _node_name(m, a.target), " or " + ", ".join(_node_name(m, c) for c in also)
                if also else "", rolled)))
    else:
        why, evs = _scheduling(m, r)
        evidence.extend(evs)
        facts["replacement"]["pending"] = why or None  # type: ignore[index]
        nominated = r.nominated_node_name
        if nominated:
            facts["replacement"]["nominatedNode"] = nominated  # type: ignore[index]
        planned = ", planned on %s" % a.target if a.target and not shortfall else ""
        text = "replacement %s Pending%s%s" % (r.ref, planned, ": " + why if why else " (no FailedScheduling event)")
        if shortfall:
            out.append((AS_PLANNED, text))
        elif _landed_first(m, a, f, r, out, evidence, facts):
            pass
        elif nominated and m.lands(nominated, (a.target,) + tuple(a.candidates)):
            # it preempted there: kube-scheduler binds a nominated pod once its victims are gone
            # (framework/preemption prepareCandidate sets status.nominatedNodeName; the victims
            # keep their grace period): not happened yet, on its way to the planned node
            out.append((PENDING, "replacement %s Pending, nominated to %s (preemption): it binds there once the "
                                 "victims are gone" % (r.ref, nominated)))
        elif nominated:
            out.append((DIFFERS, "replacement %s Pending, nominated to %s (preemption)%s" % (
                r.ref, nominated, planned)))
        elif why or m.due(created + DEFAULT_STARTUP):
            out.append((DIFFERS, text))
        else:
            out.append((PENDING, text))
    return out, evidence, facts


def _landed_first(m: _Matcher, a: Action, f: _Fate, r: Pod, out: List[Tuple[str, str]], evidence: List[Evidence],
                  facts: Dict[str, object]) -> bool:
    """The replacement now elsewhere (or Pending) after an earlier one landed as planned and was
    moved again since: as planned (then moved), on its Scheduled Event. True when so (and said)."""
    first = f.first_landing
    if first is None:
        return False
    ev, node = first
    evidence.append(_ev(ev))
    facts["landedFirst"] = {"pod": ev.name, "uid": ev.uid or None, "node": node, "scheduled": format_time(ev.first)}
    out.append((AS_PLANNED, "replacement %s landed on %s as planned (Scheduled %s), since moved: now %s" % (
        _ref(ev.namespace, ev.name), node, m.when(ev.first),
        _pod_line(r) if r.node_name else "%s Pending" % r.ref)))
    return True


PAST = {"evict": "evicted", "delete": "deleted", "kill": "killed"}


def _stopped_with_node(m: _Matcher, a: Action, f: _Fate) -> Optional[Condition]:
    """The node's Ready condition, when a kubelet `kill` is told by the node being down rather than
    by the pod object. A node that shuts down without graceful shutdown (or powers off before the
    kubelet posts the pods' status) stops their containers with it and updates nothing: the pod
    objects stay Running until the controllers delete them (the taint-eviction controller, the
    plan's own later `delete`), and the node turns Ready=Unknown (pkg/controller/nodelifecycle).
    None: the pod object tells (Failed, from the kubelet, or removed by the kubelet)."""
    if a.type != "kill" or a.by != KUBELET or f.state == "finished" or f.by == KUBELET:
        return None
    node = m.snapshot.nodes.get(a.node)
    ready = node.conditions.get("Ready") if node is not None else None
    if ready is None or ready.status == "True":
        return None
    if f.removed_at is not None and ready.last_transition is not None and f.removed_at <= ready.last_transition:
        return None     # seen to go before the node went down: the pod object tells
    return ready


def _removal_findings(m: _Matcher, a: Action, f: _Fate) -> List[Tuple[str, str]]:
    out: List[Tuple[str, str]] = []
    at, done = float(a.at), PAST[a.type]
    down = _stopped_with_node(m, a, f)
    if down is not None:
        return [(AS_PLANNED, "stopped with node %s, down since %s (Ready=%s): a node that is down updates none of "
                 "its pods' objects" % (a.node, m.when(down.last_transition), down.status))]
    if not f.went:
        where = f.pod.node_name if f.pod is not None else a.node
        still = "still %s on %s" % (f.pod.phase if f.pod else "there", where)
        out.append((DIFFERS, "not %s: %s" % (done, still)) if m.due(at) else
                   (PENDING, "not yet: %s (planned %s)" % (still, format_offset(at))))
        return out
    word = {"gone": "gone", "terminating": "terminating", "finished": "finished (%s)"
            % (f.pod.phase if f.pod else "")}[f.state]
    late = m.late(at, f.removed_at - f.settle if f.removed_at is not None else None)
    if late:
        out.append((DIFFERS, "%s later: %s" % (done, late)))
    else:
        out.append((AS_PLANNED, "%s %s" % (word, m.when(f.removed_at) if f.removed_at is not None
                                            else "(no event says when)")))
    if f.by is not None and f.by != a.by and f.by not in ALSO_SEEN.get(a.by, ()):
        out.append((DIFFERS, "%s by %s, not by %s as planned" % (done, f.by, a.by)))
    return out


def _check(ref: str, section: str, planned: str, findings: List[Tuple[str, str]],
           evidence: Iterable[Evidence], item: object, facts: Optional[Dict[str, object]] = None) -> Check:
    status = worst(s for s, _ in findings)
    observed = "; ".join(t for _, t in findings)
    diffs = tuple(t for s, t in findings if s == status and s != AS_PLANNED)
    ev = sorted(dict.fromkeys(evidence), key=lambda e: (e.time is None, e.time or 0.0, e.object, e.reason))
    if len(ev) > MAX_EVIDENCE:
        ev = ev[:2] + ev[-(MAX_EVIDENCE - 2):]
    return Check(ref=ref, section=section, status=status, planned=planned, observed=observed,
                 differences=diffs, evidence=tuple(ev), item=item,
                 facts=tuple(sorted((facts or {}).items())))


def _pod_action(m: _Matcher, i: int, a: Action, shortfall_keys: Dict[PodKey, Entry],
                chain: Optional[Tuple[int, int]] = None) -> Check:
    """`chain`: (the action before, the action after) when this action or the next on the same pod
    is a second eviction: the replacement evicted again, named by the first pod (no uid). The
    replacements in between are gone by design: only the last one is compared with its target."""
    f = m.fates[(a.namespace, a.pod)]
    before, again = chain if chain is not None else (i, i)
    r = f.replacement
    # an eviction again (no uid) not done yet: the pod still runs on a node this or an earlier
    # eviction again takes it from (a one-at-a-time drain or upgrade midway)
    waiting = chain is not None and not a.uid and f.went and r is not None and r.deletion_timestamp is None \
        and not r.is_terminal and r.node_name in {x.node for x in m.plan.actions[:i + 1] if not x.uid and
                                                  x.type in POD_ACTIONS and (x.namespace, x.pod) == f.key}
    if waiting:
        assert r is not None
        findings = [_not_yet(m, a.at, "not evicted again: %s is still %s on %s" % (r.ref, r.phase or "there",
                                                                                  r.node_name))]
    elif again == i and before != i and f.went:
        findings = [(AS_PLANNED, "evicts again the replacement of actions[%d], which the plan cannot name (no "
                                 "uid): told by where the last replacement runs" % before)]
    else:
        findings = _removal_findings(m, a, f)
    evidence = list(f.evidence)
    facts: Dict[str, object] = {"state": f.state}
    down = _stopped_with_node(m, a, f)
    if down is not None:
        evidence.append(Evidence(down.last_transition, "Node " + a.node, "condition Ready", "", "Ready=%s: %s" % (
            down.status, down.message or down.reason or "no reason given")))
        if down.last_transition is not None:
            facts["nodeDownSince"] = format_time(down.last_transition)
    if f.removed_at is not None:
        facts["removedAt"] = format_time(f.removed_at)
        if m.anchor is not None:
            facts["removedAfter"] = round(f.removed_at - m.anchor, 3)
    if f.by:
        facts["removedBy"] = f.by
    short = (a.namespace, a.pod) in shortfall_keys
    if waiting:
        pass        # no new replacement yet to compare
    elif f.went and again != i:
        findings.append((AS_PLANNED, "its replacement is evicted again by actions[%d]" % again))
    elif f.went and a.target is not None and not short:
        more, ev, fx = _replacement_findings(m, a, f, shortfall=False)
        findings += more
        evidence += ev
        facts.update(fx)
    return _check("actions[%d]" % i, "actions", _planned_pod(a), findings, evidence, a, facts)


def _node_action(m: _Matcher, i: int, a: Action, node: Optional[Node]) -> Check:
    planned = "%s at %s by %s" % (a.type, format_offset(a.at), a.by)
    findings: List[Tuple[str, str]] = []
    evidence: List[Evidence] = []
    facts: Dict[str, object] = {}
    if a.type == "detach":
        va = m.volume_attachment(a.volume_attachment)
        if not m.snapshot.holds("VolumeAttachment"):   # none read is not none there (a 403 on the kind)
            findings.append((UNKNOWN, "VolumeAttachment %s %s" % (a.volume_attachment,
                                                                    _absent(m.snapshot, "VolumeAttachment"))))
        elif va is None or va.node_name != a.node or not va.attached:
            findings.append((AS_PLANNED, "detached" if va is None or not va.attached else "attached to %s now"
                             % va.node_name))
        else:
            findings.append(_not_yet(m, a.at, "still attached to %s" % a.node))
        return _check("actions[%d]" % i, "actions", planned, findings, evidence, a)
    if node is None or (a.uid and node.uid and node.uid != a.uid):
        findings.append((UNKNOWN, "node %s is no longer in the cluster" % a.node if node is None else
                         "node %s was replaced since the plan was made (uid %s, planned %s)"
                         % (a.node, node.uid, a.uid)))
        return _check("actions[%d]" % i, "actions", planned, findings, evidence, a)
    if a.type == "cordon":
        cordons = m.events.node(a.node, ("NodeNotSchedulable",))
        evidence += [_ev(e) for e in cordons[-1:]]
        seen = cordons[0].first if cordons else None
        late = m.late(a.at, seen)
        if late:
            findings.append((DIFFERS, "cordoned later: %s" % late))
        elif node.unschedulable or cordons:
            findings.append((AS_PLANNED, "cordoned %s" % m.when(seen) if seen is not None else "cordoned"))
        if node.unschedulable or cordons:
            if not node.unschedulable:
                uncordons = m.events.node(a.node, ("NodeSchedulable",))
                evidence += [_ev(e) for e in uncordons[-1:]]
                findings.append((AS_PLANNED, "uncordoned since%s" % (
                    " " + m.when(uncordons[-1].first) if uncordons else "")))
        elif _drained_after(m, a):
            # kubectl drain (and apply) evict only once the cordon succeeded
            # (staging/src/k8s.io/kubectl/pkg/cmd/drain RunDrain), and the usual end of a maintenance
            # is an uncordon; with no NodeNotSchedulable Event left (kube-apiserver --event-ttl,
            # 1h by default) the cluster no longer tells when the cordon was lifted
            findings.append((UNKNOWN, "not cordoned now (spec.unschedulable is false), and no NodeNotSchedulable "
                                      "event is left to tell: the evictions from %s that follow the cordon "
                                      "happened, so it was uncordoned since" % a.node))
        else:
            findings.append(_not_yet(m, a.at, "not cordoned (spec.unschedulable is false)"))
    elif a.type in ("taint", "untaint"):
        same = [t for t in node.taints if t.key == a.key and t.effect == a.effect]
        if a.type == "taint":
            exact = [t for t in same if t.value == a.value]
            if exact:
                t = exact[0]
                if t.time_added is not None:
                    evidence.append(Evidence(t.time_added, "Node " + a.node, "taint timeAdded", "", str(t)))
                    facts["timeAdded"] = format_time(t.time_added)
                late = m.late(a.at, t.time_added)
                findings.append((DIFFERS, "added later: %s" % late) if late else
                                (AS_PLANNED, "present%s" % (" since " + m.when(t.time_added)
                                                            if t.time_added is not None else "")))
            elif same:
                findings.append((DIFFERS, "%s instead" % ", ".join(str(t) for t in same)))
            else:
                instead = [str(t) for t in node.taints if t.effect == a.effect]
                gone = _ready_taint_gone(m, a, node)
                if gone is not None:
                    ready, text = gone
                    evidence.append(Evidence(ready.last_transition, "Node " + a.node, "condition Ready", "",
                                             "Ready=%s: %s" % (ready.status, ready.message or ready.reason or
                                                               "no reason given")))
                    findings.append((UNKNOWN, text))
                else:
                    findings.append(_not_yet(m, a.at, "not present%s" % (
                        " (the node has %s)" % ", ".join(instead) if instead else "")))
        else:
            findings.append((AS_PLANNED, "absent") if not same else
                            _not_yet(m, a.at, "still present: %s" % ", ".join(str(t) for t in same)))
    elif a.type in ("label", "unlabel"):
        have = node.labels.get(a.key)
        if a.type == "label":
            findings.append((AS_PLANNED, "%s=%s" % (a.key, have)) if have == a.value else
                            _not_yet(m, a.at, "%s is %s" % (a.key, "not set" if have is None else repr(have))))
        else:
            findings.append((AS_PLANNED, "%s not set" % a.key) if have is None else
                            _not_yet(m, a.at, "%s is still %r" % (a.key, have)))
    return _check("actions[%d]" % i, "actions", planned, findings, evidence, a, facts)


def _drained_after(m: _Matcher, cordon: Action) -> bool:
    """Did an eviction the plan makes from the cordoned node after its cordon happen? Only pods the
    plan names by uid tell: an eviction again (no uid) shares its fate with the first pod's."""
    return any(x.type in POD_ACTIONS and x.by == USER and x.uid and x.node == cordon.node and x.at >= cordon.at
               and m.fates[(x.namespace, x.pod)].went for x in m.plan.actions)


# The node lifecycle controller's taints follow the Ready condition: False gives not-ready, Unknown
# gives unreachable (swapped atomically), True removes both (pkg/controller/nodelifecycle
# doNoScheduleTaintingPass, doNoExecuteTaintingPass).
READY_TAINTS = {NOT_READY: "False", UNREACHABLE: "Unknown"}
_READY_TAINT = {v: k for k, v in READY_TAINTS.items()}   # Ready status -> its taint


def _ready_taint_gone(m: _Matcher, a: Action, node: Node) -> Optional[Tuple[Condition, str]]:
    """(the Ready condition, why) when a planned not-ready/unreachable taint is absent because the
    node's Ready condition changed after the taint's time: the controller then swapped it for the
    other or removed it, and the cluster no longer shows whether it was there (a graceful shutdown
    that powers the node off turns not-ready into unreachable; a node that comes back loses both).
    Likewise the out-of-service taint of a non-graceful shutdown: once the pods moved and the node
    has recovered, the operator removes it by hand (kubernetes.io blog 2023-08-16, "Non-Graceful
    Node Shutdown Moves to GA"; KEP-2268)."""
    if m.anchor is None:
        return None
    ready = node.conditions.get("Ready")
    if a.key == OUT_OF_SERVICE:
        if ready is None or ready.status != "True" or ready.last_transition is None or \
                ready.last_transition < m.anchor + float(a.at):
            return None
        return ready, ("not present now: node %s is Ready=True since %s; the out-of-service taint is removed by "
                       "hand once the node has recovered" % (a.node, m.when(ready.last_transition)))
    if a.by != NODE_LIFECYCLE or a.key not in READY_TAINTS:
        return None
    if ready is None or ready.last_transition is None or ready.status == READY_TAINTS[a.key] or \
            ready.last_transition < m.anchor + float(a.at):
        return None
    other = _READY_TAINT.get(ready.status)
    return ready, "not present now: node %s is Ready=%s since %s; the node lifecycle controller then %s" % (
        a.node, ready.status, m.when(ready.last_transition),
        "swaps it for %s:%s" % (other, a.effect) if other else "removes it")


def _not_yet(m: _Matcher, at: float, text: str) -> Tuple[str, str]:
    return (DIFFERS, text) if m.due(at) else (PENDING, "not yet: %s (planned %s)" % (text, format_offset(at)))


def _node_entry(m: _Matcher, ref: str, section: str, e: Entry) -> Check:
    """A node-level entry (pressure that never clears): is the node still under pressure?"""
    node = m.snapshot.nodes.get(e.node)
    if node is None:
        return _check(ref, section, e.reason, [(UNKNOWN, "node %s is no longer in the cluster" % e.node)],
                      (), e)
    under = [c for c in PRESSURE_CONDITIONS if c in node.conditions and node.conditions[c].status == "True"]
    ev = [Evidence(node.conditions[c].last_transition, "Node " + e.node, "condition " + c, "", "%s=True: %s"
                   % (c, node.conditions[c].message or node.conditions[c].reason)) for c in under]
    at = m.last_removal_at(e.node)     # a `--signal` forecast may never begin: due only from then on
    finding = (AS_PLANNED, "still under %s" % ", ".join(under)) if under else \
        (DIFFERS, "no pressure condition is True now: the pressure cleared") if m.due(at) else \
        (PENDING, "no pressure condition is True now: not yet under pressure")
    return _check(ref, section, e.reason, [finding], ev, e)


def _blocked(m: _Matcher, i: int, e: Entry) -> Check:
    ref = "blocked[%d]" % i
    if not e.pod:
        return _node_entry(m, ref, "blocked", e)
    f = m.fates[(e.namespace, e.pod)]
    evidence = list(f.evidence)
    facts: Dict[str, object] = {"state": f.state}
    if not f.went:
        on = f.pod.node_name if f.pod is not None else e.node
        findings = [(AS_PLANNED, "still there: %s on %s" % (f.pod.phase if f.pod else "", on))]
    elif e.code == "node-unreachable" and f.state == "terminating":
        findings = [(AS_PLANNED, "Terminating, as the unreachable node never confirms it")]
    elif f.state == "gone" and e.node not in m.snapshot.nodes and not f.evidence and f.replacement is None:
        findings = [(UNKNOWN, "the pod and node %s are no longer in the cluster" % e.node)]
    else:
        what = "removed after all %s" % (m.when(f.removed_at) if f.removed_at is not None else "(no event says when)")
        if f.by:
            what += " by %s" % f.by
        findings = [(DIFFERS, what)]
        freed = _what_freed(m, e, f)
        if freed:
            findings.append((DIFFERS, freed))
        if f.replacement is not None:
            findings.append((DIFFERS, "replacement %s" % _pod_line(f.replacement)))
        if f.removed_at is not None:
            facts["removedAt"] = format_time(f.removed_at)
    return _check(ref, "blocked", "stays: %s" % e.reason, findings, evidence, e, facts)


def _what_freed(m: _Matcher, e: Entry, f: _Fate) -> str:
    """For a PDB block: the budget as the cluster shows it now (the PDB controller's status)."""
    if e.code not in ("pdb-budget", "pdb-multiple"):
        return ""
    probe = f.pod or f.replacement
    if probe is None:
        return ""
    if not m.snapshot.holds("PodDisruptionBudget"):   # none read is not none there (a 403 on the kind)
        return "PodDisruptionBudgets were not read (the read holds none: the role may not list them)"
    pdbs = pdbs_for_pod(m.snapshot, probe)
    if not pdbs:
        return "no PodDisruptionBudget covers its pods now"
    return "; ".join("PDB %s now allows %d disruption%s (%d healthy, %d desired)" % (
        p.ref, p.disruptions_allowed, "" if p.disruptions_allowed == 1 else "s", p.current_healthy,
        p.desired_healthy) for p in pdbs)


def _shortfall(m: _Matcher, i: int, e: Entry, actions: Dict[PodKey, Action]) -> Check:
    ref = "shortfall[%d]" % i
    if not e.pod:
        return _node_entry(m, ref, "shortfall", e)
    f = m.fates[(e.namespace, e.pod)]
    a = actions.get((e.namespace, e.pod))
    at = float(a.at) if a is not None else 0.0
    evidence = list(f.evidence)
    facts: Dict[str, object] = {"state": f.state}
    if not f.went:
        findings = [_not_yet(m, at, "the pod is still %s on %s" % (f.pod.phase if f.pod else "there",
                                                                   f.pod.node_name if f.pod else e.node))]
    else:
        probe = a if a is not None else Action(type="evict", namespace=e.namespace, pod=e.pod, node=e.node)
        findings, ev, fx = _replacement_findings(m, probe, f, shortfall=True)
        evidence += ev
        facts.update(fx)
    return _check(ref, "shortfall", "replacement does not run: %s" % e.reason, findings, evidence, e,
                  facts)


def _absent(snapshot: Snapshot, kind: str, qualifier: str = "") -> str:
    """What an object of `kind` that was not found is: gone from the cluster only when the read
    listed every object of its kind (a role that may not list it, or a kind never read, says
    nothing about it: DESIGN.md, a plan never asserts the absence of what its input does not hold)."""
    if snapshot.holds(kind):
        return "is %sin the cluster" % (qualifier + " " if qualifier else "not ")
    if kind not in WORKLOAD_KINDS and kind != "VolumeAttachment":
        return "was not read (%s is not a kind verify reads)" % kind
    return "was not read (the read holds no %s: the role may not list them)" % kind


def _workload(m: _Matcher, i: int, w: Workload, end: float, ready: Dict[Tuple[str, str, str], int]) -> Check:
    ref = "workloads[%d]" % i
    planned = "%d ready after (%d now, lowest %d at %s)" % (w.ready_after, w.ready, w.ready_min,
                                                           format_offset(w.ready_min_at))
    now = ready.get((w.kind, w.namespace, w.name))
    if now is not None and w.kind == "Deployment" and not m.snapshot.holds("ReplicaSet"):
        # a Deployment's pods belong to its ReplicaSets (their ownerReferences name the ReplicaSet,
        # pkg/controller/deployment): without them read, none of its pods can be counted, and 0 is no fact
        why = "%s: ready replicas not counted: its pods belong to ReplicaSets, and ReplicaSet %s" % (
            w.ref, _absent(m.snapshot, "ReplicaSet"))
        return _check(ref, "workloads", planned, [(UNKNOWN, why)], (), w)
    if now is None:
        return _check(ref, "workloads", planned, [(UNKNOWN, "%s %s" % (w.ref, _absent(m.snapshot, w.kind, "no longer")))],
                      (), w)
    facts = {"readyNow": now}
    if now == w.ready_after:
        finding = (AS_PLANNED, "%d ready now" % now)
    elif now > w.ready_after:   # the pods the plan removes without replacement may not have gone yet
        finding = (DIFFERS, "%d ready now, more than the %d planned" % (now, w.ready_after)) if m.due(end) else \
            (PENDING, "%d ready now, %d planned once the plan has run" % (now, w.ready_after))
    elif m.due(end):
        finding = (DIFFERS, "%d ready now, %d planned" % (now, w.ready_after))
    else:
        finding = (PENDING, "%d ready now, %d planned once replacements start" % (now, w.ready_after))
    return _check(ref, "workloads", planned, [finding], (), w, facts)


def verify(plan: Plan, snapshot: Snapshot, events: Sequence[Event], *, read_at: float,
           since: Optional[float] = None, slack: float = SLACK) -> Verification:
    """Every action, blocked, shortfall and workload entry of `plan`, matched to the cluster.

    `read_at`: when `snapshot` and `events` were read; `since`: when the operation began (None:
    found by aligning the observed effects with their `at`)."""
    m = _Matcher(plan, snapshot, events, read_at, since, slack)
    order: List[Tuple[PodKey, float]] = []
    action_by_pod: Dict[PodKey, Action] = {}
    last_by_pod: Dict[PodKey, Action] = {}      # where the pod's last replacement is planned
    last_index: Dict[PodKey, int] = {}
    chain: Dict[int, Tuple[int, int]] = {}      # a second eviction and the action before it: (before, again)
    for i, a in enumerate(plan.actions):
        if a.type in POD_ACTIONS:
            key = (a.namespace, a.pod)
            m.fate(a.namespace, a.pod, a.uid, a.grace_period_seconds, a.owner)
            order.append((key, float(a.at)))
            action_by_pod.setdefault(key, a)
            if not a.uid and key in last_index:
                # drain --one-at-a-time and upgrade evict a replacement again under the first pod's name
                chain[i] = (last_index[key], i)
                chain[last_index[key]] = (last_index[key], i)
            last_by_pod[key] = a
            last_index[key] = i
    for e in list(plan.blocked) + list(plan.shortfall):
        if e.pod:
            m.fate(e.namespace, e.pod, e.uid)
            order.append(((e.namespace, e.pod), 0.0))
    m.chained = frozenset((plan.actions[i].namespace, plan.actions[i].pod) for i in chain)
    shortfall_keys = {(e.namespace, e.pod): e for e in plan.shortfall if e.pod}
    wants: Dict[PodKey, Tuple[str, ...]] = {key: () for key in shortfall_keys}
    for key, a in last_by_pod.items():
        if a.target is not None and key not in wants:
            wants[key] = (a.target,) + tuple(a.candidates)
    m.pair_replacements(order, wants)
    # the anchor: every observed effect aligned with its `at` (cordons align inside _node_action,
    # so node actions are checked first, then their verdicts recomputed with the final anchor)
    for a in plan.actions:
        if a.type in POD_ACTIONS:
            f = m.fates[(a.namespace, a.pod)]
            if f.went and _stopped_with_node(m, a, f) is None:
                m.align(a.at, f.removed_at, "%s %s" % (a.type, _ref(a.namespace, a.pod)))
        elif a.type == "taint":
            node = snapshot.nodes.get(a.node)
            for t in (node.taints if node is not None else ()):
                if t.key == a.key and t.effect == a.effect and t.value == a.value:
                    m.align(a.at, t.time_added, "taint %s on %s" % (t, a.node))
        elif a.type == "cordon":
            cordons = m.events.node(a.node, ("NodeNotSchedulable",))
            if cordons:
                m.align(a.at, cordons[0].first, "the cordon of %s" % a.node)
    checks: List[Check] = []
    for i, a in enumerate(plan.actions):
        if a.type in POD_ACTIONS:
            checks.append(_pod_action(m, i, a, shortfall_keys, chain.get(i)))
        else:
            checks.append(_node_action(m, i, a, snapshot.nodes.get(a.node)))
    checks += [_blocked(m, i, e) for i, e in enumerate(plan.blocked)]
    checks += [_shortfall(m, i, e, action_by_pod) for i, e in enumerate(plan.shortfall)]
    end = max((float(a.at) for a in plan.actions if a.type in POD_ACTIONS), default=0.0) + DEFAULT_STARTUP
    ready = ready_now(snapshot, [(w.kind, w.namespace, w.name) for w in plan.workloads])
    # a StatefulSet pod still terminating holds its name: its replacement starts only once it is gone
    waits: Dict[Tuple[str, str, str], float] = {}
    for f in m.fates.values():
        if f.pod is not None and f.pod.deletion_timestamp is not None and m.anchor is not None and \
                f.owner is not None and f.owner.kind == "StatefulSet":
            key = workload_of(snapshot, f.pod)
            if key is not None:
                waits[key] = max(waits.get(key, 0.0), f.pod.deletion_timestamp - m.anchor + DEFAULT_STARTUP)
    checks += [_workload(m, i, w, max(end, waits.get((w.kind, w.namespace, w.name), 0.0)), ready)
               for i, w in enumerate(plan.workloads)]
    warnings: List[str] = ["the plan was made without %s (%s): a difference may come from what its input lacked"
                           % (e.kind, e.effect) for e in plan.incomplete]
    if m.anchor is None and any(c.status == PENDING for c in checks):
        warnings.append("nothing of the plan has been observed yet and no --since was given: what has not "
                        "happened counts as pending (give --since with the time the operation started to "
                        "judge what is overdue)")
    return Verification(command=plan.command, plan_now=plan.now, plan_context=plan.context,
                        plan_server=plan.server, verified_at=read_at, context=snapshot.info.context,
                        server=snapshot.info.server, since=since, anchor=m.anchor, anchor_source=m.anchor_source,
                        checks=tuple(checks), warnings=tuple(warnings))

