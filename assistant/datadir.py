"""The data directory at start: private to its user before anything is read from it.

The directory is created 0700; an existing one whose directory or files other users could
read (an older version's 0755 and 0644, a copy, a file made by hand) is tightened to 0700
and 0600, said in one log line.
"""

from __future__ import annotations

import logging
from pathlib import Path

from common import make_private_dir, tighten

logger = logging.getLogger(__name__)

_NAMED = 5  # the paths one log line names before it counts the rest


def prepare_data_dir(data_dir: Path) -> list[Path]:
    """Create ``data_dir`` private, or make an existing one private; return what changed."""
    make_private_dir(data_dir)
    changed = tighten(data_dir)
    if changed:
        names = [str(p.relative_to(data_dir)) if p != data_dir else str(data_dir) for p in changed]
        more = f" and {len(names) - _NAMED} more" if len(names) > _NAMED else ""
        logger.warning(
            "other users could read the data directory %s: took their access away from %s%s "
            "(directories are now 0700, files 0600)",
            data_dir,
            ", ".join(names[:_NAMED]),
            more,
        )
    return changed
