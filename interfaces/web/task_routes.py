"""The routes over the caller's tasks.

    GET  /tasks                      your tasks (?all=true: finished ones too), a page at a time
    GET  /tasks/{id}                 one task
    POST /tasks/{id}/cancel|pause|resume|run|snooze   (snooze: '10m', '1h', 'morning', ...)
    GET  /tasks/{id}/runs            its run ledger, newest first
    GET  /tasks/{id}/runs/summary    what its older, compacted runs were, in sum

Every id is scoped to the caller: another user's task reads exactly like a missing one (404).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import APIRouter, Body, HTTPException, Query

from interfaces.task_json import TaskOut, task_out
from interfaces.web.convert import run_out, summary_out
from interfaces.web.models import (
    ErrorOut,
    RunOut,
    RunsSummaryOut,
    SnoozeRequest,
    TaskActionResponse,
)
from interfaces.web.routing import ERRORS, MAX_PAGE, PAGE, Limit, Offset, Page
from interfaces.web.services import Services, User, WebServices
from tasks import (
    ScheduleError,
    Task,
    read_snooze,
    run_time_of_day,
    still_scheduled,
    task_label,
)

router = APIRouter(tags=["tasks"], responses=ERRORS)


@router.get("/tasks", summary="Your tasks, a page at a time")
async def list_tasks(
    services: Services,
    user: User,
    page: Page,
    all: bool = False,
    limit: Limit = PAGE,
    offset: Offset = 0,
) -> list[TaskOut]:
    """Soonest next run first; a ``Link: <...>; rel="next"`` header names the next page
    while there is one."""
    zone, now = await services.agent.user_zone(user), services.clock.now()
    found = await services.tasks.list_tasks(
        user, include_finished=all, limit=limit + 1, offset=offset
    )
    return [task_out(task, zone, now) for task in page.of(found, limit, offset)]


@router.get("/tasks/{task_id}", summary="One task")
async def get_task(task_id: str, services: Services, user: User) -> TaskOut:
    task = await services.tasks.get_task(task_id, user)
    return task_out(task, await services.agent.user_zone(user), services.clock.now())


async def _act(
    services: WebServices,
    user: str,
    verb: str,
    operation: Callable[[str, str], Awaitable[Task]],
    task_id: str,
) -> TaskActionResponse:
    task = await operation(task_id, user)
    zone = await services.agent.user_zone(user)
    return TaskActionResponse(
        notice=f"{verb} {task_label(task)}.", task=task_out(task, zone, services.clock.now())
    )


@router.post("/tasks/{task_id}/cancel", summary="Cancel a task")
async def cancel(task_id: str, services: Services, user: User) -> TaskActionResponse:
    return await _act(services, user, "Cancelled", services.tasks.cancel, task_id)


@router.post("/tasks/{task_id}/pause", summary="Pause a task")
async def pause(task_id: str, services: Services, user: User) -> TaskActionResponse:
    return await _act(services, user, "Paused", services.tasks.pause, task_id)


@router.post("/tasks/{task_id}/resume", summary="Resume a task")
async def resume(task_id: str, services: Services, user: User) -> TaskActionResponse:
    return await _act(services, user, "Resumed", services.tasks.resume, task_id)


@router.post("/tasks/{task_id}/run", summary="Run a task now")
async def run_now(task_id: str, services: Services, user: User) -> TaskActionResponse:
    run = await services.tasks.run_now(task_id, user)
    task = await services.tasks.get_task(task_id, user)
    zone, now = await services.agent.user_zone(user), services.clock.now()
    detail = f" ({run.error or run.result})" if run.error or run.result else ""
    still = still_scheduled(task, zone, now)
    return TaskActionResponse(
        notice=f"Ran {task_label(task)} now: {run.status.value}{detail}; {still}.",
        task=task_out(task, zone, now),
        run=run_out(run, zone),
    )


@router.post(
    "/tasks/{task_id}/snooze",
    summary="Put a task's next run off",
    responses={400: {"model": ErrorOut}},
)
async def snooze(
    task_id: str,
    services: Services,
    user: User,
    body: Annotated[SnoozeRequest | None, Body()] = None,
) -> TaskActionResponse:
    words = (body or SnoozeRequest()).delay
    zone, now = await services.agent.user_zone(user), services.clock.now()
    current = await services.tasks.get_task(task_id, user)
    try:
        until = read_snooze(
            words,
            now,
            zone,
            date_order=await services.commands.date_order(user),
            keep=run_time_of_day(current),
        )
    except ScheduleError as error:
        raise HTTPException(400, str(error)) from None
    task = await services.tasks.snooze(current.id, user, until)
    shown = task_out(task, zone, services.clock.now())
    return TaskActionResponse(
        notice=f"Snoozed {task_label(task)} until {shown.next_run_text.removeprefix('on ')}.",
        task=shown,
    )


@router.get("/tasks/{task_id}/runs", summary="A task's run ledger")
async def runs(
    task_id: str,
    services: Services,
    user: User,
    page: Page,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 20,
    offset: Offset = 0,
) -> list[RunOut]:
    """Newest first; a ``Link: <...>; rel="next"`` header names the next page."""
    found = await services.tasks.history(task_id, user, limit=limit + 1, offset=offset)
    zone = await services.agent.user_zone(user)
    return [run_out(run, zone) for run in page.of(found, limit, offset)]


@router.get("/tasks/{task_id}/runs/summary", summary="What its older, compacted runs were, in sum")
async def runs_summary(task_id: str, services: Services, user: User) -> RunsSummaryOut:
    """Runs older than the ledger keeps in full (``ASSISTANT_LEDGER_KEEP_DAYS``, beyond the
    newest ``ASSISTANT_LEDGER_KEEP_RUNS``) are folded into this summary."""
    found = await services.tasks.ledger_summary(task_id, user)
    zone = await services.agent.user_zone(user)
    return summary_out(found, zone)
