"""PodDisruptionBudgets: which budgets cover a pod, what the budget is, what the Eviction API says.

Models, for Kubernetes v1.30-v1.37 (the PDB arithmetic is unchanged since v1.33):
- `pkg/registry/core/pod/storage/eviction.go` `getPodDisruptionBudgets`: same namespace only; a
  PDB whose selector is nil, empty or invalid matches nothing;
- `pkg/controller/disruption/disruption.go` (`getExpectedPodCount`, `getExpectedScale`,
  `countHealthyPods`, `updatePdbStatus`, `failSafe`): the budget arithmetic;
- `eviction.go` `Create` / `canIgnorePDB` / `checkAndDecrement`: the decision for one eviction.

Everything here is a pure function of its arguments, so the drain planner can replay the API's
decision pod after pod while it draws a budget down (the API itself only ever sees one pod).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from kubectl_evict.model import LabelSelector, Owner, OwnerRef, Pod, PodDisruptionBudget, Snapshot
from kubectl_evict.scheduling.labels import label_selector_errors, label_selector_matches
from kubectl_evict.timeutil import format_offset

#: `DeletionTimeout` in the disruption controller: a `status.disruptedPods` entry stops
#: counting (the pod is healthy again) two minutes after the eviction was approved.
DELETION_TIMEOUT = 120.0
#: `MaxDisruptedPodSize` in eviction.go.
MAX_DISRUPTED_POD_SIZE = 2000

MULTIPLE_PDBS = "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
VIOLATES_BUDGET = "Cannot evict pod as it would violate the pod's disruption budget."


def _selects(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    sel = pdb.selector
    if sel is None or not _selector_valid(sel):
        return False
    return label_selector_matches(sel, pod.labels, empty_matches_all=False)


@lru_cache(maxsize=4096)
def _selector_valid(sel: LabelSelector) -> bool:
    """A selector the API server would accept (checked once per distinct selector, not per pod)."""
    return not label_selector_errors(sel, "spec.selector")


def pdbs_for_pod(snapshot: Snapshot, pod: Pod) -> Tuple[PodDisruptionBudget, ...]:
    """The PDBs that cover `pod` (the Eviction API refuses pods covered by more than one)."""
    return tuple(pdb for pdb in snapshot.pdbs_by_namespace.get(pod.namespace, ()) if _selects(pdb, pod))


def selected_pods(snapshot: Snapshot, pdb: PodDisruptionBudget) -> Tuple[Pod, ...]:
    """The pods of the PDB's namespace its selector picks (`getPodsForPdb`).

    Upstream's controller would count every pod of the namespace for an empty selector, but the
    Eviction API never applies such a PDB to any pod, so for planning it selects nothing.
    """
    if pdb.selector is None:
        return ()
    ns = pdb.namespace
    pods = snapshot.pods            # sorted by (namespace, name): binary search (no bisect key= on 3.9)
    lo, hi = 0, len(pods)
    while lo < hi:
        mid = (lo + hi) // 2
        if pods[mid].namespace < ns:
            lo = mid + 1
        else:
            hi = mid
    i = lo
    out = []
    while i < len(pods) and pods[i].namespace == ns:
        if _selects(pdb, pods[i]):
            out.append(pods[i])
        i += 1
    return tuple(out)


def scaled_value(value: object, total: int) -> int:
    """`intstr.GetScaledValueFromIntOrPercent(value, total, roundUp=true)`."""
    if isinstance(value, int):
        return value
    text = str(value)
    if text.endswith("%"):
        return -(-int(text[:-1]) * total // 100)
    return int(text)


def _find_owner(snapshot: Snapshot, kind: str, namespace: str, ref: OwnerRef) -> Optional[Owner]:
    """The lister `Get(name)` plus the UID check the finders do (a ref without uid, as hand-made
    snapshots have, matches by name)."""
    owner = snapshot.owners.get((kind, namespace, ref.name))
    if owner is None:
        return None
    if ref.uid and owner.uid and ref.uid != owner.uid:
        return None
    return owner


def _group(api_version: str) -> str:
    return api_version.split("/", 1)[0] if "/" in api_version else ""


def controller_scale(snapshot: Snapshot, ref: OwnerRef, namespace: str) -> Optional[Tuple[str, int]]:
    """`finders()`: (controller identity, spec.replicas) for a controllerRef, or None when no
    finder knows it (DaemonSets, Jobs, and kinds the snapshot does not carry).

    ReplicationController, ReplicaSet owned by a Deployment (the Deployment's scale), a bare
    ReplicaSet (or one whose Deployment is gone), StatefulSet. The generic scale-subresource
    finder needs the API server: for the kinds only it resolves (custom resources),
    `scale_unknown` says the input cannot answer.
    """
    group = _group(ref.api_version)
    if ref.kind == "ReplicationController" and group == "":
        rc = _find_owner(snapshot, "ReplicationController", namespace, ref)
        if rc is not None:
            return (rc.uid or rc.ref, rc.replicas if rc.replicas is not None else 1)
    if ref.kind == "ReplicaSet" and group in ("apps", "extensions"):
        rs = _find_owner(snapshot, "ReplicaSet", namespace, ref)
        if rs is not None:
            up = rs.controller
            if up is not None and up.kind == "Deployment" and _group(up.api_version) in ("apps", "extensions"):
                dep = _find_owner(snapshot, "Deployment", namespace, up)
                if dep is not None:
                    return (dep.uid or dep.ref, dep.replicas if dep.replicas is not None else 1)
            # a bare ReplicaSet; or one whose Deployment is gone (getPodReplicaSet skips it, the
            # generic scale finder then reads the ReplicaSet's own scale subresource)
            return (rs.uid or rs.ref, rs.replicas if rs.replicas is not None else 1)
    if ref.kind == "StatefulSet" and group == "apps":
        ss = _find_owner(snapshot, "StatefulSet", namespace, ref)
        if ss is not None:
            return (ss.uid or ss.ref, ss.replicas if ss.replicas is not None else 1)
    return None


#: Built-in controllers with no finder and no scale subresource: the generic finder's error.
_NO_SCALE = {("DaemonSet", "apps"): "daemonsets.apps", ("Job", "batch"): "jobs.batch"}


def scale_unknown(snapshot: Snapshot, ref: OwnerRef, namespace: str) -> str:
    """The kind whose objects the input does not hold but the lookup of `ref`'s scale reads (""
    when the input can answer): the finders' listers, and for any other kind (custom resources)
    the generic scale-subresource finder, which asks the API server."""
    group = _group(ref.api_version)
    if ref.kind == "ReplicationController" and group == "":
        return "" if snapshot.holds("ReplicationController") else "ReplicationController"
    if ref.kind == "ReplicaSet" and group in ("apps", "extensions"):
        if not snapshot.holds("ReplicaSet"):
            return "ReplicaSet"
        rs = _find_owner(snapshot, "ReplicaSet", namespace, ref)
        up = rs.controller if rs is not None else None
        if up is not None and up.kind == "Deployment" and not snapshot.holds("Deployment"):
            return "Deployment"
        return ""
    if ref.kind == "StatefulSet" and group == "apps":
        return "" if snapshot.holds("StatefulSet") else "StatefulSet"
    if (ref.kind, group) in _NO_SCALE:
        return ""
    return ref.kind


class Budget(NamedTuple):
    """A PDB's status as the disruption controller writes it (or as it stands)."""
    expected_pods: int
    desired_healthy: int
    current_healthy: int
    disruptions_allowed: int
    source: str = "computed"          # "status" (taken as written), "computed" (from spec) or "unknown"
    problem: str = ""                 # why the controller fell back to disruptionsAllowed 0
    unmanaged: Tuple[str, ...] = ()   # selected pods without a controller (UnmanagedPods event)
    unknown: str = ""                 # a kind the computation needs that the input does not hold


