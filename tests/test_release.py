"""The release as users get it: the krew archive and manifest from tools/build_release.py, checked
against krew's own validation rules (krew internal/index/validation/validate.go and
cmd/validate-krew-manifest), installed the way `kubectl krew install` does it
(internal/installation: untar, apply `files`, link `bin`), and run through the real kubectl with
only the system python3; plus `pip install` of the repo and of a built wheel into a fresh venv.

Needs network access to PyPI the first time (the build pins wheels by sha256; downloads are cached
in the repo's build/wheels, outside git, and reused only while their sha256 matches the pins).
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import platform
import struct
import tarfile
from pathlib import Path
from typing import Dict, List, Tuple

import pytest
import yaml

from conftest import REPO, run_cli

import kubectl_evict

KUBECTL = shutil.which("kubectl")
CHECKOUT_IGNORE = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
                                         ".venv", ".ci-venv", "tests")
SUPPORTED = [(o, a) for o in ("linux", "darwin", "windows") for a in ("amd64", "arm64", "386", "arm", "ppc64le")]
WINDOWS_RESERVED = {"con", "prn", "aux", "nul"} | {"com%d" % i for i in range(1, 10)} | {"lpt%d" % i for i in range(1, 10)}
SEMVER = re.compile(r"^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _build(checkout: Path, dist: Path, manifest: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(checkout / "tools" / "build_release.py"), "--dist", str(dist), "--manifest", str(manifest), "--wheel-cache", str(cache), *extra],
                          capture_output=True, text=True, timeout=600, cwd=str(checkout))


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Dict[str, Path]:
    """Two independent builds from a clean copy of this tree (no build/ cache, no untracked
    outputs; same wheel cache for both, so the network is used once)."""
    root = tmp_path_factory.mktemp("release")
    cache, checkout = REPO / "build" / "wheels", root / "checkout"
    shutil.copytree(REPO, checkout, ignore=CHECKOUT_IGNORE)
    out: Dict[str, Path] = {"root": root, "cache": cache, "checkout": checkout}
    for i in (1, 2):
        manifest = root / ("template%d" % i) / "evictplan.yaml"
        manifest.parent.mkdir()
        shutil.copy(REPO / "krew" / "evictplan.yaml", manifest)
        res = _build(checkout, root / ("dist%d" % i), manifest, cache)
        assert res.returncode == 0, res.stderr
        assert res.stderr == ""
        out["dist%d" % i], out["manifest%d" % i] = root / ("dist%d" % i), manifest
    return out


PLATFORM_ARCHIVES = [("linux", "amd64"), ("linux", "arm64"), ("darwin", "amd64"), ("darwin", "arm64")]


def _archives(dist: Path) -> Dict[str, Path]:
    """{"pure" or "OS-ARCH": archive}: the five archives a build writes, and nothing else."""
    v = kubectl_evict.__version__
    want = {"pure": "kubectl-evictplan-v%s.tar.gz" % v}
    want.update({"%s-%s" % p: "kubectl-evictplan-v%s-%s-%s.tar.gz" % ((v,) + p) for p in PLATFORM_ARCHIVES})
    assert sorted(p.name for p in dist.glob("*.tar.gz")) == sorted(want.values())
    return {k: dist / n for k, n in want.items()}


def _archive(dist: Path) -> Path:
    return _archives(dist)["pure"]


def _machine() -> Tuple[str, str]:
    """This machine as krew names it (GOOS, GOARCH)."""
    arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower(),
                                                                                           platform.machine().lower())
    return sys.platform, arch


# --- krew's validation rules -------------------------------------------------------------------

def _selector_matches(sel: dict, labels: Dict[str, str]) -> bool:
    for k, v in (sel.get("matchLabels") or {}).items():
        if labels.get(k) != v:
            return False
    for e in sel.get("matchExpressions") or []:
        op, key, values = e["operator"], e["key"], e.get("values") or []
        if (op == "In" and labels.get(key) not in values) or (op == "NotIn" and labels.get(key) in values) \
                or (op == "Exists" and key not in labels) or (op == "DoesNotExist" and key in labels):
            return False
    return True


def krew_problems(path: Path) -> List[str]:
    """What krew's ValidatePlugin + validate-krew-manifest would reject (empty: accepted)."""
    doc = yaml.safe_load(path.read_text())
    spec = doc.get("spec") or {}
    name = (doc.get("metadata") or {}).get("name", "")
    p: List[str] = []
    if doc.get("apiVersion") != "krew.googlecontainertools.github.com/v1alpha2":
        p.append("apiVersion")
    if doc.get("kind") != "Plugin":
        p.append("kind")
    if not re.match(r"^[\w-]+$", name) or name.lower() in WINDOWS_RESERVED or name != path.stem:
        p.append("name %r vs file %r" % (name, path.name))
    if not SEMVER.match(str(spec.get("version", ""))):
        p.append("version %r is not a v-prefixed semver" % spec.get("version"))
    short = spec.get("shortDescription") or ""
    if not short or "\n" in short or "\r" in short or len(short) > 50:
        p.append("shortDescription %r" % short)
    platforms = spec.get("platforms") or []
    if not platforms:
        p.append("no platforms")
    for i, pl in enumerate(platforms):
        if not str(pl.get("uri", "")).startswith("https://"):
            p.append("platform %d uri %r" % (i, pl.get("uri")))
        if not re.match(r"^[a-f0-9]{64}$", str(pl.get("sha256", ""))):
            p.append("platform %d sha256 %r" % (i, pl.get("sha256")))
        if not pl.get("bin"):
            p.append("platform %d bin" % i)
        files = pl.get("files")
        if files is not None and (not files or any(not f.get("from") or not f.get("to") for f in files)):
            p.append("platform %d files" % i)
        sel = pl.get("selector")
        if not sel or any(k not in ("matchLabels", "matchExpressions") for k in sel) \
                or any(k in sel and not sel[k] for k in ("matchLabels", "matchExpressions")):
            p.append("platform %d selector %r" % (i, sel))
            continue
        keys = set(sel.get("matchLabels") or {}) | {e.get("key") for e in sel.get("matchExpressions") or []}
        if not keys <= {"os", "arch"}:
            p.append("platform %d selector keys %r" % (i, keys))
    for os_, arch in SUPPORTED:  # validate-krew-manifest: no overlaps, every platform useful
        hits = [i for i, pl in enumerate(platforms) if pl.get("selector")
                and _selector_matches(pl["selector"], {"os": os_, "arch": arch})]
        if len(hits) > 1:
            p.append("overlapping selectors for %s/%s" % (os_, arch))
    for i, pl in enumerate(platforms):
        if pl.get("selector") and not any(_selector_matches(pl["selector"], {"os": o, "arch": a}) for o, a in SUPPORTED):
            p.append("platform %d matches no os/arch" % i)
    return p


