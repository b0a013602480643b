"""Web tools: search through SerpApi, read a page as text, and call an HTTP API.

``WebTools`` holds one HTTP client and the SSRF guard. Its ``search`` method also serves
recurring web_search tasks: the composition root adapts it to the scheduler's ``Searcher``,
whose errors are ``TaskError``s, so this module raises only the tools' own errors. Its
guarded client (``http``) is the scheduler's too: scheduled API calls take the very path the
``api_call`` tool takes.
"""

from __future__ import annotations

import json
import logging
import ssl
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from common import (
    HTTP_METHODS,
    REDACTED,
    SAFE_METHODS,
    AsyncLifecycle,
    GuardedHttp,
    HttpRequest,
    HttpRequestError,
    HttpResponse,
    NetGuard,
    NotText,
    Resolver,
    install_log_redaction,
    page_text,
    parse_url,
    redact_headers,
    redact_text,
    redact_url,
    scrub,
    system_resolver,
    url_secrets,
)
from tasks import SearchHit
from tools import Effect, ToolContext, ToolError, tool

log = logging.getLogger(__name__)

NOT_CONFIGURED = "web search is not configured: set SERPAPI_API_KEY"
MAX_SEARCH_RESULTS = 10

if TYPE_CHECKING:  # httpx loads when a request is sent, not with the tools
    import httpx


class WebSearchError(ToolError):
    """A web search failed; the message says why and never contains the API key."""


@dataclass(frozen=True, slots=True)
class FetchedPage:
    """A page read as text.

    Attributes:
        url: The final URL after redirects.
        title: The page title ("" when none).
        content_type: The media type.
        text: The readable text, at most ``max_chars`` characters.
        truncated: Whether the text (or the download) was cut.
    """

    url: str
    title: str
    content_type: str
    text: str
    truncated: bool

    def render(self) -> str:
        """Render the page for the model."""
        head = f"{self.title}\n{self.url}" if self.title else self.url
        tail = "\n[... cut ...]" if self.truncated else ""
        return f"{head}\n\n{self.text}{tail}"


@dataclass(frozen=True, slots=True)
class ApiResponse:
    """The outcome of an ``api_call``, with secrets already redacted.

    Attributes:
        method: The request method.
        url: The final URL, secrets in its query hidden.
        status_code: The HTTP status.
        reason: The reason phrase.
        headers: Response headers, secret-looking values redacted.
        body: The start of the body as text, request secrets scrubbed out.
        truncated: Whether the body was cut.
    """

    method: str
    url: str
    status_code: int
    reason: str
    headers: dict[str, str]
    body: str
    truncated: bool

    def render(self) -> str:
        """Render the response for the model and the chat."""
        lines = [f"{self.method} {self.url} -> {self.status_code} {self.reason}".rstrip()]
        content_type = self.headers.get("content-type") or self.headers.get("Content-Type")
        if content_type:
            lines.append(f"content-type: {content_type}")
        if self.body:
            lines.append(self.body + ("\n[... cut ...]" if self.truncated else ""))
        return "\n".join(lines)


def render_hits(result: str | list[SearchHit]) -> str:
    """Render search results as a numbered list (or pass a message through)."""
    if isinstance(result, str):
        return result
    if not result:
        return "no results"
    lines = []
    for number, hit in enumerate(result, start=1):
        lines.append(f"{number}. {hit.title} - {hit.link}")
        if hit.snippet:
            lines.append(f"   {hit.snippet}")
    return "\n".join(lines)


def _page_text(response: HttpResponse) -> tuple[str, str]:
    try:
        return page_text(response)
    except NotText as exc:
        raise ToolError(
            f"{redact_url(response.url)} is {exc}; fetch_url reads HTML and text only"
        ) from None


def _check_range(name: str, value: float, low: float, high: float) -> None:
    if not low <= value <= high:
        raise ToolError(f"{name} {value!r} is out of range; use a value from {low:g} to {high:g}")


