"""The offline planner's own texts: help, greetings, questions back, and honest refusals."""

from __future__ import annotations

from collections.abc import Callable

from tasks import MONITOR_EXAMPLES, TimePhrase, how_often_problem

EXAMPLES = (
    '- "remind me in 10 minutes to check the oven"\n'
    '- "remind me every sunday evening at 7 to plan the week"\n'
    '- "wake me up at 6:45 tomorrow"\n'
    '- "what do I have tomorrow?" / "move the dentist reminder to 6pm"\n'
    '- "snooze the trash reminder by an hour" / "cancel the gym reminder"\n'
    '- "note: the wifi password is hunter2 #home" / "what is my wifi password?"\n'
    '- "what time is it in Tokyo?" / "summarize https://example.com/article"'
)

OFFLINE = (
    "I'm running without a language model, so I understand only a few kinds of requests: "
    "reminders and repeating tasks (and listing, moving, snoozing, pausing and cancelling "
    "them), reminders that nag until you say 'done', monitors of a page ('tell me when ... "
    "changes'), quiet hours, a morning briefing, your calendar, notes and questions about "
    "them, the time, web searches (with SERPAPI_API_KEY) and page summaries."
)
CONNECT = (
    "To answer anything else, connect a model: set ASSISTANT_LLM_BASE_URL to an "
    "OpenAI-compatible server (e.g. http://localhost:11434/v1 for Ollama) and restart."
)

HELP = f"{OFFLINE} Try:\n{EXAMPLES}\n{CONNECT}"
UNKNOWN = f"Sorry, I didn't understand that. {OFFLINE} For example:\n{EXAMPLES}\n{CONNECT}"
QUESTION = f"I can't answer that. {OFFLINE}\n{CONNECT}"

GREETING = "Hello! What can I do for you? Say 'help' to see what I understand."
THANKS = "You're welcome!"
GOODBYE = "Goodbye! Your reminders keep running while I'm here."
HOW_ARE_YOU = "I'm fine, thanks, and ready to help. Say 'help' to see what I can do."

ASK_URL = (
    "I can do that as a scheduled HTTP call, but I need the URL to call. For example: "
    "'at 1am daily POST http://home.lan/lights/off'."
)
ASK_NOTE = "What should I note? For example: 'note: the wifi password is hunter2 #home'."
LIST_NOTES = (
    "The /notes command lists your notes (newest first). To find one, ask about it, e.g. "
    "'what did I save about the wifi?'."
)
ASK_QUERY = "What should I search for? For example: 'search for python asyncio tutorial'."
ASK_TOPIC = "What should I look up in your notes? For example: 'what did I say about the wifi?'"
ASK_FETCH = "Which page? Give me its address, e.g. 'summarize https://example.com/article'."
SEARCH_OFF = (
    "I can't search the web: no search service is configured (set SERPAPI_API_KEY to a SerpApi "
    "key and restart)."
)


def ask_when(what: str, *, unclear: str | None = None) -> str:
    """Ask when to remind of ``what``, saying which words were not understood as a time."""
    opening = f"I couldn't tell when {unclear!r} is. " if unclear else ""
    return (
        f"{opening}When should I remind you to {what}? For example: 'remind me in 10 minutes "
        f"to {what}' or 'remind me tomorrow at 9am to {what}'."
    )


def unknown_day(unclear: str, when: str, what: str) -> str:
    """Refuse a reminder whose day was named in words not understood ("on Easter"), rather
    than schedule it on another day."""
    return (
        f"I couldn't tell which day {unclear!r} is, so nothing was scheduled. Say the date, "
        f"e.g. 'remind me on March 3 {when} to {what}'."
    )


def ask_exact(said: str, example: str, what: str) -> str:
    """Ask for an exact time when only a limit was said ("before 6pm")."""
    return (
        f"When exactly should I remind you? {said!r} is not one time. Say e.g. "
        f"'remind me {example} to {what}'."
    )


_SEVERAL_EXAMPLES = {
    ("day", 2): "every day at 9am and 9pm",
    ("day", 3): "every day at 8am, 2pm and 8pm",
    ("day", 4): "every day at 8am, 12pm, 4pm and 8pm",
    ("week", 2): "every monday and thursday at 9am",
    ("week", 3): "every monday, wednesday and friday at 9am",
    ("week", 4): "every monday, tuesday, thursday and friday at 9am",
    ("week", 5): "every weekday at 9am",
    ("week", 6): "every day except sunday at 9am",
    ("week", 7): "every day at 9am",
}


