"""Eviction thresholds: parsing, defaults, quantities and `thresholdsMet`.

Models `pkg/kubelet/eviction/helpers.go` (`ParseThresholdConfig`, `parseThresholdStatement`,
`parseGracePeriods`, `parseMinimumReclaims`, `addAllocatableThresholds`,
`UpdateContainerFsThresholds`, `thresholdsMet`) and `api/types.go` (`GetThresholdQuantity`) of
kubelet v1.30-v1.37 (unchanged), including the float32 arithmetic of percentages and the exact error texts,
because users paste these thresholds from their kubelet flags and expect the kubelet's verdict.
"""

from __future__ import annotations

import math
import re
import struct
from fractions import Fraction
from typing import Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from kubectl_evict.errors import ValueParseError
from kubectl_evict.quantity import parse_quantity
from kubectl_evict.timeutil import parse_duration

MEMORY = "memory.available"
ALLOCATABLE_MEMORY = "allocatableMemory.available"
NODEFS = "nodefs.available"
NODEFS_INODES = "nodefs.inodesFree"
IMAGEFS = "imagefs.available"
IMAGEFS_INODES = "imagefs.inodesFree"
CONTAINERFS = "containerfs.available"
CONTAINERFS_INODES = "containerfs.inodesFree"
PID = "pid.available"

# helpers.go signalToResource: the only signals config may name (swap.available is not one).
SIGNAL_RESOURCE: Dict[str, str] = {
    MEMORY: "memory", ALLOCATABLE_MEMORY: "memory",
    NODEFS: "ephemeral-storage", IMAGEFS: "ephemeral-storage", CONTAINERFS: "ephemeral-storage",
    NODEFS_INODES: "inodes", IMAGEFS_INODES: "inodes", CONTAINERFS_INODES: "inodes",
    PID: "pids",
}
# helpers.go signalToNodeCondition
SIGNAL_CONDITION: Dict[str, str] = {
    MEMORY: "MemoryPressure", ALLOCATABLE_MEMORY: "MemoryPressure",
    NODEFS: "DiskPressure", IMAGEFS: "DiskPressure", CONTAINERFS: "DiskPressure",
    NODEFS_INODES: "DiskPressure", IMAGEFS_INODES: "DiskPressure", CONTAINERFS_INODES: "DiskPressure",
    PID: "PIDPressure",
}
# pkg/kubelet/eviction/defaults_linux.go
DEFAULT_EVICTION_HARD: Dict[str, str] = {
    MEMORY: "100Mi", NODEFS: "10%", NODEFS_INODES: "5%", IMAGEFS: "15%", IMAGEFS_INODES: "5%",
}
# pkg/kubelet/eviction/defaults_windows.go (kubernetes PR #122922, v1.31, "Add support for Windows
# memory-pressure eviction"): Windows keeps more memory for the system and has no inode signals
DEFAULT_EVICTION_HARD_WINDOWS: Dict[str, str] = {MEMORY: "500Mi", NODEFS: "10%", IMAGEFS: "15%"}
# pkg/kubelet/eviction/defaults_others.go: every platform but Linux before #122922 (build tag
# `!linux`), every platform but Linux and Windows since: no inode signals, Linux's 100Mi
DEFAULT_EVICTION_HARD_OTHERS: Dict[str, str] = {MEMORY: "100Mi", NODEFS: "10%", IMAGEFS: "15%"}


def default_eviction_hard(os_label: str, windows_defaults: bool = True) -> Dict[str, str]:
    """The kubelet's built-in evictionHard for a node whose `kubernetes.io/os` label is `os_label`
    (the kubelet binary's platform decides it). `windows_defaults`: the Windows kubelet has its
    own table (v1.31+, versions feature WindowsEvictionDefaults); before, defaults_others.go's."""
    if os_label == "windows":
        return dict(DEFAULT_EVICTION_HARD_WINDOWS if windows_defaults else DEFAULT_EVICTION_HARD_OTHERS)
    return dict(DEFAULT_EVICTION_HARD)


DEFAULT_PRESSURE_TRANSITION_PERIOD = 300.0   # v1beta1 defaults.go: 5m
DEFAULT_MAX_POD_GRACE_PERIOD = 0
MONITORING_INTERVAL = 10.0                   # housekeeping interval

UNSUPPORTED = "unsupported eviction signal %s"


class ThresholdValue(NamedTuple):
    """A quantity (exact) or a float32 percentage fraction; `text` is what the user wrote."""
    quantity: Optional[Fraction]
    percentage: float
    text: str

    def __str__(self) -> str:
        return self.text


class Threshold(NamedTuple):
    signal: str
    value: ThresholdValue
    grace: float = 0.0                        # seconds; 0 means hard (isHardEvictionThreshold)
    min_reclaim: Optional[ThresholdValue] = None

    @property
    def hard(self) -> bool:
        return self.grace == 0

    def __str__(self) -> str:
        return "%s<%s" % (self.signal, self.value.text)


