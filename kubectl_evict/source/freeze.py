"""Freeze raw Kubernetes objects into the immutable `Snapshot`.

Each kind is projected into the typed records of `model.py`, keeping only what the rules read,
validating as it goes: a wrong type or an unparsable quantity is an `InputError` naming the
file, the object and the field. Leaves shared by many pods (identical tolerations, resource
maps, containers) are interned so 150,000 pods cost little more than their distinct templates.
From the fast loader those subtrees arrive as raw JSON text (`msgspec.Raw`, or bytes from the
live reader): `_Interner.cached` projects each distinct text once, with the same projection
functions (and so the same checks and error messages) as the plain dicts of the stdlib path.
Per-field checks belong in those projection functions and the `_str`/`_int`/`_map` helpers; the
pod path reads string fields inline and calls `_str` only when a value is not a string.
The garbage collector is paused while building: allocation-heavy immutable construction
otherwise spends more than half its time in GC (see shared/notes/python-performance.md).
"""

from __future__ import annotations

import json
import sys
import threading
from operator import attrgetter, itemgetter
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from pyrsistent import pvector

from kubectl_evict import collector
from kubectl_evict.errors import InputError, ValueParseError
from kubectl_evict.eviction.observe import decode_summary, prune_summary
from kubectl_evict.model import (EMPTY_MAP, Condition, Container, ContainerPort, LabelSelector, Node, NodeSelector,
                                 NodeSelectorTerm, Owner, OwnerRef, PodFailureRule, Pod,
                                 PodDisruptionBudget, PreferredTerm, PriorityClass, Requirement, Snapshot,
                                 SnapshotInfo, Taint, Volume, VolumeAttachment, LazyJSON, frozen_map,
                                 SYSTEM_PRIORITY_CLASSES)
from kubectl_evict.source import validate
from kubectl_evict.versions import is_version
from kubectl_evict.scheduling.labels import label_value_errors, qualified_name_errors
from kubectl_evict.scheduling.qos import pod_qos_by_release
from kubectl_evict.scheduling.resources import default_pod_level_requests, pod_requests
from kubectl_evict.scheduling.tolerations import EFFECTS, with_daemonset_tolerations
from kubectl_evict.scheduling.topology import zone_key
from kubectl_evict.source.documents import EMPTY_LIST, Doc, infer_kind
from kubectl_evict.source.fields import (_RAW_TYPES, _Interner, _Loc, _PodLoc, _Raw, _bool, _int, _item_map, _map, _node_selector,
                                       _owner_refs, _seq, _str, _term, _text, _time, _tolerations,
                                       _type_name, _valid, decode_conditions, decode_raw, label_selector)  # noqa: F401  (also read by tests)

_RAW_NULL = _Raw(b"null") if decode_raw is not None else None

OWNER_KINDS = ("DaemonSet", "ReplicaSet", "StatefulSet", "Deployment", "Job", "ReplicationController")
EVICTPLAN_API = "evictplan/v1alpha1"
# Our own outputs, which are no snapshot: what each is and the command that reads it.
# our own outputs given as a snapshot: (article, what it is, what reads it)
_OUTPUT_KINDS = {"EvictionPlan": ("an", "a plan printed with -o json/yaml",
                                  "`kubectl evictplan apply FILE` and `kubectl evictplan verify FILE` read it"),
                 "PlanVerification": ("a", "the output of verify -o json/yaml",
                                      "it is a report that no command reads (verify reads the plan it checked)")}
NODE_LEASE_NAMESPACE = "kube-node-lease"   # node heartbeats; the freezer reads no other Lease
# Our own per-node kubelet documents. A source that lists them in SnapshotInfo.kinds read every
# kubelet it targets (a node whose kubelet did not answer is a warning, not a gap in the kind;
# a source without permission to read kubelets does not list them).
KUBELET_KINDS = ("NodeKubeletConfig", "NodeStatsSummary")
# Annotations the rules read; everything else (last-applied-configuration...) is dropped.
_KEPT_ANNOTATION_PREFIXES = ("kubernetes.io/config.", "evictplan.io/", "cluster-autoscaler.kubernetes.io/",
                             "descheduler.alpha.kubernetes.io/", "batch.kubernetes.io/job-index-")
AFFINITY_ANNOTATION = "evictplan.io/node-affinity"
_VOLUME_KINDS = ("emptyDir", "hostPath", "persistentVolumeClaim", "configMap", "secret", "projected",
                 "downwardAPI", "ephemeral", "csi", "nfs", "gitRepo")
_VOLUME_RANK = {k: i for i, k in enumerate(_VOLUME_KINDS)}
_intern = sys.intern


_EMPTY = EMPTY_MAP
_NS_NAME = itemgetter(0, 1)                   # (namespace, name, ...) entries in object order
_POD_ORDER = attrgetter("namespace", "name")  # pods in (namespace, name) order


