"""Label requirements and label selectors.

Models `k8s.io/apimachinery/pkg/labels/selector.go` (`NewRequirement`, `Requirement.Matches`)
and `validation.IsQualifiedName` / `IsValidLabelValue` from apimachinery v0.33. Both node
selectors (node affinity) and metav1.LabelSelector (PDBs, pod anti-affinity) are built from the
same `Requirement` and matched by `requirement_matches`.
"""

from __future__ import annotations

import re
from typing import Iterable, List, Mapping, NamedTuple, Optional, Sequence

from kubectl_evict.model import LabelSelector, Requirement

_NAME = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_NAME_RE = re.compile(_NAME + r"\Z")
_VALUE = r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"
_VALUE_RE = re.compile(_VALUE + r"\Z")
_DNS1123_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_DNS1123_RE = re.compile(_DNS1123_SUBDOMAIN + r"\Z")
_INT64_RE = re.compile(r"[+-]?[0-9]+\Z")
_INT64_MIN, _INT64_MAX = -(2 ** 63), 2 ** 63 - 1
# validation.go's qualifiedNameErrMsg
_QUALIFIED_NAME_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                       "alphanumeric character")

NODE_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
LABEL_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


class FieldError(NamedTuple):
    """A `field.Error`: its type (`FieldValueInvalid`, ...), path and detail."""
    type: str
    field: str
    detail: str

    def __str__(self) -> str:
        return "%s: %s" % (self.field, self.detail) if self.field else self.detail


def parse_int64(text: str) -> Optional[int]:
    """`strconv.ParseInt(text, 10, 64)`, or None where Go returns an error."""
    if not isinstance(text, str) or not _INT64_RE.match(text):
        return None
    v = int(text)
    return v if _INT64_MIN <= v <= _INT64_MAX else None


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    """validation.go `RegexError`: the message, examples and the regex, as the API server words them."""
    shown = ",  or ".join("'%s'" % e for e in examples)
    return "%s (e.g. %s, regex used for validation is '%s')" % (msg, shown, fmt)


