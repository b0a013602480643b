"""The conversation routes: a whole answer, a streamed one (AG-UI), and deliveries.

    POST /agent/chat     {message, chat_id?} -> the reply, the tool results, the approvals
    POST /agent/stream   the same turn as AG-UI server-sent events (or an AG-UI RunAgentInput)
    GET  /events         reminders and task results for the user's web chats, as they arrive
                         (?recent=true: those the server still holds first)
    GET  /history        the recent conversation of a chat (what a page shows when it opens)

A line starting with '/' is a slash command (``/tz Europe/Berlin``, ``/tasks``...), answered
by the same table as in Telegram and the terminal. A client that disconnects from a stream
cancels its turn; the agent stores a turn only once it completes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import Annotated

from fastapi import APIRouter, Header, Query
from fastapi.responses import StreamingResponse
from starlette.background import BackgroundTask

from agent import AgentEvent, AgentReply, EventCallback
from interfaces.notifiers import WEB_CHAT_PREFIX
from interfaces.slots import Slot
from interfaces.web.agui import AgUiRun, encode
from interfaces.web.convert import (
    approval_text,
    chat_body,
    chat_response,
    command_text,
    expires_text,
    history_out,
    shown_arguments,
)
from interfaces.web.inbox import InboxItem, web_chat
from interfaces.web.models import (
    CHAT_ID_PATTERN,
    DEFAULT_CHAT,
    ChatRequest,
    ChatResponse,
    ErrorOut,
    HistoryOut,
    StreamRequest,
)
from interfaces.web.services import Services, User, WebServices

logger = logging.getLogger(__name__)

Turn = Callable[[EventCallback | None], Awaitable[AgentReply]]
_STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
_SSE = {"text/event-stream": {"schema": {"type": "string"}}}
HISTORY_CHARS = 16_000
"""How much of a conversation ``/history`` reads at most (about what the model sees)."""


router = APIRouter(tags=["chat"], responses={401: {"model": ErrorOut}})


async def _turn_of(services: WebServices, user: str, chat: str, text: str) -> Turn:
    """What answering ``text`` is: a slash command, or a turn of the agent."""
    if text.lstrip().startswith("/"):
        answer = await services.commands.handle(text, user_id=user, chat_id=web_chat(chat))
        shown = command_text(answer or services.commands.help(unknown=text.split()[0]))

        async def command(listener: EventCallback | None) -> AgentReply:
            return AgentReply(shown)

        return command

    async def agent_turn(listener: EventCallback | None) -> AgentReply:
        return await services.agent.handle_message(
            text, user_id=user, chat_id=web_chat(chat), on_event=listener
        )

    return agent_turn


@router.post("/agent/chat", summary="Say something; get the whole answer")
async def chat(body: ChatRequest, services: Services, user: User) -> ChatResponse:
    services.check_length(body.message, ("body", "message"))
    slot = services.turns.take(user)
    try:
        turn = await _turn_of(services, user, body.chat_id, body.message)
        reply = await turn(None)
        return chat_response(reply, body.chat_id, await services.agent.user_zone(user))
    finally:
        slot.release()


@router.post(
    "/agent/stream",
    summary="Say something; get the answer as AG-UI server-sent events",
    response_class=StreamingResponse,
    responses={200: {"content": _SSE, "description": "AG-UI events, one per 'data:' line"}},
)
async def stream(body: StreamRequest, services: Services, user: User) -> StreamingResponse:
    if not body.resume:
        where = ("body", "message") if body.message is not None else ("body", "messages")
        services.check_length(body.text, where)
    zone = await services.agent.user_zone(user)
    chat = body.chat
    run = AgUiRun(
        thread_id=chat,
        run_id=body.run_id or uuid.uuid4().hex,
        now=services.clock.now,
        reply_body=lambda reply: chat_body(reply, chat, zone),
        approval_text=lambda request: approval_text(request, zone),
        shown_arguments=lambda arguments: [
            shown.model_dump() for shown in shown_arguments(arguments)
        ],
        expires_text=lambda request: expires_text(request, zone),
    )
    slot = services.turns.take(user)
    try:
        if body.resume:
            turn = _resumed(services, user, body)
        else:
            turn = await _turn_of(services, user, chat, body.text)
    except BaseException:
        slot.release()
        raise
    return StreamingResponse(
        _holding(slot, _run_stream(turn, run, keepalive=services.keepalive)),
        media_type="text/event-stream",
        headers=_STREAM_HEADERS,
        # Also when the client left before the stream began (the body never ran).
        background=BackgroundTask(slot.release),
    )


@router.get(
    "/events",
    summary="Reminders and task results for your web chats, as server-sent events",
    response_class=StreamingResponse,
    responses={200: {"content": _SSE, "description": "'delivery' events with JSON data"}},
)
async def events(
    services: Services,
    user: User,
    after: str | None = None,
    recent: bool = False,
    last_event_id: Annotated[str | None, Header()] = None,
) -> StreamingResponse:
    """Deliveries after ``after`` (or the ``Last-Event-ID`` a reconnecting browser sends);
    without either, with ``recent=true`` first those the server still holds for you (the
    latest 100 since it started: what came while no page was open), else only those
    still to come."""
    start = last_event_id or after or (None if recent else services.inbox.latest_id(user))
    slot = services.streams.take(user)
    return StreamingResponse(
        _holding(slot, _deliveries(services, user, start)),
        media_type="text/event-stream",
        headers=_STREAM_HEADERS,
        background=BackgroundTask(slot.release),
    )


@router.get("/history", summary="The recent conversation of a chat")
async def history(
    services: Services,
    user: User,
    chat_id: Annotated[str, Query(pattern=CHAT_ID_PATTERN)] = DEFAULT_CHAT,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> list[HistoryOut]:
    """What you said in the chat and the assistant's answers, oldest first."""
    stored = await services.memory.load_conversation(
        user, web_chat(chat_id), max_chars=HISTORY_CHARS
    )
    return history_out(stored, await services.agent.user_zone(user))[-limit:]


