"""NodePorts (`pkg/scheduler/framework/plugins/nodeports/node_ports.go`): a host port (with
protocol and IP, 0.0.0.0 conflicting with every IP) may be used once per node."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from kubectl_evict.model import Node, Pod
from kubectl_evict.scheduling.framework import OK, SKIPPED, ClusterState, Plugin, Status, unschedulable

MESSAGE = "node(s) didn't have free ports for the requested pod ports"


class NodePorts(Plugin):
    name = "NodePorts"

    def pre_filter(self, cs: ClusterState, pod: Pod) -> Tuple[Status, Any]:
        ports = tuple(hp for c in pod.containers + pod.init_containers for hp in c.host_ports)
        return (OK, ports) if ports else (SKIPPED, None)

    def filter(self, cs: ClusterState, pod: Pod, ports: Any, node: Node) -> Optional[Status]:
        used = cs.used_ports(node.name)
        if any(port == hp.host_port and proto == hp.protocol and
               (ip in ("", "0.0.0.0") or hp.host_ip in ("", "0.0.0.0") or ip == hp.host_ip)
               for hp in ports for (port, proto, ip) in used):
            return unschedulable(MESSAGE)
        return None
