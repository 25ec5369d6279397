"""The `pressure` command: eviction-manager scenarios (eviction_manager_scenarios.json, upstream
TestMemoryPressure / TestPIDPressure), multi-cycle plans, settings precedence and the CLI."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import NOW, node, pod, run_cli  # noqa: E402

from kubectl_evict.eviction.manager import ManagerState, admits, eviction_grace, synchronize  # noqa: E402
from kubectl_evict.eviction.observe import pod_usages  # noqa: E402
from kubectl_evict.eviction.ranking import rank  # noqa: E402
from kubectl_evict.eviction.thresholds import Observation, Threshold, ThresholdValue  # noqa: E402
from kubectl_evict.quantity import parse_quantity  # noqa: E402
from kubectl_evict.source.freeze import freeze  # noqa: E402
from kubectl_evict.timeutil import parse_duration  # noqa: E402

from conftest import VECTORS  # noqa: E402  (copies of shared/spec/vectors)
MI = 2 ** 20


def _vectors(name):
    return json.loads((VECTORS / name).read_text())["vectors"]


SCENARIOS = _vectors("eviction_manager_scenarios.json")
RANKING = {v["source"]: v for v in _vectors("pod_ranking.json")}
STEPPED = [v for v in SCENARIOS if isinstance(v["input"], dict) and "steps" in v["input"]]


def _pods(raw):
    return list(freeze(("vector", str(i), p) for i, p in enumerate(raw)).pods)


@pytest.mark.parametrize("v", STEPPED, ids=[v["source"].split(" ", 1)[-1] for v in STEPPED])
def test_eviction_manager_scenario(v):
    """Drive synchronize() through upstream's timeline; check pressure, victim, grace, admission."""
    cfg = v["input"]["config"]
    memory = "memoryAvailable" in v["input"]["steps"][0]
    signal = "memory.available" if memory else "pid.available"
    cond = "MemoryPressure" if memory else "PIDPressure"
    ths = [Threshold(t["signal"], ThresholdValue(parse_quantity(t["value"]["quantity"]), 0.0, t["value"]["quantity"]),
                     parse_duration(t["gracePeriod"])) for t in cfg["thresholds"]]
    key = "pkg/kubelet/eviction/eviction_manager_test.go " + ("TestMemoryPressure (pod set and podToEvict)" if memory
                                                              else "TestPIDPressure/eviction due to pid pressure")
    rv = RANKING[key]["input"]
    pods, usages = _pods(rv["pods"]), pod_usages({"pods": rv["podStats"]})
    besteffort = _pods([{"kind": "Pod", "metadata": {"name": "new-be", "uid": "x"}, "spec": {"containers": [{"name": "c"}]}}])[0]
    burstable = _pods([{"kind": "Pod", "metadata": {"name": "new-bu", "uid": "y"}, "spec": {"containers": [
        {"name": "c", "resources": {"requests": {"memory": "100Mi"}}}]}}])[0]
    period = parse_duration(cfg["pressureTransitionPeriod"])
    state, now = ManagerState(), 0.0
    for step, want in zip(v["input"]["steps"], v["expected"]["steps"]):
        now += parse_duration(step["t"].lstrip("+")) if step["t"] != "0s" else 0.0
        if memory:
            obs = {signal: Observation(int(parse_quantity(step["memoryAvailable"])), None)}
        else:
            obs = {signal: Observation(v["input"]["maxPID"] - step["runningProcesses"], v["input"]["maxPID"])}
        cycle = synchronize(state, ths, obs, now, period)
        state = cycle.state
        assert (cond in cycle.conditions) == want.get("memoryPressure", want.get("pidPressure"))
        if want["evicted"] is None:
            assert not cycle.ready
        else:
            th = cycle.ready[0] if len(cycle.ready) == 1 else next(t for t in cycle.ready if t.hard)
            victim = rank(pods, signal, "single", usages)[0]
            assert victim.name == want["evicted"]
            assert eviction_grace(th, cfg["maxPodGracePeriodSeconds"], victim) == want["gracePeriodOverride"]
        if "admitBestEffort" in want:
            assert admits(besteffort, cycle.conditions) == want["admitBestEffort"]
            assert admits(burstable, cycle.conditions) == want["admitBurstable"]
        if "admit" in want:
            assert admits(burstable, cycle.conditions) == want["admit"]


