"""Read a live cluster through the official `kubernetes` client (the imperative shell's input).

Configuration and authentication are the client's own (`new_client_from_config`: kubeconfig
files, `KUBECONFIG` with several files, contexts, tokens, client certificates, exec plugins,
OIDC, proxies; `load_incluster_config` inside a pod). Everything else avoids the client's models:
each kind is listed in pages of 500 (`limit`/`continue`, kubectl's `--chunk-size`) with
`_preload_content=False`, every page is decoded straight from its bytes the way files are
(`fastjson.loads_page`: msgspec, pruned to the fields the freezer reads, raw subtrees as views
into the page; stdlib `json` without msgspec) and the objects go into the SAME `Freezer` that
snapshot files use. When planning, pods and workloads are projected page by page as they arrive
(`Freezer.add_page`, on the list's own thread, while the server is still sending the next pages),
so a page's bytes are freed at once and freezing overlaps the read. The client's model
deserialization costs 6-25 s per 5,000 pods against well under a second for this path
(shared/notes/python-performance.md).

Kinds are listed concurrently, one thread each; kubelet data (`nodes/NODE/proxy/configz` and
`/proxy/stats/summary`) is fetched concurrently for the nodes a command targets, each call with
a timeout, and a kubelet that cannot be read is a warning on stderr, never a failure. A `410
Gone` on an expired continue token restarts that list once (client-go's pager falls back to a
full list the same way); a continue token answered a second time (a proxy that ignores
`continue`) fails instead of paging forever; other API errors raise `ClusterAccessError` naming
the resource and the HTTP status. Kubelet failures of one kind fold into one warning naming the
nodes. Ctrl-C abandons the requests in flight (the CLI exits 130 at once). An exec credential
plugin that fails is reported once, with its own message. `/version` is read first: it is the connectivity check and is recorded in the
SnapshotInfo, because rules follow upstream defaults that changed between releases.
"""

from __future__ import annotations

import json
import math
import os
import queue
import re
import sys
import threading
import time
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from kubectl_evict import collector
from kubectl_evict.errors import ClusterAccessError, InputError, json_type
from kubectl_evict.model import Snapshot
from kubectl_evict.options import GlobalOptions
from kubectl_evict.source.freeze import EVICTPLAN_API, KUBELET_KINDS, NODE_LEASE_NAMESPACE, Freezer
from kubectl_evict.timeutil import format_time
from kubectl_evict.versions import is_version

# The nodes whose kubelets a read asks: their names, or a test of a node's labels (`-l`: the
# selector is matched as the list arrives, so only the selected nodes' kubelets are read).
KubeletTargets = Optional[Any]

try:  # the fast path; the pure-Python bundle falls back to the stdlib
    import msgspec
    from kubectl_evict.source import fastjson
except ImportError:  # pragma: no cover - exercised by the pure-Python bundle only
    msgspec = None  # type: ignore[assignment]
    fastjson = None  # type: ignore[assignment]

CHUNK_SIZE = 500                    # kubectl get/drain --chunk-size default
LIST_TIMEOUT = (10.0, 120.0)        # (connect, read) seconds per page
KUBELET_WORKERS = 16
PAGE_RETRIES = 3                    # 429 / 5xx with Retry-After, like client-go's request retries
MAX_RETRY_AFTER = 5.0
WARNING_LINES = 20                  # stderr warnings about kubelets, then "... and N more"
# While a plan's read projects pages on one thread, the list threads need the GIL for every chunk
# they take off their sockets (socket.SocketIO is Python code); with the default 5 ms switch
# interval each such chunk can wait 5 ms behind the projection, and the server idles meanwhile.
# Measured (tests/perf/README.md): with 30 ms of latency a request, 0.5 ms reads 30,000 pods 6 %
# faster; against a local server that answers at once, 5 ms is 7 % faster at 150,000 pods.
READ_SWITCH_INTERVAL = 0.0005


def kubelet_timeout() -> float:
    """Read timeout for each kubelet call through the API server proxy (default 10s).

    `EVICTPLAN_KUBELET_TIMEOUT` (seconds) overrides it, for slow links and for tests."""
    raw = os.environ.get("EVICTPLAN_KUBELET_TIMEOUT", "")
    try:
        value = float(raw) if raw else 10.0
    except ValueError:
        raise InputError("EVICTPLAN_KUBELET_TIMEOUT must be a number of seconds, not %r" % raw) from None
    return value if value > 0 else 10.0


# --- what is read -----------------------------------------------------------------------------

@dataclass(frozen=True)
class ListSpec:
    """One kind the snapshot reads, and the typed client method that lists it."""
    kind: str
    api_version: str
    resource: str        # for messages and RBAC: "pods", "poddisruptionbudgets.policy"
    api: str             # kubernetes.client class name
    method: str
    namespace: Optional[str] = None
    optional: bool = False   # an API group older servers lack: a 404 reads as "none of this kind"


# without these there is nothing to plan: a 403 listing them is an error, not a gap
REQUIRED_KINDS = frozenset({"Node", "Pod"})

LISTS: Tuple[ListSpec, ...] = (
    ListSpec("Node", "v1", "nodes", "CoreV1Api", "list_node"),
    ListSpec("Pod", "v1", "pods", "CoreV1Api", "list_pod_for_all_namespaces"),
    ListSpec("PodDisruptionBudget", "policy/v1", "poddisruptionbudgets.policy", "PolicyV1Api",
             "list_pod_disruption_budget_for_all_namespaces"),
    ListSpec("PriorityClass", "scheduling.k8s.io/v1", "priorityclasses.scheduling.k8s.io", "SchedulingV1Api",
             "list_priority_class"),
    ListSpec("DaemonSet", "apps/v1", "daemonsets.apps", "AppsV1Api", "list_daemon_set_for_all_namespaces"),
    ListSpec("ReplicaSet", "apps/v1", "replicasets.apps", "AppsV1Api", "list_replica_set_for_all_namespaces"),
    ListSpec("StatefulSet", "apps/v1", "statefulsets.apps", "AppsV1Api", "list_stateful_set_for_all_namespaces"),
    ListSpec("Deployment", "apps/v1", "deployments.apps", "AppsV1Api", "list_deployment_for_all_namespaces"),
    ListSpec("Job", "batch/v1", "jobs.batch", "BatchV1Api", "list_job_for_all_namespaces"),
    ListSpec("ReplicationController", "v1", "replicationcontrollers", "CoreV1Api",
             "list_replication_controller_for_all_namespaces"),
    ListSpec("VolumeAttachment", "storage.k8s.io/v1", "volumeattachments.storage.k8s.io", "StorageV1Api",
             "list_volume_attachment"),
    ListSpec("PersistentVolumeClaim", "v1", "persistentvolumeclaims", "CoreV1Api",
             "list_persistent_volume_claim_for_all_namespaces"),
    ListSpec("PersistentVolume", "v1", "persistentvolumes", "CoreV1Api", "list_persistent_volume"),
    ListSpec("StorageClass", "storage.k8s.io/v1", "storageclasses.storage.k8s.io", "StorageV1Api",
             "list_storage_class"),
    ListSpec("CSINode", "storage.k8s.io/v1", "csinodes.storage.k8s.io", "StorageV1Api", "list_csi_node"),
    ListSpec("CSIDriver", "storage.k8s.io/v1", "csidrivers.storage.k8s.io", "StorageV1Api", "list_csi_driver"),
    ListSpec("Namespace", "v1", "namespaces", "CoreV1Api", "list_namespace"),
    # DRA (resource.k8s.io/v1, GA in v1.34; absent from older servers)
    ListSpec("ResourceClaim", "resource.k8s.io/v1", "resourceclaims.resource.k8s.io", "ResourceV1Api",
             "list_resource_claim_for_all_namespaces", optional=True),
    ListSpec("ResourceClaimTemplate", "resource.k8s.io/v1", "resourceclaimtemplates.resource.k8s.io", "ResourceV1Api",
             "list_resource_claim_template_for_all_namespaces", optional=True),
    ListSpec("DeviceClass", "resource.k8s.io/v1", "deviceclasses.resource.k8s.io", "ResourceV1Api",
             "list_device_class", optional=True),
    ListSpec("ResourceSlice", "resource.k8s.io/v1", "resourceslices.resource.k8s.io", "ResourceV1Api",
             "list_resource_slice", optional=True),
    ListSpec("Lease", "coordination.k8s.io/v1", "leases.coordination.k8s.io", "CoordinationV1Api",
             "list_namespaced_lease", NODE_LEASE_NAMESPACE),
)

# the snapshot's kinds a 403 leaves out (with a warning) instead of failing the read; verify's
# Events have their own warning (`load_live_with_events`)
FORBIDDEN_IS_A_GAP = frozenset(spec.kind for spec in LISTS) - REQUIRED_KINDS


def event_list(namespace: str) -> ListSpec:
    """The events.k8s.io/v1 Events of one namespace (read by `verify` only: they are evidence of
    what happened, not input to any plan). Node events live in `default`."""
    return ListSpec("Event", "events.k8s.io/v1", "events.events.k8s.io", "EventsV1Api", "list_namespaced_event",
                    namespace)


# Item decoding modes: "pruned" (dicts of the fields the freezer reads: planning), "full" (every
# field: `snapshot --redact` / `-o yaml`), "raw" (each item's exact bytes: `snapshot` JSON).
MODES = ("pruned", "full", "raw")


