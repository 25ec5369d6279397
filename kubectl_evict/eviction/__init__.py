"""The kubelet's node-pressure eviction manager, as pure functions (upstream
`pkg/kubelet/eviction`, v1.30-v1.37): thresholds, observations, ranking, OOM scores."""
