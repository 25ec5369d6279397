#!/usr/bin/env python3
"""Deterministic generator of large, realistic cluster snapshots for benchmarks.

    python tests/perf/generate.py --nodes 5000 --pods 150000 --out FILE [--stats]

writes ONE ``v1 List`` shaped like the output of

    kubectl get nodes,pods,pdb,priorityclasses,ds,rs,sts,deploy,jobs -A -o json

(items in that kind order, each kind sorted by namespace/name as the API lists them, keys sorted
as kubectl prints them; compact with one item per line by default, ``--format kubectl`` for
kubectl's exact 4-space indentation, which triples the size),
plus an ``evictplan/v1alpha1`` ``SnapshotInfo`` item (fixed time 2026-11-21T12:00:00Z, listing every
kind written in ``kinds``: the generated cluster is complete, so plans over it exit 0, 3 or 4, never
5), StatefulSet claims with their volumes and StorageClass, one node Lease and one CSINode per node,
and, with ``--stats``, one ``NodeKubeletConfig`` and one ``NodeStatsSummary`` per reachable node.

The cluster is an EKS-like one: 3 zones in one region, node pools (general, compute, memory,
tainted infra and gpu pools, 3 control-plane nodes with static mirror pods), a few NotReady,
cordoned and pressured nodes, DaemonSets on every node, Deployments -> ReplicaSets -> pods,
StatefulSets with PVCs, CronJob Jobs, bare pods, PDBs (with controller-computed status) and
PriorityClasses. Pods are placed by a simple scheduler that honours nodeSelector, required node
affinity, taints/tolerations and requests against allocatable, so plans over it are meaningful.

Same arguments (incl. ``--seed``) => byte-identical output. Objects are built and written one at
a time; only a compact plan of the cluster is kept in memory.

The module is importable: ``layout_nodes(nodes, seed)`` gives the node names, pools and zones
(independent of ``--pods``) so the benchmark can pick command arguments without reading the file.
"""

from __future__ import annotations

import argparse
import calendar
import json
import os
import random
import sys
import time

try:  # msgspec is ~5x faster and can sort keys + indent like kubectl; json is the fallback
    import msgspec
except ImportError:  # pragma: no cover
    msgspec = None

REGION = "eu-west-1"
ZONES = [REGION + "a", REGION + "b", REGION + "c"]
TAKEN_AT = "2026-11-21T12:00:00Z"
NOW = calendar.timegm(time.strptime(TAKEN_AT, "%Y-%m-%dT%H:%M:%SZ"))
DAY = 86400
ACCOUNT = "123456789012"
ECR = f"{ACCOUNT}.dkr.ecr.{REGION}.amazonaws.com"
KUBELET_VERSION = "v1.33.5-eks-113cf36"
POOL_LABEL = "workload-class"  # our own node pool label; eks.amazonaws.com/nodegroup is set too
RDE = "evictplan.io/node-affinity"  # pod annotation: RequiredDuringExecution

GI = 1024 ** 3
MI = 1024 ** 2
KI = 1024

_ALNUM = "bcdfghjklmnpqrstvwxz2456789"  # k8s.io/apimachinery/pkg/util/rand alphabet


def ts(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(t)))


class Rand(random.Random):
    """random.Random with the id helpers we need (all derived from the seeded stream)."""

    def uid(self) -> str:
        h = "%032x" % self.getrandbits(128)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"

    def sfx(self, n: int = 5) -> str:
        r = self.getrandbits(5 * n)
        out = []
        for _ in range(n):
            out.append(_ALNUM[(r & 31) % 27])
            r >>= 5
        return "".join(out)

    def hexs(self, n: int) -> str:
        return "%0*x" % (n, self.getrandbits(4 * n))


# --------------------------------------------------------------------------------------------
# Nodes
# --------------------------------------------------------------------------------------------

# pool -> (fraction of workers, instance type, cpu, memory GiB, extra resources, taint)
POOLS = {
    "general": (0.60, "m6i.2xlarge", 8, 32, {}, None),
    "compute": (0.20, "c6i.4xlarge", 16, 32, {}, None),
    "memory": (0.12, "r6i.4xlarge", 16, 128, {}, None),
    "infra": (0.06, "m6i.xlarge", 4, 16, {}, ("dedicated", "infra", "NoSchedule")),
    "gpu": (0.02, "g5.2xlarge", 8, 32, {"nvidia.com/gpu": "1"}, ("nvidia.com/gpu", "present", "NoSchedule")),
}
CP_POOL = "control-plane"
CP_TYPE = "m6i.2xlarge"


class NodePlan:
    __slots__ = ("idx", "name", "ip", "zone", "pool", "itype", "cpu", "mem_gi", "extra", "taints",
                 "state", "created", "instance", "uid", "cidr", "alloc_cpu_m", "alloc_mem", "free_cpu",
                 "free_mem", "free_pods", "free_gpu", "pods", "hb", "boot")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)

    @property
    def schedulable(self) -> bool:
        return self.state in ("ready", "mempressure", "diskpressure")


def layout_nodes(n: int, seed: int = 1) -> list[NodePlan]:
    """Node names, zones, pools and states. Depends only on (n, seed)."""
    rng = Rand(f"{seed}/nodes")
    n_cp = min(3, n // 10)
    workers = n - n_cp
    pools: list[str] = []
    names = list(POOLS)
    for p in names[1:]:
        pools += [p] * max(1 if workers >= 20 else 0, round(POOLS[p][0] * workers))
    pools = pools[:workers]
    pools = ["general"] * (workers - len(pools)) + pools
    rng.shuffle(pools)
    pools = [CP_POOL] * n_cp + pools
    # node states among workers (a few of each, scaled)
    worker_idx = list(range(n_cp, n))
    special = rng.sample(worker_idx, min(len(worker_idx), max(1, n // 500) + max(1, n // 200)
                                         + max(1, n // 1600) + max(1, n // 2500))) if n >= 10 else []
    k1, k2, k3 = max(1, n // 500), max(1, n // 200), max(1, n // 1600)
    state = {}
    for j, i in enumerate(special):
        state[i] = ("notready" if j < k1 else "cordoned" if j < k1 + k2 else
                    "mempressure" if j < k1 + k2 + k3 else "diskpressure")
    nodes = []
    for i in range(n):
        z = i % 3
        k = i // 3
        a, b, c = 16 + z * 64 + k // 250, k % 250 + 1, (k * 37 + z * 11) % 250 + 3
        pool = pools[i]
        if pool == CP_POOL:
            itype, cpu, mem, extra, taint = CP_TYPE, 8, 32, {}, ("node-role.kubernetes.io/control-plane", None, "NoSchedule")
        else:
            _, itype, cpu, mem, extra, taint = POOLS[pool]
        taints = [taint] if taint else []
        st = state.get(i, "ready")
        created = NOW - rng.randint(2 * 3600, 90 * DAY)
        cap_mem_ki = int(mem * 1024 * 1024 * 0.97) // 4 * 4
        alloc_mem = (cap_mem_ki - (cpu * 28 + 255 + 100) * 1024) * KI  # kubeReserved + evictionHard
        alloc_cpu = cpu * 1000 - (60 + 10 * cpu if cpu <= 4 else 90 + 5 * cpu)
        nodes.append(NodePlan(
            idx=i, name=f"ip-10-{a}-{b}-{c}.{REGION}.compute.internal", ip=f"10.{a}.{b}.{c}",
            zone=ZONES[z], pool=pool, itype=itype, cpu=cpu, mem_gi=mem, extra=extra, taints=taints,
            state=st, created=created, instance="i-0" + rng.hexs(16), uid=rng.uid(),
            cidr=(128 + i // 256, i % 256), alloc_cpu_m=alloc_cpu, alloc_mem=alloc_mem,
            free_cpu=alloc_cpu, free_mem=alloc_mem, free_pods=110,
            free_gpu=int(extra.get("nvidia.com/gpu", 0)), pods=[],
            hb=NOW - rng.randint(0, 280) if st != "notready" else NOW - rng.randint(150, 3000),
            boot=rng.uid()))
    return nodes


# --------------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------------

TEAMS = ("payments checkout catalog search identity billing ledger orders inventory shipping "
         "pricing reviews ads recs media notify chat fraud risk data ml analytics growth mobile "
         "web edge gateway auth profile loyalty partner support crm erp hr finance legal geo maps "
         "routing dispatch fleet sensor telemetry logistics warehouse returns tax invoice quote "
         "booking travel hotel flight payments2 wallet cards lending savings trading market "
         "portfolio kyc aml compliance audit secrets vault platform infra sre devx ci build "
         "release artifact registry docs wiki cms blog forum social feed stories video audio "
         "image upload transcode cdn dns mail sms push voice").split()
ENVS = ("prod", "staging", "dev")
NOUNS = ("api web worker consumer producer scheduler cron gateway proxy cache indexer sync "
         "exporter importer processor handler router frontend backend admin graphql grpc "
         "stream batch aggregator notifier renderer resolver validator").split()
SYSTEM_NS = ["kube-system", "monitoring", "logging", "ingress-nginx", "cert-manager", "argocd"]

PROBE_PATHS = ("/healthz", "/health", "/ready", "/livez", "/readyz", "/actuator/health", "/ping")
ENV_NAMES = ("LOG_LEVEL", "PORT", "JAVA_OPTS", "GOMAXPROCS", "DB_HOST", "DB_PORT", "DB_NAME",
             "REDIS_URL", "KAFKA_BROKERS", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SERVICE_NAME",
             "FEATURE_FLAGS", "AWS_REGION", "AWS_DEFAULT_REGION", "SENTRY_DSN", "ENVIRONMENT",
             "HTTP_TIMEOUT", "MAX_CONNECTIONS", "CACHE_TTL", "TZ", "NODE_ENV", "SPRING_PROFILES_ACTIVE")

# (quantity as the API prints it, value, weight); main containers average ~280m / ~700Mi
CPU_Q = [("50m", 50, 3), ("100m", 100, 5), ("200m", 200, 3), ("250m", 250, 3), ("500m", 500, 2),
         ("750m", 750, 0.5), ("1", 1000, 1), ("2", 2000, 0.3)]
MEM_Q = [("64Mi", 64 * MI, 1), ("128Mi", 128 * MI, 3), ("256Mi", 256 * MI, 4), ("512Mi", 512 * MI, 4),
         ("768Mi", 768 * MI, 1), ("1Gi", GI, 3), ("1536Mi", 1536 * MI, 1), ("2Gi", 2 * GI, 1.2),
         ("500M", 500 * 10 ** 6, 0.5), ("1G", 10 ** 9, 0.5), ("4Gi", 4 * GI, 0.4), ("268435456", 268435456, 0.3)]
SIDE_CPU_Q = [("10m", 10, 2), ("25m", 25, 2), ("50m", 50, 2), ("100m", 100, 1)]
SIDE_MEM_Q = [("32Mi", 32 * MI, 2), ("64Mi", 64 * MI, 2), ("128Mi", 128 * MI, 1)]

DEFAULT_TOLS = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
]
DS_TOLS = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists"},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/disk-pressure", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/memory-pressure", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/pid-pressure", "operator": "Exists"},
    {"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable", "operator": "Exists"},
]
DS_TOLS_HOSTNET = DS_TOLS + [{"effect": "NoSchedule", "key": "node.kubernetes.io/network-unavailable", "operator": "Exists"}]

PRIORITY_CLASSES = [
    # name, value, globalDefault, preemptionPolicy, description, system
    ("system-node-critical", 2000001000, False, "PreemptLowerPriority", "Used for system critical pods that must not be moved from their current node.", True),
    ("system-cluster-critical", 2000000000, False, "PreemptLowerPriority", "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.", True),
    ("platform-critical", 1000000, False, "PreemptLowerPriority", "Platform components (ingress, monitoring, logging).", False),
    ("high-priority", 100000, False, "PreemptLowerPriority", "Customer-facing production services.", False),
    ("batch-low", -100, False, "Never", "Batch and best-effort work; never preempts.", False),
]
PC_VALUE = {p[0]: p[1] for p in PRIORITY_CLASSES}

SA_TOKEN_PROJECTED = {
    "defaultMode": 420,
    "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
        {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}, "path": "namespace"}]}},
    ],
}
SA_MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"


def RAW(obj):
    """Pre-encode a sub-document shared by many objects (keeps memory low and encoding fast)."""
    if msgspec is None:
        return obj
    return msgspec.Raw(_SORTED.encode(obj))


_SORTED = msgspec.json.Encoder(order="sorted") if msgspec is not None else None
_ST_FIELDS: dict = {}


def fields_v1(obj: dict, top: bool = True) -> dict:
    """managedFields fieldsV1 for an object, approximately as the apiserver builds it."""
    out = {}
    for k, v in obj.items():
        key = "f:" + k
        if isinstance(v, dict):
            sub = fields_v1(v, False)
            out[key] = ({".": {}, **sub} if sub and not top else sub)
        elif isinstance(v, list) and v and isinstance(v[0], dict):
            lk = _LIST_KEYS.get(k)
            if lk is None:
                out[key] = {}
                continue
            d = {} if k == "containers" else {".": {}}
            for item in v:
                kk = "k:{" + ",".join(f'"{f}":' + (f'"{item[f]}"' if isinstance(item[f], str) else str(item[f]))
                                      for f in lk if f in item) + "}"
                d[kk] = {".": {}, **fields_v1(item, False)}
            out[key] = d
        else:
            out[key] = {}
    return out


_LIST_KEYS = {"containers": ("name",), "initContainers": ("name",), "volumes": ("name",),
              "env": ("name",), "volumeMounts": ("mountPath",), "ports": ("containerPort", "protocol"),
              "ownerReferences": ("uid",), "conditions": ("type",), "podIPs": ("ip",),
              "hostIPs": ("ip",), "volumeClaimTemplates": ()}


# --------------------------------------------------------------------------------------------
# Workloads
# --------------------------------------------------------------------------------------------

class Workload:
    """One pod-owning controller (or a bare pod group) and the plan of its pods."""
    __slots__ = ("kind", "ns", "name", "uid", "created", "app", "labels", "sel", "pod_labels",
                 "pod_ann", "containers", "volumes", "pvcs", "node_selector", "affinity", "tols",
                 "pc", "priority", "restart", "tgps", "sa", "hostnet", "secctx", "req_cpu", "req_mem",
                 "req_gpu", "qos", "pool", "zone", "replicas", "pods", "rs_uid", "rs_name",
                 "rs_hash", "rs_created", "old_rs", "owner", "mf_ctrl", "tcache", "images",
                 "deploy_ann", "rev", "cron", "tsc", "job_done", "extra_pod_ann", "dns")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw.get(k))


