"""Field readers for raw Kubernetes objects: typed access that turns a wrong type, a missing
name or an unparsable value into one `InputError` naming the file, the object and the field.

The one home of input validation for every projector (`freeze.py` for nodes, pods and budgets,
`freeze_storage.py` for volumes, `freeze_dra.py` for DRA objects). Kept in a module of its own so
the projectors depend on it, not on each other (no import cycle).
"""

from __future__ import annotations

import sys
from typing import Any, Dict, Optional, Tuple

from kubectl_evict.errors import InputError, ValueParseError, json_type as _type_name
from kubectl_evict.model import (EMPTY_MAP, LabelSelector, NodeSelector, NodeSelectorTerm, OwnerRef, Requirement,
                                 Toleration, frozen_map)
from kubectl_evict.source import validate
from kubectl_evict.scheduling.labels import LABEL_SELECTOR_OPERATORS, label_value_errors, qualified_name_errors
from kubectl_evict.scheduling.tolerations import EFFECTS
from kubectl_evict.timeutil import parse_time

try:  # the fast loader hands repeated subtrees over as raw JSON text (see fastjson.py)
    from kubectl_evict.source.fastjson import Raw as _Raw, decode_conditions, decode_raw
except ImportError:  # pragma: no cover - the pure-Python bundle never produces raw text
    class _Raw:  # type: ignore[no-redef]
        """Never instantiated: stands for msgspec.Raw in `v.__class__ is _Raw` tests."""
    decode_raw = decode_conditions = None  # type: ignore[assignment]


def _text(v: Any) -> Any:
    """A hashable cache key for a raw subtree: its bytes (other values as they are)."""
    return bytes(v) if v.__class__ is _Raw else v


# Raw JSON text arrives as msgspec.Raw (files and live pages) or bytes (kubelet documents).
_RAW_TYPES = (_Raw, bytes)
# "MM:SS" -> seconds into the hour, for the timestamps `_Interner.time` takes
_MINUTES_SECONDS = {"%02d:%02d" % (m, s): m * 60 + s for m in range(60) for s in range(60)}
_intern = sys.intern
_EMPTY = EMPTY_MAP


class _Loc:
    """Where an object came from, for error messages."""
    __slots__ = ("source", "label")

    def __init__(self, source: str, label: str) -> None:
        self.source = source
        self.label = label

    def error(self, field: str, problem: str) -> InputError:
        return InputError(problem, source=self.source, obj=self.label, field=field)


class _PodLoc(_Loc):
    """A pod's location; its label ("Pod ns/name") is only formatted for an error."""
    __slots__ = ("ns", "name")

    def __init__(self, source: str, ns: str, name: str) -> None:
        self.source = source
        self.ns = ns
        self.name = name

    @property  # type: ignore[override]
    def label(self) -> str:
        return "Pod %s/%s" % (self.ns, self.name)


def _decoded(loc: _Loc, v: Any, path: str) -> Any:
    """A raw subtree decoded. The fast loader checks only its syntax: what else the JSON text
    holds wrong (bytes that are not UTF-8, a number beyond float64, nesting deeper than the
    decoder goes) surfaces here, and is reported at the field that holds it."""
    try:
        return decode_raw(v)
    except UnicodeDecodeError as e:
        raise loc.error(path, "not UTF-8 text (byte 0x%02x)" % e.object[e.start]) from None
    except RecursionError:
        raise loc.error(path, "invalid JSON: nested too deeply") from None
    except ValueError as e:   # msgspec.ValidationError / DecodeError ("Number out of range - at `$[0]`")
        problem = str(e).split(" - at ", 1)[0]
        raise loc.error(path, "invalid JSON: %s%s" % (problem[:1].lower(), problem[1:])) from None


def _map(loc: _Loc, d: dict, key: str, path: str) -> dict:
    v = d.get(key)
    if v is None:
        return {}
    if v.__class__ in _RAW_TYPES:
        v = _decoded(loc, v, path)
        if v is None:
            return {}
    if not isinstance(v, dict):
        raise loc.error(path, "expected an object, found %s" % _type_name(v))
    return v


def _seq(loc: _Loc, d: dict, key: str, path: str) -> list:
    v = d.get(key)
    if v is None:
        return []
    if v.__class__ in _RAW_TYPES:
        v = _decoded(loc, v, path)
        if v is None:
            return []
    if not isinstance(v, list):
        raise loc.error(path, "expected a list, found %s" % _type_name(v))
    return v


def _item_map(loc: _Loc, v: Any, path: str) -> dict:
    if not isinstance(v, dict):
        raise loc.error(path, "expected an object, found %s" % _type_name(v))
    return v


