#!/usr/bin/env python3
"""Release build: the krew archives (one per os/arch that msgspec publishes wheels for, plus one
pure-Python archive for every other linux/darwin arch) and the krew manifest's uri/sha256 lines.

What every archive holds: the launcher (`kubectl-evictplan`), LICENSE and `lib/`, a plain
directory with the kubectl_evict package and its pure-Python dependencies. kubernetes 35.x is pure
Python (36 adds aiohttp, 37 pydantic-core, compiled per CPython minor); pyrsistent ships a
`py3-none-any` wheel (its Python pvector); PyYAML ships only compiled wheels, but its pure loader
is in every one of them, so the build takes a pinned wheel for one fixed tag and drops the
extension module.

msgspec (the fast JSON path: pages and files decoded straight into the freezer's projection) has
no pure form. The platform archives (linux/amd64, linux/arm64, darwin/amd64, darwin/arm64) carry
msgspec's own published wheels for every CPython the manifest accepts, pinned with their sha256
in tools/msgspec-wheels.lock, each unpacked into `lib/msgspec-wheels/<abi>-<platform tag>/`
(compiled parts included: nothing is compiled here). The launcher puts the directory matching the
running interpreter on sys.path and checks that it imports; with none matching (another CPython,
another libc) it falls back to an msgspec the user installed, else to the stdlib json module
(`kubectl evictplan version` says which). The pure archive is the same without lib/msgspec-wheels.

rapidyaml (the fast YAML path, source/fastyaml.py) is not carried: its macOS wheels are 3-5.6 MB
each (the darwin archives would grow by ~50 MB for six CPythons), it has no musllinux wheels, and
it needs two more pure packages (deprecation, packaging). A krew install reads YAML with the libyaml
event reader (~9x JSON's time, not ~3x) unless the interpreter the launcher runs has rapidyaml
installed; JSON snapshots are the fast path there.

Reproducible: every wheel is pinned by version and sha256 (`pip download --require-hashes`, from
PyPI only: local find-links/extra indexes are switched off), the wheels are unpacked by this
script (not `pip install --target`, which writes host paths and shebangs), and each tar has sorted
members, fixed mtime (SOURCE_DATE_EPOCH or 1980-01-01), uid/gid 0, normalised modes and a gzip
header without name or time. Two builds of the same tree give the same sha256s. Downloads go to a
local cache (--wheel-cache, default build/wheels, outside git) and are reused when their sha256
still matches.

Usage:  python tools/build_release.py [--dist DIR] [--manifest PATH] [--wheel-cache DIR] [--check]
Writes DIR/kubectl-evictplan-vX.Y.Z[-OS-ARCH].tar.gz, DIR/evictplan.yaml (the filled manifest) and
DIR/SHA256SUMS, and rewrites the uri/sha256/version lines of the manifest (default
krew/evictplan.yaml). With --check the manifest is not written; exit 1 if it is stale.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parents[1]
NAME = "kubectl-evictplan"
HOMEPAGE = "https://github.com/evictplan/kubectl-evictplan"
PYPI = "https://pypi.org/simple"
DEFAULT_EPOCH = 315532800  # 1980-01-01T00:00:00Z, the earliest time a zip can hold

# The vendored runtime: pinned for Python 3.9+ (click 8.1.x is the last line that runs on 3.9).
# Keep in step with setup.cfg's install_requires; bump by re-resolving for Python 3.9 and copying
# the sha256 of each wheel from PyPI.
PURE_WHEELS: Tuple[Tuple[str, str], ...] = (
    ("certifi==2026.10.18", "73191c47aaa79da394e8fee2dbc2ec827432cab56311122c9e47abf79e390f62"),
    ("charset_normalizer==3.5.2", "b6b751274acb69d77b3323d6b7dbaa3c7fdfc1eb829b7eb61d262f32e1af9685"),
    ("click==8.1.8", "63c132bbbed01578a06712a2d1f497bb62d9c1c0d329b7903a866228027263b2"),
    ("durationpy==0.11", "a739fe2b8972c250ff72f8e2c488d18cf25f7b852f49ee76048775d5171df30c"),
    ("idna==3.20", "ab7ae7122974553370f0bdb919e1a960b2cd1bc1ef0276416d896db81c14582c"),
    ("kubernetes==35.0.0", "39e2b33b46e5834ef6c3985ebfe2047ab39135d41de51ce7641a7ca5b372a13d"),
    ("oauthlib==4.0.1", "498a298876e996301950a5b053d12c31628bb7b895db03666430c69ce182eb61"),
    ("pyrsistent==0.20.0", "c55acc4733aad6560a7f5f818466631f07efc001fd023f34a6c203f8b6df0f0b"),
    ("python-dateutil==3.0.0", "3c79630202e4152c6add678446984236efe4f57e84d8e892aab0637bab82e9fd"),
    ("requests==2.32.5", "2462f94637a34fd532264295e186976db0f5d453d1cdd31473c85a6a161affb6"),
    ("requests-oauthlib==2.0.0", "7dd8a5c40426b779b0868c404bdef9768deccf22749cde15852df527e6269b36"),
    ("six==1.17.0", "4721f391ed90541fddacab5acf947aa0d3dc7d27b2e1e8eda2be8970586c3274"),
    ("tabulate==0.9.0", "024ca478df22e9340661486f85298cff5f6dcdba14f3813e8830015b9ed1948f"),
    ("tzdata==2026.6", "0a10eec6e13ef16b627fabed9a5f2ba61a62b1c67f327305f4e7e412a70b4aec"),
    ("urllib3==2.6.3", "bf272323e553dfb2e87d9bfd225ca7b0f467b919d7bbd355436d3fd37cb0acd4"),
    ("websocket-client==1.9.0", "af248a825037ef591efbf6ed20cc5faa03d3b47b9e5a2230a529eeee1c1fc3ef"),
)
# No pure wheel on PyPI: one fixed platform wheel, extension modules dropped (pure loader remains).
STRIPPED_WHEELS: Tuple[Tuple[str, str, Tuple[str, ...]], ...] = (
    ("pyyaml==6.0.3", "0150219816b6a1fa26fb4699fb7daa9caf09eb1999f3b70fb6e786805e80375a",
     ("--platform", "manylinux2014_x86_64", "--implementation", "cp", "--abi", "cp39")),
)
# setup.cfg's install_requires that the archive carries (msgspec: per platform, see below;
# rapidyaml: not carried, see the module docstring).
DIRECT_DEPENDENCIES = ("click", "kubernetes", "pyrsistent", "pyyaml", "tabulate")
MSGSPEC_LOCK = REPO / "tools" / "msgspec-wheels.lock"
NATIVE_DIR = "msgspec-wheels"   # lib/<this>/<abi>-<platform tag>/msgspec: read by plugin/kubectl-evictplan
# krew (os, arch) -> the machine names in wheel platform tags that serve it
PLATFORMS: Tuple[Tuple[str, str, str], ...] = (
    ("linux", "amd64", "linux_x86_64"), ("linux", "arm64", "linux_aarch64"),
    ("darwin", "amd64", "macosx_x86_64"), ("darwin", "arm64", "macosx_arm64"),
)
_COMPILED = (".so", ".pyd", ".dylib", ".dll")
_KEEP_DIST_INFO = re.compile(r"^[^/]+\.dist-info/(METADATA|(licenses/.+)|(LICEN[CS]E.*)|(COPYING.*)|(NOTICE.*)|(AUTHORS.*))$")


class BuildError(Exception):
    """A release build step failed; main() prints it as one `error:` line."""


def project_version() -> str:
    """The version setup.cfg publishes (`attr: kubectl_evict.__version__`), read without importing."""
    text = (REPO / "kubectl_evict" / "__init__.py").read_text()
    m = re.search(r'^__version__\s*=\s*"([^"]+)"', text, re.M)
    if not m:
        raise BuildError("kubectl_evict/__init__.py: no __version__ line")
    return m.group(1)


def archive_name(version: str, platform: Optional[Tuple[str, str]] = None) -> str:
    """kubectl-evictplan-vX.Y.Z-OS-ARCH.tar.gz, or without -OS-ARCH for the pure archive."""
    return "%s-v%s%s.tar.gz" % (NAME, version, "-%s-%s" % platform if platform else "")


def release_uri(version: str, platform: Optional[Tuple[str, str]] = None) -> str:
    return "%s/releases/download/v%s/%s" % (HOMEPAGE, version, archive_name(version, platform))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _pip_env() -> Dict[str, str]:
    """pip pointed at PyPI only: no local wheel dirs, extra indexes or constraint files."""
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("PIP_") and k not in ("PIP_CERT", "PIP_DEFAULT_TIMEOUT", "PIP_PROXY",
                                              "PIP_CLIENT_CERT", "PIP_TRUSTED_HOST"):
            del env[k]
    env.update({"PIP_FIND_LINKS": "", "PIP_EXTRA_INDEX_URL": "", "PIP_CONSTRAINT": "",
                "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"})
    return env


def _cached(cache: Path, req: str, sha: str) -> Optional[Path]:
    dist = re.split(r"==", req)[0].replace("-", "_").lower()
    version = req.split("==")[1]
    for p in sorted(cache.glob("*.whl")):
        parts = p.name.split("-")
        if parts[0].lower() == dist and parts[1] == version and _sha256(p) == sha:
            return p
    return None


def fetch_wheels(cache: Path) -> List[Tuple[Path, bool]]:
    """Every pinned wheel, from `cache` or downloaded into it; (path, strip compiled parts)."""
    cache.mkdir(parents=True, exist_ok=True)
    groups = [([r for r in PURE_WHEELS], ("--platform", "any", "--implementation", "py", "--abi", "none"), False)]
    groups += [([(r, s)], tags, True) for r, s, tags in STRIPPED_WHEELS]
    out: List[Tuple[Path, bool]] = []
    for reqs, tags, strip in groups:
        missing = [(r, s) for r, s in reqs if _cached(cache, r, s) is None]
        if missing:
            with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
                f.write("".join("%s --hash=sha256:%s\n" % (r, s) for r, s in missing))
                reqfile = f.name
            cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                   "--require-hashes", "--index-url", PYPI, "--python-version", "3.9", *tags,
                   "-d", str(cache), "-r", reqfile]
            try:
                res = subprocess.run(cmd, capture_output=True, text=True, env=_pip_env(), timeout=600)
            finally:
                os.unlink(reqfile)
            if res.returncode != 0:
                last = (res.stderr.strip().splitlines() or ["pip failed"])[-1]
                raise BuildError("pip download from %s failed: %s" % (PYPI, last))
        for r, s in reqs:
            p = _cached(cache, r, s)
            if p is None:
                raise BuildError("wheel for %s not found in %s after download" % (r, cache))
            out.append((p, strip))
    return out


def read_lock(path: Path = MSGSPEC_LOCK) -> List[Tuple[str, str]]:
    """(wheel file name, sha256) pairs of the msgspec lock file."""
    out = []
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2 or not parts[0].endswith(".whl") or not re.match(r"^[0-9a-f]{64}$", parts[1]):
            raise BuildError("%s line %d: expected `WHEEL-FILE SHA256`" % (path, n))
        out.append((parts[0], parts[1]))
    return out


def wheel_tags(filename: str) -> Tuple[str, str, str, Tuple[str, ...]]:
    """(version, python tag, abi tag, platform tags) of a wheel file name."""
    parts = filename[:-len(".whl")].split("-")
    if len(parts) != 5:
        raise BuildError("%s: not a wheel file name (NAME-VERSION-PY-ABI-PLATFORM.whl)" % filename)
    return parts[1], parts[2], parts[3], tuple(parts[4].split("."))


def wheel_platform(filename: str) -> Tuple[str, str]:
    """The krew (os, arch) a native wheel serves, from its platform tags."""
    plats = wheel_tags(filename)[3]
    for os_, arch, machine in PLATFORMS:
        family, cpu = machine.split("_", 1)
        if any(family in p and p.endswith("_" + cpu) for p in plats):
            return os_, arch
    raise BuildError("%s: no krew platform for tags %s" % (filename, ".".join(plats)))


def native_dir_name(filename: str) -> str:
    """lib/msgspec-wheels/<this>: the abi tag first (what the launcher matches), then the libc
    family (manylinux, musllinux, macosx), so several per abi can sit side by side."""
    _, _, abi, plats = wheel_tags(filename)
    return "%s-%s" % (abi, plats[0].split("_", 1)[0].rstrip("0123456789"))


def _download_one(cache: Path, filename: str, sha: str) -> None:
    version, _, abi, plats = wheel_tags(filename)
    digits = re.match(r"^cp(\d)(\d+)t?$", abi)
    if not digits:
        raise BuildError("%s: not a CPython wheel" % filename)
    with tempfile.TemporaryDirectory() as tmp:
        reqfile = os.path.join(tmp, "req.txt")
        with open(reqfile, "w") as f:
            f.write("msgspec==%s --hash=sha256:%s\n" % (version, sha))
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
               "--require-hashes", "--index-url", PYPI, "--implementation", "cp", "--abi", abi,
               "--python-version", "%s.%s" % digits.groups()]
        for p in plats:
            cmd += ["--platform", p]
        cmd += ["-d", tmp, "-r", reqfile]
        res = subprocess.run(cmd, capture_output=True, text=True, env=_pip_env(), timeout=600)
        if res.returncode != 0:
            last = (res.stderr.strip().splitlines() or ["pip failed"])[-1]
            raise BuildError("pip download %s from %s failed: %s" % (filename, PYPI, last))
        got = os.path.join(tmp, filename)
        if not os.path.exists(got):
            raise BuildError("pip download gave %s, not %s" % (sorted(os.listdir(tmp)), filename))
        os.replace(got, cache / filename)


def fetch_native(cache: Path, lock: Sequence[Tuple[str, str]]) -> List[Path]:
    """Every locked msgspec wheel, from `cache` (sha256 checked) or downloaded into it."""
    cache.mkdir(parents=True, exist_ok=True)
    missing = [(f, s) for f, s in lock if not ((cache / f).is_file() and _sha256(cache / f) == s)]
    if missing:
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(lambda t: _download_one(cache, *t), missing))
    out = []
    for f, s in lock:
        if _sha256(cache / f) != s:
            raise BuildError("%s in %s does not match its sha256 in %s" % (f, cache, MSGSPEC_LOCK.name))
        out.append(cache / f)
    return out


# --- archive contents: {path inside the archive: (bytes, executable?)} -------------------------

Files = Dict[str, Tuple[bytes, bool]]


def _add_wheel(files: Files, wheel: Path, strip: bool, prefix: str, native: bool = False) -> None:
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.endswith("/"):
                continue
            rel = name
            top, _, rest = name.partition("/")
            if top.endswith(".data"):
                kind, _, inner = rest.partition("/")
                if kind not in ("purelib", "platlib"):
                    continue  # scripts/headers/data: not importable code
                rel = inner
            first = rel.split("/", 1)[0]
            if first.endswith(".dist-info") and not _KEEP_DIST_INFO.match(rel):
                continue
            if rel.endswith(_COMPILED) and not native:
                if not strip:
                    raise BuildError("%s: compiled file %s in a wheel expected to be pure" % (wheel.name, rel))
                continue
            if "/__pycache__/" in "/" + rel or rel.endswith(".pyc"):
                continue
            files[prefix + rel] = (z.read(name), False)


def _add_package(files: Files, prefix: str) -> None:
    """kubectl_evict as setup.cfg packages it: every .py of the package tree and demo/*.json."""
    pkg = REPO / "kubectl_evict"
    for p in sorted(pkg.rglob("*")):
        rel = p.relative_to(REPO).as_posix()
        if "__pycache__" in p.parts or not p.is_file():
            continue
        if p.suffix == ".py" or (p.parent == pkg / "demo" and p.suffix == ".json"):
            files[prefix + rel] = (p.read_bytes(), False)


def _bundle_module(version: str, wheels: Sequence[Tuple[Path, bool]], platform: Optional[Tuple[str, str]],
                   native: Sequence[Path]) -> bytes:
    """kubectl_evict/_bundle.py, present only in the krew archive: what `version` reports."""
    pins = []
    for w, strip in wheels:
        dist, ver = w.name.split("-")[:2]
        pins.append((dist.lower().replace("_", "-"), ver + (" (pure loader)" if strip else "")))
    pins.sort()
    direct = tuple("%s %s" % p for p in pins if p[0] in DIRECT_DEPENDENCIES)
    return ('"""Written by tools/build_release.py: this package runs from the krew archive."""\n\n'
            "ARCHIVE = %r\nDIRECT = %r\nVENDORED = %r\nNATIVE_DIR = %r\nMSGSPEC = %r\n"
            % (archive_name(version, platform), direct, tuple("%s %s" % p for p in pins), NATIVE_DIR,
               tuple(sorted(native_dir_name(w.name) + " " + wheel_tags(w.name)[0] for w in native)))).encode()


def collect(version: str, wheels: Sequence[Tuple[Path, bool]], platform: Optional[Tuple[str, str]] = None,
            native: Sequence[Path] = ()) -> Files:
    """The files of one archive: `native` are the msgspec wheels for `platform` (none: pure)."""
    top = "%s-v%s/" % (NAME, version)
    files: Files = {}
    launcher = REPO / "plugin" / NAME
    files[top + NAME] = (launcher.read_bytes(), True)
    files[top + "LICENSE"] = ((REPO / "LICENSE").read_bytes(), False)
    for wheel, strip in wheels:
        _add_wheel(files, wheel, strip, top + "lib/")
    for wheel in native:
        _add_wheel(files, wheel, False, "%slib/%s/%s/" % (top, NATIVE_DIR, native_dir_name(wheel.name)), native=True)
    _add_package(files, top + "lib/")
    files[top + "lib/kubectl_evict/_bundle.py"] = (_bundle_module(version, wheels, platform, native), False)
    return files


def write_tar(files: Files, dest: Path, mtime: int) -> str:
    """Deterministic .tar.gz of `files`; returns its sha256."""
    dirs = set()
    for path in files:
        parts = path.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(dirs | set(files)):
            info = tarfile.TarInfo(path)
            info.mtime, info.uid, info.gid, info.uname, info.gname = mtime, 0, 0, "", ""
            if path in dirs:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                data, exe = files[path]
                info.size, info.mode = len(data), 0o755 if exe else 0o644
                tar.addfile(info, io.BytesIO(data))
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".tmp")
    with open(tmp, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=9) as gz:
            gz.write(raw.getvalue())
    os.replace(tmp, dest)
    return _sha256(dest)


_URI_ARCHIVE = re.compile(r"/%s-v[^/]*?(?:-(linux|darwin)-(amd64|arm64))?\.tar\.gz$" % NAME)


def render_manifest(text: str, version: str, shas: Dict[Optional[Tuple[str, str]], str]) -> str:
    """The manifest with version, every platform's uri and sha256 filled. Which archive a platform
    entry gets is read from the -OS-ARCH suffix of its uri (none: the pure archive); its sha256
    line follows the uri line."""
    out, n_uri, n_sha = [], 0, 0
    current: Optional[Tuple[str, str]] = None
    for line in text.splitlines(keepends=True):
        m = re.match(r"^(\s*)(version|uri|sha256):(\s*)(\S*)(.*)$", line.rstrip("\n"))
        if m and m.group(2) == "version" and m.group(1) == "  ":
            line = "%sversion: v%s\n" % (m.group(1), version)
        elif m and m.group(2) == "uri":
            a = _URI_ARCHIVE.search(m.group(4))
            if not a:
                raise BuildError("manifest: uri %s does not name a %s archive" % (m.group(4), NAME))
            current = (a.group(1), a.group(2)) if a.group(1) else None
            if current not in shas:
                raise BuildError("manifest: no archive is built for uri %s" % m.group(4))
            line, n_uri = "%suri: %s\n" % (m.group(1), release_uri(version, current)), n_uri + 1
        elif m and m.group(2) == "sha256":
            line, n_sha = "%ssha256: %s\n" % (m.group(1), shas[current]), n_sha + 1
        out.append(line)
    if n_uri == 0 or n_uri != n_sha:
        raise BuildError("manifest: expected one uri and one sha256 line per platform, found %d/%d" % (n_uri, n_sha))
    return "".join(out)


def build(dist: Path, manifest: Path, wheel_cache: Path, check: bool = False,
          mtime: Optional[int] = None) -> List[Tuple[Path, str]]:
    """Build every archive into `dist`, fill the manifest; returns [(archive, sha256)], the pure
    archive first, then the platform archives in PLATFORMS order."""
    version = project_version()
    if mtime is None:
        mtime = int(os.environ.get("SOURCE_DATE_EPOCH", DEFAULT_EPOCH))
    wheels = fetch_wheels(wheel_cache)
    native = fetch_native(wheel_cache, read_lock())
    by_platform: Dict[Tuple[str, str], List[Path]] = {}
    for w in native:
        by_platform.setdefault(wheel_platform(w.name), []).append(w)
    shas: Dict[Optional[Tuple[str, str]], str] = {}
    built: List[Tuple[Path, str]] = []
    for platform in [None] + [(o, a) for o, a, _ in PLATFORMS]:
        archive = dist / archive_name(version, platform)
        files = collect(version, wheels, platform, by_platform.get(platform, []) if platform else [])
        shas[platform] = write_tar(files, archive, mtime)
        built.append((archive, shas[platform]))
    template = manifest.read_text()
    filled = render_manifest(template, version, shas)
    (dist / "evictplan.yaml").write_text(filled)
    (dist / "SHA256SUMS").write_text("".join("%s  %s\n" % (sha, a.name) for a, sha in built))
    if check:
        if filled != template:
            raise BuildError("%s is stale: run python tools/build_release.py" % manifest)
    elif filled != template:
        manifest.write_text(filled)
    return built


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dist", type=Path, default=REPO / "dist", help="output directory (default: dist/)")
    ap.add_argument("--manifest", type=Path, default=REPO / "krew" / "evictplan.yaml",
                    help="krew manifest whose version/uri/sha256 lines are filled (default: krew/evictplan.yaml)")
    ap.add_argument("--wheel-cache", type=Path, default=REPO / "build" / "wheels",
                    help="where pinned wheels are downloaded/reused (default: build/wheels)")
    ap.add_argument("--check", action="store_true", help="do not write the manifest; exit 1 if it is stale")
    args = ap.parse_args(argv)
    try:
        built = build(args.dist, args.manifest, args.wheel_cache, check=args.check)
    except (BuildError, OSError) as e:
        sys.stderr.write("error: %s\n" % e)
        return 1
    for archive, sha in built:
        print("%s  %s  (%.1f MB)" % (sha, archive, archive.stat().st_size / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