class Freezer:
    """Collects raw objects, then builds one Snapshot. Later duplicates win, with a warning.

    `add` keeps raw objects until `build`; `add_page` (the live reader's list pages) projects the
    PAGED_KINDS at once, so that a page and its raw text can go before the next one arrives."""

    # Kinds that need nothing but themselves (and, for pods, the PriorityClasses) to be projected.
    PAGED_KINDS = ("Pod",) + OWNER_KINDS

    def __init__(self) -> None:
        self.objects: Dict[Tuple[str, str, str], Tuple[str, dict]] = {}
        self.projected: Dict[Tuple[str, str, str], Tuple[str, Any]] = {}
        self.warnings: List[str] = []
        self.it = _Interner()
        self._lock = threading.Lock()
        self._pod_pcs: Optional[Tuple[Dict[str, PriorityClass], Optional[PriorityClass]]] = None
        self.kinds_seen: set = set()     # kinds that appear in the input (a file holds them)
        self.ignored: Dict[str, int] = {}   # kinds the freezer does not read -> how many objects
        self.kindless: List[str] = []       # where objects without a recognisable kind are

    # -- collection -----------------------------------------------------------------------

    def add(self, docs: Iterable[Doc]) -> None:
        for source, where, obj in docs:
            key = self._identify(source, where, obj)
            if key is not None:
                self.objects[key] = (source, obj)
                self.projected.pop(key, None)

    def add_page(self, kind: str, source: str, items: Iterable[dict]) -> None:
        """Project one list page of `kind` (one of PAGED_KINDS) now; the items are not kept.
        Pods are priced with the PriorityClasses `add`ed so far: add those first. Thread-safe:
        the live reader calls it from one thread per kind."""
        if kind not in self.PAGED_KINDS:
            raise ValueError(kind)
        with self._lock:
            if kind == "Pod" and self._pod_pcs is None:
                self._pod_pcs = _priority_classes(sorted(
                    (ns, name, src, obj) for (k, ns, name), (src, obj) in self.objects.items() if k == "PriorityClass"))
            for obj in items:
                key = self._identify(source, "", obj)
                if key is None:
                    continue
                _, ns, name = key
                if kind == "Pod":
                    pcs, default_pc = self._pod_pcs  # type: ignore[misc]
                    rec = _project_pod(_PodLoc(source, ns, name), obj, ns, name, pcs, default_pc, self.it)
                else:
                    rec = _project_owner(_Loc(source, "%s %s/%s" % (kind, ns, name)), obj, kind, ns, name, self.it)
                self.projected[key] = (source, rec)
                self.objects.pop(key, None)

    def forget(self, kind: str) -> None:
        """Drop what `add_page` projected of `kind` (a live list that restarts from its first page)."""
        with self._lock:
            for key in [k for k in self.projected if k[0] == kind]:
                del self.projected[key]

    def _identify(self, source: str, where: str, obj: dict) -> Optional[Tuple[str, str, str]]:
        """(kind, namespace, name) of a raw object, checked as the API server would; None for
        kinds the freezer does not read. Warns when the key was seen before (the later one wins)."""
        kind = obj.get("kind")
        if kind is None:
            kind = infer_kind(obj)
        if not isinstance(kind, str):
            raise InputError("expected a string, found %s" % _type_name(kind), source=source,
                             obj=where or None, field="kind")
        if not kind:
            self.kindless.append("%s%s" % (source, " " + where if where else ""))
            return None
        if kind not in _PROJECTORS:
            if kind == EMPTY_LIST:
                self._listed_none_of(obj.get("of"))
                return None
            if kind in _OUTPUT_KINDS:
                article, what, reader = _OUTPUT_KINDS[kind]
                raise InputError("this is %s %s (%s), not a snapshot: %s" % (article, kind, what, reader),
                                 source=source, obj=where or None)
            self.ignored[kind] = self.ignored.get(kind, 0) + 1
            return None
        meta = obj.get("metadata")
        if meta is None:
            meta = {}
        if not isinstance(meta, dict):
            raise InputError("expected an object, found %s" % _type_name(meta), source=source,
                             obj="%s %s" % (kind, where) if where else kind, field="metadata")
        name = meta.get("name")
        if kind == "NodeStatsSummary" and name is None:
            summary = obj.get("summary")
            if isinstance(summary, (bytes, bytearray)):
                summary = LazyJSON(data=bytes(summary), where=(source, "NodeStatsSummary " + where, "summary"),
                                   decode=decode_summary)
            node = obj.get("node") if isinstance(obj.get("node"), dict) else \
                (summary.get("node") if isinstance(summary, Mapping) else None)
            name = node.get("nodeName") if isinstance(node, dict) else None
        if not isinstance(name, str) or not name:
            label = "%s %s" % (kind, where) if where else kind
            problem = "%s without a name" % kind if name is None or name == "" else \
                "expected a string, found %s" % _type_name(name)
            raise InputError(problem, source=source, obj=label, field="metadata.name")
        ns = meta.get("namespace") or ""
        if not isinstance(ns, str):
            raise InputError("expected a string, found %s" % _type_name(ns), source=source,
                             obj="%s %s" % (kind, name), field="metadata.namespace")
        if kind == "Pod" and not ns:
            ns = "default"
        if kind != "Lease" or ns == NODE_LEASE_NAMESPACE:   # other Leases are no heartbeats
            self.kinds_seen.add(kind)
        key = (kind, ns, name)
        prev = self.objects.get(key) or self.projected.get(key)
        if prev is not None:
            self.warnings.append("%s %s appears more than once (%s, %s); the later one wins"
                                 % (kind, "%s/%s" % (ns, name) if ns else name, prev[0], source))
        return key

    def _listed_none_of(self, kind: Any) -> None:
        """An empty typed list of `kind`: its source listed the kind and found none, so the input
        holds it. Not for Leases (which namespace was listed? only kube-node-lease holds
        heartbeats) nor for our own per-node documents, which no API lists."""
        if kind in _PROJECTORS and kind not in ("Lease", "SnapshotInfo") + KUBELET_KINDS:
            self.kinds_seen.add(kind)

    # -- building -------------------------------------------------------------------------

    def ignored_warning(self, shown: int = 5) -> Optional[str]:
        """One warning for every object the plan does not read: unknown kinds (named, with
        counts; a known kind in the wrong case is pointed out) and objects without a kind."""
        parts = []
        if self.ignored:
            known = {k.lower(): k for k in _PROJECTORS}
            names = []
            for kind, n in sorted(self.ignored.items(), key=lambda t: (-t[1], t[0])):
                hint = " (kinds are case-sensitive: %s?)" % known[kind.lower()] if kind.lower() in known else ""
                names.append("%d %s%s" % (n, kind, hint))
            more = " and %d more kinds" % (len(names) - shown) if len(names) > shown else ""
            total = sum(self.ignored.values())
            parts.append("%d object%s of kinds the planner does not read (%s%s)" % (
                total, "" if total == 1 else "s", ", ".join(names[:shown]), more))
        if self.kindless:
            n = len(self.kindless)
            more = " and %d more" % (n - 3) if n > 3 else ""
            parts.append("%d object%s without a kind that could not be recognised (%s%s); give each its kind "
                         "and apiVersion" % (n, "" if n == 1 else "s", ", ".join(self.kindless[:3]), more))
        return "ignored: " + "; ".join(parts) if parts else None

    def build(self, consume: bool = False) -> Snapshot:
        """The Snapshot of everything added. `consume=True` lets go of each raw object as soon as
        it is projected (the freezer is then empty): the records replace the raw dicts in memory
        instead of adding to them."""
        with collector.paused():
            return self._build(consume)

    def _build(self, consume: bool = False) -> Snapshot:
        ignored = self.ignored_warning()
        if ignored is not None and ignored not in self.warnings:
            self.warnings.append(ignored)
        by_kind: Dict[str, list] = {}
        for (kind, ns, name), (src, obj) in self.objects.items():
            by_kind.setdefault(kind, []).append((ns, name, src, obj))
        if consume:
            self.objects = {}
        for lst in by_kind.values():
            lst.sort(key=_NS_NAME)

        def each(kind: str):
            lst = by_kind.get(kind, ())
            for i in range(len(lst)):
                yield lst[i]
                if consume:
                    lst[i] = None

        pcs, default_pc = _priority_classes(each("PriorityClass"))
        if self._pod_pcs is not None and (pcs, default_pc) != self._pod_pcs:
            raise RuntimeError("PriorityClasses were added after pod pages were projected")
        projected: Dict[str, list] = {}   # kind -> [(ns, name, record)] from add_page
        for (kind, ns, name), (_, rec) in self.projected.items():
            projected.setdefault(kind, []).append((ns, name, rec))
        if consume:
            self.projected = {}
        for lst in projected.values():
            lst.sort(key=_NS_NAME)

        nodes = {}
        for ns, name, src, obj in each("Node"):
            nodes[name] = _project_node(_Loc(src, "Node " + name), obj, name, self.it)

        pods: List[Pod] = []
        for ns, name, src, obj in each("Pod"):
            pods.append(_project_pod(_PodLoc(src, ns, name), obj, ns, name, pcs, default_pc, self.it))
        pods.extend(rec for _, _, rec in projected.pop("Pod", ()))

        pdbs = {}
        for ns, name, src, obj in each("PodDisruptionBudget"):
            pdbs[(ns, name)] = _project_pdb(_Loc(src, "PodDisruptionBudget %s/%s" % (ns, name)), obj, ns, name, self.it)

        owners = {}
        for kind in OWNER_KINDS:
            for ns, name, src, obj in each(kind):
                owners[(kind, ns, name)] = _project_owner(_Loc(src, "%s %s/%s" % (kind, ns, name)), obj, kind, ns, name, self.it)
            for ns, name, rec in projected.pop(kind, ()):
                owners[(kind, ns, name)] = rec

        vas = []
        for ns, name, src, obj in each("VolumeAttachment"):
            vas.append(_project_volume_attachment(_Loc(src, "VolumeAttachment " + name), obj, name))

        leases = {}
        for ns, name, src, obj in each("Lease"):
            if ns != NODE_LEASE_NAMESPACE:
                continue
            loc = _Loc(src, "Lease %s/%s" % (ns, name))
            renew = _time(loc, _map(loc, obj, "spec", "spec"), "renewTime", "spec.renewTime")
            if renew is not None:
                leases[name] = renew

        kubelet_configs = {}
        for ns, name, src, obj in each("NodeKubeletConfig"):
            kubelet_configs[name] = _lazy(_Loc(src, "NodeKubeletConfig " + name), obj, "kubeletconfig")
        stats = {}
        for ns, name, src, obj in each("NodeStatsSummary"):
            loc = _Loc(src, "NodeStatsSummary " + name)
            if "summary" in obj:
                stats[name] = _lazy(loc, obj, "summary", decode_summary, prune_summary)
            else:  # a raw /stats/summary document
                stats[name] = LazyJSON(value=prune_summary({k: v for k, v in obj.items() if k in ("node", "pods")}),
                                       where=(src, loc.label, ""))

        info = SnapshotInfo()
        held = self.kinds_seen - {"SnapshotInfo"}
        for ns, name, src, obj in each("SnapshotInfo"):
            loc = _Loc(src, "SnapshotInfo " + name)
            listed = _kinds(loc, obj)
            held.update(listed)
            unread = unread_kinds_warning(src, listed)
            if unread and unread not in self.warnings:
                self.warnings.append(unread)
            info = SnapshotInfo(taken_at=_time(loc, obj, "takenAt", "takenAt"),
                                context=_str(loc, obj, "context", "context"),
                                server=_str(loc, obj, "server", "server"),
                                server_version=_server_version(loc, obj),
                                read_warnings=_read_warnings(loc, obj))
        info = info.set(kinds=tuple(sorted(held)))

        storage = project_storage(each, self.it)
        dra = project_dra(each, self.it)
        return assemble(nodes=nodes, pods=pods, pdbs=pdbs, priority_classes=pcs, owners=owners,
                        volume_attachments=vas, leases=leases, kubelet_configs=kubelet_configs,
                        stats=stats, info=info, warnings=self.warnings).set(**storage, **dra)


