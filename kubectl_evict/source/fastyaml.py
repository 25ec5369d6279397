"""Fast path for large YAML snapshots: rapidyaml (C++) turns the YAML into JSON, msgspec reads that.

A YAML snapshot read event by event through libyaml (`yamltext.py`) takes ~9x the CPU time of
the same snapshot as JSON; libyaml's event stream alone is most of it. rapidyaml parses YAML
~10x faster and writes any tree as JSON text in C++, which the fast JSON path (`fastjson`)
already reads at C speed into the freezer's projection. So here a file is cut at its documents
(`---`) and, for a snapshot (`kind: List`, `items:` at column 0), at item boundaries into
chunks of about a megabyte; each chunk goes YAML -> rapidyaml tree -> JSON text -> pruned dicts,
and its items are handed over as they come (the same (is_item, value) steps as
`yamltext.stream`), so neither the tree nor the JSON text of the whole file ever exists.

rapidyaml reads YAML 1.2's core schema and writes what it does not resolve as strings; kubectl
(sigs.k8s.io/yaml over go-yaml) resolves plain scalars by YAML 1.1's rules, which `yamltext`
models. They agree on what `kubectl get -o yaml` and `snapshot -o yaml` write: quoted strings,
decimal integers, simple decimals, true/false/null, block and flow collections. For everything
else the text is scanned first (`risky`: a `bytes.translate` that keeps only the rare bytes that
matter, a few `find`s, and regular expressions that each start with a literal, so `re` skips
ahead at C speed and tests one character class before anything else) and the file goes to
`yamltext` instead: a plain scalar that YAML 1.1 resolves to a non-string other than
those (`yes`, `~`, `0755`, `1_000`, `1:20`, timestamps, `.inf`) or that rapidyaml writes bare
or rewrites (`1e400`, `+1`, `.5`, `nan`), a float or null used as a mapping key, anchors,
aliases, tags, merge keys, directives, complex keys, tabs, control characters, escapes JSON lacks,
non-UTF-8 or non-printable text, implicit keys past libyaml's 1,024-character limit, and
deep nesting (rapidyaml's JSON writer also refuses more than 64 levels). A detected difference costs speed, never a
different answer. Anything rapidyaml or msgspec refuses later (a syntax error, a volume source
the JSON schema does not list) also goes to `yamltext`, which skips the steps already handed
over, so errors keep their one line naming file, line and field.
"""

from __future__ import annotations

import os
import re
from typing import Any, Iterator, List, Optional, Tuple

from kubectl_evict.source import yamltext

try:  # optional at run time: without it (or without msgspec) every YAML file takes yamltext
    import ryml
    from kubectl_evict.source import fastjson
except ImportError:  # pragma: no cover - exercised where the wheels are missing
    ryml = None  # type: ignore[assignment]
    fastjson = None  # type: ignore[assignment]

AVAILABLE = ryml is not None and fastjson is not None


def describe() -> str:
    """Which YAML reader is in use (for `kubectl evictplan version`)."""
    if AVAILABLE:
        where = os.path.dirname(os.path.dirname(os.path.abspath(ryml.__file__)))
        return "rapidyaml %s fast YAML path active (%s)" % (getattr(ryml, "__version__", "?"), where)
    return "rapidyaml missing: libyaml event reader for YAML (slower on large snapshots)"


class _Unsure(Exception):
    """rapidyaml or msgspec could not take this text: read the file with yamltext."""


# --- the scan: what rapidyaml + msgspec might read differently from yamltext -----------------

def _resolver_patterns() -> bytes:
    """PyYAML's YAML 1.1 implicit resolvers (the table yamltext resolves plain scalars with),
    as one alternation without anchors: a plain scalar matching it is not a plain string."""
    from yaml.resolver import Resolver
    seen: List[str] = []
    for resolvers in Resolver.yaml_implicit_resolvers.values():
        for _tag, regexp in resolvers:
            p = regexp.pattern
            if p not in seen:
                seen.append(p)
    body = [p[len("^(?:"):-len(")$")] for p in seen if p.startswith("^(?:") and p.endswith(")$")]
    return b"|".join(b"(?:" + p.encode() + b")" for p in body)


