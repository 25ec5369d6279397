"""The frozen snapshot: typed, immutable records of exactly what the rules need.

Top-level objects (Node, Pod, PodDisruptionBudget, ...) are pyrsistent `PClass` records: cheap
attribute reads, `.set()` returns a new value. Small leaf values (a taint, a toleration, a
container) are `NamedTuple`s: immutable and hashable, and about 20x cheaper to build, which
matters at 150,000 pods; identical leaves are shared between pods at freeze time. Collections
are `FrozenMap`s (dicts that refuse mutation; see its docstring for why not `pmap`), `pvector`
(the pod list) or tuples (short per-object lists).

Resource amounts are plain ints in the units the scheduler and kubelet compare: millicores for
`cpu`, the rounded-up value (bytes, counts) for everything else (see `quantity.to_units`).
Timestamps are epoch seconds (float).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Iterator, Mapping, NamedTuple, Optional, Tuple

from pyrsistent import PClass, field, pvector

from kubectl_evict.errors import InputError

try:  # kubelet stats summaries are most of a large snapshot's bytes: msgspec reads them ~4x faster
    from msgspec import DecodeError as _DecodeError
    from msgspec.json import decode as _fast_decode
except ImportError:  # pragma: no cover - the pure-Python bundle
    _fast_decode = None

# --- leaf values ----------------------------------------------------------------------------


class Taint(NamedTuple):
    key: str
    value: str
    effect: str
    time_added: Optional[float] = None

    def __str__(self) -> str:
        return "%s%s:%s" % (self.key, "=" + self.value if self.value else "", self.effect)


class Toleration(NamedTuple):
    key: str
    operator: str
    value: str
    effect: str
    seconds: Optional[int] = None   # tolerationSeconds; None = forever


class Requirement(NamedTuple):
    """One label (or field) requirement: In, NotIn, Exists, DoesNotExist, Gt, Lt."""
    key: str
    operator: str
    values: Tuple[str, ...]


class NodeSelectorTerm(NamedTuple):
    match_expressions: Tuple[Requirement, ...]
    match_fields: Tuple[Requirement, ...]


class NodeSelector(NamedTuple):
    """`requiredDuringScheduling...` terms: ORed terms of ANDed requirements."""
    terms: Tuple[NodeSelectorTerm, ...]


class PreferredTerm(NamedTuple):
    weight: int
    term: NodeSelectorTerm


class LabelSelector(NamedTuple):
    """metav1.LabelSelector; `None` selectors are represented by the absence of this value."""
    match_labels: Tuple[Tuple[str, str], ...]
    match_expressions: Tuple[Requirement, ...]


class PodAffinityTerm(NamedTuple):
    selector: Optional[LabelSelector]
    topology_key: str
    namespaces: Tuple[str, ...]
    namespace_selector: Optional[LabelSelector] = None   # None: unset (only `namespaces`/own ns)
    # matchLabelKeys / mismatchLabelKeys, until the freezer folds them into `selector` with the
    # pod's own labels (as the API server does at creation); () once folded
    match_label_keys: Tuple[str, ...] = ()
    mismatch_label_keys: Tuple[str, ...] = ()


class WeightedPodAffinityTerm(NamedTuple):
    """A preferred pod (anti-)affinity term: scoring only."""
    weight: int
    term: PodAffinityTerm


class SpreadConstraint(NamedTuple):
    """One `topologySpreadConstraints` entry, with upstream's defaults applied at freeze time
    (minDomains 1, nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore)."""
    max_skew: int
    topology_key: str
    when_unsatisfiable: str                 # DoNotSchedule | ScheduleAnyway
    selector: Optional[LabelSelector]
    min_domains: int = 1
    node_affinity_policy: str = "Honor"
    node_taints_policy: str = "Ignore"
    match_label_keys: Tuple[str, ...] = ()


class ContainerPort(NamedTuple):
    host_port: int
    protocol: str
    host_ip: str


class Container(NamedTuple):
    name: str
    requests: "PMapLike"
    limits: "PMapLike"
    host_ports: Tuple[ContainerPort, ...] = ()
    restart_policy: str = ""   # "Always" marks a sidecar init container


class Volume(NamedTuple):
    name: str
    kind: str                       # emptyDir, hostPath, persistentVolumeClaim, configMap, ...
    medium: str = ""                # emptyDir medium
    size_limit: Optional[int] = None
    claim_name: str = ""


class OwnerRef(NamedTuple):
    kind: str
    name: str
    uid: str
    api_version: str = ""
    controller: bool = False


class Condition(NamedTuple):
    type: str
    status: str
    reason: str = ""
    message: str = ""
    last_heartbeat: Optional[float] = None
    last_transition: Optional[float] = None


PMapLike = object  # documentation alias: a FrozenMap[str, int]


def _immutable(self: Any, *args: Any, **kw: Any) -> Any:
    raise TypeError("%s is immutable: use set()/discard()/remove()/update(), which return a new map"
                    % type(self).__name__)


class FrozenMap(dict):
    """An immutable, hashable mapping for the values every rule reads in its inner loops: labels,
    resource amounts, conditions, and the snapshot's indexes.

    Why not `pmap`: a pyrsistent map is a Python-level hash array, and `labels.get(key)` through it
    costs about 1 us against 40 ns for a dict. Placement at 5,000 nodes reads node labels and
    allocatable millions of times; with `pmap` those reads were a quarter of the drain plan.
    This is a dict whose mutating methods raise, with pmap's persistent API (`set`, `discard`,
    `remove`, `update` return a new map). Iteration follows insertion order (the freezer inserts
    in a fixed order), so it is deterministic, unlike pmap's hash order.
    """

    __slots__ = ("_hash",)

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = __ior__ = _immutable  # type: ignore[assignment]

    def __hash__(self) -> int:  # type: ignore[override]
        try:
            return self._hash
        except AttributeError:
            h = self._hash = hash(frozenset(self.items()))
            return h

    def set(self, key: Any, value: Any) -> "FrozenMap":
        new = dict(self)
        new[key] = value
        return FrozenMap(new)

    def discard(self, key: Any) -> "FrozenMap":
        if key not in self:
            return self
        new = dict(self)
        del new[key]
        return FrozenMap(new)

    def remove(self, key: Any) -> "FrozenMap":
        if key not in self:
            raise KeyError(key)
        return self.discard(key)

    def update(self, *maps: Any, **kw: Any) -> "FrozenMap":  # type: ignore[override]
        new = dict(self)
        for m in maps:
            new.update(m)
        new.update(kw)
        return FrozenMap(new)

    def __or__(self, other: Any) -> "FrozenMap":  # type: ignore[override]
        return self.update(other)

    def copy(self) -> "FrozenMap":
        return self

    def __reduce__(self) -> Any:
        return (FrozenMap, (dict(self),))

    def __repr__(self) -> str:
        return "FrozenMap(%s)" % dict.__repr__(self)


EMPTY_MAP = FrozenMap()


def frozen_map(items: Any = None) -> FrozenMap:
    """A FrozenMap of a dict or of (key, value) pairs (the empty one is shared)."""
    if not items:
        return EMPTY_MAP
    return FrozenMap(items)


class LazyJSON(Mapping):
    """A read-only JSON object (a kubelet /configz or /stats/summary) decoded on first read.

    5,000 nodes of stats summaries are most of a large snapshot's bytes, and most rules never
    read them: the fast loader keeps each one as its raw JSON bytes, and the pressure rule
    decodes only the nodes it looks at. Equal bytes are equal values. Callers must treat what
    they read as immutable.
    """

    __slots__ = ("_data", "_value", "_where", "_decode")

    def __init__(self, data: Optional[bytes] = None, value: Optional[dict] = None,
                 where: Tuple[str, ...] = (), decode: Optional[Callable[[bytes], Any]] = None) -> None:
        self._data = data
        self._value = value
        self._where = where   # (file, object, field): named if the bytes turn out not to decode
        self._decode = decode or decode_json   # a reader may decode only the fields it reads

    def _get(self) -> dict:
        if self._value is None:
            try:
                v = self._decode(self._data) if self._data else {}
            except (ValueError, RecursionError) as e:   # bad UTF-8, a number beyond float64, ...
                from kubectl_evict.errors import InputError
                where = tuple(self._where) + (None, None, None)
                text = str(e).split(" - at ", 1)[0] or type(e).__name__
                problem = "not UTF-8 text" if isinstance(e, UnicodeDecodeError) else \
                    "invalid JSON: %s%s" % (text[:1].lower(), text[1:])
                raise InputError(problem, source=where[0], obj=where[1], field=where[2]) from None
            self._value = v if isinstance(v, dict) else {}
        return self._value

    @property
    def where(self) -> Tuple[str, ...]:
        """(file, object, field) the document came from; () when not known."""
        return tuple(self._where)

    def __getitem__(self, key: str) -> Any:
        return self._get()[key]

    def get(self, key: str, default: Any = None) -> Any:
        # Mapping.get goes through __getitem__ and a KeyError for every absent key
        return self._get().get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self._get()

    def __iter__(self) -> Iterator[str]:
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyJSON):
            return self._get() == other._get()
        return isinstance(other, Mapping) and self._get() == dict(other)

    def __hash__(self) -> int:
        return hash(json.dumps(self._get(), sort_keys=True))

    def __repr__(self) -> str:
        return "LazyJSON(%d keys)" % len(self)


def decode_json(data: bytes) -> Any:
    """json.loads, through msgspec when it is there (what it rejects, e.g. NaN, goes to json)."""
    if _fast_decode is not None:
        try:
            return _fast_decode(data)
        except _DecodeError:
            pass
    return json.loads(data)


# --- top-level records -----------------------------------------------------------------------

_UNSET = object()

SYSTEM_CRITICAL_PRIORITY = 2000000000   # scheduling.SystemCriticalPriority (system-cluster-critical)


class Record(PClass):
    """A pyrsistent PClass with a fast constructor for values the freezer already validated.

    `PClass(**kw)` checks and copies every field (about 3 us a field); a Pod has 30. The freezer
    validates while projecting, so it builds records with `trusted()`, which fills the same
    immutable slots directly. Everything else (`.set()`, equality, pickling) is plain PClass.
    """

    class _Trusted:
        """`Cls.trusted(**fields)`: the class's generated constructor (see `_trusted_constructor`)."""

        def __get__(self, obj: Any, cls: type) -> Any:
            build = _TRUSTED.get(cls)
            if build is None:
                build = _TRUSTED[cls] = _trusted_constructor(cls)
            return build

    trusted = _Trusted()


