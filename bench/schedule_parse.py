"""How fast the schedule language is read: ``parse_schedule`` over a list of typical phrases.

Run with ``.venv/bin/python -m bench.schedule_parse``. Each phrase is parsed many times in
Europe/Berlin; prints microseconds per phrase (p50, p99 and the slowest phrase, best of the
rounds) for the phrases that resolve, the same for phrases that are refused with a
``ScheduleError``, and phrases per second over the whole list.
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from tasks import ScheduleError, parse_schedule

ROUNDS = 200
ZONE = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 27, 10, 15, tzinfo=UTC)

PHRASES = (
    "in 5 minutes",
    "in 2 hours",
    "in 1h30m",
    "in ten minutes",
    "in 3 days",
    "tomorrow at 9am",
    "tomorrow",
    "today at 18:30",
    "at 14:35",
    "5pm",
    "tonight",
    "on friday at 5pm",
    "next monday at 10",
    "Dec 25 9am",
    "2026-04-01 08:00",
    "2026-04-01T08:00:00+02:00",
    "every day at 9am",
    "daily at 7:30",
    "every weekday at 6pm",
    "weekdays at 9",
    "every monday at 10am",
    "every 15 minutes",
    "every 2 hours",
    "every hour",
    "every sunday at 2:30am",
    "0 9 * * 1-5",
    "*/10 * * * *",
    "30 1 * * *",
)

REFUSED = (
    "yesterday at 9",
    "at 25:00",
    "whenever you like",
    "every blue moon",
    "61 * * * *",
    "in -5 minutes",
)


def time_phrase(text: str) -> float:
    """Return the best time in microseconds to parse ``text``, of a few rounds."""
    best = float("inf")
    for _ in range(5):
        began = time.perf_counter()
        for _ in range(ROUNDS):
            with contextlib.suppress(ScheduleError):
                parse_schedule(text, now=NOW, tz=ZONE)
        best = min(best, (time.perf_counter() - began) / ROUNDS)
    return best * 1e6


def summary(label: str, timings: Sequence[float]) -> str:
    """Say p50, p99 and max of ``timings`` (microseconds) in one line."""
    ordered = sorted(timings)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * len(ordered)) - 1)]
    return (
        f"{label:<34} p50 {statistics.median(ordered):7.1f} us   p99 {p99:7.1f} us   "
        f"max {ordered[-1]:7.1f} us   ({len(ordered)} phrases)"
    )


def check_phrases() -> list[str]:
    """Return the phrases that do not behave as listed (resolve, or are refused)."""
    wrong = []
    for text in PHRASES:
        try:
            parse_schedule(text, now=NOW, tz=ZONE)
        except ScheduleError as exc:
            wrong.append(f"{text!r} was refused: {exc}")
    for text in REFUSED:
        try:
            parse_schedule(text, now=NOW, tz=ZONE)
        except ScheduleError:
            continue
        wrong.append(f"{text!r} was accepted")
    return wrong


def main() -> int:
    """Print the figures; exit 1 when a phrase does not behave as listed."""
    wrong = check_phrases()
    for problem in wrong:
        print(f"phrase list: {problem}")
    resolved = {text: time_phrase(text) for text in PHRASES}
    refused = [time_phrase(text) for text in REFUSED]
    slowest = max(resolved, key=resolved.__getitem__)
    print(summary("schedule phrases (resolved)", list(resolved.values())))
    print(summary("schedule phrases (refused)", refused))
    print(f"{'slowest phrase':<34} {slowest!r} {resolved[slowest]:.1f} us")
    total_us = sum(resolved.values()) + sum(refused)
    rate = (len(resolved) + len(refused)) / (total_us / 1e6)
    print(f"{'phrases per second':<34} {rate:,.0f}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
