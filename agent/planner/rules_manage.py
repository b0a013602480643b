"""Listing and managing tasks by words: "what do I have tomorrow", "cancel the gym reminder",
"snooze the trash reminder by an hour", "move the dentist reminder to 6pm", "pause the news
search".

A task is named by its id or by words; words are matched against the user's task list in a
second step (``plan``), and when several tasks match, the answer lists them and asks which.
"""

from __future__ import annotations

import re

from agent.planner import answers
from agent.planner.intents import Action, Intent, ListTasks, OnTask, Say
from agent.planner.rule import Context, Rule
from agent.planner.text import Message, trim
from common import LazyPattern
from tasks import TimePhrase, find_period, find_time, hour_before_day, read_delay

_F = re.IGNORECASE
_NOUNS = (
    r"(?:tasks?|reminders?|schedule|agenda|alarms?|timers?|jobs?|plans?|calendar|appointments?)"
)
_LIST = LazyPattern(
    rf"/?(?:(?:what|which)(?:'s|'re|\s+is|\s+are)?\s+(?:on\s+)?|(?:list|show|display|view|see|get"
    rf"|give|tell|check|read)\s+(?:me\s+)?|do\s+i\s+have\s+(?:any\s+)?|are\s+there\s+(?:any\s+)?"
    rf"|any\s+)?(?:all\s+)?(?:of\s+)?(?:my\s+|the\s+)?(?:current\s+|active\s+|scheduled\s+"
    rf"|upcoming\s+|pending\s+|next\s+)?{_NOUNS}(?P<rest>\b.*)?",
    _F,
)
_ON_MY_PLATE = LazyPattern(
    r"(?:what(?:'s|\s+is)\s+(?:coming\s+up|next|planned|scheduled|happening|on)"
    r"|what\s+(?:do|have)\s+i\s+(?:got\s+)?(?:have\s+)?(?:on|planned|scheduled|coming\s+up|to\s+do"
    r"|lined\s+up)?|(?:is\s+|do\s+i\s+have\s+|have\s+i\s+got\s+)?(?:anything|something)"
    r"(?:\s+(?:planned|scheduled|on|coming\s+up))?|am\s+i\s+free|any\s+plans)"
    r"(?P<rest>\b.*)?",
    _F,
)
_LIST_REST = LazyPattern(
    r"(?:\s*(?:for|on|do\s+i\s+have|i\s+have|are\s+there|are\s+scheduled|scheduled|list|left|"
    r"me|to\s+me|please|now|right\s+now|at\s+the\s+moment|so\s+far|coming\s+up)\b)*\s*",
    _F,
)
_TASK_NOUN = r"(?:reminders?|search(?:es)?|tasks?|alarms?|jobs?|timers?)\b"
# What a split verb ("put the call mom reminder off", "push it back") names: "it", a task id,
# or a few words that end in a task's noun.
_SPLIT_TASK = (
    r"it|that|this(?:\s+one)?|#?(?=[a-z_-]*\d)[a-z0-9][a-z0-9_-]{2,31}"
    r"|(?:\S+\s+){0,5}?(?:reminders?|search(?:es)?|tasks?|jobs?)\b"
)  # not an alarm or a timer: "put the alarm off" may mean switch it off
_VERBS: tuple[tuple[re.Pattern[str], Action], ...] = (
    (re.compile(r"(?:snooze|postpone|delay|defer|put\s+off|push\s+back)\b", _F), Action.SNOOZE),
    (re.compile(r"(?:move|reschedule|shift|change|push|bump)\b", _F), Action.MOVE),
    (re.compile(r"(?:pause|suspend|hold|disable|mute|silence)\b", _F), Action.PAUSE),
    (
        re.compile(r"(?:resume|unpause|reactivate|re-?enable|enable|unmute|restart|restore)\b", _F),
        Action.RESUME,
    ),
    (
        re.compile(
            r"(?:cancel|delete|remove|drop|kill|unschedule|stop|clear|erase|get\s+rid\s+of"
            r"|(?:don'?t|do\s+not|stop|no\s+more)\s+remind(?:ing)?\s+me(?:\s+(?:about|of|to))?"
            r"|i\s+(?:don'?t|do\s+not)\s+need)\b",
            _F,
        ),
        Action.CANCEL,
    ),
    # "turn off the news search" (but "turn off the lights at 1am daily" is a job)
    (re.compile(rf"(?:turn|switch)\s+off\b(?=.*\b{_TASK_NOUN})", _F), Action.PAUSE),
    (re.compile(rf"(?:turn|switch)\s+(?:back\s+)?on\b(?=.*\b{_TASK_NOUN})", _F), Action.RESUME),
)
_PUT_IT_OFF = LazyPattern(
    rf"(?:put\s+(?P<put>{_SPLIT_TASK})\s+off|push\s+(?P<push>{_SPLIT_TASK})\s+back)\b", _F
)  # not "put it back", which may mean "as it was"
_ID = LazyPattern(r"#?`?(?P<id>(?=[a-z_-]*\d)[a-z0-9][a-z0-9_-]{2,31})`?", _F)
_SPLIT = LazyPattern(r"[\s,;]+|\band\b", _F)
_WORD = LazyPattern(r"\S+")
_TRAILING_NUMBER = LazyPattern(r"\s(?P<said>(?:for\s+|by\s+)?\d{1,3}(?:[:.]\d{2})?)\s*$", _F)
_UNREAD_LEAD = LazyPattern(r"\b(?:until|till|til|for|by)\s+(?P<said>.+)$", _F)
_LEADS_TO_TIME = LazyPattern(r"\s(?:to|by|for|until|till)\s+\S", _F)
_STOPWORDS = frozenset(
    {
        "the", "a", "an", "my", "these", "those", "task", "tasks", "reminder", "reminders",
        "job", "jobs", "one", "about", "to", "for", "of", "on", "at", "in", "and", "id",
        "please", "scheduled", "recurring", "called", "named", "with", "me", "alarm", "alarms",
        "timer", "by", "until", "till", "back", "anymore", "again", "off", "up", "entry",
        "thing", "need", "any", "more", "i", "don't", "dont",
    }
)  # fmt: skip
_IT = frozenset({"it", "that", "this"})
# Words that refer back like "it": "the last one", "the same one".
_LAST = frozenset({"last", "latest", "same"})
_AFTER_IT = LazyPattern(r"^\s*it\b(?P<left>.+)$", _F)
_DELAY_LEADS = frozenset({"by", "for", "in"})
_MOST_DELAY_WORDS = 8  # "an hour and a half", "1 hour and 30 minutes": a delay is short
_NAMING_NOUNS = frozenset({"alarm", "alarms", "timer", "timers", "reminder", "reminders"})
_TO_HOUR = LazyPattern(r"\b(to|for)\s+(?=\d{1,2}(?::\d{2})?\s*$)", _F)
_UNTIL_HOUR = LazyPattern(r"\b(to|until|till|til)\s+(?=\d{1,2}(?:[:.]\d{2})?\s*$)", _F)
_ALL = frozenset({"all", "every", "everything", "each"})


