"""What each task type needs to run (its execution data), validated at the edge.

Each task type has one pydantic model; ``parse_execution_data`` turns the loose mapping a tool
or a caller supplies into that model, or raises a ``TaskDataError`` that quotes the bad value
and says what works. The store keeps the model's JSON form.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ValidationError,
    field_validator,
    model_validator,
)

from common import (
    HTTP_METHODS,
    NOT_IDEMPOTENT_METHODS,
    HttpRequest,
    SelectorError,
    check_selector,
    clean_value,
    redact_url,
)
from tasks.errors import TaskDataError
from tasks.monitors import PAGE_EXAMPLE, Condition, check_field, parse_condition, problems_sentence
from tasks.references import Lookup, check_placement, no_secrets, resolve_headers, resolve_url


class TaskType(StrEnum):
    """What a task does when it runs."""

    REMINDER = "reminder"  # delivers its message; no LLM involved
    AGENT_TASK = "agent_task"  # runs the agent on a prompt and delivers the answer
    WEB_SEARCH = "web_search"  # searches the web and delivers the top results
    API_CALL = "api_call"  # makes an HTTP request and delivers the outcome
    MONITOR = "monitor"  # looks at something and speaks only when it changed or a condition holds
    BRIEFING = "briefing"  # the owner's day in one message, built from the store


def http_url(value: str, *, example: str = "https://example.com/api/lights/off") -> str:
    """Return ``value`` when it is an absolute http(s) URL with a host (``example`` is
    offered when it is not).

    Raises:
        ValueError: quoting it, with an example that works.
    """
    import httpx  # only an api_call's or a monitor's URL needs it; a command's start should not

    try:
        url = httpx.URL(value)
        host = url.host  # decodes an IDNA name, which may be invalid
    except (httpx.InvalidURL, TypeError, UnicodeError) as exc:
        raise ValueError(f"url {value!r} is not a valid URL ({exc})") from None
    if url.scheme not in ("http", "https") or not host:
        raise ValueError(
            f"url {value!r} must be an absolute http:// or https:// URL, e.g. {example!r}"
        )
    return value


class _Data(BaseModel):
    # Built when first used (a task read or made), not on import: a command that touches no
    # task (``assistant ask "what time is it?"``) does not pay for the validators.
    model_config = ConfigDict(
        frozen=True, extra="forbid", str_strip_whitespace=True, defer_build=True
    )

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: Any) -> Any:
        """Every text as both databases keep it: no NUL, no lone surrogate."""
        return clean_value(data) if isinstance(data, dict) else data


MAX_NAG_MINUTES = 1440
"""The longest a reminder that nags waits between repeats (a day)."""


class ReminderData(_Data):
    """A reminder: the text to deliver.

    Attributes:
        message: What to remind of.
        urgent: Whether it passes the owner's quiet hours (an alarm they marked urgent).
        nag_minutes: Repeat it every this many minutes until it is acknowledged (Done,
            "done", ``/done``); ``None``: once.
    """

    kind: Literal["reminder"] = "reminder"
    message: Annotated[str, Field(min_length=1, max_length=4000)]
    urgent: bool = False
    nag_minutes: Annotated[int, Field(ge=1, le=MAX_NAG_MINUTES)] | None = None


class AgentTaskData(_Data):
    """An agent task: the prompt the agent answers in a fresh context."""

    kind: Literal["agent_task"] = "agent_task"
    prompt: Annotated[str, Field(min_length=1, max_length=8000)]


class WebSearchData(_Data):
    """A web search: the query and how many results to deliver."""

    kind: Literal["web_search"] = "web_search"
    query: Annotated[str, Field(min_length=1, max_length=500)]
    limit: Annotated[int, Field(ge=1, le=10)] = 5


class ApiCallData(_Data):
    """An HTTP request, stored exactly as it was approved."""

    kind: Literal["api_call"] = "api_call"
    method: str = "GET"
    url: Annotated[str, Field(min_length=1, max_length=4000)]
    headers: dict[str, str] = Field(default_factory=dict)
    body: JsonValue = None
    timeout: Annotated[float, Field(gt=0, le=300)] = 15.0

    @field_validator("method")
    @classmethod
    def _known_method(cls, value: str) -> str:
        method = value.strip().upper()
        if method not in HTTP_METHODS:
            raise ValueError(f"method {value!r} is not one of {', '.join(HTTP_METHODS)}")
        return method

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        return http_url(value)

    @property
    def idempotent(self) -> bool:
        """Whether sending this request twice does what sending it once does."""
        return self.method not in NOT_IDEMPOTENT_METHODS

    def check_references(self) -> None:
        """Refuse a ``${NAME}`` reference that stands where its value would be shown.

        Raises:
            TaskDataError: saying where references may stand (``tasks.references``).
        """
        check_placement(self.headers, self.url)

    def to_request(
        self,
        *,
        extra_headers: Mapping[str, str] | None = None,
        lookup: Lookup = no_secrets,
        max_bytes: int = 1_000_000,
    ) -> HttpRequest:
        """The request this data describes, to send now.

        ``${NAME}`` references in header values and query values are replaced by what
        ``lookup`` returns; a string body is sent as it is, any other body as JSON (with its
        content type, unless the headers name one); ``extra_headers`` are added where the
        stored headers do not already name them.

        Raises:
            TaskError: when a reference is misplaced or ``lookup`` has no value for it.
        """
        self.check_references()
        headers = resolve_headers(self.headers, lookup)
        stated = {name.lower() for name in headers}
        for name, value in (extra_headers or {}).items():
            if name.lower() not in stated:
                headers[name] = value
        content: bytes | None = None
        if isinstance(self.body, str):
            content = self.body.encode()
        elif self.body is not None:
            content = json.dumps(self.body, ensure_ascii=False).encode()
            if "content-type" not in stated:
                headers["Content-Type"] = "application/json"
        url = resolve_url(self.url, lookup)
        return HttpRequest(self.method, url, headers, content, self.timeout, max_bytes)


class MonitorSource(StrEnum):
    """What a monitor looks at."""

    PAGE = "page"  # a web page's text, or what a CSS selector picks on it
    JSON = "json"  # a field of a JSON document (an HTTP API's answer)
    SEARCH = "search"  # a web search's top results
    TOOL = "tool"  # a tool's output (built-in or an MCP server's), run without approval


_NEEDS: dict[MonitorSource, tuple[str, ...]] = {
    MonitorSource.PAGE: ("url",),
    MonitorSource.JSON: ("url",),
    MonitorSource.SEARCH: ("query",),
    MonitorSource.TOOL: ("tool",),
}
_TAKES: dict[MonitorSource, frozenset[str]] = {
    MonitorSource.PAGE: frozenset({"url", "selector"}),
    MonitorSource.JSON: frozenset({"url", "field"}),
    MonitorSource.SEARCH: frozenset({"query", "limit"}),
    MonitorSource.TOOL: frozenset({"tool", "arguments"}),
}
_OPTIONAL = ("url", "selector", "field", "query", "tool")


class MonitorData(_Data):
    """A monitor: what it looks at, and when it speaks.

    Attributes:
        source: What it looks at.
        url: The page or the JSON document (``page``, ``json``).
        selector: A CSS selector: only what it picks on the page counts (``page``).
        field: The path of a field of the JSON document, e.g. ``data.price`` (``json``;
            without it, the whole document).
        query: What to search for (``search``).
        limit: How many top results count (``search``).
        tool: The tool whose output it watches, ``server.tool`` for an MCP server's (``tool``).
        arguments: The tool's arguments.
        condition: When it speaks, in its canonical form (``contains 'in stock'``,
            ``price < 300``); ``None``: on any change.
    """

    kind: Literal["monitor"] = "monitor"
    source: MonitorSource
    url: Annotated[str, Field(min_length=1, max_length=4000)] | None = None
    selector: str | None = None
    field: str | None = None
    query: Annotated[str, Field(min_length=1, max_length=500)] | None = None
    limit: Annotated[int, Field(ge=1, le=10)] = 5
    tool: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    arguments: dict[str, JsonValue] = Field(default_factory=dict)
    condition: str | None = None

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        return None if value is None else http_url(value, example=PAGE_EXAMPLE)

    @field_validator("selector")
    @classmethod
    def _selector(cls, value: str | None) -> str | None:
        try:
            return None if value is None else check_selector(value)
        except SelectorError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("field")
    @classmethod
    def _field(cls, value: str | None) -> str | None:
        return None if value is None else check_field(value)

    @field_validator("condition")
    @classmethod
    def _condition(cls, value: str | None) -> str | None:
        found = parse_condition(value)
        return None if found is None else found.canonical()

    @model_validator(mode="after")
    def _fits_source(self) -> MonitorData:
        source = self.source
        missing = [name for name in _NEEDS[source] if getattr(self, name) is None]
        if missing:
            raise ValueError(f"a {source.value} monitor needs {' and '.join(missing)}")
        stray = [
            name
            for name in _OPTIONAL
            if getattr(self, name) is not None and name not in _TAKES[source]
        ]
        if self.arguments and source is not MonitorSource.TOOL:
            stray.append("arguments")
        if stray:
            takes = ", ".join(sorted(_TAKES[source]))
            raise ValueError(
                f"{', '.join(stray)} do not belong to a {source.value} monitor (it takes {takes})"
            )
        return self

    def parsed_condition(self) -> Condition | None:
        """The condition as a value (``None``: it speaks on any change)."""
        return parse_condition(self.condition)

    def subject(self) -> str:
        """What it looks at, in words: ``https://shop.example/item (#price)``."""
        if self.source is MonitorSource.PAGE:
            url = redact_url(self.url or "")
            return f"{url} ({self.selector})" if self.selector else url
        if self.source is MonitorSource.JSON:
            url = redact_url(self.url or "")
            return f"{self.field} at {url}" if self.field else url
        if self.source is MonitorSource.SEARCH:
            return f"the top {self.limit} results for {self.query!r}"
        return f"the output of {self.tool}"


