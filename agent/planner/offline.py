"""The offline planner: the default backend when no language model is configured.

It reads the conversation like a model would and writes the same fenced-JSON tool calls, so
parsing, validation, approval and execution run exactly as with an LLM::

    ```json
    {"tool": "add_reminder", "arguments": {"when": "in 10 minutes", "message": "check the oven"}}
    ```

A turn is a small state machine over the conversation: with no results yet it recognises the
latest user message (``rules``) and writes the first calls of its intent (``plan``), or a text
answer; once results arrive it either writes the next call of a two-step flow (list the tasks,
then act on the one the words picked) or composes the final answer from the results. It is
deterministic (no clock, no randomness), linear in the length of the message, reads nothing
from the network and never computes a date: ``when`` and ``schedule`` carry the user's words
(the time expression ``tasks.find_time`` found in them), which ``tasks`` resolves.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, replace

from agent.llm.base import (
    ChatMessage,
    LLMResponse,
    Role,
    StreamEvent,
    ToolMode,
    stream_whole,
)
from agent.planner import answers, compose
from agent.planner.handover import AnswerInWords, ToModel, WritePrompt
from agent.planner.intents import (
    Action,
    Intent,
    OnTask,
    ReadPage,
    Recall,
    Remind,
    Repeat,
    SaveNote,
    Say,
)
from agent.planner.plan import Planner
from agent.planner.reading import (
    HELP_WITH_MODEL,
    Partial,
    Planned,
    Reading,
    Unread,
    offline_text,
    usable_prompt,
)
from agent.planner.rule import Context
from agent.planner.rules import recognize
from agent.planner.rules_manage import named_words
from agent.planner.rules_remind import reminder_text
from agent.planner.text import stem
from agent.planner.toolbox import PlannedCall, PlannerTools, Toolbox
from common import LazyPattern
from tasks import find_time
from tools import ToolDefinition, ToolRegistry, ToolResult, ToolStatus

logger = logging.getLogger(__name__)

_VERBS = {
    "cancel": "cancel", "pause": "pause", "resume": "resume", "snooze": "snooze", "done": "done",
}  # fmt: skip
# How the task tools and deliveries name a task: "... (task k3m9xa).", "Moved task k3m9xa (",
# "Reminder (task k3m9xa): ", "the message from task k3m9xa again". The id ends the mention:
# "No task matches 'x'" or "the task stays" name none.
_TASK_MENTION = LazyPattern(r"\btask ([a-z0-9]{4,32})(?=[).,:;\]]|\s\(|\sagain\b|$)", re.MULTILINE)
# A listing's entries: "- [k3m9xa] reminder: stretch · today at 14:35".
_LISTED = LazyPattern(r"^- \[([a-z0-9]{4,32})\] ", re.MULTILINE)
# The planner's own calls ("Snoozing task 1h30m by 10m." and a fenced block) propose an id,
# which the tool may refuse: what the conversation is about is in the answers.
_CALLS_MADE = "\n```json\n"
# The planner's own questions, answered in the next message ("tomorrow at 9am").
_ASKED_WHEN = LazyPattern(r"When should I remind you to (?P<what>.+?)\? For example")
_ASKED_WHICH = LazyPattern(
    r"\d+ tasks match '[^\n]*':\n(?P<list>(?:- \[\w+\][^\n]*\n)+)Which one\? "
    r"Say e\.g\. '(?P<example>[^\n]*)'\.$"
)
_OFFERED = LazyPattern(r"^- \[(\w+)\] (?:\w+: )?([^\n]*?)(?: · [^\n]*)?$", re.MULTILINE)
_PLACES = {
    "first": 1, "1st": 1, "one": 1, "1": 1, "second": 2, "2nd": 2, "two": 2, "2": 2,
    "third": 3, "3rd": 3, "three": 3, "3": 3, "fourth": 4, "4th": 4, "4": 4, "fifth": 5,
    "5th": 5, "5": 5, "last": -1,
}  # fmt: skip
_PICK_FILLER = frozenset(
    {"the", "one", "that", "this", "task", "reminder", "please", "i", "mean", "meant", "it's",
     "it", "is", "number", "no", "#", "ok", "okay", "oh", "sorry", "about", "with", "to"}
)  # fmt: skip
_ASKED_WHAT = LazyPattern(r"What should I remind you about (?P<when>.+?)\? For example")


@dataclass(frozen=True, slots=True)
class AskedAction:
    """An action a message plainly asks for.

    Attributes:
        tools: The tools (registry names) that do it.
        undone: What is true when none of them ran: "no reminder was set".
    """

    tools: frozenset[str]
    undone: str


_UNDONE = {
    Action.DONE: "nothing was marked done",
    Action.CANCEL: "no task was cancelled",
    Action.PAUSE: "no task was paused",
    Action.RESUME: "no task was resumed",
    Action.SNOOZE: "no task was snoozed",
    Action.MOVE: "no task was moved",
}


@dataclass(frozen=True, slots=True)
class _Progress:
    """How far the current turn has got, read back from the conversation.

    Attributes:
        request: The user's message that started the turn.
        results: Every tool result of the turn, in order.
        latest: The results that arrived after the planner's last message.
        earlier: The conversation before the turn, oldest first.
    """

    request: str
    results: tuple[ToolResult, ...]
    latest: tuple[ToolResult, ...]
    earlier: tuple[ChatMessage, ...] = ()

    def last_said(self) -> str:
        """What the planner answered last, before this turn."""
        said = (m.content for m in reversed(self.earlier) if m.role is Role.ASSISTANT)
        return next(said, "")

    def last_task(self) -> str | None:
        """The id of the task the conversation was last about, if any: the last one an
        answer or a delivery named (set, snoozed, just gone off), or the only one a listing
        showed; ``None`` when the last listing showed several (which one is a question)."""
        for message in reversed(self.earlier):
            if message.role is not Role.ASSISTANT or _CALLS_MADE in message.content:
                continue
            if named := _TASK_MENTION.findall(message.content):
                return str(named[-1])
            if listed := _LISTED.findall(message.content):
                return str(listed[0]) if len(listed) == 1 else None
        return None

    def made(self, call: PlannedCall) -> bool:
        """Whether ``call`` was already made in this turn (never make the same call twice)."""
        key = _call_key(call.tool, call.arguments)
        return any(_call_key(r.call.tool_name, r.call.arguments) == key for r in self.results)

    def last(self, tool: str) -> ToolResult | None:
        """The last result of ``tool`` in this turn."""
        return next((r for r in reversed(self.results) if r.call.tool_name == tool), None)


class OfflinePlanner:
    """A deterministic, English-only planner that speaks the tool-call contract.

    Args:
        tools: The tools it calls (the composition root passes the builtin ones).
        registry: The registry they are registered in; their names are read from it.
        search_configured: Whether web searches can run (a search service is configured).
        max_input_chars: Longer messages get a polite refusal instead of being parsed.

    Raises:
        ToolboxError: when one of ``tools`` is not in ``registry``.
    """

    def __init__(
        self,
        *,
        tools: PlannerTools,
        registry: ToolRegistry,
        search_configured: bool = False,
        max_input_chars: int = 4000,
    ) -> None:
        if max_input_chars < 1:
            raise ValueError(f"max_input_chars must be at least 1, got {max_input_chars!r}")
        self._max_input_chars = max_input_chars
        self._toolbox = Toolbox(tools, registry)
        self._planner = Planner(self._toolbox)
        self._context = Context(
            search_configured=search_configured, understands=self.answers_offline
        )
        # With a model, an agent task's prompt is answered by the model when it runs.
        self._model_context = Context(search_configured=search_configured, understands=_anything)
        self._wording = compose.Wording(_action_words(self._toolbox))
        self._list_tool = self._toolbox.name_of(tools.list_tasks)
        self._memory_tool = self._toolbox.name_of(tools.search_memory)
        self._page_tool = self._toolbox.name_of(tools.fetch_url)

    @property
    def mode(self) -> ToolMode:
        """Always ``CONTRACT``: calls are written as fenced JSON in the text."""
        return ToolMode.CONTRACT

    @property
    def tools(self) -> PlannerTools:
        """The tools the planner calls."""
        return self._toolbox.tools

    def tool_name(self, function: Callable[..., object]) -> str:
        """The registry's name of one of the planner's tools."""
        return self._toolbox.name_of(function)

    async def complete(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> LLMResponse:
        """Return the next message of the turn: tool-call blocks or the final answer.

        Args:
            messages: The conversation; the turn starts at the last user message without
                tool results.
            tools: Ignored: the planner was given its tools at construction.
        """
        return LLMResponse(text=self.respond(messages))

    def stream(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> AsyncGenerator[StreamEvent, None]:
        """The whole answer as one chunk: the planner answers at once."""
        return stream_whole(LLMResponse(text=self.respond(messages)))

    def respond(self, messages: Sequence[ChatMessage]) -> str:
        """The text of the next message (the synchronous core of ``complete``)."""
        return offline_text(self.read(messages))

    def read(self, messages: Sequence[ChatMessage], *, model: bool = False) -> Reading:
        """Read the turn so far: the planner's next message, or what it leaves to a model.

        Args:
            messages: The conversation; the turn starts at the last user message without
                tool results.
            model: Whether a language model answers what the planner does not (it then
                also accepts agent tasks whose prompts only a model can answer); without
                one, every reading is ``Planned``.
        """
        if decided := _decided_apart(messages):
            # Nothing of this conversation asked for it: its result is the whole answer.
            return Planned(self._wording.report(decided))
        turn = _read_progress(messages)
        if turn is None:
            return Planned(HELP_WITH_MODEL if model else answers.HELP)
        intent = self._intent_of(turn, model=model)
        if not turn.results:
            calls = self._planner.first_calls(intent)
            if calls:
                return Planned(render_calls(calls), calls=True)
            said = _said(intent)
            if not model:
                return Planned(said.text)
            if said.text is answers.HELP:
                return Planned(HELP_WITH_MODEL)
            return _handed_over(said)
        text = self._continue(intent, turn)
        if model and self._unanswered(intent, turn):
            return Partial(AnswerInWords(turn.request), offline=text)
        return Planned(text + _prompt_line(intent, turn), calls=isinstance(text, CallsText))

    def fill(self, missing: WritePrompt, proposal: str) -> Planned:
        """The call that carries out ``missing`` with the prompt a model proposed for it.

        The proposal is used when ``usable_prompt`` accepts it; otherwise the user's own
        words are the prompt (they say what to do; the model only words it for the task).
        The schedule is the planner's reading, resolved by the tool as every schedule is.
        """
        prompt = usable_prompt(proposal, missing.words, missing.schedule)
        if prompt is None:
            logger.info("the model's prompt %.200r is not usable; the user's words are", proposal)
        call = self._planner.agent_task(missing.schedule, missing.words, prompt or missing.words)
        return Planned(render_calls([call]), calls=True)

    def respond_to(self, text: str) -> str:
        """The first answer to ``text`` alone (a new turn with no history)."""
        return self.respond([ChatMessage(Role.USER, text)])

    def understand(self, text: str, *, model: bool = False) -> Intent:
        """What ``text`` asks for (``model``: as ``read`` says)."""
        context = self._model_context if model else self._context
        return recognize(text, context, max_chars=self._max_input_chars)

    def asked_action(self, text: str) -> AskedAction | None:
        """The action ``text`` plainly asks for (a reminder, a note, ...); ``None`` for the rest.

        A model-backed agent uses it to say so when its model answered such a request
        without calling a tool.
        """
        intent = self.understand(text)
        tools = self._toolbox.tools
        name = self._toolbox.name_of
        if isinstance(intent, Remind):
            both = {name(tools.add_reminder), name(tools.add_recurring_task)}
            return AskedAction(frozenset(both), "no reminder was set")
        if isinstance(intent, Repeat):
            return AskedAction(frozenset({name(tools.add_recurring_task)}), "nothing was scheduled")
        if isinstance(intent, SaveNote):
            return AskedAction(frozenset({name(tools.save_note)}), "no note was saved")
        if isinstance(intent, OnTask):
            acting: dict[Action, Callable[..., object]] = {
                Action.DONE: tools.acknowledge_task,
                Action.CANCEL: tools.cancel_task,
                Action.PAUSE: tools.pause_task,
                Action.RESUME: tools.resume_task,
                Action.SNOOZE: tools.snooze_task,
                Action.MOVE: tools.reschedule_task,
            }
            return AskedAction(frozenset({name(acting[intent.action])}), _UNDONE[intent.action])
        return None

    async def aclose(self) -> None:
        """Release nothing: the planner holds no connections or files."""

    def _answer_to_which(self, intent: Intent, turn: _Progress) -> Intent:
        """An answer to "3 tasks match 'call' ... Which one?": "the second one", "the plumber
        one" or "last" acts on that task as the question's example says."""
        if not isinstance(intent, Say):
            return intent
        asked = _ASKED_WHICH.search(turn.last_said())
        if asked is None:
            return intent
        offered = _OFFERED.findall(asked["list"])
        shown = next((task_id for task_id, _ in offered if task_id in asked["example"]), None)
        chosen = _pick(turn.request, offered)
        if chosen is None or shown is None:
            return intent
        example = re.sub(rf"\b{shown}\b", chosen, asked["example"], count=1)
        redone = self.understand(example)
        return intent if isinstance(redone, Say) else redone

    def answers_offline(self, prompt: str) -> bool:
        """Whether the planner alone answers ``prompt`` (an agent task's, with no model)."""
        return not isinstance(self.understand(prompt), Say)

    def _intent_of(self, turn: _Progress, *, model: bool) -> Intent:
        """What the turn's request asks for, read with the conversation before it."""
        intent = self.understand(turn.request, model=model)
        if isinstance(intent, OnTask) and intent.last:
            intent = _about_the_last_task(intent, turn)
        intent = _answer_to_a_question(intent, turn)
        return self._answer_to_which(intent, turn)

    def _unanswered(self, intent: Intent, turn: _Progress) -> bool:
        """Whether a question that is not about the user's own things found nothing in the
        notes ("what is the capital of France?"): a model may answer it."""
        if not isinstance(intent, Recall) or intent.personal:
            return False
        found = turn.last(self._memory_tool)
        if found is None or not found.ok or turn.latest != (found,):
            return False
        return compose.note_hits(found) == []

    def _continue(self, intent: Intent, turn: _Progress) -> str:
        if any(r.status is ToolStatus.PENDING_APPROVAL for r in turn.latest):
            return self._wording.report(turn.latest)
        if isinstance(intent, OnTask) and not intent.ids:
            return self._task_by_words(intent, turn)
        if isinstance(intent, Recall):
            return self._recall(intent, turn)
        if isinstance(intent, ReadPage):
            return self._summarize(turn)
        return self._wording.report(turn.latest)

    def _task_by_words(self, intent: OnTask, turn: _Progress) -> str:
        listing = turn.last(self._list_tool)
        acted = [r for r in turn.results if r.call.tool_name != self._list_tool]
        if acted:
            return self._wording.report(acted)
        if listing is None or not listing.ok:
            return self._wording.report(turn.latest)
        verb = _VERBS.get(intent.action.value, "move")
        slot = (
            f" to {intent.when}" if intent.when else f" by {intent.delay}" if intent.delay else ""
        )
        entries = compose.task_entries(listing)
        if entries is None:
            shown = (listing.display or listing.text).strip()
            return f"I couldn't tell which task you mean. Your tasks:\n{shown}\nSay '{verb} ID'."
        if not entries:
            return f"You have no active tasks, so there is nothing to {verb}."
        if intent.every or not intent.words:
            return (
                f"I {verb} tasks one at a time so nothing goes by accident. Your tasks:\n"
                + _lines(entries)
                + f"\nSay e.g. '{verb} {entries[0].id}'."
            )
        wanted = " ".join(intent.words)
        matched = compose.match_tasks(entries, intent.words)
        if not matched:
            return f"No task matches {wanted!r}. Your tasks:\n{_lines(entries)}"
        if len(matched) > 1:
            return (
                f"{len(matched)} tasks match {wanted!r}:\n{_lines(matched)}\n"
                f"Which one? Say e.g. '{verb} {matched[0].id}{slot}'."
            )
        if intent.unread and not compose.names_entry(matched[0], named_words(intent.unread)):
            return answers.cannot_snooze_by(intent.unread)  # "the gym reminder until blorp"
        call = self._planner.act_on(intent, matched[0].id)
        return self._wording.report(turn.latest) if turn.made(call) else render_calls([call])

    def _recall(self, intent: Recall, turn: _Progress) -> str:
        found = turn.last(self._memory_tool)
        if found is None or not found.ok:
            return self._wording.report(turn.latest)
        hits = compose.note_hits(found)
        if hits is None:
            return self._wording.outcome(found)
        if not hits:
            nothing = f"I found nothing in your notes about {intent.query!r}."
            if intent.personal:
                return f"{nothing} Save it with e.g. 'note: the wifi password is hunter2'."
            return f"{nothing} {answers.QUESTION}"
        answer = f"From your notes: {hits[0]}"
        if len(hits) > 1:
            answer += "\nAlso related:\n" + "\n".join(f"- {hit}" for hit in hits[1:3])
        return answer

    def _summarize(self, turn: _Progress) -> str:
        fetched = turn.last(self._page_tool)
        if fetched is None or not fetched.ok:
            return self._wording.report(turn.latest)
        url = str(next(iter(fetched.call.arguments.values()), "the page"))
        title, text = compose.page(fetched)
        gist = compose.summary(text, title=title)
        if not gist:
            return f"I read {url}, but it has no readable text."
        heading = f"{title} ({url})" if title else url
        return f"{heading}:\n{gist}"


