"""The texts the scheduler sends an owner about their tasks."""

from __future__ import annotations

from datetime import timedelta

from tasks.engine import failed_notice, given_up_notice
from tests.tasks.conftest import T0, once_at, reminder_draft


def test_a_notice_keeps_the_description_as_it_was_written() -> None:
    task = reminder_draft(once_at(T0 + timedelta(hours=1)), message="Call Mom at IKEA").to_task(
        "k3m9xa"
    )
    assert failed_notice(task, "the bot was blocked").startswith(
        'Task k3m9xa ("Call Mom at IKEA") failed: the bot was blocked'
    )
    assert given_up_notice(task).startswith('Task k3m9xa ("Call Mom at IKEA") did not finish')
