"""kubectl's global connection flags reach the API server: checked on the wire, against the test
API server (a real HTTP(S) server on 127.0.0.1 that records every request's headers), through
the installed console script.

What kubectl sends for each flag (client-go's transport): --as -> `Impersonate-User`, each
--as-group -> one `Impersonate-Group` header line, --as-uid -> `Impersonate-Uid`; --token ->
`Authorization: Bearer T`; --request-timeout bounds every request; -v 6 logs requests, -v 7
their headers with the credentials masked.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

import pytest

from apiserver import ApiServer
from conftest import node, pod

SCRIPT = str(Path(sys.executable).parent / "kubectl-evictplan") \
    if (Path(sys.executable).parent / "kubectl-evictplan").exists() else shutil.which("kubectl-evictplan")


def objects() -> List[dict]:
    return [node("n1"), node("n2"), pod("web-1", "n1"), pod("web-2", "n2")]


def run(*args: str, home: Path, env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    e = {k: v for k, v in os.environ.items()
         if k not in ("KUBECONFIG", "EVICTPLAN_DEBUG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT")}
    e["HOME"] = str(home)
    e["EVICTPLAN_KUBELET_TIMEOUT"] = "2"
    e.update(env or {})
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, env=e, timeout=120)


def one_error(res: subprocess.CompletedProcess, code: int = 1) -> str:
    assert res.returncode == code, (res.returncode, res.stdout, res.stderr)
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "Traceback" not in res.stderr
    return lines[0]


def kubeconfig(path: Path, clusters: Dict[str, dict], users: Dict[str, dict], context: tuple) -> str:
    cfg = {"apiVersion": "v1", "kind": "Config",
           "clusters": [{"name": n, "cluster": c} for n, c in clusters.items()],
           "users": [{"name": n, "user": u} for n, u in users.items()],
           "contexts": [{"name": "ctx", "context": {"cluster": context[0], "user": context[1]}}],
           "current-context": "ctx"}
    path.write_text(json.dumps(cfg))
    return str(path)


@pytest.fixture(scope="module")
def server():
    with ApiServer(objects(), tokens={"good-token": "admin"}) as srv:
        yield srv


@pytest.fixture
def kc(server, tmp_path):
    server.faults.clear()
    server.clear_requests()
    return str(server.write_kubeconfig(tmp_path / "kubeconfig", token="good-token"))


PLAN = ["drain", "n1", "--force", "-o", "json"]


def test_impersonation_headers_reach_the_server(server, kc, tmp_path):
    res = run("--kubeconfig", kc, *PLAN, "--as", "alice", "--as-group", "dev", "--as-group", "ops",
              "--as-uid", "1234", home=tmp_path)
    assert res.returncode in (0, 3, 4), res.stderr
    assert server.headers_of("/api/v1/nodes", "Impersonate-User") == [["alice"]]
    # one header line per group, in order, as client-go sends them (not one comma-joined value)
    assert server.headers_of("/api/v1/nodes", "Impersonate-Group") == [["dev", "ops"]]
    assert server.headers_of("/api/v1/nodes", "Impersonate-Uid") == [["1234"]]
    assert server.headers_of("/version", "Impersonate-User") == [["alice"]]


def test_without_as_no_impersonation_headers(server, kc, tmp_path):
    res = run("--kubeconfig", kc, *PLAN, home=tmp_path)
    assert res.returncode in (0, 3, 4), res.stderr
    assert server.headers_of("/api/v1/nodes", "Impersonate-User") == [[]]


@pytest.mark.parametrize("args,field", [
    (["--as-group", "dev"], "--as-group"),
    (["--as-uid", "1"], "--as-uid"),
])
def test_group_or_uid_impersonation_needs_a_user(kc, tmp_path, args, field):
    line = one_error(run("--kubeconfig", kc, *PLAN, *args, home=tmp_path))
    assert field in line and "--as USER" in line


def test_token_flag_is_the_bearer_token(server, tmp_path):
    server.clear_requests()
    plain = str(server.write_kubeconfig(tmp_path / "kc-notoken"))
    line = one_error(run("--kubeconfig", plain, *PLAN, home=tmp_path))
    assert "401" in line
    server.clear_requests()
    res = run("--kubeconfig", plain, *PLAN, "--token", "good-token", home=tmp_path)
    assert res.returncode in (0, 3, 4), res.stderr
    assert server.headers_of("/api/v1/nodes", "Authorization") == [["Bearer good-token"]]


def test_token_flag_overrides_the_kubeconfig_token(server, tmp_path):
    server.clear_requests()
    bad = str(server.write_kubeconfig(tmp_path / "kc-bad", token="wrong"))
    res = run("--kubeconfig", bad, *PLAN, "--token", "good-token", home=tmp_path)
    assert res.returncode in (0, 3, 4), res.stderr
    assert server.headers_of("/api/v1/nodes", "Authorization") == [["Bearer good-token"]]


def test_server_and_token_without_any_kubeconfig(server, tmp_path):
    server.clear_requests()
    res = run("--server", server.url, "--token", "good-token", *PLAN, home=tmp_path)
    assert res.returncode in (0, 3, 4), res.stderr
    assert json.loads(res.stdout)["cluster"]["server"] == server.url


def test_user_and_cluster_pick_other_kubeconfig_entries(server, tmp_path):
    path = kubeconfig(tmp_path / "kc", {"dead": {"server": "http://127.0.0.1:9"}, "live": {"server": server.url}},
                      {"nobody": {"token": "wrong"}, "admin": {"token": "good-token"}}, ("dead", "nobody"))
    one_error(run("--kubeconfig", path, *PLAN, home=tmp_path))          # the context's own entries fail
    server.clear_requests()
    res = run("--kubeconfig", path, *PLAN, "--cluster", "live", "--user", "admin", home=tmp_path)
    assert res.returncode in (0, 3, 4), res.stderr
    assert server.headers_of("/api/v1/nodes", "Authorization") == [["Bearer good-token"]]
    line = one_error(run("--kubeconfig", path, *PLAN, "--user", "ghost", home=tmp_path))
    assert "--user" in line and "'ghost' not found" in line and "admin" in line
    line = one_error(run("--kubeconfig", path, *PLAN, "--cluster", "nowhere", home=tmp_path))
    assert "--cluster" in line and "'nowhere' not found" in line


def test_server_flag_overrides_the_kubeconfig_server(server, tmp_path):
    path = kubeconfig(tmp_path / "kc", {"dead": {"server": "http://127.0.0.1:9"}}, {"u": {"token": "good-token"}},
                      ("dead", "u"))
    res = run("--kubeconfig", path, *PLAN, "-s", server.url, home=tmp_path)
    assert res.returncode in (0, 3, 4), res.stderr


@pytest.mark.parametrize("flag", ["1s", "1"])
def test_request_timeout_bounds_each_request(server, kc, tmp_path, flag):
    server.faults.add("GET", r"^/api/v1/nodes$", delay=10.0, times=None)
    start = time.monotonic()
    line = one_error(run("--kubeconfig", kc, *PLAN, "--request-timeout", flag, home=tmp_path))
    elapsed = time.monotonic() - start
    server.faults.clear()
    assert "timed out" in line and "listing nodes" in line, line
    # one retry of the read (the client's own policy), each cut at 1s: far below the 10s one
    # request would take without the bound (the margin absorbs start-up on a loaded machine)
    assert elapsed < 9.0, elapsed


@pytest.mark.parametrize("value", ["soon", "-5s"])
def test_bad_request_timeout_is_refused(kc, tmp_path, value):
    line = one_error(run("--kubeconfig", kc, *PLAN, "--request-timeout", value, home=tmp_path))
    assert "--request-timeout" in line


def test_verbose_logs_requests_without_credentials(server, kc, tmp_path):
    res = run("--kubeconfig", kc, *PLAN, "-v", "7", "--as", "alice", home=tmp_path)
    assert res.returncode in (0, 3, 4), res.stderr
    assert "GET %s/version" % server.url in res.stderr
    assert "GET %s/api/v1/nodes?limit=500 200 OK in " % server.url in res.stderr
    assert "Authorization: Bearer <masked>" in res.stderr
    assert "Impersonate-User: alice" in res.stderr
    assert "good-token" not in res.stderr and "good-token" not in res.stdout
    quiet = run("--kubeconfig", kc, *PLAN, "-v=6", home=tmp_path)
    assert "GET %s/version" % server.url in quiet.stderr and "Request Headers" not in quiet.stderr
    assert run("--kubeconfig", kc, *PLAN, home=tmp_path).stderr == ""


def test_tls_flags(tmp_path):
    with ApiServer(objects(), tls=True) as srv:
        bare = kubeconfig(tmp_path / "kc", {"c": {"server": srv.url}}, {"u": {}}, ("c", "u"))
        line = one_error(run("--kubeconfig", bare, *PLAN, home=tmp_path))
        assert "TLS" in line or "certificate" in line.lower(), line
        res = run("--kubeconfig", bare, *PLAN, "--certificate-authority", srv.ca_file, home=tmp_path)
        assert res.returncode in (0, 3, 4), res.stderr
        res = run("--kubeconfig", bare, *PLAN, "--insecure-skip-tls-verify", home=tmp_path)
        assert res.returncode in (0, 3, 4), res.stderr
        assert res.stderr == ""        # no urllib3 InsecureRequestWarning per request
        res = run("--kubeconfig", bare, *PLAN, "--insecure-skip-tls-verify=true", home=tmp_path)
        assert res.returncode in (0, 3, 4), res.stderr
        line = one_error(run("--kubeconfig", bare, *PLAN, "--insecure-skip-tls-verify=false", home=tmp_path))
        assert "TLS" in line or "certificate" in line.lower(), line
        line = one_error(run("--kubeconfig", bare, *PLAN, "--insecure-skip-tls-verify",
                             "--certificate-authority", srv.ca_file, home=tmp_path))
        assert "--insecure-skip-tls-verify" in line and "not allowed" in line


@pytest.mark.parametrize("flag", ["--certificate-authority", "--client-certificate", "--client-key"])
def test_missing_tls_file_is_named(kc, tmp_path, flag):
    line = one_error(run("--kubeconfig", kc, *PLAN, flag, str(tmp_path / "nope.pem"), home=tmp_path))
    assert flag in line and "nope.pem" in line and "no such file" in line


@pytest.mark.parametrize("args", [["-n", "shop"], ["--namespace=shop"]])
def test_namespace_is_refused_clearly(kc, tmp_path, args):
    line = one_error(run("--kubeconfig", kc, *PLAN, *args, home=tmp_path), code=2)
    assert "namespace" in line and "drain" in line


def test_apply_without_kubeconfig_hints_what_works(tmp_path):
    snap = tmp_path / "cluster.json"
    snap.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects()}))
    made = run("-f", str(snap), *PLAN, home=tmp_path)
    assert made.returncode in (0, 3, 4, 5), made.stderr   # 5: the objects include no PDB
    plan = tmp_path / "plan.json"
    plan.write_text(made.stdout)
    line = one_error(run("apply", str(plan), home=tmp_path))
    assert "--kubeconfig" in line and "--server" in line
    assert "--demo" not in line and "-f FILE" not in line
    line = one_error(run("drain", "n1", home=tmp_path))      # planning: a snapshot file is a way out
    assert "-f FILE" in line


def test_apply_writes_carry_the_impersonation_and_token(server, kc, tmp_path):
    made = run("--kubeconfig", kc, *PLAN, home=tmp_path)
    assert made.returncode in (0, 3, 4), made.stderr
    plan = tmp_path / "plan.json"
    plan.write_text(made.stdout)
    server.clear_requests()
    res = run("--kubeconfig", kc, "apply", str(plan), "--yes", "--dry-run=server", "--as", "alice",
              "--as-group", "ops", home=tmp_path)
    assert res.returncode in (0, 3), res.stdout + res.stderr
    writes = [(m, p, h) for m, p, h in server.request_headers if m in ("POST", "PATCH", "DELETE")]
    assert writes, server.requests
    for _m, _p, hdrs in writes:
        assert [v for k, v in hdrs if k.lower() == "impersonate-user"] == ["alice"]
        assert [v for k, v in hdrs if k.lower() == "impersonate-group"] == ["ops"]
        assert [v for k, v in hdrs if k.lower() == "authorization"] == ["Bearer good-token"]
