"""Seed 003, the assistant's tool framework: ``@tool(name, description, param=type)``
functions, a registry asked with ``register``/``get``/``get_all``/``get_context_string``,
``ToolParser.extract_calls`` on the class, ``ToolExecutor(registry).execute_from_text``, and
the built-in task tools called with the arguments its prompt teaches
(``{"tool": "add_reminder", "args": {"delay": "5m", "message": ...}}``). Run through the real
registry, executor, agent and task manager with a scripted model and a manual clock."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from agent import InMemoryConversations
from agent.compat import DialogAgent
from agent.llm import ScriptedBackend
from assistant.builtin import TaskTools
from common import GuardedHttp, ManualClock, NetGuard
from tasks import (
    ApiCallData,
    Delivery,
    DeliveryStatus,
    MemoryTaskStore,
    SearchHit,
    TaskManager,
    WebSearchData,
)
from tools import ToolExecutor, ToolParser, ToolStatus, tool
from tools.compat import Tool, ToolRegistry

NOW = datetime(2026, 1, 27, 13, 30, tzinfo=UTC)  # a Tuesday, 14:30 in Berlin


def block(name: str, **args: Any) -> str:
    """A call the way the contract prompt teaches it: a fenced JSON block."""
    return "```json\n" + json.dumps({"tool": name, "args": args}, indent=4) + "\n```"


# -- the framework, written the seed's way ---------------------------------------------------


@dataclass
class ActionResult:
    success: bool
    data: dict[str, Any]


PANTRY: dict[str, int] = {"rice": 2}


@tool("add_item", "Add an item to the pantry list", item=str, amount=int)
async def add_item(item, amount=1):  # type: ignore[no-untyped-def]
    """Put an item on the pantry list."""
    PANTRY[item] = PANTRY.get(item, 0) + amount
    return ActionResult(success=True, data={"item": item, "amount": PANTRY[item]})


@tool("list_items", "List the pantry")
async def list_items() -> ActionResult:
    return ActionResult(success=True, data=dict(PANTRY))


async def order_groceries(arguments: dict[str, Any]) -> ActionResult:
    return ActionResult(success=True, data={"ordered": arguments["items"]})


def pantry_registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(add_item)
    registry.register(list_items)
    registry.register(
        Tool(
            name="order_groceries",
            description="Order groceries for delivery",
            parameters={
                "type": "object",
                "properties": {"items": {"type": "array", "items": {"type": "string"}}},
                "required": ["items"],
            },
            executor=order_groceries,
            requires_approval=True,
            risk_level="medium",
        )
    )
    return registry


def test_the_registry_answers_get_get_all_and_the_context_string() -> None:
    registry = pantry_registry()

    assert registry.get("add_item") is not None
    assert registry.get("remove_item") is None
    assert [t.name for t in registry.get_all()] == ["add_item", "list_items", "order_groceries"]
    assert registry.get_context_string().splitlines() == [
        "- add_item(item: string, amount: integer = 1): Add an item to the pantry list",
        "- list_items(): List the pantry",
        "- order_groceries(items: list of string): Order groceries for delivery",
    ]


async def test_the_executor_parses_the_reply_and_runs_every_call_in_order() -> None:
    PANTRY.clear()
    reply = (
        "Adding both.\n"
        + block("add_item", item="oats", amount=2)
        + "\n"
        + block("add_item", item="oats")
        + "\n"
        + block("list_items")
    )

    calls = ToolParser.extract_calls(reply)
    results = await ToolExecutor(pantry_registry()).execute_from_text(reply)

    assert [c.tool_name for c in calls] == ["add_item", "add_item", "list_items"]
    assert calls[0].raw_json.startswith('{\n    "tool": "add_item"')
    assert [r.success for r in results] == [True, True, True]
    assert results[2].output == ActionResult(success=True, data={"oats": 3})


async def test_a_tool_that_requires_approval_is_queued_not_run() -> None:
    executor = ToolExecutor(pantry_registry())

    [result] = await executor.execute_all(
        ToolParser.extract_calls(block("order_groceries", items=["milk"]))
    )

    assert result.status is ToolStatus.PENDING_APPROVAL and result.approval is not None
    approved = await executor.approve(result.approval.id, "local")
    assert approved.output == ActionResult(success=True, data={"ordered": ["milk"]})


# -- the built-in tools, called the way the seed's prompt teaches ----------------------------


class Inbox:
    """Where deliveries go (the notifier)."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        self.texts.append(delivery.text)
        return DeliveryStatus.DELIVERED


class News:
    """The search backend of web_search tasks."""

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        return [SearchHit(f"{query} #{i}", f"https://news.example/{i}") for i in range(limit)]


