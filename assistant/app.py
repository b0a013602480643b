"""The composition root: the one place that builds the object graph.

settings -> stores -> LLM backend -> tools and registry -> executor -> agent -> task manager.
Interfaces receive the finished objects; nothing else constructs collaborators.
"""

from __future__ import annotations

import importlib.util
import json
import logging
from collections.abc import AsyncIterator, Collection, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, replace
from datetime import timedelta
from zoneinfo import ZoneInfo

from pydantic import JsonValue

from agent import DEFAULT_BASE_PROMPT, DialogAgent, EventCallback
from agent.llm import LazyModel, LLMBackend, LLMModelError
from agent.planner import OfflinePlanner, PlannerTools
from assistant.backup import DailyBackups, backups_of
from assistant.briefing import CalendarDays, DayNotes
from assistant.builtin import (
    MemoryTools,
    ProactiveTools,
    SystemTools,
    TaskTools,
    WebSearchError,
    WebTools,
    get_current_time,
)
from assistant.config import SCHEDULER_COMMANDS, ConfigError, Settings
from assistant.datadir import check_database, prepare_data_dir
from assistant.secrets import EnvironmentSecrets
from calendars import CaldavSettings, Calendars, SyncSettings
from common import Clock, SystemClock, install_log_redaction
from interfaces import ChatRecorder, LoggingNotifier, QuietHoursBook, SlashCommands, home_chat
from memory import MemoryStore
from tasks import (
    ChatScope,
    Notifier,
    PostgresTaskStore,
    SchedulerBusyError,
    SearchHit,
    SecretSource,
    SqliteTaskStore,
    TaskError,
    TaskManager,
    TaskStore,
    scheduler_lock,
)
from tools import (
    LoadReport,
    Provenance,
    ToolCall,
    ToolExecutor,
    ToolRegistry,
    load_custom_tools,
)
from tools.mcp import McpConfig, McpServers, SecretLookup, Startup, load_config

logger = logging.getLogger(__name__)

LOCAL_USER = "local"
"""The user id of the person at the terminal (``assistant chat``, ``ask``, ``tasks``)."""
LOCAL_CHAT = "local"
"""The chat id of the terminal."""


@dataclass(frozen=True, slots=True)
class App:
    """Everything an interface needs, built and wired."""

    settings: Settings
    clock: Clock
    memory: MemoryStore
    tasks: TaskManager
    registry: ToolRegistry
    executor: ToolExecutor
    planner: OfflinePlanner
    model: LazyModel | None
    agent: DialogAgent
    web: WebTools
    custom_tools: LoadReport
    mcp: McpServers
    """The MCP servers of ``ASSISTANT_MCP_CONFIG`` (none when it is absent, or when the app
    was opened without them): ``statuses()`` and ``tools_by_server()`` say what they offer."""
    quiet: QuietHoursBook
    """The users' quiet hours: every delivery of the scheduler asks it (issue 28)."""
    calendars: Calendars
    """The feeds, calendar files, the calendars read for the days and the CalDAV sync (its
    passes run while the scheduler does)."""

    def slash_commands(self, *, buttons: bool, local_files: bool = False) -> SlashCommands:
        """The slash commands over this app, with the settings' defaults (the date order).

        Args:
            buttons: Whether the front end shows buttons (Telegram does).
            local_files: Whether ``/calendar import`` may read this machine's files (the
                terminal's user is this machine's).
        """
        return SlashCommands(
            tasks=self.tasks,
            memory=self.memory,
            agent=self.agent,
            clock=self.clock,
            buttons=buttons,
            quiet=self.quiet,
            calendars=self.calendars,
            local_files=local_files,
            date_order=self.settings.date_order,
        )


class _LateAgent:
    """The agent as the scheduler's ``AgentRunner``; the agent is built after the manager
    (its tools need the manager), so the reference is filled in once both exist."""

    def __init__(self) -> None:
        self.agent: DialogAgent | None = None

    async def run_task(
        self, prompt: str, *, owner_id: str, chat_id: str, material: str | None = None
    ) -> str:
        if self.agent is None:
            raise TaskError("the agent is not ready yet (the assistant is still starting)")
        return await self.agent.run_task(
            prompt, owner_id=owner_id, chat_id=chat_id, material=material
        )

    async def user_zone(self, user_id: str) -> ZoneInfo:
        """The user's zone, as the agent knows it."""
        if self.agent is None:
            raise TaskError("the agent is not ready yet (the assistant is still starting)")
        return await self.agent.user_zone(user_id)


