"""The assistant over HTTP: a JSON API, an AG-UI event stream and a small web page.

    api          WebInterface: the FastAPI application; it keeps the services on app.state
    services     WebServices, and the dependencies that hand the routes them and the caller
    chat         router: /agent/chat, /agent/stream (AG-UI), /events, /history
    task_routes  router: /tasks, a task's actions and its runs
    resources    router: /approvals, /notes, /me, /health
    page         router: the page's files and /docs
    docs         the /docs page, made from the OpenAPI document
    routing      what the routers share: a listing's page, the refusals they document
    convert      domain objects as the API's bodies
    models       the request and response bodies
    agui         AgUiRun: the agent's events as AG-UI events
    gate         the token check, the body size limit and the security headers; the caller
                 of an app mounted behind it (``scope_user``: ``/mcp``)
    auth         ApiTokens: bearer tokens -> user ids, compared in constant time
    inbox        WebInbox: the scheduler's Notifier for web chats, read by the open pages
    server       WebServer: uvicorn on the running event loop
    connections  the deadlines and the cap on open connections
    static/      the page: index.html, app.css, app.js (no build step)

This package imports FastAPI and uvicorn (the ``web`` extra); nothing imports it unless the
web front end runs (``assistant web``).
"""

from __future__ import annotations

from interfaces.web.agui import AgUiRun
from interfaces.web.api import WebInterface
from interfaces.web.auth import ApiTokens, TokenError
from interfaces.web.convert import approval_out
from interfaces.web.gate import MAX_BODY, scope_user
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
    "scope_user",
    "web_chat",
]