def _priority_classes(entries: Iterable[Tuple[str, str, str, dict]]) -> Tuple[Dict[str, PriorityClass],
                                                                             Optional[PriorityClass]]:
    """The PriorityClasses by name, and the global default a pod without a class gets (the
    highest-valued globalDefault class, as the Priority admission plugin picks it)."""
    pcs = {}
    for ns, name, src, obj in entries:
        pcs[name] = _project_priority_class(_Loc(src, "PriorityClass " + name), obj, name)
    default_pc = max((pc for pc in pcs.values() if pc.global_default), key=lambda pc: pc.value, default=None)
    return pcs, default_pc


def assemble(*, nodes: Dict[str, Node], pods: List[Pod], pdbs: Dict[Tuple[str, str], PodDisruptionBudget],
             priority_classes: Dict[str, PriorityClass], owners: Dict[Tuple[str, str, str], Owner],
             volume_attachments: List[VolumeAttachment], leases: Dict[str, float],
             kubelet_configs: Dict[str, Any], stats: Dict[str, Any], info: SnapshotInfo,
             warnings: List[str]) -> Snapshot:
    """Build the indexes once and wrap everything in an immutable Snapshot."""
    pods = sorted(pods, key=_POD_ORDER)
    by_node: Dict[str, list] = {}
    by_owner: Dict[str, list] = {}
    for p in pods:
        if p.node_name:
            by_node.setdefault(p.node_name, []).append(p)
        if p.controller is not None and p.controller.uid:
            by_owner.setdefault(p.controller.uid, []).append(p)
    pdbs_by_ns: Dict[str, list] = {}
    for key in sorted(pdbs):
        pdbs_by_ns.setdefault(key[0], []).append(pdbs[key])
    zones: Dict[str, list] = {}
    for name in sorted(nodes):
        zones.setdefault(nodes[name].zone, []).append(name)
    owners_by_uid = {o.uid: o for o in owners.values() if o.uid}
    return Snapshot(
        nodes=frozen_map(nodes), pods=pvector(pods), pods_by_key=frozen_map({p.key: p for p in pods}),
        pods_by_node=frozen_map({k: tuple(v) for k, v in by_node.items()}),
        pods_by_owner=frozen_map({k: tuple(v) for k, v in by_owner.items()}),
        pdbs=frozen_map(pdbs), pdbs_by_namespace=frozen_map({k: tuple(v) for k, v in pdbs_by_ns.items()}),
        priority_classes=frozen_map(priority_classes), owners=frozen_map(owners), owners_by_uid=frozen_map(owners_by_uid),
        volume_attachments=pvector(sorted(volume_attachments, key=lambda v: v.name)),
        leases=frozen_map(leases), kubelet_configs=frozen_map(kubelet_configs), stats=frozen_map(stats),
        nodes_by_zone=frozen_map({k: tuple(v) for k, v in zones.items()}), info=info, warnings=tuple(warnings))


# --- per-kind projections ------------------------------------------------------------------

def _kinds(loc: _Loc, obj: dict) -> List[str]:
    """SnapshotInfo.kinds: the kinds its source read in full (absent: none beyond what appears)."""
    out = []
    for i, k in enumerate(_seq(loc, obj, "kinds", "kinds")):
        if not isinstance(k, str) or not k:
            raise loc.error("kinds[%d]" % i, "expected a kind name, found %s" % _type_name(k))
        out.append(k)
    return out


# what kubectl users type for the kinds the planner reads: resource names and short names
_KIND_ALIASES = {"po": "Pod", "no": "Node", "pdb": "PodDisruptionBudget", "pc": "PriorityClass", "ds": "DaemonSet",
                 "rs": "ReplicaSet", "sts": "StatefulSet", "deploy": "Deployment", "rc": "ReplicationController",
                 "pvc": "PersistentVolumeClaim", "pv": "PersistentVolume", "sc": "StorageClass", "ns": "Namespace"}


def unread_kinds_warning(src: str, listed: Sequence[str]) -> Optional[str]:
    """SnapshotInfo.kinds entries that name no kind the planner reads (a resource name, a short
    name, the wrong case: written by hand after the README recipe): they claim nothing, so the
    plan still lists those kinds in `incomplete`; one warning names them, with the kind meant."""
    known = {k.lower(): k for k in _PROJECTORS if k != "SnapshotInfo"}
    bad = []
    for k in listed:
        if k in _PROJECTORS:
            continue
        low = k.lower()
        meant = _KIND_ALIASES.get(low) or next((known[c] for c in (low, low[:-1], low[:-2]) if c in known), None)
        bad.append("%s (%s?)" % (k, meant) if meant else k)
    if not bad:
        return None
    return ("%s: SnapshotInfo.kinds names %s the planner does not read, so %s nothing: %s; kinds are "
            "singular, case-sensitive kind names" % (src, "a kind" if len(bad) == 1 else "kinds",
                                                     "it claims" if len(bad) == 1 else "they claim", ", ".join(bad)))


def _read_warnings(loc: _Loc, obj: dict) -> Tuple[str, ...]:
    """SnapshotInfo.warnings: what `snapshot` could not read (kubelets that did not answer, a
    permission missing), so that a plan from the file can say it as a live plan does."""
    out = []
    for i, w in enumerate(_seq(loc, obj, "warnings", "warnings")):
        if not isinstance(w, str):
            raise loc.error("warnings[%d]" % i, "expected a string, found %s" % _type_name(w))
        out.append(w)
    return tuple(out)