def test_repo_manifest_passes_krew_validation_and_speaks_to_operators():
    path = REPO / "krew" / "evictplan.yaml"
    assert krew_problems(path) == []
    spec = yaml.safe_load(path.read_text())["spec"]
    assert spec["version"] == "v" + kubectl_evict.__version__, "manifest version must match setup.cfg's"
    assert spec["homepage"].startswith("https://") and spec["description"].strip()
    caveats = spec["caveats"]
    assert "python3" in caveats and "3.9" in caveats
    for verb in ("patch on nodes", "create on pods/eviction", "delete on pods"):
        assert verb in caveats, "caveats must name the RBAC `apply` needs: " + verb
    pl = spec["platforms"]
    for os_ in ("linux", "darwin"):
        for arch in ("amd64", "arm64"):
            assert any(_selector_matches(p["selector"], {"os": os_, "arch": arch}) for p in pl), (os_, arch)
    assert not any(_selector_matches(p["selector"], {"os": "windows", "arch": "amd64"}) for p in pl), \
        "krew runs only .exe on Windows: a python3 script plugin must not claim it"


@pytest.mark.parametrize("mutation, problem", [
    (lambda d: d["metadata"].update(name="evict-plan"), "name"),
    (lambda d: d["spec"].update(version="0.1.0"), "version"),
    (lambda d: d["spec"].update(shortDescription="x" * 51), "shortDescription"),
    (lambda d: d["spec"].update(shortDescription="two\nlines"), "shortDescription"),
    (lambda d: d["spec"]["platforms"][0].update(sha256="A" * 64), "sha256"),
    (lambda d: d["spec"]["platforms"][0].update(uri="http://example.com/a.tar.gz"), "uri"),
    (lambda d: d["spec"]["platforms"][0].update(selector={"matchLabels": {"distro": "x"}}), "selector keys"),
    (lambda d: d["spec"]["platforms"].append(dict(d["spec"]["platforms"][0])), "overlapping"),
    (lambda d: d["spec"].update(platforms=[]), "no platforms"),
])
def test_validator_rejects_what_krew_rejects(tmp_path, mutation, problem):
    """The checker above is only worth something if it fails on manifests krew refuses."""
    doc = yaml.safe_load((REPO / "krew" / "evictplan.yaml").read_text())
    mutation(doc)
    path = tmp_path / "evictplan.yaml"
    path.write_text(yaml.safe_dump(doc))
    assert any(problem in p for p in krew_problems(path))


