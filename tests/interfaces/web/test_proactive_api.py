"""Issue 28 over the HTTP API (uvicorn on 127.0.0.1, the composed app, the offline planner):
quiet hours, the morning briefing, a monitor of a real page, a message shown again later,
Done on a reminder that nags, snoozing until tomorrow morning; other users' ids refused."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tasks import RunStatus, TaskStatus
from testing.page_server import PageServer
from tests.interfaces.web.harness import BOB_TOKEN, Web, running_web

NEW_ROUTES = [
    ("GET", "/me/quiet-hours"),
    ("PUT", "/me/quiet-hours"),
    ("DELETE", "/me/quiet-hours"),
    ("GET", "/me/briefing"),
    ("PUT", "/me/briefing"),
    ("DELETE", "/me/briefing"),
    ("POST", "/monitors"),
    ("GET", "/tasks/abc123/observation"),
    ("POST", "/tasks/abc123/done"),
    ("POST", "/inbox/x.1/later"),
]


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[Web]:
    async with running_web(tmp_path, ASSISTANT_HTTP_ALLOW_HOSTS="127.0.0.1") as running:
        await running.front.app.memory.set_timezone("alice", "Europe/Berlin")
        yield running


async def tick(web: Web, span: timedelta) -> None:
    """Let ``span`` pass; the front end's own scheduler fires (and releases) what is due."""
    web.clock.advance(span)
    await web.front.app.tasks.run_due()
    await web.front.app.tasks.wait_idle()
    await web.front.app.tasks.release_due()


async def held_events(client: httpx.AsyncClient, count: int) -> list[dict[str, Any]]:
    """The first ``count`` deliveries the server holds for the caller (``/events``)."""
    found: list[dict[str, Any]] = []
    async with client.stream("GET", "/events", params={"recent": "true"}) as response:
        async with asyncio.timeout(10):
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    found.append(json.loads(line.removeprefix("data: ")))
                    if len(found) == count:
                        return found
    raise AssertionError(f"the stream ended after {len(found)} deliveries")


@pytest.mark.parametrize(("method", "path"), NEW_ROUTES)
async def test_the_new_routes_need_a_token(web: Web, method: str, path: str) -> None:
    async with web.client(None) as client:
        response = await client.request(method, path)
    assert response.status_code == 401


async def test_quiet_hours_are_set_read_and_ended(web: Web) -> None:
    async with web.client() as client:
        assert (await client.get("/me/quiet-hours")).json() == {
            "hours": None, "timezone": "Europe/Berlin", "held": 0, "notice": "",
        }  # fmt: skip
        bad = await client.put("/me/quiet-hours", json={"hours": "whenever"})
        assert bad.status_code == 400 and "could not read 'whenever'" in bad.json()["detail"]
        set_ = await client.put("/me/quiet-hours", json={"hours": "from 1pm to 3pm"})
        assert set_.json()["hours"] == "13:00-15:00"
        assert set_.json()["notice"].startswith("Quiet hours: from 13:00 to 15:00")
        await client.post("/agent/chat", json={"message": "remind me in 5 minutes to stretch"})
        await tick(web, timedelta(minutes=5))
        assert (await client.get("/me/quiet-hours")).json()["held"] == 1
        ended = await client.delete("/me/quiet-hours")
        assert ended.json()["notice"] == (
            "Quiet hours are off: messages arrive when they are due. The 1 message they held "
            "arrives now."
        )
        assert ended.json()["held"] == 0  # what still waits: none
        await web.front.app.tasks.release_due()
        [held] = await held_events(client, 1)
    assert held["text"] == "stretch\n(held during your quiet hours since 13:05)"
    assert held["kind"] == "reminder" and held["nags"] is False


