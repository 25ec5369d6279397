#!/usr/bin/env python3
"""Generate the bundled demo cluster, ``kubectl_evict/demo/cluster.json``.

Run from the repository root:  ``python3 tools/make_demo.py``  (stdlib only, Python 3.9+).
The output is byte-identical on every run: no clock reads, no unseeded randomness; every
uid, name suffix, IP and timestamp is derived from fixed strings.

The snapshot is taken at 2026-11-21T12:00:00Z (``SnapshotInfo.takenAt``). Region eu-west-1,
three zones, 12 nodes, 157 pods. What each part is there to show:

NODES (zone / instance type / notes)
  cp-1       a  m5.xlarge   control plane: taint node-role.kubernetes.io/control-plane:NoSchedule;
                            static (mirror) pods etcd / kube-apiserver / kube-controller-manager /
                            kube-scheduler (owner kind Node, config.mirror + config.source=file):
                            drain skips them silently, pressure never evicts them (critical).
                            coredns-* tolerates the control-plane taint.
  worker-a1  a  m5.2xlarge  disktype=ssd. THE DRAIN DEMO (`drain worker-a1`):
                            - 5 DaemonSet pods              -> skipped / error without --ignore-daemonsets
                            - shop/checkout x2 of 3 (PDB maxUnavailable 1, disruptionsAllowed 1)
                                                            -> one evicted now, the other in a second wave
                            - shop/payments (1 replica, PDB minAvailable 1, allows 0) -> blocked by PDB
                            - analytics/spark-driver (20Gi request + nodeSelector disktype=ssd; the
                              other ssd nodes have 16Gi)    -> blocked, no node fits
                            - default/debug-shell (no ownerReferences, hostPath /) -> needs --force
                            - batch/nightly-report-* (Succeeded Job pod) -> skipped (completed)
                            - shop/reviews-* (CrashLoopBackOff, not Ready; its PDB allows 0 but has
                              unhealthyPodEvictionPolicy AlwaysAllow) -> evictable without budget
                            - shop/search-* (emptyDir "scratch" sizeLimit 1Gi, required affinity
                              disktype In [ssd]) -> needs --delete-emptydir-data, lands on an ssd node;
                              its scratch volume uses 1.1Gi > 1Gi, so `pressure worker-a1` evicts it
                              for exceeding the emptyDir limit (local-storage eviction, 1 s grace)
                            - data/cache-* (required podAntiAffinity on hostname, emptyDir Memory)
                            - shop/frontend-* (PDB maxUnavailable 25%)
                            kubelet config: evictionSoft memory.available<500Mi (1m30s),
                            nodefs.available<15% (2m0s), evictionMaxPodGracePeriod 60,
                            shutdownGracePeriod 30s / critical 10s. Stats summary present.
  worker-a2  a  m5.xlarge   disktype=ssd. data/postgres-0 (PVC, VolumeAttachment; the postgres PDB
                            allows 0 because postgres-2 is down), ingress-nginx (hostPort 80/443),
                            shop/cart-canary-* (covered by TWO PDBs: cart and cart-canary -> the
                            Eviction API answers 500).
  worker-a3  a  m5.xlarge   plain worker (room for evicted pods); batch/nightly-report running pod,
                            data/queue-worker, monitoring/grafana (emptyDir).
  worker-b1  b  m5.xlarge   disktype=ssd. coredns (system-cluster-critical), shop/ledger (annotation
                            evictplan.io/node-affinity: RequiredDuringExecution + required disktype
                            In [ssd]: `affinity --unlabel worker-b1:disktype` evicts it while
                            shop/search on the same node stays), shop/checkout third replica.
  worker-b2  b  m5.large    MEMORY PRESSURE: stats memory.available = 80Mi < evictionHard 100Mi,
                            MemoryPressure=True + memory-pressure:NoSchedule taint,
                            evictionMinimumReclaim memory.available=2Gi (must reach 2148Mi).
                            Ranking (usage>request, priority asc, excess desc):
                              1. batch/etl-worker     prio -10    ws 1100Mi req 512Mi
                              2. shop/recommender     prio 0      ws 900Mi  BestEffort
                              3. shop/image-resizer   prio 0      ws 600Mi  req 256Mi
                              -- 80+1100+900 = 2080Mi < 2148Mi, +600 = 2680Mi: stop after 3 --
                              4. shop/orders-api      prio 100000 ws 1400Mi req 1Gi  (high; spared)
                              never: kube-system/metrics-server prio 2000000000 ws 350Mi req 200Mi
                            below request: catalog, frontend, DaemonSets. Stats summary present.
  worker-b3  b  m5.xlarge   data/postgres-1, shop/notifier (tolerationSeconds 60: first to go in
                            `controller --fail worker-b3`), default/netshoot (unmanaged), ingress.
  gpu-1      b  g4dn.12xl   taint nvidia.com/gpu=true:NoSchedule, nvidia.com/gpu: 4. ml/inference
                            (tolerates it, requests 1 GPU, priority high: drain -> no node fits).
                            kubelet shutdownGracePeriodByPodPriority (0:30s, 100000:120s,
                            2000000000:10s). Stats summary present.
  worker-c1  c  m5.xlarge   disktype=ssd. cache, search, kube-state-metrics, image-resizer.
  worker-c2  c  m5.xlarge   NOT READY: last heartbeat / lease 11:50:0xZ, Ready=Unknown
                            (NodeStatusUnknown) since 11:50:52Z, unreachable:NoSchedule (11:50:52Z)
                            and unreachable:NoExecute (11:50:57Z). Pods there are Ready=False
                            (MarkPodsNotReady). Pods with the default 300 s tolerations were deleted
                            by the taint manager at 11:55:57Z and hang in Terminating
                            (deletionTimestamp, DisruptionTarget/DeletionByTaintManager):
                            shop/frontend-*, shop/catalog-*, data/postgres-2 (its PV is still
                            attached -> `shutdown worker-c2 --non-graceful` force-deletes and
                            detaches). data/queue-worker-* tolerates unreachable for 1800 s ->
                            deletion due at 12:20:57Z (+1257 s). DaemonSet pods stay (tolerate
                            forever). Stale kubelet config + stats summary present.
  worker-c3  c  m5.xlarge   CORDONED (spec.unschedulable + unschedulable:NoSchedule): a drain that
                            stopped at shop/legacy-cron (unmanaged). Only DaemonSets + that pod.
  worker-c4  c  m5.xlarge   plain worker, busiest node. `drain worker-c4`: data/ledger-db-0
                            (StatefulSet, PV in zone c) can only go to worker-c1, which is full
                            until the scheduler preempts batch/backfill (batch-low) there.

WORKLOADS / PDBs (namespace/name replicas PDB -> status)
  shop/frontend 10 (+1 terminating) maxUnavailable 25%  -> expected 10 desired 7  allowed 3
  shop/checkout 3            maxUnavailable 1           -> allowed 1 (the drain wave)
  shop/payments 1            minAvailable 1             -> allowed 0 (blocked)
  shop/cart 4 + cart-canary 1  PDB cart minAvailable 50% over both -> expected 5 desired 3 allowed 2
                             PDB cart-canary maxUnavailable 1     -> the canary pod has 2 PDBs
  shop/catalog 8 (+1 terminating) minAvailable 75%      -> allowed 2
  shop/search 4              maxUnavailable 50%         -> allowed 2
  shop/orders-api 3          minAvailable 2             -> allowed 1
  shop/reviews 6 (1 not Ready) maxUnavailable 1, unhealthyPodEvictionPolicy AlwaysAllow -> allowed 0
  shop/auth 4                minAvailable 50%           -> allowed 2
  shop/inventory 6           maxUnavailable 20%         -> allowed 2
  ingress/ingress-nginx-controller 2 minAvailable 1     -> allowed 1
  data/cache 3               maxUnavailable 1           -> allowed 1
  data/postgres (StatefulSet) 3, postgres-2 down  minAvailable 2 -> healthy 2, allowed 0
  kube-system/coredns 2      maxUnavailable 1           -> allowed 1
  kube-system/ebs-csi-controller 2 maxUnavailable 1     -> allowed 1
  no PDB: recommender, image-resizer, notifier, ledger, shipping, email, queue-worker, etl-worker,
  spark-driver, metrics-server, kube-state-metrics, grafana, ml/inference, the Job, unmanaged pods.
  DaemonSets (every node, 60 pods): kube-proxy, calico-node (CNI), ebs-csi-node, node-exporter,
  fluent-bit; all with the DaemonSet controller's implicit tolerations.
  PriorityClasses: system-cluster-critical 2000000000, system-node-critical 2000001000,
  high 100000 (checkout, payments, orders-api, ml/inference), batch-low -10 (PreemptNever;
  etl-worker, nightly-report), standard 1000 (globalDefault false; unused on purpose).
  Every non-DaemonSet pod carries the DefaultTolerationSeconds not-ready/unreachable 300 s
  tolerations unless it declares its own (notifier 60 s, queue-worker 1800 s, static pods).
"""

import hashlib
import json
import os
import sys
import uuid
from datetime import datetime, timedelta, timezone

TAKEN = datetime(2026, 11, 21, 12, 0, 0, tzinfo=timezone.utc)
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "kubectl_evict", "demo", "cluster.json")

# --------------------------------------------------------------------------- helpers

_RV = [48213]


def rv():
    _RV[0] += 7
    return str(_RV[0])


def h(*parts):
    return int(hashlib.sha256("/".join(str(p) for p in parts).encode()).hexdigest(), 16)


def uid(*parts):
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "evictplan-demo:" + "/".join(parts)))


ALNUM = "bcdfghjklmnpqrstvwxz2456789"  # k8s SafeEncodeString alphabet


def suffix(n, *parts):
    x = h(*parts)
    out = []
    for _ in range(n):
        out.append(ALNUM[x % len(ALNUM)])
        x //= len(ALNUM)
    return "".join(out)


def hexid(n, *parts):
    return hashlib.sha256("/".join(parts).encode()).hexdigest()[:n]


def ts(dt):
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def micro(dt, *parts):
    us = h("micro", *parts) % 1000000
    return dt.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % us


def at(s):  # "11:50:02" on the snapshot day, or a full RFC3339 string
    if "T" in s:
        return datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    hh, mm, ss = (int(x) for x in s.split(":"))
    return TAKEN.replace(hour=hh, minute=mm, second=ss)


MI = 1024 * 1024
GI = 1024 * MI


def qbytes(q):
    """Tiny quantity parser for the values this file uses (Ki/Mi/Gi/plain)."""
    for suf, mul in (("Ki", 1024), ("Mi", MI), ("Gi", GI)):
        if q.endswith(suf):
            return int(float(q[:-2]) * mul)
    return int(q)


def qcpu(q):
    return int(q[:-1]) if q.endswith("m") else int(float(q) * 1000)


# --------------------------------------------------------------------------- nodes

REGION = "eu-west-1"
# kube/system reserved used on every node (matches the NodeKubeletConfig items)
KUBE_RES = {"cpu": "80m", "memory": "893Mi", "ephemeral-storage": "1Gi"}
SYS_RES = {"cpu": "100m", "memory": "256Mi", "ephemeral-storage": "1Gi"}
RESERVED_CPU_M = 180
RESERVED_MEM = (893 + 256) * MI
HARD_MEM = 100 * MI

INSTANCES = {
    #               cpu  memory Ki    disk Ki
    "m5.large": (2, 7935132, 101430960),
    "m5.xlarge": (4, 16248024, 101430960),
    "m5.2xlarge": (8, 32329400, 203410160),
    "g4dn.12xlarge": (48, 195871952, 203410160),
}

NODES = [
    # name, zone, instance, node created, extra labels
    ("cp-1", "a", "m5.xlarge", "2026-03-02T09:14:07Z", {"node-role.kubernetes.io/control-plane": ""}),
    ("worker-a1", "a", "m5.2xlarge", "2026-11-12T08:02:31Z", {"disktype": "ssd"}),
    ("worker-a2", "a", "m5.xlarge", "2026-11-12T08:03:10Z", {"disktype": "ssd"}),
    ("worker-a3", "a", "m5.xlarge", "2026-11-12T08:03:44Z", {}),
    ("worker-b1", "b", "m5.xlarge", "2026-11-12T08:05:02Z", {"disktype": "ssd"}),
    ("worker-b2", "b", "m5.large", "2026-11-12T08:05:39Z", {}),
    ("worker-b3", "b", "m5.xlarge", "2026-11-12T08:06:15Z", {}),
    ("gpu-1", "b", "g4dn.12xlarge", "2026-10-30T14:40:52Z",
     {"nvidia.com/gpu.present": "true", "accelerator": "nvidia-tesla-t4"}),
    ("worker-c1", "c", "m5.xlarge", "2026-11-12T08:07:48Z", {"disktype": "ssd"}),
    ("worker-c2", "c", "m5.xlarge", "2026-11-12T08:08:20Z", {}),
    ("worker-c3", "c", "m5.xlarge", "2026-11-12T08:08:57Z", {}),
    ("worker-c4", "c", "m5.xlarge", "2026-11-19T16:21:05Z", {}),
]
NODE_INDEX = {n[0]: i for i, n in enumerate(NODES)}
NODE_ZONE = {n[0]: REGION + n[1] for n in NODES}
NODE_CREATED = {n[0]: at(n[3]) for n in NODES}
NOT_READY = "worker-c2"
PRESSURE = "worker-b2"
CORDONED = "worker-c3"
# NotReady timeline
C2_LAST_BEAT = at("11:50:02")
C2_UNKNOWN = at("11:50:52")  # heartbeat + 50 s grace
C2_NOEXEC = at("11:50:57")  # + one monitor period
C2_DELETED = C2_NOEXEC + timedelta(seconds=300)  # taint manager deletes 300 s pods
B2_PRESSURE_SINCE = at("11:59:21")


