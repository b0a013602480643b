"""The conversations of ``bench.llm_eval``: what a person says and what must then be true.

The clock stands at Tuesday 2026-03-10 13:30 UTC (14:30 in Berlin, 09:30 in New York and
06:30 in Los Angeles, which have just moved to summer time, 22:30 in Tokyo), so every
resolved time is known in advance.
A case succeeds when the right tool did the work (a task at the right time with the right
words, a note, a cancelled task, a request waiting for approval) or, for a question, when
the answer holds the fact and nothing was changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

NOW = datetime(2026, 3, 10, 13, 30, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Setup:
    """What exists before the conversation: reminders (words, schedule) and notes."""

    tasks: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Expect:
    """What must hold after the conversation.

    Attributes:
        tools: One of these tools must have succeeded (empty: no tool needed).
        task_at: A new task's next run as local ``YYYY-MM-DD HH:MM`` in the case's zone.
        task_words: A word the new task's text must hold.
        recurring: The new task must repeat.
        note_words: A word a new note must hold.
        cancelled_words: The task holding this word must be cancelled, and only it.
        approval: A call must wait for the user's approval, and nothing must have run.
        answer_words: A word the final reply must hold.
        no_changes: Nothing may be created, changed or cancelled.
    """

    tools: tuple[str, ...] = ()
    task_at: str | None = None
    task_words: str | None = None
    recurring: bool = False
    note_words: str | None = None
    cancelled_words: str | None = None
    approval: bool = False
    answer_words: str | None = None
    no_changes: bool = False


@dataclass(frozen=True, slots=True)
class Case:
    """One conversation: its kind, the user's zone, what they say, and what must hold."""

    kind: str
    zone: str
    said: tuple[str, ...]
    expect: Expect
    setup: Setup = field(default_factory=Setup)


REMIND = ("add_reminder", "add_recurring_task")
RECUR = ("add_recurring_task", "add_reminder")


def _remind(zone: str, said: str, at: str | None, words: str) -> Case:
    return Case("reminder", zone, (said,), Expect(REMIND, task_at=at, task_words=words))


def _recur(zone: str, said: str, at: str | None, words: str) -> Case:
    expect = Expect(RECUR, task_at=at, task_words=words, recurring=True)
    return Case("recurring", zone, (said,), expect)


def _note(said: str, words: str) -> Case:
    return Case("note", "Europe/Berlin", (said,), Expect(("save_note",), note_words=words))


def _recall(note: str, said: str, words: str) -> Case:
    expect = Expect(answer_words=words, no_changes=True)
    return Case("recall", "Europe/Berlin", (said,), expect, Setup(notes=(note,)))


def _cancel(tasks: tuple[tuple[str, str], ...], said: str, words: str) -> Case:
    expect = Expect(("cancel_task",), cancelled_words=words)
    return Case("cancel", "Europe/Berlin", (said,), expect, Setup(tasks=tasks))


def _question(said: str, words: str | None, zone: str = "Europe/Berlin") -> Case:
    return Case("question", zone, (said,), Expect(answer_words=words, no_changes=True))


def _approval(said: str) -> Case:
    return Case("approval", "Europe/Berlin", (said,), Expect(approval=True))


OVEN = ("check the oven", "in 1 hour")
MOM = ("call mom", "tomorrow at 6pm")