def _stats(node_name, mem_avail, pods_ws, *, mem_ws=6 * 1024 * MI, maxpid=None, curproc=None, fs=None):
    s = {"node": {"nodeName": node_name, "memory": {"availableBytes": mem_avail, "workingSetBytes": mem_ws},
                  "systemContainers": [{"name": "pods", "memory": {"availableBytes": mem_avail,
                                                                   "workingSetBytes": sum(w for _, w, _ in pods_ws)}}]},
         "pods": [{"podRef": {"name": n, "namespace": "default", "uid": "uid-default-" + n},
                   "memory": {"workingSetBytes": w},
                   "containers": [{"name": "app", "memory": {"workingSetBytes": w}}],
                   "process_stats": {"process_count": procs}} for n, w, procs in pods_ws]}
    if maxpid is not None:
        s["node"]["rlimit"] = {"maxpid": maxpid, "curproc": curproc}
    if fs is not None:
        s["node"]["fs"] = fs
    return {"apiVersion": "evictplan/v1alpha1", "kind": "NodeStatsSummary", "metadata": {"name": node_name}, "summary": s}


def _kubelet(node_name, **cfg):
    return {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": node_name},
            "kubeletconfig": cfg}


def _cluster(write, *extra):
    items = [node("n1", memory="8Gi"),
             node("n2", memory="8Gi")]   # where the ReplicaSet puts the evicted pods' replacements
    for name, mem, prio in (("hog", "256Mi", 0), ("mid", "256Mi", 0), ("small", "256Mi", 0), ("calm", "1Gi", 0)):
        items.append(pod(name, "n1", memory=mem, priority=prio))
    items.append(pod("etcd", "n1", owner=("Node", "n1"), memory=None, cpu=None,
                     annotations={"kubernetes.io/config.mirror": "x", "kubernetes.io/config.source": "file"}))
    usage = [("hog", 900 * MI, 10), ("mid", 400 * MI, 30), ("small", 300 * MI, 5), ("calm", 100 * MI, 3), ("etcd", 2000 * MI, 50)]
    return write(*items, _stats("n1", 300 * MI, usage, maxpid=1000, curproc=950), *extra)


def _plan(path, *args):
    """The command in-process (same parsing and rule as the CLI; the CLI itself is exercised by
    the error and output tests below) to keep this file fast."""
    from click.testing import CliRunner
    from kubectl_evict.cli import cli
    r = CliRunner().invoke(cli, ["-f", path, "-o", "json", "pressure", *args], standalone_mode=False)
    assert r.exception is None, r.exception
    return json.loads(r.output)


def _kills(doc):
    return [(a["pod"], a["at"], a["gracePeriodSeconds"]) for a in doc["actions"] if a["type"] == "kill"]


def test_hard_threshold_with_min_reclaim_evicts_exactly_the_pods_needed(write_snapshot):
    path = _cluster(write_snapshot)
    doc = _plan(path, "n1", "--eviction-hard", "memory.available<500Mi", "--eviction-minimum-reclaim", "memory.available=200Mi")
    # 300Mi available; must reach >= 700Mi: hog (900Mi > 256Mi request) frees 900Mi -> 1200Mi; done
    assert _kills(doc) == [("hog", 0, 1)]
    kill = next(a for a in doc["actions"] if a["type"] == "kill")
    # helpers.go evictionMessage with thresholdMetMessageFmt (vector TestMemoryPressure_VerifyPodStatus)
    assert kill["reason"] == ("The node was low on resource: memory. Threshold quantity: 500Mi, available: 300Mi. "
                              "Container app was using 900Mi, request is 256Mi, has larger consumption of memory.")
    taint = next(a for a in doc["actions"] if a["type"] == "taint")
    assert (taint["key"], taint["effect"], taint["at"]) == ("node.kubernetes.io/memory-pressure", "NoSchedule", 0)
    untaint = next(a for a in doc["actions"] if a["type"] == "untaint")
    assert untaint["at"] == 300   # pressure last observed at +0s, transition period 5m


