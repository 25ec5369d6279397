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


_NAMES = ("kubeconfig", "context", "filenames", "demo", "now", "output")


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