class PodPlan:
    __slots__ = ("name", "uid", "node", "state", "created", "tok", "restarts", "ip", "wl", "ord")

    def __init__(self, name, uid, node, state, created, tok, wl, ord_):
        self.name, self.uid, self.node, self.state, self.created = name, uid, node, state, created
        self.tok, self.wl, self.ord, self.restarts, self.ip = tok, wl, ord_, 0, None


class Generator:
    def __init__(self, n_nodes: int, n_pods: int, seed: int = 1, stats: bool = False, managed_fields: bool = True):
        self.n_nodes, self.n_pods, self.seed, self.stats = n_nodes, n_pods, seed, stats
        self.managed_fields = managed_fields
        self.rng = Rand(f"{seed}/cluster")
        self.nodes = layout_nodes(n_nodes, seed)
        self.workloads: list[Workload] = []
        self.image_entries: dict[str, dict] = {}
        self.counts: dict[str, int] = {}
        self.pod_bytes = 0

    # ---- helpers ------------------------------------------------------------------------------
    def image(self, ref: str, size: int | None = None) -> tuple[str, str]:
        """(image, imageID) for a reference; records the node-status image entry."""
        e = self.image_entries.get(ref)
        if e is None:
            repo = ref.rsplit(":", 1)[0]
            digest = "sha256:" + self.rng.hexs(64)
            e = {"names": [f"{repo}@{digest}", ref], "sizeBytes": size or self.rng.randint(15, 900) * 1000 * 1000 + self.rng.randint(0, 999999)}
            self.image_entries[ref] = e
        return ref, e["names"][0]

    def _pick_pods_node(self, w: Workload, cands: list[NodePlan]):
        rng = self.rng
        for attempt in range(10):
            nd = cands[rng.randrange(len(cands))]
            if (nd.free_pods > 0 and nd.free_cpu >= w.req_cpu and nd.free_mem >= w.req_mem
                    and nd.free_gpu >= w.req_gpu and (nd.schedulable or attempt > 3)):
                return nd
        for nd in cands:  # exhaustive fallback
            if nd.free_pods > 0 and nd.free_cpu >= w.req_cpu and nd.free_mem >= w.req_mem and nd.free_gpu >= w.req_gpu:
                return nd
        return None

    def place(self, w: Workload, pp: PodPlan, cands: list[NodePlan]):
        nd = self._pick_pods_node(w, cands) if cands else None
        if nd is None:
            pp.state = "unschedulable"
            return
        self.bind(w, pp, nd)

    def bind(self, w, pp, nd):
        pp.node = nd
        nd.free_pods -= 1
        nd.free_cpu -= w.req_cpu
        nd.free_mem -= w.req_mem
        nd.free_gpu -= w.req_gpu
        hostn = 110 - nd.free_pods + 1
        pp.ip = nd.ip if w.hostnet else f"10.{nd.cidr[0]}.{nd.cidr[1]}.{hostn}"
        nd.pods.append(pp)

    # ---- templates --------------------------------------------------------------------------
    def container(self, name: str, image: str, profile: str, env_n: int, probes: bool, port: int | None,
                  mounts: list[dict], eph: bool = False, gpu: bool = False, side: bool = False) -> tuple[dict, int, int]:
        rng = self.rng
        c: dict = {"name": name, "image": image, "imagePullPolicy": rng.choice(("IfNotPresent", "IfNotPresent", "Always")),
                   "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}
        req_cpu = req_mem = 0
        if profile != "besteffort":
            cq, mq = (CPU_Q, MEM_Q) if not side else (SIDE_CPU_Q, SIDE_MEM_Q)
            cpu_s, cpu_v, _ = rng.choices(cq, [q[2] for q in cq])[0]
            mem_s, mem_v, _ = rng.choices(mq, [q[2] for q in mq])[0]
            if profile == "guaranteed":
                res = {"limits": {"cpu": cpu_s, "memory": mem_s}, "requests": {"cpu": cpu_s, "memory": mem_s}}
            else:
                res = {"requests": {"cpu": cpu_s, "memory": mem_s}}
                r = rng.random()
                if r < 0.7:
                    lim_s = rng.choice([m[0] for m in mq if m[1] >= mem_v])
                    res["limits"] = {"memory": lim_s}
                    if r < 0.25:
                        res["limits"]["cpu"] = rng.choice([q[0] for q in cq if q[1] >= cpu_v])
            if eph:
                res["requests"]["ephemeral-storage"] = rng.choice(("100Mi", "500Mi", "1Gi", "2Gi"))
                res.setdefault("limits", {})["ephemeral-storage"] = rng.choice(("2Gi", "4Gi", "10Gi"))
            if gpu:
                res.setdefault("limits", {})["nvidia.com/gpu"] = "1"
                res["requests"]["nvidia.com/gpu"] = "1"
            c["resources"] = res
            req_cpu, req_mem = cpu_v, mem_v
        else:
            c["resources"] = {}
        if port:
            c["ports"] = [{"containerPort": port, "name": "http", "protocol": "TCP"}]
            if rng.random() < 0.2:
                c["ports"].append({"containerPort": 9090, "name": "metrics", "protocol": "TCP"})
        if env_n:
            env = []
            for en in rng.sample(ENV_NAMES, min(env_n, len(ENV_NAMES))):
                env.append({"name": en, "value": rng.choice(("info", "8080", "true", "false", "eu-west-1", "30s", "100",
                                                            f"{name}.svc.cluster.local", "-Xms512m -Xmx1g", "UTC"))})
            if rng.random() < 0.3:
                env.append({"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}})
                env.append({"name": "POD_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}})
            if rng.random() < 0.3:
                env.append({"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"key": "password", "name": f"{name}-db"}}})
            c["env"] = env
        if probes and port and rng.random() < 0.4:
            p = rng.choice(PROBE_PATHS)
            c["livenessProbe"] = {"failureThreshold": 3, "httpGet": {"path": p, "port": port, "scheme": "HTTP"},
                                  "initialDelaySeconds": rng.choice((10, 15, 30)), "periodSeconds": 10,
                                  "successThreshold": 1, "timeoutSeconds": 1}
            c["readinessProbe"] = {"failureThreshold": 3, "httpGet": {"path": p, "port": port, "scheme": "HTTP"},
                                   "periodSeconds": 5, "successThreshold": 1, "timeoutSeconds": 1}
        if rng.random() < 0.35:
            c["securityContext"] = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]},
                                    "readOnlyRootFilesystem": True, "runAsNonRoot": True, "runAsUser": 10001}
        if mounts:
            c["volumeMounts"] = mounts
        return c, req_cpu, req_mem

    def app_workload(self, kind: str, ns: str, app: str, replicas: int, system: bool = False) -> Workload:
        rng = self.rng
        team = ns.rsplit("-", 1)[0]
        version = f"{rng.randint(1, 9)}.{rng.randint(0, 40)}.{rng.randint(0, 20)}"
        w = Workload(kind=kind, ns=ns, name=app, uid=rng.uid(), app=app, replicas=replicas, pods=[])
        w.created = NOW - rng.randint(3 * DAY, 400 * DAY) if kind != "Job" else NOW - rng.randint(60, 3 * DAY)
        sel = {"app.kubernetes.io/instance": app, "app.kubernetes.io/name": app}
        labels = {**sel, "app.kubernetes.io/part-of": team}
        if rng.random() < 0.5:
            labels.update({"app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/version": version,
                           "helm.sh/chart": f"{app}-{version}"})
        if rng.random() < 0.3:
            labels["team"] = team
            labels["cost-center"] = f"cc-{rng.randint(1000, 9999)}"
        w.labels, w.sel = labels, sel
        w.pod_labels = dict(labels)
        ann = {}
        if rng.random() < 0.3:
            ann["prometheus.io/scrape"] = "true"
            ann["prometheus.io/port"] = "9090"
            ann["prometheus.io/path"] = "/metrics"
        if rng.random() < 0.4:
            ann["checksum/config"] = rng.hexs(64)
        if rng.random() < 0.15:
            ann["kubectl.kubernetes.io/restartedAt"] = ts(NOW - rng.randint(DAY, 30 * DAY)).replace("Z", "+00:00")
        if rng.random() < 0.08:
            ann["cluster-autoscaler.kubernetes.io/safe-to-evict"] = rng.choice(("false", "true"))
        if rng.random() < 0.2:
            ann["kubectl.kubernetes.io/default-container"] = app
        w.pod_ann = ann
        # placement constraints
        r = rng.random()
        w.pool = None
        w.node_selector = None
        w.affinity = None
        w.tols = DEFAULT_TOLS
        gpu = False
        if system:
            w.pool = "infra"
            w.node_selector = {POOL_LABEL: "infra"}
            w.tols = [{"effect": "NoSchedule", "key": "dedicated", "operator": "Equal", "value": "infra"}] + DEFAULT_TOLS
        elif r < 0.002 and kind in ("Deployment", "Job") and replicas <= 2:
            w.pool = "gpu"
            gpu = True
            w.node_selector = {POOL_LABEL: "gpu"}
            w.tols = [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}] + DEFAULT_TOLS
        elif r < 0.12:
            w.pool = rng.choice(("general", "compute", "memory"))
            w.node_selector = {POOL_LABEL: w.pool, "kubernetes.io/os": "linux"}
        elif r < 0.20:
            pools = rng.choice((["general", "compute"], ["compute", "memory"], ["memory"]))
            w.pool = tuple(pools)
            w.affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": POOL_LABEL, "operator": "In", "values": pools}]}]}}}
        elif r < 0.24:
            w.zone = rng.choice(ZONES)
            w.affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": [w.zone]},
                                      {"key": POOL_LABEL, "operator": "NotIn", "values": ["gpu", "infra"]}]}]}}}
        elif r < 0.30:
            w.affinity = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"preference": {"matchExpressions": [{"key": POOL_LABEL, "operator": "In", "values": ["compute"]}]}, "weight": 50}]}}
        elif r < 0.33:
            w.node_selector = {"kubernetes.io/os": "linux"}
        if replicas > 1 and rng.random() < 0.2:
            w.affinity = dict(w.affinity or {})
            w.affinity["podAntiAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [{
                "podAffinityTerm": {"labelSelector": {"matchLabels": sel}, "topologyKey": "kubernetes.io/hostname"}, "weight": 100}]}
        if replicas > 2 and rng.random() < 0.15:
            w.tsc = [{"labelSelector": {"matchLabels": sel}, "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                      "whenUnsatisfiable": "ScheduleAnyway"}]
        if (w.node_selector and POOL_LABEL in w.node_selector or w.pool) and rng.random() < 0.25:
            ann[RDE] = "RequiredDuringExecution"
        if not system and rng.random() < 0.05:
            s = rng.choice((30, 60, 120, 600))
            w.tols = [dict(t, tolerationSeconds=s) if t.get("tolerationSeconds") == 300 else t for t in w.tols]
        # ---- placement features (own random stream, so the rest of the cluster stays as it was):
        # hard zone spread, required anti-affinity on the zone, as kube-scheduler filters them.
        prng = Rand(f"{self.seed}/{ns}/{app}/placement")
        if not system and replicas > 2 and not w.tsc and prng.random() < 0.08:
            w.tsc = [{"labelSelector": {"matchLabels": sel}, "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                      "whenUnsatisfiable": "DoNotSchedule"}]
        elif not system and 1 < replicas <= 3 and prng.random() < 0.04:
            w.affinity = dict(w.affinity or {})
            w.affinity["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": sel}, "topologyKey": "topology.kubernetes.io/zone"}]}
        # priority
        if system:
            w.pc = "platform-critical"
        elif kind == "Job" or rng.random() < 0.08:
            w.pc = "batch-low" if rng.random() < 0.7 else None
        elif ns.endswith("-prod") and rng.random() < 0.3:
            w.pc = "high-priority"
        else:
            w.pc = None
        w.priority = PC_VALUE.get(w.pc, 0)
        # volumes and containers
        vols, mounts = [], []
        if rng.random() < 0.5:
            vols.append({"configMap": {"defaultMode": 420, "name": f"{app}-config"}, "name": "config"})
            mounts.append({"mountPath": "/etc/app", "name": "config", "readOnly": True})
        if rng.random() < 0.3:
            vols.append({"name": "tmp", "emptyDir": {}})
            mounts.append({"mountPath": "/tmp", "name": "tmp"})
        if rng.random() < 0.06:
            vols.append({"name": "cache", "emptyDir": {"sizeLimit": rng.choice(("1Gi", "5Gi"))}})
            mounts.append({"mountPath": "/var/cache/app", "name": "cache"})
        if rng.random() < 0.03:
            vols.append({"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "256Mi"}})
            mounts.append({"mountPath": "/dev/shm", "name": "shm"})
        if rng.random() < 0.25:
            vols.append({"name": "tls", "secret": {"defaultMode": 420, "secretName": f"{app}-tls"}})
            mounts.append({"mountPath": "/etc/tls", "name": "tls", "readOnly": True})
        w.pvcs = []
        if kind == "StatefulSet":
            w.pvcs = ["data"] + (["wal"] if rng.random() < 0.2 else [])
            for p in w.pvcs:
                mounts.append({"mountPath": f"/var/lib/{p}", "name": p})
        elif kind == "Deployment" and rng.random() < 0.02:
            vols.append({"name": "shared", "persistentVolumeClaim": {"claimName": f"{app}-shared"}})
            mounts.append({"mountPath": "/shared", "name": "shared"})
        w.volumes = vols
        prof = rng.choices(("guaranteed", "burstable", "besteffort"), (0.2, 0.74, 0.06))[0]
        img, _ = self.image(f"{ECR}/{team}/{app}:{version}")
        port = rng.choice((8080, 8080, 8000, 3000, 9000, 5000)) if kind != "Job" else None
        main, rc, rm = self.container(app, img, prof, rng.choice((0, 0, 1, 2, 3, 4)), kind != "Job", port, mounts,
                                      eph=rng.random() < 0.1, gpu=gpu)
        cs = [main]
        w.req_cpu, w.req_mem = rc, rm
        n_side = rng.choices((0, 1, 2), (0.8, 0.17, 0.03))[0] if kind != "Job" else 0
        side_names = rng.sample(("log-shipper", "oauth-proxy", "cloudsql-proxy", "envoy", "config-reloader"), n_side)
        for sn in side_names:
            simg, _ = self.image({"log-shipper": "cr.fluentbit.io/fluent/fluent-bit:3.2.4",
                                  "oauth-proxy": "quay.io/oauth2-proxy/oauth2-proxy:v7.8.1",
                                  "cloudsql-proxy": "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.15.0",
                                  "envoy": "docker.io/envoyproxy/envoy:v1.33.0",
                                  "config-reloader": "quay.io/prometheus-operator/prometheus-config-reloader:v0.80.0"}[sn])
            sprof = "besteffort" if prof == "besteffort" else ("guaranteed" if prof == "guaranteed" else "burstable")
            c, rc, rm = self.container(sn, simg, sprof, rng.randint(0, 2), False, None, [], side=True)
            cs.append(c)
            w.req_cpu += rc
            w.req_mem += rm
        w.containers = cs
        w.req_gpu = 1 if gpu else 0
        w.qos = qos_of(cs)
        w.restart = "Always" if kind != "Job" else rng.choice(("Never", "OnFailure"))
        w.tgps = rng.choice((30, 30, 30, 60, 10, 120)) if kind != "Job" else 30
        w.sa = app if rng.random() < 0.6 else "default"
        w.hostnet = False
        w.dns = "ClusterFirst"
        w.secctx = {"fsGroup": 10001, "runAsNonRoot": True} if rng.random() < 0.4 else {}
        w.images = [c["image"] for c in cs]
        if rng.random() < 0.4:  # kubectl apply'ed (otherwise Helm / Argo server-side)
            w.deploy_ann = {"kubectl.kubernetes.io/last-applied-configuration": None}
        return w

    # ---- planning ---------------------------------------------------------------------------
    def plan(self):
        rng = self.rng
        nodes = self.nodes
        workers = [n for n in nodes if n.pool != CP_POOL]
        cps = [n for n in nodes if n.pool == CP_POOL]
        by_pool: dict[str, list[NodePlan]] = {p: [n for n in nodes if n.pool == p] for p in POOLS}
        untainted = [n for n in workers if n.pool in ("general", "compute", "memory")] or workers
        by_zone = {z: [n for n in untainted if n.zone == z] for z in ZONES}
        budget = self.n_pods

        # -- static pods on control-plane nodes (mirror pods) --
        self.mirrors = []
        for nd in cps:
            for comp, cpu in (("etcd", 100), ("kube-apiserver", 250), ("kube-controller-manager", 200), ("kube-scheduler", 100)):
                if budget <= 0:
                    break
                self.mirrors.append((comp, nd, rng.hexs(32), cpu))
                nd.free_pods -= 1
                budget -= 1

        # -- DaemonSets --
        ds_specs = [
            ("kube-system", "kube-proxy", "602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/kube-proxy:v1.33.5-minimal-eksbuild.2", True, "system-node-critical", (100, 0), None),
            ("kube-system", "aws-node", "602401143452.dkr.ecr.eu-west-1.amazonaws.com/amazon-k8s-cni:v1.19.5-eksbuild.3", True, "system-node-critical", (25, 0), None),
            ("kube-system", "ebs-csi-node", "602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/aws-ebs-csi-driver:v1.44.0", False, "system-node-critical", (10, 40 * MI), None),
            ("monitoring", "node-exporter", "quay.io/prometheus/node-exporter:v1.9.1", True, "system-node-critical", (50, 64 * MI), None),
            ("logging", "fluent-bit", "cr.fluentbit.io/fluent/fluent-bit:3.2.4", False, "platform-critical", (100, 128 * MI), None),
            ("kube-system", "nvidia-device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.17.1", False, "system-node-critical", (0, 0), "gpu"),
        ]
        n_all = len(nodes)
        ds_pods_total = 0
        chosen = []
        for spec in ds_specs:
            cnt = len(by_pool["gpu"]) if spec[6] == "gpu" else n_all
            if ds_pods_total + cnt > budget * 0.5:
                continue
            chosen.append(spec)
            ds_pods_total += cnt
        self.daemonsets = []
        for ns, name, image, hostnet, pc, (cpu, mem), pool in chosen:
            w = Workload(kind="DaemonSet", ns=ns, name=name, uid=rng.uid(), app=name, pods=[])
            w.created = NOW - rng.randint(100 * DAY, 400 * DAY)
            w.sel = {"k8s-app": name} if ns == "kube-system" else {"app.kubernetes.io/name": name}
            w.labels = dict(w.sel, **({"app.kubernetes.io/instance": name} if ns != "kube-system" else {}))
            w.rs_hash = rng.sfx(10)
            w.rev = rng.randint(1, 12)
            w.pod_labels = dict(w.labels, **{"controller-revision-hash": w.rs_hash, "pod-template-generation": str(w.rev)})
            w.pod_ann = {"kubectl.kubernetes.io/default-container": name} if name == "fluent-bit" else {}
            img, _ = self.image(image)
            mounts = []
            vols = []
            if name in ("fluent-bit", "node-exporter", "ebs-csi-node", "aws-node"):
                for vn, path in (("varlog", "/var/log"), ("rootfs", "/host/root"), ("kubelet-dir", "/var/lib/kubelet"))[: 1 + (name != "fluent-bit")]:
                    vols.append({"hostPath": {"path": path, "type": ""}, "name": vn})
                    mounts.append({"mountPath": path, "name": vn, "readOnly": name != "ebs-csi-node"})
            prof = "burstable" if cpu else "besteffort"
            c, _, _ = self.container(name, img, "besteffort", rng.randint(0, 2), False, 9100 if name == "node-exporter" else None, mounts)
            if prof == "burstable":
                c["resources"] = {"requests": {"cpu": f"{cpu}m", **({"memory": f"{mem // MI}Mi"} if mem else {})},
                                  **({"limits": {"memory": f"{2 * mem // MI}Mi"}} if mem else {})}
            c["securityContext"] = {"privileged": True} if name in ("kube-proxy", "aws-node", "ebs-csi-node") else {"readOnlyRootFilesystem": True}
            w.containers = [c]
            w.volumes = vols
            w.req_cpu, w.req_mem, w.req_gpu = cpu, mem, 0
            w.qos = qos_of(w.containers)
            w.pc, w.priority = pc, PC_VALUE[pc]
            w.hostnet = hostnet
            w.dns = "ClusterFirstWithHostNet" if hostnet else "ClusterFirst"
            own = ([{"operator": "Exists"}] if name in ("kube-proxy", "aws-node", "ebs-csi-node", "node-exporter") else
                   [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}] if pool == "gpu" else
                   [{"effect": "NoSchedule", "operator": "Exists"}])
            w.tols = own + (DS_TOLS_HOSTNET if hostnet else DS_TOLS)  # the DS controller adds its own
            w.affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "eks.amazonaws.com/compute-type", "operator": "NotIn", "values": ["fargate", "hybrid", "auto"]},
                                      {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}]}]}}}
            w.node_selector = {POOL_LABEL: "gpu"} if pool == "gpu" else None
            w.restart, w.tgps, w.sa, w.secctx, w.pvcs = "Always", 30, name, {}, []
            w.images = [c["image"]]
            w.replicas = 0
            w.deploy_ann = {"deprecated.daemonset.template.generation": str(w.rev)}
            targets = by_pool["gpu"] if pool == "gpu" else nodes
            seen_names = set()
            for nd in targets:
                st = "running" if nd.state != "notready" else rng.choice(("running", "running", "notready-node"))
                pn = f"{name}-{rng.sfx()}"
                while pn in seen_names:
                    pn = f"{name}-{rng.sfx()}"
                seen_names.add(pn)
                pp = PodPlan(pn, rng.uid(), None, st, max(nd.created + 20, w.created) + rng.randint(0, 600),
                             rng.sfx(), w, 0)
                self.bind(w, pp, nd)
                w.pods.append(pp)
                w.replicas += 1
            self.daemonsets.append(w)
            self.workloads.append(w)
        budget -= ds_pods_total

        # -- namespaces --
        n_team_ns = max(3, min(300, self.n_pods // 450))
        team_ns = []
        for i in range(n_team_ns):
            t = TEAMS[i % len(TEAMS)] + ("" if i < len(TEAMS) else str(i // len(TEAMS) + 1))
            team_ns.append(f"{t}-{ENVS[(i // len(TEAMS) + i) % 3]}")
        self.namespaces = SYSTEM_NS + team_ns
        used_names: dict[str, set] = {}

        def new_name(ns):
            s = used_names.setdefault(ns, set())
            team = ns.rsplit("-", 1)[0]
            for _ in range(1000):
                n = rng.choice((f"{team}-{rng.choice(NOUNS)}", f"{rng.choice(NOUNS)}-{rng.choice(NOUNS)}",
                                f"{team}-{rng.choice(NOUNS)}-{rng.choice(NOUNS)}"))
                n = n if n not in s else f"{n}-{rng.randint(2, 999)}"
                if n not in s:
                    s.add(n)
                    return n
            raise RuntimeError("names exhausted")

        def cands_for(w: Workload) -> list[NodePlan]:
            if w.pool:
                pools = w.pool if isinstance(w.pool, tuple) else (w.pool,)
                return [n for p in pools for n in by_pool.get(p, ())] or untainted
            if w.zone:
                return by_zone[w.zone] or untainted
            return untainted

        cand_cache: dict = {}

        def cands(w):
            key = (w.pool, w.zone)
            if key not in cand_cache:
                cand_cache[key] = cands_for(w)
            return cand_cache[key]

        def add_pods(w: Workload, n: int, name_fn, state_fn):
            cl = cands(w)
            for i in range(n):
                pp = PodPlan(name_fn(i), rng.uid(), None, state_fn(i), 0, rng.sfx(), w, i)
                pp.created = max(w.rs_created or w.created, NOW - 200 * DAY) + rng.randint(0, 3600)
                if rng.random() < 0.15:
                    pp.created = NOW - rng.randint(120, 7 * DAY)
                pp.created = min(pp.created, NOW - 60)
                if pp.state != "unschedulable":
                    self.place(w, pp, cl)
                w.pods.append(pp)

        def run_state(i):
            r = rng.random()
            return ("running" if r < 0.975 else "crashloop" if r < 0.988 else "unschedulable" if r < 0.992
                    else "terminating" if r < 0.994 else "running")

        # -- system deployments (infra pool) --
        sys_apps = [("kube-system", "coredns", 2), ("kube-system", "metrics-server", 2), ("kube-system", "cluster-autoscaler", 1),
                    ("kube-system", "aws-load-balancer-controller", 2), ("kube-system", "ebs-csi-controller", 2),
                    ("ingress-nginx", "ingress-nginx-controller", 6), ("cert-manager", "cert-manager", 1),
                    ("cert-manager", "cert-manager-webhook", 1), ("cert-manager", "cert-manager-cainjector", 1),
                    ("monitoring", "kube-state-metrics", 2), ("monitoring", "grafana", 2), ("argocd", "argocd-server", 2),
                    ("argocd", "argocd-repo-server", 2), ("argocd", "argocd-applicationset-controller", 1)]
        sts_sys = [("monitoring", "prometheus-k8s", 2), ("monitoring", "alertmanager-main", 3), ("logging", "loki", 3),
                   ("argocd", "argocd-application-controller", 1)]
        scale = max(1, self.n_pods // 20000)
        for ns, app, rep in sys_apps:
            rep = rep * (scale if app in ("coredns", "ingress-nginx-controller", "argocd-repo-server") else 1)
            if budget < rep or budget < 100:
                break
            w = self.app_workload("Deployment", ns, app, rep, system=True)
            if app in ("coredns", "metrics-server"):
                w.pc, w.priority = "system-cluster-critical", PC_VALUE["system-cluster-critical"]
            used_names.setdefault(ns, set()).add(app)
            self._deployment(w, rep, add_pods, run_state)
            budget -= len(w.pods)
        for ns, app, rep in sts_sys:
            if budget < rep or budget < 100:
                break
            w = self.app_workload("StatefulSet", ns, app, rep, system=True)
            used_names.setdefault(ns, set()).add(app)
            self._sts(w, rep, add_pods, run_state)
            budget -= len(w.pods)

        # -- team workloads until the pod budget is spent --
        n_bare = max(1, self.n_pods // 400)
        while budget > 0:
            ns = team_ns[rng.randrange(len(team_ns))]
            r = rng.random()
            if n_bare > 0 and r < 0.01:
                n_bare -= 1
                w = self.app_workload("Pod", ns, new_name(ns), 1)
                w.deploy_ann = {"kubectl.kubernetes.io/last-applied-configuration": None}
                add_pods(w, 1, lambda i: w.name, lambda i: "running")
                self.workloads.append(w)
            elif r < 0.08:  # CronJob -> Job -> pod (each job one pod)
                cron = new_name(ns)
                n_jobs = min(budget, rng.choice((1, 2, 3, 3, 4)))
                start = NOW - rng.randint(300, 3000)
                period = rng.choice((900, 1800, 3600, 6 * 3600, DAY))
                cron_uid = rng.uid()
                for j in range(n_jobs):
                    sched_min = (start - (n_jobs - 1 - j) * period) // 60
                    w = self.app_workload("Job", ns, f"{cron}-{sched_min}", 1)
                    w.cron = (cron, cron_uid)
                    w.created = sched_min * 60 + rng.randint(0, 2)
                    w.rs_created = w.created
                    last = j == n_jobs - 1
                    r2 = rng.random()
                    w.job_done = "running" if (last and r2 < 0.5) else ("failed" if r2 > 0.97 else "complete")
                    stt = {"running": "running", "failed": "failed", "complete": "succeeded"}[w.job_done]
                    w.pod_labels = {**w.pod_labels, "batch.kubernetes.io/controller-uid": w.uid, "batch.kubernetes.io/job-name": w.name,
                                    "controller-uid": w.uid, "job-name": w.name}
                    add_pods(w, 1, lambda i, w=w: f"{w.name}-{rng.sfx()}", lambda i, s=stt: s)
                    for pp in w.pods:
                        pp.created = w.created + 1
                    self.workloads.append(w)
                    budget -= 1
                    if budget <= 0:
                        break
                continue
            elif r < 0.18:
                rep = min(budget, rng.choice((1, 1, 2, 3, 3, 3, 5)))
                w = self.app_workload("StatefulSet", ns, new_name(ns), rep)
                self._sts(w, rep, add_pods, run_state)
            else:
                rep = min(budget, rng.choices((1, 2, 3, 4, 6, 10, 20, 40), (15, 25, 25, 12, 10, 8, 4, 1))[0])
                w = self.app_workload("Deployment", ns, new_name(ns), rep)
                self._deployment(w, rep, add_pods, run_state)
                extra = 0
                if rng.random() < 0.01 and budget - len(w.pods) > 3:  # evicted leftovers of the RS
                    extra = rng.randint(1, 3)
                    add_pods(w, extra, lambda i: f"{w.rs_name}-{rng.sfx()}", lambda i: "evicted")
            budget -= len(w.pods)
        self._plan_pdbs()

    def _deployment(self, w, rep, add_pods, run_state):
        rng = self.rng
        w.rs_hash = rng.sfx(rng.choice((9, 10)))
        w.rs_name = f"{w.name}-{w.rs_hash}"
        w.rs_uid = rng.uid()
        w.rev = rng.randint(1, 40)
        w.rs_created = NOW - rng.randint(600, 60 * DAY) if rng.random() < 0.9 else NOW - rng.randint(120, 600)
        w.old_rs = [(rng.sfx(10), rng.uid(), w.rev - k - 1, w.rs_created - rng.randint(DAY, 30 * DAY))
                    for k in range(min(w.rev - 1, rng.choice((0, 1, 1, 2, 3))))]
        w.pod_labels = {**w.pod_labels, "pod-template-hash": w.rs_hash}
        add_pods(w, rep, lambda i: f"{w.rs_name}-{rng.sfx()}", run_state)
        self.workloads.append(w)

    def _sts(self, w, rep, add_pods, run_state):
        rng = self.rng
        w.rs_hash = rng.sfx(10)
        w.rs_name = f"{w.name}-{w.rs_hash}"
        w.rev = 1
        w.rs_created = NOW - rng.randint(600, 60 * DAY)
        w.pod_labels = {**w.pod_labels, "controller-revision-hash": w.rs_name}
        add_pods(w, rep, lambda i: f"{w.name}-{i}", run_state)
        self.workloads.append(w)

    def _plan_pdbs(self):
        rng = self.rng
        cands = [w for w in self.workloads if w.kind in ("Deployment", "StatefulSet") and w.replicas >= 2]
        n = min(len(cands), max(3, self.n_pods // 400))
        picked = rng.sample(cands, n) if cands else []
        self.pdbs = []
        for w in picked:
            r = rng.random()
            if r < 0.40:
                spec = {"maxUnavailable": 1}
            elif r < 0.65:
                spec = {"minAvailable": max(1, w.replicas - 1)}
            elif r < 0.80:
                spec = {"minAvailable": "50%"}
            elif r < 0.90:
                spec = {"maxUnavailable": "25%"}
            elif r < 0.95:
                spec = {"maxUnavailable": 0}
            else:
                spec = {"minAvailable": w.replicas}
            name = w.name if rng.random() < 0.7 else f"{w.name}-pdb"
            self.pdbs.append((w, name, spec, rng.uid(), "AlwaysAllow" if rng.random() < 0.1 else None))
        # two overlapping PDBs (same pods covered twice: the eviction API refuses those pods)
        for w, name, spec, _, _ in list(self.pdbs[:2]):
            self.pdbs.append((w, name + "-extra", {"minAvailable": 1}, rng.uid(), None))

    # ---- object builders ----------------------------------------------------------------------
    def node_obj(self, nd: NodePlan) -> dict:
        rng = self.rng
        name = nd.name
        labels = {
            "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/instance-type": nd.itype, "beta.kubernetes.io/os": "linux",
            "failure-domain.beta.kubernetes.io/region": REGION, "failure-domain.beta.kubernetes.io/zone": nd.zone,
            "k8s.io/cloud-provider-aws": "a94d2bd4c4b9b0e1c6d1a3f1b3e0c8f2",
            "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
            "node.kubernetes.io/instance-type": nd.itype, "topology.ebs.csi.aws.com/zone": nd.zone,
            "topology.k8s.aws/zone-id": "euw1-az" + str(ZONES.index(nd.zone) + 1),
            "topology.kubernetes.io/region": REGION, "topology.kubernetes.io/zone": nd.zone,
        }
        if nd.pool == CP_POOL:
            labels["node-role.kubernetes.io/control-plane"] = ""
            labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
        else:
            labels[POOL_LABEL] = nd.pool
            labels["eks.amazonaws.com/nodegroup"] = f"{nd.pool}-{nd.zone[-1]}"
            labels["eks.amazonaws.com/nodegroup-image"] = "ami-0c1d2e3f4a5b6c7d8"
            labels["eks.amazonaws.com/capacityType"] = "ON_DEMAND" if (nd.idx * 7) % 10 else "SPOT"
            if nd.pool == "infra":
                labels["node-role.kubernetes.io/infra"] = ""
        ann = {"alpha.kubernetes.io/provided-node-ip": nd.ip,
               "csi.volume.kubernetes.io/nodeid": json.dumps({"ebs.csi.aws.com": nd.instance}, separators=(",", ":")),
               "node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"}
        cap_mem = f"{int(nd.mem_gi * 1024 * 1024 * 0.97) // 4 * 4}Ki"
        alloc_mem = f"{nd.alloc_mem // KI}Ki"
        capacity = {"cpu": str(nd.cpu), "ephemeral-storage": "104845292Ki", "hugepages-1Gi": "0", "hugepages-2Mi": "0",
                    "memory": cap_mem, "pods": "110", **nd.extra}
        allocatable = {"cpu": f"{nd.alloc_cpu_m}m", "ephemeral-storage": "95551679124", "hugepages-1Gi": "0",
                       "hugepages-2Mi": "0", "memory": alloc_mem, "pods": "110", **nd.extra}
        spec = {"podCIDR": f"10.{nd.cidr[0]}.{nd.cidr[1]}.0/24", "podCIDRs": [f"10.{nd.cidr[0]}.{nd.cidr[1]}.0/24"],
                "providerID": f"aws:///{nd.zone}/{nd.instance}"}
        taints = []
        for k, v, e in nd.taints:
            t = {"effect": e, "key": k}
            if v is not None:
                t["value"] = v
            taints.append(t)
        hb = ts(nd.hb)
        t0 = ts(nd.created + 30)
        mp = nd.state == "mempressure"
        dp = nd.state == "diskpressure"
        if nd.state == "cordoned":
            spec["unschedulable"] = True
            taints.append({"effect": "NoSchedule", "key": "node.kubernetes.io/unschedulable", "timeAdded": ts(NOW - rng.randint(600, 5 * DAY))})
        if mp:
            taints.append({"effect": "NoSchedule", "key": "node.kubernetes.io/memory-pressure", "timeAdded": ts(NOW - 95)})
        if dp:
            taints.append({"effect": "NoSchedule", "key": "node.kubernetes.io/disk-pressure", "timeAdded": ts(NOW - 400)})
        if nd.state == "notready":
            lost = nd.hb + 40
            taints.append({"effect": "NoSchedule", "key": "node.kubernetes.io/unreachable", "timeAdded": ts(lost)})
            taints.append({"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "timeAdded": ts(lost + 5)})
            unk = {"lastHeartbeatTime": hb, "lastTransitionTime": ts(lost), "message": "Kubelet stopped posting node status.",
                   "reason": "NodeStatusUnknown", "status": "Unknown"}
            conds = [dict(unk, type=t) for t in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")]
        else:
            conds = [
                {"lastHeartbeatTime": hb, "lastTransitionTime": ts(NOW - 95) if mp else t0,
                 "message": "kubelet has insufficient memory available" if mp else "kubelet has sufficient memory available",
                 "reason": "KubeletHasInsufficientMemory" if mp else "KubeletHasSufficientMemory",
                 "status": "True" if mp else "False", "type": "MemoryPressure"},
                {"lastHeartbeatTime": hb, "lastTransitionTime": ts(NOW - 400) if dp else t0,
                 "message": "kubelet has disk pressure" if dp else "kubelet has no disk pressure",
                 "reason": "KubeletHasDiskPressure" if dp else "KubeletHasNoDiskPressure",
                 "status": "True" if dp else "False", "type": "DiskPressure"},
                {"lastHeartbeatTime": hb, "lastTransitionTime": t0, "message": "kubelet has sufficient PID available",
                 "reason": "KubeletHasSufficientPID", "status": "False", "type": "PIDPressure"},
                {"lastHeartbeatTime": hb, "lastTransitionTime": ts(nd.created + 52), "message": "kubelet is posting ready status",
                 "reason": "KubeletReady", "status": "True", "type": "Ready"},
            ]
        if taints:
            spec["taints"] = taints
        # images: what its pods run, biggest first, capped like nodeStatusMaxImages
        seen = {}
        for pp in nd.pods:
            for im in pp.wl.images:
                seen[im] = self.image_entries[im]
        seen.setdefault("pause", self.pause)
        images = sorted(seen.values(), key=lambda e: (-e["sizeBytes"], e["names"][0]))[:20]
        mf = [
            {"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {
                "f:metadata": {"f:annotations": {".": {}, **{f"f:{k}": {} for k in ann}},
                               "f:labels": {".": {}, **{f"f:{k}": {} for k in labels}}},
                "f:spec": {"f:podCIDR": {}, "f:podCIDRs": {".": {}, f'v:"{spec["podCIDR"]}"': {}}, "f:providerID": {},
                           **({"f:taints": {}} if taints else {})}},
             "manager": "kubelet", "operation": "Update", "time": ts(nd.created + 10)},
            {"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": NODE_STATUS_FIELDS, "manager": "kubelet",
             "operation": "Update", "subresource": "status", "time": hb},
        ]
        return {
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"annotations": ann, "creationTimestamp": ts(nd.created), "labels": labels, "managedFields": mf,
                         "name": name, "resourceVersion": str(self.rv()), "uid": nd.uid},
            "spec": spec,
            "status": {
                "addresses": [{"address": nd.ip, "type": "InternalIP"}, {"address": name, "type": "InternalDNS"},
                              {"address": name, "type": "Hostname"}],
                "allocatable": allocatable, "capacity": capacity, "conditions": conds,
                "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                "images": images,
                "nodeInfo": {"architecture": "amd64", "bootID": nd.boot, "containerRuntimeVersion": "containerd://1.7.27",
                             "kernelVersion": "6.1.147-172.266.amzn2023.x86_64", "kubeProxyVersion": "",
                             "kubeletVersion": KUBELET_VERSION, "machineID": nd.instance[2:] + "0" * 16,
                             "operatingSystem": "linux", "osImage": "Amazon Linux 2023.8.20250818",
                             "systemUUID": "ec2" + nd.boot[3:]},
                "runtimeHandlers": [{"features": {"recursiveReadOnlyMounts": False, "userNamespaces": False}, "name": "runc"},
                                    {"features": {"recursiveReadOnlyMounts": False, "userNamespaces": False}, "name": ""}],
            },
        }

    _rv = 100000

    def rv(self) -> int:
        self._rv += self.rng.randint(1, 40)
        return self._rv

    def pod_obj(self, pp: PodPlan) -> dict:
        w = pp.wl
        rng = self.rng
        nd = pp.node
        st = pp.state
        created = pp.created
        tok = f"kube-api-access-{pp.tok}"
        kind = w.kind
        # ---- metadata
        labels = w.pod_labels
        if kind == "StatefulSet":
            labels = {**labels, "apps.kubernetes.io/pod-index": str(pp.ord), "statefulset.kubernetes.io/pod-name": pp.name}
        meta = {"creationTimestamp": ts(created), "labels": labels, "name": pp.name, "namespace": w.ns,
                "resourceVersion": str(self.rv()), "uid": pp.uid}
        if w.pod_ann:
            meta["annotations"] = w.pod_ann
        if kind == "Deployment":
            meta["generateName"] = w.rs_name + "-"
            meta["ownerReferences"] = w.owner or self._owner(w, "apps/v1", "ReplicaSet", w.rs_name, w.rs_uid)
        elif kind == "DaemonSet":
            meta["generateName"] = w.name + "-"
            meta["ownerReferences"] = w.owner or self._owner(w, "apps/v1", "DaemonSet", w.name, w.uid)
        elif kind == "StatefulSet":
            meta["generateName"] = w.name + "-"
            meta["ownerReferences"] = w.owner or self._owner(w, "apps/v1", "StatefulSet", w.name, w.uid)
        elif kind == "Job":
            meta["generateName"] = w.name + "-"
            meta["ownerReferences"] = w.owner or self._owner(w, "batch/v1", "Job", w.name, w.uid)
            if st == "running":
                meta["finalizers"] = ["batch.kubernetes.io/job-tracking"]
        elif kind == "Pod" and w.deploy_ann:
            if w.deploy_ann["kubectl.kubernetes.io/last-applied-configuration"] is None:
                w.deploy_ann["kubectl.kubernetes.io/last-applied-configuration"] = self.last_applied(w, "v1", "Pod")
            meta["annotations"] = {**w.pod_ann, **w.deploy_ann}
        if st == "terminating":
            meta["deletionTimestamp"] = ts(NOW + w.tgps - 12)
            meta["deletionGracePeriodSeconds"] = w.tgps
        # ---- spec
        mount = {"mountPath": SA_MOUNT_PATH, "name": tok, "readOnly": True}
        containers = []
        for c in w.containers:
            c = dict(c)
            c["volumeMounts"] = c.get("volumeMounts", []) + [mount]
            containers.append(c)
        vols = list(w.volumes)
        for p in w.pvcs:
            vols.append({"name": p, "persistentVolumeClaim": {"claimName": f"{p}-{pp.name}"}})
        vols.append({"name": tok, "projected": SA_TOKEN_PROJECTED})
        spec = {"containers": containers, "dnsPolicy": w.dns, "enableServiceLinks": True,
                "preemptionPolicy": "Never" if w.pc == "batch-low" else "PreemptLowerPriority",
                "priority": w.priority, "restartPolicy": w.restart, "schedulerName": "default-scheduler",
                "securityContext": w.secctx, "serviceAccount": w.sa, "serviceAccountName": w.sa,
                "terminationGracePeriodSeconds": w.tgps, "tolerations": w.tols, "volumes": vols}
        if w.pc:
            spec["priorityClassName"] = w.pc
        if nd is not None:
            spec["nodeName"] = nd.name
        if w.node_selector:
            spec["nodeSelector"] = w.node_selector
        if kind == "DaemonSet" and nd is not None:
            terms = w.affinity["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
            spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {**terms[0], "matchFields": [{"key": "metadata.name", "operator": "In", "values": [nd.name]}]}]}}}
        elif w.affinity:
            spec["affinity"] = w.affinity
        if w.tsc:
            spec["topologySpreadConstraints"] = w.tsc
        if w.hostnet:
            spec["hostNetwork"] = True
        if kind == "StatefulSet":
            spec["hostname"] = pp.name
            spec["subdomain"] = w.name + "-headless"
        # ---- status
        status = self.pod_status(pp, w, created)
        # ---- managedFields
        if w.mf_ctrl is None:
            tmpl = {"metadata": {k: meta[k] for k in ("generateName", "labels", "annotations", "ownerReferences") if k in meta},
                    "spec": {k: v for k, v in spec.items() if k not in ("nodeName", "priority", "serviceAccount", "volumes", "preemptionPolicy")}}
            tmpl["spec"]["containers"] = w.containers
            if w.volumes or w.pvcs:
                tmpl["spec"]["volumes"] = vols[:-1]
            if kind == "DaemonSet":
                tmpl["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {}}}
            manager = "kubectl-client-side-apply" if kind == "Pod" else "kube-controller-manager"
            w.mf_ctrl = {"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": RAW(fields_v1(tmpl)), "manager": manager, "operation": "Update"}
        mf = [dict(w.mf_ctrl, time=meta["creationTimestamp"])]
        if nd is not None and st not in ("unschedulable",):
            stf = _ST_FIELDS.get(st)
            if stf is None:
                stf = _ST_FIELDS[st] = {k: v for k, v in fields_v1({"status": {k2: v2 for k2, v2 in status.items() if k2 not in (
                    "podIP", "podIPs", "hostIP", "hostIPs", "startTime")}})["f:status"].items()}
                stf.update({"f:hostIP": {}, "f:hostIPs": {}, "f:startTime": {}} if st != "evicted" else {})
                if "podIP" in status:
                    stf["f:podIP"] = {}
            ipf = {"f:podIPs": {".": {}, f'k:{{"ip":"{pp.ip}"}}': {".": {}, "f:ip": {}}}} if "podIPs" in status else {}
            mf.append({"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {**stf, **ipf}},
                       "manager": "kubelet", "operation": "Update", "subresource": "status", "time": ts(created + 25)})
        else:
            mf.append({"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {"f:conditions": {
                ".": {}, 'k:{"type":"PodScheduled"}': {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:message": {},
                                                       "f:reason": {}, "f:status": {}, "f:type": {}}}}},
                       "manager": "kube-scheduler", "operation": "Update", "subresource": "status", "time": ts(created)})
        meta["managedFields"] = mf
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}

    def pod_status(self, pp, w, created):
        rng = self.rng
        st = pp.state
        nd = pp.node
        qos = w.qos
        if st == "unschedulable":
            n = self.n_nodes
            return {"conditions": [{"lastProbeTime": None, "lastTransitionTime": ts(created), "message":
                    f"0/{n} nodes are available: {max(1, n // 40)} node(s) had untolerated taint {{dedicated: infra}}, "
                    f"{n - max(1, n // 40)} Insufficient {'memory' if w.req_mem > GI else 'cpu'}. preemption: 0/{n} nodes are available: "
                    f"{n} No preemption victims found for incoming pod.", "reason": "Unschedulable", "status": "False",
                    "type": "PodScheduled"}], "phase": "Pending", "qosClass": qos}
        start = created + 1
        started = start + rng.randint(1, 9)
        ready_t = started + rng.randint(3, 40)
        t = ts
        cstat = []
        for c, cid_img in zip(w.containers, w.images):
            cs = {"containerID": "containerd://" + rng.hexs(64), "image": c["image"],
                  "imageID": self.image_entries[c["image"]]["names"][0], "lastState": {}, "name": c["name"],
                  "ready": True, "restartCount": 0, "started": True, "state": {"running": {"startedAt": t(started)}}}
            if c.get("volumeMounts") or True:
                pass
            cstat.append(cs)
        if st in ("running", "terminating", "notready-node"):
            conds = [("PodReadyToStartContainers", "True", start + 2), ("Initialized", "True", start),
                     ("Ready", "True", ready_t), ("ContainersReady", "True", ready_t), ("PodScheduled", "True", created)]
            phase = "Running"
            if rng.random() < 0.04:
                r = rng.randint(1, 6)
                cstat[0]["restartCount"] = r
                cstat[0]["lastState"] = {"terminated": {"containerID": "containerd://" + rng.hexs(64), "exitCode": 137,
                                                        "finishedAt": t(started - 5), "reason": "OOMKilled", "startedAt": t(start)}}
            if st == "notready-node":
                conds[2] = ("Ready", "False", nd.hb + 40)
                for cs in cstat:
                    cs["ready"] = False
            cond = [{"lastProbeTime": None, "lastTransitionTime": t(x), "status": s, "type": ty} for ty, s, x in conds]
            if st == "notready-node":
                cond[2]["reason"] = "NodeNotReady"
                cond[2]["message"] = ""  # kube-controller-manager MarkPodsNotReady
        elif st == "crashloop":
            phase = "Running"
            bad = cstat[0]
            r = rng.randint(5, 400)
            bad.update({"ready": False, "restartCount": r, "started": False,
                        "state": {"waiting": {"message": f"back-off 5m0s restarting failed container={bad['name']} pod={pp.name}_{w.ns}({pp.uid})",
                                              "reason": "CrashLoopBackOff"}},
                        "lastState": {"terminated": {"containerID": "containerd://" + rng.hexs(64), "exitCode": 1,
                                                     "finishedAt": t(NOW - rng.randint(10, 280)), "reason": "Error",
                                                     "startedAt": t(NOW - rng.randint(290, 320))}}})
            msg = f"containers with unready status: [{bad['name']}]"
            cond = [{"lastProbeTime": None, "lastTransitionTime": t(start + 2), "status": "True", "type": "PodReadyToStartContainers"},
                    {"lastProbeTime": None, "lastTransitionTime": t(start), "status": "True", "type": "Initialized"},
                    {"lastProbeTime": None, "lastTransitionTime": t(ready_t), "message": msg, "reason": "ContainersNotReady", "status": "False", "type": "Ready"},
                    {"lastProbeTime": None, "lastTransitionTime": t(ready_t), "message": msg, "reason": "ContainersNotReady", "status": "False", "type": "ContainersReady"},
                    {"lastProbeTime": None, "lastTransitionTime": t(created), "status": "True", "type": "PodScheduled"}]
        elif st in ("succeeded", "failed", "evicted"):
            fin = min(NOW - 30, started + rng.randint(20, 900))
            code, reason = {"succeeded": (0, "Completed"), "failed": (1, "Error"), "evicted": (137, "ContainerStatusUnknown")}[st]
            for cs in cstat:
                cs.update({"ready": False, "started": False, "state": {"terminated": {
                    "containerID": cs["containerID"], "exitCode": code, "finishedAt": t(fin), "reason": reason, "startedAt": t(started)}}})
                if st == "evicted":
                    cs["state"]["terminated"]["message"] = "The container could not be located when the pod was terminated"
                    del cs["state"]["terminated"]["containerID"]
                    del cs["containerID"]
            rs = "PodCompleted" if st == "succeeded" else "PodFailed"
            cond = [{"lastProbeTime": None, "lastTransitionTime": t(fin), "status": "False", "type": "PodReadyToStartContainers"},
                    {"lastProbeTime": None, "lastTransitionTime": t(start), "reason": rs if st == "succeeded" else None, "status": "True", "type": "Initialized"},
                    {"lastProbeTime": None, "lastTransitionTime": t(fin), "reason": rs, "status": "False", "type": "Ready"},
                    {"lastProbeTime": None, "lastTransitionTime": t(fin), "reason": rs, "status": "False", "type": "ContainersReady"},
                    {"lastProbeTime": None, "lastTransitionTime": t(created), "status": "True", "type": "PodScheduled"}]
            if cond[1]["reason"] is None:
                del cond[1]["reason"]
            phase = "Succeeded" if st == "succeeded" else "Failed"
            if st == "evicted":
                cond.insert(0, {"lastProbeTime": None, "lastTransitionTime": t(fin), "message": "The node was low on resource: memory. "
                                "Threshold quantity: 100Mi, available: 90316Ki. ", "reason": "TerminationByKubelet", "status": "True",
                                "type": "DisruptionTarget"})
        else:
            raise ValueError(st)
        s = {"conditions": cond, "containerStatuses": cstat, "hostIP": nd.ip, "hostIPs": [{"ip": nd.ip}], "phase": phase,
             "podIP": pp.ip, "podIPs": [{"ip": pp.ip}], "qosClass": qos, "startTime": t(start)}
        if st == "evicted":
            s["message"] = ("The node was low on resource: memory. Threshold quantity: 100Mi, available: 90316Ki. "
                            f"Container {w.containers[0]['name']} was using 1843264Ki, request is {w.containers[0]['resources'].get('requests', {}).get('memory', '0')}, "
                            "has larger consumption of memory. ")
            s["reason"] = "Evicted"
            del s["podIP"], s["podIPs"]
        return s

    def _owner(self, w, api, kind, name, uid):
        w.owner = [{"apiVersion": api, "blockOwnerDeletion": True, "controller": True, "kind": kind, "name": name, "uid": uid}]
        return w.owner

    def mirror_obj(self, comp, nd, h, cpu) -> dict:
        name = f"{comp}-{nd.name}"
        uid = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
        created = nd.created + 40
        img = f"602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/{comp}:v1.33.5-eksbuild.1" if comp != "etcd" else "registry.k8s.io/etcd:3.5.21-0"
        _, imgid = self.image(img)
        meta = {"annotations": {"kubernetes.io/config.hash": h, "kubernetes.io/config.mirror": h,
                                "kubernetes.io/config.seen": ts(created - 10) [:-1] + ".412097351Z", "kubernetes.io/config.source": "file"},
                "creationTimestamp": ts(created), "labels": {"component": comp, "tier": "control-plane"},
                "name": name, "namespace": "kube-system",
                "ownerReferences": [{"apiVersion": "v1", "controller": True, "kind": "Node", "name": nd.name, "uid": nd.uid}],
                "resourceVersion": str(self.rv()), "uid": uid}
        vols = [{"hostPath": {"path": "/etc/kubernetes/pki", "type": "DirectoryOrCreate"}, "name": "k8s-certs"},
                {"hostPath": {"path": "/etc/ssl/certs", "type": "DirectoryOrCreate"}, "name": "ca-certs"}]
        c = {"command": [comp, "--v=2"], "image": img, "imagePullPolicy": "IfNotPresent", "name": comp,
             "resources": {"requests": {"cpu": f"{cpu}m"}}, "terminationMessagePath": "/dev/termination-log",
             "terminationMessagePolicy": "File",
             "volumeMounts": [{"mountPath": "/etc/kubernetes/pki", "name": "k8s-certs", "readOnly": True},
                              {"mountPath": "/etc/ssl/certs", "name": "ca-certs", "readOnly": True}]}
        spec = {"containers": [c], "dnsPolicy": "ClusterFirst", "enableServiceLinks": True, "hostNetwork": True,
                "nodeName": nd.name, "preemptionPolicy": "PreemptLowerPriority", "priority": 2000001000,
                "priorityClassName": "system-node-critical", "restartPolicy": "Always", "schedulerName": "default-scheduler",
                "securityContext": {"seccompProfile": {"type": "RuntimeDefault"}}, "terminationGracePeriodSeconds": 30,
                "tolerations": [{"effect": "NoExecute", "operator": "Exists"}], "volumes": vols}
        meta["managedFields"] = [{"apiVersion": "v1", "fieldsType": "FieldsV1", "fieldsV1": fields_v1({"metadata": {k: meta[k] for k in ("annotations", "labels", "ownerReferences")}, "spec": spec}),
                                  "manager": "kubelet", "operation": "Update", "time": ts(created)}]
        st = "True" if nd.state != "notready" else "False"
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {
            "conditions": [{"lastProbeTime": None, "lastTransitionTime": ts(created + 2), "status": "True", "type": "PodReadyToStartContainers"},
                           {"lastProbeTime": None, "lastTransitionTime": ts(created), "status": "True", "type": "Initialized"},
                           {"lastProbeTime": None, "lastTransitionTime": ts(created + 9), "status": st, "type": "Ready"},
                           {"lastProbeTime": None, "lastTransitionTime": ts(created + 9), "status": "True", "type": "ContainersReady"},
                           {"lastProbeTime": None, "lastTransitionTime": ts(created), "status": "True", "type": "PodScheduled"}],
            "containerStatuses": [{"containerID": "containerd://" + self.rng.hexs(64), "image": img, "imageID": imgid, "lastState": {},
                                   "name": comp, "ready": True, "restartCount": 0, "started": True,
                                   "state": {"running": {"startedAt": ts(created + 3)}}}],
            "hostIP": nd.ip, "hostIPs": [{"ip": nd.ip}], "phase": "Running", "podIP": nd.ip, "podIPs": [{"ip": nd.ip}],
            "qosClass": "Burstable", "startTime": ts(created)}}

    def template(self, w: Workload) -> dict:
        spec = {"containers": w.containers, "dnsPolicy": w.dns, "restartPolicy": w.restart, "schedulerName": "default-scheduler",
                "securityContext": w.secctx, "serviceAccount": w.sa, "serviceAccountName": w.sa,
                "terminationGracePeriodSeconds": w.tgps}
        tols = [t for t in w.tols if t not in DEFAULT_TOLS and t not in DS_TOLS_HOSTNET]  # admission/controller added
        if tols:
            spec["tolerations"] = tols
        if w.pc:
            spec["priorityClassName"] = w.pc
        if w.node_selector:
            spec["nodeSelector"] = w.node_selector
        if w.affinity:
            spec["affinity"] = w.affinity
        if w.tsc:
            spec["topologySpreadConstraints"] = w.tsc
        if w.hostnet:
            spec["hostNetwork"] = True
        if w.volumes:
            spec["volumes"] = w.volumes
        md = {"creationTimestamp": None, "labels": {k: v for k, v in w.pod_labels.items()
                                                   if k not in ("controller-revision-hash", "pod-template-generation",
                                                                "batch.kubernetes.io/controller-uid", "controller-uid")}}
        if w.pod_ann:
            md["annotations"] = w.pod_ann
        return {"metadata": md, "spec": spec}

    def last_applied(self, w, api, kind) -> str:
        obj = {"apiVersion": api, "kind": kind, "metadata": {"annotations": {}, "labels": w.labels, "name": w.name, "namespace": w.ns}}
        if kind == "Pod":
            t = self.template(w)
            obj["spec"] = {k: v for k, v in t["spec"].items() if k not in ("schedulerName", "dnsPolicy", "serviceAccount")}
        else:
            t = self.template(w)
            t["spec"] = {k: v for k, v in t["spec"].items() if k not in ("schedulerName", "dnsPolicy", "serviceAccount")}
            t["metadata"] = {"annotations": w.pod_ann, "labels": t["metadata"]["labels"]} if w.pod_ann else {"labels": t["metadata"]["labels"]}
            obj["spec"] = {"replicas": w.replicas, "selector": {"matchLabels": w.sel}, "template": t}
        return json.dumps(obj, separators=(",", ":"), sort_keys=True) + "\n"

    def ready_count(self, w):
        return sum(1 for p in w.pods if p.state in ("running",))

    def controller_keys(self):
        """{kind: sorted [(ns, name, workload, rs index)]} for the controller objects, in API list order."""
        keys = {"DaemonSet": [], "ReplicaSet": [], "StatefulSet": [], "Deployment": [], "Job": []}
        for w in self.workloads:
            if w.kind in keys:
                keys[w.kind].append((w.ns, w.name, w, -1))
            if w.kind == "Deployment":
                keys["ReplicaSet"].append((w.ns, w.rs_name, w, 0))
                for i, o in enumerate(w.old_rs or ()):
                    keys["ReplicaSet"].append((w.ns, f"{w.name}-{o[0]}", w, i + 1))
        for v in keys.values():
            v.sort(key=lambda k: (k[0], k[1]))
        return keys

    def controller_obj(self, w: Workload, want: str, rs_index: int = -1) -> dict:
        """One controller object owning (some of) the workload's pods; rs_index picks a ReplicaSet."""
        rng = Rand(f"{self.seed}/{w.uid}/{want}/{rs_index}")
        running = [p for p in w.pods if p.state in ("running", "crashloop", "terminating", "notready-node")]
        ready = self.ready_count(w)
        if w.tcache is None:
            t = self.template(w)
            w.tcache = (t, RAW(fields_v1({"template": t}, False)["f:template"]))
        tmpl, fv_tmpl = w.tcache
        ann = {}
        if want != "ReplicaSet" and w.deploy_ann and "kubectl.kubernetes.io/last-applied-configuration" in w.deploy_ann:
            ann["kubectl.kubernetes.io/last-applied-configuration"] = self.last_applied(
                w, "batch/v1" if w.kind == "Job" else "apps/v1", w.kind)
        base_meta = lambda name, created, labels, extra: {  # noqa: E731
            "creationTimestamp": ts(created), "generation": extra.pop("generation", 1), "labels": labels, "name": name,
            "namespace": w.ns, "resourceVersion": str(self.rv()), **extra}
        out = []
        mf_spec = {"f:metadata": {"f:labels": {".": {}, **{f"f:{k}": {} for k in w.labels}}}, "f:spec": {"f:template": fv_tmpl}}
        if want == "Deployment":
            desired = w.replicas
            gen = w.rev + rng.randint(0, 3)
            meta = base_meta(w.name, w.created, w.labels, {"generation": gen, "uid": w.uid})
            meta["annotations"] = {"deployment.kubernetes.io/revision": str(w.rev), **ann}
            meta["managedFields"] = [
                {"apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": mf_spec, "manager": "helm" if not ann else "kubectl-client-side-apply",
                 "operation": "Update", "time": ts(w.rs_created)},
                {"apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:annotations": {"f:deployment.kubernetes.io/revision": {}}},
                 "f:status": {"f:availableReplicas": {}, "f:conditions": {".": {}, 'k:{"type":"Available"}': {}, 'k:{"type":"Progressing"}': {}},
                              "f:observedGeneration": {}, "f:readyReplicas": {}, "f:replicas": {}, "f:updatedReplicas": {}}},
                 "manager": "kube-controller-manager", "operation": "Update", "subresource": "status", "time": ts(NOW - rng.randint(60, DAY))}]
            avail = ready >= max(1, desired - max(1, desired // 4))
            st = {"conditions": [
                {"lastTransitionTime": ts(w.rs_created + 30), "lastUpdateTime": ts(w.rs_created + 30),
                 "message": "Deployment has minimum availability." if avail else "Deployment does not have minimum availability.",
                 "reason": "MinimumReplicasAvailable" if avail else "MinimumReplicasUnavailable", "status": "True" if avail else "False", "type": "Available"},
                {"lastTransitionTime": ts(w.created), "lastUpdateTime": ts(w.rs_created + 40),
                 "message": f'ReplicaSet "{w.rs_name}" has successfully progressed.', "reason": "NewReplicaSetAvailable",
                 "status": "True", "type": "Progressing"}],
                "observedGeneration": gen, "replicas": len(running), "updatedReplicas": len(running)}
            if ready:
                st["availableReplicas"] = ready
                st["readyReplicas"] = ready
            if len(running) - ready:
                st["unavailableReplicas"] = desired - ready
            dep = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": {
                "progressDeadlineSeconds": 600, "replicas": desired, "revisionHistoryLimit": 10, "selector": {"matchLabels": w.sel},
                "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}, "type": "RollingUpdate"},
                "template": tmpl}, "status": st}
            return dep
        if want == "ReplicaSet":
            desired = w.replicas
            owner = [{"apiVersion": "apps/v1", "blockOwnerDeletion": True, "controller": True, "kind": "Deployment", "name": w.name, "uid": w.uid}]
            rss = [(w.rs_hash, w.rs_uid, w.rev, w.rs_created, desired)] + [(h, u, r, c, 0) for h, u, r, c in (w.old_rs or [])]
            for h, u, rev, created, reps in rss[rs_index:rs_index + 1]:
                t = {"metadata": dict(tmpl["metadata"], labels={**tmpl["metadata"]["labels"], "pod-template-hash": h}), "spec": tmpl["spec"]}
                rmeta = base_meta(f"{w.name}-{h}", created, {**w.sel, "pod-template-hash": h}, {"generation": 1 + (reps == 0), "uid": u})
                rmeta["annotations"] = {"deployment.kubernetes.io/desired-replicas": str(desired),
                                        "deployment.kubernetes.io/max-replicas": str(desired + (desired + 3) // 4),
                                        "deployment.kubernetes.io/revision": str(rev)}
                rmeta["ownerReferences"] = owner
                rmeta["managedFields"] = [
                    {"apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": {
                        "f:metadata": {"f:annotations": {".": {}, "f:deployment.kubernetes.io/desired-replicas": {},
                                                         "f:deployment.kubernetes.io/max-replicas": {}, "f:deployment.kubernetes.io/revision": {}},
                                       "f:labels": {".": {}, **{f"f:{k}": {} for k in rmeta["labels"]}},
                                       "f:ownerReferences": {".": {}, f'k:{{"uid":"{w.uid}"}}': {}}},
                        "f:spec": {"f:replicas": {}, "f:selector": {}, "f:template": mf_spec["f:spec"]["f:template"]}},
                     "manager": "kube-controller-manager", "operation": "Update", "time": ts(created)},
                    {"apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {
                        "f:availableReplicas": {}, "f:fullyLabeledReplicas": {}, "f:observedGeneration": {}, "f:readyReplicas": {}, "f:replicas": {}}},
                     "manager": "kube-controller-manager", "operation": "Update", "subresource": "status", "time": ts(created + 40)}]
                if reps:
                    rst = {"fullyLabeledReplicas": len(running), "observedGeneration": 1, "replicas": len(running)}
                    if ready:
                        rst.update(availableReplicas=ready, readyReplicas=ready)
                else:
                    rst = {"observedGeneration": 2, "replicas": 0}
                return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": rmeta, "spec": {
                    "replicas": reps, "selector": {"matchLabels": {**w.sel, "pod-template-hash": h}}, "template": t}, "status": rst}
        elif want == "StatefulSet":
            meta = base_meta(w.name, w.created, w.labels, {"uid": w.uid})
            if ann:
                meta["annotations"] = ann
            meta["managedFields"] = [
                {"apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": mf_spec, "manager": "helm" if not ann else "kubectl-client-side-apply",
                 "operation": "Update", "time": ts(w.created)},
                {"apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {
                    "f:availableReplicas": {}, "f:collisionCount": {}, "f:currentReplicas": {}, "f:currentRevision": {}, "f:observedGeneration": {},
                    "f:readyReplicas": {}, "f:replicas": {}, "f:updateRevision": {}, "f:updatedReplicas": {}}},
                 "manager": "kube-controller-manager", "operation": "Update", "subresource": "status", "time": ts(NOW - rng.randint(60, DAY))}]
            vcts = [{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"creationTimestamp": None, "name": p},
                     "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": rng.choice(("8Gi", "20Gi", "100Gi"))}},
                              "storageClassName": "gp3", "volumeMode": "Filesystem"}, "status": {"phase": "Pending"}} for p in w.pvcs]
            st = {"availableReplicas": ready, "collisionCount": 0, "currentReplicas": len(running), "currentRevision": w.rs_name,
                  "observedGeneration": 1, "readyReplicas": ready, "replicas": len(running), "updateRevision": w.rs_name,
                  "updatedReplicas": len(running)}
            return ({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta, "spec": {
                "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"},
                "podManagementPolicy": rng.choice(("OrderedReady", "Parallel")), "replicas": w.replicas, "revisionHistoryLimit": 10,
                "selector": {"matchLabels": w.sel}, "serviceName": w.name + "-headless", "template": tmpl,
                "updateStrategy": {"rollingUpdate": {"partition": 0}, "type": "RollingUpdate"},
                **({"volumeClaimTemplates": vcts} if vcts else {})}, "status": st})
        elif want == "DaemonSet":
            meta = base_meta(w.name, w.created, w.labels, {"generation": w.rev, "uid": w.uid})
            meta["annotations"] = dict(w.deploy_ann)
            meta["managedFields"] = [
                {"apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": mf_spec, "manager": "eks", "operation": "Update", "time": ts(w.created)},
                {"apiVersion": "apps/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {
                    "f:currentNumberScheduled": {}, "f:desiredNumberScheduled": {}, "f:numberAvailable": {}, "f:numberReady": {},
                    "f:observedGeneration": {}, "f:updatedNumberScheduled": {}}},
                 "manager": "kube-controller-manager", "operation": "Update", "subresource": "status", "time": ts(NOW - rng.randint(5, 300))}]
            n = len(w.pods)
            st = {"currentNumberScheduled": n, "desiredNumberScheduled": n, "numberAvailable": ready, "numberMisscheduled": 0,
                  "numberReady": ready, "observedGeneration": w.rev, "updatedNumberScheduled": n}
            if n - ready:
                st["numberUnavailable"] = n - ready
            return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta, "spec": {
                "revisionHistoryLimit": 10, "selector": {"matchLabels": w.sel}, "template": tmpl,
                "updateStrategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": "10%"}, "type": "RollingUpdate"}}, "status": st}
        elif want == "Job":
            cron, cron_uid = w.cron
            labels = {"batch.kubernetes.io/controller-uid": w.uid, "batch.kubernetes.io/job-name": w.name, "controller-uid": w.uid, "job-name": w.name}
            meta = base_meta(w.name, w.created, labels, {"uid": w.uid})
            meta["annotations"] = {"batch.kubernetes.io/cronjob-scheduled-timestamp": ts(w.created - w.created % 60).replace("Z", "+00:00")}
            meta["ownerReferences"] = [{"apiVersion": "batch/v1", "blockOwnerDeletion": True, "controller": True, "kind": "CronJob", "name": cron, "uid": cron_uid}]
            t = {"metadata": {"creationTimestamp": None, "labels": {**tmpl["metadata"]["labels"], **labels}}, "spec": tmpl["spec"]}
            pp = w.pods[0]
            meta["managedFields"] = [
                {"apiVersion": "batch/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, "f:batch.kubernetes.io/cronjob-scheduled-timestamp": {}},
                 "f:ownerReferences": {".": {}, f'k:{{"uid":"{cron_uid}"}}': {}}}, "f:spec": {"f:backoffLimit": {}, "f:template": mf_spec["f:spec"]["f:template"]}},
                 "manager": "kube-controller-manager", "operation": "Update", "time": ts(w.created)},
                {"apiVersion": "batch/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {"f:active": {}, "f:ready": {}, "f:startTime": {}, "f:terminating": {}, "f:uncountedTerminatedPods": {}}},
                 "manager": "kube-controller-manager", "operation": "Update", "subresource": "status", "time": ts(w.created + 30)}]
            st = {"ready": 1 if pp.state == "running" else 0, "startTime": ts(w.created), "terminating": 0, "uncountedTerminatedPods": {}}
            if w.job_done == "running":
                st["active"] = 1
            elif w.job_done == "complete":
                fin = ts(min(NOW - 30, w.created + rng.randint(40, 900)))
                st.update(succeeded=1, completionTime=fin, conditions=[
                    {"lastProbeTime": fin, "lastTransitionTime": fin, "message": "Reached expected number of succeeded pods",
                     "reason": "CompletionsReached", "status": "True", "type": "SuccessCriteriaMet"},
                    {"lastProbeTime": fin, "lastTransitionTime": fin, "message": "Reached expected number of succeeded pods",
                     "reason": "CompletionsReached", "status": "True", "type": "Complete"}])
            else:
                fin = ts(min(NOW - 30, w.created + rng.randint(40, 900)))
                st.update(failed=1, conditions=[
                    {"lastProbeTime": fin, "lastTransitionTime": fin, "message": "Job has reached the specified backoff limit",
                     "reason": "BackoffLimitExceeded", "status": "True", "type": "FailureTarget"},
                    {"lastProbeTime": fin, "lastTransitionTime": fin, "message": "Job has reached the specified backoff limit",
                     "reason": "BackoffLimitExceeded", "status": "True", "type": "Failed"}])
            return ({"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": {
                "backoffLimit": 0 if w.restart == "Never" else 3, "completionMode": "NonIndexed", "completions": 1, "manualSelector": False,
                "parallelism": 1, "podReplacementPolicy": "TerminatingOrFailed",
                "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": w.uid}}, "suspend": False, "template": t}, "status": st})
        raise ValueError(want)

    def pdb_obj(self, w, name, spec, uid, uepp) -> dict:
        rng = self.rng
        pods = w.pods
        healthy = sum(1 for p in pods if p.state == "running")
        scale = w.replicas
        if "minAvailable" in spec:
            v = spec["minAvailable"]
            if isinstance(v, int):
                expected, desired = len(pods), v
            else:
                expected = scale
                desired = -(-int(v[:-1]) * scale // 100)
        else:
            v = spec["maxUnavailable"]
            expected = scale
            mu = v if isinstance(v, int) else -(-int(v[:-1]) * scale // 100)
            desired = max(0, expected - mu)
        allowed = max(0, healthy - desired)
        created = w.created + rng.randint(0, 600)
        full_spec = dict(spec, selector={"matchLabels": w.sel})
        if uepp:
            full_spec["unhealthyPodEvictionPolicy"] = uepp
        ann = {}
        if rng.random() < 0.5:
            ann["kubectl.kubernetes.io/last-applied-configuration"] = json.dumps(
                {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"annotations": {}, "name": name, "namespace": w.ns},
                 "spec": full_spec}, separators=(",", ":"), sort_keys=True) + "\n"
        meta = {"creationTimestamp": ts(created), "generation": 1, "labels": w.labels, "name": name, "namespace": w.ns,
                "resourceVersion": str(self.rv()), "uid": uid}
        if ann:
            meta["annotations"] = ann
        meta["managedFields"] = [
            {"apiVersion": "policy/v1", "fieldsType": "FieldsV1", "fieldsV1": fields_v1({"metadata": {"labels": w.labels, **({"annotations": ann} if ann else {})},
                                                                                          "spec": full_spec}),
             "manager": "kubectl-client-side-apply" if ann else "helm", "operation": "Update", "time": ts(created)},
            {"apiVersion": "policy/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {
                "f:conditions": {".": {}, 'k:{"type":"DisruptionAllowed"}': {".": {}, "f:lastTransitionTime": {}, "f:message": {},
                                                                              "f:observedGeneration": {}, "f:reason": {}, "f:status": {}, "f:type": {}}},
                "f:currentHealthy": {}, "f:desiredHealthy": {}, "f:disruptionsAllowed": {}, "f:expectedPods": {}, "f:observedGeneration": {}}},
             "manager": "kube-controller-manager", "operation": "Update", "subresource": "status", "time": ts(NOW - rng.randint(30, 3 * DAY))}]
        return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": meta, "spec": full_spec, "status": {
            "conditions": [{"lastTransitionTime": ts(NOW - rng.randint(30, 3 * DAY)), "message": "", "observedGeneration": 1,
                            "reason": "SufficientPods" if allowed else "InsufficientPods", "status": "True" if allowed else "False",
                            "type": "DisruptionAllowed"}],
            "currentHealthy": healthy, "desiredHealthy": desired, "disruptionsAllowed": allowed, "expectedPods": expected,
            "observedGeneration": 1}}

    def pc_obj(self, name, value, gd, pp, desc, system) -> dict:
        created = NOW - (400 * DAY if system else 200 * DAY)
        meta = {"creationTimestamp": ts(created), "generation": 1, "name": name, "resourceVersion": str(80 + len(name)),
                "uid": Rand(name).uid()}
        fv = {"f:description": {}, "f:preemptionPolicy": {}, "f:value": {}}
        if not system:
            meta["annotations"] = {"kubectl.kubernetes.io/last-applied-configuration": json.dumps(
                {"apiVersion": "scheduling.k8s.io/v1", "description": desc, "globalDefault": gd, "kind": "PriorityClass",
                 "metadata": {"annotations": {}, "name": name}, "preemptionPolicy": pp, "value": value}, separators=(",", ":"), sort_keys=True) + "\n"}
            fv = {"f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}}}, "f:globalDefault": {}, **fv}
        meta["managedFields"] = [{"apiVersion": "scheduling.k8s.io/v1", "fieldsType": "FieldsV1", "fieldsV1": fv,
                                  "manager": "kube-apiserver" if system else "kubectl-client-side-apply", "operation": "Update", "time": ts(created)}]
        o = {"apiVersion": "scheduling.k8s.io/v1", "description": desc, "kind": "PriorityClass", "metadata": meta,
             "preemptionPolicy": pp, "value": value}
        if gd:
            o["globalDefault"] = True
        return o

    # ---- kubelet-side objects -----------------------------------------------------------------
    def kubelet_config(self, nd: NodePlan) -> dict:
        kc = self._kc_cache.get(nd.pool)
        if kc is None:
            kc = dict(KUBELET_CONFIG_BASE)
            kc["evictionHard"] = {"imagefs.available": "15%", "memory.available": "100Mi", "nodefs.available": "10%",
                                  "nodefs.inodesFree": "5%", "imagefs.inodesFree": "5%"}
            kc["shutdownGracePeriod"] = "45s"
            kc["shutdownGracePeriodCriticalPods"] = "15s"
            if nd.pool in ("general", "compute"):
                kc["evictionSoft"] = {"memory.available": "500Mi", "nodefs.available": "15%"}
                kc["evictionSoftGracePeriod"] = {"memory.available": "1m30s", "nodefs.available": "2m0s"}
                kc["evictionMaxPodGracePeriod"] = 60
                kc["evictionMinimumReclaim"] = {"memory.available": "0Mi", "nodefs.available": "500Mi"}
            if nd.pool in ("infra", "gpu", "memory"):
                del kc["shutdownGracePeriod"], kc["shutdownGracePeriodCriticalPods"]
                kc["shutdownGracePeriodByPodPriority"] = [
                    {"priority": 2000000000, "shutdownGracePeriodSeconds": 20},
                    {"priority": 1000000, "shutdownGracePeriodSeconds": 30},
                    {"priority": 0, "shutdownGracePeriodSeconds": 60},
                    {"priority": -100, "shutdownGracePeriodSeconds": 10}]
            if nd.pool == CP_POOL:
                kc["staticPodPath"] = "/etc/kubernetes/manifests"
                kc["shutdownGracePeriod"] = "0s"
                kc["shutdownGracePeriodCriticalPods"] = "0s"
            self._kc_cache[nd.pool] = kc
        return {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": nd.name}, "kubeletconfig": kc}

    def stats_summary(self, nd: NodePlan) -> dict:
        rng = self.srng
        t = ts(NOW - rng.randint(1, 9))
        tf = ts(NOW - rng.randint(1, 20))
        cap_mem = int(nd.mem_gi * 1024 * 1024 * 0.97) // 4 * 4 * KI
        fs_cap = 107361579008
        fs_used_frac = rng.uniform(0.15, 0.6) if nd.state != "diskpressure" else rng.uniform(0.905, 0.95)
        inodes = 52428800
        pods_out = []
        pods_ws = 0
        leak = nd.state == "mempressure" or (rng.random() < 0.01 and nd.state == "ready")
        fs_avail = int(fs_cap * (1 - fs_used_frac))
        running = [p for p in nd.pods if p.state in ("running", "crashloop", "terminating")]
        for k, pp in enumerate(running):
            w = pp.wl
            start = ts(pp.created + 1)
            conts = []
            pod_ws = pod_cpu = 0
            for c in w.containers:
                req = c.get("resources", {}).get("requests", {})
                lim = c.get("resources", {}).get("limits", {})
                base = _mem_bytes(req.get("memory") or lim.get("memory") or "64Mi")
                ws = int(base * rng.uniform(0.3, 1.1))
                if leak and k == 0 and c is w.containers[0]:
                    ws = int(cap_mem * 0.6)
                use = ws + rng.randint(0, 50 * MI)
                cpu = rng.randint(1_000_000, 400_000_000)
                mem = {"time": t, "usageBytes": use, "workingSetBytes": ws, "rssBytes": int(ws * 0.85),
                       "pageFaults": rng.randint(1000, 900000), "majorPageFaults": rng.randint(0, 40)}
                if lim.get("memory"):
                    mem = {"time": t, "availableBytes": max(0, _mem_bytes(lim["memory"]) - ws), **{k2: v for k2, v in mem.items() if k2 != "time"}}
                used_root = rng.randint(8, 4000) * 4096
                conts.append({"name": c["name"], "startTime": start,
                              "cpu": {"time": t, "usageNanoCores": cpu, "usageCoreNanoSeconds": cpu * rng.randint(100, 100000)},
                              "memory": mem,
                              "rootfs": {"time": tf, "availableBytes": fs_avail, "capacityBytes": fs_cap, "usedBytes": used_root,
                                         "inodesFree": inodes - 2000000, "inodes": inodes, "inodesUsed": rng.randint(5, 60)},
                              "logs": {"time": tf, "availableBytes": fs_avail, "capacityBytes": fs_cap, "usedBytes": rng.randint(1, 50000) * 4096,
                                       "inodesFree": inodes - 2000000, "inodes": inodes, "inodesUsed": rng.randint(1, 6)}})
                pod_ws += ws
                pod_cpu += cpu
            vol = []
            eph = sum(c["rootfs"]["usedBytes"] + c["logs"]["usedBytes"] for c in conts)
            for v in w.volumes:
                if "emptyDir" in v:
                    used = rng.randint(1, 300000) * 4096
                    eph += used
                    vol.append({"time": tf, "availableBytes": fs_avail, "capacityBytes": fs_cap, "usedBytes": used,
                                "inodesFree": inodes - 2000000, "inodes": inodes, "inodesUsed": rng.randint(1, 500), "name": v["name"]})
                elif "configMap" in v or "secret" in v:
                    vol.append({"time": tf, "availableBytes": cap_mem // 2, "capacityBytes": cap_mem // 2, "usedBytes": 12288,
                                "inodesFree": 2000000, "inodes": 2000009, "inodesUsed": 9, "name": v["name"]})
            for p in w.pvcs:
                vcap = 21003583488
                used = rng.randint(1, 4000000) * 4096
                vol.append({"time": tf, "availableBytes": vcap - used, "capacityBytes": vcap, "usedBytes": used, "inodesFree": 1310000,
                            "inodes": 1310720, "inodesUsed": 720, "name": p, "pvcRef": {"name": f"{p}-{pp.name}", "namespace": w.ns}})
            vol.append({"time": tf, "availableBytes": 15 * GI, "capacityBytes": 15 * GI, "usedBytes": 12288, "inodesFree": 2000000,
                        "inodes": 2000009, "inodesUsed": 9, "name": f"kube-api-access-{pp.tok}"})
            rx = rng.randint(10 ** 5, 10 ** 11)
            tx = rng.randint(10 ** 5, 10 ** 11)
            pods_out.append({
                "podRef": {"name": pp.name, "namespace": w.ns, "uid": pp.uid}, "startTime": start, "containers": conts,
                "cpu": {"time": t, "usageNanoCores": pod_cpu, "usageCoreNanoSeconds": pod_cpu * 1000},
                "memory": {"time": t, "usageBytes": pod_ws + 3 * MI, "workingSetBytes": pod_ws + 3 * MI, "rssBytes": int(pod_ws * 0.85),
                           "pageFaults": rng.randint(1000, 900000), "majorPageFaults": 0},
                "network": {"time": t, "name": "eth0", "rxBytes": rx, "rxErrors": 0, "txBytes": tx, "txErrors": 0,
                            "interfaces": [{"name": "eth0", "rxBytes": rx, "rxErrors": 0, "txBytes": tx, "txErrors": 0}]},
                "volume": vol,
                "ephemeral-storage": {"time": tf, "availableBytes": fs_avail, "capacityBytes": fs_cap, "usedBytes": eph,
                                      "inodesFree": inodes - 2000000, "inodes": inodes, "inodesUsed": rng.randint(10, 600)},
                "process_stats": {"process_count": rng.randint(1, 40)},
            })
            pods_ws += pod_ws + 3 * MI
        sys_ws = rng.randint(600, 1400) * MI
        node_ws = min(cap_mem - 20 * MI, pods_ws + sys_ws)
        if nd.state == "mempressure":
            node_ws = cap_mem - rng.randint(30, 95) * MI
        avail = cap_mem - node_ws
        cpu_n = rng.randint(10 ** 8, nd.cpu * 7 * 10 ** 8)
        alloc_pods = nd.alloc_mem + 100 * MI
        boot = ts(nd.created)
        sc = []
        for scn in ("kubelet", "runtime", "pods"):
            ws = {"kubelet": rng.randint(60, 200) * MI, "runtime": rng.randint(100, 600) * MI, "pods": min(pods_ws, node_ws)}[scn]
            m = {"time": t, "usageBytes": ws + rng.randint(0, 200) * MI, "workingSetBytes": ws, "rssBytes": int(ws * 0.8),
                 "pageFaults": rng.randint(10 ** 4, 10 ** 8), "majorPageFaults": rng.randint(0, 300)}
            if scn == "pods":
                m = {"time": t, "availableBytes": max(0, alloc_pods - ws), **{k: v for k, v in m.items() if k != "time"}}
            sc.append({"name": scn, "startTime": boot, "cpu": {"time": t, "usageNanoCores": rng.randint(10 ** 6, 10 ** 9),
                                                                 "usageCoreNanoSeconds": rng.randint(10 ** 9, 10 ** 15)}, "memory": m})
        summary = {
            "node": {
                "nodeName": nd.name, "systemContainers": sc, "startTime": boot,
                "cpu": {"time": t, "usageNanoCores": cpu_n, "usageCoreNanoSeconds": cpu_n * rng.randint(10 ** 4, 10 ** 6)},
                "memory": {"time": t, "availableBytes": avail, "usageBytes": node_ws + rng.randint(500, 4000) * MI, "workingSetBytes": node_ws,
                           "rssBytes": int(node_ws * 0.8), "pageFaults": rng.randint(10 ** 6, 10 ** 9), "majorPageFaults": rng.randint(0, 5000)},
                "network": {"time": t, "name": "eth0", "rxBytes": rng.randint(10 ** 9, 10 ** 13), "rxErrors": 0,
                            "txBytes": rng.randint(10 ** 9, 10 ** 13), "txErrors": 0,
                            "interfaces": [{"name": "eth0", "rxBytes": 0, "rxErrors": 0, "txBytes": 0, "txErrors": 0}]},
                "fs": {"time": tf, "availableBytes": fs_avail, "capacityBytes": fs_cap, "usedBytes": fs_cap - fs_avail,
                       "inodesFree": inodes - 2000000, "inodes": inodes, "inodesUsed": 2000000},
                "runtime": {"imageFs": {"time": tf, "availableBytes": fs_avail, "capacityBytes": fs_cap,
                                        "usedBytes": rng.randint(2, 30) * GI, "inodesFree": inodes - 2000000, "inodes": inodes,
                                        "inodesUsed": rng.randint(20000, 200000)},
                            "containerFs": {"time": tf, "availableBytes": fs_avail, "capacityBytes": fs_cap,
                                            "usedBytes": rng.randint(2, 30) * GI, "inodesFree": inodes - 2000000, "inodes": inodes,
                                            "inodesUsed": rng.randint(20000, 200000)}},
                "rlimit": {"time": t, "maxpid": 4194304, "curproc": 300 + 20 * len(running)},
            },
            "pods": pods_out,
        }
        s = summary["node"]["network"]
        s["interfaces"][0].update(rxBytes=s["rxBytes"], txBytes=s["txBytes"])
        return {"apiVersion": "evictplan/v1alpha1", "kind": "NodeStatsSummary", "metadata": {"name": nd.name}, "summary": summary}

    # ---- output -----------------------------------------------------------------------------
    def pv_name(self, ns: str, claim: str) -> str:
        return "pvc-" + Rand(f"{self.seed}/pv/{ns}/{claim}").uid()

    def pvc_obj(self, ns: str, claim: str) -> dict:
        return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                "metadata": {"annotations": {"pv.kubernetes.io/bind-completed": "yes",
                                             "volume.kubernetes.io/storage-provisioner": "ebs.csi.aws.com"},
                             "name": claim, "namespace": ns, "uid": self.pv_name(ns, claim)[4:]},
                "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "20Gi"}},
                         "storageClassName": "gp3", "volumeMode": "Filesystem", "volumeName": self.pv_name(ns, claim)},
                "status": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "20Gi"}, "phase": "Bound"}}

    def pv_obj(self, ns: str, claim: str, nd) -> dict:
        name = self.pv_name(ns, claim)
        return {"apiVersion": "v1", "kind": "PersistentVolume",
                "metadata": {"labels": {"topology.kubernetes.io/zone": nd.zone}, "name": name, "uid": "pv" + name[3:]},
                "spec": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "20Gi"},
                         "claimRef": {"kind": "PersistentVolumeClaim", "name": claim, "namespace": ns, "uid": name[4:]},
                         "csi": {"driver": "ebs.csi.aws.com", "fsType": "ext4", "volumeHandle": "vol-" + name[4:]},
                         "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                             {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [nd.zone]}]}]}},
                         "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "gp3", "volumeMode": "Filesystem"},
                "status": {"phase": "Bound"}}

    def write(self, out, fmt: str = "compact", progress=None):
        """Write the whole List to the binary file object ``out``."""
        t0 = time.time()
        self.plan()
        if progress:
            progress(f"planned {len(self.workloads)} workloads, {self.n_pods} pods in {time.time() - t0:.1f}s")
        self.pause = {"names": ["602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause:3.10",
                                "localhost/kubernetes/pause:latest"], "sizeBytes": 318731}
        self._kc_cache = {}
        self.srng = Rand(f"{self.seed}/stats")
        enc = _encoder(fmt)
        sep = b",\n        " if fmt == "kubectl" else b",\n"
        if fmt == "kubectl":
            out.write(b'{\n    "apiVersion": "v1",\n    "items": [\n        ')
        else:
            out.write(b'{"apiVersion":"v1","items":[\n')
        first = True

        strip = not self.managed_fields

        def emit(obj):
            nonlocal first
            if strip:
                obj["metadata"].pop("managedFields", None)
            b = enc(obj)
            if not first:
                out.write(sep)
            first = False
            out.write(b)
            self.counts[obj["kind"]] = self.counts.get(obj["kind"], 0) + 1
            return len(b)

        # The generated cluster is all there is: list every kind written (none is partial), so plans
        # over it are complete (exit 5 would mean a kind is missing). It writes no VolumeAttachment:
        # listed, it says there are none (NodeVolumeLimits counts them against the CSINode limits).
        kinds = ["CSINode", "DaemonSet", "Deployment", "Job", "Lease", "Node", "PersistentVolume",
                 "PersistentVolumeClaim", "Pod", "PodDisruptionBudget", "PriorityClass", "ReplicaSet", "StatefulSet",
                 "StorageClass", "VolumeAttachment"] + (["NodeKubeletConfig", "NodeStatsSummary"] if self.stats else [])
        emit({"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
              "takenAt": TAKEN_AT, "context": "bench", "server": "https://bench.example:6443", "kinds": kinds})
        for nd in sorted(self.nodes, key=lambda n: n.name):
            emit(self.node_obj(nd))
        if progress:
            progress(f"nodes written at {time.time() - t0:.1f}s")
        pods = [(w.ns, pp.name, pp) for w in self.workloads for pp in w.pods]
        pods += [("kube-system", f"{m[0]}-{m[1].name}", m) for m in self.mirrors]
        pods.sort(key=lambda x: (x[0], x[1]))  # the API lists by namespace/name
        pb = 0
        for i, (_, _, pp) in enumerate(pods):
            if isinstance(pp, tuple):
                pb += emit(self.mirror_obj(*pp))
            else:
                pb += emit(self.pod_obj(pp))
            if progress and i and i % 50000 == 0:
                progress(f"{i} pods at {time.time() - t0:.1f}s")
        self.pod_bytes = pb
        del pods
        if progress:
            progress(f"pods written at {time.time() - t0:.1f}s")
        for w, name, spec, uid, uepp in sorted(self.pdbs, key=lambda p: (p[0].ns, p[1])):
            emit(self.pdb_obj(w, name, spec, uid, uepp))
        for pc in sorted(PRIORITY_CLASSES):
            emit(self.pc_obj(*pc))
        for kind, keys in self.controller_keys().items():  # ds, rs, sts, deploy, jobs: kubectl's order
            for _, _, w, i in keys:
                emit(self.controller_obj(w, kind, i))
        # StatefulSet claims, bound to zonal PersistentVolumes where each pod runs (the volume pins
        # the pod's replacement to its zone), and their StorageClass.
        emit({"allowVolumeExpansion": True, "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
              "metadata": {"name": "gp3", "uid": f"sc-{self.seed}-gp3"}, "parameters": {"type": "gp3"},
              "provisioner": "ebs.csi.aws.com", "reclaimPolicy": "Delete", "volumeBindingMode": "WaitForFirstConsumer"})
        claims = sorted(((w.ns, f"{c}-{pp.name}", pp) for w in self.workloads if w.kind == "StatefulSet" and w.pvcs
                         for pp in w.pods if pp.node is not None for c in w.pvcs), key=lambda t: (t[0], t[1]))
        for ns, claim, pp in claims:
            emit(self.pvc_obj(ns, claim))
        for ns, claim, pp in sorted(claims, key=lambda t: self.pv_name(t[0], t[1])):
            emit(self.pv_obj(ns, claim, pp.node))
        # Every node's heartbeat Lease (renewed with its last status; a NotReady node's is as stale)
        # and its CSINode: the EBS CSI driver (ebs-csi-node runs everywhere) with EBS's 25 attachments.
        for nd in sorted(self.nodes, key=lambda n: n.name):
            emit({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                  "metadata": {"creationTimestamp": ts(nd.created), "name": nd.name, "namespace": "kube-node-lease",
                               "uid": nd.uid[:-4] + "1ea5"},
                  "spec": {"holderIdentity": nd.name, "leaseDurationSeconds": 40, "renewTime": ts(nd.hb)}})
        for nd in sorted(self.nodes, key=lambda n: n.name):
            emit({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode",
                  "metadata": {"creationTimestamp": ts(nd.created + 40), "name": nd.name, "uid": nd.uid[:-4] + "c51d"},
                  "spec": {"drivers": [{"allocatable": {"count": 25}, "name": "ebs.csi.aws.com", "nodeID": nd.instance,
                                        "topologyKeys": ["topology.ebs.csi.aws.com/zone"]}]}})
        if progress:
            progress(f"controllers written at {time.time() - t0:.1f}s")
        if self.stats:
            for nd in sorted(self.nodes, key=lambda n: n.name):
                if nd.state != "notready":  # an unreachable kubelet can't be asked
                    emit(self.kubelet_config(nd))
            for nd in sorted(self.nodes, key=lambda n: n.name):
                if nd.state != "notready":
                    emit(self.stats_summary(nd))
            if progress:
                progress(f"kubelet stats written at {time.time() - t0:.1f}s")
        if fmt == "kubectl":
            out.write(b'\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n')
        else:
            out.write(b'\n],"kind":"List","metadata":{"resourceVersion":""}}\n')


