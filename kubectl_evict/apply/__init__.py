"""`apply`: execute a reviewed plan against the live cluster, safely (the imperative shell).

document.py reads the plan file; preconditions.py decides whether the plan is still true of the
cluster (pure); executor.py does the I/O; journal.py remembers progress between runs;
progress.py and report.py are what the user sees. `settings_from_options` turns the global
apply flags (declared once in `kubectl_evict.options`) into `ApplySettings`.
"""

from __future__ import annotations

from typing import Any

from kubectl_evict.errors import InputError

DRY_RUN_VALUES = ("none", "server")
DEFAULT_TIMEOUT = "5m"


def settings_from_options(opts: Any) -> Any:
    """Validate --dry-run/--timeout/--yes/--force-stale/--follow-timeline into ApplySettings."""
    from kubectl_evict.apply.executor import ApplySettings
    dry = opts.dry_run if opts.dry_run is not None else "none"
    if dry not in DRY_RUN_VALUES:
        hint = " (a plan is already the client-side dry run)" if dry == "client" else ""
        raise InputError("%r is not supported: use none or server%s" % (dry, hint), field="--dry-run")
    from kubectl_evict.flags import duration_flag
    timeout = duration_flag("--timeout", opts.timeout if opts.timeout is not None else DEFAULT_TIMEOUT)
    # drain --timeout keeps kubectl drain's meaning: it bounds the whole drain (each action's
    # retries included); elsewhere it is how long each action may retry
    whole = bool(getattr(opts, "timeout_bounds_run", False)) and opts.timeout is not None
    return ApplySettings(dry_run=dry == "server", timeout=timeout, force_stale=bool(opts.force_stale),
                         follow_timeline=bool(opts.follow_timeline), assume_yes=bool(opts.yes),
                         total_timeout=timeout if whole else 0.0)


def apply_flags_given(opts: Any) -> list:
    """The apply-only flags present on the command line (for 'only with --apply' errors)."""
    given = []
    for flag, attr in (("--yes", "yes"), ("--dry-run", "dry_run"), ("--timeout", "timeout"),
                       ("--force-stale", "force_stale"), ("--follow-timeline", "follow_timeline")):
        if getattr(opts, attr, None) not in (None, False):
            given.append(flag)
    return given
