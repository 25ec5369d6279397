"""The plan: an immutable, ordered list of actions plus what is blocked, skipped and worth a
warning. Rules build one with `PlanBuilder` (a local, throw-away accumulator) and return the
frozen `Plan`; renderers and `apply` only read it.
"""

from __future__ import annotations

from typing import Any, List, Optional

from pyrsistent import PClass, field, pmap, pvector

ACTION_TYPES = ("cordon", "taint", "untaint", "evict", "delete", "kill", "detach")
POD_ACTIONS = ("evict", "delete", "kill")


class Action(PClass):
    type = field(type=str, mandatory=True)
    node = field(type=str, initial="")
    at = field(initial=0)                       # seconds after `now` (int or float)
    rule = field(type=str, initial="")
    reason = field(type=str, initial="")
    # taint / untaint
    key = field(type=str, initial="")
    value = field(type=str, initial="")
    effect = field(type=str, initial="")
    # pod actions
    namespace = field(type=str, initial="")
    pod = field(type=str, initial="")
    uid = field(type=str, initial="")
    grace_period_seconds = field(initial=None)  # None: the pod's own
    target = field(initial=None)                # evict/delete: where the replacement lands
    has_target = field(type=bool, initial=False)
    force = field(type=bool, initial=False)
    # detach
    volume_attachment = field(type=str, initial="")


class Entry(PClass):
    """A pod in `blocked` or `skipped`."""
    namespace = field(type=str, initial="")
    pod = field(type=str, initial="")
    node = field(type=str, initial="")
    reason = field(type=str, initial="")
    uid = field(type=str, initial="")


class Plan(PClass):
    command = field(type=str, mandatory=True)
    now = field(initial=0.0)                    # epoch seconds
    actions = field(initial=pvector())
    blocked = field(initial=pvector())
    skipped = field(initial=pvector())
    warnings = field(initial=pvector())
    notes = field(initial=pvector())            # verdicts, zone timelines: printed after the table
    context = field(type=str, initial="")
    server = field(type=str, initial="")
    extra = field(initial=pmap())               # rule-specific fields for -o json/yaml


def number(x: Any) -> Any:
    """`at` and grace values as JSON numbers: ints when whole, else rounded to milliseconds."""
    if x is None:
        return None
    if isinstance(x, float):
        if x.is_integer():
            return int(x)
        return round(x, 3)
    return x


class PlanBuilder:
    """Accumulates a plan inside a pure rule function; `build()` freezes and orders it."""

    def __init__(self, command: str, now: float, *, context: str = "", server: str = "") -> None:
        self.command = command
        self.now = now
        self.context = context
        self.server = server
        self.actions: List[Action] = []
        self.blocked: List[Entry] = []
        self.skipped: List[Entry] = []
        self.warnings: List[str] = []
        self.notes: List[str] = []
        self.extra: dict = {}

    def action(self, type: str, **kw: Any) -> Action:
        assert type in ACTION_TYPES, type
        if "at" in kw:
            kw["at"] = number(kw["at"])
        if "target" in kw:
            kw["has_target"] = True
        a = Action(type=type, **kw)
        self.actions.append(a)
        return a

    def block(self, pod: Any, reason: str, node: Optional[str] = None) -> None:
        self.blocked.append(Entry(namespace=pod.namespace, pod=pod.name, node=node if node is not None else pod.node_name,
                                  reason=reason, uid=pod.uid))

    def skip(self, pod: Any, reason: str, node: Optional[str] = None) -> None:
        self.skipped.append(Entry(namespace=pod.namespace, pod=pod.name, node=node if node is not None else pod.node_name,
                                  reason=reason, uid=pod.uid))

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def note(self, line: str) -> None:
        self.notes.append(line)

    def build(self) -> Plan:
        # Stable sort: equal `at` keeps the rule's own order (for example the kubelet's ranking).
        ordered = sorted(self.actions, key=lambda a: a.at)
        return Plan(command=self.command, now=self.now, actions=pvector(ordered), blocked=pvector(self.blocked),
                    skipped=pvector(self.skipped), warnings=pvector(self.warnings), notes=pvector(self.notes),
                    context=self.context, server=self.server, extra=pmap(self.extra))
