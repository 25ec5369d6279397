"""drain on a node by its Ready condition: does anything confirm the deletion of an evicted pod?

Upstream facts the expected values come from:
- the Eviction API accepts the eviction and sets the pod's deletionTimestamp; the pod object goes
  only when the kubelet's status manager deletes it, which it does only once the pod worker has
  stopped every container (`pkg/kubelet/status/status_manager.go` canBeDeleted ->
  `PodCouldHaveRunningContainers`, `pkg/kubelet/kubelet_pods.go`);
- Ready=Unknown: the kubelet stopped posting status (the node lifecycle controller set it,
  `pkg/controller/nodelifecycle` tryUpdateNodeHealth): nothing stops the containers or deletes
  the pod, it stays Terminating;
- Ready=False with a runtime error in its message (`pkg/kubelet/runtime.go` runtimeErrors:
  "container runtime is down", "PLEG is not healthy: ...", "container runtime status check may
  not have completed yet"): the kubelet posts status, but its syncLoop skips every iteration while
  runtimeErrors() is not nil (`pkg/kubelet/kubelet.go` syncLoop, "Skipping pod
  synchronization"), so the deletion never reaches the pod worker: it stays Terminating too;
- kubectl drain waits for each evicted pod to be gone (`waitForDelete`), unless
  --skip-wait-for-delete-timeout N: a pod whose deletionTimestamp is more than N seconds old counts
  as gone (`staging/src/k8s.io/kubectl/pkg/drain/drain.go`);
- a ReplicaSet replaces a terminating pod at once (`controller.FilterActivePods`); a StatefulSet
  creates the same name only once the old pod is gone (`processReplica`).

Ready=False for other causes (the CNI plugin not ready, storage, graceful shutdown) leaves the
sync loop running, and whether the runtime can then stop the pod's sandbox is the runtime's
business: not asserted here (see the report of branch drainfix).
"""

from __future__ import annotations

from typing import Any

import pytest

from conftest import NOW as NOW_TEXT, node, pod, snapshot_list
from kubectl_evict.rules.drain import DrainSettings, plan_drain
from kubectl_evict.rules.drain_filters import FilterFlags
from kubectl_evict.source.freeze import freeze
from kubectl_evict.timeutil import parse_time

NOW = parse_time(NOW_TEXT)

RUNTIME_DOWN = ("[container runtime is down, PLEG is not healthy: pleg was last seen active 3m5.1s ago; "
                "threshold is 3m0s]")


def _n1(ready: str, message: str = "") -> dict:
    n = node("n1")
    cond = n["status"]["conditions"][0]
    cond["status"] = ready
    if ready != "True":
        cond["reason"] = "KubeletNotReady" if ready == "False" else "NodeStatusUnknown"
        cond["message"] = message or "Kubelet stopped posting node status."
    return n


def _plan(ready: str, kind: str, skip_wait: int, message: str = "", grace: int = -1, disable: bool = False) -> Any:
    owner = ("StatefulSet", "db") if kind == "StatefulSet" else ("ReplicaSet", "web-rs")
    name = "db-0" if kind == "StatefulSet" else "web-0"
    doc = snapshot_list(_n1(ready, message), node("n2"), pod(name, "n1", owner=owner))
    snap = freeze([("test", str(i), o) for i, o in enumerate(doc["items"])])
    return plan_drain(snap, DrainSettings(nodes=("n1",), filters=FilterFlags(skip_wait_for_delete_timeout=skip_wait),
                                          grace_period=grace, disable_eviction=disable), NOW)


# (Ready, message, owner, --skip-wait-for-delete-timeout) -> (has a target, blocked code, shortfall code)
CASES = {
    ("True", "", "ReplicaSet", 0): (True, None, None),
    ("True", "", "StatefulSet", 0): (True, None, None),
    ("True", "", "ReplicaSet", 30): (True, None, None),
    ("True", "", "StatefulSet", 30): (True, None, None),
    # kubelet gone: kubectl waits forever; the ReplicaSet's replacement exists already
    ("Unknown", "", "ReplicaSet", 0): (True, "node-unreachable", None),
    ("Unknown", "", "StatefulSet", 0): (False, "node-unreachable", None),
    # kubectl stops waiting; the StatefulSet still waits for the old pod
    ("Unknown", "", "ReplicaSet", 30): (True, None, None),
    ("Unknown", "", "StatefulSet", 30): (False, None, "waits-for-old-pod"),
    # the kubelet posts NotReady because its runtime is down: it skips every pod sync
    ("False", RUNTIME_DOWN, "ReplicaSet", 0): (True, "node-unreachable", None),
    ("False", RUNTIME_DOWN, "StatefulSet", 0): (False, "node-unreachable", None),
    ("False", RUNTIME_DOWN, "ReplicaSet", 30): (True, None, None),
    ("False", RUNTIME_DOWN, "StatefulSet", 30): (False, None, "waits-for-old-pod"),
}


@pytest.mark.parametrize("case", sorted(CASES), ids=lambda c: "%s-%s-%s" % (c[0], c[2], c[3]))
def test_an_evicted_pod_goes_only_where_a_kubelet_confirms_it(case: tuple) -> None:
    ready, message, kind, skip_wait = case
    has_target, blocked, short = CASES[case]
    plan = _plan(ready, kind, skip_wait, message)
    (a,) = [a for a in plan.actions if a.type == "evict"]
    assert (a.target is not None) == has_target
    assert [e.code for e in plan.blocked] == ([blocked] if blocked else [])
    assert [e.code for e in plan.shortfall] == ([short] if short else [])


@pytest.mark.parametrize("ready, message", [("Unknown", ""), ("False", RUNTIME_DOWN)])
@pytest.mark.parametrize("kind", ["ReplicaSet", "StatefulSet"])
@pytest.mark.parametrize("disable", [False, True])
def test_grace_period_zero_removes_the_pod_without_its_kubelet(ready: str, message: str, kind: str,
                                                               disable: bool) -> None:
    """kubectl drain --grace-period 0 sends gracePeriodSeconds 0 as is (drain.go makeDeleteOptions),
    through the Eviction API or a plain DELETE, and the API server removes a pod deleted with grace
    period 0 at once (DeleteOptions.gracePeriodSeconds: "zero means delete immediately"; spec F1:
    "0 means immediate"), as a force delete does: nothing waits for the kubelet, so the drain
    finishes and the StatefulSet creates its pod again at once. Before, the plan had the pod stay
    Terminating (node-unreachable) even for `force: true` deletes."""
    plan = _plan(ready, kind, 0, message, grace=0, disable=disable)
    (a,) = [a for a in plan.actions if a.type in ("evict", "delete")]
    assert (a.type, a.target, a.grace_period_seconds) == ("delete" if disable else "evict", "n2", 0)
    assert [e.code for e in plan.blocked] == [] and [e.code for e in plan.shortfall] == []
