"""kubectl's flag conventions, through the installed console script: every boolean flag takes
`--flag`, `--flag=true` and `--flag=false` (pflag parses the value with strconv.ParseBool), drain
takes kubectl drain's own --timeout/--chunk-size/--dry-run/--grace-period, shutdown's
--grace-period means seconds whether written 30 or 30s, and the plugin form is documented."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List

import click
import pytest

from kubectl_evict.cli import cli

SCRIPT = str(Path(sys.executable).parent / "kubectl-evictplan") \
    if (Path(sys.executable).parent / "kubectl-evictplan").exists() else shutil.which("kubectl-evictplan")
REPO = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG", "EVICTPLAN_DEBUG")}
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, env=env, timeout=120)


# (command line on the demo cluster, its boolean flag). Every boolean flag of every planning
# command is here: test_every_boolean_flag_is_covered keeps the table complete.
BOOLEANS = [
    (["drain", "worker-a1"], "--ignore-daemonsets"),
    (["drain", "worker-a1"], "--delete-emptydir-data"),
    (["drain", "worker-a1"], "--delete-local-data"),
    (["drain", "worker-a1"], "--force"),
    (["drain", "worker-a1"], "--disable-eviction"),
    (["drain", "worker-a1", "worker-b2"], "--one-at-a-time"),
    (["affinity", "--label", "worker-b1:disktype=hdd"], "--enforce-ignored-during-execution"),
    (["shutdown", "worker-c2"], "--non-graceful"),
    (["shutdown", "worker-c2", "--non-graceful"], "--disable-force-detach-on-timeout"),
    (["pressure", "worker-a1"], "--oom"),
    (["controller", "--fail", "worker-a1"], "--legacy-eviction"),
    (["upgrade", "-l", "disktype=ssd", "--provider", "eks"], "--force-upgrade"),
]
# booleans that need a live cluster or only apply with --apply: parsed the same way (checked below)
NOT_PLANNED_HERE = {"--demo", "--apply", "--yes", "--force-stale", "--follow-timeline", "--insecure-skip-tls-verify",
                    "--redact", "--no-kubelet"}


def test_every_boolean_flag_is_covered():
    seen = set()
    for cmd in [cli] + list(cli.commands.values()):
        for p in cmd.params:
            if isinstance(p, click.Option) and p.is_flag and not p.is_eager:
                seen.update(o for o in p.opts if o.startswith("--"))
    assert seen - NOT_PLANNED_HERE == {flag for _, flag in BOOLEANS}


@pytest.mark.parametrize("args,flag", BOOLEANS, ids=[b[1] + "-" + b[0][0] for b in BOOLEANS])
def test_boolean_flags_take_true_and_false(args, flag):
    base = ["--demo", "-o", "json", *args]
    plain, on, off, none = run(*base, flag), run(*base, flag + "=true"), run(*base, flag + "=false"), run(*base)
    assert on.returncode == plain.returncode and on.stdout == plain.stdout, on.stderr
    assert off.returncode == none.returncode and off.stdout == none.stdout, off.stderr
    assert "error" not in on.stderr + off.stderr


@pytest.mark.parametrize("value,same_as", [("1", True), ("t", True), ("TRUE", True), ("True", True),
                                           ("0", False), ("f", False), ("FALSE", False), ("False", False)])
def test_every_parsebool_spelling(value, same_as):
    base = ["--demo", "-o", "json", "drain", "worker-a1"]
    res = run(*base, "--ignore-daemonsets=" + value)
    want = run(*base, "--ignore-daemonsets") if same_as else run(*base)
    assert res.stdout == want.stdout and res.returncode == want.returncode


def test_last_boolean_wins_as_in_pflag():
    base = ["--demo", "-o", "json", "drain", "worker-a1"]
    assert run(*base, "--force", "--force=false").stdout == run(*base).stdout
    assert run(*base, "--force=false", "--force").stdout == run(*base, "--force").stdout


def test_global_booleans_take_values_before_the_command():
    assert run("--demo=true", "-o", "json", "drain", "worker-a1").stdout == run("--demo", "-o", "json", "drain",
                                                                                 "worker-a1").stdout
    res = run("--demo", "drain", "worker-a1", "--apply=false", "--yes=false")
    assert res.returncode in (0, 3, 4), res.stderr


def test_an_argument_after_double_dash_is_left_alone():
    res = run("--demo", "drain", "--", "--force=true")
    assert res.returncode == 1 and 'node "--force=true" not found' in res.stderr


# --- drain: kubectl drain's own flags -----------------------------------------------------------

def _plan(*args: str) -> dict:
    res = run("--demo", "-o", "json", "drain", "worker-a1", "--ignore-daemonsets", "--delete-emptydir-data",
              "--force", *args)
    assert res.returncode in (0, 3, 4), res.stderr
    return json.loads(res.stdout)


def test_drain_chunk_size_is_accepted_and_noted():
    base, chunked = _plan(), _plan("--chunk-size", "50")
    assert chunked["actions"] == base["actions"] and chunked["blocked"] == base["blocked"]
    assert [n for n in chunked["notes"] if n not in base["notes"]] == [
        "--chunk-size 50 only sets the page size of kubectl's list requests: it does not change the plan"]


def test_drain_dry_run_client_and_none_only_plan():
    base = _plan()
    assert _plan("--dry-run=client")["actions"] == base["actions"]
    assert _plan("--dry-run", "none")["actions"] == base["actions"]


def test_drain_dry_run_server_means_apply_with_server_dry_run():
    res = run("--demo", "drain", "worker-a1", "--dry-run=server")
    assert res.returncode == 1 and "--apply" in res.stderr and "demo cluster is not a live cluster" in res.stderr


def test_drain_grace_period_is_integer_seconds():
    assert _plan("--grace-period", "30")["actions"]
    res = run("--demo", "drain", "worker-a1", "--grace-period", "1m")
    assert res.returncode == 1 and "(kubectl drain takes whole seconds: 60)" in res.stderr


def test_drain_timeout_without_apply_is_a_plan_parameter_not_an_apply_flag():
    short = _plan("--timeout", "10s")
    assert [e["pod"] for e in short["blocked"] if e["code"] == "drain-timeout"]
    assert not [e for e in _plan("--timeout", "5m")["blocked"] if e["code"] == "drain-timeout"]
    assert not [e for e in _plan("--timeout", "0")["blocked"] if e["code"] == "drain-timeout"]


# --- shutdown --grace-period: one unit ------------------------------------------------------------

@pytest.mark.parametrize("plain,duration", [("30", "30s"), ("90", "1m30s"), ("0", "0s")])
def test_shutdown_grace_period_seconds_or_duration(plain, duration):
    a = run("--demo", "-o", "json", "shutdown", "worker-a1", "--grace-period", plain, "--critical-grace-period", "10")
    b = run("--demo", "-o", "json", "shutdown", "worker-a1", "--grace-period", duration,
            "--critical-grace-period", "10s")
    assert a.returncode == b.returncode and a.stdout == b.stdout, a.stderr


# --- the plugin form is documented ---------------------------------------------------------------

def test_help_and_readme_document_the_plugin_form():
    res = run("--help")
    text = " ".join(res.stdout.split())
    assert "kubectl evictplan --context" in text and "after evictplan" in text
    readme = (REPO / "README.md").read_text()
    assert "kubectl --context prod evictplan" in readme and "every flag after" in readme
