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

import httpx
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    ValidationError,
    field_validator,
    model_validator,
)

from common import HTTP_METHODS, NOT_IDEMPOTENT_METHODS, HttpRequest, clean_value
from tasks.errors import TaskDataError
from tasks.references import Lookup, check_placement, no_secrets, resolve_headers, resolve_url


class TaskType(StrEnum):
    """What a task does when it runs."""

    REMINDER = "reminder"  # delivers its message; no LLM involved
    AGENT_TASK = "agent_task"  # runs the agent on a prompt and delivers the answer
    WEB_SEARCH = "web_search"  # searches the web and delivers the top results
    API_CALL = "api_call"  # makes an HTTP request and delivers the outcome


class _Data(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    @model_validator(mode="before")
    @classmethod
    def _storable(cls, data: Any) -> Any:
        """Every text as both databases keep it: no NUL, no lone surrogate."""
        return clean_value(data) if isinstance(data, dict) else data


class ReminderData(_Data):
    """A reminder: the text to deliver."""

    kind: Literal["reminder"] = "reminder"
    message: Annotated[str, Field(min_length=1, max_length=4000)]


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
        try:
            url = httpx.URL(value)
            host = url.host  # decodes an IDNA name, which may be invalid
        except (httpx.InvalidURL, TypeError, UnicodeError) as exc:
            raise ValueError(f"url {value!r} is not a valid URL ({exc})") from None
        if url.scheme not in ("http", "https") or not host:
            raise ValueError(
                f"url {value!r} must be an absolute http:// or https:// URL, "
                "e.g. 'https://example.com/api/lights/off'"
            )
        return value

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


ExecutionData: TypeAlias = ReminderData | AgentTaskData | WebSearchData | ApiCallData

_MODELS: dict[TaskType, type[ExecutionData]] = {
    TaskType.REMINDER: ReminderData,
    TaskType.AGENT_TASK: AgentTaskData,
    TaskType.WEB_SEARCH: WebSearchData,
    TaskType.API_CALL: ApiCallData,
}
_EXAMPLES: dict[TaskType, str] = {
    TaskType.REMINDER: '{"message": "call mom"}',
    TaskType.AGENT_TASK: '{"prompt": "summarise my notes tagged work"}',
    TaskType.WEB_SEARCH: '{"query": "top US news", "limit": 3}',
    TaskType.API_CALL: '{"method": "POST", "url": "https://example.com/lights/off"}',
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
    """Return the JSON form the store keeps."""
    return data.model_dump_json(exclude={"kind"})


def _describe_error(error: Any) -> str:
    where = ".".join(str(part) for part in error.get("loc", ())) or "data"
    message = str(error.get("msg", "is invalid"))
    if error.get("type") == "missing":
        return f"{where!r} is missing"
    if error.get("type") == "extra_forbidden":
        return f"{where!r} is not a known field"
    return f"{where!r}: {message.removeprefix('Value error, ')}"
