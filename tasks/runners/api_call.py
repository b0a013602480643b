"""The ``api_call`` runner: the stored HTTP request, retried where repeating it is safe.

It goes out through the program's one guarded HTTP client (``HttpSender``, the ``api_call``
tool's own), so a scheduled call meets the same SSRF guard, the same redirect rules (secret
headers never follow a redirect to another origin) and the same size cap as the tool.

GET, HEAD, PUT, DELETE and OPTIONS are retried on network errors and 5xx. POST and PATCH are
retried only when the request surely never left (the connection could not be made); a 5xx
answer is final, and a connection lost after sending (a timeout, a dropped connection) means
the server may have acted: the run's outcome is unknown, it is never repeated, and its owner
is asked. POST and PATCH carry an ``Idempotency-Key`` header, one per run (the same on each
of its attempts), so a server that honours it acts once however often it is asked. A refusal
that cannot change (a blocked address, an invalid URL) is not retried at all.

The request is made exactly as it was approved when the task was created; its ``${NAME}``
references are resolved as it is sent (``tasks.references``). The delivered outcome names
the method, the URL as stored (secret query values hidden), the status and a short piece of
the body; header values, resolved or not, never appear in it (they are scrubbed from the
body too).
"""

from __future__ import annotations

import base64
import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, replace

from common import (
    HttpRequest,
    HttpRequestError,
    HttpResponse,
    redact_text,
    redact_url,
    url_secrets,
)
from tasks.execution import ApiCallData
from tasks.models import RunStatus, Task, TaskRun
from tasks.protocols import DeliveryKind, HttpSender, SecretSource
from tasks.references import no_secrets
from tasks.runners.base import Deliverer, RunReport, Sleep

log = logging.getLogger(__name__)

BODY_PREVIEW = 300


class ApiCallRunner:
    """Makes a task's HTTP request and delivers the outcome.

    Args:
        deliverer: Where the outcome goes.
        http: The guarded HTTP client (the composition root passes the tools' own); without
            one, api_call runs fail saying that none is configured.
        secrets: The values of ``${NAME}`` references, looked up as each request is sent;
            without it a request with a reference fails saying so.
        sleep: Waits between retries (the clock's ``sleep``, so tests do not wait).
        attempts: Requests before a network error or 5xx is final.
        backoff: Seconds before the second attempt; doubles each time.
    """

    def __init__(
        self,
        deliverer: Deliverer,
        http: HttpSender | None = None,
        *,
        secrets: SecretSource | None = None,
        sleep: Sleep,
        attempts: int = 3,
        backoff: float = 1.0,
    ) -> None:
        self._deliverer = deliverer
        self._http = http
        self._lookup = no_secrets if secrets is None else secrets.secret
        self._sleep = sleep
        self._attempts = max(1, attempts)
        self._backoff = backoff

    async def run(self, task: Task, run: TaskRun) -> RunReport:
        """Make the request (with retries), then deliver the outcome or report the failure."""
        data = task.execution
        if not isinstance(data, ApiCallData):
            return RunReport(
                RunStatus.FAILED,
                error=f"task {task.id!r} is an api_call without request data; recreate it",
            )
        if self._http is None:
            return RunReport(
                RunStatus.FAILED,
                error="api_call tasks need an HTTP client, and none is configured",
            )
        target = f"{data.method} {redact_url(data.url)}"
        extra = {} if data.idempotent else {IDEMPOTENCY_HEADER: idempotency_key(task, run)}
        # References are resolved here, for this send only: the stored task keeps them.
        request = data.to_request(extra_headers=extra, lookup=self._lookup)
        response, failure = await self._request(self._http, request)
        if response is None:
            status = RunStatus.OUTCOME_UNKNOWN if failure.unknown else RunStatus.FAILED
            return RunReport(status, error=f"{target} failed: {failure.detail}")
        outcome = f"{target} -> {response.status_code} {response.reason}".rstrip()
        preview = body_preview(response, _secrets(request))
        text = f"{outcome}\n{preview}" if preview else outcome
        if response.status_code >= 400:
            return RunReport(RunStatus.FAILED, result=outcome, error=text)
        report = await self._deliverer.report(task, run, DeliveryKind.RESULT, text, outcome)
        # The request was made: running the task again to deliver its outcome would repeat it.
        return replace(report, retry_later=False)

    async def _request(
        self, http: HttpSender, request: HttpRequest
    ) -> tuple[HttpResponse | None, _Failure]:
        failure = _Failure("no attempt was made")
        for attempt in range(self._attempts):
            if attempt:
                await self._sleep(self._backoff * 2 ** (attempt - 1))
            try:
                response = await http.send(request)
            except HttpRequestError as exc:
                detail = exc.reason
                if exc.may_have_arrived and not request.idempotent:
                    # Repeating it could act twice: its outcome stays unknown.
                    note = f"not repeated: the {request.method} may already have acted"
                    return None, _Failure(f"{detail} ({note})", unknown=True)
                if exc.permanent:
                    return None, _Failure(detail)
                failure = _Failure(detail)
                log.info(
                    "api_call attempt %d to %s: %s", attempt + 1, redact_url(request.url), detail
                )
                log.debug("api_call attempt %d failed", attempt + 1, exc_info=exc)
                continue
            last = attempt == self._attempts - 1
            if response.status_code < 500 or last or not request.idempotent:
                return response, failure
            log.info(
                "api_call attempt %d to %s: HTTP %d",
                attempt + 1,
                redact_url(request.url),
                response.status_code,
            )
        return None, _Failure(f"{failure.detail} (after {self._attempts} attempts)")


@dataclass(frozen=True, slots=True)
class _Failure:
    """Why no answer came, and whether the request may have acted (its outcome is unknown)."""

    detail: str
    unknown: bool = False


IDEMPOTENCY_HEADER = "Idempotency-Key"
_KEY_NAMESPACE = uuid.UUID("6f1c2f6e-5a39-4d7e-9a51-3f0d2b8c7e11")


def idempotency_key(task: Task, run: TaskRun) -> str:
    """The ``Idempotency-Key`` of a run: the same for every attempt of this run, another for
    any other run (a later occurrence, or a "Run again"). It is derived from the task, the
    ledger row and the instants of the run, so it needs no column of its own."""
    name = f"{task.id}/{run.id}/{run.claimed_at.isoformat()}/{run.scheduled_for.isoformat()}"
    return str(uuid.uuid5(_KEY_NAMESPACE, name))


def _secrets(request: HttpRequest) -> list[str]:
    """Secret values the request carried, references resolved: its header values, the URL's
    password (with the Basic credentials the client derives from it) and its secret-looking
    query values."""
    import httpx  # loaded with the first request sent, not with the scheduler

    url = httpx.URL(request.url)
    derived = url_secrets(request.url)
    if url.password:
        pair = f"{url.username}:{url.password}".encode()
        derived.append(base64.b64encode(pair).decode("ascii"))
    return [*request.headers.values(), *derived]


def body_preview(response: HttpResponse, secrets: Iterable[str]) -> str:
    """Return the start of the response body, flattened, with secret values scrubbed (those
    the request carried, and anything ``redact_text`` recognises as a credential)."""
    if not response.content:
        return ""
    text = redact_text(" ".join(response.text.split()), secrets)
    return text if len(text) <= BODY_PREVIEW else text[: BODY_PREVIEW - 1] + "…"
