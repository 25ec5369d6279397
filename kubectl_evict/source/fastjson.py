"""Fast path for large JSON snapshots: parse only the fields the freezer reads.

`msgspec` decodes only the fields of this schema and skips everything else at C speed
(managedFields, container statuses, image lists, env): on a 150,000-pod snapshot this is what
makes loading faster and smaller than a plain `json.load` of the same file. Files (`loads`) and
live list pages (`loads_page`) are decoded the same way: into the schema's TypedDict twins, i.e.
straight into the plain dicts that `freeze.py` reads (one projection for every input path), with
no second copy. Anything msgspec rejects (malformed JSON, a wrong type where an object is
expected) raises `FallBack`, and the caller re-parses with the stdlib to produce the precise error
message.

Pods are most of a snapshot, and most of a pod's subtrees repeat across the pods of one template
(labels, tolerations, affinity, container resources). Those subtrees are kept as their raw JSON
text (`msgspec.Raw`, a view into the file's bytes: no copy) and handed to the freezer as is: it
projects each distinct text once and reuses the record for every object that has it. Kinds the
freezer does not know to expect raw text get those subtrees decoded as plain values, exactly as
the stdlib path gives them.
"""

from __future__ import annotations

import typing
from typing import Any, List, Optional, Tuple, TypedDict, Union

import msgspec


class FallBack(Exception):
    """msgspec could not take this document; use the general path."""


class _S(msgspec.Struct, omit_defaults=True):
    pass


# A subtree kept as raw JSON text: None when absent, `null` arrives as Raw(b"null").
Raw = msgspec.Raw
RawField = msgspec.Raw
# Kinds whose projection in freeze.py takes raw subtrees (everything else gets plain values).
RAW_KINDS = frozenset(("Pod", "Node", "PodDisruptionBudget", "DaemonSet", "ReplicaSet", "StatefulSet",
                       "Deployment", "Job", "ReplicationController"))


class Meta(_S):
    name: Any = None
    namespace: Any = None
    uid: Any = None
    labels: RawField = None
    annotations: RawField = None
    ownerReferences: RawField = None
    deletionTimestamp: Any = None
    creationTimestamp: Any = None
    generation: Any = None


class ContainerSpec(_S):
    name: Any = None
    resources: RawField = None
    ports: RawField = None
    restartPolicy: Any = None


class EmptyDirSource(_S):
    medium: Any = None
    sizeLimit: Any = None


class ClaimSource(_S):
    claimName: Any = None


class VolumeSpec(_S, forbid_unknown_fields=True):
    """A pod volume: its name and its source (raw but for the two the freezer reads). Every v1.33
    source is listed (the freezer's own order first, so it detects the same kind); a volume with
    any other key makes the document take the stdlib path, which keeps the key order the freezer
    falls back on."""
    name: Any = None
    emptyDir: Optional[EmptyDirSource] = None
    hostPath: RawField = None
    persistentVolumeClaim: Optional[ClaimSource] = None
    configMap: RawField = None
    secret: RawField = None
    projected: RawField = None
    downwardAPI: RawField = None
    ephemeral: RawField = None
    csi: RawField = None
    nfs: RawField = None
    gitRepo: RawField = None
    awsElasticBlockStore: RawField = None
    azureDisk: RawField = None
    azureFile: RawField = None
    cephfs: RawField = None
    cinder: RawField = None
    fc: RawField = None
    flexVolume: RawField = None
    flocker: RawField = None
    gcePersistentDisk: RawField = None
    glusterfs: RawField = None
    image: RawField = None
    iscsi: RawField = None
    photonPersistentDisk: RawField = None
    portworxVolume: RawField = None
    quobyte: RawField = None
    rbd: RawField = None
    scaleIO: RawField = None
    storageos: RawField = None
    vsphereVolume: RawField = None


class TemplateSpec(_S):
    # DaemonSet spec.template.spec: what the DaemonSet controller matches nodes against
    nodeSelector: RawField = None
    affinity: RawField = None


class Template(_S):
    spec: Optional[TemplateSpec] = None