_TRUSTED: dict = {}


def _trusted_constructor(cls: type) -> Any:
    """A keyword-only constructor for `cls` that stores each field in its slot directly.

    Generated once per class (a loop over 30 fields with a dict lookup each costs more than the
    rest of a pod's projection). Missing fields take the field's initial value, as `PClass` does."""
    def slot(name: str) -> Any:
        for klass in cls.__mro__:
            if name in klass.__dict__:
                return klass.__dict__[name].__set__
        raise AttributeError(name)

    ns: dict = {"_new": object.__new__, "_cls": cls, "_frozen": slot("_pclass_frozen")}
    params, body = [], []
    for i, (name, f) in enumerate(cls._pclass_fields.items()):
        ns["_d%d" % i] = f.initial() if callable(f.initial) else f.initial
        ns["_s%d" % i] = slot(name)
        params.append("%s=_d%d" % (name, i))
        body.append("    _s%d(obj, %s)" % (i, name))
    src = "def trusted(*, %s):\n    obj = _new(_cls)\n%s\n    _frozen(obj, True)\n    return obj\n" % (
        ", ".join(params), "\n".join(body))
    exec(src, ns)
    return ns["trusted"]


class Node(Record):
    name = field(type=str, mandatory=True)
    uid = field(type=str, initial="")
    labels = field(initial=EMPTY_MAP)
    taints = field(type=tuple, initial=())
    unschedulable = field(type=bool, initial=False)
    conditions = field(initial=EMPTY_MAP)          # type -> Condition
    capacity = field(initial=EMPTY_MAP)            # resource -> units
    allocatable = field(initial=EMPTY_MAP)
    zone = field(type=str, initial="")          # GetZoneKey(node)
    creation_timestamp = field(initial=None)
    excluded_from_disruption = field(type=bool, initial=False)
    kubelet_version = field(type=str, initial="")     # status.nodeInfo.kubeletVersion

    def condition(self, ctype: str) -> Optional[Condition]:
        return self.conditions.get(ctype)

    def taint(self, key: str, effect: str) -> Optional[Taint]:
        """The node's taint of `key` and `effect` (the API server allows one of each pair)."""
        return next((t for t in self.taints if t.key == key and t.effect == effect), None)

    @property
    def ready_status(self) -> str:
        """`True`, `False`, `Unknown`, or `""` when the node never posted a Ready condition."""
        c = self.conditions.get("Ready")
        return c.status if c is not None else ""


