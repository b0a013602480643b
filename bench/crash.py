"""Crash recovery, long form: 1,000 reminders over a minute, ``assistant serve`` SIGKILLed 10 times.

Run with ``.venv/bin/python -m bench.crash`` from the repository root (``--help`` for the
flags). Prints each kill as it happens, then the figures and every broken promise; exits 1
when a promise was broken. The data directory, the sink and the process log are kept when
``--keep`` is given (or when the run fails), for a look at the ledger.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from testing.harness import CrashPlan, run_crash_test


def build_parser() -> argparse.ArgumentParser:
    """Return the command line parser."""
    defaults = CrashPlan()
    parser = argparse.ArgumentParser(prog="bench.crash", description=__doc__)
    parser.add_argument("-n", "--reminders", type=int, default=defaults.reminders)
    parser.add_argument(
        "-t", "--span", type=float, default=defaults.span, help="seconds they fall due over"
    )
    parser.add_argument("-k", "--kills", type=int, default=defaults.kills)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument(
        "--grace",
        type=float,
        default=defaults.grace,
        help="the reminders' misfire grace in seconds: later than this counts as late",
    )
    parser.add_argument(
        "--lease-wait",
        type=float,
        default=defaults.lease_wait,
        help="longest wait past the span for runs a killed process held under a lease",
    )
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--quiet", action="store_true", help="print only the figures")
    return parser


def plan_from_args(args: argparse.Namespace) -> CrashPlan:
    """Return the plan the flags describe."""
    return CrashPlan(
        reminders=args.reminders,
        span=args.span,
        kills=args.kills,
        seed=args.seed,
        grace=args.grace,
        lease_wait=args.lease_wait,
    )


async def run(plan: CrashPlan, *, keep: bool, quiet: bool) -> int:
    """Run ``plan`` in a fresh directory, print the report, and return the exit code."""
    workdir = Path(tempfile.mkdtemp(prefix="assistant-crash-"))
    print(
        f"crash recovery: {plan.reminders} reminders over {plan.span:g} s, "
        f"{plan.kills} SIGKILLs, seed {plan.seed}, in {workdir}",
        flush=True,
    )
    report = await run_crash_test(
        plan, workdir, progress=None if quiet else lambda line: print(f"  {line}", flush=True)
    )
    print(report.render(), flush=True)
    failed = bool(report.problems())
    if keep or failed:
        print(f"  kept {workdir} (data/assistant.db, deliveries.jsonl, serve.log)")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the flags and run the crash test."""
    args = build_parser().parse_args(argv)
    try:
        plan = plan_from_args(args)
    except ValueError as exc:
        print(f"bench.crash: {exc}", file=sys.stderr)
        return 2
    return asyncio.run(run(plan, keep=args.keep, quiet=args.quiet))


if __name__ == "__main__":
    raise SystemExit(main())
