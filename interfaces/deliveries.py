"""What a delivered message offers, in every front end: the buttons under it, and what
pressing them does to the message itself (issue 28).

Every delivery can be snoozed: 10 minutes, an hour, or until tomorrow morning. A reminder's
Snooze puts the reminder itself off (a reminder that nags repeats from then); any other
message (a monitor's change, a briefing, a task's result, a notice) comes again then, as it
was, marked as snoozed (``ActionKind.LATER``). A reminder also has Done, which acknowledges
it (one that repeats until done stops) and is kept in its history; a notice about a run
whose outcome is unknown has Run again.

Telegram draws these as buttons, the page as buttons too, the terminal as the commands that
do the same.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from interfaces.messages import Action, ActionKind, Button, ButtonRows
from interfaces.views import format_moment
from tasks import (
    Acknowledgement,
    DateOrder,
    Delivery,
    DeliveryKind,
    MonitorData,
    MonitorSource,
    Snoozed,
    TaskStatus,
    TaskType,
    format_local,
    read_snooze,
    task_label,
)

SNOOZES = (("Snooze 10 min", "10m"), ("Snooze 1 h", "1h"), ("Tomorrow morning", "morning"))
"""The snooze options on every delivery: their labels and delays."""


def delivery_buttons(delivery: Delivery) -> ButtonRows:
    """The buttons a delivery arrives with."""
    if delivery.kind is DeliveryKind.REMINDER:
        return (
            snooze_row(ActionKind.SNOOZE, delivery.task_id),
            (Button("Done", Action(ActionKind.DONE, delivery.task_id)),),
        )
    rows: list[tuple[Button, ...]] = []
    if delivery.run_again:
        rows.append(run_again_row(delivery.task_id, delivery.run_id))
    rows.append(snooze_row(ActionKind.LATER, delivery.task_id))
    return tuple(rows)


def snooze_row(kind: ActionKind, task_id: str) -> tuple[Button, ...]:
    """Snooze 10 min / 1 h / tomorrow morning: the reminder itself (``SNOOZE``) or the
    message (``LATER``)."""
    return tuple(Button(label, Action(kind, task_id, delay)) for label, delay in SNOOZES)


def run_again_row(task_id: str, run_id: int | None) -> tuple[Button, ...]:
    """Run again, bound to the run the notice is about (a second tap runs nothing more)."""
    bound = "" if run_id is None else str(run_id)
    return (Button("Run again", Action(ActionKind.RUN_AGAIN, task_id, bound)),)


def snooze_until(
    words: str, now: datetime, zone: ZoneInfo, *, date_order: DateOrder = "mdy"
) -> datetime:
    """When a snooze of ``words`` ("10m", "1h", "morning", "until 5pm") that starts ``now``
    ends, in ``zone``, dates read in ``date_order`` (``read_snooze``).

    Raises:
        ScheduleError: when the words are neither a delay nor a time, with forms that work.
    """
    until = read_snooze(words, now, zone, date_order=date_order)
    return (now + until).astimezone(zone) if isinstance(until, timedelta) else until


def until_words(until: datetime, now: datetime) -> str:
    """``at 15:30`` today, ``tomorrow at 08:00``, else ``on`` the date: when a snooze
    ends, to follow "again"."""
    local, today = until, now.astimezone(until.tzinfo).date()
    if local.date() == today:
        return f"at {local:%H:%M}"
    if local.date() == today + timedelta(days=1):
        return f"tomorrow at {local:%H:%M}"
    return f"on {local:%a %Y-%m-%d at %H:%M}"


def again_words(until: datetime, now: datetime, moved_from: datetime | None) -> str:
    """When a snoozed message comes again (``until_words``), and, when this snooze moved
    an earlier one of the same message, when it would have come: ``at 15:00 instead of
    tomorrow at 08:00``."""
    said = until_words(until, now)
    if moved_from is None:
        return said
    before = until_words(moved_from.astimezone(until.tzinfo), now).removeprefix("at ")
    return f"{said} instead of {before}"


def snoozed_text(snoozed: Snoozed, until: datetime, now: datetime, zone: ZoneInfo) -> str:
    """What a snooze of a task (``TaskManager.snooze_task``) says it did."""
    task, held = snoozed.task, snoozed.held
    if held is not None:
        again = again_words(until, now, held.moved_from)
        return (
            f"I'll show the message from task {task.id} again {again}; the task keeps its schedule."
        )
    when = format_moment(task.next_run, zone) if task.next_run else "later"
    then = "" if task.schedule.kind == "once" else f", then {task.schedule.describe()}"
    if task.task_type is TaskType.REMINDER:
        return f"Snoozed {task_label(task)} until {when}{then}."
    return (
        f"Snoozed {task_label(task)}: it showed nothing in the last hour, so this puts off "
        f"its next run, to {when}{then}."
    )


def acknowledged_text(done: Acknowledgement) -> str:
    """What an acknowledgement says to the user."""
    task = done.task
    if done.already is not None:
        clock = format_local(done.already, task.schedule.tz).split(" ")[-1]
        return (
            f"Task {task.id} ('{task.description}') was already marked done at {clock}; "
            "nothing changed."
        )
    if done.stopped:
        if task.status is TaskStatus.ACTIVE and task.next_run is not None:
            return (
                f"Done: task {task.id} ('{task.description}') stops repeating until its next time."
            )
        return f"Done: task {task.id} ('{task.description}') will not repeat."
    return f"Marked as done: task {task.id} ('{task.description}')."


def watch_promise(data: MonitorData, schedule: str) -> str:
    """What making a monitor promises (``schedule`` in words): when it will speak."""
    said = data.parsed_condition()
    when = f"when {said.words()}" if said else "when it changes"
    return f"I'll check {data.subject()} {schedule} and tell you only {when}"


def watch_reply(data: MonitorData, schedule: str, task_id: str, *, existing: bool) -> str:
    """What making the monitor ``task_id`` says: its promise and what its first look does;
    a monitor that already existed is said to be the one kept."""
    if existing:
        promise = watch_promise(data, schedule).removeprefix("I'll check ")
        return (
            f"You already have that monitor (task {task_id}): I check {promise}. I made no "
            "second one."
        )
    said = data.parsed_condition()
    if said is None:
        first = "I take a first look now, which only notes what is there."
    else:
        first = f"I take a first look now, and tell you at once if {said.words()} already."
    text = f"{watch_promise(data, schedule)} (task {task_id}); {first}"
    if said is not None and said.kind.compares and data.selector is None and data.field is None:
        where = "the page" if data.source is MonitorSource.PAGE else "what it reads"
        text += (
            f" It reads the first number on {where}: to compare another, name what holds "
            "it, a CSS selector on a page ('watch #price on https://...') or a JSON field "
            "('https://.../item.json field data.price')."
        )
    return text
