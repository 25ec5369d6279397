"""NodeVolumeLimits (`pkg/scheduler/framework/plugins/nodevolumelimits/csi.go`): per CSI driver,
the volumes attached to a node (its pods' claims and its VolumeAttachments, de-duplicated by
driver and volume handle) plus the new pod's must not exceed the CSINode's
`allocatable.count`. In-tree PVs count under their CSI driver when the CSINode lists the
plugin as migrated. In-tree inline pod volumes are not modelled (README divergences)."""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, Optional, Set, Tuple

from kubectl_evict.model import CSINode, Node, Pod
from kubectl_evict.scheduling.framework import (CLAIM_KINDS, OK, PER_NODE, SKIPPED, ClusterState, Plugin, Status, claim_names,
                                                unresolvable, unschedulable)

MAX_VOLUMES = "node(s) exceed max volume count"
# csi-translation-lib: in-tree plugin -> CSI driver
MIGRATED_DRIVERS = {"kubernetes.io/aws-ebs": "ebs.csi.aws.com", "kubernetes.io/gce-pd": "pd.csi.storage.gke.io",
                    "kubernetes.io/azure-disk": "disk.csi.azure.com", "kubernetes.io/cinder": "cinder.csi.openstack.org",
                    "kubernetes.io/vsphere-volume": "csi.vsphere.vmware.com"}


def _from_class(cs: ClusterState, csinode: Optional[CSINode], ns: str, claim: str, sc_name: str) -> Optional[Tuple[str, str]]:
    """`getCSIDriverInfoFromSC`: an unbound claim counts under its class's provisioner."""
    sc = cs.storage_classes.get(sc_name) if sc_name else None
    if sc is None:
        return None
    driver = sc.provisioner
    if driver in MIGRATED_DRIVERS:
        if csinode is None or driver not in csinode.migrated_plugins:
            return None
        driver = MIGRATED_DRIVERS[driver]
    return driver, "%s-%s" % (ns, claim)


def volume_handle(cs: ClusterState, csinode: Optional[CSINode], ns: str, claim: str) -> Optional[Tuple[str, str]]:
    """`getCSIDriverInfo`: (driver, volume handle) of a claim, None when it does not count."""
    pvc = cs.pvcs.get((ns, claim))
    if pvc is None:
        return None
    pv = cs.pvs.get(pvc.volume_name) if pvc.volume_name else None
    if pv is None:
        return _from_class(cs, csinode, ns, claim, pvc.storage_class or "")
    if pv.csi_driver:
        return pv.csi_driver, pv.csi_handle
    if pv.in_tree and csinode is not None and pv.in_tree in csinode.migrated_plugins:
        return MIGRATED_DRIVERS[pv.in_tree], pv.in_tree_id
    return None


def _may_count(cs: ClusterState, ns: str, claim: str) -> bool:
    """Could the claim count against a CSI attach limit on some node (`volume_handle` with some
    CSINode)? Not when it is bound to a PersistentVolume in the input that is neither a CSI volume
    nor an in-tree volume a CSINode may list as migrated."""
    pvc = cs.pvcs.get((ns, claim))
    pv = cs.pvs.get(pvc.volume_name) if pvc is not None and pvc.volume_name else None
    return pv is None or bool(pv.csi_driver or pv.in_tree)


