"""The scheduling cycle's shared parts: statuses, the cluster state a plan moves pods through,
the per-domain pod counters that topology spread and inter-pod affinity read, and FitError text.

Models `pkg/scheduler/framework/{interface.go, types.go, cycle_state.go}` and
`pkg/scheduler/framework/runtime/framework.go` of kube-scheduler v1.30-v1.37: a plugin's
PreFilter computes per-pod state once (or says Skip), its Filter answers per node; the first
failing Filter is the node's status; `FitError.Error()` is the `FailedScheduling` text.

The PostFilter part of that text follows the release (`Placer._post_filter`): `RunPostFilterPlugins`
runs DynamicResources (in the default profile from v1.34, before DefaultPreemption) and then
DefaultPreemption, and joins their Unschedulable messages with ", "; DynamicResources says
`no new claims to deallocate` for a pod without claims in v1.34-v1.36 and nothing from v1.37
(#140222). A successful preemption ends the PostFilter phase with DefaultPreemption's Success
message, empty before v1.37 and `found a potential placement for pod on node N, preempting K
victims` from v1.37 (#140180), with no trailing period.

`ClusterState` is the scheduler cache as the plan stands: the snapshot's pods minus those
leaving, plus the replacements placed so far, with the free resources, host ports, PVC users
and volume attachments per node. Counters of "pods matching X per topology domain" are built
once per distinct (namespace, selector, key) and then updated as pods land or leave, so no
placement ever walks pods x nodes (`DomainCounter`).
"""

from __future__ import annotations

from collections import ChainMap, Counter
from typing import (Any, Callable, Dict, FrozenSet, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Set,
                    Tuple)

from kubectl_evict.model import ContainerPort, Node, Pod, Snapshot, Taint, Volume
from kubectl_evict.scheduling.resources import non_zero_requests
from kubectl_evict.scheduling.tolerations import NOT_READY, UNREACHABLE
from kubectl_evict.versions import cluster_version

SUCCESS = "Success"
UNSCHEDULABLE = "Unschedulable"
UNRESOLVABLE = "UnschedulableAndUnresolvable"
SKIP = "Skip"

NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NEVER = "not eligible due to preemptionPolicy=Never."


class Status(NamedTuple):
    code: str
    reasons: Tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.code in (SUCCESS, SKIP)


OK = Status(SUCCESS)
SKIPPED = Status(SKIP)
# `Plugin.class_status`'s answer when a Filter's status may differ between the nodes of a class
PER_NODE = Status("PerNode")


def fails_class(st: Optional[Status]) -> bool:
    """Is `Plugin.class_status`'s answer a failure on every node of the class?"""
    return st is not None and st is not PER_NODE


def unresolvable(*reasons: str) -> Status:
    return Status(UNRESOLVABLE, tuple(reasons))


def unschedulable(*reasons: str) -> Status:
    return Status(UNSCHEDULABLE, tuple(reasons))


def histogram(reasons: Mapping[str, int]) -> str:
    """`<n> <reason>` parts sorted as strings, joined by `, ` (FitError's reason histogram)."""
    return ", ".join(sorted("%d %s" % (n, msg) for msg, n in reasons.items() if n))


def fit_error(total: int, reasons: Mapping[str, int], prefilter: str = "", postfilter: str = "") -> str:
    """`FitError.Error()`: `0/N nodes are available: <histogram or PreFilter message>.` and the
    PostFilter (preemption) message after a space."""
    text = "0/%d nodes are available:" % total
    text += " %s." % (prefilter if prefilter else histogram(reasons))
    if postfilter:
        text += " %s" % (postfilter if postfilter.endswith(".") else postfilter + ".")
    return text


DRA_NO_CLAIMS = "no new claims to deallocate"