# --- connecting -------------------------------------------------------------------------------

@dataclass
class Connection:
    """An authenticated client for one cluster, and how to name that cluster in messages."""
    api: Any             # kubernetes.client.ApiClient
    context: str
    server: str
    proxy: str = ""      # the proxy requests go through (proxy-url or the environment's), named in errors


def kubeconfig_paths(opts: GlobalOptions) -> List[str]:
    """The kubeconfig files kubectl would read: --kubeconfig, else $KUBECONFIG (several files
    separated by the OS path separator, missing ones skipped), else ~/.kube/config."""
    if opts.kubeconfig:
        return [os.path.expanduser(opts.kubeconfig)]
    env = os.environ.get("KUBECONFIG", "")
    if env:
        return [os.path.expanduser(p) for p in env.split(os.pathsep) if p]
    return [os.path.expanduser(os.path.join("~", ".kube", "config"))]


def connect(opts: GlobalOptions) -> Connection:
    """Build the client from kubeconfig (or the pod's service account), as kubectl chooses, then
    apply kubectl's global connection flags on top (`--user`/`--cluster` pick other kubeconfig
    entries; `--server`, `--token`, `--certificate-authority`, `--client-certificate`,
    `--client-key`, `--insecure-skip-tls-verify` override them; `--as*` impersonate;
    `--request-timeout` bounds each request; `-v 6+` logs each request)."""
    try:
        from kubernetes import client as kclient
        from kubernetes import config as kconfig
        from kubernetes.config.config_exception import ConfigException
    except ImportError:
        raise InputError("reading a live cluster needs the `kubernetes` Python package "
                         "(pip install kubernetes); or use -f FILE / --demo") from None
    _check_connection_flags(opts)
    cfg = kclient.Configuration()
    cfg.proxy = None   # the client's own pick from the environment is not kubectl's: `_env_proxy`
    cfg.connection_pool_maxsize = max(len(LISTS), KUBELET_WORKERS) + 4
    try:  # connect errors: 3 quick retries; a read error (reset before any answer): 1 retry
        from urllib3.util.retry import Retry
        cfg.retries = Retry(total=3, connect=3, read=1, status=None, redirect=0, backoff_factor=0.1,
                            respect_retry_after_header=False)   # 429/5xx: ClusterReader._call decides
    except ImportError:  # pragma: no cover
        pass
    paths = kubeconfig_paths(opts)
    existing = [p for p in paths if os.path.exists(p)]
    if len(existing) > 1:   # kubectl merges an empty file (or one of comments only) as an empty config
        existing = [p for p in existing if not _blank_kubeconfig(p)] or existing
    if opts.kubeconfig and not existing:
        raise InputError("no such file", source=opts.kubeconfig, field="--kubeconfig")
    if not existing:
        if opts.server:   # kubectl works from flags alone: --server URL [--token T] [...]
            cfg.host = opts.server
            return _with_flags(kclient, cfg, opts, "(--server)")
        if os.environ.get("KUBERNETES_SERVICE_HOST") and not opts.context:
            try:
                kconfig.load_incluster_config(client_configuration=cfg)
            except ConfigException as e:
                raise InputError("in-cluster configuration: %s" % _one_line(str(e))) from None
            return _with_flags(kclient, cfg, opts, "(in-cluster)")
        raise InputError(_no_cluster_message(opts, paths))
    joined = os.pathsep.join(existing)
    where = existing[0] if len(existing) == 1 else "KUBECONFIG=" + joined
    names, current = _contexts(kconfig, joined, where)
    context = opts.context or current
    if not context:
        raise InputError("the kubeconfig has no current-context; choose one with --context (available: %s)"
                         % (", ".join(names) or "none"), source=where)
    if context not in names:
        raise InputError("context %r not found (available: %s)" % (context, ", ".join(names) or "none"),
                         source=where, field="--context" if opts.context else "current-context")
    try:
        # load_kube_config's own steps, with --user/--cluster choosing other entries in between
        loader = kconfig.kube_config._get_kube_config_loader(filename=joined, active_context=context,
                                                             persist_config=True)
        _choose_entries(loader, opts, where)
        with _ClientErrors() as errors:
            loader.load_and_set(cfg)
        _cluster_proxy(loader, cfg, context, where)
        if errors.messages:   # the exec credential plugin failed; the client only logged it
            try:
                plugin = loader._user["exec"]["command"]
            except Exception:  # noqa: BLE001 - only for the message
                plugin = None
            raise InputError("context %s: getting credentials%s: %s" % (
                context, " from exec plugin %s" % plugin if isinstance(plugin, str) else "", errors.messages[0]),
                source=where)
    except InputError:
        raise
    except ConfigException as e:
        raise InputError("context %s: %s" % (context, _one_line(str(e))), source=where) from None
    except Exception as e:  # exec plugin failures and the like surface as assorted exceptions
        raise InputError("context %s: cannot load credentials: %s: %s" % (context, type(e).__name__,
                         _one_line(str(e))), source=where) from None
    return _with_flags(kclient, cfg, opts, context)


def _cluster_proxy(loader: Any, cfg: Any, context: str, where: str) -> None:
    """The cluster's `proxy-url`, which the client's loader ignores: kubectl sends every request
    to that cluster through it, in place of HTTPS_PROXY/NO_PROXY (client-go's
    `rest.Config.Proxy`). Without this a plan would go straight to the server, or another proxy,
    than kubectl. http:// and https:// proxies go through urllib3's ProxyManager; a socks5
    proxy is refused here, clearly, rather than bypassed."""
    try:
        url = loader._cluster["proxy-url"] if "proxy-url" in loader._cluster else None
    except Exception:  # noqa: BLE001 - a cluster entry the loader could read has no proxy then
        url = None
    if url is None or url == "":
        return
    from urllib.parse import urlsplit
    u = urlsplit(url) if isinstance(url, str) else None
    if u is None or u.scheme not in ("http", "https") or not u.netloc:
        raise InputError("context %s: proxy-url %r: only http:// and https:// proxies can be used here (kubectl "
                         "also takes socks5://)" % (context, url), source=where, field="cluster.proxy-url")
    cfg.proxy = url
    cfg.no_proxy = None


class _ClientErrors:
    """Collects what the kubernetes client logs as errors while it loads a kubeconfig instead of
    raising (an exec credential plugin that exits non-zero, is missing or prints no
    ExecCredential: `ERROR:root:exec: ...`), so that it is said once, as the error, rather
    than printed as a log line before an unrelated `401 Unauthorized`."""

    def __init__(self) -> None:
        import logging
        self.messages: List[str] = []
        self._handler = logging.Handler(logging.ERROR)
        self._handler.emit = self._emit  # type: ignore[method-assign]
        self._root = logging.getLogger()

    def _emit(self, record: Any) -> None:
        text = _one_line(record.getMessage())
        self.messages.append(text[len("exec: "):] if text.startswith("exec: ") else text)

    def __enter__(self) -> "_ClientErrors":
        self._root.addHandler(self._handler)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._root.removeHandler(self._handler)


def server_url(host: str) -> str:
    """The API server URL as client-go's DefaultServerURL makes it: a bare `host:port` gets
    https://; anything else without a scheme and a host is refused with kubectl's words (urllib3
    would only warn that the scheme is missing, then fail to resolve a host name)."""
    from urllib.parse import urlsplit
    u = urlsplit(host or "")
    if u.scheme in ("http", "https") and u.netloc:
        return host
    fixed = "https://" + (host or "")
    v = urlsplit(fixed)
    if not host or not v.netloc or v.path not in ("", "/"):
        raise InputError('host must be a URL or a host:port pair: "%s"' % host, field="server")
    return fixed


def _no_cluster_message(opts: GlobalOptions, paths: Sequence[str]) -> str:
    """Where to get a cluster from: apply (and --apply) need a live one, so -f/--demo are no hint there."""
    head = "no cluster to %s: no kubeconfig at %s, and not running in a pod" % (
        "apply to" if opts.command == "apply" or opts.apply else "read", ", ".join(paths))
    if opts.command == "apply" or opts.apply:
        return head + "; set --kubeconfig PATH or KUBECONFIG, or give --server URL (with --token or client certificates)"
    return head + ("; set --kubeconfig PATH or KUBECONFIG, or give --server URL; or plan from a snapshot with "
                   "-f FILE, or try --demo")


def _check_connection_flags(opts: GlobalOptions) -> None:
    """The flag combinations kubectl (client-go) refuses, refused the same way before any request."""
    if (opts.as_groups or opts.as_uid) and not opts.as_user:
        raise InputError("impersonating groups or a UID needs a user to impersonate: add --as USER (as kubectl requires)",
                         field="--as-group" if opts.as_groups else "--as-uid")
    if opts.insecure_skip_tls_verify and opts.certificate_authority:
        raise InputError("specifying a root certificates file with the insecure flag is not allowed",
                         field="--insecure-skip-tls-verify")
    for flag, path in (("--certificate-authority", opts.certificate_authority),
                       ("--client-certificate", opts.client_certificate), ("--client-key", opts.client_key)):
        if path and not os.path.isfile(os.path.expanduser(path)):
            raise InputError("no such file", source=path, field=flag)
    request_timeout(opts)