CASES: tuple[Case, ...] = (
    _remind(
        "Europe/Berlin", "remind me in 10 minutes to check the oven", "2026-03-10 14:40", "oven"
    ),
    _remind("Europe/Berlin", "remind me tomorrow at 9am to call mom", "2026-03-11 09:00", "mom"),
    _remind("America/New_York", "remind me at 5pm to pick up the kids", "2026-03-10 17:00", "kids"),
    _remind(
        "Asia/Tokyo", "in 2 hours remind me to take my medicine", "2026-03-11 00:30", "medicine"
    ),
    _remind("UTC", "set a reminder for 3:30pm: submit the report", "2026-03-10 15:30", "report"),
    _remind(
        "Europe/Berlin", "remind me on friday at 6pm to buy flowers", "2026-03-13 18:00", "flowers"
    ),
    _remind(
        "America/New_York", "remind me in 45 minutes to stretch", "2026-03-10 10:15", "stretch"
    ),
    _remind(
        "Europe/London",
        "remind me tomorrow at 12pm to water the plants",
        "2026-03-11 12:00",
        "plants",
    ),
    _remind(
        "Australia/Sydney",
        "remind me next monday at 8am about the dentist",
        "2026-03-16 08:00",
        "dentist",
    ),
    _remind(
        "Europe/Berlin",
        "please remind me in 30 minutes that the laundry is done",
        "2026-03-10 15:00",
        "laundry",
    ),
    _remind("Asia/Kolkata", "remind me at 9pm to call dad", "2026-03-10 21:00", "dad"),
    _remind(
        "Europe/Berlin", "in 5 minutes remind me to check my email", "2026-03-10 14:35", "email"
    ),
    _remind(
        "America/Los_Angeles",
        "remind me in 3 hours to leave for the airport",
        "2026-03-10 09:30",
        "airport",
    ),
    _recur(
        "Europe/Berlin",
        "every weekday at 8:30 remind me to check the mail",
        "2026-03-11 08:30",
        "mail",
    ),
    _recur(
        "America/New_York",
        "every monday at 10am remind me to send the weekly report",
        "2026-03-16 10:00",
        "report",
    ),
    _recur(
        "Europe/Berlin",
        "every day at 7pm remind me to take vitamins",
        "2026-03-10 19:00",
        "vitamins",
    ),
    _recur("Asia/Tokyo", "remind me every 2 hours to drink water", None, "water"),
    _recur(
        "Europe/Berlin",
        "every day at 8am search the web for top US news and send me the top 3",
        "2026-03-11 08:00",
        "news",
    ),
    _recur("UTC", "every sunday at 6pm remind me to plan the week", "2026-03-15 18:00", "plan"),
    _note("add milk to my shopping list", "milk"),
    _note("note: the wifi password is hunter2", "hunter2"),
    _note("remember that my passport number is X1234567", "X1234567"),
    _note("save a note: the car is parked on level 3", "level 3"),
    _note("put eggs and bread on the grocery list", "eggs"),
    _recall("the wifi password is hunter2", "what is my wifi password?", "hunter2"),
    _recall("the door code is 4711", "what's the door code?", "4711"),
    _cancel((OVEN,), "cancel the oven reminder", "oven"),
    _cancel((OVEN, MOM), "cancel my reminder to call mom", "mom"),
    _cancel((("check the mail", "every weekday at 8:30"),), "stop the mail reminder", "mail"),
    _cancel((("stretch", "in 2 hours"), MOM), "delete the stretch reminder", "stretch"),
    Case(
        "tasks",
        "Europe/Berlin",
        ("what are my tasks?",),
        Expect(("list_tasks",), answer_words="oven", no_changes=True),
        Setup(tasks=(OVEN,)),
    ),
    Case(
        "tasks",
        "Europe/Berlin",
        ("do I have any reminders?",),
        Expect(("list_tasks",), no_changes=True),
    ),
    _question("what is the capital of France?", "Paris"),
    _question("what is 12 times 12?", "144"),
    _question("hi!", None),
    _question("thanks, that's all for now", None),
    _question("tell me a joke", None),
    Case(
        "question",
        "Asia/Tokyo",
        ("what time is it here?",),
        Expect(("get_current_time",), answer_words="22:3", no_changes=True),
    ),
    _approval("at 1am daily POST http://home.lan/lights/off"),
    _approval("send a POST request to http://home.lan/garage/close now"),
    _approval("run this python code: print(2 + 2)"),
    _approval('call the API: POST http://home.lan/heating/on with body {"level": 3}'),
    Case(
        "follow-up",
        "Europe/Berlin",
        ("remind me in 10 minutes", "to check the oven"),
        Expect(REMIND, task_at="2026-03-10 14:40", task_words="oven"),
    ),
)