def preemption_placed_text(total: int, reasons: Mapping[str, int], node: str, victims: int) -> str:
    """The v1.37 FailedScheduling text of a pod whose preemption found a node (#140180): the
    FitError, then DefaultPreemption's Success message with no trailing period."""
    return "0/%d nodes are available: %s. preemption: found a potential placement for pod on node %s, " \
           "preempting %d victims" % (total, histogram(reasons), node, victims)


def preemption_message(total: int, reasons: Mapping[str, int]) -> str:
    """DefaultPreemption's failed PostFilter message (`preemption: ` + a FitError over all nodes)."""
    return "preemption: 0/%d nodes are available: %s." % (total, histogram(reasons))


def effective_taints(node: Node) -> Tuple[Taint, ...]:
    """The node's taints plus those the node lifecycle controller derives from its state."""
    taints = list(node.taints)
    keys = {(t.key, t.effect) for t in taints}
    status = node.ready_status
    if status == "False" and (NOT_READY, "NoSchedule") not in keys:
        taints.append(Taint(NOT_READY, "", "NoSchedule"))
    elif status in ("Unknown", "") and node.conditions and (UNREACHABLE, "NoSchedule") not in keys:
        taints.append(Taint(UNREACHABLE, "", "NoSchedule"))
    return tuple(taints)


# What the volume plugins read of a pod's claims (NodeVolumeLimits reads CSINode too).
CLAIM_KINDS = ("PersistentVolumeClaim", "PersistentVolume", "StorageClass")


def nominated_pods(snapshot: Snapshot, nodes: Mapping[str, Node]) -> Dict[str, List[Pod]]:
    """Unbound pods with `status.nominatedNodeName` naming a node: the scheduler's nominator
    (`pkg/scheduler/backend/queue/nominator.go`) holds room for them there. A bound pod's
    nominatedNodeName is no nomination: up to v1.34 it is a leftover of the cycle that bound the
    pod (real v1.33 captures show it on Running pods); from v1.35 the API server clears it on
    bind (ClearingNominatedNodeNameAfterBinding, #135103) and the scheduler when an attempt
    fails (#135007), so what the snapshot shows is current."""
    out: Dict[str, List[Pod]] = {}
    for p in snapshot.pods:
        if p.nominated_node_name and not p.node_name and p.nominated_node_name in nodes \
                and not p.is_terminal and p.deletion_timestamp is None:
            out.setdefault(p.nominated_node_name, []).append(p)
    return out


def claim_names(pod: Pod) -> Tuple[Tuple[str, Volume], ...]:
    """The PVCs a pod uses: `persistentVolumeClaim` volumes and generic ephemeral volumes (whose
    claim is `<pod>-<volume>`, `ephemeral.VolumeClaimName`)."""
    out = []
    for v in pod.volumes:
        if v.kind == "persistentVolumeClaim" and v.claim_name:
            out.append((v.claim_name, v))
        elif v.kind == "ephemeral":
            out.append(("%s-%s" % (pod.name, v.name), v))
    return tuple(out)


class DomainCounter:
    """How many pods matching `match` sit in each (topology key, value) pair, over the nodes
    `node_ok` admits. Kept up to date by `ClusterState.add`/`remove`."""
    __slots__ = ("keys", "match", "node_ok", "counts", "namespaces")

    def __init__(self, keys: Tuple[str, ...], match: Callable[[Pod], bool],
                 node_ok: Callable[[str], bool], namespaces: Optional[frozenset]) -> None:
        self.keys = keys
        self.match = match
        self.node_ok = node_ok
        self.namespaces = namespaces          # None: pods of every namespace can match
        self.counts: Dict[Tuple[str, str], int] = {}

    def update(self, pod: Pod, node: Node, delta: int) -> None:
        if self.counts_pod(pod, node.name):
            self.add(node, delta)

    def add(self, node: Node, delta: int) -> None:
        """Count `delta` pods (that `counts_pod` admits) in `node`'s domains."""
        labels = node.labels
        counts = self.counts
        for k in self.keys:
            v = labels.get(k)
            if v is not None:
                n = counts.get((k, v), 0) + delta
                if n:
                    counts[(k, v)] = n
                else:
                    counts.pop((k, v), None)

    def get(self, key: str, value: str) -> int:
        return self.counts.get((key, value), 0)

    def counts_pod(self, pod: Pod, node_name: str) -> bool:
        """Does `pod`, on node `node_name`, count here (in the domains of that node's values)?"""
        return (self.namespaces is None or pod.namespace in self.namespaces) and self.node_ok(node_name) \
            and self.match(pod)


