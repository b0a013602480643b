"""The assistant over HTTP: a JSON API, an AG-UI event stream and a small web page.

    api        WebInterface: the FastAPI application over the agent, tasks and memory
    chat       the conversation routes: /agent/chat, /agent/stream (AG-UI), /events
    resources  the routes over tasks, approvals, notes, the caller, and /health
    agui       AgUiRun: the agent's events as AG-UI events
    gate       the token check, the body size limit and the security headers
    auth       ApiTokens: bearer tokens -> user ids, compared in constant time
    inbox      WebInbox: the scheduler's Notifier for web chats, read by the open pages
    models     the request and response bodies
    server     WebServer: uvicorn on the running event loop
    static/    the page: index.html, app.css, app.js (no build step)

This package imports FastAPI and uvicorn (the ``web`` extra); nothing imports it unless the
web front end runs (``assistant web``).
"""

from __future__ import annotations

from interfaces.web.agui import AgUiRun
from interfaces.web.api import WebInterface
from interfaces.web.auth import ApiTokens, TokenError
from interfaces.web.convert import approval_out
from interfaces.web.gate import MAX_BODY
from interfaces.web.inbox import InboxItem, WebInbox, web_chat
from interfaces.web.models import MAX_MESSAGE_CHARS
from interfaces.web.server import WebServer

__all__ = [
    "MAX_BODY",
    "MAX_MESSAGE_CHARS",
    "AgUiRun",
    "ApiTokens",
    "InboxItem",
    "TokenError",
    "WebInbox",
    "WebInterface",
    "WebServer",
    "approval_out",
    "web_chat",
]
