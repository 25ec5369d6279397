"""Freeze the Dynamic Resource Allocation objects (resource.k8s.io/v1, also the v1beta1/v1beta2
shapes): ResourceClaims, ResourceClaimTemplates, DeviceClasses and ResourceSlices, and a pod's
`spec.resourceClaims`.

Keeps what kube-scheduler v1.34's DynamicResources plugin
(`pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go`) and the device taint
eviction controller (`pkg/controller/devicetainteviction`, v1.36+) decide with: each request's
device class, allocation mode, count and tolerations; a claim's allocation (devices, node
selector) and `reservedFor`; each slice's node, pool, devices and device taints. CEL selectors
are counted, not evaluated; a DeviceClass's `device.driver == "..."` pin is read (README).
Kept apart from `freeze.py` so the pod/node projection there stays small; it dispatches here.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, Iterable, List, Tuple

from kubectl_evict.model import (DRA_KINDS, AllocatedDevice, Device, DeviceClass, DeviceRequest, PodResourceClaim,
                                 ResourceClaim, ResourceClaimTemplate, ResourceSlice, Taint, frozen_map)
from kubectl_evict.source import fields  # the shared field readers (one home for input validation)

DEVICE_TAINT_EFFECTS = ("NoSchedule", "NoExecute", "None")
ALLOCATION_MODES = ("ExactCount", "All")
# `device.driver == "gpu.example.com"` (either quote); an expression with `||` pins nothing.
_DRIVER_PIN = re.compile(r"""device\.driver\s*==\s*(?:"([^"\\]+)"|'([^'\\]+)')""")


def _request(loc: Any, r: Any, p: str, it: Any, top: bool = True) -> DeviceRequest:
    fz = fields
    r = fz._item_map(loc, r, p)
    name = fz._str(loc, r, "name", p + ".name")
    alternatives = tuple(_request(loc, s, "%s.firstAvailable[%d]" % (p, i), it, top=False)
                         for i, s in enumerate(fz._seq(loc, r, "firstAvailable", p + ".firstAvailable"))) if top else ()
    body, bp = r, p
    if top and r.get("exactly") is not None:           # v1: the request's own fields sit under `exactly`
        body, bp = fz._item_map(loc, r.get("exactly"), p + ".exactly"), p + ".exactly"
    mode = fz._str(loc, body, "allocationMode", bp + ".allocationMode") or "ExactCount"
    if mode not in ALLOCATION_MODES:
        raise loc.error(bp + ".allocationMode", "expected ExactCount or All, found %r" % mode)
    count = fz._int(loc, body, "count", bp + ".count", 1)
    if mode == "ExactCount" and count < 1:
        raise loc.error(bp + ".count", "must be at least 1, found %d" % count)
    return it.leaf(DeviceRequest(
        name, fz._str(loc, body, "deviceClassName", bp + ".deviceClassName"), mode, count,
        len(fz._seq(loc, body, "selectors", bp + ".selectors")),
        fz._tolerations(loc, body, it, bp + ".tolerations", DEVICE_TAINT_EFFECTS), alternatives))


def _requests(loc: Any, spec: dict, path: str, it: Any) -> Tuple[DeviceRequest, ...]:
    fz = fields
    devices = fz._map(loc, spec, "devices", path + ".devices")
    rp = path + ".devices.requests"
    return tuple(_request(loc, r, "%s[%d]" % (rp, i), it) for i, r in enumerate(fz._seq(loc, devices, "requests", rp)))


