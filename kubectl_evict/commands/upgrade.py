"""`kubectl evictplan upgrade`: a node-pool upgrade, batch by batch, as the provider rolls it."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import click

from kubectl_evict.commands._run import duration_flag, run
from kubectl_evict.commands.drain import DrainFlags, drain_flags
from kubectl_evict.errors import InputError
from kubectl_evict.model import Snapshot
from kubectl_evict.options import global_options, pop_global
from kubectl_evict.plan import Plan
from kubectl_evict.rules.upgrade import HOSTNAME, PROVIDERS, parse_count, plan_upgrade, resolve_settings
from kubectl_evict.scheduling.labels import label_selector_matches, label_value_errors, qualified_name_errors


def _labels(values: Tuple[str, ...]) -> List[Tuple[str, str]]:
    """--surge-label KEY=VALUE, each a valid label."""
    out: List[Tuple[str, str]] = []
    for text in values:
        key, eq, value = text.partition("=")
        if not eq or not key:
            raise InputError("%r: expected KEY=VALUE" % text, field="--surge-label")
        errs = qualified_name_errors(key) + label_value_errors(value)
        if errs:
            raise InputError("%r: %s" % (text, errs[0]), field="--surge-label")
        if key == HOSTNAME:
            # the kubelet labels each node with its own hostname: one value for every new node would
            # make them one topology domain for hostname-keyed spread and (anti-)affinity
            raise InputError("%r: %s is each node's own (new nodes get their names)" % (text, HOSTNAME),
                             field="--surge-label")
        out.append((key, value))
    return out


@click.command("upgrade", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@drain_flags
@click.option("--provider", type=click.Choice(sorted(PROVIDERS)), default="generic", show_default=True,
              help="Whose rolling upgrade: its defaults and what it does when a drain does not finish.")
@click.option("--max-surge", metavar="N|N%", default=None,
              help="New nodes added beyond the pool's size (default: the provider's; AKS 10%, EKS "
                   "max(2 x zones, max-unavailable), others 1).")
@click.option("--max-unavailable", metavar="N|N%", default=None,
              help="Old nodes drained beyond the surge at once (default: the provider's; EKS 1, others 0).")
@click.option("--surge-like", metavar="NODE", default=None,
              help="The node new nodes are copies of (default: the pool's first node by name).")
@click.option("--surge-label", "surge_labels", metavar="KEY=VALUE", multiple=True,
              help="A label the new nodes carry (repeat for several).")
@click.option("--drain-timeout", metavar="DURATION", default=None,
              help="How long a node's drain may take (default: the provider's: GKE 1h, EKS 15m, AKS 30m, "
                   "Cluster API and generic none; 0: none).")
@click.option("--force-upgrade", is_flag=True, default=False,
              help="The upgrade is forced (EKS update-nodegroup-version --force, AKS force upgrade): a drain "
                   "past its timeout deletes the pods instead of failing the upgrade.")
@click.option("--undrainable-node-behavior", "undrainable", type=click.Choice(["schedule", "cordon"]),
              default="schedule", show_default=True,
              help="AKS: what a drain past its timeout does: schedule fails the upgrade (the node is made "
                   "schedulable again), cordon quarantines the node and upgrades the rest.")
@click.option("--node-startup", metavar="DURATION", default="0s", show_default=True,
              help="Time for a new node to join and become Ready (drains of its batch start after it).")
@global_options
@click.pass_context
def command(ctx: click.Context, nodes: Tuple[str, ...], selector: Optional[str], ignore_daemonsets: bool,
            delete_emptydir_data: bool, force: bool, disable_eviction: bool, grace_period: Optional[str],
            pod_selector: Optional[str], skip_wait_for_delete_timeout: Optional[str], pod_startup: str,
            chunk_size: Optional[str], provider: str, max_surge: Optional[str], max_unavailable: Optional[str],
            surge_like: Optional[str], surge_labels: Tuple[str, ...], drain_timeout: Optional[str],
            force_upgrade: bool, undrainable: str, node_startup: str, **kw: Any) -> int:
    """Plan a node-pool upgrade batch by batch, as GKE, EKS, AKS or Cluster API roll it.

    The pool is NODE... (or -l SELECTOR). New nodes join, old ones are cordoned and drained with kubectl drain's
    semantics (every drain flag applies), PodDisruptionBudget waves, where each pod lands (pods
    that land on an old node of a later batch are evicted again), and what the provider does when
    a drain does not finish. The verdict says how long it takes, where it stalls and how low each
    workload goes. Exit code 3 when the upgrade stalls or fails, 4 when a replacement has nowhere
    to go, 5 when the input lacks kinds the verdict depends on (PodDisruptionBudgets).

    The plan is for review: the provider carries the upgrade out, so --apply is refused.

    \b
    Examples:
      kubectl evictplan --demo upgrade -l disktype=ssd --ignore-daemonsets --delete-emptydir-data --force
      kubectl evictplan -f cluster.json upgrade -l eks.amazonaws.com/nodegroup=ng-1 --provider eks
      kubectl evictplan -f cluster.json upgrade -l pool=a --provider gke --max-surge 2 --max-unavailable 1
      kubectl evictplan -f cluster.json -o timeline upgrade n1 n2 n3 --provider capi --drain-timeout 10m
    """
    opts = pop_global(ctx, kw)
    if opts.apply:
        raise click.UsageError("--apply: an upgrade is carried out by the provider (or Cluster API), not by "
                               "evictplan; the plan is for review (drain single nodes with 'drain --apply')", ctx=ctx)
    if opts.dry_run is not None:
        raise click.UsageError("--dry-run: upgrade only plans", ctx=ctx)
    flags = DrainFlags(ctx, nodes, selector, ignore_daemonsets, delete_emptydir_data, force, disable_eviction,
                       grace_period, pod_selector, skip_wait_for_delete_timeout, pod_startup, chunk_size)
    for flag, value in (("--max-surge", max_surge), ("--max-unavailable", max_unavailable)):
        if value is not None:
            parse_count(flag, value)      # a bad value is bad input (exit 1), as every other flag's
    if force_upgrade and provider not in ("eks", "aks"):
        raise InputError("only EKS (update-nodegroup-version --force) and AKS force an upgrade; %s already %s a "
                         "drain past its timeout" % (provider, "forces" if provider in ("gke", "capi") else "fails"),
                         field="--force-upgrade")
    if undrainable == "cordon" and provider != "aks":
        raise click.BadParameter("cordon: undrainableNodeBehavior is AKS's (give --provider aks)", ctx=ctx,
                                 param_hint="--undrainable-node-behavior")
    timeout = duration_flag("--drain-timeout", drain_timeout)
    startup = duration_flag("--node-startup", node_startup) or 0.0
    labels = _labels(surge_labels)

    def rule(snapshot: Snapshot, now: float) -> Plan:
        settings = resolve_settings(snapshot, flags.settings.set(nodes=flags.resolve(snapshot)), provider=provider,
                                    max_surge=max_surge, max_unavailable=max_unavailable, surge_like=surge_like or "",
                                    surge_labels=labels, drain_timeout=timeout, force=force_upgrade,
                                    node_startup=startup, undrainable=undrainable)
        return flags.chunk_note(plan_upgrade(snapshot, settings, now))

    # a live read asks the upgraded nodes' kubelets for their configuration (graceful shutdown when
    # a provider deletes the VM): the nodes named, or those -l selects, matched as the list arrives
    pool = flags.nodes if flags.node_selector is None else \
        (lambda labels: label_selector_matches(flags.node_selector, labels))
    return run(opts, rule, nodes=pool)
