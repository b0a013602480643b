"""``/calendar``: the feed's address, the CalDAV sync, subscriptions and importing a calendar,
shared by the Telegram bot, the terminal and the web page's chat.

    /calendar                     the feed (made now if there is none), the sync, subscriptions
    /calendar new | off           a new feed address (the old one stops working) | no feed
    /calendar import URL|PATH     what a calendar file would become; then /calendar yes | no
    /calendar sync                a pass of the CalDAV sync now
    /calendar keep here|there UID settle a sync conflict
    /calendar subscribe URL [NAME] | unsubscribe NAME

A file sent to the bot or the page is previewed the same way (``preview``). What an import
will make waits for the person's yes (``/calendar yes``, or the Import button), at most
``PENDING_FOR``, one import per user at a time; nothing is made before.
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from calendars import (
    CalendarError,
    Calendars,
    ImportPlan,
    address_or_path,
    read_path,
    source_lines,
)
from common import Clock
from interfaces.messages import Action, ActionKind, ActionOutcome, Button, CommandReply
from interfaces.views import as_sentence

PENDING_FOR = timedelta(minutes=30)
"""How long a previewed import waits for its yes."""
USAGE = (
    "/calendar new (a new feed address), /calendar off (no feed), /calendar import URL, "
    "/calendar subscribe URL [NAME], /calendar unsubscribe NAME, /calendar sync, "
    "/calendar keep here|there ID"
)


@dataclass(frozen=True, slots=True)
class _Pending:
    """An import previewed and waiting for the person's yes."""

    key: str
    chat_id: str
    plan: ImportPlan
    expires: datetime


