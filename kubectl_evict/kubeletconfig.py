"""Kubelet configuration from files: `--kubelet-config FILE` and the snapshot's NodeKubeletConfig.

Accepts what operators have at hand:
- a KubeletConfiguration (YAML or JSON, `kubelet.config.k8s.io/v1beta1`), as in `/var/lib/kubelet/config.yaml`;
- what `GET /api/v1/nodes/NODE/proxy/configz` returns (`{"kubeletconfig": {...}}`) or our own
  `NodeKubeletConfig` object;
- an OpenShift 3.x `node-config.yaml`, whose `kubeletArguments` hold kubelet flags as lists of
  strings (`eviction-hard: ["memory.available<500Mi"]`); repeated entries add up, as repeated
  kubelet flags do.

Everything is returned as a KubeletConfiguration-shaped dict with camelCase keys, so every rule
(pressure, shutdown) reads one shape. Only I/O lives here; rules get the dict.
"""

from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping

from kubectl_evict.errors import InputError
from kubectl_evict.eviction.thresholds import ThresholdError, parse_flag_map
from kubectl_evict.model import Snapshot

_EMPTY: Mapping[str, Any] = {}

# kubelet flags whose values are maps, and the separator between key and value
_MAP_FLAGS = {"eviction-hard": "<", "eviction-soft": "<", "eviction-soft-grace-period": "=",
              "eviction-minimum-reclaim": "=", "system-reserved": "=", "kube-reserved": "=",
              "feature-gates": "="}
_LIST_FLAGS = ("enforce-node-allocatable",)
_INT_FLAGS = ("eviction-max-pod-grace-period", "max-pods", "pods-per-core")
# flags whose camelCase field name is not the mechanical conversion
_RENAMES = {"max-pods": "maxPods", "cgroup-driver": "cgroupDriver"}


def _camel(flag: str) -> str:
    if flag in _RENAMES:
        return _RENAMES[flag]
    head, *rest = flag.split("-")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _parse_map(text: str, sep: str, path: str, field: str) -> Dict[str, Any]:
    try:
        return dict(parse_flag_map(text, sep))
    except ThresholdError as e:
        raise InputError("%s: %r" % (e, text), source=path, field=field) from None


def from_kubelet_arguments(args: Mapping[str, Any], path: str) -> Dict[str, Any]:
    """OpenShift 3.x `kubeletArguments` (flag name -> list of strings) as KubeletConfiguration."""
    out: Dict[str, Any] = {}
    for flag, values in args.items():
        field = "kubeletArguments." + str(flag)
        if isinstance(values, (str, int, float)) and not isinstance(values, bool):
            values = [values]
        if not isinstance(values, list) or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool)
                                                   for v in values):
            raise InputError("expected a list of strings", source=path, field=field)
        values = [str(v) for v in values]
        name = _camel(str(flag))
        if flag in _MAP_FLAGS:
            merged: Dict[str, Any] = {}
            for v in values:
                merged.update(_parse_map(v, _MAP_FLAGS[flag], path, field))
            out[name] = merged
        elif flag in _LIST_FLAGS:
            out[name] = [p.strip() for v in values for p in v.split(",") if p.strip()]
        elif flag in _INT_FLAGS:
            try:
                out[name] = int(values[-1])
            except ValueError:
                raise InputError("expected an integer, found %r" % values[-1], source=path, field=field) from None
        else:
            out[name] = values[-1] if values else ""
    return out


def normalize(doc: Any, path: str) -> Dict[str, Any]:
    """Any accepted document shape -> a KubeletConfiguration-shaped dict."""
    if not isinstance(doc, dict):
        raise InputError("expected a KubeletConfiguration object", source=path)
    if isinstance(doc.get("kubeletconfig"), dict):
        return dict(doc["kubeletconfig"])
    if doc.get("kind") == "NodeConfig" or "kubeletArguments" in doc:
        args = doc.get("kubeletArguments") or {}
        if not isinstance(args, dict):
            raise InputError("expected an object", source=path, field="kubeletArguments")
        return from_kubelet_arguments(args, path)
    kind = doc.get("kind")
    if kind not in (None, "KubeletConfiguration"):
        raise InputError("expected a KubeletConfiguration, an OpenShift NodeConfig or a configz document, found kind %r" % kind,
                         source=path)
    return dict(doc)


def load_kubelet_config(path: str) -> Dict[str, Any]:
    """Read a kubelet config file (YAML or JSON; the first document of a multi-document YAML)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise InputError("no such file or directory", source=path, field="--kubelet-config") from None
    except OSError as e:
        raise InputError(e.strerror or str(e), source=path, field="--kubelet-config") from None
    text = data.decode("utf-8", errors="replace")
    if re.match(r"\s*[{\[]", text):
        from kubectl_evict.source.documents import load_json
        doc = load_json(text.encode("utf-8"), path)   # the text as read (bytes past UTF-8 replaced)
    else:
        from kubectl_evict.source.yamltext import load_all
        docs: List[Any] = load_all(text.encode("utf-8"), path)
        doc = docs[0] if docs else {}
    return normalize(doc, path)


def kubelet_config_for(snapshot: Snapshot, node: str) -> Mapping[str, Any]:
    """The node's kubelet configuration as recorded in the snapshot (empty when absent)."""
    return snapshot.kubelet_configs.get(node, _EMPTY)


def located(snapshot: Snapshot, node: str, e: InputError) -> InputError:
    """`e`, located as every input error is (DESIGN.md: file, object, field) when it is a problem
    in the node's NodeKubeletConfig: `FILE: NodeKubeletConfig NODE: kubeletconfig.FIELD: problem`.
    The rules label that configuration layer `NodeKubeletConfig NODE` (as the error's source or its
    object) and read the document lazily, long after loading, so the snapshot keeps where it came
    from. Any other error is returned as it is."""
    label = "NodeKubeletConfig " + node
    if not (e.source == label or (e.source is None and e.obj == label)):
        return e
    where = getattr(snapshot.kubelet_configs.get(node), "where", ())
    path = e.field or ""
    if not path.startswith("kubeletconfig"):
        path = "kubeletconfig" + ("." + path if path and not path.startswith("[") else path)
    return InputError(e.problem, source=where[0] if where else None, obj=label, field=path)
