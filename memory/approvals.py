"""Approval requests: the ``tools.ApprovalStore`` records, in either database, decided once."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from common import clean_text
from memory._rows import NamedRow
from memory._validate import require_id
from memory.errors import MemoryInputError, MemoryStoreError
from memory.sql import Database, Dialect, single
from tools import ApprovalRequest, ApprovalStatus, RiskLevel

COLUMNS = (
    "id, user_id, chat_id, tool_name, arguments, call_id, risk_level, status,"
    " created_at, expires_at, decided_by, decided_at, reason"
)
"""The columns ``decode_request`` reads (both databases' tables have them)."""


_UPSERT = (
    f"INSERT INTO approvals ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, chat_id = excluded.chat_id,"
    " tool_name = excluded.tool_name, arguments = excluded.arguments,"
    " call_id = excluded.call_id, risk_level = excluded.risk_level, status = excluded.status,"
    " created_at = excluded.created_at, expires_at = excluded.expires_at,"
    " decided_by = excluded.decided_by, decided_at = excluded.decided_at,"
    " reason = excluded.reason"
)


class ApprovalRepository:
    """Reads and writes the ``approvals`` table."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._d = db.dialect

    async def save(self, request: ApprovalRequest) -> None:
        """Insert or replace ``request`` (keyed by its id)."""
        require_id(request.id, "approval id")
        require_id(request.user_id, "user_id")
        row = encode_request(request, self._d)
        await self._db.write(single(self._d.statement(_UPSERT, *row)))

    async def get(self, request_id: str) -> ApprovalRequest | None:
        """Return the request with this id, or ``None``."""
        statement = self._d.statement(
            f"SELECT {COLUMNS} FROM approvals WHERE id = ?", request_id, want="one"
        )
        row = await self._db.read(single(statement))
        return None if row is None else decode_request(row, self._d)

    async def decide(
        self, request_id: str, status: ApprovalStatus, by: str, at: datetime
    ) -> ApprovalRequest | None:
        """Move a PENDING request to ``status`` once; ``None`` when it was not pending.

        One UPDATE guarded by the status decides, so of two racing deciders (in any number
        of processes) exactly one wins. Approving or denying a request whose ``expires_at``
        has passed at ``at`` also returns ``None``: it can only become EXPIRED.
        """
        when = self._d.time(at, what="decision time")
        decided = ApprovalStatus(status)
        if decided is ApprovalStatus.PENDING:
            raise MemoryInputError("a decision moves a request out of 'pending', got 'pending'")
        # Only EXPIRED may be set after expires_at; approving late must fail.
        in_time = "" if decided is ApprovalStatus.EXPIRED else " AND expires_at > ?"
        statement = self._d.statement(
            "UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?"
            f" WHERE id = ? AND status = 'pending'{in_time} RETURNING {COLUMNS}",
            decided.value, by, when, request_id, *((when,) if in_time else ()), want="one",
        )  # fmt: skip
        row = await self._db.write(single(statement))
        return None if row is None else decode_request(row, self._d)

    async def for_user(self, user_id: str, status: ApprovalStatus | None) -> list[ApprovalRequest]:
        """Return the user's requests newest first, optionally only those in ``status``."""
        require_id(user_id, "user_id")
        wanted = () if status is None else (ApprovalStatus(status).value,)
        statement = self._d.statement(
            f"SELECT {COLUMNS} FROM approvals WHERE user_id = ?"
            f"{'' if status is None else ' AND status = ?'} ORDER BY created_at DESC, id",
            user_id, *wanted, want="all",
        )  # fmt: skip
        rows = await self._db.read(single(statement))
        return [decode_request(row, self._d) for row in rows]


def encode_request(request: ApprovalRequest, d: Dialect) -> tuple[Any, ...]:
    """The row of ``COLUMNS`` that keeps ``request``.

    Raises:
        MemoryInputError: for arguments that are not JSON values or a naive time.
    """
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
        d.time(request.created_at, what="created_at"),
        d.time(request.expires_at, what="expires_at"),
        request.decided_by,
        None if request.decided_at is None else d.time(request.decided_at, what="decided_at"),
        clean_text(request.reason),
    )


def decode_request(row: NamedRow, d: Dialect) -> ApprovalRequest:
    """The request in a row of ``COLUMNS``."""
    arguments = json.loads(row["arguments"])
    if not isinstance(arguments, dict):
        raise MemoryStoreError(f"approval {row['id']!r} holds arguments that are not an object")
    return ApprovalRequest(
        id=str(row["id"]),
        tool_name=str(row["tool_name"]),
        arguments=arguments,
        user_id=str(row["user_id"]),
        chat_id=str(row["chat_id"]),
        created_at=d.read_time(row["created_at"]),
        expires_at=d.read_time(row["expires_at"]),
        call_id=str(row["call_id"]),
        risk_level=RiskLevel(row["risk_level"]),
        status=ApprovalStatus(row["status"]),
        decided_by=row["decided_by"],
        decided_at=None if row["decided_at"] is None else d.read_time(row["decided_at"]),
        reason=str(row["reason"] or ""),
    )
