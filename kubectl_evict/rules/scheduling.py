"""Placing a replacement, as every rule does it: one call that asks the scheduler model for a
node and writes what kube-scheduler itself does along the way into the plan.

When the replacement fits nowhere but can preempt (DefaultPreemption), its victims become
`delete` actions `by: scheduler` (the scheduler deletes them directly with their own grace
period, no Eviction API, so PodDisruptionBudgets do not stop it; the plan says when one is
violated). Each victim's own replacement is then placed in turn (or, given a `queue`, when the
caller's scheduling-queue order reaches it: `place_queued`), and may preempt again: the cascade
is followed for `MAX_CASCADE` levels, and a warning says where it stops.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Optional

from kubectl_evict.model import Pod
from kubectl_evict.plan import SCHEDULER, PlanBuilder
from kubectl_evict.rules.owners import absent_owner
from kubectl_evict.scheduling.placement import Placement, Placer
from kubectl_evict.scheduling.plugins.dynamicresources import unknown_kinds
from kubectl_evict.scheduling.scoring import SCORE_WITHOUT_CONTROLLER, SCORE_WITHOUT_NAMESPACES

MAX_CASCADE = 3

# kube-scheduler's preemption reads PodDisruptionBudgets (DefaultPreemption: victims whose
# deletion violates a budget are reprieved first, and the node with the fewest violations wins);
# without them the victims and the node are a guess, said per pod (preemptor and victims)
PREEMPTION_WITHOUT_PDBS = ("preemption victims and their node chosen without budgets (kube-scheduler reprieves "
                           "pods whose deletion would violate a PodDisruptionBudget first, and picks the node with "
                           "the fewest violations)")


#: Told of each preemption victim (at any depth of the cascade): (victim, the node its own
#: replacement lands on or None, why not when None), so a rule can account for what the
#: deletion takes (drain: the victim's PodDisruptionBudget loses a healthy pod).
VictimHook = Callable[[Pod, Optional[str], str], None]


class Queued(NamedTuple):
    """A preemption victim whose own replacement waits in kube-scheduler's queue behind the pods
    already there (`place(queue=...)`, placed later by `place_queued`)."""
    victim: Pod
    node: str
    at: float
    depth: int
    index: int       # the victim's `delete` in the plan's actions, whose target it fills in
    named: Pod       # the victim as the plan names it


#: Given each victim whose replacement is to wait in the caller's queue.
QueueHook = Callable[[Queued], None]


def place(b: PlanBuilder, placer: Placer, pod: Pod, at: float, rule: str, depth: int = 0,
          on_victim: Optional[VictimHook] = None, queue: Optional[QueueHook] = None) -> Placement:
    """Place the replacement of `pod` (removed at `at`); emit the preemptions it causes. With
    `queue`, each victim's own replacement is handed to it instead of placed at once (the caller
    places it with `place_queued` when kube-scheduler's queue order reaches it)."""
    placed = placer.place(pod)
    unchecked(b, placer, pod)
    for kind in unknown_kinds(placer.snapshot, pod):
        b.incomplete_for(kind, "replacements with ResourceClaims placed without checking their devices "
                               "(DynamicResources, v1.34+)", pod.ref)
    if placed.preemptions and placer.snapshot is not None and not placer.snapshot.holds("PodDisruptionBudget"):
        for p in [pod] + [victim for victim, _ in placed.preemptions]:
            b.incomplete_for("PodDisruptionBudget", PREEMPTION_WITHOUT_PDBS, p.ref)
    for victim, node in placed.preemptions:
        preempted(b, placer, victim, node, pod, placed, at, rule, depth + 1, on_victim, queue)
    return placed