def test_min_reclaim_continues_past_the_threshold(write_snapshot):
    path = _cluster(write_snapshot)
    # must reach 1Gi + 600Mi = 1624Mi from 300Mi: hog (+900) -> 1200, mid (+400) -> 1600, small (+300) -> 1900
    doc = _plan(path, "n1", "--eviction-hard", "memory.available<1Gi", "--eviction-minimum-reclaim", "memory.available=600Mi")
    assert [k[0] for k in _kills(doc)] == ["hog", "mid", "small"]
    assert [k[1] for k in _kills(doc)] == [0, 10, 20]
    assert "etcd" in {s["pod"] for s in doc["skipped"]} or len(_kills(doc)) == 3


def test_soft_threshold_evicts_only_after_its_grace(write_snapshot):
    path = _cluster(write_snapshot, _kubelet("n1", evictionMaxPodGracePeriod=20))
    doc = _plan(path, "n1", "--eviction-hard", "memory.available<100Mi", "--eviction-soft", "memory.available<500Mi",
                "--eviction-soft-grace-period", "memory.available=1m30s")
    kills = _kills(doc)
    assert kills[0][:2] == ("hog", 90)
    assert kills[0][2] == 20      # min(evictionMaxPodGracePeriod 20, terminationGracePeriodSeconds 30)
    taint = next(a for a in doc["actions"] if a["type"] == "taint")
    assert taint["at"] == 0      # the condition does not wait for the grace period


def test_admission_message_lists_the_conditions_as_go_prints_a_slice(write_snapshot):
    """eviction_manager.go Admit: fmt.Sprintf(nodeConditionMessageFmt, m.nodeConditions) formats the
    []NodeConditionType with %v, so several conditions are separated by spaces, not commas."""
    path = _cluster(write_snapshot)        # 300Mi available, 50 PIDs free
    doc = _plan(path, "n1", "--eviction-hard", "memory.available<500Mi,pid.available<100")
    [w] = [w for w in doc["warnings"] if "the kubelet rejects" in w]
    assert w.startswith("node/n1: while MemoryPressure=True and PIDPressure=True the kubelet rejects every new "
                        "non-critical pod")
    assert '"The node had condition: [MemoryPressure PIDPressure]. "' in w


def test_pid_pressure_ranks_by_priority_then_process_count(write_snapshot):
    items = [node("n1")]
    for name, prio in (("busy-important", 100), ("busy", 0), ("quiet", 0)):
        items.append(pod(name, "n1", priority=prio))
    stats = _stats("n1", 4096 * MI, [("busy-important", 10 * MI, 400), ("busy", 10 * MI, 300), ("quiet", 10 * MI, 20)],
                   maxpid=1000, curproc=950)
    path = write_snapshot(*items, stats)
    doc = _plan(path, "n1", "--eviction-hard", "pid.available<100", "--eviction-minimum-reclaim", "pid.available=300")
    # 50 free; needs >= 400: busy (prio 0, 300 procs) -> 350; quiet (prio 0) -> 370; busy-important -> 770
    assert [k[0] for k in _kills(doc)] == ["busy", "quiet", "busy-important"]
    # TestPIDPressure_VerifyPodStatus: the threshold and the available PIDs of the cycle of each kill
    assert [a["reason"] for a in doc["actions"] if a["type"] == "kill"] == [
        "The node was low on resource: pids. Threshold quantity: 100, available: %d." % n for n in (50, 350, 370)]
    assert any(a["type"] == "taint" and a["key"] == "node.kubernetes.io/pid-pressure" for a in doc["actions"])
    assert any("rejects every new non-critical pod" in w for w in doc["warnings"])


