"""Send each delivery to the interface its chat belongs to, whichever front end is running."""

from __future__ import annotations

import logging

from tasks import Delivery, DeliveryStatus, Notifier

logger = logging.getLogger(__name__)


class RoutingNotifier:
    """Delivers the terminal's chat locally and every other chat through ``remote``.

    Whatever front end runs the scheduler, a reminder reaches the place it was made for: the
    terminal prints only the terminal user's messages, and a Telegram user's reminder goes to
    Telegram even while only ``assistant chat`` runs. A chat no attached interface serves goes
    to ``fallback`` (a JSON Lines file), never nowhere.

    Args:
        local_chat: The chat id of the terminal.
        local: Delivers the terminal's messages (the terminal, or the fallback file).
        remote: Delivers every other chat's messages (Telegram), if configured.
        fallback: Where messages go that no attached interface serves.
    """

    def __init__(
        self,
        *,
        local_chat: str,
        local: Notifier,
        remote: Notifier | None,
        fallback: Notifier,
    ) -> None:
        self._local_chat = local_chat
        self._local = local
        self._remote = remote
        self._fallback = fallback

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        if delivery.chat_id == self._local_chat:
            return await self._local.deliver(delivery)
        if self._remote is not None:
            return await self._remote.deliver(delivery)
        logger.warning(
            "task %s: chat %s is not served by this process; its message goes to the fallback "
            "file (set TELEGRAM_BOT_TOKEN to deliver it to Telegram)",
            delivery.task_id,
            delivery.chat_id,
        )
        return await self._fallback.deliver(delivery)
