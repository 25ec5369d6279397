"""Ready replicas per workload over the course of a plan: now, at the lowest point, after.

Operators do not think in pods but in workloads: "does shop/payments keep serving while I
drain?". Every rule's plan removes pods at known times (`at` of evict/delete/kill actions) and
says where a replacement lands (`target`); a replacement counts as Ready `startup` seconds after
its controller creates it (its pod is gone, or for a kubelet `kill` the pod is Failed:
`replaced_at`), the same assumption drain's waves make (`--pod-startup`). A pod that is already
not Ready or already terminating takes no ready replica away, and a terminating pod's
replacement already exists (FilterActivePods), so it adds none; except a StatefulSet's, which
keeps the name and is created only once the old pod is gone (`replaced_at`); one down now that the
plan does not act on comes back by itself and counts when Ready again (`_returning`). A rule may
also say when pods stop being Ready before (or without) any action on them (`not_ready`): the node
lifecycle controller marks every pod of a node it turns Unknown not Ready (`MarkPodsNotReady`) in
that same pass.

Pods are grouped by their top-level owner as `kubectl rollout status` would name it: a
ReplicaSet owned by a Deployment counts as the Deployment (across all of its ReplicaSets); the
owner lookup is `rules/replacements.py`'s, as is what the input lacks to count a workload.
A workload whose ready replicas reach 0 is an outage, and every command warns about it.
"""

from __future__ import annotations

from typing import AbstractSet, Any, Dict, List, Mapping, Optional, Sequence, Tuple

from pyrsistent import pvector

from kubectl_evict.model import Pod, Snapshot
from kubectl_evict.plan import POD_ACTIONS, Action, Incomplete, counted_refs, Plan, Workload, with_incomplete
from kubectl_evict.rules.replacements import (NEVER, WorkloadKey, available_after, owner_kinds_missing,
                                              removal_spans, returning_ordinals, workload_of)
from kubectl_evict.scheduling.disruption import budget_unknown, pdbs_for_pod
from kubectl_evict.scheduling.statefulset import ordinal, rollout_warning
from kubectl_evict.versions import cluster_version
from kubectl_evict.timeutil import format_offset

DEFAULT_STARTUP = 30.0


def _counts_ready(pod: Pod) -> bool:
    return pod.ready and pod.deletion_timestamp is None and not pod.is_terminal


def replicasets_by_deployment(snapshot: Snapshot) -> Dict[WorkloadKey, List[str]]:
    """Deployment -> the uids of its ReplicaSets: one pass over the owners."""
    out: Dict[WorkloadKey, List[str]] = {}
    for (kind, namespace, _), owner in snapshot.owners.items():
        if kind == "ReplicaSet" and owner.controller is not None and owner.controller.kind == "Deployment":
            out.setdefault(("Deployment", namespace, owner.controller.name), []).append(owner.uid)
    return out


def _members(snapshot: Snapshot, key: WorkloadKey, rs_index: Dict[WorkloadKey, List[str]],
             acted: Sequence[Pod] = ()) -> List[Pod]:
    """The pods of a workload, through the owner index (never a scan of every pod). Without
    the owner object (the input lacks its kind), the pods that name the same controller uid
    as the pods the plan acts on: every pod of it that the input holds."""
    if key[0] == "Deployment":
        uids = rs_index.get(key, [])
    else:
        owner = snapshot.owners.get(key)
        uids = [owner.uid] if owner is not None else []
    if not uids:
        uids = list(dict.fromkeys(p.controller.uid for p in acted if p.controller is not None and p.controller.uid))
    out: List[Pod] = []
    for uid in uids:
        out.extend(snapshot.pods_by_owner.get(uid, ()))
    return out


def ready_now(snapshot: Snapshot, keys: Sequence[WorkloadKey]) -> Dict[WorkloadKey, int]:
    """Ready replicas of each workload as the snapshot shows it (workloads not in it are left
    out), counted as `summarize` counts its `ready`: what `verify` compares with `readyAfter`."""
    present = [k for k in keys if k in snapshot.owners]
    rs_index = replicasets_by_deployment(snapshot) if any(k[0] == "Deployment" for k in present) else {}
    return {k: sum(1 for p in _members(snapshot, k, rs_index) if _counts_ready(p)) for k in present}