class Pod(Record):
    namespace = field(type=str, mandatory=True)
    name = field(type=str, mandatory=True)
    uid = field(type=str, initial="")
    node_name = field(type=str, initial="")
    phase = field(type=str, initial="")
    priority = field(type=int, initial=0)
    priority_class_name = field(type=str, initial="")
    labels = field(initial=EMPTY_MAP)
    annotations = field(initial=EMPTY_MAP)         # only the annotations rules read
    controller = field(initial=None)            # OwnerRef with controller: true
    owner_refs = field(type=tuple, initial=())
    qos = field(type=str, initial="BestEffort")
    qos_v136 = field(type=str, initial="")        # QoS as v1.34-v1.36 compute it, when different (qos.pod_qos)
    containers = field(type=tuple, initial=())
    init_containers = field(type=tuple, initial=())
    overhead = field(initial=EMPTY_MAP)
    requests = field(initial=EMPTY_MAP)            # effective pod requests (scheduler's view)
    pod_level = field(initial=None)                # Container: spec.resources (PodLevelResources), None: unset
    tolerations = field(type=tuple, initial=())
    node_selector = field(initial=EMPTY_MAP)
    required_affinity = field(initial=None)     # NodeSelector or None
    preferred_affinity = field(type=tuple, initial=())
    required_during_execution = field(initial=None)   # NodeSelector or None
    anti_affinity_required = field(type=tuple, initial=())
    affinity_required = field(type=tuple, initial=())          # required podAffinity terms
    affinity_preferred = field(type=tuple, initial=())         # WeightedPodAffinityTerm
    anti_affinity_preferred = field(type=tuple, initial=())    # WeightedPodAffinityTerm
    spread_constraints = field(type=tuple, initial=())         # SpreadConstraint
    preemption_policy = field(type=str, initial="")            # "" = PreemptLowerPriority
    start_time = field(initial=None)                           # status.startTime, epoch seconds
    nominated_node_name = field(type=str, initial="")
    volumes = field(type=tuple, initial=())
    deletion_timestamp = field(initial=None)
    ready = field(type=bool, initial=False)
    termination_grace_period = field(type=int, initial=30)
    host_network = field(type=bool, initial=False)
    creation_timestamp = field(initial=None)
    resource_claims = field(type=tuple, initial=())            # PodResourceClaim (DRA)

    @property
    def key(self) -> Tuple[str, str]:
        return (self.namespace, self.name)

    @property
    def ref(self) -> str:
        return "%s/%s" % (self.namespace, self.name)

    @property
    def is_terminal(self) -> bool:
        return self.phase in ("Succeeded", "Failed")

    @property
    def is_mirror(self) -> bool:
        return "kubernetes.io/config.mirror" in self.annotations

    @property
    def is_static(self) -> bool:
        src = self.annotations.get("kubernetes.io/config.source")
        return src is not None and src != "api"

    @property
    def controller_kind(self) -> str:
        return self.controller.kind if self.controller is not None else ""

    @property
    def recreated_elsewhere(self) -> bool:
        """Does a controller bring a replacement up on another node once this pod is gone?
        Not for pods without a controller, DaemonSet pods, static/mirror pods (owned by their
        Node), nor finished pods (their controller is already done with them)."""
        return self.controller_kind not in ("", "DaemonSet", "Node") and not self.is_terminal


