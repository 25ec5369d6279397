"""Shared helpers for the test suite: run the CLI for real, build small kubectl-shaped objects."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

REPO = Path(__file__).resolve().parents[1]
# Copies of shared/spec/vectors (upstream test tables) and shared/fixtures/real (real cluster
# captures), kept in the repo so the suite runs from any clone.
VECTORS = REPO / "tests" / "data" / "vectors"
FIXTURES = REPO / "tests" / "data" / "real"
NOW = "2026-11-21T12:00:00Z"

# Tables follow COLUMNS (render/terminal.py). The runner's own must not change what a test sees:
# pytest-xdist's workers export COLUMNS=80 and LINES=24, and a developer's shell may export them
# too. Every process a test starts inherits this environment; a test that wants a width sets it.
for _var in ("COLUMNS", "LINES"):
    os.environ.pop(_var, None)


def load_vectors(name: str) -> List[Dict[str, Any]]:
    return json.loads((VECTORS / name).read_text())["vectors"]


def vector_id(v: Dict[str, Any]) -> str:
    return v["source"].split(" ", 1)[-1][:90]


def run_cli(*args: str, input: Optional[str] = None, cwd: Optional[Path] = None,
            env: Optional[dict] = None) -> subprocess.CompletedProcess:
    """Run `python -m kubectl_evict ARGS` as a user would (a real process, real stdout/stderr).
    `env` adds to (or, with None values, removes from) the inherited environment."""
    extra = env or {}
    env = dict(os.environ)
    env.pop("EVICTPLAN_DEBUG", None)
    env["PYTHONPATH"] = str(REPO)
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return subprocess.run([sys.executable, "-m", "kubectl_evict", *args], input=input, capture_output=True,
                          text=True, cwd=str(cwd or REPO), env=env, timeout=120)


def node(name: str, *, labels: Optional[dict] = None, taints: Optional[list] = None, ready: str = "True",
         unschedulable: bool = False, cpu: str = "4", memory: str = "16Gi", pods: str = "110",
         zone: Optional[str] = "z1", extra_alloc: Optional[dict] = None) -> dict:
    lab = {"kubernetes.io/hostname": name}
    if zone:
        lab["topology.kubernetes.io/zone"] = zone
    lab.update(labels or {})
    alloc = {"cpu": cpu, "memory": memory, "pods": pods, "ephemeral-storage": "100Gi"}
    alloc.update(extra_alloc or {})
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": "uid-" + name, "labels": lab,
                         "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"unschedulable": unschedulable, "taints": taints or []},
            "status": {"capacity": dict(alloc), "allocatable": alloc,
                       "conditions": [{"type": "Ready", "status": ready, "reason": "KubeletReady",
                                       "lastHeartbeatTime": "2026-11-21T11:59:50Z",
                                       "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}


def pod(name: str, node_name: str, *, ns: str = "default", owner: Optional[tuple] = ("ReplicaSet", "rs"),
        labels: Optional[dict] = None, cpu: Optional[str] = "100m", memory: Optional[str] = "128Mi",
        tolerations: Optional[list] = None, node_selector: Optional[dict] = None,
        affinity: Optional[dict] = None, annotations: Optional[dict] = None, phase: str = "Running",
        ready: bool = True, priority: Optional[int] = None, volumes: Optional[list] = None) -> dict:
    meta: Dict[str, Any] = {"name": name, "namespace": ns, "uid": "uid-%s-%s" % (ns, name),
                            "labels": labels or {"app": name.rsplit("-", 1)[0]}}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner[0], "name": owner[1],
                                    "uid": "uid-" + owner[1], "controller": True}]
    if annotations:
        meta["annotations"] = annotations
    res: Dict[str, Any] = {}
    if cpu or memory:
        res["requests"] = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    spec: Dict[str, Any] = {"nodeName": node_name, "containers": [{"name": "app", "image": "x", "resources": res}]}
    if tolerations is None:
        tolerations = [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                       {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}]
    spec["tolerations"] = tolerations
    if node_selector:
        spec["nodeSelector"] = node_selector
    if affinity:
        spec["affinity"] = affinity
    if priority is not None:
        spec["priority"] = priority
    if volumes:
        spec["volumes"] = volumes
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


def complete_kinds() -> List[str]:
    """Every kind a live read lists, and the kubelet documents: what `snapshot` records in
    SnapshotInfo.kinds. The small clusters the tests build are complete clusters: a kind they
    have no object of is one the cluster has none of."""
    from kubectl_evict.source.freeze import KUBELET_KINDS
    from kubectl_evict.source.live import LISTS
    return [spec.kind for spec in LISTS] + list(KUBELET_KINDS)


# The controllers `with_owners` adds: those that recreate a pod elsewhere. Not DaemonSet: whether
# a DaemonSet exists decides kubectl drain's filter (`daemonsets.apps "x" not found`), which the
# tests that need it say themselves.
RECREATING_KINDS = ("ReplicaSet", "ReplicationController", "StatefulSet", "Job")
_API = {"ReplicaSet": "apps/v1", "ReplicationController": "v1", "StatefulSet": "apps/v1", "Job": "batch/v1"}


def with_owners(items: List[dict], kinds: Optional[List[str]] = None) -> List[dict]:
    """`items` plus the controller objects their pods name that are not among them, of the
    recreating kinds the input holds (`kinds`; None: every kind). A pod whose controller is of a
    kind the input holds in full, but absent, has no controller: the garbage collector deletes it
    and nothing recreates it (`garbagecollector.go` attemptToDeleteItem). The small clusters the
    tests build mean their pods' controllers to exist, as in a real cluster."""
    def key(kind: Any, meta: Any, name: Any) -> Optional[tuple]:
        ns = meta.get("namespace", "default") if isinstance(meta, dict) else None
        # the bad-input tests put any type anywhere: only well-formed names make a key
        return (kind, ns, name) if all(isinstance(v, str) for v in (kind, ns, name)) else None

    have = {key(i.get("kind"), i.get("metadata"), (i.get("metadata") or {}).get("name"))
            for i in items if isinstance(i, dict) and isinstance(i.get("metadata"), dict)}
    wanted: Dict[tuple, List[str]] = {}
    for i in items:
        if not isinstance(i, dict) or i.get("kind") != "Pod" or not isinstance(i.get("metadata"), dict):
            continue
        meta = i["metadata"]
        refs = meta.get("ownerReferences")
        for ref in refs if isinstance(refs, list) else ():
            if not isinstance(ref, dict):
                continue
            kind = ref.get("kind")
            if not ref.get("controller") or kind not in RECREATING_KINDS or (kinds is not None and kind not in kinds):
                continue
            k = key(kind, meta, ref.get("name"))
            if k is not None and k not in have:
                wanted.setdefault(k, []).append(ref.get("uid", ""))
    out = list(items)
    for (kind, ns, name), uids in wanted.items():
        spec: Dict[str, Any] = {}
        if kind != "Job":
            spec["replicas"] = len(uids)
        out.append({"apiVersion": _API[kind], "kind": kind,
                    "metadata": {"name": name, "namespace": ns, "uid": uids[0]}, "spec": spec})
    return out


def snapshot_list(*items: dict, now: str = NOW, kinds: Optional[List[str]] = None,
                  server_version: str = "", owners: bool = True) -> dict:
    """A v1 List of `items` with a SnapshotInfo taken at `now` that holds `kinds` in full
    (default: every kind, see `complete_kinds`) and records `server_version` as serverVersion
    (which release's behaviour the rules model; none: the newest modelled). With `owners`, the
    controllers the pods name are added where missing (`with_owners`); False: they stay absent.
    """
    if owners:
        items = tuple(with_owners(list(items), kinds))
    info = {"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
            "takenAt": now, "context": "test", "server": "https://test.invalid:6443",
            "kinds": complete_kinds() if kinds is None else kinds}
    if server_version:
        info["serverVersion"] = server_version
    return {"apiVersion": "v1", "kind": "List", "items": [info, *items]}


@pytest.fixture
def write_snapshot(tmp_path: Path):
    """Write objects as a v1 List file and return its path."""
    def _write(*items: dict, name: str = "cluster.json", server_version: str = "") -> str:
        p = tmp_path / name
        p.write_text(json.dumps(snapshot_list(*items, server_version=server_version)))
        return str(p)
    return _write
