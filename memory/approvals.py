"""Approval requests kept in SQLite: the ``tools.approvals.ApprovalStore`` implementation."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import datetime
from typing import Any

from common import clean_text
from memory._db import Database, Session, from_db_time, to_db_time
from memory._rows import NamedRow
from memory._validate import require_id
from memory.errors import MemoryInputError, MemoryStoreError
from tools import ApprovalRequest, ApprovalStatus, RiskLevel

COLUMNS = (
    "id, user_id, chat_id, tool_name, arguments, call_id, risk_level, status,"
    " created_at, expires_at, decided_by, decided_at, reason"
)
"""The columns ``decode_request`` reads (both databases' tables have them)."""


class ApprovalRepository:
    """Reads and writes the ``approvals`` table."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def save(self, request: ApprovalRequest) -> None:
        """Insert or replace ``request`` (keyed by its id)."""
        require_id(request.id, "approval id")
        require_id(request.user_id, "user_id")
        row = encode_request(request)
        await self._db.write(
            lambda tx: tx.execute(
                f"INSERT OR REPLACE INTO approvals ({COLUMNS})"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                row,
            )
        )

    async def get(self, request_id: str) -> ApprovalRequest | None:
        """Return the request with this id, or ``None``."""
        row = await self._db.fetch_one(
            f"SELECT {COLUMNS} FROM approvals WHERE id = ?", (request_id,)
        )
        return None if row is None else decode_request(row)

    async def decide(
        self, request_id: str, status: ApprovalStatus, by: str, at: datetime
    ) -> ApprovalRequest | None:
        """Move a PENDING request to ``status`` once; ``None`` when it was not pending.

        Approving or denying a request whose ``expires_at`` has passed at ``at`` also returns
        ``None``: it can only become EXPIRED.
        """
        when = to_db_time(at, what="decision time")
        decided = ApprovalStatus(status)
        if decided is ApprovalStatus.PENDING:
            raise MemoryInputError("a decision moves a request out of 'pending', got 'pending'")
        # Only EXPIRED may be set after expires_at; approving late must fail.
        in_time = "" if decided is ApprovalStatus.EXPIRED else " AND expires_at > ?"
        params: tuple[str, ...] = (
            decided.value,
            by,
            when,
            request_id,
            ApprovalStatus.PENDING.value,
        )

        def move(tx: Session) -> sqlite3.Row | None:
            changed = tx.execute(
                "UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?"
                " WHERE id = ? AND status = ?" + in_time,
                params + ((when,) if in_time else ()),
            )
            if changed == 0:
                return None
            return tx.fetch_one(f"SELECT {COLUMNS} FROM approvals WHERE id = ?", (request_id,))

        row = await self._db.write(move)
        return None if row is None else decode_request(row)

    async def for_user(self, user_id: str, status: ApprovalStatus | None) -> list[ApprovalRequest]:
        """Return the user's requests newest first, optionally only those in ``status``."""
        require_id(user_id, "user_id")
        if status is None:
            rows = await self._db.fetch_all(
                f"SELECT {COLUMNS} FROM approvals WHERE user_id = ? ORDER BY created_at DESC, id",
                (user_id,),
            )
        else:
            rows = await self._db.fetch_all(
                f"SELECT {COLUMNS} FROM approvals WHERE user_id = ? AND status = ?"
                " ORDER BY created_at DESC, id",
                (user_id, ApprovalStatus(status).value),
            )
        return [decode_request(row) for row in rows]


def encode_request(request: ApprovalRequest) -> tuple[Any, ...]:
    try:
        arguments = json.dumps(request.arguments, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise MemoryInputError(
            f"the arguments of approval {request.id!r} must be JSON values: {exc}"
        ) from exc
    # The store's own edge: a model writes the call's id and name, and both databases must
    # keep the same text (PostgreSQL refuses a NUL anywhere).
    return (
        request.id,
        request.user_id,
        clean_text(request.chat_id),
        clean_text(request.tool_name),
        arguments,
        clean_text(request.call_id),
        RiskLevel(request.risk_level).value,
        ApprovalStatus(request.status).value,
        to_db_time(request.created_at, what="created_at"),
        to_db_time(request.expires_at, what="expires_at"),
        request.decided_by,
        None if request.decided_at is None else to_db_time(request.decided_at, what="decided_at"),
        clean_text(request.reason),
    )


def decode_request(
    row: NamedRow, instant: Callable[[Any], datetime] = from_db_time
) -> ApprovalRequest:
    """The request in a row of ``COLUMNS``, its instants read with ``instant`` (from
    SQLite's text by default)."""
    arguments = json.loads(row["arguments"])
    if not isinstance(arguments, dict):
        raise MemoryStoreError(f"approval {row['id']!r} holds arguments that are not an object")
    return ApprovalRequest(
        id=str(row["id"]),
        tool_name=str(row["tool_name"]),
        arguments=arguments,
        user_id=str(row["user_id"]),
        chat_id=str(row["chat_id"]),
        created_at=instant(row["created_at"]),
        expires_at=instant(row["expires_at"]),
        call_id=str(row["call_id"]),
        risk_level=RiskLevel(row["risk_level"]),
        status=ApprovalStatus(row["status"]),
        decided_by=row["decided_by"],
        decided_at=None if row["decided_at"] is None else instant(row["decided_at"]),
        reason=str(row["reason"] or ""),
    )
