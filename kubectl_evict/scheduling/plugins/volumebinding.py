"""VolumeBinding (`pkg/scheduler/framework/plugins/volumebinding/{volume_binding.go, binder.go}`,
`staging/src/k8s.io/component-helpers/storage/volume/{helpers.go, pv_helpers.go}`).

PreFilter sorts the pod's claims into bound (`spec.volumeName` and the bind-completed
annotation), delayed (WaitForFirstConsumer, no volume yet) and immediate-unbound (a failure).
Filter, per node: a bound claim's PV node affinity must match; a delayed claim needs an
available matching PV on the node or a provisioner whose `allowedTopologies` admit the node.
Every failure is UnschedulableAndUnresolvable. CSIStorageCapacity is not read (README)."""

from __future__ import annotations

from typing import Any, FrozenSet, List, NamedTuple, Optional, Tuple

from kubectl_evict.model import Node, PersistentVolume, PersistentVolumeClaim, Pod, Snapshot
from kubectl_evict.scheduling.framework import CLAIM_KINDS, OK, PER_NODE, SKIPPED, ClusterState, Plugin, Status, claim_names, unresolvable
from kubectl_evict.scheduling.labels import label_selector_matches
from kubectl_evict.scheduling.nodeaffinity import node_selector_matches, selector_keys
from kubectl_evict.versions import cluster_version

PV_AFFINITY = "node(s) didn't match PersistentVolume's node affinity"
PV_AFFINITY_BEFORE_V133 = "node(s) had volume node affinity conflict"     # before #129887
BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
NO_SPACE = "node(s) did not have enough free storage"
PV_MISSING = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
NO_PROVISIONER = "kubernetes.io/no-provisioner"


class Claims(NamedTuple):
    bound: Tuple[PersistentVolumeClaim, ...]
    delayed: Tuple[PersistentVolumeClaim, ...]


def is_bound(pvc: PersistentVolumeClaim) -> bool:
    return bool(pvc.volume_name) and pvc.bind_completed


def pod_claims(cs: ClusterState, pod: Pod) -> Tuple[Optional[str], Optional[Claims]]:
    """`GetPodVolumeClaims`: (error message, claims)."""
    bound: List[PersistentVolumeClaim] = []
    delayed: List[PersistentVolumeClaim] = []
    for claim, vol in claim_names(pod):
        pvc = cs.pvcs.get((pod.namespace, claim))
        if pvc is None:
            return 'persistentvolumeclaim "%s" not found' % claim, None
        if vol.kind == "ephemeral" and not any(r.controller and r.uid == pod.uid
                                               for r in pvc.owner_refs):
            return "PVC %s/%s was not created for pod %s/%s (pod is not owner)" % (
                pod.namespace, claim, pod.namespace, pod.name), None
        if pvc.deletion_timestamp is not None:
            return 'persistentvolumeclaim "%s" is being deleted' % claim, None
        if pvc.phase == "Lost":
            return 'persistentvolumeclaim "%s" bound to non-existent persistentvolume "%s"' % (
                claim, pvc.volume_name), None
        if is_bound(pvc):
            bound.append(pvc)
            continue
        sc = cs.storage_classes.get(pvc.storage_class or "")
        if not pvc.volume_name and sc is not None and sc.binding_mode == "WaitForFirstConsumer":
            delayed.append(pvc)
        else:
            return UNBOUND_IMMEDIATE, None
    return None, Claims(tuple(bound), tuple(delayed))


def pv_fits_node(pv: PersistentVolume, node: Node) -> bool:
    return pv.node_affinity is None or node_selector_matches(pv.node_affinity, node.labels, node.name).match


def _affinity_keys(cs: ClusterState, pv: PersistentVolume) -> Optional[Tuple[str, ...]]:
    """The label keys the volume's node affinity reads, None when it reads fields (the node's
    name): remembered per volume."""
    keys = cs.cache.get(("pv-keys", pv.name), False)
    if keys is False:
        read, fields = selector_keys(pv.node_affinity)
        keys = cs.cache[("pv-keys", pv.name)] = None if fields else tuple(sorted(read))
    return keys


def _pv_affinity_text(cs: ClusterState) -> str:
    """ErrReasonNodeConflict in the cluster's release (feature PVNodeAffinityText, #129887)."""
    text = cs.cache.get("pv-affinity-text")
    if text is None:
        on = cluster_version(cs.snapshot if cs.snapshot is not None else Snapshot()).has("PVNodeAffinityText")
        text = cs.cache["pv-affinity-text"] = PV_AFFINITY if on else PV_AFFINITY_BEFORE_V133
    return text


def _pv_fits_cached(cs: ClusterState, pv: PersistentVolume, node: Node) -> bool:
    """`pv_fits_node`, remembered (neither side changes during a plan) per node, or, for a node
    affinity without matchFields, per the node's values of the keys it reads: a zonal volume is
    matched once per zone, not once per node."""
    keys = _affinity_keys(cs, pv)
    if keys is None:
        key: tuple = ("pv-fits", pv.name, node.name)
    else:
        labels = node.labels
        key = ("pv-fits", pv.name, tuple(labels.get(k) for k in keys))
    fits = cs.cache.get(key)
    if fits is None:
        fits = cs.cache[key] = pv_fits_node(pv, node)
    return fits


