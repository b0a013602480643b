"""Task tools through the registry and the executor, on a manager with a manual clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from assistant.builtin import (
    SEARCH_NOT_CONFIGURED,
    TaskHistory,
    TaskListing,
    TaskReply,
    TaskSummary,
    TaskTools,
)
from common import ManualClock
from tasks import (
    ApiCallData,
    Delivery,
    DeliveryStatus,
    MemoryTaskStore,
    TaskManager,
    TaskStatus,
    TaskType,
    WebSearchData,
    parse_schedule,
    when_text,
)
from tools import ToolCall, ToolContext, ToolExecutor, ToolRegistry, ToolResult, ToolStatus

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 3, 2, 13, 30, tzinfo=UTC)  # Monday 14:30 in Berlin


class Inbox:
    """A notifier that keeps what it was asked to deliver."""

    def __init__(self) -> None:
        self.deliveries: list[Delivery] = []

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        self.deliveries.append(delivery)
        return DeliveryStatus.DELIVERED


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(NOW)


@pytest.fixture
def inbox() -> Inbox:
    return Inbox()


@pytest.fixture
async def manager(clock: ManualClock, inbox: Inbox) -> AsyncIterator[TaskManager]:
    manager = TaskManager(store=MemoryTaskStore(), notifier=inbox, clock=clock)
    await manager.start(timer=False)
    yield manager
    await manager.stop()


@pytest.fixture
def executor(manager: TaskManager) -> ToolExecutor:
    return ToolExecutor(ToolRegistry([TaskTools(manager)]), clock=ManualClock(NOW))


def ctx_for(user: str, clock: ManualClock) -> ToolContext:
    return ToolContext(user_id=user, chat_id=f"chat-{user}", timezone=BERLIN, now=clock.now())


async def call(
    executor: ToolExecutor, clock: ManualClock, tool: str, user: str = "alice", **args: object
) -> ToolResult:
    return await executor.execute(ToolCall(tool, dict(args)), ctx_for(user, clock))


def reply_of(result: ToolResult) -> TaskReply:
    assert result.status is ToolStatus.OK, result.text
    assert isinstance(result.output, TaskReply)
    return result.output


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("call mom", "to call mom"),
        ("to call mom", "to call mom"),  # not "to to call mom"
        ("the dentist", 'about "the dentist"'),
        ("Dentist", 'about "Dentist"'),
    ],
)
async def test_a_reminders_reply_names_what_it_is_about_once(
    executor: ToolExecutor, clock: ManualClock, message: str, said: str
) -> None:
    result = await call(executor, clock, "add_reminder", when="in 5 minutes", message=message)

    assert f"(Europe/Berlin) {said} (task " in result.text


async def test_add_reminder_echoes_the_exact_time_and_fires_then(
    executor: ToolExecutor, clock: ManualClock, manager: TaskManager, inbox: Inbox
) -> None:
    result = await call(executor, clock, "add_reminder", when="in 5 minutes", message="call mom")

    reply = reply_of(result)
    assert result.text == (
        f"I'll remind you today at 14:35 (Europe/Berlin) to call mom (task {reply.task.id})."
    )
    assert reply.task.next_run == "2026-03-02T14:35:00+01:00"
    assert reply.task.schedule == "once at 2026-03-02 14:35 (Europe/Berlin)"
    clock.advance(timedelta(minutes=5))
    assert await manager.run_due() == 1
    assert [(d.text, d.chat_id) for d in inbox.deliveries] == [("call mom", "chat-alice")]


async def test_add_reminder_takes_a_delay_as_other_assistants_write_it(
    executor: ToolExecutor, clock: ManualClock
) -> None:
    result = await call(executor, clock, "add_reminder", delay="5m", message="call mom")

    reply = reply_of(result)
    assert reply.task.next_run == "2026-03-02T14:35:00+01:00"
    assert result.call.arguments == {"delay": "5m", "message": "call mom"}


async def test_a_web_search_task_may_ask_for_a_summary(
    executor: ToolExecutor, clock: ManualClock, manager: TaskManager
) -> None:
    result = await call(
        executor,
        clock,
        "add_recurring_task",
        schedule="weekdays 9am",
        task_type="web_search",
        description="Search top US news and summarize top 3",
        execution_data={"query": "US top news", "limit": 3, "summarize": True},
    )

    task = await manager.get_task(reply_of(result).task.id, "alice")
    assert task.execution == WebSearchData(query="US top news", limit=3)
    assert task.schedule.describe() == "every weekday at 09:00 (Europe/Berlin)"


async def test_add_reminder_takes_recurring_words_too(
    executor: ToolExecutor, clock: ManualClock
) -> None:
    result = await call(
        executor, clock, "add_reminder", when="every weekday at 9am", message="Stand-up"
    )

    reply = reply_of(result)
    assert result.text == (
        'I\'ll remind you every weekday at 09:00 (Europe/Berlin) about "Stand-up"; the first '
        f"time tomorrow at 09:00 (Europe/Berlin) (task {reply.task.id})."
    )


async def test_schedule_errors_reach_the_model_as_readable_errors(
    executor: ToolExecutor, clock: ManualClock
) -> None:
    nonsense = await call(executor, clock, "add_reminder", when="whenever", message="x")
    past = await call(executor, clock, "add_reminder", when="2026-03-01 09:00", message="x")

    for result in (nonsense, past):
        assert result.status is ToolStatus.ERROR
        assert result.error is not None
        assert result.error.startswith("could not read ")
        assert "Error" not in result.error  # plain words for the model, no exception class
    assert "'whenever'" in (nonsense.error or "")
    assert "'2026-03-01 09:00'" in (past.error or "")


async def test_add_recurring_web_search_uses_the_description_as_query(
    executor: ToolExecutor, clock: ManualClock, manager: TaskManager
) -> None:
    result = await call(
        executor,
        clock,
        "add_recurring_task",
        schedule="weekdays 6pm",
        task_type="web_search",
        description="top US news",
    )

    reply = reply_of(result)
    assert result.text == (
        "Scheduled the web search 'top US news' every weekday at 18:00 (Europe/Berlin); next "
        f"run today at 18:00 (Europe/Berlin) (task {reply.task.id})."
    )
    task = await manager.get_task(reply.task.id, "alice")
    assert task.execution.model_dump(exclude={"kind"}) == {"query": "top US news", "limit": 5}


async def test_api_call_task_needs_approval_and_keeps_the_approved_request(
    executor: ToolExecutor, clock: ManualClock, manager: TaskManager
) -> None:
    request = {
        "method": "POST",
        "url": "https://home.example/lights/off",
        "headers": {"Authorization": "Bearer t0k3n"},
        "body": {"state": "off"},
    }
    pending = await call(
        executor,
        clock,
        "add_recurring_task",
        schedule="every day at 1am",
        task_type="api_call",
        description="lights off",
        execution_data=request,
    )

    assert pending.status is ToolStatus.PENDING_APPROVAL and pending.approval is not None
    assert await manager.list_tasks("alice") == []
    approved = await executor.approve(pending.approval.id, "alice", ctx_for("alice", clock))

    reply = reply_of(approved)
    task = await manager.get_task(reply.task.id, "alice")
    assert task.execution == ApiCallData.model_validate(request)
    assert reply.task.next_run == "2026-03-03T01:00:00+01:00"


async def test_list_tasks_shows_only_the_callers_tasks(
    executor: ToolExecutor, clock: ManualClock
) -> None:
    added = reply_of(
        await call(executor, clock, "add_reminder", when="tomorrow 8am", message="gym")
    )
    await call(executor, clock, "add_reminder", user="bob", when="in 1h", message="bob's")

    mine = await call(executor, clock, "list_tasks")
    theirs = await call(executor, clock, "list_tasks", user="carol")

    assert mine.text == f"- [{added.task.id}] reminder: gym · tomorrow at 08:00 (Europe/Berlin)"
    assert (
        mine.display
        == f"Your tasks:\n- [{added.task.id}] reminder: gym · tomorrow at 08:00 (Europe/Berlin)"
    )
    assert isinstance(mine.output, TaskListing) and isinstance(mine.output.tasks[0], TaskSummary)
    assert theirs.text == "The user has no scheduled tasks."
    assert theirs.display == "You have no tasks."


async def test_list_tasks_of_one_day_shows_what_runs_that_day(
    executor: ToolExecutor, clock: ManualClock
) -> None:
    gym = reply_of(await call(executor, clock, "add_reminder", when="tomorrow 8am", message="gym"))
    pills = reply_of(
        await call(executor, clock, "add_reminder", when="every day at 8pm", message="pills")
    )
    await call(executor, clock, "add_reminder", when="on friday at 5pm", message="rent")

    tomorrow = await call(executor, clock, "list_tasks", day="tomorrow")
    sunday = await call(executor, clock, "list_tasks", day="sunday")

    assert tomorrow.display == (
        "Your tasks for tomorrow (Tue 2026-03-03):\n"
        f"- [{gym.task.id}] reminder: gym · tomorrow at 08:00 (Europe/Berlin)\n"
        f"- [{pills.task.id}] reminder: pills · every day at 20:00 (Europe/Berlin) · "
        "next tomorrow at 20:00 (Europe/Berlin)"
    )
    assert sunday.display.startswith("Your tasks for Sun 2026-03-08:\n- ")
    assert "rent" not in sunday.display and "pills" in sunday.display
    today = await call(executor, clock, "list_tasks", day="today")
    assert "pills" in today.display and "gym" not in today.display
    empty = await call(executor, clock, "list_tasks", user="bob", day="today")
    assert empty.display == "Nothing is scheduled for today (Mon 2026-03-02)."
    await call(executor, clock, "snooze_task", task_id=pills.task.id, delay="until 11pm")
    late = await call(executor, clock, "list_tasks", day="today")
    assert "pills" in late.display  # put off to 23:00, it still runs today
    assert "next today at 23:00 (Europe/Berlin)" in late.display


async def test_a_days_tasks_leave_out_monitors_which_the_whole_list_keeps(
    executor: ToolExecutor, clock: ManualClock, manager: TaskManager
) -> None:
    pills = reply_of(
        await call(executor, clock, "add_reminder", when="every day at 8pm", message="pills")
    )
    monitor = await manager.add_task(
        owner_id="alice",
        chat_id="chat-alice",
        task_type=TaskType.MONITOR,
        schedule=parse_schedule("every minute", now=clock.now(), tz=BERLIN),
        execution_data={"source": "page", "url": "https://example.org/kettle"},
    )

    tomorrow = await call(executor, clock, "list_tasks", day="tomorrow")
    everything = await call(executor, clock, "list_tasks")

    assert tomorrow.display == (
        "Your tasks for tomorrow (Tue 2026-03-03):\n"
        f"- [{pills.task.id}] reminder: pills · every day at 20:00 (Europe/Berlin) · "
        "next tomorrow at 20:00 (Europe/Berlin)"
    )
    assert monitor.id not in tomorrow.text
    assert monitor.id in everything.display and pills.task.id in everything.display


async def test_list_tasks_of_a_period_shows_what_runs_in_it_and_says_the_period(
    executor: ToolExecutor, clock: ManualClock
) -> None:
    gym = reply_of(await call(executor, clock, "add_reminder", when="friday 8am", message="gym"))
    await call(executor, clock, "add_reminder", when="on december 3 at 9am", message="gifts")
    await call(executor, clock, "add_reminder", when="on march 3 2027 at 9am", message="passport")

    week = await call(executor, clock, "list_tasks", period="this week")
    december = await call(executor, clock, "list_tasks", period="in december")
    refused = await call(executor, clock, "list_tasks", period="blorp")

    assert week.display == (
        "Your tasks for this week (Mon 2026-03-02 to Sun 2026-03-08):\n"
        f"- [{gym.task.id}] reminder: gym · on Fri 2026-03-06 at 08:00 (Europe/Berlin)"
    )
    assert week.text.startswith("Tasks for this week (Mon 2026-03-02 to Sun 2026-03-08):\n")
    assert december.display.startswith("Your tasks for December 2026:\n")
    assert "gifts" in december.display and "passport" not in december.display
    assert refused.status is ToolStatus.ERROR
    assert "'this week', 'next month' or 'in december'" in refused.display


async def test_reschedule_keeps_the_id_and_says_old_and_new(
    executor: ToolExecutor, clock: ManualClock, manager: TaskManager
) -> None:
    dentist = reply_of(
        await call(executor, clock, "add_reminder", when="tomorrow at 9am", message="dentist")
    ).task.id

    moved = await call(executor, clock, "reschedule_task", task_id=dentist, when="6pm")
    assert moved.text == (
        f"Moved task {dentist} ('dentist'): now tomorrow at 18:00 (Europe/Berlin), was "
        "tomorrow at 09:00 (Europe/Berlin)."
    )
    again = await call(executor, clock, "reschedule_task", task_id=dentist, when="friday 10am")
    assert again.text == (
        f"Moved task {dentist} ('dentist'): now on Fri 2026-03-06 at 10:00 (Europe/Berlin), "
        "was tomorrow at 18:00 (Europe/Berlin)."
    )
    assert [t.id for t in await manager.list_tasks("alice")] == [dentist]


async def test_reschedule_of_a_repeating_task_keeps_its_days(
    executor: ToolExecutor, clock: ManualClock
) -> None:
    gym = reply_of(
        await call(executor, clock, "add_reminder", when="every monday at 6pm", message="gym")
    ).task.id
    water = reply_of(
        await call(executor, clock, "add_reminder", when="every 2 hours", message="water")
    ).task.id

    moved = await call(executor, clock, "reschedule_task", task_id=gym, when="7pm")
    assert moved.text == (
        f"Moved task {gym} ('gym'): now every Monday at 19:00 (Europe/Berlin), was every "
        "Monday at 18:00 (Europe/Berlin); next run today at 19:00 (Europe/Berlin)."
    )
    other = await call(executor, clock, "reschedule_task", task_id=gym, when="every tuesday")
    assert "now every Tuesday at 19:00 (Europe/Berlin)" in other.text
    timed = await call(executor, clock, "reschedule_task", task_id=gym, when="every friday 7am")
    assert "now every Friday at 07:00 (Europe/Berlin)" in timed.text
    timeless = await call(executor, clock, "reschedule_task", task_id=water, when="9am")
    assert timeless.status is ToolStatus.ERROR
    assert "no time of day to move" in (timeless.error or "")


async def test_a_day_alone_keeps_the_time_of_day_and_a_time_alone_keeps_the_days(
    executor: ToolExecutor, clock: ManualClock
) -> None:
    mail = reply_of(
        await call(executor, clock, "add_reminder", when="every weekday at 8:30", message="mail")
    ).task.id
    alarm = reply_of(
        await call(executor, clock, "add_reminder", when="tomorrow at 7am", message="wake up")
    ).task.id

    to_friday = await call(executor, clock, "reschedule_task", task_id=mail, when="friday")
    alarm_friday = await call(executor, clock, "reschedule_task", task_id=alarm, when="friday")
    in_days = await call(executor, clock, "reschedule_task", task_id=alarm, when="in 5 days")
    earlier = await call(executor, clock, "reschedule_task", task_id=mail, when="7:45")

    assert to_friday.text == (
        f"Moved task {mail} ('mail'): now every Friday at 08:30 (Europe/Berlin), was every "
        "weekday at 08:30 (Europe/Berlin); next run on Fri 2026-03-06 at 08:30 (Europe/Berlin)."
    )
    assert alarm_friday.text == (
        f"Moved task {alarm} ('wake up'): now on Fri 2026-03-06 at 07:00 (Europe/Berlin), was "
        "tomorrow at 07:00 (Europe/Berlin)."
    )
    assert "now on Sat 2026-03-07 at 07:00 (Europe/Berlin)" in in_days.text
    assert "now every Friday at 07:45 (Europe/Berlin)" in earlier.text
    today = await call(executor, clock, "reschedule_task", task_id=alarm, when="today")
    assert today.status is ToolStatus.ERROR
    assert "has already passed" in (today.error or "")


async def test_a_past_time_of_day_moves_to_its_next_occurrence(
    executor: ToolExecutor, clock: ManualClock
) -> None:
    soon = reply_of(
        await call(executor, clock, "add_reminder", when="in 1 hour", message="tea")
    ).task.id
    moved = await call(executor, clock, "reschedule_task", task_id=soon, when="8am")
    assert moved.text.endswith(
        "now tomorrow at 08:00 (Europe/Berlin), was today at 15:30 (Europe/Berlin)."
    )


async def test_a_web_search_is_not_scheduled_without_a_search_service(
    manager: TaskManager, clock: ManualClock
) -> None:
    executor = ToolExecutor(ToolRegistry([TaskTools(manager, search_configured=False)]))
    refused = await call(
        executor,
        clock,
        "add_recurring_task",
        schedule="every day at 8am",
        task_type="web_search",
        description="news",
    )
    # Refused as the call is checked, before anything runs or is asked of anyone.
    assert refused.status is ToolStatus.INVALID and refused.error is not None
    assert refused.error.endswith(SEARCH_NOT_CONFIGURED)
    assert await manager.list_tasks("alice") == []


@pytest.mark.parametrize(
    ("arguments", "because"),
    [
        # No model, and a prompt the offline planner does not answer.
        (
            {"task_type": "agent_task", "execution_data": {"prompt": "summarise my day"}},
            "could not answer 'summarise my day' when the task runs",
        ),
        # Data that does not fit the type.
        ({"task_type": "api_call", "execution_data": {}}, "'url' is missing"),
        (
            {"task_type": "api_call", "execution_data": {"method": "FROB", "url": "ftp://x"}},
            "method 'FROB' is not one of",
        ),
        # A schedule that cannot be read.
        (
            {
                "task_type": "api_call",
                "schedule": "blorp o clock",
                "execution_data": {"url": "https://example.com/ping"},
            },
            "blorp",
        ),
    ],
)
async def test_a_task_that_could_never_run_is_refused_before_anyone_approves_it(
    manager: TaskManager, clock: ManualClock, arguments: dict[str, object], because: str
) -> None:
    tools = TaskTools(manager, offline_prompts=_the_time_only)
    executor = ToolExecutor(ToolRegistry([tools]))
    given = {"schedule": "every day at 8am", "description": "daily", **arguments}

    refused = await executor.execute(ToolCall("add_recurring_task", given), ctx_for("alice", clock))

    assert refused.status is ToolStatus.INVALID and refused.approval is None
    assert because in refused.text
    assert await manager.list_tasks("alice") == []


def _the_time_only(prompt: str) -> bool:
    """An offline planner that answers questions about the time alone."""
    return "time" in prompt


async def test_without_a_model_an_agent_task_the_planner_answers_waits_for_approval(
    manager: TaskManager, clock: ManualClock
) -> None:
    executor = ToolExecutor(ToolRegistry([TaskTools(manager, offline_prompts=_the_time_only)]))
    waits = await call(
        executor,
        clock,
        "add_recurring_task",
        schedule="every day at 8am",
        task_type="agent_task",
        description="time in Tokyo",
        execution_data={"prompt": "what time is it in Tokyo"},
    )

    assert waits.status is ToolStatus.PENDING_APPROVAL


async def test_task_id_enum_is_the_callers_live_tasks(
    executor: ToolExecutor, clock: ManualClock
) -> None:
    first = reply_of(await call(executor, clock, "add_reminder", when="in 1h", message="a"))
    second = reply_of(await call(executor, clock, "add_reminder", when="in 2h", message="b"))
    await call(executor, clock, "add_reminder", user="bob", when="in 1h", message="c")

    ctx = await executor.registry.prepare(ctx_for("alice", clock))
    schema = executor.registry["cancel_task"].schema(ctx)

    assert sorted(schema["properties"]["task_id"]["enum"]) == sorted(
        [first.task.id, second.task.id]
    )
    wrong = await call(executor, clock, "cancel_task", task_id="zzzzzz")
    assert wrong.status is ToolStatus.INVALID and first.task.id in wrong.text


async def test_cancel_pause_resume_snooze(
    executor: ToolExecutor, clock: ManualClock, manager: TaskManager
) -> None:
    task_id = reply_of(
        await call(executor, clock, "add_reminder", when="every day at 8pm", message="pills")
    ).task.id

    paused = await call(executor, clock, "pause_task", task_id=task_id)
    resumed = await call(executor, clock, "resume_task", task_id=task_id)
    snoozed = await call(executor, clock, "snooze_task", task_id=task_id, delay="in 10 minutes")
    cancelled = await call(executor, clock, "cancel_task", task_id=task_id)

    assert paused.text == f"Paused task {task_id} ('pills'); resume it to continue."
    assert resumed.text == (
        f"Resumed task {task_id} ('pills'); next run today at 20:00 (Europe/Berlin)."
    )
    assert snoozed.text == (
        f"Snoozed task {task_id} ('pills'); next run today at 20:10 (Europe/Berlin), then "
        "every day at 20:00 (Europe/Berlin)."
    )
    assert cancelled.text == f"Cancelled task {task_id} ('pills')."
    assert (await manager.get_task(task_id, "alice")).status is TaskStatus.CANCELLED


async def test_a_snooze_keeps_its_delay_whatever_the_turn_took(
    executor: ToolExecutor, clock: ManualClock, manager: TaskManager
) -> None:
    task_id = reply_of(
        await call(executor, clock, "add_reminder", when="in 10 minutes", message="tea")
    ).task.id
    due = (await manager.get_task(task_id, "alice")).next_run
    assert due is not None
    turn = ctx_for("alice", clock)  # the turn began; the model took 3 s to call the tool
    clock.advance(3)

    snoozed = await executor.execute(
        ToolCall("snooze_task", {"task_id": task_id, "delay": "5m"}), turn
    )

    assert snoozed.status is ToolStatus.OK, snoozed.text
    assert (await manager.get_task(task_id, "alice")).next_run == due + timedelta(minutes=5)


async def test_a_snooze_until_a_time_puts_off_one_run_and_keeps_the_schedule(
    executor: ToolExecutor, clock: ManualClock, manager: TaskManager
) -> None:
    task_id = reply_of(
        await call(executor, clock, "add_reminder", when="every day at 8pm", message="pills")
    ).task.id

    tonight = await call(executor, clock, "snooze_task", task_id=task_id, delay="until 11pm")
    friday = await call(executor, clock, "snooze_task", task_id=task_id, delay="till friday")
    earlier = await call(executor, clock, "snooze_task", task_id=task_id, delay="thursday 9pm")
    daily = await call(executor, clock, "snooze_task", task_id=task_id, delay="every day at 9")

    assert tonight.text == (
        f"Snoozed task {task_id} ('pills'); next run today at 23:00 (Europe/Berlin), then "
        "every day at 20:00 (Europe/Berlin)."
    )
    assert "next run on Fri 2026-03-06 at 20:00 (Europe/Berlin)" in friday.text  # its time
    assert earlier.status is ToolStatus.ERROR
    assert "a snooze only puts a run off" in (earlier.error or "")
    assert daily.status is ToolStatus.ERROR and "puts off one run" in (daily.error or "")
    task = await manager.get_task(task_id, "alice")
    assert task.schedule.describe() == "every day at 20:00 (Europe/Berlin)"


async def test_other_users_ids_and_state_errors_are_tool_errors(
    executor: ToolExecutor, clock: ManualClock
) -> None:
    task_id = reply_of(
        await call(executor, clock, "add_reminder", when="in 1h", message="secret")
    ).task.id

    stolen = await call(executor, clock, "cancel_task", user="mallory", task_id=task_id)
    again = await call(executor, clock, "resume_task", task_id=task_id)
    bad_delay = await call(executor, clock, "snooze_task", task_id=task_id, delay="soonish")

    assert stolen.status is ToolStatus.ERROR
    assert f"there is no task {task_id!r}" in (stolen.error or "")
    assert "there are no tasks" in (stolen.error or "")
    assert again.status is ToolStatus.ERROR and "already active" in (again.error or "")
    assert bad_delay.status is ToolStatus.ERROR and "'soonish'" in (bad_delay.error or "")


def test_when_text_names_the_day() -> None:
    later = datetime(2026, 3, 6, 16, 0, tzinfo=UTC)
    assert when_text(later, BERLIN, NOW) == "on Fri 2026-03-06 at 17:00 (Europe/Berlin)"
    assert when_text(None, BERLIN, NOW) == "never (nothing is scheduled)"


async def test_a_reminder_says_which_words_it_read_as_others(
    executor: ToolExecutor, clock: ManualClock
) -> None:
    result = await call(executor, clock, "add_reminder", when="tmrw at 6pm", message="buy milk")
    reply = reply_of(result)
    assert reply.text.endswith("I read 'tmrw' as 'tomorrow'.")
    assert "tomorrow at 18:00" in reply.text
    plain = reply_of(await call(executor, clock, "add_reminder", when="at 6pm", message="x"))
    assert "I read" not in plain.text


async def test_the_date_order_is_the_users_setting_else_the_tools(
    manager: TaskManager, clock: ManualClock
) -> None:
    executor = ToolExecutor(
        ToolRegistry([TaskTools(manager, date_order="dmy")]), clock=ManualClock(NOW)
    )
    dmy = reply_of(await call(executor, clock, "add_reminder", when="4/5", message="a"))
    assert dmy.task.next_run is not None and dmy.task.next_run.startswith("2026-05-04")
    us = ToolContext(user_id="bob", timezone=BERLIN, now=clock.now(), profile={"date_order": "mdy"})
    mdy = await executor.execute(ToolCall("add_reminder", {"when": "4/5", "message": "b"}), us)
    next_run = reply_of(mdy).task.next_run
    assert next_run is not None and next_run.startswith("2026-04-05")


async def test_task_history_shows_each_run_in_the_users_zone_newest_first(
    executor: ToolExecutor, clock: ManualClock, manager: TaskManager
) -> None:
    added = await call(
        executor,
        clock,
        "add_recurring_task",
        schedule="every day at 15:00",
        task_type="reminder",
        description="stretch",
    )
    task_id = reply_of(added).task.id
    before = await call(executor, clock, "task_history", task_id=task_id)
    clock.set(datetime(2026, 3, 2, 14, 0, tzinfo=UTC))
    await manager.run_due()
    clock.set(datetime(2026, 3, 3, 14, 0, tzinfo=UTC))
    await manager.run_due()

    history = await call(executor, clock, "task_history", task_id=task_id)
    one = await call(executor, clock, "task_history", task_id=task_id, limit=1)

    assert before.text == (
        f"The task {task_id} ('stretch') has not run yet; [{task_id}] reminder: stretch · "
        "every day at 15:00 (Europe/Berlin) · next today at 15:00 (Europe/Berlin)."
    )
    assert history.status is ToolStatus.OK, history.text
    assert history.text.splitlines() == [
        f"Runs of the task {task_id} ('stretch'), newest first:",
        "- 2026-03-03 15:00 · succeeded: reminder delivered",
        "- 2026-03-02 15:00 · succeeded: reminder delivered",
    ]
    assert isinstance(one.output, TaskHistory)
    assert [(run.scheduled_for, run.status) for run in one.output.runs] == [
        ("2026-03-03T15:00:00+01:00", "succeeded")
    ]


async def test_task_history_refuses_another_users_task_and_a_bad_limit_as_chat_does(
    executor: ToolExecutor, clock: ManualClock
) -> None:
    added = await call(executor, clock, "add_reminder", when="in 5 minutes", message="tea")
    task_id = reply_of(added).task.id

    stolen = await call(executor, clock, "task_history", user="mallory", task_id=task_id)
    too_many = await call(executor, clock, "task_history", task_id=task_id, limit=500)

    assert stolen.status is ToolStatus.ERROR
    assert f"there is no task {task_id!r}" in stolen.text
    assert too_many.status is ToolStatus.INVALID
    assert "limit" in too_many.text and "50" in too_many.text
