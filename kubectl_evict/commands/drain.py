"""`kubectl evictplan drain`: what `kubectl drain` would do, with PDBs and placement."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import click

from kubectl_evict.commands._run import duration_flag, run
from kubectl_evict.errors import InputError
from kubectl_evict.model import LabelSelector, Snapshot
from kubectl_evict.options import GlobalOptions, global_options, pop_global
from kubectl_evict.plan import Plan
from kubectl_evict.rules.drain import DrainSettings, plan_drain, resolve_nodes
from kubectl_evict.rules.drain_sequence import plan_drain_in_order
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
    """An integer flag, as kubectl drain takes it (--grace-period 30, not 30s), within int32."""
    if text is None:
        return default
    try:
        value = int(text.strip())
    except ValueError:
        hint = ""
        try:
            from kubectl_evict.timeutil import parse_duration
            secs = parse_duration(text.strip())
            if secs == int(secs):
                hint = " (kubectl drain takes whole seconds: %d)" % int(secs)
        except ValueError:
            pass
        raise InputError("%r is not an integer%s" % (text, hint), field=flag) from None
    if value < minimum:
        raise InputError("%r must be %d or more" % (text, minimum), field=flag)
    if value > 2 ** 31 - 1:
        raise InputError("%r is out of range (at most 2147483647)" % text, field=flag)
    return value


DRY_RUN = ("none", "client", "server")


def kubectl_dry_run_and_timeout(ctx: click.Context, opts: GlobalOptions) -> Optional[float]:
    """kubectl drain's --dry-run and --timeout on top of the plugin's own meanings.

    --dry-run=client: plan only (a plan is kubectl's client-side dry run); server: the same as
    --apply --dry-run=server; none: kubectl's default, execute only with --apply. --timeout without
    --apply is a plan parameter (which node's drain would exceed it); with --apply it bounds the
    whole drain. Returns the plan's timeout in seconds (None: none given; 0: no limit)."""
    dry = opts.dry_run
    if dry is not None:
        if dry not in DRY_RUN:
            raise InputError("%r: must be none, client or server (as in kubectl drain)" % dry, field="--dry-run")
        if dry == "client":
            if opts.apply:
                raise click.UsageError("--dry-run=client only plans: it contradicts --apply", ctx=ctx)
            opts.dry_run = None
        elif dry == "server":
            opts.apply = True
        elif not opts.apply:
            opts.dry_run = None
    if opts.timeout is None:
        return None
    seconds = duration_flag("--timeout", opts.timeout)
    if opts.apply:
        opts.timeout_bounds_run = True
    else:
        opts.timeout = None    # a plan parameter here, not apply's retry limit
    return seconds




# kubectl drain's own flags, shared with `upgrade` (which drains every batch the same way)
_DRAIN_FLAGS = (
    click.argument("nodes", nargs=-1, metavar="NODE..."),
    click.option("-l", "--selector", metavar="SELECTOR", help="Drain the nodes with these labels (instead of NODE...)."),
    click.option("--ignore-daemonsets", is_flag=True, default=False, help="Ignore DaemonSet-managed pods."),
    click.option("--delete-emptydir-data", "--delete-local-data", "delete_emptydir_data", is_flag=True, default=False,
                 help="Evict pods using emptyDir (their data is lost)."),
    click.option("--force", is_flag=True, default=False, help="Also evict pods that declare no controller."),
    click.option("--disable-eviction", is_flag=True, default=False,
                 help="Plain DELETE instead of the Eviction API: PodDisruptionBudgets are bypassed."),
    click.option("--grace-period", metavar="SECONDS", default=None,
                 help="Grace period for each pod (default -1: the pod's own; 0: immediate)."),
    click.option("--pod-selector", metavar="SELECTOR", default=None, help="Only consider pods with these labels."),
    click.option("--skip-wait-for-delete-timeout", metavar="SECONDS", default=None,
                 help="Skip pods whose deletionTimestamp is older than this many seconds (default 0: off)."),
    click.option("--pod-startup", metavar="DURATION", default="30s", show_default=True,
                 help="Time for a replacement pod to become Ready. A pod its PDB holds back is evicted at "
                      "kubectl's first 5 s retry after that (30s: waves 30 s apart; 1s: 5 s apart)."),
    click.option("--chunk-size", metavar="N", default=None,
                 help="kubectl drain's list page size: accepted, and it does not change the plan."),
)


def drain_flags(f: Any) -> Any:
    """Decorate a command with kubectl drain's flags (NODE..., -l, the filters, --pod-startup, ...)."""
    for deco in reversed(_DRAIN_FLAGS):
        f = deco(f)
    return f


class DrainFlags:
    """kubectl drain's flags, parsed and checked once (before anything is read)."""

    def __init__(self, ctx: click.Context, nodes: Tuple[str, ...], selector: Optional[str], ignore_daemonsets: bool,
                 delete_emptydir_data: bool, force: bool, disable_eviction: bool, grace_period: Optional[str],
                 pod_selector: Optional[str], skip_wait_for_delete_timeout: Optional[str], pod_startup: str,
                 chunk_size: Optional[str]) -> None:
        if nodes and selector is not None:
            raise click.UsageError("cannot specify both a node name and a --selector option", ctx=ctx)
        if not nodes and selector is None:
            raise click.UsageError("give at least one NODE or --selector", ctx=ctx)
        self.nodes = nodes
        self.selector_text = selector or ""
        self.chunk = _int("--chunk-size", chunk_size, 500, 0) if chunk_size is not None else None
        self.node_selector = _selector("--selector", selector)
        grace = _int("--grace-period", grace_period, -1, -1)
        skip = _int("--skip-wait-for-delete-timeout", skip_wait_for_delete_timeout, 0, 0)
        startup = duration_flag("--pod-startup", pod_startup, positive=True)
        pods = _selector("--pod-selector", pod_selector)
        flags = FilterFlags(force=force, ignore_daemonsets=ignore_daemonsets, delete_emptydir_data=delete_emptydir_data,
                            skip_wait_for_delete_timeout=skip)
        self.settings = DrainSettings(filters=flags, disable_eviction=disable_eviction, grace_period=grace,
                                      pod_selector=pods, pod_startup=startup)

    def resolve(self, snapshot: Snapshot) -> Tuple[str, ...]:
        """The nodes NODE... or -l name in this snapshot."""
        return resolve_nodes(snapshot, self.nodes, self.node_selector, self.selector_text)

    def chunk_note(self, plan: Plan) -> Plan:
        if self.chunk is None:
            return plan
        return plan.set(notes=plan.notes.append(
            "--chunk-size %d only sets the page size of kubectl's list requests: it does not change the plan"
            % self.chunk))


@click.command("drain", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@drain_flags
@click.option("--one-at-a-time", is_flag=True, default=False,
              help="Drain the nodes in sequence (the order given), each cordoned in its turn, after the previous "
                   "one's replacements are Ready. A replacement that lands on a node drained later is evicted again "
                   "in that node's turn (planned, PDB budget spent again); cordon all the nodes first to avoid it.")
@global_options
@click.pass_context
def command(ctx: click.Context, nodes: Tuple[str, ...], selector: Optional[str], ignore_daemonsets: bool,
            delete_emptydir_data: bool, force: bool, disable_eviction: bool, grace_period: Optional[str],
            pod_selector: Optional[str], skip_wait_for_delete_timeout: Optional[str], pod_startup: str,
            one_at_a_time: bool, chunk_size: Optional[str], **kw: Any) -> int:
    """Plan kubectl drain of NODE...: cordons, evictions (in waves where PodDisruptionBudgets make
    pods wait for replacements), blocked pods and why, and where each evicted pod lands.

    Several nodes are one maintenance window (all cordoned at once, none receives pods, budgets
    shared) unless --one-at-a-time (node after node; pods that land on a node drained later are
    evicted again in that node's turn). Exit code 3 when anything is blocked, 4 when a replacement
    has nowhere to go.

    \b
    Examples:
      kubectl evictplan --demo drain worker-a1 --ignore-daemonsets --delete-emptydir-data --force
      kubectl evictplan -f cluster.json drain n1 n2 n3 --ignore-daemonsets
      kubectl evictplan -f cluster.json -o json drain -l pool=old --ignore-daemonsets --one-at-a-time
    """
    opts = pop_global(ctx, kw)
    timeout = kubectl_dry_run_and_timeout(ctx, opts)
    flags = DrainFlags(ctx, nodes, selector, ignore_daemonsets, delete_emptydir_data, force, disable_eviction,
                       grace_period, pod_selector, skip_wait_for_delete_timeout, pod_startup, chunk_size)

    def rule(snapshot: Snapshot, now: float) -> Plan:
        settings = flags.settings.set(nodes=flags.resolve(snapshot), one_at_a_time=one_at_a_time,
                                      timeout=timeout or None)
        plan = (plan_drain_in_order if one_at_a_time else plan_drain)(snapshot, settings, now)
        moved = plan.extra.get("movedMoreThanOnce")
        if opts.apply and moved:
            # a second eviction targets a replacement whose name (and uid) no plan can know
            raise InputError("%d pod(s) would be evicted again from a node drained later (%s): apply cannot name "
                             "their replacements; cordon all the nodes first (kubectl cordon NODE...), then apply"
                             % (len(moved), ", ".join("%s/%s" % (m["namespace"], m["pod"]) for m in moved[:3])),
                             field="--one-at-a-time")
        return flags.chunk_note(plan)

    # drain reads no kubelet configz/stats: an empty target list keeps the live loader off them
    return run(opts, rule, nodes=[])


command.shown_global_options = ("timeout", "dry_run")   # kubectl drain's meanings, in drain --help
for _p in command.params:
    if _p.name == "timeout":
        _p.help = ("kubectl drain's --timeout, which changes the plan (drain-timeout): the plan says which "
                   "node's drain would take longer and what kubectl then does; with --apply it also bounds "
                   "the whole drain (0: no limit).")
    elif _p.name == "dry_run":
        _p.help = "none|client|server: client only plans; server is --apply --dry-run=server."
        _p.metavar = "none|client|server"
