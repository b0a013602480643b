"""The schedule language: words and cron expressions in, pure schedule values out.

model      Schedule values (once, interval, cron, cycle) with the DST policy and their JSON form
phrases    the vocabulary: durations, clock times, parts of the day, dates
cron       5-field cron expressions
recurring  "every weekday at 9am", "every 15 minutes", "on the first of every month"
cycles     "every other day", "every 3 days at 8am", "every 2 weeks on monday"
parsing    ``parse_schedule``: any phrase, one-time or recurring
search     ``find_time`` / ``find_schedule``: the time expression inside a sentence
moves      ``read_time_of_day`` / ``retime``: "move it to 6pm" keeps the day;
           ``keep_time_of_day``: "move it to friday" keeps the time
preview    ``preview_schedule``: what a phrase means and when it fires next
periods    ``read_period`` / ``find_period``: "this week", "next month", "in december"
"""

from tasks.schedule.model import (
    CronSchedule,
    CycleSchedule,
    IntervalSchedule,
    OnceSchedule,
    Schedule,
    ScheduleKind,
    format_duration,
    format_local,
    resolve_local,
    schedule_from_json,
    zone_from_name,
)
from tasks.schedule.moves import (
    keep_time_of_day,
    read_time_of_day,
    retime,
    says_time_of_day,
    time_of_day,
)
from tasks.schedule.parsing import parse_schedule
from tasks.schedule.periods import Period, find_period, read_period
from tasks.schedule.phrases import Span, in_the_morning, read_delay, read_duration
from tasks.schedule.preview import SchedulePreview, preview_schedule
from tasks.schedule.search import ScheduleMatch, TimePhrase, find_schedule, find_time

__all__ = [
    "CronSchedule",
    "CycleSchedule",
    "IntervalSchedule",
    "OnceSchedule",
    "Period",
    "Schedule",
    "ScheduleKind",
    "ScheduleMatch",
    "SchedulePreview",
    "Span",
    "TimePhrase",
    "find_period",
    "find_schedule",
    "find_time",
    "format_duration",
    "format_local",
    "in_the_morning",
    "keep_time_of_day",
    "parse_schedule",
    "preview_schedule",
    "read_delay",
    "read_duration",
    "read_period",
    "read_time_of_day",
    "resolve_local",
    "retime",
    "says_time_of_day",
    "schedule_from_json",
    "time_of_day",
    "zone_from_name",
]
