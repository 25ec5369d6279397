"""Read snapshots from files, directories, stdin and the bundled demo cluster."""

from __future__ import annotations

import mmap
import os
import stat
import sys
from typing import Iterator, List, Optional, Sequence

from kubectl_evict import collector
from kubectl_evict.errors import InputError
from kubectl_evict.model import Snapshot
from kubectl_evict.source import documents
from kubectl_evict.source.documents import Doc, objects
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


_MAP_MIN_BYTES = 1 << 20


def _mapped(path: str) -> Optional[mmap.mmap]:
    """A large regular file as a read-only memory map: the fast JSON reader parses the page cache
    in place instead of a 1.3 GB copy of it (0.8 s of a 150,000-pod load), and the raw subtrees
    it keeps point into the map. None for stdin, the demo, pipes, small or unreadable files
    (`read_bytes` then reads them, and names the file in its error), and without msgspec: the
    stdlib parsers need a bytes copy, and the map would only add to it. (A file truncated by
    another process while it is parsed ends the process with SIGBUS instead of a parse error.)"""
    if documents.fastjson is None or path == "-" or path == DEMO_PATH:
        return None
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_size < _MAP_MIN_BYTES:
                return None
            return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None


def expand_paths(paths: Sequence[str]) -> List[str]:
    """Files as given; a directory stands for its *.json, *.yaml and *.yml files, sorted, and not
    its subdirectories, whatever their names (kubectl -f DIR without -R)."""
    out: List[str] = []
    for p in paths:
        if p != "-" and os.path.isdir(p):
            names = sorted(n for n in os.listdir(p) if n.endswith(_EXTENSIONS))
            out.extend(f for f in (os.path.join(p, n) for n in names) if not os.path.isdir(f))
        else:
            out.append(p)
    return out


def read_documents(paths: Sequence[str]) -> Iterator[Doc]:
    """Every object in the given files, in order (later files override earlier ones)."""
    for path in expand_paths(paths):
        label = "<stdin>" if path == "-" else ("demo cluster" if path == DEMO_PATH else path)
        data = _mapped(path)
        items = objects(data if data is not None else read_bytes(path), label)
        del data   # the file's bytes are released as soon as they are parsed
        for item in items:
            _refuse_raw_configz(item)
            yield item


def _refuse_raw_configz(item: Doc) -> None:
    """`GET nodes/NODE/proxy/configz` output names no node: it belongs to --kubelet-config (or
    wrapped in a NodeKubeletConfig that says which node it is)."""
    source, where, obj = item
    if "kind" not in obj and "kubeletconfig" in obj and not (obj.get("metadata") or {}).get("name"):
        raise InputError("a raw /configz document names no node: give it with --kubelet-config FILE (pressure, "
                         "shutdown), or wrap it as {apiVersion: evictplan/v1alpha1, kind: NodeKubeletConfig, "
                         "metadata: {name: NODE}, kubeletconfig: ...}", source=source, obj=where or None)


def _counted(docs: Iterator[Doc], seen: List[int]) -> Iterator[Doc]:
    """Count objects in seen[0] and empty `v1 List`s (which name no kind) in seen[1]."""
    for d in docs:
        obj = d[2]
        if obj.get("kind") == documents.EMPTY_LIST and obj.get("of") is None:
            seen[1] += 1
        else:
            seen[0] += 1
        yield d


def load_snapshot(paths: Sequence[str]) -> Snapshot:
    """Load and freeze snapshot files. Raises InputError naming file, object and field.

    A file (or a directory) that holds no Kubernetes object at all is an error: planning an empty
    cluster would only report "node not found". A file named twice (the same directory given
    twice) is read once, with one warning that counts the repeats.

    The garbage collector is paused throughout (`collector.paused`): parsing and freezing
    allocate millions of objects that all stay alive, and each automatic collection would walk
    all of them.
    """
    with collector.paused():
        freezer = Freezer()
        read: dict = {}
        repeated = 0
        total = 0
        emptied: List[str] = []
        for given in paths:
            is_dir = given != "-" and os.path.isdir(given)
            files = expand_paths([given])
            if is_dir and not files:
                raise InputError("no Kubernetes objects found (no *.json, *.yaml or *.yml files in the directory)",
                                 source=given)
            found, new = [0, 0], 0
            for path in files:
                key = path if path == "-" else os.path.realpath(path)
                if key in read:
                    repeated += 1
                    continue
                read[key] = path
                new += 1
                before, empties = found[0], found[1]
                try:
                    freezer.add(_counted(read_documents([path]), found))
                except MemoryError:
                    freezer = None   # let go of what was read before saying so
                    raise _out_of_memory(path) from None
                if found[0] == before:
                    if found[1] > empties:
                        emptied.append(_label(path))
                    elif not is_dir:
                        raise InputError("no Kubernetes objects found", source=_label(path))
            if is_dir and new and not found[0]:
                raise InputError("no Kubernetes objects found in any of its files%s"
                                 % (" (only empty Lists)" if found[1] else ""), source=given)
            total += found[0]
        if emptied and not total:
            raise InputError("no Kubernetes objects found (only empty Lists)", source=", ".join(emptied))
        if emptied:
            # what `kubectl get pdb -A -o json` prints on a cluster without PDBs: not an error, but a
            # `v1 List` names no kind, so it cannot stand for "the cluster has none of this kind"
            freezer.warnings.append(
                "%s: an empty List, which names no kind, so the plan cannot take it as \"none of that kind\"; "
                "list the kind in a SnapshotInfo's kinds, or export it with `kubectl get --raw` (a typed list "
                "holds its kind even when empty)" % ", ".join(emptied))
        _collapse_duplicate_objects(freezer.warnings)
        if repeated:
            freezer.warnings.append("%d file%s given more than once (the same file or directory named twice); "
                                    "each was read once" % (repeated, "" if repeated == 1 else "s"))
        try:
            return freezer.build(consume=True)
        except MemoryError:
            freezer = None
            raise _out_of_memory(", ".join(_label(p) for p in read.values())) from None


_DUPLICATE = " appears more than once ("


def _collapse_duplicate_objects(warnings: List[str], shown: int = 5) -> None:
    """The freezer warns once per object given twice; two overlapping captures would print
    thousands of lines. More than one such object becomes one warning with the count and names."""
    dups = [w for w in warnings if _DUPLICATE in w]
    if len(dups) < 2:
        return
    names = [w.split(_DUPLICATE, 1)[0] for w in dups]
    warnings[:] = [w for w in warnings if _DUPLICATE not in w]
    more = " and %d more" % (len(names) - shown) if len(names) > shown else ""
    warnings.insert(0, "%d objects appear more than once (%s%s); for each, the later one wins"
                    % (len(names), ", ".join(names[:shown]), more))


def _out_of_memory(what: str) -> InputError:
    """MemoryError carries no message; say what ran out and what helps."""
    size = ""
    try:
        size = " (%d MB)" % (os.path.getsize(what) // (1 << 20)) if os.path.isfile(what) else ""
    except OSError:
        pass
    return InputError("out of memory while loading it%s: give the process more memory, or read the cluster "
                      "as JSON (a YAML snapshot takes more memory than the same snapshot as JSON)" % size,
                      source=_label(what))


def _label(path: str) -> str:
    return "<stdin>" if path == "-" else ("demo cluster" if path == DEMO_PATH else path)
