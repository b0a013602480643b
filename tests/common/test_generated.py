"""The code of the methods @dataclass writes, compiled once and kept between runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from common import GeneratedCode, KeptFile

SOURCE = "def __create_fn__(x):\n def double(y):\n  return 2 * y + x\n return double"


def test_kept_code_runs_as_the_source_it_was_compiled_from(tmp_path: Path) -> None:
    path = tmp_path / "generated"
    first = GeneratedCode(KeptFile(path, "v1", write=True))
    made: dict[str, object] = {}
    first.exec(SOURCE, {}, made)
    first.save()
    again = GeneratedCode(KeptFile(path, "v1", write=True))
    kept: dict[str, object] = {}
    again.exec(SOURCE, {}, kept)
    other_version: dict[str, object] = {}
    GeneratedCode(KeptFile(path, "v2")).exec(SOURCE, {}, other_version)

    for namespace in (made, kept, other_version):
        make = namespace["__create_fn__"]
        assert callable(make) and make(x=1)(20) == 41
    assert path.stat().st_size > 0


PROGRAM = """
import sys
from pathlib import Path
from common import keep_dataclass_code
keep_dataclass_code(Path(sys.argv[1]), write=True)
from dataclasses import FrozenInstanceError, dataclass, field

@dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int = 0
    tags: tuple[str, ...] = field(default=())

p = Point(1, tags=("a",))
try:
    p.x = 2
except FrozenInstanceError:
    frozen = True
print(repr(p), p == Point(1, 0, ("a",)), hash(p) == hash(Point(1, 0, ("a",))), frozen)
"""


def test_dataclasses_made_with_kept_code_behave_as_ever(tmp_path: Path) -> None:
    path = tmp_path / "dataclasses"
    runs = [
        subprocess.run(
            [sys.executable, "-c", PROGRAM, str(path)],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parents[2],
        ).stdout
        for _ in range(2)
    ]

    assert runs[0] == runs[1] == "Point(x=1, y=0, tags=('a',)) True True True\n"
    assert path.stat().st_size > 0  # the first run kept the code the second one used
