"""The routes over tasks, approvals, notes and the caller, and the health check.

    GET  /tasks                      your tasks (?all=true: finished ones too), a page at a time
    GET  /tasks/{id}                 one task
    POST /tasks/{id}/cancel|pause|resume|run|snooze
    GET  /tasks/{id}/runs            its run ledger, newest first
    GET  /tasks/{id}/runs/summary    what its older, compacted runs were, in sum
    GET  /approvals                  requests waiting for your decision
    POST /approvals/{id}/approve|deny  decide; the answer is the agent's reply
    GET  /notes?q=                   your notes, or those matching q
    GET  /me                         who the token belongs to, their zone, whether they chose it
    PUT  /me/timezone                set the zone (the page sends its browser's)
    GET  /health                     the scheduler, and how late runs start (no token needed)

Every id is scoped to the caller: another user's task or request reads exactly like a
missing one (404). Listings come a page at a time (``limit``, ``offset``); while there is more,
a ``Link: <...>; rel="next"`` header names the next page.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any, TypeVar, assert_never

from fastapi import APIRouter, Body, Depends, HTTPException, Query, Request, Response
from fastapi.responses import JSONResponse

from agent import Decided
from interfaces.notifiers import WEB_CHAT_PREFIX
from interfaces.web.convert import (
    approval_out,
    chat_response,
    note_out,
    run_out,
    summary_out,
    task_out,
)
from interfaces.web.models import (
    ApprovalOut,
    ChatResponse,
    ErrorOut,
    HealthOut,
    MeOut,
    NoteOut,
    RunOut,
    RunsSummaryOut,
    SnoozeRequest,
    TaskActionResponse,
    TaskOut,
    ZoneOut,
    ZoneRequest,
)
from interfaces.web.services import WebServices, current_user
from memory import MemoryInputError
from tasks import ScheduleError, Task, TaskError, read_delay, still_scheduled, task_label

logger = logging.getLogger(__name__)
T = TypeVar("T")

User = Annotated[str, Depends(current_user)]
PAGE = 100
"""Items per page of a listing unless ``limit`` says otherwise."""
MAX_PAGE = 500
MAX_SEARCH = 1000
Limit = Annotated[int, Query(ge=1, le=MAX_PAGE, description="Items per page (1-500).")]
Offset = Annotated[
    int, Query(ge=0, le=10_000_000, description="How many items to skip (the page's start).")
]


class Pager:
    """One page of a listing: sets the ``Link`` header of the next page when there is one.

    Each route reads one item more than ``limit``; its presence says that a next page
    exists, without counting them all.
    """

    def __init__(self, request: Request, response: Response) -> None:
        self._request = request
        self._response = response

    def of(self, found: Sequence[T], limit: int, offset: int) -> Sequence[T]:
        """The first ``limit`` of ``found``; a ``Link`` to the next page if there were more."""
        if len(found) > limit:
            following = self._request.url.include_query_params(offset=offset + limit, limit=limit)
            self._response.headers["Link"] = f'<{following.path}?{following.query}>; rel="next"'
        return found[:limit]


Page = Annotated[Pager, Depends(Pager)]
_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorOut},
    404: {"model": ErrorOut},
    409: {"model": ErrorOut},
}


def resource_routes(services: WebServices) -> APIRouter:
    """The routes over tasks, approvals, notes and the caller, over ``services``."""
    router = APIRouter(responses=_ERRORS)
    tasks, memory, agent = services.tasks, services.memory, services.agent

    # -- tasks ----------------------------------------------------------------------------------

    @router.get("/tasks", tags=["tasks"], summary="Your tasks, a page at a time")
    async def list_tasks(
        user: User, page: Page, all: bool = False, limit: Limit = PAGE, offset: Offset = 0
    ) -> list[TaskOut]:
        """Soonest next run first; a ``Link: <...>; rel="next"`` header names the next page
        while there is one."""
        zone, now = await agent.user_zone(user), services.clock.now()
        found = await tasks.list_tasks(user, include_finished=all, limit=limit + 1, offset=offset)
        return [task_out(task, zone, now) for task in page.of(found, limit, offset)]

    @router.get("/tasks/{task_id}", tags=["tasks"], summary="One task")
    async def get_task(task_id: str, user: User) -> TaskOut:
        task = await tasks.get_task(task_id, user)
        return task_out(task, await agent.user_zone(user), services.clock.now())

    async def act(
        user: User, verb: str, operation: Callable[[str, str], Awaitable[Task]], task_id: str
    ) -> TaskActionResponse:
        task = await operation(task_id, user)
        zone = await agent.user_zone(user)
        return TaskActionResponse(
            notice=f"{verb} {task_label(task)}.", task=task_out(task, zone, services.clock.now())
        )

    @router.post("/tasks/{task_id}/cancel", tags=["tasks"], summary="Cancel a task")
    async def cancel(task_id: str, user: User) -> TaskActionResponse:
        return await act(user, "Cancelled", tasks.cancel, task_id)

    @router.post("/tasks/{task_id}/pause", tags=["tasks"], summary="Pause a task")
    async def pause(task_id: str, user: User) -> TaskActionResponse:
        return await act(user, "Paused", tasks.pause, task_id)

    @router.post("/tasks/{task_id}/resume", tags=["tasks"], summary="Resume a task")
    async def resume(task_id: str, user: User) -> TaskActionResponse:
        return await act(user, "Resumed", tasks.resume, task_id)

    @router.post("/tasks/{task_id}/run", tags=["tasks"], summary="Run a task now")
    async def run_now(task_id: str, user: User) -> TaskActionResponse:
        run = await tasks.run_now(task_id, user)
        task = await tasks.get_task(task_id, user)
        zone, now = await agent.user_zone(user), services.clock.now()
        detail = f" ({run.error or run.result})" if run.error or run.result else ""
        still = still_scheduled(task, zone, now)
        return TaskActionResponse(
            notice=f"Ran {task_label(task)} now: {run.status.value}{detail}; {still}.",
            task=task_out(task, zone, now),
            run=run_out(run, zone),
        )

    @router.post(
        "/tasks/{task_id}/snooze",
        tags=["tasks"],
        summary="Put a task's next run off",
        responses={400: {"model": ErrorOut}},
    )
    async def snooze(
        task_id: str, user: User, body: Annotated[SnoozeRequest | None, Body()] = None
    ) -> TaskActionResponse:
        words = (body or SnoozeRequest()).delay
        try:
            span = read_delay(words)
        except ScheduleError as error:
            raise HTTPException(400, str(error)) from None
        if span is None:
            raise HTTPException(
                400, f"could not read {words!r} as a delay; try 10m, 1h or '1 hour 30 minutes'"
            )
        task = await tasks.snooze(task_id, user, span.total)
        zone = await agent.user_zone(user)
        shown = task_out(task, zone, services.clock.now())
        return TaskActionResponse(
            notice=f"Snoozed {task_label(task)} until {shown.next_run_text}.", task=shown
        )

    @router.get("/tasks/{task_id}/runs", tags=["tasks"], summary="A task's run ledger")
    async def runs(
        task_id: str,
        user: User,
        page: Page,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 20,
        offset: Offset = 0,
    ) -> list[RunOut]:
        """Newest first; a ``Link: <...>; rel="next"`` header names the next page."""
        found = await tasks.history(task_id, user, limit=limit + 1, offset=offset)
        zone = await agent.user_zone(user)
        return [run_out(run, zone) for run in page.of(found, limit, offset)]

    @router.get(
        "/tasks/{task_id}/runs/summary",
        tags=["tasks"],
        summary="What its older, compacted runs were, in sum",
    )
    async def runs_summary(task_id: str, user: User) -> RunsSummaryOut:
        """Runs older than the ledger keeps in full (``ASSISTANT_LEDGER_KEEP_DAYS``, beyond the
        newest ``ASSISTANT_LEDGER_KEEP_RUNS``) are folded into this summary."""
        found = await tasks.ledger_summary(task_id, user)
        zone = await agent.user_zone(user)
        return summary_out(found, zone)

    # -- approvals ------------------------------------------------------------------------------

    @router.get("/approvals", tags=["approvals"], summary="Requests waiting for your decision")
    async def approvals(
        user: User, page: Page, limit: Limit = PAGE, offset: Offset = 0
    ) -> list[ApprovalOut]:
        zone, now = await agent.user_zone(user), services.clock.now()
        pending = [r for r in await memory.list_approvals(user) if not r.is_expired(now)]
        shown = page.of(pending[offset : offset + limit + 1], limit, offset)
        return [approval_out(r, zone) for r in shown]

    async def decide(request_id: str, user: str, *, approved: bool) -> ChatResponse:
        slot = services.turns.take(user)
        try:
            reply = await agent.resolve_approval(request_id, approved=approved, by=user)
        finally:
            slot.release()
        request = reply.request
        match reply.decided:
            case Decided.MISSING:
                raise HTTPException(404, f"no approval request {request_id!r} of yours")
            case Decided.EXPIRED:
                raise HTTPException(
                    409, f"request {request_id} expired; ask again to get a new one"
                )
            case Decided.ALREADY:
                status = request.status.value if request is not None else "decided"
                raise HTTPException(409, f"request {request_id} was already {status}")
            case Decided.APPROVED | Decided.DENIED:
                chat = request.chat_id.removeprefix(WEB_CHAT_PREFIX) if request else ""
                return chat_response(reply, chat, await agent.user_zone(user))
            case _:
                assert_never(reply.decided)

    @router.post("/approvals/{request_id}/approve", tags=["approvals"], summary="Approve")
    async def approve(request_id: str, user: User) -> ChatResponse:
        return await decide(request_id, user, approved=True)

    @router.post("/approvals/{request_id}/deny", tags=["approvals"], summary="Deny")
    async def deny(request_id: str, user: User) -> ChatResponse:
        return await decide(request_id, user, approved=False)

    # -- notes, me, health ----------------------------------------------------------------------

    @router.get("/notes", tags=["notes"], summary="Your notes, newest first, or those matching q")
    async def notes(
        user: User,
        page: Page,
        q: Annotated[str, Query(max_length=200)] = "",
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
        offset: Offset = 0,
    ) -> list[NoteOut]:
        """A ``Link: <...>; rel="next"`` header names the next page while there is one."""
        zone = await agent.user_zone(user)
        if not q.strip():
            newest = await memory.list_notes(user, limit + 1, offset)
            return [note_out(note, zone) for note in page.of(newest, limit, offset)]
        ranked = await memory.search_notes(user, q, min(offset + limit + 1, MAX_SEARCH))
        hits = page.of(ranked[offset:], limit, offset)
        return [
            NoteOut(
                id=hit.number,
                content=hit.text,
                tags=list(hit.tags),
                created_at=hit.created_at.astimezone(zone),
            )
            for hit in hits
        ]

    @router.get("/me", tags=["me"], summary="Who your token belongs to")
    async def me(user: User) -> MeOut:
        zone, chosen = await agent.user_zone(user), await services.commands.zones.chosen(user)
        return MeOut(
            user_id=user,
            timezone=zone.key,
            timezone_chosen=chosen,
            max_message_chars=services.max_message_chars,
        )

    @router.put(
        "/me/timezone",
        tags=["me"],
        summary="Set your time zone (the page sends its browser's when you never chose one)",
        responses={422: {"model": ErrorOut}},
    )
    async def set_zone(body: ZoneRequest, user: User) -> ZoneOut:
        try:
            choice = await services.commands.zones.choose(user, body.timezone)
        except MemoryInputError as error:
            raise HTTPException(422, str(error)) from None
        return ZoneOut(
            timezone=choice.zone.key,
            notice=choice.said(services.clock.now()),
            moved=[task.id for task in choice.moved],
        )

    @router.get(
        "/health",
        tags=["health"],
        summary="Whether the scheduler is alive (no token needed)",
        responses={503: {"model": HealthOut}},
    )
    async def health() -> JSONResponse:
        try:
            state = await services.scheduler.health()
        except TaskError as error:  # the store cannot be read: that is the answer
            logger.warning("the health check could not read the task store: %s", error)
            body = HealthOut(
                status="degraded",
                scheduler_running=False,
                last_tick=None,
                overdue=None,
                late_seconds=None,
                max_late_seconds=services.health_max_late.total_seconds(),
            )
            return JSONResponse(body.model_dump(mode="json"), status_code=503)
        on_time = state.late <= services.health_max_late
        ok = state.running and state.overdue == 0 and on_time
        body = HealthOut(
            status="ok" if ok else "degraded",
            scheduler_running=state.running,
            last_tick=state.last_tick,
            overdue=state.overdue,
            late_seconds=round(state.late.total_seconds(), 3),
            max_late_seconds=services.health_max_late.total_seconds(),
        )
        return JSONResponse(body.model_dump(mode="json"), status_code=200 if ok else 503)

    return router
