"""YAML as kubectl reads it: each document converted to the JSON value sigs.k8s.io/yaml makes of it.

kubectl never builds YAML-specific values: `sigs.k8s.io/yaml` decodes YAML with go-yaml and
turns the result into JSON (YAMLToJSON, convertToJSONableObject). So here:

* mapping keys become strings: an integer key `1` is "1", a float key as Go formats it, a boolean
  "true"/"false"; a null, list or mapping key is refused, naming the line;
* an unquoted timestamp (`creationTimestamp: 2026-11-21T10:00:00Z`) is a string, written as Go's
  time.Time marshals to JSON (RFC 3339, UTC as `Z`, fractions without trailing zeros); a bare
  date is its midnight UTC;
* integers, floats, booleans and nulls resolve by YAML 1.1's rules (PyYAML's resolver table,
  which go-yaml v2 follows for these), merge keys (`<<`) and anchors work.

Speed and memory: the document is built straight from libyaml's event stream (PyYAML's `CParser`,
C code; the pure-Python parser when the wheel lacks libyaml) by one loop without recursion, with
plain scalars resolved once per distinct text. PyYAML's own loader builds a node tree for the
whole document and constructs it recursively in Python: 40 times slower than the JSON path, 20
times its memory, and a segmentation fault on a value nested 50,000 levels deep. Keys that no rule
reads are dropped while building (the fast JSON path's schema, `fastjson.KEEP`), and the items of
a `List` are handed over one by one as they are built (`objects`), so a snapshot written by
`snapshot -o yaml` never exists twice in memory.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import yaml
from yaml import events as _ev
from yaml.constructor import SafeConstructor
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from kubectl_evict.errors import InputError, json_type

try:  # the same pruning as the fast JSON path: one schema of what the freezer reads
    from kubectl_evict.source.fastjson import KEEP as _KEEP
except ImportError:  # pragma: no cover - the pure-Python bundle keeps every key
    _KEEP = None

# libyaml's parser when PyYAML was built with it (every binary wheel is), else PyYAML's own.
# Only their parser (get_event) is used; construction is done here.
PARSER: Any = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
WITH_LIBYAML = PARSER is not yaml.SafeLoader

# Deeper than any Kubernetes object nests; deep enough for any real document. Code downstream
# (hashing, equality, JSON encoding) recurses and would fail somewhere past ~900 levels.
MAX_DEPTH = 500

_STR = "tag:yaml.org,2002:str"
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MERGE = "tag:yaml.org,2002:merge"
_SCALAR_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:bool",
                "tag:yaml.org,2002:null", _STR, _TIMESTAMP)
_IMPLICIT = Resolver.yaml_implicit_resolvers
_constructor = SafeConstructor()


class _Problem(Exception):
    """A document kubectl would refuse, with the event where it shows."""

    def __init__(self, problem: str, event: Any) -> None:
        super().__init__(problem)
        self.problem = problem
        self.event = event


def _construct(tag: str, text: str) -> Any:
    if tag == _STR:
        return text
    if tag == _TIMESTAMP:
        # kubectl reads YAML into interface{} through sigs.k8s.io/yaml's go-yaml v2, which keeps a
        # scalar that resolves to a timestamp (plain or !!timestamp) as its text "for backward
        # compatibility" (decode.go): a label `release: 2024-01-01` stays "2024-01-01", and a time
        # field gets exactly what was written (the API then parses it as RFC 3339)
        return text
    return _constructor.yaml_constructors[tag](_constructor, ScalarNode(tag, text))


def _plain(text: str, ev: Any) -> Any:
    """An unquoted scalar resolved by YAML 1.1's implicit rules (PyYAML's table)."""
    for tag, regexp in _IMPLICIT.get(text[:1] if text else "", ()):
        if regexp.match(text):
            if tag == _MERGE:
                return _MERGE_KEY
            try:
                return _construct(tag, text)
            except ValueError:   # an integer past Python's 4300-digit conversion limit
                raise _Problem("a number of %d digits (no Kubernetes field holds one)" % len(text), ev) from None
    return text


class _MergeKey(str):
    """The `<<` key of a merge."""


_MERGE_KEY = _MergeKey("<<")


def _scalar(ev: Any, cache: Dict[str, Any]) -> Any:
    tag = ev.tag
    if tag is None or tag == "!":
        if tag is None and ev.implicit[0]:   # plain: resolve (once per distinct text)
            text = ev.value
            try:
                return cache[text]
            except KeyError:
                v = cache[text] = _plain(text, ev)
                return v
        return ev.value
    if tag in _SCALAR_TAGS:
        try:
            return _construct(tag, ev.value)
        except (ValueError, yaml.YAMLError):
            shown = ev.value if len(ev.value) <= 40 else ev.value[:40] + "... (%d characters)" % len(ev.value)
            raise _Problem("%r is not a valid %s" % (shown, tag.rsplit(":", 1)[-1]), ev) from None
    raise _Problem("unsupported YAML tag %s (kubectl reads only JSON values)" % tag, ev)


def _key(k: Any, ev: Any) -> Any:
    """A mapping key as sigs.k8s.io/yaml makes it a JSON object key."""
    if k.__class__ is str:
        return k
    if isinstance(k, bool):
        return "true" if k else "false"
    if isinstance(k, int):
        return str(k)
    if isinstance(k, float):
        return "%g" % k if k == k and k not in (float("inf"), float("-inf")) else \
            {True: ".inf", False: "-.inf"}.get(k > 0, ".nan") if k == k else ".nan"
    if isinstance(k, _MergeKey):
        return k
    raise _Problem("unsupported map key: %s (JSON object keys are strings)" % json_type(k), ev)


class _Frame:
    __slots__ = ("value", "key", "keep", "stream")

    def __init__(self, value: Any, keep: Any) -> None:
        self.value = value
        self.key: Any = _NOKEY
        self.keep = keep        # None: keep every key; a dict: keep only its keys; _SKIP: keep nothing
        self.stream = False     # the top-level `items:` list whose items are yielded as built


_NOKEY = object()
_SKIP = object()
STREAMED = object()   # stands in a streamed `items` list for each item already handed over


def _path(stack: List[_Frame], shown: int = 6) -> str:
    """Where the open containers lead, as a field path (`metadata.labels.a.x...`)."""
    out = ""
    for f in stack[:shown]:
        if f.value.__class__ is list:
            out += "[%d]" % len(f.value)
        elif f.key is not _NOKEY:
            out += ("." if out else "") + str(f.key)
    return out + ("..." if len(stack) > shown else "")


def _merge(target: dict, value: Any, ev: Any) -> None:
    for m in (value if isinstance(value, list) else [value]):
        if not isinstance(m, dict):
            raise _Problem("a merge key (<<) takes a mapping or a list of mappings", ev)
        for k, v in m.items():
            target.setdefault(k, v)


def _events(data: Any, prune: bool, stream: bool) -> Iterator[Tuple[bool, Any]]:
    """(False, document) for each document of a YAML stream, as plain dicts, lists and scalars.
    With `stream`, each item of a top-level `items:` list comes first as (True, item), as soon
    as it is built, and the list keeps STREAMED in its place."""
    parser = PARSER(data)
    get = parser.get_event
    cache: Dict[str, Any] = {}
    scalar_c, map_c, seq_c = _ev.ScalarEvent, _ev.MappingStartEvent, _ev.SequenceStartEvent
    map_end_c, seq_end_c = _ev.MappingEndEvent, _ev.SequenceEndEvent
    alias_c, doc_end_c, stream_end_c = _ev.AliasEvent, _ev.DocumentEndEvent, _ev.StreamEndEvent
    keep_root = _KEEP if prune else None
    while True:
        ev = get()
        c = ev.__class__
        if c is stream_end_c:
            return
        if c is not _ev.DocumentStartEvent:
            continue
        anchors: Dict[str, Any] = {}
        stack: List[_Frame] = []
        root: Any = None
        while True:
            ev = get()
            c = ev.__class__
            if c is scalar_c:
                if ev.tag is None:   # the common case inline: plain (resolved once per text) or quoted
                    if ev.implicit[0]:
                        value = cache.get(ev.value, _NOKEY)
                        if value is _NOKEY:
                            value = cache[ev.value] = _plain(ev.value, ev)
                    else:
                        value = ev.value
                else:
                    value = _scalar(ev, cache)
                if ev.anchor is not None:
                    anchors[ev.anchor] = value
            elif c is map_c or c is seq_c:
                if len(stack) >= MAX_DEPTH:
                    raise _Problem("%s: nested more than %d levels deep" % (_path(stack), MAX_DEPTH), ev)
                if not stack:
                    keep = keep_root if c is map_c else None
                else:
                    top = stack[-1]
                    keep = top.keep
                    if keep is not None and keep is not _SKIP and top.value.__class__ is dict:
                        keep = keep.get(top.key, _SKIP)
                        if keep is True:
                            keep = None
                if ev.anchor is not None:   # an alias may use it where it is kept: build it whole
                    frame = _Frame({} if c is map_c else [], None)
                    anchors[ev.anchor] = frame.value
                else:
                    frame = _Frame({} if c is map_c else [], keep)
                if stream and c is seq_c and len(stack) == 1 and stack[0].key == "items":
                    frame.stream = True
                stack.append(frame)
                continue
            elif c is map_end_c or c is seq_end_c:
                frame = stack.pop()
                value = frame.value
            elif c is alias_c:
                if ev.anchor not in anchors:
                    raise _Problem("unknown alias *%s" % ev.anchor, ev)
                value = anchors[ev.anchor]
            elif c is doc_end_c:
                break
            else:  # pragma: no cover - the parser emits nothing else inside a document
                continue
            if not stack:
                root = value
                continue
            top = stack[-1]
            container = top.value
            if container.__class__ is list:
                if top.keep is _SKIP:
                    continue
                if top.stream and value.__class__ is dict:
                    yield True, value
                    value = STREAMED
                container.append(value)
            elif top.key is _NOKEY:
                if value.__class__ is not str:
                    value = _key(value, ev)
                top.key = value
            else:
                key = top.key
                top.key = _NOKEY
                keep = top.keep
                if keep is None:
                    if key is _MERGE_KEY:
                        _merge(container, value, ev)
                    else:
                        container[key] = value
                elif keep is not _SKIP and key in keep:
                    container[key] = value
                elif key is _MERGE_KEY:
                    _merge(container, {k: v for k, v in value.items() if k in keep}
                           if isinstance(value, dict) else value, ev)
        yield False, root


def load_all(data: bytes, source: str) -> List[Any]:
    """Every document of a YAML file (bytes), as kubectl would read them; InputError naming the
    file and line for anything it would refuse."""
    text = _text(data, source)
    return [d for _, d in _guarded(lambda: list(_events(text, False, False)), source) if d is not None]


def _text(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputError("not UTF-8 text (byte 0x%02x on line %d)" % (data[e.start], line),
                         source=source) from None


def _guarded(run: Callable[[], Any], source: str) -> Any:
    try:
        return run()
    except _Problem as e:
        mark = getattr(e.event, "start_mark", None)
        where = " (line %d, column %d)" % (mark.line + 1, mark.column + 1) if mark is not None else ""
        raise InputError("invalid YAML%s: %s" % (where, e.problem), source=source) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = " (line %d, column %d)" % (mark.line + 1, mark.column + 1) if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise InputError("invalid YAML%s: %s" % (where, problem), source=source) from None


def stream(data: bytes, source: str) -> Iterator[Tuple[bool, Any]]:
    """The documents of a YAML snapshot with only the keys the freezer reads, and the items of a
    top-level `items:` list handed over as they are built: (True, item) for such an item,
    (False, document) for each document (its streamed items replaced by STREAMED)."""
    gen = _events(_text(data, source), True, True)
    del data
    while True:
        step = _guarded(lambda: next(gen, None), source)
        if step is None:
            return
        if step[1] is not None or step[0]:
            yield step
