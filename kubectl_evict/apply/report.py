"""What `apply` did, action by action, in the `-o` formats; and its exit code.

Every planned action ends in exactly one outcome, so that after any fault or interruption the
report accounts for the whole plan:

  done          the request succeeded (under --dry-run=server: the server would do it)
  already done  nothing to do: the pod is gone, the node already cordoned / tainted, or a
                previous run of the same plan did it (the journal)
  skipped       deliberately not done: the pod was replaced or moved (--force-stale, or the
                Eviction's uid precondition failed)
  blocked       the API kept refusing with 429 (a PodDisruptionBudget) until --timeout
  failed        any other error: HTTP status and the API's message, or the network error
  not run       the run was interrupted before reaching it
  cluster's job informational (detach): the controllers do it, apply never does

Exit codes: 0 everything done or already done; 3 something blocked, skipped or not run;
1 something failed; 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from kubectl_evict.plan import Action
from kubectl_evict.render import action_dict, action_object, to_json, to_yaml

DONE = "done"
ALREADY = "already done"
SKIPPED = "skipped"
BLOCKED = "blocked"
FAILED = "failed"
NOT_RUN = "not run"
CLUSTER_JOB = "cluster's job"
OUTCOMES = (DONE, ALREADY, SKIPPED, BLOCKED, FAILED, NOT_RUN, CLUSTER_JOB)

_KEYS = {DONE: "done", ALREADY: "alreadyDone", SKIPPED: "skipped", BLOCKED: "blocked", FAILED: "failed",
         NOT_RUN: "notRun", CLUSTER_JOB: "clusterJob"}


@dataclass(frozen=True)
class Result:
    index: int
    action: Action
    outcome: str
    reason: str = ""
    status: Optional[int] = None      # HTTP status of the deciding answer, if any
    message: str = ""                 # the API's message (or the network error)
    attempts: int = 0                 # requests sent for this action


@dataclass
class Report:
    source: str
    context: str
    server: str
    dry_run: bool
    total: int
    results: List[Result] = field(default_factory=list)
    interrupted: bool = False
    notes: List[str] = field(default_factory=list)

    def counts(self) -> Dict[str, int]:
        c = {o: 0 for o in OUTCOMES}
        for r in self.results:
            c[r.outcome] += 1
        return c

    def exit_code(self) -> int:
        c = self.counts()
        if self.interrupted:
            return 130
        if c[FAILED]:
            return 1
        if c[BLOCKED] or c[SKIPPED] or c[NOT_RUN]:
            return 3
        return 0


def _detail(r: Result) -> str:
    parts = []
    if r.reason:
        parts.append(r.reason)
    if r.status is not None and r.outcome in (FAILED, BLOCKED, SKIPPED):
        parts.append("HTTP %d%s" % (r.status, ": " + r.message if r.message else ""))
    elif r.message and r.outcome in (FAILED, BLOCKED):
        parts.append(r.message)
    return "; ".join(parts)


def summary(report: Report) -> str:
    c = report.counts()
    parts = ["%d %s" % (c[o], o) for o in (DONE, ALREADY, SKIPPED, BLOCKED, FAILED) if c[o] or o in (DONE, FAILED)]
    if c[NOT_RUN]:
        parts.append("%d not run" % c[NOT_RUN])
    if c[CLUSTER_JOB]:
        parts.append("%d left to the cluster" % c[CLUSTER_JOB])
    where = report.context or report.server or "the cluster"
    head = "Server dry run on %s (nothing was changed)" % where if report.dry_run else "Applied to %s" % where
    tail = " (interrupted)" if report.interrupted else ""
    return "%s: %s%s" % (head, ", ".join(parts), tail)


def to_table(report: Report) -> str:
    from tabulate import tabulate
    rows = []
    for r in report.results:
        a = r.action
        outcome = r.outcome
        if report.dry_run and outcome == DONE:
            outcome = "done (dry run)"
        rows.append([str(r.index + 1), a.type.upper(), a.node, action_object(a), outcome.upper(), _detail(r)])
    out = []
    if rows:
        out.append(tabulate(rows, headers=["#", "ACTION", "NODE", "OBJECT", "RESULT", "DETAIL"], tablefmt="plain",
                            disable_numparse=True))
    else:
        out.append("No actions.")
    if report.notes:
        out.append("")
        out.extend("Note: " + n for n in report.notes)
    out.append("")
    out.append(summary(report))
    return "\n".join(out) + "\n"


def document(report: Report) -> Dict[str, Any]:
    """The machine-readable report: the plan's actions (contract spelling) plus an outcome each."""
    results = []
    for r in report.results:
        d: Dict[str, Any] = {"index": r.index}
        d.update(action_dict(r.action))
        d["outcome"] = r.outcome
        if r.reason:
            d["outcomeReason"] = r.reason
        if r.status is not None:
            d["httpStatus"] = r.status
        if r.message:
            d["message"] = r.message
        d["attempts"] = r.attempts
        results.append(d)
    c = report.counts()
    return {
        "apiVersion": "evictplan/v1alpha1",
        "kind": "ApplyReport",
        "plan": report.source,
        "cluster": {"context": report.context, "server": report.server},
        "dryRun": report.dry_run,
        "interrupted": report.interrupted,
        "summary": {_KEYS[o]: c[o] for o in OUTCOMES},
        "results": results,
        "notes": list(report.notes),
    }


def render_report(report: Report, fmt: str) -> str:
    if fmt == "json":
        return to_json(document(report))
    if fmt == "yaml":
        return to_yaml(document(report))
    return to_table(report)
