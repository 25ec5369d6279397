"""The plan: an immutable, ordered list of actions plus what is blocked, short, skipped and
worth a warning. Rules build one with `PlanBuilder` (a local, throw-away accumulator) and return
the frozen `Plan`; renderers and `apply` only read it.

Every action says who carries it out (`by`). Only `by: user` actions are the operator's to do,
and only they are ever applied; a plan without any is a forecast of what Kubernetes does by
itself, and `apply` refuses it. Three outcomes are kept apart, each pod in at most one:
`blocked` (the operation will not finish), `shortfall` (it finishes, but a replacement has
nowhere to land or never starts; the pod's removal stays in `actions`), `skipped` (left on
purpose). Each entry carries a stable kebab-case `code` from `CODES`.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Iterable, List, Optional, Tuple

from pyrsistent import PClass, field, pmap, pvector

from kubectl_evict.model import Record

ACTION_TYPES = ("cordon", "taint", "untaint", "label", "unlabel", "evict", "delete", "kill", "detach")
POD_ACTIONS = ("evict", "delete", "kill")

# Who carries an action out. `user` is the operator (and what `apply` executes); the rest are
# the components that act by themselves.
USER = "user"
KUBELET = "kubelet"
NODE_LIFECYCLE = "node-lifecycle-controller"
TAINT_EVICTION = "taint-eviction-controller"
DAEMONSET_CONTROLLER = "daemonset-controller"
POD_GC = "pod-gc"
ATTACH_DETACH = "attach-detach-controller"
SCHEDULER = "scheduler"
DEVICE_TAINT_EVICTION = "device-taint-eviction-controller"   # DRA device taints (v1.36+)
ACTORS = (USER, KUBELET, NODE_LIFECYCLE, TAINT_EVICTION, DAEMONSET_CONTROLLER, POD_GC, ATTACH_DETACH, SCHEDULER,
          DEVICE_TAINT_EVICTION)

# Stable codes of `blocked`, `shortfall` and `skipped` entries (contract: scripts match on them).
CODES = {
    # blocked: the operation will not finish
    "pdb-budget": "blocked: a PodDisruptionBudget allows no more disruptions and no replacement will restore it",
    "pdb-multiple": "blocked: more than one PodDisruptionBudget covers the pod; the Eviction API refuses it",
    "drain-filter": "blocked: a kubectl drain filter refuses the pod (bare pod without --force, emptyDir "
                    "without --delete-emptydir-data, DaemonSet pod without --ignore-daemonsets), or "
                    "another pod of the node does",
    "nowhere-to-move": "blocked: --enforce-ignored-during-execution would evict the pod, but no other node fits, "
                       "so it is left running (the descheduler's NodeFit check)",
    "node-unreachable": "blocked: the node is NotReady/Unknown, so nothing confirms the pod's deletion and it "
                        "stays Terminating",
    "drain-timeout": "blocked: drain --timeout runs out before kubectl drain would evict the pod; kubectl gives "
                     "up on the node (it stays cordoned) and exits 1",
    # shortfall: it happens, but the replacement has nowhere to go or never starts
    "no-node-fits": "shortfall: the replacement fits no node (the scheduler's FailedScheduling text)",
    "waits-for-old-pod": "shortfall: a StatefulSet replacement keeps the pod's name and cannot start until "
                         "the old pod is gone",
    "ordered-ready": "shortfall: an OrderedReady StatefulSet creates this ordinal only after every lower one "
                     "is Running and Ready",
    "threshold-persists": "shortfall: node pressure persists after every pod the kubelet may evict is gone",
    "job-failed": "shortfall: the kubelet's kill fails the pod's Job (backoffLimit exceeded, or a podFailurePolicy "
                  "FailJob/FailIndex rule matches), so nothing replaces the pod",
    "rejected-by-kubelet": "shortfall: the replacement tolerates the stopped node's taints, so the scheduler sends it "
                           "back there, and that node's kubelet rejects it (a node shutting down admits no pod)",
    # skipped: left on purpose
    "daemonset": "skipped: a DaemonSet pod (kubectl drain --ignore-daemonsets, or a node lifecycle "
                 "controller without taint-based eviction)",
    "mirror-pod": "skipped: a mirror pod of a static pod; only the kubelet's manifest removes it",
    "completed": "skipped: the pod has already finished (Succeeded or Failed)",
    "tolerates-forever": "skipped: the pod tolerates the NoExecute taint without tolerationSeconds (as "
                         "every DaemonSet pod does: its controller adds those tolerations)",
    "not-selected": "skipped: not matched by drain --pod-selector",
    "already-terminating": "skipped: already being deleted",
    "drain-label": "skipped: labelled cluster.x-k8s.io/drain=skip, which Cluster API's drain leaves (upgrade --provider capi)",
    "critical-pod": "skipped: a static or mirror critical pod the kubelet never evicts",
    "eviction-cancelled": "skipped: a scheduled taint-based deletion is cancelled because the taint goes away "
                          "before tolerationSeconds run out",
    "stays-running": "skipped: the change does not affect the running pod (IgnoredDuringExecution)",
}
BLOCKED_CODES = ("pdb-budget", "pdb-multiple", "drain-filter", "node-unreachable", "nowhere-to-move", "drain-timeout")
SHORTFALL_CODES = ("no-node-fits", "waits-for-old-pod", "ordered-ready", "threshold-persists", "job-failed",
                   "rejected-by-kubelet")


class Action(Record):
    type = field(type=str, mandatory=True)
    by = field(type=str, initial=USER)         # who carries it out: one of ACTORS
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
    # kill: when the owning controller creates the replacement (the pod turned Failed, or later
    # after a backoff); None: at `at`, or nothing replaces it
    replaced_at = field(initial=None)
    # evict/delete: nodes tied at the top score with `target` (the pick among them is by name)
    candidates = field(type=tuple, initial=())
    # label/unlabel: the node's current value of `key` (None: not set), for the apply precondition;
    # taint/untaint by the user: the value of the node's taint with this key and effect (None: none),
    # when `previous_seen` (plans made before taint actions carried it have no precondition)
    previous = field(initial=None)
    previous_seen = field(type=bool, initial=False)
    # upgrade: the batch of the node-pool upgrade the action belongs to (None: not an upgrade)
    batch = field(initial=None)
    # evict/delete/kill: (kind, name, uid) of the pod's controller, so that `verify` can find the
    # replacement through its owner once the pod itself is gone
    owner = field(initial=None)


class Entry(Record):
    """A pod in `blocked`, `shortfall` or `skipped`."""
    code = field(type=str, initial="")
    namespace = field(type=str, initial="")
    pod = field(type=str, initial="")
    node = field(type=str, initial="")
    reason = field(type=str, initial="")
    uid = field(type=str, initial="")


class Incomplete(Record):
    """A kind the input does not hold that the plan's verdict depends on, and what was not
    checked because of it (`effect`). Any entry makes an otherwise clean plan exit 5."""
    kind = field(type=str, mandatory=True)
    effect = field(type=str, initial="")


class Plan(PClass):
    command = field(type=str, mandatory=True)
    now = field(initial=0.0)                    # epoch seconds
    actions = field(initial=pvector())
    blocked = field(initial=pvector())
    shortfall = field(initial=pvector())
    skipped = field(initial=pvector())
    workloads = field(initial=pvector())       # Workload records (kubectl_evict/workloads.py)
    warnings = field(initial=pvector())
    incomplete = field(initial=pvector())       # Incomplete records, one per kind, in the order found
    notes = field(initial=pvector())            # verdicts, zone timelines: printed after the table
    context = field(type=str, initial="")
    server = field(type=str, initial="")
    extra = field(initial=pmap())               # rule-specific fields for -o json/yaml
    version = field(type=str, initial="")      # the Kubernetes version whose defaults the plan assumed
    version_source = field(type=str, initial="")


class Workload(Record):
    """A workload the plan touches: ready replicas now, at the lowest point (and when), after."""
    kind = field(type=str, mandatory=True)
    namespace = field(type=str, mandatory=True)
    name = field(type=str, mandatory=True)
    ready = field(type=int, initial=0)
    ready_min = field(type=int, initial=0)
    ready_min_at = field(initial=0)
    ready_after = field(type=int, initial=0)
    pdb = field(type=str, initial="")          # namespace/name of a PDB covering its pods, if any
    levels = field(initial=())                 # ((at, ready), ...) after each change: the timeline's steps

    @property
    def ref(self) -> str:
        return "%s %s/%s" % (self.kind, self.namespace, self.name)


def is_forecast(plan: Plan) -> bool:
    """True when nothing in the plan is the operator's to do: Kubernetes does it all by itself."""
    return not any(a.by == USER for a in plan.actions)


