"""The kubelet's node-pressure eviction manager, as pure functions (upstream
`pkg/kubelet/eviction`, v1.30-1.33): thresholds, observations, ranking, OOM scores."""
