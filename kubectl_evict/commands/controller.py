"""`kubectl evictplan controller`: the node lifecycle controller's timeline if nodes or zones fail."""

from __future__ import annotations

from typing import Any, Optional

import click

from kubectl_evict.commands._run import duration_flag, run
from kubectl_evict.errors import InputError
from kubectl_evict.options import global_options, pop_global
from kubectl_evict.rules.controller import ControllerPlanSettings, plan_controller
from kubectl_evict.rules.nodelifecycle import ControllerSettings




def _number(flag: str, text: Optional[str], *, lo: float = 0.0, hi: Optional[float] = None) -> Optional[float]:
    if text is None:
        return None
    try:
        v = float(text)
    except ValueError:
        raise InputError("expected a number, got %r" % text, field=flag) from None
    if v != v or v in (float("inf"), float("-inf")) or v < lo or (hi is not None and v > hi):
        bound = "between %g and %g" % (lo, hi) if hi is not None else "%g or more" % lo
        raise InputError("must be %s, got %r" % (bound, text), field=flag)
    return v


def _int(flag: str, text: Optional[str]) -> Optional[int]:
    if text is None:
        return None
    try:
        v = int(text, 10)
    except ValueError:
        raise InputError("expected a whole number, got %r" % text, field=flag) from None
    if v < 0:
        raise InputError("must be 0 or more, got %r" % text, field=flag)
    if v > 2 ** 31 - 1:   # kube-controller-manager's flag is an int32
        raise InputError("must be at most 2147483647, got %r" % text, field=flag)
    return v


@click.command("controller", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--fail", "fail", multiple=True, metavar="NODE", help="This node stops posting status at now (repeatable).")
@click.option("--fail-zone", "fail_zones", multiple=True, metavar="ZONE",
              help="Every node of this zone stops posting status at now (repeatable; zone label value or region/zone).")
@click.option("--node-monitor-grace-period", metavar="D",
              help="Silence before a node turns Unknown (default 50s; 40s for servers older than v1.32).")
@click.option("--node-startup-grace-period", metavar="D", help="Grace for nodes that never posted status (default 60s).")
@click.option("--node-monitor-period", metavar="D", help="The controller's pass interval (default 5s).")
@click.option("--node-eviction-rate", metavar="R", help="NoExecute taints per second per zone (default 0.1).")
@click.option("--secondary-node-eviction-rate", metavar="R",
              help="Rate in a partially disrupted zone larger than --large-cluster-size-threshold (default 0.01).")
@click.option("--unhealthy-zone-threshold", metavar="F",
              help="Share of not-ready nodes (with more than 2) that makes a zone PartialDisruption (default 0.55).")
@click.option("--large-cluster-size-threshold", metavar="N",
              help="Zones of at most N nodes stop tainting when partially disrupted (default 50).")
@click.option("--horizon", metavar="D", help="Cut the timeline here (default 15m).")
@click.option("--legacy-eviction", is_flag=True, default=False,
              help="Pre-taint behaviour: delete a down node's pods after --pod-eviction-timeout, rate-limited per zone.")
@click.option("--pod-eviction-timeout", metavar="D", help="With --legacy-eviction (default 5m).")
@global_options
@click.pass_context
def command(ctx: click.Context, fail: Any, fail_zones: Any, node_monitor_grace_period: Optional[str],
            node_startup_grace_period: Optional[str], node_monitor_period: Optional[str],
            node_eviction_rate: Optional[str], secondary_node_eviction_rate: Optional[str],
            unhealthy_zone_threshold: Optional[str], large_cluster_size_threshold: Optional[str],
            horizon: Optional[str], legacy_eviction: bool, pod_eviction_timeout: Optional[str], **kw: Any) -> int:
    """What the control plane does, and when, if nodes or whole zones stop responding.

    Starts from the snapshot at now (nodes it already shows unhealthy are taken as they are);
    --fail / --fail-zone make nodes stop posting status at now. Prints the timeline: Unknown and
    NoSchedule taints after the grace period, NoExecute taints (from v1.34 in the same pass, one
    monitor period later before) through each zone's rate-limited queue (slowed or stopped when a zone is partially disrupted, none at
    all when every zone is down), and pod deletions by the taint-eviction controller at
    taint time + tolerationSeconds (a plain DELETE: PodDisruptionBudgets are not consulted), with
    the node each replacement pod would land on.

    \b
    Examples:
      kubectl evictplan --demo controller --fail worker-a1
      kubectl evictplan --demo controller --fail-zone eu-west-1b --horizon 30m
      kubectl evictplan -f cluster.json controller --fail-zone eu-west-1a --fail-zone eu-west-1b
    """
    opts = pop_global(ctx, kw)
    c: dict = {}
    for key, flag, val, fn in (
            ("node_monitor_grace_period", "--node-monitor-grace-period", node_monitor_grace_period, duration_flag),
            ("node_startup_grace_period", "--node-startup-grace-period", node_startup_grace_period, duration_flag),
            ("pod_eviction_timeout", "--pod-eviction-timeout", pod_eviction_timeout, duration_flag)):
        v = fn(flag, val)
        if v is not None:
            c[key] = v
    v = duration_flag("--node-monitor-period", node_monitor_period, positive=True)
    if v is not None:
        c["node_monitor_period"] = v
    v = duration_flag("--horizon", horizon, positive=True)
    if v is not None:
        c["horizon"] = v
    for key, flag, val in (("node_eviction_rate", "--node-eviction-rate", node_eviction_rate),
                           ("secondary_node_eviction_rate", "--secondary-node-eviction-rate", secondary_node_eviction_rate)):
        v = _number(flag, val)
        if v is not None:
            c[key] = v
    v = _number("--unhealthy-zone-threshold", unhealthy_zone_threshold, lo=0.0, hi=1.0)
    if v is not None:
        c["unhealthy_zone_threshold"] = v
    n = _int("--large-cluster-size-threshold", large_cluster_size_threshold)
    if n is not None:
        c["large_cluster_size_threshold"] = n
    if pod_eviction_timeout is not None and not legacy_eviction:
        raise InputError("only applies with --legacy-eviction (eviction is taint-based since v1.13)",
                         field="--pod-eviction-timeout")
    c["legacy_eviction"] = legacy_eviction
    settings = ControllerPlanSettings(fail=tuple(fail), fail_zones=tuple(fail_zones), controller=ControllerSettings(**c))
    return run(opts, lambda snap, now: plan_controller(snap, settings, now), nodes=[],  # no kubelet data needed
               rule_lists_pods=True)
