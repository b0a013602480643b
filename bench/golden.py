"""The offline planner's golden set: how many of its golden phrases it gets right.

Run with ``.venv/bin/python -m bench.golden`` from the repository root (``--failures`` lists
the ones it gets wrong). Every golden phrase of every rule (``testing.golden``) is said to the
real application (the registry, executor, task manager and SQLite stores that ``assistant.app``
builds, on a manual clock at the goldens' instant, with no model and no search key, as a new
user has it) and what came of it is compared with what must. Prints the pass rate; exits 1
below 100 %.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from testing.golden import GOLDEN, Verdict, check_every, golden_app, pass_rate


async def run_golden(data_dir: Path) -> list[Verdict]:
    """Check every golden phrase against an application kept in ``data_dir``."""
    async with golden_app(data_dir) as app:
        return await check_every(app, GOLDEN)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the golden-set pass rate (and the failures when asked)."""
    parser = argparse.ArgumentParser(prog="bench.golden", description=__doc__)
    parser.add_argument("--failures", action="store_true", help="list the goldens that failed")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        verdicts = asyncio.run(run_golden(Path(tmp)))
    passed = sum(v.passed for v in verdicts)
    rate = pass_rate(verdicts)
    print(f"{'offline planner golden phrases':<46} {passed} of {len(verdicts)} pass = {rate:.1%}")
    if args.failures:
        for verdict in verdicts:
            if not verdict.passed:
                print(f"- {verdict.golden.text!r}: {verdict.problem}\n  answer: {verdict.reply!r}")
    return 0 if passed == len(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
