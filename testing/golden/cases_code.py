"""Golden phrases of the rule in ``agent/planner/rules_code.py``: code to run."""

from __future__ import annotations

from testing.golden.check import Golden, plans

CASES: dict[str, tuple[Golden, ...]] = {
    "python code to run": (
        Golden(
            "run this python code: print(2 + 2)",
            plans(lambda t: t.execute_code, code="print(2 + 2)"),
        ),
        Golden(
            "execute this code: `print(sum(range(10)))`",
            plans(lambda t: t.execute_code, code="print(sum(range(10)))"),
        ),
        Golden(
            "please run python: import math; print(math.pi)",
            plans(lambda t: t.execute_code, code="import math; print(math.pi)"),
        ),
    ),
}
