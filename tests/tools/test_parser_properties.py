"""Properties of ``tools.ToolParser``: it never raises on anything a model writes, it stays
linear, and every supported call format round-trips.

Linearity is checked without a wall-clock threshold: parsing 1 MB of an adversarial pattern
must take less than ``MAX_RATIO`` times as long as 100 KB of the same pattern (each the best of
up to three runs). Linear code gives about 10x; a quadratic scan would give about 100x.
A time under ``TIME_FLOOR`` counts as ``TIME_FLOOR``: at tens of microseconds a busy machine's
caches and scheduler move a linear scan by more than 3x (a run in CI read 100 KB in 29 us and
1 MB in 1.5 ms), while a quadratic scan of 1 MB takes seconds, so the test still tells them apart.
"""

from __future__ import annotations

import json
import keyword
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.strategies import model_replies
from tools import ToolParser

ANY_NAME = ToolParser()
KNOWN_NAMES = ToolParser(tool_names=["search", "f", "g", "get-time"])
FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
MAX_RATIO = 30.0
SMALL = 100_000
LARGE = 1_000_000
TIME_FLOOR = 0.0005


def growth(large_time: float, small_time: float) -> float:
    """How many times longer the large text took than the small one (see ``TIME_FLOOR``)."""
    return large_time / max(small_time, TIME_FLOOR)


# --- never raises ----------------------------------------------------------------------------

_SYNTAX = [
    "{", "}", "[", "]", "(", ")", '"', "'", "`", "```", "```json\n", "\\", "\\u12", "\n", " ",
    ",", ":", "=", "//", "<tool_call>", "</tool_call>", "[TOOL_CALLS]", "[ARGS]",
    "<function=f>", "</function>", '"name"', '"tool"', '"args"', '"arguments"', '"function"',
    '"tool_calls"', '"type"', '"final"', "f(", "a=", "True", "null", "1", "-", "1e", "x",
    "\ud800", "\x00", "é",
]  # fmt: skip
SYNTAX_SOUP = st.lists(st.sampled_from(_SYNTAX), max_size=80).map("".join)
BINARYISH = st.binary(max_size=400).map(lambda raw: raw.decode("utf-8", "surrogateescape"))
ANY_CHARACTERS = st.text(st.characters(exclude_categories=()), max_size=300)


def _check_invariants(text: str, parser: ToolParser = ANY_NAME) -> None:
    """Every call is well-formed, in order, and points at the text it was read from; a reply
    without calls is left as it is."""
    calls = parser.extract_calls(text)
    stripped = parser.strip_calls(text)
    assert isinstance(stripped, str)
    if not calls:
        assert stripped == text
    answer = parser.final_answer(text)
    assert answer is None or answer.text is None or isinstance(answer.text, str)
    previous_end = 0
    for call in calls:
        assert call.span is not None
        start, end = call.span
        assert previous_end <= start < end <= len(text)
        assert text[start:end] == call.raw_json
        assert isinstance(call.arguments, dict)
        assert call.tool_name and call.tool_name == call.tool_name.strip()
        previous_end = end


@settings(FUZZ, max_examples=400)
@given(
    text=st.one_of(ANY_CHARACTERS, SYNTAX_SOUP, BINARYISH, model_replies()),
    known=st.booleans(),
)
def test_never_raises_on_any_text(text: str, known: bool) -> None:
    _check_invariants(text, KNOWN_NAMES if known else ANY_NAME)


@FUZZ
@given(
    prose=st.text(max_size=40),
    body=st.sampled_from(['{"name": "f", "arguments": {"a": 1}}', "[f(a=1), g()]"]),
    cut=st.integers(min_value=0, max_value=60),
)
def test_a_reply_cut_anywhere_never_raises(prose: str, body: str, cut: int) -> None:
    text = (prose + "\n```json\n" + body + "\n```\n" + prose)[: len(prose) + cut]
    for parser in (ANY_NAME, KNOWN_NAMES):
        _check_invariants(text, parser)


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(SYNTAX_SOUP, BINARYISH).filter(bool))
def test_never_raises_on_megabytes(chunk: str) -> None:
    text = chunk * (1_000_000 // len(chunk) + 1)
    _check_invariants(text)


# --- linear time, and good calls after broken ones --------------------------------------

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
    large_time = best_time(large, runs=3, good_enough=max(small_time, TIME_FLOOR) * MAX_RATIO)
    ratio = growth(large_time, small_time)
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
    assert growth(large, small) < MAX_RATIO, f"1 MB took {large:.4f} s, 100 KB {small:.5f} s"


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


# --- round trip ------------------------------------------------------------------------------

_NOT_A_TOOL = {"none", "null", "no_tool", "final", "final_answer"}
NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,15}", fullmatch=True).filter(
    lambda name: not keyword.iskeyword(name) and name not in _NOT_A_TOOL
)
KEYS = st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True).filter(
    lambda key: not keyword.iskeyword(key)
)
_TRICKY = ["{", "}", "[", "]", '"', "'", "`", "```", "\n", "\\", "</tool_call>", "[TOOL_CALLS]"]
STRINGS = st.one_of(
    st.text(max_size=12),
    st.lists(st.sampled_from([*_TRICKY, "a", " ", "é"]), max_size=12).map("".join),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63),
    st.floats(allow_nan=False, allow_infinity=False),
    STRINGS,
)
VALUES = st.recursive(
    SCALARS,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(STRINGS, children, max_size=3)
    ),
    max_leaves=8,
)
ARGUMENTS = st.dictionaries(KEYS, VALUES, max_size=4)
PROSE = st.text(st.characters(exclude_characters="`{[<"), max_size=40)