# Plain scalars both readers give the same value: decimal integers (as keys too), simple decimals,
# true/false (as keys too: "true"/"false"), null (a value), and timestamps in RFC 3339's UTC form
# (yamltext keeps every timestamp's text, as kubectl does; other timestamps stay candidates).
_SAME = re.compile(rb"(?:0|-?[1-9][0-9]{0,17}|true|false)"
                   rb"|(?:-?(?:0|[1-9][0-9]{0,14})\.[0-9]{0,30}|null"
                   rb"|[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*[1-9])?Z)")
MAX_FLOW = 150   # flow and block nesting each under this stays far from yamltext.MAX_DEPTH
MAX_KEY = 900    # libyaml refuses an implicit key over 1,024 characters; rapidyaml does not
# What rapidyaml writes as a bare JSON number or rewrites (nan -> ".nan").
_RYML_NUMBER = (rb"[-+]?(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
                rb"|[-+]?\.?(?i:nan|inf|infinity)")
_DIFFERENT = re.compile(rb"(?x:" + _resolver_patterns() + rb")|" + _RYML_NUMBER)
# Candidates: a plain scalar that starts like a number (running on over `:digit`, as a timestamp
# or YAML 1.1's sexagesimal 1:20 do) or is one of YAML 1.1's other non-string words.
_WORDS = (rb"(?:[Yy]es|YES|[Nn](?:o|ull)|N(?:O|ULL)|[Oo](?:n|ff)|O(?:N|FF)|T(?:rue|RUE)|F(?:alse|ALSE)|~|<<|="
          rb"|[-+]?\.?(?i:nan|inf|infinity))")
# A number, a timestamp or sexagesimal 1:20 is made of these; two dots before any colon (an IP
# address, a version) is none of them.
_NUM_CHARS = rb"[-+.0-9_xXoObBa-fA-FTtZz]*"
_NUMBERISH = (rb"(?![-+]?[0-9]*\.[0-9]*\.)[-+.0-9]" + _NUM_CHARS + rb"(?::[0-9]" + _NUM_CHARS + rb")*"
              rb"(?=[ ]*(?:[\r\n\#,\]}:]|\Z))"
              rb"|[0-9]{4}-[0-9][0-9]?-[0-9][0-9]?(?=[ \tTt])")   # a timestamp with a space in it
# Plain integers, null, true and false read the same: not even candidates.
_PLAIN_SAME = rb"(?!(?:null|true|false|0|-?[1-9][0-9]{0,17})(?=[ ]*(?:[\r\n,\]}]|\Z)|[ ]+\#))"
_CANDIDATE = (rb"(?=[-+.0-9])" + _PLAIN_SAME + rb"(?:" + _NUMBERISH + rb")|(?=[YyNnOoTF~<=.+\-iI])" + _PLAIN_SAME + _WORDS +
              rb"(?=[ ]*(?:[\r\n\#,\]}:]|\Z))")
_VALUE_END = rb")((?: *:(?=[ \r\n]|\Z))?)"
_FIRST = rb"(?=[-+.0-9YyNnOoTF~<=iI])"   # one class test first: most values fail it at once
# After `: ` (a value) or a flow indicator (one literal each: fast to find).
_VALUES = re.compile(rb": +" + _FIRST + rb"(" + _CANDIDATE + _VALUE_END)
_FLOW_VALUES = [re.compile(re.escape(p) + rb" *" + _FIRST + rb"(" + _CANDIDATE + _VALUE_END) for p in (b"[", b"{", b",")]
# At a line's start: a key, a sequence item, a continuation line.
_LINES = re.compile(rb"\n *+(?:- +)*+(?=[-+.0-9YyNnOoTF~<=iI?:])(" + _CANDIDATE + rb"|[?:]" + _VALUE_END)
# Every byte but a newline as x: a run of x is a long line.
_LINE_MARKS = bytes(10 if c == 10 else 120 for c in range(256))
# Bytes that only matter where they are (checked one by one) and bytes that are never safe.
_SPECIAL = b"&*!%@`?<=~\\\r"
_NEVER = bytes(range(0, 9)) + b"\t\x0b\x0c" + bytes(range(14, 32)) + b"\x7f"
_BRACKETS = b"[]{}"
_COMMON = bytes(c for c in range(128) if c not in _SPECIAL + _NEVER + _BRACKETS)
_UNPRINTABLE = re.compile("[\x80-\x9f\u2028\u2029\ufeff\ufffe\uffff]")
_INDICATORS = frozenset(b"&*!%@`?<=~")


