"""Process settings for a scheduler that keeps running: made once, after start-up.

Two things made runs late that the scheduler's own code cannot help:

- **Full garbage collections.** One walks every object the process holds, most of them the
  modules it imported (pydantic, the telegram library, the model's bindings); a burst's
  allocations set one off in the middle of the burst: 15-25 ms with no run started.
  ``gc.freeze()`` after start-up moves what exists then (what lives as long as the process)
  out of the collector's walks, so a full collection costs what the process made since.
- **The GIL's switch interval.** The SQLite store works on its own thread; while it holds
  the GIL (claiming a burst ahead: each recurring run's next fire), the event loop waits up
  to the interval (5 ms by default) to start a run that is due. One millisecond bounds that
  wait, for a few more thread switches under load.
"""

from __future__ import annotations

import gc
import sys
import threading

SWITCH_INTERVAL = 0.001
"""The most seconds a thread holding the GIL keeps it from another that asks for it."""

_once = threading.Lock()  # taken by the call that settles the process, never given back


def settle_process() -> bool:
    """Collect the garbage start-up left, freeze what remains and shorten the switch interval.

    Runs once per process (later calls change nothing); return whether this call did it.
    Call it once the long-running parts are up (``open_app`` does, for the front ends that
    run the scheduler). A shorter switch interval set before is kept.
    """
    if not _once.acquire(blocking=False):
        return False
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
    gc.collect()
    gc.freeze()
    return True
