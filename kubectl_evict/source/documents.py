"""Turn bytes into Kubernetes objects: JSON or YAML, v1 List, typed lists, single objects,
multi-document YAML, bare arrays. Pure functions over text; `files.py` does the reading."""

from __future__ import annotations

import json
import re
from typing import Any, Iterator, List, Tuple

from kubectl_evict.errors import InputError, json_type

try:  # msgspec prunes unused fields while parsing: faster and far less memory at 150k pods
    from kubectl_evict.source import fastjson
except ImportError:  # pragma: no cover - exercised by the pure-Python bundle
    fastjson = None  # type: ignore[assignment]

Doc = Tuple[str, str, dict]   # (file, position in it, the object)

# Typed lists name their items' kind; kubelet /pods and support bundles omit it on items.
_LIST_SUFFIX = "List"
# An empty typed list (a raw list endpoint's answer on a cluster with none of that kind) still
# says that its source listed the kind: `expand` yields {"kind": EMPTY_LIST, "of": KIND} for it,
# which the freezer reads as holding KIND (an empty `v1 List` gives "of": None and holds nothing).
EMPTY_LIST = "evictplan/EmptyTypedList"


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
        check_surrogates(data, source)
        try:
            try:
                return [json.loads(data, parse_constant=_reject_constant)]
            except json.JSONDecodeError as e:
                if e.msg != "Extra data":
                    raise
                return _json_stream(data)
        except _NotJSON as e:
            raise InputError("invalid JSON: %s is not valid JSON (JSON has no NaN or Infinity)" % e,
                             source=source) from None
        except UnicodeDecodeError as e:   # JSON text is UTF-8 (RFC 8259); the YAML path says the same
            raise InputError("not UTF-8 text (byte 0x%02x on line %d)" % (data[e.start], data.count(b"\n", 0, e.start) + 1),
                             source=source) from None
        except ValueError as e:
            raise InputError("invalid JSON: %s" % json_problem(e, data), source=source) from None
        except RecursionError:
            path = _nesting_path(data, NESTING_SHOWN)
            raise InputError("invalid JSON: nested too deeply%s" % (" (more than %d levels)" % NESTING_SHOWN
                                                                    if path else ""),
                             source=source, field=path or None) from None
    return _parse_yaml(bytes(data), source)


_JSON_SPACE = re.compile(r"[ \t\n\r]*")
# A \uD800-\uDFFF escape that is not half of a pair (a backslash run of even length before it:
# an escaped backslash is text, not an escape). Python's json turns it into a lone surrogate
# that no output can encode; msgspec, our YAML reader and RFC 8259 (section 8.2) call it invalid.
_LONE_SURROGATE = re.compile(rb'(?<!\\)(?:\\\\)*(\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})'
                             rb'|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2})')


def check_surrogates(data: bytes, source: str) -> None:
    """Refuse JSON text holding an unpaired UTF-16 surrogate escape (`"\\ud800"`), with its line
    and column: the stdlib parser accepts it, and the plan would then fail to print. Only on the
    stdlib path (msgspec refuses such text itself): one C-speed regex scan."""
    if b"\\u" not in data:
        return
    m = _LONE_SURROGATE.search(data)
    if m is None:
        return
    at = m.start(1)
    line = data.count(b"\n", 0, at) + 1
    column = at - (data.rfind(b"\n", 0, at) + 1) + 1
    try:
        path = _surrogate_path(json.loads(data))
    except (ValueError, RecursionError):   # the text has other faults too: the position says where
        path = ""
    raise InputError("invalid JSON: unpaired UTF-16 surrogate %s in a string (line %d, column %d)"
                     % (m.group(1).decode("ascii"), line, column), source=source, field=path or None)


def load_json(data: bytes, source: str) -> Any:
    """One whole JSON document through the stdlib parser, with this reader's errors: an unpaired
    surrogate escape or an over-long number is named with its place, never passed on or left as
    Python's own advice (plan documents and kubelet config files read this way)."""
    check_surrogates(data, source)
    try:
        return json.loads(data)
    except ValueError as e:
        raise InputError("invalid JSON: %s" % json_problem(e, data), source=source) from None


_LONG_NUMBER = re.compile(rb"-?[0-9]{4300,}")


def json_problem(e: ValueError, data: bytes) -> str:
    """The stdlib parser's complaint in the user's terms. Python refuses to convert an integer of
    more than 4300 digits (CVE-2020-10735) with advice about its own interpreter; no Kubernetes
    field holds such a number, so say what and where instead."""
    text = str(e)
    if not text.startswith("Exceeds the limit"):
        return text
    m = _LONG_NUMBER.search(data)
    if m is None:
        return "a number of more than 4300 digits"
    line = data.count(b"\n", 0, m.start()) + 1
    return "a number of %d digits at line %d column %d (more than 4300: no Kubernetes field holds one)" % (
        len(m.group().lstrip(b"-")), line, m.start() - (data.rfind(b"\n", 0, m.start()) + 1) + 1)


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)


def _surrogate_path(v: Any, path: str = "") -> str:
    """The field path (`items[3].metadata.name`) of the first string holding a lone surrogate."""
    if isinstance(v, dict):
        for k, x in v.items():
            p = "%s.%s" % (path, k) if path else k
            if _has_surrogate(k):
                return p
            found = _surrogate_path(x, p)
            if found:
                return found
    elif isinstance(v, list):
        for i, x in enumerate(v):
            found = _surrogate_path(x, "%s[%d]" % (path, i))
            if found:
                return found
    elif isinstance(v, str) and _has_surrogate(v):
        return path or "(the document)"
    return ""