def request_timeout(opts: GlobalOptions) -> Optional[float]:
    """--request-timeout in seconds: a plain integer is seconds, else a Go duration; 0 (or unset): no
    limit beyond the tool's own per-request timeouts."""
    text = opts.request_timeout
    if text is None:
        return None
    from kubectl_evict.errors import ValueParseError
    from kubectl_evict.timeutil import parse_duration
    t = text.strip()
    try:
        value = float(int(t)) if t.isdigit() else parse_duration(t)
    except ValueParseError:
        raise InputError("invalid duration %r: use seconds (30) or a Go duration (30s, 1m)" % text,
                         field="--request-timeout") from None
    if value < 0:
        raise InputError("must not be negative, got %r" % text, field="--request-timeout")
    return value or None


def _choose_entries(loader: Any, opts: GlobalOptions, where: str) -> None:
    """--cluster / --user: the named kubeconfig entries instead of the context's (kubectl's overrides)."""
    for flag, section, attr, name in (("--cluster", "clusters", "_cluster", opts.cluster),
                                      ("--user", "users", "_user", opts.user)):
        if not name:
            continue
        entries = loader._config[section] if loader._config.safe_get(section) else None
        entry = entries.get_with_name(name, safe=True) if entries is not None else None
        if not entry:
            raw = [getattr(e, "value", e) for e in (loader._config.safe_get(section) or [])]
            available = [e["name"] for e in raw if isinstance(e, dict) and isinstance(e.get("name"), str)]
            raise InputError("%s %r not found in the kubeconfig (available: %s)"
                             % (section[:-1], name, ", ".join(available) or "none"), source=where, field=flag)
        setattr(loader, attr, entry[section[:-1]])


def _with_flags(kclient: Any, cfg: Any, opts: GlobalOptions, context: str) -> Connection:
    """Apply the connection override flags to the loaded Configuration and build the client."""
    _override(cfg, opts)
    _trim_bearer(cfg.api_key)
    hook = getattr(cfg, "refresh_api_key_hook", None)
    if hook is not None and not opts.token:
        # the kubeconfig loader's hook re-copies host and TLS files from the kubeconfig before each
        # request (token refresh), from several threads at once: run it on a scratch object and take
        # only what the flags do not override, so that no request ever sees the kubeconfig's value
        overridden = {"host": bool(opts.server), "ssl_ca_cert": bool(opts.certificate_authority or
                      opts.insecure_skip_tls_verify), "cert_file": bool(opts.client_certificate),
                      "key_file": bool(opts.client_key), "verify_ssl": opts.insecure_skip_tls_verify}

        def refresh(c: Any, _hook: Any = hook) -> None:
            scratch = _Scratch()
            _hook(scratch)
            _trim_bearer(scratch.api_key)
            c.api_key.update(scratch.api_key)
            for attr, flag in overridden.items():
                if not flag and attr in scratch.__dict__:
                    setattr(c, attr, scratch.__dict__[attr])
        cfg.refresh_api_key_hook = refresh
    try:
        cfg.host = server_url(cfg.host)
    except InputError as e:
        raise InputError(e.problem, source=None if opts.server else "context %s" % context,
                         field="--server" if opts.server else "cluster.server") from None
    if cfg.proxy is None:   # no proxy-url: the environment's, chosen as kubectl chooses it
        cfg.proxy = _env_proxy(cfg.host, os.environ)
    if opts.verbosity < 6:   # retries are ours to report (one line, at the end), not urllib3's
        import logging
        logging.getLogger("urllib3.connectionpool").setLevel(logging.ERROR)
    api = _api_client(kclient, cfg)
    headers = ([("Impersonate-User", opts.as_user)] if opts.as_user else []) + \
        [("Impersonate-Group", g) for g in opts.as_groups] + \
        ([("Impersonate-Uid", opts.as_uid)] if opts.as_uid else [])
    timeout = request_timeout(opts)
    if headers or timeout or opts.verbosity >= 6:
        api.rest_client.pool_manager = _Instrumented(api.rest_client.pool_manager, headers, timeout, opts.verbosity)
    if not cfg.verify_ssl:
        _quiet_insecure_warnings()
    # the proxy the requests really go through (proxy-url, or HTTPS_PROXY unless NO_PROXY skips it)
    proxy = getattr(api.rest_client.pool_manager, "proxy", None)
    return Connection(api, context, cfg.host, str(proxy) if proxy else "")


def _trim_bearer(api_key: Dict[str, Any]) -> None:
    """A bearer token read from a file loses the whitespace around it, as client-go's token file
    source trims it (`strings.TrimSpace`): a kubeconfig `tokenFile` written by `echo` ends in a
    newline, which the client would otherwise send inside the Authorization header (and
    http.client refuses such a header). A token that is only whitespace is no token."""
    for key, value in list(api_key.items()):
        if isinstance(value, str) and value[:7].lower() == "bearer " and value[7:] != value[7:].strip():
            token = value[7:].strip()
            if token:
                api_key[key] = value[:7] + token
            else:
                del api_key[key]


def _env_proxy(host: str, env: Any) -> Optional[str]:
    """The proxy kubectl takes from the environment for this server (Go's
    httpproxy.FromEnvironment, which client-go uses): HTTPS_PROXY (else https_proxy) for an https
    server, HTTP_PROXY (else http_proxy) for an http one, and none at all for localhost and
    loopback addresses; a proxy given without a scheme is http://. NO_PROXY is left to the client
    (`no_proxy`). The client itself would take HTTP_PROXY even for https servers, and proxy
    127.0.0.1, where kubectl goes direct."""
    import ipaddress
    from urllib.parse import urlsplit
    u = urlsplit(host)
    hostname = (u.hostname or "").lower()
    if hostname == "localhost":
        return None
    try:
        if ipaddress.ip_address(hostname).is_loopback:
            return None
    except ValueError:
        pass
    names = ("HTTPS_PROXY", "https_proxy") if u.scheme == "https" else ("HTTP_PROXY", "http_proxy")
    value = next((env[n] for n in names if env.get(n)), "")
    if not value:
        return None
    return value if "://" in value else "http://" + value


class _Scratch:
    """Receives what the kubeconfig loader's refresh hook sets."""

    def __init__(self) -> None:
        self.api_key: Dict[str, Any] = {}


def _override(cfg: Any, opts: GlobalOptions) -> None:
    if opts.server:
        cfg.host = opts.server.rstrip("/")
    if opts.token:   # kubectl: --token replaces the kubeconfig user's credentials
        cfg.api_key = {"BearerToken": "Bearer " + opts.token}
        cfg.api_key_prefix = {}
        cfg.refresh_api_key_hook = None
        cfg.username = cfg.password = None
    if opts.certificate_authority:
        cfg.ssl_ca_cert = os.path.expanduser(opts.certificate_authority)
    if opts.client_certificate:
        cfg.cert_file = os.path.expanduser(opts.client_certificate)
    if opts.client_key:
        cfg.key_file = os.path.expanduser(opts.client_key)
    if opts.insecure_skip_tls_verify:
        cfg.verify_ssl = False
        cfg.ssl_ca_cert = None


_SECRET_HEADERS = ("authorization", "proxy-authorization", "cookie")


class _Instrumented:
    """The client's urllib3 pool manager with kubectl's per-request behaviour added: impersonation
    headers (one header line per group, as client-go sends them), --request-timeout as a cap on
    every request's total time, and -v 6+ request logging on stderr with credentials masked."""

    def __init__(self, inner: Any, headers: List[Tuple[str, str]], timeout: Optional[float], verbosity: int,
                 stream: Any = None) -> None:
        self._inner = inner
        self._headers = headers
        self._timeout = timeout
        self._verbosity = verbosity
        self._stream = stream
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def request(self, method: str, url: str, *args: Any, **kw: Any) -> Any:
        import urllib3
        if self._headers:
            h = urllib3.HTTPHeaderDict(kw.get("headers") or {})
            for k, v in self._headers:
                h.add(k, v)
            kw["headers"] = h
        if self._timeout:
            kw["timeout"] = _capped(kw.get("timeout"), self._timeout)
        if self._verbosity < 6:
            return self._inner.request(method, url, *args, **kw)
        full = url
        fields = kw.get("fields")
        if fields and method in ("GET", "HEAD", "DELETE"):
            from urllib.parse import urlencode
            full = url + ("&" if "?" in url else "?") + urlencode(list(fields.items()) if isinstance(fields, dict)
                                                                 else list(fields))
        start = time.monotonic()
        try:
            r = self._inner.request(method, url, *args, **kw)
        except Exception as e:
            self._log(method, full, "failed (%s)" % type(e).__name__, start, kw.get("headers"))
            raise
        status = getattr(r, "status", 0)
        self._log(method, full, _status_text(status) if status else "?", start, kw.get("headers"))
        return r

    def _log(self, method: str, url: str, outcome: str, start: float, headers: Any) -> None:
        ms = int((time.monotonic() - start) * 1000)
        lines = ["I %s %s %s in %d milliseconds" % (method, url, outcome, ms)]
        if self._verbosity >= 7 and headers:
            lines.append("I Request Headers:")
            items = headers.items() if hasattr(headers, "items") else headers
            for k, v in items:
                shown = v
                if str(k).lower() in _SECRET_HEADERS:
                    scheme = str(v).split(" ", 1)[0] if " " in str(v) else ""
                    shown = (scheme + " " if scheme else "") + "<masked>"
                lines.append("I     %s: %s" % (k if k != k.lower() else "-".join(w.capitalize() for w in k.split("-")),
                                                 shown))
        stream = self._stream if self._stream is not None else sys.stderr
        with self._lock:
            stream.write("\n".join(lines) + "\n")
            stream.flush()