def _pv_matches(pv: PersistentVolume, pvc: PersistentVolumeClaim, node: Node) -> bool:
    """`FindMatchingVolume`'s checks for one PV and one delayed claim."""
    if pv.storage_class != (pvc.storage_class or "") or pv.capacity < pvc.request:
        return False
    if pv.volume_mode != pvc.volume_mode or pv.deletion_timestamp is not None:
        return False
    if pv.claim_ref is not None:
        if (pv.claim_ref[0], pv.claim_ref[1]) != (pvc.namespace, pvc.name) or \
                (pv.claim_ref[2] and pvc.uid and pv.claim_ref[2] != pvc.uid):
            return False
    elif pv.phase != "Available":
        return False
    if pvc.selector is not None and not label_selector_matches(pvc.selector, pv.labels):
        return False
    if any(m not in pv.access_modes for m in pvc.access_modes):
        return False
    return pv_fits_node(pv, node)


def find_pod_volumes(cs: ClusterState, claims: Claims, node: Node) -> Tuple[List[str], List[Tuple[str, str]], List[str]]:
    """`FindPodVolumes` for one node: (reasons, static bindings (pvc, pv), claims to provision)."""
    affinity_bad = conflict = missing = False
    for pvc in claims.bound:
        pv = cs.pvs.get(pvc.volume_name)
        if pv is None:
            missing = True
        elif pv.node_affinity is not None and not _pv_fits_cached(cs, pv, node):
            affinity_bad = True
    bindings: List[Tuple[str, str]] = []
    provision: List[str] = []
    todo = []
    for pvc in claims.delayed:
        if pvc.selected_node and pvc.selected_node != node.name:
            conflict = True
        else:
            todo.append(pvc)
    if todo and not conflict:
        used = set()
        pvs = sorted(cs.pvs.values(), key=lambda v: (v.capacity, v.name))
        unmatched = []
        for pvc in sorted(todo, key=lambda c: c.request):
            pv = next((v for v in pvs if v.name not in used and _pv_matches(v, pvc, node)), None)
            if pv is None:
                unmatched.append(pvc)
            else:
                used.add(pv.name)
                bindings.append((pvc.name, pv.name))
        for pvc in unmatched:
            sc = cs.storage_classes.get(pvc.storage_class or "")
            if sc is None or not sc.provisioner or sc.provisioner == NO_PROVISIONER or (
                    sc.allowed_topologies is not None and
                    not node_selector_matches(sc.allowed_topologies, node.labels, node.name).match):
                conflict = True
                break
            provision.append(pvc.name)
    reasons = []
    if affinity_bad:
        reasons.append(_pv_affinity_text(cs))
    if conflict:
        reasons.append(BIND_CONFLICT)
    if missing:
        reasons.append(PV_MISSING)
    return reasons, bindings, provision


class VolumeBinding(Plugin):
    name = "VolumeBinding"
    claim_kinds = CLAIM_KINDS

    def pre_filter(self, cs: ClusterState, pod: Pod) -> Tuple[Status, Any]:
        if not claim_names(pod):
            return SKIPPED, None
        err, claims = pod_claims(cs, pod)
        if err is not None:
            return unresolvable(err), None
        return OK, claims

    def filter(self, cs: ClusterState, pod: Pod, claims: Any, node: Node) -> Optional[Status]:
        reasons, _, _ = find_pod_volumes(cs, claims, node)
        return unresolvable(*reasons) if reasons else None

    def class_status(self, cs: ClusterState, pod: Pod, claims: Any, rep: Node, split: FrozenSet[str]) -> Optional[Status]:
        """With bound claims only, whose volumes' node affinities read no per-node key and no
        field, the Filter's reasons (affinity, missing volume) are the same on every node of the
        class. A delayed claim is matched node by node (its selected node, each PV's affinity)."""
        if claims.delayed:
            return PER_NODE
        for pvc in claims.bound:
            pv = cs.pvs.get(pvc.volume_name)
            if pv is not None and pv.node_affinity is not None:
                keys = _affinity_keys(cs, pv)
                if keys is None or split.intersection(keys):
                    return PER_NODE
        return self.filter(cs, pod, claims, rep)

    def rejects_class(self, cs: ClusterState, pod: Pod, claims: Any, rep: Node, split: FrozenSet[str]) -> bool:
        """A bound claim whose volume is missing fails every node; one whose volume's node
        affinity reads no per-node key and no field fails the whole class or none of it."""
        for pvc in claims.bound:
            pv = cs.pvs.get(pvc.volume_name)
            if pv is None:
                return True
            if pv.node_affinity is not None:
                keys = _affinity_keys(cs, pv)
                if keys is not None and not split.intersection(keys) and not _pv_fits_cached(cs, pv, rep):
                    return True
        return False
