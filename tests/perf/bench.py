#!/usr/bin/env python3
"""Benchmark kubectl-evictplan against Python's own json.load on a large synthetic snapshot.

    python tests/perf/bench.py                          # 5000 nodes / 150000 pods (the upstream envelope)
    python tests/perf/bench.py --nodes 500 --pods 15000 # quick run
    python tests/perf/bench.py --steps json,load --repeat 3
    python tests/perf/bench.py --lean                   # fat AND lean snapshots, ratios side by side
    python tests/perf/bench.py --no-managed-fields      # the lean snapshot only

Snapshots from `kubectl get -o json` (>= 1.21) and `snapshot --redact` carry no managedFields
("lean", ~4 KB a pod); older ones and `--show-managed-fields` carry them ("fat", ~11 KB a pod).
json.load pays for every byte and the plugin skips managedFields, so the fat file flatters the
plugin: the goal (issue 16) is every step within 0.5 x json.load's wall time AND peak RSS on both.

The snapshot is made by generate.py (same directory) and cached in --workdir. Every step runs in a
fresh subprocess, so its wall time, CPU time and peak RSS are its own (peak RSS comes from the
rusage that os.wait4() returns for that one child). Steps:

  json        baseline: python -c 'json.load(open(FILE))'
  msgspec     reference: msgspec.json.decode of the same bytes (a fast C parser)
  startup     python -m kubectl_evict --help (interpreter + CLI import cost)
  load        kubectl_evict.source.files.load_snapshot([FILE]), in a process that says first it ends
              after its one command (collector.will_exit_now), as the console entry point does
  affinity    kubectl evictplan -f FILE -o json affinity --label NODE:workload-class=retired (x --count nodes)
  drain       ... drain NODE... (--count nodes) --ignore-daemonsets --delete-emptydir-data
  controller  ... controller --fail-zone ZONE (or --fail NODE for every node of the zone)
  pressure    ... pressure (all nodes)
  shutdown    ... shutdown NODE... (--count nodes)
  upgrade     ... upgrade NODE... (--pool-size nodes of the general pool) --provider gke --max-surge
              --upgrade-surge: a node-pool upgrade, batch by batch (not in the default steps)

A step whose code does not exist yet (`python -m kubectl_evict COMMAND --help` fails, or the loader
cannot be imported) is reported as n/a. Exit codes 0, 3 and 4 (plan computed; something blocked or short) count
as success. This is not a pytest test; run it by hand.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import generate  # noqa: E402  (same directory)

ALL_STEPS = ["json", "msgspec", "startup", "load", "affinity", "drain", "controller", "pressure", "shutdown",
             "upgrade"]
DEFAULT_STEPS = ["json", "startup", "load", "affinity", "drain", "controller", "pressure", "shutdown"]
CLI_STEPS = {"affinity", "drain", "controller", "pressure", "shutdown", "upgrade"}


def log(msg: str) -> None:
    print(f"bench: {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------
# snapshot
# ------------------------------------------------------------------------------------------------

def generator_digest() -> str:
    with open(os.path.join(HERE, "generate.py"), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def ensure_snapshot(a, managed_fields: bool) -> tuple[str, dict]:
    os.makedirs(a.workdir, exist_ok=True)
    base = (f"snapshot-n{a.nodes}-p{a.pods}-s{a.seed}{'-stats' if a.stats else ''}"
            f"{'' if managed_fields else '-nomf'}-{a.format}")
    path = os.path.join(a.workdir, base + ".json")
    meta_path = os.path.join(a.workdir, base + ".meta.json")
    digest = generator_digest()
    if not a.regen and os.path.exists(path) and os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)
        if meta.get("generator") == digest and meta.get("bytes") == os.path.getsize(path):
            log(f"reusing {path} ({meta['bytes'] / 1e6:.0f} MB)")
            return path, meta
        log("cached snapshot is stale (generator changed); regenerating")
    cmd = [a.python, os.path.join(HERE, "generate.py"), "--nodes", str(a.nodes), "--pods", str(a.pods),
           "--seed", str(a.seed), "--format", a.format, "--out", path] + (["--stats"] if a.stats else []) + (
           [] if managed_fields else ["--no-managed-fields"])
    log("generating: " + " ".join(cmd))
    r = measure(cmd, cwd=REPO, env=os.environ.copy(), timeout=a.timeout, capture_stderr=True)
    if r["rc"] != 0:
        sys.exit(f"bench: generator failed (rc {r['rc']}):\n{r['stderr']}")
    info = {}
    for line in r["stderr"].splitlines():
        if line.startswith("generate: {"):
            info = json.loads(line[len("generate: "):])
    meta = {"generator": digest, "bytes": os.path.getsize(path), "generateWallSeconds": r["wall"],
            "generateCpuSeconds": r["cpu"], "generatePeakRssMB": r["rss_mb"], "counts": info.get("counts"),
            "avgPodBytes": info.get("avgPodBytes"), "nodes": a.nodes, "pods": a.pods, "seed": a.seed,
            "stats": a.stats, "format": a.format, "managedFields": managed_fields}
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=2, sort_keys=True)
    log(f"generated {path}: {meta['bytes'] / 1e6:.0f} MB in {r['wall']:.1f}s (peak RSS {r['rss_mb']:.0f} MB)")
    return path, meta


# ------------------------------------------------------------------------------------------------
# measuring one child process
# ------------------------------------------------------------------------------------------------

def measure(cmd: list[str], cwd: str, env: dict, timeout: float, capture_stderr: bool = True) -> dict:
    """Run cmd with stdout to /dev/null; return wall/cpu seconds and the child's own peak RSS."""
    with tempfile.TemporaryFile() as err, open(os.devnull, "wb") as devnull:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=devnull,
                             stderr=err if capture_stderr else None)
        deadline = t0 + timeout
        timed_out = False
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                p.kill()
                timed_out = True
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.01)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)  # keep Popen from waiting again
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
    return {"rc": p.returncode, "wall": wall, "cpu": ru.ru_utime + ru.ru_stime, "user": ru.ru_utime,
            "sys": ru.ru_stime, "rss_mb": ru.ru_maxrss / 1024.0,  # Linux: KiB
            "timeout": timed_out, "stderr": stderr}


