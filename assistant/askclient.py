"""``assistant ask`` answered by a running assistant: the client's side, on the standard
library alone.

A front end that runs long (``assistant chat``, ``web``, ``telegram``, ``serve``, ``mcp``)
answers ``ask`` on the Unix socket ``DATA_DIR/assistant.sock`` (``assistant.askserver``), so
that a script's one-shot question costs a connection instead of building the whole
application (docs/usage.md, "fast ask for scripts"). This module decides whether one does
before anything heavy is imported: it finds the data directory as the settings would
(``resolve_data_dir``), connects, and returns the running assistant's answer, or why it
could not (then the command answers in process, the same way).

The protocol, one request per connection, one JSON object per line:

1. the server says hello: ``{"version": 1, "pid": ...}`` (or ``{"version": 1, "error":
   ...}`` when it refuses the caller);
2. the client sends its request: ``{"version": 1, "text": ..., "json": false, "cwd": ...}``;
3. the server answers what the in-process ``ask`` would print: ``{"version": 1, "stdout":
   ..., "stderr": ..., "status": 0}``, or ``{"version": 1, "error": ...}`` for a request it
   cannot use, or ``{"version": 1, "local": true}`` when only the client's own process can
   answer it (a file named relative to a folder the server is not in).

The client sends its request only after the hello, within ``HELLO_TIMEOUT``: until then it
may give up and answer in process without the turn running twice.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import socket
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple, Protocol

PROTOCOL_VERSION = 1
"""The version both sides put in every line; a server of another version is not used."""
SOCKET_NAME = "assistant.sock"
"""The socket's file name in the data directory."""
LOCAL_VARIABLE = "ASSISTANT_ASK_LOCAL"
"""The environment variable that makes ``ask`` answer in process (as ``ask --local``)."""
HELLO_TIMEOUT = 3.0
"""Seconds the client waits to connect and hear the server's hello before answering in
process instead."""
MAX_LINE = 64 * 1024 * 1024
"""The longest line either side reads (a reply with every tool's output fits)."""

_DATA_DIR_VARIABLE = "assistant_data_dir"
_DEFAULT_DATA_DIR = "data"
_DOTENV = ".env"
_YES = frozenset({"1", "true", "yes", "on"})


class Answer(NamedTuple):
    """What ``assistant ask`` prints and the status it exits with."""

    stdout: str
    stderr: str
    status: int


class Declined(NamedTuple):
    """No running assistant answered; ``reason`` says why (logged at DEBUG)."""

    reason: str


class ProtocolError(Exception):
    """A line of the protocol that cannot be used; the message says what was wrong."""


class Unanswered(Exception):
    """The running assistant took the request but closed the connection before answering:
    the turn may have run, so it is not repeated in process."""


