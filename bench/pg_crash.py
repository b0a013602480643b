"""Crash recovery across processes: several ``assistant serve`` on one PostgreSQL database.

Stores reminders due over a span of seconds, starts several ``assistant serve`` processes on
the same database and SIGKILLs one of them at random moments (``testing.pg_crash``), then
checks every delivery against the store: every reminder delivered, no more duplicates than
kills, the ledger consistent both ways, and the tables' invariants intact.

Run the long form with ``.venv/bin/python -m bench.pg_crash`` (3 schedulers, 2,000 reminders
over 60 s, a kill every 4 s; ``--help`` for the flags); it starts its own embedded server.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from testing.harness import CrashPlan
from testing.pg_crash import run_pg_crash_test
from testing.pg_server import embedded_postgres


def build_parser() -> argparse.ArgumentParser:
    """Return the command line parser."""
    parser = argparse.ArgumentParser(prog="bench.pg_crash", description=__doc__)
    parser.add_argument("-s", "--schedulers", type=int, default=3)
    parser.add_argument("-n", "--reminders", type=int, default=2000)
    parser.add_argument("-t", "--span", type=float, default=60.0, help="seconds they fall due over")
    parser.add_argument("-k", "--kills", type=int, default=15)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--quiet", action="store_true", help="print only the figures")
    return parser


async def run(args: argparse.Namespace) -> int:
    """Start a server, run the plan the flags describe, print the report; 1 when it failed."""
    plan = CrashPlan(
        reminders=args.reminders, span=args.span, kills=args.kills, seed=args.seed, lead=4.0,
        lease_wait=120.0,
    )  # fmt: skip
    workdir = Path(tempfile.mkdtemp(prefix="assistant-pg-crash-"))
    print(
        f"crash recovery on PostgreSQL: {args.schedulers} schedulers, {plan.reminders} "
        f"reminders over {plan.span:g} s, {plan.kills} SIGKILLs, seed {plan.seed}, in {workdir}",
        flush=True,
    )
    with embedded_postgres(durable=True) as server:
        report = await run_pg_crash_test(
            plan,
            server.url(),
            workdir,
            schedulers=args.schedulers,
            progress=None if args.quiet else lambda line: print(f"  {line}", flush=True),
        )
    print(report.render(), flush=True)
    failed = bool(report.problems())
    if args.keep or failed:
        print(f"  kept {workdir} (deliveries-N.jsonl, serve-N.log)")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the flags and run the crash test."""
    return asyncio.run(run(build_parser().parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
