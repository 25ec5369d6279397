"""Nodes an upgrade has removed (or whose surge copies have not joined yet) are not in
kube-scheduler's snapshot: they are no topology domain and their pods count nowhere.

Upstream: PodTopologySpread's PreFilter counts over `sharedLister.NodeInfos().List()`, the nodes
of the cycle's snapshot (`pkg/scheduler/framework/plugins/podtopologyspread/filtering.go`
calPreFilterState: a domain is a value of a listed node that has the keys and passes the
inclusion policies; `minMatchNum` is 0 with fewer domains than minDomains); Score likewise
(`scoring.go` initPreScoreState over `allNodes`). InterPodAffinity counts the pods of the listed
nodes (`interpodaffinity/filtering.go` getExistingAntiAffinityCounts /
getIncomingAffinityAntiAffinityCounts over `NodeInfos().List()`). A deleted node is a ghost in the
scheduler cache, "skipped from snapshots" (`pkg/scheduler/backend/cache/cache.go` RemoveNode), with
the pods still bound to it until pod GC deletes them (`pkg/controller/podgc` gcOrphaned); a node
not created yet was never added. So neither contributes a domain, and pods on them count for
nothing (scheduler.md S2.4-S2.6, S3.4).

Each case: node `g` is absent (`Placer.vanish`); `web-0` was left on it and its replacement is
placed. The expected node and FitError are worked out by hand below.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import pytest

from test_drain_plan import deployment, node, pod, snapshot

from kubectl_evict.scheduling.placement import Placer

ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"
WEB = {"matchLabels": {"app": "web"}}
DB = {"matchLabels": {"app": "db"}}


def _spread(key: str, when: str = "DoNotSchedule", min_domains: Optional[int] = None) -> dict:
    c: dict = {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": when, "labelSelector": WEB}
    if min_domains is not None:
        c["minDomains"] = min_domains
    return {"topologySpreadConstraints": [c]}


def _term(sel: dict, key: str = ZONE) -> dict:
    return {"labelSelector": sel, "topologyKey": key}


AFFINITY_DB = {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term(DB)]}}}
ANTI_DB = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term(DB)]}}}
ANTI_WEB = {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [_term(WEB)]}}}

# (case, zones of a/b/c/g (None: no such node), pods (name, node, spec), web-0's spec,
#  expected (node, candidates) or the FitError)
CASES = [
    # hostname spread, maxSkew 1: domains a, b, c with 1 web pod each (g is none) -> min 1;
    # skew on each = 1 + 1 (self) - 1 = 1 <= 1: all fit, equal scores -> a, tied with b and c.
    # (g as a domain with 0 pods would make min 0 and skew 2 everywhere: nothing fits.)
    ("hostname spread: a removed node is no domain", {"a": "z1", "b": "z2", "c": "z3", "g": "z4"},
     [("web-1", "a", "spread-host"), ("web-2", "b", "spread-host"), ("web-3", "c", "spread-host")],
     "spread-host", ("a", ("a", "b", "c"))),
    # zone spread, minDomains 3: domains z1 (a: web-1) and z2 (b: web-2); z3 only on g -> 2
    # domains < 3 -> min 0; skew = 1 + 1 - 0 = 2 > 1 on a and b: nothing fits; N = 2 nodes.
    # (web-3, left on g, counted in z3 would make 3 domains, min 1, skew 1: a would fit.)
    # Skew is Unschedulable, so DefaultPreemption tries a and b; every pod has priority 0, none
    # lower than web-0's: "No preemption victims found for incoming pod" on both (scheduler.md S6.3, S6.9).
    ("zone spread, minDomains: the removed node's zone and pods do not count", {"a": "z1", "b": "z2", "g": "z3"},
     [("web-1", "a", "spread-zone-min3"), ("web-2", "b", "spread-zone-min3"), ("web-3", "g", "spread-zone-min3")],
     "spread-zone-min3",
     "0/2 nodes are available: 2 node(s) didn't match pod topology spread constraints. preemption: "
     "0/2 nodes are available: 2 No preemption victims found for incoming pod."),
    # ScheduleAnyway zone spread (Score): z1 holds a (web-1) and g (web-3, web-4 left there), z2
    # holds b (web-2). Counted: z1 = 1, z2 = 1; 2 domains -> raw = round(1 * ln(2 + 2) + 1 - 1) = 1
    # on both -> normalised 100 * (1 + 1 - 1) / 1 = 100 on both: a tie, a by name.
    # (z1 = 3 would give a round(3 * 1.386) = 4 -> 100 * (4 + 1 - 4) / 4 = 25 against b's 100: b.)
    ("zone spread score: pods on a removed node do not count", {"a": "z1", "b": "z2", "g": "z1"},
     [("web-1", "a", "soft-zone"), ("web-2", "b", "soft-zone"), ("web-3", "g", "soft-zone"),
      ("web-4", "g", "soft-zone")],
     "soft-zone", ("a", ("a", "b"))),
    # required anti-affinity to app=db per zone: db-1 is only on g (z1), db-2 on b (z2). Counted:
    # z2 only -> b fails, a passes: a. (db-1 counted in z1 would reject a too: nothing fits.)
    ("anti-affinity: a pod on a removed node repels nothing", {"a": "z1", "b": "z2", "g": "z1"},
     [("db-1", "g", None), ("db-2", "b", None)], "anti-db", ("a", ())),
    # required affinity to app=db per zone: the only db pod is on g. No listed node holds one, and
    # web-0 does not match its own term (app=web) -> every node fails the affinity check, which is
    # UnschedulableAndUnresolvable: preemption tries no node (scheduler.md S1.3, S6.2, S6.9).
    ("affinity: a pod on a removed node attracts nothing", {"a": "z1", "b": "z2", "g": "z1"},
     [("db-1", "g", None)], "affinity-db",
     "0/2 nodes are available: 2 node(s) didn't match pod affinity rules. preemption: "
     "0/2 nodes are available: 2 Preemption is not helpful for scheduling."),
    # existing pods' anti-affinity: db-1 on g (z1) repels app=web in z1; g is not listed -> no
    # existing pod's term counts: a and b both fit, equal scores -> a, tied with b.
    ("existing anti-affinity: a pod on a removed node repels nothing", {"a": "z1", "b": "z2", "g": "z1"},
     [("db-1", "g", "anti-web")], None, ("a", ("a", "b"))),
]

SPECS = {"spread-host": _spread(HOST), "spread-zone-min3": _spread(ZONE, min_domains=3),
         "soft-zone": _spread(ZONE, "ScheduleAnyway"), "anti-db": ANTI_DB, "affinity-db": AFFINITY_DB,
         "anti-web": ANTI_WEB, None: None}


@pytest.mark.parametrize("case, zones, pods, spec, want", CASES, ids=[c[0] for c in CASES])
def test_absent_nodes_hold_no_domain_and_no_pods(case: str, zones: dict, pods: list, spec: Optional[str],
                                                 want: Any) -> None:
    objs: list = [node(n, labels={ZONE: z}) for n, z in zones.items()]
    objs += [deployment("web", 4), deployment("db", 2)]
    objs += [pod(name, on, spec=SPECS[s]) for name, on, s in pods]
    objs.append(pod("web-0", "g", spec=SPECS[spec]))
    snap = snapshot(*objs)
    placer = Placer(snap.nodes.values(), snap.pods_by_node, snapshot=snap)
    placer.vanish(["g"])
    placed = placer.place(snap.pods_by_key[("default", "web-0")])
    if isinstance(want, str):
        assert (placed.node, placed.reason) == (None, want), case
    else:
        node_name, candidates = want
        got: Tuple[Any, Any] = (placed.node, tuple(sorted(placed.candidates)))
        assert got == (node_name, candidates), (case, placed.reason)


def test_a_node_that_joins_counts_again() -> None:
    """A surge node that has joined is listed from then on: with the hostname spread of the first
    case, g back (0 web pods) makes min 0 and skew 2 on a, b, c: only g itself fits (skew
    0 + 1 - 0 = 1)."""
    zones = {"a": "z1", "b": "z2", "c": "z3", "g": "z4", "src": "z5"}
    objs: list = [node(n, labels={ZONE: z}) for n, z in zones.items()]
    objs += [deployment("web", 4)]
    objs += [pod(name, on, spec=SPECS["spread-host"]) for name, on in (("web-1", "a"), ("web-2", "b"),
                                                                        ("web-3", "c"), ("web-0", "src"))]
    snap = snapshot(*objs)
    placer = Placer(snap.nodes.values(), snap.pods_by_node, snapshot=snap)
    placer.vanish(["g", "src"])
    placer.include(["g"])
    assert placer.place(snap.pods_by_key[("default", "web-0")]).node == "g"


# Nodes that go and come back one at a time: the domains follow every change (kept up to date
# node by node, not recomputed). Zone spread, maxSkew 1; a (z1) and b (z2) hold a web pod each,
# g1 and g2 are both in z3 and web-3 sits on g1. Each step: (vanish, include), then which candidate
# nodes web-0 fits, worked out by hand (skew = count of the node's zone + 1 (self) - min):
STEPS = [
    # g1 gone: z3 stays a domain through g2, its count 0 (web-3 on g1 counts nowhere): min 0;
    # a and b skew 1 + 1 - 0 = 2 > 1; g2 skew 0 + 1 - 0 = 1: only g2
    ((["g1"], []), {"a": False, "b": False, "g2": True}),
    # g2 gone too: z3 is no domain: min over z1, z2 = 1: a and b skew 1 + 1 - 1 = 1: both
    # (z3 kept as an empty domain would leave min 0 and nothing fitting)
    ((["g2"], []), {"a": True, "b": True}),
    # g2 back: z3 a domain again with count 0: min 0: only g2, as in the first step
    (([], ["g2"]), {"a": False, "b": False, "g2": True}),
    # g1 back: web-3 counts in z3 again: every zone 1, min 1: skew 1 everywhere
    (([], ["g1"]), {"a": True, "b": True, "g1": True, "g2": True}),
]


def test_domains_follow_nodes_that_go_and_come_back_one_by_one() -> None:
    zones = {"a": "z1", "b": "z2", "g1": "z3", "g2": "z3", "src": "z9"}
    objs: list = [node(n, labels={ZONE: z}) for n, z in zones.items()]
    objs += [deployment("web", 4)]
    spec = _spread(ZONE)
    objs += [pod(name, on, spec=spec) for name, on in (("web-1", "a"), ("web-2", "b"), ("web-3", "g1"),
                                                       ("web-0", "src"))]
    snap = snapshot(*objs)
    placer = Placer(snap.nodes.values(), snap.pods_by_node, snapshot=snap)
    placer.vanish(["src"])      # web-0's own node (and zone z9) is gone: it is being replaced
    web0 = snap.pods_by_key[("default", "web-0")]
    for (gone, back), want in STEPS:
        if gone:
            placer.vanish(gone)
        if back:
            placer.include(back)
        got = {n: placer.fits_any(web0, [n]) for n in want}
        assert got == want, (gone, back)
