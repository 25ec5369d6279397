"""What every planning command does: load the snapshot, run the rule, print, exit 0, 3, 4 or 5."""

from __future__ import annotations

import sys
import time
from typing import Any, Callable, List, Optional

import click

from kubectl_evict import collector
from kubectl_evict.errors import InputError, ValueParseError
from kubectl_evict.flags import MAX_DURATION, bad_flag, duration_flag  # noqa: F401  (the commands' flag parsing)
from kubectl_evict.model import Snapshot
from kubectl_evict.options import GlobalOptions
from kubectl_evict.plan import Incomplete, Plan, exit_code, with_incomplete
from kubectl_evict.render import render
from kubectl_evict.render.terminal import ascii_only, terminal_width
from kubectl_evict.source import validate
from kubectl_evict.timeutil import format_time, parse_time
from kubectl_evict.versions import (cluster_version, comparison_tolerations, dra_ignored, kubelet_skew,
                                   outside_modelled, parse_flag, unpatched_flag, unreadable_kubelets)
from kubectl_evict.workloads import attach_owners


def load(opts: GlobalOptions, nodes: Optional[Any] = None) -> Snapshot:
    """The snapshot the options name: files, the demo cluster, or the live cluster."""
    from kubectl_evict.source.files import DEMO_PATH, load_snapshot
    paths = list(opts.filenames)
    if opts.demo and paths:
        raise click.UsageError("--demo and -f contradict each other: --demo is the bundled demo cluster, "
                               "-f reads your snapshot; give one of them")
    given = opts.connection_flags()
    if (opts.demo or paths) and given and not opts.apply:
        raise click.UsageError("%s: connection flags are for a live cluster; %s reads no cluster (drop one of them)"
                               % (given[0], "--demo" if opts.demo else "-f"))
    assumed = assumed_version(opts)
    if opts.demo:
        paths.insert(0, DEMO_PATH)
    if paths:
        snapshot = load_snapshot(paths)
        if snapshot.info.read_warnings:
            # what went wrong when the snapshot was read, said as a live plan says it (stderr)
            from kubectl_evict.source.live import write_warnings
            taken = " (%s)" % format_time(snapshot.info.taken_at) if snapshot.info.taken_at is not None else ""
            write_warnings(["when the snapshot was taken%s: %s" % (taken, w) for w in snapshot.info.read_warnings])
        return with_assumed_version(snapshot, assumed)
    try:
        from kubectl_evict.source import live
    except ImportError:
        raise InputError("no snapshot given: use -f FILE (or --demo for the bundled demo cluster)") from None
    return with_assumed_version(live.load_live(opts, nodes=nodes), assumed)


def assumed_version(opts: GlobalOptions) -> str:
    """`--kubernetes-version`, canonical (`v1.35`), or "" when not given; validated before
    anything is read."""
    if opts.kubernetes_version is None:
        return ""
    try:
        return parse_flag(opts.kubernetes_version)
    except ValueError as e:
        raise InputError(str(e), field="--kubernetes-version") from None


def with_assumed_version(snapshot: Snapshot, version: str) -> Snapshot:
    """The snapshot with `--kubernetes-version` recorded, so every rule (a pure function of the
    snapshot) and the plan's header see the same version (`versions.cluster_version`)."""
    if not version:
        return snapshot
    return snapshot.set(info=snapshot.info.set(assumed_version=version))


def source_text(opts: GlobalOptions) -> str:
    """What was read, for the header of a plan whose snapshot names no cluster."""
    files = list(opts.filenames)
    if opts.demo:
        files.insert(0, "the demo cluster")
    if files:
        return "file " + ", ".join(files) if not opts.demo or len(files) > 1 else files[0]
    return "context " + opts.context if opts.context else "the current kubeconfig context"


def plan_time(opts: GlobalOptions, snapshot: Snapshot) -> float:
    """`--now`, else the snapshot's time, else the latest time the snapshot itself records, else
    (the input records no time at all) the current time: never the epoch. Reading the clock is
    the shell's job; the rules get the result as their input."""
    if opts.now is not None:   # `--now ""` is a slip, not "no --now" (verify's --now says the same)
        try:
            return parse_time(opts.now)
        except ValueParseError as e:
            raise InputError(str(e), field="--now") from None
    return snapshot_time(snapshot) or float(int(time.time()))


CLOCK_WARNING = ("the input records no time (no SnapshotInfo.takenAt, heartbeat or Lease): planned at the current "
                 "time; give --now RFC3339 to plan at another")