class CallsText(str):
    """The text of the planner's calls (``render_calls``), told apart from a report."""

    __slots__ = ()


def render_calls(calls: Sequence[PlannedCall]) -> CallsText:
    """Write ``calls`` as a lead sentence and one fenced JSON block per call."""
    blocks = [_block(call) for call in calls]
    return CallsText(" ".join(call.lead for call in calls) + "\n\n" + "\n\n".join(blocks))


def _about_the_last_task(intent: OnTask, turn: _Progress) -> Intent:
    """ "snooze it": the task the conversation was last about, or the question which one."""
    task_id = turn.last_task()
    if task_id is None:
        return Say(answers.ask_task(intent.action.value))
    return replace(intent, ids=(task_id,), last=False)


def _answer_to_a_question(intent: Intent, turn: _Progress) -> Intent:
    """A message that answers the planner's last question ("When should I remind you to buy
    milk?" - "tomorrow at 9am") completes the reminder asked about."""
    if not isinstance(intent, Say):
        return intent
    asked = turn.last_said()
    if (when := _ASKED_WHEN.match(asked)) is not None:
        phrase = find_time(turn.request)
        if (
            phrase is not None
            and phrase.problem is None
            and not reminder_text(phrase.without(turn.request))
        ):
            return Remind(phrase.text, when["what"])
    if (what := _ASKED_WHAT.match(asked)) is not None and find_time(turn.request) is None:
        text = reminder_text(turn.request)
        if text:
            return Remind(what["when"], text)
    return intent