def list_tasks(message: Message, context: Context) -> Intent | None:
    """ "what are my tasks?", "what's on my schedule", "what do I have tomorrow", "what have I
    got on this week?" (a day or a period limits the list to what runs then)."""
    match = _LIST.fullmatch(message.text) or _ON_MY_PLATE.fullmatch(message.text)
    if match is None:
        return None
    rest = trim(match["rest"] or "")
    if not rest or _LIST_REST.fullmatch(rest):
        return ListTasks()
    lead = _LIST_REST.match(rest)  # "for", "do I have", ...: the words before the period
    period = find_period(rest[lead.end() :] if lead else rest)
    if period is not None:
        return ListTasks(period)
    phrase = find_time(rest)
    if phrase is None:
        return None  # "what do I have about the car?" is a question for the notes
    left = trim(phrase.without(rest))
    if left and not _LIST_REST.fullmatch(left):
        return None
    # A time that is no day or period is refused by the tool, with what would work.
    return ListTasks(phrase.text)


def on_task(message: Message, context: Context) -> Intent | None:
    """cancel / pause / resume / snooze / move one task, by id or by words."""
    split = _PUT_IT_OFF.match(message.text)
    if split is not None:  # "put it off until 5pm": the verb's two words around "it"
        named = split["put"] or split["push"]
        return _on_task(Action.SNOOZE, trim(f"{named} {message.text[split.end() :]}"))
    for verb, action in _VERBS:
        match = verb.match(message.text)
        if match is not None:
            return _on_task(action, trim(message.text[match.end() :]))
    return None


