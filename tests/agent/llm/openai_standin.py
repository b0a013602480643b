"""A real HTTP server on 127.0.0.1 that speaks OpenAI chat completions, scripted per test.

It runs ``http.server`` in a thread; every request is recorded (path, headers, JSON body)
so tests assert what the client sent. Replies come from a queue (``push``) or a handler.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.background_server import BackgroundServer


@dataclass(frozen=True)
class RecordedRequest:
    """One request the stand-in received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The ``messages`` field of a chat-completions request."""
        found = self.body.get("messages") if isinstance(self.body, dict) else None
        return found if isinstance(found, list) else []


@dataclass(frozen=True)
class StandinReply:
    """What the stand-in answers to one request.

    Attributes:
        status: The HTTP status.
        body: JSON-able data, or ``str``/``bytes`` sent as they are (for malformed bodies).
        headers: Extra response headers (``Retry-After``...).
        hang: Hold the answer until the server stops (for client timeouts).
        events: Server-sent events to stream instead of ``body`` (each a JSON-able chunk, or
            a ``str`` sent as the event's data as it is).
        break_after: Close the connection after this many events, without ``[DONE]`` (a
            server that dies in the middle of its answer).
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    hang: bool = False
    events: list[Any] | None = None
    break_after: int | None = None


def completion(
    text: str | None = "",
    *,
    tool_calls: Iterable[tuple[str, str, dict[str, Any] | str]] = (),
    finish_reason: str = "stop",
) -> StandinReply:
    """Return a successful completion.

    Args:
        text: The assistant's content (``None`` is sent as JSON null).
        tool_calls: ``(id, name, arguments)``; a ``str`` argument is sent verbatim, so tests
            can send broken JSON.
        finish_reason: The choice's finish reason.
    """
    message: dict[str, Any] = {"role": "assistant", "content": text}
    calls = [
        {
            "id": call_id,
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for call_id, name, args in tool_calls
    ]
    if calls:
        message["tool_calls"] = calls
    body = {
        "id": "chatcmpl-standin",
        "object": "chat.completion",
        "model": "standin-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }
    return StandinReply(body=body)


def streamed(
    *pieces: str,
    tool_calls: Iterable[tuple[str, str, list[str]]] = (),
    finish_reason: str = "stop",
    break_after: int | None = None,
) -> StandinReply:
    """Return a completion streamed as chat-completion chunks.

    Args:
        pieces: The text, piece by piece (one event each).
        tool_calls: ``(id, name, argument pieces)``: the id and name come in the call's first
            event, each argument piece in an event of its own.
        finish_reason: Sent in the last event with the usage.
        break_after: Close the connection after this many events.
    """

    def chunk(delta: dict[str, Any], **extra: Any) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": extra.pop("finish", None)}
        return {
            "id": "chatcmpl-standin",
            "object": "chat.completion.chunk",
            "choices": [choice],
            **extra,
        }

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": piece}) for piece in pieces]
    for index, (call_id, name, arguments) in enumerate(tool_calls):
        head = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        events.append(chunk({"tool_calls": [head]}))
        events += [
            chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
            for part in arguments
        ]
    usage = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    events.append(chunk({}, finish=finish_reason, usage=usage))
    return StandinReply(events=events, break_after=break_after)


def error(status: int, message: str, **headers: str) -> StandinReply:
    """Return an OpenAI-style error answer."""
    body = {"error": {"message": message, "type": "api_error", "param": None, "code": None}}
    return StandinReply(status=status, body=body, headers=headers)


Handler = Callable[[RecordedRequest], StandinReply]


class OpenAIStandin(BackgroundServer):
    """The stand-in server; use it as a context manager."""

    def __init__(self, replies: Iterable[StandinReply] | Handler = ()) -> None:
        self.requests: list[RecordedRequest] = []
        self._handler: Handler | None = replies if callable(replies) else None
        self._queue: deque[StandinReply] = deque([] if callable(replies) else replies)
        self._lock = threading.Lock()
        server = ThreadingHTTPServer(("127.0.0.1", 0), self._request_handler_class())
        super().__init__(server, poll_interval=0.01)

    @property
    def url(self) -> str:
        """The API root to pass as ``base_url``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def push(self, *replies: StandinReply) -> None:
        """Queue replies for the next requests."""
        with self._lock:
            self._queue.extend(replies)

    def _answer(self, request: RecordedRequest) -> StandinReply:
        with self._lock:
            self.requests.append(request)
        if self._handler is not None:
            return self._handler(request)  # outside the lock: a handler may hold its answer
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return error(500, "the stand-in has no scripted reply left for this request")

    def _request_handler_class(self) -> type[BaseHTTPRequestHandler]:
        standin = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out as separate writes

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body: Any = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                request = RecordedRequest(
                    method="POST",
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    body=body,
                )
                reply = standin._answer(request)
                if reply.hang:
                    standin.stopping.wait(timeout=10)
                    return
                if reply.events is not None:
                    self._stream(reply)
                    return
                self._send(reply)

            def _stream(self, reply: StandinReply) -> None:
                self.send_response(reply.status)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True
                for number, event in enumerate(reply.events or []):
                    if number == reply.break_after:
                        return
                    data = event if isinstance(event, str) else json.dumps(event)
                    self.wfile.write(f"data: {data}\n\n".encode())
                    self.wfile.flush()
                if reply.break_after is None:
                    self.wfile.write(b"data: [DONE]\n\n")

            def _send(self, reply: StandinReply) -> None:
                if isinstance(reply.body, bytes):
                    data = reply.body
                elif isinstance(reply.body, str):
                    data = reply.body.encode()
                else:
                    data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name.replace("_", "-"), value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                """Keep test output quiet."""

        return _Handler
