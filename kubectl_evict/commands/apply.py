"""`kubectl evictplan apply PLAN_FILE`: execute a reviewed plan, exactly as reviewed."""

from __future__ import annotations

from typing import Any

import click

from kubectl_evict.apply import exit_code_after_apply, settings_from_options
from kubectl_evict.apply.document import read_plan_file
from kubectl_evict.apply.journal import journal_path
from kubectl_evict.errors import InputError
from kubectl_evict.options import global_options, pop_global
from kubectl_evict.plan import exit_code


@click.command("apply", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("plan_file", metavar="PLAN_FILE")
@global_options
@click.pass_context
def command(ctx: click.Context, plan_file: str, **kw: Any) -> int:
    """Execute a plan (the JSON or YAML of `-o json|yaml`; - reads stdin) on the live cluster.

    Before anything is done, every node and pod the plan names is read again: a plan made for
    another cluster, a node that is gone, or a pod that was replaced (new uid) or moved makes
    apply refuse (exit 1) with nothing done; --force-stale skips the changed pods instead. Then it
    asks for confirmation (--yes skips it; without a terminal, --yes is required).

    Actions run in plan order: cordon and taint/untaint patch the node (taints merged with the
    node's own, with its resourceVersion); evict uses the Eviction API with the pod's uid as a
    precondition (429 from a PodDisruptionBudget is retried until --timeout, then reported
    blocked); delete and kill are DELETEs with the uid precondition and the planned grace period;
    detach is left to the cluster. Nothing the plan does not name is touched.

    Progress goes to stderr, the report to stdout (-o table|wide|json|yaml). Exit 1: something
    failed; 130: interrupted; else 3 when the plan is BLOCKED or an action was blocked, skipped or
    not run; else 0, a shortfall or incomplete input included (the same as COMMAND --apply). Ctrl-C
    stops before the next action; running apply again on the same plan file finishes the rest
    without repeating what was done (progress is kept in PLAN_FILE.applied).

    \b
    Examples:
      kubectl evictplan -o json drain worker-a1 --ignore-daemonsets > plan.json
      kubectl evictplan apply plan.json --dry-run=server --yes
      kubectl evictplan apply plan.json
      kubectl evictplan drain worker-a1 --ignore-daemonsets --apply
    """
    opts = pop_global(ctx, kw)
    if opts.filenames or opts.demo:
        raise InputError("apply reads the plan from PLAN_FILE and acts on the live cluster of --kubeconfig/"
                         "--context; -f and --demo do not apply here", field="--demo" if opts.demo else "-f")
    # planning flags would be silently ignored here: the plan file already fixed them
    if opts.now is not None:
        raise InputError("apply carries out the plan's actions now, in order; --now is for planning "
                         "(the plan file records its own now)", field="--now")
    if opts.kubernetes_version is not None:
        raise InputError("apply sends the plan's actions as they are; --kubernetes-version is for planning",
                         field="--kubernetes-version")
    settings = settings_from_options(opts)
    plan, digest = read_plan_file(plan_file)
    from kubectl_evict.apply.executor import apply_plan
    applied = apply_plan(plan, source="<stdin>" if plan_file == "-" else plan_file, opts=opts, settings=settings,
                         fmt=opts.output, journal_path=journal_path(plan_file), digest=digest, show_plan=True)
    return exit_code_after_apply(exit_code(plan), applied)


# its own flags: what to send, to which cluster, how to report (shown in its --help)
command.shown_global_options = ("yes", "dry_run", "timeout", "force_stale", "follow_timeline", "kubeconfig",
                                "context", "output")
