"""Reading a live cluster: kubeconfig, pagination, kubelets, errors, `snapshot`, plan identity.

Every test talks to `tests/apiserver.py` over real HTTP(S) on 127.0.0.1 (no patched client).
Expected behaviour is upstream's: kubectl's kubeconfig rules (KUBECONFIG merges several files,
the first file wins per name, --context picks any merged context), list chunking with
limit/continue (a 410 on an expired token restarts the list, client-go's pager does the same),
metav1.Status messages, nodes/proxy answering 403 without that permission and 503 when the
kubelet cannot be dialled.
"""

from __future__ import annotations

import contextlib
import io
import json
import time
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List
from unittest import mock

import msgspec
import pytest
import yaml

from conftest import NOW, REPO, node, pod

sys.path.insert(0, str(Path(__file__).resolve().parent))
from apiserver import ApiServer  # noqa: E402

import apiserver as apiserver_module  # noqa: E402
from kubectl_evict.cli import main as cli_main  # noqa: E402
from kubectl_evict.errors import ClusterAccessError, InputError  # noqa: E402
from kubectl_evict.options import GlobalOptions  # noqa: E402
from kubectl_evict.versions import cluster_version
from kubectl_evict.rules.nodelifecycle import ControllerSettings, monitor_grace  # noqa: E402
from kubectl_evict.source import live  # noqa: E402
from kubectl_evict.source.files import DEMO_PATH  # noqa: E402

KUBECTL = shutil.which("kubectl")

# Every planning command, with arguments that make it do real work on the demo cluster. A new
# command in kubectl_evict/commands/ must be added here (test_every_command_is_covered).
COMMAND_ARGS: Dict[str, List[str]] = {
    "affinity": ["affinity", "--label", "worker-b1:disktype=hdd", "--taint", "worker-a2:maint=true:NoExecute"],
    "drain": ["drain", "worker-a1", "worker-b2", "--ignore-daemonsets", "--delete-emptydir-data"],
    "controller": ["controller", "--fail", "worker-a1", "--fail", "worker-c2"],
    "pressure": ["pressure", "worker-a1", "--signal", "worker-a1:memory.available=100Mi"],
    "shutdown": ["shutdown", "worker-a1", "gpu-1"],
    "upgrade": ["upgrade", "-l", "disktype=ssd", "--ignore-daemonsets", "--delete-emptydir-data", "--force",
                "--provider", "gke"],
}
NOT_PLANNING = {"snapshot", "apply", "verify"}


def _env(**extra: str) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("EVICTPLAN_DEBUG", "KUBECONFIG")}
    env["PYTHONPATH"] = str(REPO)
    env.update(extra)
    return env


def cli(*args: str, env: Dict[str, str] = None, stderr=subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kubectl_evict", *args], stdout=subprocess.PIPE, stderr=stderr,
                          text=True, cwd=str(REPO), env=env or _env(), timeout=120)


def cli_many(runs: List[List[str]], env: Dict[str, str] = None) -> List[subprocess.CompletedProcess]:
    """Run several CLI processes at once (each pays the kubernetes client's import time)."""
    with ThreadPoolExecutor(max_workers=6) as pool:
        return list(pool.map(lambda a: cli(*a, env=env), runs))


class Result:
    """What a user sees: exit code, stdout, stderr."""

    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


