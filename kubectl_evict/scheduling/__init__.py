"""Shared scheduling building blocks: one home each for labels, node affinity, tolerations,
QoS and pod resource requests. Every rule calls these; none re-implements them."""
