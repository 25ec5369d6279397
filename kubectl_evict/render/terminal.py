"""What the shell measures for the views: the terminal's width and whether stdout can encode
more than ASCII. Read by commands/_run.py only, so rendering itself stays pure."""

from __future__ import annotations

import os
from typing import IO, Optional

FALLBACK_WIDTH = 120
_PROBE = "\u2192\u2026"


def terminal_width(env: Optional[dict] = None, streams: tuple = ()) -> int:
    """`COLUMNS`, else the size of the first stream that is a terminal (stdout, then stderr, so
    `| less` still fits the screen), else 120."""
    env = os.environ if env is None else env
    text = (env.get("COLUMNS") or "").strip()
    if text.isdigit() and int(text) > 0:
        return int(text)
    for s in streams:
        try:
            cols = os.get_terminal_size(s.fileno()).columns
        except (AttributeError, OSError, ValueError):
            continue
        if cols > 0:
            return cols
    return FALLBACK_WIDTH


def c_locale(env: Optional[dict] = None) -> bool:
    """The character locale is C / POSIX (LC_ALL, else LC_CTYPE, else LANG): the terminal promises
    only ASCII. Python itself switches to UTF-8 there (PEP 538/540), so the stream's encoding
    does not tell."""
    env = os.environ if env is None else env
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = env.get(name)
        if value:
            return value in ("C", "POSIX")
    return False


def ascii_only(stream: IO[str], env: Optional[dict] = None) -> bool:
    """True when `stream` cannot encode the views' marks (PYTHONIOENCODING=ascii) or the locale
    is C (LC_ALL=C)."""
    if c_locale(env):
        return True
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        _PROBE.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return True
    return False
