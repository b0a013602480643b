"""Describe the machine a benchmark ran on: CPU model, cores, memory, OS and Python."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Machine:
    """The machine and the moment figures were taken."""

    cpu: str
    cores: int
    memory_gb: float
    system: str
    python: str
    date: str

    def describe(self) -> str:
        """Say it in one line, e.g. ``2026-11-22 01:30 UTC, AMD EPYC (2 cores), 8 GB, ...``."""
        return (
            f"{self.date}; {self.cpu} ({self.cores} cores); {self.memory_gb:.0f} GB RAM; "
            f"{self.system}; Python {self.python}"
        )


def this_machine() -> Machine:
    """Return a description of the machine this runs on."""
    return Machine(
        cpu=_cpu_model(),
        cores=os.cpu_count() or 0,
        memory_gb=_memory_kb() / 1024 / 1024,
        system=platform.platform(terse=True),
        python=platform.python_version(),
        date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    )


def _cpu_model() -> str:
    for line in _read_lines(Path("/proc/cpuinfo")):
        if line.startswith("model name"):
            return line.partition(":")[2].strip()
    return platform.processor() or platform.machine() or "unknown CPU"


def _memory_kb() -> float:
    for line in _read_lines(Path("/proc/meminfo")):
        if line.startswith("MemTotal:"):
            return float(line.split()[1])
    return 0.0


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
