"""What-if edits to nodes (`--label`, `--unlabel`, `--taint`), parsed once and applied to a
frozen snapshot as a new value. Shared by every command that offers them."""

from __future__ import annotations

from typing import Iterable, List, NamedTuple, Tuple

from kubectl_evict.errors import InputError
from kubectl_evict.model import Snapshot, Taint
from kubectl_evict.scheduling.labels import label_value_errors, qualified_name_errors
from kubectl_evict.scheduling.tolerations import EFFECTS
from kubectl_evict.scheduling.topology import zone_key


class NodeEdit(NamedTuple):
    node: str
    op: str                 # "label", "unlabel", "taint", "untaint"
    key: str
    value: str = ""
    effect: str = ""


def _split_node(text: str, flag: str) -> Tuple[str, str]:
    node, sep, rest = text.partition(":")
    if not sep or not node or not rest:
        raise InputError("expected NODE:%s, got %r" % ("KEY[=VALUE]:EFFECT" if flag == "--taint" else
                                                       "KEY=VALUE" if flag == "--label" else "KEY", text), field=flag)
    return node, rest


def _check_key(key: str, flag: str, text: str) -> None:
    errs = qualified_name_errors(key)
    if errs:
        raise InputError("invalid key %r in %r: %s" % (key, text, errs[0]), field=flag)


def parse_label(text: str) -> NodeEdit:
    node, rest = _split_node(text, "--label")
    key, sep, value = rest.partition("=")
    if not sep:
        raise InputError("expected NODE:KEY=VALUE, got %r" % text, field="--label")
    _check_key(key, "--label", text)
    errs = label_value_errors(value)
    if errs:
        raise InputError("invalid value %r in %r: %s" % (value, text, errs[0]), field="--label")
    return NodeEdit(node, "label", key, value)


def parse_unlabel(text: str) -> NodeEdit:
    node, key = _split_node(text, "--unlabel")
    if key.endswith("-"):
        key = key[:-1]
    _check_key(key, "--unlabel", text)
    return NodeEdit(node, "unlabel", key)


def parse_taint(text: str) -> NodeEdit:
    """`NODE:KEY[=VALUE]:EFFECT`; a trailing `-` (`NODE:KEY:EFFECT-`) removes the taint."""
    node, rest = _split_node(text, "--taint")
    remove = rest.endswith("-")
    if remove:
        rest = rest[:-1]
    kv, sep, effect = rest.rpartition(":")
    if not sep or not kv:
        raise InputError("expected NODE:KEY[=VALUE]:EFFECT, got %r" % text, field="--taint")
    if effect not in EFFECTS:
        raise InputError("unknown taint effect %r in %r (want NoSchedule, PreferNoSchedule or NoExecute)" % (effect, text),
                         field="--taint")
    key, _, value = kv.partition("=")
    _check_key(key, "--taint", text)
    if value:
        errs = label_value_errors(value)
        if errs:
            raise InputError("invalid value %r in %r: %s" % (value, text, errs[0]), field="--taint")
    return NodeEdit(node, "untaint" if remove else "taint", key, value, effect)


def apply_edits(snapshot: Snapshot, edits: Iterable[NodeEdit], now: float) -> Tuple[Snapshot, List[str]]:
    """A new snapshot with the edits applied, and the names of the nodes they changed.

    Unknown nodes are an error (nothing is planned against a node that does not exist).
    """
    changed: List[str] = []
    for e in edits:
        node = snapshot.named_node(e.node, "--" + e.op)
        if e.op == "label":
            node = node.set(labels=node.labels.set(e.key, e.value))
        elif e.op == "unlabel":
            node = node.set(labels=node.labels.discard(e.key))
        elif e.op == "taint":
            kept = tuple(t for t in node.taints if not (t.key == e.key and t.effect == e.effect))
            node = node.set(taints=kept + (Taint(e.key, e.value, e.effect, now),))
        else:
            node = node.set(taints=tuple(t for t in node.taints if not (t.key == e.key and t.effect == e.effect)))
        if e.op in ("label", "unlabel"):
            node = node.set(zone=zone_key(node.labels))
        snapshot = snapshot.with_node(node)
        if e.node not in changed:
            changed.append(e.node)
    return snapshot, changed
