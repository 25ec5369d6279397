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


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _internal_imports(path: Path, modules: set) -> set:
    """Every kubectl_evict module `path` imports, at the top or inside a function (a lazy import
    hides a cycle; it does not remove it)."""
    found = set()
    me = _module_name(path)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    for n in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(n, ast.Import):
            names = [a.name for a in n.names]
        elif isinstance(n, ast.ImportFrom):
            base = n.module or ""
            if n.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (n.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            names = [base] + ["%s.%s" % (base, a.name) for a in n.names]
        for name in names:
            if name in modules and name != me:
                found.add(name)
    return found


def test_no_import_cycles():
    """One direction per dependency: a cycle (even through a function-level import) means two
    modules each own part of the other's idea."""
    paths = sorted(PKG.rglob("*.py"))
    modules = {_module_name(p) for p in paths}
    graph = {_module_name(p): _internal_imports(p, modules) for p in paths}
    # a package's __init__ importing its own submodules is how packages expose them, not a cycle
    for mod, deps in graph.items():
        graph[mod] = {d for d in deps if not (d.startswith(mod + ".") and mod in modules)}
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for m in sorted(graph):
        if m not in index:
            visit(m)
    assert not cycles, "import cycles: %s" % cycles