# ------------------------------------------------------------------------------------------------
# steps
# ------------------------------------------------------------------------------------------------

def child_env() -> dict:
    env = os.environ.copy()
    env["PYTHONPATH"] = REPO + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def available(a, step: str, env: dict) -> tuple[bool, str]:
    if step in ("json", "msgspec"):
        if step == "msgspec":
            r = subprocess.run([a.python, "-c", "import msgspec"], capture_output=True, env=env, cwd=REPO)
            return r.returncode == 0, "msgspec not installed"
        return True, ""
    if step == "load":
        r = subprocess.run([a.python, "-c", "from kubectl_evict.source.files import load_snapshot"],
                           capture_output=True, env=env, cwd=REPO, timeout=120)
        return r.returncode == 0, "kubectl_evict.source.files.load_snapshot not importable"
    if step == "startup":
        r = subprocess.run([a.python, "-m", "kubectl_evict", "--help"], capture_output=True, env=env, cwd=REPO, timeout=120)
        return r.returncode == 0, "python -m kubectl_evict --help fails"
    r = subprocess.run([a.python, "-m", "kubectl_evict", step, "--help"], capture_output=True, env=env, cwd=REPO, timeout=120)
    return r.returncode == 0, f"`{step} --help` fails (command not there yet)"


def pick_args(a) -> dict:
    """Command arguments from the (cheap, deterministic) node layout: no need to read the file."""
    nodes = generate.layout_nodes(a.nodes, a.seed)
    rng = random.Random(f"{a.seed}/bench")
    workers = [n for n in nodes if n.pool != generate.CP_POOL]
    general = [n for n in workers if n.pool == "general"] or workers
    k = min(a.count, len(workers))
    drain = sorted(n.name for n in rng.sample(workers, k))
    shutdown = sorted(n.name for n in rng.sample(workers, k))
    relabel = sorted(n.name for n in rng.sample(general, min(a.count, len(general))))
    zone = generate.ZONES[1]
    pool = sorted(n.name for n in general)[:a.pool_size]
    return {"drain": drain, "shutdown": shutdown, "relabel": relabel, "zone": zone,
            "zone_nodes": sorted(n.name for n in nodes if n.zone == zone), "pool": pool}