NODE_STATUS_FIELDS = {"f:status": {
    "f:allocatable": {"f:cpu": {}, "f:ephemeral-storage": {}, "f:memory": {}},
    "f:capacity": {"f:cpu": {}, "f:ephemeral-storage": {}, "f:memory": {}},
    "f:conditions": {'k:{"type":"DiskPressure"}': {"f:lastHeartbeatTime": {}},
                     'k:{"type":"MemoryPressure"}': {"f:lastHeartbeatTime": {}},
                     'k:{"type":"PIDPressure"}': {"f:lastHeartbeatTime": {}},
                     'k:{"type":"Ready"}': {"f:lastHeartbeatTime": {}, "f:lastTransitionTime": {}, "f:message": {},
                                            "f:reason": {}, "f:status": {}}},
    "f:images": {}, "f:nodeInfo": {"f:bootID": {}}, "f:runtimeHandlers": {}}}

KUBELET_CONFIG_BASE = {
    "apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration", "address": "0.0.0.0",
    "authentication": {"anonymous": {"enabled": False}, "webhook": {"cacheTTL": "2m0s", "enabled": True},
                       "x509": {"clientCAFile": "/etc/kubernetes/pki/ca.crt"}},
    "authorization": {"mode": "Webhook", "webhook": {"cacheAuthorizedTTL": "5m0s", "cacheUnauthorizedTTL": "30s"}},
    "cgroupDriver": "systemd", "cgroupRoot": "/", "cgroupsPerQOS": True, "clusterDNS": ["172.20.0.10"],
    "clusterDomain": "cluster.local", "configMapAndSecretChangeDetectionStrategy": "Watch", "containerLogMaxFiles": 5,
    "containerLogMaxSize": "10Mi", "containerLogMaxWorkers": 1, "containerLogMonitorInterval": "10s",
    "containerRuntimeEndpoint": "unix:///run/containerd/containerd.sock", "contentType": "application/vnd.kubernetes.protobuf",
    "cpuCFSQuota": True, "cpuCFSQuotaPeriod": "100ms", "cpuManagerPolicy": "none", "cpuManagerReconcilePeriod": "10s",
    "crashLoopBackOff": {}, "enableControllerAttachDetach": True, "enableDebugFlagsHandler": True, "enableDebuggingHandlers": True,
    "enableProfilingHandler": True, "enableServer": True, "enableSystemLogHandler": True, "enableSystemLogQuery": False,
    "enforceNodeAllocatable": ["pods"], "eventBurst": 100, "eventRecordQPS": 50,
    "evictionPressureTransitionPeriod": "5m0s", "failCgroupV1": False, "failSwapOn": True, "fileCheckFrequency": "20s",
    "hairpinMode": "hairpin-veth", "healthzBindAddress": "127.0.0.1", "healthzPort": 10248, "httpCheckFrequency": "20s",
    "imageGCHighThresholdPercent": 85, "imageGCLowThresholdPercent": 80, "imageMaximumGCAge": "0s", "imageMinimumGCAge": "2m0s",
    "iptablesDropBit": 15, "iptablesMasqueradeBit": 14, "kubeAPIBurst": 100, "kubeAPIQPS": 50,
    "kubeReserved": {"cpu": "90m", "ephemeral-storage": "1Gi", "memory": "1465Mi"}, "localStorageCapacityIsolation": True,
    "logging": {"flushFrequency": "5s", "format": "text", "options": {"json": {"infoBufferSize": "0"}, "text": {"infoBufferSize": "0"}},
                "verbosity": 2},
    "makeIPTablesUtilChains": True, "maxOpenFiles": 1000000, "maxPods": 110, "memoryManagerPolicy": "None", "memorySwap": {},
    "memoryThrottlingFactor": 0.9, "nodeLeaseDurationSeconds": 40, "nodeStatusMaxImages": 50, "nodeStatusReportFrequency": "5m0s",
    "nodeStatusUpdateFrequency": "10s", "oomScoreAdj": -999, "podLogsDir": "/var/log/pods", "podPidsLimit": -1, "port": 10250,
    "protectKernelDefaults": True, "providerID": "", "registerNode": True, "registryBurst": 20, "registryPullQPS": 10,
    "resolvConf": "/etc/resolv.conf", "rotateCertificates": True, "runtimeRequestTimeout": "15m0s", "seccompDefault": False,
    "serializeImagePulls": False, "serverTLSBootstrap": True, "streamingConnectionIdleTimeout": "4h0m0s", "syncFrequency": "1m0s",
    "systemReservedCgroup": "/system", "kubeReservedCgroup": "/runtime",
    "tlsCipherSuites": ["TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"],
    "topologyManagerPolicy": "none", "topologyManagerScope": "container",
    "volumePluginDir": "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/", "volumeStatsAggPeriod": "1m0s",
}

