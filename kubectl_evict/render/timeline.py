"""`-o timeline`: the plan as an ASCII Gantt chart in the terminal's width.

One row per node the plan acts on, per zone whose state the controller tracks (`zones` in the
controller's plan), and per workload that loses ready replicas. Time runs left to right from
`now`; one column is a "nice" step (1s, 2s, 5s, 10s, 15s, 30s, 1m, ...) picked so the whole plan
fits. A cell holds what happens in its step; pod removals in the same step are counted (2-9, `*`
for ten or more), so drain waves show as separate marks. Workload rows show the ready replicas:
`=` all, `-` fewer, `!` none (an outage window); the label says ready now > lowest > after.
A plan that adds and removes nodes (upgrade: `newNodes`, `nodes[].end`) shows new nodes joining
(`+`) and old ones removed (`X`, nothing after).
"""

from __future__ import annotations

import math
from typing import Dict, List, Optional, Sequence, Tuple

from kubectl_evict.plan import POD_ACTIONS, Plan, Workload
from kubectl_evict.render import text as T
from kubectl_evict.timeutil import format_offset, format_seconds, format_time

STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)
TICK = 10                                      # columns between axis labels

POD_MARK = {"evict": "e", "delete": "d", "kill": "k"}
OTHER_MARK = {"cordon": "C", "taint": "T", "untaint": "U", "label": "L", "unlabel": "L", "detach": "v"}
ZONE_MARK = {"Normal": ".", "PartialDisruption": "p", "FullDisruption": "F"}
SHORT_KIND = {"Deployment": "deploy", "StatefulSet": "sts", "DaemonSet": "ds", "ReplicaSet": "rs", "Job": "job",
              "ReplicationController": "rc"}

LEGEND = {
    "C": "cordon", "T": "taint", "U": "untaint", "L": "label change", "v": "volume detach",
    "e": "1 pod evicted", "d": "1 pod deleted", "k": "1 pod killed", "2-9": "that many pods removed",
    "*": "10 or more pods removed", "+": "node joins", "X": "node removed",
    "-": "node cordoned / NoSchedule (no new pods)", "~": "node NoExecute-tainted",
    ".": "zone Normal", "p": "zone PartialDisruption", "F": "zone FullDisruption",
    "=": "all ready", "_": "fewer ready", "!": "none ready (outage)",
}


def _step(span: float, cols: int) -> float:
    for s in STEPS:
        if span / s <= cols - 1:
            return float(s)
    return float(math.ceil(span / (cols - 1)))


def _workload_label(w: Workload) -> str:
    return "%s %s/%s %d>%d>%d" % (SHORT_KIND.get(w.kind, w.kind), w.namespace, w.name, w.ready, w.ready_min,
                                  w.ready_after)


def _level_at(w: Workload, t: float) -> int:
    level = w.ready
    for at, ready in w.levels:
        if at <= t:
            level = ready
        else:
            break
    return level


def _workload_cells(w: Workload, cols: int, step: float) -> str:
    full = w.ready
    out = []
    for i in range(cols):
        start, end = i * step, (i + 1) * step
        low = _level_at(w, start)
        for at, ready in w.levels:
            if start <= at < end:
                low = min(low, ready)
        out.append("!" if low <= 0 else ("=" if low >= full else "_"))
    return "".join(out)


def _zone_cells(states: Sequence[dict], cols: int, step: float) -> str:
    rank = {"Normal": 0, "PartialDisruption": 1, "FullDisruption": 2}
    out = []
    for i in range(cols):
        start, end = i * step, (i + 1) * step
        state = "Normal"
        worst = -1
        for s in states:
            at = float(s.get("at", 0))
            if at <= start:
                state = s.get("state", "Normal")
        worst = rank.get(state, 0)
        for s in states:
            at = float(s.get("at", 0))
            if start < at < end:
                worst = max(worst, rank.get(s.get("state", "Normal"), 0))
        name = [k for k, v in rank.items() if v == worst][0]
        out.append(ZONE_MARK.get(name, "?"))
    return "".join(out)