def monitor_of(
    *,
    url: str | None = None,
    selector: str | None = None,
    field: str | None = None,
    query: str | None = None,
    tool: str | None = None,
    arguments: Mapping[str, JsonValue] | None = None,
    condition: str | None = None,
) -> MonitorData:
    """The monitor of what is named: a tool, a search, a JSON field (a url with a field), or
    a page (a url, with a selector or not).

    Raises:
        TaskDataError: naming what is missing or does not fit, in a sentence with examples.
    """
    named = [name for name, value in (("url", url), ("query", query), ("tool", tool)) if value]
    if len(named) != 1:
        raise TaskDataError(
            "say what to watch: a url (a page, or a JSON API with a field), a query (web "
            f"search results) or a tool, one of them; got {', '.join(named) or 'none'}"
        )
    source = "tool" if tool else "search" if query else "json" if field else "page"
    fields = {
        "source": source, "url": url, "selector": selector, "field": field, "query": query,
        "tool": tool, "arguments": dict(arguments or {}), "condition": condition,
    }  # fmt: skip
    try:
        return MonitorData.model_validate(
            {key: value for key, value in fields.items() if value is not None}
        )
    except ValidationError as exc:
        # Each part's own sentence, never the data the task would keep.
        problems = [str(err.get("msg", "")).removeprefix("Value error, ") for err in exc.errors()]
        raise TaskDataError(problems_sentence(problems)) from None