def preempted(b: PlanBuilder, placer: Placer, victim: Pod, node: str, preemptor: Pod, placed: Placement,
              at: float, rule: str, depth: int, on_victim: Optional[VictimHook] = None,
              queue: Optional[QueueHook] = None) -> None:
    """The `delete` of one preemption victim, and where its own replacement goes.

    A victim that is itself a replacement placed earlier in the plan (the scheduler model holds it
    under the record of the pod it replaces, whose node is another, or with no uid) is a new pod
    whose name and uid no plan can know: its `delete` names the pod it replaces, with no uid, and
    says so, as a second eviction does (the uid of the pod it replaces would name a pod already
    gone)."""
    reason = ("preempted by kube-scheduler to make room for %s (priority %d > %d); the scheduler deletes it "
              "directly (no Eviction API)" % (preemptor.ref, preemptor.priority, victim.priority))
    named = victim
    if not victim.uid or victim.node_name != node:
        named = victim.set(uid="", node_name=node)
        reason = ("the replacement of %s, placed on node/%s earlier in this plan (its own name and uid are not "
                  "known in advance), is %s" % (victim.ref, node, reason))
    if placed.pdb_violations:
        reason += "; this preemption violates %d PodDisruptionBudget%s" % (
            placed.pdb_violations, "" if placed.pdb_violations == 1 else "s")
    if placed.event:   # v1.37 (#140180): the preemptor's FailedScheduling event says where it goes
        reason += "; %s's FailedScheduling event: %s" % (preemptor.ref, placed.event)
    target: Optional[str] = None
    candidates: tuple = ()
    problem = ""
    why_not = "is never created"
    # a victim whose owner is not in the cluster: the garbage collector deletes it, nothing recreates it
    gone = absent_owner(placer.snapshot, victim) if placer.snapshot is not None else ""
    if gone:
        reason += "; " + gone
    if victim.recreated_elsewhere and not gone and depth <= MAX_CASCADE and queue is not None:
        b.action("delete", by=SCHEDULER, namespace=victim.namespace, pod=victim.name, uid=named.uid, node=node,
                 at=at, grace_period_seconds=None, target=None, candidates=(), rule=rule, reason=reason)
        queue(Queued(victim, node, at, depth, len(b.actions) - 1, named))
        return
    if victim.recreated_elsewhere and not gone:
        if depth > MAX_CASCADE:
            b.warn("preemption cascade stops after %d levels: where the replacement of %s (preempted for %s) "
                   "lands is not followed" % (MAX_CASCADE, victim.ref, preemptor.ref))
            why_not = "is not followed (preemption cascade)"
        else:
            again = place(b, placer, victim, at, rule, depth, on_victim)
            target, candidates, problem = again.node, again.candidates, again.reason
            why_not = "has nowhere to go"
    if on_victim is not None:
        on_victim(victim, target, why_not)
    # util.DeletePod sends DeleteOptions{}: the victim's own grace period applies (null in the plan)
    b.action("delete", by=SCHEDULER, namespace=victim.namespace, pod=victim.name, uid=named.uid, node=node, at=at,
             grace_period_seconds=None, target=target, candidates=candidates,
             rule=rule, reason=reason)
    if problem:
        b.shortfall(named, "no-node-fits", "preempted, and its replacement has nowhere to go: %s" % problem, node)


def place_queued(b: PlanBuilder, placer: Placer, q: Queued, rule: str, on_victim: Optional[VictimHook] = None,
                 queue: Optional[QueueHook] = None) -> None:
    """Place the replacement of a victim `preempted` queued: its `delete` gets the target (or a
    `no-node-fits` shortfall), and its own preemptions follow as `place` makes them."""
    again = place(b, placer, q.victim, q.at, rule, q.depth, on_victim, queue)
    if on_victim is not None:
        on_victim(q.victim, again.node, "has nowhere to go")
    b.actions[q.index] = b.actions[q.index].set(target=again.node, candidates=again.candidates)
    if again.reason:
        b.shortfall(q.named, "no-node-fits", "preempted, and its replacement has nowhere to go: %s" % again.reason,
                    q.node)


def unchecked(b: PlanBuilder, placer: Placer, pod: Pod) -> None:
    """Say which Filter plugins placing `pod` skipped because the input lacks what they read (and
    when InterPodAffinity's Score weighed its terms without the Namespaces they select, or
    PodTopologySpread's default constraints had no selector because the pod's controller kind is
    not in the input)."""
    for kind, plugins in placer.unchecked.get(pod.key, {}).items():
        if kind == "Namespace":
            filters = [p for p in plugins if p != SCORE_WITHOUT_NAMESPACES]
            if filters:
                b.incomplete_for(kind, "%s skipped: required pod (anti-)affinity terms with a namespaceSelector "
                                 "were not evaluated for the replacement" % ", ".join(filters), pod.ref)
            if SCORE_WITHOUT_NAMESPACES in plugins:
                b.incomplete_for(kind, "InterPodAffinity's score: preferred pod (anti-)affinity terms with a "
                                 "namespaceSelector were not weighed, so which of the nodes that fit the "
                                 "replacement goes to was not checked", pod.ref)
            continue
        if SCORE_WITHOUT_CONTROLLER in plugins:
            b.incomplete_for(kind, "PodTopologySpread's score: its default constraints spread a %s's pods by the "
                             "%s's selector, which was not read, so which of the nodes that fit the replacement "
                             "goes to was not checked" % (kind, kind), pod.ref)
            plugins = [p for p in plugins if p != SCORE_WITHOUT_CONTROLLER]
            if not plugins:
                continue
        if kind == "VolumeAttachment":
            what = ("%s counted only the pods' volumes (a node's VolumeAttachments count too): whether the "
                    "replacement stays under the CSI attach limits was not checked" % ", ".join(plugins))
        else:
            what = ("volume filters skipped (%s): whether the claims' volumes can follow the replacement "
                    "was not checked" % ", ".join(plugins))
        b.incomplete_for(kind, what, pod.ref)
