"""`kubectl evictplan affinity`: relabel / retaint nodes and see what happens to running pods."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import click

from kubectl_evict.commands._run import run
from kubectl_evict.options import global_options, pop_global
from kubectl_evict.model import Snapshot
from kubectl_evict.plan import Plan
from kubectl_evict.rules.affinity import AffinitySettings, plan_affinity
from kubectl_evict.rules.whatif import NodeEdit, parse_label, parse_taint, parse_unlabel


@click.command("affinity", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--label", "labels", multiple=True, metavar="NODE:KEY=VALUE", help="Set a node label (repeatable).")
@click.option("--unlabel", "unlabels", multiple=True, metavar="NODE:KEY", help="Remove a node label (repeatable).")
@click.option("--taint", "taints", multiple=True, metavar="NODE:KEY[=VALUE]:EFFECT",
              help="Add a taint; a trailing '-' removes it (repeatable).")
@click.option("--enforce-ignored-during-execution", is_flag=True, default=False,
              help="Evict pods whose IgnoredDuringExecution node affinity no longer matches (as the descheduler does).")
@global_options
@click.pass_context
def command(ctx: click.Context, labels: Any, unlabels: Any, taints: Any,
            enforce_ignored_during_execution: bool, **kw: Any) -> int:
    """What happens to running pods if nodes are relabeled or retainted.

    New NoExecute taints delete pods that do not tolerate them (at once) or tolerate them for a
    while (after tolerationSeconds). Pods whose required node affinity stops matching keep
    running (IgnoredDuringExecution) unless --enforce-ignored-during-execution; pods that ask for
    RequiredDuringExecution (the field, or the annotation
    evictplan.io/node-affinity=RequiredDuringExecution) are evicted. Without edits, every node is
    checked for pods that violate their affinity now.

    \b
    Examples:
      kubectl evictplan --demo affinity --label worker-b1:disktype=hdd
      kubectl evictplan --demo affinity --taint worker-a2:maintenance=true:NoExecute
    """
    opts = pop_global(ctx, kw)
    edits = tuple(parse_label(t) for t in labels) + tuple(parse_unlabel(t) for t in unlabels) + \
        tuple(parse_taint(t) for t in taints)
    _refuse_contradictions(ctx, edits)
    edits = tuple(dict.fromkeys(edits))   # an edit given twice is made once (one action, one request)
    settings = AffinitySettings(edits=edits, enforce_ignored_during_execution=enforce_ignored_during_execution)

    def rule(snap: Snapshot, now: float) -> Plan:
        plan = plan_affinity(snap, settings, now)
        missing = absent_taints(snap, edits)
        if missing:
            plan = plan.set(warnings=plan.warnings.append(
                "--taint ...- removes %s, which %s not on the node%s: nothing to remove"
                % (", ".join(missing), "is" if len(missing) == 1 else "are", "" if len(missing) == 1 else "s")))
        return plan

    return run(opts, rule, nodes=[], rule_lists_pods=True)  # no kubelet data needed


def _refuse_contradictions(ctx: click.Context, edits: Tuple[NodeEdit, ...]) -> None:
    """Two edits of the same node label or taint that disagree (`--label n:a=b --unlabel n:a`,
    `--taint n:k:NoExecute --taint n:k:NoExecute-`, two values for one label) have no meaning."""
    seen: Dict[Tuple[str, str, str], NodeEdit] = {}
    for e in edits:
        key = (e.node, "label" if e.op in ("label", "unlabel") else "taint", e.key + ":" + e.effect)
        prev = seen.get(key)
        if prev is not None and prev != e:
            raise click.UsageError("%s and %s contradict each other" % (_flag(prev), _flag(e)), ctx=ctx)
        seen[key] = e


def _flag(e: NodeEdit) -> str:
    if e.op == "label":
        return "--label %s:%s=%s" % (e.node, e.key, e.value)
    if e.op == "unlabel":
        return "--unlabel %s:%s" % (e.node, e.key)
    return "--taint %s:%s%s:%s%s" % (e.node, e.key, "=" + e.value if e.value else "", e.effect,
                                     "-" if e.op == "untaint" else "")


def absent_taints(snap: Snapshot, edits: Tuple[NodeEdit, ...]) -> List[str]:
    """The taint removals that name a taint the node does not have (unknown nodes are the rule's error)."""
    out = []
    for e in edits:
        node = snap.node(e.node) if e.op == "untaint" else None
        if node is not None and not any(t.key == e.key and t.effect == e.effect for t in node.taints):
            out.append("%s:%s:%s" % (e.node, e.key, e.effect))
    return out
