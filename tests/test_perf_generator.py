"""The benchmark generator (tests/perf/generate.py) makes a complete cluster: its SnapshotInfo lists
every kind it writes, so a plan over it never depends on a kind the input lacks (exit 5), and the
benchmarks can count exit 5 as an error."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import REPO, run_cli


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("gen") / "cluster.json"
    subprocess.run([sys.executable, str(REPO / "tests" / "perf" / "generate.py"), "--nodes", "24", "--pods", "500",
                    "--lean", "--stats", "--out", str(out), "-q"], check=True, timeout=300)
    return out


def test_snapshot_info_lists_every_kind_written(generated):
    items = json.loads(generated.read_text())["items"]
    info = [i for i in items if i["kind"] == "SnapshotInfo"]
    assert len(info) == 1
    written = {i["kind"] for i in items} - {"SnapshotInfo"}
    # every kind written, and VolumeAttachment, of which the generated cluster has none (listed so
    # that NodeVolumeLimits, which counts them, is not left unchecked)
    assert set(info[0]["kinds"]) == written | {"VolumeAttachment"}
    assert {"Lease", "CSINode"} <= written   # a real node has both: without them plans were incomplete
    nodes = {i["metadata"]["name"] for i in items if i["kind"] == "Node"}
    assert {i["metadata"]["name"] for i in items if i["kind"] == "Lease"} == nodes
    assert {i["metadata"]["name"] for i in items if i["kind"] == "CSINode"} == nodes


@pytest.mark.parametrize("command", ["drain", "shutdown", "controller", "pressure"])
def test_plans_over_the_generated_cluster_are_complete(generated, command):
    items = json.loads(generated.read_text())["items"]
    ready = sorted(i["metadata"]["name"] for i in items if i["kind"] == "Node"
                   and not i["spec"].get("taints"))[:3]
    args = {"drain": ["drain", *ready, "--ignore-daemonsets", "--delete-emptydir-data"],
            "shutdown": ["shutdown", *ready], "controller": ["controller", "--fail", ready[0]],
            "pressure": ["pressure"]}[command]
    res = run_cli("-f", str(generated), "-o", "json", *args)
    assert res.returncode in (0, 3, 4), (res.returncode, res.stderr)
    assert json.loads(res.stdout).get("incomplete", []) == []
