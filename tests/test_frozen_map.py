"""FrozenMap: the snapshot's maps are immutable values with pmap's persistent API.

Rules read node labels and allocatable millions of times, so these maps are dicts underneath;
what must hold is what the snapshot promised with pmap: nothing can change them in place,
"changing" one gives a new map, and equal maps are equal and hash alike.
"""

import copy
import pickle

import pytest
from pyrsistent import pmap

from conftest import node, pod, snapshot_list
from kubectl_evict.model import EMPTY_MAP, FrozenMap, frozen_map

BASE = {"zone": "z1", "pool": "general"}

MUTATORS = [
    ("setitem", lambda m: m.__setitem__("zone", "z2")),
    ("delitem", lambda m: m.__delitem__("zone")),
    ("clear", lambda m: m.clear()),
    ("pop", lambda m: m.pop("zone")),
    ("popitem", lambda m: m.popitem()),
    ("setdefault", lambda m: m.setdefault("new", "x")),
    ("in-place or", lambda m: m.__ior__({"new": "x"})),
]


@pytest.mark.parametrize("name,mutate", MUTATORS, ids=[m[0] for m in MUTATORS])
def test_no_method_changes_a_map_in_place(name, mutate):
    m = frozen_map(BASE)
    with pytest.raises(TypeError, match="immutable"):
        mutate(m)
    assert m == BASE


PERSISTENT = [
    ("set new key", lambda m: m.set("ssd", "true"), {**BASE, "ssd": "true"}),
    ("set existing key", lambda m: m.set("zone", "z2"), {"zone": "z2", "pool": "general"}),
    ("discard present", lambda m: m.discard("pool"), {"zone": "z1"}),
    ("discard absent", lambda m: m.discard("nope"), BASE),
    ("remove present", lambda m: m.remove("zone"), {"pool": "general"}),
    ("update", lambda m: m.update({"zone": "z3"}, ssd="1"), {"zone": "z3", "pool": "general", "ssd": "1"}),
    ("or", lambda m: m | {"a": "b"}, {**BASE, "a": "b"}),
]


@pytest.mark.parametrize("name,change,want", PERSISTENT, ids=[p[0] for p in PERSISTENT])
def test_changes_return_a_new_map_and_leave_the_old_one(name, change, want):
    m = frozen_map(BASE)
    new = change(m)
    assert isinstance(new, FrozenMap)
    assert new == want
    assert m == BASE


def test_remove_of_an_absent_key_is_a_key_error_like_pmap():
    with pytest.raises(KeyError):
        frozen_map(BASE).remove("nope")
    with pytest.raises(KeyError):
        pmap(BASE).remove("nope")


def test_equal_maps_are_equal_and_hash_alike_whatever_the_insertion_order():
    a = frozen_map({"a": 1, "b": 2})
    b = frozen_map({"b": 2, "a": 1})
    assert a == b and hash(a) == hash(b)
    assert a == pmap({"a": 1, "b": 2}) and pmap({"a": 1, "b": 2}) == a
    assert len({a, b}) == 1
    assert frozen_map() is EMPTY_MAP and frozen_map({}) is EMPTY_MAP


def test_copies_and_pickles_stay_frozen():
    m = frozen_map(BASE)
    for other in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m), copy.copy(m)):
        assert isinstance(other, FrozenMap) and other == m
        with pytest.raises(TypeError):
            other["zone"] = "z9"


def test_a_loaded_snapshot_cannot_be_changed_through_its_maps(tmp_path):
    import json
    from kubectl_evict.source.files import load_snapshot
    f = tmp_path / "s.json"
    f.write_text(json.dumps(snapshot_list(node("n1", labels={"zone": "z1"}), pod("p", "n1", labels={"app": "a"}))))
    snap = load_snapshot([str(f)])
    n, p = snap.nodes["n1"], snap.pods[0]
    for m in (n.labels, n.allocatable, n.conditions, p.labels, p.requests, snap.nodes, snap.pods_by_node):
        with pytest.raises(TypeError):
            m["x"] = 1
    relabeled = n.set(labels=n.labels.set("zone", "z2"))
    assert relabeled.labels["zone"] == "z2" and snap.nodes["n1"].labels["zone"] == "z1"
