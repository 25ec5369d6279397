"""Scheduler corners the real-cluster fixtures rarely reach (shared/spec/scheduler.md S1-S6 and
the kube-scheduler section of upstream-1.34-1.37.md). Expected values are worked out from the
upstream plugins' source, not copied from the code's output."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from test_drain_plan import deployment, drain, evictions, node, pod, snapshot

from kubectl_evict.scheduling.resources import non_zero_requests

MI = 1024 * 1024


def _pod(spec: Dict[str, Any]) -> Any:
    snap = snapshot(node("a"), deployment("web", 1), pod("web-1", "a", spec=spec))
    return next(p for p in snap.pods if p.name == "web-1")


def _c(name: str, cpu: str = "", memory: str = "", sidecar: bool = False) -> dict:
    req = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    c: Dict[str, Any] = {"name": name, "resources": {"requests": req}}
    if sidecar:
        c["restartPolicy"] = "Always"
    return c


# `framework/types.go` calculateResource: PodRequests with NonMissingContainerRequests
# {cpu: 100m, memory: 200Mi}, aggregated as the real requests are (component-helpers resource
# AggregateContainerRequests: sidecars add to the sum; a regular init container counts with the
# sidecars started before it; the result is max(sum, init max)), pod-level requests replacing
# the sums, overhead added.
@pytest.mark.parametrize("case,spec,cpu,memory", [
    ("no requests: both defaults", {"containers": [_c("c")]}, 100, 200 * MI),
    ("explicit 0 stays 0", {"containers": [_c("c", cpu="0", memory="0")]}, 0, 0),
    ("init before sidecar: max(sum, init alone)",
     {"containers": [_c("c", "100m", "100Mi")],
      "initContainers": [_c("i", "150m", "100Mi"), _c("s", "100m", "100Mi", sidecar=True)]}, 200, 200 * MI),
    ("sidecar before init: init plus the sidecar started before it",
     {"containers": [_c("c", "100m", "100Mi")],
      "initContainers": [_c("s", "100m", "100Mi", sidecar=True), _c("i", "150m", "150Mi")]}, 250, 250 * MI),
    ("pod-level requests replace the container sums",
     {"resources": {"requests": {"cpu": "2", "memory": "1Gi"}}, "containers": [_c("c")]}, 2000, 1024 * MI),
    ("pod-level cpu only: memory from the containers' defaults",
     {"resources": {"requests": {"cpu": "2"}}, "containers": [_c("c"), _c("d")]}, 2000, 400 * MI),
    ("overhead added", {"containers": [_c("c")], "overhead": {"cpu": "50m", "memory": "10Mi"}}, 150, 210 * MI),
])
def test_score_non_zero_requests(case: str, spec: dict, cpu: int, memory: int) -> None:
    assert non_zero_requests(_pod(spec)) == (cpu, memory), case


def test_least_allocated_reads_pod_level_requests_of_residents() -> None:
    """a runs a pod asking 3 cpu / 1Gi at pod level (containers ask nothing), b one asking 2.5
    cpu / 1Gi in its container. LeastAllocated sees a at 3.1 cpu (not 2 x 100m of defaults):
    a scores (22 + 85) / 2 + balanced 68 = 121, b (35 + 85) / 2 + 74 = 134, so b."""
    big = {"resources": {"requests": {"cpu": "3", "memory": "1Gi"}}, "containers": [{"name": "c"}]}
    snap = snapshot(node("src"), node("a"), node("b"), deployment("web", 1), deployment("x", 1), deployment("y", 1),
                    pod("x-1", "a", spec=big), pod("y-1", "b", cpu="2500m", memory="1Gi"), pod("web-1", "src"))
    assert evictions(drain(snap, "src"))["web-1"] == (0, "b")