@dataclass
class Home:
    clock: ManualClock
    inbox: Inbox
    manager: TaskManager
    requests: list[httpx.Request]

    def agent(self, replies: list[str]) -> DialogAgent:
        return DialogAgent(
            backend=ScriptedBackend(replies),
            registry=ToolRegistry([TaskTools(self.manager)]),
            memory=InMemoryConversations(zones={"me": "Europe/Berlin"}),
            clock=self.clock,
        )


@pytest.fixture
async def home() -> AsyncIterator[Home]:
    clock = ManualClock(NOW)
    inbox = Inbox()
    requests: list[httpx.Request] = []

    def lights(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, json={"lights": "off"})

    async with httpx.AsyncClient(transport=httpx.MockTransport(lights)) as client:
        # The program's one HTTP path, its trusted host answered by the mock transport.
        http = GuardedHttp(guard=NetGuard(allow_hosts=["home.lan"]), client=client)
        manager = TaskManager(
            store=MemoryTaskStore(), notifier=inbox, clock=clock, searcher=News(), http=http
        )
        await manager.start(timer=False)
        try:
            yield Home(clock, inbox, manager, requests)
        finally:
            await manager.stop()


async def test_remind_me_in_5_minutes_to_call_mom(home: Home) -> None:
    agent = home.agent(
        [block("add_reminder", delay="5m", message="call mom"), "I'll remind you at 14:35."]
    )

    reply = await agent.handle_message(
        "Remind me in 5 minutes to call mom", user_id="me", chat_id="c"
    )

    assert reply.text == "I'll remind you at 14:35."
    [result] = reply.results
    assert result.text.startswith("I'll remind you today at 14:35 (Europe/Berlin) to call mom")
    home.clock.advance(timedelta(minutes=5))
    assert await home.manager.run_due() == 1
    assert home.inbox.texts == ["call mom"]


async def test_remind_me_in_10_minutes_to_check_the_oven(home: Home) -> None:
    agent = home.agent([block("add_reminder", delay="10m", message="check the oven"), "Done."])

    await agent.handle_message(
        "Remind me in 10 minutes to check the oven", user_id="me", chat_id="c"
    )

    [task] = await home.manager.list_tasks("me")
    assert task.next_run == datetime(2026, 1, 27, 13, 40, tzinfo=UTC)


async def test_top_us_news_every_weekday_at_9am(home: Home) -> None:
    agent = home.agent(
        [
            block(
                "add_recurring_task",
                schedule="weekdays 9am",
                task_type="web_search",
                description="Search top US news and summarize top 3",
                execution_data={"query": "US top news", "limit": 3, "summarize": True},
            ),
            "Every weekday at 9am you'll get the top 3.",
        ]
    )

    await agent.handle_message(
        "Search web for top US news every weekday at 9am", user_id="me", chat_id="c"
    )

    [task] = await home.manager.list_tasks("me")
    assert task.execution == WebSearchData(query="US top news", limit=3)
    assert task.next_run == datetime(2026, 1, 28, 8, 0, tzinfo=UTC)  # 09:00 in Berlin
    home.clock.set(task.next_run)
    assert await home.manager.run_due() == 1
    assert "US top news #2" in home.inbox.texts[0]


async def test_turn_off_the_lights_at_1am_daily(home: Home) -> None:
    agent = home.agent(
        [
            block(
                "add_recurring_task",
                schedule="daily 1am",
                task_type="api_call",
                description="Turn off home lights",
                execution_data={
                    "url": "http://home.lan/lights/off",
                    "method": "POST",
                    "body": {"state": "off"},
                },
            ),
            "Done: the lights go off at 1am every day.",
        ]
    )

    paused = await agent.handle_message(
        "Turn off the lights at 1am daily", user_id="me", chat_id="c"
    )
    [request] = paused.approvals
    assert await home.manager.list_tasks("me") == []
    done = await agent.resolve_approval(request.id, approved=True, by="me")

    assert done.text == "Done: the lights go off at 1am every day."
    [task] = await home.manager.list_tasks("me")
    assert task.execution == ApiCallData(
        url="http://home.lan/lights/off", method="POST", body={"state": "off"}
    )
    assert task.next_run is not None
    assert task.next_run.astimezone(ZoneInfo("Europe/Berlin")).hour == 1
    home.clock.set(task.next_run)
    assert await home.manager.run_due() == 1
    [sent] = home.requests
    assert (sent.method, str(sent.url)) == ("POST", "http://home.lan/lights/off")
    assert json.loads(sent.content) == {"state": "off"}
    assert sent.headers["content-type"] == "application/json"
