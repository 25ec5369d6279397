"""Kubelet eviction threshold parsing and thresholdsMet, ported from upstream's tables
(threshold_parsing.json, thresholds_met.json: helpers_test.go TestParseThresholdConfig,
TestThresholdsMet, TestPercentageThresholdsMet, plus the float32 percentage arithmetic)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from kubectl_evict.eviction.thresholds import (Observation, ThresholdError, ThresholdValue, Threshold,
                                               parse_threshold_config, threshold_quantity, thresholds_met,
                                               update_containerfs_thresholds, float32, parse_percentage)
from kubectl_evict.quantity import parse_quantity
from kubectl_evict.timeutil import parse_duration

from conftest import VECTORS  # noqa: E402  (copies of shared/spec/vectors)


def _vectors(name):
    return json.loads((VECTORS / name).read_text())["vectors"]


def _id(v):
    return v["source"].split(" ", 1)[-1][:80]


def _value(d):
    """A vector's {quantity: ...} / {percentage: ...} as (exact quantity, float32 fraction)."""
    if d is None:
        return None
    if "quantity" in d:
        return ("q", parse_quantity(d["quantity"]))
    return ("p", float32(d["percentage"]))


def _ours(v):
    return ("q", v.quantity) if v.quantity is not None else ("p", v.percentage)


def _canon(t):
    return (t["signal"], _value(t["value"]), parse_duration(t["gracePeriod"]), _value(t.get("minReclaim")))


PARSING = _vectors("threshold_parsing.json")


@pytest.mark.parametrize("v", PARSING, ids=[_id(v) for v in PARSING])
def test_parse_threshold_config(v):
    i = v["input"]
    args = (i["enforceNodeAllocatable"], i["evictionHard"], i["evictionSoft"], i["evictionSoftGracePeriod"],
            i["evictionMinimumReclaim"])
    if v["expected"]["error"]:
        with pytest.raises(ThresholdError) as e:
            parse_threshold_config(*args)
        note = v.get("note", "")
        if note.startswith("Error text: "):
            expected = note[len("Error text: "):].split(" (")[0].split(". A 0")[0].rstrip(".")
            assert str(e.value) == expected
        return
    got = parse_threshold_config(*args)
    mine = sorted(((t.signal, _ours(t.value), t.grace, _ours(t.min_reclaim) if t.min_reclaim else None) for t in got),
                  key=repr)
    want = sorted((_canon(t) for t in v["expected"]["thresholds"]), key=repr)
    assert mine == want


@pytest.mark.parametrize("hard, soft, grace, reclaim, message", [
    ({"memory.available": "0"}, {}, {}, {}, "eviction threshold memory.available must be positive: 0"),
    ({}, {"memory.available": "150Mi"}, {}, {}, "grace period must be specified for the soft eviction threshold memory.available"),
    ({}, {"memory.available": "150Mi"}, {"memory.available": "-30s"}, {},
     "invalid eviction grace period specified: -30s, must be a positive value"),
    ({"memory.available": "100Mi"}, {}, {}, {"memory.available": "0%"},
     "eviction percentage minimum reclaim memory.available must be positive: 0%"),
    ({"memory.available": "100Mi"}, {}, {}, {"memory.available": "-1Gi"},
     "negative eviction minimum reclaim specified for memory.available"),
    ({"swap.available": "10%"}, {}, {}, {}, "unsupported eviction signal swap.available"),
    ({"memory.available": "-15%"}, {}, {}, {}, "eviction percentage threshold memory.available must be >= 0%: -15%"),
    ({"memory.available": "150%"}, {}, {}, {}, "eviction percentage threshold memory.available must be <= 100%: 150%"),
    ({"memory.available": "lots"}, {}, {}, {},
     "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    ({}, {"memory.available": "1Gi"}, {"memory.available": "90"}, {}, 'time: missing unit in duration "90"'),
])
def test_parse_errors_use_the_kubelet_wording(hard, soft, grace, reclaim, message):
    with pytest.raises(ThresholdError) as e:
        parse_threshold_config([], hard, soft, grace, reclaim)
    assert str(e.value) == message


def test_soft_threshold_with_zero_grace_is_hard_and_copied_to_allocatable():
    got = parse_threshold_config(["pods"], {}, {"memory.available": "1Gi"}, {"memory.available": "0s"}, {})
    assert sorted(t.signal for t in got) == ["allocatableMemory.available", "memory.available"]
    assert all(t.hard for t in got)


@pytest.mark.parametrize("layout, source", [("single", "nodefs.available"), ("split", "nodefs.available"),
                                            ("imagefs", "imagefs.available")])
def test_containerfs_thresholds_follow_the_disk_layout(layout, source):
    ths = parse_threshold_config([], {"nodefs.available": "10%", "imagefs.available": "15%",
                                      "containerfs.available": "50%"}, {}, {}, {})
    got, ignored = update_containerfs_thresholds(ths, layout)
    cfs = [t for t in got if t.signal == "containerfs.available"]
    src = next(t for t in got if t.signal == source)
    assert len(cfs) == 1 and cfs[0].value == src.value
    assert ignored == ["found containerfs.available for hard eviction. ignoring"]


MET = _vectors("thresholds_met.json")
MET_TABLE = [v for v in MET if "thresholds" in v["input"]]
PERCENT = [v for v in MET if "percentage" in v["input"]]


def _threshold(t):
    def tv(d):
        if d is None:
            return None
        if "quantity" in d:
            return ThresholdValue(parse_quantity(d["quantity"]), 0.0, d["quantity"])
        return ThresholdValue(None, float32(d["percentage"]), "%g%%" % (d["percentage"] * 100))
    return Threshold(t["signal"], tv(t["value"]), parse_duration(t["gracePeriod"]), tv(t.get("minReclaim")))


@pytest.mark.parametrize("v", MET_TABLE, ids=[_id(v) for v in MET_TABLE])
def test_thresholds_met(v):
    i = v["input"]
    ths = [_threshold(t) for t in i["thresholds"]]
    obs = {s: Observation(int(parse_quantity(o["available"])),
                          int(parse_quantity(o["capacity"])) if "capacity" in o else None)
           for s, o in i["observations"].items()}
    got = thresholds_met(ths, obs, i["enforceMinReclaim"])
    assert got == [_threshold(t) for t in v["expected"]["met"]]


@pytest.mark.parametrize("v", PERCENT, ids=[v["input"]["percentage"] + " of " + v["input"]["capacity"] for v in PERCENT])
def test_percentage_threshold_uses_float32(v):
    i, e = v["input"], v["expected"]
    pct = parse_percentage(i["percentage"])
    assert pct == e["float32Fraction"]
    q = threshold_quantity(ThresholdValue(None, pct, i["percentage"]), i["capacityBytes"])
    assert q == e["thresholdBytes"]
    assert q != Fraction(str(e["exactRationalBytes"])) or e["thresholdBytes"] == e["exactRationalBytes"]


def test_min_reclaim_keeps_a_threshold_met_until_value_plus_reclaim():
    t = Threshold("memory.available", ThresholdValue(parse_quantity("1Gi"), 0.0, "1Gi"), 0.0,
                  ThresholdValue(parse_quantity("500Mi"), 0.0, "500Mi"))
    edge = (1024 + 500) * 2 ** 20
    assert thresholds_met([t], {"memory.available": Observation(edge - 1, None)}, True) == [t]
    assert thresholds_met([t], {"memory.available": Observation(edge, None)}, True) == []
    assert thresholds_met([t], {"memory.available": Observation(2 ** 30, None)}, False) == []   # strict <
