"""The ``api_call`` runner: the stored HTTP request, retried where repeating it is safe.

GET, HEAD, PUT, DELETE and OPTIONS are retried on network errors and 5xx. POST and PATCH are
retried only when the connection could not be made (the request was surely not sent); a 5xx
answer is final, and a connection lost after sending (a timeout, a dropped connection) means
the server may have acted: the run's outcome is unknown, it is never repeated, and its owner
is asked. POST and PATCH carry an ``Idempotency-Key`` header, one per run (the same on each
of its attempts), so a server that honours it acts once however often it is asked.

The request is made exactly as it was approved when the task was created. The delivered
outcome names the method, the URL without its query or credentials, the status and a short
piece of the body; header values never appear in it (they are scrubbed from the body too).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, replace

import httpx

from common.redaction import is_secret_name, redact_url, scrub
from tasks.execution import ApiCallData
from tasks.models import RunStatus, Task, TaskRun
from tasks.protocols import DeliveryKind
from tasks.runners.base import Deliverer, RunReport, Sleep

log = logging.getLogger(__name__)

BODY_PREVIEW = 300
NOT_SENT_ERRORS = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)


class ApiCallRunner:
    """Makes a task's HTTP request and delivers the outcome.

    Args:
        deliverer: Where the outcome goes.
        client: The HTTP client (the composition root decides its transport and guards);
            without one the runner makes its own on first use and ``aclose`` closes it.
        sleep: Waits between retries (the clock's ``sleep``, so tests do not wait).
        attempts: Requests before a network error or 5xx is final.
        backoff: Seconds before the second attempt; doubles each time.
    """

    def __init__(
        self,
        deliverer: Deliverer,
        client: httpx.AsyncClient | None = None,
        *,
        sleep: Sleep,
        attempts: int = 3,
        backoff: float = 1.0,
    ) -> None:
        self._deliverer = deliverer
        self._client = client
        self._owned: httpx.AsyncClient | None = None
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
        target = f"{data.method} {redact_url(data.url)}"
        response, failure = await self._request(data, idempotency_key(task, run))
        if response is None:
            status = RunStatus.FAILED if failure.sent_ok else RunStatus.OUTCOME_UNKNOWN
            return RunReport(status, error=f"{target} failed: {failure.detail}")
        outcome = f"{target} -> {response.status_code} {response.reason_phrase}".rstrip()
        preview = body_preview(response, _secrets(data, response))
        text = f"{outcome}\n{preview}" if preview else outcome
        if response.status_code >= 400:
            return RunReport(RunStatus.FAILED, result=outcome, error=text)
        report = await self._deliverer.report(task, run, DeliveryKind.RESULT, text, outcome)
        # The request was made: running the task again to deliver its outcome would repeat it.
        return replace(report, retry_later=False)

    async def _request(self, data: ApiCallData, key: str) -> tuple[httpx.Response | None, _Failure]:
        idempotent = data.idempotent
        retried = httpx.TransportError if idempotent else NOT_SENT_ERRORS
        failure = _Failure("no attempt was made")
        for attempt in range(self._attempts):
            if attempt:
                await self._sleep(self._backoff * 2 ** (attempt - 1))
            try:
                response = await self._send(data, key)
            except retried as exc:
                failure = _Failure(f"{type(exc).__name__}: {exc or 'no detail'}")
                log.info(
                    "api_call attempt %d to %s: %s",
                    attempt + 1,
                    redact_url(data.url),
                    failure.detail,
                )
                continue
            except httpx.TransportError as exc:
                # The request may have reached the server: repeating it could act twice.
                detail = f"{type(exc).__name__}: {exc or 'no detail'}"
                note = f"not repeated: the {data.method} may already have acted"
                return None, _Failure(f"{detail} ({note})", sent_ok=False)
            last = attempt == self._attempts - 1
            if response.status_code < 500 or last or not idempotent:
                return response, failure
            log.info(
                "api_call attempt %d to %s: HTTP %d",
                attempt + 1,
                redact_url(data.url),
                response.status_code,
            )
        return None, _Failure(f"{failure.detail} (after {self._attempts} attempts)")

    async def aclose(self) -> None:
        """Close the client this runner made itself (a given client is left alone)."""
        owned, self._owned = self._owned, None
        if owned is not None:
            await owned.aclose()

    def _http(self) -> httpx.AsyncClient:
        if self._client is not None:
            return self._client
        if self._owned is None:
            self._owned = httpx.AsyncClient(follow_redirects=False)
        return self._owned

    async def _send(self, data: ApiCallData, key: str) -> httpx.Response:
        body = data.body
        content = body if isinstance(body, str) else None
        json_body = None if body is None or isinstance(body, str) else body
        headers = dict(data.headers)
        stated = {name.lower() for name in headers}
        if not data.idempotent and IDEMPOTENCY_HEADER.lower() not in stated:
            headers[IDEMPOTENCY_HEADER] = key
        return await self._http().request(
            data.method,
            data.url,
            headers=headers,
            content=content,
            json=json_body,
            timeout=data.timeout,
        )


@dataclass(frozen=True, slots=True)
class _Failure:
    """Why no answer came: the detail, and whether the request surely did not act."""

    detail: str
    sent_ok: bool = True  # False: it may have reached the server (the outcome is unknown)


IDEMPOTENCY_HEADER = "Idempotency-Key"
_KEY_NAMESPACE = uuid.UUID("6f1c2f6e-5a39-4d7e-9a51-3f0d2b8c7e11")


def idempotency_key(task: Task, run: TaskRun) -> str:
    """The ``Idempotency-Key`` of a run: the same for every attempt of this run, another for
    any other run (a later occurrence, or a "Run again"). It is derived from the task, the
    ledger row and the instants of the run, so it needs no column of its own."""
    name = f"{task.id}/{run.id}/{run.claimed_at.isoformat()}/{run.scheduled_for.isoformat()}"
    return str(uuid.uuid5(_KEY_NAMESPACE, name))


def _secrets(data: ApiCallData, response: httpx.Response) -> list[str]:
    """Header values the request carried (given, or derived such as Basic auth from the URL)."""
    sent = response.request.headers
    derived = [v for k, v in sent.items() if is_secret_name(k)]
    password = httpx.URL(data.url).password
    return [*data.headers.values(), *derived, *([password] if password else [])]


def body_preview(response: httpx.Response, secrets: Iterable[str]) -> str:
    """Return the start of the response body, flattened, with secret values scrubbed."""
    if not response.content:
        return ""
    text = scrub(" ".join(response.text.split()), secrets)
    return text if len(text) <= BODY_PREVIEW else text[: BODY_PREVIEW - 1] + "…"
