"""What every planning command does: load the snapshot, run the rule, print, exit 0 or 3."""

from __future__ import annotations

import sys
from typing import Callable, Optional

import click

from kubectl_evict.errors import InputError, ValueParseError
from kubectl_evict.model import Snapshot
from kubectl_evict.options import GlobalOptions
from kubectl_evict.plan import Plan
from kubectl_evict.render import render
from kubectl_evict.timeutil import parse_time


def load(opts: GlobalOptions, nodes: Optional[list] = None) -> Snapshot:
    """The snapshot the options name: files, the demo cluster, or the live cluster."""
    from kubectl_evict.source.files import DEMO_PATH, load_snapshot
    paths = list(opts.filenames)
    if opts.demo:
        paths.insert(0, DEMO_PATH)
    if paths:
        return load_snapshot(paths)
    try:
        from kubectl_evict.source import live
    except ImportError:
        raise InputError("no snapshot given: use -f FILE (or --demo for the bundled demo cluster)") from None
    return live.load_live(opts, nodes=nodes)


def plan_time(opts: GlobalOptions, snapshot: Snapshot) -> float:
    """`--now`, else the snapshot's time, else the latest time the snapshot itself records."""
    if opts.now:
        try:
            return parse_time(opts.now)
        except ValueParseError as e:
            raise InputError(str(e), field="--now") from None
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


def run(opts: GlobalOptions, rule: Callable[[Snapshot, float], Plan], nodes: Optional[list] = None) -> int:
    """Load, plan, print. Returns the exit code (0, or 3 when something is blocked)."""
    snapshot = load(opts, nodes)
    now = plan_time(opts, snapshot)
    plan = rule(snapshot, now)
    if snapshot.warnings:
        plan = plan.set(warnings=plan.warnings.extend(w for w in snapshot.warnings if w not in plan.warnings))
    if snapshot.info.context or snapshot.info.server:
        plan = plan.set(context=snapshot.info.context, server=snapshot.info.server)
    sys.stdout.write(render(plan, opts.output))
    return 3 if plan.blocked else 0


def bad_flag(flag: str, value: str, problem: str) -> click.BadParameter:
    return click.BadParameter("%r: %s" % (value, problem), param_hint=flag)
