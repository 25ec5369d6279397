"""The collector is paused while long-lived data is built, and what was built is frozen before it
runs again: otherwise the first allocation after a 150,000-pod load walks the whole snapshot
(about 1 s, paid by every command)."""

import gc

import pytest

from kubectl_evict import collector


@pytest.fixture(autouse=True)
def _restore_collector():
    was = gc.isenabled()
    yield
    gc.enable() if was else gc.disable()


class _Obj:
    pass


@pytest.mark.parametrize("enabled_before, nested, frozen_after, enabled_after", [
    # the normal case: a command loads with the collector on; afterwards it is on again and
    # what the load built sits in the permanent generation
    (True, False, True, True),
    # a load inside a paused block (a plan's load inside `run`): the outer block decides
    (True, True, True, True),
    # someone turned the collector off on purpose: it stays off and nothing is frozen
    (False, False, False, False),
])
def test_paused_freezes_what_it_built_before_the_collector_runs_again(enabled_before, nested, frozen_after,
                                                                        enabled_after):
    gc.enable() if enabled_before else gc.disable()
    gc.unfreeze()
    built = []
    with collector.paused():
        assert not gc.isenabled()
        if nested:
            with collector.paused():
                built.extend(_Obj() for _ in range(1000))
            assert not gc.isenabled(), "an inner block must not switch the collector back on"
            assert gc.get_freeze_count() == 0, "an inner block must not freeze early"
        else:
            built.extend(_Obj() for _ in range(1000))
    assert gc.isenabled() is enabled_after
    assert (gc.get_freeze_count() >= 1000) is frozen_after
    gc.unfreeze()


def test_paused_restores_the_collector_when_the_block_fails():
    gc.enable()
    with pytest.raises(ValueError):
        with collector.paused():
            raise ValueError("bad input")
    assert gc.isenabled()
    gc.unfreeze()
