"""The default view (`-o table`) and `-o wide`: verdict first, then what happens, in the terminal's
width.

Top to bottom: the header (command, kind of plan, cluster, now), the verdicts (overall, per node,
per workload that loses ready replicas), the actions, the blocked / shortfall / skipped pods, the
warnings (each once, with counts), one summary line. Tables fit `width` by the REASON column only:
it is cut with an ellipsis (blocked and shortfall reasons, however many, wrap instead: they are
what someone has to act on, fix hints included); when even that leaves it too narrow, the reason
moves onto its own indented line. Object names, nodes and states (OUTAGE) are never cut: a
name cut in the middle cannot be copied into the next command. `-o wide` never cuts and adds BY,
RULE, GRACE and CANDIDATES. Prose lines (notes, warnings) are never cut: a terminal wraps them
without harm, and scripts grep them whole.
"""

from __future__ import annotations

import re
from typing import List, Optional, Sequence

from kubectl_evict.plan import Plan
from kubectl_evict.render import text as T
from kubectl_evict.timeutil import format_offset

GAP = "  "
_POD_NOTE = re.compile(r"(?!node/)[a-z0-9][-a-z0-9.]*/[a-z0-9][-a-z0-9.]*: ")
MIN_REASON = 24          # below this the reason goes onto its own line
MIN_SHRINK = 16          # a `shrink` column is never cut below this
MAX_POD_NOTES = 5        # more notes about single pods than this are counted (wide lists them)
MAX_SKIPPED = 20         # more skipped pods than this are counted by code (wide lists them all)


def layout(headers: Sequence[str], rows: Sequence[Sequence[str]], width: Optional[int], *,
           wrap_last: bool = False, shrink: Optional[int] = None, ellipsis: str = T.ELLIPSIS,
           stack: bool = True) -> List[str]:
    """Rows as aligned columns. The last column is the flexible one: with a `width`, it is cut
    (or wrapped, `wrap_last`) to what is left; when less than MIN_REASON is left it goes onto its
    own indented line below the row, and then column `shrink` is cut in the middle if the row
    is still too wide. Without a `width` nothing is cut."""
    ncol = len(headers)
    widths = [max([len(headers[i])] + [len(r[i]) for r in rows]) for i in range(ncol)]
    fixed = sum(widths[:-1]) + len(GAP) * (ncol - 1)
    last_w = widths[-1]
    stacked = False
    if width is not None and fixed + last_w > width:
        if width - fixed >= MIN_REASON or not stack:
            last_w = max(width - fixed, len(headers[-1]))
            over = fixed + last_w - width
            if over > 0 and shrink is not None:
                widths[shrink] = max(MIN_SHRINK, widths[shrink] - over)
        else:
            stacked = True
            fixed_only = sum(widths[:-1]) + len(GAP) * (ncol - 2)
            if fixed_only > width and shrink is not None:
                widths[shrink] = max(MIN_SHRINK, widths[shrink] - (fixed_only - width))
    out: List[str] = []

    def line(cells: Sequence[str], last: bool = True) -> str:
        parts = []
        n = ncol if (last and not stacked) else ncol - 1
        for i in range(n):
            c = cells[i]
            if shrink is not None and i == shrink and len(c) > widths[i]:
                c = T.trim_middle(c, widths[i], ellipsis)
            parts.append(c if i == n - 1 else c.ljust(widths[i]))
        return GAP.join(parts).rstrip()

    if stacked:
        out.append(line(headers, last=False))
        out.append(" " * 4 + headers[-1])
    else:
        out.append(line(headers))
    indent = 4
    for r in rows:
        reason = r[-1]
        if not stacked:
            if width is None or len(reason) <= last_w:
                out.append(line(r))
            elif wrap_last:
                chunks = T.wrap(reason, last_w)
                out.append(line(list(r[:-1]) + [chunks[0]]))
                pad = " " * fixed
                out.extend(pad + c for c in chunks[1:])
            else:
                out.append(line(list(r[:-1]) + [T.trim(reason, last_w, ellipsis)]))
            continue
        out.append(line(r, last=False))
        if not reason:
            continue
        room = max(width - indent, 20) if width is not None else None
        if room is None or len(reason) <= room:
            out.append(" " * indent + reason)
        elif wrap_last:
            out.extend(" " * indent + c for c in T.wrap(reason, room))
        else:
            out.append(" " * indent + T.trim(reason, room, ellipsis))
    return out


