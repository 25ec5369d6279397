"""Read a plan document (the contract's `EvictionPlan`, JSON or YAML) back into a `Plan`.

`apply` executes exactly what was reviewed, so the reader is strict where a mistake could touch
the wrong object: every action needs its type's identifying fields (a pod action without the
pod's `uid` is refused, because the uid is what keeps `apply` off a replacement pod with the
same name), and a bad value is reported as `error: FILE: actions[3].uid: ...`. Fields the
contract does not define are ignored (the contract allows extra fields).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Dict, List, Optional, Tuple

from pyrsistent import pmap, pvector

from kubectl_evict.errors import InputError, ValueParseError, json_type
from kubectl_evict.flags import MAX_DURATION
from kubectl_evict.source.documents import load_json
from kubectl_evict.source.files import read_bytes
from kubectl_evict.plan import ACTION_TYPES, ACTORS, POD_ACTIONS, Action, Entry, Incomplete, Plan, Workload
from kubectl_evict.scheduling.labels import label_value_errors, qualified_name_errors
from kubectl_evict.scheduling.tolerations import EFFECTS
from kubectl_evict.timeutil import parse_time

API_VERSION = "evictplan/v1alpha1"
KIND = "EvictionPlan"



def read_plan_file(path: str, *, workloads: bool = False) -> Tuple[Plan, str]:
    """Read and validate PATH (`-` for stdin); returns the plan and its digest (see `plan_digest`).
    `workloads`: read the plan's `workloads` too (verify compares them; apply has no use for them)."""
    label = "<stdin>" if path == "-" else path
    data = read_bytes(path)
    plan = parse_plan(data, label, workloads=workloads)
    return plan, plan_digest(plan)


def parse_plan(data: bytes, source: str, *, workloads: bool = False) -> Plan:
    """Parse the bytes of a plan document (JSON, or YAML with exactly one document)."""
    doc = _load(data, source)
    return plan_from_document(doc, source, workloads=workloads)


def _load(data: bytes, source: str) -> Any:
    if not data.strip():
        raise InputError("empty file: expected an EvictionPlan document", source=source)
    if data.lstrip()[:1] in (b"{", b"["):
        return load_json(data, source)
    from kubectl_evict.source.yamltext import load_all
    docs = load_all(data, source)
    if len(docs) != 1:
        raise InputError("expected one EvictionPlan document, found %d" % len(docs), source=source)
    return docs[0]


def _str(d: Dict[str, Any], key: str, where: str, source: str, *, required: bool = True,
         nonempty: bool = True) -> str:
    v = d.get(key)
    if v is None:
        if required:
            raise InputError("required field is missing", source=source, field="%s.%s" % (where, key))
        return ""
    if not isinstance(v, str):
        raise InputError("must be a string, not %s" % json_type(v), source=source, field="%s.%s" % (where, key))
    if required and nonempty and not v:
        raise InputError("must not be empty", source=source, field="%s.%s" % (where, key))
    return v


def _previous(d: Dict[str, Any], where: str, source: str) -> Optional[str]:
    """A node edit's `previous`: the value the plan saw (null: not set)."""
    prev = d.get("previous")
    if prev is not None and not isinstance(prev, str):
        raise InputError("must be a string or null, not %s" % json_type(prev), source=source, field=where + ".previous")
    return prev


# Every number of a plan is seconds after its `now` or a count: a century is past any plan (and
# past the dates RFC 3339 can print); larger is an edit slip, refused like a duration flag's
MAX_NUMBER = 100 * MAX_DURATION


def _number(d: Dict[str, Any], key: str, where: str, source: str, *, nullable: bool, minimum: float = 0) -> Any:
    v = d.get(key)
    if v is None:
        if nullable:
            return None
        raise InputError("required field is missing", source=source, field="%s.%s" % (where, key))
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise InputError("must be a number, not %s" % json_type(v), source=source, field="%s.%s" % (where, key))
    if v < minimum or v != v or v in (float("inf"), float("-inf")):
        raise InputError("must be a number >= %s, not %r" % (minimum, v), source=source,
                         field="%s.%s" % (where, key))
    if v > MAX_NUMBER:
        raise InputError("%r is more than a century of seconds: refused as an edit slip" % v, source=source,
                         field="%s.%s" % (where, key))
    return v


