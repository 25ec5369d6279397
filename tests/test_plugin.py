"""`kubectl evictplan` through the real kubectl binary's plugin discovery."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

KUBECTL = shutil.which("kubectl")


def _kubectl(path_dir: Path, *args: str, extra_env=None) -> subprocess.CompletedProcess:
    env = {"PATH": "%s:%s" % (path_dir, os.path.dirname(KUBECTL)), "HOME": str(path_dir),
           "KUBECONFIG": str(path_dir / "no-such-kubeconfig")}
    env.update(extra_env or {})
    return subprocess.run([KUBECTL, *args], capture_output=True, text=True, env=env, timeout=120)


def _installed_script() -> Path:
    script = Path(sys.executable).parent / "kubectl-evictplan"
    assert script.exists(), "pip install . must put kubectl-evictplan next to %s" % sys.executable
    return script


@pytest.fixture
def bin_dir(tmp_path):
    d = tmp_path / "bin"
    d.mkdir()
    return d


def test_kubectl_binary_present():
    assert KUBECTL, "the kubectl binary must be on PATH for the plugin tests"


def test_installed_console_script_is_discovered(bin_dir):
    os.symlink(_installed_script(), bin_dir / "kubectl-evictplan")
    listed = _kubectl(bin_dir, "plugin", "list")
    assert str(bin_dir / "kubectl-evictplan") in listed.stdout, listed.stdout + listed.stderr
    helped = _kubectl(bin_dir, "evictplan", "--help")
    assert helped.returncode == 0, helped.stderr
    assert "Usage: kubectl evictplan" in helped.stdout and "affinity" in helped.stdout


def test_plan_through_kubectl_on_demo_cluster(bin_dir):
    os.symlink(_installed_script(), bin_dir / "kubectl-evictplan")
    res = _kubectl(bin_dir, "evictplan", "--demo", "affinity", "--taint", "worker-a2:maint=true:NoExecute")
    assert res.returncode == 0, res.stderr
    assert "DELETE" in res.stdout and res.stdout.rstrip().splitlines()[-1].endswith("skipped")
    bad = _kubectl(bin_dir, "evictplan", "--demo", "affinity", "--label", "ghost:a=b")
    assert bad.returncode == 1 and bad.stderr.startswith("error: ") and "unknown node 'ghost'" in bad.stderr


def test_krew_launcher_runs_with_users_python3(bin_dir):
    """plugin/kubectl-evictplan is what the krew archive ships: it runs under `python3` from PATH."""
    shim = bin_dir / "python3"
    shim.write_text('#!/bin/sh\nexec "%s" "$@"\n' % sys.executable)
    shim.chmod(0o755)
    shutil.copy(REPO / "plugin" / "kubectl-evictplan", bin_dir / "kubectl-evictplan")
    res = _kubectl(bin_dir, "evictplan", "--help", extra_env={"PYTHONPATH": str(REPO)})
    assert res.returncode == 0, res.stderr
    assert "Usage: kubectl evictplan" in res.stdout


def test_flags_after_the_plugin_name_reach_it_and_before_it_kubectl_refuses(bin_dir):
    """The plugin form: kubectl hands everything after `evictplan` to the plugin (kubectl-style
    booleans and connection flags included) and refuses its own flags before the plugin name."""
    os.symlink(_installed_script(), bin_dir / "kubectl-evictplan")
    res = _kubectl(bin_dir, "evictplan", "--demo", "drain", "worker-a1", "--ignore-daemonsets=true", "--force=false")
    assert res.returncode in (0, 3, 4) and "error" not in res.stderr, res.stderr
    before = _kubectl(bin_dir, "--context", "prod", "evictplan", "--demo", "drain", "worker-a1")
    assert before.returncode != 0 and "flags cannot be placed before plugin name: --context" in before.stderr
    readme = (REPO / "README.md").read_text()
    assert "flags cannot be placed before plugin name: --context" in readme
    refused = _kubectl(bin_dir, "evictplan", "--demo", "drain", "worker-a1", "--as", "alice")
    assert refused.returncode == 2 and refused.stderr.startswith("error: --as:"), refused.stderr
