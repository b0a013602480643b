"""The time corpus (``tests/tasks/corpus/*.txt``) read into typed entries, and readings rendered.

The format is docs/time-language.md's ("The corpus"): ``@now LOCAL_ISO ZONE`` and
``@dateorder dmy|mdy`` lines set the context of the entries below them; an entry is
``expression => expected``, where expected is one local instant, the first fires of a
repeating schedule (``end`` when it ends), or ``refuse``; sentence files add ``| text``.

Shared by the corpus tests (``tests/tasks/test_corpus.py``, the sentences' test under
``tests/assistant``) and the benchmark (``bench.time_corpus``), so that all three read the
files one way. A reading is rendered in the corpus's own notation (``render_fires``), so a
comparison is a string comparison that a failure list can show as it is.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo

CORPUS_DIR = Path(__file__).resolve().parent.parent / "tests" / "tasks" / "corpus"
SENTENCES = "sentences-"
"""The prefix of the sentence files' names; the rest are expression files."""

DateOrder = Literal["mdy", "dmy"]
REFUSE = "refuse"
END = "end"
SHOWN = 3
"""How many fires of a repeating schedule an entry lists."""

_ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?")


class CorpusFormatError(ValueError):
    """A corpus line does not follow the format; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One expression (or sentence) and what it must give.

    Attributes:
        kind: The file's name without ``.txt`` (``"clock-phrases"``, ``"sentences-please"``).
        line: The line number in that file.
        text: The expression or sentence, as written.
        now: The instant it is said (aware, in ``zone``).
        zone: The user's zone.
        date_order: How the user reads an ambiguous numeric date.
        expected: The corpus notation of what it must give: ``"refuse"``, one local ISO
            instant, or up to three instants (then ``end`` when it ends).
        task_text: For sentences, the reminder's text; ``None`` for expressions.
    """

    kind: str
    line: int
    text: str
    now: datetime
    zone: ZoneInfo
    date_order: DateOrder
    expected: str
    task_text: str | None = None

    @property
    def refused(self) -> bool:
        """Whether the entry must be refused."""
        return self.expected == REFUSE

    @property
    def repeats(self) -> bool:
        """Whether the entry expects a repeating schedule (several fires, or an end)."""
        return not self.refused and len(self.expected.split()) > 1

    @property
    def where(self) -> str:
        """``kind:line``, to find the entry in its file."""
        return f"{self.kind}:{self.line}"


@dataclass(frozen=True, slots=True)
class CorpusFile:
    """The entries of one corpus file, in order."""

    kind: str
    path: Path
    entries: tuple[Entry, ...]

    @property
    def sentences(self) -> bool:
        """Whether it holds whole sentences (read through the planner) rather than expressions."""
        return self.kind.startswith(SENTENCES)


def read_corpus(directory: Path = CORPUS_DIR) -> list[CorpusFile]:
    """Read every ``*.txt`` file of ``directory``, sorted by name."""
    files = [read_file(path) for path in sorted(directory.glob("*.txt"))]
    if not files:
        raise CorpusFormatError(f"no corpus files in {str(directory)!r}")
    return files


def read_file(path: Path) -> CorpusFile:
    """Read one corpus file.

    Raises:
        CorpusFormatError: naming the file and line that does not follow the format.
    """
    kind = path.stem
    entries: list[Entry] = []
    now: datetime | None = None
    zone: ZoneInfo | None = None
    order: DateOrder = "mdy"
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{path.name}:{number}"
        if line.startswith("@now "):
            now, zone = _read_now(line, where)
        elif line.startswith("@dateorder "):
            order = _read_order(line, where)
        elif now is None or zone is None:
            raise CorpusFormatError(f"{where}: an entry before any @now line: {raw!r}")
        else:
            text, expected, task_text = _read_entry(line, where, kind.startswith(SENTENCES))
            entries.append(Entry(kind, number, text, now, zone, order, expected, task_text))
    return CorpusFile(kind, path, tuple(entries))