class BriefingData(_Data):
    """A morning briefing: the owner's day in one message, built from the store.

    Attributes:
        summarize: Whether a configured model may summarise it (every line still names the
            row it comes from); without a model it is never summarised.
    """

    kind: Literal["briefing"] = "briefing"
    summarize: bool = True


ExecutionData: TypeAlias = (
    ReminderData | AgentTaskData | WebSearchData | ApiCallData | MonitorData | BriefingData
)

_MODELS: dict[TaskType, type[ExecutionData]] = {
    TaskType.REMINDER: ReminderData,
    TaskType.AGENT_TASK: AgentTaskData,
    TaskType.WEB_SEARCH: WebSearchData,
    TaskType.API_CALL: ApiCallData,
    TaskType.MONITOR: MonitorData,
    TaskType.BRIEFING: BriefingData,
}
_EXAMPLES: dict[TaskType, str] = {
    TaskType.REMINDER: '{"message": "call mom"}',
    TaskType.AGENT_TASK: '{"prompt": "summarise my notes tagged work"}',
    TaskType.WEB_SEARCH: '{"query": "top US news", "limit": 3}',
    TaskType.API_CALL: '{"method": "POST", "url": "https://example.com/lights/off"}',
    TaskType.MONITOR: (
        '{"source": "page", "url": "https://shop.example/item", "selector": "#stock", '
        '"condition": "contains \'in stock\'"}'
    ),
    TaskType.BRIEFING: "{}",
}


