"""ToolParser on replies written the way real models write them."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import pytest

from tools import ToolCall, ToolParser


@dataclass(frozen=True)
class Case:
    """A raw model reply and the calls it holds, as ``(name, arguments)`` pairs in order."""

    id: str
    reply: str
    calls: list[tuple[str, dict[str, Any]]]


CASES = [
    # --- fenced blocks -------------------------------------------------------------------
    Case(
        "contract-fence",
        "I'll set that up.\n\n```json\n"
        '{"tool": "create_reminder", "args": {"text": "call mom", "when": "in 5 minutes"}}\n'
        "```",
        [("create_reminder", {"text": "call mom", "when": "in 5 minutes"})],
    ),
    Case(
        "fence-uppercase-tag",
        'Checking.\n```JSON\n{"tool": "get_time", "args": {}}\n```\n',
        [("get_time", {})],
    ),
    Case(
        "fence-no-tag",
        'Sure:\n```\n{"tool": "list_tasks", "args": {"status": "active"}}\n```',
        [("list_tasks", {"status": "active"})],
    ),
    Case(
        "fence-json5-tag-pretty-printed",
        '```json5\n{\n  "tool": "web_search",\n  "args": {\n    "query": "weather berlin"\n'
        "  }\n}\n```",
        [("web_search", {"query": "weather berlin"})],
    ),
    Case(
        "two-fences-in-prose",
        "First I'll look up the time, then the weather.\n\n```json\n"
        '{"tool": "get_time", "args": {"tz": "Europe/Berlin"}}\n```\n\nAnd then:\n\n```json\n'
        '{"tool": "get_weather", "args": {"city": "Berlin"}}\n```\nDone soon.',
        [("get_time", {"tz": "Europe/Berlin"}), ("get_weather", {"city": "Berlin"})],
    ),
    Case(
        "fence-with-array-of-calls",
        '```json\n[{"tool": "get_time", "args": {}}, {"tool": "list_notes", "args": {"limit": 5}}]'
        "\n```",
        [("get_time", {}), ("list_notes", {"limit": 5})],
    ),
    Case(
        "fence-one-call-per-line",
        '```json\n{"tool": "a", "args": {"x": 1}}\n{"tool": "b", "args": {"y": 2}}\n```',
        [("a", {"x": 1}), ("b", {"y": 2})],
    ),
    Case(
        "fence-inline-on-one-line",
        'Calling ```json {"tool": "get_time", "args": {}}``` now.',
        [("get_time", {})],
    ),
    Case(
        "fence-tool-arguments-reason",
        '```json\n{"tool": "cancel_task", "arguments": {"task_id": "t42"}, '
        '"reason": "the user asked to cancel it"}\n```',
        [("cancel_task", {"task_id": "t42"})],
    ),
    Case(
        "fence-with-comment-line",
        '```json\n// cancel the reminder\n{"tool": "cancel_task", "args": {"task_id": "t1"}}\n```',
        [("cancel_task", {"task_id": "t1"})],
    ),
    Case(
        "fence-code-value-with-backtick-fence",
        '```json\n{"tool": "save_note", "args": {"title": "snippet", "body": '
        '"```python\\nprint(\\"hi\\")\\n```"}}\n```\nSaved.',
        [("save_note", {"title": "snippet", "body": '```python\nprint("hi")\n```'})],
    ),
    Case(
        "fence-value-with-braces-and-quotes",
        '```json\n{"tool": "save_note", "args": {"body": "use {name} and \\"quotes\\" and }{"}}'
        "\n```",
        [("save_note", {"body": 'use {name} and "quotes" and }{'})],
    ),
    Case(
        "python-code-fence-is-not-a-call",
        "Here is how you would do it yourself:\n```python\n"
        'payload = {"name": "x", "arguments": {}}\nprint(payload)\n```',
        [],
    ),
    Case(
        "tool-code-fence-with-bare-call",
        '```tool_code\nget_weather(city="Paris", unit="celsius")\n```',
        [("get_weather", {"city": "Paris", "unit": "celsius"})],
    ),
    # --- key shapes ----------------------------------------------------------------------
    Case(
        "type-tool-call-shape",
        '{"type": "tool_call", "name": "get_time", "arguments": {"tz": "UTC"}}',
        [("get_time", {"tz": "UTC"})],
    ),
    Case(
        "name-arguments-shape",
        'Let me check. {"name": "get_weather", "arguments": {"city": "Oslo"}}',
        [("get_weather", {"city": "Oslo"})],
    ),
    Case(
        "name-parameters-shape-llama",
        '{"name": "get_weather", "parameters": {"city": "Rome", "days": 3}}',
        [("get_weather", {"city": "Rome", "days": 3})],
    ),
    Case(
        "function-with-json-string-arguments",
        '{"function": {"name": "create_reminder", "arguments": '
        '"{\\"text\\": \\"stretch\\", \\"when\\": \\"at 15:00\\"}"}}',
        [("create_reminder", {"text": "stretch", "when": "at 15:00"})],
    ),
    Case(
        "openai-tool-call-object",
        '{"id": "call_abc", "type": "function", "function": {"name": "get_time", '
        '"arguments": "{}"}}',
        [("get_time", {})],
    ),
    Case(
        "openai-message-with-tool-calls",
        '{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", '
        '"function": {"name": "a", "arguments": "{\\"x\\": 1}"}}, {"id": "c2", "type": '
        '"function", "function": {"name": "b", "arguments": ""}}]}',
        [("a", {"x": 1}), ("b", {})],
    ),
    Case(
        "null-arguments-become-empty",
        '```json\n{"tool": "get_time", "args": null}\n```',
        [("get_time", {})],
    ),
    Case(
        "react-action-shape",
        'Thought: I need the time.\n{"action": "get_time", "action_input": {"tz": "Asia/Tokyo"}}',
        [("get_time", {"tz": "Asia/Tokyo"})],
    ),
    Case("tool-none-is-not-a-call", '```json\n{"tool": "none"}\n```\nHello!', []),
    Case(
        "type-final-is-not-a-call",
        '```json\n{"type": "final", "content": "It is 14:35 in Berlin."}\n```',
        [],
    ),
    Case(
        "react-final-answer-is-not-a-call",
        '{"action": "Final Answer", "action_input": "Paris"}',
        [],
    ),
    Case("list-arguments-is-not-a-call", '{"tool": "get_time", "args": [1, 2]}', []),
    # --- tags and model-specific markers -------------------------------------------------
    Case(
        "qwen-hermes-tool-call-tag",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lisbon"}}\n</tool_call>',
        [("get_weather", {"city": "Lisbon"})],
    ),
    Case(
        "two-tool-call-tags-with-think",
        "<think>The user wants two things.</think>\n"
        '<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\n'
        '<tool_call>\n{"name": "b", "arguments": {"q": "x"}}\n</tool_call>',
        [("a", {}), ("b", {"q": "x"})],
    ),
    Case(
        "tag-with-closing-tag-inside-a-string",
        '<tool_call>{"name": "save_note", "arguments": {"body": "write </tool_call> here"}}'
        "</tool_call>",
        [("save_note", {"body": "write </tool_call> here"})],
    ),
    Case(
        "mistral-tool-calls-list",
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}, '
        '{"name": "get_time", "arguments": {}}]',
        [("get_weather", {"city": "Paris"}), ("get_time", {})],
    ),
    Case(
        "mistral-v11-name-args",
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Madrid"}',
        [("get_weather", {"city": "Madrid"})],
    ),
    Case(
        "llama-pythonic-list",
        '[get_weather(city="San Francisco", days=2), get_time(tz="America/Los_Angeles")]',
        [
            ("get_weather", {"city": "San Francisco", "days": 2}),
            ("get_time", {"tz": "America/Los_Angeles"}),
        ],
    ),
    Case(
        "llama-pythonic-literals",
        "[create_task(prompt='news, top 3', tags=['a', 'b'], urgent=True, limit=None, "
        "weights={'x': -1.5})]",
        [
            (
                "create_task",
                {
                    "prompt": "news, top 3",
                    "tags": ["a", "b"],
                    "urgent": True,
                    "limit": None,
                    "weights": {"x": -1.5},
                },
            )
        ],
    ),
    Case(
        "llama-python-tag-json",
        '<|python_tag|>{"name": "web_search", "parameters": {"query": "llama 3"}}<|eom_id|>',
        [("web_search", {"query": "llama 3"})],
    ),
    Case(
        "llama-function-tag",
        '<function=get_weather>{"city": "Vienna"}</function>',
        [("get_weather", {"city": "Vienna"})],
    ),
    # --- damage --------------------------------------------------------------------------
    Case(
        "trailing-commas",
        '```json\n{"tool": "save_note", "args": {"title": "x", "tags": ["a", "b",],},}\n```',
        [("save_note", {"title": "x", "tags": ["a", "b"]})],
    ),
    Case(
        "single-quotes-python-literals",
        "```json\n{'tool': 'set_flag', 'args': {'on': True, 'off': False, 'value': None}}\n```",
        [("set_flag", {"on": True, "off": False, "value": None})],
    ),
    Case(
        "single-quoted-string-with-double-quotes-inside",
        """{'name': 'save_note', 'arguments': {'body': 'she said "hi", it\\'s fine'}}""",
        [("save_note", {"body": 'she said "hi", it\'s fine'})],
    ),
    Case(
        "cut-off-before-closing-brackets",
        'Setting it now.\n```json\n{"tool": "create_reminder", "args": {"text": "tea", '
        '"when": "in 10 minutes"',
        [("create_reminder", {"text": "tea", "when": "in 10 minutes"})],
    ),
    Case(
        "cut-off-fence-closed-without-braces",
        '```json\n{"tool": "get_weather", "args": {"city": "Bern"}\n```\nThanks.',
        [("get_weather", {"city": "Bern"})],
    ),
    Case(
        "cut-off-inside-a-string-is-not-a-call",
        '```json\n{"tool": "send_message", "args": {"text": "Hello, I wanted to',
        [],
    ),
    Case(
        "unquoted-keys-and-missing-comma",
        '```json\n{tool: "get_time" args: {tz: "UTC"}}\n```',
        [("get_time", {"tz": "UTC"})],
    ),
    Case(
        "raw-newline-inside-a-string",
        '```json\n{"tool": "save_note", "args": {"body": "line one\nline two"}}\n```',
        [("save_note", {"body": "line one\nline two"})],
    ),
    Case(
        "broken-call-between-good-ones",
        '```json\n{"tool": "a", "args": {}}\n```\n```json\n{"tool": "b", "args": {oops: }}\n```\n'
        '```json\n{"tool": "c", "args": {"n": 3}}\n```',
        [("a", {}), ("c", {"n": 3})],
    ),
    Case(
        "broken-element-in-array",
        '[{"tool": "a", "args": {}}, {"tool": "b", "args": {"x": ]}, {"tool": "c", "args": {}}]',
        [("a", {}), ("c", {})],
    ),
    # --- data, not calls -----------------------------------------------------------------
    Case(
        "json-data-in-prose",
        'Your settings are {"timezone": "Europe/Berlin", "language": "de"}; anything else?',
        [],
    ),
    Case(
        "json-data-in-fence",
        '```json\n{"results": [{"title": "a"}, {"title": "b"}], "count": 2}\n```',
        [],
    ),
    Case(
        "data-wrapping-a-call-shape",
        '{"log": {"name": "get_time", "arguments": {}}, "at": "12:00"}',
        [],
    ),
    Case("plain-prose", "It is 14:35 in Berlin. Anything else I can do?", []),
    Case("markdown-links-and-lists", "See [the docs](https://x.org) and [1] or [a, b].", []),
    Case("prose-with-stray-braces", "Use {braces} like this: { and } or {'", []),
    Case("empty", "", []),
]


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_extract_calls_reads_real_replies(case: Case) -> None:
    calls = ToolParser().extract_calls(case.reply)

    assert [(call.tool_name, call.arguments) for call in calls] == case.calls


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_span_and_raw_json_point_at_the_parsed_text(case: Case) -> None:
    for call in ToolParser().extract_calls(case.reply):
        assert call.span is not None
        start, end = call.span
        assert case.reply[start:end] == call.raw_json
        assert call.raw_json.strip() == call.raw_json != ""


