"""The time corpus's sentences (``tests/tasks/corpus/sentences-*.txt``) said to the assistant.

Each sentence is said in a fresh chat to the real application (``assistant.app``: registry,
executor, task manager, SQLite stores) with the offline planner and a manual clock at the
entry's ``@now``, in the entry's zone, the way ``test_golden.py`` checks the goldens. It must
create one reminder whose first fire (the first three, and ``end``, when it repeats) and text
are the corpus's; ``refuse`` means no task is created. One test per wrapper kind collects every
sentence that differs and fails with the list.
"""

from __future__ import annotations

from datetime import datetime
from itertools import groupby
from pathlib import Path

import pytest

from assistant.app import App, open_app
from assistant.config import load_settings
from common import ManualClock
from tasks import ReminderData, Task
from testing.corpus_reader import SHOWN, Entry, read_corpus, render_fires

SENTENCES = {corpus.kind: corpus for corpus in read_corpus() if corpus.sentences}
WRAPPERS = (
    "remind", "actually", "would-you-mind", "i-need-you-to", "please", "again", "can-you",
    "dont-let-me-forget", "typos",
)  # fmt: skip


def created(entry: Entry, tasks: list[Task]) -> str:
    """What came of the sentence, in the corpus notation (``WHEN | text`` or ``refuse``)."""
    if not tasks:
        return "refuse"
    if len(tasks) > 1:
        return f"{len(tasks)} tasks: {[task.description for task in tasks]!r}"
    task = tasks[0]
    text = task.execution.message if isinstance(task.execution, ReminderData) else task.description
    once = task.schedule.kind == "once"
    fires: list[datetime] = []
    fire = task.next_run
    while fire is not None and len(fires) < (1 if once else SHOWN + 1):
        fires.append(fire)
        fire = task.schedule.next_after(fire)
    return f"{render_fires(fires, entry.zone, once=once)} | {text}"


def wanted(entry: Entry) -> str:
    """The corpus's expectation in the form ``created`` writes."""
    return entry.expected if entry.refused else f"{entry.expected} | {entry.task_text}"


async def say_all(entries: list[Entry], data_dir: Path) -> list[str]:
    """Say each sentence of one ``@now`` block, each as a new user; one line per mismatch."""
    first = entries[0]
    settings = load_settings(
        data_dir=data_dir, timezone=first.zone.key, llm_base_url=None, serpapi_api_key=None
    )
    found = []
    async with open_app(settings, clock=ManualClock(first.now)) as app:
        for number, entry in enumerate(entries):
            got, reply = await say(app, entry, user=f"corpus-{number}")
            if got != wanted(entry):
                found.append(
                    f"{entry.where} {entry.text!r} (now {entry.now:%a %Y-%m-%d %H:%M} "
                    f"{entry.zone.key})\n    expected {wanted(entry)}\n    got      {got}\n"
                    f"    answer   {reply!r}"
                )
    return found


async def say(app: App, entry: Entry, *, user: str) -> tuple[str, str]:
    """Say ``entry.text`` as ``user``; return what was created and the answer's text."""
    reply = await app.agent.handle_message(entry.text, user_id=user, chat_id=user)
    tasks = await app.tasks.list_tasks(user, include_finished=True)
    return created(entry, tasks), reply.text


@pytest.mark.parametrize("wrapper", WRAPPERS)
async def test_every_sentence_of_the_wrapper_creates_what_the_corpus_says(
    wrapper: str, tmp_path: Path
) -> None:
    corpus = SENTENCES[f"sentences-{wrapper}"]
    found: list[str] = []
    blocks = groupby(corpus.entries, key=lambda entry: (entry.now, entry.zone.key))
    for number, (_, block) in enumerate(blocks):
        found += await say_all(list(block), tmp_path / f"block-{number}")
    summary = f"sentences-{wrapper}: {len(found)} of {len(corpus.entries)} sentences differ"
    assert not found, summary + "\n" + "\n".join(found) + "\n" + summary


def test_there_is_a_sentence_file_per_wrapper_and_150_sentences() -> None:
    assert set(SENTENCES) == {f"sentences-{wrapper}" for wrapper in WRAPPERS}
    assert sum(len(corpus.entries) for corpus in SENTENCES.values()) >= 150
