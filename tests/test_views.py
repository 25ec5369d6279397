"""The human views of a plan, on the demo cluster: golden files, one per view per command.

Each case runs the installed CLI as a user would, with a fixed terminal width, and compares
stdout with tests/golden/<command>-<view>.txt. The exit code must be the same for every view
(a CI job can post `-o markdown` and still fail on 3).

Rules change plan contents (placement, pressure, ...), and these files then change with them.
Regenerate them all with one command, then review the diff before committing:

    EVICTPLAN_REGEN_GOLDEN=1 python -m pytest -q tests/test_views.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import run_cli

GOLDEN = Path(__file__).parent / "golden"
REGEN = bool(os.environ.get("EVICTPLAN_REGEN_GOLDEN"))

COMMANDS = {
    "drain": (["drain", "worker-a1", "--ignore-daemonsets", "--delete-emptydir-data", "--force"], 3),
    "controller": (["controller", "--fail-zone", "eu-west-1b"], 4),
    "pressure": (["pressure"], 0),
    "shutdown": (["shutdown", "worker-a1"], 4),
    "affinity": (["affinity", "--label", "worker-b1:disktype=hdd", "--taint", "worker-a2:maintenance=true:NoExecute"], 0),
}
VIEWS = {
    "table-80": ("table", "80"),
    "table-160": ("table", "160"),
    "wide": ("wide", "80"),
    "markdown": ("markdown", "80"),
    "timeline": ("timeline", "100"),
}
CASES = [(c, v) for c in COMMANDS for v in VIEWS]


@pytest.mark.parametrize("command,view", CASES, ids=["%s-%s" % c for c in CASES])
def test_view_golden(command: str, view: str) -> None:
    args, code = COMMANDS[command]
    fmt, columns = VIEWS[view]
    res = run_cli("--demo", "-o", fmt, *args, env={"COLUMNS": columns, "PYTHONIOENCODING": "utf-8"})
    assert res.stderr == ""
    assert res.returncode == code
    path = GOLDEN / ("%s-%s.txt" % (command, view))
    if REGEN:
        path.write_text(res.stdout, encoding="utf-8")
    assert path.exists(), "no golden file: run EVICTPLAN_REGEN_GOLDEN=1 python -m pytest -q tests/test_views.py"
    assert res.stdout == path.read_text(encoding="utf-8")
    if view.startswith("table"):
        assert max(len(line) for line in _table_lines(res.stdout)) <= int(columns)


def _table_lines(out: str) -> list:
    """The lines of the tables (header rows and their rows), not the prose lines a terminal wraps."""
    lines, keep, inside = out.splitlines(), [], False
    for line in lines:
        first = line.split()[:1]
        if first and first[0] in ("AT", "POD", "WORKLOAD"):
            inside = True
        elif not line.strip():
            inside = False
        if inside:
            keep.append(line)
    return keep


@pytest.mark.parametrize("fmt", ["table", "wide", "markdown", "timeline", "json", "yaml"])
def test_ascii_only_stdout_never_fails(fmt: str) -> None:
    """A stdout that only encodes ASCII gets ASCII marks (`->`, `...`), never UnicodeEncodeError."""
    res = run_cli("--demo", "-o", fmt, "controller", "--fail-zone", "eu-west-1b",
                  env={"PYTHONIOENCODING": "ascii", "COLUMNS": "100"})
    assert res.returncode == 4, res.stderr
    assert res.stderr == ""
    res.stdout.encode("ascii")
    if fmt in ("table", "wide", "markdown"):
        assert "Ready True -> Unknown" in res.stdout
    if fmt == "json":
        assert "Ready True \\u2192 Unknown" in res.stdout


def test_repeated_warnings_are_said_once_with_a_count() -> None:
    from kubectl_evict.render.text import counted_warnings
    same = ["node/n1: pod shop/a-%d has no stats in the summary (ranked first)" % i for i in range(14)]
    lists = ["ignoring DaemonSet-managed Pods: kube-system/p-%d, logging/q-%d" % (i, i) for i in range(3)]
    got = counted_warnings(same + ["other", "other"] + lists)
    assert got == ["node/n1: pod shop/a-0, shop/a-1, shop/a-2 and 11 more has no stats in the summary (ranked first) "
                   "(14 times)",
                   "other (2 times)",
                   "ignoring DaemonSet-managed Pods: kube-system/p-0, logging/q-0, kube-system/p-1 and 3 more (3 times)"]
    assert counted_warnings(lists, names=0) == [
        "ignoring DaemonSet-managed Pods: kube-system/p-0, logging/q-0, kube-system/p-1, logging/q-1, "
        "kube-system/p-2, logging/q-2 (3 times)"]
    # different nodes, different numbers: different warnings
    assert len(counted_warnings(["node/a: x 1", "node/b: x 1", "node/a: x 2"])) == 3


def test_oom_list_is_whole_and_shows_the_compared_value() -> None:
    """`pressure --oom` lists every container, in the order of the score the kernel compares
    (oom_score_adj plus the working set in thousandths of memory), and prints that score."""
    import json
    import re
    doc = json.loads(run_cli("--demo", "-o", "json", "pressure", "--oom").stdout)
    table = run_cli("--demo", "pressure", "--oom").stdout
    for node, entries in doc["oom"].items():
        assert len(entries) > 10
        rows = re.findall(r"^    (\d+)\. (\S+) score (-?\d+) \(adj (-?\d+) \+ (\d+)\)$", table, re.M)
        assert [r[1] for r in rows] == ["%s/%s/%s" % (e["namespace"], e["pod"], e["container"]) for e in entries]
        scores = [int(r[2]) for r in rows]
        assert scores == sorted(scores, reverse=True)
        assert all(int(r[2]) == int(r[3]) + int(r[4]) for r in rows)
        assert " ..." not in table


def test_target_says_why_there_is_no_node() -> None:
    """TARGET tells "nothing recreates it" apart from "its replacement fits no node"."""
    import re
    out = run_cli("--demo", *COMMANDS["drain"][0], env={"COLUMNS": "160"}).stdout
    assert re.search(r"EVICT +analytics/spark-driver-\S+ +worker-a1 +\(no node fits\) ", out)
    assert re.search(r"EVICT +default/debug-shell +worker-a1 +\(not recreated\) ", out)
    assert re.search(r"EVICT +data/cache-\S+ +worker-a1 +worker-\w+ ", out)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_machine_formats_exit_like_the_views(command: str) -> None:
    args, code = COMMANDS[command]
    for fmt in ("json", "yaml"):
        assert run_cli("--demo", "-o", fmt, *args).returncode == code