def node_ip(name):
    i = NODE_INDEX[name]
    zone_octet = {"a": 16, "b": 32, "c": 48}[NODES[i][1]]
    return "10.20.%d.%d" % (zone_octet + (h("nip", name) % 12), 10 + 11 * i)


def node_alloc(name):
    inst = NODES[NODE_INDEX[name]][2]
    cpu, mem_ki, disk_ki = INSTANCES[inst]
    alloc_cpu_m = cpu * 1000 - RESERVED_CPU_M
    alloc_mem = mem_ki * 1024 - RESERVED_MEM - HARD_MEM
    disk = disk_ki * 1024
    alloc_disk = disk - 2 * GI - disk // 10
    return alloc_cpu_m, alloc_mem, alloc_disk


def beat(name):
    if name == NOT_READY:
        return C2_LAST_BEAT
    return TAKEN - timedelta(seconds=2 + h("beat", name) % 7)


def make_node(spec):
    name, zone, inst, created, extra = spec
    cpu, mem_ki, disk_ki = INSTANCES[inst]
    a_cpu, a_mem, a_disk = node_alloc(name)
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/instance-type": inst,
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": inst,
        "topology.kubernetes.io/region": REGION,
        "topology.kubernetes.io/zone": REGION + zone,
    }
    labels.update(extra)
    labels = dict(sorted(labels.items()))
    created_dt = at(created)
    capacity = {
        "cpu": str(cpu),
        "ephemeral-storage": "%dKi" % disk_ki,
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": "%dKi" % mem_ki,
        "pods": "110",
    }
    allocatable = {
        "cpu": "%dm" % a_cpu,
        "ephemeral-storage": str(a_disk),
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": "%dKi" % (a_mem // 1024),
        "pods": "110",
    }
    if name == "gpu-1":
        capacity["nvidia.com/gpu"] = "4"
        allocatable["nvidia.com/gpu"] = "4"
    spec_out = {
        "podCIDR": "10.244.%d.0/24" % NODE_INDEX[name],
        "podCIDRs": ["10.244.%d.0/24" % NODE_INDEX[name]],
        "providerID": "aws:///%s%s/i-0%s" % (REGION, zone, hexid(16, "iid", name)),
    }
    taints = []
    if name == "cp-1":
        taints.append({"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"})
    if name == "gpu-1":
        taints.append({"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"})
    if name == CORDONED:
        spec_out["unschedulable"] = True
        taints.append({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule",
                       "timeAdded": "2026-11-21T10:42:13Z"})
    if name == PRESSURE:
        taints.append({"key": "node.kubernetes.io/memory-pressure", "effect": "NoSchedule",
                       "timeAdded": ts(B2_PRESSURE_SINCE + timedelta(seconds=2))})
    if name == NOT_READY:
        taints.append({"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule",
                       "timeAdded": ts(C2_UNKNOWN)})
        taints.append({"key": "node.kubernetes.io/unreachable", "effect": "NoExecute",
                       "timeAdded": ts(C2_NOEXEC)})
    if taints:
        spec_out["taints"] = taints

    hb = ts(beat(name))
    ready_since = ts(created_dt + timedelta(seconds=13))
    if name == NOT_READY:
        conds = []
        for typ in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready"):
            conds.append({"type": typ, "status": "Unknown", "lastHeartbeatTime": hb,
                          "lastTransitionTime": ts(C2_UNKNOWN), "reason": "NodeStatusUnknown",
                          "message": "Kubelet stopped posting node status."})
    else:
        if name == PRESSURE:
            mp = {"type": "MemoryPressure", "status": "True", "lastHeartbeatTime": hb,
                  "lastTransitionTime": ts(B2_PRESSURE_SINCE),
                  "reason": "KubeletHasInsufficientMemory",
                  "message": "kubelet has insufficient memory available"}
        else:
            mp = {"type": "MemoryPressure", "status": "False", "lastHeartbeatTime": hb,
                  "lastTransitionTime": ts(created_dt), "reason": "KubeletHasSufficientMemory",
                  "message": "kubelet has sufficient memory available"}
        conds = [
            mp,
            {"type": "DiskPressure", "status": "False", "lastHeartbeatTime": hb,
             "lastTransitionTime": ts(created_dt), "reason": "KubeletHasNoDiskPressure",
             "message": "kubelet has no disk pressure"},
            {"type": "PIDPressure", "status": "False", "lastHeartbeatTime": hb,
             "lastTransitionTime": ts(created_dt), "reason": "KubeletHasSufficientPID",
             "message": "kubelet has sufficient PID available"},
            {"type": "Ready", "status": "True", "lastHeartbeatTime": hb,
             "lastTransitionTime": ready_since, "reason": "KubeletReady",
             "message": "kubelet is posting ready status"},
        ]
    ip = node_ip(name)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": uid("node", name),
            "resourceVersion": rv(),
            "creationTimestamp": created,
            "labels": labels,
            "annotations": {
                "alpha.kubernetes.io/provided-node-ip": ip,
                "csi.volume.kubernetes.io/nodeid": json.dumps(
                    {"ebs.csi.aws.com": "i-0" + hexid(16, "iid", name)}, separators=(",", ":")),
                "node.alpha.kubernetes.io/ttl": "0",
                "projectcalico.org/IPv4Address": ip + "/20",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
        },
        "spec": spec_out,
        "status": {
            "capacity": capacity,
            "allocatable": allocatable,
            "conditions": conds,
            "addresses": [
                {"type": "InternalIP", "address": ip},
                {"type": "InternalDNS", "address": "ip-%s.%s.compute.internal" % (ip.replace(".", "-"), REGION)},
                {"type": "Hostname", "address": name},
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "machineID": hexid(32, "machine", name),
                "systemUUID": "ec2" + hexid(5, "sys", name) + "-" + hexid(4, "sys2", name) + "-"
                              + hexid(4, "sys3", name) + "-" + hexid(4, "sys4", name) + "-"
                              + hexid(12, "sys5", name),
                "bootID": uid("boot", name),
                "kernelVersion": "6.8.0-1019-aws",
                "osImage": "Ubuntu 24.04.1 LTS",
                "containerRuntimeVersion": "containerd://1.7.24",
                "kubeletVersion": "v1.33.2",
                "kubeProxyVersion": "",
                "operatingSystem": "linux",
                "architecture": "amd64",
            },
        },
    }


def make_lease(name):
    renew = beat(name) - timedelta(seconds=1 + h("lease", name) % 3) if name == NOT_READY else beat(name)
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {
            "name": name,
            "namespace": "kube-node-lease",
            "uid": uid("lease", name),
            "resourceVersion": rv(),
            "creationTimestamp": ts(NODE_CREATED[name] + timedelta(seconds=1)),
            "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name,
                                 "uid": uid("node", name)}],
        },
        "spec": {
            "holderIdentity": name,
            "leaseDurationSeconds": 40,
            "renewTime": micro(renew, "lease", name),
        },
    }


def make_namespaces(items):
    """A Namespace for every namespace the other objects use, and kube-public, with the label the
    API server sets on each (`kubernetes.io/metadata.name`, what namespaceSelectors match)."""
    names = sorted({o["metadata"]["namespace"] for o in items if o["metadata"].get("namespace")} | {"kube-public"})
    return [{"apiVersion": "v1", "kind": "Namespace",
             "metadata": {"name": n, "uid": uid("namespace", n), "resourceVersion": rv(),
                          "creationTimestamp": "2026-03-02T09:13:58Z" if n.startswith("kube-") or n == "default"
                          else "2026-03-04T15:20:11Z",
                          "labels": {"kubernetes.io/metadata.name": n}},
             "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}} for n in names]


# --------------------------------------------------------------------------- workloads

def C(name, image, req=None, lim=None, ports=None, mounts=None, **extra):
    c = {"name": name, "image": image, "ports": ports or [], "req": req or {}, "lim": lim or {},
         "mounts": mounts or []}
    c.update(extra)
    return c


def W(ns, name, kind, nodes, containers, **kw):
    w = {"ns": ns, "name": name, "kind": kind, "nodes": nodes, "containers": containers}
    w.update(kw)
    return w


def port(n, p, proto="TCP", host=None):
    d = {"name": n, "containerPort": p, "protocol": proto}
    if host:
        d["hostPort"] = host
    return d


ALL_NODES = [n[0] for n in NODES]
SSD_REQUIRED = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [
        {"key": "disktype", "operator": "In", "values": ["ssd"]}]}]}}}
IMG = "ghcr.io/evictplan-demo/"

