"""`-o json` text: `render.document.to_json` must print exactly what `json.dumps(doc, indent=2)`
prints (the stdlib is the contract's spelling of numbers and escapes), whichever path it takes:
the C encoder re-indented by msgspec, or the stdlib's own indenting encoder (NaN, Infinity)."""

import json

import pytest

from kubectl_evict.render.document import to_json

CASES = [
    ("empty containers", {"a": [], "b": {}, "c": [{}], "d": [[]]}),
    ("floats the stdlib spells with an exponent", {"x": [1e16, 1.5e-07, 1e-05, 1e22, -0.0, 0.1, 123.456]}),
    ("big and negative integers", {"n": [2 ** 70, -(2 ** 65), 0, -1]}),
    ("escapes and non-ASCII", {"s": "tab\there \"quoted\" back\\slash \u0007 \u007f \u2028 é — ü 日本"}),
    ("key order kept", {"z": 1, "a": 2, "m": {"y": None, "b": True, "c": False}}),
    ("top-level list", [1, "two", 3.0, None]),
    ("NaN and Infinity (stdlib path)", {"v": [float("nan"), float("inf"), -float("inf")]}),
]


@pytest.mark.parametrize("ascii", [False, True])
@pytest.mark.parametrize("name,doc", CASES, ids=[c[0] for c in CASES])
def test_to_json_is_json_dumps_indent_2(name, doc, ascii):
    assert to_json(doc, ascii=ascii) == json.dumps(doc, indent=2, ensure_ascii=ascii) + "\n"