def command(a, step: str, snap: str, args: dict, env: dict) -> list[str]:
    py = a.python
    if step == "json":
        return [py, "-c", "import json, sys; json.load(open(sys.argv[1]))", snap]
    if step == "msgspec":
        return [py, "-c", "import msgspec, sys; msgspec.json.decode(open(sys.argv[1], 'rb').read())", snap]
    if step == "startup":
        return [py, "-m", "kubectl_evict", "--help"]
    if step == "load":
        # as the console entry point: the load's objects are frozen, not walked by the next collection
        return [py, "-c", "import sys; from kubectl_evict import collector; collector.will_exit_now(); "
                "from kubectl_evict.source.files import load_snapshot; load_snapshot([sys.argv[1]])", snap]
    cli = [py, "-m", "kubectl_evict", "-f", snap, "-o", "json"]
    if step == "affinity":
        rel = []
        for n in args["relabel"]:
            rel += ["--label", f"{n}:{generate.POOL_LABEL}=retired"]
        return cli + ["affinity"] + rel
    if step == "drain":
        return cli + ["drain"] + args["drain"] + ["--ignore-daemonsets", "--delete-emptydir-data"]
    if step == "controller":
        h = subprocess.run([py, "-m", "kubectl_evict", "controller", "--help"], capture_output=True, text=True, env=env, cwd=REPO)
        if "--fail-zone" in h.stdout:
            return cli + ["controller", "--fail-zone", args["zone"]]
        fails = []
        for n in args["zone_nodes"]:
            fails += ["--fail", n]
        return cli + ["controller"] + fails
    if step == "pressure":
        return cli + ["pressure"]
    if step == "shutdown":
        return cli + ["shutdown"] + args["shutdown"]
    if step == "upgrade":
        return cli + ["upgrade"] + args["pool"] + ["--ignore-daemonsets", "--delete-emptydir-data", "--force",
                                                   "--provider", "gke", "--max-surge", str(a.upgrade_surge)]
    raise ValueError(step)


def describe(cmd: list[str], snap: str) -> str:
    s = " ".join(("FILE" if c == snap else c) for c in cmd[1:])
    return s if len(s) < 160 else s[:157] + "..."


