"""The time corpus read by three systems: ours (``parse_schedule``), dateparser, parsedatetime.

Run with ``.venv/bin/python -m bench.time_corpus`` (``--misses ours`` lists what one system got
wrong or refused). Every expression file of ``tests/tasks/corpus`` (the sentence files test the
planner and are not read here) is given to each system as of the entry's ``@now`` in its zone:

- ours: ``parse_schedule(text, now=..., tz=...)`` (``date_order="dmy"`` for a day-first user);
- dateparser: ``dateparser.parse`` with ``RELATIVE_BASE`` the local now, ``TIMEZONE`` the zone,
  ``RETURN_AS_TIMEZONE_AWARE``, ``PREFER_DATES_FROM='future'`` and ``DATE_ORDER`` the entry's;
- parsedatetime: ``Calendar().parseDT(text, sourceTime=local now, tzinfo=zone)``.

Each answer is written in the corpus's notation and counted per kind as right (the corpus's
answer; for a ``refuse`` entry, no answer), wrong (a different answer: a single date for a
repeating entry, any date for a ``refuse`` entry) or refused (no answer, or an exception). The
peers answer one instant at most, so they cannot be right on repeating entries. "right day"
counts the wrong answers on the expected date (mostly a default hour other than the contract's
09:00). Prints the table and the median time per expression of each system (one call each,
after a warm-up call).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast

import dateparser
import parsedatetime

from tasks import ScheduleError, parse_schedule
from testing.corpus_reader import (
    SHOWN,
    Entry,
    read_corpus,
    render_fires,
    schedule_options,
    unsupported,
)

Verdict = Literal["right", "wrong", "refused"]
Reader = Callable[[Entry], "str | None"]


def ours(entry: Entry) -> str | None:
    """``parse_schedule``'s answer: the first fire, or the first fires of a repeating one."""
    options = schedule_options(entry)
    if unsupported(parse_schedule, options):
        return None
    try:
        schedule = parse_schedule(entry.text, now=entry.now, tz=entry.zone, **options)
    except ScheduleError:
        return None
    once = schedule.kind == "once"
    fires: list[datetime] = []
    after = entry.now
    while len(fires) < (1 if once else SHOWN + 1):
        fire = schedule.next_after(after)
        if fire is None:
            break
        fires.append(fire)
        after = fire
    return render_fires(fires, entry.zone, once=once)


def with_dateparser(entry: Entry) -> str | None:
    """``dateparser.parse``'s answer, one instant or none."""
    settings = {
        "RELATIVE_BASE": entry.now.replace(tzinfo=None),
        "TIMEZONE": entry.zone.key,
        "RETURN_AS_TIMEZONE_AWARE": True,
        "PREFER_DATES_FROM": "future",
        "DATE_ORDER": entry.date_order.upper(),
    }
    found = cast("datetime | None", dateparser.parse(entry.text, settings=settings))
    return None if found is None else render_fires([found], entry.zone, once=True)


_CALENDAR = parsedatetime.Calendar()


def with_parsedatetime(entry: Entry) -> str | None:
    """``parsedatetime``'s answer, one instant or none (status 0: nothing was parsed)."""
    found, status = cast(
        "tuple[datetime, int]",
        _CALENDAR.parseDT(entry.text, sourceTime=entry.now.replace(tzinfo=None), tzinfo=entry.zone),
    )
    return None if status == 0 else render_fires([found], entry.zone, once=True)


SYSTEMS: dict[str, Reader] = {
    "ours": ours,
    "dateparser": with_dateparser,
    "parsedatetime": with_parsedatetime,
}


@dataclass(frozen=True, slots=True)
class Outcome:
    """One system's answer to one entry, judged."""

    entry: Entry
    answer: str | None
    verdict: Verdict
    right_day: bool
    seconds: float


def judge(entry: Entry, read: Reader) -> Outcome:
    """Ask ``read`` for the entry's reading, time it, and compare it with the corpus.

    A peer's exception counts as no answer: the benchmark measures what a caller gets back.
    """
    began = time.perf_counter()
    try:
        answer = read(entry)
    except Exception:  # a peer library's failure is its refusal, by the benchmark's rule
        answer = None
    seconds = time.perf_counter() - began
    if answer is None:
        return Outcome(entry, None, "right" if entry.refused else "refused", False, seconds)
    if answer == entry.expected:
        return Outcome(entry, answer, "right", False, seconds)
    right_day = not entry.refused and answer[:10] == entry.expected[:10]
    return Outcome(entry, answer, "wrong", right_day, seconds)


def measure(entries: Sequence[Entry]) -> dict[str, list[Outcome]]:
    """Every system's outcome on every entry, after one warm-up call each."""
    results = {}
    for name, read in SYSTEMS.items():
        judge(entries[0], read)
        results[name] = [judge(entry, read) for entry in entries]
    return results


def table(kinds: Sequence[str], results: dict[str, list[Outcome]]) -> list[str]:
    """The kind x system table: right, wrong and refused as counts and percentages."""
    lines = [
        f"{'kind':<16} {'system':<14} {'n':>5}  {'right':>12}  {'wrong':>12}  "
        f"{'refused':>12}  {'wrong, right day':>16}"
    ]
    for kind in [*kinds, "total"]:
        for number, (name, outcomes) in enumerate(results.items()):
            mine = [o for o in outcomes if kind in ("total", o.entry.kind)]
            cells = [_cell(sum(o.verdict == v for o in mine), len(mine)) for v in _VERDICTS]
            days = sum(o.right_day for o in mine)
            label = kind if number == 0 else ""
            lines.append(f"{label:<16} {name:<14} {len(mine):>5}  {'  '.join(cells)}  {days:>16}")
    return lines


_VERDICTS: tuple[Verdict, ...] = ("right", "wrong", "refused")


def _cell(count: int, total: int) -> str:
    share = count / total if total else 0.0
    return f"{count:>5} {share:>6.1%}"


def timings(results: dict[str, list[Outcome]]) -> list[str]:
    """The median time per expression of each system."""
    return [
        f"{name:<14} median {statistics.median(o.seconds for o in outcomes) * 1e6:>9.0f} µs "
        f"per expression"
        for name, outcomes in results.items()
    ]


def misses(outcomes: Sequence[Outcome]) -> list[str]:
    """One line per entry the system did not get right."""
    return [
        f"{o.entry.where} {o.entry.text!r}: expected {o.entry.expected}, got "
        f"{o.answer or 'no answer'}"
        for o in outcomes
        if o.verdict != "right"
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table (and one system's misses when asked)."""
    parser = argparse.ArgumentParser(prog="bench.time_corpus", description=__doc__)
    parser.add_argument("--misses", choices=sorted(SYSTEMS), help="list one system's misses")
    args = parser.parse_args(argv)
    files = [corpus for corpus in read_corpus() if not corpus.sentences]
    entries = [entry for corpus in files for entry in corpus.entries]
    results = measure(entries)
    print(f"time corpus: {len(entries)} expressions in {len(files)} kinds")
    print("\n".join(table([corpus.kind for corpus in files], results)))
    print("\n".join(timings(results)))
    if args.misses:
        print("\n".join(misses(results[args.misses])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
