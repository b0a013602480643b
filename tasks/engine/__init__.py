"""The engine that fires tasks: the ``TaskManager`` and the parts it is built from.

manager    TaskManager: the owner-scoped operations, the lifecycle, the wiring
drafts     a new task's parts checked and made into a draft (pure)
changes    what cancel, pause, resume and snooze do to a task (pure)
timer      Timer: sleeps until the earliest next run, claims what is due
executor   RunExecutor: runs each claim at its time, bounded, to the ledger
ahead      ClaimedAhead: runs claimed ahead of their time, retracted by cancel or pause
pool       WorkerPool: starts the queued runs at their time, one worker watching the clock
ledger     LedgerWriter: group commit of finished runs
leases     LeaseKeeper: renews the leases of the runs in flight
retention  LedgerRetention: old ledger rows folded into per-task summaries, round by round
notices    what owners are told after failures (FollowUps: the failure alerts) and its texts
holding    quiet hours: deliveries held in the store (HoldingNotifier), released (HeldReleaser)
watchdog   Watchdog: one timer for every run's time limit
"""

from tasks.engine.ahead import ClaimedAhead
from tasks.engine.changes import awaits_acknowledgement
from tasks.engine.drafts import DEFAULT_SNOOZE, task_data
from tasks.engine.holding import HeldReleaser, HoldingNotifier
from tasks.engine.leases import LeaseKeeper
from tasks.engine.ledger import LedgerWriter
from tasks.engine.manager import (
    DEFAULT_LEASE,
    RECENTLY_DELIVERED,
    Snoozed,
    TaskManager,
    delivery_backoff,
)
from tasks.engine.notices import (
    alert_notice,
    failed_notice,
    given_up_notice,
    recovered_notice,
)
from tasks.engine.retention import LedgerPolicy, LedgerRetention
from tasks.engine.watchdog import Watchdog

__all__ = [
    "DEFAULT_LEASE",
    "DEFAULT_SNOOZE",
    "RECENTLY_DELIVERED",
    "ClaimedAhead",
    "HeldReleaser",
    "HoldingNotifier",
    "LeaseKeeper",
    "LedgerPolicy",
    "LedgerRetention",
    "LedgerWriter",
    "Snoozed",
    "TaskManager",
    "Watchdog",
    "alert_notice",
    "awaits_acknowledgement",
    "delivery_backoff",
    "failed_notice",
    "given_up_notice",
    "recovered_notice",
    "task_data",
]