def test_calls_get_distinct_ids() -> None:
    calls = ToolParser().extract_calls("[f(), g(), h()]")

    assert len({call.id for call in calls}) == 3


def test_tool_names_filter_bare_objects_in_prose() -> None:
    parser = ToolParser(tool_names=["get_weather", "get-time"])
    reply = (
        'The record is {"name": "Alice", "parameters": {"age": 30}}. '
        'Now: {"name": "get_weather", "parameters": {"city": "Oslo"}} '
        '{"name": "get_time", "arguments": {}}'
    )

    names = [call.tool_name for call in parser.extract_calls(reply)]

    assert names == ["get_weather", "get_time"]


def test_tool_names_never_filter_fenced_or_tagged_calls() -> None:
    parser = ToolParser(tool_names=["get_weather"])
    reply = (
        '```json\n{"tool": "no_such_tool", "args": {}}\n```\n'
        '<tool_call>{"name": "other", "arguments": {}}</tool_call>\n'
        '[TOOL_CALLS][{"name": "third", "arguments": {}}]'
    )

    names = [call.tool_name for call in parser.extract_calls(reply)]

    assert names == ["no_such_tool", "other", "third"]


@pytest.mark.parametrize(
    "reply",
    [
        'Reading it: {"tool": "files.read_file", "args": {"path": "/a"}}',
        '```json\n{"tool": "files.read_file", "args": {"path": "/a"}}\n```',
        '<tool_call>{"name": "files.read_file", "arguments": {"path": "/a"}}</tool_call>',
        '[TOOL_CALLS]files.read_file[ARGS]{"path": "/a"}',
        '<function=files.read_file>{"path": "/a"}</function>',
        'Sure. [files.read_file(path="/a")]',
    ],
)
def test_an_mcp_tools_dotted_name_is_read_in_every_dialect(reply: str) -> None:
    parser = ToolParser(tool_names=["files.read_file", "get_time"])

    calls = [(call.tool_name, call.arguments) for call in parser.extract_calls(reply)]

    assert calls == [("files.read_file", {"path": "/a"})]


