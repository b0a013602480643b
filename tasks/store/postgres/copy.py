"""The task tables as ``assistant migrate`` copies them from SQLite (``common.copying``)."""

from __future__ import annotations

from common import TableCopy, flag, instant


def maybe_flag(value: object) -> bool | None:
    """A flag that may be unset (``NULL``): a monitor's condition held, or it has none."""
    return None if value is None else flag(value)


TASK_TABLES = (
    TableCopy(
        "scheduled_tasks",
        (
            "id", "owner_id", "chat_id", "task_type", "description", "schedule",
            "execution_data", "status", "enabled", "misfire_policy", "misfire_grace",
            "created_at", "next_run", "last_run", "run_count", "consecutive_failures",
            "status_reason", "finished_at",
        ),
        {
            "enabled": flag, "created_at": instant, "next_run": instant, "last_run": instant,
            "finished_at": instant,
        },
    ),
    TableCopy(
        "task_runs",
        (
            "id", "task_id", "scheduled_for", "claimed_at", "started_at", "finished_at",
            "lease_until", "status", "misfire", "missed", "late_by", "attempt", "result",
            "error",
        ),
        dict.fromkeys(
            ("scheduled_for", "claimed_at", "started_at", "finished_at", "lease_until"), instant
        ),
        identity="id",
    ),
    TableCopy(
        "task_run_summaries",
        (
            "task_id", "runs", "counts", "first_scheduled", "last_scheduled", "late_runs",
            "max_late_by", "last_run_id", "last_status", "last_failure", "last_failure_at",
        ),
        dict.fromkeys(("first_scheduled", "last_scheduled", "last_failure_at"), instant),
    ),
    TableCopy(
        "task_owner_summaries",
        (
            "owner_id", "tasks", "runs", "counts", "last_scheduled", "last_status",
            "last_failure", "last_failure_at", "last_failure_task",
        ),
        dict.fromkeys(("last_scheduled", "last_failure_at"), instant),
    ),
    # The proactive features' tables (issue 28).
    TableCopy(
        "monitor_observations",
        (
            "task_id", "value", "observed_at", "changed_at", "holds", "pending", "checks",
            "changes",
        ),
        {"observed_at": instant, "changed_at": instant, "holds": maybe_flag},
    ),
    TableCopy(
        "held_deliveries",
        (
            "id", "task_id", "run_id", "owner_id", "chat_id", "kind", "text", "late_by",
            "run_again", "nags", "reason", "held_at", "release_at", "lease_until", "repeats",
            "zone",
        ),
        {
            "run_again": flag, "nags": flag, "held_at": instant, "release_at": instant,
            "lease_until": instant,
        },
        identity="id",
    ),
)  # fmt: skip


"""In the order they are copied (runs refer to tasks)."""