class Spec(_S):
    # Pod (a field the freezer reads of pods goes into POD_FIELDS too: live pod pages decode only those)
    nodeName: Any = None
    containers: Optional[List[ContainerSpec]] = None
    initContainers: Optional[List[ContainerSpec]] = None
    overhead: RawField = None
    resources: Any = None
    tolerations: RawField = None
    nodeSelector: RawField = None
    affinity: RawField = None
    volumes: Optional[List[VolumeSpec]] = None
    priority: Any = None
    priorityClassName: Any = None
    terminationGracePeriodSeconds: Any = None
    hostNetwork: Any = None
    schedulerName: Any = None
    topologySpreadConstraints: RawField = None
    preemptionPolicy: Any = None
    # Node
    taints: Any = None
    unschedulable: Any = None
    providerID: Any = None
    podCIDR: Any = None
    # PDB and workloads
    selector: RawField = None
    minAvailable: Any = None
    maxUnavailable: Any = None
    unhealthyPodEvictionPolicy: Any = None
    replicas: Any = None
    template: Optional[Template] = None
    parallelism: Any = None
    completions: Any = None
    # Job (what decides whether a failed pod is replaced)
    backoffLimit: Any = None
    backoffLimitPerIndex: Any = None
    podFailurePolicy: RawField = None
    podReplacementPolicy: Any = None
    # Lease, VolumeAttachment
    holderIdentity: Any = None
    renewTime: Any = None
    attacher: Any = None
    source: Any = None
    # StatefulSet, PersistentVolumeClaim, PersistentVolume, CSINode, CSIDriver
    podManagementPolicy: Any = None
    ordinals: Any = None
    minReadySeconds: Any = None
    updateStrategy: Any = None
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
    # DRA: Pod, ResourceClaim, ResourceClaimTemplate (spec.spec), DeviceClass, ResourceSlice
    resourceClaims: Any = None
    devices: Any = None
    spec: Any = None
    selectors: Any = None
    driver: Any = None
    pool: Any = None
    allNodes: Any = None


class Status(_S):
    # what the freezer reads of a pod is in POD_FIELDS too (live pod pages decode only those)
    phase: Any = None
    conditions: RawField = None   # pods carry five, with timestamps: 2 KB a pod as dicts
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
    failed: Any = None
    currentRevision: Any = None
    updateRevision: Any = None
    # DRA: Pod, ResourceClaim
    resourceClaimStatuses: Any = None
    allocation: Any = None
    reservedFor: Any = None


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
    kinds: Any = None
    warnings: Any = None
    node: Any = None
    pods: Any = None


_decoder = msgspec.json.Decoder(Union[Doc, List[Doc]])
decode_raw = msgspec.json.decode   # the freezer's decoder for raw subtrees (bytes)
# A pod's raw status.conditions, keeping only what the freezer reads of them (ValidationError,
# a ValueError, for anything but a list of objects: the freezer then reads it the checking way).
_ConditionDict = TypedDict("_ConditionDict", {"type": Any, "status": Any}, total=False)
decode_conditions = msgspec.json.Decoder(List[_ConditionDict]).decode


# --- files: the same schema as TypedDicts ---------------------------------------------------
# A file is decoded straight into plain dicts holding only the schema's keys: msgspec builds the
# dict itself, where the structs above need a second pass (`to_builtins`) to become the dicts
# the freezer reads (1.3 s of 4.2 at 150,000 pods). The TypedDicts are generated from the structs,
# so there is one schema. A struct that forbids unknown fields (VolumeSpec) stays a struct: an
# unknown volume source still sends the document to the stdlib path.

def _twin(cls: type) -> Any:
    """The TypedDict twin of schema struct `cls` (created once, kept as a module global so that
    the recursive Doc can refer to itself by name)."""
    name = "_%sDict" % cls.__name__
    twin = globals().get(name)
    if twin is None:
        hints = typing.get_type_hints(cls)
        fields = {f.encode_name: _twin_type(hints[f.name], cls) for f in msgspec.structs.fields(cls)}
        twin = globals()[name] = TypedDict(name, fields, total=False)  # type: ignore[operator]
    return twin


