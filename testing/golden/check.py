"""Golden phrases: sentences the offline planner must get right, and the check that runs them.

A ``Golden`` is a sentence and what must come of it (an ``Expect``): a task created with its
exact first run and a text free of time words, a task changed, a listing, a note, an answer, or
(for tools that reach the network) a call planned and valid. ``check_golden`` says the sentence
in a fresh chat of its own user (after the ``setup`` sentences, with the standard ``SEEDS``
when ``seeded``), through the real agent, registry, executor and task manager, and compares.

Every golden is checked as of ``NOW`` in ``ZONE`` (the app under test runs on a manual clock
set to it): Tuesday 2026-03-10, 14:30 in Berlin.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, ParamSpec, Protocol, TypeAlias
from zoneinfo import ZoneInfo

from memory import CalendarSource, Note
from tasks import (
    ReminderData,
    Task,
    TaskManager,
    TaskStatus,
    TaskType,
    parse_schedule,
)
from tools import (
    ToolContext,
    ToolParser,
    ToolRegistry,
    ToolResult,
    ToolStatus,
    validate_tool_call,
)

ZONE = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 10, 14, 30, tzinfo=ZONE)
"""The instant every golden is checked at: Tuesday 2026-03-10, 14:30 in Berlin."""

P = ParamSpec("P")


@dataclass(frozen=True, slots=True)
class Creates:
    """One new task, with its first run, its text and (when it repeats) its schedule.

    Attributes:
        first: The first run, local: ``"2026-03-10 19:00"``.
        text: The reminder's message, or the task's description.
        repeats: The schedule in words without its zone (``"every Sunday at 19:00"``), or
            ``None`` for a one-time task.
        task_type: What the task does.
        urgent: For a reminder, whether it passes quiet hours (``None``: not checked).
        nag: For a reminder, every how many minutes it repeats until done (``None``: not
            checked).
    """

    first: str
    text: str
    repeats: str | None = None
    task_type: TaskType = TaskType.REMINDER
    urgent: bool | None = None
    nag: int | None = None


@dataclass(frozen=True, slots=True)
class Changes:
    """One of the ``SEEDS`` changed: its status, next run or schedule.

    Attributes:
        task: The seed's description.
        status: Its status after the turn, when that must change.
        next_run: Its next run after the turn, local, when that must change.
        repeats: Its schedule in words after the turn, when that must change.
    """

    task: str
    status: TaskStatus | None = None
    next_run: str | None = None
    repeats: str | None = None


@dataclass(frozen=True, slots=True)
class Says:
    """An answer that contains ``contains`` and none of ``absent``; no task is created or
    changed."""

    contains: tuple[str, ...]
    absent: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Notes:
    """A note saved with this content and these tags."""

    content: str
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Plans:
    """A call planned (and valid) but not run here, for tools that reach the network.

    Use ``plans(lambda tools: tools.fetch_url, url=...)``: the tool and its keywords are
    checked against the real tool's signature.
    """

    pick: Callable[[Any], Callable[..., object]]
    arguments: dict[str, Any] = field(default_factory=dict)


Expect: TypeAlias = Creates | Changes | Says | Notes | Plans


@dataclass(frozen=True, slots=True)
class Golden:
    """A sentence and what must come of it.

    Attributes:
        text: What the user says.
        expect: What must come of it.
        setup: Sentences said first, in the same chat (not checked).
        seeded: Whether the user has the standard ``SEEDS`` tasks before.
        went_off: The user's tasks (by description) that go off after the setup, before
            the sentence is said (run now: the goldens' clock stands still).
        calendar: Whether the user reads the calendar ``CALENDAR`` beside their tasks.
    """

    text: str
    expect: Expect
    setup: tuple[str, ...] = ()
    seeded: bool = False
    went_off: tuple[str, ...] = ()
    calendar: bool = False


def says(*contains: str, absent: tuple[str, ...] = ()) -> Says:
    """An answer containing every one of ``contains``."""
    return Says(tuple(contains), absent)


def plans(pick: Callable[[Any], Callable[P, object]], *args: P.args, **kwargs: P.kwargs) -> Plans:
    """A planned call of the tool ``pick`` chooses from ``PlannerTools``, with these arguments."""
    return Plans(pick, dict(kwargs))


@dataclass(frozen=True, slots=True)
class Seed:
    """A task the user has before a seeded golden."""

    description: str
    schedule: str
    task_type: TaskType = TaskType.REMINDER
    paused: bool = False


SEEDS = (
    Seed("dentist", "tomorrow at 9am"),
    Seed("gym", "every monday at 6pm"),
    Seed("take out the trash", "today at 8pm"),
    Seed("call mom", "friday at 5pm"),
    Seed("call the plumber", "tomorrow at 10am"),
    Seed("news", "every weekday at 8am", TaskType.WEB_SEARCH),
    Seed("water the plants", "every 2 days at 7pm"),
    Seed("pay rent", "on the 1st at 9am", paused=True),
)
"""Tasks a seeded golden's user has: Wed 09:00 dentist, Monday 18:00 gym, today 20:00 trash,
Friday 17:00 call mom, Wed 10:00 plumber, a weekday news search, plants every other day at
19:00, and the rent on the 1st (paused)."""


CALENDAR = """BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//golden//work calendar//EN\r
BEGIN:VEVENT\r
UID:lunch-1\r
DTSTAMP:20260301T000000Z\r
DTSTART;TZID=Europe/Berlin:20260311T123000\r
DTEND;TZID=Europe/Berlin:20260311T133000\r
SUMMARY:Team lunch\r
LOCATION:Cafe Rosa\r
END:VEVENT\r
BEGIN:VEVENT\r
UID:yoga-1\r
DTSTAMP:20260301T000000Z\r
DTSTART;TZID=Europe/Berlin:20260306T180000\r
DTEND;TZID=Europe/Berlin:20260306T190000\r
RRULE:FREQ=WEEKLY;BYDAY=FR\r
SUMMARY:Yoga\r
END:VEVENT\r
BEGIN:VEVENT\r
UID:birthday-1\r
DTSTAMP:20260301T000000Z\r
DTSTART;VALUE=DATE:20260311\r
SUMMARY:Mom's birthday\r
END:VEVENT\r
BEGIN:VEVENT\r
UID:task-zzzzzz@assistant\r
DTSTAMP:20260301T000000Z\r
DTSTART;TZID=Europe/Berlin:20260311T150000\r
SUMMARY:exported reminder\r
X-ASSISTANT-TASK:zzzzzz\r
END:VEVENT\r
END:VCALENDAR\r
"""
"""The calendar a ``calendar`` golden's user reads ("work"): Wed lunch 12:30-13:30, yoga every
Friday 18:00, Wed all day Mom's birthday, and an event written by the assistant (one of the
user's tasks, never listed twice)."""


class CalendarKeeper(Protocol):
    """Where a ``calendar`` golden's calendar is kept (``memory.MemoryStore``)."""

    async def save_calendar_source(self, source: CalendarSource) -> None: ...


class Reply(Protocol):
    """What the check reads of the agent's reply."""

    @property
    def text(self) -> str: ...
    @property
    def results(self) -> tuple[ToolResult, ...]: ...


class Chat(Protocol):
    """What the check needs of the agent."""

    async def handle_message(self, text: str, *, user_id: str, chat_id: str) -> Reply: ...


class Planner(Protocol):
    """What the check needs of the planner, for planned-only calls."""

    @property
    def tools(self) -> Any: ...

    def respond_to(self, text: str) -> str: ...

    def tool_name(self, function: Callable[..., object]) -> str: ...


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome of one golden: whether it passed, and if not, why."""

    golden: Golden
    problem: str | None
    reply: str

    @property
    def passed(self) -> bool:
        return self.problem is None


async def check_golden(
    golden: Golden,
    *,
    user: str,
    agent: Chat,
    tasks: TaskManager,
    planner: Planner,
    registry: ToolRegistry,
    calendars: CalendarKeeper | None = None,
) -> Verdict:
    """Say ``golden.text`` as ``user`` and compare what came of it with ``golden.expect``
    (``calendars``: where a ``calendar`` golden's calendar is kept)."""
    if golden.seeded:
        await _seed(tasks, user)
    if golden.calendar:
        if calendars is None:
            raise ValueError(f"{golden.text!r} needs a calendar, and no keeper was given")
        source = CalendarSource(
            user_id=user, name="work", url="https://calendar.example.org/work.ics",
            ics=CALENDAR, fetched_at=NOW,
        )  # fmt: skip
        await calendars.save_calendar_source(source)
    for sentence in golden.setup:
        await agent.handle_message(sentence, user_id=user, chat_id=user)
    for description in golden.went_off:
        [task] = [t for t in await tasks.list_tasks(user) if t.description == description]
        await tasks.run_now(task.id, user)
    if isinstance(golden.expect, Plans):
        return await _check_plan(golden, golden.expect, planner, registry, user)
    before = {task.id: task for task in await tasks.list_tasks(user, include_finished=True)}
    reply = await agent.handle_message(golden.text, user_id=user, chat_id=user)
    after = await tasks.list_tasks(user, include_finished=True)
    problem = _problem(golden.expect, reply, before, after)
    return Verdict(golden, problem, reply.text)


async def _seed(tasks: TaskManager, user: str) -> None:
    for seed in SEEDS:
        task = await tasks.add_task(
            owner_id=user,
            chat_id=user,
            task_type=seed.task_type,
            schedule=parse_schedule(seed.schedule, now=NOW, tz=ZONE),
            description=seed.description,
        )
        if seed.paused:
            await tasks.pause(task.id, user)


def _problem(
    expect: Expect, reply: Reply, before: dict[str, Task], after: list[Task]
) -> str | None:
    created = [task for task in after if task.id not in before]
    changed = [task for task in after if task.id in before and task != before[task.id]]
    failed = [r for r in reply.results if r.status in (ToolStatus.INVALID, ToolStatus.ERROR)]
    if isinstance(expect, Says):
        missing = [text for text in expect.contains if text not in reply.text]
        present = [text for text in expect.absent if text in reply.text]
        if missing or present:
            return f"the answer lacks {missing!r} or has {present!r}"
        if created or changed:
            return f"it changed tasks: {[t.description for t in created + changed]!r}"
        return None
    if failed:
        return f"a call failed: {failed[0].error or failed[0].text}"
    if isinstance(expect, Creates):
        return _created(expect, created, changed)
    if isinstance(expect, Changes):
        return _changed(expect, created, changed)
    if isinstance(expect, Notes):
        notes = [r.output for r in reply.results if isinstance(r.output, Note)]
        saved = [(note.content, tuple(note.tags)) for note in notes]
        return None if saved == [(expect.content, expect.tags)] else f"saved {saved!r}"
    raise AssertionError(f"unknown expectation {expect!r}")


def _created(expect: Creates, created: list[Task], changed: list[Task]) -> str | None:
    if len(created) != 1 or changed:
        return f"created {[t.description for t in created]!r}, changed {len(changed)}"
    task = created[0]
    text = task.execution.message if isinstance(task.execution, ReminderData) else task.description
    first = _local(task.next_run)
    repeats = _words(task) if task.schedule.kind == "recurring" else None
    found = (first, text, repeats, task.task_type)
    wanted = (expect.first, expect.text, expect.repeats, expect.task_type)
    if found != wanted:
        return f"created {found!r}, wanted {wanted!r}"
    data = task.execution
    if isinstance(data, ReminderData):
        if expect.urgent is not None and data.urgent != expect.urgent:
            return f"created a reminder that is{'' if data.urgent else ' not'} urgent"
        if expect.nag is not None and data.nag_minutes != expect.nag:
            return f"created a reminder that repeats every {data.nag_minutes} min until done"
    return None


def _changed(expect: Changes, created: list[Task], changed: list[Task]) -> str | None:
    if created or len(changed) != 1:
        return f"created {len(created)}, changed {[t.description for t in changed]!r}"
    task = changed[0]
    found = (
        task.description,
        task.status if expect.status else None,
        _local(task.next_run) if expect.next_run else None,
        _words(task) if expect.repeats else None,
    )
    wanted = (expect.task, expect.status, expect.next_run, expect.repeats)
    return None if found == wanted else f"changed {found!r}, wanted {wanted!r}"


async def _check_plan(
    golden: Golden, expect: Plans, planner: Planner, registry: ToolRegistry, user: str
) -> Verdict:
    text = planner.respond_to(golden.text)
    calls = ToolParser(tool_names=registry.all_names()).extract_calls(text)
    ctx = await registry.prepare(ToolContext(user_id=user, chat_id=user, timezone=ZONE, now=NOW))
    wanted = planner.tool_name(expect.pick(planner.tools))
    if [call.tool_name for call in calls] != [wanted]:
        return Verdict(golden, f"planned {[c.tool_name for c in calls]!r}, wanted {wanted!r}", text)
    verdict = validate_tool_call(calls[0], registry, ctx)
    if not verdict.is_valid:
        return Verdict(golden, verdict.message(), text)
    if verdict.arguments != expect.arguments:
        return Verdict(golden, f"arguments {verdict.arguments!r}", text)
    return Verdict(golden, None, text)


def _local(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(ZONE).strftime("%Y-%m-%d %H:%M")


def _words(task: Task) -> str:
    return task.schedule.describe().removesuffix(f" ({task.schedule.tz.key})")


def pass_rate(verdicts: Sequence[Verdict]) -> float:
    """The share of goldens that passed, 0 to 1."""
    return sum(v.passed for v in verdicts) / len(verdicts) if verdicts else 0.0
