"""`kubectl evictplan verify PLAN_FILE`: after the drain (or the failure), did it go as planned?"""

from __future__ import annotations

import sys
from typing import Any, List, Optional, Set

import click

from kubectl_evict.apply import apply_flags_given
from kubectl_evict.apply.document import read_plan_file
from kubectl_evict.apply.preconditions import cluster_check
from kubectl_evict.errors import EvictPlanError, InputError, ValueParseError
from kubectl_evict.options import global_options, pop_global
from kubectl_evict.plan import POD_ACTIONS, Plan
from kubectl_evict.timeutil import format_time, parse_time

READ_RESOLUTION = 2.0   # seconds: the read's time is whole seconds of a clock read whole seconds off another


def _time_flag(flag: str, text: Optional[str]) -> Optional[float]:
    if text is None:
        return None
    try:
        return parse_time(text)
    except ValueParseError as e:
        raise InputError(str(e), field=flag) from None


def namespaces_of(plan: Plan) -> List[str]:
    """The namespaces whose Events can say what happened: every pod's and workload's, and
    `default` (where Events about Nodes are recorded) when the plan edits or names a node."""
    out: Set[str] = set()
    for a in plan.actions:
        if a.type in POD_ACTIONS:
            out.add(a.namespace)
        else:
            out.add("default")
    for e in list(plan.blocked) + list(plan.shortfall):
        out.add(e.namespace or "default")
    out.update(w.namespace for w in plan.workloads)
    return sorted(out)


@click.command("verify", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("plan_file", metavar="PLAN_FILE")
@click.option("--since", metavar="RFC3339",
              help="When the operation began: the plan's +0s, and Events and new pods from then on count "
                   "(default: the plan's +0s is found by aligning what happened with the plan's times; Events "
                   "count from the plan's now).")
@global_options
@click.pass_context
def command(ctx: click.Context, plan_file: str, since: Optional[str], **kw: Any) -> int:
    """Compare a plan (the JSON or YAML of `-o json|yaml`; - reads stdin) with what the live
    cluster really did: after a drain (by apply, kubectl drain or an upgrade tool), or after the
    failure a forecast described.

    Every action, blocked, shortfall and workload entry of the plan gets a status: as-planned;
    differs, with what happened instead (the replacement on another node, still Pending with the
    scheduler's FailedScheduling text, not evicted, evicted later, removed by another component,
    a blocked pod gone after all); pending (not happened yet, not yet due); unknown (the cluster
    no longer shows enough to tell). Evidence comes from the objects (pods, their owners, node
    taints with timeAdded) and from events.k8s.io Events in the namespaces the plan touches.
    Replacements are matched to removed pods through their owner (ReplicaSet, Job,
    ReplicationController by the generated name, StatefulSet by the same name).

    The plan's times are offsets: +0s is --since, else the earliest observed effect aligned with
    its planned time. An effect more than 60s after its planned time differs. --now judges what
    is due as of that time instead of the time of the read.

    Read-only (get/list on the planning kinds and on events). A plan made for another cluster is
    refused, as apply refuses it. Output: a table (verdict first, then each difference with its
    evidence), -o markdown for a change ticket, -o json|yaml (kind PlanVerification).
    Exit 0: everything as planned; 3: something differs; 4: nothing differs but something is
    pending; 1: error.

    \b
    Examples:
      kubectl evictplan -o json drain worker-a1 --ignore-daemonsets > plan.json
      kubectl evictplan apply plan.json
      kubectl evictplan verify plan.json
      kubectl evictplan verify plan.json --since 2026-11-21T12:30:00Z -o markdown > review.md
    """
    opts = pop_global(ctx, kw)
    if opts.filenames or opts.demo:
        raise InputError("verify compares PLAN_FILE with the live cluster of --kubeconfig/--context; -f and --demo "
                         "do not apply here", field="--demo" if opts.demo else "-f")
    if opts.kubernetes_version is not None:
        raise InputError("verify compares the plan with what the cluster did; --kubernetes-version is for planning",
                         field="--kubernetes-version")
    given = apply_flags_given(opts) + (["--apply"] if opts.apply else [])
    if given:
        raise InputError("only for apply: verify reads and never writes", field=given[0])
    if opts.output == "timeline":
        raise InputError("verify prints table, wide, json, yaml or markdown", field="-o")
    since_t = _time_flag("--since", since)
    now_t = _time_flag("--now", opts.now)
    plan, _ = read_plan_file(plan_file, workloads=True)
    if not plan.now:
        # every comparison is "after the plan was made": without `now`, pods that were there all
        # along would pass for replacements (apply, which compares nothing in time, takes such plans)
        raise InputError("required field is missing: verify compares the cluster with the plan as of when it was "
                         "made", source=plan_file, field="now")
    notes: List[str] = []

    def accept(server: str, context: str) -> None:
        refusal, note = cluster_check(plan, server, context)
        if refusal:
            raise EvictPlanError("%s: nothing to compare (verify a plan against the cluster it was made for)"
                                 % refusal)
        if note:
            notes.append(note)

    from kubectl_evict.render.terminal import ascii_only, terminal_width
    from kubectl_evict.render.verification import render_verification
    from kubectl_evict.source import live
    from kubectl_evict.verify.events import project
    from kubectl_evict.verify.match import verify
    from kubectl_evict.verify.model import exit_code
    if since_t is not None and now_t is not None and since_t > now_t:
        raise InputError("%s is later than --now %s: the operation cannot have begun after the time its "
                         "outcome is judged at" % (format_time(since_t), format_time(now_t)), field="--since")
    snapshot, raw_events, warnings, offset = live.load_live_with_events(opts, namespaces_of(plan), accept=accept)
    # the read's time is the API server's clock (its Date header) when it sent one, not a skewed
    # laptop's: what is due is judged by the clock that stamped the cluster's times
    taken = snapshot.info.taken_at or 0.0
    read_at = now_t if now_t is not None else taken
    clock = "the API server's clock (its Date header)" if offset is not None else "the local clock"
    # the read's time has whole seconds (takenAt; the Date header): a --since within them is fine
    if since_t is not None and now_t is None and since_t > read_at + READ_RESOLUTION:
        raise InputError("%s is later than the time of the read, %s by %s: the operation cannot have begun "
                         "after the cluster was read (give the time it began)"
                         % (format_time(since_t), format_time(read_at), clock), field="--since")
    if offset is not None and abs(offset) > live.CLOCK_SKEW:
        notes.append(live.clock_note(offset, taken, "--now" if now_t is not None else "the API server's clock"))
    result = verify(plan, snapshot, project(raw_events), read_at=read_at, since=since_t)
    result = result._replace(warnings=tuple(notes) + tuple(warnings) + tuple(snapshot.warnings) + result.warnings)
    sys.stdout.write(render_verification(result, opts.output,
                                         width=terminal_width(streams=(sys.stdout, sys.stderr)),
                                         ascii=ascii_only(sys.stdout)))
    return exit_code(result)
