"""From an intent to the tool calls that carry it out: each kind of intent has its target tool.

``first_calls`` are written as soon as the message is understood; ``act_on`` is the call on the
one task that words picked, written once the task list has come back.
"""

from __future__ import annotations

from agent.planner.intents import (
    Action,
    AskJob,
    Brief,
    HttpJob,
    Intent,
    ListTasks,
    OnTask,
    Quiet,
    ReadPage,
    Recall,
    Remind,
    Repeat,
    Request,
    RunCode,
    SaveNote,
    Say,
    SearchJob,
    SearchWeb,
    TellTime,
    Watch,
)
from agent.planner.toolbox import JsonValue, PlannedCall, Toolbox
from tasks import (
    DEFAULT_SNOOZE,
    AgentTaskData,
    ApiCallData,
    ExecutionData,
    TaskError,
    TaskType,
    WebSearchData,
    read_delay,
)


class Planner:
    """Writes the calls of intents with the tools of ``toolbox``."""

    def __init__(self, toolbox: Toolbox) -> None:
        self._box = toolbox
        self._tools = toolbox.tools

    def first_calls(self, intent: Intent) -> list[PlannedCall]:
        """The calls that start carrying out ``intent`` (none for a text answer)."""
        box, tools = self._box, self._tools
        match intent:
            case Say():
                return []
            case Remind(when=when, message=message, urgent=urgent, nag=nag):
                lead, add = "Setting a reminder.", tools.add_reminder
                if urgent:
                    return [box.call(add, lead, when=when, message=message, urgent=True, nag=nag)]
                return [box.call(add, lead, when=when, message=message, nag=nag)]
            case Watch():
                return [self._watch(intent)]
            case Quiet(hours=hours):
                lead = "Checking your quiet hours." if hours is None else "Setting quiet hours."
                return [box.call(tools.quiet_hours, lead, hours=hours)]
            case Brief(at=at):
                lead = "Checking your briefing." if at is None else "Setting up your briefing."
                return [box.call(tools.morning_briefing, lead, at=at)]
            case OnTask(action=Action.DONE, ids=(), words=()):
                return [box.call(tools.acknowledge_task, "")]  # said once it is known
            case Repeat():
                return [self._repeat(intent)]
            case ListTasks(period=period):
                return [box.call(tools.list_tasks, "Checking your tasks.", period=period)]
            case OnTask(ids=ids) if ids:
                return [self.act_on(intent, task_id) for task_id in ids]
            case OnTask():
                return [box.call(tools.list_tasks, "Looking for that task.")]
            case SaveNote(content=content, tags=tags):
                note_tags = list(tags) or None
                return [
                    box.call(tools.save_note, "Saving that note.", content=content, tags=note_tags)
                ]
            case Recall(query=query):
                lead = "Looking through your notes."
                return [box.call(tools.search_memory, lead, query=query, notes_only=True)]
            case TellTime(zone=zone):
                lead = f"Checking the time in {zone}." if zone else "Checking the time."
                return [box.call(tools.get_current_time, lead, tz=zone)]
            case SearchWeb(query=query, limit=limit):
                lead = f'Searching the web for "{query}".'
                if limit is None:
                    return [box.call_plain(tools.search_web, lead, query=query)]
                return [box.call_plain(tools.search_web, lead, query=query, limit=limit)]
            case ReadPage(url=url):
                return [box.call_plain(tools.fetch_url, f"Reading {url}.", url=url)]
            case Request(job=job):
                lead = f"Sending {job.method} {job.url}."
                return [
                    box.call_plain(
                        tools.api_call, lead, url=job.url, method=job.method, body=job.body
                    )
                ]
            case RunCode(code=code):
                lead = "I'll run that code once you approve."
                return [box.call_plain(tools.execute_code, lead, code=code)]
        raise AssertionError(f"no calls for {intent!r}")  # every kind is handled above

    def act_on(self, intent: OnTask, task_id: str) -> PlannedCall:
        """The call that applies ``intent`` to the task ``task_id``."""
        box, tools = self._box, self._tools
        match intent.action:
            case Action.CANCEL:
                return box.call(tools.cancel_task, f"Cancelling task {task_id}.", task_id=task_id)
            case Action.PAUSE:
                return box.call(tools.pause_task, f"Pausing task {task_id}.", task_id=task_id)
            case Action.RESUME:
                return box.call(tools.resume_task, f"Resuming task {task_id}.", task_id=task_id)
            case Action.SNOOZE:
                delay = intent.delay or DEFAULT_SNOOZE
                lead = f"Snoozing task {task_id} {_by(delay)}."
                return box.call(tools.snooze_task, lead, task_id=task_id, delay=delay)
            case Action.MOVE:
                when = intent.when or ""
                lead = f"Moving task {task_id} {_to(when)}."
                return box.call(tools.reschedule_task, lead, task_id=task_id, when=when)
            case Action.DONE:
                # No lead: "Marking it done." before "I couldn't mark it done" contradicts.
                return box.call(tools.acknowledge_task, "", task_id=task_id)

    def _watch(self, intent: Watch) -> PlannedCall:
        """The call that makes the monitor ``intent`` asks for."""
        what = intent.url or f"the search results for {intent.query!r}"
        return self._box.call(
            self._tools.add_monitor,
            f"Setting up a monitor of {what}.",
            url=intent.url,
            selector=intent.selector,
            field=intent.field,
            query=intent.query,
            condition=intent.condition,
            every=intent.every,
        )

    def agent_task(self, schedule: str, title: str, prompt: str) -> PlannedCall:
        """The call that schedules an agent task titled ``title`` that answers ``prompt``."""
        execution: dict[str, JsonValue] = AgentTaskData(prompt=prompt).model_dump(mode="json")
        return self._box.call(
            self._tools.add_recurring_task,
            f"Scheduling that ({schedule}).",
            schedule=schedule,
            task_type=TaskType.AGENT_TASK.value,
            description=title,
            execution_data=execution,
        )

    def _repeat(self, intent: Repeat) -> PlannedCall:
        job = intent.job
        data: ExecutionData
        match job:
            case SearchJob(query=query, limit=limit):
                kind, description, data = (
                    TaskType.WEB_SEARCH,
                    query,
                    WebSearchData(query=query, limit=limit),
                )
                lead = f"Scheduling that search ({intent.schedule})."
            case AskJob(prompt=prompt):
                kind, description, data = TaskType.AGENT_TASK, prompt, AgentTaskData(prompt=prompt)
                lead = f"Scheduling that ({intent.schedule})."
            case HttpJob(method=method, url=url, body=body):
                kind, description = TaskType.API_CALL, f"{method} {url}"
                data = ApiCallData(method=method, url=url, body=body)
                lead = f"I'll schedule {description} {intent.schedule} once you approve."
        execution: dict[str, JsonValue] = data.model_dump(mode="json", exclude_defaults=True)
        return self._box.call(
            self._tools.add_recurring_task,
            lead,
            schedule=intent.schedule,
            task_type=kind.value,
            description=description,
            execution_data=execution,
        )


def _to(when: str) -> str:
    """Where a task moves, said after "Moving task X": "to 10:30" for "at 10:30", "to
    friday" for "on friday", "to 6pm"; a phrase with its own preposition keeps it ("in 2
    hours", "until friday")."""
    head, _, rest = when.partition(" ")
    if head.lower() in ("at", "on") and rest:
        return f"to {rest}"
    if head.lower() in ("in", "by", "until", "till", "before", "after", "to"):
        return when
    return f"to {when}"


def _by(delay: str) -> str:
    """How long a snooze is, said after "Snoozing task X": "by 10m", "for 10 min", "until
    5pm"."""
    head, _, rest = delay.partition(" ")
    if head.lower() in ("by", "for", "until", "till", "to"):
        return delay
    if head.lower() == "at" and rest:  # "until at 9" reads "until 9"
        return f"until {rest}"
    try:
        a_delay = read_delay(delay) is not None
    except TaskError:  # a delay out of range ("by 0 minutes"): the tool says so
        a_delay = True
    return f"by {delay}" if a_delay else f"until {delay}"
