"""The queue of runs claimed ahead: a burst (runs sharing the earliest time) is told apart."""

from __future__ import annotations

from datetime import timedelta

from tasks import MemoryTaskStore
from tasks.engine import ClaimedAhead
from tests.tasks.conftest import T0, once_at, reminder_draft

SECOND = timedelta(seconds=1)


async def test_runs_sharing_the_earliest_time_are_bunched() -> None:
    store = MemoryTaskStore()
    times = [T0 + 2 * SECOND, T0 + SECOND, T0 + 3 * SECOND, T0 + SECOND, T0 + 4 * SECOND]
    await store.add_tasks([reminder_draft(once_at(t), created_at=T0 - SECOND) for t in times])
    ahead = ClaimedAhead()
    assert not ahead.bunched()
    for claim in await store.claim_due(T0, limit=10, lease=timedelta(minutes=1), ahead=SECOND * 5):
        ahead.add(claim)

    said = []
    while (due := ahead.next_due()) is not None:
        said.append((due - T0, ahead.bunched()))
        assert ahead.pop_due(due) is not None
    assert said == [
        (SECOND, True),  # two at T0 + 1 s
        (SECOND, False),
        (2 * SECOND, False),
        (3 * SECOND, False),
        (4 * SECOND, False),
    ]
