"""The command line: parse flags, call source -> rule -> render, map errors to exit codes.

Exit codes (contract): 0 plan computed and nothing blocked; 3 plan computed but something is
blocked; 4 nothing blocked but a shortfall; 5 neither, but the verdict depends on kinds the input
does not hold; 1 error (one `error:` line on stderr, never a traceback); 2 usage error.
Commands live in `kubectl_evict/commands/`, one module each, and are discovered at start-up.
"""

from __future__ import annotations

import errno
import importlib
import os
import pkgutil
import sys
from typing import Any, List, Optional

import click

from kubectl_evict import __version__, collector, completion
from kubectl_evict.errors import EvictPlanError
from kubectl_evict.options import global_options, pop_global

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class _Group(click.Group):
    def list_commands(self, ctx: click.Context) -> List[str]:
        return sorted(self.commands)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list with each command's whole first sentence (click cuts it at 45 columns)."""
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd.get_short_help_str(limit=300)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


GLOBAL_EPILOG = ("Global options (-f, --demo, --context, --kubeconfig, --now, -o, --apply ...) go before or after "
                 "the command: see 'kubectl evictplan options'.")


def _global_names() -> set:
    from kubectl_evict.options import _NAMES
    return set(_NAMES)


def _hide_global_options(cmd: click.Command) -> None:
    """Global options are documented once (`options`, `--help` of the group), as kubectl does: a
    subcommand still accepts them, but its help shows only its own flags and examples, and the
    global ones it names in `shown_global_options` (apply's and verify's own flags; drain's
    --timeout and --dry-run, which keep kubectl drain's meanings there)."""
    names = _global_names() - set(getattr(cmd, "shown_global_options", ()))
    if cmd.name == "verify":  # which cluster, as of when, how to report
        names -= {"kubeconfig", "context", "output", "now"}
        for p in cmd.params:
            if p.name == "now":
                p.help = "Judge what is due as of this time (default: when the cluster is read)."
            elif p.name == "output":
                p.type = click.Choice([f for f in p.type.choices if f != "timeline"])
    for p in cmd.params:
        if p.name in names and isinstance(p, click.Option):
            p.hidden = True
    if not cmd.epilog:
        cmd.epilog = GLOBAL_EPILOG


def _version_text() -> str:
    """Version, interpreter, install kind and which fast paths are really in use (they are optional:
    msgspec comes from the krew archive's wheel for this CPython, or from the user's own install)."""
    try:
        from kubectl_evict import _bundle  # written into the krew archive by tools/build_release.py
    except ImportError:
        _bundle = None  # type: ignore[assignment]
    try:
        import kubectl_evict.source.fastjson  # noqa: F401  (imports msgspec)
        import msgspec
        where = os.path.dirname(os.path.dirname(os.path.abspath(msgspec.__file__)))
        native = getattr(_bundle, "NATIVE_DIR", None)
        if native and os.path.basename(os.path.dirname(where)) == native:
            whence = "from the krew archive, %s" % os.path.basename(where)
        else:
            whence = "installed, %s" % where
        fast = "msgspec %s fast JSON path active (%s)" % (getattr(msgspec, "__version__", "?"), whence)
    except ImportError:
        fast = "msgspec missing: stdlib JSON path (slower on large snapshots)"
    try:  # pyrsistent picks its C pvector at import unless absent or PYRSISTENT_NO_C_EXTENSION is set
        from pyrsistent import pvector
        from pyrsistent._pvector import python_pvector
        pv = "pyrsistent pure-Python" if pvector is python_pvector else "pyrsistent C extension active"
    except ImportError:
        pv = "pyrsistent pure-Python"
    try:
        import yaml
        ya = "PyYAML libyaml loader" if getattr(yaml, "__with_libyaml__", False) else "PyYAML pure-Python loader"
    except ImportError:
        ya = "PyYAML missing"
    try:
        from kubectl_evict.source import fastyaml
        ya += "; " + fastyaml.describe()
    except ImportError:
        pass
    if _bundle is not None:
        carried = _carried(getattr(_bundle, "MSGSPEC", ()))
        origin = "krew archive %s (%s; bundled %s)" % (_bundle.ARCHIVE, carried, ", ".join(_bundle.DIRECT))
    else:
        origin = "installed package (%s)" % os.path.dirname(os.path.abspath(__file__))
    return "kubectl-evictplan %s\nPython %s (%s)\n%s; %s; %s\n%s" % (
        __version__, sys.version.split()[0], sys.executable, fast, pv, ya, origin)