WORKLOADS = [
    # ---- DaemonSets (one pod per node; implicit DaemonSet tolerations added at pod level)
    W("kube-system", "kube-proxy", "DaemonSet", ALL_NODES,
      [C("kube-proxy", "registry.k8s.io/kube-proxy:v1.33.2", {"cpu": "100m"},
         mounts=["kube-proxy", "xtables-lock", "lib-modules"], ws=(24, 32))],
      labels={"k8s-app": "kube-proxy"}, hostNetwork=True, pc="system-node-critical",
      tolerations=[{"operator": "Exists"}],
      volumes=[{"name": "kube-proxy", "configMap": {"name": "kube-proxy", "defaultMode": 420}},
               {"name": "xtables-lock", "hostPath": {"path": "/run/xtables.lock", "type": "FileOrCreate"}},
               {"name": "lib-modules", "hostPath": {"path": "/lib/modules", "type": ""}}],
      created="2026-03-02T09:15:01Z"),
    W("kube-system", "calico-node", "DaemonSet", ALL_NODES,
      [C("calico-node", "docker.io/calico/node:v3.29.1", {"cpu": "250m"},
         mounts=["lib-modules", "var-run-calico", "cni-net-dir"], ws=(110, 160))],
      labels={"k8s-app": "calico-node"}, hostNetwork=True, pc="system-node-critical",
      tgps=5,
      tolerations=[{"effect": "NoSchedule", "operator": "Exists"},
                   {"key": "CriticalAddonsOnly", "operator": "Exists"},
                   {"effect": "NoExecute", "operator": "Exists"}],
      volumes=[{"name": "lib-modules", "hostPath": {"path": "/lib/modules", "type": ""}},
               {"name": "var-run-calico", "hostPath": {"path": "/var/run/calico", "type": "DirectoryOrCreate"}},
               {"name": "cni-net-dir", "hostPath": {"path": "/etc/cni/net.d", "type": ""}}],
      created="2026-03-02T09:15:40Z"),
    W("kube-system", "ebs-csi-node", "DaemonSet", ALL_NODES,
      [C("ebs-plugin", "public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.38.1",
         {"cpu": "10m", "memory": "40Mi"}, {"memory": "256Mi"}, mounts=["kubelet-dir"], ws=(18, 30)),
       C("node-driver-registrar", "public.ecr.aws/eks-distro/kubernetes-csi/node-driver-registrar:v2.12.0",
         {"cpu": "10m", "memory": "40Mi"}, {"memory": "256Mi"}, mounts=["registration-dir"], ws=(8, 12)),
       C("liveness-probe", "public.ecr.aws/eks-distro/kubernetes-csi/livenessprobe:v2.14.0",
         {"cpu": "10m", "memory": "40Mi"}, {"memory": "256Mi"}, mounts=[], ws=(7, 10))],
      labels={"app": "ebs-csi-node", "app.kubernetes.io/name": "aws-ebs-csi-driver"},
      pc="system-node-critical",
      tolerations=[{"operator": "Exists"}],
      volumes=[{"name": "kubelet-dir", "hostPath": {"path": "/var/lib/kubelet", "type": "Directory"}},
               {"name": "registration-dir", "hostPath": {"path": "/var/lib/kubelet/plugins_registry/", "type": "Directory"}}],
      created="2026-04-14T10:02:44Z"),
    W("monitoring", "node-exporter", "DaemonSet", ALL_NODES,
      [C("node-exporter", "quay.io/prometheus/node-exporter:v1.8.2",
         {"cpu": "100m", "memory": "64Mi"}, {"memory": "128Mi"},
         [port("metrics", 9100, host=9100)], ["proc", "sys", "root"], ws=(18, 30))],
      labels={"app.kubernetes.io/name": "node-exporter", "app.kubernetes.io/component": "exporter"},
      hostNetwork=True, hostPID=True,
      tolerations=[{"operator": "Exists"}],
      volumes=[{"name": "proc", "hostPath": {"path": "/proc", "type": ""}},
               {"name": "sys", "hostPath": {"path": "/sys", "type": ""}},
               {"name": "root", "hostPath": {"path": "/", "type": ""}}],
      created="2026-05-20T13:30:12Z"),
    W("logging", "fluent-bit", "DaemonSet", ALL_NODES,
      [C("fluent-bit", "cr.fluentbit.io/fluent/fluent-bit:3.2.2",
         {"cpu": "100m", "memory": "100Mi"}, {"memory": "200Mi"}, [port("http", 2020)],
         ["varlog", "config"], ws=(45, 70))],
      labels={"app.kubernetes.io/name": "fluent-bit", "app.kubernetes.io/instance": "fluent-bit"},
      tolerations=[{"operator": "Exists"}],
      volumes=[{"name": "varlog", "hostPath": {"path": "/var/log", "type": ""}},
               {"name": "config", "configMap": {"name": "fluent-bit", "defaultMode": 420}}],
      created="2026-05-20T13:41:50Z"),

    # ---- kube-system
    W("kube-system", "coredns", "Deployment", ["cp-1", "worker-b1"],
      [C("coredns", "registry.k8s.io/coredns/coredns:v1.12.0",
         {"cpu": "100m", "memory": "70Mi"}, {"memory": "170Mi"},
         [port("dns", 53, "UDP"), port("dns-tcp", 53), port("metrics", 9153)], ["config-volume"],
         ws=(28, 40))],
      labels={"k8s-app": "kube-dns"}, pc="system-cluster-critical", sa="coredns",
      nodeSelector={"kubernetes.io/os": "linux"}, dnsPolicy="Default",
      tolerations=[{"key": "CriticalAddonsOnly", "operator": "Exists"},
                   {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}],
      affinity={"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
          {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchExpressions": [
              {"key": "k8s-app", "operator": "In", "values": ["kube-dns"]}]},
              "topologyKey": "kubernetes.io/hostname"}}]}},
      volumes=[{"name": "config-volume", "configMap": {"name": "coredns", "items": [
          {"key": "Corefile", "path": "Corefile"}], "defaultMode": 420}}],
      pdb={"maxUnavailable": 1}, created="2026-03-02T09:15:05Z"),
    W("kube-system", "metrics-server", "Deployment", ["worker-b2"],
      [C("metrics-server", "registry.k8s.io/metrics-server/metrics-server:v0.7.2",
         {"cpu": "100m", "memory": "200Mi"}, None, [port("https", 10250)], ["tmp-dir"],
         ws=(350, 350))],
      labels={"k8s-app": "metrics-server"}, pc="system-cluster-critical", sa="metrics-server",
      nodeSelector={"kubernetes.io/os": "linux"},
      volumes=[{"name": "tmp-dir", "emptyDir": {}}], created="2026-03-02T09:20:33Z"),
    W("kube-system", "ebs-csi-controller", "Deployment", ["worker-a3", "worker-c1"],
      [C("ebs-plugin", "public.ecr.aws/ebs-csi-driver/aws-ebs-csi-driver:v1.38.1",
         {"cpu": "10m", "memory": "40Mi"}, {"memory": "256Mi"}, [port("healthz", 9808)], ["socket-dir"],
         ws=(22, 30)),
       C("csi-provisioner", "public.ecr.aws/eks-distro/kubernetes-csi/external-provisioner:v5.1.0",
         {"cpu": "10m", "memory": "40Mi"}, {"memory": "256Mi"}, mounts=["socket-dir"], ws=(20, 28)),
       C("csi-attacher", "public.ecr.aws/eks-distro/kubernetes-csi/external-attacher:v4.7.0",
         {"cpu": "10m", "memory": "40Mi"}, {"memory": "256Mi"}, mounts=["socket-dir"], ws=(18, 24))],
      labels={"app": "ebs-csi-controller", "app.kubernetes.io/name": "aws-ebs-csi-driver"},
      pc="system-cluster-critical", sa="ebs-csi-controller-sa",
      nodeSelector={"kubernetes.io/os": "linux"},
      tolerations=[{"key": "CriticalAddonsOnly", "operator": "Exists"}],
      volumes=[{"name": "socket-dir", "emptyDir": {}}],
      pdb={"maxUnavailable": 1}, created="2026-04-14T10:02:40Z"),

    # ---- shop
    W("shop", "frontend", "Deployment",
      ["worker-a1", "worker-a2", "worker-a3", "worker-b1", "worker-b2", "worker-b3",
       "worker-c1", "worker-c4", "worker-a3", "worker-b3"],
      [C("frontend", IMG + "frontend:1.14.2", {"cpu": "200m", "memory": "256Mi"},
         {"cpu": "1", "memory": "512Mi"}, [port("http", 8080)], ws=(140, 220))],
      labels={"app": "frontend", "tier": "web"}, nodeSelector={"kubernetes.io/os": "linux"},
      terminating={"worker-c2": 1}, replacement=9,
      pdb={"maxUnavailable": "25%"}, created="2026-11-18T09:12:00Z"),
    W("shop", "checkout", "Deployment", ["worker-a1", "worker-a1", "worker-b1"],
      [C("checkout", IMG + "checkout:3.2.0", {"cpu": "500m", "memory": "1Gi"},
         {"cpu": "500m", "memory": "1Gi"}, [port("http", 8080), port("grpc", 9090)], ws=(600, 700))],
      labels={"app": "checkout", "tier": "web"}, pc="high", tgps=60,
      pdb={"maxUnavailable": 1}, created="2026-11-19T14:40:00Z"),
    W("shop", "payments", "Deployment", ["worker-a1"],
      [C("payments", IMG + "payments:2.7.5", {"cpu": "500m", "memory": "1Gi"},
         {"cpu": "500m", "memory": "1Gi"}, [port("https", 8443)], ws=(510, 510))],
      labels={"app": "payments"}, pc="high", tgps=120,
      pdb={"minAvailable": 1}, created="2026-11-17T11:03:00Z"),
    W("shop", "cart", "Deployment", ["worker-a2", "worker-a3", "worker-b3", "worker-c4"],
      [C("cart", IMG + "cart:4.0.1", {"cpu": "200m", "memory": "384Mi"},
         {"memory": "768Mi"}, [port("http", 8080)], ws=(200, 300))],
      labels={"app": "cart", "track": "stable"},
      pdb={"minAvailable": "50%", "selector": {"app": "cart"}}, created="2026-11-16T10:00:00Z"),
    W("shop", "cart-canary", "Deployment", ["worker-a2"],
      [C("cart", IMG + "cart:4.1.0-rc.2", {"cpu": "200m", "memory": "384Mi"},
         {"memory": "768Mi"}, [port("http", 8080)], ws=(260, 260))],
      labels={"app": "cart", "track": "canary"},
      pdb={"maxUnavailable": 1, "selector": {"app": "cart", "track": "canary"}},
      created="2026-11-20T15:30:00Z"),
    W("shop", "catalog", "Deployment",
      ["worker-a2", "worker-a3", "worker-b1", "worker-b2", "worker-b3", "worker-c1",
       "worker-c4", "worker-c4"],
      [C("catalog", IMG + "catalog:5.3.3", {"cpu": "250m", "memory": "512Mi"},
         {"memory": "1Gi"}, [port("http", 8080)], ws=(300, 420))],
      labels={"app": "catalog", "tier": "api"}, terminating={"worker-c2": 1}, replacement=7,
      pdb={"minAvailable": "75%"}, created="2026-11-15T08:30:00Z"),
    W("shop", "search", "Deployment", ["worker-a1", "worker-a2", "worker-b1", "worker-c1"],
      [C("search", IMG + "search:2.9.0", {"cpu": "250m", "memory": "1Gi", "ephemeral-storage": "2Gi"},
         {"memory": "2Gi", "ephemeral-storage": "4Gi"}, [port("http", 9200)], ["scratch"],
         ws=(700, 900))],
      labels={"app": "search", "tier": "api"},
      affinity={"nodeAffinity": dict(SSD_REQUIRED["nodeAffinity"], **{
          "preferredDuringSchedulingIgnoredDuringExecution": [
              {"weight": 80, "preference": {"matchExpressions": [
                  {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["eu-west-1a"]}]}},
              {"weight": 20, "preference": {"matchExpressions": [
                  {"key": "node.kubernetes.io/instance-type", "operator": "In",
                   "values": ["m5.2xlarge", "m5.4xlarge"]}]}}]})},
      volumes=[{"name": "scratch", "emptyDir": {"sizeLimit": "1Gi"}}],
      pdb={"maxUnavailable": "50%"}, created="2026-11-14T12:00:00Z"),
    W("shop", "orders-api", "Deployment", ["worker-b2", "worker-a3", "worker-c4"],
      [C("orders-api", IMG + "orders-api:7.1.0", {"cpu": "200m", "memory": "1Gi"},
         {"memory": "2Gi"}, [port("http", 8080)], ws=(800, 900))],
      labels={"app": "orders-api", "tier": "api"}, pc="high",
      pdb={"minAvailable": 2}, created="2026-11-18T16:45:00Z"),
    W("shop", "recommender", "Deployment", ["worker-b2", "worker-a2"],
      [C("recommender", IMG + "recommender:0.19.4", ports=[port("http", 8080)], ws=(300, 450))],
      labels={"app": "recommender"}, created="2026-11-13T09:00:00Z"),
    W("shop", "image-resizer", "Deployment", ["worker-b2", "worker-c1"],
      [C("image-resizer", IMG + "image-resizer:1.3.0", {"cpu": "100m", "memory": "256Mi"},
         {"memory": "1Gi"}, [port("http", 8080)], ws=(200, 230))],
      labels={"app": "image-resizer"}, created="2026-11-13T09:05:00Z"),
    W("shop", "reviews", "Deployment",
      ["worker-a1", "worker-a2", "worker-a3", "worker-b3", "worker-c1", "worker-c4"],
      [C("reviews", IMG + "reviews:2.0.8", {"cpu": "100m", "memory": "256Mi"},
         {"memory": "512Mi"}, [port("http", 9080)], ws=(150, 200))],
      labels={"app": "reviews", "tier": "api"}, crashloop=[0],
      pdb={"maxUnavailable": 1, "unhealthyPodEvictionPolicy": "AlwaysAllow"},
      created="2026-11-20T08:15:00Z"),
    W("shop", "auth", "Deployment", ["worker-a2", "worker-b1", "worker-b3", "worker-c4"],
      [C("auth", IMG + "auth:3.4.1", {"cpu": "150m", "memory": "256Mi"},
         {"cpu": "150m", "memory": "256Mi"}, [port("http", 8080)], ws=(120, 180))],
      labels={"app": "auth", "tier": "api"},
      pdb={"minAvailable": "50%"}, created="2026-11-11T07:20:00Z"),
    W("shop", "inventory", "Deployment",
      ["worker-a2", "worker-a3", "worker-b1", "worker-b3", "worker-c1", "worker-c4"],
      [C("inventory", IMG + "inventory:1.8.0", {"cpu": "100m", "memory": "192Mi"},
         {"memory": "384Mi"}, [port("http", 8080)], ws=(100, 160))],
      labels={"app": "inventory", "tier": "api"},
      pdb={"maxUnavailable": "20%"}, created="2026-11-10T13:00:00Z"),
    W("shop", "shipping", "Deployment", ["worker-a3", "worker-b3", "worker-c1", "worker-c4"],
      [C("shipping", IMG + "shipping:0.9.12", {"cpu": "100m", "memory": "128Mi"},
         {"memory": "256Mi"}, [port("http", 8080)], ws=(60, 110))],
      labels={"app": "shipping"}, created="2026-11-10T13:05:00Z"),
    W("shop", "email", "Deployment", ["worker-a2", "worker-b3", "worker-c4"],
      [C("email", IMG + "email:1.1.4", {"cpu": "50m", "memory": "128Mi"},
         {"memory": "256Mi"}, ws=(50, 80))],
      labels={"app": "email"}, created="2026-11-10T13:10:00Z"),
    W("shop", "notifier", "Deployment", ["worker-b3"],
      [C("notifier", IMG + "notifier:2.2.0", {"cpu": "50m", "memory": "64Mi"},
         {"memory": "128Mi"}, ws=(40, 40))],
      labels={"app": "notifier"}, tolerationSeconds=60, created="2026-11-12T10:00:00Z"),
    W("shop", "ledger", "Deployment", ["worker-b1"],
      [C("ledger", IMG + "ledger:1.0.3", {"cpu": "200m", "memory": "512Mi"},
         {"cpu": "200m", "memory": "512Mi"}, [port("grpc", 9090)], ws=(300, 300))],
      labels={"app": "ledger"}, affinity=SSD_REQUIRED,
      annotations={"evictplan.io/node-affinity": "RequiredDuringExecution"},
      tgps=60, created="2026-11-12T10:30:00Z"),

    # ---- ingress
    W("ingress", "ingress-nginx-controller", "Deployment", ["worker-a2", "worker-b3"],
      [C("controller", "registry.k8s.io/ingress-nginx/controller:v1.12.0",
         {"cpu": "100m", "memory": "90Mi"}, None,
         [port("http", 80, host=80), port("https", 443, host=443), port("metrics", 10254)],
         ws=(110, 150))],
      labels={"app.kubernetes.io/name": "ingress-nginx", "app.kubernetes.io/component": "controller"},
      nodeSelector={"kubernetes.io/os": "linux"}, tgps=300, sa="ingress-nginx",
      pdb={"minAvailable": 1}, created="2026-06-03T11:11:11Z"),

    # ---- data
    W("data", "cache", "Deployment", ["worker-a1", "worker-b1", "worker-c1"],
      [C("redis", "docker.io/library/redis:7.4.1", {"cpu": "250m", "memory": "2Gi"},
         {"cpu": "250m", "memory": "2Gi"}, [port("redis", 6379)], ["cache-data"], ws=(1100, 1300))],
      labels={"app": "cache"},
      affinity={"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
          {"labelSelector": {"matchLabels": {"app": "cache"}},
           "topologyKey": "kubernetes.io/hostname"}]}},
      volumes=[{"name": "cache-data", "emptyDir": {"medium": "Memory", "sizeLimit": "512Mi"}}],
      pdb={"maxUnavailable": 1}, created="2026-11-12T12:00:00Z"),
    W("data", "postgres", "StatefulSet", ["worker-a2", "worker-b3", "worker-c2"],
      [C("postgres", "docker.io/bitnami/postgresql:17.2.0", {"cpu": "500m", "memory": "2Gi"},
         {"cpu": "500m", "memory": "2Gi"}, [port("tcp-postgresql", 5432)], ["data", "dshm"],
         ws=(1500, 1800))],
      labels={"app.kubernetes.io/name": "postgres", "app.kubernetes.io/component": "primary"},
      tgps=120, terminating_idx=[2],
      volumes=[{"name": "dshm", "emptyDir": {"medium": "Memory"}}],
      pdb={"minAvailable": 2}, created="2026-11-12T12:10:00Z"),
    W("data", "queue-worker", "Deployment", ["worker-c2", "worker-a3"],
      [C("worker", IMG + "queue-worker:6.0.2", {"cpu": "200m", "memory": "512Mi"},
         {"memory": "1Gi"}, ws=(280, 340))],
      labels={"app": "queue-worker"}, tolerationSeconds=1800, created="2026-11-13T07:45:00Z"),

    # ---- batch
    W("batch", "etl-worker", "Deployment", ["worker-b2", "worker-c4"],
      [C("etl", IMG + "etl:2026.11.3", {"cpu": "100m", "memory": "512Mi"},
         {"memory": "2Gi"}, ws=(600, 900))],
      labels={"app": "etl-worker"}, pc="batch-low", created="2026-11-20T22:00:00Z"),
    W("batch", "nightly-report", "Job", ["worker-a1", "worker-a3"],
      [C("report", IMG + "report:4.4.0", {"cpu": "250m", "memory": "512Mi"},
         {"memory": "1Gi"}, ws=(380, 380))],
      pc="batch-low", created="2026-11-21T02:00:00Z"),

    # ---- analytics / monitoring / ml
    W("analytics", "spark-driver", "Deployment", ["worker-a1"],
      [C("driver", "docker.io/apache/spark:3.5.3", {"cpu": "2", "memory": "20Gi"},
         {"cpu": "2", "memory": "20Gi"}, [port("ui", 4040), port("driver-rpc", 7078)],
         ws=(14000, 14000))],
      labels={"app": "spark-driver"}, nodeSelector={"disktype": "ssd"}, tgps=60,
      created="2026-11-19T06:00:00Z"),
    W("monitoring", "kube-state-metrics", "Deployment", ["worker-c1"],
      [C("kube-state-metrics", "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.14.0",
         {"cpu": "10m", "memory": "190Mi"}, {"memory": "250Mi"}, [port("http-metrics", 8080)],
         ws=(95, 95))],
      labels={"app.kubernetes.io/name": "kube-state-metrics"},
      nodeSelector={"kubernetes.io/os": "linux"}, created="2026-05-20T13:30:00Z"),
    W("monitoring", "grafana", "Deployment", ["worker-a3"],
      [C("grafana", "docker.io/grafana/grafana:11.4.0", {"cpu": "100m", "memory": "256Mi"},
         {"memory": "512Mi"}, [port("http", 3000)], ["storage"], ws=(160, 160))],
      labels={"app.kubernetes.io/name": "grafana"},
      volumes=[{"name": "storage", "emptyDir": {}}], created="2026-05-20T13:32:00Z"),
    W("ml", "inference", "Deployment", ["gpu-1"],
      [C("triton", "nvcr.io/nvidia/tritonserver:24.11-py3",
         {"cpu": "4", "memory": "24Gi", "nvidia.com/gpu": "1"},
         {"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "1"},
         [port("http", 8000), port("grpc", 8001), port("metrics", 8002)], ["model-cache"],
         ws=(18500, 18500))],
      labels={"app": "inference"}, pc="high", tgps=120,
      tolerations=[{"key": "nvidia.com/gpu", "operator": "Equal", "value": "true",
                    "effect": "NoSchedule"}],
      volumes=[{"name": "model-cache", "emptyDir": {"sizeLimit": "50Gi"}}],
      created="2026-11-05T09:00:00Z"),

    # ---- unmanaged pods (no ownerReferences)
    W("default", "debug-shell", "Pod", ["worker-a1"],
      [C("shell", "docker.io/library/ubuntu:24.04", mounts=["host"], command=["sleep", "infinity"],
         ws=(3, 3))],
      labels={"run": "debug-shell"},
      volumes=[{"name": "host", "hostPath": {"path": "/", "type": ""}}],
      created="2026-11-21T09:47:12Z"),
    W("default", "netshoot", "Pod", ["worker-b3"],
      [C("netshoot", "docker.io/nicolaka/netshoot:v0.13", command=["sleep", "86400"], ws=(4, 4))],
      labels={"run": "netshoot"}, created="2026-11-21T10:05:40Z"),
    W("shop", "legacy-cron", "Pod", [CORDONED],
      [C("cron", IMG + "legacy-cron:0.3.1", {"cpu": "50m", "memory": "64Mi"},
         {"memory": "128Mi"}, ws=(30, 30))],
      labels={"app": "legacy-cron"}, created="2026-11-12T09:30:00Z"),

    # ---- placement showcase (`drain worker-c4`): a StatefulSet pod held by its volume's zone,
    # and a preemption. data/ledger-db-0's PersistentVolume lives in zone c (node affinity), so
    # its replacement can only run on worker-c1 (c2 is NotReady, c3 cordoned); worker-c1 has
    # 3.1Gi left because of batch/backfill (batch-low, priority -10), so the scheduler preempts
    # backfill (a `delete` by the scheduler) and backfill's own replacement goes to zone a/b.
    W("data", "ledger-db", "StatefulSet", ["worker-c4"],
      [C("db", IMG + "ledger-db:3.1.0", {"cpu": "100m", "memory": "4Gi"}, {"memory": "4Gi"},
         [port("tcp-db", 5432)], ["data"], ws=(2600, 2800))],
      labels={"app": "ledger-db"}, tgps=60, created="2026-11-15T10:00:00Z"),
    W("batch", "backfill", "Deployment", ["worker-c1"],
      [C("backfill", IMG + "backfill:1.0.0", {"cpu": "100m", "memory": "6Gi"}, {"memory": "6Gi"},
         ws=(4200, 4400))],
      labels={"app": "backfill"}, pc="batch-low", created="2026-11-20T23:00:00Z"),
]

