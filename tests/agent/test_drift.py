"""A model's plain answer cut at its first sign of drift. The answers are what SmolLM2-135M
and Gemma 3 270M wrote (the issue's and this project's runs)."""

from __future__ import annotations

import pytest

from agent import DriftGuard, judge

EXAMPLES = [
    "what is the capital of Italy?",
    "The capital of Italy is Rome.",
    "who wrote Hamlet?",
    "William Shakespeare wrote Hamlet.",
]


@pytest.mark.parametrize(
    ("question", "answer", "kept"),
    [
        (
            "what is the capital of France?",
            "The capital of France is Paris.\nWhat are the main cities in France? wnętr\n wnętr\n"
            "The main cities in France are Paris, Bordeaux and Toulouse.",
            "The capital of France is Paris.",
        ),
        (
            "what is the capital of France?",
            "The capital of France is Paris.iatrics\npaying attention to the money?payments",
            "The capital of France is Paris.",
        ),
        (
            "what's the capital of France?",
            "The capital of France is Paris. bloodstream\npaying user\nWhat's the capital of "
            "England? bloodstream",
            "The capital of France is Paris.",
        ),
        ("thanks, that's all for now", "Thank you for your help!下次", "Thank you for your help!"),
        ("tell me a joke", "I'm a little bit tired. lecz\n(.*)", "I'm a little bit tired."),
        (
            "hi",
            "Hello! How can I help?\nUser: remind me\nAssistant: Sure.",
            "Hello! How can I help?",
        ),
    ],
)
def test_an_answer_is_kept_up_to_where_it_drifts(question: str, answer: str, kept: str) -> None:
    judged = judge(answer, question=question, examples=EXAMPLES, small=True)

    assert judged.text == kept
    assert judged.drifted and not judged.off_topic


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (
            "remind me in 10 minutes to check the oven",
            "This way, you're giving the user something to think about while they're doing "
            "their thing (the baking), so they can enjoy your response and make them happy.",
        ),
        (
            "what are my tasks?",
            "The user asked you to tell them what they need help with for the bake-off.",
        ),
        ("thanks, that's all for now", "thanks, that's all for now"),
        ("how many legs does a spider have?", "How many legs does a spider have? webpages"),
        ("tell me a joke", "What's the capital of Italy?\nThe answer is not a word."),
    ],
)
def test_an_answer_off_the_subject_from_its_start_leaves_nothing(
    question: str, answer: str
) -> None:
    judged = judge(answer, question=question, examples=EXAMPLES, small=True)

    assert judged.off_topic, judged.text


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("tell me a joke", "Why did the chicken cross the road? To get to the other side!"),
        ("what is 2 + 2?", "It is 4. Would you like anything else?"),
        ("who is the author of Hamlet?", "William Shakespeare is the author of Hamlet."),
        ("how do I say hello in Japanese?", "Say こんにちは (konnichiwa)."),
        ("what does the user agreement say?", "The user agreement says you may cancel anytime."),
    ],
)
def test_an_answer_on_the_subject_stands_whole(question: str, answer: str) -> None:
    judged = judge(answer, question=question, examples=EXAMPLES, small=True)

    assert judged.text == answer and not judged.drifted


def test_a_small_model_s_answer_is_capped_and_its_loose_end_dropped() -> None:
    long = "One. Two. Three. Four. Five."
    assert judge(long, question="count", small=True).text == "One. Two. Three."
    assert judge(long, question="count").text == long  # a large model's answer stands
    assert judge("Paris is the capital. and then", question="x", small=True).text == (
        "Paris is the capital."
    )


def test_while_streaming_only_judged_text_is_shown_and_drift_stops_it() -> None:
    guard = DriftGuard(question="what is the capital of France?", small=True)
    shown = []
    words = "The capital of France is Paris.\nWhat are the main cities? Lyon and Nice. More"
    for word in words.split(" "):
        shown.append(guard.feed(word + " "))
        if guard.stop:
            break

    assert "".join(shown) == "The capital of France is Paris."
    assert guard.stop
    assert not words.endswith("".join(shown))  # it stopped before the end


def test_a_call_ends_the_judging_when_tools_were_offered() -> None:
    guard = DriftGuard(question="remind me", small=True, tools=True)

    assert guard.feed("Setting it. ") == "Setting it."
    assert guard.feed('```json {"tool": "x", "role": "User: hi"}') == ""
    assert guard.calls and not guard.stop