def _skipped_by_code(entries: Sequence) -> List[List[str]]:
    groups: dict = {}
    for e in entries:
        g = groups.setdefault(e.code, [0, set(), e.reason])
        g[0] += 1
        g[1].add(e.node)
    return [[code, str(n), str(len(nodes)), reason] for code, (n, nodes, reason) in groups.items()]


def to_table(plan: Plan, wide: bool = False, width: Optional[int] = 120, source: str = "",
             ascii: bool = False) -> str:
    """The table view. `width` None: no fitting (wide always is)."""
    ell = "..." if ascii else T.ELLIPSIS
    if wide:
        width = None
    out: List[str] = [T.plan_kind_line(plan), T.where_when_line(plan, source), ""]
    # the verdicts
    out.append(T.verdict_line(plan))
    pod_notes = [n for n in plan.notes if _POD_NOTE.match(n)]
    out.extend("  " + note for note in plan.notes if not _POD_NOTE.match(note))
    if wide or len(pod_notes) <= MAX_POD_NOTES:
        out.extend("  " + note for note in pod_notes)
    else:
        out.append("  ... and %d notes about single pods (-o wide lists them)" % len(pod_notes))
    risky = T.at_risk(plan)
    if risky:
        out.append("")
        headers = ["WORKLOAD", "READY", "LOWEST", "AFTER"] + (["PDB"] if wide else []) + ["STATE"]
        rows = [[w.ref, str(w.ready), T.workload_low(w), str(w.ready_after)] + ([w.pdb] if wide else [])
                + [T.workload_state(w)] for w in risky]
        out.extend(layout(headers, rows, None))   # names and states are never cut: nothing to wrap here
    # the actions
    out.append("")
    no_fit = T.no_fit_pods(plan)
    if plan.actions:
        headers = ["AT", "ACTION", "OBJECT", "NODE", "TARGET"]
        if wide:
            headers += ["BY", "RULE", "GRACE", "CANDIDATES"]
        headers.append("REASON")
        rows = []
        for a in plan.actions:
            row = [format_offset(a.at), a.type.upper(), T.action_object(a), a.node, T.target_cell(a, no_fit)]
            if wide:
                row += [a.by, a.rule, T.grace_cell(a), ",".join(a.candidates)]
            row.append(a.reason)
            rows.append(row)
        if not wide and not any(r[4] for r in rows):   # nothing is replaced anywhere (kills, taints)
            headers.pop(4)
            rows = [r[:4] + r[5:] for r in rows]
        out.extend(layout(headers, rows, width, ellipsis=ell))
    else:
        out.append("No actions.")
    # blocked, shortfall, skipped
    for title, entries, wrap_reason in (("BLOCKED", plan.blocked, True), ("SHORTFALL", plan.shortfall, True),
                                        ("SKIPPED", plan.skipped, False)):
        if not entries:
            continue
        out.append("")
        if title == "SKIPPED" and not wide and len(entries) > MAX_SKIPPED:
            out.append("SKIPPED: %s, by code (-o wide lists each pod)" % T.plural(len(entries), "pod"))
            out.extend(layout(["CODE", "PODS", "NODES", "REASON (first)"], _skipped_by_code(entries), width,
                              ellipsis=ell))
            continue
        out.append(title)
        rows = [[T.entry_object(e), e.node, e.code, e.reason] for e in entries]
        out.extend(layout(["POD", "NODE", "CODE", "REASON"], rows, width, wrap_last=wrap_reason, ellipsis=ell))
    warnings = T.counted_warnings(plan.warnings, names=0 if wide else 3)
    if warnings:
        out.append("")
        out.extend("Warning: " + w for w in warnings)
    out.append("")
    out.append(T.summary_line(plan))
    return "\n".join(out) + "\n"