def host_ports(pod: Pod, sidecars: bool) -> Tuple[ContainerPort, ...]:
    """The host ports `pod` holds on its node, as NodePorts and the scheduler's NodeInfo count them
    (`GetHostPorts`): its containers' ports and, with `sidecars` (v1.34+, #132040; v1.33.6+,
    #133390), those of its restartable init containers, which run as long as the pod. Other init
    containers have finished before the pod runs: their ports are never counted."""
    ports = tuple(hp for c in pod.containers for hp in c.host_ports)
    if sidecars and pod.init_containers:
        ports = tuple(hp for c in pod.init_containers if c.restart_policy == "Always" for hp in c.host_ports) + ports
    return ports


class ClusterState:
    """The scheduler's view of the cluster as the plan moves pods (one per plan: a local
    accumulator, never shared)."""

    def __init__(self, nodes: Iterable[Node], pods_by_node: Mapping[str, Sequence[Pod]],
                 leaving: Iterable[Pod] = (), snapshot: Optional[Snapshot] = None) -> None:
        self.nodes: Dict[str, Node] = {n.name: n for n in nodes}
        self.names = sorted(self.nodes)
        self.snapshot = snapshot
        # which containers' hostPorts a pod holds follows the release (host_ports)
        self.sidecar_ports = cluster_version(snapshot if snapshot is not None else Snapshot()).has("SidecarHostPorts")
        gone = {(p.namespace, p.name) for p in leaving}
        self.gone = gone
        self.version = 0
        self.alloc: Dict[str, Dict[str, int]] = {}
        self.free: Dict[str, Dict[str, int]] = {}
        self.count: Dict[str, int] = {}
        self.residents: Dict[str, List[Pod]] = {}
        self._req_items: Dict[int, Tuple[Tuple[str, int], ...]] = {}
        self._keep: list = []
        self.by_ns: Dict[str, Dict[Tuple[str, str], str]] = {}      # namespace -> pod key -> node
        self.pod_of: Dict[Tuple[str, str], Pod] = {}
        self.with_anti: Dict[Tuple[str, str], Pod] = {}              # residents with required anti-affinity
        self._pvc_users: Optional[Counter] = None                    # (namespace, claim) -> pods using it
        self.fresh: Dict[Tuple[str, str], Any] = {}                   # claims of the replacement being placed
        for name in self.names:
            alloc = self.alloc[name] = dict(self.nodes[name].allocatable)
            free = dict(alloc)
            res: List[Pod] = []
            for p in pods_by_node.get(name, ()):
                if p.phase in ("Succeeded", "Failed") or (gone and (p.namespace, p.name) in gone):
                    continue
                res.append(p)
                for r, q in self.items(p):
                    free[r] = free.get(r, 0) - q
                self._index(p, name, 1)
            self.free[name] = free
            self.count[name] = len(res)
            self.residents[name] = res
        self.counters: Dict[Any, DomainCounter] = {}
        # the same counters by the namespace whose pods they count (None: every namespace), so a
        # move updates only those that can match the pod
        self._counters_ns: Dict[Optional[str], List[DomainCounter]] = {}
        self.anti_groups: Optional[Dict[Tuple[str, Any], DomainCounter]] = None
        self._ports: Dict[str, Set[Tuple[int, str, str]]] = {}
        self._volumes: Dict[str, Any] = {}
        self._vas: Optional[Dict[str, Dict[str, Set[str]]]] = None
        self.cache: Dict[Any, Any] = {}                              # plugins' per-plan memo
        # nodes the plan has cordoned (or that are not there yet): the node lifecycle controller
        # gives a cordoned node the node.kubernetes.io/unschedulable:NoSchedule taint, which
        # PodTopologySpread's nodeTaintsPolicy: Honor reads (the Placer keeps this up to date)
        self.cordoned: FrozenSet[str] = frozenset()
        # nodes not in the cluster at the plan's moment (the Placer's `vanish`): no domain, and
        # the pods still bound to them count in no domain counter (`set_absent`)
        self.absent: FrozenSet[str] = frozenset()
        self._nz: Dict[str, Tuple[int, int]] = {}                    # node -> non-zero (cpu, memory) requested
        self._nz_pod: Dict[int, Tuple[int, int]] = {}
        self.term_groups: Optional[Dict[Any, DomainCounter]] = None
        self._min_prio: Dict[str, Optional[int]] = {}
        self._lower: Dict[str, Dict[int, Tuple[List[Pod], Dict[str, int]]]] = {}
        self.nominated = nominated_pods(snapshot, self.nodes) if snapshot is not None else {}

    # -- nominated pods (the scheduler's nominator) ----------------------------------------------

    def nominated_room(self, name: str, pod: Pod) -> Optional[Tuple[Dict[str, int], int]]:
        """(requests, count) the node keeps for pods nominated to it that are at least as
        important as `pod` (`addGENominatedPods`: priority >= the pod's), None when none."""
        noms = self.nominated.get(name)
        if not noms:
            return None
        held: Dict[str, int] = {}
        n = 0
        for p in noms:
            if p.priority >= pod.priority and p.uid != pod.uid:
                n += 1
                for r, q in self.items(p):
                    held[r] = held.get(r, 0) + q
        return (held, n) if n else None

    # -- non-zero requests (the score's view) -------------------------------------------------

    def pod_nonzero(self, pod: Pod) -> Tuple[int, int]:
        """(milli-cpu, memory) with the scheduler's defaults for containers that request none,
        cached per (shared) container tuple, with the pod-level resources and overhead it was
        computed with."""
        k = id(pod.containers)
        hit = self._nz_pod.get(k)
        if hit is None or hit[2] is not pod.containers or hit[3] is not pod.init_containers \
                or hit[4] is not pod.pod_level or hit[5] is not pod.overhead:
            v = non_zero_requests(pod)
            hit = self._nz_pod[k] = (v[0], v[1], pod.containers, pod.init_containers, pod.pod_level, pod.overhead)
        return hit[0], hit[1]

    def node_nonzero(self, name: str) -> Tuple[int, int]:
        v = self._nz.get(name)
        if v is None:
            cpu = mem = 0
            for p in self.residents[name]:
                c, m = self.pod_nonzero(p)
                cpu += c
                mem += m
            v = self._nz[name] = (cpu, mem)
        return v

    @property
    def pvc_users(self) -> Counter:
        """(namespace, claim) -> how many pods of the cluster use it (built on first use)."""
        if self._pvc_users is None:
            users: Counter = Counter()
            for pod in self.pod_of.values():
                for claim, _ in claim_names(pod):
                    users[(pod.namespace, claim)] += 1
            self._pvc_users = users
        return self._pvc_users

    # -- storage and namespaces (empty without a snapshot) ---------------------------------------

    @property
    def pvcs(self) -> Mapping:
        base = self.snapshot.pvcs if self.snapshot is not None else {}
        return ChainMap(self.fresh, base) if self.fresh else base

    def fresh_claims(self, pod: Pod) -> Dict[Tuple[str, str], Any]:
        """The claims a replacement of `pod` gets for its generic ephemeral volumes: the ephemeral
        volume controller creates `<new pod>-<volume>` from the volume's claimTemplate once the new
        pod exists (the old pod's claim is garbage-collected with it), so the replacement is
        scheduled with a new, unbound claim, not with the old pod's bound one. Built from the old
        claim, which came from the same template (and got the default StorageClass at admission):
        unbound, no selected node. Only claims the pod owns (`ephemeral.VolumeClaimName`'s check)."""
        out: Dict[Tuple[str, str], Any] = {}
        base = self.snapshot.pvcs if self.snapshot is not None else {}
        for claim, vol in claim_names(pod):
            if vol.kind != "ephemeral":
                continue
            pvc = base.get((pod.namespace, claim))
            if pvc is None or not any(r.controller and r.uid == pod.uid for r in pvc.owner_refs):
                continue
            if pvc.volume_name or pvc.selected_node or pvc.bind_completed or pvc.phase != "Pending":
                out[(pod.namespace, claim)] = pvc.set(volume_name="", bind_completed=False, selected_node="",
                                                      phase="Pending", deletion_timestamp=None)
        return out

    @property
    def pvs(self) -> Mapping:
        return self.snapshot.pvs if self.snapshot is not None else {}

    @property
    def storage_classes(self) -> Mapping:
        return self.snapshot.storage_classes if self.snapshot is not None else {}

    @property
    def csi_nodes(self) -> Mapping:
        return self.snapshot.csi_nodes if self.snapshot is not None else {}

    @property
    def namespaces(self) -> Mapping:
        return self.snapshot.namespaces if self.snapshot is not None else {}

    def namespace_labels(self, ns: str) -> Mapping[str, str]:
        n = self.namespaces.get(ns)
        return n.labels if n is not None else {}

    # -- requests ----------------------------------------------------------------------------

    def items(self, pod: Pod) -> Tuple[Tuple[str, int], ...]:
        """The pod's non-zero requests as a tuple, cached per (shared) requests map."""
        reqs = pod.requests
        items = self._req_items.get(id(reqs))
        if items is None:
            items = self._req_items[id(reqs)] = tuple(sorted((r, q) for r, q in reqs.items() if q > 0))
            self._keep.append(reqs)   # keep the map alive so its id stays unique
        return items

    # -- moving pods -------------------------------------------------------------------------

    def _index(self, pod: Pod, name: str, delta: int) -> None:
        key = (pod.namespace, pod.name)
        if delta > 0:
            self.by_ns.setdefault(pod.namespace, {})[key] = name
            self.pod_of[key] = pod
            if pod.anti_affinity_required:
                self.with_anti[key] = pod
        elif self.pod_of.get(key) is pod or key not in self.pod_of:
            # a replacement shares its evicted pod's key (namespace, name): the old record leaving
            # (a terminating pod gone) must not take the replacement, indexed since, with it
            self.by_ns.get(pod.namespace, {}).pop(key, None)
            self.pod_of.pop(key, None)
            self.with_anti.pop(key, None)
        if self._pvc_users is not None:
            for claim, _ in claim_names(pod):
                self._pvc_users[(pod.namespace, claim)] += delta

    def add(self, pod: Pod, name: str) -> None:
        """`pod` lands on node `name`: reserve its requests, slot, ports, volumes, domains."""
        self._move(pod, name, 1)
        self.residents[name].append(pod)

    def remove(self, pod: Pod, name: str) -> None:
        """`pod` leaves node `name` (preempted, or a dry run)."""
        self._move(pod, name, -1)
        res = self.residents[name]
        for i, p in enumerate(res):
            if p is pod or (p.namespace == pod.namespace and p.name == pod.name):
                del res[i]
                break

    def min_priority(self, name: str) -> Optional[int]:
        """The lowest priority among the node's residents (None: no residents), cached until a
        pod lands on or leaves the node: preemption asks it of every node for every pod that
        fits nowhere."""
        v = self._min_prio.get(name, False)
        if v is False:
            res = self.residents[name]
            v = self._min_prio[name] = min(p.priority for p in res) if res else None
        return v

    def lower_priority(self, name: str, priority: int) -> Tuple[List[Pod], Dict[str, int]]:
        """The node's residents with a priority below `priority` (preemption's potential
        victims, in resident order) and what they request together, cached until a pod lands on
        or leaves the node: preemption asks it of every node for every pod that fits nowhere.
        The list is shared: callers must not change it."""
        per = self._lower.get(name)
        if per is None:
            per = self._lower[name] = {}
        hit = per.get(priority)
        if hit is None:
            pods = [p for p in self.residents[name] if p.priority < priority]
            freed: Dict[str, int] = {}
            for p in pods:
                for r, q in self.items(p):
                    freed[r] = freed.get(r, 0) + q
            hit = per[priority] = (pods, freed)
        return hit

    def _move(self, pod: Pod, name: str, delta: int) -> None:
        self.version += 1
        self._min_prio.pop(name, None)
        self._lower.pop(name, None)
        free = self.free[name]
        for r, q in self.items(pod):
            free[r] = free.get(r, 0) - delta * q
        self.count[name] += delta
        self._index(pod, name, delta)
        self._ports.pop(name, None)
        if pod.volumes and claim_names(pod):     # a pod without claims attaches no volume
            self._volumes.pop(name, None)
        nz = self._nz.get(name)
        if nz is not None:
            c, m = self.pod_nonzero(pod)
            self._nz[name] = (nz[0] + delta * c, nz[1] + delta * m)
        if name not in self.absent:
            self._count(pod, self.nodes[name], delta)

    def _count(self, pod: Pod, node: Node, delta: int) -> None:
        """`pod` on `node` enters (delta 1) or leaves (-1) every domain counter it counts in."""
        by_ns = self._counters_ns
        if by_ns:
            for c in by_ns.get(pod.namespace, ()):
                c.update(pod, node, delta)
            for c in by_ns.get(None, ()):
                c.update(pod, node, delta)
        if self.anti_groups is not None and pod.anti_affinity_required:
            for term in pod.anti_affinity_required:
                self._anti_group(pod.namespace, term).update(pod, node, delta)
        if self.term_groups is not None:
            for gkey in _term_group_keys(pod):
                self._term_group(gkey).update(pod, node, delta)

    def set_absent(self, names: FrozenSet[str]) -> None:
        """The nodes not in the cluster now. kube-scheduler's snapshot lists only existing nodes
        (a deleted node is a ghost \"skipped from snapshots\", `backend/cache/cache.go` RemoveNode;
        one not created yet was never added), and PodTopologySpread and InterPodAffinity count
        over the listed nodes only (`podtopologyspread/filtering.go` calPreFilterState,
        `interpodaffinity/filtering.go`): the pods still bound to a removed node (until pod GC
        deletes them) count in no domain. Only the pods of the nodes that change are moved."""
        names = frozenset(names)
        if names == self.absent:
            return
        gone, back = names - self.absent, self.absent - names
        for name in sorted(gone):
            for p in self.residents[name]:
                self._count(p, self.nodes[name], -1)
        self.absent = names
        for name in sorted(back):
            for p in self.residents[name]:
                self._count(p, self.nodes[name], 1)
        self.version += 1

    # -- per-node facts ----------------------------------------------------------------------

    def used_ports(self, name: str) -> Set[Tuple[int, str, str]]:
        used = self._ports.get(name)
        if used is None:
            used = set()
            for p in self.residents[name]:
                for hp in host_ports(p, self.sidecar_ports):
                    used.add((hp.host_port, hp.protocol, hp.host_ip))
            self._ports[name] = used
        return used

    def attached_volumes(self, name: str, handle: Callable[[Pod, str], Optional[Tuple[str, str]]]
                         ) -> Tuple[Dict[str, Set[str]], Dict[str, Set[str]]]:
        """(driver -> volume handles used by the node's pods, driver -> handles of the node's
        VolumeAttachments). New volumes are de-duplicated against the first only, as upstream.
        Kept until a pod with claims lands on or leaves the node (`_move`)."""
        vols = self._volumes.get(name)
        if vols is None:
            pods: Dict[str, Set[str]] = {}
            for p in self.residents[name]:
                if not p.volumes:
                    continue
                for claim, _ in claim_names(p):
                    h = handle(p, claim)
                    if h is not None:
                        pods.setdefault(h[0], set()).add(h[1])
            vols = self._volumes[name] = (pods, self._attachments().get(name, {}))
        return vols

    def _attachments(self) -> Dict[str, Dict[str, Set[str]]]:
        """node -> driver -> handles of the snapshot's VolumeAttachments to it (built once: the
        VolumeAttachments do not move during a plan)."""
        if self._vas is None:
            self._vas = {}
            if self.snapshot is not None:
                for va in self.snapshot.volume_attachments:
                    if va.attacher:
                        pv = self.pvs.get(va.pv_name)
                        if pv is not None and pv.csi_handle:
                            self._vas.setdefault(va.node_name, {}).setdefault(va.attacher, set()).add(pv.csi_handle)
        return self._vas

    # -- domain counters ---------------------------------------------------------------------

    def counter(self, key: Any, keys: Tuple[str, ...], match: Callable[[Pod], bool],
                node_ok: Callable[[str], bool], namespaces: Optional[frozenset]) -> DomainCounter:
        """The counter registered under `key`, built on first use from the pods of `namespaces`
        (None: all), and updated on every later move."""
        c = self.counters.get(key)
        if c is None:
            c = DomainCounter(keys, match, node_ok, namespaces)
            nodes = self.nodes
            pod_of = self.pod_of
            # `counts_pod` without its namespace test: only pods of `namespaces` are walked (a
            # counter is built for each new selector a placement asks about: thousands in an upgrade)
            for ns in (namespaces if namespaces is not None else list(self.by_ns)):
                for pkey, name in self.by_ns.get(ns, {}).items():
                    if node_ok(name) and name not in self.absent:
                        pod = pod_of[pkey]
                        if match(pod):
                            c.add(nodes[name], 1)
            self.counters[key] = c
            for ns in (namespaces if namespaces is not None else (None,)):
                self._counters_ns.setdefault(ns, []).append(c)
        return c

    def _anti_group(self, ns: str, term: Any) -> DomainCounter:
        groups = self.anti_groups
        c = groups.get((ns, term))
        if c is None:
            c = groups[(ns, term)] = DomainCounter((term.topology_key,), lambda p: True, lambda n: True, None)
        return c

    def _term_group(self, gkey: Any) -> DomainCounter:
        c = self.term_groups.get(gkey)
        if c is None:
            c = self.term_groups[gkey] = DomainCounter((gkey[2].topology_key,), lambda p: True, lambda n: True, None)
        return c

    def scoring_term_groups(self) -> Dict[Any, DomainCounter]:
        """(namespace, hard|affinity|anti, term, weight) of existing pods' terms -> where such pods sit."""
        if self.term_groups is None:
            _term_groups_init(self)
        return self.term_groups

    def anti_affinity_groups(self) -> Dict[Tuple[str, Any], DomainCounter]:
        """(namespace, required anti-affinity term) of existing pods -> where such pods sit."""
        if self.anti_groups is None:
            self.anti_groups = {}
            for pkey, pod in self.with_anti.items():
                name = self.by_ns[pod.namespace][pkey]
                if name in self.absent:
                    continue
                node = self.nodes[name]
                for term in pod.anti_affinity_required:
                    self._anti_group(pod.namespace, term).update(pod, node, 1)
        return self.anti_groups


