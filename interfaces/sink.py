"""A notifier that appends deliveries to a JSON Lines file (headless servers, tests)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from datetime import UTC, datetime
from pathlib import Path

from tasks import Delivery, DeliveryStatus

logger = logging.getLogger(__name__)


class JsonlNotifier:
    """Appends each delivery as one JSON object per line, flushed to disk before it counts.

    Each line holds ``task_id``, ``run_id``, ``owner_id``, ``chat_id``, ``kind``, ``text``,
    ``late_by_seconds`` (or null) and ``delivered_at`` (ISO 8601, UTC).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = asyncio.Lock()

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        line = json.dumps(
            {
                "task_id": delivery.task_id,
                "run_id": delivery.run_id,
                "owner_id": delivery.owner_id,
                "chat_id": delivery.chat_id,
                "kind": delivery.kind.value,
                "text": delivery.text,
                "late_by_seconds": (
                    delivery.late_by.total_seconds() if delivery.late_by is not None else None
                ),
                "delivered_at": datetime.now(UTC).isoformat(),
            },
            ensure_ascii=False,
        )
        async with self._lock:
            try:
                await asyncio.to_thread(self._append, line)
            except OSError:
                logger.exception("could not append a delivery to %s", self.path)
                return DeliveryStatus.FAILED
        return DeliveryStatus.DELIVERED

    def _append(self, line: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as sink:
            sink.write(line + "\n")
            sink.flush()
            os.fsync(sink.fileno())
