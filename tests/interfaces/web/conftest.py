"""Fixtures of the web tests: one headless Chromium per browser test module."""

from __future__ import annotations

from collections.abc import Iterator

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
