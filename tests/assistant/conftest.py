"""Fixtures for the assistant tests: a real small model, loaded once per session."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from agent.llm import LocalBackend
from tests.assistant.real_models import smollm2_path


@pytest.fixture(scope="session")
def smollm2() -> Iterator[LocalBackend]:
    """SmolLM2-135M in process, grammar on, short answers; it loads on first use."""
    backend = LocalBackend(model_path=smollm2_path(), context_tokens=4096, max_tokens=40)
    yield backend
    asyncio.run(backend.aclose())