def test_pythonic_list_in_prose_must_be_all_calls() -> None:
    parser = ToolParser()

    assert parser.extract_calls("as in [print(x), 3] above") == []
    assert [c.tool_name for c in parser.extract_calls("ok [get_time()] done")] == ["get_time"]


def test_pythonic_calls_are_never_evaluated() -> None:
    reply = '[run(cmd=__import__("os").system("echo pwned")), get_time()]'

    assert ToolParser().extract_calls(reply) == []


# --- strip_calls ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "stripped"),
    [
        (
            'I\'ll remind you.\n\n```json\n{"tool": "create_reminder", "args": {}}\n```\n\n'
            "Anything else?",
            "I'll remind you.\n\nAnything else?",
        ),
        ('Sure. {"name": "get_time", "arguments": {}} Done.', "Sure. Done."),
        ('<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>', ""),
        (
            'One\n```json\n{"tool": "a", "args": {}}\n```\nTwo\n\n\n'
            '```json\n{"tool": "b", "args": {}}\n```\n\n\n\nThree',
            "One\nTwo\n\nThree",
        ),
        ('[TOOL_CALLS][{"name": "a", "arguments": {}}]', ""),
        ("Checking now: [get_time()]", "Checking now:"),
        (
            'Data stays: ```json\n{"count": 2}\n``` and calls go: {"tool": "x", "args": {}}',
            'Data stays: ```json\n{"count": 2}\n``` and calls go:',
        ),
    ],
)
def test_strip_calls_removes_call_blocks(reply: str, stripped: str) -> None:
    assert ToolParser().strip_calls(reply) == stripped