class ScaleUnknown(Exception):
    """The expected count needs objects of a kind the input does not hold."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


def expected_and_desired(snapshot: Snapshot, pdb: PodDisruptionBudget,
                         pods: Sequence[Pod]) -> Tuple[int, int, Tuple[str, ...], str]:
    """`getExpectedPodCount`: (expectedCount, desiredHealthy, unmanaged pod names, error).
    Raises ScaleUnknown when a controller's scale depends on a kind the input does not hold."""
    def expected_scale() -> Tuple[int, Tuple[str, ...], str]:
        scales: Dict[str, int] = {}
        unmanaged: List[str] = []
        for pod in pods:
            ref = pod.controller
            if ref is None:
                unmanaged.append(pod.name)
                continue
            if ref.uid and ref.uid in scales:
                continue
            missing = scale_unknown(snapshot, ref, pod.namespace)
            if missing:
                raise ScaleUnknown(missing)
            found = controller_scale(snapshot, ref, pod.namespace)
            if found is None:
                resource = _NO_SCALE.get((ref.kind, _group(ref.api_version)))
                if resource:    # the generic scale finder's error
                    return 0, tuple(unmanaged), "%s does not implement the scale subresource" % resource
                return 0, tuple(unmanaged), "found no controllers for pod \"%s\"" % pod.name
            scales[found[0]] = found[1]
        return sum(scales.values()), tuple(unmanaged), ""

    if pdb.max_unavailable is not None:
        expected, unmanaged, err = expected_scale()
        if err:
            return 0, 0, unmanaged, err
        desired = max(0, expected - scaled_value(pdb.max_unavailable, expected))
        return expected, desired, unmanaged, ""
    if pdb.min_available is not None:
        if isinstance(pdb.min_available, int):
            return len(pods), pdb.min_available, (), ""
        expected, unmanaged, err = expected_scale()
        if err:
            return 0, 0, unmanaged, err
        return expected, scaled_value(pdb.min_available, expected), unmanaged, ""
    return 0, 0, (), ""


