"""DynamicResources (`pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go`),
in kube-scheduler's default profile from v1.34 (DRA GA, resource.k8s.io/v1); before v1.34 the
plugin is not active (the DynamicResourceAllocation gate was off by default).

For a pod with `spec.resourceClaims`:
- PreFilter (every failure UnschedulableAndUnresolvable, `statusUnschedulable`): a named claim
  that does not exist (`could not find ResourceClaim "ns/name"`, the claim assume cache's error)
  or is being deleted (`resourceclaim "name" is being deleted`); a request whose DeviceClass does
  not exist (`request R: device class C does not exist`). A claim from a ResourceClaimTemplate
  is created anew for the replacement pod by the resourceclaim controller (a missing template:
  `resourceclaimtemplate.resource.k8s.io "T" not found`, the controller's lookup error).
- Filter: an allocated claim whose `status.allocation.nodeSelector` does not match the node:
  `resourceclaim not available on the node`; claims still to allocate (template claims, and
  unallocated named ones) must find free devices on the node: `cannot allocate all claims`.
  The allocator runs first, so its message wins when both fail (as upstream).
- PostFilter (only when no node fits; it runs for every pod): `no new claims to deallocate`
  (no claims), `deallocation of ResourceClaim completed` (an allocated claim no remaining pod
  reserves: the scheduler deallocates it and the next attempt allocates it anew, which the plan
  follows), otherwise `still not schedulable`. The framework joins PostFilter messages with ", "
  before DefaultPreemption's.

Allocation is modelled by counting: devices come from the ResourceSlices on the node (`nodeName`),
on every node (`allNodes`) or on the nodes their `nodeSelector` matches; a device is free unless
an allocated claim holds it; a request takes `count` free devices (`All`: every matching one,
at least one) of its DeviceClass, whose driver is read from the class's `device.driver == "..."`
CEL selector. Other CEL selectors (class or request) are not evaluated, and with DRADeviceTaints
(v1.36+) devices with an untolerated NoSchedule/NoExecute taint are not used (README divergences).
A shared named claim that other pods still reserve stays allocated where it is.
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Set, Tuple

from kubectl_evict.model import DRA_KINDS, DeviceRequest, Node, Pod, ResourceClaim, ResourceSlice, Snapshot
from kubectl_evict.scheduling.framework import DRA_NO_CLAIMS, OK, SKIPPED, ClusterState, Plugin, Status, unresolvable
from kubectl_evict.scheduling.nodeaffinity import node_selector_matches
from kubectl_evict.scheduling.tolerations import tolerates
from kubectl_evict.versions import cluster_version

NOT_AVAILABLE = "resourceclaim not available on the node"
CANNOT_ALLOCATE = "cannot allocate all claims"
NO_CLAIMS = DRA_NO_CLAIMS             # v1.34-v1.36 only (DRANoClaimsPostFilterText, #140222)
STILL_NOT_SCHEDULABLE = "still not schedulable"
DEALLOCATED = "deallocation of ResourceClaim completed"

DeviceID = Tuple[str, str, str]          # (driver, pool, device)


def holds_dra(snapshot: Optional[Snapshot]) -> bool:
    """Does the input hold any DRA kind in full (`SnapshotInfo.kinds`, or objects of it)?
    Without one the plugin asserts nothing about a pod's claims; with some, each kind the input
    does not hold leaves the claims needing it unchecked (`DynamicResources._state`)."""
    return snapshot is not None and any(snapshot.holds(k) for k in DRA_KINDS)


def needed_kinds(snapshot: Snapshot, pod: Pod) -> Tuple[str, ...]:
    """The DRA kinds deciding where a replacement of `pod` can go (for `incomplete`)."""
    need = set()
    for rc in pod.resource_claims:
        if rc.template_name:
            need.update(("ResourceClaimTemplate", "DeviceClass", "ResourceSlice"))
        else:
            need.add("ResourceClaim")
            claim = snapshot.resource_claims.get((pod.namespace, rc.claim_name))
            if claim is None or not claim.allocated:
                need.update(("DeviceClass", "ResourceSlice"))
    return tuple(k for k in DRA_KINDS if k in need)


def unknown_kinds(snapshot: Optional[Snapshot], pod: Pod) -> Tuple[str, ...]:
    """DRA kinds a replacement of `pod` depends on that the input does not hold (empty before
    v1.34, where DynamicResources is not in the profile)."""
    if snapshot is None or not pod.resource_claims or not cluster_version(snapshot).has("DynamicResources"):
        return ()
    return tuple(k for k in needed_kinds(snapshot, pod) if not snapshot.holds(k))


def claim_of(snapshot: Snapshot, pod: Pod, name: str) -> Optional[ResourceClaim]:
    """The ResourceClaim a running pod uses under `pod.spec.resourceClaims[].name`."""
    for rc in pod.resource_claims:
        if rc.name == name:
            real = rc.claim_name or rc.generated
            return snapshot.resource_claims.get((pod.namespace, real)) if real else None
    return None


def pod_claims(snapshot: Snapshot, pod: Pod) -> List[ResourceClaim]:
    """The existing ResourceClaims a running pod uses (named and generated from templates)."""
    out = []
    for rc in pod.resource_claims:
        claim = claim_of(snapshot, pod, rc.name)
        if claim is not None:
            out.append(claim)
    return out


class _Want(NamedTuple):
    """One claim the replacement needs devices for: its label and its requests."""
    label: str
    requests: Tuple[DeviceRequest, ...]


class _State(NamedTuple):
    pinned: Tuple[ResourceClaim, ...]          # allocated: restricted to their node selector
    allocate: Tuple[_Want, ...]                # to allocate on the chosen node


class _Devices:
    """The devices of the snapshot and which are taken, as the plan moves pods (per plan, in
    `ClusterState.cache`). Built on the first pod with claims."""

    def __init__(self, cs: ClusterState, taints: bool) -> None:
        snapshot = cs.snapshot
        self.cs = cs
        self.snapshot = snapshot
        self.taints = taints
        self.by_node: Dict[str, List[Tuple[DeviceID, Any]]] = {}
        self.everywhere: List[Tuple[DeviceID, Any]] = []
        self.selected: List[Tuple[ResourceSlice, List[Tuple[DeviceID, Any]]]] = []
        for s in snapshot.resource_slices:
            devs = [((s.driver, s.pool, d.name), d) for d in s.devices]
            if s.node_name:
                self.by_node.setdefault(s.node_name, []).extend(devs)
            elif s.all_nodes:
                self.everywhere.extend(devs)
            elif s.node_selector is not None:
                self.selected.append((s, devs))
            else:                      # perDeviceNodeSelection: each device says where it is
                for dev in devs:
                    if dev[1].node_name:
                        self.by_node.setdefault(dev[1].node_name, []).append(dev)
                    elif dev[1].all_nodes:
                        self.everywhere.append(dev)
        self.taken: Set[DeviceID] = set()                       # allocated during the plan
        self.held: Dict[DeviceID, ResourceClaim] = {}           # allocated in the snapshot
        for claim in snapshot.resource_claims.values():
            if claim.allocated:
                for d in claim.devices:
                    self.held[(d.driver, d.pool, d.device)] = claim
        self.deallocated: Set[Tuple[str, str]] = set()
        self._node_cache: Dict[str, List[Tuple[DeviceID, Any]]] = {}

    def is_taken(self, dev: DeviceID) -> bool:
        """Held by a claim allocated during the plan, or by a snapshot claim that is still
        allocated: not deallocated by PostFilter, and not generated for a pod that is gone
        (the resourceclaim controller deletes a pod's generated claims once the pod is deleted)."""
        if dev in self.taken:
            return True
        claim = self.held.get(dev)
        if claim is None or (claim.namespace, claim.name) in self.deallocated:
            return False
        owner = next((r for r in claim.owner_refs if r.controller and r.kind == "Pod"), None)
        return owner is None or (claim.namespace, owner.name) in self.cs.pod_of

    def on_node(self, node: Node) -> List[Tuple[DeviceID, Any]]:
        devs = self._node_cache.get(node.name)
        if devs is None:
            devs = list(self.by_node.get(node.name, ())) + self.everywhere
            for s, sdevs in self.selected:
                if node_selector_matches(s.node_selector, node.labels, node.name).match:
                    devs.extend(sdevs)
            self._node_cache[node.name] = devs
        return devs

    def usable(self, device: Any, req: DeviceRequest) -> bool:
        """DRADeviceTaints: the allocator skips devices with an untolerated NoSchedule or
        NoExecute taint."""
        if not self.taints:
            return True
        return all(t.effect not in ("NoSchedule", "NoExecute") or any(tolerates(tol, t) for tol in req.tolerations)
                   for t in device.taints)

    def allocate(self, wants: Tuple[_Want, ...], node: Node) -> Optional[List[DeviceID]]:
        """Devices for every request of every claim on `node`, or None (all or nothing)."""
        devs = self.on_node(node)
        used: Set[DeviceID] = set()
        for want in wants:
            for req in want.requests:
                got = None
                for alt in (req.alternatives or (req,)):
                    got = self._take(alt, devs, used)
                    if got is not None:
                        break
                if got is None:
                    return None
                used.update(got)
        return sorted(used)

    def _take(self, req: DeviceRequest, devs: List[Tuple[DeviceID, Any]], used: Set[DeviceID]) -> Optional[List[DeviceID]]:
        cls = self.snapshot.device_classes.get(req.device_class)
        drivers = cls.drivers if cls is not None else ()
        matching = [(i, d) for i, d in devs if not drivers or i[0] in drivers]
        if req.mode == "All":
            # every matching device, and each must be available (the allocator fails the
            # request when one is taken), at least one
            if not matching or any(i in used or self.is_taken(i) or not self.usable(d, req) for i, d in matching):
                return None
            return [i for i, _ in matching]
        free = [i for i, d in matching if i not in used and not self.is_taken(i) and self.usable(d, req)]
        return free[:req.count] if len(free) >= req.count else None


class DynamicResources(Plugin):
    name = "DynamicResources"

    # -- per plan ------------------------------------------------------------------------------

    def enabled(self, cs: ClusterState) -> bool:
        """In the default profile for this cluster's version, and the input holds DRA objects."""
        on = cs.cache.get("dra-enabled")
        if on is None:
            on = cs.cache["dra-enabled"] = self._release(cs).has("DynamicResources")
        return on

    def _release(self, cs: ClusterState) -> Any:
        return cluster_version(cs.snapshot if cs.snapshot is not None else Snapshot())

    def _devices(self, cs: ClusterState) -> _Devices:
        d = cs.cache.get("dra-devices")
        if d is None:
            d = cs.cache["dra-devices"] = _Devices(cs, cluster_version(cs.snapshot).has("DRADeviceTaints"))
        return d

    # -- PreFilter / Filter ----------------------------------------------------------------------

    def pre_filter(self, cs: ClusterState, pod: Pod) -> Tuple[Status, Any]:
        if not pod.resource_claims or not self.enabled(cs) or not holds_dra(cs.snapshot):
            return SKIPPED, None
        cs.cache.pop(("dra-unavailable", pod.namespace, pod.name), None)     # a new cycle's state
        return self._state(cs, pod)

    def _state(self, cs: ClusterState, pod: Pod) -> Tuple[Status, Any]:
        """PreFilter's work without starting a new cycle (Reserve and PostFilter reuse it)."""
        if not pod.resource_claims or not self.enabled(cs) or not holds_dra(cs.snapshot):
            return SKIPPED, None
        snap = cs.snapshot
        dealloc = self._devices(cs).deallocated
        pinned: List[ResourceClaim] = []
        wants: List[_Want] = []
        for rc in pod.resource_claims:
            # An object missing from an input that holds none of its kind is unknown, not absent:
            # the pod's claims are then not checked (nothing is asserted about them).
            if rc.template_name:
                tmpl = snap.claim_templates.get((pod.namespace, rc.template_name))
                if tmpl is None:
                    if not snap.holds("ResourceClaimTemplate"):
                        return SKIPPED, None
                    return unresolvable('resourceclaimtemplate.resource.k8s.io "%s" not found' % rc.template_name), None
                wants.append(_Want("%s-%s" % (pod.name, rc.name), tmpl.requests))
                continue
            claim = snap.resource_claims.get((pod.namespace, rc.claim_name))
            if claim is None:
                if not snap.holds("ResourceClaim"):
                    return SKIPPED, None
                return unresolvable('could not find ResourceClaim "%s/%s"' % (pod.namespace, rc.claim_name)), None
            if claim.deletion_timestamp is not None:
                return unresolvable('resourceclaim "%s" is being deleted' % claim.name), None
            if claim.allocated and (pod.namespace, claim.name) not in dealloc:
                pinned.append(claim)
            else:
                wants.append(_Want(claim.ref, claim.requests))
        for want in wants:
            for req in want.requests:
                for alt, label in ([(a, "%s/%s" % (req.name, a.name)) for a in req.alternatives]
                                   or [(req, req.name)]):
                    if alt.device_class not in snap.device_classes:
                        if not snap.holds("DeviceClass"):
                            return SKIPPED, None
                        return unresolvable("request %s: device class %s does not exist" % (label, alt.device_class)), None
        if not snap.holds("ResourceSlice"):
            wants = []          # no ResourceSlice in the input: free devices are unknown
        if not pinned and not wants:
            return SKIPPED, None
        return OK, _State(tuple(pinned), tuple(wants))

    def filter(self, cs: ClusterState, pod: Pod, state: Any, node: Node) -> Optional[Status]:
        unavailable = [(c.namespace, c.name) for c in state.pinned if c.node_selector is not None and
                       not node_selector_matches(c.node_selector, node.labels, node.name).match]
        if state.allocate and self._devices(cs).allocate(state.allocate, node) is None:
            return unresolvable(CANNOT_ALLOCATE)
        if unavailable:
            # `unavailableClaims`: what PostFilter may deallocate (claims some node's Filter found
            # pinned elsewhere; nodes rejected by earlier plugins never get here)
            cs.cache.setdefault(("dra-unavailable", pod.namespace, pod.name), set()).update(unavailable)
            return unresolvable(NOT_AVAILABLE)
        return None

    # -- Reserve / PostFilter ------------------------------------------------------------------

    def reserve(self, cs: ClusterState, pod: Pod, node_name: str) -> None:
        """The replacement landed on `node_name`: the devices its new claims got are taken."""
        st, state = self._state(cs, pod)
        if state is None or not state.allocate:
            return
        devs = self._devices(cs)
        got = devs.allocate(state.allocate, cs.nodes[node_name])
        if got:
            devs.taken.update(got)

    def _deallocatable(self, cs: ClusterState, pod: Pod, state: _State) -> List[ResourceClaim]:
        """Pinned claims no remaining pod reserves (the pod being replaced and pods leaving with it
        are gone by the time the scheduler retries): PostFilter deallocates one of them."""
        out = []
        seen = cs.cache.get(("dra-unavailable", pod.namespace, pod.name), ())
        for c in state.pinned:
            if (c.namespace, c.name) not in seen:
                continue
            holders = [(c.namespace, name) for res, name, _ in c.reserved_for if res in ("pods", "")]
            if all(cs.pod_of.get(k) is None or cs.pod_of[k].deletion_timestamp is not None
                   or k == (pod.namespace, pod.name) for k in holders):
                out.append(c)
        return out

    def post_filter(self, cs: ClusterState, pod: Pod) -> Optional[str]:
        """The PostFilter message when no node fits (None: not in the profile, or no message:
        from v1.37 the "no claims" status carries none, #140222)."""
        if not self.enabled(cs):
            return None
        st, state = self._state(cs, pod)
        if state is None and pod.resource_claims and st.code == SKIPPED.code:
            return STILL_NOT_SCHEDULABLE    # claims this input cannot check: none known unavailable
        if state is None:           # PreFilter recorded no claims (none, or it rejected the pod)
            return NO_CLAIMS if self._release(cs).has("DRANoClaimsPostFilterText") else None
        if not state.pinned:
            return STILL_NOT_SCHEDULABLE
        return DEALLOCATED if self._deallocatable(cs, pod, state) else STILL_NOT_SCHEDULABLE

    def deallocate(self, cs: ClusterState, pod: Pod) -> bool:
        """After a failed attempt: deallocate the claims PostFilter would (one per attempt
        upstream; all at once here, as each retry would take the next). True when any was."""
        if not self.enabled(cs) or not pod.resource_claims:
            return False
        st, state = self._state(cs, pod)
        if state is None:
            return False
        claims = self._deallocatable(cs, pod, state)
        if not claims:
            return False
        dealloc = self._devices(cs).deallocated
        for c in claims:
            dealloc.add((c.namespace, c.name))
        return True
