"""How the process uses Python's cyclic garbage collector while it builds long-lived data.

Reading a cluster and planning allocate millions of objects (records, interned maps, placement
indexes) that stay alive until the process ends and form almost no cycles. Each automatic
collection would walk all of them, so they are built with the collector paused (`paused`).

Re-enabling it is the subtle part: the collector counts allocations even while disabled, so
the first allocation afterwards starts a collection of the youngest generation, which now holds
everything allocated while it was paused: the whole snapshot (about 1 s at 150,000 pods, paid
by every command). When the process ends after its one command (the console entry point says
so with `will_exit_now`), `paused` therefore moves what was allocated into the permanent
generation (`gc.freeze`) before it re-enables the collector; those objects are still freed by
reference counting when they die, they are only never walked again, and cyclic garbage among
them is never collected, which costs nothing in a process that is about to end. An in-process
caller that loads and plans many times (a test session, a program importing the package) gets
no freeze: its garbage cycles must still be collected, or every call's would be kept for good.

Freeing is the last cost: when a command returns, its snapshot and plan die, and reference
counting frees their millions of objects one by one (about 0.4 s at 150,000 pods) just before
the process ends and the operating system takes all of its memory back at once anyway. The
console entry point says so first (`will_exit_now`); the command then hands them to
`keep_until_exit`, and the entry point ends the process with `exit_now` (output flushed, exit
handlers run) instead of unwinding the interpreter. For in-process callers (tests) nothing is kept.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import sys
from typing import Any, Iterator, List, NoReturn

_KEPT: List[Any] = []
_EXITING = [False]   # set once by the console entry point (`will_exit_now`)


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Run the block with the cyclic collector off; afterwards (in a process that ends after its
    command) freeze what it allocated, and put the collector back as it was. Nests: an inner
    block inside a paused one changes nothing."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if _EXITING[0]:
                gc.freeze()
            gc.enable()


def will_exit_now() -> None:
    """The console entry point: this process ends with `exit_now` once its one command is done."""
    _EXITING[0] = True


def keep_until_exit(*objects: Any) -> None:
    """Hold `objects` (a command's snapshot and plan) until `exit_now` ends the process; nothing
    is held unless the entry point said it ends that way."""
    if _EXITING[0]:
        _KEPT.extend(objects)


def exit_now(code: int) -> NoReturn:
    """End the process with `code` without freeing what it built: stdout and stderr flushed, the
    exit handlers run (temporary credential files, logging), then `os._exit`. Only for the
    console entry point, once the command is done and its output written."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):   # a closed pipe: the command's own handling came first
            pass
    atexit._run_exitfuncs()
    os._exit(code)
