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


def ascii_only(stream: IO[str]) -> bool:
    """True when `stream` cannot encode the views' marks (PYTHONIOENCODING=ascii, a C locale)."""
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        _PROBE.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return True
    return False
