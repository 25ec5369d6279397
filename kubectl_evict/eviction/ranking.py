"""Which pod the kubelet evicts first under node pressure.

Models `rankMemoryPressure`, `rankDiskPressureFunc` and `rankPIDPressure` of
`pkg/kubelet/eviction/helpers.go` (v1.30-v1.37) as sort keys: usage above request first, then
lower `spec.priority`, then larger usage minus request (disk measured per layout; PID by priority
then process count); pods without stats first. Go's `sort.Sort` is unstable, so ties are broken
here by namespace/name to keep plans byte-identical. `--ranking qos` reproduces the ranking of
kubelets before priority-based eviction (OpenShift 3.x, Kubernetes <= 1.8): QoS class first
(BestEffort, Burstable, Guaranteed), then usage relative to request.

The request compared is the pod's effective request; with pod-level resources (`spec.resources`)
that is the pod-level request from v1.34 (#132277, feature PodLevelResourcesEviction) and the
containers' sum before, even where the gate let the pod carry one (v1.32-v1.33 alpha).
"""

from __future__ import annotations

from typing import Any, Callable, List, Mapping, Sequence

from kubectl_evict.eviction.observe import PodUsage, fs_stats_to_measure, pod_disk_usage, usage_for
from kubectl_evict.eviction.thresholds import PID, SIGNAL_RESOURCE
from kubectl_evict.model import SYSTEM_CRITICAL_PRIORITY, Pod
from kubectl_evict.scheduling.qos import pod_qos
from kubectl_evict.scheduling.resources import pod_requests

QOS_RANK = {"BestEffort": 0, "Burstable": 1, "Guaranteed": 2}
RANKINGS = ("priority", "qos")


def is_critical(pod: Pod) -> bool:
    """kubelettypes.IsCriticalPod: static, mirror, or priority >= system-cluster-critical."""
    return pod.is_static or pod.is_mirror or pod.priority >= SYSTEM_CRITICAL_PRIORITY


def request_for_ranking(pod: Pod, resource: str, pod_level: bool = True) -> int:
    """v1resource.GetResourceRequestQuantity: effective request, overhead added only when the
    request itself is non-zero. The internal `inodes`/`pids` resources are never requested.
    `pod_level` false (before v1.34): the containers' requests even when spec.resources is set."""
    if resource not in ("memory", "ephemeral-storage", "cpu"):
        return 0
    if pod_level or pod.pod_level is None:
        total = pod.requests.get(resource, 0)
    else:
        total = pod_requests(pod.containers, pod.init_containers, pod.overhead).get(resource, 0)
    return 0 if total - pod.overhead.get(resource, 0) == 0 else total


def usage_of(pod: Pod, u: PodUsage, signal: str, layout: str) -> int:
    """The usage the ranking compares for `signal` (working set, bytes, inodes or processes)."""
    resource = SIGNAL_RESOURCE[signal]
    if resource == "memory":
        return u.working_set
    if resource == "pids":
        return u.processes
    disk, inodes = pod_disk_usage(u, pod, fs_stats_to_measure(signal, layout))
    return disk if resource == "ephemeral-storage" else inodes


def rank_key(signal: str, layout: str, usages: Mapping[str, PodUsage], ranking: str = "priority",
             version: Any = None) -> Callable[[Pod], tuple]:
    """A sort key implementing the kubelet's comparator chain for `signal` on a cluster of
    `version` (a versions.ClusterVersion; None: the newest modelled)."""
    resource = SIGNAL_RESOURCE[signal]
    plr = version is None or version.has("PodLevelResourcesEviction")

    def request_for(pod: Pod, res: str) -> int:
        return request_for_ranking(pod, res, plr)

    if ranking == "qos":
        def qos_key(pod: Pod) -> tuple:
            u = usage_for(usages, pod)
            qos = QOS_RANK.get(pod_qos(pod, version) if version is not None else pod.qos, 1)
            if u is None:
                return (qos, 0, 0, pod.namespace, pod.name)
            use = usage_of(pod, u, signal, layout)
            req = 0 if signal == PID else request_for(pod, "ephemeral-storage" if resource == "inodes" else resource)
            return (qos, 1, req - use, pod.namespace, pod.name)
        return qos_key

    if signal == PID:
        def pid_key(pod: Pod) -> tuple:
            u = usage_for(usages, pod)
            if u is None:
                return (pod.priority, 0, 0, pod.namespace, pod.name)
            return (pod.priority, 1, -u.processes, pod.namespace, pod.name)
        return pid_key

    def key(pod: Pod) -> tuple:
        u = usage_for(usages, pod)
        if u is None:
            return (0, 0, pod.priority, 0, pod.namespace, pod.name)
        use = usage_of(pod, u, signal, layout)
        exceeds = use > request_for(pod, resource)
        # disk ranking subtracts the ephemeral-storage request even for inodes (upstream quirk)
        req = request_for(pod, "ephemeral-storage" if resource == "inodes" else resource)
        return (1, 0 if exceeds else 1, pod.priority, req - use, pod.namespace, pod.name)
    return key


def rank(pods: Sequence[Pod], signal: str, layout: str, usages: Mapping[str, PodUsage],
         ranking: str = "priority", version: Any = None) -> List[Pod]:
    """Pods in the order the eviction manager tries them for `signal` (critical pods included;
    the manager skips them when it gets there)."""
    return sorted(pods, key=rank_key(signal, layout, usages, ranking, version))
