"""Carry out a plan against the live cluster: the imperative shell of `apply` (all its I/O).

Models the client side of `kubectl cordon`, `kubectl taint`, `kubectl drain` (policy/v1
Eviction, 429 retried until --timeout, 404 counted as success, a 403 NamespaceTerminating retried
until the pod is deleting; staging/src/k8s.io/kubectl/pkg/drain,
v1.32) and `kubectl delete --grace-period` (DELETE with DeleteOptions), with two deliberate
differences that make a reviewed plan safe to execute:

* every pod request carries `preconditions.uid` from the plan, so a replacement pod with the same
  name is never touched (the API answers 409 "Precondition failed": reported as skipped);
* node taint patches carry the node's `resourceVersion` (a 409 conflict re-reads and merges
  again), so a concurrent taint written by the node controller is never lost.

Actions run one at a time in plan order (or at their `at` offsets with --follow-timeline). One
action may send several requests: network errors and 5xx are retried a few times with backoff,
429 until the action's --timeout (honouring Retry-After). Ctrl-C lets the request in flight
finish, then stops before the next action; the report accounts for every action.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Set, Tuple
from urllib.parse import quote

from kubectl_evict.apply.document import describe
from kubectl_evict.apply.journal import Journal
from kubectl_evict.apply.preconditions import PodKey, check, reads_for, refusal_message
from kubectl_evict.apply.progress import Progress
from kubectl_evict.apply.report import (ALREADY, BLOCKED, CLUSTER_JOB, DONE, FAILED, NOT_RUN, SKIPPED, Report,
                                        Result, render_report)
from kubectl_evict.errors import ClusterAccessError, EvictPlanError
from kubectl_evict.plan import POD_ACTIONS, USER, Action, Plan, is_forecast, nothing_to_do
from kubectl_evict.timeutil import format_seconds, format_time

JSON = "application/json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"

REQUEST_TIMEOUT = 30.0       # seconds per request (less when the action's deadline is nearer)
MIN_REQUEST_TIMEOUT = 1.0
TRANSIENT_RETRIES = 3        # network errors and 5xx: retries per request
FIRST_BACKOFF = 0.5
MAX_BACKOFF = 5.0            # kubectl drain retries a refused eviction every 5s
MAX_CONFLICTS = 10           # node patch: re-read and merge again on 409
LIST_THRESHOLD = 10          # more pods than this: re-read them with one list per node
RETRYABLE_5XX = (500, 502, 503, 504)
NAMESPACE_RETRY = 5.0        # kubectl drain retries an eviction refused in a terminating namespace every 5s
NAMESPACE_TERMINATING = "NamespaceTerminating"   # metav1.StatusCause reason (v1.NamespaceTerminatingCause)


class Stop:
    """Set by Ctrl-C: the request in flight finishes, nothing new starts, waits end early."""

    def __init__(self, sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic):
        self._flag = threading.Event()
        self._sleep = sleep
        self._clock = clock

    def set(self) -> None:
        self._flag.set()

    def is_set(self) -> bool:
        return self._flag.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to SECONDS in short steps; True when interrupted."""
        end = self._clock() + max(0.0, seconds)
        while not self._flag.is_set():
            left = end - self._clock()
            if left <= 0:
                return False
            self._sleep(min(0.1, left))
        return True


class _Interrupted(Exception):
    def __init__(self, last: Optional["Response"]) -> None:
        super().__init__("interrupted")
        self.last = last


# --- transport --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Response:
    """One HTTP answer (status None: no answer at all: connection lost, refused, timed out)."""
    status: Optional[int]
    body: Any = None
    retry_after_header: Optional[float] = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    def message(self) -> str:
        """The metav1.Status message with its causes: what the API said, in one line."""
        if self.status is None:
            return self.error
        b = self.body if isinstance(self.body, dict) else {}
        msg = str(b.get("message") or "")
        causes = [str(c.get("message")) for c in ((b.get("details") or {}).get("causes") or [])
                  if isinstance(c, dict) and c.get("message")]
        if causes:
            msg = "%s (%s)" % (msg, "; ".join(causes)) if msg else "; ".join(causes)
        if not msg and isinstance(self.body, str):
            msg = " ".join(self.body.split())[:300]
        return msg

    def retry_after(self) -> Optional[float]:
        if self.retry_after_header is not None:
            return self.retry_after_header
        b = self.body if isinstance(self.body, dict) else {}
        v = (b.get("details") or {}).get("retryAfterSeconds") if isinstance(b.get("details"), dict) else None
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None

    def summary(self) -> str:
        if self.status is None:
            return self.error
        m = self.message()
        return "HTTP %d%s" % (self.status, ": " + m if m else "")


