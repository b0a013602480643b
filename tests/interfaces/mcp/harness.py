"""The SDK's own MCP client against the assistant: ``assistant mcp`` as a child process on
stdio, and ``/mcp`` of the web front end served by uvicorn on 127.0.0.1.

The child gets the SDK's allow-listed environment plus what these helpers pass: its data
directory, Berlin time, no model and no Telegram; it runs in the data directory, so no
``.env`` of the developer's is read.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent, TextResourceContents

from tests.interfaces.web.harness import ALICE_TOKEN, Web

STDIO_ENV = {
    "ASSISTANT_TIMEZONE": "Europe/Berlin",
    "ASSISTANT_LLM_BASE_URL": "",
    "TELEGRAM_BOT_TOKEN": "",
}


def stdio_server(data_dir: Path, *args: str, **env: str) -> StdioServerParameters:
    """``assistant mcp ARGS`` on ``data_dir`` (``env``: more settings by variable name)."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "assistant.cli", "mcp", *args],
        env={**STDIO_ENV, "ASSISTANT_DATA_DIR": str(data_dir), **env},
        cwd=data_dir,
    )


@asynccontextmanager
async def stdio_client(data_dir: Path, *args: str, **env: str) -> AsyncIterator[Client]:
    """A connected client of ``assistant mcp ARGS`` on ``data_dir``."""
    async with Client(stdio_server(data_dir, *args, **env)) as client:
        yield client


@asynccontextmanager
async def http_client(web: Web, token: str | None = ALICE_TOKEN) -> AsyncIterator[Client]:
    """A connected client of the web front end's ``/mcp``, sending ``token``."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{web.url}/mcp", http_client=http)) as client,
    ):
        yield client


def text_of(result: CallToolResult) -> str:
    """The text of a tool result (one text block)."""
    [block] = result.content
    assert isinstance(block, TextContent), block
    return block.text


def structured(result: CallToolResult) -> dict[str, Any]:
    """The structured content of a tool result."""
    assert result.structured_content is not None, text_of(result)
    return dict(result.structured_content)


def ok(result: CallToolResult) -> dict[str, Any]:
    """What a call that ran returned (its ``result``), after checking that it ran."""
    return _part(result, "ok", "result")


def pending(result: CallToolResult) -> dict[str, Any]:
    """The request a call waits on, after checking that it waits and nothing ran."""
    return _part(result, "pending_approval", "approval")


def _part(result: CallToolResult, status: str, key: str) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    content = structured(result)
    assert content["status"] == status, content
    found: dict[str, Any] = content[key]
    return found


async def upcoming(client: Client) -> list[dict[str, Any]]:
    """The caller's upcoming tasks, as the resource ``tasks://upcoming`` has them."""
    [contents] = (await client.read_resource("tasks://upcoming")).contents
    assert isinstance(contents, TextResourceContents), contents
    assert contents.mime_type == "application/json"
    rows: list[dict[str, Any]] = json.loads(contents.text)
    return rows