class _OfflinePrompts:
    """Whether the offline planner answers an agent task's prompt, for the task tools, which
    are built before the planner (it reads their names); filled in once it exists."""

    def __init__(self) -> None:
        self.planner: OfflinePlanner | None = None

    def __call__(self, prompt: str) -> bool:
        if self.planner is None:
            raise TaskError("the offline planner is not ready yet (the assistant is starting)")
        return self.planner.answers_offline(prompt)


class _WatchedTools:
    """The tool executor as the scheduler's ``ToolRunner`` (monitors of a tool's output).

    The call runs as chat runs it, for the monitor's owner, unattended: it may send only to
    the hosts its own arguments name, and a tool that would wait for approval is refused
    rather than left waiting (nobody is there). The agent and the executor are built after
    the manager; their references are filled in once they exist.
    """

    def __init__(self) -> None:
        self.agent: DialogAgent | None = None
        self.executor: ToolExecutor | None = None

    async def run_tool(
        self, tool: str, arguments: Mapping[str, JsonValue], *, owner_id: str, chat_id: str
    ) -> str:
        agent, executor = self.agent, self.executor
        if agent is None or executor is None:
            raise TaskError("the tools are not ready yet (the assistant is still starting)")
        found = executor.registry.find(tool)
        if found is None:
            raise TaskError(f"the tool {tool!r} is not there (any more); is its server running?")
        args = dict(arguments)
        said = json.dumps(args, ensure_ascii=False)
        ctx = replace(
            await agent.tool_context(owner_id, chat_id),
            provenance=Provenance.of_model([said], unattended=True),
        )
        if found.requires_approval and found.needs_approval(args, ctx):
            raise TaskError(
                f"{tool} waits for approval, and a monitor runs without you: it was not run"
            )
        result = await executor.execute(ToolCall(tool, args), ctx)
        if not result.ok:
            raise TaskError(f"{tool} failed: {result.display or result.text}")
        return result.text


class _TaskSearcher:
    """The web tools as the scheduler's ``Searcher``: a failed search is a ``TaskError``
    there (the run is recorded as failed with the message), a ``WebSearchError`` here."""

    def __init__(self, web: WebTools) -> None:
        self._web = web

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        try:
            return await self._web.search(query, limit=limit)
        except WebSearchError as exc:
            raise TaskError(str(exc)) from exc


def _secret_lookup(source: SecretSource) -> SecretLookup:
    """The secrets of scheduled requests for the MCP configuration's ``${NAME}`` references:
    a refusal there is a ``TaskError``, which the MCP client reads as a ``LookupError``."""

    def lookup(name: str) -> str:
        try:
            return source.secret(name)
        except TaskError as exc:
            raise LookupError(str(exc)) from None

    return lookup


def _mcp_servers(
    settings: Settings,
    registry: ToolRegistry,
    *,
    clock: Clock,
    secrets: SecretSource,
    enabled: bool | Collection[str],
    startup: Startup,
    wait: float | None,
) -> McpServers:
    """The MCP servers of the configuration file (not started yet), its secrets already
    hidden from the logs: all, those ``enabled`` names, or none when it is false."""
    if enabled is False:
        return McpServers(McpConfig(), registry, clock=clock)
    config = load_config(
        settings.mcp_config_path,
        secrets=_secret_lookup(secrets),
        named=settings.mcp_config is not None,
    )
    install_log_redaction(*config.secret_values())
    if enabled is not True:
        config = config.only(enabled)
    return McpServers(
        config,
        registry,
        clock=clock,
        startup=startup,
        wait=wait,
        stderr_dir=settings.data_dir / "mcp",
    )


def caldav_sync(settings: Settings) -> SyncSettings | None:
    """The CalDAV sync of the settings (``ASSISTANT_CALDAV_*``), or ``None`` without a URL.

    Raises:
        ConfigError: when it is configured but the ``caldav`` library is not installed.
    """
    if settings.caldav_url is None:
        return None
    if importlib.util.find_spec("caldav") is None:
        raise ConfigError(
            "ASSISTANT_CALDAV_URL is set, but the CalDAV library is not installed: "
            "pip install 'assistant[caldav]' (./scripts/run installs it when the variable is "
            "set), or unset ASSISTANT_CALDAV_URL"
        )
    password = settings.caldav_password.get_secret_value() if settings.caldav_password else ""
    user = settings.caldav_user
    return SyncSettings(
        calendar=CaldavSettings(
            url=settings.caldav_url,
            username=settings.caldav_username or "",
            password=password,
            calendar=settings.caldav_calendar,
        ),
        user_id=user,
        chat_id=settings.caldav_chat
        or home_chat(user, local_user=LOCAL_USER, local_chat=LOCAL_CHAT),
        every=timedelta(minutes=settings.caldav_sync_minutes),
    )


