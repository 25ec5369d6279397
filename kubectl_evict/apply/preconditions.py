"""Is the plan still true of the cluster? Pure checks over the objects `apply` re-read.

A plan is reviewed against one state of one cluster; executing it against another state could
evict the wrong pod (a replacement with the same name) or act on the wrong cluster. Before any
write, `apply` re-reads every node and pod the plan names and these functions decide:

* the plan came from another cluster (the `cluster.server` it records is not the current
  context's server): refuse;
* a named node is gone: refuse;
* a pod's uid differs (it was replaced) or it runs on another node than planned: refuse, or with
  `--force-stale` skip that pod's action and say why;
* a pod that is gone is not stale: its action is already achieved (the executor reports it
  "already done", as kubectl drain counts a 404 as success).

Actions a previous run already completed (the journal) are not re-checked: their pods are
expected to be gone or replaced.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import AbstractSet, Dict, List, Mapping, Optional, Set, Tuple
from urllib.parse import urlsplit

from kubectl_evict.plan import POD_ACTIONS, USER, Plan
from kubectl_evict.scheduling.tolerations import OUT_OF_SERVICE

PodKey = Tuple[str, str]


@dataclass(frozen=True)
class Reads:
    """The objects to re-read before acting: node names and (namespace, pod) keys, sorted."""
    nodes: Tuple[str, ...]
    pods: Tuple[PodKey, ...]


@dataclass
class Verdict:
    refusals: List[str] = field(default_factory=list)   # any: refuse the whole plan, do nothing
    skips: Dict[int, str] = field(default_factory=dict)  # action index -> why (with --force-stale)
    notes: List[str] = field(default_factory=list)       # worth saying, not blocking

    @property
    def stale(self) -> bool:
        return bool(self.refusals)


def reads_for(plan: Plan, done: AbstractSet[int] = frozenset()) -> Reads:
    """Every node and pod named by an action `apply` will run (forecast actions are not read)."""
    nodes: Set[str] = set()
    pods: Set[PodKey] = set()
    for i, a in enumerate(plan.actions):
        if i in done or a.by != USER:
            continue
        if a.type in POD_ACTIONS:
            pods.add((a.namespace, a.pod))
        if a.node:
            nodes.add(a.node)
    return Reads(nodes=tuple(sorted(nodes)), pods=tuple(sorted(pods)))


def normalize_server(url: str) -> str:
    """`https://API.example:443/` and `https://api.example` are the same server."""
    url = (url or "").strip()
    if not url:
        return ""
    if "://" not in url:
        url = "https://" + url
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = "[%s]" % host
    try:
        port = parts.port
    except ValueError:
        port = None
    default = (scheme == "https" and port == 443) or (scheme == "http" and port == 80)
    netloc = host if port is None or default else "%s:%d" % (host, port)
    return "%s://%s%s" % (scheme, netloc, parts.path.rstrip("/"))


def cluster_check(plan: Plan, server: str, context: str) -> Tuple[Optional[str], Optional[str]]:
    """(refusal, note) for the plan's recorded cluster against the current one."""
    if not plan.server:
        return None, ("the plan does not record which cluster it was made for (no cluster.server): "
                      "cannot check that it came from this one")
    if normalize_server(plan.server) != normalize_server(server):
        were = " (context %s)" % plan.context if plan.context else ""
        now = "context %s uses server %s" % (context, server) if context else "server is %s" % server
        return ("the plan came from another cluster: it was made for server %s%s, the current %s"
                % (plan.server, were, now)), None
    return None, None


def check(plan: Plan, *, server: str, context: str, nodes: Mapping[str, Optional[dict]],
          pods: Mapping[PodKey, Optional[dict]], done: AbstractSet[int] = frozenset(),
          force_stale: bool = False) -> Verdict:
    """Compare the plan with the re-read objects (None: the API answered 404)."""
    v = Verdict()
    refusal, note = cluster_check(plan, server, context)
    if refusal:
        v.refusals.append(refusal)
    if note:
        v.notes.append(note)
    for name in sorted(n for n in nodes if nodes[n] is None):
        v.refusals.append("node %s no longer exists" % name)
    for i, a in enumerate(plan.actions):
        if i in done or a.by != USER:
            continue
        if a.type == "taint" and a.key == OUT_OF_SERVICE:
            why = _powered_on(a.node, nodes.get(a.node))
            if why:
                v.refusals.append(why)
            continue
        if a.type not in POD_ACTIONS:
            continue
        obj = pods.get((a.namespace, a.pod))
        if obj is None:
            continue  # gone: the action's aim is met; the executor confirms with a 404
        md = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        uid = md.get("uid") or ""
        on = spec.get("nodeName") or ""
        why = None
        if uid != a.uid:
            why = "pod %s/%s was replaced since the plan was made (planned uid %s, now %s)" % (
                a.namespace, a.pod, a.uid, uid or "<none>")
        elif a.node and on != a.node:
            why = "pod %s/%s is now on %s, not on %s as planned" % (a.namespace, a.pod, on or "<no node>", a.node)
        if why is None:
            continue
        if force_stale:
            v.skips[i] = why
        else:
            v.refusals.append(why)
    return v


def _powered_on(name: str, node: Optional[dict]) -> Optional[str]:
    """The out-of-service taint force-deletes pods and detaches volumes: only for a node whose
    Ready condition says it is down (False/Unknown) right now."""
    if node is None:
        return None
    for c in (node.get("status") or {}).get("conditions") or []:
        if isinstance(c, dict) and c.get("type") == "Ready":
            status = c.get("status")
            if status in ("False", "Unknown"):
                return None
            return ("node %s is Ready=%s (%s since %s): the %s taint is only for a node that is shut down; "
                    "power it off first" % (name, status, c.get("reason") or "no reason",
                                            c.get("lastTransitionTime") or "?", OUT_OF_SERVICE))
    return "node %s has no Ready condition: cannot tell that it is shut down; not adding the %s taint" % (
        name, OUT_OF_SERVICE)


def refusal_message(v: Verdict, limit: int = 5) -> str:
    """One line for `error:`: the first few reasons, how many more, and the way out."""
    shown = v.refusals[:limit]
    more = len(v.refusals) - len(shown)
    text = "; ".join(shown) + ("; and %d more" % more if more > 0 else "")
    pods_only = all(r.startswith("pod ") for r in v.refusals)
    hint = " (use --force-stale to skip the pods that changed, or make a new plan)" if pods_only else \
        " (make a new plan)"
    return "the plan is stale, nothing was done: " + text + hint
