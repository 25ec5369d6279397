"""Upstream test tables for node affinity, tolerations and QoS, run against the shared matchers.

Vectors: shared/spec/vectors/{node_affinity,toleration_taint,qos}.json (taken from
component-helpers nodeaffinity_test.go, core/v1 toleration_test.go, tainteviction tests, qos.go).
"""

import pytest

from conftest import load_vectors, vector_id
from kubectl_evict.model import NodeSelector, Taint, Toleration
from kubectl_evict.scheduling.labels import selector_string
from kubectl_evict.scheduling.nodeaffinity import (node_matches_pod, node_selector_construction_errors,
                                                   node_selector_matches, preferred_score)
from kubectl_evict.scheduling.tolerations import (default_toleration_seconds, matching_tolerations,
                                                  min_toleration_seconds, no_execute_decision, tolerates)
from kubectl_evict.source.freeze import _Interner, _Loc, _node_selector, _project_node, _term, freeze


def _freeze_pod(raw):
    raw = dict(raw, kind="Pod")
    raw.setdefault("metadata", {}).setdefault("name", "p")
    raw["metadata"].setdefault("namespace", "default")
    return freeze([("vector", "", raw)]).pods[0]


def _freeze_node(raw):
    if raw is None:
        return None
    raw = dict(raw, kind="Node")
    meta = dict(raw.get("metadata") or {})
    name = meta.get("name", "")
    return _project_node(_Loc("vector", "Node"), dict(raw, metadata=meta), name, _Interner())


def _selector(raw):
    return _node_selector(_Loc("vector", "vector"), {"s": raw}, "s", "", _Interner())


AFFINITY = load_vectors("node_affinity.json")


@pytest.mark.parametrize("v", [v for v in AFFINITY if set(v["input"]) == {"pod", "node"}], ids=vector_id)
def test_required_node_affinity(v):
    pod = _freeze_pod(v["input"]["pod"])
    node = _freeze_node(v["input"]["node"])
    res = node_matches_pod(pod, node)
    assert res.match == v["expected"]["match"]
    if "error" in v["expected"]:
        want = v["expected"]["error"]
        if want is None:
            assert res.error is None
        else:
            assert want in (res.error or "")


@pytest.mark.parametrize("v", [v for v in AFFINITY if set(v["input"]) == {"nodeSelector", "node"}], ids=vector_id)
def test_node_selector(v):
    sel = _selector(v["input"]["nodeSelector"]) or NodeSelector(())
    exp = v["expected"]
    if "constructionError" in exp:
        errs = node_selector_construction_errors(sel)
        assert [(e.type, e.field, e.detail) for e in errs] == \
            [(e["type"], e["field"], e["detail"]) for e in exp["constructionError"]]
        return
    node = _freeze_node(v["input"]["node"])
    if node is None:
        assert exp["match"] is False
        return
    assert node_selector_matches(sel, node.labels, node.name).match == exp["match"]


@pytest.mark.parametrize("v", [v for v in AFFINITY if "preferredTerms" in v["input"]], ids=vector_id)
def test_preferred_score(v):
    loc, it = _Loc("vector", "vector"), _Interner()
    from kubectl_evict.model import PreferredTerm
    terms = tuple(PreferredTerm(t["weight"], _term(loc, t["preference"], "p", it)) for t in v["input"]["preferredTerms"])
    score, errs = preferred_score(terms, _freeze_node(v["input"]["node"]))
    assert score == v["expected"]["score"]
    if v["expected"].get("constructionError") is None:
        assert errs == ()


@pytest.mark.parametrize("v", [v for v in AFFINITY if set(v["input"]) == {"matchExpressions"}], ids=vector_id)
def test_requirements_as_selector(v):
    term = _term(_Loc("vector", "vector"), {"matchExpressions": v["input"]["matchExpressions"] or []}, "root", _Interner())
    exp = v["expected"]
    if "error" in exp:
        from kubectl_evict.scheduling.labels import requirement_errors
        errs = [e for i, r in enumerate(term.match_expressions) for e in requirement_errors(r, "root[%d]" % i)]
        assert (errs[0].field, errs[0].detail) == (exp["error"]["field"], exp["error"]["detail"])
    else:
        assert selector_string(term.match_expressions) == exp["selector"]


TOLERATIONS = load_vectors("toleration_taint.json")


def _tol(raw):
    return Toleration(raw.get("key", ""), raw.get("operator", ""), raw.get("value", ""), raw.get("effect", ""),
                      raw.get("tolerationSeconds"))


def _taint(raw):
    return Taint(raw["key"], raw.get("value", ""), raw["effect"])


@pytest.mark.parametrize("v", [v for v in TOLERATIONS if "toleration" in v["input"]], ids=vector_id)
def test_toleration_tolerates_taint(v):
    gates = v["input"].get("featureGates") or {}
    got = tolerates(_tol(v["input"]["toleration"]), _taint(v["input"]["taint"]),
                    comparison_operators=gates.get("TaintTolerationComparisonOperators", False))
    assert got == v["expected"]["tolerated"]


@pytest.mark.parametrize("v", [v for v in TOLERATIONS if "usedTolerations" in v["input"]], ids=vector_id)
def test_min_toleration_time(v):
    got = min_toleration_seconds([_tol(t) for t in v["input"]["usedTolerations"]])
    exp = v["expected"]["minTolerationTime"]
    if exp.get("forever"):
        assert got == -1
    else:
        assert got == exp["seconds"]


@pytest.mark.parametrize("v", [v for v in TOLERATIONS if "nodeTaints" in v["input"]], ids=vector_id)
def test_taint_eviction_decision(v):
    taints = [_taint(t) for t in v["input"]["nodeTaints"]]
    tols = [_tol(t) for t in v["input"]["podTolerations"]]
    verdict = matching_tolerations([t for t in taints if t.effect == "NoExecute"], tols)
    assert verdict.all_tolerated == v["expected"]["allTolerated"]
    if "usedTolerationSeconds" in v["expected"]:
        assert [t.seconds for t in verdict.used] == v["expected"]["usedTolerationSeconds"]
    decision = no_execute_decision(taints, tols)
    text = v["expected"]["decision"]
    if "now+" in text:
        assert decision.action == "delete-after" and "now+%ds" % decision.seconds in text
    elif "forever" in text or "cancel" in text or "never" in text:
        assert decision.action in ("forever", "none")
    else:
        assert decision.action == "delete-now", text


@pytest.mark.parametrize("v", [v for v in TOLERATIONS if "addedTolerations" in v["input"] or
                               set(v["input"]) == {"podTolerations"}], ids=vector_id)
def test_default_toleration_seconds(v):
    tols = [_tol(t) for t in v["input"]["podTolerations"]]
    out = default_toleration_seconds(tols)
    added = ["%s:%s %s %ss" % (t.key, t.effect, t.operator, t.seconds) for t in out[len(tols):]]
    assert added == v["expected"]["addedTolerations"]


QOS = load_vectors("qos.json")


@pytest.mark.parametrize("v", QOS, ids=vector_id)
def test_qos_class(v):
    assert _freeze_pod(v["input"]["pod"]).qos == v["expected"]["qosClass"]
