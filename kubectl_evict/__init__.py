"""kubectl-evictplan: plan what Kubernetes will evict, taint or kill, before it happens."""

__version__ = "0.1.0"
