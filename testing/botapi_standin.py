"""A Telegram Bot API stand-in: a real HTTP server on 127.0.0.1 for end-to-end tests.

python-telegram-bot talks to it unmodified (``base_url`` points here). It implements the
methods the bot uses (message drafts too, unless ``state.drafts_supported`` is turned off, as
on a Bot API server from before them), answers with Telegram's own error shapes, lets a test
play users (send text, commands and button presses) and read what the bot sent, and injects
failures (429 with ``retry_after``, 403 "bot was blocked by the user", dropped connections).

The HTTP side is stdlib asyncio streams speaking HTTP/1.1 with keep-alive; that is all
httpx needs. python-telegram-bot posts ``application/x-www-form-urlencoded`` bodies whose
values are JSON-encoded, except plain strings, which are sent as they are.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import re
import time
from collections.abc import Callable
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qsl, unquote

import httpx

from testing.botapi_methods import BotApiMethods
from testing.botapi_types import (
    ApiCall,
    ApiError,
    Button,
    CallbackAnswer,
    DropConnection,
    Failure,
    SentMessage,
    StandinState,
)

__all__ = [
    "TOKEN",
    "ApiCall",
    "ApiError",
    "BotApiStandin",
    "Button",
    "CallbackAnswer",
    "SentMessage",
]

TOKEN = "123456:TEST-stand-in-token"
BOT_ID = 123456

# Parameters that python-telegram-bot sends as raw strings; everything else is JSON.
_RAW_STRING_PARAMS = frozenset(
    {
        "text",
        "callback_query_id",
        "action",
        "parse_mode",
        "url",
        "secret_token",
        "business_connection_id",
    }
)
_REQUEST_LINE = re.compile(r"^(GET|POST) (\S+) HTTP/1\.[01]$")
_MAX_BODY = 1_000_000


class BotApiStandin:
    """A Bot API server on 127.0.0.1 with a test API to play users and inspect the bot.

    Use as ``async with BotApiStandin() as api:``; point the bot at ``api.base_url`` with
    token ``api.token``. ``stamp`` gives the time recorded with each call (a test with a
    manual clock passes that clock's time, to check pacing).
    """

    def __init__(
        self,
        *,
        token: str = TOKEN,
        bot_username: str = "assistant_test_bot",
        stamp: Callable[[], float] = time.monotonic,
    ) -> None:
        self.token = token
        self.stamp = stamp
        self.bot_username = bot_username
        self.state = StandinState()
        self._changed = asyncio.Event()
        self._methods = BotApiMethods(self)
        self._server: asyncio.Server | None = None
        self._connections: dict[asyncio.Task[None], asyncio.StreamWriter] = {}
        self._closing = False
        self._ids = itertools.count(1)
        self._update_ids = itertools.count(1)

    # --- lifecycle -------------------------------------------------------------------------

    async def __aenter__(self) -> Self:
        self._server = await asyncio.start_server(self._serve_connection, "127.0.0.1", 0)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._closing = True
        self.notify()
        if self._server is not None:
            self._server.close()
        # Closing the transports ends each connection's reader; cancelling its task instead
        # would make asyncio's stream machinery log the CancelledError.
        tasks = list(self._connections)
        for writer in self._connections.values():
            writer.close()
        if tasks:
            await asyncio.wait(tasks, timeout=5)
        if self._server is not None:
            await self._server.wait_closed()

    @property
    def port(self) -> int:
        """The port the server listens on."""
        if self._server is None:
            raise RuntimeError("the stand-in is not running; use it as 'async with'")
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    @property
    def base_url(self) -> str:
        """The value for python-telegram-bot's ``base_url`` (the token is appended to it)."""
        return f"http://127.0.0.1:{self.port}/bot"

    @property
    def closing(self) -> bool:
        """Whether the server is shutting down (long polls return at once)."""
        return self._closing

    def next_id(self) -> int:
        """Return a fresh message id."""
        return next(self._ids)

    # --- playing users ---------------------------------------------------------------------

    def add_chat(self, user_id: int, *, first_name: str = "", chat_id: int | None = None) -> int:
        """Make a chat known (as if the user had pressed Start); return its id."""
        chat = chat_id if chat_id is not None else user_id
        if chat not in self.state.chats:
            if chat < 0:
                self.state.chats[chat] = {"id": chat, "type": "group", "title": f"group {chat}"}
            else:
                name = first_name or f"user{user_id}"
                self.state.chats[chat] = {"id": chat, "type": "private", "first_name": name}
        return chat

    def send_text(self, user_id: int, text: str, *, chat_id: int | None = None) -> int:
        """Queue a message from ``user_id`` (a command when it starts with '/'); return its id."""
        chat = self.add_chat(user_id, chat_id=chat_id)
        message: dict[str, Any] = {
            "message_id": self.next_id(),
            "date": int(time.time()),
            "chat": self.state.chats[chat],
            "from": self.user_json(user_id),
            "text": text,
        }
        command = re.match(r"/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?", text)
        if command:
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": command.end()}]
        self._push_update({"message": message})
        return int(message["message_id"])

    def send_document(
        self,
        user_id: int,
        file_name: str,
        data: bytes,
        *,
        mime_type: str = "application/octet-stream",
        chat_id: int | None = None,
    ) -> int:
        """Queue a file ``data`` sent by ``user_id`` (the bot downloads it with getFile and
        ``/file/bot<token>/<path>``); return the message's id."""
        chat = self.add_chat(user_id, chat_id=chat_id)
        file_id = f"doc{next(self._ids)}"
        self.state.files[file_id] = (f"documents/{file_id}_{file_name}", data)
        message: dict[str, Any] = {
            "message_id": self.next_id(),
            "date": int(time.time()),
            "chat": self.state.chats[chat],
            "from": self.user_json(user_id),
            "document": {
                "file_id": file_id,
                "file_unique_id": f"u{file_id}",
                "file_name": file_name,
                "mime_type": mime_type,
                "file_size": len(data),
            },
        }
        self._push_update({"message": message})
        return int(message["message_id"])

    def send_sticker(self, user_id: int, *, chat_id: int | None = None) -> None:
        """Queue a message without text (a sticker) from ``user_id``."""
        chat = self.add_chat(user_id, chat_id=chat_id)
        sticker = {
            "file_id": "sticker1",
            "file_unique_id": "u1",
            "type": "regular",
            "width": 512,
            "height": 512,
            "is_animated": False,
            "is_video": False,
        }
        message = {
            "message_id": self.next_id(),
            "date": int(time.time()),
            "chat": self.state.chats[chat],
            "from": self.user_json(user_id),
            "sticker": sticker,
        }
        self._push_update({"message": message})

    def press(self, user_id: int, message: SentMessage, data: str) -> str:
        """Queue a press of a button carrying ``data`` on ``message``; return the query id."""
        query_id = f"cq{next(self._ids)}"
        self.state.open_queries.add(query_id)
        query = {
            "id": query_id,
            "from": self.user_json(user_id),
            "message": self.message_json(message),
            "chat_instance": f"ci{message.chat_id}",
            "data": data,
        }
        self._push_update({"callback_query": query})
        return query_id

    def press_button(self, user_id: int, message: SentMessage, label_part: str) -> str:
        """Press the button whose label contains ``label_part``; return the query id."""
        return self.press(user_id, message, message.button(label_part).callback_data)

    async def push_to_webhook(self) -> None:
        """Post every queued update to the webhook the bot set, as Telegram does."""
        url, secret = self.state.webhook_url, self.state.webhook_secret
        if not url:
            raise AssertionError("the bot has not set a webhook")
        headers = {"X-Telegram-Bot-Api-Secret-Token": secret} if secret else {}
        async with httpx.AsyncClient() as client:
            while self.state.updates:
                update = self.state.updates.pop(0)
                response = await client.post(url, json=update, headers=headers)
                if response.status_code != 200:
                    raise AssertionError(f"the webhook answered {response.status_code}")

    # --- failures --------------------------------------------------------------------------

    def fail_next(
        self,
        method: str,
        error: ApiError | None,
        *,
        chat_id: int | None = None,
        times: int = 1,
    ) -> None:
        """Make the next ``times`` calls of ``method`` (to ``chat_id``) fail.

        ``error=None`` drops the connection without an answer (a network error).
        """
        self.state.failures.append(Failure(method.lower(), chat_id, error, times))

    def block(self, chat_id: int) -> None:
        """Make every send to ``chat_id`` fail with 403 "bot was blocked by the user"."""
        self.state.blocked.add(chat_id)

    def take_failure(self, method: str, chat_id: int | None) -> Failure | None:
        """Consume and return an injected failure matching this call, if any."""
        for failure in self.state.failures:
            if failure.method == method and failure.chat_id in (None, chat_id):
                failure.times -= 1
                if failure.times <= 0:
                    self.state.failures.remove(failure)
                return failure
        return None

    # --- reading what the bot did ------------------------------------------------------------

    def sent_to(self, chat_id: int) -> list[SentMessage]:
        """Messages the bot sent to ``chat_id`` (not deleted), oldest first."""
        return [
            m
            for (chat, _), m in sorted(self.state.messages.items())
            if chat == chat_id and not m.deleted
        ]

    def drafts_to(self, chat_id: int) -> list[str]:
        """The texts the bot showed as message drafts in ``chat_id``, oldest first."""
        return [d.text for d in self.state.drafts if d.chat_id == chat_id]

    def calls_of(self, method: str) -> list[ApiCall]:
        """The calls of ``method`` the bot made, oldest first."""
        return [c for c in self.state.calls if c.method == method.lower()]

    async def wait_until(self, predicate: Callable[[], bool], *, within: float = 5.0) -> None:
        """Wait until ``predicate()`` holds; fail the test after ``timeout`` seconds."""
        try:
            await self._wait(predicate, within)
        except TimeoutError:
            raise AssertionError(f"condition not met within {within} s") from None

    async def wait_for_messages(
        self, chat_id: int, count: int, *, within: float = 5.0
    ) -> list[SentMessage]:
        """Wait until the bot has sent ``count`` messages to ``chat_id``; return them all."""
        try:
            await self.wait_until(lambda: len(self.sent_to(chat_id)) >= count, within=within)
        except AssertionError:
            texts = [m.text for m in self.sent_to(chat_id)]
            raise AssertionError(
                f"expected {count} messages to chat {chat_id} within {within} s, got {texts}"
            ) from None
        return self.sent_to(chat_id)

    async def wait_for_answer(self, query_id: str, *, within: float = 5.0) -> CallbackAnswer:
        """Wait until the bot answered the callback query ``query_id``."""
        await self.wait_until(lambda: query_id in self.state.answers, within=within)
        return self.state.answers[query_id]

    async def wait_for_call(self, method: str, count: int = 1, *, within: float = 5.0) -> None:
        """Wait until the bot has called ``method`` at least ``count`` times."""
        await self.wait_until(lambda: len(self.calls_of(method)) >= count, within=within)

    async def wait_consumed(self, *, within: float = 5.0) -> None:
        """Wait until the bot has fetched every queued update (confirmed by offset)."""
        await self.wait_until(lambda: not self.state.updates, within=within)

    def notify(self) -> None:
        """Wake every waiter (tests and long polls) after a change."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_for_updates(self, offset: int, seconds: float) -> None:
        """Wait until an update with id >= ``offset`` exists, the server closes, or timeout."""

        def ready() -> bool:
            return self._closing or any(u["update_id"] >= offset for u in self.state.updates)

        with contextlib.suppress(TimeoutError):
            await self._wait(ready, seconds)

    async def _wait(self, predicate: Callable[[], bool], seconds: float) -> None:
        async with asyncio.timeout(seconds):
            while not predicate():
                await self._changed.wait()

    # --- JSON shapes -------------------------------------------------------------------------

    def bot_json(self) -> dict[str, Any]:
        """The bot's User object."""
        return {
            "id": BOT_ID,
            "is_bot": True,
            "first_name": "Assistant",
            "username": self.bot_username,
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }

    @staticmethod
    def user_json(user_id: int) -> dict[str, Any]:
        """A person's User object."""
        return {
            "id": user_id,
            "is_bot": False,
            "first_name": f"user{user_id}",
            "language_code": "en",
        }

    def message_json(self, message: SentMessage) -> dict[str, Any]:
        """A bot message as Telegram returns it."""
        body: dict[str, Any] = {
            "message_id": message.message_id,
            "date": int(time.time()),
            "chat": self.state.chats[message.chat_id],
            "from": self.bot_json(),
            "text": message.text,
        }
        if message.edits:
            body["edit_date"] = int(time.time())
        if message.buttons:
            body["reply_markup"] = {
                "inline_keyboard": [
                    [{"text": b.text, "callback_data": b.callback_data} for b in row]
                    for row in message.buttons
                ]
            }
        return body

    def _push_update(self, payload: dict[str, Any]) -> None:
        self.state.updates.append({"update_id": next(self._update_ids), **payload})
        self.notify()

    # --- HTTP --------------------------------------------------------------------------------

    async def _serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = writer
        try:
            while not self._closing:
                request = await _read_request(reader)
                if request is None:
                    break
                path, body, content_type, keep_alive = request
                try:
                    status, reply = await self._dispatch(path, body, content_type)
                except DropConnection:
                    break
                _write_response(writer, status, reply)
                await writer.drain()
                if not keep_alive:
                    break
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            self._connections.pop(task, None)
            writer.close()
            with contextlib.suppress(ConnectionError, asyncio.CancelledError):
                await writer.wait_closed()

    async def _dispatch(self, path: str, body: bytes, content_type: str) -> tuple[int, Any]:
        download = re.fullmatch(r"/file/bot([^/]+)/(.+)", unquote(path))
        if download is not None:
            return self._download(download.group(1), download.group(2))
        match = re.fullmatch(r"/bot([^/]+)/(\w+)", path)
        if match is None:
            return 404, ApiError(404, "Not Found").body()
        if match.group(1) != self.token:
            return 401, ApiError(401, "Unauthorized").body()
        method = match.group(2).lower()
        params = _decode_params(body, content_type)
        self.state.calls.append(ApiCall(method, params, self.stamp()))
        outcome = await self._methods.call(method, params)
        self.notify()
        if isinstance(outcome, ApiError):
            return outcome.status, outcome.body()
        return 200, {"ok": True, "result": outcome}

    def _download(self, token: str, path: str) -> tuple[int, Any]:
        if token != self.token:
            return 401, ApiError(401, "Unauthorized").body()
        for file_path, data in self.state.files.values():
            if file_path == path:
                return 200, FileBody(data)
        return 404, ApiError(404, "Not Found: file").body()


class FileBody(bytes):
    """A file's bytes, answered as they are (not as JSON)."""


async def _read_request(reader: asyncio.StreamReader) -> tuple[str, bytes, str, bool] | None:
    """Read one HTTP/1.1 request; return (path, body, content type, keep-alive) or None at EOF."""
    line = await reader.readline()
    if not line:
        return None
    match = _REQUEST_LINE.match(line.decode("latin-1").strip())
    if match is None:
        raise ConnectionError(f"not an HTTP request line: {line!r}")
    headers: dict[str, str] = {}
    while True:
        header = (await reader.readline()).decode("latin-1").strip()
        if not header:
            break
        name, _, value = header.partition(":")
        headers[name.strip().lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", ""):
        raise ConnectionError("chunked request bodies are not supported by the stand-in")
    length = int(headers.get("content-length", "0"))
    if length > _MAX_BODY:
        raise ConnectionError(f"request body of {length} bytes is too large")
    body = await reader.readexactly(length) if length else b""
    keep_alive = headers.get("connection", "").lower() != "close"
    path = match.group(2).split("?", 1)[0]
    return path, body, headers.get("content-type", ""), keep_alive


def _write_response(writer: asyncio.StreamWriter, status: int, reply: Any) -> None:
    raw = isinstance(reply, FileBody)
    payload = bytes(reply) if raw else json.dumps(reply).encode()
    kind = "application/octet-stream" if raw else "application/json"
    head = (
        f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\n"
        f"Content-Type: {kind}\r\n"
        f"Content-Length: {len(payload)}\r\n"
        "Connection: keep-alive\r\n\r\n"
    )
    writer.write(head.encode() + payload)


def _decode_params(body: bytes, content_type: str) -> dict[str, Any]:
    """Decode a form-encoded (JSON values) or JSON request body into Python values."""
    if not body:
        return {}
    if content_type.startswith("application/json"):
        decoded: dict[str, Any] = json.loads(body)
        return decoded
    if not content_type.startswith("application/x-www-form-urlencoded"):
        raise ConnectionError(f"the stand-in cannot read a {content_type!r} body")
    params: dict[str, Any] = {}
    for key, value in parse_qsl(body.decode(), keep_blank_values=True):
        if key in _RAW_STRING_PARAMS:
            params[key] = value
            continue
        try:
            params[key] = json.loads(value)
        except ValueError:
            params[key] = value
    return params