def count_healthy(pods: Iterable[Pod], disrupted: Dict[str, float], now: float) -> int:
    """`countHealthyPods`: Ready, not being deleted, not in disruptedPods for under 2 minutes."""
    n = 0
    for pod in pods:
        if pod.deletion_timestamp is not None:
            continue
        when = disrupted.get(pod.name)
        if when is not None and when + DELETION_TIMEOUT > now:
            continue
        if pod.ready:
            n += 1
    return n


def budget_from_counts(expected: int, desired: int, healthy: int) -> int:
    """`updatePdbStatus`: disruptionsAllowed = currentHealthy - desiredHealthy, clamped at 0, and
    0 whenever expectedCount <= 0."""
    allowed = healthy - desired
    if expected <= 0 or allowed <= 0:
        return 0
    return allowed


def compute_budget(snapshot: Snapshot, pdb: PodDisruptionBudget, now: float,
                   pods: Optional[Sequence[Pod]] = None) -> Budget:
    """What the disruption controller would write into `status` for `pdb` right now."""
    if pods is None:
        pods = selected_pods(snapshot, pdb)
    try:
        expected, desired, unmanaged, err = expected_and_desired(snapshot, pdb, pods)
    except ScaleUnknown as e:
        return Budget(pdb.expected_pods, pdb.desired_healthy, pdb.current_healthy, pdb.disruptions_allowed,
                      "unknown", unknown=e.kind)
    if err:
        # failSafe: disruptionsAllowed 0, the rest of the status as it was.
        return Budget(pdb.expected_pods, pdb.desired_healthy, pdb.current_healthy, 0, "computed", err, unmanaged)
    disrupted = {k: v for k, v in pdb.disrupted_pods.items() if v is not None}
    healthy = count_healthy(pods, disrupted, now)
    return Budget(expected, desired, healthy, budget_from_counts(expected, desired, healthy), "computed", "",
                  unmanaged)


def status_is_current(pdb: PodDisruptionBudget) -> bool:
    """The controller has written a status for the PDB's current generation."""
    return pdb.has_status and pdb.observed_generation >= pdb.generation


def budget_unknown(snapshot: Snapshot, pdb: PodDisruptionBudget) -> str:
    """The kind not in the input that the budget a plan works with (`effective_budget`) needs,
    or "" when the input can tell it."""
    if status_is_current(pdb):
        return ""
    try:
        expected_and_desired(snapshot, pdb, selected_pods(snapshot, pdb))
    except ScaleUnknown as e:
        return e.kind
    return ""


def effective_budget(snapshot: Snapshot, pdb: PodDisruptionBudget, now: float) -> Budget:
    """The budget a drain starting now works with: `status` when it is current, otherwise what
    the controller is about to write (it syncs within seconds of any change)."""
    if status_is_current(pdb):
        return Budget(pdb.expected_pods, pdb.desired_healthy, pdb.current_healthy, pdb.disruptions_allowed, "status")
    return compute_budget(snapshot, pdb, now)


def can_ignore_pdb(pod: Pod) -> bool:
    """`canIgnorePDB`: Pending, Succeeded, Failed, or already being deleted."""
    return pod.phase in ("Pending", "Succeeded", "Failed") or pod.deletion_timestamp is not None


