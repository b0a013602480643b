"""The running assistant answers ``assistant ask`` on a Unix socket in its data directory.

Each front end that runs long listens on ``DATA_DIR/assistant.sock`` (``answering_ask``), so
that ``assistant ask`` is a connection and a turn instead of a new process building the
whole application (the client and the protocol: ``assistant.askclient``). The turn is the
in-process command's own (``assistant.asking.answer_ask``): the local user in the local chat,
its history, slash commands and approvals.

Only this user reaches it: the socket is made 0600 (the socket's own mode, set before it is
bound, and checked after) in the 0700 data directory, and on Linux each caller's user id
is read from the connection (``SO_PEERCRED``) and another user's refused with a line that
says so.

One process answers for a data directory: it holds ``DATA_DIR/assistant.sock.lock``
(``flock``, released however the process ends) while it listens. A second assistant on the
same data directory finds the lock held, leaves the socket to the first, and says so in one
log line; a socket file with no holder of the lock is a stale one (a process that was
killed) and is replaced.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import socket
import stat
import struct
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from assistant.app import App
from assistant.askclient import (
    MAX_LINE,
    PROTOCOL_VERSION,
    Answer,
    ProtocolError,
    decode_line,
    encode_line,
    socket_path,
)
from assistant.asking import IN_PROCESS, Answerer, answer_ask, one_line
from common import PRIVATE_FILE_MODE, redact_text

logger = logging.getLogger(__name__)

LOCK_NAME = "assistant.sock.lock"
"""The lock file beside the socket: whoever holds it answers ``ask`` for the data directory."""
REQUEST_TIMEOUT = 10.0
"""Seconds a connection may take to send its request after the hello."""
_PEER_CREDENTIALS = struct.Struct("3i")  # struct ucred: pid, uid, gid


class AskServerError(Exception):
    """The socket cannot be made as it must be (its mode, its kind); the message says why."""


@dataclass(frozen=True, slots=True)
class _Request:
    """What a client asked: the text, ``--json``, and the folder it was asked from."""

    text: str
    as_json: bool
    cwd: Path | None


@asynccontextmanager
async def answering_ask(
    app: App, *, data_dir: Path, secrets: Sequence[str] = (), answerer: Answerer = IN_PROCESS
) -> AsyncIterator[AskServer]:
    """Answer ``assistant ask`` on ``data_dir``'s socket while the block runs.

    The front end keeps running without it when another assistant already answers for the
    data directory or the socket cannot be made (one log line says which).
    """
    server = AskServer(app=app, data_dir=data_dir, secrets=secrets, answerer=answerer)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


class AskServer:
    """The listener on ``DATA_DIR/assistant.sock``: ``start``, then ``stop``.

    Args:
        app: The running application the turns run on.
        data_dir: The data directory the socket and its lock are made in.
        secrets: Values an error line must not show.
        request_timeout: Seconds a connection may take to send its request.
        answerer: This front end, for what the answers' notes say.
    """

    def __init__(
        self,
        *,
        app: App,
        data_dir: Path,
        secrets: Sequence[str] = (),
        request_timeout: float = REQUEST_TIMEOUT,
        answerer: Answerer = IN_PROCESS,
    ) -> None:
        self._app = app
        self._answerer = answerer
        self.path = socket_path(data_dir)
        self._lock_path = data_dir / LOCK_NAME
        self._secrets = tuple(secrets)
        self._request_timeout = request_timeout
        self._lock: int | None = None
        self._inode: int | None = None
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Take the data directory's socket, unless another assistant holds it."""
        try:
            holder = self._take_lock()
            if holder is not None:
                logger.warning(
                    "%s already answers `assistant ask` on %s; this one leaves it to that one",
                    holder,
                    self.path,
                )
                return
            listening = _bind(self.path)
        except (OSError, AskServerError) as exc:
            self._release_lock()
            logger.warning(
                "`assistant ask` will not be answered by this assistant: cannot listen on %s "
                "(%s); each ask builds the assistant in its own process instead",
                self.path,
                exc.strerror if isinstance(exc, OSError) and exc.strerror else exc,
            )
            return
        self._inode = self.path.stat().st_ino
        self._server = await asyncio.start_unix_server(
            self._accepted, sock=listening, limit=MAX_LINE + 1
        )
        logger.info("answering `assistant ask` on %s", self.path)

    async def stop(self) -> None:
        """Stop listening, end the connections still open, remove the socket and free the
        lock."""
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        await server.wait_closed()
        with contextlib.suppress(FileNotFoundError):
            if self.path.stat().st_ino == self._inode:  # still ours, not a newer one's
                self.path.unlink()
        self._release_lock()

    def _take_lock(self) -> str | None:
        """Hold the lock file; ``None`` once held, else who holds it."""
        fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 100).decode(errors="replace").strip()
            os.close(fd)
            return f"another assistant ({holder or 'its pid unknown'})"
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()}\n".encode())
        self._lock = fd
        return None

    def _release_lock(self) -> None:
        fd, self._lock = self._lock, None
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    async def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve one connection; nothing a client does or fails to do reaches the loop."""
        task = asyncio.current_task()
        assert task is not None  # asyncio runs each connection as a task
        self._connections.add(task)
        try:
            await self._serve(reader, writer)
        except (ConnectionError, OSError) as exc:  # the client went away
            logger.debug("an `assistant ask` client left: %s", exc)
        except asyncio.CancelledError:
            # The assistant stops mid-turn (``stop``): the client reads the closed connection
            # as that. The handler ends here rather than passing the cancellation on, which
            # Python 3.11's stream server would log as an unhandled error with its traceback.
            logger.info("stopped while answering `assistant ask` on %s", self.path)
        finally:
            self._connections.discard(task)
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        pid, refusal = _peer(writer)
        if refusal is not None:
            logger.warning("`assistant ask` on %s: %s", self.path, refusal)
            await _send(writer, {"error": refusal})
            return
        await _send(writer, {"pid": os.getpid()})
        try:
            line = await asyncio.wait_for(reader.readline(), self._request_timeout)
        except TimeoutError:
            await _send(writer, {"error": f"no request within {self._request_timeout:g} s"})
            return
        except ValueError:  # longer than the reader's limit
            await _send(writer, {"error": f"the request is longer than {MAX_LINE} bytes"})
            return
        if not line.endswith(b"\n"):
            return  # the client left before it finished asking: nothing is run
        try:
            request = _request(line)
        except ProtocolError as exc:
            await _send(writer, {"error": str(exc)})
            return
        if _needs_client_folder(request):
            await _send(writer, {"local": True})
            return
        answer = await self._answer(request)
        logger.info(
            "answered `assistant ask` for pid %s on %s: exit status %s",
            pid,
            self.path,
            answer.status,
        )
        await _send(writer, answer._asdict())

    async def _answer(self, request: _Request) -> Answer:
        """The turn, as the in-process command runs it; a bug in it is one error line for
        the client and a traceback in this log."""
        try:
            return await answer_ask(
                self._app,
                request.text,
                as_json=request.as_json,
                secrets=self._secrets,
                answerer=self._answerer,
            )
        except Exception as exc:
            logger.exception("assistant ask failed (through %s)", self.path)
            return Answer("", f"error: {redact_text(one_line(exc), self._secrets)}\n", 1)


def _bind(path: Path) -> socket.socket:
    """A listening socket at ``path``, 0600, replacing a stale one.

    Raises:
        AskServerError: when ``path`` is something other than a socket, or the socket's mode
            is not 0600 after binding.
        OSError: when it cannot be bound (a path too long for a socket, a read-only folder).
    """
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_ISSOCK(path.lstat().st_mode):
            raise AskServerError(f"{path} is not a socket; move it away")
        path.unlink()  # nobody holds the lock: no process listens on it
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        # The file is made with the socket's own mode less the umask (Linux), so it is 0600
        # from the start. Narrowing the umask instead would narrow it for the whole process
        # while it binds, and a folder another thread makes then (the daily backup's) would
        # be made unusable, 0600.
        with contextlib.suppress(OSError):  # systems where it does not apply: chmod below
            os.fchmod(listening.fileno(), PRIVATE_FILE_MODE)
        listening.bind(os.fspath(path))
        if stat.S_IMODE(path.lstat().st_mode) != PRIVATE_FILE_MODE:
            path.chmod(PRIVATE_FILE_MODE)  # others cannot reach it meanwhile: the folder is 0700
        made = path.lstat()
        if stat.S_IMODE(made.st_mode) != PRIVATE_FILE_MODE or made.st_uid != os.getuid():
            path.unlink()
            raise AskServerError(
                f"{path} was made with mode {stat.S_IMODE(made.st_mode):o} for uid "
                f"{made.st_uid}, not 600 for this user"
            )
        listening.listen()
        listening.setblocking(False)
    except BaseException:
        listening.close()
        raise
    return listening


def _peer(writer: asyncio.StreamWriter) -> tuple[int | None, str | None]:
    """The caller's pid, and why it is refused (``None``: it is this user).

    Where the system does not tell who connected (no ``SO_PEERCRED``), the socket's mode and
    the data directory's keep others out.
    """
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None, None
    conn = writer.get_extra_info("socket")
    raw = conn.getsockopt(socket.SOL_SOCKET, option, _PEER_CREDENTIALS.size)
    pid, uid, _ = _PEER_CREDENTIALS.unpack(raw)
    if uid != os.getuid():
        return pid, (
            f"refused: this assistant answers only its own user (uid {os.getuid()}), not uid "
            f"{uid}; run `assistant ask --local` with your own data directory"
        )
    return pid, None


def _request(line: bytes) -> _Request:
    """The request a line carries.

    Raises:
        ProtocolError: for another version, or a field that is missing or of the wrong type.
    """
    message = decode_line(line)
    version = message.get("version")
    if version != PROTOCOL_VERSION:
        raise ProtocolError(
            f"protocol version {version!r} is not this assistant's ({PROTOCOL_VERSION})"
        )
    text, as_json, cwd = message.get("text"), message.get("json", False), message.get("cwd")
    if not isinstance(text, str):
        raise ProtocolError(f'"text" must be a string, not {text!r}')
    if not isinstance(as_json, bool):
        raise ProtocolError(f'"json" must be true or false, not {as_json!r}')
    if cwd is not None and not isinstance(cwd, str):
        raise ProtocolError(f'"cwd" must be a folder\'s path, not {cwd!r}')
    return _Request(text, as_json, None if cwd is None else Path(cwd))


def _needs_client_folder(request: _Request) -> bool:
    """Whether only the client's own process answers the request as it would: ``/calendar``
    may name a file relative to the client's folder, which is not this process's."""
    if not request.text.lstrip().lower().startswith("/calendar") or request.cwd is None:
        return False
    try:
        return request.cwd != Path.cwd()
    except OSError:  # this process's folder was removed: it is not the client's
        return True


async def _send(writer: asyncio.StreamWriter, message: dict[str, object]) -> None:
    writer.write(encode_line({"version": PROTOCOL_VERSION, **message}))
    await writer.drain()
