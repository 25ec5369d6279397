"""Flag values the commands and `apply` share: Go durations with sane bounds, and the click
error for a bad value. Kept apart from `commands/_run.py` so `apply` can use them without
importing the command layer (which imports `apply` for --apply)."""

from __future__ import annotations

from typing import Optional

import click

from kubectl_evict.errors import InputError, ValueParseError
from kubectl_evict.timeutil import DurationOverflow, parse_duration


MAX_DURATION = 366 * 24 * 3600.0   # a sane bound for every duration flag: a year (and a day)


def duration_flag(flag: str, text: Optional[str], *, positive: bool = False,
                  negative_ok: bool = False, seconds_ok: bool = False) -> Optional[float]:
    """A Go-duration flag value in seconds (None when the flag was not given), or an InputError
    naming the flag. Durations are zero or more unless `positive` (or `negative_ok`), and at most
    a year: larger values are typing slips that would only print float junk. `seconds_ok`: a plain
    integer is seconds (kubectl's integer --grace-period), so `30` and `30s` mean the same."""
    if text is None:
        return None
    stripped = text.strip()
    try:
        if seconds_ok and stripped.lstrip("+-").isdigit():
            v = float(int(stripped))
        else:
            v = parse_duration(text)
    except DurationOverflow:
        raise InputError("%r is more than a year: refused as a typing slip" % text, field=flag) from None
    except ValueParseError as e:
        raise InputError(str(e), field=flag) from None
    if positive and v <= 0:
        raise InputError("must be positive, got %r" % text, field=flag)
    if v < 0 and not negative_ok:
        raise InputError("must not be negative, got %r" % text, field=flag)
    if abs(v) > MAX_DURATION:
        raise InputError("%r is more than a year: refused as a typing slip" % text, field=flag)
    return v


def bad_flag(flag: str, value: str, problem: str) -> click.BadParameter:
    return click.BadParameter("%r: %s" % (value, problem), param_hint=flag)