class PodDisruptionBudget(Record):
    namespace = field(type=str, mandatory=True)
    name = field(type=str, mandatory=True)
    uid = field(type=str, initial="")
    generation = field(type=int, initial=0)
    selector = field(initial=None)              # LabelSelector or None (matches nothing)
    min_available = field(initial=None)         # int, "NN%" or None
    max_unavailable = field(initial=None)
    unhealthy_pod_eviction_policy = field(type=str, initial="")
    has_status = field(type=bool, initial=False)
    observed_generation = field(type=int, initial=0)
    disruptions_allowed = field(type=int, initial=0)
    current_healthy = field(type=int, initial=0)
    desired_healthy = field(type=int, initial=0)
    expected_pods = field(type=int, initial=0)
    disrupted_pods = field(initial=EMPTY_MAP)      # pod name -> epoch seconds

    @property
    def ref(self) -> str:
        return "%s/%s" % (self.namespace, self.name)


class PriorityClass(Record):
    name = field(type=str, mandatory=True)
    value = field(type=int, initial=0)
    global_default = field(type=bool, initial=False)
    preemption_policy = field(type=str, initial="")


# scheduling.SystemPriorityClasses(): the API server creates these two at start-up and recreates
# them if deleted, so every cluster has them whether or not the input lists PriorityClasses.
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": PriorityClass(name="system-node-critical", value=SYSTEM_CRITICAL_PRIORITY + 1000),
    "system-cluster-critical": PriorityClass(name="system-cluster-critical", value=SYSTEM_CRITICAL_PRIORITY),
}


