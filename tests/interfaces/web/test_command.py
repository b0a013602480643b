"""``assistant web`` as a person starts it: a process that serves until SIGTERM."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import httpx

from tests.interfaces.web.harness import ALICE_TOKEN, TOKENS

WITHIN = 60  # seconds: a bound on the start of a fresh Python process, never waited out


async def test_assistant_web_serves_until_sigterm(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "ASSISTANT_DATA_DIR": str(tmp_path),
        "ASSISTANT_TIMEZONE": "Europe/Berlin",
        "ASSISTANT_LLM_BASE_URL": "",
        "ASSISTANT_API_TOKENS": TOKENS,
        "TELEGRAM_BOT_TOKEN": "",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "assistant.cli", "web", "--port", "0",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env, cwd=tmp_path,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        ready = (await asyncio.wait_for(process.stdout.readline(), WITHIN)).decode()
        assert ready.startswith("ready: http://127.0.0.1:"), ready
        url = ready.split()[1]
        async with httpx.AsyncClient(base_url=url) as client:
            health = await client.get("/health")
            refused = await client.get("/tasks")
            chat = await client.post(
                "/agent/chat",
                json={"message": "remind me in 10 minutes to stretch"},
                headers={"Authorization": f"Bearer {ALICE_TOKEN}"},
            )
    finally:
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), WITHIN)
    assert health.status_code == 200 and health.json()["scheduler_running"]
    assert refused.status_code == 401
    assert "I'll remind you today at" in chat.json()["reply"]
    assert code == 0


async def _start(tmp_path: Path, tokens: str, *args: str) -> asyncio.subprocess.Process:
    env = {
        **os.environ,
        "ASSISTANT_DATA_DIR": str(tmp_path),
        "ASSISTANT_TIMEZONE": "Europe/Berlin",
        "ASSISTANT_LLM_BASE_URL": "",
        "ASSISTANT_API_TOKENS": tokens,
        "TELEGRAM_BOT_TOKEN": "",
    }
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "assistant.cli", "web", "--port", "0", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env, cwd=tmp_path,
    )  # fmt: skip


async def test_tokens_served_beyond_this_machine_in_plain_http_get_a_warning(
    tmp_path: Path,
) -> None:
    process = await _start(tmp_path, TOKENS, "--host", "0.0.0.0")
    try:
        assert process.stdout is not None and process.stderr is not None
        ready = (await asyncio.wait_for(process.stdout.readline(), WITHIN)).decode()
        warning = (await asyncio.wait_for(process.stderr.readline(), WITHIN)).decode()
    finally:
        process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(process.wait(), WITHIN)
    assert ready.startswith("ready: http://0.0.0.0:"), ready
    assert warning.startswith("warning: http://0.0.0.0:")
    assert "crosses the network in clear" in warning and "TLS proxy" in warning
    assert code == 0


async def test_a_token_that_is_easy_to_guess_stops_the_start_and_says_why(
    tmp_path: Path,
) -> None:
    process = await _start(tmp_path, "aaaaaaaaaaaaaaaa:alice")
    out, err = await asyncio.wait_for(process.communicate(), WITHIN)
    assert process.returncode != 0 and out == b""
    said = err.decode()
    assert "entry 1 of ASSISTANT_API_TOKENS: the token is too easy to guess" in said
    assert "ASSISTANT_API_TOKEN_MIN_BITS" in said and "secrets.token_urlsafe(32)" in said
    assert "aaaaaaaaaaaaaaaa" not in said  # never quoted
    assert "Traceback" not in said