def _capped(existing: Any, limit: float) -> Any:
    """A urllib3 Timeout whose total is at most `limit` (keeping shorter connect/read limits)."""
    import urllib3
    if isinstance(existing, urllib3.Timeout):
        total = existing.total if isinstance(existing.total, (int, float)) and existing.total < limit else limit
        connect = existing._connect if isinstance(existing._connect, (int, float)) else None
        read = existing._read if isinstance(existing._read, (int, float)) else None
        return urllib3.Timeout(total=total, connect=connect, read=read)
    if isinstance(existing, (int, float)) and existing < limit:
        return urllib3.Timeout(total=existing)
    return urllib3.Timeout(total=limit)


def _contexts(kconfig: Any, joined: str, where: str) -> Tuple[List[str], str]:
    """(context names, current-context) of the merged kubeconfig files, as the client merges them
    (first file wins per name, and for current-context, as in kubectl)."""
    try:
        merger = kconfig.kube_config.KubeConfigMerger(joined)
        merged = merger.config
    except Exception as e:  # unreadable YAML, wrong types
        raise InputError("cannot read kubeconfig: %s" % _one_line(str(e)), source=where) from None
    if merged is None:
        raise InputError("no configuration found in the kubeconfig", source=where)
    value = merged.value if hasattr(merged, "value") else merged
    if not isinstance(value, dict):
        raise InputError("the kubeconfig is not a mapping", source=where)
    names = []
    for c in value.get("contexts") or []:
        c = c.value if hasattr(c, "value") else c
        if isinstance(c, dict) and isinstance(c.get("name"), str):
            names.append(c["name"])
    # kubectl (clientcmd's loading rules) takes the FIRST file's non-empty current-context; the
    # client's merger would take the last file's, and plan against another cluster than kubectl
    for path in getattr(merger, "paths", []):
        doc = merger.config_files.get(path)
        current = doc.get("current-context") if isinstance(doc, dict) else None
        if isinstance(current, str) and current:
            return names, current
    current = value.get("current-context")
    return names, current if isinstance(current, str) else ""


def _blank_kubeconfig(path: str) -> bool:
    """A kubeconfig file with no YAML in it (empty, blank lines, comments): kubectl merges it as an
    empty config, the client's merger refuses it. Unreadable files are not blank: the merger says why."""
    try:
        import yaml
        with open(path, "rb") as f:
            return yaml.safe_load(f) is None
    except Exception:  # noqa: BLE001 - reported by the merger, with the file named
        return False


def _api_client(kclient: Any, cfg: Any) -> Any:
    """The client, asking for gzip as kubectl does (client-go's transport): API servers compress
    answers over 128 KiB, so a pod list page crosses the network at about a ninth of its size.
    v1.33+ streams lists (KEP-5116) in chunks of about 2 KB, which Python's HTTP client takes one
    at a time; compressed, there are a ninth as many. urllib3 decompresses."""
    api = kclient.ApiClient(configuration=cfg)
    api.set_default_header("Accept-Encoding", "gzip")
    return api


def _quiet_insecure_warnings() -> None:
    """insecure-skip-tls-verify is the user's choice; urllib3 would print a warning per request."""
    try:
        import urllib3
        urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
    except Exception:  # pragma: no cover
        pass


# --- errors -----------------------------------------------------------------------------------

def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _status_text(code: int) -> str:
    try:
        return "%d %s" % (code, HTTPStatus(code).phrase)
    except ValueError:
        return str(code)


def _api_message(exc: Any) -> str:
    """The metav1.Status message of an ApiException (or its reason when the body is not one)."""
    body = getattr(exc, "body", None)
    if body:
        try:
            doc = json.loads(body)
            if isinstance(doc, dict) and doc.get("message"):
                return _one_line(doc["message"])
        except (ValueError, TypeError):
            text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
            if text.strip():
                return _one_line(text)[:300]
    return _one_line(getattr(exc, "reason", "") or "")


def describe_failure(exc: BaseException, conn: Connection) -> Tuple[Optional[int], str]:
    """(HTTP status or None, one line) for any failure of one request."""
    status = getattr(exc, "status", None)
    if status is not None and hasattr(exc, "reason"):
        if status == 0:  # the client's wrapper for TLS failures
            return None, "TLS failure talking to %s: %s" % (conn.server, _one_line(exc.reason)[:300])
        msg = _api_message(exc)
        return status, "%s%s" % (_status_text(status), ": " + msg if msg else "")
    return None, _transport_text(exc, conn)


def _transport_text(exc: BaseException, conn: Connection) -> str:
    return "cannot talk to the API server %s (context %s%s): %s" % (
        conn.server, conn.context, ", through proxy %s" % conn.proxy if conn.proxy else "", _transport_what(exc))


_SSL_REASON = re.compile(r"\[SSL(?:: [A-Z0-9_]+)?\] ([^()']+?)\s*\(_ssl\.c")


def _transport_what(exc: BaseException, detail: bool = True) -> str:
    """What went wrong with the connection, in a few words; `detail` adds the library's own text
    (which names the request's URL)."""
    text = _one_line("%s" % exc)
    low = text.lower()
    if "refused" in low:
        return "connection refused"
    if "reset" in low or "broken" in low or "incompleteread" in low or "protocol" in low \
            or "remotedisconnected" in low or "aborted" in low:
        return "connection lost mid-response" + (" (%s)" % text[:200] if detail else "")
    if "timed out" in low or "timeout" in low:
        return "timed out"
    if "name or service not known" in low or "nodename nor servname" in low or "resolution" in low:
        return "cannot resolve the host name"
    if "certificate" in low or "ssl" in low:
        # OpenSSL's reason ("certificate verify failed: self-signed certificate") sits at the end
        # of urllib3's text, past where a cut would keep it: name it alone, as kubectl names x509's
        reason = _SSL_REASON.search(text)
        if reason and reason.group(1).strip() == "PEM lib":
            # OpenSSL's word for a client certificate or key it cannot load (kubectl: "tls: failed
            # to find any PEM data in certificate input")
            return "TLS failure: cannot load the client certificate or key (OpenSSL: PEM lib)"
        if reason:
            return "TLS failure: %s" % reason.group(1).strip()
        return "TLS failure" + (" (%s)" % text[:200] if detail else "")
    return "%s%s" % (type(exc).__name__, ": %s" % text[:200] if detail else "")


def is_transport_error(exc: BaseException) -> bool:
    """A broken connection rather than an HTTP answer (shared with apply)."""
    try:
        import urllib3
        if isinstance(exc, urllib3.exceptions.HTTPError):
            return True
    except ImportError:  # pragma: no cover
        pass
    import http.client
    return isinstance(exc, (OSError, ConnectionError, http.client.HTTPException))


# --- reading ----------------------------------------------------------------------------------

def response_body(resp: Any) -> bytes:
    """The body of a urllib3 response, gunzipped in one call when the server compressed it.

    urllib3's own decoder appends each decompressed piece to a bytearray and copies that into
    bytes: two extra copies of every 2.2 MB pod page, each into freshly faulted-in memory.
    Decompressing the raw body at once makes the page once (150,000 pods: about 0.4 s less CPU
    of the client's 1.5 s for the pod pages). A body that is not gzip raises urllib3's own
    DecodeError, as its decoder would. Other encodings (none asked for) are left to urllib3."""
    encoding = resp.headers.get("Content-Encoding", "").strip().lower()
    if encoding != "gzip":
        return resp.data
    raw = resp.read(decode_content=False)
    try:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out = d.decompress(raw)
        if d.unused_data or not d.eof:   # more gzip members, or a truncated one: urllib3's way
            return _gunzip_members(raw)
        return out
    except zlib.error as e:
        import urllib3
        raise urllib3.exceptions.DecodeError("received response with Content-Encoding: gzip, but failed to "
                                             "decode it: %s" % e) from None


def _gunzip_members(raw: bytes) -> bytes:
    """Every gzip member of `raw` (RFC 1952 allows several), as urllib3's GzipDecoder reads them."""
    from urllib3.response import GzipDecoder
    dec = GzipDecoder()
    return dec.decompress(raw) + dec.flush()


if msgspec is not None:
    class _ListMeta(msgspec.Struct):
        resourceVersion: Any = None
        continue_: Any = msgspec.field(name="continue", default=None)
        remainingItemCount: Any = None

    class _RawPage(msgspec.Struct):
        metadata: Optional[_ListMeta] = None
        items: Optional[List[msgspec.Raw]] = None

    class _FullPage(msgspec.Struct):
        metadata: Optional[_ListMeta] = None
        items: Optional[List[Any]] = None

    _DECODERS = {"raw": msgspec.json.Decoder(_RawPage), "full": msgspec.json.Decoder(_FullPage)}


class _BadPage(Exception):
    """A page that is not a Kubernetes list."""