def test_signal_override_and_critical_pods_are_never_killed(write_snapshot):
    path = _cluster(write_snapshot)
    doc = _plan(path, "n1", "--signal", "n1:memory.available=0", "--eviction-hard", "memory.available<10Gi")
    killed = [k[0] for k in _kills(doc)]
    assert "etcd" not in killed and set(killed) == {"hog", "mid", "small", "calm"}
    assert any(s["pod"] == "etcd" and "critical" in s["reason"] for s in doc["skipped"])
    [short] = doc["shortfall"]
    assert (short["node"], short["code"], short["pod"]) == ("n1", "threshold-persists", "")
    assert "no evictable pods left" in short["reason"]


def test_percentage_signal_override(write_snapshot):
    path = _cluster(write_snapshot)
    # capacity = available + working set; 50% of it is far above 500Mi: nothing to do (the hard
    # threshold is also copied to allocatableMemory.available, so that signal is overridden too)
    doc = _plan(path, "n1", "--signal", "n1:memory.available=50%", "--signal", "n1:allocatableMemory.available=50%",
                "--eviction-hard", "memory.available<500Mi")
    assert _kills(doc) == []


def test_node_kubelet_config_is_used_and_flags_win(write_snapshot):
    path = _cluster(write_snapshot, _kubelet("n1", evictionHard={"memory.available": "200Mi"}))
    assert _kills(_plan(path, "n1")) == []                       # 300Mi is not < 200Mi
    assert len(_kills(_plan(path, "n1", "--eviction-hard", "memory.available<400Mi"))) == 1


def test_default_hard_thresholds_apply_without_any_config(write_snapshot):
    path = _cluster(write_snapshot)
    assert _kills(_plan(path, "n1", "--signal", "n1:memory.available=50Mi")) == [("hog", 0, 1)]   # default <100Mi


def test_kubelet_config_file_openshift_node_config(write_snapshot, tmp_path):
    path = _cluster(write_snapshot, _kubelet("n1", evictionHard={"memory.available": "100Mi"}))
    cfg = tmp_path / "node-config.yaml"
    cfg.write_text("apiVersion: v1\nkind: NodeConfig\nkubeletArguments:\n"
                   "  eviction-hard:\n  - memory.available<500Mi\n"
                   "  eviction-minimum-reclaim: [\"memory.available=200Mi\"]\n")
    assert [k[0] for k in _kills(_plan(path, "n1", "--kubelet-config", str(cfg)))] == ["hog"]


def test_kubelet_config_file_kubeletconfiguration(write_snapshot, tmp_path):
    path = _cluster(write_snapshot)
    cfg = tmp_path / "kubelet.yaml"
    cfg.write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                   "evictionHard:\n  memory.available: 1Gi\nevictionMinimumReclaim:\n  memory.available: 600Mi\n")
    assert [k[0] for k in _kills(_plan(path, "n1", "--kubelet-config", str(cfg)))] == ["hog", "mid", "small"]


def test_qos_ranking_and_oom(write_snapshot):
    path = _cluster(write_snapshot)
    doc = _plan(path, "n1", "--eviction-hard", "memory.available<500Mi", "--ranking", "qos", "--oom")
    assert _kills(doc)[0][0] == "hog"
    oom = {e["pod"]: e for e in doc["oom"]["n1"]}
    # the static etcd pod has no requests and no system-node-critical class: BestEffort, 1000, and
    # the biggest working set, so the kernel takes it first although the kubelet never evicts it
    assert doc["oom"]["n1"][0]["pod"] == "etcd" and oom["etcd"]["oomScoreAdj"] == 1000
    assert oom["hog"]["oomScoreAdj"] == 1000 - (1000 * 256) // 8192
    assert any("kernel OOM killer" in n for n in doc["notes"])


def test_table_output_is_pasteable(write_snapshot):
    path = _cluster(write_snapshot)
    r = run_cli("-f", path, "pressure", "n1", "--eviction-hard", "memory.available<500Mi")
    assert r.returncode == 0
    assert "KILL" in r.stdout and "default/hog" in r.stdout and "Traceback" not in r.stdout + r.stderr