async def test_the_morning_briefing_is_started_moved_and_stopped(web: Web) -> None:
    async with web.client() as client:
        assert (await client.get("/me/briefing")).json() == {"task": None, "notice": ""}
        started = (await client.put("/me/briefing", json={"at": "7:30"})).json()
        assert started["task"]["type"] == "briefing"
        assert started["task"]["schedule"] == "every day at 07:30 (Europe/Berlin)"
        assert started["notice"].startswith("Started your morning briefing: [")
        often = await client.put("/me/briefing", json={"at": "every 5 minutes"})
        assert often.status_code == 400
        assert often.json()["detail"].startswith("a briefing comes once a day")
        moved = (await client.put("/me/briefing", json={"at": "8"})).json()
        assert moved["task"]["id"] == started["task"]["id"]
        assert moved["task"]["next_run_text"] == "tomorrow at 08:00 (Europe/Berlin)"
        await tick(web, timedelta(hours=19))
        [briefing] = await held_events(client, 1)
        stopped = (await client.delete("/me/briefing")).json()
    assert briefing["kind"] == "result"
    assert briefing["text"].startswith("Good morning! Your briefing for Tue 2025-03-11")
    assert stopped == {
        "task": None, "notice": f"Stopped your morning briefing (task {started['task']['id']}).",
    }  # fmt: skip


async def test_a_monitor_made_on_the_page_speaks_on_change_and_later_again(web: Web) -> None:
    page = "<html><body><p id='p'>€320</p><p>ad 1</p></body></html>"
    async with PageServer(page) as site, web.client() as alice, web.client(BOB_TOKEN) as bob:
        watched = {
            "url": site.url("/kettle"), "selector": "#p", "condition": "< 300",
            "every": "every 30 minutes",
        }  # fmt: skip
        made = await alice.post("/monitors", json=watched)
        assert made.status_code == 200, made.text
        task = made.json()["task"]
        assert made.json()["notice"] == (
            f"I'll check {site.url('/kettle')} (#p) every 30 minutes (Europe/Berlin) and "
            f"tell you only when the value is below 300 (task {task['id']}); I take a first "
            "look now, and tell you at once if the value is below 300 already."
        )
        assert [t["id"] for t in (await alice.get("/monitors")).json()] == [task["id"]]
        assert (await bob.get("/monitors")).json() == []
        same = (await alice.post("/monitors", json=watched)).json()
        assert same["task"]["id"] == task["id"]
        assert same["notice"].startswith(f"You already have that monitor (task {task['id']}): ")
        assert same["notice"].endswith("I made no second one.")
        await tick(web, timedelta(0))  # the first look: €320, silent
        seen = await alice.get(f"/tasks/{task['id']}/observation")
        assert seen.json()["value"] == "€320" and seen.json()["holds"] is False
        assert (await bob.get(f"/tasks/{task['id']}/observation")).status_code == 404
        site.show("<html><body><p id='p'>€289</p><p>ad 2</p></body></html>")
        await tick(web, timedelta(minutes=30))
        [told] = await held_events(alice, 1)
        assert told["text"].endswith("the value is below 300 now.\nwas €320, now €289")
        assert (await bob.post(f"/inbox/{told['id']}/later")).status_code == 404
        assert (await alice.post("/agent/chat", json={"message": "/dateorder dmy"})).is_success
        in_order = await alice.post(f"/inbox/{told['id']}/later", json={"delay": "until 1/4"})
        assert in_order.json()["at"] == "2025-04-01T09:00:00+02:00"  # 1 April, in her order
        later = await alice.post(f"/inbox/{told['id']}/later", json={"delay": "1h"})
        assert later.json()["notice"].endswith(
            "again at 14:30 instead of on Tue 2025-04-01 at 09:00."
        )
        await tick(web, timedelta(hours=1))
        [_, again] = await held_events(alice, 2)
    assert again["text"] == told["text"] + "\n(snoozed at 13:30)"


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"url": "https://a.example/", "selector": "##"}, "is not a CSS selector"),
        ({"url": "https://a.example/", "condition": "when pigs fly"}, "could not read"),
        ({"url": "https://a.example/", "every": "tomorrow"}, "happens once"),
        ({"url": "ftp://a.example/"}, "must be an absolute http:// or https:// URL"),
        ({"url": "banana"}, "e.g. 'https://shop.example/kettle'"),
        (
            {"url": "https://a.example/", "every": "banana"},
            "say how often, e.g. 'every 30 minutes' or 'every day at 9am'",
        ),
        ({"url": "http://10.0.0.5/x"}, "refusing to connect: 10.0.0.5 is a private address"),
        ({"url": "http://169.254.169.254/latest"}, "a cloud metadata address"),
        ({"url": "https://a.example/k.json", "field": "price", "condition": "is banana"}, ""),
    ],
)
async def test_a_monitor_that_cannot_work_is_a_400_saying_why(
    web: Web, body: dict[str, str], reason: str
) -> None:
    async with web.client() as client:
        refused = await client.post("/monitors", json=body)
        listed = (await client.get("/tasks")).json()
    detail = refused.json()["detail"]
    assert refused.status_code == 400 and reason in detail
    # A sentence for a person: never the data the task would keep, nor another task's example.
    assert "{" not in detail and "lights/off" not in detail and "tomorrow at 9am" not in detail
    assert listed == []


