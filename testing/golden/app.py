"""The application the golden phrases are said to, and the run of every one of them.

A new user's application (``assistant.app``: the real registry, executor, task manager and
SQLite stores; no model, no search key) in the goldens' zone, on a manual clock at their
instant. ``tests/agent/planner`` and ``bench.golden`` use it alike.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from agent.planner import OfflinePlanner
from assistant.app import App, open_app
from assistant.config import load_settings
from common import ManualClock
from testing.golden.check import NOW, ZONE, Golden, Verdict, check_golden


@asynccontextmanager
async def golden_app(data_dir: Path) -> AsyncIterator[App]:
    """The application the goldens are said to, its data kept in ``data_dir``."""
    settings = load_settings(
        data_dir=data_dir, timezone=ZONE.key, llm_base_url=None, serpapi_api_key=None
    )
    async with open_app(settings, clock=ManualClock(NOW)) as app:
        yield app


def planner_of(app: App) -> OfflinePlanner:
    """The application's offline planner.

    Raises:
        TypeError: a model is configured, so the goldens would test it rather than the planner.
    """
    if not isinstance(app.planner, OfflinePlanner):
        raise TypeError("no model may be configured for the golden phrases")
    return app.planner


async def check_every(app: App, goldens: Sequence[Golden]) -> list[Verdict]:
    """Say each golden phrase as a user of its own and return the verdicts, in order."""
    planner = planner_of(app)
    return [
        await check_golden(
            golden,
            user=f"golden-{number}",
            agent=app.agent,
            tasks=app.tasks,
            planner=planner,
            registry=app.registry,
            calendars=app.memory,
        )
        for number, golden in enumerate(goldens)
    ]
