"""Shell completion, in the two ways a kubectl plugin can be completed.

1. click's own mechanism for the executable `kubectl-evictplan`: the shell script printed by
   `_KUBECTL_EVICTPLAN_COMPLETE=bash_source|zsh_source|fish_source kubectl-evictplan` completes
   that command name. The variable and the name are fixed here because click derives both from
   the program name, and for a kubectl plugin that name is shown as "kubectl evictplan" (with a
   space, which would give an unsettable variable and a script that registers for `kubectl`).
2. kubectl's plugin completion (kubectl >= 1.26, kubernetes/kubernetes#105867): on
   `kubectl evictplan <TAB>`, kubectl's own completion runs the executable
   `kubectl_complete-evictplan ARGS... TO_COMPLETE` from PATH and reads cobra's `__complete`
   protocol (one `value<TAB>help` per line, then `:<directive>`). Linking that name to
   `kubectl-evictplan` makes `kubectl_complete()` answer from the same click command tree, so the
   completion kubectl users already sourced (bash, zsh, fish, powershell) covers the plugin too.
"""

from __future__ import annotations

from typing import List, Sequence

import click
from click.shell_completion import ShellComplete

COMPLETE_VAR = "_KUBECTL_EVICTPLAN_COMPLETE"
EXECUTABLE = "kubectl-evictplan"
KUBECTL_COMPLETER = "kubectl_complete-evictplan"

# cobra's ShellCompDirective values (spf13/cobra completions.go)
DIRECTIVE_DEFAULT = 0        # let the shell complete file names
DIRECTIVE_ERROR = 1
DIRECTIVE_NO_FILE_COMP = 4
DIRECTIVE_FILTER_DIRS = 16


def kubectl_complete_lines(cli: click.Command, argv: Sequence[str]) -> List[str]:
    """cobra `__complete` output for `kubectl evictplan ARGV`: the last word is being completed."""
    words = list(argv)
    incomplete = words.pop() if words else ""
    comp = ShellComplete(cli, {}, EXECUTABLE, COMPLETE_VAR)
    items = comp.get_completions(words, incomplete)
    lines: List[str] = []
    directive = DIRECTIVE_NO_FILE_COMP
    for item in items:
        if item.type == "file":
            directive = DIRECTIVE_DEFAULT
            continue
        if item.type == "dir":
            directive = DIRECTIVE_FILTER_DIRS
            continue
        help_text = " ".join(str(item.help or "").split())
        lines.append("%s\t%s" % (item.value, help_text) if help_text else str(item.value))
    if not items and not incomplete.startswith("-"):
        directive = DIRECTIVE_DEFAULT  # a value we cannot list (a file, a node): cobra's default
    lines.append(":%d" % directive)
    return lines


SHELLS = ("bash", "zsh", "fish")


def source_script(cli: click.Command, shell: str) -> str:
    """The completion script `_KUBECTL_EVICTPLAN_COMPLETE=<shell>_source kubectl-evictplan`
    prints, for `kubectl evictplan completion SHELL` (the subcommand kubectl users type)."""
    from click.shell_completion import get_completion_class
    cls = get_completion_class(shell)
    if cls is None:  # pragma: no cover - SHELLS are click's own
        raise click.UsageError("no completion for %s" % shell)
    return cls(cli, {}, EXECUTABLE, COMPLETE_VAR).source()