class BudgetState:
    """One PDB's budget as a plan draws it down eviction after eviction, in waves: an eviction
    spends one disruption (`spend`), and the Ready replacement of an evicted pod gives it back in
    the next wave (`replaced`), as the disruption controller recounts currentHealthy."""

    def __init__(self, pdb: PodDisruptionBudget, budget: Budget) -> None:
        self.pdb = pdb
        self.budget = budget
        self.allowed = budget.disruptions_allowed
        self.healthy = budget.current_healthy
        self.restores: Dict[int, int] = {}      # wave -> budget that comes back then
        self.gains: Dict[int, int] = {}         # wave -> Ready replacements of pods that were not healthy
        # pods whose budget never comes back, and why: (pod key, evicted at) -> text
        self.lost: Dict[Tuple[Tuple[str, str], float], str] = {}
        self.spent = 0

    def at_wave(self, wave: int) -> None:
        for w in sorted(self.restores):
            if w <= wave:
                n = self.restores.pop(w)
                self.allowed += n
                self.healthy += n
        for w in sorted(self.gains):
            if w <= wave:
                # the controller counts one more healthy pod than before the drain: disruptionsAllowed
                # is currentHealthy - desiredHealthy again (0 while it fails safe or expects none)
                self.healthy += self.gains.pop(w)
                if self.budget.expected_pods > 0 and not self.budget.problem:
                    self.allowed = max(self.allowed, self.healthy - self.budget.desired_healthy)

    def pending_after(self, wave: int) -> Optional[int]:
        later = [w for w in list(self.restores) + list(self.gains) if w > wave]
        return min(later) if later else None

    def spend(self) -> None:
        """An eviction the budget allowed (`checkAndDecrement`)."""
        self.allowed -= 1
        self.healthy -= 1
        self.spent += 1

    def gain(self, wave: int, delta: int = 1) -> None:
        """`delta` more (or, negative, fewer) pods the controller did not count as healthy are
        Ready again from `wave` on."""
        n = self.gains.get(wave, 0) + delta
        if n > 0:
            self.gains[wave] = n
        else:
            self.gains.pop(wave, None)

    def replaced(self, pod: Pod, wave: int, at: float, spent: bool, landed: bool, why_not: str,
                 ready_wave: Optional[int] = None) -> None:
        """`pod`, evicted in `wave` (at `at` seconds), spent a disruption or (not `spent`) was not
        healthy; its replacement `landed` and is Ready in `ready_wave` (default the next wave: it
        is created at the eviction), or `why_not`. The disruption controller counts a pod healthy
        only once it is Ready (`countHealthyPods`), so a replacement created later than its
        eviction (an OrderedReady StatefulSet's) gives the budget back only then."""
        ready = wave + 1 if ready_wave is None else ready_wave
        if not spent:
            if landed:
                self.gain(ready)
        elif landed:
            self.restores[ready] = self.restores.get(ready, 0) + 1
        else:
            self.lost[(pod.key, at)] = "the replacement of %s (evicted at %s) %s" % (pod.ref, format_offset(at), why_not)

    def preempted(self, pod: Pod, wave: int, at: float, landed: bool, why_not: str, how: str = "preempted") -> None:
        """`pod`, covered by this budget, is deleted by kube-scheduler's preemption (or, `how`, by
        another plain DELETE: pod GC) in `wave` (no Eviction API, nothing spent). If it was healthy,
        the disruption controller counts one healthy pod less, so disruptionsAllowed (currentHealthy -
        desiredHealthy, clamped at 0) drops; its replacement, once Ready in the next wave, counts
        again, or (`why_not`) never does."""
        if not pod.ready or pod.deletion_timestamp is not None or pod.is_terminal:
            return
        self.at_wave(wave)
        # like an eviction the budget allowed, but without asking it: below 0 is a debt the
        # Eviction API sees as 0 (`as_pdb`), paid back by Ready replacements first
        self.healthy -= 1
        self.allowed -= 1
        if landed:
            self.restores[wave + 1] = self.restores.get(wave + 1, 0) + 1
        else:
            self.lost[(pod.key, at)] = "the replacement of %s (%s at %s) %s" % (pod.ref, how, format_offset(at),
                                                                              why_not)

    def landed_later(self, pod: Pod, at: float, wave: int) -> None:
        """The replacement of `pod` (evicted at `at`), which had nowhere to go, lands after all
        (upgrade: a new node joined): the disruption it spent comes back in `wave`."""
        if self.lost.pop((pod.key, at), None) is not None:
            self.restores[wave] = self.restores.get(wave, 0) + 1

    def as_pdb(self) -> PodDisruptionBudget:
        """The PDB as the Eviction API would read it now. A stale status has been replaced by the
        computed one, so it counts as observed."""
        pdb = self.pdb
        allowed = self.allowed if self.allowed >= 0 or self.budget.disruptions_allowed < 0 else 0
        return pdb.set(disruptions_allowed=allowed, current_healthy=self.healthy,
                       desired_healthy=self.budget.desired_healthy,
                       observed_generation=max(pdb.observed_generation, pdb.generation))