def _str(loc: _Loc, d: dict, key: str, path: str, default: str = "") -> str:
    v = d.get(key)
    if v is None:
        return default
    if not isinstance(v, str):
        raise loc.error(path, "expected a string, found %s" % _type_name(v))
    return v


def _int(loc: _Loc, d: dict, key: str, path: str, default: Optional[int] = None) -> Optional[int]:
    v = d.get(key)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, int):
        if isinstance(v, float) and v.is_integer():
            return int(v)
        raise loc.error(path, "expected an integer, found %s" % _type_name(v))
    return v


def _bool(loc: _Loc, d: dict, key: str, path: str, default: bool = False) -> bool:
    v = d.get(key)
    if v is None:
        return default
    if not isinstance(v, bool):
        raise loc.error(path, "expected true or false, found %s" % _type_name(v))
    return v


def _time(loc: _Loc, d: dict, key: str, path: str) -> Optional[float]:
    v = d.get(key)
    if v is None:
        return None
    try:
        return parse_time(v)
    except ValueParseError as e:
        raise loc.error(path, str(e)) from None


def _valid(loc: _Loc, check: Any, value: Any, field: str) -> Any:
    """Apply one of `validate`'s API-server checks, located in this object."""
    try:
        return check(value, field)
    except validate.InvalidValue as e:
        raise loc.error(e.field, e.problem) from None


class _Interner:
    """Share identical leaf values between objects (pods of one template are alike).

    Subtrees that reach the freezer as raw JSON text (from the fast loader) are projected once
    per distinct text: `cached` keys on its bytes. Other values are keyed on
    their contents where that is cheap (string maps, resource maps, container lists)."""

    def __init__(self) -> None:
        self.strmaps: Dict[Any, Any] = {}
        self.resources: Dict[Any, Any] = {}
        self.leaves: Dict[Any, Any] = {}
        self.times: Dict[str, Optional[float]] = {}
        self.days: Dict[str, float] = {}
        self.volumes: Dict[Tuple[str, str], Any] = {}
        self.annotations: Dict[bytes, Any] = {}
        self.owner_refs: Dict[bytes, Any] = {}
        self.tolerations: Dict[bytes, Any] = {}
        self.affinities: Dict[bytes, Any] = {}
        self.templates: Dict[Any, Any] = {}
        self.selectors: Dict[Any, Any] = {}
        self.ds_tolerations: Dict[Any, Any] = {}
        self.scheduling: Dict[Any, Any] = {}
        self.hours: Dict[str, float] = {}
        self.pod_specs: Dict[Any, Any] = {}     # freeze._spec_key -> the pod fields it stands for
        self.pod_spec_pcs: Any = None           # the PriorityClasses those were projected with

    def cached(self, cache: Dict[bytes, Any], loc: _Loc, d: dict, key: str, project: Any) -> Any:
        """`project(loc, d, self)`, once per distinct raw text of `d[key]` and once for an absent
        `d[key]`; every time for other values (dicts and lists from the stdlib path)."""
        v = d.get(key)
        if v is None or v.__class__ in _RAW_TYPES:
            if v.__class__ is _Raw:
                v = bytes(v)
            hit = cache.get(v)
            if hit is None:
                hit = cache[v] = project(loc, d, self)
            return hit
        return project(loc, d, self)

    def strmap(self, loc: _Loc, d: dict, key: str, path: str, what: str) -> Any:
        text = d.get(key)
        if text.__class__ in _RAW_TYPES:
            text = _text(text)
            hit = self.strmaps.get(text)
            if hit is None:
                hit = self.strmaps[text] = self._strmap(loc, _map(loc, d, key, path), path, what)
            return hit
        return self._strmap(loc, _map(loc, d, key, path), path, what)

    def _strmap(self, loc: _Loc, raw: dict, path: str, what: str) -> Any:
        if not raw:
            return _EMPTY
        try:
            k = tuple(raw.items())
            hit = self.strmaps.get(k)
        except TypeError:  # unhashable value: report it below
            hit = None
        if hit is not None:
            return hit
        out = {}
        for name, value in raw.items():
            if not isinstance(value, str):
                raise loc.error("%s.%s" % (path, name), "%s %r must be a string, found %s" % (what, name, _type_name(value)))
            out[_intern(name)] = _intern(value) if len(value) < 64 else value
        frozen = frozen_map(out)
        self.strmaps[k] = frozen
        return frozen

    def resource_map(self, loc: _Loc, d: dict, key: str, path: str) -> Any:
        text = d.get(key)
        if text.__class__ in _RAW_TYPES:
            text = _text(text)
            hit = self.resources.get(text)
            if hit is None:
                hit = self.resources[text] = self._resource_map(loc, _map(loc, d, key, path), path)
            return hit
        return self._resource_map(loc, _map(loc, d, key, path), path)

    def _resource_map(self, loc: _Loc, raw: dict, path: str) -> Any:
        if not raw:
            return _EMPTY
        try:
            k = tuple(raw.items())
            hit = self.resources.get(k)
        except TypeError:
            hit = None
        if hit is not None:
            return hit
        out = {}
        for name, q in raw.items():
            try:
                out[_intern(name)] = validate.resource_units(name, q, path)  # >= 0 and fits int64
            except ValueParseError as e:
                raise loc.error("%s.%s" % (path, name), str(e)) from None
        frozen = frozen_map(out)
        self.resources[k] = frozen
        return frozen

    def time(self, loc: _Loc, d: dict, key: str, path: str) -> Optional[float]:
        """`_time`, parsed once per distinct hour.

        The API server writes `YYYY-MM-DDTHH:MM:SSZ`; such a timestamp is its hour (parsed once,
        `_clock`) plus minutes and seconds. Anything else, or anything out of range, goes through
        `parse_time` (and its error), once per distinct string."""
        v = d.get(key)
        if v is None:
            return None
        if v.__class__ is str:
            if len(v) == 20 and v[19] == "Z":
                hour = self.hours.get(v[:14])
                if hour is not None:
                    into = _MINUTES_SECONDS.get(v[14:19])
                    if into is not None:
                        return hour + into
            t = self.times.get(v)
            if t is None:
                t = self.times[v] = self._clock(v)
                if t is None:
                    t = self.times[v] = _time(loc, d, key, path)
            return t
        return _time(loc, d, key, path)

    def _clock(self, v: str) -> Optional[float]:
        if len(v) != 20 or v[10] != "T" or v[19] != "Z" or v[13] != ":" or v[16] != ":":
            return None
        hms = v[11:13] + v[14:16] + v[17:19]
        if not (hms.isascii() and hms.isdigit()):
            return None
        h, m, sec = int(hms[0:2]), int(hms[2:4]), int(hms[4:6])
        if h > 23 or m > 59 or sec > 59:
            return None
        day = self.days.get(v[:10])
        if day is None:
            try:
                day = self.days[v[:10]] = parse_time(v[:10] + "T00:00:00Z")
            except ValueParseError:
                return None
        hour = self.hours[v[:14]] = day + h * 3600   # whole seconds: the sums are exact
        return hour + (m * 60 + sec)

    def leaf(self, value: Any) -> Any:
        return self.leaves.setdefault(value, value)