def _on_task(action: Action, rest: str) -> Intent:
    delay = when = None
    if action is Action.MOVE:
        rest = _TO_HOUR.sub(r"\1 at ", rest)  # "move it to 7": the number is a clock time
    elif action is Action.SNOOZE:
        rest = _UNTIL_HOUR.sub(r"\1 at ", rest)  # "snooze it until 9": a clock time too
    if action in (Action.SNOOZE, Action.MOVE):
        rest = hour_before_day(rest)
    bare = _bare_delay(rest) if action is Action.SNOOZE else None
    phrase = _time_beside_ids(rest) if action in (Action.SNOOZE, Action.MOVE) else None
    if bare is not None:
        rest, delay = bare
    elif phrase is not None and phrase.problem is not None:
        return Say(answers.cannot_use_time(phrase, lambda when: f"{action.value} it to {when}"))
    elif phrase is not None and action is Action.SNOOZE:
        # A delay, or until when: "snooze the stretch reminder until 11pm" puts off its
        # next run only (a move would change a repeating task's time for good).
        rest, delay = phrase.without(rest), phrase.text
    elif phrase is not None:
        rest = phrase.without(rest)
        delay, when = _delay_or_time(phrase)
        action = Action.SNOOZE if delay is not None else Action.MOVE
    elif action is Action.SNOOZE and (number := _number_after_task(rest)) is not None:
        rest, delay = number  # "the gym reminder 30": the tool asks 30 minutes or until 30
    elif action is Action.MOVE:
        return Say(
            "Where should I move it to? Say e.g. 'move the dentist reminder to 6pm' or "
            "'move the dentist reminder to friday at 10am'."
        )
    tokens = _tokens(rest)
    words = [t for t in tokens if t and t not in _STOPWORDS and t not in _IT]
    if _IT.intersection(tokens) if not words else set(words) <= _LAST:
        return OnTask(action, delay=delay, when=when, last=True)
    if action is Action.SNOOZE and delay is None and (left := _after_it(rest)):
        return Say(answers.cannot_snooze_by(left))  # "it" names no task: the words are no delay
    if not words:
        # "cancel the alarm": the noun alone may be what the task is called ("Alarm").
        words = [t for t in tokens if t in _NAMING_NOUNS]
    if not words:
        return Say(answers.ask_task(action.value))
    ids = [m["id"].lower() for w in words if (m := _ID.fullmatch(w)) is not None]
    every = action is Action.CANCEL and bool(_ALL.intersection(words))
    if len(ids) == len(words):
        return OnTask(action, ids=tuple(ids), delay=delay, when=when)
    unread = ""
    if action is Action.SNOOZE and delay is None:
        lead = _UNREAD_LEAD.search(rest)
        if lead is not None:
            unread = trim(lead["said"])
            said = set(named_words(unread))
            words = [w for w in words if w not in said] or words  # the task is named before
        elif ids:
            # "snooze xa6pzv a bit": once the id picked the task, words that do not name it
            # were meant as a delay ("the room 101 reminder" is named by all its words).
            unread = " ".join(w for w in words if _ID.fullmatch(w) is None)
    return OnTask(
        action,
        words=tuple(w for w in words if w not in _ALL),
        every=every,
        delay=delay,
        when=when,
        unread=unread,
    )


def named_words(text: str) -> list[str]:
    """The words of ``text`` that may name a task (no "the", "reminder", "it")."""
    return [t for t in _tokens(text) if t and t not in _STOPWORDS and t not in _IT]


def _tokens(text: str) -> list[str]:
    """The words of ``text``, lower case, quotes and punctuation stripped."""
    return [t.strip("`'\"#.!?,").lower() for t in _SPLIT.split(text) if t]


def _names_a_task(text: str) -> bool:
    """Whether ``text`` has a word that names a task: "it", an id or a word of its text."""
    return any(t and (t in _IT or t not in _STOPWORDS) for t in _tokens(text))