def _pick(answer: str, offered: list[tuple[str, str]]) -> str | None:
    """The id of the offered task ``answer`` names by place or by its own words, or ``None``."""
    words = [w for w in re.findall(r"[\w'-]+", answer.lower()) if w not in _PICK_FILLER]
    if not words:
        return None
    if len(words) == 1 and (place := _PLACES.get(words[0])) is not None:
        index = len(offered) - 1 if place == -1 else place - 1
        return offered[index][0] if 0 <= index < len(offered) else None
    if len(words) == 1 and words[0] in {task_id for task_id, _ in offered}:
        return None  # an id alone is understood as it is
    matches = [
        task_id
        for task_id, text in offered
        if all(stem(w) in {stem(t) for t in re.findall(r"[\w'-]+", text)} for w in words)
    ]
    return matches[0] if len(matches) == 1 else None


def _said(intent: Intent) -> Say:
    assert isinstance(intent, Say), intent  # an intent without calls is a text answer
    return intent


def _anything(prompt: str) -> bool:
    return True


def _handed_over(said: Say) -> Reading:
    """The reading of a text answer: the planner's own, or the part left to a model."""
    match said.handover:
        case None:
            return Planned(said.text)
        case ToModel():
            return Unread(offline=said.text)
        case AnswerInWords() | WritePrompt() as missing:
            return Partial(missing, offline=said.text)


