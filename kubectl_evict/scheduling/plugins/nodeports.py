"""NodePorts (`pkg/scheduler/framework/plugins/nodeports/node_ports.go`): a host port (with
protocol and IP, 0.0.0.0 conflicting with every IP) may be used once per node. Which containers'
ports count follows the release (`framework.host_ports`: sidecar init containers' from v1.34)."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from kubectl_evict.model import Node, Pod
from kubectl_evict.scheduling.framework import OK, SKIPPED, ClusterState, Plugin, Status, host_ports, unschedulable

MESSAGE = "node(s) didn't have free ports for the requested pod ports"


class NodePorts(Plugin):
    name = "NodePorts"

    def pre_filter(self, cs: ClusterState, pod: Pod) -> Tuple[Status, Any]:
        ports = host_ports(pod, cs.sidecar_ports)
        return (OK, ports) if ports else (SKIPPED, None)

    def filter(self, cs: ClusterState, pod: Pod, ports: Any, node: Node) -> Optional[Status]:
        used = cs.used_ports(node.name)
        if any(port == hp.host_port and proto == hp.protocol and
               (ip in ("", "0.0.0.0") or hp.host_ip in ("", "0.0.0.0") or ip == hp.host_ip)
               for hp in ports for (port, proto, ip) in used):
            return unschedulable(MESSAGE)
        return None