def _check_syntax(kw: Dict[str, Any], where: str, source: str, *, value: bool) -> None:
    """A node label's or taint's key must be a qualified name and its value a label value, as the
    API server validates them (apimachinery `ValidateLabels`; core `validateNodeTaints`:
    `ValidateLabelName(key)`, `IsValidLabelValue(value)`). Checked while reading, so an edited plan
    with a bad key is refused before any request instead of failing with 422 halfway through."""
    checks = [("key", qualified_name_errors)] + ([("value", label_value_errors)] if value else [])
    for field, errors in checks:
        errs = errors(kw[field])
        if errs:
            raise InputError("invalid %s %r: %s" % (field, kw[field], errs[0]), source=source,
                             field="%s.%s" % (where, field))


def _action(d: Any, i: int, source: str) -> Action:
    where = "actions[%d]" % i
    if not isinstance(d, dict):
        raise InputError("each action must be a mapping, not %s" % json_type(d), source=source, field=where)
    typ = _str(d, "type", where, source)
    if typ not in ACTION_TYPES:
        raise InputError("unknown action type %r (expected one of: %s)" % (typ, ", ".join(ACTION_TYPES)),
                         source=source, field=where + ".type")
    at = _number(d, "at", where, source, nullable=True)
    by = _str(d, "by", where, source)
    if by not in ACTORS:
        raise InputError("unknown actor %r (expected one of: %s)" % (by, ", ".join(ACTORS)), source=source,
                         field=where + ".by")
    kw: Dict[str, Any] = {"type": typ, "by": by, "at": 0 if at is None else at,
                          "rule": _str(d, "rule", where, source, required=False),
                          "reason": _str(d, "reason", where, source, required=False)}
    if typ in POD_ACTIONS:
        kw["namespace"] = _str(d, "namespace", where, source)
        kw["pod"] = _str(d, "pod", where, source)
        kw["uid"] = _str(d, "uid", where, source, nonempty=False)   # "": see _second_evictions
        kw["node"] = _str(d, "node", where, source, required=False)
        kw["grace_period_seconds"] = _number(d, "gracePeriodSeconds", where, source, nullable=True)
        if "target" in d:
            t = d["target"]
            if t is not None and not isinstance(t, str):
                raise InputError("must be a node name or null, not %s" % json_type(t), source=source,
                                 field=where + ".target")
            kw["target"], kw["has_target"] = t, True
        cands = d.get("candidates")
        if cands is not None:
            if not isinstance(cands, list) or not all(isinstance(c, str) for c in cands):
                raise InputError("must be a list of node names", source=source, field=where + ".candidates")
            kw["candidates"] = tuple(cands)
        if "replacementAt" in d:
            kw["replaced_at"] = _number(d, "replacementAt", where, source, nullable=True)
        force = d.get("force", False)
        if not isinstance(force, bool):
            raise InputError("must be true or false, not %s" % json_type(force), source=source, field=where + ".force")
        kw["force"] = force
        owner = d.get("owner")
        if owner is not None:
            if not isinstance(owner, dict) or not isinstance(owner.get("kind"), str) or \
                    not isinstance(owner.get("name"), str) or not isinstance(owner.get("uid", ""), str):
                raise InputError("must be a mapping with kind, name and uid strings", source=source,
                                 field=where + ".owner")
            kw["owner"] = (owner["kind"], owner["name"], owner.get("uid") or "")
    elif typ in ("taint", "untaint"):
        kw["node"] = _str(d, "node", where, source)
        kw["key"] = _str(d, "key", where, source)
        kw["value"] = _str(d, "value", where, source, required=False)
        kw["effect"] = _str(d, "effect", where, source)
        if kw["effect"] not in EFFECTS:
            raise InputError("unsupported taint effect %r (expected one of: %s)" % (kw["effect"], ", ".join(EFFECTS)),
                             source=source, field=where + ".effect")
        kw["uid"] = _str(d, "uid", where, source, required=False)
        if "previous" in d:   # plans made before taint actions carried it have no precondition
            kw["previous"], kw["previous_seen"] = _previous(d, where, source), True
        _check_syntax(kw, where, source, value=True)
    elif typ in ("label", "unlabel"):
        kw["node"] = _str(d, "node", where, source)
        kw["key"] = _str(d, "key", where, source)
        kw["value"] = _str(d, "value", where, source, required=typ == "label", nonempty=False)
        kw["uid"] = _str(d, "uid", where, source, required=False)
        kw["previous"] = _previous(d, where, source)
        _check_syntax(kw, where, source, value=typ == "label")
    elif typ == "detach":
        kw["volume_attachment"] = _str(d, "volumeAttachment", where, source)
        kw["node"] = _str(d, "node", where, source, required=False)
    else:  # cordon
        kw["node"] = _str(d, "node", where, source)
    return Action(**kw)


