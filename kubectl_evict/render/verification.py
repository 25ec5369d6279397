"""A verification as people and scripts read it: a table (verdict first, then each difference
with its evidence, then the rest), Markdown for a change ticket or post-incident review, and the
contract's `PlanVerification` document for `-o json` / `-o yaml`. Pure: width and encoding come in.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from kubectl_evict.apply.document import describe
from kubectl_evict.plan import Action, Workload
from kubectl_evict.render.document import action_dict, entry_dict, to_json, to_yaml, workload_dict
from kubectl_evict.render.markdown import code, table
from kubectl_evict.render.table import layout
from kubectl_evict.timeutil import format_time
from kubectl_evict.verify.model import (AS_PLANNED, DIFFERS, PENDING, STATUSES, UNKNOWN, Check, Evidence,
                                        Verification, exit_code)

API_VERSION = "evictplan/v1alpha1"
KIND = "PlanVerification"
FORMATS = ("table", "wide", "json", "yaml", "markdown")
# the plan entry's identifying fields, repeated at the top of each verification entry
IDENTITY = ("type", "kind", "namespace", "name", "pod", "uid", "node", "key", "value", "effect", "volumeAttachment",
            "code")
HEADINGS = {DIFFERS: "DIFFERS", PENDING: "PENDING", UNKNOWN: "UNKNOWN", AS_PLANNED: "AS PLANNED"}


def subject(c: Check) -> str:
    """The plan entry in a few words: `evict pod default/web-1 on n1`, `Deployment shop/web`."""
    item = c.item
    if isinstance(item, Action):
        return describe(item)
    if isinstance(item, Workload):
        return item.ref
    kind = "blocked" if c.section == "blocked" else "shortfall"
    if not item.pod:
        return "%s node %s (%s)" % (kind, item.node, item.code)
    return "%s pod %s/%s on %s (%s)" % (kind, item.namespace, item.pod, item.node, item.code)


def verdict_line(v: Verification) -> str:
    """`as planned: 41 of 44; differs: 2; pending: 1` (statuses with none are left out)."""
    parts = ["as planned: %d of %d" % (v.count(AS_PLANNED), len(v.checks))]
    parts += ["%s: %d" % (s, v.count(s)) for s in (DIFFERS, PENDING, UNKNOWN) if v.count(s)]
    return "; ".join(parts)


def _cluster(context: str, server: str) -> str:
    if context and server:
        return "context %s (%s)" % (context, server)
    return "context %s" % context if context else (server or "an unnamed cluster")


def header_lines(v: Verification) -> List[str]:
    out = ["Verification of the %s plan made %s for %s, against %s as read at %s." % (
        v.command, format_time(v.plan_now), _cluster(v.plan_context, v.plan_server), _cluster(v.context, v.server),
        format_time(v.verified_at))]
    if v.anchor is not None:
        out.append("The plan's +0s is %s (%s)." % (format_time(v.anchor), v.anchor_source))
    return out


def _evidence_line(e: Evidence) -> str:
    when = format_time(e.time) if e.time is not None else "now"
    who = " (%s)" % e.by if e.by else ""
    return "%s  %s  %s%s: %s" % (when, e.object, e.reason, who, e.text)


def to_table(v: Verification, *, width: Optional[int] = None, wide: bool = False) -> str:
    out = [verdict_line(v)] + header_lines(v) + [""]
    for status in (DIFFERS, PENDING, UNKNOWN):
        checks = [c for c in v.checks if c.status == status]
        if not checks:
            continue
        out.append("%s (%d)" % (HEADINGS[status], len(checks)))
        for c in checks:
            out.append("%s  %s" % (c.ref, subject(c)))
            out.append("    planned:  %s" % c.planned)
            if c.differences:
                out.append("    %s %s" % ("instead: " if status == DIFFERS else "status:  ", "; ".join(c.differences)))
            if c.observed != "; ".join(c.differences):
                out.append("    observed: %s" % c.observed)
            for e in c.evidence:
                out.append("      " + _evidence_line(e))
        out.append("")
    rest = [c for c in v.checks if c.status == AS_PLANNED]
    if rest:
        out.append("%s (%d)" % (HEADINGS[AS_PLANNED], len(rest)))
        out += layout(["ENTRY", "WHAT", "OBSERVED"], [[c.ref, subject(c), c.observed] for c in rest],
                      None if wide else width)
        if wide:
            for c in rest:
                for e in c.evidence:
                    out.append("  %s  %s" % (c.ref, _evidence_line(e)))
        out.append("")
    for w in v.warnings:
        out.append("warning: %s" % w)
    return "\n".join(out).rstrip("\n") + "\n"


def to_markdown(v: Verification) -> str:
    word = {0: "as planned", 3: "differs", 4: "pending"}[exit_code(v)]
    out = ["### evictplan verify: %s" % word, "",
           "**%s** (exit %d). %s." % (verdict_line(v), exit_code(v), " ".join(header_lines(v)).rstrip("."))]
    for status in (DIFFERS, PENDING, UNKNOWN):
        checks = [c for c in v.checks if c.status == status]
        if not checks:
            continue
        out += ["", "#### %s (%d)" % (status.capitalize(), len(checks)), ""]
        for c in checks:
            out.append("- **%s** `%s`: %s" % (subject(c), c.ref, "; ".join(c.differences) or c.observed))
            out.append("  - planned: %s" % c.planned)
            if c.observed != "; ".join(c.differences):
                out.append("  - observed: %s" % c.observed)
            for e in c.evidence:
                out.append("  - %s" % code(_evidence_line(e)))
    rest = [c for c in v.checks if c.status == AS_PLANNED]
    if rest:
        out += ["", "<details><summary>As planned (%d)</summary>" % len(rest), ""]
        out += table(["Entry", "What", "Observed"], [[code(c.ref), subject(c), c.observed] for c in rest])
        out += ["", "</details>"]
    if v.warnings:
        out += ["", "#### Warnings", ""] + ["- %s" % w for w in v.warnings]
    return "\n".join(out) + "\n"


def plan_entry(c: Check) -> Dict[str, Any]:
    """The plan's own entry, as the plan document spells it."""
    if isinstance(c.item, Action):
        return action_dict(c.item)
    if isinstance(c.item, Workload):
        return workload_dict(c.item)
    return entry_dict(c.item)


