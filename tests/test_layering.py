"""The functional core stays pure: rules, the model and the scheduling helpers import no I/O or
presentation libraries, and no rule reads the clock or the environment."""

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[1] / "kubectl_evict"
CORE = sorted([*PKG.glob("rules/*.py"), *PKG.glob("scheduling/*.py"), *PKG.glob("eviction/*.py"),
               *PKG.glob("verify/*.py"), PKG / "apply" / "preconditions.py", PKG / "model.py", PKG / "plan.py",
               PKG / "quantity.py", PKG / "timeutil.py"])
FORBIDDEN_MODULES = {"kubernetes", "click", "tabulate", "urllib3", "requests", "socket", "subprocess", "os", "random"}
FORBIDDEN_CALLS = {("time", "time"), ("time", "monotonic"), ("datetime", "now"), ("datetime", "utcnow"), ("os", "environ")}


def _imports(tree):
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            for a in n.names:
                yield a.name.split(".")[0]
        elif isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
            yield n.module.split(".")[0]


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(PKG)))
def test_core_imports_no_io_or_presentation(path):
    tree = ast.parse(path.read_text())
    bad = set(_imports(tree)) & FORBIDDEN_MODULES
    assert not bad, "%s imports %s" % (path.name, bad)
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
            assert (n.value.id, n.attr) not in FORBIDDEN_CALLS, "%s uses %s.%s" % (path.name, n.value.id, n.attr)
        if isinstance(n, ast.ImportFrom) and n.module and n.module.startswith("kubectl_evict.source"):
            pytest.fail("%s imports the I/O layer (%s)" % (path.name, n.module))
