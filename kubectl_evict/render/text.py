"""What every human view of a plan says, computed once: the header, the verdict, per-node and
per-workload verdicts, the TARGET cell, warnings said once with counts, fix hints, and the
ASCII fallback. The table, Markdown and timeline views only lay these out differently."""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence, Tuple

from pyrsistent import pvector

from kubectl_evict.plan import (POD_ACTIONS, Action, Entry, Plan, Workload, exit_code, is_forecast,  # noqa: F401 (re-exported)
                                nothing_to_do)
from kubectl_evict.timeutil import format_offset, format_seconds, format_time

ELLIPSIS = "\u2026"

# What stands in for non-ASCII characters when stdout cannot encode them (PYTHONIOENCODING=ascii,
# LANG=C pipes): the rules' reasons use arrows and comparisons, the views an ellipsis.
ASCII_MAP = {"\u2192": "->", "\u2190": "<-", "\u2026": "...", "\u2265": ">=", "\u2264": "<=", "\u00b5": "u",
             "\u03bc": "u", "\u00d7": "x", "\u00b7": "-", "\u2014": "--", "\u2013": "-", "\u2018": "'",
             "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "}
_ASCII_TABLE = {ord(k): v for k, v in ASCII_MAP.items()}


def to_ascii(text: str) -> str:
    """`text` with the known marks spelled in ASCII and anything else left as `?`."""
    return text.translate(_ASCII_TABLE).encode("ascii", "replace").decode("ascii")


def ascii_plan(plan: Plan) -> Plan:
    """The plan with every human text in ASCII, so the views measure and trim what is printed."""
    return plan.set(
        actions=pvector(a.set(reason=to_ascii(a.reason)) for a in plan.actions),
        blocked=pvector(e.set(reason=to_ascii(e.reason)) for e in plan.blocked),
        shortfall=pvector(e.set(reason=to_ascii(e.reason)) for e in plan.shortfall),
        skipped=pvector(e.set(reason=to_ascii(e.reason)) for e in plan.skipped),
        warnings=pvector(to_ascii(w) for w in plan.warnings),
        notes=pvector(to_ascii(n) for n in plan.notes))


def plural(n: int, one: str, many: Optional[str] = None) -> str:
    return "%d %s" % (n, one if n == 1 else (many or one + "s"))


# --- cells ---------------------------------------------------------------------------------------------

def action_object(a: Action) -> str:
    """What an action acts on, as one cell: `ns/pod`, `key=value:Effect`, `volumeattachment/x`."""
    if a.type in POD_ACTIONS:
        return "%s/%s" % (a.namespace, a.pod)
    if a.type in ("taint", "untaint"):
        return "%s%s:%s" % (a.key, "=" + a.value if a.value else "", a.effect)
    if a.type == "label":
        return "label %s=%s" % (a.key, a.value)
    if a.type == "unlabel":
        return "label %s-" % a.key
    if a.type == "detach":
        return "volumeattachment/" + a.volume_attachment
    return ""


NOT_RECREATED = "(not recreated)"
NO_NODE_FITS = "(no node fits)"


def no_fit_pods(plan: Plan) -> set:
    """Pods whose replacement fits no node (their TARGET says so, not `(not recreated)`)."""
    return {(e.namespace, e.pod) for e in plan.shortfall if e.code == "no-node-fits"}


def target_cell(a: Action, no_fit: set) -> str:
    """Where the replacement lands; for pod removals without one, which of the two reasons."""
    if a.type not in POD_ACTIONS or not (a.type == "evict" or a.has_target):
        return ""
    if a.target:
        return a.target
    return NO_NODE_FITS if (a.namespace, a.pod) in no_fit else NOT_RECREATED


def grace_cell(a: Action) -> str:
    from kubectl_evict.plan import number
    if a.type not in POD_ACTIONS:
        return ""
    if a.force:
        return "0 (force)"
    return "pod's own" if a.grace_period_seconds is None else "%ss" % number(a.grace_period_seconds)


def entry_object(e: Entry) -> str:
    return "%s/%s" % (e.namespace, e.pod) if e.pod else "node/" + e.node


# --- header and summary ---------------------------------------------------------------------------------