def qualified_name_errors(key: str) -> List[str]:
    """`validation.IsQualifiedName`: an optional DNS subdomain prefix and a 63-char name."""
    errs: List[str] = []
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        elif len(prefix) > 253:
            errs.append("prefix part must be no more than 253 characters")
        elif not _DNS1123_RE.match(prefix):
            errs.append("prefix part " + _regex_error(
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                "and must start and end with an alphanumeric character", _DNS1123_SUBDOMAIN, "example.com"))
    else:
        return ["a qualified name " + _regex_error(_QUALIFIED_NAME_MSG, _NAME, "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part must be no more than 63 characters")
    elif not _NAME_RE.match(name):
        errs.append("name part " + _regex_error(_QUALIFIED_NAME_MSG, _NAME, "MyName", "my.name", "123-abc"))
    return errs


def label_value_errors(value: str) -> List[str]:
    """`validation.IsValidLabelValue`."""
    errs = []
    if len(value) > 63:
        errs.append("must be no more than 63 characters")
    if not _VALUE_RE.match(value):
        errs.append(_regex_error("a valid label must be an empty string or consist of alphanumeric characters, "
                                 "'-', '_' or '.', and must start and end with an alphanumeric character", _VALUE,
                                 "MyValue", "my_value", "12345"))
    return errs


def requirement_errors(req: Requirement, path: str, operators: Sequence[str] = NODE_SELECTOR_OPERATORS
                       ) -> List[FieldError]:
    """What `labels.NewRequirement` reports for this requirement (empty when valid)."""
    errs = [FieldError("FieldValueInvalid", path + ".key", d) for d in qualified_name_errors(req.key)]
    vpath = path + ".values"
    op, vals = req.operator, req.values
    if op not in operators:
        return errs + [FieldError("FieldValueNotSupported", path + ".operator",
                                  'Unsupported value: "%s"' % op)]
    if op in ("In", "NotIn") and not vals:
        errs.append(FieldError("FieldValueInvalid", vpath, "for 'in', 'notin' operators, values set can't be empty"))
    elif op in ("Exists", "DoesNotExist") and vals:
        errs.append(FieldError("FieldValueInvalid", vpath, "values set must be empty for exists and does not exist"))
    elif op in ("Gt", "Lt"):
        if len(vals) != 1:
            errs.append(FieldError("FieldValueInvalid", vpath, "for 'Gt', 'Lt' operators, exactly one value is required"))
        for i, v in enumerate(vals):
            if parse_int64(v) is None:
                errs.append(FieldError("FieldValueInvalid", "%s[%d]" % (vpath, i),
                                       "for 'Gt', 'Lt' operators, the value must be an integer"))
    for i, v in enumerate(vals):
        for d in label_value_errors(v):
            errs.append(FieldError("FieldValueInvalid", "%s[%d]" % (vpath, i), d))
    return errs


def requirement_matches(req: Requirement, labels: Mapping[str, str]) -> bool:
    """`Requirement.Matches` against a label set."""
    op = req.operator
    value = labels.get(req.key)
    if op == "In":
        return value is not None and value in req.values
    if op == "NotIn":
        return value is None or value not in req.values
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    if op in ("Gt", "Lt"):
        if value is None or len(req.values) != 1:
            return False
        have, want = parse_int64(value), parse_int64(req.values[0])
        if have is None or want is None:
            return False
        return have > want if op == "Gt" else have < want
    return False


def requirement_string(req: Requirement) -> str:
    """`Requirement.String()`: `foo in (bar,baz)`, `foo>1`, `!foo`."""
    op, key = req.operator, req.key
    if op == "Exists":
        return key
    if op == "DoesNotExist":
        return "!" + key
    if op == "Gt":
        return "%s>%s" % (key, req.values[0] if req.values else "")
    if op == "Lt":
        return "%s<%s" % (key, req.values[0] if req.values else "")
    word = {"In": "in", "NotIn": "notin"}.get(op, op)
    return "%s %s (%s)" % (key, word, ",".join(sorted(req.values)))


def selector_string(reqs: Iterable[Requirement]) -> str:
    """`labels.Selector.String()`; an empty list is `labels.Nothing()`, printed `<nothing>`."""
    reqs = list(reqs)
    if not reqs:
        return "<nothing>"
    return ",".join(requirement_string(r) for r in sorted(reqs, key=lambda r: r.key))


def label_selector_matches(sel: Optional[LabelSelector], labels: Mapping[str, str], *,
                           empty_matches_all: bool = True) -> bool:
    """`metav1.LabelSelectorAsSelector(sel).Matches(labels)`.

    A nil selector matches nothing. An empty one matches everything, except where the caller
    says otherwise: PDBs treat an empty selector as matching nothing (eviction.go).
    """
    if sel is None:
        return False
    if not sel.match_labels and not sel.match_expressions:
        return empty_matches_all
    for k, v in sel.match_labels:
        if labels.get(k) != v:
            return False
    for req in sel.match_expressions:
        if not requirement_matches(req, labels):
            return False
    return True


def label_selector_errors(sel: LabelSelector, path: str) -> List[FieldError]:
    """Validation errors that make `LabelSelectorAsSelector` fail (such selectors match nothing)."""
    errs: List[FieldError] = []
    for k, v in sel.match_labels:
        errs += [FieldError("FieldValueInvalid", path + ".matchLabels", d) for d in qualified_name_errors(k)]
        errs += [FieldError("FieldValueInvalid", path + ".matchLabels", d) for d in label_value_errors(v)]
    for i, req in enumerate(sel.match_expressions):
        errs += requirement_errors(req, "%s.matchExpressions[%d]" % (path, i), LABEL_SELECTOR_OPERATORS)
    return errs


def parse_selector_string(text: str) -> LabelSelector:
    """Parse a kubectl `-l` selector: `a=b,c!=d,e in (f,g),h notin (i),j,!k`.

    Raises ValueError with a readable message on malformed input.
    """
    labels = []
    exprs = []
    s = text.strip()
    pos = 0
    term_re = re.compile(
        r"\s*(?:(!)\s*([^\s,=!()<>]+)|([^\s,=!()<>]+)\s*(?:(==|=|!=)\s*([^\s,()]*)|\s+(in|notin)\s*\(([^)]*)\)"
        r"|(>|<)\s*([^\s,()]+))?)\s*(,|\Z)")
    while pos < len(s):
        m = term_re.match(s, pos)
        if not m or m.end() == pos:
            raise ValueError("invalid label selector %r" % text)
        neg, neg_key, key, eq_op, eq_val, set_op, set_vals, cmp_op, cmp_val, _ = m.groups()
        if neg:
            exprs.append(Requirement(neg_key, "DoesNotExist", ()))
        elif eq_op in ("=", "=="):
            labels.append((key, eq_val))
        elif eq_op == "!=":
            exprs.append(Requirement(key, "NotIn", (eq_val,)))
        elif set_op:
            vals = tuple(v.strip() for v in set_vals.split(",") if v.strip())
            exprs.append(Requirement(key, "In" if set_op == "in" else "NotIn", vals))
        elif cmp_op:
            exprs.append(Requirement(key, "Gt" if cmp_op == ">" else "Lt", (cmp_val,)))
        else:
            exprs.append(Requirement(key, "Exists", ()))
        pos = m.end()
        if m.group(10) == "," and pos >= len(s):
            # labels.Parse: a comma must be followed by another requirement
            raise ValueError("invalid label selector %r: found '', expected: identifier after ','" % text)
    return LabelSelector(tuple(labels), tuple(exprs))