def input_gaps(snapshot: Snapshot, pods: bool = True) -> List[Incomplete]:
    """What every plan depends on: the nodes and the pods on them. `pods` False: the rule says
    itself whether its verdict depends on the pods (DESIGN.md: one entry per kind the input lacks
    that this plan's verdict depends on), as `controller` and `affinity` do: most of their plans
    touch the pods of no node."""
    out = []
    if not snapshot.holds("Node"):
        out.append(Incomplete(kind="Node", effect="nodes named by pods or kubelet documents are skipped, and "
                              "no replacement has a node to land on"))
    if pods and not snapshot.holds("Pod"):
        out.append(Incomplete(kind="Pod", effect="what runs on the nodes, and so what would be evicted or "
                              "killed, is unknown"))
    return out


def snapshot_time(snapshot: Snapshot) -> float:
    """The snapshot's time, else the latest time the snapshot itself records (0: none)."""
    if snapshot.info.taken_at is not None:
        return snapshot.info.taken_at
    latest = 0.0
    for node in snapshot.nodes.values():
        for c in node.conditions.values():
            for t in (c.last_heartbeat, c.last_transition):
                if t is not None and t > latest:
                    latest = t
    for t in snapshot.leases.values():
        latest = max(latest, t)
    return latest


def run(opts: GlobalOptions, rule: Callable[[Snapshot, float], Plan], nodes: Optional[Any] = None,
        rule_lists_pods: bool = False) -> int:
    """Load, plan, print. Returns the exit code (0; 3 when something is blocked; else 4 when there
    is a shortfall; else 5 when the verdict depends on kinds the input does not hold).
    `rule_lists_pods`: the rule lists Pod in `incomplete` itself, where its verdict depends on them.

    With --apply: the plan is printed first, then executed by `kubectl_evict.apply` (which
    confirms, checks staleness and prints its report); the exit code is the worse of the two."""
    settings = _apply_settings(opts)
    snapshot = load(opts, nodes)   # loaded with the collector paused (collector.py)
    # Planning runs without the collector too: it allocates millions of long-lived objects
    # (each node's decoded stats summary, placement indexes) and almost no cycles, so
    # collections would only re-walk them (pressure at 5,000 nodes: a third of its time). What
    # it allocated is then frozen with the snapshot, or the first collection while printing
    # walks it all (pressure at 5,000 nodes: a second spent "rendering").
    with collector.paused():
        now = plan_time(opts, snapshot)
        plan = attach_owners(snapshot, rule(snapshot, now))
    plan = with_incomplete(plan, input_gaps(snapshot, pods=not rule_lists_pods))
    extra = list(snapshot.warnings)
    version = cluster_version(snapshot)
    for w in (outside_modelled(version), unpatched_flag(version), unreadable_kubelets(snapshot, version),
              *kubelet_skew(snapshot, version), comparison_tolerations(snapshot), dra_ignored(snapshot, version)):
        if w:
            extra.append(w)
    for w in (validate.dangling_node_warning(snapshot),
              validate.now_warning(now, snapshot_time(snapshot)) if opts.now else None,
              CLOCK_WARNING if not opts.now and not snapshot_time(snapshot) else None):
        if w is not None:
            extra.append(w)
    if extra:
        plan = plan.set(warnings=plan.warnings.extend(w for w in extra if w not in plan.warnings))
    if snapshot.info.context or snapshot.info.server:
        plan = plan.set(context=snapshot.info.context, server=snapshot.info.server)
    plan = plan.set(version=version.text, version_source=version.source)
    sys.stdout.write(render(plan, opts.output, width=terminal_width(streams=(sys.stdout, sys.stderr)),
                            ascii=ascii_only(sys.stdout), source=source_text(opts)))
    collector.keep_until_exit(snapshot, plan)   # freed by the process's end, not object by object
    code = exit_code(plan)
    if settings is not None:
        from kubectl_evict.apply.executor import apply_plan
        if opts.output == "yaml":
            sys.stdout.write("---\n")
        sys.stdout.flush()
        applied = apply_plan(plan, source="--apply", opts=opts, settings=settings, fmt=opts.output, show_plan=False)
        from kubectl_evict.apply import exit_code_after_apply
        code = exit_code_after_apply(code, applied)
    return code


def _apply_settings(opts: GlobalOptions) -> "Optional[object]":
    """ApplySettings for --apply (validated before anything is read), else None; the apply-only
    flags without --apply are an error rather than silently ignored."""
    from kubectl_evict.apply import apply_flags_given, settings_from_options
    if not opts.apply:
        given = apply_flags_given(opts)
        if given:
            raise InputError("only with --apply (or the apply command): this command only plans", field=given[0])
        return None
    if opts.demo:
        raise InputError("the demo cluster is not a live cluster: there is nothing to apply to", field="--apply")
    return settings_from_options(opts)
