"""A scripted HTTP/1.1 server on 127.0.0.1 for the api_call tests (runner and manager)."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from http import HTTPStatus
from urllib.parse import unquote

HANG_UP = 0
"""A scripted status: close the connection without answering."""
HOLD = -1
"""A scripted status: never answer; keep the connection until the client goes away."""


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class ScriptedServer:
    """An HTTP/1.1 server on 127.0.0.1 answering with scripted (status, body) pairs."""

    replies: list[tuple[int, str]] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    echo_headers: bool = False
    echo_target: bool = False
    port: int = 0
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def wait_for(self, count: int) -> None:
        """Wait until ``count`` requests arrived. The bound only turns a hang into a failure:
        a fresh clone's check, run beside a second check and a long benchmark, once took
        more than 5 s for a PostgreSQL claim's writes and the request."""
        async with asyncio.timeout(30):
            while len(self.received) < count:
                self.arrived.clear()
                await self.arrived.wait()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        method, path, _ = head[0].split(" ", 2)
        headers = {
            k.strip().lower(): v.strip()
            for k, v in (line.split(":", 1) for line in head[1:] if line)
        }
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        self.received.append(Received(method, path, headers, body))
        self.arrived.set()
        status, text = self.replies.pop(0) if self.replies else (200, "ok")
        if status == HOLD:
            await reader.read()  # until the client closes its end
        if status in (HANG_UP, HOLD):
            writer.close()  # the request arrived; the connection drops before any answer
            return
        if self.echo_headers:
            text = json.dumps(headers)
        if self.echo_target:  # as servers do: "no light at /lights?api_key=..."
            text = f"{text}: you asked for {method} {unquote(path)} ({path})"
        payload = text.encode()
        writer.write(
            f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nContent-Length: {len(payload)}\r\n"
            "Connection: close\r\n\r\n".encode()
            + payload
        )
        await writer.drain()
        writer.close()