# Commands that plan what the operator does. One of their plans with no action at all (a drain of
# a node already cordoned and empty, or whose pods all stay) is no forecast of what Kubernetes does
# by itself: it holds nothing to do (and, as for a forecast, nothing to apply).
OPERATOR_COMMANDS = frozenset(("drain", "affinity", "upgrade"))


def nothing_to_do(plan: Plan) -> bool:
    """An operator's plan (OPERATOR_COMMANDS) that holds no action."""
    return plan.command in OPERATOR_COMMANDS and not plan.actions


def exit_code(plan: Plan) -> int:
    """The contract's exit code of a computed plan: 3 blocked, else 4 shortfall, else 5 when the
    verdict depends on kinds the input does not hold, else 0."""
    if plan.blocked:
        return 3
    if plan.shortfall:
        return 4
    if plan.incomplete:
        return 5
    return 0


def incomplete_warning(entry: Incomplete) -> str:
    """The warning every view prints for an `incomplete` entry."""
    return "incomplete input: no %s in the input: %s" % (entry.kind, entry.effect)


def with_incomplete(plan: Plan, entries: Iterable[Incomplete]) -> Plan:
    """`plan` with more `incomplete` entries (merged per kind) and their warnings."""
    merged = _merge_incomplete(list(plan.incomplete) + list(entries))
    if len(merged) == len(plan.incomplete) and all(a == b for a, b in zip(merged, plan.incomplete)):
        return plan
    old = {incomplete_warning(e) for e in plan.incomplete}
    warnings = [w for w in plan.warnings if w not in old]
    warnings += [incomplete_warning(e) for e in merged]
    return plan.set(incomplete=pvector(merged), warnings=pvector(warnings))


