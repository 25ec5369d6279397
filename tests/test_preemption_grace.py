"""A preemption's `delete` leaves the victim's own grace period in force, so the plan says
`gracePeriodSeconds: null` (DESIGN, plan output contract: "`gracePeriodSeconds` is `null` where
the pod's own applies").

Upstream: kube-scheduler's preemption deletes each victim with `util.DeletePod`, which sends
`metav1.DeleteOptions{}` (pkg/scheduler/util/utils.go): no gracePeriodSeconds, so the
API server applies the victim's `terminationGracePeriodSeconds`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import REPO, run_cli

DRAINS = REPO / "tests" / "data" / "real-drains"

# real drains (v1.33.3) in which the real scheduler preempted pods to place replacements
SEEDS = ["1", "6", "11", "25"]


@pytest.mark.parametrize("seed", SEEDS)
def test_preemption_deletes_carry_the_pods_own_grace(tmp_path: Path, seed: str):
    case = json.loads((DRAINS / (seed + ".json")).read_text())
    snap = tmp_path / "snapshot.json"
    snap.write_text(json.dumps(case["snapshot"]))
    res = run_cli("-f", str(snap), "-o", "json", *case["args"])
    assert res.returncode in (0, 3, 4, 5), res.stderr
    deletes = [a for a in json.loads(res.stdout)["actions"] if a["type"] == "delete" and a["by"] == "scheduler"]
    assert deletes, "the plan preempts nobody: the case no longer tests a preemption"
    for a in deletes:
        assert a["gracePeriodSeconds"] is None, a
        assert a["force"] is False, a