def _owner_refs(loc: _Loc, meta: dict, it: _Interner) -> Tuple[OwnerRef, ...]:
    refs = []
    for i, r in enumerate(_seq(loc, meta, "ownerReferences", "metadata.ownerReferences")):
        p = "metadata.ownerReferences[%d]" % i
        r = _item_map(loc, r, p)
        refs.append(it.leaf(OwnerRef(_str(loc, r, "kind", p + ".kind"), _str(loc, r, "name", p + ".name"),
                                     _str(loc, r, "uid", p + ".uid"), _str(loc, r, "apiVersion", p + ".apiVersion"),
                                     _bool(loc, r, "controller", p + ".controller"))))
    return tuple(refs)


def _requirements(loc: _Loc, raw: list, path: str, it: _Interner) -> Tuple[Requirement, ...]:
    out = []
    for i, r in enumerate(raw):
        p = "%s[%d]" % (path, i)
        r = _item_map(loc, r, p)
        vals = _seq(loc, r, "values", p + ".values")
        for j, v in enumerate(vals):
            if not isinstance(v, str):
                raise loc.error("%s.values[%d]" % (p, j), "expected a string, found %s" % _type_name(v))
        out.append(it.leaf(Requirement(_str(loc, r, "key", p + ".key"), _str(loc, r, "operator", p + ".operator"), tuple(vals))))
    return tuple(out)


def _term(loc: _Loc, raw: Any, path: str, it: _Interner) -> NodeSelectorTerm:
    raw = _item_map(loc, raw, path)
    return it.leaf(NodeSelectorTerm(
        _requirements(loc, _seq(loc, raw, "matchExpressions", path + ".matchExpressions"), path + ".matchExpressions", it),
        _requirements(loc, _seq(loc, raw, "matchFields", path + ".matchFields"), path + ".matchFields", it)))


def _node_selector(loc: _Loc, d: dict, key: str, path: str, it: _Interner) -> Optional[NodeSelector]:
    raw = d.get(key)
    if raw is None:
        return None
    raw = _item_map(loc, raw, path)
    tp = path + ".nodeSelectorTerms"
    terms = tuple(_term(loc, t, "%s[%d]" % (tp, i), it) for i, t in enumerate(_seq(loc, raw, "nodeSelectorTerms", tp)))
    return it.leaf(NodeSelector(terms))


