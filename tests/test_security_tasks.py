"""Security checks on tasks: owners are walled off, and stored text is data, never SQL.

A user who guesses another user's task id gets exactly the answer a missing id gets, and
nothing about the task changes, through every operation of the TaskManager. SQL and LIKE
metacharacters in every stored text field round-trip unchanged through the SQLite store on a
real file, and owner ids that look like patterns match nobody else's tasks.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from common import ManualClock
from tasks import (
    DEFAULT_MISFIRE_RULES,
    AgentTaskData,
    ApiCallData,
    ExecutionData,
    MemoryTaskStore,
    ReminderData,
    RunOutcome,
    RunStatus,
    SqliteTaskStore,
    Task,
    TaskDraft,
    TaskManager,
    TaskNotFoundError,
    TaskType,
    WebSearchData,
)
from tasks.store import TaskChange, TaskStore
from tests.tasks.conftest import T0, RecordingNotifier, every, once_at

HOUR = timedelta(hours=1)
METACHARACTERS = [
    "'; DROP TABLE scheduled_tasks; --",
    "Robert'); DROP TABLE task_runs;--",
    "' OR '1'='1",
    '" OR ""="',
    "%",
    "_",
    "%_%",
    "a%b_c",
    "\\",
    "back\\slash\\'quote",
    "?1 :name @p $1",
    "NULL",
    "مرحبا \u202eevil\u202c \u200f",
    "😀👍🏽 ζ ß İ 中文",
    "line\nbreak\ttab\r",
    "`backtick` [bracket] {brace}",
    "x" * 3000,
]


# -- owner scoping through the TaskManager -----------------------------------------------


@pytest.fixture
def notifier() -> RecordingNotifier:
    return RecordingNotifier()


@pytest.fixture(params=["memory", "sqlite"])
async def manager(
    request: pytest.FixtureRequest, tmp_path: Path, notifier: RecordingNotifier
) -> AsyncIterator[TaskManager]:
    store: TaskStore = (
        MemoryTaskStore() if request.param == "memory" else SqliteTaskStore(tmp_path / "a.db")
    )
    running = TaskManager(store=store, clock=ManualClock(T0), notifier=notifier)
    await running.start(timer=False)
    yield running
    await running.stop()


Operation = Callable[[TaskManager, str, str], Awaitable[Any]]
OPERATIONS: dict[str, Operation] = {
    "get": lambda m, task_id, owner: m.get_task(task_id, owner),
    "cancel": lambda m, task_id, owner: m.cancel(task_id, owner),
    "pause": lambda m, task_id, owner: m.pause(task_id, owner),
    "resume": lambda m, task_id, owner: m.resume(task_id, owner),
    "snooze": lambda m, task_id, owner: m.snooze(task_id, owner, timedelta(minutes=10)),
    "run now": lambda m, task_id, owner: m.run_now(task_id, owner),
    "history": lambda m, task_id, owner: m.history(task_id, owner),
}


async def alices_tasks(manager: TaskManager) -> list[Task]:
    """A one-time reminder, a recurring one and a paused one, all Alice's."""
    once = await manager.add_task(
        owner_id="alice",
        chat_id="chat-alice",
        task_type="reminder",
        schedule=once_at(T0 + HOUR),
        execution_data={"message": "alice's secret"},
    )
    recurring = await manager.add_task(
        owner_id="alice",
        chat_id="chat-alice",
        task_type="agent_task",
        schedule=every(HOUR),
        execution_data={"prompt": "summarise alice's mail"},
    )
    paused = await manager.add_task(
        owner_id="alice",
        chat_id="chat-alice",
        task_type="reminder",
        schedule=once_at(T0 + 2 * HOUR),
        description="paused one",
    )
    return [once, recurring, await manager.pause(paused.id, "alice")]


async def refusal(operation: Operation, manager: TaskManager, task_id: str, owner: str) -> str:
    with pytest.raises(TaskNotFoundError) as refused:
        await operation(manager, task_id, owner)
    assert type(refused.value) is TaskNotFoundError
    return str(refused.value)


@pytest.mark.parametrize("operation", OPERATIONS.values(), ids=OPERATIONS.keys())
async def test_a_guessed_id_of_another_user_reads_like_a_missing_one(
    manager: TaskManager, operation: Operation
) -> None:
    tasks = await alices_tasks(manager)
    for task in tasks:
        for guess in (task.id, task.id.upper(), f"  {task.id} "):
            missing = "zz" + task.id[2:] if not task.id.startswith("zz") else "yy" + task.id[2:]
            stolen = await refusal(operation, manager, guess, "bob")
            absent = await refusal(operation, manager, guess.replace(task.id, missing), "bob")
            assert stolen == absent.replace(missing, task.id).replace(
                missing.upper(), task.id.upper()
            )
            assert "alice" not in stolen
    for before in tasks:
        assert await manager.get_task(before.id, "alice") == before
        assert await manager.history(before.id, "alice") == []
    assert await manager.list_tasks("bob", include_finished=True) == []
    assert await manager.active_task_ids("bob") == []


