"""The offline planner's fixed answers: help, greetings, and what to say when it is lost."""

from __future__ import annotations

EXAMPLES = (
    '- "remind me in 10 minutes to check the oven"\n'
    '- "remind me to call mom tomorrow at 6pm"\n'
    '- "every weekday at 8:30 remind me to check the mail"\n'
    '- "every day at 8am search the web for local news and send me the top 3"\n'
    '- "what are my tasks?" / "cancel the oven reminder"\n'
    '- "note: the wifi password is hunter2 #home" / "what is my wifi password?"\n'
    '- "what time is it in Tokyo?" / "search for python asyncio tutorial"\n'
    '- "summarize https://example.com/article"'
)

HELP = (
    "I'm the built-in offline assistant: no language model, just a few things done reliably. "
    "I can set reminders and recurring tasks, list, cancel, pause, resume and snooze them, "
    "keep notes and answer from them, tell the time, search the web and summarise a page. "
    "Try:\n" + EXAMPLES
)

UNKNOWN = (
    "Sorry, I didn't understand that. I'm the offline assistant and only know a few kinds of "
    "requests, for example:\n" + EXAMPLES
)

GREETING = "Hello! What can I do for you? Say 'help' to see what I understand."
THANKS = "You're welcome!"
GOODBYE = "Goodbye! Your reminders keep running while I'm here."
HOW_ARE_YOU = "I'm fine, thanks, and ready to help. Say 'help' to see what I can do."

ASK_URL = (
    "I can do that as a scheduled HTTP call, but I need the URL to call. For example: "
    "'at 1am daily POST http://home.lan/lights/off'."
)
ASK_ACTION = (
    "I understood the schedule, but not what to do then. I can remind you, search the web, "
    "ask the assistant or call a URL, e.g. 'every monday at 10am remind me to water the plants', "
    "'every day at 8am search the web for weather Berlin and send me the top 3', "
    "'every monday at 10am ask: summarise my week', 'at 1am daily POST http://home.lan/lights/off'."
)
ASK_WHEN = (
    "When should I remind you? For example: 'remind me in 10 minutes to {what}' or "
    "'remind me to {what} tomorrow at 9am'."
)
ASK_WHAT = (
    "What should I remind you about {when}? For example: 'remind me {when} to check the oven'."
)
ASK_NOTE = "What should I note? For example: 'note: the wifi password is hunter2 #home'."
ASK_QUERY = "What should I search for? For example: 'search for python asyncio tutorial'."
ASK_TOPIC = "What should I look up in your notes? For example: 'what did I say about the wifi?'"
ASK_FETCH = "Which page? Give me its address, e.g. 'summarize https://example.com/article'."
ASK_TASK = "Which task? Say e.g. 'cancel a1b2c3' or 'cancel the oven reminder'."
