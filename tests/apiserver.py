"""A small, real-HTTP Kubernetes API server for tests and benchmarks.

It serves a cluster loaded from a snapshot file (the same inputs ``kubectl evictplan -f`` reads)
over HTTP or HTTPS on 127.0.0.1, with upstream's URLs, bodies and status codes, so that both the
``kubernetes`` Python client and the real ``kubectl`` binary can talk to it:

* discovery (``/api``, ``/api/v1``, ``/apis``, ``/apis/G/V``, ``/version``), legacy format only
  (clients fall back from aggregated discovery);
* list (cluster-wide and per namespace) with ``limit``/``continue`` (opaque tokens bound to a
  resourceVersion; ``expire_continue_tokens()`` compacts, old tokens then get 410 Expired),
  ``labelSelector``, ``fieldSelector``; server-side Tables for ``kubectl get``;
* get, PATCH (strategic-merge, merge, json-patch) and PUT with resourceVersion conflicts, DELETE
  with ``gracePeriodSeconds``, preconditions and ``dryRun``;
* the ``pods/eviction`` subresource with the eviction REST handler's PDB logic;
* ``events.k8s.io/v1`` Events (stored like any other object: seed them with ``state.put``);
* ``nodes/NODE/proxy/{configz,stats/summary,pods,healthz}`` served from the snapshot's
  ``evictplan/v1alpha1`` NodeKubeletConfig / NodeStatsSummary objects (503 when a node has none);
* bearer-token auth with roles ``admin``, ``readonly``, ``noproxy`` (or a callable);
* fault injection (``server.faults.add(...)``): Status answers, delays, connection resets and
  connections closed half-way through a body; ``server.stuck_continue.add("pods")`` answers the
  same continue token forever.

Standard library only (PyYAML is imported lazily, only to read YAML snapshots).

    with ApiServer("cluster.json", tokens={"tok": "admin"}) as srv:
        srv.write_kubeconfig(tmp / "kubeconfig", token="tok")
        ...

Standalone: ``python tests/apiserver.py SNAPSHOT [--port 8080] [--tls] [--token T=ROLE]``.
"""

from __future__ import annotations

import argparse
import base64
import bisect
import copy
import gc
import gzip
import hashlib
import datetime as _dt
import json
import os
import re
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterable
from urllib.parse import parse_qs, unquote, urlsplit

__all__ = ["ApiServer", "ClusterState", "Faults", "Fault", "load_objects"]

SERVER_VERSION = {
    "major": "1",
    "minor": "33",
    "gitVersion": "v1.33.2-evictplan-test",
    "gitCommit": "0000000000000000000000000000000000000000",
    "gitTreeState": "clean",
    "buildDate": "2025-01-01T00:00:00Z",
    "goVersion": "go1.23.0",
    "compiler": "gc",
    "platform": "linux/amd64",
}

ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]
READ_VERBS = {"get", "list", "watch"}


# --------------------------------------------------------------------------------------------
# Resource table
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Resource:
    name: str
    kind: str
    group: str
    version: str
    namespaced: bool
    short: tuple = ()
    subresources: tuple = ("status",)
    fields: tuple = ()
    categories: tuple = ()

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def qualified(self) -> str:
        return f"{self.name}.{self.group}" if self.group else self.name


def _f_pod(o):
    spec, status = o.get("spec") or {}, o.get("status") or {}
    ips = status.get("podIPs") or []
    return {
        "spec.nodeName": spec.get("nodeName") or "",
        "spec.restartPolicy": spec.get("restartPolicy") or "",
        "spec.schedulerName": spec.get("schedulerName") or "",
        "spec.serviceAccountName": spec.get("serviceAccountName") or "",
        "spec.hostNetwork": "true" if spec.get("hostNetwork") else "false",
        "status.phase": status.get("phase") or "",
        "status.podIP": status.get("podIP") or "",
        "status.podIPs": ",".join(str(i.get("ip", "")) for i in ips if isinstance(i, dict)),
        "status.nominatedNodeName": status.get("nominatedNodeName") or "",
    }


def _f_node(o):
    return {"spec.unschedulable": "true" if (o.get("spec") or {}).get("unschedulable") else "false"}


def _f_ns(o):
    return {"status.phase": (o.get("status") or {}).get("phase") or ""}


def _f_rc(o):
    return {"status.replicas": str((o.get("status") or {}).get("replicas", 0))}


def _f_job(o):
    return {"status.successful": str((o.get("status") or {}).get("succeeded", 0))}


FIELD_FUNCS: dict[str, Callable[[dict], dict]] = {
    "pods": _f_pod, "nodes": _f_node, "namespaces": _f_ns,
    "replicationcontrollers": _f_rc, "jobs": _f_job,
}

RESOURCES = [
    Resource("pods", "Pod", "", "v1", True, ("po",), ("status", "eviction", "binding", "log"),
             tuple(_f_pod({}).keys()), ("all",)),
    Resource("nodes", "Node", "", "v1", False, ("no",), ("status", "proxy"), ("spec.unschedulable",)),
    Resource("namespaces", "Namespace", "", "v1", False, ("ns",), ("status", "finalize"),
             ("status.phase",)),
    Resource("replicationcontrollers", "ReplicationController", "", "v1", True, ("rc",),
             ("status", "scale"), ("status.replicas",), ("all",)),
    Resource("poddisruptionbudgets", "PodDisruptionBudget", "policy", "v1", True, ("pdb",)),
    Resource("priorityclasses", "PriorityClass", "scheduling.k8s.io", "v1", False, ("pc",), ()),
    Resource("daemonsets", "DaemonSet", "apps", "v1", True, ("ds",), ("status",), (), ("all",)),
    Resource("replicasets", "ReplicaSet", "apps", "v1", True, ("rs",), ("status", "scale"), (),
             ("all",)),
    Resource("statefulsets", "StatefulSet", "apps", "v1", True, ("sts",), ("status", "scale"), (),
             ("all",)),
    Resource("deployments", "Deployment", "apps", "v1", True, ("deploy",), ("status", "scale"), (),
             ("all",)),
    Resource("jobs", "Job", "batch", "v1", True, (), ("status",), ("status.successful",), ("all",)),
    Resource("volumeattachments", "VolumeAttachment", "storage.k8s.io", "v1", False),
    Resource("persistentvolumeclaims", "PersistentVolumeClaim", "", "v1", True, ("pvc",), ("status",)),
    Resource("persistentvolumes", "PersistentVolume", "", "v1", False, ("pv",), ("status",)),
    Resource("storageclasses", "StorageClass", "storage.k8s.io", "v1", False, ("sc",), ()),
    Resource("csinodes", "CSINode", "storage.k8s.io", "v1", False),
    Resource("csidrivers", "CSIDriver", "storage.k8s.io", "v1", False),
    Resource("leases", "Lease", "coordination.k8s.io", "v1", True, (), ()),
    Resource("resourceclaims", "ResourceClaim", "resource.k8s.io", "v1", True),
    Resource("resourceclaimtemplates", "ResourceClaimTemplate", "resource.k8s.io", "v1", True, (), ()),
    Resource("deviceclasses", "DeviceClass", "resource.k8s.io", "v1", False, (), ()),
    Resource("resourceslices", "ResourceSlice", "resource.k8s.io", "v1", False, (), ()),
    # events.k8s.io/v1 only (the core/v1 view of the same events is not served)
    Resource("events", "Event", "events.k8s.io", "v1", True, ("ev",), ()),
]
BY_KIND = {r.kind: r for r in RESOURCES}
BY_GVR = {(r.group, r.version, r.name): r for r in RESOURCES}
BY_NAME = {r.name: r for r in RESOURCES}
GROUP_ORDER = ["", "apps", "batch", "policy", "scheduling.k8s.io", "storage.k8s.io",
               "coordination.k8s.io", "resource.k8s.io", "events.k8s.io"]

KUBELET_KINDS = {"NodeKubeletConfig": "kubeletconfig", "NodeStatsSummary": "summary"}


def _resource(kind_or_name: str) -> Resource:
    r = BY_KIND.get(kind_or_name) or BY_NAME.get(kind_or_name) or BY_NAME.get(kind_or_name.lower())
    if r is None:
        for cand in RESOURCES:
            if kind_or_name.lower() in (cand.kind.lower(), *cand.short):
                return cand
        raise KeyError(f"unknown resource {kind_or_name!r}")
    return r


# --------------------------------------------------------------------------------------------
# Errors / Status
# --------------------------------------------------------------------------------------------

REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
           405: "MethodNotAllowed", 406: "NotAcceptable", 409: "Conflict", 410: "Expired",
           415: "UnsupportedMediaType", 422: "Invalid", 429: "TooManyRequests",
           500: "InternalError", 503: "ServiceUnavailable", 504: "Timeout"}


class ApiError(Exception):
    """An error answered as a metav1.Status."""

    def __init__(self, code: int, message: str, reason: str | None = "", details: dict | None = None,
                 list_meta: dict | None = None, headers: dict | None = None):
        super().__init__(message)
        self.code, self.message, self.details = code, message, details
        self.reason = REASONS.get(code, "") if reason == "" else reason
        self.list_meta = list_meta or {}
        self.headers = headers or {}

    def body(self) -> dict:
        return status_dict(self.code, self.message, self.reason, self.details, self.list_meta)


def status_dict(code, message, reason=None, details=None, list_meta=None, success=False):
    d = {"kind": "Status", "apiVersion": "v1", "metadata": dict(list_meta or {}),
         "status": "Success" if success else "Failure"}
    if message:
        d["message"] = message
    if reason:
        d["reason"] = reason
    if details:
        d["details"] = details
    d["code"] = code
    return d


def not_found(res: Resource, name: str) -> ApiError:
    return ApiError(404, f'{res.qualified} "{name}" not found',
                    details={"name": name, "group": res.group, "kind": res.name} if res.group
                    else {"name": name, "kind": res.name})


def conflict(res: Resource, name: str, why: str) -> ApiError:
    details = {"name": name, "kind": res.name}
    if res.group:
        details["group"] = res.group
    return ApiError(409, f'Operation cannot be fulfilled on {res.qualified} "{name}": {why}',
                    details=details)