def _prompt_line(intent: Intent, turn: _Progress) -> str:
    """After an agent task whose prompt a model wrote was added: the prompt, shown."""
    if not isinstance(intent, Say) or not isinstance(intent.handover, WritePrompt):
        return ""
    added = [r for r in turn.latest if r.ok and isinstance(r.call.arguments, dict)]
    for result in added:
        execution = result.call.arguments.get("execution_data")
        if isinstance(execution, dict) and isinstance(execution.get("prompt"), str):
            return f"\nEach time it runs I'll answer: {execution['prompt']!r}"
    return ""


def _action_words(toolbox: Toolbox) -> dict[str, str]:
    tools = toolbox.tools
    words: list[tuple[Callable[..., object], str]] = [
        (tools.add_reminder, "set the reminder"),
        (tools.add_recurring_task, "schedule that"),
        (tools.list_tasks, "list your tasks"),
        (tools.cancel_task, "cancel the task"),
        (tools.pause_task, "pause the task"),
        (tools.resume_task, "resume the task"),
        (tools.snooze_task, "snooze the task"),
        (tools.reschedule_task, "move the task"),
        (tools.save_note, "save the note"),
        (tools.search_memory, "search your notes"),
        (tools.get_current_time, "get the time"),
        (tools.search_web, "search the web"),
        (tools.fetch_url, "read that page"),
        (tools.api_call, "make that request"),
        (tools.execute_code, "run that code"),
        (tools.add_monitor, "set up that monitor"),
        (tools.quiet_hours, "set your quiet hours"),
        (tools.morning_briefing, "set up your briefing"),
        (tools.acknowledge_task, "mark it done"),
    ]
    return {toolbox.name_of(function): text for function, text in words}


