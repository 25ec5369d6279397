"""Global options shared by every command, accepted before or after the command name.

kubectl passes no flags to a plugin (`kubectl -n x evictplan` is refused by kubectl itself), so
the plugin owns `--kubeconfig`, `--context`, kubectl's other connection flags (`--as`, `--token`,
`--server`, ... applied in `source/live.py`) and the snapshot options. Each option is declared on
the group and on every command; values given after the command win, `-f` and `--as-group` add up.
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
    kubernetes_version: Optional[str] = None   # --kubernetes-version: whose behaviour to model
    output: str = "table"
    output_given: bool = False   # -o was on the command line (snapshot refuses an explicit table)
    # apply (`apply PLAN_FILE`, or `--apply` on any planning command)
    apply: bool = False
    yes: bool = False
    dry_run: Optional[str] = None
    timeout: Optional[str] = None
    force_stale: bool = False
    follow_timeline: bool = False
    # kubectl's global connection flags (they reach the client's Configuration in source/live.py)
    as_user: Optional[str] = None
    as_groups: List[str] = field(default_factory=list)
    as_uid: Optional[str] = None
    user: Optional[str] = None
    cluster: Optional[str] = None
    namespace: Optional[str] = None
    server: Optional[str] = None
    token: Optional[str] = None
    certificate_authority: Optional[str] = None
    client_certificate: Optional[str] = None
    client_key: Optional[str] = None
    insecure_skip_tls_verify: bool = False
    request_timeout: Optional[str] = None
    verbosity: int = 0
    command: str = ""            # the subcommand, for messages that depend on it
    timeout_bounds_run: bool = False   # drain: --timeout bounds the whole drain (kubectl drain's meaning)

    def merge(self, kw: dict) -> None:
        if kw.get("kubeconfig"):
            self.kubeconfig = kw["kubeconfig"]
        if kw.get("context"):
            self.context = kw["context"]
        if kw.get("filenames"):
            self.filenames = self.filenames + list(kw["filenames"])
        if kw.get("demo"):
            self.demo = True
        if kw.get("now") is not None:   # `--now ""` reaches the parser and is refused, not dropped
            self.now = kw["now"]
        if kw.get("kubernetes_version") is not None:
            self.kubernetes_version = kw["kubernetes_version"]
        if kw.get("output"):
            self.output = kw["output"]
            self.output_given = True
        for flag in ("apply", "yes", "force_stale", "follow_timeline"):
            if kw.get(flag):
                setattr(self, flag, True)
        for value in ("dry_run", "timeout", "as_user", "as_uid", "user", "cluster", "namespace", "server", "token",
                      "certificate_authority", "client_certificate", "client_key", "request_timeout"):
            if kw.get(value) is not None:
                setattr(self, value, kw[value])
        if kw.get("as_groups"):
            self.as_groups = self.as_groups + list(kw["as_groups"])
        if kw.get("insecure_skip_tls_verify"):
            self.insecure_skip_tls_verify = True
        if kw.get("verbosity") is not None:
            self.verbosity = kw["verbosity"]

    def connection_flags(self) -> List[str]:
        """The connection flags given (for errors where no cluster is contacted)."""
        out = []
        for flag, attr in CONNECTION_FLAGS:
            if getattr(self, attr) not in (None, False, [], 0):
                out.append(flag)
        return out


CONNECTION_FLAGS = (("--as", "as_user"), ("--as-group", "as_groups"), ("--as-uid", "as_uid"), ("--user", "user"),
                    ("--cluster", "cluster"), ("--server", "server"), ("--token", "token"),
                    ("--certificate-authority", "certificate_authority"),
                    ("--client-certificate", "client_certificate"), ("--client-key", "client_key"),
                    ("--insecure-skip-tls-verify", "insecure_skip_tls_verify"),
                    ("--request-timeout", "request_timeout"))


_NAMES = ("kubeconfig", "context", "filenames", "demo", "now", "kubernetes_version", "output",
          "apply", "yes", "dry_run", "timeout", "force_stale", "follow_timeline",
          "as_user", "as_groups", "as_uid", "user", "cluster", "namespace", "server", "token",
          "certificate_authority", "client_certificate", "client_key", "insecure_skip_tls_verify",
          "request_timeout", "verbosity")


def global_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Declare the global options on a group or command."""
    opts = [
        click.option("--kubeconfig", metavar="PATH", help="Path to the kubeconfig file (default: $KUBECONFIG, ~/.kube/config)."),
        click.option("--context", metavar="NAME", help="The kubeconfig context to use."),
        click.option("-f", "--filename", "filenames", multiple=True, metavar="FILE",
                     help="Read the cluster from a snapshot file, a directory of them, or - for stdin (repeatable). No cluster is contacted."),
        click.option("--demo", is_flag=True, default=False, help="Use the bundled demo cluster (no cluster needed)."),
        click.option("--now", metavar="RFC3339", help="Plan as of this time (default: the snapshot's time)."),
        click.option("--kubernetes-version", "kubernetes_version", metavar="vX.Y[.Z]", default=None,
                     help="Plan with this Kubernetes release's behaviour (v1.30 to v1.37 are modelled; "
                          "default: the snapshot's serverVersion, else its newest kubelet, else v1.37)."),
        click.option("-o", "--output", type=click.Choice(FORMATS), default=None, help="Output format (default: table)."),
        click.option("--apply", "apply", is_flag=True, default=False,
                     help="Execute the plan on the live cluster after showing it (see 'apply --help')."),
        click.option("-y", "--yes", "yes", is_flag=True, default=False,
                     help="apply: do not ask for confirmation."),
        click.option("--dry-run", "dry_run", metavar="none|server", default=None,
                     help="apply: server sends every write with dryRun=All and reports what the server would do."),
        click.option("--timeout", "timeout", metavar="DURATION", default=None,
                     help="apply: how long each action may retry refused evictions (429) and errors (default 5m; 0: no "
                          "limit). drain: kubectl drain's --timeout, a plan parameter (which node's drain would "
                          "take longer; see 'drain --help'); with --apply it bounds the whole drain."),
        click.option("--force-stale", "force_stale", is_flag=True, default=False,
                     help="apply: skip pods replaced or moved since the plan was made, instead of refusing."),
        click.option("--follow-timeline", "follow_timeline", is_flag=True, default=False,
                     help="apply: wait for each action's planned time (at) instead of running them back to back."),
        # kubectl's connection flags (kubectl passes none of its own flags to a plugin)
        click.option("--as", "as_user", metavar="USER", help="Impersonate this user (Impersonate-User header)."),
        click.option("--as-group", "as_groups", multiple=True, metavar="GROUP",
                     help="Impersonate this group (repeatable; Impersonate-Group header)."),
        click.option("--as-uid", "as_uid", metavar="UID", help="Impersonate this UID (Impersonate-Uid header)."),
        click.option("--user", "user", metavar="NAME", help="The kubeconfig user to use (instead of the context's)."),
        click.option("--cluster", "cluster", metavar="NAME", help="The kubeconfig cluster to use (instead of the context's)."),
        click.option("-n", "--namespace", "namespace", metavar="NS",
                     help="Accepted for kubectl compatibility; refused: every command plans whole nodes, all namespaces."),
        click.option("-s", "--server", "server", metavar="URL", help="The API server's address (overrides the kubeconfig's)."),
        click.option("--token", "token", metavar="TOKEN", help="Bearer token for the API server."),
        click.option("--certificate-authority", "certificate_authority", metavar="PATH",
                     help="CA certificate file for the API server."),
        click.option("--client-certificate", "client_certificate", metavar="PATH", help="Client certificate file for TLS."),
        click.option("--client-key", "client_key", metavar="PATH", help="Client key file for TLS."),
        click.option("--insecure-skip-tls-verify", "insecure_skip_tls_verify", is_flag=True, default=False,
                     help="Do not check the API server's certificate (insecure)."),
        click.option("--request-timeout", "request_timeout", metavar="D",
                     help="Time limit for each API request: seconds (30) or a duration (30s, 1m); 0: none."),
        click.option("-v", "--v", "verbosity", type=click.IntRange(0, 10), default=None, metavar="N",
                     help="Log level: 6 logs each API request (method, URL, status, time) on stderr; "
                          "7 adds the request headers, credentials masked."),
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
    if ctx is not root:
        g.command = ctx.info_name or ""
        if g.namespace is not None:
            raise click.UsageError("%s plans whole nodes: the pods of every namespace take part, so a namespace "
                                   "scope does not apply (drop -n/--namespace %s)" % (g.command, g.namespace), ctx=ctx)
    return g
