"""Freeze what kube-scheduler reads besides nodes and pods: storage objects, namespaces, and
the scheduling parts of a pod spec (pod (anti-)affinity, topology spread, preemption policy).

Models the fields read by kube-scheduler v1.33's volume plugins
(`pkg/scheduler/framework/plugins/{volumebinding,volumezone,nodevolumelimits,volumerestrictions}`,
`staging/src/k8s.io/component-helpers/storage/volume/`), InterPodAffinity's namespaceSelector
(Namespace labels) and PodTopologySpread's constraint defaults
(`plugins/podtopologyspread/common.go`). Kept apart from `freeze.py` so that the pod/node
projection there stays small; `freeze.py` dispatches here.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional, Tuple


from kubectl_evict.errors import ValueParseError
from kubectl_evict.model import (CSIDriver, CSINode, LabelSelector, Namespace, NodeSelector, NodeSelectorTerm,
                                 PersistentVolume, PersistentVolumeClaim, PodAffinityTerm, PriorityClass,
                                 Requirement, SpreadConstraint, StorageClass, WeightedPodAffinityTerm, frozen_map)
from kubectl_evict.source import fields  # the shared field readers (one home for input validation)
from kubectl_evict.source import validate

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
STORAGE_KINDS = ("PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode", "CSIDriver", "Namespace")

BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
SELECTED_NODE = "volume.kubernetes.io/selected-node"
BETA_STORAGE_CLASS = "volume.beta.kubernetes.io/storage-class"
MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"
# Annotations placement reads on storage objects: `snapshot --redact` keeps them.
STORAGE_ANNOTATIONS = (BIND_COMPLETED, SELECTED_NODE, BETA_STORAGE_CLASS, MIGRATED_PLUGINS)

# In-tree volume sources and the plugin / id field the CSI migration translation uses
# (`staging/src/k8s.io/csi-translation-lib/plugins/*.go`).
IN_TREE_SOURCES = (
    ("awsElasticBlockStore", "kubernetes.io/aws-ebs", "volumeID"),
    ("gcePersistentDisk", "kubernetes.io/gce-pd", "pdName"),
    ("azureDisk", "kubernetes.io/azure-disk", "diskURI"),
    ("cinder", "kubernetes.io/cinder", "volumeID"),
    ("vsphereVolume", "kubernetes.io/vsphere-volume", "volumePath"),
)


def _storage(loc: Any, d: dict, key: str, path: str) -> int:
    v = d.get(key)
    if v is None:
        return 0
    try:   # validate.resource_units: >= 0 and within int64, as PersistentVolume capacity and
        # PersistentVolumeClaim requests are validated (ValidateResourceQuantityValue)
        return validate.resource_units("storage", v, path)
    except ValueParseError as e:
        raise loc.error(path, str(e)) from None


def _strings(loc: Any, d: dict, key: str, path: str) -> Tuple[str, ...]:
    fz = fields
    vals = fz._seq(loc, d, key, path)
    for i, v in enumerate(vals):
        if not isinstance(v, str):
            raise loc.error("%s[%d]" % (path, i), "expected a string, found %s" % fz._type_name(v))
    return tuple(vals)


def _annotations(loc: Any, meta: dict) -> Dict[str, str]:
    fz = fields
    ann = fz._map(loc, meta, "annotations", "metadata.annotations")
    out = {}
    for k in STORAGE_ANNOTATIONS:
        v = ann.get(k)
        if v is not None:
            if not isinstance(v, str):
                raise loc.error("metadata.annotations." + k, "expected a string, found %s" % fz._type_name(v))
            out[k] = v
    return out


def project_pvc(loc: Any, obj: dict, ns: str, name: str, it: Any) -> PersistentVolumeClaim:
    fz = fields
    meta = fz._map(loc, obj, "metadata", "metadata")
    spec = fz._map(loc, obj, "spec", "spec")
    status = fz._map(loc, obj, "status", "status")
    ann = _annotations(loc, meta)
    res = fz._map(loc, spec, "resources", "spec.resources")
    reqs = fz._map(loc, res, "requests", "spec.resources.requests")
    if BETA_STORAGE_CLASS in ann:
        sc: Optional[str] = ann[BETA_STORAGE_CLASS]
    elif spec.get("storageClassName") is not None:
        sc = fz._str(loc, spec, "storageClassName", "spec.storageClassName")
    else:
        sc = None
    return PersistentVolumeClaim.trusted(
        namespace=ns, name=name, uid=fz._str(loc, meta, "uid", "metadata.uid"),
        volume_name=fz._str(loc, spec, "volumeName", "spec.volumeName"), storage_class=sc,
        access_modes=_strings(loc, spec, "accessModes", "spec.accessModes"),
        request=_storage(loc, reqs, "storage", "spec.resources.requests.storage"),
        selector=fz.label_selector(loc, spec, "selector", "spec.selector", it),
        volume_mode=fz._str(loc, spec, "volumeMode", "spec.volumeMode") or "Filesystem",
        bind_completed=BIND_COMPLETED in ann, selected_node=ann.get(SELECTED_NODE, ""),
        phase=fz._str(loc, status, "phase", "status.phase"),
        deletion_timestamp=fz._time(loc, meta, "deletionTimestamp", "metadata.deletionTimestamp"),
        owner_refs=fz._owner_refs(loc, meta, it))


def project_pv(loc: Any, obj: dict, name: str, it: Any) -> PersistentVolume:
    fz = fields
    meta = fz._map(loc, obj, "metadata", "metadata")
    spec = fz._map(loc, obj, "spec", "spec")
    status = fz._map(loc, obj, "status", "status")
    na = fz._map(loc, spec, "nodeAffinity", "spec.nodeAffinity")
    ref = spec.get("claimRef")
    claim_ref = None
    if ref is not None:
        ref = fz._item_map(loc, ref, "spec.claimRef")
        claim_ref = (fz._str(loc, ref, "namespace", "spec.claimRef.namespace"),
                     fz._str(loc, ref, "name", "spec.claimRef.name"),
                     fz._str(loc, ref, "uid", "spec.claimRef.uid"))
    csi = fz._map(loc, spec, "csi", "spec.csi")
    in_tree = in_tree_id = ""
    for key, plugin, idfield in IN_TREE_SOURCES:
        src = spec.get(key)
        if src is not None:
            src = fz._item_map(loc, src, "spec." + key)
            in_tree, in_tree_id = plugin, fz._str(loc, src, idfield, "spec.%s.%s" % (key, idfield))
            break
    return PersistentVolume.trusted(
        name=name, labels=it.strmap(loc, meta, "labels", "metadata.labels", "label"),
        node_affinity=fz._node_selector(loc, na, "required", "spec.nodeAffinity.required", it),
        storage_class=fz._str(loc, spec, "storageClassName", "spec.storageClassName"),
        capacity=_storage(loc, fz._map(loc, spec, "capacity", "spec.capacity"), "storage", "spec.capacity.storage"),
        access_modes=_strings(loc, spec, "accessModes", "spec.accessModes"),
        volume_mode=fz._str(loc, spec, "volumeMode", "spec.volumeMode") or "Filesystem",
        phase=fz._str(loc, status, "phase", "status.phase"), claim_ref=claim_ref,
        csi_driver=fz._str(loc, csi, "driver", "spec.csi.driver"),
        csi_handle=fz._str(loc, csi, "volumeHandle", "spec.csi.volumeHandle"),
        in_tree=in_tree, in_tree_id=in_tree_id,
        deletion_timestamp=fz._time(loc, meta, "deletionTimestamp", "metadata.deletionTimestamp"))


def project_storage_class(loc: Any, obj: dict, name: str, it: Any) -> StorageClass:
    fz = fields
    terms = []
    for i, t in enumerate(fz._seq(loc, obj, "allowedTopologies", "allowedTopologies")):
        p = "allowedTopologies[%d]" % i
        t = fz._item_map(loc, t, p)
        reqs = []
        for j, e in enumerate(fz._seq(loc, t, "matchLabelExpressions", p + ".matchLabelExpressions")):
            pe = "%s.matchLabelExpressions[%d]" % (p, j)
            e = fz._item_map(loc, e, pe)
            reqs.append(Requirement(fz._str(loc, e, "key", pe + ".key"), "In", _strings(loc, e, "values", pe + ".values")))
        terms.append(NodeSelectorTerm(tuple(reqs), ()))
    return StorageClass.trusted(name=name, provisioner=fz._str(loc, obj, "provisioner", "provisioner"),
                                binding_mode=fz._str(loc, obj, "volumeBindingMode", "volumeBindingMode"),
                                allowed_topologies=NodeSelector(tuple(terms)) if terms else None)


def project_csinode(loc: Any, obj: dict, name: str) -> CSINode:
    fz = fields
    meta = fz._map(loc, obj, "metadata", "metadata")
    spec = fz._map(loc, obj, "spec", "spec")
    drivers: Dict[str, Optional[int]] = {}
    for i, d in enumerate(fz._seq(loc, spec, "drivers", "spec.drivers")):
        p = "spec.drivers[%d]" % i
        d = fz._item_map(loc, d, p)
        alloc = fz._map(loc, d, "allocatable", p + ".allocatable")
        drivers[fz._str(loc, d, "name", p + ".name")] = fz._int(loc, alloc, "count", p + ".allocatable.count")
    migrated = _annotations(loc, meta).get(MIGRATED_PLUGINS, "")
    return CSINode.trusted(name=name, drivers=frozen_map(drivers),
                           migrated_plugins=tuple(sorted(m.strip() for m in migrated.split(",") if m.strip())))


def project_csidriver(loc: Any, obj: dict, name: str) -> CSIDriver:
    fz = fields
    spec = fz._map(loc, obj, "spec", "spec")
    return CSIDriver.trusted(name=name, storage_capacity=fz._bool(loc, spec, "storageCapacity", "spec.storageCapacity"))


def project_namespace(loc: Any, obj: dict, name: str, it: Any) -> Namespace:
    fz = fields
    meta = fz._map(loc, obj, "metadata", "metadata")
    labels = it.strmap(loc, meta, "labels", "metadata.labels", "label")
    if labels.get(NAMESPACE_NAME_LABEL) != name:   # SetDefaults_Namespace: the API server always sets it
        labels = labels.set(NAMESPACE_NAME_LABEL, name)
    return Namespace.trusted(name=name, labels=labels)


def project_storage(each: Callable[[str], Iterable[Tuple[str, str, str, dict]]], it: Any) -> Dict[str, Any]:
    """The Snapshot fields for every storage kind and Namespace (`freeze.Freezer._build` calls this)."""
    fz = fields
    pvcs, pvs, scs, csinodes, drivers, nss = {}, {}, {}, {}, {}, {}
    for ns, name, src, obj in each("PersistentVolumeClaim"):
        pvcs[(ns, name)] = project_pvc(fz._Loc(src, "PersistentVolumeClaim %s/%s" % (ns, name)), obj, ns, name, it)
    for ns, name, src, obj in each("PersistentVolume"):
        pvs[name] = project_pv(fz._Loc(src, "PersistentVolume " + name), obj, name, it)
    for ns, name, src, obj in each("StorageClass"):
        scs[name] = project_storage_class(fz._Loc(src, "StorageClass " + name), obj, name, it)
    for ns, name, src, obj in each("CSINode"):
        csinodes[name] = project_csinode(fz._Loc(src, "CSINode " + name), obj, name)
    for ns, name, src, obj in each("CSIDriver"):
        drivers[name] = project_csidriver(fz._Loc(src, "CSIDriver " + name), obj, name)
    for ns, name, src, obj in each("Namespace"):
        nss[name] = project_namespace(fz._Loc(src, "Namespace " + name), obj, name, it)
    return dict(pvcs=frozen_map(pvcs), pvs=frozen_map(pvs), storage_classes=frozen_map(scs), csi_nodes=frozen_map(csinodes),
                csi_drivers=frozen_map(drivers), namespaces=frozen_map(nss))


# --- the scheduling parts of a pod spec ------------------------------------------------------

def _affinity_term(loc: Any, t: Any, p: str, it: Any) -> PodAffinityTerm:
    fz = fields
    t = fz._item_map(loc, t, p)
    return it.leaf(PodAffinityTerm(fz.label_selector(loc, t, "labelSelector", p + ".labelSelector", it),
                                   fz._str(loc, t, "topologyKey", p + ".topologyKey"),
                                   _strings(loc, t, "namespaces", p + ".namespaces"),
                                   fz.label_selector(loc, t, "namespaceSelector", p + ".namespaceSelector", it),
                                   _strings(loc, t, "matchLabelKeys", p + ".matchLabelKeys"),
                                   _strings(loc, t, "mismatchLabelKeys", p + ".mismatchLabelKeys")))


def _fold_term(term: PodAffinityTerm, labels: Any) -> PodAffinityTerm:
    """One term with its matchLabelKeys / mismatchLabelKeys folded into its labelSelector."""
    if not term.match_label_keys and not term.mismatch_label_keys:
        return term
    sel = term.selector
    if sel is not None:   # a nil selector matches nothing: the API server leaves it alone
        exprs = list(sel.match_expressions)
        for keys, op in ((term.match_label_keys, "In"), (term.mismatch_label_keys, "NotIn")):
            for key in keys:
                if key in labels:
                    req = Requirement(key, op, (labels[key],))
                    if req not in exprs:   # a stored pod holds it already (folded at its creation)
                        exprs.append(req)
        sel = LabelSelector(sel.match_labels, tuple(exprs))
    return term._replace(selector=sel, match_label_keys=(), mismatch_label_keys=())


def fold_label_keys(terms: Tuple[Any, ...], labels: Any) -> Tuple[Any, ...]:
    """Pod (anti-)affinity terms (required, or weighted preferred) as the API server stores them:
    at creation it appends `key In (value)` for each matchLabelKeys key and `key NotIn (value)`
    for each mismatchLabelKeys key the pod's own labels hold, to terms with a labelSelector
    (`pkg/registry/core/pod/strategy.go` `applyMatchLabelKeysAndMismatchLabelKeys`; GA in v1.33,
    scheduler.md S0.2). A replacement made from the same template gets the same fold."""
    if not any((t.term if isinstance(t, WeightedPodAffinityTerm) else t).match_label_keys
               or (t.term if isinstance(t, WeightedPodAffinityTerm) else t).mismatch_label_keys for t in terms):
        return terms
    return tuple(t._replace(term=_fold_term(t.term, labels)) if isinstance(t, WeightedPodAffinityTerm)
                 else _fold_term(t, labels) for t in terms)


def _terms(loc: Any, aff: dict, kind: str, it: Any) -> Tuple[Tuple[PodAffinityTerm, ...], Tuple[WeightedPodAffinityTerm, ...]]:
    fz = fields
    base = "spec.affinity.%s." % kind
    block = fz._map(loc, aff, kind, base[:-1])
    key = "requiredDuringSchedulingIgnoredDuringExecution"
    req = tuple(_affinity_term(loc, t, "%s%s[%d]" % (base, key, i), it)
                for i, t in enumerate(fz._seq(loc, block, key, base + key)))
    key = "preferredDuringSchedulingIgnoredDuringExecution"
    pref = []
    for i, w in enumerate(fz._seq(loc, block, key, base + key)):
        p = "%s%s[%d]" % (base, key, i)
        w = fz._item_map(loc, w, p)
        pref.append(it.leaf(WeightedPodAffinityTerm(fz._int(loc, w, "weight", p + ".weight", 0),
                                                    _affinity_term(loc, w.get("podAffinityTerm") or {},
                                                                   p + ".podAffinityTerm", it))))
    return req, tuple(pref)


def _check_spread(loc: Any, p: str, max_skew: int, key: str, when: str, min_domains: Optional[int],
                  affinity_policy: str, taints_policy: str) -> None:
    """What the API server refuses in a topology spread constraint (validateTopologySpreadConstraints,
    pkg/apis/core/validation/validation.go): maxSkew and minDomains not positive, no
    topologyKey, an unknown node inclusion policy. PodTopologySpread
    would otherwise count skew against 0 or against the nodes lacking a "" label."""
    if max_skew <= 0:
        raise loc.error(p + ".maxSkew", "Invalid value: %d: must be greater than zero" % max_skew)
    if not key:
        raise loc.error(p + ".topologyKey", "Required value: can not be empty")
    if min_domains is not None and min_domains <= 0:
        # (minDomains with ScheduleAnyway is refused too, but the scheduler's own tests pin down
        # that it has no effect there: read, not refused)
        raise loc.error(p + ".minDomains", "Invalid value: %d: must be greater than zero" % min_domains)
    for policy, name in ((affinity_policy, "nodeAffinityPolicy"), (taints_policy, "nodeTaintsPolicy")):
        if policy not in ("Honor", "Ignore"):
            raise loc.error("%s.%s" % (p, name), 'Unsupported value: "%s": supported values: "Honor", "Ignore"' % policy)


def _spread(loc: Any, spec: dict, it: Any) -> Tuple[SpreadConstraint, ...]:
    fz = fields
    out = []
    for i, c in enumerate(fz._seq(loc, spec, "topologySpreadConstraints", "spec.topologySpreadConstraints")):
        p = "spec.topologySpreadConstraints[%d]" % i
        c = fz._item_map(loc, c, p)
        when = fz._str(loc, c, "whenUnsatisfiable", p + ".whenUnsatisfiable")
        if when not in ("DoNotSchedule", "ScheduleAnyway"):
            raise loc.error(p + ".whenUnsatisfiable", "expected DoNotSchedule or ScheduleAnyway, found %r" % when)
        min_domains = fz._int(loc, c, "minDomains", p + ".minDomains")
        max_skew = fz._int(loc, c, "maxSkew", p + ".maxSkew", 1)
        key = fz._str(loc, c, "topologyKey", p + ".topologyKey")
        affinity_policy = fz._str(loc, c, "nodeAffinityPolicy", p + ".nodeAffinityPolicy") or "Honor"
        taints_policy = fz._str(loc, c, "nodeTaintsPolicy", p + ".nodeTaintsPolicy") or "Ignore"
        _check_spread(loc, p, max_skew, key, when, min_domains, affinity_policy, taints_policy)
        out.append(it.leaf(SpreadConstraint(
            max_skew, key, when,
            fz.label_selector(loc, c, "labelSelector", p + ".labelSelector", it),
            min_domains if min_domains is not None else 1,
            affinity_policy, taints_policy,
            _strings(loc, c, "matchLabelKeys", p + ".matchLabelKeys"))))
    return tuple(out)


def pod_scheduling_fields(loc: Any, spec: dict, priority_class: Optional[PriorityClass],
                          it: Any) -> Tuple[Any, ...]:
    """Pod record fields for InterPodAffinity, PodTopologySpread and DefaultPreemption:
    (anti_affinity_required, anti_affinity_preferred, affinity_required, affinity_preferred,
    spread_constraints, preemption_policy). `preemptionPolicy` is set by admission from the
    PriorityClass; a pod without it takes its class's policy (default PreemptLowerPriority)."""
    fz = fields
    aff = fz._map(loc, spec, "affinity", "spec.affinity")
    anti_req, anti_pref = _terms(loc, aff, "podAntiAffinity", it)
    aff_req, aff_pref = _terms(loc, aff, "podAffinity", it)
    policy = fz._str(loc, spec, "preemptionPolicy", "spec.preemptionPolicy")
    if not policy and priority_class is not None:
        policy = priority_class.preemption_policy
    return (anti_req, anti_pref, aff_req, aff_pref, _spread(loc, spec, it), policy or "")
