"""Read the JSON Lines file that ``assistant serve`` appends its deliveries to."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path


@dataclass(frozen=True, slots=True)
class SinkLine:
    """One delivery as the sink recorded it.

    Attributes:
        task_id: The task that produced it.
        run_id: The ledger row of the run, or ``None`` for a notice outside a run.
        kind: ``reminder``, ``result`` or ``notice``.
        text: The delivered text.
        late_by: How late the run said it was, or ``None``.
        delivered_at: When the sink wrote it (UTC).
    """

    task_id: str
    run_id: int | None
    kind: str
    text: str
    late_by: timedelta | None
    delivered_at: datetime


@dataclass
class SinkReader:
    """Reads a growing sink file incrementally; only complete lines are consumed.

    Args:
        path: The sink file (it may not exist yet).
    """

    path: Path
    lines: list[SinkLine] = field(default_factory=list)
    corrupt: list[str] = field(default_factory=list)
    _offset: int = 0

    def read_new(self) -> list[SinkLine]:
        """Consume every complete line written since the last call and return the new ones."""
        return self._read(final=False)

    def read_rest(self) -> list[SinkLine]:
        """Consume everything, counting a last line without a newline as corrupt (torn)."""
        return self._read(final=True)

    def _read(self, *, final: bool) -> list[SinkLine]:
        try:
            with self.path.open("rb") as sink:
                sink.seek(self._offset)
                chunk = sink.read()
        except FileNotFoundError:
            return []
        end = len(chunk) if final else chunk.rfind(b"\n") + 1
        self._offset += end
        new: list[SinkLine] = []
        for raw in chunk[:end].splitlines():
            parsed = parse_sink_line(raw)
            if parsed is None:
                self.corrupt.append(raw.decode("utf-8", errors="replace")[:200])
            else:
                new.append(parsed)
        self.lines.extend(new)
        return new


def parse_sink_line(raw: bytes) -> SinkLine | None:
    """Parse one line of the sink, or return ``None`` when it is not a well-formed delivery."""
    try:
        data = json.loads(raw)
        late = data["late_by_seconds"]
        run_id = data["run_id"]
        return SinkLine(
            task_id=str(data["task_id"]),
            run_id=None if run_id is None else int(run_id),
            kind=str(data["kind"]),
            text=str(data["text"]),
            late_by=None if late is None else timedelta(seconds=float(late)),
            delivered_at=datetime.fromisoformat(str(data["delivered_at"])),
        )
    except (ValueError, KeyError, TypeError):
        return None