def repeat_is_safe(data: ExecutionData) -> bool:
    """Whether a run whose outcome is unknown may run again without asking its owner.

    Everything may, except a non-idempotent HTTP request (POST, PATCH): it may have reached
    the server already, and a second one could act twice.
    """
    return not isinstance(data, ApiCallData) or data.idempotent


def parse_task_type(value: str | TaskType) -> TaskType:
    """Return the ``TaskType`` named by ``value``.

    Raises:
        TaskDataError: naming the known task types when ``value`` is not one.
    """
    try:
        return TaskType(value.strip().lower() if isinstance(value, str) else value)
    except ValueError:
        known = ", ".join(repr(t.value) for t in TaskType)
        raise TaskDataError(f"unknown task type {value!r}; use one of {known}") from None


def parse_execution_data(
    task_type: TaskType, data: Mapping[str, Any] | ExecutionData | None
) -> ExecutionData:
    """Validate ``data`` as the execution data of a ``task_type`` task.

    Raises:
        TaskDataError: quoting the bad field and giving an example that works.
    """
    model = _MODELS[task_type]
    if isinstance(data, model):
        return data
    if isinstance(data, BaseModel):
        raise TaskDataError(
            f"a {task_type.value} task cannot run with {type(data).__name__} data; "
            f"give e.g. {_EXAMPLES[task_type]}"
        )
    fields = dict(data or {})
    fields.pop("kind", None)
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        problems = "; ".join(_describe_error(err) for err in exc.errors())
        # The problems first, and the data only in short: a long message would hide them.
        raise TaskDataError(
            f"{_an(task_type.value)} task cannot run with {_short(fields)}: {problems}; "
            f"give e.g. {_EXAMPLES[task_type]}"
        ) from None


def _an(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def _short(fields: Mapping[str, Any], limit: int = 120) -> str:
    text = repr(fields)
    return text if len(text) <= limit else f"{text[: limit - 5]}...{text[-1]}"


def execution_from_json(task_type: TaskType, text: str) -> ExecutionData:
    """Read execution data back from the JSON the store keeps."""
    return parse_execution_data(task_type, json.loads(text))


def execution_to_json(data: ExecutionData) -> str:
    """Return the JSON form the store keeps (the newer types without their defaults, so a
    reminder without the options of issue 28 is stored as before)."""
    compact = isinstance(data, ReminderData | MonitorData | BriefingData)
    return data.model_dump_json(exclude={"kind"}, exclude_defaults=compact)


def _describe_error(error: Any) -> str:
    where = ".".join(str(part) for part in error.get("loc", ())) or "data"
    message = str(error.get("msg", "is invalid"))
    if error.get("type") == "missing":
        return f"{where!r} is missing"
    if error.get("type") == "extra_forbidden":
        return f"{where!r} is not a known field"
    return f"{where!r}: {message.removeprefix('Value error, ')}"
