"""The rapidyaml path reads every YAML file exactly as the libyaml reader does (issue 22).

A YAML snapshot goes YAML -> rapidyaml -> JSON -> msgspec (`source/fastyaml.py`) when the text
holds nothing the two could read differently, and through the libyaml event reader
(`source/yamltext.py`, which models kubectl's sigs.k8s.io/yaml) otherwise. A user must get the
same snapshot, hence the same plan, or the same one-line error, whichever path ran; and the same
snapshot as from the same cluster written as JSON. Each case below is loaded both ways and
compared; the cases the fast path must take itself (what kubectl and `snapshot -o yaml` write)
also assert that it did, so a fast path that always gives up cannot pass.
"""

import glob
import json
import os

import pytest
import yaml

from conftest import node, pod, run_cli, snapshot_list
from kubectl_evict.errors import InputError
from kubectl_evict.source import fastyaml, yamltext
from kubectl_evict.source.files import load_snapshot

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SHARED = os.path.join(ROOT, "..", "shared", "fixtures")



def _fixtures(ext):
    out = []
    for base in (HERE, os.path.join(ROOT, "examples"), SHARED, os.path.join(ROOT, "kubectl_evict", "demo")):
        out += glob.glob(os.path.join(base, "**", "*" + ext), recursive=True)
    return sorted(p for p in out if "golden" not in p.split(os.sep) and "perf" not in p.split(os.sep))


def _load(path, monkeypatch, fast):
    """("ok", snapshot) or ("error", message), and whether yamltext read (part of) the file."""
    used = []
    real = yamltext.stream

    def counting(data, source):
        used.append(source)
        return real(data, source)

    with monkeypatch.context() as m:
        m.setattr(yamltext, "stream", counting)
        if not fast:
            m.setattr(fastyaml, "AVAILABLE", False)
        try:
            result = ("ok", load_snapshot([str(path)]))
        except InputError as e:
            result = ("error", str(e))
    return result, bool(used)


def same_both_ways(path, monkeypatch, fast_expected=None):
    fast, fell_back = _load(path, monkeypatch, True)
    slow, _ = _load(path, monkeypatch, False)
    assert fast == slow, (path, fast if fast[0] == "error" else "ok", slow if slow[0] == "error" else "ok")
    if fast_expected is not None:
        assert fell_back is not fast_expected, "fast path %s for %s" % ("not taken" if fast_expected else "taken", path)
    return fast


def as_yaml(doc):
    """As `snapshot -o yaml` writes it (commands/snapshot.py: PyYAML, block style)."""
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(doc, Dumper=dumper, sort_keys=False, default_flow_style=False, allow_unicode=True, width=4096)


# --- every fixture in the repository ----------------------------------------------------------

@pytest.mark.parametrize("path", _fixtures(".yaml") + _fixtures(".yml"), ids=os.path.basename)
def test_yaml_fixtures_read_the_same_both_ways(path, monkeypatch):
    same_both_ways(path, monkeypatch)


def _json_fixtures():
    """JSON fixtures that are JSON (malformed-input fixtures would say something else as YAML)."""
    out = []
    for p in _fixtures(".json"):
        try:
            with open(p, "rb") as f:
                json.loads(f.read())
        except ValueError:
            continue
        out.append(p)
    return out


def test_rapidyaml_is_installed_and_takes_what_snapshot_writes():
    """A dependency (setup.cfg): without it every YAML file takes the slower reader. Of the
    repository's JSON fixtures written as `snapshot -o yaml` does, only those holding what the
    readers really read differently step aside: a plain `infinity` (rapidyaml: ".inf") and a
    double-quoted key with a `\\0` escape."""
    assert fastyaml.AVAILABLE
    reasons = {}
    for p in _json_fixtures():
        with open(p, "rb") as f:
            why = fastyaml.risky(as_yaml(json.loads(f.read())).encode())
        if why:
            reasons[os.path.basename(p)] = why
    assert sorted(set(reasons.values())) == ["a backslash escape", "b'infinity'"], reasons