MODIFIED = "the object has been modified; please apply your changes to the latest version and try again"


# --------------------------------------------------------------------------------------------
# Snapshot loading
# --------------------------------------------------------------------------------------------

def _parse_text(text: str, origin: str) -> list:
    s = text.lstrip()
    if s.startswith("{") or s.startswith("["):
        try:
            doc = json.loads(s)
            return doc if isinstance(doc, list) else [doc]
        except json.JSONDecodeError:
            pass
    import yaml  # lazily: only YAML snapshots need it
    try:
        return [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError as e:  # pragma: no cover - fixture error
        raise ValueError(f"{origin}: not JSON or YAML: {e}") from None


def _flatten(doc: Any, out: list, list_api_version: str | None = None, item_kind: str | None = None):
    if isinstance(doc, list):
        for d in doc:
            _flatten(d, out, list_api_version, item_kind)
        return
    if not isinstance(doc, dict):
        return
    kind = doc.get("kind") or item_kind
    if isinstance(doc.get("items"), list) and (kind is None or str(kind).endswith("List")):
        sub_kind = None
        if kind and kind != "List":
            sub_kind = kind[:-4]
        for it in doc["items"]:
            _flatten(it, out, doc.get("apiVersion"), sub_kind)
        return
    if kind is None:
        return
    obj = dict(doc)
    obj["kind"] = kind
    if not obj.get("apiVersion"):
        res = BY_KIND.get(kind)
        obj["apiVersion"] = res.api_version if res else (list_api_version or "v1")
    out.append(obj)


def load_objects(source: Any) -> list[dict]:
    """Raw object dicts from a path (file or directory), a list of dicts, or one dict/List."""
    out: list[dict] = []
    if isinstance(source, (str, os.PathLike)):
        p = Path(source)
        files = sorted(q for q in p.iterdir() if q.suffix in (".json", ".yaml", ".yml")) \
            if p.is_dir() else [p]
        for f in files:
            _flatten(_parse_text(f.read_text(), str(f)), out)
    else:
        _flatten(source, out)
    return out


# --------------------------------------------------------------------------------------------
# Selectors
# --------------------------------------------------------------------------------------------

_LS_TOKEN = re.compile(r"\s*(!=|==|=|!|\(|\)|,|<|>|[^\s!=(),<>]+)")


def parse_label_selector(text: str) -> Callable[[dict], bool]:
    """labels.Parse: `a=b,c!=d,e in (x,y),f notin (z),g,!h,i>3`."""
    toks = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _LS_TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ApiError(400, f"unable to parse requirement: invalid label selector {text!r}")
        toks.append(m.group(1))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    reqs = []
    i = 0

    def bad(msg):
        raise ApiError(400, f"unable to parse requirement: {msg}")

    while i < len(toks):
        t = toks[i]
        if t == "!":
            if i + 1 >= len(toks):
                bad("missing key after '!'")
            key = toks[i + 1]
            reqs.append(("!", key, None))
            i += 2
        else:
            key = t
            op = toks[i + 1] if i + 1 < len(toks) else ","
            if op == ",":
                reqs.append(("exists", key, None))
                i += 1
            elif op in ("=", "==", "!="):
                val = toks[i + 2] if i + 2 < len(toks) and toks[i + 2] != "," else ""
                reqs.append(("!=" if op == "!=" else "=", key, val))
                i += 3 if val != "" else 2
            elif op in ("<", ">"):
                try:
                    val = int(toks[i + 2])
                except (IndexError, ValueError):
                    bad(f"for 'Gt', 'Lt' operators, the value must be an integer: {text!r}")
                reqs.append((op, key, val))
                i += 3
            elif op in ("in", "notin"):
                if i + 2 >= len(toks) or toks[i + 2] != "(":
                    bad(f"found '{toks[i + 2] if i + 2 < len(toks) else ''}', expected: '('")
                j = i + 3
                vals = set()
                while j < len(toks) and toks[j] != ")":
                    if toks[j] != ",":
                        vals.add(toks[j])
                    j += 1
                if j >= len(toks):
                    bad("found '', expected: ')'")
                reqs.append((op, key, vals))
                i = j + 1
            else:
                bad(f"found '{op}', expected: in, notin, =, ==, !=, gt, lt")
        if i < len(toks):
            if toks[i] != ",":
                bad(f"found '{toks[i]}', expected: ','")
            i += 1

    def match(labels: dict) -> bool:
        for op, key, val in reqs:
            have = key in labels
            v = labels.get(key)
            if op == "exists" and not have:
                return False
            if op == "!" and have:
                return False
            if op == "=" and v != val:
                return False
            if op == "!=" and have and v == val:
                return False
            if op == "in" and (not have or v not in val):
                return False
            if op == "notin" and have and v in val:
                return False
            if op in ("<", ">"):
                try:
                    n = int(v)
                except (TypeError, ValueError):
                    return False
                if (op == ">" and not n > val) or (op == "<" and not n < val):
                    return False
        return True

    return match


def _split_unescaped(text: str, sep: str) -> list[str]:
    parts, cur, esc = [], [], False
    for ch in text:
        if esc:
            cur.append(ch)
            esc = False
        elif ch == "\\":
            esc = True
        elif ch == sep:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def parse_field_selector(text: str, res: Resource) -> Callable[["Entry"], bool]:
    reqs = []
    allowed = {"metadata.name", "metadata.namespace", *res.fields}
    for part in _split_unescaped(text, ","):
        if not part.strip():
            continue
        m = re.match(r"^([^!=]+)(==|!=|=)(.*)$", part.replace("\\=", "\x00"))
        if not m:
            raise ApiError(400, f"invalid selector: '{text}'; can't understand '{part}'")
        key, op, val = m.group(1).strip(), m.group(2), m.group(3).replace("\x00", "=")
        if key not in allowed:
            raise ApiError(400, f'field label not supported: {key}')
        reqs.append((key, op != "!=", val))

    def match(e: "Entry") -> bool:
        for key, eq, val in reqs:
            if key == "metadata.name":
                have = e.name
            elif key == "metadata.namespace":
                have = e.ns
            else:
                have = e.fields.get(key, "")
            if (have == val) != eq:
                return False
        return True

    return match


def label_selector_matches(sel: dict | None, labels: dict) -> bool | None:
    """metav1.LabelSelector match; None for a nil/empty selector (matches nothing for PDBs)."""
    if not sel or (not sel.get("matchLabels") and not sel.get("matchExpressions")):
        return None
    for k, v in (sel.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for ex in sel.get("matchExpressions") or []:
        k, op, vals = ex.get("key"), ex.get("operator"), ex.get("values") or []
        if op == "In" and labels.get(k) not in vals:
            return False
        if op == "NotIn" and k in labels and labels[k] in vals:
            return False
        if op == "Exists" and k not in labels:
            return False
        if op == "DoesNotExist" and k in labels:
            return False
    return True


# --------------------------------------------------------------------------------------------
# Patches
# --------------------------------------------------------------------------------------------

SMP_MERGE_KEYS = {"conditions": "type", "addresses": "type", "containers": "name",
                  "initContainers": "name", "ephemeralContainers": "name", "volumes": "name",
                  "env": "name", "ownerReferences": "uid", "imagePullSecrets": "name",
                  "volumeMounts": "mountPath", "ports": "containerPort", "volumesAttached": "name"}
SMP_PRIMITIVE_MERGE = {"finalizers"}
_DELETE = object()


def strategic_merge(orig: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    directive = patch.get("$patch")
    if directive == "delete":
        return _DELETE
    if directive == "replace":
        return {k: copy.deepcopy(v) for k, v in patch.items() if k != "$patch"}
    result = dict(orig) if isinstance(orig, dict) else {}
    for k, v in patch.items():
        if k in ("$patch", "$retainKeys") or k.startswith("$setElementOrder/"):
            continue
        if k.startswith("$deleteFromPrimitiveList/"):
            fld = k.split("/", 1)[1]
            result[fld] = [x for x in result.get(fld) or [] if x not in (v or [])]
            continue
        if v is None:
            result.pop(k, None)
            continue
        cur = result.get(k)
        if isinstance(v, dict):
            merged = strategic_merge(cur, v)
            if merged is _DELETE:
                result.pop(k, None)
            else:
                result[k] = merged
        elif isinstance(v, list) and k in SMP_MERGE_KEYS and all(isinstance(x, dict) for x in v):
            mk = SMP_MERGE_KEYS[k]
            items = [dict(x) for x in (cur or []) if isinstance(x, dict)]
            if any(x.get("$patch") == "replace" for x in v):
                result[k] = [dict((kk, vv) for kk, vv in x.items() if kk != "$patch")
                             for x in v if x.get("$patch") != "replace"]
                continue
            for pv in v:
                idx = next((i for i, x in enumerate(items) if x.get(mk) == pv.get(mk)), None)
                if pv.get("$patch") == "delete":
                    if idx is not None:
                        items.pop(idx)
                elif idx is None:
                    items.append(strategic_merge({}, pv))
                else:
                    items[idx] = strategic_merge(items[idx], pv)
            result[k] = items
        elif isinstance(v, list) and k in SMP_PRIMITIVE_MERGE:
            base = list(cur or [])
            result[k] = base + [x for x in v if x not in base]
        else:
            result[k] = copy.deepcopy(v)
    if isinstance(patch.get("$retainKeys"), list):
        keep = set(patch["$retainKeys"])
        result = {k: v for k, v in result.items() if k in keep}
    return result


def merge_patch(orig: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(orig) if isinstance(orig, dict) else {}
    for k, v in patch.items():
        if v is None:
            result.pop(k, None)
        else:
            result[k] = merge_patch(result.get(k), v)
    return result


def _pointer(path: str) -> list[str]:
    if path == "":
        return []
    if not path.startswith("/"):
        raise ValueError(f"JSON pointer must start with '/': {path!r}")
    return [p.replace("~1", "/").replace("~0", "~") for p in path[1:].split("/")]


def json_patch(doc: Any, ops: list) -> Any:
    doc = copy.deepcopy(doc)

    def parent(parts):
        cur = doc
        for p in parts[:-1]:
            cur = cur[int(p)] if isinstance(cur, list) else cur[p]
        return cur

    def get(parts):
        cur = doc
        for p in parts:
            cur = cur[int(p)] if isinstance(cur, list) else cur[p]
        return cur

    def add(parts, value):
        nonlocal doc
        if not parts:
            doc = value
            return
        par, last = parent(parts), parts[-1]
        if isinstance(par, list):
            if last == "-":
                par.append(value)
            else:
                i = int(last)
                if i > len(par):
                    raise IndexError(last)
                par.insert(i, value)
        else:
            par[last] = value

    def remove(parts):
        par, last = parent(parts), parts[-1]
        if isinstance(par, list):
            return par.pop(int(last))
        return par.pop(last)

    for op in ops:
        kind = op.get("op")
        parts = _pointer(op.get("path", ""))
        try:
            if kind == "add":
                add(parts, copy.deepcopy(op.get("value")))
            elif kind == "remove":
                remove(parts)
            elif kind == "replace":
                remove(parts)
                add(parts, copy.deepcopy(op.get("value")))
            elif kind == "test":
                if get(parts) != op.get("value"):
                    raise ValueError(f"testing value {op.get('path')} failed: test failed")
            elif kind == "move":
                v = remove(_pointer(op["from"]))
                add(parts, v)
            elif kind == "copy":
                add(parts, copy.deepcopy(get(_pointer(op["from"]))))
            else:
                raise ValueError(f"Unexpected kind: {kind}")
        except (KeyError, IndexError, TypeError) as e:
            raise ValueError(f"{kind} operation does not apply: doc is missing path: "
                             f"\"{op.get('path')}\": {e}") from None
    return doc


# --------------------------------------------------------------------------------------------
# Store
# --------------------------------------------------------------------------------------------

_ENCODE = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode


class Entry:
    """One stored object: immutable once built (snapshots share entries)."""
    __slots__ = ("key", "ns", "name", "rv", "_data", "_obj", "labels", "fields")

    def __init__(self, res: Resource, obj: dict):
        md = obj.get("metadata") or {}
        self.ns = (md.get("namespace") or "") if res.namespaced else ""
        self.name = md.get("name") or ""
        self.key = f"{self.ns}/{self.name}" if res.namespaced else self.name
        self.rv = md.get("resourceVersion") or ""
        self.labels = dict(md.get("labels") or {})
        ff = FIELD_FUNCS.get(res.name)
        self.fields = ff(obj) if ff else {}
        item = {k: v for k, v in obj.items() if k not in ("kind", "apiVersion")}
        self._obj = None
        self._data = _ENCODE(item).encode()

    @property
    def data(self) -> bytes:
        """The list-item form (no kind/apiVersion), serialized once."""
        return self._data

    def obj(self, res: Resource) -> dict:
        o = {"kind": res.kind, "apiVersion": res.api_version}
        o.update(json.loads(self._data))
        return o


@dataclass
class _Snap:
    since: int          # global resourceVersion of the last write reflected here
    keys: list
    entries: list


class ClusterState:
    """The server's objects. Thread-safe; every read returns fresh dicts."""

    HISTORY = 16

    def __init__(self, objects: Iterable[dict]):
        self.lock = threading.RLock()
        self.rv = 1
        self.compacted = 0
        self.store: dict[str, dict[str, Entry]] = {r.name: {} for r in RESOURCES}
        self.kubelet: dict[str, dict[str, Any]] = {"kubeletconfig": {}, "summary": {}}
        self._last_write: dict[str, int] = {r.name: 0 for r in RESOURCES}
        self._dirty: dict[str, set] = {r.name: set() for r in RESOURCES}
        self._snaps: dict[str, list[_Snap]] = {r.name: [] for r in RESOURCES}
        objs = list(objects)
        for o in objs:
            rv = (o.get("metadata") or {}).get("resourceVersion")
            if isinstance(rv, str) and rv.isdigit():
                self.rv = max(self.rv, int(rv))
        namespaces: set[str] = set()
        for o in objs:
            kind = o.get("kind")
            md = o.get("metadata") or {}
            if o.get("apiVersion") == "evictplan/v1alpha1" and kind in KUBELET_KINDS:
                fld = KUBELET_KINDS[kind]
                self.kubelet[fld][md.get("name", "")] = o.get(fld)
                continue
            res = BY_KIND.get(kind)
            if res is None or not md.get("name"):
                continue
            o = self._prepare(res, copy.copy(o))
            if res.namespaced:
                namespaces.add(o["metadata"]["namespace"])
            e = Entry(res, o)
            self.store[res.name][e.key] = e
        for ns in sorted(namespaces):
            if ns not in self.store["namespaces"]:
                o = self._prepare(BY_NAME["namespaces"], {
                    "kind": "Namespace", "apiVersion": "v1",
                    "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns}},
                    "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}})
                self.store["namespaces"][ns] = Entry(BY_NAME["namespaces"], o)
        self.rv += 1

    def _prepare(self, res: Resource, o: dict) -> dict:
        md = dict(o.get("metadata") or {})
        o["metadata"] = md
        o["kind"], o["apiVersion"] = res.kind, res.api_version
        if res.namespaced and not md.get("namespace"):
            md["namespace"] = "default"
        if not res.namespaced:
            md.pop("namespace", None)
        if not md.get("uid"):
            h = hashlib.sha1(f"evictplan-test/{res.name}/{md.get('namespace', '')}/{md['name']}"
                             .encode()).hexdigest()  # deterministic, uuid-shaped
            md["uid"] = f"{h[:8]}-{h[8:12]}-5{h[13:16]}-a{h[17:20]}-{h[20:32]}"
        rv = md.get("resourceVersion")
        if not (isinstance(rv, str) and rv.isdigit()):
            self.rv += 1
            md["resourceVersion"] = str(self.rv)
        if not md.get("creationTimestamp"):
            md["creationTimestamp"] = "2025-01-01T00:00:00Z"
        return o

    # ---- public inspection / seeding API -----------------------------------------------------
    def get(self, kind: str, name: str, namespace: str | None = None) -> dict | None:
        res = _resource(kind)
        key = f"{namespace or 'default'}/{name}" if res.namespaced else name
        with self.lock:
            e = self.store[res.name].get(key)
        return e.obj(res) if e else None

    def list(self, kind: str, namespace: str | None = None) -> list[dict]:
        res = _resource(kind)
        with self.lock:
            entries = sorted(self.store[res.name].values(), key=lambda e: e.key)
        return [e.obj(res) for e in entries if namespace is None or e.ns == namespace]

    def names(self, kind: str, namespace: str | None = None) -> list[str]:
        """Sorted `ns/name` (namespaced) or `name` keys."""
        res = _resource(kind)
        with self.lock:
            return sorted(k for k, e in self.store[res.name].items()
                          if namespace is None or e.ns == namespace)

    def put(self, obj: dict) -> dict:
        """Create or replace an object (test seeding); returns it with its new resourceVersion. An
        object without creationTimestamp gets the current time, as the API server stamps a create
        (objects loaded at start-up get a fixed old time instead)."""
        res = _resource(obj["kind"])
        with self.lock:
            o = copy.deepcopy(obj)
            o.setdefault("metadata", {}).pop("resourceVersion", None)
            if not o["metadata"].get("creationTimestamp"):
                o["metadata"]["creationTimestamp"] = _now_rfc3339()
            o = self._prepare(res, o)
            self._write(res, Entry(res, o))
            return o

    def delete(self, kind: str, name: str, namespace: str | None = None) -> bool:
        res = _resource(kind)
        key = f"{namespace or 'default'}/{name}" if res.namespaced else name
        with self.lock:
            if key not in self.store[res.name]:
                return False
            self._remove(res, key)
            return True

    def set_kubelet(self, node: str, kubeletconfig: Any = None, summary: Any = None):
        with self.lock:
            if kubeletconfig is not None:
                self.kubelet["kubeletconfig"][node] = kubeletconfig
            if summary is not None:
                self.kubelet["summary"][node] = summary

    # ---- internals ---------------------------------------------------------------------------
    def _bump(self) -> str:
        self.rv += 1
        return str(self.rv)

    def _write(self, res: Resource, e: Entry):
        self.store[res.name][e.key] = e
        self._last_write[res.name] = self.rv
        self._dirty[res.name].add(e.key)

    def _remove(self, res: Resource, key: str):
        self._bump()
        del self.store[res.name][key]
        self._last_write[res.name] = self.rv
        self._dirty[res.name].add(key)

    def snapshot(self, res: Resource) -> tuple[int, _Snap]:
        """(current global rv, sorted snapshot of the resource)."""
        with self.lock:
            snaps = self._snaps[res.name]
            last = self._last_write[res.name]
            if snaps and snaps[-1].since == last:
                return self.rv, snaps[-1]
            store = self.store[res.name]
            dirty = self._dirty[res.name]
            if snaps and len(dirty) < 1000:
                prev = snaps[-1]
                keys, entries = list(prev.keys), list(prev.entries)
                for k in dirty:
                    i = bisect.bisect_left(keys, k)
                    present = i < len(keys) and keys[i] == k
                    e = store.get(k)
                    if e is None and present:
                        del keys[i]
                        del entries[i]
                    elif e is not None and present:
                        entries[i] = e
                    elif e is not None:
                        keys.insert(i, k)
                        entries.insert(i, e)
            else:
                keys = sorted(store)
                entries = [store[k] for k in keys]
            dirty.clear()
            snap = _Snap(last, keys, entries)
            snaps.append(snap)
            del snaps[:-self.HISTORY]
            return self.rv, snap

    def snapshot_at(self, res: Resource, rv: int) -> _Snap | None:
        with self.lock:
            self.snapshot(res)
            for s in reversed(self._snaps[res.name]):
                if s.since <= rv:
                    return s
            return None

    def compact(self):
        """Forget every resourceVersion up to now: continue tokens issued so far expire."""
        with self.lock:
            self._bump()
            self.compacted = self.rv - 1
            for r in RESOURCES:
                self._snaps[r.name] = self._snaps[r.name][-1:]


# --------------------------------------------------------------------------------------------
# Tables (kubectl get)
# --------------------------------------------------------------------------------------------

def _parse_time(s: str | None) -> _dt.datetime | None:
    if not s:
        return None
    try:
        return _dt.datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        return None


def human_duration(seconds: float) -> str:
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return f"{s}s"
    m = s // 60
    if m < 10:
        return f"{m}m{s % 60}s" if s % 60 else f"{m}m"
    if m < 180:
        return f"{m}m"
    h = m // 60
    if h < 8:
        return f"{h}h{m % 60}m" if m % 60 else f"{h}h"
    if h < 48:
        return f"{h}h"
    if h < 24 * 8:
        return f"{h // 24}d{h % 24}h" if h % 24 else f"{h // 24}d"
    if h < 24 * 365 * 2:
        return f"{h // 24}d"
    if h < 24 * 365 * 8:
        dy = (h // 24) % 365
        return f"{h // 24 // 365}y{dy}d" if dy else f"{h // 24 // 365}y"
    return f"{h // 24 // 365}y"


def _age(o: dict) -> str:
    t = _parse_time((o.get("metadata") or {}).get("creationTimestamp"))
    if t is None:
        return "<unknown>"
    return human_duration((_dt.datetime.now(_dt.timezone.utc) - t).total_seconds())


def _col(name, typ="string", priority=0, fmt="", desc=""):
    return {"name": name, "type": typ, "format": fmt, "description": desc or name, "priority": priority}


def _node_row(o):
    st, spec, md = o.get("status") or {}, o.get("spec") or {}, o.get("metadata") or {}
    ready = next((c for c in st.get("conditions") or [] if c.get("type") == "Ready"), None)
    status = {"True": "Ready", "False": "NotReady"}.get((ready or {}).get("status"), "Unknown")
    if spec.get("unschedulable"):
        status += ",SchedulingDisabled"
    roles = sorted({k[len("node-role.kubernetes.io/"):] for k in (md.get("labels") or {})
                    if k.startswith("node-role.kubernetes.io/")} |
                   ({(md.get("labels") or {})["kubernetes.io/role"]}
                    if (md.get("labels") or {}).get("kubernetes.io/role") else set()))
    info = st.get("nodeInfo") or {}
    addr = {a.get("type"): a.get("address") for a in st.get("addresses") or []}
    return [md.get("name"), status, ",".join(r for r in roles if r) or "<none>", _age(o),
            info.get("kubeletVersion", ""), addr.get("InternalIP", "<none>"),
            addr.get("ExternalIP", "<none>"), info.get("osImage", "<unknown>"),
            info.get("kernelVersion", "<unknown>"), info.get("containerRuntimeVersion", "<unknown>")]


def _pod_row(o):
    st, spec, md = o.get("status") or {}, o.get("spec") or {}, o.get("metadata") or {}
    reason = st.get("reason") or st.get("phase") or ""
    restarts = ready_n = 0
    has_running = False
    for cs in reversed(st.get("containerStatuses") or []):
        restarts += int(cs.get("restartCount") or 0)
        state = cs.get("state") or {}
        if (state.get("waiting") or {}).get("reason"):
            reason = state["waiting"]["reason"]
        elif (state.get("terminated") or {}).get("reason"):
            reason = state["terminated"]["reason"]
        elif "terminated" in state:
            t = state["terminated"]
            reason = f"Signal:{t['signal']}" if t.get("signal") else f"ExitCode:{t.get('exitCode', 0)}"
        elif cs.get("ready") and "running" in state:
            has_running = True
            ready_n += 1
    if reason == "Completed" and has_running:
        ready_cond = any(c.get("type") == "Ready" and c.get("status") == "True"
                         for c in st.get("conditions") or [])
        reason = "Running" if ready_cond else "NotReady"
    if md.get("deletionTimestamp"):
        reason = "Unknown" if st.get("reason") == "NodeLost" else "Terminating"
    return [md.get("name"), f"{ready_n}/{len(spec.get('containers') or [])}", reason, str(restarts), _age(o),
            st.get("podIP") or "<none>", spec.get("nodeName") or "<none>",
            st.get("nominatedNodeName") or "<none>", "<none>"]


TABLES = {
    "nodes": ([_col("Name", fmt="name"), _col("Status"), _col("Roles"), _col("Age"), _col("Version"),
               _col("Internal-IP", priority=1), _col("External-IP", priority=1),
               _col("OS-Image", priority=1), _col("Kernel-Version", priority=1),
               _col("Container-Runtime", priority=1)], _node_row),
    "pods": ([_col("Name", fmt="name"), _col("Ready"), _col("Status"), _col("Restarts", "string"),
              _col("Age"), _col("IP", priority=1), _col("Node", priority=1),
              _col("Nominated Node", priority=1), _col("Readiness Gates", priority=1)], _pod_row),
}
DEFAULT_TABLE = ([_col("Name", fmt="name"), _col("Age")],
                 lambda o: [(o.get("metadata") or {}).get("name"), _age(o)])


def to_table(res: Resource, objs: list[dict], list_meta: dict, include: str) -> dict:
    cols, rowf = TABLES.get(res.name, DEFAULT_TABLE)
    rows = []
    for o in objs:
        row = {"cells": rowf(o)}
        if include == "Object":
            row["object"] = o
        elif include != "None":
            row["object"] = {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                             "metadata": o.get("metadata") or {}}
        rows.append(row)
    return {"kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": list_meta,
            "columnDefinitions": cols, "rows": rows}


# --------------------------------------------------------------------------------------------
# Faults
# --------------------------------------------------------------------------------------------

GZIP_THRESHOLD = 128 * 1024   # kube-apiserver's defaultGzipThresholdBytes


@dataclass
class Fault:
    """One programmed fault. `hits` counts how often it fired."""
    method: str | None = None
    path_regex: str | None = None
    query_regex: str | None = None
    status: int | None = None
    message: str | None = None
    reason: str | None = None
    retry_after: int | None = None
    delay: float = 0.0
    reset: bool = False
    partial: float | bool = False
    times: int | None = 1
    skip: int = 0
    body: Any = None
    wire: Any = None
    hits: int = 0
    seen: int = 0

    def matches(self, method: str, path: str, query: str) -> bool:
        if self.method and self.method.upper() != method:
            return False
        if self.path_regex and not re.search(self.path_regex, path):
            return False
        if self.query_regex and not re.search(self.query_regex, query):
            return False
        return True


class Faults:
    """Programmable faults, checked in order; the first live match fires.

    Kinds (combinable with `delay`):
      status=CODE            answer a metav1.Status with that code instead of handling the request
      delay=SECONDS          sleep first (client timeouts), then handle normally or apply the rest
      reset=True             drop the connection without any response (TCP RST)
      partial=True|FRACTION  handle the request, send the headers and that fraction of the body
                             (default half), then close the connection
      body=FUNCTION          handle the request, then send FUNCTION(answer bytes) as the whole
                             answer, same status (an API server or proxy that answers garbage)
      wire=FUNCTION          like body, but FUNCTION gets the bytes as they go on the wire, after
                             compression (a proxy that breaks or re-packs a gzip answer)
    `times` (None: forever) limits firings; `skip` lets the first N matching requests through.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._faults: list[Fault] = []

    def add(self, method: str | None = None, path_regex: str | None = None, *,
            status: int | None = None, delay: float = 0.0, reset: bool = False,
            partial: float | bool = False, times: int | None = 1, skip: int = 0,
            message: str | None = None, reason: str | None = None,
            retry_after: int | None = None, query_regex: str | None = None,
            body: Any = None, wire: Any = None) -> Fault:
        f = Fault(method, path_regex, query_regex, status, message, reason, retry_after, delay,
                  reset, partial, times, skip, body, wire)
        with self._lock:
            self._faults.append(f)
        return f

    def clear(self):
        with self._lock:
            self._faults.clear()

    def __len__(self):
        return len(self._faults)

    def take(self, method: str, path: str, query: str) -> Fault | None:
        with self._lock:
            for f in self._faults:
                if f.times is not None and f.hits >= f.times:
                    continue
                if not f.matches(method, path, query):
                    continue
                f.seen += 1
                if f.seen <= f.skip:
                    continue
                f.hits += 1
                return f
        return None


# --------------------------------------------------------------------------------------------
# Auth
# --------------------------------------------------------------------------------------------

def role_allows(role: Any, verb: str, resource: str, subresource: str) -> bool:
    full = f"{resource}/{subresource}" if subresource else resource
    if callable(role):
        return bool(role(verb, full))
    if role == "admin":
        return True
    if role == "noproxy":
        return full != "nodes/proxy"
    if role == "readonly":
        return verb in READ_VERBS or (full == "nodes/proxy" and verb == "get")
    if role == "readonly-noproxy":
        return verb in READ_VERBS and full != "nodes/proxy"
    return False


# --------------------------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------------------------

class _Drop(Exception):
    """The connection was deliberately dropped: write nothing more."""


def _now_rfc3339() -> str:
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _encode_continue(rv: int, start: str) -> str:
    raw = json.dumps({"v": "meta.k8s.io/v1", "rv": rv, "start": start}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _decode_continue(tok: str) -> tuple[int, str]:
    try:
        raw = base64.urlsafe_b64decode(tok + "=" * (-len(tok) % 4))
        d = json.loads(raw)
        if d.get("v") != "meta.k8s.io/v1" or not isinstance(d.get("start"), str):
            raise ValueError
        return int(d["rv"]), d["start"]
    except Exception:
        raise ApiError(400, "continue key is not valid: incorrect encoded start resourceVersion "
                            "(version meta.k8s.io/v1)") from None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "evictplan-test-apiserver"
    timeout = 120
    api: "ApiServer"

    def log_message(self, fmt, *args):  # quiet unless verbose
        if self.api.verbose:
            sys.stderr.write("%s - %s\n" % (self.address_string(), fmt % args))

    def setup(self):
        super().setup()
        self.api._conns.add(self.connection)

    def finish(self):
        try:
            super().finish()
        except (OSError, ValueError):
            pass
        self.api._conns.discard(self.connection)

    def date_time_string(self, timestamp=None):
        """The `Date` of every answer, as kube-apiserver sends it (Go's net/http adds one to each
        response): this server's clock, `api.clock_offset` seconds off the local one."""
        return super().date_time_string(time.time() + self.api.clock_offset if timestamp is None else timestamp)

    def send_response(self, code, message=None):
        if self.api.send_date:
            super().send_response(code, message)
            return
        self.log_request(code)      # a proxy that strips Date: no server clock to read
        self.send_response_only(code, message)
        self.send_header("Server", self.version_string())

    def do_GET(self):
        self._serve("GET")

    def do_POST(self):
        self._serve("POST")

    def do_PUT(self):
        self._serve("PUT")

    def do_PATCH(self):
        self._serve("PATCH")

    def do_DELETE(self):
        self._serve("DELETE")

    def do_HEAD(self):
        self._serve("HEAD")

    # ---- plumbing ------------------------------------------------------------------------------
    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                n = int(self.rfile.readline().strip().split(b";")[0] or b"0", 16)
                if n == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(n))
                self.rfile.readline()
            return b"".join(chunks)
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _json_body(self, raw: bytes) -> Any:
        if not raw.strip():
            return None
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            ctype = self.headers.get("Content-Type", "")
            if "yaml" in ctype:
                import yaml
                return yaml.safe_load(raw)
            raise ApiError(400, f"couldn't get version/kind; json parse error: invalid JSON body")

    def _drop(self, rst: bool = True):
        try:
            if rst:
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            else:
                self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self.connection.close()
        except OSError:
            pass
        self.close_connection = True
        raise _Drop()

    def _send(self, code: int, body: bytes, ctype: str = "application/json",
              headers: dict | None = None, partial: float | bool = False, wire: Any = None):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Cache-Control", "no-cache, private")
        if self.api.gzip and len(body) > GZIP_THRESHOLD and self.command != "HEAD" and "gzip" in [
                t.split(";")[0].strip() for t in self.headers.get("Accept-Encoding", "").split(",")]:
            body = gzip.compress(body, compresslevel=1, mtime=0)
            self.api.compressed.append(self.path)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Vary", "Accept-Encoding")
        if wire is not None:
            body = wire(body)
        size = self.api.chunk
        chunked = 0 < size < len(body) and self.command != "HEAD"
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        if self.command == "HEAD":
            return
        if chunked:
            pieces = (body[i:i + size] for i in range(0, len(body), size))
            body = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in pieces) + b"0\r\n\r\n"
        if partial:
            frac = 0.5 if partial is True else float(partial)
            self.wfile.write(body[: max(1, int(len(body) * frac))] if body else b"")
            self.wfile.flush()
            self._drop(rst=False)
        self.wfile.write(body)

    def _send_json(self, code: int, obj: Any, **kw):
        self._send(code, json.dumps(obj, separators=(",", ":")).encode(), **kw)

    def _serve(self, method: str):
        api = self.api
        url = urlsplit(self.path)
        # Go's net/http decodes the path (%2F too) before the apiserver routes it: the Python
        # client quotes path parameters, e.g. nodes/NODE/proxy/stats%2Fsummary.
        path, query = unquote(url.path), url.query
        api._log_request(method, unquote(self.path), self.headers)
        partial: float | bool = False
        rewrite = wire = None
        try:
            try:
                raw = self._body()
            except (OSError, ValueError):
                self.close_connection = True
                return
            fault = api.faults.take(method, path, unquote(query))
            if fault is not None:
                if fault.delay:
                    time.sleep(fault.delay)
                if fault.reset:
                    self._drop(rst=True)
                if fault.status:
                    err = ApiError(fault.status, fault.message or f"injected fault: HTTP {fault.status}",
                                   fault.reason if fault.reason is not None else "",
                                   details={"retryAfterSeconds": fault.retry_after} if fault.retry_after else None,
                                   headers={"Retry-After": fault.retry_after} if fault.retry_after else None)
                    self._send_json(err.code, err.body(), headers=err.headers)
                    return
                partial, rewrite, wire = fault.partial, fault.body, fault.wire
            q = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
            code, payload, ctype, headers = api._dispatch(self, method, path, q, raw)
            if not isinstance(payload, (bytes, bytearray)):
                payload = json.dumps(payload, separators=(",", ":")).encode()
            if rewrite is not None:
                payload = rewrite(bytes(payload))
            self._send(code, bytes(payload), ctype=ctype, headers=headers, partial=partial, wire=wire)
        except _Drop:
            return
        except ApiError as e:
            try:
                self._send_json(e.code, e.body(), headers=e.headers, partial=partial)
            except _Drop:
                return
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as e:  # an unexpected server bug: answer 500, keep serving
            import traceback
            traceback.print_exc()
            try:
                self._send_json(500, status_dict(500, f"test apiserver bug: {e!r}", "InternalError"))
            except Exception:
                self.close_connection = True


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    ssl_context: ssl.SSLContext | None = None

    def finish_request(self, request, client_address):
        if self.ssl_context is not None:
            try:
                request = self.ssl_context.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                return
        super().finish_request(request, client_address)

    def handle_error(self, request, client_address):  # connection drops are expected in tests
        exc = sys.exc_info()[1]
        if isinstance(exc, (OSError, ValueError, ssl.SSLError)):
            return
        super().handle_error(request, client_address)


# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------

class ApiServer:
    """A Kubernetes API server over real HTTP(S) on 127.0.0.1, for tests.

    ApiServer(objects_or_path, tokens=None, *, tls=False, port=0, host="127.0.0.1",
              verbose=False)

    `objects_or_path`: a snapshot path (file or directory; JSON or YAML; v1 List, typed lists,
    single objects, multi-document YAML), or already-parsed dicts. `tokens`: {token: role} with
    role "admin", "readonly" (no writes), "noproxy" (everything but nodes/proxy),
    "readonly-noproxy", or a callable (verb, "resource[/subresource]") -> bool; None: no auth.
    """

    def __init__(self, objects_or_path: Any = (), tokens: dict | None = None, *, tls: bool = False,
                 port: int = 0, host: str = "127.0.0.1", verbose: bool = False, chunk: int = 0,
                 gzip: bool = True):
        gc_was_enabled = gc.isenabled()
        gc.disable()  # loading 150k objects allocates a lot and creates no cycles
        try:
            self.state = ClusterState(load_objects(objects_or_path))
        finally:
            if gc_was_enabled:
                gc.enable()
        self.tokens = dict(tokens) if tokens else None
        self.faults = Faults()
        self.requests: list[tuple[str, str]] = []
        self.request_headers: list[tuple[str, str, list[tuple[str, str]]]] = []
        self.verbose = verbose
        # > 0: answers larger than this go out with Transfer-Encoding: chunked, in chunks of this
        # size, as kube-apiserver v1.33+ streams lists (KEP-5116: one write per item, through Go's
        # 2 KB response buffer) to a client that asks for no gzip
        self.chunk = chunk
        # answers over 128 KiB to a client that accepts gzip are compressed (level 1), as
        # kube-apiserver does (APIResponseCompression, on by default; responsewriters/writers.go)
        self.gzip = gzip
        self.compressed: list[str] = []    # the requests whose answers went out compressed
        # this server's clock against the local one (seconds; a skewed laptop is the other way
        # round), as every answer's Date header states it; send_date=False: answers carry no Date
        self.clock_offset = 0.0
        self.send_date = True
        self.tls = tls
        self.ca_file: str | None = None
        self._host, self._port = host, port
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._tmpdir: str | None = None
        self._conns: set = set()
        self._req_lock = threading.Lock()
        # resources (e.g. "pods") whose lists ignore `continue` and answer the same first page and
        # the same continue token forever, as a broken proxy would
        self.stuck_continue: set[str] = set()

    # ---- lifecycle -----------------------------------------------------------------------------
    def start(self) -> "ApiServer":
        handler = type("Handler", (_Handler,), {"api": self})
        self._httpd = _HTTPServer((self._host, self._port), handler)
        if self.tls:
            self._httpd.ssl_context = self._make_ssl_context()
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="test-apiserver", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        if self._httpd is not None:
            self._httpd.shutdown()
            for c in list(self._conns):
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            self._httpd.server_close()
            self._httpd = None
        if self._tmpdir:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None

    def __enter__(self) -> "ApiServer":
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://{self._host}:{self.port}"

    def _make_ssl_context(self) -> ssl.SSLContext:
        openssl = shutil.which("openssl")
        if not openssl:
            raise RuntimeError("TLS mode needs the openssl command line tool")
        self._tmpdir = tempfile.mkdtemp(prefix="test-apiserver-")
        cert, key = os.path.join(self._tmpdir, "tls.crt"), os.path.join(self._tmpdir, "tls.key")
        subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                        "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                        "-addext", "basicConstraints=critical,CA:TRUE"],
                       check=True, capture_output=True)
        self.ca_file = cert
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        return ctx

    def write_kubeconfig(self, path: str | os.PathLike, token: str | None = None,
                         context: str = "test", insecure: bool | None = None) -> Path:
        """Write a kubeconfig (JSON, which kubectl and the client read as YAML) for this server.

        HTTPS: the self-signed certificate is embedded as certificate-authority-data, or
        `insecure-skip-tls-verify: true` with insecure=True. Note that kubectl (client-go's
        clientcmd) sends credentials only over TLS: token tests with kubectl need tls=True
        (the Python client sends the token over plain HTTP too)."""
        cluster: dict[str, Any] = {"server": self.url}
        if self.tls:
            if insecure:
                cluster["insecure-skip-tls-verify"] = True
            else:
                cluster["certificate-authority-data"] = base64.b64encode(
                    Path(self.ca_file).read_bytes()).decode()
        user: dict[str, Any] = {"token": token} if token else {}
        cfg = {"apiVersion": "v1", "kind": "Config", "preferences": {},
               "clusters": [{"name": context, "cluster": cluster}],
               "users": [{"name": context, "user": user}],
               "contexts": [{"name": context, "context": {"cluster": context, "user": context}}],
               "current-context": context}
        p = Path(path)
        p.write_text(json.dumps(cfg, indent=2))
        return p

    def expire_continue_tokens(self):
        """Compact: every continue token issued so far now gets 410 Gone (reason Expired)."""
        self.state.compact()

    def _log_request(self, method: str, path: str, headers: Any = None):
        with self._req_lock:
            self.requests.append((method, path))
            # every header line as sent (repeated headers such as Impersonate-Group stay separate)
            self.request_headers.append((method, path, list(headers.items()) if headers is not None else []))

    def clear_requests(self):
        with self._req_lock:
            self.requests.clear()
            self.request_headers.clear()

    def headers_of(self, path_prefix: str, name: str) -> list[list[str]]:
        """For each recorded request whose path starts with `path_prefix`: the values of header `name`."""
        with self._req_lock:
            return [[v for k, v in hdrs if k.lower() == name.lower()]
                    for _m, p, hdrs in self.request_headers if p.startswith(path_prefix)]

    # ---- dispatch ------------------------------------------------------------------------------
    def _authorize(self, handler: _Handler, verb: str, res_name: str, sub: str, ns: str, name: str,
                   group: str):
        if self.tokens is None:
            return
        auth = handler.headers.get("Authorization", "")
        tok = auth[7:].strip() if auth.lower().startswith("bearer ") else None
        if tok is None or tok not in self.tokens:
            raise ApiError(401, "Unauthorized")
        if res_name is None:  # discovery: every authenticated user
            return
        role = self.tokens[tok]
        if role_allows(role, verb, res_name, sub):
            return
        user = f"system:serviceaccount:test:{role if isinstance(role, str) else 'custom'}"
        full = f"{res_name}/{sub}" if sub else res_name
        scope = f'in the namespace "{ns}"' if ns else "at the cluster scope"
        qual = f"{res_name}.{group}" if group else res_name
        subject = f'{qual} "{name}"' if name else qual
        raise ApiError(403, f'{subject} is forbidden: User "{user}" cannot {verb} resource "{full}" '
                            f'in API group "{group}" {scope}',
                       details={"name": name, "group": group, "kind": res_name} if group
                       else ({"name": name, "kind": res_name} if name else {"kind": res_name}))

    def _dispatch(self, h: _Handler, method: str, path: str, q: dict, raw: bytes):
        parts = [p for p in path.split("/") if p]
        if method == "HEAD":
            method = "GET"
        if parts in (["version"], ["healthz"], ["livez"], ["readyz"]):
            if parts == ["version"]:
                return 200, SERVER_VERSION, "application/json", None
            return 200, b"ok", "text/plain; charset=utf-8", None
        if parts and parts[0] in ("api", "apis"):
            # discovery
            if parts == ["api"]:
                self._authorize(h, "get", None, "", "", "", "")
                return 200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs":
                             [{"clientCIDR": "0.0.0.0/0", "serverAddress": f"{self._host}:{self.port}"}]}, \
                    "application/json", None
            if parts == ["apis"]:
                self._authorize(h, "get", None, "", "", "", "")
                return 200, self._group_list(), "application/json", None
            if parts[0] == "api":
                group, rest = "", parts[1:]
            else:
                group, rest = parts[1], parts[2:]
            if not rest:
                self._authorize(h, "get", None, "", "", "", "")
                g = self._group(group)
                if g is None:
                    raise ApiError(404, "the server could not find the requested resource",
                                   details={"causes": [{"reason": "UnexpectedServerResponse",
                                                        "message": "404 page not found"}]})
                return 200, g, "application/json", None
            version, rest = rest[0], rest[1:]
            if not rest:
                self._authorize(h, "get", None, "", "", "", "")
                rl = self._resource_list(group, version)
                if rl is None:
                    raise ApiError(404, "the server could not find the requested resource")
                return 200, rl, "application/json", None
            return self._resource_request(h, method, group, version, rest, q, raw)
        if parts and parts[0] in ("openapi",):
            raise ApiError(404, "the server could not find the requested resource")
        raise ApiError(404, "the server could not find the requested resource")

    # discovery
    def _group(self, group: str):
        if not any(r.group == group for r in RESOURCES) or group == "":
            return None
        gv = {"groupVersion": f"{group}/v1", "version": "v1"}
        return {"kind": "APIGroup", "apiVersion": "v1", "name": group, "versions": [gv],
                "preferredVersion": gv}

    def _group_list(self):
        groups = [self._group(g) for g in GROUP_ORDER if g]
        for g in groups:
            g.pop("kind"), g.pop("apiVersion")
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}

    def _resource_list(self, group: str, version: str):
        rs = [r for r in RESOURCES if r.group == group and r.version == version]
        if not rs:
            return None
        out = []
        for r in rs:
            d = {"name": r.name, "singularName": r.kind.lower(), "namespaced": r.namespaced,
                 "kind": r.kind, "verbs": ALL_VERBS}
            if r.short:
                d["shortNames"] = list(r.short)
            if r.categories:
                d["categories"] = list(r.categories)
            out.append(d)
            for sub in r.subresources:
                sd: dict[str, Any] = {"name": f"{r.name}/{sub}", "singularName": "", "namespaced": r.namespaced}
                if sub == "status":
                    sd.update(kind=r.kind, verbs=["get", "patch", "update"])
                elif sub == "scale":
                    sd.update(group="autoscaling", version="v1", kind="Scale", verbs=["get", "patch", "update"])
                elif sub == "eviction":
                    sd.update(group="policy", version="v1", kind="Eviction", verbs=["create"])
                elif sub == "binding":
                    sd.update(kind="Binding", verbs=["create"])
                elif sub == "log":
                    sd.update(kind="Pod", verbs=["get"])
                elif sub == "proxy":
                    sd.update(kind="NodeProxyOptions", verbs=["create", "delete", "get", "patch", "update"])
                elif sub == "finalize":
                    sd.update(kind="Namespace", verbs=["update"])
                out.append(sd)
        gv = f"{group}/{version}" if group else version
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": out}

    # resources
    def _resource_request(self, h, method, group, version, rest, q, raw):
        ns = ""
        if len(rest) >= 3 and rest[0] == "namespaces" and \
                (group, version, rest[2]) in BY_GVR and BY_GVR[(group, version, rest[2])].namespaced:
            ns, rest = rest[1], rest[2:]
        res = BY_GVR.get((group, version, rest[0]))
        if res is None:
            raise ApiError(404, "the server could not find the requested resource")
        name = rest[1] if len(rest) > 1 else ""
        sub = rest[2] if len(rest) > 2 else ""
        if sub and sub not in res.subresources:
            raise ApiError(404, "the server could not find the requested resource")
        if sub != "proxy" and len(rest) > 3:
            raise ApiError(404, "the server could not find the requested resource")
        if res.namespaced and name and not ns:
            raise ApiError(404, "the server could not find the requested resource")
        watch = q.get("watch") in ("1", "true")
        verb = {"GET": "watch" if watch else ("get" if name else "list"), "POST": "create",
                "PUT": "update", "PATCH": "patch", "DELETE": "delete" if name else "deletecollection"}[method]
        self._authorize(h, verb, res.name, sub, ns, name, group)
        if watch:
            raise ApiError(405, "watch is not supported by the evictplan test apiserver")
        if sub == "proxy":
            if method != "GET":
                raise ApiError(405, f"the server does not allow this method on the requested resource")
            return self._node_proxy(name, "/".join(rest[3:]), q)
        if method == "GET":
            if name:
                obj = self._get(res, ns, name, sub)
                return self._answer_objects(h, res, [obj], None, single=True)
            return self._list(h, res, ns, q)
        if method == "POST":
            if sub == "eviction":
                return self._evict(ns, name, q, raw, h)
            raise ApiError(405, "create is not supported by the evictplan test apiserver")
        if method == "DELETE":
            if not name:
                raise ApiError(405, "deletecollection is not supported by the evictplan test apiserver")
            return self._delete(res, ns, name, q, h._json_body(raw) or {})
        if method == "PATCH":
            return self._patch(res, ns, name, sub, q, raw, h.headers.get("Content-Type", ""), h)
        if method == "PUT":
            return self._put(res, ns, name, sub, q, h._json_body(raw))
        raise ApiError(405, "the server does not allow this method on the requested resource")

    def _key(self, res: Resource, ns: str, name: str) -> str:
        return f"{ns}/{name}" if res.namespaced else name

    def _entry(self, res: Resource, ns: str, name: str) -> Entry:
        e = self.state.store[res.name].get(self._key(res, ns, name))
        if e is None:
            raise not_found(res, name)
        return e

    def _get(self, res, ns, name, sub):
        if sub not in ("", "status"):
            raise ApiError(405, "the server does not allow this method on the requested resource")
        with self.state.lock:
            return self._entry(res, ns, name).obj(res)

    def _wants_table(self, h) -> bool:
        return "as=Table" in h.headers.get("Accept", "")

    def _answer_objects(self, h, res, objs, list_meta, single=False):
        if self._wants_table(h):
            q = {k: v[-1] for k, v in parse_qs(urlsplit(h.path).query).items()}
            meta = list_meta if list_meta is not None else {"resourceVersion": objs[0]["metadata"].get("resourceVersion", "")}
            return 200, to_table(res, objs, meta, q.get("includeObject", "Metadata")), \
                "application/json;as=Table;v=v1;g=meta.k8s.io", None
        return 200, objs[0], "application/json", None

    def _list(self, h, res: Resource, ns: str, q: dict):
        lsel = parse_label_selector(q["labelSelector"]) if q.get("labelSelector") else None
        fsel = parse_field_selector(q["fieldSelector"], res) if q.get("fieldSelector") else None
        try:
            limit = int(q.get("limit") or 0)
        except ValueError:
            raise ApiError(400, f"invalid limit {q.get('limit')!r}") from None
        tok = q.get("continue") or ""
        if res.name in self.stuck_continue:
            tok = ""
        if tok:
            rv, start = _decode_continue(tok)
            if rv == -1:
                list_rv, snap = self.state.snapshot(res)
            else:
                snap = self.state.snapshot_at(res, rv) if rv > self.state.compacted else None
                if snap is None:
                    # like the etcd3 store after compaction: 410 plus a token to continue inconsistently
                    raise ApiError(410, "The provided continue parameter is too old to display a "
                                        "consistent list result. You can start a new list without the "
                                        "continue parameter, or use the continue token in this response "
                                        "to retrieve the remainder of the results. Continuing with the "
                                        "provided token results in an inconsistent list - objects that "
                                        "were created, modified, or deleted between the time the first "
                                        "chunk was returned and now may show up in the list.",
                                   list_meta={"continue": _encode_continue(-1, start)})
                list_rv = rv
        else:
            start = ""
            list_rv, snap = self.state.snapshot(res)
        keys, entries = snap.keys, snap.entries
        lo, hi = 0, len(keys)
        if ns:
            lo, hi = bisect.bisect_left(keys, ns + "/"), bisect.bisect_left(keys, ns + "0")
        if start:
            lo = max(lo, bisect.bisect_left(keys, start))
        picked: list[Entry] = []
        i = lo
        if lsel is None and fsel is None:
            stop = hi if not limit else min(hi, lo + limit)
            picked = entries[lo:stop]
            i = stop
        else:
            while i < hi and (not limit or len(picked) < limit):
                e = entries[i]
                i += 1
                if lsel is not None and not lsel(e.labels):
                    continue
                if fsel is not None and not fsel(e):
                    continue
                picked.append(e)
        meta: dict[str, Any] = {"resourceVersion": str(list_rv)}
        if limit and i < hi:
            meta["continue"] = _encode_continue(list_rv if list_rv >= 0 else self.state.rv,
                                                keys[i - 1] + "\x00")
            if lsel is None and fsel is None:
                meta["remainingItemCount"] = hi - i
        if res.name in self.stuck_continue:
            meta["continue"] = _encode_continue(list_rv, "stuck")
        if self._wants_table(h):
            return self._answer_objects(h, res, [e.obj(res) for e in picked], meta)
        head = json.dumps({"kind": f"{res.kind}List", "apiVersion": res.api_version, "metadata": meta},
                          separators=(",", ":")).encode()
        body = b"".join((head[:-1], b',"items":[', b",".join(e.data for e in picked), b"]}"))
        return 200, body, "application/json", None

    # ---- writes ----------------------------------------------------------------------------------
    @staticmethod
    def _dry_run(q: dict, opts: dict | None = None) -> bool:
        if q.get("dryRun") == "All":
            return True
        if q.get("dryRun"):
            raise ApiError(400, f'Invalid dryRun value: {q.get("dryRun")!r}; supported values: "All"')
        return "All" in ((opts or {}).get("dryRun") or [])

    def _check_preconditions(self, res: Resource, obj: dict, pre: dict | None):
        if not pre:
            return
        md = obj["metadata"]
        if pre.get("uid") is not None and pre["uid"] != md.get("uid"):
            raise conflict(res, md["name"], f"Precondition failed: UID in precondition: {pre['uid']}, "
                                            f"UID in object meta: {md.get('uid')}")
        if pre.get("resourceVersion") is not None and pre["resourceVersion"] != md.get("resourceVersion"):
            raise conflict(res, md["name"], "Precondition failed: ResourceVersion in precondition: "
                                            f"{pre['resourceVersion']}, ResourceVersion in object meta: "
                                            f"{md.get('resourceVersion')}")

    def _delete(self, res: Resource, ns: str, name: str, q: dict, opts: dict):
        if not isinstance(opts, dict):
            raise ApiError(400, "DeleteOptions must be an object")
        dry = self._dry_run(q, opts)
        pre = dict(opts.get("preconditions") or {})
        for k in ("uid", "resourceVersion"):
            if q.get(f"preconditions.{k}"):
                pre[k] = q[f"preconditions.{k}"]
        grace = opts.get("gracePeriodSeconds", q.get("gracePeriodSeconds"))
        if grace is not None:
            try:
                grace = int(grace)
            except ValueError:
                raise ApiError(400, f"invalid gracePeriodSeconds {grace!r}") from None
        with self.state.lock:
            obj = self._entry(res, ns, name).obj(res)
            self._check_preconditions(res, obj, pre)
            if res.name == "pods" and not obj["metadata"].get("deletionTimestamp"):
                g = grace if grace is not None else (obj.get("spec") or {}).get("terminationGracePeriodSeconds", 30)
                obj["metadata"]["deletionTimestamp"] = _now_rfc3339()
                obj["metadata"]["deletionGracePeriodSeconds"] = max(0, int(g))
            if not dry:
                self.state._remove(res, self._key(res, ns, name))
        return 200, obj, "application/json", None

    def _finish_update(self, res: Resource, old: dict, new: Any, sub: str, dry: bool, name: str) -> dict:
        """Validate and store `new` as the next version of `old` (caller holds the lock)."""
        if not isinstance(new, dict):
            raise ApiError(400, "the body of the request was in an unknown format")
        md = new.get("metadata")
        if not isinstance(md, dict):
            md = {}
            new["metadata"] = md
        if md.get("name", name) != name:
            raise ApiError(400, f"the name of the object ({md.get('name')}) does not match the name on "
                                f"the URL ({name})")
        if md.get("resourceVersion") and md["resourceVersion"] != old["metadata"].get("resourceVersion"):
            raise conflict(res, name, MODIFIED)
        if md.get("uid") and md["uid"] != old["metadata"].get("uid"):
            raise conflict(res, name, f"Precondition failed: UID in precondition: {md['uid']}, "
                                      f"UID in object meta: {old['metadata'].get('uid')}")
        if sub == "status":
            result = copy.deepcopy(old)
            if "status" in new:
                result["status"] = new["status"]
            else:
                result.pop("status", None)
        else:
            result = new
            if "status" in old and res.subresources and "status" in res.subresources:
                result["status"] = old["status"]
            elif "status" not in old and "status" in res.subresources:
                result.pop("status", None)
        rmd = result["metadata"]
        for k in ("name", "namespace", "uid", "creationTimestamp", "deletionTimestamp",
                  "deletionGracePeriodSeconds"):
            if k in old["metadata"]:
                rmd[k] = old["metadata"][k]
            else:
                rmd.pop(k, None)
        result["kind"], result["apiVersion"] = res.kind, res.api_version
        self._validate(res, result)
        if dry:
            return result
        rmd["resourceVersion"] = self.state._bump()
        self.state._write(res, Entry(res, result))
        return result

    def _validate(self, res: Resource, obj: dict):
        if res.name != "nodes":
            return
        spec = obj.get("spec") or {}
        causes = []
        if "unschedulable" in spec and not isinstance(spec["unschedulable"], bool):
            causes.append(("spec.unschedulable", f"Invalid value: {json.dumps(spec['unschedulable'])}: "
                                                 "must be a boolean", "FieldValueInvalid"))
        seen = set()
        for i, t in enumerate(spec.get("taints") or []):
            if not isinstance(t, dict):
                causes.append((f"spec.taints[{i}]", "Invalid value: must be an object", "FieldValueInvalid"))
                continue
            eff = t.get("effect")
            if eff not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
                causes.append((f"spec.taints[{i}].effect", f'Unsupported value: "{eff}": supported values: '
                               '"NoSchedule", "PreferNoSchedule", "NoExecute"', "FieldValueNotSupported"))
            if not t.get("key"):
                causes.append((f"spec.taints[{i}].key", "Required value", "FieldValueRequired"))
            if (t.get("key"), eff) in seen:
                causes.append((f"spec.taints[{i}]", f'Duplicate value: "{t.get("key")}:{eff}": taints must '
                               "be unique by key and effect pair", "FieldValueDuplicate"))
            seen.add((t.get("key"), eff))
        if causes:
            name = obj["metadata"]["name"]
            msg = "; ".join(f"{f}: {m}" for f, m, _ in causes)
            raise ApiError(422, f'Node "{name}" is invalid: ' + (msg if len(causes) == 1 else f"[{msg}]"),
                           details={"name": name, "kind": "Node",
                                    "causes": [{"reason": r, "message": m, "field": f} for f, m, r in causes]})

    def _patch(self, res, ns, name, sub, q, raw, ctype, h):
        if sub not in ("", "status"):
            raise ApiError(405, "the server does not allow this method on the requested resource")
        ctype = ctype.split(";")[0].strip()
        if ctype not in ("application/strategic-merge-patch+json", "application/merge-patch+json",
                         "application/json-patch+json"):
            raise ApiError(415, f"the body of the request was in an unknown format - accepted media types "
                                f"include: application/json-patch+json, application/merge-patch+json, "
                                f"application/strategic-merge-patch+json")
        patch = h._json_body(raw)
        dry = self._dry_run(q)
        with self.state.lock:
            old = self._entry(res, ns, name).obj(res)
            try:
                if ctype == "application/json-patch+json":
                    if not isinstance(patch, list):
                        raise ApiError(400, "json: cannot unmarshal object into Go value of type jsonpatch.Patch")
                    new = json_patch(old, patch)
                elif ctype == "application/merge-patch+json":
                    new = merge_patch(old, patch)
                else:
                    if not isinstance(patch, dict):
                        raise ApiError(400, "strategic merge patch must be a JSON object")
                    new = strategic_merge(old, patch)
            except ValueError as e:
                raise ApiError(422, str(e)) from None
            result = self._finish_update(res, old, new, sub, dry, name)
        return 200, result, "application/json", None

    def _put(self, res, ns, name, sub, q, body):
        if sub not in ("", "status"):
            raise ApiError(405, "the server does not allow this method on the requested resource")
        dry = self._dry_run(q)
        with self.state.lock:
            old = self._entry(res, ns, name).obj(res)
            result = self._finish_update(res, old, copy.deepcopy(body), sub, dry, name)
        return 200, result, "application/json", None

    # ---- eviction --------------------------------------------------------------------------------
    def _evict(self, ns: str, name: str, q: dict, raw: bytes, h):
        pods, pdbs = BY_NAME["pods"], BY_NAME["poddisruptionbudgets"]
        ev = h._json_body(raw)
        if not isinstance(ev, dict):
            raise ApiError(400, "the body of the request was in an unknown format")
        # like the real decoder, a body without kind/apiVersion defaults to policy/v1 Eviction
        if ev.get("kind", "Eviction") != "Eviction" or \
                ev.get("apiVersion", "policy/v1") not in ("policy/v1", "policy/v1beta1"):
            raise ApiError(400, f"not a Eviction object: {ev.get('apiVersion')}, Kind={ev.get('kind')}")
        if (ev.get("metadata") or {}).get("name") != name:
            raise ApiError(400, "name in URL does not match name in Eviction object")
        opts = dict(ev.get("deleteOptions") or {})
        qdry = ["All"] if q.get("dryRun") == "All" else []
        if q.get("dryRun") and not qdry:
            raise ApiError(400, f'Invalid dryRun value: {q.get("dryRun")!r}; supported values: "All"')
        if not opts.get("dryRun"):
            opts["dryRun"] = qdry
        elif qdry and opts["dryRun"] != qdry:
            raise ApiError(400, f"Non-matching dry-run options in request and content: {qdry} and {opts['dryRun']}")
        dry = "All" in (opts.get("dryRun") or [])
        pre = opts.get("preconditions") or {}
        ok = (201, status_dict(201, "", success=True), "application/json", None)
        with self.state.lock:
            # the NamespaceLifecycle admission plugin refuses every create in a namespace being
            # deleted, an Eviction included, before the handler runs
            # (staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go)
            nse = self.state.store["namespaces"].get(ns)
            if nse is not None and (json.loads(nse.data).get("status") or {}).get("phase") == "Terminating":
                raise ApiError(403, f'pods "{name}" is forbidden: unable to create new content in namespace {ns} '
                                    f'because it is being terminated', "Forbidden",
                               details={"name": name, "kind": "pods", "causes": [
                                   {"reason": "NamespaceTerminating", "message": f"namespace {ns} is being terminated",
                                    "field": "metadata.namespace"}]})
            pod = self._entry(pods, ns, name).obj(pods)
            phase = (pod.get("status") or {}).get("phase")
            if phase in ("Succeeded", "Failed", "Pending") or pod["metadata"].get("deletionTimestamp"):
                self._check_preconditions(pods, pod, pre)
                if not dry:
                    self.state._remove(pods, self._key(pods, ns, name))
                return ok
            labels = pod["metadata"].get("labels") or {}
            matching = [e.obj(pdbs) for k, e in sorted(self.state.store[pdbs.name].items())
                        if e.ns == ns and label_selector_matches(
                            (json.loads(e.data).get("spec") or {}).get("selector"), labels)]
            if len(matching) > 1:
                return 500, status_dict(500, "This pod has more than one PodDisruptionBudget, which the "
                                             "eviction subresource does not support."), "application/json", None
            if matching:
                pdb = matching[0]
                st = pdb.setdefault("status", {})
                ready = any(c.get("type") == "Ready" and c.get("status") == "True"
                            for c in (pod.get("status") or {}).get("conditions") or [])
                policy = (pdb.get("spec") or {}).get("unhealthyPodEvictionPolicy")
                healthy_budget = int(st.get("currentHealthy", 0)) >= int(st.get("desiredHealthy", 0)) > 0
                if not ready and (policy == "AlwaysAllow" or healthy_budget):
                    pass  # unready pod, budget untouched
                else:
                    self._check_and_decrement(pdbs, pdb, name, dry)
            self._check_preconditions(pods, pod, pre)
            if not dry:
                self.state._remove(pods, self._key(pods, ns, name))
        return ok

    def _check_and_decrement(self, pdbs: Resource, pdb: dict, pod_name: str, dry: bool):
        st, md = pdb["status"], pdb["metadata"]
        pname = md["name"]
        gen, ogen = md.get("generation"), st.get("observedGeneration")
        too_many = "Cannot evict pod as it would violate the pod's disruption budget."
        if gen is not None and ogen is not None and int(ogen) < int(gen):
            raise ApiError(429, too_many, details={"causes": [{"reason": "DisruptionBudget", "message":
                           f"The disruption budget {pname} is still being processed by the server."}],
                           "retryAfterSeconds": 10}, headers={"Retry-After": 10})
        allowed = int(st.get("disruptionsAllowed", 0))
        if allowed < 0:
            raise ApiError(403, f'poddisruptionbudget.policy "{pname}" is forbidden: pdb disruptions allowed '
                                f'is negative', details={"name": pname, "group": "policy",
                                                         "kind": "poddisruptionbudget"})
        if len(st.get("disruptedPods") or {}) > 2000:
            raise ApiError(403, f'poddisruptionbudget.policy "{pname}" is forbidden: DisruptedPods map too '
                                f'big - too many evictions not confirmed by PDB controller',
                           details={"name": pname, "group": "policy", "kind": "poddisruptionbudget"})
        if allowed == 0:
            raise ApiError(429, too_many, details={"causes": [{"reason": "DisruptionBudget", "message":
                           f"The disruption budget {pname} needs {int(st.get('desiredHealthy', 0))} healthy "
                           f"pods and has {int(st.get('currentHealthy', 0))} currently"}]})
        if dry:
            return
        st["disruptionsAllowed"] = allowed - 1
        if allowed - 1 == 0:
            conds = [c for c in st.get("conditions") or [] if c.get("type") != "DisruptionAllowed"]
            conds.append({"type": "DisruptionAllowed", "status": "False", "reason": "InsufficientPods",
                          "message": "", "observedGeneration": md.get("generation", 0),
                          "lastTransitionTime": _now_rfc3339()})
            st["conditions"] = conds
        st.setdefault("disruptedPods", {})[pod_name] = _now_rfc3339()
        md["resourceVersion"] = self.state._bump()
        self.state._write(pdbs, Entry(pdbs, pdb))

    # ---- nodes/NODE/proxy ------------------------------------------------------------------------
    def _node_proxy(self, node: str, subpath: str, q: dict):
        # nodes/NAME:PORT/proxy and nodes/https:NAME:PORT/proxy address the same kubelet
        bits = node.split(":")
        name = bits[1] if bits[0] in ("http", "https") and len(bits) > 1 else bits[0]
        nodes = BY_NAME["nodes"]
        with self.state.lock:
            nobj = self._entry(nodes, "", name).obj(nodes)
            cfg = self.state.kubelet["kubeletconfig"].get(name)
            summ = self.state.kubelet["summary"].get(name)
            addr = next((a.get("address") for a in (nobj.get("status") or {}).get("addresses") or []
                         if a.get("type") == "InternalIP"), name)
            port = ((nobj.get("status") or {}).get("daemonEndpoints") or {}).get("kubeletEndpoint", {}).get("Port", 10250)

        def unreachable():
            return ApiError(503, f"error trying to reach service: dial tcp {addr}:{port}: connect: "
                                 "connection refused")

        sub = subpath.strip("/")
        if sub == "configz":
            if cfg is None:
                raise unreachable()
            return 200, {"kubeletconfig": cfg}, "application/json", None
        if sub == "stats/summary":
            if summ is None:
                raise unreachable()
            return 200, summ, "application/json", None
        if cfg is None and summ is None:
            raise unreachable()
        if sub == "healthz":
            return 200, b"ok", "text/plain; charset=utf-8", None
        if sub == "pods":
            pods = BY_NAME["pods"]
            _, snap = self.state.snapshot(pods)
            items = [e.obj(pods) for e in snap.entries if e.fields.get("spec.nodeName") == name]
            return 200, {"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": items}, \
                "application/json", None
        return 404, b"404 page not found\n", "text/plain; charset=utf-8", None


# --------------------------------------------------------------------------------------------
# Standalone
# --------------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Serve a snapshot as a test Kubernetes API server.")
    ap.add_argument("snapshot", nargs="+", help="snapshot file(s) or directory")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--tls", action="store_true", help="serve HTTPS with a self-signed certificate")
    ap.add_argument("--token", action="append", default=[], metavar="TOKEN=ROLE",
                    help="require bearer tokens (roles: admin, readonly, noproxy, readonly-noproxy)")
    ap.add_argument("--kubeconfig", help="write a kubeconfig for the server here")
    ap.add_argument("--chunk", type=int, default=0, metavar="BYTES",
                    help="send answers larger than BYTES chunked, in chunks of BYTES (kube-apiserver v1.33+ "
                         "streams lists in chunks of about 2048 bytes)")
    ap.add_argument("--no-gzip", action="store_true", help="never compress answers (kube-apiserver with "
                    "APIResponseCompression off)")
    ap.add_argument("--latency", type=float, default=0.0, metavar="MS",
                    help="answer every API request MS milliseconds late (a real API server's time to read, "
                         "encode and send a page, and the network's round trip; 0: at once)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    objs: list[dict] = []
    for s in a.snapshot:
        objs.extend(load_objects(s))
    tokens = dict(t.split("=", 1) for t in a.token) or None
    t0 = time.time()
    srv = ApiServer(objs, tokens, tls=a.tls, port=a.port, host=a.host, verbose=a.verbose, chunk=a.chunk,
                    gzip=not a.no_gzip)
    del objs
    if a.latency > 0:
        srv.faults.add(None, r"^/apis?(/|$)", delay=a.latency / 1000.0, times=None)
    srv.start()
    if a.kubeconfig:
        srv.write_kubeconfig(a.kubeconfig, token=next(iter(tokens)) if tokens else None,
                             insecure=a.tls or None)
    counts = {r.name: len(srv.state.store[r.name]) for r in RESOURCES if srv.state.store[r.name]}
    print(srv.url, flush=True)
    print(f"loaded {counts} in {time.time() - t0:.1f}s", file=sys.stderr, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        srv.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