class CalendarCommands:
    """The ``/calendar`` command and the import buttons.

    Args:
        calendars: The calendars.
        clock: The current time.
        local_files: Whether ``/calendar import`` may read a file of this machine (the
            terminal, run by the machine's owner; never the bot or the page).
    """

    def __init__(self, *, calendars: Calendars, clock: Clock, local_files: bool = False) -> None:
        self._calendars = calendars
        self._clock = clock
        self._local_files = local_files
        self._pending: dict[str, _Pending] = {}

    @property
    def max_file_bytes(self) -> int:
        """The largest calendar file read."""
        return self._calendars.max_file_bytes

    async def handle(
        self, args: str, *, user_id: str, chat_id: str, zone: ZoneInfo
    ) -> CommandReply:
        """Answer ``/calendar ARGS``; never raises for the person's mistakes."""
        word, _, rest = args.strip().partition(" ")
        rest = rest.strip()
        try:
            match word.lower():
                case "":
                    return CommandReply.of(await self._status(user_id, zone))
                case "new":
                    return CommandReply.of(await self._new_feed(user_id))
                case "off":
                    return CommandReply.of(await self._off(user_id))
                case "import":
                    return await self._import(rest, user_id=user_id, chat_id=chat_id, zone=zone)
                case "yes":
                    return CommandReply.of(await self.confirm(user_id))
                case "no":
                    return CommandReply.of(self.drop(user_id))
                case "sync":
                    return CommandReply.of(await self._sync(user_id))
                case "keep":
                    return CommandReply.of(await self._keep(rest, user_id))
                case "subscribe":
                    return CommandReply.of(await self._subscribe(rest, user_id))
                case "unsubscribe":
                    return CommandReply.of(await self._unsubscribe(rest, user_id))
        except CalendarError as error:
            return CommandReply.of(as_sentence(error))
        return CommandReply.of(f"I don't know /calendar {word[:40]!r}; try {USAGE}.")

    # -- the feed --

    async def _status(self, user_id: str, zone: ZoneInfo) -> str:
        feed = await self._calendars.feeds.status(user_id)
        if feed is None:
            lines = [await self._new_feed(user_id)]
        else:
            made = feed.created_at.astimezone(zone).strftime("%Y-%m-%d %H:%M")
            lines = [
                f"Your calendar feed was made on {made} ({zone.key}). Its address is shown only "
                "when it is made: /calendar new makes a new one (the old one stops working), "
                "/calendar off turns it off."
            ]
        lines += self._sync_lines(user_id, zone)
        sources = [s for s in await self._calendars.sources(user_id) if s.name != "caldav"]
        if sources:
            lines.append("Calendars you subscribed to:")
            lines += [f"- {line}" for line in source_lines(sources, zone)]
        lines.append(f"More: {USAGE}.")
        return "\n".join(lines)

    async def _new_feed(self, user_id: str) -> str:
        token = await self._calendars.feeds.make(user_id)
        url = self._calendars.feed_url(token)
        note = self._calendars.address_note()
        return (
            f"Subscribe to this address in your calendar app (Google Calendar: 'From URL'; "
            f"Apple: 'New Calendar Subscription'):\n{url}\nIt is a secret: whoever has it sees "
            f"your tasks. /calendar off turns it off, /calendar new replaces it.{note}"
        )

    async def _off(self, user_id: str) -> str:
        if await self._calendars.feeds.revoke(user_id):
            return "Your calendar feed is off: its address answers nothing any more."
        return "You have no calendar feed; /calendar makes one."

    # -- the sync --

    def _sync_lines(self, user_id: str, zone: ZoneInfo) -> list[str]:
        if not self._calendars.syncs(user_id):
            return []
        settings = self._calendars.sync_settings
        assert settings is not None
        last, report, error = self._calendars.sync_state()
        lines = [f"Your reminders are kept in step with {settings.calendar.shown_url}."]
        if last is None:
            lines.append("It has not synced yet (/calendar sync syncs now).")
        else:
            when = last.astimezone(zone).strftime("%H:%M")
            lines.append(f"Last sync at {when}: {error or 'done'}.")
        if report is not None:
            lines += [f"- {line}" for line in report.lines()]
        return lines

    async def _sync(self, user_id: str) -> str:
        self._sync_user(user_id)
        report = await self._calendars.sync_now()
        said = report.lines()
        if not said:
            return "Synced: your reminders and the calendar were already in step."
        return "Synced:\n" + "\n".join(f"- {line}" for line in said)

    async def _keep(self, rest: str, user_id: str) -> str:
        self._sync_user(user_id)
        side, _, uid = rest.partition(" ")
        if side not in ("here", "there") or not uid.strip():
            return (
                "Say which side to keep and the conflict's id, as the sync named it: "
                "/calendar keep here ID (this assistant's version) or /calendar keep there ID "
                "(the calendar's)."
            )
        return await self._calendars.resolve(uid.strip(), "here" if side == "here" else "there")

    def _sync_user(self, user_id: str) -> None:
        if not self._calendars.syncs(user_id):
            raise CalendarError(
                "your reminders are not kept in step with a CalDAV calendar here "
                "(ASSISTANT_CALDAV_URL and ASSISTANT_CALDAV_USER set that up)"
            )

    # -- subscriptions --

    async def _subscribe(self, rest: str, user_id: str) -> str:
        url, _, name = rest.partition(" ")
        if not url:
            return "Say the calendar's address: /calendar subscribe https://... [NAME]."
        made = await self._calendars.subscribe(user_id, url, name.strip() or None)
        source = made.source
        said = (
            f"Subscribed to {source.url} as {source.name!r}: its events show beside your "
            "tasks when you ask what is on (e.g. 'what's on my calendar tomorrow?')."
        )
        if made.left_out:
            said += "\nLeft out, as the file is malformed there:\n" + "\n".join(
                f"- {line}" for line in made.left_out
            )
        return said

    async def _unsubscribe(self, rest: str, user_id: str) -> str:
        name = rest.strip()
        if not name:
            return "Say which calendar: /calendar unsubscribe NAME (/calendar lists them)."
        if await self._calendars.unsubscribe(user_id, name):
            return f"Unsubscribed from {name!r}."
        return f"You are not subscribed to a calendar called {name!r}; /calendar lists them."

    # -- import --

    async def _import(
        self, source: str, *, user_id: str, chat_id: str, zone: ZoneInfo
    ) -> CommandReply:
        if not source:
            return CommandReply.of(
                "Say the calendar's address: /calendar import https://...ics"
                + (" (or a file's path)" if self._local_files else "; or send me the .ics file")
            )
        where = address_or_path(source)
        if isinstance(where, str):
            data = await self._calendars.read_address(where)
        elif self._local_files:
            data = await asyncio.to_thread(
                read_path, where, max_bytes=self._calendars.max_file_bytes
            )
        else:
            return CommandReply.of(
                f"{source[:80]!r} is not a web address; send me the .ics file instead, or "
                "give its https:// address."
            )
        return await self.preview(data, user_id=user_id, chat_id=chat_id, zone=zone)

    async def preview(
        self, data: bytes, *, user_id: str, chat_id: str, zone: ZoneInfo
    ) -> CommandReply:
        """What a calendar file will become for the user, and the question whether to make it
        (the file sent to the bot or the page comes here too)."""
        try:
            plan = await self._calendars.plan(user_id, data)
        except CalendarError as error:
            return CommandReply.of(as_sentence(error))
        text = plan.preview(zone, self._clock.now())
        if not plan.items:
            self._pending.pop(user_id, None)
            return CommandReply.of(text)
        key = secrets.token_hex(4)
        self._pending[user_id] = _Pending(key, chat_id, plan, self._clock.now() + PENDING_FOR)
        count = len(plan.items)
        buttons = (
            (
                Button(f"Import {count}", Action(ActionKind.IMPORT, key)),
                Button("Cancel", Action(ActionKind.DROP_IMPORT, key)),
            ),
        )
        return CommandReply.of(f"{text}\nMake them? /calendar yes or /calendar no.", buttons)

    async def confirm(self, user_id: str, key: str | None = None) -> str:
        """Make the user's previewed import (``key``: only if it is that one)."""
        pending = self._pending.get(user_id)
        if pending is None or (key is not None and pending.key != key):
            return "There is no calendar import waiting for you; /calendar import shows one first."
        del self._pending[user_id]
        if self._clock.now() > pending.expires:
            return "That calendar import waited too long; import the file again."
        result = await self._calendars.apply(pending.plan, user_id=user_id, chat_id=pending.chat_id)
        made = len(result.created)
        ids = ", ".join(task.id for task in result.created)
        said = f"Made {made} reminder{'s' if made != 1 else ''}" + (f": {ids}." if ids else ".")
        return said if result.error is None else f"{said} Then: {result.error}."

    def drop(self, user_id: str, key: str | None = None) -> str:
        """Forget the user's previewed import."""
        pending = self._pending.get(user_id)
        if pending is None or (key is not None and pending.key != key):
            return "There is no calendar import waiting for you."
        del self._pending[user_id]
        return "Nothing was imported."

    async def press(self, action: Action, *, user_id: str) -> ActionOutcome:
        """The Import and Cancel buttons under a preview."""
        if action.kind is ActionKind.IMPORT:
            said = await self.confirm(user_id, action.target)
        else:
            said = self.drop(user_id, action.target)
        done = said.startswith(("Made", "Nothing was imported"))
        return ActionOutcome(notice=said[:190], alert=not done, mark=said if done else None)
