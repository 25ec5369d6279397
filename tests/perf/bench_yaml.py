"""YAML against JSON: load the same generated cluster from both and compare time and peak memory.

Not a test (pytest collects nothing here). Issue 22's goal: a YAML snapshot (what
`kubectl evictplan snapshot -o yaml` writes) within 3x of the same snapshot as JSON, in CPU time
and in peak RSS. Each load runs in a fresh subprocess (`load_snapshot`, what `-f FILE` does);
`--baseline` adds PyYAML's own loader (`yaml.load_all` with CSafeLoader, the loader before issue
22) and `--yamltext` the libyaml event reader alone (the reader the rapidyaml path falls back to)
for reference. The `reader` column says which YAML reader really ran.

    python tests/perf/bench_yaml.py --nodes 350 --pods 10000 [--baseline] [--repeat 1]

Files are cached in --workdir (default /tmp/evictplan-bench-yaml). Keep to moderate sizes
(10,000-30,000 pods): the machine is shared, and YAML takes many times JSON's time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Each load runs as the console entry point runs it: the process says first that it ends after its one
# command (collector.will_exit_now), so what the load built is frozen, not walked by a collection.
EXIT = "from kubectl_evict import collector; collector.will_exit_now(); "
LOAD = ("import sys; " + EXIT + "from kubectl_evict.source.files import load_snapshot; "
        "s = load_snapshot([sys.argv[1]]); print(len(s.pods))")
# The same load, saying which YAML reader ran: the rapidyaml fast path, or the libyaml event
# reader (rapidyaml missing, or the text holds something the two could read differently).
LOAD_YAML = ("import sys; " + EXIT + "from kubectl_evict.source import fastyaml, yamltext; "
             "from kubectl_evict.source.files import load_snapshot; used = []; real = yamltext.stream; "
             "yamltext.stream = lambda d, s: (used.append(1), real(d, s))[1]; "
             "s = load_snapshot([sys.argv[1]]); print(len(s.pods), 'yamltext' if used or not fastyaml.AVAILABLE "
             "else 'rapidyaml')")
# The libyaml event reader alone (the reader before the rapidyaml path), for reference.
LOAD_YAMLTEXT = ("import sys; " + EXIT + "from kubectl_evict.source import fastyaml; fastyaml.AVAILABLE = False; "
                 "from kubectl_evict.source.files import load_snapshot; "
                 "s = load_snapshot([sys.argv[1]]); print(len(s.pods), 'yamltext')")
BASELINE = ("import sys, yaml; docs = list(yaml.load_all(open(sys.argv[1], 'rb').read().decode(), "
            "Loader=yaml.CSafeLoader)); print(len(docs[0]['items']))")


def generate(workdir: Path, nodes: int, pods: int) -> tuple:
    js = workdir / ("cluster-n%d-p%d.json" % (nodes, pods))
    ya = js.with_suffix(".yaml")
    if not js.exists():
        subprocess.run([sys.executable, str(REPO / "tests" / "perf" / "generate.py"), "--nodes", str(nodes),
                        "--pods", str(pods), "--no-managed-fields", "--out", str(js), "-q"], check=True)
    if not ya.exists():
        import yaml   # as commands/snapshot.py writes it
        doc = json.loads(js.read_text())
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        ya.write_text(yaml.dump(doc, Dumper=dumper, sort_keys=False, default_flow_style=False,
                                allow_unicode=True, width=4096))
    return js, ya


def measure(code: str, path: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", code, str(path)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    out, err = proc.stdout.read(), proc.stderr.read()
    if status:
        raise SystemExit("load of %s failed: %s" % (path, err.strip().splitlines()[-1:]))
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024,
            "count": out.strip()}


def main(argv: list = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=350)
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=1, help="best of N (by cpu s)")
    ap.add_argument("--baseline", action="store_true", help="also PyYAML's own loader (slow)")
    ap.add_argument("--yamltext", action="store_true", help="also the libyaml event reader alone (slow)")
    ap.add_argument("--workdir", default="/tmp/evictplan-bench-yaml")
    args = ap.parse_args(argv)
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    js, ya = generate(work, args.nodes, args.pods)
    runs = [("json", LOAD, js), ("yaml", LOAD_YAML, ya)] + \
        ([("yamltext", LOAD_YAMLTEXT, ya)] if args.yamltext else []) + \
        ([("pyyaml", BASELINE, ya)] if args.baseline else [])
    results = {}
    for name, code, path in runs:
        best = None
        for _ in range(args.repeat):
            r = measure(code, path)
            best = r if best is None or r["cpu"] < best["cpu"] else best
        results[name] = best
    print("file sizes: json %d MB, yaml %d MB; load average %.1f" % (
        js.stat().st_size >> 20, ya.stat().st_size >> 20, os.getloadavg()[0]))
    print("%-9s %8s %8s %9s %10s %10s  %s" % ("step", "wall s", "cpu s", "RSS MB", "cpu/json", "RSS/json", "reader"))
    base = results["json"]
    for name, r in results.items():
        reader = r["count"].split()[1] if len(r["count"].split()) > 1 else ""
        print("%-9s %8.2f %8.2f %9.0f %10.1f %10.1f  %s" % (name, r["wall"], r["cpu"], r["rss_mb"],
                                                            r["cpu"] / base["cpu"], r["rss_mb"] / base["rss_mb"], reader))
    y = results["yaml"]
    print("goal (yaml within 3x json): cpu %s, memory %s" % (
        "met" if y["cpu"] <= 3 * base["cpu"] else "NOT met", "met" if y["rss_mb"] <= 3 * base["rss_mb"] else "NOT met"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
