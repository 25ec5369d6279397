"""The bad-input corpus: every input a new user might give that is not a valid plan request, run
through the installed console script `kubectl-evictplan`.

Each row asserts what the user sees: the exit code (1 bad input, 2 bad usage), exactly one
`error:` line on stderr naming the file, object and field (or the flag), no traceback, and
nothing planned on stdout. The rows follow issue 14's table, then malformed documents, wrong
types, bad quantities, bad thresholds, unknown nodes and flag misuse. Where the API server
would refuse an object (negative requests, priority outside int32, a PDB selector with an
unknown operator) the message follows its validation (pkg/apis/core/validation).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

from conftest import NOW, node, pod, snapshot_list

SCRIPT = str(Path(sys.executable).parent / "kubectl-evictplan") \
    if (Path(sys.executable).parent / "kubectl-evictplan").exists() else shutil.which("kubectl-evictplan")


def run(args: List[str], cwd: Path, stdin: Optional[str] = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items()
           if k not in ("KUBECONFIG", "EVICTPLAN_DEBUG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT")}
    env["HOME"] = str(cwd)         # no ~/.kube/config: nothing can reach a cluster by accident
    return subprocess.run([SCRIPT, *args], capture_output=True, text=True, cwd=str(cwd), env=env, input=stdin,
                          timeout=120)


# --- building blocks ---------------------------------------------------------------------------

def good() -> List[dict]:
    return [node("n1"), node("n2"), pod("web-1", "n1", ns="shop"), pod("web-2", "n2", ns="shop")]


def doc(*items: dict) -> str:
    return json.dumps(snapshot_list(*items))


def with_pod(mutate: Callable[[dict], None]) -> str:
    p = pod("web-1", "n1", ns="shop")
    mutate(p)
    return doc(node("n1"), node("n2"), p)


def with_node(mutate: Callable[[dict], None]) -> str:
    n = node("n1")
    mutate(n)
    return doc(n, node("n2"), pod("web-1", "n2", ns="shop"))


def resources(kind: str, name: str, value: Any) -> Callable[[dict], None]:
    def m(p: dict) -> None:
        p["spec"]["containers"][0]["resources"].setdefault(kind, {})[name] = value
    return m


def spec(key: str, value: Any) -> Callable[[dict], None]:
    def m(p: dict) -> None:
        p["spec"][key] = value
    return m


def status(key: str, name: str, value: Any) -> Callable[[dict], None]:
    def m(n: dict) -> None:
        n["status"][key][name] = value
    return m


def pdb(selector: dict) -> str:
    return doc(node("n1"), node("n2"), pod("web-1", "n1", ns="shop"),
               {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web", "namespace": "shop"},
                "spec": {"minAvailable": 1, "selector": selector}})


GOOD = doc(*good())
RAW_NAN = ('{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n1"}, '
           '"status": {"capacity": {"cpu": %s}}}]}')
RAW_CONFIGZ = json.dumps({"kubeletconfig": {"evictionHard": {"memory.available": "100Mi"}}})


def kubelet_config(**config: Any) -> str:
    """GOOD plus n1's NodeKubeletConfig holding `config`."""
    return doc(*good(), {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n1"},
                         "kubeletconfig": config})


PRIORITY_CLASS = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "huge"},
                  "value": 10 ** 12}