# --- the build ---------------------------------------------------------------------------------

def _platform_for(spec: dict, os_: str, arch: str) -> dict:
    """The one manifest platform krew picks for os/arch (index.MatchPlatform)."""
    hits = [p for p in spec["platforms"] if _selector_matches(p["selector"], {"os": os_, "arch": arch})]
    assert len(hits) == 1, (os_, arch, hits)
    return hits[0]


def test_build_is_reproducible_and_fills_the_manifest(release):
    b1, b2 = _archives(release["dist1"]), _archives(release["dist2"])
    for key in b1:
        assert b1[key].read_bytes() == b2[key].read_bytes(), "two builds of the same tree must be byte-identical: " + key
    sums = "".join("%s  %s\n" % (_sha256(b1[k]), b1[k].name) for k in ["pure"] + ["%s-%s" % p for p in PLATFORM_ARCHIVES])
    assert (release["dist1"] / "SHA256SUMS").read_text() == sums
    for i in (1, 2):
        filled = release["manifest%d" % i]
        assert krew_problems(filled) == []
        spec = yaml.safe_load(filled.read_text())["spec"]
        assert (release["dist%d" % i] / "evictplan.yaml").read_text() == filled.read_text()
        # every os/arch krew knows for linux and darwin gets exactly the archive built for it
        for os_ in ("linux", "darwin"):
            for arch in ("amd64", "arm64", "386", "arm", "ppc64le"):
                key = "%s-%s" % (os_, arch) if (os_, arch) in PLATFORM_ARCHIVES else "pure"
                pl = _platform_for(spec, os_, arch)
                assert pl["sha256"] == _sha256(b1[key]), (os_, arch)
                assert pl["uri"].endswith("/v%s/%s" % (kubectl_evict.__version__, b1[key].name))
    # comments and the operator-facing text of the template survive the rewrite
    template = (REPO / "krew" / "evictplan.yaml").read_text()
    filled_text = release["manifest1"].read_text()
    strip = lambda t: [ln for ln in t.splitlines() if not re.match(r"\s*(uri|sha256):", ln)]  # noqa: E731
    assert strip(filled_text) == strip(template)


def test_check_mode_reports_a_stale_manifest(release, tmp_path):
    stale = tmp_path / "evictplan.yaml"
    shutil.copy(REPO / "krew" / "evictplan.yaml", stale)
    stale.write_text(re.sub(r"sha256: \S+", "sha256: " + "0" * 64, stale.read_text()))
    before = stale.read_text()
    res = _build(release["checkout"], tmp_path / "dist", stale, release["cache"], "--check")
    assert res.returncode == 1 and res.stderr.startswith("error: ") and "stale" in res.stderr
    assert stale.read_text() == before
    ok = _build(release["checkout"], tmp_path / "dist", release["manifest1"], release["cache"], "--check")
    assert ok.returncode == 0, ok.stderr


def _members(archive: Path) -> List[tarfile.TarInfo]:
    with tarfile.open(archive) as tar:
        return tar.getmembers()


def _common_layout(members: List[tarfile.TarInfo]) -> None:
    names = [m.name for m in members]
    assert names == sorted(names)
    top = "kubectl-evictplan-v%s/" % kubectl_evict.__version__
    assert all(n + "/" == top or n.startswith(top) for n in names)
    assert all(m.mtime == members[0].mtime and m.uid == 0 and m.gid == 0 and not m.uname for m in members)
    assert {m.name: m.mode for m in members}[top + "kubectl-evictplan"] == 0o755
    for pkg in ("kubectl_evict/cli.py", "kubectl_evict/demo/cluster.json", "click/__init__.py",
                "kubernetes/__init__.py", "pyrsistent/__init__.py", "yaml/__init__.py", "tabulate/__init__.py"):
        assert top + "lib/" + pkg in names, pkg
    assert not [n for n in names if n.endswith(".pyc")]


