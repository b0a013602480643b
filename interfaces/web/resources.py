"""The routes over approvals, notes and the caller, and the health check.

    GET  /approvals                  requests waiting for your decision
    POST /approvals/{id}/approve|deny  decide; the answer is the agent's reply
    GET  /notes?q=                   your notes, or those matching q
    GET  /me                         who the token belongs to, their zone, whether they chose it
    PUT  /me/timezone                set the zone (the page sends its browser's)
    GET  /health                     the scheduler, and how late runs start (no token needed)

Every id is scoped to the caller: another user's request reads exactly like a missing one
(404). Listings come a page at a time (``limit``, ``offset``); while there is more, a
``Link: <...>; rel="next"`` header names the next page. The tasks' routes are in
``interfaces.web.task_routes``.
"""

from __future__ import annotations

import logging
from typing import Annotated, assert_never

from fastapi import APIRouter, HTTPException, Query
from fastapi.responses import JSONResponse

from agent import Decided
from interfaces.notifiers import WEB_CHAT_PREFIX
from interfaces.web.convert import approval_out, chat_response, note_out
from interfaces.web.models import (
    ApprovalOut,
    ChatResponse,
    ErrorOut,
    HealthOut,
    MeOut,
    NoteOut,
    ZoneOut,
    ZoneRequest,
)
from interfaces.web.routing import ERRORS, MAX_PAGE, PAGE, Limit, Offset, Page
from interfaces.web.services import Services, User, WebServices
from memory import MemoryInputError
from tasks import TaskError

logger = logging.getLogger(__name__)

MAX_SEARCH = 1000
router = APIRouter(responses=ERRORS)

# -- approvals ----------------------------------------------------------------------------------


@router.get("/approvals", tags=["approvals"], summary="Requests waiting for your decision")
async def approvals(
    services: Services, user: User, page: Page, limit: Limit = PAGE, offset: Offset = 0
) -> list[ApprovalOut]:
    zone, now = await services.agent.user_zone(user), services.clock.now()
    pending = [r for r in await services.memory.list_approvals(user) if not r.is_expired(now)]
    shown = page.of(pending[offset : offset + limit + 1], limit, offset)
    return [approval_out(r, zone) for r in shown]


async def _decide(
    services: WebServices, request_id: str, user: str, *, approved: bool
) -> ChatResponse:
    agent = services.agent
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
            raise HTTPException(409, f"request {request_id} expired; ask again to get a new one")
        case Decided.ALREADY:
            status = request.status.value if request is not None else "decided"
            raise HTTPException(409, f"request {request_id} was already {status}")
        case Decided.APPROVED | Decided.DENIED:
            chat = request.chat_id.removeprefix(WEB_CHAT_PREFIX) if request else ""
            return chat_response(reply, chat, await agent.user_zone(user))
        case _:
            assert_never(reply.decided)


@router.post("/approvals/{request_id}/approve", tags=["approvals"], summary="Approve")
async def approve(request_id: str, services: Services, user: User) -> ChatResponse:
    return await _decide(services, request_id, user, approved=True)


@router.post("/approvals/{request_id}/deny", tags=["approvals"], summary="Deny")
async def deny(request_id: str, services: Services, user: User) -> ChatResponse:
    return await _decide(services, request_id, user, approved=False)


# -- notes, me, health --------------------------------------------------------------------------


@router.get("/notes", tags=["notes"], summary="Your notes, newest first, or those matching q")
async def notes(
    services: Services,
    user: User,
    page: Page,
    q: Annotated[str, Query(max_length=200)] = "",
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
    offset: Offset = 0,
) -> list[NoteOut]:
    """A ``Link: <...>; rel="next"`` header names the next page while there is one."""
    zone, memory = await services.agent.user_zone(user), services.memory
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
async def me(services: Services, user: User) -> MeOut:
    zone = await services.agent.user_zone(user)
    chosen = await services.commands.zones.chosen(user)
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
async def set_zone(body: ZoneRequest, services: Services, user: User) -> ZoneOut:
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
async def health(services: Services) -> JSONResponse:
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