def summarize(snapshot: Snapshot, actions: Sequence[Action], startup: float = DEFAULT_STARTUP
              ) -> Tuple[Tuple[Workload, ...], Tuple[str, ...]]:
    """The `workloads` of a plan and its outage warnings, from its pod actions."""
    workloads, warnings, _ = _summarize(snapshot, actions, startup)
    return workloads, warnings


def _summarize(snapshot: Snapshot, actions: Sequence[Action], startup: float,
               not_ready: Optional[Mapping[Tuple[str, str], float]] = None,
               never_ready: AbstractSet[Tuple[str, str]] = frozenset(), now: Optional[float] = None
               ) -> Tuple[Tuple[Workload, ...], Tuple[str, ...], Tuple[Incomplete, ...]]:
    events: Dict[WorkloadKey, List[Tuple[float, int]]] = {}
    bypass: Dict[WorkloadKey, str] = {}         # how the PDB is bypassed: "delete", "kill", "unchecked" or ""
    unknown_budgets: Dict[str, str] = {}        # PDB -> the kind its budget needs that the input lacks
    pods: Dict[WorkloadKey, List[Pod]] = {}
    unready = dict(not_ready or {})
    # One pod can have two actions (the kubelet's kill and the taint-eviction controller's DELETE
    # while it is still stopping): it goes, and is replaced, once. A later action on a replacement
    # (a second eviction, empty uid) is another pod.
    removed: set = set()
    replaced: set = set()
    # (namespace, pod) -> (workload, index in its events) of the +1 of the latest replacement: a
    # later action on that replacement (empty uid: preempted, evicted again) takes a Ready pod
    # away only once it is Ready; before that it never counted, and its +1 never comes
    latest_up: Dict[Tuple[str, str], Tuple[WorkloadKey, int]] = {}
    dropped: set = set()       # (workload, index) of +1 events taken back
    acted: set = set()         # (namespace, pod) of every pod the plan acts on
    for a in actions:
        if a.type not in POD_ACTIONS:
            continue
        acted.add((a.namespace, a.pod))
        pod = snapshot.pods_by_key.get((a.namespace, a.pod))
        if pod is None:
            continue
        key = workload_of(snapshot, pod)
        if key is None:
            continue
        ev = events.setdefault(key, [])
        pods.setdefault(key, []).append(pod)
        same = (a.namespace, a.pod, a.uid) if a.uid else None
        marked = unready.pop((a.namespace, a.pod), None)
        up = latest_up.pop((a.namespace, a.pod), None) if same is None else None
        if up is not None and events[up[0]][up[1]][0] > float(a.at):
            dropped.add(up)        # removed before its replacement was Ready
        elif (up is not None or _counts_ready(pod)) and (same is None or same not in removed):
            ev.append((float(a.at) if marked is None else min(float(a.at), marked), -1))
        if a.target is not None and (pod.deletion_timestamp is None or pod.controller_kind == "StatefulSet") \
                and (same is None or same not in replaced) \
                and (a.namespace, a.pod) not in never_ready:
            created = a.replaced_at if a.replaced_at is not None else a.at
            latest_up[(a.namespace, a.pod)] = (key, len(ev))
            ev.append((float(created) + startup, +1))
            if same is not None:
                replaced.add(same)
        if same is not None:
            removed.add(same)
        if a.type == "evict" and not bypass.get(key):
            # an eviction checked against a budget the input cannot compute allows nothing known
            covering = pdbs_for_pod(snapshot, pod)
            if len(covering) == 1:
                ref = covering[0].ref
                if ref not in unknown_budgets:
                    unknown_budgets[ref] = budget_unknown(snapshot, covering[0])
                if unknown_budgets[ref]:
                    bypass[key] = "unchecked"
        if a.type == "kill":
            bypass[key] = bypass.get(key) or "kill"
        elif a.type != "evict":
            bypass[key] = "delete"
    for (namespace, name), at in sorted(unready.items()):     # not Ready, and no action on them
        pod = snapshot.pods_by_key.get((namespace, name))
        key = workload_of(snapshot, pod) if pod is not None else None
        if key is None or not _counts_ready(pod):
            continue
        events.setdefault(key, []).append((float(at), -1))
        pods.setdefault(key, []).append(pod)
    if now is not None and any(k[0] == "StatefulSet" for k in events):
        _returning(snapshot, events, pods, acted | set(never_ready), now, startup, actions, never_ready,
                   not_ready or {})
    if dropped:
        events = {k: [e for i, e in enumerate(v) if (k, i) not in dropped] for k, v in events.items()}
    if not events:
        return (), (), ()
    rs_index = replicasets_by_deployment(snapshot) if any(k[0] == "Deployment" for k in events) else {}
    out: List[Workload] = []
    warnings: List[str] = []
    unknown: Dict[str, List[str]] = {}
    pdb_memo: Dict[Tuple[str, int], Tuple[str, Any]] = {}
    for key in sorted(events):
        kind, namespace, name = key
        members = _members(snapshot, key, rs_index, pods[key]) or pods[key]
        # a finished pod counts no ready replica and its controller never replaces it
        # (IsPodActive): its owner's object cannot change what the plan says about it
        active = [p for p in pods[key] if not p.is_terminal]
        for missing in dict.fromkeys(k for p in active for k in owner_kinds_missing(snapshot, p)):
            unknown.setdefault(missing, []).append("%s %s/%s" % key)
        ready = sum(1 for p in members if _counts_ready(p))
        level, low, low_at = ready, ready, 0.0
        outage_from: Optional[float] = None
        outage_until: Optional[float] = None
        levels: List[Tuple[float, int]] = []
        # A replacement Ready at the same moment as a removal counts first: a drain's next wave
        # starts once the previous wave's replacements are Ready (that is what frees the budget).
        for at, delta in sorted(events[key], key=lambda e: (e[0], -e[1])):
            level += delta
            if levels and levels[-1][0] == at:
                levels[-1] = (at, max(level, 0))
            else:
                levels.append((at, max(level, 0)))
            if level < low:
                low, low_at = level, at
            if level <= 0 < ready and outage_from is None:
                outage_from = at
            elif level > 0 and outage_from is not None and outage_until is None:
                outage_until = at
        wl = Workload.trusted(kind=kind, namespace=namespace, name=name, ready=ready, ready_min=max(low, 0),
                      ready_min_at=low_at, ready_after=max(level, 0), pdb=_pdb_ref(snapshot, pods[key], pdb_memo),
                      levels=tuple(levels))
        out.append(wl)
        if outage_from is not None:
            warnings.append(_outage_text(wl, outage_from, outage_until, bypass.get(key, "")))
        if kind == "StatefulSet":
            owner = snapshot.owners.get(key)
            if owner is not None and owner.rolling_out:
                text = rollout_warning(owner, cluster_version(snapshot))
                if text:
                    warnings.append(text)
    incomplete = tuple(Incomplete(kind=k, effect="ready replicas counted from the pods in the input for %s; the "
                                  "workload's own object (%s) was not read, so its total is unknown"
                                  % (counted_refs("workload", refs), _WANTED.get(k, "its spec.replicas")))
                       for k, refs in sorted(unknown.items()))
    return tuple(out), tuple(warnings), incomplete


