"""Node selector and node affinity matching.

Models `k8s.io/component-helpers/scheduling/corev1/nodeaffinity` (v1.30-v1.37, unchanged): `LazyErrorNodeSelector`
(what the scheduler and DaemonSet controller use: a term that fails to parse is skipped and its
errors surface only when no term matches), the strict `NewNodeSelector` (all errors up front),
`GetRequiredNodeAffinity` (`spec.nodeSelector` AND the required terms) and
`PreferredSchedulingTerms.Score`.

Quirks kept on purpose: a term with neither expressions nor fields is dropped (so it matches
nothing), an empty term list matches nothing, and `matchFields` is not evaluated at all against a
node without a name.
"""

from __future__ import annotations

from functools import lru_cache
from typing import FrozenSet, List, Mapping, NamedTuple, Optional, Set, Tuple

from kubectl_evict.model import Node, NodeSelector, NodeSelectorTerm, Pod, PreferredTerm, Requirement
from kubectl_evict.scheduling.labels import FieldError, requirement_errors, requirement_matches


class _CompiledTerm(NamedTuple):
    labels: Optional[Tuple[Requirement, ...]]   # None: no label part
    fields: Optional[Tuple[Requirement, ...]]   # None: no field part
    errors: Tuple[FieldError, ...]


class MatchResult(NamedTuple):
    match: bool
    errors: Tuple[FieldError, ...] = ()

    @property
    def error(self) -> Optional[str]:
        """The errors as one message, the way `errors.Flatten(aggregate)` prints details."""
        if not self.errors:
            return None
        return "; ".join(e.detail for e in self.errors)


def _field_errors(reqs: Tuple[Requirement, ...], path: str) -> List[FieldError]:
    errs = []
    for i, r in enumerate(reqs):
        p = "%s[%d]" % (path, i)
        if r.operator in ("In", "NotIn"):
            if len(r.values) != 1:
                errs.append(FieldError("FieldValueInvalid", p + ".values", "must have one element"))
        else:
            errs.append(FieldError("FieldValueInvalid", p + ".operator", "not a valid selector operator"))
    return errs


def is_empty_term(term: NodeSelectorTerm) -> bool:
    return not term.match_expressions and not term.match_fields


@lru_cache(maxsize=4096)
def _compile_term(term: NodeSelectorTerm, path: str) -> _CompiledTerm:
    errs: List[FieldError] = []
    labels = fields = None
    if term.match_expressions:
        p = path + ".matchExpressions"
        for i, r in enumerate(term.match_expressions):
            errs += requirement_errors(r, "%s[%d]" % (p, i))
        labels = term.match_expressions
    if term.match_fields:
        fields = term.match_fields
        errs += _field_errors(term.match_fields, path + ".matchFields")
    return _CompiledTerm(labels, fields, tuple(errs))


def _term_matches(t: _CompiledTerm, labels: Mapping[str, str], node_name: str) -> bool:
    if t.labels is not None:
        for r in t.labels:
            if not requirement_matches(r, labels):
                return False
    if t.fields is not None and node_name:
        for r in t.fields:
            have = node_name if r.key == "metadata.name" else ""
            if (have == r.values[0]) != (r.operator == "In"):
                return False
    return True


def _compiled_terms(selector: NodeSelector) -> Tuple[_CompiledTerm, ...]:
    return tuple(_compile_term(t, "nodeSelectorTerms[%d]" % i)
                 for i, t in enumerate(selector.terms) if not is_empty_term(t))


def selector_keys(selector: Optional[NodeSelector]) -> Tuple[Set[str], bool]:
    """(label keys the selector's terms read, whether any term has matchFields): a selector
    reading neither a per-node key nor a field gives the same answer on nodes with equal labels."""
    keys: Set[str] = set()
    fields = False
    if selector is not None:
        for term in selector.terms:
            keys.update(r.key for r in term.match_expressions)
            fields = fields or bool(term.match_fields)
    return keys, fields


def node_selector_matches(selector: NodeSelector, labels: Mapping[str, str], node_name: str) -> MatchResult:
    """`LazyErrorNodeSelector.Match`: terms ORed; parse errors only if nothing matched."""
    errs: List[FieldError] = []
    for t in _compiled_terms(selector):
        if t.errors:
            errs.extend(t.errors)
            continue
        if _term_matches(t, labels, node_name):
            return MatchResult(True)
    return MatchResult(False, tuple(errs))


def node_selector_construction_errors(selector: NodeSelector) -> Tuple[FieldError, ...]:
    """What the strict `NewNodeSelector` refuses to build (empty when it builds)."""
    out: List[FieldError] = []
    for t in _compiled_terms(selector):
        out.extend(t.errors)
    return tuple(out)


def node_matches_pod(pod: Pod, node: Optional[Node], *, selector_only: bool = False) -> MatchResult:
    """`GetRequiredNodeAffinity(pod).Match(node)`: nodeSelector AND required node affinity."""
    if node is None:
        return MatchResult(False)
    labels = node.labels
    for k, v in pod.node_selector.items():
        if labels.get(k) != v:
            return MatchResult(False)
    if selector_only or pod.required_affinity is None:
        return MatchResult(True)
    return node_selector_matches(pod.required_affinity, labels, node.name)


def prefilter_node_names(selector: Optional[NodeSelector]) -> Optional[FrozenSet[str]]:
    """NodeAffinity's PreFilter result (`plugins/nodeaffinity/node_affinity.go` PreFilter): the
    node names the required terms pin the pod to through `matchFields` `metadata.name In`
    (intersected within a term, united over the terms). None: some term (an empty one too) has no
    such field, so every node stays a candidate. An empty set: the terms conflict."""
    if selector is None or not selector.terms:
        return None
    names: Set[str] = set()
    for term in selector.terms:
        term_names: Optional[Set[str]] = None
        for r in term.match_fields:
            if r.key == "metadata.name" and r.operator == "In":
                term_names = set(r.values) if term_names is None else term_names & set(r.values)
        if term_names is None:
            return None
        names |= term_names
    return frozenset(names)


def preferred_score(terms: Tuple[PreferredTerm, ...], node: Node) -> Tuple[int, Tuple[FieldError, ...]]:
    """`PreferredSchedulingTerms.Score`: the sum of the weights of matching terms.

    Weight-0 and empty terms are skipped without being parsed. Any parse error in a counted term
    fails construction (returned as errors, with score 0), as `NewPreferredSchedulingTerms` does.
    """
    compiled = []
    errs: List[FieldError] = []
    for i, pt in enumerate(terms):
        if pt.weight == 0 or is_empty_term(pt.term):
            continue
        c = _compile_term(pt.term, "preferredSchedulingTerms[%d]" % i)
        errs.extend(c.errors)
        compiled.append((pt.weight, c))
    if errs:
        return 0, tuple(errs)
    score = sum(w for w, c in compiled if _term_matches(c, node.labels, node.name))
    return score, ()
