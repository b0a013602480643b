"""A reply that grows in place in Telegram while the model writes it.

``LiveReply`` follows one turn (it is the turn's ``on_event``) and shows the text written so
far, at most once per ``interval`` seconds: in a private chat as a message draft (Bot API
``sendMessageDraft``, an animated preview), elsewhere, or where the Bot API server lacks drafts,
as one message it sends and then edits (``editMessageText``). ``finish`` then shows the real
reply: after a draft, as the messages it is made of; after a preview message, by editing that
message into the reply's first message (buttons included) and sending the rest.

Every update goes through the ``OutgoingQueue``, so the chat's pacing (one message a second,
short bursts) and 429 waits hold for previews too; an update is never sent while the one
before it is still on its way, and a newer text replaces one that waited.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import assert_never

from agent import AgentEvent, AgentEventKind
from interfaces.messages import Reply
from interfaces.telegram.queue import OutgoingQueue
from interfaces.telegram.rendering import split_text
from tasks import DeliveryStatus

logger = logging.getLogger(__name__)

LIVE_INTERVAL = 1.0
"""Seconds between two updates of a growing reply: the chat's share of Telegram's limits."""


@dataclass
class DraftSupport:
    """Whether the Bot API server takes ``sendMessageDraft``; the first failed draft turns
    drafts off for the rest of the process (previews are then edited messages)."""

    available: bool = True


class LiveReply:
    """Shows one turn's reply in one chat while it is being written.

    Args:
        queue: The outgoing queue (its clock times the updates).
        chat_id: The chat.
        private: Whether the chat is a private one (only those have drafts).
        drafts: Shared knowledge of whether drafts work.
        draft_ids: Where this reply's draft id comes from (unique per bot).
        interval: The least time between two updates, in seconds.
    """

    def __init__(
        self,
        *,
        queue: OutgoingQueue,
        chat_id: int,
        private: bool,
        drafts: DraftSupport,
        draft_ids: itertools.count[int],
        interval: float = LIVE_INTERVAL,
    ) -> None:
        self._queue = queue
        self._chat = chat_id
        self._private = private
        self._drafts = drafts
        self._draft_id = next(draft_ids)
        self._interval = interval
        self._round: int | None = None
        self._text = ""  # what the model wrote so far in this round
        self._shown = ""  # what the chat shows now
        self._last: datetime | None = None
        self._preview_id: int | None = None  # the edited preview message, if any
        self._pushing: asyncio.Task[None] | None = None
        self._stopped = False

    @property
    def preview_message(self) -> int | None:
        """The id of the preview message being edited, or ``None`` (none yet, or a draft)."""
        return self._preview_id

    def __call__(self, event: AgentEvent) -> None:
        """Take the turn's next event (never blocks: updates go out in the background)."""
        match event.kind:
            case AgentEventKind.TEXT_DELTA:
                if not event.text:
                    return
                if event.round != self._round:
                    self._round, self._text = event.round, ""
                self._text += event.text
                self._update(force=False)
            case AgentEventKind.WAITING:
                # Until the model writes, the preview says why nothing comes yet.
                if not self._text.strip():
                    self._text = event.text
                    self._round = None  # the model's first piece replaces the notice
                    self._update(force=True)
            case AgentEventKind.TOOL_STARTED:
                # A tool may take a while: show what was written before it starts.
                self._update(force=True)
            case (
                AgentEventKind.TOOL_FINISHED
                | AgentEventKind.APPROVAL_REQUESTED
                | AgentEventKind.REPLY_READY
            ):
                pass  # the replies sent when the turn ends show them (``finish``)
            case _:
                assert_never(event.kind)

    async def finish(self, replies: Sequence[Reply]) -> tuple[Reply, ...]:
        """Stop updating and show the final ``replies``; return those still to be sent.

        After a preview message, the first reply replaces it when it fits in one message
        (otherwise the preview is deleted); after a draft, or with nothing shown, every reply
        is still to be sent.
        """
        self._stopped = True
        if self._pushing is not None:
            await self._pushing
        if self._preview_id is None:
            return tuple(replies)
        preview, self._preview_id = self._preview_id, None
        first = replies[0] if replies else None
        if first is not None and len(split_text(first.text)) == 1:
            outcome = await self._queue.edit(self._chat, preview, first.text, buttons=first.buttons)
            if outcome.status is DeliveryStatus.DELIVERED:
                return tuple(replies[1:])
        await self._queue.delete(self._chat, preview)
        return tuple(replies)

    # -- updates ------------------------------------------------------------------------------

    def _update(self, *, force: bool) -> None:
        """Start an update now if one is due and none is on its way."""
        if self._stopped or self._pushing is not None:
            return
        text = self._text.strip()
        if not text or text == self._shown:
            return
        now = self._queue.clock.now()
        waited = None if self._last is None else (now - self._last).total_seconds()
        if not force and waited is not None and waited < self._interval:
            return
        self._last = now
        self._pushing = asyncio.create_task(self._push(text), name="telegram-live-reply")

    async def _push(self, text: str) -> None:
        try:
            shown = await self._show(text)
        except Exception:
            logger.exception("could not update the growing reply in chat %s", self._chat)
            shown = False
        finally:
            self._pushing = None
        if shown:
            self._shown = text
            if self._text.strip() != text:
                self._update(force=False)  # more came while this one was on its way

    async def _show(self, text: str) -> bool:
        """Show ``text`` as a draft, else in the preview message; return whether it shows."""
        if self._private and self._drafts.available:
            drafted = await self._queue.draft(self._chat, self._draft_id, text)
            if drafted.status is DeliveryStatus.DELIVERED:
                return True
            if drafted.status is DeliveryStatus.BLOCKED:
                self._stopped = True
                return False
            logger.info("message drafts do not work here (%s); editing messages", drafted.error)
            self._drafts.available = False
        text = split_text(text)[0]  # a preview is one message
        if self._preview_id is None:
            sent = await self._queue.send(self._chat, text)
            if sent.status is not DeliveryStatus.DELIVERED or not sent.message_ids:
                self._stopped = True
                return False
            self._preview_id = sent.message_ids[0]
            return True
        edited = await self._queue.edit(self._chat, self._preview_id, text)
        return edited.status is DeliveryStatus.DELIVERED