class WebTools(AsyncLifecycle):
    """search_web, fetch_url and api_call, sharing one client and one SSRF guard.

    Args:
        http: The HTTP client for SerpApi and allow-listed hosts; one is created (and closed
            by ``aclose``) when omitted.
        serpapi_key: The SerpApi key; without it ``search_web`` says search is not configured.
        serpapi_base_url: Where SerpApi lives (a local stand-in in tests).
        allow_hosts: Hosts trusted as they are (``ASSISTANT_HTTP_ALLOW_HOSTS``): they skip the
            SSRF guard, and ``api_call`` GET/HEAD to them needs no approval.
        resolver: Host name resolution for the guard.
        allow_networks: Non-public address ranges accepted anyway.
        verify: TLS verification for guarded requests.
        max_response_bytes: The download cap per response.
        max_redirects: Redirects one request may follow.
    """

    def __init__(
        self,
        http: httpx.AsyncClient | None = None,
        *,
        serpapi_key: str | None = None,
        serpapi_base_url: str = "https://serpapi.com",
        allow_hosts: Iterable[str] = (),
        resolver: Resolver = system_resolver,
        allow_networks: Iterable[str] = (),
        verify: ssl.SSLContext | bool = True,
        max_response_bytes: int = 2_000_000,
        max_redirects: int = 5,
    ) -> None:
        self._serpapi_key = (serpapi_key or "").strip() or None
        self._serpapi_url = serpapi_base_url.rstrip("/") + "/search.json"
        self._guard = NetGuard(
            resolver=resolver, allow_hosts=allow_hosts, allow_networks=allow_networks
        )
        # Its client (SerpApi's too) and its TLS context are made on first use.
        self._http = GuardedHttp(
            guard=self._guard, client=http, verify=verify, max_redirects=max_redirects
        )
        self._max_bytes = max_response_bytes
        install_log_redaction(self._serpapi_key)

    @property
    def http(self) -> GuardedHttp:
        """The guarded client every outgoing request of the tools takes (the scheduler's
        api_call runner is given it too)."""
        return self._http

    @property
    def search_configured(self) -> bool:
        """Whether web search works (a SerpApi key was given); the planner and the task tools
        ask before scheduling a search that could only fail."""
        return self._serpapi_key is not None

    async def aclose(self) -> None:
        """Close the HTTP client if this object created it."""
        await self._http.aclose()

    async def _enter(self) -> None:
        """Nothing to open: the client connects on first use."""

    async def _exit(self) -> None:
        await self.aclose()

    # -- search ----------------------------------------------------------------------------

    async def search(self, query: str, *, limit: int) -> list[SearchHit]:
        """Return up to ``limit`` web results for ``query``.

        Raises:
            WebSearchError: when search is not configured, or SerpApi fails or answers badly.
        """
        if self._serpapi_key is None:
            raise WebSearchError(NOT_CONFIGURED)
        if not query.strip():
            raise WebSearchError("the search query is empty; say what to search for")
        if not 1 <= limit <= MAX_SEARCH_RESULTS:
            raise WebSearchError(
                f"limit {limit!r} is out of range; use a value from 1 to {MAX_SEARCH_RESULTS}"
            )
        import httpx

        params = {"engine": "google", "q": query, "num": str(limit), "api_key": self._serpapi_key}
        try:
            response = await self._http.client().get(self._serpapi_url, params=params, timeout=20.0)
        except httpx.TimeoutException:
            raise WebSearchError("SerpApi did not answer in time; try again later") from None
        except httpx.HTTPError as exc:
            message = scrub(str(exc), [self._serpapi_key])
            raise WebSearchError(f"could not reach SerpApi: {message}") from None
        hits = self._parse_search(response)[:limit]
        log.info("web search %r: %d results", query, len(hits))
        return hits

    def _parse_search(self, response: httpx.Response) -> list[SearchHit]:
        try:
            payload = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            payload = None
        error = payload.get("error") if isinstance(payload, dict) else None
        if response.status_code != 200:
            raise WebSearchError(self._status_message(response.status_code, error))
        if not isinstance(payload, dict):
            raise WebSearchError(
                "SerpApi answered with something that is not a JSON object; try again later"
            )
        results = payload.get("organic_results")
        if results is None and isinstance(error, str):
            if "hasn't returned any results" in error:
                return []
            raise WebSearchError(f"SerpApi: {scrub(error, [self._serpapi_key or ''])}")
        return [
            SearchHit(str(r["title"]), str(r["link"]), str(r.get("snippet") or ""))
            for r in results or []
            if isinstance(r, dict) and r.get("title") and r.get("link")
        ]

    def _status_message(self, status: int, error: object) -> str:
        detail = f" ({scrub(error, [self._serpapi_key or ''])})" if isinstance(error, str) else ""
        if status in (401, 403):
            return f"SerpApi refused the API key (HTTP {status}){detail}; check SERPAPI_API_KEY"
        if status == 429:
            return (
                f"SerpApi says too many requests or no searches left (HTTP 429){detail}; "
                "try again later"
            )
        if status >= 500:
            return f"SerpApi had a server error (HTTP {status}){detail}; try again later"
        return f"SerpApi answered HTTP {status}{detail}"

    @tool(
        params={"limit": {"minimum": 1, "maximum": MAX_SEARCH_RESULTS}},
        llm_format=render_hits,
        timeout=30.0,
        parallel=True,
        # The query goes to the search service: words from a page or a note must not.
        effects=[Effect.READS_OUTSIDE, Effect.SENDS_OUT],
        reaches="https://serpapi.com",
    )
    async def search_web(self, query: str, limit: int = 5) -> str | list[SearchHit]:
        """Search the web and return the top results (title, link and snippet).

        Args:
            query: What to search for.
            limit: How many results to return (1 to 10).
        """
        if self._serpapi_key is None:
            raise ToolError(NOT_CONFIGURED)
        return await self.search(query, limit=limit)

    # -- fetch -----------------------------------------------------------------------------

    @tool(
        params={"max_chars": {"minimum": 100, "maximum": 50_000}},
        llm_format=FetchedPage.render,
        timeout=45.0,
        parallel=True,
        effects=[Effect.READS_OUTSIDE, Effect.SENDS_OUT],
        reaches="url",
    )
    async def fetch_url(self, url: str, max_chars: int = 4000) -> FetchedPage:
        """Download a web page and return its readable text.

        Args:
            url: The http(s) address of the page.
            max_chars: The most characters of text to return.
        """
        _check_range("max_chars", max_chars, 100, 50_000)
        response = await self._http.request(
            "GET", url, headers={"Accept": "text/html, text/*;q=0.9, */*;q=0.1"},
            seconds=20.0, max_bytes=self._max_bytes,
        )  # fmt: skip
        if response.status_code >= 400:
            raise ToolError(
                f"{redact_url(response.url)} answered HTTP {response.status_code} "
                f"{response.reason}".rstrip()
            )
        title, text = _page_text(response)
        return FetchedPage(
            url=redact_url(response.url),
            title=title,
            content_type=response.media_type,
            text=text[:max_chars],
            truncated=response.truncated or len(text) > max_chars,
        )

    # -- api calls -------------------------------------------------------------------------

    def needs_approval(self, url: str, method: str = "GET") -> bool:
        """Return whether an API call must be approved: any change, or a host not allowed.

        Raises:
            FetchError: when ``url`` is not a valid http(s) URL; such a call is refused with
                that message (the executor's gate makes it an invalid call), never put to a
                person for approval.
        """
        host = parse_url(url).host
        if method.strip().upper() not in SAFE_METHODS:
            return True
        return not self._guard.is_allowed_host(host)

    def approval_rule(self, arguments: dict[str, Any], ctx: ToolContext) -> bool:
        """The ``requires_approval`` rule of ``api_call`` for this instance's allow list."""
        method = str(arguments.get("method") or "GET")
        return self.needs_approval(str(arguments.get("url", "")), method)

    # ``approval_rule`` is bound to the instance, so it sees this instance's allow list.
    @tool(
        requires_approval=approval_rule,
        risk_level="medium",
        llm_format=ApiResponse.render,
        timeout=75.0,
        effects=[Effect.READS_OUTSIDE, Effect.SENDS_OUT],
        reaches="url",
    )
    async def api_call(
        self,
        url: str,
        method: str = "GET",
        headers: dict[str, str] | None = None,
        body: str | dict[str, Any] | list[Any] | None = None,
        timeout: float = 15,  # noqa: ASYNC109 -- the tool's documented argument name
    ) -> ApiResponse:
        """Call an HTTP API and return its status and the start of its answer.

        Changing methods (POST, PUT, PATCH, DELETE) and hosts outside the allow list need
        the user's approval first.

        Args:
            url: The full http(s) URL.
            method: The HTTP method.
            headers: Request headers; secret values are never shown or logged.
            body: The request body: text, or JSON data (an object or a list), sent as JSON.
            timeout: Seconds to wait for the answer (1 to 60).
        """
        verb = method.strip().upper()
        if verb not in HTTP_METHODS:
            raise ToolError(f"method {method!r} is not supported; use one of {list(HTTP_METHODS)}")
        _check_range("timeout", timeout, 1, 60)
        sent = _clean_headers(headers or {})
        if body is not None and not isinstance(body, str):
            body = json.dumps(body, ensure_ascii=False)
            if not any(name.lower() == "content-type" for name in sent):
                sent["Content-Type"] = "application/json"
        log.info("api_call %s %s headers=%s", verb, redact_url(url), redact_headers(sent))
        secrets = [v for k, v in sent.items() if redact_headers({k: v})[k] == REDACTED]
        secrets += url_secrets(url)
        request = HttpRequest(
            verb, url, sent, body.encode() if body is not None else None, timeout, self._max_bytes
        )
        try:
            response = await self._http.send(request)
        except HttpRequestError as exc:
            raise ToolError(scrub(str(exc), secrets)) from None
        text = response.text if verb != "HEAD" else ""
        shown = text[:2000]
        return ApiResponse(
            method=verb,
            url=redact_url(response.url),
            status_code=response.status_code,
            reason=response.reason,
            headers=redact_headers(response.headers.items()),
            body=redact_text(shown, secrets),
            truncated=response.truncated or len(text) > len(shown),
        )


def _clean_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Return ``headers`` with surrounding whitespace trimmed (a token pasted with its line
    break), refusing control characters; the message never quotes a value, which may be a
    secret."""
    cleaned: dict[str, str] = {}
    for name, value in headers.items():
        text = str(value).strip()
        if any((ord(ch) < 32 and ch != "\t") or ord(ch) == 127 for ch in text):
            raise ToolError(
                f"the value of header {name!r} contains a line break or another control "
                "character; remove it and try again"
            )
        cleaned[str(name).strip()] = text
    return cleaned
