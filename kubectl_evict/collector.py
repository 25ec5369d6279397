"""How the process uses Python's cyclic garbage collector while it builds long-lived data.

Reading a cluster and planning allocate millions of objects (records, interned maps, placement
indexes) that stay alive until the process ends and form almost no cycles. Each automatic
collection would walk all of them, so they are built with the collector paused (`paused`).

Re-enabling it is the subtle part: the collector counts allocations even while disabled, so
the first allocation afterwards starts a collection of the youngest generation, which now holds
everything allocated while it was paused: the whole snapshot (about 1 s at 150,000 pods, paid
by every command). `paused` therefore moves what was allocated into the permanent generation
(`gc.freeze`) before it re-enables the collector; those objects are still freed by reference
counting when they die, they are only never walked again.
"""

from __future__ import annotations

import contextlib
import gc
from typing import Iterator


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Run the block with the cyclic collector off; afterwards freeze what it allocated and put
    the collector back as it was. Nests: an inner block inside a paused one changes nothing."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.enable()