class KubeTransport:
    """Requests through the `kubernetes` client built by `source.live.connect` (its auth, TLS,
    proxies); bodies are read raw, never through the client's models."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def request(self, method: str, path: str, *, query: Sequence[Tuple[str, str]] = (), body: Any = None,
                content_type: str = JSON, timeout: Optional[float] = None) -> Response:
        from kubernetes.client.exceptions import ApiException
        from kubectl_evict.source.live import describe_failure, is_transport_error
        headers = {"Accept": JSON, "Content-Type": content_type}
        try:
            resp = self.conn.api.call_api(path, method, query_params=list(query), header_params=headers, body=body,
                                          auth_settings=["BearerToken"], _preload_content=False,
                                          _request_timeout=timeout)
            try:
                data, status, hdrs = resp.data, resp.status, resp.headers
            finally:
                try:
                    resp.release_conn()
                except Exception:  # pragma: no cover
                    pass
        except ApiException as e:
            if not e.status:
                return Response(None, error=describe_failure(e, self.conn)[1])
            data, status, hdrs = e.body, e.status, e.headers or {}
        except Exception as e:  # noqa: BLE001 - urllib3 and socket errors: no answer
            if not is_transport_error(e):
                raise
            return Response(None, error=describe_failure(e, self.conn)[1])
        return Response(status, _decode(data), _header_seconds(hdrs))


def _decode(data: Any) -> Any:
    if data is None:
        return None
    if isinstance(data, (bytes, bytearray)):
        data = data.decode("utf-8", "replace")
    try:
        return json.loads(data)
    except (TypeError, ValueError):
        return data


def _header_seconds(headers: Any) -> Optional[float]:
    try:
        v = headers.get("Retry-After") if hasattr(headers, "get") else None
        return float(v) if v is not None and float(v) > 0 else None
    except (TypeError, ValueError):
        return None


# --- settings ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class ApplySettings:
    dry_run: bool = False             # --dry-run=server: every write with dryRun=All
    timeout: float = 300.0            # per action; 0: no limit
    force_stale: bool = False
    follow_timeline: bool = False
    assume_yes: bool = False
    total_timeout: float = 0.0        # drain --timeout with --apply: bounds the whole run; 0: no bound


@dataclass
class _Ctx:
    """One action's attempt: its deadline, requests sent, and whether a write's answer was lost."""
    n: int
    what: str
    deadline: Optional[float]
    clock: Callable[[], float]
    attempts: int = 0
    lost_write: bool = False

    def remaining(self) -> Optional[float]:
        return None if self.deadline is None else self.deadline - self.clock()


# --- executor ---------------------------------------------------------------------------------

class Executor:
    def __init__(self, transport: Any, settings: ApplySettings, *, progress: Progress, stop: Stop,
                 clock: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time) -> None:
        self.t = transport
        self.s = settings
        self.progress = progress
        self.stop = stop
        self.clock = clock
        self.wall = wall

    # -- one logical request, retried ------------------------------------------------------------
    def call(self, ctx: _Ctx, method: str, path: str, *, query: Sequence[Tuple[str, str]] = (), body: Any = None,
             content_type: str = JSON, retry_429: bool = True) -> Response:
        transient = 0
        backoff = FIRST_BACKOFF
        write = method != "GET"
        q = list(query)
        if write and self.s.dry_run:
            q.append(("dryRun", "All"))
        while True:
            remaining = ctx.remaining()
            timeout = REQUEST_TIMEOUT if remaining is None else max(MIN_REQUEST_TIMEOUT, min(REQUEST_TIMEOUT, remaining))
            resp = self.t.request(method, path, query=q, body=body, content_type=content_type, timeout=timeout)
            ctx.attempts += 1
            if resp.status is None and write:
                ctx.lost_write = True
            wait: Optional[float] = None
            if resp.status == 429 and retry_429:
                wait = resp.retry_after() or backoff
                backoff = min(backoff * 2, MAX_BACKOFF)
            elif resp.status is None or resp.status in RETRYABLE_5XX:
                transient += 1
                if transient <= TRANSIENT_RETRIES:
                    wait = resp.retry_after() or min(FIRST_BACKOFF * 2 ** (transient - 1), MAX_BACKOFF)
            if wait is None:
                return resp
            wait = min(wait, MAX_BACKOFF * 6)
            remaining = ctx.remaining()
            if remaining is not None:
                if remaining <= 0.05:
                    return resp
                wait = min(wait, remaining)  # one last try at the deadline
            self.progress.event(ctx.n, ctx.what, "%s (retrying in %s)" % (resp.summary(), format_seconds(wait)))
            if self.stop.wait(wait):
                raise _Interrupted(resp)

    # -- the run -----------------------------------------------------------------------------------
    def run(self, plan: Plan, *, skips: Mapping[int, str], already: Set[int],
            journal: Optional[Journal] = None) -> Tuple[List[Result], bool]:
        """Execute every action in order; returns the results and whether Ctrl-C cut the run short."""
        start = self.clock()
        results: List[Result] = []
        held: Dict[str, str] = {}    # node -> its own edit that did not happen (see _held)
        for i, a in enumerate(plan.actions):
            n, what = i + 1, describe(a)
            if i in already:
                r = Result(i, a, ALREADY, "done by an earlier run of this plan (journal)")
            elif a.by != USER:
                r = Result(i, a, CLUSTER_JOB, "a forecast: the %s does this by itself; apply does not" % a.by)
            elif i in skips:
                r = Result(i, a, SKIPPED, skips[i])
            elif self.s.total_timeout > 0 and self.clock() - start >= self.s.total_timeout:
                r = Result(i, a, NOT_RUN, "drain --timeout %s reached: kubectl drain gives up here too (cordoned "
                                          "nodes stay cordoned)" % format_seconds(self.s.total_timeout))
            elif self.stop.is_set():
                r = Result(i, a, NOT_RUN, "interrupted before this action")
            elif a.type in POD_ACTIONS and (a.node in held or ALL in held):
                r = Result(i, a, NOT_RUN, held.get(a.node) or held[ALL])
            else:
                r = None
                if self.s.follow_timeline and float(a.at) > 0:
                    left = start + float(a.at) - self.clock()
                    if left > 0:
                        self.progress.event(n, what, "waiting %s for its time (+%s)" % (format_seconds(left),
                                                                                      format_seconds(float(a.at))))
                        if self.stop.wait(left):
                            r = Result(i, a, NOT_RUN, "interrupted before this action")
                if r is None:
                    self.progress.start(n, what)
                    deadline = None if self.s.timeout <= 0 else self.clock() + self.s.timeout
                    if self.s.total_timeout > 0:   # never retry past the whole run's bound
                        deadline = min(deadline or float("inf"), start + self.s.total_timeout)
                    ctx = _Ctx(n, what, deadline, self.clock)
                    try:
                        r = self._action(i, a, ctx)
                    except _Interrupted as e:
                        last = " (last answer: %s)" % e.last.summary() if e.last is not None else ""
                        r = Result(i, a, NOT_RUN, "interrupted while waiting to retry%s" % last, attempts=ctx.attempts)
            results.append(r)
            why = _held(r)
            if why and a.node not in held:
                held[a.node] = why
                if a.type == "cordon" and plan.command == "drain":
                    # kubectl drain cordons every node first and evicts nothing if any cordon failed
                    held.setdefault(ALL, why)
            self.progress.finish(n, what, r.outcome, r.reason if r.outcome not in (DONE, ALREADY) else "")
            if journal is not None and not self.s.dry_run and r.outcome in (DONE, ALREADY) and i not in already:
                warning = journal.record(i, r.outcome, format_time(int(self.wall())))
                if warning:
                    self.progress.note("warning: " + warning)
        interrupted = self.stop.is_set() and any(r.outcome == NOT_RUN for r in results)
        return results, interrupted

    def _action(self, i: int, a: Action, ctx: _Ctx) -> Result:
        if a.type == "cordon":
            return self._cordon(i, a, ctx)
        if a.type in ("taint", "untaint"):
            return self._taint(i, a, ctx)
        if a.type in ("label", "unlabel"):
            return self._label(i, a, ctx)
        if a.type == "evict":
            return self._evict(i, a, ctx)
        return self._delete(i, a, ctx)

    def _done(self, i: int, a: Action, ctx: _Ctx, what: str) -> Result:
        reason = "the server accepted it in dry-run mode: nothing was changed" if self.s.dry_run else what
        return Result(i, a, DONE, reason, attempts=ctx.attempts)

    @staticmethod
    def _failed(i: int, a: Action, ctx: _Ctx, resp: Response, why: str = "") -> Result:
        if resp.status is None:
            return Result(i, a, FAILED, why or "no answer from the API server (re-run apply to check and finish)",
                          message=resp.error, attempts=ctx.attempts)
        return Result(i, a, FAILED, why, status=resp.status, message=resp.message(), attempts=ctx.attempts)

    # -- nodes -------------------------------------------------------------------------------------
    def _node_path(self, name: str) -> str:
        return "/api/v1/nodes/" + quote(name, safe="")

    def _cordon(self, i: int, a: Action, ctx: _Ctx) -> Result:
        resp = self.call(ctx, "GET", self._node_path(a.node))
        if resp.status == 404:
            return self._failed(i, a, ctx, resp, "the node no longer exists")
        if not resp.ok or not isinstance(resp.body, dict):
            return self._failed(i, a, ctx, resp, "cannot read the node")
        if (resp.body.get("spec") or {}).get("unschedulable") is True:
            if ctx.lost_write:
                return self._done(i, a, ctx, "cordoned")
            return Result(i, a, ALREADY, "the node is already cordoned", attempts=ctx.attempts)
        resp = self.call(ctx, "PATCH", self._node_path(a.node), body={"spec": {"unschedulable": True}},
                         content_type=STRATEGIC_PATCH)
        if resp.ok:
            return self._done(i, a, ctx, "cordoned")
        return self._failed(i, a, ctx, resp, "the node no longer exists" if resp.status == 404 else "")

    def _edit_node(self, i: int, a: Action, ctx: _Ctx,
                   edit: Callable[[dict], Tuple[Optional[Result], Optional[dict], str]]) -> Result:
        """Read the node, let `edit` decide (a final Result, or the merge patch and the word for
        success), and write it guarded by the resourceVersion it read; re-read on 409 Conflict."""
        last: Optional[Response] = None
        for _ in range(MAX_CONFLICTS):
            resp = self.call(ctx, "GET", self._node_path(a.node))
            if resp.status == 404:
                return self._failed(i, a, ctx, resp, "the node no longer exists")
            if not resp.ok or not isinstance(resp.body, dict):
                return self._failed(i, a, ctx, resp, "cannot read the node")
            result, patch, done = edit(resp.body)
            if result is not None:
                return result
            if patch is None:       # already as planned
                return self._done(i, a, ctx, done)
            patch.setdefault("metadata", {})["resourceVersion"] = (resp.body.get("metadata") or {}).get("resourceVersion")
            resp = self.call(ctx, "PATCH", self._node_path(a.node), body=patch, content_type=MERGE_PATCH)
            if resp.ok:
                return self._done(i, a, ctx, done)
            if resp.status != 409:
                return self._failed(i, a, ctx, resp, "the node no longer exists" if resp.status == 404 else "")
            last = resp
            remaining = ctx.remaining()
            if remaining is not None and remaining <= 0:
                break
            self.progress.event(ctx.n, ctx.what, "the node changed meanwhile (409 Conflict): re-reading it")
        assert last is not None
        return self._failed(i, a, ctx, last, "the node kept changing (409 Conflict on every attempt)")

    def _replaced(self, i: int, a: Action, ctx: _Ctx, uid: Any) -> Result:
        """A node edit planned for a node that has since been replaced (same name, another uid)."""
        return Result(i, a, FAILED, "the node was replaced since the plan was made (planned uid %s, now %s)"
                      % (a.uid, uid or "<none>"), attempts=ctx.attempts)

    def _already(self, i: int, a: Action, ctx: _Ctx, done: str, why: str) -> Tuple[Optional[Result], None, str]:
        """The node is already as planned: done if our own write got lost in transit, else ALREADY."""
        if ctx.lost_write:
            return None, None, done
        return Result(i, a, ALREADY, why, attempts=ctx.attempts), None, done

    def _taint(self, i: int, a: Action, ctx: _Ctx) -> Result:
        """Add or remove one node taint, only on the planned node (uid) and, when the plan recorded
        it (`previous_seen`), only while the node's taint of that key and effect still has the value
        the plan saw: `kubectl taint` refuses to replace one without --overwrite, and the plan's
        verdict was made for the value it saw."""
        adding = a.type == "taint"
        done = "tainted" if adding else "taint removed"

        def edit(node: dict) -> Tuple[Optional[Result], Optional[dict], str]:
            uid = (node.get("metadata") or {}).get("uid")
            if a.uid and uid != a.uid:
                return self._replaced(i, a, ctx, uid), None, done
            taints = [t for t in ((node.get("spec") or {}).get("taints") or []) if isinstance(t, dict)]
            same = [t for t in taints if t.get("key") == a.key and t.get("effect") == a.effect]
            current = (same[0].get("value") or "") if same else None
            if adding and current == a.value:
                return self._already(i, a, ctx, done, "the node already has this taint")
            if not adding and not same:
                return self._already(i, a, ctx, done, "the node does not have this taint")
            if a.previous_seen and current != a.previous:
                return Result(i, a, FAILED, "taint %s:%s changed since the plan was made (planned %s, now %s): make "
                              "a new plan" % (a.key, a.effect, _taint_text(a.previous), _taint_text(current)),
                              attempts=ctx.attempts), None, done
            kept = [t for t in taints if not (t.get("key") == a.key and t.get("effect") == a.effect)]
            if adding:
                new: Dict[str, Any] = {"key": a.key}
                if a.value:
                    new["value"] = a.value
                new["effect"] = a.effect
                if a.effect == "NoExecute":  # written only for NoExecute taints, as the controllers do
                    new["timeAdded"] = format_time(int(self.wall()))
                kept.append(new)
            return None, {"spec": {"taints": kept}}, done
        return self._edit_node(i, a, ctx, edit)

    def _label(self, i: int, a: Action, ctx: _Ctx) -> Result:
        """Set or remove one node label, only if the node is the planned one (uid) and the label still
        has the value the plan saw (`previous`); resourceVersion makes the check and the write atomic."""
        adding = a.type == "label"
        done = "labeled" if adding else "label removed"

        def edit(node: dict) -> Tuple[Optional[Result], Optional[dict], str]:
            md = node.get("metadata") or {}
            current = (md.get("labels") or {}).get(a.key)
            if a.uid and md.get("uid") != a.uid:
                return self._replaced(i, a, ctx, md.get("uid")), None, done
            if (adding and current == a.value) or (not adding and current is None):
                return self._already(i, a, ctx, done, "the node already has this label" if adding else
                                     "the node does not have this label")
            if current != a.previous:
                return Result(i, a, FAILED, "label %s changed since the plan was made (planned %s, now %s): make a "
                              "new plan" % (a.key, _label_text(a.previous), _label_text(current)),
                              attempts=ctx.attempts), None, done
            meta: Dict[str, Any] = {"labels": {a.key: a.value if adding else None}}
            if a.uid:
                meta["uid"] = a.uid
            return None, {"metadata": meta}, done
        return self._edit_node(i, a, ctx, edit)

    # -- pods --------------------------------------------------------------------------------------
    def _evict(self, i: int, a: Action, ctx: _Ctx) -> Result:
        opts: Dict[str, Any] = {"preconditions": {"uid": a.uid}}
        if a.grace_period_seconds is not None:
            opts["gracePeriodSeconds"] = int(a.grace_period_seconds)
        if self.s.dry_run:
            opts["dryRun"] = ["All"]
        body = {"apiVersion": "policy/v1", "kind": "Eviction",
                "metadata": {"name": a.pod, "namespace": a.namespace}, "deleteOptions": opts}
        path = "/api/v1/namespaces/%s/pods/%s/eviction" % (quote(a.namespace, safe=""), quote(a.pod, safe=""))
        # Under a dry run nothing changes while we wait: a refusal now is the answer.
        resp = self.call(ctx, "POST", path, body=body, retry_429=not self.s.dry_run)
        while _namespace_terminating(resp):
            # kubectl drain retries a 403 NamespaceTerminating every 5s, unless the pod is already
            # deleting (the namespace's deletion removes it; shared/spec/semantics.md F.6,
            # staging/src/k8s.io/kubectl/pkg/drain/drain.go evictPods)
            got = self.call(ctx, "GET", path[:-len("/eviction")])
            if got.status == 404:
                return self._pod_outcome(i, a, ctx, got, "evicted")
            md = (got.body.get("metadata") or {}) if got.ok and isinstance(got.body, dict) else {}
            if md.get("uid") not in (None, a.uid):
                return Result(i, a, SKIPPED, "the pod was replaced (its uid is no longer %s): the replacement is not "
                                             "touched" % a.uid, attempts=ctx.attempts)
            if md.get("deletionTimestamp"):
                return self._done(i, a, ctx, "its namespace is being deleted and the pod with it (deletionTimestamp "
                                             "%s): kubectl drain counts it evicted" % md["deletionTimestamp"])
            remaining = ctx.remaining()
            if self.s.dry_run or (remaining is not None and remaining <= 0.05):
                break
            wait = NAMESPACE_RETRY if remaining is None else min(NAMESPACE_RETRY, remaining)
            self.progress.event(ctx.n, ctx.what, "%s (retrying in %s until the pod is deleting)"
                                % (resp.summary(), format_seconds(wait)))
            if self.stop.wait(wait):
                raise _Interrupted(resp)
            resp = self.call(ctx, "POST", path, body=body, retry_429=not self.s.dry_run)
        return self._pod_outcome(i, a, ctx, resp, "evicted")

    def _delete(self, i: int, a: Action, ctx: _Ctx) -> Result:
        opts: Dict[str, Any] = {"apiVersion": "v1", "kind": "DeleteOptions", "preconditions": {"uid": a.uid}}
        grace = 0 if a.force else a.grace_period_seconds
        if grace is not None:
            opts["gracePeriodSeconds"] = int(grace)
        if self.s.dry_run:
            opts["dryRun"] = ["All"]
        path = "/api/v1/namespaces/%s/pods/%s" % (quote(a.namespace, safe=""), quote(a.pod, safe=""))
        resp = self.call(ctx, "DELETE", path, body=opts)
        return self._pod_outcome(i, a, ctx, resp, "force-deleted" if a.force else "deleted")

    def _pod_outcome(self, i: int, a: Action, ctx: _Ctx, resp: Response, verb: str) -> Result:
        if resp.ok:
            return self._done(i, a, ctx, verb)
        if resp.status == 404:
            if ctx.lost_write:
                return self._done(i, a, ctx, "%s (an earlier attempt's answer was lost; the pod is gone)" % verb)
            return Result(i, a, ALREADY, "the pod no longer exists", attempts=ctx.attempts)
        if resp.status == 409 and "precondition" in resp.message().lower():
            if ctx.lost_write:
                return self._done(i, a, ctx, "%s (an earlier attempt's answer was lost; the pod has since been "
                                             "replaced)" % verb)
            return Result(i, a, SKIPPED, "the pod was replaced (its uid is no longer %s): the replacement is not "
                                         "touched" % a.uid, status=resp.status, message=resp.message(),
                          attempts=ctx.attempts)
        if resp.status == 429 and a.type == "evict":
            waited = "" if self.s.dry_run else " after %s of retries" % format_seconds(self.s.timeout)
            return Result(i, a, BLOCKED, "the eviction is refused%s" % waited, status=429, message=resp.message(),
                          attempts=ctx.attempts)
        return self._failed(i, a, ctx, resp)


# --- re-reading the named objects ---------------------------------------------------------------

def read_objects(ex: Executor, plan: Plan, done: Set[int]) -> Tuple[Dict[str, Optional[dict]],
                                                                    Dict[PodKey, Optional[dict]]]:
    """GET every node and pod the plan still has to act on (a list per node for many pods)."""
    reads = reads_for(plan, done)
    ctx = _Ctx(0, "re-reading the plan's objects", None if ex.s.timeout <= 0 else ex.clock() + ex.s.timeout,
               ex.clock)
    nodes: Dict[str, Optional[dict]] = {}
    pods: Dict[PodKey, Optional[dict]] = {}

    def get(path: str, what: str) -> Optional[dict]:
        resp = ex.call(ctx, "GET", path)
        if resp.status == 404:
            return None
        if not resp.ok or not isinstance(resp.body, dict):
            raise ClusterAccessError("re-reading %s before acting: %s (nothing was done)" % (what, resp.summary()),
                                     status=resp.status)
        return resp.body

    for name in reads.nodes:
        nodes[name] = get("/api/v1/nodes/" + quote(name, safe=""), "node " + name)
    planned: Dict[PodKey, str] = {}
    for i, a in enumerate(plan.actions):
        if i not in done and a.type in POD_ACTIONS:
            planned.setdefault((a.namespace, a.pod), a.node)
    if len(reads.pods) > LIST_THRESHOLD:
        wanted = set(reads.pods)
        for node in sorted({n for n in planned.values() if n}):
            token = ""
            while True:
                query = [("fieldSelector", "spec.nodeName=" + node), ("limit", "500")]
                if token:
                    query.append(("continue", token))
                resp = ex.call(ctx, "GET", "/api/v1/pods", query=query)
                if not resp.ok or not isinstance(resp.body, dict):
                    raise ClusterAccessError("listing the pods on node %s before acting: %s (nothing was done)"
                                             % (node, resp.summary()), status=resp.status)
                for item in resp.body.get("items") or []:
                    md = item.get("metadata") or {}
                    key = (md.get("namespace") or "", md.get("name") or "")
                    if key in wanted:
                        pods[key] = item
                token = (resp.body.get("metadata") or {}).get("continue") or ""
                if not token:
                    break
    for ns, name in reads.pods:
        if (ns, name) not in pods:
            pods[(ns, name)] = get("/api/v1/namespaces/%s/pods/%s" % (quote(ns, safe=""), quote(name, safe="")),
                                   "pod %s/%s" % (ns, name))
    return nodes, pods


def _namespace_terminating(resp: Response) -> bool:
    """A 403 from the NamespaceLifecycle admission plugin: the pod's namespace is being deleted."""
    if resp.status != 403 or not isinstance(resp.body, dict):
        return False
    details = resp.body.get("details")
    causes = details.get("causes") if isinstance(details, dict) else None
    return any(isinstance(c, dict) and c.get("reason") == NAMESPACE_TERMINATING for c in causes or ())