class ThresholdError(ValueError):
    """A threshold config error, worded as the kubelet words it; `key` names the map, `paired`
    the map whose missing entry it is about (a soft threshold without its grace period)."""

    def __init__(self, message: str, key: str = "", paired: str = "") -> None:
        super().__init__(message)
        self.key = key
        self.paired = paired


def float32(x: float) -> float:
    """Round a Python float to the nearest float32, as Go's float32() conversion does."""
    return struct.unpack("f", struct.pack("f", x))[0]


_GO_FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])\Z")


def parse_percentage(text: str) -> float:
    """helpers.go parsePercentage: ParseFloat(..., 32), then float32 division by 100."""
    number = text.rstrip("%")
    if not _GO_FLOAT.match(number):
        raise ThresholdError('strconv.ParseFloat: parsing "%s": invalid syntax' % number)
    try:
        v = float32(float(number))
    except OverflowError:
        raise ThresholdError('strconv.ParseFloat: parsing "%s": value out of range' % number) from None
    if math.isinf(v) and not number.lstrip("+-").lower().startswith("inf"):
        raise ThresholdError('strconv.ParseFloat: parsing "%s": value out of range' % number)
    return float32(v / 100.0)


_QUANTITY_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


INT64_MAX = (1 << 63) - 1   # Quantity.Value() and the kubelet's int64 fields


def _quantity(text: str) -> Fraction:
    try:
        return parse_quantity(text)
    except ValueParseError:
        raise ThresholdError(_QUANTITY_ERROR) from None


def parse_duration_go(text: str) -> float:
    """time.ParseDuration with Go's error texts."""
    try:
        return parse_duration(text)
    except ValueParseError:
        if re.fullmatch(r"[+-]?[0-9.]+", text or "") and text not in ("0", "+0", "-0"):
            raise ThresholdError('time: missing unit in duration "%s"' % text) from None
        raise ThresholdError('time: invalid duration "%s"' % text) from None


def parse_threshold_statement(signal: str, val: str) -> Optional[Threshold]:
    """helpers.go parseThresholdStatement: None for the silently ignored `0%` and `100%`."""
    if signal not in SIGNAL_RESOURCE:
        raise ThresholdError(UNSUPPORTED % signal)
    if not isinstance(val, str):
        val = str(val)
    if val.endswith("%"):
        if val in ("0%", "100%"):
            return None
        pct = parse_percentage(val)
        if pct < 0:
            raise ThresholdError("eviction percentage threshold %s must be >= 0%%: %s" % (signal, val))
        if pct > 1:
            raise ThresholdError("eviction percentage threshold %s must be <= 100%%: %s" % (signal, val))
        return Threshold(signal, ThresholdValue(None, pct, val))
    q = _quantity(val)
    if q <= 0:
        raise ThresholdError("eviction threshold %s must be positive: %s" % (signal, val))
    if q > INT64_MAX:   # Quantity.Value() is an int64: a larger amount is no real threshold
        raise ThresholdError("eviction threshold %s is out of range (above the int64 maximum): %s" % (signal, val))
    return Threshold(signal, ThresholdValue(q, 0.0, val))


def parse_threshold_statements(statements: Mapping[str, str], key: str = "") -> List[Threshold]:
    out = []
    for signal in sorted(statements):
        try:
            t = parse_threshold_statement(signal, statements[signal])
        except ThresholdError as e:
            raise ThresholdError(str(e), key) from None
        if t is not None:
            out.append(t)
    return out


def parse_grace_periods(statements: Mapping[str, str], key: str = "") -> Dict[str, float]:
    out: Dict[str, float] = {}
    for signal in sorted(statements):
        val = statements[signal]
        if signal not in SIGNAL_RESOURCE:
            raise ThresholdError(UNSUPPORTED % signal, key)
        try:
            seconds = parse_duration_go(str(val))
        except ThresholdError as e:
            raise ThresholdError(str(e), key) from None
        if seconds < 0:
            raise ThresholdError("invalid eviction grace period specified: %s, must be a positive value" % val, key)
        out[signal] = seconds
    return out


def parse_minimum_reclaims(statements: Mapping[str, str], key: str = "") -> Dict[str, ThresholdValue]:
    out: Dict[str, ThresholdValue] = {}
    for signal in sorted(statements):
        val = str(statements[signal])
        if signal not in SIGNAL_RESOURCE:
            raise ThresholdError(UNSUPPORTED % signal, key)
        try:
            if val.endswith("%"):
                pct = parse_percentage(val)
                if pct <= 0:
                    raise ThresholdError("eviction percentage minimum reclaim %s must be positive: %s" % (signal, val))
                out[signal] = ThresholdValue(None, pct, val)
                continue
            q = _quantity(val)
        except ThresholdError as e:
            raise ThresholdError(str(e), key) from None
        if q < 0:
            raise ThresholdError("negative eviction minimum reclaim specified for %s" % signal, key)
        if q > INT64_MAX:
            raise ThresholdError("eviction minimum reclaim %s is out of range (above the int64 maximum): %s"
                                 % (signal, val), key)
        out[signal] = ThresholdValue(q, 0.0, val)
    return out


