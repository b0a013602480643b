"""The red team's attacks on the HTTP API, replayed as they were written (issue 24): text that
is not text, a message longer than the planner reads, a database outage mid-conversation.

Each test is one attack against the real front end (uvicorn on 127.0.0.1, httpx as the
attacker) and says what held.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from agent.llm import ScriptedBackend
from tests.interfaces.web.harness import ALICE_TOKEN, running_web
from tests.tcp_proxy import TcpProxy


async def test_a_lone_surrogate_in_a_json_body_is_a_422_not_a_500_with_tracebacks(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with running_web(tmp_path) as web, web.client() as client:
        chat = await client.post(
            "/agent/chat",
            content=b'{"message": "a \\ud800 b"}',
            headers={"Content-Type": "application/json"},
        )
        stream = await client.post(
            "/agent/stream",
            content=b'{"threadId": "t", "messages": [{"role": "user", "content": "a \\udfff"}]}',
            headers={"Content-Type": "application/json"},
        )
        nul = await client.post("/agent/chat", json={"message": "a \x00 b"})
        fine = await client.post("/agent/chat", json={"message": "note: smile \U0001f600"})

    assert chat.status_code == 422, chat.text
    [error] = chat.json()["detail"]
    assert error["loc"] == ["body", "message"] and "lone UTF-16 surrogate" in error["msg"]
    assert stream.status_code == 422 and "lone UTF-16 surrogate" in stream.text
    assert nul.status_code == 422 and "NUL character (U+0000) at position 2" in nul.text
    assert fine.status_code == 200
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


async def test_the_api_takes_as_long_a_message_as_the_planner_reads_and_says_so(
    tmp_path: Path,
) -> None:
    async with (
        running_web(tmp_path, ASSISTANT_MAX_MESSAGE_CHARS=500) as web,
        web.client() as client,
    ):
        me = (await client.get("/me")).json()
        longest = await client.post("/agent/chat", json={"message": "hello " + "x" * 494})
        over = await client.post("/agent/chat", json={"message": "x" * 501})
        streamed = await client.post("/agent/stream", json={"message": "x" * 501})
    assert me["max_message_chars"] == 500
    assert longest.status_code == 200  # the planner reads it (and says what it understood)
    assert "I read up to" not in longest.json()["reply"]
    [error] = over.json()["detail"]
    assert over.status_code == 422 and streamed.status_code == 422
    assert error["msg"].startswith("the message is 501 characters long; the assistant reads up")
    assert "up to 500 (ASSISTANT_MAX_MESSAGE_CHARS)" in error["msg"]


async def test_the_default_limit_is_the_one_the_planner_states(tmp_path: Path) -> None:
    async with running_web(tmp_path) as web, web.client() as client:
        me = (await client.get("/me")).json()
        over = await client.post("/agent/chat", json={"message": "x" * 4001})
    assert me["max_message_chars"] == 4000
    assert "reads up to 4000" in over.text


async def test_a_database_outage_during_a_chat_is_a_503_with_retry_after_not_a_500(
    tmp_path: Path, postgres_url: str
) -> None:
    server = urlsplit(postgres_url)
    proxy = TcpProxy(server.hostname or "127.0.0.1", server.port or 5432)
    await proxy.start()
    through = postgres_url.replace(f":{server.port}/", f":{proxy.port}/")
    try:
        async with (
            running_web(tmp_path, ASSISTANT_DATABASE_URL=through) as web,
            web.client() as client,
        ):
            before = await client.post("/agent/chat", json={"message": "note: one"})
            await proxy.cut()
            during = await client.post("/agent/chat", json={"message": "note: two"})
            tasks = await client.get("/tasks")
            notes = await client.get("/notes")
            await proxy.restore()
            after = await client.post("/agent/chat", json={"message": "note: three"})
    finally:
        await proxy.cut()
    assert before.status_code == 200
    for response in (during, tasks, notes):
        assert response.status_code == 503, response.text
        assert response.headers["retry-after"] == "5"
        assert "database cannot be reached" in response.json()["detail"]
    assert after.status_code == 200, after.text


async def _half_head(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    await writer.drain()
    return reader, writer


async def _answer(reader: asyncio.StreamReader, within: float) -> bytes:
    """Everything the server sent until it closed the connection."""
    got = b""
    async with asyncio.timeout(within):
        with contextlib.suppress(ConnectionError):
            while chunk := await reader.read(4096):
                got += chunk
    return got


async def test_half_sent_request_heads_are_answered_408_and_closed_not_held(
    tmp_path: Path,
) -> None:
    async with running_web(tmp_path, ASSISTANT_WEB_HEAD_TIMEOUT=1) as web:
        port = web.front.server.port
        opened = time.monotonic()
        slow = [await _half_head(port) for _ in range(200)]
        async with web.client(None) as client:
            served = await client.get("/health")  # the others keep being served meanwhile
        answers = await asyncio.gather(*(_answer(reader, 10) for reader, _ in slow))
        closed_after = time.monotonic() - opened
        for _, writer in slow:
            writer.close()
        # A head that is on its way but slow (a byte every 0.1 s) is cut off all the same.
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        head = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + b"x" * 40
        dripped = 0
        try:
            for byte in head:
                writer.write(bytes([byte]))
                await writer.drain()
                dripped += 1
                await asyncio.sleep(0.1)
                if reader.at_eof():
                    break
        except ConnectionError:
            pass  # cut off while writing
        writer.close()
    assert served.status_code == 200
    assert len(answers) == 200
    for answer in answers:
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:80]
        assert b"the request's head did not arrive within 1 s" in answer
    assert closed_after < 8  # every one closed after its second, not held for a minute
    assert dripped < len(head)  # closed after about a second, not when the head ended


async def test_a_slow_body_is_cut_off_and_connections_beyond_the_cap_are_refused(
    tmp_path: Path,
) -> None:
    async with running_web(
        tmp_path, ASSISTANT_WEB_BODY_TIMEOUT=1, ASSISTANT_WEB_MAX_CONNECTIONS=20
    ) as web:
        port = web.front.server.port
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            b"POST /agent/chat HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + ALICE_TOKEN.encode()
            + b'\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"mess'
        )
        await writer.drain()
        body_answer = await _answer(reader, 10)
        writer.close()

        held = [await asyncio.open_connection("127.0.0.1", port) for _ in range(20)]
        late = [await asyncio.open_connection("127.0.0.1", port) for _ in range(5)]
        refused = await asyncio.gather(*(_answer(r, 10) for r, _ in late))
        for _, w in held + late:
            w.close()
        await asyncio.sleep(0)  # the server sees them go
        async with web.client(None) as client:
            for _ in range(50):  # closed connections leave the count as the loop notices
                after = await client.get("/health")
                if after.status_code == 200:
                    break
    assert body_answer.startswith(b"HTTP/1.1 408 ")
    assert b"the request's body did not arrive within 1 s" in body_answer
    for answer in refused:
        assert answer.startswith(b"HTTP/1.1 503 "), answer[:80]
        assert b"20 connections already (ASSISTANT_WEB_MAX_CONNECTIONS)" in answer
    assert after.status_code == 200


def _fence(name: str, **args: object) -> str:
    return f"```json\n{json.dumps({'tool': name, 'args': args})}\n```"


async def _page_server(body: bytes) -> asyncio.Server:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body
        )
        await writer.drain()
        writer.close()

    return await asyncio.start_server(answer, "127.0.0.1", 0)


async def test_a_page_and_a_model_reply_holding_a_nul_are_stored_on_postgresql(
    tmp_path: Path, postgres_url: str
) -> None:
    async with await _page_server(b"the page\x00 text") as pages:
        port = pages.sockets[0].getsockname()[1]
        backend = ScriptedBackend(
            [
                _fence("fetch_url", url=f"http://127.0.0.1:{port}/page"),
                _fence("save_note", content="from the page:\x00 the page text"),
                "Saved.\x00 The page says: the page text",
            ]
        )
        async with (
            running_web(
                tmp_path,
                backend=backend,
                ASSISTANT_DATABASE_URL=postgres_url,
                ASSISTANT_HTTP_ALLOW_HOSTS="127.0.0.1",
            ) as web,
            web.client() as client,
        ):
            chat = await client.post("/agent/chat", json={"message": "keep what that page says"})
            # A change after outside content asks first (issue 24).
            [pending] = chat.json()["approvals"]
            saved = await client.post(f"/approvals/{pending['id']}/approve")
            history = await client.get("/history")
            notes = await client.get("/notes")
    assert chat.status_code == 200, chat.text
    assert [r["status"] for r in chat.json()["tool_results"]] == ["ok", "pending_approval"]
    assert saved.status_code == 200, saved.text
    assert saved.json()["reply"] == "Saved. The page says: the page text"
    assert history.status_code == 200 and "\x00" not in history.text
    assert [n["content"] for n in notes.json()] == ["from the page: the page text"]


async def test_health_is_not_ok_while_runs_start_seconds_late(tmp_path: Path) -> None:
    async with running_web(tmp_path) as web, web.client() as client:
        await client.post("/agent/chat", json={"message": "remind me every minute to stand up"})
        ok = await client.get("/health")
        web.clock.advance(timedelta(minutes=1, seconds=4.8))  # the scheduler fell behind
        await web.run_due()
        await web.front.app.tasks.wait_idle()
        late = await client.get("/health")
        web.clock.advance(timedelta(seconds=55.2))  # the next run, on time
        await web.run_due()
        remembered = await client.get("/health")  # the late one counts for a minute
        web.clock.advance(timedelta(minutes=1))  # and the next, on time again
        await web.run_due()
        again = await client.get("/health")
    assert ok.status_code == 200 and ok.json()["late_seconds"] == 0
    assert late.status_code == 503, late.json()
    assert late.json()["status"] == "degraded" and late.json()["late_seconds"] == 4.8
    assert late.json()["max_late_seconds"] == 2 and late.json()["overdue"] == 0
    assert remembered.status_code == 503 and remembered.json()["late_seconds"] == 4.8
    assert again.status_code == 200 and again.json()["late_seconds"] == 0