def decode_page(data: bytes, mode: str, spec: Optional[ListSpec] = None) -> Tuple[dict, list]:
    """(list metadata, items) of one list page. Items: dicts ("pruned", "full") or bytes ("raw");
    "pruned" items of `spec`'s kind carry its kind and apiVersion.

    A page msgspec's pruned schema rejects (a wrong type somewhere) is re-read with the stdlib so
    that the freezer can name the object and field. A page with no items is looked at whole: a
    200 answer holding a metav1.Status (a proxy's or an aggregated server's failure) or an object
    without `items` is no list, and read as an empty one it would claim the cluster has none of
    the kind (`no PodDisruptionBudget covers it`); client-go refuses to decode it into a list."""
    meta, items = _decode_page(data, mode, spec)
    if not items:
        _check_empty_page(data)
    return meta, items


def _check_empty_page(data: bytes) -> None:
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as e:
        raise _BadPage("not JSON: %s" % _one_line(str(e))[:200]) from None
    kind = doc.get("kind") if isinstance(doc, dict) else None
    if kind == "Status":
        message = doc.get("message")
        raise _BadPage("a Status, not a list%s" % (
            " (%s)" % _one_line(message)[:300] if isinstance(message, str) and message.strip() else ""))
    if not isinstance(doc, dict) or ("items" not in doc and not (isinstance(kind, str) and kind.endswith("List"))):
        raise _BadPage("not a Kubernetes list")


def _decode_page(data: bytes, mode: str, spec: Optional[ListSpec] = None) -> Tuple[dict, list]:
    if msgspec is not None and mode == "pruned":
        try:
            return fastjson.loads_page(data, spec.kind if spec else None, spec.api_version if spec else None)
        except fastjson.FallBack:
            pass
    elif msgspec is not None:
        try:
            page = _DECODERS[mode].decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            page = None
        if page is not None:
            m = page.metadata
            meta = {"resourceVersion": m.resourceVersion, "continue": m.continue_,
                    "remainingItemCount": m.remainingItemCount} if m is not None else {}
            items = page.items or []
            if mode == "raw":
                items = [bytes(i) for i in items]
            _check_items(items)
            return meta, items
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError) as e:
        raise _BadPage("not JSON: %s" % _one_line(str(e))[:200]) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("items", []), (list, type(None))):
        raise _BadPage("not a Kubernetes list")
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    items = doc.get("items") or []
    _check_items(items)
    if mode == "raw":
        dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
        items = [dumps(i).encode() for i in items]
    elif mode == "pruned" and spec is not None:
        for i in items:
            if isinstance(i, dict):
                i["kind"] = spec.kind
                i["apiVersion"] = spec.api_version
    return meta, items


def _check_items(items: list) -> None:
    """Every item of a page is an object (dict, or its JSON bytes): the freezer and `snapshot`
    read nothing else, and a page holding a number, a string or null among its items (a proxy or
    a broken server) is no Kubernetes list. Said as for every bad page, with the first such item,
    in the words files use (`list item is not an object`)."""
    for i, item in enumerate(items):   # raw items start at their `{`: no copy to strip them
        if item.__class__ is dict or (item.__class__ is bytes and (item[:1] == b"{" or item.lstrip()[:1] == b"{")):
            continue
        if item.__class__ is bytes:
            try:
                item = json.loads(item)
            except ValueError:
                pass
        raise _BadPage("a list whose items[%d] is not an object (found %s)" % (i, json_type(item)))


# A list page's head as API servers write it (Go's field order: TypeMeta, ListMeta, Items), and the
# list metadata in it: strings and a number, no nested object.
_PAGE_HEAD = re.compile(rb'\s*\{\s*"kind"\s*:\s*"[^"\\]*"\s*,\s*"apiVersion"\s*:\s*"[^"\\]*"\s*,'
                        rb'\s*"metadata"\s*:\s*(\{[^{}]*\})\s*,\s*"items"\s*:\s*\[')
_HEAD_BYTES = 8192


def page_head(data: bytes) -> Optional[dict]:
    """The list metadata of a page read off its head, its items left undecoded; None when the
    page does not start the way API servers write one, or the metadata is not what ListMeta
    holds (the page is then decoded whole, and any problem named as for every page)."""
    m = _PAGE_HEAD.match(data, 0, _HEAD_BYTES)
    if m is None:
        return None
    try:
        meta = json.loads(m.group(1))
    except ValueError:
        return None
    for key, value in meta.items():
        ok = value.__class__ is int if key == "remainingItemCount" else value.__class__ is str
        if not ok:
            return None
    return meta


class _Progress:
    """One self-rewriting line on stderr: kinds read, objects so far, kubelet documents. Only when
    stderr is a terminal, only once the read has taken `delay` seconds (a quick read shows
    nothing), and erased when done. A timer draws it even while one slow request is all there is."""

    def __init__(self, stream: Any = None, delay: float = 1.0) -> None:
        self.stream = stream if stream is not None else sys.stderr
        try:
            self.enabled = bool(self.stream.isatty())
        except (AttributeError, ValueError):
            self.enabled = False
        self.lock = threading.Lock()
        self.counts: Dict[str, int] = {}
        self.totals: Dict[str, int] = {}
        self.kinds_done = 0
        self.kubelet = [0, 0]
        self.last = 0.0
        self.shown = False
        self.finished = False
        self.show_from = time.monotonic() + delay
        self.timer: Optional[threading.Timer] = None
        if self.enabled:
            self.timer = threading.Timer(delay, self._first)
            self.timer.daemon = True
            self.timer.start()

    def _first(self) -> None:
        with self.lock:
            if not self.finished:
                self._draw(force=True)

    def page(self, kind: str, n: Optional[int], remaining: Any, last: bool = False) -> None:
        """A list page of `kind` arrived, with `n` items (None: `counted` says how many once the
        page is decoded) and `remaining` after it (ListMeta.remainingItemCount)."""
        if not self.enabled:
            return
        with self.lock:
            if n is not None:
                self._count(kind, n, remaining)
            if last:
                self.kinds_done += 1
            self._draw(force=last and bool(n))

    def counted(self, kind: str, n: int, remaining: Any, last: bool = False) -> None:
        """A page announced without its count (`page`) holds `n` items."""
        if not self.enabled:
            return
        with self.lock:
            self._count(kind, n, remaining)
            self._draw(force=last and n > 0)

    def _count(self, kind: str, n: int, remaining: Any) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + n
        if isinstance(remaining, int):
            self.totals[kind] = self.counts[kind] + remaining

    def kubelet_done(self, total: int) -> None:
        if not self.enabled:
            return
        with self.lock:
            self.kubelet = [self.kubelet[0] + 1, total]
            self._draw()

    def _draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if now < self.show_from or self.finished or (now - self.last < 0.2 and not force):
            return
        self.last = now
        parts = []
        for spec in LISTS:
            n = self.counts.get(spec.kind)
            if n:
                total = self.totals.get(spec.kind)
                parts.append("%s %d%s" % (spec.resource.split(".")[0], n, "/%d" % total if total and total > n else ""))
        if self.kubelet[1]:
            parts.append("kubelet documents %d/%d" % tuple(self.kubelet))
        self.stream.write("\r\033[Kreading cluster (%d/%d kinds): %s" % (
            self.kinds_done, len(LISTS), ", ".join(parts) or "waiting for the API server"))
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        with self.lock:
            self.finished = True
            if self.enabled and self.shown:
                self.stream.write("\r\033[K")
                self.stream.flush()


@dataclass
class ClusterData:
    """What one read of a cluster returned, before freezing or printing."""
    info: dict                                   # the SnapshotInfo document
    items: Dict[str, list] = field(default_factory=dict)          # kind -> items (dict or bytes)
    resource_versions: Dict[str, str] = field(default_factory=dict)
    kubelet_configs: Dict[str, Any] = field(default_factory=dict)  # node -> configz["kubeletconfig"]
    summaries: Dict[str, Any] = field(default_factory=dict)        # node -> stats/summary
    warnings: List[str] = field(default_factory=list)


class _Cancelled(Exception):
    pass


# seconds the local and the API server's clocks may differ before the output says which one is used
CLOCK_SKEW = 5.0


def clock_note(offset: float, server_at: float, judged: Optional[str] = None) -> str:
    """Why the times shown are not the local clock's: it is `offset` seconds off the API server's
    (`judged`: what judges what is due instead, for verify)."""
    from kubectl_evict.timeutil import format_seconds
    offset = float(round(offset))       # the Date header has whole seconds
    return "the local clock is %s %s the API server's (local %s, server %s at the read): %s" % (
        format_seconds(abs(offset)), "behind" if offset > 0 else "ahead of", format_time(server_at - offset),
        format_time(server_at), "the read's time (the plan's now) is the API server's" if judged is None
        else "what is due is judged by " + judged)


