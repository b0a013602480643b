"""The methods ``dataclasses`` writes for each class, compiled once and kept between runs.

``@dataclass`` writes the source of each class's ``__init__``, ``__repr__``, ``__eq__`` (and
more for frozen classes) and hands it to ``exec``, which compiles it: at each start, for every
class. ``assistant ask`` defines about 260 of them, and compiling their 1,500 methods was a
third of its start. ``keep_dataclass_code`` gives ``dataclasses`` an ``exec`` that takes the
compiled code from a ``KeptFile`` beside the bytecode (compiled as ``exec`` would: the same
file name, no inherited future flags), so later starts compile none of it. The source itself
is the key, so a changed class is compiled anew; the file is per Python version.
"""

from __future__ import annotations

import builtins
import dataclasses
import sys
from pathlib import Path
from types import CodeType
from typing import Any

from common.kept import KeptFile, pycache


class GeneratedCode:
    """``exec`` for generated source, its compiled code kept in ``kept``."""

    def __init__(self, kept: KeptFile) -> None:
        self._kept = kept

    def exec(self, source: Any, globals: Any = None, locals: Any = None) -> None:
        """Run ``source`` as ``builtins.exec`` does, compiling a text only the first time."""
        if isinstance(source, str):
            code = self._kept.entries.get(source)
            if not isinstance(code, CodeType):
                code = compile(source, "<string>", "exec", dont_inherit=True)
                self._kept.add(source, code)
            source = code
        builtins.exec(source, globals, locals)

    def save(self) -> None:
        """Write the code compiled this run."""
        self._kept.save()


def keep_dataclass_code(path: Path | None = None, *, write: bool | None = None) -> None:
    """From now on, have ``dataclasses`` take the code of the methods it writes from a file
    kept between runs (``path``; by default in ``common/__pycache__``; ``write`` as
    ``KeptFile``'s). Once per process; a ``dataclasses`` that does not compile through
    ``exec`` is left as it is."""
    if getattr(dataclasses, "exec", builtins.exec) is not builtins.exec:
        return  # done already
    if not hasattr(dataclasses, "_create_fn"):
        return  # written differently from the version this was made for
    kept = KeptFile(path or pycache("dataclasses"), sys.version, write=write).save_at_exit()
    # dataclasses calls ``exec`` by name: a module global of that name comes before the builtin.
    setattr(dataclasses, "exec", GeneratedCode(kept).exec)  # noqa: B010
