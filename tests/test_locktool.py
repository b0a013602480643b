"""scripts/locktool.py, run as ./scripts/lock and ./scripts/check run it: what changed between
two locks, where a name is pinned, and whether the venv holds exactly the lock."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "scripts" / "locktool.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *args], capture_output=True, text=True, check=False
    )


def test_diff_says_upgrades_additions_and_removals(tmp_path: Path) -> None:
    before = tmp_path / "before"
    after = tmp_path / "after"
    before.write_text("mypy 2.3.1\nruff 0.17.0\nsetuptools(build) 80.0.0\nuv(installer) 0.13.8\n")
    after.write_text("mypy 2.4.1\nsix 1.17.0\nsetuptools(build) 84.2.1\nuv(installer) 0.13.8\n")
    done = run("diff", str(before), str(after))
    assert done.returncode == 0
    assert done.stdout.splitlines() == [
        "  mypy 2.3.1 -> 2.4.1",
        "- ruff 0.17.0",
        "  setuptools (build) 80.0.0 -> 84.2.1",
        "+ six 1.17.0",
    ]
    same = run("diff", str(before), str(before))
    assert same.stdout.strip() == "(nothing changed)"


def test_every_name_is_found_where_it_is_pinned() -> None:
    kinds = {name: run("kind", name).stdout.strip() for name in ("MyPy", "setuptools", "uv", "x")}
    assert kinds == {"MyPy": "lock", "setuptools": "build", "uv": "uv", "x": "unknown"}


def test_the_snapshot_holds_the_lock_the_build_tools_and_uv() -> None:
    lines = run("snapshot").stdout.splitlines()
    names = {line.split(" ", 1)[0] for line in lines}
    assert {"mypy", "pytest", "setuptools(build)", "uv(installer)"} <= names
    assert all(len(line.split(" ")) == 2 for line in lines)


def installed_export() -> str:
    """This venv's packages in ``uv export``'s form, pip itself left out as the lock does."""
    seen = {
        (dist.metadata["Name"], dist.version)
        for dist in distributions()
        if dist.metadata["Name"] and dist.metadata["Name"].lower() not in {"pip", "assistant"}
    }
    return "".join(f"{name}=={version} ; python_full_version >= '3.11'\n" for name, version in seen)


def test_verify_holds_for_this_venv_and_names_what_differs(tmp_path: Path) -> None:
    export = tmp_path / "export.txt"
    export.write_text(installed_export())
    assert run("verify", str(export)).returncode == 0
    lines = export.read_text().splitlines()
    ruff = next(line for line in lines if line.lower().startswith("ruff=="))
    export.write_text(
        "\n".join([line for line in lines if line != ruff] + ["notapackage==1.0", ""])
    )
    done = run("verify", str(export))
    assert done.returncode == 1
    assert "missing: notapackage==1.0" in done.stderr
    assert "not in the lock: ruff==" in done.stderr
    skipped = tmp_path / "marker.txt"
    skipped.write_text(installed_export() + "pywin32==306 ; sys_platform == 'win32'\n")
    assert run("verify", str(skipped)).returncode == 0
