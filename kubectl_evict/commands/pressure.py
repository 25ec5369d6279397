"""`kubectl evictplan pressure`: which pods the kubelet kills under node pressure, in what
order, and when it stops."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple, Union

import click
from pyrsistent import pmap

from kubectl_evict.commands._run import run
from kubectl_evict.errors import InputError, ValueParseError
from kubectl_evict.eviction.ranking import RANKINGS
from kubectl_evict.eviction.thresholds import (SIGNAL_RESOURCE, UNSUPPORTED, ThresholdError, parse_duration_go,
                                               parse_flag_map, parse_grace_periods, parse_minimum_reclaims,
                                               parse_threshold_statements)
from kubectl_evict.options import global_options, pop_global
from kubectl_evict.quantity import parse_quantity, to_units
from kubectl_evict.rules.pressure import PressureSettings, SignalOverride, plan_pressure


def parse_signal(text: str) -> SignalOverride:
    """`NODE:SIGNAL=QUANTITY` or `NODE:SIGNAL=PERCENT%` (of the signal's capacity)."""
    node, sep, rest = text.partition(":")
    signal, eq, value = rest.partition("=")
    if not sep or not node or not eq or not signal or not value:
        raise InputError("expected NODE:SIGNAL=QUANTITY (for example n1:memory.available=300Mi), got %r" % text,
                         field="--signal")
    if signal not in SIGNAL_RESOURCE:
        raise InputError((UNSUPPORTED % signal) + " in %r" % text, field="--signal")
    if value.endswith("%"):
        try:
            pct = float(value[:-1])
        except ValueError:
            raise InputError("invalid percentage %r in %r" % (value, text), field="--signal") from None
        if not 0 <= pct <= 100:
            raise InputError("percentage %r in %r must be between 0%% and 100%%" % (value, text), field="--signal")
        return SignalOverride(node, signal, None, pct, text)
    try:
        q = parse_quantity(value)
    except ValueParseError as e:
        raise InputError("%s in %r" % (e, text), field="--signal") from None
    if q < 0:
        raise InputError("available amount %r in %r must not be negative" % (value, text), field="--signal")
    if q > (1 << 63) - 1:   # the kubelet's observations are int64 quantities
        raise InputError("available amount %r in %r is out of range (above the int64 maximum)" % (value, text),
                         field="--signal")
    return SignalOverride(node, signal, to_units("memory", q), None, text)


def _flag_map(flag: str, values: Union[None, str, Sequence[str]], sep: str) -> Optional[Dict[str, str]]:
    """One map flag, given once or repeated: repeats add to the same map, a later key winning,
    as the kubelet's cliflag map types do (`--flag "a<foo" --flag "b<foo"`)."""
    if values is None or isinstance(values, str):
        values = () if values is None else (values,)
    if not values:
        return None
    out: Dict[str, str] = {}
    for value in values:
        try:
            out.update(parse_flag_map(value, sep))
        except ThresholdError as e:
            raise InputError("%s: %r" % (e, value), field=flag) from None
    return out


FlagValues = Union[None, str, Sequence[str]]


def flag_settings(hard: FlagValues, soft: FlagValues, grace: FlagValues, reclaim: FlagValues,
                  max_grace: Optional[str], transition: Optional[str]) -> Dict[str, Any]:
    """The kubelet flags as KubeletConfiguration fields, each validated as the kubelet would
    (the four map flags may be repeated)."""
    out: Dict[str, Any] = {}
    checks: Tuple = (("--eviction-hard", "evictionHard", hard, "<", parse_threshold_statements),
                     ("--eviction-soft", "evictionSoft", soft, "<", parse_threshold_statements),
                     ("--eviction-soft-grace-period", "evictionSoftGracePeriod", grace, "=", parse_grace_periods),
                     ("--eviction-minimum-reclaim", "evictionMinimumReclaim", reclaim, "=", parse_minimum_reclaims))
    for flag, key, value, sep, check in checks:
        m = _flag_map(flag, value, sep)
        if m is None:
            continue
        try:
            check(m)
        except ThresholdError as e:
            raise InputError(str(e), field=flag) from None
        out[key] = m
    if max_grace is not None:
        try:
            seconds = int(max_grace)
        except ValueError:
            raise InputError("expected a whole number of seconds, got %r" % max_grace,
                             field="--eviction-max-pod-grace-period") from None
        if not 0 <= seconds <= 2 ** 31 - 1:   # an int32 of seconds; a negative cap means nothing
            raise InputError("must be between 0 and 2147483647 seconds, got %r" % max_grace,
                             field="--eviction-max-pod-grace-period")
        out["evictionMaxPodGracePeriod"] = seconds
    if transition is not None:
        try:
            seconds = parse_duration_go(transition)
        except ThresholdError as e:
            raise InputError(str(e), field="--eviction-pressure-transition-period") from None
        if seconds < 0:
            raise InputError("must not be negative: %r" % transition, field="--eviction-pressure-transition-period")
        out["evictionPressureTransitionPeriod"] = transition
    return out


@click.command("pressure", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("nodes", nargs=-1, metavar="[NODE]...")
@click.option("--eviction-hard", multiple=True, metavar="T", help="Hard thresholds, kubelet syntax, quoted (< is a shell redirect): "
                   "'memory.available<500Mi' (several: comma-separated, or the flag repeated, as the kubelet's).")
@click.option("--eviction-soft", multiple=True, metavar="T", help="Soft thresholds (need --eviction-soft-grace-period).")
@click.option("--eviction-soft-grace-period", multiple=True, metavar="G", help="Grace per soft signal: memory.available=1m30s,...")
@click.option("--eviction-minimum-reclaim", multiple=True, metavar="R", help="Minimum reclaim per signal: memory.available=200Mi,...")
@click.option("--eviction-max-pod-grace-period", metavar="N", help="Max pod grace (seconds) for soft evictions.")
@click.option("--eviction-pressure-transition-period", metavar="D", help="How long a pressure condition outlives its signal (default 5m).")
@click.option("--kubelet-config", metavar="FILE",
              help="KubeletConfiguration YAML/JSON, configz output, or OpenShift 3.x node-config.yaml (kubeletArguments).")
@click.option("--signal", "signals", multiple=True, metavar="NODE:SIGNAL=QUANTITY",
              help="What-if: override one observation, e.g. n1:memory.available=300Mi or n1:memory.available=5% (repeatable).")
@click.option("--ranking", type=click.Choice(RANKINGS), default="priority", show_default=True,
              help="priority: current kubelet ranking; qos: OpenShift 3.x / early kubelets (BestEffort, Burstable, Guaranteed).")
@click.option("--oom", is_flag=True, default=False, help="Also show oom_score_adj per container and the kernel OOM killer's order.")
@global_options
@click.pass_context
def command(ctx: click.Context, nodes: Tuple[str, ...], eviction_hard: Tuple[str, ...], eviction_soft: Tuple[str, ...],
            eviction_soft_grace_period: Tuple[str, ...], eviction_minimum_reclaim: Tuple[str, ...],
            eviction_max_pod_grace_period: Optional[str], eviction_pressure_transition_period: Optional[str],
            kubelet_config: Optional[str], signals: Tuple[str, ...], ranking: str, oom: bool, **kw: Any) -> int:
    """Which pods the kubelet kills under node pressure, in what order, and when it stops.

    Simulates the kubelet eviction manager from the snapshot's stats summaries in 10s steps:
    thresholds, grace periods, minimum reclaim, pressure conditions and taints, one kill per
    cycle in the kubelet's ranking. Thresholds come from the flags, then --kubelet-config,
    then each node's kubelet config in the snapshot, then upstream defaults.

    \b
    Examples:
      kubectl evictplan --demo pressure
      kubectl evictplan -f cluster.json pressure n1 --signal n1:memory.available=300Mi \\
          --eviction-hard 'memory.available<500Mi' --eviction-minimum-reclaim memory.available=200Mi
      kubectl evictplan -f cluster.json pressure n1 --kubelet-config node-config.yaml --ranking qos --oom
    """
    opts = pop_global(ctx, kw)
    flags = flag_settings(eviction_hard, eviction_soft, eviction_soft_grace_period, eviction_minimum_reclaim,
                          eviction_max_pod_grace_period, eviction_pressure_transition_period)
    parsed_signals = tuple(parse_signal(s) for s in signals)
    cfg = None
    if kubelet_config is not None:   # "" is a path too: it names no file, say so
        from kubectl_evict.kubeletconfig import load_kubelet_config
        cfg = load_kubelet_config(kubelet_config)
    settings = PressureSettings(nodes=tuple(dict.fromkeys(nodes)), flags=pmap(flags), kubelet_config=cfg,
                                kubelet_config_source=kubelet_config or "", signals=parsed_signals,
                                ranking=ranking, oom=oom)
    return run(opts, lambda snap, now: plan_pressure(snap, settings, now), nodes=list(nodes) or None)

