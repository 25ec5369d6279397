"""Go durations and RFC3339 timestamps, as the Kubernetes API and kubelet config write them."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Optional

from kubectl_evict.errors import ValueParseError, json_type

_UNITS = {"ns": 1, "us": 1000, "\u00b5s": 1000, "\u03bcs": 1000, "ms": 10 ** 6, "s": 10 ** 9,
          "m": 60 * 10 ** 9, "h": 3600 * 10 ** 9}
_DURATION_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")


def parse_duration(text: str) -> float:
    """Parse a Go duration (`1h2m3.5s`, `300ms`, `0`) into seconds.

    Follows `time.ParseDuration`: a sign, then one or more number+unit pairs; `0` alone needs no
    unit; every other number needs one. Computed in integer nanoseconds, then converted.
    """
    if not isinstance(text, str):
        raise ValueParseError("durations must be strings like \"30s\", not %s" % json_type(text))
    s = text
    neg = False
    if s[:1] in ("+", "-"):
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return 0.0
    if not s:
        raise ValueParseError("invalid duration %r" % text)
    total = 0
    pos = 0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        if not m or m.group(1) in ("", "."):
            raise ValueParseError("invalid duration %r (use Go syntax: 30s, 1m30s, 5m)" % text)
        whole, _, frac = m.group(1).partition(".")
        unit = _UNITS[m.group(2)]
        total += int(whole or "0") * unit
        if frac:
            total += int(frac) * unit // 10 ** len(frac)
        pos = m.end()
    # time.ParseDuration counts int64 nanoseconds and refuses more ("time: invalid duration"):
    # such a value in a kubelet config stops the kubelet, it does not wait 11 million years
    if total > (1 << 63) - (0 if neg else 1):
        raise DurationOverflow("invalid duration %r: more than Go's maximum duration (2562047h47m16.854775807s)"
                               % text)
    return (-total if neg else total) / 1e9


class DurationOverflow(ValueParseError):
    """A duration beyond Go's int64 nanoseconds (`parse_duration`); flags call it a typing slip."""


def parse_time(text: str) -> float:
    """Parse an RFC3339 timestamp (seconds or fractional, `Z` or an offset) to epoch seconds."""
    if not isinstance(text, str):
        raise ValueParseError("timestamps must be RFC3339 strings, not %s" % json_type(text))
    s = text.strip()
    m = re.match(r"(\d{4}-\d\d-\d\d)[Tt ](\d\d:\d\d:\d\d)(\.\d+)?([Zz]|[+-]\d\d:\d\d)\Z", s)
    if not m:
        raise ValueParseError("invalid RFC3339 timestamp %r" % text)
    date, clock, frac, zone = m.groups()
    tz = "+00:00" if zone in ("Z", "z") else zone
    try:
        dt = datetime.fromisoformat("%sT%s%s" % (date, clock, tz))
    except ValueError:
        raise ValueParseError("invalid RFC3339 timestamp %r" % text) from None
    seconds = dt.timestamp()
    if frac:
        seconds += float("0" + frac[:10])
    return seconds


def format_time(epoch: float) -> str:
    """Epoch seconds to RFC3339 UTC; whole seconds print without a fraction."""
    dt = datetime.fromtimestamp(int(epoch // 1), tz=timezone.utc)
    # not strftime("%Y"): glibc prints year 999 as "999", which is no RFC 3339 date-fullyear
    base = "%04d-%02d-%02dT%02d:%02d:%02d" % (dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second)
    frac = epoch - int(epoch // 1)
    if frac > 1e-9:
        return base + ("%.6f" % frac)[1:].rstrip("0") + "Z"
    return base + "Z"


def format_offset(seconds: Optional[float]) -> str:
    """`at` as people read it: `+0s`, `+55s`, `+5m50s`, `+1h2m`, `+2d 3h`."""
    if seconds is None:
        return ""
    sign = "-" if seconds < 0 else "+"
    return sign + format_seconds(abs(seconds))


def format_seconds(seconds: float) -> str:
    """Go-like short duration: `0s`, `1.5s`, `5m50s`, `1h2m`; from a day on `Nd Nh` (`1476d 4h`),
    because nobody reads `35428h17m9s` as an age."""
    if seconds >= 86400:
        d, rest = divmod(int(round(seconds)), 86400)
        h = rest // 3600
        return "%dd %dh" % (d, h) if h else "%dd" % d
    if seconds != int(seconds):
        whole = int(seconds)
        if whole < 60:
            return ("%.3f" % seconds).rstrip("0").rstrip(".") + "s"
        seconds = round(seconds)
    s = int(seconds)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    out = ""
    if h:
        out += "%dh" % h
    if m:
        out += "%dm" % m
    if sec or not out:
        out += "%ds" % sec
    return out


def format_go_duration(seconds: float) -> str:
    """Seconds as Go's `time.Duration.String()` prints them (`0s`, `500ms`, `1m0s`, `1h2m3.5s`).

    Upstream error messages embed durations this way (kubelet config validation, the shutdown
    manager's logind message); reproducing them exactly lets users grep their kubelet logs.
    """
    ns = int(round(seconds * 1e9))
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    if ns < 10 ** 9:
        for unit, size in (("ms", 10 ** 6), ("\u00b5s", 10 ** 3), ("ns", 1)):
            if ns >= size:
                whole, frac = divmod(ns, size)
                text = str(whole)
                if frac:
                    digits = len(str(size)) - 1
                    text += ("." + str(frac).rjust(digits, "0")).rstrip("0")
                return sign + text + unit
    whole_s, frac_ns = divmod(ns, 10 ** 9)
    h, rest = divmod(whole_s, 3600)
    m, s = divmod(rest, 60)
    sec = str(s) + (("." + str(frac_ns).rjust(9, "0")).rstrip("0") if frac_ns else "")
    if h:
        return "%s%dh%dm%ss" % (sign, h, m, sec)
    if m:
        return "%s%dm%ss" % (sign, m, sec)
    return "%s%ss" % (sign, sec)
