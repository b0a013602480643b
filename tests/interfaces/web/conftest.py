"""Fixtures of the web tests: one headless Chromium per browser test module, and the folder
its screenshots go to."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect, sync_playwright

from tests.interfaces.web.browser import WAIT, chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless Chromium for a module's tests (the system's; none is downloaded)."""
    executable = chromium()
    expect.set_options(timeout=WAIT)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable,
            args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
        )
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the screenshots go (``ASSISTANT_SCREENSHOTS``, else a temporary folder)."""
    named = os.environ.get("ASSISTANT_SCREENSHOTS")
    folder = Path(named) if named else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
