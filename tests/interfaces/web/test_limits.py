"""Limits per user, replayed as the red team wrote the attacks (issue 24, item 7).

One user made 100,000 tasks in 108 s (1,000 ``add_reminder`` calls in one model reply), and
1,000 notes of 20,000 characters in one message; ``GET /tasks`` returned all 100,000 at
once. Here the same model replies meet the limits: calls per reply, tasks and notes per user
(count and bytes), the shortest interval per task type, turns and event streams per user, and
listings a page at a time. Every refusal says which limit and which setting raises it; other
users are never refused for one user's flood.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agent.llm import ChatMessage, ScriptedBackend
from tests.interfaces.web.harness import BOB_TOKEN, HeldBackend, Web, running_web


def fences(name: str, calls: Sequence[dict[str, Any]]) -> str:
    """A model reply making ``calls`` of ``name`` as fenced JSON (the text contract)."""
    return "\n".join(f"```json\n{json.dumps({'tool': name, 'args': args})}\n```" for args in calls)


def flood(name: str, calls: Sequence[dict[str, Any]], answer: str) -> ScriptedBackend:
    """A model that answers every request with the flood of calls once, then ``answer``."""

    def reply(messages: Sequence[ChatMessage]) -> str:
        return answer if messages[-1].role.value == "tool" else fences(name, calls)

    return ScriptedBackend(reply)


async def say(web: Web, text: str, token: str | None = None) -> dict[str, Any]:
    async with web.client(token) if token else web.client() as client:
        response = await client.post("/agent/chat", json={"message": text})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_a_thousand_reminders_in_one_reply_set_ten_and_the_task_limit_holds(
    tmp_path: Path,
) -> None:
    reminders = [{"when": f"in {m + 1} minutes", "message": f"r{m}"} for m in range(1000)]
    backend = flood("add_reminder", reminders, "Done.")
    async with running_web(tmp_path, backend=backend, ASSISTANT_MAX_TASKS_PER_USER=25) as web:
        first = await say(web, "remind me a thousand times")
        for _ in range(2):
            await say(web, "again")
        third = await say(web, "again")
        theirs = await say(web, "remind me in 5 minutes to stretch", token=BOB_TOKEN)
        async with web.client() as client:
            page = await client.get("/tasks", params={"limit": 10})
            following = await client.get(page.links["next"]["url"])
            rest = await client.get("/tasks", params={"limit": 10, "offset": 20})
            everything = await client.get("/tasks")

    statuses = [r["status"] for r in first["tool_results"]]
    # (The parser reads the calls of a reply up to its own budget: hundreds, not all.)
    assert len(statuses) > 100
    assert statuses == ["ok"] * 10 + ["invalid"] * (len(statuses) - 10)
    refused = first["tool_results"][10]["output"]
    assert "at most 10 tool calls (ASSISTANT_MAX_CALLS_PER_REPLY)" in refused
    assert f"this one made {len(statuses)}" in refused
    # Two more replies fill the 25 places; the next calls are refused with the reason.
    outputs = [r["output"] for r in third["tool_results"][:10]]
    assert all("ASSISTANT_MAX_TASKS_PER_USER=25" in o for o in outputs), outputs
    assert "cancel some you no longer need" in outputs[0]
    # Bob's model floods too: his first ten run; alice's full list refuses him nothing.
    assert [r["status"] for r in theirs["tool_results"]][:10] == ["ok"] * 10
    assert len(page.json()) == 10 and len(following.json()) == 10 and len(rest.json()) == 5
    assert page.links["next"]["url"] == "/tasks?offset=10&limit=10"
    assert "next" not in rest.links
    assert len(everything.json()) == 25


async def test_a_thousand_long_notes_in_one_reply_meet_the_calls_and_the_bytes_limits(
    tmp_path: Path,
) -> None:
    notes = [{"content": f"{n:04d} " + "x" * 19_995} for n in range(1000)]
    backend = flood("save_note", notes, "Saved.")
    async with running_web(
        tmp_path, backend=backend, ASSISTANT_MAX_NOTE_BYTES_PER_USER=100_000
    ) as web:
        reply = await say(web, "keep these")
        async with web.client() as client:
            kept = await client.get("/notes", params={"limit": 500})
        theirs = await say(web, "keep mine", token=BOB_TOKEN)

    statuses = [r["status"] for r in reply["tool_results"]]
    assert statuses[:5] == ["ok"] * 5
    assert statuses[10:] == ["invalid"] * (len(statuses) - 10) and len(statuses) > 10
    sixth = reply["tool_results"][5]["output"]
    assert "ASSISTANT_MAX_NOTE_BYTES_PER_USER" in sixth and "100,000" in sixth
    assert len(kept.json()) == 5
    # Bob's model floods too: his first five are kept; alice's full notes refuse him nothing.
    assert [r["status"] for r in theirs["tool_results"]][:6] == ["ok"] * 5 + ["error"]


async def test_the_note_count_limit_is_said_with_its_setting(tmp_path: Path) -> None:
    async with running_web(tmp_path, ASSISTANT_MAX_NOTES_PER_USER=2) as web:
        for n in range(2):
            await say(web, f"note: number {n}")
        third = await say(web, "note: number 2")
    assert "ASSISTANT_MAX_NOTES_PER_USER=2" in third["reply"], third["reply"]


async def test_every_second_is_refused_unless_the_minimum_is_lowered(tmp_path: Path) -> None:
    async with running_web(tmp_path) as web:
        refused = await say(web, "remind me every second to blink")
        minute = await say(web, "remind me every minute to blink")
        async with web.client() as client:
            listed = (await client.get("/tasks")).json()
    assert "at most once every minute (ASSISTANT_MIN_INTERVAL)" in refused["reply"], refused
    assert [t["description"] for t in listed] == ["blink"]
    assert "every minute" in minute["reply"]
    async with running_web(tmp_path / "raised", ASSISTANT_MIN_INTERVAL="1") as web:
        allowed = await say(web, "remind me every second to blink")
    assert "ASSISTANT_MIN_INTERVAL" not in allowed["reply"]
    assert "every second" in allowed["reply"]


async def test_turns_beyond_the_limit_get_429_with_the_reason_and_others_go_on(
    tmp_path: Path,
) -> None:
    backend = HeldBackend()
    async with (
        running_web(tmp_path, backend=backend, ASSISTANT_MAX_TURNS_PER_USER=2) as web,
        web.client() as alice,
        web.client(BOB_TOKEN) as bob,
    ):
        held = [
            asyncio.create_task(
                alice.post("/agent/chat", json={"message": "think", "chat_id": f"c{n}"})
            )
            for n in range(2)
        ]
        await backend.until_waiting(2)
        third = await alice.post("/agent/chat", json={"message": "and this", "chat_id": "c3"})
        streamed = await alice.post("/agent/stream", json={"message": "and this"})
        bobs = asyncio.create_task(bob.post("/agent/chat", json={"message": "hello"}))
        await backend.until_waiting(3)
        backend.release.set()
        answers = await asyncio.gather(*held, bobs)
        after = await alice.post("/agent/chat", json={"message": "now"})

    assert third.status_code == 429 and streamed.status_code == 429
    assert third.headers["retry-after"] == "1"
    detail = third.json()["detail"]
    assert detail.startswith("you have 2 turns running already")
    assert "ASSISTANT_MAX_TURNS_PER_USER=2" in detail
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert after.status_code == 200


async def test_event_streams_per_user_are_capped_and_given_back_when_closed(
    tmp_path: Path,
) -> None:
    async with (
        running_web(tmp_path, ASSISTANT_MAX_EVENT_STREAMS=3) as web,
        web.client() as client,
        web.client(BOB_TOKEN) as bob,
    ):
        streams = [client.stream("GET", "/events") for _ in range(3)]
        opened = [await s.__aenter__() for s in streams]
        fourth = await client.get("/events")
        bobs = bob.stream("GET", "/events")
        bob_open = await bobs.__aenter__()
        await streams[0].__aexit__(None, None, None)
        again = None
        for _ in range(200):  # the server notices the closed stream
            attempt = client.stream("GET", "/events")
            response = await attempt.__aenter__()
            if response.status_code == 200:
                again = attempt
                break
            await attempt.__aexit__(None, None, None)
            await asyncio.sleep(0.01)
        for s in (*streams[1:], bobs, *([again] if again else [])):
            await s.__aexit__(None, None, None)

    assert [o.status_code for o in opened] == [200, 200, 200]
    assert fourth.status_code == 429
    assert "3 event streams open already" in fourth.json()["detail"]
    assert "ASSISTANT_MAX_EVENT_STREAMS=3" in fourth.json()["detail"]
    assert bob_open.status_code == 200
    assert again is not None
