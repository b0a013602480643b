"""Golden phrases of the rule in ``agent/planner/rules_jobs.py``: scheduled jobs.

Repeating searches, prompts and HTTP calls, as a new user has them: no model, no search key.
"""

from __future__ import annotations

from tasks import TaskType
from testing.golden.check import Creates, Golden, says


def _job_at(sentence: str, first: str, text: str, repeats: str, kind: TaskType) -> Golden:
    return Golden(sentence, Creates(first, text, repeats, kind))


CASES: dict[str, tuple[Golden, ...]] = {
    "repeating searches, prompts and HTTP calls": (
        Golden(
            "every weekday at 9am search the top US news and send me the top 3",
            says(
                "no search service is configured",
                "nothing was scheduled",
                "'every weekday at 9am remind me to search for the top US news'",
            ),
        ),
        Golden(
            "every day at 8am search the web for python news and send me the top 3",
            says("SERPAPI_API_KEY", "'every day at 8am remind me to search for python news'"),
        ),
        # An agent task runs a prompt unattended: it waits for the user's approval, prompt shown.
        Golden("every day at 8am ask: what time is it in Tokyo", says("Scheduling that")),
        Golden(
            "every monday at 10am ask: summarise my week",
            says(
                "without a language model", "'every monday at 10am remind me to summarise my week'"
            ),
        ),
        Golden(
            "every day at 8am tell me a joke",
            says("I understood the schedule 'every day at 8am', but not what to do then"),
        ),
        Golden("turn off the lights at 1am daily", says("need the URL")),
        Golden(
            "tomorrow at 8am search for flights to Rome",
            says(
                "only as repeating tasks",
                "'remind me tomorrow at 8am to search for flights to Rome'",
            ),
        ),
    ),
}
