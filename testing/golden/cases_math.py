"""Golden phrases of the rule in ``agent/planner/rules_math.py``: arithmetic."""

from __future__ import annotations

from testing.golden.check import Golden, says


def _golden(sentence: str, *answer: str) -> Golden:
    return Golden(sentence, says(*answer))


CASES: dict[str, tuple[Golden, ...]] = {
    "arithmetic": (
        _golden("what is 12 times 12?", "12 × 12 = 144"),
        _golden("calculate (3 + 4) * 2", "(3 + 4) × 2 = 14"),
        _golden("what's 15% of 80?", "15% of 80 = 12"),
        _golden("how much is 7 divided by 2", "7 ÷ 2 = 3.5"),
        _golden("2^10", "2^10 = 1024"),
        _golden("what is 1 / 0", "divides by zero"),
        _golden("what is 10 / 3", "10 ÷ 3 = 3.333333333 (about; exactly 10/3)"),
    ),
}
