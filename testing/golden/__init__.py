"""The offline planner's golden phrases: sentences each rule must get right, and their check.

    app            the application they are said to (``golden_app``), and ``check_every``
    check          ``Golden`` and what must come of it (``Creates``, ``Changes``, ``Says``,
                   ``Notes``, ``Plans``), the standard ``SEEDS``, and ``check_golden``
    cases_*        the phrases, by rule name, one module per module of rules
                   (``cases_remind`` holds those of ``agent/planner/rules_remind.py``)

``GOLDEN`` is every phrase in the order of ``RULES``; ``tests/agent/planner/test_golden.py`` and
``bench.golden`` run each one through the real application.
"""

from agent.planner import RULES
from testing.golden import (
    cases_attention,
    cases_chat,
    cases_code,
    cases_jobs,
    cases_lists,
    cases_manage,
    cases_math,
    cases_remind,
    cases_watch,
)
from testing.golden.app import check_every, golden_app, planner_of
from testing.golden.check import (
    NOW,
    ZONE,
    Changes,
    Creates,
    Golden,
    Notes,
    Plans,
    Says,
    Verdict,
    check_golden,
    pass_rate,
)

CASES: dict[str, tuple[Golden, ...]] = {
    **cases_attention.CASES,
    **cases_chat.CASES,
    **cases_code.CASES,
    **cases_jobs.CASES,
    **cases_lists.CASES,
    **cases_manage.CASES,
    **cases_math.CASES,
    **cases_remind.CASES,
    **cases_watch.CASES,
}
"""Every rule's golden phrases, by the rule's name."""

GOLDEN: tuple[Golden, ...] = tuple(golden for rule in RULES for golden in CASES.get(rule.name, ()))
"""Every golden phrase, in the order the rules are tried."""

__all__ = [
    "CASES",
    "GOLDEN",
    "NOW",
    "ZONE",
    "Changes",
    "Creates",
    "Golden",
    "Notes",
    "Plans",
    "Says",
    "Verdict",
    "check_every",
    "check_golden",
    "golden_app",
    "pass_rate",
    "planner_of",
]
