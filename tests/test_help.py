"""Help as kubectl gives it: global options once (`options`, the top-level help), each command's
help on one screen with its own flags and examples, the command list whole, bare invocation = help."""

from __future__ import annotations

import pytest

from conftest import run_cli

COMMANDS = ["affinity", "controller", "drain", "pressure", "shutdown", "snapshot"]


def test_bare_invocation_prints_help_and_succeeds() -> None:
    res = run_cli()
    assert res.returncode == 0 and res.stderr == ""
    assert "Commands:" in res.stdout and "--demo" in res.stdout


def test_command_list_is_not_truncated() -> None:
    out = run_cli("--help").stdout
    commands = out[out.index("Commands:"):]
    assert not [line for line in commands.splitlines() if line.rstrip().endswith("...")]
    assert "where each evicted pod lands" in commands


def test_options_lists_the_global_options() -> None:
    res = run_cli("options")
    assert res.returncode == 0
    for flag in ("--kubeconfig", "--context", "--filename", "--demo", "--now", "--output", "--apply"):
        assert flag in res.stdout
    assert "markdown" in res.stdout and "timeline" in res.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_command_help_fits_a_screen_with_its_own_flags(command: str) -> None:
    res = run_cli(command, "--help", env={"COLUMNS": "100"})
    assert res.returncode == 0
    lines = res.stdout.splitlines()
    assert len(lines) <= 60, len(lines)
    own = res.stdout[res.stdout.index("Options:"):]
    assert "--kubeconfig PATH" not in own and "--follow-timeline" not in own and "--demo " not in own
    assert "kubectl evictplan options" in res.stdout
    assert "Examples:" in res.stdout or command == "snapshot"


def test_global_options_still_work_after_a_command() -> None:
    res = run_cli("affinity", "--unlabel", "worker-b1:disktype", "--demo", "-o", "json")
    assert res.returncode == 0 and res.stdout.startswith("{")