# ---- static (mirror) pods on cp-1
STATIC = [
    ("etcd", "registry.k8s.io/etcd:3.5.21-0", {"cpu": "100m", "memory": "100Mi"},
     [("etcd-certs", "/etc/kubernetes/pki/etcd", "DirectoryOrCreate"),
      ("etcd-data", "/var/lib/etcd", "DirectoryOrCreate")]),
    ("kube-apiserver", "registry.k8s.io/kube-apiserver:v1.33.2", {"cpu": "250m"},
     [("ca-certs", "/etc/ssl/certs", "DirectoryOrCreate"),
      ("k8s-certs", "/etc/kubernetes/pki", "DirectoryOrCreate")]),
    ("kube-controller-manager", "registry.k8s.io/kube-controller-manager:v1.33.2", {"cpu": "200m"},
     [("ca-certs", "/etc/ssl/certs", "DirectoryOrCreate"),
      ("kubeconfig", "/etc/kubernetes/controller-manager.conf", "FileOrCreate")]),
    ("kube-scheduler", "registry.k8s.io/kube-scheduler:v1.33.2", {"cpu": "100m"},
     [("kubeconfig", "/etc/kubernetes/scheduler.conf", "FileOrCreate")]),
]

PRIORITY = {"system-cluster-critical": 2000000000, "system-node-critical": 2000001000,
            "high": 100000, "batch-low": -10, "standard": 1000}

DS_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
]


def default_tolerations(existing, seconds=300):
    """DefaultTolerationSeconds admission: add not-ready/unreachable unless already tolerated."""
    out = list(existing)
    for key in ("node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"):
        if any(t.get("key", "") in ("", key) and t.get("effect", "") in ("", "NoExecute") for t in existing):
            continue
        out.append({"key": key, "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": seconds})
    return out


def qos(containers):
    req_any = lim_any = False
    guaranteed = True
    for c in containers:
        r = {k: v for k, v in c["req"].items() if k in ("cpu", "memory")}
        l = {k: v for k, v in c["lim"].items() if k in ("cpu", "memory")}
        req = dict(l)
        req.update(r)  # API defaulting copies limits into missing requests
        if req:
            req_any = True
        if l:
            lim_any = True
        if set(l) != {"cpu", "memory"} or req != l:
            guaranteed = False
    if not req_any and not lim_any:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def resources(c):
    req = dict(c["lim"])  # defaulting: limits copied into missing requests
    req.update(c["req"])
    r = {}
    if c["lim"]:
        r["limits"] = dict(c["lim"])
    if req:
        r["requests"] = req
    return r