def _twin_type(tp: Any, owner: type) -> Any:
    if tp is owner:
        return "_%sDict" % owner.__name__        # a forward reference to the twin being made
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct) and tp is not msgspec.Raw:
        return tp if tp.__struct_config__.forbid_unknown_fields else _twin(tp)
    args = typing.get_args(tp)
    if typing.get_origin(tp) is Union:
        return Union[tuple(_twin_type(a, owner) for a in args)]
    if typing.get_origin(tp) is list:
        return List[_twin_type(args[0], owner)]   # type: ignore[misc]
    return tp


_DocDict = _twin(Doc)


def _keep(cls: type, made: dict) -> dict:
    """The keys of schema struct `cls` as a tree: key -> True (the whole value) or the same for
    a struct (or a list of them). The YAML reader prunes with it (yamltext.py)."""
    if cls in made:
        return made[cls]
    out = made[cls] = {}
    hints = typing.get_type_hints(cls)
    for f in msgspec.structs.fields(cls):
        tp = hints[f.name]
        while typing.get_origin(tp) in (Union, list):
            tp = next(a for a in typing.get_args(tp) if a is not type(None))
        whole = not (isinstance(tp, type) and issubclass(tp, msgspec.Struct)) or tp is msgspec.Raw \
            or tp.__struct_config__.forbid_unknown_fields
        out[f.encode_name] = True if whole else _keep(tp, made)
    return out


KEEP = _keep(Doc, {})
_dict_decoder = msgspec.json.Decoder(Union[_DocDict, List[_DocDict]])
# A list page of the API server: its ListMeta and items (which carry no kind of their own).
_ListMetaDict = TypedDict("_ListMetaDict", {"resourceVersion": Any, "continue": Any, "remainingItemCount": Any},
                          total=False)
_PageDict = TypedDict("_PageDict", {"metadata": Optional[_ListMetaDict], "items": Optional[List[_DocDict]]},
                      total=False)
_page_decoder = msgspec.json.Decoder(_PageDict)

# A live page holds one kind. A pod page is decoded with the fields the freezer reads of a pod:
# the generic twins also name every other kind's spec and status fields, which makes each pod
# dearer to decode (4.4 KB pods, 12 runs: 9.5 us best and 10.9 median against 10.5 and 13.1).
# Same twins, same value types: the items come out as the generic decoder makes them.
POD_FIELDS = {
    "spec": ("nodeName", "containers", "initContainers", "overhead", "resources", "tolerations", "nodeSelector",
             "affinity", "volumes", "priority", "priorityClassName", "terminationGracePeriodSeconds",
             "hostNetwork", "schedulerName", "topologySpreadConstraints", "preemptionPolicy", "resourceClaims"),
    "status": ("phase", "conditions", "qosClass", "startTime", "nominatedNodeName", "resourceClaimStatuses"),
}


def _narrowed(name: str, twin: Any, keep: Any) -> Any:
    """TypedDict `twin` with only the keys in `keep` (their value types unchanged)."""
    hints = twin.__annotations__
    return TypedDict(name, {k: hints[k] for k in keep}, total=False)  # type: ignore[operator]


_doc_hints = _DocDict.__annotations__
_PodDocDict = TypedDict("_PodDocDict", {  # type: ignore[operator]
    "apiVersion": _doc_hints["apiVersion"], "kind": _doc_hints["kind"], "metadata": _doc_hints["metadata"],
    "spec": Optional[_narrowed("_PodSpecDict", _SpecDict, POD_FIELDS["spec"])],
    "status": Optional[_narrowed("_PodStatusDict", _StatusDict, POD_FIELDS["status"])]}, total=False)
_PAGE_DECODERS = {"Pod": msgspec.json.Decoder(TypedDict(  # type: ignore[operator]
    "_PodPageDict", {"metadata": Optional[_ListMetaDict], "items": Optional[List[_PodDocDict]]}, total=False))}