def _json_stream(data: bytes) -> List[object]:
    """Several JSON values one after another, as `jq -c '.items[]'` prints them: kubectl reads
    such a file as a stream of documents (cli-runtime's StreamVisitor decodes with
    YAMLOrJSONDecoder, a json.Decoder for JSON input) and skips the `null`s. Errors carry their
    line and column in the whole text."""
    text = data.decode(json.detect_encoding(data))
    decoder = json.JSONDecoder(parse_constant=_reject_constant)
    docs: List[object] = []
    pos = _JSON_SPACE.match(text).end()
    while pos < len(text):
        value, pos = decoder.raw_decode(text, pos)
        if value is not None:
            docs.append(value)
        pos = _JSON_SPACE.match(text, pos).end()
    return docs


NESTING_SHOWN = 500   # yamltext.MAX_DEPTH: where a nesting error points
_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{},:]')


def _nesting_path(data: bytes, limit: int, shown: int = 6) -> str:
    """The field path (`items[0].metadata.labels.a...`) where `data` first nests `limit` levels
    deep; "" if it never does. Only on the error path: it scans the text in Python."""
    stack: list = []   # [key or None] for objects, [index] for arrays
    last = b'""'
    for m in _TOKEN.finditer(data):
        t = m.group()
        c = t[:1]
        if c == b'"':
            last = t
        elif c in b"[{":
            if len(stack) >= limit:
                parts = ""
                for frame in stack[:shown]:
                    if isinstance(frame[0], int):
                        parts += "[%d]" % frame[0]
                    elif frame[0] is not None:
                        parts += ("." if parts else "") + frame[0]
                return parts + "..."
            stack.append([0 if c == b"[" else None])
        elif c in b"]}":
            if stack:
                stack.pop()
        elif c == b":" and stack:
            try:
                stack[-1][0] = json.loads(last)
            except ValueError:
                stack[-1][0] = "?"
        elif c == b"," and stack and isinstance(stack[-1][0], int):
            stack[-1][0] += 1
    return ""


class _NotJSON(ValueError):
    """NaN / Infinity / -Infinity: Python's json accepts them, JSON (and the API server) does not."""


def _reject_constant(name: str) -> object:
    raise _NotJSON(name)


def _parse_yaml(data: bytes, source: str) -> List[object]:
    from kubectl_evict.source import yamltext
    return yamltext.load_all(data, source)


def objects(data: Any, source: str) -> Iterator[Doc]:
    """Every object of one file's content, unwrapped (`expand`). A YAML file is read as it
    streams: the items of a List come out one by one while the rest is still being parsed, with
    only the keys the freezer reads."""
    if _head(data) in (b"{", b"["):
        docs = parse_text(data, source)
        del data   # the caller holds no other reference: the text goes as soon as it is parsed
        for doc in docs:
            yield from expand(doc, source)
        return
    from kubectl_evict.source import fastyaml, yamltext
    stream = fastyaml.stream(data, source)
    del data
    index, waiting = 0, []   # items that name no kind wait for their List's kind
    for is_item, value in stream:
        if is_item:
            where = "items[%d]" % index
            index += 1
            if _is_list(value):
                yield from expand(value, source, where)
            elif "kind" in value:
                yield (source, where, value)
            else:
                waiting.append((where, value))
            continue
        if not index:
            yield from expand(value, source)
            continue
        kind = value.get("kind") if isinstance(value, dict) else None
        item_kind = kind[: -len(_LIST_SUFFIX)] if isinstance(kind, str) and kind.endswith(_LIST_SUFFIX) \
            and kind != "List" else None
        for where, item in waiting:
            yield (source, where, dict(item, kind=item_kind) if item_kind else item)
        for i, item in enumerate(value.get("items") or ()):
            if item is not yamltext.STREAMED:
                raise InputError("list item is not an object (found %s)" % json_type(item),
                                 source=source, field="items[%d]" % i)
        index, waiting = 0, []


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
        raise InputError("expected a Kubernetes object (a mapping), found %s" % json_type(doc),
                         source=source + index if index else source)
    kind = doc.get("kind")
    items = doc.get("items")
    if (isinstance(kind, str) and kind.endswith(_LIST_SUFFIX)) or (kind is None and isinstance(items, list)):
        item_kind = kind[: -len(_LIST_SUFFIX)] if isinstance(kind, str) and kind != "List" else None
        if not items and (items is None or isinstance(items, list)):
            # an empty `v1 List` (kubectl's `get -o json` when nothing matched) names no kind: it
            # is read ("of": None, which holds nothing) so that the file is no "nothing found" error
            yield (source, index, {"kind": EMPTY_LIST, "of": item_kind})
            return
        if items is None:
            return
        if not isinstance(items, list):
            raise InputError("items must be a list", source=source, obj=str(kind), field="items")
        for i, item in enumerate(items):
            where = "%sitems[%d]" % (index + "." if index else "", i)
            if not isinstance(item, dict):
                raise InputError("list item is not an object (found %s)" % json_type(item),
                                 source=source, field=where)
            if item_kind and "kind" not in item:
                item = dict(item, kind=item_kind)
            if _is_list(item):
                yield from expand(item, source, where)
                continue
            yield (source, where, item)
        return
    yield (source, index, doc)


def _is_list(item: dict) -> bool:
    """A List inside a List: kubectl reads its items as if they were the outer list's
    (cli-runtime resource/visitor.go, FlattenListVisitor flattens nested lists)."""
    if "items" not in item:   # per object on every load: the cheap test first
        return False
    kind = item.get("kind")
    return isinstance(kind, str) and kind.endswith(_LIST_SUFFIX) and isinstance(item["items"], list)
