"""Shell completion as users set it up: click's `_KUBECTL_EVICTPLAN_COMPLETE=<shell>_source
kubectl-evictplan` scripts (bash run for real), and kubectl's own plugin completion (kubectl >= 1.26
runs `kubectl_complete-evictplan` from PATH on `kubectl evictplan <TAB>`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest

from conftest import REPO

KUBECTL = shutil.which("kubectl")
BASH = shutil.which("bash")


@pytest.fixture(scope="module")
def bin_dir(tmp_path_factory) -> Path:
    """kubectl-evictplan (the krew launcher on the repo's package) and its kubectl completer link."""
    d = tmp_path_factory.mktemp("bin")
    launcher = d / "kubectl-evictplan"
    launcher.write_text("#!%s\n" % sys.executable + (REPO / "plugin" / "kubectl-evictplan").read_text().split("\n", 1)[1])
    launcher.chmod(0o755)
    os.symlink(launcher, d / "kubectl_complete-evictplan")
    return d


def _env(bin_dir: Path, **extra: str) -> Dict[str, str]:
    env = {"PATH": "%s:%s:/usr/bin:/bin" % (bin_dir, os.path.dirname(KUBECTL or "/usr/bin/kubectl")),
           "HOME": str(bin_dir), "PYTHONPATH": str(REPO), "KUBECONFIG": str(bin_dir / "none")}
    env.update(extra)
    return env


def _source(bin_dir: Path, shell: str) -> str:
    res = subprocess.run([str(bin_dir / "kubectl-evictplan")], capture_output=True, text=True, timeout=60,
                         env=_env(bin_dir, _KUBECTL_EVICTPLAN_COMPLETE="%s_source" % shell))
    assert res.returncode == 0 and res.stderr == "", res.stderr
    return res.stdout


@pytest.mark.parametrize("shell, registers", [
    ("bash", "complete -o nosort -F _kubectl_evictplan_completion kubectl-evictplan"),
    ("zsh", "compdef _kubectl_evictplan_completion kubectl-evictplan"),
    ("fish", "complete --no-files --command kubectl-evictplan"),
])
def test_source_script_registers_for_the_executable_not_kubectl(bin_dir, shell, registers):
    """Invoked as kubectl-evictplan the usage says "kubectl evictplan", but the completion script must
    name the executable (a script registering for "kubectl evictplan" would hijack kubectl's own)."""
    script = _source(bin_dir, shell)
    assert registers in script
    assert "_KUBECTL_EVICTPLAN_COMPLETE=%s_complete" % shell in script
    assert "kubectl evictplan" not in script


def _bash_complete(bin_dir: Path, line: List[str]) -> List[str]:
    """Source the bash script and press TAB after `line` (the last word is being completed)."""
    assert BASH, "bash is needed to check the bash completion script"
    script = bin_dir / "completion.bash"
    script.write_text(_source(bin_dir, "bash"))
    words = " ".join("'%s'" % w for w in line)
    prog = 'source "%s"; COMP_WORDS=(%s); COMP_CWORD=%d; _kubectl_evictplan_completion kubectl-evictplan; ' \
           'printf "%%s\\n" "${COMPREPLY[@]}"' % (script, words, len(line) - 1)
    res = subprocess.run([BASH, "--norc", "--noprofile", "-c", prog], capture_output=True, text=True, timeout=60,
                         env=_env(bin_dir))
    assert res.returncode == 0, res.stderr
    return [w for w in res.stdout.splitlines() if w]


@pytest.mark.parametrize("line, expected, absent", [
    (["kubectl-evictplan", "dr"], ["drain"], ["affinity"]),
    (["kubectl-evictplan", ""], ["affinity", "drain", "version"], []),
    (["kubectl-evictplan", "--demo", "-o", ""], ["table", "wide", "json", "yaml"], ["drain"]),
    (["kubectl-evictplan", "drain", "--ignore-d"], ["--ignore-daemonsets"], ["--force"]),
])
def test_bash_tab_completes_commands_flags_and_choices(bin_dir, line, expected, absent):
    got = _bash_complete(bin_dir, line)
    for word in expected:
        assert word in got, got
    for word in absent:
        assert word not in got, got


def _kubectl_complete(bin_dir: Path, *words: str) -> List[str]:
    assert KUBECTL, "the kubectl binary must be on PATH for the plugin completion test"
    res = subprocess.run([KUBECTL, "__complete", "evictplan", *words], capture_output=True, text=True, timeout=60,
                         env=_env(bin_dir))
    assert res.returncode == 0, res.stderr
    return res.stdout.splitlines()


@pytest.mark.parametrize("words, expected, directive", [
    (("dr",), ["drain"], ":4"),
    (("--demo", "-o", "y"), ["yaml"], ":4"),
    (("--demo", "drain", "--ignore-d"), ["--ignore-daemonsets"], ":4"),
    (("-f", ""), [], ":0"),  # a snapshot file: the shell completes file names
])
def test_kubectl_evictplan_tab_through_kubectls_own_completion(bin_dir, words, expected, directive):
    """What `kubectl evictplan <TAB>` shows in any shell where kubectl completion is sourced."""
    lines = _kubectl_complete(bin_dir, *words)
    assert lines[-1] == directive, lines
    values = [ln.split("\t")[0] for ln in lines[:-1]]
    assert values == expected or set(expected) <= set(values), lines
    for ln in lines[:-1]:
        assert "\n" not in ln and ln.count("\t") <= 1


def test_completion_never_runs_the_command(bin_dir, tmp_path):
    """Completing `drain` must not plan anything or print a table into the prompt."""
    lines = _kubectl_complete(bin_dir, "--demo", "drain", "worker-a1", "")
    assert not any(ln.startswith("AT ") or "cordon" in ln for ln in lines)
    assert lines[-1].startswith(":")


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_subcommand_prints_the_script(bin_dir, shell):
    """`kubectl evictplan completion SHELL`, the form kubectl users type, prints the same script."""
    res = subprocess.run([str(bin_dir / "kubectl-evictplan"), "completion", shell], capture_output=True, text=True,
                         timeout=60, env=_env(bin_dir))
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert res.stdout == _source(bin_dir, shell)


def test_completion_subcommand_refuses_an_unknown_shell(bin_dir):
    res = subprocess.run([str(bin_dir / "kubectl-evictplan"), "completion", "tcsh"], capture_output=True, text=True,
                         timeout=60, env=_env(bin_dir))
    assert res.returncode == 2 and res.stderr.startswith("error: ") and "bash" in res.stderr