ALL = ""    # `held` key: every node's pods (a drain whose cordon of some node failed)


def _held(r: Result) -> str:
    """Why the pods of a node must wait, when `r` is a user's edit of that node that did not happen
    (failed, or skipped): the plan removes them because of it. kubectl drain evicts nothing from a
    node it could not cordon (RunDrain returns on RunCordonOrUncordon's error, staging/src/k8s.io/
    kubectl/pkg/cmd/drain/drain.go), or its replacements land back on it; an affinity plan's
    evictions are justified only by the label or taint it sets. A drain's failed cordon holds the
    pods of every node: RunCordonOrUncordon cordons them all and returns the error before any
    eviction. Empty: the pods may go."""
    a = r.action
    if a.type in POD_ACTIONS or a.by != USER or r.outcome not in (FAILED, SKIPPED, BLOCKED):
        return ""
    if a.type == "cordon":
        return "the cordon of node %s %s; kubectl drain evicts nothing when it could not cordon every node" % (
            a.node, r.outcome)
    return "%s %s; the plan removes this pod because of that change" % (describe(a), r.outcome)


def _label_text(v: Optional[str]) -> str:
    return "not set" if v is None else repr(v)


def _taint_text(value: Optional[str]) -> str:
    """The value of a node's taint (None: the node has no taint of that key and effect)."""
    return "no such taint" if value is None else "value %r" % value