def _entries(doc: Dict[str, Any], key: str, source: str) -> List[Entry]:
    raw = doc.get(key) or []
    if not isinstance(raw, list):
        raise InputError("must be a list, not %s" % json_type(raw), source=source, field=key)
    out = []
    for i, e in enumerate(raw):
        where = "%s[%d]" % (key, i)
        if not isinstance(e, dict):
            raise InputError("must be a mapping, not %s" % json_type(e), source=source, field=where)
        # verify looks each entry's pod up by these: a number or a list would be looked for as
        # its Python spelling ("inf", "['a']") and reported as gone, so the types are checked
        # like an action's; all stay optional (what a plan leaves out is "")
        f = {k: _str(e, k, where, source, required=False)
             for k in ("code", "namespace", "pod", "node", "reason", "uid")}
        out.append(Entry(**f))
    return out


def _workloads(doc: Dict[str, Any], source: str) -> List[Workload]:
    """The plan's `workloads` (what `verify` compares ready replicas with); `apply` ignores them."""
    raw = doc.get("workloads") or []
    if not isinstance(raw, list):
        raise InputError("must be a list, not %s" % json_type(raw), source=source, field="workloads")
    out = []
    for i, w in enumerate(raw):
        where = "workloads[%d]" % i
        if not isinstance(w, dict):
            raise InputError("must be a mapping, not %s" % json_type(w), source=source, field=where)
        counts = {}
        for key in ("ready", "readyMin", "readyAfter"):
            v = _number(w, key, where, source, nullable=True)
            counts[key] = int(v) if v is not None else 0
        at = _number(w, "readyMinAt", where, source, nullable=True)
        out.append(Workload(kind=_str(w, "kind", where, source), namespace=_str(w, "namespace", where, source),
                            name=_str(w, "name", where, source), ready=counts["ready"],
                            ready_min=counts["readyMin"], ready_min_at=at or 0, ready_after=counts["readyAfter"],
                            pdb=_str(w, "pdb", where, source, required=False)))
    return out


def _second_evictions(actions: List[Action], source: str) -> None:
    """A pod action's uid may be empty only where an earlier pod action names the same pod: the
    replacement a drain --one-at-a-time or upgrade plan evicts again did not exist when the plan
    was made, and goes by the first pod's name (apply refuses such plans; verify follows them)."""
    seen = set()
    for i, a in enumerate(actions):
        if a.type not in POD_ACTIONS:
            continue
        key = (a.namespace, a.pod)
        if not a.uid and key not in seen:
            raise InputError("must not be empty", source=source, field="actions[%d].uid" % i)
        seen.add(key)


