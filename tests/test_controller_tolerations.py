"""Port of spec/vectors/toleration_taint.json through the matcher the controller uses
(scheduling/tolerations.py) and through the controller's own replay of the taint-eviction
controller (`taint_eviction_schedule`): a node tainted at +55s deletes a pod at +55s when a
NoExecute taint is not tolerated, at +55s + the smallest used tolerationSeconds otherwise, and
never when tolerated without seconds."""

import json

import pytest

from kubectl_evict.model import Taint, Toleration
from kubectl_evict.scheduling.tolerations import taint_eviction_schedule
from kubectl_evict.scheduling.tolerations import (default_toleration_seconds, matching_tolerations,
                                                  min_toleration_seconds, no_execute_decision, tolerates)
from kubectl_evict.timeutil import parse_time

from conftest import VECTORS  # noqa: E402  (copies of shared/spec/vectors)
ALL = json.loads((VECTORS / "toleration_taint.json").read_text())["vectors"]
PAIRS = [v for v in ALL if "toleration" in v["input"]]
MIN_TIME = [v for v in ALL if "usedTolerations" in v["input"]]
DECISIONS = [v for v in ALL if "nodeTaints" in v["input"]]
ADMISSION = [v for v in ALL if "addedTolerations" in v["expected"]]
NOW = 1_800_000_000.0


def _id(v):
    return v["source"].split(" ", 1)[-1][:90]


def _tol(d):
    return Toleration(d.get("key", ""), d.get("operator", ""), d.get("value", ""), d.get("effect", ""),
                      d.get("tolerationSeconds"))


def _taint(d):
    added = parse_time(d["timeAdded"]) if d.get("timeAdded") else None
    return Taint(d["key"], d.get("value", ""), d["effect"], added)


def test_vector_file_is_covered():
    assert len(PAIRS) + len(MIN_TIME) + len(DECISIONS) + len(ADMISSION) == len(ALL) == 37


@pytest.mark.parametrize("v", PAIRS, ids=_id)
def test_tolerates_taint(v):
    gate = v["input"].get("featureGates", {}).get("TaintTolerationComparisonOperators", False)
    assert tolerates(_tol(v["input"]["toleration"]), _taint(v["input"]["taint"]),
                     comparison_operators=gate) is v["expected"]["tolerated"]


def _expected_min(exp):
    if exp.get("forever"):
        return -1
    return exp["seconds"]


@pytest.mark.parametrize("v", MIN_TIME, ids=_id)
def test_min_toleration_time(v):
    used = [Toleration("k", "Exists", "", "NoExecute", u["tolerationSeconds"]) for u in v["input"]["usedTolerations"]]
    assert min_toleration_seconds(used) == _expected_min(v["expected"]["minTolerationTime"])


def _decision(text):
    if text.startswith("schedule deletion at now+"):
        return "delete-after", int(text.split("+")[1].rstrip("s"))
    return {"tolerate forever (no deletion)": ("forever", 0), "delete immediately": ("delete-now", 0),
            "no action; any scheduled deletion is cancelled": ("none", 0)}[text]


@pytest.mark.parametrize("v", DECISIONS, ids=_id)
def test_matching_tolerations_and_decision(v):
    taints = [_taint(t) for t in v["input"]["nodeTaints"]]
    tols = [_tol(t) for t in v["input"]["podTolerations"]]
    noexec = [t for t in taints if t.effect == "NoExecute"]
    verdict = matching_tolerations(noexec, tols)
    assert verdict.all_tolerated is v["expected"]["allTolerated"]
    if "usedTolerationSeconds" in v["expected"]:
        assert [t.seconds for t in verdict.used] == v["expected"]["usedTolerationSeconds"]
    d = no_execute_decision(taints, tols)
    assert (d.action, d.seconds) == _decision(v["expected"]["decision"])


