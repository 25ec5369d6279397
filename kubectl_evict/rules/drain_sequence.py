"""`drain --one-at-a-time`: the nodes drained in the order given, each once the previous node's
replacements are Ready, and every pod that moves more than once planned as it happens.

Models kubectl drain (the releases `rules/drain.py` names) run node after node, each node cordoned
when its turn comes. It is an upgrade (`rules/upgrade.py`'s batch engine) with batches of one node,
no new nodes, and drained nodes staying cordoned instead of being removed: a replacement is placed by
the scheduler model on any schedulable node, and one that lands on a node drained later is evicted
again in that node's turn (through the Eviction API: its PDB's budget is spent again, and a spent
budget can hold it). What the drains themselves say (filters, waves, --timeout, per-node verdicts)
is `rules/drain.py`'s.
"""

from __future__ import annotations

from kubectl_evict.model import Pod, Snapshot
from kubectl_evict.plan import Plan
from kubectl_evict.rules.drain import DrainSettings
from kubectl_evict.rules.upgrade import UpgradeSettings, UpgradeRun
from kubectl_evict.workloads import attach

MOVED_ADVICE = ("their replacements landed on nodes drained later; to avoid it, cordon all the nodes first "
                "(kubectl cordon NODE...), then drain them")


class _InOrder(UpgradeRun):
    """Upgrade's engine, one node a batch, no node joining or leaving."""

    RETRY_IN_WAVE = True     # no node joins: a Pending replacement is retried within its wave, as drain does

    def landed_on_retry(self, pod: Pod, at: float, target: str, candidates: tuple) -> None:
        self.pending.pop(pod.key, None)
        super().landed_on_retry(pod, at, target, candidates)

    def __init__(self, snapshot: Snapshot, settings: DrainSettings, now: float) -> None:
        up = UpgradeSettings(drain=settings, provider="generic", max_surge=0, max_unavailable=1)
        super().__init__(snapshot, up, now, command="drain", surge=False)

    def earlier(self, node: str) -> str:
        return "node/%s" % node

    def plan(self) -> Plan:
        ps = float(self.cfg.pod_startup)
        wave = 0
        start = 0.0
        for name in self.pool:
            self.placer.settle()       # what the previous node's drain evicted is gone
            first = len(self.b.actions)
            last = self.drain_batch([name], start, wave)
            if last >= wave:
                # the next node starts once this one's last replacements are Ready (an OrderedReady
                # StatefulSet's come one after the other: `ready_by_node`)
                start = max(self.at(last) + ps, self.ready_by_node(first).get(name, 0.0))
                wave = last + 1
        self.chain_statefulsets()
        self.inputs_missing()
        self.verdicts()
        self.moved_more_than_once(MOVED_ADVICE)
        self.b.extra["budgets"] = self.budgets_extra()
        return attach(self.s, self.b.build(), ps)


def plan_drain_in_order(snapshot: Snapshot, settings: DrainSettings, now: float) -> Plan:
    """Plan `kubectl drain` of `settings.nodes` one node at a time, in the order given."""
    return _InOrder(snapshot, settings.set(one_at_a_time=True), now).plan()

