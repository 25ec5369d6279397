"""Render a plan: a width-aware table (default), a wide table, Markdown, an ASCII timeline, or the
contract's JSON / YAML document.

Rendering is pure: the shell (commands/_run.py) measures the terminal and the encoding of stdout
and passes `width` and `ascii` in (see `kubectl_evict.render.terminal`).
"""

from __future__ import annotations

from typing import Optional

from kubectl_evict.plan import Plan
from kubectl_evict.render.document import action_dict, plan_document, to_json, to_yaml, workload_dict
from kubectl_evict.render.text import action_object, plan_kind_line, summary_line

FORMATS = ("table", "wide", "json", "yaml", "markdown", "timeline")
DEFAULT_WIDTH = 120

__all__ = ["FORMATS", "render", "plan_document", "action_dict", "action_object", "summary_line", "plan_kind_line",
           "workload_dict", "to_json", "to_yaml", "to_table"]


def render(plan: Plan, fmt: str, *, width: Optional[int] = None, ascii: bool = False, source: str = "") -> str:
    """The plan in format `fmt`. `width`: the terminal's columns (default 120); `ascii`: stdout
    cannot encode more than ASCII; `source`: what was read when the plan names no cluster."""
    if fmt == "json":
        return to_json(plan_document(plan), ascii=ascii)
    if fmt == "yaml":
        return to_yaml(plan_document(plan), ascii=ascii)
    if ascii:
        from kubectl_evict.render.text import ascii_plan, to_ascii
        plan = ascii_plan(plan)
        source = to_ascii(source)
    cols = width or DEFAULT_WIDTH
    if fmt == "markdown":
        from kubectl_evict.render.markdown import to_markdown
        out = to_markdown(plan, source=source)
    elif fmt == "timeline":
        from kubectl_evict.render.timeline import to_timeline
        out = to_timeline(plan, width=cols, source=source, ascii=ascii)
    else:
        out = to_table(plan, wide=(fmt == "wide"), width=cols, source=source, ascii=ascii)
    if ascii:
        from kubectl_evict.render.text import to_ascii
        out = to_ascii(out)
    return out


def to_table(plan: Plan, wide: bool = False, width: Optional[int] = DEFAULT_WIDTH, source: str = "",
             ascii: bool = False) -> str:
    """The table view (kept here for apply's confirmation prompt)."""
    from kubectl_evict.render.table import to_table as table
    return table(plan, wide=wide, width=width, source=source, ascii=ascii)
