"""The JSON Lines file of deliveries: rotated by size, a few older files kept (issue 24,
item 8: 500 reminders every second made 9 GB of ``deliveries.jsonl`` a day); and the chat a
user's deliveries go to when they act from outside every chat (``home_chat``)."""

from __future__ import annotations

import json
from pathlib import Path

from common import ManualClock
from interfaces import JsonlNotifier, home_chat
from tasks import Delivery, DeliveryKind, DeliveryStatus
from tests.tasks.conftest import T0


def names(folder: Path) -> list[str]:
    """The names of the files in ``folder``, sorted."""
    return sorted(p.name for p in folder.iterdir())


def _delivery(number: int) -> Delivery:
    return Delivery(
        task_id="k3m9xa",
        run_id=number,
        owner_id="alice",
        chat_id="local",
        kind=DeliveryKind.REMINDER,
        text=f"reminder {number:05d} " + "x" * 80,
    )


async def test_the_delivery_file_is_rotated_by_size_and_only_a_few_are_kept(
    tmp_path: Path,
) -> None:
    path = tmp_path / "deliveries.jsonl"
    sink = JsonlNotifier(path, clock=ManualClock(T0), max_bytes=2000, keep=2)
    statuses = [await sink.deliver(_delivery(n)) for n in range(100)]

    files = names(tmp_path)
    assert statuses == [DeliveryStatus.DELIVERED] * 100
    assert files == ["deliveries.jsonl", "deliveries.jsonl.1", "deliveries.jsonl.2"]
    sizes = [(tmp_path / name).stat().st_size for name in files]
    assert all(size <= 2000 for size in sizes)
    assert all((tmp_path / name).stat().st_mode & 0o777 == 0o600 for name in files)
    newest = [json.loads(line)["run_id"] for line in path.read_text().splitlines()]
    older = [json.loads(x)["run_id"] for x in (tmp_path / files[1]).read_text().splitlines()]
    assert newest[-1] == 99 and older[-1] == newest[0] - 1  # nothing lost between them


async def test_without_kept_files_a_full_one_starts_over(tmp_path: Path) -> None:
    path = tmp_path / "deliveries.jsonl"
    sink = JsonlNotifier(path, clock=ManualClock(T0), max_bytes=1000, keep=0)
    for n in range(30):
        await sink.deliver(_delivery(n))
    assert names(tmp_path) == ["deliveries.jsonl"]
    assert path.stat().st_size <= 1000


def test_a_users_home_chat_is_their_telegram_chat_the_terminal_or_the_web_page() -> None:
    assert home_chat("4242") == "4242"
    assert home_chat("local") == "local"
    assert home_chat("local", local_chat="web:main") == "web:main"
    assert home_chat("alice") == "web:main"
    # Not a Telegram id: digits of another script, or a sign.
    assert home_chat("٤٢") == "web:main"
    assert home_chat("-5") == "web:main"
