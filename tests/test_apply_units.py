"""`apply`'s pure parts: reading plan documents, staleness verdicts, the requests each action sends
and how each answer is classified; plus the CLI's `error:` lines for bad plans and flags.

Expected requests follow upstream clients: kubectl drain's policy/v1 Eviction (404 = success,
429 = retry), DELETE with DeleteOptions (`--force` = grace 0), optimistic concurrency on the
node's resourceVersion; uid preconditions on every pod write.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

import pytest

from conftest import node, pod, run_cli
from test_apply_live import cordon, detach, plan_doc, podact, taint

from kubectl_evict.apply.document import parse_plan, plan_from_document
from kubectl_evict.apply.executor import ApplySettings, Executor, Response, Stop
from kubectl_evict.apply.preconditions import check, normalize_server, reads_for
from kubectl_evict.apply.progress import Progress
from kubectl_evict.errors import InputError
from kubectl_evict.render import action_dict, plan_document

SERVER = "https://k8s.example:6443"


def doc_with(*actions: dict, **top: Any) -> dict:
    d = plan_doc(list(actions), SERVER)
    d.update(top)
    return d


# --------------------------------------------------------------------------------------------
# plan documents
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("data,message", [
    (b"", "plan.json: empty file: expected an EvictionPlan document"),
    (b"{not json", "plan.json: invalid JSON: "),
    (b"a: [1\n", "plan.json: invalid YAML (line 2, column 1): "),
    (json.dumps({"kind": "List", "apiVersion": "v1"}).encode(), "plan.json: not an EvictionPlan: apiVersion 'v1', kind 'List'"),
    (json.dumps(doc_with(actions=None)).encode(), "plan.json: actions: required field is missing"),
    (json.dumps(doc_with({"type": "drain", "node": "n1"})).encode(), "plan.json: actions[0].type: unknown action type 'drain'"),
    (json.dumps(doc_with(cordon("n1"), {k: v for k, v in podact("evict", "p", "n1").items() if k != "uid"})).encode(),
     "plan.json: actions[1].uid: required field is missing"),
    (json.dumps(doc_with(dict(podact("evict", "p", "n1"), uid=""))).encode(), "plan.json: actions[0].uid: must not be empty"),
    (json.dumps(doc_with(dict(podact("kill", "p", "n1"), gracePeriodSeconds="10"))).encode(),
     "plan.json: actions[0].gracePeriodSeconds: must be a number, not string '10'"),
    (json.dumps(doc_with(dict(podact("delete", "p", "n1"), force="yes"))).encode(),
     "plan.json: actions[0].force: must be true or false, not string 'yes'"),
    (json.dumps(doc_with(dict(cordon("n1"), at=-1))).encode(), "plan.json: actions[0].at: must be a number >= 0"),
    # past any plan and past the dates RFC 3339 prints (verify failed with 'internal error: OSError')
    (json.dumps(doc_with(dict(cordon("n1"), at=1e18))).encode(),
     "plan.json: actions[0].at: 1e+18 is more than a century of seconds: refused as an edit slip"),
    (json.dumps(doc_with(dict(podact("kill", "p", "n1"), gracePeriodSeconds=10**12))).encode(),
     "plan.json: actions[0].gracePeriodSeconds: 1000000000000 is more than a century of seconds"),
    (json.dumps(doc_with(dict(taint("n1", "k", "v", "NoExecute"), effect="Evict"))).encode(),
     "plan.json: actions[0].effect: unsupported taint effect 'Evict'"),
    # the API server's own syntax checks (ValidateLabels, validateNodeTaints): refused while reading
    (json.dumps(doc_with(taint("n1", "bad key!", "v", "NoSchedule"))).encode(),
     "plan.json: actions[0].key: invalid key 'bad key!': "),
    (json.dumps(doc_with(taint("n1", "k", "a b", "NoSchedule"))).encode(), "plan.json: actions[0].value: invalid value 'a b': "),
    (json.dumps(doc_with(dict(taint("n1", "k", "v", "NoSchedule"), previous=5))).encode(),
     "plan.json: actions[0].previous: must be a string or null, not number 5"),
    (json.dumps(doc_with(taint("n1", "-k", "", "NoExecute", remove=True))).encode(), "plan.json: actions[0].key: invalid key '-k': "),
    (json.dumps(doc_with({"type": "label", "node": "n1", "key": "k", "value": "x" * 64, "by": "user"})).encode(),
     "plan.json: actions[0].value: invalid value '%s': must be no more than 63 characters" % ("x" * 64)),
    (json.dumps(doc_with({"type": "unlabel", "node": "n1", "key": "a/b/c", "by": "user"})).encode(),
     "plan.json: actions[0].key: invalid key 'a/b/c': "),
    (json.dumps(doc_with({"type": "cordon", "by": "user"})).encode(), "plan.json: actions[0].node: required field is missing"),
    (json.dumps(doc_with({"type": "cordon", "node": "n1"})).encode(), "plan.json: actions[0].by: required field is missing"),
    (json.dumps(doc_with({"type": "cordon", "node": "n1", "by": "me"})).encode(), "plan.json: actions[0].by: unknown actor 'me'"),
    (json.dumps(doc_with(cordon("n1"), now="yesterday")).encode(), "plan.json: now: invalid RFC3339 timestamp"),
    (json.dumps(doc_with(cordon("n1"), cluster="prod")).encode(), "plan.json: cluster: must be a mapping"),
    (b"kind: EvictionPlan\n---\nkind: EvictionPlan\n", "plan.json: expected one EvictionPlan document, found 2"),
    # JSON's words, not Python's, for what is missing or of the wrong type
    (json.dumps({"kind": "EvictionPlan"}).encode(),
     "plan.json: not an EvictionPlan: apiVersion missing, kind 'EvictionPlan'"),
    (json.dumps({"kind": "EvictionPlan", "apiVersion": 1}).encode(), "plan.json: not an EvictionPlan: apiVersion number 1,"),
    # blocked/shortfall/skipped entries are strings (the contract's document); verify looked a
    # number up as its Python spelling ("inf") and reported the pod gone
    (json.dumps(doc_with(cordon("n1"), blocked=[{"namespace": "shop", "pod": 5, "node": "n1", "code": "pdb-budget"}])).encode(),
     "plan.json: blocked[0].pod: must be a string, not number 5"),
    (json.dumps(doc_with(cordon("n1"), shortfall=[{"namespace": ["shop"], "pod": "p"}])).encode(),
     "plan.json: shortfall[0].namespace: must be a string, not a list"),
    (json.dumps(doc_with(cordon("n1"), skipped=[{"pod": "p", "node": {"name": "n1"}}])).encode(),
     "plan.json: skipped[0].node: must be a string, not an object"),
    # RFC 8259 section 8.2: an unpaired surrogate escape is no character; Python's json made it a
    # string no output could encode (internal error: UnicodeEncodeError)
    (b'{"apiVersion": "evictplan/v1alpha1", "kind": "EvictionPlan", "actions": [{"pod": "a\\ud800"}]}',
     "plan.json: actions[0].pod: invalid JSON: unpaired UTF-16 surrogate \\ud800 in a string (line 1, column 84)"),
    # Python's 4300-digit limit on int() (CVE-2020-10735) spoke of sys.set_int_max_str_digits()
    (b'{"apiVersion": "evictplan/v1alpha1", "kind": "EvictionPlan", "now": 1' + b"0" * 5000 + b"}",
     "plan.json: invalid JSON: a number of 5001 digits at line 1 column 69 (more than 4300"),
])
def test_bad_plan_documents_are_located(data, message):
    with pytest.raises(InputError) as e:
        parse_plan(data, "plan.json")
    assert str(e.value).startswith(message), str(e.value)


def test_a_second_eviction_may_name_no_uid():
    # drain --one-at-a-time and upgrade evict a replacement again under the first pod's name, with
    # no uid (it did not exist when the plan was made): the plan reads; apply refuses it later
    doc = doc_with(podact("evict", "p", "n1"), dict(podact("evict", "p", "n2"), uid=""))
    assert [a.uid for a in parse_plan(json.dumps(doc).encode(), "plan.json").actions] == ["uid-default-p", ""]
    with pytest.raises(InputError) as e:
        parse_plan(json.dumps(doc_with(dict(podact("evict", "q", "n2"), uid=""), podact("evict", "p", "n1"))).encode(),
                   "plan.json")
    assert str(e.value) == "plan.json: actions[0].uid: must not be empty"


def test_contract_document_round_trips(write_snapshot, tmp_path):
    snap = write_snapshot(node("n1"), node("n2"), pod("web-1", "n1", tolerations=[]), pod("web-2", "n1", tolerations=[]))
    res = run_cli("-f", snap, "-o", "json", "affinity", "--taint", "n1:k=v:NoExecute")
    assert res.returncode in (0, 3), res.stderr
    doc = json.loads(res.stdout)
    plan = plan_from_document(doc, "plan.json")
    assert [action_dict(a) for a in plan.actions] == doc["actions"]
    assert (plan.context, plan.server) == ("test", "https://test.invalid:6443")
    again = plan_document(plan)
    assert again["actions"] == doc["actions"] and again["cluster"] == doc["cluster"]


# --------------------------------------------------------------------------------------------
# staleness (pure)
# --------------------------------------------------------------------------------------------

def live_pod(name: str, node_name: str, uid: Optional[str] = None) -> dict:
    return {"metadata": {"name": name, "namespace": "default", "uid": uid or "uid-default-" + name},
            "spec": {"nodeName": node_name}}


PLAN = plan_from_document(doc_with(cordon("n1"), podact("evict", "a", "n1"), podact("kill", "b", "n1"),
                                   taint("n2", "k", "v", "NoSchedule"), detach("va-1", "n9")), "p")
NODES = {"n1": {"metadata": {}}, "n2": {"metadata": {}}}


@pytest.mark.parametrize("server,nodes,pods,done,force,refusals,skips", [
    (SERVER, NODES, {("default", "a"): live_pod("a", "n1"), ("default", "b"): live_pod("b", "n1")}, set(), False, [], {}),
    # a pod that is gone is not stale: its action's aim is met
    (SERVER, NODES, {("default", "a"): None, ("default", "b"): live_pod("b", "n1")}, set(), False, [], {}),
    ("https://K8S.example:6443/", NODES, {}, set(), False, [], {}),
    ("https://other:6443", NODES, {}, set(), False,
     ["the plan came from another cluster: it was made for server https://k8s.example:6443 (context test), "
      "the current context test uses server https://other:6443"], {}),
    (SERVER, {"n1": None, "n2": {}}, {}, set(), True, ["node n1 no longer exists"], {}),
    (SERVER, NODES, {("default", "a"): live_pod("a", "n1", uid="new")}, set(), False,
     ["pod default/a was replaced since the plan was made (planned uid uid-default-a, now new)"], {}),
    (SERVER, NODES, {("default", "a"): live_pod("a", "n1", uid="new")}, set(), True, [],
     {1: "pod default/a was replaced since the plan was made (planned uid uid-default-a, now new)"}),
    (SERVER, NODES, {("default", "b"): live_pod("b", "n3")}, set(), True, [],
     {2: "pod default/b is now on n3, not on n1 as planned"}),
    # done by an earlier run (journal): a replacement is expected, not stale
    (SERVER, NODES, {("default", "a"): live_pod("a", "n2", uid="new")}, {1}, False, [], {}),
], ids=["fresh", "pod-gone", "same-server-spelled-differently", "other-cluster", "node-gone", "replaced",
        "replaced-force", "moved-force", "journaled"])
def test_staleness(server, nodes, pods, done, force, refusals, skips):
    v = check(PLAN, server=server, context="test", nodes=nodes, pods=pods, done=done, force_stale=force)
    assert v.refusals == refusals and v.skips == skips


def test_reads_skip_detach_and_journaled_actions():
    assert reads_for(PLAN, {1}) == reads_for(PLAN, {1})
    r = reads_for(PLAN, {1})
    assert r.nodes == ("n1", "n2") and r.pods == (("default", "b"),)


@pytest.mark.parametrize("a,b,same", [
    ("https://api.x:443", "https://API.x/", True), ("http://127.0.0.1:80", "http://127.0.0.1", True),
    ("api.x:6443", "https://api.x:6443", True), ("https://[::1]:6443", "https://[::1]:6443/", True),
    ("https://api.x:6443", "https://api.x:6444", False), ("http://api.x", "https://api.x", False),
])
def test_server_urls_compare_by_meaning(a, b, same):
    assert (normalize_server(a) == normalize_server(b)) == same


# --------------------------------------------------------------------------------------------
# the executor against a scripted transport: requests sent, answers classified
# --------------------------------------------------------------------------------------------

class Scripted:
    """Answers from a script per (method, path); records every request."""

    def __init__(self, script: Dict[Tuple[str, str], List[Response]]) -> None:
        self.script = {k: list(v) for k, v in script.items()}
        self.sent: List[Tuple[str, str, List[Tuple[str, str]], Any]] = []

    def request(self, method: str, path: str, *, query: Any = (), body: Any = None, content_type: str = "",
                timeout: Any = None) -> Response:
        self.sent.append((method, path, list(query), body))
        answers = self.script.get((method, path)) or [Response(500, {"message": "unscripted"})]
        return answers.pop(0) if len(answers) > 1 else answers[0]


class FakeTime:
    def __init__(self) -> None:
        self.t = 1000.0

    def clock(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.t += s


def execute(actions: List[dict], script: Dict, **settings: Any) -> Tuple[List[Any], Scripted]:
    plan = plan_from_document(doc_with(*actions), "p")
    t = FakeTime()
    transport = Scripted(script)
    ex = Executor(transport, ApplySettings(**settings), progress=Progress(len(actions), stream=_Null()),
                  stop=Stop(sleep=t.sleep, clock=t.clock), clock=t.clock, wall=lambda: 1700000000.0)
    res, _ = ex.run(plan, skips={}, already=set())
    return res, transport


class _Null:
    def write(self, s: str) -> None:
        pass

    def flush(self) -> None:
        pass


EVICT_A = ("POST", "/api/v1/namespaces/default/pods/a/eviction")
DELETE_A = ("DELETE", "/api/v1/namespaces/default/pods/a")
OK = Response(201, {"kind": "Status", "status": "Success"})
PDB_429 = Response(429, {"message": "Cannot evict pod as it would violate the pod's disruption budget.",
                         "details": {"causes": [{"reason": "DisruptionBudget", "message": "needs 2 healthy pods"}]}})
PRECONDITION = Response(409, {"message": 'Operation cannot be fulfilled on pods "a": Precondition failed: UID in '
                                         "precondition: uid-default-a, UID in object meta: x"})
LOST = Response(None, error="cannot talk to the API server: connection lost mid-response")


@pytest.mark.parametrize("answers,outcome,attempts", [
    ([OK], "done", 1),
    ([Response(404, {"message": "not found"})], "already done", 1),
    ([PRECONDITION], "skipped", 1),
    ([PDB_429], "blocked", 8),                            # 0.5+1+2+4+5+5+2.5 s of waits within 20 s
    ([Response(500, {}), Response(503, {}), OK], "done", 3),
    ([LOST, Response(404, {})], "done", 2),              # the lost answer was a success
    ([Response(403, {"message": "forbidden"})], "failed", 1),
    ([Response(500, {"message": "This pod has more than one PodDisruptionBudget"})], "failed", 4),
])
def test_eviction_answers(answers, outcome, attempts):
    res, t = execute([podact("evict", "a", "n1")], {EVICT_A: answers}, timeout=20.0)
    assert (res[0].outcome, res[0].attempts) == (outcome, attempts)
    if outcome == "blocked":
        assert res[0].status == 429 and res[0].message.endswith("(needs 2 healthy pods)")


@pytest.mark.parametrize("action,settings,method,path,query,body", [
    (podact("evict", "a", "n1"), {}, "POST", "/api/v1/namespaces/default/pods/a/eviction", [],
     {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "a", "namespace": "default"},
      "deleteOptions": {"preconditions": {"uid": "uid-default-a"}}}),
    (podact("evict", "a", "n1", grace=7), {"dry_run": True}, "POST", "/api/v1/namespaces/default/pods/a/eviction",
     [("dryRun", "All")],
     {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "a", "namespace": "default"},
      "deleteOptions": {"preconditions": {"uid": "uid-default-a"}, "gracePeriodSeconds": 7, "dryRun": ["All"]}}),
    (podact("kill", "a", "n1", grace=10), {}, "DELETE", "/api/v1/namespaces/default/pods/a", [],
     {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": "uid-default-a"}, "gracePeriodSeconds": 10}),
    (podact("kill", "a", "n1"), {}, "DELETE", "/api/v1/namespaces/default/pods/a", [],
     {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": "uid-default-a"}}),
    (podact("delete", "a", "n1", grace=30, force=True), {}, "DELETE", "/api/v1/namespaces/default/pods/a", [],
     {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": "uid-default-a"}, "gracePeriodSeconds": 0}),
])
def test_pod_requests(action, settings, method, path, query, body):
    _, t = execute([action], {(method, path): [OK]}, **settings)
    assert t.sent == [(method, path, query, body)]


NODE_N1 = ("GET", "/api/v1/nodes/n1")
PATCH_N1 = ("PATCH", "/api/v1/nodes/n1")


def node_answer(rv: str, taints: List[dict], unschedulable: bool = False) -> Response:
    return Response(200, {"metadata": {"name": "n1", "resourceVersion": rv},
                          "spec": {"taints": taints, "unschedulable": unschedulable}})


@pytest.mark.parametrize("action,gets,outcome,patches", [
    (cordon("n1"), [node_answer("5", [])], "done", [{"spec": {"unschedulable": True}}]),
    (cordon("n1"), [node_answer("5", [], unschedulable=True)], "already done", []),
    (taint("n1", "k", "v", "NoSchedule"), [node_answer("5", [{"key": "a", "effect": "NoExecute"}])], "done",
     [{"metadata": {"resourceVersion": "5"},
       "spec": {"taints": [{"key": "a", "effect": "NoExecute"}, {"key": "k", "value": "v", "effect": "NoSchedule"}]}}]),
    # same key and effect, other value: replaced (kubectl taint --overwrite)
    (taint("n1", "k", "v", "NoExecute"), [node_answer("6", [{"key": "k", "value": "old", "effect": "NoExecute"}])], "done",
     [{"metadata": {"resourceVersion": "6"},
       "spec": {"taints": [{"key": "k", "value": "v", "effect": "NoExecute", "timeAdded": "2023-11-14T22:13:20Z"}]}}]),
    (taint("n1", "k", "v", "NoSchedule"), [node_answer("5", [{"key": "k", "value": "v", "effect": "NoSchedule"}])],
     "already done", []),
    (taint("n1", "k", "", "NoSchedule", remove=True),
     [node_answer("7", [{"key": "k", "value": "x", "effect": "NoSchedule"}, {"key": "k", "effect": "NoExecute"}])],
     "done", [{"metadata": {"resourceVersion": "7"}, "spec": {"taints": [{"key": "k", "effect": "NoExecute"}]}}]),
    (taint("n1", "k", "", "NoSchedule", remove=True), [node_answer("7", [])], "already done", []),
])
def test_node_patches(action, gets, outcome, patches):
    res, t = execute([action], {NODE_N1: gets, PATCH_N1: [Response(200, {})]})
    assert res[0].outcome == outcome
    assert [b for m, _, _, b in t.sent if m == "PATCH"] == patches


def test_taint_conflict_rereads_and_merges_the_newer_node():
    script = {NODE_N1: [node_answer("5", []), node_answer("6", [{"key": "new", "effect": "NoSchedule"}])],
              PATCH_N1: [Response(409, {"message": "the object has been modified"}), Response(200, {})]}
    res, t = execute([taint("n1", "k", "v", "NoSchedule")], script)
    assert res[0].outcome == "done"
    patches = [b for m, _, _, b in t.sent if m == "PATCH"]
    assert patches[1] == {"metadata": {"resourceVersion": "6"}, "spec": {"taints": [
        {"key": "new", "effect": "NoSchedule"}, {"key": "k", "value": "v", "effect": "NoSchedule"}]}}


def test_detach_is_never_sent_and_retry_after_is_honoured():
    script = {EVICT_A: [Response(429, {"message": "slow down"}, retry_after_header=3.0), OK]}
    plan = plan_from_document(doc_with(detach("va", "n1"), podact("evict", "a", "n1")), "p")
    t = FakeTime()
    tr = Scripted(script)
    ex = Executor(tr, ApplySettings(timeout=60.0), progress=Progress(2, stream=_Null()),
                  stop=Stop(sleep=t.sleep, clock=t.clock), clock=t.clock)
    res, _ = ex.run(plan, skips={}, already=set())
    assert [r.outcome for r in res] == ["cluster's job", "done"]
    assert [m for m, *_ in tr.sent] == ["POST", "POST"] and t.t == pytest.approx(1003.0, abs=0.2)


# --------------------------------------------------------------------------------------------
# the CLI: bad input is one `error:` line, exit 1, before any cluster is contacted
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("args,expect", [
    (["apply", "{tmp}/missing.json", "--yes"], "error: {tmp}/missing.json: no such file or directory"),
    (["apply", "{tmp}/bad.json", "--yes"], "error: {tmp}/bad.json: actions[1].uid: required field is missing"),
    (["apply", "{tmp}/bad.json", "--dry-run=client"], "error: --dry-run: 'client' is not supported: use none or "
                                                      "server (a plan is already the client-side dry run)"),
    (["apply", "{tmp}/bad.json", "--timeout", "5 minutes"], "error: --timeout: invalid duration '5 minutes'"),
    (["apply", "{tmp}/bad.json", "--timeout=-1s"], "error: --timeout: must not be negative, got '-1s'"),
    (["--demo", "apply", "{tmp}/bad.json"], "error: --demo: apply reads the plan from PLAN_FILE"),
    (["--demo", "affinity", "--yes"], "error: --yes: only with --apply (or the apply command)"),
    (["--demo", "affinity", "--dry-run=server"], "error: --dry-run: only with --apply"),
    (["--demo", "affinity", "--apply", "--yes"], "error: --apply: the demo cluster is not a live cluster"),
])
def test_cli_errors(tmp_path, args, expect):
    (tmp_path / "bad.json").write_text(json.dumps(doc_with(cordon("n1"), {k: v for k, v in podact(
        "evict", "p", "n1").items() if k != "uid"})))
    res = run_cli(*[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert res.returncode == 1, res.stderr
    assert res.stderr.startswith(expect.replace("{tmp}", str(tmp_path))), res.stderr
    assert len(res.stderr.splitlines()) == 1 and res.stdout == ""


def test_drain_timeout_bounds_the_whole_run():
    """drain --timeout with --apply (kubectl drain's meaning): the first eviction's 429 retries stop at
    the bound, and the next action is not started; a per-action timeout alone would run both."""
    evict_b = ("POST", "/api/v1/namespaces/default/pods/b/eviction")
    acts = [podact("evict", "a", "n1"), podact("evict", "b", "n1")]
    res, t = execute(acts, {EVICT_A: [PDB_429], evict_b: [OK]}, timeout=20.0, total_timeout=20.0)
    assert [r.outcome for r in res] == ["blocked", "not run"]
    assert "drain --timeout 20s reached" in res[1].reason
    assert evict_b not in [(m, p) for m, p, _, _ in t.sent]
    res, t = execute(acts, {EVICT_A: [PDB_429], evict_b: [OK]}, timeout=20.0)
    assert [r.outcome for r in res] == ["blocked", "done"]
