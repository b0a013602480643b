"""Text no database keeps, and ledger writes that fail for a value (issue 24, item 6).

The attack as written: on PostgreSQL an agent task whose answer held U+0000 failed its ledger
write; its lease ran out, it ran twice and was delivered twice, and then a notice said "the
assistant stopped" though nothing had. Here the same answer on every store (memory, SQLite,
PostgreSQL) runs once, is delivered once and is recorded once; and a ledger that refuses a
value (a store passed in through the constructor that refuses one result) records that run
as failed with the reason instead of leaving it claimed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

from common import ManualClock
from tasks import (
    FinishedRun,
    RunOutcome,
    RunStatus,
    SqliteTaskStore,
    TaskManager,
    TaskStore,
    TaskStoreError,
    TaskType,
)
from tests.tasks.conftest import T0, RecordingNotifier, ScriptedAgent, once_at

MINUTE = timedelta(minutes=1)
NUL_ANSWER = "the report\x00 is done \ud800 and sent"


async def _agent_task(manager: TaskManager, prompt: str = "write\x00 the report") -> str:
    task = await manager.add_task(
        owner_id="alice",
        chat_id="chat-alice",
        task_type=TaskType.AGENT_TASK,
        schedule=once_at(T0 + MINUTE),
        execution_data={"prompt": prompt},
        description="weekly\x00 report",
    )
    return task.id


async def test_an_answer_holding_a_nul_runs_once_is_delivered_once_and_recorded(
    store: TaskStore, clock: ManualClock
) -> None:
    notifier = RecordingNotifier()
    agent = ScriptedAgent(lambda prompt: NUL_ANSWER)
    manager = TaskManager(store=store, clock=clock, notifier=notifier, agent=agent)
    task_id = await _agent_task(manager)
    clock.advance(MINUTE)
    assert await manager.run_due() == 1
    for _ in range(3):  # leases come and go: nothing is claimed again
        clock.advance(MINUTE)
        assert await manager.run_due() == 0
    (run,) = await manager.history(task_id, "alice")
    task = await manager.get_task(task_id, "alice")

    assert agent.prompts == [("write the report", "alice", "chat-alice")]
    assert notifier.texts() == ["weekly report\n\nthe report is done \ufffd and sent"]
    assert run.status is RunStatus.SUCCEEDED and run.attempt == 1
    assert run.result is not None and "\x00" not in run.result
    assert task.description == "weekly report"


class RefusingStore(SqliteTaskStore):
    """A SQLite store that refuses to record one value, as a database refuses what it cannot
    keep (the failure is the store's own error, raised inside its transaction)."""

    def __init__(self, path: Path, refused: str) -> None:
        super().__init__(path)
        self.refused = refused

    async def finish_runs(
        self, outcomes: Sequence[RunOutcome], *, max_failures: int
    ) -> list[FinishedRun]:
        if any(self.refused in (o.result or "") for o in outcomes):
            raise TaskStoreError(f"invalid byte sequence for encoding: {self.refused!r}")
        return await super().finish_runs(outcomes, max_failures=max_failures)


async def test_a_value_the_ledger_refuses_is_that_runs_failure_not_a_dead_scheduler(
    tmp_path: Path, clock: ManualClock
) -> None:
    notifier = RecordingNotifier()
    store = RefusingStore(tmp_path / "assistant.db", refused="POISON")
    agent = ScriptedAgent(lambda prompt: "POISON" if "bad" in prompt else "fine")
    async with TaskManager(store=store, clock=clock, notifier=notifier, agent=agent) as manager:
        await manager.start(timer=False)
        ids = [await _agent_task(manager, p) for p in ("good one", "bad one", "good two")]
        clock.advance(MINUTE)
        assert await manager.run_due() == 3
        for _ in range(3):  # its lease would have run out here: it is not claimed again
            clock.advance(MINUTE)
            assert await manager.run_due() == 0
        runs = {i: await manager.history(i, "alice") for i in ids}

    good, bad, other = (runs[i] for i in ids)
    assert [r.status for r in good] == [RunStatus.SUCCEEDED]
    assert [r.status for r in other] == [RunStatus.SUCCEEDED]
    (refused,) = bad
    assert refused.status is RunStatus.FAILED and refused.attempt == 1
    assert refused.error is not None
    assert refused.error.startswith("the run ended (succeeded) but the ledger refused to store")
    assert "invalid byte sequence" in refused.error
    assert len(notifier.deliveries) == 3  # each delivered once; no "assistant stopped" notice
    assert not any("stopped" in text for text in notifier.texts())