# --- the whole of `apply` ---------------------------------------------------------------------------

def _confirm(plan: Plan, count: int, context: str, server: str, show_plan: bool, stdin: Any, stderr: Any) -> None:
    from kubectl_evict.render import plan_kind_line, summary_line, to_table
    isatty = getattr(stdin, "isatty", None)
    if not (isatty and isatty()):
        raise EvictPlanError("refusing to apply %d action%s to cluster %s without confirmation: stdin is not a "
                             "terminal (use --yes)" % (count, "" if count == 1 else "s", context or server))
    if show_plan:
        stderr.write(to_table(plan))
    else:
        stderr.write(plan_kind_line(plan) + "\n" + summary_line(plan) + "\n")
    forecasts = sum(1 for a in plan.actions if a.by != USER)
    if forecasts:
        stderr.write("Only your own actions are sent; the %d forecast action%s (what Kubernetes does by itself) "
                     "%s not.\n" % (forecasts, "" if forecasts == 1 else "s", "is" if forecasts == 1 else "are"))
    stderr.write("Cluster: context %s, server %s\n" % (context or "<none>", server))
    stderr.write("Apply %d action%s to cluster %s? [y/N] " % (count, "" if count == 1 else "s", context or server))
    stderr.flush()
    answer = stdin.readline()
    if answer.strip().lower() not in ("y", "yes"):
        if not answer:
            stderr.write("\n")
        raise EvictPlanError("not confirmed: nothing was done")