def summary_line(plan: Plan) -> str:
    names = [("cordon", "cordon", "cordons"), ("taint", "taint", "taints"), ("untaint", "untaint", "untaints"),
             ("label", "label", "labels"), ("unlabel", "label removal", "label removals"),
             ("evict", "eviction", "evictions"), ("delete", "deletion", "deletions"), ("kill", "kill", "kills"),
             ("detach", "detach", "detaches")]
    counts = {t: 0 for t, _, _ in names}
    nodes = set()
    last = 0.0
    for a in plan.actions:
        counts[a.type] += 1
        if a.node:
            nodes.add(a.node)
        last = max(last, float(a.at))
    parts = ["%d %s" % (counts[t], one if counts[t] == 1 else many) for t, one, many in names if counts[t]]
    head = ", ".join(parts) if parts else "nothing to do"
    if parts:
        head += " on %d node%s" % (len(nodes), "" if len(nodes) == 1 else "s")
        if last > 0:
            head += " over %s" % format_seconds(last)
    tail = []
    # a shortfall names a pod (its replacement has nowhere to go or never starts) or a whole node
    # (pressure that never clears), as the verdict line counts them
    short = sum(1 for e in plan.shortfall if e.pod)
    if short:
        tail.append("%d replacement%s without a node" % (short, "" if short == 1 else "s"))
    pressed = len(plan.shortfall) - short
    if pressed:
        tail.append("%s under pressure" % (plural(pressed, "node") + (" stays" if pressed == 1 else " stay")))
    tail.append("%d blocked" % len(plan.blocked))
    tail.append("%d skipped" % len(plan.skipped))
    return "%s; %s" % (head, "; ".join(tail))


def plan_kind_line(plan: Plan) -> str:
    """Which kind of plan this is: the operator's (apply can carry out its `by: user` actions) or a
    forecast of what Kubernetes does by itself (nothing to apply)."""
    mine = sum(1 for a in plan.actions if a.by == "user")
    others = len(plan.actions) - mine
    if nothing_to_do(plan):
        text = "PLAN (%s): no action; apply has nothing to send" % plan.command
    elif is_forecast(plan):
        text = "FORECAST (%s): what Kubernetes does by itself; nothing here is applied" % plan.command
    else:
        text = "PLAN (%s): %d action%s by you (what apply carries out)" % (plan.command, mine, "" if mine == 1 else "s")
        if others:
            text += ", %d forecast%s of what Kubernetes then does by itself" % (others, "" if others == 1 else "s")
    if plan.version:
        text += "; defaults of Kubernetes %s" % (
            plan.version + (" (from %s)" % plan.version_source if plan.version_source != "default"
                            else " (newest modelled: the snapshot records no version)"))
    return text


def cluster_text(plan: Plan, source: str = "") -> str:
    """Which cluster was planned: its context (and server), else the files it came from."""
    if plan.context and plan.server:
        return "context %s (%s)" % (plan.context, plan.server)
    if plan.context:
        return "context " + plan.context
    if plan.server:
        return "server " + plan.server
    return source or "unnamed snapshot"


def where_when_line(plan: Plan, source: str = "") -> str:
    """The header's second line: which cluster, as of when."""
    return "cluster: %s; now: %s" % (cluster_text(plan, source), format_time(plan.now))


# --- verdicts ------------------------------------------------------------------------------------------

def at_risk(plan: Plan) -> List[Workload]:
    """Workloads that lose ready replicas at some point: outages (0 ready) first, then by name."""
    risky = [w for w in plan.workloads if w.ready_min < w.ready or w.ready_after < w.ready]
    return sorted(risky, key=lambda w: (w.ready_min > 0, w.ready_after >= w.ready, w.ref))


def verdict(plan: Plan) -> Tuple[str, str]:
    """(WORD, sentence): the one-line answer, matching the exit code (3 BLOCKED, 4 SHORTFALL,
    5 INCOMPLETE, 0 OK). Whatever the code, it names the kinds the input lacks (the warnings
    say what each one leaves unchecked)."""
    code = exit_code(plan)
    outages = sum(1 for w in plan.workloads if w.ready_min == 0 and w.ready > 0)
    tail = ""
    if outages:
        tail = "; %s at 0 ready replicas" % plural(outages, "workload")
    if plan.incomplete:
        tail += "; %s" % incomplete_clause(plan)
    if plan.extra.get("verdict"):      # a rule's own one-line answer (upgrade: how long, where it stalls)
        return {3: "BLOCKED", 4: "SHORTFALL", 5: "INCOMPLETE"}.get(code, "OK"), str(plan.extra["verdict"]) + tail
    if code == 3:
        nodes = sorted({e.node for e in plan.blocked if e.node})
        where = ", ".join(nodes[:3]) + (" and %s" % plural(len(nodes) - 3, "more node") if len(nodes) > 3 else "")
        return "BLOCKED", "it will not finish: %s on %s%s" % (plural(len(plan.blocked), "blocked pod"), where or "-",
                                                              tail)
    if code == 4:
        pods = sum(1 for e in plan.shortfall if e.pod)
        nodes = sum(1 for e in plan.shortfall if not e.pod)
        what = []
        if pods:
            what.append("%s nowhere to go or never start%s" % (
                plural(pods, "replacement") + (" has" if pods == 1 else " have"), "s" if pods == 1 else ""))
        if nodes:
            what.append("%s under pressure" % (plural(nodes, "node") + (" stays" if nodes == 1 else " stay")))
        return "SHORTFALL", "it happens, but %s%s" % (" and ".join(what), tail)
    if code == 5:
        # no action found among what the input shows, which is not "nothing happens"
        return "INCOMPLETE", ("nothing happens to what the input shows" if not plan.actions else
                              "nothing is blocked and no replacement lacks a node") + tail
    if not plan.actions:
        return "OK", "nothing happens" + tail
    return "OK", "nothing is blocked and no replacement lacks a node" + tail


