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
    """

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    hang: bool = False


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
                return self._handler(request)
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
                self._send(reply)

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