class _Err(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def main(*args: str, tty: bool = False) -> Result:
    """The CLI's own entry point in this process (the same code path as the console script,
    without paying the kubernetes client's import time per run)."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    err = _Err(tty)
    code = 0
    with mock.patch.object(sys, "stdout", out), mock.patch.object(sys, "stderr", err):
        try:
            cli_main(list(args))
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    out.flush()
    return Result(code, out.buffer.getvalue().decode("utf-8"), err.getvalue())


def assert_error(res, *needles: str) -> None:
    assert res.returncode == 1, (res.returncode, res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert "Traceback" not in res.stderr
    for n in needles:
        assert n in lines[0], (n, lines[0])


@pytest.fixture(scope="module")
def demo():
    with ApiServer(DEMO_PATH) as srv:
        yield srv


@pytest.fixture
def demo_kc(demo, tmp_path):
    demo.faults.clear()
    return str(demo.write_kubeconfig(tmp_path / "kubeconfig", context="demo-live"))


def small_cluster(pods_per_node: int = 2) -> List[dict]:
    objs = [node("n1"), node("n2"), node("n3")]
    for n in ("n1", "n2", "n3"):
        for i in range(pods_per_node):
            objs.append(pod("p-%s-%04d" % (n, i), n, ns="ns%d" % (i % 3), cpu="1m", memory="1Mi"))
    return objs


# --- kubeconfig -------------------------------------------------------------------------------

def _kubeconfig(path: Path, contexts: Dict[str, str], current: str = None) -> str:
    cfg = {"apiVersion": "v1", "kind": "Config",
           "clusters": [{"name": c, "cluster": {"server": url}} for c, url in contexts.items()],
           "users": [{"name": c, "user": {}} for c in contexts],
           "contexts": [{"name": c, "context": {"cluster": c, "user": c}} for c in contexts]}
    if current:
        cfg["current-context"] = current
    path.write_text(yaml.safe_dump(cfg))
    return str(path)


@pytest.mark.parametrize("env_files, context, want_context, want_port", [
    # KUBECONFIG with several files: names merge, the first file that names a context wins
    (["a", "b"], None, "b-ctx", "b"),             # current-context only in the second file
    (["a", "b"], "a-ctx", "a-ctx", "a"),          # --context picks a context from the first file
    (["missing", "b"], None, "b-ctx", "b"),       # files that do not exist are skipped
    # both files set current-context: the first file's wins (clientcmd merges non-map values
    # from the last file to the first, each overriding with what it sets)
    (["a-current", "b"], None, "a-ctx", "a"),
    (["b", "a-current"], None, "b-ctx", "b"),
    (["a-unset", "b"], None, "b-ctx", "b"),       # current-context: "" sets nothing
    # a file with no YAML in it merges as an empty config
    (["empty", "b"], None, "b-ctx", "b"),
    (["a-current", "comments-only"], None, "a-ctx", "a"),
])
def test_kubeconfig_files_merge_like_kubectl(tmp_path, monkeypatch, env_files, context, want_context, want_port):
    files = {"a": _kubeconfig(tmp_path / "a", {"a-ctx": "http://127.0.0.1:1111"}),
             "a-current": _kubeconfig(tmp_path / "ac", {"a-ctx": "http://127.0.0.1:1111"}, current="a-ctx"),
             "b": _kubeconfig(tmp_path / "b", {"b-ctx": "http://127.0.0.1:2222"}, current="b-ctx"),
             "missing": str(tmp_path / "nope")}
    files["a-unset"] = files["a"]
    (tmp_path / "a").write_text((tmp_path / "a").read_text() + "current-context: ''\n")
    (tmp_path / "empty").write_text("")
    (tmp_path / "comments").write_text("# nothing here yet\n\n")
    files.update({"empty": str(tmp_path / "empty"), "comments-only": str(tmp_path / "comments")})
    kubeconfig = os.pathsep.join(files[f] for f in env_files)
    monkeypatch.setenv("KUBECONFIG", kubeconfig)
    conn = live.connect(GlobalOptions(context=context))
    assert conn.context == want_context
    assert conn.server == {"a": "http://127.0.0.1:1111", "b": "http://127.0.0.1:2222"}[want_port]
    if context is None and KUBECTL:   # the real kubectl agrees on the same files
        got = subprocess.run([KUBECTL, "config", "current-context"], capture_output=True, text=True, timeout=60,
                             env=dict(os.environ, KUBECONFIG=kubeconfig, HOME=str(tmp_path)))
        assert got.stdout.strip() == want_context, got.stderr


@pytest.mark.parametrize("setup, opts, needles", [
    ("unknown-context", {"context": "prod"}, ["context 'prod' not found", "available: a-ctx", "--context"]),
    ("no-current", {}, ["no current-context", "--context", "a-ctx"]),
    ("missing-file", {"kubeconfig": "MISSING"}, ["no such file", "--kubeconfig"]),
    ("nothing", {}, ["no cluster to read", "-f FILE", "--demo"]),
    ("not-yaml", {}, ["cannot read kubeconfig"]),
])
def test_kubeconfig_problems_are_one_line_input_errors(tmp_path, monkeypatch, setup, opts, needles):
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    if setup == "unknown-context":
        monkeypatch.setenv("KUBECONFIG", _kubeconfig(tmp_path / "a", {"a-ctx": "http://x"}, current="a-ctx"))
    elif setup == "no-current":
        monkeypatch.setenv("KUBECONFIG", _kubeconfig(tmp_path / "a", {"a-ctx": "http://x"}))
    elif setup == "not-yaml":
        (tmp_path / "bad").write_text("clusters: [unclosed\n")
        monkeypatch.setenv("KUBECONFIG", str(tmp_path / "bad"))
    else:
        monkeypatch.delenv("KUBECONFIG", raising=False)
    if opts.get("kubeconfig") == "MISSING":
        opts = dict(opts, kubeconfig=str(tmp_path / "missing"))
    with pytest.raises(InputError) as e:
        live.connect(GlobalOptions(**opts))
    msg = str(e.value)
    assert "\n" not in msg
    for n in needles:
        assert n in msg, msg


# A kubeconfig user's `tokenFile` (relative paths from the kubeconfig's directory): client-go's
# token file source trims the whitespace around the token (strings.TrimSpace), so a file written
# by `echo` works with kubectl; the real kubectl reads the same kubeconfig alongside.
@pytest.mark.parametrize("content", ["tok", "tok\n", "  tok \r\n"], ids=["bare", "newline", "spaces-crlf"])
def test_token_file_is_trimmed_as_kubectl_trims_it(tmp_path, content):
    assert KUBECTL, "the kubectl binary must be on PATH"
    with ApiServer(small_cluster(), tokens={"tok": "readonly"}, tls=True) as srv:
        kc = srv.write_kubeconfig(tmp_path / "kc")
        cfg = json.loads(kc.read_text())
        cfg["users"][0]["user"] = {"tokenFile": "token"}
        kc.write_text(json.dumps(cfg))
        (tmp_path / "token").write_text(content)
        res = main("--kubeconfig", str(kc), "--now", NOW, "-o", "json", "drain", "n1")
        got = subprocess.run([KUBECTL, "--kubeconfig", str(kc), "get", "nodes", "-o", "name"], capture_output=True,
                             text=True, timeout=60, env=dict(os.environ, HOME=str(tmp_path)))
    assert got.returncode == 0 and got.stdout.split() == ["node/n1", "node/n2", "node/n3"], got.stderr
    assert res.returncode in (0, 5) and "Traceback" not in res.stderr, res.stderr
    assert json.loads(res.stdout)["command"] == "drain"


class _ConnectProxy:
    """An HTTP CONNECT proxy on 127.0.0.1 (what kubectl and urllib3 use to reach an https server
    through an http:// proxy): it records each CONNECT target and relays the bytes."""

    def __init__(self) -> None:
        import socket
        import threading
        self.targets: List[str] = []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        import socket
        import threading
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(client, socket), daemon=True).start()

    def _one(self, client, socket) -> None:
        import threading
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = client.recv(4096)
            if not chunk:
                client.close()
                return
            head += chunk
        method, target = head.split(b" ", 2)[:2]
        self.targets.append(target.decode())
        host, port = target.decode().rsplit(":", 1)
        try:
            upstream = socket.create_connection((host, int(port)))
        except OSError:   # the target refuses: a proxy answers 502, as a real one does
            client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            client.close()
            return
        client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")

        def pipe(a, b) -> None:
            try:
                while True:
                    data = a.recv(65536)
                    if not data:
                        break
                    b.sendall(data)
            except OSError:
                pass
            finally:
                for s in (a, b):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
        threading.Thread(target=pipe, args=(upstream, client), daemon=True).start()
        pipe(client, upstream)

    def close(self) -> None:
        self.sock.close()


# A cluster's `proxy-url` (kubeconfig): kubectl sends every request through it; the client's
# loader ignores it, which sent plans straight to the server. (case, what happens)
@pytest.mark.parametrize("case", ["working", "dead", "socks5"])
def test_kubeconfig_proxy_url_is_used_as_kubectl_uses_it(tmp_path, case):
    assert KUBECTL, "the kubectl binary must be on PATH"
    import socket
    proxy = _ConnectProxy()
    dead = socket.create_server(("127.0.0.1", 0))   # a port that accepts nothing: closed at once
    dead_url = "http://127.0.0.1:%d" % dead.getsockname()[1]
    dead.close()
    try:
        with ApiServer(small_cluster(), tokens={"tok": "readonly"}, tls=True) as srv:
            kc = srv.write_kubeconfig(tmp_path / "kc", token="tok")
            cfg = json.loads(kc.read_text())
            cfg["clusters"][0]["cluster"]["proxy-url"] = {"working": proxy.url, "dead": dead_url,
                                                          "socks5": "socks5://127.0.0.1:1080"}[case]
            kc.write_text(json.dumps(cfg))
            res = main("--kubeconfig", str(kc), "--now", NOW, "-o", "json", "drain", "n1")
            ours = list(proxy.targets)
            got = subprocess.run([KUBECTL, "--kubeconfig", str(kc), "get", "nodes", "-o", "name"],
                                 capture_output=True, text=True, timeout=60, env=dict(os.environ, HOME=str(tmp_path)))
            server = srv.url
    finally:
        proxy.close()
    if case == "working":
        assert res.returncode in (0, 5), res.stderr
        assert got.returncode == 0, got.stderr
        hostport = server.split("//", 1)[1]
        assert ours and set(ours) == set(proxy.targets) == {hostport}, (ours, proxy.targets)
    elif case == "dead":
        assert got.returncode == 1 and "proxy" in got.stderr, got.stderr
        assert_error(res, "cannot talk to the API server %s (context test, through proxy %s): connection refused"
                     % (server, dead_url))
    else:
        assert_error(res, "proxy-url 'socks5://127.0.0.1:1080': only http:// and https:// proxies")


# The proxy taken from the environment, as Go's httpproxy.FromEnvironment (client-go) picks it:
# by the server's scheme, upper case before lower case, never for localhost or loopback
# addresses, http:// when the value has no scheme.
@pytest.mark.parametrize("host, env, want", [
    ("https://10.0.0.1:6443", {"HTTP_PROXY": "http://a:1", "HTTPS_PROXY": "http://b:2"}, "http://b:2"),
    ("http://10.0.0.1:8080", {"HTTP_PROXY": "http://a:1", "HTTPS_PROXY": "http://b:2"}, "http://a:1"),
    ("https://10.0.0.1:6443", {"HTTP_PROXY": "http://a:1"}, None),
    ("https://10.0.0.1:6443", {"https_proxy": "http://c:3"}, "http://c:3"),
    ("https://10.0.0.1:6443", {"HTTPS_PROXY": "http://b:2", "https_proxy": "http://c:3"}, "http://b:2"),
    ("https://10.0.0.1:6443", {"HTTPS_PROXY": "proxy.corp:3128"}, "http://proxy.corp:3128"),
    ("https://127.0.0.1:6443", {"HTTPS_PROXY": "http://b:2"}, None),
    ("https://127.1.2.3:6443", {"HTTPS_PROXY": "http://b:2"}, None),
    ("https://[::1]:6443", {"HTTPS_PROXY": "http://b:2"}, None),
    ("https://LocalHost:6443", {"HTTPS_PROXY": "http://b:2"}, None),
    ("https://api.example.com", {}, None),
])
def test_environment_proxy_is_chosen_as_kubectl_chooses_it(host, env, want):
    assert live._env_proxy(host, env) == want


@pytest.mark.parametrize("var", ["HTTPS_PROXY", "HTTP_PROXY", "http_proxy"])
def test_a_proxy_in_the_environment_is_not_used_for_a_loopback_server(tmp_path, monkeypatch, var):
    """kind and minikube clusters listen on 127.0.0.1: kubectl reaches them directly whatever the
    environment's proxy, and so does evictplan (the client alone went through the proxy)."""
    import socket
    dead = socket.create_server(("127.0.0.1", 0))
    dead_url = "http://127.0.0.1:%d" % dead.getsockname()[1]
    dead.close()
    with ApiServer(small_cluster(), tokens={"tok": "readonly"}, tls=True) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc", token="tok"))
        monkeypatch.setenv(var, dead_url)
        res = main("--kubeconfig", kc, "--now", NOW, "-o", "json", "drain", "n1")
        got = subprocess.run([KUBECTL, "--kubeconfig", kc, "get", "nodes", "-o", "name"], capture_output=True,
                             text=True, timeout=60, env=dict(os.environ, HOME=str(tmp_path)))
    assert got.returncode == 0, got.stderr
    assert res.returncode in (0, 5), res.stderr


def test_in_cluster_service_account_over_tls(tmp_path, monkeypatch):
    """In a pod (no kubeconfig, KUBERNETES_SERVICE_HOST set) the service-account token and CA are used."""
    from kubernetes.config import incluster_config
    with ApiServer(small_cluster(), tokens={"sa-token": "readonly"}, tls=True) as srv:
        (tmp_path / "token").write_text("sa-token")
        shutil.copy(srv.ca_file, tmp_path / "ca.crt")
        monkeypatch.setattr(incluster_config, "SERVICE_TOKEN_FILENAME", str(tmp_path / "token"))
        monkeypatch.setattr(incluster_config, "SERVICE_CERT_FILENAME", str(tmp_path / "ca.crt"))
        monkeypatch.setenv("HOME", str(tmp_path))
        monkeypatch.delenv("KUBECONFIG", raising=False)
        monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "127.0.0.1")
        monkeypatch.setenv("KUBERNETES_SERVICE_PORT", str(srv.port))
        snap = live.load_live(GlobalOptions(), nodes=[], kubelet=False)
        url = srv.url
    assert sorted(snap.nodes) == ["n1", "n2", "n3"] and len(snap.pods) == 6
    assert snap.info.server == url and snap.info.context == "(in-cluster)"