async def test_nothing_is_run_or_delivered_for_the_intruder(
    manager: TaskManager, notifier: RecordingNotifier
) -> None:
    tasks = await alices_tasks(manager)
    for task in tasks:
        for operation in OPERATIONS.values():
            with pytest.raises(TaskNotFoundError):
                await operation(manager, task.id, "bob")
    await manager.wait_idle()
    assert notifier.deliveries == []
    assert [await manager.history(t.id, "alice") for t in tasks] == [[], [], []]
    # The same operations by the owner do run: the refusals above were about ownership.
    await manager.run_now(tasks[0].id, "alice")
    assert notifier.texts() == ["alice's secret"]


@pytest.mark.parametrize("owner", ["%", "_", "%%", "a%", "_lice", "ALICE", "alice ", "*"])
async def test_owner_ids_that_look_like_patterns_match_nobody_else(
    manager: TaskManager, owner: str
) -> None:
    tasks = await alices_tasks(manager)
    assert await manager.list_tasks(owner, include_finished=True) == []
    assert await manager.active_task_ids(owner) == []
    for task in tasks:
        with pytest.raises(TaskNotFoundError):
            await manager.get_task(task.id, owner)


# -- metacharacters round-trip through the SQLite store ------------------------------------


def executions(text: str) -> list[tuple[TaskType, ExecutionData]]:
    """Execution data of every task type carrying ``text`` in each of its text values."""
    core = text.strip() or "x"
    return [
        (TaskType.REMINDER, ReminderData(message=core[:4000])),
        (TaskType.AGENT_TASK, AgentTaskData(prompt=core[:8000])),
        (TaskType.WEB_SEARCH, WebSearchData(query=core[:500], limit=3)),
        (
            TaskType.API_CALL,
            ApiCallData(
                method="POST",
                url="https://example.com/api?q=" + quote(core[:100], safe="'%_;-=()"),
                headers={"X-Note": text, text[:50] or "empty": "value"},
                body={"text": text, "list": [text, {"nested": text}]},
            ),
        ),
    ]


def draft(text: str, task_type: TaskType, execution: ExecutionData) -> TaskDraft:
    return TaskDraft(
        owner_id=text,
        chat_id=text,
        task_type=task_type,
        description=text,
        schedule=once_at(T0 + HOUR),
        execution=execution,
        misfire=DEFAULT_MISFIRE_RULES[task_type],
        created_at=T0,
        next_run=T0 + HOUR,
    )


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    return {name for (name,) in rows}


@pytest.mark.parametrize("text", METACHARACTERS, ids=range(len(METACHARACTERS)))
async def test_metacharacters_round_trip_in_every_stored_text_field(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "assistant.db"
    async with SqliteTaskStore(path) as store:
        created = [await store.add_task(draft(text, kind, data)) for kind, data in executions(text)]
        ids = await store.add_tasks([draft(text, kind, data) for kind, data in executions(text)])
        before_tables = tables(path)
        await store.update_task(
            created[0].id,
            text,
            TaskChange(status_reason=text),
            allowed_from=[created[0].status],
            action="note",
            now=T0,
        )
        await store.pause_owner(text, text)
        claim = await store.claim_now(created[1].id, text, T0, lease=HOUR)
        await store.finish_runs(
            [RunOutcome(claim.run.id, claim.task.id, RunStatus.FAILED, T0, T0, text, text)],
            max_failures=5,
        )
    async with SqliteTaskStore(path) as reopened:
        for task in created:
            stored = await reopened.get_task(task.id, text)
            assert stored is not None
            assert (stored.owner_id, stored.chat_id, stored.description) == (text, text, text)
            assert stored.execution == task.execution
            assert stored.status_reason == text
        for task_id, (_, data) in zip(ids, executions(text), strict=True):
            copy = await reopened.get_task(task_id, text)
            assert copy is not None and copy.execution == data
        [run] = await reopened.history(created[1].id, text)
        assert (run.result, run.error) == (text, text)
        listed = await reopened.list_tasks(text, include_finished=True)
        assert {t.id for t in listed} == {*(t.id for t in created), *ids}
        assert await reopened.list_tasks(text + "x", include_finished=True) == []
    assert tables(path) == before_tables >= {"scheduled_tasks", "task_runs"}


async def test_a_metacharacter_owner_cannot_see_a_plain_owners_tasks(tmp_path: Path) -> None:
    async with SqliteTaskStore(tmp_path / "assistant.db") as store:
        kind, data = executions("call mom")[0]
        plain = await store.add_task(draft("alice", kind, data))
        for text in METACHARACTERS:
            await store.add_task(replace(draft(text, kind, data), owner_id=text))
            assert await store.get_task(plain.id, text) is None
            assert plain.id not in await store.active_task_ids(text)
        assert [t.id for t in await store.list_tasks("alice")] == [plain.id]