def risky(data: Any) -> Optional[str]:
    """Why rapidyaml's reading of `data` (bytes or a memory map) might differ from yamltext's;
    None if it cannot. C-speed passes (translate, find, count) narrow it to a few candidates that
    are checked one by one."""
    return _risky(data if isinstance(data, bytes) else bytes(data))


def _risky(data: bytes) -> Optional[str]:
    odd = data.translate(None, _COMMON)
    if odd:
        present = set(odd)
        if present & set(_NEVER):
            return "a tab or control character"
        if any(c >= 0x80 for c in present):
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                return "not UTF-8"
            if _UNPRINTABLE.search(text) is not None:
                return "a character libyaml reads differently"
            del text
        if 13 in present and data.count(b"\r") != data.count(b"\r\n"):
            return "a carriage return without a newline"
        if 92 in present and _bad_escape(data):
            return "a backslash escape"
        for c in present & _INDICATORS:
            why = _indicator(data, c)
            if why:
                return why
        if _flow_depth(odd.translate(None, _NOT_BRACKETS)) >= MAX_FLOW:
            return "deep flow nesting"
    del odd
    if data.find(b" " * MAX_FLOW) >= 0 or data.find(b"- " * (MAX_FLOW // 2)) >= 0:
        return "deep block nesting"
    for marker in (b"\n...", b"\n--- "):
        at = data.find(marker)
        while at >= 0:
            rest = bytes(data[at + len(marker):data.find(b"\n", at + 1) if data.find(b"\n", at + 1) >= 0 else len(data)])
            if marker == b"\n..." or rest.strip()[:1] not in (b"", b"#"):
                return "a document marker with content"
            at = data.find(marker, at + 1)
    if bytes(data[:3]) == b"..." or (bytes(data[:4]) == b"--- " and bytes(data[4:data.find(b"\n")]).strip()[:1] not in (b"", b"#")):
        return "a document marker with content"
    for found in [_VALUES, _LINES] + _FLOW_VALUES:
        why = _first_different(found.findall(data))
        if why:
            return why
    nl = data.find(b"\n")
    first = data if nl < 0 else data[:nl + 1]
    return _first_different(_LINES.findall(b"\n" + first)) or _long_key(data)   # the first line too


def _first_different(found: List[Tuple[bytes, bytes]]) -> Optional[str]:
    for token, key in set(found):   # (token, key colon): each distinct one once
        if _differs(token, key):
            return "%r" % token[:40]
    return None


def _closing_quote(text: bytes) -> int:
    """Where the quoted scalar that starts `text` closes on its line (-1: it goes on)."""
    q, i = text[:1], 1
    while True:
        i = text.find(q, i)
        if i < 0:
            return -1
        if q == b"'" and text[i + 1:i + 2] == b"'":
            i += 2
        elif q == b'"' and (i - len(text[:i].rstrip(b"\\"))) % 2:
            i += 1
        else:
            return i


def _long_key(data: bytes) -> Optional[str]:
    """A line long enough to hold a key past libyaml's 1,024-character limit for an implicit
    key, which rapidyaml does not have: is its key that long?"""
    marks = data.translate(_LINE_MARKS)
    at = marks.find(b"x" * MAX_KEY)
    while at >= 0:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        line = data[start:end].lstrip(b" -")
        if line[:1] in (b"{", b"[") or b": {" in line or b": [" in line:
            return "a long key"   # a flow collection on a long line: any key inside may be past the limit
        colon = -1 if line[:1] in (b"'", b'"') else line.find(b": ")
        if colon < 0 and line.endswith(b":"):
            colon = len(line) - 1
        if _differs(line if colon < 0 else line[:colon], b":" if colon >= 0 else b""):
            return "a long key"
        at = marks.find(b"x" * MAX_KEY, end)
    return None


_DECIMAL = re.compile(rb"-?[0-9]+\.[0-9]*")
_DATE = re.compile(rb"[0-9]{4}-[0-9][0-9]?-[0-9][0-9]?")


def _differs(token: bytes, key: bytes) -> bool:
    """Might this plain scalar (a key when `key`) read differently? yamltext makes a float key
    Go's %g text and refuses a null key; rapidyaml keeps the text."""
    if token in (b"?", b":"):
        return True
    if len(token) >= MAX_KEY:   # a long line: is its key past libyaml's limit?
        if token[:1] in (b"'", b'"'):
            close = _closing_quote(token)
            return close >= MAX_KEY and token[close + 1:close + 2] == b":"
        return bool(key)
    if key and (token in (b"null", b"Null", b"NULL", b"~") or _DECIMAL.fullmatch(token) is not None):
        return True
    if _SAME.fullmatch(token) is not None:
        return False
    return _DIFFERENT.fullmatch(token) is not None or _DATE.match(token) is not None


def _at_token_start(data: Any, i: int) -> bool:
    j = i - 1
    while j >= 0 and data[j] == 32:
        j -= 1
    if j < 0:
        return True
    c = data[j]
    if c in b"[{":   # a bracket opens a flow collection only where a token may start
        return _at_token_start(data, j)
    return c in b"\n," or (c in b":-?" and j < i - 1)


def _indicator(data: Any, c: int) -> Optional[str]:
    """An indicator character where it starts a token: an anchor, alias, tag, directive, reserved
    character, complex key, merge key, `=` or `~`."""
    ch = bytes((c,))
    at = data.find(ch)
    while at >= 0:
        if _at_token_start(data, at):
            if c in b"&*!%@`":
                return "%r where a value starts" % ch.decode()
            nxt = bytes(data[at + 1:at + 3])
            if c == ord("?") and (nxt[:1] in (b"", b" ", b"\n", b"\r")):
                return "a complex key"
            if c == ord("<") and nxt[:1] == b"<":
                return "a merge key"
            if c in b"=~" and (nxt[:1] in (b"", b" ", b"\n", b"\r", b",", b"]", b"}", b":")):
                return "%r where a value starts" % ch.decode()
        at = data.find(ch, at + 1)
    return None


def _bad_escape(data: bytes) -> bool:
    """A backslash that might start an escape the readers treat differently: anything but n, t,
    ", \\ or /, unless it sits in a plain or single-quoted scalar (where it is a backslash for
    both) that starts on its line, with no double quote on that line or the one before."""
    at = data.find(b"\\")
    while at >= 0:
        nxt = data[at + 1:at + 2]
        if nxt == b"\\":
            at += 1
        elif nxt not in (b"n", b"t", b'"', b"/") and not _unicode_escape(data, at) and \
                not _literal_backslash(data, at):
            return True
        at = data.find(b"\\", at + 1)
    return False


def _unicode_escape(data: bytes, at: int) -> bool:
    """\\uXXXX outside the surrogates: the same character for both readers."""
    hexa = data[at + 2:at + 6]
    return data[at + 1:at + 2] == b"u" and len(hexa) == 4 and all(c in b"0123456789abcdefABCDEF" for c in hexa) \
        and not (0xD800 <= int(hexa, 16) <= 0xDFFF)


def _literal_backslash(data: bytes, at: int) -> bool:
    start = data.rfind(b"\n", 0, at) + 1
    before = data.rfind(b"\n", 0, max(start - 1, 0)) + 1
    line = data[start:at]
    if b'"' in line or b'"' in data[before:start]:
        return False
    body = line.lstrip(b" ")
    if body.startswith(b"- "):
        body = body.lstrip(b"- ")
    colon = body.find(b": ")
    value = body[colon + 2:].lstrip(b" ") if colon >= 0 else (body if line[:len(line) - len(body)].endswith(b"- ") else b"")
    return value[:1] not in (b"", b'"', b"|", b">") and (colon >= 0 or value is body)




_NOT_BRACKETS = bytes(c for c in range(256) if c not in _BRACKETS)


def _flow_depth(brackets: bytes) -> int:
    """An upper bound of how deep flow collections nest, from the text's brackets alone (quoted
    ones included: they can only raise it). Each pass drops the innermost pairs."""
    passes = 0
    while brackets and passes < MAX_FLOW:
        fewer = brackets.replace(b"[]", b"").replace(b"{}", b"").replace(b"[}", b"").replace(b"{]", b"")
        if len(fewer) == len(brackets):
            break
        brackets, passes = fewer, passes + 1
    depth = top = 0
    for b in brackets:
        depth = depth + 1 if b in b"[{" else max(depth - 1, 0)
        top = max(top, depth)
    return passes + top


# --- cutting: documents, and a List's items in chunks --------------------------------------

_REGION_END = re.compile(rb"^(?:[^\-\s\#]|-[^ \r\n])", re.M)
_ITEM_START = re.compile(rb"\n-(?=[ \r\n])")
CHUNK = 1 << 20


def _documents(data: Any) -> List[Tuple[int, int]]:
    """(start, end) of each document of the stream: the text between `---` lines (the risk
    scan refused `...` and content on a `---` line). A part with no content (comments before
    the first `---`, an empty document) reads as None and is skipped, as yamltext skips it."""
    bounds, pos = [], 0
    at = 0 if bytes(data[:3]) == b"---" else data.find(b"\n---")
    while at >= 0:
        mark = at if at == 0 and bytes(data[:3]) == b"---" else at + 1
        if bytes(data[mark + 3:mark + 4]) in (b"", b" ", b"\n", b"\r"):
            bounds.append((pos, mark))
            pos = mark + 3
        at = data.find(b"\n---", mark + 1)
    bounds.append((pos, len(data)))
    return bounds


def _silenced(call: Any, *args: Any) -> Any:
    """rapidyaml prints a parse error on file descriptor 2 before raising; the user gets
    yamltext's one-line error instead."""
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        return call(*args)
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def _json(text: Any, tree: Any = None, out: Optional[bytearray] = None) -> Optional[bytearray]:
    """The JSON text of one YAML document (None for an empty one); _Unsure if rapidyaml refuses it.
    A tree given is reused (cleared first): growing a new one for every chunk costs a third of
    the parse. So is `out`, the buffer the JSON is written into (grown when too small); without one,
    a buffer about the text's size (compact JSON is about as long as block YAML)."""
    try:
        return _silenced(_parse_and_emit, bytearray(text), tree, bytearray(len(text) + 4096) if out is None else out)
    except Exception:   # ryml's ExceptionParse / ExceptionBasic, or anything else it raises
        raise _Unsure() from None


def _parse_and_emit(buf: bytearray, tree: Any, out: bytearray) -> Optional[bytearray]:
    if tree is not None:
        tree.clear()
        tree.clear_arena()
    tree = ryml.parse_in_place(buf, tree)   # the tree points into buf: keep it alive until emitted
    root = tree.root_id()
    if tree.is_container(root):   # flow style at the root: the JSON comes out on one line, no indentation
        tree.set_container_style(root, ryml.FLOW_SL)
    # Writing into a buffer we hold is 3x faster than emit_json_malloc (which sizes the text in
    # a first pass and returns a str). The answer is [too small, length]; refuses nesting past 64.
    too_small, length = ryml._ryml.emit_json_to_substr(tree, root, out)
    if too_small:
        out.extend(bytes(length - len(out)))
        too_small, length = ryml._ryml.emit_json_to_substr(tree, root, out)
        if too_small:
            raise _Unsure()
    # A copy: decoded pods keep views into their text, and `out` is written again for the next chunk.
    return out[:length] if length else None


def _items_region(data: Any, start: int, end: int) -> Optional[Tuple[int, int, int]]:
    """(the `items:` line, first item, end of the last item) when the document is a block
    mapping whose only top-level `items` key holds a block sequence at column 0 (what kubectl
    and `snapshot -o yaml` write); None otherwise."""
    at_start = bytes(data[start:start + 6]) == b"items:"
    line = start if at_start else data.find(b"\nitems:", start, end) + 1
    if line == 0 and not at_start:
        return None
    eol = data.find(b"\n", line, end)
    if eol < 0 or bytes(data[line + 6:eol]).strip(b" \r")[:1] not in (b"", b"#") or \
            bytes(data[eol + 1:eol + 3]) not in (b"- ", b"-\n", b"-\r"):
        return None
    first = eol + 1
    # The sequence ends at the first line at column 0 that does not start an item: looked for
    # after the last item start (a chunk before it that held a top-level key would not parse
    # as one sequence: rapidyaml refuses it and yamltext reads the file).
    last = data.rfind(b"\n-", first - 1, end)
    close = _REGION_END.search(data, last + 1, end)
    stop = close.start() if close is not None else end
    # Another top-level `items` key before or after (yamltext would hand over its items too):
    # only the head and the tail can hold one (rapidyaml refuses a chunk with a key at column 0).
    for part in (bytes(data[start:line]), bytes(data[stop:end])):
        part = b"\n" + part
        if part.count(b"\nitems") or part.count(b"\n'items'") or part.count(b'\n"items"'):
            return None
    return line, first, stop


def _steps(data: Any) -> Iterator[Tuple[bool, Any]]:
    """yamltext.stream's steps, read through rapidyaml; _Unsure where it cannot be sure."""
    view = memoryview(data)   # slices of a view: no copy of the file
    for start, end in _documents(data):
        region = _items_region(data, start, end)
        if region is None:
            yield from _whole(view[start:end])
            continue
        line, pos, last = region
        count, tree, out = 0, ryml.Tree(), bytearray(2 * CHUNK)
        while pos < last:
            cut = _ITEM_START.search(data, min(pos + CHUNK, last), last)
            nxt = cut.start() + 1 if cut is not None else last
            items = _decode_items(view[pos:nxt], tree, out)
            for item in items:
                if item.__class__ is not dict:
                    raise _Unsure()
                count += 1
                yield True, item
            del items
            pos = nxt
        shell = _whole_value(bytes(view[start:line]) + b"items: []\n" + bytes(view[last:end]))
        if shell.__class__ is not dict or shell.get("items") != []:
            raise _Unsure()
        shell["items"] = [yamltext.STREAMED] * count
        yield False, shell


def _decode_items(text: Any, tree: Any, out: bytearray) -> list:
    js = _json(text, tree, out)
    if js is None:
        return []
    try:
        return fastjson.loads_items(js)
    except fastjson.FallBack:
        raise _Unsure() from None


def _whole_value(text: Any) -> Any:
    js = _json(text)
    if js is None:
        return None
    try:
        return fastjson.loads(js)
    except fastjson.FallBack:
        raise _Unsure() from None


def _whole(doc: Any) -> Iterator[Tuple[bool, Any]]:
    """One document read whole: the items of a root `items` list are handed over one by one,
    as yamltext does. A root that is not a block mapping at column 0, or one that may repeat
    `items` (yamltext hands over the items of each; a JSON object keeps the last), goes to
    yamltext."""
    head = bytes(doc[:4096])
    body = head.lstrip()
    if body[:1] in (b"{", b"[") or (body and head[len(head) - len(body) - 1:len(head) - len(body)] == b" "):
        raise _Unsure()
    text = b"\n" + bytes(doc)   # this path reads documents other than a List whole anyway
    if sum(text.count(sub) for sub in (b"\nitems", b"\n'items'", b'\n"items"')) > 1:
        raise _Unsure()
    del text
    value = _whole_value(doc)
    if value is None:
        return
    if value.__class__ is dict and value.get("items").__class__ is list:
        items = value["items"]
        for i, item in enumerate(items):
            if item.__class__ is dict:
                yield True, item
                items[i] = yamltext.STREAMED
    yield False, value


def stream(data: Any, source: str) -> Iterator[Tuple[bool, Any]]:
    """`yamltext.stream(data, source)`, faster where rapidyaml reads the text the same way."""
    data = data if isinstance(data, bytes) else bytes(data)   # one copy of a memory map, for all readers
    if not AVAILABLE or risky(data) is not None:
        yield from yamltext.stream(data, source)
        return
    done = 0
    try:
        for step in _steps(data):
            done += 1
            yield step
        return
    except _Unsure:
        pass
    for step in yamltext.stream(data, source):   # the same steps: skip those handed over
        if done:
            done -= 1
            continue
        yield step