def _server_version(loc: _Loc, obj: dict) -> str:
    """SnapshotInfo.serverVersion: a Kubernetes version, or empty/absent for unknown (a live read
    whose /version said nothing). Anything else is refused: the rules would silently model the
    kubelets' release instead of the one the user wrote."""
    v = _str(loc, obj, "serverVersion", "serverVersion")
    if v and not is_version(v):
        raise loc.error("serverVersion", "%r is not a Kubernetes version (want vMAJOR.MINOR[.PATCH][-suffix][+build] "
                                         "as `kubectl version` prints it, e.g. v1.33.3)" % v)
    return v


def _lazy(loc: _Loc, obj: dict, key: str, decode: Optional[Callable[[bytes], Any]] = None,
          prune: Optional[Callable[[dict], dict]] = None) -> LazyJSON:
    """Kubelet documents stay as they are (bytes from the fast path, or a parsed dict); `decode`
    and `prune` keep only what the reader of the document reads (the same on both paths)."""
    v = obj.get(key)
    if isinstance(v, (bytes, bytearray)):
        if v.lstrip()[:1] != b"{":   # the error path only: name the JSON type, as the stdlib path does
            raise loc.error(key, "expected an object, found %s" % _type_name(json.loads(v)))
        return LazyJSON(data=bytes(v), where=(loc.source, loc.label, key), decode=decode)
    value = _map(loc, obj, key, key)
    return LazyJSON(value=prune(value) if prune is not None else value, where=(loc.source, loc.label, key))


def _check_taint(loc: _Loc, key: str, value: str, effect: str, earlier: List[Taint], p: str) -> None:
    """What the API server refuses in a node taint (validateNodeTaints,
    pkg/apis/core/validation/validation.go): an invalid key or value, and a second taint with the
    same key and effect (which one would the rules match?). Per node, not per pod."""
    errs = qualified_name_errors(key)
    if errs:
        raise loc.error(p + ".key", "invalid taint key %r: %s" % (key, errs[0]))
    errs = label_value_errors(value)
    if errs:
        raise loc.error(p + ".value", "invalid taint value %r: %s" % (value, errs[0]))
    if any(t.key == key and t.effect == effect for t in earlier):
        raise loc.error(p, "taints must be unique by key and effect pair (%s:%s is given twice)" % (key, effect))


def _project_node(loc: _Loc, obj: dict, name: str, it: _Interner) -> Node:
    meta = _map(loc, obj, "metadata", "metadata")
    spec = _map(loc, obj, "spec", "spec")
    status = _map(loc, obj, "status", "status")
    labels = it.strmap(loc, meta, "labels", "metadata.labels", "label")
    taints = []
    for i, t in enumerate(_seq(loc, spec, "taints", "spec.taints")):
        p = "spec.taints[%d]" % i
        t = _item_map(loc, t, p)
        effect = _str(loc, t, "effect", p + ".effect")
        if effect not in EFFECTS:
            raise loc.error(p + ".effect", "unknown taint effect %r (want NoSchedule, PreferNoSchedule or NoExecute)" % effect)
        key = _str(loc, t, "key", p + ".key")
        if not key:
            raise loc.error(p + ".key", "taint without a key")
        value = _str(loc, t, "value", p + ".value")
        _check_taint(loc, key, value, effect, taints, p)
        taints.append(Taint(key, value, effect, it.time(loc, t, "timeAdded", p + ".timeAdded")))
    conditions = {}
    for i, c in enumerate(_seq(loc, status, "conditions", "status.conditions")):
        p = "status.conditions[%d]" % i
        c = _item_map(loc, c, p)
        ctype = _str(loc, c, "type", p + ".type")
        conditions[ctype] = Condition(ctype, _str(loc, c, "status", p + ".status"), _str(loc, c, "reason", p + ".reason"),
                                      _str(loc, c, "message", p + ".message"),
                                      it.time(loc, c, "lastHeartbeatTime", p + ".lastHeartbeatTime"),
                                      it.time(loc, c, "lastTransitionTime", p + ".lastTransitionTime"))
    capacity = it.resource_map(loc, status, "capacity", "status.capacity")
    return Node.trusted(name=name, uid=_str(loc, meta, "uid", "metadata.uid"), labels=labels, taints=tuple(taints),
                unschedulable=_bool(loc, spec, "unschedulable", "spec.unschedulable"),
                conditions=frozen_map(conditions),
                capacity=capacity,
                # SetDefaults_NodeStatus: the API server stores capacity as allocatable when a node posts none
                allocatable=it.resource_map(loc, status, "allocatable", "status.allocatable")
                if status.get("allocatable") is not None else capacity,
                zone=zone_key(labels), creation_timestamp=it.time(loc, meta, "creationTimestamp", "metadata.creationTimestamp"),
                excluded_from_disruption="node.kubernetes.io/exclude-disruption" in labels,
                kubelet_version=_kubelet_version(status))


def _kubelet_version(status: dict) -> str:
    """status.nodeInfo.kubeletVersion, or "" (it only informs the version rule, never an error)."""
    info = status.get("nodeInfo")
    v = info.get("kubeletVersion") if isinstance(info, dict) else None
    return v if isinstance(v, str) else ""


def _containers(loc: _Loc, spec: dict, key: str, it: _Interner, host_network: bool = False) -> Tuple[Container, ...]:
    """A pod's containers, with the API server's SetDefaults_Pod applied: a resource with a limit
    and no request requests its limit, and with hostNetwork a port's hostPort defaults to its
    containerPort."""
    out = []
    for i, c in enumerate(_seq(loc, spec, key, "spec." + key)):
        p = "spec.%s[%d]" % (key, i)
        c = _item_map(loc, c, p)
        res = _map(loc, c, "resources", p + ".resources")
        ports = []
        for j, port in enumerate(_seq(loc, c, "ports", p + ".ports")):
            pp = "%s.ports[%d]" % (p, j)
            port = _item_map(loc, port, pp)
            hp = _int(loc, port, "hostPort", pp + ".hostPort", 0)
            if not hp and host_network:
                hp = _int(loc, port, "containerPort", pp + ".containerPort", 0)
            if hp:
                ports.append(ContainerPort(hp, _str(loc, port, "protocol", pp + ".protocol", "TCP"),
                                           _str(loc, port, "hostIP", pp + ".hostIP")))
        requests = it.resource_map(loc, res, "requests", p + ".resources.requests")
        limits = it.resource_map(loc, res, "limits", p + ".resources.limits")
        if any(r not in requests for r in limits):
            requests = frozen_map(dict(limits, **requests))
        out.append(it.leaf(Container(_intern(_str(loc, c, "name", p + ".name")), requests, limits,
                                     tuple(ports), _str(loc, c, "restartPolicy", p + ".restartPolicy"))))
    return tuple(out)


def _volumes(loc: _Loc, spec: dict, it: _Interner) -> Tuple[Volume, ...]:
    return tuple([_volume(loc, v, i, it) for i, v in enumerate(_seq(loc, spec, "volumes", "spec.volumes"))])


