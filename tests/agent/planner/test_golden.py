"""The offline planner's contract: every golden phrase of every rule (``testing.golden``),
through the real registry, executor and task manager (``assistant.app``), on a manual clock at
the goldens' instant."""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.planner import RULES
from assistant.app import App
from testing.golden import CASES, GOLDEN, NOW, ZONE, Creates, check_every, golden_app, planner_of
from tools import ToolContext, ToolParser, validate_tool_call


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[App]:
    async with golden_app(tmp_path / "data") as built:
        yield built


def test_there_are_enough_golden_phrases_and_every_rule_has_some() -> None:
    assert len(GOLDEN) >= 150
    assert len({golden.text for golden in GOLDEN if not golden.setup}) >= 150
    assert set(CASES) == {rule.name for rule in RULES} - {"one-time HTTP requests"}
    assert all(CASES.values())


def test_the_goldens_cover_the_forms_the_issue_names() -> None:
    kinds = Counter(type(golden.expect).__name__ for golden in GOLDEN)
    assert kinds["Creates"] >= 80 and kinds["Changes"] >= 20 and kinds["Says"] >= 40
    repeating = [g for g in GOLDEN if isinstance(g.expect, Creates) and g.expect.repeats]
    words = " ".join(golden.text.lower() for golden in GOLDEN)
    for form in (
        "every other day", "every 3 days", "every 2 weeks on monday", "this evening", "tonight",
        "tomorrow morning", "every morning at 7", "on the first of every month",
        "on the last day of every month", "every year on march 3", "the 3rd of next month",
        "ping me", "don't let me forget", "wake me up", "set an alarm", "what's on my schedule",
        "show my reminders", "what do i have tomorrow", "cancel the gym reminder",
        "stop the news search", "snooze the trash reminder by an hour",
        "move the dentist reminder to 6pm", "pause the news search", "resume",
        # issue 27: the calendar's ways of repeating, and the user's calendar
        "every other friday", "every last weekday of the month", "except holidays",
        "for 10 times", "until march 20", "except christmas", "what's on my calendar tomorrow",
    ):  # fmt: skip
        assert form in words, form
    assert len(repeating) >= 25


def test_the_goldens_cover_the_forms_of_issue_28() -> None:
    words = " ".join(golden.text.lower() for golden in GOLDEN)
    for form in (
        "tell me when https://", "every hour check https://", "and tell me if it contains",
        "drops below 300", "#price on https://", ".json", "the search results for",
        "quiet from 22:00 to 07:00", "don't disturb me", "turn off quiet hours",
        "morning briefing at 7:30", "every morning at 7 send me a briefing",
        "stop the morning briefing", "keep reminding me every 10 minutes until i say done",
        "nag me every 15 minutes", "urgent:", "done", "i did it", "done with the dentist",
    ):  # fmt: skip
        assert form in words, form
    monitors = [
        g for g in GOLDEN if isinstance(g.expect, Creates) and g.expect.task_type.value == "monitor"
    ]
    assert len(monitors) >= 10


async def test_every_golden_phrase_gives_what_it_must(app: App) -> None:
    failures = [
        f"{v.golden.text!r}: {v.problem}\n    answer: {v.reply!r}"
        for v in await check_every(app, GOLDEN)
        if not v.passed
    ]
    assert not failures, "\n".join(failures)


async def test_every_planned_call_validates_against_the_real_registry(app: App) -> None:
    planner = planner_of(app)
    parser = ToolParser(tool_names=app.registry.all_names())
    ctx = await app.registry.prepare(ToolContext(user_id="u", chat_id="c", timezone=ZONE, now=NOW))
    planned = 0
    for golden in GOLDEN:
        for call in parser.extract_calls(planner.respond_to(golden.text)):
            verdict = validate_tool_call(call, app.registry, ctx)
            assert verdict.is_valid, f"{golden.text!r}: {verdict.message()}"
            assert not verdict.warnings, f"{golden.text!r}: {verdict.warnings}"
            planned += 1
    assert planned >= 150