def verification_document(v: Verification) -> Dict[str, Any]:
    """The contract's PlanVerification: `summary` counts per status and one entry per plan entry."""
    summary: Dict[str, int] = {"total": len(v.checks)}
    summary.update((s, v.count(s)) for s in STATUSES)
    entries = []
    for c in v.checks:
        planned = plan_entry(c)
        entry: Dict[str, Any] = {"ref": c.ref, "section": c.section}
        entry.update((k, planned[k]) for k in IDENTITY if k in planned)   # `select(.pod == "x")` works
        entries.append(dict(entry, **{
            "subject": subject(c), "status": c.status,
            "planned": c.planned, "observed": c.observed, "differences": list(c.differences),
            "evidence": [{"time": format_time(e.time) if e.time is not None else None, "object": e.object,
                          "reason": e.reason, "by": e.by, "text": e.text} for e in c.evidence],
            "facts": dict(c.facts), "plan": planned}))
    return {
        "apiVersion": API_VERSION, "kind": KIND,
        "plan": {"command": v.command, "now": format_time(v.plan_now),
                 "cluster": {"context": v.plan_context, "server": v.plan_server}},
        "cluster": {"context": v.context, "server": v.server},
        "verifiedAt": format_time(v.verified_at),
        "since": format_time(v.since) if v.since is not None else None,
        "anchor": format_time(v.anchor) if v.anchor is not None else None,
        "anchorSource": v.anchor_source,
        "verdict": verdict_line(v),
        "summary": summary,
        "entries": entries,
        "warnings": list(v.warnings),
    }


def render_verification(v: Verification, fmt: str, *, width: Optional[int] = None, ascii: bool = False) -> str:
    if fmt == "json":
        return to_json(verification_document(v), ascii=ascii)
    if fmt == "yaml":
        return to_yaml(verification_document(v), ascii=ascii)
    out = to_markdown(v) if fmt == "markdown" else to_table(v, width=width, wide=fmt == "wide")
    if ascii:
        from kubectl_evict.render.text import to_ascii
        out = to_ascii(out)
    return out