# (id, files {name: content; a name ending in / is a directory}, args, exit code, fragments of the error line)
Case = Tuple[str, Dict[str, Optional[str]], List[str], int, List[str]]
CASES: List[Case] = [
    # ---- issue 14's table ----------------------------------------------------------------
    ("json-nan", {"c.json": RAW_NAN % "NaN"}, ["-f", "c.json", "drain", "n1"], 1, ["c.json", "NaN is not valid JSON"]),
    ("json-infinity", {"c.json": RAW_NAN % "Infinity"}, ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "Infinity is not valid JSON"]),
    ("json-minus-infinity", {"c.json": RAW_NAN % "-Infinity"}, ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "-Infinity is not valid JSON"]),
    ("threshold-overflow", {"c.json": GOOD}, ["-f", "c.json", "pressure", "--eviction-hard", "memory.available<1e400"], 1,
     ["--eviction-hard", "out of range", "1e400"]),
    ("request-memory-negative", {"c.json": with_pod(resources("requests", "memory", "-500Gi"))},
     ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "Pod shop/web-1", "spec.containers[0].resources.requests.memory", "greater than or equal to 0"]),
    ("request-cpu-absurd", {"c.json": with_pod(resources("requests", "cpu", "1e30"))}, ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "Pod shop/web-1", "spec.containers[0].resources.requests.cpu", "too large"]),
    ("limit-cpu-negative", {"c.json": with_pod(resources("limits", "cpu", "-1"))}, ["-f", "c.json", "drain", "n1"], 1,
     ["Pod shop/web-1", "spec.containers[0].resources.limits.cpu", "greater than or equal to 0"]),
    ("limit-memory-absurd", {"c.json": with_pod(resources("limits", "memory", "1e40"))}, ["-f", "c.json", "drain", "n1"],
     1, ["Pod shop/web-1", "spec.containers[0].resources.limits.memory", "too large"]),
    ("capacity-negative", {"c.json": with_node(status("capacity", "memory", "-500Gi"))}, ["-f", "c.json", "drain", "n1"],
     1, ["c.json", "Node n1", "status.capacity.memory", "greater than or equal to 0"]),
    ("allocatable-absurd", {"c.json": with_node(status("allocatable", "cpu", "1e30"))}, ["-f", "c.json", "drain", "n1"],
     1, ["c.json", "Node n1", "status.allocatable.cpu", "too large"]),
    ("allocatable-negative-pods", {"c.json": with_node(status("allocatable", "pods", -3))},
     ["-f", "c.json", "drain", "n1"], 1, ["Node n1", "status.allocatable.pods", "greater than or equal to 0"]),
    ("overhead-negative", {"c.json": with_pod(spec("overhead", {"cpu": "-250m"}))}, ["-f", "c.json", "drain", "n1"], 1,
     ["Pod shop/web-1", "spec.overhead.cpu", "greater than or equal to 0"]),
    ("priority-1e300", {"c.json": with_pod(spec("priority", 1e300))}, ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "Pod shop/web-1", "spec.priority", "int32"]),
    ("priority-above-int32", {"c.json": with_pod(spec("priority", 3000000000))}, ["-f", "c.json", "drain", "n1"], 1,
     ["Pod shop/web-1", "spec.priority", "int32"]),
    ("priorityclass-above-int32", {"c.json": doc(node("n1"), PRIORITY_CLASS)}, ["-f", "c.json", "drain", "n1"], 1,
     ["PriorityClass huge", "value", "int32"]),
    ("tgps-negative", {"c.json": with_pod(spec("terminationGracePeriodSeconds", -30))}, ["-f", "c.json", "drain", "n1"],
     1, ["c.json", "Pod shop/web-1", "spec.terminationGracePeriodSeconds", "greater than or equal to 0"]),
    ("pdb-unknown-operator",
     {"c.json": pdb({"matchExpressions": [{"key": "app", "operator": "Within", "values": ["web"]}]})},
     ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "PodDisruptionBudget shop/web", "spec.selector.matchExpressions[0].operator", "Within"]),
    ("pdb-in-without-values", {"c.json": pdb({"matchExpressions": [{"key": "app", "operator": "In", "values": []}]})},
     ["-f", "c.json", "drain", "n1"], 1, ["PodDisruptionBudget shop/web", "spec.selector.matchExpressions[0].values"]),
    ("empty-file", {"c.json": ""}, ["-f", "c.json", "drain", "n1"], 1, ["c.json", "no Kubernetes objects found"]),
    ("whitespace-yaml", {"c.yaml": "  \n\n   \n"}, ["-f", "c.yaml", "drain", "n1"], 1,
     ["c.yaml", "no Kubernetes objects found"]),
    ("yaml-only-separators", {"c.yaml": "---\n---\n"}, ["-f", "c.yaml", "drain", "n1"], 1,
     ["c.yaml", "no Kubernetes objects found"]),
    ("empty-directory", {"snap/": None}, ["-f", "snap", "drain", "n1"], 1, ["snap", "no Kubernetes objects found"]),
    ("directory-without-manifests", {"snap/": None, "snap/README.txt": "hello"}, ["-f", "snap", "drain", "n1"], 1,
     ["snap", "no Kubernetes objects found", "*.yaml"]),
    ("directory-of-empty-files", {"snap/": None, "snap/a.yaml": "", "snap/b.json": " "}, ["-f", "snap", "drain", "n1"],
     1, ["snap", "no Kubernetes objects found in any of its files"]),
    ("empty-stdin", {}, ["-f", "-", "drain", "n1"], 1, ["<stdin>", "no Kubernetes objects found"]),
    ("raw-configz", {"c.json": GOOD, "configz.json": RAW_CONFIGZ}, ["-f", "c.json", "-f", "configz.json", "pressure"], 1,
     ["configz.json", "/configz", "--kubelet-config"]),
    ("pod-startup-absurd", {"c.json": GOOD}, ["-f", "c.json", "drain", "n1", "--pod-startup", "99999999999999h"], 1,
     ["--pod-startup", "more than a year"]),
    ("shutdown-grace-absurd", {"c.json": GOOD}, ["-f", "c.json", "shutdown", "n1", "--grace-period", "9999999999999999h"],
     1, ["--grace-period", "more than a year"]),
    ("max-pod-grace-negative", {"c.json": GOOD}, ["-f", "c.json", "pressure", "--eviction-max-pod-grace-period", "-10"], 1,
     ["--eviction-max-pod-grace-period", "-10"]),
    ("label-and-unlabel", {"c.json": GOOD}, ["-f", "c.json", "affinity", "--label", "n1:a=b", "--unlabel", "n1:a"], 2,
     ["--label n1:a=b", "--unlabel n1:a", "contradict"]),
    ("demo-and-file", {"c.json": GOOD}, ["--demo", "-f", "c.json", "drain", "n1"], 2, ["--demo", "-f", "contradict"]),
    # ---- malformed documents ---------------------------------------------------------------
    ("json-truncated", {"c.json": '{"kind": "List", "items": ['}, ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "invalid JSON"]),
    ("yaml-broken", {"c.yaml": "items: [\n"}, ["-f", "c.yaml", "drain", "n1"], 1, ["c.yaml", "invalid YAML", "line"]),
    ("yaml-not-utf8", {"c.yaml": None}, ["-f", "c.yaml", "drain", "n1"], 1, ["c.yaml", "not UTF-8"]),
    ("top-level-string", {"c.json": '"nodes"'}, ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "expected a Kubernetes object"]),
    ("list-items-not-objects", {"c.json": '{"apiVersion": "v1", "kind": "List", "items": [1]}'},
     ["-f", "c.json", "drain", "n1"], 1, ["c.json", "items[0]", "not an object"]),
    ("list-items-not-a-list", {"c.json": '{"apiVersion": "v1", "kind": "List", "items": {"a": 1}}'},
     ["-f", "c.json", "drain", "n1"], 1, ["c.json", "items", "must be a list"]),
    ("missing-file", {}, ["-f", "nope.json", "drain", "n1"], 1, ["nope.json", "no such file"]),
    # RFC 8259 section 8.2: an unpaired surrogate escape encodes no character (msgspec and the
    # YAML reader refuse it); Python's json kept it, and printing the plan failed with
    # 'internal error: UnicodeEncodeError'
    ("json-lone-surrogate", {"c.json": GOOD.replace('"web-1"', '"web-\\ud800"', 1)}, ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "items[", "].metadata.name", "unpaired UTF-16 surrogate \\ud800"]),
    ("json-lone-low-surrogate", {"c.json": GOOD.replace('"n2"', '"n\\udc00"', 1)}, ["-f", "c.json", "controller"], 1,
     ["c.json", "unpaired UTF-16 surrogate \\udc00", "line 1"]),
    # Python refuses int() of more than 4300 digits (CVE-2020-10735) with advice about
    # sys.set_int_max_str_digits(); YAML ended in 'internal error: ValueError'
    ("json-number-5001-digits", {"c.json": RAW_NAN % ("1" + "0" * 5000)}, ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "invalid JSON: a number of 5001 digits at line 1", "no Kubernetes field holds one"]),
    ("yaml-number-5001-digits", {"c.yaml": "kind: Node\nmetadata: {name: n1}\nstatus: {capacity: {pods: 1%s}}\n" % ("0" * 5000)},
     ["-f", "c.yaml", "drain", "n1"], 1, ["c.yaml", "invalid YAML (line 3, column 27)", "a number of 5001 digits"]),
    # ---- wrong types -----------------------------------------------------------------------
    ("kind-is-number", {"c.json": '{"kind": 5, "metadata": {"name": "x"}}'}, ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "kind", "expected a string"]),
    ("metadata-is-list", {"c.yaml": "kind: Pod\nmetadata: [1, 2]\n"}, ["-f", "c.yaml", "drain", "n1"], 1,
     ["c.yaml", "Pod", "metadata", "expected an object"]),
    ("pod-without-name", {"c.json": with_pod(lambda p: p["metadata"].pop("name"))}, ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "metadata.name", "without a name"]),
    ("containers-is-object", {"c.json": with_pod(spec("containers", {"name": "app"}))}, ["-f", "c.json", "drain", "n1"],
     1, ["Pod shop/web-1", "spec.containers", "expected a list"]),
    ("label-value-number", {"c.json": with_node(lambda n: n["metadata"]["labels"].update(rack=5))},
     ["-f", "c.json", "drain", "n1"], 1, ["Node n1", "metadata.labels.rack", "must be a string"]),
    ("tgps-is-string", {"c.json": with_pod(spec("terminationGracePeriodSeconds", "thirty"))},
     ["-f", "c.json", "drain", "n1"], 1, ["Pod shop/web-1", "spec.terminationGracePeriodSeconds", "expected an integer"]),
    ("taint-effect-unknown", {"c.json": with_node(lambda n: n["spec"].update(taints=[{"key": "a", "effect": "Maybe"}]))},
     ["-f", "c.json", "drain", "n1"], 1, ["Node n1", "spec.taints[0].effect", "Maybe"]),
    # tolerations the API server refuses (ValidateTolerations, pkg/apis/core/validation/validation.go)
    ("toleration-operator-unknown", {"c.json": with_pod(spec("tolerations", [{"key": "a", "operator": "Within"}]))},
     ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "Pod shop/web-1", "spec.tolerations[0].operator", 'Unsupported value: "Within"']),
    ("toleration-operator-lower-case", {"c.json": with_pod(spec("tolerations", [{"key": "a", "operator": "exists"}]))},
     ["-f", "c.json", "drain", "n1"], 1, ["Pod shop/web-1", "spec.tolerations[0].operator", '"exists"']),
    ("toleration-empty-key-equal", {"c.json": with_pod(spec("tolerations", [{"operator": "Equal", "value": "x"}]))},
     ["-f", "c.json", "drain", "n1"], 1, ["Pod shop/web-1", "spec.tolerations[0].operator", "must be Exists when `key` is empty"]),
    ("toleration-exists-with-value",
     {"c.json": with_pod(spec("tolerations", [{"key": "a", "operator": "Exists", "value": "x"}]))},
     ["-f", "c.json", "drain", "n1"], 1, ["Pod shop/web-1", "spec.tolerations[0].value", "value must be empty"]),
    ("toleration-seconds-not-noexecute",
     {"c.json": with_pod(spec("tolerations", [{"key": "a", "operator": "Exists", "effect": "NoSchedule",
                                                "tolerationSeconds": 60}]))},
     ["-f", "c.json", "drain", "n1"], 1, ["Pod shop/web-1", "spec.tolerations[0].effect", "must be 'NoExecute'"]),
    ("toleration-seconds-beyond-int64",
     {"c.json": with_pod(spec("tolerations", [{"key": "a", "operator": "Exists", "effect": "NoExecute",
                                                "tolerationSeconds": 2 ** 64}]))},
     ["-f", "c.json", "controller", "--fail", "n1"], 1,
     ["Pod shop/web-1", "spec.tolerations[0].tolerationSeconds", "int64"]),
    ("toleration-seconds-string",
     {"c.json": with_pod(spec("tolerations", [{"key": "a", "operator": "Exists", "effect": "NoExecute",
                                                "tolerationSeconds": "300"}]))},
     ["-f", "c.json", "controller", "--fail", "n1"], 1,
     ["Pod shop/web-1", "spec.tolerations[0].tolerationSeconds", "expected an integer"]),
    ("toleration-key-invalid", {"c.json": with_pod(spec("tolerations", [{"key": "a b", "operator": "Exists"}]))},
     ["-f", "c.json", "drain", "n1"], 1, ["Pod shop/web-1", "spec.tolerations[0].key", "'a b'"]),
    ("toleration-value-invalid", {"c.json": with_pod(spec("tolerations", [{"key": "a", "value": "b c"}]))},
     ["-f", "c.json", "drain", "n1"], 1, ["Pod shop/web-1", "spec.tolerations[0].value", "'b c'"]),
    ("kind-is-object-in-list",
     {"c.json": json.dumps({"apiVersion": "v1", "kind": "List", "items": [node("n1"), {"kind": {"a": "b"},
                                                                                        "metadata": {"name": "x"}}]})},
     ["-f", "c.json", "drain", "n1"], 1, ["c.json", "items[1]", "kind", "expected a string, found an object"]),
    ("kind-is-list-in-typed-list",
     {"c.json": json.dumps({"apiVersion": "v1", "kind": "PodList", "items": [{"kind": ["Pod"], "metadata": {"name": "x"}}]})},
     ["-f", "c.json", "drain", "n1"], 1, ["c.json", "items[0]", "kind", "expected a string, found a list"]),
    # label selector operators ValidateLabelSelectorRequirement refuses (apimachinery
    # pkg/apis/meta/v1/validation): the scheduler could not parse such a term
    ("pod-anti-affinity-operator-lower-case",
     {"c.json": with_pod(spec("affinity", {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
         {"labelSelector": {"matchExpressions": [{"key": "app", "operator": "in", "values": ["web"]}]},
          "topologyKey": "kubernetes.io/hostname"}]}}))},
     ["-f", "c.json", "drain", "n1"], 1,
     ["Pod shop/web-1", "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
      ".labelSelector.matchExpressions[0].operator", 'Unsupported value: "in"']),
    ("spread-selector-operator-gt",
     {"c.json": with_pod(spec("topologySpreadConstraints", [
         {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
          "labelSelector": {"matchExpressions": [{"key": "app", "operator": "Gt", "values": ["1"]}]}}]))},
     ["-f", "c.json", "drain", "n1"], 1,
     ["Pod shop/web-1", "spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].operator", '"Gt"']),
    # topology spread constraints the API server refuses (validateTopologySpreadConstraints,
    # pkg/apis/core/validation/validation.go): PodTopologySpread counted skew against them
    ("spread-max-skew-zero",
     {"c.json": with_pod(spec("topologySpreadConstraints", [
         {"maxSkew": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]))},
     ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "Pod shop/web-1", "spec.topologySpreadConstraints[0].maxSkew", "Invalid value: 0: must be greater than zero"]),
    ("spread-no-topology-key",
     {"c.json": with_pod(spec("topologySpreadConstraints", [{"maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"}]))},
     ["-f", "c.json", "drain", "n1"], 1,
     ["Pod shop/web-1", "spec.topologySpreadConstraints[0].topologyKey", "Required value: can not be empty"]),
    ("spread-min-domains-zero",
     {"c.json": with_pod(spec("topologySpreadConstraints", [
         {"maxSkew": 1, "minDomains": 0, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]))},
     ["-f", "c.json", "drain", "n1"], 1,
     ["Pod shop/web-1", "spec.topologySpreadConstraints[0].minDomains", "Invalid value: 0: must be greater than zero"]),
    ("spread-node-taints-policy-unknown",
     {"c.json": with_pod(spec("topologySpreadConstraints", [
         {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "nodeTaintsPolicy": "Respect"}]))},
     ["-f", "c.json", "drain", "n1"], 1,
     ["Pod shop/web-1", "spec.topologySpreadConstraints[0].nodeTaintsPolicy",
      'Unsupported value: "Respect": supported values: "Honor", "Ignore"']),
    # node taints the API server refuses (validateNodeTaints, pkg/apis/core/validation/validation.go)
    ("taint-key-invalid", {"c.json": with_node(lambda n: n["spec"].update(taints=[{"key": "a b", "effect": "NoSchedule"}]))},
     ["-f", "c.json", "drain", "n2"], 1, ["c.json", "Node n1", "spec.taints[0].key", "'a b'"]),
    ("taint-value-invalid",
     {"c.json": with_node(lambda n: n["spec"].update(taints=[{"key": "a", "value": "b c", "effect": "NoSchedule"}]))},
     ["-f", "c.json", "drain", "n2"], 1, ["Node n1", "spec.taints[0].value", "'b c'"]),
    ("taint-duplicate-key-effect",
     {"c.json": with_node(lambda n: n["spec"].update(taints=[{"key": "a", "effect": "NoExecute"},
                                                             {"key": "a", "value": "x", "effect": "NoExecute"}]))},
     ["-f", "c.json", "controller"], 1, ["Node n1", "spec.taints[1]", "unique by key and effect"]),
    # ---- bad quantities ----------------------------------------------------------------------
    ("quantity-word", {"c.json": with_pod(resources("requests", "cpu", "lots"))}, ["-f", "c.json", "drain", "n1"], 1,
     ["Pod shop/web-1", "spec.containers[0].resources.requests.cpu", "invalid quantity", "lots"]),
    ("quantity-two-dots", {"c.json": with_node(status("capacity", "memory", "1.5.5Gi"))}, ["-f", "c.json", "drain", "n1"],
     1, ["Node n1", "status.capacity.memory", "1.5.5Gi"]),
    ("quantity-yaml-nan", {"c.yaml": "kind: Node\nmetadata: {name: n1}\nstatus: {capacity: {cpu: .nan}}\n"},
     ["-f", "c.yaml", "drain", "n1"], 1, ["c.yaml", "Node n1", "status.capacity.cpu", "invalid quantity"]),
    ("quantity-boolean", {"c.json": with_pod(resources("requests", "memory", True))}, ["-f", "c.json", "drain", "n1"], 1,
     ["Pod shop/web-1", "spec.containers[0].resources.requests.memory"]),
    # an emptyDir sizeLimit of 1e400 (inf to a JSON reader) was 'internal error: ValueError';
    # a negative one is refused by validateVolumeSource and was planned as a 0-byte limit
    ("emptydir-size-limit-overflow",
     {"c.json": with_pod(spec("volumes", [{"name": "scratch", "emptyDir": {"sizeLimit": 1e300}}])).replace("1e+300", "1e400")},
     ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "Pod shop/web-1", "spec.volumes[0].emptyDir.sizeLimit", "invalid quantity"]),
    ("emptydir-size-limit-negative",
     {"c.json": with_pod(spec("volumes", [{"name": "scratch", "emptyDir": {"sizeLimit": "-1Gi"}}]))},
     ["-f", "c.json", "drain", "n1"], 1,
     ["Pod shop/web-1", "spec.volumes[0].emptyDir.sizeLimit", "must be greater than or equal to 0"]),
    # apps/v1 and batch/v1 counts are *int32: 2**40 replicas does not decode (it was planned)
    ("replicas-beyond-int32",
     {"c.json": doc(node("n1"), {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"},
                                 "spec": {"replicas": 2 ** 40, "selector": {"matchLabels": {"app": "web"}}}})},
     ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "Deployment shop/web", "spec.replicas", "out of the int32 range"]),
    ("parallelism-beyond-int32",
     {"c.json": doc(node("n1"), {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "etl", "namespace": "shop"},
                                 "spec": {"parallelism": 2 ** 31}})},
     ["-f", "c.json", "drain", "n1"], 1, ["Job shop/etl", "spec.parallelism", "2147483648 is out of the int32 range"]),
    # PersistentVolume capacity and PersistentVolumeClaim requests go through the same check as
    # pod requests (ValidateResourceQuantityValue): 1e400 (inf to a JSON reader) ended in
    # 'internal error: ValueError', a negative capacity was planned
    ("pv-capacity-negative",
     {"c.json": doc(node("n1"), {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv1"},
                                 "spec": {"capacity": {"storage": "-5Gi"}}})},
     ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "PersistentVolume pv1", "spec.capacity.storage", "must be greater than or equal to 0"]),
    ("pvc-request-overflow",
     {"c.json": doc(node("n1"), {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                 "metadata": {"name": "data", "namespace": "shop"},
                                 "spec": {"resources": {"requests": {"storage": 1e300}}}}).replace("1e+300", "1e400")},
     ["-f", "c.json", "drain", "n1"], 1,
     ["c.json", "PersistentVolumeClaim shop/data", "spec.resources.requests.storage", "invalid quantity"]),
    # ---- bad thresholds and kubelet flags ---------------------------------------------------
    ("threshold-unknown-signal", {"c.json": GOOD}, ["-f", "c.json", "pressure", "--eviction-hard", "cpu.available<1"], 1,
     ["--eviction-hard", "cpu.available"]),
    ("threshold-negative", {"c.json": GOOD}, ["-f", "c.json", "pressure", "--eviction-hard", "memory.available<-1Gi"], 1,
     ["--eviction-hard", "must be positive"]),
    ("threshold-percent-over-100", {"c.json": GOOD},
     ["-f", "c.json", "pressure", "--eviction-hard", "nodefs.available<150%"], 1, ["--eviction-hard", "100%"]),
    ("minimum-reclaim-overflow", {"c.json": GOOD},
     ["-f", "c.json", "pressure", "--eviction-minimum-reclaim", "memory.available=1e400"], 1,
     ["--eviction-minimum-reclaim", "out of range"]),
    ("soft-grace-bad", {"c.json": GOOD},
     ["-f", "c.json", "pressure", "--eviction-soft-grace-period", "memory.available=soon"], 1,
     ["--eviction-soft-grace-period", "soon"]),
    ("max-pod-grace-word", {"c.json": GOOD}, ["-f", "c.json", "pressure", "--eviction-max-pod-grace-period", "ten"], 1,
     ["--eviction-max-pod-grace-period", "ten"]),
    ("signal-malformed", {"c.json": GOOD}, ["-f", "c.json", "pressure", "--signal", "n1-memory"], 1,
     ["--signal", "NODE:SIGNAL=QUANTITY"]),
    ("signal-overflow", {"c.json": GOOD}, ["-f", "c.json", "pressure", "--signal", "n1:memory.available=1e400"], 1,
     ["--signal", "out of range"]),
    ("controller-int32", {"c.json": GOOD},
     ["-f", "c.json", "controller", "--large-cluster-size-threshold", "99999999999999999999"], 1,
     ["--large-cluster-size-threshold", "2147483647"]),
    # kubelet configuration: the kubelet refuses a negative reservation (parseResourceList,
    # cmd/kubelet/app/server.go); one beyond int64 fits no node; errors name JSON types
    ("kube-reserved-memory-absurd", {"c.json": kubelet_config(kubeReserved={"memory": "1e400"})},
     ["-f", "c.json", "pressure", "n1"], 1,
     ["c.json", "NodeKubeletConfig n1", "kubeletconfig.kubeReserved.memory", "too large"]),
    ("system-reserved-memory-negative", {"c.json": kubelet_config(systemReserved={"memory": "-1Gi"})},
     ["-f", "c.json", "pressure", "n1"], 1,
     ["NodeKubeletConfig n1", "kubeletconfig.systemReserved.memory", "cannot be negative"]),
    ("kube-reserved-memory-list", {"c.json": kubelet_config(kubeReserved={"memory": ["1Gi"]})},
     ["-f", "c.json", "pressure", "n1"], 1,
     ["NodeKubeletConfig n1", "kubeletconfig.kubeReserved.memory", "found a list"]),
    ("shutdown-grace-list", {"c.json": kubelet_config(shutdownGracePeriod=["30s"])},
     ["-f", "c.json", "shutdown", "n1"], 1,
     ["NodeKubeletConfig n1", "kubeletconfig.shutdownGracePeriod", "not a list"]),
    ("shutdown-by-priority-seconds-list",
     {"c.json": kubelet_config(shutdownGracePeriodByPodPriority=[{"priority": 0, "shutdownGracePeriodSeconds": ["a"]}])},
     ["-f", "c.json", "shutdown", "n1"], 1,
     ["NodeKubeletConfig n1", "shutdownGracePeriodByPodPriority[0].shutdownGracePeriodSeconds", "found a list"]),
    # KubeletConfiguration's evictionHard/evictionSoft/... are map[string]string and
    # evictionMaxPodGracePeriod an int32: the kubelet's strict decoding refuses a number, a
    # string, a fraction or an int32 overflow where we read `100` as "100" and "30" as 30
    ("eviction-hard-value-number", {"c.json": kubelet_config(evictionHard={"memory.available": 100})},
     ["-f", "c.json", "pressure", "n1"], 1,
     ["c.json", "NodeKubeletConfig n1", "kubeletconfig.evictionHard.memory.available", "expected a string, found number 100"]),
    ("eviction-soft-grace-value-object",
     {"c.json": kubelet_config(evictionSoft={"memory.available": "1Gi"}, evictionSoftGracePeriod={"memory.available": {"s": 30}})},
     ["-f", "c.json", "pressure", "n1"], 1,
     ["NodeKubeletConfig n1", "kubeletconfig.evictionSoftGracePeriod.memory.available", "expected a string, found an object"]),
    ("max-pod-grace-string", {"c.json": kubelet_config(evictionMaxPodGracePeriod="30")},
     ["-f", "c.json", "pressure", "n1"], 1,
     ["NodeKubeletConfig n1", "kubeletconfig.evictionMaxPodGracePeriod", "expected an integer number of seconds, found string '30'"]),
    ("max-pod-grace-fraction", {"c.json": kubelet_config(evictionMaxPodGracePeriod=1.5)},
     ["-f", "c.json", "pressure", "n1"], 1,
     ["NodeKubeletConfig n1", "kubeletconfig.evictionMaxPodGracePeriod", "found number 1.5"]),
    ("max-pod-grace-beyond-int32", {"c.json": kubelet_config(evictionMaxPodGracePeriod=2 ** 31)},
     ["-f", "c.json", "pressure", "n1"], 1,
     ["NodeKubeletConfig n1", "kubeletconfig.evictionMaxPodGracePeriod", "2147483648 is out of the int32 range"]),
    # time.ParseDuration refuses more than int64 nanoseconds (the kubelet does not start), and
    # shutdownGracePeriodSeconds is an int64: both were planned as an 11-million-year shutdown
    ("shutdown-grace-beyond-go", {"c.json": kubelet_config(shutdownGracePeriod="99999999999h")},
     ["-f", "c.json", "shutdown", "n1"], 1,
     ["c.json", "NodeKubeletConfig n1", "kubeletconfig.shutdownGracePeriod", "invalid duration '99999999999h'",
      "more than Go's maximum duration"]),
    ("shutdown-by-priority-seconds-beyond-int64",
     {"c.json": kubelet_config(shutdownGracePeriodByPodPriority=[{"priority": 0, "shutdownGracePeriodSeconds": 2 ** 63}])},
     ["-f", "c.json", "shutdown", "n1"], 1,
     ["NodeKubeletConfig n1", "shutdownGracePeriodByPodPriority[0].shutdownGracePeriodSeconds", "int64 range"]),
    ("transition-period-beyond-go", {"c.json": kubelet_config(evictionPressureTransitionPeriod="99999999999h")},
     ["-f", "c.json", "pressure", "n1"], 1,
     ["NodeKubeletConfig n1", "kubeletconfig.evictionPressureTransitionPeriod", 'time: invalid duration "99999999999h"']),
    ("max-pod-grace-object", {"c.json": kubelet_config(evictionMaxPodGracePeriod={"s": 1})},
     ["-f", "c.json", "pressure", "n1"], 1,
     ["NodeKubeletConfig n1", "kubeletconfig.evictionMaxPodGracePeriod", "found an object"]),
    ("enforce-node-allocatable-boolean", {"c.json": kubelet_config(enforceNodeAllocatable=True)},
     ["-f", "c.json", "pressure", "n1"], 1,
     ["NodeKubeletConfig n1", "kubeletconfig.enforceNodeAllocatable", "expected a list of strings, found boolean true"]),
    ("kubeletconfig-is-a-string",
     {"c.json": doc(*good(), {"apiVersion": "evictplan/v1alpha1", "kind": "NodeKubeletConfig", "metadata": {"name": "n1"},
                              "kubeletconfig": "evictionHard"})},
     ["-f", "c.json", "pressure", "n1"], 1,
     ["c.json", "NodeKubeletConfig n1", "kubeletconfig", "expected an object, found string 'evictionHard'"]),
    ("kubelet-config-missing", {"c.json": GOOD}, ["-f", "c.json", "pressure", "--kubelet-config", "nope.yaml"], 1,
     ["nope.yaml"]),
    # an empty path (an unset shell variable) was taken as no flag: planned with the node's config
    ("kubelet-config-empty-path", {"c.json": GOOD}, ["-f", "c.json", "pressure", "--kubelet-config", ""], 1,
     ["--kubelet-config", "no such file or directory"]),
    ("shutdown-kubelet-config-empty-path", {"c.json": GOOD}, ["-f", "c.json", "shutdown", "n1", "--kubelet-config", ""], 1,
     ["--kubelet-config", "no such file or directory"]),
    # ---- unknown nodes -----------------------------------------------------------------------
    ("drain-unknown-node", {"c.json": GOOD}, ["-f", "c.json", "drain", "ghost"], 1, ['node "ghost" not found']),
    ("affinity-unknown-node", {"c.json": GOOD}, ["-f", "c.json", "affinity", "--label", "ghost:a=b"], 1,
     ["--label", "ghost"]),
    ("selector-matches-nothing", {"c.json": GOOD}, ["-f", "c.json", "drain", "-l", "pool=none"], 1,
     ["--selector", "pool=none"]),
    # a pod list alone (a support bundle, `kubectl get pods -o json`): the nodes were left out,
    # not the one named; every command says so
    ("drain-pods-only", {"p.json": json.dumps({"apiVersion": "v1", "kind": "List", "items": [pod("web-1", "n1")]})},
     ["-f", "p.json", "drain", "n1"], 1,
     ['node "n1" not found in the snapshot; the input holds no Node objects: give them too, e.g. kubectl get nodes']),
    ("shutdown-pods-only", {"p.json": json.dumps({"apiVersion": "v1", "kind": "List", "items": [pod("web-1", "n1")]})},
     ["-f", "p.json", "shutdown", "n1"], 1, ["unknown node 'n1' (not in the snapshot; the input holds no Node objects"]),
    # ---- durations and numbers in flags -------------------------------------------------------
    ("shutdown-grace-unit", {"c.json": GOOD}, ["-f", "c.json", "shutdown", "n1", "--grace-period", "30x"], 1,
     ["--grace-period", "30x"]),
    ("controller-horizon-absurd", {"c.json": GOOD}, ["-f", "c.json", "controller", "--horizon", "10000h"], 1,
     ["--horizon", "more than a year"]),
    ("controller-rate-word", {"c.json": GOOD}, ["-f", "c.json", "controller", "--node-eviction-rate", "fast"], 1,
     ["--node-eviction-rate", "fast"]),
    ("now-empty", {"c.json": GOOD}, ["-f", "c.json", "--now", "", "drain", "n1"], 1, ["--now", "invalid RFC3339 timestamp ''"]),
    # labels.Parse (apimachinery selector.go): "found '', expected: identifier after ','"
    ("selector-trailing-comma", {"c.json": GOOD}, ["-f", "c.json", "drain", "-l", "kubernetes.io/hostname=n1,"], 1,
     ["--selector", "identifier after ','"]),
    ("pod-selector-trailing-comma", {"c.json": GOOD}, ["-f", "c.json", "drain", "n1", "--pod-selector", "app,"], 1,
     ["--pod-selector", "identifier after ','"]),
    ("now-garbage", {"c.json": GOOD}, ["-f", "c.json", "--now", "yesterday", "drain", "n1"], 1, ["--now", "yesterday"]),
    ("drain-grace-with-unit", {"c.json": GOOD}, ["-f", "c.json", "drain", "n1", "--grace-period", "30s"], 1,
     ["--grace-period", "whole seconds"]),
    ("drain-grace-below-minus-one", {"c.json": GOOD}, ["-f", "c.json", "drain", "n1", "--grace-period", "-5"], 1,
     ["--grace-period", "-1 or more"]),
    ("drain-chunk-size-negative", {"c.json": GOOD}, ["-f", "c.json", "drain", "n1", "--chunk-size", "-1"], 1,
     ["--chunk-size"]),
    ("drain-timeout-word", {"c.json": GOOD}, ["-f", "c.json", "drain", "n1", "--timeout", "forever"], 1,
     ["--timeout", "forever"]),
    ("drain-dry-run-unknown", {"c.json": GOOD}, ["-f", "c.json", "drain", "n1", "--dry-run=maybe"], 1,
     ["--dry-run", "none, client or server"]),
    ("pod-selector-invalid", {"c.json": GOOD}, ["-f", "c.json", "drain", "n1", "--pod-selector", "a in b"], 1,
     ["--pod-selector"]),
    ("timeout-without-apply", {"c.json": GOOD}, ["-f", "c.json", "affinity", "--timeout", "5m"], 1,
     ["--timeout", "only with --apply"]),
    # ---- usage (exit 2) ------------------------------------------------------------------------
    ("taint-and-untaint", {"c.json": GOOD},
     ["-f", "c.json", "affinity", "--taint", "n1:k:NoExecute", "--taint", "n1:k:NoExecute-"], 2, ["contradict"]),
    ("label-two-values", {"c.json": GOOD}, ["-f", "c.json", "affinity", "--label", "n1:a=b", "--label", "n1:a=c"], 2,
     ["contradict"]),
    ("dry-run-client-with-apply", {"c.json": GOOD}, ["-f", "c.json", "drain", "n1", "--dry-run=client", "--apply"], 2,
     ["--dry-run=client", "--apply"]),
    ("bool-flag-bad-value", {"c.json": GOOD}, ["-f", "c.json", "drain", "n1", "--force=maybe"], 2,
     ['"maybe"', "--force", "ParseBool"]),
    ("namespace-refused", {"c.json": GOOD}, ["-f", "c.json", "drain", "n1", "-n", "shop"], 2, ["namespace", "drain"]),
    ("connection-flag-with-file", {"c.json": GOOD}, ["-f", "c.json", "drain", "n1", "--as", "alice"], 2,
     ["--as", "-f"]),
    ("unknown-output", {"c.json": GOOD}, ["-f", "c.json", "-o", "xml", "drain", "n1"], 2, ["xml"]),
    ("no-command-args", {"c.json": GOOD}, ["-f", "c.json", "drain"], 2, ["NODE"]),
    ("unknown-flag", {"c.json": GOOD}, ["-f", "c.json", "drain", "n1", "--frce"], 2, ["--frce", "Did you mean '--force'"]),
]

