"""`drain --one-at-a-time` through the console script: a pod whose replacement lands on a node
drained later is evicted again in that node's turn (kubectl drain runs node after node, and the
scheduler places replacements on any schedulable node: a node not cordoned yet is one). The second
eviction goes through the Eviction API again, so it spends its PDB's budget again, can run past
kubectl's --timeout on that node, and needs a node of its own; the exit code follows (0 / 3 / 4).
Plain `drain` of the same nodes cordons them all first, so nothing moves twice."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List

import pytest

from conftest import node, pod, run_cli, with_owners
from test_upgrade import info, pdb


def web(n: int, on: str, cpu: str = "100m") -> List[dict]:
    return [pod("web-%d" % i, on, owner=("ReplicaSet", "web"), labels={"app": "web"}, cpu=cpu) for i in range(n)]


def cluster(tmp_path: Path, items: List[dict]) -> str:
    p = tmp_path / "c.json"
    doc = info()
    p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [doc] + with_owners(items, doc["kinds"])}))
    return str(p)


BASE = [node("n1"), node("n2", cpu="64"), node("small", cpu="1")]

# (id, objects, extra args, exit code, second evictions (pod, at, target), blocked, shortfall)
CASES = [
    # 2 pods, PDB maxUnavailable 1: waves at +0s/+30s onto n2 (the emptiest); n2 starts at +1m and
    # moves them again, one wave apart (the budget is spent again), onto `small`
    ("moved-twice", BASE + web(2, "n1") + [pdb("web", {"app": "web"}, max_unavailable=1, allowed=1, healthy=2,
                                               expected=2)],
     [], 0, [("web-0", 60, "small"), ("web-1", 90, "small")], [], []),
    # a 2-CPU pod fits only n2: moved there from n1; at n2's turn (+30s, once it is Ready there)
    # nothing fits (n1 stays cordoned, `small` is too small)
    ("second-move-has-nowhere-to-go", BASE + web(1, "n1", cpu="2"), [], 4, [("web-0", 30, None)], [],
     [("web-0", "n2", "no-node-fits")]),
    # web-1/web-0 leave n1 one wave apart for n2 (a node's last pod is evicted first); n2 (+1m) runs
    # web-2 too: the PDB lets one go per wave, so the third eviction of n2's drain comes at +1m of
    # it, past kubectl's --timeout 45s
    ("second-evictions-past-timeout", BASE + web(2, "n1") + [pod("web-2", "n2", owner=("ReplicaSet", "web"),
                                                                 labels={"app": "web"})]
     + [pdb("web", {"app": "web"}, max_unavailable=1, allowed=1, healthy=3, expected=3)],
     ["--timeout", "45s"], 3, [("web-0", 60, "small"), ("web-1", 120, "small")],
     [("web-1", "n2", "drain-timeout")], []),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_second_evictions_are_planned(tmp_path, case):
    _, items, args, code, again, blocked, short = case
    path = cluster(tmp_path, items)
    res = run_cli("-f", path, "-o", "json", "drain", "n1", "n2", "--one-at-a-time", *args)
    assert res.returncode == code, res.stderr
    doc = json.loads(res.stdout)
    second = [a for a in doc["actions"] if a["type"] == "evict" and a["reason"].startswith("evicted again")]
    assert [(a["pod"], a["at"], a["target"]) for a in second] == again
    for a in second:      # the replacement's name is not known: the pod it replaces, no uid
        assert (a["node"], a["uid"], a["by"]) == ("n2", "", "user")
        assert a["reason"].startswith("evicted again: its replacement landed here after the eviction from node/n1; ")
    assert [(b["pod"], b["node"], b["code"]) for b in doc["blocked"]] == blocked
    assert [(s["pod"], s["node"], s["code"]) for s in doc["shortfall"]] == short
    assert doc["movedMoreThanOnce"] == [{"namespace": "default", "pod": p, "times": 2, "nodes": ["n1", "n2"]}
                                        for p, _, _ in again]


def test_table_says_who_moved_more_than_once_and_how_to_avoid_it(tmp_path):
    path = cluster(tmp_path, CASES[0][1])
    res = run_cli("-f", path, "drain", "n1", "n2", "--one-at-a-time")
    assert res.returncode == 0, res.stderr
    assert ("  moved more than once: 2 pods (default/web-0 x2, default/web-1 x2): their replacements landed on nodes "
            "drained later; to avoid it, cordon all the nodes first (kubectl cordon NODE...), then drain them"
            in res.stdout.splitlines())


def test_plain_drain_of_the_same_nodes_moves_nothing_twice(tmp_path):
    """One maintenance window: both nodes are cordoned first, so no replacement lands on n2."""
    path = cluster(tmp_path, CASES[0][1])
    res = run_cli("-f", path, "-o", "json", "drain", "n1", "n2")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert [(a["pod"], a["target"]) for a in doc["actions"] if a["type"] == "evict"] == [("web-1", "small"),
                                                                                        ("web-0", "small")]
    assert "movedMoreThanOnce" not in doc
    assert "moved more than once" not in run_cli("-f", path, "drain", "n1", "n2").stdout


def test_help_says_second_evictions_are_planned():
    res = run_cli("drain", "--help")
    assert res.returncode == 0
    text = " ".join(res.stdout.split())
    assert "--one-at-a-time" in text and "evicted again in that node's turn" in text


def test_apply_is_refused_when_a_pod_would_move_twice(tmp_path):
    """apply evicts by name and uid; a replacement's are unknown, so nothing is applied."""
    path = cluster(tmp_path, CASES[0][1])
    res = run_cli("-f", path, "drain", "n1", "n2", "--one-at-a-time", "--apply", "--yes")
    assert res.returncode == 1
    assert res.stderr.splitlines() == [
        "error: --one-at-a-time: 2 pod(s) would be evicted again from a node drained later (default/web-0, "
        "default/web-1): apply cannot name their replacements; cordon all the nodes first (kubectl cordon NODE...), "
        "then apply"]


def test_apply_of_a_saved_plan_with_second_evictions_sends_nothing(tmp_path):
    """The saved plan's second evictions have no uid: apply refuses the file before any request."""
    path = cluster(tmp_path, CASES[0][1])
    saved = tmp_path / "plan.json"
    saved.write_text(run_cli("-f", path, "-o", "json", "drain", "n1", "n2", "--one-at-a-time").stdout)
    res = run_cli("apply", str(saved), "--yes", env={"KUBECONFIG": str(tmp_path / "none")})
    assert res.returncode == 1
    assert res.stderr.splitlines() == [
        "error: actions[4] evicts again the replacement of an earlier eviction, a pod that did not exist when the "
        "plan was made (no uid to name it): apply cannot carry out this plan; cordon all the nodes first (kubectl "
        "cordon NODE...), then plan and apply again"]
