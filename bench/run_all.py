"""Every benchmark in one command, printed as one table with the date and the machine.

Run with ``.venv/bin/python -m bench.run_all`` from the repository root (about three minutes;
``--quick`` for a smaller crash and load run, ``--only NAME`` to run some of them). Each
benchmark runs as its own process (so one's memory and event loop do not colour another's)
with a time limit; its printed figures become rows of the table. A benchmark that is missing,
fails or runs out of time gets a row that says so, and the others still run.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from bench.machine import this_machine
from testing.serve_process import REPO_ROOT


@dataclass(frozen=True, slots=True)
class Bench:
    """One benchmark: a module under ``bench/`` and its arguments."""

    name: str
    module: str
    args: tuple[str, ...] = ()
    limit: float = 120.0
    quick_args: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the table."""

    bench: str
    figure: str
    value: str


BENCHES = (
    Bench("parser", "bench.parser", limit=60),
    Bench("schedule parsing", "bench.schedule_parse", limit=60),
    Bench("scheduler", "bench.scheduler", limit=300),
    Bench("scheduler (memory)", "bench.scheduler", ("--store", "memory"), limit=300),
    Bench("startup", "bench.startup", limit=120, quick_args=("--rounds", "3")),
    Bench(
        "scheduler at scale",
        "bench.scale",
        limit=600,
        quick_args=("--stores", "sqlite", "--parts", "restart,crash,list,burst"),
    ),
    Bench(
        "scheduler (PostgreSQL)",
        "bench.pg_scheduler",
        ("--repeat", "3"),
        limit=600,
        quick_args=("--repeat", "1"),
    ),
    Bench(
        "PostgreSQL driver",
        "bench.pg_driver",
        ("--repeat", "3"),
        limit=180,
        quick_args=("--repeat", "1"),
    ),
    Bench("agent", "bench.agent", limit=120),
    Bench("golden set", "bench.golden", limit=60),
    Bench(
        "calendars",
        "bench.calendar",
        limit=300,
        quick_args=("--tasks", "100", "--synced", "20", "--outlook", "200"),
    ),
    Bench(
        "telegram round trip",
        "bench.load",
        ("--users", "1", "--messages", "50", "--unpaced"),
        limit=90,
    ),
    Bench(
        "crash recovery",
        "bench.crash",
        ("-n", "300", "-t", "20", "-k", "5", "--quiet", "--lease-wait", "200"),
        limit=260,
        quick_args=("-n", "100", "-t", "8", "-k", "3", "--quiet", "--lease-wait", "200"),
    ),
    Bench(
        "crash recovery (PostgreSQL)",
        "bench.pg_crash",
        ("-n", "600", "-t", "20", "-k", "6", "--quiet"),
        limit=240,
        quick_args=("-n", "150", "-t", "8", "-k", "3", "--quiet"),
    ),
    Bench("load (Telegram pacing)", "bench.load", limit=150),
    Bench(
        "load (pacing lifted)",
        "bench.load",
        ("--unpaced",),
        limit=120,
        quick_args=("--unpaced", "--users", "50", "--messages", "4"),
    ),
    Bench("memory", "bench.footprint", limit=90),
    Bench(
        "web API",
        "bench.web",
        limit=150,
        quick_args=("--turns", "50", "--clients", "20", "--messages", "5"),
    ),
)

_GAP = re.compile(r"\s{2,}")
_IGNORED = re.compile(r"^(kept |- )")


def figure_rows(bench: str, output: str) -> list[Row]:
    """Turn a benchmark's printed lines into rows: a label, then its value.

    The label ends at the first wide gap (two spaces or more) or else at the first ``": "``
    outside parentheses; a line with neither (a heading) becomes a row with an empty label.
    """
    rows: list[Row] = []
    for line in output.splitlines():
        text = line.strip()
        if not text or _IGNORED.match(text):
            continue
        gap = _GAP.search(text)
        if gap is not None:
            value = " ".join(text[gap.end() :].split())
            rows.append(Row(bench, text[: gap.start()], value))
            continue
        label, colon, value = text.partition(": ")
        if colon and label.count("(") == label.count(")"):
            rows.append(Row(bench, label, value))
        else:
            rows.append(Row(bench, "", text))
    return rows


def run_bench(bench: Bench, *, quick: bool) -> list[Row]:
    """Run one benchmark in its own process and return its rows (or one saying what failed)."""
    module_file = REPO_ROOT / (bench.module.replace(".", "/") + ".py")
    if not module_file.exists():
        missing = module_file.relative_to(REPO_ROOT)
        return [Row(bench.name, "", f"not available: {missing} is missing")]
    args = bench.quick_args if quick and bench.quick_args is not None else bench.args
    env = {**os.environ, "PTB_TIMEDELTA": "true", "PYTHONUNBUFFERED": "1"}
    began = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-m", bench.module, *args],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=bench.limit,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        partial = exc.stdout if isinstance(exc.stdout, str) else (exc.stdout or b"").decode()
        return [
            *figure_rows(bench.name, partial),
            Row(bench.name, "", f"STOPPED: still running after {bench.limit:g} s"),
        ]
    rows = figure_rows(bench.name, done.stdout)
    seconds = time.monotonic() - began
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no error output)"])[-1]
        verdict = "a target was missed or a check failed" if rows else last[:160]
        rows.append(Row(bench.name, "exit code", f"{done.returncode}: {verdict}"))
    rows.append(Row(bench.name, "bench wall time", f"{seconds:.1f} s"))
    return rows


def render_table(rows: Sequence[Row]) -> str:
    """Return the rows as one fixed-width table."""
    bench_w = max(len("benchmark"), *(len(r.bench) for r in rows))
    figure_w = max(len("figure"), *(len(r.figure) for r in rows))
    lines = [f"{'benchmark':<{bench_w}}  {'figure':<{figure_w}}  value"]
    lines.append("-" * (bench_w + figure_w + 40))
    previous = ""
    for row in rows:
        shown = row.bench if row.bench != previous else ""
        previous = row.bench
        lines.append(f"{shown:<{bench_w}}  {row.figure:<{figure_w}}  {row.value}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks and print the table; exit 1 when any of them failed."""
    parser = argparse.ArgumentParser(prog="bench.run_all", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller crash and load runs")
    parser.add_argument(
        "--only", action="append", default=[], help="run only benchmarks whose name has this"
    )
    args = parser.parse_args(argv)
    chosen = [b for b in BENCHES if not args.only or any(o in b.name for o in args.only)]
    if not chosen:
        names = ", ".join(repr(b.name) for b in BENCHES)
        parser.error(f"--only {args.only!r} matches no benchmark; the names are {names}")
    machine = this_machine()
    began = time.monotonic()
    rows: list[Row] = []
    for bench in chosen:
        print(f"running {bench.name} ...", file=sys.stderr, flush=True)
        rows += run_bench(bench, quick=args.quick)
    print(f"Benchmarks, {machine.describe()}")
    print(render_table(rows))
    print(f"total {time.monotonic() - began:.0f} s")
    failed = any(
        r.figure == "exit code" or r.value.startswith(("STOPPED", "not available")) for r in rows
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