def schedule_options(entry: Entry) -> dict[str, Any]:
    """The keywords beside ``now`` and ``tz`` that ``parse_schedule`` gets for this entry.

    Only a day-first user passes anything (``date_order="dmy"``): month first is the default.
    """
    return {"date_order": entry.date_order} if entry.date_order == "dmy" else {}


def unsupported(function: Callable[..., object], options: dict[str, Any]) -> list[str]:
    """The keywords of ``options`` that ``function`` does not take (none when it takes all).

    The corpus needs a day-first user's reading; until ``parse_schedule`` takes the date
    order, such entries report that instead of crashing the whole kind.
    """
    parameters = inspect.signature(function).parameters
    return [name for name in options if name not in parameters]


def render_fires(fires: Sequence[datetime], zone: ZoneInfo, *, once: bool) -> str:
    """Write fires in the corpus notation, local to ``zone``.

    Args:
        fires: For a one-time schedule its fire; for a repeating one its first ``SHOWN + 1``
            fires, or all of them when it has fewer (then ``end`` is written).
        zone: The zone the instants are shown in.
        once: Whether the schedule is one-time (a single instant, never ``end``).
    """
    if not fires:
        return "no fire"
    shown = [_local(fire, zone) for fire in fires[: 1 if once else SHOWN]]
    ends = not once and len(fires) <= SHOWN
    return " ".join(shown) + (f" {END}" if ends else "")


def _local(instant: datetime, zone: ZoneInfo) -> str:
    """``YYYY-MM-DDTHH:MM[:SS]`` local; a repeated hour's second occurrence is marked."""
    local = instant.astimezone(zone)
    text = local.strftime("%Y-%m-%dT%H:%M") + (f":{local.second:02d}" if local.second else "")
    return text + ("(second occurrence)" if local.fold else "")


def _read_now(line: str, where: str) -> tuple[datetime, ZoneInfo]:
    parts = line.split()
    if len(parts) != 3:
        raise CorpusFormatError(f"{where}: '@now LOCAL_ISO ZONE' expected, got {line!r}")
    try:
        local = datetime.fromisoformat(parts[1])
        zone = ZoneInfo(parts[2])
    except (ValueError, KeyError) as error:
        raise CorpusFormatError(f"{where}: {line!r}: {error}") from error
    if local.tzinfo is not None:
        raise CorpusFormatError(f"{where}: @now is local time, without an offset: {line!r}")
    return local.replace(tzinfo=zone), zone


def _read_order(line: str, where: str) -> DateOrder:
    value = line.split(maxsplit=1)[1].strip()
    if value == "mdy":
        return "mdy"
    if value == "dmy":
        return "dmy"
    raise CorpusFormatError(f"{where}: '@dateorder dmy' or '@dateorder mdy', got {line!r}")


def _read_entry(line: str, where: str, sentence: bool) -> tuple[str, str, str | None]:
    text, arrow, right = line.partition("=>")
    if not arrow or not text.strip():
        raise CorpusFormatError(f"{where}: 'expression => expected' expected, got {line!r}")
    expected, bar, task_text = (" ".join(part.split()) for part in right.partition("|"))
    if expected != REFUSE:
        _check_fires(expected, where)
    if sentence and expected != REFUSE and not (bar and task_text):
        raise CorpusFormatError(f"{where}: a sentence needs '=> WHEN | text', got {line!r}")
    if not sentence and bar:
        raise CorpusFormatError(f"{where}: only sentence files have '| text': {line!r}")
    return " ".join(text.split()), expected, task_text if bar else None


def _check_fires(expected: str, where: str) -> None:
    words = expected.split()
    instants = words[:-1] if words[-1:] == [END] else words
    if not 1 <= len(instants) <= SHOWN or not all(_ISO.fullmatch(word) for word in instants):
        raise CorpusFormatError(
            f"{where}: 'refuse', one local ISO instant, or up to {SHOWN} (then 'end') "
            f"expected, got {expected!r}"
        )
    if len(instants) < SHOWN and words[-1] != END and len(instants) > 1:
        raise CorpusFormatError(f"{where}: fewer than {SHOWN} fires must end with 'end'")
