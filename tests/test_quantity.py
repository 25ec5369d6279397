"""Quantities, durations and timestamps: the grammar upstream accepts, exact values, rejections."""

from fractions import Fraction

import pytest

from kubectl_evict.errors import ValueParseError
from kubectl_evict.quantity import format_bytes, parse_quantity, parse_units
from kubectl_evict.timeutil import format_offset, format_time, parse_duration, parse_time

# (text, exact value) — values from resource.Quantity semantics (binary vs decimal SI, exponents).
VALID = [
    ("0", 0),
    ("1", 1),
    ("100m", Fraction(1, 10)),
    ("0.5", Fraction(1, 2)),
    (".5", Fraction(1, 2)),
    ("5.", 5),
    ("1.5Gi", 1610612736),
    ("1Ki", 1024),
    ("1Mi", 1048576),
    ("1Ei", 2 ** 60),
    ("1k", 1000),
    ("1M", 10 ** 6),
    ("1G", 10 ** 9),
    ("2T", 2 * 10 ** 12),
    ("1P", 10 ** 15),
    ("1E", 10 ** 18),
    ("1e3", 1000),
    ("1E3", 1000),
    ("1.5e-3", Fraction(3, 2000)),
    ("12e+2", 1200),
    ("1n", Fraction(1, 10 ** 9)),
    ("1u", Fraction(1, 10 ** 6)),
    ("-1", -1),
    ("+5Mi", 5 * 2 ** 20),
    ("500Mi", 524288000),
    ("29222Mi", 29222 * 2 ** 20),
]


@pytest.mark.parametrize("text,value", VALID, ids=[v[0] for v in VALID])
def test_parse_quantity_exact(text, value):
    assert parse_quantity(text) == value


INVALID = ["", "1.5.5", "Gi", "1 Gi", "--1", "1Gii", "lots", "1.5 ", " 1", "1e", "1ki", "0x10", "1,5", "+-1", "."]


@pytest.mark.parametrize("text", INVALID)
def test_parse_quantity_rejects(text):
    with pytest.raises(ValueParseError):
        parse_quantity(text)


@pytest.mark.parametrize("resource,text,units", [
    ("cpu", "100m", 100), ("cpu", "1", 1000), ("cpu", "0.0001", 1),  # MilliValue rounds up
    ("cpu", "3500m", 3500), ("memory", "1.5Gi", 1610612736), ("memory", "0.5", 1),  # Value rounds up
    ("memory", "5M", 5000000), ("nvidia.com/gpu", "4", 4), ("pods", "110", 110),
])
def test_units_round_up_like_upstream(resource, text, units):
    assert parse_units(resource, text) == units


def test_no_float_rounding_on_large_binary_values():
    # 0.1Ei is not representable in binary floating point; exact arithmetic keeps it exact.
    assert parse_quantity("0.1Ei") == Fraction(2 ** 60, 10)


@pytest.mark.parametrize("n,text", [(524288000, "500Mi"), (1610612736, "1.5Gi"), (1024, "1Ki"), (999, "999")])
def test_format_bytes(n, text):
    assert format_bytes(n) == text


DURATIONS = [("0", 0.0), ("30s", 30.0), ("1m30s", 90.0), ("5m", 300.0), ("1h2m3.5s", 3723.5), ("300ms", 0.3),
             ("1.5h", 5400.0), ("-2s", -2.0), ("1us", 1e-6), ("2h45m", 9900.0), ("5m0s", 300.0),
             # time.ParseDuration's bounds: int64 nanoseconds, one more on the negative side
             ("2562047h47m16.854775807s", 9223372036.854775807), ("-2562047h47m16.854775808s", -9223372036.854775808)]


@pytest.mark.parametrize("text,seconds", DURATIONS, ids=[d[0] for d in DURATIONS])
def test_parse_duration(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "30", "s", "1x", "1m30", "1.s2", " 5s", "5 s", "1d",
                                  # past int64 nanoseconds: Go says "time: invalid duration"
                                  "2562047h47m16.854775808s", "-2562047h47m16.854775809s", "99999999999h"])
def test_parse_duration_rejects(text):
    with pytest.raises(ValueParseError):
        parse_duration(text)


@pytest.mark.parametrize("text,epoch", [
    ("2026-11-21T12:00:00Z", 1795262400.0),
    ("2026-11-21T13:00:00+01:00", 1795262400.0),
    ("2026-11-21T11:59:58.123456Z", 1795262398.123456),
])
def test_parse_time(text, epoch):
    assert parse_time(text) == pytest.approx(epoch)


@pytest.mark.parametrize("text", ["2026-11-21", "yesterday", "2026-13-01T00:00:00Z", "2026-11-21T12:00:00"])
def test_parse_time_rejects(text):
    with pytest.raises(ValueParseError):
        parse_time(text)


def test_format_time_round_trips():
    assert format_time(parse_time("2026-11-21T12:00:00Z")) == "2026-11-21T12:00:00Z"


@pytest.mark.parametrize("seconds,text", [(0, "+0s"), (55, "+55s"), (350, "+5m50s"), (3720, "+1h2m"), (0.5, "+0.5s"),
                          (86399, "+23h59m59s"), (86400, "+1d"), (127542429, "+1476d 4h"), (-90000, "-1d 1h")])
def test_format_offset(seconds, text):
    assert format_offset(seconds) == text


# k8s.io/apimachinery/pkg/api/resource quantity.go: String() prints CanonicalizeBytes in the
# format the suffix chose; BinarySI below 1024 or with a fraction prints as DecimalSI; DecimalSI
# keeps an integer mantissa with an exponent that is a multiple of 3 (its quantity_test.go tables:
# "1.5Gi" -> "1536Mi", "1024Mi" -> "1Gi", "1000M" -> "1G", "0.5" -> "500m", "1500k" stays).
@pytest.mark.parametrize("text, go", [
    ("2Gi", "2Gi"), ("1.5Gi", "1536Mi"), ("1024Mi", "1Gi"), ("1500Mi", "1500Mi"), ("100Mi", "100Mi"),
    ("1G", "1G"), ("1000M", "1G"), ("1500000", "1500k"), ("1200", "1200"), ("1000", "1k"), ("0.5", "500m"),
    ("512Ki", "512Ki"), ("0.5Ki", "512"), ("1e3", "1e3"),
])
def test_format_go_parsed(text, go):
    from kubectl_evict.quantity import format_go_parsed
    assert format_go_parsed(text) == go


@pytest.mark.parametrize("n, binary, decimal", [
    (1500 * 2 ** 20, "1500Mi", "1572864k"), (1000, "1k", "1k"), (512, "512", "512"), (30000, "30000", "30k"),
    (1073741840, "1073741840", "1073741840"), (0, "0", "0"),
])
def test_format_go_new_quantity(n, binary, decimal):
    """NewQuantity(n, BinarySI / DecimalSI).String(), as the kubelet prints observations."""
    from kubectl_evict.quantity import format_go_binary, format_go_decimal
    assert (format_go_binary(n), format_go_decimal(n)) == (binary, decimal)
