"""`kubectl evictplan shutdown`: graceful (kubelet) and non-graceful (out-of-service) node shutdown."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import click

from kubectl_evict.commands._run import duration_flag, run
from kubectl_evict.errors import InputError, ValueParseError
from kubectl_evict.options import global_options, pop_global
from kubectl_evict.rules.shutdown import INT32, Group, ShutdownConfig, ShutdownSettings, config_from_kubelet, plan_shutdown
from kubectl_evict.timeutil import parse_duration




def parse_by_priority_flag(values: Tuple[str, ...]) -> Optional[Tuple[Group, ...]]:
    """`PRIORITY=D[,PRIORITY=D...]` (repeatable): D a Go duration of whole seconds, or plain seconds."""
    if not values:
        return None
    out = []
    seen = set()
    for value in values:
        for part in value.split(","):
            part = part.strip()
            prio_text, sep, dur = part.partition("=")
            if not sep or not prio_text.strip() or not dur.strip():
                raise InputError("expected PRIORITY=DURATION (like 100000=10s), got %r" % part, field="--by-priority")
            try:
                prio = int(prio_text.strip())
            except ValueError:
                raise InputError("priority %r in %r is not an integer" % (prio_text, part), field="--by-priority") from None
            if not INT32[0] <= prio <= INT32[1]:
                raise InputError("priority %d in %r is out of the int32 range" % (prio, part), field="--by-priority")
            dur = dur.strip()
            try:
                secs = float(int(dur)) if dur.lstrip("-").isdigit() else parse_duration(dur)
            except ValueParseError as e:
                raise InputError("%s in %r" % (e, part), field="--by-priority") from None
            if secs < 0 or secs != int(secs):
                raise InputError("%r: shutdownGracePeriodSeconds must be a whole, non-negative number of seconds"
                                 % part, field="--by-priority")
            if prio in seen:
                raise InputError("priority %d is given twice" % prio, field="--by-priority")
            seen.add(prio)
            out.append(Group(prio, int(secs)))
    return tuple(out)


@click.command("shutdown", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("nodes", nargs=-1, required=True, metavar="NODE...")
@click.option("--grace-period", metavar="D", help="shutdownGracePeriod: seconds (30) or a Go duration (30s, 1m30s).")
@click.option("--critical-grace-period", metavar="D",
              help="shutdownGracePeriodCriticalPods: seconds (10) or a Go duration (10s).")
@click.option("--by-priority", "by_priority", multiple=True, metavar="PRIORITY=D[,PRIORITY=D...]",
              help="shutdownGracePeriodByPodPriority, e.g. 100000=10s,10000=180s,0=60s.")
@click.option("--kubelet-config", metavar="FILE",
              help="A KubeletConfiguration file (YAML/JSON) to use instead of the nodes' configuration in the snapshot.")
@click.option("--inhibit-delay-max", default="30s", show_default=True, metavar="D",
              help="logind's InhibitDelayMaxSec on the nodes.")
@click.option("--non-graceful", is_flag=True, default=False,
              help="The nodes are already powered off: plan the node.kubernetes.io/out-of-service taint.")
@click.option("--disable-force-detach-on-timeout", is_flag=True, default=False,
              help="kube-controller-manager runs with --disable-force-detach-on-timeout.")
@global_options
@click.pass_context
def command(ctx: click.Context, nodes: Tuple[str, ...], grace_period: Optional[str], critical_grace_period: Optional[str],
            by_priority: Tuple[str, ...], kubelet_config: Optional[str], inhibit_delay_max: str, non_graceful: bool,
            disable_force_detach_on_timeout: bool, **kw: Any) -> int:
    """In what order pods stop when nodes shut down, and with how much grace.

    Graceful (default): the kubelet's shutdown manager stops pods in priority phases
    (shutdownGracePeriod / shutdownGracePeriodCriticalPods, or shutdownGracePeriodByPodPriority),
    lowest priority first, each with min(its terminationGracePeriodSeconds, the phase's seconds);
    the node turns NotReady and the controllers taint it. Settings: flags, then --kubelet-config,
    then the node's NodeKubeletConfig in the snapshot, then upstream defaults (disabled).

    --non-graceful: the node is already down; plan the out-of-service taint, the forced
    deletions, the volume detaches and where StatefulSet pods start again.

    \b
    Examples:
      kubectl evictplan --demo shutdown worker-a1
      kubectl evictplan --demo shutdown worker-a1 --grace-period 60s --critical-grace-period 20s
      kubectl evictplan --demo shutdown gpu-1 --by-priority 100000=10s,10000=180s,1000=120s,0=60s
      kubectl evictplan --demo shutdown worker-c2 --non-graceful
    """
    opts = pop_global(ctx, kw)
    grace = duration_flag("--grace-period", grace_period, negative_ok=True, seconds_ok=True)
    critical = duration_flag("--critical-grace-period", critical_grace_period, negative_ok=True, seconds_ok=True)
    groups = parse_by_priority_flag(by_priority)
    inhibit = duration_flag("--inhibit-delay-max", inhibit_delay_max)
    if non_graceful and (grace is not None or critical is not None or groups is not None or kubelet_config):
        raise click.UsageError("--non-graceful plans nodes that are already down: the graceful shutdown settings "
                               "(--grace-period, --critical-grace-period, --by-priority, --kubelet-config) do not apply")
    given = [f for f, v in (("--grace-period", grace), ("--critical-grace-period", critical), ("--by-priority", groups))
             if v is not None]
    flags = ShutdownConfig(grace=grace, critical=critical, by_priority=groups, source="/".join(given) or "flags")
    file_cfg = None
    if kubelet_config is not None:   # "" is a path too: it names no file, say so
        from kubectl_evict.kubeletconfig import load_kubelet_config
        file_cfg = config_from_kubelet(load_kubelet_config(kubelet_config), "--kubelet-config " + kubelet_config)
    settings = ShutdownSettings(nodes=tuple(nodes), flags=flags, kubelet_config=file_cfg, non_graceful=non_graceful,
                                inhibit_delay_max=inhibit if inhibit is not None else 30.0,
                                disable_force_detach_on_timeout=disable_force_detach_on_timeout)
    return run(opts, lambda snap, now: plan_shutdown(snap, settings, now), nodes=list(nodes))
