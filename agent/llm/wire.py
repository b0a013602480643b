"""The OpenAI chat-completions JSON: encoding messages and tools, decoding completions and errors.

The only place that knows the provider's field names (and what a function's name may be:
``WireNames``); ``openai_compat`` does the HTTP.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from agent.llm.base import ChatMessage, LLMResponse, Role, Usage
from agent.llm.contract import render_call_block, render_results
from agent.llm.errors import LLMResponseError
from tools import ToolCall, ToolDefinition

if TYPE_CHECKING:
    import httpx

PROBE_TOOL = "report_status"
"""The one tool of the native-tools probe (``probe_payload``)."""

_PROBE_PARAMETERS = {
    "type": "object",
    "properties": {"status": {"type": "string", "enum": ["ok"]}},
    "required": ["status"],
}
_DETAIL_LIMIT = 300
_WIRE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NOT_WIRE = re.compile(r"[^A-Za-z0-9_-]")
_WIRE_MAX = 64
_TOOL_WORDS = ("tool", "function call")
_REJECTION_WORDS = (
    "support",
    "requires",
    "jinja",
    "not allowed",
    "unknown",
    "unrecognized",
    "unexpected",
    "invalid",
    "enable-auto-tool-choice",
)


class WireNames:
    """Tool names as a function's name may be on the wire (``^[a-zA-Z0-9_-]{1,64}$``), and back.

    Our names may hold a dot (an MCP server's tool, ``files.read_file``) and be longer than
    64 characters, which OpenAI's API refuses. Such a name is sent as one that fits: the dot
    written ``-`` (which our names never hold), a long name cut and made unique by a hash of
    the whole. A call the model returns under it is read back as the name we know, so the
    registry, the history and what people see keep ``files.read_file``. One is made for each
    request, from the tools it offers and the calls in its history; a name the request did
    not send is read back as it came.
    """

    def __init__(self, names: Iterable[str] = ()) -> None:
        self._out: dict[str, str] = {}
        self._back: dict[str, str] = {}
        for name in names:
            self.encode(name)

    def encode(self, name: str) -> str:
        """The name ``name`` is sent under."""
        found = self._out.get(name)
        if found is None:
            found = _wire_name(name)
            if self._back.get(found, name) != name:  # two names that meet on the wire
                found = _hashed(name)
            self._out[name] = found
            self._back[found] = name
        return found

    def decode(self, wire: str) -> str:
        """The name a call the model returned as ``wire`` means."""
        return self._back.get(wire, wire)


def _wire_name(name: str) -> str:
    if _WIRE_NAME.fullmatch(name):
        return name
    written = _NOT_WIRE.sub("_", name.replace(".", "-")) or "tool"
    return written if len(written) <= _WIRE_MAX else _hashed(name)


def _hashed(name: str) -> str:
    """A wire name for ``name`` made unique by a hash of it, within the length limit."""
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    written = _NOT_WIRE.sub("_", name.replace(".", "-"))
    return f"{written[: _WIRE_MAX - len(digest) - 1]}-{digest}"


def encode_messages(
    messages: Sequence[ChatMessage], *, native: bool, names: WireNames | None = None
) -> list[dict[str, Any]]:
    """Return ``messages`` as the ``messages`` field of a request.

    Args:
        messages: The conversation.
        native: Whether the server speaks native tool calls. When not, earlier native
            calls are written as contract blocks and their results as user messages, so
            a conversation survives a switch from native to contract.
        names: How this request's native calls name their tools (``WireNames``).
    """
    names = names if names is not None else WireNames()
    return [_encode(message, native=native, names=names) for message in messages]


def encode_tools(
    tools: Sequence[ToolDefinition], names: WireNames | None = None
) -> list[dict[str, Any]]:
    """Return ``tools`` as the ``tools`` field of a request (native function calling), each
    named as ``names`` sends it (by default, as the API accepts it: ``WireNames``)."""
    names = names if names is not None else WireNames()
    return [
        {
            "type": "function",
            "function": {
                "name": names.encode(each.name),
                "description": each.description,
                "parameters": each.parameters,
            },
        }
        for each in tools
    ]


def probe_payload(model: str) -> dict[str, Any]:
    """Return the tiny request that shows whether native calls come back (``probe``).

    Any model whose tool calls work answers it with a call of ``PROBE_TOOL``. Like every
    request with tools, it lets the model choose (``tool_choice: auto``): forcing the call
    would prove only that the server can constrain a call, not that the model makes one.
    """
    return {
        "model": model,
        "messages": [
            {"role": "system", "content": "You answer by calling tools."},
            {"role": "user", "content": f'Call the {PROBE_TOOL} tool with status "ok".'},
        ],
        "tools": encode_tools([ToolDefinition(PROBE_TOOL, "Report a status.", _PROBE_PARAMETERS)]),
        "tool_choice": "auto",
        "max_tokens": 48,
        "temperature": 0,
    }


def _encode(message: ChatMessage, *, native: bool, names: WireNames) -> dict[str, Any]:
    if message.role is Role.ASSISTANT and message.tool_calls:
        return _encode_assistant_calls(message, native=native, names=names)
    if message.role is Role.TOOL:
        if native and message.tool_call_id is not None:
            return {
                "role": "tool",
                "tool_call_id": message.tool_call_id,
                "content": message.content,
            }
        content = message.content
        if message.tool_call_id is not None and message.results:
            content = render_results(message.results)
        return {"role": "user", "content": content}
    return {"role": message.role.value, "content": message.content}


def _encode_assistant_calls(
    message: ChatMessage, *, native: bool, names: WireNames
) -> dict[str, Any]:
    native_calls = [call for call in message.tool_calls if call.span is None]
    if native and native_calls:
        return {
            "role": "assistant",
            "content": message.content or None,
            "tool_calls": [_encode_call(call, names) for call in native_calls],
        }
    blocks = [render_call_block(call) for call in native_calls]
    content = "\n".join(part for part in (message.content, *blocks) if part)
    return {"role": "assistant", "content": content}


def _encode_call(call: ToolCall, names: WireNames) -> dict[str, Any]:
    arguments = call.raw_json if call.raw_json and not call.arguments else None
    if arguments is None:
        arguments = json.dumps(call.arguments, ensure_ascii=False)
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": names.encode(call.tool_name), "arguments": arguments},
    }


def decode_completion(
    response: httpx.Response, *, where: str, names: WireNames | None = None
) -> LLMResponse:
    """Return the ``LLMResponse`` in a successful completion body; its calls name the tools
    as ``names`` sent them (read back to ours).

    Raises:
        LLMResponseError: the body is not JSON, carries an error, or has no usable choice.
    """
    body = _json_object(response.text, where=where, what="a body")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        raise LLMResponseError(
            f"{where} answered without any choices (the model produced nothing): "
            f"{_snippet(response.text)!r}"
        )
    first = choices[0]
    message = first.get("message") if isinstance(first, dict) else None
    if not isinstance(message, dict):
        raise LLMResponseError(f"{where} answered with a choice without a message: {first!r:.200}")
    content = message.get("content")
    return LLMResponse(
        text=content if isinstance(content, str) else "",
        tool_calls=_decode_calls(message.get("tool_calls"), where=where, names=names),
        usage=_decode_usage(body.get("usage")),
        finish_reason=first.get("finish_reason") if isinstance(first, dict) else None,
    )


class StreamedCompletion:
    """Puts a streamed chat completion (``stream: true``) back together, chunk by chunk.

    Each server-sent event carries a ``chat.completion.chunk`` whose first choice has a
    ``delta``: a piece of the text, or pieces of tool calls keyed by their ``index`` (the id
    and the function's name usually in the first piece, the arguments in many).
    """

    def __init__(self, *, where: str, names: WireNames | None = None) -> None:
        self._where = where
        self._names = names
        self._text: list[str] = []
        self._calls: dict[int, dict[str, str]] = {}
        self._usage: Usage = Usage()
        self._finish_reason: str | None = None

    def add(self, data: str) -> str:
        """Take one event's data and return the text it adds ("" when none).

        Raises:
            LLMResponseError: the event is not JSON, or carries an error.
        """
        chunk = _json_object(data, where=self._where, what="a stream event")
        if isinstance(chunk.get("usage"), dict):
            self._usage = _decode_usage(chunk["usage"])
        choices = chunk.get("choices")
        first = choices[0] if isinstance(choices, list) and choices else None
        if not isinstance(first, dict):
            return ""
        if isinstance(first.get("finish_reason"), str):
            self._finish_reason = first["finish_reason"]
        delta = first.get("delta")
        if not isinstance(delta, dict):
            return ""
        for piece in delta.get("tool_calls") or ():
            self._add_call_piece(piece)
        content = delta.get("content")
        if isinstance(content, str) and content:
            self._text.append(content)
            return content
        return ""

    def response(self) -> LLMResponse:
        """The whole completion, as if it had arrived in one piece.

        Raises:
            LLMResponseError: a tool call has no function name.
        """
        calls = [
            {"id": piece["id"], "function": {"name": piece["name"], "arguments": piece["args"]}}
            for _, piece in sorted(self._calls.items())
        ]
        return LLMResponse(
            text="".join(self._text),
            tool_calls=_decode_calls(calls, where=self._where, names=self._names) if calls else (),
            usage=self._usage,
            finish_reason=self._finish_reason,
        )

    def _add_call_piece(self, piece: Any) -> None:
        if not isinstance(piece, dict):
            return
        index = piece.get("index")
        slot = self._calls.setdefault(
            index if isinstance(index, int) else len(self._calls),
            {"id": "", "name": "", "args": ""},
        )
        if isinstance(piece.get("id"), str) and not slot["id"]:
            slot["id"] = piece["id"]
        function = piece.get("function")
        if isinstance(function, dict):
            if isinstance(function.get("name"), str):
                slot["name"] += function["name"]
            if isinstance(function.get("arguments"), str):
                slot["args"] += function["arguments"]


def _json_object(text: str, *, where: str, what: str) -> dict[str, Any]:
    """``text`` read as the JSON object a server answered with.

    Raises:
        LLMResponseError: it is not JSON, not an object, or carries an error.
    """
    try:
        body = json.loads(text)
    except ValueError as exc:
        raise LLMResponseError(
            f"{where} answered with {what} that is not JSON: {_snippet(text)!r}"
        ) from exc
    if not isinstance(body, dict):
        raise LLMResponseError(f"{where} answered with JSON that is not an object: {body!r:.200}")
    if body.get("error"):
        raise LLMResponseError(f"{where} answered with an error: {_error_text(body)}")
    return body


def _decode_calls(raw: Any, *, where: str, names: WireNames | None) -> tuple[ToolCall, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise LLMResponseError(f"{where} sent tool_calls that are not a list: {raw!r:.200}")
    names = names if names is not None else WireNames()
    return tuple(_decode_call(item, where=where, names=names) for item in raw)


def _decode_call(item: Any, *, where: str, names: WireNames) -> ToolCall:
    function = item.get("function") if isinstance(item, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    if not isinstance(name, str) or not name:
        raise LLMResponseError(f"{where} sent a tool call without a function name: {item!r:.200}")
    name = names.decode(name)
    raw_arguments = function.get("arguments") if isinstance(function, dict) else None
    arguments, raw_json = _decode_arguments(raw_arguments)
    call_id = item.get("id")
    if isinstance(call_id, str) and call_id:
        return ToolCall(tool_name=name, arguments=arguments, raw_json=raw_json, id=call_id)
    return ToolCall(tool_name=name, arguments=arguments, raw_json=raw_json)


def _decode_arguments(raw: Any) -> tuple[dict[str, Any], str]:
    """Return ``(arguments, raw_json)``; broken JSON keeps ``{}`` and the raw text."""
    if isinstance(raw, dict):
        return raw, json.dumps(raw, ensure_ascii=False)
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}, ""
    text = raw if isinstance(raw, str) else json.dumps(raw)
    try:
        parsed = json.loads(text)
    except ValueError:
        return {}, text
    return (parsed, text) if isinstance(parsed, dict) else ({}, text)


def _decode_usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    prompt, completion = raw.get("prompt_tokens"), raw.get("completion_tokens")
    return Usage(
        prompt_tokens=prompt if isinstance(prompt, int) else 0,
        completion_tokens=completion if isinstance(completion, int) else 0,
    )


def error_detail(response: httpx.Response) -> str:
    """Return what an error response says, shortened for a message."""
    try:
        body = response.json()
    except ValueError:
        return _snippet(response.text) or response.reason_phrase
    if isinstance(body, dict) and body.get("error"):
        return _snippet(_error_text(body))
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return _snippet(body["message"])
    return _snippet(response.text)


def mentions_tools(status: int, detail: str) -> bool:
    """Return whether an error answer says the server refuses native ``tools``.

    Ollama answers 400 "... does not support tools"; llama.cpp's server answers 500
    "tools param requires --jinja flag" or "Unsupported param: tools"; vLLM answers 400
    about ``--enable-auto-tool-choice``.
    """
    if status < 400 or status in (401, 403, 404, 429):
        return False
    text = detail.lower()
    return any(word in text for word in _TOOL_WORDS) and any(
        word in text for word in _REJECTION_WORDS
    )


def mentions_streaming(status: int, detail: str) -> bool:
    """Return whether an error answer says the server refuses ``stream: true``."""
    if status < 400 or status in (401, 403, 404, 429) or status >= 500:
        return False
    text = detail.lower()
    return "stream" in text and any(word in text for word in _REJECTION_WORDS)


def _error_text(body: dict[str, Any]) -> str:
    error = body["error"]
    if isinstance(error, dict):
        message = error.get("message")
        return message if isinstance(message, str) else json.dumps(error)
    return str(error)


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DETAIL_LIMIT else text[: _DETAIL_LIMIT - 3] + "..."