def _term_group_keys(pod: Pod) -> List[Tuple[str, str, Any, int]]:
    """(namespace, kind, term, weight) of the terms an existing pod scores incoming pods with."""
    out = []
    for t in pod.affinity_required:
        out.append((pod.namespace, "hard", t, 1))
    for wt in pod.affinity_preferred:
        out.append((pod.namespace, "affinity", wt.term, wt.weight))
    for wt in pod.anti_affinity_preferred:
        out.append((pod.namespace, "anti", wt.term, wt.weight))
    return out


def _term_groups_init(cs: "ClusterState") -> None:
    cs.term_groups = {}
    for pkey, pod in cs.pod_of.items():
        if pod.affinity_required or pod.affinity_preferred or pod.anti_affinity_preferred:
            name = cs.by_ns[pod.namespace][pkey]
            if name in cs.absent:
                continue
            node = cs.nodes[name]
            for gkey in _term_group_keys(pod):
                cs._term_group(gkey).update(pod, node, 1)


class Plugin:
    """A Filter plugin with a PreFilter: `pre_filter` returns (status, per-pod state);
    `filter` returns None when the node passes.

    `claim_kinds`: the kinds a volume plugin reads for a pod with PersistentVolumeClaims. When
    the input does not hold one of them, the plugin's verdict would rest on objects that may
    well exist ("persistentvolumeclaim not found" for a claim the capture simply left out): the
    placer skips the plugin for that pod and the plan lists the kind in `incomplete`."""
    name = ""
    claim_kinds: Tuple[str, ...] = ()

    def unknown_kinds(self, cs: "ClusterState", pod: Pod) -> Tuple[str, ...]:
        """The kinds this plugin would read for `pod` that the input does not hold."""
        if not self.claim_kinds or cs.snapshot is None:
            return ()
        missing = [k for k in self.claim_kinds if not cs.snapshot.holds(k)]
        claims = claim_names(pod) if missing else ()
        if not claims:
            return ()
        if "StorageClass" in missing and "PersistentVolumeClaim" not in missing:
            # a claim already bound to its volume is judged by the PV: its class is not read
            pvcs = cs.pvcs
            if all(pvcs.get((pod.namespace, c)) is not None and pvcs[(pod.namespace, c)].volume_name
                   for c, _ in claims):
                missing.remove("StorageClass")
        return tuple(missing)

    def pre_filter(self, cs: ClusterState, pod: Pod) -> Tuple[Status, Any]:
        return SKIPPED, None

    def filter(self, cs: ClusterState, pod: Pod, data: Any, node: Node) -> Optional[Status]:
        return None

    def rejects_class(self, cs: ClusterState, pod: Pod, data: Any, rep: Node, split: FrozenSet[str]) -> bool:
        """True when Filter fails on every node whose labels are `rep`'s apart from the keys in
        `split` (keys with a value per node, such as the hostname), whatever pods the node
        runs: the placer then skips that whole node class with one check instead of trying its
        nodes one by one. False means "not known": the nodes are tried."""
        return False

    def class_status(self, cs: ClusterState, pod: Pod, data: Any, rep: Node, split: FrozenSet[str]) -> Optional[Status]:
        """Filter's status on every node whose labels are `rep`'s apart from the keys in `split`,
        whatever pods the node runs, when it is provably the same status (same code, same
        reasons) for all of them: None when they all pass. `PER_NODE` when it may differ from
        node to node (the default). The FitError diagnosis then counts a whole class with one
        Filter call instead of one per node."""
        return PER_NODE

    def reserve(self, cs: ClusterState, pod: Pod, node_name: str) -> None:
        """`pod` landed on `node_name`: take what the plugin tracks beyond ClusterState."""

    def post_filter(self, cs: ClusterState, pod: Pod) -> Optional[str]:
        """The plugin's PostFilter message when no node fits (None: it has no PostFilter)."""
        return None

    def deallocate(self, cs: ClusterState, pod: Pod) -> bool:
        """After a failed attempt, free what the plugin's PostFilter frees; True if anything was
        (the scheduler then retries the pod)."""
        return False