_NOT_UTF8 = b"kind: Node\nmetadata: {name: \xff\xfe}\n"


def _materialize(tmp_path: Path, files: Dict[str, Optional[str]]) -> None:
    for name, content in files.items():
        p = tmp_path / name
        if name.endswith("/"):
            p.mkdir(parents=True, exist_ok=True)
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        if content is None:
            p.write_bytes(_NOT_UTF8)
        else:
            p.write_text(content)


def test_the_corpus_is_large_enough():
    assert len(CASES) >= 51
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("name,files,args,code,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_clean_error(tmp_path, name, files, args, code, fragments):
    _materialize(tmp_path, files)
    res = run(args, tmp_path, stdin="" if "-" in args else None)
    assert "Traceback" not in res.stderr and "internal error" not in res.stderr, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), res.stderr
    assert res.returncode == code, (res.returncode, lines[0])
    for frag in fragments:
        assert frag in lines[0], (frag, lines[0])
    assert res.stdout == ""          # nothing planned, nothing applied


def test_unknown_flags_never_suggest_a_writing_flag_or_another_meaning(tmp_path):
    (tmp_path / "c.json").write_text(GOOD)
    for flag in ("--aply", "--applyy", "--ye", "--yess", "--request-timout", "--timeoutt"):
        res = run(["-f", "c.json", "drain", "n1", flag], tmp_path)
        assert res.returncode == 2, res.stderr
        line = res.stderr.strip()
        assert "'--apply'" not in line and "'--yes'" not in line, line
    res = run(["-f", "c.json", "drain", "n1", "--request-timout", "5s"], tmp_path)
    assert "'--timeout'" not in res.stderr and "Did you mean '--request-timeout'?" in res.stderr
    res = run(["-f", "c.json", "shutdown", "n1", "--ignore-daemonsets"], tmp_path)   # drain's, not shutdown's
    assert res.returncode == 2 and "Did you mean" not in res.stderr


