"""VolumeZone (`pkg/scheduler/framework/plugins/volumezone/volume_zone.go`): a bound PV's zone
and region labels (GA and beta keys; values may list zones joined by `__`) must match the node's.
A node with none of those labels passes."""

from __future__ import annotations

from typing import Any, FrozenSet, Optional, Tuple

from kubectl_evict.model import Node, Pod
from kubectl_evict.scheduling.framework import (CLAIM_KINDS, OK, PER_NODE, SKIPPED, ClusterState, Plugin, Status, fails_class,
                                                unresolvable)

NO_ZONE = "node(s) had no available volume zone"
ZONE_KEYS = ("failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region",
             "topology.kubernetes.io/zone", "topology.kubernetes.io/region")
_GA = {"failure-domain.beta.kubernetes.io/zone": "topology.kubernetes.io/zone",
       "failure-domain.beta.kubernetes.io/region": "topology.kubernetes.io/region"}


class VolumeZone(Plugin):
    name = "VolumeZone"
    claim_kinds = CLAIM_KINDS

    def pre_filter(self, cs: ClusterState, pod: Pod) -> Tuple[Status, Any]:
        wanted = []
        for v in pod.volumes:
            if v.kind != "persistentVolumeClaim" or not v.claim_name:
                continue
            pvc = cs.pvcs.get((pod.namespace, v.claim_name))
            if pvc is None:
                return unresolvable('persistentvolumeclaim "%s" not found' % v.claim_name), None
            if not pvc.volume_name:
                sc_name = pvc.storage_class or ""
                if not sc_name:
                    return unresolvable("PersistentVolumeClaim had no pv name and storageClass name"), None
                sc = cs.storage_classes.get(sc_name)
                if sc is None:
                    return unresolvable('storageclasses.storage.k8s.io "%s" not found' % sc_name), None
                if not sc.binding_mode:
                    return unresolvable('VolumeBindingMode not set for StorageClass "%s"' % sc_name), None
                if sc.binding_mode == "WaitForFirstConsumer":
                    continue
                return unresolvable("PersistentVolume had no name"), None
            pv = cs.pvs.get(pvc.volume_name)
            if pv is None:
                return unresolvable('persistentvolume "%s" not found' % pvc.volume_name), None
            for k in ZONE_KEYS:
                val = pv.labels.get(k)
                if val is not None:
                    wanted.append((k, frozenset(val.split("__"))))
        if not wanted:
            return SKIPPED, None
        return OK, tuple(wanted)

    def filter(self, cs: ClusterState, pod: Pod, wanted: Any, node: Node) -> Optional[Status]:
        labels = node.labels
        if not any(k in labels for k in ZONE_KEYS):
            return None
        for key, values in wanted:
            v = labels.get(key)
            if v is None and key in _GA:
                v = labels.get(_GA[key])
            if v is None or v not in values:
                return unresolvable(NO_ZONE)
        return None

    def rejects_class(self, cs: ClusterState, pod: Pod, wanted: Any, rep: Node, split: FrozenSet[str]) -> bool:
        return fails_class(self.class_status(cs, pod, wanted, rep, split))

    def class_status(self, cs: ClusterState, pod: Pod, wanted: Any, rep: Node, split: FrozenSet[str]) -> Optional[Status]:
        """The Filter reads only the zone and region labels: unless one of them is per node, the
        representative's status is the class's."""
        if any(k in split for k in ZONE_KEYS):
            return PER_NODE
        return self.filter(cs, pod, wanted, rep)
