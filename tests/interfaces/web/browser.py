"""A real browser on the real server: headless Chromium driven by Playwright.

Playwright drives the system's Chromium (``executable_path``); it downloads no browser of its
own. Without Chromium the browser tests fail and say what to install: they are never skipped.

The web front end (``assistant.frontends.open_web``) runs in a thread with an event loop of its
own, so the tests can use Playwright's synchronous API; ``ServedWeb.call`` runs a coroutine on
that loop (moving the manual clock, for instance).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from datetime import timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import pytest
from playwright.sync_api import BrowserContext, Page

from agent.llm import LLMBackend
from assistant.frontends import WebFront, open_web
from common import ManualClock
from tests.interfaces.web.harness import ALICE_TOKEN, T0, TOKENS, web_settings

T = TypeVar("T")
WAIT = 10_000  # ms: a bound on the browser's waits for things that happen at once
STARTUP = 30.0  # seconds: a bound on the server's start, never waited out when all is well
CHROMIUM_HELP = (
    "the browser tests need Chromium and found none: install it with 'apt-get install "
    "chromium' (Debian; ./scripts/setup does this when run as root), 'apt-get install "
    "chromium-browser' (Ubuntu) or 'dnf install chromium' (Fedora), or set ASSISTANT_CHROMIUM "
    "to a Chromium or Chrome binary"
)


def chromium() -> str:
    """The Chromium binary to drive; the test fails (never skips) without one."""
    found = (
        os.environ.get("ASSISTANT_CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )
    if not found or not Path(found).exists():
        pytest.fail(CHROMIUM_HELP, pytrace=False)
    return found


class ServedWeb:
    """The web front end served from a thread of its own, on a manual clock.

    Args:
        data_dir: Where its database lives.
        backend: A factory for the model (made on the server's loop); the offline planner
            when ``None``.
        tokens: ``ASSISTANT_API_TOKENS``.
        more: Other settings, by variable name (``ASSISTANT_HTTP_ALLOW_HOSTS``).
    """

    def __init__(
        self,
        data_dir: Path,
        *,
        backend: Callable[[], LLMBackend] | None = None,
        tokens: str = TOKENS,
        more: dict[str, str] | None = None,
    ) -> None:
        # A scripted model is there to be seen streaming: it reads every message.
        order = "planner-first" if backend is None else "model-first"
        self._settings = web_settings(
            data_dir, tokens=tokens, ASSISTANT_LLM_ORDER=order, **(more or {})
        )
        self._backend = backend
        self.clock = ManualClock(T0)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name="served-web", daemon=True)
        self._ready: Future[WebFront] = Future()
        self._stop: asyncio.Event | None = None

    @property
    def front(self) -> WebFront:
        """The running front end."""
        return self._ready.result(timeout=STARTUP)

    @property
    def url(self) -> str:
        """The page's URL."""
        return self.front.server.url + "/"

    def call(self, work: Callable[[], Coroutine[Any, Any, T]], *, within: float = 30) -> T:
        """Run ``work()`` on the server's loop and return its result."""
        return asyncio.run_coroutine_threadsafe(work(), self._loop).result(timeout=within)

    def advance(self, seconds: float) -> None:
        """Move the clock on and wait until what became due has run."""

        async def move() -> None:
            self.clock.advance(timedelta(seconds=seconds))
            await self.front.app.tasks.run_due()
            await self.front.app.tasks.wait_idle()
            await self.front.app.tasks.release_due()  # held deliveries that came due

        self.call(move)

    def __enter__(self) -> ServedWeb:
        self._thread.start()
        self.front  # noqa: B018 - raises here if the server did not start
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout=STARTUP)

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._main())
        finally:
            self._loop.close()

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        backend = self._backend() if self._backend is not None else None
        try:
            async with open_web(self._settings, clock=self.clock, backend=backend) as front:
                self._ready.set_result(front)
                await self._stop.wait()
        except BaseException as error:
            if not self._ready.done():
                self._ready.set_exception(error)
            raise


# -- a tab on the page ------------------------------------------------------------------------------


def new_tab(context: BrowserContext, served: ServedWeb) -> Page:
    """A tab of ``context`` on the page, recording the errors it shows."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: errors.append(message.text) if _bad(message.text, message.type) else None,
    )
    page.goto(served.url)
    _ERRORS[page] = errors
    return page


_ERRORS: dict[Page, list[str]] = {}


def errors_of(page: Page) -> list[str]:
    """The errors a tab made by ``new_tab`` has shown so far."""
    return _ERRORS[page]


def _bad(text: str, kind: str) -> bool:
    """A console error other than the 401 of a sign-in (a wrong token, or the first look)."""
    return kind == "error" and "status of 401" not in text


def sign_in(page: Page, token: str = ALICE_TOKEN) -> None:
    page.fill("#token", token)
    page.click("#login-form button[type=submit]")


def say(page: Page, text: str) -> None:
    page.fill("#message", text)
    page.press("#message", "Enter")
