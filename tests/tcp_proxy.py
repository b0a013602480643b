"""A TCP proxy on 127.0.0.1 that a test can cut: a database outage without stopping the server.

``TcpProxy`` forwards every connection to ``target``; ``cut`` closes the listening socket and
every forwarded connection (what a network outage or a restarting server looks like to a
client), ``restore`` listens again on the same port.
"""

from __future__ import annotations

import asyncio
import contextlib


class TcpProxy:
    """Forwards connections from ``127.0.0.1:port`` to ``host:port`` until cut.

    Args:
        host: Where to forward to.
        port: Its port.
    """

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.port = 0

    async def start(self) -> None:
        """Listen (on a free port the first time, on the same one afterwards)."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        """Stop listening and drop every forwarded connection."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def restore(self) -> None:
        """Listen again on the same port."""
        await self.start()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self._target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}
        await asyncio.gather(
            _pipe(reader, up_writer), _pipe(up_reader, writer), return_exceptions=True
        )
        self._writers -= {writer, up_writer}


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            writer.transport.abort()