@pytest.mark.parametrize("v", DECISIONS, ids=_id)
def test_controller_replay_of_a_taint_added_at_55s(v):
    """The same decisions inside the controller's timeline: taints land at +55s."""
    taints = tuple(_taint(t)._replace(time_added=NOW + 55) for t in v["input"]["nodeTaints"])
    tols = tuple(_tol(t) for t in v["input"]["podTolerations"])
    kind, at, _ = taint_eviction_schedule(tols, tols, [(0.0, ()), (55.0, taints)], NOW)
    action, secs = _decision(v["expected"]["decision"])
    expected = {"delete-after": ("delete", 55.0 + secs), "delete-now": ("delete", 55.0),
                "forever": ("forever", None), "none": ("none", None)}[action]
    assert (kind, at) == expected


def _fmt(t):
    return "%s:%s %s %ss" % (t.key, t.effect, t.operator, t.seconds)


@pytest.mark.parametrize("v", ADMISSION, ids=_id)
def test_default_toleration_seconds_admission(v):
    tols = tuple(_tol(t) for t in v["input"]["podTolerations"])
    out = default_toleration_seconds(tols)
    assert out[:len(tols)] == tols
    assert [_fmt(t) for t in out[len(tols):]] == v["expected"]["addedTolerations"]


@pytest.mark.parametrize("history, expected", [
    # A deletion already scheduled is kept when the taints change (startTime + min < now + min).
    ([(0.0, ()), (55.0, (Taint("node.kubernetes.io/not-ready", "", "NoExecute"),)),
      (100.0, (Taint("node.kubernetes.io/unreachable", "", "NoExecute"),))], ("delete", 355.0)),
    # Taints removed before the deletion fires: cancelled.
    ([(0.0, ()), (55.0, (Taint("node.kubernetes.io/unreachable", "", "NoExecute"),)), (200.0, ())], ("cancelled", None)),
    # A taint in the snapshot counts from its timeAdded.
    ([(0.0, (Taint("node.kubernetes.io/unreachable", "", "NoExecute", NOW - 100),))], ("delete", 200.0)),
    # Overdue in the snapshot: due now.
    ([(0.0, (Taint("node.kubernetes.io/unreachable", "", "NoExecute", NOW - 900),))], ("delete", 0.0)),
    # Two snapshot taints added at different times: the deletion scheduled for the first one
    # (unreachable, 300s from -60s) is kept when the second (tolerated 30s) comes at -10s.
    ([(0.0, (Taint("node.kubernetes.io/unreachable", "", "NoExecute", NOW - 60),
             Taint("maint", "", "NoExecute", NOW - 10)))], ("delete", 240.0)),
    # ... unless the first is tolerated forever: then the second schedules it (30s from -10s).
    ([(0.0, (Taint("ha", "", "NoExecute", NOW - 60), Taint("maint", "", "NoExecute", NOW - 10)))], ("delete", 20.0)),
    # ... and a later taint not tolerated deleted it when it came: due now.
    ([(0.0, (Taint("node.kubernetes.io/unreachable", "", "NoExecute", NOW - 60),
             Taint("other", "", "NoExecute", NOW - 10)))], ("delete", 0.0)),
], ids=["kept-on-swap", "cancelled-on-removal", "from-timeAdded", "overdue", "second-taint-keeps-first-schedule",
        "second-taint-after-forever", "second-taint-untolerated"])
def test_replay_keeps_or_cancels_scheduled_deletions(history, expected):
    tols = default_toleration_seconds((Toleration("ha", "Exists", "", "NoExecute"),
                                       Toleration("maint", "Exists", "", "NoExecute", 30)))
    kind, at, _ = taint_eviction_schedule(tols, (), history, NOW)
    assert (kind, at) == expected


@pytest.mark.parametrize("added, at, says", [
    # semantics.md D.4: the start is when the controller saw the taint, estimated by timeAdded ...
    (NOW - 10, 20.0, "tolerates NoExecute taint maint:NoExecute for 30s (taint added 10s ago)"),
    # ... and, without one, the snapshot is the first time the taint is known to be there
    (None, 30.0, "tolerates NoExecute taint maint:NoExecute for 30s (taint has no timeAdded: counted from now)"),
], ids=["timeAdded", "no-timeAdded"])
def test_replay_says_where_the_start_comes_from(added, at, says):
    tols = default_toleration_seconds((Toleration("maint", "Exists", "", "NoExecute", 30),))
    assert taint_eviction_schedule(tols, tols, [(0.0, (Taint("maint", "", "NoExecute", added),))], NOW) == ("delete", at, says)
