"""Signal observations and per-pod usage from a node's `/stats/summary`.

Models `makeSignalObservations` and the usage helpers of `pkg/kubelet/eviction/helpers.go`
(v1.30-v1.37, Linux, swap not counted; v1.37's hugepage-aware memory.available: `hugepage_aware`). The summary is the snapshot's frozen raw mapping; only the
handful of numbers the eviction manager reads are projected, and per-pod usage only for the nodes
that actually need ranking, so a 5,000-node snapshot costs a few lookups per node.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple, TypedDict

from kubectl_evict.eviction.thresholds import (ALLOCATABLE_MEMORY, CONTAINERFS, CONTAINERFS_INODES, IMAGEFS,
                                               IMAGEFS_INODES, MEMORY, NODEFS, NODEFS_INODES, PID, Observation)
from kubectl_evict.errors import InputError, json_type
from kubectl_evict.model import Pod, Volume, decode_json

try:
    import msgspec
except ImportError:  # pragma: no cover - the stdlib path keeps whole summaries
    msgspec = None  # type: ignore[assignment]

_EMPTY: Mapping[str, Any] = {}

SINGLE = "single"        # one filesystem: nodefs, imagefs and containerfs are the same device
IMAGEFS_LAYOUT = "imagefs"   # dedicated imagefs holding images and writable layers
SPLIT = "split"          # images on imagefs, writable layers with nodefs (KubeletSeparateDiskGC)

LAYOUT_TEXT = {SINGLE: "a single filesystem", IMAGEFS_LAYOUT: "a dedicated imagefs",
               SPLIT: "a split image/container filesystem"}


# --- the fields of a summary this module reads -------------------------------------------------
# A node's /stats/summary carries far more than the eviction manager reads (cpu, network
# interfaces, accelerators, swap, user-defined metrics): `pressure` over 5,000 nodes spent 2.3 s
# decoding whole summaries. Decoded with this schema, everything else is skipped at C speed.
# Every key the readers below use is listed; leaves stay `Any` (the readers check them), and a
# summary whose shape the schema refuses (an object where a list belongs) is decoded whole, as
# before, so odd input reads the same either way.

_Value = Dict[str, Any]
_SummaryFs = TypedDict("_SummaryFs", {"availableBytes": Any, "capacityBytes": Any, "inodesFree": Any,
                                      "inodes": Any, "inodesUsed": Any, "usedBytes": Any, "time": Any}, total=False)
_SummaryMemory = TypedDict("_SummaryMemory", {"availableBytes": Any, "workingSetBytes": Any, "time": Any},
                           total=False)
_SummarySystemContainer = TypedDict("_SummarySystemContainer", {"name": Any, "memory": Optional[_SummaryMemory]},
                                    total=False)
_SummaryRuntime = TypedDict("_SummaryRuntime", {"imageFs": Optional[_SummaryFs], "containerFs": Optional[_SummaryFs]},
                            total=False)
_SummaryRlimit = TypedDict("_SummaryRlimit", {"maxpid": Any, "curproc": Any, "time": Any}, total=False)
_SummaryNode = TypedDict("_SummaryNode", {"nodeName": Any, "memory": Optional[_SummaryMemory],
                                          "systemContainers": Optional[List[_SummarySystemContainer]],
                                          "fs": Optional[_SummaryFs], "runtime": Optional[_SummaryRuntime],
                                          "rlimit": Optional[_SummaryRlimit]}, total=False)
_SummaryContainer = TypedDict("_SummaryContainer", {"name": Any, "rootfs": Optional[_SummaryFs],
                                                    "logs": Optional[_SummaryFs],
                                                    "memory": Optional[_SummaryMemory]}, total=False)
_SummaryVolume = TypedDict("_SummaryVolume", {"name": Any, "usedBytes": Any, "inodesUsed": Any}, total=False)
_SummaryProcesses = TypedDict("_SummaryProcesses", {"process_count": Any}, total=False)
_SummaryPodRef = TypedDict("_SummaryPodRef", {"uid": Any, "namespace": Any, "name": Any}, total=False)
_SummaryPod = TypedDict("_SummaryPod", {"podRef": Optional[_SummaryPodRef],
                                        "containers": Optional[List[_SummaryContainer]],
                                        "volume": Optional[List[_SummaryVolume]],
                                        "memory": Optional[_SummaryMemory],
                                        "ephemeral-storage": Optional[_SummaryFs],
                                        "process_stats": Optional[_SummaryProcesses]}, total=False)
_Summary = TypedDict("_Summary", {"node": Optional[_SummaryNode], "pods": Optional[List[_SummaryPod]]},
                     total=False)

_summary_decoder: Optional[Callable[[bytes], Any]] = (
    msgspec.json.Decoder(_Summary).decode if msgspec is not None else None)


def decode_summary(data: bytes) -> Any:
    """A /stats/summary document's JSON text, decoded to the fields this module reads (the whole
    document without msgspec, or when its shape is not the schema's: then errors read as
    before). Raises ValueError for text that is no JSON, or not UTF-8 even where nothing reads it
    (the schema's decoder skips such fields unchecked)."""
    if _summary_decoder is not None and (data.isascii() or _utf8(data)):
        try:
            return _summary_decoder(data)
        except (ValueError, RecursionError):   # msgspec's DecodeError and ValidationError
            pass
    return decode_json(data)


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def prune_summary(value: _Value) -> _Value:
    """An already parsed summary (the stdlib and YAML paths) cut to what `decode_summary` keeps,
    so that a snapshot reads the same whichever path parsed it."""
    if msgspec is not None:
        try:
            return msgspec.convert(value, _Summary)
        except (ValueError, RecursionError):
            pass
    return value


# --- reading with types checked ---------------------------------------------------------------
# The kubelet omits what it cannot measure (the upstream fields are pointers: *uint64), so an
# absent or null value reads as "not observed". A value of the wrong type is no omission but
# broken input: it is an error naming the file, the NodeStatsSummary and the field, raised where
# the value is read (the summary is decoded lazily, per node a rule looks at; no second walk).
# `top` is the summary being read: its `where` (a LazyJSON's file, object and field) locates the
# error; `path` is the field path inside it. Checks that pass cost one class test.

_UINT64_MAX = 2 ** 64 - 1
_INT64 = (-2 ** 63, 2 ** 63 - 1)
_INF = float("inf")


def _bad(top: Any, path: str, problem: str) -> InputError:
    where = tuple(getattr(top, "where", ())) + (None, None, None)
    field = "%s.%s" % (where[2], path) if where[2] else path
    return InputError(problem, source=where[0], obj=where[1], field=field)


def _join(path: str, key: str) -> str:
    return "%s.%s" % (path, key) if path else key


def _m(top: Any, d: Mapping[str, Any], key: str, path: str) -> Mapping[str, Any]:
    """Object `key` of `d` (at `path`), or an empty one when absent."""
    v = d.get(key)
    if v is None:
        return _EMPTY
    if v.__class__ is dict or hasattr(v, "get"):
        return v
    raise _bad(top, _join(path, key), "expected an object, found %s" % json_type(v))


def _objects(top: Any, d: Mapping[str, Any], key: str, path: str) -> Iterator[Tuple[int, Mapping[str, Any]]]:
    """(index, object) for each object of list `key`; null items read as absent (Go decodes a
    null list element to a zero struct), anything else is an error."""
    v = d.get(key)
    if v is None:
        return
    if not isinstance(v, list):
        raise _bad(top, _join(path, key), "expected a list, found %s" % json_type(v))
    for i, x in enumerate(v):
        if x.__class__ is dict or hasattr(x, "get"):
            yield i, x
        elif x is not None:
            raise _bad(top, "%s[%d]" % (_join(path, key), i), "expected an object, found %s" % json_type(x))


def _int(top: Any, d: Mapping[str, Any], key: str, path: str, signed: bool = False) -> Optional[int]:
    """Number `key` of `d`: a uint64 upstream (bytes, inodes, counts), or an int64 when `signed`
    (rlimit's maxpid and curproc); None when absent."""
    v = d.get(key)
    if v is None or (v.__class__ is int and 0 <= v <= _UINT64_MAX):
        return v
    return _odd_int(top, v, _join(path, key), signed)


def _odd_int(top: Any, v: Any, path: str, signed: bool) -> int:
    if isinstance(v, float):
        if v in (_INF, -_INF):                    # 1e400 decodes to infinity
            raise _bad(top, path, "out of range (%s), found %s" % ("int64" if signed else "uint64", v))
        if v.is_integer():                        # 1e9 from YAML or a hand-written file
            v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise _bad(top, path, "expected a whole number, found %s" % json_type(v))
    lo, hi = _INT64 if signed else (0, _UINT64_MAX)
    if v < 0 and not signed:
        raise _bad(top, path, "must not be negative (a uint64 in the kubelet's Summary API), found %d" % v)
    if not lo <= v <= hi:
        raise _bad(top, path, "out of range (%s), found %d" % ("int64" if signed else "uint64", v))
    return v


def _text(top: Any, d: Mapping[str, Any], key: str, path: str) -> str:
    """String `key` of `d`, or "" when absent."""
    v = d.get(key)
    if v is None:
        return ""
    if v.__class__ is str:
        return v
    raise _bad(top, _join(path, key), "expected a string, found %s" % json_type(v))


def _fs_key(top: Any, fs: Mapping[str, Any], path: str) -> Tuple[Any, Any]:
    return (_int(top, fs, "capacityBytes", path), _int(top, fs, "availableBytes", path))


def disk_layout(summary: Mapping[str, Any]) -> str:
    """Which disk layout the summary shows (the kubelet asks cadvisor for devices; the summary
    only has sizes, so filesystems reporting the same capacity and free bytes are one device)."""
    top = summary
    node = _m(top, summary, "node", "")
    fs = _fs_key(top, _m(top, node, "fs", "node"), "node.fs")
    rt = _m(top, node, "runtime", "node")
    image = _m(top, rt, "imageFs", "node.runtime")
    ikey = _fs_key(top, image, "node.runtime.imageFs") if image else None
    if not image or ikey == fs:
        return SINGLE
    cont = _m(top, rt, "containerFs", "node.runtime")
    if cont:
        ckey = _fs_key(top, cont, "node.runtime.containerFs")
        if ckey == fs and ckey != ikey:
            return SPLIT
    return IMAGEFS_LAYOUT


def _pods_memory(top: Any, node: Mapping[str, Any]) -> Optional[Tuple[str, Mapping[str, Any]]]:
    """(path, memory stats) of the `pods` system container (the allocatable cgroup), if listed."""
    for i, sc in _objects(top, node, "systemContainers", "node"):
        p = "node.systemContainers[%d]" % i
        if _text(top, sc, "name", p) == "pods":
            return p + ".memory", _m(top, sc, "memory", p)
    return None


def observations(summary: Mapping[str, Any]) -> Dict[str, Observation]:
    """helpers.go makeSignalObservations: a signal is observed only when both fields are set."""
    out: Dict[str, Observation] = {}
    top = summary
    node = _m(top, summary, "node", "")
    mem = _m(top, node, "memory", "node")
    avail, ws = _int(top, mem, "availableBytes", "node.memory"), _int(top, mem, "workingSetBytes", "node.memory")
    if avail is not None and ws is not None:
        out[MEMORY] = Observation(avail, avail + ws, mem.get("time"))
    pods = _pods_memory(top, node)
    if pods is not None:
        path, pm = pods
        avail, ws = _int(top, pm, "availableBytes", path), _int(top, pm, "workingSetBytes", path)
        if avail is not None and ws is not None:
            out[ALLOCATABLE_MEMORY] = Observation(avail, avail + ws, pm.get("time"))
    rt = _m(top, node, "runtime", "node")
    for key, parent, path, sig_bytes, sig_inodes in (("fs", node, "node.fs", NODEFS, NODEFS_INODES),
                                                     ("imageFs", rt, "node.runtime.imageFs", IMAGEFS, IMAGEFS_INODES),
                                                     ("containerFs", rt, "node.runtime.containerFs", CONTAINERFS,
                                                      CONTAINERFS_INODES)):
        fs = _m(top, parent, key, path.rsplit(".", 1)[0])
        a, c = _int(top, fs, "availableBytes", path), _int(top, fs, "capacityBytes", path)
        if a is not None and c is not None:
            out[sig_bytes] = Observation(a, c, fs.get("time"))
        a, c = _int(top, fs, "inodesFree", path), _int(top, fs, "inodes", path)
        if a is not None and c is not None:
            out[sig_inodes] = Observation(a, c, fs.get("time"))
    rl = _m(top, node, "rlimit", "node")
    mx, cur = _int(top, rl, "maxpid", "node.rlimit", signed=True), _int(top, rl, "curproc", "node.rlimit", signed=True)
    if mx is not None and cur is not None:
        out[PID] = Observation(mx - cur, mx, rl.get("time"))
    return out


def hugepage_bytes(capacity: Mapping[str, int]) -> int:
    """The node's pre-allocated hugepages in bytes: the sum of its `hugepages-<size>` capacity."""
    return sum(v for k, v in capacity.items() if k.startswith("hugepages-"))


def hugepage_aware(obs: Dict[str, Observation], hugepages: int) -> Dict[str, Observation]:
    """`memory.available` without the hugepage reservation, as the v1.37 kubelet's summary API
    reports it (HugepageAwareEviction, #138127: `adjustForHugePages` in
    pkg/kubelet/server/stats/summary.go subtracts the node's total hugepage capacity from
    AvailableBytes, clamped at 0). Older kubelets count the reserved pages as available. The
    signal's capacity is available + working set (`makeSignalObservations`), so it drops by as much."""
    o = obs.get(MEMORY)
    if o is None or not hugepages:
        return obs
    avail = max(0, o.available - hugepages)
    out = dict(obs)
    out[MEMORY] = o._replace(available=avail,
                             capacity=None if o.capacity is None else o.capacity - (o.available - avail))
    return out


def non_pod_memory(summary: Mapping[str, Any]) -> Optional[int]:
    """Working set outside the `pods` cgroup (OS, kubelet, runtime), or None if not reported."""
    top = summary
    node = _m(top, summary, "node", "")
    ws = _int(top, _m(top, node, "memory", "node"), "workingSetBytes", "node.memory")
    pods = _pods_memory(top, node)
    if pods is not None:
        pws = _int(top, pods[1], "workingSetBytes", pods[0])
        if ws is not None and pws is not None:
            return ws - pws
    return None


class ContainerUsage(NamedTuple):
    name: str
    working_set: Optional[int]
    rootfs_bytes: Optional[int]
    logs_bytes: Optional[int]
    rootfs_inodes: int
    logs_inodes: int


class PodUsage(NamedTuple):
    """What the eviction manager reads from one PodStats entry."""
    working_set: int                     # memoryUsage(podStats.Memory), 0 when absent
    containers: Tuple[ContainerUsage, ...]
    volumes: Mapping[str, Tuple[int, int]]   # name -> (usedBytes, inodesUsed)
    ephemeral: Optional[int]             # podStats["ephemeral-storage"].usedBytes
    processes: int


def pod_usage(ps: Mapping[str, Any], top: Any = None, path: str = "") -> PodUsage:
    """One PodStats entry (at `path` of summary `top`, which locates errors)."""
    conts = []
    for i, c in _objects(top, ps, "containers", path):
        p = _join(path, "containers[%d]" % i)
        root, logs, mem = _m(top, c, "rootfs", p), _m(top, c, "logs", p), _m(top, c, "memory", p)
        conts.append(ContainerUsage(_text(top, c, "name", p), _int(top, mem, "workingSetBytes", p + ".memory"),
                                    _int(top, root, "usedBytes", p + ".rootfs"), _int(top, logs, "usedBytes", p + ".logs"),
                                    _int(top, root, "inodesUsed", p + ".rootfs") or 0,
                                    _int(top, logs, "inodesUsed", p + ".logs") or 0))
    vols = {}
    for i, v in _objects(top, ps, "volume", path):
        p = _join(path, "volume[%d]" % i)
        vols[_text(top, v, "name", p)] = (_int(top, v, "usedBytes", p) or 0, _int(top, v, "inodesUsed", p) or 0)
    return PodUsage(_int(top, _m(top, ps, "memory", path), "workingSetBytes", _join(path, "memory")) or 0,
                    tuple(conts), vols,
                    _int(top, _m(top, ps, "ephemeral-storage", path), "usedBytes", _join(path, "ephemeral-storage")),
                    _int(top, _m(top, ps, "process_stats", path), "process_count", _join(path, "process_stats")) or 0)


class PodUsages(Mapping):
    """PodStats by pod UID (helpers.go cachedStatsFunc keys on podRef.uid); entries without a
    UID are keyed `namespace/name` so hand-written summaries still match. A later entry for the
    same key wins.

    Each entry becomes a `PodUsage` only when read: a node that needs only its few pods with
    local-storage limits checked never pays for the others."""

    __slots__ = ("_raw", "_done", "_top")

    def __init__(self, summary: Mapping[str, Any]) -> None:
        raw: Dict[str, Tuple[int, Any]] = {}
        top = self._top = summary
        for i, ps in _objects(top, summary, "pods", ""):
            ref = ps.get("podRef")
            if ref.__class__ is not dict:
                ref = _m(top, ps, "podRef", "pods[%d]" % i)
            uid = ref.get("uid")
            if uid.__class__ is not str:   # absent, or the wrong type (the error names it)
                uid = _text(top, ref, "uid", "pods[%d].podRef" % i)
            raw[uid or "%s/%s" % (_text(top, ref, "namespace", "pods[%d].podRef" % i) or "default",
                                  _text(top, ref, "name", "pods[%d].podRef" % i))] = (i, ps)
        self._raw = raw
        self._done: Dict[str, PodUsage] = {}

    def __getitem__(self, key: str) -> PodUsage:
        u = self._done.get(key)
        if u is None:
            i, ps = self._raw[key]
            u = self._done[key] = pod_usage(ps, self._top, "pods[%d]" % i)
        return u

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self._raw else default

    def __contains__(self, key: object) -> bool:
        return key in self._raw

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)