def _block(call: PlannedCall) -> str:
    payload = json.dumps({"tool": call.tool, "arguments": call.arguments}, ensure_ascii=False)
    # A backtick inside a value could close the fence early; \u0060 decodes to the same text.
    return "```json\n" + payload.replace("`", "\\u0060") + "\n```"


def _call_key(tool: str, arguments: object) -> str:
    return tool + json.dumps(arguments, sort_keys=True, default=str)


def _read_progress(messages: Sequence[ChatMessage]) -> _Progress | None:
    results: list[ToolResult] = []
    latest: list[ToolResult] | None = None
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role is Role.ASSISTANT and latest is None:
            latest = list(reversed(results))
        if message.results:
            results.extend(reversed(message.results))
        elif message.role is Role.USER:
            ordered = tuple(reversed(results))
            earlier = tuple(messages[:index])
            return _Progress(
                message.content, ordered, tuple(latest) if latest else ordered, earlier
            )
    return None


def _decided_apart(messages: Sequence[ChatMessage]) -> tuple[ToolResult, ...]:
    """The results of an approval just decided for a call this turn never made: one that
    ``assistant call`` or an MCP client left waiting, or one asked before ``/new``.

    The turn that made a call records its pending result, which names the request; a
    decision the turn does not name continues nothing in it.
    """
    last = messages[-1] if messages else None
    if last is None or last.role is not Role.TOOL or not last.results:
        return ()
    ids = [
        r.approval.id
        for r in last.results
        if r.approval is not None and r.status is not ToolStatus.PENDING_APPROVAL
    ]
    if not ids:
        return ()
    start = next(
        (
            index
            for index in range(len(messages) - 2, -1, -1)
            if messages[index].role is Role.USER and not messages[index].results
        ),
        0,
    )
    said = "\n".join(m.content for m in messages[start:-1])
    return () if any(request in said for request in ids) else tuple(last.results)


def _lines(entries: Sequence[compose.TaskEntry]) -> str:
    return "\n".join(entry.line() for entry in entries)
