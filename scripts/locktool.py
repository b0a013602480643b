"""What ./scripts/lock and ./scripts/check need to know about the lock.

The lock is three files: ``uv.lock`` (every package, its version and hashes, and the pinned
build tools), ``pyproject.toml``'s ``[tool.uv] build-constraint-dependencies`` (where those build
pins are written) and ``scripts/uv-requirements.txt`` (the uv that installs it all)::

    snapshot             "name version" per line, to compare later
    diff BEFORE AFTER    what changed between two snapshots
    kind NAME            where NAME is pinned: lock, build, uv, or unknown
    build-pins           the build tools' pins, name==version
    build-inputs         the build tools, unpinned, for uv pip compile
    set-build-pins FILE  write uv pip compile's pins into pyproject.toml
    verify EXPORT        this venv holds exactly what EXPORT (uv export's output) names

It runs on the interpreter that runs the scripts (Python 3.11+, standard library only), except
``verify``, which the check runs with the venv's interpreter (it needs ``packaging``).
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "uv.lock"
PYPROJECT = ROOT / "pyproject.toml"
UV_REQUIREMENTS = ROOT / "scripts" / "uv-requirements.txt"

_INSTALLERS = frozenset({"pip"})
"""What the venv holds besides the lock: pip itself, its own installer (uv sits in .venv/uv)."""
_BUILD_PINS = re.compile(r"(?ms)^build-constraint-dependencies = \[\n(?P<body>.*?)^\]")
_PIN = re.compile(r"^(?P<name>[A-Za-z0-9._-]+)==(?P<version>[^\s;]+)")


def _normal(name: str) -> str:
    """Return a package name in its normal form (PEP 503): ``Foo_Bar`` is ``foo-bar``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _locked() -> dict[str, set[str]]:
    """Return every package of uv.lock (this project left out) with its versions."""
    data = tomllib.loads(LOCK.read_text(encoding="utf-8"))
    packages: dict[str, set[str]] = {}
    for package in data.get("package", []):
        if "editable" in package.get("source", {}) or "version" not in package:
            continue
        packages.setdefault(_normal(package["name"]), set()).add(package["version"])
    return packages


def _build_pins() -> dict[str, str]:
    """Return the pinned build tools, as written in pyproject.toml."""
    uv_settings = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["uv"]
    pins: dict[str, str] = {}
    for requirement in uv_settings.get("build-constraint-dependencies", []):
        match = _PIN.match(requirement)
        if match is None:
            raise SystemExit(f"error: the build constraint {requirement!r} is not 'name==version'")
        pins[_normal(match["name"])] = match["version"]
    return pins


def _uv_version() -> str:
    for line in UV_REQUIREMENTS.read_text(encoding="utf-8").splitlines():
        match = _PIN.match(line)
        if match is not None and _normal(match["name"]) == "uv":
            return match["version"]
    raise SystemExit(f"error: {UV_REQUIREMENTS} pins no uv version")


def snapshot() -> list[str]:
    """Return one "name version" line per locked package, build tool and uv itself."""
    lines = [f"{name} {version}" for name, versions in _locked().items() for version in versions]
    lines += [f"{name}(build) {version}" for name, version in _build_pins().items()]
    lines.append(f"uv(installer) {_uv_version()}")
    return sorted(lines)


def diff(before: list[str], after: list[str]) -> list[str]:
    """Say what changed between two snapshots: upgrades, additions and removals."""

    def by_name(lines: list[str]) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        for line in lines:
            name, version = line.split(" ", 1)
            found.setdefault(name.replace("(", " ("), set()).add(version)
        return found

    old, new = by_name(before), by_name(after)
    changes = []
    for name in sorted(old.keys() | new.keys()):
        was, now = ", ".join(sorted(old.get(name, ()))), ", ".join(sorted(new.get(name, ())))
        if was == now:
            continue
        if not was:
            changes.append(f"+ {name} {now}")
        elif not now:
            changes.append(f"- {name} {was}")
        else:
            changes.append(f"  {name} {was} -> {now}")
    return changes


def kind(name: str) -> str:
    """Say where a package is pinned: ``lock``, ``build``, ``uv`` or ``unknown``."""
    normal = _normal(name)
    if normal == "uv":
        return "uv"
    if normal in _build_pins():
        return "build"
    return "lock" if normal in _locked() else "unknown"


def build_inputs() -> list[str]:
    """Return the build tools to resolve: this project's build requirements and every pin's name."""
    requires = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["build-system"]["requires"]
    named = {_normal(re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0]) for r in requires}
    return list(requires) + sorted(set(_build_pins()) - named)


def set_build_pins(compiled: str) -> None:
    """Write ``uv pip compile``'s pins (one ``name==version`` per line) into pyproject.toml."""
    pins = [line.strip() for line in compiled.splitlines() if _PIN.match(line.strip())]
    text = PYPROJECT.read_text(encoding="utf-8")
    if _BUILD_PINS.search(text) is None:
        raise SystemExit("error: pyproject.toml has no build-constraint-dependencies list")
    body = "".join(f'    "{pin}",\n' for pin in sorted(pins, key=str.lower))
    PYPROJECT.write_text(_BUILD_PINS.sub(lambda m: m[0].replace(m["body"], body), text, 1))


def verify(export: str) -> list[str]:
    """Compare ``pip freeze`` in this venv with what ``uv export`` says the lock installs here.

    Returns:
        One line per difference; empty when the venv holds exactly the lock's selection.
    """
    from packaging.markers import Marker

    wanted: dict[str, str] = {}
    for line in export.splitlines():
        requirement, _, marker = line.partition(";")
        match = _PIN.match(requirement.strip())
        if match is None:
            continue
        if marker.strip() and not Marker(marker.strip()).evaluate():
            continue
        wanted[_normal(match["name"])] = match["version"]
    frozen = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--disable-pip-version-check",
            "freeze",
            "--all",
            "--exclude-editable",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    present = {}
    for line in frozen.splitlines():
        match = _PIN.match(line)
        if match is None:
            return [f"pip freeze names {line!r}, which is not a pinned registry package"]
        if _normal(match["name"]) not in _INSTALLERS:
            present[_normal(match["name"])] = match["version"]
    problems = [f"missing: {name}=={wanted[name]}" for name in sorted(wanted.keys() - present)]
    problems += [
        f"not in the lock: {name}=={present[name]}" for name in sorted(present.keys() - wanted)
    ]
    problems += [
        f"{name}: {present[name]} installed, {wanted[name]} locked"
        for name in sorted(wanted.keys() & present.keys())
        if wanted[name] != present[name]
    ]
    return problems


def main(argv: list[str]) -> int:
    """Run one subcommand (see the module's docstring)."""
    match argv:
        case ["snapshot"]:
            print("\n".join(snapshot()))
        case ["diff", before, after]:
            changes = diff(
                *(Path(p).read_text(encoding="utf-8").splitlines() for p in (before, after))
            )
            print("\n".join(changes) if changes else "  (nothing changed)")
        case ["kind", name]:
            print(kind(name))
        case ["build-pins"]:
            print("\n".join(f"{name}=={version}" for name, version in _build_pins().items()))
        case ["build-inputs"]:
            print("\n".join(build_inputs()))
        case ["set-build-pins", compiled]:
            set_build_pins(Path(compiled).read_text(encoding="utf-8"))
        case ["verify", export]:
            problems = verify(Path(export).read_text(encoding="utf-8"))
            for problem in problems:
                print(f"  {problem}", file=sys.stderr)
            return 1 if problems else 0
        case _:
            print(__doc__, file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