def pod_usages(summary: Mapping[str, Any]) -> Mapping[str, PodUsage]:
    """The summary's per-pod usage (see `PodUsages`)."""
    return PodUsages(summary)


def usage_for(usages: Mapping[str, PodUsage], pod: Pod) -> Optional[PodUsage]:
    if pod.uid:
        u = usages.get(pod.uid)
        if u is not None:
            return u
    return usages.get("%s/%s" % (pod.namespace, pod.name))


def local_volume_names(volumes: Sequence[Volume]) -> Tuple[str, ...]:
    """helpers.go localVolumeNames: hostPath plus IsLocalEphemeralVolume (gitRepo, disk-backed
    emptyDir, configMap)."""
    return tuple(v.name for v in volumes
                 if v.kind in ("hostPath", "gitRepo", "configMap") or (v.kind == "emptyDir" and v.medium == ""))


# fs stats measured per disk signal and layout (helpers.go buildSignalToRankFunc)
ROOT, LOGS, LOCAL = "root", "logs", "localVolumeSource"


def fs_stats_to_measure(signal: str, layout: str) -> Tuple[str, ...]:
    if layout == IMAGEFS_LAYOUT:
        return (LOGS, LOCAL) if signal in (NODEFS, NODEFS_INODES) else (ROOT,)
    if layout == SPLIT:
        return () if signal in (IMAGEFS, IMAGEFS_INODES) else (LOGS, LOCAL, ROOT)
    return (ROOT, LOGS, LOCAL)