async def _holding(slot: Slot, events: AsyncGenerator[str, None]) -> AsyncIterator[str]:
    """``events``, giving ``slot`` back when they end (or the client leaves, which closes
    ``events`` too: a turn is cancelled)."""
    try:
        async with contextlib.aclosing(events):
            async for event in events:
                yield event
    finally:
        slot.release()


def _resumed(services: WebServices, user: str, body: StreamRequest) -> Turn:
    """The turn that answers approval interrupts (AG-UI ``resume``), one after the other."""
    entries = list(body.resume or [])

    async def resume(listener: EventCallback | None) -> AgentReply:
        reply: AgentReply = AgentReply("")
        for entry in entries:
            reply = await services.agent.resolve_approval(
                entry.interrupt_id, approved=entry.approved, by=user, on_event=listener
            )
        return reply

    return resume


async def _run_stream(turn: Turn, run: AgUiRun, *, keepalive: float) -> AsyncGenerator[str, None]:
    """Run ``turn`` and yield its AG-UI events; leaving early (a disconnect) cancels it."""
    batches: asyncio.Queue[list[str] | None] = asyncio.Queue()

    def listen(event: AgentEvent) -> None:
        events = run.on_event(event)
        if events:
            batches.put_nowait([encode(e) for e in events])

    async def work() -> None:
        try:
            reply = await turn(listen)
            batches.put_nowait([encode(e) for e in run.finished(reply)])
        except Exception:
            error_id = secrets.token_hex(3)
            logger.exception("a streamed turn failed (error id %s)", error_id)
            message = f"Something went wrong on the server (error id {error_id})."
            batches.put_nowait([encode(e) for e in run.failed(message, "internal_error")])
        finally:
            batches.put_nowait(None)

    worker = asyncio.create_task(work(), name=f"web-turn-{run.run_id}")
    try:
        for event in run.started():
            yield encode(event)
        while True:
            try:
                async with asyncio.timeout(keepalive):
                    batch = await batches.get()
            except TimeoutError:
                yield ": keep-alive\n\n"
                continue
            if batch is None:
                return
            for line in batch:
                yield line
    finally:
        if not worker.done():
            # The client left: the turn stops here, and the agent stores nothing of it.
            worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await worker


async def _deliveries(
    services: WebServices, user: str, start: str | None
) -> AsyncGenerator[str, None]:
    """Yield the user's deliveries after ``start`` as they arrive, until the server stops."""
    inbox, last = services.inbox, start
    yield "retry: 3000\n\n"
    while not services.closing.is_set():
        for item in inbox.after(user, last):
            yield _delivery_event(item)
            last = item.id
        try:
            async with asyncio.timeout(services.keepalive):
                await inbox.wait(user, last, until=services.closing)
        except TimeoutError:
            yield ": keep-alive\n\n"


def _delivery_event(item: InboxItem) -> str:
    delivery = item.delivery
    data = {
        "id": item.id,
        "task_id": delivery.task_id,
        "chat_id": delivery.chat_id.removeprefix(WEB_CHAT_PREFIX),
        "kind": delivery.kind.value,
        "text": delivery.text,
        "late_by_seconds": delivery.late_by.total_seconds() if delivery.late_by else None,
        "delivered_at": item.delivered_at.isoformat(),
        "run_again": delivery.run_again,
        "nags": delivery.nags,
    }
    return f"id: {item.id}\nevent: delivery\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