class ClusterReader:
    """Reads one cluster: /version, every kind in LISTS concurrently, then kubelet data."""

    def __init__(self, conn: Connection, *, progress: Optional[_Progress] = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        from kubernetes import client as kclient
        self.conn = conn
        self.kclient = kclient
        self.progress = progress or _Progress()
        self.sleep = sleep
        self.cancel = threading.Event()
        # kinds the server forbids listing (403 on the first page): kind -> (resource, message)
        self.forbidden: Dict[str, Tuple[str, str]] = {}
        # (the API server's clock, the local clock) at its first answer: see clock_offset()
        self.clock: Optional[Tuple[float, float]] = None
        self.say_clock = True       # warn in the read when the clocks differ (verify says it itself)

    # -- one request, with retries for 429/5xx that ask for it ------------------------------
    def _call(self, what: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> bytes:
        attempt = 0
        while True:
            resp = None
            try:
                resp = fn(*args, _preload_content=False, **kw)
                if self.clock is None:
                    self._note_clock(resp)
                return response_body(resp)
            except Exception as e:  # noqa: BLE001 - classified below
                status = getattr(e, "status", None)
                headers = getattr(e, "headers", None) or {}
                retry_after = _retry_after(headers)
                if status is not None and (status == 429 or status >= 500) and retry_after is not None \
                        and attempt < PAGE_RETRIES and not self.cancel.is_set():
                    attempt += 1
                    self.sleep(min(retry_after, MAX_RETRY_AFTER))
                    continue
                raise
            finally:
                if resp is not None:
                    try:
                        resp.release_conn()
                    except Exception:  # pragma: no cover
                        pass

    def _note_clock(self, resp: Any) -> None:
        """Keep the API server's clock as its first answer states it: the `Date` header every
        answer of kube-apiserver carries (Go's net/http adds it to each response, RFC 9110 6.6.1),
        whole seconds, next to the local clock at the same moment."""
        import email.utils
        headers = getattr(resp, "headers", None)
        value = headers.get("Date") if headers is not None and hasattr(headers, "get") else None
        if not isinstance(value, str) or not value.strip():
            return
        try:
            date = email.utils.parsedate_to_datetime(value.strip())
        except (TypeError, ValueError, IndexError):
            return      # an unreadable Date is no clock: the local one stands
        if date.tzinfo is None:
            return      # RFC 9110 dates are GMT; one without a zone says nothing sure
        self.clock = (date.timestamp(), time.time())

    def clock_offset(self) -> Optional[float]:
        """Seconds the API server's clock is ahead of the local one (negative: behind), from the
        first answer's `Date`; None when no answer carried a readable Date."""
        if self.clock is None:
            return None
        server, local = self.clock
        return server + 0.5 - local     # the Date has whole seconds: the middle of its second

    def _fail(self, what: str, exc: BaseException) -> ClusterAccessError:
        status, text = describe_failure(exc, self.conn)
        if status is None and text.startswith("cannot talk"):
            return ClusterAccessError("%s: %s" % (what, text), status=None)
        return ClusterAccessError("%s: %s" % (what, text), status=status)

    # -- /version ------------------------------------------------------------------------------
    def version(self) -> str:
        api = self.kclient.VersionApi(self.conn.api)
        try:
            data = self._call("reading /version", api.get_code, _request_timeout=LIST_TIMEOUT)
        except Exception as e:  # noqa: BLE001
            if hasattr(e, "status") or is_transport_error(e):
                raise self._fail("reading /version", e) from None
            raise
        try:
            doc = json.loads(data)
        except ValueError:
            raise ClusterAccessError("reading /version: %s did not answer with JSON (is it a Kubernetes "
                                     "API server?)" % self.conn.server) from None
        version = doc.get("gitVersion") if isinstance(doc, dict) else None
        # an odd gitVersion (a dev build's placeholder) is "unknown", not a snapshot that cannot be read
        return version if isinstance(version, str) and is_version(version) else ""

    # -- lists -----------------------------------------------------------------------------------
    def list_kind(self, spec: ListSpec, mode: str, sink: Optional["FreezeSink"] = None) -> Tuple[str, list]:
        """Every item of one kind, paging by CHUNK_SIZE; restarts once on 410 Gone. Pages the
        `sink` takes are handed to it as they arrive and not returned."""
        api = getattr(self.kclient, spec.api)(self.conn.api)
        fn = getattr(api, spec.method)
        args = (spec.namespace,) if spec.namespace else ()
        what = "listing %s" % spec.resource
        bad_page = "%s: the answer from %s is " % (what, self.conn.server)   # + why (_BadPage)
        restarted = False
        while True:
            items: list = []
            token: Optional[str] = None
            seen: set = set()   # continue tokens answered so far: one coming back would page forever
            rv = ""
            try:
                while True:
                    if self.cancel.is_set():
                        raise _Cancelled()
                    kw: Dict[str, Any] = {"limit": CHUNK_SIZE, "_request_timeout": LIST_TIMEOUT}
                    if token:
                        kw["_continue"] = token
                    data = self._call(what, fn, *args, **kw)
                    head = page_head(data) if sink is not None and mode == "pruned" and sink.takes_raw(spec) else None
                    n: Optional[int] = None
                    if head is not None:   # the sink decodes it, just before projecting it
                        meta = head
                        sink.take_raw(spec, data, bad_page,
                                      lambda count, r=head.get("remainingItemCount"), last=not head.get("continue"):
                                      self.progress.counted(spec.kind, count, r, last))
                    else:
                        try:
                            meta, page = decode_page(data, mode, spec)
                        except _BadPage as e:
                            raise ClusterAccessError(bad_page + str(e)) from None
                        n = len(page)
                        if sink is None or not sink.take(spec, page):
                            items.extend(page)
                        del page
                    del data
                    if not token:
                        rv = str(meta.get("resourceVersion") or "")
                    token = meta.get("continue") or None
                    if token is not None:
                        if token in seen:
                            raise ClusterAccessError(
                                "%s: %s answered a continue token it had already given (after %d pages): the "
                                "list would page forever; a proxy or API server that ignores `continue`? (kubectl "
                                "get --chunk-size=0 reads it without paging)" % (what, self.conn.server, len(seen) + 1))
                        seen.add(token)
                    self.progress.page(spec.kind, n, meta.get("remainingItemCount"), last=not token)
                    if not token:
                        return rv, items
            except (ClusterAccessError, _Cancelled):
                raise
            except Exception as e:  # noqa: BLE001
                status = getattr(e, "status", None)
                if status == 404 and spec.optional and not token:
                    self.progress.page(spec.kind, 0, None, last=True)
                    return "", []      # the server does not serve this API group (e.g. DRA before v1.34)
                if status == 403 and spec.kind in FORBIDDEN_IS_A_GAP and not token:
                    # a role that may not list this kind: plan without it, and say so (`read`)
                    self.forbidden[spec.kind] = (spec.resource, _api_message(e))
                    self.progress.page(spec.kind, 0, None, last=True)
                    return "", []
                if status == 410 and token and not restarted:
                    restarted = True   # the continue token expired (compaction): start over, once
                    if sink is not None:
                        sink.restart(spec)
                    continue
                if status == 410 and token:
                    raise ClusterAccessError(
                        "%s: %s (the continue token expired again after a restart: the list cannot be read "
                        "consistently; retry later)" % (what, describe_failure(e, self.conn)[1]), status=410) from None
                if hasattr(e, "status") or is_transport_error(e):
                    raise self._fail(what, e) from None
                raise

    # -- kubelets --------------------------------------------------------------------------------
    def kubelets(self, names: Sequence[str], data: ClusterData) -> None:
        """configz and stats/summary for each node, concurrently; failures become warnings."""
        if not names:
            return
        api = self.kclient.CoreV1Api(self.conn.api)
        timeout = (min(5.0, kubelet_timeout()), kubelet_timeout())
        forbidden: List[str] = []
        problems: Dict[str, Dict[str, str]] = {}
        lock = threading.Lock()
        stop = threading.Event()
        total = len(names) * 2

        def one(node: str, path: str) -> None:
            if stop.is_set() or self.cancel.is_set():
                with lock:
                    problems.setdefault(node, {})[path] = "not attempted"
                return
            try:
                raw = self._call("reading kubelet %s" % path, api.connect_get_node_proxy_with_path, node, path,
                                 _request_timeout=timeout)
                doc = json.loads(raw)
                if not isinstance(doc, dict):
                    raise ValueError("not a JSON object")
                with lock:
                    if path == "configz":
                        cfg = doc.get("kubeletconfig")
                        if not isinstance(cfg, dict):
                            raise ValueError("no kubeletconfig in the answer")
                        data.kubelet_configs[node] = cfg
                    else:
                        data.summaries[node] = doc
            except Exception as e:  # noqa: BLE001 - every failure here is a warning
                status = getattr(e, "status", None) if hasattr(e, "reason") else None
                if status == 403:
                    stop.set()
                    with lock:
                        forbidden.append(_api_message(e))
                        problems.setdefault(node, {})[path] = "403"
                else:
                    if status is not None:
                        why = describe_failure(e, self.conn)[1]
                    elif isinstance(e, ValueError):
                        why = "unexpected answer: %s" % _one_line(str(e))[:200]
                    elif "timeout" in str(e).lower() or "timed out" in str(e).lower():
                        why = "no answer within %gs" % timeout[1]
                    elif is_transport_error(e):
                        # urllib3's text names each request's URL: said without it, so that the
                        # nodes fold into one warning (`_kubelet_warnings`)
                        why = _transport_what(e, detail=False)
                    else:
                        why = _one_line(str(e))[:200]
                    with lock:
                        problems.setdefault(node, {})[path] = why
            finally:
                self.progress.kubelet_done(total)

        with ThreadPoolExecutor(max_workers=min(KUBELET_WORKERS, total)) as pool:
            list(pool.map(lambda t: one(*t), [(n, p) for n in names for p in ("configz", "stats/summary")]))

        if forbidden:
            # Not a kubelet that did not answer but a kind the source may not read: SnapshotInfo
            # must not claim it (plans then list it in `incomplete`, as with --no-kubelet). The
            # documents read before the 403 still appear, and a file holds what appears in it.
            data.info["kinds"] = [k for k in data.info["kinds"] if k not in KUBELET_KINDS]
            missing = [n for n in names if n in problems]
            data.warnings.append(
                "no permission to read kubelets through nodes/proxy (403 Forbidden: %s): kubelet configuration "
                "and stats summary missing for %s; plans use upstream kubelet defaults and see no usage stats "
                "(grant get on nodes/proxy to read them)" % (forbidden[0], _node_list(missing)))
            return
        data.warnings.extend(_kubelet_warnings(names, problems))

    # -- everything ------------------------------------------------------------------------------
    def read(self, mode: str = "pruned", nodes: KubeletTargets = None, kubelet: bool = True,
             taken_at: Optional[float] = None, sink: Optional["FreezeSink"] = None) -> ClusterData:
        """Read the cluster. `nodes`: the nodes whose kubelets to read (None: every node).
        `sink`: takes pages as they arrive (see FreezeSink); its FIRST kinds are read before the
        others start."""
        if mode not in MODES:
            raise ValueError(mode)
        version = self.version()
        offset = self.clock_offset()
        # the cluster's clock when its answers state it, not a skewed laptop's: heartbeats, Lease
        # renewals, timeAdded and Events are stamped by the cluster, and `now` defaults to this time
        taken = int(time.time() + (offset or 0.0)) if taken_at is None else taken_at   # the shell's clock: allowed here
        info = {"apiVersion": EVICTPLAN_API, "kind": "SnapshotInfo", "metadata": {"name": "snapshot"},
                "takenAt": format_time(taken), "context": self.conn.context, "server": self.conn.server,
                "serverVersion": version,
                # every kind listed is held in full, even when the cluster has none of it
                "kinds": [spec.kind for spec in LISTS] + (list(KUBELET_KINDS) if kubelet else [])}
        data = ClusterData(info=info)
        if taken_at is None and offset is not None and abs(offset) > CLOCK_SKEW and self.say_clock:
            data.warnings.append(clock_note(offset, taken))
        pool = ThreadPoolExecutor(max_workers=len(LISTS))
        try:
            futures: Dict[str, Future] = {}
            for spec in LISTS:   # what the sink needs before any other page (pods need PriorityClasses)
                if sink is not None and spec.kind in sink.FIRST:
                    futures[spec.kind] = first = Future()
                    try:
                        first.set_result(self.list_kind(spec, mode, sink))
                    except Exception as e:  # noqa: BLE001 - raised below, in LISTS order like the others
                        first.set_exception(e)
            for spec in LISTS:
                if spec.kind not in futures:
                    futures[spec.kind] = pool.submit(self.list_kind, spec, mode, sink)
            try:
                for spec in LISTS:   # the node list first: kubelet reads start while pods still page
                    rv, items = futures[spec.kind].result()
                    data.items[spec.kind] = items
                    data.resource_versions[spec.resource] = rv
                    if spec.kind == "Node" and kubelet:
                        targets = labelled_node_names(items, nodes) if callable(nodes) else \
                            list(nodes) if nodes is not None else node_names(items, mode)
                        known = set(node_names(items, mode))
                        kub = threading.Thread(target=self.kubelets, name="kubelets",
                                               args=([n for n in dict.fromkeys(targets) if n in known], data))
                        kub.start()
                        data._kubelet_thread = kub  # type: ignore[attr-defined]
            except KeyboardInterrupt:
                # Ctrl-C: stop now, as kubectl does; requests in flight are abandoned, not awaited
                # (the CLI ends the process at once, without joining the threads)
                self.cancel.set()
                pool.shutdown(wait=False, cancel_futures=True)
                raise
            except BaseException:
                self.cancel.set()   # a failed list: the others stop after their request in flight
                pool.shutdown(wait=True)
                raise
            kub = getattr(data, "_kubelet_thread", None)
            if kub is not None:
                kub.join()
            pool.shutdown(wait=True)
        finally:
            self.progress.done()
        for spec in LISTS:
            if spec.kind in self.forbidden:
                # SnapshotInfo must not claim a kind the source may not read: plans list it in
                # `incomplete` where their verdict depends on it, as for a file without it
                resource, msg = self.forbidden[spec.kind]
                info["kinds"] = [k for k in info["kinds"] if k != spec.kind]
                data.resource_versions.pop(spec.resource, None)
                data.warnings.append("no permission to list %s (403 Forbidden: %s): the snapshot holds no %s; plans "
                                     "list it as not in the input where it matters (grant list on %s)"
                                     % (resource, msg, spec.kind, resource))
        info["resourceVersions"] = dict(data.resource_versions)
        return data


_DIAL = re.compile(r"dial tcp \S+?:\d+:")


def _kubelet_warnings(names: Sequence[str], problems: Dict[str, Dict[str, str]]) -> List[str]:
    """One warning per kind of failure, naming its nodes (as the 403 warning does): eight
    unreachable kubelets are one line, not eight. The address in "dial tcp ADDR:PORT" differs per
    node and is left out of the folded line."""
    what = {"configz": "kubelet configuration (configz)", "stats/summary": "stats summary"}
    groups: Dict[Tuple[Tuple[str, ...], Tuple[str, ...]], List[str]] = {}
    first_whys: Dict[Tuple[Tuple[str, ...], Tuple[str, ...]], List[str]] = {}
    for node in names:
        p = problems.get(node)
        if not p:
            continue
        missing = tuple(w for w in ("configz", "stats/summary") if w in p)
        whys = list(dict.fromkeys(p[m] for m in missing))
        key = (missing, tuple(dict.fromkeys(_DIAL.sub("dial tcp (the node's kubelet):", w) for w in whys)))
        groups.setdefault(key, []).append(node)
        first_whys.setdefault(key, whys)
    lines = []
    for (missing, folded), nodes in groups.items():
        single = len(nodes) == 1
        lines.append("%s: %s not read (%s); %s" % (
            "node/" + nodes[0] if single else _node_list(nodes), " and ".join(what[m] for m in missing),
            "; ".join(first_whys[(missing, folded)] if single else folded),
            ("the plan uses upstream kubelet defaults for %s" if "configz" in missing
             else "the plan has no usage stats for %s") % ("it" if single else "them")))
    return lines


def _retry_after(headers: Any) -> Optional[float]:
    """Seconds a 429/5xx asks the client to wait, or None: not a number of seconds (client-go's
    `retryAfterSeconds` honours only numbers; an HTTP date, `nan` or `inf` means no retry, and
    the status is the error). A negative wait is no wait, as Go's time.Sleep takes it."""
    try:
        value = headers.get("Retry-After") if hasattr(headers, "get") else None
        seconds = float(value) if value is not None else None
    except (TypeError, ValueError):
        return None
    if seconds is None or not math.isfinite(seconds):
        return None
    return max(seconds, 0.0)


def _node_list(names: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join("node/" + n for n in names[:limit])
    if len(names) > limit:
        shown += " and %d more" % (len(names) - limit)
    return "%s (%d node%s)" % (shown, len(names), "" if len(names) == 1 else "s") if len(names) > 1 else shown


if msgspec is not None:
    class _NameMeta(msgspec.Struct):
        name: Any = None

    class _Named(msgspec.Struct):
        metadata: Optional[_NameMeta] = None

    _NAMED = msgspec.json.Decoder(_Named)


def node_names(items: list, mode: str) -> List[str]:
    """Names of listed nodes, whatever form the items are in."""
    out = []
    for item in items:
        if isinstance(item, (bytes, bytearray)):
            if msgspec is not None:
                md = _NAMED.decode(item).metadata
                name = md.name if md is not None else None
            else:
                name = (json.loads(item).get("metadata") or {}).get("name")
        else:
            name = (item.get("metadata") or {}).get("name")
        if isinstance(name, str) and name:
            out.append(name)
    return out


def labelled_node_names(items: list, matches: Callable[[Dict[str, str]], bool]) -> List[str]:
    """Names of listed nodes (items as "pruned" decodes them) whose labels `matches` accepts. A
    label map that is not a map of strings is left to the freezer, which names the field."""
    out = []
    for item in items:
        md = item.get("metadata") if isinstance(item, dict) else None
        if not isinstance(md, dict):
            continue
        name, labels = md.get("name"), md.get("labels")
        try:
            if labels is not None and not isinstance(labels, dict):
                labels = json.loads(bytes(labels))     # raw text (msgspec.Raw) from the fast decoder
            if isinstance(name, str) and name and matches(labels or {}):
                out.append(name)
        except (TypeError, ValueError, AttributeError):
            continue
    return out


# --- output: documents --------------------------------------------------------------------------

def kubelet_documents(data: ClusterData) -> Iterator[dict]:
    """The evictplan/v1alpha1 documents for what the kubelets answered, sorted by node."""
    for node in sorted(data.kubelet_configs):
        yield {"apiVersion": EVICTPLAN_API, "kind": "NodeKubeletConfig", "metadata": {"name": node},
               "kubeletconfig": data.kubelet_configs[node]}
    for node in sorted(data.summaries):
        yield {"apiVersion": EVICTPLAN_API, "kind": "NodeStatsSummary", "metadata": {"name": node},
               "summary": data.summaries[node]}


def source_label(context: str) -> str:
    """How objects read from a cluster are named in messages (the file name of a snapshot)."""
    return "cluster %s" % context


class _RawPage:
    """A list page the projecting thread decodes (`FreezeSink.take_raw`)."""
    __slots__ = ("spec", "data", "bad_page", "counted")

    def __init__(self, spec: ListSpec, data: bytes, bad_page: str, counted: Callable[[int], None]) -> None:
        self.spec, self.data, self.bad_page, self.counted = spec, data, bad_page, counted

    def decode(self) -> list:
        """The page's items, as `decode_page` makes them ("pruned")."""
        try:
            items = decode_page(self.data, "pruned", self.spec)[1]
        except _BadPage as e:
            raise ClusterAccessError(self.bad_page + str(e)) from None
        self.counted(len(items))
        return items


class FreezeSink:
    """Hands a live read's list pages to the Freezer as they arrive: PriorityClasses are added
    first (pods are priced with them); pods and workloads are projected page by page
    (`Freezer.add_page`) on one projecting thread, fed through a short queue, so that the list
    threads keep asking for the next page while the previous one is projected (the server and
    the projection overlap) and at most QUEUE_PAGES pages wait. Every other kind stays in
    ClusterData until the read is done. `close` waits for the queue to drain and raises what
    projecting a page raised (an InputError naming the object).

    Pages of the projected kinds arrive as bytes (`take_raw`, their list metadata read off their
    head): the projecting thread decodes each one right before projecting it. Decoded on the list
    threads instead, a page waited in the queue behind others and was projected with little of it
    left in the CPU's caches (150,000 pods: 12.5-13.3 s of thread CPU to project, against 9.6-10.1
    s to project and build from a file), and each pod page's decoding stood between its answer
    and the request for the next page: with 100 ms a request, 30,000 pods were read and planned
    in 7.8-8.1 s against 8.7-9.2 s."""

    FIRST = ("PriorityClass",)
    QUEUE_PAGES = 8

    def __init__(self, freezer: Freezer, label: str) -> None:
        self.freezer = freezer
        self.label = label
        self._queue: "queue.Queue[Any]" = queue.Queue(maxsize=self.QUEUE_PAGES)
        self._error: Optional[BaseException] = None
        self._abandoned = False
        self._thread: Optional[threading.Thread] = None
        self._start = threading.Lock()

    def take(self, spec: ListSpec, items: list) -> bool:
        """Take one page of `spec`'s kind (True), or leave it to the caller (False)."""
        if spec.kind in Freezer.PAGED_KINDS:
            self._put((spec.kind, items))
            return True
        if spec.kind in self.FIRST:
            self.freezer.add((self.label, "", i) for i in items)
            return True
        return False

    def takes_raw(self, spec: ListSpec) -> bool:
        """Does `take_raw` take pages of `spec`'s kind?"""
        return spec.kind in Freezer.PAGED_KINDS

    def take_raw(self, spec: ListSpec, data: bytes, bad_page: str, counted: Callable[[int], None]) -> None:
        """Take one undecoded page of `spec`'s kind (`takes_raw`). Projecting it calls `counted`
        with its number of items; a page that is no list fails the read with `bad_page` and why."""
        self._put((spec.kind, _RawPage(spec, data, bad_page, counted)))

    def restart(self, spec: ListSpec) -> None:
        """The list of `spec`'s kind starts over: forget its pages projected so far."""
        if spec.kind in Freezer.PAGED_KINDS:
            self._put((spec.kind, None))

    def _put(self, job: Tuple[str, Optional[list]]) -> None:
        with self._start:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="freeze-pages", daemon=True)
                self._thread.start()
        while True:
            if self._error is not None:
                raise self._error
            try:
                self._queue.put(job, timeout=0.2)
                return
            except queue.Full:
                continue

    def _run(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            if self._error is not None or self._abandoned:
                continue   # drain: the read is failing
            kind, items = job
            try:
                if items is None:
                    self.freezer.forget(kind)
                else:
                    if items.__class__ is _RawPage:
                        items = items.decode()
                    self.freezer.add_page(kind, self.label, items)
            except BaseException as e:  # noqa: BLE001 - handed to the reader's threads and to close()
                self._error = e
            del job, items

    def close(self, raise_error: bool = True) -> None:
        """Wait until every page taken is projected; then raise what projecting one raised.
        `raise_error=False` (the read failed or was interrupted): pages still queued are dropped."""
        self._abandoned = not raise_error
        if self._thread is not None:
            self._queue.put(None)
            self._thread.join()
            self._thread = None
        if raise_error and self._error is not None:
            raise self._error


def documents(data: ClusterData) -> Iterator[Tuple[str, str, dict]]:
    """Freezer input (source, where, object) for data read in "pruned" or "full" mode."""
    label = source_label(data.info["context"])
    yield (label, "", data.info)
    for spec in LISTS:
        for item in data.items.get(spec.kind, ()):
            item["kind"] = spec.kind
            item["apiVersion"] = spec.api_version
            yield (label, "", item)
    for doc in kubelet_documents(data):
        yield (label, "", doc)


def write_warnings(warnings: Sequence[str], stream: Any = None) -> None:
    """Read problems (kubelets) go to stderr, one `warning:` line each, at most WARNING_LINES."""
    stream = stream if stream is not None else sys.stderr
    for w in warnings[:WARNING_LINES]:
        stream.write("warning: %s\n" % w)
    if len(warnings) > WARNING_LINES:
        stream.write("warning: ... and %d more kubelet warnings\n" % (len(warnings) - WARNING_LINES))
    stream.flush()


# --- entry points -------------------------------------------------------------------------------

def read_live(opts: GlobalOptions, mode: str, nodes: Optional[Sequence[str]] = None,
              kubelet: bool = True) -> ClusterData:
    """Connect with the options' kubeconfig/context and read the cluster as data (what `snapshot`
    writes); plans and `verify` read into the Freezer instead (`load_live`)."""
    conn = connect(opts)
    return ClusterReader(conn).read(mode=mode, nodes=nodes, kubelet=kubelet)


def _read_into(reader: "ClusterReader", freezer: Freezer, context: str, nodes: KubeletTargets,
               kubelet: bool) -> ClusterData:
    """Read the cluster ("pruned") with pod and workload pages projected as they arrive (FreezeSink)."""
    sink = FreezeSink(freezer, source_label(context))
    try:
        data = reader.read(mode="pruned", nodes=nodes, kubelet=kubelet, sink=sink)
    except BaseException:
        sink.close(raise_error=False)
        raise
    sink.close()
    return data


def load_live(opts: GlobalOptions, nodes: KubeletTargets = None, *, kubelet: bool = True) -> Snapshot:
    """The live cluster as a Snapshot, through the same Freezer as snapshot files.

    `nodes`: the nodes the command targets, whose kubelet configz and stats/summary are read
    (None: every node); `kubelet=False` reads no kubelet at all. Kubelet read problems are
    printed as `warning:` lines on stderr: the plan itself is a function of what was read, so
    planning from `kubectl evictplan snapshot` output gives the identical plan."""
    conn = connect(opts)
    return _load(ClusterReader(conn), conn.context, nodes, kubelet)


def _load(reader: "ClusterReader", context: str, nodes: KubeletTargets, kubelet: bool) -> Snapshot:
    """The one live read path of plans and `verify`: list pages projected as they arrive, the
    rest frozen after the read. The garbage collector is paused throughout, as for files
    (files.load_snapshot): reading and freezing allocate millions of objects that all stay alive."""
    interval = sys.getswitchinterval()
    with collector.paused():
        freezer = Freezer()
        sys.setswitchinterval(min(interval, READ_SWITCH_INTERVAL))
        try:
            data = _read_into(reader, freezer, context, nodes, kubelet)
        finally:
            sys.setswitchinterval(interval)
        write_warnings(data.warnings)
        freezer.add(documents(data))
        data.items.clear()
        return freezer.build(consume=True)


def load_live_with_events(opts: GlobalOptions, namespaces: Sequence[str],
                          accept: Optional[Callable[[str, str], None]] = None
                          ) -> Tuple[Snapshot, List[dict], List[str], Optional[float]]:
    """What `verify` reads, over one connection: the cluster as `load_live` reads it (no kubelets),
    then the events.k8s.io/v1 Events of `namespaces` as full objects. `accept(server, context)` is
    called before anything is read and may refuse the cluster by raising. Events the API refuses
    to list (403, or 404 on a server without events.k8s.io/v1) are a warning, not a failure: the
    objects alone still say what happened, only without the events' evidence. The last value is
    how far the API server's clock is ahead of the local one (its answers' `Date`; None: no Date),
    so that what is due is judged by the cluster's clock, not by a skewed laptop's."""
    conn = connect(opts)
    if accept is not None:
        accept(conn.server, conn.context)
    reader = ClusterReader(conn)
    reader.say_clock = False
    snapshot = _load(reader, conn.context, None, False)
    events: List[dict] = []
    warnings: List[str] = []
    for namespace in sorted(set(namespaces)):
        spec = event_list(namespace)
        try:
            _, items = reader.list_kind(spec, "full")
        except ClusterAccessError as e:
            if e.status not in (403, 404):
                raise
            warnings.append("%s (namespace %s): verdicts carry no event evidence (grant list on %s)"
                            % (e, namespace, spec.resource))
            continue
        events.extend(i for i in items if isinstance(i, dict))
    return snapshot, events, warnings, reader.clock_offset()
