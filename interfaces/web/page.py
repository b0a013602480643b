"""The routes of the web page and of the API's reference page (none needs a token).

    GET  /                 the page (with /app.js, /app.css, /icon.svg)
    GET  /docs             the reference, made from the OpenAPI document (with /docs.css)

The files are read once, on first use; the reference is made once, when first asked for
(the routes are all known by then).
"""

from __future__ import annotations

import functools
from importlib import resources

from fastapi import APIRouter, Request, Response

from interfaces.web.docs import docs_page

router = APIRouter(include_in_schema=False)

_HTML = "text/html; charset=utf-8"


@functools.cache
def _static(name: str) -> bytes:
    return (resources.files("interfaces.web") / "static" / name).read_bytes()


def _file(name: str, media_type: str) -> Response:
    return Response(_static(name), media_type=media_type, headers={"Cache-Control": "no-cache"})


@router.get("/")
async def index() -> Response:
    return _file("index.html", _HTML)


@router.get("/app.js")
async def app_js() -> Response:
    return _file("app.js", "text/javascript; charset=utf-8")


@router.get("/app.css")
async def app_css() -> Response:
    return _file("app.css", "text/css; charset=utf-8")


@router.get("/icon.svg")
async def icon() -> Response:
    return _file("icon.svg", "image/svg+xml")


@router.get("/docs")
async def docs(request: Request) -> Response:
    page = getattr(request.app.state, "docs_page", None)
    if not isinstance(page, bytes):
        page = docs_page(request.app.openapi()).encode()
        request.app.state.docs_page = page
    return Response(page, media_type=_HTML)


@router.get("/docs.css")
async def docs_css() -> Response:
    return Response(_static("docs.css"), media_type="text/css; charset=utf-8")