def _lock_scheduler(stack: AsyncExitStack, settings: Settings) -> None:
    """Hold the data directory's scheduler lock until ``stack`` closes.

    Raises:
        ConfigError: when another front end already runs the scheduler on this data.
    """
    try:
        stack.enter_context(scheduler_lock(settings.data_dir / "scheduler.lock"))
    except SchedulerBusyError as exc:
        raise ConfigError(
            f"{exc}: stop it first (one of {SCHEDULER_COMMANDS} runs the scheduler at a "
            "time), or give this one its own ASSISTANT_DATA_DIR"
        ) from None


def _stores(
    settings: Settings, clock: Clock, serves: ChatScope | None
) -> tuple[MemoryStore, TaskStore]:
    """The memory and task stores: on ``ASSISTANT_DATABASE_URL``'s PostgreSQL database when
    it is set, else in the SQLite file under the data directory (neither opened yet)."""
    url = settings.postgres_url
    limits = settings.note_limits
    if url is None:
        return MemoryStore(
            settings.database_path, clock=clock, note_limits=limits
        ), SqliteTaskStore(settings.database_path)
    pool = settings.database_pool_size
    memory = MemoryStore(database_url=url, clock=clock, pool_size=pool, note_limits=limits)
    return memory, PostgresTaskStore(url, scope=serves, pool_size=pool)


def build_backend(settings: Settings) -> LLMBackend | None:
    """Return the configured language model: a GGUF file in process (it takes precedence) or
    an OpenAI-compatible server; ``None`` when none is configured (the offline planner then
    answers alone). Nothing is loaded or sent yet: a local model loads when first needed.

    Raises:
        ConfigError: the model file is missing or is not GGUF.
    """
    if settings.llm_model_path is not None:
        from agent.llm import LocalBackend  # ctypes and llama.cpp: only with a model file

        try:
            return LocalBackend(
                model_path=settings.llm_model_path,
                context_tokens=settings.llm_ctx,
                gpu_layers=settings.llm_gpu_layers,
                threads=settings.llm_threads,
                chat_template=settings.llm_chat_template,
                grammar=settings.llm_grammar,
                max_tokens=settings.llm_max_tokens,
            )
        except LLMModelError as exc:
            raise ConfigError(str(exc)) from None
    if settings.llm_base_url is None:
        return None
    from agent.llm import OpenAIBackend  # it brings httpx: only when a server is configured

    api_key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    return OpenAIBackend(
        base_url=settings.llm_base_url,
        api_key=api_key,
        model=settings.llm_model,
        timeout=settings.llm_timeout,
        mode=settings.llm_mode,
        concurrency=settings.llm_concurrency,
    )


def offline_planner(
    *,
    tasks: TaskTools,
    proactive: ProactiveTools,
    memory: MemoryTools,
    web: WebTools,
    system: SystemTools,
    registry: ToolRegistry,
    max_input_chars: int = 4000,
) -> OfflinePlanner:
    """The offline planner over the builtin tools, named as ``registry`` names them."""
    tools = PlannerTools(
        add_reminder=tasks.add_reminder,
        add_recurring_task=tasks.add_recurring_task,
        list_tasks=tasks.list_tasks,
        cancel_task=tasks.cancel_task,
        pause_task=tasks.pause_task,
        resume_task=tasks.resume_task,
        snooze_task=tasks.snooze_task,
        reschedule_task=tasks.reschedule_task,
        save_note=memory.save_note,
        search_memory=memory.search_memory,
        get_current_time=get_current_time,
        search_web=web.search_web,
        fetch_url=web.fetch_url,
        api_call=web.api_call,
        execute_code=system.execute_code,
        add_monitor=proactive.add_monitor,
        quiet_hours=proactive.quiet_hours,
        morning_briefing=proactive.morning_briefing,
        acknowledge_task=proactive.acknowledge_task,
    )
    return OfflinePlanner(
        tools=tools,
        registry=registry,
        search_configured=web.search_configured,
        max_input_chars=max_input_chars,
    )


def _has_model(settings: Settings, backend: LLMBackend | None) -> bool:
    """Whether a language model answers (one given, or one configured)."""
    return backend is not None or bool(settings.llm_base_url or settings.llm_model_path)