def apply_plan(plan: Plan, *, source: str, opts: Any, settings: ApplySettings, fmt: str,
               journal_path: Optional[str] = None, digest: Optional[str] = None, show_plan: bool = True,
               stdin: Any = None, stdout: Any = None, stderr: Any = None,
               connect: Optional[Callable[[Any], Any]] = None) -> int:
    """Check the plan against the cluster, confirm, execute, print the report; the exit code."""
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    if connect is None:
        from kubectl_evict.source.live import connect
    if nothing_to_do(plan):
        raise EvictPlanError("this %s plan holds no action: there is nothing to apply" % plan.command)
    if is_forecast(plan):
        # Checked before connecting: a forecast never turns into a single request.
        raise EvictPlanError("this plan is a forecast of what Kubernetes does by itself (%s); there is nothing to "
                             "apply" % plan.command)
    if plan.command == "upgrade":
        # A node-pool upgrade is the provider's to carry out (new nodes, batches, its timeouts).
        raise EvictPlanError("this plan is a node-pool upgrade: the provider (or Cluster API) carries it out, "
                             "not apply; the plan is for review")
    unnamed = [i for i, a in enumerate(plan.actions) if a.by == USER and a.type in POD_ACTIONS and not a.uid]
    if unnamed:
        # a second eviction (drain --one-at-a-time) names a replacement that did not exist when the
        # plan was made: no uid to guard the request with, and the name is the first pod's
        raise EvictPlanError("actions[%d] evicts again the replacement of an earlier eviction, a pod that did not "
                             "exist when the plan was made (no uid to name it): apply cannot carry out this plan; "
                             "cordon all the nodes first (kubectl cordon NODE...), then plan and apply again"
                             % unnamed[0])
    conn = connect(opts)
    from kubectl_evict.apply.document import plan_digest
    journal = Journal.open(journal_path, plan, digest or plan_digest(plan), conn.server)
    already = journal.done()
    stop = Stop()
    runnable = [i for i, a in enumerate(plan.actions) if a.by == USER and i not in already]
    progress = Progress(len(plan.actions), stream=stderr)
    ex = Executor(KubeTransport(conn), settings, progress=progress, stop=stop)
    notes: List[str] = []
    skips: Dict[int, str] = {}
    if runnable:
        nodes, pods = read_objects(ex, plan, already)
        verdict = check(plan, server=conn.server, context=conn.context, nodes=nodes, pods=pods, done=already,
                        force_stale=settings.force_stale)
        if verdict.stale:
            raise EvictPlanError(refusal_message(verdict))
        notes.extend(verdict.notes)
        skips = verdict.skips
    for n in notes:
        progress.note("note: " + n)
    count = len([i for i in runnable if i not in skips])
    if count and not settings.assume_yes:
        _confirm(plan, count, conn.context, conn.server, show_plan, stdin, stderr)
    elif count:
        progress.note("%s %d action%s on cluster %s (%s)" % ("server dry run of" if settings.dry_run else "applying",
                                                             count, "" if count == 1 else "s", conn.context, conn.server))
    if settings.dry_run:
        notes.append("server dry run: budgets are not spent, so evictions that share a PodDisruptionBudget may "
                     "each be reported possible although a real run would wait between them")
    if already:
        notes.append("%d action%s done by an earlier run of this plan (journal %s)"
                     % (len(already), "" if len(already) == 1 else "s", journal_path))

    def on_sigint(signum: int, frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        progress.note("interrupted: finishing the request in flight, then stopping (Ctrl-C again to abort now)")

    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        results, interrupted = ex.run(plan, skips=skips, already=already,
                                      journal=journal if journal_path and not settings.dry_run else None)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        progress.close()
    if journal.write_error is None and journal_path and not settings.dry_run and interrupted:
        notes.append("run apply again on the same plan to finish the rest; what is done will not be repeated")
    report = Report(source=source, context=conn.context, server=conn.server, dry_run=settings.dry_run,
                    total=len(plan.actions), results=results, interrupted=interrupted, notes=notes)
    stdout.write(render_report(report, fmt))
    stdout.flush()
    return report.exit_code()
