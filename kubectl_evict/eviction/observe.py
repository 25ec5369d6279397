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


def _m(d: Any, key: str) -> Mapping[str, Any]:
    v = d.get(key) if d is not None else None
    return v if v is not None and hasattr(v, "get") else _EMPTY


def _objects(d: Mapping[str, Any], key: str) -> Iterator[Mapping[str, Any]]:
    """The objects of list `key` (anything else in the list, or a non-list, reads as absent)."""
    v = d.get(key)
    if isinstance(v, list):
        for x in v:
            if hasattr(x, "get"):
                yield x


def _int(v: Any) -> Optional[int]:
    if v is None or isinstance(v, bool):
        return None
    try:
        return int(v)
    except (TypeError, ValueError, OverflowError):   # OverflowError: 1e400 decodes to infinity
        return None


def _fs_key(fs: Mapping[str, Any]) -> Tuple[Any, Any]:
    return (fs.get("capacityBytes"), fs.get("availableBytes"))


def disk_layout(summary: Mapping[str, Any]) -> str:
    """Which disk layout the summary shows (the kubelet asks cadvisor for devices; the summary
    only has sizes, so filesystems reporting the same capacity and free bytes are one device)."""
    node = _m(summary, "node")
    fs = _m(node, "fs")
    rt = _m(node, "runtime")
    image = _m(rt, "imageFs")
    if not image or _fs_key(image) == _fs_key(fs):
        return SINGLE
    cont = _m(rt, "containerFs")
    if cont and _fs_key(cont) == _fs_key(fs) and _fs_key(cont) != _fs_key(image):
        return SPLIT
    return IMAGEFS_LAYOUT


def observations(summary: Mapping[str, Any]) -> Dict[str, Observation]:
    """helpers.go makeSignalObservations: a signal is observed only when both fields are set."""
    out: Dict[str, Observation] = {}
    node = _m(summary, "node")
    mem = _m(node, "memory")
    avail, ws = _int(mem.get("availableBytes")), _int(mem.get("workingSetBytes"))
    if avail is not None and ws is not None:
        out[MEMORY] = Observation(avail, avail + ws, mem.get("time"))
    for sc in _objects(node, "systemContainers"):
        if sc.get("name") == "pods":
            pm = _m(sc, "memory")
            avail, ws = _int(pm.get("availableBytes")), _int(pm.get("workingSetBytes"))
            if avail is not None and ws is not None:
                out[ALLOCATABLE_MEMORY] = Observation(avail, avail + ws, pm.get("time"))
            break
    rt = _m(node, "runtime")
    for fs, sig_bytes, sig_inodes in ((_m(node, "fs"), NODEFS, NODEFS_INODES),
                                      (_m(rt, "imageFs"), IMAGEFS, IMAGEFS_INODES),
                                      (_m(rt, "containerFs"), CONTAINERFS, CONTAINERFS_INODES)):
        a, c = _int(fs.get("availableBytes")), _int(fs.get("capacityBytes"))
        if a is not None and c is not None:
            out[sig_bytes] = Observation(a, c, fs.get("time"))
        a, c = _int(fs.get("inodesFree")), _int(fs.get("inodes"))
        if a is not None and c is not None:
            out[sig_inodes] = Observation(a, c, fs.get("time"))
    rl = _m(node, "rlimit")
    mx, cur = _int(rl.get("maxpid")), _int(rl.get("curproc"))
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
    node = _m(summary, "node")
    ws = _int(_m(node, "memory").get("workingSetBytes"))
    for sc in _objects(node, "systemContainers"):
        if sc.get("name") == "pods":
            pws = _int(_m(sc, "memory").get("workingSetBytes"))
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


def pod_usage(ps: Mapping[str, Any]) -> PodUsage:
    conts = []
    for c in _objects(ps, "containers"):
        root, logs, mem = _m(c, "rootfs"), _m(c, "logs"), _m(c, "memory")
        conts.append(ContainerUsage(c.get("name") or "", _int(mem.get("workingSetBytes")),
                                    _int(root.get("usedBytes")), _int(logs.get("usedBytes")),
                                    _int(root.get("inodesUsed")) or 0, _int(logs.get("inodesUsed")) or 0))
    vols = {}
    for v in _objects(ps, "volume"):
        vols[v.get("name") or ""] = (_int(v.get("usedBytes")) or 0, _int(v.get("inodesUsed")) or 0)
    return PodUsage(_int(_m(ps, "memory").get("workingSetBytes")) or 0, tuple(conts), vols,
                    _int(_m(ps, "ephemeral-storage").get("usedBytes")),
                    _int(_m(ps, "process_stats").get("process_count")) or 0)


class PodUsages(Mapping):
    """PodStats by pod UID (helpers.go cachedStatsFunc keys on podRef.uid); entries without a
    UID are keyed `namespace/name` so hand-written summaries still match. A later entry for the
    same key wins.

    Each entry becomes a `PodUsage` only when read: a node that needs only its few pods with
    local-storage limits checked never pays for the others."""

    __slots__ = ("_raw", "_done")

    def __init__(self, summary: Mapping[str, Any]) -> None:
        raw: Dict[str, Any] = {}
        for ps in _objects(summary, "pods"):
            ref = _m(ps, "podRef")
            raw[ref.get("uid") or "%s/%s" % (ref.get("namespace") or "default", ref.get("name") or "")] = ps
        self._raw = raw
        self._done: Dict[str, PodUsage] = {}

    def __getitem__(self, key: str) -> PodUsage:
        u = self._done.get(key)
        if u is None:
            u = self._done[key] = pod_usage(self._raw[key])
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