def test_strip_calls_leaves_text_without_calls_unchanged() -> None:
    reply = '  Hello {"tool": "none"}\n\n\n  world  '

    assert ToolParser().strip_calls(reply) == reply


# --- robustness ----------------------------------------------------------------------------


def _cpu_seconds(parser: ToolParser, text: str) -> float:
    start = time.process_time()
    parser.extract_calls(text)
    parser.strip_calls(text)
    return time.process_time() - start


@pytest.mark.parametrize(
    "text",
    [
        '{"a":' * 50_000,
        "[" * 250_000,
        "{" * 250_000,
        '{"' * 125_000,
        "{'" * 125_000,
        "<tool_call>" * 25_000,
        "```json\n{" * 30_000,
        "[f(" * 80_000,
        "[TOOL_CALLS]" * 20_000,
        '"\\' * 125_000,
        "`" * 250_000,
        "\ud800{" * 125_000,
    ],
    ids=lambda text: repr(text[:12]),
)
def test_adversarial_input_is_parsed_in_linear_time(text: str) -> None:
    # 250 kB each; a quadratic pass would take minutes, a linear one well under a second.
    assert _cpu_seconds(ToolParser(), text) < 3.0


def test_a_call_after_a_megabyte_of_prose_is_found() -> None:
    prose = "Lorem ipsum [dolor](sit) amet, <b>consectetur</b> `x` {adipiscing}. " * 15_000
    reply = prose + '\n```json\n{"tool": "get_time", "args": {}}\n```'

    calls = ToolParser().extract_calls(reply)

    assert [call.tool_name for call in calls] == ["get_time"]


