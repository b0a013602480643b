"""Approval requests in PostgreSQL: the ``tools.ApprovalStore`` records, decided once."""

from __future__ import annotations

from datetime import datetime

from common import PgConnection, PostgresDatabase
from memory._db import from_db_time, to_db_time
from memory._validate import require_id
from memory.approvals import COLUMNS, decode_request, encode_request
from memory.errors import MemoryInputError
from tools import ApprovalRequest, ApprovalStatus

_UPSERT = (
    f"INSERT INTO approvals ({COLUMNS})"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
    " ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, chat_id = excluded.chat_id,"
    " tool_name = excluded.tool_name, arguments = excluded.arguments,"
    " call_id = excluded.call_id, risk_level = excluded.risk_level, status = excluded.status,"
    " created_at = excluded.created_at, expires_at = excluded.expires_at,"
    " decided_by = excluded.decided_by, decided_at = excluded.decided_at,"
    " reason = excluded.reason"
)


class PgApprovalRepository:
    """Reads and writes the ``approvals`` table."""

    def __init__(self, db: PostgresDatabase) -> None:
        self._db = db

    async def save(self, request: ApprovalRequest) -> None:
        """Insert or replace ``request`` (keyed by its id)."""
        require_id(request.id, "approval id")
        require_id(request.user_id, "user_id")
        # The SQLite encoding checks the values (JSON arguments, aware times); its stored
        # times are read back as instants.
        row = list(encode_request(request))
        for index in (8, 9, 11):
            row[index] = None if row[index] is None else from_db_time(row[index])

        async def upsert(conn: PgConnection) -> None:
            await conn.execute(_UPSERT, *row)

        await self._db.write(upsert)

    async def get(self, request_id: str) -> ApprovalRequest | None:
        """Return the request with this id, or ``None``."""

        async def read(conn: PgConnection) -> ApprovalRequest | None:
            row = await conn.fetchrow(f"SELECT {COLUMNS} FROM approvals WHERE id = $1", request_id)
            return None if row is None else decode_request(row, _instant)

        return await self._db.read(read)

    async def decide(
        self, request_id: str, status: ApprovalStatus, by: str, at: datetime
    ) -> ApprovalRequest | None:
        """Move a PENDING request to ``status`` once; ``None`` when it was not pending.

        One UPDATE guarded by the status decides, so of two racing deciders (in any number
        of processes) exactly one wins. Approving or denying a request whose ``expires_at``
        has passed at ``at`` also returns ``None``: it can only become EXPIRED.
        """
        when = from_db_time(to_db_time(at, what="decision time"))
        decided = ApprovalStatus(status)
        if decided is ApprovalStatus.PENDING:
            raise MemoryInputError("a decision moves a request out of 'pending', got 'pending'")
        in_time = "" if decided is ApprovalStatus.EXPIRED else " AND expires_at > $3"

        async def move(conn: PgConnection) -> ApprovalRequest | None:
            row = await conn.fetchrow(
                "UPDATE approvals SET status = $1, decided_by = $2, decided_at = $3"
                f" WHERE id = $4 AND status = 'pending'{in_time} RETURNING {COLUMNS}",
                decided.value, by, when, request_id,
            )  # fmt: skip
            return None if row is None else decode_request(row, _instant)

        return await self._db.write(move)

    async def for_user(self, user_id: str, status: ApprovalStatus | None) -> list[ApprovalRequest]:
        """Return the user's requests newest first, optionally only those in ``status``."""
        require_id(user_id, "user_id")
        wanted = None if status is None else ApprovalStatus(status).value

        async def read(conn: PgConnection) -> list[ApprovalRequest]:
            rows = await conn.fetch(
                f"SELECT {COLUMNS} FROM approvals WHERE user_id = $1"
                " AND ($2::text IS NULL OR status = $2) ORDER BY created_at DESC, id",
                user_id,
                wanted,
            )
            return [decode_request(row, _instant) for row in rows]

        return await self._db.read(read)


def _instant(value: datetime) -> datetime:
    return value  # timestamptz comes back as an aware datetime
