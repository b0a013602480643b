"""The HTTP API through httpx against the real front end (uvicorn on 127.0.0.1): every route,
every way to fail authentication, and other users' ids refused.

The model is the offline planner, as with no model configured; the clock is a manual one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from assistant.config import ConfigError
from assistant.frontends import open_web
from interfaces.web import MAX_BODY
from tests.interfaces.web.harness import (
    ALICE_TOKEN,
    BOB_TOKEN,
    Web,
    running_web,
    web_settings,
)

PROTECTED = [
    ("POST", "/agent/chat"),
    ("POST", "/agent/stream"),
    ("GET", "/events"),
    ("GET", "/tasks"),
    ("GET", "/tasks/abc123"),
    ("POST", "/tasks/abc123/cancel"),
    ("POST", "/tasks/abc123/pause"),
    ("POST", "/tasks/abc123/resume"),
    ("POST", "/tasks/abc123/run"),
    ("POST", "/tasks/abc123/snooze"),
    ("GET", "/tasks/abc123/runs"),
    ("GET", "/approvals"),
    ("POST", "/approvals/ap123/approve"),
    ("POST", "/approvals/ap123/deny"),
    ("GET", "/notes"),
    ("GET", "/me"),
    ("GET", "/no/such/route"),
]


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[Web]:
    async with running_web(tmp_path) as running:
        yield running


async def say(web: Web, text: str, token: str = ALICE_TOKEN) -> dict[str, Any]:
    async with web.client(token) as client:
        response = await client.post("/agent/chat", json={"message": text})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_every_route_without_a_valid_token_gets_401_and_nothing_else(web: Web) -> None:
    wrong = [None, "not-a-token-at-all-000", ALICE_TOKEN + "x", ALICE_TOKEN[:-1]]
    async with web.client(None) as client:
        for method, path in PROTECTED:
            for token in wrong:
                headers = {"Authorization": f"Bearer {token}"} if token else {}
                response = await client.request(method, path, headers=headers, json={})
                assert response.status_code == 401, (method, path, token)
                assert response.headers["www-authenticate"] == "Bearer"
                assert set(response.json()) == {"detail"}
                assert "Bearer" in response.json()["detail"]
        basic = await client.get("/tasks", headers={"Authorization": f"Basic {ALICE_TOKEN}"})
        huge = await client.post(
            "/agent/chat", content=b"x" * (MAX_BODY * 4), headers={"Content-Type": "text/plain"}
        )
    assert basic.status_code == 401
    assert huge.status_code == 401  # refused before the body is read


async def test_the_page_the_health_check_and_the_docs_need_no_token(web: Web) -> None:
    async with web.client(None) as client:
        page = await client.get("/")
        script = await client.get("/app.js")
        health = await client.get("/health")
        schema = await client.get("/openapi.json")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert health.status_code == 200
    assert health.json()["status"] == "ok" and health.json()["scheduler_running"]
    assert health.json()["overdue"] == 0
    paths = schema.json()["paths"]
    assert {"/agent/chat", "/agent/stream", "/tasks", "/approvals", "/notes", "/health"} <= set(
        paths
    )
    assert "/tasks/{task_id}/snooze" in paths and "/approvals/{request_id}/approve" in paths


async def test_a_chat_sets_a_reminder_that_the_task_routes_list_and_change(web: Web) -> None:
    body = await say(web, "remind me in 10 minutes to stretch")

    task_id = str(body["reply"]).rpartition("task ")[2].rstrip(").")
    reply = f"I'll remind you today at 13:10 (Europe/Berlin) to stretch (task {task_id})."
    assert body["reply"] == reply
    assert body["chat_id"] == "main" and body["approvals"] == []
    [result] = body["tool_results"]
    assert result["tool"] == "add_reminder" and result["status"] == "ok"
    assert result["arguments"] == {"when": "in 10 minutes", "message": "stretch"}
    async with web.client() as client:
        [task] = (await client.get("/tasks")).json()
        assert task["id"] == task_id and task["type"] == "reminder"
        assert task["next_run"] == "2025-03-10T13:10:00+01:00"
        assert task["next_run_text"] == "today at 13:10 (Europe/Berlin)"
        assert task["schedule"] == "once at 2025-03-10 13:10 (Europe/Berlin)"
        assert (await client.get(f"/tasks/{task_id}")).json() == task

        snoozed = await client.post(f"/tasks/{task_id}/snooze", json={"delay": "1h"})
        assert snoozed.json()["task"]["next_run"] == "2025-03-10T14:10:00+01:00"
        assert (
            snoozed.json()["notice"]
            == f'Snoozed task {task_id} ("stretch") until today at 14:10 (Europe/Berlin).'
        )
        default = await client.post(f"/tasks/{task_id}/snooze")  # 10 minutes
        assert default.json()["task"]["next_run"] == "2025-03-10T14:20:00+01:00"
        paused = await client.post(f"/tasks/{task_id}/pause")
        assert paused.json()["task"]["status"] == "paused"
        assert (await client.post(f"/tasks/{task_id}/pause")).status_code == 409
        resumed = await client.post(f"/tasks/{task_id}/resume")
        assert resumed.json()["task"]["status"] == "active"
        ran = (await client.post(f"/tasks/{task_id}/run")).json()
        assert ran["run"]["status"] == "succeeded"
        assert ran["notice"] == (
            f'Ran task {task_id} ("stretch") now: succeeded (reminder delivered); it still fires '
            "today at 14:20 "
            "(Europe/Berlin)."
        )
        assert ran["task"]["status"] == "active"
        assert ran["task"]["next_run"] == "2025-03-10T14:20:00+01:00"
        [run] = (await client.get(f"/tasks/{task_id}/runs")).json()
        assert run["id"] == ran["run"]["id"] and run["misfire"] == "manual"
        assert run["scheduled_for"] == "2025-03-10T13:00:00+01:00"
        done = await client.post(f"/tasks/{task_id}/cancel")  # its own run is still due
        assert done.json()["task"]["status"] == "cancelled"
        assert (await client.get("/tasks")).json() == []
        finished = (await client.get("/tasks", params={"all": "true"})).json()
        assert [t["status"] for t in finished] == ["cancelled"]

    daily = await say(web, "every day at 9am remind me to water the plants")
    daily_id = str(daily["reply"]).rpartition("task ")[2].rstrip(").")
    async with web.client() as client:
        cancelled = await client.post(f"/tasks/{daily_id}/cancel")
        assert cancelled.json()["notice"] == f'Cancelled task {daily_id} ("water the plants").'
        assert cancelled.json()["task"]["status"] == "cancelled"
        assert (await client.get("/tasks")).json() == []


async def test_snoozing_a_recurring_task_puts_its_next_run_off(web: Web) -> None:
    daily = await say(web, "every day at 9pm remind me to lock the door")
    daily_id = str(daily["reply"]).rpartition("task ")[2].rstrip(").")
    async with web.client() as client:
        snoozed = await client.post(f"/tasks/{daily_id}/snooze", json={"delay": "1h"})
    assert snoozed.json()["task"]["next_run"] == "2025-03-10T22:00:00+01:00"
    assert snoozed.json()["notice"] == (
        f'Snoozed task {daily_id} ("lock the door") until today at 22:00 (Europe/Berlin).'
    )
    async with web.client() as client:
        until = await client.post(f"/tasks/{daily_id}/snooze", json={"delay": "until 11pm"})
        day = await client.post(f"/tasks/{daily_id}/snooze", json={"delay": "until wednesday"})
        earlier = await client.post(f"/tasks/{daily_id}/snooze", json={"delay": "until 10pm"})
        task = (await client.get(f"/tasks/{daily_id}")).json()
    assert until.json()["task"]["next_run"] == "2025-03-10T23:00:00+01:00"  # until, not by
    assert day.json()["task"]["next_run"] == "2025-03-12T21:00:00+01:00"  # at its own time
    assert day.json()["notice"].endswith("until Wed 2025-03-12 at 21:00 (Europe/Berlin).")
    assert earlier.status_code == 400
    assert "a snooze only puts a run off" in earlier.json()["detail"]
    assert task["schedule"] == "every day at 21:00 (Europe/Berlin)"  # one run put off, no more


async def test_a_snooze_over_the_api_reads_dates_in_the_users_order(web: Web) -> None:
    daily = await say(web, "every day at 9pm remind me to lock the door")
    daily_id = str(daily["reply"]).rpartition("task ")[2].rstrip(").")
    await say(web, "/dateorder dmy")
    async with web.client() as client:
        snoozed = await client.post(f"/tasks/{daily_id}/snooze", json={"delay": "until 1/4"})
    # 1 April at its own time, on summer time by then.
    assert snoozed.json()["task"]["next_run"] == "2025-04-01T21:00:00+02:00"


async def test_task_routes_say_what_was_wrong(web: Web) -> None:
    body = await say(web, "remind me in 10 minutes to stretch")
    task_id = str(body["reply"]).rpartition("task ")[2].rstrip(").")
    async with web.client() as client:
        missing = await client.post("/tasks/zzzzzz/cancel")
        unreadable = await client.post(f"/tasks/{task_id}/snooze", json={"delay": "soonish"})
        extra = await client.post(f"/tasks/{task_id}/snooze", json={"delay": "1h", "x": 1})
        limit = await client.get(f"/tasks/{task_id}/runs", params={"limit": 0})
    assert missing.status_code == 404 and "zzzzzz" in missing.json()["detail"]
    assert unreadable.status_code == 400 and "soonish" in unreadable.json()["detail"]
    assert extra.status_code == 422
    assert limit.status_code == 422


async def test_another_users_ids_read_like_missing_ones(web: Web) -> None:
    body = await say(web, "remind me in 10 minutes to stretch")
    task_id = str(body["reply"]).rpartition("task ")[2].rstrip(").")
    request = await say(web, "at 1am daily POST http://home.lan/lights/off")
    [approval] = request["approvals"]
    await say(web, "note: the wifi password is hunter2 #home")

    async with web.client(BOB_TOKEN) as bob:
        assert (await bob.get("/tasks")).json() == []
        assert (await bob.get("/approvals")).json() == []
        assert (await bob.get("/notes")).json() == []
        assert (await bob.get("/notes", params={"q": "wifi"})).json() == []
        assert (await bob.get("/history")).json() == []
        for method, path in [
            ("GET", f"/tasks/{task_id}"),
            ("GET", f"/tasks/{task_id}/runs"),
            *[("POST", f"/tasks/{task_id}/{verb}") for verb in ("cancel", "pause", "run")],
            ("POST", f"/tasks/{task_id}/resume"),
            ("POST", f"/tasks/{task_id}/snooze"),
            ("POST", f"/approvals/{approval['id']}/approve"),
            ("POST", f"/approvals/{approval['id']}/deny"),
        ]:
            response = await bob.request(method, path)
            assert response.status_code == 404, (method, path, response.text)
        assert (await bob.get("/me")).json()["user_id"] == "bob"

    async with web.client() as alice:
        [task] = (await alice.get("/tasks")).json()
        assert task["status"] == "active" and task["id"] == task_id
        [still] = (await alice.get("/approvals")).json()
        assert still["id"] == approval["id"] and still["status"] == "pending"


async def test_an_approval_is_listed_decided_once_and_answered_by_the_agent(web: Web) -> None:
    body = await say(web, "at 1am daily POST http://home.lan/lights/off")
    [approval] = body["approvals"]
    assert approval["tool"] == "add_recurring_task" and approval["status"] == "pending"
    assert approval["text"].startswith("Approval needed\nTool: add_recurring_task")
    async with web.client() as client:
        [listed] = (await client.get("/approvals")).json()
        assert listed == approval
        approved = await client.post(f"/approvals/{approval['id']}/approve")
        again = await client.post(f"/approvals/{approval['id']}/deny")
        tasks = (await client.get("/tasks")).json()
        assert (await client.get("/approvals")).json() == []
    assert approved.status_code == 200, approved.text
    assert "every day at 01:00" in approved.json()["reply"]
    assert approved.json()["tool_results"][0]["status"] == "ok"
    assert again.status_code == 409 and "already approved" in again.json()["detail"]
    assert [t["type"] for t in tasks] == ["api_call"]


async def test_an_expired_request_cannot_be_approved(web: Web) -> None:
    body = await say(web, "at 1am daily POST http://home.lan/lights/off")
    [approval] = body["approvals"]
    web.clock.advance(timedelta(hours=1))
    async with web.client() as client:
        assert (await client.get("/approvals")).json() == []
        expired = await client.post(f"/approvals/{approval['id']}/approve")
    assert expired.status_code == 409 and "expired" in expired.json()["detail"]


async def test_notes_are_listed_and_searched(web: Web) -> None:
    await say(web, "note: the wifi password is hunter2 #home")
    await say(web, "note: the spare key is under the blue pot")
    async with web.client() as client:
        newest = (await client.get("/notes")).json()
        found = (await client.get("/notes", params={"q": "wifi"})).json()
        nothing = (await client.get("/notes", params={"q": "bicycle"})).json()
    assert newest[0]["content"].startswith("the spare key")
    assert len(newest) == 2 and newest[1]["tags"] == ["home"]
    assert [n["content"] for n in found] == [newest[1]["content"]]
    assert nothing == []


async def test_slash_commands_work_in_the_chat_and_the_zone_follows(web: Web) -> None:
    zone = await say(web, "/tz America/New_York")
    unknown = await say(web, "/bogus")
    async with web.client() as client:
        me = (await client.get("/me")).json()
    await say(web, "remind me in 10 minutes to stretch")
    listing = await say(web, "/tasks")

    assert str(zone["reply"]).startswith("Your time zone is now America/New_York")
    assert me == {
        "user_id": "alice",
        "timezone": "America/New_York",
        "timezone_chosen": True,
        "max_message_chars": 4000,
    }
    assert str(unknown["reply"]).startswith("I don't know the command '/bogus'.")
    assert "stretch" in str(listing["reply"]) and "America/New_York" in str(listing["reply"])


async def test_a_first_zone_moves_the_tasks_made_before_to_the_same_clock_times(
    web: Web,
) -> None:
    made = await say(web, "remind me tomorrow at 9am to call mom")  # in the default zone
    task_id = str(made["reply"]).rpartition("task ")[2].rstrip(").")
    async with web.client() as client:
        before = (await client.get("/me")).json()
        refused = await client.put("/me/timezone", json={"timezone": "Mars/Olympus"})
        chosen = await client.put("/me/timezone", json={"timezone": "America/New_York"})
        after = (await client.get("/me")).json()
        [task] = (await client.get("/tasks")).json()
        again = await client.put("/me/timezone", json={"timezone": "Asia/Tokyo"})
        [kept] = (await client.get("/tasks")).json()

    assert (before["timezone"], before["timezone_chosen"]) == ("Europe/Berlin", False)
    assert refused.status_code == 422 and "'Mars/Olympus'" in refused.json()["detail"]
    assert chosen.json()["moved"] == [task_id]
    assert "keeps its clock time there" in chosen.json()["notice"]
    assert (after["timezone"], after["timezone_chosen"]) == ("America/New_York", True)
    assert task["next_run"] == "2025-03-11T09:00:00-04:00"  # 09:00 in New York, not Berlin
    assert task["schedule"] == "once at 2025-03-11 09:00 (America/New_York)"
    # Only the first choice moves tasks: a later one shows the same moment in the new zone.
    assert again.json()["moved"] == []
    assert kept["next_run"] == "2025-03-11T22:00:00+09:00"


async def test_a_task_card_says_a_repeating_tasks_times_in_one_zone(web: Web) -> None:
    await say(web, "every day at 7am remind me to stretch")  # in the default, Berlin
    await say(web, "/tz America/New_York")  # the first choice: 07:00 becomes 07:00 there
    async with web.client() as client:
        [moved] = (await client.get("/tasks")).json()
    await say(web, "/tz Europe/Berlin")  # a later change: the task keeps New York's 07:00
    async with web.client() as client:
        [kept] = (await client.get("/tasks")).json()

    assert moved["schedule"] == "every day at 07:00 (America/New_York)"
    assert moved["next_run_text"] == "tomorrow at 07:00 (America/New_York)"
    assert kept["schedule"] == "every day at 07:00 (America/New_York)"
    assert kept["next_run_text"] == ("tomorrow at 12:00 (Europe/Berlin), 07:00 in America/New_York")


async def test_bad_bodies_get_422_or_413_with_what_was_wrong(web: Web) -> None:
    async with web.client() as client:
        empty = await client.post("/agent/chat", json={})
        blank = await client.post("/agent/chat", json={"message": ""})
        long = await client.post("/agent/chat", json={"message": "x" * 4001})
        chat = await client.post("/agent/chat", json={"message": "hi", "chat_id": "a b"})
        extra = await client.post("/agent/chat", json={"message": "hi", "admin": True})
        broken = await client.post(
            "/agent/chat", content=b"{not json", headers={"Content-Type": "application/json"}
        )
        large = await client.post("/agent/chat", json={"message": "x" * (MAX_BODY + 1)})
    for response in (empty, blank, long, chat, extra, broken):
        assert response.status_code == 422, response.text
    assert empty.json()["detail"][0]["loc"] == ["body", "message"]
    assert "up to 4000" in str(long.json()["detail"])
    assert large.status_code == 413 and str(MAX_BODY) in large.json()["detail"]


async def test_health_says_when_the_scheduler_stopped(web: Web) -> None:
    await web.front.app.tasks.stop()
    async with web.client(None) as client:
        health = await client.get("/health")
    assert health.status_code == 503
    assert health.json()["status"] == "degraded" and not health.json()["scheduler_running"]


async def test_without_tokens_only_127_0_0_1_is_served_and_only_by_loopback_names(
    tmp_path: Path,
) -> None:
    exposed = web_settings(tmp_path, tokens="", ASSISTANT_WEB_HOST="0.0.0.0")
    with pytest.raises(ConfigError, match=r"only listens on 127\.0\.0\.1"):
        async with open_web(exposed):
            pass
    async with running_web(tmp_path, tokens="") as web:
        token = web.front.local_token
        assert token is not None and web.front.page_url.endswith(f"/#token={token}")
        async with web.client(token) as client:
            me = await client.get("/me")
            rebound = await client.get("/me", headers={"Host": "evil.example:8080"})
        async with web.client(None) as client:
            anonymous = await client.get("/me")
    assert me.json()["user_id"] == "local"  # the terminal's user
    assert rebound.status_code == 403
    assert anonymous.status_code == 401 and "address 'assistant web' printed" in anonymous.text


async def test_malformed_tokens_stop_the_start_without_quoting_them(tmp_path: Path) -> None:
    for tokens, reason in [
        ("ZZshort:alice", "at least 16 characters"),
        ("ZZnocolon0123456789abcdef", "not TOKEN:USER"),
        ("Qm7xT2pLk9Vw4ZsR-ZZ:al ice", "user id"),
        ("Qm7xT2pLk9Vw4ZsR-ZZ:a,Qm7xT2pLk9Vw4ZsR-ZZ:b", "repeats"),
        ("aaaaaaaaaaaaaaaaZZ:alice", r"too easy to guess \(about 1 bits"),
        ("ZZ0123456789abcdef:alice", "too easy to guess"),
        ("ZZpasswordpassword:alice", "at least 50 are needed"),
    ]:
        with pytest.raises(ConfigError, match=reason) as refused:
            async with open_web(web_settings(tmp_path, tokens=tokens)):
                pass
        assert "ZZ" not in str(refused.value)


async def test_history_is_what_was_said_and_answered_without_the_calls(web: Web) -> None:
    await say(web, "remind me in 10 minutes to stretch")
    await say(web, "/tasks")  # a slash command is not part of the conversation
    await say(web, "note: the spare key is under the blue pot", token=BOB_TOKEN)
    web.clock.advance(timedelta(minutes=11))
    await web.run_due()  # the chat keeps the reminder; the page has it from /events
    async with web.client() as client:
        history = (await client.get("/history")).json()
        other_chat = (await client.get("/history", params={"chat_id": "side"})).json()
        bad = await client.get("/history", params={"chat_id": "no spaces"})

    assert [(m["role"], m["text"][:39]) for m in history] == [
        ("user", "remind me in 10 minutes to stretch"),
        ("assistant", "I'll remind you today at 13:10 (Europe/"),
    ]
    assert history[0]["at"] == "2025-03-10T13:00:00+01:00"
    assert other_chat == []
    assert bad.status_code == 422
