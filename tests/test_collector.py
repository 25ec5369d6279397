"""The collector is paused while long-lived data is built. In the console process (one command,
then the end) what was built is frozen before the collector runs again: otherwise the first
allocation after a 150,000-pod load walks the whole snapshot (about 1 s, paid by every command).
In-process callers get no freeze, so the garbage cycles of each call are still collected."""

import gc
import weakref

import pytest

from kubectl_evict import collector


@pytest.fixture(autouse=True)
def _restore_collector():
    was, exiting = gc.isenabled(), collector._EXITING[0]
    yield
    gc.enable() if was else gc.disable()
    collector._EXITING[0] = exiting
    gc.unfreeze()


class _Obj:
    pass


@pytest.mark.parametrize("exiting, enabled_before, nested, frozen_after, enabled_after", [
    # the console process: a command loads with the collector on; afterwards it is on again and
    # what the load built sits in the permanent generation
    (True, True, False, True, True),
    # a load inside a paused block (a plan's load inside `run`): the outer block decides
    (True, True, True, True, True),
    # someone turned the collector off on purpose: it stays off and nothing is frozen
    (True, False, False, False, False),
    # an in-process caller (tests, a program importing the package): the collector comes back
    # on and nothing is frozen
    (False, True, False, False, True),
    (False, True, True, False, True),
])
def test_paused_freezes_what_it_built_before_the_collector_runs_again(exiting, enabled_before, nested,
                                                                        frozen_after, enabled_after):
    collector._EXITING[0] = exiting
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


def _cycle_built_while_paused() -> "weakref.ref":
    with collector.paused():
        a, b = _Obj(), _Obj()
        a.other, b.other = b, a   # a reference cycle: only the cyclic collector frees it
    return weakref.ref(a)


@pytest.mark.parametrize("exiting, freed", [
    # in-process: a caller that loads and plans 100,000 times must not keep every call's cycles
    # (the fuzzer grew to 15.7 GB when they were frozen)
    (False, True),
    # the console process ends right after its command: the frozen cycles cost nothing there
    (True, False),
])
def test_garbage_cycles_built_while_paused_are_collected_only_in_process(exiting, freed):
    collector._EXITING[0] = exiting
    gc.enable()
    gc.unfreeze()
    ref = _cycle_built_while_paused()
    gc.collect()
    assert (ref() is None) is freed
