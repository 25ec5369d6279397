"""`kubectl evictplan affinity`: relabel / retaint nodes and see what happens to running pods."""

from __future__ import annotations

from typing import Any

import click

from kubectl_evict.commands._run import run
from kubectl_evict.options import global_options, pop_global
from kubectl_evict.rules.affinity import AffinitySettings, plan_affinity
from kubectl_evict.rules.whatif import parse_label, parse_taint, parse_unlabel


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
    settings = AffinitySettings(edits=edits, enforce_ignored_during_execution=enforce_ignored_during_execution)
    return run(opts, lambda snap, now: plan_affinity(snap, settings, now), nodes=[])  # no kubelet data needed