def _bare_delay(text: str) -> tuple[str, str] | None:
    """A delay that ends or opens a snooze, with no word before it: "it 1h30m", "the stretch
    reminder 90 minutes", "it by 1.5 hours", "2h the stretch reminder".

    The schedule language reads a bare duration only where it opens a sentence or follows
    "for" or "by" (elsewhere it says how long: "twice a day"); after the task a snooze names,
    it is the delay. The longest run of words at the end (else at the start) that the snooze
    tool's own reader (``read_delay``) reads whole, and that leaves words naming the task, is
    the delay; a "by", "for" or "in" before it goes with it.

    Returns:
        The text without the delay, and the delay; ``None`` when no such run is there.
    """
    spans = [m.span() for m in _WORD.finditer(text)]
    count = len(spans)
    for first in range(max(1, count - _MOST_DELAY_WORDS), count):  # at the end, longest first
        said = text[spans[first][0] :]
        lead = first - 1 if text[slice(*spans[first - 1])].lower() in _DELAY_LEADS else first
        left = text[: spans[lead][0]]
        if said.split()[0].lower() not in _DELAY_LEADS and _reads(said) and _names_a_task(left):
            return left, said
    for last in range(min(count, _MOST_DELAY_WORDS) - 1, 0, -1):  # at the start
        said = text[: spans[last - 1][1]]
        left = text[spans[last - 1][1] :]
        if _reads(said) and _names_a_task(left):
            head, _, tail = said.partition(" ")
            return left, tail if head.lower() in _DELAY_LEADS else said
    return None


def _number_after_task(text: str) -> tuple[str, str] | None:
    """A number alone after the words naming a task ("the gym reminder 30", "it for 10"):
    the text without it, and the number as said; ``None`` when there is none."""
    match = _TRAILING_NUMBER.search(text)
    if match is None or not _names_a_task(text[: match.start()]):
        return None
    return text[: match.start()], match["said"]


def _reads(words: str) -> bool:
    """Whether the snooze tool reads ``words`` as its delay."""
    return read_delay(words) is not None


def _after_it(text: str) -> str:
    """What follows "it" in ``text`` ("it a bit": "a bit"); empty when nothing does."""
    match = _AFTER_IT.search(text)
    return trim(match["left"]) if match is not None else ""


def _time_beside_ids(text: str) -> TimePhrase | None:
    """The time in ``text``, read with the words that name a task by its id hidden.

    The schedule language keeps a code that starts with letters whole ("hac2nd" is no "2nd"),
    but a task id may start with digits and be a time read whole: "2s6d4d" is 2 seconds and
    6 and 4 days. Named as the task ("move 2s6d4d to 8pm", the very words the question "which
    one?" suggests), it is the task. So a word shaped like an id is hidden when it stands
    before the "to", "by", "for" or "until" that leads to the time, or when the language does
    not read it whole; "move it to 10am" keeps its time. The hidden words keep their length,
    so the phrase's offsets hold in ``text``.
    """
    lead = _LEADS_TO_TIME.search(text)
    named_before = lead.start() if lead is not None else 0
    hidden = text
    for word in _WORD.finditer(text):
        bare = word.group().strip("`'\"#.!?,")
        if _ID.fullmatch(bare) is None or not any(c.isalpha() for c in bare):
            continue
        if word.end() <= named_before or not _read_whole(bare):
            start, end = word.span()
            hidden = hidden[:start] + " " * (end - start) + hidden[end:]
    return find_time(hidden)


def _read_whole(word: str) -> bool:
    """Whether the schedule language reads all of ``word`` as a time ("8pm", "1h30m")."""
    phrase = find_time(word)
    return phrase is not None and phrase.spans == ((0, len(word)),)


def _delay_or_time(phrase: TimePhrase) -> tuple[str | None, str | None]:
    """ "by an hour" is a delay; "to 6pm" or "until tomorrow" is a new time."""
    return (phrase.text, None) if read_delay(phrase.text) is not None else (None, phrase.text)


LIST = Rule("listing tasks, all or of one day", list_tasks)

MANAGE = Rule("cancel, pause, resume, snooze or move one task", on_task)