# what the kubelet reclaims on the node before it evicts pods (helpers.go buildSignalToNodeReclaimFuncs)
_DELETE_ALL = "dead containers and unused images"


def node_reclaim(signal: str, layout: str) -> str:
    """What node-level reclaim deletes for `signal` on `layout` before any pod is evicted, "" when
    nothing: memory and PID have no reclaim functions, and with a dedicated imagefs nodefs
    pressure has none either; the split layout deletes images for imagefs pressure and dead
    containers for nodefs and containerfs pressure."""
    if signal not in (NODEFS, NODEFS_INODES, IMAGEFS, IMAGEFS_INODES, CONTAINERFS, CONTAINERFS_INODES):
        return ""
    if layout == IMAGEFS_LAYOUT:
        return "" if signal in (NODEFS, NODEFS_INODES) else _DELETE_ALL
    if layout == SPLIT:
        return "unused images" if signal in (IMAGEFS, IMAGEFS_INODES) else "dead containers"
    return _DELETE_ALL


def pod_disk_usage(u: PodUsage, pod: Pod, measure: Sequence[str]) -> Tuple[int, int]:
    """helpers.go podDiskUsage: (bytes, inodes) over the measured fs stats."""
    disk = inodes = 0
    for c in u.containers:
        if ROOT in measure:
            disk += c.rootfs_bytes or 0
            inodes += c.rootfs_inodes
        if LOGS in measure:
            disk += c.logs_bytes or 0
            inodes += c.logs_inodes
    if LOCAL in measure:
        for name in local_volume_names(pod.volumes):
            v = u.volumes.get(name)
            if v is not None:
                disk += v[0]
                inodes += v[1]
    return disk, inodes