def project_claim(loc: Any, obj: dict, ns: str, name: str, it: Any) -> ResourceClaim:
    fz = fields
    meta = fz._map(loc, obj, "metadata", "metadata")
    spec = fz._map(loc, obj, "spec", "spec")
    status = fz._map(loc, obj, "status", "status")
    alloc = status.get("allocation")
    node_selector = None
    devices: List[AllocatedDevice] = []
    if alloc is not None:
        ap = "status.allocation"
        alloc = fz._item_map(loc, alloc, ap)
        node_selector = fz._node_selector(loc, alloc, "nodeSelector", ap + ".nodeSelector", it)
        res = fz._map(loc, alloc, "devices", ap + ".devices")
        for i, d in enumerate(fz._seq(loc, res, "results", ap + ".devices.results")):
            p = "%s.devices.results[%d]" % (ap, i)
            d = fz._item_map(loc, d, p)
            devices.append(AllocatedDevice(
                fz._str(loc, d, "request", p + ".request"), fz._str(loc, d, "driver", p + ".driver"),
                fz._str(loc, d, "pool", p + ".pool"), fz._str(loc, d, "device", p + ".device"),
                fz._tolerations(loc, d, it, p + ".tolerations", DEVICE_TAINT_EFFECTS)))
    reserved = []
    for i, r in enumerate(fz._seq(loc, status, "reservedFor", "status.reservedFor")):
        p = "status.reservedFor[%d]" % i
        r = fz._item_map(loc, r, p)
        reserved.append((fz._str(loc, r, "resource", p + ".resource"), fz._str(loc, r, "name", p + ".name"),
                         fz._str(loc, r, "uid", p + ".uid")))
    return ResourceClaim.trusted(
        namespace=ns, name=name, uid=fz._str(loc, meta, "uid", "metadata.uid"),
        requests=_requests(loc, spec, "spec", it), allocated=alloc is not None, node_selector=node_selector,
        devices=tuple(devices), reserved_for=tuple(reserved),
        deletion_timestamp=fz._time(loc, meta, "deletionTimestamp", "metadata.deletionTimestamp"),
        owner_refs=fz._owner_refs(loc, meta, it))


def project_template(loc: Any, obj: dict, ns: str, name: str, it: Any) -> ResourceClaimTemplate:
    fz = fields
    spec = fz._map(loc, obj, "spec", "spec")
    inner = fz._map(loc, spec, "spec", "spec.spec")
    return ResourceClaimTemplate.trusted(namespace=ns, name=name, requests=_requests(loc, inner, "spec.spec", it))


def class_drivers(expressions: Iterable[str]) -> Tuple[str, ...]:
    """The drivers a DeviceClass's selectors pin: every selector must hold, so the first
    expression that pins `device.driver` (and has no `||`) decides."""
    for expr in expressions:
        if "||" in expr:
            continue
        found = sorted({a or b for a, b in _DRIVER_PIN.findall(expr)})
        if found:
            return tuple(found)
    return ()


def project_device_class(loc: Any, obj: dict, name: str) -> DeviceClass:
    fz = fields
    spec = fz._map(loc, obj, "spec", "spec")
    exprs = []
    sels = fz._seq(loc, spec, "selectors", "spec.selectors")
    for i, s in enumerate(sels):
        p = "spec.selectors[%d]" % i
        s = fz._item_map(loc, s, p)
        cel = fz._map(loc, s, "cel", p + ".cel")
        exprs.append(fz._str(loc, cel, "expression", p + ".cel.expression"))
    return DeviceClass.trusted(name=name, drivers=class_drivers(exprs), selectors=len(sels))


def _device_taints(loc: Any, d: dict, p: str, it: Any) -> Tuple[Taint, ...]:
    fz = fields
    out = []
    for i, t in enumerate(fz._seq(loc, d, "taints", p + ".taints")):
        tp = "%s.taints[%d]" % (p, i)
        t = fz._item_map(loc, t, tp)
        effect = fz._str(loc, t, "effect", tp + ".effect")
        if effect not in DEVICE_TAINT_EFFECTS:
            raise loc.error(tp + ".effect", "unknown device taint effect %r (want NoSchedule, NoExecute or None)" % effect)
        out.append(it.leaf(Taint(fz._str(loc, t, "key", tp + ".key"), fz._str(loc, t, "value", tp + ".value"), effect,
                                 fz._time(loc, t, "timeAdded", tp + ".timeAdded"))))
    return tuple(out)


