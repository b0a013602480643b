"""Real HTTP servers on 127.0.0.1 for the web tools: a routed web server and a SerpApi stand-in.

``LocalWebServer`` runs ``http.server`` in a thread and answers each path with a scripted
``Page``; every request is recorded (method, path, headers, body) so tests assert what the
client sent. Given a TLS context it serves HTTPS and records the server names (SNI) asked for. ``serpapi_page`` builds SerpApi's ``search.json`` response shape.
"""

from __future__ import annotations

import json
import ssl
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from tests.background_server import BackgroundServer


@dataclass(frozen=True)
class Page:
    """What the server answers on one path.

    Attributes:
        body: The body bytes (a ``str`` is UTF-8 encoded).
        status: The HTTP status.
        content_type: The Content-Type header ("" to send none).
        headers: Extra response headers (``Location``...).
        repeat: How many times to send ``body`` (for size-cap tests without big literals).
        echo: Answer with the request's headers as JSON instead of ``body``.
    """

    body: bytes | str = b""
    status: int = 200
    content_type: str = "text/plain; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    repeat: int = 1
    echo: bool = False


@dataclass(frozen=True)
class Recorded:
    """One request the server received."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes


def serpapi_page(results: Iterable[tuple[str, str, str]], *, status: int = 200) -> Page:
    """Return a SerpApi ``search.json`` answer with these (title, link, snippet) results."""
    organic = [
        {"position": i, "title": title, "link": link, "snippet": snippet, "source": "standin"}
        for i, (title, link, snippet) in enumerate(results, start=1)
    ]
    payload = {
        "search_metadata": {"id": "standin", "status": "Success"},
        "search_parameters": {"engine": "google"},
        "organic_results": organic,
    }
    return Page(json.dumps(payload), status=status, content_type="application/json")


def serpapi_error(message: str, *, status: int) -> Page:
    """Return a SerpApi error answer: ``{"error": message}`` with ``status``."""
    return Page(json.dumps({"error": message}), status=status, content_type="application/json")


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        """Refused TLS handshakes and dropped connections are expected in tests: no traceback."""


class LocalWebServer(BackgroundServer):
    """A threaded HTTP server on 127.0.0.1 that answers scripted pages per path.

    Use as a context manager; ``url(path)`` gives the address of a path.
    """

    def __init__(
        self, pages: dict[str, Page] | None = None, *, tls: ssl.SSLContext | None = None
    ) -> None:
        self.pages: dict[str, Page] = dict(pages or {})
        self.requests: list[Recorded] = []
        self.server_names: list[str | None] = []
        server = _QuietServer(("127.0.0.1", 0), self._handler_class())
        if tls is not None:
            tls.sni_callback = self._record_sni
            server.socket = tls.wrap_socket(server.socket, server_side=True)
        super().__init__(server, poll_interval=0.02)

    def _record_sni(self, sock: ssl.SSLObject, name: str | None, context: ssl.SSLContext) -> None:
        self.server_names.append(name)

    def url(self, path: str = "/", *, host: str = "127.0.0.1", scheme: str = "http") -> str:
        """Return the URL of ``path`` on this server, optionally under another host name."""
        return f"{scheme}://{host}:{self.port}{path}"

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                """Keep test output quiet."""

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                split = urlsplit(self.path)
                server.requests.append(
                    Recorded(
                        self.command, split.path, parse_qs(split.query), dict(self.headers), body
                    )
                )
                page = server.pages.get(split.path, Page("not found", status=404))
                raw = page.body.encode() if isinstance(page.body, str) else page.body
                if page.echo:
                    raw = json.dumps(dict(self.headers)).encode()
                payload = raw * page.repeat if self.command != "HEAD" else b""
                self.send_response(page.status)
                if page.content_type:
                    self.send_header("Content-Type", page.content_type)
                for name, value in page.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(raw) * page.repeat))
                self.end_headers()
                try:
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    return

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = _answer

        return Handler
