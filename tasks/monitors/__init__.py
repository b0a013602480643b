"""Monitors: what a monitor looks at, when it speaks, and what it says changed.

    conditions   a condition in words or a simple expression ("contains 'in stock'",
                 "< 300"), read into a ``Condition`` and judged on what was seen
    fields       a field of a JSON document named by a path ("data.items[0].price")
    observing    ``Observation``: the last thing a monitor saw (one per task, in the store),
                 and ``judge``: whether what it sees now is worth a message, and which
    diff         a short account of what changed between two observations
    wording      what a person is told when a monitor cannot be made, with examples

Pure values and functions: the ``monitor`` runner (``tasks.runners.monitor``) fetches, the
store keeps the observation, these decide.
"""

from tasks.monitors.conditions import (
    Condition,
    ConditionKind,
    first_number,
    parse_condition,
    read_condition,
)
from tasks.monitors.diff import change_line, short_diff
from tasks.monitors.fields import check_field, read_field, value_text
from tasks.monitors.observing import MAX_OBSERVED, Judgement, Observation, judge
from tasks.monitors.wording import (
    EVERY_EXAMPLES,
    MONITOR_EXAMPLES,
    PAGE_EXAMPLE,
    how_often_problem,
    problems_sentence,
)

__all__ = [
    "EVERY_EXAMPLES",
    "MAX_OBSERVED",
    "MONITOR_EXAMPLES",
    "PAGE_EXAMPLE",
    "Condition",
    "ConditionKind",
    "Judgement",
    "Observation",
    "change_line",
    "check_field",
    "first_number",
    "how_often_problem",
    "judge",
    "parse_condition",
    "problems_sentence",
    "read_condition",
    "read_field",
    "short_diff",
    "value_text",
]