def _volume(loc: _Loc, v: Any, i: int, it: _Interner) -> Volume:
    if v.__class__ is not dict:
        v = _item_map(loc, v, "spec.volumes[%d]" % i)
    name = v.get("name")
    if name.__class__ is not str:
        name = _str(loc, v, "name", "spec.volumes[%d].name" % i)
    kind = ""
    if len(v) == 2 and "name" in v:  # a name and one source: that source, whatever its value
        for k in v:
            if k != "name":
                kind = k
    else:
        rank = len(_VOLUME_KINDS)
        for k in v:  # the first of _VOLUME_KINDS that is set
            r = _VOLUME_RANK.get(k)
            if r is not None and r < rank and v[k] is not None and v[k] != _RAW_NULL:
                kind, rank = k, r
        if not kind:
            kind = next((k for k in v if k != "name"), "emptyDir")   # SetDefaults_Volume: no source is an emptyDir
    if kind == "emptyDir":
        p = "spec.volumes[%d]" % i
        ed = _map(loc, v, "emptyDir", p + ".emptyDir")
        limit = None
        if ed.get("sizeLimit") is not None:
            try:   # validateVolumeSource refuses a negative sizeLimit; past int64 it fits no node
                limit = validate.resource_units("ephemeral-storage", ed["sizeLimit"], p + ".emptyDir.sizeLimit")
            except ValueParseError as e:
                raise loc.error(p + ".emptyDir.sizeLimit", str(e)) from None
        return it.leaf(Volume(name, kind, _str(loc, ed, "medium", p + ".emptyDir.medium"), limit))
    if kind == "persistentVolumeClaim":
        p = "spec.volumes[%d]" % i
        pvc = _map(loc, v, kind, p + "." + kind)
        return it.leaf(Volume(name, kind, claim_name=_str(loc, pvc, "claimName", p + ".persistentVolumeClaim.claimName")))
    return it.leaf(Volume(name, kind))


def _annotations(loc: _Loc, meta: dict, it: _Interner) -> Any:
    """The annotations rules read (everything else, e.g. last-applied-configuration, is dropped)."""
    raw_ann = _map(loc, meta, "annotations", "metadata.annotations")
    ann = {k: v for k, v in raw_ann.items() if k.startswith(_KEPT_ANNOTATION_PREFIXES)}
    for k, v in ann.items():
        if not isinstance(v, str):
            raise loc.error("metadata.annotations." + k, "expected a string, found %s" % _type_name(v))
    return frozen_map(ann) if ann else _EMPTY


def _owners(loc: _Loc, meta: dict, it: _Interner) -> Tuple[Tuple[OwnerRef, ...], Optional[OwnerRef]]:
    """(owner references, the controller reference or None)."""
    refs = _owner_refs(loc, meta, it)
    return refs, next((r for r in refs if r.controller), None)


def _affinity(loc: _Loc, spec: dict, it: _Interner) -> Tuple[Any, Any, Tuple[PreferredTerm, ...]]:
    """(required, requiredDuringExecution, preferred) node affinity of spec.affinity (pod
    (anti-)affinity: `pod_scheduling_fields`)."""
    affinity = _map(loc, spec, "affinity", "spec.affinity")
    na = _map(loc, affinity, "nodeAffinity", "spec.affinity.nodeAffinity")
    nap = "spec.affinity.nodeAffinity."
    required = _node_selector(loc, na, "requiredDuringSchedulingIgnoredDuringExecution",
                              nap + "requiredDuringSchedulingIgnoredDuringExecution", it)
    rde = _node_selector(loc, na, "requiredDuringSchedulingRequiredDuringExecution",
                         nap + "requiredDuringSchedulingRequiredDuringExecution", it)
    preferred = []
    for i, pt in enumerate(_seq(loc, na, "preferredDuringSchedulingIgnoredDuringExecution",
                                nap + "preferredDuringSchedulingIgnoredDuringExecution")):
        p = "%spreferredDuringSchedulingIgnoredDuringExecution[%d]" % (nap, i)
        pt = _item_map(loc, pt, p)
        preferred.append(PreferredTerm(_int(loc, pt, "weight", p + ".weight", 0),
                                       _term(loc, pt.get("preference") or {}, p + ".preference", it)))
    return required, rde, tuple(preferred)


def _spec_selector(loc: _Loc, spec: dict, it: _Interner) -> Optional[LabelSelector]:
    return label_selector(loc, spec, "selector", "spec.selector", it)


def _containers_key(v: Any) -> Any:
    """A hashable key for a container list from the fast loader (the fields `_containers` reads)."""
    if v is None:
        return None
    return tuple([(c.get("name"), _text(c.get("resources")), _text(c.get("ports")), c.get("restartPolicy"))
                  for c in v])


def _resources_key(spec: dict) -> Any:
    """What `_pod_resources` reads, as a hashable key (TypeError for plain dicts and lists)."""
    return (_containers_key(spec.get("containers")), _containers_key(spec.get("initContainers")),
            _text(spec.get("overhead")), spec.get("resources"), spec.get("hostNetwork") is True)


def _pod_resources(loc: _Loc, spec: dict, it: _Interner, key: Any = None) -> Tuple[Any, ...]:
    """(containers, init containers, overhead, pod-level resources (None: spec.resources unset),
    effective requests, computed QoS, and the QoS v1.34-v1.36 compute when it differs (else "")).

    Pods of one template share all of it: with the fast loader it is computed once per distinct
    (containers, initContainers, overhead, resources) (`key`: `_resources_key`, when known)."""
    try:
        if key is None:
            key = _resources_key(spec)
        hit = it.templates.get(key)
    except (TypeError, KeyError, AttributeError):  # dicts (stdlib path) or malformed: no key
        key = hit = None
    if hit is not None:
        return hit
    host_network = spec.get("hostNetwork") is True
    containers = _containers(loc, spec, "containers", it, host_network)
    inits = _containers(loc, spec, "initContainers", it, host_network)
    overhead = it.resource_map(loc, spec, "overhead", "spec.overhead")
    pod_res = _map(loc, spec, "resources", "spec.resources")
    pod_level = None
    if spec.get("resources") is not None:  # PodLevelResources: pod-level values replace the container sums
        pod_level = Container("", it.resource_map(loc, pod_res, "requests", "spec.resources.requests"),
                              it.resource_map(loc, pod_res, "limits", "spec.resources.limits"))
        defaulted = default_pod_level_requests(pod_level.requests, pod_level.limits, containers, inits)
        if len(defaulted) != len(pod_level.requests):
            pod_level = pod_level._replace(requests=frozen_map(defaulted))
    qos, qos_v136 = pod_qos_by_release(containers + inits, pod_level)
    reqs = pod_requests(containers, inits, overhead)
    if pod_level is not None:
        for r, q in pod_level.requests.items():
            reqs[r] = q + overhead.get(r, 0)
    requests = it.resources.setdefault(("__req__",) + tuple(sorted(reqs.items())), frozen_map(reqs))
    out = (containers, inits, overhead, pod_level, requests, qos, qos_v136)
    if key is not None:
        it.templates[key] = out
    return out


def _pod_volumes(loc: _Loc, spec: dict, it: _Interner) -> Tuple[Volume, ...]:
    """`_volumes`, with the common shapes (a name and one source that is no claim, whose record
    is only its name and kind; a name and an empty emptyDir) read once per (name, source)."""
    vols = spec.get("volumes")
    if vols.__class__ is not list:
        return _volumes(loc, spec, it)
    out = []
    cache = it.volumes
    for i, v in enumerate(vols):
        if v.__class__ is dict and len(v) == 2:
            keys = iter(v)
            k = next(keys)
            if k == "name":
                k = next(keys)
            name = v.get("name")
            if name.__class__ is str and k != "persistentVolumeClaim":
                if k != "emptyDir":
                    hit = cache.get((name, k))
                    if hit is None:
                        hit = cache[(name, k)] = Volume(name, k)   # what `_volume` makes of it
                    out.append(hit)
                    continue
                if v[k] == {}:
                    hit = cache.get((name, k))
                    if hit is None:
                        hit = cache[(name, k)] = _volume(loc, v, i, it)
                    out.append(hit)
                    continue
        out.append(_volume(loc, v, i, it))
    return tuple(out)