class PodFailureRule(NamedTuple):
    """One `spec.podFailurePolicy.rules` entry of a Job."""
    action: str                                   # FailJob | Ignore | Count | FailIndex
    on_conditions: Tuple[Tuple[str, str], ...]    # (type, status) patterns; status defaults to True
    on_exit_codes: bool = False                   # the rule matches on container exit codes


class Owner(Record):
    """A workload controller: DaemonSet, ReplicaSet, StatefulSet, Deployment, Job, RC."""
    kind = field(type=str, mandatory=True)
    namespace = field(type=str, mandatory=True)
    name = field(type=str, mandatory=True)
    uid = field(type=str, initial="")
    replicas = field(initial=None)              # spec.replicas (defaulted to 1), None for DaemonSets
    controller = field(initial=None)            # OwnerRef (ReplicaSet -> Deployment)
    selector = field(initial=None)              # LabelSelector
    pod_management_policy = field(type=str, initial="")   # StatefulSet: OrderedReady (default) | Parallel
    min_ready_seconds = field(type=int, initial=0)         # StatefulSet: spec.minReadySeconds
    start_ordinal = field(type=int, initial=0)             # StatefulSet: spec.ordinals.start
    # Job only: spec.backoffLimit (defaulted to 6, or 2147483647 with backoffLimitPerIndex), status.failed,
    # spec.podFailurePolicy.rules,
    # spec.backoffLimitPerIndex (None: not set)
    backoff_limit = field(type=int, initial=6)
    failed = field(type=int, initial=0)
    pod_failure_rules = field(type=tuple, initial=())      # PodFailureRule, in spec order
    backoff_limit_per_index = field(initial=None)
    # spec.podReplacementPolicy: defaulted by the API server (JobPodReplacementPolicy, on from v1.29)
    # to Failed with a podFailurePolicy, else TerminatingOrFailed
    pod_replacement_policy = field(type=str, initial="TerminatingOrFailed")
    # StatefulSet: rolling out (RollingUpdate strategy, status.currentRevision != updateRevision)
    # and spec.updateStrategy.rollingUpdate.maxUnavailable (int, "NN%" or None)
    rolling_out = field(type=bool, initial=False)
    max_unavailable = field(initial=None)
    # DaemonSet: its pod template's spec.nodeSelector and required node affinity, which the
    # DaemonSet controller matches nodes against (its pods carry only their node's name as affinity)
    template_node_selector = field(initial=None)     # FrozenMap, None for other kinds
    template_affinity = field(initial=None)          # NodeSelector or None

    @property
    def ref(self) -> str:
        return "%s %s/%s" % (self.kind, self.namespace, self.name)


