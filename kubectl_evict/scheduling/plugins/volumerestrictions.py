"""VolumeRestrictions (`pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go`):
a ReadWriteOncePod claim already used by a scheduled pod anywhere fails every node. In-tree
disk conflicts (GCE PD, EBS, iSCSI, RBD inline volumes) are not modelled (README divergences)."""

from __future__ import annotations

from typing import Any, FrozenSet, Optional, Tuple

from kubectl_evict.model import Node, Pod
from kubectl_evict.scheduling.framework import (OK, SKIPPED, ClusterState, Plugin, Status, claim_names,
                                                unresolvable, unschedulable)

RWOP_CONFLICT = "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"


class VolumeRestrictions(Plugin):
    name = "VolumeRestrictions"
    claim_kinds = ("PersistentVolumeClaim",)

    def pre_filter(self, cs: ClusterState, pod: Pod) -> Tuple[Status, Any]:
        claims = claim_names(pod)
        if not claims:
            return SKIPPED, None
        conflict = False
        for claim, vol in claims:
            if vol.kind != "persistentVolumeClaim":
                continue
            pvc = cs.pvcs.get((pod.namespace, claim))
            if pvc is None:
                return unresolvable('persistentvolumeclaim "%s" not found' % claim), None
            if "ReadWriteOncePod" in pvc.access_modes and cs.pvc_users.get((pod.namespace, claim), 0) > 0:
                conflict = True
        return (OK, True) if conflict else (SKIPPED, None)

    def filter(self, cs: ClusterState, pod: Pod, conflict: Any, node: Node) -> Optional[Status]:
        return unschedulable(RWOP_CONFLICT) if conflict else None

    def class_status(self, cs: ClusterState, pod: Pod, conflict: Any, rep: Node, split: FrozenSet[str]) -> Optional[Status]:
        """The conflict is the cluster's, not the node's: one status for every node."""
        return self.filter(cs, pod, conflict, rep)
