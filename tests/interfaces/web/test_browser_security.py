"""The red team's attacks that need a real browser (headless Chromium, Playwright), replayed
as written (issue 24): the API reference page and the token kept in local storage.

Requests that would leave 127.0.0.1 are caught by the browser context's route and answered
there with a script that would steal the token (nothing reaches the network); the tests check
that the page never asks for one, and that its policy refuses one put in.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import Browser, Route, expect

from tests.interfaces.web.browser import WAIT, ServedWeb
from tests.interfaces.web.harness import ALICE_TOKEN

THIEF = "window.stolen = localStorage.getItem('assistant.token');"


def test_docs_load_nothing_from_elsewhere_and_no_script_can_read_the_token(
    browser: Browser, tmp_path: Path
) -> None:
    with ServedWeb(tmp_path) as served:
        context = browser.new_context()
        context.set_default_timeout(WAIT)
        elsewhere: list[str] = []

        def outside(route: Route) -> None:
            if urlsplit(route.request.url).hostname == "127.0.0.1":
                route.continue_()
                return
            elsewhere.append(route.request.url)
            route.fulfill(body=THIEF, content_type="text/javascript")

        context.route("**/*", outside)
        page = context.new_page()
        page.goto(served.url)
        page.evaluate("token => localStorage.setItem('assistant.token', token)", ALICE_TOKEN)
        response = page.goto(served.url + "docs")
        assert response is not None and response.status == 200
        expect(page.locator("h3", has_text="/agent/chat").first).to_contain_text("POST")
        expect(page.locator("#schema-ChatRequest")).to_contain_text("message")
        policy = response.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src" not in policy
        assert page.evaluate("document.scripts.length") == 0

        # The attack: a script where the CDN's file was. Put in, it is refused, not run.
        violations = page.evaluate(
            """() => new Promise(resolve => {
                const seen = [];
                document.addEventListener('securitypolicyviolation', e => {
                    seen.push(e.blockedURI || e.violatedDirective);
                    if (seen.length === 2) resolve(seen);
                });
                const remote = document.createElement('script');
                remote.src = 'https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui-bundle.js';
                document.head.append(remote);
                const inline = document.createElement('script');
                inline.textContent = "window.stolen = localStorage.getItem('assistant.token')";
                document.head.append(inline);
            })"""
        )
        assert len(violations) == 2
        assert page.evaluate("window.stolen") is None
        assert elsewhere == []
        context.close()


def test_the_printed_address_signs_the_owner_in_and_no_one_else(
    browser: Browser, tmp_path: Path
) -> None:
    with ServedWeb(tmp_path, tokens="") as served:
        context = browser.new_context(timezone_id="Europe/Berlin")  # the page sends its zone
        context.set_default_timeout(WAIT)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(served.front.page_url)
        expect(page.locator("#who")).to_have_text("local · Europe/Berlin")
        assert "#token" not in page.url and "token=" not in page.url  # out of the address
        page.reload()
        expect(page.locator("#who")).to_have_text("local · Europe/Berlin")
        page.fill("#message", "note: signed in by the address")
        page.press("#message", "Enter")
        expect(page.locator(".msg.theirs").last).to_contain_text("signed in by the address")

        stranger = browser.new_context().new_page()
        stranger.goto(served.url)
        expect(stranger.locator("#login")).to_be_visible()
        expect(stranger.locator("#login")).to_contain_text("the address")
        assert errors == []
        stranger.context.close()
        context.close()
