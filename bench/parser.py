"""How fast ``ToolParser`` reads replies, next to a naive fence-regex + ``json.loads`` baseline.

Run with ``.venv/bin/python bench/parser.py`` (or ``-m bench.parser``). Prints microseconds per
reply for a typical ~300-byte reply with one call and a ~20 KB reply with three fenced calls in
prose, for both parsers, with the ratio; then the time for megabyte-sized garbage and
adversarial inputs, which must stay linear.
"""

from __future__ import annotations

import json
import random
import re
import sys
import time
import timeit
from collections.abc import Callable

from tools import ToolCall, ToolParser

_ROUNDS = 40
_NAIVE_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)

TYPICAL = (
    "Sure, I'll remind you to call your mom in five minutes. I'm setting the reminder now "
    "so it arrives on time.\n\n"
    "```json\n"
    '{"tool": "create_reminder", "args": {"text": "Call mom", "when": "in 5 minutes"}}\n'
    "```\n\n"
    "I'll confirm the exact time once it is scheduled."
)

_PARAGRAPH = (
    "The top stories this morning cover markets, weather and a few local events. Stocks "
    "opened slightly higher after the central bank kept rates unchanged, while bond yields "
    "eased. A cold front moves in tonight, so expect rain tomorrow and a high of 11 degrees. "
    "See [the forecast](https://example.org/weather) for details; the city council meets at "
    "6 pm to discuss the new cycling lanes, and the library extends its opening hours.\n\n"
)


def _large_reply() -> str:
    calls = [
        {"tool": "web_search", "args": {"query": "top US news today", "limit": 3}},
        {
            "tool": "create_task",
            "args": {"prompt": "Send me the top 3 news", "schedule": "0 9 * * 1-5"},
        },
        {
            "tool": "save_note",
            "args": {"title": "News", "body": 'Remember {braces} and "quotes"'},
        },
    ]
    parts: list[str] = []
    for call in calls:
        parts.append(_PARAGRAPH * 14)
        parts.append("```json\n" + json.dumps(call) + "\n```\n\n")
    parts.append(_PARAGRAPH * 5)
    return "".join(parts)


def naive_extract(text: str) -> list[ToolCall]:
    """The baseline: find ```json fences with a regex and ``json.loads`` their content.

    It builds the same ``ToolCall`` values as the parser, so both are timed for the same
    output; it understands one key shape, strict JSON, and fences only.
    """
    calls: list[ToolCall] = []
    for match in _NAIVE_FENCE.finditer(text):
        try:
            data = json.loads(match.group(1))
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("tool"), str):
            arguments = data.get("args")
            calls.append(
                ToolCall(
                    tool_name=data["tool"],
                    arguments=arguments if isinstance(arguments, dict) else {},
                    raw_json=match.group(1),
                    span=match.span(1),
                )
            )
    return calls


def _garbage(size: int) -> str:
    rng = random.Random(20240501)
    alphabet = "abc xyz 019 {}[]()<>\"'`,:\\\n" + "\ud800é"
    return "".join(rng.choice(alphabet) for _ in range(size))


def _per_call_us(
    ours: Callable[[str], object], naive: Callable[[str], object], text: str, number: int
) -> tuple[float, float]:
    """Best time per call of each function, in microseconds.

    CPU time of this process, in alternating rounds, best round of each: a machine busy with
    other work then skews neither figure much, nor one more than the other.
    """
    timers = (
        timeit.Timer(lambda: ours(text), timer=time.process_time),
        timeit.Timer(lambda: naive(text), timer=time.process_time),
    )
    best_ours = best_naive = float("inf")
    for _ in range(_ROUNDS):
        best_ours = min(best_ours, timers[0].timeit(number=number))
        best_naive = min(best_naive, timers[1].timeit(number=number))
    return best_ours / number * 1e6, best_naive / number * 1e6


def _best_ms(function: Callable[[str], object], text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        function(text)
        best = min(best, time.process_time() - start)
    return best * 1e3


def main() -> None:
    """Print the figures."""
    parser = ToolParser()
    large = _large_reply()
    for label, text, number in (
        (f"typical reply ({len(TYPICAL)} B, 1 call)", TYPICAL, 500),
        (f"large reply ({len(large) // 1024} KB, 3 fenced calls)", large, 50),
    ):
        found, expected = len(parser.extract_calls(text)), len(naive_extract(text))
        if found != expected:
            sys.exit(f"{label}: ToolParser found {found} calls, the baseline {expected}")
        ours, naive = _per_call_us(parser.extract_calls, naive_extract, text, number)
        print(
            f"{label:40} ToolParser {ours:8.1f} us   naive {naive:8.1f} us"
            f"   ratio {ours / naive:4.2f}x"
        )
    megabyte = 1 << 20
    for label, text in (
        ("1 MB random garbage", _garbage(megabyte)),
        ("1 MB of '{\"a\":' (deep nesting)", '{"a":' * (megabyte // 5)),
        ("1 MB of '<tool_call>' (never closed)", "<tool_call>" * (megabyte // 11)),
        ("1 MB of '```json\\n{' (fences)", "```json\n{" * (megabyte // 9)),
        ("1 MB of '[f(' (unclosed calls)", "[f(" * (megabyte // 3)),
    ):
        print(f"{label:40} ToolParser {_best_ms(parser.extract_calls, text):8.1f} ms")


if __name__ == "__main__":
    main()
