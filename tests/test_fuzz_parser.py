"""Fuzzing ``tools.ToolParser``: it never raises, whatever a model writes, and stays linear.

Linearity is checked without a wall-clock threshold: parsing 1 MB of an adversarial pattern
must take less than ``MAX_RATIO`` times as long as 100 KB of the same pattern (each the best of
up to three runs). Linear code gives about 10x; a quadratic scan would give about 100x.
"""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import model_replies
from tools import ToolCall, ToolParser

MAX_RATIO = 30.0
SMALL = 100_000
LARGE = 1_000_000
FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
ANY_NAME = ToolParser()
KNOWN_NAMES = ToolParser(tool_names=["search", "f", "g", "get-time"])

ADVERSARIAL_PATTERNS = {
    "open braces": "{",
    "open brackets": "[",
    "backticks": "`",
    "open json fences": "```json\n{",
    "unclosed tool_call tags": "<tool_call>{",
    "repeated [TOOL_CALLS]": "[TOOL_CALLS][",
    "valid calls": '{"name": "f", "arguments": {"a": 1}} ',
    "unterminated strings in calls": '{"tool": "f", "args": {"q": "',
}


def check_calls(text: str, calls: list[ToolCall]) -> None:
    """Every call is well-formed and points at the text it was read from."""
    for call in calls:
        assert isinstance(call.tool_name, str)
        assert isinstance(call.arguments, dict)
        assert call.span is not None
        start, end = call.span
        assert 0 <= start <= end <= len(text)
        assert call.raw_json == text[start:end]


@FUZZ
@given(text=model_replies(), known=st.booleans())
def test_the_parser_never_raises_on_any_text(text: str, known: bool) -> None:
    parser = KNOWN_NAMES if known else ANY_NAME
    calls = parser.extract_calls(text)
    check_calls(text, calls)
    stripped = parser.strip_calls(text)
    assert isinstance(stripped, str)
    if not calls:
        assert stripped == text
    answer = parser.final_answer(text)
    assert answer is None or answer.text is None or isinstance(answer.text, str)


@FUZZ
@given(
    prose=st.text(max_size=40),
    body=st.sampled_from(['{"name": "f", "arguments": {"a": 1}}', "[f(a=1), g()]"]),
    cut=st.integers(min_value=0, max_value=60),
)
def test_a_reply_cut_anywhere_never_raises(prose: str, body: str, cut: int) -> None:
    text = (prose + "\n```json\n" + body + "\n```\n" + prose)[: len(prose) + cut]
    for parser in (ANY_NAME, KNOWN_NAMES):
        check_calls(text, parser.extract_calls(text))
        assert isinstance(parser.strip_calls(text), str)


def best_time(text: str, *, runs: int, good_enough: float | None = None) -> float:
    """The shortest of up to ``runs`` parse times; stops early once under ``good_enough``."""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        ANY_NAME.extract_calls(text)
        best = min(best, time.perf_counter() - started)
        if good_enough is not None and best <= good_enough:
            break
    return best


@pytest.mark.parametrize("pattern", ADVERSARIAL_PATTERNS.values(), ids=ADVERSARIAL_PATTERNS.keys())
def test_parsing_time_grows_linearly_up_to_one_megabyte(pattern: str) -> None:
    small = (pattern * (SMALL // len(pattern) + 1))[:SMALL]
    large = (pattern * (LARGE // len(pattern) + 1))[:LARGE]
    small_time = best_time(small, runs=3)
    # Further runs of the large text can only lower its time: stop as soon as it passes.
    large_time = best_time(large, runs=3, good_enough=small_time * MAX_RATIO)
    ratio = large_time / max(small_time, 1e-6)
    assert ratio < MAX_RATIO, (
        f"{LARGE} characters took {large_time:.3f} s, {ratio:.0f}x the {small_time:.4f} s "
        f"for {SMALL}: not linear"
    )


ANSWER_PATTERNS = {
    "objects opening lines": "\n{",
    "unclosed final answers": '\n{"type": "final", "content": "',
    "fenced open braces": "```\n{",
}


@pytest.mark.parametrize("pattern", ANSWER_PATTERNS.values(), ids=ANSWER_PATTERNS.keys())
def test_reading_a_json_answer_grows_linearly_up_to_one_megabyte(pattern: str) -> None:
    def best(text: str) -> float:
        times = []
        for _ in range(5):
            started = time.perf_counter()
            ANY_NAME.final_answer(text)
            times.append(time.perf_counter() - started)
        return min(times)

    small = best((pattern * (SMALL // len(pattern) + 1))[:SMALL])
    large = best((pattern * (LARGE // len(pattern) + 1))[:LARGE])
    assert large / max(small, 1e-6) < MAX_RATIO


GOOD_CALL = '\n```json\n{"name": "f", "arguments": {"a": 1}}\n```\n'
BROKEN_PREFIXES = {
    "nested unclosed objects": '{"a": ',
    "nested unclosed python calls": "[f(a=",
    "unclosed tool_call tags": "<tool_call>{",
    "unclosed [TOOL_CALLS] lists": "[TOOL_CALLS][",
}


@pytest.mark.parametrize("prefix", BROKEN_PREFIXES.values(), ids=BROKEN_PREFIXES.keys())
def test_a_good_call_after_shallow_broken_json_is_kept(prefix: str) -> None:
    calls = ANY_NAME.extract_calls(prefix * 10 + GOOD_CALL)
    assert [(c.tool_name, c.arguments) for c in calls][-1:] == [("f", {"a": 1})]


@pytest.mark.parametrize("prefix", BROKEN_PREFIXES.values(), ids=BROKEN_PREFIXES.keys())
def test_a_good_call_after_deeply_nested_broken_json_is_kept(prefix: str) -> None:
    calls = ANY_NAME.extract_calls(prefix * 200 + GOOD_CALL)
    assert [(c.tool_name, c.arguments) for c in calls][-1:] == [("f", {"a": 1})]
