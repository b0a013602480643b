"""Golden phrases of the rules in ``agent/planner/rules_chat.py``.

Small talk, notes, reading a page, the time, questions answered from notes, web searches and
any other question: by rule name, each a sentence and what must come of it.
"""

from __future__ import annotations

from testing.golden.check import Golden, Notes, plans, says

CASES: dict[str, tuple[Golden, ...]] = {
    "greetings, thanks and help": (
        Golden("hi", says("Hello")),
        Golden("thanks!", says("welcome")),
        Golden("help", says("without a language model", "ASSISTANT_LLM_BASE_URL")),
        Golden("what can you do?", says("remind me in 10 minutes")),
    ),
    "notes": (
        Golden(
            "note: the wifi password is hunter2 #home #wifi",
            Notes("the wifi password is hunter2", ("home", "wifi")),
        ),
        Golden("remember that the car is parked on level 3", Notes("the car is parked on level 3")),
        Golden("save a note my #locker code is 4521", Notes("my locker code is 4521", ("locker",))),
        Golden("note: remind me is just a phrase", Notes("remind me is just a phrase")),
        Golden("jot down: buy more coffee filters", Notes("buy more coffee filters")),
        Golden("note", says("What should I note?")),
        Golden("note:", says("What should I note?")),
    ),
    "reading a page": (
        Golden(
            "summarize https://example.com/article",
            plans(lambda t: t.fetch_url, url="https://example.com/article"),
        ),
        Golden(
            "what's on https://news.ycombinator.com?",
            plans(lambda t: t.fetch_url, url="https://news.ycombinator.com"),
        ),
        Golden("summarize", says("Which page?")),
    ),
    "the time": (
        Golden("what time is it", says("It's 14:30 on Tuesday, 2026-03-10 (Europe/Berlin).")),
        Golden("time in Tokyo", says("It's 22:30 on Tuesday, 2026-03-10 (Asia/Tokyo).")),
        Golden(
            "what time is it in New York?",
            says("It's 09:30 on Tuesday, 2026-03-10 (America/New_York)."),
        ),
        Golden("what's the time in Atlantis", says("'Atlantis'")),
    ),
    "questions answered from notes": (
        Golden(
            "what is my wifi password?",
            says("From your notes: the wifi password is hunter2"),
            setup=("note: the wifi password is hunter2",),
        ),
        Golden(
            "where did I park?",
            says("the car is parked on level 3"),
            setup=("remember that the car is parked on level 3",),
        ),
        Golden(
            "what did I say about the locker?",
            says("locker code is 4521"),
            setup=("note: my locker code is 4521",),
        ),
        Golden(
            "what is my bike lock code?",
            says("I found nothing in your notes about 'bike lock code'"),
        ),
        Golden(
            "what's the capital of France?",
            says("nothing in your notes", "without a language model", "ASSISTANT_LLM_BASE_URL"),
        ),
    ),
    "web searches": (
        Golden("search for python asyncio tutorial", says("SERPAPI_API_KEY")),
        Golden("google 'best pizza in berlin'", says("no search service is configured")),
        Golden("search", says("What should I search for?")),
    ),
    "anything else asked": (
        Golden(
            "how tall is mount everest?", says("without a language model", "ASSISTANT_LLM_BASE_URL")
        ),
        Golden("why is the sky blue", says("I can't answer that", "ASSISTANT_LLM_BASE_URL")),
        Golden(
            "when does my passport expire?",
            says("From your notes: my passport expires in March 2027"),
            setup=("note: my passport expires in March 2027",),
        ),
        Golden(
            "what about my passport?",
            says("From your notes: my passport expires in March 2027"),
            setup=("note: my passport expires in March 2027",),
        ),
        Golden("what notes do I have?", says("/notes", "what did I save about")),
        Golden("show my notes", says("/notes")),
    ),
}
