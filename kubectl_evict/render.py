"""Render a plan as a table (default), a wide table, JSON or YAML (the contract's document)."""

from __future__ import annotations

import json
from typing import Any, Dict, List

from kubectl_evict.plan import POD_ACTIONS, Action, Entry, Plan, Workload, is_forecast, number
from kubectl_evict.timeutil import format_offset, format_seconds, format_time

FORMATS = ("table", "wide", "json", "yaml")


def action_dict(a: Action) -> Dict[str, Any]:
    """One action as the plan contract spells it: per-type fields, in a fixed order."""
    d: Dict[str, Any] = {"type": a.type}
    if a.type in POD_ACTIONS:
        d.update(namespace=a.namespace, pod=a.pod, uid=a.uid, node=a.node, at=number(a.at),
                 gracePeriodSeconds=number(a.grace_period_seconds))
        if a.type == "evict" or a.has_target:
            d["target"] = a.target
            if a.candidates:
                d["candidates"] = list(a.candidates)
        if a.type == "delete":
            d["force"] = a.force
    elif a.type in ("label", "unlabel"):
        d.update(node=a.node, key=a.key)
        if a.type == "label":
            d["value"] = a.value
        if a.uid:
            d["uid"] = a.uid
        d.update(previous=a.previous, at=number(a.at))
    elif a.type in ("taint", "untaint"):
        d.update(node=a.node, key=a.key)
        if a.type == "taint" or a.value:
            d["value"] = a.value
        d.update(effect=a.effect, at=number(a.at))
    elif a.type == "detach":
        d.update(volumeAttachment=a.volume_attachment, node=a.node, at=number(a.at))
    else:
        d.update(node=a.node, at=number(a.at))
    d.update(by=a.by, rule=a.rule, reason=a.reason)
    return d


def _entry_dict(e: Entry) -> Dict[str, Any]:
    return {"namespace": e.namespace, "pod": e.pod, "node": e.node, "code": e.code, "reason": e.reason}


def workload_dict(w: Workload) -> Dict[str, Any]:
    d: Dict[str, Any] = {"kind": w.kind, "namespace": w.namespace, "name": w.name, "ready": w.ready,
                         "readyMin": w.ready_min, "readyMinAt": number(w.ready_min_at), "readyAfter": w.ready_after}
    if w.pdb:
        d["pdb"] = w.pdb
    return d


def plan_document(plan: Plan) -> Dict[str, Any]:
    doc: Dict[str, Any] = {
        "apiVersion": "evictplan/v1alpha1",
        "kind": "EvictionPlan",
        "command": plan.command,
        "now": format_time(plan.now),
        "actions": [action_dict(a) for a in plan.actions],
        "blocked": [_entry_dict(e) for e in plan.blocked],
        "shortfall": [_entry_dict(e) for e in plan.shortfall],
        "skipped": [_entry_dict(e) for e in plan.skipped],
        "workloads": [workload_dict(w) for w in plan.workloads],
        "warnings": list(plan.warnings),
        "forecast": is_forecast(plan),
    }
    if plan.version:
        doc["assumedVersion"] = {"version": plan.version, "source": plan.version_source}
    if plan.notes:
        doc["notes"] = list(plan.notes)
    if plan.context or plan.server:
        doc["cluster"] = {"context": plan.context, "server": plan.server}
    for k in sorted(plan.extra):
        doc[k] = _thaw(plan.extra[k])
    return doc


def _thaw(v: Any) -> Any:
    """Plain JSON values from pyrsistent ones. PMaps have no order, so keys are sorted: the same
    plan must print the same bytes under any PYTHONHASHSEED."""
    from pyrsistent import PMap, PVector
    if isinstance(v, (PMap, dict)):
        return {k: _thaw(v[k]) for k in sorted(v)}
    if isinstance(v, (PVector, list, tuple)):
        return [_thaw(x) for x in v]
    return v


def to_json(doc: Any) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def to_yaml(doc: Any) -> str:
    import yaml
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(doc, Dumper=dumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=4096)


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


def _grace_cell(a: Action) -> str:
    if a.type not in POD_ACTIONS:
        return ""
    if a.force:
        return "0 (force)"
    return "pod's own" if a.grace_period_seconds is None else "%ss" % number(a.grace_period_seconds)


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
    short = len(plan.shortfall)
    if short:
        tail.append("%d replacement%s without a node" % (short, "" if short == 1 else "s"))
    tail.append("%d blocked" % len(plan.blocked))
    tail.append("%d skipped" % len(plan.skipped))
    return "%s; %s" % (head, "; ".join(tail))


def plan_kind_line(plan: Plan) -> str:
    """Which kind of plan this is: the operator's (apply can carry out its `by: user` actions) or a
    forecast of what Kubernetes does by itself (nothing to apply)."""
    mine = sum(1 for a in plan.actions if a.by == "user")
    others = len(plan.actions) - mine
    if is_forecast(plan):
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


def to_table(plan: Plan, wide: bool = False) -> str:
    from tabulate import tabulate
    out: List[str] = [plan_kind_line(plan), ""]
    headers = ["AT", "ACTION", "NODE", "POD", "REASON"]
    if wide:
        headers += ["RULE", "GRACE", "TARGET"]
    rows = []
    for a in plan.actions:
        row = [format_offset(a.at), a.type.upper(), a.node, action_object(a), a.reason]
        if wide:
            target = ""
            if a.type == "evict" or a.has_target:
                target = a.target if a.target else "<none>"
            row += [a.rule, _grace_cell(a), target]
        rows.append(row)
    if rows:
        out.append(tabulate(rows, headers=headers, tablefmt="plain", disable_numparse=True))
    else:
        out.append("No actions.")
    for title, entries in (("BLOCKED", plan.blocked), ("SHORTFALL", plan.shortfall), ("SKIPPED", plan.skipped)):
        if entries:
            out.append("")
            out.append(title)
            out.append(tabulate([["%s/%s" % (e.namespace, e.pod) if e.pod else "node/" + e.node, e.node, e.code,
                                  e.reason] for e in entries],
                                headers=["POD", "NODE", "CODE", "REASON"], tablefmt="plain", disable_numparse=True))
    if plan.notes:
        out.append("")
        out.extend(plan.notes)
    if plan.warnings:
        out.append("")
        out.extend("Warning: " + w for w in plan.warnings)
    out.append("")
    out.append(summary_line(plan))
    return "\n".join(out) + "\n"


def render(plan: Plan, fmt: str) -> str:
    if fmt == "json":
        return to_json(plan_document(plan))
    if fmt == "yaml":
        return to_yaml(plan_document(plan))
    return to_table(plan, wide=(fmt == "wide"))
