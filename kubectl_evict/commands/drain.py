"""`kubectl evictplan drain`: what `kubectl drain` would do, with PDBs and placement."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import click

from kubectl_evict.commands._run import duration_flag, run
from kubectl_evict.errors import InputError
from kubectl_evict.model import LabelSelector, Snapshot
from kubectl_evict.options import global_options, pop_global
from kubectl_evict.plan import Plan
from kubectl_evict.rules.drain import DrainSettings, plan_drain, resolve_nodes
from kubectl_evict.rules.drain_filters import FilterFlags
from kubectl_evict.scheduling.labels import label_selector_errors, parse_selector_string


def _selector(flag: str, text: Optional[str]) -> Optional[LabelSelector]:
    if text is None:
        return None
    try:
        sel = parse_selector_string(text)
    except ValueError as e:
        raise InputError(str(e), field=flag) from None
    errs = label_selector_errors(sel, flag)
    if errs:
        raise InputError("invalid label selector %r: %s" % (text, errs[0].detail), field=flag)
    return sel


def _int(flag: str, text: Optional[str], default: int, minimum: int) -> int:
    if text is None:
        return default
    try:
        value = int(text.strip())
    except ValueError:
        raise InputError("%r is not an integer" % text, field=flag) from None
    if value < minimum:
        raise InputError("%r must be %d or more" % (text, minimum), field=flag)
    return value




@click.command("drain", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("nodes", nargs=-1, metavar="NODE...")
@click.option("-l", "--selector", metavar="SELECTOR", help="Drain the nodes with these labels (instead of NODE...).")
@click.option("--ignore-daemonsets", is_flag=True, default=False, help="Ignore DaemonSet-managed pods.")
@click.option("--delete-emptydir-data", "--delete-local-data", "delete_emptydir_data", is_flag=True, default=False,
              help="Evict pods using emptyDir (their data is lost).")
@click.option("--force", is_flag=True, default=False, help="Also evict pods that declare no controller.")
@click.option("--disable-eviction", is_flag=True, default=False,
              help="Plain DELETE instead of the Eviction API: PodDisruptionBudgets are bypassed.")
@click.option("--grace-period", metavar="SECONDS", default=None,
              help="Grace period for each pod (default -1: the pod's own; 0: immediate).")
@click.option("--pod-selector", metavar="SELECTOR", default=None, help="Only consider pods with these labels.")
@click.option("--skip-wait-for-delete-timeout", metavar="SECONDS", default=None,
              help="Skip pods whose deletionTimestamp is older than this many seconds (default 0: off).")
@click.option("--pod-startup", metavar="DURATION", default="30s", show_default=True,
              help="Time for a replacement pod to become Ready: the spacing of eviction waves.")
@click.option("--one-at-a-time", is_flag=True, default=False,
              help="Drain the nodes in sequence (the order given), each after the previous one's pods landed.")
@global_options
@click.pass_context
def command(ctx: click.Context, nodes: Tuple[str, ...], selector: Optional[str], ignore_daemonsets: bool,
            delete_emptydir_data: bool, force: bool, disable_eviction: bool, grace_period: Optional[str],
            pod_selector: Optional[str], skip_wait_for_delete_timeout: Optional[str], pod_startup: str,
            one_at_a_time: bool, **kw: Any) -> int:
    """Plan kubectl drain of NODE...: cordons, evictions (in waves where PodDisruptionBudgets make
    pods wait for replacements), blocked pods and why, and where each evicted pod lands.

    Several nodes are one maintenance window (all cordoned at once, none receives pods, budgets
    shared) unless --one-at-a-time. Exit code 3 when anything is blocked.

    \b
    Examples:
      kubectl evictplan --demo drain worker-a1 --ignore-daemonsets --delete-emptydir-data --force
      kubectl evictplan -f cluster.json drain n1 n2 n3 --ignore-daemonsets
      kubectl evictplan -f cluster.json -o json drain -l pool=old --ignore-daemonsets --one-at-a-time
    """
    opts = pop_global(ctx, kw)
    if nodes and selector is not None:
        raise click.UsageError("cannot specify both a node name and a --selector option", ctx=ctx)
    if not nodes and selector is None:
        raise click.UsageError("give at least one NODE or --selector", ctx=ctx)
    node_selector = _selector("--selector", selector)
    grace = _int("--grace-period", grace_period, -1, -1)
    skip = _int("--skip-wait-for-delete-timeout", skip_wait_for_delete_timeout, 0, 0)
    startup = duration_flag("--pod-startup", pod_startup, positive=True)
    pods = _selector("--pod-selector", pod_selector)
    flags = FilterFlags(force=force, ignore_daemonsets=ignore_daemonsets, delete_emptydir_data=delete_emptydir_data,
                        skip_wait_for_delete_timeout=skip)

    def rule(snapshot: Snapshot, now: float) -> Plan:
        names = resolve_nodes(snapshot, nodes, node_selector, selector or "")
        settings = DrainSettings(nodes=names, filters=flags, disable_eviction=disable_eviction, grace_period=grace,
                                 pod_selector=pods, pod_startup=startup, one_at_a_time=one_at_a_time)
        return plan_drain(snapshot, settings, now)

    # drain reads no kubelet configz/stats: an empty target list keeps the live loader off them
    return run(opts, rule, nodes=[])