def _spec_key(spec: dict, pcname: str, is_ds: bool) -> Any:
    """A hashable key for what `_pod_spec` reads of a pod's spec, or None when there is none:
    plain dicts and lists (stdlib path) are not hashable, and scalars of an unexpected type
    (`True == 1`) take the checking path every time. Pods of one template have equal keys (a
    DaemonSet's too: their node affinity, which differs, is `_pod_affinity`'s)."""
    priority = spec.get("priority")
    tgps = spec.get("terminationGracePeriodSeconds")
    host_network = spec.get("hostNetwork")
    if (priority is not None and priority.__class__ is not int) or (tgps is not None and tgps.__class__ is not int) \
            or (host_network is not None and host_network.__class__ is not bool):
        return None
    try:
        key = (_resources_key(spec), host_network, priority, tgps, pcname, _text(spec.get("tolerations")),
               _text(spec.get("nodeSelector")), is_ds)
        hash(key)
    except (TypeError, KeyError, AttributeError):  # dicts (stdlib path) or malformed: no key
        return None
    return key


def _pod_spec(loc: _Loc, spec: dict, pc: Optional[PriorityClass], is_ds: bool, it: _Interner,
              key: Any = None) -> Tuple[Any, ...]:
    """(containers, init containers, overhead, pod-level resources, requests, computed QoS, QoS
    v1.34-v1.36, priority, nodeSelector, tolerations, hostNetwork, grace period) of a pod spec,
    each read and checked by its helper (`key`: its `_spec_key`, if any)."""
    containers, inits, overhead, pod_level, requests, computed_qos, qos_v136 = _pod_resources(
        loc, spec, it, key[0] if key is not None else None)
    priority = _valid(loc, validate.priority, _int(loc, spec, "priority", "spec.priority"), "spec.priority")
    if priority is None:
        priority = pc.value if pc is not None else 0
    node_selector = it.strmap(loc, spec, "nodeSelector", "spec.nodeSelector", "nodeSelector")
    tolerations = it.cached(it.tolerations, loc, spec, "tolerations", _tolerations)
    host_network = _bool(loc, spec, "hostNetwork", "spec.hostNetwork")
    if is_ds:
        key = (tolerations, host_network)
        ds = it.ds_tolerations.get(key)
        if ds is None:
            ds = it.ds_tolerations[key] = it.leaf(with_daemonset_tolerations(tolerations, host_network))
        tolerations = ds
    tgps = _valid(loc, validate.non_negative, _int(loc, spec, "terminationGracePeriodSeconds",
                  "spec.terminationGracePeriodSeconds", 30), "spec.terminationGracePeriodSeconds")
    return (containers, inits, overhead, pod_level, requests, computed_qos, qos_v136, priority, node_selector,
            tolerations, host_network, tgps)


def _pod_affinity(loc: _Loc, spec: dict, pcname: str, pc: Optional[PriorityClass], it: _Interner) -> Tuple[Any, ...]:
    """(required, requiredDuringExecution and preferred node affinity, pod anti-affinity required
    and preferred, pod affinity required and preferred, spread constraints, preemption policy),
    once per distinct (affinity, spread constraints, preemption policy, priority class)."""
    policy = spec.get("preemptionPolicy")
    try:
        key: Any = (_text(spec.get("affinity")), _text(spec.get("topologySpreadConstraints")),
                    policy if policy is None or policy.__class__ is str else [], pcname)
        hit = it.scheduling.get(key)
    except TypeError:  # plain lists and dicts (stdlib path), or a policy that is no string: no key
        key = hit = None
    if hit is None:
        if spec.get("affinity").__class__ in _RAW_TYPES:   # decoded once for both readers
            spec = {"affinity": _map(loc, spec, "affinity", "spec.affinity"),
                    "topologySpreadConstraints": spec.get("topologySpreadConstraints"),
                    "preemptionPolicy": policy}
        hit = it.cached(it.affinities, loc, spec, "affinity", _affinity) + pod_scheduling_fields(loc, spec, pc, it)
        if key is not None:
            it.scheduling[key] = hit
    return hit


def _pod_ready(loc: _Loc, status: dict) -> bool:
    """Whether the pod's Ready condition is True. Conditions arrive as raw text from the fast
    loader (five a pod, each with its timestamps): a decoder that reads only type and status takes
    it; anything it refuses goes through the checking readers (and their errors)."""
    raw = status.get("conditions")
    if raw.__class__ is _Raw:
        try:
            conditions = decode_conditions(raw)
        except (ValueError, RecursionError):   # not a list of objects (msgspec.ValidationError), bad text
            conditions = _seq(loc, status, "conditions", "status.conditions")
    elif raw.__class__ is list:
        conditions = raw
    else:
        conditions = _seq(loc, status, "conditions", "status.conditions")
    ready = False
    for i, c in enumerate(conditions):
        if c.__class__ is not dict:
            c = _item_map(loc, c, "status.conditions[%d]" % i)
        if c.get("type") == "Ready":
            ready = c.get("status") == "True"
    return ready


