"""`kubectl evictplan shutdown` through the real command line: exit codes, `error:` lines,
--kubelet-config precedence and the demo cluster."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

import pytest

REPO = Path(__file__).resolve().parents[1]


def cli(*args: str, env: dict = None) -> Tuple[int, str, str]:
    p = subprocess.run([sys.executable, "-m", "kubectl_evict", *args], cwd=str(REPO), capture_output=True,
                       text=True, timeout=60, env={**os.environ, **(env or {})})
    return p.returncode, p.stdout, p.stderr


SNAPSHOT = {"apiVersion": "v1", "kind": "List", "items": [
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
     "status": {"conditions": [{"type": "Ready", "status": "True"}], "allocatable": {"cpu": "4", "pods": "110"}}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"},
     "status": {"conditions": [{"type": "Ready", "status": "True"}], "allocatable": {"cpu": "4", "pods": "110"}}},
    {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n1"},
     "kubeletconfig": {"shutdownGracePeriod": "30s", "shutdownGracePeriodCriticalPods": "10s"}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "app", "uid": "u1"},
     "spec": {"nodeName": "n1", "terminationGracePeriodSeconds": 45, "containers": [{"name": "c"}]},
     "status": {"phase": "Running"}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "dns", "namespace": "kube-system", "uid": "u2"},
     "spec": {"nodeName": "n1", "priority": 2000000000, "containers": [{"name": "c"}]},
     "status": {"phase": "Running"}},
    {"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
     "takenAt": "2026-11-21T12:00:00Z"},
]}


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> str:
    p = tmp_path_factory.mktemp("snap") / "cluster.json"
    p.write_text(json.dumps(SNAPSHOT))
    return str(p)


def kills(stdout: str) -> dict:
    doc = json.loads(stdout)
    return {a["pod"]: (a["at"], a["gracePeriodSeconds"]) for a in doc["actions"] if a["type"] == "kill"}


def test_snapshot_config_is_used(snapshot: str) -> None:
    rc, out, err = cli("-f", snapshot, "-o", "json", "shutdown", "n1")
    assert rc == 0, err
    assert kills(out) == {"web": (0, 20), "dns": (20, 10)}


def test_kubelet_config_file_overrides_snapshot_and_flags_override_file(snapshot: str, tmp_path: Path) -> None:
    cfg = tmp_path / "kubelet.yaml"
    cfg.write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                   "shutdownGracePeriod: 2m\nshutdownGracePeriodCriticalPods: 30s\n")
    rc, out, err = cli("-f", snapshot, "-o", "json", "shutdown", "n1", "--kubelet-config", str(cfg))
    assert rc == 0, err
    # the 90s phase ends once web (45s) has stopped (killPods: wg.Wait against the group's timer)
    assert kills(out) == {"web": (0, 45), "dns": (45, 30)}
    rc, out, err = cli("-f", snapshot, "-o", "json", "shutdown", "n1", "--kubelet-config", str(cfg),
                       "--critical-grace-period", "1m")
    assert rc == 0, err
    assert kills(out) == {"web": (0, 45), "dns": (45, 30)}


def test_by_priority_flag(snapshot: str) -> None:
    rc, out, err = cli("-f", snapshot, "-o", "json", "shutdown", "n1", "--by-priority", "100000=10s,0=60s",
                       "--inhibit-delay-max", "2m")
    assert rc == 0, err
    assert kills(out) == {"web": (0, 45), "dns": (45, 10)}      # the 60s phase ends when web has stopped
    assert not [w for w in json.loads(out)["warnings"] if "InhibitDelayMaxSec" in w]


@pytest.mark.parametrize("args,message", [
    (["--grace-period", "30x"], "error: --grace-period: invalid duration '30x'"),
    (["--critical-grace-period", "abc"], "error: --critical-grace-period: invalid duration 'abc'"),
    (["--by-priority", "high=10s"], "error: --by-priority: priority 'high' in 'high=10s' is not an integer"),
    (["--by-priority", "0=1.5s"], "error: --by-priority: '0=1.5s': shutdownGracePeriodSeconds must be a whole"),
    (["--by-priority", "0=10s,0=20s"], "error: --by-priority: priority 0 is given twice"),
    (["--by-priority", "10s"], "error: --by-priority: expected PRIORITY=DURATION"),
    (["--grace-period", "10s", "--critical-grace-period", "20s"],
     "invalid configuration: shutdownGracePeriodCriticalPods {20s} must be <= shutdownGracePeriod {10s}"),
    (["--grace-period", "500ms", "--critical-grace-period", "0s"],
     "invalid configuration: shutdownGracePeriod {500ms} must be either zero or otherwise >= 1 sec"),
    (["--grace-period", "30s", "--by-priority", "0=10s"],
     "invalid configuration: Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time"),
    (["--inhibit-delay-max", "-1s"], "error: --inhibit-delay-max: must not be negative"),
    (["--kubelet-config", "/nonexistent/kubelet.yaml"], "/nonexistent/kubelet.yaml"),
])
def test_bad_input_is_one_error_line(snapshot: str, args: List[str], message: str) -> None:
    rc, out, err = cli("-f", snapshot, "shutdown", "n1", *args)
    assert rc == 1
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert message in err


def test_missing_kubelet_config_names_the_flag(snapshot: str) -> None:
    rc, _, err = cli("-f", snapshot, "shutdown", "n1", "--kubelet-config", "/nonexistent/kubelet.yaml")
    assert rc == 1 and "--kubelet-config" in err and "no such file" in err


def test_unknown_node(snapshot: str) -> None:
    rc, _, err = cli("-f", snapshot, "shutdown", "n9")
    assert rc == 1 and err.startswith("error: ") and "unknown node 'n9'" in err


def test_non_graceful_refuses_graceful_settings(snapshot: str) -> None:
    rc, _, err = cli("-f", snapshot, "shutdown", "n1", "--non-graceful", "--grace-period", "30s")
    assert rc == 2 and err.startswith("error: ") and "--non-graceful" in err


def test_demo_non_graceful_and_table_output() -> None:
    rc, out, err = cli("--demo", "-o", "wide", "shutdown", "worker-c2", "--non-graceful")
    assert rc in (0, 3), err
    assert "node.kubernetes.io/out-of-service=nodeshutdown:NoExecute" in out
    assert "DETACH" in out and "Warning: add the node.kubernetes.io/out-of-service taint only once" in out


def test_output_is_byte_identical_across_hash_seeds(snapshot: str) -> None:
    outs = {cli("-f", snapshot, "-o", "yaml", "shutdown", "n1", "n2", env={"PYTHONHASHSEED": s})[1] for s in ("1", "2")}
    assert len(outs) == 1
