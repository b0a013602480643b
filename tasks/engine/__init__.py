"""The engine that fires tasks: the ``TaskManager`` with its timer, claims, leases, ledger
writer and run time limit."""

from tasks.engine.leases import LeaseKeeper
from tasks.engine.ledger import LedgerWriter
from tasks.engine.manager import TaskManager
from tasks.engine.operations import DEFAULT_SNOOZE
from tasks.engine.watchdog import Watchdog

__all__ = ["DEFAULT_SNOOZE", "LeaseKeeper", "LedgerWriter", "TaskManager", "Watchdog"]
