"""The memory tables as ``assistant migrate`` copies them from SQLite (``common.copying``).

The full-text columns are not copied: PostgreSQL computes them from the text.
"""

from __future__ import annotations

from common import TableCopy, flag, instant

MEMORY_TABLES = (
    TableCopy("users", ("user_id", "timezone", "created_at"), {"created_at": instant}),
    TableCopy("user_settings", ("user_id", "key", "value")),
    TableCopy(
        "conversation_turns",
        ("id", "user_id", "chat_id", "chars", "archived", "created_at"),
        {"archived": flag, "created_at": instant},
        identity="id",
    ),
    TableCopy(
        "conversation_messages",
        ("id", "turn_id", "seq", "role", "content", "tool_calls", "tool_call_id", "name"),
        identity="id",
    ),
    TableCopy(
        "notes",
        ("id", "user_id", "number", "content", "tags", "created_at"),
        {"created_at": instant},
        identity="id",
    ),
    TableCopy(
        "approvals",
        (
            "id", "user_id", "chat_id", "tool_name", "arguments", "call_id", "risk_level",
            "status", "created_at", "expires_at", "decided_by", "decided_at", "reason",
        ),
        {"created_at": instant, "expires_at": instant, "decided_at": instant},
    ),
    TableCopy("calendar_feeds", ("user_id", "token_hash", "created_at"), {"created_at": instant}),
    TableCopy(
        "calendar_links",
        ("user_id", "uid", "task_id", "href", "etag", "local_state", "remote_state", "conflict",
         "updated_at"),
        {"updated_at": instant},
    ),
    TableCopy(
        "calendar_sources",
        ("user_id", "name", "url", "ics", "fetched_at", "error"),
        {"fetched_at": instant},
    ),
)  # fmt: skip
"""In the order they are copied (settings refer to users, messages to turns)."""
