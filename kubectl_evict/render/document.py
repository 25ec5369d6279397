"""The plan as the contract's document (`-o json` / `-o yaml`): per-type action fields in a fixed
order, keys sorted where pyrsistent maps have none, so the same plan prints the same bytes."""

from __future__ import annotations

import json
from typing import Any, Dict

from kubectl_evict.plan import POD_ACTIONS, Action, Entry, Plan, Workload, is_forecast, number
from kubectl_evict.timeutil import format_time

try:
    from msgspec.json import format as _format
except ImportError:  # pragma: no cover - the stdlib path indents in Python
    _format = None  # type: ignore[assignment]


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
            if a.replaced_at is not None:
                d["replacementAt"] = number(a.replaced_at)
        if a.type == "delete":
            d["force"] = a.force
        if a.owner is not None:
            d["owner"] = {"kind": a.owner[0], "name": a.owner[1], "uid": a.owner[2]}
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
        d["effect"] = a.effect
        if a.uid:
            d["uid"] = a.uid
        if a.previous_seen:
            d["previous"] = a.previous
        d["at"] = number(a.at)
    elif a.type == "detach":
        d.update(volumeAttachment=a.volume_attachment, node=a.node, at=number(a.at))
    else:
        d.update(node=a.node, at=number(a.at))
    if a.batch is not None:
        d["batch"] = a.batch
    d.update(by=a.by, rule=a.rule, reason=a.reason)
    return d


def entry_dict(e: Entry) -> Dict[str, Any]:
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
        "blocked": [entry_dict(e) for e in plan.blocked],
        "shortfall": [entry_dict(e) for e in plan.shortfall],
        "skipped": [entry_dict(e) for e in plan.skipped],
        "workloads": [workload_dict(w) for w in plan.workloads],
        "warnings": list(plan.warnings),
        "incomplete": [{"kind": e.kind, "effect": e.effect} for e in plan.incomplete],
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


def to_json(doc: Any, ascii: bool = False) -> str:
    """JSON; with `ascii` (stdout cannot encode more) non-ASCII characters become \\u escapes,
    which every JSON reader decodes back to the same text.

    The text is `json.dumps(doc, indent=2)`'s, byte for byte. With an indent the stdlib encodes
    in Python (about 0.2 s for a 10 MB plan); without one it uses its C encoder, and msgspec
    (when installed) re-indents that text, copying every number and string token as written, so
    float and escape spellings stay the stdlib's. Text msgspec does not take as JSON (NaN,
    Infinity) takes the stdlib's indenting path."""
    if _format is not None:
        try:
            return _format(json.dumps(doc, ensure_ascii=ascii), indent=2) + "\n"
        except ValueError:        # msgspec.DecodeError: NaN or Infinity in the document
            pass
    return json.dumps(doc, indent=2, ensure_ascii=ascii) + "\n"



def to_yaml(doc: Any, ascii: bool = False) -> str:
    """YAML; with `ascii` non-ASCII characters are written as escapes in double-quoted scalars."""
    import yaml
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(doc, Dumper=dumper, sort_keys=False, default_flow_style=False, allow_unicode=not ascii,
                     width=4096)