def _returning(snapshot: Snapshot, events: Dict[WorkloadKey, List[Tuple[float, int]]],
               pods: Dict[WorkloadKey, List[Pod]], exclude: AbstractSet[Tuple[str, str]], now: float,
               startup: float, actions: Sequence[Action], never: AbstractSet[Tuple[str, str]],
               not_ready: Mapping[Tuple[str, str], float]) -> None:
    """A StatefulSet pod that is down now (finished, or Terminating on a node whose kubelet is
    alive) and that the plan does not act on (`exclude`: the pods acted on or that never come
    back) still comes back: the StatefulSet controller creates a missing ordinal of the set's
    range (`in_range`) again once the old pod is gone, in ordinal order under OrderedReady, after the
    lower ordinals the plan's `actions` remove are Ready again (`never`: those that never are; a pod
    the rule marks not Ready, `not_ready`, is down from then, and Ready again only if replaced)
    (`pkg/controller/statefulset/stateful_set_control.go` processReplica; the times are
    `returning_ordinals`', the ones the rules' OrderedReady chains use). Its +1 comes when it is
    Ready, so readyAfter and readyMin count it. Only the StatefulSets the plan touches are read,
    each once, through the owner index."""
    removals = removal_spans(snapshot, actions, startup, never)
    for (namespace, name), at in not_ready.items():
        pod = snapshot.pods_by_key.get((namespace, name))
        n = ordinal(pod) if pod is not None and pod.controller_kind == "StatefulSet" else None
        if n is not None and pod is not None and not pod.is_terminal:
            spans = removals.setdefault(pod.controller.uid, {})
            frm, ready = spans.get(n, (float(at), NEVER))
            spans[n] = (min(frm, float(at)), ready)
    for key in [k for k in events if k[0] == "StatefulSet"]:
        for p in pods[key]:
            uid = p.controller.uid if p.controller is not None else ""
            if uid:
                break
        else:
            continue
        back = returning_ordinals(snapshot, now, startup, uid, exclude, removals.get(uid))
        if not back:
            continue
        mrs = available_after(snapshot, pods[key][0])
        events[key].extend((ready - mrs, +1) for _, ready in back.values())


