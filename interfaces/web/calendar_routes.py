"""The routes of calendars: the feed a calendar app subscribes to, and the caller's calendar.

    GET    /calendar/<token>.ics    the feed: no bearer token (the address is the secret)
    GET    /calendar                your feed, the sync, the calendars read for your days
    POST   /calendar/feed           a new feed address (the old one stops working)
    DELETE /calendar/feed           no feed (its address answers 404)
    POST   /calendar/import         an .ics file's events with alarms: previewed, or made with
                                    ?confirm=true (the page sends the file again)

A feed's address that is unknown or revoked answers 404, the same either way. Its token is
never logged (``calendars.hidden_path``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated
from zoneinfo import ZoneInfo

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import Response

from calendars import Calendars, token_in_path
from interfaces.web.models import (
    CalendarOut,
    CalendarSourceOut,
    FeedOut,
    ImportItemOut,
    ImportOut,
    ImportRefusalOut,
)
from interfaces.web.routing import ERRORS
from interfaces.web.services import Services, User, WebServices

IMPORT_PATH = "/calendar/import"
router = APIRouter(tags=["calendar"], responses=ERRORS)
feed_router = APIRouter(include_in_schema=False)
_NO_FEED = "no such calendar"


def _calendars(services: WebServices) -> Calendars:
    if services.calendars is None:
        raise HTTPException(404, "calendars are not set up on this server")
    return services.calendars


@feed_router.get("/calendar/{name}")
async def feed(name: str, request: Request, services: Services) -> Response:
    """The caller's tasks as an iCalendar feed (see the module docstring)."""
    token = token_in_path(request.url.path)
    calendars = services.calendars
    owner = None if token is None or calendars is None else await calendars.feeds.owner(token)
    if owner is None or calendars is None:
        return Response(
            f'{{"detail": "{_NO_FEED}"}}', status_code=404, media_type="application/json"
        )
    return Response(
        await calendars.export(owner),
        media_type="text/calendar; charset=utf-8",
        headers={
            "Cache-Control": "private, no-cache",
            "Content-Disposition": 'inline; filename="assistant.ics"',
        },
    )


@router.get("/calendar", summary="Your calendar feed, the sync and the calendars read")
async def status(services: Services, user: User) -> CalendarOut:
    calendars = _calendars(services)
    made = await calendars.feeds.status(user)
    zone = await services.agent.user_zone(user)
    return CalendarOut(
        feed_created_at=None if made is None else made.created_at.astimezone(zone),
        syncing=calendars.syncs(user),
        sources=[
            CalendarSourceOut(
                name=source.name,
                url=source.url,
                fetched_at=None
                if source.fetched_at is None
                else source.fetched_at.astimezone(zone),
                error=source.error,
            )
            for source in await calendars.sources(user)
        ],
    )


@router.post("/calendar/feed", summary="A new feed address (the old one stops working)")
async def new_feed(services: Services, user: User) -> FeedOut:
    calendars = _calendars(services)
    token = await calendars.feeds.make(user)
    note = "A secret: whoever has it sees your tasks." + calendars.address_note()
    return FeedOut(url=calendars.feed_url(token), note=note)


@router.delete("/calendar/feed", summary="No feed: its address answers 404")
async def revoke_feed(services: Services, user: User) -> dict[str, bool]:
    return {"revoked": await _calendars(services).feeds.revoke(user)}


@router.post(
    IMPORT_PATH,
    summary="Preview (or, with confirm=true, make) the reminders of an .ics file",
    openapi_extra={
        "requestBody": {
            "content": {"text/calendar": {"schema": {"type": "string"}}},
            "required": True,
        }
    },
)
async def import_file(
    request: Request,
    services: Services,
    user: User,
    confirm: Annotated[bool, Query(description="Make the reminders now.")] = False,
    chat_id: Annotated[str, Query(pattern=r"^[A-Za-z0-9_.:-]{1,64}$")] = "main",
) -> ImportOut:
    """The body is the file itself (``Content-Type: text/calendar``). Nothing is made without
    ``confirm=true``; a rule the schedule language cannot say exactly is refused by name."""
    calendars = _calendars(services)
    data = await request.body()
    plan = await calendars.plan(user, data)  # an unreadable file: CalendarError, 400
    zone, now = await services.agent.user_zone(user), services.clock.now()
    created: list[str] = []
    error: str | None = None
    if confirm and plan.items:
        result = await calendars.apply(plan, user_id=user, chat_id=f"web:{chat_id}")
        created = [task.id for task in result.created]
        error = result.error
    return ImportOut(
        preview=plan.preview(zone, now),
        items=[
            ImportItemOut(
                summary=item.summary,
                schedule=item.schedule.describe(),
                first=(
                    first.astimezone(zone) if (first := item.schedule.next_after(now)) else None
                ),
                note=item.note,
            )
            for item in plan.items
        ],
        refused=[ImportRefusalOut(summary=r.summary, reason=r.reason) for r in plan.refused],
        skipped=[f"{summary}: {why}" for summary, why in plan.skipped],
        created=created,
        error=error,
    )


def _local(moment: datetime | None, zone: ZoneInfo) -> datetime | None:
    return None if moment is None else moment.astimezone(zone)
