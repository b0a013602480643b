"""The Bot API methods the stand-in implements, with Telegram's validation and error replies."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from testing.botapi_types import (
    ApiError,
    Button,
    CallbackAnswer,
    Draft,
    DropConnection,
    Failure,
    SentMessage,
    StandinState,
)

_MAX_TEXT = 4096
_MAX_CALLBACK_DATA = 64
_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")
_SEND_METHODS = frozenset(
    {"sendmessage", "sendmessagedraft", "editmessagetext", "editmessagereplymarkup"}
)

Handler = Callable[[dict[str, Any]], Awaitable[Any]]


def _utf16_len(text: str) -> int:
    """Telegram measures text in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


class Server(Protocol):
    """What the methods need of the stand-in (``BotApiStandin``): its state, and its waiters."""

    state: StandinState

    @property
    def closing(self) -> bool: ...
    def next_id(self) -> int: ...
    def notify(self) -> None: ...
    async def wait_for_updates(self, offset: int, seconds: float) -> None: ...
    def take_failure(self, method: str, chat_id: int | None) -> Failure | None: ...
    def bot_json(self) -> dict[str, Any]: ...
    def message_json(self, message: SentMessage) -> dict[str, Any]: ...


class BotApiMethods:
    """Dispatches one Bot API call against the stand-in's state."""

    def __init__(self, server: Server) -> None:
        self._server = server
        self._handlers: dict[str, Handler] = {
            "getme": self.get_me,
            "getupdates": self.get_updates,
            "deletewebhook": self.delete_webhook,
            "setwebhook": self.set_webhook,
            "sendmessage": self.send_message,
            "sendmessagedraft": self.send_message_draft,
            "editmessagetext": self.edit_message_text,
            "editmessagereplymarkup": self.edit_message_reply_markup,
            "deletemessage": self.delete_message,
            "answercallbackquery": self.answer_callback_query,
            "sendchataction": self.send_chat_action,
            "setmycommands": self.set_my_commands,
            "getmycommands": self.get_my_commands,
            "deletemycommands": self.delete_my_commands,
            "getfile": self.get_file,
        }

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        """Run ``method``; return its result or an ``ApiError``."""
        handler = self._handlers.get(method)
        if method == "sendmessagedraft" and not self._server.state.drafts_supported:
            handler = None  # a Bot API server from before drafts
        if handler is None:
            return ApiError(404, "Not Found: method not found")
        chat_id = params.get("chat_id")
        failure = self._server.take_failure(method, chat_id if isinstance(chat_id, int) else None)
        if failure is not None:
            if failure.error is None:
                raise DropConnection
            return failure.error
        if method in _SEND_METHODS and chat_id in self._server.state.blocked:
            return ApiError.blocked()
        return await handler(params)

    # --- updates -------------------------------------------------------------------------

    async def get_file(self, params: dict[str, Any]) -> Any:
        found = self._server.state.files.get(str(params.get("file_id", "")))
        if found is None:
            return ApiError.bad_request("invalid file_id")
        path, data = found
        file_id = str(params["file_id"])
        return {"file_id": file_id, "file_unique_id": f"u{file_id}", "file_size": len(data),
                "file_path": path}  # fmt: skip

    async def get_me(self, params: dict[str, Any]) -> Any:
        return self._server.bot_json()

    async def get_updates(self, params: dict[str, Any]) -> Any:
        state = self._server.state
        offset = int(params.get("offset") or 0)
        limit = int(params.get("limit") or 100)
        timeout = float(params.get("timeout") or 0)
        if offset:
            # An offset confirms every update below it: Telegram forgets them.
            kept = [u for u in state.updates if u["update_id"] >= offset]
            if len(kept) != len(state.updates):
                state.updates = kept
                self._server.notify()  # tests may wait for the bot to confirm its updates
        if timeout and not state.updates and not self._server.closing:
            await self._server.wait_for_updates(offset, timeout)
        return [u for u in state.updates if u["update_id"] >= offset][:limit]

    async def delete_webhook(self, params: dict[str, Any]) -> Any:
        if params.get("drop_pending_updates"):
            self._server.state.updates.clear()
        self._server.state.webhook_url = ""
        return True

    async def set_webhook(self, params: dict[str, Any]) -> Any:
        self._server.state.webhook_url = str(params.get("url", ""))
        self._server.state.webhook_secret = str(params.get("secret_token", ""))
        return True

    # --- messages ------------------------------------------------------------------------

    async def send_message(self, params: dict[str, Any]) -> Any:
        chat_id = params.get("chat_id")
        if not isinstance(chat_id, int) or chat_id not in self._server.state.chats:
            return ApiError.bad_request("chat not found")
        text = str(params.get("text", ""))
        problem = _check_text(text)
        if problem is not None:
            return problem
        buttons = _parse_markup(params.get("reply_markup"))
        if isinstance(buttons, ApiError):
            return buttons
        message = SentMessage(
            chat_id=chat_id,
            message_id=self._server.next_id(),
            text=text,
            buttons=buttons,
            parse_mode=params.get("parse_mode"),
        )
        self._server.state.messages[(chat_id, message.message_id)] = message
        return self._server.message_json(message)

    async def send_message_draft(self, params: dict[str, Any]) -> Any:
        chat_id, draft_id = params.get("chat_id"), params.get("draft_id")
        chat = self._server.state.chats.get(chat_id) if isinstance(chat_id, int) else None
        if chat is None:
            return ApiError.bad_request("chat not found")
        if chat["type"] != "private":
            return ApiError.bad_request("TEXTDRAFT_PEER_INVALID")
        if not isinstance(draft_id, int) or draft_id == 0:
            return ApiError.bad_request("draft_id must be a non-zero integer")
        text = str(params.get("text", ""))
        if _utf16_len(text) > _MAX_TEXT:
            return ApiError.bad_request("message is too long")
        assert isinstance(chat_id, int)
        self._server.state.drafts.append(Draft(chat_id, draft_id, text))
        return True

    async def edit_message_text(self, params: dict[str, Any]) -> Any:
        message = self._find(params)
        if isinstance(message, ApiError):
            return message
        text = str(params.get("text", ""))
        problem = _check_text(text)
        if problem is not None:
            return problem
        # Like Telegram: editing the text without a reply_markup removes the keyboard.
        buttons = _parse_markup(params.get("reply_markup"))
        if isinstance(buttons, ApiError):
            return buttons
        if text == message.text and buttons == message.buttons:
            return ApiError.bad_request(
                "message is not modified: specified new message content and reply markup are "
                "exactly the same as a current content and reply markup of the message"
            )
        message.text, message.buttons = text, buttons
        message.parse_mode = params.get("parse_mode")
        message.edits += 1
        return self._server.message_json(message)

    async def edit_message_reply_markup(self, params: dict[str, Any]) -> Any:
        message = self._find(params)
        if isinstance(message, ApiError):
            return message
        buttons = _parse_markup(params.get("reply_markup"))
        if isinstance(buttons, ApiError):
            return buttons
        if buttons == message.buttons:
            return ApiError.bad_request("message is not modified")
        message.buttons = buttons
        message.edits += 1
        return self._server.message_json(message)

    async def delete_message(self, params: dict[str, Any]) -> Any:
        message = self._find(params)
        if isinstance(message, ApiError):
            return ApiError.bad_request("message to delete not found")
        message.deleted = True
        return True

    def _find(self, params: dict[str, Any]) -> SentMessage | ApiError:
        chat_id, message_id = params.get("chat_id"), params.get("message_id")
        if not isinstance(chat_id, int) or not isinstance(message_id, int):
            return ApiError.bad_request("chat_id and message_id must be integers")
        message = self._server.state.messages.get((chat_id, message_id))
        if message is None or message.deleted:
            return ApiError.bad_request("message to edit not found")
        return message

    # --- callback queries, actions, commands ----------------------------------------------

    async def answer_callback_query(self, params: dict[str, Any]) -> Any:
        query_id = str(params.get("callback_query_id", ""))
        state = self._server.state
        if query_id not in state.open_queries:
            return ApiError.bad_request(
                "query is too old and response timeout expired or query ID is invalid"
            )
        state.open_queries.discard(query_id)
        text = params.get("text")
        state.answers[query_id] = CallbackAnswer(
            query_id=query_id,
            text=str(text) if text is not None else None,
            show_alert=bool(params.get("show_alert", False)),
        )
        return True

    async def send_chat_action(self, params: dict[str, Any]) -> Any:
        if params.get("chat_id") not in self._server.state.chats:
            return ApiError.bad_request("chat not found")
        if params.get("action") not in {"typing", "upload_document", "upload_photo"}:
            return ApiError.bad_request("wrong parameter action in request")
        return True

    async def set_my_commands(self, params: dict[str, Any]) -> Any:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            return ApiError.bad_request("commands must be a list of at most 100 BotCommand")
        for command in commands:
            name = str(command.get("command", ""))
            description = str(command.get("description", ""))
            if not _COMMAND_NAME.match(name):
                return ApiError.bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(description) <= 256:
                return ApiError.bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        self._server.state.commands = [
            {"command": c["command"], "description": c["description"]} for c in commands
        ]
        return True

    async def get_my_commands(self, params: dict[str, Any]) -> Any:
        return list(self._server.state.commands)

    async def delete_my_commands(self, params: dict[str, Any]) -> Any:
        self._server.state.commands = []
        return True


def _check_text(text: str) -> Any:
    if not text.strip():
        return ApiError.bad_request("message text is empty")
    if _utf16_len(text) > _MAX_TEXT:
        return ApiError.bad_request("message is too long")
    return None


def _parse_markup(markup: Any) -> list[list[Button]] | Any:
    """Read an InlineKeyboardMarkup; return its buttons or an ApiError."""
    if markup is None:
        return []
    if not isinstance(markup, dict) or not isinstance(markup.get("inline_keyboard"), list):
        return ApiError.bad_request("can't parse reply keyboard markup JSON object")
    rows: list[list[Button]] = []
    for row in markup["inline_keyboard"]:
        buttons: list[Button] = []
        for raw in row:
            data = str(raw.get("callback_data", ""))
            if not 1 <= len(data.encode()) <= _MAX_CALLBACK_DATA:
                return ApiError.bad_request("BUTTON_DATA_INVALID")
            buttons.append(Button(text=str(raw.get("text", "")), callback_data=data))
        rows.append(buttons)
    return rows