def project_slice(loc: Any, obj: dict, name: str, it: Any) -> ResourceSlice:
    fz = fields
    spec = fz._map(loc, obj, "spec", "spec")
    pool = fz._map(loc, spec, "pool", "spec.pool")
    devices = []
    for i, d in enumerate(fz._seq(loc, spec, "devices", "spec.devices")):
        p = "spec.devices[%d]" % i
        d = fz._item_map(loc, d, p)
        basic = d.get("basic")                 # v1beta1 nests the device's fields under `basic`
        taints = _device_taints(loc, fz._item_map(loc, basic, p + ".basic"), p + ".basic", it) \
            if basic is not None else _device_taints(loc, d, p, it)
        devices.append(Device(fz._str(loc, d, "name", p + ".name"), taints,
                              fz._str(loc, d, "nodeName", p + ".nodeName"), fz._bool(loc, d, "allNodes", p + ".allNodes")))
    return ResourceSlice.trusted(
        name=name, driver=fz._str(loc, spec, "driver", "spec.driver"), pool=fz._str(loc, pool, "name", "spec.pool.name"),
        node_name=fz._str(loc, spec, "nodeName", "spec.nodeName"),
        all_nodes=fz._bool(loc, spec, "allNodes", "spec.allNodes"),
        node_selector=fz._node_selector(loc, spec, "nodeSelector", "spec.nodeSelector", it), devices=tuple(devices))


def project_dra(each: Callable[[str], Iterable[Tuple[str, str, str, dict]]], it: Any) -> Dict[str, Any]:
    """The Snapshot fields for the DRA kinds (`freeze.Freezer._build` calls this)."""
    fz = fields
    claims, templates, classes, slices = {}, {}, {}, []
    for ns, name, src, obj in each("ResourceClaim"):
        claims[(ns, name)] = project_claim(fz._Loc(src, "ResourceClaim %s/%s" % (ns, name)), obj, ns, name, it)
    for ns, name, src, obj in each("ResourceClaimTemplate"):
        templates[(ns, name)] = project_template(fz._Loc(src, "ResourceClaimTemplate %s/%s" % (ns, name)), obj, ns, name, it)
    for ns, name, src, obj in each("DeviceClass"):
        classes[name] = project_device_class(fz._Loc(src, "DeviceClass " + name), obj, name)
    for ns, name, src, obj in each("ResourceSlice"):
        slices.append(project_slice(fz._Loc(src, "ResourceSlice " + name), obj, name, it))
    return dict(resource_claims=frozen_map(claims), claim_templates=frozen_map(templates),
                device_classes=frozen_map(classes), resource_slices=tuple(slices))


def pod_resource_claims(loc: Any, spec: dict, status: dict) -> Tuple[PodResourceClaim, ...]:
    """`spec.resourceClaims` joined with `status.resourceClaimStatuses` (the generated names)."""
    fz = fields
    raw = spec.get("resourceClaims")
    if raw is None:
        return ()
    generated: Dict[str, str] = {}
    for i, s in enumerate(fz._seq(loc, status, "resourceClaimStatuses", "status.resourceClaimStatuses")):
        p = "status.resourceClaimStatuses[%d]" % i
        s = fz._item_map(loc, s, p)
        generated[fz._str(loc, s, "name", p + ".name")] = fz._str(loc, s, "resourceClaimName", p + ".resourceClaimName")
    out = []
    for i, c in enumerate(fz._seq(loc, spec, "resourceClaims", "spec.resourceClaims")):
        p = "spec.resourceClaims[%d]" % i
        c = fz._item_map(loc, c, p)
        name = fz._str(loc, c, "name", p + ".name")
        claim = fz._str(loc, c, "resourceClaimName", p + ".resourceClaimName")
        template = fz._str(loc, c, "resourceClaimTemplateName", p + ".resourceClaimTemplateName")
        if bool(claim) == bool(template):
            raise loc.error(p, "exactly one of resourceClaimName and resourceClaimTemplateName must be set")
        out.append(PodResourceClaim(name, claim, template, generated.get(name, "")))
    return tuple(out)

