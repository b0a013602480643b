"""The scheduler workloads shared by ``bench.scheduler`` and ``bench.peers``, and their figures.

A workload is a list of due instants: ``spread`` (10,000 over 10 s) for lateness, ``burst``
(all at one instant) for throughput. Every run of a workload happens in a fresh process
(``run_fresh``), so one run's memory and event loop never colour another's; its figures come
back as one JSON object. ``summarize`` turns several rounds of one figure into
``median [min-max]``.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

START_MARGIN = timedelta(seconds=1)
"""A measured process must be ready at least this long before the first due time."""


def lead_for(count: int) -> timedelta:
    """Time from now to the first due instant: start-up, plus storing ``count`` tasks."""
    return timedelta(seconds=3.0 + count * 0.00012)


def spread(
    start: datetime, count: int = 10_000, span: timedelta = timedelta(seconds=10)
) -> list[datetime]:
    """``count`` instants evenly over ``span`` from ``start``."""
    step = span / count
    return [start + step * n for n in range(count)]


def burst(at: datetime, count: int) -> list[datetime]:
    """``count`` times the same instant."""
    return [at] * count


def lateness_figures(prefix: str, late_ms: Sequence[float]) -> dict[str, float]:
    """p50, p99 and max of the lateness in milliseconds."""
    return {
        f"{prefix}_p50_ms": statistics.median(late_ms),
        f"{prefix}_p99_ms": percentile(late_ms, 0.99),
        f"{prefix}_max_ms": max(late_ms),
    }


def percentile(values: Iterable[float], share: float) -> float:
    """The ``share`` quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def peak_rss_mb() -> float:
    """The peak resident set size of this process so far, from /proc (Linux).

    Not ``getrusage``: its ``ru_maxrss`` carries the high-water mark of the process that
    started this one across ``exec``, so a fresh process would report at least its parent's
    peak, whatever it used itself.
    """
    return _status_mb("VmHWM")


def current_rss_mb() -> float:
    """The resident set size of this process now, from /proc (Linux)."""
    return _status_mb("VmRSS")


def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status; this figure needs Linux")


def check_ready(first_due: datetime) -> None:
    """Fail loudly when set-up ran into the due time (the figures would measure set-up).

    Raises:
        RuntimeError: when less than ``START_MARGIN`` is left before ``first_due``.
    """
    left = first_due - datetime.now(UTC)
    if left < START_MARGIN:
        raise RuntimeError(
            f"set-up left only {left.total_seconds():.2f} s before the first due time (at "
            f"least {START_MARGIN.total_seconds():g} s needed); the machine is too busy for "
            "this run, try again"
        )


def run_fresh(module: str, args: Sequence[str], *, timeout: float = 600) -> dict[str, float]:
    """Run ``python -m module args --json`` in a fresh interpreter; return its JSON figures."""
    done = subprocess.run(
        [sys.executable, "-m", module, *args, "--json"],
        check=False,
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT), "PTB_TIMEDELTA": "true"},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["(no output)"]
        raise RuntimeError(f"{module} {' '.join(args)} failed: {tail[0]}")
    values: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return values


def summarize(rounds: Sequence[dict[str, float]]) -> dict[str, tuple[float, float, float]]:
    """Each figure over the rounds as (median, min, max)."""
    keys = [k for k in rounds[0] if all(k in r for r in rounds)]
    return {
        k: (
            statistics.median(r[k] for r in rounds),
            min(r[k] for r in rounds),
            max(r[k] for r in rounds),
        )
        for k in keys
    }


def shown(value: tuple[float, float, float], digits: int = 0) -> str:
    """``median [min-max]`` with ``digits`` decimals."""
    median, low, high = value
    if low == high:
        return f"{median:,.{digits}f}"
    return f"{median:,.{digits}f} [{low:,.{digits}f}-{high:,.{digits}f}]"
