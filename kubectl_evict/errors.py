"""Expected failures, each turned into one `error:` line by the CLI's single error boundary."""

from __future__ import annotations

from typing import Any, Optional


class EvictPlanError(Exception):
    """A failure the user can act on (bad input, API error). Exit code 1."""

    exit_code = 1


class InputError(EvictPlanError):
    """Bad snapshot or flag input, located as precisely as we can: file, object, field."""

    def __init__(self, problem: str, *, source: Optional[str] = None, obj: Optional[str] = None,
                 field: Optional[str] = None) -> None:
        self.problem = problem
        self.source = source
        self.obj = obj
        self.field = field
        super().__init__(self._message())

    def _message(self) -> str:
        where = [p for p in (self.source, self.obj, self.field) if p]
        return ": ".join(where + [self.problem])

    def located(self, *, source: Optional[str] = None, obj: Optional[str] = None,
                field_prefix: Optional[str] = None) -> "InputError":
        """Return a copy with the outer location filled in (inner code knows only the field)."""
        field = self.field
        if field_prefix:
            field = field_prefix + ("." + field if field and not field.startswith("[") else (field or ""))
        return InputError(self.problem, source=self.source or source, obj=self.obj or obj, field=field)


def json_type(v: Any) -> str:
    """How a value reads in an error, in JSON's own words (null, boolean, number, string, a list,
    an object) and with its value where short: users write YAML/JSON, not Python, so a message
    never names a Python type (`NoneType`, `dict`). Shared by every reader of input."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean %s" % str(v).lower()
    if isinstance(v, (int, float)):
        return "number %s" % v
    if isinstance(v, str):
        return "string %r" % v
    if isinstance(v, (list, tuple)):
        return "a list"
    if isinstance(v, dict) or hasattr(v, "keys"):
        return "an object"
    return "a value JSON cannot hold"


class ValueParseError(ValueError):
    """A malformed scalar (quantity, duration, timestamp); callers add the location."""


class ClusterAccessError(EvictPlanError):
    """Reading (or writing) a live cluster failed: an API error or a broken connection.

    The message names the resource and the HTTP status (`listing pods: 403 Forbidden: ...`) or
    the server that could not be reached; `status` is the HTTP status, None for transport errors."""

    def __init__(self, message: str, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.status = status