def _project_pod(loc: _Loc, obj: dict, ns: str, name: str, pcs: Dict[str, PriorityClass],
                 default_pc: Optional[PriorityClass], it: _Interner) -> Pod:
    """One Pod record. What pods of one template share is projected once: the spec-derived
    fields by `_spec_key` (`_pod_spec`), and within them subtrees by their text (`it.cached`,
    `_pod_resources`); string fields are read inline and go through `_str` (and its error) only
    when they are not strings. Numeric and other checks go through their helpers."""
    meta = obj.get("metadata")
    if meta.__class__ is not dict:
        meta = _map(loc, obj, "metadata", "metadata")
    spec = obj.get("spec")
    if spec.__class__ is not dict:
        spec = _map(loc, obj, "spec", "spec")
    status = obj.get("status")
    if status.__class__ is not dict:
        status = _map(loc, obj, "status", "status")
    cached = it.cached
    ann = cached(it.annotations, loc, meta, "annotations", _annotations)
    refs, controller = cached(it.owner_refs, loc, meta, "ownerReferences", _owners)
    pcname = spec.get("priorityClassName")
    if pcname.__class__ is not str:
        pcname = _str(loc, spec, "priorityClassName", "spec.priorityClassName")
    is_ds = controller is not None and controller.kind == "DaemonSet"
    pc = (pcs.get(pcname) or SYSTEM_PRIORITY_CLASSES.get(pcname)) if pcname else default_pc
    if it.pod_spec_pcs is not pcs:   # the memos hold priorities and policies of these classes
        it.pod_specs.clear()
        it.scheduling.clear()
        it.pod_spec_pcs = pcs
    key = _spec_key(spec, pcname, is_ds)
    fields = it.pod_specs.get(key) if key is not None else None
    if fields is None:
        fields = _pod_spec(loc, spec, pc, is_ds, it, key)
        if key is not None:
            it.pod_specs[key] = fields
    (containers, inits, overhead, pod_level, requests, computed_qos, qos_v136, priority, node_selector, tolerations,
     host_network, tgps) = fields
    required, rde, preferred, anti_req, anti_pref, aff_req, aff_pref, spread, policy = _pod_affinity(
        loc, spec, pcname, pc, it)
    if rde is not None:
        # The design's field is required during scheduling too: the scheduler places the pod
        # (and its replacements) only where both it and the IgnoredDuringExecution terms match.
        # Terms are ORed, so their AND is every pair's union; an empty term matches nothing and
        # drops out of the product, as it would on its own.
        required = rde if required is None else NodeSelector(tuple(
            NodeSelectorTerm(t.match_expressions + u.match_expressions, t.match_fields + u.match_fields)
            for t in required.terms if t.match_expressions or t.match_fields
            for u in rde.terms if u.match_expressions or u.match_fields))
    elif ann and ann.get(AFFINITY_ANNOTATION) == "RequiredDuringExecution":
        # The annotation upgrades the IgnoredDuringExecution terms (and nodeSelector) to
        # RequiredDuringExecution, as the original node-affinity design describes.
        sel_terms = [NodeSelectorTerm(tuple(Requirement(k, "In", (v,)) for k, v in sorted(node_selector.items())), ())]
        if required is not None:
            merged = tuple(NodeSelectorTerm(t.match_expressions + sel_terms[0].match_expressions, t.match_fields)
                           for t in required.terms)
            rde = NodeSelector(merged)
        elif sel_terms[0].match_expressions:
            rde = NodeSelector(tuple(sel_terms))
    qos = status.get("qosClass")
    if qos.__class__ is not str:
        qos = _str(loc, status, "qosClass", "status.qosClass")
    if qos:
        qos_v136 = ""                       # status.qosClass is set once at creation and wins
    else:
        qos = computed_qos
    ready = _pod_ready(loc, status)
    uid = meta.get("uid")
    if uid.__class__ is not str:
        uid = _str(loc, meta, "uid", "metadata.uid")
    node_name = spec.get("nodeName")
    if node_name.__class__ is not str:
        node_name = _str(loc, spec, "nodeName", "spec.nodeName")
    phase = status.get("phase")
    if phase.__class__ is not str:
        phase = _str(loc, status, "phase", "status.phase")
    nominated = status.get("nominatedNodeName")
    if nominated.__class__ is not str:
        nominated = _str(loc, status, "nominatedNodeName", "status.nominatedNodeName")
    time = it.time
    labels = it.strmap(loc, meta, "labels", "metadata.labels", "label")
    if anti_req or anti_pref or aff_req or aff_pref:   # matchLabelKeys/mismatchLabelKeys take the pod's labels
        anti_req, anti_pref, aff_req, aff_pref = (fold_label_keys(t, labels)
                                                  for t in (anti_req, anti_pref, aff_req, aff_pref))
    return Pod.trusted(namespace=_intern(ns), name=name, uid=uid, node_name=_intern(node_name),
                       phase=_intern(phase), priority=priority, priority_class_name=pcname,
                       labels=labels,
                       annotations=ann, controller=controller, owner_refs=refs, qos=qos, qos_v136=qos_v136,
                       pod_level=pod_level,
                       containers=containers, init_containers=inits, overhead=overhead,
                       requests=requests, tolerations=tolerations, node_selector=node_selector,
                       required_affinity=required, preferred_affinity=preferred, required_during_execution=rde,
                       volumes=_pod_volumes(loc, spec, it),
                       anti_affinity_required=anti_req, anti_affinity_preferred=anti_pref,
                       affinity_required=aff_req, affinity_preferred=aff_pref, spread_constraints=spread,
                       preemption_policy=policy, start_time=time(loc, status, "startTime", "status.startTime"),
                       nominated_node_name=nominated,
                       deletion_timestamp=time(loc, meta, "deletionTimestamp", "metadata.deletionTimestamp"),
                       ready=ready, termination_grace_period=tgps, host_network=host_network,
                       creation_timestamp=time(loc, meta, "creationTimestamp", "metadata.creationTimestamp"),
                       resource_claims=pod_resource_claims(loc, spec, status) if "resourceClaims" in spec else ())


def _int_or_percent(loc: _Loc, d: dict, key: str, path: str) -> Any:
    v = d.get(key)
    if v is None:
        return None
    if isinstance(v, bool):
        raise loc.error(path, "expected an integer or a percentage like \"50%%\", found %s" % _type_name(v))
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        if v.endswith("%") and v[:-1].isdigit():
            return v
        if v.isdigit():
            return int(v)
    raise loc.error(path, "expected an integer or a percentage like \"50%%\", found %s" % _type_name(v))


def _project_pdb(loc: _Loc, obj: dict, ns: str, name: str, it: _Interner) -> PodDisruptionBudget:
    meta = _map(loc, obj, "metadata", "metadata")
    spec = _map(loc, obj, "spec", "spec")
    status = obj.get("status")
    st = _map(loc, obj, "status", "status")
    disrupted = {}
    for pod, when in _map(loc, st, "disruptedPods", "status.disruptedPods").items():
        disrupted[pod] = _time(loc, {"t": when}, "t", "status.disruptedPods." + pod)
    min_available = _valid(loc, validate.int_or_percent, _int_or_percent(loc, spec, "minAvailable", "spec.minAvailable"),
                           "spec.minAvailable")
    max_unavailable = _valid(loc, validate.int_or_percent,
                             _int_or_percent(loc, spec, "maxUnavailable", "spec.maxUnavailable"), "spec.maxUnavailable")
    _valid(loc, validate.one_budget, (min_available, max_unavailable), "spec")
    return PodDisruptionBudget.trusted(
        namespace=ns, name=name, uid=_str(loc, meta, "uid", "metadata.uid"),
        generation=_int(loc, meta, "generation", "metadata.generation", 0),
        selector=_valid(loc, validate.label_selector, label_selector(loc, spec, "selector", "spec.selector", it),
                        "spec.selector"),
        min_available=min_available, max_unavailable=max_unavailable,
        unhealthy_pod_eviction_policy=_str(loc, spec, "unhealthyPodEvictionPolicy", "spec.unhealthyPodEvictionPolicy"),
        has_status=bool(status),
        observed_generation=_int(loc, st, "observedGeneration", "status.observedGeneration", 0),
        disruptions_allowed=_int(loc, st, "disruptionsAllowed", "status.disruptionsAllowed", 0),
        current_healthy=_int(loc, st, "currentHealthy", "status.currentHealthy", 0),
        desired_healthy=_int(loc, st, "desiredHealthy", "status.desiredHealthy", 0),
        expected_pods=_int(loc, st, "expectedPods", "status.expectedPods", 0),
        disrupted_pods=frozen_map(disrupted))