def label_selector(loc: _Loc, d: dict, key: str, path: str, it: _Interner) -> Optional[LabelSelector]:
    raw = d.get(key)
    if raw.__class__ in _RAW_TYPES:
        raw = _decoded(loc, raw, path)
    if raw is None:
        return None
    raw = _item_map(loc, raw, path)
    labels = raw.get("matchLabels") or {}
    if not isinstance(labels, dict):
        raise loc.error(path + ".matchLabels", "expected an object, found %s" % _type_name(labels))
    for k, v in labels.items():
        if not isinstance(v, str):
            raise loc.error("%s.matchLabels.%s" % (path, k), "expected a string, found %s" % _type_name(v))
    exprs = _requirements(loc, _seq(loc, raw, "matchExpressions", path + ".matchExpressions"), path + ".matchExpressions", it)
    for i, r in enumerate(exprs):
        # ValidateLabelSelectorRequirement refuses any other operator; the rules would otherwise
        # read the selector as matching nothing (the scheduler fails to parse it). Once per
        # distinct selector text (the callers' caches), not per pod.
        if r.operator not in LABEL_SELECTOR_OPERATORS:
            raise loc.error("%s.matchExpressions[%d].operator" % (path, i),
                            'Unsupported value: "%s": supported values: "DoesNotExist", "Exists", "In", "NotIn"'
                            % r.operator)
    return it.leaf(LabelSelector(tuple(sorted(labels.items())), exprs))


def _tolerations(loc: _Loc, spec: dict, it: _Interner, path: str = "spec.tolerations",
                 effects: Tuple[str, ...] = EFFECTS) -> Tuple[Toleration, ...]:
    """`spec.tolerations` of a pod (or, with `path` and `effects`, a DRA request's tolerations
    of device taints, which have the same shape)."""
    out = []
    for i, t in enumerate(_seq(loc, spec, "tolerations", path)):
        p = "%s[%d]" % (path, i)
        t = _item_map(loc, t, p)
        effect = _str(loc, t, "effect", p + ".effect")
        if effect and effect not in effects:
            raise loc.error(p + ".effect", "unknown taint effect %r (want %s)" % (effect, _or_list(effects)))
        tol = Toleration(_str(loc, t, "key", p + ".key"), _str(loc, t, "operator", p + ".operator"),
                         _str(loc, t, "value", p + ".value"), effect,
                         _int(loc, t, "tolerationSeconds", p + ".tolerationSeconds"))
        if effects is EFFECTS:   # a pod's (DRA device tolerations have their own rules)
            _check_toleration(loc, tol, p)
        out.append(it.leaf(tol))
    return tuple(out)


# Equal and Exists (v1.33); Gt and Lt from v1.35 behind TaintTolerationComparisonOperators (alpha):
# a cluster that enables the gate stores them, and `tolerates` models them.
_TOLERATION_OPERATORS = ("", "Equal", "Exists", "Gt", "Lt")


def _check_toleration(loc: _Loc, tol: Toleration, p: str) -> None:
    """What the API server refuses in a toleration (`ValidateTolerations`,
    pkg/apis/core/validation/validation.go): an unsupported operator, an empty key without
    Exists, Exists with a value, an invalid key or Equal value, tolerationSeconds on an effect
    other than NoExecute, seconds outside int64. Runs once per distinct tolerations text."""
    if tol.operator not in _TOLERATION_OPERATORS:
        raise loc.error(p + ".operator", 'Unsupported value: "%s": supported values: "Equal", "Exists"' % tol.operator)
    if tol.key:
        errs = qualified_name_errors(tol.key)
        if errs:
            raise loc.error(p + ".key", "invalid toleration key %r: %s" % (tol.key, errs[0]))
    elif tol.operator != "Exists":
        raise loc.error(p + ".operator", 'operator must be Exists when `key` is empty, which means "match all '
                                         'values and all keys" (found %s)' % (repr(tol.operator) if tol.operator
                                                                             else "no operator"))
    if tol.operator == "Exists" and tol.value:
        raise loc.error(p + ".value", "value must be empty when `operator` is 'Exists' (found %r)" % tol.value)
    if tol.operator in ("", "Equal"):
        errs = label_value_errors(tol.value)
        if errs:
            raise loc.error(p + ".value", "invalid toleration value %r: %s" % (tol.value, errs[0]))
    if tol.seconds is not None:
        if tol.effect != "NoExecute":
            raise loc.error(p + ".effect", "effect must be 'NoExecute' when `tolerationSeconds` is set (found %s)"
                            % (repr(tol.effect) if tol.effect else "no effect"))
        if not validate.INT64_MIN <= tol.seconds <= validate.INT64_MAX:
            raise loc.error(p + ".tolerationSeconds", "%d is out of the int64 range" % tol.seconds)


def _or_list(words: Tuple[str, ...]) -> str:
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]