def test_pure_archive_is_pure_python_with_normalised_metadata(release):
    members = _members(_archive(release["dist1"]))
    _common_layout(members)
    names = [m.name for m in members]
    assert not [n for n in names if n.endswith((".so", ".pyd", ".dylib"))], "must run on any os/arch"
    assert not [n for n in names if "/lib/msgspec" in n], "msgspec is compiled: left out of the pure archive"


# ELF e_machine / Mach-O cputype of each krew arch: what a wheel's compiled core must be built for
_ELF_MACHINE = {"amd64": 62, "arm64": 183}
_MACHO_CPU = {"amd64": 0x01000007, "arm64": 0x0100000C}
# CPython ABIs the manifest accepts ("python3 (3.9 or newer)") that msgspec publishes for these platforms
_ABIS = {"cp39", "cp310", "cp311", "cp312", "cp313", "cp314", "cp314t", "cp315", "cp315t"}


def _binary_target(data: bytes) -> Tuple[str, int]:
    if data[:4] == b"\x7fELF":
        return "linux", struct.unpack("<H", data[18:20])[0]
    if data[:4] == b"\xcf\xfa\xed\xfe":
        return "darwin", struct.unpack("<I", data[4:8])[0]
    return "unknown", 0


@pytest.mark.parametrize("os_, arch", PLATFORM_ARCHIVES)
def test_platform_archive_carries_msgspec_wheels_for_every_cpython(release, os_, arch):
    """Each platform archive holds msgspec's published wheel for every CPython 3.9+ ABI, unpacked one
    directory per ABI (and libc on linux), with a compiled core built for that os/arch."""
    archive = _archives(release["dist1"])["%s-%s" % (os_, arch)]
    members = _members(archive)
    _common_layout(members)
    top = "kubectl-evictplan-v%s/lib/msgspec-wheels/" % kubectl_evict.__version__
    dirs = {m.name[len(top):].split("/")[0] for m in members if m.name.startswith(top) and m.name != top}
    families = ("manylinux", "musllinux") if os_ == "linux" else ("macosx",)
    assert dirs == {"%s-%s" % (a, f) for a in _ABIS for f in families}
    with tarfile.open(archive) as tar:
        cores = [m for m in tar.getmembers() if m.name.startswith(top) and "/msgspec/_core." in m.name]
        assert len(cores) == len(dirs)
        for m in cores:
            abi = m.name[len(top):].split("-")[0]
            assert "/msgspec/_core.cpython-%s-" % abi[2:] in m.name, m.name
            assert _binary_target(tar.extractfile(m).read(64)) == \
                (os_, (_ELF_MACHINE if os_ == "linux" else _MACHO_CPU)[arch]), m.name
    names = [m.name for m in members]
    assert not [n for n in names if n.endswith((".so", ".dylib")) and not n.startswith(top)], \
        "only msgspec is compiled; everything else stays pure"
    lock = (REPO / "tools" / "msgspec-wheels.lock").read_text()
    assert all(re.match(r"^[0-9a-f]{64}$", ln.split()[1]) for ln in lock.splitlines() if ln and not ln.startswith("#"))


# --- install the way krew does, run through kubectl with only the system python3 ----------------

def _system_python3() -> str:
    """/usr/bin/python3, or the first python3 on PATH outside the test's own environment."""
    ours = {os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}
    candidates = ["/usr/bin/python3"] + [os.path.join(d, "python3") for d in os.environ.get("PATH", "").split(os.pathsep)]
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK) and "shims" not in c \
                and not any(os.path.realpath(c).startswith(p + os.sep) for p in ours if p != "/usr"):
            return c
    raise AssertionError("no system python3 found outside %s" % sorted(ours))


