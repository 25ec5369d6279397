"""Kubernetes resource quantities with exact arithmetic.

Models `k8s.io/apimachinery/pkg/api/resource.ParseQuantity`: the full grammar (decimal and binary
SI suffixes, decimal exponents, signs, fractions such as `1.5Gi` or `.5`), held as an exact
`Fraction` so that no float rounding can move a threshold. The scheduler and the kubelet compare
`MilliValue()` for cpu and `Value()` for everything else, both rounded up; `to_units` does that
once, at freeze time, so rules work on plain ints.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Union

from kubectl_evict.errors import ValueParseError, json_type

_BINARY = {"Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40, "Pi": 2 ** 50, "Ei": 2 ** 60}
_DECIMAL = {"n": Fraction(1, 10 ** 9), "u": Fraction(1, 10 ** 6), "m": Fraction(1, 1000), "": 1,
            "k": 10 ** 3, "M": 10 ** 6, "G": 10 ** 9, "T": 10 ** 12, "P": 10 ** 15, "E": 10 ** 18}
_QUANTITY = re.compile(
    r"([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+|[numkMGTPE]?)\Z")

_cache: dict = {}


def parse_quantity(text: Union[str, int, float]) -> Fraction:
    """Parse a quantity string (or a JSON number) into its exact value.

    Raises ValueParseError for anything `resource.ParseQuantity` rejects: empty strings, spaces,
    doubled signs, several dots, a suffix without digits.
    """
    if isinstance(text, bool):
        raise ValueParseError("quantities must be strings or numbers, not %s" % str(text).lower())
    if isinstance(text, int):
        return Fraction(text)
    if isinstance(text, float):
        if not math.isfinite(text):   # 1e400 in JSON reads as inf
            raise ValueParseError("invalid quantity %r" % text)
        return Fraction(repr(text))
    if not isinstance(text, str):
        raise ValueParseError("quantities must be strings or numbers, not %s" % json_type(text))
    hit = _cache.get(text)
    if hit is not None:
        return hit
    m = _QUANTITY.match(text)
    if not m:
        raise ValueParseError("invalid quantity %r" % text)
    sign, number, suffix = m.groups()
    value = Fraction(number)
    if suffix in _BINARY:
        value *= _BINARY[suffix]
    elif suffix[:1] in ("e", "E") and len(suffix) > 1:
        value *= Fraction(10) ** int(suffix[1:])
    else:
        value *= _DECIMAL[suffix]
    if sign == "-":
        value = -value
    if len(_cache) < 4096:
        _cache[text] = value
    return value


def ceil_int(value: Fraction) -> int:
    """Round up to an integer, as `Quantity.Value()` does."""
    return -((-value.numerator) // value.denominator)


def to_units(resource: str, value: Fraction) -> int:
    """The integer the scheduler and kubelet compare: millicores for cpu, else the value."""
    if resource == "cpu":
        return ceil_int(value * 1000)
    return ceil_int(value)


def parse_units(resource: str, text: Union[str, int, float]) -> int:
    """parse_quantity followed by to_units."""
    return to_units(resource, parse_quantity(text))


def format_units(resource: str, units: int) -> str:
    """Render integer units the way kubectl would print a canonical quantity."""
    if resource == "cpu":
        return "%d" % (units // 1000) if units % 1000 == 0 else "%dm" % units
    return format_bytes(units) if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-") \
        else str(units)


def format_bytes(n: int) -> str:
    """Binary-suffixed, exact when possible (`900Mi`), else one decimal (`1.5Gi`)."""
    sign = "-" if n < 0 else ""
    n = abs(n)
    for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        unit = _BINARY[suffix]
        if n >= unit:
            if n % unit == 0:
                return "%s%d%s" % (sign, n // unit, suffix)
            return "%s%.1f%s" % (sign, n / unit, suffix)
    return "%s%d" % (sign, n)


_GO_BINARY = (("Ei", 2 ** 60), ("Pi", 2 ** 50), ("Ti", 2 ** 40), ("Gi", 2 ** 30), ("Mi", 2 ** 20), ("Ki", 2 ** 10))
_GO_DECIMAL = (("E", 10 ** 18), ("P", 10 ** 15), ("T", 10 ** 12), ("G", 10 ** 9), ("M", 10 ** 6), ("k", 10 ** 3))


def format_go_binary(n: int) -> str:
    """`resource.NewQuantity(n, BinarySI).String()`: the largest exact binary suffix, else the
    plain number (`943718400` -> `900Mi`, `1000000001` -> `1000000001`). Used where the kubelet
    prints measured usage (eviction messages). Below 1024 Go prints it as DecimalSI
    (`CanonicalizeBytes`), so `1000` -> `1k`."""
    if -1024 < n < 1024:
        return format_go_decimal(n)
    for suffix, unit in _GO_BINARY:
        if n % unit == 0:
            return "%d%s" % (n // unit, suffix)
    return str(n)


def format_go_decimal(n: int) -> str:
    """`resource.NewQuantity(n, DecimalSI).String()`: the largest exact decimal SI suffix
    (`1000` -> `1k`, `1500000` -> `1500k`, `1200` -> `1200`). The kubelet observes inodes and
    PIDs as DecimalSI quantities."""
    if n == 0:
        return "0"
    for suffix, unit in _GO_DECIMAL:
        if n % unit == 0:
            return "%d%s" % (n // unit, suffix)
    return str(n)


def format_go_parsed(text: str) -> str:
    """`resource.MustParse(text).String()`: the canonical form Go prints for a quantity written
    as `text`, in the format its suffix chose (binary for Ki..Ei, decimal SI otherwise, decimal
    exponent for `e`): `2Gi` -> `2Gi`, `1.5Gi` -> `1536Mi`, `1000` -> `1k`, `0.5` -> `500m`.
    A binary quantity below 1024 or not a whole number prints as decimal SI
    (`CanonicalizeBytes`). Used where the kubelet prints a configured threshold."""
    value = parse_quantity(text)
    m = _QUANTITY.match(text) if isinstance(text, str) else None
    suffix = m.group(3) if m else ""
    if value == 0:
        return "0"
    if suffix in _BINARY and -1024 < value < 1024 or suffix in _BINARY and value.denominator != 1:
        suffix = ""
    if suffix in _BINARY:
        return format_go_binary(int(value))
    exponent_form = suffix[:1] in ("e", "E") and len(suffix) > 1
    sign = "-" if value < 0 else ""
    v = abs(value)
    exp = 0
    while v.denominator != 1 and exp > -9:          # milli, micro, nano
        v *= 1000
        exp -= 3
    mantissa = -(-v.numerator // v.denominator)     # beyond nano Go rounds up
    while mantissa % 1000 == 0 and exp < 18:
        mantissa //= 1000
        exp += 3
    if exponent_form:
        return "%s%d%s" % (sign, mantissa, "e%d" % exp if exp else "")
    names = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
    return "%s%d%s" % (sign, mantissa, names[exp])


def format_go_quantity(n: int) -> str:
    """How Go prints a quantity parsed from a manifest, for an integer whose original suffix is
    lost: binary when it is a whole number of Ki, else decimal SI (`1G`, `500M`), else plain."""
    if n == 0:
        return "0"
    if n % 1024 == 0:
        return format_go_binary(n)
    for suffix, unit in _GO_DECIMAL:
        if n % unit == 0:
            return "%d%s" % (n // unit, suffix)
    return str(n)