def _model_of(settings: Settings, backend: LLMBackend | None) -> LazyModel | None:
    """The language model, made ready when a turn first needs it (or ``None``).

    Raises:
        ConfigError: the configured model file is missing or is not GGUF (checked now,
            cheaply; loading it is left for later).
    """
    built = backend or build_backend(settings)
    if built is None:
        return None
    name = type(built).__name__
    if settings.llm_model_path is not None:  # a local model is named by its file
        from agent.llm import LocalBackend

        if isinstance(built, LocalBackend):
            name = built.name
    return LazyModel(lambda: built, name=name)


@asynccontextmanager
async def open_app(
    settings: Settings,
    *,
    notifier: Notifier | None = None,
    backend: LLMBackend | None = None,
    clock: Clock | None = None,
    on_event: EventCallback | None = None,
    run_scheduler: bool = False,
    secrets: SecretSource | None = None,
    serves: ChatScope | None = None,
    preload_model: bool = False,
    mcp_servers: bool | Collection[str] = True,
    mcp_startup: Startup = Startup.BACKGROUND,
    mcp_wait: float | None = None,
) -> AsyncIterator[App]:
    """Build the application from ``settings`` and close everything on exit.

    Args:
        settings: The configuration.
        notifier: Delivers scheduler messages (the interface's); a logging one by default.
        backend: The language model; by default the configured one (``None`` with none:
            the offline planner over the builtin tools answers alone). The planner reads
            every message first unless ``ASSISTANT_LLM_ORDER`` is ``model-first``.
        clock: The one clock of the whole graph: the scheduler, memory, the executor and
            the agent read it (tests inject a manual one).
        on_event: Receives the agent's progress events.
        run_scheduler: Start the task manager's timer (chat, telegram, serve).
        secrets: The values of ``${NAME}`` references in scheduled requests; by default
            the environment and ``.env`` (read once, here).
        serves: The chats the front end delivers to. On PostgreSQL, where several
            schedulers share the tasks, this one claims only their runs and leaves the rest
            to a process that can deliver them (every chat by default). SQLite's one
            scheduler fires every task.
        preload_model: Start making the model ready in the background now (the front ends
            that keep running); otherwise it is made ready when a turn first needs it, so a
            one-shot ``assistant ask`` that the planner completes never loads it.
        mcp_servers: Start the MCP servers of ``ASSISTANT_MCP_CONFIG`` (their tools join the
            registry; ``App.mcp``): all of them, only those named (``assistant call`` of one
            server's tool), or none (a command that runs no tool need not wait for them).
            They stop when the app closes.
        mcp_startup: When they start: in the background (front ends: the agent waits for
            a server still starting before a model's turn), before the app is ready
            (``assistant tools``, ``call``), or when a model's turn first needs them
            (``assistant ask``, which the offline planner may answer alone).
        mcp_wait: The most anything waits for their first attempts (one-shot commands); by
            default each server's whole first attempt.
    """
    clock = clock or SystemClock()
    install_log_redaction(*settings.secret_values())
    async with AsyncExitStack() as stack:
        prepare_data_dir(settings.data_dir)
        if settings.postgres_url is None:
            check_database(settings.database_path)
        if run_scheduler and settings.postgres_url is None:
            _lock_scheduler(stack, settings)
        memory, store = _stores(settings, clock, serves)
        await memory.start()
        stack.push_async_callback(memory.close)
        await store.open()
        stack.push_async_callback(store.close)
        web = WebTools(
            serpapi_key=(
                settings.serpapi_api_key.get_secret_value() if settings.serpapi_api_key else None
            ),
            allow_hosts=settings.http_allow_hosts,
        )
        stack.push_async_callback(web.aclose)

        secret_source = secrets or EnvironmentSecrets.from_process()
        late_agent = _LateAgent()
        watched = _WatchedTools()
        quiet = QuietHoursBook(memory=memory, default_zone=settings.zone, clock=clock)
        offline_prompts = _OfflinePrompts()
        # What is delivered joins its chat's conversation: "snooze it" means that reminder.
        recorder = ChatRecorder(notifier or LoggingNotifier(), conversations=memory)
        day_notes = DayNotes(memory=memory)
        manager = TaskManager(
            store=store,
            notifier=recorder,
            clock=clock,
            agent=late_agent,
            searcher=_TaskSearcher(web),
            summarizer=late_agent if settings.llm_base_url or settings.llm_model_path else None,
            # Scheduled API calls take the api_call tool's own guarded path.
            http=web.http,
            secrets=secret_source,
            # Tasks added by another process (`assistant ask`) are noticed within a second;
            # on PostgreSQL at once, by LISTEN, and the re-read is only a safety net.
            recheck_every=timedelta(seconds=1 if settings.postgres_url is None else 30),
            # Holding the scheduler lock proves the previous holder is gone: the runs it
            # left claimed are retried as this one starts, not when their leases run out.
            # PostgreSQL has no such lock (several schedulers share it): leases decide there.
            exclusive=run_scheduler and settings.postgres_url is None,
            limits=settings.task_limits,
            ledger=settings.ledger_policy,
            # Issue 28: what falls in quiet hours waits; monitors of tools; the briefing.
            quiet=quiet,
            tools=watched,
            briefing=day_notes,
            alert_after=settings.alert_after,
            # "snooze that" after a monitor's message shows the message again, from here.
            delivered=recorder,
        )
        calendars = Calendars(
            memory=memory,
            tasks=manager,
            clock=clock,
            zone_of=late_agent.user_zone,
            http=web.http,
            public_url=settings.web_public_url,
            local_url=f"http://{settings.web_host}:{settings.web_port}",
            sync=caldav_sync(settings),
            notifier=recorder,
        )
        # The briefing's Calendar section: the calendars read for the user's days.
        day_notes.calendar = CalendarDays(calendars)
        task_tools = TaskTools(
            manager,
            search_configured=web.search_configured,
            # Without a model an agent task's prompt must be one the planner answers.
            offline_prompts=None if _has_model(settings, backend) else offline_prompts,
            date_order=settings.date_order,
            calendars=calendars,
        )
        proactive = ProactiveTools(
            task_tools, manager, quiet=quiet, search_configured=web.search_configured
        )
        memory_tools = MemoryTools(memory)
        system = SystemTools()
        registry = ToolRegistry(
            [task_tools, proactive, memory_tools, get_current_time, web, system]
        )
        proactive.watch(registry)
        custom = load_custom_tools(
            settings.tools_dir, reserved_names=frozenset(registry.all_names())
        )
        for found in custom.tools:
            registry.add(found)
        # Their tools join the registry now (and whenever a server changes them); the stack
        # stops the servers after the scheduler, whose agent tasks may still call them.
        mcp = await stack.enter_async_context(
            _mcp_servers(
                settings,
                registry,
                clock=clock,
                secrets=secret_source,
                enabled=mcp_servers,
                startup=mcp_startup,
                wait=mcp_wait,
            )
        )
        planner = offline_planner(
            tasks=task_tools,
            proactive=proactive,
            memory=memory_tools,
            web=web,
            system=system,
            registry=registry,
            max_input_chars=settings.max_message_chars,
        )
        offline_prompts.planner = planner
        model = _model_of(settings, backend)
        if model is not None:
            stack.push_async_callback(model.aclose)
            if preload_model:
                model.start()
        executor = ToolExecutor(
            registry,
            approvals=memory,
            clock=clock,
            approval_ttl=timedelta(minutes=settings.approval_ttl_minutes),
            max_calls_per_reply=settings.max_calls_per_reply,
        )
        agent = DialogAgent(
            backend=model,
            planner=planner,
            order=settings.llm_order,
            registry=registry,
            executor=executor,
            memory=memory,
            clock=clock,
            default_zone=settings.zone,
            services={TaskManager: manager, MemoryStore: memory, QuietHoursBook: quiet},
            base_prompt=settings.system_prompt or DEFAULT_BASE_PROMPT,
            max_rounds=settings.max_rounds,
            on_event=on_event,
            # A model's answer to a request it did no call for says so; the planner's own
            # answers never need the note.
            asked_action=None if model is None else planner.asked_action,
            # A model's turn offers the MCP servers' tools: one still starting joins first.
            tools_ready=mcp.ready,
        )
        late_agent.agent = agent
        watched.agent, watched.executor = agent, executor
        # Stopping also flushes ledger rows still buffered, whether or not the timer ran.
        stack.push_async_callback(manager.stop)
        if run_scheduler:
            await manager.start()
            # The CalDAV sync's passes (when configured) run with the scheduler.
            await stack.enter_async_context(calendars)
            # PostgreSQL is backed up by its server; a SQLite file left behind by
            # `assistant migrate` holds nothing current, so it is not copied day after day.
            if settings.backup_days and settings.postgres_url is None:
                backups = DailyBackups(
                    settings.database_path,
                    backups_of(settings.data_dir),
                    clock=clock,
                    keep_days=settings.backup_days,
                )
                await stack.enter_async_context(backups)
        yield App(
            settings=settings,
            clock=clock,
            memory=memory,
            tasks=manager,
            registry=registry,
            executor=executor,
            planner=planner,
            model=model,
            agent=agent,
            web=web,
            custom_tools=custom,
            mcp=mcp,
            quiet=quiet,
            calendars=calendars,
        )