def krew_install(archive: Path, manifest: Path, krew_root: Path, os_arch: Tuple[str, str]) -> Path:
    """internal/installation.Install: pick the platform for os/arch, untar into a temp dir, apply
    `files` (direct move or glob, move.go), move into store/NAME/VERSION, link bin/kubectl-NAME
    (dashes -> underscores)."""
    doc = yaml.safe_load(manifest.read_text())
    name, version = doc["metadata"]["name"], doc["spec"]["version"]
    platform = _platform_for(doc["spec"], *os_arch)
    assert _sha256(archive) == platform["sha256"], "krew refuses an archive whose sha256 differs"
    extract = krew_root / "download"
    with tarfile.open(archive) as tar:
        for m in tar.getmembers():
            assert m.isdir() or m.isfile(), "krew's untar handles only files and directories: " + m.name
            target = extract / m.name
            if m.isdir():
                target.mkdir(parents=True, exist_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(tar.extractfile(m).read())
                target.chmod(m.mode)
    install = krew_root / "store" / name / version
    install.mkdir(parents=True)
    for fo in platform.get("files") or [{"from": "*", "to": "."}]:
        assert fo["to"] == os.path.normpath(fo["to"]), "krew: the provided path is not clean"
        direct = extract / fo["from"]
        if os.path.exists(direct):
            moves: List[Tuple[str, Path]] = [(str(direct), install / (direct.name if fo["to"] == "." else fo["to"]))]
        else:
            matched = sorted(glob.glob(str(extract / fo["from"])))
            assert matched, "krew: no files in the plugin archive matched the glob pattern=" + fo["from"]
            moves = [(m, install / fo["to"] / os.path.basename(m)) for m in matched]
        for src, dst in moves:
            dst.parent.mkdir(parents=True, exist_ok=True)
            if dst.is_dir():
                shutil.rmtree(dst)
            os.rename(src, dst)
    binary = install / platform["bin"]
    assert binary.is_file() and os.access(binary, os.X_OK), "bin %s not in the install dir" % platform["bin"]
    licenses = [p for p in install.iterdir() if re.match(r"(?i)^(license|license\.txt|license\.md|licenses.*|copying.*)$", p.name)]
    assert licenses, "validate-krew-manifest requires a LICENSE file to be extracted"
    (krew_root / "bin").mkdir()
    link = krew_root / "bin" / ("kubectl-" + name.replace("-", "_"))
    os.symlink(binary, link)
    return link


def _install_env(release: Dict[str, Path], name: str, os_arch: Tuple[str, str]) -> Dict[str, str]:
    """A fresh krew root holding the archive krew picks for os_arch; PATH has only its bin and the
    system python3 (no site-packages: nothing the user installed can help)."""
    root = release["root"] / name
    root.mkdir()
    doc = yaml.safe_load(release["manifest1"].read_text())
    uri = _platform_for(doc["spec"], *os_arch)["uri"]
    krew_install(release["dist1"] / uri.rsplit("/", 1)[1], release["manifest1"], root, os_arch)
    shims = root / "python-only"
    shims.mkdir()
    (shims / "python3").write_text('#!/bin/sh\nexec "%s" -s -S "$@"\n' % _system_python3())
    (shims / "python3").chmod(0o755)
    return {"PATH": "%s:%s" % (root / "bin", shims), "HOME": str(root), "PYTHONNOUSERSITE": "1",
            "KUBECONFIG": str(root / "no-kubeconfig"), "LANG": "C.UTF-8", "FLAVOUR": name}


@pytest.fixture(scope="module", params=["native", "pure"])
def krew_env(release, request) -> Dict[str, str]:
    """native: the archive krew picks for this machine (msgspec wheels inside); pure: the one it picks
    for an arch msgspec publishes no wheel for (KREW_ARCH=ppc64le)."""
    if request.param == "native":
        assert _machine() in PLATFORM_ARCHIVES, "this machine (%s/%s) has a platform archive" % _machine()
        return _install_env(release, "native", _machine())
    return _install_env(release, "pure", ("linux", "ppc64le"))


def _system_abi() -> str:
    out = subprocess.run([_system_python3(), "-S", "-c", "import sys; print('cp%d%d%s' % (sys.version_info[:2] + "
                          "('t' if 't' in sys.abiflags else '',)))"], capture_output=True, text=True, timeout=60)
    return out.stdout.strip()


def _kubectl(env: Dict[str, str], *args: str) -> subprocess.CompletedProcess:
    assert KUBECTL, "the kubectl binary must be on PATH for the release test"
    return subprocess.run([KUBECTL, *args], capture_output=True, text=True, env=env, timeout=120, cwd=env["HOME"])


def test_krew_installed_plugin_is_discovered_by_kubectl(krew_env):
    listed = _kubectl(krew_env, "plugin", "list")
    assert "kubectl-evictplan" in listed.stdout, listed.stdout + listed.stderr
    helped = _kubectl(krew_env, "evictplan", "--help")
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("Usage: kubectl evictplan [OPTIONS] COMMAND")
    # the bundle's click 8.1: bare invocation is the help, `options` lists the global options
    bare = _kubectl(krew_env, "evictplan")
    assert bare.returncode == 0 and bare.stdout == helped.stdout, bare.stderr
    options = _kubectl(krew_env, "evictplan", "options")
    assert options.returncode == 0 and "--kubeconfig" in options.stdout, options.stderr
    drain = _kubectl(krew_env, "evictplan", "drain", "--help")
    assert drain.returncode == 0 and "evictplan options" in drain.stdout
    assert "--demo " not in drain.stdout[drain.stdout.index("Options:"):]


def test_version_reports_the_bundle_truthfully(krew_env):
    res = _kubectl(krew_env, "evictplan", "version")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == "kubectl-evictplan " + kubectl_evict.__version__
    assert lines[1].startswith("Python 3.")
    # -S: no site-packages at all, so the only compiled code in use is the archive's msgspec
    assert "pyrsistent pure-Python" in lines[2] and "PyYAML pure-Python loader" in lines[2]
    v = kubectl_evict.__version__
    if krew_env["FLAVOUR"] == "native":
        assert lines[2].startswith("msgspec 0.22.0 fast JSON path active (from the krew archive, %s-manylinux)"
                                   % _system_abi()), lines[2]
        assert lines[3].startswith("krew archive kubectl-evictplan-v%s-%s-%s.tar.gz (msgspec 0.20.0/0.22.0 wheels "
                                   "for cp39..cp315t, manylinux/musllinux;" % ((v,) + _machine())), lines[3]
    else:
        assert lines[2].startswith("msgspec missing: stdlib JSON path")
        assert lines[3].startswith("krew archive kubectl-evictplan-v%s.tar.gz (pure Python" % v)
    assert _kubectl(krew_env, "evictplan", "--version").stdout == res.stdout


def test_no_matching_wheel_falls_back_to_an_installed_msgspec_then_the_stdlib(release, tmp_path):
    """The platform archive with no wheel that loads for this CPython (here: only the musl build of
    this ABI is left, which a glibc python3 cannot load) plans on the stdlib path, identically;
    an msgspec the user installed (this test's own interpreter has one) is used instead when present."""
    os_arch = _machine()
    archive = _archives(release["dist1"])["%s-%s" % os_arch]
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path)
    top = tmp_path / ("kubectl-evictplan-v%s" % kubectl_evict.__version__)
    shutil.rmtree(top / "lib" / "msgspec-wheels" / ("%s-manylinux" % _system_abi()))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONNOUSERSITE": "1", "LANG": "C.UTF-8"}
    launcher = str(top / "kubectl-evictplan")
    res = subprocess.run([_system_python3(), "-s", "-S", launcher, "version"], capture_output=True, text=True,
                         env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[2].startswith("msgspec missing: stdlib JSON path"), res.stdout
    args = ("--demo", "-o", "json", "drain", "worker-a1")
    plan = subprocess.run([_system_python3(), "-s", "-S", launcher, *args], capture_output=True, text=True, env=env,
                          timeout=120)
    assert plan.stdout == run_cli(*args).stdout and plan.stdout.strip(), plan.stderr
    mine = subprocess.run([sys.executable, launcher, "version"], capture_output=True, text=True, env=env, timeout=120)
    import msgspec
    assert mine.stdout.splitlines()[2].startswith("msgspec %s fast JSON path active (installed, %s)" % (
        msgspec.__version__, os.path.dirname(os.path.dirname(msgspec.__file__)))), mine.stdout


@pytest.mark.parametrize("args", [
    ("--demo", "affinity", "--unlabel", "worker-b1:disktype"),
    ("--demo", "drain", "worker-a1"),
    ("--demo", "-o", "json", "drain", "worker-a1"),
    ("--demo", "-o", "yaml", "affinity", "--unlabel", "worker-b1:disktype"),
])
def test_plan_through_kubectl_matches_the_source_tree(krew_env, args):
    """The pure bundle (stdlib JSON, pure pyrsistent/PyYAML, click 8.1) plans exactly like a dev install."""
    got = _kubectl(krew_env, "evictplan", *args)
    want = run_cli(*args)
    assert got.returncode == want.returncode and got.returncode in (0, 3), got.stderr
    assert got.stdout == want.stdout and got.stdout.strip()
    assert got.stderr == want.stderr


def test_plan_output_through_kubectl_is_a_plan(krew_env):
    res = _kubectl(krew_env, "evictplan", "--demo", "affinity", "--unlabel", "worker-b1:disktype")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0].startswith("PLAN (affinity): ")
    assert re.search(r"\nAT +ACTION +OBJECT +NODE +TARGET +REASON\n", res.stdout)
    assert re.search(r"UNLABEL +label disktype- +worker-b1 ", res.stdout)
    assert re.search(r"; \d+ blocked; \d+ skipped$", res.stdout.rstrip().splitlines()[-1])
    drain = _kubectl(krew_env, "evictplan", "--demo", "drain", "worker-a1")
    assert drain.returncode in (0, 3), drain.stderr
    assert "worker-a1" in drain.stdout and "cordon" in drain.stdout.rstrip().splitlines()[-1]


