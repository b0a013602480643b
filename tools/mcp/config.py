"""The MCP servers a user configures: ``mcp.json``, in the format MCP clients share.

    {"mcpServers": {
        "files": {"command": "npx",
                  "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"],
                  "env": {"LOG_LEVEL": "info"}, "readOnly": ["read_file", "list_directory"]},
        "tracker": {"url": "https://mcp.example.com/mcp",
                    "headers": {"Authorization": "Bearer ${TRACKER_TOKEN}"},
                    "readOnly": true, "timeout": 120},
        "old": {"command": "old-server", "disabled": true}}}

A server is launched (``command``, ``args``, ``env``, ``cwd``) and spoken to over its stdin and
stdout, or reached over Streamable HTTP (``url``, ``headers``); ``type`` may say which, as
other clients write it. Our own keys beside those: ``readOnly`` (``true`` for every tool of
the server, or the list of its tools that only read: they run without asking; every other tool
waits for the user's approval), ``timeout`` (seconds a call may take) and ``disabled``.

``${NAME}`` in an ``env`` value, a header's value or the URL is a secret's name: its value is
looked up (the environment, then ``.env``, as for scheduled requests) when the file is read,
and never written anywhere. The resolved values are listed (``McpConfig.secret_values``) so
that the logs hide them.

Reading the file never raises for what it says: every mistake is one line in
``McpConfig.problems`` naming the server and the key, the server it is about is left out (or
loaded, for a mistake that changes nothing, such as a key we do not know), and the other
servers load. A missing file means no MCP servers; a file that is not JSON is one problem
with its line and column.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import shlex
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit

from common import LazyPattern, redact_url

SecretLookup = Callable[[str], str]
"""Returns the value of the secret ``${name}`` names, or raises ``LookupError`` saying why
there is none and what to set."""

DEFAULT_CALL_TIMEOUT = 60.0
"""Seconds an MCP tool's call may take unless its server's ``timeout`` says otherwise (a call
often goes on to a remote service, so more than our own tools get)."""
MAX_CALL_TIMEOUT = 3600.0

_REFERENCE = LazyPattern(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_NOT_NAME = LazyPattern(r"[^A-Za-z0-9_]")
_HEADER_NAME = LazyPattern(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_MAX_NAME = 64
_SHARED_KEYS = ("type", "command", "args", "env", "cwd", "url", "headers")
_OUR_KEYS = ("readOnly", "timeout", "disabled")
_STDIO_TYPES = frozenset({"stdio"})
_HTTP_TYPES = frozenset({"http", "streamable-http", "streamable_http", "streamableHttp"})


@dataclass(frozen=True, slots=True)
class StdioLaunch:
    """How a server that speaks over its stdin and stdout is started.

    Attributes:
        command: The program.
        args: Its arguments, as written (no ``${NAME}`` and no shell expansion in them).
        env: Variables added to the few the SDK passes on (``PATH``, ``HOME``...); secrets
            resolved, never shown.
        cwd: Its working directory (the assistant's when ``None``).
    """

    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    cwd: Path | None = None

    def describe(self) -> str:
        """The command line, for people."""
        return shlex.join([self.command, *self.args])


@dataclass(frozen=True, slots=True)
class HttpEndpoint:
    """Where a server that speaks Streamable HTTP answers.

    Attributes:
        url: Its endpoint (secrets resolved: shown only through ``describe``).
        headers: Sent with every request (secrets resolved, never shown).
    """

    url: str = field(repr=False)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)

    def describe(self) -> str:
        """The URL with its secrets hidden, for people."""
        return redact_url(self.url)


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """One MCP server, as the file configures it (checked, secrets resolved).

    Attributes:
        name: Its name as its tools carry it (``files`` in ``files.read_file``): the file's
            key with every character other than letters, digits and ``_`` as ``_``.
        transport: How it is started or reached.
        read_only: ``True`` when every tool of it only reads, else the names (as the server
            gives them) of those that do; they run without asking.
        timeout: Seconds one call may take.
        secrets: The resolved values of its ``${NAME}`` references, for the logs to hide.
    """

    name: str
    transport: StdioLaunch | HttpEndpoint
    read_only: bool | frozenset[str] = False
    timeout: float = DEFAULT_CALL_TIMEOUT
    secrets: tuple[str, ...] = field(default=(), repr=False)

    def is_read_only(self, tool_name: str) -> bool:
        """Whether the file marks the server's tool ``tool_name`` as one that only reads."""
        if isinstance(self.read_only, bool):
            return self.read_only
        return tool_name in self.read_only


@dataclass(frozen=True, slots=True)
class McpConfig:
    """What ``mcp.json`` configures.

    Attributes:
        source: The file it was read from ("" when made in code).
        servers: The servers to use, in the file's order.
        disabled: The names of the servers the file disables.
        problems: One line per mistake in the file, naming the server and the key.
        left_out: The servers a mistake left out, by name (as their tools would carry it),
            each with the mistake.
        not_started: The servers a command chose not to start (``only``).
    """

    source: str = ""
    servers: tuple[ServerConfig, ...] = ()
    disabled: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    left_out: Mapping[str, str] = field(default_factory=dict)
    not_started: tuple[str, ...] = ()

    def secret_values(self) -> list[str]:
        """Every resolved secret of every server (for the logs to hide)."""
        return [value for server in self.servers for value in server.secrets]

    def only(self, names: Collection[str]) -> McpConfig:
        """The same configuration with only the servers ``names`` to start; the others are
        ``not_started`` (a one-shot command that needs one server, or none)."""
        wanted = set(names)
        return replace(
            self,
            servers=tuple(s for s in self.servers if s.name in wanted),
            not_started=tuple(s.name for s in self.servers if s.name not in wanted),
        )


def load_config(
    path: Path, *, secrets: SecretLookup | None = None, named: bool = False
) -> McpConfig:
    """Read the MCP servers of the file ``path``; a missing file configures none.

    Args:
        path: The file (``ASSISTANT_MCP_CONFIG``, by default ``DATA_DIR/mcp.json``).
        secrets: Looks up the values of ``${NAME}`` references; without it every reference
            is a problem.
        named: The file was named on purpose (``ASSISTANT_MCP_CONFIG``): its absence is a
            problem, not the usual "no MCP servers".
    """
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if named:
            problem = (
                f"{source}: the file ASSISTANT_MCP_CONFIG names does not exist; no MCP servers "
                "were loaded (create it, or point the variable at your mcp.json)"
            )
            return McpConfig(source=source, problems=(problem,))
        return McpConfig(source=source)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return McpConfig(source=source, problems=(f"{source}: cannot be read: {reason}",))
    return parse_config(text, source=source, secrets=secrets, folder=path.parent)


def parse_config(
    text: str,
    *,
    source: str = "mcp.json",
    secrets: SecretLookup | None = None,
    folder: Path | None = None,
) -> McpConfig:
    """Read the MCP servers of a configuration's ``text`` (see the module's docstring).

    Args:
        text: The file's content.
        source: How messages name the file.
        secrets: As for ``load_config``.
        folder: What a relative ``cwd`` is relative to (the file's folder).
    """
    try:
        document = json.loads(text, object_pairs_hook=_Object)
    except json.JSONDecodeError as exc:
        problem = (
            f"{source}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}; "
            "no MCP servers were loaded from it"
        )
        return McpConfig(source=source, problems=(problem,))
    reader = _Reader(source, secrets or _no_secrets, folder)
    return reader.read(document)


def _no_secrets(name: str) -> str:
    raise LookupError(f"${{{name}}} cannot be resolved: no secrets were given to the MCP client")


class _Object(dict[str, Any]):
    """A JSON object that remembers the keys it was given more than once."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        seen: set[str] = set()
        self.repeated: list[str] = []
        for key, _ in pairs:
            if key in seen and key not in self.repeated:
                self.repeated.append(key)
            seen.add(key)


class _Skip(Exception):
    """The server being read has a mistake that leaves it out (already recorded)."""


class _Reader:
    """Reads the document, collecting problems; one instance per file."""

    def __init__(self, source: str, secrets: SecretLookup, folder: Path | None) -> None:
        self._source = source
        self._secrets = secrets
        self._folder = folder
        self._problems: list[str] = []

    def read(self, document: object) -> McpConfig:
        servers_of = document.get("mcpServers") if isinstance(document, dict) else None
        if not isinstance(servers_of, dict):
            self._file_problem(document)
            return McpConfig(source=self._source, problems=tuple(self._problems))
        for name in getattr(servers_of, "repeated", ()):
            self._problem(f"MCP server {name!r} is defined twice; the last definition is used")
        servers: list[ServerConfig] = []
        disabled: list[str] = []
        left_out: dict[str, str] = {}
        taken: dict[str, str] = {}
        for given, entry in servers_of.items():
            name = given
            try:
                name = self._name(given, taken)
                if isinstance(entry, dict) and entry.get("disabled") is True:
                    disabled.append(name)
                    continue
                servers.append(self._server(given, name, entry))
            except _Skip:
                left_out.setdefault(name, self._problems[-1])
                continue
        return McpConfig(
            source=self._source,
            servers=tuple(servers),
            disabled=tuple(disabled),
            problems=tuple(self._problems),
            left_out=left_out,
        )

    def _file_problem(self, document: object) -> None:
        if not isinstance(document, dict):
            found = type(document).__name__
            self._problem(
                f'the file must hold a JSON object like {{"mcpServers": {{...}}}}, not a {found}; '
                "no MCP servers were loaded from it"
            )
        elif "mcpServers" not in document:
            hint = ' (it has "servers": rename that key)' if "servers" in document else ""
            self._problem(
                f'the file has no "mcpServers" object{hint}; no MCP servers were loaded from it'
            )
        else:
            self._problem(
                '"mcpServers" must be an object of servers by name, like {"files": '
                '{"command": "..."}}; no MCP servers were loaded from it'
            )

    def _name(self, given: str, taken: dict[str, str]) -> str:
        name = _NOT_NAME.sub("_", given.strip())
        if not name.strip("_") or len(name) > _MAX_NAME:
            self._problem(
                f"the MCP server name {given!r} must have 1 to {_MAX_NAME} letters, digits, "
                "'_' or '-' (its tools are called NAME.tool); the server was left out"
            )
            raise _Skip
        if name in taken:
            self._problem(
                f"the MCP server names {taken[name]!r} and {given!r} both become {name!r} in "
                f"tool names; rename one ({given!r} was left out)"
            )
            raise _Skip
        taken[name] = given
        return name

    def _server(self, given: str, name: str, entry: object) -> ServerConfig:
        where = f"MCP server {given!r}"
        if not isinstance(entry, dict):
            self._problem(
                f'{where} must be an object such as {{"command": "npx", "args": [...]}} or '
                f'{{"url": "https://..."}}, not {_shown(entry)}; the server was left out'
            )
            raise _Skip
        for key in getattr(entry, "repeated", ()):
            self._problem(f"{where}: {key!r} is given twice; the last one is used")
        self._unknown_keys(where, entry)
        if not isinstance(entry.get("disabled", False), bool):
            self._problem(
                f"{where}: 'disabled' must be true or false, not {_shown(entry['disabled'])}; "
                "the server is used"
            )
        found: list[str] = []
        transport = self._transport(where, entry, found)
        return ServerConfig(
            name=name,
            transport=transport,
            read_only=self._read_only(where, entry.get("readOnly", False)),
            timeout=self._timeout(where, entry.get("timeout", DEFAULT_CALL_TIMEOUT)),
            secrets=tuple(found),
        )

    def _unknown_keys(self, where: str, entry: dict[str, Any]) -> None:
        known = (*_SHARED_KEYS, *_OUR_KEYS)
        for key in entry:
            if key in known:
                continue
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}? " if close else ""
            self._problem(
                f"{where}: the key {key!r} is not one the assistant reads ({hint}it reads "
                f"{', '.join(known)}); it was ignored"
            )

    def _transport(
        self, where: str, entry: dict[str, Any], found: list[str]
    ) -> StdioLaunch | HttpEndpoint:
        kind = entry.get("type")
        if kind is not None and kind not in _STDIO_TYPES | _HTTP_TYPES:
            if kind == "sse":
                self._fail(
                    f"{where}: 'type' is \"sse\", a transport the assistant does not speak; give "
                    "the server's Streamable HTTP endpoint as 'url' (it usually ends in /mcp)"
                )
            self._fail(
                f"{where}: 'type' must be \"stdio\" (with 'command') or \"http\" (with 'url'), "
                f"not {_shown(kind)}"
            )
        has_command, has_url = "command" in entry, "url" in entry
        if has_command == has_url:
            said = "both 'command' and 'url'" if has_command else "neither 'command' nor 'url'"
            self._fail(
                f"{where} has {said}: give 'command' (and 'args') for a server the assistant "
                "starts, or 'url' for one it reaches over HTTP"
            )
        if has_command:
            if kind in _HTTP_TYPES:
                self._fail(f"{where}: 'type' {kind!r} needs 'url', not 'command'")
            return self._launch(where, entry, found)
        if kind in _STDIO_TYPES:
            self._fail(f"{where}: 'type' \"stdio\" needs 'command', not 'url'")
        return self._endpoint(where, entry, found)

    def _launch(self, where: str, entry: dict[str, Any], found: list[str]) -> StdioLaunch:
        command = entry["command"]
        if not isinstance(command, str) or not command.strip():
            self._fail(f"{where}: 'command' must be the program to run, like \"npx\"")
        args = entry.get("args", [])
        if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
            self._fail(
                f'{where}: \'args\' must be a list of strings, like ["-y", "some-package"], '
                f"not {_shown(args)}"
            )
        env = self._strings(where, "env", entry.get("env", {}), found)
        for variable in env:
            if not variable or "=" in variable or "\x00" in variable:
                self._fail(f"{where}: 'env' has a variable name {variable!r} that cannot be set")
        return StdioLaunch(
            command=command.strip(),
            args=tuple(args),
            env=env,
            cwd=self._cwd(where, entry.get("cwd")),
        )

    def _cwd(self, where: str, cwd: object) -> Path | None:
        if cwd is None:
            return None
        if not isinstance(cwd, str) or not cwd.strip():
            self._fail(f"{where}: 'cwd' must be the path of a folder, not {_shown(cwd)}")
        path = Path(cwd).expanduser()
        if not path.is_absolute() and self._folder is not None:
            path = self._folder / path
        if not path.is_dir():
            self._fail(f"{where}: 'cwd' {cwd!r} is not a folder (looked for {str(path)!r})")
        return path

    def _endpoint(self, where: str, entry: dict[str, Any], found: list[str]) -> HttpEndpoint:
        url = entry["url"]
        if not isinstance(url, str):
            self._fail(f"{where}: 'url' must be a string like \"https://host/mcp\"")
        resolved = self._resolve(where, "url", url.strip(), found)
        try:
            parts = urlsplit(resolved)
            scheme, host = parts.scheme, parts.hostname
        except ValueError:
            scheme, host = "", None
        if scheme not in ("http", "https") or not host:
            self._fail(
                f"{where}: 'url' must be an http(s) URL with a host, like "
                f'"https://mcp.example.com/mcp", not {redact_url(url)!r}'
            )
        headers = self._strings(where, "headers", entry.get("headers", {}), found)
        for header in headers:
            if not _HEADER_NAME.match(header):
                self._fail(f"{where}: 'headers' has a name {header!r} that HTTP does not allow")
        return HttpEndpoint(url=resolved, headers=headers)

    def _strings(self, where: str, key: str, value: object, found: list[str]) -> dict[str, str]:
        """An object of strings (``env``, ``headers``), references resolved."""
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            example = '{"Authorization": "Bearer ${TOKEN}"}' if key == "headers" else '{"A": "1"}'
            self._fail(
                f"{where}: {key!r} must be an object of strings, like {example}"
                + _bad_values(value)
            )
        return {name: self._resolve(where, f"{key}.{name}", v, found) for name, v in value.items()}

    def _resolve(self, where: str, key: str, value: str, found: list[str]) -> str:
        def lookup(match: re.Match[str]) -> str:
            try:
                secret = self._secrets(match.group(1))
            except LookupError as exc:
                self._fail(f"{where}, {key}: {exc}; the server was left out")
            found.append(secret)
            return secret

        return _REFERENCE.sub(lookup, value)

    def _read_only(self, where: str, value: object) -> bool | frozenset[str]:
        if isinstance(value, bool):
            return value
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return frozenset(value)
        self._problem(
            f"{where}: 'readOnly' must be true, false or a list of the server's tool names, "
            f'like ["read_file"], not {_shown(value)}; every tool of it asks for approval'
        )
        return False

    def _timeout(self, where: str, value: object) -> float:
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        if number is None or not math.isfinite(number) or not 0 < number <= MAX_CALL_TIMEOUT:
            self._problem(
                f"{where}: 'timeout' must be the seconds a call may take, more than 0 and at "
                f"most {MAX_CALL_TIMEOUT:g}, not {_shown(value)}; "
                f"{DEFAULT_CALL_TIMEOUT:g} is used"
            )
            return DEFAULT_CALL_TIMEOUT
        return float(number)

    def _problem(self, text: str) -> None:
        self._problems.append(f"{self._source}: {text}")

    def _fail(self, text: str) -> NoReturn:
        """Record a mistake that leaves the server out, and leave it."""
        self._problem(text if "left out" in text else f"{text}; the server was left out")
        raise _Skip


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False) if _is_json(value) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_json(value: object) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def _bad_values(value: object) -> str:
    """Which entries of an object are not strings (their values are not shown: secrets)."""
    if not isinstance(value, dict):
        return f", not a {type(value).__name__}"
    bad = [name for name, v in value.items() if not isinstance(v, str)]
    return f"; {', '.join(repr(b) for b in bad)} is not a string (quote it)"
