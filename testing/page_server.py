"""A web page whose content the test changes: a real HTTP/1.1 server on 127.0.0.1.

Monitors are tested against it as against any site: they fetch it through the guarded HTTP
path (with 127.0.0.1 on the allow list), read its HTML or JSON, and find what changed::

    async with PageServer() as site:
        site.show("<html><body><p id='stock'>Sold out</p></body></html>")
        url = site.url("/item")
        ...
        site.show(..."In stock"...)

Every path serves the current content; ``status`` answers with another status instead (a
site that is down), ``requests`` counts what arrived.
"""

from __future__ import annotations

import asyncio
import contextlib
from http import HTTPStatus
from types import TracebackType
from typing import Self


class PageServer:
    """Serves one changing page on 127.0.0.1 and a free port.

    Args:
        content: What it serves at first.
        content_type: Its media type (``text/html; charset=utf-8`` unless told).
    """

    def __init__(
        self, content: str = "<html><body></body></html>", *, content_type: str = ""
    ) -> None:
        self.content = content
        self.content_type = content_type or "text/html; charset=utf-8"
        self.status = 200
        self.requests = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> Self:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    @property
    def port(self) -> int:
        """The port it listens on."""
        assert self._server is not None, "the page server is not running"
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    def url(self, path: str = "/") -> str:
        """The address of ``path`` on it."""
        return f"http://127.0.0.1:{self.port}{path}"

    def show(self, content: str, *, content_type: str | None = None, status: int = 200) -> None:
        """Serve ``content`` from now on (with this media type and status)."""
        self.content = content
        self.status = status
        if content_type is not None:
            self.content_type = content_type

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        self.requests += 1
        method = head.split(b" ", 1)[0]
        payload = self.content.encode()
        phrase = HTTPStatus(self.status).phrase
        writer.write(
            f"HTTP/1.1 {self.status} {phrase}\r\nContent-Type: {self.content_type}\r\n"
            f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
            + (payload if method != b"HEAD" else b"")
        )
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()