def test_bad_input_through_kubectl_is_one_error_line(krew_env):
    res = _kubectl(krew_env, "evictplan", "--demo", "affinity", "--label", "ghost:a=b")
    assert res.returncode == 1 and res.stderr.startswith("error: ") and "ghost" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_launcher_refuses_old_python_with_a_clear_message(release, tmp_path):
    """An interpreter older than 3.9 gets one `error:` line naming itself, not a SyntaxError."""
    old = tmp_path / "python3"
    old.write_text('#!/bin/sh\nexec "%s" -S -c "import sys; sys.version_info = (3, 8, 0, \'final\', 0); '
                   'sys.argv = sys.argv[1:]; exec(compile(open(sys.argv[0]).read(), sys.argv[0], \'exec\'))" "$@"\n'
                   % _system_python3())
    old.chmod(0o755)
    res = subprocess.run([str(old), str(REPO / "plugin" / "kubectl-evictplan"), "version"], capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 1 and res.stderr.startswith("error: kubectl-evictplan needs Python 3.9 or newer")


# --- pip / pipx ----------------------------------------------------------------------------------

def test_pip_install_from_repo_and_from_wheel(tmp_path, release):
    """`pip install .` builds a wheel with the kubectl-evictplan console script (what pipx installs);
    that wheel installs into a fresh venv and runs from there, demo cluster included. Dependencies
    come from the release build's pinned wheels plus this interpreter's msgspec/PyYAML/rapidyaml wheels
    (`--no-index`: fast, and it proves setup.cfg's ranges admit the versions the krew archive ships)."""
    src = tmp_path / "src"
    shutil.copytree(REPO, src, ignore=CHECKOUT_IGNORE)
    wheels = tmp_path / "wheels"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(src)],
                           capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    wheel = sorted(wheels.glob("kubectl_evictplan-%s-py3-none-any.whl" % kubectl_evict.__version__))
    assert len(wheel) == 1, sorted(p.name for p in wheels.iterdir())
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    native = tmp_path / "native"
    got = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                          "-d", str(native), "msgspec>=0.18", "PyYAML>=5.4", "rapidyaml>=0.15.2", "deprecation",
                          "packaging"], capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stderr
    inst = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--quiet", "--no-index",
                           "--find-links", str(release["cache"]), "--find-links", str(native), str(wheel[0])],
                          capture_output=True, text=True, timeout=600)
    assert inst.returncode == 0, inst.stderr
    script = venv / "bin" / "kubectl-evictplan"
    env = {"PATH": "%s:/usr/bin:/bin" % (venv / "bin"), "HOME": str(tmp_path), "PYTHONNOUSERSITE": "1"}
    res = subprocess.run([str(script), "--version"], capture_output=True, text=True, env=env, timeout=60, cwd=str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("kubectl-evictplan %s\n" % kubectl_evict.__version__)
    assert "installed package (%s" % venv in res.stdout, "must run the venv's copy, not the repo"
    plan = subprocess.run([str(script), "--demo", "affinity", "--unlabel", "worker-b1:disktype"], capture_output=True,
                          text=True, env=env, timeout=60, cwd=str(tmp_path))
    assert plan.returncode == 0 and plan.stdout == run_cli("--demo", "affinity", "--unlabel", "worker-b1:disktype").stdout
