"""NodeUnschedulable (`pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go`):
a cordoned node takes only pods tolerating the `node.kubernetes.io/unschedulable:NoSchedule` taint."""

from __future__ import annotations

from typing import Sequence

from kubectl_evict.model import Taint, Toleration
from kubectl_evict.scheduling.tolerations import UNSCHEDULABLE, first_tolerating

MESSAGE = "node(s) were unschedulable"


def tolerates_unschedulable(tolerations: Sequence[Toleration]) -> bool:
    return first_tolerating(tolerations, Taint(UNSCHEDULABLE, "", "NoSchedule")) is not None