class VolumeAttachment(Record):
    name = field(type=str, mandatory=True)
    node_name = field(type=str, initial="")
    attacher = field(type=str, initial="")
    pv_name = field(type=str, initial="")
    attached = field(type=bool, initial=False)


class PersistentVolumeClaim(Record):
    """What the volume plugins read of a claim (VolumeBinding, VolumeZone, NodeVolumeLimits,
    VolumeRestrictions). `storage_class` is None when neither the beta annotation nor
    `spec.storageClassName` is set (upstream tells "unset" from "")."""
    namespace = field(type=str, mandatory=True)
    name = field(type=str, mandatory=True)
    uid = field(type=str, initial="")
    volume_name = field(type=str, initial="")
    storage_class = field(initial=None)
    access_modes = field(type=tuple, initial=())
    request = field(type=int, initial=0)        # spec.resources.requests.storage, bytes
    selector = field(initial=None)              # LabelSelector or None
    volume_mode = field(type=str, initial="Filesystem")
    bind_completed = field(type=bool, initial=False)   # annotation pv.kubernetes.io/bind-completed
    selected_node = field(type=str, initial="")        # annotation volume.kubernetes.io/selected-node
    phase = field(type=str, initial="")
    deletion_timestamp = field(initial=None)
    owner_refs = field(type=tuple, initial=())

    @property
    def ref(self) -> str:
        return "%s/%s" % (self.namespace, self.name)


class PersistentVolume(Record):
    name = field(type=str, mandatory=True)
    labels = field(initial=EMPTY_MAP)
    node_affinity = field(initial=None)         # NodeSelector (spec.nodeAffinity.required) or None
    storage_class = field(type=str, initial="")
    capacity = field(type=int, initial=0)       # bytes
    access_modes = field(type=tuple, initial=())
    volume_mode = field(type=str, initial="Filesystem")
    phase = field(type=str, initial="")
    claim_ref = field(initial=None)             # (namespace, name, uid) or None
    csi_driver = field(type=str, initial="")
    csi_handle = field(type=str, initial="")
    in_tree = field(type=str, initial="")       # in-tree source plugin (kubernetes.io/aws-ebs...), "" for CSI
    in_tree_id = field(type=str, initial="")    # its volume id (for CSI migration counting)
    deletion_timestamp = field(initial=None)


class StorageClass(Record):
    name = field(type=str, mandatory=True)
    provisioner = field(type=str, initial="")
    binding_mode = field(type=str, initial="")  # Immediate | WaitForFirstConsumer | "" (unset)
    allowed_topologies = field(initial=None)    # NodeSelector or None (any node)


class CSINode(Record):
    name = field(type=str, mandatory=True)
    drivers = field(initial=EMPTY_MAP)             # driver name -> allocatable count (None: no limit)
    migrated_plugins = field(type=tuple, initial=())


class CSIDriver(Record):
    name = field(type=str, mandatory=True)
    storage_capacity = field(type=bool, initial=False)


class Namespace(Record):
    name = field(type=str, mandatory=True)
    labels = field(initial=EMPTY_MAP)


# --- Dynamic Resource Allocation (resource.k8s.io/v1) -------------------------------------

