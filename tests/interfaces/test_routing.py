import logging
from pathlib import Path

import pytest

from interfaces import WEB_CHAT_PREFIX, ChatRecorder, RoutingNotifier
from memory import MemoryStore, MessageRole
from tasks import Delivery, DeliveryKind, DeliveryStatus


class Recorder:
    def __init__(self, status: DeliveryStatus = DeliveryStatus.DELIVERED) -> None:
        self.chats: list[str] = []
        self.status = status

    async def deliver(self, delivery: Delivery) -> DeliveryStatus:
        self.chats.append(delivery.chat_id)
        return self.status


def delivery(chat_id: str) -> Delivery:
    return Delivery("t1", 1, "u", chat_id, DeliveryKind.REMINDER, "stretch")


async def test_each_chat_goes_to_its_own_interface() -> None:
    local, remote, fallback = Recorder(), Recorder(DeliveryStatus.BLOCKED), Recorder()
    router = RoutingNotifier(local_chat="local", local=local, remote=remote, fallback=fallback)
    assert await router.deliver(delivery("local")) is DeliveryStatus.DELIVERED
    assert await router.deliver(delivery("12345")) is DeliveryStatus.BLOCKED
    assert (local.chats, remote.chats, fallback.chats) == (["local"], ["12345"], [])


async def test_a_chat_no_interface_serves_goes_to_the_fallback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    local, fallback = Recorder(), Recorder()
    router = RoutingNotifier(local_chat="local", local=local, remote=None, fallback=fallback)
    with caplog.at_level(logging.WARNING):
        for chat in ("12345", "12345", "678"):
            assert await router.deliver(delivery(chat)) is DeliveryStatus.DELIVERED
    assert (local.chats, fallback.chats) == ([], ["12345", "12345", "678"])
    # Said once per chat, not at every delivery.
    assert [r.getMessage().split(":")[0] for r in caplog.records] == [
        "chat 12345 is not served by this process",
        "chat 678 is not served by this process",
    ]


async def test_chats_with_a_prefix_go_to_their_own_interface_first() -> None:
    local, remote, fallback, web = Recorder(), Recorder(), Recorder(), Recorder()
    router = RoutingNotifier(
        local_chat="local",
        local=local,
        remote=remote,
        fallback=fallback,
        prefixed={WEB_CHAT_PREFIX: web},
    )
    for chat in ("web:main", "local", "12345", "web:kitchen"):
        await router.deliver(delivery(chat))
    assert web.chats == ["web:main", "web:kitchen"]
    assert (local.chats, remote.chats, fallback.chats) == (["local"], ["12345"], [])


async def test_what_is_delivered_joins_its_chat_and_a_failed_delivery_does_not(
    tmp_path: Path,
) -> None:
    async with MemoryStore(tmp_path / "memory.db") as memory:
        inner = Recorder()
        recorder = ChatRecorder(inner, conversations=memory)
        result = Delivery("t2", 2, "u", "c", DeliveryKind.RESULT, "1. Headline")

        assert await recorder.deliver(delivery("c")) is DeliveryStatus.DELIVERED
        assert await recorder.deliver(result) is DeliveryStatus.DELIVERED
        inner.status = DeliveryStatus.FAILED
        assert await recorder.deliver(delivery("c")) is DeliveryStatus.FAILED

        said = await memory.load_conversation("u", "c")
    assert [(m.role, m.content, m.name) for m in said] == [
        (MessageRole.ASSISTANT, "Reminder (task t1): stretch", "delivery"),
        # A task's result is someone else's text: later turns read it as outside content.
        (MessageRole.ASSISTANT, "Result of task t2:\n1. Headline", "delivery,from-outside"),
    ]


async def test_a_delivery_that_cannot_be_recorded_still_counts_as_delivered(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    memory = await MemoryStore.open(tmp_path / "memory.db")
    await memory.close()
    inner = Recorder()

    status = await ChatRecorder(inner, conversations=memory).deliver(delivery("c"))

    assert status is DeliveryStatus.DELIVERED and inner.chats == ["c"]
    assert "task t1 was delivered, but its message could not be added to chat c" in caplog.text
