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
import shlex
from pathlib import Path
from typing import Optional

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
        # tables fit the width by their reasons; only a row of names that alone is wider (its
        # reason already on its own line: names are never cut) may go past it
        for line, stacked in _table_lines(res.stdout):
            assert len(line) <= int(columns) or (stacked and not line.startswith(" ")), line


def _table_lines(out: str) -> list:
    """The lines of the tables (header rows and their rows), not the prose lines a terminal wraps,
    each with whether its table puts the reason on a line of its own."""
    lines, keep, inside, stacked = out.splitlines(), [], False, False
    for i, line in enumerate(lines):
        first = line.split()[:1]
        if first and first[0] in ("AT", "POD", "WORKLOAD"):
            inside = True
            stacked = i + 1 < len(lines) and lines[i + 1].strip() == "REASON"
        elif not line.strip():
            inside = False
        if inside:
            keep.append((line, stacked))
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


# --- the README's console samples are real output -------------------------------------------------

def _readme_samples() -> list:
    """(line number, environment, arguments, expected lines) of each ```console block of the README
    that runs the demo; a line `...` stands for any number of lines left out."""
    lines = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8").splitlines()
    out = []
    for i, line in enumerate(lines):
        if line.strip() != "```console" or not lines[i + 1].startswith("$ "):
            continue
        words = shlex.split(lines[i + 1][2:])
        env = {}
        while "=" in words[0]:
            k, _, v = words.pop(0).partition("=")
            env[k] = v
        if words[:3] != ["kubectl", "evictplan", "--demo"]:
            continue
        body = []
        for j in range(i + 2, len(lines)):
            if lines[j].strip() == "```":
                break
            body.append(lines[j])
        out.append((i + 2, env, words[2:], body))
    return out


def _matches(expected: list, actual: list) -> Optional[str]:
    """None when `actual` has `expected`'s lines in order, `...` skipping any; else the first miss."""
    pos = 0
    skipping = False
    for want in expected:
        if want.strip() == "...":
            skipping = True
            continue
        if skipping:
            while pos < len(actual) and actual[pos] != want:
                pos += 1
        if pos >= len(actual) or actual[pos] != want:
            return want
        pos += 1
        skipping = False
    return None if skipping or pos == len(actual) else "(more output: %s)" % actual[pos]


def _regenerated(expected: list, actual: list) -> list:
    """`expected` with each run of lines between `...` replaced by as many lines of `actual`, found
    by the first two words of the run's first line (EVICTPLAN_REGEN_GOLDEN=1)."""
    runs, cur = [], []
    for want in expected + ["..."]:
        if want.strip() == "...":
            runs.append(cur)
            cur = []
        else:
            cur.append(want)
    out, pos = [], 0
    for k, run in enumerate(runs):
        if k:
            out.append("...")
        if not run:
            continue
        key = run[0].split()[:2]
        start = pos if k == 0 else next((i for i in range(pos, len(actual)) if actual[i].split()[:2] == key), None)
        if start is None:
            out.extend(run)
            continue
        last = k == len(runs) - 1   # the block ends without `...`: the rest of the output
        out.extend(actual[start:] if last else actual[start:start + len(run)])
        pos = start + len(run)
    return out


@pytest.mark.parametrize("sample", _readme_samples(), ids=lambda s: "README-line-%d" % s[0])
def test_readme_console_sample_is_the_real_output(sample) -> None:
    line, env, args, expected = sample
    res = run_cli(*args, env={"COLUMNS": env.get("COLUMNS", "120"), "PYTHONIOENCODING": "utf-8"})
    if REGEN:   # earlier samples may have changed length: find this one again by its content
        readme = Path(__file__).resolve().parents[1] / "README.md"
        lines = readme.read_text(encoding="utf-8").split("\n")
        at = next(i + 1 for i in range(len(lines)) if lines[i:i + 1 + len(expected)] ==
                  [lines[i]] + expected and lines[i].startswith("$ ") and shlex.split(lines[i][2:])[-len(args):] == args)
        lines[at:at + len(expected)] = _regenerated(expected, res.stdout.splitlines())
        readme.write_text("\n".join(lines), encoding="utf-8")
        return
    miss = _matches(expected, res.stdout.splitlines())
    assert miss is None, "README line %d: %r is not what `%s` prints" % (line, miss, " ".join(args))
