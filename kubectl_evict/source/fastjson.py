"""Fast path for large JSON snapshots: parse only the fields the freezer reads.

`msgspec` decodes straight into these schema structs and skips everything else at C speed
(managedFields, container statuses, image lists, env): on a 150,000-pod snapshot this is what
makes loading faster and smaller than a plain `json.load` of the same file. The structs are then
turned back into plain dicts (`to_builtins`) so that there is one projection, in `freeze.py`,
for every input path. Anything msgspec rejects (malformed JSON, a wrong type where a struct is
expected) raises `FallBack`, and the caller re-parses with the stdlib to produce the precise
error message.
"""

from __future__ import annotations

from typing import Any, List, Optional, Union

import msgspec


class FallBack(Exception):
    """msgspec could not take this document; use the general path."""


class _S(msgspec.Struct, omit_defaults=True):
    pass


class Meta(_S):
    name: Any = None
    namespace: Any = None
    uid: Any = None
    labels: Any = None
    annotations: Any = None
    ownerReferences: Any = None
    deletionTimestamp: Any = None
    deletionGracePeriodSeconds: Any = None
    creationTimestamp: Any = None
    generation: Any = None
    resourceVersion: Any = None


class ContainerSpec(_S):
    name: Any = None
    resources: Any = None
    ports: Any = None
    restartPolicy: Any = None


class Spec(_S):
    # Pod
    nodeName: Any = None
    containers: Optional[List[ContainerSpec]] = None
    initContainers: Optional[List[ContainerSpec]] = None
    overhead: Any = None
    resources: Any = None
    tolerations: Any = None
    nodeSelector: Any = None
    affinity: Any = None
    volumes: Any = None
    priority: Any = None
    priorityClassName: Any = None
    terminationGracePeriodSeconds: Any = None
    hostNetwork: Any = None
    schedulerName: Any = None
    topologySpreadConstraints: Any = None
    preemptionPolicy: Any = None
    # Node
    taints: Any = None
    unschedulable: Any = None
    providerID: Any = None
    podCIDR: Any = None
    # PDB and workloads
    selector: Any = None
    minAvailable: Any = None
    maxUnavailable: Any = None
    unhealthyPodEvictionPolicy: Any = None
    replicas: Any = None
    parallelism: Any = None
    completions: Any = None
    # Lease, VolumeAttachment
    holderIdentity: Any = None
    renewTime: Any = None
    attacher: Any = None
    source: Any = None
    # StatefulSet, PersistentVolumeClaim, PersistentVolume, CSINode, CSIDriver
    podManagementPolicy: Any = None
    volumeName: Any = None
    storageClassName: Any = None
    accessModes: Any = None
    volumeMode: Any = None
    capacity: Any = None
    nodeAffinity: Any = None
    claimRef: Any = None
    csi: Any = None
    awsElasticBlockStore: Any = None
    gcePersistentDisk: Any = None
    azureDisk: Any = None
    cinder: Any = None
    vsphereVolume: Any = None
    drivers: Any = None
    storageCapacity: Any = None


class Status(_S):
    phase: Any = None
    conditions: Any = None
    capacity: Any = None
    allocatable: Any = None
    qosClass: Any = None
    nodeInfo: Any = None
    addresses: Any = None
    observedGeneration: Any = None
    disruptionsAllowed: Any = None
    currentHealthy: Any = None
    desiredHealthy: Any = None
    startTime: Any = None
    nominatedNodeName: Any = None
    expectedPods: Any = None
    disruptedPods: Any = None
    attached: Any = None
    replicas: Any = None
    readyReplicas: Any = None


class Doc(_S):
    apiVersion: Any = None
    kind: Any = None
    metadata: Optional[Meta] = None
    spec: Optional[Spec] = None
    status: Optional[Status] = None
    items: Optional[List["Doc"]] = None
    # PriorityClass
    value: Any = None
    globalDefault: Any = None
    preemptionPolicy: Any = None
    # StorageClass
    provisioner: Any = None
    volumeBindingMode: Any = None
    allowedTopologies: Any = None
    # evictplan/v1alpha1 kinds and raw kubelet documents
    kubeletconfig: msgspec.Raw = msgspec.Raw()   # kept as bytes: decoded only if a rule reads it
    summary: msgspec.Raw = msgspec.Raw()
    takenAt: Any = None
    context: Any = None
    server: Any = None
    serverVersion: Any = None
    node: Any = None
    pods: Any = None


_decoder = msgspec.json.Decoder(Union[Doc, List[Doc]])


def loads(data: bytes) -> Any:
    """Decode a JSON document into pruned plain dicts/lists."""
    try:
        doc = _decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise FallBack() from None
    if isinstance(doc, list):
        return [_builtins(d) for d in doc]
    return _builtins(doc)


_RAW_FIELDS = ("kubeletconfig", "summary")


def _one(doc: Doc) -> Any:
    """One object as plain dicts; raw JSON fields stay bytes (the freezer wraps them)."""
    raw = {}
    for name in _RAW_FIELDS:
        value = getattr(doc, name)
        if len(value):
            raw[name] = bytes(value)
        setattr(doc, name, None)
    out = msgspec.to_builtins(doc)
    for name in _RAW_FIELDS:
        out.pop(name, None)
    out.update(raw)
    return out


def _builtins(doc: Doc) -> Any:
    items = doc.items
    if items is None:
        return _one(doc)
    doc.items = None
    out = _one(doc)
    converted = []
    for i in range(len(items)):
        converted.append(_one(items[i]))
        items[i] = None  # release each struct as soon as it is converted
    out["items"] = converted
    return out