def _several_example(count: int, per: str) -> str:
    """A schedule that fires ``count`` times a ``per`` (day, week or hour), or close to it."""
    if (per, count) in _SEVERAL_EXAMPLES:
        return _SEVERAL_EXAMPLES[per, count]
    if per == "hour":
        minutes = 60 // count
        return "every minute" if minutes <= 1 else f"every {minutes} minutes"
    if per == "week":
        return "every day at 9am and 9pm"
    # n times between 8am and 8pm: 12 hours in n - 1 steps
    minutes = 720 // (count - 1)
    hours = minutes // 60
    if minutes % 60 == 0:
        step = "hour" if hours == 1 else f"{hours} hours"
    else:
        step = f"{max(minutes, 1)} minutes"
    return f"every {step} between 8am and 8pm"


def several_a_day(said: str, what: str, count: int, per: str) -> str:
    """Explain that "twice a day" is two reminders, with times that say them."""
    return (
        f"{said[0].upper()}{said[1:]} means more than one reminder, so say each time, e.g. "
        f"'remind me {_several_example(count, per)} to {what}'."
    )


def ask_what(when: str) -> str:
    """Ask what to remind of at ``when``."""
    return (
        f"What should I remind you about {when}? For example: 'remind me {when} to check the oven'."
    )


def ask_task(verb: str) -> str:
    """Ask which task to act on."""
    return (
        f"Which task should I {verb}? Say e.g. '{verb} the gym reminder' or '{verb} a1b2c3'; "
        "/tasks lists them."
    )


def cannot_snooze_by(words: str) -> str:
    """Say the words after "snooze it" are neither a delay nor a time."""
    return (
        f"I couldn't read {words!r} as a delay or a time, so nothing was snoozed. Say e.g. "
        "'snooze it 30 minutes', 'snooze it by 1h30m', 'snooze it for an hour' or "
        "'snooze it until 5pm'."
    )


def ask_action(schedule: str, *, repeats: bool) -> str:
    """Say the time was understood, but not what to do then."""
    if not repeats:
        return (
            f"I understood the time '{schedule}', but not what to do then. Say e.g. "
            f"'remind me {schedule} to water the plants'."
        )
    return (
        f"I understood the schedule '{schedule}', but not what to do then. I can remind you, "
        f"search the web, or call a URL, e.g. '{schedule} remind me to water the plants', "
        f"'{schedule} search the web for weather Berlin and send me the top 3', "
        f"'{schedule} POST http://home.lan/lights/off'."
    )


def cannot_use_time(phrase: TimePhrase, redo: Callable[[str], str]) -> str:
    """Say why the time in a sentence cannot be used, with the sentence redone (``redo``) with
    the time that works."""
    problem = phrase.problem or f"could not read {phrase.text!r} as a time"
    if phrase.example is not None:
        problem = problem.replace(repr(phrase.example), repr(redo(phrase.example)))
    return f"I couldn't use that time: {problem}."


def search_off_scheduled(schedule: str, query: str) -> str:
    """Refuse to schedule a search that could never run, offering a reminder instead."""
    return (
        f"I can't schedule that search: no search service is configured (SERPAPI_API_KEY is not "
        "set), so it could never run, and nothing was scheduled. The closest I can do is remind "
        f"you to search yourself: say '{schedule} remind me to search for {query}'. Or set "
        "SERPAPI_API_KEY and restart."
    )


def cannot_ask_offline(schedule: str, prompt: str) -> str:
    """Refuse to schedule a prompt the offline assistant could not answer when it runs."""
    return (
        f"I can't schedule that: without a language model I couldn't answer {prompt!r} when the "
        f"time comes, and nothing was scheduled. The closest I can do is remind you: say "
        f"'{schedule} remind me to {prompt}'. {CONNECT}"
    )


def once_only(schedule: str, what: str) -> str:
    """Refuse a one-time search, prompt or HTTP call at a time: those tasks repeat."""
    return (
        f"I can schedule searches, questions and HTTP calls only as repeating tasks, and "
        f"'{schedule}' happens once. Say e.g. 'every day at 8am {what}', or 'remind me "
        f"{schedule} to {what}'."
    )


def watch_scheme(address: str) -> str:
    """Refuse to watch an address that is not http(s) ("htp://...", "file:///...")."""
    return (
        f"I can watch only http:// and https:// addresses, and {address!r} is not one. Say "
        f"e.g. {MONITOR_EXAMPLES}."
    )


def watch_every(problem: str) -> str:
    """Refuse a monitor whose "how often" cannot be used ("every 0 minutes", "tomorrow")."""
    return f"I couldn't set up that monitor: {how_often_problem(problem)}."


def watch_search_off(query: str) -> str:
    """Refuse to watch a web search's results when search is not configured."""
    return (
        f"I can't watch the search results for {query!r}: no search service is configured "
        "(set SERPAPI_API_KEY and restart). I can watch a page instead, e.g. 'tell me when "
        "https://example.com/news changes'."
    )