# --- accepted, with one warning ------------------------------------------------------------------

def _stats(node_name: str) -> dict:
    return {"apiVersion": "evictplan/v1alpha1", "kind": "NodeStatsSummary", "metadata": {"name": node_name},
            "summary": {"node": {"nodeName": node_name}, "pods": []}}


WARNINGS = [
    ("pods-on-missing-nodes", {"c.json": doc(*good(), pod("lost-1", "ghost-a"), pod("lost-2", "ghost-b"),
                                              pod("lost-3", "ghost-a"))},
     ["-f", "c.json", "drain", "n1", "--force"], ["3 pods", "2 nodes not in the snapshot", "ghost-a", "ghost-b"]),
    ("stats-for-missing-node", {"c.json": doc(*good(), _stats("ghost"))}, ["-f", "c.json", "pressure"],
     ["1 stats summary", "1 node not in the snapshot", "ghost"]),
    ("same-directory-twice", {"snap/": None, "snap/a.json": doc(*good()[:2]), "snap/b.json": doc(*good()[2:])},
     ["-f", "snap", "-f", "snap", "drain", "n1", "--force"], ["2 files given more than once"]),
    ("overlapping-captures", {"a.json": doc(*good()), "b.json": doc(*good())},
     ["-f", "a.json", "-f", "b.json", "drain", "n1", "--force"],
     # SnapshotInfo, n1, n2, web-1, web-2 and the ReplicaSet the pods name
     ["6 objects appear more than once", "Node n1", "the later one wins"]),
    ("now-years-before", {"c.json": GOOD}, ["-f", "c.json", "--now", "2001-01-01T00:00:00Z", "drain", "n1", "--force"],
     ["--now is", "years before the snapshot"]),
    ("untaint-absent", {"c.json": GOOD}, ["-f", "c.json", "affinity", "--taint", "n1:gone:NoExecute-"],
     ["n1:gone:NoExecute", "not on the node"]),
]