def api_access_volume(name):
    return {"name": name, "projected": {"sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
        {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {
            "apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}}], "defaultMode": 420}}


MOUNT_PATHS = {"scratch": "/var/cache/search", "cache-data": "/data", "data": "/bitnami/postgresql",
               "dshm": "/dev/shm", "tmp-dir": "/tmp", "socket-dir": "/var/lib/csi/sockets/pluginproxy/",
               "storage": "/var/lib/grafana", "model-cache": "/models", "host": "/host",
               "config-volume": "/etc/coredns", "kube-proxy": "/var/lib/kube-proxy",
               "xtables-lock": "/run/xtables.lock", "lib-modules": "/lib/modules",
               "var-run-calico": "/var/run/calico", "cni-net-dir": "/host/etc/cni/net.d",
               "kubelet-dir": "/var/lib/kubelet", "registration-dir": "/registration",
               "proc": "/host/proc", "sys": "/host/sys", "root": "/host/root",
               "varlog": "/var/log", "config": "/fluent-bit/etc/"}


def container_spec(c, api_vol):
    d = {"name": c["name"], "image": c["image"]}
    if c.get("command"):
        d["command"] = c["command"]
    if c["ports"]:
        d["ports"] = c["ports"]
    d["resources"] = resources(c)
    mounts = [{"name": m, "mountPath": MOUNT_PATHS[m]} for m in c["mounts"]]
    if api_vol:
        mounts.append({"name": api_vol, "readOnly": True,
                       "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"})
    if mounts:
        d["volumeMounts"] = mounts
    d["terminationMessagePath"] = "/dev/termination-log"
    d["terminationMessagePolicy"] = "File"
    d["imagePullPolicy"] = "IfNotPresent"
    return d


def template_spec(w):
    """Pod spec as written by the user (what controllers carry in spec.template.spec)."""
    spec = {}
    if w.get("volumes"):
        spec["volumes"] = list(w["volumes"])
    spec["containers"] = [container_spec(c, None) for c in w["containers"]]
    spec["restartPolicy"] = "OnFailure" if w["kind"] == "Job" else "Always"
    spec["terminationGracePeriodSeconds"] = w.get("tgps", 30)
    spec["dnsPolicy"] = w.get("dnsPolicy", "ClusterFirst")
    if w.get("nodeSelector"):
        spec["nodeSelector"] = dict(w["nodeSelector"])
    spec["serviceAccountName"] = w.get("sa", "default")
    if w.get("hostNetwork"):
        spec["hostNetwork"] = True
    if w.get("hostPID"):
        spec["hostPID"] = True
    spec["securityContext"] = {}
    if w.get("affinity"):
        spec["affinity"] = w["affinity"]
    spec["schedulerName"] = "default-scheduler"
    tol = list(w.get("tolerations", []))
    if w.get("tolerationSeconds"):
        s = w["tolerationSeconds"]
        tol += [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                 "tolerationSeconds": s},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
                 "tolerationSeconds": s}]
    if tol:
        spec["tolerations"] = tol
    if w.get("pc"):
        spec["priorityClassName"] = w["pc"]
    return spec


# --------------------------------------------------------------------------- build pods

PODS = []  # (pod object, meta dict for stats)
ip_counter = {}


def pod_ip(node, host_network):
    if host_network:
        return node_ip(node)
    n = ip_counter.get(node, 2)
    ip_counter[node] = n + 1
    return "10.244.%d.%d" % (NODE_INDEX[node], n)


def build_pod(w, name, node, idx, owner, created, extra_labels, term=False, phase="Running",
              crash=False, static_hash=None):
    ns = w["ns"]
    puid = uid("pod", ns, name)
    api_vol = None if static_hash else "kube-api-access-" + suffix(5, "api", ns, name)
    spec = {}
    vols = list(w.get("volumes", []))
    if w["kind"] == "StatefulSet":
        vols = [{"name": "data", "persistentVolumeClaim": {"claimName": "data-" + name}}] + vols
    if api_vol:
        vols.append(api_access_volume(api_vol))
    if vols:
        spec["volumes"] = vols
    spec["containers"] = [container_spec(c, api_vol) for c in w["containers"]]
    spec["restartPolicy"] = "OnFailure" if w["kind"] == "Job" else "Always"
    spec["terminationGracePeriodSeconds"] = w.get("tgps", 30)
    spec["dnsPolicy"] = w.get("dnsPolicy", "ClusterFirst")
    if w.get("nodeSelector"):
        spec["nodeSelector"] = dict(w["nodeSelector"])
    if not static_hash:
        spec["serviceAccountName"] = w.get("sa", "default")
        spec["serviceAccount"] = w.get("sa", "default")
    spec["nodeName"] = node
    if w.get("hostNetwork"):
        spec["hostNetwork"] = True
    if w.get("hostPID"):
        spec["hostPID"] = True
    spec["securityContext"] = {"seccompProfile": {"type": "RuntimeDefault"}} if static_hash else {}
    if w["kind"] == "StatefulSet":
        spec["hostname"] = name
        spec["subdomain"] = w["name"] + "-hl"
    affinity = w.get("affinity")
    if w["kind"] == "DaemonSet":
        affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": [node]}]}]}}}
    if affinity:
        spec["affinity"] = affinity
    spec["schedulerName"] = "default-scheduler"
    tol = list(template_spec(w).get("tolerations", []))
    if static_hash:
        tol = [{"operator": "Exists", "effect": "NoExecute"}]
    elif w["kind"] == "DaemonSet":
        tol = tol + DS_TOLERATIONS
        if w.get("hostNetwork"):
            tol.append({"key": "node.kubernetes.io/network-unavailable", "operator": "Exists",
                        "effect": "NoSchedule"})
    else:
        tol = default_tolerations(tol)
    spec["tolerations"] = tol
    pc = w.get("pc")
    if pc:
        spec["priorityClassName"] = pc
    spec["priority"] = PRIORITY.get(pc, 0)
    spec["enableServiceLinks"] = True
    spec["preemptionPolicy"] = "Never" if pc == "batch-low" else "PreemptLowerPriority"

    labels = dict(w.get("labels", {}))
    labels.update(extra_labels)
    meta = {"name": name}
    if owner and w["kind"] != "StatefulSet" and not static_hash:
        meta["generateName"] = name[:-5]
    meta["namespace"] = ns
    meta["uid"] = puid
    meta["resourceVersion"] = rv()
    meta["generation"] = 1
    meta["creationTimestamp"] = ts(created)
    if term:
        meta["deletionTimestamp"] = ts(C2_DELETED + timedelta(seconds=spec["terminationGracePeriodSeconds"]))
        meta["deletionGracePeriodSeconds"] = spec["terminationGracePeriodSeconds"]
        meta["generation"] = 2
    meta["labels"] = labels
    ann = dict(w.get("annotations", {}))
    if static_hash:
        ann.update({"kubernetes.io/config.hash": static_hash, "kubernetes.io/config.mirror": static_hash,
                    "kubernetes.io/config.seen": micro(created - timedelta(seconds=4), "seen", name)[:-1] + "123Z",
                    "kubernetes.io/config.source": "file"})
        if w["name"] == "etcd":
            ann["kubeadm.kubernetes.io/etcd.advertise-client-urls"] = "https://%s:2379" % node_ip(node)
        if w["name"] == "kube-apiserver":
            ann["kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint"] = "%s:6443" % node_ip(node)
    if ann:
        meta["annotations"] = dict(sorted(ann.items()))
    if owner:
        meta["ownerReferences"] = [owner]

    # ---- status
    start = created + timedelta(seconds=1)
    sched = ts(created)
    init = ts(created + timedelta(seconds=2))
    running_at = created + timedelta(seconds=6 + h("run", name) % 20)
    host_net = bool(w.get("hostNetwork") or static_hash)
    hip = node_ip(node)
    pip = pod_ip(node, host_net)
    ready = not (crash or phase != "Running" or node == NOT_READY)
    conds = []
    if phase == "Succeeded":
        done = created + timedelta(minutes=41, seconds=h("job", name) % 50)
        conds = [
            {"type": "PodReadyToStartContainers", "status": "False", "lastProbeTime": None,
             "lastTransitionTime": ts(done + timedelta(seconds=1))},
            {"type": "Initialized", "status": "True", "lastProbeTime": None, "lastTransitionTime": init,
             "reason": "PodCompleted"},
            {"type": "Ready", "status": "False", "lastProbeTime": None, "lastTransitionTime": ts(done),
             "reason": "PodCompleted"},
            {"type": "ContainersReady", "status": "False", "lastProbeTime": None,
             "lastTransitionTime": ts(done), "reason": "PodCompleted"},
            {"type": "PodScheduled", "status": "True", "lastProbeTime": None, "lastTransitionTime": sched},
        ]
    else:
        if term:
            conds.append({"type": "DisruptionTarget", "status": "True", "lastProbeTime": None,
                          "lastTransitionTime": ts(C2_DELETED), "reason": "DeletionByTaintManager",
                          "message": "Taint manager: deleting due to NoExecute taint"})
        conds.append({"type": "PodReadyToStartContainers", "status": "True", "lastProbeTime": None,
                      "lastTransitionTime": ts(created + timedelta(seconds=3))})
        conds.append({"type": "Initialized", "status": "True", "lastProbeTime": None,
                      "lastTransitionTime": init})
        if crash:
            msg = "containers with unready status: [%s]" % w["containers"][0]["name"]
            conds.append({"type": "Ready", "status": "False", "lastProbeTime": None,
                          "lastTransitionTime": "2026-11-21T11:12:40Z", "reason": "ContainersNotReady",
                          "message": msg})
            conds.append({"type": "ContainersReady", "status": "False", "lastProbeTime": None,
                          "lastTransitionTime": "2026-11-21T11:12:40Z", "reason": "ContainersNotReady",
                          "message": msg})
        else:
            if node == NOT_READY:
                conds.append({"type": "Ready", "status": "False", "lastProbeTime": None,
                              "lastTransitionTime": ts(C2_UNKNOWN)})
            else:
                conds.append({"type": "Ready", "status": "True", "lastProbeTime": None,
                              "lastTransitionTime": ts(running_at)})
            conds.append({"type": "ContainersReady", "status": "True", "lastProbeTime": None,
                          "lastTransitionTime": ts(running_at)})
        conds.append({"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                      "lastTransitionTime": sched})
    cstat = []
    for c in w["containers"]:
        cid = "containerd://" + hexid(64, "cid", ns, name, c["name"])
        st = {"name": c["name"]}
        if phase == "Succeeded":
            st["state"] = {"terminated": {"exitCode": 0, "reason": "Completed",
                                          "startedAt": ts(start + timedelta(seconds=3)),
                                          "finishedAt": ts(created + timedelta(minutes=41)),
                                          "containerID": cid}}
            st["lastState"] = {}
            st["ready"] = False
            st["restartCount"] = 0
            st["started"] = False
        elif crash:
            st["state"] = {"waiting": {"reason": "CrashLoopBackOff",
                                       "message": "back-off 5m0s restarting failed container=%s pod=%s_%s(%s)"
                                                  % (c["name"], name, ns, puid)}}
            st["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error",
                                              "startedAt": "2026-11-21T11:56:31Z",
                                              "finishedAt": "2026-11-21T11:56:44Z",
                                              "containerID": cid}}
            st["ready"] = False
            st["restartCount"] = 14
            st["started"] = False
        else:
            st["state"] = {"running": {"startedAt": ts(start + timedelta(seconds=3))}}
            st["lastState"] = {}
            st["ready"] = True
            st["restartCount"] = 0
            st["started"] = True
        st["image"] = c["image"]
        st["imageID"] = c["image"].rsplit(":", 1)[0] + "@sha256:" + hexid(64, "img", c["image"])
        st["containerID"] = cid
        res = resources(c)
        if res.get("requests"):
            st["allocatedResources"] = dict(res["requests"])
        st["resources"] = res
        cstat.append(st)
    status = {"phase": phase, "conditions": conds, "hostIP": hip, "hostIPs": [{"ip": hip}]}
    if phase == "Running":
        status["podIP"] = pip
        status["podIPs"] = [{"ip": pip}]
    status["startTime"] = ts(start)
    status["containerStatuses"] = cstat
    status["qosClass"] = qos(w["containers"])
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}
    PODS.append((pod, {"w": w, "node": node, "idx": idx, "phase": phase, "term": term,
                       "crash": crash, "created": created}))
    return pod


def owner_ref(api, kind, name, ouid):
    return {"apiVersion": api, "kind": kind, "name": name, "uid": ouid, "controller": True,
            "blockOwnerDeletion": True}


CONTROLLERS = []  # controller objects (DaemonSet, Deployment, ReplicaSet, StatefulSet, Job)
PVS = []


def pod_created(w, node, i):
    base = at(w["created"])
    nc = NODE_CREATED[node] + timedelta(minutes=2)
    t = max(base, nc) + timedelta(seconds=h("pc", w["ns"], w["name"], i) % 600)
    return t


def make_workload(w):
    ns, name, kind = w["ns"], w["name"], w["kind"]
    created = at(w["created"])
    sel = dict(w.get("labels", {}))
    if kind == "DaemonSet":
        ds_uid = uid("ds", ns, name)
        rev = suffix(10, "rev", ns, name)
        own = owner_ref("apps/v1", "DaemonSet", name, ds_uid)
        n = len(w["nodes"])
        ready_n = sum(1 for nd in w["nodes"] if nd != NOT_READY)
        for i, node in enumerate(w["nodes"]):
            pname = "%s-%s" % (name, suffix(5, "dspod", ns, name, node))
            build_pod(w, pname, node, i, own, pod_created(w, node, i),
                      {"controller-revision-hash": rev, "pod-template-generation": "1"})
        tspec = template_spec(w)
        CONTROLLERS.append({
            "apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": name, "namespace": ns, "uid": ds_uid, "resourceVersion": rv(),
                         "generation": 1, "creationTimestamp": ts(created), "labels": sel,
                         "annotations": {"deprecated.daemonset.template.generation": "1"}},
            "spec": {"selector": {"matchLabels": sel},
                     "template": {"metadata": {"labels": sel}, "spec": tspec},
                     "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {
                         "maxUnavailable": 1, "maxSurge": 0}},
                     "revisionHistoryLimit": 10},
            "status": {"currentNumberScheduled": n, "numberMisscheduled": 0,
                       "desiredNumberScheduled": n, "numberReady": ready_n, "observedGeneration": 1,
                       "updatedNumberScheduled": n, "numberAvailable": ready_n,
                       "numberUnavailable": n - ready_n}})
    elif kind == "Deployment":
        d_uid = uid("deploy", ns, name)
        tmpl_hash = suffix(10, "rs", ns, name)
        rs_name = "%s-%s" % (name, tmpl_hash)
        rs_uid = uid("rs", ns, rs_name)
        own = owner_ref("apps/v1", "ReplicaSet", rs_name, rs_uid)
        replicas = len(w["nodes"])
        ready = 0
        for i, node in enumerate(w["nodes"]):
            pname = "%s-%s" % (rs_name, suffix(5, "pod", ns, name, i))
            crash = i in w.get("crashloop", [])
            if not crash and node != NOT_READY:
                ready += 1
            pc = pod_created(w, node, i)
            if w.get("replacement") == i:  # replacement for the pod stuck on worker-c2
                pc = C2_DELETED + timedelta(seconds=1)
            build_pod(w, pname, node, i, own, pc, {"pod-template-hash": tmpl_hash}, crash=crash)
        for node, cnt in w.get("terminating", {}).items():
            for j in range(cnt):
                i = len(w["nodes"]) + j
                pname = "%s-%s" % (rs_name, suffix(5, "pod", ns, name, i))
                build_pod(w, pname, node, i, own, pod_created(w, node, i),
                          {"pod-template-hash": tmpl_hash}, term=True)
        tspec = template_spec(w)
        tmeta = {"labels": dict(sel)}
        if w.get("annotations"):
            tmeta["annotations"] = dict(w["annotations"])
        unavailable = replicas - ready
        dep = {
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "namespace": ns, "uid": d_uid, "resourceVersion": rv(),
                         "generation": 1, "creationTimestamp": ts(created), "labels": dict(sel),
                         "annotations": {"deployment.kubernetes.io/revision": "1"}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": sel},
                     "template": {"metadata": tmeta, "spec": tspec},
                     "strategy": {"type": "RollingUpdate",
                                  "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
                     "revisionHistoryLimit": 10, "progressDeadlineSeconds": 600},
            "status": {"observedGeneration": 1, "replicas": replicas, "updatedReplicas": replicas,
                       "readyReplicas": ready, "availableReplicas": ready,
                       "conditions": [
                           {"type": "Available", "status": "True" if ready >= replicas - (replicas + 3) // 4 else "False",
                            "lastUpdateTime": ts(created + timedelta(minutes=1)),
                            "lastTransitionTime": ts(created + timedelta(minutes=1)),
                            "reason": "MinimumReplicasAvailable",
                            "message": "Deployment has minimum availability."},
                           {"type": "Progressing", "status": "True",
                            "lastUpdateTime": ts(created + timedelta(minutes=1)),
                            "lastTransitionTime": ts(created),
                            "reason": "NewReplicaSetAvailable",
                            "message": 'ReplicaSet "%s" has successfully progressed.' % rs_name}]}}
        if unavailable:
            dep["status"]["unavailableReplicas"] = unavailable
        rsl = dict(sel)
        rsl["pod-template-hash"] = tmpl_hash
        rtm = {"labels": rsl}
        if w.get("annotations"):
            rtm["annotations"] = dict(w["annotations"])
        rs = {
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": rs_name, "namespace": ns, "uid": rs_uid, "resourceVersion": rv(),
                         "generation": 1, "creationTimestamp": ts(created), "labels": rsl,
                         "annotations": {"deployment.kubernetes.io/desired-replicas": str(replicas),
                                         "deployment.kubernetes.io/max-replicas": str(replicas + (replicas + 3) // 4),
                                         "deployment.kubernetes.io/revision": "1"},
                         "ownerReferences": [owner_ref("apps/v1", "Deployment", name, d_uid)]},
            "spec": {"replicas": replicas,
                     "selector": {"matchLabels": rsl},
                     "template": {"metadata": rtm, "spec": tspec}},
            "status": {"replicas": replicas, "fullyLabeledReplicas": replicas, "readyReplicas": ready,
                       "availableReplicas": ready, "observedGeneration": 1}}
        CONTROLLERS.append(dep)
        CONTROLLERS.append(rs)
    elif kind == "StatefulSet":
        s_uid = uid("sts", ns, name)
        rev = "%s-%s" % (name, suffix(10, "stsrev", ns, name))
        own = owner_ref("apps/v1", "StatefulSet", name, s_uid)
        ready = 0
        for i, node in enumerate(w["nodes"]):
            pname = "%s-%d" % (name, i)
            term = i in w.get("terminating_idx", [])
            if node != NOT_READY:
                ready += 1
            build_pod(w, pname, node, i, own, pod_created(w, node, i),
                      {"apps.kubernetes.io/pod-index": str(i), "controller-revision-hash": rev,
                       "statefulset.kubernetes.io/pod-name": pname}, term=term)
            make_pv(ns, "data-" + pname, node, pod_created(w, node, i))
        tspec = template_spec(w)
        n = len(w["nodes"])
        CONTROLLERS.append({
            "apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": name, "namespace": ns, "uid": s_uid, "resourceVersion": rv(),
                         "generation": 1, "creationTimestamp": ts(created), "labels": dict(sel)},
            "spec": {"replicas": n, "selector": {"matchLabels": sel},
                     "template": {"metadata": {"labels": dict(sel)}, "spec": tspec},
                     "volumeClaimTemplates": [{
                         "apiVersion": "v1", "kind": "PersistentVolumeClaim",
                         "metadata": {"name": "data"},
                         "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "gp3",
                                  "resources": {"requests": {"storage": "50Gi"}},
                                  "volumeMode": "Filesystem"},
                         "status": {"phase": "Pending"}}],
                     "serviceName": name + "-hl", "podManagementPolicy": "OrderedReady",
                     "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}},
                     "revisionHistoryLimit": 10,
                     "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Retain", "whenScaled": "Retain"}},
            "status": {"observedGeneration": 1, "replicas": n, "readyReplicas": ready,
                       "currentReplicas": n, "updatedReplicas": n, "currentRevision": rev,
                       "updateRevision": rev, "collisionCount": 0, "availableReplicas": ready}})
    elif kind == "Job":
        j_uid = uid("job", ns, name)
        own = owner_ref("batch/v1", "Job", name, j_uid)
        jl = {"batch.kubernetes.io/controller-uid": j_uid, "batch.kubernetes.io/job-name": name,
              "controller-uid": j_uid, "job-name": name}
        for i, node in enumerate(w["nodes"]):
            pname = "%s-%s" % (name, suffix(5, "jobpod", ns, name, i))
            pc = created + timedelta(seconds=2) if i == 0 else created + timedelta(minutes=42, seconds=9)
            build_pod(w, pname, node, i, own, pc, dict(jl), phase="Succeeded" if i == 0 else "Running")
        tspec = template_spec(w)
        CONTROLLERS.append({
            "apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": ns, "uid": j_uid, "resourceVersion": rv(),
                         "generation": 1, "creationTimestamp": ts(created), "labels": dict(jl)},
            "spec": {"parallelism": 1, "completions": 2, "completionMode": "NonIndexed",
                     "backoffLimit": 6, "manualSelector": False, "suspend": False,
                     "podReplacementPolicy": "TerminatingOrFailed",
                     "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": j_uid}},
                     "template": {"metadata": {"labels": dict(jl)}, "spec": tspec}},
            "status": {"startTime": ts(created), "active": 1, "succeeded": 1, "ready": 1,
                       "terminating": 0,
                       "uncountedTerminatedPods": {}}})
    elif kind == "Pod":
        for i, node in enumerate(w["nodes"]):
            build_pod(w, name, node, i, None, created, {})


