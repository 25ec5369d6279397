"""Where would a replacement pod land? kube-scheduler's scheduling cycle (v1.30-v1.37, by the
cluster's version: `versions.FEATURES`) for one pod at a time, with the cluster state moving as
the plan places pods (`pkg/scheduler/schedule_one.go`).

Filter plugins, in the default profile's order: NodeUnschedulable, TaintToleration, NodeAffinity
(static: evaluated once per node class), then NodePorts, NodeResourcesFit, VolumeRestrictions,
NodeVolumeLimits, VolumeBinding, VolumeZone, PodTopologySpread, InterPodAffinity
(`scheduling/plugins/`), and from v1.34 DynamicResources (DRA devices for pods with
ResourceClaims; its PostFilter message joins the FitError before DefaultPreemption's, and a claim
it deallocates makes the pod try again). Nodes that are not Ready carry the `not-ready`/`unreachable`
NoSchedule taint the node lifecycle controller would put on them.

Choosing among feasible nodes: with fewer than 100 statically feasible nodes (where upstream
scores every feasible node) the default score plugins and weights are summed as
upstream does (`scheduling/scoring.py`), ties go by node name and the tied nodes are
reported as `candidates`. On larger clusters upstream scores only a rotating sample, so no
prediction can be exact; there the pick is the fast one: highest preferred node-affinity
score, then least allocated (cpu and memory), then name.

When nothing fits, the reason is `FitError` text with the per-node reasons counted and sorted,
and the PostFilter part: DefaultPreemption's (`scheduling/plugins/defaultpreemption.py`), after
DynamicResources' from v1.34 (`scheduling/plugins/dynamicresources.py`: `no new claims to
deallocate, ` for a pod without claims in v1.34-v1.36, its own verdict for a pod with claims);
the taint reason is `untolerated taint(s)` from v1.34.2. A v1.37 preemption that finds a node
leaves the text `framework.preemption_placed_text` in the pod's FailedScheduling event.

Speed (5,000 nodes, thousands of evicted pods): never a pods x nodes loop.
- Nodes are grouped into classes by the facts that decide static feasibility: labels (minus
  keys with more than 32 distinct values, such as the hostname), effective taints and
  `unschedulable`. Static feasibility and the preferred-affinity score are computed once per
  (pod template, class). A template that looks at a per-node key is checked node by node.
  These verdicts stay for the whole plan: excluding or including nodes (an upgrade's batches)
  only re-sums them per class.
- Within a class, nodes are kept sorted by free cpu/memory fraction (and once more without the
  excluded ones), so the least allocated node that fits is the first one that passes a few
  dictionary reads.
- Dynamic filters that read only zone-like labels and per-domain counts (spread, inter-pod
  affinity, volume topology) reject a whole class in one check (`Plugin.rejects_class`).
- A FitError needs every node's status. Per class, a Filter whose status is provably the same
  on every node of the class (`Plugin.class_status`) is asked once; only the Filters before the
  first such failing one that can differ per node (resources, volume limits) run node by node.
- Without topology-spread or inter-pod terms, capacity only shrinks as pods land, so "this
  template fits no node of this class" is remembered (until a preemption frees room).
- Spread and affinity counts per topology domain live in `framework.ClusterState` counters.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections import Counter
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Set, Tuple

from kubectl_evict.model import Node, Pod, PreferredTerm, Snapshot, Taint
from kubectl_evict.versions import cluster_version
from kubectl_evict.scheduling import framework
from kubectl_evict.scheduling.framework import (UNRESOLVABLE, UNSCHEDULABLE, ClusterState, Status,
                                                effective_taints, fit_error, host_ports)
from kubectl_evict.scheduling.nodeaffinity import selector_keys
from kubectl_evict.scheduling.plugins import FILTERS
from kubectl_evict.scheduling.plugins import nodeaffinity as na_plugin
from kubectl_evict.scheduling.plugins import nodeunschedulable, tainttoleration
from kubectl_evict.scheduling.plugins.defaultpreemption import Preemption, preempt
from kubectl_evict.scheduling.plugins.noderesources import NodeResourcesFit, insufficient

__all__ = ["Placer", "Placement", "effective_taints", "fit_error"]

HOSTNAME = "kubernetes.io/hostname"
_SCORED = ("cpu", "memory")
_SPLIT_DISTINCT = 32          # a label key with more distinct values than this is "per node"
EXACT_SCORING_NODES = 100     # below this upstream scores every feasible node

UNSCHEDULABLE_MSG = nodeunschedulable.MESSAGE
AFFINITY_MSG = na_plugin.MESSAGE


class Placement(NamedTuple):
    node: Optional[str]
    reason: str                               # why nothing fits (the FailedScheduling text), "" when placed
    candidates: Tuple[str, ...] = ()          # nodes tied at the top score (empty: no tie)
    preemptions: Tuple[Tuple[Pod, str], ...] = ()   # (victim, its node) deleted by the scheduler to make room
    pdb_violations: int = 0                   # PodDisruptionBudgets those deletions violate
    event: str = ""                           # v1.37: the FailedScheduling text of a placing preemption


def _preferred_keys(terms: Tuple[PreferredTerm, ...]) -> Tuple[Set[str], bool]:
    keys: Set[str] = set()
    fields = False
    for pt in terms:
        keys.update(r.key for r in pt.term.match_expressions)
        fields = fields or bool(pt.term.match_fields)
    return keys, fields


class _Class:
    """Nodes that no static filter can tell apart."""
    __slots__ = ("id", "names", "rep", "taints", "unschedulable", "order", "live")

    def __init__(self, cid: int, rep: Node, taints: Tuple[Taint, ...]) -> None:
        self.id = cid
        self.names: List[str] = []
        self.rep = rep
        self.taints = taints
        self.unschedulable = rep.unschedulable
        self.order: Optional[List[Tuple[float, str]]] = None   # (-free fraction, name), ascending
        self.live: List[Tuple[float, str]] = []                 # the same, candidates only


class _Entry(NamedTuple):
    """A class where a template passes the static filters."""
    cls: _Class
    pref: int
    subset: Optional[Tuple[Tuple[str, int], ...]]   # per-node templates: (node, preferred score)


class Cycle(NamedTuple):
    """One pod's PreFilter results: the active dynamic plugins and their state."""
    active: Tuple[Tuple[Any, Any], ...]
    rejected: Optional[Status]
    domains: bool            # spread or inter-pod terms active: feasibility can grow as pods move
    rejected_by: str = ""    # the plugin whose PreFilter rejected the pod