async def test_done_is_refused_on_a_monitor_with_a_409(web: Web) -> None:
    async with PageServer() as site, web.client() as client:
        url = site.url("/page")
        made = (await client.post("/monitors", json={"url": url})).json()
        await tick(web, timedelta(0))
        task_id = made["task"]["id"]
        refused = await client.post(f"/tasks/{task_id}/done")
        runs = (await client.get(f"/tasks/{task_id}/runs")).json()
        task = (await client.get(f"/tasks/{task_id}")).json()
    assert refused.status_code == 409
    assert refused.json()["detail"] == (
        f'task {task_id} ("watch {url}") is a monitor task, not a reminder, so '
        "nothing was marked done (only a reminder is done); cancel or pause it instead, e.g. "
        f"'cancel {task_id}'"
    )
    assert [r["status"] for r in runs] == ["succeeded"] and task["status"] == "active"


async def test_done_stops_a_nagging_reminder_and_is_in_its_history(web: Web) -> None:
    async with web.client() as alice, web.client(BOB_TOKEN) as bob:
        reply = (
            await alice.post(
                "/agent/chat", json={"message": "nag me every 5 minutes to call the bank"}
            )
        ).json()
        task_id = reply["reply"].split("(task ")[1].split(")")[0]
        await tick(web, timedelta(minutes=5))
        [first] = await held_events(alice, 1)
        assert first["nags"] is True
        assert (await bob.post(f"/tasks/{task_id}/done")).status_code == 404
        done = (await alice.post(f"/tasks/{task_id}/done")).json()
        assert done["notice"] == f"Done: task {task_id} ('call the bank') will not repeat."
        assert done["task"]["status"] == "done"
        again = await alice.post(f"/tasks/{task_id}/done")
        assert again.status_code == 200
        assert again.json()["notice"].startswith(
            f"Task {task_id} ('call the bank') was already marked done at "
        )
        await tick(web, timedelta(minutes=10))
        runs = (await alice.get(f"/tasks/{task_id}/runs")).json()
    assert [r["status"] for r in runs] == [RunStatus.ACKNOWLEDGED.value, "succeeded"]
    assert runs[0]["result"] == "acknowledged: Done on the page"
    task = await web.front.app.tasks.get_task(task_id, "alice")
    assert task.status is TaskStatus.DONE


async def test_a_reminder_is_snoozed_until_tomorrow_morning(web: Web) -> None:
    async with web.client() as client:
        reply = (
            await client.post("/agent/chat", json={"message": "remind me in 1 minute to stretch"})
        ).json()
        task_id = reply["reply"].split("(task ")[1].split(")")[0]
        await tick(web, timedelta(minutes=1))
        snoozed = (await client.post(f"/tasks/{task_id}/snooze", json={"delay": "morning"})).json()
    assert snoozed["task"]["next_run_text"] == "tomorrow at 08:00 (Europe/Berlin)"
