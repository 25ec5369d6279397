"""Turn bytes into Kubernetes objects: JSON or YAML, v1 List, typed lists, single objects,
multi-document YAML, bare arrays. Pure functions over text; `files.py` does the reading."""

from __future__ import annotations

import json
from typing import Any, Iterator, List, Tuple

from kubectl_evict.errors import InputError

try:  # msgspec prunes unused fields while parsing: faster and far less memory at 150k pods
    from kubectl_evict.source import fastjson
except ImportError:  # pragma: no cover - exercised by the pure-Python bundle
    fastjson = None  # type: ignore[assignment]

Doc = Tuple[str, str, dict]   # (file, position in it, the object)

# Typed lists name their items' kind; kubelet /pods and support bundles omit it on items.
_LIST_SUFFIX = "List"


def _head(data: Any) -> bytes:
    """The first non-blank byte (b"" for blank content)."""
    head = data[:4096].lstrip()[:1]
    return head if head or len(data) <= 4096 else bytes(data).lstrip()[:1]


def parse_text(data: Any, source: str) -> List[object]:
    """Parse one file's content (bytes, or a read-only memory map of the file) into its
    top-level documents (one for JSON, several for YAML)."""
    head = _head(data)
    if head in (b"{", b"["):
        if fastjson is not None:
            try:
                return [fastjson.loads(data)]
            except fastjson.FallBack:
                pass
        data = bytes(data)   # the stdlib parsers read bytes (bytes(b) is b itself: no copy)
        try:
            return [json.loads(data, parse_constant=_reject_constant)]
        except _NotJSON as e:
            raise InputError("invalid JSON: %s is not valid JSON (JSON has no NaN or Infinity)" % e,
                             source=source) from None
        except ValueError as e:
            raise InputError("invalid JSON: %s" % e, source=source) from None
        except RecursionError:
            raise InputError("invalid JSON: nested too deeply", source=source) from None
    return _parse_yaml(bytes(data), source)


class _NotJSON(ValueError):
    """NaN / Infinity / -Infinity: Python's json accepts them, JSON (and the API server) does not."""


def _reject_constant(name: str) -> object:
    raise _NotJSON(name)


def _parse_yaml(data: bytes, source: str) -> List[object]:
    import yaml
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError("not UTF-8 text: %s" % e, source=source) from None
    try:
        return [d for d in yaml.load_all(text, Loader=loader) if d is not None]
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = " (line %d, column %d)" % (mark.line + 1, mark.column + 1) if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise InputError("invalid YAML%s: %s" % (where, problem), source=source) from None


def infer_kind(obj: dict) -> str:
    """The kind of an object that lacks one (insights gathers, raw kubelet endpoints)."""
    if "kubeletconfig" in obj:
        return "NodeKubeletConfig"
    if isinstance(obj.get("node"), dict) and "pods" in obj:
        return "NodeStatsSummary"
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    status = obj.get("status") if isinstance(obj.get("status"), dict) else {}
    if "containers" in spec:
        return "Pod"
    if "nodeInfo" in status or "providerID" in spec or "podCIDR" in spec or "addresses" in status:
        return "Node"
    return ""


def expand(doc: object, source: str, index: str = "") -> Iterator[Doc]:
    """Yield every object in a parsed document, unwrapping Lists and typed lists."""
    if isinstance(doc, list):
        for i, item in enumerate(doc):
            yield from expand(item, source, "%s[%d]" % (index, i))
        return
    if not isinstance(doc, dict):
        raise InputError("expected a Kubernetes object (a mapping), found %s" % type(doc).__name__,
                         source=source + index if index else source)
    kind = doc.get("kind")
    items = doc.get("items")
    if (isinstance(kind, str) and kind.endswith(_LIST_SUFFIX)) or (kind is None and isinstance(items, list)):
        if items is None:
            return
        if not isinstance(items, list):
            raise InputError("items must be a list", source=source, obj=str(kind), field="items")
        item_kind = kind[: -len(_LIST_SUFFIX)] if isinstance(kind, str) and kind != "List" else None
        for i, item in enumerate(items):
            where = "%sitems[%d]" % (index + "." if index else "", i)
            if not isinstance(item, dict):
                raise InputError("list item is not an object (found %s)" % type(item).__name__,
                                 source=source, field=where)
            if item_kind and "kind" not in item:
                item = dict(item, kind=item_kind)
            yield (source, where, item)
        return
    yield (source, index, doc)
