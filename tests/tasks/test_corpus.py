"""The time corpus: every expression of ``tests/tasks/corpus`` read as docs/time-language.md says.

One test per expression file (kind): each collects every entry that differs and fails with the
list (where, expression, expected, got), so one run shows the whole state of a kind. A one-time
entry must give a one-time schedule firing at that local instant; a repeating entry the first
three ``next_after`` fires (and none after when it says ``end``); ``refuse`` a ``ScheduleError``
whose message quotes the words (some run of them, in quotes). The sentence files are checked
through the planner, in ``tests/assistant/test_corpus_sentences.py``.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

import pytest

from tasks import Schedule, ScheduleError, parse_schedule
from testing.corpus_reader import (
    SHOWN,
    CorpusFile,
    Entry,
    read_corpus,
    render_fires,
    schedule_options,
    unsupported,
)

CORPUS = read_corpus()
EXPRESSIONS = {corpus.kind: corpus for corpus in CORPUS if not corpus.sentences}
KINDS = (
    "clock-phrases", "dates", "spelled-numbers", "relative", "holidays", "recurrences", "typos",
    "refusals", "dst-days",
)  # fmt: skip
ZONES = {
    "Europe/Berlin", "America/New_York", "America/Los_Angeles", "Australia/Sydney",
    "Asia/Kolkata", "Asia/Tokyo", "UTC",
}  # fmt: skip


def reading(entry: Entry) -> str:
    """What ``parse_schedule`` makes of the entry, in the corpus notation (or the refusal)."""
    options = schedule_options(entry)
    if missing := unsupported(parse_schedule, options):
        return f"parse_schedule takes no {', '.join(missing)}"
    try:
        schedule = parse_schedule(entry.text, now=entry.now, tz=entry.zone, **options)
    except ScheduleError as error:
        if entry.refused and quotes_the_words(str(error), entry.text):
            return "refuse"
        return f"refused: {error}"
    return render_fires(fires(schedule, entry.now), entry.zone, once=schedule.kind == "once")


def fires(schedule: Schedule, now: datetime) -> list[datetime]:
    """The first fire of a one-time schedule; the first ``SHOWN + 1`` of a repeating one."""
    found: list[datetime] = []
    after = now
    for _ in range(1 if schedule.kind == "once" else SHOWN + 1):
        fire = schedule.next_after(after)
        if fire is None:
            break
        found.append(fire)
        after = fire
    return found


def quotes_the_words(message: str, text: str) -> bool:
    """Whether ``message`` quotes a run of ``text``'s words ('like this' or "like this")."""
    words = text.split()
    lowered = message.lower()
    for start in range(len(words)):
        for end in range(start + 1, len(words) + 1):
            run = " ".join(words[start:end]).lower()
            for quoted in {run, run.strip(".,;:!?")}:
                if quoted and (f"'{quoted}'" in lowered or f'"{quoted}"' in lowered):
                    return True
    return False


def mismatches(corpus: CorpusFile) -> list[str]:
    """One line per entry whose reading differs from the corpus."""
    found = []
    for entry in corpus.entries:
        got = reading(entry)
        if got != entry.expected:
            found.append(
                f"{entry.where} {entry.text!r} (now {entry.now:%a %Y-%m-%d %H:%M} "
                f"{entry.zone.key}, {entry.date_order})\n"
                f"    expected {entry.expected}\n    got      {got}"
            )
    return found


@pytest.mark.parametrize("kind", KINDS)
def test_every_expression_of_the_kind_reads_as_the_corpus_says(kind: str) -> None:
    corpus = EXPRESSIONS[kind]
    found = mismatches(corpus)
    summary = f"{kind}: {len(found)} of {len(corpus.entries)} entries differ"
    assert not found, summary + "\n" + "\n".join(found) + "\n" + summary


def test_the_corpus_holds_at_least_1500_expressions_of_every_kind() -> None:
    assert set(EXPRESSIONS) == set(KINDS)
    sizes = {kind: len(corpus.entries) for kind, corpus in EXPRESSIONS.items()}
    assert sum(sizes.values()) >= 1500, sizes
    assert min(sizes.values()) >= 100, sizes
    sentences = sum(len(corpus.entries) for corpus in CORPUS if corpus.sentences)
    assert sentences >= 150


def test_the_corpus_covers_the_zones_the_edges_and_each_kind_of_answer() -> None:
    entries = [entry for corpus in EXPRESSIONS.values() for entry in corpus.entries]
    assert {entry.zone.key for entry in entries} >= ZONES
    nows = {entry.now.replace(tzinfo=None) for entry in entries}
    assert {now.weekday() for now in nows} == set(range(7))
    assert any(now.hour < 7 for now in nows) and any(now.hour >= 22 for now in nows)
    assert any((now.month, now.day) == (12, 31) for now in nows)
    assert any((now.year, now.month, now.day) == (2028, 2, 28) for now in nows)
    assert any(now.day == 31 and now.month != 12 for now in nows)
    answers = Counter(
        "refuse" if entry.refused else "repeats" if entry.repeats else "once" for entry in entries
    )
    assert answers["refuse"] >= 150 and answers["repeats"] >= 200 and answers["once"] >= 1000
    assert any(entry.date_order == "dmy" for entry in entries)