def test_a_large_argument_is_read_whole() -> None:
    body = "x{}[]`'\"\n" * 20_000
    reply = "```json\n" + json.dumps({"tool": "save_note", "args": {"body": body}}) + "\n```"

    calls = ToolParser().extract_calls(reply)

    assert [call.arguments for call in calls] == [{"body": body}]


def test_extract_calls_returns_tool_calls() -> None:
    calls = ToolParser().extract_calls('{"tool": "a", "args": {"k": "v"}}')

    assert calls == [
        ToolCall(
            tool_name="a",
            arguments={"k": "v"},
            raw_json='{"tool": "a", "args": {"k": "v"}}',
            span=(0, 33),
            id=calls[0].id,
        )
    ]


@pytest.mark.parametrize(
    ("reply", "text", "reason"),
    [
        ('{"type": "final", "content": "It is 14:35."}', "It is 14:35.", None),
        ('```json\n{"type": "final", "content": "Done."}\n```', "Done.", None),
        ("{'type': 'final', 'answer': 'Damaged but fine.',}", "Damaged but fine.", None),
        ('{"final_answer": "42"}', "42", None),
        ('{"action": "Final Answer", "action_input": "Paris."}', "Paris.", None),
        ('{"tool": "none", "reason": "small talk", "arguments": {}}', None, "small talk"),
        ('{"tool": "none", "reason": "small talk", "answer": "Hi!"}', "Hi!", "small talk"),
    ],
)
def test_a_reply_that_is_one_json_answer_is_read_as_the_answer(
    reply: str, text: str | None, reason: str | None
) -> None:
    answer = ToolParser().final_answer(reply)
    assert answer is not None
    assert (answer.text, answer.reason) == (text, reason)


@pytest.mark.parametrize(
    ("reply", "text"),
    [
        ('Here it is:\n{"type": "final", "content": "Hello!"}', "Hello!"),
        ('Sure.\n```json\n{"type": "final", "content": "Done."}\n```\nAnything else?', "Done."),
        (
            'I can answer that myself.\n```json\n{"tool": "none", "reason": "chat"}\n```',
            "I can answer that myself.",
        ),
        ('{"tool": "none", "reason": "chat", "arguments": {}}\nHi there!', "Hi there!"),
    ],
)
def test_an_unmistakable_answer_among_prose_is_read(reply: str, text: str) -> None:
    answer = ToolParser.final_answer(reply)
    assert answer is not None and answer.text == text


def test_data_among_prose_is_not_an_answer() -> None:
    reply = 'A chat message looks like this:\n{"type": "text", "text": "hi"}'
    assert ToolParser.final_answer(reply) is None


def test_a_plan_of_steps_is_read_as_its_calls_in_order() -> None:
    reply = (
        '```json\n{"plan": [{"tool": "load", "sequence": 1, "args": {"path": "a.csv"}},\n'
        '{"tool": "plot", "sequence": 2, "args": {"y": "revenue"}}]}\n```'
    )
    calls = ToolParser.extract_calls(reply)
    assert [(c.tool_name, c.arguments) for c in calls] == [
        ("load", {"path": "a.csv"}),
        ("plot", {"y": "revenue"}),
    ]


@pytest.mark.parametrize(
    "reply",
    [
        "It is 14:35.",
        '{"tool": "get_time", "args": {}}',
        '{"type": "tool_call", "name": "get_time", "arguments": {}}',
        '{"city": "Paris"}',
        'Here: {"type": "final", "content": "prose around it is not a JSON answer"}',
        '{"type": "final", "content": "cut off',
    ],
)
def test_calls_data_and_prose_are_not_answers(reply: str) -> None:
    assert ToolParser().final_answer(reply) is None


def test_the_methods_work_on_the_class_as_a_parser_that_knows_no_names() -> None:
    reply = 'Sure.\n```json\n{"tool": "water_plants", "args": {"bed": "north"}}\n```'

    [call] = ToolParser.extract_calls(reply)

    assert (call.tool_name, call.arguments) == ("water_plants", {"bed": "north"})
    assert ToolParser.strip_calls(reply) == "Sure."
    assert ToolParser.final_answer('{"type": "final", "content": "Watered."}') is not None
    # An instance keeps its filter: a bare object in prose must name a known tool.
    bare = 'Try {"tool": "water_plants", "args": {}} later.'
    assert ToolParser(tool_names=["prune"]).extract_calls(bare) == []
    assert len(ToolParser.extract_calls(bare)) == 1