Render = Callable[[str, dict[str, Any]], str]


def _pythonic(name: str, arguments: dict[str, Any]) -> str:
    keywords = ", ".join(f"{key}={value!r}" for key, value in arguments.items())
    return f"[{name}({keywords})]"


def _trailing_comma(name: str, arguments: dict[str, Any]) -> str:
    return json.dumps({"tool": name, "args": arguments})[:-1] + ",}"


FORMATS: dict[str, Render] = {
    "contract fence": lambda n, a: "```json\n" + json.dumps({"tool": n, "args": a}) + "\n```",
    "untagged fence, arguments and reason": lambda n, a: (
        "```\n"
        + json.dumps({"tool": n, "arguments": a, "reason": "the user asked"}, indent=2)
        + "\n```"
    ),
    "uppercase fence, array": lambda n, a: (
        "```JSON\n" + json.dumps([{"name": n, "arguments": a}]) + "\n```"
    ),
    "bare type tool_call": lambda n, a: json.dumps(
        {"type": "tool_call", "name": n, "arguments": a}, ensure_ascii=False
    ),
    "bare name arguments": lambda n, a: json.dumps({"name": n, "arguments": a}),
    "bare name parameters": lambda n, a: json.dumps({"name": n, "parameters": a}),
    "openai function, JSON string": lambda n, a: json.dumps(
        {"type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
    ),
    "react action": lambda n, a: json.dumps({"action": n, "action_input": a}),
    "tool_call tag": lambda n, a: (
        "<tool_call>\n"
        + json.dumps({"name": n, "arguments": a}, ensure_ascii=False)
        + "\n</tool_call>"
    ),
    "mistral list": lambda n, a: "[TOOL_CALLS][" + json.dumps({"name": n, "arguments": a}) + "]",
    "mistral name[ARGS]": lambda n, a: f"[TOOL_CALLS]{n}[ARGS]{json.dumps(a)}",
    "llama function tag": lambda n, a: f"<function={n}>{json.dumps(a)}</function>",
    "pythonic list": _pythonic,
    "python repr in a fence": lambda n, a: "```json\n" + repr({"tool": n, "args": a}) + "\n```",
    "trailing comma": _trailing_comma,
}


@pytest.mark.parametrize("render", FORMATS.values(), ids=FORMATS.keys())
@settings(max_examples=60, deadline=None)
@given(name=NAMES, arguments=ARGUMENTS, before=PROSE, after=PROSE)
def test_every_format_round_trips(
    render: Render, name: str, arguments: dict[str, Any], before: str, after: str
) -> None:
    reply = f"{before}\n{render(name, arguments)}\n{after}"

    calls = ANY_NAME.extract_calls(reply)

    assert [(call.tool_name, call.arguments) for call in calls] == [(name, arguments)]
    assert ANY_NAME.strip_calls(reply).split() == f"{before} {after}".split()


@settings(max_examples=60, deadline=None)
@given(name=NAMES, arguments=ARGUMENTS, before=PROSE)
def test_a_reply_cut_off_before_its_closing_brackets_round_trips(
    name: str, arguments: dict[str, Any], before: str
) -> None:
    reply = f"{before}\n```json\n" + json.dumps({"tool": name, "args": arguments})[:-1]

    calls = ANY_NAME.extract_calls(reply)

    assert [(call.tool_name, call.arguments) for call in calls] == [(name, arguments)]


@settings(max_examples=40, deadline=None)
@given(calls=st.lists(st.tuples(NAMES, ARGUMENTS), min_size=2, max_size=4), prose=PROSE)
def test_several_calls_in_mixed_formats_keep_their_order(
    calls: list[tuple[str, dict[str, Any]]], prose: str
) -> None:
    renders = list(FORMATS.values())
    reply = prose.join(
        "\n" + renders[index % len(renders)](name, arguments) + "\n"
        for index, (name, arguments) in enumerate(calls)
    )

    found = ANY_NAME.extract_calls(reply)

    assert [(call.tool_name, call.arguments) for call in found] == calls
