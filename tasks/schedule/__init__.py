"""The schedule language: words and cron expressions in, pure schedule values out.

lexicon    the closed vocabulary, slang ("tmrw") and the repair of misspellings ("wensday")
tokens     text cut into canonical tokens (spelled numbers as digits, clock times, dates)
durations  lengths of time ("an hour and a half", "3 months") and delays ("in 10 minutes")
clocks     clock times, parts of the day, and where a bare hour falls
days       days as the words name them ("next friday", "4/22", "easter") and their dates
holidays   the holidays it knows, fixed and computed
grammar    the rules: words to pieces (docs/time-language.md says what each reads)
reader     where the rules match, and the ways a phrase splits into pieces
once       pieces to a one-time schedule; repeat: pieces to a repeating one
model      schedule values (once, interval, cron, cycle) with the DST policy and their JSON form;
           calendar_rules: by months and years (the last Friday, each month) and with an end
parsing    ``parse_schedule`` / ``read_schedule``: any phrase, one-time or repeating
search     ``find_time`` / ``find_schedule``: the time expression inside a sentence
moves      ``read_time_of_day`` / ``retime``: "move it to 6pm" keeps the day;
           ``keep_time_of_day``: "move it to friday" keeps the time
preview    ``preview_schedule``: what a phrase means and when it fires next
stored     ``schedule_from_json``: every kind of schedule read back
skips      ``Skips``: the days a repeating schedule leaves out ("except holidays")
rrule      ``recurrence_of`` / ``schedule_of``: schedules as iCalendar rules (RRULE), both ways
periods    ``read_period`` / ``find_period``: "this week", "next month", "in december"
"""

from tasks.schedule.calendar_rules import BoundedSchedule, CalendarSchedule
from tasks.schedule.days import DateOrder
from tasks.schedule.durations import Span, format_duration, read_delay, read_duration
from tasks.schedule.lexicon import edit_distance
from tasks.schedule.model import (
    CronSchedule,
    CycleSchedule,
    IntervalSchedule,
    OnceSchedule,
    Schedule,
    ScheduleKind,
    format_local,
    resolve_local,
    zone_from_name,
)
from tasks.schedule.moves import (
    in_the_morning,
    keep_time_of_day,
    read_time_of_day,
    retime,
    says_time_of_day,
    time_of_day,
)
from tasks.schedule.parsing import Reading, parse_schedule, read_schedule
from tasks.schedule.periods import Period, find_period, read_period
from tasks.schedule.preview import SchedulePreview, preview_schedule
from tasks.schedule.rrule import Recurrence, RuleError, recurrence_of, schedule_of
from tasks.schedule.search import ScheduleMatch, TimePhrase, find_schedule, find_time
from tasks.schedule.skips import Skips, federal_days
from tasks.schedule.stored import schedule_from_json

__all__ = [
    "BoundedSchedule",
    "CalendarSchedule",
    "CronSchedule",
    "CycleSchedule",
    "DateOrder",
    "IntervalSchedule",
    "OnceSchedule",
    "Period",
    "Reading",
    "Recurrence",
    "RuleError",
    "Schedule",
    "ScheduleKind",
    "ScheduleMatch",
    "SchedulePreview",
    "Skips",
    "Span",
    "TimePhrase",
    "edit_distance",
    "federal_days",
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
    "read_schedule",
    "read_time_of_day",
    "recurrence_of",
    "resolve_local",
    "retime",
    "says_time_of_day",
    "schedule_from_json",
    "schedule_of",
    "time_of_day",
    "zone_from_name",
]
