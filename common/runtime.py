"""Process settings for a scheduler that keeps running: made once the process imported what it
runs, before it builds its long-lived parts (the command line does it for every command).

Two things made runs late that the scheduler's own code cannot help:

- **Full garbage collections.** One walks every object the process holds, most of them the
  modules it imported (pydantic, the telegram library, the model's bindings); a burst's
  allocations set one off in the middle of the burst: 15-25 ms with no run started.
  ``gc.freeze()`` moves what exists then (what lives as long as the process) out of the
  collector's walks, so a full collection costs what the process made since.
- **The GIL's switch interval.** The SQLite store works on its own thread; while it holds
  the GIL (claiming a burst ahead: each recurring run's next fire), the event loop waits up
  to the interval (5 ms by default) to start a run that is due. One millisecond bounds that
  wait, for a few more thread switches under load.
"""

from __future__ import annotations

import gc
import sys

SWITCH_INTERVAL = 0.001
"""The most seconds a thread holding the GIL keeps it from another that asks for it."""


def settle_process() -> None:
    """Freeze what the process holds now and shorten the switch interval (a shorter one set
    before is kept).

    What is frozen is never collected: call it when what exists lives as long as the process
    (after the imports), not after objects that will become garbage were made.
    """
    gc.freeze()
    sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