def _project_owner(loc: _Loc, obj: dict, kind: str, ns: str, name: str, it: _Interner) -> Owner:
    meta = _map(loc, obj, "metadata", "metadata")
    spec = _map(loc, obj, "spec", "spec")
    refs, controller = it.cached(it.owner_refs, loc, meta, "ownerReferences", _owners)
    if kind == "ReplicationController":
        sel = it.strmap(loc, spec, "selector", "spec.selector", "selector")
        selector = LabelSelector(tuple(sorted(sel.items())), ())
    else:
        selector = it.cached(it.selectors, loc, spec, "selector", _spec_selector)
    if kind == "DaemonSet":
        replicas = None
    elif kind == "Job":
        replicas = _valid(loc, validate.non_negative_int32, _int(loc, spec, "parallelism", "spec.parallelism", 1),
                          "spec.parallelism")
    else:   # apps validation: ValidateNonnegativeField(spec.replicas)
        replicas = _valid(loc, validate.non_negative_int32, _int(loc, spec, "replicas", "spec.replicas", 1),
                          "spec.replicas")
    job: Dict[str, Any] = _job_fields(loc, obj, spec) if kind == "Job" else {}
    rolling_out, max_unavailable = _statefulset_rollout(loc, obj, spec) if kind == "StatefulSet" else (False, None)
    if kind == "StatefulSet":   # apps validation: ValidateNonnegativeField(spec.minReadySeconds)
        job["min_ready_seconds"] = _valid(loc, validate.non_negative_int32, _int(loc, spec, "minReadySeconds",
                                                                           "spec.minReadySeconds", 0),
                                          "spec.minReadySeconds")
        # apps validation: ValidateNonnegativeField(spec.ordinals.start)
        ordinals = _map(loc, spec, "ordinals", "spec.ordinals")
        job["start_ordinal"] = _valid(loc, validate.non_negative_int32, _int(loc, ordinals, "start",
                                                                        "spec.ordinals.start", 0),
                                      "spec.ordinals.start")
    ds: Dict[str, Any] = _daemonset_template(loc, spec, it) if kind == "DaemonSet" else {}
    return Owner.trusted(kind=kind, namespace=ns, name=name, uid=_str(loc, meta, "uid", "metadata.uid"), replicas=replicas,
                 controller=controller, selector=selector,
                 pod_management_policy=_str(loc, spec, "podManagementPolicy", "spec.podManagementPolicy"),
                 rolling_out=rolling_out, max_unavailable=max_unavailable, **job, **ds)


def _daemonset_template(loc: _Loc, spec: dict, it: _Interner) -> Dict[str, Any]:
    """What `NodeShouldRunDaemonPod` matches a node against: the template's nodeSelector and
    required node affinity (the controller replaces the pods' own terms with their node's name)."""
    tp = "spec.template.spec"
    tspec = _map(loc, _map(loc, spec, "template", "spec.template"), "spec", tp)
    na = _map(loc, _map(loc, tspec, "affinity", tp + ".affinity"), "nodeAffinity", tp + ".affinity.nodeAffinity")
    return {"template_node_selector": it.strmap(loc, tspec, "nodeSelector", tp + ".nodeSelector", "nodeSelector"),
            "template_affinity": _node_selector(loc, na, "requiredDuringSchedulingIgnoredDuringExecution",
                                                tp + ".affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution", it)}


def _statefulset_rollout(loc: _Loc, obj: dict, spec: dict) -> Tuple[bool, Any]:
    """(rolling out, rollingUpdate.maxUnavailable) of a StatefulSet: a RollingUpdate (the default
    strategy) whose status.currentRevision differs from status.updateRevision."""
    strategy = _map(loc, spec, "updateStrategy", "spec.updateStrategy")
    rolling = _map(loc, strategy, "rollingUpdate", "spec.updateStrategy.rollingUpdate")
    max_unavailable = _int_or_percent(loc, rolling, "maxUnavailable", "spec.updateStrategy.rollingUpdate.maxUnavailable")
    status = _map(loc, obj, "status", "status")
    current = _str(loc, status, "currentRevision", "status.currentRevision")
    update = _str(loc, status, "updateRevision", "status.updateRevision")
    kind = _str(loc, strategy, "type", "spec.updateStrategy.type")
    return (kind in ("", "RollingUpdate") and bool(current) and bool(update) and current != update), max_unavailable


def _job_fields(loc: _Loc, obj: dict, spec: dict) -> Dict[str, Any]:
    """What the Job controller reads to decide whether a failed pod is replaced."""
    status = _map(loc, obj, "status", "status")
    policy = _map(loc, spec, "podFailurePolicy", "spec.podFailurePolicy")
    rules = []
    for i, raw in enumerate(_seq(loc, policy, "rules", "spec.podFailurePolicy.rules")):
        path = "spec.podFailurePolicy.rules[%d]" % i
        if not isinstance(raw, dict):
            raise loc.error(path, "expected an object, found %s" % _type_name(raw))
        action = _str(loc, raw, "action", path + ".action")
        if action not in ("FailJob", "Ignore", "Count", "FailIndex"):
            raise loc.error(path + ".action", "expected FailJob, Ignore, Count or FailIndex, found %r" % action)
        conds = []
        for j, c in enumerate(_seq(loc, raw, "onPodConditions", path + ".onPodConditions")):
            cpath = "%s.onPodConditions[%d]" % (path, j)
            if not isinstance(c, dict):
                raise loc.error(cpath, "expected an object, found %s" % _type_name(c))
            conds.append((_str(loc, c, "type", cpath + ".type"), _str(loc, c, "status", cpath + ".status", "True")))
        exit_codes = _map(loc, raw, "onExitCodes", path + ".onExitCodes")
        rules.append(PodFailureRule(action, tuple(conds), bool(exit_codes)))
    per_index = _int(loc, spec, "backoffLimitPerIndex", "spec.backoffLimitPerIndex")
    # SetDefaults_Job (pkg/apis/batch/v1/defaults.go): MaxInt32 with backoffLimitPerIndex, else 6
    limit = _int(loc, spec, "backoffLimit", "spec.backoffLimit", 6 if per_index is None else validate.INT32_MAX)
    failed = _int(loc, status, "failed", "status.failed", 0)
    if limit is None or limit < 0:
        raise loc.error("spec.backoffLimit", "must not be negative, found %r" % limit)
    replacement = _str(loc, spec, "podReplacementPolicy", "spec.podReplacementPolicy") or \
        ("Failed" if policy else "TerminatingOrFailed")
    if replacement not in ("TerminatingOrFailed", "Failed"):
        raise loc.error("spec.podReplacementPolicy", "expected TerminatingOrFailed or Failed, found %r" % replacement)
    return {"backoff_limit": limit, "failed": max(0, failed or 0), "pod_failure_rules": tuple(rules),
            "backoff_limit_per_index": per_index,
            "pod_replacement_policy": replacement}


def _project_priority_class(loc: _Loc, obj: dict, name: str) -> PriorityClass:
    value = _valid(loc, validate.priority, _int(loc, obj, "value", "value"), "value")
    if value is None:
        raise loc.error("value", "a PriorityClass needs a value")
    return PriorityClass(name=name, value=value, global_default=_bool(loc, obj, "globalDefault", "globalDefault"),
                         preemption_policy=_str(loc, obj, "preemptionPolicy", "preemptionPolicy"))


def _project_volume_attachment(loc: _Loc, obj: dict, name: str) -> VolumeAttachment:
    spec = _map(loc, obj, "spec", "spec")
    status = _map(loc, obj, "status", "status")
    source = _map(loc, spec, "source", "spec.source")
    return VolumeAttachment(name=name, node_name=_str(loc, spec, "nodeName", "spec.nodeName"),
                            attacher=_str(loc, spec, "attacher", "spec.attacher"),
                            pv_name=_str(loc, source, "persistentVolumeName", "spec.source.persistentVolumeName"),
                            attached=_bool(loc, status, "attached", "status.attached"))


from kubectl_evict.source.freeze_storage import (STORAGE_KINDS, fold_label_keys, pod_scheduling_fields,  # noqa: E402
                                                   project_storage)
from kubectl_evict.source.freeze_dra import DRA_KINDS, pod_resource_claims, project_dra  # noqa: E402


_PROJECTORS = frozenset(("PriorityClass", "Node", "Pod", "PodDisruptionBudget", "VolumeAttachment", "Lease",
                         "SnapshotInfo") + KUBELET_KINDS + OWNER_KINDS + STORAGE_KINDS + DRA_KINDS)


def freeze(docs: Iterable[Doc]) -> Snapshot:
    """Freeze raw documents (from files or a live cluster) into a Snapshot."""
    f = Freezer()
    f.add(docs)
    return f.build()
