"""`-o markdown`: the plan as GitHub-flavoured Markdown for pull-request comments, change reviews
and incident documents.

A one-paragraph verdict; a table of per-node verdicts and one of the workloads that lose ready
replicas; the blockers and shortfalls, each with a fix hint; the actions (and skipped pods) in
collapsible `<details>` blocks; the warnings. The exit code is the same as for every format, so a
CI job can post this and still fail on 3.
"""

from __future__ import annotations

from typing import List, Sequence

from kubectl_evict.plan import Plan, exit_code
from kubectl_evict.render import text as T
from kubectl_evict.timeutil import format_offset, format_time


def cell(text: str) -> str:
    """A table cell: pipes escaped, no line breaks."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").strip()


def code(text: str) -> str:
    return "`%s`" % text.replace("`", "'") if text else ""


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> List[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out.extend("| " + " | ".join(cell(c) for c in r) + " |" for r in rows)
    return out


def _paragraph(plan: Plan, source: str) -> str:
    word, sentence = T.verdict(plan)
    idle = T.nothing_to_do(plan)
    kind = "Forecast" if T.is_forecast(plan) and not idle else "Plan"
    parts = ["**%s (exit %d):** %s." % (word, exit_code(plan), sentence[0].upper() + sentence[1:]),
             "%s of `%s` on %s as of %s: %s." % (kind, plan.command, T.cluster_text(plan, source),
                                                 format_time(plan.now), T.summary_line(plan))]
    if idle:
        parts.append("It holds no action: apply has nothing to send.")
    elif T.is_forecast(plan):
        parts.append("Nothing here is the operator's to do: it is what Kubernetes does by itself.")
    if plan.version:
        parts.append("Defaults assumed: Kubernetes %s (%s)." % (
            plan.version, plan.version_source if plan.version_source != "default" else "newest modelled"))
    return " ".join(parts)


def to_markdown(plan: Plan, source: str = "") -> str:
    out: List[str] = ["### evictplan %s: %s" % (plan.command, T.verdict(plan)[0]), "", _paragraph(plan, source)]
    nodes = T.node_verdicts(plan)
    if nodes:
        out += ["", "#### Nodes", ""]
        out += table(["Node", "Verdict"], [[code(n), v] for n, v in nodes])
    zones = [z for z in plan.extra.get("zones", ()) or ()]
    if zones:
        out += ["", "#### Zones", ""]
        out += table(["Zone", "Nodes", "States"],
                     [[code(str(z.get("zone", ""))), str(z.get("nodes", "")),
                       " -> ".join("%s at %s (%s down)" % (st.get("state", ""), format_offset(st.get("at", 0)),
                                                          st.get("down", 0)) for st in z.get("states", ()))]
                      for z in zones])
    notes = T.other_notes(plan)
    if notes:
        out += [""] + ["- " + cell(n) for n in notes]
    risky = T.at_risk(plan)
    if risky:
        out += ["", "#### Workloads at risk", ""]
        out += table(["Workload", "Ready now", "Lowest", "At", "After", "PDB", ""],
                     [[code(w.ref), str(w.ready), str(w.ready_min), format_offset(w.ready_min_at), str(w.ready_after),
                       code(w.pdb), "**%s**" % T.workload_state(w) if T.workload_state(w) else ""] for w in risky])
    for title, entries in (("Blocked", plan.blocked), ("Shortfall", plan.shortfall)):
        if not entries:
            continue
        out += ["", "#### %s" % title, ""]
        for e in entries:
            hint = T.fix_hint(plan, e)
            line = "- %s on %s (%s): %s" % (code(T.entry_object(e)), code(e.node), code(e.code), cell(e.reason))
            if hint:
                line += "  \n  **Fix:** %s" % cell(hint)
            out.append(line)
    head = T.summary_line(plan).split(";")[0]
    out += ["", "<details><summary>%s%s</summary>" % (
        T.plural(len(plan.actions), "action"), " (%s)" % head if plan.actions else ""), ""]
    if plan.actions:
        no_fit = T.no_fit_pods(plan)
        out += table(["At", "Action", "Object", "Node", "Target", "By", "Reason"],
                     [[format_offset(a.at), a.type, code(T.action_object(a)), code(a.node),
                       code(T.target_cell(a, no_fit)), a.by, a.reason] for a in plan.actions])
    else:
        out.append("No actions.")
    out += ["", "</details>"]
    if plan.skipped:
        out += ["", "<details><summary>%s skipped</summary>" % T.plural(len(plan.skipped), "pod"), ""]
        out += table(["Pod", "Node", "Code", "Reason"],
                     [[code(T.entry_object(e)), code(e.node), code(e.code), e.reason] for e in plan.skipped])
        out += ["", "</details>"]
    warnings = T.counted_warnings(plan.warnings, names=0)
    if warnings:
        out += ["", "#### Warnings", ""]
        out += ["- " + cell(w) for w in warnings]
    return "\n".join(out) + "\n"
