"""Global options shared by every command, accepted before or after the command name.

kubectl passes no flags to a plugin (`kubectl -n x evictplan` is refused by kubectl itself), so
the plugin owns `--kubeconfig`, `--context` and the snapshot options. Each option is declared on
the group and on every command; values given after the command win, `-f` values add up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional

import click

from kubectl_evict.render import FORMATS


@dataclass
class GlobalOptions:
    kubeconfig: Optional[str] = None
    context: Optional[str] = None
    filenames: List[str] = field(default_factory=list)
    demo: bool = False
    now: Optional[str] = None
    output: str = "table"
    # apply (`apply PLAN_FILE`, or `--apply` on any planning command)
    apply: bool = False
    yes: bool = False
    dry_run: Optional[str] = None
    timeout: Optional[str] = None
    force_stale: bool = False
    follow_timeline: bool = False

    def merge(self, kw: dict) -> None:
        if kw.get("kubeconfig"):
            self.kubeconfig = kw["kubeconfig"]
        if kw.get("context"):
            self.context = kw["context"]
        if kw.get("filenames"):
            self.filenames = self.filenames + list(kw["filenames"])
        if kw.get("demo"):
            self.demo = True
        if kw.get("now"):
            self.now = kw["now"]
        if kw.get("output"):
            self.output = kw["output"]
        for flag in ("apply", "yes", "force_stale", "follow_timeline"):
            if kw.get(flag):
                setattr(self, flag, True)
        for value in ("dry_run", "timeout"):
            if kw.get(value) is not None:
                setattr(self, value, kw[value])


_NAMES = ("kubeconfig", "context", "filenames", "demo", "now", "output",
          "apply", "yes", "dry_run", "timeout", "force_stale", "follow_timeline")


def global_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Declare the global options on a group or command."""
    opts = [
        click.option("--kubeconfig", metavar="PATH", help="Path to the kubeconfig file (default: $KUBECONFIG, ~/.kube/config)."),
        click.option("--context", metavar="NAME", help="The kubeconfig context to use."),
        click.option("-f", "--filename", "filenames", multiple=True, metavar="FILE",
                     help="Read the cluster from a snapshot file, a directory of them, or - for stdin (repeatable). No cluster is contacted."),
        click.option("--demo", is_flag=True, default=False, help="Use the bundled demo cluster (no cluster needed)."),
        click.option("--now", metavar="RFC3339", help="Plan as of this time (default: the snapshot's time)."),
        click.option("-o", "--output", type=click.Choice(FORMATS), default=None, help="Output format (default: table)."),
        click.option("--apply", "apply", is_flag=True, default=False,
                     help="Execute the plan on the live cluster after showing it (see 'apply --help')."),
        click.option("-y", "--yes", "yes", is_flag=True, default=False,
                     help="apply: do not ask for confirmation."),
        click.option("--dry-run", "dry_run", metavar="none|server", default=None,
                     help="apply: server sends every write with dryRun=All and reports what the server would do."),
        click.option("--timeout", "timeout", metavar="DURATION", default=None,
                     help="apply: how long each action may retry refused evictions (429) and errors (default 5m; 0: no limit)."),
        click.option("--force-stale", "force_stale", is_flag=True, default=False,
                     help="apply: skip pods replaced or moved since the plan was made, instead of refusing."),
        click.option("--follow-timeline", "follow_timeline", is_flag=True, default=False,
                     help="apply: wait for each action's planned time (at) instead of running them back to back."),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


def pop_global(ctx: click.Context, kw: dict) -> GlobalOptions:
    """Remove the global options from a command's kwargs and merge them into the context's."""
    root = ctx.find_root()
    if root.obj is None:
        root.obj = GlobalOptions()
    g: GlobalOptions = root.obj
    g.merge({k: kw.pop(k, None) for k in _NAMES})
    return g