def _carried(wheels: Any) -> str:
    """What the krew archive carries natively, from _bundle.MSGSPEC ("cp311-manylinux 0.22.0", ...)."""
    if not wheels:
        return "pure Python"
    abis = sorted({w.split("-")[0] for w in wheels}, key=lambda a: (int(a[3:].rstrip("t")), a))
    families = sorted({w.split()[0].split("-", 1)[1] for w in wheels})
    versions = sorted({w.split()[1] for w in wheels})
    return "msgspec %s wheels for %s..%s, %s" % ("/".join(versions), abis[0], abis[-1], "/".join(families))


def _print_version(ctx: click.Context, _param: Any, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(_version_text())
        ctx.exit(0)


@click.group(cls=_Group, context_settings=CONTEXT_SETTINGS)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Print the version, the Python in use and whether the fast paths are active.")
@global_options
@click.pass_context
def cli(ctx: click.Context, **kw: Any) -> None:
    """Plan what Kubernetes will evict, taint or kill before you drain, shut down, relabel or
    lose nodes, and where the evicted pods would land.

    \b
    Examples:
      kubectl evictplan --demo drain worker-a1
      kubectl evictplan -f cluster.json affinity --label worker-b1:disktype=hdd
      kubectl evictplan -f cluster.json -o json drain n1 n2 > plan.json
      kubectl evictplan --context prod --as admin drain node-1 --ignore-daemonsets

    Plugin form: put every flag after evictplan. kubectl passes no flags to plugins:
    `kubectl evictplan --context prod ...` works, `kubectl --context prod evictplan ...` is refused
    by kubectl itself. Boolean flags also take =true / =false.
    """
    pop_global(ctx, kw)


@cli.command("version", context_settings=CONTEXT_SETTINGS)
def version_cmd() -> None:
    """Print the version, the Python in use and whether the fast paths are active."""
    click.echo(_version_text())


@cli.command("options", context_settings=CONTEXT_SETTINGS)
@click.pass_context
def options_cmd(ctx: click.Context) -> None:
    """Print the global options, which every command accepts (before or after its name)."""
    root = ctx.find_root()
    formatter = root.make_formatter()
    formatter.write_text("The following options can be passed to any command:")
    rows = [rv for p in cli.get_params(root) if isinstance(p, click.Option) and p.name != "help"
            for rv in [p.get_help_record(root)] if rv]
    with formatter.section("Global options"):
        formatter.write_dl(rows)
    click.echo(formatter.getvalue().rstrip("\n"))


@cli.command("completion", context_settings=CONTEXT_SETTINGS)
@click.argument("shell", type=click.Choice(completion.SHELLS))
def completion_cmd(shell: str) -> None:
    """Print the shell completion script (bash, zsh or fish), as `kubectl completion SHELL` does.

    The script completes the kubectl-evictplan executable. `kubectl evictplan <TAB>` inside
    kubectl's own completion (kubectl >= 1.26) needs no script: it runs the
    kubectl_complete-evictplan executable installed beside kubectl-evictplan.

    \b
    Examples:
      source <(kubectl evictplan completion bash)          # in ~/.bashrc
      source <(kubectl evictplan completion zsh)           # in ~/.zshrc
      kubectl evictplan completion fish > ~/.config/fish/completions/kubectl-evictplan.fish
    """
    click.echo(completion.source_script(cli, shell), nl=False)


def _discover() -> None:
    import kubectl_evict.commands as pkg
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module("kubectl_evict.commands." + info.name)
        cmd = getattr(mod, "command", None)
        if isinstance(cmd, click.Command):
            _hide_global_options(cmd)
            cli.add_command(cmd)


_discover()


# --- kubectl's flag conventions -----------------------------------------------------------------

# Go's strconv.ParseBool, which pflag uses for `--flag=VALUE` on boolean flags.
_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")
# Flags that make the tool write to a cluster: never offered as a typo correction.
WRITE_FLAGS = frozenset(("--apply", "--yes", "-y"))


def _bool_flag_names() -> set:
    names = set()
    for cmd in [cli] + list(cli.commands.values()):
        for p in cmd.params:
            if isinstance(p, click.Option) and p.is_flag and not p.count and not p.is_eager:
                names.update(o for o in p.opts if o.startswith("--"))
    return names


def normalize_bool_flags(args: List[str]) -> List[str]:
    """Accept `--flag=true` / `--flag=false` (any strconv.ParseBool spelling) on every boolean flag,
    as kubectl does: rewritten to `--flag` or to nothing (the last occurrence wins)."""
    bools = None
    out: List[str] = []
    for i, a in enumerate(args):
        if a == "--":
            return out + args[i:]
        if a.startswith("-v="):      # pflag's `-v=6`; click reads `-v 6`, `-v6` and `--v=6` itself
            out += ["-v", a[3:]]
            continue
        if a.startswith("--") and "=" in a:
            if bools is None:
                bools = _bool_flag_names()
            name, _, value = a.partition("=")
            if name in bools:
                if value in _TRUE:
                    out.append(name)
                    continue
                if value in _FALSE:
                    out = [x for x in out if x != name]
                    continue
                raise click.UsageError('invalid argument "%s" for "%s" flag: strconv.ParseBool: parsing "%s": '
                                       "invalid syntax (use %s, %s=true or %s=false)"
                                       % (value, name, value, name, name, name))
        out.append(a)
    return out


def _no_such_option(e: "click.NoSuchOption") -> str:
    """click suggests any close flag of the parser, even one that writes or means something else
    (`--as` -> `--yes`). Suggest only a close spelling of the same command's own flags, never a
    flag that writes."""
    import difflib
    msg = "No such option '%s'." % e.option_name
    cmd = e.ctx.command if e.ctx is not None else None
    if cmd is None:
        return msg
    own = sorted({o for p in cmd.params if isinstance(p, click.Option) for o in p.opts + p.secondary_opts
                  if o.startswith("--") and o not in WRITE_FLAGS})
    close = difflib.get_close_matches(e.option_name, own, n=1, cutoff=0.8)
    return msg + (" Did you mean '%s'?" % close[0] if close else "")


# errno values of a write the filesystem refused: no space, quota, file too large, I/O error
_WRITE_ERRNOS = frozenset(getattr(errno, n) for n in ("ENOSPC", "EDQUOT", "EFBIG", "EIO") if hasattr(errno, n))


def _quiet_stdout() -> None:
    """Drop what is still buffered for stdout: the interpreter's final flush would fail again
    and print its own complaint after our one error line."""
    try:
        sys.stdout = open(os.devnull, "w")
    except OSError:
        pass


def _internal(e: BaseException) -> None:
    """A bug of ours: one line, no traceback (EVICTPLAN_DEBUG=1 re-raises for the traceback)."""
    if os.environ.get("EVICTPLAN_DEBUG"):
        raise e
    sys.stderr.write("error: internal error: %s: %s (set EVICTPLAN_DEBUG=1 for details)\n" % (type(e).__name__, e))
    sys.exit(1)


def _interrupted() -> None:
    """Ctrl-C: stop at once with 130 (128 + SIGINT), as kubectl does. `os._exit`, because a normal
    exit would first wait for requests still in flight on worker threads (up to their read
    timeout). Whatever writes must finish (apply's journal, its report) has its own SIGINT
    handling and is done before this point."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    try:
        sys.stderr.write("error: interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(130)


def main(argv: Optional[List[str]] = None) -> None:
    """Console-script entry point: the single error boundary."""
    invoked_as = os.path.basename(sys.argv[0])
    if invoked_as == completion.KUBECTL_COMPLETER:  # kubectl >= 1.26 asking for plugin completions
        try:
            lines = completion.kubectl_complete_lines(cli, sys.argv[1:] if argv is None else argv)
        except Exception:  # a completion must never print a traceback into the user's prompt
            lines = [":%d" % completion.DIRECTIVE_ERROR]
        sys.stdout.write("\n".join(lines) + "\n")
        sys.exit(0)
    # Usage lines say "kubectl evictplan" when run through kubectl; click's completion needs the
    # executable's own name (its script registers for it) and a fixed variable name.
    prog = "kubectl evictplan" if invoked_as.startswith("kubectl-") else completion.EXECUTABLE
    if os.environ.get(completion.COMPLETE_VAR):
        prog = completion.EXECUTABLE
    if not (sys.argv[1:] if argv is None else argv) and not os.environ.get(completion.COMPLETE_VAR):
        # bare `kubectl evictplan`: the help, and success (click would call it a usage error)
        with click.Context(cli, info_name=prog, **cli.context_settings) as ctx:
            click.echo(cli.get_help(ctx))
        sys.exit(0)
    try:
        args = normalize_bool_flags(list(sys.argv[1:] if argv is None else argv))
    except click.UsageError as e:
        sys.stderr.write("error: %s\n" % e.format_message())
        sys.exit(2)
    if argv is None:
        collector.will_exit_now()
    try:
        rv = cli.main(args=args, prog_name=prog, complete_var=completion.COMPLETE_VAR, standalone_mode=False)
        sys.stdout.flush()   # inside the boundary: a closed pipe is handled below, as a write's is
    except click.UsageError as e:
        msg = _no_such_option(e) if isinstance(e, click.NoSuchOption) else e.format_message()
        hint = ""
        if e.ctx is not None:
            hint = " (see '%s --help')" % e.ctx.command_path
        sys.stderr.write("error: %s%s\n" % (msg, hint))
        sys.exit(2)
    except click.Abort as e:
        if isinstance(e.__context__, KeyboardInterrupt):   # click turns Ctrl-C into Abort
            _interrupted()
        sys.stderr.write("error: aborted\n")
        sys.exit(1)
    except click.ClickException as e:
        sys.stderr.write("error: %s\n" % e.format_message())
        sys.exit(1)
    except EvictPlanError as e:
        sys.stderr.write("error: %s\n" % e)
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        _interrupted()
    except MemoryError:   # its message is empty
        sys.stderr.write("error: out of memory (give the process more memory, or plan fewer nodes at once)\n")
        sys.exit(1)
    except BrokenPipeError:
        _quiet_stdout()
        sys.exit(1)
    except OSError as e:
        # files are read through source/ (their errors are InputErrors): what is left here is
        # writing the output to a full or failing filesystem, which is the user's to fix
        if e.errno not in _WRITE_ERRNOS or os.environ.get("EVICTPLAN_DEBUG"):
            _internal(e)
        _quiet_stdout()
        sys.stderr.write("error: cannot write the output: %s\n" % (e.strerror or e))
        sys.exit(1)
    except Exception as e:  # the boundary: never a traceback for users
        _internal(e)
    code = rv if isinstance(rv, int) else 0
    if argv is None:   # the process's own entry point: end it without freeing the plan's objects
        collector.exit_now(code)
    sys.exit(code)