# What a workload's own object says about how many pods it wants, per kind (`incomplete`).
_WANTED = {"ReplicaSet": "its spec.replicas, and a Deployment's other ReplicaSets",
           "DaemonSet": "the nodes its template selects", "Job": "its spec.parallelism and completions"}


def _pdb_ref(snapshot: Snapshot, pods: Sequence[Pod], memo: Dict[Tuple[str, int], Tuple[str, Any]]) -> str:
    """The first PDB covering one of `pods`. Which PDBs cover a pod rests on its namespace and
    labels only, and a template's pods share their labels object: `memo` (one per summary) keeps
    the answer per (namespace, labels) so a failed zone's tens of thousands of pods are not each
    matched against their namespace's budgets."""
    for pod in pods:
        labels = pod.labels
        key = (pod.namespace, id(labels))
        hit = memo.get(key)
        if hit is None or hit[1] is not labels:
            covering = pdbs_for_pod(snapshot, pod)
            hit = memo[key] = (covering[0].ref if covering else "", labels)   # labels kept: the id stays theirs
        if hit[0]:
            return hit[0]
    return ""


def _outage_text(wl: Workload, start: float, end: Optional[float], bypassed: str) -> str:
    window = ("from %s until %s" % (format_offset(start), format_offset(end)) if end is not None
              else "from %s on: no replacement becomes Ready" % format_offset(start))
    text = "outage: %s has 0 of %d ready replicas %s" % (wl.ref, wl.ready, window)
    if wl.pdb:
        if bypassed == "delete":
            text += " (plain deletions bypass PDB %s)" % wl.pdb
        elif bypassed == "kill":
            text += " (the kubelet's kills do not consult PDB %s)" % wl.pdb
        elif bypassed == "unchecked":
            text += " (PDB %s not checked: its budget needs objects not in the input)" % wl.pdb
        else:
            text += " (PDB %s allows it)" % wl.pdb
    return text


def attach_owners(snapshot: Snapshot, plan: Plan) -> Plan:
    """The plan with each pod action's `owner` (the pod's controller) filled in from the snapshot:
    after the pod is gone, the owner is what ties it to its replacement (`verify`)."""
    changed = False
    actions = []
    names = tuple(Action._pclass_fields)
    for a in plan.actions:
        if a.type in POD_ACTIONS and a.owner is None:
            pod = snapshot.pods_by_key.get((a.namespace, a.pod))
            ref = pod.controller if pod is not None and pod.uid == a.uid else None
            if ref is not None:
                # the trusted constructor: `.set()` re-checks every field (10x slower per action)
                fields = {n: getattr(a, n) for n in names}
                fields["owner"] = (ref.kind, ref.name, ref.uid)
                a = Action.trusted(**fields)
                changed = True
        actions.append(a)
    return plan.set(actions=pvector(actions)) if changed else plan


def attach(snapshot: Snapshot, plan: Plan, startup: float = DEFAULT_STARTUP,
           not_ready: Optional[Mapping[Tuple[str, str], float]] = None) -> Plan:
    """The plan with its `workloads` and outage warnings filled in. `not_ready`: (namespace,
    pod) -> when the pod stops counting as Ready, where that comes before its action or
    without one."""
    # a pod in `shortfall` has a replacement that lands nowhere or never starts, even where the
    # scheduler binds it (a kubelet that rejects it): it brings no ready replica back
    never = frozenset((e.namespace, e.pod) for e in plan.shortfall if e.pod)
    workloads, warnings, incomplete = _summarize(snapshot, plan.actions, startup, not_ready, never, float(plan.now))
    extra = [w for w in warnings if w not in plan.warnings]
    plan = plan.set(workloads=pvector(workloads), warnings=plan.warnings.extend(extra))
    return with_incomplete(plan, incomplete)
