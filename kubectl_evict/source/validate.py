"""Value checks the API server's validation makes, so that a snapshot it would refuse is refused here.

Models the bounds of `k8s.io/kubernetes/pkg/apis/core/validation/validation.go` (v1.33):
`ValidateResourceQuantityValue` / `ValidateNonnegativeQuantity` (requests, limits, overhead,
capacity, allocatable must be >= 0), `ValidateNonnegativeField` (terminationGracePeriodSeconds,
workload spec.replicas as pkg/apis/apps/validation checks it), PodDisruptionBudget
minAvailable/maxUnavailable, the int32 range of `spec.priority`, and `ValidateLabelSelector` for
PodDisruptionBudget selectors (`pkg/apis/policy/validation`). One home: the freezer calls these at its call sites,
and every check raises `ValueParseError` with the problem only; the caller adds file, object
and field.

Upper bound: the scheduler and the kubelet compare `MilliValue()` (cpu) and `Value()` (others)
as int64. A quantity whose compared value does not fit int64 (`cpu: 1e30`) cannot be a real
request or capacity: it is refused rather than letting float arithmetic print junk.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Optional, Tuple, Union

from kubectl_evict.errors import ValueParseError
from kubectl_evict.quantity import parse_quantity, to_units

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


class InvalidValue(ValueParseError):
    """A value the API server's validation refuses; `field` is the path within the object."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(problem)
        self.field = field
        self.problem = problem


def resource_units(name: str, raw: Union[str, int, float], field: str) -> int:
    """A requests/limits/overhead/capacity/allocatable entry in the units rules compare; refuses a
    malformed, negative or out-of-range quantity."""
    if isinstance(raw, float) and (raw != raw or raw in (float("inf"), float("-inf"))):
        raise InvalidValue(field, "invalid quantity %r" % raw)
    try:
        q: Fraction = parse_quantity(raw)
    except ValueParseError as e:
        raise InvalidValue(field, str(e)) from None
    if q < 0:
        raise InvalidValue(field, "must be greater than or equal to 0, got %r" % raw)
    units = to_units(name, q)
    if units > INT64_MAX:
        raise InvalidValue(field, "%r is too large: %s does not fit the int64 Kubernetes compares"
                           % (raw, "the value in millicores" if name == "cpu" else "the value"))
    return units


def priority(value: Optional[int], field: str) -> Optional[int]:
    """spec.priority / a PriorityClass value: an int32."""
    if value is not None and not INT32_MIN <= value <= INT32_MAX:
        raise InvalidValue(field, "%s is out of the int32 range [%d, %d]" % (_num(value), INT32_MIN, INT32_MAX))
    return value


def non_negative(value: Optional[int], field: str) -> Optional[int]:
    """terminationGracePeriodSeconds and the like: ValidateNonnegativeField (and an int64)."""
    if value is not None and value < 0:
        raise InvalidValue(field, "must be greater than or equal to 0, got %s" % _num(value))
    if value is not None and value > INT64_MAX:
        raise InvalidValue(field, "%s is out of the int64 range" % _num(value))
    return value


def non_negative_int32(value: Optional[int], field: str) -> Optional[int]:
    """spec.replicas, spec.parallelism, spec.minReadySeconds of a workload: ValidateNonnegativeField
    on an `*int32` (apps/v1, batch/v1): a larger number does not decode, and would be planned as a
    trillion replicas."""
    non_negative(value, field)
    if value is not None and value > INT32_MAX:
        raise InvalidValue(field, "%s is out of the int32 range [0, %d]" % (_num(value), INT32_MAX))
    return value


def int_or_percent(value: Union[int, str, None], field: str) -> Union[int, str, None]:
    """A PodDisruptionBudget's minAvailable / maxUnavailable (already an int or "N%"):
    `ValidatePositiveIntOrPercent` (an int must be >= 0) and `IsNotMoreThan100Percent`
    (pkg/apis/policy/validation ValidatePodDisruptionBudgetSpec). A budget the API server would
    refuse must not block or allow evictions in a plan."""
    if isinstance(value, int):
        return non_negative(value, field)
    if isinstance(value, str) and value.endswith("%") and int(value[:-1]) > 100:
        raise InvalidValue(field, "must not be greater than 100%%, got %r" % value)
    return value


def one_budget(budget: Tuple[Any, Any], field: str) -> Tuple[Any, Any]:
    """(minAvailable, maxUnavailable): ValidatePodDisruptionBudgetSpec refuses both set."""
    if budget[0] is not None and budget[1] is not None:
        raise InvalidValue(field, "minAvailable and maxUnavailable cannot be both set")
    return budget


def label_selector(sel: Any, field: str) -> Any:
    """ValidateLabelSelector for a frozen LabelSelector: a PodDisruptionBudget whose selector the
    API server would refuse must not silently cover no pod."""
    if sel is not None:
        from kubectl_evict.scheduling.labels import label_selector_errors
        errs = label_selector_errors(sel, field)
        if errs:
            raise InvalidValue(errs[0].field, errs[0].detail)
    return sel


def _num(value: int) -> str:
    text = str(value)
    return text if len(text) <= 24 else "%.3g" % float(value)


# --- whole-snapshot checks (warnings, not errors: the objects themselves are valid) -----------

def dangling_node_warning(snapshot: Any, limit: int = 5) -> Optional[str]:
    """One warning naming the pods, stats and kubelet configs that point at nodes the snapshot
    lacks (a partial capture: `kubectl get pods -A` without the nodes). Such pods never take part in
    any plan, so silence would hide that the plan is about less than the user gave."""
    nodes = snapshot.nodes
    parts = []
    missing: dict = {}
    for name, pods in snapshot.pods_by_node.items():
        if name and name not in nodes:
            missing[name] = missing.get(name, 0) + len(pods)
    if missing:
        n = sum(missing.values())
        parts.append("%d pod%s" % (n, "" if n == 1 else "s"))
    for what, m in (("stats summar%s", snapshot.stats), ("kubelet config%s", snapshot.kubelet_configs)):
        names = [k for k in m if k not in nodes]
        if names:
            for k in names:
                missing.setdefault(k, 0)
            parts.append("%d %s" % (len(names), what % (("y" if len(names) == 1 else "ies") if "summar" in what
                                                        else ("" if len(names) == 1 else "s"))))
    if not missing:
        return None
    names = sorted(missing)
    shown = ", ".join(names[:limit]) + (" and %d more" % (len(names) - limit) if len(names) > limit else "")
    return "%s name %d node%s not in the snapshot (%s): they are left out of the plan" % (
        ", ".join(parts), len(names), "" if len(names) == 1 else "s", shown)


def now_warning(now: float, snapshot_time: Optional[float]) -> Optional[str]:
    """--now more than a year before the time the snapshot itself records: the plan would see
    objects from the future (heartbeats, creation times), which is almost always a slip (planning
    a little before the capture, to replay an incident, is normal)."""
    if snapshot_time is None or not snapshot_time or now >= snapshot_time - 365 * 86400:
        return None
    days = (snapshot_time - now) / 86400
    span = "%.1f years" % (days / 365)
    return "--now is %s before the snapshot's own time: objects in it look like they come from the future" % span
