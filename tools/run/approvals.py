"""Where pending approval requests are kept: a pluggable store."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Protocol

from tools.calls import ApprovalRequest, ApprovalStatus


class ApprovalStore(Protocol):
    """Keeps approval requests. The SQLite implementation lives in ``memory``."""

    async def save_approval(self, request: ApprovalRequest) -> None:
        """Insert or replace ``request`` (keyed by its id)."""
        ...

    async def get_approval(self, request_id: str) -> ApprovalRequest | None:
        """Return the request with this id, or ``None``."""
        ...

    async def decide_approval(
        self, request_id: str, status: ApprovalStatus, by: str, at: datetime
    ) -> ApprovalRequest | None:
        """Atomically move a PENDING request to ``status``.

        Returns the updated request, or ``None`` when it was not pending (so a request can
        be decided once only, even by two processes racing).
        """
        ...

    async def list_approvals(
        self, user_id: str, *, status: ApprovalStatus | None = ApprovalStatus.PENDING
    ) -> list[ApprovalRequest]:
        """Return the user's requests, newest first, optionally filtered by status."""
        ...


class InMemoryApprovalStore:
    """An ``ApprovalStore`` held in a dict; for tests and for running without a database."""

    def __init__(self) -> None:
        self._requests: dict[str, ApprovalRequest] = {}

    async def save_approval(self, request: ApprovalRequest) -> None:
        self._requests[request.id] = request

    async def get_approval(self, request_id: str) -> ApprovalRequest | None:
        return self._requests.get(request_id)

    async def decide_approval(
        self, request_id: str, status: ApprovalStatus, by: str, at: datetime
    ) -> ApprovalRequest | None:
        current = self._requests.get(request_id)
        if current is None or current.status is not ApprovalStatus.PENDING:
            return None
        decided = replace(current, status=status, decided_by=by, decided_at=at)
        self._requests[request_id] = decided
        return decided

    async def list_approvals(
        self, user_id: str, *, status: ApprovalStatus | None = ApprovalStatus.PENDING
    ) -> list[ApprovalRequest]:
        mine = [
            r
            for r in self._requests.values()
            if r.user_id == user_id and (status is None or r.status is status)
        ]
        return sorted(mine, key=lambda r: r.created_at, reverse=True)
