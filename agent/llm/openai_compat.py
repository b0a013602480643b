"""A backend for any server that speaks the OpenAI chat-completions API.

OpenAI, Ollama, vLLM, llama.cpp's server, LM Studio and OpenRouter all answer
``POST {base_url}/chat/completions``. Provider JSON exists only in this module and in
``agent.llm.wire``; everything outside sees ``ChatMessage`` and ``LLMResponse``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import (
    AsyncGenerator,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterator,
    Sequence,
)
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any, Literal, overload

import httpx

from agent.llm.base import (
    ChatMessage,
    LLMResponse,
    StreamEvent,
    TextDelta,
    ToolMode,
    stream_whole,
)
from agent.llm.errors import (
    LLMAuthError,
    LLMConnectionError,
    LLMError,
    LLMNotFoundError,
    LLMRateLimitError,
    LLMRequestError,
    LLMServerError,
    LLMTimeoutError,
    ToolsUnsupportedError,
)
from agent.llm.probe import ToolSupport, ToolSupportCache, Verdict
from agent.llm.queue import ModelQueue
from agent.llm.wire import (
    PROBE_TOOL,
    StreamedCompletion,
    WireNames,
    decode_completion,
    encode_messages,
    encode_tools,
    error_detail,
    mentions_streaming,
    mentions_tools,
    probe_payload,
)
from common import redact_text, redact_url
from tools import ToolDefinition

logger = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]

_RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class OpenAIBackend:
    """Chat completions over HTTP, with native or text-contract tool calling.

    ``mode`` decides how tools travel: ``NATIVE`` sends ``tools`` and reads ``tool_calls``;
    ``CONTRACT`` never sends ``tools`` (the agent puts the catalog in the system prompt);
    ``AUTO`` first asks the server once whether native calls come back (``probe``), and
    switches to contract for good when they do not, when the server rejects ``tools`` (then
    ``complete`` raises ``ToolsUnsupportedError`` so the caller rebuilds the round) or when
    the caller reports text calls through ``fall_back_to_contract``.

    Retries 429 and 5xx up to ``max_retries`` times, waiting ``Retry-After`` when the server
    sends it and an exponential backoff otherwise.
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        timeout: float = 60.0,
        mode: ToolMode = ToolMode.AUTO,
        max_retries: int = 3,
        backoff: float = 0.5,
        max_wait: float = 60.0,
        temperature: float | None = None,
        max_tokens: int | None = None,
        sleep: Sleep = asyncio.sleep,
        transport: httpx.AsyncBaseTransport | None = None,
        tool_support: ToolSupportCache | None = None,
        concurrency: int = 8,
    ) -> None:
        """Create a backend.

        Args:
            model: The model name the server knows (``ASSISTANT_LLM_MODEL``).
            base_url: The API root, usually ending in ``/v1`` (``ASSISTANT_LLM_BASE_URL``).
            api_key: Sent as a bearer token when set (``ASSISTANT_LLM_API_KEY``).
            timeout: Seconds to wait for one completion.
            mode: How tools travel; see the class docstring.
            max_retries: Extra attempts after a 429 or 5xx answer.
            backoff: First backoff in seconds; doubles per attempt.
            max_wait: Upper bound of any single wait, ``Retry-After`` included.
            temperature: Sampling temperature, or ``None`` for the server's default.
            max_tokens: The longest answer in tokens, or ``None`` for the server's default
                (``ASSISTANT_LLM_MAX_TOKENS``).
            sleep: How to wait between attempts (tests pass a recorder).
            transport: An httpx transport (tests may pass ``httpx.MockTransport``).
            tool_support: Where ``AUTO`` keeps what the probe found (one per process
                serves every backend; by default this backend's own).
            concurrency: Requests in flight at once (``ASSISTANT_LLM_CONCURRENCY``); more
                wait, served one user at a time in turn, and no user holds more than half
                of the places (``agent.llm.queue``).
        """
        if not model.strip():
            raise ValueError(f"model must name a model, got {model!r}; set ASSISTANT_LLM_MODEL")
        if max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, got {max_retries!r}")
        if timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        if concurrency < 1:
            raise ValueError(f"concurrency must be 1 or more, got {concurrency!r}")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self._configured_mode = mode
        self._mode = ToolMode.NATIVE if mode is ToolMode.AUTO else mode
        self._max_retries = max_retries
        self._backoff = backoff
        self._max_wait = max_wait
        self._temperature = temperature
        self._max_tokens = max_tokens
        self._sleep = sleep
        self._streams = True
        password = httpx.URL(self.base_url).password
        self._secrets = tuple(secret for secret in (api_key, password) if secret)
        self._support = tool_support or ToolSupportCache()
        self._queue = ModelQueue(capacity=concurrency)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(
            base_url=self.base_url, headers=headers, timeout=timeout, transport=transport
        )

    @property
    def mode(self) -> ToolMode:
        """``NATIVE`` or ``CONTRACT``: how the next request should carry tools."""
        return self._mode

    def fall_back_to_contract(self, reason: str) -> bool:
        """Switch an ``AUTO`` backend to the text contract; return whether it switched."""
        if self._configured_mode is not ToolMode.AUTO or self._mode is ToolMode.CONTRACT:
            return False
        logger.warning("model %r: switching to the text tool contract: %s", self.model, reason)
        self._mode = ToolMode.CONTRACT
        return True

    async def complete(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> LLMResponse:
        """Return the model's next message for ``messages``.

        Raises:
            ToolsUnsupportedError: ``tools`` were given but this backend no longer sends them
                (``AUTO`` after a fallback): rebuild the round for the contract and retry.
            LLMError: every other failure, with a message that says what to fix.
        """
        ticket = self._queue.join()
        try:
            async for _ in self._queue.wait(ticket):
                pass  # a whole answer has no one to tell
            return await self._complete(messages, tools)
        finally:
            self._queue.leave(ticket)

    async def _complete(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition] | None
    ) -> LLMResponse:
        with self._scrubbing():
            await self._check_native_tools(tools)
            payload, native, names = self._payload(messages, tools)
            response = await self._post(payload, sent_tools=native)
            answer = decode_completion(response, where=self._where, names=names)
            return self._seen(answer, native=native)

    async def stream(
        self, messages: Sequence[ChatMessage], *, tools: Sequence[ToolDefinition] | None = None
    ) -> AsyncGenerator[StreamEvent, None]:
        """Yield the model's text as the server writes it, then the whole response.

        Sends ``stream: true``; a server that refuses it (or answers whole anyway) is asked
        without streaming from then on. Closing the iterator early closes the connection.
        While the server's places are taken, ``Waiting`` notices come first.

        Raises:
            ToolsUnsupportedError: as ``complete``.
            LLMError: as ``complete``; also when the stream breaks off.
        """
        ticket = self._queue.join()
        try:
            async for notice in self._queue.wait(ticket):
                yield notice
            async for event in self._stream(messages, tools):
                yield event
        finally:
            self._queue.leave(ticket)

    async def _stream(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition] | None
    ) -> AsyncGenerator[StreamEvent, None]:
        with self._scrubbing():
            await self._check_native_tools(tools)
            payload, native, names = self._payload(messages, tools)
            response = None
            if self._streams:
                response = await self._post(
                    {**payload, "stream": True}, sent_tools=native, stream=True
                )
            if response is None:
                async for event in stream_whole(await self._complete(messages, tools)):
                    yield event
                return
            try:
                if not response.headers.get("content-type", "").startswith("text/event-stream"):
                    # Answered whole although asked to stream (some servers ignore the flag).
                    await response.aread()
                    whole = decode_completion(response, where=self._where, names=names)
                    async for event in stream_whole(self._seen(whole, native=native)):
                        yield event
                    return
                completion = StreamedCompletion(where=self._where, names=names)
                async for data in self._events(response):
                    if (text := completion.add(data)) != "":
                        yield TextDelta(text)
                yield self._seen(completion.response(), native=native)
            finally:
                await response.aclose()

    def _payload(
        self, messages: Sequence[ChatMessage], tools: Sequence[ToolDefinition] | None
    ) -> tuple[dict[str, Any], bool, WireNames]:
        """The request body, whether it carries native tools, and the names its tools and
        native calls go under (a dotted MCP tool's name does not fit OpenAI's; ``WireNames``).

        Raises:
            ToolsUnsupportedError: ``tools`` were given to a backend on the text contract.
        """
        native = bool(tools) and self._mode is ToolMode.NATIVE
        if tools and not native:
            raise ToolsUnsupportedError(
                f"model {self.model!r} uses the text tool contract; resend without tools"
            )
        names = WireNames(each.name for each in tools or ())
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": encode_messages(
                messages, native=self._mode is ToolMode.NATIVE, names=names
            ),
        }
        if native and tools is not None:
            payload["tools"] = encode_tools(tools, names)
            # OpenAI's default, said out loud: llama.cpp's Python server ignores tools without it.
            payload["tool_choice"] = "auto"
        if self._temperature is not None:
            payload["temperature"] = self._temperature
        if self._max_tokens is not None:
            payload["max_tokens"] = self._max_tokens
        return payload, native, names

    async def _check_native_tools(self, tools: Sequence[ToolDefinition] | None) -> None:
        """In ``AUTO``, make sure native calls come back before sending tools natively.

        Raises:
            ToolsUnsupportedError: they do not; the backend has switched to the contract.
        """
        if not tools or self._configured_mode is not ToolMode.AUTO:
            return
        if self._mode is not ToolMode.NATIVE:
            return
        verdict = self._support.get(self.base_url, self.model) or await self._probe()
        if verdict.support is ToolSupport.IGNORED:
            self.fall_back_to_contract(verdict.reason)
            raise ToolsUnsupportedError(
                f"{self._where} {verdict.reason}; switched to the text contract"
            )

    async def _probe(self) -> Verdict:
        """Ask the server once whether a native call comes back, and keep the answer."""
        try:
            response = await self._post(probe_payload(self.model), sent_tools=True)
        except ToolsUnsupportedError:
            raise  # rejected outright: already switched to the contract
        except LLMRequestError as exc:
            # The probe itself was refused (a parameter this server does not take): no
            # evidence either way, so native stays until a reply shows otherwise.
            return self._support.record(
                self.base_url, self.model, ToolSupport.NATIVE, f"probe refused: {exc}"
            )
        answer = decode_completion(response, where=self._where)
        if any(call.tool_name == PROBE_TOOL for call in answer.tool_calls):
            logger.info("%s returns native tool calls for %r", self._where, self.model)
            return self._support.record(
                self.base_url, self.model, ToolSupport.NATIVE, "a native call came back"
            )
        said = " ".join(answer.text.split())[:80]
        return self._support.record(
            self.base_url,
            self.model,
            ToolSupport.IGNORED,
            f"accepted native tools for model {self.model!r} but no tool call came back "
            f"(asked to call one, it answered {said!r})",
        )

    def _seen(self, response: LLMResponse, *, native: bool) -> LLMResponse:
        """Note a native reply without calls (an old probe verdict is then checked again)."""
        if native and not response.tool_calls:
            self._support.saw_reply_without_calls(self.base_url, self.model)
        return response

    async def _events(self, response: httpx.Response) -> AsyncIterator[str]:
        """The data of each server-sent event, until ``[DONE]``.

        Raises:
            LLMConnectionError: the body ended (or broke) before ``[DONE]``.
            LLMTimeoutError: the server stopped sending for longer than the timeout.
        """
        received = 0
        try:
            async for line in response.aiter_lines():
                if not line.startswith("data:"):
                    continue  # comments, event names and the blank lines between events
                data = line[5:].strip()
                if data == "[DONE]":
                    return
                received += 1
                yield data
        except httpx.TimeoutException as exc:
            raise LLMTimeoutError(
                f"{self._where} stopped sending in the middle of its answer (after "
                f"{received} pieces, nothing for {self._client.timeout.read}s); try again"
            ) from exc
        except httpx.HTTPError as exc:
            raise LLMConnectionError(
                f"the answer from {self._where} broke off after {received} pieces "
                f"({type(exc).__name__}); try again"
            ) from exc
        raise LLMConnectionError(
            f"the answer from {self._where} broke off after {received} pieces (the "
            "connection closed before the end of the stream); try again"
        )

    async def aclose(self) -> None:
        """Close the HTTP connections."""
        await self._client.aclose()

    @contextlib.contextmanager
    def _scrubbing(self) -> Iterator[None]:
        """Let errors leave with the key, and any credential a server echoes, hidden.

        A server that refuses a key often quotes it ("Incorrect API key provided: Bearer
        sk-..."); the message goes to the user and the log, so it is scrubbed here, at the
        boundary, whatever path raised it.
        """
        try:
            yield
        except LLMError as exc:
            clean = redact_text(str(exc), self._secrets)
            if clean == str(exc):
                raise
            raise type(exc)(clean) from exc.__cause__

    @property
    def _where(self) -> str:
        # A base URL may carry credentials (https://user:key@host/v1): never echo them.
        return f"the LLM server at {redact_url(self.base_url)!r}"

    @overload
    async def _post(
        self, payload: dict[str, Any], *, sent_tools: bool, stream: Literal[False] = False
    ) -> httpx.Response: ...

    @overload
    async def _post(
        self, payload: dict[str, Any], *, sent_tools: bool, stream: Literal[True]
    ) -> httpx.Response | None: ...

    async def _post(
        self, payload: dict[str, Any], *, sent_tools: bool, stream: bool = False
    ) -> httpx.Response | None:
        """POST the completion request, retrying what is worth retrying.

        With ``stream`` the response is returned open, its body unread (the caller closes
        it), or ``None`` when the server refuses to stream (then it is not asked again).
        """
        attempt = 0
        while True:
            response = await self._send(payload, stream=stream)
            if response.is_success:
                return response
            if stream:
                await response.aread()
                await response.aclose()
            detail = error_detail(response)
            if stream and mentions_streaming(response.status_code, detail):
                logger.warning(
                    "%s does not stream (%s); asking for whole answers", self._where, detail
                )
                self._streams = False
                return None
            if sent_tools and mentions_tools(response.status_code, detail):
                raise self._tools_rejected(response.status_code, detail)
            if response.status_code in _RETRY_STATUSES and attempt < self._max_retries:
                wait = self._wait_before_retry(response, attempt)
                logger.warning(
                    "%s answered HTTP %d; retry %d/%d in %.2fs",
                    self._where,
                    response.status_code,
                    attempt + 1,
                    self._max_retries,
                    wait,
                )
                await self._sleep(wait)
                attempt += 1
                continue
            raise self._status_error(response.status_code, detail, attempts=attempt + 1)

    async def _send(self, payload: dict[str, Any], *, stream: bool) -> httpx.Response:
        """Send one request, translating transport failures into ``LLMError``."""
        request = self._client.build_request("POST", "/chat/completions", json=payload)
        try:
            return await self._client.send(request, stream=stream)
        except httpx.TimeoutException as exc:
            raise LLMTimeoutError(
                f"{self._where} did not answer within {self._client.timeout.read}s "
                f"({type(exc).__name__}); the model may be loading or overloaded, "
                "try again or use a smaller model"
            ) from exc
        except httpx.ConnectError as exc:
            raise LLMConnectionError(
                f"cannot connect to {self._where}: {exc}; is the server running? "
                "check ASSISTANT_LLM_BASE_URL"
            ) from exc
        except httpx.HTTPError as exc:
            raise LLMConnectionError(
                f"the request to {self._where} failed: {type(exc).__name__}: {exc}"
            ) from exc

    def _wait_before_retry(self, response: httpx.Response, attempt: int) -> float:
        """Return how long to wait: ``Retry-After`` if given, else exponential backoff."""
        hinted = parse_retry_after(response.headers.get("retry-after"), now=datetime.now(UTC))
        wait = hinted if hinted is not None else self._backoff * (2**attempt)
        return max(0.0, min(wait, self._max_wait))

    def _tools_rejected(self, status: int, detail: str) -> LLMError:
        """Return the error for a server that refused native ``tools``."""
        if self.fall_back_to_contract(f"HTTP {status}: {detail}"):
            return ToolsUnsupportedError(
                f"{self._where} rejected native tool calling for model {self.model!r} "
                f"(HTTP {status}: {detail}); switched to the text contract"
            )
        return LLMRequestError(
            f"{self._where} rejected native tool calling for model {self.model!r} "
            f"(HTTP {status}: {detail}); set ASSISTANT_LLM_MODE=contract or auto"
        )

    def _status_error(self, status: int, detail: str, *, attempts: int) -> LLMError:
        """Return the error that explains a failed HTTP status."""
        said = f"HTTP {status}: {detail}"
        if status in (401, 403):
            return LLMAuthError(
                f"{self._where} refused the API key ({said}); "
                "set ASSISTANT_LLM_API_KEY to a valid key for this server"
            )
        if status == 404:
            return LLMNotFoundError(
                f"{self._where} has no model {self.model!r} or no chat-completions endpoint "
                f"({said}); check ASSISTANT_LLM_MODEL and ASSISTANT_LLM_BASE_URL "
                "(it usually ends in /v1)"
            )
        if status == 429:
            return LLMRateLimitError(
                f"{self._where} is still rate limiting after {attempts} attempts ({said}); "
                "wait a minute or raise your plan's limits"
            )
        if status >= 500:
            return LLMServerError(
                f"{self._where} kept failing after {attempts} attempts ({said}); try again later"
            )
        return LLMRequestError(f"{self._where} rejected the request ({said})")


def parse_retry_after(value: str | None, *, now: datetime) -> float | None:
    """Return the seconds a ``Retry-After`` header asks for, or ``None``.

    Args:
        value: The header: delay seconds (``"2"``, ``"1.5"``) or an HTTP date.
        now: The current instant, to turn a date into a delay.
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - now).total_seconds())