@pytest.mark.parametrize("path", _json_fixtures(), ids=os.path.basename)
def test_json_fixtures_as_yaml_read_like_the_json(path, tmp_path, monkeypatch):
    """The same objects written as YAML: the same snapshot (or error) as the JSON file, by both
    YAML readers; and written as `snapshot -o yaml` does, the fast path takes it."""
    with open(path, "rb") as f:
        text = f.read()
    y = tmp_path / "cluster"   # one name for both: messages and warnings name the file
    y.write_bytes(text)
    want, _ = _load(y, monkeypatch, True)
    y.write_text(as_yaml(json.loads(text)))
    result = same_both_ways(y, monkeypatch, fast_expected=fastyaml.risky(y.read_bytes()) is None)
    if want[0] == "ok" and result[0] == "ok":
        assert result[1] == want[1]


# --- what kubectl and snapshot -o yaml write: the fast path takes it, chunk by chunk -----------

def _cluster():
    pods = [pod("web-%d" % i, "n%d" % (i % 3), ns="shop", labels={"app": "web", "i": str(i)},
                tolerations=[{"key": "k", "operator": "Exists", "effect": "NoSchedule"}])
            for i in range(60)]
    for i, p in enumerate(pods):
        p["metadata"]["annotations"] = {"note": "x" * (i * 37 % 500), "json": '{"a": [1, 2], "b": "c"}'}
        p["status"]["podIP"] = "10.0.%d.%d" % (i // 200, i % 200)
        p["spec"]["containers"][0]["image"] = "123456789012.dkr.ecr.eu-west-1.amazonaws.com/x@sha256:%064d" % i
    return snapshot_list(node("n0"), node("n1", labels={"zone": "a"}), node("n2"), *pods)


def test_a_snapshot_is_read_in_chunks_by_the_fast_path(tmp_path, monkeypatch):
    monkeypatch.setattr(fastyaml, "CHUNK", 2048)   # many chunks, cut at item boundaries
    y = tmp_path / "s.yaml"
    y.write_text(as_yaml(_cluster()))
    j = tmp_path / "s.json"
    j.write_text(json.dumps(_cluster()))
    status, snap = same_both_ways(y, monkeypatch, fast_expected=True)
    assert status == "ok" and snap == load_snapshot([str(j)])
    assert len(snap.pods) == 60 and snap.pods_by_key[("shop", "web-59")].node_name == "n2"


def test_an_item_larger_than_the_json_buffer_grows_it_and_spoils_no_earlier_item(tmp_path, monkeypatch):
    """Each chunk's JSON is written into one reused buffer: an item whose JSON outgrows it makes
    it grow, and pods decoded from earlier chunks (which keep views into their text) stay intact."""
    monkeypatch.setattr(fastyaml, "CHUNK", 256)   # the buffer starts at 512 bytes
    doc = _cluster()
    for i, item in enumerate(doc["items"]):
        if item["kind"] == "Pod":
            item["metadata"]["annotations"]["big"] = chr(97 + i % 26) * (40 + (i % 7) * 900)
            item["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "%dm" % (100 + i)}}
    y = tmp_path / "s.yaml"
    y.write_text(as_yaml(doc))
    j = tmp_path / "s.json"
    j.write_text(json.dumps(doc))
    status, snap = same_both_ways(y, monkeypatch, fast_expected=True)
    assert status == "ok" and snap == load_snapshot([str(j)])
    first = next(i for i, item in enumerate(doc["items"]) if item["kind"] == "Pod")
    assert [snap.pods_by_key[("shop", "web-%d" % k)].containers[0].requests["cpu"] for k in (0, 59)] == [
        100 + first, 100 + first + 59]   # millicores, each pod its own


def test_kubectl_style_lists_and_streams_take_the_fast_path(tmp_path, monkeypatch):
    """go-yaml's style (double quotes, a typed list whose items name no kind, `---` streams)."""
    monkeypatch.setattr(fastyaml, "CHUNK", 512)
    items = "".join('- metadata:\n    name: "n%d"\n    labels:\n      zone: "z%d"\n  status:\n'
                    '    allocatable:\n      cpu: "4"\n      memory: 8Gi\n' % (i, i % 2) for i in range(20))
    y = tmp_path / "nodes.yaml"
    y.write_text('apiVersion: v1\nitems:\n' + items + 'kind: NodeList\nmetadata:\n  resourceVersion: ""\n')
    assert len(same_both_ways(y, monkeypatch, fast_expected=True)[1].nodes) == 20
    stream = tmp_path / "stream.yaml"
    stream.write_text("# a comment before the first document\n---\n" + "\n---\n".join(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: m%d\n" % i for i in range(3)) + "\n---\n# empty\n")
    assert len(same_both_ways(stream, monkeypatch, fast_expected=True)[1].nodes) == 3


# --- the edge corpus: where the readers could differ, the fast path must step aside ----------

BASE = """apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels:
      zone: a
- apiVersion: v1
  kind: Pod
  metadata:
    name: p1
    namespace: default
    creationTimestamp: "2026-11-20T10:00:00Z"
    labels:
      app: web
    annotations:
      note: plain
  spec:
    nodeName: n1
    priority: 10
    containers:
    - name: c
      image: nginx
      resources:
        requests:
          cpu: 100m
          memory: 64Mi
  status:
    phase: Running
    startTime: "2026-11-20T10:00:00Z"
"""

EDGES = {
    "anchor_alias": ("    labels: &l\n      app: web\n", "    labels: &l\n      app: web\n", "  spec:\n    nodeSelector: *l\n"),
    "merge_key": ("    labels:\n      app: web\n", "    labels: &l\n      app: web\n      <<: {tier: a}\n", None),
    "tags": ("      note: plain\n", "      note: !!str 0755\n      other: !!binary aGk=\n", None),
    "tilde_null": ("      note: plain\n", "      note: ~\n", None),
    "null_words": ("    priority: 10\n", "    priority: Null\n", None),
    "yaml11_bool_label": ("      app: web\n", "      app: yes\n", None),
    "yaml11_bool_annotation": ("      note: plain\n", "      note: off\n", None),
    "octal": ("    priority: 10\n", "    priority: 0755\n", None),
    "hex_underscore": ("    priority: 10\n", "    priority: 1_000\n", None),
    "sexagesimal": ("    priority: 10\n", "    priority: 1:20\n", None),
    "timestamp_plain_canonical": ('    startTime: "2026-11-20T10:00:00Z"\n', "    startTime: 2026-11-20T10:00:00Z\n", None),
    "timestamp_plain_date": ('    startTime: "2026-11-20T10:00:00Z"\n', "    startTime: 2026-11-20\n", None),
    "timestamp_plain_space": ('    startTime: "2026-11-20T10:00:00Z"\n', "    startTime: 2026-11-20 10:00:00.500\n", None),
    "timestamp_offset": ('    startTime: "2026-11-20T10:00:00Z"\n', "    startTime: 2026-11-20T12:00:00+02:00\n", None),
    "int_key": ("      note: plain\n", "      1: a\n      2: b\n", None),
    "float_key": ("      note: plain\n", "      1.0: a\n", None),
    "bool_key": ("      note: plain\n", "      yes: a\n", None),
    "null_key": ("      note: plain\n", "      null: a\n", None),
    "exp_1e400": ("    priority: 10\n", "    priority: 1e400\n", None),
    "exp_1e5": ("      note: plain\n", "      note: 1e5\n", None),
    "leading_dot": ("    priority: 10\n", "    priority: -.5\n", None),
    "plus_int": ("    priority: 10\n", "    priority: +12\n", None),
    "inf": ("      note: plain\n", "      note: .inf\n", None),
    "nan_word": ("      note: plain\n", "      note: nan\n", None),
    "big_int": ("    priority: 10\n", "    priority: 123456789012345678901234567890\n", None),
    "decimal": ("    priority: 10\n", "    priority: 10.5\n", None),
    "tabs": ("      note: plain\n", "      note:\tplain\n", None),
    "duplicate_keys": ("      note: plain\n", "      note: one\n      note: two\n", None),
    "dup_items": (None, None, "items:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n9\n"),
    "crlf": None,   # the whole text with \r\n
    "block_scalars": ("      note: plain\n", "      note: |-\n        a\n        b\n      other: >\n        folded\n        text\n", None),
    "escapes_json": ("      note: plain\n", '      note: "tab\\tquote\\" \\u00e9"\n', None),
    "escapes_yaml_only": ("      note: plain\n", '      note: "bell \\a esc \\e nel \\N x \\x41"\n', None),
    "backslash_plain": ("      note: plain\n", "      note: C:\\dir\\x\n", None),
    "non_ascii": ("      note: plain\n", "      note: café ☕\n", None),
    "nel_char": ("      note: plain\n", "      note: a\u0085b\n", None),
    "long_key": ("      note: plain\n", "      %s: a\n" % ("k" * 1100), None),
    "long_key_in_flow": ("      note: plain\n", "      note: {%s: a}\n" % ("k" * 1100), None),
    "long_key_in_flow_list": ("      note: plain\n", "      note: [a, {%s: a}]\n" % ("k" * 1100), None),
    "long_value": ("      note: plain\n", "      note: %s\n" % ("v" * 3000), None),
    "deep_block": ("      note: plain\n", "      deep:\n" + "".join("  " * (4 + i) + "k:\n" for i in range(300))
                   + "  " * 304 + "v\n", None),
    "deep_flow_ok": ("      note: plain\n", "      deep: " + "[" * 40 + "]" * 40 + "\n", None),
    "deep_flow_past_rapidyaml": ("      note: plain\n", "      deep: " + "[" * 100 + "]" * 100 + "\n", None),
    "trailing_dot": ("    priority: 10\n", "    priority: 500.\n", None),
    "surrogate_escape": ("      note: plain\n", '      note: "\\ud800"\n', None),
    "deep_flow_refused": ("      note: plain\n", "      deep: " + "[" * 600 + "]" * 600 + "\n", None),
    "complex_key": ("      note: plain\n", "      ? note\n      : plain\n", None),
    "flow_key": ("      note: plain\n", "      [a, b]: c\n", None),
    "directive": (None, None, None),
    "syntax_error_late": ("    phase: Running\n", "    phase: Running\n   bad: indent\n", None),
    "unknown_volume_source": ("    nodeName: n1\n", "    nodeName: n1\n    volumes:\n    - name: v\n      newSource: {}\n", None),
    "scalar_item": (None, None, "- just a string\n"),
    "indented_items": None,
    "flow_root": None,
    "doc_end_marker": None,
    "content_on_doc_start": None,
}


def _edge_text(name):
    if name == "crlf":
        return BASE.replace("\n", "\r\n")
    if name == "indented_items":
        head, rest = BASE.split("items:\n", 1)
        return head + "items:\n" + "".join("  " + ln + "\n" for ln in rest.splitlines())
    if name == "flow_root":
        return json.dumps(yaml.safe_load(BASE))
    if name == "doc_end_marker":
        return BASE + "...\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n7\n"
    if name == "content_on_doc_start":
        return BASE + "--- {apiVersion: v1, kind: Node, metadata: {name: n8}}\n"
    if name == "directive":
        return "%YAML 1.1\n---\n" + BASE
    old, new, extra = EDGES[name]
    text = BASE.replace(old, new, 1) if old else BASE
    if extra and extra.startswith("  spec:"):
        text = text.replace("  spec:\n", extra, 1)
    elif extra:
        text = text + extra
    return text


@pytest.mark.parametrize("name", sorted(EDGES))
def test_edge_cases_read_the_same_both_ways(name, tmp_path, monkeypatch):
    p = tmp_path / (name + ".yaml")
    p.write_bytes(_edge_text(name).encode("utf-8"))
    monkeypatch.setattr(fastyaml, "CHUNK", 64)   # every item its own chunk
    same_both_ways(p, monkeypatch)


@pytest.mark.parametrize("name", ["decimal", "non_ascii", "long_value", "deep_flow_ok", "crlf", "block_scalars",
                                  "escapes_json", "duplicate_keys", "timestamp_plain_canonical", "int_key"])
def test_what_both_read_alike_stays_on_the_fast_path(name, tmp_path, monkeypatch):
    p = tmp_path / (name + ".yaml")
    p.write_bytes(_edge_text(name).encode("utf-8"))
    same_both_ways(p, monkeypatch, fast_expected=True)


@pytest.mark.parametrize("data", [b"\xff\xfe bad bytes\n", b"a: 1\n\x00\n", b"", b"# only a comment\n",
                                  b"just a scalar\n", b"- 1\n- 2\n", b"items:\n- a\n- b\n", b"kind: List\nitems: []\n"])
def test_odd_files_read_the_same_both_ways(data, tmp_path, monkeypatch):
    p = tmp_path / "odd.yaml"
    p.write_bytes(data)
    same_both_ways(p, monkeypatch)


def test_a_syntax_error_deep_in_a_big_list_is_one_error_line_naming_file_and_line(tmp_path):
    """rapidyaml prints its own parse errors on stderr: the user sees only the libyaml reader's
    one line, with the line number, through the real CLI."""
    text = as_yaml(_cluster())
    lines = text.splitlines()
    at = len(lines) * 3 // 4
    lines.insert(at, "   bad: indent")
    p = tmp_path / "broken.yaml"
    p.write_text("\n".join(lines) + "\n")
    res = run_cli("-f", str(p), "drain", "n1")
    assert res.returncode == 1, res.stderr
    err = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and err[0].startswith("error: ") and str(p) in err[0], res.stderr
    assert "line %d" % (at + 1) in err[0] or "line %d" % at in err[0] or "line %d" % (at + 2) in err[0], err[0]
    assert "ERROR" not in res.stderr and "parse_engine" not in res.stderr


def test_the_plan_from_yaml_is_byte_identical_to_the_plan_from_json(tmp_path):
    j = tmp_path / "s.json"
    j.write_text(json.dumps(_cluster()))
    y = tmp_path / "s.yaml"
    y.write_text(as_yaml(_cluster()))
    a = run_cli("-f", str(j), "drain", "n1", "-o", "json")
    b = run_cli("-f", str(y), "drain", "n1", "-o", "json")
    assert a.returncode == b.returncode and a.stdout == b.stdout and a.stdout, (a.stderr, b.stderr)


def test_version_names_the_yaml_reader():
    res = run_cli("version")
    assert res.returncode == 0, res.stderr
    assert "rapidyaml %s fast YAML path active" % __import__("ryml").__version__ in res.stdout, res.stdout


# --- timestamps: kubectl keeps their text ------------------------------------------------------
# sigs.k8s.io/yaml reads YAML into interface{} with go-yaml v2, which keeps a scalar that resolves
# to a timestamp as the text written (decode.go, "for backward compatibility"): a label that looks
# like a date is that string, and a time field gets what was written, parsed by the API as RFC 3339.
# (value as written in the YAML, the label value kubectl sends)
DATE_LABELS = [
    ("2024-01-01", "2024-01-01"),
    ("2024-1-1", "2024-1-1"),
    ("2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z"),
    ("2024-01-01 10:00:00", "2024-01-01 10:00:00"),
    ("2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"),
    ("!!timestamp 2024-01-01", "2024-01-01"),
    ('"2024-01-01"', "2024-01-01"),
]


@pytest.mark.parametrize("written, value", DATE_LABELS, ids=[w for w, _ in DATE_LABELS])
def test_a_label_that_looks_like_a_date_keeps_its_text(tmp_path, monkeypatch, written, value):
    text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n    release: %s\n" % written
    p = tmp_path / "node.yaml"
    p.write_text(text)
    for fast in (True, False):
        outcome, snap = _load(p, monkeypatch, fast)[0]
        assert outcome == "ok", snap
        assert snap.nodes["n1"].labels["release"] == value


def test_a_date_label_selects_the_same_nodes_as_in_the_cluster(tmp_path):
    """A pod whose nodeSelector asks for release "2024-01-01" lands on the node labelled with the
    unquoted date, as it does in a cluster the YAML was applied to."""
    doc = snapshot_list(node("n1"), node("n2", labels={"release": "DATE"}), node("n3"),
                        pod("web", "n1", node_selector={"release": "2024-01-01"}))
    text = as_yaml(doc).replace("release: DATE\n", "release: 2024-01-01\n")
    assert "release: 2024-01-01\n" in text
    p = tmp_path / "c.yaml"
    p.write_text(text)
    res = run_cli("-f", str(p), "-o", "json", "drain", "n1")
    assert res.returncode in (0, 5), res.stderr
    target = [a["target"] for a in json.loads(res.stdout)["actions"] if a.get("pod") == "web"]
    assert target == ["n2"]


@pytest.mark.parametrize("written, ok", [
    ("2026-11-20T12:00:00+02:00", True),     # RFC 3339 with an offset: the API takes it
    ("2026-11-20", False),                   # a bare date is no metav1.Time: the API refuses it
])
def test_an_unquoted_time_field_is_read_as_written(tmp_path, written, ok):
    doc = snapshot_list(node("n1"), node("n2"), pod("web", "n1"))
    text = as_yaml(doc)
    assert text.count("    phase: Running\n") == 1
    text = text.replace("    phase: Running\n", "    phase: Running\n    startTime: %s\n" % written)
    p = tmp_path / "c.yaml"
    p.write_text(text)
    res = run_cli("-f", str(p), "-o", "json", "drain", "n1")
    if ok:
        assert res.returncode in (0, 3, 4, 5), res.stderr
    else:
        assert res.returncode == 1 and res.stderr.startswith("error: ") and "startTime" in res.stderr, res.stderr
        assert len(res.stderr.strip().splitlines()) == 1