# PreFilter rejections and class-wide Filter rejections that rest only on objects no plan changes
# (claims, volumes, node names): `fits_any` remembers them per pod
_STATIC_PREFILTERS = frozenset({"NodeAffinity", "VolumeBinding", "VolumeRestrictions", "NodeVolumeLimits"})
_STATIC_CLASS_FILTERS = frozenset({"VolumeBinding", "VolumeZone"})


class Placer:
    """Tracks the cluster as pods are placed; one per plan (it is a local accumulator).

    `snapshot` gives the volume, namespace and PDB facts; `preempt` lets a replacement that
    fits nowhere preempt lower-priority pods (DefaultPreemption) and reports the victims."""

    def __init__(self, nodes: Iterable[Node], pods_by_node: Dict[str, Sequence[Pod]],
                 excluded: Iterable[str] = (), leaving: Iterable[Pod] = (),
                 snapshot: Optional[Snapshot] = None, preempt: bool = False,
                 filters: Sequence[Any] = FILTERS) -> None:
        self.cs = ClusterState(nodes, pods_by_node, leaving, snapshot)
        self.release = cluster_version(snapshot if snapshot is not None else Snapshot())
        self._taints_text = self.release.has("UntoleratedTaintsText")
        self.filters = tuple(filters)
        self._check_resources = any(isinstance(p, NodeResourcesFit) for p in self.filters)
        self.nodes: Dict[str, Node] = self.cs.nodes
        self.names = self.cs.names
        self.excluded: Set[str] = set(excluded)
        self.cs.cordoned = frozenset(self.excluded)
        # nodes not in the cluster at the plan's moment (an upgrade's surge nodes not created yet,
        # its removed nodes): excluded too, and not counted at all (`vanish`)
        self.absent: Set[str] = set()
        self.snapshot = snapshot
        self.preempt = preempt
        # the PodDisruptionBudgets of a namespace as they stand now, for preemption's PDB check
        # (a drain's budgets move as it evicts); None: as the snapshot holds them
        self.pdb_view: Optional[Callable[[str], Sequence[Any]]] = None
        self.free = self.cs.free
        self.count = self.cs.count
        self.alloc = self.cs.alloc
        self._key: Dict[str, Tuple[float, str]] = {}
        self._offsets: Dict[Tuple[tuple, str], float] = {}
        self._build_classes()
        self._verdicts: Dict[tuple, List[Tuple[str, Any]]] = {}     # per template: per class (never stale)
        self._live_count = [sum(1 for n in c.names if n not in self.excluded) for c in self.classes]
        self._absent_count = [0] * len(self.classes)
        self._static: Dict[tuple, Tuple[Tuple[_Entry, ...], Counter]] = {}   # per template: over the candidates
        # per static result: (itself, how many candidate nodes, their names once asked for)
        self._live: Dict[int, Tuple[Tuple[_Entry, ...], int, List[str]]] = {}
        self._nofit: Set[tuple] = set()
        # (pod key, class id or None: every node) where `fits_any` found a rejection nothing in the
        # plan can lift (a missing claim, a bound volume's zone): retried pods skip them at once
        self._never: Set[Tuple[Tuple[str, str], Optional[int]]] = set()
        self._terminating: Dict[Tuple[str, str], Tuple[Pod, str]] = {}
        self._freed = False          # the last attempt's PostFilter freed something (DRA deallocation)
        self._gone: Dict[Tuple[str, str], str] = {}
        # pod key -> kind the input lacks -> the Filter plugins skipped for that pod because of it
        self.unchecked: Dict[Tuple[str, str], Dict[str, List[str]]] = {}

    def _items(self, pod: Pod) -> Tuple[Tuple[str, int], ...]:
        return self.cs.items(pod)

    # -- node classes -------------------------------------------------------------------------

    def _build_classes(self) -> None:
        values: Dict[str, Set[str]] = {}
        for node in self.nodes.values():
            for k, v in node.labels.items():
                values.setdefault(k, set()).add(v)
        self.split_keys = frozenset(k for k, vs in values.items() if len(vs) > _SPLIT_DISTINCT)
        split = self.split_keys
        classes: Dict[tuple, _Class] = {}
        self._class_of: Dict[str, _Class] = {}
        for name in self.names:
            node = self.nodes[name]
            taints = effective_taints(node)
            key = (tuple(sorted((k, v) for k, v in node.labels.items() if k not in split)), taints,
                   node.unschedulable)
            cls = classes.get(key)
            if cls is None:
                cls = classes[key] = _Class(len(classes), node, taints)
            cls.names.append(name)
            self._class_of[name] = cls
        self.classes: List[_Class] = list(classes.values())

    def class_taints(self, name: str) -> Tuple[Taint, ...]:
        return self._class_of[name].taints

    def _fraction(self, name: str) -> float:
        alloc = self.alloc[name]
        free = self.free[name]
        parts = [free.get(r, 0) / alloc[r] for r in _SCORED if alloc.get(r, 0) > 0]
        return sum(parts) / len(parts) if parts else 0.0

    def _order(self, cls: _Class) -> List[Tuple[float, str]]:
        """The class's nodes, least allocated first (excluded ones too: the class's bound)."""
        if cls.order is None:
            for n in cls.names:
                self._key[n] = (-self._fraction(n), n)
            cls.order = sorted(self._key[n] for n in cls.names)
            cls.live = [k for k in cls.order if k[1] not in self.excluded]
        return cls.order

    def _live_order(self, cls: _Class) -> List[Tuple[float, str]]:
        """`_order` without the excluded nodes: an upgrade's drained nodes are the emptiest of
        their class, and every placement would otherwise step over them."""
        self._order(cls)
        return cls.live

    def exclude(self, names: Iterable[str]) -> None:
        """Take nodes out of the candidates (cordoned for the plan, or being drained). The
        per-class verdicts stay; only their sums over the candidates are made again."""
        for n in names:
            if n not in self.excluded:
                self.excluded.add(n)
                cls = self._class_of[n]
                self._live_count[cls.id] -= 1
                if cls.order is not None:
                    del cls.live[bisect_left(cls.live, self._key[n])]
        self.cs.cordoned = frozenset(self.excluded)
        self._static.clear()
        self._live.clear()

    def vanish(self, names: Iterable[str]) -> None:
        """Nodes that are not in the cluster (an upgrade's surge node not created yet, an old node
        it has removed): not candidates, and not counted either. kube-scheduler's FitError counts
        the nodes of its snapshot (`schedule_one.go`: `NumAllNodes: len(allNodes)`), which holds
        only nodes that exist (`backend/cache/cache.go` RemoveNode: a removed node is a ghost,
        "skipped from snapshots"; a node not created yet was never added), so such a node is no
        `node(s) were unschedulable` and no part of N."""
        names = [n for n in names if n not in self.absent]
        self.exclude(names)
        for n in names:
            self.absent.add(n)
            self._absent_count[self._class_of[n].id] += 1
        self.cs.set_absent(frozenset(self.absent))

    def present(self) -> int:
        """How many nodes the scheduler sees (FitError's N): every node but the absent ones."""
        return len(self.names) - len(self.absent)

    def include(self, names: Iterable[str]) -> None:
        """Make nodes candidates again (upgrade: surge nodes that have joined, which exist from
        then on). The class and order indexes and the per-class verdicts stay: only their sums
        are made again."""
        back = False
        for n in names:
            if n in self.absent:
                self.absent.discard(n)
                self._absent_count[self._class_of[n].id] -= 1
                back = True
            if n in self.excluded:
                self.excluded.discard(n)
                cls = self._class_of[n]
                self._live_count[cls.id] += 1
                if cls.order is not None:
                    insort(cls.live, self._key[n])
        if back:
            self.cs.set_absent(frozenset(self.absent))
        self.cs.cordoned = frozenset(self.excluded)
        self._static.clear()
        self._live.clear()
        self._nofit.clear()

    def settle(self) -> None:
        """Every pod evicted so far is gone (upgrade: between batches), and none comes back."""
        self._forget_terminating()
        self._gone.clear()

    def swap(self, old: Pod, new: Pod, name: str) -> None:
        """`new` takes `old`'s place on node `name` (the same pod under another record: same
        requests, so no "fits nowhere" verdict changes)."""
        self.cs.remove(old, name)
        self.cs.add(new, name)
        self._reorder(name)

    # -- static filters (per template and class) ------------------------------------------------

    def _static_feasible(self, pod: Pod) -> Tuple[Tuple[_Entry, ...], Counter]:
        """The classes (or nodes) where `pod`'s template passes the static filters, best
        preferred score first, and the static filters' reasons over the other nodes: the
        per-class verdicts (`_verdicts`, kept for the whole plan) summed over the candidates,
        remembered until the candidates change."""
        key = (pod.tolerations, tuple(sorted(pod.node_selector.items())), pod.required_affinity,
               pod.preferred_affinity)
        hit = self._static.get(key)
        if hit is not None:
            return hit
        pinned = na_plugin.prefilter_node_names(pod.required_affinity)
        if pinned is not None:
            result = self._pinned_feasible(pod, pinned)
            self._static[key] = result
            self._live[id(result[0])] = (result[0], sum(len(e.subset or ()) for e in result[0]), [])
            return result
        verdicts = self._verdicts.get(key)
        if verdicts is None:
            verdicts = self._verdicts[key] = self._class_verdicts(pod)
        excluded = self.excluded
        live_count = self._live_count
        why: Counter = Counter()
        entries: List[_Entry] = []
        count = 0
        for cls, (kind, value) in zip(self.classes, verdicts):
            live = live_count[cls.id]
            gone = len(cls.names) - live - self._absent_count[cls.id]    # cordoned: still there
            if gone:
                why[UNSCHEDULABLE_MSG] += gone
            if not live:
                continue
            if kind == "reason":
                why[value] += live
            elif kind == "class":
                entries.append(_Entry(cls, value, None))
                count += live
            else:                       # per node: (name, matches, preferred score)
                subset = tuple((n, pref) for n, ok, pref in value if ok and n not in excluded)
                bad = live - len(subset)
                if bad:
                    why[AFFINITY_MSG] += bad
                if subset:
                    entries.append(_Entry(cls, max(sc for _, sc in subset), subset))
                    count += len(subset)
        entries.sort(key=lambda e: -e.pref)
        result = (tuple(entries), why)
        self._static[key] = result
        self._live[id(result[0])] = (result[0], count, [])
        return result

    def _static_passes(self, pod: Pod, names: List[str]) -> List[str]:
        """The candidate nodes among `names` where `pod`'s template passes the static filters:
        `_static_feasible`'s verdicts read for those nodes' classes only, not summed over every
        class (an upgrade asks this for each Pending pod at each batch, right after the
        candidates changed)."""
        if na_plugin.prefilter_node_names(pod.required_affinity) is not None:
            entries, _ = self._static_feasible(pod)
            by_class = {id(e.cls): e for e in entries}
            out = []
            for n in names:
                entry = by_class.get(id(self._class_of[n]))
                if entry is not None and (entry.subset is None or any(m == n for m, _ in entry.subset)):
                    out.append(n)
            return out
        key = (pod.tolerations, tuple(sorted(pod.node_selector.items())), pod.required_affinity,
               pod.preferred_affinity)
        verdicts = self._verdicts.get(key)
        if verdicts is None:
            verdicts = self._verdicts[key] = self._class_verdicts(pod)
        out = []
        for n in names:
            kind, value = verdicts[self._class_of[n].id]
            if kind == "class" or (kind == "nodes" and any(m == n and ok for m, ok, _ in value)):
                out.append(n)
        return out

    def _pinned_feasible(self, pod: Pod, pinned: frozenset) -> Tuple[Tuple[_Entry, ...], Counter]:
        """`_static_feasible` for a pod NodeAffinity's PreFilter pins to `pinned` node names: only
        those are filtered (`_verdict` of their classes, over those names alone); every other node
        (cordoned or tainted too) counts as `node(s) didn't satisfy plugin(s) [NodeAffinity]`."""
        why: Counter = Counter()
        unsched_ok = nodeunschedulable.tolerates_unschedulable(pod.tolerations)
        by_class: Dict[int, List[str]] = {}
        inside = 0
        for name in sorted(pinned):
            if name not in self.nodes or name in self.absent:
                continue
            inside += 1
            if name in self.excluded:
                why[UNSCHEDULABLE_MSG] += 1
            else:
                by_class.setdefault(self._class_of[name].id, []).append(name)
        entries = []
        for cid, names in by_class.items():
            kind, value = self._verdict(self.classes[cid], pod, unsched_ok, True, names)
            if kind == "reason":
                why[value] += len(names)
                continue
            subset = tuple((n, pref) for n, ok, pref in value if ok)
            if len(subset) < len(names):
                why[AFFINITY_MSG] += len(names) - len(subset)
            if subset:
                entries.append(_Entry(self.classes[cid], max(sc for _, sc in subset), subset))
        total = self.present()
        if total > inside:
            why[na_plugin.PREFILTER_OUT] += total - inside
        entries.sort(key=lambda e: -e.pref)
        return tuple(entries), why

    def _class_verdicts(self, pod: Pod) -> List[Tuple[str, Any]]:
        """Per class, what the static filters say of `pod`'s template, whatever nodes are
        candidates: ("reason", message) for every node of the class, ("class", preferred score)
        when every node passes, ("nodes", ((name, passes, preferred score), ...)) when the
        template reads a per-node key."""
        req_keys, req_fields = selector_keys(pod.required_affinity)
        pref_keys, pref_fields = _preferred_keys(pod.preferred_affinity)
        per_node_req = req_fields or bool(self.split_keys & (req_keys | set(pod.node_selector)))
        per_node_pref = pref_fields or bool(self.split_keys & pref_keys)
        unsched_ok = nodeunschedulable.tolerates_unschedulable(pod.tolerations)
        return [self._verdict(cls, pod, unsched_ok, per_node_req or per_node_pref) for cls in self.classes]

    def _verdict(self, cls: Any, pod: Pod, unsched_ok: bool, per_node: bool,
                 names: Optional[Sequence[str]] = None) -> Tuple[str, Any]:
        """What the static filters (NodeUnschedulable, TaintToleration, NodeAffinity, in the
        framework's order) say of `pod` on class `cls`: ("reason", message), ("class", preferred
        score), or with `per_node` ("nodes", ((name, passes, preferred score), ...)) over `names`
        (default: the class's nodes)."""
        if cls.unschedulable and not unsched_ok:
            return ("reason", UNSCHEDULABLE_MSG)
        bad = tainttoleration.first_untolerated(cls.taints, pod.tolerations)
        if bad is not None:
            return ("reason", tainttoleration.message(bad, self._taints_text))
        if per_node:
            out = []
            for n in (cls.names if names is None else names):
                node = self.nodes[n]
                if not na_plugin.node_matches_pod(pod, node).match:
                    out.append((n, False, 0))
                    continue
                out.append((n, True, na_plugin.preferred_score(pod.preferred_affinity, node)[0]
                            if pod.preferred_affinity else 0))
            return ("nodes", tuple(out))
        if not na_plugin.node_matches_pod(pod, cls.rep).match:
            return ("reason", AFFINITY_MSG)
        return ("class", na_plugin.preferred_score(pod.preferred_affinity, cls.rep)[0] if pod.preferred_affinity else 0)

    # -- dynamic filters (per node) -------------------------------------------------------------

    def cycle(self, pod: Pod) -> Cycle:
        """Run the dynamic plugins' PreFilter for `pod` against the state as it is now."""
        pinned = na_plugin.prefilter_node_names(pod.required_affinity)
        if pinned is not None and not pinned:    # NodeAffinity, the first PreFilter
            return Cycle((), framework.unresolvable(na_plugin.CONFLICT), False, "NodeAffinity")
        active = []
        domains = False
        for plugin in self.filters:
            unknown = getattr(plugin, "unknown_kinds", None)   # plugins need not derive from Plugin
            missing = unknown(self.cs, pod) if unknown is not None else ()
            if missing:   # its verdict would rest on objects the input does not hold: skip it
                per_kind = self.unchecked.setdefault(pod.key, {})
                for kind in missing:
                    names = per_kind.setdefault(kind, [])
                    if plugin.name not in names:
                        names.append(plugin.name)
                # unless all it lacks only adds to what it counts: its rejections are then facts
                if not set(missing) <= set(getattr(plugin, "lower_bound_kinds", ())):
                    continue
            st, data = plugin.pre_filter(self.cs, pod)
            if st.code == framework.SKIP:
                continue
            if not st.ok:
                return Cycle((), st, False, plugin.name)
            active.append((plugin, data))
            domains = domains or plugin.name in ("PodTopologySpread", "InterPodAffinity")
        return Cycle(tuple(active), None, domains)

    def node_status(self, pod: Pod, cyc: Cycle, name: str) -> Optional[Status]:
        """The first failing dynamic Filter's status on node `name`, None when it passes."""
        node = self.nodes[name]
        for plugin, data in cyc.active:
            st = plugin.filter(self.cs, pod, data, node)
            if st is not None:
                return st
        return None

    def residents(self, name: str) -> List[Pod]:
        """Pods on the node as the plan stands: running ones (minus those leaving) plus placed ones."""
        return self.cs.residents[name]

    def failures(self, pod: Pod, name: str, first_only: bool = False) -> List[str]:
        """Why `pod` does not fit on node `name` now (the dynamic filters)."""
        st = self.node_status(pod, self.cycle(pod), name)
        if st is None:
            return []
        return list(st.reasons[:1] if first_only else st.reasons)

    def _room(self, pod: Pod, items: Tuple[Tuple[str, int], ...], name: str) -> bool:
        """Does NodeResourcesFit pass on node `name`? Plain dict reads; its reasons only when
        it fails (`noderesources.insufficient`)."""
        alloc = self.alloc[name]
        free = self.free[name]
        for r, q in items:
            if r != "pods" and (r not in alloc or q > free.get(r, 0)):
                return False
        if "pods" in alloc and self.count[name] + 1 > alloc["pods"]:
            return False
        if self.cs.nominated and name in self.cs.nominated:
            held = self.cs.nominated_room(name, pod)
            if held is not None:
                for r, q in items:
                    if r != "pods" and q > free.get(r, 0) - held[0].get(r, 0):
                        return False
                if "pods" in alloc and self.count[name] + 1 + held[1] > alloc["pods"]:
                    return False
        return True

    def _fits(self, pod: Pod, items: Tuple[Tuple[str, int], ...], name: str, cyc: Cycle) -> bool:
        """Feasibility on one node: resources first (plain dict reads), then the other plugins."""
        if self._check_resources and not self._room(pod, items, name):
            return False
        node = self.nodes[name]
        for plugin, data in cyc.active:
            if isinstance(plugin, NodeResourcesFit):
                continue
            if plugin.filter(self.cs, pod, data, node) is not None:
                return False
        return True

    def _least(self, pod: Pod, name: str) -> float:
        """LeastAllocated (fast pick): mean over cpu and memory of free-after-placement / allocatable."""
        alloc = self.alloc[name]
        free = self.free[name]
        req = dict(self._items(pod))
        parts = [(free.get(r, 0) - req.get(r, 0)) / alloc[r] for r in _SCORED if alloc.get(r, 0) > 0]
        return sum(parts) / len(parts) if parts else 0.0

    def _offset(self, pod: Pod, node: str) -> float:
        """Mean over cpu and memory of the pod's request / the node's allocatable (neither
        changes during a plan: remembered per requests and node)."""
        items = self._items(pod)
        key = (items, node)
        v = self._offsets.get(key)
        if v is None:
            alloc = self.alloc[node]
            req = dict(items)
            parts = [req.get(r, 0) / alloc[r] for r in _SCORED if alloc.get(r, 0) > 0]
            v = self._offsets[key] = sum(parts) / len(parts) if parts else 0.0
        return v

    def _best_in_class(self, pod: Pod, cls: _Class, sched_key: Optional[tuple], floor: Optional[float],
                       cyc: Cycle) -> Optional[str]:
        """The least allocated node of `cls` that fits, or None. With `floor`, give up (without
        concluding anything) once no remaining node can score above it."""
        nofit_key = (sched_key, cls.id) if sched_key is not None else None
        if nofit_key is not None and nofit_key in self._nofit:
            return None
        if self._class_rejected(pod, cls, cyc):
            if nofit_key is not None:
                self._nofit.add(nofit_key)
            return None
        items = self._items(pod)
        offset = self._offset(pod, cls.rep.name)
        for negf, name in self._live_order(cls):
            if floor is not None and -negf - offset < floor:
                return None
            if self._fits(pod, items, name, cyc):
                return name
        if nofit_key is not None:
            self._nofit.add(nofit_key)
        return None

    def _class_rejected(self, pod: Pod, cls: _Class, cyc: Cycle) -> bool:
        """Does a dynamic plugin's Filter fail on every node of `cls` (as the state is now)?
        Spread, inter-pod and volume topology on zone-like keys decide per class, so a pod
        bound to one zone never tries the other zones' nodes one by one."""
        rep = cls.rep
        split = self.split_keys
        for plugin, data in cyc.active:
            check = getattr(plugin, "rejects_class", None)   # plugins need not derive from Plugin
            if check is not None and check(self.cs, pod, data, rep, split):
                return True
        return False

    def _sched_key(self, pod: Pod, cyc: Cycle) -> Optional[tuple]:
        if cyc.domains:
            return None
        return (pod.tolerations, tuple(sorted(pod.node_selector.items())), pod.required_affinity,
                pod.preferred_affinity, pod.requests, pod.namespace, pod.labels, pod.volumes,
                host_ports(pod, self.cs.sidecar_ports),
                pod.resource_claims)

    def _fast_pick(self, pod: Pod, entries: Tuple[_Entry, ...], cyc: Cycle) -> Optional[str]:
        sched_key = self._sched_key(pod, cyc)
        best: Optional[str] = None
        best_key: Optional[tuple] = None
        ranked = []
        items = self._items(pod)
        for entry in entries:
            if entry.subset is not None:
                if self._class_rejected(pod, entry.cls, cyc):
                    continue
                for name, pref in entry.subset:
                    if name in self.excluded or not self._fits(pod, items, name, cyc):
                        continue
                    key = (-pref, -self._least(pod, name), name)
                    if best_key is None or key < best_key:
                        best, best_key = name, key
                continue
            order = self._order(entry.cls)
            bound = (-order[0][0] - self._offset(pod, entry.cls.rep.name)) if order else 0.0
            ranked.append((-entry.pref, -bound, entry.cls.id, entry))
        ranked.sort(key=lambda t: t[:3])
        for negpref, negbound, _, entry in ranked:
            if best_key is not None and (negpref, negbound) > (best_key[0], best_key[1]):
                break         # sorted by (preferred score, best possible least-allocated)
            floor = -best_key[1] if best_key is not None and negpref == best_key[0] else None
            name = self._best_in_class(pod, entry.cls, sched_key, floor, cyc)
            if name is None:
                continue
            key = (negpref, -self._least(pod, name), name)
            if best_key is None or key < best_key:
                best, best_key = name, key
        return best

    def _live_names(self, entries: Tuple[_Entry, ...]) -> List[str]:
        """The candidate nodes of a static result, in its order (built on first use)."""
        memo = self._live[id(entries)]
        if memo[2] or not memo[1]:
            return memo[2]
        out = memo[2]
        for entry in entries:
            names = [n for n, _ in entry.subset] if entry.subset is not None else entry.cls.names
            out.extend(n for n in names if n not in self.excluded)
        return out

    def diagnose(self, pod: Pod, entries: Tuple[_Entry, ...], static_why: Counter,
                 cyc: Cycle) -> Tuple[Counter, Dict[str, Status]]:
        """Every candidate node's Filter status (the FitError histogram, and which nodes
        preemption may try), node by node only where it can differ: per class, the plugins
        whose status is the same on every node of the class (`Plugin.class_status`) are asked
        once, so a pod whose zonal volume rules out two zones runs NodeResourcesFit and
        NodeVolumeLimits on their nodes, not every Filter."""
        why = Counter(static_why)
        statuses: Dict[str, Status] = {}
        excluded = self.excluded
        cs = self.cs
        nodes = self.nodes
        items = self._items(pod)
        for entry in entries:
            per_node, tail = self._class_filters(pod, entry.cls, cyc)
            names = [n for n, _ in entry.subset] if entry.subset is not None else entry.cls.names
            for name in names:
                if name in excluded:
                    continue
                st = tail
                if per_node:
                    node = nodes[name]
                    for plugin, data in per_node:
                        if isinstance(plugin, NodeResourcesFit) and self._room(pod, items, name):
                            continue
                        got = plugin.filter(cs, pod, data, node)
                        if got is not None:
                            st = got
                            break
                if st is None:
                    continue
                statuses[name] = st
                for msg in st.reasons:
                    why[msg] += 1
        return why, statuses

    def _class_filters(self, pod: Pod, cls: _Class, cyc: Cycle) -> Tuple[List[Tuple[Any, Any]], Optional[Status]]:
        """The active Filter plugins to run on each node of `cls`, in order, and the status of a
        node they all pass: the first plugin whose status is one for the whole class and fails
        ends the list (what follows it never decides), those that pass the whole class are
        left out."""
        per_node: List[Tuple[Any, Any]] = []
        rep = cls.rep
        split = self.split_keys
        for plugin, data in cyc.active:
            check = getattr(plugin, "class_status", None)   # plugins need not derive from Plugin
            st = check(self.cs, pod, data, rep, split) if check is not None else framework.PER_NODE
            if st is framework.PER_NODE:
                per_node.append((plugin, data))
            elif st is not None:
                return per_node, st
        return per_node, None

    # -- API ----------------------------------------------------------------------------------

    def fits_on(self, pod: Pod, node: Node) -> bool:
        """Would a replacement of `pod` pass every Filter on `node`, a node of the plan given as it
        will be (a taint lifted), with the pods as the plan stands now? The static filters read
        `node` (NodeUnschedulable, TaintToleration, NodeAffinity); the others its state here."""
        if node.unschedulable and not nodeunschedulable.tolerates_unschedulable(pod.tolerations):
            return False
        if tainttoleration.first_untolerated(effective_taints(node), pod.tolerations) is not None:
            return False
        if not na_plugin.node_matches_pod(pod, node).match:
            return False

        def dynamic(p: Pod) -> bool:
            cyc = self.cycle(p)
            return cyc.rejected is None and self._fits(p, self._items(p), node.name, cyc)
        return bool(self._as_replacement(pod, dynamic))

    def fits_any(self, pod: Pod, names: Iterable[str]) -> bool:
        """Does `pod` pass every Filter on one of the candidate nodes `names` now? No scoring, no
        FitError, no preemption, nothing reserved: the test that tells whether a pod that fits
        nowhere is worth a new scheduling attempt once these nodes have joined (kube-scheduler
        retries its unschedulable pods on a node's Add; an upgrade asks this for every Pending
        replacement at every batch, so it must stay cheap: static verdicts by class, then the
        dynamic filters on these nodes only)."""
        if (pod.key, None) in self._never:
            return False
        want = [n for n in names if n in self.nodes and n not in self.excluded]
        if not want:
            return False
        return self._as_replacement(pod, lambda p: self._fits_any(p, want))

    def _fits_any(self, pod: Pod, want: List[str]) -> bool:
        never = self._never
        cands = [n for n in self._static_passes(pod, want) if (pod.key, self._class_of[n].id) not in never]
        items = self._items(pod)
        if self._check_resources:
            cands = [n for n in cands if self._room(pod, items, n)]
        if not cands:
            return False
        cyc = self.cycle(pod)
        if cyc.rejected is not None:
            if cyc.rejected_by in _STATIC_PREFILTERS:
                never.add((pod.key, None))      # its claims or node names: nothing in the plan changes them
            return False
        for plugin, data in cyc.active:
            if plugin.name in _STATIC_CLASS_FILTERS:
                for n in cands:
                    cls = self._class_of[n]
                    if plugin.rejects_class(self.cs, pod, data, cls.rep, self.split_keys):
                        never.add((pod.key, cls.id))    # its volumes' zones: the same on every new node
                cands = [n for n in cands if (pod.key, self._class_of[n].id) not in never]
        return any(self._fits(pod, items, n, cyc) for n in cands)

    def place(self, pod: Pod) -> Placement:
        """Find the node the scheduler would pick for a replacement of `pod`; reserve it.

        The replacement keeps what its controller gives it: a StatefulSet pod comes back with the
        same name and claims once the old pod is gone; any other replacement is scheduled while
        the old pod is still terminating (it still counts for inter-pod affinity, no longer for
        topology spread). Either way a generic ephemeral volume's claim is a new one."""
        self._retire(pod)
        return self._as_replacement(pod, self._place_retrying)

    def _as_replacement(self, pod: Pod, fn: Callable[[Pod], Any]) -> Any:
        """`fn(pod)` with the claims a replacement of `pod` gets in place of the old pod's
        (`ClusterState.fresh_claims`: generic ephemeral volumes come back unbound)."""
        fresh = self.cs.fresh_claims(pod) if pod.volumes else {}
        if not fresh:
            return fn(pod)
        before, self.cs.fresh = self.cs.fresh, fresh
        try:
            return fn(pod)
        finally:
            self.cs.fresh = before

    def _place_retrying(self, pod: Pod) -> Placement:
        placed = self._place(pod)
        if placed.node is None and self._freed:
            # DynamicResources' PostFilter deallocated a claim no other pod holds: the next
            # attempt allocates it anew.
            self._nofit.clear()
            placed = self._place(pod)
        if placed.node is None and self._terminating:
            # The scheduler retries when pods go away: once the evicted pods are gone (their
            # inter-pod terms, resources and volumes with them) the replacement may fit.
            self._forget_terminating()
            placed = self._place(pod)
        return placed

    def _place(self, pod: Pod) -> Placement:
        entries, static_why = self._static_feasible(pod)
        cyc = self.cycle(pod)
        total = self.present()
        self._freed = False
        if cyc.rejected is not None:
            msg = "; ".join(cyc.rejected.reasons)
            post = framework.NEVER if pod.preemption_policy == "Never" else \
                framework.preemption_message(total, {framework.NOT_HELPFUL: total})
            if pod.preemption_policy == "Never":
                post = "preemption: " + post
            # DynamicResources' PostFilter has its PreFilter state only when it ran, i.e. when it
            # is the one that rejected (an earlier rejection leaves it none: v1.33's text is kept)
            if cyc.rejected_by == "DynamicResources":
                post = ", ".join(self._post_filter(pod) + [post])
            return Placement(None, fit_error(total, {}, prefilter=msg, postfilter=post))
        candidates: Tuple[str, ...] = ()
        if self._live[id(entries)][1] < EXACT_SCORING_NODES:
            live = self._live_names(entries)
            from kubectl_evict.scheduling.scoring import pick
            items = self._items(pod)
            feasible = [n for n in live if self._fits(pod, items, n, cyc)]
            best, candidates = pick(self, pod, feasible) if feasible else (None, ())
        else:
            best = self._fast_pick(pod, entries, cyc)
        if best is not None:
            self.commit(pod, best)
            return Placement(best, "", candidates)
        why, statuses = self.diagnose(pod, entries, static_why, cyc)
        before = self._post_filter(pod)
        result: Preemption = preempt(self, pod, statuses)
        if result.node is not None and self.preempt:
            for victim, node in result.victims:
                self.remove(victim, node)
            self.commit(pod, result.node)
            event = framework.preemption_placed_text(total, why, result.node, len(result.victims)) \
                if self.release.has("PreemptionPlacementText") else ""
            return Placement(result.node, "", (), result.victims, result.pdb_violations, event)
        post = ", ".join(before + [result.message] if result.message else before)
        return Placement(None, fit_error(total, why, postfilter=post))

    def _post_filter(self, pod: Pod) -> List[str]:
        """The PostFilter plugins that run before DefaultPreemption (DynamicResources: in the
        default profile from v1.34), in profile order, on this cycle's Filter results: their
        messages (the FitError joins them with ", " as `RunPostFilterPlugins` joins the statuses'
        reasons), and whether one freed something (`self._freed`: the scheduler then tries the
        pod again)."""
        msgs = []
        for p in self.filters:
            m = p.post_filter(self.cs, pod)
            if m:
                msgs.append(m)
            if p.deallocate(self.cs, pod):
                self._freed = True
        return msgs

    def terminate(self, pods: Iterable[Pod]) -> None:
        """`pods` were just evicted or deleted: until they are gone they still hold their node's
        resources and count for inter-pod affinity, but no longer for topology spread."""
        cs = self.cs
        for pod in pods:
            key = (pod.namespace, pod.name)
            old = pod.node_name
            if key in self._terminating or not old or old not in cs.residents or cs.pod_of.get(key) is not pod:
                continue
            cs.remove(pod, old)
            if pod.deletion_timestamp is None:
                values = {f: getattr(pod, f) for f in Pod._pclass_fields}
                values["deletion_timestamp"] = pod.creation_timestamp or 0.0
                pod = Pod.trusted(**values)
            cs.add(pod, old)
            self._terminating[key] = (pod, old)
            self._reorder(old)

    def restore(self, pods: Iterable[Pod]) -> None:
        """Undo `terminate` for `pods` that were not removed after all (a PDB refused them)."""
        for pod in pods:
            key = (pod.namespace, pod.name)
            if key in self._terminating:
                copy, node = self._terminating.pop(key)
                self.cs.remove(copy, node)
                self.cs.add(pod, node)
                self._reorder(node)
            elif key in self._gone:
                node = self._gone.pop(key)
                self.cs.add(pod, node)
                self._reorder(node)

    def _retire(self, pod: Pod) -> None:
        """Before placing `pod`'s replacement: a StatefulSet creates it only once the old pod is
        gone, and by then the pods evicted with it are gone too; any other controller creates it
        while the old pod terminates."""
        self.terminate((pod,))
        if pod.controller_kind == "StatefulSet":
            self._forget_terminating()

    def _forget_terminating(self) -> None:
        """The terminating pods are gone."""
        for key, (p, node) in sorted(self._terminating.items()):
            self.cs.remove(p, node)
            self._reorder(node)
            self._gone[key] = node
        self._terminating.clear()
        self._nofit.clear()

    def commit(self, pod: Pod, name: str) -> None:
        """Reserve `pod`'s requests, pod slot, host ports, volumes and domains on node `name`."""
        self.cs.add(pod, name)
        for p in self.filters:
            p.reserve(self.cs, pod, name)
        self._reorder(name)

    def remove(self, pod: Pod, name: str) -> None:
        """`pod` leaves node `name` (a preemption victim): its room is free again."""
        self.cs.remove(pod, name)
        self._nofit.clear()
        self._reorder(name)

    def _reorder(self, name: str) -> None:
        cls = self._class_of[name]
        if cls.order is not None:
            order = cls.order
            old = self._key[name]
            del order[bisect_left(order, old)]
            new = self._key[name] = (-self._fraction(name), name)
            insort(order, new)
            if name not in self.excluded:
                live = cls.live
                del live[bisect_left(live, old)]
                insort(live, new)
