"""The web page in a real browser (headless Chromium, Playwright) on the real server.

Two runs, one browser: a phone with the offline planner, and a wide screen with the scripted
model, which streams word by word and here stops halfway through its answer until the test
lets it go, so the text is seen arriving. Each step's screenshot lands in the screenshots
folder (``ASSISTANT_SCREENSHOTS``, else a temporary one) to be looked at.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Sequence
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, Route, expect

from agent.llm import (
    ChatMessage,
    LLMResponse,
    Role,
    ScriptedBackend,
    StreamEvent,
    TextDelta,
    ToolMode,
    Waiting,
)
from tests.interfaces.web.browser import WAIT, ServedWeb, errors_of, new_tab, say, sign_in
from tools import ToolDefinition

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


def open_page(
    browser: Browser,
    served: ServedWeb,
    viewport: dict[str, int],
    *,
    timezone: str = "Europe/Berlin",
    locale: str = "en-GB",
) -> Page:
    context = browser.new_context(
        viewport=viewport,  # type: ignore[arg-type]
        timezone_id=timezone,
        locale=locale,
        device_scale_factor=2 if viewport == PHONE else 1,
        is_mobile=viewport == PHONE,
        has_touch=viewport == PHONE,
    )
    context.set_default_timeout(WAIT)
    return new_tab(context, served)


def last_reply(page: Page) -> Any:
    return page.locator(".msg.theirs:not(.failed)").last


def test_on_a_phone_with_the_offline_planner(
    browser: Browser, screenshots: Path, tmp_path: Path
) -> None:
    with ServedWeb(tmp_path) as served:
        page = open_page(browser, served, PHONE)
        expect(page.locator("#login")).to_be_visible()
        sign_in(page, "not-the-right-token-000")
        expect(page.locator("#login-error")).to_have_text("That token is not accepted.")
        page.screenshot(path=screenshots / "phone-1-sign-in.png")
        sign_in(page)
        expect(page.locator("#who")).to_have_text("alice · Europe/Berlin")
        page.screenshot(path=screenshots / "phone-2-welcome.png")

        say(page, "remind me in 2 seconds to stretch")
        expect(last_reply(page)).to_contain_text(
            "I'll remind you today at 13:00:02 (Europe/Berlin) to stretch"
        )
        expect(page.locator(".tool").first).to_have_class("tool done")
        served.advance(2)
        reminder = page.locator(".msg.delivery")
        expect(reminder).to_contain_text("Reminder")
        expect(reminder).to_contain_text("stretch")
        page.screenshot(path=screenshots / "phone-3-reminder.png")
        reminder.locator("button", has_text="Snooze 10 min").click()
        expect(reminder).to_contain_text("until today at 13:10:02 (Europe/Berlin)")

        say(page, "every day at 9am remind me to water the plants")
        expect(last_reply(page)).to_contain_text("water the plants")
        expect(page.locator("#tasks-count")).to_have_text("2")  # and the snoozed reminder
        page.click(".tab[data-show=tasks]")
        card = page.locator(".card.task", has_text="water the plants")
        expect(card).to_contain_text("Next: tomorrow at 09:00 (Europe/Berlin)")
        page.screenshot(path=screenshots / "phone-4-tasks.png")
        card.locator("button[data-action=cancel]").click()
        expect(card.locator("button[data-action=cancel]")).to_have_text("Really cancel?")
        card.locator("button[data-action=cancel]").click()
        expect(card).to_have_count(0)
        expect(page.locator(".card.task")).to_have_count(1)

        page.click(".tab[data-show=chat]")
        say(page, "at 1am daily POST http://home.lan/lights/off")
        request = page.locator(".ask .approval")
        expect(request).to_contain_text("add recurring task")
        expect(page.locator("#approvals-count")).to_have_text("1")
        page.screenshot(path=screenshots / "phone-5-approval.png")
        request.locator("button.approve").click()
        expect(last_reply(page)).to_contain_text("every day at 01:00")
        expect(page.locator("#approvals-count")).to_be_hidden()
        expect(page.locator("#tasks-count")).to_have_text("2")
        page.screenshot(path=screenshots / "phone-6-approved.png")
        assert errors_of(page) == []
        page.context.close()


def fence(name: str, **args: Any) -> str:
    return f"```json\n{json.dumps({'tool': name, 'args': args})}\n```"


PLANS = {
    "remind me in 2 seconds to stretch": (
        "Sure, setting that up. " + fence("add_reminder", when="in 2 seconds", message="stretch"),
        "Done! I'll remind you today at 13:00:02 (Europe/Berlin) to stretch. Enjoy the break.",
    ),
    "every weekday at 8 turn the coffee machine on": (
        fence(
            "add_recurring_task",
            schedule="every weekday at 8am",
            task_type="api_call",
            description="coffee machine on",
            execution_data={"method": "POST", "url": "http://coffee.lan/on"},
        ),
        "Scheduled: the coffee machine goes on every weekday at 08:00.",
    ),
    "every sunday evening remind me to plan the week": (
        fence(
            "add_recurring_task",
            schedule="every sunday at 7pm",
            task_type="reminder",
            description="plan the week",
        ),
        "I'll remind you every Sunday at 19:00 to plan the week.",
    ),
}
PAUSE_IN, PAUSE_AFTER = "Done!", "remind"


def plan(messages: Sequence[ChatMessage]) -> str:
    """The scripted model: a tool call for each request, then a sentence about its result."""
    said = next(m.content for m in reversed(messages) if m.role is Role.USER)
    first, then = PLANS.get(said, (f"You said: {said}", ""))
    return then if messages[-1].role is not Role.USER else first


class PausingModel:
    """The scripted model, stopping after the word ``PAUSE_AFTER`` of the answer that begins
    with ``PAUSE_IN`` until ``go_on`` is set; with ``busy``, it is first busy with another
    person's request: it says so, and answers once ``go_on`` is set."""

    def __init__(self, *, busy: bool = False) -> None:
        waiting = [Waiting(ahead=1, waited=3.0)] if busy else []
        self._script = ScriptedBackend(plan, mode=ToolMode.CONTRACT, waiting=waiting)
        self.go_on = asyncio.Event()

    @property
    def mode(self) -> ToolMode:
        return ToolMode.CONTRACT

    async def complete(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> LLMResponse:
        return await self._script.complete(messages, tools=tools)

    async def stream(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> AsyncGenerator[StreamEvent, None]:
        words: list[str] = []
        async for event in self._script.stream(messages, tools=tools):
            yield event
            if isinstance(event, Waiting):
                await self.go_on.wait()
            if not isinstance(event, TextDelta):
                continue
            words.append(event.text.strip())
            if words[0] == PAUSE_IN and words[-1] == PAUSE_AFTER:
                await self.go_on.wait()

    async def aclose(self) -> None:
        await self._script.aclose()


def test_on_a_wide_screen_with_a_streaming_model(
    browser: Browser, screenshots: Path, tmp_path: Path
) -> None:
    model = PausingModel()
    with ServedWeb(tmp_path, backend=lambda: model) as served:
        page = open_page(browser, served, DESKTOP)
        sign_in(page)
        expect(page.locator("#tasks")).to_be_visible()  # beside the chat, no tabs
        expect(page.locator(".tabs")).to_be_hidden()

        say(page, "every sunday evening remind me to plan the week")
        expect(page.locator(".card.task")).to_have_count(1)
        say(page, "remind me in 2 seconds to stretch")
        writing = page.locator(".msg.theirs.streaming")
        expect(writing).to_have_text("Done! I'll remind")  # halfway: the model waits
        expect(page.locator(".msg.theirs", has_text="Sure, setting that up.")).to_have_count(1)
        expect(page.locator("#messages")).not_to_contain_text("```")
        expect(page.locator("#messages")).not_to_contain_text("add_reminder")
        page.screenshot(path=screenshots / "wide-1-streaming.png")

        async def go_on() -> None:
            model.go_on.set()

        served.call(go_on)
        expect(last_reply(page)).to_have_text(
            "Done! I'll remind you today at 13:00:02 (Europe/Berlin) to stretch. Enjoy the break."
        )
        expect(page.locator(".msg.streaming")).to_have_count(0)
        expect(page.locator(".card.task")).to_have_count(2)

        say(page, "every weekday at 8 turn the coffee machine on")
        side = page.locator("#approval-list .approval")
        expect(side).to_contain_text("http://coffee.lan/on")
        expect(side.locator("dt")).to_have_text(
            ["schedule", "kind", "description", "method", "url"]
        )
        page.screenshot(path=screenshots / "wide-2-approval.png")
        side.locator("button.approve").click()
        expect(last_reply(page)).to_have_text(
            "Scheduled: the coffee machine goes on every weekday at 08:00."
        )
        expect(page.locator("#no-approvals")).to_be_visible()
        coffee = page.locator(".card.task", has_text="coffee machine on")
        expect(coffee).to_contain_text("every weekday at 08:00")
        coffee.locator("button.ghost", has_text="History").click()
        expect(coffee.locator(".runs")).to_contain_text("It has not run yet.")
        served.advance(2)
        expect(page.locator(".msg.delivery")).to_contain_text("stretch")
        expect(page.locator(".card.task")).to_have_count(2)  # the reminder ran
        page.screenshot(path=screenshots / "wide-3-overview.png")  # the README's picture
        page.locator(".card.task", has_text="plan the week").locator(
            "button[data-action=pause]"
        ).click()
        expect(page.locator(".card.task", has_text="plan the week")).to_contain_text("paused")
        assert errors_of(page) == []
        page.context.close()


def test_reminders_and_the_conversation_are_there_when_the_page_opens_again(
    browser: Browser, tmp_path: Path
) -> None:
    with ServedWeb(tmp_path) as served:
        page = open_page(browser, served, DESKTOP)
        sign_in(page)
        say(page, "remind me in 5 seconds to water the plants")
        expect(last_reply(page)).to_contain_text("to water the plants")
        context = page.context
        page.close()

        served.advance(5)  # it fires while no page is open
        page = new_tab(context, served)
        reminder = page.locator(".msg.delivery")
        expect(reminder).to_contain_text("water the plants")
        expect(page.locator(".msg.mine")).to_have_text(
            ["remind me in 5 seconds to water the plants"]
        )
        expect(last_reply(page)).to_contain_text("I'll remind you today at 13:00:05")
        expect(page.locator(".welcome")).to_have_count(0)
        # In the order it happened: the request, the answer, then the reminder.
        expect(page.locator("#messages > li")).to_have_count(3)
        expect(page.locator("#messages > li").last).to_contain_text("Reminder")

        page.reload()  # shown once, not twice
        expect(page.locator(".msg.mine")).to_have_count(1)
        expect(page.locator(".msg.delivery")).to_have_count(1)
        say(page, "what's on my schedule?")
        expect(page.locator(".msg.mine")).to_have_count(2)
        expect(page.locator("#messages > li").last).not_to_contain_text("Reminder")
        assert errors_of(page) == []
        context.close()


def test_an_approval_expires_in_the_users_zone_whatever_the_browsers(
    browser: Browser, tmp_path: Path
) -> None:
    with ServedWeb(tmp_path) as served:
        page = open_page(browser, served, DESKTOP, timezone="America/New_York", locale="en-US")
        sign_in(page)
        say(page, "/tz Europe/Berlin")  # the user's own choice, not the browser's zone
        expect(last_reply(page)).to_contain_text("Your time zone is now Europe/Berlin")
        say(page, "at 1am daily POST http://home.lan/lights/off")
        # Asked at 13:00 in Berlin; requests stay valid 30 minutes.
        expires = "Expires today at 13:30 (Europe/Berlin)"
        expect(page.locator(".ask .approval")).to_contain_text(expires)
        expect(page.locator("#approval-list .approval")).to_contain_text(expires)
        assert errors_of(page) == []
        page.context.close()


def test_a_user_without_a_zone_gets_the_browsers_and_tasks_keep_their_clock_times(
    browser: Browser, tmp_path: Path
) -> None:
    with ServedWeb(tmp_path) as served:
        # Made before the page ever opened, in the default zone (Berlin), for 09:00.
        served.call(
            lambda: served.front.app.agent.handle_message(
                "remind me tomorrow at 9am to call mom", user_id="alice", chat_id="web:main"
            )
        )
        page = open_page(browser, served, DESKTOP, timezone="Asia/Tokyo", locale="en-GB")
        sign_in(page)
        expect(page.locator("#who")).to_have_text("alice · Asia/Tokyo")
        expect(page.locator(".toast")).to_contain_text("It is this browser's zone")
        mom = page.locator(".card.task", has_text="call mom")
        expect(mom).to_contain_text("tomorrow at 09:00 (Asia/Tokyo)")  # the same clock time
        page.reload()
        expect(page.locator("#who")).to_have_text("alice · Asia/Tokyo")
        assert errors_of(page) == []
        page.context.close()


def test_the_header_says_the_zone_tz_set_at_once(browser: Browser, tmp_path: Path) -> None:
    with ServedWeb(tmp_path) as served:
        page = open_page(browser, served, DESKTOP)
        sign_in(page)
        expect(page.locator("#who")).to_have_text("alice · Europe/Berlin")
        say(page, "/tz America/New_York")
        expect(last_reply(page)).to_contain_text("Your time zone is now America/New_York")
        expect(page.locator("#who")).to_have_text("alice · America/New_York")
        page.reload()  # a zone once chosen is the user's: the browser's is not taken again
        expect(page.locator("#who")).to_have_text("alice · America/New_York")
        assert errors_of(page) == []
        page.context.close()


def test_a_tasks_history_is_in_the_users_zone_whatever_the_browsers(
    browser: Browser, tmp_path: Path
) -> None:
    with ServedWeb(tmp_path) as served:
        page = open_page(browser, served, DESKTOP, timezone="America/New_York", locale="en-US")
        sign_in(page)
        say(page, "/tz Europe/Berlin")
        expect(last_reply(page)).to_contain_text("Your time zone is now Europe/Berlin")
        say(page, "remind me in 2 hours to water the plants")
        card = page.locator(".card.task", has_text="water the plants")
        card.locator("button", has_text="Run now").click()
        expect(page.locator(".toast")).to_contain_text("now: succeeded")
        card.locator("button.ghost", has_text="History").click()
        # Run at 13:00 in Berlin (07:00 in the browser's New York), said with its zone.
        expect(card.locator(".runs")).to_contain_text("2025-03-10 13:00 (Europe/Berlin)")
        page.evaluate("() => refresh()")  # the list drawn again (as after a run), waited for
        expect(card.locator(".runs")).to_contain_text("2025-03-10 13:00 (Europe/Berlin)")
        card.locator("button.ghost", has_text="History").click()  # and closes when asked
        expect(card.locator(".runs")).to_have_count(0)
        assert errors_of(page) == []
        page.context.close()


def test_a_message_over_the_limit_is_refused_whole_before_it_is_sent(
    browser: Browser, tmp_path: Path
) -> None:
    with ServedWeb(tmp_path) as served:
        page = open_page(browser, served, DESKTOP)
        sign_in(page)
        expect(page.locator(".welcome")).to_be_visible()
        too_long = "x" * 70_000
        say(page, too_long)
        expect(page.locator(".toast.bad")).to_have_text(
            "That message is 70,000 characters long; the limit is 4,000. "
            "Shorten it or send it in parts."
        )
        assert page.input_value("#message") == too_long  # nothing cut, nothing lost
        expect(page.locator(".msg.mine")).to_have_count(0)
        assert errors_of(page) == []
        page.context.close()


def test_a_message_sent_while_the_conversation_loads_is_not_wiped_by_it(
    browser: Browser, tmp_path: Path
) -> None:
    with ServedWeb(tmp_path) as served:
        page = open_page(browser, served, DESKTOP)
        held: list[Route] = []

        def hold(route: Route) -> None:
            held.append(route)

        page.route("**/history*", hold)
        with page.expect_request("**/history*"):
            sign_in(page)
        say(page, "note: the spare key is under the blue pot")
        # The conversation as it was read before this message: nothing yet.
        held[0].fulfill(json=[])

        expect(last_reply(page)).to_contain_text("spare key")
        expect(page.locator(".msg.mine")).to_have_text(
            ["note: the spare key is under the blue pot"]
        )
        expect(page.locator(".welcome")).to_have_count(0)
        assert errors_of(page) == []
        page.context.close()


def test_a_busy_model_s_notice_shows_until_the_answer_comes(
    browser: Browser, tmp_path: Path
) -> None:
    model = PausingModel(busy=True)
    with ServedWeb(tmp_path, backend=lambda: model) as served:
        page = open_page(browser, served, DESKTOP)
        sign_in(page)

        say(page, "hello")
        notice = page.locator(".msg.notice")
        expect(notice).to_have_text(
            "The model is busy: 1 request ahead of yours. Your answer follows."
        )

        async def go_on() -> None:
            model.go_on.set()

        served.call(go_on)
        expect(last_reply(page)).to_have_text("You said: hello")
        expect(notice).to_have_count(0)


CALENDAR_FILE = Path(__file__).parent.parent.parent / "calendars" / "files" / "thunderbird.ics"


def test_the_page_makes_a_feed_address_and_imports_a_calendar_file(
    browser: Browser, screenshots: Path, tmp_path: Path
) -> None:
    with ServedWeb(tmp_path) as served:
        page = open_page(browser, served, DESKTOP)
        sign_in(page)
        expect(page.locator("#who")).to_have_text("alice · Europe/Berlin")
        page.click("#feed-new")
        address = page.locator("#feed-url")
        expect(address).to_be_visible()
        url = address.input_value()
        assert url.startswith(f"{served.url.rstrip('/')}/calendar/") and url.endswith(".ics")
        expect(page.locator("#feed-note")).to_contain_text("A secret")

        page.set_input_files("#ics-file", str(CALENDAR_FILE))
        preview = page.locator("#ics-preview")
        expect(preview).to_contain_text("2 reminders will be made:")
        expect(preview).to_contain_text("'Standup': every weekday at 09:25")
        expect(page.locator("#ics-import")).to_have_text("Import 2")
        page.screenshot(path=screenshots / "wide-calendar-preview.png")
        expect(page.locator(".card.task")).to_have_count(0)  # nothing before the click
        page.click("#ics-import")
        expect(preview).to_have_text("Made 2 reminders.")
        expect(page.locator(".card.task")).to_have_count(2)
        expect(page.locator(".card.task", has_text="Renew passport")).to_be_visible()

        page.click("#feed-off")
        expect(address).to_be_hidden()
        assert errors_of(page) == []
        page.context.close()