def make_static():
    node = "cp-1"
    nuid = uid("node", node)
    own = {"apiVersion": "v1", "kind": "Node", "name": node, "uid": nuid, "controller": True}
    for comp, image, req, hp in STATIC:
        w = {"ns": "kube-system", "name": comp, "kind": "Static",
             "containers": [C(comp, image, req, ws={"etcd": (180, 180), "kube-apiserver": (900, 900),
                                                    "kube-controller-manager": (110, 110),
                                                    "kube-scheduler": (45, 45)}[comp],
                              mounts=[], command=[comp])],
             "labels": {"component": comp, "tier": "control-plane"}, "hostNetwork": True,
             "pc": "system-node-critical",
             "volumes": [{"name": v, "hostPath": {"path": p, "type": t}} for v, p, t in hp]}
        for c in w["containers"]:
            c["mounts"] = [v for v, _, _ in hp]
            for v, p, _ in hp:
                MOUNT_PATHS.setdefault(v, p)
        chash = hexid(32, "static", comp)
        build_pod(w, "%s-%s" % (comp, node), node, 0, own, at("2026-11-04T03:12:40Z") + timedelta(
            seconds=h("st", comp) % 30), {}, static_hash=chash)


def make_pv(ns, claim, node, created):
    pv = "pvc-" + uid("pv", ns, claim)
    vol_id = "vol-0" + hexid(16, "vol", claim)
    zone = NODE_ZONE[node]
    PVS.append({
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": claim, "namespace": ns, "uid": pv[4:], "resourceVersion": rv(),
                     "creationTimestamp": ts(created - timedelta(seconds=1)),
                     "labels": {"app.kubernetes.io/name": "postgres"},
                     "annotations": {"pv.kubernetes.io/bind-completed": "yes",
                                     "pv.kubernetes.io/bound-by-controller": "yes",
                                     "volume.beta.kubernetes.io/storage-provisioner": "ebs.csi.aws.com",
                                     "volume.kubernetes.io/selected-node": node,
                                     "volume.kubernetes.io/storage-provisioner": "ebs.csi.aws.com"},
                     "finalizers": ["kubernetes.io/pvc-protection"]},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "50Gi"}},
                 "volumeName": pv, "storageClassName": "gp3", "volumeMode": "Filesystem"},
        "status": {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "50Gi"}}})
    PVS.append({
        "apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": pv, "uid": uid("pvobj", pv), "resourceVersion": rv(),
                     "creationTimestamp": ts(created + timedelta(seconds=3)),
                     "annotations": {"pv.kubernetes.io/provisioned-by": "ebs.csi.aws.com",
                                     "volume.kubernetes.io/provisioner-deletion-secret-name": "",
                                     "volume.kubernetes.io/provisioner-deletion-secret-namespace": ""},
                     "finalizers": ["external-provisioner.volume.kubernetes.io/finalizer",
                                    "kubernetes.io/pv-protection", "external-attacher/ebs-csi-aws-com"]},
        "spec": {"capacity": {"storage": "50Gi"},
                 "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": vol_id, "fsType": "ext4",
                         "volumeAttributes": {"storage.kubernetes.io/csiProvisionerIdentity":
                                              "1763110960012-5577-ebs.csi.aws.com"}},
                 "accessModes": ["ReadWriteOnce"],
                 "claimRef": {"kind": "PersistentVolumeClaim", "namespace": ns, "name": claim,
                              "uid": pv[4:], "apiVersion": "v1"},
                 "persistentVolumeReclaimPolicy": "Delete", "storageClassName": "gp3",
                 "volumeMode": "Filesystem",
                 "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                     {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [zone]}]}]}}},
        "status": {"phase": "Bound", "lastPhaseTransitionTime": ts(created + timedelta(seconds=3))}})
    attacher = "ebs.csi.aws.com"
    va = "csi-" + hashlib.sha256((pv + attacher + node).encode()).hexdigest()
    PVS.append({
        "apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment",
        "metadata": {"name": va, "uid": uid("va", va), "resourceVersion": rv(),
                     "creationTimestamp": ts(created + timedelta(seconds=5)),
                     "annotations": {"csi.alpha.kubernetes.io/node-id": "i-0" + hexid(16, "iid", node)},
                     "finalizers": ["external-attacher/ebs-csi-aws-com"]},
        "spec": {"attacher": attacher, "nodeName": node, "source": {"persistentVolumeName": pv}},
        "status": {"attached": True, "attachmentMetadata": {"devicePath": "/dev/xvdaa"}}})


# --------------------------------------------------------------------------- PDBs

def match(sel, labels):
    return all(labels.get(k) == v for k, v in sel.items())


def controller_scale(pod_meta):
    """Scale of the pod's controller, as the disruption controller finds it (RS -> Deployment)."""
    w = pod_meta["w"]
    if w["kind"] in ("Deployment", "StatefulSet"):
        return (w["kind"], w["ns"], w["name"]), len(w["nodes"])
    return None, None


