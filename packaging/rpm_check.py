"""Install the .rpm for real into an rpm root on this machine and run the smoke test.

``python packaging/rpm_check.py dist/deliverables-*.rpm`` (as root) makes an
empty rpm root in a temporary folder, then:

1. reads what the package requires (``rpm -qp --requires``) and finds each
   library on this machine (``ldconfig -p``; glibc by its version), failing
   for any that is not here;
2. builds with nfpm a package that provides exactly those names and carries
   the shell the install scripts run with (this machine's ``/bin/sh`` and
   the two libraries it loads), and installs it into the root;
3. installs the real package into the root with ``rpm --root ... -i`` (no
   ``--nodeps``: rpm resolves every requirement against the database), and
   checks every installed file against the package (``rpm -V``);
4. runs ``smoke_test.py`` on the app as installed in the root, with this
   machine's libraries standing for the ones required;
5. removes the package with ``rpm -e`` and checks nothing of it is left.

What it proves and what it does not is in docs/adr/0008-native-packages.md.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import yaml

PACKAGING = Path(__file__).resolve().parent
PROVIDER = "deliverables-host-libraries"
LIBRARY_FOLDERS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu")
# The shell rpm runs the install scripts with, inside the root, and what it loads.
SHELL = (
    ("/bin/sh", "/bin/sh"),
    ("/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6"),
    ("/lib64/ld-linux-x86-64.so.2", "/lib64/ld-linux-x86-64.so.2"),
)


class RpmCheckError(RuntimeError):
    """The rpm did not install or run; the message says where it stopped."""


def _run(command: Sequence[str], **kwargs: object) -> str:
    print("+", " ".join(command), flush=True)
    result = subprocess.run(  # type: ignore[call-overload]
        command, capture_output=True, text=True, check=False, **kwargs
    )
    if result.returncode != 0:
        raise RpmCheckError(f"{command[0]} failed: {result.stderr or result.stdout}")
    return str(result.stdout)


def requirements(rpm: Path) -> list[str]:
    """What the package requires, less rpm's own features (``rpmlib(...)``)."""
    lines = _run(["rpm", "-qp", "--requires", str(rpm)]).splitlines()
    return sorted({line.strip() for line in lines if not line.startswith("rpmlib(")})


def host_libraries() -> dict[str, str]:
    """The 64-bit libraries this machine's loader finds, by file name: the
    loader's cache, and the names in its folders (Debian's libbz2.so.1 is a
    link to the library whose soname is libbz2.so.1.0)."""
    found: dict[str, str] = {}
    for line in _run(["ldconfig", "-p"]).splitlines():
        match = re.match(r"\s+(\S+) \((?:[^)]*x86-64[^)]*)\) => (\S+)", line)
        if match:
            found.setdefault(match.group(1), match.group(2))
    for folder in LIBRARY_FOLDERS:
        for path in sorted(Path(folder).glob("lib*.so*")):
            found.setdefault(path.name, str(path))
    return found


def _glibc() -> tuple[int, ...]:
    version = os.confstr("CS_GNU_LIBC_VERSION") or "glibc 0"
    return tuple(int(n) for n in version.split()[1].split("."))


def map_to_host(required: Sequence[str], libraries: dict[str, str]) -> list[str]:
    """Where each requirement is on this machine; fails for any that is not."""
    mapped, missing = [], []
    for name in required:
        if name.startswith("/"):
            mapped.append(f"{name} => {name} (carried by {PROVIDER})")
            continue
        match = re.fullmatch(r"(\S+?)\((GLIBC_([\d.]+))?\)\(64bit\)", name)
        if match is None:
            missing.append(f"{name}: not a library requirement")
            continue
        soname, _, glibc = match.groups()
        if soname not in libraries:
            missing.append(f"{soname}: not on this machine")
        elif glibc and tuple(int(n) for n in glibc.split(".")) > _glibc():
            missing.append(f"{name}: this machine's glibc is older")
        else:
            mapped.append(f"{name} => {libraries[soname]}")
    if missing:
        raise RpmCheckError("requirements this machine lacks: " + "; ".join(missing))
    return mapped


def provider_rpm(required: Sequence[str], folder: Path) -> Path:
    """An rpm that provides exactly ``required`` and carries the scripts' shell."""
    contents = [
        {"src": str(Path(src).resolve()), "dst": dst, "type": "file"}
        for src, dst in SHELL
    ]
    config = {
        "name": PROVIDER,
        "arch": "amd64",
        "platform": "linux",
        "version": "1",
        "maintainer": "rpm_check.py",
        "description": "This machine's libraries, by the names the app requires.",
        "license": "MIT",
        "provides": list(required),
        "contents": contents,
    }
    (folder / "nfpm.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    nfpm = shutil.which("nfpm", path=os.path.dirname(sys.executable)) or "nfpm"
    _run([nfpm, "package", "--packager", "rpm", "--target", str(folder)], cwd=folder)
    (built,) = folder.glob(f"{PROVIDER}*.rpm")
    return built


def check(rpm: Path, user: int) -> list[str]:
    """Install ``rpm`` into a fresh root, run the smoke test, remove it; a report."""
    report: list[str] = []
    required = requirements(rpm)
    report += map_to_host(required, host_libraries())
    with tempfile.TemporaryDirectory(prefix="deliverables-rpm-") as work:
        root = Path(work) / "root"
        root.mkdir()
        # The app runs as another user from inside the root.
        for folder in (Path(work), root):
            folder.chmod(0o755)
        provider = provider_rpm(required, Path(work))
        _run(["rpm", "--root", str(root), "--initdb"])
        _run(["rpm", "--root", str(root), "-i", str(provider)])
        _run(["rpm", "--root", str(root), "-i", str(rpm)])
        _run(["rpm", "--root", str(root), "-V", "deliverables"])
        files = _run(["rpm", "--root", str(root), "-ql", "deliverables"]).split()
        report.append(f"installed {len(files)} files and links; rpm -V: all match")
        app = root / "opt" / "deliverables" / "deliverables"
        smoke = [sys.executable, str(PACKAGING / "smoke_test.py")]
        smoke += ["--user", str(user), "--command", str(app)]
        print(_run(smoke), end="")
        report.append("smoke test from the installed root: passed")
        _run(["rpm", "--root", str(root), "-e", "deliverables"])
        if (root / "opt" / "deliverables").exists():
            raise RpmCheckError("rpm -e left /opt/deliverables behind")
        report.append("rpm -e removed it")
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rpm", type=Path)
    parser.add_argument("--user", type=int, default=65534, help="uid of the app")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        parser.error("run as root: rpm installs into the root and runs its scripts")
    try:
        for line in check(args.rpm, args.user):
            print(f"rpm check: {line}")
    except RpmCheckError as error:
        print(f"rpm_check.py: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