def plan_from_document(doc: Any, source: str, *, workloads: bool = False) -> Plan:
    """Validate a parsed EvictionPlan and freeze it into the same `Plan` the rules build."""
    if not isinstance(doc, dict):
        raise InputError("expected an EvictionPlan mapping, found %s" % json_type(doc), source=source)
    if doc.get("apiVersion") != API_VERSION or doc.get("kind") != KIND:
        raise InputError("not an EvictionPlan: apiVersion %s, kind %s (expected %s, %s; write one with "
                         "'kubectl evictplan -o json COMMAND ...')" % (_shown(doc.get("apiVersion")),
                                                                     _shown(doc.get("kind")), API_VERSION, KIND),
                         source=source)
    actions = doc.get("actions")
    if not isinstance(actions, list):
        raise InputError("must be a list" if actions is not None else "required field is missing",
                         source=source, field="actions")
    parsed = [_action(a, i, source) for i, a in enumerate(actions)]
    _second_evictions(parsed, source)
    now = 0.0
    if doc.get("now") is not None:
        try:
            now = parse_time(doc["now"])
        except ValueParseError as e:
            raise InputError(str(e), source=source, field="now") from None
    cluster = doc.get("cluster") or {}
    if not isinstance(cluster, dict):
        raise InputError("must be a mapping with context and server, not %s" % json_type(cluster), source=source,
                         field="cluster")
    context = _str(cluster, "context", "cluster", source, required=False)
    server = _str(cluster, "server", "cluster", source, required=False)
    warnings = doc.get("warnings") or []
    if not isinstance(warnings, list):
        raise InputError("must be a list of strings", source=source, field="warnings")
    command = doc.get("command")
    incomplete = doc.get("incomplete") or []
    if not isinstance(incomplete, list) or not all(isinstance(e, dict) and isinstance(e.get("kind"), str)
                                                   for e in incomplete):
        raise InputError("must be a list of {kind, effect} entries", source=source, field="incomplete")
    return Plan(command=command if isinstance(command, str) and command else "apply", now=now,
                actions=pvector(parsed), blocked=pvector(_entries(doc, "blocked", source)),
                shortfall=pvector(_entries(doc, "shortfall", source)),
                skipped=pvector(_entries(doc, "skipped", source)),
                workloads=pvector(_workloads(doc, source) if workloads else ()),
                warnings=pvector(str(w) for w in warnings),
                incomplete=pvector(Incomplete(kind=e["kind"], effect=str(e.get("effect") or "")) for e in incomplete),
                context=context, server=server,
                extra=pmap({"newNodes": _new_nodes(doc, source)} if workloads and doc.get("newNodes") else {}))


def _shown(v: Any) -> str:
    """apiVersion / kind as the refusal quotes them: absent says so, anything else in JSON's words."""
    return "missing" if v is None else repr(v) if isinstance(v, str) else json_type(v)


def _new_nodes(doc: Dict[str, Any], source: str) -> Tuple[Dict[str, Any], ...]:
    """`upgrade`'s `newNodes`: verify matches the names it made up with the nodes that really
    joined, whatever the provider named them."""
    v = doc.get("newNodes")
    if not isinstance(v, list) or not all(isinstance(n, dict) and isinstance(n.get("node"), str) for n in v):
        raise InputError("must be a list of {node, batch, joins} entries", source=source, field="newNodes")
    return tuple(v)


def action_identity(a: Action) -> Dict[str, Any]:
    """What an action does, without its explanation: the part a journal entry must match."""
    d: Dict[str, Any] = {"type": a.type, "node": a.node}
    if a.type in POD_ACTIONS:
        d.update(namespace=a.namespace, pod=a.pod, uid=a.uid, grace=a.grace_period_seconds, force=a.force)
    elif a.type in ("taint", "untaint"):
        d.update(key=a.key, value=a.value, effect=a.effect)
        if a.previous_seen:
            d["previous"] = a.previous
    elif a.type in ("label", "unlabel"):
        d.update(key=a.key, value=a.value, previous=a.previous)
    elif a.type == "detach":
        d["volumeAttachment"] = a.volume_attachment
    if a.by != "user":
        d["by"] = a.by
    return d


def plan_digest(plan: Plan) -> str:
    """A fingerprint of what the plan does (actions in order, and its cluster): re-running the
    same plan finds its journal; an edited plan does not reuse another plan's progress."""
    body = {"server": plan.server, "actions": [action_identity(a) for a in plan.actions]}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def describe(a: Action) -> str:
    """One action in a few words, for progress lines and reports: `evict default/web-1 (n1)`."""
    if a.type in POD_ACTIONS:
        return "%s pod %s/%s%s" % (a.type, a.namespace, a.pod, " on " + a.node if a.node else "")
    if a.type in ("taint", "untaint"):
        return "%s node %s %s%s:%s" % (a.type, a.node, a.key, "=" + a.value if a.value else "", a.effect)
    if a.type == "label":
        return "label node %s %s=%s" % (a.node, a.key, a.value)
    if a.type == "unlabel":
        return "label node %s %s-" % (a.node, a.key)
    if a.type == "detach":
        return "detach volumeattachment %s" % a.volume_attachment
    return "%s node %s" % (a.type, a.node)


def optional_number(v: Optional[float]) -> Optional[int]:
    """Grace periods go on the wire as whole seconds (the API's int64)."""
    return None if v is None else int(v)