@pytest.mark.parametrize("args, message", [
    (["--eviction-hard", "memory.available>500Mi"], "error: --eviction-hard: malformed pair, expect string<string"),
    (["--eviction-hard", "mem.available<500Mi"], "error: --eviction-hard: unsupported eviction signal mem.available"),
    (["--eviction-hard", "memory.available<0"], "error: --eviction-hard: eviction threshold memory.available must be positive: 0"),
    (["--eviction-hard", "memory.available<150%"],
     "error: --eviction-hard: eviction percentage threshold memory.available must be <= 100%: 150%"),
    (["--eviction-soft", "memory.available<1Gi"],
     "error: --eviction-soft: grace period must be specified for the soft eviction threshold memory.available"),
    (["--eviction-soft-grace-period", "memory.available=soon"], 'error: --eviction-soft-grace-period: time: invalid duration "soon"'),
    (["--eviction-minimum-reclaim", "memory.available=-1Gi"],
     "error: --eviction-minimum-reclaim: negative eviction minimum reclaim specified for memory.available"),
    (["--eviction-max-pod-grace-period", "ten"], "error: --eviction-max-pod-grace-period: expected a whole number of seconds"),
    (["--signal", "n1:memory.available"], "error: --signal: expected NODE:SIGNAL=QUANTITY"),
    (["--signal", "n1:memory.available=lots"], "error: --signal: invalid quantity"),
    (["--signal", "nope:memory.available=1Gi"], "error: --signal: unknown node 'nope'"),
    (["nope"], "error: NODE: unknown node 'nope'"),
    (["--kubelet-config", "/nonexistent/kubelet.yaml"], "error: /nonexistent/kubelet.yaml: --kubelet-config: no such file"),
])
def test_bad_input_is_one_error_line(write_snapshot, args, message):
    path = _cluster(write_snapshot)
    r = run_cli("-f", path, "pressure", *args)
    assert r.returncode == 1, r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), r.stderr


# The kubelet's map flags accumulate when repeated (cliflag LangleSeparatedMapStringString and
# MapStringString: `--flag "a<foo" --flag "b<foo"`, a later key wins): repeating one is the same
# as one comma-separated value, never the last occurrence alone.
@pytest.mark.parametrize("repeated,joined", [
    (["--eviction-hard", "memory.available<9Gi", "--eviction-hard", "nodefs.available<5%"],
     ["--eviction-hard", "memory.available<9Gi,nodefs.available<5%"]),
    (["--eviction-hard", "memory.available<1Mi", "--eviction-hard", "memory.available<9Gi"],
     ["--eviction-hard", "memory.available<9Gi"]),
    (["--eviction-soft", "memory.available<9Gi", "--eviction-soft-grace-period", "memory.available=30s",
      "--eviction-soft", "nodefs.available<5%", "--eviction-soft-grace-period", "nodefs.available=1m"],
     ["--eviction-soft", "memory.available<9Gi,nodefs.available<5%",
      "--eviction-soft-grace-period", "memory.available=30s,nodefs.available=1m"]),
    (["--eviction-hard", "memory.available<9Gi", "--eviction-minimum-reclaim", "memory.available=1Gi",
      "--eviction-minimum-reclaim", "nodefs.available=1Gi"],
     ["--eviction-hard", "memory.available<9Gi", "--eviction-minimum-reclaim", "memory.available=1Gi,nodefs.available=1Gi"]),
])
def test_repeated_threshold_flags_accumulate_as_the_kubelets_do(write_snapshot, repeated, joined):
    path = _cluster(write_snapshot)
    a = run_cli("-f", path, "--now", NOW, "-o", "json", "pressure", "n1", *repeated)
    b = run_cli("-f", path, "--now", NOW, "-o", "json", "pressure", "n1", *joined)
    assert a.returncode == b.returncode and a.returncode in (0, 4), a.stderr + b.stderr
    assert a.stdout == b.stdout
    assert json.loads(a.stdout)["pressure"][0]["kills"] > 0      # the 9Gi memory threshold acts


