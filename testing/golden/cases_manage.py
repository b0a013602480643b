"""Golden phrases of the rules in ``agent/planner/rules_manage.py``.

Listing tasks (all, or of one day) and acting on one (cancel, pause, resume, snooze, move),
for a user with the standard ``SEEDS`` tasks unless said otherwise.
"""

from __future__ import annotations

from tasks import TaskStatus
from testing.golden.check import Changes, Golden, says


def _moves(sentence: str, task: str, next_run: str) -> Golden:
    return Golden(sentence, Changes(task, next_run=next_run), seeded=True)


def _sets(sentence: str, task: str, status: TaskStatus) -> Golden:
    return Golden(sentence, Changes(task, status=status), seeded=True)


CASES: dict[str, tuple[Golden, ...]] = {
    "listing tasks, all or of one day": (
        Golden(
            "what are my tasks?",
            says("dentist", "gym", "take out the trash", "pay rent"),
            seeded=True,
        ),
        Golden("what's on my schedule?", says("dentist", "call mom", "news"), seeded=True),
        # the user's calendar beside the tasks
        Golden(
            "what's on my calendar tomorrow?",
            says(
                "Your tasks for tomorrow (Wed 2026-03-11)",
                "dentist",
                "On your calendar for tomorrow (Wed 2026-03-11):",
                "all day Mom's birthday (work)",
                "Wed 12:30-13:30 Team lunch, Cafe Rosa (work)",
                absent=("Yoga", "exported reminder"),
            ),
            seeded=True,
            calendar=True,
        ),
        Golden(
            "what do I have on friday",
            says("call mom", "Fri 18:00-19:00 Yoga (work)", absent=("Team lunch",)),
            seeded=True,
            calendar=True,
        ),
        Golden(
            "what's on my calendar?",
            says("On your calendar for the next 7 days:", "Team lunch", "Yoga"),
            calendar=True,
        ),
        Golden(
            "what's on my calendar tomorrow?",
            says("Nothing is scheduled for tomorrow (Wed 2026-03-11).", absent=("calendar",)),
        ),
        Golden("show my reminders", says("water the plants", "call the plumber"), seeded=True),
        Golden("list my reminders", says("dentist"), seeded=True),
        Golden("What's scheduled?", says("gym"), seeded=True),
        Golden(
            "what do I have tomorrow",
            says(
                "tomorrow (Wed 2026-03-11)",
                "dentist",
                "call the plumber",
                "news",
                absent=("gym", "call mom", "trash"),
            ),
            seeded=True,
        ),
        Golden(
            "what's on for friday?",
            says("Fri 2026-03-13", "call mom", absent=("dentist",)),
            seeded=True,
        ),
        Golden(
            "anything planned for today?",
            says("take out the trash", absent=("dentist",)),
            seeded=True,
        ),
        Golden("do I have any reminders on monday?", says("gym", absent=("dentist",)), seeded=True),
        Golden("what's coming up", says("dentist", "gym"), seeded=True),
        Golden("my reminders", says("dentist"), seeded=True),
        Golden("do I have anything on friday", says("call mom", absent=("dentist",)), seeded=True),
        Golden(
            "what have I got planned this week",
            says("this week (Mon 2026-03-09 to Sun 2026-03-15)", "dentist", absent=("gym",)),
            seeded=True,
        ),
        Golden(
            "what have I got on next week?",
            says("next week (Mon 2026-03-16 to Sun 2026-03-22)", "gym", absent=("dentist",)),
            seeded=True,
        ),
        Golden(
            "what's on this month?",
            says("this month (March 2026)", "dentist", "gym", absent=("pay rent",)),
            seeded=True,
        ),
        Golden(
            "anything on in december?",
            says("Nothing is scheduled for December 2026."),
            seeded=False,
        ),
        Golden("what are my tasks?", says("You have no tasks.")),
        Golden(
            "what do I have on sunday",
            says("Nothing is scheduled for Sun 2026-03-15"),
            seeded=False,
        ),
    ),
    "cancel, pause, resume, snooze or move one task": (
        _sets("cancel the gym reminder", "gym", TaskStatus.CANCELLED),
        _sets("delete the dentist reminder", "dentist", TaskStatus.CANCELLED),
        _sets("stop the news search", "news", TaskStatus.CANCELLED),
        _sets("remove the trash reminder", "take out the trash", TaskStatus.CANCELLED),
        _sets(
            "please cancel my reminder about the plumber", "call the plumber", TaskStatus.CANCELLED
        ),
        _sets("don't remind me about the gym anymore", "gym", TaskStatus.CANCELLED),
        _sets("get rid of the plants reminder", "water the plants", TaskStatus.CANCELLED),
        _sets("pause the news search", "news", TaskStatus.PAUSED),
        _sets("pause the plants reminder", "water the plants", TaskStatus.PAUSED),
        _sets("resume the rent reminder", "pay rent", TaskStatus.ACTIVE),
        _sets("unpause pay rent", "pay rent", TaskStatus.ACTIVE),
        _moves("snooze the trash reminder by an hour", "take out the trash", "2026-03-10 21:00"),
        _moves("snooze the dentist reminder for 30 minutes", "dentist", "2026-03-11 09:30"),
        _moves("postpone the trash reminder by 2 hours", "take out the trash", "2026-03-10 22:00"),
        _moves("snooze the trash reminder", "take out the trash", "2026-03-10 20:10"),
        _moves("push back the dentist reminder by 15 min", "dentist", "2026-03-11 09:15"),
        _moves("move the dentist reminder to 6pm", "dentist", "2026-03-11 18:00"),
        _moves("move the dentist reminder to 5", "dentist", "2026-03-11 17:00"),
        _moves("move the dentist to 10:30", "dentist", "2026-03-11 10:30"),
        _moves("reschedule the dentist to friday at 10am", "dentist", "2026-03-13 10:00"),
        _moves("move the trash reminder to 9pm", "take out the trash", "2026-03-10 21:00"),
        _moves("push the plumber reminder to 11am", "call the plumber", "2026-03-11 11:00"),
        _moves("snooze the trash reminder until 10pm", "take out the trash", "2026-03-10 22:00"),
        _moves("move call mom to tomorrow at 5pm", "call mom", "2026-03-11 17:00"),
        Golden(
            "change the gym reminder to 7pm",
            Changes("gym", next_run="2026-03-16 19:00", repeats="every Monday at 19:00"),
            seeded=True,
        ),
        Golden(
            "cancel the call reminder",
            says("2 tasks match 'call'", "call mom", "call the plumber", "Which one?"),
            seeded=True,
        ),
        Golden(
            "the plumber one",
            Changes("call the plumber", status=TaskStatus.CANCELLED),
            setup=("cancel the call reminder",),
            seeded=True,
        ),
        Golden(
            "the second one",
            Changes("call mom", status=TaskStatus.CANCELLED),
            setup=("cancel the call reminder",),
            seeded=True,
        ),
        Golden(
            "the last one",
            Changes("call mom", next_run="2026-03-13 20:00"),
            setup=("move the call reminder to 8pm",),
            seeded=True,
        ),
        Golden(
            "the dentist one",
            says("didn't understand"),
            setup=("cancel the call reminder",),
            seeded=True,
        ),
        Golden("cancel the yoga reminder", says("No task matches 'yoga'", "dentist"), seeded=True),
        Golden(
            "move the call reminder to 8pm",
            says("2 tasks match 'call'", "to 8pm'"),
            seeded=True,
        ),
        _sets("pause the water reminder", "water the plants", TaskStatus.PAUSED),
        Golden("cancel all my reminders", says("one at a time", "gym"), seeded=True),
        Golden("cancel the gym reminder", says("You have no active tasks")),
        Golden(
            "cancel it",
            Changes("buy milk", status=TaskStatus.CANCELLED),
            setup=("remind me in an hour to buy milk",),
        ),
        Golden(
            "snooze it by 10 minutes",
            Changes("buy milk", next_run="2026-03-10 15:40"),
            setup=("remind me in an hour to buy milk",),
        ),
        Golden(
            "move it to 6pm",
            Changes("buy milk", next_run="2026-03-10 18:00"),
            setup=("remind me in an hour to buy milk",),
        ),
        _moves("delay the plumber by half an hour", "call the plumber", "2026-03-11 10:30"),
        _sets(
            "I don't need the trash reminder anymore", "take out the trash", TaskStatus.CANCELLED
        ),
        _sets("turn off the news search", "news", TaskStatus.PAUSED),
        # A snooze's delay in any form, before or after the task it names
        _moves("snooze the trash reminder 2h", "take out the trash", "2026-03-10 22:00"),
        _moves("snooze the dentist reminder 90 minutes", "dentist", "2026-03-11 10:30"),
        _moves("snooze 1h30m the trash reminder", "take out the trash", "2026-03-10 21:30"),
        *(
            Golden(
                sentence,
                Changes("buy milk", next_run="2026-03-10 17:00"),
                setup=("remind me in an hour to buy milk",),
            )
            for sentence in (
                "snooze it 1h30m",
                "snooze it 90 minutes",
                "snooze it by 1h30m",
                "snooze it 1.5 hours",
                "snooze that for an hour and a half",
                "snooze the last one 90 min",
            )
        ),
        Golden(
            "snooze it half an hour",
            Changes("buy milk", next_run="2026-03-10 16:00"),
            setup=("remind me in an hour to buy milk",),
        ),
        # "it" after an answer that names no task by its id: the one task it listed
        Golden(
            "snooze it by 1h30m",
            Changes("buy milk", next_run="2026-03-10 17:00"),
            setup=("remind me in an hour to buy milk", "snooze the yoga reminder"),
        ),
        Golden(
            "snooze it a bit",
            says("I couldn't read 'a bit' as a delay or a time", "'snooze it 30 minutes'"),
            setup=("remind me in an hour to buy milk",),
        ),
        Golden("cancel", says("Which task should I cancel?")),
        Golden("snooze it", says("Which task should I snooze?")),
        Golden("move the dentist reminder", says("Where should I move it to?"), seeded=True),
    ),
}
