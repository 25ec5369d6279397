"""Read snapshots from files, directories, stdin and the bundled demo cluster."""

from __future__ import annotations

import gc
import os
import sys
from typing import Iterator, List, Sequence

from kubectl_evict.errors import InputError
from kubectl_evict.model import Snapshot
from kubectl_evict.source.documents import Doc, expand, parse_text
from kubectl_evict.source.freeze import Freezer

_EXTENSIONS = (".json", ".yaml", ".yml")
DEMO_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "demo", "cluster.json")


def read_bytes(path: str) -> bytes:
    """A file's bytes (`-`: stdin; the demo path: the packaged demo), or an InputError naming it."""
    if path == "-":
        return sys.stdin.buffer.read()
    if path == DEMO_PATH:
        try:
            import pkgutil
            data = pkgutil.get_data("kubectl_evict", "demo/cluster.json")
            if data is not None:
                return data
        except OSError:
            pass
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise InputError("no such file or directory", source=path) from None
    except IsADirectoryError:
        raise InputError("is a directory", source=path) from None
    except OSError as e:
        raise InputError(e.strerror or str(e), source=path) from None


def expand_paths(paths: Sequence[str]) -> List[str]:
    """Files as given; a directory stands for its *.json, *.yaml and *.yml files, sorted."""
    out: List[str] = []
    for p in paths:
        if p != "-" and os.path.isdir(p):
            names = sorted(n for n in os.listdir(p) if n.endswith(_EXTENSIONS))
            out.extend(os.path.join(p, n) for n in names)
        else:
            out.append(p)
    return out


def read_documents(paths: Sequence[str]) -> Iterator[Doc]:
    """Every object in the given files, in order (later files override earlier ones)."""
    for path in expand_paths(paths):
        label = "<stdin>" if path == "-" else ("demo cluster" if path == DEMO_PATH else path)
        docs = parse_text(read_bytes(path), label)   # the file's bytes are released here
        for doc in docs:
            yield from expand(doc, label)


def load_snapshot(paths: Sequence[str]) -> Snapshot:
    """Load and freeze snapshot files. Raises InputError naming file, object and field.

    The garbage collector is paused throughout: parsing and freezing allocate millions of
    objects that all stay alive, and each automatic collection would walk all of them.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        freezer = Freezer()
        for path in expand_paths(paths):
            freezer.add(read_documents([path]))
        return freezer.build(consume=True)
    finally:
        if was_enabled:
            gc.enable()
