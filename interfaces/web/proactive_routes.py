"""The routes of issue 28: quiet hours, the morning briefing, monitors, Done, and messages
shown again later.

    GET|PUT|DELETE /me/quiet-hours     your quiet hours (messages wait until they end)
    GET|PUT|DELETE /me/briefing        your morning briefing (a daily task)
    GET  /monitors                     your monitors
    POST /monitors                     watch a page or a JSON field
    GET  /tasks/{id}/observation       what a monitor saw at its last look
    POST /tasks/{id}/done              acknowledge a reminder (one that nags stops)
    POST /inbox/{item}/later           show a delivered message again later

Snoozing a reminder is ``POST /tasks/{id}/snooze`` (``interfaces.web.task_routes``), which
takes ``morning`` too. Every id is scoped to the caller: another user's reads as missing.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException

from interfaces.deliveries import (
    acknowledged_text,
    again_words,
    snooze_until,
    watch_reply,
)
from interfaces.notifiers import front_end_of
from interfaces.task_json import TaskOut, task_out
from interfaces.web.models import (
    BriefingOut,
    BriefingRequest,
    ErrorOut,
    LaterOut,
    LaterRequest,
    MonitorRequest,
    ObservationOut,
    QuietOut,
    QuietRequest,
    TaskActionResponse,
)
from interfaces.web.routing import ERRORS
from interfaces.web.services import Services, User, WebServices
from tasks import (
    HoldReason,
    ScheduleError,
    TaskType,
    daily_at,
    how_often_problem,
    monitor_of,
    parse_quiet_hours,
    read_schedule,
    task_label,
)

router = APIRouter(responses=ERRORS)
_BAD: dict[int | str, dict[str, Any]] = {400: {"model": ErrorOut}}


async def _quiet(services: WebServices, user: str, notice: str = "") -> QuietOut:
    window = await services.commands.quiet.get(user)
    # What still waits: ended quiet hours make theirs due now, and they are on their way.
    now = services.clock.now()
    held = [
        h
        for h in await services.tasks.held(user)
        if h.reason is HoldReason.QUIET and h.release_at > now
    ]
    return QuietOut(
        hours=None if window is None else window.canonical(),
        timezone=(await services.agent.user_zone(user)).key,
        held=len(held),
        notice=notice,
    )


@router.get("/me/quiet-hours", tags=["me"], summary="Your quiet hours")
async def get_quiet(services: Services, user: User) -> QuietOut:
    return await _quiet(services, user)


@router.put("/me/quiet-hours", tags=["me"], summary="Set your quiet hours", responses=_BAD)
async def set_quiet(body: QuietRequest, services: Services, user: User) -> QuietOut:
    """Messages due in them wait and arrive together when they end, marked as held;
    reminders marked urgent still come. ``off`` ends them (what they held comes now)."""
    try:
        window = parse_quiet_hours(body.hours)
    except ScheduleError as error:
        raise HTTPException(400, str(error)) from None
    zone = await services.agent.user_zone(user)
    change = await services.commands.quiet.set(user, window, tasks=services.tasks, zone=zone)
    return await _quiet(services, user, change.said())


@router.delete("/me/quiet-hours", tags=["me"], summary="End your quiet hours")
async def end_quiet(services: Services, user: User) -> QuietOut:
    zone = await services.agent.user_zone(user)
    change = await services.commands.quiet.set(user, None, tasks=services.tasks, zone=zone)
    return await _quiet(services, user, change.said())


@router.get("/me/briefing", tags=["me"], summary="Your morning briefing")
async def get_briefing(services: Services, user: User) -> BriefingOut:
    task = await services.tasks.briefing(user)
    zone, now = await services.agent.user_zone(user), services.clock.now()
    return BriefingOut(task=None if task is None else task_out(task, zone, now))


@router.put(
    "/me/briefing", tags=["me"], summary="Start or move your morning briefing", responses=_BAD
)
async def set_briefing(body: BriefingRequest, services: Services, user: User) -> BriefingOut:
    """One message a day: the day's tasks, what ran overnight (failures first), monitors
    that changed, notes tagged for the day. Built from your data; no model needed."""
    zone, now = await services.agent.user_zone(user), services.clock.now()
    try:
        schedule = daily_at(body.at, now, zone)
    except ScheduleError as error:
        raise HTTPException(400, str(error)) from None
    before = await services.tasks.briefing(user)
    task = await services.tasks.set_briefing(user, services.web_chat, schedule)
    shown = task_out(task, zone, now)
    verb = "Moved" if before is not None else "Started"
    return BriefingOut(task=shown, notice=f"{verb} your morning briefing: {shown.line}.")


@router.delete("/me/briefing", tags=["me"], summary="Stop your morning briefing")
async def stop_briefing(services: Services, user: User) -> BriefingOut:
    task = await services.tasks.briefing(user)
    if task is None:
        return BriefingOut(task=None, notice="You get no morning briefing: nothing to stop.")
    await services.tasks.cancel(task.id, user)
    return BriefingOut(task=None, notice=f"Stopped your morning briefing (task {task.id}).")


@router.get("/monitors", tags=["tasks"], summary="Your monitors")
async def list_monitors(services: Services, user: User) -> list[TaskOut]:
    """Your live monitors, soonest next look first (``/tasks`` lists every task)."""
    zone, now = await services.agent.user_zone(user), services.clock.now()
    tasks = await services.tasks.list_tasks(user)
    return [task_out(t, zone, now) for t in tasks if t.task_type is TaskType.MONITOR]


@router.post("/monitors", tags=["tasks"], summary="Watch a page", responses=_BAD)
async def add_monitor(body: MonitorRequest, services: Services, user: User) -> TaskActionResponse:
    """It looks on its schedule, through the same guarded path as every request (private
    addresses only when allowed), and tells you only of a change, or when its condition
    comes to hold; silent looks are in its history."""
    zone, now = await services.agent.user_zone(user), services.clock.now()
    data = monitor_of(
        url=body.url, selector=body.selector, field=body.field, condition=body.condition
    )  # a TaskDataError is a 400 that names the problem
    try:
        schedule = read_schedule(body.every, now=now, tz=zone, recurring=True).schedule
    except ScheduleError as error:
        raise HTTPException(400, how_often_problem(str(error))) from None
    existing = await services.tasks.find_monitor(user, data)
    task = existing or await services.tasks.add_task(
        owner_id=user,
        chat_id=services.web_chat,
        task_type=TaskType.MONITOR,
        schedule=schedule,
        execution_data=data,
        description=body.description,
    )  # an address every look would refuse is a 400 saying why
    shown = task_out(task, zone, now)
    notice = watch_reply(data, shown.schedule, task.id, existing=existing is not None)
    return TaskActionResponse(notice=notice, task=shown)


@router.get(
    "/tasks/{task_id}/observation",
    tags=["tasks"],
    summary="What a monitor saw at its last look",
    responses={404: {"model": ErrorOut}},
)
async def observation(task_id: str, services: Services, user: User) -> ObservationOut:
    seen = await services.tasks.observation(task_id, user)
    if seen is None:
        raise HTTPException(404, f"task {task_id!r} has not looked yet (or is no monitor)")
    zone = await services.agent.user_zone(user)
    return ObservationOut(
        value=seen.value,
        observed_at=seen.observed_at.astimezone(zone),
        changed_at=seen.changed_at.astimezone(zone),
        holds=seen.holds,
        checks=seen.checks,
        changes=seen.changes,
    )


@router.post("/tasks/{task_id}/done", tags=["tasks"], summary="Mark a reminder done")
async def done(task_id: str, services: Services, user: User) -> TaskActionResponse:
    """A reminder that repeats until done stops; the acknowledgement is in its history."""
    via = f"Done on {front_end_of(services.web_chat)}"
    acknowledged = await services.tasks.acknowledge(task_id, user, via=via)
    zone = await services.agent.user_zone(user)
    return TaskActionResponse(
        notice=acknowledged_text(acknowledged),
        task=task_out(acknowledged.task, zone, services.clock.now()),
    )


@router.post(
    "/inbox/{item_id}/later",
    tags=["tasks"],
    summary="Show a delivered message again later",
    responses={404: {"model": ErrorOut}, **_BAD},
)
async def later(
    item_id: str,
    services: Services,
    user: User,
    body: Annotated[LaterRequest | None, Body()] = None,
) -> LaterOut:
    """The message (an ``/events`` delivery's ``id``) comes again at that time, marked as
    snoozed; it waits in the store, so a restart loses nothing."""
    item = services.inbox.find(user, item_id)
    if item is None:
        raise HTTPException(404, f"no message {item_id!r} of yours is held here (any more)")
    zone, now = await services.agent.user_zone(user), services.clock.now()
    words = (body or LaterRequest()).delay
    try:
        order = await services.commands.date_order(user)
        until = snooze_until(words, now, zone, date_order=order)
    except ScheduleError as error:
        raise HTTPException(400, str(error)) from None
    held = await services.tasks.snooze_delivery(user, item.delivery, until)
    task = await services.tasks.get_task(held.delivery.task_id, user)
    return LaterOut(
        notice=f"I'll show the message of {task_label(task)} again "
        f"{again_words(until, now, held.moved_from)}.",
        at=until,
    )