def loads(data: Any) -> Any:
    """Decode a JSON document (bytes, or a memory map of a file) into pruned plain dicts and
    lists; pod subtrees stay raw JSON text (views into `data`)."""
    try:   # RecursionError: nested deeper than msgspec goes; the stdlib path names the place
        doc = _dict_decoder.decode(data)
        if isinstance(doc, list):
            return [_finish(d) for d in doc]
        return _finish(doc)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError):
        raise FallBack() from None


def loads_page(data: bytes, kind: str, api_version: str) -> Tuple[dict, list]:
    """(list metadata, items) of one list page of `kind`, decoded exactly like a file's items
    (`loads`): pruned plain dicts whose raw subtrees are views into `data`. Each item gets the
    kind and apiVersion the API server leaves out of list items."""
    try:
        page = _PAGE_DECODERS.get(kind, _page_decoder).decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise FallBack() from None
    items = page.get("items") or []
    for item in items:
        item["kind"] = kind
        item["apiVersion"] = api_version
        _finish_one(item)
    return page.get("metadata") or {}, items


def _finish(doc: dict) -> dict:
    """What the decoder cannot do itself: typed lists name their items' kind, kubelet documents
    become bytes, volume structs become dicts, and kinds the freezer does not read raw text for
    get every raw subtree decoded."""
    items = doc.get("items")
    if items is not None:
        kind = doc.get("kind")
        item_kind = kind[:-4] if isinstance(kind, str) and kind.endswith("List") and kind != "List" else None
        for item in items:
            if item_kind and item.get("kind") is None:
                item["kind"] = item_kind
            _finish_item(item)
    _finish_one(doc)
    return doc


def _finish_item(item: dict) -> None:
    if item.get("items") is not None:   # a List inside a List (documents.expand flattens it)
        _finish(item)
    else:
        _finish_one(item)


def _finish_one(doc: dict) -> None:
    for name in _RAW_FIELDS:
        value = doc.get(name)
        if value is not None:
            if len(value):
                doc[name] = bytes(value)
            else:
                del doc[name]
    spec = doc.get("spec")
    if _takes_raw(doc.get("kind"), spec is not None and spec.get("containers") is not None):
        vols = spec.get("volumes") if spec is not None else None
        if vols:
            spec["volumes"] = msgspec.to_builtins(vols, builtin_types=_PASS)
    else:
        for k, v in doc.items():
            if k != "items":
                doc[k] = _plain(v)


def _plain(v: Any) -> Any:
    """`v` with every raw subtree decoded and every struct made a dict (kinds outside RAW_KINDS)."""
    if v.__class__ is msgspec.Raw:
        return decode_raw(v)
    if v.__class__ is dict:
        return {k: _plain(x) for k, x in v.items()}
    if v.__class__ is list:
        return [_plain(x) for x in v]
    if isinstance(v, msgspec.Struct):
        return msgspec.to_builtins(v, enc_hook=_decoded)
    return v


def _decoded(v: Any) -> Any:
    if isinstance(v, msgspec.Raw):
        return decode_raw(v)
    raise TypeError("unexpected %s" % type(v).__name__)


_RAW_FIELDS = ("kubeletconfig", "summary")
_PASS = (msgspec.Raw,)


def _takes_raw(kind: Any, has_containers: bool) -> bool:
    """Does the freezer read this object's subtrees as raw text (RAW_KINDS, or a kind-less pod)?"""
    if kind is None:
        return has_containers
    # a kind that is no string (a list, an object) is refused by the freezer with its location
    return isinstance(kind, str) and kind in RAW_KINDS


_items_decoder = msgspec.json.Decoder(List[_DocDict])


def loads_items(data: Any) -> list:
    """Decode a JSON array of objects (the items of a List, read in chunks by the YAML fast
    path) exactly like the items of a file (`loads`); FallBack for anything msgspec refuses."""
    try:
        items = _items_decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, RecursionError):
        raise FallBack() from None
    for item in items:
        _finish_item(item)
    return items
