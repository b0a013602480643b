"""Golden phrases of the rules in ``agent/planner/rules_attention.py``: quiet hours, the
morning briefing and "done".

Quiet hours change the user's settings (no task); the briefing is a daily task; "done"
acknowledges the reminder the conversation was about, or the one named.
"""

from __future__ import annotations

from tasks import TaskStatus, TaskType
from testing.golden.check import Changes, Creates, Golden, says

_HOLD = "Messages due then wait and arrive together at"


def briefing(sentence: str, first: str, repeats: str) -> Golden:
    """A golden that starts the morning briefing."""
    return Golden(sentence, Creates(first, "morning briefing", repeats, TaskType.BRIEFING))


CASES: dict[str, tuple[Golden, ...]] = {
    "acknowledging a reminder (done)": (
        Golden(
            "done",
            says("Marked as done", "stretch"),
            setup=("remind me in 10 minutes to stretch",),
            went_off=("stretch",),
        ),
        Golden(
            "I did it",
            says("Marked as done", "water the plants"),
            setup=("remind me tomorrow at 7pm to water the plants",),
            went_off=("water the plants",),
        ),
        # The reminder that went off, not the one the chat was last about (just made).
        Golden(
            "done",
            says("Marked as done", "stretch", absent=("call mom",)),
            setup=("remind me in 10 minutes to stretch", "remind me on friday at 5pm to call mom"),
            went_off=("stretch",),
        ),
        Golden(
            "done with the dentist",
            says("Marked as done", "dentist"),
            seeded=True,
            went_off=("dentist",),
        ),
        Golden(
            "mark the plumber reminder as done",
            says("Marked as done", "call the plumber"),
            seeded=True,
            went_off=("call the plumber",),
        ),
        Golden("done", says("No reminder has gone off that could be done")),
        Golden(
            "done",
            says("No reminder has gone off that could be done"),
            setup=("remind me in 10 minutes to stretch",),
        ),
        Golden(
            "done with the dentist",
            says("has not gone off yet, so nothing was marked done", "cancel it"),
            seeded=True,
        ),
    ),
    "quiet hours": (
        Golden("quiet from 22:00 to 07:00", says("Quiet hours: from 22:00 to 07:00", _HOLD)),
        Golden("quiet hours 10pm to 7am", says("Quiet hours: from 22:00 to 07:00")),
        Golden(
            "don't disturb me between 11pm and 6:30am",
            says("Quiet hours: from 23:00 to 06:30 (Europe/Berlin)"),
        ),
        Golden("set my quiet hours to 23-6", says("Quiet hours: from 23:00 to 06:00")),
        Golden("no notifications from 21:30 until 7", says("Quiet hours: from 21:30 to 07:00")),
        Golden(
            "what are my quiet hours?",
            says("Your quiet hours: from 22:00 to 07:00"),
            setup=("quiet from 22:00 to 07:00",),
        ),
        Golden("quiet hours", says("You have no quiet hours")),
        Golden(
            "turn off quiet hours",
            says("Quiet hours are off"),
            setup=("quiet from 22:00 to 07:00",),
        ),
        Golden("quiet from 22 to 22", says("start and end at 22:00")),
    ),
    "the morning briefing": (
        briefing("morning briefing at 7:30", "2026-03-11 07:30", "every day at 07:30"),
        briefing("every morning at 7 send me a briefing", "2026-03-11 07:00", "every day at 07:00"),
        briefing("brief me every day at 8am", "2026-03-11 08:00", "every day at 08:00"),
        briefing("send me a daily briefing at 6:45", "2026-03-11 06:45", "every day at 06:45"),
        Golden("when is my morning briefing?", says("You get no morning briefing")),
        Golden(
            "stop the morning briefing",
            Changes("morning briefing", status=TaskStatus.CANCELLED),
            setup=("morning briefing at 7:30",),
        ),
    ),
}
