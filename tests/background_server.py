"""``BackgroundServer``: an ``http.server`` on 127.0.0.1, served by a thread while in use.

The stand-ins for the OpenAI API and for web pages build their own request handlers and
hand the server in; this class owns the thread and the start and stop.
"""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer
from typing import Self


class BackgroundServer:
    """Serves ``server`` in a daemon thread inside a ``with`` block.

    Args:
        server: The server, bound to 127.0.0.1 and a free port.
        poll_interval: How often the serving thread checks whether to stop, in seconds.
    """

    def __init__(self, server: ThreadingHTTPServer, *, poll_interval: float) -> None:
        server.daemon_threads = True
        self._server = server
        self.stopping = threading.Event()
        """Set when the server stops: a handler holding a request open gives up then."""
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": poll_interval}, daemon=True
        )

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self._server.server_address[1])

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
