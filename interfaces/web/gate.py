"""The gate every request passes before the API sees it: the token, the body size, headers.

A request without a valid bearer token gets 401 and nothing else: the gate answers before the
body is read or a route is looked up (an unknown path is 401 too). A server started without
API tokens (only allowed on 127.0.0.1) has one token of its own, made at each start and given
to whoever started it; it also answers only requests addressed to a loopback name. Only the
page, its files, ``/health``, the OpenAPI document and its reference page (``/docs``, without
script) are public, and a calendar feed's address (``/calendar/<token>.ics``: the address is
its secret, checked by its route). A body over ``max_body`` bytes (or a path's own limit in
``large_bodies``) is refused with 413 (by its
Content-Length, or once that many bytes arrived). Every response carries headers that keep
the page from being framed or sniffed; the page's own responses also carry a
Content-Security-Policy that allows only its own files, and ``/docs`` one that allows no
script at all.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from calendars import token_in_path
from interfaces.web.auth import ApiTokens, bearer_token
from interfaces.web.docs import DOCS_POLICY

logger = logging.getLogger(__name__)

MAX_BODY = 64 * 1024
"""The largest request body the API reads, in bytes."""
PAGE_PATHS = frozenset({"/", "/app.js", "/app.css", "/icon.svg"})
DOCS_PATHS = frozenset({"/docs", "/docs.css"})
PUBLIC_PATHS = PAGE_PATHS | DOCS_PATHS | {"/health", "/openapi.json"}
USER_KEY = "user_id"
"""Where the gate leaves the caller's user id (``request.state.user_id``)."""


def scope_user(scope: Mapping[str, Any]) -> str | None:
    """The user the request's token stands for, as the gate left it in the ASGI ``scope``
    (``None`` for a public path): how an app mounted behind the gate knows its caller."""
    state = scope.get("state")
    user = state.get(USER_KEY) if isinstance(state, Mapping) else None
    return user if isinstance(user, str) else None


_COMMON_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]
_PAGE_POLICY = (
    b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    b"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
)
UNAUTHORIZED = (
    "a valid API token is needed: send the header 'Authorization: Bearer <token>' with a token "
    "from ASSISTANT_API_TOKENS"
)


NOT_LOOPBACK = (
    "this server runs without API tokens, so it answers only requests addressed to 127.0.0.1 "
    "or localhost; set ASSISTANT_API_TOKENS to reach it by another name"
)
LOCAL_UNAUTHORIZED = (
    "a valid token is needed: this server (started without ASSISTANT_API_TOKENS) belongs to "
    "whoever started it; open the address 'assistant web' printed, which carries its token, "
    "or send 'Authorization: Bearer <token>' with the token in DATA_DIR/web-token"
)
_LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})


def _is_loopback(host_header: str) -> bool:
    """Whether a Host header names this machine's loopback (any port)."""
    host = host_header.strip().lower()
    if host.startswith("["):
        host = host[1:].partition("]")[0]
    else:
        host = host.rpartition(":")[0] if host.count(":") == 1 else host
    return host in _LOOPBACK_NAMES


class _TooLarge(Exception):
    pass


class _Gone(Exception):
    """The client went away before its body arrived: nothing to answer."""


class Gate:
    """Checks the token and the body size of each HTTP request, and adds security headers.

    Args:
        app: The API.
        tokens: The accepted tokens.
        loopback_only: Answer only requests addressed to a loopback name (a server without
            API tokens, on 127.0.0.1 only), so a web page elsewhere cannot reach it through
            a DNS name that points here.
        max_body: The largest body read, in bytes.
        large_bodies: Paths whose bodies may be larger, and how large.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        tokens: ApiTokens,
        loopback_only: bool = False,
        max_body: int = MAX_BODY,
        large_bodies: Mapping[str, int] | None = None,
    ) -> None:
        self._app = app
        self._tokens = tokens
        self._loopback_only = loopback_only
        self._unauthorized = LOCAL_UNAUTHORIZED if loopback_only else UNAUTHORIZED
        self._max_body = max_body
        self._large = dict(large_bodies or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        path: str = scope["path"]
        headers = Headers(scope=scope)
        policy = _PAGE_POLICY if path in PAGE_PATHS else DOCS_POLICY if path in DOCS_PATHS else None
        send = _with_headers(send, policy=policy)
        if self._loopback_only and not _is_loopback(headers.get("host", "")):
            await _answer(send, 403, NOT_LOOPBACK)
            return
        if path not in PUBLIC_PATHS and token_in_path(path) is None:
            user = self._tokens.user_for(bearer_token(headers.get("authorization")) or "")
            if user is None:
                await _answer(send, 401, self._unauthorized, [(b"www-authenticate", b"Bearer")])
                return
            scope.setdefault("state", {})[USER_KEY] = user
        limit = self._large.get(path, self._max_body)
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await _answer(send, 413, self._too_large(limit))
            return
        try:
            receive = await self._buffered(receive, limit)
        except _TooLarge:
            await _answer(send, 413, self._too_large(limit))
            return
        except _Gone:
            return  # the client left (or was cut off) before its body arrived: no one to answer
        await self._app(scope, receive, send)

    def _too_large(self, limit: int) -> str:
        return f"the request body is larger than {limit} bytes"

    async def _buffered(self, receive: Receive, limit: int) -> Receive:
        """Read the whole body (at most ``max_body`` bytes) now; hand it on in one piece,
        then pass on what comes later (a disconnect, which ends a streamed reply)."""
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise _Gone
            if message["type"] != "http.request":
                return _replay([message], receive)
            body += message.get("body", b"")
            if len(body) > limit:
                raise _TooLarge
            if not message.get("more_body", False):
                break
        return _replay([{"type": "http.request", "body": bytes(body), "more_body": False}], receive)


def _replay(first: list[Message], receive: Receive) -> Receive:
    pending = list(first)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed


def _with_headers(send: Send, *, policy: bytes | None) -> Send:
    extra = list(_COMMON_HEADERS)
    if policy is not None:
        extra.append((b"content-security-policy", policy))

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return sending


async def _answer(
    send: Send, status: int, detail: str, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(headers or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
