"""One `synchronize` cycle of the eviction manager, admission and grace, as pure functions.

Models `pkg/kubelet/eviction/eviction_manager.go` (v1.30-v1.37): the met set is the thresholds
met now plus last cycle's thresholds still inside their minimum reclaim; first-observed times
survive only while a threshold stays met; conditions are set on first observation (grace
periods do not delay them) and held for `evictionPressureTransitionPeriod` after the last one;
only thresholds met for their grace period drive eviction, and only those are remembered for
the next cycle's minimum-reclaim check (`m.thresholdsMet = thresholds` after
`thresholdsMetGracePeriod`): a soft threshold still waiting out its grace does not keep
evictions going once the hard one is reclaimed. `Admit` and the eviction grace period follow
the same file.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from kubectl_evict.eviction.ranking import is_critical
from kubectl_evict.eviction.thresholds import SIGNAL_CONDITION, Observation, Threshold, thresholds_met
from kubectl_evict.model import Pod, Taint
from kubectl_evict.scheduling.qos import pod_qos
from kubectl_evict.scheduling.tolerations import MEMORY_PRESSURE, tolerates
from kubectl_evict.versions import ClusterVersion

HARD_EVICTION_GRACE = 1     # immediateEvictionGracePeriodSeconds
_MEMORY_PRESSURE_TAINT = Taint(MEMORY_PRESSURE, "", "NoSchedule")


class ManagerState(NamedTuple):
    first_observed: Mapping[Threshold, float] = {}
    last_met: Tuple[Threshold, ...] = ()          # m.thresholdsMet: last cycle's, grace passed
    condition_last_observed: Mapping[str, float] = {}


class Cycle(NamedTuple):
    state: ManagerState
    met: Tuple[Threshold, ...]            # met now (incl. min reclaim of last cycle's), grace ignored
    conditions: Tuple[str, ...]           # pressure conditions True after this cycle
    ready: Tuple[Threshold, ...]          # met for at least their grace period: these evict


def synchronize(state: ManagerState, thresholds: Sequence[Threshold], obs: Mapping[str, Observation],
                now: float, transition_period: float) -> Cycle:
    met: List[Threshold] = thresholds_met(thresholds, obs, False)
    for t in thresholds_met(state.last_met, obs, True):
        if t not in met:
            met.append(t)
    first = {t: state.first_observed.get(t, now) for t in met}
    last_obs: Dict[str, float] = dict(state.condition_last_observed)
    for t in met:
        last_obs[SIGNAL_CONDITION[t.signal]] = now
    conditions = tuple(sorted(c for c, at in last_obs.items() if now - at < transition_period))
    ready = tuple(t for t in met if now - first[t] >= t.grace)
    return Cycle(ManagerState(first, ready, last_obs), tuple(met), conditions, ready)


def admits(pod: Pod, conditions: Sequence[str], version: Optional[ClusterVersion] = None) -> bool:
    """managerImpl.Admit: MemoryPressure alone turns away BestEffort pods that do not tolerate
    the memory-pressure taint; any other pressure turns away every non-critical pod. The QoS
    class is the one the cluster's `version` computes (`qos.pod_qos`)."""
    if not conditions or is_critical(pod):
        return True
    if tuple(conditions) == ("MemoryPressure",):
        qos = pod_qos(pod, version) if version is not None else pod.qos
        return qos != "BestEffort" or any(tolerates(t, _MEMORY_PRESSURE_TAINT) for t in pod.tolerations)
    return False


def caps_soft_grace(version: ClusterVersion) -> bool:
    """Does the kubelet cap a soft eviction's grace by the pod's terminationGracePeriodSeconds?
    From v1.32 (the feature gate AllowOverwriteTerminationGracePeriodSeconds turned default-off,
    kubernetes PR #122890); v1.30 and v1.31 used evictionMaxPodGracePeriod alone."""
    return version.has("SoftEvictionGraceCappedByPod")


def eviction_grace(threshold: Threshold, max_pod_grace_period: int, pod: Pod, cap_by_pod: bool = True) -> int:
    """The grace period override of `synchronize`'s eviction loop. Hard: 1 s
    (immediateEvictionGracePeriodSeconds). Soft: evictionMaxPodGracePeriod, capped by the pod's
    terminationGracePeriodSeconds when `cap_by_pod` (v1.32+, see `caps_soft_grace`); the pod
    worker (calculateEffectiveGracePeriod) floors the result at 1 s."""
    if threshold.hard:
        return HARD_EVICTION_GRACE
    if not cap_by_pod:
        return max(1, max_pod_grace_period)
    return max(1, min(max_pod_grace_period, pod.termination_grace_period))