def wants_local(environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``ASSISTANT_ASK_LOCAL`` asks for the in-process answer (1, true, yes, on)."""
    value = (os.environ if environ is None else environ).get(LOCAL_VARIABLE, "")
    return value.strip().lower() in _YES


def socket_path(data_dir: Path) -> Path:
    """The socket a running assistant on ``data_dir`` answers ``ask`` on."""
    return data_dir / SOCKET_NAME


def ask_running(
    text: str, *, as_json: bool, data_dir: Path | None = None, timeout: float = HELLO_TIMEOUT
) -> Answer | Declined:
    """Ask the assistant running on the data directory, if one answers.

    Args:
        text: What the person said.
        as_json: ``--json``: the answer is the JSON ``ask --json`` prints.
        data_dir: The data directory (default: as the settings find it).
        timeout: Seconds to connect and hear the hello.

    Returns:
        The running assistant's answer, or why there is none (no socket, nobody listening,
        another protocol version, no hello in time, a refusal, a request it cannot use).

    Raises:
        Unanswered: when the request was sent and the connection closed without an answer.
    """
    folder = resolve_data_dir() if data_dir is None else data_dir
    if folder is None:
        return Declined(f"the {_DOTENV} file cannot be read as the settings read it")
    path = socket_path(folder)
    if not path.exists():
        return Declined(f"no socket at {path}")
    request = {"version": PROTOCOL_VERSION, "text": text, "json": as_json, "cwd": _cwd()}
    try:
        line = encode_line(request)
    except UnicodeEncodeError:
        # Bytes that are no UTF-8 (an argument or a folder name in another encoding) reach
        # Python as lone surrogates; the in-process answer reads them as it always has.
        return Declined("the question or the current folder is not UTF-8 text")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(timeout)
        try:
            conn.connect(os.fspath(path))
        except OSError as exc:
            return Declined(f"{path}: {exc}")
        with conn.makefile("rb") as reader:
            try:
                hello = read_line(reader)
            except (OSError, ProtocolError) as exc:
                return Declined(f"{path}: {exc}")
            if hello.get("version") != PROTOCOL_VERSION or "error" in hello:
                return Declined(f"{path} said {hello!r}")
            conn.settimeout(None)  # the turn takes what it takes (the model has its own timeouts)
            try:
                conn.sendall(line)
            except OSError as exc:  # the server runs only a request it read to its end
                return Declined(f"{path}: {exc}")
            try:
                reply = read_line(reader)
            except (OSError, ProtocolError) as exc:
                raise Unanswered(
                    f"the assistant running on {folder} (pid {hello.get('pid')}) stopped before "
                    f"it answered ({exc}); the turn may have been done: check with "
                    "`assistant tasks`"
                ) from None
    return _answer_of(reply, path)


def _cwd() -> str | None:
    """The folder the command runs in (``None`` when it was removed)."""
    try:
        return os.getcwd()  # noqa: PTH109 (a string is what the request carries)
    except OSError:
        return None


def _answer_of(reply: Mapping[str, object], path: Path) -> Answer | Declined:
    """The answer a reply carries, or why it carries none."""
    if reply.get("version") != PROTOCOL_VERSION or "error" in reply or reply.get("local"):
        return Declined(f"{path} said {dict(reply)!r}")
    stdout, stderr, status = reply.get("stdout"), reply.get("stderr"), reply.get("status")
    if not isinstance(stdout, str) or not isinstance(stderr, str) or type(status) is not int:
        return Declined(f"{path} sent a reply without stdout, stderr and status: {reply!r}")
    return Answer(stdout, stderr, status)


def encode_line(message: Mapping[str, object]) -> bytes:
    """One protocol line."""
    return json.dumps(message, ensure_ascii=False).encode() + b"\n"


def decode_line(line: bytes) -> dict[str, object]:
    """The JSON object of one protocol line.

    Raises:
        ProtocolError: when it is not one JSON object.
    """
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"not a line of JSON ({exc}): {line[:80]!r}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"not a JSON object: {line[:80]!r}")
    return message


def read_line(reader: _Readable) -> dict[str, object]:
    """Read one protocol line from ``reader``.

    Raises:
        ProtocolError: when the connection closed first, or the line is too long or not an
            object.
        OSError: when the connection failed (``TimeoutError`` among them).
    """
    line = reader.readline(MAX_LINE + 1)
    if not line.endswith(b"\n"):
        raise ProtocolError("the connection closed" if not line else "the line is too long")
    return decode_line(line)


class _Readable(Protocol):
    def readline(self, size: int = -1, /) -> bytes: ...


# -- the data directory, as assistant.config's settings find it ---------------------------------


class _Unsure(Exception):
    """The ``.env`` file holds something only its own parser would read right."""


def resolve_data_dir(environ: Mapping[str, str] | None = None) -> Path | None:
    """The data directory the settings would use, or ``None`` when this reader cannot tell.

    The rules of ``assistant.config.Settings`` (pydantic-settings): ``ASSISTANT_DATA_DIR``
    from the environment (its name in any case; an empty value is ``.``), else from the
    ``.env`` file in the current folder (python-dotenv's syntax), else ``data``; a relative
    path stays relative to the current folder. A ``.env`` line this reader cannot read as
    python-dotenv does (a quoted value that goes on over lines, a quoted name, a
    ``${VARIABLE}`` in the data directory's value, a named pipe) gives ``None``: the command
    then reads the settings themselves. ``tests/assistant/test_askclient.py`` holds the two
    to the same answer.
    """
    environ = os.environ if environ is None else environ
    value = _last_of(environ.items())
    if value is None:
        try:
            value = _last_of(_dotenv(Path(_DOTENV)).items())
        except _Unsure:
            return None
    return Path(_DEFAULT_DATA_DIR if value is None else value)


def _last_of(items: Iterable[tuple[str, str | None]]) -> str | None:
    """The data directory's value among ``items``: names compared in lower case, the last
    one in their order winning (as pydantic-settings folds them into one mapping)."""
    value = None
    for name, text in items:
        if name.lower() == _DATA_DIR_VARIABLE:
            value = text
    return value


def _dotenv(path: Path) -> dict[str, str | None]:
    """The bindings of a ``.env`` file, as python-dotenv reads it (``{}`` when missing).

    Raises:
        _Unsure: when it holds what only python-dotenv would read right.
    """
    if path.is_fifo():
        raise _Unsure(path)  # read once: the settings could not read it again
    if not path.is_file():
        return {}
    try:
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeError):
        raise _Unsure(path) from None
    bindings: dict[str, str | None] = {}
    for line in text.split("\n"):  # read as text: "\r\n" and "\r" are "\n" already
        binding = _binding(line)
        if binding is not None:
            key, value = binding
            if key.lower() == _DATA_DIR_VARIABLE and value is not None and "${" in value:
                raise _Unsure(line)  # python-dotenv fills variables in
            bindings[key] = value
    return bindings


# python-dotenv's grammar (dotenv/parser.py), read one line at a time.
_SPACE = re.compile(r"[^\S\r\n]*")
_EXPORT = re.compile(r"(?:export[^\S\r\n]+)?")
_KEY = re.compile(r"[^=\#\s]+")
_EQUAL = re.compile(r"=[^\S\r\n]*")
_SINGLE_QUOTED = re.compile(r"'((?:\\.|[^'\\])*)'")
_DOUBLE_QUOTED = re.compile(r'"((?:\\.|[^"\\])*)"')
_COMMENT = re.compile(r"(?:[^\S\r\n]*#[^\r\n]*)?")
_SINGLE_ESCAPES = re.compile(r"\\[\\']")
_DOUBLE_ESCAPES = re.compile(r"\\[\\'\"abfnrtv]")
_INLINE_COMMENT = re.compile(r"\s+#.*")


def _binding(line: str) -> tuple[str, str | None] | None:
    """The name and value one line binds (``None``: a blank line, a comment, or a line
    python-dotenv skips as malformed).

    Raises:
        _Unsure: for a quoted name, or a quoted value that does not end on its line.
    """
    at = _match(_SPACE, line, 0)
    if at == len(line):
        return None
    at = _match(_EXPORT, line, at)
    if line.startswith("#", at):
        return None
    if line.startswith("'", at):
        raise _Unsure(line)
    key = _KEY.match(line, at)
    if key is None:
        return None
    at = _match(_SPACE, line, key.end())
    value: str | None = None
    if line.startswith("=", at):
        equal = _EQUAL.match(line, at)
        assert equal is not None  # it starts with "="
        at = equal.end()
        if len(equal.group()) > 1 and line.startswith("#", at):
            value = ""
        else:
            value, at = _value(line, at)
    at = _match(_SPACE, line, _match(_COMMENT, line, at))
    return (key.group(), value) if at == len(line) else None


def _value(line: str, at: int) -> tuple[str, int]:
    """The value that starts at ``at`` and where the line goes on after it."""
    first = line[at : at + 1]
    if first in ("'", '"'):
        quoted = (_SINGLE_QUOTED if first == "'" else _DOUBLE_QUOTED).match(line, at)
        if quoted is None:
            raise _Unsure(line)  # it may end on a later line
        escapes = _SINGLE_ESCAPES if first == "'" else _DOUBLE_ESCAPES
        value = escapes.sub(lambda m: codecs.decode(m.group(0), "unicode-escape"), quoted[1])
        return value, quoted.end()
    if not first:
        return "", at
    return _INLINE_COMMENT.sub("", line[at:]).rstrip(), len(line)


def _match(pattern: re.Pattern[str], line: str, at: int) -> int:
    """Where ``pattern`` (which matches the empty string too) ends when read at ``at``."""
    found = pattern.match(line, at)
    assert found is not None  # every pattern given here matches the empty string
    return found.end()