# Each flag replaces the node's whole map (kubelet flags override KubeletConfiguration fields):
# a soft threshold from one layer without its grace period in the other is the kubelet's error,
# named at the flag the user gave, with the layer the other map came from.
@pytest.mark.parametrize("config,args,message", [
    ({"evictionSoft": {"memory.available": "1Gi", "nodefs.available": "15%"},
      "evictionSoftGracePeriod": {"memory.available": "1m", "nodefs.available": "2m"}},
     ["--eviction-soft-grace-period", "memory.available=10s"],
     "error: --eviction-soft-grace-period: grace period must be specified for the soft eviction threshold "
     "nodefs.available (evictionSoft from NodeKubeletConfig n1; the flag replaces the whole "
     "evictionSoftGracePeriod map)"),
    ({"evictionSoftGracePeriod": {"memory.available": "1m"}},
     ["--eviction-soft", "nodefs.available<10%"],
     "error: --eviction-soft: grace period must be specified for the soft eviction threshold nodefs.available "
     "(evictionSoftGracePeriod from NodeKubeletConfig n1; the flag replaces the whole evictionSoft map)"),
])
def test_soft_threshold_and_grace_period_from_different_layers(write_snapshot, config, args, message):
    path = _cluster(write_snapshot, _kubelet("n1", **config))
    r = run_cli("-f", path, "pressure", "n1", *args)
    assert r.returncode == 1, r.stdout
    assert r.stderr == message + "\n"


def test_bad_threshold_in_snapshot_config_names_the_object(write_snapshot):
    path = _cluster(write_snapshot, _kubelet("n1", evictionHard={"memory.available": "-1Gi"}))
    r = run_cli("-f", path, "pressure", "n1")
    assert r.returncode == 1
    assert "NodeKubeletConfig n1: kubeletconfig.evictionHard: eviction threshold memory.available must be positive: -1Gi" in r.stderr


def test_demo_cluster_plan_is_deterministic():
    a = run_cli("--demo", "-o", "json", "pressure")
    b = run_cli("--demo", "-o", "json", "pressure")
    assert a.returncode == 0 and a.stdout == b.stdout
    doc = json.loads(a.stdout)
    assert all(x["rule"] == "pressure" for x in doc["actions"])


# cliflag's map flags, one parser for the command line and for kubelet config files:
# (text, separator, the map or the kubelet's error)
FLAG_MAPS = [
    ("memory.available<500Mi,nodefs.available<10%", "<", {"memory.available": "500Mi", "nodefs.available": "10%"}),
    (" memory.available < 1Gi ,,", "<", {"memory.available": "1Gi"}),                  # spaces trimmed, empties skipped
    ("memory.available=1m30s", "=", {"memory.available": "1m30s"}),
    ("memory.available>500Mi", "<", "malformed pair, expect string<string"),
    ("memory.available<500Mi", "=", "malformed pair, expect string=string"),
]


@pytest.mark.parametrize("text,sep,expected", FLAG_MAPS)
def test_kubelet_map_flags(text, sep, expected):
    from kubectl_evict.eviction.thresholds import ThresholdError, parse_flag_map
    if isinstance(expected, dict):
        assert parse_flag_map(text, sep) == expected
    else:
        with pytest.raises(ThresholdError, match="^%s$" % expected):
            parse_flag_map(text, sep)


def test_kubelet_config_file_malformed_map_flag_is_a_clean_error(write_snapshot, tmp_path):
    """The same kubelet error for an OpenShift kubeletArguments entry, naming the file and the flag."""
    path = _cluster(write_snapshot)
    cfg = tmp_path / "node-config.yaml"
    cfg.write_text("apiVersion: v1\nkind: NodeConfig\nkubeletArguments:\n  eviction-hard:\n  - memory.available>500Mi\n")
    r = run_cli("-f", path, "pressure", "n1", "--kubelet-config", str(cfg))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    [line] = r.stderr.splitlines()
    assert line.startswith("error: ") and str(cfg) in line and "kubeletArguments.eviction-hard" in line
    assert "malformed pair, expect string<string: 'memory.available>500Mi'" in line


