"""The apply journal: which actions of a plan file are done, so that a re-run never repeats them.

After an interruption (Ctrl-C, a lost connection, a timeout) the user runs `apply` again on the
same plan. Most actions are idempotent on their own (a cordoned node stays cordoned, a gone pod
answers 404), but an evicted StatefulSet pod comes back under the same name with a new uid: the
staleness check would call that "replaced" and refuse. The journal remembers that this run
evicted it.

The journal sits beside the plan file (`PLAN.applied`), is bound to the plan's digest (what it
does, in order) and to the server it was applied to, and is rewritten atomically after every
completed action. A journal for another plan or another server is ignored (and replaced on the
first write). Writing it is best effort: when the directory is read-only, apply still runs (and
says so once); the cluster-state checks still keep a re-run from touching anything twice.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Dict, Optional, Set

from kubectl_evict.apply.document import action_identity
from kubectl_evict.apply.preconditions import normalize_server
from kubectl_evict.plan import Plan

KIND = "ApplyJournal"
SUFFIX = ".applied"


def journal_path(plan_path: str) -> Optional[str]:
    """Where a plan file's journal lives (None for a plan read from stdin)."""
    if plan_path == "-" or not plan_path:
        return None
    return plan_path + SUFFIX


class Journal:
    def __init__(self, path: Optional[str], plan: Plan, digest: str, server: str) -> None:
        self.path = path
        self.plan = plan
        self.digest = digest
        self.server = normalize_server(server)
        self.entries: Dict[str, Dict[str, Any]] = {}
        self.write_error: Optional[str] = None

    @classmethod
    def open(cls, path: Optional[str], plan: Plan, digest: str, server: str) -> "Journal":
        """Load PATH if it belongs to this plan and server; otherwise start empty."""
        j = cls(path, plan, digest, server)
        if path is None:
            return j
        try:
            with open(path, "r", encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError):
            return j
        if not isinstance(doc, dict) or doc.get("kind") != KIND or doc.get("planDigest") != digest \
                or doc.get("server") != j.server or not isinstance(doc.get("done"), dict):
            return j
        for key, entry in doc["done"].items():
            if not (isinstance(key, str) and key.isdigit() and isinstance(entry, dict)):
                continue
            i = int(key)
            if i < len(plan.actions) and entry.get("action") == action_identity(plan.actions[i]):
                j.entries[key] = entry
        return j

    def done(self) -> Set[int]:
        return {int(k) for k in self.entries}

    def record(self, index: int, outcome: str, when: str) -> Optional[str]:
        """Remember action INDEX as finished; returns a warning the first time writing fails."""
        self.entries[str(index)] = {"action": action_identity(self.plan.actions[index]), "outcome": outcome,
                                    "time": when}
        if self.path is None:
            return None
        doc = {"apiVersion": "evictplan/v1alpha1", "kind": KIND, "planDigest": self.digest, "server": self.server,
               "done": {k: self.entries[k] for k in sorted(self.entries, key=int)}}
        directory = os.path.dirname(os.path.abspath(self.path))
        tmp = None
        try:
            fd, tmp = tempfile.mkstemp(prefix=".evictplan-journal-", dir=directory)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1, sort_keys=True)
                f.write("\n")
            os.replace(tmp, self.path)
            tmp = None
        except OSError as e:
            first = self.write_error is None
            self.write_error = e.strerror or str(e)
            if first:
                return ("cannot write the apply journal %s (%s): a re-run will rely on the cluster's state "
                        "alone to skip what is done" % (self.path, self.write_error))
        finally:
            if tmp is not None:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
        return None