DRA_KINDS = ("ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "ResourceSlice")


class DeviceRequest(NamedTuple):
    """One `spec.devices.requests[]` entry of a ResourceClaim (or its template): `exactly`, or
    the v1beta1 flat form. `alternatives` are the `firstAvailable` subrequests (then the request
    itself names no class). CEL `selectors` are counted, not evaluated (README)."""
    name: str
    device_class: str
    mode: str = "ExactCount"               # ExactCount | All
    count: int = 1
    selectors: int = 0
    tolerations: Tuple[Toleration, ...] = ()
    alternatives: Tuple["DeviceRequest", ...] = ()


class AllocatedDevice(NamedTuple):
    """`status.allocation.devices.results[]`: the device a request got, with the tolerations
    copied from the request at allocation time (what the device taint eviction controller reads)."""
    request: str
    driver: str
    pool: str
    device: str
    tolerations: Tuple[Toleration, ...] = ()


class PodResourceClaim(NamedTuple):
    """`pod.spec.resourceClaims[]`: a named claim, or a template the resourceclaim controller
    instantiates per pod (`generated`: the claim's name from `status.resourceClaimStatuses`)."""
    name: str
    claim_name: str = ""
    template_name: str = ""
    generated: str = ""


class Device(NamedTuple):
    name: str
    taints: Tuple[Taint, ...] = ()
    node_name: str = ""          # per-device node selection (`perDeviceNodeSelection` slices)
    all_nodes: bool = False


class ResourceClaim(Record):
    namespace = field(type=str, mandatory=True)
    name = field(type=str, mandatory=True)
    uid = field(type=str, initial="")
    requests = field(type=tuple, initial=())            # DeviceRequest
    allocated = field(type=bool, initial=False)
    node_selector = field(initial=None)                 # status.allocation.nodeSelector: NodeSelector or None
    devices = field(type=tuple, initial=())             # AllocatedDevice
    reserved_for = field(type=tuple, initial=())        # (resource, name, uid) of status.reservedFor
    deletion_timestamp = field(initial=None)
    owner_refs = field(type=tuple, initial=())

    @property
    def ref(self) -> str:
        return "%s/%s" % (self.namespace, self.name)


class ResourceClaimTemplate(Record):
    namespace = field(type=str, mandatory=True)
    name = field(type=str, mandatory=True)
    requests = field(type=tuple, initial=())            # DeviceRequest of spec.spec.devices.requests


class DeviceClass(Record):
    """`drivers`: the drivers its CEL selectors pin with `device.driver == "..."` (empty: the
    selectors say nothing we read, and any device is taken to match)."""
    name = field(type=str, mandatory=True)
    drivers = field(type=tuple, initial=())
    selectors = field(type=int, initial=0)


class ResourceSlice(Record):
    name = field(type=str, mandatory=True)
    driver = field(type=str, initial="")
    pool = field(type=str, initial="")
    node_name = field(type=str, initial="")
    all_nodes = field(type=bool, initial=False)
    node_selector = field(initial=None)                 # NodeSelector or None
    devices = field(type=tuple, initial=())             # Device


class SnapshotInfo(Record):
    """Where and when the snapshot was taken, and which kinds it holds in full.

    `kinds`: every kind the source read in full (`SnapshotInfo.kinds` of the input, which live
    reads and `snapshot` write, united with the kinds that appear in the input). A kind not in
    it says nothing: rules must not assert the absence of its objects (see `Snapshot.holds`)."""
    taken_at = field(initial=None)              # epoch seconds or None
    context = field(type=str, initial="")
    server = field(type=str, initial="")
    server_version = field(type=str, initial="")
    kinds = field(type=tuple, initial=())       # sorted kind names held in full
    read_warnings = field(type=tuple, initial=())   # SnapshotInfo.warnings: what went wrong reading the cluster
    assumed_version = field(type=str, initial="")   # --kubernetes-version (overrides the rest)


class Snapshot(PClass):
    """Everything the rules read. Indexes are built once, at freeze time.

    "Changing" the snapshot (a what-if relabel) goes through `with_node`, which returns a new
    value sharing everything it did not touch.
    """
    nodes = field(initial=EMPTY_MAP)               # name -> Node
    pods = field(initial=pvector())             # every pod, sorted by (namespace, name)
    pods_by_key = field(initial=EMPTY_MAP)         # (namespace, name) -> Pod
    pods_by_node = field(initial=EMPTY_MAP)        # node name -> tuple[Pod] sorted by (ns, name)
    pods_by_owner = field(initial=EMPTY_MAP)       # controller uid -> tuple[Pod]
    pdbs = field(initial=EMPTY_MAP)                # (namespace, name) -> PodDisruptionBudget
    pdbs_by_namespace = field(initial=EMPTY_MAP)   # namespace -> tuple[PodDisruptionBudget]
    priority_classes = field(initial=EMPTY_MAP)    # name -> PriorityClass
    owners = field(initial=EMPTY_MAP)              # (kind, namespace, name) -> Owner
    owners_by_uid = field(initial=EMPTY_MAP)       # uid -> Owner
    volume_attachments = field(initial=pvector())
    leases = field(initial=EMPTY_MAP)              # node name -> renewTime (epoch seconds)
    kubelet_configs = field(initial=EMPTY_MAP)     # node name -> LazyJSON kubeletconfig mapping
    stats = field(initial=EMPTY_MAP)               # node name -> LazyJSON stats/summary ({node, pods})
    nodes_by_zone = field(initial=EMPTY_MAP)       # zone key -> tuple[node name]
    pvcs = field(initial=EMPTY_MAP)                # (namespace, name) -> PersistentVolumeClaim
    pvs = field(initial=EMPTY_MAP)                 # name -> PersistentVolume
    storage_classes = field(initial=EMPTY_MAP)     # name -> StorageClass
    csi_nodes = field(initial=EMPTY_MAP)           # node name -> CSINode
    csi_drivers = field(initial=EMPTY_MAP)         # name -> CSIDriver
    namespaces = field(initial=EMPTY_MAP)          # name -> Namespace
    resource_claims = field(initial=EMPTY_MAP)     # (namespace, name) -> ResourceClaim
    claim_templates = field(initial=EMPTY_MAP)     # (namespace, name) -> ResourceClaimTemplate
    device_classes = field(initial=EMPTY_MAP)      # name -> DeviceClass
    resource_slices = field(type=tuple, initial=())   # ResourceSlice, by name
    info = field(initial=SnapshotInfo())
    warnings = field(type=tuple, initial=())

    def node(self, name: str) -> Optional[Node]:
        return self.nodes.get(name)

    def named_node(self, name: str, flag: str) -> Node:
        """The node a command line names (`flag`: where), or the input error every command gives
        for a node the snapshot does not have."""
        node = self.nodes.get(name)
        if node is None:
            raise InputError("unknown node %r (not in the snapshot%s)" % (name, self.no_nodes_hint()), field=flag)
        return node

    def no_nodes_hint(self) -> str:
        """What a missing-node error adds when the input holds no Node at all (a pod list alone,
        a support bundle's pods): the nodes were left out, not the one named."""
        if self.nodes:
            return ""
        return ("; the input holds no Node objects: give them too, e.g. kubectl get nodes -o json" if not
                self.holds("Node") else "; the cluster has no nodes")

    def holds(self, kind: str) -> bool:
        """Does the input hold every object of `kind`? Only then is "no such object" a fact;
        otherwise the plan lists the kind in `incomplete` and says "not in the input"."""
        return kind in self.info.kinds

    def pods_on(self, node_name: str) -> Tuple[Pod, ...]:
        return self.pods_by_node.get(node_name, ())

    def with_node(self, node: Node) -> "Snapshot":
        """A new snapshot where `node` replaces the node of the same name."""
        old = self.nodes.get(node.name)
        zones = self.nodes_by_zone
        if old is None or old.zone != node.zone:
            if old is not None:
                zones = zones.set(old.zone, tuple(n for n in zones.get(old.zone, ()) if n != node.name))
            zones = zones.set(node.zone, tuple(sorted(zones.get(node.zone, ()) + (node.name,))))
        return self.set(nodes=self.nodes.set(node.name, node), nodes_by_zone=zones)
