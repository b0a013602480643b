"""The web front end as ``assistant web`` composes it (``assistant.frontends.open_web``), served
by uvicorn on 127.0.0.1, with httpx clients for its users.

Two test seams that production leaves at their defaults: the clock is a ``ManualClock`` (the
scheduler fires when a test moves it), and the model may be a scripted one; without it the
offline planner answers, as with no model configured.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from agent.llm import ChatMessage, LLMBackend, LLMResponse, ScriptedBackend
from assistant.config import Settings
from assistant.frontends import WebFront, open_web
from common import ManualClock
from tools import ToolDefinition

T0 = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
"""Monday 13:00 in Berlin."""
ALICE_TOKEN = "alice-Xk3p9Qw2mZ7vLt5R"
BOB_TOKEN = "bob-Hq8Rt2Wn5Yc7Lp4K9x"
TOKENS = f"{ALICE_TOKEN}:alice,{BOB_TOKEN}:bob"


def web_settings(data_dir: Path, *, tokens: str = TOKENS, **more: Any) -> Settings:
    """Settings for a web front end on ``data_dir``: offline planner, Berlin time, no bot."""
    return Settings.model_validate(
        {
            "ASSISTANT_DATA_DIR": str(data_dir),
            "ASSISTANT_TIMEZONE": "Europe/Berlin",
            "ASSISTANT_LLM_BASE_URL": "",
            "ASSISTANT_API_TOKENS": tokens,
            "ASSISTANT_WEB_HOST": "127.0.0.1",
            "ASSISTANT_WEB_PORT": 0,
            "TELEGRAM_BOT_TOKEN": None,
            **more,
        }
    )


@dataclass
class Web:
    """A running web front end and a way to talk to it."""

    front: WebFront
    clock: ManualClock

    @property
    def url(self) -> str:
        """The server's base URL."""
        return self.front.server.url

    def client(self, token: str | None = ALICE_TOKEN, **options: Any) -> httpx.AsyncClient:
        """An HTTP client for the server, sending ``token`` (none for ``None``)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.AsyncClient(base_url=self.url, headers=headers, timeout=10, **options)

    async def run_due(self) -> int:
        """Fire what is due at the clock's time and wait until it was delivered; return how
        many runs this call fired (the front end's own timer, which reads the same clock, may
        have claimed some first: they are waited for too, and not counted)."""
        tasks = self.front.app.tasks
        fired = await tasks.run_due()
        await tasks.wait_idle()
        return fired


@asynccontextmanager
async def running_web(
    data_dir: Path,
    *,
    backend: LLMBackend | None = None,
    clock: ManualClock | None = None,
    tokens: str = TOKENS,
    **more: Any,
) -> AsyncIterator[Web]:
    """Run the web front end on ``data_dir`` until the block ends (``more``: other
    settings by variable name)."""
    clock = clock or ManualClock(T0)
    # A scripted model is there to be seen streaming: it reads every message.
    order = "planner-first" if backend is None else "model-first"
    settings = web_settings(data_dir, tokens=tokens, **{"ASSISTANT_LLM_ORDER": order, **more})
    async with open_web(settings, clock=clock, backend=backend) as front:
        yield Web(front, clock)


def sse_events(text: str) -> list[dict[str, Any]]:
    """The JSON of every ``data:`` line of an event stream."""
    return [
        json.loads(line.removeprefix("data: "))
        for line in text.splitlines()
        if line.startswith("data: ")
    ]


async def read_stream(response: httpx.Response) -> list[dict[str, Any]]:
    """Read a whole AG-UI stream."""
    return sse_events((await response.aread()).decode())


class HeldBackend(ScriptedBackend):
    """A model that answers only once ``release`` is set (a slow model)."""

    def __init__(self) -> None:
        super().__init__(lambda messages: "Done thinking.")
        self.release = asyncio.Event()
        self.waiting = 0
        self._arrived = asyncio.Condition()

    async def complete(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> LLMResponse:
        async with self._arrived:
            self.waiting += 1
            self._arrived.notify_all()
        await self.release.wait()
        return await super().complete(messages, tools=tools)

    async def until_waiting(self, count: int) -> None:
        """Return once ``count`` requests have reached the model (10 s at most)."""
        async with asyncio.timeout(10), self._arrived:
            await self._arrived.wait_for(lambda: self.waiting >= count)
