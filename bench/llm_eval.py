"""How well a real model drives the assistant: a fixed set of conversations, scored.

Run from the repository root, after ``./scripts/setup dev``::

    .venv/bin/python -m bench.llm_eval                      # the configured model (environment)
    .venv/bin/python -m bench.llm_eval --model smollm2 --order both
    .venv/bin/python -m bench.llm_eval --model gemma --grammar both --limit 10
    .venv/bin/python -m bench.llm_eval --model /path/to/model.gguf --ctx 8192
    .venv/bin/python -m bench.llm_eval --model planner      # the offline planner alone

Without ``--model`` it uses whatever ``ASSISTANT_LLM_MODEL_PATH`` or ``ASSISTANT_LLM_BASE_URL``
(with ``ASSISTANT_LLM_MODEL``, ``ASSISTANT_LLM_API_KEY``, ``ASSISTANT_LLM_MODE``) name, so it
runs unchanged against Ollama, vLLM, llama.cpp's server or OpenAI. ``--order`` picks who
reads each message first (``ASSISTANT_LLM_ORDER``: ``planner-first`` by default, or
``model-first``). Each conversation (``bench.llm_cases``) runs through the whole application
(SQLite, the real tools, a fixed clock) as a user of its own, with the model loaded before
the first one, and is scored: task success (the right tool did the work at the right time
with the right words), invalid calls and how many the retry budget repaired, claims the
honesty check caught, false claims (a reply that claims an action while nothing changed:
must be 0), crashes (must be 0), turns answered without a model call, the latency of those
turns and of the turns the model took part in (p50 and p95), first-output latency, tokens
per second and prompt sizes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncGenerator, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from agent import AgentEvent, find_statements
from agent.llm import (
    ChatMessage,
    LazyModel,
    LLMBackend,
    LLMResponse,
    Order,
    ToolMode,
    Waiting,
)
from assistant.app import App, build_backend, open_app
from assistant.config import Settings, load_settings
from bench.llm_cases import CASES, NOW, Case
from bench.machine import this_machine
from common import ManualClock
from memory import MessageRole, StoredMessage
from tasks import Task, TaskStatus, parse_schedule
from testing.models import KNOWN, model_path
from tools import ToolCall, ToolDefinition, ToolResult, ToolStatus

MAX_ROUNDS = 4
MAX_TOKENS = 192
CONTEXT = 4096


@dataclass
class RoundTiming:
    """One model call: seconds to its first output and to its end, and its tokens (known
    when it ran to its end: ``whole``; the agent stops an answer that drifts)."""

    first: float
    total: float
    prompt_tokens: int
    completion_tokens: int
    wrote_text: bool
    whole: bool = True


class TimedBackend:
    """Times each model call of the backend it wraps; everything else is the backend's own."""

    def __init__(self, inner: LLMBackend) -> None:
        self.inner = inner
        self.rounds: list[RoundTiming] = []

    def __getattr__(self, name: str) -> Any:
        # Optional protocols (counting tokens, falling back to the contract) stay visible.
        return getattr(self.inner, name)

    @property
    def mode(self) -> ToolMode:
        return self.inner.mode

    async def complete(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> LLMResponse:
        started = time.perf_counter()
        response = await self.inner.complete(messages, tools=tools)
        spent = time.perf_counter() - started
        self._record(spent, spent, response, wrote_text=False)
        return response

    async def stream(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> AsyncGenerator[Any, None]:
        started = time.perf_counter()
        first: float | None = None
        text = False
        response: LLMResponse | None = None
        try:
            async for event in self.inner.stream(messages, tools=tools):
                if first is None and not isinstance(event, Waiting):
                    first = time.perf_counter() - started
                    text = not isinstance(event, LLMResponse)
                if isinstance(event, LLMResponse):
                    response = event
                yield event
        finally:
            # Recorded also when the agent stopped the stream early (an answer that drifted).
            total = time.perf_counter() - started
            whole = response is not None
            self._record(
                first or total, total, response or LLMResponse(), wrote_text=text, whole=whole
            )

    async def aclose(self) -> None:
        await self.inner.aclose()

    def _record(
        self,
        first: float,
        total: float,
        response: LLMResponse,
        *,
        wrote_text: bool,
        whole: bool = True,
    ) -> None:
        usage = response.usage
        self.rounds.append(
            RoundTiming(
                first, total, usage.prompt_tokens, usage.completion_tokens, wrote_text, whole
            )
        )


class ClaimLog(logging.Handler):
    """Counts the claims the agent's honesty check caught (it logs each one)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.caught = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("caught a claim"):
            self.caught += 1


@dataclass
class TurnTiming:
    """One turn of a conversation: how long it took and how many model calls it made."""

    seconds: float
    model_calls: int


@dataclass
class Outcome:
    """How one conversation went."""

    kind: str
    said: str
    success: bool
    why: str
    reply: str
    seconds: float
    turns: list[TurnTiming] = field(default_factory=list)
    invalid: int = 0
    repaired: int = 0
    false_claim: bool = False
    crashed: bool = False
    model_error: bool = False


@dataclass
class Summary:
    """The figures of one model (and grammar setting) over every conversation."""

    label: str
    outcomes: list[Outcome] = field(default_factory=list)
    rounds: list[RoundTiming] = field(default_factory=list)
    claims_caught: int = 0
    load: float = 0.0
    while_loading: list[float] = field(default_factory=list)
    wall: float = 0.0

    def figures(self) -> dict[str, Any]:
        done = self.outcomes
        whole = [r for r in self.rounds if r.whole]
        text_rounds = [r for r in whole if r.wrote_text and r.total > r.first]
        decode = [r.completion_tokens / (r.total - r.first) for r in text_rounds]
        kinds = Counter(o.kind for o in done)
        won = Counter(o.kind for o in done if o.success)
        turns = [t for o in done for t in o.turns]
        planned = [t.seconds * 1000 for t in turns if not t.model_calls]
        modelled = [t.seconds for t in turns if t.model_calls]
        return {
            "model": self.label,
            "conversations": len(done),
            "task success": sum(o.success for o in done),
            "by kind": {kind: f"{won[kind]}/{n}" for kind, n in kinds.items()},
            "invalid calls": sum(o.invalid for o in done),
            "repaired by retry": sum(o.repaired for o in done),
            "claims caught": self.claims_caught,
            "false claims": sum(o.false_claim for o in done),
            "crashes": sum(o.crashed for o in done),
            "model errors": sum(o.model_error for o in done),
            "turns without a model call": f"{len(planned)}/{len(turns)}",
            "model calls": len(self.rounds),
            "planner turn p50 ms": _p(planned, digits=1),
            "planner turn p95 ms": _p(planned, 0.95, digits=1),
            "model turn p50 s": _p(modelled),
            "model turn p95 s": _p(modelled, 0.95),
            "first output p50 s": _p(r.first for r in self.rounds),
            "model load s": round(self.load, 2),
            "planner turns while loading": len(self.while_loading),
            "... their p50 ms": _p(self.while_loading, digits=1),
            "... their max ms": round(max(self.while_loading, default=0.0), 1),
            "decode tokens/s p50": _p(decode),
            "prompt tokens p50": _p(r.prompt_tokens for r in whole),
            "prompt tokens max": max((r.prompt_tokens for r in whole), default=0),
            "wall s": round(self.wall, 1),
        }


def _p(values: Iterable[float], q: float = 0.5, *, digits: int = 2) -> float:
    data = sorted(values)
    if not data:
        return 0.0
    return round(data[min(len(data) - 1, int(q * len(data)))], digits)


def primer() -> list[StoredMessage]:
    """Two earlier exchanges in which the assistant called tools (``--primed``): the history
    of a user who has used tools before, which small models imitate."""
    stored: list[StoredMessage] = []
    for said, name, args, result in (
        (
            "remind me at 5pm to call mom",
            "add_reminder",
            {"when": "at 5pm", "message": "call mom"},
            "reminder set",
        ),
        (
            "note: the door code is 1234",
            "save_note",
            {"content": "the door code is 1234"},
            "note saved",
        ),
    ):
        call = ToolCall(name, args)
        stored += [
            StoredMessage(role=MessageRole.USER, content=said),
            StoredMessage(role=MessageRole.ASSISTANT, content="", tool_calls=(call,)),
            StoredMessage(
                role=MessageRole.TOOL,
                content=f"Tool results:\n- {name} [ok]: {result}",
                tool_call_id=call.id,
                name=name,
            ),
            StoredMessage(role=MessageRole.ASSISTANT, content=f"Done: {result}."),
        ]
    return stored


async def run_case(app: App, case: Case, user: str, *, primed: bool = False) -> Outcome:
    """Run one conversation as ``user`` and score it."""
    await app.memory.set_timezone(user, case.zone)
    if primed:
        await app.memory.append_turn(user, user, primer())
    zone = ZoneInfo(case.zone)
    for words, when in case.setup.tasks:
        await app.tasks.add_task(
            owner_id=user,
            chat_id=user,
            task_type="reminder",
            schedule=parse_schedule(when, now=NOW, tz=zone),
            description=words,
        )
    for note in case.setup.notes:
        await app.memory.add_note(user, note)
    before = await _state(app, user)
    started = time.perf_counter()
    results: list[ToolResult] = []
    turns: list[TurnTiming] = []
    reply_text = ""
    try:
        for words in case.said:
            turn_started = time.perf_counter()
            reply = await app.agent.handle_message(
                words, user_id=user, chat_id=user, on_event=_ignore
            )
            turns.append(TurnTiming(time.perf_counter() - turn_started, reply.model_calls))
            results.extend(reply.results)
            reply_text = reply.text
    except Exception as exc:  # a crash is what this counts; it must never happen
        seconds = time.perf_counter() - started
        return Outcome(
            case.kind, case.said[-1], False, f"crash: {exc!r}", "", seconds, crashed=True
        )
    seconds = time.perf_counter() - started
    after = await _state(app, user)
    success, why = _judge(case, results, reply_text, before, after, zone)
    changed = _changed(before, after)
    return Outcome(
        kind=case.kind,
        said=" / ".join(case.said),
        success=success,
        why=why,
        reply=reply_text,
        seconds=seconds,
        turns=turns,
        invalid=sum(r.status is ToolStatus.INVALID for r in results),
        repaired=_repaired(results),
        false_claim=bool(find_statements(reply_text)) and not changed,
        model_error=reply_text.startswith("Sorry, I could not get an answer"),
    )


def _ignore(event: AgentEvent) -> None:
    """A listener, so that turns stream (first-output latency is measured on streams)."""


@dataclass(frozen=True)
class _State:
    tasks: dict[str, Task]
    notes: list[str]
    approvals: int


async def _state(app: App, user: str) -> _State:
    tasks = await app.tasks.list_tasks(user, include_finished=True)
    notes = await app.memory.list_notes(user, limit=100)
    approvals = await app.memory.list_approvals(user)
    return _State({t.id: t for t in tasks}, [n.content for n in notes], len(approvals))


def _changed(before: _State, after: _State) -> bool:
    statuses = {k: t.status for k, t in before.tasks.items()}
    return (
        set(after.tasks) != set(before.tasks)
        or any(statuses.get(k) != t.status for k, t in after.tasks.items())
        or len(after.notes) != len(before.notes)
        or after.approvals != before.approvals
    )


def _judge(
    case: Case,
    results: list[ToolResult],
    reply: str,
    before: _State,
    after: _State,
    zone: ZoneInfo,
) -> tuple[bool, str]:
    expect = case.expect
    succeeded = {r.call.tool_name for r in results if r.status is ToolStatus.OK}
    if expect.tools and not succeeded & set(expect.tools):
        return False, f"no successful call of {'/'.join(expect.tools)} (got {sorted(succeeded)})"
    new = [t for k, t in after.tasks.items() if k not in before.tasks]
    if expect.task_words is not None:
        fitting = [t for t in new if expect.task_words in _text_of(t)]
        if not fitting:
            return False, f"no new task about {expect.task_words!r} ({len(new)} new)"
        task = fitting[0]
        if expect.recurring and task.schedule.kind != "recurring":
            return False, "the task does not repeat"
        if expect.task_at is not None:
            wanted = datetime.strptime(expect.task_at, "%Y-%m-%d %H:%M").replace(tzinfo=zone)
            if task.next_run != wanted:
                return False, f"next run {task.next_run} instead of {wanted}"
    if expect.note_words is not None:
        added = [n for n in after.notes if n not in before.notes]
        if not any(expect.note_words.lower() in n.lower() for n in added):
            return False, f"no new note with {expect.note_words!r}"
    if expect.cancelled_words is not None:
        gone = [t for t in after.tasks.values() if t.status is TaskStatus.CANCELLED]
        if [expect.cancelled_words in _text_of(t) for t in gone] != [True]:
            return False, f"cancelled {[t.description for t in gone]}"
    if expect.approval and (after.approvals <= before.approvals or new):
        return False, "no request waits for approval" if not new else "something ran unapproved"
    if expect.no_changes and _changed(before, after):
        return False, "something was changed"
    if expect.answer_words is not None and expect.answer_words.lower() not in reply.lower():
        return False, f"the answer lacks {expect.answer_words!r}"
    if not reply.strip():
        return False, "empty reply"
    return True, "ok"


def _text_of(task: Task) -> str:
    return f"{task.description} {task.execution!r}".lower()


def _repaired(results: Sequence[ToolResult]) -> int:
    """Invalid calls followed, later in the conversation, by a successful call of the tool."""
    repaired = 0
    for index, result in enumerate(results):
        if result.status is ToolStatus.INVALID and any(
            later.status is ToolStatus.OK and later.call.tool_name == result.call.tool_name
            for later in results[index + 1 :]
        ):
            repaired += 1
    return repaired


async def evaluate(
    settings: Settings,
    label: str,
    cases: Sequence[Case],
    *,
    deadline: float | None = None,
    primed: bool = False,
) -> Summary:
    """Run every case against the backend ``settings`` configure, or the offline planner
    alone when none is (none is started after ``deadline`` seconds; the summary then covers
    those that ran). The model is loaded before the first case."""
    model = build_backend(settings)
    timed = TimedBackend(model) if model is not None else None
    claims = ClaimLog()
    logging.getLogger("agent").addHandler(claims)
    summary = Summary(label)
    started = time.perf_counter()
    try:
        async with open_app(settings, backend=timed, clock=ManualClock(NOW)) as app:
            if app.model is not None and settings.llm_order is Order.PLANNER_FIRST:
                summary.while_loading = await _turns_while_loading(app, app.model)
            if app.model is not None:
                await app.model.ready()
                summary.load = time.perf_counter() - started
            for index, case in enumerate(cases):
                if deadline is not None and time.perf_counter() - started > deadline:
                    print(f"  deadline: stopped after {index} conversations", file=sys.stderr)
                    break
                outcome = await run_case(app, case, f"eval{index}", primed=primed)
                summary.outcomes.append(outcome)
                mark = "ok  " if outcome.success else "FAIL"
                print(
                    f"  {mark} {outcome.seconds:6.1f}s {outcome.kind:10} {outcome.said[:48]!r:50} "
                    f"{outcome.why[:100]}",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        logging.getLogger("agent").removeHandler(claims)
    summary.rounds = timed.rounds if timed is not None else []
    summary.claims_caught = claims.caught
    summary.wall = time.perf_counter() - started
    return summary


async def _turns_while_loading(app: App, model: LazyModel) -> list[float]:
    """Start loading the model in the background, as the front ends do, and time planner
    turns (milliseconds) until it is ready; then wait for it."""
    model.start()
    loading = asyncio.ensure_future(model.ready())
    timings: list[float] = []
    while not loading.done():
        began = time.perf_counter()
        await app.agent.handle_message("what time is it?", user_id="loading", chat_id="loading")
        timings.append((time.perf_counter() - began) * 1000)
        await asyncio.sleep(0.01)
    await loading
    return timings


def configurations(args: argparse.Namespace, data_dir: Path) -> list[tuple[str, Settings]]:
    """The settings to evaluate: the named model (or the environment's) in each order and
    with each grammar setting asked for; ``--model planner``: the offline planner alone."""
    common: dict[str, Any] = {"data_dir": data_dir, "max_rounds": args.max_rounds}
    if args.model == "planner":
        alone = load_settings(**common, llm_model_path=None, llm_base_url=None)
        return [("offline planner (no model)", alone)]
    if args.model is None:
        settings = load_settings(**common)
        if settings.llm_model_path is not None:
            title, default = settings.llm_model_path.name, settings.llm_grammar
        elif settings.llm_base_url is not None:
            title, default = f"{settings.llm_model} at {settings.llm_base_url}", None
        else:
            raise SystemExit(
                "no model configured: pass --model smollm2|gemma|planner|PATH, or set "
                "ASSISTANT_LLM_MODEL_PATH or ASSISTANT_LLM_BASE_URL"
            )
    else:
        known = KNOWN.get(args.model)
        path = model_path(args.model) if known else Path(args.model)
        title, default = known.title if known else path.name, True
        settings = load_settings(
            **common, llm_model_path=path, llm_ctx=args.ctx, llm_max_tokens=args.max_tokens
        )
    found = []
    for order in _orders(args.order):
        if default is None:  # a server: its grammar is its own
            found.append((f"{title}, {order}", settings.model_copy(update={"llm_order": order})))
            continue
        for grammar in _grammars(args.grammar, default=default):
            label = f"{title}, {order}, grammar {'on' if grammar else 'off'}"
            update = {"llm_order": order, "llm_grammar": grammar}
            found.append((label, settings.model_copy(update=update)))
    return found


def _orders(choice: str) -> list[Order]:
    return list(Order) if choice == "both" else [Order(choice)]


def _grammars(choice: str | None, *, default: bool) -> list[bool]:
    if choice == "both":
        return [True, False]
    if choice is None:
        return [default]
    return [choice == "on"]


def print_table(summaries: Sequence[Summary]) -> None:
    """Print one column per model and setting."""
    rows = [s.figures() for s in summaries]
    names = [name for name in rows[0] if name not in ("model", "by kind")]
    width = max(len(r["model"]) for r in rows) + 2
    print(this_machine().describe())
    print(f"{'':24}" + "".join(f"{r['model']:>{width}}" for r in rows))
    for name in names:
        print(f"{name:24}" + "".join(f"{r[name]!s:>{width}}" for r in rows))
    kinds = list(rows[0]["by kind"])
    for kind in kinds:
        cells = "".join(f"{r['by kind'].get(kind, '-'):>{width}}" for r in rows)
        print(f"{'  ' + kind:24}" + cells)


async def main_async(args: argparse.Namespace) -> int:
    cases = CASES[:: args.every]
    cases = cases[: args.limit] if args.limit else cases
    summaries = []
    with tempfile.TemporaryDirectory(prefix="assistant-llm-eval-") as folder:
        for index, (label, settings) in enumerate(configurations(args, Path(folder))):
            print(f"{label}: {len(cases)} conversations", file=sys.stderr, flush=True)
            run_settings = settings.model_copy(update={"data_dir": Path(folder) / str(index)})
            if args.primed:
                label += ", primed"
            summaries.append(
                await evaluate(
                    run_settings, label, cases, deadline=args.deadline, primed=args.primed
                )
            )
    print_table(summaries)
    if args.json:
        print(
            json.dumps(
                [s.figures() | {"outcomes": [asdict(o) for o in s.outcomes]} for s in summaries],
                indent=2,
            )
        )
    failures = sum(s.figures()["crashes"] + s.figures()["false claims"] for s in summaries)
    return 1 if failures else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.llm_eval", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--model",
        help="smollm2, gemma, a GGUF path, or planner (no model) (default: the environment)",
    )
    parser.add_argument(
        "--order",
        choices=[*(each.value for each in Order), "both"],
        default=Order.PLANNER_FIRST.value,
        help="who reads each message first (ASSISTANT_LLM_ORDER)",
    )
    parser.add_argument("--grammar", choices=["on", "off", "both"], help="local models only")
    parser.add_argument("--limit", type=int, help="only the first N conversations")
    parser.add_argument(
        "--every",
        type=int,
        default=1,
        help="only every Nth conversation (a smaller sample of each kind)",
    )
    parser.add_argument("--max-rounds", type=int, default=MAX_ROUNDS, dest="max_rounds")
    parser.add_argument("--max-tokens", type=int, default=MAX_TOKENS, dest="max_tokens")
    parser.add_argument("--ctx", type=int, default=CONTEXT, help="context tokens (local models)")
    parser.add_argument(
        "--deadline", type=float, help="seconds per model after which no conversation starts"
    )
    parser.add_argument(
        "--primed",
        action="store_true",
        help="start each conversation after two example exchanges that called tools",
    )
    parser.add_argument("--json", action="store_true", help="also print every outcome as JSON")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    sys.exit(main())