class Eviction(NamedTuple):
    """The Eviction API's answer for one pod."""
    code: int                 # 201 (deleted), 429, 403 or 500
    pdb_checked: bool = False  # a PDB was consulted
    spends_budget: bool = False  # disruptionsAllowed was decremented
    message: str = ""
    cause: str = ""
    pdb: str = ""             # the PDB's name

    @property
    def allowed(self) -> bool:
        return self.code == 201

    @property
    def text(self) -> str:
        """The message as kubectl shows it, with the cause when there is one."""
        if self.cause and self.message:
            return "%s %s" % (self.message, self.cause)
        return self.message or self.cause


def eviction_decision(pod: Pod, pdbs: Sequence[PodDisruptionBudget]) -> Eviction:
    """`EvictionREST.Create` for `pod` given the PDBs that cover it, read from their status.

    Pass PDB records whose status fields hold the budget at the time of the eviction (a planner
    drawing a budget down sets `disruptions_allowed` / `current_healthy` on a copy).
    """
    if can_ignore_pdb(pod):
        return Eviction(201)
    if len(pdbs) > 1:
        return Eviction(500, message=MULTIPLE_PDBS)
    if not pdbs:
        return Eviction(201)
    pdb = pdbs[0]
    if not pod.ready:
        if pdb.unhealthy_pod_eviction_policy == "AlwaysAllow":
            return Eviction(201, pdb_checked=True, pdb=pdb.name)
        if pdb.current_healthy >= pdb.desired_healthy and pdb.desired_healthy > 0:
            return Eviction(201, pdb_checked=True, pdb=pdb.name)
    # checkAndDecrement
    if pdb.observed_generation < pdb.generation:
        return Eviction(429, True, False, VIOLATES_BUDGET,
                        "The disruption budget %s is still being processed by the server." % pdb.name, pdb.name)
    if pdb.disruptions_allowed < 0:
        return Eviction(403, True, False, "pdb disruptions allowed is negative", "", pdb.name)
    if len(pdb.disrupted_pods) > MAX_DISRUPTED_POD_SIZE:
        return Eviction(403, True, False,
                        "DisruptedPods map too big - too many evictions not confirmed by PDB controller", "", pdb.name)
    if pdb.disruptions_allowed == 0:
        return Eviction(429, True, False, VIOLATES_BUDGET,
                        "The disruption budget %s needs %d healthy pods and has %d currently"
                        % (pdb.name, pdb.desired_healthy, pdb.current_healthy), pdb.name)
    return Eviction(201, True, True, pdb=pdb.name)


def ledger_decision(pod: Pod, pdbs: Sequence[PodDisruptionBudget], state: Optional[BudgetState],
                    wave: int) -> Eviction:
    """The Eviction API's answer for `pod`, covered by `pdbs`, in `wave` of a plan that draws the
    budget of its single PDB down in `state`. A budget the input cannot compute
    (`Budget.unknown`) is not checked: the caller says so (`incomplete`)."""
    if state is None:
        return eviction_decision(pod, pdbs)
    if state.budget.unknown:
        return eviction_decision(pod, ())
    state.at_wave(wave)
    return eviction_decision(pod, [state.as_pdb()])


def unknown_budget_text(pdb: PodDisruptionBudget, kind: str) -> str:
    """Why an eviction under `pdb` was not checked against its budget."""
    return ("PDB %s not checked: its budget counts its pods' controllers (spec.replicas), and %s is not in "
            "the input" % (pdb.ref, kind))