@pytest.mark.parametrize("name,files,args,fragments", WARNINGS, ids=[w[0] for w in WARNINGS])
def test_suspicious_input_is_planned_with_one_warning(tmp_path, name, files, args, fragments):
    _materialize(tmp_path, files)
    res = run(["-o", "json", *args], tmp_path)
    assert res.returncode in (0, 3, 4), res.stderr
    assert "Traceback" not in res.stderr
    warnings = json.loads(res.stdout)["warnings"]
    hits = [w for w in warnings if all(f in w for f in fragments)]
    assert len(hits) == 1, warnings


def test_same_directory_twice_plans_like_once(tmp_path):
    _materialize(tmp_path, {"snap/": None, "snap/a.json": doc(*good())})
    once = run(["-o", "json", "-f", "snap", "drain", "n1", "--force"], tmp_path)
    twice = run(["-o", "json", "-f", "snap", "-f", "snap", "drain", "n1", "--force"], tmp_path)
    a, b = json.loads(once.stdout), json.loads(twice.stdout)
    assert b["warnings"] == a["warnings"] + ["1 file given more than once (the same file or directory named twice); "
                                             "each was read once"]
    assert a["actions"] == b["actions"]


def test_a_little_before_the_snapshot_is_no_warning(tmp_path):
    (tmp_path / "c.json").write_text(GOOD)
    res = run(["-o", "json", "-f", "c.json", "--now", "2026-11-01T00:00:00Z", "drain", "n1", "--force"], tmp_path)
    assert not [w for w in json.loads(res.stdout)["warnings"] if "--now" in w]