_MEM_UNITS = {"Ki": KI, "Mi": MI, "Gi": GI, "Ti": GI * 1024, "k": 10 ** 3, "M": 10 ** 6, "G": 10 ** 9, "T": 10 ** 12}


def _mem_bytes(q: str) -> int:
    for u in ("Ki", "Mi", "Gi", "Ti", "k", "M", "G", "T"):
        if q.endswith(u):
            return int(float(q[: -len(u)]) * _MEM_UNITS[u])
    return int(q)


def qos_of(containers: list[dict]) -> str:
    any_set = False
    guaranteed = True
    for c in containers:
        res = c.get("resources") or {}
        req, lim = res.get("requests", {}), res.get("limits", {})
        for r in ("cpu", "memory"):
            if r in req or r in lim:
                any_set = True
            if r not in lim or req.get(r, lim.get(r)) != lim[r]:
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def _encoder(fmt: str):
    if msgspec is not None:
        e = msgspec.json.Encoder(order="sorted")
        if fmt == "kubectl":
            fmt_ = msgspec.json.format
            return lambda o: fmt_(e.encode(o), indent=4).replace(b"\n", b"\n        ")
        return e.encode
    if fmt == "kubectl":
        return lambda o: json.dumps(o, indent=4, sort_keys=True).replace("\n", "\n        ").encode()
    return lambda o: json.dumps(o, separators=(",", ":"), sort_keys=True).encode()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=150000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True, help="output file ('-' for stdout)")
    ap.add_argument("--stats", action="store_true", help="add NodeKubeletConfig + NodeStatsSummary items per reachable node")
    ap.add_argument("--format", choices=("compact", "kubectl"), default="compact",
                    help="compact: sorted keys, no whitespace, one item per line (default); kubectl: 4-space indent exactly "
                         "like `kubectl get -o json` prints (about 3x the bytes)")
    ap.add_argument("--no-managed-fields", "--lean", dest="managed_fields", action="store_false",
                    help="omit metadata.managedFields, as `kubectl get -o json` (>= 1.21) prints by default "
                         "(--show-managed-fields=false) and `snapshot --redact` writes")
    ap.add_argument("-q", "--quiet", action="store_true")
    a = ap.parse_args(argv)
    if a.nodes < 1 or a.pods < 0:
        ap.error("--nodes must be >= 1 and --pods >= 0")
    t0 = time.time()
    prog = None if a.quiet else (lambda m: print(f"generate: {m}", file=sys.stderr, flush=True))
    g = Generator(a.nodes, a.pods, a.seed, a.stats, a.managed_fields)
    if a.out == "-":
        g.write(sys.stdout.buffer, a.format, prog)
        sys.stdout.buffer.flush()
        size = None
    else:
        tmp = a.out + ".tmp"
        with open(tmp, "wb", buffering=4 * 1024 * 1024) as f:
            g.write(f, a.format, prog)
        os.replace(tmp, a.out)
        size = os.path.getsize(a.out)
    if not a.quiet:
        n_pods = g.counts.get("Pod", 0)
        import resource
        info = {"seconds": round(time.time() - t0, 2), "bytes": size, "counts": g.counts,
                "cpuSeconds": round(time.process_time(), 2),
                "peakRssMB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                "avgPodBytes": round(g.pod_bytes / n_pods) if n_pods else 0, "format": a.format}
        print("generate: " + json.dumps(info, sort_keys=True), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
