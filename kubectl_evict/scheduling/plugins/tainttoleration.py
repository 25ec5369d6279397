"""TaintToleration (`pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go`,
v1.30-v1.37): Filter on the first untolerated NoSchedule/NoExecute taint; Score counts
untolerated PreferNoSchedule taints (fewer is better, reverse-normalised).

The Filter's reason names the taint up to v1.34.1 (`node(s) had untolerated taint {k: v}`, one
FitError histogram bucket per taint); from v1.34.2 / v1.35 it is `node(s) had untolerated
taint(s)` (#134740, backport #135023), one bucket for them all."""

from __future__ import annotations

from typing import Optional, Sequence

from kubectl_evict.model import Taint, Toleration
from kubectl_evict.scheduling.tolerations import first_tolerating


UNTOLERATED = "node(s) had untolerated taint(s)"


def message(t: Taint, aggregate: bool = False) -> str:
    """The Filter's reason for `t`; `aggregate`: the v1.34.2+ text (feature UntoleratedTaintsText)."""
    if aggregate:
        return UNTOLERATED
    return "node(s) had untolerated taint {%s: %s}" % (t.key, t.value)


def first_untolerated(taints: Sequence[Taint], tolerations: Sequence[Toleration]) -> Optional[Taint]:
    return next((t for t in taints if t.effect in ("NoSchedule", "NoExecute")
                 and first_tolerating(tolerations, t) is None), None)


def prefer_no_schedule_count(taints: Sequence[Taint], tolerations: Sequence[Toleration]) -> int:
    """`countIntolerableTaintsPreferNoSchedule`: tolerations with an empty or PreferNoSchedule effect."""
    tols = [t for t in tolerations if t.effect in ("", "PreferNoSchedule")]
    return sum(1 for t in taints if t.effect == "PreferNoSchedule" and first_tolerating(tols, t) is None)