def parse_threshold_config(enforce_node_allocatable: Sequence[str], hard: Mapping[str, str],
                           soft: Mapping[str, str], soft_grace: Mapping[str, str],
                           min_reclaim: Mapping[str, str]) -> Tuple[Threshold, ...]:
    """helpers.go ParseThresholdConfig: any error aborts the whole parse (ThresholdError)."""
    results = parse_threshold_statements(hard, "evictionHard")
    softs = parse_threshold_statements(soft, "evictionSoft")
    graces = parse_grace_periods(soft_grace, "evictionSoftGracePeriod")
    reclaims = parse_minimum_reclaims(min_reclaim, "evictionMinimumReclaim")
    for t in softs:
        if t.signal not in graces:
            raise ThresholdError("grace period must be specified for the soft eviction threshold %s" % t.signal,
                                 "evictionSoft", paired="evictionSoftGracePeriod")
        results.append(t._replace(grace=graces[t.signal]))
    results = [t._replace(min_reclaim=reclaims[t.signal]) if t.signal in reclaims else t for t in results]
    if "pods" in enforce_node_allocatable:
        results += [t._replace(signal=ALLOCATABLE_MEMORY) for t in results if t.signal == MEMORY and t.hard]
    return tuple(results)


def update_containerfs_thresholds(thresholds: Iterable[Threshold], layout: str) -> Tuple[Tuple[Threshold, ...], List[str]]:
    """helpers.go UpdateContainerFsThresholds: containerfs copies nodefs (single filesystem or the
    split layout) or imagefs (a dedicated imagefs holding the writable layers). User-supplied
    containerfs values are dropped with the kubelet's (logged) complaint, returned here."""
    src_bytes, src_inodes = (IMAGEFS, IMAGEFS_INODES) if layout == "imagefs" else (NODEFS, NODEFS_INODES)
    kept: List[Threshold] = []
    ignored: List[str] = []
    for t in thresholds:
        if t.signal in (CONTAINERFS, CONTAINERFS_INODES):
            ignored.append("found %s for %s eviction. ignoring" % (t.signal, "hard" if t.hard else "soft"))
            continue
        kept.append(t)
    copies = [t._replace(signal=CONTAINERFS if t.signal == src_bytes else CONTAINERFS_INODES)
              for t in kept if t.signal in (src_bytes, src_inodes)]
    return tuple(kept + copies), ignored


class Observation(NamedTuple):
    available: int
    capacity: Optional[int]
    time: Optional[str] = None


def threshold_quantity(value: ThresholdValue, capacity: Optional[int]) -> Fraction:
    """api/types.go GetThresholdQuantity: percentages are int64(float64(capacity) * float64(pct))."""
    if value.quantity is not None:
        return value.quantity
    return Fraction(int(float(capacity or 0) * value.percentage))


def thresholds_met(thresholds: Iterable[Threshold], observations: Mapping[str, Observation],
                   enforce_min_reclaim: bool) -> List[Threshold]:
    """helpers.go thresholdsMet: met when quantity (+ minReclaim) > available, strictly; a signal
    without observation is never met."""
    out = []
    for t in thresholds:
        obs = observations.get(t.signal)
        if obs is None:
            continue
        q = threshold_quantity(t.value, obs.capacity)
        if enforce_min_reclaim and t.min_reclaim is not None:
            q += threshold_quantity(t.min_reclaim, obs.capacity)
        # a whole quantity compares as its numerator: a Fraction's comparison runs in Python,
        # and the pressure simulation asks this in every cycle of every node
        if (q.numerator if q.denominator == 1 else q) > obs.available:
            out.append(t)
    return out


def eviction_priority_order(thresholds: Iterable[Threshold]) -> List[Threshold]:
    """byEvictionPriority: memory signals first; Go's order among the rest is unspecified, we
    keep the configured order (deterministic)."""
    ts = list(thresholds)
    return [t for t in ts if t.signal in (MEMORY, ALLOCATABLE_MEMORY)] + \
        [t for t in ts if t.signal not in (MEMORY, ALLOCATABLE_MEMORY)]


# --- kubelet flag syntax ---------------------------------------------------------------------

def parse_flag_map(text: str, sep: str) -> Dict[str, str]:
    """A kubelet map flag: `memory.available<500Mi,nodefs.available<10%` (sep `<`, cliflag
    LangleSeparatedMapStringString) or `memory.available=1m30s,...` (sep `=`, MapStringString).
    Empty pairs are skipped; a pair without `sep` is the kubelet's own error."""
    out: Dict[str, str] = {}
    for pair in text.split(","):
        if not pair.strip():
            continue
        k, found, v = pair.partition(sep)
        if not found:
            raise ThresholdError("malformed pair, expect string%sstring" % sep)
        out[k.strip()] = v.strip()
    return out