# A node the input has no stats summary for (its kubelet did not answer when the snapshot was
# taken) cannot be evaluated: with no NODE every node is asked about, and those are named rather
# than passed over in silence. (args, extra stats, nodes named in the warning; None: no warning)
NO_STATS = [
    ([], [], "node n2"),                                   # n1 has stats, n2 has none
    (["n1"], [], None),                                    # only n1 was asked about
    (["n2"], [], "node n2"),
    ([], [_stats("n2", 6 * 1024 * MI, [])], None),          # every node has its summary
]


@pytest.mark.parametrize("args, extra, named", NO_STATS, ids=["all", "n1", "n2", "all-with-stats"])
def test_nodes_without_a_stats_summary_are_named(write_snapshot, args, extra, named):
    doc = _plan(_cluster(write_snapshot, *extra), *args, "--eviction-hard", "memory.available<500Mi")
    warned = [w for w in doc["warnings"] if w.startswith("no NodeStatsSummary for ")]
    assert warned == ([] if named is None else
                      ["no NodeStatsSummary for %s: nothing to evaluate there (add one, or use --signal)" % named])
    assert [a["pod"] for a in doc["actions"] if a["type"] == "kill"][:1] == ([] if args == ["n2"] else ["hog"])
    assert doc["incomplete"] == []                         # the kind is held: a warning, not a gap


# eviction_manager_scenarios.json's *_VerifyPodStatus vectors give the kubelet's exact status
# message; their inputs ("see upstream test") are rebuilt here from eviction_manager_test.go:
# the reclaimed threshold, the signal's observed available, and (disk) one container above its
# request. The expected message is the vector's, with the trailing space our reasons strip.
_STATUS = {v["source"].split(" ", 1)[1]: v["expected"]["podStatus"] for v in SCENARIOS if "podStatus" in v["expected"]}
STATUS_CASES = [
    # (vector, signal, threshold, available bytes/count, container usage (rootfs, logs) or working set, request)
    ("TestMemoryPressure_VerifyPodStatus", "memory.available", "2Gi", 1500 * MI, None, None),
    ("TestPIDPressure_VerifyPodStatus", "pid.available", "1200", 500, None, None),
    ("TestDiskPressureNodeFs_VerifyPodStatus/eviction due to disk pressure; no image fs",
     "nodefs.available", "2Gi", 1536 * MI, (600 * MI, 100 * MI), "100Mi"),
    ("TestDiskPressureNodeFs_VerifyPodStatus/eviction due to image disk pressure; image fs",
     "imagefs.available", "50Gi", 10 * 1024 * MI, (70 * 1024 * MI, 10 * 1024 * MI), "50Gi"),
]


@pytest.mark.parametrize("case", STATUS_CASES, ids=[c[0] for c in STATUS_CASES])
def test_eviction_status_message_matches_upstream(case):
    """helpers.go evictionMessage: `The node was low on resource: <r>. Threshold quantity: <q>,
    available: <a>. ` then one sentence per container above its request."""
    from kubectl_evict.eviction.thresholds import SIGNAL_RESOURCE, parse_threshold_statement
    from kubectl_evict.rules.pressure import eviction_message
    name, signal, value, available, usage, request = case
    want = _STATUS[name]
    resource = SIGNAL_RESOURCE[signal]
    th = parse_threshold_statement(signal, value)
    container = {"name": "above-requests"}
    if request:
        container["resources"] = {"requests": {"ephemeral-storage": request}}
    p = _pods([{"kind": "Pod", "metadata": {"name": "pod", "namespace": "ns", "uid": "u1"},
                "spec": {"containers": [container]}}])[0]
    stats = {"podRef": {"name": "pod", "namespace": "ns", "uid": "u1"}, "containers": [{"name": "above-requests"}]}
    if usage:
        stats["containers"][0].update({"rootfs": {"usedBytes": usage[0]}, "logs": {"usedBytes": usage[1]}})
    u = pod_usages({"pods": [stats]}).get("u1")
    got = eviction_message(resource, p, u, th, Observation(available, 10 * available))
    assert (want["phase"], want["reason"]) == ("Failed", "Evicted")
    assert got == want["message"]
    assert want["conditions"][0]["message"] == want["message"]
