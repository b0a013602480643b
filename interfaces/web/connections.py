"""HTTP/1.1 connections with deadlines and a cap: uvicorn's h11 protocol, guarded.

uvicorn waits for a request's head as long as the client likes (its keep-alive timeout only
starts after a first response), so a client that opens connections and sends half a head
holds them forever. ``guarded_protocol`` makes a protocol class that:

- gives a request ``head_timeout`` seconds from its first byte (or from the connection's
  opening) until its head is complete, then ``body_timeout`` seconds for its body; a request
  late in either gets 408 and its connection is closed (a reply streaming to the client after
  its request arrived has no deadline: ``/events`` stays open);
- refuses a connection beyond ``max_connections`` open ones with 503 at once, so a flood of
  connections cannot exhaust the process's file descriptors.
"""

from __future__ import annotations

import asyncio
import logging

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

logger = logging.getLogger(__name__)


def _answer(status: bytes, text: str) -> bytes:
    body = text.encode()
    head = (
        b"HTTP/1.1 " + status + b"\r\ncontent-type: text/plain; charset=utf-8\r\n"
        b"connection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n"
    )
    return head + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with deadlines for a request's head and body and a cap on
    connections (the class attributes; ``guarded_protocol`` makes a subclass with them)."""

    head_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int = 256

    _timer: asyncio.TimerHandle | None = None
    _refused: bool = False

    # The same narrowing as uvicorn's own H11Protocol (asyncio says BaseTransport).
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if len(self.connections) >= self.max_connections:
            # Not one of the open connections: uvicorn's own bookkeeping never sees it.
            self.transport = transport
            self._refused = True
            logger.warning("refused a connection: %d are open already", len(self.connections))
            transport.write(
                _answer(
                    b"503 Service Unavailable",
                    f"the server holds {self.max_connections} connections already "
                    "(ASSISTANT_WEB_MAX_CONNECTIONS); try again shortly",
                )
            )
            transport.close()
            return
        super().connection_made(transport)
        self._arm(self.head_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._refused:
            return
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._timer is None and self.conn.their_state is h11.IDLE:
            self._arm(self.head_timeout)  # the first byte of a request on a kept-alive one
        was = self.conn.their_state
        super().data_received(data)
        now = self.conn.their_state
        if now is h11.SEND_BODY and was is not h11.SEND_BODY:
            self._arm(self.body_timeout)
        elif now is not h11.IDLE and now is not h11.SEND_BODY:
            self._disarm()  # the request is in: what follows is the reply

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._timer = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if self.conn.their_state is h11.SEND_BODY:
            what, seconds = "body", self.body_timeout
        else:
            what, seconds = "head", self.head_timeout
        started = self.cycle is not None and self.cycle.response_started
        if not started:
            self.transport.write(
                _answer(
                    b"408 Request Timeout",
                    f"the request's {what} did not arrive within {seconds:g} s "
                    f"(ASSISTANT_WEB_{what.upper()}_TIMEOUT)",
                )
            )
        self.transport.close()


def guarded_protocol(
    *, head_timeout: float, body_timeout: float, max_connections: int
) -> type[GuardedH11Protocol]:
    """A ``GuardedH11Protocol`` class with these limits (uvicorn makes one per connection)."""
    return type(
        "ServerH11Protocol",
        (GuardedH11Protocol,),
        {
            "head_timeout": head_timeout,
            "body_timeout": body_timeout,
            "max_connections": max_connections,
        },
    )