# --- reading ------------------------------------------------------------------------------------

def test_reads_every_kind_with_version_and_resource_versions(demo, demo_kc):
    demo.clear_requests()
    data = live.read_live(GlobalOptions(kubeconfig=demo_kc), "pruned", nodes=["worker-a1"])
    assert data.info["serverVersion"] == apiserver_module.SERVER_VERSION["gitVersion"]
    assert data.info["context"] == "demo-live" and data.info["server"] == demo.url
    demo_objs = json.loads(Path(DEMO_PATH).read_text())["items"]
    for spec in live.LISTS:
        want = sum(1 for o in demo_objs if o["kind"] == spec.kind)
        if spec.kind == "Namespace":   # the API server creates the namespaces the objects live in
            want = len({o["metadata"].get("namespace") for o in demo_objs} - {None} | {"default"} |
                       {o["metadata"]["name"] for o in demo_objs if o["kind"] == "Namespace"})
        assert len(data.items[spec.kind]) == want, spec.kind
        assert data.info["resourceVersions"][spec.resource].isdigit()
    # kubelet data only for the node asked for
    proxied = {p for m, p in demo.requests if "/proxy/" in p}
    assert proxied == {"/api/v1/nodes/worker-a1/proxy/configz", "/api/v1/nodes/worker-a1/proxy/stats/summary"}
    lists = [p for m, p in demo.requests if p.startswith("/api/v1/pods")]
    assert lists and all("limit=500" in p for p in lists)


def test_pages_of_500_with_continue(tmp_path):
    with ApiServer(small_cluster(pods_per_node=401)) as srv:   # 1203 pods: 3 pages
        kc = str(srv.write_kubeconfig(tmp_path / "kc"))
        snap = live.load_live(GlobalOptions(kubeconfig=kc), kubelet=False)
        pod_lists = [p for m, p in srv.requests if p.startswith("/api/v1/pods?")]
    assert len(snap.pods) == 1203
    assert len(pod_lists) == 3 and "continue=" not in pod_lists[0]
    assert all("continue=" in p for p in pod_lists[1:])


class _Expirer(live._Progress):
    """After pod pages, compact the server's history: the next continue token is 410 Gone."""

    def __init__(self, srv: ApiServer, times: int) -> None:
        super().__init__()
        self.srv, self.times = srv, times

    def page(self, kind: str, n: int, remaining, last: bool = False) -> None:
        if kind == "Pod" and self.times and remaining:
            self.times -= 1
            self.srv.expire_continue_tokens()


@pytest.mark.parametrize("expiries, outcome", [
    (1, "restarts"),       # an expired continue token restarts the list once
    (99, "error"),         # expiring again after the restart is an error naming pods and 410
])
def test_expired_continue_token(tmp_path, expiries, outcome):
    with ApiServer(small_cluster(pods_per_node=401)) as srv:
        conn = live.connect(GlobalOptions(kubeconfig=str(srv.write_kubeconfig(tmp_path / "kc"))))
        reader = live.ClusterReader(conn, progress=_Expirer(srv, expiries))
        if outcome == "restarts":
            data = reader.read(kubelet=False)
            assert len(data.items["Pod"]) == 1203
            firsts = [p for m, p in srv.requests if p.startswith("/api/v1/pods?") and "continue=" not in p]
            assert len(firsts) == 2
        else:
            with pytest.raises(ClusterAccessError) as e:
                reader.read(kubelet=False)
            assert str(e.value).startswith("listing pods: 410 Gone: The provided continue parameter is too old")
            assert e.value.status == 410


def test_planning_read_projects_pages_as_they_arrive_and_restarts_cleanly(tmp_path):
    """With a Freezer (every plan), pod pages go straight into it: ClusterData keeps none, and a
    list that restarts on an expired continue token replaces the pods it had projected instead of
    adding them twice. The snapshot equals one read without any restart."""
    from kubectl_evict.source.freeze import Freezer
    with ApiServer(small_cluster(pods_per_node=401)) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc"))
        want = live.load_live(GlobalOptions(kubeconfig=kc), kubelet=False)
        conn = live.connect(GlobalOptions(kubeconfig=kc))
        freezer = Freezer()
        sink = live.FreezeSink(freezer, live.source_label(conn.context))
        data = live.ClusterReader(conn, progress=_Expirer(srv, 1)).read(kubelet=False, sink=sink)
        sink.close()
        firsts = [p for m, p in srv.requests if p.startswith("/api/v1/pods?") and "continue=" not in p]
    assert len(firsts) == 3, "one list for `want`, then the restarted one: two first pages"
    assert not data.items.get("Pod") and not data.items.get("PriorityClass"), "projected, not kept"
    assert data.items["Node"], "nodes stay (the kubelet reads need their names)"
    freezer.add(live.documents(data))
    got = freezer.build()
    assert freezer.warnings == [], "a restarted list must not look like duplicate pods"
    assert len(got.pods) == 1203
    assert list(got.pods) == list(want.pods)


def test_bad_pod_in_a_live_page_is_one_error_line(tmp_path):
    """A pod the freezer rejects while its page is projected (on the freezing thread) is still one
    `error:` line naming the cluster, the pod and the field, and nothing else is printed."""
    objs = small_cluster(pods_per_node=300)
    bad = pod("p-bad", "n2", ns="ns1", cpu="1m", memory="1Mi")
    bad["spec"]["terminationGracePeriodSeconds"] = "soon"
    objs.append(bad)
    with ApiServer(objs) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc"))
        res = main("--kubeconfig", kc, "drain", "n1")
    assert res.returncode == 1 and res.stdout == ""
    assert res.stderr.startswith("error: ") and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert "Pod ns1/p-bad" in res.stderr and "spec.terminationGracePeriodSeconds" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr


# (id, what the server answers instead of a page: a function of the real page, what the error says).
# Pod pages whose head reads as API servers write it go to the projecting thread undecoded
# (`live.page_head`): a page cut after its head fails there, and must read as one that fails at once.
BAD_PAGES = [
    ("cut-after-its-head", lambda page: page[: len(page) * 2 // 3], "is not JSON"),
    ("html-from-a-proxy", lambda page: b"<html><body>502 Bad Gateway</body></html>", "is not JSON"),
    ("items-not-a-list", lambda page: b'{"kind":"PodList","apiVersion":"v1","metadata":{},"items":{"a":1}}',
     "is not a Kubernetes list"),
    # items that are no objects (a proxy's rewrite, a broken server): said as files say it
    ("an-item-is-a-number", lambda page: b'{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[{"metadata":{}},7]}',
     "is a list whose items[1] is not an object (found number 7)"),
    ("an-item-is-null", lambda page: b'{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[null]}',
     "is a list whose items[0] is not an object (found null)"),
    # a 200 that is no list at all: read as an empty page, it claimed the cluster had none of the
    # kind (for PDBs: "no PodDisruptionBudget covers it"); client-go refuses to decode it
    ("a-status-with-200", lambda page: b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",'
                                       b'"message":"upstream connect error","code":503}',
     "is a Status, not a list (upstream connect error)"),
    ("an-empty-object", lambda page: b'{}', "is not a Kubernetes list"),
]


@pytest.mark.parametrize("case", BAD_PAGES, ids=[c[0] for c in BAD_PAGES])
def test_a_page_that_is_no_list_is_one_error_line(tmp_path, case):
    """The second of three pod pages is broken: the plan fails with one line naming the list and
    the server, whichever thread decodes the page; nothing is planned."""
    _id, body, problem = case
    with ApiServer(small_cluster(pods_per_node=401)) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc"))
        srv.faults.add("GET", r"^/api/v1/pods$", skip=1, times=None, body=body)
        res = main("--kubeconfig", kc, "--now", NOW, "drain", "n1")
        srv.faults.clear()   # snapshot reads items undecoded (JSON) or whole (YAML): the same line
        srv.faults.add("GET", r"^/api/v1/pods$", skip=1, times=None, body=body)
        snap = main("--kubeconfig", kc, "snapshot")
        srv.faults.clear()
        srv.faults.add("GET", r"^/api/v1/pods$", skip=1, times=None, body=body)
        snap_yaml = main("--kubeconfig", kc, "snapshot", "-o", "yaml")
        url = srv.url
    for r in (res, snap, snap_yaml):
        assert_error(r, "error: listing pods: the answer from %s %s" % (url, problem))
        assert r.stdout == ""


# (id, a page's head, the list metadata read off it: None when the page is decoded whole instead)
PAGE_HEADS = [
    ("api-server", b'{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"12","continue":"eyJ2",'
                   b'"remainingItemCount":5},"items":[{"metadata":{}}]}',
     {"resourceVersion": "12", "continue": "eyJ2", "remainingItemCount": 5}),
    ("indented", b'{\n  "kind": "PodList",\n  "apiVersion": "v1",\n  "metadata": {},\n  "items": []\n}', {}),
    ("fields-in-another-order", b'{"apiVersion":"v1","kind":"PodList","metadata":{},"items":[]}', None),
    ("items-first", b'{"kind":"PodList","apiVersion":"v1","items":[],"metadata":{}}', None),
    ("items-null", b'{"kind":"PodList","apiVersion":"v1","metadata":{},"items":null}', None),
    ("count-as-a-string", b'{"kind":"PodList","apiVersion":"v1","metadata":{"remainingItemCount":"5"},"items":[]}',
     None),
    ("continue-as-a-number", b'{"kind":"PodList","apiVersion":"v1","metadata":{"continue":5},"items":[]}', None),
    ("nested-metadata", b'{"kind":"PodList","apiVersion":"v1","metadata":{"a":{}},"items":[]}', None),
    ("metadata-not-json", b'{"kind":"PodList","apiVersion":"v1","metadata":{"a":1,},"items":[]}', None),
    ("head-too-long", b'{"kind":"PodList","apiVersion":"v1","metadata":{"continue":"' + b"x" * 9000 + b'"},"items":[]}',
     None),
    ("not-json", b"<html>502 Bad Gateway</html>", None),
]


@pytest.mark.parametrize("case", PAGE_HEADS, ids=[c[0] for c in PAGE_HEADS])
def test_page_head(case):
    _id, data, want = case
    assert live.page_head(data) == want


def test_too_many_requests_with_retry_after_is_retried(demo, demo_kc):
    demo.faults.add("GET", r"^/api/v1/pods$", status=429, retry_after=1, times=1)
    data = live.read_live(GlobalOptions(kubeconfig=demo_kc), "pruned", kubelet=False)
    assert len(data.items["Pod"]) == 157


# What a Retry-After header on a 429 means (client-go's retryAfterSeconds: a number of seconds is
# honoured, anything else is no retry and the 429 is the error; a negative wait is no wait, as
# Go's time.Sleep takes it). Never an internal error.
@pytest.mark.parametrize("header, retried", [
    ("1", True), ("0", True), ("-1", True),
    ("nan", False), ("inf", False), ("Wed, 21 Oct 2026 07:28:00 GMT", False),
])
def test_retry_after_values(tmp_path, header, retried):
    with ApiServer(small_cluster()) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc"))
        srv.faults.add("GET", r"^/api/v1/pods$", status=429, retry_after=header, times=1)
        res = main("--kubeconfig", kc, "--now", NOW, "drain", "n1")
    if retried:
        assert res.returncode in (0, 5) and "error" not in res.stderr, res.stderr
    else:
        assert_error(res, "error: listing pods: 429 Too Many Requests")


# --- kubelets -----------------------------------------------------------------------------------

def test_kubelet_data_becomes_snapshot_data(demo, demo_kc):
    snap = live.load_live(GlobalOptions(kubeconfig=demo_kc), nodes=["worker-a1", "gpu-1"])
    assert set(snap.kubelet_configs) == {"worker-a1", "gpu-1"}
    demo_objs = json.loads(Path(DEMO_PATH).read_text())["items"]
    want = next(o for o in demo_objs if o["kind"] == "NodeKubeletConfig" and o["metadata"]["name"] == "worker-a1")
    assert snap.kubelet_configs["worker-a1"]["evictionHard"] == want["kubeletconfig"]["evictionHard"]


@contextlib.contextmanager
def _kubelet_trouble(tmp_path, monkeypatch, tokens_role, fault):
    """The demo served with a kubelet problem: `tokens_role` (e.g. noproxy: nodes/proxy forbidden),
    or `fault` "delay" (no kubelet answers within the 0.3 s the reader is given). Yields the kubeconfig."""
    tokens = {"tok": tokens_role} if tokens_role else None
    with ApiServer(DEMO_PATH, tokens=tokens) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc", token="tok" if tokens else None))
        if fault == "delay":
            srv.faults.add("GET", r"/proxy/", delay=1.5, times=None)
        monkeypatch.setenv("EVICTPLAN_KUBELET_TIMEOUT", "0.3")
        yield kc


# Without the permission the kind is not read at all: the plan is made, and says in `incomplete`
# that the shutdown grace periods are upstream defaults; a kubelet that does not answer is a
# warning about that node only. With the defaults (graceful shutdown off) the plan is what
# `controller --fail` gives for the node: a shortfall (exit 4, which wins over incomplete's 5):
# worker-a1's spark-driver fits no node, worker-a2's postgres-0 waits for its old pod.
@pytest.mark.parametrize("tokens_role, fault, node_name, code, needles", [
    ("noproxy", None, "worker-a1", 4,
     ["no permission to read kubelets through nodes/proxy (403 Forbidden", "node/worker-a1", "upstream kubelet defaults"]),
    (None, None, "worker-a2", 4,    # no kubelet data in the demo for this node: the proxy answers 503
     ["node/worker-a2: kubelet configuration (configz) and stats summary not read (503 Service Unavailable",
      "connection refused", "upstream kubelet defaults"]),
    (None, "delay", "worker-a1", 4,   # the kubelet does not answer in time
     ["node/worker-a1: kubelet configuration (configz) and stats summary not read (no answer within 0.3s)"]),
])
def test_kubelet_problems_are_warnings_not_failures(tmp_path, monkeypatch, tokens_role, fault, node_name, code,
                                                    needles):
    with _kubelet_trouble(tmp_path, monkeypatch, tokens_role, fault) as kc:
        res = main("--kubeconfig", kc, "--now", NOW, "shutdown", node_name)
    assert res.returncode == code, res.stderr
    warnings = [line for line in res.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1, res.stderr
    for n in needles:
        assert n in warnings[0], warnings[0]
    assert "SHUTDOWN" in res.stdout.upper() or "kill" in res.stdout.lower()


# A connection the API server drops (reset) or cuts (half an answer) while proxying to kubelets:
# the same failure on several nodes is one warning naming them, in a few words (the client's
# own text names each request's URL, which kept every node on a line of its own).
@pytest.mark.parametrize("fault", [{"reset": True}, {"partial": 0.5}], ids=["reset", "cut"])
def test_kubelet_connection_failures_fold_into_one_warning(tmp_path, fault):
    with ApiServer(DEMO_PATH) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc"))
        srv.faults.add("GET", r"/nodes/(worker-a1|gpu-1)/proxy/", times=None, **fault)
        res = main("--kubeconfig", kc, "--now", NOW, "shutdown", "worker-a1", "gpu-1")
    warnings = [line for line in res.stderr.splitlines() if line.startswith("warning: ")]
    assert warnings == ["warning: node/worker-a1, node/gpu-1 (2 nodes): kubelet configuration (configz) and stats "
                        "summary not read (connection lost mid-response); the plan uses upstream kubelet defaults "
                        "for them"], res.stderr
    assert res.returncode in (0, 3, 4, 5) and "Traceback" not in res.stderr


# What went wrong reading the cluster is said again when planning from the snapshot: `snapshot`
# records its warnings in SnapshotInfo.warnings, and a plan from the file prints each on stderr,
# marked with when the snapshot was taken; the plan itself is the live plan's, byte for byte.
@pytest.mark.parametrize("tokens_role, fault", [("noproxy", None), (None, "delay")], ids=["forbidden", "no-answer"])
def test_a_snapshots_read_warnings_are_said_when_planning_from_it(tmp_path, monkeypatch, tokens_role, fault):
    with _kubelet_trouble(tmp_path, monkeypatch, tokens_role, fault) as kc:
        snap = main("--kubeconfig", kc, "snapshot")
        live = main("--kubeconfig", kc, "--now", NOW, "-o", "json", "shutdown", "worker-a1")
    assert snap.returncode == 0, snap.stderr
    said = [line[len("warning: "):] for line in snap.stderr.splitlines() if line.startswith("warning: ")]
    assert said and json.loads(snap.stdout)["items"][0]["warnings"] == said
    path = tmp_path / "cluster.json"
    path.write_text(snap.stdout)
    taken = json.loads(snap.stdout)["items"][0]["takenAt"]
    res = main("-f", str(path), "--now", NOW, "-o", "json", "shutdown", "worker-a1")
    assert res.returncode == live.returncode, res.stderr
    assert res.stderr.splitlines() == ["warning: when the snapshot was taken (%s): %s" % (taken, w) for w in said]
    assert res.stdout == live.stdout


def test_snapshot_info_warnings_must_be_strings(tmp_path):
    doc = json.loads(Path(DEMO_PATH).read_text())
    info = next(o for o in doc["items"] if o["kind"] == "SnapshotInfo")
    info["warnings"] = ["fine", 7]
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps(doc))
    res = main("-f", str(path), "affinity")
    assert res.returncode == 1
    assert res.stderr == "error: %s: SnapshotInfo snapshot: warnings[1]: expected a string, found number 7\n" % path


# --- API and connection errors ------------------------------------------------------------------

def test_api_and_connection_errors_are_clean(tmp_path):
    deny_pods = {"t": lambda verb, full: full != "pods"}
    with ApiServer(small_cluster(pods_per_node=400), tokens=deny_pods) as forbid, \
            ApiServer(small_cluster(pods_per_node=400)) as broken, ApiServer(small_cluster()) as dead:
        kc_forbid = str(forbid.write_kubeconfig(tmp_path / "f", token="t"))
        kc_badtoken = str(forbid.write_kubeconfig(tmp_path / "b", token="wrong"))
        kc_broken = str(broken.write_kubeconfig(tmp_path / "k"))
        kc_dead = str(dead.write_kubeconfig(tmp_path / "d"))
        broken_url, dead_url = broken.url, dead.url
        broken.faults.add("GET", r"^/api/v1/pods$", partial=0.5, times=None, skip=1)   # second page breaks
        dead.stop()
        results = cli_many([
            ["--kubeconfig", kc_forbid, "affinity"],
            ["--kubeconfig", kc_broken, "snapshot"],
            ["--kubeconfig", kc_dead, "drain", "n1"],
        ])
        badtoken = main("--kubeconfig", kc_badtoken, "affinity")
        broken.faults.clear()
        broken.faults.add("GET", r"^/apis/apps/v1/deployments$", reset=True, times=None)
        reset = main("--kubeconfig", kc_broken, "drain", "n1")
    assert_error(results[0], 'error: listing pods: 403 Forbidden: pods is forbidden: User',
                 'cannot list resource "pods" in API group "" at the cluster scope')
    assert_error(results[1], "error: listing pods: cannot talk to the API server %s (context test): "
                             "connection lost mid-response" % broken_url)
    assert results[1].stdout == ""
    assert_error(results[2], "error: reading /version: cannot talk to the API server %s" % dead_url,
                 "connection refused")
    assert_error(badtoken, "error: listing nodes: 401 Unauthorized")
    assert_error(reset, "error: listing deployments.apps: cannot talk to the API server %s" % broken_url)


# A server whose certificate the client cannot verify: the error line ends with OpenSSL's reason
# (urllib3's text is long and the reason sat past the cut), as kubectl ends with x509's.
@pytest.mark.parametrize("ca, reason", [
    ("none", "certificate verify failed: self-signed certificate"),
    ("another-servers", "certificate verify failed: self-signed certificate"),
    ("client-cert-not-pem", "cannot load the client certificate or key (OpenSSL: PEM lib)"),
])
def test_tls_verification_failure_says_why(tmp_path, ca, reason):
    import base64
    with ApiServer(small_cluster(), tls=True) as srv, ApiServer([], tls=True) as other:
        kc = srv.write_kubeconfig(tmp_path / "kc", token="t")   # kubectl prompts for a login without one
        cfg = json.loads(kc.read_text())
        if ca == "client-cert-not-pem":
            cfg["users"][0]["user"] = {"client-certificate-data": base64.b64encode(b"not a cert").decode(),
                                       "client-key-data": base64.b64encode(b"not a key").decode()}
        else:
            del cfg["clusters"][0]["cluster"]["certificate-authority-data"]
        if ca == "another-servers":
            cfg["clusters"][0]["cluster"]["certificate-authority"] = other.ca_file
        kc.write_text(json.dumps(cfg))
        res = main("--kubeconfig", str(kc), "--now", NOW, "drain", "n1")
        got = subprocess.run([KUBECTL, "--kubeconfig", str(kc), "get", "nodes"], capture_output=True, text=True,
                             timeout=60, env=dict(os.environ, HOME=str(tmp_path)))
        url = srv.url
    assert got.returncode == 1 and ("x509" in got.stderr or "PEM" in got.stderr), got.stderr
    assert_error(res, "error: reading /version: cannot talk to the API server %s (context test): TLS failure: %s"
                 % (url, reason))
    assert res.stderr.strip().endswith(reason), res.stderr


# A role that may not list a kind other than Node and Pod (here PDBs, or PriorityClasses) still
# plans: the kind is left out of SnapshotInfo.kinds, so the plan lists it as not in the input
# (exit 5 where nothing else decides) instead of failing, and one warning names the permission.
# A 403 on nodes or pods stays an error (above): there is nothing to plan without them.
@pytest.mark.parametrize("resource,kind", [("poddisruptionbudgets", "PodDisruptionBudget"),
                                           ("priorityclasses", "PriorityClass")])
def test_a_kind_the_role_may_not_list_is_left_out_and_said(tmp_path, resource, kind):
    deny = {"t": lambda verb, full: verb in ("get", "list", "watch") and full != resource}
    args = ("--now", NOW, "-o", "json", "drain", "worker-a1", "--ignore-daemonsets", "--delete-emptydir-data", "--force")
    with ApiServer(DEMO_PATH, tokens=deny) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc", token="t"))
        live = main("--kubeconfig", kc, *args)
        snap = main("--kubeconfig", kc, "snapshot")
    full = {"poddisruptionbudgets": "poddisruptionbudgets.policy",
            "priorityclasses": "priorityclasses.scheduling.k8s.io"}[resource]
    said = [line for line in live.stderr.splitlines() if "no permission to list" in line]
    assert len(said) == 1 and said[0].startswith("warning: no permission to list %s (403 Forbidden: " % full)
    assert said[0].endswith("): the snapshot holds no %s; plans list it as not in the input where it matters "
                            "(grant list on %s)" % (kind, full))
    assert live.returncode in (0, 3, 4, 5), live.stderr
    if kind == "PodDisruptionBudget":      # drain's evictions depend on budgets: not checked
        assert kind in [i["kind"] for i in json.loads(live.stdout)["incomplete"]]
    info = [o for o in json.loads(snap.stdout)["items"] if o["kind"] == "SnapshotInfo"][0]
    assert kind not in info["kinds"] and "Node" in info["kinds"] and "Pod" in info["kinds"]
    assert [w for w in info["warnings"] if "no permission to list" in w] == [said[0][len("warning: "):]]
    path = tmp_path / "snap.json"
    path.write_text(snap.stdout)
    from_file = main("-f", str(path), *args)
    assert from_file.returncode == live.returncode and from_file.stdout == live.stdout.replace(
        json.loads(live.stdout)["cluster"]["server"], json.loads(from_file.stdout)["cluster"]["server"])


# --- snapshot -----------------------------------------------------------------------------------

def _redaction_cluster() -> List[dict]:
    secret_pod = pod("app-1", "n1", annotations={"kubectl.kubernetes.io/last-applied-configuration": "{\"x\":1}",
                                                 "cluster-autoscaler.kubernetes.io/safe-to-evict": "true"})
    secret_pod["spec"]["containers"][0]["env"] = [{"name": "PASSWORD", "value": "hunter2"},
                                                  {"name": "FROM", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]
    secret_pod["metadata"]["managedFields"] = [{"manager": "kubectl", "operation": "Apply"}]
    mirror = pod("etcd-n1", "n1", ns="kube-system", owner=("Node", "n1"),
                 annotations={"kubernetes.io/config.mirror": "abc", "note": "private"})
    deploy = {"apiVersion": "apps/v1", "kind": "Deployment",
              "metadata": {"name": "web", "namespace": "default", "annotations": {"deployment.kubernetes.io/revision": "3"}},
              "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"annotations": {"checksum/secret": "abc"}},
                                    "spec": {"containers": [{"name": "c", "env": [{"name": "TOKEN", "value": "s3cret"}]}]}}}}
    return [node("n1"), node("n2"), secret_pod, mirror, deploy]


def test_snapshot_json_yaml_and_redact(tmp_path):
    with ApiServer(_redaction_cluster()) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc"))
        plain = cli("--kubeconfig", kc, "snapshot", "--no-kubelet")
        red = main("--kubeconfig", kc, "snapshot", "--redact", "--no-kubelet")
        red_yaml = main("--kubeconfig", kc, "snapshot", "--redact", "-o", "yaml", "--no-kubelet")
        wide = main("--kubeconfig", kc, "-o", "wide", "snapshot")
        url = srv.url
    for r in (plain, red, red_yaml):
        assert r.returncode == 0, r.stderr
    assert_error(wide, "snapshot prints json or yaml", "-o/--output")
    full = json.loads(plain.stdout)
    assert full["kind"] == "List" and full["apiVersion"] == "v1"
    assert full["items"][0]["kind"] == "SnapshotInfo" and full["items"][0]["server"] == url
    assert "hunter2" in plain.stdout and "managedFields" in plain.stdout   # unredacted: everything read
    for doc in (json.loads(red.stdout), yaml.safe_load(red_yaml.stdout)):
        by_name = {i["metadata"]["name"]: i for i in doc["items"]}
        app = by_name["app-1"]
        assert app["metadata"]["annotations"] == {"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"}
        assert "managedFields" not in app["metadata"]
        assert app["spec"]["containers"][0]["env"] == [
            {"name": "PASSWORD"}, {"name": "FROM", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]
        assert by_name["etcd-n1"]["metadata"]["annotations"] == {"kubernetes.io/config.mirror": "abc"}
        web = by_name["web"]
        assert "annotations" not in web["metadata"] and "annotations" not in web["spec"]["template"]["metadata"]
        assert web["spec"]["template"]["spec"]["containers"][0]["env"] == [{"name": "TOKEN"}]
    for r in (red, red_yaml):
        assert "hunter2" not in r.stdout and "s3cret" not in r.stdout and "last-applied" not in r.stdout


def test_snapshot_refuses_files():
    res = main("--demo", "snapshot")
    assert_error(res, "snapshot reads a live cluster")


# `snapshot` only reads: the flags of planning and applying would be silently ignored (a user
# asking for `snapshot --apply` or `--now T` would get a snapshot of now, taken as if nothing
# were asked), so they are refused before the cluster is read, as `verify` refuses --apply.
@pytest.mark.parametrize("args,flag", [
    (("--apply", "snapshot"), "--apply"),
    (("snapshot", "--yes"), "--yes"),
    (("snapshot", "--dry-run=server"), "--dry-run"),
    (("--timeout", "1m", "snapshot"), "--timeout"),
    (("snapshot", "--force-stale"), "--force-stale"),
    (("--now", NOW, "snapshot"), "--now"),
    (("snapshot", "--kubernetes-version", "v1.35"), "--kubernetes-version"),
    (("-o", "table", "snapshot"), "-o/--output"),      # the planning views' default, not snapshot's
    (("snapshot", "-o", "wide"), "-o/--output"),
])
def test_snapshot_refuses_flags_it_would_ignore(demo, demo_kc, args, flag):
    res = main("--kubeconfig", demo_kc, *args)
    assert_error(res, "error: %s: " % flag)
    assert res.stdout == ""


# `apply` and `verify` read the plan file, which fixed its own now and release: a planning flag
# would be silently ignored (apply would send the same actions; verify compares with what
# happened), so it is refused before the cluster is contacted. verify keeps --now: it judges what
# is still pending at that time.
@pytest.mark.parametrize("args,flag", [
    (("apply", "PLAN", "--now", NOW), "--now"),
    (("apply", "PLAN", "--kubernetes-version", "v1.35"), "--kubernetes-version"),
    (("--kubernetes-version", "v1.35", "verify", "PLAN"), "--kubernetes-version"),
])
def test_apply_and_verify_refuse_planning_flags(demo, demo_kc, tmp_path, args, flag):
    plan = main("--demo", "--now", NOW, "drain", "worker-a1", "-o", "json")
    path = tmp_path / "plan.json"
    path.write_text(plan.stdout)
    demo.clear_requests()
    res = main("--kubeconfig", demo_kc, *[str(path) if a == "PLAN" else a for a in args])
    assert_error(res, "error: %s: " % flag, "is for planning")
    assert res.stdout == "" and demo.requests == []


def test_progress_line_only_on_a_terminal_and_only_for_slow_reads(demo, demo_kc):
    started = time.monotonic()
    quick = main("--kubeconfig", demo_kc, "--now", NOW, "affinity", tty=True)
    took = time.monotonic() - started
    assert quick.returncode == 0
    if took < 0.9:      # a loaded CI machine can make even this read slow: judge only a quick one
        assert "reading cluster" not in quick.stderr                      # under a second: nothing
    demo.faults.add("GET", r"^/api/v1/pods$", delay=1.5)
    on_tty = main("--kubeconfig", demo_kc, "--now", NOW, "affinity", tty=True)
    demo.faults.add("GET", r"^/api/v1/pods$", delay=1.5)
    piped = main("--kubeconfig", demo_kc, "--now", NOW, "affinity")
    assert on_tty.returncode == 0 and piped.returncode == 0
    assert "\r\033[Kreading cluster (" in on_tty.stderr and "kinds): nodes 12" in on_tty.stderr
    assert on_tty.stderr.endswith("\r\033[K")                                # gone when done
    assert "reading cluster" not in piped.stderr and "\r" not in piped.stderr
    assert on_tty.stdout == piped.stdout == quick.stdout


def test_no_progress_on_a_pipe_from_the_real_process(demo, demo_kc):
    demo.faults.add("GET", r"^/api/v1/pods$", delay=1.5)
    res = cli("--kubeconfig", demo_kc, "--now", NOW, "affinity")
    assert res.returncode == 0, res.stderr
    assert "reading cluster" not in res.stderr and "\r" not in res.stderr and "\033" not in res.stderr


# --- plans: live == snapshot file == fixture -----------------------------------------------------

def test_every_command_is_covered():
    names = {p.stem for p in (REPO / "kubectl_evict" / "commands").glob("*.py") if not p.stem.startswith("_")}
    assert names - NOT_PLANNING <= set(COMMAND_ARGS), "add arguments for the new command to COMMAND_ARGS"


def _without_cluster(doc: dict) -> dict:
    doc = dict(doc)
    doc.pop("cluster", None)
    # the test server says v1.32 where the fixture says v1.33.2: drop what names the version, and
    # the note that the kubelets (v1.33.2 in both) run another release than the control plane
    doc["notes"] = [n.replace(apiserver_module.SERVER_VERSION["gitVersion"], "v1.33.2") for n in doc.get("notes", [])
                    if "not the control plane's" not in n]
    doc.pop("assumedVersion", None)
    return doc


def test_live_plans_equal_snapshot_file_and_fixture_plans(demo, demo_kc, tmp_path):
    """Planning live, from `snapshot` output and from the fixture the server serves gives the
    same plan at the same --now: byte-identical against the snapshot (same SnapshotInfo), equal
    but for the cluster block and the server version against the fixture."""
    snap = main("--kubeconfig", demo_kc, "snapshot")
    assert snap.returncode == 0, snap.stderr
    snap_file = tmp_path / "snap.json"
    snap_file.write_text(snap.stdout)
    names = sorted(COMMAND_ARGS)
    runs = []
    for name in names:
        args = ["--now", NOW, "-o", "json", *COMMAND_ARGS[name]]
        runs += [["--kubeconfig", demo_kc, *args], ["-f", str(snap_file), *args], ["--demo", *args]]
    results = [main(*r) for r in runs]
    for i, name in enumerate(names):
        live_r, file_r, demo_r = results[3 * i: 3 * i + 3]
        assert live_r.returncode in (0, 3, 4) and live_r.returncode == file_r.returncode == demo_r.returncode, \
            (name, live_r.stderr, file_r.stderr)
        assert live_r.stdout == file_r.stdout, name
        live_doc = json.loads(live_r.stdout)
        assert live_doc["cluster"] == {"context": "demo-live", "server": demo.url}
        assert live_doc["actions"] or live_doc["blocked"], name    # the arguments make it do something
        assert _without_cluster(live_doc) == _without_cluster(json.loads(demo_r.stdout)), name


# (id, the server's answers: chunk size (0: Content-Length), compressed when asked)
ANSWER_SHAPES = [
    ("plain", 0, False),
    ("streamed", 2048, False),            # kube-apiserver v1.33+ to a client that asks for no gzip
    ("streamed-gzip", 2048, True),        # ... to one that does, as kubectl and evictplan do
]


def test_live_reads_ask_for_gzip_and_plan_the_same_from_any_answer_shape(tmp_path):
    """Every request asks for gzip, as kubectl's does, and the API server compresses the large
    answers (over 128 KiB: the demo's pod list); lists streamed in 2 KB chunks (KEP-5116) read
    the same: the plan is identical whatever shape the answers take."""
    outputs, asked, compressed = [], [], []
    for _id, chunk, gz in ANSWER_SHAPES:
        with ApiServer(DEMO_PATH, chunk=chunk, gzip=gz) as srv:
            kc = str(srv.write_kubeconfig(tmp_path / ("kc-" + _id), context="demo-live"))
            res = main("--kubeconfig", kc, "--now", NOW, "-o", "json", "drain", "worker-a1", "worker-b1")
            assert res.returncode == 3, res.stderr
            outputs.append(_without_cluster(json.loads(res.stdout)))
            asked.append(srv.headers_of("/api/v1/pods", "Accept-Encoding"))
            compressed.append([p for p in srv.compressed if p.startswith("/api/v1/pods")])
    assert outputs[0] == outputs[1] == outputs[2]
    assert outputs[0]["actions"], "the drain evicts pods"
    assert all(values == [["gzip"]] for values in asked), asked
    assert compressed[0] == compressed[1] == [] and len(compressed[2]) == 1, compressed


def _two_members(gz: bytes) -> bytes:
    """The same answer as two gzip members (RFC 1952 allows it; a re-packing proxy may send it)."""
    import gzip
    body = gzip.decompress(gz)
    half = len(body) // 2
    return gzip.compress(body[:half], 1) + gzip.compress(body[half:], 1)


# (id, what the wire carries instead of the server's gzip answer to the pod list, the plan's result):
# the body is gunzipped in one call (live.response_body); the shapes urllib3's own decoder took must
# read the same, and a broken one must fail as it did, with one clean line.
GZIP_WIRE = [
    ("two-members", _two_members, "same plan"),
    ("not-gzip", lambda gz: b"this is not gzip" + gz[16:], "cannot talk to the API server %s (context demo-live): "
                                                           "DecodeError"),
    # a stream cut short within a consistent Content-Length: what arrived is a page cut short
    ("cut-short", lambda gz: gz[: len(gz) // 2], "the answer from %s is not JSON"),
]


@pytest.mark.parametrize("wire,expect", [c[1:] for c in GZIP_WIRE], ids=[c[0] for c in GZIP_WIRE])
def test_gzip_answers_in_every_shape(tmp_path, wire, expect):
    args = ("--now", NOW, "-o", "json", "drain", "worker-a1", "worker-b1")
    with ApiServer(DEMO_PATH) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc", context="demo-live"))
        plain = main("--kubeconfig", kc, *args)
        srv.faults.add("GET", r"^/api/v1/pods$", times=None, wire=wire)
        res = main("--kubeconfig", kc, *args)
        url = srv.url
        assert [p for p in srv.compressed if p.startswith("/api/v1/pods")], "the pod list went compressed"
    assert plain.returncode == 3, plain.stderr
    if expect == "same plan":
        assert res.returncode == 3, res.stderr
        assert json.loads(res.stdout) == json.loads(plain.stdout)
    else:
        assert_error(res, "error: listing pods: " + expect % url)
        assert res.stdout == ""


def test_server_version_is_recorded_and_used(tmp_path, monkeypatch):
    """node-monitor-grace-period defaults to 40s before v1.32 and 50s from v1.32 (PR #126287)."""
    monkeypatch.setitem(apiserver_module.SERVER_VERSION, "gitVersion", "v1.31.4")
    with ApiServer(small_cluster()) as srv:
        snap = live.load_live(GlobalOptions(kubeconfig=str(srv.write_kubeconfig(tmp_path / "kc"))), kubelet=False)
    assert snap.info.server_version == "v1.31.4"
    assert monitor_grace(ControllerSettings(), cluster_version(snap)) == 40.0


# --- through the real kubectl -------------------------------------------------------------------

def test_the_console_script_ends_fast_but_cleans_up_and_writes_everything(tmp_path):
    """The installed command ends without freeing its plan object by object (collector.exit_now),
    but the exit handlers still run: the client's copy of the kubeconfig's CA (a temporary file
    the kubernetes client removes at exit) is gone, and the whole plan was written, with the
    plan's exit code (3: blocked, as from the file)."""
    plugin = Path(sys.executable).parent / "kubectl-evictplan"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    args = ("--now", NOW, "-o", "json", "drain", "worker-a1", "worker-b1")
    with ApiServer(DEMO_PATH, tls=True) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc"))
        res = subprocess.run([str(plugin), "--kubeconfig", kc, *args], capture_output=True, text=True, timeout=120,
                             env=dict(os.environ, TMPDIR=str(scratch)))
    from_file = main("--demo", *args)
    assert res.returncode == from_file.returncode == 3, res.stderr
    assert _without_cluster(json.loads(res.stdout)) == _without_cluster(json.loads(from_file.stdout))
    assert list(scratch.iterdir()) == [], "the client's temporary CA file outlived the process"


def test_through_real_kubectl_with_tls_and_token(tmp_path):
    assert KUBECTL, "the kubectl binary must be on PATH"
    plugin = Path(sys.executable).parent / "kubectl-evictplan"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(plugin, bin_dir / "kubectl-evictplan")
    with ApiServer(DEMO_PATH, tokens={"ro": "readonly"}, tls=True) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc", token="ro"))
        env = {"PATH": "%s:%s" % (bin_dir, os.path.dirname(KUBECTL)), "HOME": str(tmp_path)}

        def kubectl(*args, **extra):
            return subprocess.run([KUBECTL, *args], capture_output=True, text=True, env=dict(env, **extra),
                                  timeout=120)
        with ThreadPoolExecutor(4) as pool:
            f_flag = pool.submit(kubectl, "evictplan", "--kubeconfig", kc, "--now", NOW, "drain", "worker-a1",
                                 "--ignore-daemonsets", "--delete-emptydir-data", "--force")
            f_env = pool.submit(kubectl, "evictplan", "--now", NOW, "drain", "worker-a1", "--ignore-daemonsets",
                                "--delete-emptydir-data", "--force", KUBECONFIG=kc)
            f_get = pool.submit(kubectl, "--kubeconfig", kc, "get", "nodes")
            from_file = main("--demo", "--now", NOW, "drain", "worker-a1", "--ignore-daemonsets",
                             "--delete-emptydir-data", "--force")
            by_flag, by_env, got = f_flag.result(), f_env.result(), f_get.result()
    assert got.returncode == 0 and got.stdout.startswith("NAME") and "worker-a1 " in got.stdout
    assert by_flag.returncode == from_file.returncode and by_flag.returncode in (0, 3), by_flag.stderr
    assert by_flag.stdout == by_env.stdout
    # the table is the fixture's plan; only the cluster line differs
    version = apiserver_module.SERVER_VERSION["gitVersion"]
    strip = lambda out: [line.replace(version, "v1.33.2") for line in out.splitlines()  # noqa: E731
                         if not line.startswith(("cluster", "context"))]
    assert strip(by_flag.stdout) == strip(from_file.stdout)
    assert "cordon" in by_flag.stdout.lower()


# --- RBAC ----------------------------------------------------------------------------------------

def _rbac_role(with_proxy: bool):
    rules = yaml.safe_load((REPO / "deploy" / "rbac-readonly.yaml").read_text())["rules"]
    allowed = {(verb, res) for r in rules for res in r["resources"] for verb in r["verbs"]
               if with_proxy or res != "nodes/proxy"}
    return lambda verb, full: (verb, full) in allowed


@pytest.mark.parametrize("with_proxy, warned", [(True, False), (False, True)])
def test_readonly_clusterrole_is_enough(tmp_path, with_proxy, warned):
    """deploy/rbac-readonly.yaml grants what a live read needs; nodes/proxy only adds kubelet data."""
    with ApiServer(DEMO_PATH, tokens={"t": _rbac_role(with_proxy)}) as srv:
        kc = str(srv.write_kubeconfig(tmp_path / "kc", token="t"))
        data = live.read_live(GlobalOptions(kubeconfig=kc), "pruned", nodes=["worker-a1"])
    assert len(data.items["Pod"]) == 157 and len(data.items["Lease"]) == 12
    assert ("worker-a1" in data.kubelet_configs) is with_proxy
    assert bool(data.warnings) is warned


# The read's time (SnapshotInfo.takenAt, the plan's default `now`) is the API server's clock, from
# the Date header of its answers (Go's net/http sends one with every response; RFC 9110 6.6.1),
# falling back to the local clock. Heartbeats and Lease renewals are stamped by the cluster's
# clocks, and the node lifecycle controller compares them with its own (pkg/controller/nodelifecycle
# tryUpdateNodeHealth, nc.now(); spec/semantics.md node lifecycle timing: "the probe timestamp is
# the controller's own clock"): on a laptop 10 minutes ahead, nodes that just posted status are
# healthy, and the controller forecast has nothing to do. Cases: (server - local clock, Date sent,
# expected taint actions, a clock warning expected).
@pytest.mark.parametrize("offset,date,taints,warned", [
    (-600, True, 0, True),      # laptop 10m ahead: judged by the server's clock, heartbeats are fresh
    (600, True, 0, True),       # laptop 10m behind: heartbeats are not in the future either
    (0, True, 0, False),
    (-600, False, 3, False),    # no Date: the local clock, 10m past every heartbeat: all nodes down
])
def test_the_reads_time_is_the_api_servers_clock(tmp_path, offset, date, taints, warned):
    objs = small_cluster()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + offset))
    for o in objs:
        if o["kind"] == "Node":
            for c in o["status"]["conditions"]:
                c["lastHeartbeatTime"] = stamp
    with ApiServer(objs) as srv:
        srv.clock_offset, srv.send_date = offset, date
        kc = str(srv.write_kubeconfig(tmp_path / "kc"))
        res = main("--kubeconfig", kc, "-o", "json", "controller")
        snap = main("--kubeconfig", kc, "snapshot")
    plan = json.loads(res.stdout)
    assert len([a for a in plan["actions"] if a["type"] == "taint" and a["effect"] == "NoSchedule"]) == taints
    expected = time.time() + (offset if date else 0)
    info = next(o for o in json.loads(snap.stdout)["items"] if o["kind"] == "SnapshotInfo")
    from kubectl_evict.timeutil import parse_time
    assert abs(parse_time(info["takenAt"]) - expected) < 5
    said = [line for line in res.stderr.splitlines() if "the local clock is" in line]
    assert bool(said) == warned, res.stderr
    if warned:
        assert re.match(r"warning: the local clock is (9m59s|10m|10m1s) %s the API server's"
                        % ("ahead of" if offset < 0 else "behind"), said[0]), said


# `upgrade -l SELECTOR` reads the kubelets of the pool's nodes only (their configuration decides
# whether deleting the VM runs graceful node shutdown): the selector is matched against the node
# list as it arrives, whose labels the fast decoder leaves as raw JSON text.
@pytest.mark.parametrize("labels, picked", [
    (msgspec.Raw(b'{"pool":"a","disktype":"ssd"}'), True),
    ({"pool": "a"}, True),
    (msgspec.Raw(b'{"pool":"b"}'), False),
    (None, False),                                  # no labels: the selector needs pool=a
    (msgspec.Raw(b'{"pool":'), False),              # malformed: left to the freezer's error
])
def test_upgrade_reads_the_kubelets_of_the_nodes_its_selector_picks(labels, picked):
    items = [{"metadata": {"name": "n1", "labels": labels}}, {"metadata": {"name": "n2"}}, "not an object"]
    names = live.labelled_node_names(items, lambda got: got.get("pool") == "a")
    assert names == (["n1"] if picked else [])
