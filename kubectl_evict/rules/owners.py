"""Who owns a pod, and whether that owner exists: the owner lookup every rule shares.

Its own module so that the scheduler's preemption (`rules/scheduling.py`, which
`rules/replacements.py` builds on) asks the same question as the rules without an import circle.
`rules/replacements.py` re-exports everything here.

An owner the input does not hold the kind of is assumed to exist (the plan says so in
`incomplete`). An owner whose kind the input holds in full and that is not in it does not
exist, and then Kubernetes' garbage collector deletes the pod: `attemptToDeleteItem`
(`pkg/controller/garbagecollector/garbagecollector.go`) classifies each owner reference
(`classifyReferences`, `isDangling`: an owner that is not found, or whose uid is not the
reference's, is dangling) and deletes an object none of
whose owners is solid, with background propagation; nothing recreates it, since the controller
that would is gone. A ReplicaSet whose Deployment does not exist goes the same way, and its pods
with it.
"""

from __future__ import annotations

from typing import Optional

from kubectl_evict.model import Owner, OwnerRef, Pod, Snapshot

# The workload controllers the input holds and the plans model (`SnapshotInfo.kinds` names them).
WORKLOAD_KINDS = ("Deployment", "StatefulSet", "ReplicaSet", "DaemonSet", "Job", "ReplicationController")

NOTHING_RECREATES = "nothing recreates it"


def find_owner(snapshot: Snapshot, kind: str, namespace: str, name: str, uid: str = "") -> Optional[Owner]:
    """The controller object an owner reference names: by uid, else by kind, namespace and name
    (hand-made inputs often carry no uids); None when the input does not have it."""
    if uid:
        owner = snapshot.owners_by_uid.get(uid)
        if owner is not None and owner.kind == kind:
            return owner
    return snapshot.owners.get((kind, namespace, name))


def controller_owner(snapshot: Snapshot, pod: Pod) -> Optional[Owner]:
    """The object of the pod's controller (`ownerReferences[controller=true]`), None when the pod
    has none or the input does not have it."""
    ref = pod.controller
    return find_owner(snapshot, ref.kind, pod.namespace, ref.name, ref.uid) if ref is not None else None


def _missing(snapshot: Snapshot, ref: OwnerRef, namespace: str) -> bool:
    """Is the object `ref` names known not to be there, by name (what kubectl's GET asks)? Only
    for a workload kind the input holds."""
    return (ref.kind in WORKLOAD_KINDS and snapshot.holds(ref.kind)
            and find_owner(snapshot, ref.kind, namespace, ref.name, ref.uid) is None)


def _dangling(snapshot: Snapshot, ref: OwnerRef, namespace: str) -> bool:
    """The garbage collector's `isDangling`: the owner is not found, or the object of that name
    is another one (its uid is not the reference's: the owner was deleted and recreated)."""
    if ref.kind not in WORKLOAD_KINDS or not snapshot.holds(ref.kind):
        return False
    owner = find_owner(snapshot, ref.kind, namespace, ref.name, ref.uid)
    return owner is None or (bool(ref.uid) and bool(owner.uid) and owner.uid != ref.uid)


def owner_absent(snapshot: Snapshot, pod: Pod) -> bool:
    """Does the pod's controller not exist, by name (kubectl drain GETs a DaemonSet by name)?
    Only an input that holds every object of its kind can say so; for a kind it does not hold
    the owner is assumed to exist."""
    ref = pod.controller
    return ref is not None and _missing(snapshot, ref, pod.namespace)


def absent_owner(snapshot: Snapshot, pod: Pod) -> str:
    """Why nothing recreates `pod` because its controller does not exist (or its ReplicaSet's
    Deployment does not), "" when the owner exists or the input cannot say. The text ends in
    `NOTHING_RECREATES`; every rule gives such a pod no replacement and says this."""
    ref = pod.controller
    if ref is None or ref.kind not in WORKLOAD_KINDS:
        return ""
    ns = pod.namespace
    if _dangling(snapshot, ref, ns):
        head = "its %s %s/%s is not in the cluster" % (ref.kind, ns, ref.name)
        if not _missing(snapshot, ref, ns):
            head += " (%s %s/%s there is another object: uid %s, not %s)" % (
                ref.kind, ns, ref.name, find_owner(snapshot, ref.kind, ns, ref.name).uid, ref.uid)
        if all(_dangling(snapshot, r, ns) for r in pod.owner_refs):
            return head + ": the garbage collector deletes it and " + NOTHING_RECREATES
        # another owner is solid (or not known): the collector only drops the dangling reference
        return head + " (another owner keeps the garbage collector from deleting it): " + NOTHING_RECREATES
    owner = controller_owner(snapshot, pod)
    up = owner.controller if owner is not None else None
    if up is not None and _dangling(snapshot, up, ns):
        return ("its %s %s/%s belongs to %s %s/%s, which is not in the cluster: the garbage collector deletes the "
                "%s and then its pods, and %s" % (ref.kind, ns, ref.name, up.kind, ns, up.name, ref.kind,
                                                  NOTHING_RECREATES))
    return ""