# ------------------------------------------------------------------------------------------------
# main
# ------------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    global REPO
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=150000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--steps", default=",".join(DEFAULT_STEPS),
                    help=f"comma-separated, from {','.join(ALL_STEPS)} (default: {','.join(DEFAULT_STEPS)})")
    ap.add_argument("--repeat", type=int, default=1, help="runs per step; the table shows the fastest (default 1)")
    ap.add_argument("--count", type=int, default=100, help="nodes to drain / shut down / relabel (default 100)")
    ap.add_argument("--pool-size", type=int, default=500, help="nodes of the general pool to upgrade (default 500)")
    ap.add_argument("--upgrade-surge", type=int, default=1, help="upgrade's --max-surge (default 1: GKE's default)")
    ap.add_argument("--workdir", default="/tmp/evictplan-bench", help="snapshot cache and results (default /tmp/evictplan-bench)")
    ap.add_argument("--no-stats", dest="stats", action="store_false",
                    help="snapshot without NodeKubeletConfig/NodeStatsSummary (pressure then has no signals)")
    ap.add_argument("--format", choices=("compact", "kubectl"), default="compact", help="snapshot JSON layout (see generate.py)")
    ap.add_argument("--no-managed-fields", dest="managed_fields", action="store_false",
                    help="only the lean snapshot: no metadata.managedFields (what kubectl >= 1.21 prints by default)")
    ap.add_argument("--lean", action="store_true",
                    help="measure the fat (managedFields) AND the lean snapshot in this run, ratios side by side")
    ap.add_argument("--regen", action="store_true", help="regenerate the snapshot even if cached")
    ap.add_argument("--python", default=sys.executable, help="interpreter for the steps (default: this one)")
    ap.add_argument("--repo", default=REPO, help="checkout whose kubectl_evict is benchmarked (default: this one)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per step run (default 1800)")
    ap.add_argument("--results", help="results JSON path (default WORKDIR/results-nN-pP-TIMESTAMP.json)")
    ap.add_argument("--goal", type=float, default=0.5, help="ratio to json.load every step should stay within (default 0.5)")
    a = ap.parse_args(argv)
    REPO = os.path.abspath(a.repo)
    steps = [s.strip() for s in a.steps.split(",") if s.strip()]
    bad = [s for s in steps if s not in ALL_STEPS]
    if bad:
        ap.error(f"unknown step(s) {bad}; choose from {ALL_STEPS}")
    if a.repeat < 1:
        ap.error("--repeat must be >= 1")

    variants = [("fat", True), ("lean", False)] if a.lean else [("lean" if not a.managed_fields else "fat", a.managed_fields)]
    env = child_env()
    args = pick_args(a)
    runs = []
    for label, mf in variants:
        snap, meta = ensure_snapshot(a, mf)
        runs.append({"variant": label, "snapshot": {"path": snap, **meta},
                     "steps": run_steps(a, steps, snap, args, env, label)})

    # ---- report
    print(f"\nsnapshots: {a.nodes} nodes, {a.pods} pods{' + kubelet stats' if a.stats else ''} ({a.format})")
    for run in runs:
        m = run["snapshot"]
        print(f"  {run['variant']}: {m['bytes'] / 1e6:.0f} MB, {m.get('avgPodBytes') or '?'} bytes a pod, {m['path']}")
    print(f"host: {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} CPUs, "
          f"load {os.getloadavg()[0]:.1f} now; best of {a.repeat}; ratios are against json.load of the same file, "
          f"in this run\n")
    hdr = ["step"]
    for run in runs:
        v = run["variant"]
        hdr += [f"{v} wall s", f"{v} cpu s", f"{v} RSS MB", f"{v} wall/json", f"{v} RSS/json", f"{v} load"]
    rows = []
    for i, step in enumerate(steps):
        row = [step]
        for run in runs:
            r = run["steps"][i]
            if r["status"] != "ok":
                row += [r["status"], "-", "-", "-", "-", "-"]
                continue
            row += [f"{r['wall']:.2f}", f"{r['cpu']:.2f}", f"{r['peakRssMB']:.0f}",
                    f"{r['wallVsJson']:.2f}" if "wallVsJson" in r else "-",
                    f"{r['rssVsJson']:.2f}" if "rssVsJson" in r else "-",
                    f"{max(x['loadavg1'] for x in r['samples']):.1f}"]
        rows.append(row)
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(hdr)]
    line = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))  # noqa: E731
    print(line(hdr))
    print(line(["-" * w for w in widths]))
    for row in rows:
        print(line(row))
    worst = [(run["variant"], r["step"], r.get("wallVsJson"), r.get("rssVsJson")) for run in runs for r in run["steps"]
             if r["status"] == "ok" and r["step"] not in ("json", "msgspec", "startup") and "wallVsJson" in r]
    if worst:
        over = [w for w in worst if w[2] > a.goal or w[3] > a.goal]
        print(f"\ngoal (every step <= {a.goal} x json.load in wall time and peak RSS): "
              + ("met" if not over else "NOT met: " + ", ".join(f"{v} {s} ({wr:.2f}, {rr:.2f})" for v, s, wr, rr in over)))

    out = a.results or os.path.join(a.workdir, f"results-n{a.nodes}-p{a.pods}-{time.strftime('%Y%m%dT%H%M%S')}.json")
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=REPO).stdout.strip() or None
    doc = {"python": a.python, "pythonVersion": platform.python_version(),
           "cpus": os.cpu_count(), "repo": REPO, "commit": commit, "repeat": a.repeat, "count": a.count,
           "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "runs": runs}
    if len(runs) == 1:  # the single-variant layout earlier results used
        doc.update(snapshot=runs[0]["snapshot"], steps=runs[0]["steps"])
    with open(out, "w") as f:
        json.dump(doc, f, indent=2)
    print(f"\nresults: {out}")
    return 0 if all(r["status"] in ("ok", "n/a") for run in runs for r in run["steps"]) else 1


def run_steps(a, steps: list, snap: str, args: dict, env: dict, label: str) -> list:
    """Run each step on one snapshot (fresh process each); ratios against this run's json step."""
    results = []
    for step in steps:
        ok, why = available(a, step, env)
        if not ok:
            log(f"{step}: n/a ({why})")
            results.append({"step": step, "status": "n/a", "reason": why})
            continue
        cmd = command(a, step, snap, args, env)
        samples = []
        status = "ok"
        for i in range(a.repeat):
            load = os.getloadavg()[0]
            log(f"{label} {step} [{i + 1}/{a.repeat}] (load {load:.1f}): {describe(cmd, snap)}")
            r = measure(cmd, cwd=REPO, env=env, timeout=a.timeout)
            samples.append({"wall": round(r["wall"], 3), "cpu": round(r["cpu"], 3), "user": round(r["user"], 3),
                            "sys": round(r["sys"], 3), "peakRssMB": round(r["rss_mb"], 1), "rc": r["rc"],
                            "loadavg1": round(load, 2)})
            if r["timeout"]:
                status = "timeout"
            elif r["rc"] not in (0, 3, 4):   # 5 (incomplete) is an error: the generator lists its kinds
                status = f"error rc={r['rc']}"
                tail = r["stderr"].strip().splitlines()[-3:]
                log(f"{step}: exit {r['rc']}: " + " | ".join(tail))
                samples[-1]["stderr"] = "\n".join(tail)
            if status != "ok":
                break
        best = min(samples, key=lambda s: s["wall"])
        results.append({"step": step, "status": status, "command": describe(cmd, snap),
                        "wall": best["wall"], "cpu": best["cpu"], "peakRssMB": max(s["peakRssMB"] for s in samples),
                        "exitCode": best["rc"], "samples": samples})
    base = next((r for r in results if r["step"] == "json" and r["status"] == "ok"), None)
    for r in results:
        if base and r["status"] == "ok":
            r["wallVsJson"] = round(r["wall"] / base["wall"], 2)
            r["rssVsJson"] = round(r["peakRssMB"] / base["peakRssMB"], 2)
    return results


if __name__ == "__main__":
    sys.exit(main())
