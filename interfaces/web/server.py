"""``WebServer``: uvicorn serving an ASGI app on the running event loop, next to the scheduler.

The socket is bound and listening before ``start`` returns, so the port is known (port 0
picks a free one) and no client can arrive too early. Each connection has deadlines for its
request's head and body and the number of open ones is capped (``interfaces.web.connections``).
Signals stay with the caller (the front end stops the server on SIGINT/SIGTERM), and so does
logging.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable, Iterator

import uvicorn
from starlette.types import ASGIApp

from interfaces.web.connections import guarded_protocol


class _Server(uvicorn.Server):
    """uvicorn's server, leaving the process's signal handlers alone."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class WebServer:
    """Serves ``app`` over HTTP on ``host``:``port`` until ``stop``.

    Args:
        app: The ASGI application.
        host: The address to listen on.
        port: The port (0: any free one; ``port`` then says which).
        on_stop: Called first when stopping (ends open streams).
        graceful: Seconds to let requests in progress finish when stopping.
        head_timeout: Seconds a request's head may take to arrive, from its first byte.
        body_timeout: Seconds its body may take after the head.
        max_connections: Open connections at most; another one gets 503 and is closed.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        host: str = "127.0.0.1",
        port: int = 8080,
        on_stop: Callable[[], None] | None = None,
        graceful: int = 5,
        head_timeout: float = 10.0,
        body_timeout: float = 30.0,
        max_connections: int = 256,
    ) -> None:
        self._app = app
        self._host = host
        self._port = port
        self._on_stop = on_stop
        self._graceful = graceful
        self._protocol = guarded_protocol(
            head_timeout=head_timeout, body_timeout=body_timeout, max_connections=max_connections
        )
        self._socket: socket.socket | None = None
        self._server: _Server | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def port(self) -> int:
        """The port the server listens on."""
        if self._socket is None:
            raise RuntimeError("the web server is not started")
        return int(self._socket.getsockname()[1])

    @property
    def url(self) -> str:
        """The server's base URL, e.g. ``http://127.0.0.1:8080``."""
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{self.port}"

    async def start(self) -> None:
        """Bind, listen and start serving.

        Raises:
            OSError: when the address cannot be bound (in use, not this machine's).
        """
        family = socket.AF_INET6 if ":" in self._host else socket.AF_INET
        # IPPROTO_TCP named, so asyncio sets TCP_NODELAY on each connection (it checks the
        # protocol): without it, keep-alive requests wait 40 ms for delayed ACKs.
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self._host, self._port))
            sock.listen(2048)
            sock.setblocking(False)
        except OSError:
            sock.close()
            raise
        self._socket = sock
        config = uvicorn.Config(
            self._app,
            lifespan="off",
            log_config=None,
            access_log=False,
            server_header=False,
            timeout_graceful_shutdown=self._graceful,
            http=self._protocol,
        )
        self._server = _Server(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]), name="web-server")

    async def stop(self) -> None:
        """Stop accepting, let requests in progress finish (up to ``graceful``), close."""
        if self._on_stop is not None:
            self._on_stop()
        if self._server is not None:
            self._server.should_exit = True
        if self._task is not None:
            task, self._task = self._task, None
            await task
        if self._socket is not None:
            self._socket.close()

    async def __aenter__(self) -> WebServer:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()