def _col(at: float, cols: int, step: float) -> int:
    return min(int(float(at) // step), cols - 1)


def _lifecycle(cells: str, joins: Optional[float], removed: Optional[float], cols: int, step: float) -> str:
    """A node's row with its joining (`+`, nothing before) and removal (`X`, nothing after)."""
    out = list(cells.ljust(cols))
    if joins is not None:
        j = _col(joins, cols, step)
        out[:j] = [" "] * j
        if out[j] == " ":
            out[j] = "+"
    if removed is not None:
        r = _col(removed, cols, step)
        out[r + 1:] = [" "] * (cols - r - 1)
        if out[r] in " -~":
            out[r] = "X"
    return "".join(out)


def _node_cells(actions: Sequence, cols: int, step: float) -> str:
    cells = [" "] * cols
    removals: Dict[int, List[str]] = {}
    others: Dict[int, str] = {}
    state_from: List[Tuple[int, str]] = []
    for a in actions:
        i = min(int(float(a.at) // step), cols - 1)
        if a.type in POD_ACTIONS:
            removals.setdefault(i, []).append(POD_MARK[a.type])
        else:
            others.setdefault(i, OTHER_MARK.get(a.type, "?"))
            if a.type == "cordon" or (a.type == "taint" and a.effect in ("NoSchedule", "PreferNoSchedule")):
                state_from.append((i, "-"))
            elif a.type == "taint" and a.effect == "NoExecute":
                state_from.append((i, "~"))
    # the background: the node's state after cordons and taints
    for i in range(cols):
        bg = " "
        for j, mark in state_from:
            if j < i and (mark != "-" or bg != "~"):
                bg = mark
        cells[i] = bg
    for i, mark in others.items():
        cells[i] = mark
    for i, marks in removals.items():
        n = len(marks)
        cells[i] = marks[0] if n == 1 else (str(n) if n < 10 else "*")
    return "".join(cells)


def to_timeline(plan: Plan, width: int = 120, source: str = "", ascii: bool = False) -> str:
    """The chart in `width` columns: header and verdict, axis, rows, scale and legend, summary."""
    by_node: Dict[str, List] = {}
    for a in plan.actions:
        if a.node:
            by_node.setdefault(a.node, []).append(a)
    joins = {str(n["node"]): float(n["joins"]) for n in plan.extra.get("newNodes", ()) or ()}
    removed = {str(n["node"]): float(n["end"]) for n in plan.extra.get("nodes", ()) or ()
               if n.get("outcome") in ("upgraded", "forced") and n.get("end") is not None}
    # one row per node of an upgrade, an old node with no action of its own (already cordoned,
    # no pods) included: it is still removed
    for name in list(joins) + [str(n["node"]) for n in plan.extra.get("nodes", ()) or ()]:
        by_node.setdefault(name, [])
    nodes = sorted(by_node, key=lambda n: (min([float(a.at) for a in by_node[n]] + [joins.get(n, math.inf),
                                                                                   removed.get(n, math.inf)]), n))
    zones = [dict(z) for z in plan.extra.get("zones", ()) or ()]
    risky = T.at_risk(plan)
    times = [float(a.at) for a in plan.actions]
    times += [float(at) for w in risky for at, _ in w.levels]
    times += [float(s.get("at", 0)) for z in zones for s in z.get("states", ())]
    times += list(joins.values()) + list(removed.values())
    last = max(times) if times else 0.0
    span = max(last * 1.05, 10.0)

    out: List[str] = [T.plan_kind_line(plan), T.where_when_line(plan, source), T.verdict_line(plan), ""]
    labels: List[str] = ["node/" + n for n in nodes] + ["zone " + str(z.get("zone", "")) for z in zones] + \
        [_workload_label(w) for w in risky]
    if not labels:
        out.append("Nothing happens: no node, zone or workload changes.")
        out.append("")
        out.append(T.summary_line(plan))
        return "\n".join(out) + "\n"
    label_w = min(max(len(x) for x in labels), max(16, width // 3))
    cols = max(width - label_w - 2, 10)
    step = _step(span, cols)
    cols = min(cols, int(math.ceil(span / step)) + 1)
    # the axis: a label every TICK columns, and a ruler
    axis = [" "] * (cols + 12)
    ruler = []
    for i in range(cols):
        ruler.append("|" if i % TICK == 0 else ".")
        if i % TICK == 0:
            text = format_offset(i * step)
            if i + len(text) <= cols + 8:
                axis[i:i + len(text)] = list(text)
    pad = " " * (label_w + 2)
    out.append("%s%s" % (pad, "".join(axis).rstrip()))
    out.append("%s%s" % (pad, "".join(ruler)))
    used = set()

    def row(label: str, cells: str, end: bool = False) -> None:
        used.update(cells)
        ell = "..." if ascii else T.ELLIPSIS
        cut = T.trim(label, label_w, ell) if end else T.trim_middle(label, label_w, ell)
        out.append("%s  %s" % (cut.ljust(label_w), cells.rstrip()))

    for n in nodes:  # node names share their domain suffix: keep their unique start
        cells = _node_cells(by_node[n], cols, step)
        if n in joins or n in removed:
            cells = _lifecycle(cells, joins.get(n), removed.get(n), cols, step)
        row("node/" + n, cells, end=True)
    for z in zones:
        row("zone " + str(z.get("zone", "")), _zone_cells(z.get("states", ()), cols, step))
    for w in risky:
        row(_workload_label(w), _workload_cells(w, cols, step))
    out.append("")
    out.append("1 column = %s; the plan ends at %s (%s)" % (
        format_seconds(step), format_offset(last), format_time(plan.now + last)))
    marks = []
    for k, meaning in LEGEND.items():
        if k == "2-9":
            if any(c.isdigit() for c in used):
                marks.append("2-9 " + meaning)
        elif k in used:
            marks.append("%s %s" % (k, meaning))
    if any(w for w in risky):
        marks.append("workload label: ready now>lowest>after")
    out.extend(_legend_lines(marks, width))
    out.append("")
    out.append(T.summary_line(plan))
    return "\n".join(out) + "\n"


def _legend_lines(marks: List[str], width: int) -> List[str]:
    lines: List[str] = []
    current = "Legend:"
    for m in marks:
        piece = " " + m + ";"
        if len(current) + len(piece) > width and current != "Legend:":
            lines.append(current.rstrip(";"))
            current = "       "
        current += piece
    lines.append(current.rstrip(";"))
    return lines