def make_pdbs():
    out = []
    for w in WORKLOADS:
        p = w.get("pdb")
        if not p:
            continue
        ns = w["ns"]
        sel = p.get("selector") or dict(w.get("labels", {}))
        pods = [(pod, m) for pod, m in PODS
                if pod["metadata"]["namespace"] == ns and match(sel, pod["metadata"]["labels"])]
        healthy = 0
        for pod, m in pods:
            ready = any(c["type"] == "Ready" and c["status"] == "True" for c in pod["status"]["conditions"])
            if ready and "deletionTimestamp" not in pod["metadata"]:
                healthy += 1
        spec = {}
        if "minAvailable" in p and isinstance(p["minAvailable"], int):
            desired = p["minAvailable"]
            expected = len(pods)
            spec["minAvailable"] = p["minAvailable"]
        else:
            scales = {}
            for pod, m in pods:
                key, n = controller_scale(m)
                if key:
                    scales[key] = n
            expected = sum(scales.values())
            if "minAvailable" in p:
                pct = int(p["minAvailable"].rstrip("%"))
                desired = -(-pct * expected // 100)
                spec["minAvailable"] = p["minAvailable"]
            else:
                mu = p["maxUnavailable"]
                if isinstance(mu, str):
                    mu_n = -(-int(mu.rstrip("%")) * expected // 100)
                else:
                    mu_n = mu
                desired = max(0, expected - mu_n)
                spec["maxUnavailable"] = p["maxUnavailable"]
        allowed = max(0, healthy - desired) if expected > 0 else 0
        spec["selector"] = {"matchLabels": dict(sel)}
        if p.get("unhealthyPodEvictionPolicy"):
            spec["unhealthyPodEvictionPolicy"] = p["unhealthyPodEvictionPolicy"]
        pname = w["name"] if "selector" not in p or w["name"] != "cart" else "cart"
        gen = 2 if w["name"] in ("reviews", "postgres") else 1
        created = at(w["created"]) + timedelta(seconds=4)
        cond_time = created + timedelta(seconds=9)
        if allowed == 0:
            cond_time = {"payments": created + timedelta(seconds=9),
                         "reviews": at("11:12:40"), "postgres": C2_UNKNOWN}.get(w["name"], cond_time)
        out.append({
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": pname, "namespace": ns, "uid": uid("pdb", ns, pname),
                         "resourceVersion": rv(), "generation": gen,
                         "creationTimestamp": ts(created),
                         "labels": {"app.kubernetes.io/managed-by": "Helm"}},
            "spec": spec,
            "status": {"observedGeneration": gen, "disruptionsAllowed": allowed,
                       "currentHealthy": healthy, "desiredHealthy": desired, "expectedPods": expected,
                       "conditions": [{
                           "type": "DisruptionAllowed", "status": "True" if allowed > 0 else "False",
                           "observedGeneration": gen,
                           "lastTransitionTime": ts(cond_time),
                           "reason": "SufficientPods" if allowed > 0 else "InsufficientPods",
                           "message": ""}]}})
    return out


# --------------------------------------------------------------------------- kubelet config

def kubelet_config(node):
    cfg = {
        "apiVersion": "kubelet.config.k8s.io/v1beta1",
        "kind": "KubeletConfiguration",
        "enableServer": True,
        "staticPodPath": "/etc/kubernetes/manifests",
        "podLogsDir": "/var/log/pods",
        "syncFrequency": "1m0s",
        "fileCheckFrequency": "20s",
        "httpCheckFrequency": "20s",
        "address": "0.0.0.0",
        "port": 10250,
        "tlsCertFile": "/var/lib/kubelet/pki/kubelet.crt",
        "tlsPrivateKeyFile": "/var/lib/kubelet/pki/kubelet.key",
        "rotateCertificates": True,
        "serverTLSBootstrap": True,
        "authentication": {"x509": {"clientCAFile": "/etc/kubernetes/pki/ca.crt"},
                           "webhook": {"enabled": True, "cacheTTL": "2m0s"},
                           "anonymous": {"enabled": False}},
        "authorization": {"mode": "Webhook", "webhook": {"cacheAuthorizedTTL": "5m0s",
                                                         "cacheUnauthorizedTTL": "30s"}},
        "registryPullQPS": 5,
        "registryBurst": 10,
        "eventRecordQPS": 50,
        "eventBurst": 100,
        "enableDebuggingHandlers": True,
        "healthzPort": 10248,
        "healthzBindAddress": "127.0.0.1",
        "oomScoreAdj": -999,
        "clusterDomain": "cluster.local",
        "clusterDNS": ["172.20.0.10"],
        "streamingConnectionIdleTimeout": "4h0m0s",
        "nodeStatusUpdateFrequency": "10s",
        "nodeStatusReportFrequency": "5m0s",
        "nodeLeaseDurationSeconds": 40,
        "imageMinimumGCAge": "2m0s",
        "imageMaximumGCAge": "0s",
        "imageGCHighThresholdPercent": 85,
        "imageGCLowThresholdPercent": 80,
        "volumeStatsAggPeriod": "1m0s",
        "cgroupsPerQOS": True,
        "cgroupDriver": "systemd",
        "cpuManagerPolicy": "none",
        "cpuManagerReconcilePeriod": "10s",
        "memoryManagerPolicy": "None",
        "topologyManagerPolicy": "none",
        "topologyManagerScope": "container",
        "runtimeRequestTimeout": "15m0s",
        "hairpinMode": "promiscuous-bridge",
        "maxPods": 110,
        "podPidsLimit": -1,
        "resolvConf": "/run/systemd/resolve/resolv.conf",
        "cpuCFSQuota": True,
        "cpuCFSQuotaPeriod": "100ms",
        "nodeStatusMaxImages": 50,
        "maxOpenFiles": 1000000,
        "contentType": "application/vnd.kubernetes.protobuf",
        "kubeAPIQPS": 50,
        "kubeAPIBurst": 100,
        "serializeImagePulls": True,
        "evictionHard": {"imagefs.available": "15%", "memory.available": "100Mi",
                         "nodefs.available": "10%", "nodefs.inodesFree": "5%"},
        "evictionPressureTransitionPeriod": "5m0s",
        "enableControllerAttachDetach": True,
        "makeIPTablesUtilChains": True,
        "iptablesMasqueradeBit": 14,
        "iptablesDropBit": 15,
        "failSwapOn": True,
        "memorySwap": {},
        "containerLogMaxSize": "10Mi",
        "containerLogMaxFiles": 5,
        "containerLogMaxWorkers": 1,
        "containerLogMonitorInterval": "10s",
        "configMapAndSecretChangeDetectionStrategy": "Watch",
        "systemReserved": dict(SYS_RES),
        "kubeReserved": dict(KUBE_RES),
        "enforceNodeAllocatable": ["pods"],
        "volumePluginDir": "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/",
        "providerID": "aws:///%s/i-0%s" % (NODE_ZONE[node], hexid(16, "iid", node)),
        "logging": {"format": "text", "flushFrequency": "5s", "verbosity": 2,
                    "options": {"text": {"infoBufferSize": "0"}, "json": {"infoBufferSize": "0"}}},
        "enableSystemLogHandler": True,
        "enableSystemLogQuery": False,
        "shutdownGracePeriod": "0s",
        "shutdownGracePeriodCriticalPods": "0s",
        "crashLoopBackOff": {},
        "enableProfilingHandler": True,
        "enableDebugFlagsHandler": True,
        "seccompDefault": False,
        "memoryThrottlingFactor": 0.9,
        "registerNode": True,
        "localStorageCapacityIsolation": True,
        "containerRuntimeEndpoint": "unix:///run/containerd/containerd.sock",
        "failCgroupV1": False,
    }
    if node == "worker-a1":
        cfg["evictionSoft"] = {"memory.available": "500Mi", "nodefs.available": "15%"}
        cfg["evictionSoftGracePeriod"] = {"memory.available": "1m30s", "nodefs.available": "2m0s"}
        cfg["evictionMaxPodGracePeriod"] = 60
        cfg["shutdownGracePeriod"] = "30s"
        cfg["shutdownGracePeriodCriticalPods"] = "10s"
    elif node == PRESSURE:
        cfg["evictionMinimumReclaim"] = {"memory.available": "2Gi", "nodefs.available": "1Gi"}
        cfg["evictionMaxPodGracePeriod"] = 30
    elif node == NOT_READY:
        cfg["shutdownGracePeriod"] = "30s"
        cfg["shutdownGracePeriodCriticalPods"] = "10s"
    elif node == "gpu-1":
        cfg["evictionHard"]["pid.available"] = "10%"
        cfg["shutdownGracePeriodByPodPriority"] = [
            {"priority": 0, "shutdownGracePeriodSeconds": 30},
            {"priority": 100000, "shutdownGracePeriodSeconds": 120},
            {"priority": 2000000000, "shutdownGracePeriodSeconds": 10}]
    # keep /configz's sorted-looking order stable: evictionHard keys sorted
    cfg["evictionHard"] = dict(sorted(cfg["evictionHard"].items()))
    return {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig",
            "metadata": {"name": node}, "kubeletconfig": cfg}


# --------------------------------------------------------------------------- stats summary

SYSTEM_WS = {  # non-pod working set per node (kernel, kubelet, containerd, active page cache)
    "worker-a1": 2200 * MI, PRESSURE: None, NOT_READY: 1350 * MI, "gpu-1": 5100 * MI}


def pod_ws(m, c, k):
    lo, hi = c["ws"]
    if m["node"] == PRESSURE or lo == hi:
        base = lo if m["w"]["kind"] != "Deployment" or m["idx"] == 0 else hi
        if m["node"] == PRESSURE:
            base = {"etl-worker": 1100, "recommender": 900, "image-resizer": 600, "orders-api": 1400,
                    "metrics-server": 350, "catalog": 480, "frontend": 230}.get(m["w"]["name"], lo)
        return base * MI + (h("wsfine", m["w"]["name"], c["name"], k) % 256) * 1024
    span = hi - lo
    return (lo + h("ws", m["w"]["name"], c["name"], m["node"], k) % (span + 1)) * MI \
        + (h("wsfine", m["w"]["name"], c["name"], k) % 1024) * 1024


def fs_block(t, avail, cap, used, ifree, inodes, iused):
    return {"time": t, "availableBytes": avail, "capacityBytes": cap, "usedBytes": used,
            "inodesFree": ifree, "inodes": inodes, "inodesUsed": iused}


def stats_summary(node):
    stale = node == NOT_READY
    tbase = (C2_LAST_BEAT - timedelta(seconds=12)) if stale else TAKEN - timedelta(seconds=9)

    def t(*k):
        return ts(tbase + timedelta(seconds=h("t", node, *k) % 6))

    cpu_n, mem_ki, disk_ki = INSTANCES[NODES[NODE_INDEX[node]][2]]
    mem_cap = mem_ki * 1024
    disk_cap = disk_ki * 1024
    inodes_total = disk_cap // 16384
    pods_out = []
    pods_ws = 0
    pods_disk = 0
    for pod, m in PODS:
        if m["node"] != node or m["phase"] != "Running":
            continue
        md = pod["metadata"]
        w = m["w"]
        containers = []
        p_ws = 0
        p_rootfs = 0
        p_logs = 0
        p_cpu = 0
        for k, c in enumerate(w["containers"]):
            ws = pod_ws(m, c, k)
            p_ws += ws
            rootfs = (40 + h("rootfs", md["name"], c["name"]) % 2000) * 4096
            logs = (h("logs", md["name"], c["name"]) % 9000 + 12) * 4096
            p_rootfs += rootfs
            p_logs += logs
            cpu = 1000000 + h("cpu", md["name"], c["name"]) % 180000000
            p_cpu += cpu
            cstart = pod["status"]["containerStatuses"][k]["state"].get("running", {}).get(
                "startedAt", pod["status"]["startTime"])
            mem = {"time": t("m", md["name"], k), "usageBytes": ws + (h("u", md["name"], k) % 40) * MI,
                   "workingSetBytes": ws, "rssBytes": int(ws * 0.86) // 4096 * 4096,
                   "pageFaults": h("pf", md["name"], k) % 900000, "majorPageFaults": h("mpf", md["name"], k) % 40}
            lim = c["lim"].get("memory")
            if lim:
                mem = dict([("time", mem["time"]), ("availableBytes", max(0, qbytes(lim) - ws))]
                           + [(kk, vv) for kk, vv in mem.items() if kk != "time"])
            containers.append({
                "name": c["name"], "startTime": cstart,
                "cpu": {"time": t("c", md["name"], k), "usageNanoCores": cpu,
                        "usageCoreNanoSeconds": cpu * (3000 + h("cns", md["name"], k) % 90000)},
                "memory": mem,
                "rootfs": fs_block(t("r", md["name"], k), None, disk_cap, rootfs, None, inodes_total,
                                   8 + h("ri", md["name"], k) % 400),
                "logs": fs_block(t("l", md["name"], k), None, disk_cap, logs, None, inodes_total,
                                 1 + h("li", md["name"], k) % 6),
            })
        vols = []
        local_vol = 0
        for v in pod["spec"].get("volumes", []):
            vname = v["name"]
            if "emptyDir" in v:
                if w["name"] == "search" and node == "worker-a1":
                    used = 1100 * MI + 4096 * 37  # above its 1Gi sizeLimit
                elif v["emptyDir"].get("medium") == "Memory":
                    used = (h("ed", md["name"], vname) % 200 + 8) * MI if w["name"] == "cache" else 0
                else:
                    used = (h("ed", md["name"], vname) % 300 + 1) * MI
                if v["emptyDir"].get("medium") != "Memory":
                    local_vol += used
                cap = qbytes(v["emptyDir"]["sizeLimit"]) if v["emptyDir"].get("sizeLimit") else disk_cap
                vols.append(dict(fs_block(t("v", md["name"], vname), None, cap, used, None, inodes_total,
                                          1 + h("vi", md["name"], vname) % 300), name=vname))
            elif "projected" in v:
                vols.append(dict(fs_block(t("v", md["name"], vname), 16 * MI - 12288, 16 * MI, 12288,
                                          4090000, 4090009, 9), name=vname))
            elif "persistentVolumeClaim" in v:
                pvc_cap = 50 * GI - 1400 * MI
                used = (6000 + h("pvc", md["name"]) % 9000) * MI
                b = dict(fs_block(t("v", md["name"], vname), pvc_cap - used, pvc_cap, used,
                                  3276800 - 2400, 3276800, 2400), name=vname)
                b["pvcRef"] = {"name": v["persistentVolumeClaim"]["claimName"], "namespace": md["namespace"]}
                vols.append(b)
        eph = p_rootfs + p_logs + local_vol
        pods_ws += p_ws
        pods_disk += eph
        pm = {"time": t("pm", md["name"]), "usageBytes": p_ws + 6 * MI, "workingSetBytes": p_ws,
              "rssBytes": int(p_ws * 0.86) // 4096 * 4096,
              "pageFaults": h("ppf", md["name"]) % 900000, "majorPageFaults": h("pmpf", md["name"]) % 40}
        entry = {
            "podRef": {"name": md["name"], "namespace": md["namespace"], "uid": md["uid"]},
            "startTime": pod["status"]["startTime"],
            "containers": containers,
            "cpu": {"time": t("pc", md["name"]), "usageNanoCores": p_cpu,
                    "usageCoreNanoSeconds": p_cpu * 4100},
            "memory": pm,
            "network": {"time": t("pn", md["name"]), "name": "eth0",
                        "rxBytes": h("rx", md["name"]) % 9000000000, "rxErrors": 0,
                        "txBytes": h("tx", md["name"]) % 4000000000, "txErrors": 0},
            "volume": vols,
            "ephemeral-storage": fs_block(t("pe", md["name"]), None, disk_cap, eph, None, inodes_total,
                                          20 + h("pei", md["name"]) % 600),
            "process_stats": {"process_count": 1 + h("procs", md["name"]) % 24 if w["name"] != "spark-driver" else 212},
        }
        if pod["spec"].get("hostNetwork"):
            del entry["network"]
        pods_out.append(entry)

    # node-level numbers
    if node == PRESSURE:
        avail = 80 * MI + 3 * 4096  # below the 100Mi hard threshold
        node_ws = mem_cap - avail
    else:
        node_ws = pods_ws + SYSTEM_WS[node]
        avail = mem_cap - node_ws
    pods_cg_limit = mem_cap - RESERVED_MEM
    fs_used = pods_disk + (11 + h("fsu", node) % 9) * GI
    fs_avail = disk_cap - fs_used - int(disk_cap * 0.05)
    inodes_used = 300000 + h("iu", node) % 200000
    img_used = (9 + h("img", node) % 7) * GI

    def strip(d):
        return {k: v for k, v in d.items() if v is not None}

    for p in pods_out:
        for c in p["containers"]:
            c["rootfs"]["availableBytes"] = fs_avail
            c["rootfs"]["inodesFree"] = inodes_total - inodes_used
            c["logs"]["availableBytes"] = fs_avail
            c["logs"]["inodesFree"] = inodes_total - inodes_used
            c["rootfs"] = strip(c["rootfs"])
            c["logs"] = strip(c["logs"])
            c["rootfs"] = {k: c["rootfs"][k] for k in ("time", "availableBytes", "capacityBytes", "usedBytes",
                                                       "inodesFree", "inodes", "inodesUsed")}
            c["logs"] = {k: c["logs"][k] for k in ("time", "availableBytes", "capacityBytes", "usedBytes",
                                                   "inodesFree", "inodes", "inodesUsed")}
        for v in p["volume"]:
            if v["availableBytes"] is None:
                v["availableBytes"] = max(0, min(v["capacityBytes"] - v["usedBytes"], fs_avail))
                v["inodesFree"] = inodes_total - inodes_used
        p["volume"] = [{k: v[k] for k in ("time", "availableBytes", "capacityBytes", "usedBytes",
                                          "inodesFree", "inodes", "inodesUsed", "name", "pvcRef") if k in v}
                       for v in p["volume"]]
        e = p["ephemeral-storage"]
        e["availableBytes"] = fs_avail
        e["inodesFree"] = inodes_total - inodes_used
        p["ephemeral-storage"] = {k: e[k] for k in ("time", "availableBytes", "capacityBytes", "usedBytes",
                                                   "inodesFree", "inodes", "inodesUsed")}

    node_start = ts(NODE_CREATED[node] + timedelta(seconds=5))
    kubelet_ws = (62 + h("kws", node) % 30) * MI
    runtime_ws = (140 + h("rws", node) % 90) * MI
    curproc = 600 + sum(p["process_stats"]["process_count"] for p in pods_out) + h("curproc", node) % 300
    summary = {
        "node": {
            "nodeName": node,
            "systemContainers": [
                {"name": "kubelet", "startTime": node_start,
                 "cpu": {"time": t("kc"), "usageNanoCores": 31000000 + h("kc", node) % 9000000,
                         "usageCoreNanoSeconds": 18000000000000 + h("kcn", node) % 10 ** 12},
                 "memory": {"time": t("km"), "usageBytes": kubelet_ws + 9 * MI, "workingSetBytes": kubelet_ws,
                            "rssBytes": kubelet_ws - 6 * MI, "pageFaults": 412776, "majorPageFaults": 3}},
                {"name": "runtime", "startTime": node_start,
                 "cpu": {"time": t("rc"), "usageNanoCores": 24000000 + h("rc", node) % 9000000,
                         "usageCoreNanoSeconds": 14000000000000 + h("rcn", node) % 10 ** 12},
                 "memory": {"time": t("rm"), "usageBytes": runtime_ws + 40 * MI, "workingSetBytes": runtime_ws,
                            "rssBytes": runtime_ws - 30 * MI, "pageFaults": 1088420, "majorPageFaults": 11}},
                {"name": "pods", "startTime": node_start,
                 "cpu": {"time": t("pc"), "usageNanoCores": sum(p["cpu"]["usageNanoCores"] for p in pods_out),
                         "usageCoreNanoSeconds": 90000000000000 + h("pcn", node) % 10 ** 13},
                 "memory": {"time": t("pm"), "availableBytes": pods_cg_limit - pods_ws,
                            "usageBytes": pods_ws + 310 * MI, "workingSetBytes": pods_ws,
                            "rssBytes": int(pods_ws * 0.84) // 4096 * 4096,
                            "pageFaults": 20417795, "majorPageFaults": 207}},
            ],
            "startTime": node_start,
            "cpu": {"time": t("nc"), "usageNanoCores": sum(p["cpu"]["usageNanoCores"] for p in pods_out) + 160000000,
                    "usageCoreNanoSeconds": 150000000000000 + h("ncn", node) % 10 ** 13},
            "memory": {"time": t("nm"), "availableBytes": avail, "usageBytes": node_ws + 2400 * MI,
                       "workingSetBytes": node_ws, "rssBytes": int(node_ws * 0.7) // 4096 * 4096,
                       "pageFaults": 90211876 + h("npf", node) % 10 ** 6, "majorPageFaults": 1311},
            "network": {"time": t("nn"), "name": "ens5",
                        "rxBytes": 400000000000 + h("nrx", node) % 10 ** 11, "rxErrors": 0,
                        "txBytes": 200000000000 + h("ntx", node) % 10 ** 11, "txErrors": 0,
                        "interfaces": [{"name": "ens5", "rxBytes": 400000000000 + h("nrx", node) % 10 ** 11,
                                        "rxErrors": 0,
                                        "txBytes": 200000000000 + h("ntx", node) % 10 ** 11, "txErrors": 0}]},
            "fs": {"time": t("fs"), "availableBytes": fs_avail, "capacityBytes": disk_cap,
                   "usedBytes": fs_used, "inodesFree": inodes_total - inodes_used, "inodes": inodes_total,
                   "inodesUsed": inodes_used},
            "runtime": {
                "imageFs": {"time": t("if"), "availableBytes": fs_avail, "capacityBytes": disk_cap,
                            "usedBytes": img_used, "inodesFree": inodes_total - inodes_used,
                            "inodes": inodes_total, "inodesUsed": 61000 + h("ifi", node) % 20000},
                "containerFs": {"time": t("if"), "availableBytes": fs_avail, "capacityBytes": disk_cap,
                                "usedBytes": img_used, "inodesFree": inodes_total - inodes_used,
                                "inodes": inodes_total, "inodesUsed": 61000 + h("ifi", node) % 20000}},
            "rlimit": {"time": t("rl"), "maxpid": 4194304, "curproc": curproc},
        },
        "pods": pods_out,
    }
    return {"apiVersion": "evictplan/v1alpha1", "kind": "NodeStatsSummary",
            "metadata": {"name": node}, "summary": summary}


# --------------------------------------------------------------------------- checks

def check(items, pdbs):
    pods = [p for p, _ in PODS]
    # names unique
    keys = [(p["metadata"]["namespace"], p["metadata"]["name"]) for p in pods]
    assert len(keys) == len(set(keys)), "duplicate pod names"
    uids = [i["metadata"].get("uid") for i in items if i["metadata"].get("uid")]
    assert len(uids) == len(set(uids)), "duplicate uids"
    # fit: requests of non-terminal pods within allocatable; host ports unique; anti-affinity
    for node, *_ in NODES:
        a_cpu, a_mem, _ = node_alloc(node)
        cpu = mem = gpu = 0
        ports = set()
        cache = 0
        for p, m in PODS:
            if m["node"] != node or m["phase"] != "Running":
                continue
            for c in p["spec"]["containers"]:
                r = c.get("resources", {}).get("requests", {})
                cpu += qcpu(r.get("cpu", "0"))
                mem += qbytes(r.get("memory", "0"))
                gpu += int(r.get("nvidia.com/gpu", "0"))
                for pt in c.get("ports", []):
                    if pt.get("hostPort"):
                        assert pt["hostPort"] not in ports, (node, pt)
                        ports.add(pt["hostPort"])
            if p["metadata"]["labels"].get("app") == "cache":
                cache += 1
        assert cpu <= a_cpu, (node, cpu, a_cpu)
        assert mem <= a_mem, (node, mem / GI, a_mem / GI)
        assert gpu <= (4 if node == "gpu-1" else 0), node
        assert cache <= 1, node
        USAGE[node] = (cpu, a_cpu, mem, a_mem)
    # placement honours the scheduling-time constraints (taints present when the pods landed,
    # nodeSelector, required node affinity)
    node_obj = {i["metadata"]["name"]: i for i in items if i["kind"] == "Node"}
    for p, m in PODS:
        n = node_obj[m["node"]]
        labels = n["metadata"]["labels"]
        for k, v in p["spec"].get("nodeSelector", {}).items():
            assert labels.get(k) == v, (p["metadata"]["name"], k)
        req = p["spec"].get("affinity", {}).get("nodeAffinity", {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution")
        if req:
            ok = False
            for term in req["nodeSelectorTerms"]:
                good = all(labels.get(e["key"]) in e["values"] for e in term.get("matchExpressions", []))
                good = good and all(n["metadata"]["name"] in e["values"] for e in term.get("matchFields", []))
                ok = ok or good
            assert ok, p["metadata"]["name"]
        for taint in n["spec"].get("taints", []):
            if taint["key"].startswith("node.kubernetes.io/") or m["w"]["kind"] == "Static":
                continue  # added after the pods were scheduled / static pods bypass the scheduler
            tol = any((t.get("key", "") in ("", taint["key"])) and t.get("effect", "") in ("", taint["effect"])
                      and (t.get("operator") == "Exists" or t.get("value", "") == taint.get("value", ""))
                      for t in p["spec"].get("tolerations", []))
            assert tol, (p["metadata"]["name"], taint)
    # spark-driver must fit nowhere else
    for node, _z, _i, _c, extra in NODES:
        if node == "worker-a1" or extra.get("disktype") != "ssd":
            continue
        _, a_mem, _ = node_alloc(node)
        assert a_mem - USAGE[node][2] < 20 * GI, node
    # PDB spot checks (what the demo relies on)
    by = {(p["metadata"]["namespace"], p["metadata"]["name"]): p["status"] for p in pdbs}
    assert by[("shop", "checkout")]["disruptionsAllowed"] == 1
    assert by[("shop", "payments")]["disruptionsAllowed"] == 0
    assert by[("data", "postgres")]["disruptionsAllowed"] == 0
    assert by[("shop", "reviews")]["disruptionsAllowed"] == 0


USAGE = {}


# --------------------------------------------------------------------------- main

def main():
    info = {"apiVersion": "evictplan/v1alpha1", "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
            "takenAt": ts(TAKEN), "context": "demo", "server": "https://demo.evictplan.invalid:6443",
            "serverVersion": "v1.33.2",
            # The demo is a complete cluster: it holds every kind a live read lists (those it has
            # none of, e.g. StorageClass and CSINode, included) and the kubelet documents of every
            # node whose kubelet a plan reads (the others' kubelets use upstream defaults).
            "kinds": ["Node", "Pod", "PodDisruptionBudget", "PriorityClass", "DaemonSet", "ReplicaSet",
                      "StatefulSet", "Deployment", "Job", "ReplicationController", "VolumeAttachment",
                      "PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode", "CSIDriver",
                      "Namespace", "ResourceClaim", "ResourceClaimTemplate", "DeviceClass", "ResourceSlice",
                      "Lease", "NodeKubeletConfig", "NodeStatsSummary"]}
    pcs = []
    desc = {"system-cluster-critical": "Used for system critical pods that must run in the cluster, "
                                       "but can be moved to another node if necessary.",
            "system-node-critical": "Used for system critical pods that must not be moved from their "
                                    "current node.",
            "high": "Customer-facing services that should preempt everything else.",
            "batch-low": "Batch and ETL work: first to go, never preempts.",
            "standard": "Default tier for services (not the global default: pods without a class get 0)."}
    for name, val in PRIORITY.items():
        pc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
              "metadata": {"name": name, "uid": uid("pc", name), "resourceVersion": rv(), "generation": 1,
                           "creationTimestamp": "2026-03-02T09:13:58Z" if name.startswith("system-")
                           else "2026-03-04T15:20:11Z"},
              "value": val}
        if not name.startswith("system-"):
            pc["globalDefault"] = False
        pc["description"] = desc[name]
        pc["preemptionPolicy"] = "Never" if name == "batch-low" else "PreemptLowerPriority"
        pcs.append(pc)

    nodes = [make_node(n) for n in NODES]
    leases = [make_lease(n[0]) for n in NODES]
    make_static()
    for w in WORKLOADS:
        make_workload(w)
    pdbs = make_pdbs()
    # the attach/detach controller's view on the nodes (what `kubectl get node -o json` shows)
    pv_handle = {o["metadata"]["name"]: o["spec"]["csi"]["volumeHandle"]
                 for o in PVS if o["kind"] == "PersistentVolume"}
    for va in (o for o in PVS if o["kind"] == "VolumeAttachment"):
        node = nodes[NODE_INDEX[va["spec"]["nodeName"]]]
        vname = "kubernetes.io/csi/ebs.csi.aws.com^" + pv_handle[va["spec"]["source"]["persistentVolumeName"]]
        node["status"].setdefault("volumesInUse", []).append(vname)
        node["status"].setdefault("volumesAttached", []).append({"name": vname, "devicePath": ""})
    kcfg = [kubelet_config(n) for n in ("worker-a1", PRESSURE, "gpu-1", NOT_READY)]
    stats = [stats_summary(n) for n in ("worker-a1", PRESSURE, "gpu-1", NOT_READY)]

    kind_order = ["DaemonSet", "Deployment", "ReplicaSet", "StatefulSet", "Job"]
    ctrl = sorted(CONTROLLERS, key=lambda o: (kind_order.index(o["kind"]), o["metadata"]["namespace"],
                                              o["metadata"]["name"]))
    pods = sorted((p for p, _ in PODS), key=lambda p: (p["metadata"]["namespace"], p["metadata"]["name"]))
    pvcs = [o for o in PVS if o["kind"] == "PersistentVolumeClaim"]
    pvs = [o for o in PVS if o["kind"] == "PersistentVolume"]
    vas = [o for o in PVS if o["kind"] == "VolumeAttachment"]
    items = ([info] + pcs + nodes + leases + kcfg + stats + ctrl + pods
             + sorted(pdbs, key=lambda p: (p["metadata"]["namespace"], p["metadata"]["name"]))
             + pvcs + pvs + vas)
    items += make_namespaces(items)   # last: their resourceVersions follow everything else's
    check(items, pdbs)
    doc = {"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}}
    text = json.dumps(doc, indent=1, sort_keys=False) + "\n"
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    if "-v" in sys.argv:
        per_node = {}
        for p, m in PODS:
            per_node[m["node"]] = per_node.get(m["node"], 0) + 1
        for node, *_ in NODES:
            cpu, a_cpu, mem, a_mem = USAGE[node]
            print("%-10s pods=%3d cpu %5dm/%5dm mem %6.2f/%6.2fGi" % (
                node, per_node.get(node, 0), cpu, a_cpu, mem / GI, a_mem / GI))
        for p in pdbs:
            s = p["status"]
            print("pdb %-12s %-26s expected=%2d desired=%2d healthy=%2d allowed=%d" % (
                p["metadata"]["namespace"], p["metadata"]["name"], s["expectedPods"], s["desiredHealthy"],
                s["currentHealthy"], s["disruptionsAllowed"]))
    print("wrote %s: %d items, %d pods, %d bytes" % (os.path.relpath(OUT), len(items), len(PODS), len(text)))


if __name__ == "__main__":
    main()
