"""Progress of `apply` on stderr: a one-line bar with counts on a terminal, plain lines otherwise.

Plain lines are what CI logs and incident channels need (one event per line, no control
characters); the bar keeps a terminal readable during a long drain. Nothing here ever prints
request headers, so no token can leak through progress output.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, Optional

from kubectl_evict.apply.report import OUTCOMES

BAR_WIDTH = 24


class Progress:
    def __init__(self, total: int, stream: Any = None, tty: Optional[bool] = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = total
        self.finished = 0
        self.counts: Dict[str, int] = {o: 0 for o in OUTCOMES}
        if tty is None:
            isatty = getattr(self.stream, "isatty", None)
            tty = bool(isatty and isatty())
        self.tty = tty
        self._drawn = False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def _bar(self, current: str) -> None:
        filled = BAR_WIDTH * self.finished // self.total if self.total else BAR_WIDTH
        counts = ", ".join("%d %s" % (n, o) for o, n in self.counts.items() if n)
        line = "[%s%s] %d/%d%s  %s" % ("#" * filled, "." * (BAR_WIDTH - filled), self.finished, self.total,
                                       " (" + counts + ")" if counts else "", current)
        self._write("\r\x1b[2K" + line[:200])
        self._drawn = True

    def start(self, n: int, what: str) -> None:
        if self.tty:
            self._bar(what)

    def event(self, n: int, what: str, message: str) -> None:
        """Something worth knowing while an action is in progress (a retry, a wait)."""
        if self.tty:
            self._bar("%s: %s" % (what, message))
        else:
            self._write("apply: [%d/%d] %s: %s\n" % (n, self.total, what, message))

    def finish(self, n: int, what: str, outcome: str, detail: str = "") -> None:
        self.finished += 1
        self.counts[outcome] += 1
        if self.tty:
            self._bar("%s: %s" % (what, outcome))
        else:
            self._write("apply: [%d/%d] %s: %s%s\n" % (n, self.total, what, outcome, " (" + detail + ")" if detail else ""))

    def note(self, message: str) -> None:
        if self.tty and self._drawn:
            self._write("\r\x1b[2K")
        self._write("apply: %s\n" % message)
        self._drawn = False

    def close(self) -> None:
        if self.tty and self._drawn:
            self._write("\n")
            self._drawn = False