def incomplete_clause(plan: Plan) -> str:
    """What the verdict cannot vouch for: the kinds the input does not hold."""
    kinds = [e.kind for e in plan.incomplete]
    return "not checked: the input holds no %s" % _and_list(kinds)


def _and_list(words: Sequence[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return "%s and %s" % (", ".join(words[:-1]), words[-1])


def verdict_line(plan: Plan) -> str:
    word, sentence = verdict(plan)
    return "VERDICT: %s (exit %d): %s" % (word, exit_code(plan), sentence)


_NODE_NOTE = re.compile(r"node/([^\s:]+): (.*)\Z", re.S)


def node_verdicts(plan: Plan) -> List[Tuple[str, str]]:
    """(node, verdict) pairs: the rules' per-node notes (`node/NAME: ...`), in their order, with
    their indented continuation lines (shutdown phases, the OOM order) joined on."""
    out: List[Tuple[str, str]] = []
    last_was_node = False
    for n in plan.notes:
        m = _NODE_NOTE.match(n)
        if m:
            out.append((m.group(1), m.group(2)))
            last_was_node = True
        elif n.startswith(" ") and last_was_node:
            node, text = out[-1]
            out[-1] = (node, "%s; %s" % (text.rstrip(":"), n.strip()))
        else:
            last_was_node = False
    return out


def other_notes(plan: Plan) -> List[str]:
    """Notes that are not per-node verdicts (settings, zones, per-pod remarks), in their order."""
    out: List[str] = []
    last_was_node = False
    for n in plan.notes:
        if _NODE_NOTE.match(n):
            last_was_node = True
        elif n.startswith(" ") and last_was_node:
            continue
        else:
            last_was_node = False
            out.append(n)
    return out


def workload_low(w: Workload) -> str:
    return "%d at %s" % (w.ready_min, format_offset(w.ready_min_at))


def workload_state(w: Workload) -> str:
    if w.ready_min == 0 and w.ready > 0:
        return "OUTAGE"
    if w.ready_after < w.ready:
        return "short"
    return ""


# --- warnings said once ---------------------------------------------------------------------------------

_REF = r"(?<![\w./-])(?!node/)[a-z0-9][-a-z0-9.]*/[a-z0-9][-a-z0-9.]*"
_REFS = re.compile(r"%s(?:, %s)*" % (_REF, _REF))
_ONE_REF = re.compile(_REF)


def counted_warnings(warnings: Sequence[str], names: int = 3) -> List[str]:
    """Each warning once. Warnings that differ only in the pods or workloads they name
    (`namespace/name`, or a list of them) become one line naming the first `names` of them (all
    when `names` is 0) and saying how many times it was said; exact repeats are counted too."""
    first: Dict[str, str] = {}
    refs: Dict[str, List[str]] = {}
    counts: Dict[str, int] = {}
    for w in warnings:
        key = _REFS.sub("\x00", w)
        if key not in first:
            first[key], refs[key], counts[key] = w, [], 0
        counts[key] += 1
        seen = set(refs[key])
        for r in _ONE_REF.findall(w):
            if r not in seen:
                seen.add(r)
                refs[key].append(r)
    out: List[str] = []
    for key, w in first.items():
        n = counts[key]
        if n == 1:
            out.append(w)
            continue
        listed = refs[key]
        if key.count("\x00") != 1 or len(listed) <= 1:
            out.append("%s (%d times)" % (w, n))
            continue
        shown = listed if not names or len(listed) <= names else listed[:names]
        more = len(listed) - len(shown)
        out.append("%s (%d times)" % (key.replace("\x00", ", ".join(shown) + (" and %d more" % more if more else "")),
                                      n))
    return out


# --- fix hints (Markdown's blockers) ------------------------------------------------------------------

_WORKLOAD_IN_REASON = re.compile(r"\b(Deployment|StatefulSet|ReplicaSet|ReplicationController) "
                                 r"[a-z0-9][-a-z0-9.]*/[a-z0-9][-a-z0-9.]*")
_PDB_IN_REASON = re.compile(r"\(PDB ([^)\s]+)\)|PDB ([a-z0-9][-a-z0-9.]*/[a-z0-9][-a-z0-9.]*)")


def fix_hint(plan: Plan, e: Entry) -> str:
    """What would let the blocked or short pod go: from its code, the PDB state and workloads."""
    m = _PDB_IN_REASON.search(e.reason)
    pdb = (m.group(1) or m.group(2)) if m else ""
    if e.code == "pdb-budget" and pdb:
        budget = _budget(plan, pdb)
        refs = [w.ref for w in plan.workloads if w.pdb == pdb]
        named = _WORKLOAD_IN_REASON.search(e.reason)
        ref = refs[0] if refs else (named.group(0) if named else "")
        allowed = budget.get("disruptionsAllowed", 0) if budget else 0
        text = "PDB %s allows %d disruption%s" % (pdb, allowed, "" if allowed == 1 else "s")
        if ref and budget and budget.get("desiredHealthy") is not None:
            text += ": scale %s to %d replicas, or relax the PDB" % (ref, int(budget["desiredHealthy"]) + 1)
        else:
            text += ": relax it, or add ready replicas to the pods it selects"
        return text
    hints = {
        "pdb-budget": "the PodDisruptionBudget allows no disruption: add ready replicas or relax it",
        "pdb-multiple": "make exactly one PodDisruptionBudget select the pod",
        "node-unreachable": "once the node is really off, add the node.kubernetes.io/out-of-service:NoExecute "
                            "taint (or force-delete the pod)",
        "nowhere-to-move": "add a node the pod fits on, or leave it running",
        "no-node-fits": "add capacity the pod fits on, or relax its requests, affinity or tolerations",
        "waits-for-old-pod": "once the node is really off, add the node.kubernetes.io/out-of-service:NoExecute "
                             "taint so the old pod is removed",
        "ordered-ready": "its lower ordinals must be Ready first (podManagementPolicy: Parallel avoids the wait)",
        "threshold-persists": "free memory or disk outside the pods, or raise the eviction threshold",
        "job-failed": "raise the Job's backoffLimit, or add a podFailurePolicy rule that Ignores the "
                      "DisruptionTarget condition",
        "rejected-by-kubelet": "drop the pod's toleration of the stopped node's taint (an operator: Exists toleration "
                               "with no key tolerates every taint)",
    }
    if e.code == "drain-filter":
        for flag in ("--force", "--delete-emptydir-data", "--ignore-daemonsets"):
            if flag in e.reason:
                return "drain with %s if that is acceptable" % flag
        if "DaemonSet" in e.reason:
            return "drain with --ignore-daemonsets"
        if "emptyDir" in e.reason or "local storage" in e.reason:
            return "drain with --delete-emptydir-data if its data may be lost"
        if "controller" in e.reason:
            return "drain with --force if the pod may be deleted for good"
        return "see the reason: a drain filter refuses the pod"
    return hints.get(e.code, "")


def _budget(plan: Plan, ref: str) -> Optional[dict]:
    ns, _, name = ref.partition("/")
    for b in plan.extra.get("budgets", ()) or ():
        if b.get("namespace") == ns and b.get("name") == name:
            return dict(b)
    return None


# --- fitting text into a width ---------------------------------------------------------------------------

def trim(text: str, width: int, ellipsis: str = ELLIPSIS) -> str:
    """`text` in at most `width` characters, its end replaced by an ellipsis when cut."""
    if len(text) <= width:
        return text
    if width <= len(ellipsis):
        return text[:width]
    return text[:width - len(ellipsis)].rstrip() + ellipsis


def trim_middle(text: str, width: int, ellipsis: str = ELLIPSIS) -> str:
    """`text` cut in the middle: names keep their namespace and their unique suffix."""
    if len(text) <= width:
        return text
    if width <= len(ellipsis) + 2:
        return text[:width]
    keep = width - len(ellipsis)
    head = (keep + 1) // 2
    return text[:head] + ellipsis + text[len(text) - (keep - head):]


def wrap(text: str, width: int) -> List[str]:
    """Greedy word wrap; words longer than the width are split."""
    import textwrap
    if width < 1:
        return [text]
    return textwrap.wrap(text, width=width, break_long_words=True, break_on_hyphens=False) or [""]
