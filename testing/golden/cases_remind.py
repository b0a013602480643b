"""Golden phrases of the rule in ``agent/planner/rules_remind.py``: reminders.

One-time and repeating, the time anywhere in the sentence, with the synonyms of "remind me",
and the questions and refusals when the time or the text is missing or cannot be.
"""

from __future__ import annotations

from testing.golden.check import Creates, Golden, says


def nags(sentence: str, first: str, text: str, minutes: int, repeats: str | None = None) -> Golden:
    """A golden that creates a reminder that repeats every ``minutes`` until done."""
    return Golden(sentence, Creates(first, text, repeats, nag=minutes, urgent=False))


def urgent(sentence: str, first: str, text: str) -> Golden:
    """A golden that creates a reminder that passes quiet hours."""
    return Golden(sentence, Creates(first, text, urgent=True))


def once(sentence: str, first: str, text: str) -> Golden:
    """A golden that creates a one-time reminder."""
    return Golden(sentence, Creates(first, text))


def every(sentence: str, first: str, text: str, repeats: str) -> Golden:
    """A golden that creates a repeating reminder."""
    return Golden(sentence, Creates(first, text, repeats))


CASES: dict[str, tuple[Golden, ...]] = {
    "reminders, one-time or repeating": (
        # the sentences
        every(
            "remind me every sunday evening at 7 to plan the week",
            "2026-03-15 19:00",
            "plan the week",
            "every Sunday at 19:00",
        ),
        once("remind me tomorrow morning to email Sam", "2026-03-11 09:00", "email Sam"),
        once("remind me this evening to call dad", "2026-03-10 19:00", "call dad"),
        urgent("wake me up at 6:45 tomorrow", "2026-03-11 06:45", "wake up"),
        # issue 28: reminders that nag until done, and urgent ones (they pass quiet hours)
        nags(
            "remind me at 9pm to take the pills and keep reminding me every 10 minutes until "
            "I say done",
            "2026-03-10 21:00",
            "take the pills",
            10,
        ),
        nags("nag me every 15 minutes to call the bank", "2026-03-10 14:45", "call the bank", 15),
        nags("keep reminding me to drink water until done", "2026-03-10 14:40", "drink water", 10),
        nags(
            "remind me in 5 minutes to feed the cat, repeat every 5 minutes until done",
            "2026-03-10 14:35",
            "feed the cat",
            5,
        ),
        nags(
            "remind me every day at 8am to take my vitamins until I say done",
            "2026-03-11 08:00",
            "take my vitamins",
            10,
            "every day at 08:00",
        ),
        urgent(
            "urgent: remind me at 23:30 to take the medicine",
            "2026-03-10 23:30",
            "take the medicine",
        ),
        urgent(
            "remind me urgently in 5 minutes to turn off the stove",
            "2026-03-10 14:35",
            "turn off the stove",
        ),
        urgent("set an alarm for 6:30", "2026-03-11 06:30", "Alarm"),
        every(
            "on the first of every month at 9 remind me to pay the credit card",
            "2026-04-01 09:00",
            "pay the credit card",
            "every month on the 1st at 09:00",
        ),
        Golden(
            "remind me in -5 minutes to time travel",
            says("in the past", "'remind me in 5 minutes to time travel'"),
        ),
        # the calendar's ways of repeating (RRULE users' words)
        every(
            "remind me every other friday at 5pm to pay the babysitter",
            "2026-03-13 17:00",
            "pay the babysitter",
            "every other week on Friday at 17:00",
        ),
        every(
            "remind me every last weekday of the month to submit timesheets",
            "2026-03-31 09:00",
            "submit timesheets",
            "every month on the last weekday at 09:00",
        ),
        every(
            "every weekday at 9 except holidays remind me to open the shop",
            "2026-03-11 09:00",
            "open the shop",
            "every weekday at 09:00, except US federal holidays",
        ),
        every(
            "remind me every day at 8 until march 20 to take vitamins",
            "2026-03-11 08:00",
            "take vitamins",
            "every day at 08:00, until Fri 2026-03-20",
        ),
        every(
            "remind me every monday at 7 for 10 times to do the physio exercises",
            "2026-03-16 07:00",
            "do the physio exercises",
            "every Monday at 07:00, 10 times, until 2026-05-18 07:00",
        ),
        every(
            "remind me to write in my journal every day at 9pm except christmas",
            "2026-03-10 21:00",
            "write in my journal",
            "every day at 21:00, except Christmas",
        ),
        # the time first, in the middle, or last
        once("remind me in 10 minutes to check the oven", "2026-03-10 14:40", "check the oven"),
        once("remind me to call mom tomorrow at 6pm", "2026-03-11 18:00", "call mom"),
        once("at 9am remind me to take my pills", "2026-03-11 09:00", "take my pills"),
        once(
            "remind me at 17:45 to leave for the train", "2026-03-10 17:45", "leave for the train"
        ),
        once(
            "remind me on friday at 5pm that the rent is due", "2026-03-13 17:00", "the rent is due"
        ),
        once("remind me to check the oven in 10 min", "2026-03-10 14:40", "check the oven"),
        once("in 10 minutes remind me to check the oven", "2026-03-10 14:40", "check the oven"),
        once(
            "Pls remind me to stretch in 1 hour and 15 minutes please",
            "2026-03-10 15:45",
            "stretch",
        ),
        once('remind me, in 5 minutes, to "feed the cat"!', "2026-03-10 14:35", "feed the cat"),
        once(
            "  REMIND   ME in 2 hours TO water the plants.  ",
            "2026-03-10 16:30",
            "water the plants",
        ),
        once("Can you remind me about the dentist tomorrow?", "2026-03-11 09:00", "the dentist"),
        once("set a reminder for tomorrow at 9am to email Bob", "2026-03-11 09:00", "email Bob"),
        once("reminder: call the bank tomorrow at 10am", "2026-03-11 10:00", "call the bank"),
        once("remind me to read chapter 5 at 9pm", "2026-03-10 21:00", "read chapter 5"),
        once("remind me to take the 8:15 train at 7:30", "2026-03-10 19:30", "take the 8:15 train"),
        once("remember to call mom at 5pm", "2026-03-10 17:00", "call mom"),
        once("tomorrow at 6pm, remind me to call mom", "2026-03-11 18:00", "call mom"),
        once("remind me to pay the rent on March 3 at 8:15", "2027-03-03 08:15", "pay the rent"),
        once("remind me in half an hour to stir the soup", "2026-03-10 15:00", "stir the soup"),
        once("remind me on 2026-04-01T09:00 to tell a joke", "2026-04-01 09:00", "tell a joke"),
        once("remind me the day after tomorrow at 10am to pay", "2026-03-12 10:00", "pay"),
        once("remind me tomorrow to call mom at 6pm", "2026-03-11 18:00", "call mom"),
        once(
            "remind me at 7 to leave for the station at 7:30",
            "2026-03-10 19:00",
            "leave for the station at 7:30",
        ),
        once(
            "remind me at 9am to book the flight for March 3",
            "2026-03-11 09:00",
            "book the flight for March 3",
        ),
        once(
            "remind me to stir the soup for 5 minutes at 6pm",
            "2026-03-10 18:00",
            "stir the soup for 5 minutes",
        ),
        once(
            "remind me to prepare for my 5pm call at 4:30pm",
            "2026-03-10 16:30",
            "prepare for my 5pm call",
        ),
        # synonyms of "remind me"
        once("ping me in 20 minutes to check the laundry", "2026-03-10 14:50", "check the laundry"),
        once("nudge me at 4pm to stand up", "2026-03-10 16:00", "stand up"),
        once(
            "don't let me forget to call the plumber tomorrow",
            "2026-03-11 09:00",
            "call the plumber",
        ),
        once("do not let me forget the milk tonight", "2026-03-10 20:00", "the milk"),
        once(
            "don't forget to water the plants on saturday", "2026-03-14 09:00", "water the plants"
        ),
        once("wake me up at 7", "2026-03-11 07:00", "wake up"),
        once("wake me at 6:30 tomorrow to go running", "2026-03-11 06:30", "go running"),
        once("set an alarm for 7am", "2026-03-11 07:00", "Alarm"),
        once(
            "set an alarm for 6am tomorrow to catch the flight",
            "2026-03-11 06:00",
            "catch the flight",
        ),
        once("set a timer for 10 minutes", "2026-03-10 14:40", "Timer"),
        once(
            "alert me in 45 minutes to take the cake out", "2026-03-10 15:15", "take the cake out"
        ),
        once("tell me to call Anna at 8pm", "2026-03-10 20:00", "call Anna"),
        once(
            "text me tomorrow at noon to book the restaurant",
            "2026-03-11 12:00",
            "book the restaurant",
        ),
        # parts of the day
        once("remind me tonight to lock the door", "2026-03-10 20:00", "lock the door"),
        once(
            "remind me this afternoon to send the invoice", "2026-03-10 15:00", "send the invoice"
        ),
        once("remind me tomorrow evening at 7 to call grandma", "2026-03-11 19:00", "call grandma"),
        once("remind me friday evening to buy flowers", "2026-03-13 19:00", "buy flowers"),
        once("remind me tonight at 11 to take the pills", "2026-03-10 23:00", "take the pills"),
        once(
            "remind me tonight at midnight to check the bread",
            "2026-03-11 00:00",
            "check the bread",
        ),
        once(
            "remind me at 7 in the evening to water the garden",
            "2026-03-10 19:00",
            "water the garden",
        ),
        once("remind me in the morning to buy bread", "2026-03-11 09:00", "buy bread"),
        Golden(
            "remind me this morning to call the office",
            says("has already passed", "tomorrow morning"),
        ),
        # days and dates
        once(
            "remind me on the 3rd of next month to renew the parking permit",
            "2026-04-03 09:00",
            "renew the parking permit",
        ),
        once(
            "remind me on the last day of the month to send the report",
            "2026-03-31 09:00",
            "send the report",
        ),
        once(
            "remind me next monday at 8 to call the school", "2026-03-16 08:00", "call the school"
        ),
        once("remind me on Dec 25 to call the family", "2026-12-25 09:00", "call the family"),
        once("remind me on Thanksgiving at 10 to call grandma", "2026-11-26 10:00", "call grandma"),
        once("remind me on new year's eve at 11pm to toast", "2026-12-31 23:00", "toast"),
        once("remind me Christmas morning to open gifts", "2026-12-25 09:00", "open gifts"),
        once(
            "remind me to buy christmas presents tomorrow",
            "2026-03-11 09:00",
            "buy christmas presents",
        ),
        once("remind me on Easter at 10 to call grandma", "2026-04-05 10:00", "call grandma"),
        Golden(
            "remind me Diwali morning to light candles",
            says("which day 'Diwali' is", "'remind me on March 3 at 9am to light candles'"),
        ),
        Golden("remind me on payday at 9 to pay rent", says("which day 'payday' is")),
        once("remind me in 3 days to water the cactus", "2026-03-13 14:30", "water the cactus"),
        # issue 22: typos read (and said), wrappers left out of what is said
        once("remind me tmrw at 6pm to buy milk", "2026-03-11 18:00", "buy milk"),
        once(
            "remind me next wensday at noon to call the bank", "2026-03-11 12:00", "call the bank"
        ),
        once("remind me tomorow at 7pm to call mom", "2026-03-11 19:00", "call mom"),
        once("remind me firday at 9 to pay rent", "2026-03-13 09:00", "pay rent"),
        once("remnd me tmrw at 6pm to buy bread", "2026-03-11 18:00", "buy bread"),
        once("actually remind me in 5 minutes to stretch", "2026-03-10 14:35", "stretch"),
        once(
            "would you mind reminding me tomorrow at 9 to call mom",
            "2026-03-11 09:00",
            "call mom",
        ),
        once(
            "I need you to remind me on the 15th at seven to water the plants",
            "2026-03-15 07:00",
            "water the plants",
        ),
        once(
            "remind me again in 5 minutes to check the oven", "2026-03-10 14:35", "check the oven"
        ),
        once("remind me at a quarter past eight to take pills", "2026-03-10 20:15", "take pills"),
        every(
            "remind me every last friday of the month to do payroll",
            "2026-03-27 09:00",
            "do payroll",
            "every month on the last Friday at 09:00",
        ),
        once(
            "remind me in a quarter of an hour to check the pasta",
            "2026-03-10 14:45",
            "check the pasta",
        ),
        once("remind me at midday to eat", "2026-03-11 12:00", "eat"),
        once("remind me in 2 weeks to cancel the trial", "2026-03-24 14:30", "cancel the trial"),
        # repeating reminders
        every(
            "every weekday at 8:30 remind me to check the mail",
            "2026-03-11 08:30",
            "check the mail",
            "every weekday at 08:30",
        ),
        every(
            "remind me every day at 9am to take vitamins",
            "2026-03-11 09:00",
            "take vitamins",
            "every day at 09:00",
        ),
        every(
            "remind me to water the plants every tuesday and thursday at 7am",
            "2026-03-12 07:00",
            "water the plants",
            "every Tuesday and Thursday at 07:00",
        ),
        every(
            "every day remind me to stretch at 9am",
            "2026-03-11 09:00",
            "stretch",
            "every day at 09:00",
        ),
        every(
            "every 2 hours remind me to drink water",
            "2026-03-10 16:30",
            "drink water",
            "every 2 hours",
        ),
        every(
            "weekdays 6pm remind me to stop working",
            "2026-03-10 18:00",
            "stop working",
            "every weekday at 18:00",
        ),
        every(
            "remind me every other day to water the ficus",
            "2026-03-11 09:00",
            "water the ficus",
            "every other day at 09:00",
        ),
        every(
            "remind me every 3 days at 8am to change the filter",
            "2026-03-11 08:00",
            "change the filter",
            "every 3 days at 08:00",
        ),
        every(
            "every 2 weeks on monday remind me to pay the cleaner",
            "2026-03-16 09:00",
            "pay the cleaner",
            "every other week on Monday at 09:00",
        ),
        every(
            "remind me every other week to call grandpa",
            "2026-03-17 09:00",
            "call grandpa",
            "every other week on Tuesday at 09:00",
        ),
        every(
            "remind me every morning at 7 to meditate",
            "2026-03-11 07:00",
            "meditate",
            "every day at 07:00",
        ),
        every(
            "ping me every evening to write in my journal",
            "2026-03-10 19:00",
            "write in my journal",
            "every day at 19:00",
        ),
        every(
            "remind me on the 15th of every month to check the budget",
            "2026-03-15 09:00",
            "check the budget",
            "every month on the 15th at 09:00",
        ),
        every(
            "remind me on the last day of every month to back up the photos",
            "2026-03-31 09:00",
            "back up the photos",
            "every month on the last day at 09:00",
        ),
        every(
            "remind me every year on March 3 to call Lisa",
            "2027-03-03 09:00",
            "call Lisa",
            "every year on the 3rd of March at 09:00",
        ),
        every(
            "remind me every thur at 6pm to put out the recycling",
            "2026-03-12 18:00",
            "put out the recycling",
            "every Thursday at 18:00",
        ),
        every(
            "don't let me forget to take my medicine every night at 10",
            "2026-03-10 22:00",
            "take my medicine",
            "every day at 22:00",
        ),
        every(
            "remind me every day at 6:30 and 18:30 to feed the cat",
            "2026-03-10 18:30",
            "feed the cat",
            "every day at 06:30 and 18:30",
        ),
        every(
            "remind me every monday at 9 and 17 to check the mail",
            "2026-03-16 09:00",
            "check the mail",
            "every Monday at 09:00 and 17:00",
        ),
        every(
            "remind me every weekday except friday at 7 to exercise",
            "2026-03-11 07:00",
            "exercise",
            "every Monday, Tuesday, Wednesday and Thursday at 07:00",
        ),
        every(
            "remind me every day at 6:30 and 18:00 to feed the cat",
            "2026-03-10 18:00",
            "feed the cat",
            "every day at 06:30 and 18:00",
        ),
        every(
            "remind me every weekend at 10:30 to go for a run",
            "2026-03-14 10:30",
            "go for a run",
            "every Saturday and Sunday at 10:30",
        ),
        every(
            "remind me every 15 minutes to drink water",
            "2026-03-10 14:45",
            "drink water",
            "every 15 minutes",
        ),
        every(
            "remind me monthly on the 1st to pay rent",
            "2026-04-01 09:00",
            "pay rent",
            "every month on the 1st at 09:00",
        ),
        every(
            "remind me every Monday morning to submit my timesheet",
            "2026-03-16 09:00",
            "submit my timesheet",
            "every Monday at 09:00",
        ),
        every(
            "every friday at 5pm remind me to submit the report",
            "2026-03-13 17:00",
            "submit the report",
            "every Friday at 17:00",
        ),
        every(
            "remind me every first monday of the month to back up the laptop",
            "2026-04-06 09:00",
            "back up the laptop",
            "every month on the first Monday at 09:00",
        ),
        every(
            "remind me to water the plants every sunday",
            "2026-03-15 09:00",
            "water the plants",
            "every Sunday at 09:00",
        ),
        every("remind me every hour to stand up", "2026-03-10 15:30", "stand up", "every hour"),
        every(
            "remind me to take my medication every 8 hours",
            "2026-03-10 22:30",
            "take my medication",
            "every 8 hours",
        ),
        once(
            "remind me at quarter past 3 to call the school", "2026-03-10 15:15", "call the school"
        ),
        once("remind me at half past six to leave", "2026-03-10 18:30", "leave"),
        once(
            "ping me in a couple of minutes to check the tea", "2026-03-10 14:32", "check the tea"
        ),
        # an answer to the question asked back completes the reminder
        Golden(
            "tomorrow at 9am",
            Creates("2026-03-11 09:00", "buy milk"),
            setup=("remind me to buy milk",),
        ),
        Golden(
            "to check the oven",
            Creates("2026-03-10 14:40", "check the oven"),
            setup=("remind me in 10 minutes",),
        ),
        # more natural phrasings
        once("remind me to pick up the kids at 3:15", "2026-03-10 15:15", "pick up the kids"),
        once("remind me about the meeting at 2", "2026-03-11 14:00", "the meeting"),
        once("remind me on friday at 5 to call mom", "2026-03-13 17:00", "call mom"),
        once("wake me up at 6", "2026-03-11 06:00", "wake up"),
        once("set an alarm for 7", "2026-03-11 07:00", "Alarm"),
        once("remind me 10 minutes before 6pm to leave", "2026-03-10 17:50", "leave"),
        once("remind me this weekend to clean the garage", "2026-03-14 09:00", "clean the garage"),
        once(
            "Set reminder: dentist appointment tomorrow 10am",
            "2026-03-11 10:00",
            "dentist appointment",
        ),
        once(
            "I need to call mom tomorrow, remind me at 6", "2026-03-11 18:00", "I need to call mom"
        ),
        Golden("remind me to leave before 6pm", says("'remind me 15 minutes before 6pm to leave'")),
        Golden(
            "remind me twice a day to take pills", says("every day at 9am and 9pm to take pills")
        ),
        # "after lunch" is 13:00 as "after work" is 18:00; an event the assistant cannot know
        # the time of is asked about
        once("remind me after lunch to call the client", "2026-03-11 13:00", "call the client"),
        Golden(
            "remind me after the meeting to call the client",
            says(
                "I couldn't tell when 'after the meeting' is",
                "'remind me tomorrow at 9am to call the client'",
            ),
        ),
        # no time, no text, or a time that cannot be
        Golden(
            "remind me to buy milk",
            says("When should I remind you", "'remind me tomorrow at 9am to buy milk'"),
        ),
        Golden("remind me in 10 minutes", says("What should I remind you about in 10 minutes")),
        Golden(
            "remind me yesterday to call bob",
            says("in the past", "'remind me tomorrow to call bob'"),
        ),
        once("remind me next week to call the bank", "2026-03-16 09:00", "call the bank"),
        Golden("remind me every day", says("What should I remind you about every day")),
        every(
            "remind me every 2 months to check the tires",
            "2026-04-10 09:00",
            "check the tires",
            "every 2 months on the 10th at 09:00",
        ),
        Golden(
            "remind me tomorrow at 9am and at 5pm to call mom",
            says("more than one clock time", "'remind me tomorrow at 9am to call mom'"),
        ),
        Golden("remind me today at 2pm to call mom", says("has already passed", "tomorrow at 2pm")),
        Golden(
            "pick up the kids at 3:15",
            says("Should I remind you?", "'remind me to pick up the kids at 3:15'"),
        ),
        Golden("remind me at 25:00 to call mom", says("'remind me at 9am to call mom'")),
        Golden("remind me at 13pm to call mom", says("'remind me at 13:00 to call mom'")),
    ),
}
