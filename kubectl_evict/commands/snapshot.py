"""`kubectl evictplan snapshot`: print everything read from the cluster as one v1 List.

The output is a snapshot file: `kubectl evictplan -f FILE COMMAND --now T` plans exactly what
`kubectl evictplan COMMAND --now T` plans live (the SnapshotInfo item records when it was
taken, the context, the server and its version). JSON is written one item per line, copied byte
for byte from the API server's answers (no decode/encode round trip: 150,000 pods stream out as
fast as they arrive); `-o yaml` and `--redact` decode every item.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Iterable, Iterator, List

import click

from kubectl_evict.errors import InputError
from kubectl_evict.options import global_options, pop_global

# Annotations the freezer reads (mirror pods, safe-to-evict, our own): --redact keeps them so that
# plans from a redacted snapshot stay identical.
from kubectl_evict.source.freeze import _KEPT_ANNOTATION_PREFIXES as KEPT_ANNOTATION_PREFIXES
# ... and those placement reads on PersistentVolumeClaims and CSINodes (binding state, selected node).
from kubectl_evict.source.freeze_storage import STORAGE_ANNOTATIONS
from kubectl_evict.source.freeze_dra import DRA_KINDS

_POD_SPEC_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")


def redact(obj: Any) -> Any:
    """Remove what should not leave the cluster: annotations (except the few the planner reads),
    managedFields, env values in pod specs and pod templates (names and valueFrom references
    stay), and DRA driver data (opaque device configuration parameters of ResourceClaims,
    their templates and DeviceClasses, and the per-device `data` drivers report in a claim's
    status). Returns the same, modified, object."""
    if not isinstance(obj, dict):
        return obj
    if obj.get("kind") in DRA_KINDS:
        _redact_dra(obj)
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        meta.pop("managedFields", None)
        ann = meta.get("annotations")
        if isinstance(ann, dict):
            kept = {k: v for k, v in ann.items() if isinstance(k, str) and
                    (k.startswith(KEPT_ANNOTATION_PREFIXES) or k in STORAGE_ANNOTATIONS)}
            if kept:
                meta["annotations"] = kept
            else:
                meta.pop("annotations", None)
    spec = obj.get("spec")
    if isinstance(spec, dict):
        _redact_pod_spec(spec)
        tmpl = spec.get("template")
        if isinstance(tmpl, dict):          # Deployment, ReplicaSet, DaemonSet, StatefulSet, Job, RC
            redact(tmpl)
        jt = spec.get("jobTemplate")        # CronJob
        if isinstance(jt, dict):
            redact(jt)
    return obj


def _path(obj: Any, *keys: str) -> Any:
    for k in keys:
        obj = obj.get(k) if isinstance(obj, dict) else None
    return obj


def _redact_dra(obj: dict) -> None:
    """Opaque driver parameters (`config[].opaque.parameters`: anything a driver accepts,
    credentials included) and reported device `data`; the planner reads neither."""
    for keys in (("spec", "devices", "config"), ("spec", "spec", "devices", "config"), ("spec", "config"),
                 ("status", "allocation", "devices", "config")):
        configs = _path(obj, *keys)
        if isinstance(configs, list):
            for c in configs:
                opaque = c.get("opaque") if isinstance(c, dict) else None
                if isinstance(opaque, dict):
                    opaque.pop("parameters", None)
    devices = _path(obj, "status", "devices")
    if isinstance(devices, list):
        for d in devices:
            if isinstance(d, dict):
                d.pop("data", None)


def _redact_pod_spec(spec: dict) -> None:
    for key in _POD_SPEC_CONTAINER_LISTS:
        cs = spec.get(key)
        if not isinstance(cs, list):
            continue
        for c in cs:
            if not isinstance(c, dict):
                continue
            env = c.get("env")
            if isinstance(env, list):
                for e in env:
                    if isinstance(e, dict) and "value" in e:
                        del e["value"]


def _dumps(obj: Any) -> bytes:
    try:
        import msgspec
        return msgspec.json.encode(obj)
    except ImportError:  # pragma: no cover
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def _with_kind(raw: bytes, kind: str, api_version: str) -> bytes:
    """An API list item (no kind/apiVersion) as a standalone object, without decoding it."""
    head = b'{"kind":"%s","apiVersion":"%s"' % (kind.encode(), api_version.encode())
    body = raw.strip()
    if body[:1] != b"{":
        raise ValueError("list item is not an object")
    rest = body[1:].lstrip()
    return head + (b"}" if rest == b"}" else b"," + rest)


def json_lines(data: Any, redacting: bool) -> Iterator[bytes]:
    """The items of the v1 List, one compact JSON object each, in snapshot order."""
    from kubectl_evict.source.live import LISTS, kubelet_documents
    yield _dumps(data.info)
    for spec in LISTS:
        items = data.items.get(spec.kind, [])
        for i, item in enumerate(items):
            if isinstance(item, (bytes, bytearray)):
                yield _with_kind(item, spec.kind, spec.api_version)
            else:
                item = dict(item, kind=spec.kind, apiVersion=spec.api_version)
                yield _dumps(redact(item) if redacting else item)
            items[i] = None   # release as we go: the output can be as big as the cluster
    for doc in kubelet_documents(data):
        yield _dumps(doc)


def write_json(out: Any, lines: Iterable[bytes]) -> None:
    out.write(b'{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[\n')
    first = True
    buf: List[bytes] = []
    size = 0
    for line in lines:
        if not first:
            buf.append(b",\n")
        buf.append(line)
        first = False
        size += len(line)
        if size > 1 << 20:
            out.write(b"".join(buf))
            buf, size = [], 0
    buf.append(b"\n]}\n")
    out.write(b"".join(buf))
    out.flush()


def write_yaml(out: Any, data: Any, redacting: bool) -> None:
    import yaml
    from kubectl_evict.source.live import LISTS, kubelet_documents
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    items: List[Any] = [data.info]
    for spec in LISTS:
        for item in data.items.get(spec.kind, []):
            item = {"kind": spec.kind, "apiVersion": spec.api_version, **item}
            items.append(redact(item) if redacting else item)
    items.extend(kubelet_documents(data))
    doc = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}
    out.write(yaml.dump(doc, Dumper=dumper, sort_keys=False, default_flow_style=False, allow_unicode=True,
                        width=4096).encode("utf-8"))
    out.flush()


@click.command("snapshot", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--redact", is_flag=True, default=False,
              help="Remove annotations (except the few the planner reads), managedFields and env values.")
@click.option("--no-kubelet", is_flag=True, default=False,
              help="Do not read kubelet configz and stats/summary through nodes/proxy.")
@global_options
@click.pass_context
def command(ctx: click.Context, redact: bool, no_kubelet: bool, **kw: Any) -> int:
    """Print the live cluster as a snapshot file (a v1 List; -o yaml for YAML).

    Reads nodes, pods, PDBs, PriorityClasses, workloads, VolumeAttachments, node Leases, the
    server's /version and, through nodes/NODE/proxy, each kubelet's configz and stats/summary.
    Planning from the file gives the same plan as planning live at the same --now.

    \b
    Examples:
      kubectl evictplan snapshot > cluster.json
      kubectl evictplan --context prod snapshot --redact -o yaml > cluster.yaml
      kubectl evictplan -f cluster.json drain worker-1 --now 2026-11-21T12:00:00Z
    """
    opts = pop_global(ctx, kw)
    fmt = opts.output
    if fmt in ("table", None) and not opts.output_given:
        fmt = "json"
    if fmt not in ("json", "yaml"):
        raise InputError("snapshot prints json or yaml, not %r" % fmt, field="-o/--output")
    if opts.filenames or opts.demo:
        raise InputError("snapshot reads a live cluster; drop -f/--demo (a snapshot file is already a snapshot)")
    # the flags of planning and applying would be silently ignored here: refuse them, as verify does
    from kubectl_evict.apply import apply_flags_given
    given = (["--apply"] if opts.apply else []) + apply_flags_given(opts)
    if given:
        raise InputError("only for apply: snapshot reads and never writes", field=given[0])
    if opts.now is not None:
        raise InputError("snapshot records when it read the cluster (takenAt); give --now when planning from "
                         "the file: kubectl evictplan -f FILE --now T COMMAND", field="--now")
    if opts.kubernetes_version is not None:
        raise InputError("snapshot records the server's version; give --kubernetes-version when planning from "
                         "the file", field="--kubernetes-version")
    from kubectl_evict.source.live import read_live, write_warnings
    mode = "full" if (redact or fmt == "yaml") else "raw"
    data = read_live(opts, mode, None, kubelet=not no_kubelet)
    if data.warnings:
        data.info["warnings"] = list(data.warnings)
    out = sys.stdout.buffer
    if fmt == "yaml":
        write_yaml(out, data, redact)
    else:
        write_json(out, json_lines(data, redact))
    write_warnings(data.warnings)
    return 0
