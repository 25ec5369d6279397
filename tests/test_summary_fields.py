"""A node's stats summary is decoded to the fields the eviction manager reads (observe.py's
schema): every reader must see exactly what it sees in the whole document. A field the readers
use but the schema forgot would silently read as absent, so each case compares all readers on
the whole document against the pruned one, for the demo's summaries and for hand-made ones that
carry every field a v1.33 kubelet reports."""

import json

import pytest

from kubectl_evict.errors import InputError
from kubectl_evict.eviction import observe
from kubectl_evict.source.files import DEMO_PATH

_FS = {"time": "2026-11-21T11:59:50Z", "availableBytes": 4_000_000_000, "capacityBytes": 100_000_000_000,
       "usedBytes": 60_000_000_000, "inodesFree": 5_000_000, "inodes": 6_000_000, "inodesUsed": 1_000_000}
_CPU = {"time": "2026-11-21T11:59:50Z", "usageNanoCores": 123, "usageCoreNanoSeconds": 456}
_MEM = {"time": "2026-11-21T11:59:51Z", "availableBytes": 300_000_000, "usageBytes": 900_000_000,
        "workingSetBytes": 800_000_000, "rssBytes": 700_000_000, "pageFaults": 10, "majorPageFaults": 1}
_NET = {"time": "2026-11-21T11:59:52Z", "name": "eth0", "rxBytes": 1, "rxErrors": 0, "txBytes": 2, "txErrors": 0,
        "interfaces": [{"name": "eth0", "rxBytes": 1, "rxErrors": 0, "txBytes": 2, "txErrors": 0}]}


def _container(name, rootfs_used, logs_used):
    return {"name": name, "startTime": "2026-11-20T00:00:00Z", "cpu": _CPU, "memory": dict(_MEM, workingSetBytes=5),
            "rootfs": dict(_FS, usedBytes=rootfs_used, inodesUsed=7),
            "logs": dict(_FS, usedBytes=logs_used, inodesUsed=3), "swap": {"swapUsageBytes": 0},
            "accelerators": [{"make": "nvidia", "model": "t4", "id": "0", "memoryTotal": 1, "memoryUsed": 0,
                              "dutyCycle": 0}],
            "userDefinedMetrics": [{"name": "x", "type": "gauge", "units": "n", "time": "t", "value": 1}]}


def _full_summary():
    """Every field of the kubelet's v1.33 Summary API (pkg/kubelet/apis/stats/v1alpha1)."""
    return {
        "node": {"nodeName": "n1", "startTime": "2026-11-20T00:00:00Z", "cpu": _CPU, "memory": _MEM,
                 "network": _NET, "swap": {"swapAvailableBytes": 0, "swapUsageBytes": 0},
                 "systemContainers": [{"name": "kubelet", "cpu": _CPU, "memory": dict(_MEM, workingSetBytes=60)},
                                      {"name": "pods", "cpu": _CPU, "memory": dict(_MEM, workingSetBytes=600,
                                                                                   availableBytes=250)}],
                 "fs": _FS, "runtime": {"imageFs": dict(_FS, availableBytes=9), "containerFs": dict(_FS, availableBytes=8)},
                 "rlimit": {"time": "2026-11-21T11:59:53Z", "maxpid": 4_000_000, "curproc": 1234}},
        "pods": [
            {"podRef": {"name": "web-1", "namespace": "shop", "uid": "u-1"}, "startTime": "2026-11-20T00:00:00Z",
             "containers": [_container("app", 11, 22), _container("sidecar", 33, 44)],
             "cpu": _CPU, "memory": dict(_MEM, workingSetBytes=77), "network": _NET,
             "volume": [{"name": "cache", "time": "t", "availableBytes": 1, "capacityBytes": 2, "usedBytes": 55,
                         "inodesFree": 1, "inodes": 2, "inodesUsed": 66, "pvcRef": {"name": "c", "namespace": "shop"}}],
             "ephemeral-storage": dict(_FS, usedBytes=99), "process_stats": {"process_count": 12},
             "swap": {"swapUsageBytes": 0}},
            {"podRef": {"name": "batch-1", "namespace": "jobs"}, "containers": [], "memory": None},
        ],
    }


def _demo_summaries():
    with open(DEMO_PATH) as f:
        doc = json.load(f)
    return [item["summary"] for item in doc["items"] if item.get("kind") == "NodeStatsSummary"]


def _readings(summary):
    """What every reader of observe.py makes of a summary (or the error a wrong type makes)."""
    try:
        usages = observe.pod_usages(summary)
        return (observe.observations(summary), observe.disk_layout(summary), observe.non_pod_memory(summary),
                {k: usages[k] for k in usages})
    except InputError as e:
        return "error: %s" % e


CASES = [("demo %d" % i, s) for i, s in enumerate(_demo_summaries())] + [
    ("every v1.33 field", _full_summary()),
    # shapes the schema refuses: the whole document is kept, so the readers' own checks apply
    # (each of these is a wrong type: the same error either way)
    ("memory is a number", {"node": {"memory": 5, "fs": _FS}, "pods": []}),
    ("pods is an object", {"node": {"memory": _MEM}, "pods": {"podRef": {}}}),
    ("systemContainers is an object", {"node": {"memory": _MEM, "systemContainers": {"name": "pods"}}}),
    ("a container is a string", {"pods": [{"podRef": {"uid": "u"}, "containers": ["app"], "volume": [1]}]}),
    ("empty", {}),
]


@pytest.mark.parametrize("name, summary", CASES, ids=[c[0] for c in CASES])
def test_the_pruned_summary_reads_exactly_like_the_whole_one(name, summary):
    text = json.dumps(summary).encode()
    whole = _readings(json.loads(text))
    assert _readings(observe.decode_summary(text)) == whole
    assert _readings(observe.prune_summary(json.loads(text))) == whole


def test_the_readers_see_the_full_summary_values():
    """The hand-made summary's numbers, as the kubelet's eviction manager reads them
    (helpers.go makeSignalObservations, podDiskUsage, memoryUsage)."""
    text = json.dumps(_full_summary()).encode()
    s = observe.decode_summary(text)
    obs = observe.observations(s)
    assert obs["memory.available"].available == 300_000_000
    assert obs["memory.available"].capacity == 300_000_000 + 800_000_000
    assert obs["allocatableMemory.available"].available == 250
    assert obs["pid.available"].available == 4_000_000 - 1234
    assert observe.disk_layout(s) == observe.IMAGEFS_LAYOUT
    assert observe.non_pod_memory(s) == 800_000_000 - 600
    web = observe.pod_usages(s)["u-1"]
    assert web.working_set == 77 and web.ephemeral == 99 and web.processes == 12
    assert [(c.name, c.rootfs_bytes, c.logs_bytes) for c in web.containers] == [("app", 11, 22), ("sidecar", 33, 44)]
    assert web.volumes == {"cache": (55, 66)}
    assert observe.pod_usages(s)["jobs/batch-1"].working_set == 0


def test_the_pruned_summary_drops_what_no_reader_reads():
    s = observe.decode_summary(json.dumps(_full_summary()).encode())
    assert "network" not in s["node"] and "cpu" not in s["node"]
    assert "accelerators" not in s["pods"][0]["containers"][0]


@pytest.mark.parametrize("text", [b'{"node": ', b'{"node": {"memory": {}}, "extra": "\xff\xfe"}'],
                         ids=["truncated", "not UTF-8 where nothing reads it"])
def test_text_that_is_no_json_still_fails_as_before(text):
    with pytest.raises(ValueError):
        observe.decode_summary(text)
