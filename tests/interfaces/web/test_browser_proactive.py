"""Issue 28 on the page in a real browser (headless Chromium, Playwright) on the real server:
quiet hours and the briefing set in the form, a held reminder released marked, Snooze and
Done on deliveries, a reminder that nags until Done, a page watched from the form (a real
page on 127.0.0.1) that speaks on its condition and comes again when snoozed. Screenshots go
to the screenshots folder (``ASSISTANT_SCREENSHOTS``, else a temporary one)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, expect

from testing.page_server import PageServer
from tests.interfaces.web.browser import WAIT, ServedWeb, errors_of, new_tab, say, sign_in

DESKTOP = {"width": 1280, "height": 860}
SNOOZES = ["Snooze 10 min", "Snooze 1 h", "Tomorrow morning"]


def opened(browser: Browser, served: ServedWeb) -> tuple[Page, list[str]]:
    context = browser.new_context(viewport=DESKTOP, timezone_id="Europe/Berlin", locale="en-GB")  # type: ignore[arg-type]
    context.set_default_timeout(WAIT)
    page = new_tab(context, served)
    sign_in(page)
    expect(page.locator("#who")).to_have_text("alice · Europe/Berlin")
    return page, errors_of(page)


def buttons(bubble: Locator) -> list[str]:
    return [text.strip() for text in bubble.locator(".actions button").all_inner_texts()]


def test_quiet_hours_snooze_done_and_a_nagging_reminder_on_the_page(
    browser: Browser, screenshots: Path, tmp_path: Path
) -> None:
    with ServedWeb(tmp_path) as served:
        page, errors = opened(browser, served)
        page.fill("#quiet-from", "13:00")
        page.fill("#quiet-to", "13:30")
        page.click("#quiet-form button[type=submit]")
        expect(page.locator("#quiet-state")).to_contain_text("Quiet from 13:00 to 13:30")
        page.fill("#briefing-at", "07:30")
        page.click("#briefing-form button[type=submit]")
        expect(page.locator("#briefing-state")).to_contain_text("every day at 07:30")
        page.screenshot(path=screenshots / "proactive-1-settings.png")

        say(page, "remind me in 2 seconds to stretch")
        expect(page.locator(".msg.theirs").last).to_contain_text("to stretch")
        served.advance(2)  # 13:00:02, quiet: held
        page.wait_for_timeout(300)
        expect(page.locator(".msg.delivery")).to_have_count(0)
        page.click(
            "#refresh"
        )  # nothing arrives while quiet; the page says what waits when looked at
        expect(page.locator("#quiet-state")).to_contain_text("1 held for now")
        served.advance(30 * 60 - 2)  # 13:30: released, marked
        held = page.locator(".msg.delivery").first
        expect(held).to_contain_text("stretch\n(held during your quiet hours since 13:00:02)")
        assert buttons(held) == [*SNOOZES, "Done"]
        page.screenshot(path=screenshots / "proactive-2-held-reminder.png")
        held.locator("button", has_text="Done").click()
        expect(held).to_contain_text("Marked as done: task")

        say(page, "nag me every 5 minutes to call the bank")
        expect(page.locator(".msg.theirs").last).to_contain_text("It repeats every 5 min")
        served.advance(5 * 60)
        served.advance(5 * 60)
        expect(page.locator(".msg.delivery", has_text="call the bank")).to_have_count(2)
        second = page.locator(".msg.delivery", has_text="call the bank").last
        second.locator("button", has_text="Done").click()
        expect(second).to_contain_text("will not repeat")
        served.advance(5 * 60)
        page.wait_for_timeout(300)
        expect(page.locator(".msg.delivery", has_text="call the bank")).to_have_count(2)
        page.screenshot(path=screenshots / "proactive-3-nag-done.png")

        say(page, "remind me in 1 minute to water the plants")
        expect(page.locator(".msg.theirs").last).to_contain_text("to water the plants")
        served.advance(60)
        plants = page.locator(".msg.delivery", has_text="water the plants")
        plants.locator("button", has_text="Tomorrow morning").click()
        expect(plants).to_contain_text("until tomorrow at 08:00 (Europe/Berlin)")
        assert errors == []
        page.context.close()


def test_a_page_watched_from_the_form_speaks_and_comes_again_when_snoozed(
    browser: Browser, screenshots: Path, tmp_path: Path
) -> None:
    with ServedWeb(tmp_path, more={"ASSISTANT_HTTP_ALLOW_HOSTS": "127.0.0.1"}) as served:
        site = PageServer("<html><body><p id='price'>€320</p><p>ad</p></body></html>")
        served.call(site.__aenter__)
        try:
            page, errors = opened(browser, served)
            page.fill("#watch-url", site.url("/kettle"))
            page.fill("#watch-selector", "#price")
            page.fill("#watch-condition", "< 300")
            page.select_option("#watch-every", "every 30 minutes")
            page.click("#watch-form button[type=submit]")
            card = page.locator(".card.task", has_text="watch")
            expect(card).to_contain_text("every 30 minutes")
            served.advance(0)  # 13:00: the first look, silent
            served.advance(30 * 60)  # 13:30: €320, silent
            site.show("<html><body><p id='price'>€289</p><p>another ad</p></body></html>")
            served.advance(30 * 60)  # 14:00: below 300
            told = page.locator(".msg.delivery").first
            expect(told).to_contain_text("the value is below 300 now.\nwas €320, now €289")
            assert buttons(told) == SNOOZES
            page.screenshot(path=screenshots / "proactive-4-monitor.png")
            told.locator("button", has_text="Snooze 1 h").click()
            expect(told).to_contain_text("again at 15:00")
            served.advance(60 * 60)
            again = page.locator(".msg.delivery").last
            expect(again).to_contain_text("was €320, now €289\n(snoozed at 14:00)")
            page.screenshot(path=screenshots / "proactive-5-snoozed-again.png")
            card.locator("button", has_text="History").click()
            expect(card.locator(".runs")).to_contain_text("the value is below 300: no")
            assert errors == []
            page.context.close()
        finally:
            served.call(lambda: site.__aexit__(None, None, None))