class NodeVolumeLimits(Plugin):
    name = "NodeVolumeLimits"
    claim_kinds = CLAIM_KINDS + ("CSINode",)
    # Without these the plugin still runs: the pods' own volumes are a lower bound of what is
    # attached, so a node they already fill is rejected as a fact; a node it passes is not known.
    lower_bound_kinds = ("VolumeAttachment",)

    def unknown_kinds(self, cs: ClusterState, pod: Pod) -> Tuple[str, ...]:
        """The claim kinds, and VolumeAttachment: a node's attached volumes count its
        VolumeAttachments too, even those no pod uses (`getNodeVolumeAttachmentInfo`), so without
        them "fits under the limit" is not known. Only where a limit can apply: one of the CSINodes
        declares an `allocatable.count` (without CSINodes the plugin is skipped, CSINode listed)."""
        missing = super().unknown_kinds(cs, pod)
        if missing == ("CSINode",) and not any(_may_count(cs, pod.namespace, c) for c, _ in claim_names(pod)):
            # every claim is bound to a volume in the input that no CSI driver counts (NFS,
            # hostPath, local...): `getCSIDriverInfo` gives no driver whatever the CSINode says
            missing = ()
        snap = cs.snapshot
        if snap is None or snap.holds("VolumeAttachment") or "VolumeAttachment" in missing or not claim_names(pod):
            return missing
        if not snap.holds("CSINode") or \
                not any(c is not None for n in cs.csi_nodes.values() for c in n.drivers.values()):
            return missing
        return missing + ("VolumeAttachment",)

    def pre_filter(self, cs: ClusterState, pod: Pod) -> Tuple[Status, Any]:
        # the state: the pod's new volumes per CSINode's migrated plugins (filled as nodes ask)
        return (OK, {}) if claim_names(pod) else (SKIPPED, None)

    def filter(self, cs: ClusterState, pod: Pod, data: Any, node: Node) -> Optional[Status]:
        csinode = cs.csi_nodes.get(node.name)
        new = _new_volumes(cs, pod, data, csinode)
        if isinstance(new, Status):
            return new
        if not new or csinode is None:
            return None
        attached, by_va = cs.attached_volumes(node.name, lambda p, c: volume_handle(cs, csinode, p.namespace, c))
        for driver, handles in new.items():
            limit = csinode.drivers.get(driver)
            if limit is None:
                continue
            have = attached.get(driver, set())
            extra = by_va.get(driver, set()) - have     # VolumeAttachments without a pod here
            if len(have) + len(extra) + len(handles - have) > limit:
                return unschedulable(MAX_VOLUMES)
        return None

    def class_status(self, cs: ClusterState, pod: Pod, data: Any, rep: Node, split: FrozenSet[str]) -> Optional[Status]:
        """A claim the pod cannot use (missing, or an ephemeral volume's claim it does not own)
        fails every node alike; otherwise the count depends on each node's volumes."""
        new = _new_volumes(cs, pod, data, None)
        return new if isinstance(new, Status) else PER_NODE


def _new_volumes(cs: ClusterState, pod: Pod, memo: Optional[Dict[Any, Any]], csinode: Optional[CSINode]) -> Any:
    """The pod's volumes as a node with `csinode` counts them (driver -> volume handles), or the
    status of the first claim the pod cannot use. Only the CSINode's migrated plugins matter:
    remembered in `memo` (the PreFilter state) per distinct list, not computed per node."""
    key = csinode.migrated_plugins if csinode is not None else None
    hit = memo.get(key) if memo is not None else None
    if hit is None:
        hit = _count_new(cs, pod, csinode)
        if memo is not None:
            memo[key] = hit
    return hit


def _count_new(cs: ClusterState, pod: Pod, csinode: Optional[CSINode]) -> Any:
    """`_new_volumes` without the memo: the Filter's per-claim walk (`getCSIDriverInfo` per claim)."""
    new: Dict[str, Set[str]] = {}
    for claim, vol in claim_names(pod):
        pvc = cs.pvcs.get((pod.namespace, claim))
        if pvc is None:
            return unresolvable('looking up PVC %s/%s: persistentvolumeclaims "%s" not found'
                                % (pod.namespace, claim, claim))
        if vol.kind == "ephemeral" and not any(r.controller and r.uid == pod.uid
                                               for r in pvc.owner_refs):
            return Status("Error", ("PVC %s/%s was not created for pod %s/%s (pod is not owner)"
                                    % (pod.namespace, claim, pod.namespace, pod.name),))
        h = volume_handle(cs, csinode, pod.namespace, claim)
        if h is not None:
            new.setdefault(h[0], set()).add(h[1])
    return new