def counted_refs(noun: str, refs: List[str], shown: int = 3) -> str:
    """`1 pod (a/b)`, `5 pods (a/b, c/d, e/f and 2 more)`."""
    n = len(refs)
    more = " and %d more" % (n - shown) if n > shown else ""
    return "%d %s%s (%s%s)" % (n, noun, "" if n == 1 else "s", ", ".join(refs[:shown]), more)


def _merge_incomplete(entries: Iterable[Incomplete]) -> List[Incomplete]:
    """One entry per kind, in the order first found; different effects are joined with "; "."""
    order: List[str] = []
    effects: dict = {}
    for e in entries:
        if e.kind not in effects:
            order.append(e.kind)
            effects[e.kind] = []
        for part in e.effect.split("; "):
            if part and part not in effects[e.kind]:
                effects[e.kind].append(part)
    return [Incomplete(kind=k, effect="; ".join(effects[k])) for k in order]


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
        self.shortfalls: List[Entry] = []
        self.skipped: List[Entry] = []
        self.warnings: List[str] = []
        self.incompletes: List[Incomplete] = []
        self._unchecked: dict = {}     # (kind, what, noun) -> refs of what it was not checked for
        self.notes: List[str] = []
        self.extra: dict = {}
        self.batch: Optional[int] = None     # upgrade: stamped on every action while set

    def action(self, type: str, *, by: str, **kw: Any) -> Action:
        assert type in ACTION_TYPES, type
        assert by in ACTORS, by
        kw["by"] = by
        if "at" in kw:
            kw["at"] = number(kw["at"])
        if "target" in kw:
            kw["has_target"] = True
        if self.batch is not None:
            kw.setdefault("batch", self.batch)
        # The rules are trusted code: skip PClass's per-field checks (thousands of actions a plan).
        a = Action.trusted(type=type, **kw)
        self.actions.append(a)
        return a

    @staticmethod
    def _entry(pod: Any, code: str, reason: str, node: Optional[str]) -> Entry:
        assert code in CODES, code
        return Entry(code=code, namespace=pod.namespace, pod=pod.name,
                     node=node if node is not None else pod.node_name, reason=reason, uid=pod.uid)

    def block(self, pod: Any, code: str, reason: str, node: Optional[str] = None) -> None:
        """The operation will not finish because of this pod."""
        self.blocked.append(self._entry(pod, code, reason, node))

    def shortfall(self, pod: Any, code: str, reason: str, node: Optional[str] = None) -> None:
        """The pod goes (its action stays in `actions`), but its replacement never runs."""
        self.shortfalls.append(self._entry(pod, code, reason, node))

    def node_shortfall(self, node: str, code: str, reason: str) -> None:
        """A shortfall of a whole node rather than of one pod (pressure that never clears)."""
        assert code in CODES, code
        self.shortfalls.append(Entry(code=code, node=node, reason=reason))

    def skip(self, pod: Any, code: str, reason: str, node: Optional[str] = None) -> None:
        """The pod is deliberately left where it is."""
        self.skipped.append(self._entry(pod, code, reason, node))

    def incomplete(self, kind: str, effect: str) -> None:
        """The verdict depends on objects of `kind`, which the input does not hold: `effect` says
        what was not checked (the rule then claims nothing about those objects)."""
        self.incompletes.append(Incomplete(kind=kind, effect=effect))

    def incomplete_for(self, kind: str, what: str, ref: str, noun: str = "pod") -> None:
        """`what` was not checked for `ref` (a pod, or a `noun` such as a workload) because the
        input does not hold `kind`; `build` says it once per (kind, what) with a count and names."""
        refs = self._unchecked.setdefault((kind, what, noun), [])
        if ref not in refs:
            refs.append(ref)

    @property
    def has_incomplete(self) -> bool:
        """Has the rule said that its verdict depends on something the input does not hold?"""
        return bool(self.incompletes or self._unchecked)

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def note(self, line: str) -> None:
        self.notes.append(line)

    def _caveats(self) -> Tuple[Dict[str, List[str]], Dict[str, List[str]]]:
        """The kinds each pod ref and each node was not checked against (`incomplete_for`)."""
        pods: Dict[str, List[str]] = {}
        nodes: Dict[str, List[str]] = {}
        for (kind, _what, noun), refs in self._unchecked.items():
            into = pods if noun == "pod" else nodes if noun == "node" else None
            if into is not None:
                for ref in refs:
                    if kind not in into.setdefault(ref, []):
                        into[ref].append(kind)
        return pods, nodes

    def _with_caveat(self, items: List[Any], pods: Dict[str, List[str]], nodes: Dict[str, List[str]]) -> List[Any]:
        """`items` (actions) whose reasons say which kinds their verdict was not checked
        against, as the plan contract asks ("not in the input" rather than asserting absence):
        evictions and deletions, whose reasons are the plan's own words. A kill's reason is the
        kubelet's status message, kept as the kubelet writes it (`incomplete` says the rest).
        A reason that already names a kind as not in the input (`PodDisruptionBudgets are not in
        the input`) still gets the other kinds: its target was found without them too."""
        out = []
        for a in items:
            kinds = []
            if a.type in ("evict", "delete"):    # a kill's reason is the kubelet's own message
                kinds = list(pods.get("%s/%s" % (a.namespace, a.pod), ()))
                for k in nodes.get(a.node, ()) if a.node else ():
                    if k not in kinds:
                        kinds.append(k)
            if kinds and "not in the input" in a.reason:
                # the rule's own words already say some kind is not in the input: add the others
                kinds = [k for k in kinds if not re.search(r"\b%ss?\b" % k, a.reason)]
            if kinds:
                a = a.set(reason="%s (not in the input: %s; see incomplete)" % (a.reason, ", ".join(sorted(kinds))))
            out.append(a)
        return out

    def build(self) -> Plan:
        # Stable sort: equal `at` keeps the rule's own order (for example the kubelet's ranking).
        ordered = sorted(self.actions, key=lambda a: a.at)
        if self._unchecked:
            pods, nodes = self._caveats()
            # actions only: a blocked or shortfall entry's reason may end in the scheduler's own
            # FailedScheduling text, which stays as the cluster would print it
            ordered = self._with_caveat(ordered, pods, nodes)
        # A pod is in at most one of blocked, shortfall and skipped: blocked wins, then shortfall.
        seen = set()
        kept: dict = {"blocked": [], "shortfall": [], "skipped": []}
        for name, entries in (("blocked", self.blocked), ("shortfall", self.shortfalls), ("skipped", self.skipped)):
            for e in entries:
                k = (e.namespace, e.pod) if e.pod else ("node", e.node, e.code)
                if k not in seen:
                    seen.add(k)
                    kept[name].append(e)
        plan = Plan(command=self.command, now=self.now, actions=pvector(ordered), blocked=pvector(kept["blocked"]),
                    shortfall=pvector(kept["shortfall"]), skipped=pvector(kept["skipped"]), warnings=pvector(self.warnings), notes=pvector(self.notes),
                    context=self.context, server=self.server, extra=pmap(self.extra))
        unchecked = [Incomplete(kind=kind, effect="%s for %s" % (what, counted_refs(noun, refs)))
                     for (kind, what, noun), refs in self._unchecked.items()]
        return with_incomplete(plan, self.incompletes + unchecked)
